/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for Multipath DCCP's connection-level parts (RFC 9897;
 * issue 11 §2: lib/ coverage of the fuzz corpora), each against a model
 * of what it promises, not only "no crash":
 *   part 0  the receiver's reordering buffer (lib/mp_reorder.c, §3.2.5,
 *           Appendix A): pushes of arbitrary MP_SEQ numbers (near, behind,
 *           duplicate, across the 48-bit wrap, far ahead), pops, time.
 *           Released in strictly increasing MP_SEQ order, each one a
 *           datagram pushed and accepted (same length and bytes), none
 *           left behind below a released one, a duplicate of a held one
 *           refused, the count held as the model says; and liveness: at
 *           its expiry a buffer that holds something releases something.
 *   part 1  the schedulers (lib/mp_sched.c, §3.11, §3.2.10 MP_PRIO) over
 *           arbitrary path views, checked against the rules restated:
 *           the path chosen is up, may send and is not prio 0; min-RTT
 *           takes a primary path with no faster sendable primary, a
 *           secondary only when no primary can send, a standby only when
 *           no primary or secondary is up; active-backup takes only the
 *           best up path; round-robin the first eligible after *last.
 *   part 2, 3  an MP connection (lib/mp_conn.c) over two subflows: each
 *           path's CCID (2, 3, 4, BBR, CUBIC), reordering on or off, the
 *           scheduler, MP_PRIO, the second subflow's MP_JOIN (§3.3) at a
 *           time the input picks (also before the first is keyed: the
 *           server must then refuse it), signalling from either end
 *           (MP_PRIO, MP_ADDADDR of any address, MP_REMOVEADDR of any
 *           ID, §3.2.8-§3.2.10), a per-packet network schedule
 *           per path (drop, duplicate, delay, CE, bit flip), closes and
 *           aborts, a reader that stops.  Every datagram the receiver's
 *           MP connection releases is one the sender queued, byte for
 *           byte; its MP_SEQ is the IDSN plus its place in the sender's
 *           queue (§3.2.5); with reordering on, MP_SEQ strictly
 *           increases; every subflow keeps the chaos invariants
 *           (sim/sim_inv.h) and all memory comes back.
 *
 * Input: selector byte (bits 0-1: the part), then that part's bytes (the
 * comment above each part's function).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "mp_conn.h"
#include "mp_reorder.h"
#include "mp_sched.h"
#include "seq.h"
#include "sim_inv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c, why)                                                         \
  do {                                                                        \
    if (!(c)) {                                                               \
      fprintf(stderr, "fuzz_mp: %s (line %d)\n", (why), __LINE__);            \
      abort();                                                                \
    }                                                                         \
  } while (0)

#define MS UDCCP_NS_PER_MS

typedef struct rd {
  const uint8_t *in;
  size_t n, pos;
} rd;

static int more(const rd *r) { return r->pos < r->n; }

static uint8_t get8(rd *r) { return r->pos < r->n ? r->in[r->pos++] : 0; }

static uint64_t get48(rd *r) {
  uint64_t v = 0;
  for (int i = 0; i < 6; i++) {
    v = v << 8 | get8(r);
  }
  return v;
}

/* The bytes of the datagram numbered seq (the reordering part) or k (the
 * connection part): what the receiver checks. */
static uint8_t pat(uint64_t seq, size_t i) {
  return (uint8_t)(seq * 131 + (seq >> 17) + i * 7);
}

/* ------------------------------------------------ part 0: reordering */

#define RO_SLOT 48
#define RO_CAP_MAX 64

typedef struct ro_model {
  uint64_t seq[RO_CAP_MAX];
  uint32_t len[RO_CAP_MAX];
  size_t n;
  uint64_t last;     /* last MP_SEQ released */
  uint64_t popped;   /* datagrams released */
  int have_last;
} ro_model;

static int model_find(const ro_model *m, uint64_t seq) {
  for (size_t i = 0; i < m->n; i++) {
    if (m->seq[i] == seq) {
      return (int)i;
    }
  }
  return -1;
}

/* One pop's result against the model. */
static void ro_check_pop(ro_model *m, udccp_ssize len, uint64_t seq,
                         const uint8_t *buf) {
  int i = model_find(m, seq);
  CHECK(i >= 0, "released a datagram never accepted (or twice)");
  CHECK((uint32_t)len == m->len[i], "released with another length");
  for (size_t k = 0; k < (size_t)len; k++) {
    CHECK(buf[k] == pat(seq, k), "released other bytes than pushed");
  }
  CHECK(!m->have_last || udccp_seq_gt(seq, m->last),
        "MP_SEQ released out of order");
  m->seq[i] = m->seq[m->n - 1];
  m->len[i] = m->len[m->n - 1];
  m->n--;
  for (size_t k = 0; k < m->n; k++) {
    CHECK(udccp_seq_gt(m->seq[k], seq),
          "a held datagram left behind below one released");
  }
  m->last = seq;
  m->have_last = 1;
  m->popped++;
}

/* Bytes: cap (1 + b % 64), bound (b ms), first MP_SEQ (6 bytes), then
 * operations: bits 0-1 of a byte: 0 push (mode byte, then the number's
 * bytes, length byte), 1 pop with a buffer of the next byte's size, 2
 * time + next byte ms, 3 go to the expiry and drain (must release). */
static void part_reorder(rd *r) {
  udccp_mp_reorder ro;
  sim_inv_end mem;
  ro_model m;
  uint8_t buf[RO_SLOT + 8];
  size_t cap = 1 + get8(r) % RO_CAP_MAX;
  udccp_tstamp bound = (udccp_tstamp)get8(r) * MS;
  uint64_t base = get48(r) & UDCCP_SEQ_MASK, last_push = base;
  udccp_tstamp now = 0;
  memset(&m, 0, sizeof(m));
  sim_inv_end_init(&mem);
  CHECK(udccp_mp_reorder_init(&ro, &mem.mem, cap, RO_SLOT, bound) == 0,
        "init");
  for (int ops = 0; more(r) && ops < 4096; ops++) {
    uint8_t op = get8(r);
    switch (op & 3) {
    case 0: {
      uint8_t mode = get8(r);
      uint64_t seq;
      switch (mode & 3) {
      case 0: /* near the start */
        seq = udccp_seq_add(base, get8(r));
        break;
      case 1: /* around the last one pushed */
        seq = udccp_seq_add(last_push, (int8_t)get8(r));
        break;
      case 2: /* at or behind the last one released */
        seq = udccp_seq_add(m.last, -(int64_t)(get8(r) % 8));
        break;
      default: /* anywhere: far ahead, far behind */
        seq = get48(r) & UDCCP_SEQ_MASK;
        break;
      }
      size_t len = get8(r) % (RO_SLOT + 4);
      uint8_t d[RO_SLOT + 4];
      for (size_t k = 0; k < len; k++) {
        d[k] = pat(seq, k);
      }
      uint64_t next_before = ro.next;
      int valid_before = ro.next_valid;
      int held = model_find(&m, seq) >= 0;
      int rv = udccp_mp_reorder_push(&ro, seq, d, len, now);
      /* the window full: release the oldest, as mp_conn does, and again;
       * each round releases one, so it ends within cap rounds */
      for (size_t round = 0; rv == UDCCP_ERR_AGAIN; round++) {
        CHECK(round <= cap, "a push stays refused after cap releases");
        uint64_t s;
        udccp_ssize n = udccp_mp_reorder_pop(&ro, buf, sizeof(buf), &s, now);
        CHECK(n >= 0, "a full window gave nothing to pop");
        ro_check_pop(&m, n, s, buf);
        rv = udccp_mp_reorder_push(&ro, seq, d, len, now);
      }
      if (len > RO_SLOT) {
        CHECK(rv == UDCCP_ERR_MSGSIZE, "a datagram longer than a slot");
      } else if (held) {
        CHECK(rv == UDCCP_ERR_DROPPED, "a duplicate of a held one taken");
      } else if (rv == UDCCP_ERR_DROPPED) {
        CHECK(valid_before && udccp_seq_lt(seq, next_before),
              "refused a number neither old nor held");
      } else {
        CHECK(rv == 0, "push failed");
        CHECK(!m.have_last || udccp_seq_gt(seq, m.last),
              "took a number at or below one released");
        m.seq[m.n] = seq;
        m.len[m.n] = (uint32_t)len;
        m.n++;
      }
      if (rv == 0) {
        last_push = seq;
      }
      break;
    }
    case 1: {
      size_t bcap = get8(r) % (sizeof(buf) + 1);
      uint64_t s = 0;
      udccp_ssize n = udccp_mp_reorder_pop(&ro, buf, bcap, &s, now);
      if (n >= 0) {
        ro_check_pop(&m, n, s, buf);
      } else {
        CHECK(n == UDCCP_ERR_AGAIN || n == UDCCP_ERR_NOBUF, "pop failed");
        CHECK(n != UDCCP_ERR_AGAIN || ro.n == 0 ||
                  udccp_mp_reorder_expiry(&ro) > now,
              "nothing released although the bound ran out");
      }
      break;
    }
    case 2:
      now += (udccp_tstamp)get8(r) * MS;
      break;
    default: {
      udccp_tstamp e = udccp_mp_reorder_expiry(&ro);
      CHECK((ro.n == 0) == (e == UDCCP_TSTAMP_NEVER),
            "expiry says otherwise than the count");
      if (e != UDCCP_TSTAMP_NEVER && e > now) {
        now = e;
      }
      for (int k = 0; ro.n > 0; k++) {
        uint64_t s;
        udccp_ssize n = udccp_mp_reorder_pop(&ro, buf, sizeof(buf), &s, now);
        CHECK(k > 0 || n >= 0, "nothing released at the expiry");
        if (n < 0) {
          break;
        }
        ro_check_pop(&m, n, s, buf);
      }
      break;
    }
    }
    CHECK(ro.n == m.n, "held count differs from the model");
    CHECK(ro.released == m.popped, "released count differs from the model");
    CHECK(ro.released_late <= ro.released, "more released late than released");
  }
  udccp_mp_reorder_free(&ro);
  CHECK(mem.mem_now == 0, "reordering buffer memory not returned");
}

/* ------------------------------------------------ part 1: schedulers */

static int cls(uint8_t prio) { return prio >= 3 ? 3 : prio; }

/* a strictly better RTT than b: measured beats unmeasured */
static int faster(udccp_tstamp a, udccp_tstamp b) {
  if (a == 0 || b == 0) {
    return a != 0 && b == 0;
  }
  return a < b;
}

/* Bytes: n (1 + b % 8), then per path: RTT (b x 1 ms, 0 unmeasured),
 * flags (bit 0 up, bit 1 can send, bits 4-7 MP_PRIO), then *last. */
static void part_sched(rd *r) {
  udccp_mp_path_view v[UDCCP_MP_MAX_SUBFLOWS];
  size_t n = 1 + get8(r) % UDCCP_MP_MAX_SUBFLOWS;
  int up_cls[4] = {0, 0, 0, 0}, send_cls[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    v[i].srtt = (udccp_tstamp)get8(r) * MS;
    uint8_t fl = get8(r);
    v[i].up = fl & 1;
    v[i].can_send = (fl >> 1) & 1;
    v[i].prio = fl >> 4;
    up_cls[cls(v[i].prio)] |= v[i].up;
    send_cls[cls(v[i].prio)] |= v[i].up && v[i].can_send;
  }
  /* min-RTT */
  int i = udccp_mp_sched_minrtt(v, n);
  if (i >= 0) {
    CHECK((size_t)i < n && v[i].up && v[i].can_send && v[i].prio > 0,
          "min-RTT chose a path that may not send");
    int c = cls(v[i].prio);
    CHECK(c == 3 || !send_cls[3], "min-RTT passed over a sendable primary");
    CHECK(c >= 2 || (!up_cls[3] && !up_cls[2]),
          "min-RTT used a standby path while a better one is up");
    for (size_t k = 0; k < n; k++) {
      if (c == 3 && cls(v[k].prio) == 3 && v[k].up && v[k].can_send) {
        CHECK(!faster(v[k].srtt, v[i].srtt),
              "min-RTT passed over a faster primary");
      }
      if (c < 3 && cls(v[k].prio) == c && v[k].up && v[k].can_send) {
        CHECK(v[k].prio <= v[i].prio, "a lower MP_PRIO chosen in a class");
      }
    }
  } else {
    CHECK(i == -1, "min-RTT result");
    CHECK(!send_cls[3] && !send_cls[2], "min-RTT waits with a path free");
    CHECK(!send_cls[1] || up_cls[3] || up_cls[2],
          "min-RTT waits with only a standby path, free");
  }
  /* active-backup: the best up path, and only it */
  i = udccp_mp_sched_backup(v, n);
  int best = -1;
  for (size_t k = 0; k < n; k++) {
    if (v[k].up && v[k].prio > 0 &&
        (best < 0 || v[k].prio > v[best].prio ||
         (v[k].prio == v[best].prio && faster(v[k].srtt, v[best].srtt)))) {
      best = (int)k;
    }
  }
  CHECK(i == (best >= 0 && v[best].can_send ? best : -1),
        "active-backup chose another path than the best up one");
  /* round-robin: the first eligible path after *last */
  size_t last = get8(r) % n, last0 = last;
  i = udccp_mp_sched_rr(v, n, &last);
  int want = -1;
  for (size_t k = 1; k <= n && want < 0; k++) {
    size_t j = (last0 + k) % n;
    if (v[j].up && v[j].can_send && v[j].prio >= 1) {
      want = (int)j;
    }
  }
  CHECK(i == want, "round-robin skipped an eligible path");
  CHECK(i < 0 ? last == last0 : last == (size_t)i, "round-robin's *last");
}

/* ------------------------------------- parts 2, 3: the MP connection */

#define NPATH 2
#define NET_MAX 512
#define DGRAM_MAX 256

typedef struct npkt {
  udccp_tstamp at;
  uint64_t order;
  int path, to_server;
  uint8_t ecn;
  uint16_t len;
  uint8_t data[1500];
} npkt;

typedef struct mpf {
  rd r;
  udccp_conn *c[NPATH], *s[NPATH]; /* client and server subflows */
  sim_inv_end inv[2][NPATH];      /* [0] clients, [1] servers */
  sim_inv_end mpmem;              /* the two MP connections */
  udccp_settings st[NPATH];
  udccp_path pc[NPATH], ps[NPATH];
  udccp_mp_conn tx, rx;
  udccp_tstamp now, delay[NPATH];
  udccp_csprng rng; /* what applications give settings.rand */
  uint64_t order, idsn, queued, last_seq, noseq, got;
  int have_last, reorder, reading, joined;
  uint8_t prio1;
  size_t nnet;
  npkt *net;
} mpf;

/* The receiver's MP connection by CI: the first subflow's keys (§3.2.2). */
static int resolve(void *ud, uint32_t ci, udccp_mp_keys *out) {
  mpf *f = ud;
  if (f->s[0] == NULL || f->s[0]->mp == NULL ||
      f->s[0]->mp->keys.local_ci != ci) {
    return 0;
  }
  *out = f->s[0]->mp->keys;
  return 1;
}

static size_t dgram_len(uint64_t k) { return 4 + (size_t)(k * 37 % 200); }

static void net_push(mpf *f, int path, int to_server, const uint8_t *pkt,
                     size_t len, uint8_t ecn, udccp_tstamp at) {
  if (f->nnet >= NET_MAX) {
    return; /* the queue overflows: dropped */
  }
  npkt *p = &f->net[f->nnet++];
  p->at = at;
  p->order = f->order++;
  p->path = path;
  p->to_server = to_server;
  p->ecn = ecn;
  p->len = (uint16_t)len;
  memcpy(p->data, pkt, len);
}

/* A written packet meets its fate: bits 0-2 0-2 deliver, 3 drop, 4
 * duplicate, 5 late (+ bits 3-7 x 3 ms), 6 CE-mark, 7 flip bit 3-7. */
static void net_send(mpf *f, int path, int to_server, const uint8_t *pkt,
                     size_t len, uint8_t ecn) {
  uint8_t fate = get8(&f->r);
  udccp_tstamp at = f->now + f->delay[path];
  switch (fate & 7) {
  case 3:
    return;
  case 4:
    net_push(f, path, to_server, pkt, len, ecn, at);
    break;
  case 5:
    at += (udccp_tstamp)(fate >> 3) * 3 * MS;
    break;
  case 6:
    if (ecn == 1 || ecn == 2) {
      ecn = 3;
    }
    break;
  case 7: {
    uint8_t tmp[1500];
    memcpy(tmp, pkt, len);
    size_t bit = ((size_t)(fate >> 3) * 37) % (len * 8);
    tmp[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    net_push(f, path, to_server, tmp, len, ecn, at);
    return;
  }
  default:
    break;
  }
  net_push(f, path, to_server, pkt, len, ecn, at);
}

static void serve(mpf *f, int server, int k) {
  udccp_conn *c = server ? f->s[k] : f->c[k];
  uint8_t buf[1500];
  char why[200];
  if (c == NULL) {
    return;
  }
  if (udccp_conn_get_expiry(c) <= f->now) {
    (void)udccp_conn_handle_expiry(c, f->now);
  }
  for (int n = 0;; n++) {
    uint8_t ecn = 0;
    udccp_ssize len = udccp_conn_write_pkt(c, buf, sizeof(buf), &ecn, f->now);
    if (len <= 0) {
      break;
    }
    CHECK(n < 4096, "write_pkt does not stop");
    if (sim_inv_after_write(&f->inv[server][k], c, buf, (size_t)len,
                            f->st[k].pmtu, f->st[k].hdr_overhead, why,
                            sizeof(why)) != 0) {
      CHECK(0, why);
    }
    net_send(f, k, !server, buf, (size_t)len, ecn);
  }
  if (!udccp_conn_is_done(c) &&
      sim_inv_after_event(&f->inv[server][k], c, f->now, why, sizeof(why)) !=
          0) {
    CHECK(0, why);
  }
}

/* The receiving application: every datagram released is one queued, in
 * its bytes and its MP_SEQ. */
static void app_read(mpf *f) {
  uint8_t buf[DGRAM_MAX];
  if (!f->reading) {
    return;
  }
  for (int guard = 0;; guard++) {
    uint64_t seq = 0;
    udccp_ssize n =
        udccp_mp_conn_read(&f->rx, buf, sizeof(buf), &seq, f->now);
    if (n < 0) {
      CHECK(n == UDCCP_ERR_AGAIN, "read failed");
      break;
    }
    CHECK(guard < 100000, "read does not stop");
    CHECK(n >= 4, "a datagram shorter than any sent");
    uint64_t k = (uint64_t)buf[0] | (uint64_t)buf[1] << 8 |
                 (uint64_t)buf[2] << 16 | (uint64_t)buf[3] << 24;
    CHECK(k < f->queued, "a datagram never queued");
    CHECK((size_t)n == dgram_len(k), "a datagram of another length");
    for (size_t i = 4; i < (size_t)n; i++) {
      CHECK(buf[i] == pat(k, i), "a datagram with other bytes");
    }
    f->got++;
    if (seq == UINT64_MAX) {
      f->noseq++;
      continue;
    }
    /* §3.2.5: numbered from the IDSN in the order queued */
    CHECK(seq == udccp_seq_add(f->idsn, (int64_t)k),
          "MP_SEQ is not the IDSN plus the datagram's place");
    if (f->reorder) {
      CHECK(!f->have_last || udccp_seq_gt(seq, f->last_seq),
            "released out of MP_SEQ order with reordering on");
    }
    f->last_seq = seq;
    f->have_last = 1;
  }
  if (f->reorder) {
    CHECK(udccp_mp_conn_expiry(&f->rx) > f->now,
          "a reordering bound in the past after reading");
  }
}

static void pump(mpf *f) {
  for (int round = 0; round < 64; round++) {
    size_t placed = udccp_mp_conn_schedule(&f->tx, f->now);
    /* the receiving end signals too (MP_CONFIRM, its own MP_PRIO and
     * addresses): it is scheduled as mp_conn.h says, around its writes */
    (void)udccp_mp_conn_schedule(&f->rx, f->now);
    for (int k = 0; k < NPATH; k++) {
      serve(f, 0, k);
      serve(f, 1, k);
    }
    if (placed == 0) {
      break;
    }
  }
  app_read(f);
  CHECK(udccp_mp_conn_expiry(&f->tx) > f->now,
        "the sender's MP timer in the past after its turn");
}

static void deliver(mpf *f, const npkt *p) {
  if (p->to_server) {
    if (f->s[p->path] != NULL) {
      (void)udccp_conn_read_pkt(f->s[p->path], p->data, p->len, p->ecn,
                                f->now);
      /* the subflow's datagrams, each with its MP_SEQ, after each packet
       * (mp_conn.h) */
      udccp_mp_conn_on_read(&f->rx, (size_t)p->path, f->now);
    }
  } else if (f->c[p->path] != NULL) {
    (void)udccp_conn_read_pkt(f->c[p->path], p->data, p->len, p->ecn,
                              f->now);
  }
}

static void run_until(mpf *f, udccp_tstamp until) {
  for (int guard = 0; guard < 20000; guard++) {
    udccp_tstamp next = until;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < f->nnet; i++) {
      if (f->net[i].at < next ||
          (f->net[i].at == next && best != SIZE_MAX &&
           f->net[i].order < f->net[best].order)) {
        next = f->net[i].at;
        best = i;
      }
    }
    for (int k = 0; k < NPATH; k++) {
      udccp_conn *cs[2] = {f->c[k], f->s[k]};
      for (int j = 0; j < 2; j++) {
        if (cs[j] != NULL && !udccp_conn_is_done(cs[j]) &&
            udccp_conn_get_expiry(cs[j]) < next) {
          next = udccp_conn_get_expiry(cs[j]);
          best = SIZE_MAX;
        }
      }
    }
    if (udccp_mp_conn_expiry(&f->tx) < next) {
      next = udccp_mp_conn_expiry(&f->tx);
      best = SIZE_MAX;
    }
    /* a reader that stopped leaves its reordering bound behind it; its
     * signals' repeats still count */
    udccp_tstamp rx_at = udccp_mp_conn_expiry(&f->rx);
    if ((f->reading || rx_at > f->now) && rx_at < next) {
      next = rx_at;
      best = SIZE_MAX;
    }
    if (next > f->now) {
      f->now = next;
    }
    if (best != SIZE_MAX && f->net[best].at <= f->now) {
      npkt p = f->net[best];
      f->net[best] = f->net[--f->nnet];
      deliver(f, &p);
      pump(f);
      continue;
    }
    pump(f);
    if (f->now >= until) {
      return;
    }
  }
}

static void join(mpf *f, int only_when_keyed) {
  udccp_conn *c0 = f->c[0];
  if (f->joined || c0 == NULL || c0->mp == NULL) {
    return;
  }
  if (only_when_keyed && (!udccp_mp_active(c0->mp, &c0->feat) ||
                          c0->state != UDCCP_STATE_OPEN)) {
    return;
  }
  f->joined = 1;
  CHECK(udccp_conn_client_new(&f->c[1], &f->st[1], &f->pc[1], 42, f->now) ==
            0,
        "second subflow");
  CHECK(udccp_mp_join_client(f->c[1]->mp, &c0->mp->keys, 1) == 0, "join");
  CHECK(udccp_mp_conn_add(&f->tx, f->c[1], f->prio1) == 1, "add subflow");
}

static udccp_path mkpath(int k, int server) {
  udccp_path p;
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  p.local_addr[0] = p.remote_addr[0] = 10;
  p.local_addr[2] = p.remote_addr[2] = (uint8_t)k;
  p.local_addr[3] = server ? 2 : 1;
  p.remote_addr[3] = server ? 1 : 2;
  p.local_port = server ? 6000 : 5000;
  p.remote_port = server ? 5000 : 6000;
  return p;
}

/* Bytes: h0 bits 0-2 path 0's CCID, 3-5 path 1's (2, 3, 4, BBR, CUBIC,
 * 2, 3, 2), bit 6 reordering on, bit 7 Ack Vectors with CCID 3/4; h1
 * bits 0-1 scheduler (min-RTT, backup, round-robin, min-RTT), bits 4-7
 * path 1's MP_PRIO (path 0: 3), bit 2 ECN, bit 3 short seqnos allowed;
 * h2 reordering bound 1 + 2 b ms; h3 one-way delays (path 0: 1 + low
 * nibble ms, path 1: 1 + 4 x high nibble ms); h4 the IDSN is 2^48 - 1 -
 * h4 (numbers wrap within a few hundred datagrams).  Then operations,
 * bits 0-2 of a byte, a = bits 3-7; a written packet takes the next byte
 * as its fate (net_send):
 *   0 queue a + 1 datagrams        1 time + a^2 ms
 *   2 time + a s                   3 join (a odd: even before keyed)
 *   4 MP_PRIO of path a & 1 := a >> 1   5 scheduler a % 3
 *   6 close (a & 4: abort) client (a & 1: server) of path a >> 1 & 1
 *   7 the receiving application stops (a odd) or resumes reading */

/* Signalling through the MP connection (lib/mp_sig.c, RFC 9897 §3.2.8-
 * §3.2.10), side a & 1 (sender's or receiver's): MP_PRIO for a path,
 * MP_ADDADDR of an address the input gives (IPv4 or IPv6, a port or 0),
 * MP_REMOVEADDR of an ID.  Each answers as its contract says; what the
 * peer does with it runs under the same invariants as everything else. */
static void signal_op(mpf *f, unsigned a, rd *r) {
  udccp_mp_conn *mc = (a & 1) ? &f->rx : &f->tx;
  uint8_t addr[16], b = get8(r);
  int rv;
  switch ((a >> 1) & 7) {
  case 0:
  case 1:
    rv = udccp_mp_conn_set_prio(mc, (a >> 1) & 1, (uint8_t)(b & 31));
    CHECK(rv == 0 || rv == UDCCP_ERR_INVALID_ARGUMENT ||
              rv == UDCCP_ERR_NOBUF,
          "set_prio: undocumented answer");
    CHECK(rv != 0 || udccp_mp_conn_prio(mc, (a >> 1) & 1) <= (b & 31),
          "set_prio: the scheduler's priority above ours");
    break;
  case 2:
  case 3:
  case 4: {
    uint8_t family = ((a >> 1) & 7) == 4 ? 6 : 4;
    uint16_t port = (b & 1) ? 0 : (uint16_t)(get8(r) << 8 | get8(r));
    for (size_t i = 0; i < sizeof(addr); i++) {
      addr[i] = get8(r);
    }
    if (b & 2) {
      family = (uint8_t)(b >> 2); /* any family, mostly not 4 or 6 */
    }
    rv = udccp_mp_conn_announce(mc, family, addr, port);
    CHECK(rv >= 0 || rv == UDCCP_ERR_INVALID_STATE ||
              rv == UDCCP_ERR_INVALID_ARGUMENT || rv == UDCCP_ERR_NOBUF,
          "announce: undocumented answer");
    CHECK(rv < 0 || rv <= 255, "announce: an ID outside 0..255");
    break;
  }
  default:
    rv = udccp_mp_conn_unannounce(mc, b);
    CHECK(rv == 0 || rv == UDCCP_ERR_INVALID_STATE ||
              rv == UDCCP_ERR_INVALID_ARGUMENT || rv == UDCCP_ERR_NOBUF,
          "unannounce: undocumented answer");
    break;
  }
}

static void part_conn(rd *r) {
  static const uint8_t ccids[8] = {2, 3, 4, UDCCP_CCID_BBR_DEFAULT,
                                   UDCCP_CCID_CUBIC_DEFAULT, 2, 3, 2};
  mpf *f = calloc(1, sizeof(*f));
  CHECK(f != NULL, "calloc");
  f->net = calloc(NET_MAX, sizeof(*f->net));
  CHECK(f->net != NULL, "calloc");
  f->r = *r;
  uint8_t h0 = get8(&f->r), h1 = get8(&f->r), h2 = get8(&f->r);
  uint8_t h3 = get8(&f->r), h4 = get8(&f->r);
  uint8_t seed[16] = {0x9E, 0x37, 0x79, 0xB9, 0x7F, 0x4A, 0x7C, 0x15};
  seed[15] = h4;
  udccp_csprng_seed(&f->rng, seed);
  f->reorder = (h0 >> 6) & 1;
  f->reading = 1;
  f->prio1 = h1 >> 4;
  f->delay[0] = (1 + (udccp_tstamp)(h3 & 15)) * MS;
  f->delay[1] = (1 + 4 * (udccp_tstamp)(h3 >> 4)) * MS;
  f->idsn = UDCCP_SEQ_MASK - h4;
  sim_inv_end_init(&f->mpmem);
  for (int k = 0; k < NPATH; k++) {
    udccp_settings *st = &f->st[k];
    udccp_settings_default(st);
    st->rand = udccp_csprng_fill;
    st->rand_user_data = &f->rng;
    st->multipath = 1;
    st->ccid = ccids[(h0 >> (3 * k)) & 7];
    st->ack_vectors = (h0 >> 7) & 1;
    st->ecn_capable = (h1 >> 2) & 1;
    st->allow_short_seqnos = (h1 >> 3) & 1;
    st->rx_qlen = 64;
    f->pc[k] = mkpath(k, 0);
    f->ps[k] = mkpath(k, 1);
    sim_inv_end_init(&f->inv[0][k]);
    sim_inv_end_init(&f->inv[1][k]);
  }
  for (int k = 0; k < NPATH; k++) {
    udccp_settings s = f->st[k];
    s.mem = &f->inv[1][k].mem;
    CHECK(udccp_conn_listen_new(&f->s[k], &s, &f->ps[k], 42, 0) == 0,
          "server subflow");
    udccp_mp_set_resolver(f->s[k]->mp, resolve, f);
    f->st[k].mem = &f->inv[0][k].mem;
  }
  CHECK(udccp_conn_client_new(&f->c[0], &f->st[0], &f->pc[0], 42, 0) == 0,
        "first subflow");
  CHECK(udccp_mp_conn_init(&f->tx, &f->mpmem.mem, 32, DGRAM_MAX, f->idsn, 0,
                           0) == 0,
        "tx");
  CHECK(udccp_mp_conn_init(&f->rx, &f->mpmem.mem, 32, DGRAM_MAX, 0,
                           f->reorder, (1 + 2 * (udccp_tstamp)h2) * MS) == 0,
        "rx");
  f->tx.sched = h1 & 3;
  CHECK(udccp_mp_conn_add(&f->tx, f->c[0], 3) == 0, "add");
  for (int k = 0; k < NPATH; k++) {
    CHECK(udccp_mp_conn_add(&f->rx, f->s[k], 3) == k, "add");
  }
  pump(f);
  for (int ops = 0; more(&f->r) && ops < 2000; ops++) {
    uint8_t op = get8(&f->r);
    unsigned a = op >> 3;
    switch (op & 7) {
    case 0: {
      uint8_t d[DGRAM_MAX];
      for (unsigned i = 0; i <= a; i++) {
        size_t len = dgram_len(f->queued);
        d[0] = (uint8_t)f->queued;
        d[1] = (uint8_t)(f->queued >> 8);
        d[2] = (uint8_t)(f->queued >> 16);
        d[3] = (uint8_t)(f->queued >> 24);
        for (size_t j = 4; j < len; j++) {
          d[j] = pat(f->queued, j);
        }
        if (udccp_mp_conn_queue(&f->tx, d, len) != 0) {
          break;
        }
        f->queued++;
      }
      pump(f);
      break;
    }
    case 1:
      run_until(f, f->now + (udccp_tstamp)a * a * MS);
      break;
    case 2:
      run_until(f, f->now + (udccp_tstamp)a * UDCCP_NS_PER_S);
      break;
    case 3:
      join(f, !(a & 1));
      pump(f);
      break;
    case 4:
      if (a & 16) {
        signal_op(f, a, &f->r);
      } else if ((a & 1) < f->tx.n_sub) {
        f->tx.prio[a & 1] = (uint8_t)(a >> 1);
      }
      pump(f);
      break;
    case 5:
      f->tx.sched = (uint8_t)(a % 3);
      pump(f);
      break;
    case 6: {
      int k = (a >> 1) & 1;
      udccp_conn *c = (a & 1) ? f->s[k] : f->c[k];
      if (c != NULL) {
        if ((a & 4) || udccp_conn_close(c, f->now) != 0) {
          (void)udccp_conn_abort(c, UDCCP_RESET_ABORTED, f->now);
        }
      }
      pump(f);
      break;
    }
    default:
      f->reading = !(a & 1);
      pump(f);
      break;
    }
    run_until(f, f->now + 1 * MS);
  }
  /* the rest, undisturbed and read */
  f->reading = 1;
  run_until(f, f->now + 120 * UDCCP_NS_PER_S);
  udccp_mp_conn_free(&f->tx);
  udccp_mp_conn_free(&f->rx);
  for (int k = 0; k < NPATH; k++) {
    udccp_conn_del(f->c[k]);
    udccp_conn_del(f->s[k]);
    CHECK(f->inv[0][k].mem_now == 0 && f->inv[1][k].mem_now == 0,
          "a subflow's memory not returned");
  }
  CHECK(f->mpmem.mem_now == 0, "MP connection memory not returned");
  free(f->net);
  free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rd r;
  if (size < 1) {
    return 0;
  }
  r.in = data + 1;
  r.n = size - 1;
  r.pos = 0;
  switch (data[0] & 3) {
  case 0:
    part_reorder(&r);
    break;
  case 1:
    part_sched(&r);
    break;
  default:
    part_conn(&r);
    break;
  }
  return 0;
}

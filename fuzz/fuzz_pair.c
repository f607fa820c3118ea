/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: two udccp endpoints (a client and a listener's server
 * connection) over a network the input schedules packet by packet, with
 * application calls and time jumps up to minutes (issue 11 §2).  After
 * every event each connection must keep the chaos invariants of
 * sim/sim_inv.h (sequence numbers increase, §7.5.1 windows, MPS, bounded
 * memory, no timer in the past once served), and write_pkt must not loop.
 *
 * Input: two settings bytes, then a stream of operations.  Whenever a
 * written packet needs a fate, the next stream byte is taken as one (so
 * fates and operations interleave); an exhausted stream delivers.
 *   settings[0]: bits 0-1 CCID (0, 1: 2; 2: 3; 3: 4; 0 also puts the
 *                server on a udccp_mempool and both send queues on the
 *                priority policy, 1 makes the listener answer with Init
 *                Cookies always, §8.1.4), bit 2 short
 *                sequence numbers, bit 3 ECN, bits 4-7 CsCov sent (0-15)
 *   settings[1]: bits 0-3 Sequence Window 32 << n (n < 12), bits 4-5 Ack
 *                Ratio 1 + n, bit 6 server holds TIMEWAIT, bit 7 Data
 *                Checksum asked
 *   operation byte: bits 0-2 kind, bits 3-7 argument a
 *     0 client queues a + 1 datagrams of 1 + next byte * 5 bytes
 *     1 server application reads all (a odd: stops reading until next 1)
 *     2 time advances a^3 ms (up to ~30 s)
 *     3 time advances a x 10 s (up to ~5 minutes)
 *     4 close or abort: a % 4 = client close, client abort, server close,
 *       server abort
 *     5 server queues a + 1 datagrams (the reverse direction)
 *     6 the listener: a % 4 = set backlog a / 4, read its stats, report
 *       the server connection accepted, report it updated; and the
 *       server's pool (if any) is trimmed
 *     7 client queues a + 1 datagrams with priority next byte
 *   fate byte: bits 0-2 0-2 deliver, 3 drop, 4 duplicate, 5 deliver late
 *     (reordered, + bits 3-7 x 7 ms), 6 CE-mark, 7 flip bit (bits 3-7)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "sim_inv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                              \
  do {                                                                        \
    if (!(c)) {                                                               \
      abort();                                                                \
    }                                                                         \
  } while (0)

/* An invariant broken: says which side and why before aborting. */
#define CHECK_WHY(c, side, why)                                               \
  do {                                                                        \
    if (!(c)) {                                                               \
      fprintf(stderr, "fuzz_pair: %s: %s\n", (side) ? "server" : "client",   \
              (why));                                                         \
      abort();                                                                \
    }                                                                         \
  } while (0)

#define MS UDCCP_NS_PER_MS
#define NET_MAX 512   /* packets in flight */
#define BURST_MAX 4096 /* packets one side may write at one instant */

typedef struct npkt {
  udccp_tstamp at;
  uint64_t order;
  int to;
  uint8_t ecn;
  uint16_t len;
  uint8_t data[1500];
} npkt;

typedef struct fz {
  const uint8_t *in;
  size_t n, pos;
  udccp_conn *c[2];
  udccp_listener *lis;
  udccp_mempool *pool; /* the server's allocator, when settings[0] & 3 == 0 */
  udccp_settings set[2];
  sim_inv_end inv[2];
  udccp_path path[2];
  udccp_tstamp now;
  uint64_t rnd, order;
  int srv_reads;
  size_t nnet;
  npkt *net;
  uint8_t buf[1500];
} fz;

static void fz_rand(uint8_t *dest, size_t len, void *ud) {
  uint64_t *s = ud;
  for (size_t i = 0; i < len; ++i) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    dest[i] = (uint8_t)(*s >> 56);
  }
}

static int next_byte(fz *f, uint8_t *b) {
  if (f->pos >= f->n) {
    return 0;
  }
  *b = f->in[f->pos++];
  return 1;
}

static void net_push(fz *f, int to, const uint8_t *pkt, size_t len,
                     uint8_t ecn, udccp_tstamp at) {
  if (f->nnet >= NET_MAX) {
    return; /* the queue overflows: dropped */
  }
  npkt *p = &f->net[f->nnet++];
  p->at = at;
  p->order = f->order++;
  p->to = to;
  p->ecn = ecn;
  p->len = (uint16_t)len;
  memcpy(p->data, pkt, len);
}

/* A packet side `from` wrote meets its fate. */
static void net_send(fz *f, int from, const uint8_t *pkt, size_t len,
                     uint8_t ecn) {
  uint8_t fate = 0;
  udccp_tstamp at = f->now + 10 * MS;
  (void)next_byte(f, &fate);
  switch (fate & 7) {
  case 3:
    return;
  case 4:
    net_push(f, 1 - from, pkt, len, ecn, at);
    break;
  case 5:
    at += (udccp_tstamp)(fate >> 3) * 7 * MS;
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
    net_push(f, 1 - from, tmp, len, ecn, at);
    return;
  }
  default:
    break;
  }
  net_push(f, 1 - from, pkt, len, ecn, at);
}

static void retire(fz *f, int side) {
  if (side == 1 && f->lis != NULL) {
    udccp_listener_conn_gone(f->lis, f->c[1]);
  }
  udccp_conn_del(f->c[side]);
  f->c[side] = NULL;
}

/* Serves one side at f->now: timers, the application, every packet it
 * has; then the invariants. */
static void serve(fz *f, int side) {
  udccp_conn *c = f->c[side];
  if (c == NULL) {
    return;
  }
  if (udccp_conn_get_expiry(c) <= f->now) {
    (void)udccp_conn_handle_expiry(c, f->now);
  }
  if (side == 1 && f->srv_reads) {
    while (udccp_conn_read_datagram(c, f->buf, sizeof(f->buf)) >= 0) {
    }
  }
  int n = 0;
  for (;;) {
    uint8_t ecn = 0;
    udccp_ssize len = udccp_conn_write_pkt(c, f->buf, sizeof(f->buf), &ecn,
                                           f->now);
    if (len <= 0) {
      break;
    }
    char why[200];
    CHECK_WHY(sim_inv_after_write(&f->inv[side], c, f->buf, (size_t)len,
                                  f->set[side].pmtu,
                                  f->set[side].hdr_overhead, why,
                                  sizeof(why)) == 0,
              side, why);
    CHECK(++n < BURST_MAX);
    net_send(f, side, f->buf, (size_t)len, ecn);
  }
  if (udccp_conn_is_done(c)) {
    retire(f, side);
    return;
  }
  char why[200];
  CHECK_WHY(sim_inv_after_event(&f->inv[side], c, f->now, why, sizeof(why)) ==
                0,
            side, why);
}

static void deliver(fz *f, const npkt *p) {
  uint8_t out[1500];
  if (f->c[p->to] != NULL) {
    (void)udccp_conn_read_pkt(f->c[p->to], p->data, p->len, p->ecn, f->now);
  } else if (p->to == 1) {
    udccp_conn *nc = NULL;
    udccp_ssize n = udccp_listener_read_pkt(f->lis, &f->path[1], p->data,
                                            p->len, f->now, &nc, out,
                                            sizeof(out));
    if (nc != NULL && f->inv[1].have_gss == 0) {
      f->c[1] = nc;
    } else if (nc != NULL) {
      /* one server connection per run: a second is refused */
      udccp_listener_conn_gone(f->lis, nc);
      udccp_conn_del(nc);
    } else if (n > 0) {
      net_send(f, 1, out, (size_t)n, 0);
    }
  }
  serve(f, p->to);
}

/* Runs the network and both sides up to time `until`. */
static void run_until(fz *f, udccp_tstamp until) {
  for (int guard = 0; guard < 100000; guard++) {
    /* earliest of: a packet, a side's expiry */
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
    for (int s = 0; s < 2; s++) {
      if (f->c[s] != NULL && udccp_conn_get_expiry(f->c[s]) < next) {
        next = udccp_conn_get_expiry(f->c[s]);
        best = SIZE_MAX;
      }
    }
    if (next > f->now) {
      f->now = next;
    }
    if (best != SIZE_MAX && f->net[best].at <= f->now) {
      npkt p = f->net[best];
      f->net[best] = f->net[--f->nnet];
      deliver(f, &p);
      continue;
    }
    int served = 0;
    for (int s = 0; s < 2; s++) {
      if (f->c[s] != NULL && udccp_conn_get_expiry(f->c[s]) <= f->now) {
        serve(f, s);
        served = 1;
      }
    }
    if (!served && f->now >= until) {
      return;
    }
  }
}

static void queue(fz *f, int side, unsigned count, size_t len,
                  uint32_t prio) {
  uint8_t payload[1500];
  memset(payload, 0x5A, sizeof(payload));
  for (unsigned i = 0; i < count && f->c[side] != NULL; i++) {
    if (udccp_conn_queue_datagram(f->c[side], payload, len, prio, f->now) !=
        0) {
      break;
    }
  }
  serve(f, side);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint32_t codes[] = {42};
  if (size < 2) {
    return 0;
  }
  fz *f = calloc(1, sizeof(*f));
  CHECK(f != NULL);
  f->net = calloc(NET_MAX, sizeof(*f->net));
  CHECK(f->net != NULL);
  f->in = data + 2;
  f->n = size - 2;
  f->rnd = 0x1234567;
  f->srv_reads = 1;
  static const uint8_t ccids[4] = {2, 2, 3, 4};
  for (int s = 0; s < 2; s++) {
    udccp_settings *st = &f->set[s];
    udccp_settings_default(st);
    sim_inv_end_init(&f->inv[s]);
    st->mem = &f->inv[s].mem;
    st->rand = fz_rand;
    st->rand_user_data = &f->rnd;
    st->ccid = ccids[data[0] & 3];
    st->allow_short_seqnos = (data[0] >> 2) & 1;
    st->ecn_capable = (data[0] >> 3) & 1;
    st->send_cscov = (uint8_t)(data[0] >> 4);
    st->seq_window = 32ULL << ((data[1] & 15) % 12);
    st->ack_ratio = (uint16_t)(1 + ((data[1] >> 4) & 3));
    st->server_timewait = (data[1] >> 6) & 1;
    st->check_data_checksum = (data[1] >> 7) & 1;
    udccp_path *p = &f->path[s];
    p->family = UDCCP_AF_INET;
    p->local_addr[0] = 10;
    p->local_addr[3] = (uint8_t)(1 + s);
    p->remote_addr[0] = 10;
    p->remote_addr[3] = (uint8_t)(2 - s);
    p->local_port = s ? 5001 : 40000;
    p->remote_port = s ? 40000 : 5001;
  }
  if ((data[0] & 3) == 0) {
    /* a small cache, so that blocks also go back to the base allocator */
    CHECK(udccp_mempool_new(&f->pool, f->set[1].mem, 16384) == 0);
    f->set[1].mem = udccp_mempool_mem(f->pool);
    f->set[0].qpolicy = UDCCP_QPOLICY_PRIO;
    f->set[1].qpolicy = UDCCP_QPOLICY_PRIO;
  }
  udccp_listener_settings ls;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = codes;
  ls.n_service_codes = 1;
  ls.cookie_lifetime = 8 * UDCCP_NS_PER_S;
  if ((data[0] & 3) == 1) {
    ls.init_cookie = UDCCP_INIT_COOKIE_ALWAYS;
  }
  CHECK(udccp_listener_new(&f->lis, &f->set[1], &ls, 0) == 0);
  CHECK(udccp_conn_client_new(&f->c[0], &f->set[0], &f->path[0], 42, 0) == 0);
  serve(f, 0);
  uint8_t op;
  while (next_byte(f, &op)) {
    unsigned a = op >> 3;
    uint8_t b = 0;
    switch (op & 7) {
    case 0:
      (void)next_byte(f, &b);
      queue(f, 0, a + 1, 1 + (size_t)b * 5, 0);
      break;
    case 1:
      f->srv_reads = !(a & 1);
      serve(f, 1);
      break;
    case 2:
      run_until(f, f->now + (udccp_tstamp)a * a * a * MS);
      break;
    case 3:
      run_until(f, f->now + (udccp_tstamp)a * 10 * UDCCP_NS_PER_S);
      break;
    case 4: {
      int side = (a % 4) >= 2;
      if (f->c[side] != NULL) {
        if ((a & 1) || udccp_conn_close(f->c[side], f->now) != 0) {
          (void)udccp_conn_abort(f->c[side], UDCCP_RESET_ABORTED, f->now);
        }
        serve(f, side);
      }
      break;
    }
    case 5:
      (void)next_byte(f, &b);
      queue(f, 1, a + 1, 1 + (size_t)b * 5, 0);
      break;
    case 6: {
      udccp_listener_stats ls_st;
      switch (a % 4) {
      case 0:
        udccp_listener_set_backlog(f->lis, a / 4);
        break;
      case 1:
        udccp_listener_get_stats(f->lis, &ls_st);
        break;
      case 2:
        if (f->c[1] != NULL) {
          udccp_listener_conn_accepted(f->lis, f->c[1]);
        }
        break;
      default:
        if (f->c[1] != NULL) {
          udccp_listener_conn_update(f->lis, f->c[1]);
        }
        break;
      }
      if (f->pool != NULL) {
        udccp_mempool_trim(f->pool);
      }
      break;
    }
    case 7:
      (void)next_byte(f, &b);
      queue(f, 0, a + 1, 1 + (size_t)(b % 64) * 20, b);
      break;
    default:
      break;
    }
    run_until(f, f->now + 1 * MS);
  }
  /* the rest of the life, undisturbed: a few minutes */
  run_until(f, f->now + 300 * UDCCP_NS_PER_S);
  for (int s = 0; s < 2; s++) {
    if (f->c[s] != NULL) {
      retire(f, s);
    }
  }
  udccp_listener_del(f->lis);
  udccp_mempool_del(f->pool);
  CHECK(f->inv[0].mem_now == 0);
  CHECK(f->inv[1].mem_now == 0);
  free(f->net);
  free(f);
  return 0;
}

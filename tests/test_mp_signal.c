/* SPDX-License-Identifier: MIT */
/*
 * MP-DCCP signalling and closing end to end (RFC 9897, draft-25 section
 * numbers in the test names): two MP connections (lib/mp_conn.c), client
 * and server, over two subflows on two lossless paths with fixed delays
 * (10 and 20 ms one way); a filter may drop chosen packets.  Covers
 * MP_PRIO from the peer steering active-backup (§3.2.10), MP_ADDADDR /
 * MP_REMOVEADDR across subflows (§3.2.8, §3.2.9), MP_CLOSE (§3.2.11),
 * MP_FAST_CLOSE with Reset code 13 (§3.2.3), joins ignored while closing
 * (§3.2.11) and refused with Too Busy beyond the limit (§3.10, §3.7).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "mp.h"
#include "mp_conn.h"
#include "mp_opt.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S
#define MAXF 4096
#define RATE_BPS 4000000        /* each path, each direction */
#define QUEUE_MAX (40 * MS)     /* drop-tail: at most 40 ms of backlog */
#define DGRAM 500
#define NSUB UDCCP_MP_MAX_SUBFLOWS

typedef struct flight {
  udccp_tstamp at;
  int path, to_server;
  size_t len;
  uint8_t data[1500];
} flight;

/* What went over the wire (per direction, per path). */
typedef struct seen {
  uint32_t pkts;
  uint32_t close_mp, closereq_mp; /* Close / CloseReq with a valid-length
                                     MP_CLOSE carrying `key` */
  uint32_t close_plain, closereq_plain;
  uint32_t reset[256];            /* Resets by code */
  uint32_t reset13_fast;          /* Reset 13 with MP_FAST_CLOSE(key) */
  uint32_t prio;                  /* MP_PRIO options */
  uint32_t confirm;               /* MP_CONFIRM options */
  uint32_t rtt;                   /* MP_RTT options */
} seen;

typedef struct world {
  udccp_conn *c[NSUB], *s[NSUB];
  int nc;                 /* client subflows made */
  udccp_mp_conn tx, rx;   /* client's, server's */
  flight *f;
  size_t nf;
  udccp_tstamp now;
  uint64_t rng;
  udccp_settings st;
  seen to_s[2], to_c[2];
  /* drop filter: packets of this type toward this side on this path */
  int drop_type, drop_path, drop_to_server;
  uint64_t rx_dgrams;
  uint32_t verdict_busy; /* server resolver answers: counted */
  int auto_join;
  uint32_t from_s[NSUB];   /* packets each server subflow sent (but
                              Listen) */
  udccp_tstamp busy[2][2]; /* [path][to_server]: the link is busy until */
} world;

static const udccp_tstamp delay[2] = {10 * MS, 20 * MS};

static void xrand(uint8_t *d, size_t n, void *ud) {
  uint64_t *st = ud;
  size_t i;
  for (i = 0; i < n; i++) {
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    d[i] = (uint8_t)(*st >> 24);
  }
}

static udccp_path mkpath(int k, int server) {
  udccp_path p;
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  p.local_addr[0] = p.remote_addr[0] = 10;
  p.local_addr[2] = p.remote_addr[2] = (uint8_t)k;
  p.local_addr[3] = server ? 2 : 1;
  p.remote_addr[3] = server ? 1 : 2;
  p.local_port = server ? 6000 : (uint16_t)(5000 + k);
  p.remote_port = server ? (uint16_t)(5000 + k) : 6000;
  return p;
}

/* The server's resolver: the first subflow's keys, if the MP connection
 * takes joins (udccp_mp_conn_join_verdict). */
static int resolve(void *ud, uint32_t ci, udccp_mp_keys *out) {
  world *w = ud;
  int v;
  if (w->s[0]->mp == NULL || w->s[0]->mp->keys.local_ci != ci) {
    return 0;
  }
  v = udccp_mp_conn_join_verdict(&w->rx);
  if (v != 1) {
    w->verdict_busy++;
    return v;
  }
  *out = w->s[0]->mp->keys;
  return 1;
}

/* Notes what a packet carries; key: the receiver's own key. */
static void note(seen *sn, const uint8_t *pkt, size_t len,
                 const uint8_t *key) {
  udccp_conn_rxpkt r;
  size_t pos = 0;
  udccp_mp_opt o;
  int has_close = 0, has_fast = 0, rv;
  memset(&r, 0, sizeof(r));
  if (udccp_conn_decode(&r, pkt, len) != 0 ||
      udccp_opts_parse(&r.opts, r.h.type, r.h.opts, r.h.opts_len) != 0) {
    return;
  }
  sn->pkts++;
  while (r.opts.mp != NULL &&
         (rv = udccp_mp_next(r.opts.mp, r.opts.mp_len, &pos, &o)) != 2) {
    if (rv != 0) {
      continue;
    }
    if ((o.type == UDCCP_MP_CLOSE || o.type == UDCCP_MP_FAST_CLOSE) &&
        key != NULL && o.u.key_data.len == 8 &&
        memcmp(o.u.key_data.data, key, 8) == 0) {
      *(o.type == UDCCP_MP_CLOSE ? &has_close : &has_fast) = 1;
    }
    sn->prio += o.type == UDCCP_MP_PRIO;
    sn->confirm += o.type == UDCCP_MP_CONFIRM;
    sn->rtt += o.type == UDCCP_MP_RTT;
  }
  if (r.h.type == UDCCP_PKT_CLOSE) {
    *(has_close ? &sn->close_mp : &sn->close_plain) += 1;
  } else if (r.h.type == UDCCP_PKT_CLOSEREQ) {
    *(has_close ? &sn->closereq_mp : &sn->closereq_plain) += 1;
  } else if (r.h.type == UDCCP_PKT_RESET) {
    sn->reset[r.h.reset_code]++;
    sn->reset13_fast += r.h.reset_code == UDCCP_RESET_MP_ABRUPT && has_fast;
  }
}

static void send_pkt(world *w, int k, int to_server, const uint8_t *pkt,
                     size_t len) {
  flight *f;
  udccp_conn_rxpkt r;
  udccp_conn *dst = to_server ? w->s[k] : w->c[k];
  int p = k < 2 ? k : 1;
  memset(&r, 0, sizeof(r));
  if (!to_server && udccp_conn_decode(&r, pkt, len) == 0 &&
      r.h.type != UDCCP_PKT_LISTEN) {
    w->from_s[k]++; /* not counting RFC 5596 Listen packets */
  }
  note(to_server ? &w->to_s[p] : &w->to_c[p], pkt, len,
       dst && dst->mp ? dst->mp->keys.local : NULL);
  memset(&r, 0, sizeof(r));
  if (w->drop_type >= 0 && k == w->drop_path &&
      to_server == w->drop_to_server &&
      udccp_conn_decode(&r, pkt, len) == 0 && r.h.type == w->drop_type) {
    return;
  }
  {
    udccp_tstamp *b = &w->busy[p][to_server];
    udccp_tstamp start = *b > w->now ? *b : w->now;
    if (start - w->now > QUEUE_MAX) {
      return; /* the bottleneck's queue is full */
    }
    *b = start + (udccp_tstamp)(len + 28) * 8 * S / RATE_BPS;
  }
  assert_true(w->nf < MAXF);
  f = &w->f[w->nf++];
  f->at = w->busy[p][to_server] + delay[p];
  f->path = k;
  f->to_server = to_server;
  f->len = len;
  memcpy(f->data, pkt, len);
}

static void drain(world *w, udccp_conn *c, int k, int to_server) {
  uint8_t buf[1500];
  int i;
  for (i = 0; c != NULL && i < 1000; i++) {
    udccp_ssize n = udccp_conn_write_pkt(c, buf, sizeof(buf), NULL, w->now);
    if (n <= 0) {
      break;
    }
    send_pkt(w, k, to_server, buf, (size_t)n);
  }
}

static void new_listener(world *w, int k) {
  udccp_path ps = mkpath(k < 2 ? k : 1, 1);
  ps.remote_port = (uint16_t)(5000 + k);
  assert_int_equal(udccp_conn_listen_new(&w->s[k], &w->st, &ps, 42, w->now),
                   0);
  udccp_mp_set_resolver(w->s[k]->mp, resolve, w);
}

static void setup(world *w) {
  udccp_path pc = mkpath(0, 0);
  memset(w, 0, sizeof(*w));
  w->rng = 0x1234567887654321ULL;
  w->f = test_malloc(sizeof(flight) * MAXF);
  w->drop_type = -1;
  w->auto_join = 1;
  udccp_settings_default(&w->st);
  w->st.rand = xrand;
  w->st.rand_user_data = &w->rng;
  w->st.multipath = 1;
  w->st.ccid = 2;
  new_listener(w, 0);
  new_listener(w, 1);
  assert_int_equal(udccp_conn_client_new(&w->c[0], &w->st, &pc, 42, 0), 0);
  w->nc = 1;
  assert_int_equal(udccp_mp_conn_init(&w->tx, udccp_mem_default(), 64,
                                      DGRAM, 77, 0, 0),
                   0);
  w->tx.sched = UDCCP_MP_SCHED_BACKUP;
  assert_int_equal(udccp_mp_conn_init(&w->rx, udccp_mem_default(), 64,
                                      DGRAM, 99, 1, 100 * MS),
                   0);
  w->rx.sched = UDCCP_MP_SCHED_BACKUP;
  assert_int_equal(udccp_mp_conn_add(&w->tx, w->c[0], 4), 0);
  assert_int_equal(udccp_mp_conn_add(&w->rx, w->s[0], 3), 0);
  assert_int_equal(udccp_mp_conn_add(&w->rx, w->s[1], 3), 1);
}

/* Client: a joining subflow on path min(k, 1) (k >= 2: the same path
 * as subflow 1, another port). */
static void join(world *w, int k) {
  udccp_path pc = mkpath(k < 2 ? k : 1, 0);
  pc.local_port = (uint16_t)(5000 + k);
  assert_int_equal(udccp_conn_client_new(&w->c[k], &w->st, &pc, 42, w->now),
                   0);
  assert_int_equal(
      udccp_mp_join_client(w->c[k]->mp, &w->c[0]->mp->keys, (uint8_t)k), 0);
  w->nc = k + 1;
}

static void teardown_world(world *w) {
  int k;
  for (k = 0; k < NSUB; k++) {
    udccp_conn_del(w->c[k]);
    udccp_conn_del(w->s[k]);
  }
  udccp_mp_conn_free(&w->tx);
  udccp_mp_conn_free(&w->rx);
  test_free(w->f);
}

static udccp_tstamp tmin(udccp_tstamp a, udccp_tstamp b) {
  return a < b ? a : b;
}

/* Runs to `until`, the client sending `per_step` datagrams whenever it
 * can (0: none). */
static void run(world *w, udccp_tstamp until, int send) {
  uint8_t dg[DGRAM];
  uint32_t steps = 0;
  memset(dg, 0x33, sizeof(dg));
  while (w->now < until) {
    assert_true(++steps < 2000000); /* time must move on */
    udccp_tstamp next = until;
    size_t i;
    int k;
    if (send) {
      while (udccp_mp_conn_queue(&w->tx, dg, sizeof(dg)) == 0) {
      }
    }
    if (w->auto_join && w->nc == 1 && w->c[0]->state == UDCCP_STATE_OPEN &&
        udccp_mp_active(w->c[0]->mp, &w->c[0]->feat)) {
      join(w, 1);
      assert_int_equal(udccp_mp_conn_add(&w->tx, w->c[1], 3), 1);
    }
    (void)udccp_mp_conn_schedule(&w->tx, w->now);
    (void)udccp_mp_conn_schedule(&w->rx, w->now);
    for (k = 0; k < NSUB; k++) {
      drain(w, w->c[k], k, 1);
      drain(w, w->s[k], k, 0);
    }
    (void)udccp_mp_conn_schedule(&w->tx, w->now);
    for (i = 0; i < w->nf; i++) {
      next = tmin(next, w->f[i].at);
    }
    for (k = 0; k < NSUB; k++) {
      if (w->c[k] != NULL) {
        next = tmin(next, udccp_conn_get_expiry(w->c[k]));
      }
      if (w->s[k] != NULL) {
        next = tmin(next, udccp_conn_get_expiry(w->s[k]));
      }
    }
    next = tmin(next, udccp_mp_conn_expiry(&w->rx));
    next = tmin(next, udccp_mp_conn_expiry(&w->tx));
    if (next > w->now) {
      w->now = next;
    }
    for (i = 0; i < w->nf;) {
      flight *f = &w->f[i];
      if (f->at <= w->now) {
        int p = f->path;
        if (f->to_server && w->s[p] != NULL) {
          (void)udccp_conn_read_pkt(w->s[p], f->data, f->len, 0, w->now);
          udccp_mp_conn_on_read(&w->rx, (size_t)p, w->now);
        } else if (!f->to_server && w->c[p] != NULL) {
          (void)udccp_conn_read_pkt(w->c[p], f->data, f->len, 0, w->now);
          udccp_mp_conn_on_read(&w->tx, (size_t)p, w->now);
        }
        *f = w->f[--w->nf];
        continue;
      }
      i++;
    }
    for (k = 0; k < NSUB; k++) {
      if (w->c[k] && udccp_conn_get_expiry(w->c[k]) <= w->now) {
        (void)udccp_conn_handle_expiry(w->c[k], w->now);
      }
      if (w->s[k] && udccp_conn_get_expiry(w->s[k]) <= w->now) {
        (void)udccp_conn_handle_expiry(w->s[k], w->now);
      }
    }
    for (;;) {
      uint8_t buf[DGRAM];
      uint64_t seq;
      if (udccp_mp_conn_read(&w->rx, buf, sizeof(buf), &seq, w->now) < 0) {
        break;
      }
      w->rx_dgrams++;
    }
  }
}

static int open2(const world *w) {
  return w->c[0]->state == UDCCP_STATE_OPEN &&
         w->c[1] != NULL && w->c[1]->state == UDCCP_STATE_OPEN &&
         w->s[0]->state == UDCCP_STATE_OPEN &&
         w->s[1]->state == UDCCP_STATE_OPEN;
}

/* §3.2.10: MP_PRIO "MUST be acknowledged via an MP_CONFIRM" and sets the
 * priority of "the subflow over which the suboption is received"; with
 * active-backup (§3.11.1) the peer's MP_PRIO(1) on path A moves the
 * traffic to path B, MP_PRIO(3) brings it back. */
static void test_mp_signal_3_2_10_peer_prio_drives_active_backup(
    void **state) {
  world w;
  uint64_t a0, b0;
  (void)state;
  setup(&w);
  run(&w, 2 * S, 1);
  assert_true(open2(&w));
  a0 = w.rx.st[0].rx_dgrams;
  b0 = w.rx.st[1].rx_dgrams;
  run(&w, 3 * S, 1);
  printf("before: A %llu, B %llu datagrams in 1 s\n",
         (unsigned long long)(w.rx.st[0].rx_dgrams - a0),
         (unsigned long long)(w.rx.st[1].rx_dgrams - b0));
  assert_true(w.rx.st[0].rx_dgrams - a0 > 100); /* A: the first path */
  assert_int_equal(w.rx.st[1].rx_dgrams, b0);
  /* The server (receiver) makes path A standby. */
  assert_int_equal(udccp_mp_conn_set_prio(&w.rx, 0, UDCCP_MP_PRIO_STANDBY),
                   0);
  run(&w, 3 * S + 500 * MS, 1);
  assert_int_equal(udccp_mp_conn_prio(&w.tx, 0), UDCCP_MP_PRIO_STANDBY);
  assert_int_equal(udccp_mp_conn_prio(&w.tx, 1), 3);
  assert_int_equal(udccp_mp_sig_unconfirmed(&w.rx.sig), 0);
  assert_true(w.to_c[0].prio >= 1);    /* sent on path A itself */
  assert_true(w.to_s[0].confirm + w.to_s[1].confirm >= 1);
  a0 = w.rx.st[0].rx_dgrams;
  b0 = w.rx.st[1].rx_dgrams;
  run(&w, 4 * S + 500 * MS, 1);
  printf("after MP_PRIO(1) on A: A %llu, B %llu datagrams in 1 s\n",
         (unsigned long long)(w.rx.st[0].rx_dgrams - a0),
         (unsigned long long)(w.rx.st[1].rx_dgrams - b0));
  assert_int_equal(w.rx.st[0].rx_dgrams, a0);
  assert_true(w.rx.st[1].rx_dgrams - b0 > 100);
  assert_int_equal(udccp_mp_conn_set_prio(&w.rx, 0, 5), 0);
  run(&w, 5 * S, 1);
  a0 = w.rx.st[0].rx_dgrams;
  run(&w, 6 * S, 1);
  assert_true(w.rx.st[0].rx_dgrams - a0 > 100);
  teardown_world(&w);
}

/* §3.2.10 with a priority chosen before the join is open (udccp-perf
 * --mp-sched backup does so): the MP_PRIO waits until the subflow is
 * established, and the join's handshake (its MP_HMAC on the PARTOPEN
 * Ack, §3.3) is undisturbed. */
static void test_mp_signal_3_2_10_prio_before_join_opens(void **state) {
  world w;
  (void)state;
  setup(&w);
  w.auto_join = 0;
  run(&w, 500 * MS, 1);
  assert_int_equal(w.c[0]->state, UDCCP_STATE_OPEN);
  join(&w, 1);
  assert_int_equal(udccp_mp_conn_add(&w.tx, w.c[1], 3), 1);
  assert_int_equal(udccp_mp_conn_set_prio(&w.tx, 1, UDCCP_MP_PRIO_STANDBY),
                   0);
  run(&w, 1500 * MS, 1);
  assert_true(open2(&w));
  assert_int_equal(udccp_mp_sig_peer_prio(&w.rx.sig, 1),
                   UDCCP_MP_PRIO_STANDBY);
  assert_int_equal(udccp_mp_sig_unconfirmed(&w.tx.sig), 0);
  teardown_world(&w);
}

/* §3.2.8, §3.2.9 across subflows: an address announced reaches the peer
 * and is confirmed; its removal too, after which the ID is free again. */
static void test_mp_signal_3_2_8_addaddr_removeaddr_confirmed(void **state) {
  world w;
  static const uint8_t a3[4] = {10, 0, 3, 1};
  int id;
  (void)state;
  setup(&w);
  run(&w, 1 * S, 1);
  assert_true(open2(&w));
  id = udccp_mp_conn_announce(&w.tx, UDCCP_AF_INET, a3, 0);
  assert_true(id >= 0);
  run(&w, 1500 * MS, 1);
  assert_non_null(udccp_mp_sig_peer_addr(&w.rx.sig, (uint8_t)id));
  assert_int_equal(udccp_mp_sig_unconfirmed(&w.tx.sig), 0);
  assert_int_equal(udccp_mp_conn_unannounce(&w.tx, (uint8_t)id), 0);
  run(&w, 2 * S, 1);
  assert_null(udccp_mp_sig_peer_addr(&w.rx.sig, (uint8_t)id));
  assert_int_equal(udccp_mp_sig_unconfirmed(&w.tx.sig), 0);
  assert_int_equal(w.tx.sig.local[0].state, 0);
  teardown_world(&w);
}

/* §3.2.11: "On all subflows, the regular termination procedure ... MUST
 * be initiated using MP_CLOSE in the initial packet"; "the selected Key
 * Data of the peer host ... MUST be included"; "a DCCP-Reset with Reset
 * Code 1 MUST be sent on any subflow in response to a received DCCP-Close
 * containing a valid MP_CLOSE option". */
static void test_mp_signal_3_2_11_mp_close_on_every_subflow(void **state) {
  world w;
  int k;
  (void)state;
  setup(&w);
  run(&w, 1 * S, 1);
  assert_true(open2(&w));
  assert_int_equal(udccp_mp_conn_close(&w.tx, w.now), 0);
  run(&w, 3 * S, 0);
  for (k = 0; k < 2; k++) {
    printf("path %d: Close+MP_CLOSE %u, plain Close %u, Reset(Closed) %u\n",
           k, w.to_s[k].close_mp, w.to_s[k].close_plain,
           w.to_c[k].reset[UDCCP_RESET_CLOSED]);
    assert_true(w.to_s[k].close_mp >= 1);
    assert_int_equal(w.to_s[k].close_plain, 0);
    assert_true(w.to_c[k].reset[UDCCP_RESET_CLOSED] >= 1);
    assert_int_equal(udccp_conn_get_error(w.c[k]), UDCCP_ERR_CLOSED);
  }
  assert_int_equal(w.rx.close_state, UDCCP_MP_CONN_CLOSED);
  assert_int_equal(w.tx.close_state, UDCCP_MP_CONN_CLOSING);
  teardown_world(&w);
}

/* §3.2.11: "When a DCCP-CloseReq is used, the following DCCP-Close MUST
 * also carry the MP_CLOSE"; on the CloseReq "all subflows transition to
 * the CLOSING state before transmitting a DCCP-Close carrying MP_CLOSE"
 * -- also the subflow whose CloseReq was lost. */
static void test_mp_signal_3_2_11_closereq_answered_with_mp_close(
    void **state) {
  world w;
  int k;
  (void)state;
  setup(&w);
  run(&w, 1 * S, 1);
  assert_true(open2(&w));
  run(&w, 1 * S + 200 * MS, 0);
  /* The server's CloseReqs on path B never arrive. */
  w.drop_type = UDCCP_PKT_CLOSEREQ;
  w.drop_path = 1;
  w.drop_to_server = 0;
  assert_int_equal(udccp_mp_conn_close(&w.rx, w.now), 0);
  run(&w, 4 * S, 0);
  for (k = 0; k < 2; k++) {
    printf("path %d: CloseReq+MP_CLOSE %u, Close+MP_CLOSE %u, plain %u\n",
           k, w.to_c[k].closereq_mp, w.to_s[k].close_mp,
           w.to_s[k].close_plain);
    assert_true(w.to_c[k].closereq_mp >= 1);
    assert_int_equal(w.to_c[k].closereq_plain, 0);
    assert_true(w.to_s[k].close_mp >= 1);
    assert_int_equal(w.to_s[k].close_plain, 0);
  }
  assert_int_equal(w.tx.close_state, UDCCP_MP_CONN_CLOSED);
  teardown_world(&w);
}

/* §3.2.11: the Key Data "must be validated by the peer host": a Close
 * with a wrong key closes that subflow only (a regular Close has "only
 * the scope of the subflow", §3.2.3); the other one keeps carrying data. */
static void test_mp_signal_3_2_11_wrong_key_closes_one_subflow(
    void **state) {
  world w;
  uint64_t b0;
  (void)state;
  setup(&w);
  run(&w, 1 * S, 1);
  assert_true(open2(&w));
  w.c[0]->mp->keys.remote[3] ^= 0x10;
  w.c[0]->mp->close_tx = 1;
  assert_int_equal(udccp_conn_close(w.c[0], w.now), 0);
  run(&w, 2 * S, 1);
  assert_true(w.to_s[0].close_plain >= 1); /* not a valid MP_CLOSE */
  assert_int_equal(w.rx.close_state, UDCCP_MP_CONN_OPEN);
  assert_int_equal(w.s[1]->state, UDCCP_STATE_OPEN);
  b0 = w.rx.st[1].rx_dgrams;
  run(&w, 3 * S, 1);
  assert_true(w.rx.st[1].rx_dgrams - b0 > 100);
  teardown_world(&w);
}

/* §3.2.3: "The MP_FAST_CLOSE suboption MUST be sent from Host A on all
 * subflows using a DCCP-Reset packet with Reset Code 13"; "Host A MUST
 * tear down all subflows"; Host B "will send a DCCP-Reset packet response
 * on all subflows to Host A with Reset Code 13" and "MUST then tear down
 * all subflows" -- here the Reset on path B is lost, so B's subflow there
 * learns it from the other path and answers with its own Reset 13. */
static void test_mp_signal_3_2_3_fast_close_reset_13_on_all_subflows(
    void **state) {
  world w;
  int k;
  (void)state;
  setup(&w);
  run(&w, 1 * S, 1);
  assert_true(open2(&w));
  w.drop_type = UDCCP_PKT_RESET;
  w.drop_path = 1;
  w.drop_to_server = 1;
  assert_int_equal(udccp_mp_conn_fast_close(&w.tx, w.now), 0);
  for (k = 0; k < 2; k++) {
    assert_int_equal(udccp_conn_get_state(w.c[k]), UDCCP_STATE_CLOSED);
  }
  run(&w, 2 * S, 0);
  for (k = 0; k < 2; k++) {
    printf("path %d: Reset 13 + MP_FAST_CLOSE to server %u, Reset 13 back "
           "%u\n",
           k, w.to_s[k].reset13_fast, w.to_c[k].reset[UDCCP_RESET_MP_ABRUPT]);
    assert_int_equal(w.to_s[k].reset13_fast, 1);
    assert_true(udccp_conn_get_state(w.s[k]) == UDCCP_STATE_CLOSED ||
                udccp_conn_get_state(w.s[k]) == UDCCP_STATE_TIMEWAIT);
    assert_int_equal(udccp_conn_get_reset_code(w.s[k]),
                     UDCCP_RESET_MP_ABRUPT);
  }
  assert_int_equal(w.to_c[1].reset[UDCCP_RESET_MP_ABRUPT], 1);
  assert_int_equal(w.rx.close_state, UDCCP_MP_CONN_ABORTED);
  assert_string_equal(udccp_reset_code_str(UDCCP_RESET_MP_ABRUPT),
                      "Abrupt MP termination");
  teardown_world(&w);
}

/* §3.2.11: "When the MP-DCCP connection socket is in CLOSEREQ or CLOSE
 * state, new subflow requests using MP_JOIN MUST be ignored": no
 * Response, no Reset. */
static void test_mp_signal_3_2_11_join_ignored_while_closing(void **state) {
  world w;
  (void)state;
  setup(&w);
  w.auto_join = 0;
  run(&w, 1 * S, 1);
  assert_int_equal(w.c[0]->state, UDCCP_STATE_OPEN);
  assert_int_equal(udccp_mp_conn_close(&w.rx, w.now), 0);
  /* The join reaches a fresh listener (index 2, on path B). */
  new_listener(&w, 2);
  join(&w, 2);
  run(&w, 1 * S + 300 * MS, 0);
  assert_true(w.to_s[1].pkts >= 1);      /* the join's Request(s) */
  printf("join while closing: %u packets to the server, %u answers, "
         "listener state %d error %d, resolver said no %u times\n",
         w.to_s[1].pkts, w.from_s[2], udccp_conn_get_state(w.s[2]),
         udccp_conn_get_error(w.s[2]), w.verdict_busy);
  assert_int_equal(w.from_s[2], 0);      /* never answered */
  assert_true(w.verdict_busy >= 1);
  assert_int_equal(udccp_conn_get_state(w.s[2]), UDCCP_STATE_CLOSED);
  teardown_world(&w);
}

/* §3.10: "reject incoming subflow requests with a DCCP-Reset using the
 * Reset Code 'too busy' ... if the resource limit is exceeded"; §3.7:
 * "receiving a reset code 9 for secondary subflows MUST NOT impact
 * already existing active subflows". */
static void test_mp_signal_3_10_join_beyond_limit_too_busy(void **state) {
  world w;
  uint64_t d0;
  int k;
  (void)state;
  setup(&w);
  w.auto_join = 0;
  /* The server's MP connection is full: UDCCP_MP_MAX_SUBFLOWS subflows
   * (placeholders beyond the two paths). */
  for (k = 2; k < NSUB; k++) {
    new_listener(&w, k);
    assert_int_equal(udccp_mp_conn_add(&w.rx, w.s[k], 3), k);
  }
  assert_int_equal(udccp_mp_conn_add(&w.rx, w.s[0], 3),
                   UDCCP_ERR_INVALID_ARGUMENT);
  run(&w, 1 * S, 1);
  assert_int_equal(w.c[0]->state, UDCCP_STATE_OPEN);
  join(&w, 1);
  assert_int_equal(udccp_mp_conn_add(&w.tx, w.c[1], 3), 1);
  run(&w, 1500 * MS, 1);
  printf("join: Reset(Too Busy) %u; subflow 1 error %d\n",
         w.to_c[1].reset[UDCCP_RESET_TOO_BUSY], udccp_conn_get_error(w.c[1]));
  assert_int_equal(w.to_c[1].reset[UDCCP_RESET_TOO_BUSY], 1);
  assert_int_equal(udccp_conn_get_error(w.c[1]), UDCCP_ERR_REFUSED);
  assert_int_equal(w.c[0]->state, UDCCP_STATE_OPEN);
  d0 = w.rx_dgrams;
  run(&w, 2500 * MS, 1);
  assert_true(w.rx_dgrams - d0 > 100);
  teardown_world(&w);
}

/* §3.2.7: MP_RTT carries the RTT "that belong[s] to the path over which
 * this information is transmitted": the data sender reports each path's
 * smoothed RTT on that path, about once a second; the receiver's
 * reordering uses it (udccp_mp_conn_path_rtt). */
static void test_mp_signal_3_2_7_mp_rtt_per_path(void **state) {
  world w;
  int k;
  (void)state;
  setup(&w);
  run(&w, 3 * S, 1);
  assert_true(open2(&w));
  for (k = 0; k < 2; k++) {
    udccp_tstamp r = udccp_mp_conn_path_rtt(&w.rx, (size_t)k);
    printf("path %d: %u MP_RTT to the server, %u ms reported, sender "
           "srtt %.1f ms\n",
           k, w.to_s[k].rtt, w.rx.sig.rtt_rx_ms[k],
           (double)w.c[k]->env.srtt / MS);
    assert_true(w.to_s[k].rtt >= 2 && w.to_s[k].rtt <= 5);
    assert_true(w.rx.sig.rtt_rx_set[k]);
    /* 2 x the one-way delay, plus at most the 40 ms queue */
    assert_true(r >= 2 * delay[k] && r <= 2 * delay[k] + 60 * MS);
  }
  teardown_world(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mp_signal_3_2_10_peer_prio_drives_active_backup),
      cmocka_unit_test(test_mp_signal_3_2_10_prio_before_join_opens),
      cmocka_unit_test(test_mp_signal_3_2_8_addaddr_removeaddr_confirmed),
      cmocka_unit_test(test_mp_signal_3_2_11_mp_close_on_every_subflow),
      cmocka_unit_test(test_mp_signal_3_2_11_closereq_answered_with_mp_close),
      cmocka_unit_test(test_mp_signal_3_2_11_wrong_key_closes_one_subflow),
      cmocka_unit_test(
          test_mp_signal_3_2_3_fast_close_reset_13_on_all_subflows),
      cmocka_unit_test(test_mp_signal_3_2_11_join_ignored_while_closing),
      cmocka_unit_test(test_mp_signal_3_10_join_beyond_limit_too_busy),
      cmocka_unit_test(test_mp_signal_3_2_7_mp_rtt_per_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

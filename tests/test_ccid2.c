/* SPDX-License-Identifier: MIT */
/*
 * CCID 2 (lib/ccid2.c, RFC 4341) and the CCID registry (lib/ccid.c).
 *
 * The sender half is driven the way the connection drives it: tx_on_sent
 * for every packet, tx_next_send to fill the window, and synthetic
 * acknowledgements whose Ack Vector (RFC 4340 §11.4) and Data Dropped
 * (§11.7) bytes are encoded here from what a model receiver got.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ccid.h"
#include "ccid2.h"
#include "ccid2_int.h"
#include "feat.h"
#include "opt.h"
#include "seq.h"

#define MS UDCCP_NS_PER_MS
#define RTT (100 * MS)
#define MAXP 65536
#define AV_NONE 3 /* receiver model: not received (Ack Vector state 3) */

/* ------------------------------------------------------------ allocator */

typedef struct count_mem {
  udccp_mem mem;
  unsigned allocs;
} count_mem;

static void *cm_malloc(size_t n, void *ud) {
  ((count_mem *)ud)->allocs++;
  return malloc(n);
}
static void cm_free(void *p, void *ud) {
  (void)ud;
  free(p);
}
static void *cm_calloc(size_t n, size_t sz, void *ud) {
  ((count_mem *)ud)->allocs++;
  return calloc(n, sz);
}
static void *cm_realloc(void *p, size_t n, void *ud) {
  ((count_mem *)ud)->allocs++;
  return realloc(p, n);
}

/* ------------------------------------------------------------ harness */

typedef struct h {
  udccp_ccid_state st;
  udccp_ccid_env env;
  const udccp_ccid_ops *ops;
  count_mem cm;
  udccp_tstamp now;
  udccp_tstamp rtt;  /* the path's round-trip time */
  uint64_t isn;      /* our first sequence number */
  uint64_t nsent;    /* offsets 0 .. nsent - 1 were sent */
  uint64_t av_lo;    /* acks describe offsets av_lo .. ackno */
  uint64_t acked_to; /* h_round() acked everything before this */
  uint64_t peer_seq; /* next sequence number of the peer's acks */
  udccp_tstamp sent_at[MAXP];
  uint8_t is_data[MAXP];
  uint8_t rstate[MAXP]; /* what the model receiver got: 0, 1 or AV_NONE */
  uint8_t av[8][253];
} h;

static h *h_new_cc(size_t mps, uint32_t ack_ratio, uint64_t isn,
                   uint64_t seq_window, const udccp_ccid_ops *ops) {
  h *t = calloc(1, sizeof(*t));
  assert_non_null(t);
  memset(t->rstate, AV_NONE, sizeof(t->rstate));
  t->cm.mem.user_data = &t->cm;
  t->cm.mem.malloc = cm_malloc;
  t->cm.mem.free = cm_free;
  t->cm.mem.calloc = cm_calloc;
  t->cm.mem.realloc = cm_realloc;
  t->env.mem = &t->cm.mem;
  t->env.mps = mps;
  t->env.seq_window_out = seq_window;
  t->env.ack_ratio = ack_ratio;
  t->ops = ops;
  assert_non_null(t->ops);
  t->isn = isn & UDCCP_SEQ_MASK;
  t->peer_seq = 5000;
  t->now = 1000 * UDCCP_NS_PER_S;
  t->rtt = RTT;
  assert_int_equal(t->ops->tx_init(&t->st, &t->env, t->now), 0);
  return t;
}

static h *h_new_ex(size_t mps, uint32_t ack_ratio, uint64_t isn,
                   uint64_t seq_window) {
  return h_new_cc(mps, ack_ratio, isn, seq_window, udccp_ccid_find(2));
}

static h *h_new(size_t mps) { return h_new_ex(mps, 2, 1000, 100); }

static void h_free(h *t) {
  t->ops->tx_exit(&t->st);
  free(t);
}

static uint64_t seq_of(const h *t, uint64_t off) {
  return udccp_seq_add(t->isn, (int64_t)off);
}

static udccp_conn_info info(h *t) {
  udccp_conn_info i;
  memset(&i, 0, sizeof(i));
  t->ops->tx_get_info(&t->st, &i);
  return i;
}

static uint64_t h_send(h *t, int is_data) {
  uint64_t off = t->nsent++;
  assert_true(off < MAXP);
  t->is_data[off] = (uint8_t)is_data;
  t->sent_at[off] = t->now;
  t->ops->tx_on_sent(&t->st, seq_of(t, off), is_data, 100, t->now);
  return off;
}

/* Sends data packets while the CCID allows, letting virtual time run to
 * each paced send time (RFC 4341 §5 pacing); returns how many. */
static unsigned h_fill(h *t) {
  unsigned n = 0;
  for (;;) {
    udccp_tstamp ns = t->ops->tx_next_send(&t->st, t->now);
    if (ns == UDCCP_TSTAMP_NEVER || t->ops->tx_get_info == NULL ||
        (ns > t->now && info(t).pipe >= info(t).cwnd)) {
      break; /* window full (in back-off: the timer) */
    }
    if (ns > t->now) {
      t->now = ns;
    }
    h_send(t, 1);
    n++;
    assert_true(n < 100000);
  }
  return n;
}

typedef struct ackp {
  const uint8_t *dd; /* Data Dropped bytes */
  size_t dd_len;
  int slow_receiver;
  uint8_t ecn;      /* IP ECN codepoint of the ack itself */
  uint8_t type;     /* 0: DCCP-Ack */
  unsigned skip;    /* peer sequence numbers lost before this ack */
  uint32_t elapsed; /* Elapsed Time option, 10 us units; 0: none */
} ackp;

/* RFC 4340 §11.4: one byte per run, state in the top two bits, run length
 * minus one in the low six; options of at most 253 bytes. */
static size_t av_encode(h *t, uint64_t ackoff, udccp_opts *o) {
  size_t nb = 0, total = 0;
  uint64_t off = ackoff + 1;
  o->n_ackvec = 0;
  while (off > t->av_lo) {
    uint8_t st = t->rstate[off - 1];
    unsigned run = 0;
    while (off > t->av_lo && t->rstate[off - 1] == st && run < 64) {
      off--;
      run++;
    }
    if (nb == 253 || o->n_ackvec == 0) {
      assert_true(o->n_ackvec < 8);
      o->n_ackvec++;
      nb = 0;
    }
    t->av[o->n_ackvec - 1][nb++] = (uint8_t)((st << 6) | (run - 1));
    o->ackvec[o->n_ackvec - 1].type = UDCCP_OPT_ACK_VECTOR_0;
    o->ackvec[o->n_ackvec - 1].len = (uint8_t)nb;
    o->ackvec[o->n_ackvec - 1].val = t->av[o->n_ackvec - 1];
    total++;
  }
  return total;
}

/* The peer sends an acknowledgement whose Acknowledgement Number is our
 * packet ackoff, with an Ack Vector built from rstate. */
static int h_ack_p(h *t, uint64_t ackoff, const ackp *p) {
  udccp_opts o;
  udccp_ccid_pkt pkt;
  /* The path's RTT: the acknowledgement of packet ackoff cannot arrive
   * before it went out plus RTT. */
  if (t->now < t->sent_at[ackoff] + t->rtt) {
    t->now = t->sent_at[ackoff] + t->rtt;
  }
  memset(&o, 0, sizeof(o));
  memset(&pkt, 0, sizeof(pkt));
  av_encode(t, ackoff, &o);
  if (p->dd) {
    o.present |= UDCCP_OPTS_HAS_DATA_DROPPED;
    o.data_dropped = p->dd;
    o.data_dropped_len = (uint8_t)p->dd_len;
  }
  o.slow_receiver = (uint8_t)p->slow_receiver;
  if (p->elapsed) {
    o.present |= UDCCP_OPTS_HAS_ELAPSED;
    o.elapsed_time = p->elapsed;
  }
  t->peer_seq += p->skip;
  pkt.type = p->type ? p->type : UDCCP_PKT_ACK;
  pkt.ecn = p->ecn;
  pkt.seq = t->peer_seq++;
  pkt.has_ack = 1;
  pkt.ack = seq_of(t, ackoff);
  pkt.opts = &o;
  return t->ops->tx_on_pkt(&t->st, &pkt, t->now);
}

static int h_ack(h *t, uint64_t ackoff) {
  ackp p;
  memset(&p, 0, sizeof(p));
  return h_ack_p(t, ackoff, &p);
}

/* One RTT: everything in [from, to) arrives, acked every r packets (no
 * sending in between). */
static void h_round_acks(h *t, uint64_t from, uint64_t to, unsigned r) {
  uint64_t off;
  for (off = from; off < to; off++) {
    t->rstate[off] = 0;
    if ((off - from + 1) % r == 0 || off + 1 == to) {
      assert_int_equal(h_ack(t, off), 0);
    }
  }
}

/* Sends whatever the CCID allows up to time `until`, letting virtual time
 * run to each paced send time. */
static void h_send_until(h *t, udccp_tstamp until) {
  for (;;) {
    udccp_tstamp ns = t->ops->tx_next_send(&t->st, t->now);
    if (ns > until || info(t).pipe >= info(t).cwnd) {
      return;
    }
    if (ns > t->now) {
      t->now = ns;
    }
    h_send(t, 1);
  }
}

/* One RTT of a greedy, ack-clocked sender: every packet outstanding at the
 * call arrives and is acked every r packets; between acks the sender sends
 * what the CCID allows.  Returns how many packets the round acked. */
static uint64_t h_round(h *t, unsigned r) {
  uint64_t from, to, off;
  h_send_until(t, t->now);
  from = t->acked_to;
  to = t->nsent;
  assert_true(to > from); /* something must be in flight */
  t->av_lo = from;
  for (off = from; off < to; off++) {
    t->rstate[off] = 0;
    if ((off - from + 1) % r == 0 || off + 1 == to) {
      h_send_until(t, t->sent_at[off] + t->rtt);
      assert_int_equal(h_ack(t, off), 0);
    }
  }
  t->acked_to = to;
  return to - from;
}

/* Slow start until cwnd >= target, a full window per RTT; ends with
 * nothing in flight. */
static void h_grow_to(h *t, uint32_t target) {
  int rounds = 0;
  while (info(t).cwnd < target) {
    uint64_t from = t->nsent;
    h_fill(t);
    t->av_lo = from;
    h_round_acks(t, from, t->nsent, 2);
    assert_true(++rounds < 1000);
  }
  t->acked_to = t->nsent;
}

/* RFC 4340 §7.5.2: no more than Sequence Window/A packets per RTT. */
static void test_rfc4340_7_5_2_cwnd_within_sequence_window(void **state) {
  h *t = h_new(1000);
  int round;
  (void)state;
  h_fill(t);
  for (round = 0; round < 14; round++) {
    h_round(t, 2);
    assert_true(info(t).cwnd <= 100);
  }
  assert_int_equal(info(t).cwnd, 100);
  t->env.seq_window_out = 500; /* negotiated wider: growth resumes */
  h_round(t, 2);
  assert_true(info(t).cwnd > 100);
  h_free(t);
}

/* RFC 4341 §5 (MAY): packets released together leave spaced by
 * srtt / (gain x cwnd) once an RTT is known; the first window goes at
 * once. */
static void test_rfc4341_5_pacing_spreads_released_packets(void **state) {
  h *t = h_new(1000);
  udccp_tstamp t0, ns, iv;
  uint64_t from;
  (void)state;
  t->rtt = 4 * MS;
  t0 = t->now;
  assert_int_equal(h_fill(t), 4);
  assert_int_equal(t->now, t0); /* no RTT estimate yet: no pacing */
  h_round_acks(t, 0, 4, 2);
  assert_int_equal(info(t).srtt, 4 * MS);
  assert_int_equal(info(t).cwnd, 8);
  iv = 4 * MS / (2 * 8); /* slow start: twice cwnd / srtt */
  from = h_send(t, 1);
  ns = t->ops->tx_next_send(&t->st, t->now);
  assert_int_equal(ns, t->now + iv);
  /* Woken two intervals late (timer granularity): the missed packets go
   * at once, then the pace resumes. */
  t->now = ns + 2 * iv;
  h_send(t, 1);
  assert_true(t->ops->tx_next_send(&t->st, t->now) <= t->now);
  h_send(t, 1);
  assert_true(t->ops->tx_next_send(&t->st, t->now) <= t->now);
  h_send(t, 1);
  assert_int_equal(t->ops->tx_next_send(&t->st, t->now), t->now + iv);
  /* Fill the window: from then on the ack clock sets the pace. */
  assert_int_equal(h_fill(t), 4);
  assert_int_equal(t->ops->tx_next_send(&t->st, t->now), UDCCP_TSTAMP_NEVER);
  t->av_lo = from;
  t->rstate[from] = t->rstate[from + 1] = 0;
  assert_int_equal(h_ack(t, from + 1), 0);
  assert_true(info(t).cwnd - info(t).pipe >= 2);
  /* The ack released several packets: one now, the next an interval
   * later. */
  assert_true(t->ops->tx_next_send(&t->st, t->now) <= t->now);
  h_send(t, 1);
  assert_true(t->ops->tx_next_send(&t->st, t->now) > t->now);
  h_free(t);
}

/* ------------------------------------------------------------ registry */

static void test_rfc4340_10_registry_lists_ccid2(void **state) {
  const udccp_ccid_ops *ops = udccp_ccid_find(2);
  size_t i;
  int found = 0;
  (void)state;
  assert_non_null(ops);
  assert_int_equal(ops->id, 2);
  assert_true(udccp_ccid_supported(2));
  /* 0 and 1 are reserved (RFC 4340 §10 Table 5). */
  assert_null(udccp_ccid_find(0));
  assert_null(udccp_ccid_find(1));
  assert_false(udccp_ccid_supported(0));
  assert_null(udccp_ccid_find(255));
  for (i = 0; i < ops->n_deps; i++) {
    if (ops->deps[i].feat == UDCCP_FEAT_SEND_ACK_VECTOR) {
      assert_int_equal(ops->deps[i].at_receiver, 1);
      assert_int_equal(ops->deps[i].mandatory, 1);
      assert_int_equal(ops->deps[i].val, 1);
      found = 1;
    }
  }
  assert_true(found); /* RFC 4341 §4 */
}

/* ------------------------------------------------------------ sender */

static void test_rfc4341_5_initial_cwnd_rfc3390(void **state) {
  h *t;
  udccp_conn_info i;
  (void)state;
  assert_int_equal(udccp_ccid2_initial_cwnd(1460), 3);
  assert_int_equal(udccp_ccid2_initial_cwnd(1000), 4);
  assert_int_equal(udccp_ccid2_initial_cwnd(536), 4);
  assert_int_equal(udccp_ccid2_initial_cwnd(2190), 2);
  assert_int_equal(udccp_ccid2_initial_cwnd(9000), 2);
  t = h_new(1400);
  i = info(t);
  assert_int_equal(i.cwnd, 3);
  assert_true(i.ssthresh >= 0x7FFFFFFFu); /* "arbitrarily high" */
  assert_int_equal(i.pipe, 0);
  assert_int_equal(i.rto, UDCCP_CCID2_RTO_INIT); /* RFC 6298 §2.1 */
  h_free(t);
}

static void test_rfc4341_5_send_only_while_pipe_below_cwnd(void **state) {
  h *t = h_new(1000);
  (void)state;
  assert_int_equal(h_fill(t), 4);
  assert_int_equal(info(t).pipe, 4);
  /* pipe >= cwnd: MUST NOT send; no back-off yet, so wait for an ack. */
  assert_int_equal(t->ops->tx_next_send(&t->st, t->now), UDCCP_TSTAMP_NEVER);
  /* Non-data packets do not count in pipe. */
  h_send(t, 0);
  assert_int_equal(info(t).pipe, 4);
  t->rstate[0] = 0;
  assert_int_equal(h_ack(t, 0), 0);
  assert_int_equal(info(t).pipe, 3);
  assert_true(t->ops->tx_next_send(&t->st, t->now) <= t->now);
  h_free(t);
}

/* RFC 4341 §5 slow start is "a modified form of Appropriate Byte Counting
 * [RFC3465]"; with L = 2 (RFC 3465 §2.2) cwnd grows by one packet per
 * newly acked data packet, not per ack: with Ack Ratio 2 (an ack per two
 * packets, as TCP's delayed acks) it doubles every RTT, as TCP with ABC.
 * The RFC's example rule, +1 per two packets, gave x1.5 per RTT. */
static void test_rfc4341_5_rfc3465_slow_start_counts_acked_packets(void **s) {
  h *t = h_new(1000);
  uint64_t acked = 0;
  uint32_t prev = info(t).cwnd;
  int round;
  (void)s;
  for (round = 0; round < 4; round++) { /* 4 -> 64 (window cap 100) */
    uint64_t from = t->nsent;
    unsigned n = h_fill(t);
    udccp_conn_info i;
    assert_int_equal(n, prev); /* the window was empty: cwnd packets go */
    t->av_lo = from;
    h_round_acks(t, from, t->nsent, 2);
    acked += n;
    i = info(t);
    assert_int_equal(i.cwnd, 4 + acked);
    assert_int_equal(i.cwnd, 2 * prev);
    printf("  round %d: cwnd %u -> %u\n", round, prev, i.cwnd);
    prev = i.cwnd;
  }
  /* Ack Ratio 1 (one ack per packet): the same doubling. */
  h_free(t);
  t = h_new(1000);
  h_fill(t);
  h_round_acks(t, 0, 4, 1);
  assert_int_equal(info(t).cwnd, 8);
  h_free(t);
}

/* RFC 3465 §2.2 via RFC 4341 §5: at most L x Ack Ratio / 2 packets of
 * increase per ack (L = 2: Ack Ratio, at least 2); what an ack covers
 * beyond that (acks were lost) is not carried over. */
static void test_rfc4341_5_rfc3465_slow_start_increase_per_ack_capped(
    void **state) {
  h *t = h_new(1000);
  uint64_t from, off;
  (void)state;
  h_grow_to(t, 8); /* 4, 8 */
  assert_int_equal(info(t).cwnd, 8);
  from = t->nsent;
  assert_int_equal(h_fill(t), 8);
  t->av_lo = from;
  /* One ack for all eight: Ack Ratio 2 allows +2 only. */
  h_round_acks(t, from, t->nsent, 8);
  assert_int_equal(info(t).cwnd, 10);
  h_free(t);

  /* Once the sender has raised Ack Ratio to 4 (after a CE-marked ack,
   * §6.1.1), one ack of four packets adds four, one of eight still four. */
  t = h_new(1000);
  h_grow_to(t, 20);
  {
    ackp p;
    uint32_t c0;
    memset(&p, 0, sizeof(p));
    p.ecn = 3;
    from = t->nsent;
    h_fill(t);
    t->av_lo = from;
    t->rstate[from] = 0;
    c0 = info(t).cwnd;
    assert_int_equal(h_ack_p(t, from, &p), 0); /* one packet: +1 */
    assert_int_equal(info(t).ack_ratio, 4);
    assert_int_equal(info(t).cwnd, c0 + 1);
    c0 = info(t).cwnd;
    t->rstate[from + 1] = t->rstate[from + 2] = t->rstate[from + 3] =
        t->rstate[from + 4] = 0;
    assert_int_equal(h_ack(t, from + 4), 0);
    assert_int_equal(info(t).cwnd, c0 + 4);
    for (off = from + 5; off < from + 13; off++) {
      t->rstate[off] = 0;
    }
    assert_int_equal(h_ack(t, from + 12), 0);
    assert_int_equal(info(t).cwnd, c0 + 8);
  }
  h_free(t);
}

/* Loses packet `lossoff` of the next window and acks the rest one by one;
 * returns cwnd just before the ack that revealed the loss. */
static uint32_t h_window_with_loss(h *t, uint64_t lossoff_rel) {
  uint64_t from = t->nsent, off;
  uint32_t before = 0;
  uint64_t lost0 = info(t).pkts_lost;
  h_fill(t);
  t->av_lo = from;
  for (off = from; off < t->nsent; off++) {
    if (off - from == lossoff_rel) {
      continue;
    }
    t->rstate[off] = 0;
    if (info(t).pkts_lost == lost0) {
      before = info(t).cwnd;
    }
    assert_int_equal(h_ack(t, off), 0);
  }
  assert_int_equal(info(t).pkts_lost, lost0 + 1);
  t->acked_to = t->nsent;
  return before;
}

static void test_rfc4341_5_congestion_avoidance_one_per_window(void **state) {
  h *t = h_new(1000);
  uint32_t before;
  int round;
  (void)state;
  h_grow_to(t, 20);
  before = h_window_with_loss(t, 0);
  assert_int_equal(info(t).cwnd, before / 2);
  assert_int_equal(info(t).ssthresh, before / 2);
  /* A greedy, ack-clocked sender: one window per round. */
  h_fill(t);
  h_round(t, 2); /* the window sent in recovery */
  {
    uint32_t c0 = info(t).cwnd, c = c0;
    for (round = 0; round < 6; round++) {
      h_round(t, 2);
      printf("  CA round %d: cwnd %u -> %u\n", round, c, info(t).cwnd);
      assert_true(info(t).cwnd >= c && info(t).cwnd <= c + 2);
      c = info(t).cwnd;
    }
    assert_true(c >= c0 + 5 && c <= c0 + 7);
    assert_int_equal(info(t).ssthresh, before / 2);
  }
  h_free(t);
}

static void test_rfc4341_5_loss_halves_cwnd_once_per_window(void **state) {
  h *t = h_new(1000);
  uint64_t from, off;
  uint32_t c;
  (void)state;
  h_grow_to(t, 13);
  c = info(t).cwnd;
  from = t->nsent;
  assert_int_equal(h_fill(t), c);
  t->av_lo = from;
  /* Two losses in one window: offsets 2 and 5. */
  for (off = from; off < t->nsent; off++) {
    if (off - from == 2 || off - from == 5) {
      continue;
    }
    t->rstate[off] = 0;
    if (info(t).pkts_lost == 0) {
      c = info(t).cwnd; /* slow start adds until the loss shows */
    }
    assert_int_equal(h_ack(t, off), 0);
  }
  assert_int_equal(info(t).pkts_lost, 2);
  assert_int_equal(info(t).cwnd, c / 2);
  assert_int_equal(info(t).ssthresh, c / 2);
  /* A loss among packets sent after the detection is a new event. */
  c = info(t).cwnd;
  {
    uint32_t before = h_window_with_loss(t, 0);
    assert_true(before >= c);
    assert_int_equal(info(t).cwnd, before / 2 < 1 ? 1 : before / 2);
  }
  h_free(t);
}

static void test_rfc4341_5_lost_after_numdupack_later_acked(void **state) {
  h *t = h_new(1000);
  udccp_conn_info i;
  (void)state;
  assert_int_equal(h_fill(t), 4); /* 0 1 2 3 */
  t->rstate[1] = t->rstate[2] = 0;
  assert_int_equal(h_ack(t, 2), 0);
  i = info(t);
  assert_int_equal(i.pkts_lost, 0); /* two later packets: only delayed */
  assert_int_equal(i.pipe, 2);
  assert_int_equal(i.cwnd, 6); /* +2: two packets acked (RFC 3465 L = 2) */
  t->rstate[3] = 0;
  assert_int_equal(h_ack(t, 3), 0);
  i = info(t);
  assert_int_equal(i.pkts_lost, 1); /* NUMDUPACK = 3 */
  assert_int_equal(i.pipe, 0);
  assert_int_equal(i.cwnd, 3); /* halved from 6 */
  assert_int_equal(i.ssthresh, 3);
  /* MUST NOT decrement pipe again when the lost packet shows up. */
  h_send(t, 1);
  t->rstate[0] = 0;
  assert_int_equal(h_ack(t, 3), 0);
  assert_int_equal(info(t).pipe, 1);
  h_free(t);
}

/* §5: "the acknowledged packets following the hole may be DCCP-Acks or
 * other non-data packets". */
static void test_rfc4341_5_dupacks_count_nondata_packets(void **state) {
  h *t = h_new(1000);
  (void)state;
  h_send(t, 1); /* 0: data, lost */
  h_send(t, 0);
  h_send(t, 0);
  h_send(t, 0);
  t->rstate[1] = t->rstate[2] = 0;
  assert_int_equal(h_ack(t, 2), 0);
  assert_int_equal(info(t).pkts_lost, 0);
  assert_int_equal(info(t).pipe, 1); /* acked non-data: pipe unchanged */
  t->rstate[3] = 0;
  assert_int_equal(h_ack(t, 3), 0);
  assert_int_equal(info(t).pkts_lost, 1);
  assert_int_equal(info(t).pipe, 0);
  h_free(t);
}

static void test_rfc4341_5_pipe_accounting_exact(void **state) {
  h *t = h_new(1000);
  uint64_t off;
  (void)state;
  h_grow_to(t, 13);
  assert_int_equal(info(t).pipe, 0);
  h_fill(t);
  h_send(t, 0);
  h_send(t, 0);
  {
    uint32_t sent = info(t).pipe, acked = 0;
    uint64_t from = t->nsent - sent - 2;
    t->av_lo = from;
    for (off = from; off < t->nsent; off++) {
      if (off == from + 3) {
        continue; /* lost */
      }
      t->rstate[off] = 0;
      if (t->is_data[off]) {
        acked++;
      }
      assert_int_equal(h_ack(t, off), 0);
      /* Duplicate acknowledgements MUST NOT affect pipe. */
      assert_int_equal(h_ack(t, off), 0);
      assert_int_equal(info(t).pipe,
                       sent - acked - (uint32_t)info(t).pkts_lost);
    }
    assert_int_equal(info(t).pkts_lost, 1);
    assert_int_equal(info(t).pipe, 0);
  }
  h_free(t);
}

/* ------------------------------------------------ reordering (ccid2_loss.c) */

/* Sends a window; its packet `rel` arrives after `delay` later ones (the
 * ack of rel + delay reports it), the rest in order, each acked.  Returns
 * cwnd just before the ack that declared a loss (the window's last if
 * none did); *after_loss: cwnd right after it (0: no loss declared). */
static uint32_t h_window_reordered(h *t, uint64_t rel, uint64_t delay,
                                   uint32_t *after_loss) {
  uint64_t from = t->nsent, off, late;
  uint64_t lost0 = info(t).pkts_lost;
  uint32_t before = 0;
  h_fill(t);
  late = from + rel;
  assert_true(late + delay < t->nsent);
  t->av_lo = from;
  *after_loss = 0;
  for (off = from; off < t->nsent; off++) {
    if (off == late) {
      continue;
    }
    t->rstate[off] = 0;
    if (off == late + delay) {
      t->rstate[late] = 0;
    }
    if (*after_loss == 0) {
      before = info(t).cwnd;
    }
    assert_int_equal(h_ack(t, off), 0);
    if (*after_loss == 0 && info(t).pkts_lost > lost0) {
      *after_loss = info(t).cwnd;
    }
  }
  t->acked_to = t->nsent;
  return before;
}

/* In congestion avoidance at about `cwnd`, nothing in flight. */
static h *h_in_ca(const udccp_ccid_ops *ops, uint32_t cwnd) {
  h *t = h_new_cc(1000, 2, 1000, 100000, ops);
  h_grow_to(t, cwnd * 2);
  h_window_with_loss(t, 0); /* a real loss ends slow start */
  return t;
}

/* RFC 4341 §5 follows SACK TCP, and TCP undoes a congestion response
 * that reordering caused (RFC 3522 detection, RFC 4015 response): a
 * packet the NUMDUPACK rule declared lost and that the next acks report
 * received brings cwnd and ssthresh back, and leaves pkts_lost.  The
 * reordering degree it showed (5 packets) raises the loss threshold
 * (RFC 4653, Linux's tp->reordering): the same reordering again is not a
 * loss.  Without the undo, every reordered packet halved cwnd for good. */
static void test_rfc4015_reordered_packet_undoes_the_halving(void **state) {
  h *t = h_in_ca(udccp_ccid_find(2), 24);
  uint32_t before, halved, c0 = info(t).cwnd, s0 = info(t).ssthresh;
  uint64_t lost0 = info(t).pkts_lost;
  (void)state;
  assert_true(c0 >= 20);
  before = h_window_reordered(t, 1, 5, &halved);
  print_message("reordered by 5: cwnd %u -> %u on the 3rd later ack -> %u "
                "when it arrived; ssthresh %u -> %u; pkts_lost %llu -> "
                "%llu\n", before, halved, info(t).cwnd, s0,
                info(t).ssthresh, (unsigned long long)lost0,
                (unsigned long long)info(t).pkts_lost);
  assert_int_equal(halved, before / 2); /* RFC 4341 §5 as before */
  assert_true(info(t).cwnd >= before); /* RFC 4015: restored */
  assert_true(info(t).cwnd <= before + 1);
  assert_int_equal(info(t).ssthresh, s0);
  assert_int_equal(info(t).pkts_lost, lost0); /* not a loss after all */
  assert_int_equal(info(t).pipe, 0);
  /* The threshold is now above 5: the same reordering is no loss. */
  before = info(t).cwnd;
  h_window_reordered(t, 1, 5, &halved);
  assert_int_equal(halved, 0);
  assert_int_equal(info(t).pkts_lost, lost0);
  assert_true(info(t).cwnd >= before);
  h_free(t);
}

/* A raised threshold still finds a real loss from acks alone (no timeout),
 * and a congestion event is undone only when every loss in it was
 * reordering: one of two packets arriving late leaves cwnd halved. */
static void test_rfc4341_5_real_loss_still_halves_after_reordering(
    void **state) {
  h *t = h_in_ca(udccp_ccid_find(2), 24);
  uint32_t before, halved;
  uint64_t lost0, from, off;
  (void)state;
  h_window_reordered(t, 1, 5, &halved); /* threshold 6 */
  lost0 = info(t).pkts_lost;
  before = h_window_with_loss(t, 0);
  assert_int_equal(info(t).pkts_lost, lost0 + 1);
  assert_int_equal(info(t).cwnd, before / 2);
  assert_int_equal(info(t).pipe, 0);
  /* Packets 1 (late by 8) and 3 (lost) of one window: one event. */
  lost0 = info(t).pkts_lost;
  from = t->nsent;
  h_fill(t);
  assert_true(t->nsent - from > 12);
  t->av_lo = from;
  before = info(t).cwnd;
  for (off = from; off < t->nsent; off++) {
    if (off == from + 1 || off == from + 3) {
      continue;
    }
    t->rstate[off] = 0;
    if (off == from + 9) {
      t->rstate[from + 1] = 0;
    }
    if (info(t).pkts_lost == lost0) {
      before = info(t).cwnd;
    }
    assert_int_equal(h_ack(t, off), 0);
  }
  t->acked_to = t->nsent;
  print_message("one late, one lost in a window: cwnd %u -> %u, pkts_lost "
                "+%llu\n", before, info(t).cwnd,
                (unsigned long long)(info(t).pkts_lost - lost0));
  assert_int_equal(info(t).pkts_lost, lost0 + 1);
  assert_true(info(t).cwnd <= before / 2 + 1);
  assert_int_equal(info(t).pipe, 0);
  h_free(t);
}

/* The threshold stays below half a window (RFC 4653 §3's bound, so that
 * losses are found by acks, not the timer), and NUMDUPACK while no
 * reordering was seen (RFC 4341 §5 exactly: the tests above). */
static void test_rfc4653_threshold_at_most_half_cwnd(void **state) {
  h *t = h_in_ca(udccp_ccid_find(2), 24);
  uint32_t halved, c;
  (void)state;
  h_grow_to(t, 48);
  /* Reordered by 40 packets: the threshold becomes 41. */
  h_window_reordered(t, 1, 40, &halved);
  assert_true(halved > 0);
  assert_true(info(t).cwnd >= 48);
  /* A real loss halves cwnd to about 24; in the next windows fewer than
   * 41 packets follow a lost one, and it is still found by their acks
   * (h_window_with_loss checks), not left to the timer. */
  h_window_with_loss(t, 0);
  c = info(t).cwnd;
  assert_true(c < 40);
  h_window_with_loss(t, 0);
  print_message("threshold 41 from reordering; a loss in a window of %u "
                "found by acks: cwnd %u\n", c, info(t).cwnd);
  assert_true(info(t).cwnd <= c / 2 + 1);
  h_free(t);
}

/* CUBIC rides on CCID 2's loss rule: the undo gives its window and its
 * state (W_max, the epoch) back as well. */
static void test_rfc4015_reordering_undone_for_cubic(void **state) {
  h *t = h_in_ca(udccp_ccid_find(UDCCP_CCID_CUBIC_DEFAULT), 24);
  uint32_t before, halved, s0 = info(t).ssthresh;
  uint64_t lost0 = info(t).pkts_lost;
  (void)state;
  before = h_window_reordered(t, 1, 5, &halved);
  print_message("cubic, reordered by 5: cwnd %u -> %u -> %u\n", before,
                halved, info(t).cwnd);
  assert_true(halved > 0 && halved < before);
  assert_true(info(t).cwnd >= before);
  assert_int_equal(info(t).ssthresh, s0);
  assert_int_equal(info(t).pkts_lost, lost0);
  h_window_reordered(t, 1, 5, &halved);
  assert_int_equal(halved, 0);
  h_free(t);
}

static void test_rfc4341_5_timeout_collapses_cwnd_and_backs_off(void **state) {
  h *t = h_new(1000);
  udccp_tstamp exp;
  udccp_conn_info i;
  (void)state;
  assert_int_equal(h_fill(t), 4);
  exp = t->ops->tx_get_expiry(&t->st);
  assert_int_equal(exp, t->now + UDCCP_CCID2_RTO_INIT);
  t->now = exp - 1;
  t->ops->tx_on_expiry(&t->st, t->now);
  assert_int_equal(info(t).cwnd, 4); /* not yet */
  t->now = exp;
  t->ops->tx_on_expiry(&t->st, t->now);
  i = info(t);
  assert_int_equal(i.cwnd, 1);
  assert_int_equal(i.ssthresh, 2);
  assert_int_equal(i.pipe, 0);
  assert_int_equal(i.pkts_lost, 4);
  assert_int_equal(i.rto, 2 * UDCCP_CCID2_RTO_INIT);
  assert_int_equal(t->ops->tx_get_expiry(&t->st), UDCCP_TSTAMP_NEVER);
  /* One packet may go; then the window is full until the backed-off
   * timer, which is when the sender may send again. */
  assert_int_equal(h_fill(t), 1);
  exp = t->ops->tx_get_expiry(&t->st);
  assert_int_equal(exp, t->now + 2 * UDCCP_CCID2_RTO_INIT);
  assert_int_equal(t->ops->tx_next_send(&t->st, t->now), exp);
  t->now = exp;
  t->ops->tx_on_expiry(&t->st, t->now);
  assert_int_equal(info(t).rto, 4 * UDCCP_CCID2_RTO_INIT);
  assert_int_equal(info(t).pkts_lost, 5);
  /* A new RTT sample ends the back-off (RFC 6298 §5.7). */
  h_fill(t);
  t->rstate[t->nsent - 1] = 0;
  assert_int_equal(h_ack(t, t->nsent - 1), 0);
  assert_int_equal(info(t).srtt, RTT);
  assert_int_equal(info(t).rto, RTT + 4 * (RTT / 2));
  assert_int_equal(t->ops->tx_get_expiry(&t->st), UDCCP_TSTAMP_NEVER);
  h_free(t);
}

static void test_rfc4341_5_timeout_losses_undone_by_late_acks(void **state) {
  /* A timeout declares every packet in flight lost (RFC 4341 §5, RFC 6298
   * §5.5), also when they arrived and only the acks were late (a receiver
   * that stalled for seconds): when the acks come, the packets reported
   * received leave pkts_lost again (cwnd stays collapsed), and a packet
   * the receiver never got stays counted.  Before, the count kept them:
   * udccp-cat told a sender whose every byte arrived "195 of 19495
   * declared lost" and exited 1. */
  h *t = h_new(1000);
  udccp_tstamp exp;
  uint64_t k;
  (void)state;
  assert_int_equal(h_fill(t), 4); /* 0 1 2 3 */
  exp = t->ops->tx_get_expiry(&t->st);
  t->now = exp;
  t->ops->tx_on_expiry(&t->st, t->now);
  assert_int_equal(info(t).pkts_lost, 4);
  assert_int_equal(h_fill(t), 1); /* 4 */
  t->now = t->ops->tx_get_expiry(&t->st);
  t->ops->tx_on_expiry(&t->st, t->now); /* backed off: 4 lost too */
  assert_int_equal(info(t).pkts_lost, 5);
  /* All but 2 arrived; the acks report them now. */
  for (k = 0; k < 5; k++) {
    t->rstate[k] = k == 2 ? AV_NONE : 0;
  }
  assert_int_equal(h_ack(t, 4), 0);
  print_message("5 declared lost by two timeouts, 4 reported received "
                "later: pkts_lost %llu, cwnd %u\n",
                (unsigned long long)info(t).pkts_lost, info(t).cwnd);
  assert_int_equal(info(t).pkts_lost, 1);
  assert_true(info(t).cwnd <= 2);
  /* The record of the timeout's losses is kept while one may still be
   * undone; an ack reporting packet 2 received takes it too, and the
   * record goes. */
  t->rstate[2] = 0;
  assert_int_equal(h_ack(t, 4), 0);
  assert_int_equal(info(t).pkts_lost, 0);
  h_free(t);
}

static void test_rfc6298_rto_from_samples_once_per_window(void **state) {
  h *t = h_new(1000);
  udccp_conn_info i;
  udccp_tstamp t0;
  (void)state;
  h_fill(t); /* 0..3 */
  t0 = t->now;
  t->now = t0 + RTT;
  t->rstate[0] = 0;
  assert_int_equal(h_ack(t, 0), 0);
  i = info(t);
  assert_int_equal(i.srtt, RTT); /* §2.2 first sample */
  assert_int_equal(i.rttvar, RTT / 2);
  assert_int_equal(i.rto, 3 * RTT);
  assert_int_equal(t->env.srtt, RTT);
  /* RFC 4341 §5 (3): no second sample from the same window. */
  t->now = t0 + 3 * RTT;
  t->rstate[1] = 0;
  assert_int_equal(h_ack(t, 1), 0);
  assert_int_equal(info(t).srtt, RTT);
  /* A packet sent after the sample gives the next one (§2.3); the peer's
   * Elapsed Time (RFC 4340 §13.2) is taken off. */
  {
    uint64_t off = h_send(t, 1);
    ackp p;
    memset(&p, 0, sizeof(p));
    p.elapsed = 2000; /* 20 ms */
    t->rtt = 70 * MS;
    t->rstate[off] = 0;
    assert_int_equal(h_ack_p(t, off, &p), 0);
    /* R = 50 ms: rttvar = 3/4 * 50 + 1/4 * 50 = 50; srtt = 7/8 100 +
     * 1/8 50 = 93.75 ms */
    i = info(t);
    assert_int_equal(i.rttvar, 50 * MS);
    assert_int_equal(i.srtt, 93750000u);
    assert_int_equal(i.rto, 93750000u + 4 * 50 * MS);
    assert_int_equal(i.min_rtt, 50 * MS);
  }
  h_free(t);
}

static void test_rfc4341_5_rto_minimum_200ms(void **state) {
  h *t = h_new(1000);
  int k;
  (void)state;
  t->rtt = 10 * MS;
  for (k = 0; k < 20; k++) {
    uint64_t off = h_send(t, 1);
    t->rstate[off] = 0;
    assert_int_equal(h_ack(t, off), 0);
  }
  assert_int_equal(info(t).srtt, 10 * MS);
  assert_int_equal(info(t).rto, UDCCP_CCID2_RTO_MIN);
  h_free(t);
}

static void test_rfc4341_7_ecn_marked_state_is_congestion(void **state) {
  h *t = h_new(1000);
  uint64_t from, off;
  uint32_t c;
  (void)state;
  h_grow_to(t, 13);
  from = t->nsent;
  h_fill(t);
  t->av_lo = from;
  t->rstate[from] = t->rstate[from + 1] = 0;
  assert_int_equal(h_ack(t, from + 1), 0);
  c = info(t).cwnd;
  /* Two marked packets in one window: one halving. */
  for (off = from + 2; off < t->nsent; off++) {
    t->rstate[off] = (off == from + 2 || off == from + 4) ? 1 : 0;
    assert_int_equal(h_ack(t, off), 0);
  }
  assert_int_equal(info(t).cwnd, c / 2);
  assert_int_equal(info(t).ssthresh, c / 2);
  assert_int_equal(info(t).pkts_lost, 0); /* marked is received */
  assert_int_equal(info(t).pipe, 0);      /* §5 (1): state 1 leaves pipe */
  h_free(t);
}

/* Runs one window of 16 with an ack carrying Data Dropped bytes dd; the
 * packet `hole` places before the newest one is not received (0: none). */
static udccp_conn_info dd_scenario_hole(const uint8_t *dd, size_t dd_len,
                                        int repeat, unsigned hole) {
  h *t = h_new(1000);
  uint64_t from, off;
  ackp p;
  udccp_conn_info i;
  h_grow_to(t, 16);
  assert_int_equal(info(t).cwnd, 16);
  from = t->nsent;
  h_fill(t);
  t->av_lo = from;
  for (off = from; off < t->nsent; off++) {
    t->rstate[off] = 0;
  }
  if (hole) {
    t->rstate[t->nsent - 1 - hole] = AV_NONE;
  }
  memset(&p, 0, sizeof(p));
  p.dd = dd;
  p.dd_len = dd_len;
  assert_int_equal(h_ack_p(t, t->nsent - 1, &p), 0);
  if (repeat) { /* Data Dropped is repeated until acked (§11.7) */
    assert_int_equal(h_ack_p(t, t->nsent - 1, &p), 0);
  }
  i = info(t);
  h_free(t);
  return i;
}

static udccp_conn_info dd_scenario(const uint8_t *dd, size_t dd_len,
                                   int repeat) {
  return dd_scenario_hole(dd, dd_len, repeat, 0);
}

static void test_rfc4341_5_2_data_dropped_by_drop_code(void **state) {
  /* Newest packet normal, then a drop block of 3 packets, code c. */
  uint8_t dd[2];
  udccp_conn_info base, i;
  (void)state;
  base = dd_scenario(NULL, 0, 0);
  assert_int_equal(base.cwnd, 18); /* one ack: +2 (L x Ack Ratio/2 cap) */
  dd[0] = 0x00;
  /* Code 0, Protocol Constraints: as if received (RFC 4340 §11.7.2). */
  dd[1] = (uint8_t)(0x80 | (0 << 4) | 2);
  i = dd_scenario(dd, 2, 1);
  assert_int_equal(i.cwnd, base.cwnd);
  assert_int_equal(i.ssthresh, base.ssthresh);
  /* Code 1, Application Not Listening: no congestion response. */
  dd[1] = (uint8_t)(0x80 | (1 << 4) | 2);
  i = dd_scenario(dd, 2, 1);
  assert_int_equal(i.cwnd, base.cwnd);
  assert_int_equal(i.ssthresh, base.ssthresh);
  /* Code 2, Receive Buffer: cwnd -1 per packet, leave slow start
   * (RFC 4341 §5.2); the repeat of the report changes nothing. */
  dd[1] = (uint8_t)(0x80 | (2 << 4) | 2);
  i = dd_scenario(dd, 2, 1);
  assert_int_equal(i.cwnd, 16 - 3);
  assert_int_equal(i.ssthresh, 13);
  assert_int_equal(i.pkts_lost, 0);
  /* Code 3, Corrupt (and 4..7): as ECN marked, one halving. */
  dd[1] = (uint8_t)(0x80 | (3 << 4) | 2);
  i = dd_scenario(dd, 2, 1);
  assert_int_equal(i.cwnd, 8);
  assert_int_equal(i.ssthresh, 8);
  dd[1] = (uint8_t)(0x80 | (7 << 4) | 0);
  i = dd_scenario(dd, 2, 0);
  assert_int_equal(i.cwnd, 8);
}

/* BBR on CCID 2's feedback (lib/ccid_bbr.c) sets cwnd itself after every
 * ack; rounds of 1200-byte packets, every packet received, acked in pairs,
 * and with drop the receiver reports the newest of each pair as Drop Code
 * 2 (RFC 4340 §11.7.2: its receive buffer was full).  Returns cwnd after
 * `rounds` rounds. */
static uint32_t bbr_receive_buffer_rounds(int drop, int rounds) {
  const uint8_t dd[1] = {(uint8_t)(0x80 | (2 << 4) | 0)}; /* ackno: code 2 */
  h *t = h_new_cc(1200, 2, 1000, 100000, udccp_ccid_bbr());
  uint32_t cwnd;
  int r;
  for (r = 0; r < rounds; r++) {
    uint64_t from = t->nsent, off;
    h_fill(t);
    t->av_lo = from;
    for (off = from; off < t->nsent; off++) {
      t->rstate[off] = 0;
      if ((off - from) % 2 == 1 || off + 1 == t->nsent) {
        ackp p;
        memset(&p, 0, sizeof(p));
        if (drop) {
          p.dd = dd;
          p.dd_len = sizeof(dd);
        }
        assert_int_equal(h_ack_p(t, off, &p), 0);
      }
    }
  }
  cwnd = info(t).cwnd;
  h_free(t);
  return cwnd;
}

/* RFC 4340 §11.7.2: "Every packet newly acknowledged as Drop Code 2 SHOULD
 * reduce the sender's instantaneous rate"; a CCID whose policy owns cwnd
 * (BBR) must hear of them, or a receiver that cannot keep up drops half of
 * what it gets while the sender's window keeps growing (udccp-perf --ccid
 * bbr over loopback: 26 % of the datagrams dropped at the receiver, cwnd
 * 24,000-51,000 packets). */
static void test_rfc4340_11_7_2_receive_buffer_drops_reach_bbr(void **state) {
  uint32_t clean, dropped;
  (void)state;
  clean = bbr_receive_buffer_rounds(0, 9);
  dropped = bbr_receive_buffer_rounds(1, 9);
  assert_true(clean >= 100); /* Startup doubled it, unhindered */
  assert_true(dropped * 4 <= clean);
}

/* RFC 4340 §11.7: only packets reported received can have had their data
 * dropped; a Drop Block over a "not yet received" packet is ignored. */
static void
test_rfc4340_11_7_data_dropped_ignored_for_unreceived(void **state) {
  uint8_t dd[2];
  udccp_conn_info base, i;
  (void)state;
  base = dd_scenario_hole(NULL, 0, 0, 1);
  dd[0] = 0x00;                           /* newest: normal */
  dd[1] = (uint8_t)(0x80 | (2 << 4) | 0); /* the hole: "receive buffer" */
  i = dd_scenario_hole(dd, 2, 0, 1);
  assert_int_equal(i.cwnd, base.cwnd);
  assert_int_equal(i.ssthresh, base.ssthresh);
}

/* RFC 4340 §11.7.2: a Drop Block reaching below the sender's history (the
 * packets acked and forgotten before this window) counts only the packets
 * the history still holds, and the blocks after it (older still) nothing:
 * the walk stops at the history's oldest entry (issue 12: a 252-byte
 * option costs what overlaps the history). */
static void test_rfc4340_11_7_data_dropped_below_history(void **state) {
  uint8_t dd[200];
  udccp_conn_info i;
  size_t k;
  (void)state;
  dd[0] = 0x03;                              /* newest 4: normal */
  dd[1] = (uint8_t)(0x80 | (2 << 4) | 15);   /* 16: 12 of this window */
  for (k = 2; k < sizeof(dd); k++) {
    dd[k] = (uint8_t)(0x80 | (2 << 4) | 15); /* older: forgotten */
  }
  i = dd_scenario(dd, sizeof(dd), 0);
  assert_int_equal(i.cwnd, 16 - 12); /* RFC 4341 §5.2: -1 per packet */
  assert_int_equal(i.ssthresh, 16 - 12);
  i = dd_scenario(dd, 2, 0);
  assert_int_equal(i.cwnd, 16 - 12);
}

static void test_rfc4341_5_2_slow_receiver_exits_slow_start(void **state) {
  h *t = h_new(1000);
  uint64_t from;
  ackp p;
  uint32_t c;
  (void)state;
  h_grow_to(t, 9);
  from = t->nsent;
  h_fill(t);
  t->av_lo = from;
  t->rstate[from] = t->rstate[from + 1] = 0;
  memset(&p, 0, sizeof(p));
  p.slow_receiver = 1;
  assert_int_equal(h_ack_p(t, from + 1, &p), 0);
  c = info(t).cwnd;
  assert_int_equal(info(t).ssthresh, c); /* out of slow start */
  /* RFC 4340 §11.6: no increase for about an RTT. */
  h_round_acks(t, from + 2, t->nsent, 2);
  assert_int_equal(info(t).cwnd, c);
  h_free(t);
}

/* Grows cwnd to 32, stays idle for num/den RTOs after the last data packet
 * and sends one: returns the state then. */
static udccp_conn_info idle_then_send(unsigned num, unsigned den) {
  h *t = h_new(1000);
  udccp_conn_info i;
  udccp_tstamp last;
  h_grow_to(t, 32);
  i = info(t);
  assert_int_equal(i.cwnd, 32);
  assert_int_equal(i.pipe, 0);
  last = t->now - RTT; /* the last window went out an RTT before its acks */
  t->now = last + i.rto * num / den;
  h_send(t, 1);
  i = info(t);
  h_free(t);
  return i;
}

/* RFC 4341 §5.1 / RFC 2861: halve per RTO of idleness, not below the
 * restart window; ssthresh keeps 3/4 of the old cwnd. */
static void test_rfc4341_5_1_idle_decays_cwnd(void **state) {
  udccp_conn_info i;
  (void)state;
  i = idle_then_send(99, 100); /* shorter than an RTO: nothing happens */
  assert_int_equal(i.cwnd, 32);
  i = idle_then_send(3, 2); /* one and a half RTOs: one halving */
  assert_int_equal(i.cwnd, 16);
  assert_true(i.ssthresh >= 24);
  i = idle_then_send(5, 2); /* two halvings */
  assert_int_equal(i.cwnd, 8);
  i = idle_then_send(10, 1);
  assert_int_equal(i.cwnd, 4); /* restart window = initial window */
}

/* RFC 4341 §5.1 / RFC 2861: an application-limited sender does not grow
 * its window and decays it towards what it uses. */
static void test_rfc4341_5_1_application_limited_decay(void **state) {
  h *t = h_new(1000);
  int round, changes = 0;
  uint32_t c;
  (void)state;
  h_grow_to(t, 20);
  c = info(t).cwnd;
  for (round = 0; round < 8; round++) {
    uint64_t a = h_send(t, 1), b = h_send(t, 1);
    udccp_conn_info i;
    t->rstate[a] = t->rstate[b] = 0;
    t->av_lo = a;
    assert_int_equal(h_ack(t, b), 0);
    i = info(t);
    printf("  app-limited RTT %d: cwnd %u ssthresh %u\n", round, i.cwnd,
           i.ssthresh);
    /* The first RTT may still credit the last full window; then the
     * window only shrinks while it is clearly unused. */
    assert_true(i.cwnd <= c || round == 0 || c <= 4);
    if (i.cwnd < c) {
      assert_int_equal(i.cwnd, (c + 2) / 2); /* (cwnd + W_used) / 2 */
      changes++;
    }
    assert_true(i.ssthresh >= 15);
    c = i.cwnd;
  }
  assert_true(changes >= 2);
  assert_true(c < 8);
  h_free(t);
}

/* RFC 4341 §6.1.2 constraints: Ack Ratio <= ceil(cwnd/2), >= 2 once
 * cwnd >= 4; the wanted value goes to the connection. */
static void test_rfc4341_6_1_2_ack_ratio_follows_cwnd(void **state) {
  h *t = h_new(1000);
  (void)state;
  assert_int_equal(info(t).ack_ratio, 2);
  assert_int_equal(t->env.want_ack_ratio, 0); /* already 2 */
  h_fill(t);
  t->now += UDCCP_CCID2_RTO_INIT;
  t->ops->tx_on_expiry(&t->st, t->now);
  assert_int_equal(info(t).cwnd, 1);
  assert_int_equal(info(t).ack_ratio, 1);
  assert_int_equal(t->env.want_ack_ratio, 1);
  t->env.ack_ratio = 1; /* the connection negotiated it */
  h_grow_to(t, 4);
  assert_int_equal(info(t).ack_ratio, 2);
  assert_int_equal(t->env.want_ack_ratio, 2);
  h_free(t);
}

static void test_rfc4341_6_1_1_lost_acks_double_ack_ratio(void **state) {
  h *t = h_new(1000);
  uint64_t from;
  ackp p;
  (void)state;
  h_grow_to(t, 20);
  assert_int_equal(info(t).ack_ratio, 2);
  from = t->nsent;
  h_fill(t);
  t->av_lo = from;
  memset(&p, 0, sizeof(p));
  t->rstate[from] = 0;
  assert_int_equal(h_ack(t, from), 0);
  /* One peer packet missing, but only two later ones: not lost yet. */
  t->rstate[from + 1] = 0;
  p.skip = 1;
  assert_int_equal(h_ack_p(t, from + 1, &p), 0);
  t->rstate[from + 2] = 0;
  assert_int_equal(h_ack(t, from + 2), 0);
  assert_int_equal(info(t).ack_ratio, 2);
  t->rstate[from + 3] = 0;
  assert_int_equal(h_ack(t, from + 3), 0);
  assert_int_equal(info(t).ack_ratio, 4);
  assert_int_equal(t->env.want_ack_ratio, 4);
  /* Another lost ack in the same RTT: still one doubling. */
  t->rstate[from + 4] = 0;
  assert_int_equal(h_ack_p(t, from + 4, &p), 0);
  t->rstate[from + 5] = t->rstate[from + 6] = t->rstate[from + 7] = 0;
  assert_int_equal(h_ack(t, from + 5), 0);
  assert_int_equal(h_ack(t, from + 6), 0);
  assert_int_equal(h_ack(t, from + 7), 0);
  assert_int_equal(info(t).ack_ratio, 4);
  h_free(t);
}

/* The peer's packets can be reordered as ours are: one judged lost by
 * §6.1.1's NUMDUPACK rule that arrives after all raises the rule's
 * threshold (RFC 4653's response, as for data), so that the same
 * reordering does not double Ack Ratio once per RTT (on a path reordering
 * 5 % of the packets Ack Ratio sat at cwnd/2: two acks per window). */
static void test_rfc4341_6_1_1_reordered_acks_are_not_lost_acks(
    void **state) {
  h *t = h_new(1000);
  uint64_t from, x, keep;
  ackp p;
  int round;
  (void)state;
  h_grow_to(t, 24);
  from = t->nsent;
  h_fill(t);
  assert_true(t->nsent - from >= 12);
  t->av_lo = from;
  memset(&p, 0, sizeof(p));
  p.skip = 1;
  for (round = 0; round < 2; round++) {
    uint64_t o = from + 5 * (uint64_t)round, k;
    x = t->peer_seq; /* the ack that comes late */
    t->rstate[o] = 0;
    assert_int_equal(h_ack_p(t, o, &p), 0);
    for (k = 1; k <= 3; k++) {
      t->rstate[o + k] = 0;
      assert_int_equal(h_ack(t, o + k), 0);
    }
    print_message("round %d: a peer packet 3 behind: Ack Ratio %u\n", round,
                  info(t).ack_ratio);
    assert_int_equal(info(t).ack_ratio, 4); /* round 1: no doubling */
    keep = t->peer_seq;
    t->peer_seq = x;
    t->rstate[o + 4] = 0;
    assert_int_equal(h_ack(t, o + 4), 0);
    t->peer_seq = keep;
    t->now += RTT + RTT / 2; /* §6.1.2: at most one doubling per RTT */
  }
  h_free(t);
}

static void test_rfc4341_6_1_1_marked_acks_double_ack_ratio(void **state) {
  h *t = h_new(1000);
  uint64_t from;
  ackp p;
  (void)state;
  h_grow_to(t, 20);
  from = t->nsent;
  h_fill(t);
  t->av_lo = from;
  memset(&p, 0, sizeof(p));
  /* A CE-marked DataAck is data, not ack-path congestion. */
  p.ecn = 3;
  p.type = UDCCP_PKT_DATAACK;
  t->rstate[from] = 0;
  assert_int_equal(h_ack_p(t, from, &p), 0);
  assert_int_equal(info(t).ack_ratio, 2);
  p.type = UDCCP_PKT_ACK;
  t->rstate[from + 1] = 0;
  assert_int_equal(h_ack_p(t, from + 1, &p), 0);
  assert_int_equal(info(t).ack_ratio, 4);
  h_free(t);
}

/* RFC 4341 §6.1.2: -1 after cwnd/(R^2 - R) windows without ack loss. */
/* RFC 4341 §6.1.2 with the peer's Sequence Window (RFC 4340 §7.5.1): a
 * peer that keeps W' = 100 (Linux) must not send more than W'/2 acks per
 * window of our data, or our acknowledgement numbers fall below its AWL
 * and it drops our packets.  Ack Ratio >= cwnd / (W'/2). */
static void test_rfc4341_6_1_2_ack_ratio_floor_from_peer_window(void **state) {
  h *t = h_new(1000);
  uint32_t cwnd;
  (void)state;
  t->env.seq_window_in = 100;
  t->env.seq_window_out = 100000; /* our own window does not limit cwnd */
  h_grow_to(t, 400);
  cwnd = info(t).cwnd;
  assert_true(cwnd >= 400);
  assert_true(info(t).ack_ratio >= (cwnd + 49) / 50);
  assert_true(t->env.want_ack_ratio >= (cwnd + 49) / 50);
  h_free(t);
  /* A wide peer window leaves the usual floor of 2. */
  t = h_new(1000);
  t->env.seq_window_in = 100000;
  t->env.seq_window_out = 100000;
  h_grow_to(t, 400);
  assert_true(info(t).ack_ratio <= 2);
  h_free(t);
}

static void test_rfc4341_6_1_2_ack_ratio_decreases_when_clean(void **state) {
  h *t = h_new(1000);
  uint64_t from;
  ackp p;
  int k;
  uint32_t cwnd;
  (void)state;
  h_grow_to(t, 20);
  cwnd = info(t).cwnd;
  from = t->nsent;
  h_fill(t);
  t->av_lo = from;
  memset(&p, 0, sizeof(p));
  p.ecn = 3;
  t->rstate[from] = 0;
  assert_int_equal(h_ack_p(t, from, &p), 0);
  assert_int_equal(info(t).ack_ratio, 4);
  cwnd = info(t).cwnd;
  /* K = ceil(cwnd / 12) windows of one RTT each; duplicate acks keep cwnd
   * where it is. */
  {
    unsigned kwin = (cwnd + 11) / 12;
    udccp_tstamp t0 = t->now;
    for (k = 1; k <= (int)(kwin * 4); k++) {
      t->now = t0 + (udccp_tstamp)k * RTT / 4;
      assert_int_equal(h_ack(t, from), 0);
      if ((unsigned)k < kwin * 4) {
        assert_int_equal(info(t).ack_ratio, 4);
      }
    }
    assert_int_equal(info(t).ack_ratio, 3);
    assert_int_equal(t->env.want_ack_ratio, 3);
  }
  h_free(t);
}

static void test_rfc4340_7_1_seq_wraparound(void **state) {
  h *t = h_new_ex(1000, 2, UDCCP_SEQ_MASK - 5, 100);
  uint64_t from, off;
  uint32_t before = 0;
  (void)state;
  h_grow_to(t, 8); /* offsets 0..3 before the wrap */
  from = t->nsent;
  assert_int_equal(h_fill(t), 8);
  assert_int_equal(seq_of(t, from + 2), 0); /* the window spans 2^48 */
  t->av_lo = from;
  for (off = from; off < t->nsent; off++) {
    if (off == from + 1) { /* seq 2^48 - 1 */
      continue;
    }
    t->rstate[off] = 0;
    if (info(t).pkts_lost == 0) {
      before = info(t).cwnd;
    }
    assert_int_equal(h_ack(t, off), 0);
  }
  assert_int_equal(info(t).pkts_lost, 1);
  assert_int_equal(info(t).pipe, 0);
  assert_int_equal(info(t).cwnd, before / 2);
  assert_int_equal(info(t).srtt, RTT);
  h_free(t);
}

/* Large windows: the history grows (rarely) and losses are still found;
 * afterwards steady state allocates nothing. */
static void test_rfc4341_5_large_window_history(void **state) {
  h *t = h_new(1000);
  unsigned allocs;
  uint32_t before;
  int round;
  (void)state;
  /* The ring was sized for Sequence Window 100; the connection widened
   * the window since (RFC 4340 §7.5.2). */
  t->env.seq_window_out = 1u << 20;
  h_grow_to(t, 3000);
  assert_true(t->cm.allocs > 1); /* grew beyond the first ring */
  assert_true(t->cm.allocs < 10);
  before = h_window_with_loss(t, 1000);
  assert_int_equal(info(t).cwnd, before / 2);
  allocs = t->cm.allocs;
  h_fill(t);
  for (round = 0; round < 5; round++) {
    h_round(t, 2);
  }
  assert_int_equal(t->cm.allocs, allocs);
  h_free(t);
}

/* A copy of the sender's state with a history of its own. */
static ccid2_tx *tx_clone(const ccid2_tx *tx) {
  ccid2_tx *c = malloc(sizeof(*c));
  assert_non_null(c);
  memcpy(c, tx, sizeof(*c));
  c->ring = malloc(tx->cap * sizeof(*tx->ring));
  assert_non_null(c->ring);
  memcpy(c->ring, tx->ring, tx->cap * sizeof(*tx->ring));
  return c;
}

static void tx_same(const ccid2_tx *a, const ccid2_tx *b) {
  ccid2_tx x = *a, y = *b;
  assert_int_equal(a->cap, b->cap);
  assert_memory_equal(a->ring, b->ring, a->cap * sizeof(*a->ring));
  x.ring = y.ring = NULL;
  assert_memory_equal(&x, &y, sizeof(x));
}

static void tx_clone_free(ccid2_tx *c) {
  free(c->ring);
  free(c);
}

/* RFC 4341 §5, issue 13: the history's usual push (ccid2_hist_push,
 * inline) leaves the state the general path (udccp_ccid2_hist_push_any)
 * leaves, and detect_losses is skipped (ccid2_losses_pending 0) only
 * where the general path would change nothing: checked before every
 * packet sent and after every ack of a sender with random losses, acks
 * of non-data packets, numbers skipped, and acks that arrive late. */
static void test_rfc4341_5_history_fast_paths_match_general(void **state) {
  h *t = h_new_ex(1000, 2, UDCCP_SEQ_MASK - 3000, 100000);
  ccid2_tx *tx = (ccid2_tx *)(void *)t->st.bytes;
  uint32_t lcg = 31337;
  unsigned round, fast = 0, skipped = 0, pending = 0;
  (void)state;
  for (round = 0; round < 3000 && t->nsent + 64 < MAXP; round++) {
    unsigned k, n;
    lcg = lcg * 1103515245u + 12345u;
    n = 1 + (lcg >> 16) % 6;
    for (k = 0; k < n; k++) {
      uint64_t off = t->nsent;
      int is_data = ((lcg >> (k + 3)) & 3) != 0;
      if (((lcg >> 9) & 63) == 0) {
        t->nsent += 1 + (lcg >> 24) % 3; /* numbers the caller skipped */
        off = t->nsent;
      }
      if (tx->ring != NULL && ccid2_hist_push_fast(tx, seq_of(t, off))) {
        ccid2_tx *a = tx_clone(tx), *b = tx_clone(tx);
        ccid2_hist_push(a, seq_of(t, off), t->now, ENT_SENT | ENT_DATA);
        udccp_ccid2_hist_push_any(b, seq_of(t, off), t->now,
                                  ENT_SENT | ENT_DATA);
        tx_same(a, b);
        tx_clone_free(a);
        tx_clone_free(b);
        fast++;
      }
      h_send(t, is_data);
      /* the receiver got it, mostly */
      t->rstate[off] = ((lcg >> (k + 11)) % 11) == 0 ? AV_NONE : 0;
    }
    t->now += MS;
    /* an ack of one of the newest packets, now and then an older one */
    if (t->nsent > 0 && ((lcg >> 20) & 3) != 0) {
      uint64_t back = ((lcg >> 22) & 7) == 0 ? (lcg >> 25) % 5 : 0;
      uint64_t ackoff = t->nsent - 1 > back ? t->nsent - 1 - back : 0;
      if (t->rstate[ackoff] == AV_NONE) {
        t->rstate[ackoff] = 0; /* its ackno arrived */
      }
      if (t->nsent > 200) {
        t->av_lo = t->nsent - 200;
      }
      assert_int_equal(h_ack(t, ackoff), 0);
      /* The state detect_losses meets after a walk, with the scan's
       * point anywhere around the history (below its tail too). */
      for (k = 0; k < 4 && tx->n > 0; k++) {
        ccid2_tx *c = tx_clone(tx);
        lcg = lcg * 1103515245u + 12345u;
        c->loss_scan = udccp_seq_add(
            c->tail, (int64_t)((lcg >> 16) % (c->n + 8)) - 4);
        if (!ccid2_losses_pending(c)) {
          ccid2_tx *d = tx_clone(c);
          udccp_ccid2_detect_losses(d);
          tx_same(d, c);
          tx_clone_free(d);
          skipped++;
        } else {
          pending++;
        }
        tx_clone_free(c);
      }
    }
  }
  printf("fast pushes %u, detect skipped %u, run %u, lost %llu\n", fast,
         skipped, pending, (unsigned long long)info(t).pkts_lost);
  assert_true(fast > 3000);
  assert_true(skipped > 500);
  assert_true(pending > 50);
  assert_true(info(t).pkts_lost > 50);
  h_free(t);
}

/* A copy of the whole sender state (tx_on_pkt runs on it) with a history
 * and a record of undoable losses of its own; the caller copies a state
 * without a record of a timeout's losses (rto_bits). */
static udccp_ccid_state *st_clone(const udccp_ccid_state *st) {
  udccp_ccid_state *c = malloc(sizeof(*c));
  ccid2_tx *tx;
  assert_non_null(c);
  memcpy(c, st, sizeof(*c));
  tx = (ccid2_tx *)(void *)c->bytes;
  assert_null(tx->rto_bits);
  if (tx->undo != NULL) {
    void *u = tx->mem->malloc(udccp_ccid2_undo_size(), tx->mem->user_data);
    assert_non_null(u);
    memcpy(u, tx->undo, udccp_ccid2_undo_size());
    tx->undo = u;
  }
  tx->ring = malloc(tx->cap * sizeof(*tx->ring));
  assert_non_null(tx->ring);
  memcpy(tx->ring, ((const ccid2_tx *)(const void *)st->bytes)->ring,
         tx->cap * sizeof(*tx->ring));
  return c;
}

static void st_clone_free(udccp_ccid_state *c) {
  ccid2_tx *tx = (ccid2_tx *)(void *)c->bytes;
  udccp_ccid2_loss_free(tx);
  free(tx->ring);
  free(c);
}

/* The two states alike but for their own memory (and the flag). */
static void st_same(const udccp_ccid_state *a, const udccp_ccid_state *b) {
  ccid2_tx x = *(const ccid2_tx *)(const void *)a->bytes;
  ccid2_tx y = *(const ccid2_tx *)(const void *)b->bytes;
  assert_int_equal(x.cap, y.cap);
  assert_int_equal(x.undo == NULL, y.undo == NULL);
  if (x.undo != NULL) {
    assert_memory_equal(x.undo, y.undo, udccp_ccid2_undo_size());
  }
  assert_int_equal(x.rto_bits == NULL, y.rto_bits == NULL);
  assert_memory_equal(x.ring, y.ring, x.cap * sizeof(*x.ring));
  x.ring = y.ring = NULL;
  x.undo = y.undo = NULL;
  x.rto_bits = y.rto_bits = NULL;
  x.general = y.general = 0;
  assert_memory_equal(&x, &y, sizeof(x));
}

/* RFC 4341 §5, §6.1.1, issue 13: tx_on_pkt's fast path for the usual ack
 * (the peer's next packet, one Ack Vector whose first run of received
 * packets reaches down to the oldest unresolved one) leaves the state the
 * general path leaves (udccp_ccid2_tx_set_general): checked on every ack
 * of a greedy sender whose receiver loses a packet now and then, marks
 * one (Ack Vector state 1), whose acks are lost now and then (the peer's
 * numbers skip), come late, or report packets a run below the tail does
 * not reach.  Fails if the fast path resolves other packets, moves pipe,
 * cwnd, the top three, the history's tail, the RTT, RTO or Ack Ratio, or
 * judges the peer's numbers otherwise than the general path. */
static void test_rfc4341_5_ack_fast_path_matches_general(void **state) {
  h *t = h_new_ex(1000, 2, UDCCP_SEQ_MASK - 2000, 100000);
  ccid2_tx *tx = (ccid2_tx *)(void *)t->st.bytes;
  uint32_t lcg = 777;
  unsigned round, compared = 0, late = 0;
  uint64_t late_off = 0, late_at = 0; /* a packet overtaken, and when */
  (void)state;
  h_grow_to(t, 40);
  for (round = 0; round < 400 && t->nsent + 1000 < MAXP; round++) {
    uint64_t from, to, off;
    h_send_until(t, t->now);
    from = t->acked_to;
    to = t->nsent;
    assert_true(to > from);
    t->av_lo = from > 3 ? from - 3 : 0;
    for (off = from; off < to; off++) {
      lcg = lcg * 1103515245u + 12345u;
      t->rstate[off] = ((lcg >> 16) % 397) == 0 ? AV_NONE
                       : ((lcg >> 16) % 353) == 1 ? 1
                                                 : 0;
      if (late_at != 0 && off == late_off + 1 && (late & 1)) {
        /* marked (§11.4 State 1): the run of the late one is not the
         * first run any more */
        t->rstate[off] = 1;
      }
      if (late_at == 0 && ((lcg >> 16) % 149) == 2) {
        /* overtaken by the next few: declared lost (§5 (2)), then it
         * arrives (RFC 4015: the loss undone) */
        t->rstate[off] = AV_NONE;
        late_off = off;
        late_at = off + 5 + (lcg >> 26) % 12;
      }
      if (late_at != 0 && off >= late_at) {
        t->rstate[late_off] = 0;
        late_at = 0;
        late++;
      }
      if ((off - from + 1) % 2 == 0 || off + 1 == to) {
        udccp_opts o;
        udccp_ccid_pkt pkt;
        uint64_t ackoff = off;
        udccp_ccid_state *g = NULL;
        h_send_until(t, t->sent_at[off] + t->rtt);
        if (((lcg >> 8) % 13) == 0 && off > from + 4) {
          ackoff = off - 3; /* a late ack */
        }
        if (t->rstate[ackoff] == AV_NONE) {
          t->rstate[ackoff] = 0; /* its ackno arrived */
        }
        memset(&o, 0, sizeof(o));
        memset(&pkt, 0, sizeof(pkt));
        av_encode(t, ackoff, &o);
        o.present |= UDCCP_OPTS_AV_CHECKED; /* as the parser sets it */
        if (((lcg >> 12) % 17) == 0) {
          t->peer_seq += 1; /* an ack of the peer's lost */
        }
        pkt.type = UDCCP_PKT_ACK;
        pkt.seq = t->peer_seq++;
        pkt.has_ack = 1;
        pkt.ack = seq_of(t, ackoff);
        pkt.opts = &o;
        if (t->now < t->sent_at[ackoff] + t->rtt) {
          t->now = t->sent_at[ackoff] + t->rtt;
        }
        if (tx->rto_bits == NULL) {
          g = st_clone(&t->st);
          udccp_ccid2_tx_set_general(g, 1);
          assert_int_equal(t->ops->tx_on_pkt(g, &pkt, t->now), 0);
        }
        assert_int_equal(t->ops->tx_on_pkt(&t->st, &pkt, t->now), 0);
        if (g != NULL) {
          st_same(&t->st, g);
          st_clone_free(g);
          compared++;
        }
      }
    }
    t->acked_to = to;
  }
  printf("acks compared %u, late packets %u, cwnd %u, lost %llu, marks "
         "%llu\n",
         compared, late, info(t).cwnd, (unsigned long long)info(t).pkts_lost,
         (unsigned long long)info(t).ecn_marks);
  assert_true(compared > 1000);
  assert_true(late > 15);
  assert_true(info(t).pkts_lost > 5);
  assert_true(info(t).ecn_marks > 5);
  h_free(t);
}

/* RFC 4341 §5, issue 13: a receiver's 1-entry history (its acks, each
 * left behind by the peer's next ack; several of ours between two acks of
 * acks) takes the inline push as the general path would leave it: checked
 * before every packet of a receiver whose acks are acked now and then,
 * late or not at all, with numbers skipped and, at the end, data of its
 * own.  Fails if the inline push keeps the old entry, or takes an older
 * number or a data entry still unresolved. */
static void test_rfc4341_5_history_one_entry_push_matches_general(
    void **state) {
  h *t = h_new_ex(1000, 2, UDCCP_SEQ_MASK - 300, 100000);
  ccid2_tx *tx = (ccid2_tx *)(void *)t->st.bytes;
  uint32_t lcg = 4242;
  unsigned i, fast = 0, general = 0;
  (void)state;
  for (i = 0; i < 3000 && t->nsent + 8 < MAXP; i++) {
    uint64_t off;
    int is_data;
    lcg = lcg * 1103515245u + 12345u;
    is_data = i > 2500 && ((lcg >> 18) & 1);
    if (((lcg >> 9) & 31) == 0) {
      t->nsent += 1 + (lcg >> 24) % 3; /* numbers the caller skipped */
    }
    off = t->nsent;
    if (tx->ring != NULL && tx->cap == 1) {
      uint64_t s = seq_of(t, ((lcg >> 14) & 15) == 0 && off > 2 ? off - 2 : off);
      if (ccid2_hist_push_fast(tx, s)) {
        ccid2_tx *a = tx_clone(tx), *b = tx_clone(tx);
        ccid2_hist_push(a, s, t->now, ENT_SENT);
        udccp_ccid2_hist_push_any(b, s, t->now, ENT_SENT);
        tx_same(a, b);
        tx_clone_free(a);
        tx_clone_free(b);
        fast++;
      } else {
        general++;
      }
    }
    h_send(t, is_data);
    t->rstate[off] = 0;
    t->now += MS / 10;
    if (((lcg >> 20) & 7) == 0) {
      /* an ack of ack naming one of our latest packets */
      uint64_t back = (lcg >> 23) % 4;
      assert_int_equal(h_ack(t, off > back ? off - back : 0), 0);
    }
  }
  printf("1-entry pushes inline %u, general %u, cap %u\n", fast, general,
         (unsigned)tx->cap);
  assert_true(fast > 2000);
  assert_true(general > 0);
  h_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_10_registry_lists_ccid2),
      cmocka_unit_test(test_rfc4341_5_initial_cwnd_rfc3390),
      cmocka_unit_test(test_rfc4341_5_send_only_while_pipe_below_cwnd),
      cmocka_unit_test(test_rfc4341_5_rfc3465_slow_start_counts_acked_packets),
      cmocka_unit_test(
          test_rfc4341_5_rfc3465_slow_start_increase_per_ack_capped),
      cmocka_unit_test(test_rfc4341_5_congestion_avoidance_one_per_window),
      cmocka_unit_test(test_rfc4341_5_loss_halves_cwnd_once_per_window),
      cmocka_unit_test(test_rfc4341_5_lost_after_numdupack_later_acked),
      cmocka_unit_test(test_rfc4341_5_dupacks_count_nondata_packets),
      cmocka_unit_test(test_rfc4341_5_pipe_accounting_exact),
      cmocka_unit_test(test_rfc4341_5_timeout_collapses_cwnd_and_backs_off),
      cmocka_unit_test(test_rfc4015_reordered_packet_undoes_the_halving),
      cmocka_unit_test(test_rfc4341_5_real_loss_still_halves_after_reordering),
      cmocka_unit_test(test_rfc4653_threshold_at_most_half_cwnd),
      cmocka_unit_test(test_rfc4015_reordering_undone_for_cubic),
      cmocka_unit_test(test_rfc4341_5_timeout_losses_undone_by_late_acks),
      cmocka_unit_test(test_rfc6298_rto_from_samples_once_per_window),
      cmocka_unit_test(test_rfc4341_5_rto_minimum_200ms),
      cmocka_unit_test(test_rfc4341_7_ecn_marked_state_is_congestion),
      cmocka_unit_test(test_rfc4341_5_2_data_dropped_by_drop_code),
      cmocka_unit_test(test_rfc4340_11_7_2_receive_buffer_drops_reach_bbr),
      cmocka_unit_test(test_rfc4340_11_7_data_dropped_ignored_for_unreceived),
      cmocka_unit_test(test_rfc4340_11_7_data_dropped_below_history),
      cmocka_unit_test(test_rfc4341_5_2_slow_receiver_exits_slow_start),
      cmocka_unit_test(test_rfc4341_5_1_idle_decays_cwnd),
      cmocka_unit_test(test_rfc4341_5_1_application_limited_decay),
      cmocka_unit_test(test_rfc4341_6_1_2_ack_ratio_follows_cwnd),
      cmocka_unit_test(test_rfc4341_6_1_2_ack_ratio_floor_from_peer_window),
      cmocka_unit_test(test_rfc4341_6_1_1_lost_acks_double_ack_ratio),
      cmocka_unit_test(test_rfc4341_6_1_1_marked_acks_double_ack_ratio),
      cmocka_unit_test(test_rfc4341_6_1_1_reordered_acks_are_not_lost_acks),
      cmocka_unit_test(test_rfc4341_6_1_2_ack_ratio_decreases_when_clean),
      cmocka_unit_test(test_rfc4340_7_1_seq_wraparound),
      cmocka_unit_test(test_rfc4341_5_large_window_history),
      cmocka_unit_test(test_rfc4340_7_5_2_cwnd_within_sequence_window),
      cmocka_unit_test(test_rfc4341_5_pacing_spreads_released_packets),
      cmocka_unit_test(test_rfc4341_5_history_fast_paths_match_general),
      cmocka_unit_test(test_rfc4341_5_ack_fast_path_matches_general),
      cmocka_unit_test(test_rfc4341_5_history_one_entry_push_matches_general),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

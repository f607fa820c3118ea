/* SPDX-License-Identifier: MIT */
/*
 * The CCID 2 sender harness of tests/test_ccid2.c and test_ccid2_history.c:
 * a sender half driven the way the connection drives it (tx_on_sent for
 * every packet, tx_next_send to fill the window) and synthetic
 * acknowledgements whose Ack Vector (RFC 4340 §11.4) and Data Dropped
 * (§11.7) bytes are encoded from what a model receiver got.  Header-only
 * (static inline): every .c file of tests/support is linked into every test.
 */
#ifndef UDCCP_TESTS_CCID2_HARNESS_H
#define UDCCP_TESTS_CCID2_HARNESS_H

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

static inline void *cm_malloc(size_t n, void *ud) {
  ((count_mem *)ud)->allocs++;
  return malloc(n);
}
static inline void cm_free(void *p, void *ud) {
  (void)ud;
  free(p);
}
static inline void *cm_calloc(size_t n, size_t sz, void *ud) {
  ((count_mem *)ud)->allocs++;
  return calloc(n, sz);
}
static inline void *cm_realloc(void *p, size_t n, void *ud) {
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

static inline h *h_new_cc(size_t mps, uint32_t ack_ratio, uint64_t isn,
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

static inline h *h_new_ex(size_t mps, uint32_t ack_ratio, uint64_t isn,
                   uint64_t seq_window) {
  return h_new_cc(mps, ack_ratio, isn, seq_window, udccp_ccid_find(2));
}

static inline h *h_new(size_t mps) { return h_new_ex(mps, 2, 1000, 100); }

static inline void h_free(h *t) {
  t->ops->tx_exit(&t->st);
  free(t);
}

static inline uint64_t seq_of(const h *t, uint64_t off) {
  return udccp_seq_add(t->isn, (int64_t)off);
}

static inline udccp_conn_info info(h *t) {
  udccp_conn_info i;
  memset(&i, 0, sizeof(i));
  t->ops->tx_get_info(&t->st, &i);
  return i;
}

static inline uint64_t h_send(h *t, int is_data) {
  uint64_t off = t->nsent++;
  assert_true(off < MAXP);
  t->is_data[off] = (uint8_t)is_data;
  t->sent_at[off] = t->now;
  t->ops->tx_on_sent(&t->st, seq_of(t, off), is_data, 100, t->now);
  return off;
}

/* Sends data packets while the CCID allows, letting virtual time run to
 * each paced send time (RFC 4341 §5 pacing); returns how many. */
static inline unsigned h_fill(h *t) {
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
static inline size_t av_encode(h *t, uint64_t ackoff, udccp_opts *o) {
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
static inline int h_ack_p(h *t, uint64_t ackoff, const ackp *p) {
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

static inline int h_ack(h *t, uint64_t ackoff) {
  ackp p;
  memset(&p, 0, sizeof(p));
  return h_ack_p(t, ackoff, &p);
}

/* One RTT: everything in [from, to) arrives, acked every r packets (no
 * sending in between). */
static inline void h_round_acks(h *t, uint64_t from, uint64_t to, unsigned r) {
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
static inline void h_send_until(h *t, udccp_tstamp until) {
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
static inline uint64_t h_round(h *t, unsigned r) {
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
static inline void h_grow_to(h *t, uint32_t target) {
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


/* Loses packet `lossoff` of the next window and acks the rest one by one;
 * returns cwnd just before the ack that revealed the loss. */
static inline uint32_t h_window_with_loss(h *t, uint64_t lossoff_rel) {
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

#endif

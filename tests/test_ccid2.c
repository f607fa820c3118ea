/* SPDX-License-Identifier: MIT */
/*
 * CCID 2 (lib/ccid2.c, RFC 4341) and the CCID registry (lib/ccid.c).
 *
 * The sender half is driven the way the connection drives it: tx_on_sent
 * for every packet, tx_next_send to fill the window, and synthetic
 * acknowledgements whose Ack Vector (RFC 4340 §11.4) and Data Dropped
 * (§11.7) bytes are encoded here from what a model receiver got.
 */

#include "ccid2_harness.h"

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
      cmocka_unit_test(test_rfc4340_7_5_2_cwnd_within_sequence_window),
      cmocka_unit_test(test_rfc4341_5_pacing_spreads_released_packets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

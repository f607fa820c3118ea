/* SPDX-License-Identifier: MIT */
/*
 * TFRC receiver loss history and loss intervals (lib/tfrc_lh.h): RFC 5348
 * §5.1-5.5 and §6.3.1, RFC 4342 §6.1, §8.6 and §10.2, RFC 4828 §3/§4.4,
 * RFC 5622 §8.7.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "seq.h"
#include "tfrc_eq.h"
#include "tfrc_lh.h"

#define US 1000ULL
#define MS UDCCP_NS_PER_MS

/* A receiver context: R = 10 ms, no X_recv yet, s = 1000. */
static udccp_tfrc_rx_ctx ctx_default(void) {
  udccp_tfrc_rx_ctx c;
  c.rtt = 10 * MS;
  c.x_recv_max = 0.0;
  c.s = 1000;
  c.x_recv_now = NULL;
  c.x_recv_ud = NULL;
  return c;
}

/* Packet helper: data packet seq arriving at ts with ccval. */
static unsigned rx(udccp_tfrc_lh *lh, const udccp_tfrc_rx_ctx *c,
                   uint64_t seq, udccp_tstamp ts, uint8_t ccval) {
  udccp_tfrc_rx_pkt p;
  memset(&p, 0, sizeof(p));
  p.seq = seq & UDCCP_SEQ_MASK;
  p.ts = ts;
  p.ccval = ccval;
  p.ecn = 2; /* ECT(0) */
  p.is_data = 1;
  return udccp_tfrc_lh_add(lh, &p, c);
}

static unsigned rx_full(udccp_tfrc_lh *lh, const udccp_tfrc_rx_ctx *c,
                        uint64_t seq, udccp_tstamp ts, uint8_t ccval,
                        uint8_t ecn, uint8_t is_data, uint32_t ndp) {
  udccp_tfrc_rx_pkt p;
  p.seq = seq & UDCCP_SEQ_MASK;
  p.ts = ts;
  p.ccval = ccval;
  p.ecn = ecn;
  p.is_data = is_data;
  p.ndp = ndp;
  return udccp_tfrc_lh_add(lh, &p, c);
}

/* Data packets lo..hi (inclusive) except those in skip[], ccval = seq/4
 * mod 16 (one counter per 4 packets), 1 ms apart; ECT(0), or with nonces
 * ECT(1) on every seq divisible by 3.  Returns the flags of all calls. */
static unsigned rx_seqs(udccp_tfrc_lh *lh, const udccp_tfrc_rx_ctx *c,
                        uint64_t lo, uint64_t hi, const uint64_t *skip,
                        size_t nskip, int nonces) {
  unsigned f = 0;
  uint64_t s;
  for (s = lo; s <= hi; s++) {
    size_t i;
    int lost = 0;
    for (i = 0; i < nskip; i++) {
      lost |= skip[i] == s;
    }
    if (!lost) {
      f |= rx_full(lh, c, s, s * MS, (uint8_t)((s / 4) & 15),
                   nonces && s % 3 == 0 ? 1 : 2, 1, 0);
    }
  }
  return f;
}

static unsigned rx_range(udccp_tfrc_lh *lh, const udccp_tfrc_rx_ctx *c,
                         uint64_t lo, uint64_t hi, const uint64_t *skip,
                         size_t nskip) {
  return rx_seqs(lh, c, lo, hi, skip, nskip, 0);
}

/* ---------------------------------------------------------- §5.4 */

/* Each weight, one at a time: with only I_j = 1000 non-zero, I_tot1 =
 * 1000*w_(j-1) and I_tot0 = 1000*w_j, so p = W_tot/(1000*w_(j-1)) with
 * W_tot = 6 (1+1+1+1+0.8+0.6+0.4+0.2). */
static void test_rfc5348_5_4_loss_interval_weights(void **state) {
  static const double w[8] = {1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2};
  int j;
  (void)state;
  for (j = 1; j <= 8; j++) {
    double len[9] = {0};
    double p;
    len[j] = 1000.0;
    p = udccp_tfrc_calc_p_intervals(len, 9, NULL, 1.0, 0);
    assert_true(fabs(p - 6.0 / (1000.0 * w[j - 1])) < 1e-15);
  }
}

/* A full history, checked exactly (the integer-weight sums make p a single
 * correctly rounded division):
 *   I = 100 | 10 20 30 40 50 60 70 80
 *   I_tot0 = 100+10+20+30 + .8*40 + .6*50 + .4*60 + .2*70 = 260
 *   I_tot1 = 10+20+30+40 + .8*50 + .6*60 + .4*70 + .2*80 = 220
 *   I_mean = 260/6, p = 6/260 = 30/1300.
 * With I_0 = 5 instead, I_tot0 = 165 < 220: I_0 is left out, p = 6/220. */
static void test_rfc5348_5_4_i_mean_exact(void **state) {
  double len[9] = {100, 10, 20, 30, 40, 50, 60, 70, 80};
  (void)state;
  assert_true(udccp_tfrc_calc_p_intervals(len, 9, NULL, 1.0, 0) ==
              30.0 / 1300.0);
  len[0] = 5;
  assert_true(udccp_tfrc_calc_p_intervals(len, 9, NULL, 1.0, 0) ==
              30.0 / 1100.0);
  /* more than n+1 given: only I_0..I_8 count */
  {
    double l10[10] = {100, 10, 20, 30, 40, 50, 60, 70, 80, 1e9};
    assert_true(udccp_tfrc_calc_p_intervals(l10, 10, NULL, 1.0, 0) ==
                30.0 / 1300.0);
  }
  /* k < n: I_0, I_1, I_2 -> W_tot = 2, I_tot0 = 7 + 9, I_tot1 = 9 + 40 */
  {
    double l3[3] = {7, 9, 40};
    assert_true(udccp_tfrc_calc_p_intervals(l3, 3, NULL, 1.0, 0) ==
                2.0 / 49.0);
    l3[0] = 60; /* 69 > 49: now I_0 counts */
    assert_true(udccp_tfrc_calc_p_intervals(l3, 3, NULL, 1.0, 0) ==
                2.0 / 69.0);
  }
  /* no closed interval yet: p = 0 (RFC 5348 §5) */
  assert_true(udccp_tfrc_calc_p_intervals(len, 1, NULL, 1.0, 0) == 0.0);
}

/* RFC 4828 §3: a short I_0 only enters through I_tot1. */
static void test_rfc4828_3_short_i0_left_out(void **state) {
  double len[3] = {1000, 9, 40};
  (void)state;
  assert_true(udccp_tfrc_calc_p_intervals(len, 3, NULL, 1.0, 0) ==
              2.0 / 1009.0);
  assert_true(udccp_tfrc_calc_p_intervals(len, 3, NULL, 1.0, 1) ==
              2.0 / 49.0);
}

/* §5.5 by hand: I = 400 | 10 20, DF_i = 1 0.5 (I_2 discounted), DF = 0.25:
 *   I_tot0 = 400*1 + 10*1*1*0.25 = 402.5, W_tot0 = 1 + 0.25 = 1.25
 *   I_tot1 = 10*1*1 + 20*1*0.5 = 20,     W_tot1 = 1 + 0.5 = 1.5
 *   p = min(1.25/402.5, 1.5/20) = 1.25/402.5 */
static void test_rfc5348_5_5_discounting_formula(void **state) {
  double len[3] = {400, 10, 20}, df[3] = {1.0, 1.0, 0.5};
  (void)state;
  assert_true(fabs(udccp_tfrc_calc_p_intervals(len, 3, df, 0.25, 0) -
                   1.25 / 402.5) < 1e-17);
  /* DF = 1 and DF_i = 1: the §5.4 result */
  df[2] = 1.0;
  assert_true(udccp_tfrc_calc_p_intervals(len, 3, df, 1.0, 0) ==
              udccp_tfrc_calc_p_intervals(len, 3, NULL, 1.0, 0));
}

/* ---------------------------------------------------------- §5.1 */

/* Reordering within NDUPACK fills the hole: 1 2 4 3 5 6 7 8 is loss-free. */
static void test_rfc5348_5_1_reorder_within_ndupack_not_loss(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  static const uint64_t order[] = {1, 2, 4, 5, 3, 6, 7, 9, 8, 10, 13, 11, 12};
  size_t i;
  unsigned f = 0;
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
    f |= rx(&lh, &c, order[i], i * MS, 0);
  }
  assert_false(f & (UDCCP_TFRC_LH_LOSS | UDCCP_TFRC_LH_DUP));
  assert_int_equal(lh.n_lost, 0);
  assert_int_equal(lh.last, 13);
  assert_int_equal(lh.n_pend, 0);
  assert_true(udccp_tfrc_lh_p(&lh) == 0.0);
}

/* A hole becomes a loss exactly when the third higher packet arrives;
 * a packet after that is late and ignored. */
static void test_rfc5348_5_1_loss_after_ndupack(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  rx(&lh, &c, 1, 1 * MS, 0);
  rx(&lh, &c, 2, 2 * MS, 0);
  assert_false(rx(&lh, &c, 4, 4 * MS, 0) & UDCCP_TFRC_LH_LOSS);
  assert_false(rx(&lh, &c, 5, 5 * MS, 0) & UDCCP_TFRC_LH_LOSS);
  assert_int_equal(lh.n_lost, 0);
  assert_int_equal(rx(&lh, &c, 6, 6 * MS, 0),
                   UDCCP_TFRC_LH_LOSS | UDCCP_TFRC_LH_NEW_EVENT |
                       UDCCP_TFRC_LH_FIRST_LOSS | UDCCP_TFRC_LH_SETTLED);
  assert_int_equal(lh.n_lost, 1);
  assert_int_equal(lh.li[0].seq_start, 3);
  assert_int_equal(lh.n_li, 2);
  assert_true(udccp_tfrc_lh_p(&lh) > 0.0);
  /* 3 was only late: it fills its hole, and with the one loss gone p is 0
   * again (RFC 5348 §5.1; see test_rfc5348_5_1_late_packet_*) */
  assert_int_equal(rx(&lh, &c, 3, 7 * MS, 0), UDCCP_TFRC_LH_UNDONE);
  assert_int_equal(rx(&lh, &c, 3, 7 * MS, 0), UDCCP_TFRC_LH_DUP);
  assert_int_equal(rx(&lh, &c, 6, 7 * MS, 0), UDCCP_TFRC_LH_DUP);
  assert_int_equal(lh.n_late, 2);
  assert_int_equal(lh.n_lost, 0);
  assert_int_equal(lh.n_filled, 1);
  assert_true(udccp_tfrc_lh_p(&lh) == 0.0);
}

/* Duplicates of packets waiting above a hole are recognised too. */
static void test_rfc5348_5_1_duplicate_pending(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  rx(&lh, &c, 1, 0, 0);
  rx(&lh, &c, 3, 0, 0);
  assert_int_equal(rx(&lh, &c, 3, 0, 0), UDCCP_TFRC_LH_DUP);
  assert_false(rx(&lh, &c, 4, 0, 0) & UDCCP_TFRC_LH_LOSS); /* 2 above */
  assert_true(rx(&lh, &c, 5, 0, 0) & UDCCP_TFRC_LH_LOSS);
}

/* ECN: a CE-marked data packet is an event on arrival; holes below it are
 * lost at once and the event begins with the first of them (§5.1
 * example: n-1 received, n+1 unmarked, n+2 marked -> event starts at n). */
static void test_rfc5348_5_1_ecn_mark_immediate(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  unsigned f;
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  rx(&lh, &c, 9, 0, 0);
  rx(&lh, &c, 11, 1, 0);
  f = rx_full(&lh, &c, 12, 2, 0, 3, 1, 0);
  assert_true(f & UDCCP_TFRC_LH_NEW_EVENT);
  assert_int_equal(lh.li[0].seq_start, 10);
  assert_int_equal(lh.li[0].loss_len, 3); /* 10 lost .. 12 marked */
  assert_int_equal(lh.li[0].drops, 2);
  assert_int_equal(lh.n_marked, 1);
  assert_int_equal(lh.n_lost, 1);
  assert_int_equal(lh.n_events, 1);
  /* CE on a non-data packet is not a congestion event (RFC 4342 §6.1) */
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  rx(&lh, &c, 1, 0, 0);
  f = rx_full(&lh, &c, 2, 0, 0, 3, 0, 0);
  assert_false(f & UDCCP_TFRC_LH_LOSS);
  assert_true(udccp_tfrc_lh_p(&lh) == 0.0);
  /* the first data packet itself marked: a null first interval */
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  f = rx_full(&lh, &c, 7, 0, 0, 3, 1, 0);
  assert_true(f & UDCCP_TFRC_LH_FIRST_LOSS);
  assert_int_equal(lh.li[1].seq_len, 0);
  assert_int_equal(lh.li[1].data_len,
                   udccp_tfrc_first_interval(0.0, c.s, c.rtt));
}

/* RFC 4342 §6.1 / RFC 4340 §7.7: lost packets the NDP Count shows to be
 * non-data are not losses; they still take sequence numbers. */
static void test_rfc4342_6_1_ndp_count_lost_nondata(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  unsigned f = 0;
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  rx(&lh, &c, 1, 0, 0);
  /* 2 and 3 lost; 4 says 2 non-data packets preceded it */
  f |= rx_full(&lh, &c, 4, 0, 0, 2, 1, 2);
  f |= rx(&lh, &c, 5, 0, 0);
  f |= rx(&lh, &c, 6, 0, 0);
  assert_false(f & UDCCP_TFRC_LH_LOSS);
  assert_int_equal(lh.li[0].seq_len, 6);
  assert_int_equal(lh.li[0].data_len, 4);
  /* 8, 9 lost, 10 says only 1 non-data: 8 was data -> a loss */
  rx(&lh, &c, 7, 0, 0);
  f = rx_full(&lh, &c, 10, 0, 0, 2, 1, 1);
  f |= rx(&lh, &c, 11, 0, 0);
  f |= rx(&lh, &c, 12, 0, 0);
  assert_true(f & UDCCP_TFRC_LH_NEW_EVENT);
  assert_int_equal(lh.n_lost, 1);
  assert_int_equal(lh.li[0].seq_start, 8);
  assert_int_equal(lh.li[0].loss_len, 1);
  assert_int_equal(lh.li[0].seq_len, 5);  /* 8..12 */
  assert_int_equal(lh.li[0].data_len, 4); /* 9 was non-data */
}

/* --------------------------------------------- §5.2 / RFC 4342 §10.2 */

/* Window counters: ccval = seq/4 (4 packets per quarter RTT).  X and Y are
 * one event iff no packet S in (X_prev, Y_prev] is more than 4 counters
 * after C(X_prev). */
static void test_rfc4342_10_2_ccval_loss_events(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  (void)state;
  /* 10 (X_prev 9, C=2) and 28 (Y_prev 27, C=6): distance 4 -> one event */
  {
    static const uint64_t lost[] = {10, 28};
    udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
    rx_range(&lh, &c, 1, 60, lost, 2);
    assert_int_equal(lh.n_events, 1);
    assert_int_equal(lh.li[0].loss_len, 19); /* 10..28 */
    assert_int_equal(lh.li[0].drops, 2);
  }
  /* 10 and 29 (Y_prev 28, C=7): distance 5 -> two events */
  {
    static const uint64_t lost[] = {10, 29};
    udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
    rx_range(&lh, &c, 1, 60, lost, 2);
    assert_int_equal(lh.n_events, 2);
    assert_int_equal(lh.li[0].seq_start, 29);
    assert_int_equal(lh.li[1].seq_start, 10);
    assert_int_equal(lh.li[1].seq_len, 19); /* 29 - 10 (§5.3) */
  }
  /* 10 and 74: C(73) = C(9) again (the counter wrapped) but packets in
   * between were far ahead: two events (the RFC's full rule) */
  {
    static const uint64_t lost[] = {10, 74};
    udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
    rx_range(&lh, &c, 1, 100, lost, 2);
    assert_int_equal(lh.n_events, 2);
  }
}

/* RFC 4342 §10.2 counts window counters, which only data packets carry
 * (§8.1): the CCVal 0 of the Acks the sender's other half interleaves in
 * the same sequence space must neither close an event nor serve as
 * C(X_prev).  Data packets all at counter 7 (one quarter RTT), every third
 * sequence number an Ack with CCVal 0, losses at 20, 32 and 44: one loss
 * event.  (An Ack at counter distance 9 from 7 once split every loss into
 * its own event, a loss event rate near 1/5 at start-up.) */
static void test_rfc4342_10_2_nondata_ccval_ignored(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  uint64_t s;
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  for (s = 1; s <= 60; s++) {
    int data = s % 3 != 0;
    if (s == 20 || s == 32 || s == 44) {
      continue;
    }
    rx_full(&lh, &c, s, s * US, data ? 7 : 0, 2, (uint8_t)data, 0);
  }
  assert_int_equal(lh.n_lost, 3);
  assert_int_equal(lh.n_events, 1);
  assert_int_equal(lh.li[0].loss_len, 25); /* 20..44 */
  /* a data packet 5 counters on does close it: the next loss is new */
  rx_full(&lh, &c, 61, 61 * US, 12, 2, 1, 0);
  for (s = 63; s <= 66; s++) {
    rx_full(&lh, &c, s, s * US, 12, 2, 1, 0);
  }
  assert_int_equal(lh.n_events, 2);
}

/* RFC 5348 §5.2 with times: 1 packet per ms, R = 10 ms; T_old + R >= T_new
 * is the same event. */
static void test_rfc5348_5_2_rtt_loss_events(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  (void)state;
  {
    static const uint64_t lost[] = {10, 20}; /* exactly R apart */
    udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_RTT, 0, 0);
    rx_range(&lh, &c, 1, 40, lost, 2);
    assert_int_equal(lh.n_events, 1);
  }
  /* marks are timed by their own arrival: 10 and 20 ms, one event */
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_RTT, 0, 0);
  rx(&lh, &c, 1, 1 * MS, 0);
  rx_full(&lh, &c, 2, 10 * MS, 0, 3, 1, 0);
  rx(&lh, &c, 3, 15 * MS, 0);
  rx_full(&lh, &c, 4, 20 * MS, 0, 3, 1, 0);
  assert_int_equal(lh.n_events, 1);
  rx_full(&lh, &c, 5, 20 * MS + 1, 0, 3, 1, 0);
  assert_int_equal(lh.n_events, 2);
  {
    static const uint64_t lost[] = {10, 21}; /* 11 ms apart */
    udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_RTT, 0, 0);
    rx_range(&lh, &c, 1, 40, lost, 2);
    assert_int_equal(lh.n_events, 2);
    assert_int_equal(lh.li[1].seq_len, 11);
  }
}

/* A run of 30 losses (11..40) between packets at 10 ms and 41 ms: the
 * interpolated times are 11..40 ms, so with R = 10 ms the events start at
 * 11, 22 (> 21 ms) and 33 (> 32 ms). */
static void test_rfc5348_5_2_interpolated_run(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  uint64_t s;
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_RTT, 0, 0);
  for (s = 1; s <= 10; s++) {
    rx(&lh, &c, s, s * MS, 0);
  }
  for (s = 41; s <= 43; s++) {
    rx(&lh, &c, s, s * MS, 0);
  }
  assert_int_equal(lh.n_events, 3);
  assert_int_equal(lh.li[0].seq_start, 33);
  assert_int_equal(lh.li[1].seq_start, 22);
  assert_int_equal(lh.li[2].seq_start, 11);
  assert_int_equal(lh.li[1].seq_len, 11);
  assert_int_equal(lh.li[2].seq_len, 11);
  assert_int_equal(lh.li[0].loss_len, 8); /* 33..40 */
  assert_int_equal(lh.n_lost, 30);
}

/* A blackout of 10^9 sequence numbers over 1000 s with R = 1 us would be
 * 10^9 events by interpolation: bounded work, bounded events. */
static void test_rfc5348_5_2_huge_gap_bounded(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  uint64_t base = UDCCP_SEQ_MASK - 5; /* and across the 48-bit wrap */
  (void)state;
  c.rtt = 1 * US;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_RTT, 0, 0);
  rx(&lh, &c, base, 0, 0);
  rx(&lh, &c, base + 1000000000ULL, 1000000 * MS, 0);
  rx(&lh, &c, base + 1000000001ULL, 1000000 * MS, 0);
  rx(&lh, &c, base + 1000000002ULL, 1000000 * MS, 0);
  assert_int_equal(lh.n_events, UDCCP_TFRC_RUN_EVENTS_MAX);
  assert_int_equal(lh.n_lost, 999999999ULL);
  assert_int_equal(lh.last, (base + 1000000002ULL) & UDCCP_SEQ_MASK);
  assert_true(udccp_tfrc_lh_p(&lh) > 0.0 && udccp_tfrc_lh_p(&lh) <= 1.0);
  /* the same in CCVal mode: one run, one event */
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  rx(&lh, &c, base, 0, 0);
  rx(&lh, &c, base + 1000000000ULL, 1, 0);
  rx(&lh, &c, base + 1000000001ULL, 1, 0);
  rx(&lh, &c, base + 1000000002ULL, 1, 0);
  assert_int_equal(lh.n_events, 1);
  assert_int_equal(lh.li[0].loss_len, 999999999ULL);
}

/* §5.3: I_0 runs to the highest received sequence number, pending
 * packets included. */
static void test_rfc5348_5_3_interval_sizes(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  static const uint64_t lost[] = {20, 50};
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  rx_range(&lh, &c, 1, 80, lost, 2);
  assert_int_equal(lh.n_events, 2);
  assert_int_equal(lh.li[1].seq_len, 30);       /* 50 - 20 */
  assert_int_equal(udccp_tfrc_lh_i0(&lh), 31);  /* 80 - 50 + 1 */
  rx(&lh, &c, 82, 82 * MS, 0);                  /* hole at 81 pending */
  assert_int_equal(lh.last, 80);
  assert_int_equal(udccp_tfrc_lh_i0(&lh), 33);  /* 82 - 50 + 1 */
}

/* ---------------------------------------------------------- §6.3.1 */

/* After the first loss the interval before it is replaced by 1/p for
 * X_target = max X_recv; X(1/I) is within 5% of X_target. */
static void test_rfc5348_6_3_1_first_interval_synthesis(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  static const uint64_t lost[] = {500};
  uint64_t want;
  double x;
  (void)state;
  c.x_recv_max = 1.0e6; /* bytes/s, s = 1000, R = 10 ms */
  want = udccp_tfrc_first_interval(c.x_recv_max, c.s, c.rtt);
  x = udccp_tfrc_calc_x(c.s, c.rtt, 1.0 / (double)want);
  assert_true(fabs(x - c.x_recv_max) / c.x_recv_max < 0.05);
  assert_true(want == (uint64_t)floor(
                          1.0 / udccp_tfrc_calc_p(c.s, c.rtt, 1e6) + 0.5));
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  assert_true(rx_range(&lh, &c, 1, 505, lost, 1) & UDCCP_TFRC_LH_FIRST_LOSS);
  assert_int_equal(lh.li[1].data_len, want);
  assert_int_equal(lh.li[1].seq_len, 499);
  /* p = 1/max(I_0, I_1) with one closed interval */
  assert_true(udccp_tfrc_lh_p(&lh) == 1.0 / (double)want);
  /* X_target is at least 0.5 packets per RTT (5000 bytes/s here): p is
   * exact, the interval is its rounded inverse (an integer: at such high
   * loss the rounding, not the inversion, dominates the error) */
  {
    double p = udccp_tfrc_calc_p(1000, 100 * MS, 5000.0);
    assert_true(fabs(udccp_tfrc_calc_x(1000, 100 * MS, p) - 5000.0) < 1e-6);
    want = udccp_tfrc_first_interval(0.0, 1000, 100 * MS);
    assert_int_equal(want, (uint64_t)floor(1.0 / p + 0.5));
    assert_int_equal(udccp_tfrc_first_interval(4000.0, 1000, 100 * MS), want);
    assert_true(udccp_tfrc_first_interval(6000.0, 1000, 100 * MS) >= want);
  }
  assert_true(udccp_tfrc_first_interval(0.0, 1000, 100 * MS) ==
              udccp_tfrc_first_interval(0.0, 0, 100 * MS));
  /* bounds: huge rate -> the 32-bit maximum (kept whole: wider than the
   * Loss Intervals option's 24 bits); never 0 */
  assert_int_equal(udccp_tfrc_first_interval(1e30, 1000, 1 * MS),
                   UDCCP_TFRC_SYNTH_LEN_MAX);
  assert_true(udccp_tfrc_first_interval(85616.0 * 1416, 1416, 200 * MS) >
              UDCCP_TFRC_LI_LEN_MAX);
  assert_true(udccp_tfrc_first_interval(0.0, 1000, 0) >= 1);
}

/* ------------------------------------------------ RFC 4342 §8.6 example */

/* Builds RFC 4342 §8.6.2's history: 0..44, lost 10, 19-21, 23, 32, 43;
 * one non-data packet in L1 (15), three in L2 (25, 27, 29), one in L3 (35);
 * ECT(1) nonces on 3 (L0) and 40 (L3); ccval = seq/2 so that 10, 19 and 32
 * start separate events; the first interval synthesized to 15. */
static void build_rfc4342_example(udccp_tfrc_lh *lh) {
  udccp_tfrc_rx_ctx c = ctx_default();
  uint64_t s;
  c.x_recv_max = udccp_tfrc_calc_x(c.s, c.rtt, 1.0 / 15.0);
  udccp_tfrc_lh_init(lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  for (s = 0; s <= 44; s++) {
    uint8_t ecn = 2, data = 1;
    if (s == 10 || s == 19 || s == 20 || s == 21 || s == 23 || s == 32 ||
        s == 43) {
      continue;
    }
    if (s == 15 || s == 25 || s == 27 || s == 29 || s == 35) {
      data = 0;
    }
    if (s == 3 || s == 40) {
      ecn = 1;
    }
    rx_full(lh, &c, s, s * MS, (uint8_t)((s / 2) & 15), ecn, data, 0);
  }
}

static void test_rfc4342_8_6_2_loss_intervals_example(void **state) {
  static const uint8_t want[] = {2,  0, 0, 10, 128, 0, 1, 0, 0, 10,
                                 0,  0, 8, 0,  0,   5, 0, 0, 10,
                                 0,  0, 8, 0,  0,   1, 0, 0, 8,
                                 0,  0, 10, 128, 0, 0, 0, 0, 15};
  static const uint8_t want_dp[] = {0, 0, 1, 0, 0, 4, 0, 0, 1, 0, 0, 0};
  udccp_tfrc_lh lh;
  uint8_t buf[64];
  udccp_ssize n;
  (void)state;
  build_rfc4342_example(&lh);
  assert_int_equal(lh.n_li, 4);
  n = udccp_tfrc_lh_write_li(&lh, 44, buf, sizeof(buf), 0);
  assert_int_equal(n, 37); /* option length 39 with type and length */
  assert_memory_equal(buf, want, sizeof(want));
  n = udccp_tfrc_lh_write_dp(&lh, buf, sizeof(buf), 0);
  assert_int_equal(n, 12); /* RFC 5622 §8.7.1: 195,14,... */
  assert_memory_equal(buf, want_dp, sizeof(want_dp));
  /* too small a buffer */
  assert_int_equal(udccp_tfrc_lh_write_li(&lh, 44, buf, 36, 0),
                   UDCCP_ERR_NOBUF);
  /* only the newest two */
  assert_int_equal(udccp_tfrc_lh_write_li(&lh, 44, buf, sizeof(buf), 2), 19);
}

/* The sender side: parse the example back (RFC 4342 §8.6.2's reading) and
 * compute p from the Data Lengths 10 | 10 8 15:
 *   I_tot0 = 10+10+8 = 28, I_tot1 = 10+8+15 = 33, W_tot = 3, p = 3/33. */
static void test_rfc4342_8_6_1_parse_and_sender_p(void **state) {
  static const uint8_t opt[] = {2,  0, 0, 10, 128, 0, 1, 0, 0, 10,
                                0,  0, 8, 0,  0,   5, 0, 0, 10,
                                0,  0, 8, 0,  0,   1, 0, 0, 8,
                                0,  0, 10, 128, 0, 0, 0, 0, 15};
  static const uint8_t dp[] = {0, 0, 1, 0, 0, 9, 0, 0, 1};
  udccp_tfrc_li_info li[UDCCP_TFRC_LI_MAX];
  udccp_tfrc_lh lh;
  size_t n;
  uint8_t skip;
  (void)state;
  assert_int_equal(udccp_tfrc_li_parse(opt, sizeof(opt), 44, li,
                                       UDCCP_TFRC_LI_MAX, &n, &skip), 0);
  assert_int_equal(n, 4);
  assert_int_equal(skip, 2);
  assert_int_equal(li[0].seq_end, 42); /* L3 ends before 43 */
  assert_int_equal(li[0].lossless, 10);
  assert_int_equal(li[0].loss_len, 1);
  assert_int_equal(li[0].ecn, 1);
  assert_int_equal(li[1].seq_end, 31);
  assert_int_equal(li[1].loss_len, 5);
  assert_int_equal(li[1].data_len, 10);
  assert_int_equal(li[2].seq_end, 18);
  assert_int_equal(li[3].seq_end, 9);
  assert_int_equal(li[3].data_len, 15);
  assert_int_equal(li[3].ecn, 1);
  assert_true(udccp_tfrc_li_calc_p(li, n, NULL, 0) == 3.0 / 33.0);
  /* the receiver's own p agrees (its I_0 = 12 also loses to I_tot1) */
  build_rfc4342_example(&lh);
  assert_true(udccp_tfrc_lh_p(&lh) == 3.0 / 33.0);
  /* RFC 5622 §8.7: Drop Counts, clamped to Loss Length; uncovered
   * intervals keep Drop Count = Loss Length */
  assert_int_equal(udccp_tfrc_dp_apply(dp, sizeof(dp), li, n), 0);
  assert_int_equal(li[0].drops, 1);
  assert_int_equal(li[1].drops, 5); /* 9 > Loss Length 5 */
  assert_int_equal(li[2].drops, 1);
  assert_int_equal(li[3].drops, 0); /* Loss Length 0 */
  assert_int_equal(udccp_tfrc_dp_apply(dp, 4, li, n), UDCCP_ERR_OPTION);
  /* malformed lengths */
  assert_int_equal(udccp_tfrc_li_parse(opt, 1, 44, li, 9, &n, &skip),
                   UDCCP_ERR_OPTION);
  assert_int_equal(udccp_tfrc_li_parse(opt, 11, 44, li, 9, &n, &skip),
                   UDCCP_ERR_OPTION);
  /* cap smaller than the option: the newest ones */
  assert_int_equal(udccp_tfrc_li_parse(opt, sizeof(opt), 44, li, 2, &n,
                                       &skip), 0);
  assert_int_equal(n, 2);
}

/* Before any loss: one interval, Data Length 0 (RFC 4342 §6.1.1), p = 0;
 * Skip Length of a big pending gap is capped at one byte. */
static void test_rfc4342_6_1_1_before_first_loss(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  uint8_t buf[32];
  udccp_tfrc_li_info li[2];
  size_t n;
  uint8_t skip;
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  assert_int_equal(udccp_tfrc_lh_write_li(&lh, 0, buf, sizeof(buf), 0),
                   UDCCP_ERR_INVALID_STATE);
  rx_range(&lh, &c, 100, 119, NULL, 0);
  assert_int_equal(udccp_tfrc_lh_write_li(&lh, 119, buf, sizeof(buf), 0),
                   10);
  assert_int_equal(udccp_tfrc_li_parse(buf, 10, 119, li, 2, &n, &skip), 0);
  assert_int_equal(n, 1);
  assert_int_equal(skip, 0);
  assert_int_equal(li[0].lossless, 20);
  assert_int_equal(li[0].data_len, 0);
  assert_true(udccp_tfrc_li_calc_p(li, n, NULL, 0) == 0.0);
  /* a gap of 1000 with one packet above it: skip 255, rest lossless */
  rx(&lh, &c, 1120, 0, 0);
  assert_int_equal(udccp_tfrc_lh_write_li(&lh, 1120, buf, sizeof(buf), 0),
                   10);
  assert_int_equal(buf[0], 255);
  assert_int_equal(udccp_tfrc_li_parse(buf, 10, 1120, li, 2, &n, &skip), 0);
  assert_int_equal(li[0].lossless, 20 + 1001 - 255);
}

/* ECN nonce echo: parity of ECT(1) data packets in the lossless part only;
 * a loss joining the event restarts the lossless part. */
static void test_rfc4342_8_6_1_nonce_echo_lossless_part(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  rx(&lh, &c, 1, 0, 0);
  /* 2 lost; 3 has nonce 1; 4 lost (same event: counters all 0) */
  rx_full(&lh, &c, 3, 0, 0, 1, 1, 0);
  rx(&lh, &c, 5, 0, 0);
  rx(&lh, &c, 6, 0, 0);
  rx(&lh, &c, 7, 0, 0); /* 2 lost, nonce of 3 counted */
  assert_int_equal(lh.n_events, 1);
  rx(&lh, &c, 8, 0, 0); /* 4 lost (3 above: 5..8 minus) -> joins, reset */
  assert_int_equal(lh.li[0].loss_len, 3);
  assert_int_equal(lh.li[0].nonce, 0);
  rx_full(&lh, &c, 9, 0, 0, 1, 1, 0);
  rx_full(&lh, &c, 10, 0, 0, 1, 0, 0); /* non-data: no nonce */
  assert_int_equal(lh.li[0].nonce, 1);
}

/* ------------------------------------------- late packets (RFC 5348 §5.1) */

static void feed(udccp_tfrc_lh *lh, const udccp_tfrc_rx_ctx *c, uint64_t lo,
                 uint64_t hi, const uint64_t *skip, size_t nskip) {
  (void)rx_seqs(lh, c, lo, hi, skip, nskip, 1);
}

static unsigned late(udccp_tfrc_lh *lh, const udccp_tfrc_rx_ctx *c,
                     uint64_t s, udccp_tstamp ts) {
  return rx_full(lh, c, s, ts, (uint8_t)((s / 4) & 15), s % 3 == 0 ? 1 : 2,
                 1, 0);
}

/* feed() with one packet skipped; returns the flags of all calls */
static unsigned feed_flags(udccp_tfrc_lh *lh, const udccp_tfrc_rx_ctx *c,
                           uint64_t lo, uint64_t hi, uint64_t skip) {
  unsigned f = 0;
  uint64_t s;
  for (s = lo; s <= hi; s++) {
    if (s != skip) {
      f |= late(lh, c, s, s * MS);
    }
  }
  return f;
}

/* The loss intervals of two histories are the same, field by field. */
static void assert_intervals_same(const udccp_tfrc_lh *a,
                                  const udccp_tfrc_lh *b) {
  uint32_t i;
  assert_int_equal(a->have_loss, b->have_loss);
  assert_int_equal(a->n_li, b->n_li);
  for (i = 0; i < a->n_li; i++) {
    assert_int_equal(a->li[i].seq_start, b->li[i].seq_start);
    assert_int_equal(a->li[i].seq_len, b->li[i].seq_len);
    assert_int_equal(a->li[i].data_len, b->li[i].data_len);
    assert_int_equal(a->li[i].nonce, b->li[i].nonce);
    assert_int_equal(a->li[i].loss_len, b->li[i].loss_len);
    assert_int_equal(a->li[i].drops, b->li[i].drops);
    assert_int_equal(a->li[i].is_long, b->li[i].is_long);
  }
}

static void assert_same_history(const udccp_tfrc_lh *a,
                                const udccp_tfrc_lh *b) {
  assert_intervals_same(a, b);
  assert_true(udccp_tfrc_lh_p(a) == udccp_tfrc_lh_p(b));
}

/* A loss event whose one lost packet comes late is undone: the history is
 * the one of a path that never lost it (a loss before it stands). */
static void test_rfc5348_5_1_late_packet_undoes_its_event(void **state) {
  udccp_tfrc_lh lh, ref;
  udccp_tfrc_rx_ctx c = ctx_default();
  const uint64_t both[] = {20, 150}, real[] = {20};
  uint8_t li[1 + 9 * UDCCP_TFRC_LI_MAX], li_ref[sizeof(li)];
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  udccp_tfrc_lh_init(&ref, UDCCP_TFRC_LH_CCVAL, 0, 0);
  feed(&lh, &c, 1, 200, both, 2);
  feed(&ref, &c, 1, 150, real, 1);
  assert_int_equal(lh.n_li, 3);
  assert_true(udccp_tfrc_lh_p(&lh) > udccp_tfrc_lh_p(&ref));
  assert_int_equal(late(&lh, &c, 150, 201 * MS), UDCCP_TFRC_LH_UNDONE);
  feed(&ref, &c, 151, 200, NULL, 0);
  assert_same_history(&lh, &ref);
  assert_int_equal(lh.n_lost, 1);
  assert_int_equal(lh.n_undone, 1);
  /* the Loss Intervals option says the same (nonce echo included) */
  assert_int_equal(udccp_tfrc_lh_write_li(&lh, 200, li, sizeof(li), 0),
                   udccp_tfrc_lh_write_li(&ref, 200, li_ref, sizeof(li), 0));
  assert_memory_equal(li, li_ref, 1 + 9 * lh.n_li);
  /* and a later loss starts a new event as usual */
  feed(&lh, &c, 201, 260, (const uint64_t[]){230}, 1);
  assert_int_equal(lh.n_li, 3);
  assert_int_equal(lh.li[0].seq_start, 230);
}

/* The first loss event undone: no loss at all, p = 0 again (and the next
 * real loss synthesizes the first interval afresh, RFC 5348 §6.3.1). */
static void test_rfc5348_5_1_late_packet_undoes_first_loss(void **state) {
  udccp_tfrc_lh lh, ref;
  udccp_tfrc_rx_ctx c = ctx_default();
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 1);
  udccp_tfrc_lh_init(&ref, UDCCP_TFRC_LH_CCVAL, 0, 1);
  feed(&lh, &c, 1, 60, (const uint64_t[]){40}, 1);
  assert_true(udccp_tfrc_lh_p(&lh) > 0.0);
  assert_int_equal(late(&lh, &c, 40, 61 * MS), UDCCP_TFRC_LH_UNDONE);
  feed(&ref, &c, 1, 60, NULL, 0);
  assert_same_history(&lh, &ref);
  assert_true(udccp_tfrc_lh_p(&lh) == 0.0);
  assert_int_equal(lh.li[0].data_len, 60);
  assert_int_equal(
      feed_flags(&lh, &c, 61, 80, 70) & UDCCP_TFRC_LH_FIRST_LOSS,
      UDCCP_TFRC_LH_FIRST_LOSS);
}

/* An event with two losses stands while one of them has not come; a CE
 * mark is a congestion signal however late it comes. */
static void test_rfc5348_5_1_late_packet_partial_and_marked(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  const uint64_t skip[] = {20, 100, 102};
  double p;
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  feed(&lh, &c, 1, 150, skip, 3);
  assert_int_equal(lh.n_li, 3);
  assert_int_equal(lh.li[0].drops, 2);
  p = udccp_tfrc_lh_p(&lh);
  assert_int_equal(late(&lh, &c, 100, 151 * MS), UDCCP_TFRC_LH_UNDONE);
  assert_int_equal(lh.n_li, 3);
  assert_int_equal(lh.li[0].drops, 1);
  assert_true(udccp_tfrc_lh_p(&lh) == p);
  /* 102 comes CE-marked: still a loss, the event stays */
  assert_int_equal(rx_full(&lh, &c, 102, 152 * MS, 9, 3, 1, 0),
                   UDCCP_TFRC_LH_DUP);
  assert_int_equal(lh.n_li, 3);
  assert_int_equal(lh.li[0].drops, 1);
  assert_int_equal(lh.n_lost, 2);
}

/* Beyond the window of UDCCP_TFRC_LATE_WIN sequence numbers a late packet
 * stays lost. */
static void test_rfc5348_5_1_late_packet_too_late(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  feed(&lh, &c, 1, 10 + UDCCP_TFRC_LATE_WIN, (const uint64_t[]){10}, 1);
  assert_int_equal(late(&lh, &c, 10, 0), UDCCP_TFRC_LH_DUP);
  assert_int_equal(lh.n_lost, 1);
  assert_true(udccp_tfrc_lh_p(&lh) > 0.0);
}

/* The lost-packet record after runs of every size: bit s % LATE_WIN holds
 * the last settled sequence number s with that residue: 1 for a lost data
 * packet, 0 for one received or counted non-data by the NDP Count of the
 * packet after its run (RFC 4340 §7.7: the last NDP numbers of the run).
 * Runs from 1 to past LATE_WIN, at every bit offset, with NDP Counts from 0
 * to past the run, across the wrap of the 48-bit sequence space.  The record
 * is written a byte at a time (a peer's sequence jump costs a bounded
 * memset, issue 12), so its edges are what this checks. */
static void test_rfc5348_5_1_lost_record_runs(void **state) {
  static const uint64_t runs[] = {1, 5, 13, 700, 1500, 9, 2049, 8, 1024, 3,
                                  1031, 17, 64, 1};
  static const uint32_t ndps[] = {0, 2, 20, 5, 1000, 0, 7, 8, 0, 1,
                                  1030, 16, 63, 0};
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  uint8_t want[UDCCP_TFRC_LATE_WIN / 8];
  uint64_t s = UDCCP_SEQ_MASK - 2500, t = 1, k;
  size_t i;
  (void)state;
  memset(want, 0, sizeof(want));
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  for (k = 0; k < 10; k++, s = (s + 1) & UDCCP_SEQ_MASK) {
    rx(&lh, &c, s, t * MS, (uint8_t)((t / 4) & 15));
    t++;
  }
  for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
    uint64_t nd = ndps[i] < runs[i] ? ndps[i] : runs[i];
    for (k = 0; k < runs[i]; k++, s = (s + 1) & UDCCP_SEQ_MASK) {
      uint32_t b = (uint32_t)(s % UDCCP_TFRC_LATE_WIN);
      if (k < runs[i] - nd) {
        want[b >> 3] = (uint8_t)(want[b >> 3] | (1u << (b & 7u)));
      } else {
        want[b >> 3] = (uint8_t)(want[b >> 3] & ~(1u << (b & 7u)));
      }
    }
    /* the packet after the run, then in-order ones */
    for (k = 0; k < 5 + i; k++, s = (s + 1) & UDCCP_SEQ_MASK) {
      uint32_t b = (uint32_t)(s % UDCCP_TFRC_LATE_WIN);
      want[b >> 3] = (uint8_t)(want[b >> 3] & ~(1u << (b & 7u)));
      rx_full(&lh, &c, s, t * MS, (uint8_t)((t / 4) & 15), 2, 1,
              k == 0 ? ndps[i] : 0);
      t++;
    }
  }
  /* NDUPACK more settle everything before them; they are not compared */
  for (k = 0; k < 4; k++, s = (s + 1) & UDCCP_SEQ_MASK) {
    rx(&lh, &c, s, t * MS, (uint8_t)((t / 4) & 15));
    t++;
  }
  for (k = 1; k <= 4; k++) {
    uint32_t b = (uint32_t)(((s - k) & UDCCP_SEQ_MASK) % UDCCP_TFRC_LATE_WIN);
    want[b >> 3] = (uint8_t)(want[b >> 3] & ~(1u << (b & 7u)));
    lh.lost_bits[b >> 3] = (uint8_t)(lh.lost_bits[b >> 3] & ~(1u << (b & 7u)));
  }
  for (i = 0; i < sizeof(want); i++) {
    if (lh.lost_bits[i] != want[i]) {
      fail_msg("lost record byte %zu: 0x%02x, want 0x%02x", i,
               lh.lost_bits[i], want[i]);
    }
  }
}

/* ---------------------------------------------------- TFRC-SP (CCID 4) */

/* RFC 4828 §4.4: a short interval of N packets with K losses counts N/K.
 * Intervals 12 | 8 (3 drops, short) 30 (long): standard p = 2/(8+30)... */
static void test_rfc4828_4_4_short_intervals_count_losses(void **state) {
  udccp_tfrc_li_info li[3];
  uint8_t is_short[3] = {0, 1, 0};
  (void)state;
  memset(li, 0, sizeof(li));
  li[0].data_len = 12;
  li[1].data_len = 8;
  li[1].drops = 4;
  li[2].data_len = 30;
  /* standard: I_tot0 = 12+8 = 20, I_tot1 = 8+30 = 38, p = 2/38 */
  assert_true(udccp_tfrc_li_calc_p(li, 3, NULL, 0) == 2.0 / 38.0);
  /* SP: I_1 = 8/4 = 2: I_tot0 = 14, I_tot1 = 32 -> p = 2/32 */
  assert_true(udccp_tfrc_li_calc_p(li, 3, is_short, 1) == 2.0 / 32.0);
  /* SP with I_0 short too: only I_tot1 */
  is_short[0] = 1;
  li[0].data_len = 1000;
  assert_true(udccp_tfrc_li_calc_p(li, 3, is_short, 1) == 2.0 / 32.0);
  /* drops 0 treated as 1 */
  li[1].drops = 0;
  assert_true(udccp_tfrc_li_calc_p(li, 3, is_short, 1) == 2.0 / 38.0);
}

/* The receiver in SP mode: heavy loss in short intervals gives a higher p
 * than standard TFRC on the same packets; the 2-RTT test uses counters. */
static void test_rfc4828_3_receiver_short_intervals(void **state) {
  udccp_tfrc_lh std, sp;
  udccp_tfrc_rx_ctx c = ctx_default();
  uint64_t s;
  (void)state;
  udccp_tfrc_lh_init(&std, UDCCP_TFRC_LH_CCVAL, 0, 0);
  udccp_tfrc_lh_init(&sp, UDCCP_TFRC_LH_CCVAL, 1, 0);
  /* ccval = s/4: each quarter RTT 4 packets; lose 2 of every 24 (within
   * one RTT), i.e. intervals of 24 packets = 6 counters < 8: short */
  for (s = 1; s <= 24 * 12; s++) {
    if (s > 24 && (s % 24 == 0 || s % 24 == 2)) {
      continue;
    }
    rx(&std, &c, s, s * MS, (uint8_t)((s / 4) & 15));
    rx(&sp, &c, s, s * MS, (uint8_t)((s / 4) & 15));
  }
  assert_int_equal(std.n_events, sp.n_events);
  assert_true(sp.n_events >= 9);
  assert_int_equal(sp.li[1].drops, 2);
  assert_false(sp.li[1].is_long);
  printf("p standard %.5f, TFRC-SP %.5f\n", udccp_tfrc_lh_p(&std),
         udccp_tfrc_lh_p(&sp));
  /* closed intervals are 24 data packets with 2 drops: standard p = 1/24
   * (I_0 can only raise I_mean), SP p = 2/24 with I_0 left out */
  assert_true(fabs(udccp_tfrc_lh_p(&std) - 1.0 / 24.0) < 1e-3);
  assert_true(fabs(udccp_tfrc_lh_p(&sp) - 2.0 / 24.0) < 1e-12);
}

/* ---------------------------------------------------------- §5.5 */

/* After a loss period, a long loss-free run: discounting lets p fall
 * faster than without, and DF stays >= THRESHOLD. */
static void test_rfc5348_5_5_history_discounting(void **state) {
  udccp_tfrc_lh plain, disc;
  udccp_tfrc_rx_ctx c = ctx_default();
  uint64_t s;
  (void)state;
  udccp_tfrc_lh_init(&plain, UDCCP_TFRC_LH_CCVAL, 0, 0);
  udccp_tfrc_lh_init(&disc, UDCCP_TFRC_LH_CCVAL, 0, 1);
  c.x_recv_max = udccp_tfrc_calc_x(c.s, c.rtt, 0.01);
  for (s = 1; s <= 2000; s++) {
    if (s <= 1000 && s % 100 == 0) {
      continue; /* 10 intervals of ~100 */
    }
    rx(&plain, &c, s, s * MS, (uint8_t)((s / 4) & 15));
    rx(&disc, &c, s, s * MS, (uint8_t)((s / 4) & 15));
    if (s == 950) {
      assert_true(udccp_tfrc_lh_p(&plain) == udccp_tfrc_lh_p(&disc));
      assert_true(disc.df == 1.0);
    }
  }
  printf("after 1000 loss-free: p plain %.6f, discounted %.6f, DF %.3f\n",
         udccp_tfrc_lh_p(&plain), udccp_tfrc_lh_p(&disc), disc.df);
  assert_true(udccp_tfrc_lh_p(&disc) < udccp_tfrc_lh_p(&plain));
  assert_true(disc.df >= UDCCP_TFRC_DF_THRESHOLD && disc.df < 1.0);
  /* I_0 ~ 1100 vs I_mean 100: DF = 2*100/1100 < 0.25 -> THRESHOLD */
  assert_true(disc.df == UDCCP_TFRC_DF_THRESHOLD);
  /* a new loss folds DF into the older DF_i */
  rx(&disc, &c, 2002, 2002 * MS, 0);
  rx(&disc, &c, 2003, 2003 * MS, 0);
  rx(&disc, &c, 2004, 2004 * MS, 0);
  assert_true(disc.li[1].df == 1.0);
  assert_true(disc.li[2].df == UDCCP_TFRC_DF_THRESHOLD);
}

/* Sequence numbers wrap at 2^48 without false losses. */
static void test_rfc4340_7_1_wraparound(void **state) {
  udccp_tfrc_lh lh;
  udccp_tfrc_rx_ctx c = ctx_default();
  uint64_t s, base = UDCCP_SEQ_MASK - 10;
  unsigned f = 0;
  (void)state;
  udccp_tfrc_lh_init(&lh, UDCCP_TFRC_LH_CCVAL, 0, 0);
  for (s = 0; s < 30; s++) {
    if (s == 15) {
      continue; /* seq 4 after the wrap */
    }
    f |= rx(&lh, &c, base + s, s * MS, 0);
  }
  assert_true(f & UDCCP_TFRC_LH_NEW_EVENT);
  assert_int_equal(lh.n_lost, 1);
  assert_int_equal(lh.li[0].seq_start, 4);
  assert_int_equal(lh.li[1].seq_len, 15);
  assert_int_equal(lh.last, (base + 29) & UDCCP_SEQ_MASK);
}

/* RFC 4342 §8.1's example (with K = 14, so the counter wraps):
 *   time  T1  T2  T3 T4  T5   T6  T7  T8  T9
 *   CCVal K-1 K-1 K  K   K+1  K+3 K+4 K+3 K+4
 * ends with the estimate T7 - T3 (D = 4). */
static void test_rfc4342_8_1_receiver_rtt_from_ccval(void **state) {
  udccp_tfrc_wc_rtt w;
  static const uint8_t cc[9] = {13, 13, 14, 14, 15, 1, 2, 1, 2};
  static const udccp_tstamp tm[9] = {10, 20, 30, 35, 50, 100, 110, 120, 130};
  udccp_tstamp got[9];
  int i;
  (void)state;
  udccp_tfrc_wc_rtt_init(&w);
  for (i = 0; i < 9; i++) {
    got[i] = udccp_tfrc_wc_rtt_add(&w, cc[i], tm[i] * MS);
  }
  assert_int_equal(got[5], 90 * MS); /* K+3 vs K-1: T6 - T1 */
  assert_int_equal(got[6], 80 * MS); /* K+4 vs K: T7 - T3 */
  assert_int_equal(got[7], 0);       /* reordered, ignored */
  assert_int_equal(got[8], 0);       /* same counter */
  assert_int_equal(w.rtt, 80 * MS);
  /* D = 2 when K-4, K-3 are missing: (T(K) - T(K-2)) * 4/2 */
  udccp_tfrc_wc_rtt_init(&w);
  udccp_tfrc_wc_rtt_add(&w, 0, 0);
  assert_int_equal(udccp_tfrc_wc_rtt_add(&w, 2, 50 * MS), 100 * MS);
  /* D = 3: (T(3) - T(0)) * 4/3 once 1 and 2 were skipped */
  udccp_tfrc_wc_rtt_init(&w);
  udccp_tfrc_wc_rtt_add(&w, 0, 0);
  assert_int_equal(udccp_tfrc_wc_rtt_add(&w, 3, 30 * MS), 40 * MS);
  /* a value skipped on this pass is not used from an older pass */
  udccp_tfrc_wc_rtt_init(&w);
  for (i = 0; i <= 16; i++) {
    udccp_tfrc_wc_rtt_add(&w, (uint8_t)i, (udccp_tstamp)i * MS);
  }
  /* now at 0 (t=16 ms); jump to 5 skipping 1..4: 5-4=1 invalid, 5-3=2
   * invalid, 5-2=3 invalid -> no estimate */
  assert_int_equal(udccp_tfrc_wc_rtt_add(&w, 5, 40 * MS), 0);
}

static uint64_t xs(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Hostile inputs under UBSan: sequence jumps of every size (also
 * backwards), times going backwards, R of 0 and 2^64-1, NaN/infinite
 * X_recv, NDP Counts up to 2^32-1, every ECN codepoint.  p stays in [0, 1],
 * at most NDUPACK-1 packets wait, and every option written parses back. */
static void test_rfc5348_5_extremes_no_ub(void **state) {
  static const udccp_tstamp rtts[] = {0, 1, 10 * US, 100 * MS, UINT64_MAX};
  static const double xr[] = {0.0, 1.0, 1e6, 1e300, INFINITY, NAN, -5.0};
  uint64_t rnd = 88172645463325252ULL;
  int mode, i;
  (void)state;
  for (mode = 0; mode < 8; mode++) {
    udccp_tfrc_lh lh;
    uint64_t seq = xs(&rnd) & UDCCP_SEQ_MASK;
    udccp_tstamp ts = xs(&rnd) >> 2;
    udccp_tfrc_lh_init(&lh, mode & 1, (mode >> 1) & 1, (mode >> 2) & 1);
    for (i = 0; i < 20000; i++) {
      udccp_tfrc_rx_pkt p;
      udccp_tfrc_rx_ctx c;
      uint64_t r = xs(&rnd);
      uint8_t buf[1 + 9 * UDCCP_TFRC_LI_MAX], dp[3 * UDCCP_TFRC_LI_MAX];
      udccp_tfrc_li_info li[UDCCP_TFRC_LI_MAX];
      udccp_ssize n;
      size_t nli;
      uint8_t skip;
      double pv;
      switch (r % 16) {
      case 0: seq += r >> 20; break;                  /* huge jump */
      case 1: seq -= (r >> 8) % 8; break;             /* backwards */
      case 2: case 3: seq += 2 + (r >> 8) % 4; break; /* small gap */
      default: seq += 1; break;
      }
      seq &= UDCCP_SEQ_MASK;
      ts += (r >> 4) % 16 == 0 ? (r >> 3) : (r >> 40);
      if ((r >> 9) % 64 == 0) {
        ts -= r >> 50; /* clock steps back */
      }
      p.seq = seq;
      p.ts = ts;
      p.ccval = (uint8_t)(r >> 33);
      p.ecn = (uint8_t)(r >> 37);
      p.is_data = (uint8_t)((r >> 39) % 4 != 0);
      p.ndp = (r >> 41) % 8 == 0 ? (uint32_t)(r >> 32) : 0;
      c.rtt = rtts[(r >> 45) % 5];
      c.x_recv_max = xr[(r >> 48) % 7];
      c.s = (uint32_t)((r >> 51) % 3 == 0 ? 0 : (r >> 51) % 65536);
      c.x_recv_now = NULL;
      c.x_recv_ud = NULL;
      udccp_tfrc_lh_add(&lh, &p, &c);
      assert_true(lh.n_pend < UDCCP_TFRC_NDUPACK);
      pv = udccp_tfrc_lh_p(&lh);
      assert_true(pv >= 0.0 && pv <= 1.0);
      n = udccp_tfrc_lh_write_li(&lh, lh.seq_max, buf, sizeof(buf), 0);
      assert_true(n == (udccp_ssize)(1 + 9 * lh.n_li));
      assert_int_equal(udccp_tfrc_li_parse(buf, (size_t)n, lh.seq_max, li,
                                           UDCCP_TFRC_LI_MAX, &nli, &skip), 0);
      assert_int_equal(nli, lh.n_li);
      n = udccp_tfrc_lh_write_dp(&lh, dp, sizeof(dp), 0);
      assert_int_equal(udccp_tfrc_dp_apply(dp, (size_t)n, li, nli), 0);
      pv = udccp_tfrc_li_calc_p(li, nli, NULL, 0);
      assert_true(pv >= 0.0 && pv <= 1.0);
    }
  }
}

/* udccp_tfrc_lh_add_next (the inline in-order case the CCID 3 receiver
 * tries first) must leave the history exactly as udccp_tfrc_lh_add does,
 * and must decline what it does not cover: a packet above a hole, a CE
 * mark on data (RFC 5348 §5.1), anything after the first loss event.
 * Two histories take the same packets, one through add_next with add as
 * the fallback, one through add alone; their states are compared field
 * by field after every packet. */
static void assert_lh_same(const udccp_tfrc_lh *a, const udccp_tfrc_lh *b) {
  assert_int_equal(a->started, b->started);
  assert_int_equal(a->last, b->last);
  assert_int_equal(a->seq_max, b->seq_max);
  assert_int_equal(a->prev.seq, b->prev.seq);
  assert_int_equal(a->prev.ts, b->prev.ts);
  assert_int_equal(a->prev.ndp, b->prev.ndp);
  assert_int_equal(a->prev.ccval, b->prev.ccval);
  assert_int_equal(a->prev.ecn, b->prev.ecn);
  assert_int_equal(a->prev.is_data, b->prev.is_data);
  assert_int_equal(a->prev_cc, b->prev_cc);
  assert_int_equal(a->n_pend, b->n_pend);
  assert_intervals_same(a, b);
  assert_int_equal(a->rtt, b->rtt);
  assert_int_equal(a->n_lost, b->n_lost);
  assert_int_equal(a->n_marked, b->n_marked);
  assert_int_equal(a->n_late, b->n_late);
  assert_true(a->df == b->df);
}

static void test_rfc5348_5_1_inline_in_order_case_matches_add(void **state) {
  udccp_tfrc_lh fast, ref;
  udccp_tfrc_rx_ctx c = ctx_default();
  /* seq offsets from 100: in order with ECT(1), ECT(0), a non-data
   * packet and a CE mark on one (no loss: RFC 4342 §6.1), a reordering
   * within NDUPACK (7 before 6), in order again, a CE mark on data (the
   * first loss event), and after it a hole (12) that NDUPACK packets
   * declare lost */
  static const struct {
    uint64_t seq;
    uint8_t ecn, is_data;
    unsigned want_fast; /* 1: add_next takes it */
  } in[] = {
      {0, 2, 1, 0},  {1, 1, 1, 1},  {2, 1, 1, 1},  {3, 2, 0, 1},
      {4, 2, 1, 1},  {5, 3, 0, 1},  {7, 2, 1, 0},  {6, 2, 1, 0},
      {8, 2, 1, 1},  {9, 1, 1, 1},  {10, 3, 1, 0}, {11, 2, 1, 0},
      {13, 2, 1, 0}, {14, 2, 1, 0}, {15, 1, 1, 0}, {16, 2, 0, 0},
  };
  size_t i;
  unsigned nfast = 0;
  (void)state;
  udccp_tfrc_lh_init(&fast, UDCCP_TFRC_LH_CCVAL, 0, 1);
  udccp_tfrc_lh_init(&ref, UDCCP_TFRC_LH_CCVAL, 0, 1);
  for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
    udccp_tfrc_rx_pkt p;
    unsigned f, fr;
    p.seq = 100 + in[i].seq;
    p.ts = (udccp_tstamp)(i + 1) * MS;
    p.ccval = (uint8_t)((i / 2) & 15);
    p.ecn = in[i].ecn;
    p.is_data = in[i].is_data;
    p.ndp = 0;
    f = udccp_tfrc_lh_add_next(&fast, &p, c.rtt);
    assert_int_equal(f != 0, in[i].want_fast);
    if (f == 0) {
      f = udccp_tfrc_lh_add(&fast, &p, &c);
    } else {
      nfast++;
    }
    fr = udccp_tfrc_lh_add(&ref, &p, &c);
    assert_int_equal(f, fr);
    assert_lh_same(&fast, &ref);
  }
  assert_true(ref.have_loss);
  assert_int_equal(ref.n_lost, 1);   /* 112 */
  assert_int_equal(ref.n_marked, 1); /* 110 */
  assert_int_equal(nfast, 7);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc5348_5_4_loss_interval_weights),
      cmocka_unit_test(test_rfc5348_5_4_i_mean_exact),
      cmocka_unit_test(test_rfc4828_3_short_i0_left_out),
      cmocka_unit_test(test_rfc5348_5_5_discounting_formula),
      cmocka_unit_test(test_rfc5348_5_1_reorder_within_ndupack_not_loss),
      cmocka_unit_test(test_rfc5348_5_1_loss_after_ndupack),
      cmocka_unit_test(test_rfc5348_5_1_duplicate_pending),
      cmocka_unit_test(test_rfc5348_5_1_ecn_mark_immediate),
      cmocka_unit_test(test_rfc5348_5_1_inline_in_order_case_matches_add),
      cmocka_unit_test(test_rfc4342_6_1_ndp_count_lost_nondata),
      cmocka_unit_test(test_rfc4342_10_2_ccval_loss_events),
      cmocka_unit_test(test_rfc4342_10_2_nondata_ccval_ignored),
      cmocka_unit_test(test_rfc5348_5_2_rtt_loss_events),
      cmocka_unit_test(test_rfc5348_5_2_interpolated_run),
      cmocka_unit_test(test_rfc5348_5_2_huge_gap_bounded),
      cmocka_unit_test(test_rfc5348_5_3_interval_sizes),
      cmocka_unit_test(test_rfc5348_6_3_1_first_interval_synthesis),
      cmocka_unit_test(test_rfc4342_8_6_2_loss_intervals_example),
      cmocka_unit_test(test_rfc4342_8_6_1_parse_and_sender_p),
      cmocka_unit_test(test_rfc4342_6_1_1_before_first_loss),
      cmocka_unit_test(test_rfc4342_8_6_1_nonce_echo_lossless_part),
      cmocka_unit_test(test_rfc4828_4_4_short_intervals_count_losses),
      cmocka_unit_test(test_rfc4828_3_receiver_short_intervals),
      cmocka_unit_test(test_rfc5348_5_5_history_discounting),
      cmocka_unit_test(test_rfc4340_7_1_wraparound),
      cmocka_unit_test(test_rfc4342_8_1_receiver_rtt_from_ccval),
      cmocka_unit_test(test_rfc5348_5_extremes_no_ub),
      cmocka_unit_test(test_rfc5348_5_1_late_packet_undoes_its_event),
      cmocka_unit_test(test_rfc5348_5_1_late_packet_undoes_first_loss),
      cmocka_unit_test(test_rfc5348_5_1_late_packet_partial_and_marked),
      cmocka_unit_test(test_rfc5348_5_1_late_packet_too_late),
      cmocka_unit_test(test_rfc5348_5_1_lost_record_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

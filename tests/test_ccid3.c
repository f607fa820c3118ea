/* SPDX-License-Identifier: MIT */
/*
 * CCID 3 (lib/ccid3.c; RFC 4342 with RFC 5348).  The halves are driven
 * directly, without a connection: data packets built from fields,
 * feedback options written by the real receiver half (or built by fields)
 * and parsed by the real option parser, and a virtual-time loop.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ackvec.h"
#include "ccid.h"
#include "ccid3.h"
#include "conn.h"
#include "feat.h"
#include "pair.h"
#include "pktbuild.h"
#include "opt.h"
#include "tfrc_eq.h"
#include "tfrc_lh.h"
#include "tfrcloop.h"

#define MS UDCCP_NS_PER_MS
#define US 1000ULL
#define RTT (100 * MS)

static udccp_conn_info tx_info(tl_half *tx) {
  udccp_conn_info i;
  memset(&i, 0, sizeof(i));
  tx->ops->tx_get_info(&tx->st, &i);
  return i;
}

static double tx_x(tl_half *tx) {
  return udccp_tfrc_tx_rate(udccp_tfrc_ccid_tx_tfrc(&tx->st));
}

static uint64_t get_be(const uint8_t *p, size_t n) {
  uint64_t v = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    v = (v << 8) | p[i];
  }
  return v;
}

static const udccp_opt *find_opt(const udccp_opts *o, uint8_t type) {
  size_t i;
  for (i = 0; i < o->n_ccid; i++) {
    if (o->ccid[i].type == type) {
      return &o->ccid[i];
    }
  }
  return NULL;
}

/* Ideal sender's counter: one step per quarter RTT since t = 0. */
static uint8_t ideal_cc(udccp_tstamp t, udccp_tstamp rtt) {
  return (uint8_t)((t / (rtt / 4)) & 15u);
}

/* A no-loss Loss Intervals option for a flow of n packets. */
static const tl_iv no_loss_iv = {10, 0, 0};

/* --------------------------------------------------------------- §8.1 */

static void test_rfc4342_8_1_ccval_quarter_rtt_increment(void **state) {
  tl_half tx;
  udccp_tstamp t;
  uint8_t cc, prev = 0;
  uint64_t seq = 1;
  int i;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  /* packets every 10 ms: the counter moves when 25 ms have passed since
   * the first packet with the current value, i.e. at 30, 60, 90 ms... */
  for (t = 0; t <= 300 * MS; t += 10 * MS) {
    cc = tl_send_data(&tx, seq++, 1000, t);
    assert_int_equal(cc, (uint8_t)((t / (30 * MS)) & 15u));
    prev = cc;
  }
  assert_int_equal(prev, 10);
  /* §8.1: after a long silence the counter moves by at most 5, and wraps
   * modulo 16 */
  for (i = 1; i <= 5; i++) {
    t += 1000 * MS;
    cc = tl_send_data(&tx, seq++, 1000, t);
    assert_int_equal(cc, (uint8_t)((prev + 5) & 15u));
    prev = cc;
  }
  assert_int_equal(prev, (10 + 25) % 16);
  tl_tx_exit(&tx);
}

static void test_rfc4342_8_1_ack_raises_ccval_to_wc_plus_4(void **state) {
  tl_half tx;
  tl_ack a;
  uint8_t c1, c2, c3;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  c1 = tl_send_data(&tx, 1, 1000, 0);
  c2 = tl_send_data(&tx, 2, 1000, 10 * MS);
  assert_int_equal(c1, 0);
  assert_int_equal(c2, 0);
  /* an acknowledgement of packet 1 (counter 0), not even feedback */
  assert_int_equal(tl_fb_build(&a, 900, 1, 0, 0, NULL, 0, UINT64_MAX, 0), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 12 * MS), 0);
  c3 = tl_send_data(&tx, 3, 1000, 13 * MS);
  assert_int_equal(c3, 4); /* WC + 4, and only 4 above the previous */
  assert_int_equal(tl_send_data(&tx, 4, 1000, 14 * MS), 4);
  tl_tx_exit(&tx);
}

/* ------------------------------------------------------ sender rates */

static void test_rfc4342_8_2_rtt_sample_subtracts_elapsed_time(void **state) {
  tl_half tx;
  tl_ack a;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, 0, 0), 0);
  (void)tl_send_data(&tx, 7, 1000, 0);
  /* the receiver held the ack 50 ms (5000 x 10 us) */
  assert_int_equal(
      tl_fb_build(&a, 900, 7, 5000, 0, &no_loss_iv, 1, 0, 0), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 150 * MS), 0);
  assert_int_equal(tx_info(&tx).srtt, 100 * MS);
  assert_int_equal(tx.env.srtt, 100 * MS);
  /* RFC 4342 §5: the first RTT gives the RFC 3390 initial rate */
  assert_true(fabs(tx_x(&tx) - 4000.0 / 0.1) < 1e-6);
  tl_tx_exit(&tx);
}

/* RFC 5348 §4.3 step 1 with a round trip shorter than the caller's clock
 * resolution (a millisecond event-loop clock on loopback): the feedback
 * comes at the very time its packet left, and the sample reads 0.  It was
 * no sample at all, and a sender whose every sample read 0 never had an
 * RTT: X stayed at the no-feedback rate of one packet a second (§4.2).
 * Now it counts as UDCCP_CCID3_RTT_ZERO_SAMPLE.  An Elapsed Time as long
 * as the round trip or longer still gives no sample. */
static void test_rfc5348_4_3_rtt_sample_below_clock_resolution(void **state) {
  tl_half tx;
  tl_ack a;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, 0, 0), 0);
  (void)tl_send_data(&tx, 7, 1000, 5 * MS);
  assert_int_equal(
      tl_fb_build(&a, 900, 7, 100, 0, &no_loss_iv, 1, 0, 0), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 5 * MS), 0);
  assert_int_equal(tx_info(&tx).srtt, 0); /* 1 ms held in 0: bogus */
  (void)tl_send_data(&tx, 8, 1000, 6 * MS);
  assert_int_equal(tl_fb_build(&a, 901, 8, 0, 0, &no_loss_iv, 1, 0, 0), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 6 * MS), 0);
  assert_int_equal(tx_info(&tx).srtt, UDCCP_CCID3_RTT_ZERO_SAMPLE);
  /* RFC 4342 §5: the first RTT gives the RFC 3390 initial rate */
  assert_true(fabs(tx_x(&tx) - 4000.0 * 1e9 / UDCCP_CCID3_RTT_ZERO_SAMPLE) <
              1e-3);
  tl_tx_exit(&tx);
}

/* The same through a connection: no delay between the ends, so every ack
 * comes at the time of the packet it acknowledges.  The sender sent 1 to
 * 3 datagrams a second; now it keeps up with the application. */
static void test_rfc5348_4_3_zero_rtt_connection_sends(void **state) {
  udccp_pair p;
  udccp_settings cs, ss;
  uint64_t n;
  (void)state;
  udccp_settings_default(&cs);
  cs.ccid = 3;
  ss = cs;
  assert_int_equal(udccp_pair_init(&p, &cs, &ss, NULL, 6), 0);
  p.delay[0] = p.delay[1] = 0;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL,
                                   5 * UDCCP_NS_PER_S));
  /* a datagram of 1000 bytes every 10 ms for 2 s: 800 kbit/s */
  n = udccp_pair_stream(&p, 0, 1000, 10 * MS, 2 * UDCCP_NS_PER_S);
  printf("zero RTT: %llu of 200 datagrams in 2 s, srtt %llu ns\n",
         (unsigned long long)n, (unsigned long long)p.c[0]->env.srtt);
  assert_true(n >= 190);
  udccp_pair_free(&p);
}

static void test_rfc5348_4_3_rtt_samples_with_large_windows(void **state) {
  tl_half tx;
  tl_ack a;
  uint64_t seq;
  udccp_tstamp t = 0;
  int round;
  (void)state;
  /* 5000 packets per RTT: more than the initial history holds.  The first
   * report finds its packet overwritten (no sample; the history grows),
   * later ones give exact samples. */
  assert_int_equal(tl_tx_init(&tx, 3, 1000, 0, 0), 0);
  for (round = 0, seq = 1; round < 4; round++) {
    uint64_t first = seq;
    udccp_tstamp t_first = t;
    for (; seq < first + 5000; seq++, t += 10 * US) {
      (void)tl_send_data(&tx, seq, 1000, t);
    }
    assert_int_equal(tl_fb_build(&a, 900 + (uint64_t)round, first, 0, 0,
                                 &no_loss_iv, 1, 1000000, 0),
                     0);
    assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, t_first + 50 * MS),
                     0);
    if (round == 0) {
      assert_int_equal(tx_info(&tx).srtt, 0); /* no sample */
    } else {
      assert_int_equal(tx_info(&tx).srtt, 50 * MS);
    }
  }
  tl_tx_exit(&tx);
}

static void test_rfc5348_4_3_slow_start_doubles_per_feedback(void **state) {
  tl_half tx;
  tl_ack a;
  double x, x0;
  int k;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  /* reports about packets never sent: the formula alone */
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  x0 = tx_x(&tx);
  assert_true(fabs(x0 - 4000.0 / 0.1) < 1e-6); /* min(4s, max(2s, 4380))/R */
  for (k = 1; k <= 5; k++) {
    udccp_tstamp t = (udccp_tstamp)(2 * k) * RTT;
    x = tx_x(&tx);
    (void)tl_send_data(&tx, (uint64_t)k, 1000, t);
    /* the receiver saw the whole rate: 2 * X_recv does not limit */
    assert_int_equal(tl_fb_build(&a, 900 + (uint64_t)k, (uint64_t)k, 0, 0,
                                 &no_loss_iv, 1, (uint64_t)x, 0),
                     0);
    assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, t + RTT), 0);
    assert_true(fabs(tx_x(&tx) - 2.0 * x) < 1e-6 * x);
  }
  assert_true(fabs(tx_x(&tx) - 32.0 * x0) < 1e-6 * x0);
  assert_true(tx_info(&tx).p == 0.0);
  tl_tx_exit(&tx);
}

/* Feedback for packet 50 sent at 0, arriving at RTT: 8 closed intervals
 * of 100 data packets and an open one of 20 give p = 1/100. */
static void feed_loss(tl_half *tx, udccp_tstamp t_send) {
  tl_ack a;
  tl_iv iv[9];
  int i;
  (void)tl_send_data(tx, 50, 1000, t_send);
  iv[0] = (tl_iv){19, 1, 20};
  for (i = 1; i < 9; i++) {
    iv[i] = (tl_iv){99, 1, 100};
  }
  assert_int_equal(tl_fb_build(&a, 901, 50, 0, 0, iv, 9, 1000000, 0), 0);
  assert_int_equal(tx->ops->tx_on_pkt(&tx->st, &a.pkt, t_send + RTT), 0);
}

static void test_rfc5348_4_3_equation_rate_after_loss(void **state) {
  tl_half tx;
  udccp_conn_info i;
  double want;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  /* reports about packets never sent: the formula alone */
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  feed_loss(&tx, 0);
  i = tx_info(&tx);
  assert_true(fabs(i.p - 0.01) < 1e-12);
  want = udccp_tfrc_calc_x(1000, RTT, 0.01);
  printf("X = %.1f B/s, equation %.1f B/s, t_ipi %llu ns\n", tx_x(&tx), want,
         (unsigned long long)i.t_ipi);
  assert_true(fabs(tx_x(&tx) - want) < 1e-9 * want);
  assert_int_equal(i.x_calc, udccp_tfrc_x_to_u64(want));
  assert_int_equal(i.t_ipi, udccp_tfrc_t_ipi(1000, want));
  tl_tx_exit(&tx);
}

/* RFC 5348 §4.5 (SHOULD be implemented): the CCID 3 sender paces at X_inst
 * = X * R_sqmean / sqrt(R_sample).  A sample twice the long-term RTT (a
 * queue building up) slows the packets at once, while R, and X from the
 * equation at R, move only by a tenth of the difference. */
static void test_rfc5348_4_5_ccid3_reduces_oscillations(void **state) {
  tl_half tx;
  tl_ack a;
  tl_iv iv[9];
  const udccp_tfrc_tx *t;
  double sq, want_x, want_inst;
  int i;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  /* reports about packets never sent: the formula alone */
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  feed_loss(&tx, 0); /* R_sample = R = 100 ms: X_inst = X */
  t = udccp_tfrc_ccid_tx_tfrc(&tx.st);
  assert_true(fabs(tx_x(&tx) - t->x) < 1e-9 * t->x);
  /* packet 60 sent at 1 s, acknowledged 2 RTT later */
  (void)tl_send_data(&tx, 60, 1000, 1000 * MS);
  iv[0] = (tl_iv){29, 1, 30};
  for (i = 1; i < 9; i++) {
    iv[i] = (tl_iv){99, 1, 100};
  }
  assert_int_equal(tl_fb_build(&a, 902, 60, 0, 0, iv, 9, 1000000, 0), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 1000 * MS + 2 * RTT), 0);
  assert_int_equal(t->r, 110 * MS); /* 0.9 R + 0.1 R_sample */
  want_x = udccp_tfrc_calc_x(1000, 110 * MS, 0.01);
  sq = 0.9 * sqrt((double)RTT) + 0.1 * sqrt(2.0 * (double)RTT);
  want_inst = want_x * sq / sqrt(2.0 * (double)RTT);
  printf("X %.1f B/s, X_inst %.1f B/s (want %.1f)\n", t->x, tx_x(&tx),
         want_inst);
  assert_true(fabs(t->x - want_x) < 1e-9 * want_x);
  assert_true(fabs(tx_x(&tx) - want_inst) < 1e-9 * want_inst);
  assert_true(tx_x(&tx) < 0.8 * t->x);
  /* the packets go at X_inst */
  assert_int_equal(tx_info(&tx).t_ipi, udccp_tfrc_t_ipi(1000, tx_x(&tx)));
  tl_tx_exit(&tx);
}

static void test_rfc4342_8_5_loss_event_rate_only_feedback(void **state) {
  tl_half tx;
  tl_ack a;
  (void)state;
  /* Linux's CCID 3 receiver sends Loss Event Rate and Receive Rate only */
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  /* reports about packets never sent: the formula alone */
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  (void)tl_send_data(&tx, 5, 1000, 0);
  assert_int_equal(tl_fb_build(&a, 900, 5, UINT32_MAX, 0, NULL, 0, 1000000,
                               200),
                   0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, RTT), 0);
  assert_true(fabs(tx_info(&tx).p - 1.0 / 200.0) < 1e-15);
  assert_true(fabs(tx_x(&tx) - udccp_tfrc_calc_x(1000, RTT, 0.005)) < 1e-6);
  /* 2^32 - 1 means "no loss" */
  assert_true(udccp_ccid3_opt_to_p(UINT32_MAX) == 0.0);
  assert_int_equal(udccp_ccid3_p_to_opt(0.0), UINT32_MAX);
  assert_int_equal(udccp_ccid3_p_to_opt(1.0 / 3.0), 3);
  assert_int_equal(udccp_ccid3_p_to_opt(0.3), 4); /* rounded up */
  tl_tx_exit(&tx);
}

static void test_rfc4342_6_ack_without_receive_rate_is_not_feedback(
    void **state) {
  tl_half tx;
  tl_ack a;
  double x;
  udccp_tstamp exp;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  (void)tl_send_data(&tx, 5, 1000, 0);
  x = tx_x(&tx);
  exp = tx.ops->tx_get_expiry(&tx.st);
  assert_int_equal(tl_fb_build(&a, 900, 5, 0, 0, &no_loss_iv, 1, UINT64_MAX,
                               0),
                   0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, RTT), 0);
  assert_true(tx_x(&tx) == x);
  assert_int_equal(tx.ops->tx_get_expiry(&tx.st), exp);
  tl_tx_exit(&tx);
}

/* X after a loss report.  Round 1: packets every 25 ms (X = 40000 B/s,
 * all of it used), feedback without loss: X doubles to 80000 B/s (t_ipi
 * 12.5 ms).  Round 2: packets at send_ms after that feedback, then a
 * report of a new loss for the last of them, RTT later. */
static double x_after_loss(const unsigned *send_ms, size_t n) {
  tl_half tx;
  tl_ack a;
  tl_iv iv[2] = {{5, 1, 6}, {9999, 1, 10000}};
  udccp_tstamp t0 = UDCCP_NS_PER_S, t = 0, f1;
  uint64_t seq = 10;
  double x;
  size_t i;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, t0), 0);
  for (i = 0; i < 4; i++) {
    t = t0 + i * 25 * MS;
    (void)tl_send_data(&tx, seq++, 1000, t);
  }
  f1 = t + RTT;
  assert_int_equal(tl_fb_build(&a, 900, seq - 1, 0, 0, &no_loss_iv, 1,
                               40000, 0),
                   0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, f1), 0);
  assert_true(fabs(tx_x(&tx) - 80000.0) < 1e-6);
  for (i = 0; i < n; i++) {
    t = f1 + send_ms[i] * MS;
    (void)tl_send_data(&tx, seq++, 1000, t);
  }
  assert_int_equal(tl_fb_build(&a, 901, seq - 1, 0, 0, iv, 2, 40000, 0), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, t + RTT), 0);
  x = tx_x(&tx);
  tl_tx_exit(&tx);
  return x;
}

static void test_rfc5348_8_2_1_data_limited_sender_after_loss(void **state) {
  /* round 2 at the full rate (every 12 ms, the pacing allows 12.5 ms
   * after credit) or with one lone packet (data-limited) */
  static const unsigned busy[] = {0, 12, 24, 36, 48, 60, 72};
  static const unsigned lone[] = {60};
  double xb = x_after_loss(busy, 7), xl = x_after_loss(lone, 1);
  (void)state;
  printf("after a loss: rate-limited X %.0f, data-limited X %.0f\n", xb, xl);
  /* §4.3 step 4: not data-limited: min(X_Bps, 2 max(X_recv_set)) */
  assert_true(fabs(xb - 80000.0) < 1e-6);
  /* §4.3 step 4 with §8.2.1: data-limited and a new loss: X_recv_set
   * halved, then 0.85 X_recv */
  assert_true(fabs(xl - 0.85 * 40000.0) < 1e-6);
}

static void test_rfc5348_4_4_nofeedback_timer_halves_x(void **state) {
  tl_half tx;
  double x;
  udccp_tstamp exp;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  /* reports about packets never sent: the formula alone */
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  feed_loss(&tx, 0);
  x = tx_x(&tx);
  exp = tx.ops->tx_get_expiry(&tx.st);
  /* §4.3 step 6: max(4R, 2s/X) after the feedback */
  assert_int_equal(exp, RTT + 4 * RTT);
  (void)tl_send_data(&tx, 51, 1000, RTT + 10 * MS); /* not idle */
  tx.ops->tx_on_expiry(&tx.st, exp - 1);
  assert_true(tx_x(&tx) == x); /* not yet */
  tx.ops->tx_on_expiry(&tx.st, exp);
  assert_true(fabs(tx_x(&tx) - x / 2.0) < 1e-9 * x);
  assert_true(tx.ops->tx_get_expiry(&tx.st) > exp);
  tl_tx_exit(&tx);
}

static void test_rfc4342_5_1_idle_never_below_initial_rate(void **state) {
  tl_half tx;
  tl_ack a;
  double init;
  int k;
  udccp_tstamp t = 0;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  /* reports about packets never sent: the formula alone */
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  init = tx_x(&tx);
  for (k = 1; k <= 4; k++) { /* slow start to 16 x the initial rate */
    double x = tx_x(&tx);
    t = (udccp_tstamp)(2 * k) * RTT;
    (void)tl_send_data(&tx, (uint64_t)k, 1000, t);
    assert_int_equal(tl_fb_build(&a, 900 + (uint64_t)k, (uint64_t)k, 0, 0,
                                 &no_loss_iv, 1, (uint64_t)x, 0),
                     0);
    assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, t + RTT), 0);
  }
  assert_true(tx_x(&tx) > 8.0 * init);
  /* idle: the nofeedback timer keeps expiring, nothing is sent */
  for (k = 0; k < 20; k++) {
    udccp_tstamp e = tx.ops->tx_get_expiry(&tx.st);
    if (e == UDCCP_TSTAMP_NEVER) {
      break; /* at the floor: the timer rests */
    }
    t = e;
    tx.ops->tx_on_expiry(&tx.st, e);
    assert_true(tx_x(&tx) >= init - 1e-9);
  }
  assert_true(k >= 3 && k < 20); /* it halved down to the floor, stopped */
  assert_true(tx_x(&tx) < 2.0 * init);
  /* the next data packet restarts the timer: max(4R, 2s/X) from then */
  (void)tl_send_data(&tx, 99, 1000, t + 10 * RTT);
  assert_int_equal(tx.ops->tx_get_expiry(&tx.st), t + 10 * RTT + 4 * RTT);
  tl_tx_exit(&tx);
}

static void test_rfc5348_4_6_t_ipi_nonzero_and_exact_at_10gbit_5us(
    void **state) {
  tl_half tx;
  tl_ack a;
  udccp_conn_info i;
  udccp_tstamp t, nxt, rtt = 5 * US;
  uint64_t seq;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1460, rtt, 0), 0);
  /* reports about packets never sent: the formula alone */
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  (void)tl_send_data(&tx, 1, 1460, 0);
  assert_int_equal(tl_fb_build(&a, 900, 1, 0, 0, &no_loss_iv, 1,
                               1250000000ULL, 0),
                   0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, rtt), 0);
  i = tx_info(&tx);
  printf("X = %.3f Gbit/s, t_ipi = %llu ns\n", (double)i.x * 8e-9,
         (unsigned long long)i.t_ipi);
  assert_true((double)i.x * 8.0 >= 10e9);
  assert_true(i.t_ipi > 0);
  assert_int_equal(i.t_ipi, (udccp_tstamp)floor(1460.0 / tx_x(&tx) * 1e9 +
                                                0.5));
  /* §4.6: the allowed send times advance by exactly t_ipi per packet;
   * credit for unused times (at most one RTT) may let packets go at once,
   * after which they are spaced exactly t_ipi apart */
  t = rtt;
  nxt = tx.ops->tx_next_send(&tx.st, t);
  for (seq = 2; seq < 3000; seq++) {
    udccp_tstamp prev = nxt;
    if (t < nxt) {
      if (seq > 2000) {
        assert_int_equal(nxt - t, i.t_ipi); /* steady state */
      }
      t = nxt;
    }
    (void)tl_send_data(&tx, seq, 1460, t);
    nxt = tx.ops->tx_next_send(&tx.st, t);
    assert_int_equal(nxt - prev, i.t_ipi);
  }
  tl_tx_exit(&tx);
}

/* One fresh sender's first feedback (RFC 4342 §5: slow start, X = min(2X,
 * 2 X_recv) at least the initial rate), with extra options. */
/* RFC 5348 §4.3 / §8.3 in spirit: X_recv reports what the receiver saw,
 * which cannot exceed what we sent.  A receiver claiming 0xFFFFFFFF
 * bytes/s to a sender its application holds at 10 packets per RTT must
 * not raise X above twice that (before the cap: slow start doubled X
 * against 2 X_recv every RTT, to GB/s). */
static void test_rfc5348_4_3_receive_rate_lie_capped_at_twice_sent(
    void **state) {
  double x_capped, x_open, worst, worst_open;
  (void)state;
  worst = tl_rr_lie_ratio(3, 1000, 10, RTT, 40, 0, 1, &x_capped);
  worst_open = tl_rr_lie_ratio(3, 1000, 10, RTT, 40, 0, 0, &x_open);
  printf("X_recv 0xFFFFFFFF, 10 pkts/RTT sent: X %.0f B/s (ratio to "
         "2 X_sent %.3f); without the cap X %.3g B/s\n",
         x_capped, worst, x_open);
  assert_true(worst > 0.0 && worst <= 1.0 + 1e-9);
  assert_true(x_capped <= 2.0 * 10 * 1000 / 0.1 + 1e-6);
  /* the test sees the attack: without the cap the lie works */
  assert_true(worst_open > 100.0);
}

/* Elapsed Time lies (RFC 4342 §8.2: R_sample = t_now - t_recvdata -
 * t_delay) shrink our R estimate, nothing else: X stays within
 * max(2 X_sent, 4 x the initial rate at the true RTT).  X_sent is then
 * measured over quarter-RTT windows (R_raw_min/4), so a window holding one
 * packet more than the average (3 of 10 per RTT in 25 ms) reads up to
 * (k+1)/k times the per-RTT rate: 1.5 at most with 2+ packets a window. */
static void test_rfc4342_8_2_elapsed_time_lie_bounded(void **state) {
  double x, worst;
  (void)state;
  worst = tl_rr_lie_ratio(3, 1000, 10, RTT, 40, 1, 1, &x);
  printf("Elapsed Time lie (R_sample 10 us): X %.0f B/s, ratio %.3f\n", x,
         worst);
  assert_true(worst > 0.0 && worst <= 1.5 + 1e-9);
}

static double first_fb_x(uint64_t rr, const uint8_t *dd, size_t dd_len,
                         int slow, int twice) {
  tl_half tx;
  tl_ack a;
  double x;
  int k;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  /* reports about packets never sent: the formula alone */
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  for (k = 0; k <= twice; k++) {
    udccp_tstamp t = (udccp_tstamp)k * 2 * RTT;
    (void)tl_send_data(&tx, 100 + (uint64_t)k, 1000, t);
    assert_int_equal(tl_fb_build(&a, 900, 100 + (uint64_t)k, 0, 0,
                                 &no_loss_iv, 1, rr, 0),
                     0);
    if (dd) {
      assert_int_equal(tl_ack_add_opt(&a, UDCCP_OPT_DATA_DROPPED, 0, dd,
                                      dd_len),
                       0);
    }
    if (slow) {
      assert_int_equal(tl_ack_add_opt(&a, UDCCP_OPT_SLOW_RECEIVER, 0, NULL,
                                      0),
                       0);
    }
    assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, t + RTT), 0);
  }
  x = tx_x(&tx);
  tl_tx_exit(&tx);
  return x;
}

static void test_rfc4342_5_2_receive_buffer_drops_and_slow_receiver(
    void **state) {
  /* packet 100 received, 99 dropped in the receive buffer (code 2), 98
   * delivered, 97..95 dropped with code 2, 94 corrupt (code 3) */
  const uint8_t dd[] = {0x00, 0xA0, 0x00, 0xA2, 0xB0};
  (void)state;
  /* X0 = 40000 B/s; with X_recv 100000 B/s X doubles to 80000 */
  assert_true(fabs(first_fb_x(100000, NULL, 0, 0, 0) - 80000.0) < 1e-6);
  /* 4 receive-buffer drops, s/R = 10000: X_drop = 60000, X_recv = 30000:
   * X = 2 X_recv = X_drop */
  assert_true(fabs(first_fb_x(100000, dd, sizeof(dd), 0, 0) - 60000.0) <
              1e-6);
  /* Slow Receiver: X_drop = X_inrecv = 50000, so X is 50000, not 80000 */
  assert_true(fabs(first_fb_x(50000, NULL, 0, 0, 0) - 80000.0) < 1e-6);
  assert_true(fabs(first_fb_x(50000, NULL, 0, 1, 0) - 50000.0) < 1e-6);
}

static void test_rfc4342_5_2_drops_count_once(void **state) {
  const uint8_t dd[] = {0x00, 0xA0, 0x00, 0xA2};
  tl_half tx;
  tl_ack a;
  double x1;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  /* reports about packets never sent: the formula alone */
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  (void)tl_send_data(&tx, 100, 1000, 0);
  assert_int_equal(tl_fb_build(&a, 900, 100, 0, 0, &no_loss_iv, 1, 100000,
                               0),
                   0);
  assert_int_equal(tl_ack_add_opt(&a, UDCCP_OPT_DATA_DROPPED, 0, dd,
                                  sizeof(dd)),
                   0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, RTT), 0);
  x1 = tx_x(&tx);
  assert_true(fabs(x1 - 60000.0) < 1e-6);
  /* the same report again, one RTT later, with one packet more: the old
   * drops were counted already, so the rate doubles from X_recv = 100000
   * and the drop-limited X_recv of 30000 of the last round */
  (void)tl_send_data(&tx, 101, 1000, 2 * RTT);
  assert_int_equal(tl_fb_build(&a, 901, 101, 0, 0, &no_loss_iv, 1, 100000,
                               0),
                   0);
  {
    const uint8_t dd2[] = {0x01, 0xA0, 0x00, 0xA2};
    assert_int_equal(tl_ack_add_opt(&a, UDCCP_OPT_DATA_DROPPED, 0, dd2,
                                    sizeof(dd2)),
                     0);
  }
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 3 * RTT), 0);
  assert_true(fabs(tx_x(&tx) - 2.0 * x1) < 1e-6);
  tl_tx_exit(&tx);
}

/* ---------------------------------------------------------- receiver */

static void test_rfc5348_6_3_first_data_packet_gets_feedback(void **state) {
  tl_half rx;
  tl_ack a;
  const udccp_opt *o;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  /* an Ack from the peer is no reason for feedback */
  assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_ACK, 99, 0, 0, 0, 0), 0);
  assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, 100, 0, 0, 1000, MS), 1);
  assert_int_equal(tl_rx_ack(&rx, &a, 7, 100, 3 * MS), 0);
  /* §8.2 Elapsed Time: 2 ms since packet 100 */
  assert_true(a.opts.present & UDCCP_OPTS_HAS_ELAPSED);
  assert_int_equal(a.opts.elapsed_time, 200);
  o = find_opt(&a.opts, 194);
  assert_non_null(o);
  assert_int_equal(get_be(o->val, 4), 0); /* X_recv = 0 */
  o = find_opt(&a.opts, 192);
  assert_non_null(o);
  assert_int_equal(get_be(o->val, 4), UINT32_MAX); /* no loss yet */
  o = find_opt(&a.opts, 193);
  assert_non_null(o);
  assert_int_equal(o->len, 10);    /* Skip Length + one interval */
  assert_int_equal(o->val[0], 0);  /* nothing unsettled above it */
  assert_int_equal(get_be(o->val + 1, 3), 2); /* packets 99, 100 */
  assert_int_equal(get_be(o->val + 7, 3), 0); /* §6.1.1: 0 before loss */
  /* the half never writes on DCCP-Data */
  udccp_optbuf_init(&a.ob);
  assert_int_equal(rx.ops->rx_write_opts(&rx.st, &a.ob, UDCCP_PKT_DATA, 4),
                   0);
  assert_int_equal(a.ob.len, 0);
  tl_rx_exit(&rx);
}

/* Runs an ideal sender (packet every rtt/per_rtt, counter per quarter RTT)
 * into the receiver for n_rtt RTTs; packets with seq % loss_mod ==
 * loss_mod/2 are lost (loss_mod 0: none).  Acks are sent whenever the
 * receiver asks.  Returns the number of feedback packets. */
static unsigned drive_rx(tl_half *rx, udccp_tstamp rtt, unsigned per_rtt,
                         unsigned n_rtt, unsigned loss_mod,
                         udccp_tstamp *max_gap, uint64_t *last_seq) {
  unsigned fb = 0, k;
  udccp_tstamp t = 0, last_fb = 0, gap = 0;
  tl_ack a;
  uint64_t seq = 1000;
  for (k = 0; k < per_rtt * n_rtt; k++, seq++) {
    int due;
    t = (udccp_tstamp)k * rtt / per_rtt;
    if (t >= rx->ops->rx_get_expiry(&rx->st) &&
        rx->ops->rx_on_expiry(&rx->st, t) == 1) {
      assert_int_equal(tl_rx_ack(rx, &a, 1, seq - 1, t), 0);
      gap = t - last_fb > gap && fb > 0 ? t - last_fb : gap;
      last_fb = t;
      fb++;
    }
    if (loss_mod && seq % loss_mod == loss_mod / 2) {
      continue;
    }
    due = tl_rx_pkt(rx, UDCCP_PKT_DATA, seq, ideal_cc(t, rtt), 0, 1000, t);
    assert_true(due == 0 || due == 1);
    if (due) {
      assert_int_equal(tl_rx_ack(rx, &a, 1, seq, t), 0);
      gap = t - last_fb > gap && fb > 0 ? t - last_fb : gap;
      last_fb = t;
      fb++;
    }
  }
  if (max_gap) {
    *max_gap = gap;
  }
  if (last_seq) {
    *last_seq = seq - 1;
  }
  return fb;
}

static void test_rfc4342_10_3_feedback_once_per_rtt(void **state) {
  tl_half rx;
  unsigned fb;
  udccp_tstamp gap;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  fb = drive_rx(&rx, RTT, 20, 30, 0, &gap, NULL);
  printf("30 RTTs: %u feedback packets, largest gap %.1f ms\n", fb,
         (double)gap / 1e6);
  /* no loss: slow start, where a feedback may wait up to R/4 for the rate
   * of the sender's latest round (RFC 5348 §6.3.1; 3 packets over R/16
   * here take R/10) */
  assert_true(fb >= 26 && fb <= 32);
  assert_true(gap <= RTT + RTT / 4);
  /* the receiver learned R from the counters (§8.1) */
  assert_true(udccp_tfrc_ccid_rx_rtt(&rx.st) >= RTT * 9 / 10 &&
              udccp_tfrc_ccid_rx_rtt(&rx.st) <= RTT * 11 / 10);
  tl_rx_exit(&rx);
}

static void test_rfc4342_10_3_feedback_per_packet_below_one_per_rtt(
    void **state) {
  tl_half rx;
  udccp_tstamp t;
  uint64_t seq = 1;
  uint8_t cc = 0;
  tl_ack a;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  /* one packet every 2 RTTs: the counter moves by 5 each time */
  for (t = 0; t < 20 * RTT; t += 2 * RTT) {
    assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, seq++, cc, 0, 500, t), 1);
    assert_int_equal(tl_rx_ack(&rx, &a, 1, seq - 1, t), 0);
    cc = (uint8_t)((cc + 5) & 15u);
  }
  tl_rx_exit(&rx);
}

/* 20 packets of 1000 bytes per RTT (200000 B/s) for 20 RTTs, packets
 * 1..400, each feedback the receiver asks for sent at once.  Leaves *t at
 * the last packet's arrival; returns the time of the last feedback. */
static udccp_tstamp rx_steady_20_rtts(tl_half *rx, tl_ack *a,
                                      udccp_tstamp *t) {
  udccp_tstamp t_fb = 0;
  uint64_t seq;
  for (seq = 1; seq <= 400; seq++) {
    *t = (seq - 1) * (RTT / 20);
    if (tl_rx_pkt(rx, UDCCP_PKT_DATA, seq, ideal_cc(*t, RTT), 0, 1000, *t)) {
      assert_int_equal(tl_rx_ack(rx, a, 1, seq, *t), 0);
      t_fb = *t;
    }
  }
  return t_fb;
}

static void test_rfc5348_6_2_receive_rate_over_last_rtt(void **state) {
  tl_half rx;
  tl_ack a;
  const udccp_opt *o;
  uint64_t seq, rr;
  udccp_tstamp t = 0;
  int k;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  (void)rx_steady_20_rtts(&rx, &a, &t);
  seq = 401;
  assert_int_equal(tl_rx_ack(&rx, &a, 1, seq - 1, t), 0); /* feedback now */
  o = find_opt(&a.opts, 194);
  assert_non_null(o);
  rr = get_be(o->val, 4);
  assert_true(rr >= 190000 && rr <= 210000);
  /* a burst right after: packet 401 is lost, 402..405 arrive within 1 ms;
   * the new loss event asks for feedback at once (RFC 5348 §6.1) */
  for (k = 2; k <= 5; k++) {
    int due = tl_rx_pkt(&rx, UDCCP_PKT_DATA, 400 + (uint64_t)k,
                        ideal_cc(t, RTT), 0, 1000,
                        t + (udccp_tstamp)k * 250 * US);
    assert_int_equal(due, k == 4 ? 1 : 0);
    if (due) {
      assert_int_equal(tl_rx_ack(&rx, &a, 1, 404, t + MS), 0);
    }
  }
  /* X_recv is the rate over the last RTT, not over the 1 ms since the
   * last feedback (RFC 4342 erratum; 3 MB/s there) */
  o = find_opt(&a.opts, 194);
  assert_non_null(o);
  rr = get_be(o->val, 4);
  printf("Receive Rate after the burst: %llu B/s\n", (unsigned long long)rr);
  assert_true(rr >= 190000 && rr <= 260000);
  tl_rx_exit(&rx);
}

/* RFC 5348 §6.3.1: in slow start "the sender's sending rate is generally
 * twice the receiver's receive rate for data sent over the previous
 * round-trip time".  The sender doubles (20 -> 40 packets per RTT) when
 * our feedback reaches it; its new round reaches us one RTT after we sent
 * that feedback, and the first packet of it carries the counter that asks
 * for the next feedback (RFC 4342 §10.3).  The receiver waits for the
 * round's rate (3 packets over R/16, at most R/4) and reports it: 40
 * packets per RTT, not the 20 of the last RTT (§6.2), which held the
 * sender to doubling every other RTT. */
static void test_rfc5348_6_3_1_slow_start_reports_the_latest_round(
    void **state) {
  tl_half rx;
  tl_ack a;
  const udccp_opt *o;
  uint64_t seq, rr = 0;
  udccp_tstamp t = 0, t_fb = 0, t_sent = 0;
  int due;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  t_fb = rx_steady_20_rtts(&rx, &a, &t);
  seq = 401;
  /* the rate doubles for the packets sent after the last feedback
   * arrived: they arrive from t_fb + RTT on */
  for (; t < t_fb + 2 * RTT; seq++) {
    t += t < t_fb + RTT ? RTT / 20 : RTT / 40;
    due = tl_rx_pkt(&rx, UDCCP_PKT_DATA, seq, ideal_cc(t, RTT), 0, 1000, t);
    if (!due && t >= rx.ops->rx_get_expiry(&rx.st)) {
      due = rx.ops->rx_on_expiry(&rx.st, t);
    }
    if (due) {
      assert_int_equal(tl_rx_ack(&rx, &a, 1, seq, t), 0);
      o = find_opt(&a.opts, 194);
      assert_non_null(o);
      rr = get_be(o->val, 4);
      t_sent = t;
      break;
    }
  }
  printf("feedback %.1f ms after the round began: Receive Rate %llu B/s "
         "(the round 400000, the last RTT 200000..250000)\n",
         (double)(t_sent - t_fb - RTT) / 1e6, (unsigned long long)rr);
  assert_true(t_sent >= t_fb + RTT + RTT / 16);
  assert_true(t_sent <= t_fb + RTT + RTT / 4);
  assert_true(rr >= 380000 && rr <= 420000);
  tl_rx_exit(&rx);
}

/* The same, closed loop: sender and receiver halves, 50 ms RTT, no loss,
 * no bottleneck, 0.6 s from the first packet (1 packet/s until the first
 * feedback).  Doubling about once per RTT the sender ends near 650
 * packets per RTT; doubling every other RTT (X_recv over the last RTT
 * alone) near 150. */
static void test_rfc5348_4_3_slow_start_doubles_about_once_per_rtt(
    void **state) {
  tl_loop_cfg c;
  tl_loop_res r;
  (void)state;
  memset(&c, 0, sizeof(c));
  c.ccid = 3;
  c.s = 1000;
  c.mps = 1000;
  c.owd = 25 * MS;
  c.duration = 600 * MS;
  c.measure_from = 550 * MS;
  assert_int_equal(tl_loop_run(&c, &r), 0);
  printf("0.6 s of slow start at R = 50 ms: %llu packets sent, %.0f per "
         "RTT at the end, %llu feedback packets\n",
         (unsigned long long)r.sent, r.rate_Bps * 0.05 / 1000.0,
         (unsigned long long)r.feedbacks);
  assert_true(r.p_rx == 0.0);
  assert_true(r.rate_Bps * 0.05 / 1000.0 >= 400.0);
}

/* RFC 5348 §6.2: X_recv is over the previous R (back to the last feedback
 * timer expiry at least R ago, which keeps expiring every R through a
 * silence), so the first packet after a long silence reports at least one
 * packet per 2 R -- "a minimum value for the measured receive rate X_recv
 * of one packet per round-trip time" -- not one packet per silence, which
 * held the sender at its t_mbi floor for minutes after a blackout. */
static void test_rfc5348_6_2_receive_rate_after_silence_not_below_1_per_2rtt(
    void **state) {
  tl_half rx;
  tl_ack a;
  const udccp_opt *o;
  uint64_t seq, rr;
  udccp_tstamp t = 0, r;
  uint8_t cc;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  for (seq = 1; seq <= 400; seq++) {
    t = (seq - 1) * (RTT / 20);
    if (tl_rx_pkt(&rx, UDCCP_PKT_DATA, seq, ideal_cc(t, RTT), 0, 1000, t)) {
      assert_int_equal(tl_rx_ack(&rx, &a, 1, seq, t), 0);
    }
  }
  assert_int_equal(tl_rx_ack(&rx, &a, 1, seq - 1, t), 0);
  r = udccp_tfrc_ccid_rx_rtt_used(&rx.st);
  assert_true(r >= RTT * 9 / 10 && r <= RTT * 11 / 10);
  /* 30 s of silence (a blackout), then one packet: its counter is at most
   * 5 above the last one (RFC 4342 §8.1) */
  t += 30 * UDCCP_NS_PER_S;
  cc = (uint8_t)((ideal_cc(t - 30 * UDCCP_NS_PER_S, RTT) + 5) & 15u);
  assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, seq, cc, 0, 1000, t), 1);
  assert_int_equal(tl_rx_ack(&rx, &a, 1, seq, t), 0);
  o = find_opt(&a.opts, 194);
  assert_non_null(o);
  rr = get_be(o->val, 4);
  printf("Receive Rate for 1 packet after 30 s of silence (R %.0f ms): "
         "%llu B/s (one packet per silence: 33 B/s)\n", (double)r / 1e6,
         (unsigned long long)rr);
  /* one 1000-byte packet over [R, 2 R + R/8]: 4.7 .. 10 kB/s */
  assert_true(rr >= 1000 * 1000000000ull / (17 * r / 8));
  assert_true(rr <= 1000 * 1000000000ull / r + 1);
  tl_rx_exit(&rx);
}

static void test_rfc5348_5_4_receiver_p_from_known_loss_pattern(
    void **state) {
  tl_half rx;
  tl_ack a;
  const udccp_opt *o;
  const udccp_tfrc_lh *lh;
  uint64_t last;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  /* one loss every 100 packets = every 5 RTTs: separate events; after 12
   * of them, I_1..I_8 are all 100 data packets long */
  (void)drive_rx(&rx, RTT, 20, 61, 100, NULL, &last);
  lh = udccp_tfrc_ccid_rx_lh(&rx.st);
  assert_int_equal(lh->n_events, 12);
  assert_int_equal(lh->n_lost, 12);
  assert_true(fabs(udccp_tfrc_lh_p(lh) - 0.01) < 1e-12);
  assert_int_equal(tl_rx_ack(&rx, &a, 1, last, 61 * RTT), 0);
  o = find_opt(&a.opts, 192);
  assert_non_null(o);
  assert_int_equal(get_be(o->val, 4), 100); /* §8.5: 1/p */
  o = find_opt(&a.opts, 193);
  assert_non_null(o);
  assert_int_equal(o->len, 1 + 9 * 9); /* §8.6.1: NINTERVAL + 1 */
  assert_int_equal(get_be(o->val + 1 + 9 + 6, 3), 100); /* I_1 data */
  tl_rx_exit(&rx);
}

/* RFC 5348 §5.5 from a Loss Intervals option: the DF in force when each
 * interval closed is recomputed from it and the older ones.  I_0 = 5,
 * I_1 = 100, I_2 = I_3 = 10: when I_1 closed it was more than twice the
 * mean 10 of I_2, I_3, so they carry DF_i = 2 * 10 / 100 = 0.2, raised to
 * THRESHOLD = 0.25; I_1 keeps 1.  Then I_0 = 500 against I_mean = (100 * 5
 * + 10 * 5 * 0.25 * 2) / (5 + 5 * 0.25 * 2) = 70 gives DF = 140 / 500. */
static void test_rfc5348_5_5_discount_factors_from_loss_intervals(
    void **state) {
  const double len[4] = {5, 100, 10, 10}, len2[4] = {500, 100, 10, 10};
  double df[4], DF;
  udccp_tfrc_li_info li[4];
  int i;
  (void)state;
  udccp_tfrc_li_discount(len, 4, df, &DF);
  assert_true(df[0] == 1.0 && df[1] == 1.0);
  assert_true(df[2] == 0.25 && df[3] == 0.25);
  assert_true(DF == 1.0);
  udccp_tfrc_li_discount(len2, 4, df, &DF);
  assert_true(fabs(DF - 140.0 / 500.0) < 1e-15);
  /* p = min(W_tot0 / I_tot0, W_tot1 / I_tot1) over w = 5, 5, 5, 5 */
  memset(li, 0, sizeof(li));
  for (i = 0; i < 4; i++) {
    li[i].data_len = (uint32_t)len2[i];
  }
  {
    double d = 140.0 / 500.0;
    double i0 = 500 * 5 + 100 * 5 * d + 10 * 5 * 0.25 * d;
    double w0 = 5 + 5 * d + 5 * 0.25 * d;
    double i1 = 100 * 5 + 10 * 5 * 0.25 * 2, w1 = 5 + 5 * 0.25 * 2;
    double want = fmin(w0 / i0, w1 / i1);
    assert_true(fabs(udccp_tfrc_li_calc_p_discounted(li, 4) - want) <
                1e-15 * want);
    /* without discounting: I_mean = max(610, 120) / 3 */
    assert_true(fabs(udccp_tfrc_li_calc_p(li, 4, NULL, 0) - 3.0 / 610.0) <
                1e-15);
  }
}

/* RFC 5348 §5.5 end to end: the CCID 3 receiver discounts the history
 * when the current interval grows long, and the sender, which computes p
 * from the Loss Intervals option (RFC 4342 §8.6), arrives at the same p:
 * after four loss events 100 packets apart and then 3000 packets without
 * loss, p is well below the undiscounted average. */
static void test_rfc5348_5_5_sender_p_matches_discounting_receiver(
    void **state) {
  tl_half rx, tx;
  tl_ack a;
  const udccp_opt *o;
  udccp_tfrc_li_info li[UDCCP_TFRC_LI_MAX];
  size_t n;
  uint8_t skip;
  uint64_t seq = 1000, last = 0;
  udccp_tstamp t = 0;
  double p_rx, p_tx, p_plain;
  unsigned k;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  for (k = 0; k < 3400; k++, seq++) {
    t = (udccp_tstamp)k * RTT / 20;
    if (k == 50 || k == 150 || k == 250 || k == 350) {
      continue;
    }
    if (tl_rx_pkt(&rx, UDCCP_PKT_DATA, seq, ideal_cc(t, RTT), 0, 1000, t)) {
      assert_int_equal(tl_rx_ack(&rx, &a, 1, seq, t), 0);
    }
    last = seq;
  }
  assert_int_equal(udccp_tfrc_ccid_rx_lh(&rx.st)->n_events, 4);
  p_rx = udccp_tfrc_lh_p(udccp_tfrc_ccid_rx_lh(&rx.st));
  assert_int_equal(tl_rx_ack(&rx, &a, 1, last, t), 0);
  o = find_opt(&a.opts, 193);
  assert_non_null(o);
  assert_int_equal(udccp_tfrc_li_parse(o->val, o->len, last, li,
                                       UDCCP_TFRC_LI_MAX, &n, &skip),
                   0);
  p_plain = udccp_tfrc_li_calc_p(li, n, NULL, 0);
  assert_true(fabs(udccp_tfrc_li_calc_p_discounted(li, n) - p_rx) <
              1e-3 * p_rx);
  /* the sender half, given this feedback */
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, t + RTT), 0);
  p_tx = tx_info(&tx).p;
  printf("p: receiver %.6g, sender %.6g, undiscounted %.6g\n", p_rx, p_tx,
         p_plain);
  assert_true(fabs(p_tx - p_rx) < 1e-3 * p_rx);
  assert_true(p_tx < 0.5 * p_plain);
  tl_tx_exit(&tx);
  tl_rx_exit(&rx);
}

/* The sender's p after two feedbacks: the first (at t_fb1) reports one
 * loss event starting at packet 150, the second (at 420 ms) a second event
 * starting at packet 261 (sent at 261 ms).  Packets 1..300 are sent 1 ms
 * apart; the first interval is a synthetic 100,000. */
static double p_after_two_events(udccp_tstamp t_fb1) {
  tl_half tx;
  tl_ack a;
  tl_iv iv[3];
  uint64_t seq;
  int fed = 0;
  double p;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  for (seq = 1; seq <= 300; seq++) {
    udccp_tstamp t = (udccp_tstamp)seq * MS;
    if (!fed && t >= t_fb1) { /* before this packet: t_fb1 > 200 ms */
      fed = 1;
      iv[0] = (tl_iv){50, 1, 51};      /* 150..200 */
      iv[1] = (tl_iv){149, 0, 100000}; /* 1..149, synthetic */
      assert_int_equal(tl_fb_build(&a, 901, 200, 0, 0, iv, 2, 1000000, 0),
                       0);
      assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, t_fb1), 0);
    }
    (void)tl_send_data(&tx, seq, 1000, t);
  }
  iv[0] = (tl_iv){39, 1, 40};       /* 261..300 */
  iv[1] = (tl_iv){110, 1, 111};     /* 150..260 */
  iv[2] = (tl_iv){149, 0, 100000};  /* 1..149 */
  assert_int_equal(tl_fb_build(&a, 902, 300, 0, 0, iv, 3, 1000000, 0), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 420 * MS), 0);
  p = tx_info(&tx).p;
  tl_tx_exit(&tx);
  return p;
}

/* RFC 5348 §5.2: a loss event is the losses within one RTT, the losses TCP
 * answers with one window reduction.  The receiver separates events by the
 * window counter (RFC 4342 §10.2), which steps by quarters of the RTT we
 * estimated when we sent; after our slow start has filled a queue the
 * packets take twice that RTT and one overshoot is reported as two events.
 * An event whose first lost packet we sent before we learned of the event
 * before it is part of that event (as TCP's recovery covers the window in
 * flight when it learns of a loss): p stays that of one event.  Learned
 * before we sent it, it is a second event and p doubles. */
static void test_rfc5348_5_2_one_loss_event_per_reaction(void **state) {
  double joined, separate;
  (void)state;
  joined = p_after_two_events(310 * MS);   /* learned after 261 was sent */
  separate = p_after_two_events(250 * MS); /* learned before */
  printf("p: second event sent before the first was learned %.6g, after "
         "%.6g\n", joined, separate);
  assert_true(fabs(joined - 1e-5) < 1e-3 * 1e-5); /* I_mean = 100,000 */
  assert_true(separate > 1.9 * joined);           /* (111 + 100,000) / 2 */
}

/* RFC 4342 §8.6.1: Loss Intervals lengths have 24 bits, and the synthetic
 * first interval of a fast, long path does not fit (RFC 5348 §6.3.1:
 * 10^8 B/s at 100 ms with s = 1000 needs 1/p = 66.7 M packets).  A
 * saturated synthetic interval is taken as the one the sender computes by
 * the same rule; without that, p >= 1/0xFFFFFF caps X near a quarter of
 * the rate the receiver measured.  The receiver keeps it whole too: its
 * Loss Event Rate option carries 32 bits. */
static void test_rfc4342_8_6_1_saturated_first_interval(void **state) {
  tl_half tx;
  tl_ack a;
  tl_iv iv[2];
  uint64_t seq;
  double p, want;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  for (seq = 1; seq <= 100; seq++) {
    (void)tl_send_data(&tx, seq, 1000, seq * MS);
  }
  /* no loss yet, X_recv = 10^8 B/s */
  assert_int_equal(tl_fb_build(&a, 901, 50, 0, 0, NULL, 0, 100000000,
                               UINT32_MAX),
                   0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 150 * MS), 0);
  iv[0] = (tl_iv){20, 1, 21};
  iv[1] = (tl_iv){79, 0, UDCCP_TFRC_LI_LEN_MAX};
  assert_int_equal(tl_fb_build(&a, 902, 100, 0, 0, iv, 2, 100000000, 0), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 200 * MS), 0);
  p = tx_info(&tx).p;
  want = 1.0 / (double)udccp_tfrc_first_interval(1e8, 1000, RTT);
  printf("p = %.4g (1/0xFFFFFF = %.4g; 1/p of the synthetic interval at "
         "R = 100 ms: %.4g)\n", p, 1.0 / UDCCP_TFRC_LI_LEN_MAX, want);
  assert_true(p < 0.5 / UDCCP_TFRC_LI_LEN_MAX);
  tl_tx_exit(&tx);
}

static void test_rfc5348_6_1_new_loss_event_triggers_feedback(void **state) {
  tl_half rx;
  tl_ack a;
  uint64_t s;
  udccp_tstamp t = 0;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, 1, 0, 0, 1000, t), 1);
  assert_int_equal(tl_rx_ack(&rx, &a, 1, 1, t), 0);
  for (s = 2; s <= 5; s++) {
    t += MS;
    assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, s, 0, 0, 1000, t), 0);
  }
  /* 6 is lost; it is declared lost once NDUPACK = 3 packets follow */
  assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, 7, 0, 0, 1000, t + 1), 0);
  assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, 8, 0, 0, 1000, t + 2), 0);
  assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, 9, 0, 0, 1000, t + 3), 1);
  assert_true(udccp_tfrc_lh_p(udccp_tfrc_ccid_rx_lh(&rx.st)) > 0.0);
  tl_rx_exit(&rx);
}

static void test_rfc4342_7_ecn_ce_counts_as_loss(void **state) {
  tl_half rx;
  tl_ack a;
  udccp_conn_info i;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, 1, 0, 2, 1000, 0), 1);
  assert_int_equal(tl_rx_ack(&rx, &a, 1, 1, 0), 0);
  assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, 2, 0, 2, 1000, MS), 0);
  /* CE (3) on a data packet: a loss event at once */
  assert_int_equal(tl_rx_pkt(&rx, UDCCP_PKT_DATA, 3, 0, 3, 1000, 2 * MS), 1);
  memset(&i, 0, sizeof(i));
  rx.ops->rx_get_info(&rx.st, &i);
  assert_true(i.p > 0.0);
  assert_int_equal(udccp_tfrc_ccid_rx_lh(&rx.st)->n_marked, 1);
  tl_rx_exit(&rx);
}

/* One run for the nonce test: 900 data packets with pseudo-random ECN
 * nonces (ECT(1) = 1, ECT(0) = 0) to the real receiver half, packet 1300
 * lost, a feedback every 20 packets.  cheat: packet 1600 (nonce 1) is lost
 * too, but the receiver hides it, reporting it received with ECT(0) (a
 * guessed nonce of 0).  Returns the sender's p; *mism its mismatches. */
static double nonce_run(int cheat, uint64_t *checks, uint64_t *mism,
                        double *p_rx) {
  tl_half tx, rx;
  tl_ack a;
  uint64_t seq, x = 88172645463325252ULL;
  udccp_conn_info i;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  tx.env.ecn = 1;
  for (seq = 1000; seq < 1900; seq++) {
    udccp_tstamp t = (seq - 1000) * MS;
    uint8_t cc;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    tx.env.tx_nonce = seq == 1600 ? 1 : (uint8_t)(x >> 63);
    cc = tl_send_data(&tx, seq, 1000, t);
    if (seq != 1300) {
      uint8_t ecn = tx.env.tx_nonce ? 1 : 2;
      if (seq == 1600) {
        ecn = 2; /* received (honest) or lost and invented (cheat) */
      }
      (void)tl_rx_pkt(&rx, UDCCP_PKT_DATA, seq, cc, seq == 1600 && !cheat
                                                       ? 1 : ecn, 1000, t);
    }
    if (seq % 20 == 19) {
      assert_int_equal(tl_rx_ack(&rx, &a, 1, seq, t), 0);
      assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, t + MS), 0);
    }
  }
  i = tx_info(&tx);
  *checks = i.nonce_checks;
  *mism = i.nonce_mismatches;
  *p_rx = udccp_tfrc_lh_p(udccp_tfrc_ccid_rx_lh(&rx.st));
  tl_tx_exit(&tx);
  tl_rx_exit(&rx);
  return i.p;
}

/* RFC 4342 §9.1, RFC 4340 §12.2-12.3: the sender checks the Nonce Echo of
 * each lossless part in the Loss Intervals option against its NonceSums,
 * and answers a mismatch as if a recent packet had been marked: a loss
 * event in its own p.  An honest receiver is never flagged; one that
 * reports a lost ECT(1) packet as received (with a guessed nonce of 0)
 * gets the same p from its own history, but the sender's p rises. */
static void test_rfc4342_9_1_loss_intervals_nonce_echo_checked(
    void **state) {
  uint64_t checks, mism;
  double p_honest, p_cheat, prx_honest, prx_cheat;
  (void)state;
  p_honest = nonce_run(0, &checks, &mism, &prx_honest);
  assert_true(checks >= 40);
  assert_int_equal(mism, 0);
  assert_true(p_honest > 0.0); /* the loss of 1300 */
  p_cheat = nonce_run(1, &checks, &mism, &prx_cheat);
  printf("p: honest %.6g, cheating receiver %.6g (its own %.6g), "
         "%llu mismatches in %llu checks\n",
         p_honest, p_cheat, prx_cheat, (unsigned long long)mism,
         (unsigned long long)checks);
  assert_true(prx_cheat == prx_honest); /* the receiver hid the loss */
  assert_true(mism >= 1);
  assert_true(p_cheat > 1.5 * p_honest);
}

/* One feedback for the Ack Vector nonce test: packets 1000..1099 sent, all
 * with nonce 0 but 1095 (nonce 1), packet 1050 lost; the Ack carries
 * honest Loss Intervals and an Ack Vector from a receiver that records
 * 1095's nonce as av_nonce.  Returns the sender's p. */
static double av_run(uint8_t av_nonce, uint64_t *mism) {
  tl_half tx;
  tl_ack a;
  udccp_ackvec av;
  udccp_optbuf ob;
  udccp_opts o;
  tl_iv iv[2];
  uint64_t seq;
  size_t k;
  double p;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  tx.env.ecn = 1;
  assert_int_equal(udccp_ackvec_init(&av, udccp_mem_default(), 256), 0);
  for (seq = 1000; seq < 1100; seq++) {
    tx.env.tx_nonce = seq == 1095;
    (void)tl_send_data(&tx, seq, 1000, (seq - 1000) * MS);
    if (seq != 1050) {
      assert_int_equal(udccp_ackvec_record_nonce(&av, seq, UDCCP_AV_RECEIVED,
                                                 seq == 1095 ? av_nonce : 0),
                       0);
    }
  }
  /* I_0: 1050 lost, 1051..1099 lossless with echo 1 (1095); I_1: 1000..
   * 1049, its data length synthesized as 1000 */
  iv[0] = (tl_iv){49, 1u | (1u << 23), 50};
  iv[1] = (tl_iv){50, 0, 1000};
  assert_int_equal(tl_fb_build(&a, 901, 1099, 0, 0, iv, 2, 1000000, 0), 0);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_ackvec_write(&av, &ob, 901), 0);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_ACK, ob.buf, ob.len), 0);
  assert_true(o.n_ackvec >= 1);
  for (k = 0; k < o.n_ackvec; k++) {
    assert_int_equal(tl_ack_add_opt(&a, o.ackvec[k].type, 0, o.ackvec[k].val,
                                    o.ackvec[k].len),
                     0);
  }
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 100 * MS + RTT), 0);
  p = tx_info(&tx).p;
  *mism = tx_info(&tx).nonce_mismatches;
  udccp_ackvec_free(&av);
  tl_tx_exit(&tx);
  return p;
}

/* RFC 4340 §12.2-12.3 for CCID 3: when the receiver sends Ack Vectors,
 * the sender checks their Nonce Echo too (over every packet they report
 * received unmarked) and answers a mismatch as a marked packet. */
static void test_rfc4340_12_2_ccid3_checks_ack_vector_nonces(void **state) {
  uint64_t mism;
  double p_ok, p_bad;
  (void)state;
  p_ok = av_run(1, &mism);
  assert_int_equal(mism, 0);
  assert_true(p_ok > 0.0);
  p_bad = av_run(0, &mism);
  printf("p: honest %.6g, wrong Ack Vector echo %.6g\n", p_ok, p_bad);
  assert_true(mism >= 1);
  assert_true(p_bad > 1.5 * p_ok);
}

/* --------------------------------------------------------- RFC 6323 */

/* The RTT Estimate option the sender half writes on a packet of type. */
static int rtt_opt(tl_half *tx, uint8_t type, uint64_t *val, size_t *len) {
  udccp_optbuf ob;
  udccp_opts o;
  const udccp_opt *op;
  udccp_optbuf_init(&ob);
  assert_int_equal(tx->ops->tx_write_opts(&tx->st, &ob, type, 0), 0);
  assert_int_equal(udccp_opts_parse(&o, type, ob.buf, ob.len), 0);
  op = find_opt(&o, UDCCP_CCID3_OPT_RTT_ESTIMATE);
  if (op == NULL) {
    return 0;
  }
  *len = op->len;
  *val = get_be(op->val, op->len);
  return 1;
}

/* RFC 6323 §3.2.1, §3.3: with Send RTT Estimate on, Data, DataAck, Sync
 * and SyncAck carry the sender's R in microseconds, rounded up, in the
 * fewest bytes; 0 before an estimate; 0xFFFFFF above 0xFFFFFE us.  Off, or
 * on other packet types, no option. */
static void test_rfc6323_3_3_sender_sends_rtt_estimate(void **state) {
  static const struct {
    udccp_tstamp srtt;
    uint64_t want;
    size_t len;
  } c[] = {
      {100 * MS, 100000, 3},  {200 * US, 200, 1},
      {1500, 2, 1},           {300 * US, 300, 2},
      {0, 0, 1},              {20 * UDCCP_NS_PER_S, 0xFFFFFF, 3},
  };
  static const uint8_t with[] = {UDCCP_PKT_DATA, UDCCP_PKT_DATAACK,
                                 UDCCP_PKT_SYNC, UDCCP_PKT_SYNCACK};
  tl_half tx;
  uint64_t v;
  size_t len, i, k;
  (void)state;
  for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
    assert_int_equal(tl_tx_init(&tx, 3, 1000, c[i].srtt, 0), 0);
    assert_false(rtt_opt(&tx, UDCCP_PKT_DATA, &v, &len)); /* feature off */
    tx.env.send_rtt_est = 1;
    for (k = 0; k < sizeof(with); k++) {
      assert_true(rtt_opt(&tx, with[k], &v, &len));
      assert_int_equal(v, c[i].want);
      assert_int_equal(len, c[i].len);
    }
    assert_false(rtt_opt(&tx, UDCCP_PKT_ACK, &v, &len));
    tl_tx_exit(&tx);
  }
}

/* RFC 6323 §3.2.2 via the CCID 3 dependencies (RFC 4340 §10): two udccp
 * endpoints with CCID 3 negotiate Send RTT Estimate to 1 for both
 * half-connections (it is located at the HC-Sender), without being
 * asked to. */
static void test_rfc6323_3_2_2_send_rtt_estimate_negotiated(void **state) {
  udccp_pair p;
  udccp_settings cs;
  (void)state;
  memset(&cs, 0, sizeof(cs));
  udccp_settings_default(&cs);
  cs.ccid = 3;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 7), 0);
  p.delay[0] = p.delay[1] = 10 * MS;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL,
                                   5 * UDCCP_NS_PER_S));
  udccp_pair_run_for(&p, UDCCP_NS_PER_S);
  assert_int_equal(p.c[0]->tx_ccid_id, 3);
  assert_int_equal(p.c[1]->tx_ccid_id, 3);
  assert_int_equal(
      udccp_feat_get_local(&p.c[0]->feat, UDCCP_FEAT_CCID3_SEND_RTT_ESTIMATE),
      1);
  assert_int_equal(
      udccp_feat_get_remote(&p.c[1]->feat, UDCCP_FEAT_CCID3_SEND_RTT_ESTIMATE),
      1);
  assert_int_equal(
      udccp_feat_get_local(&p.c[1]->feat, UDCCP_FEAT_CCID3_SEND_RTT_ESTIMATE),
      1);
  assert_int_equal(
      udccp_feat_get_remote(&p.c[0]->feat, UDCCP_FEAT_CCID3_SEND_RTT_ESTIMATE),
      1);
  udccp_pair_free(&p);
}

/* A data packet carrying an RTT Estimate option of vlen bytes value v. */
static int rx_data_rtt(tl_half *rx, uint64_t seq, uint8_t cc, uint64_t v,
                       size_t vlen, udccp_tstamp ts) {
  udccp_optbuf ob;
  udccp_opts o;
  udccp_ccid_pkt p;
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put_uint(&ob, UDCCP_CCID3_OPT_RTT_ESTIMATE,
                                         v, vlen),
                   0);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_DATA, ob.buf, ob.len), 0);
  memset(&p, 0, sizeof(p));
  p.type = UDCCP_PKT_DATA;
  p.ccval = cc;
  p.seq = seq;
  p.payload_len = 1000;
  p.opts = &o;
  return rx->ops->rx_on_pkt(&rx->st, &p, ts);
}

/* RFC 6323 §3.3-3.4: with Send RTT Estimate on, the receiver works with
 * receiver_RTT from the sender's options instead of its CCVal estimate:
 * 0.5 s until the first numeric option, then a moving average (q = 0.9);
 * no-number options for longer than receiver_RTT double it.  Off, the
 * options change nothing. */
static void test_rfc6323_3_4_receiver_uses_sender_rtt(void **state) {
  tl_half rx;
  udccp_tstamp t = 0;
  uint64_t seq = 100;
  int on, k;
  (void)state;
  for (on = 0; on <= 1; on++) {
    assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
    rx.env.send_rtt_est = (uint8_t)on;
    if (on) {
      assert_int_equal(udccp_tfrc_ccid_rx_rtt_used(&rx.st), 500 * MS);
    }
    /* the CCVals say 100 ms, the options 30 ms (then 40 ms once) */
    for (k = 0; k < 40; k++, seq++) {
      t = (udccp_tstamp)k * 10 * MS;
      assert_true(rx_data_rtt(&rx, seq, ideal_cc(t, RTT), k == 39 ? 40000
                                                                 : 30000,
                              2, t) >= 0);
    }
    assert_true(udccp_tfrc_ccid_rx_rtt(&rx.st) > 90 * MS &&
                udccp_tfrc_ccid_rx_rtt(&rx.st) < 110 * MS);
    if (!on) {
      assert_int_equal(udccp_tfrc_ccid_rx_rtt_used(&rx.st),
                       udccp_tfrc_ccid_rx_rtt(&rx.st));
      tl_rx_exit(&rx);
      continue;
    }
    assert_int_equal(udccp_tfrc_ccid_rx_rtt_used(&rx.st), 31 * MS);
    /* no-number options (0, then 0xFFFFFF) for more than 31 ms */
    assert_int_equal(rx_data_rtt(&rx, seq++, 0, 0, 1, t + 10 * MS), 0);
    assert_int_equal(rx_data_rtt(&rx, seq++, 0, 0xFFFFFF, 3, t + 30 * MS), 0);
    assert_int_equal(udccp_tfrc_ccid_rx_rtt_used(&rx.st), 31 * MS);
    assert_int_equal(rx_data_rtt(&rx, seq++, 0, 0, 1, t + 42 * MS), 0);
    assert_int_equal(udccp_tfrc_ccid_rx_rtt_used(&rx.st), 62 * MS);
    /* the next round counts from there, with the new value */
    assert_int_equal(rx_data_rtt(&rx, seq++, 0, 0, 1, t + 100 * MS), 0);
    assert_int_equal(udccp_tfrc_ccid_rx_rtt_used(&rx.st), 62 * MS);
    assert_int_equal(rx_data_rtt(&rx, seq++, 0, 0, 1, t + 105 * MS), 0);
    assert_int_equal(udccp_tfrc_ccid_rx_rtt_used(&rx.st), 124 * MS);
    /* §3.2.1: four value bytes are invalid */
    assert_int_equal(rx_data_rtt(&rx, seq++, 0, 1000, 4, t + 110 * MS),
                     UDCCP_ERR_OPTION);
    tl_rx_exit(&rx);
  }
}

static void test_rfc4342_8_6_loss_intervals_roundtrip(void **state) {
  tl_half rx, tx;
  tl_ack a;
  uint64_t last;
  double p_rx;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  /* losses every 60 packets (3 RTTs), stopping right after a new event,
   * so that the open interval I_0 does not count */
  (void)drive_rx(&rx, RTT, 20, 18, 60, NULL, &last);
  p_rx = udccp_tfrc_lh_p(udccp_tfrc_ccid_rx_lh(&rx.st));
  assert_true(p_rx > 0.0);
  (void)tl_send_data(&tx, last, 1000, 0);
  assert_int_equal(tl_rx_ack(&rx, &a, 1, last, 18 * RTT), 0);
  assert_non_null(find_opt(&a.opts, 193));
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, RTT), 0);
  printf("p receiver %.6f, p sender %.6f\n", p_rx, tx_info(&tx).p);
  assert_true(fabs(tx_info(&tx).p - p_rx) < 1e-12);
  tl_tx_exit(&tx);
  tl_rx_exit(&rx);
}

/* ------------------------------------------------------ options, deps */

static void test_rfc4340_5_8_2_mandatory_unknown_ccid_option(void **state) {
  tl_half rx, tx;
  udccp_optbuf ob;
  udccp_opts o;
  udccp_ccid_pkt p;
  uint8_t v[4] = {0, 0, 0, 1};
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 3, 1000, 0), 0);
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  memset(&p, 0, sizeof(p));
  p.type = UDCCP_PKT_ACK;
  p.has_ack = 1;
  p.seq = 10;
  p.ack = 1;
  p.opts = &o;
  /* 150 is for the HC-Receiver (§10.3) and unknown to CCID 3 */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, 150, 1, v, 4), 0);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_ACK, ob.buf, ob.len), 0);
  assert_int_equal(rx.ops->rx_on_pkt(&rx.st, &p, 0), UDCCP_ERR_MANDATORY);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &p, 0), 0);
  /* 200 is for the HC-Sender */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, 200, 1, v, 4), 0);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_ACK, ob.buf, ob.len), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &p, 0), UDCCP_ERR_MANDATORY);
  /* a known one with Mandatory is fine; 195 is CCID 4's only */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, 192, 1, v, 4), 0);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_ACK, ob.buf, ob.len), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &p, 0), 0);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, 195, 1, v, 3), 0);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_ACK, ob.buf, ob.len), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &p, 0), UDCCP_ERR_MANDATORY);
  tl_tx_exit(&tx);
  tl_rx_exit(&rx);
}

static void test_rfc4342_8_4_dependencies_and_registry(void **state) {
  const udccp_ccid_ops *ops = udccp_ccid_find(3);
  size_t i;
  int lev = 0, ndp = 0, av = 0, rtt = 0;
  (void)state;
  assert_ptr_equal(ops, &udccp_ccid3_ops);
  assert_true(udccp_ccid_supported(3));
  for (i = 0; i < ops->n_deps; i++) {
    const udccp_ccid_dep *d = &ops->deps[i];
    assert_false(d->mandatory); /* optional features (§8 Table 2) */
    if (d->feat == UDCCP_FEAT_CCID3_SEND_LOSS_EVENT_RATE) {
      lev = d->at_receiver && d->val == 1;
    } else if (d->feat == UDCCP_FEAT_SEND_NDP_COUNT) {
      ndp = !d->at_receiver && d->val == 1;
    } else if (d->feat == UDCCP_FEAT_SEND_ACK_VECTOR) {
      av = d->at_receiver && d->val == 0;
    } else if (d->feat == UDCCP_FEAT_CCID3_SEND_RTT_ESTIMATE) {
      rtt = !d->at_receiver && d->val == 1; /* RFC 6323 §3.2.2 */
    } else {
      fail_msg("unexpected dependency on feature %u", d->feat);
    }
  }
  assert_true(lev && ndp && av && rtt);
}

/* ------------------------------------------------------ virtual time */

static void test_rfc5348_3_1_loop_converges_to_equation_rate(void **state) {
  tl_loop_cfg c;
  tl_loop_res r;
  double x_eq, err, p_ev;
  (void)state;
  memset(&c, 0, sizeof(c));
  c.ccid = 3;
  c.s = 1000;
  c.mps = 1000;
  c.owd = 50 * MS;
  c.loss = 0.01;
  c.seed = 12345;
  c.duration = 200 * UDCCP_NS_PER_S;
  c.measure_from = 50 * UDCCP_NS_PER_S;
  assert_int_equal(tl_loop_run(&c, &r), 0);
  /* the loss event rate the flow actually saw while it was measured */
  p_ev = (double)r.events_measured / (double)r.sent_measured;
  x_eq = udccp_tfrc_calc_x(1000, r.r_tx, p_ev);
  err = (r.rate_Bps - x_eq) / x_eq;
  printf("loss 1%%: sent %llu, dropped %llu, feedback %llu, nofb %llu\n"
         "R %.2f ms (receiver %.2f ms), loss event rate %.5f (final p rx "
         "%.5f tx %.5f)\n"
         "rate %.0f B/s, equation %.0f B/s, error %+.1f%%\n",
         (unsigned long long)r.sent, (unsigned long long)r.dropped,
         (unsigned long long)r.feedbacks, (unsigned long long)r.nofb,
         (double)r.r_tx / 1e6, (double)r.rx_rtt / 1e6, p_ev, r.p_rx, r.p_tx,
         r.rate_Bps, x_eq, 100.0 * err);
  assert_true(p_ev > 0.005 && p_ev <= 0.011);
  assert_true(r.r_tx >= 99 * MS && r.r_tx <= 102 * MS);
  /* about one feedback per RTT */
  assert_true((double)r.feedbacks < 1.5 * (double)c.duration / (double)(2 * c.owd));
  assert_true(fabs(err) <= 0.25);
}

/* RFC 5348 §8.2.1 "after sending a segment: if (sender has sent all it
 * is allowed to send)": env->tx_more says so.  A packet sent late (an
 * application that was slow, or a late wakeup) with more data queued is
 * rate-limited all the same; a packet sent on time with nothing behind
 * it is not (the application had no more to give). */
static void test_rfc5348_8_2_1_queued_data_decides_not_limited(void **state) {
  tl_half tx;
  const udccp_tfrc_tx *t;
  udccp_tstamp ts = 10 * UDCCP_NS_PER_S, at, at2;
  (void)state;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  t = udccp_tfrc_ccid_tx_tfrc(&tx.st);
  /* late by far more than t_ipi (25 ms at 40000 B/s), data queued */
  tx.env.tx_more = UDCCP_CCID_MORE_YES;
  tl_send_data(&tx, 1, 1000, ts);
  assert_true(udccp_tfrc_tx_not_limited_in(t, ts - 1, ts));
  /* exactly on time but the queue ran empty: data-limited */
  at = tx.ops->tx_next_send(&tx.st, ts);
  tx.env.tx_more = UDCCP_CCID_MORE_NO;
  tl_send_data(&tx, 2, 1000, at);
  assert_false(udccp_tfrc_tx_not_limited_in(t, ts, at));
  /* unknown: the timing guess (on time = rate-limited) */
  at2 = tx.ops->tx_next_send(&tx.st, at);
  tx.env.tx_more = UDCCP_CCID_MORE_UNKNOWN;
  tl_send_data(&tx, 3, 1000, at2);
  assert_true(udccp_tfrc_tx_not_limited_in(t, at, at2));
  tl_tx_exit(&tx);
}

static int sent_data(udccp_pair *p, void *ud) {
  return p->c[0]->info.data_pkts_sent >= *(const uint64_t *)ud;
}

/* The connection fills env->tx_more from its send queue: with three
 * datagrams queued the first goes out "more waiting", the last not.  And
 * RFC 5348 §4.6 "t_0 = t_now": the schedule starts with the first data
 * packet, so the time the sender half waited for data since the handshake
 * is no credit -- one packet goes, then one per t_ipi. */
static void test_rfc5348_8_2_1_connection_reports_queued_data(void **state) {
  udccp_pair p;
  udccp_settings cs;
  static const uint8_t d[100];
  uint64_t n;
  int i;
  (void)state;
  udccp_settings_default(&cs);
  cs.ccid = 3;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 6), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL,
                                   5 * UDCCP_NS_PER_S));
  for (i = 0; i < 3; i++) {
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], d, sizeof(d), 0,
                                               p.now), 0);
  }
  n = 1;
  assert_true(udccp_pair_run_until(&p, sent_data, &n, 5 * UDCCP_NS_PER_S));
  assert_int_equal(p.c[0]->info.data_pkts_sent, 1); /* paced: one at once */
  assert_int_equal(p.c[0]->env.tx_more, UDCCP_CCID_MORE_YES);
  n = 3;
  assert_true(udccp_pair_run_until(&p, sent_data, &n, 5 * UDCCP_NS_PER_S));
  assert_int_equal(p.c[0]->env.tx_more, UDCCP_CCID_MORE_NO); /* the last */
  udccp_pair_free(&p);
}

/* RFC 4342 §5.3 with s = MPS: every packet counts as one MPS, so the
 * Receive Rate (payload bytes/s, §8.3) is taken in the same units.  A
 * sender of 100-byte datagrams (MPS 1000) whose receiver reports 50
 * packets/s = 5000 bytes/s has X_recv = 50000 "MPS bytes"/s; X stays
 * near 2 X_recv instead of collapsing to a tenth of it per feedback. */
/* X_recv after n datagrams of 100 bytes (MPS 1000), 1 ms apart, and one
 * feedback reporting 5000 bytes/s (50 packets/s) for them. */
static double x_recv_after_100_byte_packets(uint64_t n) {
  tl_half tx;
  tl_ack a;
  tl_iv iv = {0, 0, 0};
  udccp_tstamp t = 0;
  uint64_t seq;
  double x;
  iv.lossless = (uint32_t)n;
  assert_int_equal(tl_tx_init(&tx, 3, 1000, RTT, 0), 0);
  for (seq = 1; seq <= n; seq++, t += MS) {
    tl_send_data(&tx, seq, 100, t);
  }
  t += RTT;
  assert_int_equal(tl_fb_build(&a, 7, n, 0, 0, &iv, 1, 5000, 0), 0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, t), 0);
  x = udccp_tfrc_ccid_tx_tfrc(&tx.st)->x_recv;
  tl_tx_exit(&tx);
  return x;
}

static void test_rfc4342_5_3_receive_rate_in_mps_units(void **state) {
  (void)state;
  /* s_mean is an EWMA (1/16) from the MPS: after 200 packets of 100 it
   * is within 0.01 % of 100 */
  assert_true(fabs(x_recv_after_100_byte_packets(200) - 50000.0) <
              0.001 * 50000.0);
}

/* RFC 4342 §5.3 again, from the first data packet on: the mean segment
 * size that converts the Receive Rate is that of the packets sent, not
 * the MPS it starts from.  After 4 datagrams of 100 bytes (MPS 1000) a
 * report of 5000 bytes/s is 50 packets/s = 50000 "MPS bytes"/s; an EWMA
 * seeded with the MPS would still be near 800 and read ~6300, and
 * min(X, 2 X_recv) would cut X eightfold at the first loss -- the spiral
 * that took a CCID 3 flow to 0.6 packets/s in test_sim_ccid4. */
static void test_rfc4342_5_3_receive_rate_in_mps_units_from_first_packet(
    void **state) {
  (void)state;
  assert_true(fabs(x_recv_after_100_byte_packets(4) - 50000.0) <
              0.001 * 50000.0);
}

/* ------------------------------------------------- with a connection */

static int client_tx_up(udccp_pair *p, void *ud) {
  (void)ud;
  return p->c[0] != NULL && p->c[0]->tx_ccid_up;
}

/* RFC 5348 §4.2: "if the sender has an RTT measurement from the handshake"
 * the initial rate is W_init/R at once.  The connection hands the
 * Request/Response round trip (2 x 50 ms here) to the sender half before
 * tx_init; without it the sender would start at one packet per second. */
static void test_rfc5348_4_2_handshake_rtt_gives_initial_rate(void **state) {
  udccp_pair p;
  udccp_settings cs;
  udccp_conn_info ci;
  const udccp_tfrc_tx *t;
  double w_init;
  (void)state;
  memset(&cs, 0, sizeof(cs));
  udccp_settings_default(&cs);
  cs.ccid = 3;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 5), 0);
  p.delay[0] = p.delay[1] = 50 * MS;
  assert_true(udccp_pair_run_until(&p, client_tx_up, NULL, 5 * UDCCP_NS_PER_S));
  assert_int_equal(p.c[0]->tx_ccid_id, 3);
  t = udccp_tfrc_ccid_tx_tfrc(p.c[0]->tx_st);
  assert_true(t->has_rtt);
  assert_true(t->r >= 100 * MS && t->r <= 101 * MS);
  udccp_conn_get_info(p.c[0], &ci);
  w_init = fmin(4.0 * t->cfg.s, fmax(2.0 * t->cfg.s, 4380.0));
  assert_true(fabs((double)ci.x - w_init / ((double)t->r * 1e-9)) <= 1.0);
  assert_true((double)ci.x > 10.0 * t->cfg.s); /* not 1 packet/s */
  udccp_pair_free(&p);
}

/* RFC 6323 §3.2-3.3 through the connection: negotiated on, both halves
 * use it; an RTT Estimate option of invalid length resets the connection
 * with Option Error, Data 1..3 the option's first three bytes. */
static void test_rfc6323_3_3_invalid_rtt_estimate_resets(void **state) {
  udccp_pair p;
  udccp_settings cs;
  udccp_tb_pkt tp;
  udccp_conn_rxpkt rp;
  static const uint8_t bad[] = {128, 6, 7, 0, 1, 0}; /* 4 value bytes */
  uint8_t pkt[256], buf[1500];
  udccp_ssize n;
  (void)state;
  udccp_settings_default(&cs);
  cs.ccid = 3;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 8), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL,
                                   5 * UDCCP_NS_PER_S));
  udccp_pair_run_for(&p, UDCCP_NS_PER_S);
  assert_int_equal(p.c[0]->env.send_rtt_est, 1);
  assert_int_equal(p.c[1]->env_rx.send_rtt_est, 1);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATA, udccp_seq_add(p.c[0]->gss, 1), 0);
  tp.opts = bad;
  tp.opts_len = sizeof(bad);
  tp.payload = (const uint8_t *)"x";
  tp.payload_len = 1;
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_read_pkt(p.c[1], pkt, (size_t)n, 0, p.now),
                   UDCCP_ERR_RESET);
  n = udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), NULL, p.now);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, buf, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_OPTION_ERROR);
  assert_int_equal(rp.h.reset_data[0], 128);
  assert_int_equal(rp.h.reset_data[1], 6);
  assert_int_equal(rp.h.reset_data[2], 7);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc5348_4_2_handshake_rtt_gives_initial_rate),
      cmocka_unit_test(test_rfc4342_5_3_receive_rate_in_mps_units),
      cmocka_unit_test(
          test_rfc4342_5_3_receive_rate_in_mps_units_from_first_packet),
      cmocka_unit_test(test_rfc5348_8_2_1_queued_data_decides_not_limited),
      cmocka_unit_test(test_rfc5348_8_2_1_connection_reports_queued_data),
      cmocka_unit_test(test_rfc4342_8_1_ccval_quarter_rtt_increment),
      cmocka_unit_test(test_rfc4342_8_1_ack_raises_ccval_to_wc_plus_4),
      cmocka_unit_test(test_rfc4342_8_2_rtt_sample_subtracts_elapsed_time),
      cmocka_unit_test(test_rfc5348_4_3_rtt_samples_with_large_windows),
      cmocka_unit_test(test_rfc5348_4_3_rtt_sample_below_clock_resolution),
      cmocka_unit_test(test_rfc5348_4_3_zero_rtt_connection_sends),
      cmocka_unit_test(test_rfc5348_4_3_slow_start_doubles_per_feedback),
      cmocka_unit_test(test_rfc5348_4_3_equation_rate_after_loss),
      cmocka_unit_test(test_rfc5348_4_5_ccid3_reduces_oscillations),
      cmocka_unit_test(test_rfc4342_8_5_loss_event_rate_only_feedback),
      cmocka_unit_test(test_rfc4342_6_ack_without_receive_rate_is_not_feedback),
      cmocka_unit_test(test_rfc5348_8_2_1_data_limited_sender_after_loss),
      cmocka_unit_test(test_rfc5348_4_4_nofeedback_timer_halves_x),
      cmocka_unit_test(test_rfc4342_5_1_idle_never_below_initial_rate),
      cmocka_unit_test(test_rfc5348_4_6_t_ipi_nonzero_and_exact_at_10gbit_5us),
      cmocka_unit_test(test_rfc4342_5_2_receive_buffer_drops_and_slow_receiver),
      cmocka_unit_test(test_rfc4342_5_2_drops_count_once),
      cmocka_unit_test(test_rfc5348_4_3_receive_rate_lie_capped_at_twice_sent),
      cmocka_unit_test(test_rfc4342_8_2_elapsed_time_lie_bounded),
      cmocka_unit_test(test_rfc5348_6_3_first_data_packet_gets_feedback),
      cmocka_unit_test(test_rfc4342_10_3_feedback_once_per_rtt),
      cmocka_unit_test(test_rfc4342_10_3_feedback_per_packet_below_one_per_rtt),
      cmocka_unit_test(test_rfc5348_6_2_receive_rate_over_last_rtt),
      cmocka_unit_test(test_rfc5348_6_3_1_slow_start_reports_the_latest_round),
      cmocka_unit_test(test_rfc5348_4_3_slow_start_doubles_about_once_per_rtt),
      cmocka_unit_test(
          test_rfc5348_6_2_receive_rate_after_silence_not_below_1_per_2rtt),
      cmocka_unit_test(test_rfc5348_5_4_receiver_p_from_known_loss_pattern),
      cmocka_unit_test(test_rfc5348_6_1_new_loss_event_triggers_feedback),
      cmocka_unit_test(test_rfc5348_5_5_discount_factors_from_loss_intervals),
      cmocka_unit_test(test_rfc5348_5_5_sender_p_matches_discounting_receiver),
      cmocka_unit_test(test_rfc5348_5_2_one_loss_event_per_reaction),
      cmocka_unit_test(test_rfc4342_8_6_1_saturated_first_interval),
      cmocka_unit_test(test_rfc4342_7_ecn_ce_counts_as_loss),
      cmocka_unit_test(test_rfc4342_8_6_loss_intervals_roundtrip),
      cmocka_unit_test(test_rfc6323_3_3_sender_sends_rtt_estimate),
      cmocka_unit_test(test_rfc6323_3_2_2_send_rtt_estimate_negotiated),
      cmocka_unit_test(test_rfc6323_3_4_receiver_uses_sender_rtt),
      cmocka_unit_test(test_rfc6323_3_3_invalid_rtt_estimate_resets),
      cmocka_unit_test(test_rfc4342_9_1_loss_intervals_nonce_echo_checked),
      cmocka_unit_test(test_rfc4340_12_2_ccid3_checks_ack_vector_nonces),
      cmocka_unit_test(test_rfc4340_5_8_2_mandatory_unknown_ccid_option),
      cmocka_unit_test(test_rfc4342_8_4_dependencies_and_registry),
      cmocka_unit_test(test_rfc5348_3_1_loop_converges_to_equation_rate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * CCID 4 (lib/ccid4.c; RFC 5622 with TFRC-SP of RFC 4828): what differs
 * from CCID 3.  The halves are driven directly, as in test_ccid3.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ccid.h"
#include "ccid3.h"
#include "ccid4.h"
#include "opt.h"
#include "tfrc_eq.h"
#include "tfrc_lh.h"
#include "tfrcloop.h"

#define MS UDCCP_NS_PER_MS
#define US 1000ULL
#define RTT (100 * MS)

static double tx_x(tl_half *tx) {
  return udccp_tfrc_tx_rate(udccp_tfrc_ccid_tx_tfrc(&tx->st));
}

static udccp_conn_info tx_info(tl_half *tx) {
  udccp_conn_info i;
  memset(&i, 0, sizeof(i));
  tx->ops->tx_get_info(&tx->st, &i);
  return i;
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

static uint32_t get24(const uint8_t *p) {
  return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static const tl_iv no_loss_iv = {10, 0, 0};

static void test_rfc5622_5_min_interval_10ms_between_data_packets(
    void **state) {
  tl_half tx;
  tl_ack a;
  udccp_tstamp t, nxt, rtt = 5 * US;
  uint64_t seq;
  (void)state;
  /* 5 us RTT: the equation would allow far more than 100 packets/s */
  assert_int_equal(tl_tx_init(&tx, 4, 1460, rtt, 0), 0);
  (void)tl_send_data(&tx, 1, 1460, 0);
  assert_int_equal(tl_fb_build(&a, 900, 1, 0, 0, &no_loss_iv, 1,
                               1000000000ULL, 0),
                   0);
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, rtt), 0);
  assert_true(tx_x(&tx) > 1e8);
  assert_true(tx_info(&tx).t_ipi >= UDCCP_CCID4_MIN_INTERVAL);
  t = tx.ops->tx_next_send(&tx.st, rtt);
  assert_true(t >= UDCCP_CCID4_MIN_INTERVAL); /* 10 ms after packet 1 */
  for (seq = 2; seq < 200; seq++) {
    (void)tl_send_data(&tx, seq, 1460, t);
    nxt = tx.ops->tx_next_send(&tx.st, t);
    assert_int_equal(nxt - t, UDCCP_CCID4_MIN_INTERVAL);
    t = nxt;
  }
  tl_tx_exit(&tx);
}

/* Sends n packets of len bytes, then feedback with p = 1/100 for the last
 * one, RTT later; returns the time of that feedback. */
static udccp_tstamp feed_p_001(tl_half *tx, size_t len, unsigned n) {
  tl_ack a;
  tl_iv iv[9];
  unsigned k;
  udccp_tstamp t = 0;
  for (k = 1; k <= n; k++) {
    t = (udccp_tstamp)k * 20 * MS;
    (void)tl_send_data(tx, k, len, t);
  }
  iv[0] = (tl_iv){19, 1, 20};
  for (k = 1; k < 9; k++) {
    iv[k] = (tl_iv){99, 1, 100};
  }
  assert_int_equal(tl_fb_build(&a, 901, n, 0, 0, iv, 9, 100000000, 0), 0);
  assert_int_equal(tx->ops->tx_on_pkt(&tx->st, &a.pkt, t + RTT), 0);
  return t + RTT;
}

static void test_rfc4828_3_nominal_1460_and_header_overhead(void **state) {
  tl_half tx;
  double want;
  (void)state;
  /* 100-byte packets: X = X(1460, R, p) * 100 / (100 + 36) */
  assert_int_equal(tl_tx_init(&tx, 4, 1460, RTT, 0), 0);
  /* reports about packets never sent: the formula alone */
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  (void)feed_p_001(&tx, 100, 400);
  want = udccp_tfrc_calc_x(1460, RTT, 0.01) * 100.0 / 136.0;
  printf("X = %.1f B/s, TFRC-SP %.1f B/s, plain TFRC with s=100: %.1f\n",
         tx_x(&tx), want, udccp_tfrc_calc_x(100, RTT, 0.01));
  assert_true(fabs(tx_x(&tx) - want) < 1e-6 * want);
  tl_tx_exit(&tx);
  /* RFC 4828 §3: an MSS below 1460 is the nominal size */
  assert_int_equal(tl_tx_init(&tx, 4, 536, RTT, 0), 0);
  udccp_tfrc_ccid_tx_set_sent_cap(&tx.st, 0);
  (void)feed_p_001(&tx, 100, 400);
  want = udccp_tfrc_calc_x(536, RTT, 0.01) * 100.0 / 136.0;
  assert_true(fabs(tx_x(&tx) - want) < 1e-6 * want);
  tl_tx_exit(&tx);
}

/* RFC 5348 §4.3 / §8.3 in spirit, for TFRC-SP too (RFC 5622 §5): a
 * Receive Rate of 0xFFFFFFFF cannot take X above twice what was sent. */
static void test_rfc5622_5_receive_rate_lie_capped_at_twice_sent(
    void **state) {
  double x, x_open, worst, worst_open;
  (void)state;
  worst = tl_rr_lie_ratio(4, 1000, 8, RTT, 40, 0, 1, &x);
  worst_open = tl_rr_lie_ratio(4, 1000, 8, RTT, 40, 0, 0, &x_open);
  printf("CCID 4, X_recv 0xFFFFFFFF: X %.0f B/s (ratio %.3f); without the "
         "cap %.3g B/s\n", x, worst, x_open);
  assert_true(worst > 0.0 && worst <= 1.0 + 1e-9);
  assert_true(worst_open > 100.0);
  worst = tl_rr_lie_ratio(4, 1000, 8, RTT, 40, 1, 1, &x);
  printf("CCID 4, Elapsed Time lie: X %.0f B/s (ratio %.3f)\n", x, worst);
  /* quarter-RTT windows of 2 packets: 1.5 at most (test_ccid3.c) */
  assert_true(worst > 0.0 && worst <= 1.5 + 1e-9);
}

/* An ideal sender at 20 packets per RTT into rx (and tx, if not NULL, which
 * "sends" every packet); every 30 packets (1.5 RTT) two adjacent ones are
 * lost.  Ends right after an event.  Returns the last sequence number. */
static uint64_t drive_pairs(tl_half *rx, tl_half *tx, unsigned n_pkts) {
  uint64_t seq = 1000;
  unsigned k;
  tl_ack a;
  for (k = 0; k < n_pkts; k++, seq++) {
    udccp_tstamp t = (udccp_tstamp)k * RTT / 20;
    uint8_t cc = (uint8_t)((t / (RTT / 4)) & 15u);
    if (tx) {
      (void)tl_send_data(tx, seq, 500, t);
    }
    if (seq % 30 == 10 || seq % 30 == 11) {
      continue;
    }
    if (tl_rx_pkt(rx, UDCCP_PKT_DATA, seq, cc, 0, 500, t) == 1) {
      assert_int_equal(tl_rx_ack(rx, &a, 1, seq, t), 0);
    }
  }
  return seq - 1;
}

static void test_rfc4828_3_short_intervals_count_drops(void **state) {
  tl_half rx3, rx4;
  double p3, p4;
  (void)state;
  assert_int_equal(tl_rx_init(&rx3, 3, 500, 0), 0);
  assert_int_equal(tl_rx_init(&rx4, 4, 500, 0), 0);
  (void)drive_pairs(&rx3, NULL, 30 * 13 + 14);
  (void)drive_pairs(&rx4, NULL, 30 * 13 + 14);
  p3 = udccp_tfrc_lh_p(udccp_tfrc_ccid_rx_lh(&rx3.st));
  p4 = udccp_tfrc_lh_p(udccp_tfrc_ccid_rx_lh(&rx4.st));
  printf("p CCID 3 %.6f, CCID 4 %.6f\n", p3, p4);
  /* 30-packet intervals (1.5 RTT) with 2 drops: 30 vs 30/2 */
  assert_true(fabs(p3 - 1.0 / 30.0) < 1e-12);
  assert_true(fabs(p4 - 1.0 / 15.0) < 1e-12);
  tl_rx_exit(&rx3);
  tl_rx_exit(&rx4);
}

static void test_rfc5622_8_7_dropped_packets_roundtrip(void **state) {
  tl_half rx, tx;
  tl_ack a;
  const udccp_opt *li, *dp;
  uint64_t last;
  size_t n, i;
  double p_rx;
  (void)state;
  assert_int_equal(tl_rx_init(&rx, 4, 500, 0), 0);
  assert_int_equal(tl_tx_init(&tx, 4, 1460, RTT, 0), 0);
  last = drive_pairs(&rx, &tx, 30 * 13 + 14);
  assert_int_equal(tl_rx_ack(&rx, &a, 1, last, 20 * RTT + 1), 0);
  li = find_opt(&a.opts, 193);
  dp = find_opt(&a.opts, 195);
  assert_non_null(li);
  assert_non_null(dp);
  /* §8.7: the same loss intervals, Drop Count <= Loss Length */
  n = (size_t)(li->len - 1) / 9;
  assert_int_equal(dp->len, 3 * n);
  assert_int_equal(n, 9);
  for (i = 0; i < n; i++) {
    uint32_t loss = get24(li->val + 1 + 9 * i + 3) & 0x7FFFFFu;
    assert_true(get24(dp->val + 3 * i) <= loss);
  }
  assert_int_equal(get24(dp->val + 3), 2); /* I_1: two drops */
  /* the sender, which knows the send times, finds the same p */
  p_rx = udccp_tfrc_lh_p(udccp_tfrc_ccid_rx_lh(&rx.st));
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &a.pkt, 20 * RTT + 2), 0);
  printf("p receiver %.6f, sender %.6f\n", p_rx, tx_info(&tx).p);
  assert_true(fabs(tx_info(&tx).p - p_rx) < 1e-12);
  tl_tx_exit(&tx);
  tl_rx_exit(&rx);
}

static void test_rfc5622_8_registry_options_and_deps(void **state) {
  const udccp_ccid_ops *ops = udccp_ccid_find(4);
  tl_half tx;
  udccp_optbuf ob;
  udccp_opts o;
  udccp_ccid_pkt p;
  uint8_t v[3] = {0, 0, 1};
  (void)state;
  assert_ptr_equal(ops, &udccp_ccid4_ops);
  assert_true(udccp_ccid_supported(4));
  /* §8: the CCID 3 features, hence the same dependencies */
  assert_int_equal(ops->n_deps, udccp_ccid3_ops.n_deps);
  assert_memory_equal(ops->deps, udccp_ccid3_ops.deps,
                      ops->n_deps * sizeof(*ops->deps));
  /* Dropped Packets (195) is known to CCID 4, even with Mandatory */
  assert_int_equal(tl_tx_init(&tx, 4, 1460, RTT, 0), 0);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, 195, 1, v, 3), 0);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_ACK, ob.buf, ob.len), 0);
  memset(&p, 0, sizeof(p));
  p.type = UDCCP_PKT_ACK;
  p.has_ack = 1;
  p.opts = &o;
  assert_int_equal(tx.ops->tx_on_pkt(&tx.st, &p, 0), 0);
  tl_tx_exit(&tx);
}

static void test_rfc5622_5_loop_rate_follows_tfrc_sp_equation(void **state) {
  tl_loop_cfg c;
  tl_loop_res r;
  double p_ev, x_eq, err;
  (void)state;
  memset(&c, 0, sizeof(c));
  c.ccid = 4;
  c.s = 1000;
  c.mps = 1460;
  c.owd = 100 * MS;
  c.loss = 0.02;
  c.seed = 4;
  c.duration = 200 * UDCCP_NS_PER_S;
  c.measure_from = 50 * UDCCP_NS_PER_S;
  assert_int_equal(tl_loop_run(&c, &r), 0);
  p_ev = (double)r.events_measured / (double)r.sent_measured;
  x_eq = udccp_tfrc_calc_x(1460, r.r_tx, p_ev) * 1000.0 / 1036.0;
  err = (r.rate_Bps - x_eq) / x_eq;
  printf("loss 2%%, 1000-byte packets: rate %.0f B/s, TFRC-SP equation "
         "%.0f B/s (p %.5f, R %.1f ms), error %+.1f%%, min gap %.2f ms\n",
         r.rate_Bps, x_eq, p_ev, (double)r.r_tx / 1e6, 100.0 * err,
         (double)r.min_gap / 1e6);
  assert_true(fabs(err) <= 0.25);
  assert_true(r.min_gap >= UDCCP_CCID4_MIN_INTERVAL);
}

static void test_rfc5622_5_min_interval_caps_small_packet_rate(void **state) {
  tl_loop_cfg c;
  tl_loop_res r;
  double cap = 200.0 * 100.0; /* 200 bytes every 10 ms */
  (void)state;
  memset(&c, 0, sizeof(c));
  c.ccid = 4;
  c.s = 200;
  c.mps = 1460;
  c.owd = 100 * MS;
  c.loss = 0.01;
  c.seed = 9;
  c.duration = 100 * UDCCP_NS_PER_S;
  c.measure_from = 30 * UDCCP_NS_PER_S;
  assert_int_equal(tl_loop_run(&c, &r), 0);
  printf("200-byte packets, loss 1%%: rate %.0f B/s (cap %.0f), min gap "
         "%.2f ms\n",
         r.rate_Bps, cap, (double)r.min_gap / 1e6);
  /* the equation allows more: the 10 ms interval is what limits */
  assert_true(udccp_tfrc_calc_x(1460, r.r_tx, r.p_tx) * 200.0 / 236.0 > cap);
  assert_true(r.rate_Bps <= cap * 1.001);
  assert_true(r.rate_Bps >= cap * 0.98);
  assert_true(r.min_gap >= UDCCP_CCID4_MIN_INTERVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc5622_5_min_interval_10ms_between_data_packets),
      cmocka_unit_test(test_rfc4828_3_nominal_1460_and_header_overhead),
      cmocka_unit_test(test_rfc5622_5_receive_rate_lie_capped_at_twice_sent),
      cmocka_unit_test(test_rfc4828_3_short_intervals_count_drops),
      cmocka_unit_test(test_rfc5622_8_7_dropped_packets_roundtrip),
      cmocka_unit_test(test_rfc5622_8_registry_options_and_deps),
      cmocka_unit_test(test_rfc5622_5_loop_rate_follows_tfrc_sp_equation),
      cmocka_unit_test(test_rfc5622_5_min_interval_caps_small_packet_rate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

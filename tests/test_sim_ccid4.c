/* SPDX-License-Identifier: MIT */
/*
 * CCID 4 against CCID 3, both sending 100-byte datagrams over a lossy
 * simulated path (issue 3, acceptance 5): the behaviour RFC 5622 §5
 * describes.
 *
 *   RFC 5622 §5 "Loss Event Rate": "a nominal packet size of 1460 bytes
 *   [is] plugged into the TCP throughput equation ... If the DCCP sender
 *   is sending N-byte data packets, the allowed transmit rate is reduced
 *   by N/(N+36)."  So a CCID 4 flow of 100-byte packets sends about
 *   X(1460, p, R) * 100/136 bytes/s: as many bytes per second as a TFRC
 *   flow of 1460-byte packets, less its header share -- §5.3: "roughly the
 *   same sending rate in bytes per second as a TFRC flow using 1460-byte
 *   segments".
 *   RFC 5622 §5: "the CCID 4 sender enforces a minimum interval of 10 ms
 *   between data packets, regardless of the allowed transmit rate": at
 *   most 100 packets/s.
 *   CCID 3 (RFC 4342 §5.3, s = the MPS): each packet counts as one MSS and
 *   the equation gives packets per second, so 100-byte packets go at
 *   X_pps(p, R) -- about 1460/136 ~ 10.7 times fewer bytes than CCID 4 at
 *   the same p and R.
 *
 * Each flow is checked against the equation evaluated with its own
 * measured loss event rate and RTT (b = 1, t_RTO = 4R), within 25 %; and
 * CCID 3's 100-byte flow alone over several seeds (RFC 4342 §5.3).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim.h"
#include "sim_parse.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

static sim_result g_res;

static int free_result(void **state) {
  (void)state;
  sim_result_free(&g_res);
  return 0;
}

/* RFC 5348 §3.1 in packets per second (s = 1), b = 1, t_RTO = 4R. */
static double x_pps(double p, double r_s) {
  return 1.0 / (r_s * sqrt(2.0 * p / 3.0) +
                12.0 * r_s * sqrt(3.0 * p / 8.0) * p * (1.0 + 32.0 * p * p));
}

static void run_flows(const char *flows, uint64_t seed, udccp_tstamp delay,
                      double loss, udccp_tstamp dur) {
  sim_config cfg;
  char err[256];
  sim_config_default(&cfg);
  assert_int_equal(sim_parse_flows(flows, &cfg, err, sizeof(err)), 0);
  cfg.seed = seed;
  cfg.rate_bps = 10000000;
  cfg.delay = delay;
  cfg.loss = loss;
  cfg.duration = dur;
  cfg.pkt_size = 100;
  if (sim_run(&cfg, &g_res) != 0) {
    fail_msg("sim_run: %s", g_res.err);
  }
  for (size_t i = 0; i < g_res.n_flows; i++) {
    const sim_flow_result *r = &g_res.flows[i];
    if (r->err[0] != '\0') {
      fail_msg("flow %zu: %s", i, r->err);
    }
    assert_int_equal(r->packet_size, 100);
    assert_true(r->established);
  }
}

static void run(udccp_tstamp delay, double loss, udccp_tstamp dur) {
  run_flows("ccid3,ccid4", 1, delay, loss, dur);
}

typedef struct flow_eq {
  double sent_pps, eq_pps, p, r_s;
} flow_eq;

static flow_eq eval(const sim_flow_result *r, double dur_s, double scale) {
  flow_eq e;
  e.sent_pps = (double)r->sent_pkts / dur_s;
  e.p = r->loss_event_rate;
  e.r_s = r->rtt_ms / 1e3;
  e.eq_pps = e.p > 0 ? x_pps(e.p, e.r_s) * scale : 0;
  printf("  %s: goodput %.0f bit/s, sent %.1f packets/s, equation %.1f "
         "packets/s (p %.5f, R %.1f ms), ratio %.3f\n",
         r->kind, r->goodput_bps, e.sent_pps, e.eq_pps, e.p, r->rtt_ms,
         e.eq_pps > 0 ? e.sent_pps / e.eq_pps : 0.0);
  return e;
}

/* R = 500 ms, 10 % loss: CCID 4 stays below 100 packets/s, so its rate is
 * the equation's with the nominal 1460-byte segment and the 100/136
 * header factor. */
static void test_rfc5622_5_small_packets_nominal_segment(void **state) {
  const double dur = 300.0;
  flow_eq c3, c4;
  (void)state;
  run(250 * MS, 0.1, 300 * S);
  printf("ccid3,ccid4 -l 100, 10 Mbit/s, 250 ms one-way, loss 0.1, 300 s:\n");
  /* CCID 3: packets/s from the equation (s = MPS, RFC 4342 §5.3) */
  c3 = eval(&g_res.flows[0], dur, 1.0);
  /* CCID 4: bytes/s = X(1460) * 100/136, in 100-byte packets */
  c4 = eval(&g_res.flows[1], dur, 1460.0 / 136.0);
  assert_true(c3.p > 0 && c4.p > 0);
  assert_true(c4.eq_pps < 100.0); /* the 10 ms floor does not bind here */
  assert_true(c4.sent_pps >= 0.75 * c4.eq_pps &&
              c4.sent_pps <= 1.25 * c4.eq_pps);
  /* roughly the bytes of a 1460-byte TFRC flow: several times CCID 3's */
  printf("  ccid4 / ccid3 goodput %.2f (need >= 5)\n",
         g_res.flows[1].goodput_bps / g_res.flows[0].goodput_bps);
  assert_true(g_res.flows[1].goodput_bps >= 5.0 * g_res.flows[0].goodput_bps);
  sim_result_free(&g_res);
  /* CCID 3 sends ~4 packets/s here: 300 s hold ~120 losses, and one
   * run's sent/equation ratio moved between 1.09 and 1.26 with
   * unrelated changes to the simulator's draws.  The rule is on the mean
   * ratio over 4 seeds. */
  {
    double sum = c3.eq_pps > 0 ? c3.sent_pps / c3.eq_pps : 0.0;
    for (uint64_t seed = 2; seed <= 4; seed++) {
      run_flows("ccid3,ccid4", seed, 250 * MS, 0.1, 300 * S);
      c3 = eval(&g_res.flows[0], dur, 1.0);
      assert_true(c3.p > 0);
      sum += c3.sent_pps / c3.eq_pps;
      sim_result_free(&g_res);
    }
    printf("  ccid3 sent / equation, mean of seeds 1-4: %.3f (0.75..1.25)\n",
           sum / 4.0);
    assert_true(sum / 4.0 >= 0.75 && sum / 4.0 <= 1.25);
  }
}

/* R = 200 ms, 10 % loss: the equation would allow CCID 4 more than 100
 * packets/s; the 10 ms minimum interval holds it at 100. */
static void test_rfc5622_5_min_interval_10ms(void **state) {
  const double dur = 120.0;
  flow_eq c3, c4;
  (void)state;
  run(100 * MS, 0.1, 120 * S);
  printf("ccid3,ccid4 -l 100, 10 Mbit/s, 100 ms one-way, loss 0.1, 120 s:\n");
  c3 = eval(&g_res.flows[0], dur, 1.0);
  c4 = eval(&g_res.flows[1], dur, 1460.0 / 136.0);
  assert_true(c4.eq_pps > 100.0);
  /* never more than one packet per 10 ms, and the floor is what binds */
  assert_true(c4.sent_pps <= 100.0 + 1.0 / dur);
  assert_true(c4.sent_pps >= 90.0);
  assert_true(c3.sent_pps >= 0.75 * c3.eq_pps &&
              c3.sent_pps <= 1.25 * c3.eq_pps);
  sim_result_free(&g_res);
}

/* RFC 4342 §5.3 (s = MPS, the Receive Rate taken in the same units) for
 * CCID 3's own 100-byte packets, alone, over several seeds: the rate
 * follows the equation from the start.  The sender's mean packet size
 * once started at the MPS and reached 100 only after ~50 packets; a loss
 * before that read X_recv up to 14 times too low, min(X, 2 X_recv) cut X,
 * fewer packets kept the mean high, and the flow ended at 0.02-0.5 of
 * the equation rate (seeds 2, 3, 6, 9, 10 here, with RFC 6323 Send RTT
 * Estimate on or off). */
static void test_rfc4342_5_3_small_packets_follow_equation(void **state) {
  const double dur = 120.0;
  uint64_t seed;
  flow_eq c3;
  (void)state;
  for (seed = 1; seed <= 10; seed++) {
    run_flows("ccid3", seed, 100 * MS, 0.1, 120 * S);
    printf("ccid3 -l 100, 10 Mbit/s, 100 ms one-way, loss 0.1, 120 s, "
           "seed %u:\n", (unsigned)seed);
    c3 = eval(&g_res.flows[0], dur, 1.0);
    assert_true(c3.p > 0);
    assert_true(c3.sent_pps >= 0.75 * c3.eq_pps &&
                c3.sent_pps <= 1.25 * c3.eq_pps);
    sim_result_free(&g_res);
  }
}

/* RFC 4340 §7.7 / RFC 4342 §6.1: a TFRC receiver tells lost data packets
 * from sequence gaps less the NDP Count; pkts_lost_rx reports them (issue
 * 14: losses counted for every CCID).  Against the simulator's own count
 * of forward packets it dropped: equal but for the few non-data packets
 * the sender also sends (Request, Acks) and losses after the measured
 * period. */
static void test_rfc4340_7_7_receiver_counts_lost_data(void **state) {
  (void)state;
  static const char *const flows[] = {"ccid3", "ccid4"};
  for (size_t k = 0; k < 2; k++) {
    sim_config cfg;
    char err[256];
    sim_config_default(&cfg);
    assert_int_equal(sim_parse_flows(flows[k], &cfg, err, sizeof(err)), 0);
    cfg.seed = 7;
    cfg.rate_bps = 10000000;
    cfg.delay = 20 * MS;
    cfg.loss = 0.02;
    cfg.duration = 20 * S;
    if (sim_run(&cfg, &g_res) != 0) {
      fail_msg("sim_run: %s", g_res.err);
    }
    const sim_flow_result *r = &g_res.flows[0];
    printf("%s: network dropped %llu forward packets, receiver counted "
           "%llu lost data packets\n", flows[k],
           (unsigned long long)r->fwd_lost, (unsigned long long)r->rx_lost);
    assert_true(r->fwd_lost > 20); /* the case means something */
    assert_true(r->rx_lost <= r->fwd_lost + 2);
    assert_true(r->rx_lost * 100 >= r->fwd_lost * 95);
    sim_result_free(&g_res);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_rfc4340_7_7_receiver_counts_lost_data,
                                free_result),
      cmocka_unit_test_teardown(test_rfc5622_5_small_packets_nominal_segment,
                                free_result),
      cmocka_unit_test_teardown(test_rfc5622_5_min_interval_10ms,
                                free_result),
      cmocka_unit_test_teardown(test_rfc4342_5_3_small_packets_follow_equation,
                                free_result),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

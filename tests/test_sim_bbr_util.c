/* SPDX-License-Identifier: MIT */
/*
 * BBR (draft-ietf-ccwg-bbr) as an experimental CCID (lib/ccid_bbr.c, issue
 * 17): utilization and p95 queueing delay on 50 Mbit/s x 100 ms,
 * issue 17's acceptance 1 in short
 * (split from test_sim_bbr.c so that no one test dominates make check).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "ccid_bbr.h"
#include "sim.h"
#include "simrun.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

/* Issue 17 acceptance 1, short: one BDP of queue (the simulator's
 * default), 50 Mbit/s x 100 ms, 45 s (Startup is 2 s of it; the steady
 * state is 0.915 of the link, headers and ProbeRTT take the rest):
 * utilization >= 0.9 and the p95
 * queueing delay of its packets (one-way delay over the minimum) within
 * a quarter of the base RTT; CUBIC on the same path, the same run's
 * yardstick, keeps the queue full.  (bench/bbr_accept.sh: 1 Gbit/s.) */
static void test_bbr_utilization_and_p95_queueing(void **state) {
  const sim_flow_result *r;
  double q95, cubic_q95, util;
  (void)state;
  udccp_test_sim_run("bbr", 50000000, 50 * MS, 45 * S, 0, &udccp_test_res);
  r = &udccp_test_res.flows[0];
  util = udccp_test_res.utilization;
  q95 = r->owd_p95_ms - r->owd_min_ms;
  printf("bbr 50mbit/100ms/45s: utilization %.3f (need >= 0.90), one-way "
         "delay min %.1f p50 %.1f p95 %.1f p99 %.1f ms: p95 queueing %.1f "
         "ms (need <= 25)\n", util, r->owd_min_ms, r->owd_p50_ms,
         r->owd_p95_ms, r->owd_p99_ms, q95);
  assert_true(r->owd_samples > 150000);
  assert_int_equal(r->ccid, UDCCP_CCID_BBR_DEFAULT);
  assert_true(r->closed_ok);
  assert_true(r->owd_min_ms >= 50.0 && r->owd_min_ms < 51.0);
  sim_result_free(&udccp_test_res);
  udccp_test_sim_run("cubic", 50000000, 50 * MS, 20 * S, 0, &udccp_test_res);
  r = &udccp_test_res.flows[0];
  cubic_q95 = r->owd_p95_ms - r->owd_min_ms;
  printf("cubic on the same path: p95 queueing %.1f ms\n", cubic_q95);
  assert_true(util >= 0.90);
  assert_true(q95 <= 25.0);
  assert_true(cubic_q95 > 2 * q95);
}

/* UpdateMinRTT: a sample within a quarter packet time of the minimum
 * (here 15 us at 200 Mbit/s) refreshes it.  The samples of a flow with an
 * empty queue sit 1-5 us above the minimum (the acks' Ack Vectors vary in
 * length), so with the draft's strict < (or <=) none refreshed it and a
 * ProbeRTT came every 5.4 s, the queue empty: 200 Mbit/s x 100 ms, 20 s,
 * utilization 0.889 with <=, 0.911 with the tolerance. */
static void test_bbr_min_rtt_refreshed_without_probe_rtt(void **state) {
  const sim_flow_result *r;
  (void)state;
  udccp_test_sim_run("bbr", 200000000, 50 * MS, 20 * S, 0, &udccp_test_res);
  r = &udccp_test_res.flows[0];
  printf("bbr 200mbit/100ms/20s: utilization %.3f (need >= 0.90), p95 "
         "queueing %.1f ms (need <= 25)\n", udccp_test_res.utilization,
         r->owd_p95_ms - r->owd_min_ms);
  assert_true(r->closed_ok);
  assert_true(udccp_test_res.utilization >= 0.90);
  assert_true(r->owd_p95_ms - r->owd_min_ms <= 25.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_bbr_utilization_and_p95_queueing,
                                udccp_test_sim_free),
      cmocka_unit_test_teardown(test_bbr_min_rtt_refreshed_without_probe_rtt,
                                udccp_test_sim_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

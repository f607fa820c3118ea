/* SPDX-License-Identifier: MIT */
/*
 * BBR (draft-ietf-ccwg-bbr) as an experimental CCID (lib/ccid_bbr.c, issue
 * 17): against the simulator's BBR-like TCP over 4 seeds, issue
 * 17's acceptance 2 at 20 Mbit/s x 40 ms
 * (split from test_sim_bbr.c so that no one test dominates make check).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "sim.h"
#include "sim_parse.h"
#include "simrun.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

/* Acceptance 2: the BBR CCID against the simulator's BBR-like TCP
 * (sim/tcp_bbr.c), 20 Mbit/s x 40 ms, 60 s, seeds 1-4: every seed's
 * goodput ratio in [0.7, 1.4].  Startup ends on loss here, which sets
 * inflight_longterm early, and it caps ProbeBW; a flow whose cap is
 * below its share must raise it in ProbeBW_UP (the draft's
 * ProbeInflightLongtermUpward while cwnd-limited at the cap).  Before
 * the fix the round-start ack read "not cwnd-limited" and UP ended there
 * (60 s: 0.93, 1.44, 1.11, 0.55). */
static void test_bbr_vs_tcp_bbr_4_seeds(void **state) {
  sim_config cfg;
  char err[256];
  uint64_t seed;
  int in_range = 0;
  (void)state;
  for (seed = 1; seed <= 4; seed++) {
    double ratio;
    sim_config_default(&cfg);
    assert_int_equal(sim_parse_flows("bbr,tcp-bbr", &cfg, err, sizeof(err)),
                     0);
    cfg.rate_bps = 20000000;
    cfg.delay = 20 * MS;
    cfg.duration = 60 * S;
    cfg.seed = seed;
    assert_int_equal(sim_run(&cfg, &udccp_test_res), 0);
    assert_true(udccp_test_res.flows[1].goodput_bps > 0);
    const sim_flow_result *f = udccp_test_res.flows;
    ratio = f[0].goodput_bps / f[1].goodput_bps;
    printf("seed %llu: bbr %.2f Mbit/s, tcp-bbr %.2f Mbit/s, ratio %.3f, "
           "utilization %.3f\n", (unsigned long long)seed,
           f[0].goodput_bps / 1e6, f[1].goodput_bps / 1e6, ratio,
           udccp_test_res.utilization);
    assert_true(udccp_test_res.flows[0].closed_ok);
    assert_true(udccp_test_res.utilization >= 0.85);
    in_range += ratio >= 0.7 && ratio <= 1.4;
    sim_result_free(&udccp_test_res);
  }
  printf("%d of 4 seeds in [0.7, 1.4] (need 4)\n", in_range);
  assert_int_equal(in_range, 4);
}

/* draft-ietf-ccwg-bbr, ProbeRTT Logic: HandleProbeRTT marks the
 * connection application-limited, so ProbeRTT's low rate samples enter
 * the max_bw filter only if they raise it and do not advance it
 * (AdvanceMaxBwFilter only on a sample that is not application-limited).
 * tcp-bbr did neither.  1 Gbit/s x 100 ms, seed 16: tcp-bbr takes two
 * timeouts near 8.7 s; a ProbeRTT came while it had little but their
 * recovery's samples, the round after ProbeRTT began and the one after it
 * ended each advanced the filter, max_bw fell to 386 segments/s and
 * pacing held it there (20 s: 215 Mbit/s; 60 s: 145 against the CCID's
 * 757).  Now it keeps its max_bw and gets 461 Mbit/s in 20 s. */
static void test_bbr_draft_tcp_bbr_probe_rtt_samples_app_limited(void **state) {
  sim_config cfg;
  char err[256];
  const sim_flow_result *f;
  (void)state;
  sim_config_default(&cfg);
  assert_int_equal(sim_parse_flows("bbr,tcp-bbr", &cfg, err, sizeof(err)), 0);
  cfg.rate_bps = 1000000000;
  cfg.delay = 50 * MS;
  cfg.duration = 20 * S;
  cfg.seed = 16;
  assert_int_equal(sim_run(&cfg, &udccp_test_res), 0);
  f = udccp_test_res.flows;
  printf("1 Gbit/s x 100 ms, 20 s, seed 16: bbr %.1f Mbit/s, tcp-bbr %.1f "
         "Mbit/s (need >= 300 each)\n", f[0].goodput_bps / 1e6,
         f[1].goodput_bps / 1e6);
  assert_true(f[0].goodput_bps >= 300e6);
  assert_true(f[1].goodput_bps >= 300e6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_bbr_vs_tcp_bbr_4_seeds,
                                udccp_test_sim_free),
      cmocka_unit_test_teardown(test_bbr_draft_tcp_bbr_probe_rtt_samples_app_limited,
                                udccp_test_sim_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

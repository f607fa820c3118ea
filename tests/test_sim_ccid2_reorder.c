/* SPDX-License-Identifier: MIT */
/*
 * CCID 2 and the CCIDs on its feedback (CUBIC, BBR) over a path that
 * reorders 5 % of the packets by 5 ms (lib/ccid2_loss.c): RFC 4341 §5
 * declares a packet lost once NUMDUPACK later ones are acked, so every
 * reordered packet was a congestion event and the window collapsed (50
 * Mbit/s x 40 ms: CCID 2 8 % of the link, CUBIC 9 %, BBR 17 %).  The
 * spurious-loss undo (RFC 3522 / RFC 4015) and the reordering threshold
 * (RFC 4653) bring them back to a full link; the floor is a fraction of
 * the link, with room below what they reach (0.94 .. 0.96).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim.h"
#include "sim_parse.h"
#include "simrun.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

static void run_reordered(const char *flows, double reorder, double loss) {
  sim_config cfg;
  char err[256];
  const sim_flow_result *r;
  sim_config_default(&cfg);
  assert_int_equal(sim_parse_flows(flows, &cfg, err, sizeof(err)), 0);
  cfg.rate_bps = 50000000;
  cfg.delay = 20 * MS;
  cfg.duration = 20 * S;
  cfg.reorder = reorder;
  cfg.reorder_delay = 5 * MS;
  cfg.loss = loss;
  cfg.seed = 1;
  if (sim_run(&cfg, &udccp_test_res) != 0) {
    fail_msg("sim_run: %s", udccp_test_res.err);
  }
  r = &udccp_test_res.flows[0];
  printf("%s over 50 Mbit/s, 20 ms, 20 s, reorder %.2f by 5 ms, loss %.3f: "
         "goodput %.2f Mbit/s, utilization %.3f, closed cleanly %d\n",
         flows, reorder, loss, r->goodput_bps / 1e6, udccp_test_res.utilization,
         r->closed_ok);
  if (r->err[0] != '\0') {
    fail_msg("%s: %s", flows, r->err);
  }
  assert_true(r->established);
  assert_true(r->closed_ok);
}

static void test_rfc4015_ccid2_fills_a_reordering_path(void **state) {
  (void)state;
  run_reordered("ccid2", 0.05, 0);
  assert_true(udccp_test_res.utilization >= 0.70);
}

static void test_rfc4015_cubic_fills_a_reordering_path(void **state) {
  (void)state;
  run_reordered("cubic", 0.05, 0);
  assert_true(udccp_test_res.utilization >= 0.70);
}

static void test_rfc4015_bbr_fills_a_reordering_path(void **state) {
  (void)state;
  run_reordered("bbr", 0.05, 0);
  assert_true(udccp_test_res.utilization >= 0.70);
}

/* Reordering with real loss: the losses still count (BBR's model sees
 * them) while the reordered packets do not (before: 0.16). */
static void test_rfc4015_bbr_reordering_and_loss(void **state) {
  (void)state;
  run_reordered("bbr", 0.05, 0.005);
  assert_true(udccp_test_res.utilization >= 0.50);
  assert_true(udccp_test_res.flows[0].loss_rate > 0.002);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_rfc4015_ccid2_fills_a_reordering_path,
                                udccp_test_sim_free),
      cmocka_unit_test_teardown(test_rfc4015_cubic_fills_a_reordering_path,
                                udccp_test_sim_free),
      cmocka_unit_test_teardown(test_rfc4015_bbr_fills_a_reordering_path,
                                udccp_test_sim_free),
      cmocka_unit_test_teardown(test_rfc4015_bbr_reordering_and_loss,
                                udccp_test_sim_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

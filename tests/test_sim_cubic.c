/* SPDX-License-Identifier: MIT */
/*
 * CUBIC (RFC 9438) as an experimental CCID on CCID 2's feedback
 * (lib/ccid_cubic.c, issue 17), and the simulator's CUBIC TCP: the short
 * versions of the acceptance runs (the full 1 Gbit/s x 100 ms one and the
 * 4-seed fairness are bench/cubic_accept.sh, figures in doc/cubic.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ccid.h"
#include "ccid2.h"
#include "ccid_cubic.h"
#include "sim.h"
#include "simrun.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

static sim_result g_res;

static int free_result(void **state) {
  (void)state;
  sim_result_free(&g_res);
  return 0;
}

/* Registered by default under 249; "cubic" names whatever number it is
 * under; it moves to the MP-DCCP fork's 7 and back. */
static void test_cubic_registered_and_movable(void **state) {
  (void)state;
  assert_ptr_equal(udccp_ccid_lookup(UDCCP_CCID_CUBIC_DEFAULT),
                   udccp_ccid_cubic());
  assert_int_equal(udccp_ccid_parse("cubic"), UDCCP_CCID_CUBIC_DEFAULT);
  assert_int_equal(udccp_ccid_unregister(UDCCP_CCID_CUBIC_DEFAULT), 0);
  assert_int_equal(udccp_ccid_parse("cubic"), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_ccid_register_as(udccp_ccid_cubic(), 7, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_ccid_register_as(udccp_ccid_cubic(), 7,
                                          UDCCP_CCID_REG_RESERVED), 0);
  assert_int_equal(udccp_ccid_parse("cubic"), 7);
  assert_int_equal(udccp_ccid_unregister(7), 0);
  assert_int_equal(udccp_ccid_register(udccp_ccid_cubic()), 0);
  assert_int_equal(udccp_ccid_parse("cubic"), UDCCP_CCID_CUBIC_DEFAULT);
}

/* RFC 9438 §4.6: a congestion event leaves 0.7 of the window (CCID 2:
 * half); §4.2: after it the window grows back towards W_max along the
 * cubic, concave first: near W_max it slows down. */
static void test_cubic_policy_reduces_to_beta_and_regrows(void **state) {
  uint8_t cs[UDCCP_CCID2_CC_STATE_SIZE];
  udccp_ccid2_win w = {1000, UINT32_MAX, 0, 100 * MS, 100 * MS};
  udccp_tstamp t = 10 * S;
  uint32_t prev, step_early, step_late;
  int i;
  (void)state;
  memset(cs, 0, sizeof(cs));
  udccp_cubic_cc.init(cs, &w, t);
  udccp_cubic_cc.on_congestion(cs, &w, t);
  assert_int_equal(w.cwnd, 700);
  assert_int_equal(w.ssthresh, 700);
  /* K = cbrt(300 / 0.4) = 9.09 s: a window per 100 ms for 1 s, then
   * one RTT of acks near K */
  prev = w.cwnd;
  for (i = 0; i < 10; i++) {
    t += 100 * MS;
    udccp_cubic_cc.on_ca_ack(cs, &w, w.cwnd, t);
  }
  step_early = w.cwnd - prev;
  assert_true(w.cwnd > 700 && w.cwnd < 1000);
  for (i = 0; i < 70; i++) {
    t += 100 * MS;
    udccp_cubic_cc.on_ca_ack(cs, &w, w.cwnd, t);
  }
  prev = w.cwnd;
  for (i = 0; i < 10; i++) {
    t += 100 * MS;
    udccp_cubic_cc.on_ca_ack(cs, &w, w.cwnd, t);
  }
  step_late = w.cwnd - prev;
  printf("cubic: 700 -> +%u in the first second, +%u in the 9th (W_max "
         "1000, now %u)\n", step_early, step_late, w.cwnd);
  assert_true(w.cwnd <= 1000 + 5);
  assert_true(w.cwnd >= 980);
  assert_true(step_late < step_early); /* concave */
  /* fast convergence (§4.7): a loss below W_max lowers W_max further */
  udccp_cubic_cc.on_congestion(cs, &w, t);
  assert_true(w.cwnd < 700 + 5);
}

/* The short acceptance run: 50 Mbit/s x 100 ms RTT, queue one BDP,
 * 30 s with slow start: >= 0.9 of the link in payload. */
static void test_cubic_ccid_fills_50mbit_100ms(void **state) {
  const sim_flow_result *r;
  (void)state;
  udccp_test_sim_run("cubic", 50000000, 50 * MS, 30 * S, 0, &g_res);
  r = &g_res.flows[0];
  printf("cubic on 50mbit/100ms RTT/30s: utilization %.3f (need >= 0.90)\n",
         g_res.utilization);
  assert_int_equal(r->ccid, UDCCP_CCID_CUBIC_DEFAULT);
  assert_true(r->established);
  assert_true(r->closed_ok);
  assert_true(g_res.utilization >= 0.90);
  assert_true(r->loss_rate > 0); /* a BDP queue: it did fill it */
}

/* The simulator's CUBIC TCP fills a link as its Reno does. */
static void test_sim_tcp_cubic_fills_20mbit_40ms(void **state) {
  (void)state;
  udccp_test_sim_run("tcp-cubic", 20000000, 20 * MS, 30 * S, 0, &g_res);
  printf("tcp-cubic on 20mbit/40ms RTT/30s: utilization %.3f (need >= "
         "0.90)\n", g_res.utilization);
  assert_true(g_res.utilization >= 0.90);
  assert_true(g_res.flows[0].loss_rate > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cubic_registered_and_movable),
      cmocka_unit_test(test_cubic_policy_reduces_to_beta_and_regrows),
      cmocka_unit_test_teardown(test_cubic_ccid_fills_50mbit_100ms,
                                free_result),
      cmocka_unit_test_teardown(test_sim_tcp_cubic_fills_20mbit_40ms,
                                free_result),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

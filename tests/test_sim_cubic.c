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
  _Alignas(8) uint8_t cs[UDCCP_CUBIC_CC_STATE_SIZE];
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

/* RFC 9406 §4.2 (HyStart++ in the CUBIC CCID's initial slow start): a
 * round whose minimum RTT (after N_RTT_SAMPLE = 8 samples) is RttThresh =
 * clamp(100 ms / 8, 4, 16 ms) = 12.5 ms above the last round's enters CSS,
 * where growth is divided by CSS_GROWTH_DIVISOR (4); after CSS_ROUNDS (5)
 * rounds ssthresh = cwnd (congestion avoidance).  A CSS round whose
 * minimum falls below the baseline goes back to slow start; after a
 * congestion event (ssthresh set) HyStart++ stays out (§4.3). */
static void test_cubic_hystart_pp_rfc9406_4_2(void **state) {
  _Alignas(8) uint8_t cs[UDCCP_CUBIC_CC_STATE_SIZE];
  udccp_ccid2_win w = {100, UINT32_MAX, 0, 100 * MS, 100 * MS};
  const udccp_ccid2_cc *cc = &udccp_cubic_cc;
  udccp_tstamp t = S;
  uint64_t gss = 1000, ack = 900;
  uint32_t inc = 0, sum;
  int round, i;
  (void)state;
  memset(cs, 0, sizeof(cs));
  cc->init(cs, &w, t);
  /* round 0 opens the window; rounds 1-2 at 100 ms: plain slow start */
  (void)cc->on_ss_ack(cs, &w, 2, 100 * MS, ack, gss, t);
  for (round = 1; round <= 2; round++) {
    ack = gss;
    gss += 200;
    for (i = 0; i < 10; i++) {
      assert_int_equal(cc->on_ss_ack(cs, &w, 2, 100 * MS, ack + (uint64_t)i,
                                     gss, t), 2);
    }
  }
  /* round 3 at 112 ms (< 12.5 ms more): still slow start */
  ack = gss;
  gss += 200;
  for (i = 0; i < 10; i++) {
    assert_int_equal(cc->on_ss_ack(cs, &w, 2, 112 * MS, ack + (uint64_t)i,
                                   gss, t), 2);
  }
  /* round 4 at 127 ms, past round 3's 112 + 112 / 8 = 126: the 8th
   * sample decides, and from it on growth is a quarter */
  ack = gss;
  gss += 200;
  sum = 0;
  for (i = 0; i < 16; i++) {
    inc = cc->on_ss_ack(cs, &w, 2, 127 * MS, ack + (uint64_t)i, gss, t);
    if (i < 7) {
      assert_int_equal(inc, 2);
    } else {
      sum += inc;
    }
  }
  assert_int_equal(sum, 9 * 2 / 4); /* 18 / 4 = 4, 2 carried */
  assert_int_equal(w.ssthresh, UINT32_MAX);
  /* CSS rounds 1-4 at the same RTT: growth / 4, still slow start */
  for (round = 1; round <= 4; round++) {
    ack = gss;
    gss += 200;
    for (i = 0; i < 8; i++) {
      (void)cc->on_ss_ack(cs, &w, 2, 127 * MS, ack + (uint64_t)i, gss, t);
    }
    assert_int_equal(w.ssthresh, UINT32_MAX);
  }
  /* the ack that ends the fifth CSS round ends slow start */
  ack = gss;
  gss += 200;
  w.cwnd = 777;
  assert_int_equal(cc->on_ss_ack(cs, &w, 2, 127 * MS, ack, gss, t), 0);
  assert_int_equal(w.ssthresh, 777);

  /* again, but a CSS round at a lower RTT than CSS began with: slow
   * start again (a spurious exit, §4.2) */
  memset(cs, 0, sizeof(cs));
  w.cwnd = 100;
  w.ssthresh = UINT32_MAX;
  cc->init(cs, &w, t);
  gss = 1000;
  (void)cc->on_ss_ack(cs, &w, 2, 100 * MS, 900, gss, t);
  for (round = 1; round <= 4; round++) {
    udccp_tstamp r = round < 3 ? 100 * MS : round == 3 ? 120 * MS : 110 * MS;
    ack = gss;
    gss += 200;
    for (i = 0; i < 8; i++) {
      inc = cc->on_ss_ack(cs, &w, 2, r, ack + (uint64_t)i, gss, t);
    }
    if (round == 3) {
      assert_true(inc < 2); /* CSS (120 >= 100 + 12.5) */
    } else {
      assert_int_equal(inc, 2); /* round 4: 110 < 120, slow start */
    }
  }
  /* after a congestion event: RFC 4341 §5's slow start alone */
  cc->on_congestion(cs, &w, t);
  assert_true(w.ssthresh != UINT32_MAX);
  assert_int_equal(cc->on_ss_ack(cs, &w, 2, 500 * MS, gss + 1, gss + 2, t), 2);
}

/* The CUBIC CCID without HyStart++ (plain RFC 4341 slow start), as the
 * same run's yardstick, under experimental number 250. */
static udccp_ccid2_cc g_plain_cc;
static udccp_ccid_ops g_plain_ops;

static int plain_tx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                         udccp_tstamp ts) {
  return udccp_ccid2_tx_init_cc(st, env, ts, &g_plain_cc);
}

/* HyStart++ ends the initial slow start before its overshoot: a lone
 * CUBIC CCID, 50 Mbit/s x 100 ms, queue one BDP (417 packets), 5 s: it
 * declares fewer than half the packets lost that plain slow start does
 * (measured 283 against 1,213: CSS's 5 rounds at 1.25x still overshoot a
 * little), with at least 0.95 of its goodput. */
static void test_cubic_hystart_pp_cuts_slow_start_overshoot(void **state) {
  uint64_t hs_lost, plain_lost;
  double hs_gp, plain_gp;
  (void)state;
  g_plain_cc = udccp_cubic_cc;
  g_plain_cc.on_ss_ack = NULL;
  g_plain_ops = *udccp_ccid_cubic();
  g_plain_ops.tx_init = plain_tx_init;
  g_plain_ops.id = 250;
  assert_int_equal(udccp_ccid_register(&g_plain_ops), 0);
  udccp_test_sim_run("cubic", 50000000, 50 * MS, 5 * S, 0, &g_res);
  hs_lost = g_res.flows[0].declared_lost;
  hs_gp = g_res.flows[0].goodput_bps;
  sim_result_free(&g_res);
  udccp_test_sim_run("ccid250", 50000000, 50 * MS, 5 * S, 0, &g_res);
  plain_lost = g_res.flows[0].declared_lost;
  plain_gp = g_res.flows[0].goodput_bps;
  assert_int_equal(g_res.flows[0].ccid, 250);
  assert_int_equal(udccp_ccid_unregister(250), 0);
  printf("cubic 50mbit/100ms/5s: HyStart++ %llu lost, %.2f Mbit/s; plain "
         "slow start %llu lost, %.2f Mbit/s\n", (unsigned long long)hs_lost,
         hs_gp / 1e6, (unsigned long long)plain_lost, plain_gp / 1e6);
  assert_true(plain_lost > 0);
  assert_true(2 * hs_lost < plain_lost);
  assert_true(hs_gp >= 0.95 * plain_gp);
}

/* The simulator's tcp-cubic has Linux's HyStart (sim/flow_tcp.c): its
 * ACK-train test ends slow start near the BDP, before the queue
 * overflows: 50 Mbit/s x 100 ms, 5 s, no segment resent, while the
 * reference Reno TCP (the same slow start without HyStart) resends
 * hundreds (835 measured). */
static void test_sim_tcp_cubic_linux_hystart(void **state) {
  uint64_t reno_lost;
  double util;
  (void)state;
  udccp_test_sim_run("tcp", 50000000, 50 * MS, 5 * S, 0, &g_res);
  reno_lost = g_res.flows[0].declared_lost;
  sim_result_free(&g_res);
  udccp_test_sim_run("tcp-cubic", 50000000, 50 * MS, 5 * S, 0, &g_res);
  util = g_res.utilization;
  printf("50mbit/100ms/5s: tcp-cubic (HyStart) %llu resent, utilization "
         "%.3f; tcp (Reno) %llu resent\n",
         (unsigned long long)g_res.flows[0].declared_lost, util,
         (unsigned long long)reno_lost);
  assert_true(reno_lost > 100);
  assert_int_equal(g_res.flows[0].declared_lost, 0);
  assert_true(util >= 0.75);
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
      cmocka_unit_test(test_cubic_hystart_pp_rfc9406_4_2),
      cmocka_unit_test_teardown(test_cubic_hystart_pp_cuts_slow_start_overshoot,
                                free_result),
      cmocka_unit_test_teardown(test_sim_tcp_cubic_linux_hystart, free_result),
      cmocka_unit_test_teardown(test_cubic_ccid_fills_50mbit_100ms,
                                free_result),
      cmocka_unit_test_teardown(test_sim_tcp_cubic_fills_20mbit_40ms,
                                free_result),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

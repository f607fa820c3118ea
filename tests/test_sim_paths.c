/* SPDX-License-Identifier: MIT */
/*
 * udccp-sim with several paths (sim_config.paths, --paths) and multipath
 * flows (sim/flow_mp.c, RFC 9897): each path has its own rate, delay,
 * queue, loss and blackouts; a single-path flow stays on path 0; an
 * mp-ccid2 flow opens a subflow on every path (MP_JOIN after the first,
 * §3.3), aggregates them (issue 16 acceptance 1, scaled: paths of 8
 * Mbit/s x 10 ms and 3.2 Mbit/s x 40 ms, the 50/10 and 20/40 x
 * 0.16, to stay fast under ASan), delivers in MP_SEQ order, and keeps
 * going over the other path while one is blacked out (acceptance 2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim.h"
#include "sim_flow.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

static void two_paths(sim_config *c, const char *kind) {
  sim_config_default(c);
  c->n_flows = 1;
  c->kinds[0] = sim_flow_kind_find(kind);
  assert_non_null(c->kinds[0]);
  c->n_paths = 2;
  c->paths[0].rate_bps = 8000000;
  c->paths[0].delay = 10 * MS;
  c->paths[1].rate_bps = 3200000;
  c->paths[1].delay = 40 * MS;
  c->rate_bps = c->paths[0].rate_bps;
  c->delay = c->paths[0].delay;
  c->duration = 15 * S;
  c->close_grace = 100 * S;
  c->pkt_size = 1200;
}

/* CCID 2 alone on one of the two paths' links (a one-path run). */
static double alone(const sim_path_cfg *pc) {
  sim_config c;
  sim_result r;
  sim_config_default(&c);
  c.n_flows = 1;
  c.kinds[0] = sim_flow_kind_find("ccid2");
  c.rate_bps = pc->rate_bps;
  c.delay = pc->delay;
  c.duration = 15 * S;
  c.pkt_size = 1200;
  assert_int_equal(sim_run(&c, &r), 0);
  assert_string_equal(r.flows[0].err, "");
  double g = r.flows[0].goodput_bps;
  sim_result_free(&r);
  return g;
}

/* A single-path flow among several paths takes path 0 only. */
static void test_sim_paths_single_path_flow_on_path_0(void **state) {
  sim_config c;
  sim_result r;
  (void)state;
  two_paths(&c, "ccid2");
  c.duration = 5 * S;
  assert_int_equal(sim_run(&c, &r), 0);
  assert_string_equal(r.flows[0].err, "");
  assert_int_equal(r.n_paths, 2);
  assert_int_equal(r.flows[0].n_paths, 0);
  assert_true(r.path_fwd[0].forwarded > 1000);
  assert_int_equal(r.path_fwd[1].forwarded, 0);
  assert_int_equal(r.path_rev[1].forwarded, 0);
  /* utilization is over the sum of the paths' rates */
  assert_true(r.utilization < 8.0 / 11.2 + 0.01);
  sim_result_free(&r);
}

/* Issue 16, acceptance 1 (scaled): aggregate >= 0.9 x the sum of what
 * CCID 2 gets on each path alone; every datagram in MP_SEQ order; at most
 * 1 % held past the reordering bound. */
static void test_sim_paths_mp_aggregate(void **state) {
  sim_config c;
  sim_result r;
  (void)state;
  two_paths(&c, "mp-ccid2");
  double ga = alone(&c.paths[0]), gb = alone(&c.paths[1]);
  assert_int_equal(sim_run(&c, &r), 0);
  const sim_flow_result *f = &r.flows[0];
  assert_string_equal(f->err, "");
  print_message("alone: path 0 %.2f, path 1 %.2f Mbit/s; multipath %.2f "
                "Mbit/s (%.3f of the sum): path 0 %.2f (share %.3f, rtt "
                "%.1f ms), path 1 %.2f (share %.3f, rtt %.1f ms); %llu "
                "delivered, %llu out of order, %llu past the %.1f ms bound\n",
                ga / 1e6, gb / 1e6, f->goodput_bps / 1e6,
                f->goodput_bps / (ga + gb), f->paths[0].goodput_bps / 1e6,
                f->paths[0].share, f->paths[0].rtt_ms,
                f->paths[1].goodput_bps / 1e6, f->paths[1].share,
                f->paths[1].rtt_ms, (unsigned long long)f->delivered_pkts,
                (unsigned long long)f->mp_disorder,
                (unsigned long long)f->mp_over_bound, f->mp_bound_ms);
  assert_true(f->mp_active);
  assert_int_equal(f->n_paths, 2);
  assert_false(f->paths[0].joined);
  assert_true(f->paths[1].joined);
  assert_true(f->goodput_bps >= 0.9 * (ga + gb));
  /* both paths carry a share near their rate (8 : 3.2) */
  assert_true(f->paths[0].goodput_bps > 0.5 * 8e6);
  assert_true(f->paths[1].goodput_bps > 0.5 * 3.2e6);
  assert_true(r.path_fwd[1].forwarded > 1000);
  /* per-path figures add up to what was delivered, give or take what
   * the reordering buffer held at the stop */
  double sum = f->paths[0].goodput_bps + f->paths[1].goodput_bps;
  assert_true(sum >= f->goodput_bps && sum < 1.05 * f->goodput_bps);
  assert_int_equal(f->mp_disorder, 0);
  assert_true(f->mp_over_bound * 100 <= f->delivered_pkts);
  assert_true(f->mp_late_dropped * 100 <= f->delivered_pkts);
  assert_true(f->closed_ok);
  sim_result_free(&r);
}

/* The reordering bound and a slow path's CCID queue (RFC 9897 §3.2.7,
 * §3.11): a 500 kbit/s path sends a 1,200-byte datagram every ~19 ms.  A
 * datagram the scheduler placed on it whenever its own queue was empty
 * waited that long in its CCID's queue before it travelled: a bound from
 * the RTTs alone (their spread plus a quarter of the largest) gave up 241
 * of the 348 datagrams that came over the slow path as too late, and with
 * the path's gap between datagrams added to the bound, 47.  The scheduler
 * now places a datagram only on a path whose CCID lets it leave at once
 * (udccp_mp_conn_schedule), and the bound is RFC 9897's path_delta/2 plus
 * the paths' jitter (udccp_mp_reorder_bound_var): 7 of 347. */
static void test_sim_paths_mp_bound_slow_path_ccid_queue(void **state) {
  sim_config c;
  sim_result r;
  (void)state;
  two_paths(&c, "mp-ccid2");
  c.paths[0].delay = 5 * MS;
  c.paths[1].rate_bps = 500000;
  c.paths[1].delay = 10 * MS;
  c.duration = 10 * S;
  assert_int_equal(sim_run(&c, &r), 0);
  const sim_flow_result *f = &r.flows[0];
  assert_string_equal(f->err, "");
  print_message("slow path: %llu datagrams came over it, %llu came after "
                "their gap was given up (bound %.1f ms, path RTTs %.1f / "
                "%.1f ms)\n",
                (unsigned long long)f->paths[1].rx_dgrams,
                (unsigned long long)f->mp_late_dropped, f->mp_bound_ms,
                f->paths[0].rtt_ms, f->paths[1].rtt_ms);
  assert_true(f->mp_active);
  assert_true(f->paths[1].rx_dgrams > 200);
  assert_true(f->mp_late_dropped * 4 < f->paths[1].rx_dgrams);
  assert_int_equal(f->mp_disorder, 0);
  sim_result_free(&r);
}

/* Issue 16, acceptance 2 (shortened): path 0 blacks out for 5 s in the
 * middle of the transfer; traffic goes on over path 1 and comes back to
 * path 0; the connection closes cleanly. */
static void test_sim_paths_mp_blackout_handover(void **state) {
  sim_config c, c2;
  sim_result r, r2;
  (void)state;
  two_paths(&c, "mp-ccid2");
  c.paths[0].n_blackouts = 1;
  c.paths[0].blackouts[0].at = 4 * S;
  c.paths[0].blackouts[0].len = 5 * S;
  c.mp_sched = UDCCP_MP_SCHED_MINRTT;
  assert_int_equal(sim_run(&c, &r), 0);
  const sim_flow_result *f = &r.flows[0];
  assert_string_equal(f->err, "");
  /* the same run without the blackout, for comparison */
  two_paths(&c2, "mp-ccid2");
  assert_int_equal(sim_run(&c2, &r2), 0);
  print_message("blackout of path 0 4..9 s: %.2f Mbit/s (%.2f without), "
                "path 0 dead %llu back %llu, %.2f Mbit/s over path 0, "
                "%.2f over path 1; blackout losses %llu\n",
                f->goodput_bps / 1e6, r2.flows[0].goodput_bps / 1e6,
                (unsigned long long)f->paths[0].deaths,
                (unsigned long long)f->paths[0].revivals,
                f->paths[0].goodput_bps / 1e6, f->paths[1].goodput_bps / 1e6,
                (unsigned long long)(r.path_fwd[0].lost_blackout +
                                     r.path_rev[0].lost_blackout));
  assert_true(r.path_fwd[0].lost_blackout + r.path_rev[0].lost_blackout > 0);
  assert_true(f->paths[0].deaths >= 1);
  assert_true(f->paths[0].revivals >= 1);
  /* no second of the run without data: the per-second series */
  for (size_t k = 0; k < f->n_series; k++) {
    assert_true(f->rate_series[k] > 0.5 * 3.2e6);
  }
  /* path 0 back: 6 of 15 s without it costs less than 6/15 of the
   * goodput it gave */
  assert_true(f->goodput_bps > r2.flows[0].goodput_bps -
                                   0.5 * r2.flows[0].paths[0].goodput_bps);
  assert_int_equal(f->mp_disorder, 0);
  assert_true(f->closed_ok);
  sim_result_free(&r);
  sim_result_free(&r2);
}

/* The redundant scheduler: both paths lose 3 % of packets, independently;
 * with every datagram on both paths the application misses only those
 * lost on both (about 0.1 %), against ~3 % with min-RTT; the receiver
 * drops the copies by MP_SEQ, with reordering on and off. */
static double lossy(sim_result *r, int sched, int reorder_off) {
  sim_config c;
  two_paths(&c, "mp-ccid2");
  c.paths[0].rate_bps = c.paths[1].rate_bps = 4000000;
  c.paths[1].delay = 15 * MS;
  c.paths[0].loss = c.paths[1].loss = 0.03;
  c.duration = 10 * S;
  c.mp_sched = sched;
  c.mp_reorder_off = reorder_off;
  assert_int_equal(sim_run(&c, r), 0);
  const sim_flow_result *f = &r->flows[0];
  assert_string_equal(f->err, "");
  assert_true(f->mp_active);
  assert_true(f->mp_placed > 1000);
  /* never a datagram twice: at most the numbers placed reach the app */
  assert_true(f->mp_delivered <= f->mp_placed);
  return 1.0 - (double)f->mp_delivered / (double)f->mp_placed;
}

static void test_sim_paths_mp_redundant(void **state) {
  sim_result r;
  (void)state;
  double miss_min = lossy(&r, UDCCP_MP_SCHED_MINRTT, 0);
  sim_result_free(&r);
  double miss_red = lossy(&r, UDCCP_MP_SCHED_REDUNDANT, 0);
  const sim_flow_result *f = &r.flows[0];
  print_message("3 %% loss on each path: min-RTT misses %.4f, redundant "
                "%.4f of the datagrams (%llu placed, %llu + %llu copies "
                "sent, %llu delivered, %llu + %llu copies dropped as "
                "duplicate / late, %.2f Mbit/s)\n",
                miss_min, miss_red, (unsigned long long)f->mp_placed,
                (unsigned long long)f->paths[0].tx_dgrams,
                (unsigned long long)f->paths[1].tx_dgrams,
                (unsigned long long)f->mp_delivered,
                (unsigned long long)f->mp_dup_dropped,
                (unsigned long long)f->mp_late_dropped, f->goodput_bps / 1e6);
  /* most datagrams went on both paths */
  assert_true(f->paths[0].tx_dgrams > f->mp_placed / 2);
  assert_true(f->paths[1].tx_dgrams > f->mp_placed / 2);
  /* with reordering on, a copy that comes after its number was released
   * counts as late */
  assert_true(f->mp_dup_dropped + f->mp_late_dropped > f->mp_placed / 2);
  assert_int_equal(f->mp_disorder, 0);
  assert_true(miss_min > 0.02);
  assert_true(miss_red < 0.01);
  sim_result_free(&r);
  /* without reordering the copies are dropped all the same */
  miss_red = lossy(&r, UDCCP_MP_SCHED_REDUNDANT, 1);
  f = &r.flows[0];
  print_message("reordering off: redundant misses %.4f, %llu copies "
                "dropped\n", miss_red, (unsigned long long)f->mp_dup_dropped);
  assert_true(f->mp_dup_dropped > f->mp_placed / 2);
  assert_true(miss_red < 0.01);
  sim_result_free(&r);
}

/* An application-limited multipath flow (sim_flow_opts.app_rate_bps,
 * udccp-sim "mp-ccid2:app=RATE"): the sender is given 4 Mbit/s, both
 * paths could carry more.  Multipath flows used to ignore the rate and
 * send greedily (both paths full, 10+ Mbit/s).  Round-robin (RFC 9897
 * §3.11.2 leaves the scheduler open; ours alternates among the paths
 * whose CCID lets a datagram leave) splits the datagrams evenly although
 * the paths' RTTs differ fourfold: each path's CCID sees data waiting
 * for it and its pacing rate grows to its share. */
static void test_sim_paths_mp_app_limited_rr_even(void **state) {
  sim_config c;
  sim_result r;
  (void)state;
  two_paths(&c, "mp-ccid2");
  c.mp_sched = UDCCP_MP_SCHED_RR;
  c.duration = 10 * S;
  c.flow_opts[0].app_rate_bps = 4000000;
  assert_int_equal(sim_run(&c, &r), 0);
  const sim_flow_result *f = &r.flows[0];
  assert_string_equal(f->err, "");
  print_message("app 4 Mbit/s, round-robin: %.2f Mbit/s; path 0 %llu "
                "datagrams (share %.3f, rtt %.1f ms), path 1 %llu (share "
                "%.3f, rtt %.1f ms); %llu delivered, %llu out of order\n",
                f->goodput_bps / 1e6,
                (unsigned long long)f->paths[0].tx_dgrams, f->paths[0].share,
                f->paths[0].rtt_ms, (unsigned long long)f->paths[1].tx_dgrams,
                f->paths[1].share, f->paths[1].rtt_ms,
                (unsigned long long)f->delivered_pkts,
                (unsigned long long)f->mp_disorder);
  assert_true(f->mp_active);
  assert_int_equal(f->n_paths, 2);
  /* the application's rate, not the paths' 11.2 Mbit/s */
  assert_true(f->goodput_bps > 0.9 * 4e6 && f->goodput_bps < 1.1 * 4e6);
  assert_true(f->paths[0].share > 0.45 && f->paths[0].share < 0.55);
  assert_true(f->paths[1].share > 0.45 && f->paths[1].share < 0.55);
  assert_int_equal(f->mp_disorder, 0);
  assert_true(f->closed_ok);
  sim_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sim_paths_single_path_flow_on_path_0),
      cmocka_unit_test(test_sim_paths_mp_aggregate),
      cmocka_unit_test(test_sim_paths_mp_bound_slow_path_ccid_queue),
      cmocka_unit_test(test_sim_paths_mp_blackout_handover),
      cmocka_unit_test(test_sim_paths_mp_redundant),
      cmocka_unit_test(test_sim_paths_mp_app_limited_rr_even),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * The simulator's reference TCP (sim/flow_tcp.c), the yardstick udccp's
 * fairness is measured against: it must fill a link, share it fairly with
 * itself, follow the Mathis et al. throughput formula under random loss
 * (RFC 5681 congestion avoidance, RFC 6675 SACK recovery), survive heavy
 * loss through RFC 6298 timeouts, and find lost retransmissions by RACK
 * (RFC 8985) rather than by a timeout.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bneck.h"
#include "sim.h"
#include "sim_parse.h"
#include "sim_tcp_bbr.h"
#include "simrun.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

/* The current test's result; freed by the teardown even when an assertion
 * fails half-way. */
static sim_result g_res;

static int free_result(void **state) {
  (void)state;
  sim_result_free(&g_res);
  return 0;
}


static void test_sim_tcp_reno_fills_10mbit_10ms(void **state) {
  (void)state;
  udccp_test_sim_run("tcp", 10000000, 10 * MS, 30 * S, 0, &g_res);
  printf("tcp alone on 10mbit/10ms/30s: utilization %.3f (need >= 0.90)\n",
         g_res.utilization);
  assert_true(g_res.utilization >= 0.90);
  assert_true(g_res.utilization <= 1.0);
  /* a queue of one BDP means drops happen: the flow must have seen some */
  assert_true(g_res.flows[0].loss_rate > 0);
  sim_result_free(&g_res);
}

static void test_sim_tcp_two_flows_share_fairly(void **state) {
  (void)state;
  udccp_test_sim_run("tcp,tcp", 10000000, 10 * MS, 60 * S, 0, &g_res);
  double ratio = g_res.flows[0].goodput_bps / g_res.flows[1].goodput_bps;
  printf("tcp,tcp on 10mbit/10ms/60s: jain %.4f (need >= 0.95), ratio %.3f, "
         "utilization %.3f (need >= 0.90)\n", g_res.jain_fairness, ratio,
         g_res.utilization);
  assert_true(g_res.jain_fairness >= 0.95);
  assert_true(g_res.utilization >= 0.90);
  sim_result_free(&g_res);
}

static void test_rfc5681_tcp_follows_mathis_formula_under_random_loss(void **state) {
  (void)state;
  /* Mathis et al.: rate = MSS / RTT x sqrt(3/2) / sqrt(p) for periodic
   * loss with congestion avoidance; a 100 Mbit/s link keeps the flow
   * loss-limited, not link-limited. */
  double p = 0.01;
  udccp_test_sim_run("tcp", 100000000, 20 * MS, 60 * S, p, &g_res);
  double rtt = g_res.flows[0].rtt_ms / 1e3;
  double mathis = 1460 * 8 / rtt * sqrt(1.5) / sqrt(p);
  double ratio = g_res.flows[0].goodput_bps / mathis;
  printf("tcp, loss %.2f, rtt %.1f ms: goodput %.3f Mbit/s, Mathis %.3f "
         "Mbit/s, ratio %.3f (need 0.7 .. 1.4)\n", p, rtt * 1e3,
         g_res.flows[0].goodput_bps / 1e6, mathis / 1e6, ratio);
  assert_true(ratio >= 0.7 && ratio <= 1.4);
  sim_result_free(&g_res);
}

static void test_rfc6298_tcp_survives_heavy_loss_by_timeouts(void **state) {
  (void)state;
  udccp_test_sim_run("tcp", 10000000, 10 * MS, 30 * S, 0.2, &g_res);
  printf("tcp with 20%% loss: %llu segments delivered in order\n",
         (unsigned long long)g_res.flows[0].delivered_pkts);
  assert_true(g_res.flows[0].delivered_pkts > 50);
  assert_true(g_res.flows[0].loss_rate > 0.15 && g_res.flows[0].loss_rate < 0.25);
  sim_result_free(&g_res);
}

static void test_rfc6675_sack_recovers_slow_start_overshoot_without_rto(void **state) {
  (void)state;
  /* Slow start overshoots a 1-BDP queue by a whole window: hundreds of
   * holes, which SACK recovery must repair in about one RTT, with no
   * retransmission timeout (NewReno would stall for seconds). */
  udccp_test_sim_run("tcp", 100000000, 10 * MS, 30 * S, 0, &g_res);
  const char *desc = g_res.flows[0].close_desc;
  printf("tcp on 100mbit/10ms: utilization %.3f (need >= 0.90), cov %.3f "
         "(need < 0.3); %s (need 0 timeouts)\n", g_res.utilization,
         g_res.flows[0].rate_cov, desc);
  assert_true(g_res.utilization >= 0.90);
  assert_true(g_res.flows[0].rate_cov < 0.3);
  assert_non_null(strstr(desc, ", 0 timeouts"));
}

/* The "N retransmits, N recoveries, N timeouts, N RACK losses" of a
 * reference TCP flow's close description. */
static void tcp_counts(const sim_flow_result *r, unsigned long long *retx,
                       unsigned long long *timeouts,
                       unsigned long long *rack) {
  const char *p = strstr(r->close_desc, "); ");
  unsigned long long rec;
  assert_non_null(p);
  assert_int_equal(sscanf(p + 3, "%llu retransmits, %llu recoveries, %llu "
                                 "timeouts, %llu RACK losses",
                          retx, &rec, timeouts, rack),
                   4);
}

static void test_rfc8985_rack_repairs_lost_retransmissions_without_rto(void **state) {
  (void)state;
  /* 2 % random loss (both directions) on 100 Mbit/s x 40 ms: about one
   * resend in 50 is lost again.  RFC 6675's DupThresh rule never sees a
   * lost resend (nothing SACKed "above" it arrives later), so each cost
   * a retransmission timeout (seed 1: Reno 8, the BBR-like TCP 18 in
   * 60 s); RACK marks it lost once a segment sent after it is delivered
   * and resends it within an RTT.  What may still time out is a tail
   * loss (no Tail Loss Probe in the model). */
  static const char *kinds[] = {"tcp", "tcp-bbr"};
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
    unsigned long long retx, timeouts, rack;
    udccp_test_sim_run(kinds[i], 100000000, 20 * MS, 60 * S, 0.02, &g_res);
    tcp_counts(&g_res.flows[0], &retx, &timeouts, &rack);
    printf("%s, 2%% loss, 100mbit/20ms/60s: %llu retransmits, %llu RACK "
           "losses, %llu timeouts (need >= 200, >= 200, <= 2)\n", kinds[i],
           retx, rack, timeouts);
    assert_true(retx >= 200);
    assert_true(rack >= 200);
    assert_true(timeouts <= 2);
    sim_result_free(&g_res);
  }
}

static void test_rfc5681_4_2_delayed_ack_halves_the_acks(void **state) {
  (void)state;
  udccp_test_sim_run("tcp-delack", 10000000, 10 * MS, 30 * S, 0, &g_res);
  double acks_per_seg = (double)g_res.rev.forwarded /
                        (double)(g_res.fwd.forwarded ? g_res.fwd.forwarded : 1);
  printf("tcp-delack: %.3f acks per data segment (need 0.45 .. 0.6), "
         "utilization %.3f (need >= 0.90)\n", acks_per_seg, g_res.utilization);
  assert_true(acks_per_seg >= 0.45 && acks_per_seg <= 0.6);
  assert_true(g_res.utilization >= 0.90);
}

static void test_sim_tcp_bbr_startup_doubles_per_round(void **state) {
  (void)state;
  /* draft-ietf-ccwg-bbr Startup: cwnd = 2 x BDP + extra_acked doubles
   * the flight each round.  The rate samples lag a doubling flight (each
   * interval also spans the spread of the round before), so without the
   * ACK-aggregation term cwnd sat at 2 x the last round's rate and grew
   * x1.6 per round: 1 Gbit/s x 100 ms, the first 1.5 s (data from ~0.2
   * s after the handshake): 2,505 segments delivered without it, 15,245
   * with it (x2 per round from 3 segments gives ~16,000). */
  udccp_test_sim_run("tcp-bbr", 1000000000, 50 * MS, 1500 * MS, 0, &g_res);
  printf("tcp-bbr 1gbit/100ms, first 1.5 s: %llu segments delivered (need "
         ">= 8000)\n", (unsigned long long)g_res.flows[0].delivered_pkts);
  assert_true(g_res.flows[0].delivered_pkts >= 8000);
}

/* The BBR model of tcp-bbr alone (sim/tcp_bbr.c), fed by a window-clocked
 * sender through a FIFO bottleneck of 1,000 segments/s with no loss and a
 * 100 ms base RTT: every ack sends what cwnd allows (no pacing, so the
 * flight stays at cwnd: ProbeBW_DOWN never drains to the BDP and goes
 * straight to REFILL when its wait is over). */
typedef struct {
  tcp_bbr b;
  bneck p; /* the path (tests/support/bneck.h) */
} bbr_feed;

/* the current test's feed, freed by the teardown */
static bbr_feed g_feed;

static bbr_feed *feed_init(void) {
  memset(&g_feed, 0, sizeof(g_feed));
  assert_int_equal(tcp_bbr_init(&g_feed.b, 10, 7), 0);
  return &g_feed;
}

static int feed_free(void **state) {
  (void)state;
  tcp_bbr_free(&g_feed.b);
  return 0;
}

/* One ack (of the oldest segment), then what cwnd allows. */
static void feed_step(bbr_feed *f) {
  if (bneck_inflight(&f->p) > 0) {
    uint64_t q = bneck_ack(&f->p);
    tcp_bbr_delivered(&f->b, q, 0, f->p.now);
    tcp_bbr_ack(&f->b, bneck_inflight(&f->p), f->p.now);
  }
  while (bneck_room(&f->p, tcp_bbr_cwnd(&f->b))) {
    assert_int_equal(tcp_bbr_sent(&f->b, f->p.next, f->p.una,
                                  bneck_inflight(&f->p) + 1, f->p.now), 0);
    (void)bneck_send(&f->p);
  }
}

static void test_bbr_draft_inflight_longterm_grows_1_2_4_per_round(void **state) {
  /* draft-ietf-ccwg-bbr, ProbeBW_UP (Accelerating to Probe for Bandwidth,
   * ProbeInflightLongtermUpward): while inflight_longterm (inflight_hi)
   * holds a window the sender fills, it grows by 1, 2, 4, 8... per round.
   * tcp-bbr raised it by an eighth per round (12+ segments a round at
   * 100), a yardstick far more eager than the draft and the CCID. */
  bbr_feed *f;
  double hi0 = 0;
  uint64_t r0 = 0;
  int steps = 0;
  (void)state;
  f = feed_init();
  while (f->b.state != TCP_BBR_CRUISE && f->b.state != TCP_BBR_DOWN &&
         steps++ < 1000000) {
    feed_step(f);
  }
  assert_true(f->b.filled);
  /* inflight_hi 120 (1.2 BDP, as an earlier probe's losses would have
   * set it), held for 3 RTTs so that the flight has followed it, then a
   * probe at the next ack */
  while (f->b.state == TCP_BBR_DOWN && f->p.now < 3 * S && steps++ < 1000000) {
    udccp_tstamp t0 = f->p.now;
    while (f->p.now < t0 + 300 * MS && steps++ < 1000000) {
      f->b.inflight_hi = 120;
      f->b.cwnd = f->b.cwnd < 120 ? f->b.cwnd : 120;
      feed_step(f);
    }
    break;
  }
  f->b.inflight_hi = 120;
  f->b.wait = 0;
  while (f->b.state != TCP_BBR_UP && steps++ < 1000000) {
    feed_step(f);
  }
  assert_int_equal(f->b.state, TCP_BBR_UP);
  hi0 = f->b.inflight_hi;
  r0 = f->b.rounds;
  while (f->b.rounds < r0 + 3 && f->b.state == TCP_BBR_UP &&
         steps++ < 1000000) {
    feed_step(f);
  }
  printf("tcp-bbr model, ProbeBW_UP: inflight_hi %.0f -> %.0f in 3 rounds "
         "(draft: +1, +2, +4), state %d\n", hi0, f->b.inflight_hi,
         f->b.state);
  assert_int_equal(f->b.state, TCP_BBR_UP);
  assert_true(f->b.inflight_hi > hi0);
  assert_true(f->b.inflight_hi <= hi0 + 8);
}

static void test_bbr_draft_max_bw_filter_advances_without_cruise(void **state) {
  /* draft-ietf-ccwg-bbr, Tracking Time for the BBR.max_bw Max Filter and
   * AdaptLongTermModel: the filter's cycle advances at the first round
   * start after ProbeBW_DOWN starts (ACKS_PROBE_STOPPING), whether or not
   * DOWN reaches CRUISE.  tcp-bbr advanced it on DOWN -> CRUISE only, so
   * a flow whose DOWN never drained to its BDP (a queue kept by another
   * flow) kept its largest sample for ever. */
  bbr_feed *f;
  int steps = 0, downs = 0, cruises = 0, prev = -1;
  uint64_t r_down = 0;
  double before = 0;
  (void)state;
  f = feed_init();
  while (downs < 3 && steps++ < 2000000) {
    feed_step(f);
    if (f->b.state == TCP_BBR_CRUISE) {
      cruises++;
    }
    if (f->b.state == TCP_BBR_DOWN && prev != TCP_BBR_DOWN) {
      downs++;
      r_down = f->b.rounds;
      before = f->b.bw_slot[0];
    }
    if (f->b.state == TCP_BBR_DOWN && downs >= 2 &&
        f->b.rounds == r_down + 1) {
      break;
    }
    prev = f->b.state;
  }
  printf("tcp-bbr model: %d DOWN phases, %d acks in CRUISE; a round after "
         "DOWN began the filter holds %.0f (last cycle) and %.0f (this "
         "one), the last cycle's max was %.0f\n", downs, cruises,
         f->b.bw_slot[1], f->b.bw_slot[0], before);
  assert_int_equal(f->b.state, TCP_BBR_DOWN);
  assert_int_equal(cruises, 0);
  assert_true(before > 0);
  assert_true(f->b.bw_slot[1] == before);
  assert_true(f->b.bw_slot[0] < before);
}

static void test_bbr_up_queue_exit_waits_for_the_probes_acks(void **state) {
  /* ProbeBW_UP's exit on 1.25 BDP in flight (not in the draft, as
   * lib/ccid_bbr.c) is taken once the probe's own acks come back
   * (ACKS_PROBE_FEEDBACK), not after a min_rtt of wall time: behind 60 ms
   * of other flows' queue (RTT 160 ms, min_rtt 100) the flight is 1.25
   * BDP before the probe starts, and the old rule ended UP after 100 ms,
   * before any segment sent in UP was acknowledged. */
  bbr_feed *f;
  udccp_tstamp up_at = 0;
  int steps = 0;
  (void)state;
  f = feed_init();
  while (f->b.state != TCP_BBR_DOWN && steps++ < 1000000) {
    feed_step(f);
  }
  f->p.cross_queue = 60 * MS;
  while (f->p.now < 2 * S && steps++ < 1000000) {
    feed_step(f); /* the RTT becomes 160 ms */
  }
  f->b.wait = 0;
  while (f->b.state != TCP_BBR_UP && steps++ < 1000000) {
    feed_step(f);
  }
  assert_int_equal(f->b.state, TCP_BBR_UP);
  up_at = f->p.now;
  while (f->b.state == TCP_BBR_UP && steps++ < 1000000) {
    feed_step(f);
  }
  printf("tcp-bbr model behind a 60 ms standing queue: ProbeBW_UP lasted "
         "%.0f ms (need >= 160, an RTT), min_rtt %.0f ms\n",
         (double)(f->p.now - up_at) / 1e6, (double)f->b.min_rtt / 1e6);
  assert_int_equal(f->b.state, TCP_BBR_DOWN);
  assert_true(f->b.min_rtt == 100 * MS);
  assert_true(f->p.now - up_at >= 160 * MS);
}

static void test_bbr_up_queue_exit_not_when_the_probe_finds_bandwidth(void **state) {
  /* As lib/ccid_bbr.c (tests/test_ccid_bbr.c): the 1.25-BDP exit of UP is
   * not taken when the probe's first round raised max_bw; the bottleneck
   * goes from 1,000 to 1,150 segments/s as the probe begins (REFILL). */
  bbr_feed *f;
  udccp_tstamp up_at;
  double bw_at_up;
  int steps = 0;
  (void)state;
  f = feed_init();
  while (f->b.state != TCP_BBR_UP && steps++ < 2000000) {
    feed_step(f);
    if (f->b.state == TCP_BBR_REFILL && f->p.gap == 0) {
      bneck_set_gap(&f->p, MS * 20 / 23);
    }
  }
  assert_int_equal(f->b.state, TCP_BBR_UP);
  up_at = f->p.now;
  bw_at_up = f->b.max_bw;
  while (f->b.state == TCP_BBR_UP && steps++ < 2000000) {
    feed_step(f);
  }
  printf("tcp-bbr model, bottleneck 1,000 -> 1,150 segments/s from REFILL: "
         "UP lasted %.0f ms (need >= 300, 3 rounds), max_bw %.0f -> %.0f\n",
         (double)(f->p.now - up_at) / 1e6, bw_at_up, f->b.max_bw);
  assert_true(bw_at_up < 1010);
  assert_true(f->b.max_bw > 1100);
  assert_true(f->p.now - up_at >= 300 * MS);
}

/* Of the newest n x stride segments in flight, every stride-th one is
 * marked lost, oldest first (1: one contiguous range of n). */
static void feed_lose(bbr_feed *f, unsigned n, unsigned stride) {
  unsigned i;
  for (i = n; i > 0; i--) {
    tcp_bbr_lost(&f->b, f->p.next - (uint64_t)i * stride);
  }
}

static bbr_feed *startup_with_losses(unsigned n, unsigned stride) {
  bbr_feed *f = feed_init();
  udccp_tstamp t0;
  int steps = 0;
  while (f->b.cwnd < 60 && steps++ < 100000) {
    feed_step(f);
  }
  assert_int_equal(f->b.state, TCP_BBR_STARTUP);
  feed_lose(f, n, stride);
  t0 = f->p.now;
  while (f->p.now < t0 + 200 * MS && steps++ < 100000) {
    feed_step(f);
  }
  return f;
}

static void test_bbr_draft_tcp_bbr_startup_loss_exit_counts_lost_ranges(void **state) {
  /* draft-ietf-ccwg-bbr, Exiting Startup Based on Packet Loss: at least
   * 6 discontiguous lost sequence ranges in the round (and > 2 % lost),
   * not 6 lost segments: one burst of 12 drops does not end Startup, 6
   * single losses do. */
  bbr_feed *f;
  (void)state;
  f = startup_with_losses(12, 1);
  printf("tcp-bbr model, Startup, 12 of ~60 lost as one range: filled %d, "
         "state %d\n", f->b.filled, f->b.state);
  assert_false(f->b.filled);
  assert_int_equal(f->b.state, TCP_BBR_STARTUP);
  tcp_bbr_free(&f->b);
  f = startup_with_losses(6, 2);
  printf("tcp-bbr model, Startup, 6 single losses: filled %d, state %d, "
         "inflight_hi %g\n", f->b.filled, f->b.state, f->b.inflight_hi);
  assert_true(f->b.filled);
  assert_int_not_equal(f->b.state, TCP_BBR_STARTUP);
  assert_true(f->b.inflight_hi < 1e299);
}

static void test_bbr_draft_tcp_bbr_loss_sample_leaves_the_ack_rate_sample(void **state) {
  /* draft-ietf-ccwg-bbr, HandleLostPacket: a probing segment's loss that
   * is IsInflightTooHigh cuts inflight_hi to InflightAtLoss with the lost
   * segment's own figures; the ack's rate sample (RS.tx_in_flight of the
   * newest segment it acknowledges) is not overwritten by them, and that
   * ack does not raise inflight_hi again from its own sample.  tcp-bbr
   * wrote InflightAtLoss and the lost segment's app-limited mark into the
   * ack's sample. */
  bbr_feed *f;
  uint64_t q, acked_inflight;
  double hi;
  int steps = 0;
  (void)state;
  f = feed_init();
  while (f->b.state != TCP_BBR_UP && steps++ < 2000000) {
    feed_step(f);
  }
  assert_int_equal(f->b.state, TCP_BBR_UP);
  assert_true(f->b.probe_sample);
  q = bneck_ack(&f->p);
  acked_inflight = f->b.ring[q & f->b.mask].inflight;
  tcp_bbr_delivered(&f->b, q, 0, f->p.now);
  feed_lose(f, 10, 1); /* the 5th passes 2 % of ~200 in flight */
  hi = f->b.inflight_hi;
  printf("tcp-bbr model, UP, 10 of the newest lost: state %d (2: DOWN), "
         "inflight_hi %.0f, the ack's tx_in_flight %llu (acked segment's "
         "%llu)\n", f->b.state, hi, (unsigned long long)f->b.rs_inflight,
         (unsigned long long)acked_inflight);
  assert_int_equal(f->b.state, TCP_BBR_DOWN);
  assert_true(hi < 1e299);
  assert_int_equal(f->b.rs_inflight, acked_inflight);
  assert_true((double)acked_inflight > hi);
  tcp_bbr_ack(&f->b, bneck_inflight(&f->p), f->p.now);
  printf("tcp-bbr model, after that ack: inflight_hi %.0f\n",
         f->b.inflight_hi);
  assert_true(f->b.inflight_hi == hi);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_sim_tcp_reno_fills_10mbit_10ms, free_result),
      cmocka_unit_test_teardown(test_sim_tcp_two_flows_share_fairly, free_result),
      cmocka_unit_test_teardown(test_rfc5681_tcp_follows_mathis_formula_under_random_loss, free_result),
      cmocka_unit_test_teardown(test_rfc6298_tcp_survives_heavy_loss_by_timeouts, free_result),
      cmocka_unit_test_teardown(test_rfc6675_sack_recovers_slow_start_overshoot_without_rto, free_result),
      cmocka_unit_test_teardown(test_rfc5681_4_2_delayed_ack_halves_the_acks, free_result),
      cmocka_unit_test_teardown(test_rfc8985_rack_repairs_lost_retransmissions_without_rto, free_result),
      cmocka_unit_test_teardown(test_sim_tcp_bbr_startup_doubles_per_round, free_result),
      cmocka_unit_test_teardown(test_bbr_draft_inflight_longterm_grows_1_2_4_per_round, feed_free),
      cmocka_unit_test_teardown(test_bbr_draft_max_bw_filter_advances_without_cruise, feed_free),
      cmocka_unit_test_teardown(test_bbr_up_queue_exit_waits_for_the_probes_acks, feed_free),
      cmocka_unit_test_teardown(test_bbr_up_queue_exit_not_when_the_probe_finds_bandwidth, feed_free),
      cmocka_unit_test_teardown(test_bbr_draft_tcp_bbr_startup_loss_exit_counts_lost_ranges, feed_free),
      cmocka_unit_test_teardown(test_bbr_draft_tcp_bbr_loss_sample_leaves_the_ack_rate_sample, feed_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

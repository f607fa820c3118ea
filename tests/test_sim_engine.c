/* SPDX-License-Identifier: MIT */
/*
 * The simulator's machinery (sim/): event ordering, the PRNG, link
 * arithmetic (serialisation + propagation, drop-tail, random and burst
 * loss, reordering, duplication), argument parsing and run determinism.
 * These tests do not need the connection engine: runs use TCP flows.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim.h"
#include "sim_evq.h"
#include "sim_flow.h"
#include "sim_link.h"
#include "sim_parse.h"
#include "sim_report.h"
#include "sim_rng.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

/* ---------------------------------------------------------- events */

static void test_sim_evq_orders_by_time_then_insertion(void **state) {
  (void)state;
  sim_evq q;
  assert_int_equal(sim_evq_init(&q, 2), 0);
  /* same time: must come out in insertion order (determinism) */
  static const udccp_tstamp at[] = {30, 10, 20, 10, 30, 10, 0};
  for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
    assert_int_equal(sim_evq_push(&q, at[i], 1, (uint8_t)i, 0, NULL), 0);
  }
  static const uint8_t expect[] = {6, 1, 3, 5, 2, 0, 4};
  sim_event ev;
  for (size_t i = 0; i < sizeof(expect); i++) {
    assert_int_equal(sim_evq_pop(&q, &ev), 0);
    assert_int_equal(ev.which, expect[i]);
  }
  assert_int_equal(sim_evq_pop(&q, &ev), -1);
  sim_evq_free(&q);
}

static void test_sim_evq_heap_matches_sort_on_random_input(void **state) {
  (void)state;
  sim_evq q;
  sim_rng r;
  sim_rng_seed(&r, 7, 0);
  assert_int_equal(sim_evq_init(&q, 16), 0);
  enum { N = 20000 };
  udccp_tstamp last = 0;
  uint64_t last_order = 0;
  size_t popped = 0;
  for (int i = 0; i < N; i++) {
    assert_int_equal(sim_evq_push(&q, last + sim_rng_below(&r, 100), 0, 0, 0,
                                  NULL), 0);
    if (sim_rng_below(&r, 3) == 0) { /* interleave pops, as the sim does */
      sim_event ev;
      assert_int_equal(sim_evq_pop(&q, &ev), 0);
      assert_true(ev.at > last || (ev.at == last && ev.order > last_order) ||
                  popped == 0);
      last = ev.at;
      last_order = ev.order;
      popped++;
    }
  }
  sim_event ev;
  while (sim_evq_pop(&q, &ev) == 0) {
    assert_true(ev.at > last || (ev.at == last && ev.order > last_order));
    last = ev.at;
    last_order = ev.order;
    popped++;
  }
  assert_int_equal(popped, N);
  sim_evq_free(&q);
}

/* ------------------------------------------------------------- PRNG */

static void test_sim_rng_is_deterministic_per_seed_and_stream(void **state) {
  (void)state;
  sim_rng a, b, c, d;
  sim_rng_seed(&a, 42, 1);
  sim_rng_seed(&b, 42, 1);
  sim_rng_seed(&c, 42, 2);
  sim_rng_seed(&d, 43, 1);
  int diff_c = 0, diff_d = 0;
  for (int i = 0; i < 100; i++) {
    uint64_t x = sim_rng_next(&a);
    assert_true(x == sim_rng_next(&b));
    diff_c += x != sim_rng_next(&c);
    diff_d += x != sim_rng_next(&d);
  }
  assert_int_equal(diff_c, 100);
  assert_int_equal(diff_d, 100);
  /* uniform() stays in [0, 1) and its mean is near 1/2 */
  double sum = 0;
  for (int i = 0; i < 100000; i++) {
    double u = sim_rng_uniform(&a);
    assert_true(u >= 0.0 && u < 1.0);
    sum += u;
  }
  printf("uniform mean over 1e5 draws: %.4f (expect 0.5 +- 0.005)\n",
         sum / 1e5);
  assert_true(fabs(sum / 1e5 - 0.5) < 0.005);
}

/* ------------------------------------------------------------- links */

static sim_link_cfg link_cfg(uint64_t rate, udccp_tstamp delay, uint32_t q) {
  sim_link_cfg c = {0};
  c.rate_bps = rate;
  c.delay = delay;
  c.queue_pkts = q;
  c.ge_h = 1.0;
  return c;
}

static void test_sim_link_arrival_is_serialisation_plus_propagation(void **state) {
  (void)state;
  sim_link l;
  sim_link_cfg c = link_cfg(10000000, 10 * MS, 100);
  assert_int_equal(sim_link_init(&l, &c, 1, 1), 0);
  udccp_tstamp arr[2];
  int verdict;
  /* 1500 bytes at 10 Mbit/s = 1.2 ms exactly, + 10 ms */
  assert_int_equal(sim_link_send(&l, 1500, 5 * S, arr, &verdict), 1);
  assert_int_equal(verdict, SIM_LINK_SENT);
  printf("1500 B at 10 Mbit/s + 10 ms: arrives after %llu ns (expect 11200000)\n",
         (unsigned long long)(arr[0] - 5 * S));
  assert_int_equal(arr[0], 5 * S + 1200000 + 10 * MS);
  /* a second packet at the same instant waits for the first */
  assert_int_equal(sim_link_send(&l, 1500, 5 * S, arr, &verdict), 1);
  assert_int_equal(arr[0], 5 * S + 2 * 1200000 + 10 * MS);
  assert_int_equal(sim_link_backlog(&l, 5 * S), 2);
  assert_int_equal(sim_link_backlog(&l, 5 * S + 1200000), 1);
  assert_int_equal(sim_link_backlog(&l, 5 * S + 2400000), 0);
  sim_link_free(&l);
}

static void test_sim_link_fractional_serialisation_does_not_drift(void **state) {
  (void)state;
  sim_link l;
  /* 1000 bytes at 3 Mbit/s = 8000/3 us = 2666666.67 ns: not a whole ns */
  sim_link_cfg c = link_cfg(3000000, 0, 2000);
  assert_int_equal(sim_link_init(&l, &c, 1, 1), 0);
  udccp_tstamp arr[2];
  int verdict;
  for (uint64_t k = 1; k <= 1500; k++) {
    assert_int_equal(sim_link_send(&l, 1000, 0, arr, &verdict), 1);
    /* k packets finish at ceil(k x 8000 / 3e6 s) exactly */
    uint64_t exact_num = k * 8000ULL * S;
    assert_int_equal(arr[0], (exact_num + 3000000 - 1) / 3000000);
  }
  printf("1500 back-to-back 1000 B packets at 3 Mbit/s: last at %llu ns "
         "(expect 4000000000)\n", (unsigned long long)arr[0]);
  assert_int_equal(arr[0], 4 * S);
  sim_link_free(&l);
}

static void test_sim_link_drop_tail_queue_overflow(void **state) {
  (void)state;
  sim_link l;
  sim_link_cfg c = link_cfg(1000000, 1 * MS, 5);
  assert_int_equal(sim_link_init(&l, &c, 1, 1), 0);
  udccp_tstamp arr[2];
  int verdict, sent = 0, dropped = 0;
  for (int i = 0; i < 12; i++) {
    if (sim_link_send(&l, 1000, 0, arr, &verdict) == 1) {
      sent++;
    } else {
      assert_int_equal(verdict, SIM_LINK_DROPPED_QUEUE);
      dropped++;
    }
  }
  printf("queue 5, 12 packets offered at once: %d sent, %d dropped\n", sent,
         dropped);
  assert_int_equal(sent, 5);
  assert_int_equal(dropped, 7);
  assert_int_equal(l.stats.dropped_queue, 7);
  /* one packet time later (8 ms at 1 Mbit/s) there is room for one more */
  assert_int_equal(sim_link_send(&l, 1000, 8 * MS, arr, &verdict), 1);
  assert_int_equal(arr[0], 6 * 8 * MS + 1 * MS);
  assert_int_equal(sim_link_send(&l, 1000, 8 * MS, arr, &verdict), 0);
  sim_link_free(&l);
}

static void test_sim_link_random_loss_rate_within_bounds(void **state) {
  (void)state;
  sim_link l;
  sim_link_cfg c = link_cfg(1000000000, 0, 1000);
  c.loss = 0.1;
  assert_int_equal(sim_link_init(&l, &c, 12345, 1), 0);
  udccp_tstamp arr[2];
  int verdict, lost = 0;
  enum { N = 100000 };
  for (int i = 0; i < N; i++) {
    /* spaced out so the queue never fills: only random loss acts */
    if (sim_link_send(&l, 100, (udccp_tstamp)i * 10000, arr, &verdict) == 0) {
      assert_int_equal(verdict, SIM_LINK_LOST_RANDOM);
      lost++;
    }
  }
  /* binomial: sigma = sqrt(N p (1-p)) ~ 95; allow 5 sigma */
  printf("loss 0.1 over %d packets: %d lost (expect 10000 +- 475)\n", N, lost);
  assert_true(lost > 10000 - 475 && lost < 10000 + 475);
  sim_link_free(&l);
}

static void test_sim_link_gilbert_elliott_bursts(void **state) {
  (void)state;
  sim_link l;
  sim_link_cfg c = link_cfg(1000000000, 0, 1000);
  c.ge_p = 0.01;
  c.ge_r = 0.25;
  c.ge_h = 1.0;
  assert_int_equal(sim_link_init(&l, &c, 99, 1), 0);
  udccp_tstamp arr[2];
  int verdict;
  enum { N = 200000 };
  int lost = 0, bursts = 0, prev_lost = 0;
  for (int i = 0; i < N; i++) {
    int n = sim_link_send(&l, 100, (udccp_tstamp)i * 10000, arr, &verdict);
    int is_lost = n == 0;
    lost += is_lost;
    bursts += is_lost && !prev_lost;
    prev_lost = is_lost;
  }
  /* stationary P(bad) = p / (p + r) = 0.0385; mean burst 1 / r = 4 */
  double rate = (double)lost / N, burst = (double)lost / bursts;
  printf("Gilbert-Elliott p=0.01 r=0.25: loss %.4f (expect 0.0385), mean "
         "burst %.2f (expect 4)\n", rate, burst);
  assert_true(rate > 0.032 && rate < 0.045);
  assert_true(burst > 3.5 && burst < 4.5);
  sim_link_free(&l);
}

/* The simulator's chain moves in time (ge_slot, issue 11): a flow that
 * sends once per slot sees the per-packet statistics; one that sends once
 * per 100 slots -- the feedback of a bulk flow -- sees the same loss rate
 * but bursts as short in time, i.e. ~1 of its packets, not 1 / r = 4 of
 * them spread over 400 slots (which kept CCID 3's feedback away for
 * seconds in the envelope's Gilbert-Elliott run). */
static void ge_time_run(udccp_tstamp every, double *rate, double *burst) {
  sim_link l;
  sim_link_cfg c = link_cfg(1000000000, 0, 1000);
  c.ge_p = 0.01;
  c.ge_r = 0.25;
  c.ge_h = 1.0;
  c.ge_slot = 12000; /* 1500 B at 1 Gbit/s */
  assert_int_equal(sim_link_init(&l, &c, 7, 1), 0);
  udccp_tstamp arr[2];
  int verdict;
  enum { N = 200000 };
  int lost = 0, bursts = 0, prev_lost = 0;
  for (int i = 0; i < N; i++) {
    int n = sim_link_send(&l, 100, (udccp_tstamp)i * every, arr, &verdict);
    int is_lost = n == 0;
    lost += is_lost;
    bursts += is_lost && !prev_lost;
    prev_lost = is_lost;
  }
  *rate = (double)lost / N;
  *burst = bursts > 0 ? (double)lost / bursts : 0.0;
  sim_link_free(&l);
}

static void test_sim_link_gilbert_elliott_in_time(void **state) {
  (void)state;
  double rate, burst;
  ge_time_run(12000, &rate, &burst);
  printf("GE per slot, one packet per slot: loss %.4f (0.0385), burst %.2f "
         "(4)\n", rate, burst);
  assert_true(rate > 0.032 && rate < 0.045);
  assert_true(burst > 3.5 && burst < 4.5);
  ge_time_run(100 * 12000, &rate, &burst);
  printf("GE per slot, one packet per 100 slots: loss %.4f (0.0385), burst "
         "%.2f (~1)\n", rate, burst);
  assert_true(rate > 0.032 && rate < 0.045);
  assert_true(burst < 1.3);
}

static void test_sim_link_reorder_and_duplicate(void **state) {
  (void)state;
  sim_link l;
  sim_link_cfg c = link_cfg(1000000000, 1 * MS, 1000);
  c.reorder = 0.2;
  c.reorder_delay = 5 * MS;
  c.dup = 0.1;
  assert_int_equal(sim_link_init(&l, &c, 5, 1), 0);
  udccp_tstamp arr[2];
  int verdict, late = 0, dups = 0;
  enum { N = 20000 };
  for (int i = 0; i < N; i++) {
    udccp_tstamp now = (udccp_tstamp)i * 100000;
    udccp_tstamp base = now + sim_link_ser_time(&l, 125) + 1 * MS;
    int n = sim_link_send(&l, 125, now, arr, &verdict);
    assert_true(n == 1 || n == 2);
    if (arr[0] == base + 5 * MS) {
      late++;
    } else {
      assert_int_equal(arr[0], base);
    }
    if (n == 2) {
      assert_int_equal(arr[1], arr[0]);
      dups++;
    }
  }
  printf("reorder 0.2: %d of %d late; dup 0.1: %d duplicated\n", late, N, dups);
  assert_true(late > 3700 && late < 4300);
  assert_true(dups > 1800 && dups < 2200);
  sim_link_free(&l);
}

/* --------------------------------------------------------- parsing */

static void test_sim_parse_rates_times_and_flows(void **state) {
  (void)state;
  char err[256];
  uint64_t bps;
  udccp_tstamp t;
  double p;
  assert_int_equal(sim_parse_rate("50mbit", &bps, err, sizeof(err)), 0);
  assert_int_equal(bps, 50000000);
  assert_int_equal(sim_parse_rate("1.5Gbit", &bps, err, sizeof(err)), 0);
  assert_int_equal(bps, 1500000000);
  assert_int_equal(sim_parse_rate("50", &bps, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "no unit"));
  assert_int_equal(sim_parse_rate("50mbps", &bps, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "mbit"));
  assert_int_equal(sim_parse_rate("fast", &bps, err, sizeof(err)), -1);
  assert_int_equal(sim_parse_time("20ms", &t, err, sizeof(err)), 0);
  assert_int_equal(t, 20 * MS);
  assert_int_equal(sim_parse_time("1.5s", &t, err, sizeof(err)), 0);
  assert_int_equal(t, 1500 * MS);
  assert_int_equal(sim_parse_time("250us", &t, err, sizeof(err)), 0);
  assert_int_equal(t, 250000);
  assert_int_equal(sim_parse_time("20", &t, err, sizeof(err)), -1);
  assert_int_equal(sim_parse_time("20min", &t, err, sizeof(err)), -1);
  assert_int_equal(sim_parse_prob("0.2", &p, err, sizeof(err)), 0);
  assert_true(p == 0.2);
  assert_int_equal(sim_parse_prob("5%", &p, err, sizeof(err)), 0);
  assert_true(fabs(p - 0.05) < 1e-12);
  assert_int_equal(sim_parse_prob("1.5", &p, err, sizeof(err)), -1);
  sim_config cfg;
  sim_config_default(&cfg);
  assert_int_equal(sim_parse_flows("ccid2,tcp", &cfg, err, sizeof(err)), 0);
  assert_int_equal(cfg.n_flows, 2);
  assert_ptr_equal(cfg.kinds[0], &sim_kind_ccid2);
  assert_ptr_equal(cfg.kinds[1], &sim_kind_tcp);
  assert_int_equal(sim_parse_flows("4xccid2,tcp", &cfg, err, sizeof(err)), 0);
  assert_int_equal(cfg.n_flows, 5);
  assert_int_equal(sim_parse_flows("ccid9", &cfg, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "unknown flow kind 'ccid9'"));
  assert_non_null(strstr(err, "tcp"));
  assert_int_equal(sim_parse_flows("ccid2,", &cfg, err, sizeof(err)), -1);
  assert_int_equal(sim_parse_flows("999xtcp", &cfg, err, sizeof(err)), -1);
  assert_int_equal(sim_bdp_pkts(50000000, 20 * MS), 167);
  assert_int_equal(sim_bdp_pkts(1000000, 0), 2);
}

/* ------------------------------------------- a flow kind of our own */

/* A probe kind: one 1500-byte packet forward at start, a 40-byte answer
 * back; it records when things happen.  It also shows that a new kind
 * needs nothing but a sim_flow_kind object. */
typedef struct probe {
  udccp_tstamp fwd_at, rev_at;
  udccp_tstamp timer_calls[8];
  int n_timer_calls;
} probe;

static probe g_probe;

static int probe_init(sim_flow *f) {
  f->priv = &g_probe;
  f->packet_size = 1460;
  sim_flow_arm(f, 0, f->start_at + 5 * MS);
  sim_flow_arm(f, 0, f->start_at + 3 * MS); /* earlier: supersedes 5 ms */
  sim_flow_arm(f, 0, f->start_at + 7 * MS); /* later: covered by 3 ms */
  return 0;
}
static void probe_timer(sim_flow *f, unsigned which, udccp_tstamp now) {
  probe *pr = f->priv;
  (void)which;
  pr->timer_calls[pr->n_timer_calls++] = now;
  if (pr->n_timer_calls == 1) {
    sim_pkt *p = sim_flow_pkt_new(f);
    assert_non_null(p);
    p->dir = SIM_DIR_FWD;
    p->wire_len = 1500;
    sim_flow_xmit(f, p, now);
  }
}
static void probe_recv(sim_flow *f, sim_pkt *p, udccp_tstamp now) {
  probe *pr = f->priv;
  int dir = p->dir;
  sim_flow_pkt_free(f, p);
  if (dir == SIM_DIR_FWD) {
    pr->fwd_at = now;
    sim_flow_delivered(f, 1460);
    sim_pkt *a = sim_flow_pkt_new(f);
    assert_non_null(a);
    a->dir = SIM_DIR_REV;
    a->wire_len = 40;
    sim_flow_xmit(f, a, now);
  } else {
    pr->rev_at = now;
  }
}
static void probe_stop(sim_flow *f, udccp_tstamp now) { (void)f, (void)now; }
static int probe_done(const sim_flow *f) { return f->stopped; }
static void probe_sample(const sim_flow *f, sim_flow_sample *smp) {
  (void)f, (void)smp;
}
static void probe_finish(sim_flow *f, sim_flow_result *r) { (void)f, (void)r; }
static const uint8_t *probe_pcap(const sim_flow *f, const sim_pkt *p,
                                 uint8_t *b, size_t cap, size_t *len,
                                 uint8_t *proto) {
  (void)f, (void)p, (void)b, (void)cap, (void)len, (void)proto;
  return NULL;
}

static const sim_flow_kind probe_kind = {
    "probe", 0, 0, "test probe", probe_init, probe_recv, probe_timer,
    probe_stop, probe_done, probe_sample, probe_finish, probe_pcap, NULL};

static void test_sim_event_engine_times_a_round_trip_exactly(void **state) {
  (void)state;
  memset(&g_probe, 0, sizeof(g_probe));
  sim_config cfg;
  sim_config_default(&cfg);
  cfg.n_flows = 1;
  cfg.kinds[0] = &probe_kind;
  cfg.rate_bps = 10000000;
  cfg.delay = 10 * MS;
  cfg.duration = 1 * S;
  cfg.start_spread = 0; /* start at 0 */
  sim_result res;
  assert_int_equal(sim_run(&cfg, &res), 0);
  printf("timer calls %d, first at %llu ns (expect 1 call at 3000000); "
         "forward arrival %llu (expect 3 ms + 1.2 ms + 10 ms = 14200000); "
         "answer %llu (expect + 32 us + 10 ms = 24232000)\n",
         g_probe.n_timer_calls, (unsigned long long)g_probe.timer_calls[0],
         (unsigned long long)g_probe.fwd_at, (unsigned long long)g_probe.rev_at);
  assert_int_equal(g_probe.n_timer_calls, 1);
  assert_int_equal(g_probe.timer_calls[0], 3 * MS);
  assert_int_equal(g_probe.fwd_at, 3 * MS + 1200000 + 10 * MS);
  assert_int_equal(g_probe.rev_at, g_probe.fwd_at + 32000 + 10 * MS);
  assert_int_equal(res.flows[0].delivered_pkts, 1);
  assert_int_equal(res.flows[0].sent_pkts, 0);
  assert_true(res.flows[0].loss_rate == 0);
  sim_result_free(&res);
}

/* ------------------------------------------------------ determinism */

static char *run_json(const char *flows, uint64_t seed, double loss) {
  sim_config cfg;
  sim_config_default(&cfg);
  char err[256];
  assert_int_equal(sim_parse_flows(flows, &cfg, err, sizeof(err)), 0);
  cfg.rate_bps = 10000000;
  cfg.delay = 10 * MS;
  cfg.duration = 10 * S;
  cfg.loss = loss;
  cfg.seed = seed;
  sim_result res;
  assert_int_equal(sim_run(&cfg, &res), 0);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  sim_report_json(f, &cfg, &res, -1);
  fclose(f);
  sim_result_free(&res);
  return buf;
}

static void test_sim_same_seed_same_result(void **state) {
  (void)state;
  char *a = run_json("tcp,tcp", 3, 0.01);
  char *b = run_json("tcp,tcp", 3, 0.01);
  char *c = run_json("tcp,tcp", 4, 0.01);
  printf("seed 3 twice: %s; seed 4: %s\n",
         strcmp(a, b) == 0 ? "identical" : "DIFFERENT",
         strcmp(a, c) == 0 ? "identical (bad)" : "different");
  assert_string_equal(a, b);
  assert_true(strcmp(a, c) != 0);
  assert_null(strstr(a, "wall_time_s"));
  free(a);
  free(b);
  free(c);
}

static void test_sim_json_has_the_contract_fields(void **state) {
  (void)state;
  char *j = run_json("tcp", 1, 0);
  static const char *const fields[] = {
      "\"flows\"", "\"ccid\": \"tcp\"", "\"packet_size\"", "\"goodput_bps\"",
      "\"loss_rate\"", "\"rtt_ms\"", "\"sent_pkts\"", "\"delivered_pkts\"",
      "\"rate_cov\"", "\"utilization\"", "\"jain_fairness\"", "\"sim_time_s\""};
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
    if (strstr(j, fields[i]) == NULL) {
      fail_msg("JSON lacks %s:\n%s", fields[i], j);
    }
  }
  free(j);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sim_evq_orders_by_time_then_insertion),
      cmocka_unit_test(test_sim_evq_heap_matches_sort_on_random_input),
      cmocka_unit_test(test_sim_rng_is_deterministic_per_seed_and_stream),
      cmocka_unit_test(test_sim_link_arrival_is_serialisation_plus_propagation),
      cmocka_unit_test(test_sim_link_fractional_serialisation_does_not_drift),
      cmocka_unit_test(test_sim_link_drop_tail_queue_overflow),
      cmocka_unit_test(test_sim_link_random_loss_rate_within_bounds),
      cmocka_unit_test(test_sim_link_gilbert_elliott_bursts),
      cmocka_unit_test(test_sim_link_gilbert_elliott_in_time),
      cmocka_unit_test(test_sim_link_reorder_and_duplicate),
      cmocka_unit_test(test_sim_parse_rates_times_and_flows),
      cmocka_unit_test(test_sim_event_engine_times_a_round_trip_exactly),
      cmocka_unit_test(test_sim_same_seed_same_result),
      cmocka_unit_test(test_sim_json_has_the_contract_fields),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

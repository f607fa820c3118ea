/* SPDX-License-Identifier: MIT */
/*
 * sim/rtlink.c, the link of udccp-linkem, in virtual time: arrival =
 * serialisation + delay, drop-tail in bytes and in packets, the fixed loss
 * burst, duplication, random loss, and the packet store (FIFO, contents
 * intact across wrap-around, memory fixed at init).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim_rng.h"
#include "sim_rtlink.h"

#define MS UDCCP_NS_PER_MS
#define US 1000ull

static sim_rtlink_cfg cfg_of(uint64_t rate, udccp_tstamp delay,
                             uint64_t qbytes, uint32_t qpkts) {
  sim_rtlink_cfg c = {0};
  c.link.rate_bps = rate;
  c.link.delay = delay;
  c.link.queue_pkts = qpkts;
  c.queue_bytes = qbytes;
  c.max_pkt = 1500;
  return c;
}

static void fill(uint8_t *p, uint32_t len, uint32_t seq) {
  for (uint32_t i = 0; i < len; i++) {
    p[i] = (uint8_t)(seq * 31 + i);
  }
}

static int check(const uint8_t *p, uint32_t len, uint32_t seq) {
  for (uint32_t i = 0; i < len; i++) {
    if (p[i] != (uint8_t)(seq * 31 + i)) {
      return 0;
    }
  }
  return 1;
}

static void test_sim_rtlink_arrival_is_serialisation_plus_delay(void **state) {
  (void)state;
  sim_rtlink l;
  /* 8 Mbit/s: 1000 bytes take 1 ms; 10 ms delay */
  sim_rtlink_cfg c = cfg_of(8000000, 10 * MS, 0, 100);
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), 0);
  uint8_t pkt[1000];
  for (uint32_t i = 0; i < 5; i++) {
    fill(pkt, sizeof(pkt), i);
    assert_int_equal(sim_rtlink_offer(&l, pkt, sizeof(pkt), 0),
                     SIM_RTLINK_QUEUED);
  }
  assert_int_equal(sim_rtlink_backlog_pkts(&l, 0), 5);
  assert_int_equal(sim_rtlink_backlog_bytes(&l, 2 * MS), 3000);
  for (uint32_t i = 0; i < 5; i++) {
    udccp_tstamp due = (i + 1) * MS + 10 * MS;
    uint32_t len = 0;
    assert_int_equal(sim_rtlink_next(&l), due);
    assert_null(sim_rtlink_peek(&l, due - 1, &len));
    const uint8_t *p = sim_rtlink_peek(&l, due, &len);
    assert_non_null(p);
    assert_int_equal(len, 1000);
    assert_true(check(p, len, i));
    assert_int_equal(sim_rtlink_pop(&l), 1);
  }
  assert_int_equal(sim_rtlink_next(&l), UINT64_MAX);
  assert_int_equal(l.stats.delivered, 5);
  assert_int_equal(l.stats.delivered_bytes, 5000);
  sim_rtlink_free(&l);
}

static void test_sim_rtlink_drop_tail_in_bytes(void **state) {
  (void)state;
  sim_rtlink l;
  sim_rtlink_cfg c = cfg_of(8000000, 5 * MS, 2500, 0);
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), 0);
  uint8_t pkt[1000] = {0};
  assert_int_equal(sim_rtlink_offer(&l, pkt, 1000, 0), SIM_RTLINK_QUEUED);
  assert_int_equal(sim_rtlink_offer(&l, pkt, 1000, 0), SIM_RTLINK_QUEUED);
  /* 2000 queued: another 1000 would exceed 2500, 500 fits */
  assert_int_equal(sim_rtlink_offer(&l, pkt, 1000, 0),
                   SIM_RTLINK_DROPPED_QUEUE);
  assert_int_equal(sim_rtlink_offer(&l, pkt, 500, 0), SIM_RTLINK_QUEUED);
  assert_int_equal(sim_rtlink_offer(&l, pkt, 1, 0), SIM_RTLINK_DROPPED_QUEUE);
  /* the first packet leaves the queue at 1 ms (not at its arrival) */
  assert_int_equal(sim_rtlink_backlog_bytes(&l, MS - 1), 2500);
  assert_int_equal(sim_rtlink_offer(&l, pkt, 1000, MS), SIM_RTLINK_QUEUED);
  assert_int_equal(l.stats.dropped_queue, 2);
  assert_int_equal(l.stats.max_backlog_bytes, 2500);
  sim_rtlink_free(&l);
}

static void test_sim_rtlink_drop_tail_in_packets(void **state) {
  (void)state;
  sim_rtlink l;
  sim_rtlink_cfg c = cfg_of(8000000, 0, 0, 2);
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), 0);
  uint8_t pkt[100] = {0};
  assert_int_equal(sim_rtlink_offer(&l, pkt, 100, 0), SIM_RTLINK_QUEUED);
  assert_int_equal(sim_rtlink_offer(&l, pkt, 100, 0), SIM_RTLINK_QUEUED);
  assert_int_equal(sim_rtlink_offer(&l, pkt, 100, 0),
                   SIM_RTLINK_DROPPED_QUEUE);
  /* 100 bytes = 100 us: the first is gone by then */
  assert_int_equal(sim_rtlink_offer(&l, pkt, 100, 100 * US),
                   SIM_RTLINK_QUEUED);
  sim_rtlink_free(&l);
}

static void test_sim_rtlink_fixed_burst_drops_n_consecutive(void **state) {
  (void)state;
  sim_rtlink l;
  sim_rtlink_cfg c = cfg_of(100000000, MS, 0, 1000);
  c.burst_at = 5 * MS;
  c.burst_pkts = 3;
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 1000 * MS), 0);
  uint8_t pkt[100] = {0};
  int lost[12];
  for (int i = 0; i < 12; i++) {
    lost[i] = sim_rtlink_offer(&l, pkt, 100, 1000 * MS + (udccp_tstamp)i * MS);
  }
  for (int i = 0; i < 12; i++) {
    int want = i >= 5 && i < 8 ? SIM_RTLINK_LOST_FIXED_BURST
                               : SIM_RTLINK_QUEUED;
    assert_int_equal(lost[i], want);
  }
  assert_int_equal(l.stats.lost_fixed_burst, 3);
  sim_rtlink_free(&l);
}

static void test_sim_rtlink_fixed_burst_after_k_packets(void **state) {
  (void)state;
  sim_rtlink l;
  sim_rtlink_cfg c = cfg_of(100000000, MS, 0, 1000);
  c.burst_after = 4;
  c.burst_pkts = 2;
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), 0);
  uint8_t pkt[100] = {0};
  for (int i = 0; i < 10; i++) {
    int want = i == 4 || i == 5 ? SIM_RTLINK_LOST_FIXED_BURST
                                : SIM_RTLINK_QUEUED;
    assert_int_equal(sim_rtlink_offer(&l, pkt, 100, (udccp_tstamp)i * MS),
                     want);
  }
  sim_rtlink_free(&l);
}

static void test_sim_rtlink_duplicate_is_delivered_twice(void **state) {
  (void)state;
  sim_rtlink l;
  sim_rtlink_cfg c = cfg_of(8000000, MS, 0, 10);
  c.link.dup = 1.0;
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), 0);
  uint8_t pkt[64];
  fill(pkt, 64, 7);
  assert_int_equal(sim_rtlink_offer(&l, pkt, 64, 0), SIM_RTLINK_QUEUED);
  uint32_t len;
  int copies = 0;
  while (sim_rtlink_peek(&l, 10 * MS, &len) != NULL) {
    copies++;
    sim_rtlink_pop(&l);
  }
  assert_int_equal(copies, 2);
  assert_int_equal(l.stats.duplicated, 1);
  sim_rtlink_free(&l);
}

static void test_sim_rtlink_random_loss_rate_within_bounds(void **state) {
  (void)state;
  sim_rtlink l;
  sim_rtlink_cfg c = cfg_of(1000000000, 0, 0, 1000);
  c.link.loss = 0.1;
  assert_int_equal(sim_rtlink_init(&l, &c, 42, 0, 0), 0);
  uint8_t pkt[100] = {0};
  uint32_t len;
  for (udccp_tstamp t = 0; t < 100000; t++) {
    sim_rtlink_offer(&l, pkt, 100, t * 10 * US);
    while (sim_rtlink_peek(&l, t * 10 * US, &len) != NULL) {
      sim_rtlink_pop(&l);
    }
  }
  /* 10 % of 100000: sd ~95, so +-1000 is > 10 sd */
  assert_in_range(l.stats.lost_random, 9000, 11000);
  assert_int_equal(l.stats.dropped_queue, 0);
  sim_rtlink_free(&l);
}

/* Random sizes and times, the store wrapping around many times: every
 * packet comes out once, in order, intact, and the store never fills. */
static void run_store_soak(udccp_tstamp delay, uint64_t qbytes,
                           uint32_t qpkts) {
  sim_rtlink l;
  sim_rtlink_cfg c = cfg_of(50000000, delay, qbytes, qpkts);
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), 0);
  uint8_t *buf0 = l.buf;
  size_t cap0 = l.cap;
  sim_rng r;
  sim_rng_seed(&r, 9, 9);
  uint8_t pkt[1500];
  uint32_t next_in = 0, next_out = 0;
  uint32_t *seq_of = calloc(200000, sizeof(*seq_of));
  assert_non_null(seq_of);
  uint32_t n_q = 0;
  udccp_tstamp t = 0;
  for (uint32_t i = 0; i < 200000; i++) {
    /* offered at ~1.2x the rate on average, in bursts */
    t += sim_rng_below(&r, 4) == 0 ? 0 : sim_rng_below(&r, 250 * US);
    uint32_t len = 20 + (uint32_t)sim_rng_below(&r, 1481);
    fill(pkt, len, next_in);
    if (sim_rtlink_offer(&l, pkt, len, t) == SIM_RTLINK_QUEUED) {
      seq_of[n_q++] = next_in;
    }
    next_in++;
    const uint8_t *p;
    uint32_t plen;
    while ((p = sim_rtlink_peek(&l, t, &plen)) != NULL) {
      assert_true(next_out < n_q);
      if (!check(p, plen, seq_of[next_out])) {
        fail_msg("packet %u corrupted or out of order", seq_of[next_out]);
      }
      next_out++;
      sim_rtlink_pop(&l);
    }
    if (qbytes > 0) {
      assert_true(sim_rtlink_backlog_bytes(&l, t) <= qbytes);
    }
  }
  assert_int_equal(l.stats.dropped_store, 0);
  assert_true(l.stats.dropped_queue > 0); /* the queue did fill */
  assert_int_equal(l.stats.forwarded, n_q);
  assert_ptr_equal(l.buf, buf0);
  assert_int_equal(l.cap, cap0);
  free(seq_of);
  sim_rtlink_free(&l);
}

static void test_sim_rtlink_store_keeps_order_and_bytes(void **state) {
  (void)state;
  run_store_soak(20 * MS, 250000, 0);
  run_store_soak(0, 30000, 0);
  run_store_soak(3 * MS, 0, 40);
}

static void test_sim_rtlink_rejects_bad_config(void **state) {
  (void)state;
  sim_rtlink l;
  sim_rtlink_cfg c = cfg_of(0, 0, 1000, 0);
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), -1);
  c = cfg_of(1000000, 0, 0, 0); /* no queue limit */
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), -1);
  c = cfg_of(1000000, 0, 1000, 0);
  c.link.reorder = 0.1; /* the store is FIFO */
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), -1);
  c = cfg_of(1000000000000ull, 10000 * MS, 1000, 0); /* 1.25 GB in flight */
  assert_int_equal(sim_rtlink_store_size(&c), 0);
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), -1);
  /* too big for max_pkt: dropped, not stored */
  c = cfg_of(1000000, 0, 100000, 0);
  assert_int_equal(sim_rtlink_init(&l, &c, 1, 0, 0), 0);
  static uint8_t big[2000];
  assert_int_equal(sim_rtlink_offer(&l, big, sizeof(big), 0),
                   SIM_RTLINK_DROPPED_STORE);
  sim_rtlink_free(&l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sim_rtlink_arrival_is_serialisation_plus_delay),
      cmocka_unit_test(test_sim_rtlink_drop_tail_in_bytes),
      cmocka_unit_test(test_sim_rtlink_drop_tail_in_packets),
      cmocka_unit_test(test_sim_rtlink_fixed_burst_drops_n_consecutive),
      cmocka_unit_test(test_sim_rtlink_fixed_burst_after_k_packets),
      cmocka_unit_test(test_sim_rtlink_duplicate_is_delivered_twice),
      cmocka_unit_test(test_sim_rtlink_random_loss_rate_within_bounds),
      cmocka_unit_test(test_sim_rtlink_store_keeps_order_and_bytes),
      cmocka_unit_test(test_sim_rtlink_rejects_bad_config),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

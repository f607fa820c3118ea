/* SPDX-License-Identifier: MIT */
/*
 * The BBR CCID's policy (lib/ccid_bbr.c, udccp_bbr_cc) alone, without a
 * connection: a window-clocked sender (every acknowledgement sends what
 * cwnd allows) through a FIFO bottleneck of 1,000 packets/s with a 100 ms
 * base RTT and no loss, the hooks called as CCID 2 calls them (on_sent,
 * on_acked, on_ack).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ccid_bbr.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S
#define RING 8192u

typedef struct {
  udccp_ccid_state st; /* CCID 2's part unused; BBR's after it */
  udccp_ccid2_win w;
  uint64_t next, una;
  udccp_tstamp now, last_dep, cross_queue, ack_at[RING];
} feed;

static feed g_f;

static void *cs_of(feed *f) {
  return f->st.bytes + UDCCP_CCID2_TX_STATE_SIZE;
}

static udccp_bbr_model model(feed *f) {
  udccp_bbr_model m;
  udccp_bbr_get_model(&f->st, &m);
  return m;
}

static feed *feed_init(void) {
  memset(&g_f, 0, sizeof(g_f));
  g_f.w.cwnd = 10;
  g_f.w.ssthresh = UINT32_MAX;
  udccp_bbr_cc.init(cs_of(&g_f), &g_f.w, 0);
  return &g_f;
}

static int feed_free(void **state) {
  (void)state;
  udccp_bbr_cc.exit(cs_of(&g_f));
  return 0;
}

/* One acknowledgement (of the oldest packet), then what cwnd allows. */
static void feed_step(feed *f) {
  if (f->una < f->next) {
    f->now = f->ack_at[f->una % RING];
    udccp_bbr_cc.on_acked(cs_of(f), f->una, 0, f->now);
    f->una++;
    f->w.pipe = (uint32_t)(f->next - f->una);
    udccp_bbr_cc.on_ack(cs_of(f), &f->w, f->now);
  }
  while (f->next - f->una < f->w.cwnd && f->next - f->una < RING) {
    udccp_tstamp dep = f->now + 50 * MS;
    if (dep < f->last_dep + MS) {
      dep = f->last_dep + MS; /* 1,000 packets/s */
    }
    f->last_dep = dep;
    f->w.pipe = (uint32_t)(f->next - f->una + 1);
    udccp_bbr_cc.on_sent(cs_of(f), &f->w, f->next, 0, f->now);
    f->ack_at[f->next % RING] = dep + f->cross_queue + 50 * MS;
    f->next++;
  }
}

static void test_bbr_up_queue_exit_waits_for_the_probes_acks(void **state) {
  /* ProbeBW_UP's exit on 1.25 BDP in flight (not in the draft: it keeps
   * a lone flow's queue short) is taken once the probe's own acks come
   * back (ACKS_PROBE_FEEDBACK, a round in UP), not after a min_rtt of
   * wall time.  Behind 60 ms of other flows' queue (RTT 160 ms, min_rtt
   * 100) the flight is 1.25 BDP before the probe starts: the old rule
   * ended UP after 100 ms, before any packet sent in UP was acknowledged,
   * so no probe of any flow in a shared queue ever gained it a share. */
  feed *f;
  udccp_tstamp up_at, t0;
  int steps = 0;
  (void)state;
  f = feed_init();
  while (model(f).state != UDCCP_BBR_PROBE_BW_DOWN && steps++ < 1000000) {
    feed_step(f);
  }
  assert_true(model(f).full_bw_reached);
  f->cross_queue = 60 * MS;
  t0 = f->now;
  while (model(f).state != UDCCP_BBR_PROBE_BW_UP && f->now < t0 + 4 * S &&
         steps++ < 2000000) {
    feed_step(f); /* the probe comes 2..3 s after DOWN */
  }
  assert_int_equal(model(f).state, UDCCP_BBR_PROBE_BW_UP);
  up_at = f->now;
  while (model(f).state == UDCCP_BBR_PROBE_BW_UP && steps++ < 2000000) {
    feed_step(f);
  }
  printf("bbr policy behind a 60 ms standing queue: ProbeBW_UP from %.3f s "
         "lasted %.0f ms (need >= 160, an RTT), min_rtt %.0f ms, now %d\n",
         (double)up_at / 1e9, (double)(f->now - up_at) / 1e6,
         (double)model(f).min_rtt / 1e6, model(f).state);
  assert_int_equal(model(f).state, UDCCP_BBR_PROBE_BW_DOWN);
  assert_true(model(f).min_rtt >= 100 * MS && model(f).min_rtt < 101 * MS);
  assert_true(f->now - up_at >= 160 * MS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_bbr_up_queue_exit_waits_for_the_probes_acks,
                                feed_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

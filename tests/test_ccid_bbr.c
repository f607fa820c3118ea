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

#include "bneck.h"
#include "ccid_bbr.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

typedef struct {
  udccp_ccid_state st; /* CCID 2's part unused; BBR's after it */
  udccp_ccid2_win w;
  bneck p; /* the path (tests/support/bneck.h) */
  uint64_t seq_stride; /* DCCP sequence numbers per data packet: 1, or 2
                          when a non-data packet follows each */
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
  g_f.seq_stride = 1;
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
  if (bneck_inflight(&f->p) > 0) {
    uint64_t q = bneck_ack(&f->p);
    udccp_bbr_cc.on_acked(cs_of(f), q * f->seq_stride, 0, f->p.now);
    f->w.pipe = (uint32_t)bneck_inflight(&f->p);
    udccp_bbr_cc.on_ack(cs_of(f), &f->w, f->p.now);
  }
  while (bneck_room(&f->p, f->w.cwnd)) {
    f->w.pipe = (uint32_t)(bneck_inflight(&f->p) + 1);
    udccp_bbr_cc.on_sent(cs_of(f), &f->w, f->p.next * f->seq_stride, 0,
                         f->p.now);
    (void)bneck_send(&f->p);
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
  f->p.cross_queue = 60 * MS;
  t0 = f->p.now;
  while (model(f).state != UDCCP_BBR_PROBE_BW_UP && f->p.now < t0 + 4 * S &&
         steps++ < 2000000) {
    feed_step(f); /* the probe comes 2..3 s after DOWN */
  }
  assert_int_equal(model(f).state, UDCCP_BBR_PROBE_BW_UP);
  up_at = f->p.now;
  while (model(f).state == UDCCP_BBR_PROBE_BW_UP && steps++ < 2000000) {
    feed_step(f);
  }
  printf("bbr policy behind a 60 ms standing queue: ProbeBW_UP from %.3f s "
         "lasted %.0f ms (need >= 160, an RTT), min_rtt %.0f ms, now %d\n",
         (double)up_at / 1e9, (double)(f->p.now - up_at) / 1e6,
         (double)model(f).min_rtt / 1e6, model(f).state);
  assert_int_equal(model(f).state, UDCCP_BBR_PROBE_BW_DOWN);
  assert_true(model(f).min_rtt >= 100 * MS && model(f).min_rtt < 101 * MS);
  assert_true(f->p.now - up_at >= 160 * MS);
}

static void test_bbr_up_queue_exit_not_when_the_probe_finds_bandwidth(void **state) {
  /* The same exit is not taken when the probe's first round of samples
   * raised max_bw: the probe found bandwidth, and the draft's own exits
   * (the 3-round plateau, loss) decide.  Here the bottleneck goes from
   * 1,000 to 1,150 packets/s as the probe begins (REFILL; less than the
   * plateau's 25 %), which the rate samples show a round later.
   * Before, UP ended at its first round start (inflight is 2 BDP in this
   * window-clocked feed) whatever its samples said; in a queue another
   * flow keeps, the flow whose share a probe was raising, usually the
   * smaller one, lost that gain each time (1 Gbit/s x 100 ms, seeds 1-16:
   * 13 in [0.7, 1.4] before, 15 after). */
  feed *f;
  udccp_tstamp up_at;
  double bw_at_up;
  int steps = 0;
  (void)state;
  f = feed_init();
  while (model(f).state != UDCCP_BBR_PROBE_BW_UP && steps++ < 2000000) {
    feed_step(f);
    if (model(f).state == UDCCP_BBR_PROBE_BW_REFILL && f->p.gap == 0) {
      bneck_set_gap(&f->p, MS * 20 / 23); /* 1,150 packets/s */
    }
  }
  assert_int_equal(model(f).state, UDCCP_BBR_PROBE_BW_UP);
  up_at = f->p.now;
  bw_at_up = model(f).max_bw;
  while (model(f).state == UDCCP_BBR_PROBE_BW_UP && steps++ < 2000000) {
    feed_step(f);
  }
  printf("bbr policy, bottleneck 1,000 -> 1,150 packets/s from REFILL, UP at "
         "%.3f s: UP lasted %.0f ms (need >= 300, 3 rounds), max_bw %.0f "
         "-> %.0f\n", (double)up_at / 1e9, (double)(f->p.now - up_at) / 1e6,
         bw_at_up, model(f).max_bw);
  assert_true(bw_at_up < 1010);
  assert_true(model(f).max_bw > 1100);
  assert_true(f->p.now - up_at >= 300 * MS);
}

/* Of the newest n x stride packets in flight, every stride-th one is
 * declared lost (1: one contiguous range of n), oldest first as CCID 2
 * declares them. */
static void feed_lose(feed *f, unsigned n, unsigned stride) {
  unsigned i;
  for (i = n; i > 0; i--) {
    udccp_bbr_cc.on_lost(cs_of(f),
                         (f->p.next - (uint64_t)i * stride) * f->seq_stride,
                         f->p.now);
  }
}

/* Runs Startup until cwnd reaches 60 (below the 100-packet BDP), loses n
 * packets (every stride-th of the newest), then 200 ms: 2 rounds. */
static feed *startup_with_losses_seq(unsigned n, unsigned stride,
                                     uint64_t seq_stride) {
  feed *f = feed_init();
  udccp_tstamp t0;
  int steps = 0;
  f->seq_stride = seq_stride;
  while (model(f).cwnd < 60 && steps++ < 100000) {
    feed_step(f);
  }
  assert_int_equal(model(f).state, UDCCP_BBR_STARTUP);
  feed_lose(f, n, stride);
  t0 = f->p.now;
  while (f->p.now < t0 + 200 * MS && steps++ < 100000) {
    feed_step(f);
  }
  return f;
}

static feed *startup_with_losses(unsigned n, unsigned stride) {
  return startup_with_losses_seq(n, stride, 1);
}

static void test_bbr_draft_startup_loss_exit_counts_lost_ranges(void **state) {
  /* draft-ietf-ccwg-bbr, Exiting Startup Based on Packet Loss: Startup
   * ends on loss when a round lost > 2 % and "at least
   * BBRStartupFullLossCnt=6 discontiguous sequence ranges" were lost.
   * Both BBRs counted lost packets: one burst of 12 drops ended Startup
   * (inflight_longterm set, Drain).  Now 12 packets in one range do not;
   * 6 single losses, every other packet, do. */
  feed *f;
  udccp_bbr_model m;
  (void)state;
  f = startup_with_losses(12, 1);
  m = model(f);
  printf("bbr policy, Startup, 12 of ~60 in flight lost as one range: "
         "full_bw_reached %d, state %d, inflight_longterm %g\n",
         m.full_bw_reached, m.state, m.inflight_longterm);
  assert_false(m.full_bw_reached);
  assert_int_equal(m.state, UDCCP_BBR_STARTUP);
  assert_true(m.inflight_longterm > 1e299);
  udccp_bbr_cc.exit(cs_of(f));
  f = startup_with_losses(6, 2);
  m = model(f);
  printf("bbr policy, Startup, 6 single losses (6 ranges): full_bw_reached "
         "%d, state %d, inflight_longterm %g\n", m.full_bw_reached, m.state,
         m.inflight_longterm);
  assert_true(m.full_bw_reached);
  assert_int_not_equal(m.state, UDCCP_BBR_STARTUP);
  assert_true(m.inflight_longterm < 1e299);
  udccp_bbr_cc.exit(cs_of(f));
  /* DCCP numbers every packet: with a non-data packet (an Ack, a Sync)
   * after each data packet, 12 consecutive data packets lost are still one
   * range of the data the sender sent; counted by sequence number they
   * were 12 ranges and ended Startup. */
  f = startup_with_losses_seq(12, 1, 2);
  m = model(f);
  printf("bbr policy, Startup, 12 consecutive data packets lost, an Ack "
         "between each two: full_bw_reached %d, state %d\n",
         m.full_bw_reached, m.state);
  assert_false(m.full_bw_reached);
  assert_int_equal(m.state, UDCCP_BBR_STARTUP);
}

static void test_bbr_draft_no_inflight_cut_on_a_lossy_ack_sample(void **state) {
  /* draft-ietf-ccwg-bbr (2026-08), AdaptLongTermModel and
   * HandleLostPacket: inflight_longterm is cut (HandleInflightTooHigh)
   * per lost packet sent while probing, never on an ack because its rate
   * sample counts > 2 % losses.  The CCID also did the latter (an earlier
   * draft's rule): losses declared in REFILL (not probe samples) made the
   * first acks of UP, for packets sent before them, too lossy, and UP
   * ended there with inflight_longterm set. */
  feed *f;
  udccp_tstamp refill_at = 0;
  int lost = 0, steps = 0, acks_in_up = 0;
  (void)state;
  f = feed_init();
  while (model(f).state != UDCCP_BBR_PROBE_BW_UP && steps++ < 2000000) {
    feed_step(f);
    if (model(f).state == UDCCP_BBR_PROBE_BW_REFILL) {
      if (refill_at == 0) {
        refill_at = f->p.now;
      }
      if (!lost && f->p.now >= refill_at + 50 * MS) {
        feed_lose(f, 10, 1); /* > 2 % of the ~200 in flight */
        lost = 1;
      }
    }
  }
  assert_true(lost);
  assert_int_equal(model(f).state, UDCCP_BBR_PROBE_BW_UP);
  assert_true(model(f).inflight_longterm > 1e299);
  while (acks_in_up < 50 && steps++ < 2000000) {
    feed_step(f);
    acks_in_up++;
  }
  printf("bbr policy, 10 losses in REFILL, then 50 acks in UP: state %d "
         "(5: UP), inflight_longterm %g\n", model(f).state,
         model(f).inflight_longterm);
  assert_int_equal(model(f).state, UDCCP_BBR_PROBE_BW_UP);
  assert_true(model(f).inflight_longterm > 1e299);
}

static void test_bbr_draft_loss_sample_leaves_the_ack_rate_sample(void **state) {
  /* draft-ietf-ccwg-bbr, HandleLostPacket and AdaptLongTermModel: a lost
   * packet's sample (its tx_in_flight, the losses since it was sent) is
   * checked for IsInflightTooHigh; the ack's rate sample
   * (RS.tx_in_flight: "C.inflight when the most recently ACKed packet
   * was sent") is what raises inflight_longterm.  The CCID wrote the lost
   * packet's values over the ack's, so a packet sent with 5,000 in flight
   * and lost raised inflight_longterm to 5,000. */
  feed *f;
  int steps = 0;
  double ilt;
  uint64_t q;
  (void)state;
  f = startup_with_losses(6, 2); /* inflight_longterm from Startup */
  while (model(f).state != UDCCP_BBR_PROBE_BW_UP && steps++ < 2000000) {
    feed_step(f);
  }
  assert_int_equal(model(f).state, UDCCP_BBR_PROBE_BW_UP);
  ilt = model(f).inflight_longterm;
  assert_true(ilt < 1000);
  /* a packet sent (outside the path) with 5,000 in flight, lost at the
   * next acknowledgement, between its on_acked and its on_ack as CCID 2
   * calls them */
  f->w.pipe = 5000;
  udccp_bbr_cc.on_sent(cs_of(f), &f->w, f->p.next + 100000, 0, f->p.now);
  q = bneck_ack(&f->p);
  udccp_bbr_cc.on_acked(cs_of(f), q, 0, f->p.now);
  udccp_bbr_cc.on_lost(cs_of(f), f->p.next + 100000, f->p.now);
  f->w.pipe = (uint32_t)bneck_inflight(&f->p);
  udccp_bbr_cc.on_ack(cs_of(f), &f->w, f->p.now);
  printf("bbr policy, UP, a packet sent with 5,000 in flight lost: "
         "inflight_longterm %.0f -> %.0f\n", ilt, model(f).inflight_longterm);
  assert_true(model(f).inflight_longterm < ilt + 100);
}

static void test_bbr_draft_too_high_loss_not_undone_by_its_ack(void **state) {
  /* draft-ietf-ccwg-bbr, HandleLostPacket then AdaptLongTermModel on the
   * same ack: a probing packet's loss that is IsInflightTooHigh cuts
   * inflight_longterm (InflightAtLoss, at least 0.7 x the target); the
   * ack it came with, whose own sample is not lossy, does not raise it
   * again to the acknowledged packet's tx_in_flight (the draft's RS still
   * holds the loss's too-high figures at that step).  With the samples
   * kept apart but no such rule, the cut was undone on the spot. */
  feed *f;
  int steps = 0;
  uint64_t q;
  (void)state;
  f = feed_init();
  while (model(f).state != UDCCP_BBR_PROBE_BW_UP && steps++ < 2000000) {
    feed_step(f);
  }
  assert_int_equal(model(f).state, UDCCP_BBR_PROBE_BW_UP);
  assert_true(model(f).inflight_longterm > 1e299);
  /* a packet sent (outside the path) with 20 in flight: its own loss is
   * > 2 % of that */
  f->w.pipe = 20;
  udccp_bbr_cc.on_sent(cs_of(f), &f->w, f->p.next + 100000, 0, f->p.now);
  q = bneck_ack(&f->p); /* sent with ~200 in flight, nothing lost since */
  udccp_bbr_cc.on_acked(cs_of(f), q, 0, f->p.now);
  udccp_bbr_cc.on_lost(cs_of(f), f->p.next + 100000, f->p.now);
  f->w.pipe = (uint32_t)bneck_inflight(&f->p);
  udccp_bbr_cc.on_ack(cs_of(f), &f->w, f->p.now);
  printf("bbr policy, UP, a too-high loss on an ack of a packet sent with "
         "~%u in flight: state %d (2: DOWN), inflight_longterm %.0f\n",
         f->w.pipe, model(f).state, model(f).inflight_longterm);
  assert_int_equal(model(f).state, UDCCP_BBR_PROBE_BW_DOWN);
  assert_true(model(f).inflight_longterm < 0.9 * f->w.pipe);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_bbr_up_queue_exit_waits_for_the_probes_acks,
                                feed_free),
      cmocka_unit_test_teardown(test_bbr_up_queue_exit_not_when_the_probe_finds_bandwidth,
                                feed_free),
      cmocka_unit_test_teardown(test_bbr_draft_startup_loss_exit_counts_lost_ranges,
                                feed_free),
      cmocka_unit_test_teardown(test_bbr_draft_no_inflight_cut_on_a_lossy_ack_sample,
                                feed_free),
      cmocka_unit_test_teardown(test_bbr_draft_loss_sample_leaves_the_ack_rate_sample,
                                feed_free),
      cmocka_unit_test_teardown(test_bbr_draft_too_high_loss_not_undone_by_its_ack,
                                feed_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * BBR (draft-ietf-ccwg-bbr, 2026-08) as an experimental CCID on CCID 2's
 * feedback.  CCID 2's sender (lib/ccid2.c) does the feedback: Ack Vector
 * parsing, loss detection (NUMDUPACK, RFC 4341 §5), ECN marks and nonces,
 * Data Dropped, Ack Ratio (RFC 4341 §6), RTT estimate, retransmission timer,
 * the pacing clock; its receiver half is the receiver.  This file is a
 * rate-based policy on it (udccp_ccid2_cc, ccid2.h) that owns cwnd and the
 * pacing interval.  Units: packets (CCID 2 counts packets, RFC 4341 §5;
 * the draft's SMSS is one packet), seconds for bw, ns for times.
 *
 * Draft sections implemented, by the draft's own headings:
 *   Delivery Rate Samples     per-packet P.delivered, P.delivered_time,
 *                             P.first_send_time, P.send_time,
 *                             P.is_app_limited, P.tx_in_flight, P.lost in a
 *                             ring indexed by sequence number (grown as the
 *                             flight grows, never per packet); RS from the
 *                             newest packet an Ack Vector acknowledges.
 *   Tracking app-limited      C.app_limited from CCID 2's "nothing more
 *                             waits and the window has room" (env tx_more).
 *   BBR.round_count           packet-timed rounds (UpdateRound).
 *   BBR.max_bw                max filter over 2 ProbeBW cycles.
 *   BBR.min_rtt               10 s min filter; probe_rtt_min_delay over 5 s.
 *   BBR.extra_acked           aggregation estimate over 10 rounds (1 in
 *                             Startup): DCCP acks cover Ack Ratio packets.
 *   Startup                   pacing gain 2.77, cwnd gain 2; exits on a
 *                             bandwidth plateau (3 rounds < 25 %) or on
 *                             high loss (a round after the first loss:
 *                             > 2 % lost, >= 6 discontiguous lost ranges).
 *   Drain                     pacing gain 0.5 until inflight <= BDP (or 3
 *                             rounds).
 *   ProbeBW                   DOWN 0.90 / CRUISE 1.0 / REFILL 1.0 / UP 1.25
 *                             (cwnd gain 2.25; ends on the plateau, or, not
 *                             in the draft, with 1.25 BDP in flight once
 *                             the probe's acks return (a round in UP) if
 *                             they raised no max_bw: the queue stays
 *                             short); probe wait 2..3 s or the
 *                             Reno-coexistence round bound; inflight_longterm
 *                             raised while probing, cut on > 2 % loss;
 *                             bw_shortterm / inflight_shortterm (beta 0.7)
 *                             per lossy round when not probing.
 *   ProbeRTT                  every 5 s without a sample at the minimum
 *                             (the draft: below it): cwnd 0.5 BDP for
 *                             200 ms and a round.
 *   Restarting From Idle      pace at exactly bw in ProbeBW.
 *   Pacing Rate, cwnd         SetPacingRate (1 % margin), SetCwnd,
 *                             BoundCwndForProbeRTT, BoundCwndForModel,
 *                             MinPipeCwnd 4; RTO: cwnd = inflight + 1 and
 *                             the prior cwnd restored as acks come.
 * Not done: the spurious-recovery undo (CCID 2 finds a loss a late ack
 * proves spurious, lib/ccid2_loss.c, but the model keeps what on_lost
 * did; CCID 2's reordering threshold keeps such losses rare), the
 * offload budget (no TSO).  An ECN mark
 * counts for the loss-rate rules as a loss (the draft leaves ECN to the
 * transport).
 */
#include <math.h>
#include <string.h>

#include "ccid2.h"
#include "ccid_bbr.h"
#include "seq.h"

#define BBR_STARTUP_PACING_GAIN 2.77 /* 4 ln 2 */
#define BBR_DRAIN_PACING_GAIN 0.5
#define BBR_DEFAULT_CWND_GAIN 2.0
#define BBR_PROBE_UP_CWND_GAIN 2.25
#define BBR_PROBE_UP_PACING_GAIN 1.25
#define BBR_PROBE_DOWN_PACING_GAIN 0.90
#define BBR_PROBE_RTT_CWND_GAIN 0.5
#define BBR_LOSS_THRESH 0.02
#define BBR_BETA 0.7
#define BBR_HEADROOM 0.15
#define BBR_MIN_PIPE_CWND 4.0
#define BBR_PACING_MARGIN 0.01
#define BBR_MIN_RTT_FILTER (10 * UDCCP_NS_PER_S)
#define BBR_PROBE_RTT_INTERVAL (5 * UDCCP_NS_PER_S)
#define BBR_PROBE_RTT_DURATION (200 * UDCCP_NS_PER_MS)
#define BBR_EXTRA_ACKED_ROUNDS 10u
#define BBR_STARTUP_FULL_LOSS_CNT 6u
#define BBR_INF 1e300

/* Per-packet ring: first size and the largest.  It doubles when a send
 * finds its slot held by a packet still in flight, so it starts small: an
 * idle connection keeps 4 entries, not 256 (14 KiB, issue 13). */
#define BBR_RING_MIN 4u
#define BBR_RING_MAX (1u << 18)

enum bbr_state {
  BBR_STARTUP,
  BBR_DRAIN,
  BBR_PROBE_DOWN,
  BBR_PROBE_CRUISE,
  BBR_PROBE_REFILL,
  BBR_PROBE_UP,
  BBR_PROBE_RTT
};

enum bbr_ack_phase {
  ACKS_INIT,
  ACKS_REFILLING,
  ACKS_PROBE_STARTING,
  ACKS_PROBE_FEEDBACK,
  ACKS_PROBE_STOPPING
};

/* Per-packet (P) state (Delivery Rate Sampling State Variables). */
typedef struct bbr_pkt {
  uint64_t seq;
  udccp_tstamp send_time, delivered_time, first_send_time;
  uint32_t delivered, lost, tx_in_flight;
  uint32_t nth; /* the data packet's number in sending order */
  uint8_t out; /* sent and neither acknowledged nor lost */
  uint8_t app_limited;
} bbr_pkt;

typedef struct bbr_st {
  const udccp_mem *mem;
  bbr_pkt *ring;
  uint32_t cap;
  uint64_t rng;

  /* connection (C) */
  uint64_t delivered, lost;
  udccp_tstamp delivered_time, first_send_time;
  uint64_t app_limited; /* C.app_limited: delivered mark, 0 = not */
  double cwnd, pacing_rate; /* packets; packets/s */
  uint32_t init_cwnd;
  /* C.is_cwnd_limited: the window held a packet back in this round
   * (cwnd_limited) or the last one (cwnd_limited_prev); see
   * is_cwnd_limited() */
  int cwnd_limited, cwnd_limited_prev;

  /* rate sample (RS) of the ack being processed */
  int rs_has;
  uint32_t rs_prior_delivered, rs_lost, rs_tx_in_flight;
  udccp_tstamp rs_prior_time, rs_send_elapsed, rs_ack_elapsed, rs_rtt,
      rs_newest_send;
  uint64_t rs_last_seq;
  int rs_app_limited;
  uint32_t rs_newly_acked, rs_newly_lost;
  int rs_loss_too_high; /* a loss on this ack was IsInflightTooHigh */
  double rs_delivery_rate, rs_delivered;

  /* model */
  int state;
  double pacing_gain, cwnd_gain;
  double max_bw_slot[2], max_bw, bw, bw_shortterm, bw_latest;
  uint32_t cycle_count;
  udccp_tstamp min_rtt, min_rtt_stamp, probe_rtt_min_delay,
      probe_rtt_min_stamp, probe_rtt_done_stamp;
  int probe_rtt_expired, probe_rtt_round_done, idle_restart;
  double bdp, max_inflight, inflight_longterm, inflight_shortterm,
      inflight_latest, prior_cwnd;
  double extra_acked, extra_slot[2], extra_acked_delivered;
  uint32_t extra_slot_round;
  udccp_tstamp extra_acked_interval_start;

  uint64_t next_round_delivered, round_count, rounds_since_probe_up;
  uint64_t drain_start_round;
  int round_start;
  uint64_t loss_round_delivered;
  int loss_round_start, loss_in_round;
  uint32_t loss_events_in_round;
  uint64_t round_lost0, round_delivered0;
  /* Startup's loss exit: lost sequence ranges since the last loss round
   * start (a loss not adjacent to the previous one opens a range).
   * Adjacent means next in the order data packets were sent (nth): DCCP
   * numbers every packet, and an Ack or a Sync the sender sent between two
   * data packets does not split a burst of drops in two. */
  uint32_t lost_ranges;
  uint32_t sent_nth, last_lost_nth;
  int have_last_lost;

  double full_bw;
  unsigned full_bw_count;
  int full_bw_now, full_bw_reached;

  int ack_phase, is_bw_probe_sample, prev_probe_too_high,
      prev_probe_precautionary;
  double bw_probe_up_acked, probe_up_acked_per_inc;
  unsigned bw_probe_up_rounds;
  udccp_tstamp cycle_stamp, bw_probe_wait;
  double up_max_bw; /* max_bw when this ProbeBW_UP began */

  int in_rto_recovery;
  uint64_t rto_recovery_end; /* C.delivered mark ending it */
} bbr_st;

static bbr_st *bs_of(void *p) { return (bbr_st *)p; }

/* xorshift64*: the draft's random probe wait, seeded by the first packet's
 * sequence number (random per connection, RFC 4340 §7.2). */
static double bbr_rand01(bbr_st *b) {
  uint64_t x = b->rng ? b->rng : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  b->rng = x;
  return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

/* ------------------------------------------------------ per-packet ring */

static bbr_pkt *ring_at(bbr_st *b, uint64_t seq) {
  if (b->ring == NULL) {
    return NULL;
  }
  return &b->ring[seq & (b->cap - 1)];
}

/* A bigger ring, the outstanding entries moved; 0 or -1 (no memory: the
 * old ring goes on, older packets then give no sample). */
static int ring_grow(bbr_st *b) {
  uint32_t ncap = b->cap ? b->cap * 2 : BBR_RING_MIN, i;
  bbr_pkt *nr;
  if (ncap > BBR_RING_MAX) {
    return -1;
  }
  nr = b->mem->calloc(ncap, sizeof(*nr), b->mem->user_data);
  if (nr == NULL) {
    return -1;
  }
  for (i = 0; i < b->cap; i++) {
    if (b->ring[i].out) {
      nr[b->ring[i].seq & (ncap - 1)] = b->ring[i];
    }
  }
  if (b->ring) {
    b->mem->free(b->ring, b->mem->user_data);
  }
  b->ring = nr;
  b->cap = ncap;
  return 0;
}

static bbr_pkt *ring_find(bbr_st *b, uint64_t seq) {
  bbr_pkt *p = ring_at(b, seq);
  return p != NULL && p->out && p->seq == seq ? p : NULL;
}

/* ------------------------------------------------------ model helpers */

static int in_probe_bw(const bbr_st *b) {
  return b->state >= BBR_PROBE_DOWN && b->state <= BBR_PROBE_UP;
}

static int is_probing_bw(const bbr_st *b) {
  return b->state == BBR_STARTUP || b->state == BBR_PROBE_REFILL ||
         b->state == BBR_PROBE_UP;
}

static void start_round(bbr_st *b) { b->next_round_delivered = b->delivered; }

/* C.is_cwnd_limited: whether the data now in flight was held back by cwnd
 * when it was sent, i.e. in this round or the one before (as a TCP sender
 * keeps it per window of data).  A flag cleared at each round start would
 * read "not limited" on the round-start ack itself, before anything was
 * sent, and ProbeBW_UP would take that ack for the end of its
 * inflight_longterm-bound probing. */
static int is_cwnd_limited(const bbr_st *b) {
  return b->cwnd_limited || b->cwnd_limited_prev;
}

/* BDPMultiple, QuantizationBudget, Inflight (Computing BBR.max_inflight) */
static double bdp_multiple(bbr_st *b, double bw, double gain) {
  if (b->min_rtt == UDCCP_TSTAMP_NEVER) {
    return (double)b->init_cwnd;
  }
  b->bdp = bw * (double)b->min_rtt / 1e9;
  return gain * b->bdp;
}

static double quantization_budget(const bbr_st *b, double cap) {
  cap = dmax(cap, BBR_MIN_PIPE_CWND);
  if (b->state == BBR_PROBE_UP) {
    cap += 2;
  }
  return cap;
}

static double inflight_at(bbr_st *b, double bw, double gain) {
  return quantization_budget(b, bdp_multiple(b, bw, gain));
}

static double inflight_with_headroom(const bbr_st *b) {
  double headroom;
  if (b->inflight_longterm >= BBR_INF) {
    return BBR_INF;
  }
  headroom = dmax(1.0, BBR_HEADROOM * b->inflight_longterm);
  return dmax(b->inflight_longterm - headroom, BBR_MIN_PIPE_CWND);
}

static double target_inflight(const bbr_st *b) {
  return dmin(b->bdp, b->cwnd);
}

static void reset_full_bw(bbr_st *b) {
  b->full_bw = 0;
  b->full_bw_count = 0;
  b->full_bw_now = 0;
}

static void reset_congestion_signals(bbr_st *b) {
  b->loss_in_round = 0;
  b->loss_events_in_round = 0;
  b->bw_latest = 0;
  b->inflight_latest = 0;
}

static void reset_short_term_model(bbr_st *b) {
  b->bw_shortterm = BBR_INF;
  b->inflight_shortterm = BBR_INF;
}

static void enter_startup(bbr_st *b) {
  b->state = BBR_STARTUP;
  b->pacing_gain = BBR_STARTUP_PACING_GAIN;
  b->cwnd_gain = BBR_DEFAULT_CWND_GAIN;
}

static void enter_drain(bbr_st *b) {
  b->state = BBR_DRAIN;
  b->pacing_gain = BBR_DRAIN_PACING_GAIN;
  b->cwnd_gain = BBR_DEFAULT_CWND_GAIN;
  b->drain_start_round = b->round_count;
}

static void pick_probe_wait(bbr_st *b) {
  b->rounds_since_probe_up = bbr_rand01(b) < 0.5 ? 0 : 1;
  b->bw_probe_wait =
      2 * UDCCP_NS_PER_S + (udccp_tstamp)(bbr_rand01(b) * 1e9);
}

static void start_probe_down(bbr_st *b, udccp_tstamp now) {
  reset_congestion_signals(b);
  b->probe_up_acked_per_inc = BBR_INF;
  pick_probe_wait(b);
  b->cycle_stamp = now;
  b->ack_phase = ACKS_PROBE_STOPPING;
  start_round(b);
  b->state = BBR_PROBE_DOWN;
  b->pacing_gain = BBR_PROBE_DOWN_PACING_GAIN;
  b->cwnd_gain = BBR_DEFAULT_CWND_GAIN;
}

static void start_probe_cruise(bbr_st *b) {
  b->state = BBR_PROBE_CRUISE;
  b->pacing_gain = 1.0;
  b->cwnd_gain = BBR_DEFAULT_CWND_GAIN;
}

static void start_probe_refill(bbr_st *b) {
  reset_short_term_model(b);
  b->bw_probe_up_rounds = 0;
  b->bw_probe_up_acked = 0;
  b->prev_probe_precautionary = 0;
  b->ack_phase = ACKS_REFILLING;
  start_round(b);
  b->state = BBR_PROBE_REFILL;
  b->pacing_gain = 1.0;
  b->cwnd_gain = BBR_DEFAULT_CWND_GAIN;
}

static void raise_inflight_longterm_slope(bbr_st *b) {
  double growth = (double)(1u << b->bw_probe_up_rounds);
  if (b->bw_probe_up_rounds < 30) {
    b->bw_probe_up_rounds++;
  }
  b->probe_up_acked_per_inc = dmax(b->cwnd / growth, 1.0);
}

static void start_probe_up(bbr_st *b) {
  b->ack_phase = ACKS_PROBE_STARTING;
  start_round(b);
  reset_full_bw(b);
  b->full_bw = b->rs_delivery_rate;
  b->state = BBR_PROBE_UP;
  b->pacing_gain = BBR_PROBE_UP_PACING_GAIN;
  b->cwnd_gain = BBR_PROBE_UP_CWND_GAIN;
  raise_inflight_longterm_slope(b);
}

static void enter_probe_bw(bbr_st *b, udccp_tstamp now) {
  b->cwnd_gain = BBR_DEFAULT_CWND_GAIN;
  start_probe_down(b, now);
}

/* ------------------------------------------------------ loss (per packet) */

/* IsInflightTooHigh: the connection has selective acks (Ack Vectors). */
static int inflight_too_high(const bbr_st *b) {
  return (double)b->rs_lost > (double)b->rs_tx_in_flight * BBR_LOSS_THRESH;
}

/* HandleInflightTooHigh for a loss sample: tx_in_flight and app_limited
 * of the lost packet (InflightAtLoss), not of the ack's rate sample. */
static void handle_inflight_too_high(bbr_st *b, double tx_in_flight,
                                     int app_limited, udccp_tstamp now) {
  b->prev_probe_too_high = 1;
  b->is_bw_probe_sample = 0; /* only react once per bw probe */
  b->rs_loss_too_high = 1;
  if (!app_limited) {
    b->inflight_longterm = dmax(tx_in_flight, target_inflight(b) * BBR_BETA);
  }
  if (b->state == BBR_PROBE_UP) {
    start_probe_down(b, now);
  }
}

static void note_loss(bbr_st *b) {
  if (!b->loss_in_round) {
    b->loss_round_delivered = b->delivered;
  }
  b->loss_in_round = 1;
  b->loss_events_in_round++;
}

/* A lost packet (or an ECN mark) for Startup's loss exit: the draft
 * counts discontiguous lost sequence ranges, not packets.  p is its
 * record; a loss the ring no longer holds opens a range. */
static void count_lost_range(bbr_st *b, const bbr_pkt *p) {
  if (p == NULL || !b->have_last_lost || p->nth != b->last_lost_nth + 1) {
    b->lost_ranges++;
  }
  b->have_last_lost = p != NULL;
  if (p != NULL) {
    b->last_lost_nth = p->nth;
  }
}

/* HandleLostPacket, with InflightAtLoss for a one-packet P.  The loss
 * sample (P's tx_in_flight, the losses since P was sent, P's
 * app-limited mark) is its own: it does not overwrite the rate sample
 * of the ack being processed (RS.tx_in_flight is "C.inflight when the
 * most recently ACKed packet was sent"), which AdaptLongTermModel then
 * uses to raise inflight_longterm, and UpdateMaxBw its app-limited
 * mark. */
static void handle_lost(bbr_st *b, const bbr_pkt *p, udccp_tstamp now) {
  double tx_in_flight, lost;
  note_loss(b);
  if (!b->is_bw_probe_sample) {
    return;
  }
  tx_in_flight = (double)p->tx_in_flight;
  lost = (double)((uint32_t)b->lost - p->lost);
  if (lost > tx_in_flight * BBR_LOSS_THRESH) { /* IsInflightTooHigh */
    double prev = tx_in_flight - 1;
    double lost_prev = lost - 1;
    double prefix =
        (BBR_LOSS_THRESH * prev - lost_prev) / (1.0 - BBR_LOSS_THRESH);
    handle_inflight_too_high(b, floor(dmax(prev + prefix, 1.0)),
                             p->app_limited, now);
  }
}

/* ------------------------------------------------------ policy hooks */

static void bbr_init(void *cs, udccp_ccid2_win *w, udccp_tstamp ts) {
  bbr_st *b = bs_of(cs);
  memset(b, 0, sizeof(*b));
  b->mem = udccp_mem_default(); /* bbr_tx_init sets the connection's */
  b->init_cwnd = w->cwnd;
  b->cwnd = (double)w->cwnd;
  b->min_rtt = w->srtt ? w->srtt : UDCCP_TSTAMP_NEVER;
  b->min_rtt_stamp = ts;
  b->probe_rtt_min_delay = b->min_rtt;
  b->probe_rtt_min_stamp = ts;
  b->extra_acked_interval_start = ts;
  b->inflight_longterm = BBR_INF;
  b->probe_up_acked_per_inc = BBR_INF;
  b->ack_phase = ACKS_INIT;
  reset_congestion_signals(b);
  reset_short_term_model(b);
  reset_full_bw(b);
  /* InitPacingRate: InitialCwnd / (srtt or 1 ms) x 2.77 */
  b->pacing_rate = BBR_STARTUP_PACING_GAIN * (double)w->cwnd /
                   ((double)(w->srtt ? w->srtt : UDCCP_NS_PER_MS) / 1e9);
  enter_startup(b);
}

/* CCID 2's trim (udccp_ccid2_trim): the ring goes back to nothing once no
 * packet in it is in flight; the next send starts it at BBR_RING_MIN. */
static int bbr_trim(void *cs) {
  bbr_st *b = bs_of(cs);
  uint32_t i;
  for (i = 0; i < b->cap; i++) {
    if (b->ring[i].out) {
      return 1;
    }
  }
  if (b->ring != NULL && b->cap > BBR_RING_MIN) {
    b->mem->free(b->ring, b->mem->user_data);
    b->ring = NULL;
    b->cap = 0;
  }
  return 0;
}

static void bbr_exit(void *cs) {
  bbr_st *b = bs_of(cs);
  if (b->ring != NULL) {
    b->mem->free(b->ring, b->mem->user_data);
    b->ring = NULL;
  }
}

/* OnPacketSent (Transmitting a data packet), HandleRestartFromIdle. */
static void bbr_on_sent(void *cs, const udccp_ccid2_win *w, uint64_t seq,
                        int app_limited, udccp_tstamp ts) {
  bbr_st *b = bs_of(cs);
  bbr_pkt *p;
  uint32_t inflight = w->pipe; /* includes this packet */
  if (b->rng == 0) {
    b->rng = seq * 0x9E3779B97F4A7C15ull + 1;
  }
  if (inflight <= 1) {
    if (b->app_limited != 0) { /* restart from idle */
      b->idle_restart = 1;
      b->extra_acked_interval_start = ts;
      if (in_probe_bw(b) && b->bw > 0) {
        b->pacing_rate = b->bw * (1.0 - BBR_PACING_MARGIN);
      }
    }
    b->first_send_time = b->delivered_time = ts;
  }
  if (app_limited) { /* MarkConnectionAppLimited */
    b->app_limited = b->delivered + inflight;
    if (b->app_limited == 0) {
      b->app_limited = 1;
    }
  }
  if (inflight >= w->cwnd) {
    b->cwnd_limited = 1;
  }
  p = ring_at(b, seq);
  while (p == NULL || (p->out && p->seq != seq)) {
    if (ring_grow(b) != 0) {
      if (p == NULL) {
        return;
      }
      break; /* overwrite: the older packet gives no sample */
    }
    p = ring_at(b, seq);
  }
  p->seq = seq;
  p->out = 1;
  p->send_time = ts;
  p->first_send_time = b->first_send_time;
  p->delivered_time = b->delivered_time;
  p->delivered = (uint32_t)b->delivered;
  p->lost = (uint32_t)b->lost;
  p->tx_in_flight = inflight;
  p->nth = b->sent_nth++;
  p->app_limited = b->app_limited != 0;
}

/* UpdateRateSample */
static void bbr_on_acked(void *cs, uint64_t seq, int marked, udccp_tstamp ts) {
  bbr_st *b = bs_of(cs);
  bbr_pkt *p = ring_find(b, seq);
  if (p == NULL) {
    b->delivered++; /* forgotten by a full ring: still delivered */
    b->delivered_time = ts;
    b->rs_newly_acked++;
    return;
  }
  b->delivered++;
  b->delivered_time = ts;
  b->rs_newly_acked++;
  if (!b->rs_has || p->send_time > b->first_send_time ||
      (p->send_time == b->first_send_time &&
       udccp_seq_gt(seq, b->rs_last_seq))) {
    b->rs_has = 1;
    b->rs_prior_delivered = p->delivered;
    b->rs_prior_time = p->delivered_time;
    b->rs_app_limited = p->app_limited;
    b->rs_send_elapsed = p->send_time - p->first_send_time;
    b->rs_ack_elapsed = ts - p->delivered_time;
    b->rs_last_seq = seq;
    b->rs_tx_in_flight = p->tx_in_flight;
    b->rs_lost = (uint32_t)b->lost - p->lost;
    b->rs_rtt = ts - p->send_time;
    b->first_send_time = p->send_time;
  }
  p->out = 0;
  if (marked) { /* an ECN mark: a congestion signal like a loss */
    b->lost++;
    b->rs_newly_lost++;
    count_lost_range(b, p);
    handle_lost(b, p, ts);
  }
}

static void bbr_on_lost(void *cs, uint64_t seq, udccp_tstamp ts) {
  bbr_st *b = bs_of(cs);
  bbr_pkt *p = ring_find(b, seq);
  b->lost++;
  b->rs_newly_lost++;
  count_lost_range(b, p);
  if (p == NULL) {
    note_loss(b);
    return;
  }
  p->out = 0;
  handle_lost(b, p, ts);
}

/* GenerateRateSample; 1 if it gave a delivery rate. */
static int generate_rate_sample(bbr_st *b, udccp_tstamp min_rtt) {
  udccp_tstamp interval;
  b->rs_delivery_rate = 0;
  b->rs_delivered = 0;
  if (b->app_limited && b->delivered > b->app_limited) {
    b->app_limited = 0;
  }
  if (!b->rs_has || b->rs_prior_time == 0) {
    return 0;
  }
  interval = b->rs_send_elapsed > b->rs_ack_elapsed ? b->rs_send_elapsed
                                                     : b->rs_ack_elapsed;
  b->rs_delivered = (double)(uint32_t)((uint32_t)b->delivered -
                                       b->rs_prior_delivered);
  if (interval == 0 || (min_rtt != UDCCP_TSTAMP_NEVER && interval < min_rtt)) {
    return 0; /* no reliable rate sample */
  }
  b->rs_delivery_rate = b->rs_delivered * 1e9 / (double)interval;
  return 1;
}

static void update_round(bbr_st *b) {
  if (b->rs_has && (int32_t)(b->rs_prior_delivered -
                             (uint32_t)b->next_round_delivered) >= 0) {
    start_round(b);
    b->round_count++;
    b->rounds_since_probe_up++;
    b->round_start = 1;
    b->cwnd_limited_prev = b->cwnd_limited;
    b->cwnd_limited = 0;
  } else {
    b->round_start = 0;
  }
}

static void update_max_bw(bbr_st *b) {
  update_round(b);
  if (b->rs_delivery_rate > 0 &&
      (b->rs_delivery_rate >= b->max_bw || !b->rs_app_limited)) {
    double *s = &b->max_bw_slot[b->cycle_count & 1u];
    if (b->rs_delivery_rate > *s) {
      *s = b->rs_delivery_rate;
    }
    b->max_bw = dmax(b->max_bw_slot[0], b->max_bw_slot[1]);
  }
}

static void advance_max_bw_filter(bbr_st *b) {
  b->cycle_count++;
  b->max_bw_slot[b->cycle_count & 1u] = 0;
}

/* UpdateLatestDeliverySignals */
static void update_latest_signals(bbr_st *b) {
  b->loss_round_start = 0;
  b->bw_latest = dmax(b->bw_latest, b->rs_delivery_rate);
  b->inflight_latest = dmax(b->inflight_latest, b->rs_delivered);
  if (b->rs_has && (int32_t)(b->rs_prior_delivered -
                             (uint32_t)b->loss_round_delivered) >= 0) {
    b->loss_round_delivered = b->delivered;
    b->loss_round_start = 1;
  }
}

static void advance_latest_signals(bbr_st *b) {
  if (b->loss_round_start) {
    b->bw_latest = b->rs_delivery_rate;
    b->inflight_latest = b->rs_delivered;
  }
}

/* UpdateCongestionSignals, AdaptLowerBoundsFromCongestion */
static void update_congestion_signals(bbr_st *b) {
  update_max_bw(b);
  if (!b->loss_round_start) {
    return;
  }
  if (!is_probing_bw(b) && b->loss_in_round) {
    if (b->bw_shortterm >= BBR_INF) {
      b->bw_shortterm = b->max_bw;
    }
    if (b->inflight_shortterm >= BBR_INF) {
      b->inflight_shortterm = b->cwnd;
    }
    b->bw_shortterm = dmax(b->bw_latest, BBR_BETA * b->bw_shortterm);
    b->inflight_shortterm =
        dmax(b->inflight_latest, BBR_BETA * b->inflight_shortterm);
  }
  b->loss_in_round = 0;
}

/* UpdateACKAggregation, with a max filter of two half-window slots. */
static void update_ack_aggregation(bbr_st *b, udccp_tstamp now) {
  double expected, extra;
  uint32_t len = b->full_bw_reached ? BBR_EXTRA_ACKED_ROUNDS : 1;
  expected = b->bw * (double)(now - b->extra_acked_interval_start) / 1e9;
  if (b->extra_acked_delivered <= expected) {
    b->extra_acked_delivered = 0;
    b->extra_acked_interval_start = now;
    expected = 0;
  }
  b->extra_acked_delivered += b->rs_newly_acked;
  extra = dmin(b->extra_acked_delivered - expected, b->cwnd);
  if (b->round_start &&
      b->round_count - b->extra_slot_round >= (len + 1) / 2) {
    b->extra_slot_round = (uint32_t)b->round_count;
    b->extra_slot[1] = b->extra_slot[0];
    b->extra_slot[0] = 0;
    if (len == 1) {
      b->extra_slot[1] = 0;
    }
  }
  b->extra_slot[0] = dmax(b->extra_slot[0], extra);
  b->extra_acked = dmax(b->extra_slot[0], b->extra_slot[1]);
}

/* CheckFullBWReached; CheckStartupHighLoss (Exiting Startup Based on
 * Packet Loss): checked at a loss round start, which comes a full round
 * after the round's first loss (NoteLoss restarts the loss round there;
 * the draft's "in fast recovery for a full round", DCCP having no
 * recovery), the loss rate of the rounds since the last check above 2 %
 * and at least BBRStartupFullLossCnt (6) discontiguous lost sequence
 * ranges among them (not 6 lost packets: one burst of drops is one
 * range). */
static void check_full_bw(bbr_st *b) {
  if (b->state == BBR_STARTUP && b->loss_round_start) {
    uint64_t lost = b->lost - b->round_lost0;
    uint64_t dl = b->delivered - b->round_delivered0;
    if (b->lost_ranges >= BBR_STARTUP_FULL_LOSS_CNT &&
        (double)lost > BBR_LOSS_THRESH * (double)(lost + dl)) {
      b->full_bw_reached = 1;
      b->inflight_longterm = dmax(b->bdp, b->inflight_latest);
    }
    b->round_lost0 = b->lost;
    b->round_delivered0 = b->delivered;
    b->lost_ranges = 0;
  }
  if (b->full_bw_now || !b->round_start || b->rs_app_limited) {
    return;
  }
  if (b->rs_delivery_rate >= b->full_bw * 1.25) {
    reset_full_bw(b);
    b->full_bw = b->rs_delivery_rate;
    return;
  }
  b->full_bw_count++;
  b->full_bw_now = b->full_bw_count >= 3;
  if (b->full_bw_now) {
    b->full_bw_reached = 1;
  }
}

static int time_to_probe_bw(bbr_st *b, udccp_tstamp now) {
  double reno_rounds = dmin(target_inflight(b), 63);
  if (now > b->cycle_stamp + b->bw_probe_wait ||
      (double)b->rounds_since_probe_up >= reno_rounds) {
    start_probe_refill(b);
    return 1;
  }
  return 0;
}

static void probe_inflight_longterm_upward(bbr_st *b) {
  if (!is_cwnd_limited(b) || b->cwnd < b->inflight_longterm) {
    return;
  }
  b->bw_probe_up_acked += b->rs_newly_acked;
  if (b->bw_probe_up_acked >= b->probe_up_acked_per_inc) {
    double delta = floor(b->bw_probe_up_acked / b->probe_up_acked_per_inc);
    b->bw_probe_up_acked -= delta * b->probe_up_acked_per_inc;
    b->inflight_longterm += delta;
  }
  if (b->round_start) {
    raise_inflight_longterm_slope(b);
  }
}

/* AdaptLongTermModel; 1 if it decided a state transition. */
static int adapt_long_term_model(bbr_st *b) {
  if (b->ack_phase == ACKS_PROBE_STARTING && b->round_start) {
    b->ack_phase = ACKS_PROBE_FEEDBACK;
  }
  if (b->ack_phase == ACKS_PROBE_STOPPING && b->round_start) {
    b->is_bw_probe_sample = 0;
    b->ack_phase = ACKS_INIT;
    if (in_probe_bw(b) && !b->rs_app_limited) {
      advance_max_bw_filter(b);
    }
    if (in_probe_bw(b) && b->prev_probe_precautionary &&
        !b->prev_probe_too_high) {
      start_probe_refill(b);
      return 1;
    }
  }
  /* an ack whose loss was too high does not raise inflight_longterm
   * again from its own sample (the draft's HandleLostPacket leaves the
   * lost packet's too-high figures in RS for this step) */
  if (!inflight_too_high(b) && !b->rs_loss_too_high) {
    if (b->inflight_longterm >= BBR_INF) {
      return 0;
    }
    if ((double)b->rs_tx_in_flight > b->inflight_longterm) {
      b->inflight_longterm = (double)b->rs_tx_in_flight;
    }
    if (b->state == BBR_PROBE_UP) {
      probe_inflight_longterm_upward(b);
    }
  }
  /* A too-lossy ack sample is not acted on here: the 2026-08 draft reacts
   * to loss per lost packet (HandleLostPacket); an earlier draft's
   * "else if (BBR.is_bw_probe_sample) HandleInflightTooHigh()" also cut
   * inflight_longterm on an ack whose sample counted losses declared
   * before the probe (in REFILL or CRUISE, not probe samples). */
  return 0;
}

/* UpdateProbeBWCyclePhase */
static void update_probe_bw_cycle(bbr_st *b, uint32_t inflight,
                                  udccp_tstamp now) {
  if (!b->full_bw_reached) {
    return;
  }
  if (adapt_long_term_model(b) || !in_probe_bw(b)) {
    return;
  }
  switch (b->state) {
  case BBR_PROBE_DOWN:
    if (time_to_probe_bw(b, now)) {
      return;
    }
    if ((double)inflight <= inflight_with_headroom(b) &&
        (double)inflight <= inflight_at(b, b->max_bw, 1.0)) {
      start_probe_cruise(b);
    }
    break;
  case BBR_PROBE_CRUISE:
    (void)time_to_probe_bw(b, now);
    break;
  case BBR_PROBE_REFILL:
    if (b->round_start) {
      b->is_bw_probe_sample = 1;
      start_probe_up(b);
      b->up_max_bw = b->max_bw;
    }
    break;
  case BBR_PROBE_UP:
    if (b->prev_probe_too_high &&
        (double)inflight >= b->inflight_longterm) {
      b->prev_probe_precautionary = 1;
      b->prev_probe_too_high = 0;
      start_probe_down(b, now);
    } else if (is_cwnd_limited(b) && b->cwnd >= b->inflight_longterm) {
      reset_full_bw(b);
      b->full_bw = b->rs_delivery_rate;
    } else if (b->full_bw_now ||
               /* not while inflight_longterm, below what the model would
                * allow, holds the flight: a flow capped below its share,
                * in a queue other flows keep, has 1.25 of its BDP in
                * flight at once, and ending UP there would keep the cap
                * where Startup's losses put it */
               (!(is_cwnd_limited(b) &&
                  b->inflight_longterm < b->max_inflight) &&
                b->min_rtt != UDCCP_TSTAMP_NEVER &&
                b->ack_phase == ACKS_PROBE_FEEDBACK &&
                b->max_bw <= b->up_max_bw &&
                (double)inflight >=
                    inflight_at(b, b->max_bw, BBR_PROBE_UP_PACING_GAIN))) {
      /* the plateau (draft), or -- not in the draft -- 1.25 BDP in
       * flight once the probe's own acks come back (ACKS_PROBE_FEEDBACK,
       * a round in UP) without a rate sample above the max_bw it began
       * with: the probe found no bandwidth and has put 0.25 BDP in the
       * queue, more would only make it longer.  A probe whose samples
       * did raise max_bw (a share gained in a queue other flows keep,
       * or a faster path) is left to the draft's exits, as a lone flow's
       * at its link's rate never is.  Not after a min_rtt of wall
       * time: in a queue another flow keeps (RTT > 1.25 min_rtt) that
       * came before any ack of the probe, measured the queue that was
       * there before it, and ended every UP of every flow within an
       * RTT, so no probe ever gained share (1 Gbit/s x 100 ms, two
       * flows: whichever left Startup ahead stayed ahead) */
      b->prev_probe_too_high = 0;
      start_probe_down(b, now);
    }
    break;
  default:
    break;
  }
}

static void save_cwnd(bbr_st *b) {
  if (!b->in_rto_recovery && b->state != BBR_PROBE_RTT) {
    b->prior_cwnd = b->cwnd;
  } else {
    b->prior_cwnd = dmax(b->prior_cwnd, b->cwnd);
  }
}

static void restore_cwnd(bbr_st *b) { b->cwnd = dmax(b->cwnd, b->prior_cwnd); }

static double probe_rtt_cwnd(bbr_st *b) {
  return dmax(bdp_multiple(b, b->bw, BBR_PROBE_RTT_CWND_GAIN),
              BBR_MIN_PIPE_CWND);
}

static void exit_probe_rtt(bbr_st *b, udccp_tstamp now) {
  reset_short_term_model(b);
  if (b->full_bw_reached) {
    start_probe_down(b, now);
    start_probe_cruise(b);
  } else {
    enter_startup(b);
  }
}

static void check_probe_rtt_done(bbr_st *b, udccp_tstamp now) {
  if (b->probe_rtt_done_stamp != 0 && now > b->probe_rtt_done_stamp) {
    b->probe_rtt_min_stamp = now;
    restore_cwnd(b);
    exit_probe_rtt(b, now);
  }
}

/* UpdateMinRTT, CheckProbeRTT, HandleProbeRTT */
static void update_min_rtt(bbr_st *b, udccp_tstamp now) {
  b->probe_rtt_expired =
      now > b->probe_rtt_min_stamp + BBR_PROBE_RTT_INTERVAL;
  /* Where the draft writes rs.rtt < probe_rtt_min_delay: a sample within
   * a quarter of a packet's transmission time at bw (0.25 / bw: 3 us at
   * 1 Gbit/s) of the minimum shows no packet queued, which is what
   * ProbeRTT would find out; it refreshes the stamp and keeps the lower
   * delay.  Samples that close differ by the acknowledgement's own size
   * (the Ack Vector's length moves it by ~1 us at 1 Gbit/s), not by a
   * queue; with the draft's < (or <=) such a path paid for a ProbeRTT
   * every 5.4 s (2.5 % of the link at 1 Gbit/s x 100 ms) with the queue
   * empty.  bw is this flow's share, so with n flows the bound is n / 4
   * packets at the bottleneck's rate. */
  udccp_tstamp tol = b->bw > 0 ? (udccp_tstamp)(0.25e9 / b->bw) : 0;
  if (b->rs_has && b->rs_rtt > 0 &&
      (b->rs_rtt <= b->probe_rtt_min_delay ||
       b->rs_rtt - b->probe_rtt_min_delay <= tol || b->probe_rtt_expired)) {
    if (b->probe_rtt_expired || b->rs_rtt < b->probe_rtt_min_delay) {
      b->probe_rtt_min_delay = b->rs_rtt;
    }
    b->probe_rtt_min_stamp = now;
  }
  if (b->probe_rtt_min_delay < b->min_rtt ||
      now > b->min_rtt_stamp + BBR_MIN_RTT_FILTER) {
    b->min_rtt = b->probe_rtt_min_delay;
    b->min_rtt_stamp = b->probe_rtt_min_stamp;
  }
}

static void check_probe_rtt(bbr_st *b, uint32_t inflight, udccp_tstamp now) {
  if (b->state != BBR_PROBE_RTT && b->probe_rtt_expired && !b->idle_restart) {
    b->state = BBR_PROBE_RTT;
    b->pacing_gain = 1.0;
    b->cwnd_gain = BBR_PROBE_RTT_CWND_GAIN;
    save_cwnd(b);
    b->probe_rtt_done_stamp = 0;
    b->ack_phase = ACKS_PROBE_STOPPING;
    start_round(b);
  }
  if (b->state == BBR_PROBE_RTT) {
    b->app_limited = b->delivered + inflight; /* ignore low samples */
    if (b->app_limited == 0) {
      b->app_limited = 1;
    }
    if (b->probe_rtt_done_stamp == 0 &&
        (double)inflight <= probe_rtt_cwnd(b)) {
      b->probe_rtt_done_stamp = now + BBR_PROBE_RTT_DURATION;
      b->probe_rtt_round_done = 0;
      start_round(b);
    } else if (b->probe_rtt_done_stamp != 0) {
      if (b->round_start) {
        b->probe_rtt_round_done = 1;
      }
      if (b->probe_rtt_round_done) {
        check_probe_rtt_done(b, now);
      }
    }
  }
  if (b->rs_delivered > 0) {
    b->idle_restart = 0;
  }
}

/* SetPacingRate, SetCwnd and its bounds (Updating Control Parameters). */
static void update_control(bbr_st *b) {
  double rate, cap;
  if (b->bw > 0) {
    rate = b->pacing_gain * b->bw * (1.0 - BBR_PACING_MARGIN);
    if (b->full_bw_reached || rate > b->pacing_rate) {
      b->pacing_rate = rate;
    }
  }
  b->max_inflight = quantization_budget(
      b, bdp_multiple(b, b->bw, b->cwnd_gain) + b->extra_acked);
  if (b->in_rto_recovery) {
    /* after a timeout: packet conservation, then the prior cwnd */
    b->cwnd += b->rs_newly_acked;
    if (b->delivered >= b->rto_recovery_end) {
      b->in_rto_recovery = 0;
      restore_cwnd(b);
    }
  } else if (b->full_bw_reached) {
    b->cwnd = dmin(b->cwnd + b->rs_newly_acked, b->max_inflight);
  } else if (b->cwnd < b->max_inflight || b->delivered < b->init_cwnd) {
    b->cwnd += b->rs_newly_acked;
  }
  b->cwnd = dmax(b->cwnd, BBR_MIN_PIPE_CWND);
  if (b->state == BBR_PROBE_RTT) {
    b->cwnd = dmin(b->cwnd, probe_rtt_cwnd(b));
  }
  cap = BBR_INF;
  if (in_probe_bw(b) && b->state != BBR_PROBE_CRUISE) {
    cap = b->inflight_longterm;
  } else if (b->state == BBR_PROBE_RTT || b->state == BBR_PROBE_CRUISE) {
    cap = inflight_with_headroom(b);
  }
  cap = dmin(cap, b->inflight_shortterm);
  cap = dmax(cap, BBR_MIN_PIPE_CWND);
  b->cwnd = dmin(b->cwnd, cap);
}

static void put_cwnd(const bbr_st *b, udccp_ccid2_win *w) {
  double c = b->cwnd;
  if (c > (double)UDCCP_CCID2_CWND_MAX) {
    c = (double)UDCCP_CCID2_CWND_MAX;
  }
  w->cwnd = (uint32_t)c;
  if (w->cwnd < 1) {
    w->cwnd = 1;
  }
}

/* UpdateOnACK */
static void bbr_on_ack(void *cs, udccp_ccid2_win *w, udccp_tstamp ts) {
  bbr_st *b = bs_of(cs);
  uint32_t inflight = w->pipe;
  if (b->rs_newly_acked == 0 && b->rs_newly_lost == 0) {
    put_cwnd(b, w);
    return;
  }
  (void)generate_rate_sample(b, b->min_rtt);
  update_latest_signals(b);
  update_congestion_signals(b);
  update_ack_aggregation(b, ts);
  check_full_bw(b);
  if (b->state == BBR_STARTUP && b->full_bw_reached) {
    enter_drain(b); /* CheckStartupDone */
  }
  if (b->state == BBR_DRAIN &&
      ((double)inflight <= inflight_at(b, b->max_bw, 1.0) ||
       b->round_count > b->drain_start_round + 3)) {
    enter_probe_bw(b, ts); /* CheckDrainDone */
  }
  update_probe_bw_cycle(b, inflight, ts);
  update_min_rtt(b, ts);
  check_probe_rtt(b, inflight, ts);
  advance_latest_signals(b);
  b->bw = dmin(b->max_bw, b->bw_shortterm); /* BoundBWForModel */
  update_control(b);
  put_cwnd(b, w);
  w->ssthresh = UINT32_MAX; /* unused: CCID 2 never slow-starts for us */
  b->rs_has = 0;
  b->rs_newly_acked = 0;
  b->rs_newly_lost = 0;
  b->rs_loss_too_high = 0;
}

/* Once per window CCID 2 sees a congestion event: BBR's response is
 * per packet (on_lost) and per round; the window is left alone. */
static void bbr_on_congestion(void *cs, udccp_ccid2_win *w, udccp_tstamp ts) {
  (void)ts;
  put_cwnd(bs_of(cs), w);
}

/* OnEnterRTO: cwnd = inflight + 1 (CCID 2 empties the pipe: 1). */
static void bbr_on_timeout(void *cs, udccp_ccid2_win *w, int repeated,
                           udccp_tstamp ts) {
  bbr_st *b = bs_of(cs);
  uint32_t i;
  (void)ts;
  if (!repeated) {
    save_cwnd(b);
  }
  /* CCID 2 declares everything outstanding lost (RFC 4341 §5 (3)); once
   * per timeout, not per packet */
  for (i = 0; i < b->cap; i++) {
    if (b->ring[i].out) {
      b->ring[i].out = 0;
      b->lost++;
    }
  }
  note_loss(b);
  b->in_rto_recovery = 1;
  b->rto_recovery_end = b->delivered + (uint64_t)dmax(b->prior_cwnd, 1.0);
  b->cwnd = 1;
  w->ssthresh = UINT32_MAX;
}

static udccp_tstamp bbr_pace_interval(const void *cs,
                                      const udccp_ccid2_win *w) {
  const bbr_st *b = (const bbr_st *)cs;
  (void)w;
  if (b->pacing_rate <= 0) {
    return 0;
  }
  return (udccp_tstamp)(1e9 / b->pacing_rate);
}

static void bbr_on_ca_ack(void *cs, udccp_ccid2_win *w, uint32_t acked,
                          udccp_tstamp ts) {
  (void)acked;
  (void)ts;
  put_cwnd(bs_of(cs), w); /* not called: on_ack owns cwnd */
}

const udccp_ccid2_cc udccp_bbr_cc = {
    .name = "BBR",
    .init = bbr_init,
    .on_congestion = bbr_on_congestion,
    .on_ca_ack = bbr_on_ca_ack,
    .on_timeout = bbr_on_timeout,
    .on_restart = NULL,
    .state_size = sizeof(bbr_st),
    .exit = bbr_exit,
    .on_sent = bbr_on_sent,
    .on_acked = bbr_on_acked,
    .on_lost = bbr_on_lost,
    .on_ack = bbr_on_ack,
    .pace_interval = bbr_pace_interval,
    .trim = bbr_trim,
};

_Static_assert(sizeof(bbr_st) <= UDCCP_BBR_CC_STATE_SIZE, "bbr state");

static int bbr_tx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                       udccp_tstamp ts) {
  bbr_st *b = (bbr_st *)(void *)(st->bytes + UDCCP_CCID2_TX_STATE_SIZE);
  int rc = udccp_ccid2_tx_init_cc(st, env, ts, &udccp_bbr_cc);
  if (rc == 0) {
    b->mem = env->mem ? env->mem : udccp_mem_default();
  }
  return rc;
}

void udccp_bbr_get_model(const udccp_ccid_state *st, udccp_bbr_model *m) {
  const bbr_st *b =
      (const bbr_st *)(const void *)(st->bytes + UDCCP_CCID2_TX_STATE_SIZE);
  m->state = b->state;
  m->max_bw = b->max_bw;
  m->bw = b->bw;
  m->min_rtt = b->min_rtt;
  m->pacing_rate = b->pacing_rate;
  m->cwnd = b->cwnd;
  m->round_count = b->round_count;
  m->full_bw_reached = b->full_bw_reached;
  m->inflight_longterm = b->inflight_longterm;
}

static void bbr_tx_get_info(const udccp_ccid_state *st,
                            udccp_conn_info *info) {
  const bbr_st *b =
      (const bbr_st *)(const void *)(st->bytes + UDCCP_CCID2_TX_STATE_SIZE);
  udccp_ccid2_tx_get_info(st, info);
  /* queueing delay: the smoothed RTT over BBR's windowed min_rtt */
  if (b->min_rtt != UDCCP_TSTAMP_NEVER && info->srtt > b->min_rtt) {
    info->qdelay = info->srtt - b->min_rtt;
  }
}

const udccp_ccid_ops udccp_ccid_bbr_ops = {
    .id = UDCCP_CCID_BBR_DEFAULT,
    .name = "BBR (draft-ietf-ccwg-bbr) on CCID 2 feedback",
    .deps = udccp_ccid2_deps, /* RFC 4341 §4: as CCID 2 */
    .n_deps = UDCCP_CCID2_N_DEPS,
    .tx_size = UDCCP_CCID2_TX_STATE_SIZE + UDCCP_BBR_CC_STATE_SIZE,
    .rx_size = UDCCP_CCID2_RX_STATE_SIZE,
    .tx_init = bbr_tx_init,
    .tx_exit = udccp_ccid2_tx_exit,
    .tx_next_send = udccp_ccid2_tx_next_send,
    .tx_ccval = NULL,
    .tx_on_sent = udccp_ccid2_tx_on_sent,
    .tx_on_pkt = udccp_ccid2_tx_on_pkt,
    .tx_write_opts = NULL,
    .tx_get_expiry = udccp_ccid2_tx_get_expiry,
    .tx_on_expiry = udccp_ccid2_tx_on_expiry,
    .tx_get_info = bbr_tx_get_info,
    .tx_cwnd = udccp_ccid2_tx_cwnd,
    .trim = udccp_ccid2_trim,
    .rx_init = udccp_ccid2_rx_init,
    .rx_exit = udccp_ccid2_rx_exit,
    .rx_on_pkt = udccp_ccid2_rx_on_pkt,
    .rx_write_opts = udccp_ccid2_rx_write_opts,
    .rx_get_expiry = udccp_ccid2_rx_get_expiry,
    .rx_on_expiry = udccp_ccid2_rx_on_expiry,
    .rx_get_info = udccp_ccid2_rx_get_info,
};

const udccp_ccid_ops *udccp_ccid_bbr(void) { return &udccp_ccid_bbr_ops; }

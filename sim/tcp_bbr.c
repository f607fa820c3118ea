/* SPDX-License-Identifier: MIT */
/*
 * The reference TCP's BBR-like congestion control (sim_tcp_bbr.h): Startup
 * (pacing x2.77, cwnd x2) until the delivery rate stops growing by 25 %
 * for 3 rounds or a round loses > 2 %; Drain (x0.5) to one BDP; then the
 * ProbeBW cycle DOWN (x0.9) / CRUISE (x1) for 2..3 s / REFILL (x1, one
 * round) / UP (x1.25, cwnd x2.25) until the rate plateaus, 1.25 BDP
 * are in flight once the probe's own acks return (as lib/ccid_bbr.c, not
 * the draft; not while inflight_hi holds a window the sender fills, nor
 * when the probe's samples raised max_bw), a
 * probing segment's loss passes 2 % (which caps inflight_hi where it
 * did, InflightAtLoss) or, after such a probe, the flight reaches
 * inflight_hi (precautionary probing); in UP inflight_hi grows by 1, 2, 4...
 * segments per round while it holds the window; the max_bw filter
 * advances a round after each DOWN starts; the probe's losses count
 * until then (the draft's ack phases); rounds with loss outside probing
 * scale the short-term bounds by 0.7;
 * Startup's loss exit counts discontiguous lost ranges, as the draft;
 * ProbeRTT (cwnd 0.5 BDP, 200 ms and a round, its samples marked
 * application-limited as the draft's HandleProbeRTT does) after 5 s without an RTT
 * sample at the minimum (as lib/ccid_bbr.c, doc/bbr.md).  max_bw: the max over this and the last cycle; min_rtt:
 * 10 s window.  Delivery rate per ack from the newest segment it covers
 * (the rate-sample method of draft-ietf-ccwg-bbr).  cwnd = cwnd_gain x
 * BDP + extra_acked, the draft's ACK-aggregation estimate (segments acked
 * beyond what bw explains, max over 10 rounds, 1 in Startup): even with
 * an ack per segment it matters in Startup, where the rate samples lag
 * the doubling flight (each sample's interval spans the previous round's
 * spread as well as the RTT), and without it cwnd hit 2 x BDP of the
 * last round's rate on every round: Startup grew x1.6 per round instead
 * of x2 (1 Gbit/s x 100 ms: 1.2 s to 1,000 segments, not 8,300).
 */
#include "sim_tcp_bbr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  ST_STARTUP = TCP_BBR_STARTUP,
  ST_DRAIN = TCP_BBR_DRAIN,
  ST_DOWN = TCP_BBR_DOWN,
  ST_CRUISE = TCP_BBR_CRUISE,
  ST_REFILL = TCP_BBR_REFILL,
  ST_UP = TCP_BBR_UP,
  ST_RTT = TCP_BBR_PROBE_RTT
};

#define INF 1e300
#define MIN_CWND 4.0

static double mx(double a, double b) { return a > b ? a : b; }
static double mn(double a, double b) { return a < b ? a : b; }

int tcp_bbr_init(tcp_bbr *b, uint32_t iw, uint64_t seed) {
  memset(b, 0, sizeof(*b));
  b->mask = 1023;
  b->ring = calloc(b->mask + 1, sizeof(*b->ring));
  if (b->ring == NULL) {
    return -1;
  }
  sim_rng_seed(&b->rng, seed, 77);
  b->cwnd = iw;
  b->pacing_rate = 2.77 * iw / 1e-3; /* initial window per ms, x2.77 */
  b->state = ST_STARTUP;
  b->pacing_gain = 2.77;
  b->cwnd_gain = 2;
  b->min_rtt = b->probe_min = UDCCP_TSTAMP_NEVER;
  b->inflight_hi = b->inflight_lo = b->bw_lo = INF;
  return 0;
}

void tcp_bbr_free(tcp_bbr *b) {
  free(b->ring);
  b->ring = NULL;
}

int tcp_bbr_sent(tcp_bbr *b, uint64_t seq, uint64_t una, uint64_t inflight,
                 udccp_tstamp now) {
  tcp_bbr_seg *s;
  while (seq - una > b->mask) {
    uint64_t n = (b->mask + 1) * 2, q;
    tcp_bbr_seg *r = calloc(n, sizeof(*r));
    if (r == NULL) {
      return -1;
    }
    for (q = una; q < seq; q++) {
      r[q & (n - 1)] = b->ring[q & b->mask];
    }
    free(b->ring);
    b->ring = r;
    b->mask = n - 1;
  }
  if (inflight <= 1) {
    b->first_sent = b->delivered_time = now;
  }
  s = &b->ring[seq & b->mask];
  if (s->seq1 != seq + 1) {
    s->seq1 = seq + 1;
    s->done = 0;
  }
  if ((double)inflight >= b->cwnd) {
    b->cwnd_limited = 1;
  }
  s->delivered = b->delivered;
  s->lost = b->lost;
  s->inflight = inflight;
  s->sent = now;
  s->delivered_time = b->delivered_time;
  s->first_sent = b->first_sent;
  s->app_limited = b->app_limited != 0;
  b->next_send = (b->next_send > now ? b->next_send : now) +
                 tcp_bbr_interval(b);
  return 0;
}

static void start_round(tcp_bbr *b) { b->round_end = b->delivered; }

static void set_state(tcp_bbr *b, int st, double pg, double cg) {
  b->state = st;
  b->pacing_gain = pg;
  b->cwnd_gain = cg;
}

/* ack phases of a bandwidth probe (the draft's BBR.ack_phase) */
enum { ACKS_INIT, ACKS_REFILLING, ACKS_PROBE_STARTING, ACKS_PROBE_FEEDBACK,
       ACKS_PROBE_STOPPING };

/* StartProbeBW_DOWN with ResetCongestionSignals and PickProbeWait */
static void start_down(tcp_bbr *b, udccp_tstamp now) {
  set_state(b, ST_DOWN, 0.9, 2);
  b->loss_in_round = 0;
  b->bw_latest = b->inflight_latest = 0;
  b->up_per_inc = INF;
  b->up_cnt = sim_rng_uniform(&b->rng) < 0.5 ? 0 : 1;
  b->wait = 2 * UDCCP_NS_PER_S +
            (udccp_tstamp)(sim_rng_uniform(&b->rng) * 1e9);
  b->cycle_at = now;
  b->ack_phase = ACKS_PROBE_STOPPING;
  start_round(b);
}

/* StartProbeBW_REFILL */
static void start_refill(tcp_bbr *b) {
  b->bw_lo = b->inflight_lo = INF;
  b->up_rounds = 0;
  b->up_acked = 0;
  b->prev_probe_precautionary = 0;
  b->ack_phase = ACKS_REFILLING;
  start_round(b);
  set_state(b, ST_REFILL, 1, 2);
}

/* RaiseInflightLongtermSlope: inflight_hi grows by 1, 2, 4... segments
 * per round of ProbeBW_UP, spread over the round's acks */
static void raise_hi_slope(tcp_bbr *b) {
  double growth = (double)(1u << b->up_rounds);
  if (b->up_rounds < 30) {
    b->up_rounds++;
  }
  b->up_per_inc = mx(b->cwnd / growth, 1);
}

/* StartProbeBW_UP */
static void start_up(tcp_bbr *b) {
  b->ack_phase = ACKS_PROBE_STARTING;
  start_round(b);
  b->full_now = 0;
  b->full_cnt = 0;
  b->full_bw = b->rs_rate;
  set_state(b, ST_UP, 1.25, 2.25);
  raise_hi_slope(b);
  b->up_max_bw = b->max_bw;
}

/* HandleInflightTooHigh for a lost segment's sample (its inflight at
 * loss and app-limited mark; the ack's rate sample is left alone) */
static void too_high(tcp_bbr *b, double inflight, int app_limited,
                     udccp_tstamp now) {
  b->prev_probe_too_high = 1;
  b->probe_sample = 0;
  b->loss_too_high = 1;
  if (!app_limited) {
    b->inflight_hi = mx(inflight, 0.7 * mn(b->bdp, b->cwnd));
  }
  if (b->state == ST_UP) {
    start_down(b, now);
  }
}

void tcp_bbr_delivered(tcp_bbr *b, uint64_t seq, int retx, udccp_tstamp now) {
  tcp_bbr_seg *s = &b->ring[seq & b->mask];
  if (s->seq1 == seq + 1 && s->done) {
    return; /* SACKed before a timeout cleared the scoreboard */
  }
  s->done = 1;
  b->delivered++;
  b->delivered_time = now;
  b->newly_acked++;
  if (!b->rs_valid || s->sent >= b->first_sent) {
    b->rs_valid = 1;
    b->rs_prior_delivered = s->delivered;
    b->rs_prior_time = s->delivered_time;
    b->rs_interval_send = s->sent - s->first_sent;
    b->rs_inflight = s->inflight;
    b->rs_lost = b->lost - s->lost;
    b->rs_rtt = retx ? 0 : now - s->sent; /* Karn: ambiguous if resent */
    b->rs_app_limited = s->app_limited;
    b->first_sent = s->sent;
  }
}

/* HandleLostPacket with InflightAtLoss (one segment per packet) */
void tcp_bbr_lost(tcp_bbr *b, uint64_t seq) {
  const tcp_bbr_seg *s = &b->ring[seq & b->mask];
  b->lost++;
  b->newly_lost++;
  if (!b->have_last_lost || seq != b->last_lost + 1) {
    b->lost_ranges++; /* a discontiguous lost range (Startup's exit) */
  }
  b->last_lost = seq;
  b->have_last_lost = 1;
  if (!b->loss_in_round) {
    b->loss_round_end = b->delivered;
  }
  b->loss_in_round = 1;
  if (b->probe_sample &&
      (double)(b->lost - s->lost) > 0.02 * (double)s->inflight) {
    double prev = (double)s->inflight - 1, lost_prev =
        (double)(b->lost - s->lost) - 1;
    too_high(b, floor(mx(prev + (0.02 * prev - lost_prev) / (1 - 0.02), 1)),
             s->app_limited, b->delivered_time);
  }
}

void tcp_bbr_timeout(tcp_bbr *b) {
  if (!b->in_rto) {
    b->prior_cwnd = b->cwnd;
  }
  b->in_rto = 1;
  b->rto_end = b->delivered + (uint64_t)b->prior_cwnd;
  b->cwnd = 1;
}

static double bdp_times(tcp_bbr *b, double gain) {
  if (b->min_rtt == UDCCP_TSTAMP_NEVER) {
    return 4;
  }
  b->bdp = b->bw * (double)b->min_rtt / 1e9;
  return mx(gain * b->bdp, MIN_CWND);
}

static double headroom(const tcp_bbr *b) {
  if (b->inflight_hi >= INF) {
    return INF;
  }
  return mx(b->inflight_hi - mx(1, 0.15 * b->inflight_hi), MIN_CWND);
}

/* The draft's UpdateACKAggregation, with a max filter of one slot per
 * round. */
static void update_extra_acked(tcp_bbr *b, udccp_tstamp now) {
  unsigned len = b->filled ? TCP_BBR_EXTRA_ROUNDS : 1, i;
  double expected = b->bw * (double)(now - b->extra_start) / 1e9, extra;
  double *slot = &b->extra_round[b->rounds % TCP_BBR_EXTRA_ROUNDS];
  if (b->extra_delivered <= expected) {
    b->extra_delivered = 0;
    b->extra_start = now;
    expected = 0;
  }
  b->extra_delivered += (double)b->newly_acked;
  extra = mn(b->extra_delivered - expected, b->cwnd);
  if (b->round_start) {
    *slot = 0;
  }
  *slot = mx(*slot, extra);
  b->extra_acked = 0;
  for (i = 0; i < len; i++) {
    b->extra_acked = mx(b->extra_acked,
                        b->extra_round[(b->rounds + TCP_BBR_EXTRA_ROUNDS - i) %
                                       TCP_BBR_EXTRA_ROUNDS]);
  }
}

static int in_probe_bw(const tcp_bbr *b) {
  return b->state >= ST_DOWN && b->state <= ST_UP;
}

/* ProbeInflightLongtermUpward */
static void probe_hi_upward(tcp_bbr *b) {
  if (!(b->cwnd_limited || b->cwnd_limited_prev) || b->cwnd < b->inflight_hi) {
    return; /* inflight_hi does not hold the window: no growth */
  }
  b->up_acked += (double)b->newly_acked;
  if (b->up_acked >= b->up_per_inc) {
    double delta = floor(b->up_acked / b->up_per_inc);
    b->up_acked -= delta * b->up_per_inc;
    b->inflight_hi += delta;
  }
  if (b->round_start) {
    raise_hi_slope(b);
  }
}

/* AdaptLongTermModel; 1 if it decided a state transition */
static int adapt_long_term(tcp_bbr *b) {
  if (b->ack_phase == ACKS_PROBE_STARTING && b->round_start) {
    b->ack_phase = ACKS_PROBE_FEEDBACK;
  }
  if (b->ack_phase == ACKS_PROBE_STOPPING && b->round_start) {
    b->probe_sample = 0;
    b->ack_phase = ACKS_INIT;
    if (in_probe_bw(b) && !b->rs_app_limited) { /* AdvanceMaxBwFilter */
      b->bw_slot[1] = b->bw_slot[0];
      b->bw_slot[0] = 0;
    }
    if (in_probe_bw(b) && b->prev_probe_precautionary &&
        !b->prev_probe_too_high) {
      start_refill(b);
      return 1;
    }
  }
  /* not raised from the sample of an ack whose loss was too high (the
   * draft leaves the lost segment's figures in RS for this step) */
  if ((double)b->rs_lost <= 0.02 * (double)b->rs_inflight &&
      !b->loss_too_high) {
    if (b->inflight_hi >= INF) {
      return 0;
    }
    if ((double)b->rs_inflight > b->inflight_hi) {
      b->inflight_hi = (double)b->rs_inflight;
    }
    if (b->state == ST_UP) {
      probe_hi_upward(b);
    }
  }
  return 0;
}

/* UpdateProbeBWCyclePhase after AdaptLongTermModel */
static void update_cycle_phase(tcp_bbr *b, uint64_t inflight,
                               udccp_tstamp now) {
  switch (b->state) {
  case ST_DOWN:
  case ST_CRUISE:
    if (now > b->cycle_at + b->wait ||
        (double)b->up_cnt >= mn(mn(b->bdp, b->cwnd), 63)) {
      start_refill(b); /* IsTimeToProbeBW */
    } else if (b->state == ST_DOWN && (double)inflight <= headroom(b) &&
               b->min_rtt != UDCCP_TSTAMP_NEVER &&
               (double)inflight <=
                   mx(b->max_bw * (double)b->min_rtt / 1e9, MIN_CWND)) {
      set_state(b, ST_CRUISE, 1, 2); /* IsTimeToCruise */
    }
    break;
  case ST_REFILL:
    if (b->round_start) {
      b->probe_sample = 1;
      start_up(b);
    }
    break;
  case ST_UP:
    /* IsTimeToGoDown */
    if (b->prev_probe_too_high && (double)inflight >= b->inflight_hi) {
      b->prev_probe_precautionary = 1;
      b->prev_probe_too_high = 0;
      start_down(b, now);
    } else if ((b->cwnd_limited || b->cwnd_limited_prev) &&
               b->cwnd >= b->inflight_hi) {
      b->full_bw = b->rs_rate; /* ResetFullBW: inflight_hi limits bw */
      b->full_cnt = 0;
      b->full_now = 0;
    } else if (b->full_now ||
               /* as lib/ccid_bbr.c: 1.25 BDP in flight once the probe's
                * own acks come back, unless inflight_hi holds the window
                * or the probe raised max_bw */
               (!((b->cwnd_limited || b->cwnd_limited_prev) &&
                  b->inflight_hi < b->max_inflight) &&
                b->min_rtt != UDCCP_TSTAMP_NEVER &&
                b->ack_phase == ACKS_PROBE_FEEDBACK &&
                b->max_bw <= b->up_max_bw &&
                (double)inflight >= bdp_times(b, 1.25) + 2)) {
      b->prev_probe_too_high = 0;
      start_down(b, now);
    }
    break;
  default:
    break;
  }
}

void tcp_bbr_ack(tcp_bbr *b, uint64_t inflight, udccp_tstamp now) {
  double target, cap;
  int probing, expired;
  if (b->newly_acked == 0) {
    return;
  }
  /* the rate sample */
  b->rs_rate = 0;
  b->rs_delivered = (double)(b->delivered - b->rs_prior_delivered);
  if (b->rs_valid && b->rs_prior_time != 0) {
    udccp_tstamp ia = now - b->rs_prior_time,
                 iv = ia > b->rs_interval_send ? ia : b->rs_interval_send;
    if (iv > 0 && (b->min_rtt == UDCCP_TSTAMP_NEVER || iv >= b->min_rtt)) {
      b->rs_rate = b->rs_delivered * 1e9 / (double)iv;
    }
  }
  /* rounds, max_bw, min_rtt */
  b->round_start = b->rs_valid && b->rs_prior_delivered >= b->round_end;
  if (b->round_start) {
    start_round(b);
    b->rounds++;
    b->up_cnt++;
    b->cwnd_limited_prev = b->cwnd_limited;
    b->cwnd_limited = 0;
  }
  if (b->app_limited && b->delivered > b->app_limited) {
    b->app_limited = 0; /* the marked span is delivered */
  }
  /* UpdateMaxBw: an application-limited sample only if it raises max_bw */
  if (b->rs_rate > b->bw_slot[0] &&
      (!b->rs_app_limited || b->rs_rate >= b->max_bw)) {
    b->bw_slot[0] = b->rs_rate;
  }
  b->max_bw = mx(b->bw_slot[0], b->bw_slot[1]);
  b->bw_latest = mx(b->bw_latest, b->rs_rate);
  b->inflight_latest = mx(b->inflight_latest, b->rs_delivered);
  expired = now > b->probe_min_at + 5 * UDCCP_NS_PER_S;
  if (b->rs_valid && b->rs_rtt > 0 && (b->rs_rtt <= b->probe_min || expired)) {
    b->probe_min = b->rs_rtt;
    b->probe_min_at = now;
  }
  if (b->probe_min < b->min_rtt || now > b->min_rtt_at + 10 * UDCCP_NS_PER_S) {
    b->min_rtt = b->probe_min;
    b->min_rtt_at = b->probe_min_at;
  }
  /* once per round: losses outside probing shrink the short-term bounds;
   * in Startup, a round losing > 2 % (6 segments at least) ends it */
  probing = b->state == ST_STARTUP || b->state == ST_REFILL ||
            b->state == ST_UP;
  if (b->rs_valid && b->rs_prior_delivered >= b->loss_round_end) {
    b->loss_round_end = b->delivered;
    if (b->loss_in_round && !probing) {
      b->bw_lo = mx(b->bw_latest, 0.7 * (b->bw_lo >= INF ? b->max_bw : b->bw_lo));
      b->inflight_lo = mx(b->inflight_latest,
                          0.7 * (b->inflight_lo >= INF ? b->cwnd : b->inflight_lo));
    }
    if (b->state == ST_STARTUP) {
      /* CheckStartupHighLoss: a round after the first loss (the loss
       * round restarts there), > 2 % lost and at least 6 discontiguous
       * lost ranges (not 6 lost segments) */
      uint64_t l = b->lost - b->round_lost0, d = b->delivered - b->round_delivered0;
      if (b->lost_ranges >= 6 && (double)l > 0.02 * (double)(l + d)) {
        b->filled = 1;
        b->inflight_hi = mx(b->bdp, b->inflight_latest);
      }
      b->round_lost0 = b->lost;
      b->round_delivered0 = b->delivered;
    }
    b->lost_ranges = 0;
    b->loss_in_round = 0;
    b->bw_latest = b->rs_rate;
    b->inflight_latest = b->rs_delivered;
  }
  /* plateau of the delivery rate */
  if (!b->full_now && b->round_start && !b->rs_app_limited) {
    if (b->rs_rate >= 1.25 * b->full_bw) {
      b->full_bw = b->rs_rate;
      b->full_cnt = 0;
    } else if (++b->full_cnt >= 3) {
      b->full_now = b->filled = 1;
    }
  }
  b->bw = mn(b->max_bw, b->bw_lo);
  update_extra_acked(b, now);
  /* the state machine */
  if (b->state == ST_STARTUP && b->filled) {
    set_state(b, ST_DRAIN, 0.5, 2);
    b->drain_round = b->rounds;
  }
  if (b->state == ST_DRAIN &&
      ((double)inflight <= bdp_times(b, 1) || b->rounds > b->drain_round + 3)) {
    start_down(b, now);
  }
  if (b->filled && !adapt_long_term(b)) {
    update_cycle_phase(b, inflight, now);
  }
  /* ProbeRTT */
  if (b->state != ST_RTT && expired) {
    b->prior_cwnd = mx(b->prior_cwnd, b->cwnd);
    b->state = ST_RTT;
    b->pacing_gain = 1;
    b->probe_rtt_end = 0;
    b->ack_phase = ACKS_PROBE_STOPPING;
    start_round(b);
  }
  if (b->state == ST_RTT) {
    /* HandleProbeRTT: MarkConnectionAppLimited, so that ProbeRTT's low
     * rate samples neither enter the max_bw filter nor advance it */
    b->app_limited = b->delivered + inflight > 0 ? b->delivered + inflight : 1;
    if (b->probe_rtt_end == 0 && (double)inflight <= bdp_times(b, 0.5)) {
      b->probe_rtt_end = now + 200 * UDCCP_NS_PER_MS;
      b->rtt_round_done = 0;
      start_round(b);
    } else if (b->probe_rtt_end != 0) {
      b->rtt_round_done |= b->round_start;
      if (b->rtt_round_done && now > b->probe_rtt_end) {
        b->probe_min_at = now;
        b->cwnd = mx(b->cwnd, b->prior_cwnd);
        b->prior_cwnd = 0;
        b->bw_lo = b->inflight_lo = INF;
        if (b->filled) {
          start_down(b, now);
          set_state(b, ST_CRUISE, 1, 2);
        } else {
          set_state(b, ST_STARTUP, 2.77, 2);
        }
      }
    }
  }
  /* pacing rate and cwnd */
  if (b->bw > 0) {
    double r = b->pacing_gain * b->bw * 0.99;
    if (b->filled || r > b->pacing_rate) {
      b->pacing_rate = r;
    }
  }
  target = bdp_times(b, b->cwnd_gain) + b->extra_acked +
           (b->state == ST_UP ? 2 : 0);
  b->max_inflight = target;
  if (b->in_rto) {
    b->cwnd += (double)b->newly_acked;
    if (b->delivered >= b->rto_end) {
      b->in_rto = 0;
      b->cwnd = mx(b->cwnd, b->prior_cwnd);
    }
  } else if (b->filled) {
    b->cwnd = mn(b->cwnd + (double)b->newly_acked, target);
  } else if (b->cwnd < target) {
    b->cwnd += (double)b->newly_acked;
  }
  if (b->state == ST_RTT) {
    b->cwnd = mn(b->cwnd, bdp_times(b, 0.5));
  }
  cap = INF;
  if (b->state == ST_DOWN || b->state == ST_REFILL || b->state == ST_UP) {
    cap = b->inflight_hi;
  } else if (b->state == ST_CRUISE || b->state == ST_RTT) {
    cap = headroom(b);
  }
  cap = mx(mn(cap, b->inflight_lo), MIN_CWND);
  b->cwnd = mx(mn(b->cwnd, cap), MIN_CWND);
  b->rs_valid = 0;
  b->loss_too_high = 0;
  b->newly_acked = b->newly_lost = 0;
}

uint64_t tcp_bbr_cwnd(const tcp_bbr *b) {
  return b->cwnd < 1 ? 1 : (uint64_t)b->cwnd;
}

udccp_tstamp tcp_bbr_interval(const tcp_bbr *b) {
  return b->pacing_rate > 0 ? (udccp_tstamp)(1e9 / b->pacing_rate) : 0;
}

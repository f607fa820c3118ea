/* SPDX-License-Identifier: MIT */
/*
 * CUBIC (RFC 9438) as an experimental CCID on CCID 2's feedback.
 *
 * Everything but the window's growth and reduction is CCID 2's sender
 * (lib/ccid2.c): Ack Vector parsing, the NUMDUPACK loss rule, ECN marks and
 * nonces, Data Dropped, Ack Ratio, RTT and timeout, RFC 2861 window
 * validation, pacing; and its receiver half.  This file is the window
 * policy (udccp_ccid2_cc, ccid2.h) that replaces RFC 4341 §5's halving and
 * +1-per-window:
 *
 * RFC 9438 §4.1.2  W_cubic(t) = C (t - K)^3 + W_max, C = 0.4, in packets
 *                  (CCID 2 counts packets, RFC 4341 §5: a packet is CUBIC's
 *                  segment) and seconds.
 * §4.2             K = cbrt((W_max - cwnd_epoch) / C), cwnd_epoch the window
 *                  when the congestion-avoidance epoch began.
 * §4.2             target = W_cubic(t + RTT), kept within [cwnd, 1.5 cwnd];
 *                  cwnd grows by (target - cwnd) / cwnd per packet acked.
 * §4.3             Reno-friendly region: W_est grows by alpha_cubic per
 *                  window acked, alpha_cubic = 3 (1 - beta) / (1 + beta),
 *                  1 once W_est >= cwnd_prior; cwnd follows W_est when
 *                  W_cubic(t) < W_est.
 * §4.6             On a congestion event (one per window, CCID 2's rule):
 *                  ssthresh = cwnd x beta_cubic (0.7), at least 2;
 *                  cwnd = ssthresh; W_max = cwnd before the reduction.
 * §4.7             Fast convergence: a reduction below the previous W_max
 *                  sets W_max = cwnd (1 + beta) / 2.
 * §4.8             Timeout: ssthresh as §4.6 (once per back-off, as CCID 2),
 *                  cwnd = 1 (CCID 2), the epoch restarts.
 * §4.10            Slow start is CCID 2's (RFC 5681 with ABC), with
 *                  HyStart++ (RFC 9406, which §4.10 recommends) in the
 *                  initial one (ssthresh still "arbitrarily high", RFC 9406
 *                  §4.3 SHOULD): per round (an ack of the newest packet
 *                  sent when the round began, §4.2's windowEnd) the
 *                  minimum of its RTT samples (one per ack; at least
 *                  N_RTT_SAMPLE = 8 before a decision); a round whose
 *                  minimum is RttThresh = clamp(last / 8, 4 ms, 16 ms)
 *                  above the last round's starts Conservative Slow Start:
 *                  growth / CSS_GROWTH_DIVISOR (4) for CSS_ROUNDS (5)
 *                  rounds, then ssthresh = cwnd; a round whose minimum
 *                  falls below the baseline CSS began with goes back to
 *                  slow start.  L (the per-ack growth limit) is CCID 2's
 *                  ABC limit: CCID 2 paces (§4.2: L = infinity if paced).
 *                  A loss or mark in CSS ends it (CCID 2's congestion
 *                  event, §4.6 below).
 * §5.8             Idle and application-limited periods: CCID 2's RFC 2861
 *                  validation shrinks cwnd and grows nothing; here the
 *                  epoch restarts so that t does not count the idle time.
 */
#include <math.h>
#include <string.h>

#include "ccid2.h"
#include "ccid_cubic.h"
#include "seq.h"

/* RFC 9406 §4.3 constants */
#define HS_MIN_RTT_THRESH (4 * UDCCP_NS_PER_MS)
#define HS_MAX_RTT_THRESH (16 * UDCCP_NS_PER_MS)
#define HS_MIN_RTT_DIVISOR 8u
#define HS_N_RTT_SAMPLE 8u
#define HS_CSS_GROWTH_DIVISOR 4u
#define HS_CSS_ROUNDS 5u

typedef struct cubic_st {
  double cwnd;       /* cwnd with its fraction (w->cwnd is its floor) */
  double w_max;      /* packets */
  double cwnd_prior; /* window before the last reduction */
  double w_est;      /* Reno-friendly estimate (§4.3) */
  double k;          /* s */
  udccp_tstamp epoch_start;
  int in_epoch;
  uint32_t last_cwnd; /* w->cwnd as we left it: a change by CCID 2
                         (slow start, RFC 2861) resynchronizes cwnd */
  /* HyStart++ (RFC 9406 §4.2); UDCCP_TSTAMP_NEVER is its "infinity" */
  udccp_tstamp hs_last_min, hs_cur_min, hs_css_baseline;
  uint64_t hs_window_end; /* the round ends when this is acknowledged */
  uint32_t hs_samples;    /* rttSampleCount */
  uint32_t hs_css_rounds; /* rounds completed in CSS */
  uint32_t hs_css_acc;    /* CSS growth not yet a whole packet (x 4) */
  uint8_t hs_have_window, hs_in_css;
} cubic_st;

_Static_assert(sizeof(cubic_st) <= UDCCP_CUBIC_CC_STATE_SIZE, "cubic state");

static cubic_st *cs_of(void *p) { return (cubic_st *)p; }

static void sync_cwnd(cubic_st *c, const udccp_ccid2_win *w) {
  if (w->cwnd != c->last_cwnd) {
    c->cwnd = (double)w->cwnd;
  }
}

static void put_cwnd(cubic_st *c, udccp_ccid2_win *w) {
  if (c->cwnd < 1) {
    c->cwnd = 1;
  }
  if (c->cwnd > (double)UDCCP_CCID2_CWND_MAX) {
    c->cwnd = (double)UDCCP_CCID2_CWND_MAX;
  }
  w->cwnd = (uint32_t)c->cwnd;
  c->last_cwnd = w->cwnd;
}

static void cubic_init(void *p, udccp_ccid2_win *w, udccp_tstamp ts) {
  cubic_st *c = cs_of(p);
  (void)ts;
  memset(c, 0, sizeof(*c));
  c->cwnd = (double)w->cwnd;
  c->last_cwnd = w->cwnd;
  c->hs_last_min = c->hs_cur_min = c->hs_css_baseline = UDCCP_TSTAMP_NEVER;
}

/* RFC 9406 §4.2, once per ack that grows the window in slow start: the
 * round's RTT samples, the delay-increase test, CSS.  Returns what cwnd
 * grows by. */
static uint32_t cubic_on_ss_ack(void *p, udccp_ccid2_win *w, uint32_t inc,
                                udccp_tstamp rtt, uint64_t ackno,
                                uint64_t gss, udccp_tstamp ts) {
  cubic_st *c = cs_of(p);
  (void)ts;
  if (w->ssthresh != UINT32_MAX) {
    return inc; /* §4.3: HyStart++ in the initial slow start only */
  }
  if (!c->hs_have_window) {
    c->hs_have_window = 1;
    c->hs_window_end = gss;
  } else if (!udccp_seq_lt(ackno, c->hs_window_end)) {
    /* a round ended (windowEnd acknowledged): a new one starts */
    c->hs_window_end = gss;
    c->hs_last_min = c->hs_cur_min;
    c->hs_cur_min = UDCCP_TSTAMP_NEVER;
    c->hs_samples = 0;
    if (c->hs_in_css && ++c->hs_css_rounds >= HS_CSS_ROUNDS) {
      /* CSS_ROUNDS rounds without a lower RTT: congestion avoidance */
      c->hs_in_css = 0;
      w->ssthresh = w->cwnd;
      return 0;
    }
  }
  if (rtt > 0) {
    if (rtt < c->hs_cur_min) {
      c->hs_cur_min = rtt;
    }
    c->hs_samples++;
  }
  if (c->hs_samples >= HS_N_RTT_SAMPLE && c->hs_cur_min != UDCCP_TSTAMP_NEVER) {
    if (!c->hs_in_css && c->hs_last_min != UDCCP_TSTAMP_NEVER) {
      udccp_tstamp thresh = c->hs_last_min / HS_MIN_RTT_DIVISOR;
      if (thresh > HS_MAX_RTT_THRESH) {
        thresh = HS_MAX_RTT_THRESH;
      }
      if (thresh < HS_MIN_RTT_THRESH) {
        thresh = HS_MIN_RTT_THRESH;
      }
      if (c->hs_cur_min >= c->hs_last_min + thresh) {
        c->hs_in_css = 1; /* the delay rose: Conservative Slow Start */
        c->hs_css_baseline = c->hs_cur_min;
        c->hs_css_rounds = 0;
        c->hs_css_acc = 0;
      }
    } else if (c->hs_in_css && c->hs_cur_min < c->hs_css_baseline) {
      c->hs_in_css = 0; /* a spurious exit: back to slow start */
      c->hs_css_baseline = UDCCP_TSTAMP_NEVER;
    }
  }
  if (c->hs_in_css) {
    c->hs_css_acc += inc;
    inc = c->hs_css_acc / HS_CSS_GROWTH_DIVISOR;
    c->hs_css_acc -= inc * HS_CSS_GROWTH_DIVISOR;
  }
  return inc;
}

/* §4.6, §4.7: W_max, then the multiplicative decrease. */
static void reduce(cubic_st *c) {
  if (c->cwnd < c->w_max) {
    c->w_max = c->cwnd * (1.0 + UDCCP_CUBIC_BETA) / 2.0; /* §4.7 */
  } else {
    c->w_max = c->cwnd;
  }
  c->cwnd_prior = c->cwnd;
  c->in_epoch = 0;
}

static void cubic_on_congestion(void *p, udccp_ccid2_win *w, udccp_tstamp ts) {
  cubic_st *c = cs_of(p);
  double ss;
  (void)ts;
  sync_cwnd(c, w);
  reduce(c);
  ss = c->cwnd * UDCCP_CUBIC_BETA;
  if (ss < 2) {
    ss = 2;
  }
  w->ssthresh = (uint32_t)ss;
  c->cwnd = ss;
  c->w_est = ss;
  put_cwnd(c, w);
}

static void cubic_on_timeout(void *p, udccp_ccid2_win *w, int repeated,
                             udccp_tstamp ts) {
  cubic_st *c = cs_of(p);
  (void)ts;
  sync_cwnd(c, w);
  if (!repeated) {
    double ss = c->cwnd * UDCCP_CUBIC_BETA;
    reduce(c);
    w->ssthresh = ss < 2 ? 2 : (uint32_t)ss;
  }
  c->in_epoch = 0;
  c->cwnd = 1; /* what CCID 2 sets next (RFC 4341 §5 (3)) */
  c->last_cwnd = 1;
}

static void cubic_on_restart(void *p, udccp_ccid2_win *w, udccp_tstamp ts) {
  cubic_st *c = cs_of(p);
  (void)ts;
  sync_cwnd(c, w);
  c->last_cwnd = w->cwnd;
  c->in_epoch = 0;
}

static double w_cubic(const cubic_st *c, double t) {
  double d = t - c->k;
  return UDCCP_CUBIC_C * d * d * d + c->w_max;
}

static void cubic_on_ca_ack(void *p, udccp_ccid2_win *w, uint32_t acked,
                            udccp_tstamp ts) {
  cubic_st *c = cs_of(p);
  double t, rtt, target, alpha;
  sync_cwnd(c, w);
  if (!c->in_epoch) {
    /* §4.2: the epoch begins with the first ack in congestion avoidance */
    c->in_epoch = 1;
    c->epoch_start = ts;
    if (c->cwnd < c->w_max) {
      c->k = cbrt((c->w_max - c->cwnd) / UDCCP_CUBIC_C);
    } else {
      c->k = 0;
      c->w_max = c->cwnd;
    }
    if (c->w_est < 1) {
      c->w_est = c->cwnd;
    }
  }
  t = (double)(ts - c->epoch_start) / 1e9;
  rtt = (double)(w->srtt ? w->srtt : UDCCP_CCID2_DEFAULT_RTT) / 1e9;
  /* §4.3 Reno-friendly region */
  alpha = c->w_est >= c->cwnd_prior
              ? 1.0
              : 3.0 * (1.0 - UDCCP_CUBIC_BETA) / (1.0 + UDCCP_CUBIC_BETA);
  c->w_est += alpha * (double)acked / c->cwnd;
  if (w_cubic(c, t) < c->w_est) {
    if (c->w_est > c->cwnd) {
      c->cwnd = c->w_est;
    }
  } else {
    /* §4.4, §4.5: concave or convex region */
    target = w_cubic(c, t + rtt);
    if (target < c->cwnd) {
      target = c->cwnd;
    } else if (target > 1.5 * c->cwnd) {
      target = 1.5 * c->cwnd;
    }
    c->cwnd += (double)acked * (target - c->cwnd) / c->cwnd;
  }
  put_cwnd(c, w);
}

const udccp_ccid2_cc udccp_cubic_cc = {
    .name = "CUBIC",
    .init = cubic_init,
    .on_congestion = cubic_on_congestion,
    .on_ca_ack = cubic_on_ca_ack,
    .on_timeout = cubic_on_timeout,
    .on_restart = cubic_on_restart,
    .state_size = sizeof(cubic_st),
    .on_ss_ack = cubic_on_ss_ack,
};

static int cubic_tx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                         udccp_tstamp ts) {
  return udccp_ccid2_tx_init_cc(st, env, ts, &udccp_cubic_cc);
}

const udccp_ccid_ops udccp_ccid_cubic_ops = {
    .id = UDCCP_CCID_CUBIC_DEFAULT,
    .name = "CUBIC (RFC 9438) on CCID 2 feedback",
    .deps = udccp_ccid2_deps, /* RFC 4341 §4: as CCID 2 */
    .n_deps = UDCCP_CCID2_N_DEPS,
    .tx_size = UDCCP_CCID2_TX_STATE_SIZE + UDCCP_CUBIC_CC_STATE_SIZE,
    .rx_size = UDCCP_CCID2_RX_STATE_SIZE,
    .tx_init = cubic_tx_init,
    .tx_exit = udccp_ccid2_tx_exit,
    .tx_next_send = udccp_ccid2_tx_next_send,
    .tx_ccval = NULL,
    .tx_on_sent = udccp_ccid2_tx_on_sent,
    .tx_on_pkt = udccp_ccid2_tx_on_pkt,
    .tx_write_opts = NULL,
    .tx_get_expiry = udccp_ccid2_tx_get_expiry,
    .tx_on_expiry = udccp_ccid2_tx_on_expiry,
    .tx_get_info = udccp_ccid2_tx_get_info,
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

const udccp_ccid_ops *udccp_ccid_cubic(void) { return &udccp_ccid_cubic_ops; }

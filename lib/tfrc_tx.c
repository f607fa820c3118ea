/* SPDX-License-Identifier: MIT */
/*
 * TFRC sender (RFC 5348 §4, §8.2-8.3; RFC 4342 §5; RFC 4828 §3; RFC 5622
 * §5).  See tfrc_tx.h.
 */
#include "tfrc_tx.h"

#include <math.h>
#include <string.h>

#include "tfrc_eq.h"

static double dmax(double a, double b) { return a > b ? a : b; }
static double dmin(double a, double b) { return a < b ? a : b; }

/* s/t_mbi: at least one packet every 64 s (§4.3) */
static double x_min(const udccp_tfrc_tx *tx) {
  return (double)tx->cfg.s / ((double)UDCCP_TFRC_T_MBI * 1e-9);
}

double udccp_tfrc_tx_initial_rate(const udccp_tfrc_tx *tx) {
  double s = (double)tx->cfg.s;
  double w_init = dmin(4.0 * s, dmax(2.0 * s, 4380.0)); /* RFC 3390 */
  if (!tx->has_rtt) {
    return s; /* §4.2: s bytes per second before an RTT is known */
  }
  return w_init / ((double)tx->r * 1e-9);
}

double udccp_tfrc_tx_calc_x(const udccp_tfrc_tx *tx, double p) {
  udccp_tstamp r = tx->r ? tx->r : 1;
  double s = tx->cfg.sp ? (double)tx->cfg.s_nominal : (double)tx->cfg.s;
  double x;
  if (!(p > 0.0)) {
    return UDCCP_TFRC_X_INF;
  }
  if (tx->cfg.eq_rto_min != 0) {
    udccp_tstamp rto = r > UINT64_MAX / 4 ? UINT64_MAX : 4 * r;
    if (rto < tx->cfg.eq_rto_min) {
      rto = tx->cfg.eq_rto_min;
    }
    x = udccp_tfrc_calc_x_ext(s, r, rto, 1.0, p);
  } else {
    x = udccp_tfrc_calc_x((uint32_t)s, r, p);
  }
  if (tx->cfg.sp) {
    /* RFC 4828 §3: X := X * s_true / (s_true + H) */
    x *= (double)tx->cfg.s / ((double)tx->cfg.s + (double)tx->cfg.hdr);
  }
  return x;
}

double udccp_tfrc_tx_rate(const udccp_tfrc_tx *tx) {
  return tx->cfg.osc ? tx->x_inst : tx->x;
}

static udccp_tstamp add_sat(udccp_tstamp a, udccp_tstamp b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* R for the sent-rate cap: an honest receiver holds an ack at most about
 * an RTT (feedback once per RTT, RFC 5348 §6.2), so R >= R_raw/2;
 * R_raw_min/4 leaves room, and Elapsed Time lies cannot go below it. */
static udccp_tstamp r_guard(const udccp_tfrc_tx *tx) {
  udccp_tstamp r = tx->r > tx->r_raw_min / 4 ? tx->r : tx->r_raw_min / 4;
  return r ? r : 1;
}

/* The rate of the packets of the current window: their number over the
 * time they spanned, taken as at least R.  Idle time after the last one
 * does not dilute it: the receiver's X_recv is about our sending, an RTT
 * before the feedback arrives. */
static double sent_rate(const udccp_tfrc_tx *tx) {
  udccp_tstamp d = tx->sw_last - tx->sw_start;
  if (d < r_guard(tx)) {
    d = r_guard(tx);
  }
  return (double)tx->sw_n * (double)tx->cfg.s / ((double)d * 1e-9);
}

/* A packet is sent at ts: closes the current window if it is at least R
 * old, then counts the packet. */
static void sent_count(udccp_tfrc_tx *tx, udccp_tstamp ts) {
  if (tx->sw_n == 0 || ts < tx->sw_start) {
    tx->sw_start = ts;
  } else if (ts - tx->sw_start >= r_guard(tx)) {
    tx->sw_prev = sent_rate(tx);
    tx->sw_start = ts;
    tx->sw_n = 0;
  }
  tx->sw_last = ts;
  tx->sw_n++;
}

double udccp_tfrc_tx_sent_cap(const udccp_tfrc_tx *tx, udccp_tstamp ts) {
  double s = (double)tx->cfg.s;
  double w_init = dmin(4.0 * s, dmax(2.0 * s, 4380.0)); /* RFC 3390 */
  if (!tx->has_rtt) {
    return UDCCP_TFRC_X_INF;
  }
  (void)ts;
  return dmax(2.0 * dmax(tx->sw_prev, sent_rate(tx)),
              w_init / ((double)r_guard(tx) * 1e-9));
}

static void update_sched(udccp_tfrc_tx *tx, udccp_tstamp ts) {
  udccp_tstamp gran = tx->cfg.t_gran;
  tx->x = dmin(tx->x, UDCCP_TFRC_TX_X_MAX);
  tx->x_inst = dmin(tx->x_inst, UDCCP_TFRC_TX_X_MAX);
  if (tx->cfg.sent_cap && tx->has_rtt) {
    double cap = udccp_tfrc_tx_sent_cap(tx, ts);
    tx->x = dmin(tx->x, cap);
    tx->x_inst = dmin(tx->x_inst, cap);
  }
  tx->t_ipi = udccp_tfrc_t_ipi((double)tx->cfg.s, udccp_tfrc_tx_rate(tx));
  if (tx->sent_any) {
    /* a higher rate applies to the packet already waiting: otherwise the
     * first packet, scheduled 1 s out at the initial 1 packet/s, would
     * hold back the initial_rate of §4.2 until then.  But not before now:
     * the send times the old, lower rate did not allow are no unused
     * credit (§4.6), and counting them would send a burst of
     * (now - last_send)/t_ipi packets at once.  The next slot follows the
     * last packet's *nominal* time, not its actual one: a packet sent
     * t_delta early (§8.3) moved the schedule by a full t_ipi, and
     * rescheduling from the actual time would forgive that earliness at
     * every feedback -- with feedback per packet, the sender would run
     * at X * t_ipi / (t_ipi - t_delta), up to 2 X. */
    udccp_tstamp due = add_sat(tx->last_nom, tx->t_ipi);
    if (due < ts) {
      due = ts;
    }
    if (due < tx->t_nom) {
      tx->t_nom = due;
    }
  }
  if (tx->cfg.sp) {
    if (tx->t_ipi < UDCCP_TFRC_SP_MIN_INTERVAL) {
      tx->t_ipi = UDCCP_TFRC_SP_MIN_INTERVAL;
    }
    tx->t_delta = 0;
    return;
  }
  /* §8.3: t_delta = min(t_ipi, t_gran, R)/2 -- at most one packet early,
   * and never more than half an RTT early */
  tx->t_delta = tx->t_ipi < gran ? tx->t_ipi : gran;
  if (tx->has_rtt && tx->r < tx->t_delta) {
    tx->t_delta = tx->r;
  }
  tx->t_delta /= 2;
}

/* the nofeedback interval: max(4R, 2s/X), §4.3 step 3 / §4.4 step 2 */
static udccp_tstamp nofb_interval(const udccp_tfrc_tx *tx) {
  udccp_tstamp a, b = udccp_tfrc_bytes_to_ns(2.0 * tx->cfg.s, tx->x);
  if (tx->has_rtt) {
    a = tx->r > UINT64_MAX / 4 ? UINT64_MAX : 4 * tx->r;
  } else {
    a = UDCCP_TFRC_NOFB_INIT; /* no R yet: the §4.2 two seconds */
  }
  return a > b ? a : b;
}

static void arm_nofb(udccp_tfrc_tx *tx, udccp_tstamp ts) {
  tx->rto = nofb_interval(tx);
  tx->nofb_expiry = add_sat(ts, tx->rto);
  tx->idle = 1;
}

void udccp_tfrc_tx_init(udccp_tfrc_tx *tx, const udccp_tfrc_tx_cfg *cfg,
                        udccp_tstamp ts) {
  memset(tx, 0, sizeof(*tx));
  tx->cfg = *cfg;
  if (tx->cfg.s == 0) {
    tx->cfg.s = 1;
  }
  if (tx->cfg.t_gran == 0) {
    tx->cfg.t_gran = UDCCP_TFRC_T_GRAN_DEFAULT;
  }
  if (tx->cfg.sp) {
    if (tx->cfg.s_nominal == 0) {
      tx->cfg.s_nominal = UDCCP_TFRC_SP_S_NOMINAL;
    }
    if (tx->cfg.hdr == 0) {
      tx->cfg.hdr = UDCCP_TFRC_SP_HDR;
    }
  }
  tx->x = (double)tx->cfg.s; /* §4.2: one packet per second */
  tx->x_inst = tx->x;
  tx->x_bps = UDCCP_TFRC_X_INF;
  tx->xrs[0] = UDCCP_TFRC_X_INF; /* §4.3 initialization */
  tx->xrs_t[0] = ts;
  tx->n_xrs = 1;
  tx->tld = 0;
  tx->t_nom = ts;
  tx->nofb_expiry = add_sat(ts, UDCCP_TFRC_NOFB_INIT);
  tx->rto = UDCCP_TFRC_NOFB_INIT;
  tx->idle = 1;
  update_sched(tx, ts);
}

static udccp_tstamp clamp_rtt(udccp_tstamp r) {
  if (r == 0) {
    return 1;
  }
  return r > UDCCP_TFRC_RTT_MAX ? UDCCP_TFRC_RTT_MAX : r;
}

static void first_rtt(udccp_tfrc_tx *tx, udccp_tstamp rtt, udccp_tstamp ts) {
  tx->r = clamp_rtt(rtt);
  tx->has_rtt = 1;
  tx->r_sqmean = sqrt((double)tx->r);
  tx->x = udccp_tfrc_tx_initial_rate(tx);
  tx->x_inst = tx->x;
  tx->tld = ts;
  tx->x_tld = 0.0;
  /* "recv_limit is Infinity for the first two round-trip times": date the
   * Infinity entry from the first RTT measurement. */
  if (tx->n_xrs == 1 && isinf(tx->xrs[0])) {
    tx->xrs_t[0] = ts;
  }
}

void udccp_tfrc_tx_set_rtt(udccp_tfrc_tx *tx, udccp_tstamp rtt,
                           udccp_tstamp ts) {
  if (!tx->has_rtt) {
    first_rtt(tx, rtt, ts);
    tx->r_raw_min = tx->r;
    update_sched(tx, ts);
  }
}

static double xrs_max(const udccp_tfrc_tx *tx) {
  double m = 0.0;
  uint32_t i;
  for (i = 0; i < tx->n_xrs; i++) {
    m = dmax(m, tx->xrs[i]);
  }
  return m;
}

/* §4.3 Update X_recv_set(), with N = 3 (§8.2.2) */
static void xrs_update(udccp_tfrc_tx *tx, double x_recv, udccp_tstamp ts) {
  uint32_t i, j = 0;
  udccp_tstamp two_r = tx->r > UINT64_MAX / 2 ? UINT64_MAX : 2 * tx->r;
  for (i = 0; i < tx->n_xrs; i++) {
    if (ts >= tx->xrs_t[i] && ts - tx->xrs_t[i] > two_r) {
      continue; /* older than two round-trip times */
    }
    tx->xrs[j] = tx->xrs[i];
    tx->xrs_t[j] = tx->xrs_t[i];
    j++;
  }
  if (j == UDCCP_TFRC_XRS_MAX) { /* keep only the most recent N */
    memmove(&tx->xrs[0], &tx->xrs[1], (j - 1) * sizeof(tx->xrs[0]));
    memmove(&tx->xrs_t[0], &tx->xrs_t[1], (j - 1) * sizeof(tx->xrs_t[0]));
    j--;
  }
  tx->xrs[j] = x_recv;
  tx->xrs_t[j] = ts;
  tx->n_xrs = j + 1;
}

/* §4.3 Maximize X_recv_set(): one item, the largest finite one */
static void xrs_maximize(udccp_tfrc_tx *tx, double x_recv, udccp_tstamp ts) {
  double m = x_recv;
  uint32_t i;
  for (i = 0; i < tx->n_xrs; i++) {
    if (!isinf(tx->xrs[i])) {
      m = dmax(m, tx->xrs[i]);
    }
  }
  tx->xrs[0] = m;
  tx->xrs_t[0] = ts;
  tx->n_xrs = 1;
}

int udccp_tfrc_tx_not_limited_in(const udccp_tfrc_tx *tx, udccp_tstamp t_old,
                                 udccp_tstamp t_new) {
  uint32_t i;
  for (i = 0; i < tx->nl_n; i++) {
    uint32_t k = (tx->nl_head + i) % UDCCP_TFRC_NL_RUNS;
    /* the stretch [start, end] meets (t_old, t_new] */
    if (tx->nl_start[k] <= t_new && tx->nl_end[k] > t_old) {
      return 1;
    }
  }
  return 0;
}

/* §8.2.1: was the whole interval covered by this feedback data-limited?
 * The interval is (t_old, t_new], t_old = t_new - R, t_new the send time
 * of the packet the feedback acknowledges. */
static int data_limited(const udccp_tfrc_tx *tx, udccp_tstamp t_new) {
  udccp_tstamp t_old = t_new > tx->r ? t_new - tx->r : 0;
  return !udccp_tfrc_tx_not_limited_in(tx, t_old, t_new);
}

void udccp_tfrc_tx_on_feedback(udccp_tfrc_tx *tx, const udccp_tfrc_fb *fb,
                               udccp_tstamp ts) {
  int had_rtt = tx->has_rtt;
  double p_prev = tx->p, recv_limit, x_recv = fb->x_recv;

  if (!(x_recv >= 0.0)) { /* negative or NaN */
    x_recv = 0.0;
  }
  if (fb->r_raw > 0 &&
      (tx->r_raw_min == 0 || clamp_rtt(fb->r_raw) < tx->r_raw_min)) {
    tx->r_raw_min = clamp_rtt(fb->r_raw);
  }
  /* steps 1-2: R = q*R + (1-q)*R_sample, q = 0.9 */
  if (fb->r_sample > 0) {
    udccp_tstamp rs = clamp_rtt(fb->r_sample);
    tx->r_sample = rs;
    if (!tx->has_rtt) {
      first_rtt(tx, rs, ts);
    } else {
      /* both <= UDCCP_TFRC_RTT_MAX: the result fits */
      tx->r = clamp_rtt(
          (udccp_tstamp)((9.0 * (double)tx->r + (double)rs) / 10.0 + 0.5));
      /* §4.5: R_sqmean = q2*R_sqmean + (1-q2)*sqrt(R_sample), q2 = 0.9 */
      tx->r_sqmean = 0.9 * tx->r_sqmean + 0.1 * sqrt((double)rs);
    }
  }
  if (!tx->has_rtt) {
    /* feedback without any RTT: nothing to compute rates from */
    tx->has_fb = 1;
    arm_nofb(tx, ts);
    return;
  }
  /* step 3 */
  tx->rto = nofb_interval(tx);
  tx->p = fb->p > 1.0 ? 1.0 : (fb->p > 0.0 ? fb->p : 0.0);
  tx->x_recv = x_recv;
  tx->x_bps = udccp_tfrc_tx_calc_x(tx, tx->p);

  if (!had_rtt && tx->p == 0.0) {
    /* §4.2: the first RTT measurement replaces step 4: X = initial_rate
     * (set by first_rtt) */
  } else {
    /* step 4.  A first report (X_recv = 0) is never data-limited. */
    if (x_recv > 0.0 && data_limited(tx, fb->t_new)) {
      if (fb->new_loss || tx->p > p_prev) {
        uint32_t i;
        for (i = 0; i < tx->n_xrs; i++) {
          tx->xrs[i] /= 2.0;
        }
        x_recv *= 0.85;
        xrs_maximize(tx, x_recv, ts);
        recv_limit = xrs_max(tx);
      } else {
        xrs_maximize(tx, x_recv, ts);
        recv_limit = 2.0 * xrs_max(tx);
      }
    } else {
      xrs_update(tx, x_recv, ts);
      recv_limit = 2.0 * xrs_max(tx);
    }
    if (tx->p > 0.0) { /* congestion avoidance */
      tx->x = dmax(dmin(tx->x_bps, recv_limit), x_min(tx));
    } else if (ts >= tx->tld && ts - tx->tld >= tx->r) {
      /* initial slow-start: at most double per RTT */
      tx->x_tld = tx->x;
      tx->x = dmax(dmin(2.0 * tx->x, recv_limit),
                   udccp_tfrc_tx_initial_rate(tx));
      tx->tld = ts;
    } else if (tx->x_tld > 0.0 && dmin(2.0 * tx->x_tld, recv_limit) > tx->x) {
      /* Another feedback within R of tld (RFC 5348 §6 allows more than
       * one per RTT): the doubling begun at tld goes on as far as this
       * recv_limit allows, X <= 2 X(tld) -- "approximately double the
       * sending rate each round-trip time" (§4.3) as the receive rate
       * shows the path can take it.  The pseudocode would wait until R
       * after tld, and an extra feedback just before the round's (an ack
       * the receiver's connection sent for its own reasons, reporting the
       * rate of the round before) would take the doubling of the RTT. */
      tx->x = dmin(2.0 * tx->x_tld, recv_limit);
    }
  }
  /* step 5, §4.5: X_inst = X * R_sqmean / sqrt(R_sample) */
  if (tx->cfg.osc && tx->r_sample > 0) {
    tx->x_inst = dmax(tx->x * tx->r_sqmean / sqrt((double)tx->r_sample),
                      x_min(tx));
  } else {
    tx->x_inst = tx->x;
  }
  /* step 6 */
  tx->has_fb = 1;
  tx->nofb_expiry = add_sat(ts, tx->rto);
  tx->idle = 1;
  update_sched(tx, ts);
}

/* §4.4 Update_Limits(timer_limit) */
static void update_limits(udccp_tfrc_tx *tx, double timer_limit,
                          udccp_tstamp ts) {
  if (timer_limit < x_min(tx)) {
    timer_limit = x_min(tx);
  }
  tx->xrs[0] = timer_limit / 2.0;
  tx->xrs_t[0] = ts;
  tx->n_xrs = 1;
  /* step (4) of §4.3 with p > 0: recv_limit = 2 * (timer_limit/2) */
  tx->x = dmax(dmin(tx->x_bps, timer_limit), x_min(tx));
}

void udccp_tfrc_tx_on_nofeedback(udccp_tfrc_tx *tx, udccp_tstamp ts) {
  double x_recv = xrs_max(tx);
  double recover = udccp_tfrc_tx_initial_rate(tx); /* recover_rate */
  tx->n_nofb++;
  tx->x_tld = 0.0; /* a halving is no doubling to go on with */
  if (!tx->has_rtt) {
    /* no RTT sample, hence no feedback: halve, unless idle all along
     * (recover_rate is undefined without R; an idle sender keeps X) */
    if (!tx->idle) {
      tx->x = dmax(tx->x / 2.0, x_min(tx));
    }
  } else if (((tx->p > 0.0 && x_recv < recover) ||
              (tx->p == 0.0 && tx->x < 2.0 * recover)) &&
             tx->idle) {
    /* RFC 4342 §5.1: an idle period never takes X below the initial rate */
  } else if (tx->p == 0.0) {
    tx->x = dmax(tx->x / 2.0, x_min(tx));
  } else if (tx->x_bps > 2.0 * x_recv) {
    update_limits(tx, x_recv, ts); /* 2*X_recv was limiting */
  } else {
    update_limits(tx, tx->x_bps / 2.0, ts); /* X_Bps was limiting */
  }
  tx->x_inst = tx->cfg.osc ? dmin(tx->x_inst, tx->x) : tx->x;
  arm_nofb(tx, ts); /* step 2: max(4R, 2s/X) */
  update_sched(tx, ts);
}

void udccp_tfrc_tx_on_sent(udccp_tfrc_tx *tx, udccp_tstamp ts,
                           int rate_limited) {
  udccp_tstamp base = tx->t_nom;
  /* §4.6: credit for unused send times is kept for at most one RTT */
  udccp_tstamp window = tx->has_rtt ? tx->r : 0;
  /* A sender whose last packet was known to have more data waiting behind
   * it (backlog) and that then sent nothing for longer than 2 t_gran was
   * held back by something else -- its connection's sequence window, its
   * host -- not idle: that pause is no unused send time, and an RTT of it
   * would go out as one line-rate burst (10^5 packets at 10 Gbit/s x
   * 200 ms; §4.6 "MAY limit bursts to less than a round-trip time's
   * worth").  Only 2 t_gran of it counts: a late wake-up of the caller's
   * timer (the io loop's epoll rounds up to whole ms, §8.3) is made up. */
  udccp_tstamp hold = 2 * tx->cfg.t_gran;
  if (tx->backlog && hold < window && ts > tx->last_send &&
      ts - tx->last_send > hold) {
    window = hold;
  }
  if (ts > window && base < ts - window) {
    base = ts - window;
  }
  if (!tx->sent_any && base < ts) {
    /* §4.6 "t_0 = t_now": the schedule starts with the first packet; the
     * time between tx_init and it is no unused send time */
    base = ts;
  }
  tx->t_nom = add_sat(base, tx->t_ipi);
  tx->last_nom = base;
  tx->last_send = ts;
  tx->sent_any = 1;
  tx->idle = 0;
  tx->backlog = (uint8_t)(rate_limited == UDCCP_TFRC_TX_BACKLOG);
  if (tx->has_rtt) {
    sent_count(tx, ts);
  }
  if (!rate_limited) {
    tx->nl_open = 0; /* data-limited at this instant */
  } else if (tx->nl_open && tx->nl_n > 0) {
    /* §8.2.1: not data-limited at this instant either: extend */
    tx->nl_end[(tx->nl_head + tx->nl_n - 1) % UDCCP_TFRC_NL_RUNS] = ts;
  } else {
    uint32_t k;
    if (tx->nl_n == UDCCP_TFRC_NL_RUNS) { /* forget the oldest */
      tx->nl_head = (tx->nl_head + 1) % UDCCP_TFRC_NL_RUNS;
      tx->nl_n--;
    }
    k = (tx->nl_head + tx->nl_n) % UDCCP_TFRC_NL_RUNS;
    tx->nl_start[k] = ts;
    tx->nl_end[k] = ts;
    tx->nl_n++;
    tx->nl_open = 1;
  }
}

uint8_t udccp_tfrc_tx_ccval(udccp_tfrc_tx *tx, udccp_tstamp ts) {
  if (!tx->wc_started) {
    tx->wc_started = 1;
    tx->wc = 0;
    tx->wc_time = ts;
  } else if (tx->has_rtt && ts > tx->wc_time) {
    udccp_tstamp quarter = tx->r / 4;
    udccp_tstamp q = quarter ? (ts - tx->wc_time) / quarter : 5;
    if (q > 0) {
      /* never more than 5 at once: the receiver must not see a wrap */
      tx->wc = (uint8_t)((tx->wc + (q < 5 ? q : 5)) & 15);
      tx->wc_time = ts;
    }
  }
  return tx->wc;
}

void udccp_tfrc_tx_ccval_acked(udccp_tfrc_tx *tx, uint8_t wc,
                               udccp_tstamp ts) {
  uint8_t want = (uint8_t)((wc + 4) & 15);
  unsigned ahead = (unsigned)(want - tx->wc) & 15u;
  if (!tx->wc_started) {
    return;
  }
  /* "at least" in circular space: raise only if want is ahead (by at most
   * half the counter space) */
  if (ahead > 0 && ahead < 8) {
    tx->wc = want;
    tx->wc_time = ts;
  }
}

double udccp_tfrc_tx_adjust_x_recv(const udccp_tfrc_tx *tx, double x_inrecv,
                                   uint32_t n_dropped, int slow_receiver) {
  double per_rtt, x_drop;
  if (!tx->has_rtt || (!slow_receiver && n_dropped == 0)) {
    return x_inrecv;
  }
  per_rtt = (double)tx->cfg.s / ((double)tx->r * 1e-9); /* s/RTT */
  if (slow_receiver) {
    x_drop = x_inrecv; /* do not increase for about an RTT */
  } else {
    /* one packet per RTT less for each drop, not below one per RTT */
    x_drop = dmax(x_inrecv - (double)n_dropped * per_rtt,
                  dmin(x_inrecv, per_rtt));
  }
  if (slow_receiver && n_dropped > 0) {
    x_drop = dmin(x_drop, dmax(x_inrecv - (double)n_dropped * per_rtt,
                               dmin(x_inrecv, per_rtt)));
  }
  return dmin(x_inrecv, x_drop / 2.0);
}

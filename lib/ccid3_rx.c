/* SPDX-License-Identifier: MIT */
/*
 * CCID 3 / CCID 4 receiver half (RFC 4342, RFC 5348, RFC 5622); see ccid3.h.
 * Rules implemented, by section:
 *
 * RFC 5348 §5    Loss history with NDUPACK = 3, loss events by CCVal (RFC
 *                4342 §10.2), weights of §5.4, ECN CE as loss (tfrc_lh).
 * RFC 5348 §6.3  Feedback on the first data packet, X_recv = 0 in it.
 * RFC 4342 §10.3 Feedback when a data packet's counter is >= last_counter
 *                + 4; RFC 5348 §6.1 at once on a new loss event or a rise
 *                of p; §6.2 feedback timer (2 R, a backup) while data
 *                arrives.
 * RFC 5348 §6.3.1 Initial slow start (CCID 3, no loss event yet): X_recv
 *                is also measured over the data the sender sent after our
 *                last feedback reached it (RFC 4342 §8.1: the counter
 *                sets the interval), the larger rate reported; the §10.3
 *                feedback waits for it at most R/4 (ss_round).
 * RFC 5348 §6.2  X_recv over the last RTT (the RFC 4342 erratum): over
 *                t = max(R, time since the last feedback), RFC 4342 §8.3.
 * RFC 4342 §8.1  The receiver's R from first arrivals of counters K and
 *                K + D, D = 4 preferred, then 3, 2.
 * RFC 4342 §8.2-8.6 Elapsed Time, Loss Event Rate, Loss Intervals (9
 *                intervals), Receive Rate on every Ack/DataAck after data.
 * RFC 5348 §5.5  History discounting (CCID 3; not CCID 4's TFRC-SP).
 * RFC 6323 §3.3-3.4 With Send RTT Estimate on, receiver_RTT from the
 *                sender's RTT Estimate options replaces the CCVal estimate
 *                (0.5 s before the first numeric one, back-off on
 *                no-number ones).  The loss events stay those of the window
 *                counter (RFC 4342 §10.2), which the sender keeps sending.
 */
#include "ccid3.h"

#include <string.h>

#include "seq.h"
#include "tfrc_eq.h"
#include "tfrc_tx.h"

typedef struct rate_snap {
  udccp_tstamp ts;
  uint64_t bytes, pkts; /* received up to the packet that arrived at ts */
} rate_snap;

typedef struct ccid3_rx {
  udccp_ccid_env *env;
  udccp_tfrc_ccid_params prm;
  udccp_tfrc_lh lh;
  int started, data_seen;
  uint64_t gsr;
  udccp_tstamp gsr_ts;
  /* CCVal RTT estimate, RFC 4342 §8.1: first arrival of each counter value
   * and its absolute counter position (positions start at 16; 0 = none). */
  int cc_started;
  uint8_t cc_last;
  uint64_t cc_abs;
  udccp_tstamp cc_t[16];
  uint64_t cc_at[16];
  udccp_tstamp rtt;
  /* RFC 6323 §3.3-3.4: receiver_RTT from the sender's RTT Estimate
   * options (used instead of rtt when Send RTT Estimate is on) */
  udccp_tstamp est_rtt;
  udccp_tstamp nonum_since; /* no-number options since; NEVER: none */
  int est_numeric;          /* a numeric option arrived */
  /* feedback */
  int fb_sent;
  int data_since_fb;
  uint8_t last_counter, max_cc;
  udccp_tstamp fb_time, fb_timer;
  double p_fb;
  /* receive rate */
  uint64_t bytes, pkts, bytes_fb, pkts_fb;
  udccp_tstamp first_data_ts;
  rate_snap snap[UDCCP_CCID3_RATE_SNAPS];
  unsigned n_snap, snap_head; /* snap_head: index of the newest */
  double x_recv, x_recv_max_pkts;
  double p;
  /* Slow start (ss_round): the data the sender sent after it received our
   * last feedback -- the first packet arriving at least R after it (at
   * rnd_t0; bytes and packets counted up to and including it), the newest
   * one at rnd_tl; fb_due: the RFC 4342 §10.3 feedback is due, since
   * fb_due_ts, and (fb_defer) waits for the round's rate, at most until
   * defer_until(). */
  int rnd_on, fb_due, fb_defer;
  int fb_asked; /* we asked for the next ack (rx_on_pkt / rx_on_expiry) */
  udccp_tstamp rnd_t0, rnd_tl, fb_due_ts;
  uint64_t rnd_b0, rnd_p0;
} ccid3_rx;

_Static_assert(sizeof(ccid3_rx) <= UDCCP_TFRC_CCID_RX_STATE_SIZE &&
                   UDCCP_TFRC_CCID_RX_STATE_SIZE <= UDCCP_CCID_STATE_SIZE,
               "rx state size");

static ccid3_rx *rx_of(udccp_ccid_state *st) {
  return (ccid3_rx *)(void *)st->bytes;
}
static const ccid3_rx *crx_of(const udccp_ccid_state *st) {
  return (const ccid3_rx *)(const void *)st->bytes;
}

static udccp_tstamp add_sat(udccp_tstamp a, udccp_tstamp b) {
  return a > UDCCP_TSTAMP_NEVER - b ? UDCCP_TSTAMP_NEVER : a + b;
}

static unsigned wc_dist(uint8_t from, uint8_t to) {
  return (unsigned)(to - from) & 15u;
}

int udccp_tfrc_ccid_rx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                            udccp_tstamp ts,
                            const udccp_tfrc_ccid_params *params) {
  ccid3_rx *rx = rx_of(st);
  (void)ts;
  memset(rx, 0, sizeof(*rx));
  rx->env = env;
  rx->prm = *params;
  /* RFC 4342 §10.2: loss events by window counter; RFC 4828 via sp.
   * CCID 3: RFC 5348 §5.5 history discounting, which the sender redoes
   * from the Loss Intervals option (udccp_tfrc_li_discount); CCID 4 keeps
   * the TFRC-SP average of RFC 4828 §3 undiscounted. */
  udccp_tfrc_lh_init(&rx->lh, UDCCP_TFRC_LH_CCVAL, params->sp, !params->sp);
  rx->fb_timer = UDCCP_TSTAMP_NEVER;
  rx->est_rtt = UDCCP_CCID3_RTT_EST_INIT;
  rx->nonum_since = UDCCP_TSTAMP_NEVER;
  return 0;
}

void udccp_tfrc_ccid_rx_exit(udccp_ccid_state *st) { (void)st; }

static udccp_tstamp rx_rtt(const ccid3_rx *rx) {
  if (rx->env && rx->env->send_rtt_est) {
    /* RFC 6323 §3.3: the sender's estimate in every place that needs an
     * RTT (X_recv, the first loss interval, when feedback is due); 0.5 s
     * until a numeric option arrives (§3.4) */
    return rx->est_rtt;
  }
  if (rx->rtt) {
    return rx->rtt;
  }
  return rx->env ? rx->env->srtt : 0;
}

/* RFC 6323 §3.2.1, §3.4: an RTT Estimate option (value bytes v, len).
 * Numeric values (1..0xFFFFFE us) feed receiver_RTT, a moving average with
 * q = 0.9 as in RFC 5348 §4.3; no-number ones (0, 0xFFFFFF) for longer
 * than receiver_RTT double it, up to t_mbi.  Returns UDCCP_ERR_OPTION for
 * a length other than 1..3. */
static int rtt_estimate(ccid3_rx *rx, const uint8_t *v, size_t len,
                        udccp_tstamp ts) {
  uint64_t us = 0;
  size_t i;
  if (len < 1 || len > 3) {
    return UDCCP_ERR_OPTION;
  }
  for (i = 0; i < len; i++) {
    us = (us << 8) | v[i];
  }
  if (us == 0 || us > UDCCP_CCID3_RTT_EST_MAX) {
    if (rx->nonum_since == UDCCP_TSTAMP_NEVER || ts < rx->nonum_since) {
      rx->nonum_since = ts;
    } else if (ts - rx->nonum_since > rx->est_rtt) {
      rx->est_rtt = 2 * rx->est_rtt < UDCCP_TFRC_T_MBI ? 2 * rx->est_rtt
                                                        : UDCCP_TFRC_T_MBI;
      rx->nonum_since = ts; /* the next round uses the new value */
    }
    return 0;
  }
  rx->nonum_since = UDCCP_TSTAMP_NEVER;
  if (!rx->est_numeric) {
    rx->est_numeric = 1;
    rx->est_rtt = (udccp_tstamp)us * 1000u;
  } else {
    /* (9 R + sample) / 10, rounded half up, in integers: both terms are
     * below 2^36 ns (t_mbi, 0xFFFFFE us), so the sum cannot overflow */
    rx->est_rtt = (9 * rx->est_rtt + (udccp_tstamp)us * 1000u + 5) / 10;
  }
  return 0;
}

/* RFC 4342 §8.1: R from T(K+D) - T(K), the first arrivals of counters K and
 * K + D, times 4/D; D = 4 preferred. */
static void cc_rtt(ccid3_rx *rx, uint8_t c, udccp_tstamp ts) {
  unsigned d, i;
  if (!rx->cc_started) {
    rx->cc_started = 1;
    rx->cc_last = c;
    rx->cc_abs = 16; /* positions below 16 mean "never" after a restart */
    rx->cc_t[c] = ts;
    rx->cc_at[c] = rx->cc_abs;
    return;
  }
  d = wc_dist(rx->cc_last, c);
  if (d == 0 || d >= 11) {
    return; /* same counter, or a late packet */
  }
  if (d > 5) {
    /* more than a wrap may have passed: forget old first arrivals */
    rx->cc_abs += 32;
    memset(rx->cc_at, 0, sizeof(rx->cc_at));
  } else {
    rx->cc_abs += d;
  }
  rx->cc_last = c;
  rx->cc_t[c] = ts;
  rx->cc_at[c] = rx->cc_abs;
  for (i = 4; i >= 2; i--) {
    uint8_t k = (uint8_t)((c - i) & 15u);
    if (rx->cc_at[k] != 0 && rx->cc_at[k] == rx->cc_abs - i &&
        ts > rx->cc_t[k]) {
      udccp_tstamp sample = (ts - rx->cc_t[k]) * 4 / i;
      /* a smoothed estimate: counters step in quarter RTTs */
      rx->rtt = rx->rtt ? (3 * rx->rtt + sample) / 4 : sample;
      break;
    }
  }
}

/* r: rx_rtt(rx), which the caller has at hand */
static void rate_snapshot(ccid3_rx *rx, udccp_tstamp ts, udccp_tstamp r) {
  udccp_tstamp gap = r ? r / 8 : UDCCP_NS_PER_MS;
  const rate_snap *last = rx->n_snap ? &rx->snap[rx->snap_head] : NULL;
  if (last && ts < add_sat(last->ts, gap)) {
    return;
  }
  rx->snap_head = rx->n_snap ? (rx->snap_head + 1) % UDCCP_CCID3_RATE_SNAPS
                             : 0;
  if (rx->n_snap < UDCCP_CCID3_RATE_SNAPS) {
    rx->n_snap++;
  }
  rx->snap[rx->snap_head].ts = ts;
  rx->snap[rx->snap_head].bytes = rx->bytes;
  rx->snap[rx->snap_head].pkts = rx->pkts;
}

/* RFC 4342 §8.3 with the erratum / RFC 5348 §6.2 step 2: data received in
 * the last t = max(R, time since the last feedback), over t: *xb in
 * bytes per second, *xp in packets per second (one pass for both: the
 * feedback reports one and keeps the other).
 *
 * After a silence (no data for 2 R or more since the last feedback) the
 * interval is not the whole silence: RFC 5348 §6.2's feedback timer keeps
 * expiring every R through it (restarted without feedback when no data
 * came), and X_recv is over "the previous R seconds", or back to the most
 * recent expiry at least R ago -- t in [R, 2 R).  So a packet after a
 * blackout reports at least one packet per 2 R, as §6.2's note wants ("a
 * minimum value for the measured receive rate X_recv of one packet per
 * round-trip time"), not one packet per silence, which held a sender at
 * the t_mbi floor for minutes after the path came back (chaos seed 475). */
static void recv_rates(const ccid3_rx *rx, udccp_tstamp ts, double *xb,
                       double *xp) {
  udccp_tstamp r = rx_rtt(rx), since, t, gap = r ? r / 8 : UDCCP_NS_PER_MS;
  const rate_snap *best = NULL;
  unsigned i;
  *xb = *xp = 0.0;
  if (!rx->data_seen) {
    return;
  }
  since = rx->fb_sent ? (ts > rx->fb_time ? ts - rx->fb_time : 0)
                      : (ts > rx->first_data_ts ? ts - rx->first_data_ts : 0);
  if (rx->fb_sent && since >= r && since > 0 && (r == 0 || since < 2 * r)) {
    /* exact: everything since the last feedback */
    double sec = (double)since * 1e-9;
    *xb = (double)(rx->bytes - rx->bytes_fb) / sec;
    *xp = (double)(rx->pkts - rx->pkts_fb) / sec;
    return;
  }
  if (rx->fb_sent && r > 0 && since >= 2 * r) {
    t = r + since % r; /* back to the last virtual expiry >= R ago */
  } else {
    t = r > since ? r : since;
  }
  if (t == 0) {
    return;
  }
  /* The newest snapshot at least t old; else the flow is younger than t.
   * Snapshots are at most gap apart while data arrives, so a snapshot
   * older than t + gap means silence between it and ts - t but for
   * arrivals within gap after it: the interval stretches to t + gap at
   * most, never over the silence. */
  for (i = 0; i < rx->n_snap; i++) {
    const rate_snap *s =
        &rx->snap[(rx->snap_head + UDCCP_CCID3_RATE_SNAPS - i) %
                  UDCCP_CCID3_RATE_SNAPS];
    best = s;
    if (ts >= s->ts && ts - s->ts >= t) {
      t = ts - s->ts < add_sat(t, gap) ? ts - s->ts : t + gap;
      break;
    }
  }
  if (!best) {
    return;
  }
  *xb = (double)(rx->bytes - best->bytes) / ((double)t * 1e-9);
  *xp = (double)(rx->pkts - best->pkts) / ((double)t * 1e-9);
}

/* recv_rates' bytes/s (pkts == 0) or packets/s. */
static double recv_rate(const ccid3_rx *rx, udccp_tstamp ts, int pkts) {
  double xb, xp;
  recv_rates(rx, ts, &xb, &xp);
  return pkts ? xp : xb;
}

/* The packet rate now, for the loss history when it starts the first
 * loss event (udccp_tfrc_rx_ctx.x_recv_now). */
typedef struct rate_now {
  const ccid3_rx *rx;
  udccp_tstamp ts;
} rate_now;

static double recv_rate_now(const void *ud) {
  const rate_now *r = ud;
  return recv_rate(r->rx, r->ts, 1);
}

/* RFC 5348 §6.3.1: "For slow-start, for a particular round-trip time, the
 * sender's sending rate is generally twice the receiver's receive rate for
 * data sent over the previous round-trip time."  The data the sender sent
 * in its previous RTT is what it sent after our last feedback reached it,
 * and it reaches us from one RTT after that feedback on.  The receive rate
 * over the last R (§6.2) instead covers the data sent at the rate before:
 * the first packet at the new rate is the one whose counter asks for the
 * next feedback (RFC 4342 §10.3), so each feedback reported the rate the
 * feedback before the last one allowed, and X = min(2 X, 2 X_recv) doubled
 * every other RTT.  So in the initial slow start (CCID 3, no loss event
 * yet) the receiver also measures the rate of that round -- from the first
 * packet arriving R after its last feedback, over at least R/16 and 3
 * packets (RFC 4342 §8.1: the window counter "determine[s] the interval to
 * use for calculating the receive rate") -- lets the §10.3 feedback wait
 * for it (at most R/4, so still about once per RTT, RFC 5348 §6), and
 * reports the larger of the two rates.  As TCP's acknowledgements clock
 * slow start, this doubles X about once per RTT, and never past twice the
 * rate the path delivered.  The first loss event ends it; CCID 4 keeps
 * §6.2 alone. */
static int ss_round_r(const ccid3_rx *rx, udccp_tstamp r) {
  return !rx->prm.sp && !rx->lh.have_loss && rx->fb_sent && r > 0 &&
         /* RFC 6323 §3.4: not on the 0.5 s stand-in for the sender's R */
         !(rx->env && rx->env->send_rtt_est && !rx->est_numeric);
}

static int ss_round(const ccid3_rx *rx) { return ss_round_r(rx, rx_rtt(rx)); }

/* A data packet was counted: track the round (ss_round); r = rx_rtt(). */
static void rnd_track(ccid3_rx *rx, udccp_tstamp ts, udccp_tstamp r) {
  if (rx->rnd_on) {
    rx->rnd_tl = ts;
  } else if (ts >= add_sat(rx->fb_time, r)) {
    rx->rnd_on = 1;
    rx->rnd_t0 = ts;
    rx->rnd_tl = ts;
    rx->rnd_b0 = rx->bytes;
    rx->rnd_p0 = rx->pkts;
  }
}

/* The round's rate is known: 3 packets or more, over R/16 or more. */
static int rnd_measured_r(const ccid3_rx *rx, udccp_tstamp r) {
  return rx->rnd_on && rx->pkts - rx->rnd_p0 >= 2 &&
         rx->rnd_tl - rx->rnd_t0 >= r / UDCCP_CCID3_SS_SPAN_DIV;
}

static int rnd_measured(const ccid3_rx *rx) {
  return rnd_measured_r(rx, rx_rtt(rx));
}

/* The round's receive rate in bytes/s (the packets after its first one
 * over the time since it arrived), 0 until rnd_measured. */
static double rnd_rate(const ccid3_rx *rx) {
  if (!rnd_measured(rx) || rx->rnd_tl <= rx->rnd_t0) {
    return 0.0;
  }
  return (double)(rx->bytes - rx->rnd_b0) /
         ((double)(rx->rnd_tl - rx->rnd_t0) * 1e-9);
}

/* The latest time a deferred feedback waits for: R/4 after the round
 * began (or was due to begin, R after the last feedback), or after the
 * feedback was due if that is later; never more than 2 R/4 after it was
 * due (an R estimate too long must not starve the sender's 4 R nofeedback
 * timer, RFC 5348 §4.3 step 3). */
static udccp_tstamp defer_until_r(const ccid3_rx *rx, udccp_tstamp r) {
  udccp_tstamp q = r / UDCCP_CCID3_SS_WAIT_DIV;
  udccp_tstamp t = rx->rnd_on ? rx->rnd_t0 : add_sat(rx->fb_time, r);
  if (t < rx->fb_due_ts) {
    t = rx->fb_due_ts;
  }
  t = add_sat(t, q);
  return t < add_sat(rx->fb_due_ts, 2 * q) ? t : add_sat(rx->fb_due_ts, 2 * q);
}

static udccp_tstamp defer_until(const ccid3_rx *rx) {
  return defer_until_r(rx, rx_rtt(rx));
}

int udccp_tfrc_ccid_rx_on_pkt(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                              udccp_tstamp ts) {
  ccid3_rx *rx = rx_of(st);
  udccp_tfrc_rx_pkt rp;
  udccp_tfrc_rx_ctx cx;
  rate_now rn;
  unsigned flags;
  udccp_tstamp r;
  int is_data = pkt->type == UDCCP_PKT_DATA || pkt->type == UDCCP_PKT_DATAACK;
  int due = 0, bad_opt = 0;
  uint64_t seq = pkt->seq & UDCCP_SEQ_MASK;
  if (udccp_tfrc_ccid_mandatory_unknown(pkt->opts, 0, rx->prm.sp)) {
    return UDCCP_ERR_MANDATORY;
  }
  if (!rx->started || udccp_seq_gt(seq, rx->gsr)) {
    rx->gsr = seq; /* the Acknowledgement Number of our next ack */
    rx->gsr_ts = ts;
  }
  rx->started = 1;
  if (rx->env && rx->env->send_rtt_est && pkt->opts) {
    size_t i;
    for (i = 0; i < pkt->opts->n_ccid; i++) {
      const udccp_opt *o = &pkt->opts->ccid[i];
      if (o->type == UDCCP_CCID3_OPT_RTT_ESTIMATE &&
          rtt_estimate(rx, o->val, o->len, ts) != 0 && !bad_opt) {
        bad_opt = 1; /* §3.3: invalid; the rest of the packet counts */
        rx->env->opt_err[0] = o->type;
        rx->env->opt_err[1] = (uint8_t)(o->len + 2);
        rx->env->opt_err[2] = o->len > 0 ? o->val[0] : 0;
      }
    }
  }
  if (is_data) {
    cc_rtt(rx, (uint8_t)(pkt->ccval & 15u), ts);
  }
  r = rx_rtt(rx); /* after rtt_estimate and cc_rtt: the R of now */
  if (is_data) {
    uint8_t c = (uint8_t)(pkt->ccval & 15u);
    if (!rx->data_seen) {
      rx->data_seen = 1;
      rx->first_data_ts = ts;
      rx->max_cc = c;
      due = 1; /* RFC 5348 §6.3: feedback on the first data packet */
    } else if (!rx->data_since_fb || wc_dist(rx->max_cc, c) - 1u < 7u) {
      rx->max_cc = c; /* circular maximum since the last feedback */
    }
    rx->bytes += pkt->payload_len;
    rx->pkts++;
    rate_snapshot(rx, ts, r);
    rx->data_since_fb = 1;
    if (ss_round_r(rx, r)) {
      rnd_track(rx, ts, r);
    }
    /* RFC 4342 §10.3: a counter >= last_counter + 4 asks for feedback */
    if (rx->fb_sent && !rx->fb_due &&
        wc_dist(rx->last_counter, c) - 4u < 8u) {
      rx->fb_due = 1;
      rx->fb_due_ts = ts;
      /* slow start: wait for the round's rate, unless packets are too
       * sparse to measure it within R/4 (fewer than 4 per R; and RFC 4342
       * §10.3's "feedback packet after each data packet" below one) */
      rx->fb_defer = ss_round_r(rx, r) &&
                     recv_rate(rx, ts, 1) * ((double)r * 1e-9) >=
                         (double)UDCCP_CCID3_SS_MIN_PKTS;
    }
    if (rx->fb_due && (!rx->fb_defer || rnd_measured_r(rx, r) ||
                       ts >= defer_until_r(rx, r))) {
      due = 1;
    }
  }
  rp.seq = seq;
  rp.ts = ts;
  rp.ccval = (uint8_t)(pkt->ccval & 15u);
  rp.ecn = pkt->ecn; /* CE on data is a loss, RFC 5348 §5.1 */
  rp.is_data = (uint8_t)is_data;
  rp.ndp = 0;
  if (pkt->opts && (pkt->opts->present & UDCCP_OPTS_HAS_NDP_COUNT)) {
    rp.ndp = pkt->opts->ndp_count > UINT32_MAX ? UINT32_MAX
                                               : (uint32_t)pkt->opts->ndp_count;
  }
  flags = udccp_tfrc_lh_add_next(&rx->lh, &rp,
                                 r ? r : UDCCP_CCID3_DEFAULT_RTT);
  if (flags == 0) {
    memset(&cx, 0, sizeof(cx));
    cx.x_recv_now = NULL;
    cx.rtt = r ? r : UDCCP_CCID3_DEFAULT_RTT;
    cx.s = 0; /* packets: X_recv_max below is in packets per second */
    cx.x_recv_max = rx->x_recv_max_pkts;
    if (!rx->lh.have_loss) {
      /* The rate of now counts too, computed only if the history starts
       * the first loss event with this packet (it changes nothing that
       * recv_rate reads). */
      rn.rx = rx;
      rn.ts = ts;
      cx.x_recv_now = recv_rate_now;
      cx.x_recv_ud = &rn;
    }
    flags = udccp_tfrc_lh_add(&rx->lh, &rp, &cx);
  }
  if (flags & UDCCP_TFRC_LH_UNDONE) {
    /* RFC 5348 §5.1: a late packet filled its hole; p is reported lower
     * with the next feedback (§6.2 asks for early feedback only when p
     * grows) */
    rx->p = udccp_tfrc_lh_p(&rx->lh);
  }
  if (flags & UDCCP_TFRC_LH_LOSS) {
    rx->p = udccp_tfrc_lh_p(&rx->lh);
    /* RFC 5348 §6.1 steps 2-4 */
    if ((flags & UDCCP_TFRC_LH_NEW_EVENT) || rx->p > rx->p_fb) {
      due = 1;
    }
  }
  if (due) {
    rx->fb_asked = 1;
  }
  /* RFC 6323 §3.3 wants a Reset (Option Error) for an invalid RTT
   * Estimate option: the error tells the connection */
  return bad_opt ? UDCCP_ERR_OPTION : due;
}

/* RFC 4342 §10.3: the window counter decides when feedback is due, once
 * per RTT; the RFC 5348 §6.2 feedback timer only backs it up for a sender
 * whose counters stall (the §10.3 example).  At R it would fire just
 * before the counter rule and shift it, giving more than one feedback per
 * RTT; at UDCCP_CCID3_FB_TIMER_RTTS x R it only fills such gaps, still
 * well before the sender's 4 R nofeedback timer. */
static udccp_tstamp fb_timer_after(const ccid3_rx *rx, udccp_tstamp ts) {
  udccp_tstamp r = rx_rtt(rx);
  if (r == 0) {
    return UDCCP_TSTAMP_NEVER; /* no R yet: the counter rule alone */
  }
  return add_sat(ts, UDCCP_CCID3_FB_TIMER_RTTS * r);
}

int udccp_tfrc_ccid_rx_write_opts(udccp_ccid_state *st, udccp_optbuf *ob,
                                  uint8_t type, udccp_tstamp ts) {
  ccid3_rx *rx = rx_of(st);
  uint8_t buf[1 + 9 * UDCCP_TFRC_LI_MAX];
  udccp_ssize n;
  uint64_t el;
  double x, xp;
  int rv = 0;
  if ((type != UDCCP_PKT_ACK && type != UDCCP_PKT_DATAACK) || !rx->data_seen) {
    return 0; /* §8.3-8.6: never on DCCP-Data; nothing to report yet */
  }
  rx->p = udccp_tfrc_lh_p(&rx->lh);
  /* RFC 5348 §6.3: the first feedback reports X_recv = 0 */
  /* one pass for both rates: bytes/s reported, packets/s kept below */
  if (rx->fb_sent) {
    recv_rates(rx, ts, &x, &xp);
  } else {
    x = xp = 0.0;
  }
  if (rx->fb_sent && ss_round(rx)) {
    double xr = rnd_rate(rx); /* §6.3.1, see ss_round */
    x = xr > x ? xr : x;
  }
  /* §8.2: Elapsed Time since the acknowledged packet (RFC 4340 §13.2) */
  el = ts > rx->gsr_ts ? (ts - rx->gsr_ts) / 10000u : 0;
  if (el > UINT32_MAX) {
    el = UINT32_MAX;
  }
  /* written in place (types >= 32, values of 2 or 4 bytes): no call per
   * option (issue 13: at small windows the feedback weighs) */
  rv |= udccp_optbuf_put_be(ob, UDCCP_OPT_ELAPSED_TIME, el,
                            el <= 0xFFFFu ? 2 : 4);
  n = udccp_tfrc_lh_write_li(&rx->lh, rx->gsr, buf, sizeof(buf), 0);
  if (n > 0) {
    rv |= udccp_optbuf_put(ob, UDCCP_CCID3_OPT_LOSS_INTERVALS, 0, buf,
                           (size_t)n);
    if (rx->prm.sp) {
      /* RFC 5622 §8.7: Dropped Packets covering the same intervals */
      udccp_ssize m = udccp_tfrc_lh_write_dp(&rx->lh, buf, sizeof(buf), 0);
      if (m > 0) {
        rv |= udccp_optbuf_put(ob, UDCCP_CCID4_OPT_DROPPED_PACKETS, 0, buf,
                               (size_t)m);
      }
    }
  }
  rv |= udccp_optbuf_put_be(ob, UDCCP_CCID3_OPT_RECEIVE_RATE,
                            x >= (double)UINT32_MAX ? UINT32_MAX
                                                    : (uint64_t)(x + 0.5),
                            4);
  rv |= udccp_optbuf_put_be(ob, UDCCP_CCID3_OPT_LOSS_EVENT_RATE,
                            udccp_ccid3_p_to_opt(rx->p), 4);
  if (rv == 0 && !rx->fb_asked && ss_round(rx)) {
    /* An ack the connection sends for its own reasons (a Confirm of its
     * Sequence Window, an ack of an ack) carries the options, but in slow
     * start it is not the round's feedback: that would end the round
     * before its rate is known and report the older one. */
    return 0;
  }
  rx->fb_asked = 0;
  /* this ack is the feedback packet: restart the rules of §10.3 / §6.2 */
  if (rx->fb_sent) {
    if (xp > rx->x_recv_max_pkts) {
      rx->x_recv_max_pkts = xp;
    }
  }
  rx->x_recv = x;
  rx->p_fb = rx->p;
  if (rx->data_since_fb) {
    rx->last_counter = rx->max_cc;
  }
  rx->data_since_fb = 0;
  rx->fb_due = 0;
  rx->fb_defer = 0;
  rx->rnd_on = 0;
  rx->fb_sent = 1;
  rx->fb_time = ts;
  rx->bytes_fb = rx->bytes;
  rx->pkts_fb = rx->pkts;
  rx->fb_timer = fb_timer_after(rx, ts);
  return rv ? UDCCP_ERR_NOBUF : 0;
}

udccp_tstamp udccp_tfrc_ccid_rx_get_expiry(const udccp_ccid_state *st) {
  const ccid3_rx *rx = crx_of(st);
  udccp_tstamp t;
  /* RFC 5348 §6.2: no data since the last feedback, no feedback */
  if (!rx->data_since_fb) {
    return UDCCP_TSTAMP_NEVER;
  }
  t = rx->fb_timer;
  if (rx->fb_due && rx->fb_defer && defer_until(rx) < t) {
    t = defer_until(rx); /* a slow-start round waits no longer */
  }
  return t;
}

int udccp_tfrc_ccid_rx_on_expiry(udccp_ccid_state *st, udccp_tstamp ts) {
  ccid3_rx *rx = rx_of(st);
  int rv = 0;
  if (!rx->data_since_fb) {
    return 0;
  }
  if (rx->fb_due && rx->fb_defer && ts >= defer_until(rx)) {
    rx->fb_defer = 0; /* due now, without the round's rate */
    rv = 1;
  }
  if (ts >= rx->fb_timer) {
    /* §6.2 step 4: restart even if the ack is not sent now */
    rx->fb_timer = fb_timer_after(rx, ts);
    rv = 1;
  }
  if (rv) {
    rx->fb_asked = 1;
  }
  return rv;
}

void udccp_tfrc_ccid_rx_get_info(const udccp_ccid_state *st,
                                 udccp_conn_info *info) {
  const ccid3_rx *rx = crx_of(st);
  info->pkts_lost_rx = rx->lh.n_lost;
  if (info->x != 0) {
    return; /* the sender half is TFRC too and reported its own view */
  }
  info->x_recv = udccp_tfrc_x_to_u64(rx->x_recv);
  info->p = udccp_tfrc_lh_p(&rx->lh);
}

const udccp_tfrc_lh *udccp_tfrc_ccid_rx_lh(const udccp_ccid_state *st) {
  return &crx_of(st)->lh;
}

udccp_tstamp udccp_tfrc_ccid_rx_rtt(const udccp_ccid_state *st) {
  return crx_of(st)->rtt;
}

udccp_tstamp udccp_tfrc_ccid_rx_rtt_used(const udccp_ccid_state *st) {
  return rx_rtt(crx_of(st));
}


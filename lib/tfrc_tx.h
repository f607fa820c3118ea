/* SPDX-License-Identifier: MIT */
/*
 * TFRC sender state (RFC 5348 §4, §8.2, §8.3; RFC 4342 §5; TFRC-SP of
 * RFC 4828 §3 as used by CCID 4, RFC 5622 §5).
 *
 * Sans-I/O: every call takes the time; the caller asks udccp_tfrc_tx_
 * next_send() when the next packet may go and udccp_tfrc_tx_get_expiry()
 * when the nofeedback timer fires.  Rates are double bytes/s (sub-byte
 * precision matters at s/t_mbi, e.g. 1 byte per 64 s); the X_recv_set's
 * initial "Infinity" is UDCCP_TFRC_X_INF.  Times are ns.
 *
 * Scheduling (§4.6, §8.3): packet i+1 is nominally due t_ipi = s/X after
 * packet i; it may go t_delta = min(t_ipi, t_gran, R)/2 early.  Unused send
 * times are kept as credit for at most one RTT, so a burst is never more
 * than one RTT's worth of packets (the §4.6 MUST).  The schedule starts
 * with the first packet (t_0 = t_now), and a rate increase moves the next
 * send time to max(last_nom + t_ipi, now): slots the old rate did not
 * allow are no credit; the next slot counts from the last packet's
 * nominal time (a packet sent t_delta early is no cause for another
 * early one).  t_ipi is at least 1 ns.  A pause the sender did not
 * choose (data was queued: UDCCP_TFRC_TX_BACKLOG) earns at most 2 t_gran
 * of credit.
 * TFRC-SP: t_ipi is at least 10 ms, t_delta is 0 and no packet goes sooner
 * than 10 ms after the previous one (RFC 5622 §5; we do not use its MAY of
 * an extra packet per timeslice).
 */
#ifndef UDCCP_TFRC_TX_H
#define UDCCP_TFRC_TX_H

#include <stdint.h>

#include <udccp/udccp.h>

#define UDCCP_TFRC_T_MBI (64 * UDCCP_NS_PER_S)    /* t_mbi, RFC 5348 §4.3 */
#define UDCCP_TFRC_NOFB_INIT (2 * UDCCP_NS_PER_S) /* §4.2 */
#define UDCCP_TFRC_SP_MIN_INTERVAL (10 * UDCCP_NS_PER_MS) /* RFC 4828 §3 */
#define UDCCP_TFRC_SP_S_NOMINAL 1460 /* RFC 4828 §3, RFC 5622 §5.3 */
#define UDCCP_TFRC_SP_HDR 36         /* RFC 5622 §5: IPv4 + 16-byte Data */
#define UDCCP_TFRC_XRS_MAX 3         /* X_recv_set size, §8.2.2 */
#define UDCCP_TFRC_T_GRAN_DEFAULT (1 * UDCCP_NS_PER_MS)
#define UDCCP_TFRC_NL_RUNS 8 /* rate-limited stretches remembered, §8.2.1 */
/* X never exceeds this (bytes/s, 8 Pbit/s): slow start doubling against a
 * reported infinite X_recv would otherwise reach infinity. */
#define UDCCP_TFRC_TX_X_MAX 1e15
/* RTT samples are clamped to this (one hour); the RFCs' R is seconds. */
#define UDCCP_TFRC_RTT_MAX (3600ULL * UDCCP_NS_PER_S)

typedef struct udccp_tfrc_tx_cfg {
  uint32_t s;          /* segment size s in bytes (>= 1): MPS or average */
  uint8_t sp;          /* 1: TFRC-SP (CCID 4) */
  uint8_t osc;         /* 1: oscillation reduction, RFC 5348 §4.5 */
  uint32_t s_nominal;  /* TFRC-SP: s in the equation; 0 = 1460 (use the MSS
                          if smaller, RFC 4828 §3) */
  uint32_t hdr;        /* TFRC-SP: header size H; 0 = 36 */
  udccp_tstamp t_gran; /* scheduling granularity for t_delta; 0 = 1 ms */
  udccp_tstamp eq_rto_min; /* 0: t_RTO = 4R in the equation (§3.1 SHOULD);
                              else t_RTO = max(4R, this) (§3.1 MAY, 1 s) */
  uint8_t sent_cap;    /* 1: X <= max(2 X_sent, initial rate), whatever the
                          receiver reports (udccp_tfrc_tx_sent_cap) */
} udccp_tfrc_tx_cfg;

/* What a feedback packet reported (RFC 5348 §3.2.2, RFC 4342 §6). */
typedef struct udccp_tfrc_fb {
  udccp_tstamp r_sample; /* RTT sample (t_now - t_recvdata) - t_delay; 0 =
                            none; clamped to UDCCP_TFRC_RTT_MAX */
  double x_recv;         /* Receive Rate, bytes/s (NaN/negative: 0) */
  double p;              /* loss event rate (from Loss Intervals);
                            clamped to [0, 1], NaN: 0 */
  udccp_tstamp t_new;    /* when the acknowledged packet was sent (§8.2.1) */
  udccp_tstamp r_raw;    /* t_now - t_recvdata before the receiver's
                            t_delay (Elapsed Time) is subtracted: our own
                            clock's upper bound of R; 0 = none */
  uint8_t new_loss;      /* 1: it reports a new loss event */
} udccp_tfrc_fb;

typedef struct udccp_tfrc_tx {
  udccp_tfrc_tx_cfg cfg;
  double x;            /* allowed sending rate X */
  double x_bps;        /* X_Bps of the equation (INF while p = 0) */
  double x_inst;       /* §4.5 X_inst (= X without oscillation reduction) */
  double x_recv;       /* latest X_recv reported */
  double p;            /* latest loss event rate */
  double xrs[UDCCP_TFRC_XRS_MAX];        /* X_recv_set values, oldest first */
  udccp_tstamp xrs_t[UDCCP_TFRC_XRS_MAX];/* ... and their timestamps */
  uint32_t n_xrs;
  double r_sqmean;     /* §4.5 R_sqmean, sqrt(ns) */
  udccp_tstamp r;      /* R, ns (0 until the first sample) */
  udccp_tstamp r_sample; /* latest sample */
  udccp_tstamp rto;    /* nofeedback interval */
  udccp_tstamp tld;    /* time last doubled, §4.2 */
  double x_tld;        /* X before that doubling (0: none to go on with) */
  udccp_tstamp nofb_expiry;
  udccp_tstamp t_nom;  /* nominal send time of the next packet */
  udccp_tstamp t_ipi;
  udccp_tstamp t_delta;
  udccp_tstamp last_send;
  udccp_tstamp last_nom; /* nominal send time of the last packet (§4.6) */
  /* §8.2.1: the sender's recent rate-limited ("sent all it is allowed
   * to send") stretches, [start, end] in send times, newest at
   * (nl_head + nl_n - 1) % UDCCP_TFRC_NL_RUNS; nl_open: the newest is
   * still going on.  The RFC's two NotLimited variables lose the marks
   * inside (t_new - R, t_new] once feedback comes more often than once
   * per RTT (each feedback moves t_next, NotLimited2 follows the latest
   * send); the runs answer the §8.2.1 question exactly. */
  udccp_tstamp nl_start[UDCCP_TFRC_NL_RUNS], nl_end[UDCCP_TFRC_NL_RUNS];
  uint32_t nl_head, nl_n;
  uint8_t nl_open;
  uint8_t has_rtt;
  uint8_t has_fb;
  uint8_t idle;        /* no data packet sent since the nofeedback timer
                          was (re)set */
  uint8_t sent_any;
  uint8_t backlog;     /* the last packet had data queued behind it */
  uint8_t wc;          /* RFC 4342 §8.1 last_WC */
  uint8_t wc_started;
  udccp_tstamp wc_time;/* last_WC_time */
  uint64_t n_nofb;     /* nofeedback expiries */
  /* What we actually sent (cfg.sent_cap): packets counted in windows at
   * least R long, from the first packet of one to its last; sw_prev is
   * the rate of the last complete one. */
  udccp_tstamp sw_start, sw_last;
  uint64_t sw_n;
  double sw_prev;
  udccp_tstamp r_raw_min; /* smallest r_raw (or handshake RTT); 0 = none */
} udccp_tfrc_tx;

/* §4.2: X = s bytes/s, the nofeedback timer set to 2 s, tld = 0,
 * X_recv_set = {Infinity}.  cfg->s of 0 is taken as 1. */
void udccp_tfrc_tx_init(udccp_tfrc_tx *tx, const udccp_tfrc_tx_cfg *cfg,
                        udccp_tstamp ts);

/* initial_rate = W_init/R, W_init = min(4s, max(2s, 4380)) (§4.2, RFC 4342
 * §5); s bytes per second while R is unknown. */
double udccp_tfrc_tx_initial_rate(const udccp_tfrc_tx *tx);

/* A first RTT measurement from outside feedback (e.g. the handshake): if
 * none was known, R = rtt, X = initial_rate, tld = ts (§4.2). */
void udccp_tfrc_tx_set_rtt(udccp_tfrc_tx *tx, udccp_tstamp rtt,
                           udccp_tstamp ts);

/* A feedback packet arrived: §4.3 steps 1-6. */
void udccp_tfrc_tx_on_feedback(udccp_tfrc_tx *tx, const udccp_tfrc_fb *fb,
                               udccp_tstamp ts);

/* The nofeedback timer expired (call when ts >= get_expiry): §4.4. */
void udccp_tfrc_tx_on_nofeedback(udccp_tfrc_tx *tx, udccp_tstamp ts);

/* When the nofeedback timer expires.  Inline, as next_send: the
 * connection asks both after every packet (issue 13). */
static inline udccp_tstamp udccp_tfrc_tx_get_expiry(const udccp_tfrc_tx *tx) {
  return tx->nofb_expiry;
}

/* Earliest time the next data packet may be sent (<= ts: now). */
static inline udccp_tstamp udccp_tfrc_tx_next_send(const udccp_tfrc_tx *tx,
                                                   udccp_tstamp ts) {
  udccp_tstamp t = tx->t_nom > tx->t_delta ? tx->t_nom - tx->t_delta : 0;
  (void)ts;
  if (tx->cfg.sp && tx->sent_any) {
    /* RFC 5622 §5: 10 ms between data packets (saturating) */
    udccp_tstamp m = tx->last_send > UINT64_MAX - UDCCP_TFRC_SP_MIN_INTERVAL
                         ? UINT64_MAX
                         : tx->last_send + UDCCP_TFRC_SP_MIN_INTERVAL;
    if (m > t) {
      t = m;
    }
  }
  return t;
}

/* A data packet was sent at ts.  rate_limited: 1 if more data was waiting,
 * i.e. the sender is sending all it is allowed (§8.2.1); consecutive such
 * sends form one rate-limited stretch [first, last].  UDCCP_TFRC_TX_BACKLOG
 * (2): the same, known for certain (the connection's queue held more), so
 * that a pause (> 2 t_gran) before the next packet was not the
 * application's: it earns 2 t_gran of credit (§4.6), not an RTT. */
#define UDCCP_TFRC_TX_BACKLOG 2
void udccp_tfrc_tx_on_sent(udccp_tfrc_tx *tx, udccp_tstamp ts,
                           int rate_limited);

/* §8.2.1: 1 if the sender was rate-limited (not data-limited) at some
 * time in (t_old, t_new], as far as its record of recent rate-limited
 * stretches reaches. */
int udccp_tfrc_tx_not_limited_in(const udccp_tfrc_tx *tx, udccp_tstamp t_old,
                                 udccp_tstamp t_new);

/* The rate packets are paced at: X_inst with §4.5, else X. */
double udccp_tfrc_tx_rate(const udccp_tfrc_tx *tx);

/* X_Bps for loss event rate p at the current R, with the TFRC-SP
 * adjustments if configured: s_nominal in the equation, then times
 * s/(s + H) (RFC 4828 §3, RFC 5622 §5).  p <= 0: UDCCP_TFRC_X_INF. */
double udccp_tfrc_tx_calc_x(const udccp_tfrc_tx *tx, double p);

/* The cost cap on a receiver's reports (cfg.sent_cap; RFC 5348 §4.3 and
 * §8.3 in spirit: X_recv is a rate the receiver saw, so it can never
 * honestly exceed what we sent).  X and X_inst never go above
 *   max(2 X_sent, W_init / max(R, R_raw_min / 4)),
 * X_sent the larger of the rates of the last complete window of sends
 * (at least R long) and of the current one (over at least R), in s units:
 * the rate of our latest sending, however long ago.  A Receive
 * Rate of 0xFFFFFFFF then allows what slow start allows, doubling what
 * was really sent; Elapsed Time lies that shrink R cannot shrink
 * R_raw_min, our own clock's measure.  UDCCP_TFRC_X_INF without an RTT. */
double udccp_tfrc_tx_sent_cap(const udccp_tfrc_tx *tx, udccp_tstamp ts);

/* RFC 4342 §8.1: the window counter (CCVal) for a data packet sent at ts.
 * It starts at 0 with the first packet and advances by
 * min(floor((ts - last_WC_time) / (R/4)), 5) mod 16, so adjacent data
 * packets never differ by more than 5.  It stays put while R is unknown
 * (no quarter-RTT exists yet). */
uint8_t udccp_tfrc_tx_ccval(udccp_tfrc_tx *tx, udccp_tstamp ts);

/* RFC 4342 §8.1: a packet sent with window counter wc was acknowledged:
 * later packets carry at least (wc + 4) mod 16. */
void udccp_tfrc_tx_ccval_acked(udccp_tfrc_tx *tx, uint8_t wc,
                               udccp_tstamp ts);

/* RFC 4342 §5.2: X_recv after Data Dropped (drop code 0-2: receive-side
 * drops, not corruption) or Slow Receiver.  x_inrecv is the reported
 * Receive Rate, n_dropped the packets newly reported dropped with such
 * codes, slow_receiver 1 if a Slow Receiver option arrived:
 *   X_drop = X_inrecv (Slow Receiver), or
 *            max(X_inrecv - n*s/R, min(X_inrecv, s/R)) (Data Dropped);
 *   X_recv = min(X_inrecv, X_drop/2).
 * With neither, returns x_inrecv.  Needs R (returns x_inrecv without). */
double udccp_tfrc_tx_adjust_x_recv(const udccp_tfrc_tx *tx, double x_inrecv,
                                   uint32_t n_dropped, int slow_receiver);

#endif /* UDCCP_TFRC_TX_H */

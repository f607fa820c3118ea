/* SPDX-License-Identifier: MIT */
/*
 * TFRC receiver loss history and loss intervals (RFC 5348 §5, §6.3.1; RFC
 * 4342 §6.1, §8.6, §10.2; TFRC-SP short intervals of RFC 4828 §3/§4.4 and
 * RFC 5622 §8.7), plus the sender-side parsing of the Loss Intervals and
 * Dropped Packets options and the average-loss-interval computation that
 * both sides share.
 *
 * Memory: a udccp_tfrc_lh is a plain struct of fixed size (no allocation);
 * it holds at most NDUPACK packet records and NINTERVAL + 1 intervals.
 *
 * Loss detection (RFC 5348 §5.1): a missing sequence number is declared
 * lost once NDUPACK = 3 packets with higher sequence numbers have arrived;
 * until then a late packet fills its hole.  Because a hole is settled as
 * soon as three packets lie above it, at most NDUPACK - 1 received packets
 * ever wait above the lowest hole: gaps of any size cost O(1) memory.  A
 * packet arriving after its hole was declared lost is counted as late and
 * otherwise ignored (RFC 5348 §5.1 allows, but does not require, undoing
 * the loss).  An ECN-CE-marked data packet is a congestion event as soon as
 * it arrives; holes below it are then declared lost at once, so that the
 * event begins with the first lost packet (RFC 5348 §5.1 example).
 *
 * Loss events (RFC 5348 §5.2 / RFC 4342 §10.2), selected per history:
 *   UDCCP_TFRC_LH_CCVAL -- two losses X < Y are different events iff a
 *     packet S received with X_prev < S <= Y_prev has a window counter more
 *     than 4 ahead of C(X_prev).  Tracked exactly as packets are settled,
 *     so complete wraps of the 4-bit counter are handled.
 *   UDCCP_TFRC_LH_RTT   -- a loss begins a new event iff its nominal arrival
 *     time (interpolated between the received neighbours of its run of
 *     losses, §5.2) is more than R after the event's first loss; R is the
 *     receiver's RTT estimate passed with each packet.
 *
 * Lost packets count as data packets unless the NDP Count of the packet
 * after the run shows they were not (RFC 4342 §6.1: conservatively assume
 * data; RFC 4340 §7.7).  Data lengths exclude known non-data packets.
 */
#ifndef UDCCP_TFRC_LH_H
#define UDCCP_TFRC_LH_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "seq.h"

#define UDCCP_TFRC_NDUPACK 3
#define UDCCP_TFRC_NINTERVAL 8                          /* n, RFC 5348 §5.4 */
#define UDCCP_TFRC_LI_MAX (UDCCP_TFRC_NINTERVAL + 1)    /* I_0 .. I_n */
#define UDCCP_TFRC_LI_LEN_MAX 0xFFFFFFu   /* 24-bit lengths, RFC 4342 §8.6.1 */
#define UDCCP_TFRC_LOSS_LEN_MAX 0x7FFFFFu /* 23-bit Loss Length */
/* The longest synthetic first interval (RFC 5348 §6.3.1) kept: 2^40
 * packets (10 Gbit/s at a 200 ms RTT needs 2e10).  The Loss Intervals
 * option saturates at UDCCP_TFRC_LI_LEN_MAX (RFC 4342 §8.6.1), the Loss
 * Event Rate option at 1/p = 2^32 - 1 (§8.5) */
#define UDCCP_TFRC_SYNTH_LEN_MAX (1ULL << 40)
#define UDCCP_TFRC_DF_THRESHOLD 0.25      /* RFC 5348 §5.5 THRESHOLD */
/* Most loss events one run of consecutive losses may start in RTT mode;
 * the rest of the run then joins the last event.  The bound keeps a long
 * blackout with a tiny RTT from costing unbounded time; by then the history
 * is long full of one-RTT intervals. */
#define UDCCP_TFRC_RUN_EVENTS_MAX 1024
/* RFC 5348 §5.1: a packet declared lost that arrives late fills its hole.
 * The history remembers which of the last UDCCP_TFRC_LATE_WIN sequence
 * numbers below the frontier were declared lost (one bit each); a packet
 * later than that stays counted as lost. */
#define UDCCP_TFRC_LATE_WIN 1024u

/* CCID-specific option numbers (RFC 4342 §8, RFC 5622 §8.7). */
#define UDCCP_TFRC_OPT_LOSS_EVENT_RATE 192
#define UDCCP_TFRC_OPT_LOSS_INTERVALS 193
#define UDCCP_TFRC_OPT_RECEIVE_RATE 194
#define UDCCP_TFRC_OPT_DROPPED_PACKETS 195

enum udccp_tfrc_lh_mode {
  UDCCP_TFRC_LH_CCVAL = 0, /* RFC 4342 §10.2 window counters (CCID 3/4) */
  UDCCP_TFRC_LH_RTT = 1    /* RFC 5348 §5.2 interpolated times and R */
};

/* Flags returned by udccp_tfrc_lh_add(). */
enum {
  UDCCP_TFRC_LH_LOSS = 1u << 0,      /* packets were declared lost/marked */
  UDCCP_TFRC_LH_NEW_EVENT = 1u << 1, /* a new loss event began: send
                                        feedback now (RFC 5348 §6.1) */
  UDCCP_TFRC_LH_FIRST_LOSS = 1u << 2,/* it was the first: the first interval
                                        was synthesized (§6.3.1) */
  UDCCP_TFRC_LH_DUP = 1u << 3,       /* duplicate or too late: ignored */
  UDCCP_TFRC_LH_SETTLED = 1u << 4,   /* the frontier advanced */
  UDCCP_TFRC_LH_UNDONE = 1u << 5     /* a packet declared lost came late and
                                        filled its hole (RFC 5348 §5.1): p
                                        may have fallen */
};

/* One received packet, as the loss history sees it. */
typedef struct udccp_tfrc_rx_pkt {
  uint64_t seq;      /* 48-bit sequence number */
  udccp_tstamp ts;   /* arrival time */
  uint8_t ccval;     /* window counter (CCVal), 0..15 */
  uint8_t ecn;       /* IP ECN codepoint: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE */
  uint8_t is_data;   /* 1: a data-carrying packet type (Data, DataAck) */
  uint32_t ndp;      /* NDP Count option value, 0 if absent (RFC 4340 §7.7) */
} udccp_tfrc_rx_pkt;

/* What the receiver knows when a packet arrives. */
typedef struct udccp_tfrc_rx_ctx {
  udccp_tstamp rtt;  /* the receiver's RTT estimate R (ns); 0 = unknown */
  double x_recv_max; /* greatest X_recv so far (bytes/s; packets/s if s=0) */
  uint32_t s;        /* sender's segment size, bytes; 0 = work in packets */
  /* Optional (NULL: none): the X_recv of now, in x_recv_max's units, that
   * counts in x_recv_max too.  Asked only when the first loss event
   * starts (§6.3.1), the one use of x_recv_max: a receiver need not
   * compute it on every packet (issue 13). */
  double (*x_recv_now)(const void *ud);
  const void *x_recv_ud;
} udccp_tfrc_rx_ctx;

/* One loss interval as kept by the receiver.  li[0] is the current one. */
typedef struct udccp_tfrc_li {
  uint64_t seq_start; /* its first sequence number */
  uint64_t seq_len;   /* sequence length (I_0: up to the settled frontier) */
  uint64_t loss_len;  /* lossy part: first to last lost/marked data packet */
  uint64_t data_len;  /* data length (RFC 4342 §6.1.1); synthesized for the
                         interval before the first loss */
  uint64_t drops;     /* lost or marked data packets (RFC 5622 Drop Count) */
  double df;          /* discount factor DF_i (RFC 5348 §5.5) */
  uint8_t nonce;      /* ECN nonce echo of the lossless part */
  uint8_t nonce_all;  /* nonce sum of every data packet received in it
                         (to merge it into the interval before, below) */
  uint8_t is_long;    /* lasted more than 2 RTTs (RFC 4828 §3: not short) */
  uint8_t synth;      /* the interval before the first loss, synthesized */
} udccp_tfrc_li;

typedef struct udccp_tfrc_rec {
  uint64_t seq;
  udccp_tstamp ts;
  uint32_t ndp;
  uint8_t ccval, ecn, is_data;
} udccp_tfrc_rec;

typedef struct udccp_tfrc_lh {
  uint8_t mode;        /* enum udccp_tfrc_lh_mode */
  uint8_t sp;          /* 1: TFRC-SP (CCID 4) short-interval rules */
  uint8_t discount;    /* 1: history discounting, RFC 5348 §5.5 */
  uint8_t started;
  uint8_t have_loss;   /* a loss event was seen */
  uint8_t ev_closed;   /* CCVal mode: current event can take no more losses */
  uint8_t ev_ccval;    /* C(X_prev) of the current event's first loss */
  udccp_tstamp ev_t;   /* nominal time of the current event's first loss */
  uint64_t last;       /* every seq <= last is received or declared lost */
  uint64_t seq_max;    /* greatest sequence number received */
  udccp_tfrc_rec prev; /* the received packet with seq <= last, greatest */
  uint8_t prev_cc;     /* window counter of the greatest received *data*
                          packet with seq <= last: only data packets carry
                          one (RFC 4342 §8.1); a non-data packet's CCVal
                          of 0 must not open or close loss events */
  udccp_tfrc_rec pend[UDCCP_TFRC_NDUPACK]; /* received above a hole, sorted */
  uint32_t n_pend;
  uint32_t n_li;       /* valid entries of li[] (>= 1 once started) */
  udccp_tfrc_li li[UDCCP_TFRC_LI_MAX];
  double df;           /* general discount factor DF, RFC 5348 §5.5 */
  udccp_tstamp rtt;    /* R of the latest call (for the 2-RTT test) */
  /* counters */
  uint64_t n_lost;     /* data packets declared lost */
  uint64_t n_marked;   /* CE-marked data packets */
  uint64_t n_events;   /* loss events */
  uint64_t n_late;     /* duplicates and packets after their hole closed */
  uint64_t n_filled;   /* packets declared lost that came late (n_lost no
                          longer counts them) */
  uint64_t pre_loss_len; /* the data length the first loss event replaced
                            by the synthetic one (restored if it is undone) */
  uint64_t n_undone;   /* loss events all of whose losses came late: merged
                          into the interval before (n_events still counts
                          them) */
  /* bit (s % LATE_WIN): s was declared lost and has not come since; valid
   * for the LATE_WIN sequence numbers up to last */
  uint8_t lost_bits[UDCCP_TFRC_LATE_WIN / 8];
} udccp_tfrc_lh;

/* Prepares an empty history.  mode: enum udccp_tfrc_lh_mode; sp: 1 for
 * TFRC-SP; discount: 1 to use RFC 5348 §5.5 history discounting. */
void udccp_tfrc_lh_init(udccp_tfrc_lh *lh, int mode, int sp, int discount);

/* Adds a received packet (any type: Acks take sequence numbers too).
 * Returns a set of UDCCP_TFRC_LH_* flags (never negative). */
unsigned udccp_tfrc_lh_add(udccp_tfrc_lh *lh, const udccp_tfrc_rx_pkt *pkt,
                           const udccp_tfrc_rx_ctx *ctx);

/* udccp_tfrc_lh_add's common case, inline (issue 13): the next packet in
 * order, nothing waiting above a hole, no loss event yet and no CE mark on
 * data, so nothing but the current interval's counts and the frontier
 * move (with no loss event, neither "time has passed" predicate nor DF
 * applies, RFC 5348 §5.5).  Returns UDCCP_TFRC_LH_SETTLED after doing
 * what udccp_tfrc_lh_add would; 0 if the case does not apply and nothing
 * was done (the caller then calls udccp_tfrc_lh_add). */
static inline unsigned udccp_tfrc_lh_add_next(udccp_tfrc_lh *lh,
                                              const udccp_tfrc_rx_pkt *pkt,
                                              udccp_tstamp rtt) {
  uint64_t seq = pkt->seq & UDCCP_SEQ_MASK;
  uint8_t ecn = (uint8_t)(pkt->ecn & 3), is_data = pkt->is_data != 0;
  udccp_tfrc_li *li0 = &lh->li[0];
  if (!lh->started || lh->have_loss || lh->n_pend != 0 ||
      seq != udccp_seq_add(lh->last, 1) || (is_data && ecn == 3)) {
    return 0;
  }
  lh->rtt = rtt;
  lh->seq_max = udccp_seq_max(lh->seq_max, seq);
  lh->last = seq;
  li0->seq_len++;
  if (is_data) {
    li0->data_len++;
    if (ecn == 1) {
      li0->nonce ^= 1; /* RFC 3540: ECT(1) carries nonce 1 */
    }
    lh->prev_cc = (uint8_t)(pkt->ccval & 15);
  }
  lh->prev.seq = seq;
  lh->prev.ts = pkt->ts;
  lh->prev.ndp = pkt->ndp;
  lh->prev.ccval = (uint8_t)(pkt->ccval & 15);
  lh->prev.ecn = ecn;
  lh->prev.is_data = is_data;
  return UDCCP_TFRC_LH_SETTLED;
}

/* The loss event rate p = 1/I_mean (RFC 5348 §5.4; §5.5 if discounting;
 * RFC 4828 §3 if sp).  0 before the first loss event. */
double udccp_tfrc_lh_p(const udccp_tfrc_lh *lh);

/* Current length of I_0 for the average: its data length plus the
 * unsettled packets above the frontier, counted as data (§5.3: up to the
 * highest received sequence number). */
uint64_t udccp_tfrc_lh_i0(const udccp_tfrc_lh *lh);

/* RFC 5348 §6.3.1: the synthetic first loss interval 1/p for X_target =
 * max(x_recv_max, 0.5 packets per RTT), rounded to nearest, in [1,
 * UDCCP_TFRC_SYNTH_LEN_MAX].  s = 0: x_recv_max is in packets/s.  rtt = 0 is
 * treated as 1 ns. */
uint64_t udccp_tfrc_first_interval(double x_recv_max, uint32_t s,
                                   udccp_tstamp rtt);

/* Writes the value of a Loss Intervals option (RFC 4342 §8.6: Skip Length,
 * then 9 bytes per interval, newest first) for a packet whose
 * Acknowledgement Number is ack (>= every sequence number added).  At most
 * max_iv intervals (0 = all kept, at most NINTERVAL + 1).  Returns the value
 * length, or UDCCP_ERR_NOBUF if cap is too small, or
 * UDCCP_ERR_INVALID_STATE before the first packet.  If more than 255
 * sequence numbers lie between the frontier and ack (only after a gap
 * larger than that with fewer than NDUPACK packets above it), the excess is
 * reported in I_0's lossless part: Skip Length is one byte. */
udccp_ssize udccp_tfrc_lh_write_li(const udccp_tfrc_lh *lh, uint64_t ack,
                                   uint8_t *buf, size_t cap, size_t max_iv);

/* Writes the value of a Dropped Packets option (RFC 5622 §8.7), covering
 * the same intervals as udccp_tfrc_lh_write_li() with the same max_iv. */
udccp_ssize udccp_tfrc_lh_write_dp(const udccp_tfrc_lh *lh, uint8_t *buf,
                                   size_t cap, size_t max_iv);

/* RFC 4342 §8.1: the receiver's RTT estimate from window counters.  T(I)
 * is the arrival time of the first packet with CCVal I on the counter's
 * latest pass; when a new counter value K first arrives, (T(K) - T(K-D)) *
 * 4/D is an estimate, for D = 4 if T(K-4) exists, else 3, else 2.  Packets
 * whose counter is not ahead of the greatest seen (by 1..7) are ignored. */
typedef struct udccp_tfrc_wc_rtt {
  udccp_tstamp t[16];
  uint16_t valid;      /* bit I: t[I] belongs to the latest pass */
  uint8_t last;        /* greatest counter seen */
  uint8_t started;
  udccp_tstamp rtt;    /* latest estimate, 0 = none yet */
} udccp_tfrc_wc_rtt;

void udccp_tfrc_wc_rtt_init(udccp_tfrc_wc_rtt *w);

/* A data packet with this CCVal arrived at ts.  Returns the new estimate
 * (ns) if this packet produced one, else 0; w->rtt keeps the latest. */
udccp_tstamp udccp_tfrc_wc_rtt_add(udccp_tfrc_wc_rtt *w, uint8_t ccval,
                                   udccp_tstamp ts);

/* ------------------------------------------------ sender side, shared */

/* One interval as carried by the options. */
typedef struct udccp_tfrc_li_info {
  uint64_t seq_end;   /* last sequence number of the interval */
  uint32_t lossless;  /* Lossless Length */
  uint32_t loss_len;  /* Loss Length (23 bits) */
  uint64_t data_len;  /* Data Length (wider than 24 bits only after the
                         sender's own first interval, ccid3.c) */
  uint32_t drops;     /* Drop Count (Loss Length if not reported) */
  uint8_t ecn;        /* ECN Nonce Echo */
} udccp_tfrc_li_info;

/* Parses a Loss Intervals option value (RFC 4342 §8.6.1) received on a
 * packet with Acknowledgement Number ack.  Fills out[0..*n) newest first
 * (at most cap) and *skip.  Returns 0, or UDCCP_ERR_OPTION if the length is
 * not 1 + 9k with k >= 1.  Intervals beyond cap are ignored. */
int udccp_tfrc_li_parse(const uint8_t *val, size_t len, uint64_t ack,
                        udccp_tfrc_li_info *out, size_t cap, size_t *n,
                        uint8_t *skip);

/* Applies a Dropped Packets option value (RFC 5622 §8.7) to intervals
 * parsed from the same packet: Drop Counts above Loss Length are treated
 * as Loss Length; intervals it does not cover keep Drop Count = Loss
 * Length.  Returns 0 or UDCCP_ERR_OPTION (length not a multiple of 3). */
int udccp_tfrc_dp_apply(const uint8_t *val, size_t len,
                        udccp_tfrc_li_info *li, size_t n);

/* The average loss interval over I_0 = len[0] (open) and the closed
 * I_1..I_k = len[1..k], k = n - 1 <= NINTERVAL (RFC 5348 §5.4):
 * I_mean = max(I_tot0, I_tot1) / W_tot.  i0_excluded != 0 leaves I_0 out
 * (RFC 4828 §3, I_0 short).  df: DF_i per entry (NULL = all 1) and DF, for
 * §5.5 history discounting; then 1/I_mean = min(W_tot0/I_tot0,
 * W_tot1/I_tot1).  Returns p = 1/I_mean, 0 if n < 2 (no loss event yet),
 * 1 if the intervals are all zero; p <= 1 always. */
double udccp_tfrc_calc_p_intervals(const double *len, size_t n,
                                   const double *df, double DF,
                                   int i0_excluded);

/* The sender's p from received intervals (newest first, n of them; only
 * the first NINTERVAL + 1 are used), from their Data Lengths.  sp: TFRC-SP:
 * a short interval (is_short[i] != 0; NULL = none short) counts as
 * Data Length / Drop Count, and a short I_0 is left out (RFC 4828 §3). */
double udccp_tfrc_li_calc_p(const udccp_tfrc_li_info *li, size_t n,
                            const uint8_t *is_short, int sp);

/* RFC 5348 §5.5 history discounting from the intervals alone, for a sender
 * that computes p from Loss Intervals options (RFC 4342 §8.6) of a
 * discounting receiver: len[0..n) are I_0 (open) .. I_(n-1), newest first.
 * The DF a receiver had in force when each interval closed depends only on
 * that interval and the older ones, so it is recomputed here, oldest
 * first; the oldest reported interval counts as undiscounted (the option
 * shows no history before it).  Fills df[0..n) with DF_i and *DF with the
 * current general discount factor. */
void udccp_tfrc_li_discount(const double *len, size_t n, double *df,
                            double *DF);

/* The sender's p from received intervals (as udccp_tfrc_li_calc_p with no
 * TFRC-SP) with the history discounting of udccp_tfrc_li_discount(). */
double udccp_tfrc_li_calc_p_discounted(const udccp_tfrc_li_info *li,
                                       size_t n);

#endif /* UDCCP_TFRC_LH_H */

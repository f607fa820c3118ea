/* SPDX-License-Identifier: MIT */
/*
 * CCID 2: TCP-like Congestion Control.  Rules implemented, by section:
 *
 * RFC 4341 §4    Send Ack Vector = 1 at the HC-Receiver is a mandatory
 *                dependency (deps table below).
 * RFC 4341 §5    cwnd, ssthresh and pipe count packets.  A data packet may
 *                go only while pipe < cwnd; each one sent adds 1 to pipe.
 * §5 (1)         pipe -1 for each data packet newly acked in state 0 or 1,
 *                never twice, never for non-data packets or for packets
 *                already declared lost.
 * §5 (2)         P is lost once NUMDUPACK (3) packets sent after P, data or
 *                not, are acked; pipe -1.  lib/ccid2_loss.c: the rule, the
 *                timeout's losses, and under reordering (RFC 3522, 4015,
 *                4653) the undo of spurious losses and a raised threshold.
 * §5 (3)         Timeout per RFC 6298 (RFC 2988), one RTT sample per window,
 *                exponential back-off; on timeout pipe = 0, ssthresh =
 *                cwnd/2 (>= 2), cwnd = 1; outstanding packets count as lost;
 *                a repeated timeout keeps ssthresh (RFC 5681 §3.1).
 * §5             One congestion event per window (losses or marks of packets
 *                sent before the first was detected): cwnd /= 2 (>= 1),
 *                ssthresh = cwnd (>= 2).
 * §5             Slow start: the "modified form of Appropriate Byte
 *                Counting [RFC3465]" with L = 2 (RFC 3465 §2.2): +1 per
 *                newly acked unmarked data packet, at most Ack Ratio (>= 2)
 *                per ack, so x2 per RTT as TCP with ABC (the RFC's
 *                example rule, +1 per two, is x1.5 and lost every shared
 *                slow start to TCP); congestion avoidance: +1 per window
 *                acked without loss or mark.
 * §5             Initial cwnd per RFC 3390; ssthresh starts "arbitrarily
 *                high".
 * §5.1           Idle and application-limited periods: RFC 2861 cwnd
 *                validation (halve per idle RTO, down to the RFC 5681 §4.1
 *                restart window; no growth and decay towards the used
 *                window while application-limited).
 * §5.2           Data Dropped: Drop Code 2 costs one packet of cwnd per
 *                packet; codes 3..7 count as ECN marks, codes 0 and 1 as
 *                received (RFC 4340 §11.7.2); a relevant Data Dropped or
 *                Slow Receiver ends slow start; Slow Receiver also stops
 *                growth for an RTT (RFC 4340 §11.6).
 * §6.1.1         Lost acks (NUMDUPACK later peer packets seen; more once a
 *                late one showed reordering, RFC 4653) and CE-marked
 *                non-data packets are ack-path congestion.
 * §6.1.2         Ack Ratio: integer, <= ceil(cwnd/2), >= 2 once cwnd >= 4;
 *                doubled per window with ack-path congestion, decreased by 1
 *                after cwnd/(R^2 - R) clean windows, at most one change per
 *                RTT except when a constraint forces it.
 * §7             Ack Vector state 1 (ECN marked) is a congestion event.
 * §5 (MAY)       Pacing of packets released together: gain x cwnd/srtt.
 * RFC 4340 §7.5.2 cwnd never exceeds Sequence Window/A.
 * RFC 4340 §11.3 Receiver half: lib/ccid2_rx.c.
 *
 * §7 (SHOULD)    ECN Nonce Echo verification: nonces of the last 2^16
 *                packets kept while ECN is on (Not-ECT packets carry none,
 *                RFC 3540 §2); a wrong echo counts as a mark (RFC 4340
 *                §12.3).
 */
#include <string.h>

#include "ackvec.h"
#include "ccid2.h"
#include "ccid2_int.h"
#include "feat.h"
#include "seq.h"



static ccid2_tx *tx_of(udccp_ccid_state *st) {
  return (ccid2_tx *)(void *)st->bytes;
}
static const ccid2_tx *ctx_of(const udccp_ccid_state *st) {
  return (const ccid2_tx *)(const void *)st->bytes;
}
static udccp_tstamp since(udccp_tstamp now, udccp_tstamp then) {
  return now > then ? now - then : 0;
}

static udccp_tstamp add_ts(udccp_tstamp a, udccp_tstamp b) {
  return a > UDCCP_TSTAMP_NEVER - b ? UDCCP_TSTAMP_NEVER : a + b;
}

uint32_t udccp_ccid2_initial_cwnd(size_t mps) {
  size_t m = mps ? mps : 1460;
  size_t w = 4380 / m;
  if (w < 2) {
    w = 2;
  }
  if (w > 4) {
    w = 4;
  }
  return (uint32_t)w;
}

/* ------------------------------------------------------------ policy */

/* CCID 2 changed cwnd on its own (RFC 2861): the policy hears of it. */
static void cc_restart(ccid2_tx *tx, udccp_tstamp ts) {
  udccp_ccid2_win w;
  if (tx->cc == NULL || tx->cc->on_restart == NULL) {
    return;
  }
  ccid2_cc_win(tx, &w);
  tx->cc->on_restart(tx->ccp, &w, ts);
  ccid2_cc_unwin(tx, &w);
}

/* ------------------------------------------------------------ history */

static int hist_has(const ccid2_tx *tx, uint64_t seq) {
  return tx->n > 0 && udccp_seq_between(seq, tx->tail, ccid2_hist_head(tx));
}

static int hist_grow(ccid2_tx *tx, size_t need) {
  /* Allocated on first use, small: 1 entry (issue 13: an idle
   * connection stays there); beyond that straight to HIST_MIN, then
   * doubling, so that a busy sender grows rarely. */
  size_t ncap = tx->cap == 0                     ? 1
                : tx->cap < UDCCP_CCID2_HIST_MIN ? UDCCP_CCID2_HIST_MIN
                                                 : tx->cap;
  ccid2_ent *nr;
  size_t i;
  while (ncap < need) {
    ncap *= 2;
  }
  if (ncap > UDCCP_CCID2_HIST_MAX) {
    return UDCCP_ERR_NOMEM;
  }
  nr = tx->mem->calloc(ncap, sizeof(*nr), tx->mem->user_data);
  if (!nr) {
    return UDCCP_ERR_NOMEM;
  }
  for (i = 0; i < tx->n; i++) {
    uint64_t s = udccp_seq_add(tx->tail, (int64_t)i);
    nr[s & (ncap - 1)] = *ccid2_ent_at(tx, s);
  }
  tx->mem->free(tx->ring, tx->mem->user_data);
  tx->ring = nr;
  tx->cap = ncap;
  return 0;
}

static void ack_ratio_clamp(ccid2_tx *tx);

void udccp_ccid2_ack_ratio_clamp(ccid2_tx *tx) { ack_ratio_clamp(tx); }

/* RFC 4341 §5: halve once per congestion event.  A loss or mark of a
 * packet sent before the current event was detected belongs to it. */
void udccp_ccid2_congestion(ccid2_tx *tx, uint64_t seq, int undoable) {
  int joins = tx->in_recovery && udccp_seq_le(seq, tx->recovery_seq);
  /* ccid2_loss.c keeps what it needs to undo the event (RFC 4015) */
  udccp_ccid2_undo_event(tx, seq, undoable, !joins);
  if (joins) {
    return;
  }
  if (tx->cc != NULL) {
    udccp_ccid2_win w;
    ccid2_cc_win(tx, &w);
    tx->cc->on_congestion(tx->ccp, &w, tx->now);
    ccid2_cc_unwin(tx, &w);
  } else {
    tx->cwnd /= 2;
    if (tx->cwnd < 1) {
      tx->cwnd = 1;
    }
    tx->ssthresh = tx->cwnd < 2 ? 2 : tx->cwnd;
  }
  tx->in_recovery = 1;
  tx->recovery_seq = tx->gss;
  tx->ca_acked = 0;
  tx->events++;
  ack_ratio_clamp(tx);
}



static void hist_advance(ccid2_tx *tx) {
  while (tx->n > 0 && !ccid2_unresolved(ccid2_ent_at(tx, tx->tail))) {
    tx->tail = udccp_seq_add(tx->tail, 1);
    tx->n--;
  }
  if (udccp_seq_lt(tx->loss_scan, tx->tail)) {
    tx->loss_scan = tx->tail;
  }
  if (tx->in_recovery && udccp_seq_gt(tx->tail, tx->recovery_seq)) {
    tx->in_recovery = 0;
  }
}

/* The history cannot hold this much: the oldest packets are given up. */
static void hist_drop_oldest(ccid2_tx *tx) {
  ccid2_ent *e = ccid2_ent_at(tx, tx->tail);
  if (ccid2_unresolved(e)) {
    udccp_ccid2_lose(tx, e, 0); /* given up: not undoable */
  }
  tx->tail = udccp_seq_add(tx->tail, 1);
  tx->n--;
  hist_advance(tx);
}

void udccp_ccid2_hist_push_any(ccid2_tx *tx, uint64_t seq, udccp_tstamp ts,
                               uint8_t flags) {
  uint64_t d;
  ccid2_ent *e;
  if (!tx->started || tx->n == 0) {
    tx->started = 1;
    tx->tail = seq;
    tx->n = 0;
    tx->loss_scan = seq;
    d = 1;
  } else {
    int64_t sd = udccp_seq_sub(seq, ccid2_hist_head(tx));
    if (sd <= 0) {
      return; /* not newer than what we have: ignore */
    }
    d = (uint64_t)sd;
    if (d >= UDCCP_CCID2_HIST_MAX) {
      while (tx->n > 0) {
        hist_drop_oldest(tx);
      }
      tx->tail = seq;
      tx->n = 0;
      tx->loss_scan = seq;
      d = 1;
    }
  }
  if (tx->n + d > tx->cap && tx->n > 0) {
    /* Before growing: entries that need no slot any more (non-data, or
     * data already acked or lost) leave the tail now rather than at the
     * next ack.  An idle connection sending only Syncs (keepalive probes,
     * conn_timer.c) and hearing nothing would otherwise grow its 1-entry
     * history to HIST_MIN (6 KiB) for one non-data packet. */
    hist_advance(tx);
    if (tx->n == 0) {
      tx->tail = seq;
      tx->loss_scan = seq;
      d = 1;
    }
  }
  while (tx->n + d > tx->cap) {
    if (hist_grow(tx, tx->n + (size_t)d) == 0) {
      continue;
    }
    if (tx->n == 0) {
      if (tx->cap == 0) {
        return; /* no memory for even one entry: not recorded */
      }
      /* Nothing outstanding: the unreported numbers need no slots. */
      tx->tail = seq;
      tx->loss_scan = seq;
      d = 1;
      continue;
    }
    hist_drop_oldest(tx);
  }
  /* Sequence numbers the caller did not report: non-data, send time
   * unknown. */
  while (d > 1) {
    uint64_t s = udccp_seq_add(tx->tail, (int64_t)tx->n);
    e = ccid2_ent_at(tx, s);
    e->seq = s;
    e->sent = 0;
    e->flags = 0;
    tx->n++;
    d--;
  }
  e = ccid2_ent_at(tx, seq);
  e->seq = seq;
  e->sent = ts;
  e->flags = flags;
  tx->n++;
}

/* ------------------------------------------------------------ RTT, RTO */

static udccp_tstamp rtt_or_default(const ccid2_tx *tx) {
  return tx->rtt_use; /* several times per packet (issue 13) */
}

static void rto_compute(ccid2_tx *tx) {
  udccp_tstamp var4 = 4 * tx->rttvar;
  udccp_tstamp r =
      tx->srtt + (var4 > UDCCP_CCID2_CLOCK_G ? var4 : UDCCP_CCID2_CLOCK_G);
  if (r < UDCCP_CCID2_RTO_MIN) {
    r = UDCCP_CCID2_RTO_MIN;
  }
  if (r > UDCCP_CCID2_RTO_MAX) {
    r = UDCCP_CCID2_RTO_MAX;
  }
  tx->rto = r;
}

/* RFC 6298 §2.2, §2.3 (alpha = 1/8, beta = 1/4). */
static void rtt_sample(ccid2_tx *tx, udccp_tstamp r) {
  if (!tx->have_rtt) {
    tx->srtt = r;
    tx->rttvar = r / 2;
    tx->min_rtt = r;
    tx->have_rtt = 1;
  } else {
    udccp_tstamp diff = tx->srtt > r ? tx->srtt - r : r - tx->srtt;
    tx->rttvar = (3 * tx->rttvar + diff) / 4;
    tx->srtt = (7 * tx->srtt + r) / 8;
    if (r < tx->min_rtt) {
      tx->min_rtt = r;
    }
  }
  tx->rtt_use = tx->srtt > 0 ? tx->srtt : UDCCP_CCID2_DEFAULT_RTT;
  /* RFC 6298 §5.7: a new sample ends the back-off. */
  tx->backoff = 0;
  rto_compute(tx);
}

/* ------------------------------------------------------------ Ack Ratio */

/* RFC 4341 §6.1.2 constraints (2) and (3).  We take (2) without its
 * "2 is always acceptable" exception: with cwnd 1 or 2 an Ack Ratio of 2
 * would leave the receiver waiting for a packet that may never come (§6.1.2
 * allows Ack Ratio 1 for such windows). */
static uint32_t ar_max(uint32_t cwnd) {
  uint32_t m = (cwnd + 1) / 2;
  return m < 1 ? 1 : m;
}
/* RFC 4341 §6.1.2 (3), and the peer's Sequence Window: the peer sends
 * about cwnd / Ack Ratio acks per window of our data, and each one moves
 * its GSS; our packets acknowledge what we had received when we sent
 * them, so a peer that sent more than its W' acks while our window was
 * in flight finds our acknowledgement numbers below its AWL and drops
 * our packets (RFC 4340 §7.5.1, §7.5.3).  RFC 4340 §7.5.2 asks the peer
 * to keep W' at five times what it sends per RTT, but a peer may keep a
 * fixed W' (Linux: 100): keep its acks per window within W'/2. */
static uint32_t ar_min(const ccid2_tx *tx) {
  uint32_t cwnd = tx->cwnd, m = cwnd >= 4 ? 2 : 1;
  uint64_t half = tx->env->seq_window_in / 2, w;
  if (half > 0) {
    w = (cwnd + half - 1) / half;
    if (w > m) {
      m = (uint32_t)w;
    }
  }
  return m;
}

static void ack_ratio_clamp(ccid2_tx *tx) {
  if (tx->ar > ar_max(tx->cwnd)) {
    tx->ar = ar_max(tx->cwnd);
  }
  if (tx->ar < ar_min(tx)) {
    tx->ar = ar_min(tx);
  }
}

/* RFC 4341 §6.1.2: double per window with lost or marked acks; the SHOULD
 * NOT of more than one renegotiation per RTT paces it. */
static void ack_congestion(ccid2_tx *tx, udccp_tstamp ts) {
  tx->ar_clean_start = ts;
  if (tx->ar_changed_valid && since(ts, tx->ar_changed) < rtt_or_default(tx)) {
    return;
  }
  if (tx->ar < UINT16_MAX / 2) { /* the feature is 2 bytes, §11.3 */
    uint32_t old = tx->ar;
    tx->ar *= 2;
    ack_ratio_clamp(tx);
    if (tx->ar != old) {
      tx->ar_changed = ts;
      tx->ar_changed_valid = 1;
    }
  }
}

/* RFC 4341 §6.1.2 and Appendix A: -1 after K = cwnd/(R^2 - R) clean
 * windows; a window of data takes about one RTT. */
static void ack_ratio_decay(ccid2_tx *tx, udccp_tstamp ts) {
  uint64_t r = tx->ar, k;
  udccp_tstamp rtt = rtt_or_default(tx);
  /* ar_min is at least 2 once cwnd >= 4: Ack Ratio 2, the usual one, is
   * answered without its division (every ack, issue 13). */
  if (r < 2 || (r == 2 && tx->cwnd >= 4) || tx->ar <= ar_min(tx)) {
    return;
  }
  k = (tx->cwnd + (r * r - r) - 1) / (r * r - r);
  if (k < 1) {
    k = 1;
  }
  if (since(ts, tx->ar_clean_start) >= k * rtt &&
      (!tx->ar_changed_valid || since(ts, tx->ar_changed) >= rtt)) {
    tx->ar--;
    tx->ar_changed = ts;
    tx->ar_changed_valid = 1;
    tx->ar_clean_start = ts;
  }
}

static int is_nondata_type(uint8_t type) {
  switch (type) {
  case UDCCP_PKT_ACK:
  case UDCCP_PKT_CLOSEREQ:
  case UDCCP_PKT_CLOSE:
  case UDCCP_PKT_RESET:
  case UDCCP_PKT_SYNC:
  case UDCCP_PKT_SYNCACK:
    return 1;
  default:
    return 0;
  }
}

/* At most this many of the peer's later packets before one of its is
 * judged lost (half the 64-number window rp_track keeps). */
#define RP_REORDER_MAX 32u

/* RFC 4341 §6.1.1: the peer's packet is lost once NUMDUPACK packets with
 * greater sequence numbers arrived (rp_thresh: more once a late one proved
 * its loss spurious).  §6.1.1 also says to assume, lacking
 * NDP Count, that every lost packet was a non-data packet.  Returns the
 * number of packets newly judged lost. */
static unsigned rp_track(ccid2_tx *tx, uint64_t s) {
  unsigned lost = 0, cnt = 0, i;
  int64_t d;
  uint64_t t3 = 0;
  if (!tx->rp_started) {
    tx->rp_started = 1;
    tx->rp_high = s;
    tx->rp_seen = 1;
    tx->rp_judged = s;
    return 0;
  }
  d = udccp_seq_sub(s, tx->rp_high);
  if (d > 0) {
    if (d >= 64) {
      /* Everything between is unseen and now far behind. */
      for (i = 0; i < 64; i++) {
        uint64_t q = udccp_seq_add(tx->rp_high, -(int64_t)i);
        if (udccp_seq_gt(q, tx->rp_judged) && !((tx->rp_seen >> i) & 1u)) {
          lost++;
        }
      }
      lost += (unsigned)(d - 1 > 64 ? 64 : d - 1);
      tx->rp_seen = 1;
      tx->rp_judged = udccp_seq_add(s, -1);
    } else {
      /* Numbers leaving the 64-wide window are judged now. */
      for (i = (unsigned)(64 - d); i < 64; i++) {
        uint64_t q = udccp_seq_add(tx->rp_high, -(int64_t)i);
        if (udccp_seq_gt(q, tx->rp_judged) && !((tx->rp_seen >> i) & 1u)) {
          lost++;
        }
      }
      tx->rp_judged = udccp_seq_max(tx->rp_judged, udccp_seq_add(s, -64));
      tx->rp_seen = (tx->rp_seen << d) | 1u;
    }
    tx->rp_high = s;
  } else if (d < 0 && d > -64) {
    uint64_t bit = (uint64_t)1 << (unsigned)(-d);
    if (!udccp_seq_gt(s, tx->rp_judged) && !(tx->rp_seen & bit)) {
      /* Judged lost, and here it is: the acks were reordered, not lost
       * (RFC 4653's response, as for our own packets in ccid2_loss.c):
       * later numbers are judged only once -d + 1 above them arrived. */
      uint32_t th = (uint32_t)(-d) + 1;
      if (th > RP_REORDER_MAX) {
        th = RP_REORDER_MAX;
      }
      if (th > tx->rp_thresh) {
        tx->rp_thresh = (uint8_t)th;
      }
    }
    tx->rp_seen |= bit;
  }
  if ((tx->rp_seen & 7u) == 7u && tx->rp_thresh == 3) {
    /* In order: the third packet seen is rp_high - 2 (issue 13). */
    cnt = 3;
    t3 = udccp_seq_add(tx->rp_high, -2);
  } else {
    for (i = 0; i < 64; i++) {
      if ((tx->rp_seen >> i) & 1u) {
        if (++cnt == tx->rp_thresh) {
          t3 = udccp_seq_add(tx->rp_high, -(int64_t)i);
          break;
        }
      }
    }
  }
  if (cnt == tx->rp_thresh) {
    uint64_t q = udccp_seq_add(tx->rp_judged, 1);
    for (; udccp_seq_lt(q, t3); q = udccp_seq_add(q, 1)) {
      uint64_t bit = (uint64_t)udccp_seq_sub(tx->rp_high, q);
      if (bit < 64 && !((tx->rp_seen >> bit) & 1u)) {
        lost++;
      }
    }
    tx->rp_judged = udccp_seq_max(tx->rp_judged, udccp_seq_add(t3, -1));
  }
  return lost;
}

/* ------------------------------------------------------------ RFC 2861 */

static void cwv_restart(ccid2_tx *tx, udccp_tstamp ts) {
  tx->cwv_start = ts;
  tx->w_used = tx->pipe;
  tx->full_prev = tx->full_cur;
  tx->full_cur = tx->pipe >= tx->cwnd;
}

/* RFC 2861 §3: after an RTT in which the window was never full, the
 * sender was application-limited: ssthresh = max(ssthresh, 3/4 cwnd),
 * cwnd = (cwnd + W_used) / 2. */
static void cwv_tick_rtt(ccid2_tx *tx, udccp_tstamp ts) {
  if (!tx->full_cur && tx->w_used > 0 && tx->w_used < tx->cwnd &&
      !ccid2_cc_owns_cwnd(tx)) {
    uint32_t t = tx->cwnd - tx->cwnd / 4;
    if (tx->ssthresh < t) {
      tx->ssthresh = t;
    }
    tx->cwnd = (tx->cwnd + tx->w_used) / 2;
    if (tx->cwnd < 1) {
      tx->cwnd = 1;
    }
    tx->ca_acked = 0;
    ack_ratio_clamp(tx);
    cc_restart(tx, ts);
  }
  cwv_restart(tx, ts);
}

/* cwv_tick_rtt once an RTT has passed since the last (the check inline:
 * every packet sent and received asks, issue 13). */
static inline void cwv_tick(ccid2_tx *tx, udccp_tstamp ts) {
  if (since(ts, tx->cwv_start) >= rtt_or_default(tx)) {
    cwv_tick_rtt(tx, ts);
  }
}

/* RFC 2861 §3 idle rule: halve cwnd for every RTO without sending, down
 * to the restart window min(IW, cwnd) of RFC 5681 §4.1. */
static void cwv_idle(ccid2_tx *tx, udccp_tstamp ts) {
  udccp_tstamp idle;
  uint32_t rw;
  if (!tx->sent_any) {
    return;
  }
  idle = since(ts, tx->last_data_sent);
  if (idle < tx->rto || ccid2_cc_owns_cwnd(tx)) {
    return; /* a rate-based policy handles idle restart itself */
  }
  rw = tx->iw < tx->cwnd ? tx->iw : tx->cwnd;
  {
    uint32_t t = tx->cwnd - tx->cwnd / 4;
    if (tx->ssthresh < t) {
      tx->ssthresh = t;
    }
  }
  while (idle >= tx->rto && tx->cwnd > rw) {
    tx->cwnd /= 2;
    if (tx->cwnd < rw) {
      tx->cwnd = rw;
    }
    idle -= tx->rto;
  }
  tx->ca_acked = 0;
  tx->full_cur = tx->full_prev = 0;
  tx->w_used = 0;
  tx->cwv_start = ts;
  ack_ratio_clamp(tx);
  cc_restart(tx, ts);
}

/* ------------------------------------------------------------ pacing */

/* RFC 4341 §5: "Senders MAY use a form of rate-based pacing when sending
 * multiple data packets liberated by a single ack packet."  Packets leave
 * at gain x cwnd/srtt: gain 2 in slow start (room for its growth), 5/4 in
 * congestion avoidance.  Without pacing, every ack of Ack Ratio packets
 * releases a burst, and at a nearly full drop-tail queue such bursts take
 * the losses that smoother flows avoid.  No RTT estimate, no pacing (the
 * initial window goes at once, as in TCP). */
static inline udccp_tstamp pace_interval(const ccid2_tx *tx) {
  if (tx->cc != NULL && tx->cc->pace_interval != NULL) {
    udccp_ccid2_win w;
    ccid2_cc_win(tx, &w);
    return tx->cc->pace_interval(tx->ccp, &w);
  }
  if (!tx->have_rtt || tx->srtt == 0) {
    return 0;
  }
  if (tx->cwnd < tx->ssthresh) {
    return tx->srtt / (2 * (udccp_tstamp)tx->cwnd);
  }
  return tx->srtt * 4 / (5 * (udccp_tstamp)tx->cwnd);
}

static inline void pace_on_sent(ccid2_tx *tx, udccp_tstamp ts) {
  udccp_tstamp iv = pace_interval(tx), base = ts;
  /* A sender that waited for the pace and was woken late (timer
   * granularity) may catch up, at most UDCCP_CCID2_PACE_QUANTUM of it;
   * one released by an ack starts from now, so its packets spread. */
  if (tx->paced && tx->pace_next < ts) {
    base = tx->pace_next;
    if (ts - base > UDCCP_CCID2_PACE_QUANTUM) {
      base = ts - UDCCP_CCID2_PACE_QUANTUM;
    }
  } else if (tx->pace_next > ts) {
    base = tx->pace_next;
  }
  tx->pace_next = base + iv;
}

/* ------------------------------------------------------------ sender */

static void tx_env_update(ccid2_tx *tx) {
  udccp_ccid_env *env = tx->env;
  env->srtt = tx->have_rtt ? tx->srtt : 0;
  env->rttvar = tx->have_rtt ? tx->rttvar : 0;
  env->min_rtt = tx->have_rtt ? tx->min_rtt : 0;
  env->rto = tx->rto;
  env->pkts_lost = tx->pkts_lost;
  env->want_ack_ratio = tx->ar != env->ack_ratio ? tx->ar : 0;
}

int udccp_ccid2_tx_init_cc(udccp_ccid_state *st, udccp_ccid_env *env,
                           udccp_tstamp ts, const udccp_ccid2_cc *cc) {
  ccid2_tx *tx = tx_of(st);
  memset(tx, 0, sizeof(*tx));
  tx->env = env;
  tx->mem = env->mem ? env->mem : udccp_mem_default();
  /* The history and the nonce bitmap are allocated when packets are
   * sent (hist_grow, nonce_room): a pure receiver holds only a few acks'
   * worth, an idle connection little (issue 13). */
  tx->iw = udccp_ccid2_initial_cwnd(env->mps); /* RFC 4341 §5, RFC 3390 */
  tx->cwnd = tx->iw;
  tx->ssthresh = UINT32_MAX; /* §5: "arbitrarily high" */
  tx->dupthresh = UDCCP_CCID2_NUMDUPACK;
  tx->rp_thresh = UDCCP_CCID2_NUMDUPACK;
  tx->rto = UDCCP_CCID2_RTO_INIT;
  tx->rtt_use = UDCCP_CCID2_DEFAULT_RTT;
  tx->rto_deadline = UDCCP_TSTAMP_NEVER;
  tx->cwv_start = ts;
  tx->ar_clean_start = ts;
  tx->ar = env->ack_ratio ? env->ack_ratio : 2; /* RFC 4340 §11.3 default */
  ack_ratio_clamp(tx);
  tx->cc = cc;
  tx->ccp = tx->ccst.b;
  if (cc != NULL && cc->state_size > UDCCP_CCID2_CC_STATE_SIZE) {
    if (cc->state_size > UDCCP_CCID_STATE_SIZE - UDCCP_CCID2_TX_STATE_SIZE) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    tx->ccp = st->bytes + UDCCP_CCID2_TX_STATE_SIZE;
    memset(tx->ccp, 0, cc->state_size);
  }
  tx->now = ts;
  if (cc != NULL) {
    udccp_ccid2_win w;
    ccid2_cc_win(tx, &w);
    cc->init(tx->ccp, &w, ts);
    ccid2_cc_unwin(tx, &w);
  }
  tx_env_update(tx);
  return 0;
}

static int ccid2_tx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                         udccp_tstamp ts) {
  return udccp_ccid2_tx_init_cc(st, env, ts, NULL);
}

void udccp_ccid2_tx_exit(udccp_ccid_state *st) {
  ccid2_tx *tx = tx_of(st);
  if (tx->cc != NULL && tx->cc->exit != NULL) {
    tx->cc->exit(tx->ccp);
  }
  if (tx->ring) {
    tx->mem->free(tx->ring, tx->mem->user_data);
    tx->ring = NULL;
  }
  if (tx->nonces) {
    tx->mem->free(tx->nonces, tx->mem->user_data);
    tx->nonces = NULL;
  }
  udccp_ccid2_loss_free(tx);
}

int udccp_ccid2_trim(udccp_ccid_state *st, int tx_half, udccp_tstamp ts) {
  ccid2_tx *tx;
  int held = 0;
  (void)ts;
  if (!tx_half) {
    return 0; /* the receiver half's state is fixed-size */
  }
  tx = tx_of(st);
  if (tx->cc != NULL && tx->cc->trim != NULL) {
    held = tx->cc->trim(tx->ccp);
  }
  if (tx->n > 0) {
    /* packets in flight: their entries are still needed (a ring of one
     * entry has nothing to give back: no wake-ups for it) */
    return held || tx->cap > 1;
  }
  /* Nothing unresolved: the ring holds nothing anyone reads (hist_has
   * is false for every number), so it is freed; the next send allocates
   * one entry again (hist_grow), as on a new connection. */
  if (tx->ring != NULL && tx->cap > 1) {
    tx->mem->free(tx->ring, tx->mem->user_data);
    tx->ring = NULL;
    tx->cap = 0;
  }
  return held;
}

udccp_tstamp udccp_ccid2_tx_next_send(udccp_ccid_state *st, udccp_tstamp ts) {
  ccid2_tx *tx = tx_of(st);
  if (tx->pipe < tx->cwnd) { /* RFC 4341 §5 */
    if (tx->pace_next > ts) {
      tx->paced = 1;
      tx->full_cur = 1; /* data waits for us: not application-limited */
      return tx->pace_next;
    }
    return ts;
  }
  tx->paced = 0; /* window-limited: the ack clock sets the pace */
  tx->full_cur = 1;
  if (tx->backoff > 0 && tx->rto_deadline != UDCCP_TSTAMP_NEVER) {
    return tx->rto_deadline; /* the timeout will reopen the window */
  }
  return UDCCP_TSTAMP_NEVER;
}

/* Makes the nonce bitmap cover packet seq (about to become GSS): none
 * while only non-data has been sent (their nonce is 0 and nonce_of says
 * so), then 512 bits, then NONCE_BITS once the span since nonce_first
 * outgrows them, the bits of the packets still covered kept.  Returns 1
 * if seq's bit can be written, 0 if there is nothing to record.  Without
 * memory to grow, the smaller bitmap goes on (older nonces are then
 * unknown sooner, which nonce_of reports). */
static int nonce_room(ccid2_tx *tx, uint64_t seq, int is_data) {
  uint64_t span;
  uint32_t nb;
  uint8_t *nn;
  if (tx->nonces == NULL && !is_data) {
    return 0;
  }
  span = (uint64_t)udccp_seq_sub(seq, tx->nonce_first) + 1;
  if (tx->nonces != NULL &&
      (tx->nonce_bits >= NONCE_BITS || span <= tx->nonce_bits)) {
    return 1;
  }
  /* 512 bits for the first packets, then the full size at once. */
  nb = tx->nonce_bits ? NONCE_BITS : 512;
  while (nb < span && nb < NONCE_BITS) {
    nb *= 2;
  }
  nn = tx->mem->calloc(nb / 8, 1, tx->mem->user_data);
  if (nn == NULL) {
    return tx->nonces != NULL;
  }
  if (tx->nonces != NULL) {
    /* Keep the bits of the packets from nonce_first to GSS. */
    uint64_t s = tx->nonce_first, k, n = (uint64_t)udccp_seq_sub(tx->gss, s) + 1;
    for (k = 0; k < n && k < tx->nonce_bits; ++k, s = udccp_seq_add(s, 1)) {
      uint32_t ob = (uint32_t)(s & (tx->nonce_bits - 1));
      uint32_t nbit = (uint32_t)(s & (nb - 1));
      if ((tx->nonces[ob >> 3] >> (ob & 7u)) & 1) {
        nn[nbit >> 3] = (uint8_t)(nn[nbit >> 3] | (1u << (nbit & 7u)));
      }
    }
    tx->mem->free(tx->nonces, tx->mem->user_data);
  }
  tx->nonces = nn;
  tx->nonce_bits = nb;
  return 1;
}


/* A data packet went out (both tx_on_sent paths): the pipe, the RTO timer
 * (RFC 6298 §5.1) and the window use RFC 2861 reads. */
static inline __attribute__((always_inline)) void data_sent(ccid2_tx *tx,
                                                            udccp_tstamp ts) {
  tx->pipe++;
  tx->sent_any = 1;
  tx->last_data_sent = ts;
  if (tx->rto_deadline == UDCCP_TSTAMP_NEVER) { /* RFC 6298 §5.1 */
    tx->rto_deadline = add_ts(ts, tx->rto);
  }
  if (tx->pipe >= tx->cwnd) {
    tx->full_cur = 1;
  }
  if (tx->pipe > tx->w_used) {
    tx->w_used = tx->pipe;
  }
}
/* tx_on_sent for every packet but the ones it answers itself (below). */
static __attribute__((noinline)) void tx_on_sent_any(ccid2_tx *tx,
                                                     uint64_t seq, int is_data,
                                                     udccp_tstamp ts) {
  int first = !tx->started;
  if (is_data) {
    cwv_idle(tx, ts);
  }
  cwv_tick(tx, ts);
  ccid2_hist_push(tx, seq, ts, (uint8_t)(ENT_SENT | (is_data ? ENT_DATA : 0)));
  if (first) {
    tx->nonce_first = seq;
  }
  if (!tx->env->ecn) {
    tx->nonce_on = 0;
  } else {
    if (!tx->nonce_on) {
      /* ECN on from here: earlier packets' nonces are unknown (nonce_of
       * answers -1 for them), not stale bits of an earlier ECN period. */
      tx->nonce_first = seq;
      tx->nonce_on = 1;
    }
    if (nonce_room(tx, seq, is_data)) {
      uint8_t bit = (uint8_t)(1u << (seq & 7u));
      uint8_t *b = &tx->nonces[(seq & (tx->nonce_bits - 1)) >> 3];
      *b = (uint8_t)(tx->env->tx_nonce && is_data ? (*b | bit)
                                                   : (*b & ~bit));
    }
  }
  if (first || udccp_seq_gt(seq, tx->gss)) {
    tx->gss = seq;
  }
  if (is_data) {
    data_sent(tx, ts);
    if (tx->cc != NULL && tx->cc->on_sent != NULL) {
      udccp_ccid2_win w;
      ccid2_cc_win(tx, &w);
      tx->cc->on_sent(tx->ccp, &w, seq,
                      tx->env->tx_more == UDCCP_CCID_MORE_NO &&
                          tx->pipe < tx->cwnd,
                      ts);
    }
    pace_on_sent(tx, ts);
  }
  /* tx_env_update's part a sent packet may move: a packet given up by
   * hist_push (pkts_lost), Ack Ratio clamped to a cwnd the RFC 2861 rules
   * changed.  The RTT and RTO move only with acks and timeouts (every
   * packet, issue 13). */
  tx->env->pkts_lost = tx->pkts_lost;
  tx->env->want_ack_ratio = tx->ar != tx->env->ack_ratio ? tx->ar : 0;
}

/* Every packet sent (issue 13).  The usual one -- history started, ECN
 * off (no nonce to keep, §12.2), Reno (no policy), less than an RTT since
 * RFC 2861's last tick and, for data after data, less than an RTO since
 * the last (cwv_tick and cwv_idle do nothing), the inline history push --
 * takes what tx_on_sent_any does then, without its calls and their
 * register saves (tests: udccp_ccid2_tx_set_general sends every packet
 * there). */
void udccp_ccid2_tx_on_sent(udccp_ccid_state *st, uint64_t seq, int is_data,
                             size_t len, udccp_tstamp ts) {
  ccid2_tx *tx = tx_of(st);
  udccp_ccid_env *env = tx->env;
  (void)len; /* §5.3: the window counts packets, whatever their size */
  tx->now = ts;
  seq &= UDCCP_SEQ_MASK;
  if (!tx->started || tx->general || env->ecn || tx->cc != NULL ||
      since(ts, tx->cwv_start) >= rtt_or_default(tx) ||
      (is_data && tx->sent_any && since(ts, tx->last_data_sent) >= tx->rto) ||
      !ccid2_hist_push_fast(tx, seq)) {
    tx_on_sent_any(tx, seq, is_data, ts);
    return;
  }
  ccid2_hist_put(tx, seq, ts, (uint8_t)(ENT_SENT | (is_data ? ENT_DATA : 0)));
  tx->nonce_on = 0;
  if (udccp_seq_gt(seq, tx->gss)) {
    tx->gss = seq;
  }
  if (is_data) {
    data_sent(tx, ts);
    pace_on_sent(tx, ts);
  }
  env->pkts_lost = tx->pkts_lost;
  env->want_ack_ratio = tx->ar != env->ack_ratio ? tx->ar : 0;
}

/* Per-ack scratch for the Ack Vector walk. */
typedef struct ccid2_ackctx {
  ccid2_tx *tx;
  uint32_t newly_data; /* data packets newly acked, states 0 and 1 */
  uint32_t grow;       /* ... of which unmarked and after recovery */
} ccid2_ackctx;

static void top_add(ccid2_tx *tx, uint64_t s) {
  unsigned i, j;
  for (i = 0; i < tx->n_top; i++) {
    if (tx->top[i] == s) {
      return;
    }
    if (udccp_seq_gt(s, tx->top[i])) {
      break;
    }
  }
  if (i >= 3) {
    return;
  }
  for (j = (tx->n_top < 3 ? tx->n_top : 2); j > i; j--) {
    tx->top[j] = tx->top[j - 1];
  }
  tx->top[i] = s;
  if (tx->n_top < 3) {
    tx->n_top++;
  }
}

static int av_run(uint64_t hi, uint64_t lo, uint8_t state, void *user_data) {
  ccid2_ackctx *c = user_data;
  ccid2_tx *tx = c->tx;
  uint64_t head, a, b, q;
  int64_t span = udccp_seq_sub(hi, lo);
  if (state != UDCCP_AV_RECEIVED && state != UDCCP_AV_ECN_MARKED) {
    return 0;
  }
  /* RFC 4341 §5 (2): any acknowledged packet counts, data or not. */
  if (span >= 2 && (tx->n_top == 0 || !udccp_seq_lt(hi, tx->top[0]))) {
    /* hi, hi - 1 and hi - 2 are the three greatest numbers up to hi, and
     * nothing seen before is above hi: they are the top three (the usual
     * first run of an ack, issue 13). */
    tx->top[0] = hi;
    tx->top[1] = udccp_seq_add(hi, -1);
    tx->top[2] = udccp_seq_add(hi, -2);
    tx->n_top = 3;
  } else if (tx->n_top < 3 || udccp_seq_gt(hi, tx->top[2])) {
    top_add(tx, hi);
    if (span >= 1) {
      top_add(tx, udccp_seq_add(hi, -1));
    }
    if (span >= 2) {
      top_add(tx, udccp_seq_add(hi, -2));
    }
  } /* else: hi (and what is below it) cannot enter a full top three */
  /* After the top three: a late packet's reordering degree is measured
   * from this ack's newest. */
  ccid2_late_acked(tx, hi, lo);
  if (tx->n == 0) {
    return tx->n_top == 3 && tx->rto_left == 0 && ccid2_undo_idle(tx);
  }
  if (udccp_seq_lt(hi, tx->tail)) {
    /* older runs change nothing any more, but for the late-ack records */
    return tx->n_top == 3 && tx->rto_left == 0 && ccid2_undo_idle(tx);
  }
  head = ccid2_hist_head(tx);
  a = udccp_seq_max(lo, tx->tail);
  b = udccp_seq_min(hi, head);
  if (udccp_seq_gt(a, b)) {
    return 0;
  }
  for (q = a;; q = udccp_seq_add(q, 1)) {
    ccid2_ent *e = ccid2_ent_at(tx, q);
    if (!(e->flags & ENT_ACKED)) {
      e->flags |= ENT_ACKED;
      /* §5 (1): once per data packet, and not after it was lost. */
      if ((e->flags & ENT_DATA) && !(e->flags & ENT_LOST)) {
        if (tx->pipe > 0) {
          tx->pipe--;
        }
        c->newly_data++;
        if (tx->cc != NULL && tx->cc->on_acked != NULL) {
          tx->cc->on_acked(tx->ccp, q, state == UDCCP_AV_ECN_MARKED, tx->now);
        }
        if (state == UDCCP_AV_ECN_MARKED) {
          tx->ecn_marks++;
          udccp_ccid2_congestion(tx, q, 0); /* RFC 4341 §5, §7 */
        } else if (!tx->in_recovery || udccp_seq_gt(q, tx->recovery_seq)) {
          c->grow++;
        }
      }
    }
    if (q == b) {
      break;
    }
  }
  return 0;
}

/* The nonce our packet seq carried, or -1 if unknown (§12.2). */
static int nonce_of(uint64_t seq, void *user_data) {
  const ccid2_tx *tx = user_data;
  uint64_t age;
  if (!tx->started || udccp_seq_gt(seq, tx->gss) ||
      udccp_seq_lt(seq, tx->nonce_first)) {
    return -1;
  }
  age = (uint64_t)udccp_seq_sub(tx->gss, seq);
  if (tx->nonces == NULL) {
    return 0; /* no data sent yet: every packet carried nonce 0 */
  }
  if (age >= tx->nonce_bits) {
    return -1; /* overwritten by newer packets */
  }
  return (tx->nonces[(seq & (tx->nonce_bits - 1)) >> 3] >> (seq & 7u)) & 1;
}

/* RFC 4341 §7 SHOULD, RFC 4340 §12.3: a wrong Nonce Echo means a marked or
 * lost packet was reported as received; respond as if the newest packet
 * the ack reports had been marked (one congestion event per window). */
static void check_nonces(ccid2_tx *tx, const udccp_ccid_pkt *pkt) {
  unsigned checked = 0;
  int bad;
  if (!tx->env->ecn || pkt->opts == NULL || pkt->opts->n_ackvec == 0) {
    return;
  }
  bad = udccp_ackvec_nonce_check(pkt->opts, pkt->ack & UDCCP_SEQ_MASK,
                                 nonce_of, tx, &checked);
  tx->nonce_checks += checked;
  if (bad > 0) {
    tx->nonce_mismatches += (uint64_t)bad;
    udccp_ccid2_congestion(tx, pkt->ack & UDCCP_SEQ_MASK, 0);
  }
}


static void exit_slow_start(ccid2_tx *tx) {
  if (tx->cwnd < tx->ssthresh) {
    tx->ssthresh = tx->cwnd < 2 ? 2 : tx->cwnd;
  }
}

/* A policy that owns cwnd (BBR) sets it from its own model after each
 * ack, so CCID 2's per-packet cut for Drop Code 2 and the halving for
 * codes 3..7 would not reach the window: the policy hears of such a
 * packet as lost instead (RFC 4340 §11.7.2: Drop Code 2 is congestion
 * inside the receiving host; 3..7 count as ECN marks, which BBR treats
 * as losses).  Without it a receiver that cannot keep up drops most of
 * what BBR sends while BBR sees a clean path. */
static void cc_dropped(ccid2_tx *tx, uint64_t seq) {
  if (ccid2_cc_owns_cwnd(tx) && tx->cc->on_lost != NULL) {
    tx->cc->on_lost(tx->ccp, seq, tx->now);
  }
}

/* RFC 4340 §11.7 Data Dropped, with the RFC 4341 §5.2 responses.  Returns
 * 1 if the report was relevant (it signals congestion). */
static int data_dropped(ccid2_tx *tx, const udccp_opts *o, uint64_t ackno) {
  uint64_t q = ackno;
  uint32_t n2 = 0;
  int relevant = 0;
  size_t i;
  for (i = 0; i < o->data_dropped_len; i++) {
    uint8_t blk = o->data_dropped[i];
    unsigned run, code, k, k_end;
    int64_t above, depth;
    if (tx->n == 0 || udccp_seq_lt(q, tx->tail)) {
      /* blocks go backwards: this one and the rest are older than the
       * history, so forgotten (§11.7.2: no effect).  A peer's 252-byte
       * option costs what overlaps the history, not 252 blocks of work
       * (issue 12: hostile options are bounded). */
      break;
    }
    if (!(blk & 0x80)) {
      run = (unsigned)(blk & 0x7F) + 1; /* Normal Block */
      q = udccp_seq_add(q, -(int64_t)run);
      continue;
    }
    code = (unsigned)(blk >> 4) & 7u;
    run = (unsigned)(blk & 0x0F) + 1;
    /* only the part of q - run + 1 .. q inside tail .. head is known */
    above = udccp_seq_sub(q, ccid2_hist_head(tx));
    depth = udccp_seq_sub(q, tx->tail); /* >= 0: tested above */
    k = above <= 0 ? 0 : above < (int64_t)run ? (unsigned)above : run;
    k_end = depth < (int64_t)run - 1 ? (unsigned)depth + 1 : run;
    for (; k < k_end; k++) {
      uint64_t s = udccp_seq_add(q, -(int64_t)k);
      ccid2_ent *e;
      if (!hist_has(tx, s)) {
        continue; /* forgotten: the report has no effect (§11.7.2) */
      }
      e = ccid2_ent_at(tx, s);
      /* Only packets reported received can be Data Dropped (§11.7). */
      if (!(e->flags & ENT_DATA) || !(e->flags & ENT_ACKED) ||
          (e->flags & ENT_DROP)) {
        continue;
      }
      e->flags |= ENT_DROP;
      switch (code) {
      case 0: /* Protocol Constraints: as received (§11.7.2) */
      case 1: /* Application Not Listening: no congestion meaning */
        break;
      case 2: /* Receive Buffer: RFC 4341 §5.2 */
        n2++;
        relevant = 1;
        cc_dropped(tx, s);
        break;
      default: /* 3..7: as if ECN marked (§11.7.2) */
        relevant = 1;
        cc_dropped(tx, s);
        udccp_ccid2_congestion(tx, s, 0);
        break;
      }
    }
    q = udccp_seq_add(q, -(int64_t)run);
  }
  /* §11.7.1: the Data Dropped reduction adds to the loss response. */
  if (n2 > 0) {
    udccp_ccid2_undo_forget(tx); /* a cut the undo must not reverse */
    tx->cwnd = tx->cwnd > n2 ? tx->cwnd - n2 : 1;
    ack_ratio_clamp(tx);
  }
  if (relevant) {
    exit_slow_start(tx); /* RFC 4341 §5.2 MUST */
  }
  return relevant;
}

static void cwnd_limit(ccid2_tx *tx) {
  if (tx->cwnd > UDCCP_CCID2_CWND_MAX) {
    tx->cwnd = UDCCP_CCID2_CWND_MAX;
  }
  /* RFC 4340 §7.5.2: we MUST NOT persistently send more than Sequence
   * Window/A packets per RTT (the connection widens it as cwnd grows). */
  if (tx->env->seq_window_out > 0 && tx->cwnd > tx->env->seq_window_out) {
    tx->cwnd = (uint32_t)tx->env->seq_window_out;
  }
  ack_ratio_clamp(tx);
}

/* This ack's RTT in *r: now less the send time of the packet it
 * acknowledges, less the Elapsed Time the receiver reports (RFC 4340
 * §13.2, the receiver held the ack this long); 0, or -1 if that packet is
 * not ours or not known (nothing sent yet: no history allocated). */
static inline int ack_rtt(ccid2_tx *tx, const udccp_ccid_pkt *pkt,
                          udccp_tstamp ts, udccp_tstamp *r) {
  uint64_t ackno = pkt->ack & UDCCP_SEQ_MASK;
  ccid2_ent *e;
  if (tx->cap == 0 || !tx->started) {
    return -1;
  }
  e = ccid2_ent_at(tx, ackno);
  if (e->seq != ackno || !(e->flags & ENT_SENT) ||
      udccp_seq_gt(ackno, tx->gss) || ts < e->sent) {
    return -1;
  }
  *r = ts - e->sent;
  if (pkt->opts && (pkt->opts->present & UDCCP_OPTS_HAS_ELAPSED)) {
    udccp_tstamp el = (udccp_tstamp)pkt->opts->elapsed_time * 10000u;
    if (el < *r) {
      *r -= el;
    }
  }
  return 0;
}

/* RFC 4341 §5 increase rules; RFC 2861: no growth unless the window was
 * used in this or the previous RTT; RFC 4340 §11.6: none for an RTT after
 * Slow Receiver. */
static void grow(ccid2_tx *tx, uint32_t acked, const udccp_ccid_pkt *pkt,
                 udccp_tstamp ts) {
  if (acked == 0 || ts < tx->slow_rcv_until || ccid2_cc_owns_cwnd(tx)) {
    return;
  }
  if (!tx->full_cur && !tx->full_prev) {
    return;
  }
  if (tx->cwnd < tx->ssthresh) {
    /* RFC 4341 §5 slow start as Appropriate Byte Counting (RFC 3465):
     * count the packets an ack newly acknowledges, not the acks.  L = 2
     * (§2.2) lets a TCP delayed ack, which covers two segments, add two;
     * a DCCP ack covers Ack Ratio packets, so the limit per ack is
     * L x Ack Ratio / 2 (rounded up, at least 1).  What is above it (an
     * ack after lost acks) is not carried over: no bigger bursts. */
    uint32_t maxinc = (UDCCP_CCID2_ABC_L * tx->ar + 1) / 2;
    uint32_t inc;
    if (maxinc < 1) {
      maxinc = 1;
    }
    inc = acked < maxinc ? acked : maxinc;
    if (tx->cc != NULL && tx->cc->on_ss_ack != NULL) {
      udccp_ccid2_win w;
      udccp_tstamp r = 0;
      if (ack_rtt(tx, pkt, ts, &r) != 0) {
        r = 0;
      }
      ccid2_cc_win(tx, &w);
      inc = tx->cc->on_ss_ack(tx->ccp, &w, inc, r, pkt->ack & UDCCP_SEQ_MASK,
                              tx->gss, ts);
      ccid2_cc_unwin(tx, &w);
    }
    tx->cwnd += inc;
    if (tx->cwnd > tx->ssthresh) {
      tx->cwnd = tx->ssthresh;
    }
  } else if (tx->cc != NULL) {
    udccp_ccid2_win w;
    ccid2_cc_win(tx, &w);
    tx->cc->on_ca_ack(tx->ccp, &w, acked, ts);
    ccid2_cc_unwin(tx, &w);
  } else {
    tx->ca_acked += acked;
    while (tx->ca_acked >= tx->cwnd) {
      tx->ca_acked -= tx->cwnd;
      tx->cwnd++;
    }
  }
  cwnd_limit(tx);
}

static void take_rtt_sample(ccid2_tx *tx, const udccp_ccid_pkt *pkt,
                            udccp_tstamp ts) {
  uint64_t ackno = pkt->ack & UDCCP_SEQ_MASK;
  udccp_tstamp r;
  if (tx->have_rtt_next && udccp_seq_lt(ackno, tx->rtt_next)) {
    return;
  }
  if (ack_rtt(tx, pkt, ts, &r) != 0) {
    return;
  }
  rtt_sample(tx, r);
  /* RFC 4341 §5 (3): at most one sample per window of data. */
  tx->rtt_next = udccp_seq_add(tx->gss, 1);
  tx->have_rtt_next = 1;
}

void udccp_ccid2_tx_set_general(udccp_ccid_state *st, int on) {
  tx_of(st)->general = (uint8_t)(on != 0);
}

/* 1 if the ack pkt is the usual one (issue 13), which ack_fast handles:
 * Reno (no policy), data sent, ECN off (no nonce to check, §12.2) and no
 * CE mark on the ack (§6.1.1), no Slow Receiver or Data Dropped (§5.2),
 * no loss a timeout declared (losses the NUMDUPACK rule declared may
 * wait for a late ack: ack_fast reads the vector for them); the peer's
 * packets in order (rp_track's in-order case: the next number after
 * rp_high, the three before it seen, everything below judged, the usual
 * threshold: nothing newly lost, §6.1.1); one Ack Vector, checked, whose
 * first run (§11.4) is State 0 (received), at least 3 long, reaches down
 * to the history's tail and has its top (the Acknowledgement Number) at
 * or above the tail and above every number acked before (so that it sets
 * the top three, and every later run lies below the tail: av_run would
 * change nothing for them). */
static inline int ack_fast_ok(const ccid2_tx *tx, const udccp_ccid_pkt *pkt) {
  const udccp_opts *o = pkt->opts;
  uint64_t hi, lo;
  uint8_t b0;
  if (tx->general || tx->cc != NULL || !tx->sent_any || !pkt->has_ack ||
      o == NULL || o->n_ackvec != 1 || o->ackvec[0].len == 0 ||
      (o->present & (UDCCP_OPTS_AV_CHECKED | UDCCP_OPTS_HAS_SLOW_RECEIVER |
                     UDCCP_OPTS_HAS_DATA_DROPPED)) != UDCCP_OPTS_AV_CHECKED ||
      o->slow_receiver || pkt->ecn == 3 || tx->env->ecn ||
      tx->rto_left != 0 || tx->n == 0 || tx->n_top != 3 ||
      !tx->rp_started || tx->rp_thresh != UDCCP_CCID2_NUMDUPACK ||
      (tx->rp_seen & 7u) != 7u ||
      (pkt->seq & UDCCP_SEQ_MASK) != udccp_seq_add(tx->rp_high, 1) ||
      tx->rp_judged != udccp_seq_add(tx->rp_high, -3)) {
    return 0;
  }
  b0 = o->ackvec[0].val[0];
  if ((b0 >> 6) != UDCCP_AV_RECEIVED || (b0 & 0x3F) < 2) {
    return 0;
  }
  hi = pkt->ack & UDCCP_SEQ_MASK;
  lo = udccp_seq_add(hi, -(int64_t)(b0 & 0x3F));
  return !udccp_seq_lt(hi, tx->top[0]) && !udccp_seq_lt(hi, tx->tail) &&
         udccp_seq_le(lo, tx->tail);
}

/* The Ack Vector's runs after the first (all below the history's tail):
 * av_run only shows the received ones (states 0 and 1) to the record of
 * losses a late ack may undo, up to the first after which none waits
 * (ccid2_loss.c). */
static void ack_fast_late(ccid2_tx *tx, const udccp_opt *av, uint64_t cur) {
  size_t j;
  for (j = 1; j < av->len; j++) {
    uint8_t st = (uint8_t)(av->val[j] >> 6);
    uint64_t lo = udccp_seq_add(cur, -(int64_t)(av->val[j] & 0x3F));
    if (st == UDCCP_AV_RECEIVED || st == UDCCP_AV_ECN_MARKED) {
      udccp_ccid2_late_acked(tx, cur, lo);
      if (ccid2_undo_idle(tx)) {
        return;
      }
    }
    cur = udccp_seq_add(lo, -1);
  }
}

/* tx_on_pkt for the ack ack_fast_ok accepted, with the same effects:
 * rp_track's in-order step (nothing lost, §6.1.1), the top three from
 * the Ack Number, the first run's packets from the tail up resolved
 * (§5 (1): pipe -1 per data packet newly acked, the growth credit), the
 * tail moved past them, then the steps that follow the Ack Vector walk
 * as in the general path. */
static int ack_fast(ccid2_tx *tx, const udccp_ccid_pkt *pkt,
                    udccp_tstamp ts) {
  uint64_t hi = pkt->ack & UDCCP_SEQ_MASK, head = ccid2_hist_head(tx);
  uint64_t b = udccp_seq_min(hi, head), q = tx->tail;
  uint32_t newly = 0, growth = 0;
  unsigned ev0 = tx->events;
  tx->rp_seen = tx->rp_seen << 1 | 1u;
  tx->rp_high = pkt->seq & UDCCP_SEQ_MASK;
  tx->rp_judged = udccp_seq_add(tx->rp_high, -3);
  cwv_tick(tx, ts);
  tx->top[0] = hi;
  tx->top[1] = udccp_seq_add(hi, -1);
  tx->top[2] = udccp_seq_add(hi, -2);
  if (tx->undo != NULL) {
    /* as av_run: before the run's packets are marked */
    udccp_ccid2_late_acked(
        tx, hi,
        udccp_seq_add(hi, -(int64_t)(pkt->opts->ackvec[0].val[0] & 0x3F)));
  }
  for (;; q = udccp_seq_add(q, 1)) {
    ccid2_ent *e = ccid2_ent_at(tx, q);
    if (!(e->flags & ENT_ACKED)) {
      e->flags |= ENT_ACKED;
      if ((e->flags & ENT_DATA) && !(e->flags & ENT_LOST)) {
        if (tx->pipe > 0) {
          tx->pipe--;
        }
        newly++;
        if (!tx->in_recovery || udccp_seq_gt(q, tx->recovery_seq)) {
          growth++;
        }
      }
    }
    if (q == b) {
      break;
    }
  }
  if (tx->undo != NULL) {
    ack_fast_late(
        tx, &pkt->opts->ackvec[0],
        udccp_seq_add(hi, -(int64_t)(pkt->opts->ackvec[0].val[0] & 0x3F) - 1));
    udccp_ccid2_undo_check(tx);
  }
  ccid2_detect_losses(tx);
  /* The calls below made only when they have work (issue 13): grow's
   * early answers (nothing acked, Slow Receiver's RTT, RFC 2861's unused
   * window; Reno here), one RTT sample per window (§5 (3)), Ack Ratio 2
   * with cwnd >= 4 (ack_ratio_decay's first test). */
  if (tx->events == ev0 && growth > 0 && ts >= tx->slow_rcv_until &&
      (tx->full_cur || tx->full_prev)) {
    grow(tx, growth, pkt, ts);
  }
  if (!tx->have_rtt_next || !udccp_seq_lt(hi, tx->rtt_next)) {
    take_rtt_sample(tx, pkt, ts);
  }
  /* RFC 6298 §5.2, §5.3 */
  if (tx->pipe == 0) {
    tx->rto_deadline = UDCCP_TSTAMP_NEVER;
  } else if (newly > 0) {
    tx->rto_deadline = add_ts(ts, tx->rto);
  }
  hist_advance(tx);
  if (tx->ar != 2 || tx->cwnd < 4) {
    ack_ratio_decay(tx, ts);
  }
  tx_env_update(tx);
  return 0;
}

/* tx_on_pkt for every packet but the one it answers itself (below); out
 * of line so that that one does not pay for this one's registers. */
static __attribute__((noinline)) int tx_on_pkt_any(ccid2_tx *tx,
                                                   const udccp_ccid_pkt *pkt,
                                                   udccp_tstamp ts) {
  const udccp_opts *o = pkt->opts;
  ccid2_ackctx c;
  unsigned ev0 = tx->events;
  unsigned ack_lost;
  int rc = 0, dropped = 0;

  if (ack_fast_ok(tx, pkt)) {
    return ack_fast(tx, pkt, ts);
  }
  /* RFC 4341 §6.1.1: lost or marked packets from the receiver.  Ack
   * Ratio only matters to a half-connection that carries data: a
   * quiescent sender would renegotiate for nothing, so the peer's numbers
   * are tracked from our first data packet on (before it, the tracking
   * judged nothing anyone used; issue 13). */
  ack_lost = tx->sent_any ? rp_track(tx, pkt->seq & UDCCP_SEQ_MASK) : 0;
  if (tx->sent_any &&
      (ack_lost > 0 || (pkt->ecn == 3 && is_nondata_type(pkt->type)))) {
    ack_congestion(tx, ts);
  }
  if (o && (o->slow_receiver || (o->present & UDCCP_OPTS_HAS_SLOW_RECEIVER))) {
    /* RFC 4341 §5.2; RFC 4340 §11.6: no increase for an RTT. */
    exit_slow_start(tx);
    tx->slow_rcv_until = add_ts(ts, rtt_or_default(tx));
  }
  if (!pkt->has_ack) { /* §11.4: Ack Vectors only with an Ack Number */
    /* Only Ack Ratio may have moved (ack_congestion): no RTT sample,
     * no loss without an ack (every Data packet, issue 13). */
    tx->env->want_ack_ratio = tx->ar != tx->env->ack_ratio ? tx->ar : 0;
    return 0;
  }
  cwv_tick(tx, ts);

  c.tx = tx;
  c.newly_data = 0;
  c.grow = 0;
  if (o && o->n_ackvec > 0) {
    /* A half-connection that never sent data (a pure receiver, whose
     * packets are its acks) has nothing the walk could resolve: its
     * history holds no data and no nonces (nonce_room), so the vector is
     * only checked (§11.4: no reserved state), not walked (issue 13). */
    rc = udccp_ackvec_check(o);
    if (rc == 0 && tx->sent_any) {
      udccp_ackvec_walk(o, pkt->ack, av_run, &c);
    }
  }
  if (rc == 0) {
    if (tx->sent_any) {
      check_nonces(tx, pkt);
    }
    ccid2_undo_check(tx);
    ccid2_detect_losses(tx);
    if (o && (o->present & UDCCP_OPTS_HAS_DATA_DROPPED)) {
      dropped = data_dropped(tx, o, pkt->ack & UDCCP_SEQ_MASK);
    }
    /* An ack reporting congestion (loss, mark, receiver drop) does not
     * also open the window. */
    if (tx->events == ev0 && !dropped) {
      grow(tx, c.grow, pkt, ts);
    }
    take_rtt_sample(tx, pkt, ts);
    if (ccid2_cc_owns_cwnd(tx)) {
      udccp_ccid2_win w;
      ccid2_cc_win(tx, &w);
      tx->cc->on_ack(tx->ccp, &w, ts);
      ccid2_cc_unwin(tx, &w);
      cwnd_limit(tx);
    }
  }
  /* RFC 6298 §5.2, §5.3 */
  if (tx->pipe == 0) {
    tx->rto_deadline = UDCCP_TSTAMP_NEVER;
  } else if (c.newly_data > 0) {
    tx->rto_deadline = add_ts(ts, tx->rto);
  }
  hist_advance(tx);
  ack_ratio_decay(tx, ts);
  tx_env_update(tx);
  return rc;
}

int udccp_ccid2_tx_on_pkt(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                           udccp_tstamp ts) {
  ccid2_tx *tx = tx_of(st);
  const udccp_opts *o = pkt->opts;
  tx->now = ts;
  /* A packet without an ackno to a half that never sent data (every Data
   * packet a pure receiver gets, issue 13): nothing to track (rp_track
   * starts with our first data packet, §6.1.1), no ack to read; only a
   * Slow Receiver option (§5.2) would act.  What tx_on_pkt_any does for
   * it, without its set-up (tests: udccp_ccid2_tx_set_general sends it
   * there). */
  if (!pkt->has_ack && !tx->sent_any && !tx->general &&
      !(o && (o->slow_receiver ||
              (o->present & UDCCP_OPTS_HAS_SLOW_RECEIVER)))) {
    tx->env->want_ack_ratio = tx->ar != tx->env->ack_ratio ? tx->ar : 0;
    return 0;
  }
  return tx_on_pkt_any(tx, pkt, ts);
}

udccp_tstamp udccp_ccid2_tx_get_expiry(const udccp_ccid_state *st) {
  const ccid2_tx *tx = ctx_of(st);
  return tx->pipe > 0 ? tx->rto_deadline : UDCCP_TSTAMP_NEVER;
}

/* RFC 4341 §5 (3) and RFC 6298 §5.4-5.6. */
void udccp_ccid2_tx_on_expiry(udccp_ccid_state *st, udccp_tstamp ts) {
  ccid2_tx *tx = tx_of(st);
  if (tx->pipe == 0 || tx->rto_deadline == UDCCP_TSTAMP_NEVER ||
      ts < tx->rto_deadline) {
    return;
  }
  /* RFC 5681 §3.1 (RFC 4341 §5 follows TCP): a timeout while backing off
   * (no ack since the last one) keeps ssthresh; halving the cwnd of 1
   * again would leave ssthresh at 2, and a path back from a blackout
   * would be probed +1 per RTT instead of by slow start. */
  if (tx->cc != NULL) {
    udccp_ccid2_win w;
    ccid2_cc_win(tx, &w);
    tx->cc->on_timeout(tx->ccp, &w, tx->backoff > 0, ts);
    tx->ssthresh = w.ssthresh < 2 ? 2 : w.ssthresh;
  } else if (tx->backoff == 0) {
    tx->ssthresh = tx->cwnd / 2 < 2 ? 2 : tx->cwnd / 2;
  }
  tx->cwnd = 1;
  udccp_ccid2_timeout_losses(tx);
  tx->pipe = 0;
  tx->in_recovery = 1;
  tx->recovery_seq = tx->gss;
  tx->ca_acked = 0;
  tx->events++;
  tx->rto *= 2;
  if (tx->rto > UDCCP_CCID2_RTO_MAX) {
    tx->rto = UDCCP_CCID2_RTO_MAX;
  }
  tx->backoff++;
  tx->rto_deadline = UDCCP_TSTAMP_NEVER; /* rearmed by the next packet */
  tx->full_cur = tx->full_prev = 0;
  hist_advance(tx);
  ack_ratio_clamp(tx);
  tx_env_update(tx);
}

void udccp_ccid2_tx_get_info(const udccp_ccid_state *st,
                              udccp_conn_info *info) {
  const ccid2_tx *tx = ctx_of(st);
  info->cwnd = tx->cwnd;
  info->ssthresh = tx->ssthresh;
  info->pipe = tx->pipe;
  info->srtt = tx->have_rtt ? tx->srtt : 0;
  info->rttvar = tx->have_rtt ? tx->rttvar : 0;
  info->min_rtt = tx->have_rtt ? tx->min_rtt : 0;
  info->rto = tx->rto;
  info->ack_ratio = tx->ar;
  info->pkts_lost = tx->pkts_lost;
  info->ecn_marks = tx->ecn_marks;
  info->nonce_checks = tx->nonce_checks;
  info->nonce_mismatches = tx->nonce_mismatches;
}

uint32_t udccp_ccid2_tx_cwnd(const udccp_ccid_state *st) {
  return ctx_of(st)->cwnd;
}

/* RFC 4341 §4: Ack Vectors are mandatory.  Ack Ratio 2 is the RFC 4340
 * §11.3 default, named here for completeness; the sender changes it. */
const udccp_ccid_dep udccp_ccid2_deps[UDCCP_CCID2_N_DEPS] = {
    {UDCCP_FEAT_SEND_ACK_VECTOR, 1, 1, 1},
    {UDCCP_FEAT_ACK_RATIO, 0, 0, 2},
};

const udccp_ccid_ops udccp_ccid2_ops = {
    .id = 2,
    .name = "TCP-like (CCID 2)",
    .deps = udccp_ccid2_deps,
    .n_deps = UDCCP_CCID2_N_DEPS,
    .tx_size = sizeof(ccid2_tx),
    .rx_size = UDCCP_CCID2_RX_STATE_SIZE,
    .tx_init = ccid2_tx_init,
    .tx_exit = udccp_ccid2_tx_exit,
    .tx_next_send = udccp_ccid2_tx_next_send,
    .tx_ccval = NULL, /* RFC 4341 §3.2: CCVal is zero */
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

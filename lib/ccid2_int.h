/* SPDX-License-Identifier: MIT */
/*
 * CCID 2's sender state, shared by the files of the module:
 *   lib/ccid2.c       the window (RFC 4341 §5), Ack Ratio (§6), RTT and
 *                     timeout, pacing, ECN, Data Dropped; the ops table
 *   lib/ccid2_loss.c  which packets are lost (§5 NUMDUPACK, timeouts), and
 *                     undoing a loss that a late ack proves spurious
 *   lib/ccid2_rx.c    the receiver half (its own state)
 * Not a public header: nothing outside these files includes it.
 */
#ifndef UDCCP_CCID2_INT_H
#define UDCCP_CCID2_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ccid2.h"
#include "seq.h"

/* History entry flags. */
#define ENT_SENT 0x01u /* seen by tx_on_sent: `sent` is valid */
#define ENT_DATA 0x02u
#define ENT_ACKED 0x04u /* reported in state 0 or 1 */
#define ENT_LOST 0x08u
#define ENT_DROP 0x10u /* its Data Dropped report was processed */

typedef struct ccid2_ent {
  uint64_t seq;
  udccp_tstamp sent;
  uint8_t flags;
} ccid2_ent;

typedef struct ccid2_tx {
  udccp_ccid_env *env;
  const udccp_mem *mem;
  /* Ring indexed by seq & (cap - 1): our packets tail .. tail + n - 1.
   * Everything before tail is resolved (acked, lost, or non-data). */
  ccid2_ent *ring;
  size_t cap;
  uint64_t tail;
  size_t n;
  uint64_t gss;       /* newest sequence number sent */
  uint64_t loss_scan; /* data packets before this were judged */
  uint64_t top[3];    /* the three newest seqs acked, newest first */
  int started;
  unsigned n_top;

  uint32_t cwnd, ssthresh, pipe, iw; /* packets */
  uint32_t ca_acked;                 /* growth credit, packets */
  int in_recovery;
  uint64_t recovery_seq; /* gss when the last congestion event began */
  unsigned events;       /* congestion events so far */

  /* RFC 6298 estimator, ns */
  int have_rtt;
  udccp_tstamp srtt, rttvar, rto, min_rtt;
  udccp_tstamp rtt_use;  /* srtt, or UDCCP_CCID2_DEFAULT_RTT before a
                            sample: rtt_or_default, kept by rtt_sample */
  unsigned backoff;
  int have_rtt_next;
  uint64_t rtt_next; /* next sample only from an ack at or after this */
  udccp_tstamp rto_deadline;

  /* RFC 2861 */
  int sent_any;
  uint32_t w_used;
  int full_cur, full_prev;
  udccp_tstamp last_data_sent;
  udccp_tstamp cwv_start;
  udccp_tstamp slow_rcv_until;

  /* Pacing (RFC 4341 §5 MAY): earliest time of the next data packet, and
   * whether the sender is currently held back by it (then a late wake-up
   * may catch up). */
  udccp_tstamp pace_next;
  int paced;

  /* Ack Ratio, RFC 4341 §6.1.2 */
  uint32_t ar;
  udccp_tstamp ar_changed, ar_clean_start;

  /* The peer's sequence numbers, RFC 4341 §6.1.1: bit i of rp_seen is
   * rp_high - i; every number up to rp_judged has been judged. */
  int rp_started;
  /* In what was padding: the threshold of §6.1.1 (NUMDUPACK, raised by
   * reordered acks), Ack Ratio's flag, and dupthresh (below). */
  uint8_t rp_thresh;
  uint8_t ar_changed_valid;
  uint16_t dupthresh;
  uint64_t rp_high, rp_judged, rp_seen;

  uint64_t pkts_lost;
  udccp_tstamp now; /* of the call in progress (for the window policy) */

  /* Data packets a timeout declared lost (every one in flight, RFC 4341
   * §5, RFC 6298 §5.5) that a late ack may still report received, e.g.
   * after a receiver that stalled for seconds: the ack takes them off
   * pkts_lost again (as CCID 3's count does), so that a sender's loss
   * figure is not the stall's.  Bit i is sequence number rto_base + i;
   * allocated at a timeout, freed once every bit is cleared or replaced;
   * at most RTO_LOST_BITS. */
  uint64_t *rto_bits;
  uint64_t rto_base;
  uint32_t rto_nbits, rto_left;

  /* Reordering (lib/ccid2_loss.c): dupthresh (above), the loss
   * threshold in packets (NUMDUPACK until a loss proved spurious, RFC
   * 4341 §5; then the reordering degree seen, as Linux's tp->reordering
   * and RFC 4653); the record of the NUMDUPACK rule's losses a late ack
   * may undo (NULL while there is none). */
  struct ccid2_undo *undo;

  /* ECN nonces (RFC 4340 §12.2, RFC 4341 §7): bit seq & (nonce_bits - 1)
   * is the nonce our packet seq carried, known for the last nonce_bits
   * packets from nonce_first on.  Memory on demand (issue 13): no bitmap
   * until the first data packet (all nonces before it are 0), then one
   * that doubles with the packets sent, up to NONCE_BITS.  Only while
   * ECN is on (nonce_on): without it every packet is Not-ECT, carries no
   * nonce (RFC 3540 §2) and check_nonces reads none, so the bitmap is
   * neither kept nor allocated (issue 13: ECN is off by default); when
   * ECN comes on, the record starts again from that packet. */
  uint8_t *nonces;
  uint32_t nonce_bits;
  uint8_t nonce_on;
  /* Tests: every ack through the general path of tx_on_pkt, not its
   * fast path (udccp_ccid2_tx_set_general). */
  uint8_t general;
  uint64_t nonce_first;
  uint64_t ecn_marks, nonce_checks, nonce_mismatches;

  /* Window policy (ccid2.h): NULL is RFC 4341 §5 (Reno); CUBIC
   * (lib/ccid_cubic.c) replaces growth and reduction. */
  const udccp_ccid2_cc *cc;
  union {
    double d;
    uint64_t u;
    uint8_t b[UDCCP_CCID2_CC_STATE_SIZE];
  } ccst;
  void *ccp; /* the policy's state: ccst, or after this struct (BBR) */
} ccid2_tx;

#define NONCE_BITS (1u << 16)
#define RTO_LOST_BITS (1u << 16) /* 8 KiB */

_Static_assert(sizeof(ccid2_tx) <= UDCCP_CCID2_TX_STATE_SIZE, "tx state size");
_Static_assert(UDCCP_CCID2_TX_STATE_SIZE <= UDCCP_CCID_STATE_SIZE,
               "tx state size");

/* ------------------------------------------------------------ history */

static inline ccid2_ent *ccid2_ent_at(ccid2_tx *tx, uint64_t seq) {
  return &tx->ring[seq & (tx->cap - 1)];
}

static inline uint64_t ccid2_hist_head(const ccid2_tx *tx) {
  return udccp_seq_add(tx->tail, (int64_t)tx->n - 1);
}

/* A data packet neither acked nor lost yet. */
static inline int ccid2_unresolved(const ccid2_ent *e) {
  return (e->flags & ENT_DATA) && !(e->flags & (ENT_ACKED | ENT_LOST));
}

/* Packet seq sent at ts (flags ENT_*): its entry at the head of the
 * history, the numbers skipped over as non-data, the history grown (or
 * its oldest packets given up) as needed; a seq not newer than the head
 * is ignored. */
void udccp_ccid2_hist_push_any(ccid2_tx *tx, uint64_t seq, udccp_tstamp ts,
                               uint8_t flags);
/* Its usual cases inline (every packet sent, issue 13): the packet
 * after the head with a free slot (n < cap; n > 0 only once started),
 * or the first after the history emptied (n == 0, cap > 0: a receiver's
 * acks, each resolved before the next), which starts it again at seq:
 * what the general path does then, for one number; or the 1-entry
 * history of a receiver whose one entry needs no slot any more (an ack
 * of ours, not yet passed by an ack of the peer: acks of acks come after
 * several Data packets, conn.h UDCCP_CONN_ACKACK_EVERY), outside
 * recovery: the general path advances past it, which empties the
 * history, and starts again at seq (a newer one: an older one is
 * ignored there). */
static inline int ccid2_hist_push_fast(const ccid2_tx *tx, uint64_t seq) {
  if (tx->n == 0) {
    return tx->cap > 0;
  }
  if (tx->n < tx->cap) {
    return seq == udccp_seq_add(tx->tail, (int64_t)tx->n);
  }
  return tx->cap == 1 && !tx->in_recovery &&
         !ccid2_unresolved(&tx->ring[0]) && udccp_seq_gt(seq, tx->tail);
}
/* The inline push itself, for a packet ccid2_hist_push_fast accepted. */
static inline void ccid2_hist_put(ccid2_tx *tx, uint64_t seq,
                                  udccp_tstamp ts, uint8_t flags) {
  ccid2_ent *e;
  if (tx->n == tx->cap) {
    tx->n = 0; /* the 1-entry case: its entry left */
  }
  if (tx->n == 0) {
    tx->started = 1;
    tx->tail = seq;
    tx->loss_scan = seq;
  }
  e = ccid2_ent_at(tx, seq);
  e->seq = seq;
  e->sent = ts;
  e->flags = flags;
  tx->n++;
}
static inline void ccid2_hist_push(ccid2_tx *tx, uint64_t seq,
                                   udccp_tstamp ts, uint8_t flags) {
  if (!ccid2_hist_push_fast(tx, seq)) {
    udccp_ccid2_hist_push_any(tx, seq, ts, flags);
    return;
  }
  ccid2_hist_put(tx, seq, ts, flags);
}

/* ------------------------------------------------------------ policy */

static inline void ccid2_cc_win(const ccid2_tx *tx, udccp_ccid2_win *w) {
  w->cwnd = tx->cwnd;
  w->ssthresh = tx->ssthresh;
  w->pipe = tx->pipe;
  w->srtt = tx->have_rtt ? tx->srtt : 0;
  w->min_rtt = tx->have_rtt ? tx->min_rtt : 0;
}

static inline void ccid2_cc_unwin(ccid2_tx *tx, const udccp_ccid2_win *w) {
  tx->cwnd = w->cwnd < 1 ? 1 : w->cwnd;
  tx->ssthresh = w->ssthresh < 2 ? 2 : w->ssthresh;
}

/* A rate-based policy (ccid2.h on_ack: BBR) sets cwnd itself. */
static inline int ccid2_cc_owns_cwnd(const ccid2_tx *tx) {
  return tx->cc != NULL && tx->cc->on_ack != NULL;
}

/* ------------------------------------------------ lib/ccid2.c for the others */

/* RFC 4341 §5: a loss or mark of packet seq; a new congestion event unless
 * it belongs to the current one.  undoable: a loss the NUMDUPACK rule
 * inferred and ccid2_loss.c recorded, which a late ack may prove
 * spurious; 0 for marks, drops and losses nothing can undo. */
void udccp_ccid2_congestion(ccid2_tx *tx, uint64_t seq, int undoable);
void udccp_ccid2_ack_ratio_clamp(ccid2_tx *tx);

/* ------------------------------------------------ lib/ccid2_loss.c */

/* Packet e is lost (RFC 4341 §5): pipe -1, counted, a congestion event.
 * by_dupack: the NUMDUPACK rule inferred it (a late ack may undo it). */
void udccp_ccid2_lose(ccid2_tx *tx, ccid2_ent *e, int by_dupack);
/* RFC 4341 §5 (2), with the reordering threshold: after the Ack Vector
 * walk. */
void udccp_ccid2_detect_losses(ccid2_tx *tx);
/* An Ack Vector run hi..lo in state 0 or 1 (RFC 4340 §11.4): packets a
 * timeout or the NUMDUPACK rule declared lost arrived after all. */
void udccp_ccid2_late_acked(ccid2_tx *tx, uint64_t hi, uint64_t lo);
/* 1 if no loss the NUMDUPACK rule declared awaits a late ack. */
int udccp_ccid2_undo_idle(const ccid2_tx *tx);
/* After the walk: undoes the current congestion event if every loss
 * that made it was reported received (RFC 4015). */
void udccp_ccid2_undo_check(ccid2_tx *tx);
/* The current congestion event may no longer be undone (a timeout, or a
 * window cut that was not a loss). */
void udccp_ccid2_undo_forget(ccid2_tx *tx);
/* A new congestion event begins with packet seq (cwnd and ssthresh still
 * as before it), or packet seq joins the current one. */
void udccp_ccid2_undo_event(ccid2_tx *tx, uint64_t seq, int undoable,
                            int new_event);
/* RFC 4341 §5 (3): a timeout declares every packet in flight lost. */
void udccp_ccid2_timeout_losses(ccid2_tx *tx);
void udccp_ccid2_loss_free(ccid2_tx *tx);
/* Tests: the size of the record tx->undo points to (to copy a state). */
size_t udccp_ccid2_undo_size(void);

/* The calls above that every ack makes, answered here while they have
 * nothing to do: no loss to undo and none a timeout declared (undo NULL,
 * rto_left 0), fewer than NUMDUPACK packets acked or nothing in flight
 * (issue 13). */
static inline void ccid2_late_acked(ccid2_tx *tx, uint64_t hi, uint64_t lo) {
  if (tx->rto_left > 0 || tx->undo != NULL) {
    udccp_ccid2_late_acked(tx, hi, lo);
  }
}
static inline int ccid2_undo_idle(const ccid2_tx *tx) {
  return tx->undo == NULL || udccp_ccid2_undo_idle(tx);
}
static inline void ccid2_undo_check(ccid2_tx *tx) {
  if (tx->undo != NULL) {
    udccp_ccid2_undo_check(tx);
  }
}
/* detect_losses judges the packets from max(loss_scan, tail) up to the
 * third-newest acked one (top[2], or lower with a raised threshold):
 * with loss_scan at or past both, it has nothing to judge and leaves
 * everything as it was -- the usual ack, whose top[2] the previous ack
 * had passed already (Ack Ratio 2: top[2] moves by 2, the previous scan
 * and the tail by as much; issue 13). */
static inline int ccid2_losses_pending(const ccid2_tx *tx) {
  return tx->n_top >= UDCCP_CCID2_NUMDUPACK && tx->n > 0 &&
         (udccp_seq_lt(tx->loss_scan, tx->top[UDCCP_CCID2_NUMDUPACK - 1]) ||
          udccp_seq_lt(tx->loss_scan, tx->tail));
}
static inline void ccid2_detect_losses(ccid2_tx *tx) {
  if (ccid2_losses_pending(tx)) {
    udccp_ccid2_detect_losses(tx);
  }
}

#endif /* UDCCP_CCID2_INT_H */

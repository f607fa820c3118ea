/* SPDX-License-Identifier: MIT */
/*
 * CCID 2: which packets are lost, and undoing a loss a late ack proves
 * spurious.  Rules implemented, by section:
 *
 * RFC 4341 §5 (2)  P is lost once NUMDUPACK (3) packets sent after it, data
 *                  or not, are acknowledged; pipe -1 (never twice, never
 *                  for non-data packets, not again when P is acked late:
 *                  ENT_LOST in the history, and late acks of packets the
 *                  history no longer holds change nothing but the records
 *                  below).
 * §5 (3)           A timeout declares every packet in flight lost.
 * §5               "CCID 2 behaves like TCP with SACK": what TCP does when
 *                  reordering, not loss, fired its duplicate-ack rule:
 * RFC 3522, RFC 4015 (Eifel detection and response; Linux's DSACK undo)
 *                  A loss inferred by the NUMDUPACK rule is recorded; an
 *                  Ack Vector reporting the packet received after all
 *                  (state 0 or 1, RFC 4340 §11.4) takes it off pkts_lost.
 *                  When every loss that made a congestion event is so
 *                  reported, the event was spurious: cwnd and ssthresh
 *                  return to their values before it (RFC 4015 §3.2, as
 *                  Linux's tcp_undo_cwnd_reduction: the larger of now and
 *                  then), with a window policy's state (CUBIC); recovery
 *                  ends.  An event that also holds an ECN mark, a wrong
 *                  nonce, a Data Dropped cut, a timeout or a loss the
 *                  record could not keep is not undone.
 * RFC 4653 (TCP-NCR), Linux's tp->reordering
 *                  Each spurious loss measures the reordering degree: how
 *                  far beyond the packet the acknowledgements had gone
 *                  when it was reported.  The loss threshold (dupthresh,
 *                  NUMDUPACK at first: RFC 4341 exactly while no reordering
 *                  was seen) rises to degree + 1, at most REORDER_MAX,
 *                  and is used at most cwnd/2 (RFC 4653 §3: the extended
 *                  limit stays below a window, so that a real loss is
 *                  still found by acks rather than the timer).  Above
 *                  NUMDUPACK, P is lost once NUMDUPACK packets after it
 *                  are acked and one dupthresh or more after it is (the
 *                  sequence-distance form, as Linux's FACK-style count).
 *                  A timeout while acks had passed a packet the threshold
 *                  held back means the threshold hides losses: it returns
 *                  to NUMDUPACK (Linux tcp_enter_loss).
 */
#include <string.h>

#include "ccid2_int.h"

/* Linux's net.ipv4.tcp_max_reordering. */
#define REORDER_MAX 300u
/* The record of the NUMDUPACK rule's losses covers the UNDO_BITS sequence
 * numbers up to the newest loss (512 bytes, allocated at the first loss,
 * freed once nothing in it can be undone). */
#define UNDO_BITS 4096u
/* A window policy's state the record keeps (CUBIC's is 128 bytes). */
#define UNDO_CC_MAX 128u

typedef struct ccid2_undo {
  uint64_t bits[UNDO_BITS / 64]; /* bit seq & (UNDO_BITS - 1) */
  uint64_t top;                  /* the newest loss recorded */
  uint32_t left;                 /* bits set */
  /* The current congestion event, while it may still be undone: its
   * first loss (every recorded loss from it on is its own: the rule
   * declares losses in sequence order), how many of them no ack has
   * reported yet, and the window before it. */
  int ev_valid;
  uint64_t ev_first;
  uint32_t ev_left;
  uint32_t prior_cwnd, prior_ssthresh;
  int prior_in_recovery;
  uint64_t prior_recovery_seq;
  size_t cc_saved; /* bytes of prior_cc in use */
  uint8_t prior_cc[UNDO_CC_MAX];
} ccid2_undo;

/* ------------------------------------------- losses a late timeout made */

static void rto_lost_free(ccid2_tx *tx) {
  if (tx->rto_bits != NULL) {
    tx->mem->free(tx->rto_bits, tx->mem->user_data);
    tx->rto_bits = NULL;
  }
  tx->rto_nbits = tx->rto_left = 0;
}

static int rto_bit(const ccid2_tx *tx, uint64_t seq) {
  uint64_t i = (uint64_t)udccp_seq_sub(seq, tx->rto_base);
  return i < tx->rto_nbits && ((tx->rto_bits[i >> 6] >> (i & 63)) & 1);
}

/* A timeout is about to declare the packets lo..hi lost: the record
 * grows to cover them (with what it held, newest RTO_LOST_BITS kept).
 * Returns 0, or -1 when it cannot (no memory: they stay counted). */
static int rto_lost_cover(ccid2_tx *tx, uint64_t lo, uint64_t hi) {
  uint64_t base = lo, span, q;
  uint64_t *nb;
  if (tx->rto_bits != NULL && udccp_seq_lt(tx->rto_base, base)) {
    base = tx->rto_base;
  }
  span = (uint64_t)udccp_seq_sub(hi, base) + 1;
  if (span > RTO_LOST_BITS) {
    base = udccp_seq_add(hi, -(int64_t)RTO_LOST_BITS + 1);
    span = RTO_LOST_BITS;
  }
  nb = tx->mem->calloc((size_t)(span + 63) / 64, sizeof(uint64_t),
                       tx->mem->user_data);
  if (nb == NULL) {
    return -1;
  }
  tx->rto_left = 0;
  if (tx->rto_bits != NULL) {
    for (q = 0; q < span; q++) {
      if (rto_bit(tx, udccp_seq_add(base, (int64_t)q))) {
        nb[q >> 6] |= (uint64_t)1 << (q & 63);
        tx->rto_left++;
      }
    }
    tx->mem->free(tx->rto_bits, tx->mem->user_data);
  }
  tx->rto_bits = nb;
  tx->rto_base = base;
  tx->rto_nbits = (uint32_t)span;
  return 0;
}

static void rto_lost_set(ccid2_tx *tx, uint64_t seq) {
  uint64_t i = (uint64_t)udccp_seq_sub(seq, tx->rto_base);
  if (i < tx->rto_nbits) {
    tx->rto_bits[i >> 6] |= (uint64_t)1 << (i & 63);
    tx->rto_left++;
  }
}

/* An ack reports lo..hi received: those a timeout declared lost arrived
 * after all. */
static void rto_lost_undo(ccid2_tx *tx, uint64_t hi, uint64_t lo) {
  uint64_t top = udccp_seq_add(tx->rto_base, (int64_t)tx->rto_nbits - 1);
  uint64_t a = udccp_seq_max(lo, tx->rto_base), b = udccp_seq_min(hi, top);
  uint64_t q;
  if (udccp_seq_gt(a, b)) {
    return;
  }
  for (q = a;; q = udccp_seq_add(q, 1)) {
    uint64_t i = (uint64_t)udccp_seq_sub(q, tx->rto_base);
    uint64_t m = (uint64_t)1 << (i & 63);
    if (tx->rto_bits[i >> 6] & m) {
      tx->rto_bits[i >> 6] &= ~m;
      tx->pkts_lost--;
      tx->rto_left--;
    }
    if (q == b) {
      break;
    }
  }
  if (tx->rto_left == 0) {
    rto_lost_free(tx);
  }
}

void udccp_ccid2_timeout_losses(ccid2_tx *tx) {
  size_t i;
  int undo;
  /* A timeout although NUMDUPACK packets after an unresolved one were
   * acked: the raised threshold held a loss back (Linux tcp_enter_loss
   * lowers tp->reordering for the same reason). */
  if (tx->dupthresh > UDCCP_CCID2_NUMDUPACK && tx->n_top == 3) {
    for (i = 0; i < tx->n; i++) {
      uint64_t s = udccp_seq_add(tx->tail, (int64_t)i);
      if (!udccp_seq_lt(s, tx->top[2])) {
        break;
      }
      if (ccid2_unresolved(ccid2_ent_at(tx, s))) {
        tx->dupthresh = UDCCP_CCID2_NUMDUPACK;
        break;
      }
    }
  }
  udccp_ccid2_undo_forget(tx);
  undo = tx->n > 0 &&
         rto_lost_cover(tx, tx->tail, ccid2_hist_head(tx)) == 0;
  for (i = 0; i < tx->n; i++) {
    ccid2_ent *e = ccid2_ent_at(tx, udccp_seq_add(tx->tail, (int64_t)i));
    if (ccid2_unresolved(e)) {
      e->flags |= ENT_LOST;
      tx->pkts_lost++;
      if (undo) {
        rto_lost_set(tx, e->seq);
      }
    }
  }
  if (undo && tx->rto_left == 0) {
    rto_lost_free(tx);
  }
}

/* ------------------------------------------- the NUMDUPACK rule's losses */

static void undo_free(ccid2_tx *tx) {
  if (tx->undo != NULL) {
    tx->mem->free(tx->undo, tx->mem->user_data);
    tx->undo = NULL;
  }
}

size_t udccp_ccid2_undo_size(void) { return sizeof(ccid2_undo); }

void udccp_ccid2_loss_free(ccid2_tx *tx) {
  rto_lost_free(tx);
  undo_free(tx);
}

/* Records packet seq as lost by the NUMDUPACK rule; 1 if it is, 0 if it
 * cannot be (no memory, or older than the record reaches). */
static int undo_record(ccid2_tx *tx, uint64_t seq) {
  ccid2_undo *u = tx->undo;
  uint64_t m;
  if (u == NULL) {
    u = tx->mem->calloc(1, sizeof(*u), tx->mem->user_data);
    if (u == NULL) {
      return 0;
    }
    tx->undo = u;
    u->top = seq;
  } else if (u->left == 0) {
    u->top = seq;
  } else if (udccp_seq_gt(seq, u->top)) {
    /* The record slides: losses older than UNDO_BITS below seq are
     * given up (a late ack so far behind is not reordering). */
    uint64_t d = (uint64_t)udccp_seq_sub(seq, u->top), k;
    if (d >= UNDO_BITS) {
      memset(u->bits, 0, sizeof(u->bits));
      u->left = 0;
      u->ev_valid = 0;
    } else {
      for (k = 1; k <= d && u->left > 0; k++) {
        uint64_t s = udccp_seq_add(u->top, (int64_t)k - UNDO_BITS);
        uint32_t b = (uint32_t)(s & (UNDO_BITS - 1));
        m = (uint64_t)1 << (b & 63);
        if (u->bits[b >> 6] & m) {
          u->bits[b >> 6] &= ~m;
          u->left--;
          if (u->ev_valid && udccp_seq_ge(s, u->ev_first)) {
            u->ev_valid = 0;
          }
        }
      }
    }
    u->top = seq;
  } else if (udccp_seq_sub(u->top, seq) >= (int64_t)UNDO_BITS) {
    return 0;
  }
  m = (uint64_t)1 << (seq & 63);
  if (!(u->bits[(seq & (UNDO_BITS - 1)) >> 6] & m)) {
    u->bits[(seq & (UNDO_BITS - 1)) >> 6] |= m;
    u->left++;
  }
  return 1;
}

void udccp_ccid2_undo_event(ccid2_tx *tx, uint64_t seq, int undoable,
                            int new_event) {
  ccid2_undo *u = tx->undo;
  if (u == NULL) {
    return;
  }
  if (!new_event) {
    if (u->ev_valid) {
      if (undoable) {
        u->ev_left++;
      } else {
        u->ev_valid = 0;
      }
    }
    return;
  }
  u->ev_valid = undoable;
  if (!undoable) {
    return;
  }
  u->ev_first = seq;
  u->ev_left = 1;
  u->prior_cwnd = tx->cwnd;
  u->prior_ssthresh = tx->ssthresh;
  u->prior_in_recovery = tx->in_recovery;
  u->prior_recovery_seq = tx->recovery_seq;
  /* A window policy's state (CUBIC: W_max, K, the epoch) goes back
   * with the window; one that sets cwnd itself (BBR) keeps its model. */
  u->cc_saved = 0;
  if (tx->cc != NULL && !ccid2_cc_owns_cwnd(tx)) {
    size_t n = tx->cc->state_size > UDCCP_CCID2_CC_STATE_SIZE
                   ? tx->cc->state_size
                   : UDCCP_CCID2_CC_STATE_SIZE;
    if (n <= sizeof(u->prior_cc)) {
      memcpy(u->prior_cc, tx->ccp, n);
      u->cc_saved = n;
    }
  }
}

void udccp_ccid2_undo_forget(ccid2_tx *tx) {
  if (tx->undo != NULL) {
    tx->undo->ev_valid = 0;
  }
}

/* RFC 4653 §3, Linux tcp_check_sack_reordering: packet seq was reported
 * received while the acks had reached top[0]; a threshold one above that
 * distance would have waited for it. */
static void reorder_seen(ccid2_tx *tx, uint64_t seq) {
  int64_t d;
  uint32_t th;
  if (tx->n_top == 0) {
    return;
  }
  d = udccp_seq_sub(tx->top[0], seq);
  if (d <= 0) {
    return;
  }
  th = d >= (int64_t)REORDER_MAX ? REORDER_MAX : (uint32_t)d + 1;
  if (th > tx->dupthresh) {
    tx->dupthresh = (uint16_t)th;
  }
}

static void undo_late_acked(ccid2_tx *tx, uint64_t hi, uint64_t lo) {
  ccid2_undo *u = tx->undo;
  uint64_t a = udccp_seq_max(lo, udccp_seq_add(u->top, 1 - (int64_t)UNDO_BITS));
  uint64_t b = udccp_seq_min(hi, u->top), q = a;
  if (udccp_seq_gt(a, b)) {
    return;
  }
  /* A word at a time: the record is mostly empty. */
  for (;;) {
    uint32_t idx = (uint32_t)(q & (UNDO_BITS - 1)), off = idx & 63;
    uint64_t rest = (uint64_t)udccp_seq_sub(b, q) + 1;
    uint32_t take = rest < 64 - off ? (uint32_t)rest : 64 - off;
    uint64_t mask = (take == 64 ? ~(uint64_t)0
                                : (((uint64_t)1 << take) - 1)) << off;
    uint64_t hit = u->bits[idx >> 6] & mask;
    if (hit != 0) {
      uint32_t k;
      u->bits[idx >> 6] &= ~hit;
      for (k = off; k < off + take; k++) {
        if ((hit >> k) & 1) {
          uint64_t s = udccp_seq_add(q, (int64_t)k - (int64_t)off);
          u->left--;
          if (tx->pkts_lost > 0) {
            tx->pkts_lost--;
          }
          if (u->ev_valid && udccp_seq_ge(s, u->ev_first) && u->ev_left > 0) {
            u->ev_left--;
          }
          reorder_seen(tx, s);
        }
      }
    }
    if (rest == take || u->left == 0) {
      break;
    }
    q = udccp_seq_add(q, take);
  }
}

void udccp_ccid2_late_acked(ccid2_tx *tx, uint64_t hi, uint64_t lo) {
  if (tx->rto_left > 0) {
    rto_lost_undo(tx, hi, lo);
  }
  if (tx->undo != NULL && tx->undo->left > 0) {
    undo_late_acked(tx, hi, lo);
  }
}

int udccp_ccid2_undo_idle(const ccid2_tx *tx) {
  return tx->undo == NULL || tx->undo->left == 0;
}

void udccp_ccid2_undo_check(ccid2_tx *tx) {
  ccid2_undo *u = tx->undo;
  if (u == NULL) {
    return;
  }
  if (u->ev_valid && u->ev_left == 0) {
    /* RFC 4015 §3.2: the congestion event was spurious. */
    u->ev_valid = 0;
    if (!ccid2_cc_owns_cwnd(tx)) {
      if (u->cc_saved > 0) {
        memcpy(tx->ccp, u->prior_cc, u->cc_saved);
      }
      if (tx->cwnd < u->prior_cwnd) {
        tx->cwnd = u->prior_cwnd;
      }
      if (tx->ssthresh < u->prior_ssthresh) {
        tx->ssthresh = u->prior_ssthresh;
      }
    }
    tx->in_recovery = u->prior_in_recovery;
    tx->recovery_seq = u->prior_recovery_seq;
    udccp_ccid2_ack_ratio_clamp(tx);
  }
  if (u->left == 0 && !u->ev_valid) {
    undo_free(tx);
  }
}

/* ------------------------------------------------------------ the rule */

void udccp_ccid2_lose(ccid2_tx *tx, ccid2_ent *e, int by_dupack) {
  int rec = by_dupack && (e->flags & ENT_DATA) && undo_record(tx, e->seq);
  e->flags |= ENT_LOST;
  if (tx->pipe > 0) {
    tx->pipe--;
  }
  tx->pkts_lost++;
  if (tx->cc != NULL && tx->cc->on_lost != NULL && (e->flags & ENT_DATA)) {
    tx->cc->on_lost(tx->ccp, e->seq, tx->now);
  }
  udccp_ccid2_congestion(tx, e->seq, rec);
}

/* The threshold in use: dupthresh, at most cwnd/2, at least NUMDUPACK. */
static uint32_t loss_thresh(const ccid2_tx *tx) {
  uint32_t th = tx->dupthresh, cap = tx->cwnd / 2;
  if (th > cap) {
    th = cap;
  }
  return th < UDCCP_CCID2_NUMDUPACK ? UDCCP_CCID2_NUMDUPACK : th;
}

/* RFC 4341 §5 (2): everything before the third-newest acked packet that is
 * still unacknowledged is lost; with a raised threshold, only what is also
 * dupthresh or more below the newest acked packet. */
void udccp_ccid2_detect_losses(ccid2_tx *tx) {
  uint64_t t3, q, head;
  uint32_t th;
  if (tx->n_top < UDCCP_CCID2_NUMDUPACK || tx->n == 0) {
    return;
  }
  t3 = tx->top[UDCCP_CCID2_NUMDUPACK - 1];
  th = loss_thresh(tx);
  if (th > UDCCP_CCID2_NUMDUPACK) {
    t3 = udccp_seq_min(t3, udccp_seq_add(tx->top[0], 1 - (int64_t)th));
  }
  head = ccid2_hist_head(tx);
  q = udccp_seq_max(tx->loss_scan, tx->tail);
  while (udccp_seq_lt(q, t3) && udccp_seq_le(q, head)) {
    ccid2_ent *e = ccid2_ent_at(tx, q);
    if (ccid2_unresolved(e)) {
      udccp_ccid2_lose(tx, e, 1);
    }
    q = udccp_seq_add(q, 1);
  }
  if (udccp_seq_gt(q, tx->loss_scan)) {
    tx->loss_scan = q;
  }
}

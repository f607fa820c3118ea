/* SPDX-License-Identifier: MIT */
/*
 * CCID 3 (RFC 4342 + RFC 5348), and the halves CCID 4 (RFC 5622) reuses:
 * the sender half, the shared helpers and the ops table (the receiver half
 * is in ccid3_rx.c).
 * Rules implemented, by section:
 *
 * Sender half
 * RFC 4342 §8.1  CCVal window counter: +min(quarter RTTs, 5) mod 16 since
 *                the first packet of the current value; after an ack of a
 *                packet sent with counter WC, later packets carry at least
 *                WC + 4 (never more than 5 above the previous packet).
 * RFC 4342 §5    Rate X from the TFRC sender (tfrc_tx): initial rate
 *                RFC 3390-style, slow start doubling per RTT, X from the
 *                equation once p > 0, at most 2 X_recv, nofeedback timer.
 * RFC 4342 §6    A feedback packet is an Ack/DataAck with Receive Rate and
 *                Loss Intervals (or, for Linux peers, Loss Event Rate).
 * RFC 4342 §8.2  RTT sample = now - send time of the acknowledged packet -
 *                Elapsed Time (RFC 5348 §4.3 step 1).
 * RFC 4342 §8.6  p computed by the sender from Loss Intervals' data lengths
 *                (§3.2 step 3); the receiver's Loss Event Rate is the
 *                fallback.  RFC 5622 §8.7: Dropped Packets for CCID 4.
 * RFC 4342 §5.2  Data Dropped Drop Code 2 and Slow Receiver: X_recv =
 *                min(X_inrecv, X_drop / 2), X_drop = X_inrecv - k s/R (at
 *                least min(X_inrecv, s/R)), or X_inrecv (Slow Receiver).
 * RFC 5348 §8.2.1 Data-limited intervals: a data packet with more data
 *                queued behind it (env->tx_more) is rate-limited; without
 *                that information, one sent within one t_ipi of the time
 *                pacing allowed it, or of the previous packet.
 * RFC 5348 §4.6  Pacing by nanoseconds; t_ipi is never 0 (tfrc_eq).  A
 *                pause with data queued (env->tx_more) earns 2 t_gran of
 *                credit, not an RTT's worth as one burst (tfrc_tx).
 * RFC 5348 §4.3, §6 Slow start with more than one feedback per RTT: one
 *                within R of tld goes on with the doubling begun at tld,
 *                X <= min(2 X(tld), recv_limit) (tfrc_tx).  Our receiver
 *                reports the rate of the sender's latest round in slow
 *                start (§6.3.1, ccid3_rx.c).
 * RFC 5348 §4.3/§8.3 (spirit) A receiver's reports are capped by what we
 *                sent: X <= max(2 X_sent, initial rate), so a Receive Rate
 *                of 0xFFFFFFFF or Elapsed Time lies cannot raise the rate
 *                (udccp_tfrc_tx_sent_cap); Data Dropped is counted O(1)
 *                per block, whatever the run lengths claim.
 * RFC 4342 §5.1  Idle: the rate stops at the initial rate; the nofeedback
 *                timer then rests until data flows again.
 * RFC 5348 §4.5  Oscillation reduction (SHOULD): packets are paced at
 *                X_inst = X * R_sqmean / sqrt(R_sample).
 * RFC 5348 §5.5  History discounting: p from Loss Intervals with the
 *                discount factors recomputed from the intervals
 *                (udccp_tfrc_li_discount), as our receiver applies them.
 * RFC 4342 §9.1  ECN Nonce Echo of the Loss Intervals' lossless parts
 *                checked against NonceSum(X - 1) + NonceSum(Y); of Ack
 *                Vectors (RFC 4340 §12.2) if the receiver sends them.
 * RFC 4340 §12.3 A mismatch is answered as a marked packet: a loss event
 *                at the newest acknowledged packet in the sender's own p
 *                (at most one per RTT); before any loss (p = 0), as a
 *                Slow Receiver.
 * RFC 6323 §3.3  RTT Estimate option (128) with R on Data, DataAck, Sync,
 *                SyncAck when Send RTT Estimate (feature 128, a CCID
 *                dependency) is on (env->send_rtt_est).
 *
 * Not done: Data Dropped codes 3-7 (corruption: RFC 4340 §11.7 would have
 * them count as marks; the receiver's loss history does not see them).
 */
#include "ccid3.h"
#include "be.h"

#include <math.h>
#include <string.h>

#include "ackvec.h"
#include "feat.h"
#include "seq.h"
#include "tfrc_eq.h"

#define ECN_CE 3
#define CCVAL_NONE 0xFFu

typedef struct tx_hist {
  uint64_t seq;
  udccp_tstamp ts;
  uint8_t ccval; /* CCVAL_NONE for non-data packets */
  uint8_t used;
  uint8_t nonce; /* ECN nonce it carried (RFC 4340 §12.2) */
  uint8_t nsum;  /* RFC 4342 §9.1 NonceSum(seq): data packets' nonces */
  uint8_t data;  /* a data packet (DCCP-Data or DataAck) */
  uint8_t lost;  /* counted in pkts_lost (an Ack Vector said not received) */
} tx_hist;

/* Synthetic loss events the sender keeps after ECN Nonce Echo mismatches
 * (RFC 4340 §12.3), at most one per RTT. */
#define NONCE_PEN_MAX 8
/* Loss events whose learning time the sender remembers: more than the
 * NINTERVAL + 1 intervals a Loss Intervals option reports */
#define EV_LEARN_MAX 16
enum { EV_JOIN_UNKNOWN = 0, EV_JOIN_NO, EV_JOIN_YES };

typedef struct ccid3_tx {
  udccp_ccid_env *env;
  const udccp_mem *mem;
  udccp_tfrc_ccid_params prm;
  udccp_tfrc_tx tfrc;
  tx_hist *hist; /* ring indexed by seq & (cap - 1) */
  size_t cap;
  int sent_any;
  uint64_t gss;
  /* RFC 4342 §8.1 */
  int wc_started;
  uint8_t wc;
  udccp_tstamp wc_time;
  int wc_floor_valid;
  uint8_t wc_floor; /* CCVal of the latest acknowledged data packet */
  /* feedback */
  int have_loss_start;
  uint64_t loss_start; /* first seq of the newest reported loss interval */
  double s_mean;       /* mean data segment size (EWMA, 1/16) */
  int s_seen;          /* s_mean holds data packet sizes (else the MPS) */
  int nofb_parked;     /* idle at the idle floor: timer stopped */
  /* RFC 4342 §5.2: Data Dropped (Drop Code 2) and Slow Receiver reports
   * not yet applied to a feedback packet */
  uint64_t dd_pending;
  int dd_have;
  uint64_t dd_hi;      /* newest sequence number a Data Dropped covered */
  int slow_pending;
  udccp_tstamp min_rtt;
  uint64_t n_fb;
  /* ECN Nonce Echo verification (RFC 4342 §9, RFC 4340 §12.2) */
  uint64_t first_seq;  /* first packet we reported sent */
  uint8_t nsum_cur;    /* NonceSum of the newest packet sent */
  uint8_t nc_have;     /* tracking the lossless part starting at nc_x */
  uint8_t nc_before;   /* NonceSum(nc_x - 1) */
  uint8_t nc_bad;      /* its echo's known discrepancy (0 or 1) */
  uint64_t nc_x;
  uint64_t pen[NONCE_PEN_MAX]; /* penalty loss events, oldest first */
  udccp_tstamp pen_ts;         /* when the newest was added */
  uint32_t n_pen;
  uint8_t pen_fresh;           /* one was added by this feedback */
  uint64_t nonce_checks, nonce_mismatches;
  uint64_t pkts_lost;          /* from the receiver's Ack Vectors, if any */
  /* When we learned of each recent loss event (the first feedback whose
   * Loss Intervals began an interval at that sequence number): losses of
   * packets sent before that are the same event (merge_events) */
  uint64_t ev_seq[EV_LEARN_MAX];
  udccp_tstamp ev_ts[EV_LEARN_MAX];
  uint8_t ev_join[EV_LEARN_MAX]; /* EV_JOIN_*: joins the event before it? */
  uint32_t n_ev, ev_next;
  double x_recv_hi;            /* greatest X_recv before the first loss */
  uint64_t synth_len;          /* our §6.3.1 first interval, 0 = none */
  /* RFC 6323 RTT Estimate option for the current R (tx_write_opts),
   * rebuilt by tx_export wherever R may change */
  uint8_t rte_opt[8]; /* the option as sent: type, length, value */
  uint8_t rte_len;
} ccid3_tx;


_Static_assert(sizeof(ccid3_tx) <= UDCCP_TFRC_CCID_TX_STATE_SIZE &&
                   UDCCP_TFRC_CCID_TX_STATE_SIZE <= UDCCP_CCID_STATE_SIZE,
               "tx state size");

static ccid3_tx *tx_of(udccp_ccid_state *st) {
  return (ccid3_tx *)(void *)st->bytes;
}
static const ccid3_tx *ctx_of(const udccp_ccid_state *st) {
  return (const ccid3_tx *)(const void *)st->bytes;
}
static udccp_tstamp add_sat(udccp_tstamp a, udccp_tstamp b) {
  return a > UDCCP_TSTAMP_NEVER - b ? UDCCP_TSTAMP_NEVER : a + b;
}

static unsigned wc_dist(uint8_t from, uint8_t to) {
  return (unsigned)(to - from) & 15u;
}

const udccp_tfrc_ccid_params udccp_ccid3_params = {3, 0};

/* RFC 4342 §8.4 (feature 192, at the HC-Receiver), RFC 4340 §7.7.2 (Send
 * NDP Count, at the HC-Sender: the receiver tells lost data from lost
 * non-data packets, §6.1), §6 (Ack Vector not needed).  Linux's CCID 3
 * asks for the same three. */
const udccp_ccid_dep udccp_tfrc_ccid_deps[UDCCP_TFRC_CCID_N_DEPS] = {
    {UDCCP_FEAT_CCID3_SEND_LOSS_EVENT_RATE, 1, 0, 1},
    {UDCCP_FEAT_SEND_NDP_COUNT, 0, 0, 1},
    {UDCCP_FEAT_SEND_ACK_VECTOR, 1, 0, 0},
    /* RFC 6323 §3.2.2: Send RTT Estimate = 1 at the HC-Sender,
     * non-mandatory (a peer that does not know feature 128 leaves it 0) */
    {UDCCP_FEAT_CCID3_SEND_RTT_ESTIMATE, 0, 0, 1},
};

uint8_t udccp_ccid3_wc_next(uint8_t last, udccp_tstamp elapsed,
                            udccp_tstamp rtt, int *advanced) {
  udccp_tstamp quarter = (rtt ? rtt : UDCCP_CCID3_DEFAULT_RTT) / 4;
  udccp_tstamp q;
  if (quarter == 0) {
    quarter = 1;
  }
  q = elapsed / quarter;
  *advanced = q > 0;
  if (q > 5) {
    q = 5; /* §8.1: adjacent packets never differ by more than 5 */
  }
  return (uint8_t)((last + q) & 15u);
}

uint32_t udccp_ccid3_p_to_opt(double p) {
  double inv;
  if (!(p > 0.0)) {
    return UINT32_MAX;
  }
  inv = ceil(1.0 / p); /* §8.5: the inverse, rounded up */
  if (inv >= (double)UINT32_MAX) {
    return UINT32_MAX - 1; /* a tiny p, but not "no loss" */
  }
  return inv < 1.0 ? 1u : (uint32_t)inv;
}

double udccp_ccid3_opt_to_p(uint32_t v) {
  if (v == UINT32_MAX || v == 0) {
    return 0.0;
  }
  return 1.0 / (double)v;
}

/* An unknown option in our range preceded by Mandatory (RFC 4340 §5.8.2):
 * the HC-Receiver handles 128..191, the HC-Sender 192..255 (§10.3). */
int udccp_tfrc_ccid_mandatory_scan(const udccp_opts *o, int sender, int sp) {
  size_t i;
  for (i = 0; i < o->n_ccid; i++) {
    uint8_t t = o->ccid[i].type;
    if (!o->ccid[i].mandatory || (sender ? t < 192 : t >= 192)) {
      continue;
    }
    if (sender && (t == UDCCP_CCID3_OPT_LOSS_EVENT_RATE ||
                   t == UDCCP_CCID3_OPT_LOSS_INTERVALS ||
                   t == UDCCP_CCID3_OPT_RECEIVE_RATE ||
                   (sp && t == UDCCP_CCID4_OPT_DROPPED_PACKETS))) {
      continue;
    }
    if (!sender && t == UDCCP_CCID3_OPT_RTT_ESTIMATE) {
      continue; /* RFC 6323 §3.2.1 */
    }
    return 1;
  }
  return 0;
}

/* ------------------------------------------------------------ sender */

static tx_hist *hist_at(ccid3_tx *tx, uint64_t seq) {
  return &tx->hist[seq & (tx->cap - 1)];
}

static const tx_hist *hist_find(ccid3_tx *tx, uint64_t seq) {
  const tx_hist *h = hist_at(tx, seq);
  return h->used && h->seq == seq ? h : NULL;
}

/* Grows the ring after an acknowledged packet, dist packets before the
 * newest, had been overwritten: to twice that, so that it keeps a round
 * trip's worth with room to spare. */
static void hist_grow(ccid3_tx *tx, uint64_t dist) {
  size_t ncap = tx->cap, i;
  tx_hist *nh;
  while (ncap < UDCCP_CCID3_HIST_MAX && (uint64_t)ncap < 2 * dist) {
    ncap *= 2;
  }
  if (ncap == tx->cap) {
    return;
  }
  nh = tx->mem->calloc(ncap, sizeof(*nh), tx->mem->user_data);
  if (!nh) {
    return; /* keep the small ring: fewer RTT samples, nothing worse */
  }
  for (i = 0; i < tx->cap; i++) {
    if (tx->hist[i].used) {
      nh[tx->hist[i].seq & (ncap - 1)] = tx->hist[i];
    }
  }
  tx->mem->free(tx->hist, tx->mem->user_data);
  tx->hist = nh;
  tx->cap = ncap;
}

/* RFC 6323 §3.2.1, §3.3: R in microseconds, rounded up (never below 1),
 * 0 before any estimate, 0xFFFFFF above 0xFFFFFE, in the fewest bytes.
 * The value changes only with R: built here, not for every data packet
 * (issue 13). */
static void rte_update(ccid3_tx *tx) {
  uint64_t us = 0;
  size_t len = 1;
  if (tx->tfrc.has_rtt) {
    us = tx->tfrc.r / 1000u + (tx->tfrc.r % 1000u != 0);
    if (us == 0) {
      us = 1;
    }
    if (us > UDCCP_CCID3_RTT_EST_MAX) {
      us = UDCCP_CCID3_RTT_EST_MAX + 1; /* 0xFFFFFF: a delay spike */
    }
  }
  while (len < 3 && (us >> (8 * len)) != 0) {
    len++;
  }
  tx->rte_len = (uint8_t)(2 + len);
  memset(tx->rte_opt, 0, sizeof(tx->rte_opt));
  tx->rte_opt[0] = UDCCP_CCID3_OPT_RTT_ESTIMATE;
  tx->rte_opt[1] = (uint8_t)(2 + len);
  for (; len > 0; len--, us >>= 8) {
    tx->rte_opt[1 + len] = (uint8_t)us; /* big-endian (RFC 6323 §3.3) */
  }
}

/* After every change of the TFRC sender's R (tx_init, feedback, the
 * nofeedback timer): the connection's view of it, and the RTT Estimate
 * option. */
static void tx_export(ccid3_tx *tx) {
  rte_update(tx);
  if (tx->tfrc.has_rtt) {
    tx->env->srtt = tx->tfrc.r;
    tx->env->min_rtt = tx->min_rtt;
  }
  tx->env->rto = tx->tfrc.rto;
}

static uint32_t nominal_s(size_t mps) {
  /* RFC 4828 §3: 1460, or the MSS if smaller */
  return mps && mps < UDCCP_TFRC_SP_S_NOMINAL ? (uint32_t)mps
                                              : UDCCP_TFRC_SP_S_NOMINAL;
}

int udccp_tfrc_ccid_tx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                            udccp_tstamp ts,
                            const udccp_tfrc_ccid_params *params) {
  ccid3_tx *tx = tx_of(st);
  udccp_tfrc_tx_cfg cfg;
  memset(tx, 0, sizeof(*tx));
  tx->env = env;
  tx->mem = env->mem ? env->mem : udccp_mem_default();
  tx->prm = *params;
  tx->cap = UDCCP_CCID3_HIST_INIT;
  tx->hist = tx->mem->calloc(tx->cap, sizeof(*tx->hist), tx->mem->user_data);
  if (!tx->hist) {
    return UDCCP_ERR_NOMEM;
  }
  memset(&cfg, 0, sizeof(cfg));
  /* Never faster than twice what we sent, whatever the peer reports. */
  cfg.sent_cap = 1;
  /* RFC 4342 §5.3: s may be the MPS; each packet then counts as one MPS.
   * RFC 4828 §3: CCID 4 uses its mean segment size (s_true) instead. */
  cfg.s = env->mps ? (uint32_t)env->mps : 1460u;
  cfg.sp = params->sp;
  /* RFC 5348 §4.5: oscillation reduction SHOULD be implemented (X_inst =
   * X * R_sqmean / sqrt(R_sample) paces the packets): with one flow and
   * a drop-tail queue, R lags the queueing delay by ~10 feedbacks, and X
   * from the equation at the stale R keeps the queue full after a loss. */
  cfg.osc = 1;
  if (params->sp) {
    cfg.s_nominal = nominal_s(env->mps);
    cfg.hdr = UDCCP_TFRC_SP_HDR; /* RFC 5622 §5: 36 bytes */
  }
  udccp_tfrc_tx_init(&tx->tfrc, &cfg, ts);
  tx->s_mean = (double)cfg.s;
  if (env->srtt > 0) {
    /* RFC 5348 §4.2: a handshake RTT allows the initial rate at once */
    udccp_tfrc_tx_set_rtt(&tx->tfrc, env->srtt, ts);
    tx->min_rtt = env->srtt;
  }
  tx_export(tx);
  return 0;
}

static int ccid3_tx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                         udccp_tstamp ts) {
  return udccp_tfrc_ccid_tx_init(st, env, ts, &udccp_ccid3_params);
}

void udccp_tfrc_ccid_tx_exit(udccp_ccid_state *st) {
  ccid3_tx *tx = tx_of(st);
  if (tx->hist) {
    tx->mem->free(tx->hist, tx->mem->user_data);
    tx->hist = NULL;
  }
}

int udccp_tfrc_ccid_trim(udccp_ccid_state *st, int tx_half, udccp_tstamp ts) {
  ccid3_tx *tx;
  const tx_hist *h;
  tx_hist *nh;
  udccp_tstamp quiet;
  size_t i;
  if (!tx_half) {
    return 0; /* the receiver half's state is fixed-size */
  }
  tx = tx_of(st);
  if (tx->cap <= UDCCP_CCID3_HIST_INIT) {
    return 0;
  }
  h = tx->sent_any ? hist_find(tx, tx->gss) : NULL;
  quiet = 4 * tx->tfrc.r;
  if (quiet < UDCCP_CCID3_HIST_IDLE) {
    quiet = UDCCP_CCID3_HIST_IDLE;
  }
  if (h != NULL && ts < h->ts + quiet) {
    return 1; /* sent recently: feedback on it may still come */
  }
  /* Quiet: the newest entries stay, the older ones are forgotten (their
   * NonceSum then reads as unknown, as after HIST_MIN newer packets). */
  nh = tx->mem->calloc(UDCCP_CCID3_HIST_INIT, sizeof(*nh),
                       tx->mem->user_data);
  if (nh == NULL) {
    return 1;
  }
  for (i = 0; i < tx->cap; i++) {
    const tx_hist *e = &tx->hist[i];
    if (e->used && udccp_seq_le(e->seq, tx->gss) &&
        (uint64_t)udccp_seq_sub(tx->gss, e->seq) < UDCCP_CCID3_HIST_INIT) {
      nh[e->seq & (UDCCP_CCID3_HIST_INIT - 1)] = *e;
    }
  }
  tx->mem->free(tx->hist, tx->mem->user_data);
  tx->hist = nh;
  tx->cap = UDCCP_CCID3_HIST_INIT;
  return 0;
}

udccp_tstamp udccp_tfrc_ccid_tx_next_send(udccp_ccid_state *st,
                                          udccp_tstamp ts) {
  return udccp_tfrc_tx_next_send(&tx_of(st)->tfrc, ts);
}

/* The window counter of the packet about to be sent (tx_ccval). */
static inline uint8_t tx_wc(ccid3_tx *tx, udccp_tstamp ts) {
  int adv;
  uint8_t prev;
  if (!tx->wc_started) {
    /* §8.1: last_WC = 0, last_WC_time = time of the first packet */
    tx->wc_started = 1;
    tx->wc = 0;
    tx->wc_time = ts;
  } else {
    udccp_tstamp el = ts > tx->wc_time ? ts - tx->wc_time : 0;
    udccp_tstamp rtt = tx->tfrc.has_rtt ? tx->tfrc.r : 0;
    /* Less than a quarter RTT since last_WC_time: no step, and no
     * division (most packets, issue 13) */
    if (el >= (rtt ? rtt : UDCCP_CCID3_DEFAULT_RTT) / 4) {
      prev = tx->wc;
      tx->wc = udccp_ccid3_wc_next(prev, el, rtt, &adv);
      if (adv) {
        tx->wc_time = ts;
      }
    }
  }
  if (tx->wc_floor_valid) {
    /* §8.1, §10.2: at least WC + 4 after an ack of a packet with WC.  The
     * acked packet was sent at or before the previous one, so the step
     * from the previous counter stays <= 4. */
    if (wc_dist(tx->wc_floor, tx->wc) < 4) {
      tx->wc = (uint8_t)((tx->wc_floor + 4) & 15u);
      tx->wc_time = ts;
    }
    tx->wc_floor_valid = 0;
  }
  return tx->wc;
}

uint8_t udccp_tfrc_ccid_tx_ccval(udccp_ccid_state *st, udccp_tstamp ts) {
  return tx_wc(tx_of(st), ts);
}

void udccp_tfrc_ccid_tx_on_sent(udccp_ccid_state *st, uint64_t seq,
                                int is_data, size_t len, udccp_tstamp ts) {
  ccid3_tx *tx = tx_of(st);
  tx_hist *h = hist_at(tx, seq);
  if (h->used && tx->cap < UDCCP_CCID3_HIST_MIN) {
    /* Small while little was sent (issue 13), but nothing overwritten
     * before HIST_MIN: twice the size (without memory: overwritten, the
     * older packet then gives no sample, as in a full ring). */
    hist_grow(tx, tx->cap);
    h = hist_at(tx, seq);
  }
  h->seq = seq & UDCCP_SEQ_MASK;
  h->ts = ts;
  h->ccval = is_data && tx->wc_started ? tx->wc : (uint8_t)CCVAL_NONE;
  h->used = 1;
  h->data = (uint8_t)(is_data != 0);
  h->lost = 0;
  /* RFC 4342 §9.1: the Ack Vector echo covers every packet's nonce, the
   * Loss Intervals echo only data packets' (NonceSum) */
  h->nonce = (uint8_t)(tx->env->tx_nonce & 1u);
  if (!tx->sent_any) {
    tx->first_seq = h->seq;
  }
  if (is_data) {
    tx->nsum_cur ^= h->nonce;
  }
  h->nsum = tx->nsum_cur;
  tx->gss = h->seq;
  tx->sent_any = 1;
  if (is_data) {
    int limited;
    if (tx->env->tx_more != UDCCP_CCID_MORE_UNKNOWN) {
      /* the connection knows: more data waiting behind this packet means
       * the rate, not the application, holds it back */
      limited = tx->env->tx_more == UDCCP_CCID_MORE_YES
                    ? UDCCP_TFRC_TX_BACKLOG
                    : 0;
    } else {
      const udccp_tfrc_tx *t = &tx->tfrc;
      udccp_tstamp allowed = udccp_tfrc_tx_next_send(t, ts);
      /* §8.2.1: the sender uses all of its rate -- not data-limited -- if
       * this packet went within one t_ipi of the time it was allowed, or
       * within one t_ipi of the previous one (sending at X or faster
       * while spending credit for unused send times) */
      limited = ts < add_sat(allowed, t->t_ipi) ||
                (t->sent_any && ts >= t->last_send &&
                 ts - t->last_send <= t->t_ipi);
    }
    /* the mean data segment size: RFC 4828 §3 s_true for CCID 4; for
     * CCID 3 it converts the Receive Rate into MPS units (below) */
    if (!tx->s_seen) {
      /* the mean of the packets sent, from the first one: started at the
       * MPS it would lag ~50 packets behind small datagrams, and CCID 3's
       * X_recv (rr_in_s_units) would read s_mean / len times too low */
      tx->s_seen = 1;
      tx->s_mean = (double)len;
    } else {
      tx->s_mean += ((double)len - tx->s_mean) /
                    (double)(1u << UDCCP_CCID3_S_EWMA_SHIFT);
    }
    if (tx->prm.sp) {
      tx->tfrc.cfg.s = tx->s_mean < 1.0 ? 1u : (uint32_t)(tx->s_mean + 0.5);
      tx->tfrc.cfg.s_nominal = nominal_s(tx->env->mps);
    } else if (tx->env->mps && tx->env->mps != tx->tfrc.cfg.s) {
      tx->tfrc.cfg.s = (uint32_t)tx->env->mps; /* the MPS changed (§14) */
    }
    udccp_tfrc_tx_on_sent(&tx->tfrc, ts, limited);
    if (tx->nofb_parked) {
      tx->nofb_parked = 0;
      tx->tfrc.nofb_expiry = add_sat(ts, tx->tfrc.rto);
    }
  }
}

/* Lost data packets from the receiver's Ack Vectors, when it sends them
 * (udccp_settings.ack_vectors; RFC 4342 §5: "Ack Vector may be useful for
 * applications that need to determine exactly which packets were lost").
 * A data packet still in the history that a vector reports Not Received
 * (state 3, RFC 4340 §11.4) counts once; if a later vector reports it
 * received (it was reordered, not lost), the count is taken back.  Only
 * the history's span is walked: at most its capacity per feedback. */
typedef struct av_count {
  ccid3_tx *tx;
  uint64_t oldest; /* oldest sequence number the history may hold */
} av_count;

static int av_count_run(uint64_t hi, uint64_t lo, uint8_t state, void *user) {
  av_count *c = user;
  ccid3_tx *tx = c->tx;
  uint64_t seq, n, i;
  if (udccp_seq_lt(hi, c->oldest)) {
    return 0;
  }
  if (udccp_seq_lt(lo, c->oldest)) {
    lo = c->oldest;
  }
  if (state != 3 && tx->pkts_lost == 0) {
    return 0; /* nothing to take back */
  }
  n = (uint64_t)udccp_seq_sub(hi, lo) + 1;
  for (i = 0, seq = lo; i < n; i++, seq = udccp_seq_add(seq, 1)) {
    tx_hist *h = hist_at(tx, seq);
    if (!h->used || h->seq != seq || !h->data) {
      continue; /* forgotten, or not a data packet */
    }
    if (state == 3 && !h->lost) {
      h->lost = 1;
      tx->pkts_lost++;
    } else if (state != 3 && h->lost) {
      h->lost = 0;
      tx->pkts_lost--;
    }
  }
  return 0;
}

static void count_lost(ccid3_tx *tx, const udccp_ccid_pkt *pkt) {
  av_count c;
  uint64_t span = (uint64_t)udccp_seq_sub(tx->gss, tx->first_seq) + 1;
  c.tx = tx;
  c.oldest = span > tx->cap ? udccp_seq_add(tx->gss, -(int64_t)(tx->cap - 1))
                            : tx->first_seq;
  (void)udccp_ackvec_parse(pkt->opts, pkt->ack & UDCCP_SEQ_MASK, av_count_run,
                           &c);
  tx->env->pkts_lost = tx->pkts_lost;
}

/* The CCVal-independent parts of a feedback packet. */
typedef struct fb_opts {
  int has_ler, has_li, has_rr, has_dp;
  uint32_t ler, rr;
  const uint8_t *li, *dp;
  size_t li_len, dp_len;
} fb_opts;

static void collect(const udccp_opts *o, fb_opts *f) {
  size_t i;
  memset(f, 0, sizeof(*f));
  for (i = 0; i < o->n_ccid; i++) {
    const udccp_opt *op = &o->ccid[i];
    switch (op->type) {
    case UDCCP_CCID3_OPT_LOSS_EVENT_RATE:
      if (op->len == 4) { /* §8.5: Len = 6 */
        f->has_ler = 1;
        f->ler = (uint32_t)get_be(op->val, 4);
      }
      break;
    case UDCCP_CCID3_OPT_RECEIVE_RATE:
      if (op->len == 4) { /* §8.3 */
        f->has_rr = 1;
        f->rr = (uint32_t)get_be(op->val, 4);
      }
      break;
    case UDCCP_CCID3_OPT_LOSS_INTERVALS:
      if (!f->has_li) { /* §8.6.1: a second option continues the first;
                           the newest 9 intervals fit in the first */
        f->has_li = 1;
        f->li = op->val;
        f->li_len = op->len;
      }
      break;
    case UDCCP_CCID4_OPT_DROPPED_PACKETS:
      if (!f->has_dp) {
        f->has_dp = 1;
        f->dp = op->val;
        f->dp_len = op->len;
      }
      break;
    default:
      break;
    }
  }
}

/* RFC 4828 §3 / RFC 5622 §6.1: was interval li (newest-first index i) at
 * most two RTTs long?  Judged from our send times of its first and last
 * packets; unknown counts as long. */
static uint8_t interval_short(ccid3_tx *tx, const udccp_tfrc_li_info *li) {
  uint64_t len = (uint64_t)li->lossless + li->loss_len;
  uint64_t first;
  const tx_hist *a, *b;
  if (len == 0 || !tx->tfrc.has_rtt) {
    return 0;
  }
  first = udccp_seq_add(li->seq_end, -(int64_t)(len - 1));
  a = hist_find(tx, first);
  b = hist_find(tx, li->seq_end);
  if (!a || !b || b->ts < a->ts) {
    return 0;
  }
  return b->ts - a->ts <= 2 * tx->tfrc.r;
}

/* ------------------------------------------------ ECN Nonce Echo */

/* RFC 4342 §9.1: NonceSum(seq), or -1 if forgotten.  NonceSum(I - 1) is 0:
 * before our first packet nothing carried a nonce. */
static int nsum_at(ccid3_tx *tx, uint64_t seq) {
  const tx_hist *h;
  if (!tx->sent_any || udccp_seq_lt(seq, tx->first_seq)) {
    return 0;
  }
  if (udccp_seq_gt(seq, tx->gss)) {
    return -1;
  }
  h = hist_find(tx, seq);
  return h ? h->nsum : -1;
}

/* The nonce packet seq carried, or -1 if forgotten (an Ack Vector's echo
 * covers every packet, RFC 4340 §12.2). */
static int nonce_of(uint64_t seq, void *user_data) {
  ccid3_tx *tx = user_data;
  const tx_hist *h;
  if (!tx->sent_any || udccp_seq_gt(seq, tx->gss)) {
    return -1;
  }
  h = hist_find(tx, seq);
  return h ? h->nonce : -1;
}

/* The first sequence number of an interval's lossless part. */
static uint64_t lossless_start(const udccp_tfrc_li_info *li) {
  return udccp_seq_add(li->seq_end, 1 - (int64_t)li->lossless);
}

/* RFC 4342 §9.1: checks the Nonce Echo of the lossless part of I_0 (and,
 * once it closed, of I_1) against Sum(X - 1) + Sum(Y).  A receiver that
 * hides a loss or mark in a lossless part has the echo wrong with
 * probability 1/2; the error then stays in every later echo of that part,
 * so a part counts as a mismatch when its discrepancy changes (a correct
 * receiver's is always 0).  Returns the number of mismatches. */
static int check_li_nonces(ccid3_tx *tx, const udccp_tfrc_li_info *li,
                           size_t n) {
  int bad = 0, b, y;
  uint64_t x;
  if (n == 0 || li[0].lossless == 0) {
    return 0;
  }
  x = lossless_start(&li[0]);
  if (!tx->nc_have || x != tx->nc_x) {
    /* a new lossless part: the one tracked so far may now be I_1, with
     * its final echo */
    if (tx->nc_have && n >= 2 && li[1].lossless > 0 &&
        lossless_start(&li[1]) == tx->nc_x &&
        (y = nsum_at(tx, li[1].seq_end)) >= 0) {
      tx->nonce_checks++;
      if (((unsigned)tx->nc_before ^ (unsigned)y ^ li[1].ecn) != tx->nc_bad) {
        bad++;
      }
    }
    tx->nc_have = 0;
    if ((b = nsum_at(tx, udccp_seq_add(x, -1))) < 0) {
      return bad; /* its start is forgotten: not checkable */
    }
    tx->nc_have = 1;
    tx->nc_x = x;
    tx->nc_before = (uint8_t)b;
    tx->nc_bad = 0;
  }
  if ((y = nsum_at(tx, li[0].seq_end)) < 0) {
    return bad;
  }
  tx->nonce_checks++;
  b = (int)(((unsigned)tx->nc_before ^ (unsigned)y ^ li[0].ecn) & 1u);
  if (b != tx->nc_bad) {
    tx->nc_bad = (uint8_t)b;
    bad++;
  }
  return bad;
}

/* RFC 4340 §12.3: after a mismatch the sender responds as if the receiver
 * had reported a recent packet as marked: a loss event at the newest
 * packet the ack reports, kept (in its own p computation) until the
 * receiver reports a later loss event; at most one per RTT, like the loss
 * events of RFC 5348 §5.2.  Returns 1 if one was added. */
static int add_penalty(ccid3_tx *tx, uint64_t ack, udccp_tstamp ts) {
  uint64_t seq = ack & UDCCP_SEQ_MASK;
  if (tx->n_pen > 0 &&
      (!udccp_seq_gt(seq, tx->pen[tx->n_pen - 1]) ||
       (tx->tfrc.has_rtt && ts < add_sat(tx->pen_ts, tx->tfrc.r)))) {
    return 0; /* the same congestion event */
  }
  if (tx->n_pen == NONCE_PEN_MAX) {
    memmove(&tx->pen[0], &tx->pen[1], (NONCE_PEN_MAX - 1) * sizeof(tx->pen[0]));
    tx->n_pen--;
  }
  tx->pen[tx->n_pen++] = seq;
  tx->pen_ts = ts;
  tx->pen_fresh = 1;
  return 1;
}

/* Splits I_0 at each penalty event that lies inside it, newest last: the
 * part from the penalty on becomes the new I_0 (RFC 5348 §5.3: an
 * interval begins with its first lost or marked packet).  Penalties at or
 * before I_0's first packet were superseded by a loss the receiver
 * reported.  Returns the new number of intervals. */
static size_t apply_penalties(ccid3_tx *tx, udccp_tfrc_li_info *li,
                              size_t n) {
  uint64_t start;
  uint32_t i, k = 0;
  if (n == 0 || tx->n_pen == 0) {
    return n;
  }
  start = udccp_seq_add(li[0].seq_end,
                        1 - (int64_t)((uint64_t)li[0].lossless +
                                      li[0].loss_len));
  for (i = 0; i < tx->n_pen; i++) {
    if (udccp_seq_gt(tx->pen[i], start)) {
      tx->pen[k++] = tx->pen[i];
    }
  }
  tx->n_pen = k;
  for (i = 0; i < tx->n_pen; i++) {
    udccp_tfrc_li_info old = li[0];
    uint64_t d;
    if (udccp_seq_gt(tx->pen[i], old.seq_end) || old.data_len < 2 ||
        old.lossless < 1) {
      continue;
    }
    /* packets from the penalty to the end, counted as data */
    d = (uint64_t)udccp_seq_sub(old.seq_end, tx->pen[i]) + 1;
    if (d > old.lossless) {
      d = old.lossless;
    }
    if (d >= old.data_len) {
      d = old.data_len - 1;
    }
    if (n == UDCCP_TFRC_LI_MAX) {
      n--; /* the oldest is forgotten */
    }
    memmove(&li[1], &li[0], n * sizeof(li[0]));
    n++;
    li[1].seq_end = udccp_seq_add(old.seq_end, -(int64_t)d);
    li[1].lossless = old.lossless - (uint32_t)d;
    li[1].data_len = old.data_len - (uint32_t)d;
    li[0].seq_end = old.seq_end;
    li[0].lossless = (uint32_t)d - 1;
    li[0].loss_len = 1;
    li[0].data_len = (uint32_t)d;
    li[0].drops = 1;
    li[0].ecn = 0;
  }
  return n;
}

/* First sequence number of a reported interval (its first lost packet). */
static uint64_t li_start(const udccp_tfrc_li_info *li) {
  uint64_t len = (uint64_t)li->lossless + li->loss_len;
  return udccp_seq_add(li->seq_end, 1 - (int64_t)(len ? len : 1));
}

/* The slot of the loss event starting at seq, noting it (learned now) if
 * it is new and note is set; -1 if unknown. */
static int ev_slot(ccid3_tx *tx, uint64_t seq, udccp_tstamp ts, int note) {
  uint32_t i;
  int k;
  for (i = 0; i < tx->n_ev; i++) {
    if (tx->ev_seq[i] == seq) {
      return (int)i;
    }
  }
  if (!note) {
    return -1;
  }
  k = (int)tx->ev_next;
  tx->ev_seq[k] = seq;
  tx->ev_ts[k] = ts;
  tx->ev_join[k] = EV_JOIN_UNKNOWN;
  tx->ev_next = (tx->ev_next + 1) % EV_LEARN_MAX;
  if (tx->n_ev < EV_LEARN_MAX) {
    tx->n_ev++;
  }
  return k;
}

/* Does the interval cur join the older event old?  Decided once, while
 * the send time of cur's first loss is still in the history, and kept. */
static int ev_joins(ccid3_tx *tx, const udccp_tfrc_li_info *old,
                    const udccp_tfrc_li_info *cur) {
  int ko, kc;
  const tx_hist *h;
  if (old->loss_len == 0 || cur->loss_len == 0) {
    return 0;
  }
  kc = ev_slot(tx, li_start(cur), 0, 0);
  if (kc < 0) {
    return 0;
  }
  if (tx->ev_join[kc] == EV_JOIN_UNKNOWN) {
    ko = ev_slot(tx, li_start(old), 0, 0);
    h = hist_find(tx, li_start(cur));
    if (ko < 0 || h == NULL) {
      tx->ev_join[kc] = EV_JOIN_NO;
    } else {
      tx->ev_join[kc] = h->ts < tx->ev_ts[ko] ? EV_JOIN_YES : EV_JOIN_NO;
    }
  }
  return tx->ev_join[kc] == EV_JOIN_YES;
}

/* One loss event per reaction, as TCP reduces its window once for all the
 * losses of the window in flight when it learns of the first (RFC 5348
 * §5.2: a loss event is the losses within one RTT, because TCP halves
 * once per RTT).  The receiver separates events by the window counter
 * (RFC 4342 §10.2), which steps every quarter of the RTT estimate we had
 * when we sent the packets; when our own slow start has just filled the
 * bottleneck queue, the packets we sent before the first loss report came
 * back took up to (1 + queue/BDP) times that estimate to return, and their
 * drops -- one overshoot -- arrive as two or three "events" that cut the
 * rate by a further sqrt(2) or sqrt(3) for the many seconds I_0 needs to
 * outgrow them.  We know better: an interval whose first lost packet we
 * sent before we learned of the event before it belongs to that event, and
 * the two are joined (the lossy part runs from the first loss of the older
 * to the last loss of the newer).  Events we no longer remember, or
 * packets whose send time we forgot, are left as the receiver reported.
 * Only CCID 3: TFRC-SP (RFC 4828) counts short intervals itself. */
static size_t merge_events(ccid3_tx *tx, udccp_tfrc_li_info *li, size_t n,
                           udccp_tstamp ts) {
  size_t i, out;
  for (i = n; i-- > 0;) { /* oldest first: slots are reused in order */
    if (li[i].loss_len > 0) {
      (void)ev_slot(tx, li_start(&li[i]), ts, 1);
    }
  }
  if (n < 3) {
    return n; /* one event at most: nothing to join */
  }
  /* oldest first: li[out] is the interval the next newer one may join */
  out = n - 1;
  for (i = n - 1; i-- > 0;) {
    udccp_tfrc_li_info *old = &li[out], *cur = &li[i];
    uint64_t old_len = (uint64_t)old->lossless + old->loss_len;
    uint64_t lossy = old_len + cur->loss_len;
    if (lossy <= UDCCP_TFRC_LOSS_LEN_MAX &&
        old_len + cur->lossless + cur->loss_len <= UINT32_MAX &&
        ev_joins(tx, old, cur)) {
      old->seq_end = cur->seq_end;
      old->loss_len = (uint32_t)lossy;
      old->lossless = cur->lossless;
      old->data_len += cur->data_len; /* both < 2^40: no overflow */
      old->drops += cur->drops;
      old->ecn = cur->ecn; /* the echo covers the lossless part */
      continue;
    }
    li[--out] = *cur;
  }
  if (out > 0) {
    memmove(&li[0], &li[out], (n - out) * sizeof(li[0]));
  }
  return n - out;
}

/* RFC 4342 §8.6.1 lengths have 24 bits.  At high rates the synthetic
 * first interval (RFC 5348 §6.3.1) is longer: 85,616 packets/s at a
 * 200 ms RTT need 48.8 M packets, and the saturated 16,777,215 would cap
 * p at >= 6e-8 (X <= 284 Mbit/s at 200 ms).  A saturated synthetic
 * interval (the oldest, with no lossy part) is taken as the one we compute
 * by the same rule from our own X_recv and R when we learned of the first
 * loss, if that is longer. */
static void unsaturate_first(const ccid3_tx *tx, udccp_tfrc_li_info *li,
                             size_t n) {
  udccp_tfrc_li_info *f = &li[n - 1];
  if (n >= 2 && f->loss_len == 0 && f->data_len >= UDCCP_TFRC_LI_LEN_MAX &&
      tx->synth_len > f->data_len) {
    f->data_len = tx->synth_len;
  }
}

/* p from a Loss Intervals option (and Dropped Packets for CCID 4);
 * returns -1 if the option is malformed.  *new_loss: its newest interval
 * starts later than any loss interval reported before. */
static double p_from_li(ccid3_tx *tx, const fb_opts *f, uint64_t ack,
                        udccp_tstamp ts, int *new_loss) {
  udccp_tfrc_li_info li[UDCCP_TFRC_LI_MAX];
  uint8_t is_short[UDCCP_TFRC_LI_MAX];
  size_t n = 0, i;
  uint8_t skip;
  if (udccp_tfrc_li_parse(f->li, f->li_len, ack, li, UDCCP_TFRC_LI_MAX, &n,
                          &skip) != 0 ||
      n == 0) {
    return -1.0;
  }
  if (tx->prm.sp && f->has_dp) {
    (void)udccp_tfrc_dp_apply(f->dp, f->dp_len, li, n);
  }
  if (tx->env->ecn) {
    /* RFC 4340 §12.2-12.3: Nonce Echo mismatches count as congestion.
     * (Skip Length 255 may hide unsettled packets in I_0: no check.) */
    if (skip < 255 && check_li_nonces(tx, li, n) > 0) {
      tx->nonce_mismatches++;
      if (add_penalty(tx, ack, ts)) {
        *new_loss = 1;
      }
    }
  }
  if (!tx->prm.sp) {
    if (!tx->have_loss_start && tx->synth_len == 0 && n >= 2 &&
        tx->tfrc.has_rtt) {
      tx->synth_len = udccp_tfrc_first_interval(tx->x_recv_hi,
                                                tx->tfrc.cfg.s, tx->tfrc.r);
    }
    unsaturate_first(tx, li, n);
    n = merge_events(tx, li, n, ts);
  }
  if (tx->env->ecn) {
    n = apply_penalties(tx, li, n);
  }
  if (tx->prm.sp) {
    for (i = 0; i < n; i++) {
      is_short[i] = interval_short(tx, &li[i]);
    }
  }
  if (n >= 2 && li[0].loss_len > 0) {
    uint64_t len = (uint64_t)li[0].lossless + li[0].loss_len;
    uint64_t start = udccp_seq_add(li[0].seq_end, -(int64_t)(len - 1));
    if (!tx->have_loss_start || udccp_seq_gt(start, tx->loss_start)) {
      *new_loss = 1;
      tx->have_loss_start = 1;
      tx->loss_start = start;
    }
  }
  if (!tx->prm.sp) {
    /* RFC 5348 §5.5 history discounting, as our receiver applies it */
    return udccp_tfrc_li_calc_p_discounted(li, n);
  }
  return udccp_tfrc_li_calc_p(li, n, is_short, 1);
}

/* RFC 4340 §11.7: counts the packets a Data Dropped option newly reports
 * as Drop Code 2 ("receive buffer").  Blocks go backwards from the
 * Acknowledgement Number; a Run Length of n covers n + 1 packets.  Packets
 * at or below the newest one an earlier option covered were counted
 * already. */
static void data_dropped(ccid3_tx *tx, const uint8_t *v, size_t len,
                         uint64_t ack) {
  uint64_t seq = ack & UDCCP_SEQ_MASK;
  size_t i;
  for (i = 0; i < len; i++) {
    int drop;
    uint64_t run;
    if (tx->dd_have && !udccp_seq_gt(seq, tx->dd_hi)) {
      /* blocks go backwards: the rest were counted already; a peer's
       * 252-byte option costs the blocks above the last one it reported,
       * not 252 (issue 12: hostile options are bounded) */
      break;
    }
    drop = (v[i] & 0x80u) != 0;
    run = (drop ? (v[i] & 0x0Fu) : (v[i] & 0x7Fu)) + 1u;
    if (drop && ((v[i] >> 4) & 7u) == 2u) {
      /* the block is seq - run + 1 .. seq; those above dd_hi are new:
       * counted at once, O(1) per block whatever a peer claims */
      int64_t fresh = tx->dd_have ? udccp_seq_sub(seq, tx->dd_hi)
                                  : (int64_t)run;
      if (fresh > 0) {
        tx->dd_pending += (uint64_t)fresh < run ? (uint64_t)fresh : run;
      }
    }
    seq = udccp_seq_add(seq, -(int64_t)run);
  }
  if (!tx->dd_have || udccp_seq_gt(ack, tx->dd_hi)) {
    tx->dd_have = 1;
    tx->dd_hi = ack & UDCCP_SEQ_MASK;
  }
}

/* RFC 4342 §5.2: X_recv = min(X_inrecv, X_drop / 2), with X_drop =
 * max(X_inrecv - k s/R, min(X_inrecv, s/R)) for k receive-buffer drops,
 * and X_drop <= X_inrecv after a Slow Receiver. */
static double adjust_x_recv(ccid3_tx *tx, double x_in) {
  double x_drop = x_in, spr;
  if (tx->dd_pending == 0 && !tx->slow_pending) {
    return x_in;
  }
  if (tx->dd_pending > 0 && tx->tfrc.has_rtt) {
    spr = (double)tx->tfrc.cfg.s / ((double)tx->tfrc.r * 1e-9);
    x_drop = x_in - (double)tx->dd_pending * spr;
    if (x_drop < (x_in < spr ? x_in : spr)) {
      x_drop = x_in < spr ? x_in : spr;
    }
  }
  tx->dd_pending = 0;
  tx->slow_pending = 0;
  return x_in < x_drop / 2.0 ? x_in : x_drop / 2.0;
}

/* The Receive Rate counts payload bytes (RFC 4342 §8.3).  CCID 3 takes
 * s = the MPS (RFC 4342 §5.3: "each packet transmitted then counts as one
 * MSS ... the equation specifies the sending rate in packets per second"),
 * so X and X_recv must count packets the same way: a flow of 100-byte
 * datagrams received at 50 packets/s has X_recv = 50 MPS/s, not 5000
 * bytes/s -- else min(X, 2 X_recv) would shrink X by s/100 at every
 * feedback.  CCID 4's s is the mean segment size itself. */
static double rr_in_s_units(const ccid3_tx *tx, uint32_t rr) {
  if (tx->prm.sp || !(tx->s_mean >= 1.0)) {
    return (double)rr;
  }
  return (double)rr * (double)tx->tfrc.cfg.s / tx->s_mean;
}

int udccp_tfrc_ccid_tx_on_ack(udccp_ccid_state *st, const udccp_ccid_pkt *pkt,
                              udccp_tstamp ts) {
  ccid3_tx *tx = tx_of(st);
  const tx_hist *h = NULL;
  udccp_tfrc_fb fb;
  fb_opts f;
  double p;
  int new_loss = 0;
  if (udccp_tfrc_ccid_mandatory_unknown(pkt->opts, 1, tx->prm.sp)) {
    return UDCCP_ERR_MANDATORY;
  }
  if (tx->sent_any) {
    h = hist_find(tx, pkt->ack & UDCCP_SEQ_MASK);
    if (!h && udccp_seq_le(pkt->ack, tx->gss) &&
        (uint64_t)udccp_seq_sub(tx->gss, pkt->ack) >= tx->cap) {
      /* the ring held less than one RTT of packets */
      hist_grow(tx, (uint64_t)udccp_seq_sub(tx->gss, pkt->ack) + 1);
    }
  }
  if (h && h->ccval != CCVAL_NONE) {
    tx->wc_floor = h->ccval;
    tx->wc_floor_valid = 1;
  }
  if (!pkt->opts) {
    return 0;
  }
  if (pkt->opts->present & UDCCP_OPTS_HAS_DATA_DROPPED) {
    data_dropped(tx, pkt->opts->data_dropped, pkt->opts->data_dropped_len,
                 pkt->ack);
  }
  if (pkt->opts->slow_receiver) {
    tx->slow_pending = 1;
  }
  if (tx->env->ecn && pkt->opts->n_ackvec > 0) {
    /* RFC 4340 §12.2: an Ack Vector (if the receiver sends them) echoes
     * the nonces of the packets it reports received unmarked */
    unsigned checked = 0;
    int bad = udccp_ackvec_nonce_check(pkt->opts, pkt->ack & UDCCP_SEQ_MASK,
                                       nonce_of, tx, &checked);
    tx->nonce_checks += checked;
    if (bad > 0) {
      tx->nonce_mismatches += (uint64_t)bad;
      (void)add_penalty(tx, pkt->ack, ts); /* the next feedback applies it */
    }
  }
  if (pkt->opts->n_ackvec > 0 && tx->sent_any) {
    count_lost(tx, pkt);
  }
  collect(pkt->opts, &f);
  /* §6: Receive Rate and loss information make a feedback packet */
  if (!f.has_rr || !(f.has_li || f.has_ler)) {
    return 0;
  }
  memset(&fb, 0, sizeof(fb));
  new_loss = tx->pen_fresh;
  if (!tx->have_loss_start && rr_in_s_units(tx, f.rr) > tx->x_recv_hi) {
    tx->x_recv_hi = rr_in_s_units(tx, f.rr); /* for unsaturate_first */
  }
  p = f.has_li ? p_from_li(tx, &f, pkt->ack, ts, &new_loss) : -1.0;
  if (p < 0.0) {
    if (!f.has_ler) {
      return 0;
    }
    p = udccp_ccid3_opt_to_p(f.ler);
  }
  if (tx->pen_fresh && !(p > 0.0)) {
    /* no loss event yet to add it to (p = 0, slow start): RFC 4340
     * §12.3's alternative, act as after a Slow Receiver option */
    tx->slow_pending = 1;
  }
  tx->pen_fresh = 0;
  fb.p = p;
  fb.new_loss = (uint8_t)new_loss;
  fb.x_recv = adjust_x_recv(tx, rr_in_s_units(tx, f.rr));
  fb.t_new = h ? h->ts : ts;
  if (h && ts >= h->ts) {
    udccp_tstamp d = ts - h->ts, el = 0;
    fb.r_raw = d; /* our clock's bound: lies below cannot shrink it */
    if (pkt->opts->present & UDCCP_OPTS_HAS_ELAPSED) {
      el = (udccp_tstamp)pkt->opts->elapsed_time * 10000u; /* 10 us */
    }
    /* RFC 5348 §4.3 step 1: R_sample = (t_now - t_recvdata) - t_delay; an
     * Elapsed Time as long as the round trip or longer is bogus: no
     * sample.  A round trip that reads 0 (no Elapsed Time either) was
     * shorter than the caller's clock resolution: without a sample there,
     * a sender whose every round trip read 0 had no RTT at all and stayed
     * at the no-feedback rate of one packet a second (§4.2) for ever. */
    if (el < d || (d == 0 && el == 0)) {
      fb.r_sample = d > 0 ? d - el : UDCCP_CCID3_RTT_ZERO_SAMPLE;
      if (tx->min_rtt == 0 || fb.r_sample < tx->min_rtt) {
        tx->min_rtt = fb.r_sample;
      }
    }
  }
  udccp_tfrc_tx_on_feedback(&tx->tfrc, &fb, ts);
  tx->nofb_parked = 0; /* §4.3 step 6 restarted the timer */
  tx->n_fb++;
  tx_export(tx);
  return 0;
}

int udccp_tfrc_ccid_tx_on_pkt(udccp_ccid_state *st,
                              const udccp_ccid_pkt *pkt, udccp_tstamp ts) {
  if (!pkt->has_ack ||
      (pkt->type != UDCCP_PKT_ACK && pkt->type != UDCCP_PKT_DATAACK)) {
    return 0; /* §8: our options are ignored on DCCP-Data */
  }
  return udccp_tfrc_ccid_tx_on_ack(st, pkt, ts);
}

/* RFC 6323 §3.3: the RTT Estimate option, its bytes kept ready
 * (rte_update). */
static inline int put_rte(const ccid3_tx *tx, udccp_optbuf *ob) {
  /* every data packet carries it (issue 13): the option's bytes copied
   * whole (8: one move; the bytes past its length are the next option's
   * room, rewritten or unused) */
  if (sizeof(ob->buf) - ob->len < sizeof(tx->rte_opt)) {
    if (sizeof(ob->buf) - ob->len < tx->rte_len) {
      return UDCCP_ERR_NOBUF;
    }
    memcpy(ob->buf + ob->len, tx->rte_opt, tx->rte_len);
  } else {
    memcpy(ob->buf + ob->len, tx->rte_opt, sizeof(tx->rte_opt));
  }
  ob->len += tx->rte_len;
  return 0;
}

/* RFC 6323 §3.3: an RTT Estimate option on every Data and DataAck (and
 * on Sync, SyncAck). */
int udccp_tfrc_ccid_tx_write_opts(udccp_ccid_state *st, udccp_optbuf *ob,
                                  uint8_t type, udccp_tstamp ts) {
  ccid3_tx *tx = tx_of(st);
  (void)ts;
  if (!tx->env->send_rtt_est ||
      (type != UDCCP_PKT_DATA && type != UDCCP_PKT_DATAACK &&
       type != UDCCP_PKT_SYNC && type != UDCCP_PKT_SYNCACK)) {
    return 0;
  }
  return put_rte(tx, ob);
}

uint8_t udccp_tfrc_ccid_tx_data(udccp_ccid_state *st, udccp_optbuf *ob,
                                udccp_tstamp ts) {
  ccid3_tx *tx = tx_of(st);
  if (tx->env->send_rtt_est) {
    (void)put_rte(tx, ob);
  }
  return tx_wc(tx, ts);
}

udccp_tstamp udccp_tfrc_ccid_tx_get_expiry(const udccp_ccid_state *st) {
  const ccid3_tx *tx = ctx_of(st);
  return tx->nofb_parked ? UDCCP_TSTAMP_NEVER
                         : udccp_tfrc_tx_get_expiry(&tx->tfrc);
}

void udccp_tfrc_ccid_tx_on_expiry(udccp_ccid_state *st, udccp_tstamp ts) {
  ccid3_tx *tx = tx_of(st);
  if (!tx->nofb_parked && ts >= udccp_tfrc_tx_get_expiry(&tx->tfrc)) {
    double x = tx->tfrc.x;
    udccp_tfrc_tx_on_nofeedback(&tx->tfrc, ts); /* RFC 5348 §4.4 */
    /* An idle sender whose rate no longer drops (RFC 4342 §5.1 floor)
     * would wake every 4 R for nothing: stop the timer until the next
     * data packet, which restarts it (RFC 5348 §4.4 step 2 from then). */
    if (tx->tfrc.idle && tx->tfrc.x == x) {
      tx->nofb_parked = 1;
    }
    tx_export(tx);
  }
}

void udccp_tfrc_ccid_tx_get_info(const udccp_ccid_state *st,
                                 udccp_conn_info *info) {
  const ccid3_tx *tx = ctx_of(st);
  /* CCID 3 counts every packet as one MPS (rr_in_s_units above); the
   * application wants the payload it may send and the peer receives:
   * packets/s times the mean datagram it sends (issue 14). */
  double k = 1.0;
  if (!tx->prm.sp && tx->s_seen && tx->s_mean >= 1.0 && tx->tfrc.cfg.s > 0) {
    k = tx->s_mean / (double)tx->tfrc.cfg.s;
  }
  info->x = udccp_tfrc_x_to_u64(udccp_tfrc_tx_rate(&tx->tfrc) * k);
  info->x_recv = udccp_tfrc_x_to_u64(tx->tfrc.x_recv * k);
  info->x_calc = udccp_tfrc_x_to_u64(tx->tfrc.x_bps * k);
  info->p = tx->tfrc.p;
  info->t_ipi = tx->tfrc.t_ipi;
  if (tx->tfrc.has_rtt) {
    info->srtt = tx->tfrc.r;
    info->min_rtt = tx->min_rtt;
  }
  info->rto = tx->tfrc.rto;
  info->nonce_checks = tx->nonce_checks;
  info->nonce_mismatches = tx->nonce_mismatches;
  info->pkts_lost = tx->pkts_lost;
}

const udccp_tfrc_tx *udccp_tfrc_ccid_tx_tfrc(const udccp_ccid_state *st) {
  return &ctx_of(st)->tfrc;
}

void udccp_tfrc_ccid_tx_set_sent_cap(udccp_ccid_state *st, int on) {
  tx_of(st)->tfrc.cfg.sent_cap = (uint8_t)(on != 0);
}

static int ccid3_rx_init(udccp_ccid_state *st, udccp_ccid_env *env,
                         udccp_tstamp ts) {
  return udccp_tfrc_ccid_rx_init(st, env, ts, &udccp_ccid3_params);
}

const udccp_ccid_ops udccp_ccid3_ops = {
    .id = 3,
    .name = "TFRC (CCID 3)",
    .deps = udccp_tfrc_ccid_deps,
    .n_deps = UDCCP_TFRC_CCID_N_DEPS,
    .tx_size = UDCCP_TFRC_CCID_TX_STATE_SIZE,
    .rx_size = UDCCP_TFRC_CCID_RX_STATE_SIZE,
    .tx_init = ccid3_tx_init,
    .tx_exit = udccp_tfrc_ccid_tx_exit,
    .tx_next_send = udccp_tfrc_ccid_tx_next_send,
    .tx_ccval = udccp_tfrc_ccid_tx_ccval,
    .tx_on_sent = udccp_tfrc_ccid_tx_on_sent,
    .tx_on_pkt = udccp_tfrc_ccid_tx_on_pkt,
    .tx_write_opts = udccp_tfrc_ccid_tx_write_opts,
    .tx_get_expiry = udccp_tfrc_ccid_tx_get_expiry,
    .tx_on_expiry = udccp_tfrc_ccid_tx_on_expiry,
    .tx_get_info = udccp_tfrc_ccid_tx_get_info,
    .flags = UDCCP_CCID_F_TX_ACKS_ONLY, /* RFC 4342 §8 */
    .tx_data = udccp_tfrc_ccid_tx_data,
    .tx_cwnd = NULL, /* rate-based */
    .trim = udccp_tfrc_ccid_trim,
    .rx_init = ccid3_rx_init,
    .rx_exit = udccp_tfrc_ccid_rx_exit,
    .rx_on_pkt = udccp_tfrc_ccid_rx_on_pkt,
    .rx_write_opts = udccp_tfrc_ccid_rx_write_opts,
    .rx_get_expiry = udccp_tfrc_ccid_rx_get_expiry,
    .rx_on_expiry = udccp_tfrc_ccid_rx_on_expiry,
    .rx_get_info = udccp_tfrc_ccid_rx_get_info,
};

/* SPDX-License-Identifier: MIT */
/*
 * TFRC receiver loss history and loss intervals; see tfrc_lh.h for the
 * model (RFC 5348 §5, §6.3.1; RFC 4342 §6.1, §8.6, §10.2; RFC 4828 §3).
 */
#include "tfrc_lh.h"

#include <math.h>
#include <string.h>

#include "seq.h"
#include "tfrc_eq.h"

/* RFC 5348 §5.4 weights for n = 8, times 5 so that they are integers:
 * 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2 -> 5, 5, 5, 5, 4, 3, 2, 1.  Sums of
 * integer lengths times these are exact in double, so p = W/I_tot is
 * computed with a single rounding. */
static const double tfrc_w5[UDCCP_TFRC_NINTERVAL] = {5, 5, 5, 5, 4, 3, 2, 1};

#define ECN_ECT1 1
#define ECN_CE 3

/* a - b in circular 48-bit space, as an unsigned distance */
static uint64_t sdist(uint64_t a, uint64_t b) {
  return (a - b) & UDCCP_SEQ_MASK;
}

/* window counter distance from -> to, modulo 16 (RFC 4342 §10.2) */
static unsigned wc_dist(uint8_t from, uint8_t to) {
  return (unsigned)(to - from) & 15u;
}

/* The lost-bit of sequence number s (see udccp_tfrc_lh.lost_bits) */
static void lost_set(udccp_tfrc_lh *lh, uint64_t s, int on) {
  uint32_t i = (uint32_t)(s % UDCCP_TFRC_LATE_WIN);
  uint8_t m = (uint8_t)(1u << (i & 7u));
  if (on) {
    lh->lost_bits[i >> 3] = (uint8_t)(lh->lost_bits[i >> 3] | m);
  } else {
    lh->lost_bits[i >> 3] = (uint8_t)(lh->lost_bits[i >> 3] & ~m);
  }
}

/* lost_set() over s .. s+n-1 (n <= LATE_WIN), whole bytes at a time: a
 * hostile sequence jump (issue 12: our work per packet must not grow with
 * the gap the peer makes) costs a memset of at most LATE_WIN / 8 bytes,
 * not one step per sequence number.  2^48 is a multiple of LATE_WIN, so
 * s % LATE_WIN stays continuous across the sequence space's wrap. */
static void lost_fill(udccp_tfrc_lh *lh, uint64_t s, uint64_t n, int on) {
  uint32_t i = (uint32_t)(s % UDCCP_TFRC_LATE_WIN);
  while (n > 0) {
    if ((i & 7u) == 0 && n >= 8) {
      uint32_t bytes = (uint32_t)(n / 8), room = (UDCCP_TFRC_LATE_WIN - i) / 8;
      if (bytes > room) {
        bytes = room;
      }
      memset(&lh->lost_bits[i >> 3], on ? 0xFF : 0, bytes);
      i = (i + bytes * 8) % UDCCP_TFRC_LATE_WIN;
      n -= (uint64_t)bytes * 8;
    } else {
      lost_set(lh, i, on);
      i = (i + 1) % UDCCP_TFRC_LATE_WIN;
      n--;
    }
  }
}

static int lost_get(const udccp_tfrc_lh *lh, uint64_t s) {
  uint32_t i = (uint32_t)(s % UDCCP_TFRC_LATE_WIN);
  return (lh->lost_bits[i >> 3] >> (i & 7u)) & 1;
}

void udccp_tfrc_lh_init(udccp_tfrc_lh *lh, int mode, int sp, int discount) {
  memset(lh, 0, sizeof(*lh));
  lh->mode = (uint8_t)(mode == UDCCP_TFRC_LH_RTT ? UDCCP_TFRC_LH_RTT
                                                 : UDCCP_TFRC_LH_CCVAL);
  lh->sp = (uint8_t)(sp != 0);
  lh->discount = (uint8_t)(discount != 0);
  lh->df = 1.0;
}

uint64_t udccp_tfrc_first_interval(double x_recv_max, uint32_t s,
                                   udccp_tstamp rtt) {
  double unit = s ? (double)s : 1.0;
  double r = (double)(rtt ? rtt : 1) * 1e-9;
  /* RFC 5348 §6.3.1: X_target is at least 0.5 packets per RTT (this also
   * covers a null first interval, when the first data packet is lost). */
  double x = 0.5 * unit / r, p, len;
  if (x_recv_max > x) {
    x = x_recv_max;
  }
  p = udccp_tfrc_calc_p(s ? s : 1, rtt, x);
  if (!(p > 0.0)) {
    return UDCCP_TFRC_SYNTH_LEN_MAX;
  }
  len = floor(1.0 / p + 0.5);
  if (len < 1.0) {
    return 1;
  }
  /* kept whole (the Loss Event Rate option carries it; the Loss Intervals
   * option saturates at 24 bits, RFC 4342 §8.6.1) */
  if (len > (double)UDCCP_TFRC_SYNTH_LEN_MAX) {
    return UDCCP_TFRC_SYNTH_LEN_MAX;
  }
  return (uint64_t)len;
}

uint64_t udccp_tfrc_lh_i0(const udccp_tfrc_lh *lh) {
  if (!lh->started) {
    return 0;
  }
  return lh->li[0].data_len + sdist(lh->seq_max, lh->last);
}

/* A new packet was settled as received (or as the start of an event):
 * update the two "time has passed" predicates of the current event. */
static void note_progress(udccp_tfrc_lh *lh, const udccp_tfrc_rec *r) {
  if (!lh->have_loss) {
    return;
  }
  if (lh->mode == UDCCP_TFRC_LH_CCVAL) {
    if (!r->is_data) {
      return; /* its CCVal is no window counter (RFC 4342 §8.1) */
    }
    /* RFC 4342 §10.2: a packet more than 4 counters (1 RTT) after
     * C(X_prev) separates later losses from this event. */
    if (wc_dist(lh->ev_ccval, r->ccval) > 4) {
      lh->ev_closed = 1;
    }
    /* RFC 4828 §3: more than 2 RTTs = 8 quarter-RTT counters.  Adjacent
     * packets differ by at most 5 (RFC 4342 §8.1), so the distance passes
     * through 9..13 before it can wrap. */
    if (wc_dist(lh->ev_ccval, r->ccval) > 8) {
      lh->li[0].is_long = 1;
    }
  } else if (r->ts > lh->ev_t && lh->rtt <= UINT64_MAX / 2 &&
             r->ts - lh->ev_t > 2 * lh->rtt) {
    lh->li[0].is_long = 1;
  }
}

/* RFC 5348 §5.4-5.5: a new loss event at sequence number x begins a new
 * loss interval. */
static void start_event(udccp_tfrc_lh *lh, uint64_t x, udccp_tstamp t,
                        uint8_t ref_ccval, const udccp_tfrc_rx_ctx *ctx,
                        unsigned *flags) {
  uint32_t i;
  udccp_tfrc_li *li0 = &lh->li[0];
  if (!lh->have_loss) {
    /* RFC 5348 §6.3.1: the interval before the first loss is replaced by
     * the synthetic one that gives X_target at this RTT. */
    double xm = ctx->x_recv_max;
    if (ctx->x_recv_now != NULL) {
      double now = ctx->x_recv_now(ctx->x_recv_ud);
      if (now > xm) {
        xm = now;
      }
    }
    lh->pre_loss_len = li0->data_len;
    li0->data_len = udccp_tfrc_first_interval(xm, ctx->s, ctx->rtt);
    li0->loss_len = 0;
    li0->drops = 0;
    li0->is_long = 1;
    li0->synth = 1;
    *flags |= UDCCP_TFRC_LH_FIRST_LOSS;
  }
  if (lh->discount) {
    /* RFC 5348 §5.5: fold DF into the older intervals' DF_i, then shift */
    for (i = 1; i < lh->n_li; i++) {
      lh->li[i].df *= lh->df;
    }
  }
  memmove(&lh->li[1], &lh->li[0],
          (UDCCP_TFRC_LI_MAX - 1) * sizeof(lh->li[0]));
  if (lh->n_li < UDCCP_TFRC_LI_MAX) {
    lh->n_li++;
  }
  /* the closed interval keeps DF_0 = 1 as its DF_1 (li[0].df is always 1;
   * every interval begins with a loss, so data lengths are >= 1) */
  li0->seq_start = x;
  li0->seq_len = 1;
  li0->loss_len = 1;
  li0->data_len = 1;
  li0->drops = 1;
  li0->df = 1.0;
  li0->nonce = 0;
  li0->nonce_all = 0;
  li0->is_long = 0;
  li0->synth = 0;
  lh->df = 1.0;
  lh->ev_t = t;
  lh->ev_ccval = ref_ccval;
  lh->ev_closed = 0;
  lh->have_loss = 1;
  lh->n_events++;
  *flags |= UDCCP_TFRC_LH_NEW_EVENT;
}

/* cnt lost or marked data packets from x on join the current event: they
 * extend the lossy part (RFC 4342 §6.1); the lossless part, and with it
 * its nonce echo, starts again after them. */
static void join_event(udccp_tfrc_lh *lh, uint64_t x, uint64_t cnt) {
  udccp_tfrc_li *li0 = &lh->li[0];
  if (cnt == 0) {
    return;
  }
  li0->loss_len = sdist(udccp_seq_add(x, (int64_t)(cnt - 1)), li0->seq_start) + 1;
  li0->seq_len += cnt;
  li0->data_len += cnt;
  li0->drops += cnt;
  li0->nonce = 0;
}

/* One lost or CE-marked data packet x with nominal time t. */
static void loss_one(udccp_tfrc_lh *lh, uint64_t x, udccp_tstamp t,
                     uint8_t ref_ccval, const udccp_tfrc_rx_ctx *ctx,
                     unsigned *flags) {
  int newev;
  if (!lh->have_loss) {
    newev = 1;
  } else if (lh->mode == UDCCP_TFRC_LH_CCVAL) {
    newev = lh->ev_closed;
  } else {
    /* RFC 5348 §5.2: T_old + R >= T_new means the same event */
    newev = t > lh->ev_t && t - lh->ev_t > lh->rtt;
  }
  if (newev) {
    start_event(lh, x, t, ref_ccval, ctx, flags);
  } else {
    join_event(lh, x, 1);
  }
  *flags |= UDCCP_TFRC_LH_LOSS;
}

static void settle_recv(udccp_tfrc_lh *lh, const udccp_tfrc_rec *r,
                        const udccp_tfrc_rx_ctx *ctx, unsigned *flags) {
  udccp_tfrc_li *li0;
  lh->last = r->seq;
  lost_set(lh, r->seq, 0); /* the bit may hold s - LATE_WIN's */
  note_progress(lh, r);
  if (r->is_data && r->ecn == ECN_CE) {
    /* RFC 5348 §5.1: a marked packet is a congestion event on arrival;
     * its own arrival time is T_new.  Marks on non-data packets may occur
     * freely in the lossless part (RFC 4342 §6.1). */
    lh->n_marked++;
    loss_one(lh, r->seq, r->ts, lh->prev_cc, ctx, flags);
  } else {
    li0 = &lh->li[0];
    li0->seq_len++;
    if (r->is_data) {
      li0->data_len++;
      if (r->ecn == ECN_ECT1) {
        li0->nonce ^= 1; /* RFC 3540: ECT(1) carries nonce 1 */
        li0->nonce_all ^= 1;
      }
    }
  }
  lh->prev = *r;
  if (r->is_data) {
    lh->prev_cc = r->ccval;
  }
  *flags |= UDCCP_TFRC_LH_SETTLED;
}

/* RFC 5348 §5.2 interpolation: offset (ns) of x's nominal arrival after the
 * received packet before the run, sb/tb, given the one after it. */
static double interp(uint64_t x, uint64_t sb, uint64_t span, double dt) {
  return dt * (double)sdist(x, sb) / (double)span;
}

/* The sequence numbers a .. a+len-1 were lost; r is the received packet
 * right after them, lh->prev the one right before. */
static void settle_run(udccp_tfrc_lh *lh, uint64_t a, uint64_t len,
                       const udccp_tfrc_rec *r, const udccp_tfrc_rx_ctx *ctx,
                       unsigned *flags) {
  /* RFC 4340 §7.7: the NDP Count of r says how many packets right before
   * it were non-data; the rest of the run must be assumed data (RFC 4342
   * §6.1). */
  uint64_t nd = r->ndp < len ? r->ndp : len;
  uint64_t ndata = len - nd, x = a, left = ndata, k;
  uint8_t ref = lh->prev_cc; /* C(X_prev), X_prev a data packet */
  lh->n_lost += ndata;
  /* remember the lost data packets for a late arrival (only the last
   * LATE_WIN sequence numbers of the run can still be in the window) */
  k = len > UDCCP_TFRC_LATE_WIN ? len - UDCCP_TFRC_LATE_WIN : 0;
  if (k < ndata) {
    lost_fill(lh, udccp_seq_add(a, (int64_t)k), ndata - k, 1);
    k = ndata;
  }
  lost_fill(lh, udccp_seq_add(a, (int64_t)k), len - k, 0);
  if (lh->mode == UDCCP_TFRC_LH_CCVAL) {
    /* RFC 4342 §10.2: X_prev = Y_prev for all losses of one run, so the
     * whole run belongs to one event. */
    if (left > 0) {
      loss_one(lh, x, r->ts, ref, ctx, flags);
      join_event(lh, udccp_seq_add(x, 1), left - 1);
    }
  } else {
    uint64_t sb = lh->prev.seq, span = sdist(r->seq, sb);
    udccp_tstamp tb = lh->prev.ts;
    double dt = r->ts > tb ? (double)(r->ts - tb) : 0.0;
    unsigned events = 0;
    while (left > 0) {
      double lim, off = interp(x, sb, span, dt);
      uint64_t lo, hi;
      /* the offset of the event start relative to tb, plus R */
      lim = (lh->ev_t >= tb ? (double)(lh->ev_t - tb)
                            : -(double)(tb - lh->ev_t)) +
            (double)lh->rtt;
      if (!lh->have_loss || off > lim) {
        if (events >= UDCCP_TFRC_RUN_EVENTS_MAX) {
          join_event(lh, x, left);
          break;
        }
        start_event(lh, x, tb + (udccp_tstamp)(off + 0.5), ref, ctx, flags);
        *flags |= UDCCP_TFRC_LH_LOSS;
        events++;
        x = udccp_seq_add(x, 1);
        left--;
        continue;
      }
      /* binary search: the largest j <= left with the j-th packet from x
       * (0-based, j-1) still inside the event; interp is monotonic. */
      lo = 1; /* x itself joins */
      hi = left;
      while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (interp(udccp_seq_add(x, (int64_t)(mid - 1)), sb, span, dt) <= lim) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      join_event(lh, x, lo);
      *flags |= UDCCP_TFRC_LH_LOSS;
      x = udccp_seq_add(x, (int64_t)lo);
      left -= lo;
    }
  }
  lh->li[0].seq_len += nd; /* lost non-data packets: sequence length only */
  lh->last = udccp_seq_add(a, (int64_t)(len - 1));
}

/* RFC 5348 §5.5: DF, recomputed on every arrival. */
static void update_df(udccp_tfrc_lh *lh) {
  double itot = 0.0, wtot = 0.0, imean, i0;
  uint32_t i;
  if (!lh->discount || !lh->have_loss || lh->n_li < 2) {
    return;
  }
  for (i = 1; i < lh->n_li && i <= UDCCP_TFRC_NINTERVAL; i++) {
    wtot += tfrc_w5[i - 1] * lh->li[i].df;
    itot += (double)lh->li[i].data_len * tfrc_w5[i - 1] * lh->li[i].df;
  }
  if (!(wtot > 0.0)) {
    return;
  }
  imean = itot / wtot;
  i0 = (double)udccp_tfrc_lh_i0(lh);
  if (i0 > 2.0 * imean) {
    lh->df = 2.0 * imean / i0;
    if (lh->df < UDCCP_TFRC_DF_THRESHOLD) {
      lh->df = UDCCP_TFRC_DF_THRESHOLD;
    }
  } else {
    lh->df = 1.0;
  }
}

/* Interval k's losses all came late: the loss event was spurious
 * (reordering, RFC 5348 §5.1), so k joins the interval before it, k + 1,
 * whose lossless part now runs through k (its nonce echo with it).  If k
 * was the current event, the next loss starts a new one. */
static void undo_event(udccp_tfrc_lh *lh, uint32_t k) {
  udccp_tfrc_li *a = &lh->li[k], *b = &lh->li[k + 1];
  uint32_t i;
  b->seq_len += a->seq_len;
  b->data_len += a->data_len;
  b->nonce ^= a->nonce_all;
  b->nonce_all ^= a->nonce_all;
  b->is_long |= a->is_long;
  memmove(a, b, (lh->n_li - k - 1) * sizeof(*a));
  lh->n_li--;
  memset(&lh->li[lh->n_li], 0, sizeof(lh->li[0]));
  lh->n_undone++;
  if (k == 0) {
    lh->ev_closed = 1;
    lh->ev_t = 0;
  }
  if (lh->discount) {
    /* RFC 5348 §5.5: the discount factors follow the new intervals, as a
     * sender recomputes them from the Loss Intervals option */
    double len[UDCCP_TFRC_LI_MAX] = {0}, df[UDCCP_TFRC_LI_MAX];
    for (i = 0; i < lh->n_li; i++) {
      len[i] = i == 0 ? (double)udccp_tfrc_lh_i0(lh) : (double)lh->li[i].data_len;
    }
    udccp_tfrc_li_discount(len, lh->n_li, df, &lh->df);
    for (i = 0; i < lh->n_li; i++) {
      lh->li[i].df = i == 0 ? 1.0 : df[i];
    }
  }
}

/* RFC 5348 §5.1: "if a packet arrives late (after NDUPACK subsequent
 * packets arrived) in TFRC, the late packet can fill the hole in TFRC's
 * reception record, and the receiver can recalculate the loss event
 * rate."  r is at or below the frontier.  Returns UDCCP_TFRC_LH_UNDONE if
 * it was declared lost and now counts as received, else 0 (a duplicate, a
 * CE-marked packet, which stays a congestion signal, or one too late for
 * the window or the intervals kept). */
static unsigned fill_late(udccp_tfrc_lh *lh, const udccp_tfrc_rec *r) {
  udccp_tfrc_li *li;
  uint32_t k;
  if (!lh->have_loss || sdist(lh->last, r->seq) >= UDCCP_TFRC_LATE_WIN ||
      !lost_get(lh, r->seq)) {
    return 0;
  }
  lost_set(lh, r->seq, 0);
  if (r->is_data && r->ecn == ECN_CE) {
    return 0;
  }
  for (k = 0; k < lh->n_li; k++) {
    if (udccp_seq_le(lh->li[k].seq_start, r->seq)) {
      break;
    }
  }
  if (k == lh->n_li || lh->li[k].drops == 0 || lh->li[k].synth) {
    return 0;
  }
  li = &lh->li[k];
  li->drops--;
  lh->n_lost--;
  lh->n_filled++;
  if (!r->is_data && li->data_len > 1) {
    li->data_len--; /* counted as data (RFC 4342 §6.1), it was not */
  }
  if (r->is_data && r->ecn == ECN_ECT1) {
    li->nonce_all ^= 1;
  }
  if (li->drops == 0 && k + 1 < lh->n_li && !lh->li[k + 1].synth) {
    undo_event(lh, k);
  }
  if (lh->n_li == 2 && lh->li[1].synth && lh->li[0].drops == 0) {
    /* the first loss event was the last left, and it was spurious: no
     * loss at all, so p is 0 again (RFC 5348 §6.3.1's synthetic interval
     * is for a first loss that stands) */
    udccp_tfrc_li *b = &lh->li[1];
    b->data_len = lh->pre_loss_len;
    b->synth = 0;
    undo_event(lh, 0);
    lh->have_loss = 0;
    lh->df = 1.0;
    lh->li[0].df = 1.0;
    lh->li[0].is_long = 0; /* measured only once a loss event began */
  }
  return UDCCP_TFRC_LH_UNDONE;
}

unsigned udccp_tfrc_lh_add(udccp_tfrc_lh *lh, const udccp_tfrc_rx_pkt *pkt,
                           const udccp_tfrc_rx_ctx *ctx) {
  udccp_tfrc_rec r;
  unsigned flags = 0;
  uint32_t i;
  int force;
  r.seq = pkt->seq & UDCCP_SEQ_MASK;
  r.ts = pkt->ts;
  r.ndp = pkt->ndp;
  r.ccval = (uint8_t)(pkt->ccval & 15);
  r.ecn = (uint8_t)(pkt->ecn & 3);
  r.is_data = (uint8_t)(pkt->is_data != 0);
  lh->rtt = ctx->rtt;

  if (!lh->started) {
    lh->started = 1;
    lh->n_li = 1;
    lh->li[0].seq_start = r.seq;
    lh->li[0].df = 1.0;
    lh->seq_max = r.seq;
    lh->prev = r;
    settle_recv(lh, &r, ctx, &flags);
    return flags;
  }
  if (lh->n_pend == 0 && r.seq == udccp_seq_add(lh->last, 1)) {
    /* the next packet in order, nothing waiting above a hole (the common
     * case): settled at once, as the loop below would */
    lh->seq_max = udccp_seq_max(lh->seq_max, r.seq);
    settle_recv(lh, &r, ctx, &flags);
    update_df(lh);
    return flags;
  }
  if (udccp_seq_le(r.seq, lh->last)) {
    flags = fill_late(lh, &r);
    if (flags != 0) {
      return flags;
    }
    lh->n_late++;
    return UDCCP_TFRC_LH_DUP;
  }
  for (i = 0; i < lh->n_pend; i++) {
    if (lh->pend[i].seq == r.seq) {
      lh->n_late++;
      return UDCCP_TFRC_LH_DUP;
    }
  }
  /* insert into the sorted pending list; at most NDUPACK - 1 wait there
   * between calls, so there is room */
  i = lh->n_pend;
  while (i > 0 && udccp_seq_gt(lh->pend[i - 1].seq, r.seq)) {
    lh->pend[i] = lh->pend[i - 1];
    i--;
  }
  lh->pend[i] = r;
  lh->n_pend++;
  lh->seq_max = udccp_seq_max(lh->seq_max, r.seq);
  force = r.is_data && r.ecn == ECN_CE;

  for (;;) {
    udccp_tfrc_rec head;
    uint64_t next = udccp_seq_add(lh->last, 1);
    if (lh->n_pend == 0) {
      break;
    }
    head = lh->pend[0];
    if (head.seq != next) {
      /* RFC 5348 §5.1: the hole below head is a loss once NDUPACK packets
       * lie above it; a CE mark above it settles it at once. */
      if (lh->n_pend < UDCCP_TFRC_NDUPACK &&
          !(force && udccp_seq_gt(r.seq, lh->last))) {
        break;
      }
      settle_run(lh, next, sdist(head.seq, next), &head, ctx, &flags);
    }
    memmove(&lh->pend[0], &lh->pend[1], (lh->n_pend - 1) * sizeof(lh->pend[0]));
    lh->n_pend--;
    settle_recv(lh, &head, ctx, &flags);
  }
  update_df(lh);
  return flags;
}

double udccp_tfrc_calc_p_intervals(const double *len, size_t n,
                                   const double *df, double DF,
                                   int i0_excluded) {
  double itot0 = 0.0, itot1 = 0.0, wtot0 = 0.0, wtot1 = 0.0, p0, p1, p;
  size_t i, k;
  if (n < 2) {
    return 0.0;
  }
  k = n - 1;
  if (k > UDCCP_TFRC_NINTERVAL) {
    k = UDCCP_TFRC_NINTERVAL;
  }
  /* RFC 5348 §5.4 (and §5.5 with DF_i, DF): I_tot0 over I_0..I_(k-1),
   * I_tot1 over I_1..I_k, with w_i for I_i resp. w_(i-1) for I_i. */
  for (i = 0; i < k; i++) {
    double d = i == 0 ? 1.0 : (df ? df[i] : 1.0) * DF;
    itot0 += len[i] * tfrc_w5[i] * d;
    wtot0 += tfrc_w5[i] * d;
  }
  for (i = 1; i <= k; i++) {
    double d = df ? df[i] : 1.0;
    itot1 += len[i] * tfrc_w5[i - 1] * d;
    wtot1 += tfrc_w5[i - 1] * d;
  }
  p1 = itot1 > 0.0 ? wtot1 / itot1 : 1.0;
  if (i0_excluded) {
    p = p1; /* RFC 4828 §3: a short I_0 only counts through I_tot1 */
  } else {
    p0 = itot0 > 0.0 ? wtot0 / itot0 : 1.0;
    /* include I_0 only if it lowers p, i.e. raises I_mean */
    p = p0 < p1 ? p0 : p1;
  }
  return p > 1.0 ? 1.0 : p;
}

/* RFC 5348 §5.5: the general discount factor DF for a current interval of
 * length i0 over the closed intervals len[1..k] with their DF_i, df[1..k]:
 * 2 I_mean / I_0 (at least THRESHOLD) if I_0 > 2 I_mean, else 1. */
static double discount_factor(double i0, const double *len, const double *df,
                              size_t k) {
  double itot = 0.0, wtot = 0.0, imean, d;
  size_t i;
  for (i = 1; i <= k && i <= UDCCP_TFRC_NINTERVAL; i++) {
    wtot += tfrc_w5[i - 1] * df[i];
    itot += len[i] * tfrc_w5[i - 1] * df[i];
  }
  if (!(wtot > 0.0)) {
    return 1.0;
  }
  imean = itot / wtot;
  if (!(i0 > 2.0 * imean)) {
    return 1.0;
  }
  d = 2.0 * imean / i0;
  return d < UDCCP_TFRC_DF_THRESHOLD ? UDCCP_TFRC_DF_THRESHOLD : d;
}

void udccp_tfrc_li_discount(const double *len, size_t n, double *df,
                            double *DF) {
  double e[UDCCP_TFRC_LI_MAX], rel[UDCCP_TFRC_LI_MAX];
  size_t k, m, j;
  if (n > UDCCP_TFRC_LI_MAX) {
    n = UDCCP_TFRC_LI_MAX;
  }
  for (j = 0; j < n; j++) {
    df[j] = 1.0;
  }
  *DF = 1.0;
  if (n < 2) {
    return;
  }
  k = n - 1;
  /* e[m]: the DF in force when I_m closed (its final length against the
   * intervals closed then, I_(m+1).., discounted as they were then); at
   * that event every older DF_i was multiplied by it (§5.5).  The oldest
   * interval has no known predecessors: e = 1. */
  e[k] = 1.0;
  for (m = k - 1; m >= 1; m--) {
    rel[0] = 1.0;
    for (j = 1; m + j <= k; j++) {
      rel[j] = j == 1 ? 1.0 : rel[j - 1] * e[m + j - 1];
    }
    e[m] = discount_factor(len[m], &len[m], rel, k - m);
  }
  for (j = 2; j <= k; j++) {
    df[j] = df[j - 1] * e[j - 1];
  }
  *DF = discount_factor(len[0], len, df, k);
}

double udccp_tfrc_lh_p(const udccp_tfrc_lh *lh) {
  double len[UDCCP_TFRC_LI_MAX], df[UDCCP_TFRC_LI_MAX];
  uint32_t i;
  if (!lh->have_loss) {
    return 0.0; /* RFC 5348 §5: no loss seen, report p = 0 */
  }
  for (i = 0; i < lh->n_li; i++) {
    const udccp_tfrc_li *li = &lh->li[i];
    double l = i == 0 ? (double)udccp_tfrc_lh_i0(lh) : (double)li->data_len;
    if (lh->sp && i > 0 && !li->is_long) {
      /* RFC 4828 §4.4: a short interval of N packets with K losses
       * counts as N/K */
      l /= (double)(li->drops ? li->drops : 1);
    }
    len[i] = l;
    df[i] = li->df;
  }
  return udccp_tfrc_calc_p_intervals(len, lh->n_li, lh->discount ? df : NULL,
                                     lh->discount ? lh->df : 1.0,
                                     lh->sp && !lh->li[0].is_long);
}

static void put24(uint8_t *p, uint64_t v) {
  if (v > 0xFFFFFFu) {
    v = 0xFFFFFFu;
  }
  p[0] = (uint8_t)(v >> 16);
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)v;
}

static uint32_t get24(const uint8_t *p) {
  return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static size_t n_report(const udccp_tfrc_lh *lh, size_t max_iv) {
  size_t n = lh->n_li;
  if (max_iv != 0 && max_iv < n) {
    n = max_iv;
  }
  return n;
}

udccp_ssize udccp_tfrc_lh_write_li(const udccp_tfrc_lh *lh, uint64_t ack,
                                   uint8_t *buf, size_t cap, size_t max_iv) {
  size_t n, i, need;
  uint64_t gap, extra = 0;
  if (!lh->started) {
    return UDCCP_ERR_INVALID_STATE;
  }
  n = n_report(lh, max_iv);
  need = 1 + 9 * n;
  if (cap < need) {
    return UDCCP_ERR_NOBUF;
  }
  /* RFC 4342 §8.6.1: Skip Length counts the sequence numbers after the
   * newest interval up to and including the Acknowledgement Number */
  gap = udccp_seq_lt(ack, lh->last) ? 0 : sdist(ack, lh->last);
  if (gap > 255) {
    extra = gap - 255;
    gap = 255;
  }
  buf[0] = (uint8_t)gap;
  for (i = 0; i < n; i++) {
    const udccp_tfrc_li *li = &lh->li[i];
    uint64_t seq_len = li->seq_len + (i == 0 ? extra : 0);
    uint64_t loss = li->loss_len > UDCCP_TFRC_LOSS_LEN_MAX
                        ? UDCCP_TFRC_LOSS_LEN_MAX
                        : li->loss_len;
    /* RFC 4342 §6.1.1: before the first loss the data length is 0 */
    uint64_t data = lh->have_loss ? li->data_len : 0;
    uint8_t *q = buf + 1 + 9 * i;
    put24(q, seq_len - li->loss_len);
    put24(q + 3, loss | ((uint64_t)(li->nonce & 1) << 23));
    put24(q + 6, data);
  }
  return (udccp_ssize)need;
}

udccp_ssize udccp_tfrc_lh_write_dp(const udccp_tfrc_lh *lh, uint8_t *buf,
                                   size_t cap, size_t max_iv) {
  size_t n, i;
  if (!lh->started) {
    return UDCCP_ERR_INVALID_STATE;
  }
  n = n_report(lh, max_iv);
  if (cap < 3 * n) {
    return UDCCP_ERR_NOBUF;
  }
  for (i = 0; i < n; i++) {
    const udccp_tfrc_li *li = &lh->li[i];
    /* RFC 5622 §8.7: Drop Count <= Loss Length by definition */
    put24(buf + 3 * i, li->drops < li->loss_len ? li->drops : li->loss_len);
  }
  return (udccp_ssize)(3 * n);
}

int udccp_tfrc_li_parse(const uint8_t *val, size_t len, uint64_t ack,
                        udccp_tfrc_li_info *out, size_t cap, size_t *n,
                        uint8_t *skip) {
  size_t k, i;
  uint64_t end;
  if (len < 10 || (len - 1) % 9 != 0) {
    return UDCCP_ERR_OPTION;
  }
  k = (len - 1) / 9;
  *skip = val[0];
  end = udccp_seq_add(ack & UDCCP_SEQ_MASK, -(int64_t)val[0]);
  for (i = 0; i < k && i < cap; i++) {
    const uint8_t *q = val + 1 + 9 * i;
    uint32_t el = get24(q + 3);
    out[i].seq_end = end;
    out[i].lossless = get24(q);
    out[i].loss_len = el & UDCCP_TFRC_LOSS_LEN_MAX;
    out[i].ecn = (uint8_t)(el >> 23);
    out[i].data_len = get24(q + 6);
    out[i].drops = out[i].loss_len; /* RFC 5622 §8.7 default */
    end = udccp_seq_add(end, -(int64_t)((uint64_t)out[i].lossless +
                                        out[i].loss_len));
  }
  *n = i;
  return 0;
}

int udccp_tfrc_dp_apply(const uint8_t *val, size_t len,
                        udccp_tfrc_li_info *li, size_t n) {
  size_t i;
  if (len % 3 != 0) {
    return UDCCP_ERR_OPTION;
  }
  for (i = 0; i < len / 3 && i < n; i++) {
    uint32_t d = get24(val + 3 * i);
    li[i].drops = d < li[i].loss_len ? d : li[i].loss_len;
  }
  return 0;
}

double udccp_tfrc_li_calc_p(const udccp_tfrc_li_info *li, size_t n,
                            const uint8_t *is_short, int sp) {
  double len[UDCCP_TFRC_LI_MAX];
  size_t i;
  if (n > UDCCP_TFRC_LI_MAX) {
    n = UDCCP_TFRC_LI_MAX;
  }
  for (i = 0; i < n; i++) {
    len[i] = (double)li[i].data_len;
    if (sp && i > 0 && is_short && is_short[i]) {
      len[i] /= (double)(li[i].drops ? li[i].drops : 1);
    }
  }
  return udccp_tfrc_calc_p_intervals(len, n, NULL, 1.0,
                                     sp && is_short && is_short[0]);
}

double udccp_tfrc_li_calc_p_discounted(const udccp_tfrc_li_info *li,
                                       size_t n) {
  double len[UDCCP_TFRC_LI_MAX], df[UDCCP_TFRC_LI_MAX], DF;
  size_t i;
  if (n > UDCCP_TFRC_LI_MAX) {
    n = UDCCP_TFRC_LI_MAX;
  }
  for (i = 0; i < n; i++) {
    len[i] = (double)li[i].data_len;
  }
  udccp_tfrc_li_discount(len, n, df, &DF);
  return udccp_tfrc_calc_p_intervals(len, n, df, DF, 0);
}

void udccp_tfrc_wc_rtt_init(udccp_tfrc_wc_rtt *w) {
  memset(w, 0, sizeof(*w));
}

udccp_tstamp udccp_tfrc_wc_rtt_add(udccp_tfrc_wc_rtt *w, uint8_t ccval,
                                   udccp_tstamp ts) {
  uint8_t c = (uint8_t)(ccval & 15);
  unsigned d, i;
  static const unsigned dd[3] = {4, 3, 2}; /* D = 4 SHOULD be preferred */
  if (!w->started) {
    w->started = 1;
    w->last = c;
    w->t[c] = ts;
    w->valid = (uint16_t)(1u << c);
    return 0;
  }
  d = wc_dist(w->last, c);
  if (d == 0 || d >= 8) {
    return 0; /* same counter, or reordered from behind */
  }
  /* values skipped on the way are not "first arrivals" of this pass */
  for (i = 1; i < d; i++) {
    w->valid = (uint16_t)(w->valid & ~(1u << ((w->last + i) & 15u)));
  }
  w->t[c] = ts;
  w->valid = (uint16_t)(w->valid | (1u << c));
  w->last = c;
  for (i = 0; i < 3; i++) {
    unsigned k = (c - dd[i]) & 15u;
    if ((w->valid & (1u << k)) && ts >= w->t[k]) {
      udccp_tstamp span = ts - w->t[k];
      /* span * 4/D without overflow */
      udccp_tstamp e = span / dd[i] * 4 + span % dd[i] * 4 / dd[i];
      w->rtt = e ? e : 1;
      return w->rtt;
    }
  }
  return 0;
}

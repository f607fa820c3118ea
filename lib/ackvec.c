/*
 * Ack Vectors (RFC 4340 §11.4, Appendix A).
 *
 * The receiver keeps one state byte per sequence number in a ring indexed
 * by seq & (cap - 1), covering tail..head.  Encoding into runs happens only
 * when an ack is written, so recording a packet is O(1) (plus the filling
 * of a gap).
 */
#include "ackvec.h"

#include <string.h>

#include "seq.h"

#define REC_CAP 8u         /* initial ack records (Appendix A.1; small: issue 13) ... */
#define REC_MAX 65536u     /* ... growing up to this: one per ack in flight */
#define MAX_RUN 64u        /* 6-bit run length + 1 (§11.4) */
#define MAX_AV_LEN 253u    /* option value bytes (§11.4) */

static size_t av_len(const udccp_ackvec *av) {
  if (!av->head_valid) {
    return 0;
  }
  /* tail == head + 1 means "trimmed to nothing, head still known"; the
   * span is at most UDCCP_ACKVEC_MAX otherwise. */
  {
    uint64_t d = ((av->head - av->tail) & UDCCP_SEQ_MASK) + 1;
    return d > UDCCP_SEQ_MASK ? 0 : (size_t)d;
  }
}

static uint8_t *slot(const udccp_ackvec *av, uint64_t seq) {
  return &av->states[seq & (av->cap - 1)];
}

/* A slot holds the 2-bit state and, in bit 2, the ECN nonce the packet
 * carried (§12.2: ECT(1) is nonce 1, RFC 3540 §2). */
#define NONCE_BIT 0x04u
static uint8_t st_at(const udccp_ackvec *av, uint64_t seq) {
  return (uint8_t)(*slot(av, seq) & 3u);
}

int udccp_ackvec_init(udccp_ackvec *av, const udccp_mem *mem, size_t cap) {
  size_t c = 64;
  memset(av, 0, sizeof(*av));
  av->mem = mem ? mem : udccp_mem_default();
  while (c < cap && c < UDCCP_ACKVEC_MAX) {
    c <<= 1;
  }
  av->states = av->mem->malloc(c, av->mem->user_data);
  av->recs = av->mem->malloc(REC_CAP * sizeof(*av->recs), av->mem->user_data);
  if (!av->states || !av->recs) {
    udccp_ackvec_free(av);
    return UDCCP_ERR_NOMEM;
  }
  av->cap = c;
  av->rec_cap = REC_CAP;
  av->empty = 1;
  return 0;
}

void udccp_ackvec_free(udccp_ackvec *av) {
  if (av->mem) {
    if (av->states) {
      av->mem->free(av->states, av->mem->user_data);
    }
    if (av->recs) {
      av->mem->free(av->recs, av->mem->user_data);
    }
  }
  av->states = NULL;
  av->recs = NULL;
  av->cap = 0;
  av->rec_n = 0;
  av->empty = 1;
  av->head_valid = 0;
}

/* Makes room for need sequence numbers; rebuilding the ring keeps each
 * seq at index seq & (cap - 1). */
static int av_grow(udccp_ackvec *av, size_t need) {
  size_t c = av->cap, n = av_len(av), i;
  uint8_t *s;
  while (c < need) {
    c <<= 1;
  }
  if (c == av->cap) {
    return 0;
  }
  s = av->mem->malloc(c, av->mem->user_data);
  if (!s) {
    return UDCCP_ERR_NOMEM;
  }
  for (i = 0; i < n; i++) {
    uint64_t q = udccp_seq_add(av->tail, (int64_t)i);
    s[q & (c - 1)] = *slot(av, q);
  }
  av->mem->free(av->states, av->mem->user_data);
  av->states = s;
  av->cap = c;
  return 0;
}

/* A late arrival changes what earlier acks said about seq: records that
 * reported it as Not Received must not let the tail move past it before a
 * newer vector reporting its arrival is acknowledged (Appendix A.3). */
static void av_recs_hold(udccp_ackvec *av, uint64_t seq) {
  size_t i;
  uint64_t cap_ack = udccp_seq_add(seq, -1);
  for (i = 0; i < av->rec_n; i++) {
    size_t k = (av->rec_head + av->rec_cap - 1 - i) % av->rec_cap;
    if (udccp_seq_ge(av->recs[k].ackno, seq)) {
      av->recs[k].ackno = cap_ack;
    }
  }
}

int udccp_ackvec_record(udccp_ackvec *av, uint64_t seq, uint8_t state) {
  return udccp_ackvec_record_nonce(av, seq, state, 0);
}

int udccp_ackvec_record_ecn(udccp_ackvec *av, uint64_t seq, uint8_t ecn) {
  /* §12.2: CE is a mark (the nonce is destroyed); ECT(1) carries nonce 1,
   * ECT(0) and Not-ECT nonce 0. */
  if ((ecn & 3) == 3) {
    return udccp_ackvec_record_nonce(av, seq, UDCCP_AV_ECN_MARKED, 0);
  }
  return udccp_ackvec_record_nonce(av, seq, UDCCP_AV_RECEIVED,
                                   (ecn & 3) == 1 ? 1 : 0);
}

static int av_put(udccp_ackvec *av, uint64_t seq, uint8_t state,
                  uint8_t nonce);

int udccp_ackvec_record_nonce(udccp_ackvec *av, uint64_t seq, uint8_t state,
                              uint8_t nonce) {
  seq &= UDCCP_SEQ_MASK;
  if (state != UDCCP_AV_RECEIVED && state != UDCCP_AV_ECN_MARKED) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return av_put(av, seq, state, nonce);
}

int udccp_ackvec_skip_to(udccp_ackvec *av, uint64_t seq) {
  seq &= UDCCP_SEQ_MASK;
  /* §11.4: a packet that moved GSR but was not processed (§8.5 step 7)
   * heads the vector as Not Received; an older one is a hole already. */
  if (!av->head_valid || !udccp_seq_gt(seq, av->head)) {
    return 0;
  }
  return av_put(av, seq, UDCCP_AV_NOT_RECEIVED, 0);
}

static int av_put(udccp_ackvec *av, uint64_t seq, uint8_t state,
                  uint8_t nonce) {
  if (state == UDCCP_AV_RECEIVED && nonce) {
    state |= NONCE_BIT;
  }
  if (!av->head_valid) {
    av->head = av->tail = seq;
    av->head_valid = 1;
    av->empty = 0;
    *slot(av, seq) = state;
    return 0;
  }
  if (udccp_seq_gt(seq, av->head)) {
    uint64_t tail = av->tail, q;
    uint64_t span = (uint64_t)udccp_seq_sub(seq, tail) + 1;
    int rv;
    if (span > UDCCP_ACKVEC_MAX) {
      /* Too long to keep: forget the oldest packets (they were reported
       * in earlier acks, or are too old to matter). */
      tail = udccp_seq_add(seq, -(int64_t)(UDCCP_ACKVEC_MAX - 1));
      span = UDCCP_ACKVEC_MAX;
    }
    if (span > av->cap) {
      if (udccp_seq_gt(tail, av->head)) {
        av->tail = udccp_seq_add(av->head, 1); /* nothing to copy */
      } else {
        av->tail = tail;
      }
      rv = av_grow(av, (size_t)span);
      if (rv != 0) {
        return rv;
      }
    }
    /* §11.4, A.1.1: the packets skipped over have not been received. */
    q = udccp_seq_gt(tail, av->head) ? tail : udccp_seq_add(av->head, 1);
    for (; q != seq; q = udccp_seq_add(q, 1)) {
      *slot(av, q) = UDCCP_AV_NOT_RECEIVED;
    }
    *slot(av, seq) = state;
    av->head = seq;
    av->tail = tail;
    av->empty = 0;
    return 0;
  }
  if (udccp_seq_lt(seq, av->tail) || av_len(av) == 0) {
    return UDCCP_ERR_DROPPED; /* already acked-of-acked: too old */
  }
  /* A.1.2: an old packet fills its hole, or is a duplicate. */
  {
    uint8_t *s = slot(av, seq);
    if ((*s & 3u) == UDCCP_AV_NOT_RECEIVED) {
      *s = state;
      av_recs_hold(av, seq);
      return 0;
    }
    /* §11.4.1 receiver table: a duplicate may turn Received into Received
     * ECN Marked; we keep the mark (the conservative choice). */
    if ((*s & 3u) == UDCCP_AV_RECEIVED && state == UDCCP_AV_ECN_MARKED) {
      *s = UDCCP_AV_ECN_MARKED;
    }
    return UDCCP_ERR_DROPPED;
  }
}

/* Doubles the record ring, oldest record first at index 0. */
static int av_recs_grow(udccp_ackvec *av) {
  size_t c = av->rec_cap * 2, i;
  udccp_ackvec_rec *r = av->mem->malloc(c * sizeof(*r), av->mem->user_data);
  if (!r) {
    return UDCCP_ERR_NOMEM; /* keep overwriting the oldest instead */
  }
  for (i = 0; i < av->rec_n; i++) {
    r[i] = av->recs[(av->rec_head + av->rec_cap - av->rec_n + i) %
                    av->rec_cap];
  }
  av->mem->free(av->recs, av->mem->user_data);
  av->recs = r;
  av->rec_cap = c;
  av->rec_head = av->rec_n;
  return 0;
}

/* Number of vector bytes needed for head..tail. */
static size_t av_count_bytes(const udccp_ackvec *av, size_t limit,
                             size_t *covered) {
  size_t n = av_len(av), i = 0, bytes = 0;
  while (i < n && bytes < limit) {
    uint64_t q = udccp_seq_add(av->head, -(int64_t)i);
    uint8_t st = st_at(av, q);
    size_t run = 1;
    while (run < MAX_RUN && i + run < n &&
           st_at(av, udccp_seq_add(q, -(int64_t)run)) == st) {
      run++;
    }
    i += run;
    bytes++;
  }
  *covered = i;
  return bytes;
}

int udccp_ackvec_write(udccp_ackvec *av, udccp_optbuf *ob, uint64_t pkt_seq) {
  size_t room, max_bytes, covered, nbytes, n_opts, i = 0, n;
  uint8_t vec[MAX_AV_LEN];
  if (av_len(av) == 0) {
    return 0;
  }
  room = sizeof(ob->buf) - ob->len;
  /* Each option costs 2 header bytes per up to 253 vector bytes. */
  n_opts = (room + MAX_AV_LEN + 1) / (MAX_AV_LEN + 2);
  if (room < 3) {
    return UDCCP_ERR_NOBUF;
  }
  max_bytes = room - 2 * n_opts;
  nbytes = av_count_bytes(av, max_bytes, &covered);
  if (covered < av_len(av)) {
    /* §11.4.2 asks for the whole Acknowledgement Window; what does not fit
     * is the oldest part, which earlier acks reported: forget it so that
     * the ack record below stays truthful. */
    av->tail = udccp_seq_add(av->head, -(int64_t)(covered - 1));
  }
  n = av_len(av);
  while (nbytes > 0) {
    size_t k = 0;
    unsigned nonce = 0;
    int rv;
    while (k < MAX_AV_LEN && i < n) {
      uint64_t q = udccp_seq_add(av->head, -(int64_t)i);
      uint8_t st = st_at(av, q);
      size_t run = 1;
      nonce ^= (unsigned)(*slot(av, q) >> 2) & 1u;
      while (run < MAX_RUN && i + run < n &&
             st_at(av, udccp_seq_add(q, -(int64_t)run)) == st) {
        nonce ^= (unsigned)(*slot(av, udccp_seq_add(q, -(int64_t)run)) >> 2) &
                 1u;
        run++;
      }
      vec[k++] = (uint8_t)((st << 6) | (run - 1));
      i += run;
    }
    /* §12.2: the option type carries the one-bit sum of the nonces of the
     * packets it reports in state 0 (only those have the bit set). */
    rv = udccp_optbuf_put(
        ob, (uint8_t)(nonce ? UDCCP_OPT_ACK_VECTOR_1 : UDCCP_OPT_ACK_VECTOR_0),
        0, vec, k);
    if (rv != 0) {
      return rv;
    }
    nbytes -= k;
  }
  /* Appendix A.2: remember what this packet acknowledged.  A record
   * overwritten before its ack of ack arrives would stop the trimming, so
   * the ring grows while acks are in flight. */
  if (av->rec_n == av->rec_cap && av->rec_cap < REC_MAX) {
    (void)av_recs_grow(av);
  }
  av->recs[av->rec_head].seq = pkt_seq & UDCCP_SEQ_MASK;
  av->recs[av->rec_head].ackno = av->head;
  av->rec_head = (av->rec_head + 1) % av->rec_cap;
  if (av->rec_n < av->rec_cap) {
    av->rec_n++;
  }
  return 0;
}

/* Clears state with the i-th newest record (Appendix A.3). */
static void av_clear_with(udccp_ackvec *av, size_t i) {
  size_t k = (av->rec_head + av->rec_cap - 1 - i) % av->rec_cap;
  uint64_t newtail = udccp_seq_add(av->recs[k].ackno, 1);
  if (av->head_valid && udccp_seq_gt(newtail, av->tail) &&
      udccp_seq_le(newtail, udccp_seq_add(av->head, 1))) {
    av->tail = newtail;
    av->empty = av_len(av) == 0;
  }
  /* Throw away R and every preceding record: keep the i newer ones. */
  av->rec_n = i;
}

static uint64_t rec_seq(const udccp_ackvec *av, size_t i) {
  return av->recs[(av->rec_head + av->rec_cap - 1 - i) % av->rec_cap].seq;
}

void udccp_ackvec_on_ack(udccp_ackvec *av, uint64_t ackno) {
  size_t i;
  ackno &= UDCCP_SEQ_MASK;
  /* The newest record at or below ackno.  The peer's Acknowledgement
   * Number is its GSR, usually one of our Data packets, which carry no
   * vector; an exact match alone would rarely trim.  This assumes the
   * peer got the vector packets before ackno; udccp_ackvec_on_peer_acks()
   * knows it for sure when the peer sends Ack Vectors. */
  for (i = 0; i < av->rec_n; i++) {
    if (udccp_seq_le(rec_seq(av, i), ackno)) {
      av_clear_with(av, i);
      return;
    }
  }
}

typedef struct peer_walk {
  const udccp_ackvec *av;
  size_t i;       /* next record to look at, newest first */
  int found;
} peer_walk;

/* Runs come newest first, records are kept in sending order: one merge
 * pass finds the newest record whose packet the peer reports received. */
static int peer_run(uint64_t hi, uint64_t lo, uint8_t state, void *ud) {
  peer_walk *w = ud;
  while (w->i < w->av->rec_n && udccp_seq_gt(rec_seq(w->av, w->i), hi)) {
    w->i++;
  }
  if (w->i == w->av->rec_n) {
    return 1;
  }
  if (state != UDCCP_AV_NOT_RECEIVED &&
      udccp_seq_ge(rec_seq(w->av, w->i), lo)) {
    w->found = 1;
    return 1;
  }
  return 0;
}

void udccp_ackvec_on_peer_acks(udccp_ackvec *av, const udccp_opts *opts,
                               uint64_t ackno) {
  peer_walk w;
  size_t i;
  ackno &= UDCCP_SEQ_MASK;
  w.av = av;
  w.i = 0;
  w.found = 0;
  /* The packet ackno itself arrived (§7.4)... */
  for (i = 0; i < av->rec_n; i++) {
    if (rec_seq(av, i) == ackno) {
      av_clear_with(av, i);
      return; /* nothing newer than ackno can be reported */
    }
    if (udccp_seq_lt(rec_seq(av, i), ackno)) {
      break;
    }
  }
  /* ...and so did every packet its Ack Vectors report received (§11.4). */
  if (opts != NULL &&
      udccp_ackvec_parse(opts, ackno, peer_run, &w) == 0 && w.found) {
    av_clear_with(av, w.i);
  }
}

int udccp_ackvec_parse(const udccp_opts *opts, uint64_t ackno,
                       udccp_ackvec_run_cb cb, void *user_data) {
  uint64_t cur = ackno & UDCCP_SEQ_MASK;
  size_t i, j;
  /* Check every byte first so that a bad vector reports nothing. */
  for (i = 0; i < opts->n_ackvec; i++) {
    for (j = 0; j < opts->ackvec[i].len; j++) {
      if ((opts->ackvec[i].val[j] >> 6) == UDCCP_AV_RESERVED) {
        return UDCCP_ERR_OPTION;
      }
    }
  }
  /* §11.4: the second option begins where the first left off. */
  for (i = 0; i < opts->n_ackvec; i++) {
    const udccp_opt *o = &opts->ackvec[i];
    for (j = 0; j < o->len; j++) {
      uint8_t st = (uint8_t)(o->val[j] >> 6);
      uint64_t run = (uint64_t)(o->val[j] & 0x3F) + 1;
      uint64_t lo = udccp_seq_add(cur, -(int64_t)(run - 1));
      if (cb(cur, lo, st, user_data)) {
        return 0;
      }
      cur = udccp_seq_add(lo, -1);
    }
  }
  return 0;
}

int udccp_ackvec_nonce_check(const udccp_opts *opts, uint64_t ackno,
                             udccp_ackvec_nonce_fn nonce_of, void *user_data,
                             unsigned *n_checked) {
  uint64_t cur = ackno & UDCCP_SEQ_MASK;
  size_t i, j;
  int mismatches = 0;
  if (n_checked != NULL) {
    *n_checked = 0;
  }
  /* §12.2: each option's Nonce Echo is the parity of the nonces of the
   * packets it reports in state 0.  An option naming a packet whose nonce
   * the sender no longer knows cannot be checked, and is skipped. */
  for (i = 0; i < opts->n_ackvec; i++) {
    const udccp_opt *o = &opts->ackvec[i];
    unsigned sum = 0;
    int known = 1;
    for (j = 0; j < o->len; j++) {
      uint8_t st = (uint8_t)(o->val[j] >> 6);
      uint64_t run = (uint64_t)(o->val[j] & 0x3F) + 1, k;
      if (st == UDCCP_AV_RECEIVED && known) {
        for (k = 0; k < run; k++) {
          int nb = nonce_of(udccp_seq_add(cur, -(int64_t)k), user_data);
          if (nb < 0) {
            known = 0;
            break;
          }
          sum ^= (unsigned)nb;
        }
      }
      cur = udccp_seq_add(cur, -(int64_t)run);
    }
    if (!known) {
      continue;
    }
    if (n_checked != NULL) {
      (*n_checked)++;
    }
    if (sum != (unsigned)(o->type == UDCCP_OPT_ACK_VECTOR_1)) {
      mismatches++;
    }
  }
  return mismatches;
}

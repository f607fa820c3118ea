/* SPDX-License-Identifier: MIT */
/*
 * Ack Vectors (RFC 4340 §11.4, Appendix A).
 *
 * The receiver keeps one state byte per sequence number in a ring indexed
 * by seq & (cap - 1), covering tail..head, and beside it the vector as it
 * goes on the wire, run-length encoded and updated as packets arrive
 * (Appendix A.1), so that an ack costs a copy of its bytes, whatever the
 * window.  Acks of acks find their record by binary search (A.3).
 */
#include "ackvec.h"

#include <string.h>

#include "seq.h"

#define REC_CAP 2u         /* initial ack records (Appendix A.1; small: issue 13) ... */
#define REC_MAX 65536u     /* ... growing up to this: one per ack in flight */
#define MAX_RUN 64u        /* 6-bit run length + 1 (§11.4) */
#define MAX_AV_LEN 253u    /* option value bytes (§11.4) */
#define ENC_CAP 8u         /* initial encoded bytes (small: issue 13) */
_Static_assert((REC_CAP & (REC_CAP - 1)) == 0, "record ring: a power of two");

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
/* epar bits */
#define P_CUM 0x01u
#define P_BYTE 0x02u

/* The encoded bytes are linear (enc[eh] .. enc[eh + en - 1], newest
 * first, eh + en <= ecap), so that an ack copies them in one piece. */
static size_t e_at(const udccp_ackvec *av, size_t i) {
  return av->eh + i;
}

/* Layout of the first block: the records first (they hold 64-bit
 * fields: the block's alignment), then the byte arrays. */
#define FIRST_ENC (REC_CAP * sizeof(udccp_ackvec_rec))
#define FIRST_EPAR (FIRST_ENC + ENC_CAP)
#define FIRST_STATES (FIRST_EPAR + ENC_CAP)

/* Frees a buffer that grew out of its place: one still in the first
 * block only leaves it, and the block goes with the last one. */
static void av_free_buf(udccp_ackvec *av, void *p) {
  uint8_t *f = av->first;
  if (p == NULL) {
    return;
  }
  if (f != NULL && (p == f || p == f + FIRST_ENC || p == f + FIRST_EPAR ||
                    p == f + FIRST_STATES)) {
    if (--av->first_n == 0) {
      av->mem->free(f, av->mem->user_data);
      av->first = NULL;
    }
    return;
  }
  av->mem->free(p, av->mem->user_data);
}

int udccp_ackvec_init(udccp_ackvec *av, const udccp_mem *mem, size_t cap) {
  size_t c = 16; /* grows with the packets to report (issue 13) */
  uint8_t *f;
  memset(av, 0, sizeof(*av));
  av->mem = mem ? mem : udccp_mem_default();
  while (c < cap && c < UDCCP_ACKVEC_MAX) {
    c <<= 1;
  }
  /* One block for the four first buffers: four small allocations would
   * cost about twice their size in allocator headers. */
  f = av->mem->malloc(FIRST_STATES + c, av->mem->user_data);
  if (!f) {
    return UDCCP_ERR_NOMEM;
  }
  av->first = f;
  av->first_n = 4;
  av->recs = (udccp_ackvec_rec *)(void *)f;
  av->enc = f + FIRST_ENC;
  av->epar = f + FIRST_EPAR;
  av->states = f + FIRST_STATES;
  av->cap = c;
  av->rec_cap = REC_CAP;
  av->ecap = ENC_CAP;
  av->empty = 1;
  return 0;
}

void udccp_ackvec_free(udccp_ackvec *av) {
  if (av->mem) {
    av_free_buf(av, av->states);
    av_free_buf(av, av->recs);
    av_free_buf(av, av->enc);
    av_free_buf(av, av->epar);
  }
  av->first = NULL;
  av->first_n = 0;
  av->states = NULL;
  av->recs = NULL;
  av->enc = av->epar = NULL;
  av->cap = 0;
  av->ecap = av->eh = av->en = 0;
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
  av_free_buf(av, av->states);
  av->states = s;
  av->cap = c;
  return 0;
}

/* Doubles the encoded buffer, the bytes moved to its end (newer bytes go
 * below them). */
static int enc_grow(udccp_ackvec *av) {
  size_t c = av->ecap * 2, i, at;
  uint8_t *e = av->mem->malloc(c, av->mem->user_data);
  uint8_t *p = av->mem->malloc(c, av->mem->user_data);
  if (!e || !p) {
    if (e) {
      av->mem->free(e, av->mem->user_data);
    }
    if (p) {
      av->mem->free(p, av->mem->user_data);
    }
    return UDCCP_ERR_NOMEM;
  }
  at = c - av->en;
  for (i = 0; i < av->en; i++) {
    e[at + i] = av->enc[e_at(av, i)];
    p[at + i] = av->epar[e_at(av, i)];
  }
  av_free_buf(av, av->enc);
  av_free_buf(av, av->epar);
  av->enc = e;
  av->epar = p;
  av->ecap = c;
  av->eh = at;
  return 0;
}

/* No room below the newest byte (eh == 0): the bytes move to the end of
 * the buffer while they fill at most half of it, else it doubles; either
 * way at least half the buffer is free below them after, so the moves
 * cost O(1) per byte pushed. */
static int enc_room(udccp_ackvec *av) {
  if (av->en == 0) {
    av->eh = av->ecap;
    return 0;
  }
  if (2 * av->en > av->ecap) {
    return enc_grow(av);
  }
  memmove(av->enc + av->ecap - av->en, av->enc, av->en);
  memmove(av->epar + av->ecap - av->en, av->epar, av->en);
  av->eh = av->ecap - av->en;
  return 0;
}

/* A.1.1: one more packet at the head, in state st (nonce n, 0 or 1):
 * the newest byte's run grows, or a new byte starts. */
static int enc_push(udccp_ackvec *av, uint8_t st, unsigned n) {
  uint8_t cum;
  if (av->en > 0) {
    uint8_t b = av->enc[av->eh];
    if ((b >> 6) == st && (b & 0x3F) < MAX_RUN - 1) {
      av->enc[av->eh] = (uint8_t)(b + 1);
      if (n) {
        av->epar[av->eh] ^= P_CUM | P_BYTE;
      }
      return 0;
    }
  }
  if (av->eh == 0) {
    int rv = enc_room(av);
    if (rv != 0) {
      return rv;
    }
  }
  cum = av->en > 0 ? (uint8_t)(av->epar[av->eh] & P_CUM) : 0;
  av->eh--;
  av->en++;
  av->enc[av->eh] = (uint8_t)(st << 6);
  av->epar[av->eh] = n ? (uint8_t)((cum ^ P_CUM) | P_BYTE) : cum;
  return 0;
}

/* count packets in state Not Received at the head: one byte per 64. */
static int enc_push_lost(udccp_ackvec *av, uint64_t count) {
  while (count > 0) {
    uint8_t b = av->en > 0 ? av->enc[av->eh] : 0;
    if (av->en > 0 && (b >> 6) == UDCCP_AV_NOT_RECEIVED &&
        (b & 0x3F) < MAX_RUN - 1) {
      uint64_t room = MAX_RUN - 1 - (b & 0x3F);
      uint64_t k = count < room ? count : room;
      av->enc[av->eh] = (uint8_t)(b + k);
      count -= k;
      continue;
    }
    {
      int rv = enc_push(av, UDCCP_AV_NOT_RECEIVED, 0);
      if (rv != 0) {
        return rv;
      }
    }
    count--;
  }
  return 0;
}

/* The state of seq, as the wire codes it, and its nonce. */
static void st_of(const udccp_ackvec *av, uint64_t seq, uint8_t *st,
                  unsigned *n) {
  uint8_t v = *slot(av, seq);
  *st = (uint8_t)(v & 3u);
  *n = (*st == UDCCP_AV_RECEIVED && (v & NONCE_BIT)) ? 1u : 0u;
}

/* Moves the tail up to newtail (tail < newtail <= head + 1): the oldest
 * bytes go, the one newtail falls in is shortened.  Amortized O(1) per
 * byte dropped; a shortened byte's nonce parity is counted again (at most
 * 63 packets). */
static inline void av_trim(udccp_ackvec *av, uint64_t newtail) {
  while (av->en > 0) {
    size_t oi = e_at(av, av->en - 1);
    uint64_t run = (uint64_t)(av->enc[oi] & 0x3F) + 1;
    uint64_t hi = udccp_seq_add(av->tail, (int64_t)run - 1);
    if (udccp_seq_lt(hi, newtail)) {
      av->en--;
      av->tail = udccp_seq_add(hi, 1);
      continue;
    }
    {
      uint64_t cut = (uint64_t)udccp_seq_sub(newtail, av->tail), q, k;
      unsigned par;
      if (cut == 0) {
        break;
      }
      av->enc[oi] = (uint8_t)(av->enc[oi] - cut);
      /* Only the oldest byte's own parity changes: the sums of newer
       * bytes include it, and the Nonce Echo of a stretch ending at it
       * is sum(newest) ^ sum(it) ^ parity(it).  The cut part's nonces
       * leave it (none without a nonce recorded: the usual case, issue
       * 13, where every parity is 0). */
      if (av->any_nonce) {
        par = (av->epar[oi] & P_BYTE) ? 1u : 0u;
        for (q = av->tail, k = 0; k < cut; k++, q = udccp_seq_add(q, 1)) {
          uint8_t st;
          unsigned n;
          st_of(av, q, &st, &n);
          par ^= n;
        }
        av->epar[oi] =
            (uint8_t)((av->epar[oi] & P_CUM) | (par ? P_BYTE : 0u));
      }
    }
    break;
  }
  av->tail = newtail;
  /* av_len(av) == 0: newtail is at most head + 1 (the callers') */
  av->empty = newtail == ((av->head + 1) & UDCCP_SEQ_MASK);
}

/* A late arrival or a new mark changed seq: the bytes from the one holding
 * seq up to the head are encoded again from the states.  O(head - seq). */
static int av_reencode(udccp_ackvec *av, uint64_t seq) {
  size_t i = 0;
  uint64_t hi = av->head, lo = hi, q;
  while (i < av->en) {
    uint64_t run = (uint64_t)(av->enc[e_at(av, i)] & 0x3F) + 1;
    lo = udccp_seq_add(hi, -(int64_t)(run - 1));
    if (udccp_seq_ge(seq, lo)) {
      break;
    }
    hi = udccp_seq_add(lo, -1);
    i++;
  }
  if (i == av->en) {
    return 0; /* not held: cannot happen for tail <= seq <= head */
  }
  av->eh = e_at(av, i + 1);
  av->en -= i + 1;
  for (q = lo;; q = udccp_seq_add(q, 1)) {
    uint8_t st;
    unsigned n;
    int rv;
    st_of(av, q, &st, &n);
    rv = enc_push(av, st, n);
    if (rv != 0) {
      return rv;
    }
    if (q == av->head) {
      break;
    }
  }
  return 0;
}

/* A late arrival changes what earlier acks said about seq: records that
 * reported it as Not Received must not let the tail move past it before a
 * newer vector reporting its arrival is acknowledged (Appendix A.3).
 * Records' acknos only grow, so only the newest ones can be at or above
 * seq. */
static void av_recs_hold(udccp_ackvec *av, uint64_t seq) {
  size_t i;
  uint64_t cap_ack = udccp_seq_add(seq, -1);
  for (i = 0; i < av->rec_n; i++) {
    size_t k = (av->rec_head + av->rec_cap - 1 - i) & (av->rec_cap - 1);
    if (!udccp_seq_ge(av->recs[k].ackno, seq)) {
      break;
    }
    av->recs[k].ackno = cap_ack;
  }
}

int udccp_ackvec_record(udccp_ackvec *av, uint64_t seq, uint8_t state) {
  return udccp_ackvec_record_nonce(av, seq, state, 0);
}

int udccp_ackvec_record_ecn_any(udccp_ackvec *av, uint64_t seq, uint8_t ecn) {
  /* §12.2: CE is a mark (the nonce is destroyed); ECT(1) carries nonce 1,
   * ECT(0) and Not-ECT nonce 0. */
  if ((ecn & 3) == 3) {
    return udccp_ackvec_record_nonce(av, seq, UDCCP_AV_ECN_MARKED, 0);
  }
  return udccp_ackvec_record_nonce(av, seq, UDCCP_AV_RECEIVED,
                                   (ecn & 3) == 1 ? 1 : 0);
}

/* Forgets everything and starts again at seq. */
static int av_restart(udccp_ackvec *av, uint64_t seq, uint8_t state) {
  av->head = av->tail = seq;
  av->head_valid = 1;
  av->empty = 0;
  av->en = 0;
  av->eh = 0;
  *slot(av, seq) = state;
  return enc_push(av, (uint8_t)(state & 3u), (state & NONCE_BIT) ? 1u : 0u);
}

static int av_put_any(udccp_ackvec *av, uint64_t seq, uint8_t state,
                      uint8_t nonce);

/* av_put_any, with its usual case first: the next packet in order,
 * received without a nonce, extending the newest byte's run (A.1.1) --
 * almost every packet (issue 13), answered without a call. */
static inline int av_put(udccp_ackvec *av, uint64_t seq, uint8_t state,
                         uint8_t nonce) {
  if (av->head_valid && !nonce && av->en > 0 &&
      seq == ((av->head + 1) & UDCCP_SEQ_MASK) &&
      ((seq - av->tail) & UDCCP_SEQ_MASK) < av->cap) {
    uint8_t b = av->enc[av->eh];
    if ((b >> 6) == (state & 3u) && (b & 0x3F) < MAX_RUN - 1) {
      *slot(av, seq) = state;
      av->head = seq;
      av->empty = 0;
      av->enc[av->eh] = (uint8_t)(b + 1);
      return 0;
    }
  }
  return av_put_any(av, seq, state, nonce);
}

int udccp_ackvec_record_nonce(udccp_ackvec *av, uint64_t seq, uint8_t state,
                              uint8_t nonce) {
  seq &= UDCCP_SEQ_MASK;
  if (state != UDCCP_AV_RECEIVED && state != UDCCP_AV_ECN_MARKED) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return av_put(av, seq, state, nonce);
}

/* udccp_ackvec_skip_to (ackvec.h) when seq is newer than the head. */
int udccp_ackvec_skip_to_head(udccp_ackvec *av, uint64_t seq) {
  seq &= UDCCP_SEQ_MASK;
  /* §11.4: a packet that moved GSR but was not processed (§8.5 step 7)
   * heads the vector as Not Received; an older one is a hole already. */
  if (!av->head_valid || !udccp_seq_gt(seq, av->head)) {
    return 0;
  }
  return av_put(av, seq, UDCCP_AV_NOT_RECEIVED, 0);
}

int udccp_ackvec_start_at(udccp_ackvec *av, uint64_t seq) {
  if (av->head_valid) {
    return 0;
  }
  return av_restart(av, seq & UDCCP_SEQ_MASK, UDCCP_AV_NOT_RECEIVED);
}

static int av_put_any(udccp_ackvec *av, uint64_t seq, uint8_t state,
                      uint8_t nonce) {
  if (state == UDCCP_AV_RECEIVED && nonce) {
    state |= NONCE_BIT;
    av->any_nonce = 1;
  }
  if (!av->head_valid) {
    return av_restart(av, seq, state);
  }
  if (seq == ((av->head + 1) & UDCCP_SEQ_MASK) &&
      ((seq - av->tail) & UDCCP_SEQ_MASK) < av->cap) {
    /* The next packet in order, with room in the ring: what the branch
     * below does for a gap of 0 (almost every packet, issue 13). */
    *slot(av, seq) = state;
    av->head = seq;
    av->empty = 0;
    return enc_push(av, (uint8_t)(state & 3u), (state & NONCE_BIT) ? 1u : 0u);
  }
  if (udccp_seq_gt(seq, av->head)) {
    uint64_t gap = (uint64_t)udccp_seq_sub(seq, av->head) - 1;
    uint64_t span, q;
    int rv;
    if (gap > UDCCP_ACKVEC_GAP_MAX) {
      /* A jump this far (a peer's burst of 2^14 lost packets, or a
       * hostile one inside a huge Sequence Window) is not worth a byte
       * per 64 numbers: the older state goes, unreported state with it,
       * and the sender counts those packets as lost (RFC 4341 §5). */
      return av_restart(av, seq, state);
    }
    span = (uint64_t)udccp_seq_sub(seq, av->tail) + 1;
    if (span > UDCCP_ACKVEC_MAX) {
      /* Too long to keep (no acks of acks for a long time): the oldest
       * packets go. */
      av_trim(av, udccp_seq_add(seq, -(int64_t)(UDCCP_ACKVEC_MAX - 1)));
      span = UDCCP_ACKVEC_MAX;
    }
    if (span > av->cap) {
      rv = av_grow(av, (size_t)span);
      if (rv != 0) {
        return rv;
      }
    }
    /* §11.4, A.1.1: the packets skipped over have not been received
     * (at most UDCCP_ACKVEC_GAP_MAX of them). */
    if (gap > 0) {
      size_t first = (size_t)(udccp_seq_add(av->head, 1) & (av->cap - 1));
      size_t k = av->cap - first < gap ? av->cap - first : (size_t)gap;
      memset(av->states + first, UDCCP_AV_NOT_RECEIVED, k);
      if (k < gap) {
        memset(av->states, UDCCP_AV_NOT_RECEIVED, (size_t)gap - k);
      }
      rv = enc_push_lost(av, gap);
      if (rv != 0) {
        return rv;
      }
    }
    q = seq;
    *slot(av, q) = state;
    rv = enc_push(av, (uint8_t)(state & 3u), (state & NONCE_BIT) ? 1u : 0u);
    av->head = seq;
    av->empty = 0;
    return rv;
  }
  if (udccp_seq_lt(seq, av->tail) || av_len(av) == 0 ||
      (uint64_t)udccp_seq_sub(av->head, seq) > UDCCP_ACKVEC_GAP_MAX) {
    return UDCCP_ERR_DROPPED; /* already acked-of-acked, or too late */
  }
  /* A.1.2: an old packet fills its hole, or is a duplicate. */
  {
    uint8_t *s = slot(av, seq);
    if ((*s & 3u) == UDCCP_AV_NOT_RECEIVED) {
      *s = state;
      av_recs_hold(av, seq);
      return av_reencode(av, seq);
    }
    /* §11.4.1 receiver table: a duplicate may turn Received into Received
     * ECN Marked; we keep the mark (the conservative choice). */
    if ((*s & 3u) == UDCCP_AV_RECEIVED &&
        (state & 3u) == UDCCP_AV_ECN_MARKED) {
      *s = UDCCP_AV_ECN_MARKED;
      (void)av_reencode(av, seq);
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
  av_free_buf(av, av->recs);
  av->recs = r;
  av->rec_cap = c;
  av->rec_head = av->rec_n;
  return 0;
}

int udccp_ackvec_write(udccp_ackvec *av, udccp_optbuf *ob, uint64_t pkt_seq) {
  return udccp_ackvec_write_room(av, ob, sizeof(ob->buf) - ob->len, pkt_seq);
}

/* Appendix A.2: remembers that our packet pkt_seq acknowledges the vector
 * up to the head.  A record overwritten before its ack of ack arrives
 * would stop the trimming, so the ring grows while acks are in flight. */
static inline void rec_push(udccp_ackvec *av, uint64_t pkt_seq, int clears) {
  udccp_ackvec_rec *r;
  if (av->rec_n == av->rec_cap && av->rec_cap < REC_MAX) {
    (void)av_recs_grow(av);
  }
  r = &av->recs[av->rec_head];
  r->seq = pkt_seq & UDCCP_SEQ_MASK;
  r->ackno = av->head;
  r->clears = clears;
  av->rec_head = (av->rec_head + 1) & (av->rec_cap - 1);
  if (av->rec_n < av->rec_cap) {
    av->rec_n++;
  }
}

int udccp_ackvec_write_room(udccp_ackvec *av, udccp_optbuf *ob, size_t room,
                            uint64_t pkt_seq) {
  size_t max_bytes, n_opts, nb, i, en = av->en;
  if (av->empty || en == 0) { /* empty: av_len(av) == 0 */
    return 0;
  }
  if (room > sizeof(ob->buf) - ob->len) {
    room = sizeof(ob->buf) - ob->len;
  }
  if (en + 4 <= room && en <= MAX_AV_LEN) {
    /* The whole vector in one option (every ack of a window up to ~16,000
     * packets received in order, issue 13): what the loop below writes
     * when nb == en and one option holds it (en + 4 <= room: max_bytes
     * >= en whatever n_opts is). */
    size_t a = av->eh, b = e_at(av, en - 1);
    uint8_t *d = ob->buf + ob->len;
    d[0] = (uint8_t)(((av->epar[a] ^ av->epar[b] ^ (av->epar[b] >> 1)) & 1u)
                         ? UDCCP_OPT_ACK_VECTOR_1
                         : UDCCP_OPT_ACK_VECTOR_0);
    d[1] = (uint8_t)(en + 2);
    memcpy(d + 2, av->enc + a, en);
    ob->len += en + 2;
    rec_push(av, pkt_seq, 1);
    return 0;
  }
  if (room < 3) {
    return UDCCP_ERR_NOBUF;
  }
  /* Each option costs 2 header bytes per up to 253 vector bytes. */
  n_opts = (room + MAX_AV_LEN + 1) / (MAX_AV_LEN + 2);
  max_bytes = room - 2 * n_opts;
  /* §11.4: newest first, as much as fits (§11.4.2 asks for the whole
   * Acknowledgement Window; the rest stays for the next ack). */
  nb = en < max_bytes ? en : max_bytes;
  for (i = 0; i < nb;) {
    size_t k = nb - i < MAX_AV_LEN ? nb - i : MAX_AV_LEN;
    size_t a = e_at(av, i), b = e_at(av, i + k - 1);
    /* §12.2: the option type carries the one-bit sum of the nonces of
     * the packets it reports in state 0. */
    unsigned nonce =
        (unsigned)((av->epar[a] ^ av->epar[b] ^ (av->epar[b] >> 1)) & 1u);
    uint8_t *d = ob->buf + ob->len;
    d[0] = (uint8_t)(nonce ? UDCCP_OPT_ACK_VECTOR_1 : UDCCP_OPT_ACK_VECTOR_0);
    d[1] = (uint8_t)(k + 2);
    memcpy(d + 2, av->enc + a, k);
    ob->len += k + 2;
    i += k;
  }
  /* An ack of a truncated vector clears nothing while the whole vector
   * could fit an Ack. */
  rec_push(av, pkt_seq, nb == en || en > UDCCP_ACKVEC_FIT_MAX);
  return 0;
}

/* Record j, counted from the oldest. */
static inline udccp_ackvec_rec *rec_old(const udccp_ackvec *av, size_t j) {
  /* rec_cap is a power of two (REC_CAP, doubled by av_recs_grow) */
  return &av->recs[(av->rec_head + av->rec_cap - av->rec_n + j) &
                   (av->rec_cap - 1)];
}

/* Clears state with record j, counted from the oldest (Appendix A.3). */
static inline void av_clear_old(udccp_ackvec *av, size_t j) {
  const udccp_ackvec_rec *r = rec_old(av, j);
  uint64_t newtail = udccp_seq_add(r->ackno, 1);
  if (r->clears && av->head_valid && udccp_seq_gt(newtail, av->tail) &&
      udccp_seq_le(newtail, udccp_seq_add(av->head, 1))) {
    av_trim(av, newtail);
  }
  /* Throw away R and every preceding record. */
  av->rec_n -= j + 1;
  if (av->rec_n == 0 && av->rec_cap > REC_CAP && av->first != NULL) {
    /* Every ack acknowledged: a ring grown while acks were in flight
     * goes back to its place in the first block (an idle connection holds
     * what it held before it was busy; issue 13). */
    av_free_buf(av, av->recs);
    av->recs = (udccp_ackvec_rec *)(void *)av->first;
    av->first_n++;
    av->rec_cap = REC_CAP;
    av->rec_head = 0;
  }
}

/* The newest record whose packet is at or below ackno, counted from the
 * oldest, or rec_n if none: records are in sending order, so a binary
 * search. */
static size_t rec_search(const udccp_ackvec *av, uint64_t ackno);

static inline size_t rec_find_le(const udccp_ackvec *av, uint64_t ackno) {
  size_t hi = av->rec_n;
  int64_t d;
  if (hi == 0) {
    return 0; /* rec_n: none */
  }
  /* Most packets sent while the vector holds state carry it (conn_out.c
   * write_data_once: acks, and data packets as acks of acks), so records
   * are often one per sequence number and the peer's ackno names one of
   * them: a guess from the distance to the newest record finds it in O(1)
   * then, inline (issue 13); the search is for the rest. */
  d = udccp_seq_sub(rec_old(av, hi - 1)->seq, ackno);
  if (d <= 0) {
    return hi - 1;
  }
  /* A data sender's acks name mostly its Data packets, and one sent
   * before the oldest record (the DataAck not yet received when the peer
   * acked) has none at or below it. */
  if (udccp_seq_gt(rec_old(av, 0)->seq, ackno)) {
    return hi; /* rec_n: none */
  }
  if ((uint64_t)d < hi && rec_old(av, hi - 1 - (size_t)d)->seq == ackno) {
    return hi - 1 - (size_t)d;
  }
  /* A data sender's records are its DataAcks, every other packet
   * (UDCCP_CONN_ACKACK_EVERY 1), and the peer's ackno names one of them or
   * the Data packet just above one: the record (d + 1) / 2 below the
   * newest, if it is at or below ackno and the next one is above. */
  if ((uint64_t)(d + 1) / 2 < hi) {
    size_t k = hi - 1 - (size_t)((d + 1) / 2);
    if (udccp_seq_le(rec_old(av, k)->seq, ackno) &&
        udccp_seq_gt(rec_old(av, k + 1)->seq, ackno)) {
      return k;
    }
  }
  return rec_search(av, ackno);
}

/* rec_find_le when the guess missed.  The answer is mostly among the
 * oldest records (each ack of ack clears those before it): gallop from
 * the old end, then search between the last two probes. */
static size_t rec_search(const udccp_ackvec *av, uint64_t ackno) {
  size_t lo = 0, hi = av->rec_n;
  if (udccp_seq_gt(rec_old(av, 0)->seq, ackno)) {
    return av->rec_n;
  }
  lo = 1;
  {
    size_t step = 1;
    while (lo + step - 1 < hi) {
      size_t k = lo + step - 1;
      if (udccp_seq_gt(rec_old(av, k)->seq, ackno)) {
        hi = k;
        break;
      }
      lo = k + 1;
      step *= 2;
    }
  }
  /* invariant: records [0, lo) are <= ackno, [hi, n) are above */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (udccp_seq_le(rec_old(av, mid)->seq, ackno)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo == 0 ? av->rec_n : lo - 1;
}

static uint64_t rec_seq(const udccp_ackvec *av, size_t i) {
  return rec_old(av, av->rec_n - 1 - i)->seq;
}

void udccp_ackvec_on_ack(udccp_ackvec *av, uint64_t ackno) {
  size_t j;
  ackno &= UDCCP_SEQ_MASK;
  /* The newest record at or below ackno.  The peer's Acknowledgement
   * Number is its GSR, usually one of our Data packets, which carry no
   * vector; an exact match alone would rarely trim.  This assumes the
   * peer got the vector packets before ackno; udccp_ackvec_on_peer_acks()
   * knows it for sure when the peer sends Ack Vectors. */
  j = rec_find_le(av, ackno);
  if (j < av->rec_n) {
    av_clear_old(av, j);
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
  /* The newest record at or below hi, by binary search: a linear step
   * per record would cost O(window) per ack. */
  size_t j = rec_find_le(w->av, hi);
  if (j == w->av->rec_n) {
    return 1;
  }
  w->i = w->av->rec_n - 1 - j;
  if (state != UDCCP_AV_NOT_RECEIVED &&
      udccp_seq_ge(rec_seq(w->av, w->i), lo)) {
    w->found = 1;
    return 1;
  }
  return 0;
}

void udccp_ackvec_on_peer_acks_any(udccp_ackvec *av, const udccp_opts *opts,
                                   uint64_t ackno) {
  peer_walk w;
  size_t j;
  ackno &= UDCCP_SEQ_MASK;
  w.av = av;
  w.i = 0;
  w.found = 0;
  /* The packet ackno itself arrived (§7.4)... */
  j = rec_find_le(av, ackno);
  if (j < av->rec_n && rec_old(av, j)->seq == ackno) {
    av_clear_old(av, j);
    return; /* nothing newer than ackno can be reported */
  }
  /* ...and so did every packet its Ack Vectors report received (§11.4). */
  if (opts == NULL || udccp_ackvec_check(opts) != 0) {
    return;
  }
  udccp_ackvec_walk(opts, ackno, peer_run, &w);
  if (w.found) {
    av_clear_old(av, av->rec_n - 1 - w.i);
  }
}

/* udccp_ackvec_on_peer_acks_any's answer in its two usual cases (every
 * ack of ack, issue 13), without the walk: the newest record at or below
 * ackno is ackno's own (a receiver's records are its acks, one per
 * packet, and the peer acknowledges the newest it got), or, below
 * ackno, a record the first run of the first Ack Vector reports received
 * (a data sender's records are its DataAcks, every other packet, and the
 * peer's ackno is often the Data packet after one).  No record at or
 * below ackno: none the vector could report either (runs go down from
 * ackno).  Everything else walks. */
void udccp_ackvec_on_peer_acks_rec(udccp_ackvec *av, const udccp_opts *opts,
                                   uint64_t ackno) {
  const udccp_ackvec_rec *r;
  size_t j;
  ackno &= UDCCP_SEQ_MASK;
  j = rec_find_le(av, ackno);
  if (j == av->rec_n) {
    return;
  }
  r = rec_old(av, j);
  if (r->seq != ackno) {
    const udccp_opt *o;
    uint8_t b;
    if (opts == NULL || opts->n_ackvec == 0 || udccp_ackvec_check(opts) != 0) {
      return; /* no vector, or one the walk would not read */
    }
    o = &opts->ackvec[0];
    if (o->len == 0) {
      udccp_ackvec_on_peer_acks_any(av, opts, ackno);
      return;
    }
    /* §11.4: the first byte's run is ackno down to ackno - (b & 0x3F) */
    b = o->val[0];
    if ((b >> 6) == UDCCP_AV_NOT_RECEIVED ||
        (uint64_t)udccp_seq_sub(ackno, r->seq) > (b & 0x3Fu)) {
      udccp_ackvec_on_peer_acks_any(av, opts, ackno);
      return;
    }
  }
  av_clear_old(av, j);
}

int udccp_ackvec_check_all(const udccp_opts *opts) {
  size_t i;
  for (i = 0; i < opts->n_ackvec; i++) {
    if (udccp_opt_av_reserved(opts->ackvec[i].val, opts->ackvec[i].len)) {
      return UDCCP_ERR_OPTION;
    }
  }
  return 0;
}

int udccp_ackvec_parse(const udccp_opts *opts, uint64_t ackno,
                       udccp_ackvec_run_cb cb, void *user_data) {
  /* Check every byte first so that a bad vector reports nothing. */
  if (udccp_ackvec_check(opts) != 0) {
    return UDCCP_ERR_OPTION;
  }
  if (cb != NULL) {
    udccp_ackvec_walk(opts, ackno, cb, user_data);
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

/* SPDX-License-Identifier: MIT */
/*
 * Ack Vectors (RFC 4340 §11.4, Appendix A).
 *
 * Receiver side: udccp_ackvec records which packets arrived, writes the Ack
 * Vector options of outgoing acks, and forgets what the peer has
 * acknowledged receiving (acks of acks, Appendix A.3).
 * Sender side: udccp_ackvec_parse() walks the Ack Vectors of a received
 * packet run by run.
 */
#ifndef UDCCP_ACKVEC_H
#define UDCCP_ACKVEC_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "opt.h"
#include "seq.h"

/* Ack Vector states, §11.4. */
enum udccp_ackvec_state {
  UDCCP_AV_RECEIVED = 0,
  UDCCP_AV_ECN_MARKED = 1,
  UDCCP_AV_RESERVED = 2,
  UDCCP_AV_NOT_RECEIVED = 3
};

/* One Ack Vector record (Appendix A.1): packet seq carried an Ack Vector
 * whose newest acknowledged packet was ackno. */
typedef struct udccp_ackvec_rec {
  uint64_t seq;    /* our packet that carried the vector */
  uint64_t ackno;  /* the Acknowledgement Number it carried */
  int clears;      /* its ack of ack may clear state up to ackno: it
                      reported everything held, or the vector was too
                      long for any packet to carry whole */
} udccp_ackvec_rec;

typedef struct udccp_ackvec {
  const udccp_mem *mem;
  uint8_t *states;       /* ring: one state per sequence number */
  size_t cap;            /* ring size (power of two) */
  uint64_t head;         /* newest recorded sequence number (GSR) */
  uint64_t tail;         /* oldest sequence number still reported */
  int empty;             /* 1: nothing to report (none recorded, or all
                            acknowledged by acks of acks) */
  int head_valid;        /* 0 until the first packet is recorded */
  /* The vector itself, run-length encoded as it goes on the wire (§11.4)
   * and kept up to date packet by packet, so that writing an ack is a
   * copy: en bytes of a buffer of ecap, enc[eh] the newest (head) up to
   * enc[eh + en - 1] the oldest (tail), in one piece (ackvec.c).  epar holds per byte: bit 1 the parity of the ECN nonces of
   * its state-0 packets, bit 0 that parity summed over it and every
   * older byte (the Nonce Echo of any stretch of bytes in O(1)). */
  uint8_t *enc, *epar;
  size_t ecap, eh, en;
  int any_nonce;         /* a packet with nonce 1 was recorded */
  udccp_ackvec_rec *recs;/* ring of records, oldest first */
  size_t rec_cap, rec_head, rec_n;
  /* The first recs, enc, epar and states share this one block (issue 13:
   * an idle connection holds them); first_n of them are still in it. */
  uint8_t *first;
  unsigned first_n;
} udccp_ackvec;

/* Allocates the buffers (cap sequence numbers, grown when needed up to
 * UDCCP_ACKVEC_MAX).  Returns 0 or UDCCP_ERR_NOMEM. */
#define UDCCP_ACKVEC_MAX (1u << 20)
int udccp_ackvec_init(udccp_ackvec *av, const udccp_mem *mem, size_t cap);
void udccp_ackvec_free(udccp_ackvec *av);

/* Records that packet seq arrived with the given state (RECEIVED or
 * ECN_MARKED); packets between the previous head and seq that did not
 * arrive become NOT_RECEIVED; a late packet fills its hole.  O(1) per
 * packet in order; a gap costs one byte per 64 missing packets, and a gap
 * wider than UDCCP_ACKVEC_GAP_MAX (or a span past UDCCP_ACKVEC_MAX) drops
 * the older state instead, so that a peer jumping far ahead costs O(1);
 * a late packet re-encodes the vector from it to the head.  Returns 0,
 * UDCCP_ERR_NOMEM, or UDCCP_ERR_DROPPED (duplicate, older than the tail,
 * or later than UDCCP_ACKVEC_GAP_MAX behind the head). */
#define UDCCP_ACKVEC_GAP_MAX (1u << 14)
int udccp_ackvec_record(udccp_ackvec *av, uint64_t seq, uint8_t state);

/* Moves the head to seq, if newer, with seq and the packets skipped over
 * NOT_RECEIVED: seq passed the sequence check (it is GSR, the
 * Acknowledgement Number, where §11.4 starts the vector) but was never
 * processed (dropped at §8.5 step 7).  Nothing happens before the first
 * record.  Returns 0 or UDCCP_ERR_NOMEM. */
int udccp_ackvec_skip_to_head(udccp_ackvec *av, uint64_t seq);

/* Starts an empty vector at seq, NOT_RECEIVED: the first packet the
 * vector must be able to report (a server's: the one after the client's
 * Request), so that a packet overtaken by the first one recorded fills
 * its hole instead of coming "too late" (A.1.2).  Nothing happens if
 * something was recorded already.  Returns 0. */
int udccp_ackvec_start_at(udccp_ackvec *av, uint64_t seq);
static inline int udccp_ackvec_skip_to(udccp_ackvec *av, uint64_t seq) {
  /* Asked before every ack (issue 13): seq is the head already, almost
   * always, and that is answered here. */
  if (!av->head_valid || !udccp_seq_gt(seq & UDCCP_SEQ_MASK, av->head)) {
    return 0;
  }
  return udccp_ackvec_skip_to_head(av, seq);
}

/* As udccp_ackvec_record(), with the packet's ECN nonce (§12.2): the
 * nonce counts in the Nonce Echo of the vectors that report the packet in
 * state 0. */
int udccp_ackvec_record_nonce(udccp_ackvec *av, uint64_t seq, uint8_t state,
                              uint8_t nonce);

/* As udccp_ackvec_record_nonce(), from the packet's IP ECN codepoint: CE
 * (3) is ECN_MARKED, ECT(1) (1) nonce 1, ECT(0) and Not-ECT nonce 0.
 * The usual packet (every packet received, issue 13) is answered first:
 * the next one in order, state 0 without a nonce (Not-ECT or ECT(0)),
 * with room in the ring, and the newest byte a run of state 0 shorter
 * than 64 (A.1.1: its run grows by one); everything else by
 * udccp_ackvec_record_ecn_any, the general path (also for tests). */
int udccp_ackvec_record_ecn_any(udccp_ackvec *av, uint64_t seq, uint8_t ecn);
/* Inline (every packet received, issue 13: a call less); 63 is the
 * longest run a byte of state 0 may grow to before it is full (§11.4). */
static inline __attribute__((always_inline)) int
udccp_ackvec_record_ecn(udccp_ackvec *av, uint64_t seq, uint8_t ecn) {
  seq &= UDCCP_SEQ_MASK;
  /* en > 0 only once head is valid (av_restart sets it first) */
  if ((ecn & 1u) == 0 && av->en > 0 &&
      seq == ((av->head + 1) & UDCCP_SEQ_MASK) &&
      ((seq - av->tail) & UDCCP_SEQ_MASK) < av->cap) {
    uint8_t b = av->enc[av->eh];
    /* b < 63: state 0 (the top two bits clear), a run shorter than 64 */
    if (b < 63) {
      av->states[seq & (av->cap - 1)] = UDCCP_AV_RECEIVED;
      av->head = seq; /* (not empty: en > 0, av_trim empties en too) */
      av->enc[av->eh] = (uint8_t)(b + 1);
      return 0;
    }
  }
  return udccp_ackvec_record_ecn_any(av, seq, ecn);
}

/* Appends to ob the Ack Vector option(s) describing head down to tail, as
 * much of it as ob has room for, newest first (§11.4), and remembers that
 * our packet pkt_seq (which will carry them, with Acknowledgement Number =
 * head) acknowledges them.  What did not fit stays for the next ack: an
 * ack of a truncated vector clears nothing while the whole vector could
 * fit an Ack (UDCCP_ACKVEC_FIT_MAX bytes).  The cost is a copy of the
 * bytes written.  Returns 0 (nothing written if empty), or
 * UDCCP_ERR_NOBUF. */
#define UDCCP_ACKVEC_FIT_MAX 988u /* 996 bytes of options, 4 headers */
int udccp_ackvec_write(udccp_ackvec *av, udccp_optbuf *ob, uint64_t pkt_seq);

/* udccp_ackvec_write() with at most room bytes of ob used (the room the
 * packet has left): written in place, no scratch buffer. */
int udccp_ackvec_write_room(udccp_ackvec *av, udccp_optbuf *ob, size_t room,
                            uint64_t pkt_seq);

/* The peer acknowledged our packet ackno (its Acknowledgement Number):
 * the newest record at or below ackno tells what the peer has seen of our
 * vectors; everything at or below that record's ackno is dropped from the
 * buffer (Appendix A.3). */
void udccp_ackvec_on_ack(udccp_ackvec *av, uint64_t ackno);

/* The exact form of udccp_ackvec_on_ack() (added by the ackvec helper):
 * DCCP acknowledges single packets (§7.4), so "at or below ackno" guesses
 * when a vector-carrying packet was lost.  This uses only what the peer's
 * packet proves: the packet ackno itself, and every packet of ours its Ack
 * Vector options (opts, may be NULL) report as received.  The newest such
 * record clears the state.  Use it instead of udccp_ackvec_on_ack() when
 * the peer's packet options are at hand. */
void udccp_ackvec_on_peer_acks_rec(udccp_ackvec *av, const udccp_opts *opts,
                                   uint64_t ackno);
/* Inline, the ackno below every record (none held, or a data sender's ack
 * sent before its DataAck arrived: most acks, issue 13) answered without
 * the call: nothing at or below it to clear. */
static inline void udccp_ackvec_on_peer_acks(udccp_ackvec *av,
                                             const udccp_opts *opts,
                                             uint64_t ackno) {
  if (av->rec_n == 0 ||
      udccp_seq_gt(av->recs[(av->rec_head + av->rec_cap - av->rec_n) &
                            (av->rec_cap - 1)]
                       .seq,
                   ackno & UDCCP_SEQ_MASK)) {
    return;
  }
  udccp_ackvec_on_peer_acks_rec(av, opts, ackno);
}
/* The same, always by the general path (a walk of the vector): what the
 * usual cases udccp_ackvec_on_peer_acks answers at once are checked
 * against (tests). */
void udccp_ackvec_on_peer_acks_any(udccp_ackvec *av, const udccp_opts *opts,
                                   uint64_t ackno);

/* Sender side.  Called for each run of an Ack Vector, newest first:
 * sequence numbers hi down to lo (inclusive) all have state. Return nonzero
 * to stop. */
typedef int (*udccp_ackvec_run_cb)(uint64_t hi, uint64_t lo, uint8_t state,
                                   void *user_data);

/* Walks every Ack Vector option in opts, which were received on a packet
 * with Acknowledgement Number ackno (§11.4: the first byte describes
 * ackno).  Returns 0, or UDCCP_ERR_OPTION if a state is the reserved 2.
 * cb NULL: only that check, no walk. */
int udccp_ackvec_parse(const udccp_opts *opts, uint64_t ackno,
                       udccp_ackvec_run_cb cb, void *user_data);

/* udccp_ackvec_parse in two steps, for a caller on every ack (issue 13):
 * the check (0, or UDCCP_ERR_OPTION for a reserved state), then the
 * walk, inline so that a cb known at the call site is called directly
 * (or inlined) rather than through a pointer, once per run. */
int udccp_ackvec_check_all(const udccp_opts *opts);
static inline int udccp_ackvec_check(const udccp_opts *opts) {
  /* the parser checked already (every ack, issue 13) */
  if (opts->present & UDCCP_OPTS_AV_CHECKED) {
    return 0;
  }
  return udccp_ackvec_check_all(opts);
}
static inline void udccp_ackvec_walk(const udccp_opts *opts, uint64_t ackno,
                                     udccp_ackvec_run_cb cb, void *user_data) {
  uint64_t cur = ackno & UDCCP_SEQ_MASK;
  size_t i, j;
  /* §11.4: the second option begins where the first left off. */
  for (i = 0; i < opts->n_ackvec; i++) {
    const udccp_opt *o = &opts->ackvec[i];
    for (j = 0; j < o->len; j++) {
      uint8_t st = (uint8_t)(o->val[j] >> 6);
      uint64_t run = (uint64_t)(o->val[j] & 0x3F) + 1;
      uint64_t lo = udccp_seq_add(cur, -(int64_t)(run - 1));
      if (cb(cur, lo, st, user_data)) {
        return;
      }
      cur = udccp_seq_add(lo, -1);
    }
  }
}

/* Sender side, §12.2: the nonce (0 or 1) packet seq was sent with, or -1
 * if unknown (forgotten, or never sent). */
typedef int (*udccp_ackvec_nonce_fn)(uint64_t seq, void *user_data);

/* Checks the ECN Nonce Echo of every Ack Vector option in opts (received
 * with Acknowledgement Number ackno) against the nonces nonce_of() knows.
 * Returns the number of options whose echo is wrong; *n_checked (may be
 * NULL) receives the number of options that could be checked. */
int udccp_ackvec_nonce_check(const udccp_opts *opts, uint64_t ackno,
                             udccp_ackvec_nonce_fn nonce_of, void *user_data,
                             unsigned *n_checked);

#endif /* UDCCP_ACKVEC_H */

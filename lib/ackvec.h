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
  udccp_ackvec_rec *recs;/* ring of records */
  size_t rec_cap, rec_head, rec_n;
  uint8_t nonce_sum;     /* ECN nonce sum of the reported packets (§12.2) */
} udccp_ackvec;

/* Allocates the buffers (cap sequence numbers, grown when needed up to
 * UDCCP_ACKVEC_MAX).  Returns 0 or UDCCP_ERR_NOMEM. */
#define UDCCP_ACKVEC_MAX (1u << 20)
int udccp_ackvec_init(udccp_ackvec *av, const udccp_mem *mem, size_t cap);
void udccp_ackvec_free(udccp_ackvec *av);

/* Records that packet seq arrived with the given state (RECEIVED or
 * ECN_MARKED); packets between the previous head and seq that did not
 * arrive become NOT_RECEIVED; a late packet fills its hole.  Returns 0,
 * UDCCP_ERR_NOMEM, or UDCCP_ERR_DROPPED (duplicate, or older than the tail). */
int udccp_ackvec_record(udccp_ackvec *av, uint64_t seq, uint8_t state);

/* Moves the head to seq, if newer, with seq and the packets skipped over
 * NOT_RECEIVED: seq passed the sequence check (it is GSR, the
 * Acknowledgement Number, where §11.4 starts the vector) but was never
 * processed (dropped at §8.5 step 7).  Nothing happens before the first
 * record.  Returns 0 or UDCCP_ERR_NOMEM. */
int udccp_ackvec_skip_to(udccp_ackvec *av, uint64_t seq);

/* As udccp_ackvec_record(), with the packet's ECN nonce (§12.2): the
 * nonce counts in the Nonce Echo of the vectors that report the packet in
 * state 0. */
int udccp_ackvec_record_nonce(udccp_ackvec *av, uint64_t seq, uint8_t state,
                              uint8_t nonce);

/* As udccp_ackvec_record_nonce(), from the packet's IP ECN codepoint: CE
 * (3) is ECN_MARKED, ECT(1) (1) nonce 1, ECT(0) and Not-ECT nonce 0. */
int udccp_ackvec_record_ecn(udccp_ackvec *av, uint64_t seq, uint8_t ecn);

/* Appends to ob the Ack Vector option(s) describing head down to tail, and
 * remembers that our packet pkt_seq (which will carry them, with
 * Acknowledgement Number = head) acknowledges them.  Returns 0 (nothing
 * written if empty), or UDCCP_ERR_NOBUF. */
int udccp_ackvec_write(udccp_ackvec *av, udccp_optbuf *ob, uint64_t pkt_seq);

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
void udccp_ackvec_on_peer_acks(udccp_ackvec *av, const udccp_opts *opts,
                               uint64_t ackno);

/* Sender side.  Called for each run of an Ack Vector, newest first:
 * sequence numbers hi down to lo (inclusive) all have state. Return nonzero
 * to stop. */
typedef int (*udccp_ackvec_run_cb)(uint64_t hi, uint64_t lo, uint8_t state,
                                   void *user_data);

/* Walks every Ack Vector option in opts, which were received on a packet
 * with Acknowledgement Number ackno (§11.4: the first byte describes
 * ackno).  Returns 0, or UDCCP_ERR_OPTION if a state is the reserved 2. */
int udccp_ackvec_parse(const udccp_opts *opts, uint64_t ackno,
                       udccp_ackvec_run_cb cb, void *user_data);

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

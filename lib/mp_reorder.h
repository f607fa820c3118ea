/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP receiver reordering buffer (RFC 9897 §3.2.5 MP_SEQ,
 * §3.2.7 MP_RTT, Appendix A): datagrams that arrive over several subflows
 * are released to the application in MP_SEQ order, and a gap is waited
 * for at most a time bound -- DCCP does not retransmit, so a missing
 * number is either late (on the slower path) or lost.  The spec leaves
 * the method to implementations; this one is "wait for the gap, never
 * longer than the bound", the bound coming from the paths' RTTs
 * (udccp_mp_reorder_bound).  Sans-I/O: the caller passes the time.
 *
 * One arena of cap slots of slot_len bytes, allocated at init (no malloc
 * per datagram).  A datagram whose MP_SEQ is older than what was already
 * released is dropped (counted as late); a duplicate is dropped.
 */
#ifndef UDCCP_MP_REORDER_H
#define UDCCP_MP_REORDER_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

typedef struct udccp_mp_reorder_slot {
  uint64_t seq;          /* MP_SEQ, 48 bits */
  udccp_tstamp arrived;
  uint32_t len;
  uint8_t used;
} udccp_mp_reorder_slot;

typedef struct udccp_mp_reorder {
  const udccp_mem *mem;
  udccp_mp_reorder_slot *slots; /* cap entries, slot of seq = seq % cap */
  uint8_t *arena;        /* cap * slot_len bytes */
  size_t cap;
  size_t slot_len;
  size_t n;              /* datagrams held */
  uint64_t next;         /* the MP_SEQ released next */
  uint64_t next_ext;     /* next counted without the 48-bit wrap: slots are
                          * indexed by it, since 2^48 is no multiple of cap */
  int next_valid;        /* 0 until the first datagram */
  udccp_tstamp bound;    /* longest wait for a gap */
  int pressure;          /* a push found the window full: release now */
  /* Counters. */
  uint64_t released;     /* datagrams handed to the application */
  uint64_t released_late;/* of which after a gap was given up (past the
                            bound, or pushed out by a full window) */
  uint64_t skipped;      /* MP_SEQ numbers given up as lost */
  uint64_t dropped_old;  /* arrived after their number was given up */
  uint64_t dropped_dup;  /* duplicates */
  uint64_t over_bound;   /* released after more than the bound held */
  udccp_tstamp max_hold; /* longest a released datagram was held */
} udccp_mp_reorder;

/* Sets up r for cap slots (1..65536) of slot_len bytes (1..65535) and a
 * time bound.  Returns 0, UDCCP_ERR_INVALID_ARGUMENT or UDCCP_ERR_NOMEM. */
int udccp_mp_reorder_init(udccp_mp_reorder *r, const udccp_mem *mem,
                          size_t cap, size_t slot_len, udccp_tstamp bound);
void udccp_mp_reorder_free(udccp_mp_reorder *r);

/* A datagram with MP_SEQ seq arrived at ts.  If it is beyond the window
 * (next + cap), the oldest gaps are given up until it fits.  Returns 0,
 * UDCCP_ERR_MSGSIZE (longer than a slot), UDCCP_ERR_DROPPED (late or
 * duplicate, counted), or UDCCP_ERR_AGAIN: a datagram held at the start
 * of the window is in the way -- pop (it is released at once, late) and
 * push again. */
int udccp_mp_reorder_push(udccp_mp_reorder *r, uint64_t seq,
                          const void *data, size_t len, udccp_tstamp ts);

/* The next datagram to release at ts, copied into buf (cap bytes): the
 * one numbered next if held; else, when the oldest datagram held has
 * waited the bound, the gap before the lowest one held is given up and
 * that one released.  Returns its length (and *seq), or UDCCP_ERR_AGAIN
 * (nothing to release now), or UDCCP_ERR_NOBUF (buf too small; the
 * datagram stays). */
udccp_ssize udccp_mp_reorder_pop(udccp_mp_reorder *r, void *buf, size_t cap,
                                 uint64_t *seq, udccp_tstamp ts);

/* When a held datagram's bound runs out (UDCCP_TSTAMP_NEVER if none is
 * held): the time to call udccp_mp_reorder_pop again. */
udccp_tstamp udccp_mp_reorder_expiry(const udccp_mp_reorder *r);

/* The bound for paths whose RTTs span rtt_min..rtt_max: the one-way
 * difference is about (rtt_max - rtt_min) / 2 with symmetric paths (§3.2.7:
 * "can be assumed lost after path_delta/2"); we take the whole difference
 * plus a quarter of rtt_max for jitter, and at least 1 ms. */
udccp_tstamp udccp_mp_reorder_bound(udccp_tstamp rtt_min,
                                    udccp_tstamp rtt_max);

#endif /* UDCCP_MP_REORDER_H */

/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP receiver reordering buffer (RFC 9897 §3.2.5 MP_SEQ,
 * §3.2.7 MP_RTT, Appendix A): datagrams that arrive over several subflows
 * are released to the application in MP_SEQ order, and a gap is waited
 * for at most a time bound -- DCCP does not retransmit, so a missing
 * number is either late (on the slower path) or lost.  The spec leaves
 * the method to implementations; this one is "wait for the gap, never
 * longer than the bound", the bound coming from the paths' RTTs
 * (udccp_mp_reorder_bound_var).  Sans-I/O: the caller passes the time.
 *
 * The window is cap_max numbers wide (the peer's datagrams up to cap_max
 * past the next one to release are held); memory follows what is held,
 * not the window (issue 13: an idle connection costs a few KiB): nothing
 * is allocated until the first push; the slot table grows by doubling to
 * cover the highest number held, the payload buffers (slot_len bytes
 * each, taken from one block by index) grow by doubling with the count
 * held.  Both are released once the buffer has been empty and oversized
 * (4x) for UDCCP_MP_REORDER_TRIM_AFTER (udccp_mp_reorder_trim), so a
 * connection in steady state does not reach the allocator per datagram
 * and an idle one holds nothing.  A peer's jump in MP_SEQ costs at most
 * the slot table (24 bytes x cap_max); payload memory is what it sent.
 * A datagram whose MP_SEQ is older than what was already released is
 * dropped (counted as late); a duplicate is dropped.
 */
#ifndef UDCCP_MP_REORDER_H
#define UDCCP_MP_REORDER_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

/* The most a late arrival can add to the bound: a peer's path may stall
 * for longer, but then the application is better served by the gap. */
#define UDCCP_MP_REORDER_EXTRA_MAX ((udccp_tstamp)1000000000)

/* Slots and buffers start at this many (or cap_max if smaller). */
#define UDCCP_MP_REORDER_CAP_MIN 16
/* How long the buffer must have been oversized before it gives its memory
 * back: a burst per second keeps it, an idle connection does not. */
#define UDCCP_MP_REORDER_TRIM_AFTER ((udccp_tstamp)1000000000)

typedef struct udccp_mp_reorder_slot {
  uint64_t seq;          /* MP_SEQ, 48 bits */
  udccp_tstamp arrived;
  uint32_t len;
  uint32_t buf;          /* payload buffer index + 1; 0: slot empty */
} udccp_mp_reorder_slot;

typedef struct udccp_mp_reorder {
  const udccp_mem *mem;
  udccp_mp_reorder_slot *slots; /* cap entries (NULL: none yet); the slot
                          * of the number next + k is (next_ext + k) % cap */
  size_t cap;            /* slots allocated, covering every held number */
  size_t cap_max;        /* the window: numbers next .. next + cap_max - 1 */
  uint8_t *arena;        /* nbuf payload buffers of slot_len bytes */
  uint32_t *free_bufs;   /* stack of the nfree unused buffer indexes */
  size_t nbuf, nfree;
  size_t slot_len;
  size_t peak_off;       /* highest offset + 1 held since the last trim */
  size_t peak_n;         /* most held at once since the last trim */
  udccp_tstamp trim_at;  /* next udccp_mp_reorder_trim check (NEVER: no
                          * memory held) */
  uint64_t grows;        /* allocations made (slot table or buffers) */
  size_t n;              /* datagrams held */
  uint64_t next;         /* the MP_SEQ released next */
  uint64_t next_ext;     /* next counted without the 48-bit wrap: slots are
                          * indexed by it, since 2^48 is no multiple of cap */
  int next_valid;        /* 0 until the first datagram */
  udccp_tstamp bound;    /* longest wait for a gap, from the RTTs */
  /* Learnt from datagrams that came after their gap was given up (as
   * RACK widens its reordering window, RFC 8985 §6.2): the wait is
   * bound + extra.  A late one raises extra to at least how late it was
   * (doubling, at most UDCCP_MP_REORDER_EXTRA_MAX); 16 waits without one
   * halve it. */
  udccp_tstamp extra;
  udccp_tstamp last_skip; /* when the last gap was given up by the bound */
  uint64_t skip_end;     /* the numbers below it were given up then */
  int skip_valid;        /* last_skip/skip_end are set */
  udccp_tstamp calm_since; /* last change of extra */
  int pressure;          /* a push found the window full: release now */
  /* Counters. */
  uint64_t released;     /* datagrams handed to the application */
  uint64_t released_late;/* of which after a gap was given up (past the
                            bound, or pushed out by a full window) */
  uint64_t skipped;      /* MP_SEQ numbers given up as lost */
  uint64_t window_full;  /* of which because a datagram came beyond the
                            window (not for the time bound) */
  uint64_t dropped_old;  /* arrived after their number was given up */
  uint64_t dropped_dup;  /* duplicates */
  uint64_t over_bound;   /* released after more than the bound held */
  udccp_tstamp max_hold; /* longest a released datagram was held */
  size_t max_n;          /* most datagrams held at once, ever */
} udccp_mp_reorder;

/* Sets up r for a window of cap numbers (1..65536), datagrams of up to
 * slot_len bytes (1..65535) and a time bound.  Allocates nothing (push
 * does, for what it holds).  Returns 0 or UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_mp_reorder_init(udccp_mp_reorder *r, const udccp_mem *mem,
                          size_t cap, size_t slot_len, udccp_tstamp bound);
void udccp_mp_reorder_free(udccp_mp_reorder *r);

/* A datagram with MP_SEQ seq arrived at ts.  If it is beyond the window
 * (next + cap), the oldest gaps are given up until it fits.  Returns 0,
 * UDCCP_ERR_MSGSIZE (longer than a slot), UDCCP_ERR_DROPPED (late or
 * duplicate, counted), UDCCP_ERR_NOMEM (the memory to hold it could not
 * grow; the datagram is not held), or UDCCP_ERR_AGAIN: a datagram held at
 * the start of the window is in the way -- pop (it is released at once,
 * late) and push again. */
int udccp_mp_reorder_push(udccp_mp_reorder *r, uint64_t seq,
                          const void *data, size_t len, udccp_tstamp ts);

/* The next datagram to release at ts, copied into buf (cap bytes): the
 * one numbered next if held; else, when the oldest datagram held has
 * waited the wait (udccp_mp_reorder_wait), the gap before the lowest one
 * held is given up and that one released.  Returns its length (and *seq), or UDCCP_ERR_AGAIN
 * (nothing to release now), or UDCCP_ERR_NOBUF (buf too small; the
 * datagram stays). */
udccp_ssize udccp_mp_reorder_pop(udccp_mp_reorder *r, void *buf, size_t cap,
                                 uint64_t *seq, udccp_tstamp ts);

/* How long a gap is waited for now: the bound plus what late arrivals
 * taught (extra). */
udccp_tstamp udccp_mp_reorder_wait(const udccp_mp_reorder *r);

/* When a held datagram's bound runs out (UDCCP_TSTAMP_NEVER if none is
 * held): the time to call udccp_mp_reorder_pop again. */
udccp_tstamp udccp_mp_reorder_expiry(const udccp_mp_reorder *r);

/* Gives the memory back (slot table, buffers) when the buffer is empty
 * and has been oversized 4x since the last check, UDCCP_MP_REORDER_TRIM_AFTER
 * ago; pop calls it when it empties the buffer.  Returns the bytes held
 * after it. */
size_t udccp_mp_reorder_trim(udccp_mp_reorder *r, udccp_tstamp ts);

/* When udccp_mp_reorder_trim has something to do: UDCCP_TSTAMP_NEVER while
 * datagrams are held (the bound's expiry comes first) or nothing is
 * allocated. */
udccp_tstamp udccp_mp_reorder_trim_at(const udccp_mp_reorder *r);

/* Bytes r has allocated (slot table and payload buffers). */
size_t udccp_mp_reorder_mem(const udccp_mp_reorder *r);

/* The bound for paths whose RTTs span rtt_min..rtt_max when their
 * variation is not known: the one-way difference is about (rtt_max -
 * rtt_min) / 2 with symmetric paths (§3.2.7: "can be assumed lost after
 * path_delta/2"); we take the whole difference plus a quarter of rtt_max
 * for jitter, and at least 1 ms.  With the variation known (a CCID's
 * RTTVAR), udccp_mp_reorder_bound_var. */
udccp_tstamp udccp_mp_reorder_bound(udccp_tstamp rtt_min,
                                    udccp_tstamp rtt_max);

/* The bound for paths whose RTTs span rtt_min..rtt_max and vary by up to
 * rttvar (RFC 6298 §2's RTTVAR, the smoothed mean deviation): RFC 9897
 * §3.2.7's path_delta/2 -- "in the case that the path individual RTTs are
 * symmetric ... and there is no jitter", a missing MP_SEQ "can be assumed
 * lost after path_delta/2", path_delta = rtt_max - rtt_min -- plus the
 * jitter, 4 x rttvar (RFC 6298 §2.3's K: an RTT beyond SRTT + 4 RTTVAR is
 * rare); at least 1 ms. */
udccp_tstamp udccp_mp_reorder_bound_var(udccp_tstamp rtt_min,
                                        udccp_tstamp rtt_max,
                                        udccp_tstamp rttvar);

#endif /* UDCCP_MP_REORDER_H */

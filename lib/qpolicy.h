/* SPDX-License-Identifier: MIT */
/*
 * The send queue: datagrams the application queued and the connection has
 * not sent yet, ordered by one of the two policies Linux's DCCP offers
 * (DCCP_SOCKOPT_QPOLICY_ID; see enum udccp_qpolicy):
 *
 *   UDCCP_QPOLICY_SIMPLE  bounded FIFO; a push onto a full queue is refused
 *                         with UDCCP_ERR_AGAIN.
 *   UDCCP_QPOLICY_PRIO    every datagram has a uint32_t priority (higher is
 *                         more important).  The head is the oldest datagram
 *                         of the highest priority (FIFO among equals).  A
 *                         push onto a full queue evicts the oldest datagram
 *                         of the lowest queued priority if the new one's
 *                         priority is strictly higher; otherwise the new
 *                         datagram is refused (UDCCP_ERR_AGAIN).  Both
 *                         outcomes are counted.
 *
 * Under both, a datagram may carry an expiry: udccp_sendq_expire() drops
 * the ones whose time has come, so that a datagram is never sent late
 * (the connection calls it before taking the head to send).
 *
 * Unlike Linux, which on a full PRIO queue always evicts its worst datagram
 * even when the new one is worse still, a datagram never pushes out one
 * that is more important than itself.
 *
 * Memory follows the bytes queued, whatever the MPS (issue 13: an idle
 * connection costs a few KiB, a busy one what it holds, not qlen x MPS;
 * over loopback the MPS is 65,443 B).  One block through the udccp_mem
 * hooks holds the bookkeeping of its slots (doubling as needed, up to the
 * first power of two >= qlen) and an arena in which each datagram is
 * stored whole, packed after the previous one (its length + 1, rounded
 * up to 8 bytes), in arrival order, wrapping to the arena's start like a
 * ring.  Removing the oldest datagram (a FIFO pop) frees its room at
 * once; one removed out of arrival order (PRIO, an eviction, an expiry)
 * leaves a hole until the oldest reaches it or a compaction.  When a
 * datagram finds no contiguous room, the queue compacts the arena in
 * place if the bytes queued and the new datagram fill at most half of
 * it, and otherwise moves into a block with twice that room (copied
 * packed: compaction on growth).  So a compaction moves about as many
 * bytes as were pushed since the one before at most; a FIFO queue never
 * compacts, and allocates only when it must hold more than half its
 * arena.  The pop that empties the queue gives the block back (unless
 * keep: a busy connection keeps it until udccp_sendq_trim()), and
 * udccp_sendq_trim() moves a queue whose block is more than 4 times what
 * it holds into a smaller one.  The heap held is at most about twice the
 * most bytes queued (with the room of a reservation) since the block was
 * made or last shrunk, plus 40 bytes per slot (udccp_sendq_mem()); reuse,
 * not allocation, in steady state.
 */
#ifndef UDCCP_QPOLICY_H
#define UDCCP_QPOLICY_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

/* The largest datagram a queue takes: offsets in the arena are 32-bit,
 * with room for twice a queue's bytes. */
#define UDCCP_SENDQ_MAX_DGRAM ((size_t)0x3fffffff)

/* udccp_sendq.hold: on (udccp_sendq_hold); popped bytes held, from the
 * offset in the arrival list head's off (an entry PRIO alone uses; the
 * hold is SIMPLE's) to the oldest queued datagram or tail; a push wanted
 * to grow the block meanwhile (done on release). */
#define UDCCP_SENDQ_HOLD_ON 1u
#define UDCCP_SENDQ_HOLD_HELD 2u
#define UDCCP_SENDQ_HOLD_GROW 4u

/* One queued datagram's bookkeeping. */
typedef struct udccp_sendq_slot {
  uint32_t off;   /* its bytes: arena + off (8-byte aligned) */
  uint32_t len;   /* bytes */
  uint32_t prio;
  uint32_t anext; /* PRIO: the next newer queued datagram and the next */
  uint32_t aprev; /* older one (arena order); the slot after the last
                     (omask + 1) is the list's head */
  udccp_tstamp expires; /* dropped unsent at or after this; NEVER: kept */
} udccp_sendq_slot;

/* (issue 13: every connection holds one: 112 bytes on 64-bit hosts) */
typedef struct udccp_sendq {
  const udccp_mem *mem;
  udccp_sendq_slot *slots; /* omask + 2 entries (the last: the PRIO
                              arrival list's head); NULL: no block */
  uint32_t *order;         /* ring of omask + 1 slot indices, head first */
  uint32_t *free_slots;    /* stack of unused slot indices below qlen
                              (omask + 1 entries); empty: full */
  uint8_t *arena;          /* size bytes, after the bookkeeping */
  uint32_t max_dgram;      /* largest datagram push accepts (bytes) */
  uint32_t qlen;           /* capacity in datagrams */
  uint32_t omask;          /* slots allocated now - 1 (a power of two,
                              growing as needed up to the first >= qlen;
                              0 without a block) */
  uint32_t head;           /* ring position of the head in order[] */
  uint32_t count;          /* datagrams queued */
  uint32_t n_free;         /* entries on free_slots */
  uint32_t size;           /* arena bytes */
  uint32_t tail;           /* arena offset where the next datagram goes.
                              The queued bytes lie in [first, tail), or,
                              wrapped (first >= tail), in [first, size)
                              and [0, tail); first is the oldest
                              datagram's offset: order[head]'s under
                              SIMPLE, the arrival list's first under
                              PRIO */
  uint32_t lim;            /* tail <= lim, and [tail, lim) is free: size,
                              or first when wrapped (a lower bound: it is
                              refreshed when a datagram does not fit) */
  uint8_t policy;          /* enum udccp_qpolicy */
  uint8_t keep;            /* 1: a drained queue keeps its block for the
                              next push until udccp_sendq_trim() (a busy
                              connection, issue 13); 0: freed at once */
  uint8_t resv;            /* 1: free_slots[n_free - 1] is reserved
                              (udccp_sendq_reserve), its off, len, prio
                              and expires set; any change to the queue's
                              contents or memory clears it */
  uint8_t hold;            /* UDCCP_SENDQ_HOLD_*: udccp_sendq_hold() */
  uint64_t evicted;        /* PRIO: queued datagrams dropped for a better one */
  uint64_t refused;        /* pushes refused because the queue was full */
  uint64_t expired;        /* datagrams dropped unsent at their expiry */
  udccp_tstamp next_exp;   /* no queued datagram expires before this (a
                              lower bound: pops do not raise it) */
} udccp_sendq;

/* Sets up q for up to qlen datagrams of up to max_dgram bytes each, under
 * policy (enum udccp_qpolicy); allocates nothing.  mem NULL means
 * udccp_mem_default().  Returns 0 or UDCCP_ERR_INVALID_ARGUMENT (qlen 0,
 * an unknown policy, or max_dgram > UDCCP_SENDQ_MAX_DGRAM). */
int udccp_sendq_init(udccp_sendq *q, const udccp_mem *mem, uint8_t policy,
                     uint32_t qlen, size_t max_dgram);

/* Frees q's memory; the queued datagrams are lost.  q may then be
 * re-initialised.  Safe on a zeroed or already freed q. */
void udccp_sendq_free(udccp_sendq *q);

/* Drops every queued datagram and frees the memory; q stays usable with
 * its settings and counters (a dead connection's queue). */
void udccp_sendq_clear(udccp_sendq *q);

/* Changes the largest datagram push accepts (the MPS changed, RFC 4340
 * §14).  Allocates nothing and moves nothing: memory follows the bytes
 * queued, not the limit.  Datagrams already queued stay when it shrinks
 * (the caller may peek and pop ones now too large).  Cancels a
 * reservation.  Returns 0, or UDCCP_ERR_INVALID_ARGUMENT (q freed, or
 * max_dgram > UDCCP_SENDQ_MAX_DGRAM) with q unchanged. */
int udccp_sendq_resize(udccp_sendq *q, size_t max_dgram);

/* Copies len bytes of data into the queue with priority prio (ignored by
 * SIMPLE).  data may be NULL if len is 0 (an empty datagram).  Returns:
 *   0                   queued (under PRIO possibly after evicting the
 *                       oldest lowest-priority datagram; see
 *                       udccp_sendq_evicted());
 *   UDCCP_ERR_MSGSIZE   len > max_dgram;
 *   UDCCP_ERR_AGAIN     the queue is full (SIMPLE), or full of datagrams
 *                       whose priorities are all >= prio (PRIO); the
 *                       datagram was not queued and the refusal counted;
 *   UDCCP_ERR_NOMEM     the queue needed to grow and could not (not
 *                       queued, not counted; under PRIO a full queue's
 *                       eviction of a worse datagram stands).
 * Under a hold (udccp_sendq_hold) a push that needs the block compacted
 * or moved is refused with UDCCP_ERR_AGAIN (not counted) until the
 * release. */
int udccp_sendq_push(udccp_sendq *q, const void *data, size_t len,
                     uint32_t prio);

/* As udccp_sendq_push(), with an expiry: once udccp_sendq_expire() runs
 * at a time >= expires, the datagram is dropped if still queued (a media
 * frame that would arrive too late is worth less than the bandwidth).
 * UDCCP_TSTAMP_NEVER: no expiry. */
int udccp_sendq_push_until(udccp_sendq *q, const void *data, size_t len,
                           uint32_t prio, udccp_tstamp expires);

/* Judges a datagram of up to len bytes, priority prio, as
 * udccp_sendq_push_until() would (MSGSIZE, AGAIN, NOMEM; under PRIO the
 * eviction of a worse datagram, which stands even if the reservation is
 * never committed), makes room for len bytes in the arena and, on 0,
 * points *pdata at it (8-byte aligned): the caller writes the datagram
 * there (zero-copy write, issue 13).  Nothing is queued until
 * udccp_sendq_commit(); a new reservation replaces the previous one, and
 * one never committed costs nothing (its room is the next datagram's). */
int udccp_sendq_reserve(udccp_sendq *q, size_t len, uint32_t prio,
                        udccp_tstamp expires, uint8_t **pdata);

/* Queues the reserved datagram with its first len bytes (len <= the
 * reserved length; the room not used is the next datagram's).  Returns 0;
 * UDCCP_ERR_MSGSIZE if len is larger (the reservation stays);
 * UDCCP_ERR_INVALID_STATE if no reservation is held: none was made, it
 * was committed, or the queue changed since (a push, pop, expiry,
 * resize, trim or clear may have moved or reused its room). */
int udccp_sendq_commit(udccp_sendq *q, size_t len);

/* A reservation of len bytes at tail, admitted: the free slot's
 * bookkeeping holds it until commit. */
static inline void udccp_sendq_hold_reservation(udccp_sendq *q, size_t len,
                                                uint32_t prio,
                                                udccp_tstamp expires,
                                                uint8_t **pdata) {
  udccp_sendq_slot *sl = &q->slots[q->free_slots[q->n_free - 1]];
  sl->len = (uint32_t)len;
  sl->prio = prio;
  sl->expires = expires;
  q->resv = 1;
  *pdata = q->arena + q->tail;
}

/* udccp_sendq_reserve() and udccp_sendq_commit() in their usual case,
 * inline (issue 13: once per datagram of a zero-copy application each):
 * a free slot and room at tail for the reservation; SIMPLE's FIFO append
 * for the commit.  Anything else goes to the functions above. */
static inline int udccp_sendq_reserve_inline(udccp_sendq *q, size_t len,
                                             uint32_t prio,
                                             udccp_tstamp expires,
                                             uint8_t **pdata) {
  if (len > q->max_dgram || q->n_free == 0 ||
      (uint32_t)(len | 7u) + 1u > q->lim - q->tail) {
    return udccp_sendq_reserve(q, len, prio, expires, pdata);
  }
  udccp_sendq_hold_reservation(q, len, prio, expires, pdata);
  return 0;
}

static inline int udccp_sendq_commit_inline(udccp_sendq *q, size_t len) {
  uint32_t n = q->n_free - 1, t = q->tail, count = q->count;
  uint32_t s, omask = q->omask;
  udccp_sendq_slot *sl;
  if (!q->resv || q->policy != UDCCP_QPOLICY_SIMPLE) {
    return udccp_sendq_commit(q, len);
  }
  s = q->free_slots[n];
  sl = &q->slots[s];
  if (len > sl->len) {
    return UDCCP_ERR_MSGSIZE;
  }
  /* enqueue() in qpolicy.c, SIMPLE */
  q->n_free = n;
  q->tail = t + (uint32_t)(len | 7u) + 1u;
  sl->off = t;
  sl->len = (uint32_t)len;
  if (sl->expires < q->next_exp) {
    q->next_exp = sl->expires;
  }
  q->resv = 0;
  q->order[(q->head + count) & omask] = s;
  q->count = count + 1;
  return 0;
}

/* udccp_sendq_expire() once a datagram may have expired. */
uint32_t udccp_sendq_expire_run(udccp_sendq *q, udccp_tstamp now);

/* Drops every queued datagram whose expiry is <= now (counted in
 * udccp_sendq_expired()).  Cheap when none can have expired: one
 * comparison, inline (issue 13: asked before every data packet).
 * Returns the number dropped. */
static inline uint32_t udccp_sendq_expire(udccp_sendq *q, udccp_tstamp now) {
  if (q->count == 0 || now < q->next_exp) {
    return 0;
  }
  return udccp_sendq_expire_run(q, now);
}

/* Points *pdata and *plen at the head datagram (the next to send) without
 * removing it; *pprio receives its priority if pprio is not NULL.  The
 * pointer stays valid until the next push, reserve, pop, expiry, trim,
 * clear or free (a push or reserve may compact or move the arena).
 * Returns 0 or UDCCP_ERR_AGAIN if the queue is empty. */
int udccp_sendq_peek(const udccp_sendq *q, const uint8_t **pdata,
                     size_t *plen, uint32_t *pprio);

/* udccp_sendq_peek() inline, for the connection's data path (every data
 * packet, and every write_pkt the CCID makes wait; issue 13): the head
 * datagram and its length, or NULL if the queue is empty. */
static inline const uint8_t *udccp_sendq_head(const udccp_sendq *q,
                                              size_t *plen) {
  const udccp_sendq_slot *sl;
  if (q->count == 0) {
    return NULL;
  }
  sl = &q->slots[q->order[q->head]];
  *plen = sl->len;
  return q->arena + sl->off;
}

/* Removes the head datagram.  Returns 0 or UDCCP_ERR_AGAIN if empty.
 * The queue's last datagram gives its block back unless q->keep. */
int udccp_sendq_pop(udccp_sendq *q);
/* The same inline for the connection's data path (every data packet sent,
 * issue 13) in its usual case: arrival order (SIMPLE), no hold, and a
 * queue that keeps its block when it drains; the rest by
 * udccp_sendq_pop. */
static inline void udccp_sendq_pop_inline(udccp_sendq *q) {
  uint32_t count = q->count, n = q->n_free, s;
  if (count == 0 || q->hold != 0 || q->policy != UDCCP_QPOLICY_SIMPLE ||
      (count == 1 && !q->keep)) {
    (void)udccp_sendq_pop(q);
    return;
  }
  s = q->order[q->head];
  q->head = (q->head + 1) & q->omask;
  q->count = count - 1;
  q->n_free = n + 1;
  q->resv = 0;
  q->free_slots[n] = s;
  if (count == 1) {
    q->tail = 0; /* drained: lim stays, [0, lim) is free */
    q->next_exp = UDCCP_TSTAMP_NEVER;
  }
}

/* Gives the block of a drained queue back (kept under q->keep); moves a
 * queue whose block is more than 4 times the bytes (or slots) it holds
 * into a block twice their size (issue 13: a connection whose queue was
 * deep once does not keep that memory while it sends a trickle).  Cancels
 * a reservation.  Returns 1 if q still holds a block after. */
int udccp_sendq_trim(udccp_sendq *q);

/* From now until udccp_sendq_release(), a popped datagram's bytes stay
 * where they are, unchanged (SIMPLE only: its pops follow arrival order):
 * a caller that sends them in place (the socket runtime's transmit batch,
 * issue 13) keeps a datagram's bytes until its batch has left without
 * copying them.  Meanwhile a push uses only the room not held and never
 * compacts or moves the block: one that would must wait for the release
 * (UDCCP_ERR_AGAIN, not counted; the release then doubles the arena);
 * a clear keeps the block until the release; a trim does nothing.
 * Returns 0, or UDCCP_ERR_INVALID_STATE under PRIO (nothing held). */
int udccp_sendq_hold(udccp_sendq *q);

/* Ends a hold: the popped datagrams' bytes are free again; a queue the
 * hold left empty is drained as a pop would drain it.  Safe without a
 * hold. */
void udccp_sendq_release(udccp_sendq *q);

/* Bytes of heap the queue holds now (its block: bookkeeping and arena). */
size_t udccp_sendq_mem(const udccp_sendq *q);

/* Bytes the queued datagrams take in the arena (each rounded up as
 * stored); O(queued). */
size_t udccp_sendq_bytes(const udccp_sendq *q);

/* Datagrams queued. */
static inline size_t udccp_sendq_len(const udccp_sendq *q) {
  return q->count;
}

/* Datagrams that can still be pushed before the queue is full (under PRIO
 * a full queue may still take a datagram by evicting a worse one). */
static inline size_t udccp_sendq_space(const udccp_sendq *q) {
  return (size_t)q->qlen - q->count;
}

/* Queued datagrams evicted by better ones (PRIO only). */
static inline uint64_t udccp_sendq_evicted(const udccp_sendq *q) {
  return q->evicted;
}

/* Pushes refused with UDCCP_ERR_AGAIN because the queue was full. */
static inline uint64_t udccp_sendq_refused(const udccp_sendq *q) {
  return q->refused;
}

/* Datagrams dropped unsent because their expiry passed. */
static inline uint64_t udccp_sendq_expired(const udccp_sendq *q) {
  return q->expired;
}

/* When udccp_sendq_expire() may next drop something (a lower bound), or
 * UDCCP_TSTAMP_NEVER if nothing queued has an expiry. */
static inline udccp_tstamp udccp_sendq_next_expiry(const udccp_sendq *q) {
  return q->count > 0 ? q->next_exp : UDCCP_TSTAMP_NEVER;
}

/* Datagrams lost to the queue (for tx_qdrops): under PRIO the evicted
 * ones plus the refused ones, under both policies the expired ones.
 * Under SIMPLE a refusal is back-pressure the application is expected to
 * retry after, not a drop. */
static inline uint64_t udccp_sendq_drops(const udccp_sendq *q) {
  return (q->policy == UDCCP_QPOLICY_PRIO ? q->evicted + q->refused : 0) +
         q->expired;
}

#endif /* UDCCP_QPOLICY_H */

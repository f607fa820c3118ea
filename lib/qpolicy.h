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
 * Memory follows what is queued (issue 13: an idle connection must cost a
 * few KiB, not qlen x MPS): init allocates nothing; a push onto a queue
 * whose allocated slots are all in use doubles them (1, 2, 4, ... up to
 * qlen slots of slot_size bytes, through the udccp_mem hooks); the pop
 * that empties the queue gives everything back.  A queue that stays busy
 * therefore stops allocating once grown, and one that empties after every
 * datagram reuses the same two blocks, which an endpoint-level pool
 * (udccp_mempool) recycles without reaching the C heap.
 */
#ifndef UDCCP_QPOLICY_H
#define UDCCP_QPOLICY_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

/* One queued datagram's bookkeeping; its bytes live in the arena at
 * slot index * slot_size. */
typedef struct udccp_sendq_slot {
  size_t len;
  uint32_t prio;
  udccp_tstamp expires; /* dropped unsent at or after this; NEVER: kept */
} udccp_sendq_slot;

typedef struct udccp_sendq {
  const udccp_mem *mem;
  uint32_t qlen;           /* capacity in datagrams */
  uint32_t cap;            /* slots allocated now, <= qlen (0: none) */
  size_t max_dgram;        /* largest datagram push accepts (bytes) */
  size_t slot_size;        /* bytes reserved per slot, >= max_dgram */
  uint8_t *arena;          /* cap * slot_size bytes, after the slots */
  udccp_sendq_slot *slots; /* cap entries; order and free_slots share its
                              block */
  uint32_t *order;         /* ring of cap slot indices, head first */
  uint32_t *free_slots;    /* stack of unused slot indices */
  uint32_t head;           /* ring position of the head in order[] */
  uint32_t count;          /* datagrams queued */
  uint32_t n_free;         /* entries on free_slots */
  uint8_t policy;          /* enum udccp_qpolicy */
  uint8_t keep;            /* 1: a drained queue keeps its block for the
                              next push until udccp_sendq_trim() (a busy
                              connection, issue 13); 0: freed at once */
  uint8_t resv;            /* 1: free_slots[n_free - 1] is reserved
                              (udccp_sendq_reserve); any change to the
                              queue's contents or memory clears it */
  uint64_t evicted;        /* PRIO: queued datagrams dropped for a better one */
  uint64_t refused;        /* pushes refused because the queue was full */
  uint64_t expired;        /* datagrams dropped unsent at their expiry */
  udccp_tstamp next_exp;   /* no queued datagram expires before this (a
                              lower bound: pops do not raise it) */
} udccp_sendq;

/* Sets up q for up to qlen datagrams of up to max_dgram bytes each, under
 * policy (enum udccp_qpolicy); allocates nothing.  mem NULL means
 * udccp_mem_default().  Returns 0 or UDCCP_ERR_INVALID_ARGUMENT (qlen 0,
 * an unknown policy, or qlen * max_dgram overflowing). */
int udccp_sendq_init(udccp_sendq *q, const udccp_mem *mem, uint8_t policy,
                     uint32_t qlen, size_t max_dgram);

/* Frees q's memory; the queued datagrams are lost.  q may then be
 * re-initialised.  Safe on a zeroed or already freed q. */
void udccp_sendq_free(udccp_sendq *q);

/* Drops every queued datagram and frees the memory; q stays usable with
 * its settings and counters (a dead connection's queue). */
void udccp_sendq_clear(udccp_sendq *q);

/* Changes the largest datagram push accepts (the MPS changed, RFC 4340
 * §14).  Growing beyond the slot size reallocates the arena once (if one
 * is allocated) and moves the queued datagrams; shrinking only lowers the
 * limit, so datagrams
 * already queued stay (the caller may peek and pop ones now too large).
 * Returns 0, or UDCCP_ERR_NOMEM / UDCCP_ERR_INVALID_ARGUMENT with q
 * unchanged. */
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
 *                       queued, not counted). */
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
 * never committed) and, on 0, points *pdata at the len bytes of the slot
 * it will take: the caller writes the datagram there (zero-copy write,
 * issue 13).  Nothing is queued until udccp_sendq_commit(); a new
 * reservation replaces the previous one. */
int udccp_sendq_reserve(udccp_sendq *q, size_t len, uint32_t prio,
                        udccp_tstamp expires, uint8_t **pdata);

/* Queues the reserved datagram with its first len bytes (len <= the
 * reserved length).  Returns 0; UDCCP_ERR_MSGSIZE if len is larger (the
 * reservation stays); UDCCP_ERR_INVALID_STATE if no reservation is held:
 * none was made, it was committed, or the queue changed since (a push,
 * pop, expiry, resize, trim or clear may have moved or reused the slot). */
int udccp_sendq_commit(udccp_sendq *q, size_t len);

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
 * pointer stays valid until the next push, pop, resize or free.
 * Returns 0 or UDCCP_ERR_AGAIN if the queue is empty. */
int udccp_sendq_peek(const udccp_sendq *q, const uint8_t **pdata,
                     size_t *plen, uint32_t *pprio);

/* udccp_sendq_peek() inline, for the connection's data path (every data
 * packet, and every write_pkt the CCID makes wait; issue 13): the head
 * datagram and its length, or NULL if the queue is empty. */
static inline const uint8_t *udccp_sendq_head(const udccp_sendq *q,
                                              size_t *plen) {
  uint32_t s;
  if (q->count == 0) {
    return NULL;
  }
  s = q->order[q->head];
  *plen = q->slots[s].len;
  return q->arena + (size_t)s * q->slot_size;
}

/* Removes the head datagram.  Returns 0 or UDCCP_ERR_AGAIN if empty.
 * The queue's last datagram gives its block back unless q->keep. */
int udccp_sendq_pop(udccp_sendq *q);

/* Gives the block of a drained queue back (kept under q->keep); nothing
 * if datagrams are queued.  Returns 1 if q still holds a block after. */
int udccp_sendq_trim(udccp_sendq *q);

/* Bytes of heap the queue holds now. */
static inline size_t udccp_sendq_mem(const udccp_sendq *q) {
  return (size_t)q->cap * (q->slot_size + sizeof(udccp_sendq_slot) +
                           2 * sizeof(uint32_t));
}

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

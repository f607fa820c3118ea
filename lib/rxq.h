/* SPDX-License-Identifier: MIT */
/*
 * The receive queue: whole datagrams that arrived and that the application
 * has not read yet, oldest first.
 *
 * Bounded twice: at most qlen datagrams, and at most arena_size payload
 * bytes in total, held in one byte ring allocated through the udccp_mem
 * hooks.  A datagram is stored contiguously modulo the ring's end (it may
 * wrap), so any mix of sizes packs without per-datagram allocation.  When
 * either bound is reached a push fails: the connection then drops the
 * packet's data and reports it in a Data Dropped option with Drop Code 2,
 * "Receive Buffer" (RFC 4340 §11.7).
 *
 * Memory follows what is queued, not the bounds (issue 13: an idle
 * connection must cost a few KiB, not qlen x MPS): nothing is allocated
 * until the first push; the ring and the entry table grow by doubling
 * (at most up to the bounds) when a push needs room; both are released
 * when the queue drains.  Growth sizes are powers of two (below the bound), so that an
 * endpoint-level pool (udccp_mempool) hands the same blocks back and a
 * connection in steady state does not reach the C heap per packet.
 */
#ifndef UDCCP_RXQ_H
#define UDCCP_RXQ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <udccp/udccp.h>

typedef struct udccp_rxq_ent {
  size_t off;  /* start of the datagram in the arena */
  size_t len;
  uint64_t seq;  /* the packet's sequence number (push_meta) */
  uint64_t lost; /* data packets lost before it (push_meta) */
} udccp_rxq_ent;

typedef struct udccp_rxq {
  const udccp_mem *mem;
  uint8_t *arena;       /* byte ring of arena_cap bytes (NULL when empty) */
  size_t arena_cap;     /* allocated ring size, <= arena_size */
  size_t arena_size;    /* bound on queued payload bytes */
  size_t byte_head;     /* arena offset of the oldest datagram's first byte */
  size_t bytes;         /* payload bytes queued */
  udccp_rxq_ent *ents;  /* ring of ents_cap entries (NULL when empty);
                           the block that also holds arena */
  uint32_t ents_cap;    /* allocated entries, <= qlen */
  uint32_t qlen;
  uint32_t head;        /* index in ents of the oldest datagram */
  uint32_t count;       /* datagrams queued */
  uint8_t keep;         /* 1: drained, the block stays for the next push
                           until udccp_rxq_trim() (issue 13); 0: freed */
  uint64_t drops;       /* pushes that failed (AGAIN or MSGSIZE) */
} udccp_rxq;

/* Sets up q for at most qlen datagrams and arena_size bytes of payload;
 * allocates nothing (push does, for what it queues).  A sensible
 * arena_size is qlen * MPS (no datagram can be refused for want of bytes
 * before the count bound is hit) or less to bound memory.
 * mem NULL means udccp_mem_default().  Returns 0 or
 * UDCCP_ERR_INVALID_ARGUMENT (qlen or arena_size 0). */
int udccp_rxq_init(udccp_rxq *q, const udccp_mem *mem, uint32_t qlen,
                   size_t arena_size);

/* Frees q's memory.  Safe on a zeroed or already freed q. */
void udccp_rxq_free(udccp_rxq *q);

/* Copies a received datagram of len bytes (data may be NULL if len is 0)
 * to the tail.  Returns 0; UDCCP_ERR_AGAIN if qlen datagrams or not enough
 * free bytes remain (RFC 4340 §11.7.2 Drop Code 2); UDCCP_ERR_MSGSIZE if
 * len exceeds arena_size (it could never fit); or UDCCP_ERR_NOMEM if the
 * ring could not grow.  Failures count in drops. */
int udccp_rxq_push(udccp_rxq *q, const void *data, size_t len);

/* For udccp_rxq_push_meta: grows the ring and the entry table so that
 * one more entry of need bytes fits; 0, or UDCCP_ERR_NOMEM (counted in
 * drops; an empty queue gives its memory back). */
int udccp_rxq_make_room(udccp_rxq *q, size_t need);

/* 1 if a datagram of len bytes would be accepted now. */
static inline int udccp_rxq_fits(const udccp_rxq *q, size_t len) {
  return q->count < q->qlen && len <= q->arena_size - q->bytes;
}

/* As udccp_rxq_push(), keeping the datagram's sequence number and the
 * count of data packets lost before it (udccp_recv_info) with it.
 * Inline: every data packet received (issue 13); the ring and the table
 * grow out of line, when they must. */
static inline int udccp_rxq_push_meta(udccp_rxq *q, const void *data,
                                      size_t len, uint64_t seq,
                                      uint64_t lost) {
  size_t tail, first;
  udccp_rxq_ent *e;
  if (q->qlen == 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (len > q->arena_size) {
    q->drops++;
    return UDCCP_ERR_MSGSIZE;
  }
  if (!udccp_rxq_fits(q, len)) {
    /* RFC 4340 §11.7: the caller reports Drop Code 2, Receive Buffer. */
    q->drops++;
    return UDCCP_ERR_AGAIN;
  }
  if (q->arena == NULL || q->bytes + len > q->arena_cap ||
      q->count == q->ents_cap) {
    int rv = udccp_rxq_make_room(q, len);
    if (rv != 0) {
      return rv;
    }
  }
  /* byte_head < arena_cap and bytes <= arena_cap, so no overflow. */
  tail = q->byte_head + q->bytes;
  if (tail >= q->arena_cap) {
    tail -= q->arena_cap;
  }
  first = q->arena_cap - tail;
  if (first > len) {
    first = len;
  }
  if (len > 0) {
    memcpy(q->arena + tail, data, first);
    if (len > first) {
      memcpy(q->arena, (const uint8_t *)data + first, len - first);
    }
  }
  e = &q->ents[(q->head + q->count) % q->ents_cap];
  e->off = tail;
  e->len = len;
  e->seq = seq;
  e->lost = lost;
  q->count++;
  q->bytes += len;
  return 0;
}

/* The oldest datagram's entry (seq, lost), or NULL if the queue is
 * empty; valid until the next push, pop or discard. */
static inline const udccp_rxq_ent *udccp_rxq_head(const udccp_rxq *q) {
  return q->count > 0 ? &q->ents[q->head] : NULL;
}

/* Length of the oldest datagram, or UDCCP_ERR_AGAIN if the queue is empty. */
udccp_ssize udccp_rxq_peek_len(const udccp_rxq *q);

/* Copies the oldest datagram into buf and removes it.  Returns its length;
 * UDCCP_ERR_AGAIN if the queue is empty; UDCCP_ERR_NOBUF if cap is smaller
 * than the datagram (it stays queued).  buf may be NULL if cap is 0. */
udccp_ssize udccp_rxq_pop(udccp_rxq *q, void *buf, size_t cap);

/* Points *pdata at the oldest datagram's bytes, in place, and returns its
 * length (zero-copy read, issue 13), or UDCCP_ERR_AGAIN if the queue is
 * empty.  A datagram that wraps at the ring's end is first made
 * contiguous (the ring is rotated in place).  *pdata stays valid until
 * the next push, pop, discard, peek or trim. */
udccp_ssize udccp_rxq_peek(udccp_rxq *q, const uint8_t **pdata);

/* Removes the oldest datagram without copying it.  Returns 0 or
 * UDCCP_ERR_AGAIN if empty. */
int udccp_rxq_discard(udccp_rxq *q);

/* Gives the block of a drained queue back (kept under q->keep); nothing
 * if datagrams are queued.  Returns 1 if q still holds a block after. */
int udccp_rxq_trim(udccp_rxq *q);

static inline size_t udccp_rxq_len(const udccp_rxq *q) { return q->count; }

/* udccp_rxq_peek() and udccp_rxq_discard() in their usual case, inline
 * (issue 13: once per datagram of a zero-copy application each): a head
 * datagram that does not wrap; a discard that leaves others queued, or
 * drains a queue that keeps its block.  Anything else goes to the
 * functions above. */
static inline udccp_ssize udccp_rxq_peek_inline(udccp_rxq *q,
                                                const uint8_t **pdata) {
  const udccp_rxq_ent *e;
  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  e = &q->ents[q->head];
  if (e->len > q->arena_cap - e->off) {
    return udccp_rxq_peek(q, pdata);
  }
  *pdata = q->arena + e->off;
  return (udccp_ssize)e->len;
}

static inline int udccp_rxq_discard_inline(udccp_rxq *q) {
  const udccp_rxq_ent *e;
  if (q->count == 0 || (q->count == 1 && !q->keep)) {
    return udccp_rxq_discard(q);
  }
  e = &q->ents[q->head];
  q->bytes -= e->len;
  if (--q->count == 0) {
    q->head = 0;
    q->byte_head = 0;
    return 0;
  }
  /* Datagrams are packed, so the next one starts right after this one. */
  q->byte_head = (e->off + e->len) % q->arena_cap;
  q->head = (q->head + 1) % q->ents_cap;
  return 0;
}

static inline size_t udccp_rxq_bytes(const udccp_rxq *q) { return q->bytes; }

/* Bytes of heap the queue holds now (ring and entry table). */
static inline size_t udccp_rxq_mem(const udccp_rxq *q) {
  return q->arena_cap + (size_t)q->ents_cap * sizeof(udccp_rxq_ent);
}

/* Datagrams refused by push (for rx_qdrops). */
static inline uint64_t udccp_rxq_drops(const udccp_rxq *q) { return q->drops; }

#endif /* UDCCP_RXQ_H */

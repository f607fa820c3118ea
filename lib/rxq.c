/* SPDX-License-Identifier: MIT */
/*
 * Receive queue of whole datagrams (see rxq.h).
 *
 * The byte ring holds the datagrams back to back in arrival order, so the
 * free space is always the one contiguous (modulo the end) run after the
 * newest datagram, and popping in order frees bytes at the front.  Growing
 * the ring copies the queued bytes to the start of the new one (so the
 * entries' offsets stay packed from 0); the entry table likewise.
 */
#include <string.h>

#include "rxq.h"

/* First sizes: one small datagram's worth; doubling from there. */
#define RXQ_ARENA_MIN 256u
#define RXQ_ENTS_MIN 4u

int udccp_rxq_init(udccp_rxq *q, const udccp_mem *mem, uint32_t qlen,
                   size_t arena_size) {
  memset(q, 0, sizeof(*q));
  if (mem == NULL) {
    mem = udccp_mem_default();
  }
  if (qlen == 0 || arena_size == 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  q->mem = mem;
  q->qlen = qlen;
  q->arena_size = arena_size;
  return 0;
}

/* Gives the block (entry table and ring) back (the queue is empty). */
static void release(udccp_rxq *q) {
  if (q->mem != NULL) {
    q->mem->free(q->ents, q->mem->user_data);
  }
  q->arena = NULL;
  q->ents = NULL;
  q->arena_cap = 0;
  q->ents_cap = 0;
  q->head = 0;
  q->byte_head = 0;
}

void udccp_rxq_free(udccp_rxq *q) {
  release(q);
  memset(q, 0, sizeof(*q));
}

/* Copies n bytes at ring offset off (modulo cap) out to dst. */
static void ring_read(const uint8_t *ring, size_t cap, size_t off, uint8_t *dst,
                      size_t n) {
  size_t first = cap - off;
  if (first > n) {
    first = n;
  }
  if (n > 0) {
    memcpy(dst, ring + off, first);
    if (n > first) {
      memcpy(dst + first, ring, n - first);
    }
  }
}

/* Makes room for one more entry and need more bytes (the ring exists
 * after, even for need 0, so that offsets have a modulus).  The entry
 * table and the ring share one block, table first: a queue that fills
 * and drains per packet costs one allocation and one free, not two
 * (issue 13).  Growing either copies both, linearised from the oldest. */
static int grow(udccp_rxq *q, size_t need) {
  size_t cap = q->arena_cap;
  uint32_t n = q->ents_cap, i;
  udccp_rxq_ent *ents;
  uint8_t *a;
  if (q->arena == NULL || q->bytes + need > q->arena_cap) {
    cap = q->arena_cap ? q->arena_cap : RXQ_ARENA_MIN;
    while (cap < q->bytes + need && cap < q->arena_size) {
      cap *= 2;
    }
    if (cap > q->arena_size) {
      cap = q->arena_size;
    }
  }
  if (q->count == q->ents_cap) {
    n = q->ents_cap ? q->ents_cap * 2 : RXQ_ENTS_MIN;
    if (n > q->qlen || n < q->ents_cap) {
      n = q->qlen;
    }
  }
  if (q->arena != NULL && cap == q->arena_cap && n == q->ents_cap) {
    return 0;
  }
  if ((size_t)n > (SIZE_MAX - cap) / sizeof(*ents)) {
    return UDCCP_ERR_NOMEM;
  }
  ents = q->mem->malloc((size_t)n * sizeof(*ents) + cap, q->mem->user_data);
  if (ents == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  a = (uint8_t *)(ents + n);
  /* Linearise: the oldest byte moves to 0, the entries follow. */
  if (q->bytes > 0) {
    ring_read(q->arena, q->arena_cap, q->byte_head, a, q->bytes);
  }
  for (i = 0; i < q->count; ++i) {
    udccp_rxq_ent e = q->ents[(q->head + i) % q->ents_cap];
    e.off = e.off >= q->byte_head ? e.off - q->byte_head
                                  : e.off + q->arena_cap - q->byte_head;
    ents[i] = e;
  }
  q->mem->free(q->ents, q->mem->user_data);
  q->ents = ents;
  q->ents_cap = n;
  q->head = 0;
  q->arena = a;
  q->arena_cap = cap;
  q->byte_head = 0;
  return 0;
}

int udccp_rxq_push(udccp_rxq *q, const void *data, size_t len) {
  return udccp_rxq_push_meta(q, data, len, 0, 0);
}

int udccp_rxq_make_room(udccp_rxq *q, size_t need) {
  int rv = grow(q, need);
  if (rv != 0) {
    q->drops++;
    if (q->count == 0) {
      release(q);
    }
  }
  return rv;
}

udccp_ssize udccp_rxq_peek_len(const udccp_rxq *q) {
  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  return (udccp_ssize)q->ents[q->head].len;
}

/* Reverses the n bytes at p. */
static void reverse(uint8_t *p, size_t n) {
  size_t i;
  for (i = 0; i < n / 2; i++) {
    uint8_t t = p[i];
    p[i] = p[n - 1 - i];
    p[n - 1 - i] = t;
  }
}

/* Rotates the ring so that the oldest byte is at offset 0 (three
 * reversals, in place: a peek must not allocate), and the entries'
 * offsets with it.  Only for a head datagram that wraps, which a queue
 * drained now and then rarely holds. */
static void linearise(udccp_rxq *q) {
  uint32_t i;
  size_t h = q->byte_head;

  reverse(q->arena, h);
  reverse(q->arena + h, q->arena_cap - h);
  reverse(q->arena, q->arena_cap);
  for (i = 0; i < q->count; i++) {
    udccp_rxq_ent *e = &q->ents[(q->head + i) % q->ents_cap];
    e->off = e->off >= h ? e->off - h : e->off + q->arena_cap - h;
  }
  q->byte_head = 0;
}

udccp_ssize udccp_rxq_peek(udccp_rxq *q, const uint8_t **pdata) {
  const udccp_rxq_ent *e;

  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  e = &q->ents[q->head];
  if (e->len > q->arena_cap - e->off) {
    linearise(q);
  }
  *pdata = q->arena + e->off;
  return (udccp_ssize)e->len;
}

int udccp_rxq_discard(udccp_rxq *q) {
  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  if (q->count == 1 && !q->keep) {
    /* Drained: an idle connection holds no receive buffer; a busy one
     * (keep) reuses the block for the next datagram (the inline case),
     * its owner trims it once idle (issue 13: an allocation and a free
     * per packet). */
    q->bytes -= q->ents[q->head].len;
    q->count = 0;
    release(q);
    return 0;
  }
  return udccp_rxq_discard_inline(q);
}

int udccp_rxq_trim(udccp_rxq *q) {
  if (q->count == 0 && q->ents != NULL) {
    release(q);
  }
  return q->ents != NULL;
}

udccp_ssize udccp_rxq_pop(udccp_rxq *q, void *buf, size_t cap) {
  const udccp_rxq_ent *e;
  size_t len;

  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  e = &q->ents[q->head];
  len = e->len;
  if (cap < len) {
    return UDCCP_ERR_NOBUF;
  }
  ring_read(q->arena, q->arena_cap, e->off, buf, len);
  udccp_rxq_discard(q);
  return (udccp_ssize)len;
}

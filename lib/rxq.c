/*
 * Receive queue of whole datagrams (see rxq.h).
 *
 * The byte ring holds the datagrams back to back in arrival order, so the
 * free space is always the one contiguous (modulo the end) run after the
 * newest datagram, and popping in order frees bytes at the front.
 */
#include <string.h>

#include "rxq.h"

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
  q->arena = mem->malloc(arena_size, mem->user_data);
  q->ents = mem->calloc(qlen, sizeof(*q->ents), mem->user_data);
  if (q->arena == NULL || q->ents == NULL) {
    udccp_rxq_free(q);
    return UDCCP_ERR_NOMEM;
  }
  return 0;
}

void udccp_rxq_free(udccp_rxq *q) {
  if (q->mem != NULL) {
    q->mem->free(q->arena, q->mem->user_data);
    q->mem->free(q->ents, q->mem->user_data);
  }
  memset(q, 0, sizeof(*q));
}

int udccp_rxq_push(udccp_rxq *q, const void *data, size_t len) {
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
  /* byte_head < arena_size and bytes <= arena_size, so no overflow. */
  tail = q->byte_head + q->bytes;
  if (tail >= q->arena_size) {
    tail -= q->arena_size;
  }
  first = q->arena_size - tail;
  if (first > len) {
    first = len;
  }
  if (len > 0) {
    memcpy(q->arena + tail, data, first);
    memcpy(q->arena, (const uint8_t *)data + first, len - first);
  }
  e = &q->ents[(uint32_t)(((uint64_t)q->head + q->count) % q->qlen)];
  e->off = tail;
  e->len = len;
  q->count++;
  q->bytes += len;
  return 0;
}

udccp_ssize udccp_rxq_peek_len(const udccp_rxq *q) {
  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  return (udccp_ssize)q->ents[q->head].len;
}

int udccp_rxq_discard(udccp_rxq *q) {
  const udccp_rxq_ent *e;

  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  e = &q->ents[q->head];
  q->bytes -= e->len;
  /* Datagrams are packed, so the next one starts right after this one. */
  q->byte_head = q->bytes == 0 ? 0 : (e->off + e->len) % q->arena_size;
  q->head = (q->head + 1) % q->qlen;
  q->count--;
  return 0;
}

udccp_ssize udccp_rxq_pop(udccp_rxq *q, void *buf, size_t cap) {
  const udccp_rxq_ent *e;
  size_t first, len;

  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  e = &q->ents[q->head];
  len = e->len;
  if (cap < len) {
    return UDCCP_ERR_NOBUF;
  }
  if (len > 0) {
    first = q->arena_size - e->off;
    if (first > len) {
      first = len;
    }
    memcpy(buf, q->arena + e->off, first);
    memcpy((uint8_t *)buf + first, q->arena, len - first);
  }
  udccp_rxq_discard(q);
  return (udccp_ssize)len;
}

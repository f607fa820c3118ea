/* SPDX-License-Identifier: MIT */
/*
 * Send queue policies (see qpolicy.h).
 *
 * order[] is a ring of slot indices kept in dequeue order: for SIMPLE that
 * is arrival order; for PRIO it is priority descending, arrival order among
 * equals.  A PRIO push inserts by shifting the ring tail (O(qlen), and
 * qlen is small: 32 by default); the eviction victim is the first entry of
 * the last run of equal priorities, i.e. the oldest of the lowest.
 */
#include <string.h>

#include "qpolicy.h"

static uint32_t ring_idx(const udccp_sendq *q, uint32_t pos) {
  return (uint32_t)(((uint64_t)q->head + pos) % q->cap);
}

static uint32_t order_at(const udccp_sendq *q, uint32_t pos) {
  return q->order[ring_idx(q, pos)];
}

int udccp_sendq_init(udccp_sendq *q, const udccp_mem *mem, uint8_t policy,
                     uint32_t qlen, size_t max_dgram) {
  size_t slot_size;

  memset(q, 0, sizeof(*q));
  if (mem == NULL) {
    mem = udccp_mem_default();
  }
  if (qlen == 0 ||
      (policy != UDCCP_QPOLICY_SIMPLE && policy != UDCCP_QPOLICY_PRIO)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  /* A zero-byte slot would make every slot share offset 0, which is fine,
   * but malloc(0) may return NULL: reserve at least one byte. */
  slot_size = max_dgram ? max_dgram : 1;
  if (slot_size > SIZE_MAX / qlen) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  q->mem = mem;
  q->policy = policy;
  q->qlen = qlen;
  q->max_dgram = max_dgram;
  q->slot_size = slot_size;
  q->next_exp = UDCCP_TSTAMP_NEVER;
  return 0;
}

/* Gives the slots back (the queue is empty or being freed). */
static void release(udccp_sendq *q) {
  if (q->mem != NULL) {
    q->mem->free(q->slots, q->mem->user_data); /* the arena too */
  }
  q->arena = NULL;
  q->slots = NULL;
  q->order = NULL;
  q->free_slots = NULL;
  q->cap = 0;
  q->head = 0;
  q->n_free = 0;
  q->next_exp = UDCCP_TSTAMP_NEVER;
  q->resv = 0;
}

/* The queue just emptied: an idle connection holds no send buffer, but a
 * busy one (keep) reuses its block for the next datagram instead of an
 * allocation and a free per packet (issue 13); its owner trims it once
 * idle.  Every slot is free again, so the ring may restart at 0. */
static void drained(udccp_sendq *q) {
  if (!q->keep) {
    release(q);
    return;
  }
  q->head = 0;
  q->next_exp = UDCCP_TSTAMP_NEVER;
}

void udccp_sendq_clear(udccp_sendq *q) {
  release(q);
  q->count = 0;
}

void udccp_sendq_free(udccp_sendq *q) {
  release(q);
  memset(q, 0, sizeof(*q));
}

/* One block for n slots of slot_size bytes: the bookkeeping (slots,
 * order, free_slots) first, the arena after it, so that a queue that
 * fills and drains per packet costs one allocation and one free, not two
 * (issue 13).  Returns the block (= its slots) or NULL. */
static udccp_sendq_slot *block_new(const udccp_sendq *q, uint32_t n,
                                   size_t slot_size, uint8_t **arena) {
  size_t meta = (size_t)n * (sizeof(udccp_sendq_slot) + 2 * sizeof(uint32_t));
  uint8_t *b;
  if (slot_size > (SIZE_MAX - meta) / n) {
    return NULL;
  }
  b = q->mem->malloc(meta + slot_size * n, q->mem->user_data);
  if (b == NULL) {
    return NULL;
  }
  *arena = b + meta;
  return (udccp_sendq_slot *)(void *)b;
}

/* Doubles the allocated slots (count == cap < qlen).  Slot numbers are
 * kept, so the queued bytes stay at their offsets; the order ring is
 * linearised from the head. */
static int grow(udccp_sendq *q) {
  uint32_t n = q->cap ? q->cap * 2 : 1, i;
  uint8_t *arena;
  udccp_sendq_slot *slots;
  uint32_t *order, *free_slots;

  if (n > q->qlen || n < q->cap) {
    n = q->qlen;
  }
  slots = block_new(q, n, q->slot_size, &arena);
  if (slots == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  order = (uint32_t *)(void *)(slots + n);
  free_slots = order + n;
  if (q->cap > 0) {
    memcpy(arena, q->arena, q->slot_size * q->cap);
    memcpy(slots, q->slots, (size_t)q->cap * sizeof(*slots));
    for (i = 0; i < q->count; i++) {
      order[i] = order_at(q, i);
    }
  }
  /* count == cap: every old slot is in use; hand out low numbers first. */
  for (i = 0; i < n - q->cap; i++) {
    free_slots[i] = n - 1 - i;
  }
  if (q->slots != NULL) {
    q->mem->free(q->slots, q->mem->user_data);
  }
  q->arena = arena;
  q->slots = slots;
  q->order = order;
  q->free_slots = free_slots;
  q->n_free = n - q->cap;
  q->cap = n;
  q->head = 0;
  q->resv = 0;
  return 0;
}

int udccp_sendq_resize(udccp_sendq *q, size_t max_dgram) {
  uint8_t *arena;
  udccp_sendq_slot *slots;
  uint32_t i;

  if (q->qlen == 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  q->resv = 0; /* a reservation's length was judged against max_dgram */
  if (max_dgram <= q->slot_size) {
    q->max_dgram = max_dgram;
    return 0;
  }
  if (max_dgram > SIZE_MAX / q->qlen) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (q->cap == 0) {
    q->slot_size = max_dgram; /* nothing allocated yet */
    q->max_dgram = max_dgram;
    return 0;
  }
  slots = block_new(q, q->cap, max_dgram, &arena);
  if (slots == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  /* Slot numbers are kept, and the bookkeeping is copied as it is (the
   * order ring keeps its head), so order[] and slots[] stay valid. */
  memcpy(slots, q->slots, (size_t)(q->arena - (uint8_t *)q->slots));
  for (i = 0; i < q->count; i++) {
    uint32_t s = order_at(q, i);
    memcpy(arena + (size_t)s * max_dgram, q->arena + (size_t)s * q->slot_size,
           q->slots[s].len);
  }
  q->mem->free(q->slots, q->mem->user_data);
  q->slots = slots;
  q->order = (uint32_t *)(void *)(slots + q->cap);
  q->free_slots = q->order + q->cap;
  q->arena = arena;
  q->slot_size = max_dgram;
  q->max_dgram = max_dgram;
  return 0;
}

/* Removes the entry at ring position pos, closing the gap from the tail
 * side, and returns its slot to the free stack. */
static void order_remove(udccp_sendq *q, uint32_t pos) {
  uint32_t s = order_at(q, pos);
  uint32_t i;

  for (i = pos; i + 1 < q->count; i++) {
    q->order[ring_idx(q, i)] = q->order[ring_idx(q, i + 1)];
  }
  q->count--;
  q->free_slots[q->n_free++] = s;
}

/* Inserts slot s at ring position pos, moving later entries back. */
static void order_insert(udccp_sendq *q, uint32_t pos, uint32_t s) {
  uint32_t i;

  for (i = q->count; i > pos; i--) {
    q->order[ring_idx(q, i)] = q->order[ring_idx(q, i - 1)];
  }
  q->order[ring_idx(q, pos)] = s;
  q->count++;
}

/* PRIO: position of the oldest datagram of the lowest priority. */
static uint32_t prio_victim(const udccp_sendq *q) {
  uint32_t pos = q->count - 1;
  uint32_t low = q->slots[order_at(q, pos)].prio;

  while (pos > 0 && q->slots[order_at(q, pos - 1)].prio == low) {
    pos--;
  }
  return pos;
}

/* PRIO: where a datagram of priority prio goes: after every datagram of
 * priority >= prio (FIFO among equals). */
static uint32_t prio_insert_pos(const udccp_sendq *q, uint32_t prio) {
  uint32_t lo = 0, hi = q->count;

  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (q->slots[order_at(q, mid)].prio >= prio) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

int udccp_sendq_push(udccp_sendq *q, const void *data, size_t len,
                     uint32_t prio) {
  return udccp_sendq_push_until(q, data, len, prio, UDCCP_TSTAMP_NEVER);
}

/* The queue's rules for a datagram of len bytes and priority prio: the
 * size limit, a full queue (refused, or under PRIO the eviction of a
 * worse datagram), and a free slot (grown if needed).  Returns 0 with
 * free_slots[n_free - 1] the slot the datagram will take, or as
 * udccp_sendq_push_until(). */
static inline int admit(udccp_sendq *q, size_t len, uint32_t prio) {
  if (q->qlen == 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (len > q->max_dgram) {
    return UDCCP_ERR_MSGSIZE;
  }
  if (q->count == q->qlen) {
    uint32_t victim;

    if (q->policy != UDCCP_QPOLICY_PRIO) {
      q->refused++;
      return UDCCP_ERR_AGAIN;
    }
    victim = prio_victim(q);
    /* Never let a datagram push out one at least as important. */
    if (q->slots[order_at(q, victim)].prio >= prio) {
      q->refused++;
      return UDCCP_ERR_AGAIN;
    }
    order_remove(q, victim);
    q->evicted++;
    q->resv = 0;
  }
  if (q->count == q->cap) {
    int rv = grow(q);
    if (rv != 0) {
      return rv;
    }
  }
  return 0;
}

/* Queues the datagram already in slot free_slots[n_free - 1] (admit()). */
static inline void place(udccp_sendq *q, size_t len, uint32_t prio,
                  udccp_tstamp expires) {
  uint32_t pos, s;

  pos = q->policy == UDCCP_QPOLICY_PRIO ? prio_insert_pos(q, prio) : q->count;
  s = q->free_slots[--q->n_free];
  q->slots[s].len = len;
  q->slots[s].prio = prio;
  q->slots[s].expires = expires;
  if (expires < q->next_exp) {
    q->next_exp = expires;
  }
  order_insert(q, pos, s);
  q->resv = 0;
}

int udccp_sendq_push_until(udccp_sendq *q, const void *data, size_t len,
                           uint32_t prio, udccp_tstamp expires) {
  int rv = admit(q, len, prio);

  if (rv != 0) {
    return rv;
  }
  if (len > 0) {
    memcpy(q->arena + (size_t)q->free_slots[q->n_free - 1] * q->slot_size,
           data, len);
  }
  place(q, len, prio, expires);
  return 0;
}

int udccp_sendq_reserve(udccp_sendq *q, size_t len, uint32_t prio,
                        udccp_tstamp expires, uint8_t **pdata) {
  uint32_t s;
  int rv = admit(q, len, prio);

  if (rv != 0) {
    return rv;
  }
  /* The free slot's bookkeeping holds the reservation until commit. */
  s = q->free_slots[q->n_free - 1];
  q->slots[s].len = len;
  q->slots[s].prio = prio;
  q->slots[s].expires = expires;
  q->resv = 1;
  *pdata = q->arena + (size_t)s * q->slot_size;
  return 0;
}

int udccp_sendq_commit(udccp_sendq *q, size_t len) {
  const udccp_sendq_slot *r;

  if (!q->resv) {
    return UDCCP_ERR_INVALID_STATE;
  }
  r = &q->slots[q->free_slots[q->n_free - 1]];
  if (len > r->len) {
    return UDCCP_ERR_MSGSIZE;
  }
  place(q, len, r->prio, r->expires);
  return 0;
}

int udccp_sendq_peek(const udccp_sendq *q, const uint8_t **pdata,
                     size_t *plen, uint32_t *pprio) {
  uint32_t s;

  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  s = q->order[q->head];
  *pdata = q->arena + (size_t)s * q->slot_size;
  *plen = q->slots[s].len;
  if (pprio != NULL) {
    *pprio = q->slots[s].prio;
  }
  return 0;
}

int udccp_sendq_pop(udccp_sendq *q) {
  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  q->free_slots[q->n_free++] = q->order[q->head];
  q->head = (q->head + 1) % q->cap;
  q->count--;
  q->resv = 0;
  if (q->count == 0) {
    drained(q);
  }
  return 0;
}

int udccp_sendq_trim(udccp_sendq *q) {
  if (q->count == 0 && q->cap > 0) {
    release(q);
  }
  return q->cap > 0;
}

uint32_t udccp_sendq_expire_run(udccp_sendq *q, udccp_tstamp now) {
  uint32_t i, kept = 0, dropped = 0;
  udccp_tstamp next = UDCCP_TSTAMP_NEVER;

  if (q->count == 0 || now < q->next_exp) {
    return 0;
  }
  /* One pass that keeps the survivors in order, packed from the head. */
  for (i = 0; i < q->count; i++) {
    uint32_t s = order_at(q, i);
    udccp_tstamp e = q->slots[s].expires;
    if (e <= now) {
      q->free_slots[q->n_free++] = s;
      dropped++;
      continue;
    }
    if (e < next) {
      next = e;
    }
    q->order[ring_idx(q, kept++)] = s;
  }
  q->count = kept;
  q->expired += dropped;
  if (dropped > 0) {
    q->resv = 0;
  }
  q->next_exp = next;
  if (q->count == 0) {
    drained(q);
  }
  return dropped;
}

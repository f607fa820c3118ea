/* SPDX-License-Identifier: MIT */
/*
 * Send queue policies (see qpolicy.h).
 *
 * order[] is a ring of slot indices kept in dequeue order: for SIMPLE that
 * is arrival order; for PRIO it is priority descending, arrival order among
 * equals.  A PRIO push inserts by shifting the ring tail (O(qlen), and
 * qlen is small: 32 by default); the eviction victim is the first entry of
 * the last run of equal priorities, i.e. the oldest of the lowest.
 *
 * The arena holds the datagrams' bytes in arrival order, each after the
 * previous one, as a ring that wraps (a datagram is never split: one that
 * does not fit before the arena's end goes to offset 0 if the oldest
 * datagram leaves room there).  Arrival order is what frees room: the
 * oldest queued datagram (order[head] under SIMPLE; under PRIO the first
 * of a circular doubly linked arrival list whose head is the slot after
 * the last) marks where the used part of the ring starts, so that
 * removing it gives its bytes, and those of every hole up to the next
 * datagram, back at once.  The ring's state needs no flag: with something
 * queued, the oldest datagram's offset is below tail unless the ring has
 * wrapped (room_at()).  lim caches where the free run after tail ends, so
 * that a datagram that fits there (nearly all) costs two comparisons.
 */
#include <string.h>

#include "qpolicy.h"

/* Bytes a datagram of len bytes takes in the arena: len + 1 rounded up
 * to 8, so that every datagram takes some room (the ring's state is read
 * from offsets) and the next one starts 8-byte aligned. */
static inline uint32_t room_of(size_t len) {
  return (uint32_t)(len | 7u) + 1u;
}

static inline uint32_t ring_idx(const udccp_sendq *q, uint32_t pos) {
  return (q->head + pos) & q->omask;
}

static inline uint32_t order_at(const udccp_sendq *q, uint32_t pos) {
  return q->order[ring_idx(q, pos)];
}

/* PRIO: the arrival list's head, the slot after the last. */
static inline udccp_sendq_slot *arrivals(const udccp_sendq *q) {
  return &q->slots[q->omask + 1];
}

/* The oldest queued datagram (q->count > 0). */
static inline uint32_t oldest(const udccp_sendq *q) {
  return q->policy == UDCCP_QPOLICY_PRIO ? arrivals(q)->anext
                                         : q->order[q->head];
}

int udccp_sendq_init(udccp_sendq *q, const udccp_mem *mem, uint8_t policy,
                     uint32_t qlen, size_t max_dgram) {
  memset(q, 0, sizeof(*q));
  if (mem == NULL) {
    mem = udccp_mem_default();
  }
  if (qlen == 0 ||
      (policy != UDCCP_QPOLICY_SIMPLE && policy != UDCCP_QPOLICY_PRIO) ||
      max_dgram > UDCCP_SENDQ_MAX_DGRAM) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  q->mem = mem;
  q->policy = policy;
  q->qlen = qlen;
  q->max_dgram = (uint32_t)max_dgram;
  q->next_exp = UDCCP_TSTAMP_NEVER;
  return 0;
}

/* Gives the block back (the queue is empty or being freed).  The free
 * comes last, so that it can be a tail call (pop). */
static void release(udccp_sendq *q) {
  void *b = q->slots; /* the arena too */
  q->slots = NULL;
  q->order = NULL;
  q->free_slots = NULL;
  q->arena = NULL;
  q->omask = 0;
  q->head = 0;
  q->n_free = 0;
  q->size = 0;
  q->tail = 0;
  q->lim = 0;
  q->next_exp = UDCCP_TSTAMP_NEVER;
  q->resv = 0;
  if (q->mem != NULL) {
    q->mem->free(b, q->mem->user_data);
  }
}

/* The queue just emptied: an idle connection holds no send buffer, but a
 * busy one (keep) reuses its block for the next datagram instead of an
 * allocation and a free per packet (issue 13); its owner trims it once
 * idle.  The arena restarts at 0, so that a queue that empties after
 * every datagram or two never wraps (the order ring goes on from where it
 * is; the PRIO arrival list is empty: its head links to itself). */
static void drained(udccp_sendq *q) {
  if (q->hold & UDCCP_SENDQ_HOLD_HELD) {
    return; /* the held bytes stay where they are (udccp_sendq_hold) */
  }
  if (!q->keep) {
    release(q);
    return;
  }
  q->tail = 0; /* lim stays: tail <= lim, and [0, lim) is free */
  q->next_exp = UDCCP_TSTAMP_NEVER;
}

/* Where the held bytes start (SIMPLE: the arrival list head is free). */
static inline uint32_t *held_off(const udccp_sendq *q) {
  return &q->slots[q->omask + 1].off;
}

void udccp_sendq_clear(udccp_sendq *q) {
  if (q->hold & UDCCP_SENDQ_HOLD_HELD) {
    /* Popped bytes are held: the block stays until the release, which
     * frees it (unless keep); every slot is free again. */
    uint32_t usable = q->omask + 1 < q->qlen ? q->omask + 1 : q->qlen, i;
    for (i = 0; i < usable; i++) {
      q->free_slots[i] = usable - 1 - i;
    }
    q->n_free = usable;
    q->head = 0;
    q->count = 0;
    q->resv = 0;
    q->next_exp = UDCCP_TSTAMP_NEVER;
    return;
  }
  release(q);
  q->count = 0;
}

int udccp_sendq_hold(udccp_sendq *q) {
  if (q->policy != UDCCP_QPOLICY_SIMPLE) {
    return UDCCP_ERR_INVALID_STATE;
  }
  q->hold |= UDCCP_SENDQ_HOLD_ON;
  return 0;
}

void udccp_sendq_free(udccp_sendq *q) {
  release(q);
  memset(q, 0, sizeof(*q));
}

/* PRIO: takes slot s out of the arrival list. */
static inline void unlink_arrival(udccp_sendq *q, uint32_t s) {
  uint32_t p = q->slots[s].aprev, n = q->slots[s].anext;
  q->slots[p].anext = n;
  q->slots[n].aprev = p;
}

/* Writes the queued slots in arrival (= arena) order to list[0..count). */
static void arrival_order(const udccp_sendq *q, uint32_t *list) {
  uint32_t i;
  if (q->policy == UDCCP_QPOLICY_PRIO) {
    uint32_t s = arrivals(q)->anext;
    for (i = 0; i < q->count; i++) {
      list[i] = s;
      s = q->slots[s].anext;
    }
  } else {
    for (i = 0; i < q->count; i++) {
      list[i] = order_at(q, i);
    }
  }
}

/* The block's bookkeeping for ncap slots (and the arrival list's head),
 * an order ring and a free stack of ncap entries, rounded up so that the
 * arena after it is 8-byte aligned. */
static uint64_t meta_bytes(uint64_t ncap) {
  uint64_t m = (ncap + 1) * sizeof(udccp_sendq_slot) +
               2 * ncap * sizeof(uint32_t);
  return (m + 7) & ~(uint64_t)7;
}

size_t udccp_sendq_mem(const udccp_sendq *q) {
  return q->slots != NULL
             ? (size_t)(meta_bytes((uint64_t)q->omask + 1) + q->size)
             : 0;
}

size_t udccp_sendq_bytes(const udccp_sendq *q) {
  size_t n = 0;
  uint32_t i;
  for (i = 0; i < q->count; i++) {
    n += room_of(q->slots[order_at(q, i)].len);
  }
  return n;
}

/* Whether a datagram taking sz bytes of arena fits without moving
 * anything: at tail, or at 0 when the ring must wrap (tail then moves to
 * 0: the end of the arena is skipped, whether or not the datagram is
 * queued).  Refreshes lim.  Returns 1 if [tail, tail + sz) is free, 0 if
 * not.  Slots are not judged here. */
static int room_at(udccp_sendq *q, uint32_t sz) {
  uint32_t t = q->tail, f;
  if (q->hold & UDCCP_SENDQ_HOLD_HELD) {
    f = *held_off(q); /* the oldest bytes in use: a held datagram's */
  } else if (q->count == 0) {
    q->tail = 0; /* every byte is free */
    q->lim = q->size;
    return sz <= q->size;
  } else {
    f = q->slots[oldest(q)].off;
  }
  if (f >= t) {
    /* Wrapped: the free room is [tail, first). */
    q->lim = f;
    return f - t >= sz;
  }
  /* [first, tail) used: room at the end, else at the start. */
  q->lim = q->size;
  if (q->size - t >= sz) {
    return 1;
  }
  if (f >= sz) {
    q->tail = 0;
    q->lim = f;
    return 1;
  }
  return 0;
}

/* Packs the queued datagrams in the arena, in place, keeping their order:
 * the ones after the ring's wrap down to offset 0, the ones before it up
 * against the arena's end, so that the free room is one run [tail,
 * first) of size minus the bytes queued (a ring that has not wrapped is
 * packed down to 0).  The free stack's unused top (at least count
 * entries) holds the order meanwhile. */
static void compact(udccp_sendq *q) {
  uint32_t *list = q->free_slots + q->n_free;
  uint32_t i, w, t = 0;

  arrival_order(q, list);
  /* w: the first datagram after the wrap (offsets fall there). */
  for (w = 1; w < q->count; w++) {
    if (q->slots[list[w]].off < q->slots[list[w - 1]].off) {
      break;
    }
  }
  if (w >= q->count) {
    w = 0; /* not wrapped: everything goes down */
  }
  /* Down to 0, in order: each target is at or below its source. */
  for (i = w; i < q->count; i++) {
    udccp_sendq_slot *sl = &q->slots[list[i]];
    if (sl->off != t) {
      memmove(q->arena + t, q->arena + sl->off, sl->len);
      sl->off = t;
    }
    t += room_of(sl->len);
  }
  q->tail = t;
  q->lim = q->size;
  if (w > 0) {
    /* Up to the end, newest first: each target is at or above its source,
     * above every datagram not moved yet. */
    uint32_t top = q->size;
    for (i = w; i-- > 0;) {
      udccp_sendq_slot *sl = &q->slots[list[i]];
      top -= room_of(sl->len);
      if (sl->off != top) {
        memmove(q->arena + top, q->arena + sl->off, sl->len);
        sl->off = top;
      }
    }
    q->lim = top;
  }
  q->resv = 0;
}

/* Moves the queue into a new block of ncap slots (a power of two, >=
 * count; the free stack holds those below qlen) and an arena of nsize
 * bytes (>= the bytes queued), the datagrams packed from offset 0 in
 * arrival order and renumbered in that order (slot i is the i-th
 * oldest), so that a smaller block can take them.  Returns 0 or
 * UDCCP_ERR_NOMEM with q unchanged. */
static int rehome(udccp_sendq *q, uint64_t ncap, uint64_t nsize) {
  uint64_t meta = meta_bytes(ncap);
  udccp_sendq_slot *slots;
  uint32_t *order, *free_slots, *list, i, t = 0, c = q->count, usable;
  uint8_t *b, *arena;

  if (nsize > UINT32_MAX || ncap > (uint64_t)UINT32_MAX / 2 + 1 ||
      meta + nsize > SIZE_MAX) {
    return UDCCP_ERR_NOMEM;
  }
  b = q->mem->malloc((size_t)(meta + nsize), q->mem->user_data);
  if (b == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  slots = (udccp_sendq_slot *)(void *)b;
  order = (uint32_t *)(void *)(slots + ncap + 1);
  free_slots = order + ncap;
  arena = b + meta;
  if (c > 0) {
    /* The old free stack's unused top holds the arrival order. */
    list = q->free_slots + q->n_free;
    arrival_order(q, list);
    for (i = 0; i < c; i++) {
      udccp_sendq_slot *o = &q->slots[list[i]], *n = &slots[i];
      *n = *o;
      n->off = t;
      n->aprev = i > 0 ? i - 1 : (uint32_t)ncap;
      n->anext = i + 1 < c ? i + 1 : (uint32_t)ncap;
      memcpy(arena + t, q->arena + o->off, o->len);
      t += room_of(o->len);
      o->anext = i; /* the old slot's new number, for order[] below */
    }
    for (i = 0; i < c; i++) {
      order[i] = q->slots[order_at(q, i)].anext;
    }
  }
  /* The arrival list: slots 0 .. count - 1 in order (PRIO). */
  slots[ncap].anext = c > 0 ? 0 : (uint32_t)ncap;
  slots[ncap].aprev = c > 0 ? c - 1 : (uint32_t)ncap;
  /* Hand out low numbers first. */
  usable = ncap < q->qlen ? (uint32_t)ncap : q->qlen;
  for (i = 0; i < usable - c; i++) {
    free_slots[i] = usable - 1 - i;
  }
  if (q->slots != NULL) {
    q->mem->free(q->slots, q->mem->user_data);
  }
  q->slots = slots;
  q->order = order;
  q->free_slots = free_slots;
  q->arena = arena;
  q->omask = (uint32_t)(ncap - 1);
  q->n_free = usable - c;
  q->size = (uint32_t)nsize;
  q->head = 0;
  q->tail = t;
  q->lim = q->size;
  q->resv = 0;
  return 0;
}

/* No free slot, or no room for sz bytes as the arena lies: compacts in
 * place when the queued bytes and sz fill at most half the arena (the
 * bytes moved are then at most those pushed since the last compaction),
 * else moves into a block with twice their room (and twice the slots if
 * all are taken).  Returns 0 with room at tail, or UDCCP_ERR_NOMEM. */
static int make_room(udccp_sendq *q, uint32_t sz) {
  uint64_t need = (uint64_t)udccp_sendq_bytes(q) + sz, nsize;
  uint64_t ncap = q->slots != NULL ? (uint64_t)q->omask + 1 : 0;

  if (q->hold & UDCCP_SENDQ_HOLD_HELD) {
    /* Held bytes must stay where they are: after the release, which
     * makes the arena twice as large. */
    q->hold |= UDCCP_SENDQ_HOLD_GROW;
    return UDCCP_ERR_AGAIN;
  }

  if (q->n_free > 0 && 2 * need <= q->size) {
    compact(q);
    if (room_at(q, sz)) {
      return 0;
    }
  }
  if (q->n_free == 0) {
    ncap = ncap ? 2 * ncap : 1; /* count == ncap < qlen */
  }
  nsize = 2 * need > q->size ? 2 * need : q->size;
  if (nsize > UINT32_MAX && need <= UINT32_MAX) {
    nsize = UINT32_MAX & ~(uint64_t)7;
  }
  if (rehome(q, ncap, nsize) != 0) {
    return UDCCP_ERR_NOMEM;
  }
  return 0; /* packed from 0, room after tail */
}

void udccp_sendq_release(udccp_sendq *q) {
  uint8_t h = q->hold;
  q->hold = 0;
  if (!(h & UDCCP_SENDQ_HOLD_HELD) || q->slots == NULL) {
    return;
  }
  if (q->count == 0) {
    drained(q); /* the arena restarts at 0, or the block goes */
  } else if (h & UDCCP_SENDQ_HOLD_GROW) {
    /* A push waited for room: what was held is what the arena lacks. */
    uint64_t ncap = (uint64_t)q->omask + 1;
    (void)rehome(q, q->n_free == 0 ? 2 * ncap : ncap, 2 * (uint64_t)q->size);
  }
}

int udccp_sendq_resize(udccp_sendq *q, size_t max_dgram) {
  if (q->qlen == 0 || max_dgram > UDCCP_SENDQ_MAX_DGRAM) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  q->resv = 0; /* a reservation's length was judged against max_dgram */
  q->max_dgram = (uint32_t)max_dgram;
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
  if (q->policy == UDCCP_QPOLICY_PRIO) {
    unlink_arrival(q, s);
  }
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

/* admit() when the queue is full, has no free slot or the datagram does
 * not fit at tail before lim: the rules for a full queue, then room. */
static int admit_slow(udccp_sendq *q, size_t len, uint32_t prio) {
  uint32_t sz = room_of(len);

  if (q->qlen == 0) {
    return UDCCP_ERR_INVALID_ARGUMENT; /* freed */
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
  if (q->n_free > 0 && room_at(q, sz)) {
    return 0;
  }
  q->resv = 0; /* memory may move, whether or not it can grow */
  return make_room(q, sz);
}

/* The queue's rules for a datagram of len bytes and priority prio: the
 * size limit, a full queue (refused, or under PRIO the eviction of a
 * worse datagram), a free slot and room in the arena (compacted or grown
 * if needed).  Returns 0 with free_slots[n_free - 1] the slot the
 * datagram will take and room for it at tail, or as
 * udccp_sendq_push_until(). */
static inline int admit(udccp_sendq *q, size_t len, uint32_t prio) {
  if (len > q->max_dgram) {
    return q->qlen == 0 ? UDCCP_ERR_INVALID_ARGUMENT : UDCCP_ERR_MSGSIZE;
  }
  /* The usual case: a free slot (the queue is not full), and room at
   * tail (none without a block: lim is 0). */
  if (q->n_free > 0 && room_of(len) <= q->lim - q->tail) {
    return 0;
  }
  return admit_slow(q, len, prio);
}

/* Queues the datagram of len bytes at tail in slot free_slots[n_free -
 * 1] (admit()), with priority prio and expiry expires.  Fields are read
 * into locals first: the stores through order[] and free_slots[] could
 * alias them for the compiler. */
static inline void enqueue(udccp_sendq *q, size_t len, uint32_t prio,
                           udccp_tstamp expires) {
  uint32_t n = q->n_free - 1, t = q->tail, count = q->count;
  uint32_t s = q->free_slots[n], head = q->head, omask = q->omask;
  udccp_sendq_slot *sl = &q->slots[s];

  q->n_free = n;
  q->tail = t + room_of(len);
  sl->off = t;
  sl->len = (uint32_t)len;
  sl->prio = prio;
  sl->expires = expires;
  if (expires < q->next_exp) {
    q->next_exp = expires;
  }
  q->resv = 0;
  if (q->policy == UDCCP_QPOLICY_PRIO) {
    udccp_sendq_slot *h = &q->slots[omask + 1]; /* the arrival list */
    sl->anext = omask + 1;
    sl->aprev = h->aprev;
    q->slots[h->aprev].anext = s;
    h->aprev = s;
    order_insert(q, prio_insert_pos(q, prio), s);
    return;
  }
  q->order[(head + count) & omask] = s;
  q->count = count + 1;
}

/* udccp_sendq_push_until() but for its fast path. */
static int push_any(udccp_sendq *q, const void *data, size_t len,
                    uint32_t prio, udccp_tstamp expires) {
  uint8_t *dst;
  int rv = admit(q, len, prio);

  if (rv != 0) {
    return rv;
  }
  dst = q->arena + q->tail;
  enqueue(q, len, prio, expires);
  if (len > 0) {
    memcpy(dst, data, len);
  }
  return 0;
}

int udccp_sendq_push_until(udccp_sendq *q, const void *data, size_t len,
                           uint32_t prio, udccp_tstamp expires) {
  uint32_t t = q->tail;

  /* The usual case (every copied datagram, issue 13), with no call but
   * the copy, which comes last: SIMPLE, a free slot, room at tail
   * (enqueue's PRIO branch folds away under the policy test). */
  if (q->policy != UDCCP_QPOLICY_SIMPLE || len > q->max_dgram ||
      q->n_free == 0 || room_of(len) > q->lim - t) {
    return push_any(q, data, len, prio, expires);
  }
  enqueue(q, len, prio, expires);
  if (len > 0) {
    memcpy(q->arena + t, data, len);
  }
  return 0;
}

int udccp_sendq_reserve(udccp_sendq *q, size_t len, uint32_t prio,
                        udccp_tstamp expires, uint8_t **pdata) {
  int rv = admit(q, len, prio);

  if (rv != 0) {
    return rv;
  }
  udccp_sendq_hold_reservation(q, len, prio, expires, pdata);
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
  enqueue(q, len, r->prio, r->expires);
  return 0;
}

int udccp_sendq_peek(const udccp_sendq *q, const uint8_t **pdata,
                     size_t *plen, uint32_t *pprio) {
  const udccp_sendq_slot *sl;

  if (q->count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  sl = &q->slots[q->order[q->head]];
  *pdata = q->arena + sl->off;
  *plen = sl->len;
  if (pprio != NULL) {
    *pprio = sl->prio;
  }
  return 0;
}

int udccp_sendq_pop(udccp_sendq *q) {
  uint32_t count = q->count, head = q->head, n = q->n_free, s;

  if (count == 0) {
    return UDCCP_ERR_AGAIN;
  }
  s = q->order[head];
  if (q->hold == UDCCP_SENDQ_HOLD_ON) {
    q->hold |= UDCCP_SENDQ_HOLD_HELD; /* its bytes and the later ones' */
    *held_off(q) = q->slots[s].off;
  }
  q->head = (head + 1) & q->omask;
  q->count = count - 1;
  q->n_free = n + 1;
  q->resv = 0;
  if (q->policy == UDCCP_QPOLICY_PRIO) {
    unlink_arrival(q, s);
  }
  q->free_slots[n] = s;
  if (count == 1) {
    drained(q);
  }
  return 0;
}

int udccp_sendq_trim(udccp_sendq *q) {
  uint64_t bytes, nsize = 0, cap, ncap;

  q->resv = 0; /* whether or not the block moves: one rule */
  if (q->slots == NULL) {
    return 0;
  }
  if (q->hold & UDCCP_SENDQ_HOLD_HELD) {
    return 1; /* bytes held where they are: after the release */
  }
  if (q->count == 0) {
    release(q);
    return 0;
  }
  /* Oversized 4x for what it holds: into a block twice that (slots in
   * powers of two, as they grow), not below 2 KiB of arena. */
  bytes = udccp_sendq_bytes(q);
  if (q->size > 4 * bytes && q->size - 2 * bytes >= 4096) {
    nsize = 2 * bytes > 2048 ? 2 * bytes : 2048;
  }
  cap = ncap = (uint64_t)q->omask + 1;
  if (cap > 16 && cap / 4 > q->count) {
    ncap = 16;
    while (ncap < 2 * (uint64_t)q->count) {
      ncap *= 2;
    }
  }
  if (nsize > 0 || ncap < cap) {
    (void)rehome(q, ncap, nsize > 0 ? nsize : q->size); /* or stays */
  }
  return 1;
}

uint32_t udccp_sendq_expire_run(udccp_sendq *q, udccp_tstamp now) {
  uint32_t i, kept = 0, dropped = 0;
  udccp_tstamp next = UDCCP_TSTAMP_NEVER;

  if (q->count == 0 || now < q->next_exp) {
    return 0;
  }
  /* One pass that keeps the survivors in order, packed from the head.
   * Under SIMPLE order[] stays the arrival order; under PRIO the arrival
   * list loses the dropped ones. */
  for (i = 0; i < q->count; i++) {
    uint32_t s = order_at(q, i);
    udccp_tstamp e = q->slots[s].expires;
    if (e <= now) {
      q->free_slots[q->n_free++] = s;
      if (q->policy == UDCCP_QPOLICY_PRIO) {
        unlink_arrival(q, s);
      }
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

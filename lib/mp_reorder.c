/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP reordering buffer (RFC 9897 §3.2.5: MP_SEQ numbers the
 * connection's datagrams end to end, 48 bits, wrapping; §3.2.7: MP_RTT
 * lets the receiver estimate how long a missing number may still come;
 * Appendix A: reordering is optional and not part of the protocol).
 */
#include "mp_reorder.h"

#include <string.h>

#include "seq.h"

int udccp_mp_reorder_init(udccp_mp_reorder *r, const udccp_mem *mem,
                          size_t cap, size_t slot_len, udccp_tstamp bound) {
  memset(r, 0, sizeof(*r));
  if (!mem || cap == 0 || cap > 65536 || slot_len == 0 || slot_len > 65535) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  r->mem = mem;
  r->cap = cap;
  r->slot_len = slot_len;
  r->bound = bound;
  r->slots = mem->calloc(cap, sizeof(*r->slots), mem->user_data);
  r->arena = mem->malloc(cap * slot_len, mem->user_data);
  if (!r->slots || !r->arena) {
    udccp_mp_reorder_free(r);
    return UDCCP_ERR_NOMEM;
  }
  return 0;
}

void udccp_mp_reorder_free(udccp_mp_reorder *r) {
  if (r->mem) {
    if (r->slots) {
      r->mem->free(r->slots, r->mem->user_data);
    }
    if (r->arena) {
      r->mem->free(r->arena, r->mem->user_data);
    }
  }
  r->slots = NULL;
  r->arena = NULL;
}

/* The slot of seq, which lies in [next, next + cap).  Indexing by the
 * 48-bit number itself would put two numbers of one window into one slot
 * where the window straddles the wrap (2^48 is no multiple of cap). */
static size_t slot_of(const udccp_mp_reorder *r, uint64_t seq) {
  return (size_t)((r->next_ext + (uint64_t)udccp_seq_sub(seq, r->next)) %
                  r->cap);
}

/* next moves forward by k; next_ext with it. */
static void advance(udccp_mp_reorder *r, uint64_t k) {
  r->next = udccp_seq_add(r->next, (int64_t)k);
  r->next_ext += k;
}

/* The lowest MP_SEQ held, from next on (n > 0). */
static uint64_t lowest_held(const udccp_mp_reorder *r) {
  size_t k;
  for (k = 0; k < r->cap; k++) {
    uint64_t s = udccp_seq_add(r->next, (int64_t)k);
    const udccp_mp_reorder_slot *sl = &r->slots[slot_of(r, s)];
    if (sl->used && sl->seq == s) {
      return s;
    }
  }
  return r->next; /* not reached while n > 0 */
}

/* Gives up the numbers before `to` that are not held (lost, or too late
 * to wait for). */
static void skip_to(udccp_mp_reorder *r, uint64_t to) {
  int64_t gap = udccp_seq_sub(to, r->next);
  if (gap > 0) {
    r->skipped += (uint64_t)gap;
    advance(r, (uint64_t)gap);
  }
}

int udccp_mp_reorder_push(udccp_mp_reorder *r, uint64_t seq,
                          const void *data, size_t len, udccp_tstamp ts) {
  udccp_mp_reorder_slot *sl;
  seq &= UDCCP_SEQ_MASK;
  if (len > r->slot_len) {
    return UDCCP_ERR_MSGSIZE;
  }
  if (!r->next_valid) {
    r->next = seq;
    r->next_ext = seq;
    r->next_valid = 1;
  }
  if (udccp_seq_lt(seq, r->next)) {
    r->dropped_old++;
    return UDCCP_ERR_DROPPED;
  }
  /* Beyond the window with nothing held: every number below the window
   * is given up at once.  MP_SEQ is the peer's to choose: a jump of up to
   * 2^47 must not cost a step per number skipped. */
  if (r->n == 0 && (uint64_t)udccp_seq_sub(seq, r->next) >= r->cap) {
    skip_to(r, udccp_seq_add(seq, -(int64_t)(r->cap - 1)));
  }
  /* Beyond the window: the oldest gaps are given up until it fits (the
   * datagrams held below are released late by pop); a held datagram is
   * within cap of next, so this takes at most cap steps. */
  while ((uint64_t)udccp_seq_sub(seq, r->next) >= r->cap) {
    sl = &r->slots[slot_of(r, r->next)];
    if (sl->used && sl->seq == r->next) {
      break; /* a held datagram in the way: the caller must pop first */
    }
    advance(r, 1);
    r->skipped++;
  }
  if ((uint64_t)udccp_seq_sub(seq, r->next) >= r->cap) {
    r->pressure = 1; /* the next pop releases without waiting */
    return UDCCP_ERR_AGAIN;
  }
  sl = &r->slots[slot_of(r, seq)];
  if (sl->used) {
    r->dropped_dup++;
    return UDCCP_ERR_DROPPED;
  }
  sl->used = 1;
  sl->seq = seq;
  sl->arrived = ts;
  sl->len = (uint32_t)len;
  if (len) {
    memcpy(r->arena + slot_of(r, seq) * r->slot_len, data, len);
  }
  r->n++;
  return 0;
}

static udccp_tstamp oldest_arrival(const udccp_mp_reorder *r) {
  udccp_tstamp t = UDCCP_TSTAMP_NEVER;
  size_t i;
  for (i = 0; i < r->cap && r->n > 0; i++) {
    if (r->slots[i].used && r->slots[i].arrived < t) {
      t = r->slots[i].arrived;
    }
  }
  return t;
}

udccp_ssize udccp_mp_reorder_pop(udccp_mp_reorder *r, void *buf, size_t cap,
                                 uint64_t *seq, udccp_tstamp ts) {
  udccp_mp_reorder_slot *sl;
  int late = 0;
  if (r->n == 0) {
    return UDCCP_ERR_AGAIN;
  }
  sl = &r->slots[slot_of(r, r->next)];
  if (!(sl->used && sl->seq == r->next)) {
    udccp_tstamp t0 = oldest_arrival(r);
    if (!r->pressure && (ts < t0 || ts - t0 < r->bound)) {
      return UDCCP_ERR_AGAIN; /* still worth waiting for the gap */
    }
    skip_to(r, lowest_held(r));
    sl = &r->slots[slot_of(r, r->next)];
    late = 1;
  }
  if (sl->len > cap) {
    return UDCCP_ERR_NOBUF;
  }
  if (sl->len) {
    memcpy(buf, r->arena + slot_of(r, r->next) * r->slot_len, sl->len);
  }
  *seq = sl->seq;
  if (ts >= sl->arrived) {
    udccp_tstamp hold = ts - sl->arrived;
    r->max_hold = hold > r->max_hold ? hold : r->max_hold;
    r->over_bound += hold > r->bound;
  }
  r->pressure = 0;
  sl->used = 0;
  r->n--;
  r->released++;
  r->released_late += (uint64_t)late;
  advance(r, 1);
  return (udccp_ssize)sl->len;
}

udccp_tstamp udccp_mp_reorder_expiry(const udccp_mp_reorder *r) {
  udccp_tstamp t0;
  if (r->n == 0) {
    return UDCCP_TSTAMP_NEVER;
  }
  t0 = oldest_arrival(r);
  return t0 > UDCCP_TSTAMP_NEVER - r->bound ? UDCCP_TSTAMP_NEVER
                                            : t0 + r->bound;
}

udccp_tstamp udccp_mp_reorder_bound(udccp_tstamp rtt_min,
                                    udccp_tstamp rtt_max) {
  udccp_tstamp d, b;
  if (rtt_max < rtt_min) {
    udccp_tstamp t = rtt_max;
    rtt_max = rtt_min;
    rtt_min = t;
  }
  d = rtt_max - rtt_min;
  b = d + rtt_max / 4;
  return b < UDCCP_NS_PER_MS ? UDCCP_NS_PER_MS : b;
}

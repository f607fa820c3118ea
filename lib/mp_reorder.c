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
  r->cap_max = cap;
  r->slot_len = slot_len;
  r->bound = bound;
  r->trim_at = UDCCP_TSTAMP_NEVER;
  return 0;
}

static void free_slots(udccp_mp_reorder *r) {
  if (r->slots) {
    r->mem->free(r->slots, r->mem->user_data);
  }
  r->slots = NULL;
  r->cap = 0;
}

static void free_bufs(udccp_mp_reorder *r) {
  if (r->arena) {
    r->mem->free(r->arena, r->mem->user_data);
  }
  if (r->free_bufs) {
    r->mem->free(r->free_bufs, r->mem->user_data);
  }
  r->arena = NULL;
  r->free_bufs = NULL;
  r->nbuf = r->nfree = 0;
}

void udccp_mp_reorder_free(udccp_mp_reorder *r) {
  if (r->mem) {
    free_slots(r);
    free_bufs(r);
  }
}

/* The slot of seq, which lies in [next, next + cap).  Indexing by the
 * 48-bit number itself would put two numbers of one window into one slot
 * where the window straddles the wrap (2^48 is no multiple of cap). */
static size_t slot_of(const udccp_mp_reorder *r, uint64_t seq) {
  return (size_t)((r->next_ext + (uint64_t)udccp_seq_sub(seq, r->next)) %
                  r->cap);
}

static int holds(const udccp_mp_reorder *r, uint64_t seq) {
  const udccp_mp_reorder_slot *sl;
  if (r->cap == 0 || (uint64_t)udccp_seq_sub(seq, r->next) >= r->cap) {
    return 0;
  }
  sl = &r->slots[slot_of(r, seq)];
  return sl->buf != 0 && sl->seq == seq;
}

/* next moves forward by k; next_ext with it. */
static void advance(udccp_mp_reorder *r, uint64_t k) {
  r->next = udccp_seq_add(r->next, (int64_t)k);
  r->next_ext += k;
}

/* Smallest of UDCCP_MP_REORDER_CAP_MIN x 2^k that is >= want, at most
 * cap_max. */
static size_t grown(const udccp_mp_reorder *r, size_t have, size_t want) {
  size_t c = have ? have : UDCCP_MP_REORDER_CAP_MIN;
  while (c < want && c < r->cap_max) {
    c *= 2;
  }
  return c < r->cap_max ? c : r->cap_max;
}

static void armed(udccp_mp_reorder *r, udccp_tstamp ts) {
  r->grows++;
  if (r->trim_at == UDCCP_TSTAMP_NEVER) {
    r->trim_at = ts > UDCCP_TSTAMP_NEVER - UDCCP_MP_REORDER_TRIM_AFTER
                     ? UDCCP_TSTAMP_NEVER - 1
                     : ts + UDCCP_MP_REORDER_TRIM_AFTER;
  }
}

/* The slot table covers offsets 0 .. want - 1 from next; the held
 * datagrams move to their slots in the larger table. */
static int grow_slots(udccp_mp_reorder *r, size_t want, udccp_tstamp ts) {
  size_t nc = grown(r, r->cap, want), k;
  udccp_mp_reorder_slot *ns;
  if (nc <= r->cap) {
    return 0;
  }
  ns = r->mem->calloc(nc, sizeof(*ns), r->mem->user_data);
  if (ns == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  for (k = 0; k < r->cap && r->n > 0; k++) {
    uint64_t s = udccp_seq_add(r->next, (int64_t)k);
    const udccp_mp_reorder_slot *o = &r->slots[slot_of(r, s)];
    if (o->buf != 0 && o->seq == s) {
      ns[(r->next_ext + k) % nc] = *o;
    }
  }
  free_slots(r);
  r->slots = ns;
  r->cap = nc;
  armed(r, ts);
  return 0;
}

/* One more payload buffer free: the block doubles, indexes kept. */
static int grow_bufs(udccp_mp_reorder *r, udccp_tstamp ts) {
  size_t nb = grown(r, r->nbuf, r->nbuf + 1), k, old;
  uint8_t *na;
  uint32_t *nf;
  if (nb <= r->nbuf) {
    return UDCCP_ERR_NOMEM; /* not reached: n < cap_max */
  }
  na = r->mem->malloc(nb * r->slot_len, r->mem->user_data);
  nf = r->mem->malloc(nb * sizeof(*nf), r->mem->user_data);
  if (na == NULL || nf == NULL) {
    if (na) {
      r->mem->free(na, r->mem->user_data);
    }
    if (nf) {
      r->mem->free(nf, r->mem->user_data);
    }
    return UDCCP_ERR_NOMEM;
  }
  old = r->nbuf;
  if (old > 0) {
    memcpy(na, r->arena, old * r->slot_len);
  }
  /* every old buffer is in use (nfree was 0): the new ones are free */
  for (k = 0; k < nb - old; k++) {
    nf[k] = (uint32_t)(nb - 1 - k);
  }
  free_bufs(r);
  r->arena = na;
  r->free_bufs = nf;
  r->nfree = nb - old;
  r->nbuf = nb;
  armed(r, ts);
  return 0;
}

/* The lowest MP_SEQ held, from next on (n > 0). */
static uint64_t lowest_held(const udccp_mp_reorder *r) {
  size_t k;
  for (k = 0; k < r->cap; k++) {
    uint64_t s = udccp_seq_add(r->next, (int64_t)k);
    if (holds(r, s)) {
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
  uint64_t off;
  uint32_t b;
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
    if (r->skip_valid && udccp_seq_lt(seq, r->skip_end) &&
        ts >= r->last_skip) {
      /* Given up too soon: it came this long after.  Wait at least that
       * much more from now on (doubling, as RFC 8985 §6.2 step 4). */
      udccp_tstamp late = ts - r->last_skip + UDCCP_NS_PER_MS;
      udccp_tstamp x = r->extra * 2 > late ? r->extra * 2 : late;
      r->extra = x < UDCCP_MP_REORDER_EXTRA_MAX ? x
                                                : UDCCP_MP_REORDER_EXTRA_MAX;
      r->calm_since = ts;
    }
    return UDCCP_ERR_DROPPED;
  }
  /* Beyond the window with nothing held: every number below the window
   * is given up at once.  MP_SEQ is the peer's to choose: a jump of up to
   * 2^47 must not cost a step per number skipped. */
  if (r->n == 0 && (uint64_t)udccp_seq_sub(seq, r->next) >= r->cap_max) {
    uint64_t before = r->skipped;
    skip_to(r, udccp_seq_add(seq, -(int64_t)(r->cap_max - 1)));
    r->window_full += r->skipped - before;
  }
  /* Beyond the window: the oldest gaps are given up until it fits (the
   * datagrams held below are released late by pop); a held datagram is
   * within cap_max of next, so this takes at most cap_max steps. */
  while ((uint64_t)udccp_seq_sub(seq, r->next) >= r->cap_max) {
    if (holds(r, r->next)) {
      break; /* a held datagram in the way: the caller must pop first */
    }
    advance(r, 1);
    r->skipped++;
    r->window_full++;
  }
  off = (uint64_t)udccp_seq_sub(seq, r->next);
  if (off >= r->cap_max) {
    r->pressure = 1; /* the next pop releases without waiting */
    return UDCCP_ERR_AGAIN;
  }
  if (holds(r, seq)) {
    r->dropped_dup++;
    return UDCCP_ERR_DROPPED;
  }
  /* Room: the slot table to cover off, a free payload buffer. */
  if ((off >= r->cap && grow_slots(r, (size_t)off + 1, ts) != 0) ||
      (r->nfree == 0 && grow_bufs(r, ts) != 0)) {
    return UDCCP_ERR_NOMEM;
  }
  b = r->free_bufs[--r->nfree];
  sl = &r->slots[slot_of(r, seq)];
  sl->buf = b + 1;
  sl->seq = seq;
  sl->arrived = ts;
  sl->len = (uint32_t)len;
  if (len) {
    memcpy(r->arena + (size_t)b * r->slot_len, data, len);
  }
  r->n++;
  r->peak_n = r->n > r->peak_n ? r->n : r->peak_n;
  r->max_n = r->n > r->max_n ? r->n : r->max_n;
  r->peak_off = off + 1 > r->peak_off ? (size_t)off + 1 : r->peak_off;
  return 0;
}

static udccp_tstamp oldest_arrival(const udccp_mp_reorder *r) {
  udccp_tstamp t = UDCCP_TSTAMP_NEVER;
  size_t i;
  for (i = 0; i < r->cap && r->n > 0; i++) {
    if (r->slots[i].buf != 0 && r->slots[i].arrived < t) {
      t = r->slots[i].arrived;
    }
  }
  return t;
}

udccp_ssize udccp_mp_reorder_pop(udccp_mp_reorder *r, void *buf, size_t cap,
                                 uint64_t *seq, udccp_tstamp ts) {
  udccp_mp_reorder_slot *sl;
  uint32_t len;
  int late = 0;
  if (r->n == 0) {
    (void)udccp_mp_reorder_trim(r, ts);
    return UDCCP_ERR_AGAIN;
  }
  if (r->extra > 0 && ts >= r->calm_since &&
      ts - r->calm_since >= 16 * udccp_mp_reorder_wait(r)) {
    r->extra /= 2; /* 16 waits without a late arrival */
    r->calm_since = ts;
  }
  if (!holds(r, r->next)) {
    udccp_tstamp t0 = oldest_arrival(r);
    if (!r->pressure && (ts < t0 || ts - t0 < udccp_mp_reorder_wait(r))) {
      return UDCCP_ERR_AGAIN; /* still worth waiting for the gap */
    }
    if (!r->pressure) {
      r->last_skip = ts;
      r->skip_end = lowest_held(r);
      r->skip_valid = 1;
    }
    skip_to(r, lowest_held(r));
    late = 1;
  }
  sl = &r->slots[slot_of(r, r->next)];
  len = sl->len;
  if (len > cap) {
    return UDCCP_ERR_NOBUF;
  }
  if (len) {
    memcpy(buf, r->arena + (size_t)(sl->buf - 1) * r->slot_len, len);
  }
  *seq = sl->seq;
  if (ts >= sl->arrived) {
    udccp_tstamp hold = ts - sl->arrived;
    r->max_hold = hold > r->max_hold ? hold : r->max_hold;
    r->over_bound += hold > udccp_mp_reorder_wait(r);
  }
  r->pressure = 0;
  r->free_bufs[r->nfree++] = sl->buf - 1;
  sl->buf = 0;
  r->n--;
  r->released++;
  r->released_late += (uint64_t)late;
  advance(r, 1);
  if (r->n == 0) {
    (void)udccp_mp_reorder_trim(r, ts);
  }
  return (udccp_ssize)len;
}

udccp_tstamp udccp_mp_reorder_wait(const udccp_mp_reorder *r) {
  return r->bound > UDCCP_TSTAMP_NEVER - r->extra ? UDCCP_TSTAMP_NEVER
                                                  : r->bound + r->extra;
}

udccp_tstamp udccp_mp_reorder_expiry(const udccp_mp_reorder *r) {
  udccp_tstamp t0, w = udccp_mp_reorder_wait(r);
  if (r->n == 0) {
    return UDCCP_TSTAMP_NEVER;
  }
  t0 = oldest_arrival(r);
  return t0 > UDCCP_TSTAMP_NEVER - w ? UDCCP_TSTAMP_NEVER : t0 + w;
}

size_t udccp_mp_reorder_mem(const udccp_mp_reorder *r) {
  return r->cap * sizeof(*r->slots) +
         r->nbuf * (r->slot_len + sizeof(*r->free_bufs));
}

size_t udccp_mp_reorder_trim(udccp_mp_reorder *r, udccp_tstamp ts) {
  if (r->n == 0 && ts >= r->trim_at) {
    /* Oversized 4x for a whole period: given back (a later push
     * allocates what it needs again). */
    if (r->peak_off <= r->cap / 4) {
      free_slots(r);
    }
    if (r->peak_n <= r->nbuf / 4) {
      free_bufs(r);
    }
    r->peak_off = r->peak_n = 0;
    r->trim_at = r->cap == 0 && r->nbuf == 0
                     ? UDCCP_TSTAMP_NEVER
                     : (ts > UDCCP_TSTAMP_NEVER - UDCCP_MP_REORDER_TRIM_AFTER
                            ? UDCCP_TSTAMP_NEVER - 1
                            : ts + UDCCP_MP_REORDER_TRIM_AFTER);
  }
  return udccp_mp_reorder_mem(r);
}

udccp_tstamp udccp_mp_reorder_trim_at(const udccp_mp_reorder *r) {
  return r->n > 0 ? UDCCP_TSTAMP_NEVER : r->trim_at;
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

udccp_tstamp udccp_mp_reorder_bound_var(udccp_tstamp rtt_min,
                                        udccp_tstamp rtt_max,
                                        udccp_tstamp rttvar) {
  udccp_tstamp b;
  if (rtt_max < rtt_min) {
    udccp_tstamp t = rtt_max;
    rtt_max = rtt_min;
    rtt_min = t;
  }
  rttvar = rttvar > UDCCP_TSTAMP_NEVER / 8 ? UDCCP_TSTAMP_NEVER / 8 : rttvar;
  b = (rtt_max - rtt_min) / 2 + 4 * rttvar;
  return b < UDCCP_NS_PER_MS ? UDCCP_NS_PER_MS : b;
}

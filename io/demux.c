/* SPDX-License-Identifier: MIT */
/*
 * Connection lookup table of the socket runtime (see demux.h).
 * Linear probing with backward-shift deletion: no tombstones, so lookups
 * stay short however many connections come and go.
 */
#include <stdlib.h>
#include <string.h>

#include "demux.h"

void udccp_demux_key_make(udccp_demux_key *k, const udccp_path *path,
                          uint16_t remote_udp_port) {
  memset(k, 0, sizeof(*k));
  k->family = path->family;
  k->udp_port = remote_udp_port;
  k->lport = path->local_port;
  k->rport = path->remote_port;
  memcpy(k->addr, path->remote_addr, path->family == UDCCP_AF_INET ? 4 : 16);
}

/* SplitMix64 finalizer over the key words, keyed by the seed. */
static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

static size_t key_hash(const udccp_demux *d, const udccp_demux_key *k) {
  uint64_t w[3];
  memcpy(w, k, sizeof(w));
  uint64_t h = d->seed;
  h = mix64(h ^ w[0]);
  h = mix64(h ^ w[1]);
  h = mix64(h ^ w[2]);
  return (size_t)h & (d->cap - 1);
}

int udccp_demux_init(udccp_demux *d, size_t cap_hint, uint64_t seed) {
  size_t cap = 16;
  while (cap < cap_hint) {
    cap <<= 1;
  }
  d->slots = calloc(cap, sizeof(*d->slots));
  if (d->slots == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  d->cap = cap;
  d->n = 0;
  d->seed = seed;
  return 0;
}

void udccp_demux_free(udccp_demux *d) {
  free(d->slots);
  d->slots = NULL;
  d->cap = d->n = 0;
}

static udccp_demux_slot *find_slot(const udccp_demux *d,
                                   const udccp_demux_key *k) {
  size_t i = key_hash(d, k);
  for (size_t probes = 0; probes < d->cap; probes++) {
    udccp_demux_slot *s = &d->slots[i];
    if (s->val == NULL) {
      return NULL;
    }
    if (memcmp(&s->key, k, sizeof(*k)) == 0) {
      return s;
    }
    i = (i + 1) & (d->cap - 1);
  }
  return NULL;
}

static void put(udccp_demux *d, const udccp_demux_key *k, void *val) {
  size_t i = key_hash(d, k);
  while (d->slots[i].val != NULL) {
    i = (i + 1) & (d->cap - 1);
  }
  d->slots[i].key = *k;
  d->slots[i].val = val;
  d->n++;
}

static int grow(udccp_demux *d) {
  udccp_demux old = *d;
  udccp_demux_slot *ns = calloc(old.cap * 2, sizeof(*ns));
  if (ns == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  d->slots = ns;
  d->cap = old.cap * 2;
  d->n = 0;
  for (size_t i = 0; i < old.cap; i++) {
    if (old.slots[i].val != NULL) {
      put(d, &old.slots[i].key, old.slots[i].val);
    }
  }
  free(old.slots);
  return 0;
}

int udccp_demux_insert(udccp_demux *d, const udccp_demux_key *k, void *val) {
  if (val == NULL || find_slot(d, k) != NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  /* Keep the load at most 1/2 so probe sequences stay short. */
  if ((d->n + 1) * 2 > d->cap) {
    int rv = grow(d);
    if (rv != 0) {
      return rv;
    }
  }
  put(d, k, val);
  return 0;
}

void *udccp_demux_find(const udccp_demux *d, const udccp_demux_key *k) {
  udccp_demux_slot *s = find_slot(d, k);
  return s ? s->val : NULL;
}

int udccp_demux_remove(udccp_demux *d, const udccp_demux_key *k) {
  udccp_demux_slot *s = find_slot(d, k);
  if (s == NULL) {
    return UDCCP_ERR_AGAIN;
  }
  size_t mask = d->cap - 1;
  size_t hole = (size_t)(s - d->slots);
  size_t j = hole;
  /* Backward shift: move later entries of the probe run into the hole when
   * their home slot does not lie cyclically in (hole, j]. */
  for (;;) {
    j = (j + 1) & mask;
    if (d->slots[j].val == NULL) {
      break;
    }
    size_t home = key_hash(d, &d->slots[j].key);
    int in_range = hole <= j ? (home > hole && home <= j)
                             : (home > hole || home <= j);
    if (!in_range) {
      d->slots[hole] = d->slots[j];
      hole = j;
    }
  }
  d->slots[hole].val = NULL;
  memset(&d->slots[hole].key, 0, sizeof(d->slots[hole].key));
  d->n--;
  return 0;
}

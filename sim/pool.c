/* SPDX-License-Identifier: MIT */
/*
 * A free list of fixed-size packets carved from chunks: allocation happens
 * only while the number of packets in flight reaches a new high.
 */
#include <stdlib.h>

#include "sim_pool.h"

#define SIM_POOL_CHUNK_PKTS 256

struct sim_pool_chunk {
  sim_pool_chunk *next;
  sim_pkt pkts[SIM_POOL_CHUNK_PKTS];
};

void sim_pool_init(sim_pool *p) {
  p->free = NULL;
  p->chunks = NULL;
  p->n_total = p->n_used = p->high_water = 0;
}

void sim_pool_free(sim_pool *p) {
  sim_pool_chunk *c = p->chunks;
  while (c != NULL) {
    sim_pool_chunk *next = c->next;
    free(c);
    c = next;
  }
  sim_pool_init(p);
}

static int pool_grow(sim_pool *p) {
  sim_pool_chunk *c = malloc(sizeof(*c));
  if (c == NULL) {
    return -1;
  }
  c->next = p->chunks;
  p->chunks = c;
  for (size_t i = SIM_POOL_CHUNK_PKTS; i-- > 0;) {
    c->pkts[i].next = p->free;
    p->free = &c->pkts[i];
  }
  p->n_total += SIM_POOL_CHUNK_PKTS;
  return 0;
}

sim_pkt *sim_pool_get(sim_pool *p) {
  if (p->free == NULL && pool_grow(p) != 0) {
    return NULL;
  }
  sim_pkt *pkt = p->free;
  p->free = pkt->next;
  pkt->next = NULL;
  pkt->flow = 0;
  pkt->wire_len = 0;
  pkt->len = 0;
  pkt->dir = 0;
  pkt->ecn = 0;
  pkt->corrupt = 0;
  pkt->path = 0;
  pkt->meta[0] = pkt->meta[1] = 0;
  if (++p->n_used > p->high_water) {
    p->high_water = p->n_used;
  }
  return pkt;
}

void sim_pool_put(sim_pool *p, sim_pkt *pkt) {
  pkt->next = p->free;
  p->free = pkt;
  p->n_used--;
}

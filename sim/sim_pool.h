/* SPDX-License-Identifier: MIT */
/*
 * Packets in flight and their pool.  A packet is written once, by the
 * sending endpoint straight into pool memory, then moves by pointer across
 * links until the receiver reads it and returns it: no copy per hop.
 */
#ifndef UDCCP_SIM_POOL_H
#define UDCCP_SIM_POOL_H

#include <stddef.h>
#include <stdint.h>

/* Room for one packet below IP: a 1500-byte MTU with room to spare. */
#define SIM_PKT_CAP 2048

enum { SIM_DIR_FWD = 0, SIM_DIR_REV = 1 };

typedef struct sim_pkt {
  struct sim_pkt *next; /* free list */
  uint32_t flow;        /* index of the flow it belongs to */
  uint32_t wire_len;    /* bytes on the wire, IP header included */
  uint16_t len;         /* bytes in data[] (the L4 packet) */
  uint8_t dir;          /* SIM_DIR_FWD (client to server) or SIM_DIR_REV */
  uint8_t ecn;          /* IP ECN codepoint */
  uint8_t corrupt;      /* the network flipped a bit of it */
  uint8_t path;         /* the path it takes (sim_config.paths), 0 */
  uint64_t meta[2];     /* flow-kind private (e.g. TCP seq and ack) */
  uint64_t sent_at;     /* ns: when sim_flow_xmit put it on the link */
  uint8_t data[SIM_PKT_CAP];
} sim_pkt;

typedef struct sim_pool_chunk sim_pool_chunk;

typedef struct sim_pool {
  sim_pkt *free;
  sim_pool_chunk *chunks;
  size_t n_total, n_used, high_water;
} sim_pool;

void sim_pool_init(sim_pool *p);
/* Frees every chunk; packets still out become invalid. */
void sim_pool_free(sim_pool *p);

/* Returns a packet (fields other than data zeroed), or NULL if out of
 * memory.  Memory grows in chunks; it is never returned before
 * sim_pool_free(). */
sim_pkt *sim_pool_get(sim_pool *p);
void sim_pool_put(sim_pool *p, sim_pkt *pkt);

#endif /* UDCCP_SIM_POOL_H */

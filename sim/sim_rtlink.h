/* SPDX-License-Identifier: MIT */
/*
 * A one-way link in real time, for udccp-linkem: the sim_link model (rate,
 * delay, drop-tail in packets, random and Gilbert-Elliott loss,
 * duplication) plus what a real bottleneck needs on top of it:
 *   - a store for the packets themselves until their arrival time (one
 *     circular byte buffer, allocated once: bounded memory, no malloc per
 *     packet);
 *   - a drop-tail limit in bytes as well as in packets;
 *   - a fixed loss burst: drop N consecutive packets offered from time T
 *     on, or after the first K packets.
 * The caller gives the time (CLOCK_MONOTONIC ns in udccp-linkem, virtual
 * time in tests) and moves the bytes; nothing here does I/O.
 * Reordering is not offered: the store is FIFO.
 */
#ifndef UDCCP_SIM_RTLINK_H
#define UDCCP_SIM_RTLINK_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "sim_link.h"

typedef struct sim_rtlink_cfg {
  sim_link_cfg link;      /* rate, delay, queue_pkts (0: no packet limit),
                             loss, ge_*, dup; reorder must be 0 */
  uint64_t queue_bytes;   /* drop-tail limit in bytes, including the packet
                             in service; 0: no byte limit */
  udccp_tstamp burst_at;  /* fixed burst: from start + burst_at on, or */
  uint64_t burst_after;   /* if > 0: after this many packets offered, */
  uint32_t burst_pkts;    /* drop this many consecutive packets (0: off) */
  uint32_t max_pkt;       /* largest packet accepted, bytes (e.g. 65535) */
} sim_rtlink_cfg;

typedef struct sim_rtlink_stats {
  uint64_t offered, offered_bytes;
  uint64_t forwarded, forwarded_bytes; /* accepted into the queue */
  uint64_t delivered, delivered_bytes; /* handed out by sim_rtlink_pop */
  uint64_t lost_random, lost_burst, lost_fixed_burst;
  uint64_t dropped_queue;              /* drop-tail, packets or bytes */
  uint64_t dropped_store;              /* store full (sizing bug) or too big */
  uint64_t duplicated;
  uint64_t max_backlog_bytes;
  uint32_t max_backlog_pkts;
} sim_rtlink_stats;

typedef struct sim_rtlink {
  sim_rtlink_cfg cfg;
  sim_link link;
  udccp_tstamp start;
  uint32_t burst_left;
  int burst_done;
  /* The store: entries (header + data, 8-byte aligned) from head to tail,
   * wrapping; svc is the oldest entry whose serialisation has not ended
   * at the last call (the queue's head for drop-tail in bytes). */
  uint8_t *buf;
  size_t cap, head, tail, svc;
  size_t count, svc_count;  /* entries in store; of them, still queued */
  uint64_t backlog_bytes;   /* bytes of the svc_count queued entries */
  sim_rtlink_stats stats;
} sim_rtlink;

/* The store size init allocates for cfg: queue (bytes or packets of
 * max_pkt) plus what the delay holds at the rate, with per-packet overhead
 * for packets down to 20 bytes (a bare IPv4 header). */
size_t sim_rtlink_store_size(const sim_rtlink_cfg *cfg);

/* Returns 0, or -1 if cfg is invalid (rate 0, no queue limit at all,
 * reorder set, max_pkt 0) or out of memory.  start: time 0 of burst_at. */
int sim_rtlink_init(sim_rtlink *l, const sim_rtlink_cfg *cfg, uint64_t seed,
                    uint64_t stream, udccp_tstamp start);
void sim_rtlink_free(sim_rtlink *l);

enum sim_rtlink_verdict {
  SIM_RTLINK_QUEUED = 0,
  SIM_RTLINK_LOST_RANDOM,
  SIM_RTLINK_LOST_BURST,       /* Gilbert-Elliott */
  SIM_RTLINK_LOST_FIXED_BURST, /* burst_at / burst_pkts */
  SIM_RTLINK_DROPPED_QUEUE,
  SIM_RTLINK_DROPPED_STORE
};

/* Offers a packet of len bytes at now (copied into the store when it is
 * not dropped).  Returns a sim_rtlink_verdict. */
int sim_rtlink_offer(sim_rtlink *l, const uint8_t *pkt, uint32_t len,
                     udccp_tstamp now);

/* Arrival time of the oldest stored packet, or UINT64_MAX if none. */
udccp_tstamp sim_rtlink_next(const sim_rtlink *l);

/* The oldest stored packet if it has arrived by now (its bytes and
 * length), else NULL.  It stays stored until sim_rtlink_pop. */
const uint8_t *sim_rtlink_peek(sim_rtlink *l, udccp_tstamp now,
                               uint32_t *len);

/* Removes the packet sim_rtlink_peek returned; a duplicated packet is
 * returned twice by peek before it goes.  Returns 1 if a packet went. */
int sim_rtlink_pop(sim_rtlink *l);

/* Bytes and packets queued (serialisation not ended) at now. */
uint64_t sim_rtlink_backlog_bytes(sim_rtlink *l, udccp_tstamp now);
size_t sim_rtlink_backlog_pkts(sim_rtlink *l, udccp_tstamp now);

#endif /* UDCCP_SIM_RTLINK_H */

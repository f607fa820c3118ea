/* SPDX-License-Identifier: MIT */
/*
 * A one-way link: random and burst loss before the queue, a drop-tail FIFO
 * served at a rate that may change during the run (serialisation delay),
 * then propagation delay, optional reordering, duplication and corruption.
 * Blackouts drop everything offered, or finishing serialisation, inside
 * their windows.  Pure arithmetic over virtual time: the link computes when
 * a packet arrives; the caller schedules it (and flips the corrupted bit).
 */
#ifndef UDCCP_SIM_LINK_H
#define UDCCP_SIM_LINK_H

#include <stdint.h>

#include <udccp/udccp.h>

#include "sim_rng.h"

/* Most blackouts (and, in sim.h, rate steps) one run may schedule. */
#define SIM_MAX_SCHED 16

/* The link drops everything from `at` for `len` (both ns). */
typedef struct sim_blackout {
  udccp_tstamp at, len;
} sim_blackout;

typedef struct sim_link_cfg {
  uint64_t rate_bps;          /* serialisation rate, bits/s; > 0 */
  udccp_tstamp delay;         /* one-way propagation delay, ns */
  uint32_t queue_pkts;        /* drop-tail limit, packets, incl. the one in service */
  double loss;                /* random loss probability, before the queue */
  /* Gilbert-Elliott burst loss, before the queue; ge_p = 0 turns it off. */
  double ge_p;                /* P(good -> bad) per packet */
  double ge_r;                /* P(bad -> good) per packet */
  double ge_h;                /* loss probability in the bad state */
  /* 0: the chain moves once per packet offered.  > 0: once per ge_slot ns
   * of time (the simulator: the time a 1500-byte packet takes at the
   * link's rate), so that a sparse flow -- the feedback on the reverse
   * path -- meets bursts as long in time as a busy flow does, instead of
   * a bad state that lasts ~1/ge_r of its own packets, i.e. seconds. */
  udccp_tstamp ge_slot;
  double reorder;             /* probability a packet is held back... */
  udccp_tstamp reorder_delay; /* ...by this much extra delay */
  double dup;                 /* probability a packet arrives twice */
  /* RED-like ECN marking (RFC 3168 §5, RFC 7567): an ECT packet that finds
   * at least mark_min packets queued is marked CE with a probability
   * rising linearly to mark_pmax at mark_max (and always above); Not-ECT
   * packets only meet the drop-tail limit.  mark_min = 0: no marking. */
  uint32_t mark_min, mark_max;
  double mark_pmax;
  double corrupt;             /* probability a forwarded packet is corrupted
                                 (the caller flips one bit of it) */
  uint32_t n_blackouts;       /* windows in blackouts[], any order */
  sim_blackout blackouts[SIM_MAX_SCHED];
} sim_link_cfg;

enum sim_link_verdict {
  SIM_LINK_SENT = 0,
  SIM_LINK_LOST_RANDOM,
  SIM_LINK_LOST_BURST,
  SIM_LINK_DROPPED_QUEUE,
  SIM_LINK_LOST_BLACKOUT,
  SIM_LINK_CORRUPTED   /* forwarded, but the caller must corrupt it */
};

typedef struct sim_link_stats {
  uint64_t offered, lost_random, lost_burst, dropped_queue;
  uint64_t forwarded, forwarded_bytes, reordered, duplicated, ce_marked;
  uint64_t lost_blackout, corrupted;
  uint32_t max_backlog;
  /* longest a forwarded packet spent queued and in service, ns: with a
   * deep drop-tail queue and a rate cut this is minutes (chaos judge) */
  udccp_tstamp max_sojourn;
  /* wire bytes whose serialisation ends by measure_end (sim_link): the
   * bottleneck's busy time in the measured period, headers included */
  uint64_t measured_bytes;
} sim_link_stats;

typedef struct sim_link {
  sim_link_cfg cfg;
  sim_rng rng;
  int ge_bad;
  udccp_tstamp ge_t;          /* when the chain last moved (ge_slot > 0) */
  /* Completion times of the packets queued or in service, oldest first. */
  udccp_tstamp *txq;
  uint32_t txq_head, txq_count, txq_mask;
  /* When the last queued packet finishes: tx_end + tx_frac / rate_bps ns
   * (exact rational time, so rounding never drifts the rate). */
  udccp_tstamp tx_end;
  uint64_t tx_frac;
  udccp_tstamp measure_end;   /* stats.measured_bytes counts until then
                                 (sim_link_init: never, i.e. all) */
  sim_link_stats stats;
} sim_link;

/* Returns 0, or -1 if cfg is invalid (rate 0, queue 0) or out of memory. */
int sim_link_init(sim_link *l, const sim_link_cfg *cfg, uint64_t seed,
                  uint64_t stream);
void sim_link_free(sim_link *l);

/* Offers a packet of wire_bytes (IP header included) to the link at now.
 * Returns how many copies arrive (0, 1 or 2 when duplicated) and writes
 * their arrival times into arrive[]; *verdict tells what happened. */
int sim_link_send(sim_link *l, uint32_t wire_bytes, udccp_tstamp now,
                  udccp_tstamp arrive[2], int *verdict);

/* As sim_link_send(), for a packet whose IP ECN codepoint is *ecn: the
 * marking queue may set it to CE (3). */
int sim_link_send_ecn(sim_link *l, uint32_t wire_bytes, udccp_tstamp now,
                      udccp_tstamp arrive[2], int *verdict, uint8_t *ecn);

/* Changes the serialisation rate (> 0) from now on: packets already queued
 * keep their departure times, later ones are served at the new rate. */
void sim_link_set_rate(sim_link *l, uint64_t rate_bps);

/* 1 if t lies inside one of the link's blackouts. */
int sim_link_in_blackout(const sim_link *l, udccp_tstamp t);

/* Packets queued or in service at now. */
uint32_t sim_link_backlog(sim_link *l, udccp_tstamp now);

/* Serialisation time of wire_bytes, ns, rounded up. */
udccp_tstamp sim_link_ser_time(const sim_link *l, uint32_t wire_bytes);

#endif /* UDCCP_SIM_LINK_H */

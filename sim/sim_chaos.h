/* SPDX-License-Identifier: MIT */
/*
 * Chaos runs (issue 11 §2): a seed draws a whole scenario -- link rate,
 * delay, queue, random and burst loss, reordering, duplication,
 * corruption, blackouts, rate changes, 1 to 3 udccp flows of CCID 2, 3 or
 * 4 with random application behaviour (greedy or rate-limited, pauses,
 * early close or abort by either end, slow readers) -- and runs it with
 * the invariants of sim_inv.h checked after every event.
 */
#ifndef UDCCP_SIM_CHAOS_H
#define UDCCP_SIM_CHAOS_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/* Bound on how long after its application stopped (or the run's measured
 * period ended) a connection must have ended, one way or another: the
 * longest of its give-up timers (Request 64 s, Close 64 s, PARTOPEN 8
 * minutes are not reached here since the handshake is over or the Request
 * timer runs) plus TIMEWAIT (60 s), with slack.  sim_chaos_end_bound()
 * adds what the network itself holds a packet: RFC 4340 §8.3's handshake
 * ends when the Close (CloseReq) and the Reset arrive, and a deep drop-tail
 * queue after a rate cut (seed 8: 4058 packets at 81 kbit/s) keeps them
 * for minutes -- longer than the MSL the RFC assumes (2 minutes, §8.3's
 * 2MSL TIMEWAIT), so no endpoint timer can shorten that wait: the server
 * learns of the close only when the Close comes out of the queue. */
#define SIM_CHAOS_END_BOUND (200 * UDCCP_NS_PER_S)
/* The applications' idle timeout (udccp settings.idle_timeout). */
#define SIM_CHAOS_IDLE (60 * UDCCP_NS_PER_S)

/* Fills cfg (after sim_config_default) from seed; desc gets a one-line
 * summary.  Everything is a function of the seed. */
void sim_chaos_config(uint64_t seed, sim_config *cfg, char *desc, size_t cap);

/* The bound for a run: SIM_CHAOS_END_BOUND plus the longest sojourn a
 * packet had in the bottleneck queue in each direction (sim_link_stats). */
udccp_tstamp sim_chaos_end_bound(const sim_result *res);

/* Judges a finished chaos run.  Returns 0 if every connection ended in a
 * clean close, or a Reset or timeout reported within its bound, with no
 * invariant broken and no corrupted packet accepted; else -1 with why. */
int sim_chaos_judge(const sim_config *cfg, const sim_result *res, char *why,
                    size_t cap);

#endif /* UDCCP_SIM_CHAOS_H */

/* SPDX-License-Identifier: MIT */
/*
 * Invariants the chaos runs check on every udccp connection after every
 * event that touched it (sim_config.check_invariants): RFC 4340 rules a
 * connection must keep whatever the network and the application do.
 *   - GSS strictly increases with every packet sent (§7.1), and the packet
 *     carries it;
 *   - the sequence and acknowledgement windows are where §7.5.1 puts them:
 *     AWH = GSS, AWL within W' below it, SWL <= GSR + 1 <= SWH, windows
 *     no wider than the largest Sequence Window (§7.5.2);
 *   - no packet larger than the path MTU allows (the MPS, §14);
 *   - memory bounded (the connection's own allocator hooks);
 *   - no timer in the past once the connection was served (expiry > now),
 *     which is also what keeps the event loop from spinning.
 */
#ifndef UDCCP_SIM_INV_H
#define UDCCP_SIM_INV_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

/* A connection's memory above this is a failure: the largest legitimate
 * use (receive queue of 256 MPS-sized datagrams, send queue, Ack Vector,
 * TFRC history) is well below it. */
#define SIM_INV_MEM_LIMIT (8u << 20)

typedef struct sim_inv_end {
  udccp_mem mem;     /* counting hooks: point settings.mem here */
  size_t mem_now, mem_peak;
  uint64_t last_gss;
  int have_gss;
} sim_inv_end;

void sim_inv_end_init(sim_inv_end *e);

/* After write_pkt gave pkt[0..n).  Returns 0, or -1 with err set. */
int sim_inv_after_write(sim_inv_end *e, const udccp_conn *c,
                        const uint8_t *pkt, size_t n, uint32_t pmtu,
                        uint32_t hdr_overhead, char *err, size_t cap);

/* After the connection was served at now (timers run, packets written).
 * Returns 0, or -1 with err set. */
int sim_inv_after_event(sim_inv_end *e, const udccp_conn *c, udccp_tstamp now,
                        char *err, size_t cap);

#endif /* UDCCP_SIM_INV_H */

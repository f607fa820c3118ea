/* SPDX-License-Identifier: MIT */
/*
 * A pcap of what crosses the simulated bottleneck: LINKTYPE_RAW (101)
 * frames, each a real IPv4 header (correct length and header checksum)
 * followed by the L4 packet exactly as the endpoint wrote it.  Timestamps
 * are virtual time (nanosecond-resolution pcap).  The writer is the
 * runtime's (io/pcap.c), shared with udccp_endpoint_set_pcap().
 */
#ifndef UDCCP_SIM_PCAP_H
#define UDCCP_SIM_PCAP_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "pcap.h" /* io/ */

#define SIM_PCAP_LINKTYPE_RAW UDCCP_PCAP_LINKTYPE_RAW

typedef struct udccp_pcap sim_pcap;

/* Creates path and writes the file header.  Returns 0 or -1 (errno set). */
int sim_pcap_open(sim_pcap *p, const char *path);

/* Writes one IPv4 packet: src -> dst, protocol proto, TOS byte tos (ECN in
 * its low two bits), carrying l4 (l4_len bytes).  Returns 0 or -1. */
int sim_pcap_write_ipv4(sim_pcap *p, udccp_tstamp ts, const uint8_t src[4],
                        const uint8_t dst[4], uint8_t proto, uint8_t tos,
                        const uint8_t *l4, size_t l4_len);

/* Flushes and closes.  Returns 0, or -1 if any write failed. */
int sim_pcap_close(sim_pcap *p);

#endif /* UDCCP_SIM_PCAP_H */

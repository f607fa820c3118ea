/* SPDX-License-Identifier: MIT */
/*
 * The one pcap writer of the project (issue 15): classic pcap, nanosecond
 * timestamps (magic a1b23c4d), LINKTYPE_RAW (101), each frame a real IPv4
 * or IPv6 header (lengths and IPv4 header checksum right) followed by the
 * L4 packet; for UDP (DCCP-UDP, RFC 6773) a UDP header with its checksum
 * is put in front of the payload.  Used by udccp_endpoint_set_pcap()
 * (endpoint captures, wall-clock time) and by the simulator (sim/pcap.c,
 * virtual time).  Several threads may write to one file: each frame is one
 * locked stdio record.
 */
#ifndef UDCCP_IO_PCAP_H
#define UDCCP_IO_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <udccp/udccp.h>

#define UDCCP_PCAP_LINKTYPE_RAW 101
#define UDCCP_IPPROTO_UDP 17

struct udccp_pcap {
  FILE *f;
  uint16_t ip_id;
  int failed;      /* a write failed: the file is incomplete */
  uint64_t frames; /* frames written */
};

/* One frame to write.  family: UDCCP_AF_INET or UDCCP_AF_INET6; addresses as in
 * udccp_path.  proto UDCCP_IPPROTO_UDP adds a UDP header sport -> dport
 * (host byte order); any other protocol carries l4 as it is. */
typedef struct udccp_pcap_frame {
  uint8_t family;
  const uint8_t *src, *dst;
  uint8_t proto;
  uint8_t tos; /* IPv4 TOS / IPv6 traffic class, ECN in the low two bits */
  uint16_t sport, dport;
  const uint8_t *l4;
  size_t len;
} udccp_pcap_frame;

/* Creates path and writes the file header into *p.  Returns 0 or -1
 * (errno set). */
int udccp_io_pcap_init(struct udccp_pcap *p, const char *path);

/* Writes one frame stamped ts (nanoseconds since the epoch, or virtual
 * time).  Returns 0 or -1 (too long, or the write failed). */
int udccp_io_pcap_write(struct udccp_pcap *p, uint64_t ts,
                        const udccp_pcap_frame *fr);

/* Flushes and closes.  Returns 0, or -1 if any write failed. */
int udccp_io_pcap_fini(struct udccp_pcap *p);

/* The Internet checksum (RFC 1071) of data, continuing from sum (a partial
 * 32-bit sum; start with 0); udccp_io_inet_fold() finishes it. */
uint32_t udccp_io_inet_sum(uint32_t sum, const uint8_t *data, size_t len);
uint16_t udccp_io_inet_fold(uint32_t sum);

#endif /* UDCCP_IO_PCAP_H */

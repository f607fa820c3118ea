/* SPDX-License-Identifier: MIT */
/*
 * Below DCCP on the raw transport: stripping the IPv4 header that IPv4 raw
 * sockets deliver, and the classic BPF program that keeps a raw socket
 * from waking us for DCCP packets addressed to ports we do not own
 * (DESIGN.md §3: a raw socket sees every DCCP packet on the host).
 */
#ifndef UDCCP_IO_WIRE_H
#define UDCCP_IO_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/filter.h>

#define UDCCP_IPPROTO_DCCP 33

/* Parses the IPv4 header at buf (len bytes as received).  On success sets
 * *off and *dlen to the DCCP packet inside, src/dst to the addresses and *ecn
 * to the ECN codepoint, and returns 0.  Returns UDCCP_ERR_PROTO if the
 * header is malformed, not protocol 33, or its lengths disagree. */
int udccp_io_ipv4_strip(const uint8_t *buf, size_t len, size_t *off,
                        size_t *dlen, uint8_t src[4], uint8_t dst[4],
                        uint8_t *ecn);

/* Writes into prog (cap instructions) a filter that accepts a DCCP packet
 * whose destination port is one of ports[0..n-1] and drops the rest.
 * ipv4: the filter sees the IPv4 header first (IPv4 raw sockets); else it
 * sees the DCCP header first (IPv6 raw sockets).  Returns the number of
 * instructions, or 0 if they do not fit (use no filter then). */
size_t udccp_io_bpf_build(struct sock_filter *prog, size_t cap, int ipv4,
                          const uint16_t *ports, size_t n);

/* Runs prog over pkt like the kernel's classic BPF interpreter would for
 * the subset udccp_io_bpf_build() emits (for tests).  Returns the
 * filter's verdict (0: drop), or -1 for an instruction outside it. */
long udccp_io_bpf_run(const struct sock_filter *prog, size_t n,
                      const uint8_t *pkt, size_t len);

#endif /* UDCCP_IO_WIRE_H */

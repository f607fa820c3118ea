/* SPDX-License-Identifier: MIT */
/*
 * Checksums: the DCCP header checksum with Checksum Coverage over the IPv4
 * and IPv6 pseudo-headers (RFC 4340 §9.1, §9.2), and the CRC-32c of the Data
 * Checksum option (§9.3).
 */
#ifndef UDCCP_CKSUM_H
#define UDCCP_CKSUM_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

/* Number of bytes the checksum covers for packet pkt (§9.2): all of it when
 * CsCov = 0, else the header and options plus (CsCov - 1) * 4 bytes of
 * payload.  Returns UDCCP_ERR_PROTO if CsCov asks for more than the packet
 * has (such packets MUST be ignored, §9.2) or the header is malformed. */
udccp_ssize udccp_cksum_coverage(const uint8_t *pkt, size_t len);

/* Computes the checksum of pkt as sent from src to dst (addresses of the
 * given family, 4 or 16 bytes), with the checksum field taken as zero, over
 * the bytes CsCov names (the whole packet if CsCov is invalid: check with
 * udccp_cksum_coverage() first).  The result is in host order, ready to
 * store in network order. */
uint16_t udccp_cksum_compute(const uint8_t *pkt, size_t len, uint8_t family,
                             const uint8_t *src, const uint8_t *dst);

/* Computes and stores the checksum of an outgoing packet on path (source is
 * path->local_addr).  Returns 0 or UDCCP_ERR_PROTO. */
int udccp_cksum_set(uint8_t *pkt, size_t len, const udccp_path *path);

/* Checks an incoming packet on path (source is path->remote_addr).
 * Returns 0, UDCCP_ERR_CHECKSUM or UDCCP_ERR_PROTO (CsCov too large).
 * A stored 0xFFFF is accepted where 0x0000 is computed (both are one's
 * complement zero). */
int udccp_cksum_check(const uint8_t *pkt, size_t len, const udccp_path *path);

/* The implementations of the Internet checksum's word sum (RFC 1071), for
 * tests and benchmarks: BEST is the one the functions above use on this
 * CPU (for 64 bytes and more; C below); C the portable reference; AVX2 the
 * x86-64 vector sum. */
enum udccp_cksum_impl {
  UDCCP_CKSUM_IMPL_BEST,
  UDCCP_CKSUM_IMPL_C,
  UDCCP_CKSUM_IMPL_AVX2
};

/* The one's complement sum of p[0..n) read as 16-bit network-order words
 * (an odd last byte padded on the right with zero), folded to 16 bits
 * (0 only for all-zero data), computed by impl (enum udccp_cksum_impl).
 * p may have any alignment.  Returns the sum, or
 * UDCCP_ERR_INVALID_ARGUMENT if impl is not built in or this CPU lacks
 * it. */
int udccp_cksum_sum_impl(int impl, const uint8_t *p, size_t n);

/* CRC-32c (Castagnoli), as used by the Data Checksum option (§9.3). */
uint32_t udccp_crc32c(const uint8_t *data, size_t len);

#endif /* UDCCP_CKSUM_H */

/* SPDX-License-Identifier: MIT */
/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012): a keyed pseudorandom function with a 128-bit key and a 64-bit
 * output, used as the MAC of Init Cookies (cookie.h).  Written from the
 * paper's description; checked against the reference test vectors.
 */
#ifndef UDCCP_SIPHASH_H
#define UDCCP_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define UDCCP_SIPHASH_KEYLEN 16

/* SipHash-2-4 of the len bytes at msg under key.  The result is the
 * paper's 64-bit output: its little-endian encoding is the 8 output bytes
 * listed in the reference vectors. */
uint64_t udccp_siphash24(const uint8_t key[UDCCP_SIPHASH_KEYLEN],
                         const void *msg, size_t len);

#endif /* UDCCP_SIPHASH_H */

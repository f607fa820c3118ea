/* SPDX-License-Identifier: MIT */
/*
 * 48-bit circular sequence-number arithmetic (RFC 4340 §7.1, §7.6).
 * Every comparison of DCCP sequence or acknowledgement numbers goes through
 * this file.  Numbers are carried in uint64_t with the top 16 bits zero.
 */
#ifndef UDCCP_SEQ_H
#define UDCCP_SEQ_H

#include <stdint.h>

#define UDCCP_SEQ_MASK 0xFFFFFFFFFFFFULL
#define UDCCP_SEQ_HALF 0x800000000000ULL

/* a + d modulo 2^48; d may be negative. */
static inline uint64_t udccp_seq_add(uint64_t a, int64_t d) {
  return (a + (uint64_t)d) & UDCCP_SEQ_MASK;
}

/* Signed circular distance a - b, in [-2^47, 2^47). */
static inline int64_t udccp_seq_sub(uint64_t a, uint64_t b) {
  uint64_t d = (a - b) & UDCCP_SEQ_MASK;
  return d >= UDCCP_SEQ_HALF ? (int64_t)d - (int64_t)(UDCCP_SEQ_MASK + 1)
                             : (int64_t)d;
}

/* The comparisons below read the sign of a - b from bit 47 without
 * forming the signed distance: shifted left by 16, the 48-bit difference
 * sits in the top bits of a uint64_t, its sign in bit 63 (a shift and a
 * test instead of a mask, a compare and a select; they run on every
 * packet many times, issue 13).  Same results as udccp_seq_sub: a - b =
 * -2^47 counts as negative. */
static inline uint64_t udccp_seq_diff16(uint64_t a, uint64_t b) {
  return (a - b) << 16;
}
static inline int udccp_seq_lt(uint64_t a, uint64_t b) {
  return (int)(udccp_seq_diff16(a, b) >> 63);
}
static inline int udccp_seq_ge(uint64_t a, uint64_t b) {
  return !udccp_seq_lt(a, b);
}
/* a - b in [1, 2^47): the shifted difference minus one, below 2^63 - 1. */
static inline int udccp_seq_gt(uint64_t a, uint64_t b) {
  return udccp_seq_diff16(a, b) - 1 < (UINT64_C(1) << 63) - 1;
}
static inline int udccp_seq_le(uint64_t a, uint64_t b) {
  return !udccp_seq_gt(a, b);
}

/* The later of a and b in circular order. */
static inline uint64_t udccp_seq_max(uint64_t a, uint64_t b) {
  return udccp_seq_gt(a, b) ? a : b;
}
static inline uint64_t udccp_seq_min(uint64_t a, uint64_t b) {
  return udccp_seq_lt(a, b) ? a : b;
}

/* 1 if lo <= x <= hi in circular order (the window lo..hi is at most
 * 2^47 long). */
static inline int udccp_seq_between(uint64_t x, uint64_t lo, uint64_t hi) {
  return ((x - lo) & UDCCP_SEQ_MASK) <= ((hi - lo) & UDCCP_SEQ_MASK);
}

/* Extends a 24-bit short sequence number s to 48 bits, choosing the value
 * closest to the reference ref (GSR for sequence numbers, GSS for
 * acknowledgement numbers): RFC 4340 §7.6. */
static inline uint64_t udccp_seq_extend24(uint64_t ref, uint32_t s) {
  uint64_t lo = ref & 0xFFFFFFULL;
  uint64_t hi = ref & 0xFFFFFF000000ULL;
  uint64_t v;
  s &= 0xFFFFFFu;
  v = hi | s;
  /* Choose among v - 2^24, v, v + 2^24 the one nearest to ref. */
  if (s < lo && lo - s > 0x800000ULL) {
    v = (v + 0x1000000ULL) & UDCCP_SEQ_MASK;
  } else if (s > lo && s - lo > 0x800000ULL) {
    v = (v - 0x1000000ULL) & UDCCP_SEQ_MASK;
  }
  return v;
}

#endif /* UDCCP_SEQ_H */

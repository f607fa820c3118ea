/* SPDX-License-Identifier: MIT */
/*
 * Big-endian (network order) integers of 1..8 bytes, as DCCP's options and
 * feature values carry them (RFC 4340 §5.8, §6): one copy for every module
 * that reads or writes them.
 */
#ifndef UDCCP_BE_H
#define UDCCP_BE_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t get_be(const uint8_t *p, size_t n) {
  uint64_t v = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    v = (v << 8) | p[i];
  }
  return v;
}

static inline void put_be(uint8_t *p, uint64_t v, size_t n) {
  while (n > 0) {
    p[--n] = (uint8_t)v;
    v >>= 8;
  }
}

#endif

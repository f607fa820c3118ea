/* SPDX-License-Identifier: MIT */
/* udccp-perf: the control datagrams' encoding (big-endian fields after an
 * 8-byte header: magic, type) and the clock. */
#define _GNU_SOURCE /* clock_gettime */
#include <string.h>
#include <time.h>

#include "perf.h"

void perf_put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

void perf_put64(uint8_t *p, uint64_t v) {
  perf_put32(p, (uint32_t)(v >> 32));
  perf_put32(p + 4, (uint32_t)v);
}

uint32_t perf_get32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
         ((uint32_t)p[2] << 8) | p[3];
}

uint64_t perf_get64(const uint8_t *p) {
  return ((uint64_t)perf_get32(p) << 32) | perf_get32(p + 4);
}

/* Message: magic(4) type(1) then fields at offset 8 (u64-aligned). */
size_t perf_msg_init(uint8_t *b, int type) {
  memset(b, 0, 8);
  perf_put32(b, PERF_MAGIC);
  b[4] = (uint8_t)type;
  return 8;
}

int perf_msg_type(const uint8_t *b, udccp_ssize n) {
  if (n < 8 || perf_get32(b) != PERF_MAGIC) {
    return -1;
  }
  return b[4];
}

double perf_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double perf_now_real(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

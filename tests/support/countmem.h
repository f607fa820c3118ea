/* SPDX-License-Identifier: MIT */
/*
 * A udccp_mem allocator for tests: counts allocations and frees, and can be
 * told to fail every allocation (to test UDCCP_ERR_NOMEM paths).
 */
#ifndef UDCCP_TEST_COUNTMEM_H
#define UDCCP_TEST_COUNTMEM_H

#include <udccp/udccp.h>

typedef struct count_mem {
  udccp_mem mem;
  int allocs;
  int frees;
  int fail; /* fail every allocation */
  long long bytes;      /* live heap bytes requested (issue 13) */
  long long peak_bytes;
} count_mem;

/* Zeroes c and points c->mem at the counting hooks. */
void count_mem_init(count_mem *c);

#endif /* UDCCP_TEST_COUNTMEM_H */

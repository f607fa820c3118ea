/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "countmem.h"

/* Each block carries its size in a header (16 bytes: aligned for any
 * type), so that frees are counted in bytes. */
#define CM_HDR 16

static void *cm_malloc(size_t n, void *ud) {
  count_mem *c = ud;
  unsigned char *p;
  if (c->fail) {
    return NULL;
  }
  p = malloc(n + CM_HDR);
  if (p == NULL) {
    return NULL;
  }
  memcpy(p, &n, sizeof(n));
  c->allocs++;
  c->bytes += (long long)n;
  if (c->bytes > c->peak_bytes) {
    c->peak_bytes = c->bytes;
  }
  return p + CM_HDR;
}

static void cm_free(void *ptr, void *ud) {
  count_mem *c = ud;
  unsigned char *p = ptr;
  size_t n;
  if (p == NULL) {
    return;
  }
  p -= CM_HDR;
  memcpy(&n, p, sizeof(n));
  c->frees++;
  c->bytes -= (long long)n;
  free(p);
}

static void *cm_calloc(size_t n, size_t sz, void *ud) {
  void *p;
  if (sz != 0 && n > ((size_t)-1) / sz) {
    return NULL;
  }
  p = cm_malloc(n * sz, ud);
  if (p != NULL) {
    memset(p, 0, n * sz);
  }
  return p;
}

static void *cm_realloc(void *ptr, size_t n, void *ud) {
  size_t old;
  void *p;
  if (ptr == NULL) {
    return cm_malloc(n, ud);
  }
  memcpy(&old, (unsigned char *)ptr - CM_HDR, sizeof(old));
  p = cm_malloc(n, ud);
  if (p != NULL) {
    memcpy(p, ptr, old < n ? old : n);
    cm_free(ptr, ud);
  }
  return p;
}

void count_mem_init(count_mem *c) {
  memset(c, 0, sizeof(*c));
  c->mem.user_data = c;
  c->mem.malloc = cm_malloc;
  c->mem.free = cm_free;
  c->mem.calloc = cm_calloc;
  c->mem.realloc = cm_realloc;
}

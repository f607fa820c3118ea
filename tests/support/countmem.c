#include <stdlib.h>
#include <string.h>

#include "countmem.h"

static void *cm_malloc(size_t n, void *ud) {
  count_mem *c = ud;
  if (c->fail) {
    return NULL;
  }
  c->allocs++;
  return malloc(n);
}

static void cm_free(void *p, void *ud) {
  count_mem *c = ud;
  if (p != NULL) {
    c->frees++;
  }
  free(p);
}

static void *cm_calloc(size_t n, size_t sz, void *ud) {
  count_mem *c = ud;
  if (c->fail) {
    return NULL;
  }
  c->allocs++;
  return calloc(n, sz);
}

static void *cm_realloc(void *p, size_t n, void *ud) {
  count_mem *c = ud;
  if (c->fail) {
    return NULL;
  }
  c->allocs++;
  return realloc(p, n);
}

void count_mem_init(count_mem *c) {
  memset(c, 0, sizeof(*c));
  c->mem.user_data = c;
  c->mem.malloc = cm_malloc;
  c->mem.free = cm_free;
  c->mem.calloc = cm_calloc;
  c->mem.realloc = cm_realloc;
}

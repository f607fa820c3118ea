/* SPDX-License-Identifier: MIT */
/*
 * Endpoint memory pool (issue 13; see udccp_mempool in udccp.h).
 *
 * Why: a connection allocates on demand and gives memory back when idle
 * (queues when drained, the ack queue when sent, everything at TIMEWAIT),
 * so a busy connection frees and allocates the same few sizes again and
 * again, and a server creates and frees connection objects per handshake.
 * The pool keeps freed blocks on per-size free lists, so that steady
 * traffic and handshakes reuse them without reaching the C heap, and
 * caches at most max_cached bytes, so that memory returns after a flood.
 *
 * Size classes: requests (plus an 8-byte header that holds the class size)
 * round up to a multiple of 16 up to 256 bytes, then to 8 steps per power
 * of two (at most 12.5 % waste) up to 64 KiB; larger blocks go straight
 * to the underlying allocator.  Not thread-safe: one pool per endpoint.
 */
#include <string.h>

#include <udccp/udccp.h>

#define HDR 8u                  /* holds the block's class size */
#define SMALL_MAX 256u          /* 16-byte steps up to here */
#define POOL_MAX 65536u         /* larger blocks are not pooled */
#define N_CLASSES (16u + 8u * 8u) /* 16 small, 8 per power 2^8 .. 2^16 */
#define DEFAULT_CACHE (1u << 20)

typedef struct free_blk {
  struct free_blk *next;
} free_blk;

struct udccp_mempool {
  const udccp_mem *base;
  udccp_mem hooks;
  size_t max_cached;
  size_t cached;                 /* bytes on the free lists */
  size_t in_use;                 /* bytes handed out (class sizes) */
  uint64_t hits, misses;
  free_blk *free[N_CLASSES];
  /* class_of and class_size precomputed (issue 13: every block a busy
   * connection takes or gives back comes through here): the class of a
   * block of s bytes is cls[(s - 1) >> 4], as class boundaries are
   * multiples of 16. */
  size_t csize[N_CLASSES];
  uint8_t cls[POOL_MAX >> 4];
};

/* v < 2^32 here (v < POOL_MAX); halving steps instead of a bit at a
 * time: every allocation and free of a busy connection comes through
 * (issue 13, instructions per packet). */
static unsigned floor_log2(size_t v) {
  unsigned p = 0;
  if (v >> 16) {
    v >>= 16;
    p += 16;
  }
  if (v >> 8) {
    v >>= 8;
    p += 8;
  }
  if (v >> 4) {
    v >>= 4;
    p += 4;
  }
  if (v >> 2) {
    v >>= 2;
    p += 2;
  }
  return p + (unsigned)(v >> 1);
}

/* Class index of a block of s bytes (header included), s <= POOL_MAX. */
static unsigned class_of(size_t s) {
  unsigned p;
  size_t step, r;
  if (s <= SMALL_MAX) {
    return (unsigned)((s + 15) >> 4) - 1u; /* s >= HDR > 0 */
  }
  p = floor_log2(s - 1);
  step = (size_t)1 << (p - 3);
  r = ((s - 1) | (step - 1)) + 1;
  return 16u + (p - 8u) * 8u + (unsigned)(r / step - 9u);
}

static size_t class_size(unsigned idx) {
  unsigned p;
  if (idx < 16) {
    return ((size_t)idx + 1) * 16;
  }
  p = 8u + (idx - 16u) / 8u;
  return (size_t)(9u + (idx - 16u) % 8u) << (p - 3u);
}

static void *pool_malloc(size_t n, void *ud) {
  udccp_mempool *pool = ud;
  size_t s, cs;
  uint8_t *b;
  if (n > SIZE_MAX - HDR) {
    return NULL;
  }
  s = n + HDR;
  if (s > POOL_MAX) {
    cs = s;
    b = pool->base->malloc(cs, pool->base->user_data);
  } else {
    unsigned idx = pool->cls[(s - 1) >> 4];
    cs = pool->csize[idx];
    if (pool->free[idx] != NULL) {
      b = (uint8_t *)pool->free[idx];
      pool->free[idx] = pool->free[idx]->next;
      pool->cached -= cs;
      pool->hits++;
    } else {
      b = pool->base->malloc(cs, pool->base->user_data);
      pool->misses++;
    }
  }
  if (b == NULL) {
    return NULL;
  }
  memcpy(b, &cs, sizeof(cs)); /* sizeof(size_t) <= HDR */
  pool->in_use += cs;
  return b + HDR;
}

static void pool_free(void *ptr, void *ud) {
  udccp_mempool *pool = ud;
  uint8_t *b = ptr;
  size_t cs;
  if (b == NULL) {
    return;
  }
  b -= HDR;
  memcpy(&cs, b, sizeof(cs));
  pool->in_use -= cs;
  if (cs > POOL_MAX || pool->cached + cs > pool->max_cached) {
    pool->base->free(b, pool->base->user_data);
    return;
  }
  {
    unsigned idx = pool->cls[(cs - 1) >> 4];
    free_blk *f = (free_blk *)(void *)b;
    f->next = pool->free[idx];
    pool->free[idx] = f;
    pool->cached += cs;
  }
}

static void *pool_calloc(size_t n, size_t sz, void *ud) {
  void *p;
  if (sz != 0 && n > SIZE_MAX / sz) {
    return NULL;
  }
  p = pool_malloc(n * sz, ud);
  if (p != NULL) {
    memset(p, 0, n * sz);
  }
  return p;
}

static void *pool_realloc(void *ptr, size_t n, void *ud) {
  size_t cs;
  void *p;
  if (ptr == NULL) {
    return pool_malloc(n, ud);
  }
  memcpy(&cs, (uint8_t *)ptr - HDR, sizeof(cs));
  if (n + HDR <= cs && n + HDR > cs / 2) {
    return ptr; /* still fits its block, and not much smaller */
  }
  p = pool_malloc(n, ud);
  if (p != NULL) {
    memcpy(p, ptr, cs - HDR < n ? cs - HDR : n);
    pool_free(ptr, ud);
  }
  return p;
}

int udccp_mempool_new(udccp_mempool **ppool, const udccp_mem *mem,
                      size_t max_cached) {
  udccp_mempool *pool;
  if (ppool == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *ppool = NULL;
  if (mem == NULL) {
    mem = udccp_mem_default();
  }
  pool = mem->calloc(1, sizeof(*pool), mem->user_data);
  if (pool == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  pool->base = mem;
  pool->max_cached = max_cached ? max_cached : DEFAULT_CACHE;
  {
    size_t k;
    for (k = 0; k < N_CLASSES; ++k) {
      pool->csize[k] = class_size((unsigned)k);
    }
    for (k = 0; k < (POOL_MAX >> 4); ++k) {
      pool->cls[k] = (uint8_t)class_of((k + 1) << 4);
    }
  }
  pool->hooks.user_data = pool;
  pool->hooks.malloc = pool_malloc;
  pool->hooks.free = pool_free;
  pool->hooks.calloc = pool_calloc;
  pool->hooks.realloc = pool_realloc;
  *ppool = pool;
  return 0;
}

void udccp_mempool_trim(udccp_mempool *pool) {
  unsigned i;
  if (pool == NULL) {
    return;
  }
  for (i = 0; i < N_CLASSES; ++i) {
    while (pool->free[i] != NULL) {
      free_blk *f = pool->free[i];
      pool->free[i] = f->next;
      pool->base->free(f, pool->base->user_data);
    }
  }
  pool->cached = 0;
}

void udccp_mempool_del(udccp_mempool *pool) {
  if (pool == NULL) {
    return;
  }
  udccp_mempool_trim(pool);
  pool->base->free(pool, pool->base->user_data);
}

const udccp_mem *udccp_mempool_mem(udccp_mempool *pool) {
  return pool != NULL ? &pool->hooks : NULL;
}

void udccp_mempool_get_stats(const udccp_mempool *pool,
                             udccp_mempool_stats *st) {
  if (st == NULL) {
    return;
  }
  memset(st, 0, sizeof(*st));
  if (pool == NULL) {
    return;
  }
  st->in_use = pool->in_use;
  st->cached = pool->cached;
  st->hits = pool->hits;
  st->misses = pool->misses;
}

/* SPDX-License-Identifier: MIT */
/*
 * The endpoint memory pool (lib/mempool.c, issue 13) and the seeded
 * CSPRNG (lib/csprng.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "countmem.h"

/* A freed block is handed out again for the same size class, without a
 * call to the underlying allocator. */
static void test_mempool_reuses_freed_blocks(void **state) {
  udccp_mempool *pool;
  udccp_mempool_stats st;
  const udccp_mem *m;
  count_mem cm;
  void *a, *b;

  (void)state;
  count_mem_init(&cm);
  assert_int_equal(udccp_mempool_new(&pool, &cm.mem, 0), 0);
  m = udccp_mempool_mem(pool);
  a = m->malloc(1000, m->user_data);
  assert_non_null(a);
  m->free(a, m->user_data);
  b = m->malloc(990, m->user_data); /* same class */
  assert_ptr_equal(a, b);
  udccp_mempool_get_stats(pool, &st);
  assert_int_equal(st.hits, 1);
  assert_int_equal(st.misses, 1);
  assert_true(st.in_use >= 998 && st.in_use <= 1000 * 9 / 8 + 16);
  m->free(b, m->user_data);
  udccp_mempool_del(pool);
  assert_int_equal(cm.bytes, 0);
  assert_int_equal(cm.allocs, cm.frees);
}

/* Every size gets a block it may fill completely (ASan checks the
 * bounds), class rounding wastes at most 12.5 % above 256 bytes, and
 * calloc zeroes, realloc keeps the contents. */
static void test_mempool_sizes_and_contents(void **state) {
  udccp_mempool *pool;
  udccp_mempool_stats st;
  const udccp_mem *m;
  size_t n;
  uint8_t *p, *q;

  (void)state;
  assert_int_equal(udccp_mempool_new(&pool, NULL, 0), 0);
  m = udccp_mempool_mem(pool);
  for (n = 1; n < 70000; n += (n < 600 ? 1 : 97)) {
    p = m->malloc(n, m->user_data);
    assert_non_null(p);
    memset(p, 0xA5, n);
    udccp_mempool_get_stats(pool, &st);
    assert_true(st.in_use >= n + 8);
    if (n + 8 > 256 && n + 8 <= 65536) {
      assert_true(st.in_use <= (n + 8) + (n + 8) / 8);
    }
    m->free(p, m->user_data);
  }
  p = m->calloc(100, 3, m->user_data);
  for (n = 0; n < 300; ++n) {
    assert_int_equal(p[n], 0);
    p[n] = (uint8_t)n;
  }
  q = m->realloc(p, 5000, m->user_data);
  for (n = 0; n < 300; ++n) {
    assert_int_equal(q[n], (uint8_t)n);
  }
  m->free(q, m->user_data);
  udccp_mempool_del(pool);
}

/* Issue 12, "memory returns": the pool caches at most max_cached bytes;
 * the rest goes back at once, and trim returns all. */
static void test_mempool_cache_is_bounded(void **state) {
  udccp_mempool *pool;
  udccp_mempool_stats st;
  const udccp_mem *m;
  count_mem cm;
  void *blk[100];
  int i;

  (void)state;
  count_mem_init(&cm);
  assert_int_equal(udccp_mempool_new(&pool, &cm.mem, 10000), 0);
  m = udccp_mempool_mem(pool);
  for (i = 0; i < 100; ++i) {
    blk[i] = m->malloc(1000, m->user_data);
  }
  for (i = 0; i < 100; ++i) {
    m->free(blk[i], m->user_data);
  }
  udccp_mempool_get_stats(pool, &st);
  print_message("cached %zu B, base heap %lld B\n", st.cached, cm.bytes);
  assert_true(st.cached <= 10000);
  assert_int_equal(st.in_use, 0);
  udccp_mempool_trim(pool);
  udccp_mempool_get_stats(pool, &st);
  assert_int_equal(st.cached, 0);
  udccp_mempool_del(pool);
  assert_int_equal(cm.bytes, 0);
}

/* The CSPRNG: a seed determines the stream, another seed gives another
 * stream, successive fills differ, and the key changes after each fill
 * (captured state does not reveal earlier outputs). */
static void test_csprng_streams(void **state) {
  udccp_csprng a, b;
  uint8_t seed[16], x[12], y[12], z[12];
  uint8_t key_before[16];

  (void)state;
  memset(seed, 7, sizeof(seed));
  udccp_csprng_seed(&a, seed);
  udccp_csprng_seed(&b, seed);
  memcpy(key_before, a.key, sizeof(key_before));
  udccp_csprng_fill(x, sizeof(x), &a);
  udccp_csprng_fill(y, sizeof(y), &b);
  assert_memory_equal(x, y, sizeof(x));
  assert_memory_not_equal(a.key, key_before, sizeof(key_before));
  udccp_csprng_fill(z, sizeof(z), &a);
  assert_memory_not_equal(x, z, sizeof(x));
  seed[0] ^= 1;
  udccp_csprng_seed(&b, seed);
  udccp_csprng_fill(y, sizeof(y), &b);
  assert_memory_not_equal(x, y, sizeof(x));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mempool_reuses_freed_blocks),
      cmocka_unit_test(test_mempool_sizes_and_contents),
      cmocka_unit_test(test_mempool_cache_is_bounded),
      cmocka_unit_test(test_csprng_streams),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

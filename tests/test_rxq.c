/* SPDX-License-Identifier: MIT */
/*
 * Receive queue of whole datagrams (lib/rxq.h): bounded by count and by
 * bytes; a full queue refuses, which the connection reports with Data
 * Dropped Drop Code 2, "Receive Buffer" (RFC 4340 §11.7).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rxq.h"

#include "countmem.h"

/* Datagram number id of length len: bytes id, id+1, id+2, ... so that a
 * datagram split wrongly at the ring's end shows. */
static void make_dgram(uint8_t *buf, size_t len, uint32_t id) {
  size_t i;
  for (i = 0; i < len; i++) {
    buf[i] = (uint8_t)(id + i);
  }
}

static void expect_pop(udccp_rxq *q, size_t len, uint32_t id) {
  uint8_t want[1500], got[1500];

  assert_true(len <= sizeof(want));
  make_dgram(want, len, id);
  memset(got, 0xAA, sizeof(got));
  assert_int_equal(udccp_rxq_peek_len(q), (udccp_ssize)len);
  assert_int_equal(udccp_rxq_pop(q, got, sizeof(got)), (udccp_ssize)len);
  assert_memory_equal(got, want, len);
}

static void test_rxq_init_rejects_bad_arguments(void **state) {
  udccp_rxq q;
  count_mem cm;

  (void)state;
  assert_int_equal(udccp_rxq_init(&q, NULL, 0, 100),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_rxq_init(&q, NULL, 4, 0), UDCCP_ERR_INVALID_ARGUMENT);
  count_mem_init(&cm);
  cm.fail = 1;
  /* init allocates nothing; the first push does, and fails cleanly. */
  assert_int_equal(udccp_rxq_init(&q, &cm.mem, 4, 100), 0);
  assert_int_equal(udccp_rxq_push(&q, "x", 1), UDCCP_ERR_NOMEM);
  assert_int_equal(udccp_rxq_len(&q), 0);
  assert_int_equal(udccp_rxq_drops(&q), 1);
  assert_int_equal(udccp_rxq_mem(&q), 0);
  udccp_rxq_free(&q);
  assert_int_equal(udccp_rxq_push(&q, "x", 1), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_rxq_pop(&q, NULL, 0), UDCCP_ERR_AGAIN);
}

static void test_rxq_fifo_order_and_empty(void **state) {
  udccp_rxq q;
  uint8_t buf[64];
  uint32_t i;

  (void)state;
  assert_int_equal(udccp_rxq_init(&q, NULL, 8, 1000), 0);
  assert_int_equal(udccp_rxq_peek_len(&q), UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_rxq_pop(&q, buf, sizeof(buf)), UDCCP_ERR_AGAIN);
  for (i = 0; i < 5; i++) {
    make_dgram(buf, 10 * i, i);
    assert_int_equal(udccp_rxq_push(&q, buf, 10 * i), 0);
  }
  assert_int_equal(udccp_rxq_len(&q), 5);
  assert_int_equal(udccp_rxq_bytes(&q), 100);
  for (i = 0; i < 5; i++) {
    expect_pop(&q, 10 * i, i);
  }
  assert_int_equal(udccp_rxq_len(&q), 0);
  assert_int_equal(udccp_rxq_bytes(&q), 0);
  assert_int_equal(udccp_rxq_drops(&q), 0);
  udccp_rxq_free(&q);
}

static void test_rfc4340_11_7_rxq_full_by_count_refuses(void **state) {
  udccp_rxq q;
  uint8_t buf[8];
  uint32_t i;

  (void)state;
  assert_int_equal(udccp_rxq_init(&q, NULL, 3, 1000), 0);
  for (i = 0; i < 3; i++) {
    make_dgram(buf, 8, i);
    assert_int_equal(udccp_rxq_push(&q, buf, 8), 0);
  }
  assert_false(udccp_rxq_fits(&q, 0));
  /* Even an empty datagram needs an entry. */
  assert_int_equal(udccp_rxq_push(&q, NULL, 0), UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_rxq_push(&q, buf, 8), UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_rxq_drops(&q), 2);
  assert_int_equal(udccp_rxq_len(&q), 3);
  /* The queued datagrams are untouched by the refusals. */
  expect_pop(&q, 8, 0);
  make_dgram(buf, 8, 3);
  assert_int_equal(udccp_rxq_push(&q, buf, 8), 0);
  expect_pop(&q, 8, 1);
  expect_pop(&q, 8, 2);
  expect_pop(&q, 8, 3);
  udccp_rxq_free(&q);
}

static void test_rfc4340_11_7_rxq_full_by_bytes_refuses(void **state) {
  udccp_rxq q;
  uint8_t buf[100];

  (void)state;
  assert_int_equal(udccp_rxq_init(&q, NULL, 100, 100), 0);
  make_dgram(buf, 60, 1);
  assert_int_equal(udccp_rxq_push(&q, buf, 60), 0);
  make_dgram(buf, 41, 2);
  assert_false(udccp_rxq_fits(&q, 41));
  assert_int_equal(udccp_rxq_push(&q, buf, 41), UDCCP_ERR_AGAIN);
  make_dgram(buf, 40, 2);
  assert_true(udccp_rxq_fits(&q, 40));
  assert_int_equal(udccp_rxq_push(&q, buf, 40), 0);
  assert_int_equal(udccp_rxq_bytes(&q), 100);
  assert_int_equal(udccp_rxq_push(&q, buf, 1), UDCCP_ERR_AGAIN);
  /* Zero bytes still fit while entries remain. */
  assert_int_equal(udccp_rxq_push(&q, NULL, 0), 0);
  /* Larger than the whole arena: can never fit. */
  assert_int_equal(udccp_rxq_push(&q, buf, 101), UDCCP_ERR_MSGSIZE);
  assert_int_equal(udccp_rxq_drops(&q), 3);
  expect_pop(&q, 60, 1);
  expect_pop(&q, 40, 2);
  expect_pop(&q, 0, 0);
  udccp_rxq_free(&q);
}

static void test_rxq_small_buffer_keeps_datagram(void **state) {
  udccp_rxq q;
  uint8_t buf[50];

  (void)state;
  assert_int_equal(udccp_rxq_init(&q, NULL, 4, 200), 0);
  make_dgram(buf, 50, 7);
  assert_int_equal(udccp_rxq_push(&q, buf, 50), 0);
  assert_int_equal(udccp_rxq_pop(&q, buf, 49), UDCCP_ERR_NOBUF);
  assert_int_equal(udccp_rxq_len(&q), 1);
  expect_pop(&q, 50, 7);
  make_dgram(buf, 10, 8);
  assert_int_equal(udccp_rxq_push(&q, buf, 10), 0);
  assert_int_equal(udccp_rxq_discard(&q), 0);
  assert_int_equal(udccp_rxq_discard(&q), UDCCP_ERR_AGAIN);
  udccp_rxq_free(&q);
}

/* Sizes that do not divide the arena make datagrams straddle its end;
 * each must come out whole and in order. */
static void test_rxq_byte_ring_wraparound(void **state) {
  udccp_rxq q;
  uint8_t buf[128];
  uint32_t next_in = 0, next_out = 0;
  size_t lens[512];
  int round, wrapped = 0;

  (void)state;
  assert_int_equal(udccp_rxq_init(&q, NULL, 6, 301), 0);
  for (round = 0; round < 400; round++) {
    size_t len = (size_t)((round * 37) % 128);
    /* Never let the queue drain, so the ring does not restart at 0. */
    int pops = udccp_rxq_len(&q) > 3 ? 2 : 0, k;
    make_dgram(buf, len, next_in);
    if (udccp_rxq_fits(&q, len)) {
      const udccp_rxq_ent *e;
      assert_int_equal(udccp_rxq_push(&q, buf, len), 0);
      e = &q.ents[(q.head + q.count - 1) % q.ents_cap];
      if (len > 0 && e->off + len > q.arena_cap) {
        wrapped++;
      }
      lens[next_in % 512] = len;
      next_in++;
    } else {
      assert_int_equal(udccp_rxq_push(&q, buf, len), UDCCP_ERR_AGAIN);
    }
    for (k = 0; k < pops && next_out < next_in; k++) {
      expect_pop(&q, lens[next_out % 512], next_out);
      next_out++;
    }
  }
  while (next_out < next_in) {
    expect_pop(&q, lens[next_out % 512], next_out);
    next_out++;
  }
  print_message("%d of %u datagrams straddled the ring's end\n", wrapped,
                next_in);
  assert_true(wrapped > 10);
  assert_int_equal(udccp_rxq_bytes(&q), 0);
  udccp_rxq_free(&q);
}

/* Zero-copy read (issue 13): peek shows the oldest datagram in place,
 * whole even when it straddles the ring's end (the ring is rotated then),
 * and the datagrams behind it stay intact and in order.  Every datagram
 * is read by peek and discard, the others by pop, over a ring that never
 * drains. */
static void test_rxq_peek_in_place_across_the_ring_end(void **state) {
  udccp_rxq q;
  uint8_t buf[128], want[128];
  uint32_t next_in = 0, next_out = 0;
  size_t lens[512];
  int round, straddled = 0;

  (void)state;
  assert_int_equal(udccp_rxq_init(&q, NULL, 6, 301), 0);
  {
    const uint8_t *p = NULL;
    assert_int_equal(udccp_rxq_peek(&q, &p), UDCCP_ERR_AGAIN);
  }
  for (round = 0; round < 400; round++) {
    size_t len = (size_t)((round * 37) % 128);
    int pops = udccp_rxq_len(&q) > 3 ? 2 : 0, k;
    make_dgram(buf, len, next_in);
    if (udccp_rxq_push(&q, buf, len) == 0) {
      lens[next_in % 512] = len;
      next_in++;
    }
    for (k = 0; k < pops && next_out < next_in; k++) {
      size_t l = lens[next_out % 512];
      if (next_out % 2 == 0) {
        const udccp_rxq_ent *e = udccp_rxq_head(&q);
        const uint8_t *p = NULL, *p2 = NULL;
        if (l > 0 && e->off + l > q.arena_cap) {
          straddled++;
        }
        assert_int_equal(udccp_rxq_peek(&q, &p), (udccp_ssize)l);
        make_dgram(want, l, next_out);
        assert_true(p >= q.arena && p + l <= q.arena + q.arena_cap);
        assert_memory_equal(p, want, l);
        /* a second peek shows the same bytes at the same place */
        assert_int_equal(udccp_rxq_peek(&q, &p2), (udccp_ssize)l);
        assert_ptr_equal(p, p2);
        assert_int_equal(udccp_rxq_discard(&q), 0);
      } else {
        expect_pop(&q, l, next_out);
      }
      next_out++;
    }
  }
  while (next_out < next_in) {
    expect_pop(&q, lens[next_out % 512], next_out);
    next_out++;
  }
  print_message("%d peeked datagrams straddled the ring's end\n", straddled);
  assert_true(straddled > 3);
  assert_int_equal(udccp_rxq_bytes(&q), 0);
  udccp_rxq_free(&q);
}

static void test_rxq_no_allocation_per_datagram(void **state) {
  udccp_rxq q;
  count_mem cm;
  uint8_t buf[100];
  int allocs, i;

  (void)state;
  count_mem_init(&cm);
  assert_int_equal(udccp_rxq_init(&q, &cm.mem, 16, 1000), 0);
  allocs = 0;
  for (i = 0; i < 1000; i++) {
    make_dgram(buf, 100, (uint32_t)i);
    (void)udccp_rxq_push(&q, buf, (size_t)(i % 100));
    if (i % 2 == 0) {
      (void)udccp_rxq_pop(&q, buf, sizeof(buf));
    }
    if (i == 200) {
      allocs = cm.allocs; /* grown to the bounds by now; never drains */
    }
  }
  assert_int_equal(cm.allocs, allocs);
  udccp_rxq_free(&q);
  assert_int_equal(cm.frees, cm.allocs);
}

/* Issue 13: the queue holds memory for what is queued, not for its
 * bounds, and gives it back once drained. */
static void test_rxq_memory_follows_contents(void **state) {
  udccp_rxq q;
  count_mem cm;
  uint8_t buf[1400];
  int i;

  (void)state;
  count_mem_init(&cm);
  /* Bounds as a connection's: 256 datagrams of up to 1400 bytes. */
  assert_int_equal(udccp_rxq_init(&q, &cm.mem, 256, 256 * 1400), 0);
  assert_int_equal(cm.allocs, 0);
  assert_int_equal(udccp_rxq_mem(&q), 0);
  make_dgram(buf, 64, 1);
  assert_int_equal(udccp_rxq_push(&q, buf, 64), 0);
  print_message("one 64-byte datagram: %zu bytes held\n", udccp_rxq_mem(&q));
  assert_true(udccp_rxq_mem(&q) <= 512);
  for (i = 0; i < 100; i++) {
    make_dgram(buf, 1400, (uint32_t)i + 2);
    assert_int_equal(udccp_rxq_push(&q, buf, 1400), 0);
  }
  /* 140,064 bytes queued: at most twice that held, not 358,400. */
  print_message("101 datagrams (%zu B): %zu bytes held\n", udccp_rxq_bytes(&q),
                udccp_rxq_mem(&q));
  assert_true(udccp_rxq_mem(&q) <= 2 * udccp_rxq_bytes(&q) + 4096);
  expect_pop(&q, 64, 1);
  for (i = 0; i < 100; i++) {
    expect_pop(&q, 1400, (uint32_t)i + 2);
  }
  assert_int_equal(udccp_rxq_mem(&q), 0);
  assert_int_equal(cm.frees, cm.allocs);
  udccp_rxq_free(&q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rxq_init_rejects_bad_arguments),
      cmocka_unit_test(test_rxq_fifo_order_and_empty),
      cmocka_unit_test(test_rfc4340_11_7_rxq_full_by_count_refuses),
      cmocka_unit_test(test_rfc4340_11_7_rxq_full_by_bytes_refuses),
      cmocka_unit_test(test_rxq_small_buffer_keeps_datagram),
      cmocka_unit_test(test_rxq_byte_ring_wraparound),
      cmocka_unit_test(test_rxq_peek_in_place_across_the_ring_end),
      cmocka_unit_test(test_rxq_no_allocation_per_datagram),
      cmocka_unit_test(test_rxq_memory_follows_contents),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

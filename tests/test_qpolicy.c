/* SPDX-License-Identifier: MIT */
/*
 * Send queue policies (lib/qpolicy.h): SIMPLE (bounded FIFO) and PRIO
 * (highest priority first, FIFO among equals, the lowest evicted when full),
 * as Linux's DCCP_SOCKOPT_QPOLICY_ID offers them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "qpolicy.h"

#include "countmem.h"

/* A datagram whose bytes all equal tag, of length len. */
static void make_dgram(uint8_t *buf, size_t len, uint8_t tag) {
  memset(buf, tag, len);
}

/* Pops the head and checks it is len bytes of tag with priority prio. */
static void expect_head(udccp_sendq *q, uint8_t tag, size_t len,
                        uint32_t prio) {
  const uint8_t *p;
  size_t l, i;
  uint32_t pr;

  assert_int_equal(udccp_sendq_peek(q, &p, &l, &pr), 0);
  assert_int_equal(l, len);
  assert_int_equal(pr, prio);
  for (i = 0; i < l; i++) {
    assert_int_equal(p[i], tag);
  }
  assert_int_equal(udccp_sendq_pop(q), 0);
}

static void test_qpolicy_init_rejects_bad_arguments(void **state) {
  udccp_sendq q;
  count_mem cm;

  (void)state;
  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_SIMPLE, 0, 100),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_sendq_init(&q, NULL, 7, 4, 100),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(
      udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_SIMPLE, 4, SIZE_MAX / 2),
      UDCCP_ERR_INVALID_ARGUMENT);
  count_mem_init(&cm);
  cm.fail = 1;
  /* init allocates nothing; the first push does, and fails cleanly. */
  assert_int_equal(udccp_sendq_init(&q, &cm.mem, UDCCP_QPOLICY_PRIO, 4, 100),
                   0);
  assert_int_equal(udccp_sendq_push(&q, "x", 1, 0), UDCCP_ERR_NOMEM);
  assert_int_equal(udccp_sendq_len(&q), 0);
  assert_int_equal(udccp_sendq_mem(&q), 0);
  udccp_sendq_free(&q);
  /* Operations on a failed queue are refused, not crashes. */
  assert_int_equal(udccp_sendq_push(&q, "x", 1, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_sendq_pop(&q), UDCCP_ERR_AGAIN);
}

static void test_qpolicy_simple_fifo_order_and_refusal_when_full(void **state) {
  udccp_sendq q;
  uint8_t buf[64];
  int i;

  (void)state;
  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_SIMPLE, 4, 64), 0);
  assert_int_equal(udccp_sendq_len(&q), 0);
  assert_int_equal(udccp_sendq_space(&q), 4);
  for (i = 0; i < 4; i++) {
    make_dgram(buf, (size_t)(10 + i), (uint8_t)i);
    /* Priorities must not reorder a SIMPLE queue. */
    assert_int_equal(udccp_sendq_push(&q, buf, (size_t)(10 + i),
                                      (uint32_t)(10 + i * 30)),
                     0);
  }
  assert_int_equal(udccp_sendq_len(&q), 4);
  assert_int_equal(udccp_sendq_space(&q), 0);
  make_dgram(buf, 5, 0xEE);
  assert_int_equal(udccp_sendq_push(&q, buf, 5, 1000), UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_sendq_push(&q, buf, 5, 0), UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_sendq_refused(&q), 2);
  assert_int_equal(udccp_sendq_evicted(&q), 0);
  /* Refusal under SIMPLE is back-pressure, not a drop. */
  assert_int_equal(udccp_sendq_drops(&q), 0);
  assert_int_equal(udccp_sendq_len(&q), 4);
  for (i = 0; i < 4; i++) {
    expect_head(&q, (uint8_t)i, (size_t)(10 + i), (uint32_t)(10 + i * 30));
  }
  assert_int_equal(udccp_sendq_pop(&q), UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_sendq_len(&q), 0);
  udccp_sendq_free(&q);
}

static void test_qpolicy_msgsize_rejected_for_both_policies(void **state) {
  udccp_sendq q;
  uint8_t buf[101];
  uint8_t pol;

  (void)state;
  memset(buf, 1, sizeof(buf));
  for (pol = UDCCP_QPOLICY_SIMPLE; pol <= UDCCP_QPOLICY_PRIO; pol++) {
    assert_int_equal(udccp_sendq_init(&q, NULL, pol, 2, 100), 0);
    assert_int_equal(udccp_sendq_push(&q, buf, 101, 5), UDCCP_ERR_MSGSIZE);
    assert_int_equal(udccp_sendq_push(&q, buf, 100, 5), 0);
    /* Zero-length datagrams are legal. */
    assert_int_equal(udccp_sendq_push(&q, NULL, 0, 5), 0);
    assert_int_equal(udccp_sendq_len(&q), 2);
    expect_head(&q, 1, 100, 5);
    expect_head(&q, 0, 0, 5);
    assert_int_equal(udccp_sendq_refused(&q), 0);
    udccp_sendq_free(&q);
  }
}

/* Many more datagrams than slots pass through, so the ring's head wraps
 * many times; a mirror FIFO says what must come out. */
static void test_qpolicy_simple_ring_wraparound(void **state) {
  udccp_sendq q;
  uint8_t buf[32];
  uint32_t next_in = 0, next_out = 0;
  int round;

  (void)state;
  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_SIMPLE, 5, 32), 0);
  for (round = 0; round < 200; round++) {
    int pushes = 1 + round % 4, pops = 1 + (round * 7) % 4, k;
    for (k = 0; k < pushes; k++) {
      int rc;
      make_dgram(buf, 1 + next_in % 32, (uint8_t)next_in);
      rc = udccp_sendq_push(&q, buf, 1 + next_in % 32, 0);
      if (next_in - next_out == 5) {
        assert_int_equal(rc, UDCCP_ERR_AGAIN);
      } else {
        assert_int_equal(rc, 0);
        next_in++;
      }
    }
    for (k = 0; k < pops && next_out < next_in; k++) {
      expect_head(&q, (uint8_t)next_out, 1 + next_out % 32, 0);
      next_out++;
    }
    assert_int_equal(udccp_sendq_len(&q), next_in - next_out);
  }
  assert_true(next_in > 50);
  udccp_sendq_free(&q);
}

static void test_qpolicy_prio_highest_first_fifo_among_equal(void **state) {
  udccp_sendq q;
  uint8_t buf[8];
  /* (tag, prio) in push order */
  static const uint32_t prios[] = {5, 1, 9, 5, 9, 1, 5, 0};
  /* expected pop order of tags: 9s (2,4), then 5s (0,3,6), 1s (1,5), 0 (7) */
  static const uint8_t expect[] = {2, 4, 0, 3, 6, 1, 5, 7};
  size_t i;

  (void)state;
  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_PRIO, 8, 8), 0);
  for (i = 0; i < 8; i++) {
    make_dgram(buf, 8, (uint8_t)i);
    assert_int_equal(udccp_sendq_push(&q, buf, 8, prios[i]), 0);
  }
  for (i = 0; i < 8; i++) {
    expect_head(&q, expect[i], 8, prios[expect[i]]);
  }
  assert_int_equal(udccp_sendq_evicted(&q), 0);
  udccp_sendq_free(&q);
}

static void test_qpolicy_prio_full_evicts_oldest_lowest(void **state) {
  udccp_sendq q;
  uint8_t buf[8];

  (void)state;
  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_PRIO, 4, 8), 0);
  make_dgram(buf, 8, 'a');
  assert_int_equal(udccp_sendq_push(&q, buf, 8, 3), 0);
  make_dgram(buf, 8, 'b');
  assert_int_equal(udccp_sendq_push(&q, buf, 8, 1), 0);
  make_dgram(buf, 8, 'c');
  assert_int_equal(udccp_sendq_push(&q, buf, 8, 1), 0);
  make_dgram(buf, 8, 'd');
  assert_int_equal(udccp_sendq_push(&q, buf, 8, 7), 0);
  assert_int_equal(udccp_sendq_space(&q), 0);

  /* Higher than the lowest (1): the oldest prio-1 datagram 'b' goes. */
  make_dgram(buf, 8, 'e');
  assert_int_equal(udccp_sendq_push(&q, buf, 8, 2), 0);
  assert_int_equal(udccp_sendq_evicted(&q), 1);
  assert_int_equal(udccp_sendq_len(&q), 4);

  /* Equal to the lowest queued (1, 'c'): refused, nothing evicted. */
  make_dgram(buf, 8, 'f');
  assert_int_equal(udccp_sendq_push(&q, buf, 8, 1), UDCCP_ERR_AGAIN);
  /* Lower than everything: refused. */
  assert_int_equal(udccp_sendq_push(&q, buf, 8, 0), UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_sendq_refused(&q), 2);
  assert_int_equal(udccp_sendq_evicted(&q), 1);
  assert_int_equal(udccp_sendq_drops(&q), 3);

  /* Now 'c' (1) goes for a 9. */
  make_dgram(buf, 8, 'g');
  assert_int_equal(udccp_sendq_push(&q, buf, 8, 9), 0);
  assert_int_equal(udccp_sendq_evicted(&q), 2);

  expect_head(&q, 'g', 8, 9);
  expect_head(&q, 'd', 8, 7);
  expect_head(&q, 'a', 8, 3);
  expect_head(&q, 'e', 8, 2);
  assert_int_equal(udccp_sendq_len(&q), 0);
  udccp_sendq_free(&q);
}

/* Random pushes and pops against a slow reference model. */
typedef struct model_ent {
  uint32_t prio;
  uint32_t id;
} model_ent;

static void test_qpolicy_prio_matches_reference_model(void **state) {
  udccp_sendq q;
  model_ent model[16];
  size_t n = 0;
  uint32_t rng = 12345, id = 0;
  uint64_t evicted = 0, refused = 0;
  uint8_t buf[4];
  int step;

  (void)state;
  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_PRIO, 16, 4), 0);
  for (step = 0; step < 5000; step++) {
    rng = rng * 1103515245u + 12345u;
    if ((rng >> 16) % 3 != 0) {
      uint32_t prio = (rng >> 8) % 6;
      int rc;
      memcpy(buf, &id, 4);
      rc = udccp_sendq_push(&q, buf, 4, prio);
      if (n == 16) {
        /* model: oldest of the lowest priority (lowest id among min) */
        size_t v = 0, i;
        for (i = 1; i < n; i++) {
          if (model[i].prio < model[v].prio ||
              (model[i].prio == model[v].prio && model[i].id < model[v].id)) {
            v = i;
          }
        }
        if (model[v].prio < prio) {
          assert_int_equal(rc, 0);
          model[v] = model[--n];
          evicted++;
        } else {
          assert_int_equal(rc, UDCCP_ERR_AGAIN);
          refused++;
          id++;
          continue;
        }
      } else {
        assert_int_equal(rc, 0);
      }
      model[n].prio = prio;
      model[n].id = id++;
      n++;
    } else if (n > 0) {
      /* model: oldest of the highest priority */
      size_t b = 0, i;
      const uint8_t *p;
      size_t len;
      uint32_t got_id, got_prio;
      for (i = 1; i < n; i++) {
        if (model[i].prio > model[b].prio ||
            (model[i].prio == model[b].prio && model[i].id < model[b].id)) {
          b = i;
        }
      }
      assert_int_equal(udccp_sendq_peek(&q, &p, &len, &got_prio), 0);
      assert_int_equal(len, 4);
      memcpy(&got_id, p, 4);
      assert_int_equal(got_id, model[b].id);
      assert_int_equal(got_prio, model[b].prio);
      assert_int_equal(udccp_sendq_pop(&q), 0);
      model[b] = model[--n];
    }
    assert_int_equal(udccp_sendq_len(&q), n);
  }
  assert_int_equal(udccp_sendq_evicted(&q), evicted);
  assert_int_equal(udccp_sendq_refused(&q), refused);
  assert_true(evicted > 0 && refused > 0);
  udccp_sendq_free(&q);
}

static void test_qpolicy_no_allocation_per_datagram(void **state) {
  udccp_sendq q;
  count_mem cm;
  uint8_t buf[50];
  int allocs, i;

  (void)state;
  count_mem_init(&cm);
  assert_int_equal(udccp_sendq_init(&q, &cm.mem, UDCCP_QPOLICY_PRIO, 8, 50), 0);
  allocs = 0;
  for (i = 0; i < 1000; i++) {
    make_dgram(buf, 50, (uint8_t)i);
    (void)udccp_sendq_push(&q, buf, (size_t)(i % 51), (uint32_t)(i % 7));
    if (i % 3 == 0) {
      (void)udccp_sendq_pop(&q);
    }
    if (i == 100) {
      allocs = cm.allocs; /* grown to qlen by now; never drains */
    }
  }
  assert_int_equal(cm.allocs, allocs);
  udccp_sendq_free(&q);
  assert_int_equal(cm.frees, cm.allocs);
}

/* RFC 4340 §14: the MPS changes under queued datagrams.  The limit moves
 * without allocating or moving anything (memory follows the bytes
 * queued, not the MPS); datagrams queued before a shrink stay, whole. */
static void test_qpolicy_resize_keeps_queued_datagrams(void **state) {
  udccp_sendq q;
  count_mem cm;
  uint8_t buf[1000];
  int allocs;

  (void)state;
  count_mem_init(&cm);
  assert_int_equal(udccp_sendq_init(&q, &cm.mem, UDCCP_QPOLICY_PRIO, 4, 100),
                   0);
  make_dgram(buf, 100, 'x');
  assert_int_equal(udccp_sendq_push(&q, buf, 100, 1), 0);
  make_dgram(buf, 60, 'y');
  assert_int_equal(udccp_sendq_push(&q, buf, 60, 2), 0);
  assert_int_equal(udccp_sendq_pop(&q), 0); /* 'y' out: a hole */
  make_dgram(buf, 70, 'z');
  assert_int_equal(udccp_sendq_push(&q, buf, 70, 0), 0);

  /* Growing the MPS allocates nothing; a larger datagram then finds room
   * (growing the arena once, the others kept). */
  allocs = cm.allocs;
  assert_int_equal(udccp_sendq_resize(&q, 300), 0);
  assert_int_equal(cm.allocs, allocs);
  make_dgram(buf, 300, 'w');
  assert_int_equal(udccp_sendq_push(&q, buf, 300, 1), 0);
  assert_true(cm.allocs <= allocs + 1);
  expect_head(&q, 'x', 100, 1);

  /* Shrinking only lowers the limit: 'w' (300) stays, whole. */
  allocs = cm.allocs;
  assert_int_equal(udccp_sendq_resize(&q, 50), 0);
  assert_int_equal(cm.allocs, allocs);
  assert_int_equal(udccp_sendq_push(&q, buf, 51, 1), UDCCP_ERR_MSGSIZE);
  make_dgram(buf, 50, 'v');
  assert_int_equal(udccp_sendq_push(&q, buf, 50, 1), 0);
  expect_head(&q, 'w', 300, 1);

  /* No memory: resize still succeeds (it allocates nothing); a push that
   * needs a larger arena fails, leaving the queue as it was. */
  cm.fail = 1;
  assert_int_equal(udccp_sendq_resize(&q, 1000), 0);
  make_dgram(buf, 1000, 'u');
  assert_int_equal(udccp_sendq_push(&q, buf, 1000, 9), UDCCP_ERR_NOMEM);
  assert_int_equal(udccp_sendq_len(&q), 2);
  cm.fail = 0;
  assert_int_equal(udccp_sendq_resize(&q, UDCCP_SENDQ_MAX_DGRAM + 1),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_sendq_push(&q, buf, 1000, 9), 0);
  expect_head(&q, 'u', 1000, 9);
  expect_head(&q, 'v', 50, 1);
  expect_head(&q, 'z', 70, 0);
  udccp_sendq_free(&q);
  assert_int_equal(cm.frees, cm.allocs);
}

/* Issue 13: memory for what is queued, given back once drained. */
static void test_qpolicy_memory_follows_contents(void **state) {
  udccp_sendq q;
  count_mem cm;
  uint8_t buf[100];
  size_t one;
  int i;

  (void)state;
  count_mem_init(&cm);
  assert_int_equal(udccp_sendq_init(&q, &cm.mem, UDCCP_QPOLICY_SIMPLE, 32, 1400),
                   0);
  assert_int_equal(cm.allocs, 0);
  make_dgram(buf, 100, 'a');
  assert_int_equal(udccp_sendq_push(&q, buf, 100, 0), 0);
  one = udccp_sendq_mem(&q);
  print_message("one datagram queued: %zu bytes held\n", one);
  assert_true(one > 0 && one < 2 * 1400);
  for (i = 1; i < 5; i++) {
    assert_int_equal(udccp_sendq_push(&q, buf, 100, 0), 0);
  }
  assert_true(udccp_sendq_mem(&q) <= 8 * one); /* 8 slots, not 32 */
  for (i = 0; i < 5; i++) {
    expect_head(&q, 'a', 100, 0);
  }
  assert_int_equal(udccp_sendq_mem(&q), 0);
  assert_int_equal(cm.frees, cm.allocs);
  udccp_sendq_free(&q);
}

/* Deadlines: expire drops exactly the datagrams whose time has come,
 * keeps the others in their order (both policies, across a wrapped ring),
 * and next_expiry tracks the earliest one left. */
static void test_qpolicy_expire_drops_only_the_expired(void **state) {
  (void)state;
  for (int pol = 0; pol < 2; pol++) {
    udccp_sendq q;
    uint8_t d[4];
    assert_int_equal(udccp_sendq_init(&q, NULL, (uint8_t)pol, 8, 4), 0);
    assert_int_equal(udccp_sendq_next_expiry(&q), UDCCP_TSTAMP_NEVER);
    /* wrap the ring: push 3, pop 3 */
    for (int i = 0; i < 3; i++) {
      make_dgram(d, 4, 0xEE);
      assert_int_equal(udccp_sendq_push(&q, d, 4, 0), 0);
    }
    /* keep one so the arena stays (pop emptying it releases memory) */
    for (int i = 0; i < 2; i++) {
      assert_int_equal(udccp_sendq_pop(&q), 0);
    }
    /* tags 1..6: odd ones expire at 100 + tag, even ones never */
    for (uint8_t t = 1; t <= 6; t++) {
      make_dgram(d, 4, t);
      udccp_tstamp e = (t & 1) ? (udccp_tstamp)(100 + t) : UDCCP_TSTAMP_NEVER;
      assert_int_equal(udccp_sendq_push_until(&q, d, 4, 5, e), 0);
    }
    assert_int_equal(udccp_sendq_next_expiry(&q), 101);
    assert_int_equal(udccp_sendq_expire(&q, 100), 0);
    assert_int_equal(udccp_sendq_len(&q), 7);
    assert_int_equal(udccp_sendq_expire(&q, 103), 2); /* tags 1 and 3 */
    assert_int_equal(udccp_sendq_expired(&q), 2);
    assert_int_equal(udccp_sendq_next_expiry(&q), 105);
    assert_int_equal(udccp_sendq_len(&q), 5);
    if (pol == UDCCP_QPOLICY_SIMPLE) {
      expect_head(&q, 0xEE, 4, 0);
    }
    expect_head(&q, 2, 4, 5);
    expect_head(&q, 4, 4, 5);
    expect_head(&q, 5, 4, 5);
    expect_head(&q, 6, 4, 5);
    if (pol == UDCCP_QPOLICY_PRIO) {
      expect_head(&q, 0xEE, 4, 0);
    }
    assert_int_equal(udccp_sendq_len(&q), 0);
    assert_int_equal(udccp_sendq_next_expiry(&q), UDCCP_TSTAMP_NEVER);
    /* all expired at once: the queue empties and frees its memory */
    for (uint8_t t = 1; t <= 8; t++) {
      make_dgram(d, 4, t);
      assert_int_equal(udccp_sendq_push_until(&q, d, 4, t, 50), 0);
    }
    assert_int_equal(udccp_sendq_expire(&q, 50), 8);
    assert_int_equal(udccp_sendq_len(&q), 0);
    assert_int_equal(udccp_sendq_mem(&q), 0);
    assert_int_equal(udccp_sendq_drops(&q), 10);
    udccp_sendq_free(&q);
  }
}

/* Zero-copy write (issue 13): a reserved slot is written in place and
 * queued by commit with the length, priority and deadline given; nothing
 * is queued before the commit; a commit without a reservation, a second
 * one, or one longer than reserved is refused. */
static void test_qpolicy_reserve_commit_queues_in_place(void **state) {
  udccp_sendq q;
  uint8_t *b = NULL, d[16];
  (void)state;
  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_SIMPLE, 3, 16), 0);
  assert_int_equal(udccp_sendq_commit(&q, 0), UDCCP_ERR_INVALID_STATE);
  assert_int_equal(udccp_sendq_reserve(&q, 17, 0, UDCCP_TSTAMP_NEVER, &b),
                   UDCCP_ERR_MSGSIZE);
  make_dgram(d, 4, 1);
  assert_int_equal(udccp_sendq_push(&q, d, 4, 0), 0);
  assert_int_equal(udccp_sendq_reserve(&q, 10, 7, 500, &b), 0);
  assert_non_null(b);
  make_dgram(b, 10, 2);
  assert_int_equal(udccp_sendq_len(&q), 1); /* not queued yet */
  assert_int_equal(udccp_sendq_commit(&q, 11), UDCCP_ERR_MSGSIZE);
  assert_int_equal(udccp_sendq_commit(&q, 6), 0);
  assert_int_equal(udccp_sendq_commit(&q, 6), UDCCP_ERR_INVALID_STATE);
  assert_int_equal(udccp_sendq_len(&q), 2);
  assert_int_equal(udccp_sendq_next_expiry(&q), 500);
  expect_head(&q, 1, 4, 0);
  expect_head(&q, 2, 6, 7);
  /* reserve, then push: the push takes the slot, the commit is refused
   * and the pushed datagram is intact */
  assert_int_equal(udccp_sendq_reserve(&q, 8, 0, UDCCP_TSTAMP_NEVER, &b), 0);
  make_dgram(b, 8, 3);
  make_dgram(d, 8, 4);
  assert_int_equal(udccp_sendq_push(&q, d, 8, 0), 0);
  assert_int_equal(udccp_sendq_commit(&q, 8), UDCCP_ERR_INVALID_STATE);
  expect_head(&q, 4, 8, 0);
  assert_int_equal(udccp_sendq_len(&q), 0);
  udccp_sendq_free(&q);
}

/* A reservation follows the queue's rules as a push does (SIMPLE: full is
 * refused and counted; PRIO: a better datagram evicts the oldest lowest
 * at reserve, a worse or equal one is refused), commits land in priority
 * order, and any change to the queue cancels the reservation: pop,
 * expiry, resize, trim. */
static void test_qpolicy_reserve_obeys_policy_and_is_cancelled(void **state) {
  udccp_sendq q;
  uint8_t *b = NULL, d[8];
  int i;
  (void)state;
  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_SIMPLE, 2, 8), 0);
  for (i = 0; i < 2; i++) {
    make_dgram(d, 8, (uint8_t)i);
    assert_int_equal(udccp_sendq_push(&q, d, 8, 0), 0);
  }
  assert_int_equal(udccp_sendq_reserve(&q, 8, 9, UDCCP_TSTAMP_NEVER, &b),
                   UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_sendq_refused(&q), 1);
  assert_int_equal(udccp_sendq_commit(&q, 8), UDCCP_ERR_INVALID_STATE);
  udccp_sendq_free(&q);

  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_PRIO, 3, 8), 0);
  for (i = 1; i <= 3; i++) {
    make_dgram(d, 8, (uint8_t)i);
    assert_int_equal(udccp_sendq_push(&q, d, 8, (uint32_t)i), 0);
  }
  assert_int_equal(udccp_sendq_reserve(&q, 8, 1, UDCCP_TSTAMP_NEVER, &b),
                   UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_sendq_evicted(&q), 0);
  assert_int_equal(udccp_sendq_reserve(&q, 8, 2, UDCCP_TSTAMP_NEVER, &b), 0);
  assert_int_equal(udccp_sendq_evicted(&q), 1); /* priority 1 went */
  make_dgram(b, 8, 0x22);
  assert_int_equal(udccp_sendq_commit(&q, 8), 0);
  expect_head(&q, 3, 8, 3);
  expect_head(&q, 2, 8, 2);
  expect_head(&q, 0x22, 8, 2); /* after the older one of its priority */
  udccp_sendq_free(&q);

  /* cancelled by a pop, an expiry, a resize, a trim */
  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_SIMPLE, 4, 8), 0);
  q.keep = 1;
  for (i = 0; i < 4; i++) {
    make_dgram(d, 8, 5);
    assert_int_equal(udccp_sendq_push_until(&q, d, 8, 0, 100), 0);
    assert_int_equal(udccp_sendq_reserve(&q, 8, 0, UDCCP_TSTAMP_NEVER, &b), 0);
    switch (i) {
    case 0: assert_int_equal(udccp_sendq_pop(&q), 0); break;
    case 1: assert_int_equal(udccp_sendq_expire(&q, 100), 1); break;
    case 2:
      assert_int_equal(udccp_sendq_pop(&q), 0);
      assert_int_equal(udccp_sendq_reserve(&q, 6, 0, UDCCP_TSTAMP_NEVER, &b),
                       0);
      assert_int_equal(udccp_sendq_trim(&q), 0);
      break;
    default: assert_int_equal(udccp_sendq_resize(&q, 6), 0); break;
    }
    assert_int_equal(udccp_sendq_commit(&q, 6), UDCCP_ERR_INVALID_STATE);
    while (udccp_sendq_len(&q) > 0) {
      assert_int_equal(udccp_sendq_pop(&q), 0);
    }
  }
  udccp_sendq_free(&q);
}

/* Issue 13, the socket runtime's zero-copy batch: under a hold a popped
 * datagram's bytes stay where they were, unchanged, until the release,
 * whatever is pushed meanwhile (the ring wrapping, the arena growing);
 * after the release the room is used again.  Random sizes, fixed seed;
 * under ASan a freed block would be caught too. */
static void test_qpolicy_hold_keeps_popped_bytes_until_release(void **state) {
  udccp_sendq q;
  uint8_t d[1500];
  const uint8_t *held_p[64];
  size_t held_len[64];
  uint8_t held_tag[64];
  uint32_t seed = 12345;
  uint8_t tag_in = 0, tag_out = 0;
  int round, nheld, i;
  (void)state;

  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_SIMPLE, 32, 1500),
                   0);
  q.keep = 1; /* as a busy connection's */
  for (round = 0; round < 400; round++) {
    /* fill up to the queue's length */
    while (udccp_sendq_space(&q) > 0) {
      size_t len;
      seed = seed * 1103515245u + 12345u;
      len = 1 + (seed >> 8) % 1400;
      make_dgram(d, len, tag_in);
      assert_int_equal(udccp_sendq_push(&q, d, len, 0), 0);
      tag_in++;
    }
    assert_int_equal(udccp_sendq_hold(&q), 0);
    /* a batch's worth popped, pushes in between (a send_more turn) */
    nheld = 0;
    seed = seed * 1103515245u + 12345u;
    for (i = 0; i < 48 && udccp_sendq_len(&q) > 0; i++) {
      const uint8_t *p;
      size_t len, k;
      assert_int_equal(udccp_sendq_peek(&q, &p, &len, NULL), 0);
      assert_int_equal(p[0], tag_out);
      held_p[nheld] = p;
      held_len[nheld] = len;
      held_tag[nheld++] = tag_out++;
      assert_int_equal(udccp_sendq_pop(&q), 0);
      if ((seed >> (i % 16)) & 1) {
        seed = seed * 1103515245u + 12345u;
        len = 1 + (seed >> 8) % 1400;
        make_dgram(d, len, tag_in);
        if (udccp_sendq_push(&q, d, len, 0) == 0) {
          tag_in++;
        }
      }
      if (i % 8 == 7) {
        (void)udccp_sendq_trim(&q); /* a timer: does nothing while held */
      }
      for (k = 0; k < (size_t)nheld; k++) {
        size_t b;
        for (b = 0; b < held_len[k]; b++) {
          assert_int_equal(held_p[k][b], held_tag[k]);
        }
      }
    }
    udccp_sendq_release(&q);
  }
  /* what is queued is still whole and in order */
  while (udccp_sendq_len(&q) > 0) {
    const uint8_t *p;
    size_t len;
    assert_int_equal(udccp_sendq_peek(&q, &p, &len, NULL), 0);
    assert_int_equal(p[0], tag_out);
    assert_int_equal(p[len - 1], tag_out);
    tag_out++;
    assert_int_equal(udccp_sendq_pop(&q), 0);
  }
  assert_int_equal(tag_out, tag_in);
  udccp_sendq_free(&q);
}

/* A clear (the connection closed) during a hold keeps the block until the
 * release; a drained queue under a hold keeps its bytes too; PRIO has no
 * hold. */
static void test_qpolicy_hold_survives_clear_and_drain(void **state) {
  udccp_sendq q;
  uint8_t d[600];
  const uint8_t *p, *p2;
  size_t len, b;
  (void)state;

  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_SIMPLE, 4, 600),
                   0);
  make_dgram(d, 600, 7);
  assert_int_equal(udccp_sendq_push(&q, d, 600, 0), 0);
  make_dgram(d, 600, 8);
  assert_int_equal(udccp_sendq_push(&q, d, 600, 0), 0);
  assert_int_equal(udccp_sendq_hold(&q), 0);
  assert_int_equal(udccp_sendq_peek(&q, &p, &len, NULL), 0);
  assert_int_equal(udccp_sendq_pop(&q), 0);
  udccp_sendq_clear(&q);
  assert_int_equal(udccp_sendq_len(&q), 0);
  for (b = 0; b < len; b++) {
    assert_int_equal(p[b], 7);
  }
  udccp_sendq_release(&q);
  assert_int_equal(udccp_sendq_mem(&q), 0); /* no keep: freed at release */

  /* the last datagram popped (keep 0): its bytes stay until release */
  make_dgram(d, 600, 9);
  assert_int_equal(udccp_sendq_push(&q, d, 600, 0), 0);
  assert_int_equal(udccp_sendq_hold(&q), 0);
  assert_int_equal(udccp_sendq_peek(&q, &p2, &len, NULL), 0);
  assert_int_equal(udccp_sendq_pop(&q), 0);
  make_dgram(d, 600, 10);
  assert_int_equal(udccp_sendq_push(&q, d, 600, 0), 0);
  for (b = 0; b < len; b++) {
    assert_int_equal(p2[b], 9);
  }
  udccp_sendq_release(&q);
  assert_int_equal(udccp_sendq_peek(&q, &p, &len, NULL), 0);
  assert_int_equal(p[0], 10);
  udccp_sendq_free(&q);

  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_PRIO, 4, 600), 0);
  assert_int_equal(udccp_sendq_hold(&q), UDCCP_ERR_INVALID_STATE);
  udccp_sendq_free(&q);
}

/* The two queues alike: their contents in order and the fields a pop
 * moves (not their blocks' addresses). */
static void sendq_same(const udccp_sendq *a, const udccp_sendq *b) {
  uint32_t i;
  assert_int_equal(a->slots == NULL, b->slots == NULL);
  assert_int_equal(a->count, b->count);
  assert_int_equal(a->head, b->head);
  assert_int_equal(a->n_free, b->n_free);
  assert_int_equal(a->size, b->size);
  assert_int_equal(a->tail, b->tail);
  assert_int_equal(a->lim, b->lim);
  assert_int_equal(a->omask, b->omask);
  assert_int_equal(a->resv, b->resv);
  assert_int_equal(a->hold, b->hold);
  assert_true(a->next_exp == b->next_exp);
  if (a->slots == NULL) {
    return;
  }
  for (i = 0; i < a->n_free; i++) {
    assert_int_equal(a->free_slots[i], b->free_slots[i]);
  }
  for (i = 0; i < a->count; i++) {
    const udccp_sendq_slot *x = &a->slots[a->order[(a->head + i) & a->omask]];
    const udccp_sendq_slot *y = &b->slots[b->order[(b->head + i) & b->omask]];
    assert_int_equal(a->order[(a->head + i) & a->omask],
                     b->order[(b->head + i) & b->omask]);
    assert_int_equal(x->off, y->off);
    assert_int_equal(x->len, y->len);
    assert_memory_equal(a->arena + x->off, b->arena + y->off, x->len);
  }
}

/* Issue 13: udccp_sendq_pop_inline (the connection's data path) leaves
 * the queue udccp_sendq_pop leaves: both policies, with and without keep
 * and a hold, queues filled, drained and wrapped at random.  Fails if the
 * inline pop takes a PRIO queue, a held one or one that must give its
 * block back, or leaves a drained queue's tail or expiry behind. */
static void test_qpolicy_pop_inline_matches_pop(void **state) {
  uint8_t buf[300];
  uint32_t lcg = 2718;
  unsigned round, pops = 0, drains = 0;
  (void)state;
  for (round = 0; round < 16; round++) {
    udccp_sendq a, b;
    uint8_t pol = (round & 1) ? UDCCP_QPOLICY_PRIO : UDCCP_QPOLICY_SIMPLE;
    int i;
    assert_int_equal(udccp_sendq_init(&a, NULL, pol, 8, 300), 0);
    assert_int_equal(udccp_sendq_init(&b, NULL, pol, 8, 300), 0);
    a.keep = b.keep = (uint8_t)((round >> 1) & 1);
    for (i = 0; i < 3000; i++) {
      lcg = lcg * 1103515245u + 12345u;
      if ((round & 4) && pol == UDCCP_QPOLICY_SIMPLE && (lcg >> 27) == 0) {
        if (a.hold) {
          udccp_sendq_release(&a);
          udccp_sendq_release(&b);
        } else if (a.slots != NULL) {
          assert_int_equal(udccp_sendq_hold(&a), udccp_sendq_hold(&b));
        }
      }
      if (((lcg >> 16) % 5) < 2) {
        size_t len = 1 + (lcg >> 8) % 300;
        uint32_t prio = (lcg >> 20) & 3;
        make_dgram(buf, len, (uint8_t)i);
        assert_int_equal(udccp_sendq_push(&a, buf, len, prio),
                         udccp_sendq_push(&b, buf, len, prio));
      } else if (a.count > 0) {
        if (a.count == 1) {
          drains++;
        }
        udccp_sendq_pop_inline(&a);
        assert_int_equal(udccp_sendq_pop(&b), 0);
        pops++;
      }
      sendq_same(&a, &b);
    }
    udccp_sendq_free(&a);
    udccp_sendq_free(&b);
  }
  printf("pops compared %u, of which drained the queue %u\n", pops, drains);
  assert_true(pops > 10000);
  assert_true(drains > 500);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_qpolicy_init_rejects_bad_arguments),
      cmocka_unit_test(test_qpolicy_hold_keeps_popped_bytes_until_release),
      cmocka_unit_test(test_qpolicy_hold_survives_clear_and_drain),
      cmocka_unit_test(test_qpolicy_reserve_commit_queues_in_place),
      cmocka_unit_test(test_qpolicy_reserve_obeys_policy_and_is_cancelled),
      cmocka_unit_test(test_qpolicy_expire_drops_only_the_expired),
      cmocka_unit_test(test_qpolicy_memory_follows_contents),
      cmocka_unit_test(test_qpolicy_simple_fifo_order_and_refusal_when_full),
      cmocka_unit_test(test_qpolicy_msgsize_rejected_for_both_policies),
      cmocka_unit_test(test_qpolicy_simple_ring_wraparound),
      cmocka_unit_test(test_qpolicy_prio_highest_first_fifo_among_equal),
      cmocka_unit_test(test_qpolicy_prio_full_evicts_oldest_lowest),
      cmocka_unit_test(test_qpolicy_prio_matches_reference_model),
      cmocka_unit_test(test_qpolicy_no_allocation_per_datagram),
      cmocka_unit_test(test_qpolicy_resize_keeps_queued_datagrams),
      cmocka_unit_test(test_qpolicy_pop_inline_matches_pop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

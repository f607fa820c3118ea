/* SPDX-License-Identifier: MIT */
/*
 * The send queue's memory (lib/qpolicy.h, issue 13): what it holds
 * follows the bytes queued, not tx_qlen x MPS (65,443 B over loopback),
 * grows with use and shrinks back; holes left by out-of-order removals
 * (PRIO, expiry) are reused without allocating in steady state; every
 * contract of the queue holds meanwhile, checked against a simple model
 * under random operations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "pair.h"
#include "qpolicy.h"

#include "countmem.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS
#define LOOPBACK_MPS 65443u /* PMTU 65,536 - IPv4 - UDP - DCCP - options */
#define QLEN 32u            /* udccp_settings.tx_qlen's default */
#define DGRAM 1408u         /* udccp-perf's default datagram */
/* Bookkeeping a queue may hold beside its datagrams' bytes: 40 bytes per
 * slot (32 slots) plus rounding, and the 8-byte rounding of each. */
#define FIXED 2048u

/* Datagram id's bytes: a window into a fixed pseudo-random table, at an
 * offset that names id (copies and compares run at memcpy speed). */
#define PAT_IDS 4093u
static uint8_t pat_tab[LOOPBACK_MPS + 16 + PAT_IDS];

static const uint8_t *pat(uint32_t id) {
  if (pat_tab[1] == 0) {
    uint32_t x = 2463534242u;
    size_t k;
    for (k = 0; k < sizeof(pat_tab); k++) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      pat_tab[k] = (uint8_t)(x >> 24);
    }
    pat_tab[1] |= 1;
  }
  return pat_tab + id % PAT_IDS;
}

static void fill(uint8_t *b, uint32_t id, size_t len) {
  memcpy(b, pat(id), len);
}

static int same(const uint8_t *b, uint32_t id, size_t len) {
  return memcmp(b, pat(id), len) == 0;
}

/* Pops the head: it must be datagram id of len bytes. */
static void expect_pop(udccp_sendq *q, uint32_t id, size_t len) {
  const uint8_t *p;
  size_t l;
  assert_int_equal(udccp_sendq_peek(q, &p, &l, NULL), 0);
  assert_int_equal(l, len);
  assert_true(same(p, id, len));
  assert_int_equal(udccp_sendq_pop(q), 0);
}

/* 32 queued 1,408-byte datagrams under a 65,443-byte MPS: the queue holds
 * about twice their bytes (one slot per MPS held 2 MiB), under both
 * policies, copied or written in place; emptied, it holds nothing (or,
 * kept for a busy connection, nothing once trimmed). */
static void test_sendq_mem_follows_bytes_not_mps(void **state) {
  uint8_t buf[DGRAM];
  int pol, zc;
  (void)state;
  for (pol = 0; pol < 2; pol++) {
    for (zc = 0; zc < 2; zc++) {
      udccp_sendq q;
      count_mem cm;
      size_t held, queued = (size_t)QLEN * DGRAM;
      uint32_t i;
      count_mem_init(&cm);
      assert_int_equal(udccp_sendq_init(&q, &cm.mem, (uint8_t)pol, QLEN,
                                        LOOPBACK_MPS),
                       0);
      q.keep = (uint8_t)zc; /* both ways of giving memory back */
      for (i = 0; i < QLEN; i++) {
        if (zc) {
          uint8_t *d;
          assert_int_equal(
              udccp_sendq_reserve(&q, DGRAM, 1, UDCCP_TSTAMP_NEVER, &d), 0);
          fill(d, i, DGRAM);
          assert_int_equal(udccp_sendq_commit(&q, DGRAM), 0);
        } else {
          fill(buf, i, DGRAM);
          assert_int_equal(udccp_sendq_push(&q, buf, DGRAM, 1), 0);
        }
      }
      held = udccp_sendq_mem(&q);
      print_message("%s %s: %u x %u B queued (%zu B) under MPS %u: %zu B "
                    "held (%lld B allocated), %.2f x\n",
                    pol ? "PRIO" : "SIMPLE", zc ? "reserve" : "push", QLEN,
                    DGRAM, queued, LOOPBACK_MPS, held, cm.bytes,
                    (double)held / (double)queued);
      assert_true(held <= 4 * queued + FIXED);
      assert_true(cm.bytes <= (long long)(4 * queued + FIXED));
      for (i = 0; i < QLEN; i++) {
        expect_pop(&q, i, DGRAM);
      }
      if (zc) {
        assert_true(udccp_sendq_mem(&q) > 0); /* kept: busy */
        assert_int_equal(udccp_sendq_trim(&q), 0);
      }
      assert_int_equal(udccp_sendq_mem(&q), 0);
      assert_int_equal(cm.bytes, 0);
      udccp_sendq_free(&q);
      assert_int_equal(cm.allocs, cm.frees);
    }
  }
}

/* The zero-copy habit of reserving the MPS and committing what was
 * written: the room not used is the next datagram's, so the queue holds
 * its bytes plus room for one reservation, not a slot per MPS. */
static void test_sendq_mem_reserve_mps_commit_less(void **state) {
  udccp_sendq q;
  count_mem cm;
  size_t held, queued = (size_t)QLEN * DGRAM;
  uint32_t i;
  (void)state;
  count_mem_init(&cm);
  assert_int_equal(udccp_sendq_init(&q, &cm.mem, UDCCP_QPOLICY_SIMPLE, QLEN,
                                    LOOPBACK_MPS),
                   0);
  for (i = 0; i < QLEN; i++) {
    uint8_t *d;
    assert_int_equal(
        udccp_sendq_reserve(&q, LOOPBACK_MPS, 0, UDCCP_TSTAMP_NEVER, &d), 0);
    fill(d, i, DGRAM);
    assert_int_equal(udccp_sendq_commit(&q, DGRAM), 0);
  }
  held = udccp_sendq_mem(&q);
  print_message("reserve %u, commit %u, x %u: %zu B held\n", LOOPBACK_MPS,
                DGRAM, QLEN, held);
  assert_true(held <= 4 * queued + 2 * (LOOPBACK_MPS + 8) + FIXED);
  /* A reservation abandoned costs nothing: the next datagram takes its
   * room (a full queue refuses it here, so pop one first). */
  expect_pop(&q, 0, DGRAM);
  for (i = 0; i < 100; i++) {
    uint8_t *d;
    assert_int_equal(
        udccp_sendq_reserve(&q, LOOPBACK_MPS, 0, UDCCP_TSTAMP_NEVER, &d), 0);
    memset(d, 0xab, 64);
  }
  assert_true(udccp_sendq_mem(&q) <= held + 2 * (LOOPBACK_MPS + 8));
  assert_int_equal(udccp_sendq_len(&q), QLEN - 1);
  for (i = 1; i < QLEN; i++) {
    expect_pop(&q, i, DGRAM);
  }
  udccp_sendq_free(&q);
  assert_int_equal(cm.allocs, cm.frees);
}

/* Shrinking back: a queue that was deep with large datagrams and now
 * holds one small one gives the memory back at the next trim (a busy
 * connection trims every UDCCP_CONN_TRIM_AFTER), and nothing once empty. */
static void test_sendq_mem_trim_shrinks_back(void **state) {
  udccp_sendq q;
  count_mem cm;
  static uint8_t buf[16384];
  size_t deep, after;
  uint32_t i;
  (void)state;
  count_mem_init(&cm);
  assert_int_equal(udccp_sendq_init(&q, &cm.mem, UDCCP_QPOLICY_PRIO, QLEN,
                                    LOOPBACK_MPS),
                   0);
  q.keep = 1;
  for (i = 0; i < QLEN; i++) {
    size_t len = i == QLEN - 1 ? 100 : sizeof(buf);
    fill(buf, i, len);
    /* the small one last in arrival, first in priority order is not
     * wanted: make it the lowest, so it is the one left */
    assert_int_equal(udccp_sendq_push(&q, buf, len, i == QLEN - 1 ? 0 : 5),
                     0);
  }
  deep = udccp_sendq_mem(&q);
  for (i = 0; i < QLEN - 1; i++) {
    expect_pop(&q, i, sizeof(buf));
  }
  assert_int_equal(udccp_sendq_mem(&q), deep); /* nothing moves per pop */
  assert_int_equal(udccp_sendq_trim(&q), 1);
  after = udccp_sendq_mem(&q);
  print_message("32 x 16 KiB: %zu B; one 100-byte datagram left, trimmed: "
                "%zu B\n", deep, after);
  assert_true(deep >= (size_t)(QLEN - 1) * sizeof(buf));
  assert_true(after <= 4096);
  /* trimming again changes nothing (no allocation) */
  i = (uint32_t)cm.allocs;
  assert_int_equal(udccp_sendq_trim(&q), 1);
  assert_int_equal(cm.allocs, (int)i);
  expect_pop(&q, QLEN - 1, 100);
  assert_int_equal(udccp_sendq_trim(&q), 0);
  assert_int_equal(udccp_sendq_mem(&q), 0);
  assert_int_equal(cm.bytes, 0);
  udccp_sendq_free(&q);
}

/* A busy FIFO at a steady depth, with mixed sizes up to a large MPS: no
 * allocation once grown, memory within twice the most queued. */
static void test_sendq_mem_fifo_steady_state_no_allocation(void **state) {
  udccp_sendq q;
  count_mem cm;
  static uint8_t buf[9000];
  uint32_t in = 0, out = 0, step, lens[QLEN];
  size_t most = 0, bytes = 0;
  int allocs = -1;
  (void)state;
  count_mem_init(&cm);
  assert_int_equal(udccp_sendq_init(&q, &cm.mem, UDCCP_QPOLICY_SIMPLE, QLEN,
                                    LOOPBACK_MPS),
                   0);
  q.keep = 1;
  for (step = 0; step < 20000; step++) {
    /* depth between 24 and 32 */
    if (in - out < 24 || (in - out < QLEN && (step * 7919u) % 3 != 0)) {
      uint32_t len = (in * 2654435761u) % 9000u;
      fill(buf, in, len);
      assert_int_equal(udccp_sendq_push(&q, buf, len, 0), 0);
      lens[in % QLEN] = len;
      bytes += (len | 7u) + 1u;
      in++;
    } else {
      uint32_t len = lens[out % QLEN];
      expect_pop(&q, out, len);
      bytes -= (len | 7u) + 1u;
      out++;
    }
    if (bytes > most) {
      most = bytes;
    }
    if (step == 2000) {
      allocs = cm.allocs;
    }
  }
  print_message("FIFO, 24-32 datagrams of 0-9,000 B: %zu B held for at most "
                "%zu B queued; %d allocations, none after warm-up\n",
                udccp_sendq_mem(&q), most, cm.allocs);
  assert_int_equal(cm.allocs, allocs);
  assert_true(udccp_sendq_mem(&q) <= 2 * (most + 9008) + FIXED);
  udccp_sendq_free(&q);
  assert_int_equal(cm.frees, cm.allocs);
}

/* PRIO removes out of arrival order: a low-priority datagram pinned at
 * the arena's start while thousands of better ones of mixed sizes pass
 * leaves holes behind it; they are reused (compaction in place), with no
 * allocation per datagram, every byte intact. */
static void test_sendq_mem_prio_out_of_order_mixed_sizes(void **state) {
  udccp_sendq q;
  count_mem cm;
  static uint8_t buf[5000];
  uint32_t id, pinned_off, moves = 0;
  uint64_t pushed = 0;
  int allocs = -1;
  (void)state;
  count_mem_init(&cm);
  assert_int_equal(udccp_sendq_init(&q, &cm.mem, UDCCP_QPOLICY_PRIO, 8,
                                    LOOPBACK_MPS),
                   0);
  q.keep = 1;
  /* the pinned one, behind a better one that leaves first: a hole before
   * it from the start */
  fill(buf, 5000, 2000);
  assert_int_equal(udccp_sendq_push(&q, buf, 2000, 9), 0);
  fill(buf, 0, 3000);
  assert_int_equal(udccp_sendq_push(&q, buf, 3000, 0), 0); /* pinned */
  expect_pop(&q, 5000, 2000);
  pinned_off = q.slots[q.order[q.head]].off;
  assert_true(pinned_off > 0);
  for (id = 1; id < 5000; id++) {
    /* sizes 0 .. 4,999; priorities 1 .. 4: removals far from arrival
     * order (the best first) */
    uint32_t len = (id * 2654435761u) % 5000u, prio = 1 + id % 4;
    const uint8_t *p;
    size_t l;
    uint32_t pr, s, i;
    fill(buf, id, len);
    assert_int_equal(udccp_sendq_push(&q, buf, len, prio), 0);
    if (udccp_sendq_len(&q) == 7) {
      /* send the best four */
      for (i = 0; i < 4; i++) {
        assert_int_equal(udccp_sendq_peek(&q, &p, &l, &pr), 0);
        assert_true(pr >= 1);
        assert_int_equal(udccp_sendq_pop(&q), 0);
      }
    }
    /* the pinned one, at the order's end, intact wherever it lies */
    s = q.order[(q.head + q.count - 1) & q.omask];
    assert_int_equal(q.slots[s].prio, 0);
    assert_int_equal(q.slots[s].len, 3000);
    assert_true(same(q.arena + q.slots[s].off, 0, 3000));
    if (q.slots[s].off != pinned_off) {
      moves++;
      pinned_off = q.slots[s].off;
    }
    pushed += (len | 7u) + 1u;
    if (id == 1000) {
      allocs = cm.allocs;
      pushed = 0;
    }
  }
  print_message("PRIO, 8 slots, a pinned datagram: moved %u times, %zu B "
                "held, %d allocations, %llu B pushed after warm-up through "
                "a %u-byte arena\n",
                moves, udccp_sendq_mem(&q), cm.allocs,
                (unsigned long long)pushed, q.size);
  /* holes were reclaimed in place (it moved down to 0), not grown over:
   * the arena was filled many times over with no allocation */
  assert_true(moves >= 1);
  assert_int_equal(q.slots[q.order[(q.head + q.count - 1) & q.omask]].off, 0);
  assert_true(pushed > 20 * (uint64_t)q.size);
  /* growth only when the bytes queued reach a new high, never per packet:
   * 4,000 datagrams after warm-up */
  assert_true(cm.allocs - allocs <= 2);
  assert_true(udccp_sendq_mem(&q) <= 2 * 8 * 5008 + FIXED);
  udccp_sendq_free(&q);
  assert_int_equal(cm.frees, cm.allocs);
}

/* Holes in a wrapped ring: the oldest datagram O in the arena's upper
 * part, a newer one L1 wrapped to offset 0, and a hole behind O (H1 sent
 * first under PRIO, or expired under SIMPLE).  A datagram that finds no
 * run long enough, while everything fits in half the arena, compacts in
 * place: L1 stays at 0, O moves up against the arena's end, and the new
 * one goes between, with no allocation and every byte intact.  (u: an
 * eighth of the arena; a datagram of k u - 8 bytes takes k u.) */
static void test_sendq_mem_compaction_in_wrapped_ring(void **state) {
  static uint8_t buf[8192];
  int pol;
  (void)state;
  for (pol = 0; pol < 2; pol++) {
    const uint32_t u = 1024;
    udccp_sendq q;
    count_mem cm;
    uint32_t i, s_o;
    int allocs, prio_pol = pol == UDCCP_QPOLICY_PRIO;
    count_mem_init(&cm);
    assert_int_equal(
        udccp_sendq_init(&q, &cm.mem, (uint8_t)pol, 8, LOOPBACK_MPS), 0);
    q.keep = 1;
    /* four slots, then an arena of 8 u (twice a 4 u datagram), empty */
    for (i = 0; i < 4; i++) {
      assert_int_equal(udccp_sendq_push(&q, buf, 8, 0), 0);
    }
    for (i = 0; i < 4; i++) {
      assert_int_equal(udccp_sendq_pop(&q), 0);
    }
    fill(buf, 99, 4 * u - 8);
    assert_int_equal(udccp_sendq_push(&q, buf, 4 * u - 8, 0), 0);
    expect_pop(&q, 99, 4 * u - 8);
    assert_int_equal(q.size, 8 * u);
    allocs = cm.allocs;
    /* F1 [0, 2u), O [2u, 3u), H1 [3u, 7.5u) */
    fill(buf, 1, 2 * u - 8);
    assert_int_equal(udccp_sendq_push_until(&q, buf, 2 * u - 8, 9, 100), 0);
    fill(buf, 2, u - 8);
    assert_int_equal(udccp_sendq_push(&q, buf, u - 8, 0), 0); /* O */
    if (prio_pol) {
      expect_pop(&q, 1, 2 * u - 8); /* F1, the best, goes first */
    } else {
      assert_int_equal(udccp_sendq_expire(&q, 100), 1); /* F1 expires */
    }
    fill(buf, 3, 4 * u + u / 2 - 8);
    assert_int_equal(
        udccp_sendq_push_until(&q, buf, 4 * u + u / 2 - 8, 9, 200), 0);
    /* L1: no room before the end (u / 2): wraps to 0 */
    fill(buf, 4, u - 8);
    assert_int_equal(udccp_sendq_push(&q, buf, u - 8, 5), 0);
    s_o = UINT32_MAX;
    for (i = 0; i < q.count; i++) {
      uint32_t s = q.order[(q.head + i) & q.omask];
      if (q.slots[s].len == u - 8 && q.slots[s].off == 0) {
        continue; /* L1 */
      }
      if (q.slots[s].len == u - 8) {
        s_o = s;
      }
    }
    assert_true(s_o != UINT32_MAX);
    assert_int_equal(q.slots[s_o].off, 2 * u);
    /* H1 leaves: a hole [3u, 7.5u) behind O */
    if (prio_pol) {
      expect_pop(&q, 3, 4 * u + u / 2 - 8);
    } else {
      assert_int_equal(udccp_sendq_expire(&q, 200), 1);
    }
    /* L2 (2u) finds [u, 2u) only; O and L1 and L2 fill half: compaction */
    fill(buf, 5, 2 * u - 8);
    assert_int_equal(udccp_sendq_push(&q, buf, 2 * u - 8, 5), 0);
    assert_int_equal(cm.allocs, allocs);
    assert_int_equal(q.size, 8 * u);
    assert_int_equal(q.slots[s_o].off, 7 * u); /* up against the end */
    if (prio_pol) {
      expect_pop(&q, 4, u - 8);
      expect_pop(&q, 5, 2 * u - 8);
      expect_pop(&q, 2, u - 8);
    } else {
      expect_pop(&q, 2, u - 8);
      expect_pop(&q, 4, u - 8);
      expect_pop(&q, 5, 2 * u - 8);
    }
    assert_int_equal(udccp_sendq_len(&q), 0);
    udccp_sendq_free(&q);
    assert_int_equal(cm.allocs, cm.frees);
  }
}

/* RFC 4340 §14: the MPS shrinks under queued datagrams of mixed sizes in
 * a wrapped ring: they all stay, whole, in order; new ones above the
 * limit are refused; growing it again takes large ones at once. */
static void test_sendq_mem_mps_shrink_keeps_queued(void **state) {
  udccp_sendq q;
  static uint8_t buf[LOOPBACK_MPS];
  static const uint32_t lens[] = {9000, 1408, 0, 60000, 1, 5000, 1408, 8};
  uint32_t i;
  (void)state;
  assert_int_equal(udccp_sendq_init(&q, NULL, UDCCP_QPOLICY_SIMPLE, 8,
                                    LOOPBACK_MPS),
                   0);
  q.keep = 1;
  /* go round the ring once, so that the queued ones wrap */
  for (i = 0; i < 4; i++) {
    fill(buf, 100 + i, lens[i]);
    assert_int_equal(udccp_sendq_push(&q, buf, lens[i], 0), 0);
  }
  for (i = 0; i < 3; i++) {
    expect_pop(&q, 100 + i, lens[i]);
  }
  for (i = 0; i < 7; i++) {
    fill(buf, i, lens[i]);
    assert_int_equal(udccp_sendq_push(&q, buf, lens[i], 0), 0);
  }
  assert_int_equal(udccp_sendq_resize(&q, 1400), 0);
  fill(buf, 7, 1401);
  assert_int_equal(udccp_sendq_push(&q, buf, 1401, 0), UDCCP_ERR_MSGSIZE);
  assert_int_equal(udccp_sendq_push(&q, buf, 1400, 0), UDCCP_ERR_AGAIN);
  expect_pop(&q, 103, lens[3]);
  fill(buf, 7, 1400);
  assert_int_equal(udccp_sendq_push(&q, buf, 1400, 0), 0);
  for (i = 0; i < 7; i++) {
    expect_pop(&q, i, lens[i]);
  }
  expect_pop(&q, 7, 1400);
  assert_int_equal(udccp_sendq_resize(&q, LOOPBACK_MPS), 0);
  fill(buf, 9, LOOPBACK_MPS);
  assert_int_equal(udccp_sendq_push(&q, buf, LOOPBACK_MPS, 0), 0);
  expect_pop(&q, 9, LOOPBACK_MPS);
  udccp_sendq_free(&q);
}

/* ---- random operations against a model ---- */

typedef struct mdl_ent {
  uint32_t id, len, prio;
  udccp_tstamp exp;
} mdl_ent;

typedef struct mdl {
  mdl_ent e[64];    /* arrival order */
  uint32_t n;
  uint64_t evicted, refused, expired;
  int resv;         /* a reservation is held */
  uint32_t resv_len, resv_prio, resv_id;
  udccp_tstamp resv_exp;
  uint64_t peak;    /* most bytes + a new datagram's room since the queue
                       last held no block */
} mdl;

static uint64_t mdl_bytes(const mdl *m) {
  uint64_t b = 0;
  uint32_t i;
  for (i = 0; i < m->n; i++) {
    b += (m->e[i].len | 7u) + 1u;
  }
  return b;
}

/* Index of the datagram sent next. */
static uint32_t mdl_head(const mdl *m, uint8_t pol) {
  uint32_t i, b = 0;
  if (pol == UDCCP_QPOLICY_SIMPLE) {
    return 0;
  }
  for (i = 1; i < m->n; i++) {
    if (m->e[i].prio > m->e[b].prio) {
      b = i;
    }
  }
  return b;
}

static void mdl_remove(mdl *m, uint32_t i) {
  memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(m->e[0]));
  m->n--;
}

/* The queue's judgment of a datagram of len bytes, priority prio:
 * MSGSIZE, AGAIN (refused: counted), or 0 after evicting if needed. */
static int mdl_admit(mdl *m, uint8_t pol, uint32_t qlen, uint32_t max,
                     uint32_t len, uint32_t prio) {
  if (len > max) {
    return UDCCP_ERR_MSGSIZE;
  }
  if (m->n == qlen) {
    uint32_t i, v = 0;
    if (pol == UDCCP_QPOLICY_SIMPLE) {
      m->refused++;
      return UDCCP_ERR_AGAIN;
    }
    for (i = 1; i < m->n; i++) {
      if (m->e[i].prio < m->e[v].prio) {
        v = i;
      }
    }
    if (m->e[v].prio >= prio) {
      m->refused++;
      return UDCCP_ERR_AGAIN;
    }
    mdl_remove(m, v);
    m->evicted++;
  }
  return 0;
}

/* Everything the model says about q, and the queue's own invariants: no
 * two queued datagrams overlapping, all inside the arena, the memory
 * bounds; with full, each queued datagram's bytes (the head's always). */
static void check(const udccp_sendq *q, const mdl *m, uint8_t pol,
                  uint32_t qlen, int full) {
  uint32_t i, j;
  assert_int_equal(udccp_sendq_len(q), m->n);
  assert_int_equal(udccp_sendq_space(q), qlen - m->n);
  assert_int_equal(udccp_sendq_evicted(q), m->evicted);
  assert_int_equal(udccp_sendq_refused(q), m->refused);
  assert_int_equal(udccp_sendq_expired(q), m->expired);
  if (m->n > 0) {
    const uint8_t *p;
    size_t l;
    uint32_t pr, h = mdl_head(m, pol);
    assert_int_equal(udccp_sendq_peek(q, &p, &l, &pr), 0);
    assert_int_equal(l, m->e[h].len);
    assert_int_equal(pr, m->e[h].prio);
    assert_true(same(p, m->e[h].id, l));
  }
  for (i = 0; i < q->count; i++) {
    const udccp_sendq_slot *a = &q->slots[q->order[(q->head + i) & q->omask]];
    uint32_t k;
    /* find it in the model: length, priority, expiry and content */
    for (k = 0; full && k < m->n; k++) {
      if (m->e[k].len == a->len && m->e[k].prio == a->prio &&
          m->e[k].exp == a->expires &&
          same(q->arena + a->off, m->e[k].id, a->len)) {
        break;
      }
    }
    assert_true(!full || k < m->n);
    assert_true((uint64_t)a->off + ((a->len | 7u) + 1u) <= q->size);
    for (j = i + 1; full && j < q->count; j++) {
      const udccp_sendq_slot *b =
          &q->slots[q->order[(q->head + j) & q->omask]];
      assert_true(a->off + ((a->len | 7u) + 1u) <= b->off ||
                  b->off + ((b->len | 7u) + 1u) <= a->off);
    }
  }
  /* memory: at most twice the most it had to hold (2 KiB at least after a
   * trim), bookkeeping within the first power of two >= qlen */
  if (q->slots != NULL) {
    uint64_t bound = 2 * m->peak > 2048 ? 2 * m->peak : 2048;
    assert_true(q->size <= bound);
    assert_true((uint64_t)q->omask + 1 < 2 * (uint64_t)qlen);
  } else {
    assert_int_equal(udccp_sendq_mem(q), 0);
  }
}

static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* A length: mostly small, sometimes around the limit or above it. */
static uint32_t rnd_len(uint64_t *r, uint32_t max) {
  switch (rnd(r) % 8) {
  case 0: return 0;
  case 1: return (uint32_t)(rnd(r) % 9);
  case 2: return max;
  case 3: return max + 1 + (uint32_t)(rnd(r) % 3);
  case 4: return (uint32_t)(rnd(r) % (max + 1));
  default: return (uint32_t)(rnd(r) % (max / 4 + 1));
  }
}

static void run_model(uint64_t seed, uint64_t *ops_done) {
  static uint8_t buf[70000];
  udccp_sendq q;
  count_mem cm;
  mdl m;
  uint64_t r = seed * 0x9E3779B97F4A7C15ull + 1;
  uint8_t pol = (uint8_t)(rnd(&r) % 2);
  uint32_t qlen = 1 + (uint32_t)(rnd(&r) % 40);
  uint32_t max = 1 + (uint32_t)(rnd(&r) % 3000), next_id = 1;
  udccp_tstamp now = 1000;
  int step;

  if (rnd(&r) % 4 == 0) {
    max = LOOPBACK_MPS;
  }
  memset(&m, 0, sizeof(m));
  count_mem_init(&cm);
  assert_int_equal(udccp_sendq_init(&q, &cm.mem, pol, qlen, max), 0);
  q.keep = (uint8_t)(rnd(&r) % 2);
  for (step = 0; step < 1500; step++) {
    uint32_t op = (uint32_t)(rnd(&r) % 100), len, prio;
    udccp_tstamp exp;
    int rv, want, fail = rnd(&r) % 16 == 0;

    if (q.slots == NULL) {
      m.peak = 0;
    }
    len = rnd_len(&r, max);
    prio = (uint32_t)(rnd(&r) % 5);
    exp = rnd(&r) % 3 ? UDCCP_TSTAMP_NEVER : now + rnd(&r) % 50;
    cm.fail = fail;
    if (op < 35) { /* push */
      fill(buf, next_id, len <= LOOPBACK_MPS + 16 ? len : 0);
      rv = udccp_sendq_push_until(&q, buf, len, prio, exp);
      want = mdl_admit(&m, pol, qlen, max, len, prio);
      if (want == 0 && rv == UDCCP_ERR_NOMEM) {
        assert_true(fail);
      } else {
        assert_int_equal(rv, want);
      }
      if (rv == 0) {
        uint64_t need = mdl_bytes(&m) + ((len | 7u) + 1u);
        if (need > m.peak) {
          m.peak = need;
        }
        m.e[m.n].id = next_id++;
        m.e[m.n].len = len;
        m.e[m.n].prio = prio;
        m.e[m.n].exp = exp;
        m.n++;
      }
      if (rv == 0 || rv == UDCCP_ERR_NOMEM) {
        m.resv = 0; /* a refused datagram changes nothing */
      }
    } else if (op < 55) { /* reserve, then write and commit or abandon */
      uint8_t *d = NULL;
      rv = udccp_sendq_reserve(&q, len, prio, exp, &d);
      want = mdl_admit(&m, pol, qlen, max, len, prio);
      if (want == 0 && rv == UDCCP_ERR_NOMEM) {
        assert_true(fail);
        m.resv = 0;
      } else {
        assert_int_equal(rv, want); /* refused: the old one stays */
      }
      if (rv == 0) {
        uint64_t need = mdl_bytes(&m) + ((len | 7u) + 1u);
        assert_non_null(d);
        assert_int_equal((uintptr_t)d % 8, 0);
        if (need > m.peak) {
          m.peak = need;
        }
        fill(d, next_id, len);
        m.resv = 1;
        m.resv_len = len;
        m.resv_prio = prio;
        m.resv_exp = exp;
        m.resv_id = next_id++;
        if (rnd(&r) % 4 != 0) {
          uint32_t clen = (uint32_t)(rnd(&r) % (len + 2));
          rv = udccp_sendq_commit(&q, clen);
          if (clen > len) {
            assert_int_equal(rv, UDCCP_ERR_MSGSIZE); /* and it stays */
            clen = len;
            assert_int_equal(udccp_sendq_commit(&q, clen), 0);
          } else {
            assert_int_equal(rv, 0);
          }
          m.e[m.n].id = m.resv_id;
          m.e[m.n].len = clen;
          m.e[m.n].prio = prio;
          m.e[m.n].exp = exp;
          m.n++;
          m.resv = 0;
          assert_int_equal(udccp_sendq_commit(&q, 0),
                           UDCCP_ERR_INVALID_STATE);
        }
      }
    } else if (op < 80) { /* pop */
      rv = udccp_sendq_pop(&q);
      if (m.n == 0) {
        assert_int_equal(rv, UDCCP_ERR_AGAIN);
      } else {
        assert_int_equal(rv, 0);
        mdl_remove(&m, mdl_head(&m, pol));
        m.resv = 0;
        if (m.n == 0 && !q.keep) {
          assert_int_equal(udccp_sendq_mem(&q), 0); /* the last one out */
        }
      }
    } else if (op < 88) { /* time passes; expiry */
      uint32_t i, dropped = 0;
      now += rnd(&r) % 30;
      for (i = 0; i < m.n;) {
        if (m.e[i].exp <= now) {
          mdl_remove(&m, i);
          dropped++;
        } else {
          i++;
        }
      }
      m.expired += dropped;
      assert_int_equal(udccp_sendq_expire(&q, now), dropped);
      if (dropped > 0) {
        m.resv = 0;
        if (m.n == 0 && !q.keep) {
          assert_int_equal(udccp_sendq_mem(&q), 0);
        }
      }
    } else if (op < 92) { /* the MPS changes */
      uint32_t nmax = 1 + (uint32_t)(rnd(&r) % 3000);
      if (rnd(&r) % 3 == 0) {
        nmax = LOOPBACK_MPS;
      }
      assert_int_equal(udccp_sendq_resize(&q, nmax), 0);
      max = nmax;
      m.resv = 0;
    } else if (op < 98) { /* the connection's trim timer */
      rv = udccp_sendq_trim(&q);
      assert_int_equal(rv, m.n > 0);
      if (!rv) {
        assert_int_equal(udccp_sendq_mem(&q), 0);
      }
      m.resv = 0;
    } else { /* a dead connection's queue */
      udccp_sendq_clear(&q);
      m.n = 0;
      m.resv = 0;
    }
    cm.fail = 0;
    if (!m.resv) {
      /* what changed the queue (or could move its memory) cancelled the
       * reservation */
      assert_int_equal(udccp_sendq_commit(&q, 0), UDCCP_ERR_INVALID_STATE);
    } else if (rnd(&r) % 2) {
      /* a held reservation survives nothing but is committed intact */
      assert_int_equal(udccp_sendq_commit(&q, m.resv_len), 0);
      m.e[m.n].id = m.resv_id;
      m.e[m.n].len = m.resv_len;
      m.e[m.n].prio = m.resv_prio;
      m.e[m.n].exp = m.resv_exp;
      m.n++;
      m.resv = 0;
    }
    check(&q, &m, pol, qlen, step % 16 == 0);
    (*ops_done)++;
  }
  check(&q, &m, pol, qlen, 1);
  udccp_sendq_free(&q);
  assert_int_equal(cm.allocs, cm.frees);
  assert_int_equal(cm.bytes, 0);
}

static void test_sendq_matches_model_under_random_ops(void **state) {
  uint64_t seed, ops = 0;
  (void)state;
  for (seed = 1; seed <= 100; seed++) {
    run_model(seed, &ops);
  }
  print_message("%llu random operations on 100 queues matched the model\n",
                (unsigned long long)ops);
}

/* ---- a connection ---- */

static int mps_ok(udccp_conn *c) { return udccp_conn_get_mps(c) > 0; }

/* A connection whose MPS is the loopback one (65,443 B) with 32 queued
 * 1,408-byte datagrams holds about twice their bytes beyond its idle
 * size (udccp_conn_info.mem_bytes; one slot per MPS was 2 MiB); the MPS
 * then shrinks to the pair's (§14): the datagrams too large for it are
 * dropped when their turn comes, the others arrive whole, and once the
 * queue drained the connection holds what it held idle. */
static void test_conn_sendq_mem_at_loopback_mps(void **state) {
  udccp_pair p;
  udccp_settings cs, ss;
  udccp_conn_info ci0, ci;
  static uint8_t buf[8000];
  size_t mps, queued = (size_t)QLEN * DGRAM;
  uint64_t m_idle, m_full;
  uint32_t i, got = 0;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  udccp_pair_settings(&p, &ss);
  assert_int_equal(cs.tx_qlen, QLEN);
  assert_int_equal(udccp_pair_init(&p, &cs, &ss, NULL, 21), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 1 * S); /* the handshake's buffers trimmed */
  assert_true(mps_ok(p.c[0]));
  /* the PMTU that gives the loopback MPS */
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], 65536), 0);
  mps = udccp_conn_get_mps(p.c[0]);
  assert_int_equal(
      udccp_conn_set_pmtu(p.c[0], (uint32_t)(65536 - (mps - LOOPBACK_MPS))),
      0);
  assert_int_equal(udccp_conn_get_mps(p.c[0]), LOOPBACK_MPS);
  udccp_conn_get_info(p.c[0], &ci0);
  m_idle = ci0.mem_bytes;
  /* two large ones first, then 30 of 1,408 */
  for (i = 0; i < QLEN; i++) {
    size_t len = i < 2 ? sizeof(buf) : DGRAM;
    fill(buf, i, len);
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, len, 0, p.now),
                     0);
  }
  udccp_conn_get_info(p.c[0], &ci);
  m_full = ci.mem_bytes;
  queued = 2 * sizeof(buf) + (QLEN - 2) * (size_t)DGRAM;
  print_message("MPS %u, %zu B queued in %u datagrams: %llu B held, %llu B "
                "idle (+%llu)\n",
                LOOPBACK_MPS, queued, QLEN, (unsigned long long)m_full,
                (unsigned long long)m_idle,
                (unsigned long long)(m_full - m_idle));
  assert_true(m_full - m_idle <= 4 * queued + FIXED);
  /* §14: the MPS shrinks under them */
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], 1500), 0);
  assert_true(udccp_conn_get_mps(p.c[0]) >= DGRAM);
  for (i = 0; i < 400 && got < QLEN - 2; i++) {
    udccp_ssize n;
    udccp_pair_step(&p);
    while ((n = udccp_conn_read_datagram(p.c[1], buf, sizeof(buf))) >= 0) {
      assert_int_equal(n, DGRAM);
      assert_true(same(buf, 2 + got, DGRAM));
      got++;
    }
  }
  assert_int_equal(got, QLEN - 2);
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(ci.tx_qdrops - ci0.tx_qdrops, 2);
  /* drained: the next trim gives the block back (what else the
   * connection holds after sending, its CCID's history, is not the
   * queue's) */
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_sendq_mem(&p.c[0]->sendq), 0);
  udccp_conn_get_info(p.c[0], &ci);
  print_message("drained and trimmed: %llu B held\n",
                (unsigned long long)ci.mem_bytes);
  assert_true(ci.mem_bytes + queued < m_full);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sendq_mem_follows_bytes_not_mps),
      cmocka_unit_test(test_sendq_mem_reserve_mps_commit_less),
      cmocka_unit_test(test_sendq_mem_trim_shrinks_back),
      cmocka_unit_test(test_sendq_mem_fifo_steady_state_no_allocation),
      cmocka_unit_test(test_sendq_mem_prio_out_of_order_mixed_sizes),
      cmocka_unit_test(test_sendq_mem_compaction_in_wrapped_ring),
      cmocka_unit_test(test_sendq_mem_mps_shrink_keeps_queued),
      cmocka_unit_test(test_sendq_matches_model_under_random_ops),
      cmocka_unit_test(test_conn_sendq_mem_at_loopback_mps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

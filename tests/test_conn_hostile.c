/* SPDX-License-Identifier: MIT */
/*
 * A hostile, authenticated peer (issue 12): what it chooses must not make
 * our state or work grow.  Over the pair, in virtual time, with counting
 * allocator hooks: after the peer asked for Sequence Window 2^46 - 1 its
 * seqnos jump 2^20 per packet (with NDP Count lies), and every packet is
 * taken with no memory growth (CCID 3: the loss history and the packet
 * history are O(1) in the jump, RFC 5348 §5.2 interpolation bounded);
 * packets beyond any window draw Syncs at most 8 a second (RFC 4340
 * §7.5.4).  CPU per packet is measured by bench/hostile.sh, not here.
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
#include "opt.h"
#include "pair.h"
#include "pktbuild.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS
#define JUMP (1ULL << 20)

/* Allocator hooks that count the bytes live (a size header per block). */
typedef struct counter {
  int64_t live, peak;
} counter;

static void *c_malloc(size_t n, void *ud) {
  counter *c = ud;
  size_t *p = malloc(n + sizeof(size_t));
  if (!p) {
    return NULL;
  }
  p[0] = n;
  c->live += (int64_t)n;
  if (c->live > c->peak) {
    c->peak = c->live;
  }
  return p + 1;
}
static void c_free(void *ptr, void *ud) {
  counter *c = ud;
  if (ptr) {
    size_t *p = (size_t *)ptr - 1;
    c->live -= (int64_t)p[0];
    free(p);
  }
}
static void *c_calloc(size_t k, size_t n, void *ud) {
  void *p = c_malloc(k * n, ud);
  if (p) {
    memset(p, 0, k * n);
  }
  return p;
}
static void *c_realloc(void *ptr, size_t n, void *ud) {
  void *q;
  if (!ptr) {
    return c_malloc(n, ud);
  }
  q = c_malloc(n, ud);
  if (q) {
    size_t old = ((size_t *)ptr)[-1];
    memcpy(q, ptr, old < n ? old : n);
    c_free(ptr, ud);
  }
  return q;
}

/* Our side (the server, p->c[1]) takes n Data packets from the peer whose
 * seqnos start at GSR + off and advance by step, each with an NDP Count of ndp (none if 0), and
 * answers each.  Returns how many read_pkt accepted. */
static uint64_t feed(udccp_pair *p, uint64_t n, uint64_t off, uint64_t step,
                     uint64_t ndp) {
  udccp_conn *me = p->c[1];
  uint64_t seq = udccp_seq_add(me->gsr, (int64_t)off), i, ok = 0;
  uint8_t buf[UDCCP_PAIR_MTU], out[UDCCP_PAIR_MTU], app[64];
  static const uint8_t payload[16] = "hostile-peer-16b";
  for (i = 0; i < n; i++) {
    udccp_tb_pkt tp;
    uint8_t opt[8];
    udccp_ssize len;
    udccp_tb_pkt_init(&tp, UDCCP_PKT_DATA, seq, me->gss);
    if (ndp) {
      opt[0] = UDCCP_OPT_NDP_COUNT;
      opt[1] = 8;
      opt[2] = (uint8_t)(ndp >> 40);
      opt[3] = (uint8_t)(ndp >> 32);
      opt[4] = (uint8_t)(ndp >> 24);
      opt[5] = (uint8_t)(ndp >> 16);
      opt[6] = (uint8_t)(ndp >> 8);
      opt[7] = (uint8_t)ndp;
      tp.opts = opt;
      tp.opts_len = 8;
    }
    tp.payload = payload;
    tp.payload_len = sizeof(payload);
    tp.ccval = (uint8_t)((i / 4) & 15);
    len = udccp_tb_encode(buf, sizeof(buf), &p->path[0], &tp);
    assert_true(len > 0);
    p->now += 20 * 1000;
    if (udccp_conn_read_pkt(me, buf, (size_t)len, 0, p->now) == 0) {
      ok++;
    }
    while (udccp_conn_read_datagram(me, app, sizeof(app)) > 0) {
    }
    if (udccp_conn_get_expiry(me) <= p->now) {
      (void)udccp_conn_handle_expiry(me, p->now);
    }
    while (udccp_conn_write_pkt(me, out, sizeof(out), NULL, p->now) > 0) {
    }
    seq = udccp_seq_add(seq, (int64_t)step);
  }
  return ok;
}

static void open_hostile(udccp_pair *p, counter *cnt, udccp_mem *mem,
                         uint8_t ccid) {
  udccp_settings cs, ss;
  memset(p, 0, sizeof(*p));
  *mem = (udccp_mem){cnt, c_malloc, c_free, c_calloc, c_realloc};
  udccp_pair_settings(p, &cs);
  udccp_pair_settings(p, &ss);
  cs.ccid = ss.ccid = ccid;
  ss.mem = mem;
  cs.seq_window = 70368744177663ULL; /* the peer's Change L(2^46 - 1) */
  assert_int_equal(udccp_pair_init(p, &cs, &ss, NULL, 5), 0);
  assert_true(udccp_pair_run_until(p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(p, 1 * S);
  assert_int_equal(p->c[1]->seqwin_remote, 70368744177663ULL);
}

/* RFC 4340 §7.5.1 with W = 2^46 - 1: jumps of 2^20 are valid; CCID 3's
 * receiver counts them as losses (RFC 5348 §5.2) in bounded state. */
static void hostile_jumps(uint8_t ccid, uint64_t ndp) {
  udccp_pair p;
  counter cnt = {0, 0};
  udccp_mem mem;
  int64_t after_warmup;
  open_hostile(&p, &cnt, &mem, ccid);
  assert_int_equal(feed(&p, 200, 1, JUMP, ndp), 200);
  after_warmup = cnt.peak;
  assert_int_equal(feed(&p, 2000, 1, JUMP, ndp), 2000);
  printf("CCID %u, seqno + 2^20%s: heap peak %lld B after 200 packets, "
         "%lld B after 2200\n", ccid, ndp ? ", NDP Count lie" : "",
         (long long)after_warmup, (long long)cnt.peak);
  /* No state that grows with the jumps.  Our own sent-packet history
   * (CCID 3/4: every packet we sent, up to UDCCP_CCID3_HIST_MIN entries of
   * 24 B, lib/ccid3.h) may still grow meanwhile, with what we send: at
   * most 36 KiB at its last doubling (both rings).  Per-jump state would
   * take far more (2,000 jumps of 2^20). */
  assert_true(cnt.peak <= after_warmup + 36 * 1024);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_1_huge_window_jumps_ccid3_bounded(void **st) {
  (void)st;
  hostile_jumps(3, 0);
}

static void test_rfc4340_7_7_ndp_count_lie_ccid3_bounded(void **st) {
  (void)st;
  /* NDP Count 2^48 - 1: "every missing packet was non-data" -- and more
   * than the gap: min(NDP, gap) counts (RFC 4342 §6.1) */
  hostile_jumps(3, 0xFFFFFFFFFFFFULL);
}

static void test_rfc4340_7_5_1_huge_window_jumps_ccid4_bounded(void **st) {
  (void)st;
  hostile_jumps(4, 0);
}

/* RFC 4340 §7.5.4: packets beyond the window are answered with Syncs, at
 * most 8 per second, however many arrive. */
static void test_rfc4340_7_5_4_invalid_seqnos_sync_rate_limited(void **st) {
  udccp_pair p;
  udccp_conn_info before, after;
  uint64_t ok;
  (void)st;
  memset(&p, 0, sizeof(p));
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 6), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 1 * S);
  udccp_conn_get_info(p.c[1], &before);
  /* 5000 packets 20 us apart (0.1 s), half the sequence space away */
  ok = feed(&p, 5000, (1ULL << 47) - 1, 0, 0);
  udccp_conn_get_info(p.c[1], &after);
  printf("5000 out-of-window packets in 0.1 s: %llu accepted, %llu Syncs\n",
         (unsigned long long)ok,
         (unsigned long long)(after.syncs_sent - before.syncs_sent));
  assert_int_equal(ok, 0);
  assert_true(after.syncs_sent - before.syncs_sent <= 2);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_7_5_1_huge_window_jumps_ccid3_bounded),
      cmocka_unit_test(test_rfc4340_7_7_ndp_count_lie_ccid3_bounded),
      cmocka_unit_test(test_rfc4340_7_5_1_huge_window_jumps_ccid4_bounded),
      cmocka_unit_test(test_rfc4340_7_5_4_invalid_seqnos_sync_rate_limited),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * The zero-copy application calls (issue 13): udccp_conn_reserve_datagram()
 * / udccp_conn_commit_datagram() write a datagram straight into the send
 * queue, udccp_conn_peek_datagram() / udccp_conn_consume_datagram() read
 * one where it lies in the receive queue.  They obey the rules of
 * udccp_conn_queue_datagram() and udccp_conn_read_datagram(): the same
 * datagrams arrive, the same errors come back in the same states.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "pair.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

/* Datagram i: len_of(i) bytes of a pattern that names i. */
static size_t len_of(uint32_t i) { return 1 + (i * 97u) % 1200u; }

static void fill(uint8_t *b, uint32_t i) {
  size_t k, n = len_of(i);
  for (k = 0; k < n; k++) {
    b[k] = (uint8_t)(i * 31u + k);
  }
}

static void open_pair(udccp_pair *p, uint64_t seed, uint8_t qpolicy) {
  udccp_settings cs, ss;
  memset(p, 0, sizeof(*p));
  udccp_pair_settings(p, &cs);
  udccp_pair_settings(p, &ss);
  cs.qpolicy = qpolicy;
  cs.tx_qlen = 8;
  assert_int_equal(udccp_pair_init(p, &cs, &ss, NULL, seed), 0);
  assert_true(udccp_pair_run_until(p, udccp_pair_both_open, NULL, 5 * S));
}

/* 300 datagrams written in place and read in place arrive whole, in
 * order, each once; recv_info is what udccp_conn_read_datagram_ex()
 * gives (sequence numbers rise, nothing lost); a second peek shows the
 * same datagram. */
static void test_zc_datagrams_arrive_whole_and_in_order(void **state) {
  udccp_pair p;
  uint32_t sent = 0, got = 0;
  uint64_t last_seq = 0;
  udccp_tstamp end;
  (void)state;
  open_pair(&p, 3, UDCCP_QPOLICY_SIMPLE);
  end = p.now + 30 * S;
  while (got < 300 && p.now < end) {
    const uint8_t *d, *d2;
    udccp_recv_info ri = UDCCP_RECV_INFO_INIT;
    udccp_ssize n;
    while (sent < 300) {
      uint8_t *b = NULL;
      int rv = udccp_conn_reserve_datagram(p.c[0], 1200, 0,
                                           UDCCP_TSTAMP_NEVER, &b, p.now);
      if (rv == UDCCP_ERR_AGAIN) {
        break;
      }
      assert_int_equal(rv, 0);
      fill(b, sent);
      assert_int_equal(udccp_conn_commit_datagram(p.c[0], len_of(sent), p.now),
                       0);
      sent++;
    }
    while ((n = udccp_conn_peek_datagram(p.c[1], &d, &ri)) >= 0) {
      uint8_t want[1200];
      assert_int_equal(n, (udccp_ssize)len_of(got));
      fill(want, got);
      assert_memory_equal(d, want, (size_t)n);
      assert_int_equal(ri.lost_before, 0);
      assert_true(ri.seq > last_seq);
      last_seq = ri.seq;
      assert_int_equal(udccp_conn_peek_datagram(p.c[1], &d2, NULL), n);
      assert_ptr_equal(d, d2);
      assert_int_equal(udccp_conn_consume_datagram(p.c[1]), 0);
      got++;
    }
    assert_int_equal(n, UDCCP_ERR_AGAIN);
    assert_int_equal(udccp_conn_consume_datagram(p.c[1]), UDCCP_ERR_AGAIN);
    udccp_pair_step(&p);
  }
  assert_int_equal(got, 300);
  udccp_pair_free(&p);
}

/* The rules of udccp_conn_queue_datagram(): MSGSIZE above the MPS,
 * DROPPED for a deadline already past, AGAIN on a full simple queue,
 * INVALID_STATE once closing, both at reserve and at commit; a commit
 * without a reservation, twice, or longer than reserved is refused; a
 * reservation is cancelled when the connection sends from the queue. */
static void test_zc_reserve_commit_obey_queue_rules(void **state) {
  udccp_pair p;
  udccp_conn_info ci;
  uint8_t *b = NULL;
  size_t mps;
  int i;
  (void)state;
  open_pair(&p, 4, UDCCP_QPOLICY_SIMPLE);
  mps = udccp_conn_get_mps(p.c[0]);
  assert_int_equal(udccp_conn_reserve_datagram(p.c[0], 10, 0,
                                               UDCCP_TSTAMP_NEVER, NULL, p.now),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_commit_datagram(p.c[0], 1, p.now),
                   UDCCP_ERR_INVALID_STATE);
  assert_int_equal(udccp_conn_reserve_datagram(p.c[0], mps + 1, 0,
                                               UDCCP_TSTAMP_NEVER, &b, p.now),
                   UDCCP_ERR_MSGSIZE);
  assert_int_equal(
      udccp_conn_reserve_datagram(p.c[0], 10, 0, p.now, &b, p.now),
      UDCCP_ERR_DROPPED);
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(ci.tx_expired, 1);
  /* fill the queue (8) without sending: the pair is not stepped */
  for (i = 0; i < 8; i++) {
    assert_int_equal(udccp_conn_reserve_datagram(p.c[0], 100, 0,
                                                 UDCCP_TSTAMP_NEVER, &b, p.now),
                     0);
    memset(b, i, 100);
    if (i == 0) {
      assert_int_equal(udccp_conn_commit_datagram(p.c[0], 101, p.now),
                       UDCCP_ERR_MSGSIZE);
    }
    assert_int_equal(udccp_conn_commit_datagram(p.c[0], 100, p.now), 0);
    assert_int_equal(udccp_conn_commit_datagram(p.c[0], 100, p.now),
                     UDCCP_ERR_INVALID_STATE);
  }
  assert_int_equal(udccp_conn_get_send_space(p.c[0]), 0);
  assert_int_equal(udccp_conn_reserve_datagram(p.c[0], 100, 0,
                                               UDCCP_TSTAMP_NEVER, &b, p.now),
                   UDCCP_ERR_AGAIN);
  /* a reservation, then the connection sends: cancelled */
  udccp_pair_run_for(&p, 2 * S);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], "x", 1, 0, p.now), 0);
  assert_int_equal(udccp_conn_reserve_datagram(p.c[0], 100, 0,
                                               UDCCP_TSTAMP_NEVER, &b, p.now),
                   0);
  udccp_pair_run_for(&p, 1 * S);
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(udccp_conn_get_send_space(p.c[0]), 8); /* "x" went */
  assert_int_equal(udccp_conn_commit_datagram(p.c[0], 100, p.now),
                   UDCCP_ERR_INVALID_STATE);
  /* reserved, then closing: refused at commit as queue_datagram is */
  assert_int_equal(udccp_conn_reserve_datagram(p.c[0], 100, 0,
                                               UDCCP_TSTAMP_NEVER, &b, p.now),
                   0);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  assert_int_equal(udccp_conn_commit_datagram(p.c[0], 100, p.now),
                   UDCCP_ERR_INVALID_STATE);
  assert_int_equal(udccp_conn_reserve_datagram(p.c[0], 100, 0,
                                               UDCCP_TSTAMP_NEVER, &b, p.now),
                   UDCCP_ERR_INVALID_STATE);
  udccp_pair_free(&p);
}

/* Under UDCCP_QPOLICY_PRIO a reservation on a full queue evicts the
 * oldest lowest datagram if it is better, else is refused, as
 * udccp_conn_queue_datagram() is; the receiver gets the best first. */
static void test_zc_reserve_prio_evicts_like_queue(void **state) {
  udccp_pair p;
  udccp_conn_info ci;
  uint8_t *b = NULL, buf[16];
  int i;
  (void)state;
  open_pair(&p, 5, UDCCP_QPOLICY_PRIO);
  for (i = 1; i <= 8; i++) {
    buf[0] = (uint8_t)i;
    assert_int_equal(
        udccp_conn_queue_datagram(p.c[0], buf, 1, (uint32_t)i, p.now), 0);
  }
  assert_int_equal(udccp_conn_reserve_datagram(p.c[0], 1, 1,
                                               UDCCP_TSTAMP_NEVER, &b, p.now),
                   UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_conn_reserve_datagram(p.c[0], 1, 9,
                                               UDCCP_TSTAMP_NEVER, &b, p.now),
                   0);
  b[0] = 9;
  assert_int_equal(udccp_conn_commit_datagram(p.c[0], 1, p.now), 0);
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(ci.tx_qdrops, 2); /* one refused, one evicted */
  udccp_pair_run_for(&p, 2 * S);
  for (i = 9; i >= 2; i--) {
    const uint8_t *d;
    assert_int_equal(udccp_conn_peek_datagram(p.c[1], &d, NULL), 1);
    assert_int_equal(d[0], i);
    assert_int_equal(udccp_conn_consume_datagram(p.c[1]), 0);
  }
  udccp_pair_free(&p);
}

/* A peek answers as udccp_conn_read_datagram() does: AGAIN while the
 * queue is empty and the peer is there, the connection's fatal code once
 * the peer closed and the queue is drained; bad arguments are refused. */
static void test_zc_peek_errors_match_read(void **state) {
  udccp_pair p;
  const uint8_t *d = NULL;
  udccp_recv_info ri = UDCCP_RECV_INFO_INIT;
  uint8_t buf[8];
  udccp_ssize a, r;
  (void)state;
  open_pair(&p, 6, UDCCP_QPOLICY_SIMPLE);
  assert_int_equal(udccp_conn_peek_datagram(p.c[1], NULL, NULL),
                   UDCCP_ERR_INVALID_ARGUMENT);
  ri.size = 4;
  assert_int_equal(udccp_conn_peek_datagram(p.c[1], &d, &ri),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_peek_datagram(p.c[1], &d, NULL),
                   UDCCP_ERR_AGAIN);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], "ab", 2, 0, p.now), 0);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  udccp_pair_run_for(&p, 5 * S);
  assert_int_equal(udccp_conn_peek_datagram(p.c[1], &d, NULL), 2);
  assert_memory_equal(d, "ab", 2);
  assert_int_equal(udccp_conn_consume_datagram(p.c[1]), 0);
  a = udccp_conn_peek_datagram(p.c[1], &d, NULL);
  r = udccp_conn_read_datagram(p.c[1], buf, sizeof(buf));
  print_message("after the peer's close: peek %d, read %d\n", (int)a, (int)r);
  assert_true(a <= UDCCP_ERR_FATAL);
  assert_int_equal(a, r);
  udccp_pair_free(&p);
}

/* A hash of every packet offered in each direction (FNV-1a over length
 * and bytes), and their count. */
typedef struct wire {
  uint64_t h[2], n[2];
} wire;

static int wire_tap(udccp_pair *p, int dir, const uint8_t *pkt, size_t len,
                    uint64_t idx, void *ud) {
  wire *w = ud;
  size_t k;
  (void)p;
  (void)idx;
  w->h[dir] ^= len;
  w->h[dir] *= 1099511628211ull;
  for (k = 0; k < len; k++) {
    w->h[dir] ^= pkt[k];
    w->h[dir] *= 1099511628211ull;
  }
  w->n[dir]++;
  return 0;
}

/* One transfer of 200 datagrams (datagram i at time i ms), through the
 * copying calls (zc 0) or the zero-copy ones (zc 1); the receiver reads
 * after every step.  Returns the datagrams read. */
static uint32_t transfer(wire *w, int zc) {
  udccp_pair p;
  uint32_t sent = 0, got = 0;
  udccp_tstamp t0, end;
  open_pair(&p, 11, UDCCP_QPOLICY_SIMPLE);
  memset(w, 0, sizeof(*w));
  w->h[0] = w->h[1] = 14695981039346656037ull;
  p.drop = wire_tap;
  p.drop_ud = w;
  t0 = p.now;
  end = t0 + 10 * S;
  while (p.now < end && got < 200) {
    while (sent < 200 && t0 + sent * MS <= p.now) {
      uint8_t b[1200], *d = NULL;
      if (zc) {
        if (udccp_conn_reserve_datagram(p.c[0], len_of(sent), 0,
                                        UDCCP_TSTAMP_NEVER, &d, p.now) != 0) {
          break;
        }
        fill(d, sent);
        assert_int_equal(
            udccp_conn_commit_datagram(p.c[0], len_of(sent), p.now), 0);
      } else {
        fill(b, sent);
        if (udccp_conn_queue_datagram(p.c[0], b, len_of(sent), 0, p.now) !=
            0) {
          break;
        }
      }
      sent++;
    }
    for (;;) {
      uint8_t b[1200];
      const uint8_t *d;
      udccp_ssize n = zc ? udccp_conn_peek_datagram(p.c[1], &d, NULL)
                         : udccp_conn_read_datagram(p.c[1], b, sizeof(b));
      if (n < 0) {
        break;
      }
      if (zc) {
        memcpy(b, d, (size_t)n);
        assert_int_equal(udccp_conn_consume_datagram(p.c[1]), 0);
      }
      {
        uint8_t want[1200];
        fill(want, got);
        assert_int_equal(n, (udccp_ssize)len_of(got));
        assert_memory_equal(b, want, (size_t)n);
      }
      got++;
    }
    if (!udccp_pair_step(&p)) {
      break;
    }
  }
  udccp_pair_free(&p);
  return got;
}

/* The zero-copy calls are an API change only: the same datagrams through
 * either pair of calls put the same packets on the wire, byte for byte,
 * both ways. */
static void test_zc_same_packets_as_copying_calls(void **state) {
  wire a, b;
  (void)state;
  assert_int_equal(transfer(&a, 0), 200);
  assert_int_equal(transfer(&b, 1), 200);
  print_message("copying: %llu + %llu packets, zero-copy: %llu + %llu\n",
                (unsigned long long)a.n[0], (unsigned long long)a.n[1],
                (unsigned long long)b.n[0], (unsigned long long)b.n[1]);
  assert_true(a.n[0] >= 200);
  assert_int_equal(a.n[0], b.n[0]);
  assert_int_equal(a.n[1], b.n[1]);
  assert_true(a.h[0] == b.h[0]);
  assert_true(a.h[1] == b.h[1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_zc_datagrams_arrive_whole_and_in_order),
      cmocka_unit_test(test_zc_reserve_commit_obey_queue_rules),
      cmocka_unit_test(test_zc_reserve_prio_evicts_like_queue),
      cmocka_unit_test(test_zc_peek_errors_match_read),
      cmocka_unit_test(test_zc_same_packets_as_copying_calls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * udccp_send_ex(): a priority and a deadline per datagram through the
 * socket API (issue 14).  Over loopback DCCP-UDP, both endpoints driven
 * from this one thread; congestion is made by not running the server's
 * loop, so that no acknowledgement returns and CCID 2's window closes.
 *   - a datagram leaves within the call on an idle connection (no loop
 *     turn, no timer): the latency to the peer is measured;
 *   - under congestion, with UDCCP_QPOLICY_PRIO, every high-priority
 *     datagram is taken (each push evicts a queued low one) and arrives;
 *   - datagrams whose deadline passes while they wait are never sent, and
 *     the queue gives their room back at the deadline, not later.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "iopair.h"

#define SVC 91
#define DPORT 6002

static uint64_t ms_now(void) { return udccp_now() / UDCCP_NS_PER_MS; }

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

typedef udccp_io_pair pair;

/* A connected pair; the client's connections use qpolicy and tx_qlen. */
static void pair_open(pair *p, uint8_t qpolicy, uint32_t tx_qlen) {
  udccp_settings s;
  udccp_settings_default(&s);
  s.qpolicy = qpolicy;
  s.tx_qlen = tx_qlen;
  udccp_io_pair_opts o = {.server_host = "127.0.0.1", .client_set = &s,
                          .port = DPORT, .code = SVC, .ccid = 2};
  assert_int_equal(udccp_io_pair_open(p, &o), 0);
}

static void pair_close(pair *p) { udccp_io_pair_close(p); }

/* Runs both loops for ms milliseconds. */
static void pump(pair *p, int ms) {
  uint64_t end = ms_now() + (uint64_t)ms;
  while (ms_now() < end) {
    (void)udccp_endpoint_run(p->sep, 1);
    (void)udccp_endpoint_run(p->cep, 1);
  }
}

static uint64_t tx_pkts(const udccp_endpoint *ep) {
  udccp_endpoint_stats st;
  udccp_endpoint_get_stats(ep, &st);
  return st.tx_pkts;
}

static size_t send_space(pair *p) {
  return udccp_conn_get_send_space(udccp_sock_get_conn(p->c));
}

static udccp_conn_info info_of(const udccp_sock *s) {
  udccp_conn_info ci;
  udccp_sock_get_info(s, &ci);
  return ci;
}

/* Everything the server has now, each datagram's text counted by its
 * first letter (H, L, E, K, ...) into counts[256]. */
static int drain(pair *p, int counts[256]) {
  char buf[64];
  int n = 0;
  for (;;) {
    udccp_ssize r = udccp_recv(p->s, buf, sizeof(buf), 0);
    if (r < 0) {
      return n;
    }
    assert_true(r > 0);
    counts[(unsigned char)buf[0]]++;
    n++;
  }
}

/* Sent on an idle connection after the loop has slept: the datagram is in
 * the kernel before udccp_send_ex() returns (tx_pkts grew), with no loop
 * turn or timer; the peer has it within a few milliseconds. */
static void test_send_ex_leaves_within_the_call(void **state) {
  (void)state;
  pair p;
  pair_open(&p, UDCCP_QPOLICY_PRIO, 32);
  pump(&p, 50);
  uint64_t worst_us = 0, sum_us = 0;
  const int rounds = 20;
  for (int i = 0; i < rounds; i++) {
    sleep_ms(30); /* nobody runs a loop meanwhile */
    char msg[16];
    int len = snprintf(msg, sizeof(msg), "I%d", i);
    udccp_send_opts o = UDCCP_SEND_OPTS_INIT;
    o.prio = (uint32_t)i;
    o.expires = udccp_now() + 5 * UDCCP_NS_PER_S;
    uint64_t before = tx_pkts(p.cep);
    udccp_tstamp t0 = udccp_now();
    assert_int_equal(udccp_send_ex(p.c, msg, (size_t)len, &o, 0), len);
    assert_true(tx_pkts(p.cep) > before); /* left within the call */
    char buf[16];
    /* only the server's loop runs from here */
    assert_int_equal(udccp_recv(p.s, buf, sizeof(buf), 2000), len);
    uint64_t us = (udccp_now() - t0) / 1000;
    assert_memory_equal(buf, msg, (size_t)len);
    sum_us += us;
    worst_us = us > worst_us ? us : worst_us;
    (void)udccp_endpoint_run(p.cep, 0); /* take the ack */
  }
  printf("send_ex -> peer on an idle connection: mean %llu us, worst %llu us "
         "over %d datagrams\n",
         (unsigned long long)(sum_us / (uint64_t)rounds),
         (unsigned long long)worst_us, rounds);
  /* A path that waited for a timer or a sweep would take >= 100 ms. */
  assert_true(worst_us < 50000);
  pair_close(&p);
}

/* The server's loop does not run: no ack returns and CCID 2's window
 * closes; the queue (8, PRIO) fills with low-priority datagrams.  Each
 * high-priority send is then taken by evicting a low one (tx_qdrops + 1
 * each: the queue was full of lows at that moment), and once the server
 * runs again every high one arrives, with exactly the lows that were not
 * evicted. */
static void test_prio_high_never_dropped_under_congestion(void **state) {
  (void)state;
  pair p;
  pair_open(&p, UDCCP_QPOLICY_PRIO, 8);
  pump(&p, 50);
  int counts[256] = {0};
  int lows_taken = 0, highs_taken = 0, lows_refused = 0;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 150; i++) {
      char msg[32];
      int len;
      udccp_send_opts o = UDCCP_SEND_OPTS_INIT;
      if (i >= 60 && i % 20 == 0) {
        len = snprintf(msg, sizeof(msg), "H%d.%d", round, i);
        o.prio = 9;
        uint64_t d0 = info_of(p.c).tx_qdrops;
        assert_int_equal(udccp_send_ex(p.c, msg, (size_t)len, &o, 0), len);
        /* the queue was full of lows: one of them made room */
        assert_int_equal(info_of(p.c).tx_qdrops, d0 + 1);
        highs_taken++;
      }
      len = snprintf(msg, sizeof(msg), "L%d.%d", round, i);
      o.prio = 1;
      udccp_ssize r = udccp_send_ex(p.c, msg, (size_t)len, &o, 0);
      if (r == len) {
        lows_taken++;
      } else {
        assert_int_equal(r, UDCCP_ERR_AGAIN); /* full of lows and highs */
        lows_refused++;
      }
    }
    /* Let everything out: the server acks, the queue drains. */
    uint64_t end = ms_now() + 3000;
    while (ms_now() < end && send_space(&p) < 8) {
      pump(&p, 1);
    }
    assert_int_equal(send_space(&p), 8);
  }
  pump(&p, 100);
  (void)drain(&p, counts);
  udccp_conn_info ci = info_of(p.c);
  /* each high push evicted one low (checked above) */
  int evicted = highs_taken;
  printf("prio: %d high taken, %d arrived; %d low taken, %d evicted, %d "
         "refused, %d arrived\n",
         highs_taken, counts['H'], lows_taken, evicted, lows_refused,
         counts['L']);
  assert_int_equal(highs_taken, 3 * 5);
  assert_int_equal(counts['H'], highs_taken);
  assert_true(lows_refused > 0); /* there was congestion */
  assert_int_equal(counts['L'], lows_taken - evicted);
  assert_int_equal(ci.tx_expired, 0);
  pair_close(&p);
}

/* Congestion again (the server does not run).  Ten datagrams with a 40 ms
 * deadline and some without fill a SIMPLE queue of 16 behind the closed
 * window (CCID 2's RTO, 200 ms at least, does not reopen it meanwhile).  A send that finds the queue full and may wait up to 1 s gives
 * up at its own 10 ms deadline (UDCCP_ERR_DROPPED), not later.  The ten
 * are dropped by the client's loop at their deadline (room comes back
 * then), and none of them ever reaches the server; the six do. */
static void test_expired_never_sent(void **state) {
  (void)state;
  pair p;
  pair_open(&p, UDCCP_QPOLICY_SIMPLE, 16);
  pump(&p, 50);
  int counts[256] = {0};
  /* Close the window: W datagrams, only the client's loop running, until
   * CCID 2 has cwnd packets in flight and one W still waits. */
  int n_w = 0;
  uint64_t end = ms_now() + 2000;
  for (;;) {
    udccp_conn_info ci = info_of(p.c);
    if ((ci.pipe >= ci.cwnd && send_space(&p) < 16) || ms_now() > end) {
      break;
    }
    if (send_space(&p) == 16) {
      assert_int_equal(udccp_send(p.c, "W", 1, 0), 1);
      n_w++;
    }
    (void)udccp_endpoint_run(p.cep, 1);
  }
  size_t room = send_space(&p);
  assert_true(room >= 11 && room < 16);
  udccp_tstamp exp = udccp_now() + 40 * UDCCP_NS_PER_MS;
  udccp_send_opts o = UDCCP_SEND_OPTS_INIT;
  o.expires = exp;
  for (int i = 0; i < 10; i++) {
    assert_int_equal(udccp_send_ex(p.c, "E", 1, &o, 0), 1);
  }
  int n_k = (int)room - 10;
  for (int i = 0; i < n_k; i++) {
    assert_int_equal(udccp_send_ex(p.c, "K", 1, NULL, 0), 1);
  }
  /* Full.  A send that may wait 1 s, with a 10 ms deadline. */
  assert_int_equal(send_space(&p), 0);
  udccp_send_opts late = UDCCP_SEND_OPTS_INIT;
  late.expires = udccp_now() + 10 * UDCCP_NS_PER_MS;
  udccp_tstamp t0 = udccp_now();
  assert_int_equal(udccp_send_ex(p.c, "X", 1, &late, 1000),
                   UDCCP_ERR_DROPPED);
  uint64_t waited_ms = (udccp_now() - t0) / UDCCP_NS_PER_MS;
  assert_true(waited_ms >= 9 && waited_ms < 35);
  assert_int_equal(info_of(p.c).tx_expired, 1);
  /* Only the client runs until the 40 ms deadline has passed. */
  while (udccp_now() < exp + 5 * UDCCP_NS_PER_MS) {
    (void)udccp_endpoint_run(p.cep, 1);
  }
  udccp_conn_info ci = info_of(p.c);
  assert_int_equal(ci.tx_expired, 11);
  assert_int_equal(send_space(&p), 10); /* room back at the deadline */
  /* Now the server runs: W and K arrive, never E or X. */
  end = ms_now() + 3000;
  while (ms_now() < end && counts['K'] < n_k) {
    pump(&p, 5);
    (void)drain(&p, counts);
  }
  pump(&p, 50);
  (void)drain(&p, counts);
  printf("deadline: %d W, %d K arrived, %d E, %d X; %llu expired; the "
         "blocked send gave up after %llu ms\n",
         counts['W'], counts['K'], counts['E'], counts['X'],
         (unsigned long long)ci.tx_expired, (unsigned long long)waited_ms);
  assert_int_equal(counts['E'], 0);
  assert_int_equal(counts['X'], 0);
  assert_int_equal(counts['K'], n_k);
  assert_int_equal(counts['W'], n_w);
  assert_int_equal(info_of(p.c).tx_qdrops, 11);
  pair_close(&p);
}

static void test_send_ex_arguments(void **state) {
  (void)state;
  pair p;
  pair_open(&p, UDCCP_QPOLICY_PRIO, 8);
  udccp_send_opts o = UDCCP_SEND_OPTS_INIT;
  o.size = 4;
  assert_int_equal(udccp_send_ex(p.c, "a", 1, &o, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  o.size = sizeof(o);
  o.flags = 0x80;
  assert_int_equal(udccp_send_ex(p.c, "a", 1, &o, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  o.flags = 0;
  o.expires = udccp_now() - 1; /* already past: never queued */
  assert_int_equal(udccp_send_ex(p.c, "a", 1, &o, 0), UDCCP_ERR_DROPPED);
  /* An older caller's smaller struct: prio read, expires not. */
  o.size = 12;
  assert_int_equal(udccp_send_ex(p.c, "b", 1, &o, 0), 1);
  o.size = sizeof(o);
  o.expires = 0; /* none */
  o.flags = UDCCP_SEND_F_MORE;
  assert_int_equal(udccp_send_ex(p.c, "c", 1, &o, 0), 1);
  assert_int_equal(udccp_send_ex(p.c, "d", 1, NULL, 0), 1);
  char buf[8];
  int got = 0;
  uint64_t end = ms_now() + 2000, last_seq = 0;
  udccp_recv_info ri = UDCCP_RECV_INFO_INIT;
  while (got < 3 && ms_now() < end) {
    pump(&p, 2);
    while (udccp_recv_ex(p.s, buf, sizeof(buf), &ri, 0) == 1) {
      assert_true(buf[0] == 'b' || buf[0] == 'c' || buf[0] == 'd');
      assert_int_equal(ri.lost_before, 0); /* loopback: nothing lost */
      assert_true(ri.seq > last_seq);
      last_seq = ri.seq;
      got++;
    }
  }
  assert_int_equal(got, 3);
  assert_int_equal(info_of(p.c).tx_expired, 1);
  pair_close(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_send_ex_leaves_within_the_call),
      cmocka_unit_test(test_prio_high_never_dropped_under_congestion),
      cmocka_unit_test(test_expired_never_sent),
      cmocka_unit_test(test_send_ex_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

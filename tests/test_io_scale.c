/* SPDX-License-Identifier: MIT */
/*
 * Many connections on one pair of endpoints (issue 13, acceptance 1):
 * N connections between two endpoints of one process over loopback
 * DCCP-UDP, one datagram on each, idle, then closed.  All must succeed.
 * The connections spread over a few listening DCCP ports: one client
 * endpoint reuses its local DCCP ports across remote ports, as TCP does
 * across remote addresses (only the whole tuple is unique), so N can
 * exceed the 16,384 ephemeral ports.
 *
 * Parameters from the environment (the defaults keep make check short,
 * ~1 s under ASan):
 *   UDCCP_SCALE_N        connections (default 300)
 *   UDCCP_SCALE_IDLE_S   seconds held idle (default 1)
 *   UDCCP_SCALE_MEM      1: also assert heap per idle connection <= 4 KiB
 *                        per end and RSS <= 1 GB (a build without ASan;
 *                        make check-scale runs N = 100,000, idle 30 s, Release)
 * The port-choice rules have their own unit tests below.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "../io/endpoint.h"

#define SVC 77
#define NPORTS 8
#define PORT0 7000

static long env_long(const char *name, long def) {
  const char *v = getenv(name);
  return v != NULL && *v != '\0' ? strtol(v, NULL, 10) : def;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t heap_bytes(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
    if (strncmp(line, "VmRSS:", 6) == 0) {
      kb = strtol(line + 6, NULL, 10);
    }
  }
  if (f != NULL) {
    fclose(f);
  }
  return kb;
}

static void run_both(udccp_endpoint *a, udccp_endpoint *b) {
  assert_int_equal(udccp_endpoint_process(a), 0);
  assert_int_equal(udccp_endpoint_process(b), 0);
}

/* Enough descriptors are not needed (one socket per endpoint), but the
 * test opens none per connection: this is what it proves. */
static void test_io_scale_many_connections(void **state) {
  (void)state;
  long n = env_long("UDCCP_SCALE_N", 300);
  long idle = env_long("UDCCP_SCALE_IDLE_S", 1);
  int check_mem = (int)env_long("UDCCP_SCALE_MEM", 0);
  size_t heap0 = heap_bytes();
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.sockbuf = 8 * 1024 * 1024;
  udccp_endpoint *sep = NULL, *cep = NULL;
  assert_int_equal(udccp_endpoint_new_config(&sep, &cfg), 0);
  uint32_t code = SVC;
  for (int p = 0; p < NPORTS; p++) {
    assert_int_equal(udccp_listen(sep, (uint16_t)(PORT0 + p), &code, 1), 0);
  }
  cfg.remote_udp_port = udccp_endpoint_local_port(sep);
  assert_int_equal(udccp_endpoint_new_config(&cep, &cfg), 0);
  udccp_sock **cs = calloc((size_t)n, sizeof(*cs));
  udccp_sock **ss = calloc((size_t)n, sizeof(*ss));
  assert_non_null(cs);
  assert_non_null(ss);
  double t0 = now_s();
  /* Connect in waves so that the listeners' half-open limits and the
   * sockets' buffers are not the subject of this test. */
  long nc = 0, na = 0;
  const long wave = 1000;
  while (na < n) {
    while (nc < n && nc - na < wave) {
      int rv = udccp_connect(cep, &cs[nc], "127.0.0.1",
                             (uint16_t)(PORT0 + nc % NPORTS), SVC, 0, 0);
      if (rv != 0) {
        fail_msg("connect %ld of %ld: %s", nc, n, udccp_io_strerror(rv));
      }
      nc++;
    }
    run_both(cep, sep);
    while (na < nc && udccp_accept(sep, &ss[na], 0) == 0) {
      na++;
    }
    if (now_s() - t0 > 60 + (double)n / 1000) {
      fail_msg("only %ld of %ld accepted", na, n);
    }
  }
  /* Every client OPEN too (data in PARTOPEN has its own tests in
   * test_io_sock): the datagrams below then go in plain Data packets. */
  for (long i = 0; i < n; i++) {
    while (udccp_sock_state(cs[i]) != UDCCP_STATE_OPEN) {
      run_both(cep, sep);
      if (now_s() - t0 > 120 + (double)n / 1000) {
        fail_msg("client %ld of %ld not OPEN (state %d)", i, n,
                 udccp_sock_state(cs[i]));
      }
    }
  }
  double t_open = now_s() - t0;
  /* One datagram on each, client to server, in waves: DCCP does not
   * retransmit, and 100,000 datagrams sent at once overflow the server's
   * UDP receive buffer (~10k packets in 8 MB): what is measured here is
   * idle connections, not a burst. */
  long got = 0;
  uint8_t buf[16];
  double t1 = now_s();
  for (long i = 0; i < n; i++) {
    udccp_ssize r;
    if (i % wave == 0) {
      for (long j = i; j < n && j < i + wave; j++) {
        assert_int_equal(udccp_send(cs[j], "x", 1, 2000), 1);
      }
    }
    while ((r = udccp_recv(ss[i], buf, sizeof(buf), 0)) == UDCCP_ERR_AGAIN) {
      run_both(cep, sep);
      if (now_s() - t1 > 60) {
        fail_msg("datagram %ld of %ld never arrived", i, n);
      }
    }
    assert_int_equal(r, 1);
    got++;
  }
  size_t heap_open = heap_bytes();
  long rss_open = rss_kb();
  /* Idle: the loops run only for timers. */
  double t2 = now_s();
  while (now_s() - t2 < (double)idle) {
    int t = udccp_endpoint_timeout_ms(cep);
    int u = udccp_endpoint_timeout_ms(sep);
    if (t < 0 || (u >= 0 && u < t)) {
      t = u;
    }
    if (t < 0 || t > 100) {
      t = 100;
    }
    assert_int_equal(udccp_endpoint_run(cep, t), 0);
    assert_int_equal(udccp_endpoint_run(sep, 0), 0);
  }
  for (long i = 0; i < n; i++) {
    assert_int_equal(udccp_sock_error(cs[i]), 0);
    assert_int_equal(udccp_sock_error(ss[i]), 0);
    assert_int_equal(udccp_sock_state(cs[i]), UDCCP_STATE_OPEN);
  }
  /* Close all: the clients close, the servers see the end. */
  for (long i = 0; i < n; i++) {
    assert_int_equal(udccp_shutdown(cs[i]), 0);
  }
  long closed = 0;
  double t3 = now_s();
  for (long i = 0; i < n; i++) {
    for (;;) {
      int st = udccp_sock_state(cs[i]);
      if (st == UDCCP_STATE_TIMEWAIT || st == UDCCP_STATE_CLOSED) {
        break;
      }
      run_both(cep, sep);
      if (now_s() - t3 > 60) {
        fail_msg("close %ld of %ld did not finish (state %d)", i, n, st);
      }
    }
    assert_int_equal(udccp_close(cs[i], 0), 0);
    udccp_ssize r = udccp_recv(ss[i], buf, sizeof(buf), 2000);
    assert_int_equal(r, UDCCP_ERR_CLOSED);
    assert_int_equal(udccp_close(ss[i], 0), 0);
    closed++;
  }
  double heap_per = (double)(heap_open - heap0) / (double)n / 2;
  printf("%ld connections: opened in %.2f s, %ld datagrams, %ld closed; "
         "heap %.0f B per connection per end, RSS %ld MB\n",
         n, t_open, got, closed, heap_per, rss_open / 1024);
  assert_int_equal(got, n);
  assert_int_equal(closed, n);
  if (check_mem) {
    assert_true(heap_per <= 4096);
    assert_true(rss_open <= 1024L * 1024);
  }
  free(cs);
  free(ss);
  udccp_endpoint_del(cep);
  udccp_endpoint_del(sep);
}

/* ---------------------------------------------------- local port choice */

static void fake_conn(udccp_endpoint *ep, udccp_path *p, uint16_t lport,
                      uint16_t udp) {
  udccp_demux_key k;
  p->local_port = lport;
  udccp_demux_key_make(&k, p, udp);
  assert_int_equal(udccp_demux_insert(&ep->demux, &k, ep), 0);
}

/* Every ephemeral port used towards one remote: that remote gets none
 * (the tuple must be unique), another remote port or address still gets
 * one, and the one port left free is found, not missed by chance. */
static void test_io_port_reuse_per_remote(void **state) {
  (void)state;
  udccp_endpoint *ep = NULL;
  assert_int_equal(udccp_endpoint_new(&ep, UDCCP_TRANSPORT_UDP, "127.0.0.1",
                                      0), 0);
  udccp_path p;
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  p.remote_addr[0] = 127;
  p.remote_addr[3] = 1;
  p.remote_port = 5001;
  const uint16_t udp = 6511;
  for (uint32_t port = UDCCP_IO_EPHEMERAL_LO; port < 65536; port++) {
    if (port != 60000) {
      fake_conn(ep, &p, (uint16_t)port, udp);
    }
  }
  assert_int_equal(udccp_io_pick_port_for(ep, &p, udp), 60000);
  fake_conn(ep, &p, 60000, udp);
  assert_int_equal(udccp_io_pick_port_for(ep, &p, udp), 0);
  /* another remote DCCP port, UDP port, or address: the same local ports */
  udccp_path q = p;
  q.remote_port = 5002;
  assert_true(udccp_io_pick_port_for(ep, &q, udp) >= UDCCP_IO_EPHEMERAL_LO);
  assert_true(udccp_io_pick_port_for(ep, &p, udp + 1) >=
              UDCCP_IO_EPHEMERAL_LO);
  q = p;
  q.remote_addr[3] = 2;
  assert_true(udccp_io_pick_port_for(ep, &q, udp) >= UDCCP_IO_EPHEMERAL_LO);
  udccp_demux_free(&ep->demux);
  assert_int_equal(udccp_demux_init(&ep->demux, 16, 1), 0);
  udccp_endpoint_del(ep);
}

/* A port this endpoint listens on is never given to an outgoing
 * connection: packets to it belong to the listener. */
static void test_io_port_not_a_listening_one(void **state) {
  (void)state;
  udccp_endpoint *ep = NULL;
  assert_int_equal(udccp_endpoint_new(&ep, UDCCP_TRANSPORT_UDP, "127.0.0.1",
                                      0), 0);
  udccp_path p;
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  p.remote_addr[0] = 127;
  p.remote_addr[3] = 1;
  p.remote_port = 5001;
  for (uint32_t port = UDCCP_IO_EPHEMERAL_LO; port < 65536; port++) {
    if (port != 50000 && port != 50001) {
      fake_conn(ep, &p, (uint16_t)port, 6511);
    }
  }
  uint32_t code = SVC;
  assert_int_equal(udccp_listen(ep, 50000, &code, 1), 0);
  for (int i = 0; i < 20; i++) {
    assert_int_equal(udccp_io_pick_port_for(ep, &p, 6511), 50001);
  }
  udccp_demux_free(&ep->demux);
  assert_int_equal(udccp_demux_init(&ep->demux, 16, 1), 0);
  udccp_endpoint_del(ep);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_io_port_reuse_per_remote),
      cmocka_unit_test(test_io_port_not_a_listening_one),
      cmocka_unit_test(test_io_scale_many_connections),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

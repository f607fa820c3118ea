/* SPDX-License-Identifier: MIT */
/*
 * Sharing one UDP port (io/share.c, "Sharing a UDP port" in udccp.h):
 * worker threads of one process each with its own endpoint, steered by
 * the DCCP ports; and unrelated processes that serve different DCCP ports
 * on one UDP port, as RFC 6773 §3.8 allows (DCCP-UDP demultiplexes on the
 * DCCP ports).  Over loopback DCCP-UDP.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "../io/endpoint.h"

#define SVC 77

/* ------------------------------------------------------------- workers */

#define NCONN 24

typedef struct worker {
  udccp_endpoint *ep;
  uint32_t k, n;
  volatile int stop;
  int accepted, echoed, missteered;
  udccp_sock *socks[NCONN];
} worker;

/* Two worker endpoints on one loopback UDP port, each listening on the
 * DCCP port dport; returns the UDP port. */
static uint16_t workers_open(udccp_endpoint *eps[2], uint16_t dport) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  assert_int_equal(udccp_endpoint_new_workers(eps, 2, &cfg), 0);
  uint16_t port = udccp_endpoint_local_port(eps[0]);
  assert_int_equal(udccp_endpoint_local_port(eps[1]), port);
  uint32_t code = SVC;
  for (int k = 0; k < 2; k++) {
    assert_int_equal(udccp_listen(eps[k], dport, &code, 1), 0);
  }
  return port;
}

/* A client endpoint whose connections go to UDP port udp_port. */
static udccp_endpoint *client_open(uint16_t udp_port) {
  udccp_endpoint_config cc;
  udccp_endpoint_config_default(&cc);
  cc.local_host = "127.0.0.1";
  cc.remote_udp_port = udp_port;
  udccp_endpoint *cep = NULL;
  assert_int_equal(udccp_endpoint_new_config(&cep, &cc), 0);
  return cep;
}

/* Accepts, echoes each connection's first datagram, holds it open. */
static void *worker_main(void *arg) {
  worker *w = arg;
  while (!w->stop) {
    udccp_sock *s;
    if (udccp_accept(w->ep, &s, 20) == 0) {
      const udccp_path *p = udccp_sock_get_path(s);
      if (udccp_io_steer(p->remote_port, p->local_port, w->n) != w->k) {
        w->missteered++;
      }
      w->socks[w->accepted++] = s;
    }
    for (int i = 0; i < w->accepted; i++) {
      uint8_t b[64];
      udccp_ssize r = udccp_recv(w->socks[i], b, sizeof(b), 0);
      if (r > 0 && udccp_send(w->socks[i], b, (size_t)r, 1000) == r) {
        w->echoed++;
      }
    }
  }
  for (int i = 0; i < w->accepted; i++) {
    udccp_abort(w->socks[i]);
  }
  return NULL;
}

/* Two workers on one UDP port: every connection completes its handshake
 * and an exchange (every packet of it reached the worker that accepted
 * it), the steering rule is the one the workers compute, and both take
 * a share. */
static void test_io_workers_two_threads_one_port(void **state) {
  (void)state;
  udccp_endpoint *eps[2];
  uint16_t port = workers_open(eps, 6001);
  worker w[2];
  pthread_t th[2];
  for (int k = 0; k < 2; k++) {
    memset(&w[k], 0, sizeof(w[k]));
    w[k].ep = eps[k];
    w[k].k = (uint32_t)k;
    w[k].n = 2;
    assert_int_equal(pthread_create(&th[k], NULL, worker_main, &w[k]), 0);
  }
  udccp_endpoint *cep = client_open(port);
  udccp_sock *cs[NCONN];
  int ok = 0;
  for (int i = 0; i < NCONN; i++) {
    assert_int_equal(udccp_connect(cep, &cs[i], "127.0.0.1", 6001, SVC, 0,
                                   5000), 0);
    char msg[16];
    int len = snprintf(msg, sizeof(msg), "ping %d", i);
    assert_int_equal(udccp_send(cs[i], msg, (size_t)len, 2000), len);
    uint8_t b[64];
    udccp_ssize r = udccp_recv(cs[i], b, sizeof(b), 5000);
    if (r == len && memcmp(b, msg, (size_t)len) == 0) {
      ok++;
    }
  }
  for (int k = 0; k < 2; k++) {
    w[k].stop = 1;
    pthread_join(th[k], NULL);
  }
  printf("worker 0 accepted %d, worker 1 accepted %d; %d of %d echoed\n",
         w[0].accepted, w[1].accepted, ok, NCONN);
  assert_int_equal(ok, NCONN);
  assert_int_equal(w[0].accepted + w[1].accepted, NCONN);
  assert_int_equal(w[0].missteered + w[1].missteered, 0);
  /* 24 random client ports all on one side: probability 2^-23 */
  assert_true(w[0].accepted > 0 && w[1].accepted > 0);
  for (int i = 0; i < NCONN; i++) {
    udccp_abort(cs[i]);
  }
  udccp_endpoint_del(cep);
  udccp_endpoint_del(eps[0]);
  udccp_endpoint_del(eps[1]);
}

/* Bulk from two connections of one client endpoint (one UDP 4-tuple) to
 * two workers: each worker reads its own connection's packets from the
 * socket the kernel's steering chose, with almost none relayed.  A
 * transmit batch holds both connections' packets; when one GSO send
 * mixed them, the receiver's GRO kept it as one message, steered whole
 * by its first packet, and the other worker's share (about half of all
 * packets) went through the relay (io/gso.c, same_run). */
typedef struct sink {
  udccp_endpoint *ep;
  volatile int stop;
  udccp_sock *s;
  uint64_t bytes;
} sink;

static void *sink_main(void *arg) {
  sink *k = arg;
  uint8_t b[2048];
  while (!k->stop) {
    if (k->s == NULL) {
      (void)udccp_accept(k->ep, &k->s, 20);
      continue;
    }
    udccp_ssize r = udccp_recv(k->s, b, sizeof(b), 20);
    if (r > 0) {
      k->bytes += (uint64_t)r;
    }
  }
  return NULL;
}

static void test_io_workers_gso_runs_one_connection(void **state) {
  (void)state;
  udccp_endpoint *eps[2];
  uint16_t port = workers_open(eps, 6002);
  sink k[2];
  pthread_t th[2];
  for (int i = 0; i < 2; i++) {
    memset(&k[i], 0, sizeof(k[i]));
    k[i].ep = eps[i];
    assert_int_equal(pthread_create(&th[i], NULL, sink_main, &k[i]), 0);
  }
  udccp_endpoint *cep = client_open(port);
  /* One connection per worker: connect until both are taken (random
   * client ports; the others are closed again). */
  udccp_sock *cs[2] = {NULL, NULL};
  for (int tries = 0; tries < 64 && (cs[0] == NULL || cs[1] == NULL);
       tries++) {
    udccp_sock *s;
    assert_int_equal(udccp_connect(cep, &s, "127.0.0.1", 6002, SVC, 0, 5000),
                     0);
    const udccp_path *p = udccp_sock_get_path(s);
    uint32_t w = udccp_io_steer(p->local_port, p->remote_port, 2);
    if (cs[w] == NULL) {
      cs[w] = s;
    } else {
      udccp_abort(s);
    }
  }
  assert_non_null(cs[0]);
  assert_non_null(cs[1]);
  uint8_t msg[1200];
  memset(msg, 0x5a, sizeof(msg));
  uint64_t sent = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    for (int i = 0; i < 2; i++) {
      for (int n = 0; n < 64; n++) {
        if (udccp_send(cs[i], msg, sizeof(msg), 0) != (udccp_ssize)sizeof(msg)) {
          break;
        }
        sent++;
      }
    }
    (void)udccp_endpoint_run(cep, 1);
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 <
           700);
  for (int i = 0; i < 2; i++) {
    udccp_abort(cs[i]);
  }
  usleep(100000);
  for (int i = 0; i < 2; i++) {
    k[i].stop = 1;
    pthread_join(th[i], NULL);
  }
  udccp_endpoint_stats st[2];
  udccp_endpoint_get_stats(eps[0], &st[0]);
  udccp_endpoint_get_stats(eps[1], &st[1]);
  uint64_t relayed = st[0].rx_forwarded + st[1].rx_forwarded;
  uint64_t got = (k[0].bytes + k[1].bytes) / sizeof(msg);
  printf("sent %llu, delivered %llu (worker 0 %llu, worker 1 %llu), relayed "
         "%llu\n",
         (unsigned long long)sent, (unsigned long long)got,
         (unsigned long long)(k[0].bytes / sizeof(msg)),
         (unsigned long long)(k[1].bytes / sizeof(msg)),
         (unsigned long long)relayed);
  assert_true(got > 1000);
  assert_true(k[0].bytes > 0 && k[1].bytes > 0);
  /* Handshakes and stray packets may be relayed; bulk data may not. */
  assert_true(relayed * 50 < got);
  for (int i = 0; i < 2; i++) {
    if (k[i].s != NULL) {
      udccp_abort(k[i].s);
    }
  }
  udccp_endpoint_del(cep);
  udccp_endpoint_del(eps[0]);
  udccp_endpoint_del(eps[1]);
}

/* ------------------------------------------------ independent processes */

static udccp_endpoint *shared_ep(uint16_t udp_port) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.local_port = udp_port;
  cfg.reuseport = 1;
  udccp_endpoint *ep = NULL;
  assert_int_equal(udccp_endpoint_new_config(&ep, &cfg), 0);
  return ep;
}

/* A child process: serves DCCP port dport on the shared UDP port, echoes
 * each connection's datagrams, until killed. */
static pid_t echo_server_process(uint16_t udp_port, uint16_t dport,
                                 int ready_fd) {
  pid_t pid = fork();
  if (pid != 0) {
    return pid;
  }
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.local_port = udp_port;
  cfg.reuseport = 1;
  udccp_endpoint *ep = NULL;
  uint32_t code = SVC;
  char r = 'x';
  if (udccp_endpoint_new_config(&ep, &cfg) != 0 ||
      udccp_listen(ep, dport, &code, 1) != 0) {
    r = 'e';
  }
  if (write(ready_fd, &r, 1) != 1 || r != 'x') {
    _exit(1);
  }
  udccp_sock *socks[64];
  int n = 0;
  for (;;) {
    udccp_sock *s;
    if (n < 64 && udccp_accept(ep, &s, 20) == 0) {
      socks[n++] = s;
    }
    for (int i = 0; i < n; i++) {
      uint8_t b[64];
      udccp_ssize k = udccp_recv(socks[i], b, sizeof(b), 0);
      if (k > 0) {
        (void)udccp_send(socks[i], b, (size_t)k, 1000);
      }
    }
  }
}

static int echo_once(udccp_endpoint *cep, uint16_t dport, const char *msg) {
  udccp_sock *s = NULL;
  int rv = udccp_connect(cep, &s, "127.0.0.1", dport, SVC, 0, 5000);
  if (rv != 0) {
    return rv;
  }
  size_t len = strlen(msg);
  uint8_t b[64];
  udccp_ssize r = udccp_send(s, msg, len, 2000);
  if (r == (udccp_ssize)len) {
    r = udccp_recv(s, b, sizeof(b), 5000);
  }
  int ok = r == (udccp_ssize)len && memcmp(b, msg, len) == 0;
  (void)udccp_close(s, 1000);
  return ok ? 0 : (r < 0 ? (int)r : UDCCP_ERR_PROTO);
}

/* RFC 6773 §3.8: two processes on one UDP port, one DCCP port each.  Each
 * service answers every one of several connections (the kernel spreads
 * them over both sockets; the one that gets another's packet passes it
 * on), a third process cannot claim a DCCP port already served, and a
 * port nobody serves is refused (Reset No Connection), not swallowed. */
static void test_rfc6773_3_8_two_processes_share_udp_port(void **state) {
  (void)state;
  /* A free UDP port: take one, then share it. */
  udccp_endpoint *probe = shared_ep(0);
  uint16_t port = udccp_endpoint_local_port(probe);
  udccp_endpoint_del(probe);
  int pfd[2];
  assert_int_equal(pipe(pfd), 0);
  pid_t a = echo_server_process(port, 6001, pfd[1]);
  pid_t b = echo_server_process(port, 6002, pfd[1]);
  char c1 = 0, c2 = 0;
  assert_int_equal(read(pfd[0], &c1, 1), 1);
  assert_int_equal(read(pfd[0], &c2, 1), 1);
  assert_int_equal(c1, 'x');
  assert_int_equal(c2, 'x');
  /* A third sharing endpoint: port 6001 is taken, 6003 is free. */
  udccp_endpoint *third = shared_ep(port);
  uint32_t code = SVC;
  assert_int_equal(udccp_listen(third, 6001, &code, 1), UDCCP_ERR_ADDRINUSE);
  udccp_endpoint_del(third);
  udccp_endpoint_config cc;
  udccp_endpoint_config_default(&cc);
  cc.local_host = "127.0.0.1";
  cc.remote_udp_port = port;
  int ok1 = 0, ok2 = 0;
  for (int i = 0; i < 8; i++) {
    /* A new client endpoint each time: a new UDP source port, so the
     * kernel's hash picks either server socket. */
    udccp_endpoint *cep = NULL;
    assert_int_equal(udccp_endpoint_new_config(&cep, &cc), 0);
    ok1 += echo_once(cep, 6001, "to six thousand one") == 0;
    ok2 += echo_once(cep, 6002, "to six thousand two") == 0;
    if (i == 0) {
      assert_int_equal(echo_once(cep, 6003, "nobody"), UDCCP_ERR_REFUSED);
    }
    udccp_endpoint_del(cep);
  }
  kill(a, SIGKILL);
  kill(b, SIGKILL);
  waitpid(a, NULL, 0);
  waitpid(b, NULL, 0);
  close(pfd[0]);
  close(pfd[1]);
  printf("port %u: %d/8 echoes from DCCP port 6001, %d/8 from 6002\n",
         (unsigned)port, ok1, ok2);
  assert_int_equal(ok1, 8);
  assert_int_equal(ok2, 8);
}

/* The one port model (issue 14; RFC 6773 §3.8): a client made with the
 * plain defaults and given only a DCCP port reaches a server on the
 * default UDP port 6511 (which may be shared with other services on this
 * host: the server takes it with reuseport, as udccp-perf -s does). */
static void test_rfc6773_3_8_connect_reaches_default_udp_port(void **state) {
  (void)state;
  int pfd[2];
  assert_int_equal(pipe(pfd), 0);
  /* a DCCP port nobody else on this host serves on 6511 */
  uint16_t dport = 0;
  pid_t srv = -1;
  for (int i = 0; i < 20 && dport == 0; i++) {
    uint16_t p = (uint16_t)(20000 + (getpid() * 7 + i * 101) % 20000);
    char c = 0;
    srv = echo_server_process(UDCCP_UDP_PORT_DEFAULT, p, pfd[1]);
    assert_int_equal(read(pfd[0], &c, 1), 1);
    if (c == 'x') {
      dport = p;
    } else {
      waitpid(srv, NULL, 0);
    }
  }
  assert_true(dport != 0);
  udccp_endpoint *cep = NULL;
  assert_int_equal(udccp_endpoint_new(&cep, UDCCP_TRANSPORT_UDP, "127.0.0.1",
                                      0), 0);
  int rv = echo_once(cep, dport, "to the default port");
  udccp_endpoint_del(cep);
  kill(srv, SIGKILL);
  waitpid(srv, NULL, 0);
  close(pfd[0]);
  close(pfd[1]);
  assert_int_equal(rv, 0);
}

/* Without reuseport the port stays exclusive, as before. */
static void test_io_share_off_by_default(void **state) {
  (void)state;
  udccp_endpoint *a = NULL, *b = NULL;
  assert_int_equal(udccp_endpoint_new(&a, UDCCP_TRANSPORT_UDP, "127.0.0.1",
                                      0), 0);
  assert_int_equal(udccp_endpoint_new(&b, UDCCP_TRANSPORT_UDP, "127.0.0.1",
                                      udccp_endpoint_local_port(a)),
                   UDCCP_ERR_ADDRINUSE);
  udccp_endpoint_del(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_io_share_off_by_default),
      cmocka_unit_test(test_io_workers_two_threads_one_port),
      cmocka_unit_test(test_io_workers_gso_runs_one_connection),
      cmocka_unit_test(test_rfc6773_3_8_two_processes_share_udp_port),
      cmocka_unit_test(test_rfc6773_3_8_connect_reaches_default_udp_port),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

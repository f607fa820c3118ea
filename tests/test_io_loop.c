/* SPDX-License-Identifier: MIT */
/*
 * The event loop's looks for input (io/loop.c look()): while the sockets
 * that carry connections keep having datagrams, a turn reads them
 * straight away instead of asking epoll first (a system call per turn
 * less for a busy receiver, issue 13); a look that finds nothing asks
 * epoll, and so does one in every UDCCP_IO_LOOK_EPOLL_EVERY, so that a
 * socket without connections (a listener's) is never left behind.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "../io/endpoint.h"
#include "iopair.h"

static uint64_t ms_now(void) { return udccp_test_ms_now(); }

/* A server endpoint on 127.0.0.1 (or every address: both sockets) with a
 * listener, a client endpoint, and one OPEN connection between them. */
typedef udccp_io_pair pair;

static void open_pair(pair *p, const char *server_host) {
  udccp_io_pair_opts o = {.server_host = server_host, .port = 6100,
                          .code = 77, .ccid = 2};
  assert_int_equal(udccp_io_pair_open(p, &o), 0);
}

static void close_pair(pair *p) { udccp_io_pair_close(p); }

/* Three datagrams too short for DCCP (RFC 6773 §3.3 / RFC 4340 §3.3:
 * dropped and counted in rx_bad) to the server's IPv4 socket. */
static void junk(int fd, uint16_t port) {
  struct sockaddr_in to;
  memset(&to, 0, sizeof(to));
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(sendto(fd, "junk", 4, 0, (struct sockaddr *)&to,
                            sizeof(to)),
                     4);
  }
}

/* Issue 13: a turn that finds datagrams waiting made an epoll_wait to
 * learn that they were there, then the recvmmsg that read them.  Now 32
 * turns, each with datagrams waiting, ask epoll at most once in
 * UDCCP_IO_LOOK_EPOLL_EVERY (plus the first, before any read); every
 * datagram is still read in its turn.  Then an idle turn asks epoll. */
static void test_io_busy_turns_read_without_epoll(void **state) {
  (void)state;
  pair p;
  open_pair(&p, "127.0.0.1");
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  assert_true(fd >= 0);
  uint16_t port = udccp_endpoint_local_port(p.sep);
  udccp_endpoint_stats s0, s1;
  udccp_endpoint_get_stats(p.sep, &s0);
  enum { TURNS = 32 };
  for (int k = 0; k < TURNS; k++) {
    junk(fd, port);
    assert_int_equal(udccp_endpoint_run(p.sep, 0), 0);
    udccp_endpoint_get_stats(p.sep, &s1);
    assert_int_equal(s1.rx_bad - s0.rx_bad, 3 * (k + 1)); /* read now */
  }
  printf("%d turns with datagrams waiting: %llu epoll_wait calls, %llu "
         "reads\n",
         TURNS, (unsigned long long)(s1.polls - s0.polls),
         (unsigned long long)(s1.rx_batches - s0.rx_batches));
  /* one look in UDCCP_IO_LOOK_EPOLL_EVERY + 1 asks epoll */
  assert_true(s1.polls - s0.polls >=
              (TURNS - 1) / (UDCCP_IO_LOOK_EPOLL_EVERY + 1));
  assert_true(s1.polls - s0.polls <= TURNS / UDCCP_IO_LOOK_EPOLL_EVERY + 1);
  /* nothing waiting: the look finds nothing and asks epoll */
  s0 = s1;
  assert_int_equal(udccp_endpoint_run(p.sep, 0), 0);
  udccp_endpoint_get_stats(p.sep, &s1);
  assert_int_equal(s1.polls - s0.polls, 1);
  assert_int_equal(s1.rx_bad, s0.rx_bad);
  close(fd);
  close_pair(&p);
}

/* A socket without connections is read through epoll only: with the
 * server's IPv4 socket busy every turn, a client's Request to its IPv6
 * socket (an endpoint bound to every address has both) is still read
 * within UDCCP_IO_LOOK_EPOLL_EVERY turns and answered. */
static void test_io_busy_socket_leaves_listener_socket_read(void **state) {
  (void)state;
  pair p;
  open_pair(&p, NULL);
  if (p.sep->fd[UDCCP_IO_V6] < 0) {
    close_pair(&p);
    skip(); /* no IPv6 here */
  }
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "::1";
  cfg.remote_udp_port = udccp_endpoint_local_port(p.sep);
  udccp_endpoint *c6ep = NULL;
  if (udccp_endpoint_new_config(&c6ep, &cfg) != 0) {
    close_pair(&p);
    skip();
  }
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  assert_true(fd >= 0);
  uint16_t port = udccp_endpoint_local_port(p.sep);
  udccp_sock *c6 = NULL;
  assert_int_equal(udccp_connect(c6ep, &c6, "::1", 6100, 77, 2, 0), 0);
  int turns = 0;
  uint64_t end = ms_now() + 5000;
  /* PARTOPEN: the server read the Request and answered (RFC 4340 §8.1) */
  while (ms_now() < end && udccp_sock_state(c6) < UDCCP_STATE_PARTOPEN) {
    junk(fd, port); /* the IPv4 socket has datagrams at every turn */
    assert_int_equal(udccp_endpoint_run(p.sep, 0), 0);
    assert_int_equal(udccp_endpoint_run(c6ep, 0), 0);
    turns++;
  }
  printf("IPv6 Request answered after %d turns of a busy IPv4 socket\n",
         turns);
  assert_true(udccp_sock_state(c6) >= UDCCP_STATE_PARTOPEN);
  assert_true(turns <= UDCCP_IO_LOOK_EPOLL_EVERY + 1);
  udccp_abort(c6);
  udccp_endpoint_del(c6ep);
  close(fd);
  close_pair(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_io_busy_turns_read_without_epoll),
      cmocka_unit_test(test_io_busy_socket_leaves_listener_socket_read),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Path MTU handling of the runtime (RFC 4340 §14, RFC 6773 §3.7): sockets
 * send with DF (IP_PMTUDISC_DO); a packet larger than the path MTU fails
 * with EMSGSIZE, the runtime learns the route's MTU and the connection's
 * MPS shrinks, after which a datagram above the MPS is refused with
 * UDCCP_ERR_MSGSIZE.  The test runs in a private network namespace (the
 * host's network is not touched) whose loopback starts with a 1500-byte
 * MTU: a connection starts from its route's MTU (io/pmtu.c), 1500 here;
 * the loopback's MTU then drops to 1280 under the open connection, and a
 * connection made after that starts from what was learnt.  That needs
 * root, and without it the test FAILS saying so.
 */
#define _GNU_SOURCE
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "privnet.h"

#define LO_MTU 1280
#define START_MTU 1500

static uint64_t ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void run(const char *host) {
  udccp_endpoint *sep = NULL, *cep = NULL;
  assert_int_equal(udccp_endpoint_new(&sep, UDCCP_TRANSPORT_UDP, host, 0), 0);
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = host;
  cfg.remote_udp_port = udccp_endpoint_local_port(sep);
  assert_int_equal(udccp_endpoint_new_config(&cep, &cfg), 0);
  uint32_t code = 3;
  assert_int_equal(udccp_listen(sep, 7000, &code, 1), 0);
  udccp_sock *c = NULL, *s = NULL;
  assert_int_equal(udccp_connect(cep, &c, host, 7000, code, 0, 0), 0);
  uint64_t end = ms_now() + 5000;
  while (s == NULL && ms_now() < end) {
    (void)udccp_endpoint_process(cep);
    (void)udccp_accept(sep, &s, 1);
  }
  assert_non_null(s);
  size_t mps0 = udccp_sock_get_mps(c);
  size_t hdrs = (host[0] == ':' ? 40 : 20) + 8;
  /* the route's MTU at connect: the 1500-byte path's MPS, the DCCP header
   * (24 bytes with 48-bit numbers) and room for options off */
  assert_true(mps0 > LO_MTU && mps0 <= START_MTU - hdrs - 24);
  assert_true(udccp_sock_get_mps(s) == mps0); /* the server's too */
  /* the path's MTU drops under the open connection */
  assert_int_equal(udccp_test_set_loopback_mtu(LO_MTU), 0);
  static uint8_t big[1500];
  assert_int_equal(udccp_send(c, big, mps0, 1000), (udccp_ssize)mps0);
  end = ms_now() + 3000;
  while (udccp_sock_get_mps(c) >= mps0 && ms_now() < end) {
    (void)udccp_endpoint_run(cep, 5);
    (void)udccp_endpoint_process(sep);
  }
  size_t mps1 = udccp_sock_get_mps(c);
  udccp_endpoint_stats st;
  udccp_endpoint_get_stats(cep, &st);
  assert_true(st.pmtu_updates >= 1);
  assert_true(mps1 < LO_MTU - 28);
  /* RFC 4340 §14: the application learns the new limit */
  assert_int_equal(udccp_send(c, big, mps1 + 1, 0), UDCCP_ERR_MSGSIZE);
  assert_int_equal(udccp_send(c, big, mps1, 1000), (udccp_ssize)mps1);
  uint8_t buf[1500];
  udccp_ssize n = UDCCP_ERR_AGAIN;
  end = ms_now() + 3000;
  while (n != (udccp_ssize)mps1 && ms_now() < end) {
    (void)udccp_endpoint_process(cep);
    n = udccp_recv(s, buf, sizeof(buf), 2);
  }
  assert_int_equal(n, (udccp_ssize)mps1);
  /* a new connection to that peer starts from what was learnt (the
   * endpoint's route cache took the new MTU) */
  udccp_sock *c2 = NULL;
  assert_int_equal(udccp_connect(cep, &c2, host, 7000, code, 0, 0), 0);
  assert_true(udccp_sock_get_mps(c2) <= mps1);
  udccp_abort(c2);
  udccp_endpoint_del(cep);
  udccp_endpoint_del(sep);
  assert_int_equal(udccp_test_set_loopback_mtu(START_MTU), 0);
}

static void test_rfc4340_14_emsgsize_shrinks_mps(void **state) {
  (void)state;
  run("127.0.0.1");
  run("::1");
}

int main(void) {
  int rv = udccp_test_private_loopback(START_MTU);
  if (rv != 0) {
    fprintf(stderr, "test_io_pmtu: FAIL: needs root to create a private "
                    "network namespace with its own loopback (step %d); "
                    "run as root\n", -rv);
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_14_emsgsize_shrinks_mps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

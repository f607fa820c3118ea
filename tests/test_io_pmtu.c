/* SPDX-License-Identifier: MIT */
/*
 * Path MTU handling of the runtime (RFC 4340 §14, RFC 6773 §3.7): sockets
 * send with DF (IP_PMTUDISC_DO); a packet larger than the path MTU fails
 * with EMSGSIZE, the runtime learns the route's MTU and the connection's
 * MPS shrinks, after which a datagram above the MPS is refused with
 * UDCCP_ERR_MSGSIZE.  The test runs in a private network namespace whose
 * loopback has a 1280-byte MTU (the host's network is not touched); that
 * needs root, and without it the test FAILS saying so.
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
  /* the default path MTU (1500) is larger than this path's */
  assert_true(mps0 > LO_MTU);
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
  udccp_endpoint_del(cep);
  udccp_endpoint_del(sep);
}

static void test_rfc4340_14_emsgsize_shrinks_mps(void **state) {
  (void)state;
  run("127.0.0.1");
  run("::1");
}

int main(void) {
  int rv = udccp_test_private_loopback(LO_MTU);
  if (rv != 0) {
    fprintf(stderr, "test_io_pmtu: FAIL: needs root to create a private "
                    "network namespace with a 1280-byte loopback (step %d); "
                    "run as root\n", -rv);
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_14_emsgsize_shrinks_mps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

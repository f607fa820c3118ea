/* SPDX-License-Identifier: MIT */
/*
 * Connections over a lossy path: with 20% random loss in both directions
 * a connection still establishes (RFC 4340 §8.1 retransmissions), moves
 * data, and closes (§8.3), with no stuck state and no leak.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "pair.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

static void run_lossy(uint64_t seed, double loss, int server_closes) {
  udccp_pair p;
  udccp_settings cs, ss;
  uint8_t buf[1500];
  int i, got[2] = {0, 0};
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  udccp_pair_settings(&p, &ss);
  cs.timewait = ss.timewait = 2 * S;
  assert_int_equal(udccp_pair_init(&p, &cs, &ss, NULL, seed), 0);
  p.loss[0] = p.loss[1] = loss;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 120 * S));
  for (i = 0; i < 200; ++i) {
    memset(buf, i, 300);
    while (udccp_conn_queue_datagram(p.c[0], buf, 300, 0, p.now) ==
           UDCCP_ERR_AGAIN) {
      udccp_pair_run_for(&p, 20 * MS);
    }
    while (udccp_conn_queue_datagram(p.c[1], buf, 200, 0, p.now) ==
           UDCCP_ERR_AGAIN) {
      udccp_pair_run_for(&p, 20 * MS);
    }
    while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
      got[1]++;
    }
    while (udccp_conn_read_datagram(p.c[0], buf, sizeof(buf)) > 0) {
      got[0]++;
    }
  }
  udccp_pair_run_for(&p, 5 * S);
  while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
    got[1]++;
  }
  while (udccp_conn_read_datagram(p.c[0], buf, sizeof(buf)) > 0) {
    got[0]++;
  }
  print_message("seed %llu: delivered %d / %d of 200, dropped %llu / %llu\n",
                (unsigned long long)seed, got[1], got[0],
                (unsigned long long)p.dropped[0],
                (unsigned long long)p.dropped[1]);
  /* Unreliable datagrams: roughly 1 - loss of them arrive. */
  assert_true(got[1] >= 100 && got[1] <= 200);
  assert_true(got[0] >= 100 && got[0] <= 200);
  assert_int_equal(udccp_conn_close(p.c[server_closes], p.now), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_done, NULL, 300 * S));
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_CLOSED);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_lossy_path_client_close(void **state) {
  uint64_t seed;
  (void)state;
  for (seed = 1; seed <= 10; ++seed) {
    run_lossy(seed, 0.2, 0);
  }
}

static void test_rfc4340_8_lossy_path_server_close(void **state) {
  uint64_t seed;
  (void)state;
  for (seed = 100; seed <= 109; ++seed) {
    run_lossy(seed, 0.2, 1);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_8_lossy_path_client_close),
      cmocka_unit_test(test_rfc4340_8_lossy_path_server_close),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

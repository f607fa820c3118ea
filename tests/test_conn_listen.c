/* SPDX-License-Identifier: MIT */
/*
 * DCCP-Listen and the simultaneous-open technique (RFC 5596).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "pair.h"
#include "pktbuild.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

static int drop_first_request(udccp_pair *p, int dir, const uint8_t *pkt,
                              size_t len, uint64_t idx, void *ud) {
  int *n = ud;
  (void)p;
  (void)idx;
  if (dir == 0 && len > 8 && ((pkt[8] >> 1) & 0xF) == UDCCP_PKT_REQUEST &&
      *n > 0) {
    (*n)--;
    return 1;
  }
  return 0;
}

/* A pair whose server side is a listen_new connection created at 0. */
static void listen_pair(udccp_pair *p, uint64_t seed) {
  assert_int_equal(udccp_pair_init(p, NULL, NULL, NULL, seed), 0);
  assert_int_equal(udccp_conn_listen_new(&p->c[1], &p->s[1], &p->path[1], 42,
                                         0),
                   0);
}

static void test_rfc5596_2_2_2_listen_repetition(void **state) {
  udccp_conn *c = NULL;
  udccp_pair p;
  uint8_t buf[1500];
  udccp_ssize n;
  udccp_conn_rxpkt rp;
  udccp_tstamp t;
  int sent = 0;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &p.s[1]);
  udccp_tb_path4(&p.path[1], "10.0.0.2", 5001, "10.0.0.1", 40001);
  assert_int_equal(udccp_conn_listen_new(&c, &p.s[1], &p.path[1], 77, 0), 0);
  assert_int_equal(udccp_conn_get_state(c), UDCCP_STATE_LISTEN);
  for (t = 0; t < 3 * S; t += 10 * MS) {
    if (udccp_conn_get_expiry(c) <= t) {
      udccp_conn_handle_expiry(c, t);
    }
    while ((n = udccp_conn_write_pkt(c, buf, sizeof(buf), NULL, t)) > 0) {
      assert_int_equal(udccp_conn_decode(&rp, buf, (size_t)n), 0);
      assert_int_equal(rp.h.type, UDCCP_PKT_LISTEN);
      assert_int_equal(rp.h.x, 1);
      assert_int_equal(rp.h.seq, 0); /* §2.2.1 */
      assert_int_equal(rp.h.service_code, 77);
      assert_int_equal(rp.h.cscov, 0);
      /* One at 0, repetitions 200 ms apart. */
      assert_true(t == (udccp_tstamp)sent * 200 * MS);
      sent++;
    }
  }
  /* At most two repetitions. */
  assert_int_equal(sent, 3);
  assert_int_equal(udccp_conn_get_state(c), UDCCP_STATE_LISTEN);
  udccp_conn_del(c);
}

/* A server in LISTEN with an idle timeout: handle_expiry does not apply
 * the timeout in LISTEN, so get_expiry must not name it either (it did:
 * the caller was woken at the timeout over and over, a timer in the past;
 * found by fuzz_pair). */
static void test_rfc5596_listen_idle_timeout_no_past_timer(void **state) {
  udccp_conn *c = NULL;
  udccp_pair p;
  uint8_t buf[1500];
  udccp_tstamp t;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &p.s[1]);
  p.s[1].idle_timeout = 2 * S;
  udccp_tb_path4(&p.path[1], "10.0.0.2", 5001, "10.0.0.1", 40001);
  assert_int_equal(udccp_conn_listen_new(&c, &p.s[1], &p.path[1], 77, 0), 0);
  for (t = 0; t < 5 * S; t += 10 * MS) {
    if (udccp_conn_get_expiry(c) <= t) {
      udccp_conn_handle_expiry(c, t);
    }
    while (udccp_conn_write_pkt(c, buf, sizeof(buf), NULL, t) > 0) {
    }
    assert_true(udccp_conn_get_expiry(c) > t);
  }
  assert_int_equal(udccp_conn_get_state(c), UDCCP_STATE_LISTEN);
  udccp_conn_del(c);
}

static void test_rfc5596_simultaneous_open(void **state) {
  udccp_pair p;
  int drops = 1;
  (void)state;
  listen_pair(&p, 1);
  /* The client's first Request dies in the (simulated) middlebox. */
  p.drop = drop_first_request;
  p.drop_ud = &drops;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  assert_true(udccp_pair_count(&p, 1, UDCCP_PKT_LISTEN) >= 1);
  /* §2.2.3.1: the Listen triggered the second Request at once, not after
   * the 1 s Request timer. */
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_REQUEST), 2);
  assert_true(p.now < 500 * MS);
  assert_int_equal(p.server_conns, 0); /* no listener involved */
  udccp_pair_free(&p);
}

static void test_rfc5596_2_2_3_one_triggered_request_only(void **state) {
  udccp_pair p;
  uint8_t buf[1500], lst[64];
  udccp_tb_pkt tp;
  udccp_ssize n;
  int i, requests = 0;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 2), 0);
  assert_true(udccp_conn_write_pkt(p.c[0], buf, sizeof(buf), NULL, 0) > 0);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_LISTEN, 0, 0);
  tp.service_code = 42;
  n = udccp_tb_encode(lst, sizeof(lst), &p.path[1], &tp);
  for (i = 0; i < 3; ++i) {
    udccp_conn_read_pkt(p.c[0], lst, (size_t)n, 0, (udccp_tstamp)i * MS);
    while (udccp_conn_write_pkt(p.c[0], buf, sizeof(buf), NULL,
                                (udccp_tstamp)i * MS) > 0) {
      requests++;
    }
  }
  assert_int_equal(requests, 1);
  udccp_pair_free(&p);
}

static void test_rfc5596_2_2_2_server_ignores_listen_refuses_others(
    void **state) {
  udccp_pair p;
  uint8_t buf[1500], pkt[64];
  udccp_tb_pkt tp;
  udccp_ssize n;
  udccp_conn_rxpkt rp;
  (void)state;
  listen_pair(&p, 3);
  while (udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), NULL, 0) > 0) {
  }
  udccp_tb_pkt_init(&tp, UDCCP_PKT_LISTEN, 0, 0);
  tp.service_code = 42;
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_int_equal(udccp_conn_read_pkt(p.c[1], pkt, (size_t)n, 0, 0),
                   UDCCP_ERR_DROPPED);
  assert_int_equal(udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), NULL, 0), 0);
  /* Anything but a Request gets Reset(No Connection) (§8.5 step 3). */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, 10, 20);
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_int_equal(udccp_conn_read_pkt(p.c[1], pkt, (size_t)n, 0, 0),
                   UDCCP_ERR_DROPPED);
  n = udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), NULL, 0);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, buf, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_NO_CONNECTION);
  assert_int_equal(udccp_conn_get_state(p.c[1]), UDCCP_STATE_LISTEN);
  /* A Request for another Service Code: Bad Service Code. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_REQUEST, 10, 0);
  tp.service_code = 43;
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_int_equal(udccp_conn_read_pkt(p.c[1], pkt, (size_t)n, 0, 0),
                   UDCCP_ERR_SERVICE);
  n = udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), NULL, 0);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, buf, (size_t)n), 0);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_BAD_SERVICE_CODE);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc5596_2_2_2_listen_repetition),
      cmocka_unit_test(test_rfc5596_listen_idle_timeout_no_past_timer),
      cmocka_unit_test(test_rfc5596_simultaneous_open),
      cmocka_unit_test(test_rfc5596_2_2_3_one_triggered_request_only),
      cmocka_unit_test(test_rfc5596_2_2_2_server_ignores_listen_refuses_others),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

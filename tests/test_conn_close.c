/* SPDX-License-Identifier: MIT */
/*
 * Connection termination (RFC 4340 §8.3): every close path over the pair.
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

typedef struct dropper {
  int dir;
  uint8_t type;
  int count;
  int dropped;
} dropper;

static int drop_type(udccp_pair *p, int dir, const uint8_t *pkt, size_t len,
                     uint64_t idx, void *ud) {
  dropper *d = ud;
  (void)p;
  (void)idx;
  if (dir == d->dir && len > 8 && ((pkt[8] >> 1) & 0xF) == d->type &&
      d->dropped < d->count) {
    d->dropped++;
    return 1;
  }
  return 0;
}

static void open_pair(udccp_pair *p, const udccp_settings *cs,
                      const udccp_settings *ss, uint64_t seed) {
  assert_int_equal(udccp_pair_init(p, cs, ss, NULL, seed), 0);
  assert_true(udccp_pair_run_until(p, udccp_pair_both_open, NULL, 5 * S));
}

static void test_rfc4340_8_3_client_close_client_holds_timewait(void **state) {
  udccp_pair p;
  (void)state;
  open_pair(&p, NULL, NULL, 1);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_CLOSE), 1);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_RESET), 1);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_CLOSED);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]), UDCCP_RESET_CLOSED);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_CLOSED);
  assert_true(udccp_conn_is_done(p.c[1]));
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_server_close_via_closereq(void **state) {
  udccp_pair p;
  (void)state;
  open_pair(&p, NULL, NULL, 2);
  assert_int_equal(udccp_conn_close(p.c[1], p.now), 0);
  udccp_pair_run_for(&p, 1 * S);
  /* Server: CloseReq; client: Close; server: Reset(Closed). */
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_CLOSEREQ), 1);
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_CLOSE), 1);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_RESET), 1);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[1]), UDCCP_ERR_CLOSED);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_server_timewait_sends_close(void **state) {
  udccp_pair p;
  udccp_settings ss;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &ss);
  ss.server_timewait = 1;
  open_pair(&p, NULL, &ss, 3);
  assert_int_equal(udccp_conn_close(p.c[1], p.now), 0);
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_CLOSEREQ), 0);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_CLOSE), 1);
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_RESET), 1);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_TIMEWAIT);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_simultaneous_close(void **state) {
  udccp_pair p;
  (void)state;
  open_pair(&p, NULL, NULL, 4);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  assert_int_equal(udccp_conn_close(p.c[1], p.now), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_done, NULL, 200 * S));
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[1]), UDCCP_ERR_CLOSED);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_close_sends_queued_data_first(void **state) {
  udccp_pair p;
  uint8_t buf[1500];
  int i, got = 0;
  udccp_ssize n;
  (void)state;
  open_pair(&p, NULL, NULL, 5);
  for (i = 0; i < 30; ++i) {
    memset(buf, i, 500);
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 500, 0, p.now), 0);
  }
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  /* No new data after close. */
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 10, 0, p.now),
                   UDCCP_ERR_INVALID_STATE);
  udccp_pair_run_for(&p, 5 * S);
  while ((n = udccp_conn_read_datagram(p.c[1], buf, sizeof(buf))) > 0) {
    assert_int_equal(buf[0], got);
    got++;
  }
  assert_int_equal(got, 30);
  /* Drained, then the fatal code of a normal close. */
  assert_int_equal(n, UDCCP_ERR_CLOSED);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_lost_close_retransmitted(void **state) {
  udccp_pair p;
  dropper d = {0, UDCCP_PKT_CLOSE, 2, 0};
  udccp_conn_info info;
  (void)state;
  open_pair(&p, NULL, NULL, 6);
  p.drop = drop_type;
  p.drop_ud = &d;
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  udccp_pair_run_for(&p, 10 * S);
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_CLOSE), 3);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_CLOSED);
  udccp_conn_get_info(p.c[0], &info);
  assert_int_equal(info.retransmits, 2);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_lost_closereq_retransmitted_then_giveup(void **state) {
  udccp_pair p;
  udccp_settings ss;
  dropper d = {1, UDCCP_PKT_CLOSEREQ, 1000, 0};
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &ss);
  ss.close_timeout = 10 * S;
  open_pair(&p, NULL, &ss, 7);
  p.drop = drop_type;
  p.drop_ud = &d;
  assert_int_equal(udccp_conn_close(p.c[1], p.now), 0);
  udccp_pair_run_for(&p, 20 * S);
  assert_true(udccp_pair_count(&p, 1, UDCCP_PKT_CLOSEREQ) >= 3);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[1]), UDCCP_ERR_TIMEOUT);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_timewait_lasts_2msl(void **state) {
  udccp_pair p;
  udccp_settings cs;
  udccp_tstamp t0;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.timewait = 5 * S;
  open_pair(&p, &cs, NULL, 8);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  while (udccp_pair_state(&p, 0) != UDCCP_STATE_TIMEWAIT) {
    assert_true(udccp_pair_step(&p));
  }
  t0 = p.now;
  udccp_pair_run_for(&p, 5 * S - 10 * MS);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  assert_false(udccp_conn_is_done(p.c[0]));
  udccp_pair_run_for(&p, 20 * MS);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  assert_true(udccp_conn_is_done(p.c[0]));
  assert_true(p.now - t0 >= 5 * S);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_5_step2_timewait_answers_no_connection(void **state) {
  udccp_pair p;
  uint8_t pkt[256], out[1500];
  udccp_ssize n;
  udccp_tb_pkt tp;
  (void)state;
  open_pair(&p, NULL, NULL, 9);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATA, 777, 0);
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[1], &tp);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_read_pkt(p.c[0], pkt, (size_t)n, 0, p.now),
                   UDCCP_ERR_DROPPED);
  n = udccp_conn_write_pkt(p.c[0], out, sizeof(out), NULL, p.now);
  assert_true(n > 0);
  {
    udccp_conn_rxpkt rp;
    assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
    assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
    assert_int_equal(rp.h.reset_code, UDCCP_RESET_NO_CONNECTION);
    /* §8.3.1: ackno is the packet's seqno; seqno 0 (Data has no ack). */
    assert_int_equal(rp.h.ack, 777);
    assert_int_equal(rp.h.seq, 0);
  }
  /* A Reset is never answered. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_RESET, 778, 1);
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[1], &tp);
  udccp_conn_read_pkt(p.c[0], pkt, (size_t)n, 0, p.now);
  assert_int_equal(udccp_conn_write_pkt(p.c[0], out, sizeof(out), NULL, p.now),
                   0);
  udccp_pair_free(&p);
}

/* Only the Response gets through from the server: the client stays in
 * PARTOPEN. */
static int drop_after_response(udccp_pair *p, int dir, const uint8_t *pkt,
                               size_t len, uint64_t idx, void *ud) {
  (void)p, (void)pkt, (void)len, (void)ud;
  return dir == 1 && idx >= 1;
}

/* §8.3 with §8.1.5: a client that closes in PARTOPEN with nothing queued
 * sends its Close once OPEN; meanwhile its expiry must not stay at "now"
 * (found by udccp-sim --chaos seeds 369 and 680: the caller spun). */
static void test_rfc4340_8_3_close_in_partopen_does_not_spin(void **state) {
  udccp_pair p;
  uint8_t buf[UDCCP_PAIR_MTU];
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 3), 0);
  p.drop = drop_after_response;
  udccp_pair_run_for(&p, 100 * MS);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_PARTOPEN);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  while (udccp_conn_write_pkt(p.c[0], buf, sizeof(buf), NULL, p.now) > 0) {
  }
  assert_true(udccp_conn_get_expiry(p.c[0]) > p.now);
  /* and once the server gets through, the close completes */
  p.drop = NULL;
  udccp_pair_run_for(&p, 10 * S);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_CLOSED);
  udccp_pair_free(&p);
}

static void test_udccp_idle_timeout_aborts(void **state) {
  udccp_pair p;
  udccp_settings cs;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.idle_timeout = 3 * S;
  open_pair(&p, &cs, NULL, 10);
  p.loss[1] = 1.0; /* the server falls silent */
  udccp_pair_run_for(&p, 2 * S);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  udccp_pair_run_for(&p, 2 * S);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_TIMEOUT);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]), UDCCP_RESET_ABORTED);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_8_3_client_close_client_holds_timewait),
      cmocka_unit_test(test_rfc4340_8_3_server_close_via_closereq),
      cmocka_unit_test(test_rfc4340_8_3_server_timewait_sends_close),
      cmocka_unit_test(test_rfc4340_8_3_simultaneous_close),
      cmocka_unit_test(test_rfc4340_8_3_close_sends_queued_data_first),
      cmocka_unit_test(test_rfc4340_8_3_lost_close_retransmitted),
      cmocka_unit_test(test_rfc4340_8_3_lost_closereq_retransmitted_then_giveup),
      cmocka_unit_test(test_rfc4340_8_3_timewait_lasts_2msl),
      cmocka_unit_test(test_rfc4340_8_5_step2_timewait_answers_no_connection),
      cmocka_unit_test(test_rfc4340_8_3_close_in_partopen_does_not_spin),
      cmocka_unit_test(test_udccp_idle_timeout_aborts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

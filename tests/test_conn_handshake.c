/* SPDX-License-Identifier: MIT */
/*
 * Connection handshake (RFC 4340 §8.1), over the in-memory pair.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cksum.h"
#include "conn.h"
#include "opt.h"
#include "pair.h"
#include "pktbuild.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

static void test_rfc4340_8_1_three_way_handshake(void **state) {
  udccp_pair p;
  udccp_conn_info ci, si;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 1), 0);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_REQUEST);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  /* Request, Ack from the client; Response from the server. */
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_REQUEST), 1);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_RESPONSE), 1);
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_ACK) >= 1);
  assert_int_equal(p.log[0][0], UDCCP_PKT_REQUEST);
  assert_int_equal(p.log[1][0], UDCCP_PKT_RESPONSE);
  udccp_conn_get_info(p.c[0], &ci);
  udccp_conn_get_info(p.c[1], &si);
  /* §8.5: each side's GSR is the other's GSS. */
  assert_true(ci.gsr == si.gss);
  assert_true(si.gsr == ci.gss);
  assert_int_equal(ci.tx_ccid, 2);
  assert_int_equal(si.rx_ccid, 2);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_data_both_ways_and_client_close(void **state) {
  udccp_pair p;
  uint8_t buf[1500];
  int i, got = 0;
  udccp_ssize n;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 2), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  for (i = 0; i < 10; ++i) {
    memset(buf, i, 100);
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 100, 0, p.now), 0);
    assert_int_equal(udccp_conn_queue_datagram(p.c[1], buf, 50, 0, p.now), 0);
  }
  udccp_pair_run_for(&p, 2 * S);
  while ((n = udccp_conn_read_datagram(p.c[1], buf, sizeof(buf))) > 0) {
    assert_int_equal(n, 100);
    assert_int_equal(buf[0], got);
    got++;
  }
  assert_int_equal(got, 10);
  got = 0;
  while ((n = udccp_conn_read_datagram(p.c[0], buf, sizeof(buf))) > 0) {
    assert_int_equal(n, 50);
    got++;
  }
  assert_int_equal(got, 10);
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  udccp_pair_run_for(&p, 1 * S);
  /* §8.3: the client that closed holds TIMEWAIT; the server is gone. */
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[1]), UDCCP_ERR_CLOSED);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)),
                   UDCCP_ERR_CLOSED);
  udccp_pair_free(&p);
}

/* Drops the first `count` packets of `type` in direction `dir`. */
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

static void test_rfc4340_8_1_4_init_cookie_handshake(void **state) {
  udccp_pair p;
  udccp_listener_settings ls;
  const uint32_t code = 42;
  uint8_t buf[1500];
  (void)state;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = &code;
  ls.n_service_codes = 1;
  ls.init_cookie = 1;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, &ls, 3), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  /* The Response was a stateless reply; the connection came from the Ack,
   * directly in OPEN (§8.5 step 3 with a valid Init Cookie). */
  assert_int_equal(p.stateless_replies, 1);
  assert_int_equal(p.server_conns, 1);
  memset(buf, 7, 200);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 200, 0, p.now), 0);
  assert_int_equal(udccp_conn_queue_datagram(p.c[1], buf, 200, 0, p.now), 0);
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)), 200);
  assert_int_equal(udccp_conn_read_datagram(p.c[0], buf, sizeof(buf)), 200);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_4_bad_init_cookie_reset(void **state) {
  udccp_pair p;
  udccp_listener_settings ls;
  const uint32_t code = 42;
  udccp_conn *nc = NULL;
  uint8_t pkt[1500], out[1500];
  udccp_ssize n;
  udccp_conn_rxpkt rp;
  (void)state;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = &code;
  ls.n_service_codes = 1;
  ls.init_cookie = 1;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, &ls, 4), 0);
  /* Run until the client is in PARTOPEN, then capture its Ack. */
  while (udccp_pair_state(&p, 0) != UDCCP_STATE_PARTOPEN) {
    assert_true(udccp_pair_step(&p));
  }
  n = udccp_conn_write_pkt(p.c[0], pkt, sizeof(pkt), NULL, p.now);
  if (n == 0) {
    /* The Ack already left: force a PARTOPEN retransmission. */
    p.c[0]->pending |= UDCCP_PEND_ACK;
    n = udccp_conn_write_pkt(p.c[0], pkt, sizeof(pkt), NULL, p.now);
  }
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, pkt, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_ACK);
  assert_int_equal(udccp_opts_parse(&rp.opts, rp.h.type, rp.h.opts,
                                    rp.h.opts_len), 0);
  assert_true(rp.opts.present & UDCCP_OPTS_HAS_INIT_COOKIE);
  /* Flip one cookie byte: the MAC fails. */
  pkt[(size_t)(rp.opts.init_cookie - pkt) + 5] ^= 1;
  /* Recompute the checksum as the client would have sent it. */
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

static void test_rfc4340_8_1_1_request_loss_retransmitted(void **state) {
  udccp_pair p;
  dropper d = {0, UDCCP_PKT_REQUEST, 2, 0};
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 5), 0);
  p.drop = drop_type;
  p.drop_ud = &d;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 10 * S));
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_REQUEST), 3);
  /* Back-off: 1 s, then 2 s, so the third Request leaves at 3 s. */
  assert_true(p.now >= 3 * S && p.now < 4 * S);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_1_request_backoff_and_giveup(void **state) {
  udccp_pair p;
  udccp_settings cs;
  dropper d = {0, UDCCP_PKT_REQUEST, 1000, 0};
  udccp_conn_info info;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.request_rto = 1 * S;
  cs.request_timeout = 20 * S;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 6), 0);
  p.drop = drop_type;
  p.drop_ud = &d;
  udccp_pair_run_for(&p, 30 * S);
  /* Requests at 0, 1, 3, 7, 15 s; at 20 s it gives up. */
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_REQUEST), 5);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_TIMEOUT);
  udccp_conn_get_info(p.c[0], &info);
  assert_int_equal(info.retransmits, 4);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_3_response_loss(void **state) {
  udccp_pair p;
  dropper d = {1, UDCCP_PKT_RESPONSE, 1, 0};
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 7), 0);
  p.drop = drop_type;
  p.drop_ud = &d;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 10 * S));
  /* The retransmitted Request made the server (in RESPOND) resend. */
  assert_int_equal(udccp_pair_count(&p, 0, UDCCP_PKT_REQUEST), 2);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_RESPONSE), 2);
  assert_int_equal(p.server_conns, 1);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_5_partopen_ack_retransmitted(void **state) {
  udccp_pair p;
  dropper d = {0, UDCCP_PKT_ACK, 2, 0};
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 8), 0);
  p.drop = drop_type;
  p.drop_ud = &d;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 10 * S));
  assert_int_equal(d.dropped, 2);
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_ACK) >= 3);
  /* Acks at ~30 ms, +200 ms, +400 ms: open well before 1 s. */
  assert_true(p.now < 1 * S);
  udccp_pair_free(&p);
}


/* The Confirm options (Confirm L/R, §6) in a packet's options area. */
static int count_confirms(const uint8_t *pkt, size_t len) {
  udccp_conn_rxpkt rp;
  size_t i = 0;
  int n = 0;
  if (udccp_conn_decode(&rp, pkt, len) != 0) {
    return -1;
  }
  while (i < rp.h.opts_len) {
    uint8_t t = rp.h.opts[i];
    if (t < 32) {
      i++;
      continue;
    }
    if (i + 1 >= rp.h.opts_len || rp.h.opts[i + 1] < 2) {
      return -1;
    }
    if (t == UDCCP_OPT_CONFIRM_L || t == UDCCP_OPT_CONFIRM_R) {
      n++;
    }
    i += rp.h.opts[i + 1];
  }
  return n;
}

typedef struct partopen_watch {
  int first_ack_dropped;
  int partopen_pkts; /* client Acks/DataAcks sent in PARTOPEN, after it */
  int partopen_without_confirm;
  int first_ack_confirms;
} partopen_watch;

static int watch_partopen(udccp_pair *p, int dir, const uint8_t *pkt,
                          size_t len, uint64_t idx, void *ud) {
  partopen_watch *w = ud;
  uint8_t t = len > 8 ? (uint8_t)((pkt[8] >> 1) & 0xF) : 0;
  (void)idx;
  if (dir != 0 || (t != UDCCP_PKT_ACK && t != UDCCP_PKT_DATAACK) ||
      udccp_pair_state(p, 0) != UDCCP_STATE_PARTOPEN) {
    return 0;
  }
  if (!w->first_ack_dropped) {
    w->first_ack_dropped = 1;
    w->first_ack_confirms = count_confirms(pkt, len);
    return 1;
  }
  w->partopen_pkts++;
  if (count_confirms(pkt, len) <= 0) {
    w->partopen_without_confirm++;
  }
  return 0;
}

/* §8.1.5 with §6.6.3, for Linux's server: the client's first Ack (which
 * carries the Confirms of the Response's Changes) is lost and a DataAck
 * reaches the server first.  Linux activates its features on that packet
 * and refuses the connection (Reset Too Busy) unless it confirms every
 * one; so every packet the client sends in PARTOPEN repeats them. */
static void test_rfc4340_8_1_5_partopen_packets_repeat_confirms(void **state) {
  udccp_pair p;
  partopen_watch w = {0, 0, 0, 0};
  uint8_t data[200];
  int i;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 21), 0);
  p.drop = watch_partopen;
  p.drop_ud = &w;
  while (udccp_pair_state(&p, 0) != UDCCP_STATE_PARTOPEN) {
    assert_true(udccp_pair_step(&p));
  }
  memset(data, 7, sizeof(data));
  for (i = 0; i < 4; i++) {
    assert_int_equal(
        udccp_conn_queue_datagram(p.c[0], data, sizeof(data), 0, p.now), 0);
  }
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 10 * S));
  assert_int_equal(w.first_ack_dropped, 1);
  assert_true(w.first_ack_confirms > 0); /* else this test proves nothing */
  assert_true(w.partopen_pkts >= 1);
  assert_int_equal(w.partopen_without_confirm, 0);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_1_5_partopen_timeout_aborts(void **state) {
  udccp_pair p;
  udccp_settings cs;
  dropper d = {0, UDCCP_PKT_ACK, 100000, 0};
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.partopen_timeout = 5 * S;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 9), 0);
  p.drop = drop_type;
  p.drop_ud = &d;
  udccp_pair_run_for(&p, 10 * S);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_TIMEOUT);
  assert_int_equal(udccp_conn_get_reset_code(p.c[0]), UDCCP_RESET_ABORTED);
  udccp_pair_free(&p);
}

static void test_udccp_settings_validation(void **state) {
  udccp_pair p;
  udccp_settings s;
  udccp_conn *c = NULL;
  udccp_listener *lis = NULL;
  udccp_listener_settings ls;
  uint8_t buf[64];
  const uint32_t bad = UDCCP_SERVICE_CODE_INVALID;
  (void)state;
  memset(&p, 0, sizeof(p));
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 20), 0);
  udccp_pair_settings(&p, &s);
  s.rand = NULL;
  assert_int_equal(udccp_conn_client_new(&c, &s, &p.path[0], 1, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  udccp_pair_settings(&p, &s);
  s.seq_window = 31; /* §7.5.2: Wmin = 32 */
  assert_int_equal(udccp_conn_client_new(&c, &s, &p.path[0], 1, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  udccp_pair_settings(&p, &s);
  s.send_cscov = 16;
  assert_int_equal(udccp_conn_client_new(&c, &s, &p.path[0], 1, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  udccp_pair_settings(&p, &s);
  s.ccid = 99;
  assert_int_equal(udccp_conn_client_new(&c, &s, &p.path[0], 1, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_null(c);
  udccp_pair_settings(&p, &s);
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = &bad;
  ls.n_service_codes = 1;
  assert_int_equal(udccp_listener_new(&lis, &s, &ls, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  ls.n_service_codes = 0;
  assert_int_equal(udccp_listener_new(&lis, &s, &ls, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_null(lis);
  /* A buffer smaller than a packet can be. */
  assert_int_equal(udccp_conn_write_pkt(p.c[0], buf, sizeof(buf), NULL, 0),
                   UDCCP_ERR_NOBUF);
  udccp_pair_free(&p);
}

static void test_rfc4340_11_4_partopen_data_acked_no_false_loss(void **state) {
  udccp_pair p;
  udccp_conn_info ci;
  uint8_t buf[1500];
  udccp_tstamp end;
  (void)state;
  memset(buf, 0, sizeof(buf));
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 21), 0);
  p.delay[0] = p.delay[1] = 20 * MS;
  p.spacing[0] = p.spacing[1] = 200000; /* a 50 Mbit/s-like bottleneck */
  /* Greedy from the start: the first DataAcks leave in PARTOPEN, and the
   * one that opens the server must count as received in its Ack Vector
   * (Send Ack Vector takes effect with that very packet). */
  end = 600 * MS;
  while (p.now < end) {
    while (udccp_conn_get_send_space(p.c[0]) > 0 &&
           udccp_conn_queue_datagram(p.c[0], buf, 1000, 0, p.now) == 0) {
    }
    assert_true(udccp_pair_step(&p));
    if (p.c[1] != NULL) {
      while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
      }
    }
  }
  udccp_conn_get_info(p.c[0], &ci);
  print_message("cwnd %u ssthresh %u lost %llu\n", ci.cwnd, ci.ssthresh,
                (unsigned long long)ci.pkts_lost);
  /* No loss on this path: still in slow start, nothing declared lost. */
  assert_int_equal(ci.pkts_lost, 0);
  assert_true(ci.ssthresh > 1000);
  assert_true(ci.cwnd > 50);
  udccp_pair_free(&p);
}

/* §5.3: a Response's Service Code MUST equal the Request's.  A client
 * answered for another service resets with Bad Service Code (§8.1.2) and
 * reports it, instead of talking to the wrong service. */
static void test_rfc4340_5_3_response_service_code_must_match(void **state) {
  udccp_pair p;
  uint8_t buf[1500];
  udccp_tb_pkt tp;
  udccp_conn_rxpkt rp;
  (void)state;
  assert_int_equal(udccp_pair_init_sc(&p, NULL, NULL, NULL, 31, 77), 0);
  assert_true(udccp_conn_write_pkt(p.c[0], buf, sizeof(buf), NULL, 0) > 0);
  assert_int_equal(p.c[0]->service_code, 77);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_RESPONSE, 5000, p.c[0]->gss);
  tp.service_code = 78;
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), UDCCP_ERR_SERVICE);
  rp = udccp_pair_next_pkt(&p, 0, buf);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_BAD_SERVICE_CODE);
  assert_int_equal(rp.h.ack, 5000);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  assert_int_equal(udccp_conn_get_error(p.c[0]), UDCCP_ERR_SERVICE);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_8_1_three_way_handshake),
      cmocka_unit_test(test_rfc4340_8_1_data_both_ways_and_client_close),
      cmocka_unit_test(test_rfc4340_8_1_4_init_cookie_handshake),
      cmocka_unit_test(test_rfc4340_8_1_4_bad_init_cookie_reset),
      cmocka_unit_test(test_rfc4340_8_1_1_request_loss_retransmitted),
      cmocka_unit_test(test_rfc4340_8_1_1_request_backoff_and_giveup),
      cmocka_unit_test(test_rfc4340_8_1_3_response_loss),
      cmocka_unit_test(test_rfc4340_8_1_5_partopen_ack_retransmitted),
      cmocka_unit_test(test_rfc4340_8_1_5_partopen_packets_repeat_confirms),
      cmocka_unit_test(test_rfc4340_8_1_5_partopen_timeout_aborts),
      cmocka_unit_test(test_udccp_settings_validation),
      cmocka_unit_test(test_rfc4340_11_4_partopen_data_acked_no_false_loss),
      cmocka_unit_test(test_rfc4340_5_3_response_service_code_must_match),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Feature negotiation as the connection drives it (RFC 4340 §6, §7.5.2,
 * §11.3, §10): negotiated values applied when stable, Changes repeated
 * until Confirmed, and Linux's rule that a handshake leaving Changes
 * unconfirmed resets the connection.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "feat.h"
#include "pair.h"
#include "pktbuild.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

static void test_rfc4340_7_5_2_sequence_window_applied(void **state) {
  udccp_pair p;
  udccp_settings cs;
  udccp_conn_info si, ci;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.seq_window = 400;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 1), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 200 * MS);
  /* Sequence Window/client = 400: the server's window for the client's
   * packets is 400 wide, the client's ack window too (§7.5.1). */
  udccp_conn_get_info(p.c[1], &si);
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(udccp_seq_sub(si.swh, si.gsr), 300);
  assert_int_equal(p.c[0]->seqwin_local, 400);
  assert_int_equal(p.c[1]->seqwin_remote, 400);
  /* The other direction has the server's default, 1000. */
  assert_int_equal(udccp_seq_sub(ci.swh, ci.gsr), 750);
  assert_int_equal(p.c[0]->env.seq_window_out, 400);
  udccp_pair_free(&p);
}

static void test_rfc4340_11_3_ack_ratio_applied(void **state) {
  udccp_pair p;
  udccp_settings cs;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.ack_ratio = 4;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 2), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 200 * MS);
  /* Ack Ratio/client governs how the server acks the client's data: the
   * value in force at the client's sender half (negotiated from the
   * setting, then steered by CCID 2, RFC 4341 §6.1.2) is the one the
   * server's receiver half uses. */
  assert_true(udccp_feat_all_confirmed(&p.c[0]->feat));
  assert_int_equal(p.c[0]->env.ack_ratio,
                   udccp_feat_get_local(&p.c[0]->feat, UDCCP_FEAT_ACK_RATIO));
  assert_int_equal(p.c[1]->env_rx.ack_ratio, p.c[0]->env.ack_ratio);
  assert_int_equal(p.c[1]->env.ack_ratio,
                   udccp_feat_get_local(&p.c[1]->feat, UDCCP_FEAT_ACK_RATIO));
  assert_int_equal(p.c[0]->env_rx.ack_ratio, p.c[1]->env.ack_ratio);
  udccp_pair_free(&p);
}

static void test_rfc4340_10_ccid2_halves_and_ack_vectors(void **state) {
  udccp_pair p;
  udccp_conn_info ci, si;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 3), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_conn_get_info(p.c[0], &ci);
  udccp_conn_get_info(p.c[1], &si);
  assert_int_equal(ci.tx_ccid, 2);
  assert_int_equal(ci.rx_ccid, 2);
  assert_int_equal(si.tx_ccid, 2);
  assert_int_equal(si.rx_ccid, 2);
  assert_true(p.c[0]->tx_ccid_up && p.c[0]->rx_ccid_up);
  assert_true(p.c[1]->tx_ccid_up && p.c[1]->rx_ccid_up);
  /* RFC 4341 §10: CCID 2 needs Send Ack Vector at both receivers. */
  assert_true(p.c[0]->send_ackvec);
  assert_true(p.c[1]->send_ackvec);
  udccp_pair_free(&p);
}

/* RFC 4342 §5: a CCID 3 sender may ask for Ack Vectors "to determine
 * exactly which packets were lost" (udccp_settings.ack_vectors): a
 * non-mandatory Change R(Send Ack Vector, 1) that a udccp CCID 3 receiver
 * grants, whichever end is the server; without it neither sends them. */
static void run_ccid3_ackvec(int client_asks, int server_asks, int *cli_sends,
                             int *srv_sends) {
  udccp_pair p;
  udccp_settings cs, ss;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  udccp_pair_settings(&p, &ss);
  cs.ccid = ss.ccid = 3;
  cs.ack_vectors = (uint8_t)client_asks;
  ss.ack_vectors = (uint8_t)server_asks;
  assert_int_equal(udccp_pair_init(&p, &cs, &ss, NULL, 4), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 300 * MS);
  assert_true(udccp_feat_all_confirmed(&p.c[0]->feat));
  assert_true(udccp_feat_all_confirmed(&p.c[1]->feat));
  *cli_sends = p.c[0]->send_ackvec;
  *srv_sends = p.c[1]->send_ackvec;
  udccp_pair_free(&p);
}

static void test_rfc4342_5_sender_may_ask_for_ack_vectors(void **state) {
  int c, s;
  (void)state;
  run_ccid3_ackvec(0, 0, &c, &s);
  assert_int_equal(c, 0);
  assert_int_equal(s, 0);
  run_ccid3_ackvec(1, 0, &c, &s); /* the server receives the client's data */
  assert_int_equal(c, 0);
  assert_int_equal(s, 1);
  run_ccid3_ackvec(0, 1, &c, &s);
  assert_int_equal(c, 1);
  assert_int_equal(s, 0);
  run_ccid3_ackvec(1, 1, &c, &s);
  assert_int_equal(c, 1);
  assert_int_equal(s, 1);
}

static int client_confirmed(udccp_pair *p, void *ud) {
  (void)ud;
  return udccp_feat_all_confirmed(&p->c[0]->feat);
}

static void test_rfc4340_6_6_3_change_repeated_until_confirmed(void **state) {
  udccp_pair p;
  uint64_t acks_before;
  udccp_tstamp t0;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 4), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 500 * MS);
  /* A mid-connection NN Change; the peer never answers (all of the
   * server's packets are lost for a while). */
  assert_int_equal(
      udccp_feat_change_nn(&p.c[0]->feat, UDCCP_FEAT_SEQ_WINDOW, 3000), 0);
  p.loss[1] = 1.0;
  acks_before = udccp_pair_count(&p, 0, UDCCP_PKT_ACK);
  udccp_pair_run_for(&p, 5 * S);
  /* Idle otherwise: the Change went out again on Acks. */
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_ACK) >= acks_before + 2);
  assert_false(udccp_feat_all_confirmed(&p.c[0]->feat));
  p.loss[1] = 0;
  t0 = p.now;
  assert_true(udccp_pair_run_until(&p, client_confirmed, NULL, 20 * S));
  print_message("Confirmed %.1f s after the loss ended\n",
                (double)(p.now - t0) / S);
  assert_int_equal(p.c[0]->seqwin_local, 3000);
  assert_int_equal(p.c[1]->seqwin_remote, 3000);
  udccp_pair_free(&p);
}

static void test_linux_unconfirmed_changes_reset_client(void **state) {
  udccp_pair p;
  uint8_t buf[1500];
  udccp_tb_pkt tp;
  udccp_conn_rxpkt rp;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 5), 0);
  assert_true(udccp_conn_write_pkt(p.c[0], buf, sizeof(buf), NULL, 0) > 0);
  /* A Response that confirms none of the client's Changes. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_RESPONSE, 5000, p.c[0]->gss);
  tp.service_code = p.c[0]->service_code;
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), UDCCP_ERR_RESET);
  rp = udccp_pair_next_pkt(&p, 0, buf);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  /* As Linux (dccp_rcv_request_sent_state_process): Aborted. */
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_ABORTED);
  assert_int_equal(rp.h.ack, 5000);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_CLOSED);
  udccp_pair_free(&p);
}

/* The server's NN Change (a Sequence Window other than 100) must not cost
 * the connection when the packet that opens it carries no Confirm -- a
 * client that follows §6.6.3 to the letter ("Confirm options are never
 * retransmitted") and lost its first Ack.  (udccp's own client repeats
 * its Confirms in PARTOPEN, as Linux's does: test_conn_handshake.)  The
 * server opens with the old value and repeats the Change until it is
 * Confirmed. */
static int drop_client_partopen(udccp_pair *p, int dir, const uint8_t *pkt,
                                size_t len, uint64_t idx, void *ud) {
  (void)pkt, (void)len, (void)idx;
  return dir == 0 && *(int *)ud &&
         udccp_pair_state(p, 0) == UDCCP_STATE_PARTOPEN;
}

static void test_rfc4340_6_6_3_server_nn_change_outlives_lost_confirm(
    void **state) {
  udccp_pair p;
  udccp_settings ss;
  udccp_tb_pkt tp;
  int dropping = 1;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &ss);
  ss.seq_window = 500;
  assert_int_equal(udccp_pair_init(&p, NULL, &ss, NULL, 6), 0);
  p.drop = drop_client_partopen;
  p.drop_ud = &dropping;
  while (udccp_pair_state(&p, 0) != UDCCP_STATE_PARTOPEN) {
    assert_true(udccp_pair_step(&p));
  }
  /* The client's Ack is lost; a strict client's next Ack, no options. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, udccp_seq_add(p.c[0]->gss, 1),
                    p.c[1]->gss);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), 0);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  assert_int_equal(p.c[1]->seqwin_local, 100); /* the old value, for now */
  dropping = 0;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 3 * S); /* no data: the §6.6.3 timer repeats it */
  assert_int_equal(p.c[1]->seqwin_local, 500);
  assert_int_equal(p.c[0]->seqwin_remote, 500);
  assert_true(udccp_feat_all_confirmed(&p.c[1]->feat));
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

static void test_linux_unconfirmed_sp_change_resets_server(void **state) {
  udccp_pair p;
  uint8_t buf[1500], pkt[256];
  udccp_tb_pkt tp;
  udccp_ssize n;
  udccp_conn_rxpkt rp;
  (void)state;
  udccp_settings ss;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &ss);
  ss.send_ndp_count = 1; /* an SP Change R the client must Confirm */
  assert_int_equal(udccp_pair_init(&p, NULL, &ss, NULL, 6), 0);
  /* Request in, Response out; then an Ack without the Confirms. */
  while (p.c[1] == NULL) {
    assert_true(udccp_pair_step(&p));
  }
  assert_true(udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), NULL, p.now) > 0);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_RESPOND);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK,
                    (p.c[1]->gsr + 1) & UDCCP_SEQ_MASK, p.c[1]->gss);
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_int_equal(udccp_conn_read_pkt(p.c[1], pkt, (size_t)n, 0, p.now),
                   UDCCP_ERR_RESET);
  n = udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), NULL, p.now);
  assert_true(n > 0);
  assert_int_equal(udccp_conn_decode(&rp, buf, (size_t)n), 0);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  /* An SP feature must be settled by the handshake; as Linux
   * (dccp_check_req after a failed activation): Too Busy. */
  assert_int_equal(rp.h.reset_code, UDCCP_RESET_TOO_BUSY);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_2_sequence_window_follows_cwnd(void **state) {
  udccp_pair p;
  udccp_conn_info ci, si;
  uint8_t buf[1000];
  udccp_tstamp end;
  uint64_t got = 0;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 7), 0);
  p.delay[0] = p.delay[1] = 100 * MS; /* long path: a big window */
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  memset(buf, 0, sizeof(buf));
  end = p.now + 10 * S;
  while (p.now < end) {
    while (udccp_conn_get_send_space(p.c[0]) > 0) {
      assert_int_equal(
          udccp_conn_queue_datagram(p.c[0], buf, sizeof(buf), 0, p.now), 0);
    }
    assert_true(udccp_pair_step(&p));
    while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
      got++;
    }
  }
  udccp_conn_get_info(p.c[0], &ci);
  udccp_conn_get_info(p.c[1], &si);
  print_message("cwnd %u, Sequence Window %llu, delivered %llu, syncs %llu\n",
                ci.cwnd, (unsigned long long)p.c[0]->seqwin_local,
                (unsigned long long)got, (unsigned long long)si.syncs_sent);
  /* §7.5.2: the window grew with the packets in flight and the peer
   * uses it for our packets. */
  assert_true(ci.cwnd > 100);
  assert_true(p.c[0]->seqwin_local >= 4 * (uint64_t)ci.cwnd / 2);
  assert_int_equal(p.c[1]->seqwin_remote, p.c[0]->seqwin_local);
  assert_true(si.pkts_dropped < got / 100);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_2_acking_side_window_follows_its_acks(
    void **state) {
  udccp_pair p;
  udccp_conn_info ci, si;
  uint8_t buf[1500];
  udccp_tstamp end;
  (void)state;
  memset(buf, 0, sizeof(buf));
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 8), 0);
  p.delay[0] = p.delay[1] = 20 * MS;
  p.spacing[0] = p.spacing[1] = 200000;
  p.qmax[0] = p.qmax[1] = 400; /* a drop-tail bottleneck of ~2 BDP */
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  end = p.now + 3 * S;
  while (p.now < end) {
    while (udccp_conn_get_send_space(p.c[0]) > 0 &&
           udccp_conn_queue_datagram(p.c[0], buf, 1000, 0, p.now) == 0) {
    }
    assert_true(udccp_pair_step(&p));
    while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
    }
  }
  udccp_conn_get_info(p.c[0], &ci);
  udccp_conn_get_info(p.c[1], &si);
  print_message("server sends %llu pkts/RTT, its window %llu; drops %llu/%llu\n",
                (unsigned long long)p.c[1]->sent_per_rtt,
                (unsigned long long)p.c[1]->seqwin_local,
                (unsigned long long)ci.pkts_dropped,
                (unsigned long long)si.pkts_dropped);
  /* The server sends only acks, many per RTT (the client's Ack Ratio keeps
   * them near half the server's window, RFC 4341 §6.1.2): its own
   * Sequence Window grew so the client's acks of them stay valid
   * (§7.5.3). */
  assert_true(p.c[1]->sent_per_rtt > 50);
  assert_true(p.c[1]->seqwin_local > 100);
  assert_true(p.c[1]->seqwin_local >= 4 * p.c[1]->sent_per_rtt);
  assert_int_equal(p.c[0]->seqwin_remote, p.c[1]->seqwin_local);
  /* No packet was refused for its numbers (§7.5.3). */
  assert_int_equal(si.pkts_dropped, 0);
  assert_int_equal(ci.pkts_dropped, 0);
  assert_int_equal(si.syncs_sent, 0);
  udccp_pair_free(&p);
}

/* The server's packets (its Confirms among them) are lost while the
 * client's Change is unconfirmed. */
static int drop_confirms(udccp_pair *p, int dir, const uint8_t *pkt,
                         size_t len, uint64_t idx, void *ud) {
  (void)pkt, (void)len, (void)idx, (void)ud;
  return dir == 1 && !udccp_feat_all_confirmed(&p->c[0]->feat);
}

/* §6.6.3: a Change waiting for its Confirm is repeated on a back-off timer
 * and rides on packets that go anyway; it is no reason to answer every
 * packet of the peer.  Only owed Confirms (§6.6.1) ask for an Ack at once.
 * With a CCID 3 receiver (feedback about once per RTT, RFC 4342 §8.1) an
 * Ack per data packet would also be taken for feedback by the sender. */
static void test_rfc4340_6_6_3_pending_change_elicits_no_ack_storm(
    void **state) {
  udccp_pair p;
  udccp_settings cs;
  uint64_t acks0, data0, acks, data;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.ccid = 3;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 21), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  (void)udccp_pair_stream(&p, 0, 1000, 0, 2 * S);
  assert_true(udccp_feat_all_confirmed(&p.c[0]->feat));
  assert_int_equal(udccp_feat_change_nn(&p.c[0]->feat, UDCCP_FEAT_SEQ_WINDOW,
                                        100000), 0);
  p.drop = drop_confirms;
  acks0 = udccp_pair_count(&p, 1, UDCCP_PKT_ACK);
  data0 = udccp_pair_count(&p, 0, UDCCP_PKT_DATA) +
          udccp_pair_count(&p, 0, UDCCP_PKT_DATAACK);
  (void)udccp_pair_stream(&p, 0, 1000, 0, 300 * MS);
  acks = udccp_pair_count(&p, 1, UDCCP_PKT_ACK) - acks0;
  data = udccp_pair_count(&p, 0, UDCCP_PKT_DATA) +
         udccp_pair_count(&p, 0, UDCCP_PKT_DATAACK) - data0;
  print_message("Change unconfirmed: client data %llu, server acks %llu "
                "in 300 ms\n",
                (unsigned long long)data, (unsigned long long)acks);
  assert_true(data >= 100);
  assert_true(acks * 5 < data);
  /* Once the Confirm gets through the value is used. */
  p.drop = NULL;
  (void)udccp_pair_stream(&p, 0, 1000, 0, 3 * S);
  assert_true(udccp_feat_all_confirmed(&p.c[0]->feat));
  assert_true(p.c[0]->seqwin_local == 100000);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_7_5_2_sequence_window_applied),
      cmocka_unit_test(test_rfc4340_11_3_ack_ratio_applied),
      cmocka_unit_test(test_rfc4340_10_ccid2_halves_and_ack_vectors),
      cmocka_unit_test(test_rfc4340_6_6_3_change_repeated_until_confirmed),
      cmocka_unit_test(test_linux_unconfirmed_changes_reset_client),
      cmocka_unit_test(test_linux_unconfirmed_sp_change_resets_server),
      cmocka_unit_test(
          test_rfc4340_6_6_3_server_nn_change_outlives_lost_confirm),
      cmocka_unit_test(test_rfc4340_7_5_2_sequence_window_follows_cwnd),
      cmocka_unit_test(test_rfc4340_7_5_2_acking_side_window_follows_its_acks),
      cmocka_unit_test(test_rfc4340_6_6_3_pending_change_elicits_no_ack_storm),
      cmocka_unit_test(test_rfc4342_5_sender_may_ask_for_ack_vectors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

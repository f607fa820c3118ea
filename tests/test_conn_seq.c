/* SPDX-License-Identifier: MIT */
/*
 * Sequence numbers (RFC 4340 §7): validity windows and the §7.5.3 table,
 * Sync/SyncAck (§7.5.4) with its rate limit, recovery after a loss burst
 * longer than the window, short sequence numbers (§7.6), unexpected packet
 * types (§8.5 step 7).
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

/* Both ends keep the RFC's initial Sequence Window, 100 (§7.5.2), rather
 * than udccp's default of 1000: the window rules show at a small scale. */
static void settings_w100(udccp_pair *p, udccp_settings *s) {
  udccp_pair_settings(p, s);
  s->seq_window = 100;
}

static void open_pair(udccp_pair *p, uint64_t seed) {
  udccp_settings cs, ss;
  memset(p, 0, sizeof(*p));
  settings_w100(p, &cs);
  settings_w100(p, &ss);
  assert_int_equal(udccp_pair_init(p, &cs, &ss, NULL, seed), 0);
  assert_true(udccp_pair_run_until(p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(p, 500 * MS);
}

static void test_rfc4340_7_5_4_invalid_data_elicits_sync(void **state) {
  udccp_pair p;
  udccp_conn_info si, after;
  udccp_tb_pkt tp;
  udccp_conn_rxpkt rp;
  uint8_t buf[1500];
  uint64_t bad;
  (void)state;
  open_pair(&p, 1);
  udccp_conn_get_info(p.c[1], &si);
  bad = (si.swh + 1) & UDCCP_SEQ_MASK;
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATA, bad, 0);
  tp.payload = (const uint8_t *)"xx";
  tp.payload_len = 2;
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  udccp_conn_get_info(p.c[1], &after);
  assert_true(after.gsr == si.gsr); /* §7.5.4: GSR does not move */
  assert_int_equal(after.pkts_dropped, si.pkts_dropped + 1);
  rp = udccp_pair_next_pkt(&p, 1, buf);
  assert_int_equal(rp.h.type, UDCCP_PKT_SYNC);
  assert_true(rp.h.ack == bad); /* acknowledges the invalid seqno */
  assert_true(rp.h.seq == ((si.gss + 1) & UDCCP_SEQ_MASK)); /* new seqno */
  /* The data did not reach the application. */
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)),
                   UDCCP_ERR_AGAIN);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_4_invalid_reset_sync_acks_gsr(void **state) {
  udccp_pair p;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  udccp_conn_rxpkt rp;
  uint8_t buf[1500];
  (void)state;
  open_pair(&p, 2);
  udccp_conn_get_info(p.c[1], &si);
  /* §7.5.3: a Reset needs GSR < seqno; GSR itself is invalid. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_RESET, si.gsr, si.gss);
  tp.reset_code = UDCCP_RESET_ABORTED;
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  rp = udccp_pair_next_pkt(&p, 1, buf);
  assert_int_equal(rp.h.type, UDCCP_PKT_SYNC);
  assert_true(rp.h.ack == si.gsr);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_3_close_needs_seqno_above_gsr(void **state) {
  udccp_pair p;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  (void)state;
  open_pair(&p, 3);
  /* Move past the start-of-connection clamp of AWL (§7.5.1). */
  {
    uint8_t d[100];
    int i;
    memset(d, 0, sizeof(d));
    for (i = 0; i < 150; ++i) {
      while (udccp_conn_queue_datagram(p.c[1], d, sizeof(d), 0, p.now) != 0) {
        udccp_pair_run_for(&p, 50 * MS);
      }
    }
    udccp_pair_run_for(&p, 2 * S);
  }
  udccp_conn_get_info(p.c[1], &si);
  assert_true(udccp_seq_sub(si.gar, si.awl) > 1);
  /* In [SWL, GSR]: valid for an Ack, not for a Close. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_CLOSE, (si.gsr - 1) & UDCCP_SEQ_MASK,
                    si.gss);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  /* Ack number below GAR: invalid for a Close too. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_CLOSE, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    (si.gar - 1) & UDCCP_SEQ_MASK);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  /* The same Ack number is fine for an Ack (AWL <= ackno). */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    (si.gar - 1) & UDCCP_SEQ_MASK);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), 0);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_3_ackno_outside_awl_awh(void **state) {
  udccp_pair p;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  (void)state;
  open_pair(&p, 4);
  udccp_conn_get_info(p.c[1], &si);
  /* An ackno above GSS acknowledges something never sent. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    (si.gss + 1) & UDCCP_SEQ_MASK);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    (si.awl - 1) & UDCCP_SEQ_MASK);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  udccp_pair_free(&p);
}

/* pkts_seq_invalid counts exactly the packets the §7.5.3 checks refuse
 * (what a blind injection meets, tests/attack/): a seqno outside
 * [SWL, SWH], an ackno outside [AWL, AWH], a Sync with an invalid ackno
 * (step 5), X=0 when short seqnos are not allowed (§7.6.1); not a valid
 * packet, not a valid one that step 7 drops later. */
static void test_rfc4340_7_5_3_seq_invalid_counted_apart(void **state) {
  udccp_pair p;
  udccp_conn_info si, ci;
  udccp_tb_pkt tp;
  (void)state;
  open_pair(&p, 21);
  udccp_conn_get_info(p.c[1], &si);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATA, (si.swh + 1) & UDCCP_SEQ_MASK, 0);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    (si.gss + 1) & UDCCP_SEQ_MASK);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_SYNC, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    (si.awl - 1) & UDCCP_SEQ_MASK);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, (si.gsr + 1) & 0xFFFFFF,
                    si.gss & 0xFFFFFF);
  tp.x = 0;
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_DROPPED);
  udccp_conn_get_info(p.c[1], &ci);
  assert_int_equal(ci.pkts_seq_invalid, si.pkts_seq_invalid + 4);
  assert_int_equal(ci.pkts_dropped, si.pkts_dropped + 4);
  assert_true(ci.gsr == si.gsr);
  /* Valid, then valid but refused by step 7 (a CloseReq to a server):
   * neither is a sequence refusal. */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    si.gss);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), 0);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_CLOSEREQ, (si.gsr + 2) & UDCCP_SEQ_MASK,
                    si.gss);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_DROPPED);
  udccp_conn_get_info(p.c[1], &ci);
  assert_int_equal(ci.pkts_seq_invalid, si.pkts_seq_invalid + 4);
  assert_int_equal(ci.pkts_dropped, si.pkts_dropped + 5);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_1_window_bounds(void **state) {
  udccp_pair p;
  udccp_conn_info si;
  (void)state;
  open_pair(&p, 5);
  udccp_conn_get_info(p.c[1], &si);
  /* W = 100: SWL = GSR + 1 - 25, SWH = GSR + 75; AWL = GSS + 1 - 100. */
  assert_true(udccp_seq_sub(si.swh, si.gsr) == 75);
  assert_true(udccp_seq_sub(si.gsr, si.swl) == 24 ||
              si.swl == p.c[1]->isr); /* start-of-connection clamp */
  assert_true(si.awh == si.gss);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_4_sync_rate_limit(void **state) {
  udccp_pair p;
  udccp_conn_info si, after;
  udccp_tb_pkt tp;
  uint8_t buf[1500];
  int i, syncs = 0;
  (void)state;
  open_pair(&p, 6);
  udccp_conn_get_info(p.c[1], &si);
  /* 100 sequence-invalid packets over one second. */
  for (i = 0; i < 100; ++i) {
    udccp_conn_rxpkt rp;
    udccp_tb_pkt_init(&tp, UDCCP_PKT_DATA,
                      (si.swh + 1000 + (uint64_t)i) & UDCCP_SEQ_MASK, 0);
    assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
    for (;;) {
      rp = udccp_pair_next_pkt(&p, 1, buf);
      if (rp.h.type == 0xFF) {
        break;
      }
      if (rp.h.type == UDCCP_PKT_SYNC) {
        syncs++;
      }
    }
    p.now += 10 * MS;
  }
  /* §7.5.4: no more than eight per second. */
  assert_true(syncs >= 7 && syncs <= 9);
  udccp_conn_get_info(p.c[1], &after);
  assert_int_equal(after.syncs_sent - si.syncs_sent, (uint64_t)syncs);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_4_sync_gets_syncack(void **state) {
  udccp_pair p;
  udccp_conn_info si, after;
  udccp_tb_pkt tp;
  udccp_conn_rxpkt rp;
  uint8_t buf[1500];
  uint64_t sseq;
  (void)state;
  open_pair(&p, 7);
  udccp_conn_get_info(p.c[1], &si);
  /* A Sync far above SWH is still valid (§7.5.3: no upper bound). */
  sseq = (si.swh + 500) & UDCCP_SEQ_MASK;
  udccp_tb_pkt_init(&tp, UDCCP_PKT_SYNC, sseq, si.gss);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), 0);
  udccp_conn_get_info(p.c[1], &after);
  assert_true(after.gsr == sseq); /* GSR updated */
  rp = udccp_pair_next_pkt(&p, 1, buf);
  assert_int_equal(rp.h.type, UDCCP_PKT_SYNCACK);
  assert_true(rp.h.ack == sseq);
  /* A Sync below SWL is ignored without an answer (§7.5.4). */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_SYNC, (after.swl - 5) & UDCCP_SEQ_MASK,
                    after.gss);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_SEQ);
  rp = udccp_pair_next_pkt(&p, 1, buf);
  assert_int_equal(rp.h.type, 0xFF);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_4_recovery_after_loss_burst_longer_than_window(
    void **state) {
  udccp_pair p;
  uint8_t buf[1500];
  int i, got = 0;
  udccp_ssize n;
  udccp_conn_info si;
  (void)state;
  open_pair(&p, 8);
  /* The client sends 300 packets (3 Sequence Windows) that are all lost. */
  for (i = 0; i < 300; ++i) {
    p.c[0]->pending |= UDCCP_PEND_ACK;
    assert_true(udccp_conn_write_pkt(p.c[0], buf, sizeof(buf), NULL, p.now) > 0);
  }
  udccp_conn_get_info(p.c[1], &si);
  assert_true(udccp_seq_gt(p.c[0]->gss, si.swh)); /* now out of its window */
  for (i = 0; i < 20; ++i) {
    memset(buf, i, 100);
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 100, 0, p.now), 0);
  }
  udccp_pair_run_for(&p, 5 * S);
  while ((n = udccp_conn_read_datagram(p.c[1], buf, sizeof(buf))) > 0) {
    got++;
  }
  /* Resynchronised by Sync and SyncAck (§7.5.4): the client, more than
   * its window ahead of the server's last ack, waits and probes with a
   * Sync (whose seqno the server accepts above SWL, §7.5.3) instead of
   * sending data the server would refuse; so most of the data got
   * through. */
  print_message("Syncs: client %llu, server %llu; SyncAcks: client %llu, "
                "server %llu\n",
                (unsigned long long)udccp_pair_count(&p, 0, UDCCP_PKT_SYNC),
                (unsigned long long)udccp_pair_count(&p, 1, UDCCP_PKT_SYNC),
                (unsigned long long)udccp_pair_count(&p, 0, UDCCP_PKT_SYNCACK),
                (unsigned long long)udccp_pair_count(&p, 1,
                                                     UDCCP_PKT_SYNCACK));
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_SYNC) +
                  udccp_pair_count(&p, 1, UDCCP_PKT_SYNC) >= 1);
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_SYNCACK) +
                  udccp_pair_count(&p, 1, UDCCP_PKT_SYNCACK) >= 1);
  assert_true(got >= 10);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  /* And it keeps working. */
  for (i = 0; i < 10; ++i) {
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 100, 0, p.now), 0);
  }
  udccp_pair_run_for(&p, 2 * S);
  got = 0;
  while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
    got++;
  }
  assert_int_equal(got, 10);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_6_short_seqnos_only_when_allowed(void **state) {
  udccp_pair p;
  udccp_conn_info ci;
  udccp_tb_pkt tp;
  udccp_feat_entry *e;
  uint64_t seq48;
  (void)state;
  open_pair(&p, 9);
  udccp_conn_get_info(p.c[0], &ci);
  seq48 = (ci.gsr + 1) & UDCCP_SEQ_MASK;
  udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, seq48 & 0xFFFFFF, ci.gss & 0xFFFFFF);
  tp.x = 0;
  /* Allow Short Seqnos/server is 0: X=0 packets are ignored (§7.6.1). */
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), UDCCP_ERR_DROPPED);
  /* With the feature at 1 (as if negotiated), they are extended with GSR
   * and GSS (§7.6) and accepted. */
  e = udccp_feat_entry_get(&p.c[0]->feat, UDCCP_FEAT_ALLOW_SHORT_SEQNOS, 0);
  assert_non_null(e);
  e->val = 1;
  udccp_conn_apply_features(p.c[0], p.now);
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), 0);
  udccp_conn_get_info(p.c[0], &ci);
  assert_true(ci.gsr == seq48);
  udccp_pair_free(&p);
}

static void test_rfc4340_8_5_step7_unexpected_types_elicit_sync(void **state) {
  udccp_pair p;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  udccp_conn_rxpkt rp;
  uint8_t buf[1500];
  (void)state;
  open_pair(&p, 10);
  /* A CloseReq reaching the server. */
  udccp_conn_get_info(p.c[1], &si);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_CLOSEREQ, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    si.gss);
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), UDCCP_ERR_DROPPED);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  rp = udccp_pair_next_pkt(&p, 1, buf);
  assert_int_equal(rp.h.type, UDCCP_PKT_SYNC);
  assert_true(rp.h.ack == ((si.gsr + 1) & UDCCP_SEQ_MASK));
  /* A Request reaching the client. */
  udccp_conn_get_info(p.c[0], &si);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_REQUEST, (si.gsr + 1) & UDCCP_SEQ_MASK, 0);
  tp.service_code = 42;
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), UDCCP_ERR_DROPPED);
  rp = udccp_pair_next_pkt(&p, 0, buf);
  assert_int_equal(rp.h.type, UDCCP_PKT_SYNC);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_5_4_sync_in_request_answered_with_reset(
    void **state) {
  udccp_pair p;
  udccp_tb_pkt tp;
  udccp_conn_rxpkt rp;
  uint8_t buf[1500];
  uint64_t gss;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 11), 0);
  assert_true(udccp_conn_write_pkt(p.c[0], buf, sizeof(buf), NULL, 0) > 0);
  gss = p.c[0]->gss;
  /* "if the peer endpoint is in the REQUEST state, it MUST respond with a
   * DCCP-Reset instead of a DCCP-SyncAck" */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_SYNC, 3000, gss);
  assert_int_equal(udccp_pair_feed(&p, 0, &tp), UDCCP_ERR_DROPPED);
  rp = udccp_pair_next_pkt(&p, 0, buf);
  assert_int_equal(rp.h.type, UDCCP_PKT_RESET);
  assert_int_equal(rp.h.ack, 3000);
  /* The half-open client keeps trying. */
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_REQUEST);
  udccp_pair_free(&p);
}

static void rand_ff(uint8_t *dest, size_t len, void *ud) {
  (void)ud;
  memset(dest, 0xFF, len);
}

static void test_rfc4340_7_1_sequence_numbers_wrap(void **state) {
  udccp_pair p;
  udccp_settings cs, ss;
  uint8_t buf[1500];
  int i, got = 0;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  udccp_pair_settings(&p, &ss);
  /* ISS = 2^48 - 1 on both sides: every number wraps at once. */
  cs.rand = ss.rand = rand_ff;
  assert_int_equal(udccp_pair_init(&p, &cs, &ss, NULL, 12), 0);
  assert_true(p.c[0]->iss == UDCCP_SEQ_MASK);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  for (i = 0; i < 50; ++i) {
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 100, 0, p.now), 0);
    udccp_pair_run_for(&p, 5 * MS);
  }
  udccp_pair_run_for(&p, 1 * S);
  while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
    got++;
  }
  assert_int_equal(got, 50);
  assert_true(p.c[0]->gss < 1000); /* wrapped past zero */
  assert_int_equal(udccp_conn_close(p.c[0], p.now), 0);
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_TIMEWAIT);
  udccp_pair_free(&p);
}

static int drop_to_client(udccp_pair *p, int dir, const uint8_t *pkt,
                          size_t len, uint64_t idx, void *ud) {
  (void)p, (void)pkt, (void)len, (void)idx, (void)ud;
  return dir == 1;
}

/* §7.5.1/§7.5.2: a peer whose acks lag far behind GSS (it stalled, busy
 * sending, and did not read) would soon acknowledge numbers below AWL and
 * have its packets refused; the endpoint widens its own Sequence Window
 * before that, although it sends few packets per RTT. */
static void test_rfc4340_7_5_2_window_grows_with_peer_ack_lag(void **state) {
  udccp_pair p;
  udccp_tb_pkt tp;
  uint64_t gss0;
  int i;
  (void)state;
  open_pair(&p, 13);
  assert_true(p.c[1]->seqwin_local == 100);
  p.drop = drop_to_client;
  gss0 = p.c[1]->gss;
  /* For 600 ms the server sends a packet every 10 ms that the client does
   * not see, while the client's packets keep acknowledging gss0. */
  for (i = 0; i < 60; ++i) {
    p.c[1]->pending |= UDCCP_PEND_ACK;
    udccp_pair_run_for(&p, 10 * MS);
    /* Sent in the client's name: its GSS moves with it. */
    p.c[0]->gss = udccp_seq_add(p.c[0]->gss, 1);
    udccp_conn_update_windows(p.c[0]);
    udccp_tb_pkt_init(&tp, UDCCP_PKT_ACK, p.c[0]->gss & UDCCP_SEQ_MASK,
                      gss0 & UDCCP_SEQ_MASK);
    assert_int_equal(udccp_pair_feed(&p, 1, &tp), 0);
  }
  assert_true(udccp_seq_sub(p.c[1]->gss, gss0) >= 60);
  p.drop = NULL;
  /* The Change went out while the client saw nothing: it is repeated on
   * the back-off timer (§6.6.3) until Confirmed. */
  udccp_pair_run_for(&p, 8 * S);
  assert_true(p.c[1]->seqwin_local >= 240);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

/* §7.5.2: our acks answer the peer's packets, so a peer with a wide
 * Sequence Window (many packets per RTT) makes us send many acks; the
 * endpoint keeps its own window at least a quarter of the peer's. */
static void test_rfc4340_7_5_2_window_follows_wide_peer_window(void **state) {
  udccp_pair p;
  udccp_settings cs;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.seq_window = 4000;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 15), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 500 * MS);
  assert_true(p.c[1]->seqwin_remote == 4000);
  /* A few packets from the client with acks let the server re-tune. */
  for (int i = 0; i < 5; ++i) {
    p.c[0]->pending |= UDCCP_PEND_ACK;
    udccp_pair_run_for(&p, 100 * MS);
  }
  udccp_pair_run_for(&p, 5 * S);
  assert_true(p.c[1]->seqwin_local >= 1000);
  udccp_pair_free(&p);
}

typedef struct change_log {
  udccp_tstamp at[16];
  int n;
} change_log;

static int log_and_drop_to_client(udccp_pair *p, int dir, const uint8_t *pkt,
                                  size_t len, uint64_t idx, void *ud) {
  change_log *lg = ud;
  (void)pkt, (void)len, (void)idx;
  if (dir == 1 && lg->n < 16) {
    lg->at[lg->n++] = p->now;
  }
  return dir == 1;
}

/* §6.6.3: packets sent only to repeat a Change MUST use an exponential
 * back-off timer. */
static void test_rfc4340_6_6_3_change_repeated_with_backoff(void **state) {
  udccp_pair p;
  change_log lg;
  int i;
  (void)state;
  open_pair(&p, 14);
  memset(&lg, 0, sizeof(lg));
  p.drop = log_and_drop_to_client;
  p.drop_ud = &lg;
  assert_int_equal(udccp_feat_change_nn(&p.c[1]->feat, UDCCP_FEAT_SEQ_WINDOW,
                                        400), 0);
  p.c[1]->pending |= UDCCP_PEND_ACK; /* the first Change goes at once */
  udccp_pair_run_for(&p, 60 * S);
  assert_true(lg.n >= 4);
  for (i = 2; i < 5 && i < lg.n; ++i) {
    udccp_tstamp prev = lg.at[i - 1] - lg.at[i - 2];
    udccp_tstamp cur = lg.at[i] - lg.at[i - 1];
    assert_true(cur >= prev + prev / 2);
  }
  /* Once the client hears it, the value is Confirmed and used. */
  p.drop = NULL;
  udccp_pair_run_for(&p, 70 * S);
  assert_true(p.c[1]->seqwin_local == 400);
  assert_int_equal(udccp_pair_state(&p, 1), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

static int drop_dir1(udccp_pair *p, int dir, const uint8_t *pkt, size_t len,
                     uint64_t idx, void *ud) {
  (void)p, (void)pkt, (void)len, (void)idx, (void)ud;
  return dir == 1;
}

/* §7.5.1: the peer's acks are valid only within our last W' numbers.  A
 * rate-based sender (CCID 3) whose acks stop coming stays within W' of
 * the first data packet not acknowledged instead of running on; a Sync
 * probe and its SyncAck (§7.5.4) let it go on once the path is back. */
static void test_rfc4340_7_5_1_sender_stays_within_window_of_acks(
    void **state) {
  udccp_pair p;
  udccp_settings cs;
  uint64_t got, sent0;
  (void)state;
  memset(&p, 0, sizeof(p));
  settings_w100(&p, &cs);
  cs.ccid = 3;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 23), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  p.drop = drop_dir1; /* no acks reach the client */
  sent0 = p.c[0]->info.data_pkts_sent;
  (void)udccp_pair_stream(&p, 0, 500, 0, 2 * S);
  /* Without acks, at most one window of data went out. */
  print_message("data sent without acks: %llu (window %llu)\n",
                (unsigned long long)(p.c[0]->info.data_pkts_sent - sent0),
                (unsigned long long)p.c[0]->seqwin_local);
  assert_true(p.c[0]->info.data_pkts_sent - sent0 <= p.c[0]->seqwin_local);
  assert_true(udccp_pair_count(&p, 0, UDCCP_PKT_SYNC) >= 1); /* probes */
  p.drop = NULL;
  got = udccp_pair_stream(&p, 0, 500, 0, 2 * S);
  print_message("after the acks came back: %llu datagrams in 2 s\n",
                (unsigned long long)got);
  assert_true(got > 100);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

/* The window check counts data only (§7.5.2: W' is what we expect in
 * flight).  A CCID 3 receiver sends many Acks that its peer never
 * acknowledges (a CCID 3 sender sends plain Data, like Linux), so GAR
 * stays far behind GSS; data it then sends must go at once, not wait for
 * a Sync probe. */
static void test_rfc4340_7_5_2_receiver_acks_do_not_stall_its_data(
    void **state) {
  udccp_pair p;
  udccp_settings cs;
  uint8_t buf[1500];
  uint64_t acks0;
  udccp_tstamp t0;
  (void)state;
  memset(&p, 0, sizeof(p));
  settings_w100(&p, &cs);
  cs.ccid = 3;
  assert_int_equal(udccp_pair_init(&p, &cs, &cs, NULL, 24), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  p.delay[0] = p.delay[1] = 100 * 1000; /* 0.2 ms RTT: many feedbacks */
  acks0 = udccp_pair_count(&p, 1, UDCCP_PKT_ACK);
  (void)udccp_pair_stream(&p, 0, 500, 0, 3 * S);
  print_message("server: %llu Acks, GSS - GAR = %lld, window %llu\n",
                (unsigned long long)(udccp_pair_count(&p, 1, UDCCP_PKT_ACK) -
                                     acks0),
                (long long)udccp_seq_sub(p.c[1]->gss, p.c[1]->gar),
                (unsigned long long)p.c[1]->seqwin_local);
  assert_true(udccp_seq_sub(p.c[1]->gss, p.c[1]->gar) >
              (int64_t)p.c[1]->seqwin_local);
  memset(buf, 7, 200);
  assert_int_equal(udccp_conn_queue_datagram(p.c[1], buf, 200, 0, p.now), 0);
  t0 = p.now;
  while (p.now - t0 < 20 * MS &&
         udccp_conn_read_datagram(p.c[0], buf, sizeof(buf)) <= 0) {
    udccp_pair_run_for(&p, 100 * 1000);
  }
  print_message("the server's datagram arrived after %.2f ms\n",
                (double)(p.now - t0) / 1e6);
  assert_true(p.now - t0 < 20 * MS);
  assert_int_equal(udccp_pair_count(&p, 1, UDCCP_PKT_SYNC), 0);
  udccp_pair_free(&p);
}

/* What the network does to the client's data packets: keeps a copy of
 * each (hold < 0: the test delivers them twice), or holds back the
 * hold-th (from 0) and lets the others through (the test delivers it
 * late: reordering, not duplication). */
typedef struct {
  uint8_t pkt[16][1500];
  size_t len[16], n;
  int hold;
} dup_log;

static int client_data_hook(udccp_pair *p, int dir, const uint8_t *pkt,
                            size_t len, uint64_t idx, void *ud) {
  dup_log *l = ud;
  uint8_t type = (uint8_t)((pkt[8] >> 1) & 15);
  size_t k;
  (void)p;
  (void)idx;
  if (dir != 0 || (type != UDCCP_PKT_DATA && type != UDCCP_PKT_DATAACK) ||
      l->n >= 16 || len > sizeof(l->pkt[0])) {
    return 0;
  }
  k = l->hold < 0 ? l->n : 0;
  if (l->hold < 0 || l->n == (size_t)l->hold) {
    memcpy(l->pkt[k], pkt, len);
    l->len[k] = len;
  }
  return l->n++ == (size_t)l->hold;
}

/* Opens p (CCID ccid, Sequence Window 100) and has the client send 10
 * datagrams of 300 bytes, the i-th filled with i, 5 ms apart, through
 * client_data_hook with l. */
static void send_ten(udccp_pair *p, int ccid, uint64_t seed, dup_log *l) {
  udccp_settings cs;
  uint8_t buf[300];
  int i;
  memset(p, 0, sizeof(*p));
  settings_w100(p, &cs);
  cs.ccid = (uint8_t)ccid;
  assert_int_equal(udccp_pair_init(p, &cs, &cs, NULL, seed), 0);
  assert_true(udccp_pair_run_until(p, udccp_pair_both_open, NULL, 5 * S));
  p->drop = client_data_hook;
  p->drop_ud = l;
  for (i = 0; i < 10; i++) {
    memset(buf, i, sizeof(buf));
    assert_int_equal(
        udccp_conn_queue_datagram(p->c[0], buf, sizeof(buf), 0, p->now), 0);
    udccp_pair_run_for(p, 5 * MS);
  }
  p->drop = NULL;
}

static void test_rfc4340_7_network_duplicates_read_once(void **state) {
  /* §7: sequence numbers let DCCP "detect losses and network
   * duplicates".  Every data packet of a CCID 2 and a CCID 3 flow is
   * delivered twice, the copy after the original: the application reads
   * each datagram once, the copies are counted (pkts_dup), and the
   * receiver's loss count does not move.  Before, each copy was read
   * again (udccp-sim --dup 1: 812 sent, 1,522 read). */
  static dup_log l;
  int ccid;
  (void)state;
  for (ccid = 2; ccid <= 3; ccid++) {
    udccp_pair p;
    udccp_conn_info ci;
    uint8_t buf[1500];
    size_t i;
    int got = 0;
    memset(&l, 0, sizeof(l));
    l.hold = -1;
    send_ten(&p, ccid, 31, &l);
    assert_int_equal(l.n, 10);
    for (i = 0; i < l.n; i++) {
      udccp_pair_inject(&p, 0, l.pkt[i], l.len[i]);
    }
    udccp_pair_run_for(&p, 100 * MS);
    while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
      assert_int_equal(buf[0], got);
      got++;
    }
    udccp_conn_get_info(p.c[1], &ci);
    print_message("CCID %d: 10 datagrams, each delivered twice: %d read, "
                  "pkts_dup %llu, pkts_lost_rx %llu\n", ccid, got,
                  (unsigned long long)ci.pkts_dup,
                  (unsigned long long)ci.pkts_lost_rx);
    assert_int_equal(got, 10);
    assert_int_equal(ci.pkts_dup, 10);
    assert_int_equal(ci.pkts_lost_rx, 0);
    /* The flow goes on. */
    memset(buf, 42, 300);
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 300, 0, p.now), 0);
    udccp_pair_run_for(&p, 50 * MS);
    assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)), 300);
    assert_int_equal(buf[0], 42);
    udccp_pair_free(&p);
  }
}

static void test_rfc4340_7_late_packet_is_not_a_duplicate(void **state) {
  /* The duplicate check must not take a reordered packet for a copy: the
   * 3rd of 10 datagrams arrives after the other 9 and is read, once. */
  static dup_log l;
  udccp_pair p;
  udccp_conn_info ci;
  uint8_t buf[1500];
  int i, got = 0, seen[10] = {0};
  (void)state;
  memset(&l, 0, sizeof(l));
  l.hold = 2;
  send_ten(&p, 2, 32, &l);
  assert_true(l.len[0] > 0);
  udccp_pair_inject(&p, 0, l.pkt[0], l.len[0]);
  udccp_pair_run_for(&p, 100 * MS);
  while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
    assert_true(buf[0] < 10);
    seen[buf[0]]++;
    got++;
  }
  udccp_conn_get_info(p.c[1], &ci);
  print_message("10 datagrams, the 3rd late: %d read, pkts_dup %llu\n", got,
                (unsigned long long)ci.pkts_dup);
  assert_int_equal(got, 10);
  for (i = 0; i < 10; i++) {
    assert_int_equal(seen[i], 1);
  }
  assert_int_equal(ci.pkts_dup, 0);
  udccp_pair_free(&p);
}

/* §11.4 and Appendix A: the receiver's Ack Vector reports every packet
 * it got.  The client's first data packets go out in PARTOPEN, and the
 * first is overtaken by the second: the server's vector started with the
 * second, the first came "too late" for it and was never reported, and
 * the CCID 2 sender counted it lost (cwnd halved in its first round). */
static void test_rfc4340_11_4_first_data_packet_overtaken(void **state) {
  static dup_log l;
  udccp_pair p;
  udccp_settings cs;
  udccp_conn_info ci;
  uint8_t buf[300];
  int i, got = 0;
  (void)state;
  memset(&l, 0, sizeof(l));
  l.hold = 0;
  memset(&p, 0, sizeof(p));
  settings_w100(&p, &cs);
  cs.ccid = 2;
  assert_int_equal(udccp_pair_init(&p, &cs, &cs, NULL, 41), 0);
  p.drop = client_data_hook;
  p.drop_ud = &l;
  for (i = 0; i < 3; i++) {
    memset(buf, i, sizeof(buf));
    assert_int_equal(
        udccp_conn_queue_datagram(p.c[0], buf, sizeof(buf), 0, p.now), 0);
  }
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  udccp_pair_run_for(&p, 20 * MS);
  p.drop = NULL;
  assert_true(l.n >= 2);
  assert_true(l.len[0] > 0);
  udccp_pair_inject(&p, 0, l.pkt[0], l.len[0]);
  udccp_pair_run_for(&p, 2 * S);
  while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
    got++;
  }
  udccp_conn_get_info(p.c[0], &ci);
  print_message("3 datagrams, the first overtaken: %d read, sender counted "
                "%llu lost\n", got, (unsigned long long)ci.pkts_lost);
  assert_int_equal(got, 3);
  assert_int_equal(ci.pkts_lost, 0);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_7_5_4_invalid_data_elicits_sync),
      cmocka_unit_test(test_rfc4340_7_network_duplicates_read_once),
      cmocka_unit_test(test_rfc4340_7_late_packet_is_not_a_duplicate),
      cmocka_unit_test(test_rfc4340_11_4_first_data_packet_overtaken),
      cmocka_unit_test(test_rfc4340_7_5_4_invalid_reset_sync_acks_gsr),
      cmocka_unit_test(test_rfc4340_7_5_3_close_needs_seqno_above_gsr),
      cmocka_unit_test(test_rfc4340_7_5_3_ackno_outside_awl_awh),
      cmocka_unit_test(test_rfc4340_7_5_3_seq_invalid_counted_apart),
      cmocka_unit_test(test_rfc4340_7_5_1_window_bounds),
      cmocka_unit_test(test_rfc4340_7_5_4_sync_rate_limit),
      cmocka_unit_test(test_rfc4340_7_5_4_sync_gets_syncack),
      cmocka_unit_test(
          test_rfc4340_7_5_4_recovery_after_loss_burst_longer_than_window),
      cmocka_unit_test(test_rfc4340_7_6_short_seqnos_only_when_allowed),
      cmocka_unit_test(test_rfc4340_8_5_step7_unexpected_types_elicit_sync),
      cmocka_unit_test(test_rfc4340_7_5_4_sync_in_request_answered_with_reset),
      cmocka_unit_test(test_rfc4340_7_1_sequence_numbers_wrap),
      cmocka_unit_test(test_rfc4340_7_5_2_window_grows_with_peer_ack_lag),
      cmocka_unit_test(test_rfc4340_6_6_3_change_repeated_with_backoff),
      cmocka_unit_test(test_rfc4340_7_5_1_sender_stays_within_window_of_acks),
      cmocka_unit_test(test_rfc4340_7_5_2_receiver_acks_do_not_stall_its_data),
      cmocka_unit_test(test_rfc4340_7_5_2_window_follows_wide_peer_window),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * A connection's Ack Vector and the option space (RFC 4340 §5.1, §11.4):
 * however long the receiver's vector grows, its acknowledgements still go
 * out, with as much of the vector as the header has room for, newest
 * first; and a data sender acknowledges the receiver's acks (RFC 4341
 * §6.2) often enough, without a vector on every data packet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ackvec.h"
#include "ccid2.h"
#include "conn.h"
#include "opt.h"
#include "pair.h"
#include "pkt.h"
#include "seq.h"

#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

typedef struct first_runs {
  uint64_t hi[4], lo[4];
  uint8_t st[4];
  unsigned n;
} first_runs;

static int take_run(uint64_t hi, uint64_t lo, uint8_t state, void *ud) {
  first_runs *f = ud;
  f->hi[f->n] = hi;
  f->lo[f->n] = lo;
  f->st[f->n] = state;
  return ++f->n == 4;
}

/* Every other packet of 1,500 lost: a vector of 3,000 single-packet runs,
 * three times what fits.  Before the fix the receiver's Ack, with a vector
 * sized for a 12-byte header beside a 24-byte one, failed to encode
 * (UDCCP_ERR_INVALID_ARGUMENT from udccp_conn_write_pkt) and the receiver
 * never acknowledged again. */
static void test_rfc4340_11_4_long_vector_ack_still_goes_out(void **state) {
  udccp_pair p;
  uint8_t pay[100], buf[1500];
  udccp_tb_pkt tp;
  unsigned i, acks = 0;
  uint64_t last = 0;
  (void)state;
  memset(pay, 0x11, sizeof(pay));
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 3), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  for (i = 0; i < 1500; i++) {
    udccp_ssize n;
    /* In the client's name: skip one sequence number each time. */
    p.c[0]->gss = udccp_seq_add(p.c[0]->gss, 2);
    udccp_conn_update_windows(p.c[0]);
    last = p.c[0]->gss & UDCCP_SEQ_MASK;
    udccp_tb_pkt_init(&tp, UDCCP_PKT_DATA, last, 0);
    tp.payload = pay;
    tp.payload_len = sizeof(pay);
    assert_int_equal(udccp_pair_feed(&p, 1, &tp), 0);
    while ((n = udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), NULL,
                                     p.now)) != 0) {
      udccp_conn_rxpkt rp;
      first_runs f;
      if (n < 0) {
        fail_msg("packet %u: udccp_conn_write_pkt returned %d", i, (int)n);
      }
      memset(&rp, 0, sizeof(rp));
      assert_int_equal(udccp_conn_decode(&rp, buf, (size_t)n), 0);
      if (rp.h.type != UDCCP_PKT_ACK) {
        continue;
      }
      acks++;
      assert_int_equal(
          udccp_opts_parse(&rp.opts, rp.h.type, rp.h.opts, rp.h.opts_len), 0);
      assert_true(rp.h.opts_len <= UDCCP_MAX_DOFF_BYTES - 24);
      assert_true(rp.opts.n_ackvec > 0);
      /* §11.4: the vector begins at the Acknowledgement Number, the
       * newest packet: received, then the hole below it. */
      memset(&f, 0, sizeof(f));
      assert_int_equal(udccp_ackvec_parse(&rp.opts, rp.ack, take_run, &f), 0);
      assert_true(f.n >= 2);
      assert_true(f.hi[0] == last && f.lo[0] == last);
      assert_int_equal(f.st[0], UDCCP_AV_RECEIVED);
      assert_int_equal(f.st[1], UDCCP_AV_NOT_RECEIVED);
    }
  }
  print_message("acks written: %u for 1500 packets with gaps\n", acks);
  assert_true(acks >= 1000);
  udccp_pair_free(&p);
}

/* RFC 4341 §6.2, RFC 4340 §11.1: an active sender acknowledges the
 * receiver's acks "at least once per congestion window", e.g. with "a
 * DCCP-DataAck packet instead of DCCP-Data every now and then"; it need
 * not carry its Ack Vector on every data packet (issue 13: that cost a
 * vector to write, parse and match on each).  Fails if the sender stops
 * acking acks while it sends (DataAcks well under one per window) or goes
 * back to a DataAck on every packet (no Data at all). */
static void test_rfc4341_6_2_acks_of_acks_per_window_not_per_packet(
    void **state) {
  udccp_pair p;
  udccp_conn_info ci;
  uint64_t got, data, dataack, acks;
  (void)state;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 5), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  data = udccp_pair_count(&p, 0, UDCCP_PKT_DATA);
  dataack = udccp_pair_count(&p, 0, UDCCP_PKT_DATAACK);
  acks = udccp_pair_count(&p, 1, UDCCP_PKT_ACK);
  got = udccp_pair_stream(&p, 0, 1000, 0, 2 * S);
  data = udccp_pair_count(&p, 0, UDCCP_PKT_DATA) - data;
  dataack = udccp_pair_count(&p, 0, UDCCP_PKT_DATAACK) - dataack;
  acks = udccp_pair_count(&p, 1, UDCCP_PKT_ACK) - acks;
  udccp_conn_get_info(p.c[0], &ci);
  print_message("%llu datagrams read; the sender wrote %llu Data and %llu "
                "DataAck packets for the receiver's %llu Acks (cwnd %llu)\n",
                (unsigned long long)got, (unsigned long long)data,
                (unsigned long long)dataack, (unsigned long long)acks,
                (unsigned long long)ci.cwnd);
  assert_true(got > 1000);
  assert_true(ci.cwnd >= 2 && acks > 0);
  /* Not on every data packet... */
  assert_true(data > 0);
  /* ...but at least once per congestion window, and in fact after each
   * batch of the receiver's acks (conn.h UDCCP_CONN_ACKACK_EVERY): the
   * t_ackack timer alone (once per RTT) would give far fewer. */
  assert_true(ci.srtt > 0);
  print_message("srtt %.1f ms: once per RTT would be %llu\n",
                (double)ci.srtt / 1e6,
                (unsigned long long)(2 * S / ci.srtt));
  assert_true(dataack * ci.cwnd >= data + dataack);
  assert_true(dataack >= 4 * (2 * S / ci.srtt));
  udccp_pair_free(&p);
}

/* RFC 4341 §6.2 ("at least once per congestion window"), conn.h
 * UDCCP_CONN_ACKACK_EVERY: a sender pacing a steady stream acks the
 * receiver's acks after a quarter of its window of Data packets, at most
 * 8, instead of after every one (issue 13: each ack of ack is a vector
 * written, parsed and matched); at a few packets per RTT, after every
 * one as before.  Counted over the second of two seconds.  Fails if
 * every other data packet is a DataAck at the high rate (the old rule),
 * if fewer than one in 16 is, or if the slow stream acks less often. */
static void stream_counts(uint64_t seed, udccp_tstamp every, uint64_t *data,
                          uint64_t *dataack, udccp_conn_info *ci) {
  udccp_pair p;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, seed), 0);
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  (void)udccp_pair_stream(&p, 0, 1000, every, S);
  *data = udccp_pair_count(&p, 0, UDCCP_PKT_DATA);
  *dataack = udccp_pair_count(&p, 0, UDCCP_PKT_DATAACK);
  assert_true(udccp_pair_stream(&p, 0, 1000, every, S) > 0);
  *data = udccp_pair_count(&p, 0, UDCCP_PKT_DATA) - *data;
  *dataack = udccp_pair_count(&p, 0, UDCCP_PKT_DATAACK) - *dataack;
  udccp_conn_get_info(p.c[0], ci);
  udccp_pair_free(&p);
}

static void test_rfc4341_6_2_acks_of_acks_spaced_by_window(void **state) {
  udccp_conn_info ci;
  uint64_t data, dataack;
  (void)state;
  /* 20,000 packets/s, 20 ms RTT: 400 per RTT */
  stream_counts(7, 50 * (MS / 1000), &data, &dataack, &ci);
  print_message("400/RTT: %llu Data, %llu DataAck (cwnd %llu, ack ratio %u)\n",
                (unsigned long long)data, (unsigned long long)dataack,
                (unsigned long long)ci.cwnd, (unsigned)ci.ack_ratio);
  assert_true(data + dataack > 15000);
  assert_true(ci.cwnd >= 32);
  assert_true(dataack * 4 < data);
  assert_true(dataack * 16 > data);
  /* 250 packets/s: 5 per RTT */
  stream_counts(7, 4 * MS, &data, &dataack, &ci);
  print_message("5/RTT: %llu Data, %llu DataAck (cwnd %llu)\n",
                (unsigned long long)data, (unsigned long long)dataack,
                (unsigned long long)ci.cwnd);
  assert_true(data + dataack > 200);
  assert_true(ci.cwnd < 32);
  assert_true(dataack * 3 >= data);
}

/* Every packet offered to each direction, hashed (FNV-1a over length and
 * bytes, and the sender's state a packet built leaves that the next one
 * may overwrite before conn_state_same looks: the CCID's tx_more, the
 * ack-of-ack and NDP counts) and counted; none dropped here (the pair's
 * random loss after). */
typedef struct wire_sum {
  uint64_t h[2], n[2];
} wire_sum;

static int wire_add(udccp_pair *p, int dir, const uint8_t *pkt, size_t len,
                    uint64_t idx, void *ud) {
  wire_sum *w = ud;
  const udccp_conn *c = p->c[dir];
  uint64_t h = w->h[dir] ^ len;
  size_t i;
  (void)idx;
  if (c != NULL) {
    h ^= (uint64_t)c->env.tx_more << 56 ^ (uint64_t)c->data_since_ackack << 48 ^
         (uint64_t)c->data_unacking << 40 ^ c->ndp_count;
  }
  h *= 0x100000001b3ULL;
  for (i = 0; i < len; i++) {
    h = (h ^ pkt[i]) * 0x100000001b3ULL;
  }
  w->h[dir] = h;
  w->n[dir]++;
  return 0;
}

/* The connection state a packet built moves (conn_out.c), compared
 * between the two runs. */
static void conn_state_same(const udccp_conn *a, const udccp_conn *b) {
  assert_true(a->gss == b->gss && a->gsr == b->gsr && a->gar == b->gar);
  assert_true(a->ndp_count == b->ndp_count);
  assert_int_equal(a->ack_needed, b->ack_needed);
  assert_int_equal(a->pkts_since_ack, b->pkts_since_ack);
  assert_true(a->t_ackack == b->t_ackack);
  assert_true(a->t_last_ack_tx == b->t_last_ack_tx);
  assert_true(a->t_last_tx == b->t_last_tx);
  assert_int_equal(a->pending, b->pending);
  assert_int_equal(a->data_since_ackack, b->data_since_ackack);
  assert_int_equal(a->data_unacking, b->data_unacking);
  assert_int_equal(a->slow_rx_pending, b->slow_rx_pending);
  assert_true(a->feat_tx_valid == b->feat_tx_valid &&
              a->feat_tx_seq == b->feat_tx_seq && a->t_feat_tx == b->t_feat_tx);
  assert_int_equal(a->peer_ts_valid, b->peer_ts_valid);
  assert_int_equal(a->env.tx_nonce, b->env.tx_nonce);
  assert_int_equal(a->env.tx_more, b->env.tx_more);
  /* what reading a packet moves (conn_in.c, its fast path), the CCIDs'
   * state among it (cwnd, RTT, Ack Ratio, losses, marks) */
  assert_true(a->dup_high == b->dup_high && a->max_ack_lag == b->max_ack_lag);
  assert_true(a->t_last_rx == b->t_last_rx && a->swl == b->swl &&
              a->swh == b->swh && a->awl == b->awl && a->awh == b->awh);
  assert_true(memcmp(a->dup_bits, b->dup_bits, sizeof(a->dup_bits)) == 0);
  assert_true(a->env.srtt == b->env.srtt && a->env.rto == b->env.rto);
  {
    udccp_conn_info ia, ib;
    memset(&ia, 0, sizeof(ia));
    memset(&ib, 0, sizeof(ib));
    udccp_conn_get_info(a, &ia);
    udccp_conn_get_info(b, &ib);
    assert_true(memcmp(&ia, &ib, sizeof(ia)) == 0);
  }
  assert_true(a->info.pkts_sent == b->info.pkts_sent &&
              a->info.bytes_sent == b->info.bytes_sent &&
              a->info.data_pkts_sent == b->info.data_pkts_sent &&
              a->info.data_bytes_sent == b->info.data_bytes_sent);
}

/* A stream each way (the client's faster), with loss, in two pairs of the
 * same seed run side by side: p[0] through the fast builders (build_data,
 * build_ack), p[1] through udccp_conn_build's general path for every
 * packet once both ends are OPEN (conn->build_general); the connections'
 * state compared every 25 ms. */
static void wire_run(uint8_t ccid, double loss, wire_sum *w, uint64_t *acks) {
  udccp_pair p[2];
  int i, k;
  for (k = 0; k < 2; k++) {
    udccp_settings cs, ss;
    memset(&p[k], 0, sizeof(p[k]));
    memset(&w[k], 0, sizeof(w[k]));
    udccp_pair_settings(&p[k], &cs);
    udccp_pair_settings(&p[k], &ss);
    cs.ccid = ss.ccid = ccid;
    assert_int_equal(udccp_pair_init(&p[k], &cs, &ss, NULL, 11), 0);
    p[k].drop = wire_add;
    p[k].drop_ud = &w[k];
    assert_true(
        udccp_pair_run_until(&p[k], udccp_pair_both_open, NULL, 5 * S));
    p[k].loss[0] = p[k].loss[1] = loss;
    p[k].c[0]->build_general = p[k].c[1]->build_general = (uint8_t)k;
    p[k].c[0]->read_general = p[k].c[1]->read_general = (uint8_t)k;
    if (ccid == 2) {
      /* and CCID 2's acks through tx_on_pkt's general path */
      udccp_ccid2_tx_set_general(p[k].c[0]->tx_st, k);
      udccp_ccid2_tx_set_general(p[k].c[1]->tx_st, k);
    }
  }
  for (i = 0; i < 40; i++) {
    for (k = 0; k < 2; k++) {
      static const uint8_t d[300];
      (void)udccp_conn_queue_datagram(p[k].c[1], d, sizeof(d), 0, p[k].now);
      (void)udccp_pair_stream(&p[k], 0, 1000, MS / 10, 25 * MS);
    }
    conn_state_same(p[0].c[0], p[1].c[0]);
    conn_state_same(p[0].c[1], p[1].c[1]);
  }
  *acks = udccp_pair_count(&p[0], 1, UDCCP_PKT_ACK);
  udccp_pair_free(&p[0]);
  udccp_pair_free(&p[1]);
}

/* Issue 13's fast builders (conn_out.c build_data: OPEN DCCP-Data;
 * build_ack: OPEN DCCP-Ack) write what udccp_conn_build's general path
 * writes, with the same effects on the connection: two runs of the same
 * seed, one through the general path only, put the same bytes on the wire
 * in both directions and leave the connections in the same state (RFC 4340 §5.1, §5.3, §5.8, §11.4, §13: headers,
 * options, Ack Vectors, timestamps), CCID 2 and CCID 3 (its feedback is an
 * Ack), with and without loss.  Fails if a fast builder differs in any
 * byte or leaves the connection in another state. */
static void test_rfc4340_5_fast_builders_match_general(void **state) {
  static const uint8_t ccids[2] = {2, 3};
  static const double losses[2] = {0.0, 0.02};
  int c, l;
  (void)state;
  for (c = 0; c < 2; c++) {
    for (l = 0; l < 2; l++) {
      wire_sum w[2], a, b;
      uint64_t acks_a;
      wire_run(ccids[c], losses[l], w, &acks_a);
      a = w[0];
      b = w[1];
      print_message("CCID %u loss %.2f: %llu + %llu packets, %llu Acks from "
                    "the receiver; %s\n",
                    (unsigned)ccids[c], losses[l], (unsigned long long)a.n[0],
                    (unsigned long long)a.n[1], (unsigned long long)acks_a,
                    a.h[0] == b.h[0] && a.h[1] == b.h[1] ? "same" : "DIFFER");
      assert_true(acks_a > (ccids[c] == 2 ? 200u : 20u));
      assert_int_equal(a.n[0], b.n[0]);
      assert_int_equal(a.n[1], b.n[1]);
      assert_true(a.h[0] == b.h[0]);
      assert_true(a.h[1] == b.h[1]);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4341_6_2_acks_of_acks_per_window_not_per_packet),
      cmocka_unit_test(test_rfc4341_6_2_acks_of_acks_spaced_by_window),
      cmocka_unit_test(test_rfc4340_5_fast_builders_match_general),
      cmocka_unit_test(test_rfc4340_11_4_long_vector_ack_still_goes_out),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

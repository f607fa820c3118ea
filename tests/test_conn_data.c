/* SPDX-License-Identifier: MIT */
/*
 * Data transfer through the connection: Ack Vector trimming (RFC 4340
 * §11.4, Appendix A), Data Dropped (§11.7), Slow Receiver (§11.6), Data
 * Checksum (§9.3), CsCov and Minimum Checksum Coverage (§9.2), MPS (§14),
 * send queue policies, NDP Count (§7.7), Timestamps (§13).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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

/* What an observer saw in one direction. */
typedef struct seen {
  int dir;
  uint64_t data_dropped[8]; /* by Drop Code */
  uint64_t slow_receiver;
  uint64_t ndp_count;
  uint64_t ts_echo;
  uint64_t data_cksum;
  uint64_t cscov[16];
  uint64_t pkts;
  uint8_t drop_seen[4096]; /* Sequence Numbers (mod 4096) reported dropped */
} seen;

static int observe(udccp_pair *p, int dir, const uint8_t *pkt, size_t len,
                   uint64_t idx, void *ud) {
  seen *s = ud;
  udccp_conn_rxpkt rp;
  size_t i;
  (void)p;
  (void)idx;
  if (dir != s->dir || udccp_conn_decode(&rp, pkt, len) != 0) {
    return 0;
  }
  s->pkts++;
  s->cscov[rp.h.cscov]++;
  if (udccp_opts_parse(&rp.opts, rp.h.type, rp.h.opts, rp.h.opts_len) != 0) {
    return 0;
  }
  if (rp.opts.present & UDCCP_OPTS_HAS_DATA_DROPPED) {
    uint64_t cur = rp.h.ack; /* §11.7: blocks go back from the ackno */
    for (i = 0; i < rp.opts.data_dropped_len; ++i) {
      uint8_t b = rp.opts.data_dropped[i];
      unsigned run = (b & 0x80) ? (unsigned)(b & 0x0F) + 1
                                : (unsigned)(b & 0x7F) + 1;
      if (b & 0x80) {
        s->data_dropped[(b >> 4) & 7]++;
        for (unsigned k = 0; k < run; k++) {
          s->drop_seen[(cur - k) % 4096] = 1;
        }
      }
      cur -= run;
    }
  }
  s->slow_receiver += rp.opts.slow_receiver;
  s->ndp_count += (rp.opts.present & UDCCP_OPTS_HAS_NDP_COUNT) != 0;
  s->ts_echo += (rp.opts.present & UDCCP_OPTS_HAS_TS_ECHO) != 0;
  s->data_cksum += (rp.opts.present & UDCCP_OPTS_HAS_DATA_CHECKSUM) != 0;
  return 0;
}

static void open_pair(udccp_pair *p, const udccp_settings *cs,
                      const udccp_settings *ss, uint64_t seed) {
  assert_int_equal(udccp_pair_init(p, cs, ss, NULL, seed), 0);
  assert_true(udccp_pair_run_until(p, udccp_pair_both_open, NULL, 5 * S));
}

static size_t av_size(const udccp_conn *c) {
  if (c->av.empty) {
    return 0;
  }
  return (size_t)udccp_seq_sub(c->av.head, c->av.tail) + 1;
}

static void test_rfc4340_11_4_ackvec_bounded_over_long_transfer(void **state) {
  udccp_pair p;
  uint8_t buf[1500];
  size_t max_av[2] = {0, 0};
  uint64_t got = 0, sent = 0;
  udccp_tstamp end;
  (void)state;
  open_pair(&p, NULL, NULL, 1);
  /* A 10 ms path through a bottleneck of one packet per 100 us with a
   * 300-packet drop-tail queue: at most ~500 packets in flight. */
  p.spacing[0] = p.spacing[1] = 100000;
  p.qmax[0] = p.qmax[1] = 300;
  memset(buf, 0xAB, sizeof(buf));
  end = p.now + 20 * S;
  while (p.now < end) {
    while (udccp_conn_get_send_space(p.c[0]) > 0) {
      assert_int_equal(
          udccp_conn_queue_datagram(p.c[0], buf, 1000, 0, p.now), 0);
      sent++;
    }
    if (udccp_conn_get_send_space(p.c[1]) > 16) {
      assert_int_equal(udccp_conn_queue_datagram(p.c[1], buf, 100, 0, p.now),
                       0);
    }
    assert_true(udccp_pair_step(&p));
    while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
      got++;
    }
    while (udccp_conn_read_datagram(p.c[0], buf, sizeof(buf)) > 0) {
    }
    if (av_size(p.c[0]) > max_av[0]) {
      max_av[0] = av_size(p.c[0]);
    }
    if (av_size(p.c[1]) > max_av[1]) {
      max_av[1] = av_size(p.c[1]);
    }
  }
  print_message("delivered %llu datagrams, ackvec max %zu / %zu\n",
                (unsigned long long)got, max_av[0], max_av[1]);
  /* Tens of thousands of packets in 20 s... */
  assert_true(got > 50000);
  /* ...but acks of acks keep both buffers around a window of packets in
   * flight (<= ~500 here), not the length of the transfer. */
  assert_true(max_av[1] < 2000);
  assert_true(max_av[0] < 2000);
  udccp_pair_free(&p);
}

static void test_rfc4340_11_7_data_dropped_receive_buffer(void **state) {
  udccp_pair p;
  udccp_settings ss;
  seen sn;
  udccp_conn_info si;
  uint8_t buf[1500];
  int i, got = 0;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &ss);
  ss.rx_qlen = 8;
  open_pair(&p, NULL, &ss, 2);
  memset(&sn, 0, sizeof(sn));
  sn.dir = 1;
  p.drop = observe;
  p.drop_ud = &sn;
  for (i = 0; i < 20; ++i) {
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 200, 0, p.now), 0);
  }
  udccp_pair_run_for(&p, 3 * S);
  udccp_conn_get_info(p.c[1], &si);
  assert_int_equal(si.rx_qdrops, 12);
  while (udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)) > 0) {
    got++;
  }
  assert_int_equal(got, 8);
  /* §11.7.2: reported with Drop Code 2, "Receive Buffer". */
  assert_true(sn.data_dropped[2] >= 1);
  assert_int_equal(sn.data_dropped[3], 0);
  /* §11.6: and the receiver asked the sender not to speed up. */
  assert_true(sn.slow_receiver >= 1);
  udccp_pair_free(&p);
}

static void test_rfc4340_11_6_slow_receiver_when_nearly_full(void **state) {
  udccp_pair p;
  udccp_settings ss;
  seen sn;
  uint8_t buf[1500];
  int i;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &ss);
  ss.rx_qlen = 8;
  open_pair(&p, NULL, &ss, 3);
  memset(&sn, 0, sizeof(sn));
  sn.dir = 1;
  p.drop = observe;
  p.drop_ud = &sn;
  /* Two datagrams: plenty of room, no Slow Receiver. */
  for (i = 0; i < 2; ++i) {
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 100, 0, p.now), 0);
  }
  udccp_pair_run_for(&p, 1 * S);
  assert_int_equal(sn.slow_receiver, 0);
  /* Two more leave only 4 free slots. */
  for (i = 0; i < 2; ++i) {
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 100, 0, p.now), 0);
  }
  udccp_pair_run_for(&p, 1 * S);
  assert_true(sn.slow_receiver >= 1);
  assert_true(p.c[0]->slow_until > 0); /* the sender took note */
  udccp_pair_free(&p);
}

static void test_rfc4340_9_3_data_checksum_sent_and_checked(void **state) {
  udccp_pair p;
  udccp_settings cs;
  seen sn;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  uint8_t buf[1500], pkt[1500], opt[6];
  udccp_ssize n;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.check_data_checksum = 1;
  open_pair(&p, &cs, NULL, 4);
  memset(&sn, 0, sizeof(sn));
  sn.dir = 0;
  p.drop = observe;
  p.drop_ud = &sn;
  memset(buf, 3, 300);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 300, 0, p.now), 0);
  udccp_pair_run_for(&p, 500 * MS);
  assert_true(sn.data_cksum >= 1);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)), 300);
  /* A DataAck whose Data Checksum does not match: data dropped (Corrupt). */
  udccp_conn_get_info(p.c[1], &si);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATAACK, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    si.gss);
  opt[0] = UDCCP_OPT_DATA_CHECKSUM;
  opt[1] = 6;
  opt[2] = opt[3] = opt[4] = opt[5] = 0x5A;
  tp.opts = opt;
  tp.opts_len = 6;
  tp.payload = buf;
  tp.payload_len = 64;
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_int_equal(udccp_conn_read_pkt(p.c[1], pkt, (size_t)n, 0, p.now), 0);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)),
                   UDCCP_ERR_AGAIN);
  assert_int_equal(p.c[1]->n_drops, 1);
  assert_int_equal(p.c[1]->drops[0].code_run, 3 << 4); /* one packet */
  memset(&sn, 0, sizeof(sn));
  sn.dir = 1;
  p.c[1]->pending |= UDCCP_PEND_ACK;
  udccp_pair_run_for(&p, 100 * MS);
  assert_true(sn.data_dropped[3] >= 1);
  udccp_pair_free(&p);
}

/* §11.7: a receive buffer that overflows by many packets between two acks
 * (a receiver that reads a batch of datagrams, then acks) reports every
 * one of them in the next ack, in runs (one Drop Block per 16), not only
 * the last 16 records. */
static void test_rfc4340_11_7_every_receive_buffer_drop_reported(void **state) {
  udccp_pair p;
  udccp_settings ss;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  seen *sn = calloc(1, sizeof(*sn));
  uint8_t buf[200];
  size_t k, reported = 0;
  int i;
  (void)state;
  assert_non_null(sn);
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &ss);
  ss.rx_qlen = 8;
  open_pair(&p, NULL, &ss, 21);
  memset(buf, 7, sizeof(buf));
  /* 100 data packets in the client's name, one after the other, with no
   * chance for the server to ack in between. */
  for (i = 0; i < 100; i++) {
    p.c[0]->gss = udccp_seq_add(p.c[0]->gss, 1);
    udccp_conn_update_windows(p.c[0]);
    udccp_conn_get_info(p.c[1], &si);
    udccp_tb_pkt_init(&tp, UDCCP_PKT_DATAACK, p.c[0]->gss & UDCCP_SEQ_MASK,
                      si.gss);
    tp.payload = buf;
    tp.payload_len = sizeof(buf);
    assert_int_equal(udccp_pair_feed(&p, 1, &tp), 0);
  }
  udccp_conn_get_info(p.c[1], &si);
  assert_int_equal(si.rx_qdrops, 92);
  sn->dir = 1;
  p.drop = observe;
  p.drop_ud = sn;
  p.c[1]->pending |= UDCCP_PEND_ACK;
  udccp_pair_run_for(&p, 50 * MS);
  for (k = 0; k < 4096; k++) {
    reported += sn->drop_seen[k];
  }
  assert_int_equal(reported, 92);
  udccp_pair_free(&p);
  free(sn);
}

/* §11.7.2: Drop Code 3 (Corrupt) MUST make the CCID behave as if the
 * packet were ECN marked.  A CCID 3 receiver counts the corrupt packet as
 * a loss (RFC 5348 §5.1): a loss event, so the sender's p leaves 0 on a
 * path that loses nothing else. */
static void test_rfc4340_11_7_2_corrupt_counts_as_marked_ccid3(void **state) {
  udccp_pair p;
  udccp_settings cs;
  udccp_conn_info ci, si;
  udccp_tb_pkt tp;
  uint8_t buf[1500], opt[6];
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.ccid = 3;
  open_pair(&p, &cs, NULL, 12);
  (void)udccp_pair_stream(&p, 0, 300, 5 * MS, S);
  udccp_conn_get_info(p.c[0], &ci);
  assert_true(ci.p == 0.0);
  /* In the client's name: its next sequence number, a bad Data Checksum. */
  p.c[0]->gss = udccp_seq_add(p.c[0]->gss, 1);
  udccp_conn_update_windows(p.c[0]);
  udccp_conn_get_info(p.c[1], &si);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATAACK, p.c[0]->gss & UDCCP_SEQ_MASK,
                    si.gss);
  opt[0] = UDCCP_OPT_DATA_CHECKSUM;
  opt[1] = 6;
  opt[2] = opt[3] = opt[4] = opt[5] = 0x5A;
  tp.opts = opt;
  tp.opts_len = 6;
  memset(buf, 3, 300);
  tp.payload = buf;
  tp.payload_len = 300;
  assert_int_equal(udccp_pair_feed(&p, 1, &tp), 0);
  udccp_conn_get_info(p.c[1], &si);
  assert_int_equal(si.pkts_bad_cksum, 1);
  (void)udccp_pair_stream(&p, 0, 300, 5 * MS, S);
  udccp_conn_get_info(p.c[0], &ci);
  print_message("sender's p after one corrupt packet: %g\n", ci.p);
  assert_true(ci.p > 0.0);
  assert_int_equal(udccp_pair_state(&p, 0), UDCCP_STATE_OPEN);
  udccp_pair_free(&p);
}

static void test_rfc4340_9_2_1_cscov_and_min_cscov(void **state) {
  udccp_pair p;
  udccp_settings cs, ss;
  seen sn;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  uint8_t buf[1500], pkt[1500];
  udccp_ssize n;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  udccp_pair_settings(&p, &ss);
  cs.send_cscov = 2;
  ss.min_cscov = 2;
  open_pair(&p, &cs, &ss, 5);
  memset(&sn, 0, sizeof(sn));
  sn.dir = 0;
  p.drop = observe;
  p.drop_ud = &sn;
  memset(buf, 9, 400);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 400, 0, p.now), 0);
  udccp_pair_run_for(&p, 500 * MS);
  /* The client's packets use partial coverage; the server accepts them. */
  assert_true(sn.cscov[2] >= 1);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)), 400);
  /* CsCov 1 is below the server's Minimum Checksum Coverage: dropped. */
  udccp_conn_get_info(p.c[1], &si);
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATAACK, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    si.gss);
  tp.cscov = 1;
  tp.payload = buf;
  tp.payload_len = 40;
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_int_equal(udccp_conn_read_pkt(p.c[1], pkt, (size_t)n, 0, p.now),
                   UDCCP_ERR_DROPPED);
  /* CsCov 3 is fine (the next sequence number: the packet above was
   * received, its data refused, and a second packet numbered the same is a
   * network duplicate, RFC 4340 §7). */
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATAACK, (si.gsr + 2) & UDCCP_SEQ_MASK,
                    si.gss);
  tp.payload = buf;
  tp.payload_len = 40;
  tp.cscov = 3;
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  assert_int_equal(udccp_conn_read_pkt(p.c[1], pkt, (size_t)n, 0, p.now), 0);
  /* The server's own packets cover everything: the client did not allow
   * partial coverage (MinCsCov/client = 0). */
  memset(&sn, 0, sizeof(sn));
  sn.dir = 1;
  assert_int_equal(udccp_conn_queue_datagram(p.c[1], buf, 400, 0, p.now), 0);
  udccp_pair_run_for(&p, 500 * MS);
  assert_true(sn.pkts >= 1);
  assert_int_equal(sn.cscov[0], sn.pkts);
  udccp_pair_free(&p);
}

static void test_rfc4340_9_2_partial_cscov_refused_by_default(void **state) {
  udccp_pair p;
  udccp_conn_info si;
  udccp_tb_pkt tp;
  uint8_t pkt[1500], pl[40];
  udccp_ssize n;
  (void)state;
  open_pair(&p, NULL, NULL, 6);
  udccp_conn_get_info(p.c[1], &si);
  memset(pl, 0, sizeof(pl));
  udccp_tb_pkt_init(&tp, UDCCP_PKT_DATAACK, (si.gsr + 1) & UDCCP_SEQ_MASK,
                    si.gss);
  tp.cscov = 4;
  tp.payload = pl;
  tp.payload_len = sizeof(pl);
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  /* MinCsCov = 0: only CsCov = 0 is acceptable (§9.2.1). */
  assert_int_equal(udccp_conn_read_pkt(p.c[1], pkt, (size_t)n, 0, p.now),
                   UDCCP_ERR_DROPPED);
  /* A corrupted checksum is counted separately. */
  tp.cscov = 0;
  n = udccp_tb_encode(pkt, sizeof(pkt), &p.path[0], &tp);
  pkt[n - 1] ^= 0xFF;
  assert_int_equal(udccp_conn_read_pkt(p.c[1], pkt, (size_t)n, 0, p.now),
                   UDCCP_ERR_CHECKSUM);
  udccp_conn_get_info(p.c[1], &si);
  assert_int_equal(si.pkts_bad_cksum, 1);
  udccp_pair_free(&p);
}

static void test_rfc4340_14_mps_and_emsgsize(void **state) {
  udccp_pair p;
  uint8_t buf[1500];
  size_t mps;
  (void)state;
  open_pair(&p, NULL, NULL, 7);
  mps = udccp_conn_get_mps(p.c[0]);
  /* PMTU 1500 - IPv4 20 - DCCP header 24 - options space. */
  assert_true(mps > 1300 && mps <= 1500 - 20 - 24);
  memset(buf, 1, sizeof(buf));
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, mps + 1, 0, p.now),
                   UDCCP_ERR_MSGSIZE);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, mps, 0, p.now), 0);
  udccp_pair_run_for(&p, 500 * MS);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)),
                   (udccp_ssize)mps);
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], 576), 0);
  assert_int_equal(udccp_conn_get_mps(p.c[0]), mps - (1500 - 576));
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, mps, 0, p.now),
                   UDCCP_ERR_MSGSIZE);
  udccp_pair_free(&p);
}

/* §14: datagrams the MPS shrank under are dropped, and the next one that
 * fits goes within the same write_pkt loop.  write_pkt used to return 0
 * for each datagram it dropped, with the next one sendable at once: the
 * caller's timer was left in the past (found by fuzz_pair). */
static void test_rfc4340_14_mps_shrink_drops_then_sends(void **state) {
  udccp_pair p;
  udccp_conn_info ci0, ci;
  uint8_t buf[1500], out[1500];
  size_t mps;
  int i;
  (void)state;
  open_pair(&p, NULL, NULL, 7);
  mps = udccp_conn_get_mps(p.c[0]);
  udccp_conn_get_info(p.c[0], &ci0);
  memset(buf, 1, sizeof(buf));
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, mps, 0, p.now), 0);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, mps, 0, p.now), 0);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 10, 0, p.now), 0);
  assert_int_equal(udccp_conn_set_pmtu(p.c[0], 576), 0);
  for (i = 0; i < 10; i++) {
    if (udccp_conn_write_pkt(p.c[0], out, sizeof(out), NULL, p.now) <= 0) {
      break;
    }
  }
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(ci.tx_qdrops - ci0.tx_qdrops, 2);
  assert_int_equal(ci.data_pkts_sent - ci0.data_pkts_sent, 1);
  assert_true(udccp_conn_get_expiry(p.c[0]) > p.now);
  udccp_pair_free(&p);
}

static void test_qpolicy_simple_refuses_when_full(void **state) {
  udccp_pair p;
  udccp_settings cs;
  uint8_t buf[100];
  int i;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.tx_qlen = 4;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 8), 0);
  /* Still in REQUEST: the datagrams wait in the queue. */
  for (i = 0; i < 4; ++i) {
    buf[0] = (uint8_t)i;
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 10, 0, 0), 0);
  }
  assert_int_equal(udccp_conn_get_send_space(p.c[0]), 0);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 10, 0, 0),
                   UDCCP_ERR_AGAIN);
  udccp_pair_run_for(&p, 2 * S);
  for (i = 0; i < 4; ++i) {
    assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)), 10);
    assert_int_equal(buf[0], i);
  }
  udccp_pair_free(&p);
}

static void test_qpolicy_prio_drops_lowest_when_full(void **state) {
  udccp_pair p;
  udccp_settings cs;
  udccp_conn_info ci;
  uint8_t buf[100];
  int i;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.tx_qlen = 4;
  cs.qpolicy = UDCCP_QPOLICY_PRIO;
  assert_int_equal(udccp_pair_init(&p, &cs, NULL, NULL, 9), 0);
  for (i = 1; i <= 5; ++i) {
    buf[0] = (uint8_t)i;
    assert_int_equal(
        udccp_conn_queue_datagram(p.c[0], buf, 10, (uint32_t)i, 0), 0);
  }
  udccp_conn_get_info(p.c[0], &ci);
  assert_int_equal(ci.tx_qdrops, 1);
  udccp_pair_run_for(&p, 2 * S);
  /* Highest priority first; priority 1 was evicted. */
  for (i = 5; i >= 2; --i) {
    assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)), 10);
    assert_int_equal(buf[0], i);
  }
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)),
                   UDCCP_ERR_AGAIN);
  udccp_pair_free(&p);
}

static void test_rfc4340_7_7_ndp_count_sent_when_asked(void **state) {
  udccp_pair p;
  udccp_settings ss;
  seen sn;
  uint8_t buf[100];
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &ss);
  ss.send_ndp_count = 1; /* the server asks the client for NDP Count */
  open_pair(&p, NULL, &ss, 10);
  assert_true(p.c[0]->send_ndp);
  assert_false(p.c[1]->send_ndp);
  memset(&sn, 0, sizeof(sn));
  sn.dir = 0;
  p.drop = observe;
  p.drop_ud = &sn;
  /* Handshake Acks were non-data: the next data packet carries it. */
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 50, 0, p.now), 0);
  udccp_pair_run_for(&p, 500 * MS);
  assert_true(sn.ndp_count >= 1);
  udccp_pair_free(&p);
}

/* RFC 4340 §7.7: "datagrams lost before this one" for the receiver
 * (udccp_recv_info.lost_before).  The client sends 200 numbered
 * datagrams while the server sends it data too, so that the client's
 * pure Acks (non-data) fall between its data packets; the path drops
 * some data packets (every 7th, and a run of three) and every third pure
 * Ack (but those just before a lost data packet: the NDP Count that
 * tells them apart would be lost with it).  Each datagram the server reads says exactly how many data
 * packets were lost since the previous one: the lost Acks, told apart by
 * the NDP Count, do not count. */
typedef struct gap_drop {
  int dropped[256];
  uint64_t acks, acks_dropped;
  int last_tag; /* of the client's latest data packet */
} gap_drop;

static int tag_dropped(int t) { return t % 7 == 3 || (t >= 50 && t <= 52); }

static int drop_some(udccp_pair *p, int dir, const uint8_t *pkt, size_t len,
                     uint64_t idx, void *ud) {
  gap_drop *g = ud;
  udccp_conn_rxpkt rp;
  (void)p;
  (void)idx;
  if (dir != 0 || udccp_conn_decode(&rp, pkt, len) != 0) {
    return 0;
  }
  if ((rp.h.type == UDCCP_PKT_DATA || rp.h.type == UDCCP_PKT_DATAACK) &&
      rp.h.payload_len > 0) {
    uint8_t t = rp.h.payload[0];
    g->last_tag = t;
    if (tag_dropped(t)) {
      g->dropped[t] = 1;
      return 1;
    }
    return 0;
  }
  if (rp.h.type == UDCCP_PKT_ACK) {
    /* Not right before a lost data packet: the NDP Count that tells
     * lost Acks from lost data rides on the packet after them. */
    if (++g->acks % 3 == 0 && !tag_dropped(g->last_tag + 1)) {
      g->acks_dropped++;
      return 1;
    }
    return 0;
  }
  return 0;
}

static void test_rfc4340_7_7_lost_before_each_datagram(void **state) {
  udccp_pair p;
  udccp_settings ss;
  gap_drop g;
  uint8_t buf[64];
  int next = 0, got = 0;
  uint64_t lost_total = 0;
  (void)state;
  memset(&p, 0, sizeof(p));
  memset(&g, 0, sizeof(g));
  g.last_tag = -1;
  udccp_pair_settings(&p, &ss);
  ss.send_ndp_count = 1; /* the server asks the client for NDP Count */
  open_pair(&p, NULL, &ss, 11);
  p.drop = drop_some;
  p.drop_ud = &g;
  for (int i = 0; i < 200; i++) {
    memset(buf, i, sizeof(buf));
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 40, 0, p.now), 0);
    (void)udccp_conn_queue_datagram(p.c[1], buf, 40, 0, p.now);
    udccp_pair_run_for(&p, 20 * MS);
    udccp_recv_info ri = UDCCP_RECV_INFO_INIT;
    udccp_ssize n;
    while ((n = udccp_conn_read_datagram_ex(p.c[1], buf, sizeof(buf), &ri)) >=
           0) {
      int t = buf[0];
      int expect = 0;
      for (int k = next; k < t; k++) {
        expect += g.dropped[k];
      }
      assert_int_equal(n, 40);
      assert_int_equal(ri.lost_before, (uint64_t)expect);
      assert_int_equal(ri.seq >> 48, 0);
      lost_total += ri.lost_before;
      next = t + 1;
      got++;
      while (udccp_conn_read_datagram(p.c[0], buf, sizeof(buf)) >= 0) {
      }
    }
  }
  int dropped = 0, before_last = 0;
  for (int k = 0; k < 200; k++) {
    dropped += g.dropped[k];
    before_last += k < next ? g.dropped[k] : 0; /* reported with a later one */
  }
  print_message("200 sent, %d dropped (and %llu of %llu pure Acks), %d "
                "received, lost_before sums to %llu\n",
                dropped, (unsigned long long)g.acks_dropped,
                (unsigned long long)g.acks, got,
                (unsigned long long)lost_total);
  /* lost pure Acks were there to be told apart */
  assert_true(g.acks_dropped >= 10);
  assert_int_equal(got + dropped, 200);
  assert_int_equal(lost_total, (uint64_t)before_last);
  assert_true(before_last >= dropped - 1); /* only tag 199 comes after */
  /* a caller's smaller struct: nothing written past its size */
  udccp_recv_info small = UDCCP_RECV_INFO_INIT;
  small.size = 4;
  assert_int_equal(udccp_conn_read_datagram_ex(p.c[1], buf, sizeof(buf),
                                               &small),
                   UDCCP_ERR_INVALID_ARGUMENT);
  udccp_pair_free(&p);
}

static void test_rfc4340_13_3_timestamp_echo(void **state) {
  udccp_pair p;
  seen sn;
  (void)state;
  memset(&sn, 0, sizeof(sn));
  sn.dir = 1;
  assert_int_equal(udccp_pair_init(&p, NULL, NULL, NULL, 11), 0);
  p.drop = observe;
  p.drop_ud = &sn;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  /* The Response echoes the Request's Timestamp. */
  assert_true(sn.ts_echo >= 1);
  udccp_pair_free(&p);
}

static void test_rfc4340_12_1_ect_when_peer_reads_ecn(void **state) {
  udccp_pair p;
  udccp_settings cs;
  uint8_t buf[1500], ecn = 9;
  (void)state;
  memset(&p, 0, sizeof(p));
  udccp_pair_settings(&p, &cs);
  cs.ecn_capable = 1;
  open_pair(&p, &cs, NULL, 12);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], buf, 100, 0, p.now), 0);
  assert_true(udccp_conn_write_pkt(p.c[0], buf, sizeof(buf), &ecn, p.now) > 0);
  assert_true(ecn == 1 || ecn == 2); /* ECT(1) or ECT(0): the nonce */
  /* The server did not enable ECN for what it sends. */
  assert_int_equal(udccp_conn_queue_datagram(p.c[1], buf, 100, 0, p.now), 0);
  assert_true(udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), &ecn, p.now) > 0);
  assert_int_equal(ecn, 0);
  udccp_pair_free(&p);
}

static void test_rfc4341_6_acks_due_between_writes_not_merged(void **state) {
  udccp_pair p;
  uint8_t buf[1500], pkts[8][1500];
  udccp_ssize lens[8], n;
  uint64_t last_ack = 0;
  int i, acks = 0;
  (void)state;
  open_pair(&p, NULL, NULL, 13);
  udccp_pair_run_for(&p, 500 * MS);
  memset(buf, 0, sizeof(buf));
  /* Eight data packets from the client, all handed to the server before
   * it writes anything (one receive batch). */
  {
    udccp_conn_info si;
    udccp_tb_pkt tp;
    udccp_conn_get_info(p.c[1], &si);
    for (i = 0; i < 8; ++i) {
      udccp_tb_pkt_init(&tp, UDCCP_PKT_DATA,
                        (si.gsr + 1 + (uint64_t)i) & UDCCP_SEQ_MASK, 0);
      tp.payload = buf;
      tp.payload_len = 100;
      lens[i] = udccp_tb_encode(pkts[i], sizeof(pkts[i]), &p.path[0], &tp);
      assert_true(lens[i] > 0);
    }
  }
  for (i = 0; i < 8; ++i) {
    assert_int_equal(udccp_conn_read_pkt(p.c[1], pkts[i], (size_t)lens[i], 0,
                                         p.now),
                     0);
  }
  /* Ack Ratio 2: four acks, each acknowledging a newer packet. */
  while ((n = udccp_conn_write_pkt(p.c[1], buf, sizeof(buf), NULL, p.now)) >
         0) {
    udccp_conn_rxpkt rp;
    assert_int_equal(udccp_conn_decode(&rp, buf, (size_t)n), 0);
    if (rp.h.type == UDCCP_PKT_ACK) {
      if (acks > 0) {
        assert_true(udccp_seq_gt(rp.h.ack, last_ack));
      }
      last_ack = rp.h.ack;
      acks++;
    }
  }
  assert_int_equal(acks, 4);
  udccp_pair_free(&p);
}

/* §7.7: DCCP-Data and DCCP-DataAck are data packets by their type, an
 * empty one too; udccp.h promises udccp_recv() returns 0 for an empty
 * datagram.  Empty datagrams were queued (0), sent as empty DCCP-Data
 * counted as non-data, and dropped by the receiver without a trace.  Over
 * the fast path (CCID 2), the TFRC one (CCID 3), and the general one (NDP
 * Count and Data Checksum on). */
static void test_rfc4340_7_7_empty_datagrams_delivered(void **state) {
  int k;
  (void)state;
  for (k = 0; k < 3; k++) {
    udccp_pair p;
    udccp_settings cs, ss;
    udccp_conn_info ci0, ci, si;
    uint8_t buf[64];
    const size_t want[4] = {0, 1, 0, 2};
    size_t i;
    udccp_pair_settings(&p, &cs);
    udccp_pair_settings(&p, &ss);
    if (k == 1) {
      cs.ccid = ss.ccid = 3;
    } else if (k == 2) {
      cs.send_ndp_count = ss.send_ndp_count = 1;
      cs.check_data_checksum = 1;
    }
    open_pair(&p, &cs, &ss, 11);
    udccp_conn_get_info(p.c[0], &ci0);
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], "", 0, 0, p.now), 0);
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], "a", 1, 0, p.now), 0);
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], NULL, 0, 0, p.now), 0);
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], "bc", 2, 0, p.now), 0);
    udccp_pair_run_for(&p, 1 * S);
    for (i = 0; i < 4; i++) {
      assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)),
                       (udccp_ssize)want[i]);
    }
    assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)),
                     UDCCP_ERR_AGAIN);
    udccp_conn_get_info(p.c[0], &ci);
    udccp_conn_get_info(p.c[1], &si);
    printf("config %d: data packets sent %llu, received %llu, lost %llu\n", k,
           (unsigned long long)(ci.data_pkts_sent - ci0.data_pkts_sent),
           (unsigned long long)si.data_pkts_recv,
           (unsigned long long)si.pkts_lost_rx);
    assert_int_equal(ci.data_pkts_sent - ci0.data_pkts_sent, 4);
    assert_int_equal(si.pkts_lost_rx, 0);
    udccp_pair_free(&p);
  }
}

/* udccp.h: UDCCP_ERR_INVALID_ARGUMENT is "a parameter out of range or
 * NULL".  A NULL datagram with a length, or a NULL buffer with room, was
 * a copy from or to NULL (a crash); len 0 / cap 0 with NULL stay valid. */
static void test_api_null_data_pointers_refused(void **state) {
  udccp_pair p;
  uint8_t buf[16];
  uint8_t *resv = NULL;
  (void)state;
  open_pair(&p, NULL, NULL, 12);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], NULL, 5, 0, p.now),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_queue_datagram_until(p.c[0], NULL, 1, 0,
                                                   UDCCP_TSTAMP_NEVER, p.now),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_get_send_space(p.c[0]), p.s[0].tx_qlen);
  assert_int_equal(udccp_conn_queue_datagram(p.c[0], "hello", 5, 0, p.now),
                   0);
  assert_int_equal(udccp_conn_reserve_datagram(p.c[0], 3, 0,
                                               UDCCP_TSTAMP_NEVER, &resv,
                                               p.now),
                   0);
  memcpy(resv, "abc", 3);
  assert_int_equal(udccp_conn_commit_datagram(p.c[0], 3, p.now), 0);
  udccp_pair_run_for(&p, 500 * MS);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], NULL, 100),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_read_datagram_ex(p.c[1], NULL, 5, NULL),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], NULL, 0), UDCCP_ERR_NOBUF);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)), 5);
  assert_memory_equal(buf, "hello", 5);
  assert_int_equal(udccp_conn_read_datagram(p.c[1], buf, sizeof(buf)), 3);
  udccp_pair_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_11_7_2_corrupt_counts_as_marked_ccid3),
      cmocka_unit_test(test_rfc4340_11_4_ackvec_bounded_over_long_transfer),
      cmocka_unit_test(test_rfc4340_11_7_data_dropped_receive_buffer),
      cmocka_unit_test(test_rfc4340_11_7_every_receive_buffer_drop_reported),
      cmocka_unit_test(test_rfc4340_11_6_slow_receiver_when_nearly_full),
      cmocka_unit_test(test_rfc4340_9_3_data_checksum_sent_and_checked),
      cmocka_unit_test(test_rfc4340_9_2_1_cscov_and_min_cscov),
      cmocka_unit_test(test_rfc4340_9_2_partial_cscov_refused_by_default),
      cmocka_unit_test(test_rfc4340_14_mps_and_emsgsize),
      cmocka_unit_test(test_qpolicy_simple_refuses_when_full),
      cmocka_unit_test(test_qpolicy_prio_drops_lowest_when_full),
      cmocka_unit_test(test_rfc4340_7_7_ndp_count_sent_when_asked),
      cmocka_unit_test(test_rfc4340_7_7_lost_before_each_datagram),
      cmocka_unit_test(test_rfc4340_13_3_timestamp_echo),
      cmocka_unit_test(test_rfc4340_12_1_ect_when_peer_reads_ecn),
      cmocka_unit_test(test_rfc4341_6_acks_due_between_writes_not_merged),
      cmocka_unit_test(test_rfc4340_14_mps_shrink_drops_then_sends),
      cmocka_unit_test(test_rfc4340_7_7_empty_datagrams_delivered),
      cmocka_unit_test(test_api_null_data_pointers_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

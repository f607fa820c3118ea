/* SPDX-License-Identifier: MIT */
/*
 * udccp_conn_write_pkt_sg (issue 13, the io/ runtime's scatter-gather
 * write): the header in the caller's buffer, the payload left in the send
 * queue.  The packets on the wire must be the ones udccp_conn_write_pkt
 * makes, byte for byte, whatever the options (Data Checksum, RFC 4340
 * §9.3; Ack Vector, §11.4; ECN nonces, §12.2) and losses; a connection
 * whose checksum covers the payload (§9, native DCCP) writes whole
 * packets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "conn.h"
#include "pair.h"

#define S UDCCP_NS_PER_S
#define MS UDCCP_NS_PER_MS

/* Every packet offered in each direction, folded into one hash. */
typedef struct wire_log {
  uint64_t hash[2];
  uint64_t pkts[2], bytes[2];
} wire_log;

static int log_pkt(udccp_pair *p, int dir, const uint8_t *pkt, size_t len,
                   uint64_t idx, void *ud) {
  wire_log *w = ud;
  uint64_t h = w->hash[dir] ^ len;
  (void)p;
  (void)idx;
  for (size_t i = 0; i < len; i++) {
    h = (h ^ pkt[i]) * 0x100000001b3ULL; /* FNV-1a */
  }
  w->hash[dir] = h;
  w->pkts[dir]++;
  w->bytes[dir] += len;
  return 0;
}

typedef struct variant {
  const char *name;
  uint8_t cksum_mode;
  uint8_t data_cksum;
  uint8_t ecn;
  double loss;
} variant;

/* A transfer both ways with datagrams of many sizes and contents; the
 * log of what went on the wire, and each side's counters. */
static void transfer(const variant *v, int sg, wire_log *w,
                     udccp_conn_info info[2]) {
  udccp_pair p;
  udccp_settings cs, ss;
  uint8_t d[1400];
  memset(&p, 0, sizeof(p));
  memset(w, 0, sizeof(*w));
  udccp_pair_settings(&p, &cs);
  udccp_pair_settings(&p, &ss);
  cs.cksum_mode = ss.cksum_mode = v->cksum_mode;
  cs.check_data_checksum = ss.check_data_checksum = v->data_cksum;
  cs.ecn_capable = ss.ecn_capable = v->ecn;
  assert_int_equal(udccp_pair_init(&p, &cs, &ss, NULL, 7), 0);
  p.sg = sg;
  p.drop = log_pkt;
  p.drop_ud = w;
  assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
  p.loss[0] = p.loss[1] = v->loss;
  for (int k = 0; k < 400; k++) {
    for (int side = 0; side < 2; side++) {
      size_t len = (size_t)(k * 37 + side * 11) % sizeof(d) + (k % 3 == 0);
      for (size_t i = 0; i < len; i++) {
        d[i] = (uint8_t)(i * 7 + (size_t)k + (size_t)side);
      }
      if (side == 1 && k % 4 != 0) {
        continue; /* the server sends less: acks ride on both */
      }
      (void)udccp_conn_queue_datagram(p.c[side], d, len, 0, p.now);
    }
    udccp_pair_run_for(&p, 2 * MS);
    while (udccp_conn_read_datagram(p.c[0], d, sizeof(d)) >= 0) {
    }
    while (udccp_conn_read_datagram(p.c[1], d, sizeof(d)) >= 0) {
    }
  }
  udccp_pair_run_for(&p, 1 * S);
  udccp_conn_get_info(p.c[0], &info[0]);
  udccp_conn_get_info(p.c[1], &info[1]);
  udccp_pair_free(&p);
}

static void test_sg_wire_is_write_pkts(void **state) {
  static const variant vs[] = {
      {"DCCP-UDP", UDCCP_CKSUM_NONE, 0, 0, 0.0},
      {"DCCP-UDP, Data Checksum, ECN, 2 % loss", UDCCP_CKSUM_NONE, 1, 1,
       0.02},
      {"native (full checksum), 2 % loss", UDCCP_CKSUM_FULL, 1, 1, 0.02},
  };
  (void)state;
  for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
    wire_log a, b;
    udccp_conn_info ia[2], ib[2];
    transfer(&vs[i], 0, &a, ia);
    transfer(&vs[i], 1, &b, ib);
    printf("%s: %llu/%llu packets, %llu/%llu bytes each way, hashes %s\n",
           vs[i].name, (unsigned long long)a.pkts[0],
           (unsigned long long)a.pkts[1], (unsigned long long)a.bytes[0],
           (unsigned long long)a.bytes[1],
           memcmp(a.hash, b.hash, sizeof(a.hash)) == 0 ? "equal" : "DIFFER");
    assert_true(ia[0].data_pkts_sent > 150);
    assert_true(ia[1].data_pkts_sent > 40);
    for (int dir = 0; dir < 2; dir++) {
      assert_int_equal(a.pkts[dir], b.pkts[dir]);
      assert_int_equal(a.bytes[dir], b.bytes[dir]);
      assert_true(a.hash[dir] == b.hash[dir]);
      assert_int_equal(ia[dir].bytes_sent, ib[dir].bytes_sent);
      assert_int_equal(ia[dir].data_bytes_sent, ib[dir].data_bytes_sent);
      assert_int_equal(ia[dir].data_bytes_recv,
                       ib[dir].data_bytes_recv);
    }
  }
}

/* The payload is the queued datagram, where it lies; the header alone is
 * written (DCCP-UDP; Data and DataAck), and a full checksum makes a whole
 * packet. */
static void test_sg_payload_is_the_queued_datagram(void **state) {
  for (int full = 0; full < 2; full++) {
    udccp_pair p;
    udccp_settings cs, ss;
    uint8_t d[500], buf[1500];
    const uint8_t *pl = (const uint8_t *)"x";
    size_t pl_len = 99;
    uint8_t ecn = 9;
    (void)state;
    memset(&p, 0, sizeof(p));
    udccp_pair_settings(&p, &cs);
    udccp_pair_settings(&p, &ss);
    cs.cksum_mode = ss.cksum_mode = full ? UDCCP_CKSUM_FULL : UDCCP_CKSUM_NONE;
    assert_int_equal(udccp_pair_init(&p, &cs, &ss, NULL, 3), 0);
    assert_true(udccp_pair_run_until(&p, udccp_pair_both_open, NULL, 5 * S));
    udccp_pair_run_for(&p, 100 * MS);
    for (size_t i = 0; i < sizeof(d); i++) {
      d[i] = (uint8_t)(i ^ 0x5a);
    }
    assert_int_equal(udccp_conn_queue_datagram(p.c[0], d, sizeof(d), 0, p.now),
                     0);
    udccp_ssize n = udccp_conn_write_pkt_sg(p.c[0], buf, sizeof(buf), &pl,
                                            &pl_len, &ecn, p.now);
    assert_true(n > 0);
    if (full) {
      assert_int_equal(pl_len, 0);
      assert_true((size_t)n > sizeof(d));
      assert_memory_equal(buf + (size_t)n - sizeof(d), d, sizeof(d));
    } else {
      assert_int_equal(pl_len, sizeof(d));
      assert_true(n >= 16 && n < 100); /* the header and options */
      assert_memory_equal(pl, d, sizeof(d));
    }
    if (!full) {
      /* The same for a DataAck (an ack owed rides on the data, §11.1):
       * its header, options and Ack Vector alone. */
      assert_int_equal(
          udccp_conn_queue_datagram(p.c[0], d, sizeof(d), 0, p.now), 0);
      p.c[0]->ack_needed = 1;
      /* (10 ms on: past the pace of the first, RFC 4341 §5) */
      n = udccp_conn_write_pkt_sg(p.c[0], buf, sizeof(buf), &pl, &pl_len,
                                  &ecn, p.now + 10 * MS);
      assert_true(n >= 24 && n < 100);
      assert_int_equal((buf[8] >> 1) & 0x0F, UDCCP_PKT_DATAACK);
      assert_int_equal(pl_len, sizeof(d));
      assert_memory_equal(pl, d, sizeof(d));
    }
    assert_int_equal(udccp_conn_write_pkt_sg(p.c[0], buf, sizeof(buf), &pl,
                                             &pl_len, NULL, p.now),
                     UDCCP_ERR_INVALID_ARGUMENT);
    /* Nothing else to send: 0, and no payload. */
    pl_len = 99;
    assert_int_equal(udccp_conn_write_pkt_sg(p.c[0], buf, sizeof(buf), &pl,
                                             &pl_len, &ecn, p.now),
                     0);
    assert_int_equal(pl_len, 0);
    udccp_pair_free(&p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sg_wire_is_write_pkts),
      cmocka_unit_test(test_sg_payload_is_the_queued_datagram),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Packet codec: every packet type, the §5 validity rules, and the public
 * stateless functions (peek, checksum verification, Reset replies).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cksum.h"
#include "opt.h"
#include "pkt.h"
#include "pktbuild.h"

static const uint8_t all_types[] = {
    UDCCP_PKT_REQUEST, UDCCP_PKT_RESPONSE, UDCCP_PKT_DATA,  UDCCP_PKT_ACK,
    UDCCP_PKT_DATAACK, UDCCP_PKT_CLOSEREQ, UDCCP_PKT_CLOSE, UDCCP_PKT_RESET,
    UDCCP_PKT_SYNC,    UDCCP_PKT_SYNCACK,  UDCCP_PKT_LISTEN};
#define N_TYPES (sizeof(all_types) / sizeof(all_types[0]))

static int is_short_ok(uint8_t t) {
  return t == UDCCP_PKT_DATA || t == UDCCP_PKT_ACK || t == UDCCP_PKT_DATAACK;
}

static udccp_path path_a; /* 10.0.0.1:5001 -> 10.0.0.2:6001 */
static udccp_path path_b; /* the same path seen from 10.0.0.2 */

static int setup(void **state) {
  (void)state;
  udccp_tb_path4(&path_a, "10.0.0.1", 5001, "10.0.0.2", 6001);
  udccp_tb_path_flip(&path_b, &path_a);
  return 0;
}

/* Fills a header with distinctive values in every field the type has. */
static void fill_hdr(udccp_hdr *h, uint8_t type, uint8_t x) {
  memset(h, 0, sizeof(*h));
  h->sport = 0xA1B2;
  h->dport = 0xC3D4;
  h->ccval = 0xA;
  h->cscov = 0; /* the checksum helpers want full coverage here */
  h->type = type;
  h->x = x;
  h->seq = x ? 0xF1E2D3C4B5A6ULL : 0xABCDEFu;
  h->ack = x ? 0x0102030405FEULL : 0x123456u;
  if (type == UDCCP_PKT_REQUEST || type == UDCCP_PKT_RESPONSE ||
      type == UDCCP_PKT_LISTEN) {
    h->service_code = 0xDEADBEEFu;
  }
  if (type == UDCCP_PKT_RESET) {
    h->reset_code = UDCCP_RESET_OPTION_ERROR;
    h->reset_data[0] = 41;
    h->reset_data[1] = 0x55;
    h->reset_data[2] = 0x66;
  }
}

static void assert_same_fields(const udccp_hdr *a, const udccp_hdr *b) {
  assert_int_equal(a->sport, b->sport);
  assert_int_equal(a->dport, b->dport);
  assert_int_equal(a->ccval, b->ccval);
  assert_int_equal(a->cscov, b->cscov);
  assert_int_equal(a->type, b->type);
  assert_int_equal(a->x, b->x);
  assert_true(a->seq == b->seq);
  if (udccp_pkt_type_has_ack(a->type)) {
    assert_true(a->ack == b->ack);
  }
  assert_int_equal(a->service_code, b->service_code);
  assert_int_equal(a->reset_code, b->reset_code);
  assert_memory_equal(a->reset_data, b->reset_data, 3);
}

/* Round-trips one header with options and payload through encode/decode,
 * then re-encodes the decoded header and compares the bytes. */
static void round_trip(uint8_t type, uint8_t x) {
  static const uint8_t opts[] = {UDCCP_OPT_TIMESTAMP, 6, 1, 2, 3, 4,
                                 UDCCP_OPT_SLOW_RECEIVER};
  static const uint8_t payload[] = "payload bytes";
  uint8_t buf[256], buf2[256];
  udccp_hdr h, d, d2;
  udccp_ssize n, n2;

  fill_hdr(&h, type, x);
  n = udccp_pkt_encode(buf, sizeof(buf), &h, opts, sizeof(opts), payload,
                       sizeof(payload));
  assert_true(n > 0);
  assert_int_equal(n, udccp_hdr_fixed_len(type, x) + 8 + sizeof(payload));
  assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), 0);
  assert_same_fields(&h, &d);
  assert_int_equal(d.has_ack, udccp_pkt_type_has_ack(type));
  assert_int_equal(d.hdr_len, udccp_hdr_fixed_len(type, x));
  assert_int_equal(d.doff * 4, d.hdr_len + 8);
  assert_int_equal(d.opts_len, 8);
  assert_memory_equal(d.opts, opts, sizeof(opts));
  /* §5.8: the last word is filled with Padding. */
  assert_int_equal(d.opts[7], UDCCP_OPT_PADDING);
  assert_int_equal(d.payload_len, sizeof(payload));
  assert_memory_equal(d.payload, payload, sizeof(payload));

  n2 = udccp_pkt_encode(buf2, sizeof(buf2), &d, d.opts, d.opts_len, d.payload,
                        d.payload_len);
  assert_int_equal(n2, n);
  assert_memory_equal(buf, buf2, (size_t)n);
  assert_int_equal(udccp_hdr_decode(&d2, buf2, (size_t)n2), 0);
  assert_same_fields(&d, &d2);
}

static void test_rfc4340_5_every_type_round_trips(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < N_TYPES; i++) {
    round_trip(all_types[i], 1);
  }
}

static void test_rfc4340_5_1_short_seqnos_round_trip(void **state) {
  (void)state;
  round_trip(UDCCP_PKT_DATA, 0);
  round_trip(UDCCP_PKT_ACK, 0);
  round_trip(UDCCP_PKT_DATAACK, 0);
}

/* The header layouts of §5.1-§5.7 and RFC 5596 §2.2.1, in bytes. */
static void test_rfc4340_5_fixed_header_lengths(void **state) {
  (void)state;
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_REQUEST, 1), 20);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_RESPONSE, 1), 28);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_DATA, 1), 16);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_DATA, 0), 12);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_ACK, 1), 24);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_ACK, 0), 16);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_DATAACK, 1), 24);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_DATAACK, 0), 16);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_CLOSEREQ, 1), 24);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_CLOSE, 1), 24);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_RESET, 1), 28);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_SYNC, 1), 24);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_SYNCACK, 1), 24);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_LISTEN, 1), 20);
  assert_int_equal(udccp_hdr_fixed_len(11, 1), 0);
  assert_int_equal(udccp_hdr_fixed_len(UDCCP_PKT_REQUEST, 0), 0);
}

/* §5.1: all but Request and Data carry an ack; Listen has none (RFC 5596). */
static void test_rfc4340_5_1_ack_subheader_types(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < N_TYPES; i++) {
    uint8_t t = all_types[i];
    int want = !(t == UDCCP_PKT_REQUEST || t == UDCCP_PKT_DATA ||
                 t == UDCCP_PKT_LISTEN);
    assert_int_equal(udccp_pkt_type_has_ack(t), want);
  }
  assert_int_equal(udccp_pkt_type_has_ack(11), 0);
}

/* Byte positions of the wire format, checked on an X=1 DataAck and an
 * X=0 Ack. */
static void test_rfc4340_5_1_wire_layout(void **state) {
  uint8_t buf[64];
  udccp_hdr h;
  udccp_ssize n;
  (void)state;
  fill_hdr(&h, UDCCP_PKT_DATAACK, 1);
  h.cscov = 3;
  n = udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0);
  assert_int_equal(n, 24);
  assert_int_equal(buf[0], 0xA1);
  assert_int_equal(buf[1], 0xB2);
  assert_int_equal(buf[2], 0xC3);
  assert_int_equal(buf[3], 0xD4);
  assert_int_equal(buf[4], 6);          /* Data Offset in words */
  assert_int_equal(buf[5], 0xA3);       /* CCVal | CsCov */
  assert_int_equal(buf[8], (4 << 1) | 1); /* Res=0 | Type | X */
  assert_int_equal(buf[9], 0);          /* Reserved */
  assert_int_equal(buf[10], 0xF1);
  assert_int_equal(buf[15], 0xA6);
  assert_int_equal(buf[16], 0);         /* ack subheader Reserved */
  assert_int_equal(buf[17], 0);
  assert_int_equal(buf[18], 0x01);
  assert_int_equal(buf[23], 0xFE);

  fill_hdr(&h, UDCCP_PKT_ACK, 0);
  n = udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0);
  assert_int_equal(n, 16);
  assert_int_equal(buf[4], 4);
  assert_int_equal(buf[8], 3 << 1);
  assert_int_equal(buf[9], 0xAB);
  assert_int_equal(buf[11], 0xEF);
  assert_int_equal(buf[12], 0);
  assert_int_equal(buf[13], 0x12);
  assert_int_equal(buf[15], 0x56);
}

/* §5.1: 48-bit numbers use all 48 bits; 24-bit ones only the low 24. */
static void test_rfc4340_5_1_sequence_number_widths(void **state) {
  uint8_t buf[64];
  udccp_hdr h, d;
  udccp_ssize n;
  (void)state;
  fill_hdr(&h, UDCCP_PKT_ACK, 1);
  h.seq = 0xFFFFFFFFFFFFULL;
  h.ack = 0x800000000001ULL;
  n = udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0);
  assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), 0);
  assert_true(d.seq == 0xFFFFFFFFFFFFULL);
  assert_true(d.ack == 0x800000000001ULL);

  fill_hdr(&h, UDCCP_PKT_DATAACK, 0);
  h.seq = 0x123456789ULL;
  h.ack = 0xFFABCDEFULL;
  n = udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0);
  assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), 0);
  assert_true(d.seq == 0x456789ULL);
  assert_true(d.ack == 0xABCDEFULL);
}

/* §5.1: X=0 is allowed only on Data, Ack and DataAck; endpoints MUST ignore
 * other packets with X=0 (and RFC 5596 §2.2.1: Listen has X=1). */
static void test_rfc4340_5_1_short_seqnos_only_on_data_ack_dataack(void **state) {
  uint8_t buf[64];
  udccp_hdr h, d;
  size_t i;
  udccp_ssize n;
  (void)state;
  for (i = 0; i < N_TYPES; i++) {
    uint8_t t = all_types[i];
    fill_hdr(&h, t, 1);
    n = udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0);
    assert_true(n > 0);
    buf[8] &= (uint8_t)~1u; /* X = 0, Data Offset unchanged */
    if (is_short_ok(t)) {
      assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), 0);
      assert_int_equal(d.x, 0);
    } else {
      assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), UDCCP_ERR_PROTO);
      fill_hdr(&h, t, 0);
      assert_int_equal(udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0),
                       UDCCP_ERR_INVALID_ARGUMENT);
    }
  }
}

/* §5.1: receivers MUST ignore packets with a reserved type (11..15). */
static void test_rfc4340_5_1_reserved_types_ignored(void **state) {
  uint8_t buf[64];
  udccp_hdr h, d;
  uint8_t t;
  udccp_ssize n;
  (void)state;
  fill_hdr(&h, UDCCP_PKT_RESET, 1);
  n = udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0);
  for (t = 11; t <= 15; t++) {
    buf[8] = (uint8_t)(t << 1 | 1);
    assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), UDCCP_ERR_PROTO);
    h.type = t;
    assert_int_equal(udccp_pkt_encode(buf + 32, 32, &h, NULL, 0, NULL, 0),
                     UDCCP_ERR_INVALID_ARGUMENT);
  }
}

/* §5.1 Data Offset: packets whose offset is smaller than the type's header
 * MUST be ignored. */
static void test_rfc4340_5_1_data_offset_below_header_ignored(void **state) {
  uint8_t buf[128];
  udccp_hdr h, d;
  size_t i;
  int x;
  udccp_ssize n;
  (void)state;
  for (x = 1; x >= 0; x--) {
    for (i = 0; i < N_TYPES; i++) {
      uint8_t t = all_types[i];
      size_t fixed = udccp_hdr_fixed_len(t, (uint8_t)x);
      if (fixed == 0) {
        continue;
      }
      fill_hdr(&h, t, (uint8_t)x);
      /* Payload keeps the packet long enough that only the offset is
       * wrong. */
      n = udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0,
                           (const uint8_t *)"0123456789abcdef", 16);
      assert_true(n > 0);
      buf[4] = (uint8_t)(fixed / 4 - 1);
      assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), UDCCP_ERR_PROTO);
      buf[4] = 0;
      assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), UDCCP_ERR_PROTO);
      buf[4] = (uint8_t)(fixed / 4);
      assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), 0);
      assert_int_equal(d.payload_len, 16);
    }
  }
}

/* §5.1 Data Offset: packets whose offset is beyond the packet MUST be
 * ignored; every truncation of a valid packet below its Data Offset too. */
static void test_rfc4340_5_1_data_offset_beyond_packet_ignored(void **state) {
  static const uint8_t opts[] = {UDCCP_OPT_TIMESTAMP, 6, 0, 0, 0, 1};
  uint8_t buf[128];
  udccp_hdr h, d;
  size_t i, cut;
  udccp_ssize n;
  (void)state;
  for (i = 0; i < N_TYPES; i++) {
    fill_hdr(&h, all_types[i], 1);
    n = udccp_pkt_encode(buf, sizeof(buf), &h, opts, sizeof(opts), NULL, 0);
    assert_true(n > 0);
    assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), 0);
    for (cut = 0; cut < (size_t)n; cut++) {
      assert_int_equal(udccp_hdr_decode(&d, buf, cut), UDCCP_ERR_PROTO);
    }
    buf[4] = (uint8_t)(n / 4 + 1);
    assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), UDCCP_ERR_PROTO);
  }
}

/* §8.5 step 1: packets shorter than 12 bytes are dropped. */
static void test_rfc4340_8_5_packets_under_12_bytes_dropped(void **state) {
  uint8_t buf[16] = {0};
  udccp_hdr d;
  size_t len;
  (void)state;
  buf[4] = 3; /* Data Offset 12, X = 0 Data: valid at 12 bytes */
  buf[8] = UDCCP_PKT_DATA << 1;
  assert_int_equal(udccp_hdr_decode(&d, buf, 12), 0);
  for (len = 0; len < 12; len++) {
    assert_int_equal(udccp_hdr_decode(&d, buf, len), UDCCP_ERR_PROTO);
  }
}

/* §5.1: receivers MUST ignore the Res and Reserved fields. */
static void test_rfc4340_5_1_reserved_fields_ignored(void **state) {
  uint8_t buf[64];
  udccp_hdr h, d;
  udccp_ssize n;
  (void)state;
  fill_hdr(&h, UDCCP_PKT_SYNC, 1);
  n = udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0);
  buf[8] |= 0xE0; /* Res */
  buf[9] = 0xFF;  /* Reserved */
  buf[16] = 0xFF; /* ack subheader Reserved */
  buf[17] = 0xFF;
  assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), 0);
  assert_same_fields(&h, &d);

  fill_hdr(&h, UDCCP_PKT_ACK, 0);
  n = udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0);
  buf[8] |= 0xE0;
  buf[12] = 0xFF;
  assert_int_equal(udccp_hdr_decode(&d, buf, (size_t)n), 0);
  assert_same_fields(&h, &d);
}

/* RFC 5596 §2.2.1: Listen is X=1 with a Service Code, Data Offset >= 5. */
static void test_rfc5596_2_2_1_listen_format(void **state) {
  uint8_t buf[64];
  udccp_hdr h, d;
  udccp_ssize n;
  (void)state;
  fill_hdr(&h, UDCCP_PKT_LISTEN, 1);
  h.ccval = 0;
  h.seq = 0;
  n = udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0);
  assert_int_equal(n, 20);
  assert_int_equal(buf[4], 5);
  assert_int_equal(buf[8], (10 << 1) | 1);
  assert_int_equal(buf[16], 0xDE);
  assert_int_equal(buf[19], 0xEF);
  assert_int_equal(udccp_hdr_decode(&d, buf, 20), 0);
  assert_int_equal(d.type, UDCCP_PKT_LISTEN);
  assert_int_equal(d.has_ack, 0);
  assert_int_equal(d.service_code, 0xDEADBEEFu);
  buf[4] = 4;
  assert_int_equal(udccp_hdr_decode(&d, buf, 20), UDCCP_ERR_PROTO);
}

static void test_pkt_encode_rejects_bad_arguments(void **state) {
  uint8_t buf[2048];
  uint8_t opts[1100];
  udccp_hdr h;
  (void)state;
  memset(opts, 0, sizeof(opts));
  fill_hdr(&h, UDCCP_PKT_DATAACK, 1);
  /* Data Offset is 8 bits of words: at most 1020 header bytes. */
  assert_int_equal(udccp_pkt_encode(buf, sizeof(buf), &h, opts, 1020 - 24,
                                    NULL, 0),
                   1020);
  assert_int_equal(udccp_pkt_encode(buf, sizeof(buf), &h, opts, 1020 - 23,
                                    NULL, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_pkt_encode(buf, 23, &h, NULL, 0, NULL, 0),
                   UDCCP_ERR_NOBUF);
  assert_int_equal(udccp_pkt_encode(buf, 24, &h, NULL, 0, NULL, 0), 24);
  assert_int_equal(udccp_pkt_encode(buf, 24, &h, NULL, 0, opts, 1),
                   UDCCP_ERR_NOBUF);
  h.ccval = 16;
  assert_int_equal(udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  h.ccval = 0;
  h.cscov = 16;
  assert_int_equal(udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  h.cscov = 0;
  assert_int_equal(udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 4, NULL, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------ public API */

static void test_pkt_peek_hdr_reads_demux_fields(void **state) {
  uint8_t buf[64];
  udccp_tb_pkt p;
  udccp_pkt_peek pk;
  udccp_ssize n;
  (void)state;
  udccp_tb_pkt_init(&p, UDCCP_PKT_REQUEST, 0x123456789ABCULL, 0);
  p.service_code = 42;
  n = udccp_tb_encode(buf, sizeof(buf), &path_a, &p);
  assert_true(n > 0);
  assert_int_equal(udccp_pkt_peek_hdr(&pk, buf, (size_t)n), 0);
  assert_int_equal(pk.sport, 5001);
  assert_int_equal(pk.dport, 6001);
  assert_int_equal(pk.type, UDCCP_PKT_REQUEST);
  assert_int_equal(pk.x, 1);
  assert_true(pk.seq == 0x123456789ABCULL);
  assert_int_equal(pk.service_code, 42);
  assert_int_equal(udccp_pkt_peek_hdr(&pk, buf, 19), UDCCP_ERR_PROTO);
}

static void test_rfc4340_9_1_verify_cksum_covers_addresses(void **state) {
  uint8_t buf[64];
  udccp_ssize n;
  (void)state;
  n = udccp_tb_build(buf, sizeof(buf), &path_a, UDCCP_PKT_ACK, 7, 3, NULL, 0,
                     NULL, 0);
  assert_true(n > 0);
  assert_int_equal(udccp_pkt_verify_cksum(buf, (size_t)n, &path_b), 0);
  {
    /* The pseudo-header binds the packet to its addresses (§9.1). */
    udccp_path other = path_b;
    other.remote_addr[3] ^= 0x40;
    assert_int_equal(udccp_pkt_verify_cksum(buf, (size_t)n, &other),
                     UDCCP_ERR_CHECKSUM);
  }
  buf[10] ^= 1;
  assert_int_equal(udccp_pkt_verify_cksum(buf, (size_t)n, &path_b),
                   UDCCP_ERR_CHECKSUM);
}

/* Decodes a reply written by udccp_pkt_write_reset_reply on path_b. */
static void decode_reply(udccp_hdr *r, const uint8_t *buf, udccp_ssize n) {
  assert_true(n > 0);
  assert_int_equal(udccp_hdr_decode(r, buf, (size_t)n), 0);
  assert_int_equal(r->type, UDCCP_PKT_RESET);
  assert_int_equal(r->x, 1);
  /* It goes back to A: A's view checks the checksum. */
  assert_int_equal(udccp_cksum_check(buf, (size_t)n, &path_a), 0);
  assert_int_equal(r->sport, 6001);
  assert_int_equal(r->dport, 5001);
}

/* §8.3.1: no ackno: R.seqno = 0, R.ackno = P.seqno. */
static void test_rfc4340_8_3_1_reset_reply_to_packet_without_ack(void **state) {
  uint8_t in[64], out[64];
  udccp_hdr r;
  udccp_ssize n;
  (void)state;
  n = udccp_tb_build(in, sizeof(in), &path_a, UDCCP_PKT_REQUEST,
                     0xAAAABBBBCCCCULL, 0, NULL, 0, NULL, 0);
  n = udccp_pkt_write_reset_reply(out, sizeof(out), in, (size_t)n, &path_b,
                                  UDCCP_CKSUM_FULL, UDCCP_RESET_NO_CONNECTION);
  decode_reply(&r, out, n);
  assert_true(r.seq == 0);
  assert_true(r.ack == 0xAAAABBBBCCCCULL);
  assert_int_equal(r.reset_code, UDCCP_RESET_NO_CONNECTION);
  assert_int_equal(r.reset_data[0], 0);
}

/* §8.3.1: R.seqno = P.ackno + 1 (mod 2^48), R.ackno = P.seqno. */
static void test_rfc4340_8_3_1_reset_reply_seq_is_ackno_plus_one(void **state) {
  uint8_t in[64], out[64];
  udccp_hdr r;
  udccp_ssize n;
  (void)state;
  n = udccp_tb_build(in, sizeof(in), &path_a, UDCCP_PKT_DATAACK, 500, 1000,
                     NULL, 0, (const uint8_t *)"x", 1);
  n = udccp_pkt_write_reset_reply(out, sizeof(out), in, (size_t)n, &path_b,
                                  UDCCP_CKSUM_FULL, UDCCP_RESET_NO_CONNECTION);
  decode_reply(&r, out, n);
  assert_true(r.seq == 1001);
  assert_true(r.ack == 500);
  assert_int_equal(n, 28); /* no options, no data */

  n = udccp_tb_build(in, sizeof(in), &path_a, UDCCP_PKT_SYNC, 1,
                     0xFFFFFFFFFFFFULL, NULL, 0, NULL, 0);
  n = udccp_pkt_write_reset_reply(out, sizeof(out), in, (size_t)n, &path_b,
                                  UDCCP_CKSUM_FULL, UDCCP_RESET_NO_CONNECTION);
  decode_reply(&r, out, n);
  assert_true(r.seq == 0); /* wraps */
  assert_true(r.ack == 1);
}

/* §8.3.1 item 3: short sequence numbers give zero upper 24 bits. */
static void test_rfc4340_8_3_1_reset_reply_short_seqnos(void **state) {
  uint8_t in[64], out[64];
  udccp_tb_pkt p;
  udccp_hdr r;
  udccp_ssize n;
  (void)state;
  udccp_tb_pkt_init(&p, UDCCP_PKT_ACK, 0x00ABCDEFULL, 0xFFFFFFULL);
  p.x = 0;
  n = udccp_tb_encode(in, sizeof(in), &path_a, &p);
  n = udccp_pkt_write_reset_reply(out, sizeof(out), in, (size_t)n, &path_b,
                                  UDCCP_CKSUM_FULL, UDCCP_RESET_NO_CONNECTION);
  decode_reply(&r, out, n);
  assert_true(r.seq == 0); /* 0xFFFFFF + 1, upper bits zero */
  assert_true(r.ack == 0xABCDEFULL);
}

/* §8.5 step 2: "Generate Reset(No Connection) unless P.type == Reset". */
static void test_rfc4340_8_5_never_reset_a_reset(void **state) {
  uint8_t in[64], out[64];
  udccp_tb_pkt p;
  udccp_ssize n;
  (void)state;
  udccp_tb_pkt_init(&p, UDCCP_PKT_RESET, 10, 20);
  p.reset_code = UDCCP_RESET_NO_CONNECTION;
  n = udccp_tb_encode(in, sizeof(in), &path_a, &p);
  assert_true(n > 0);
  memset(out, 0xEE, sizeof(out));
  assert_int_equal(udccp_pkt_write_reset_reply(out, sizeof(out), in, (size_t)n,
                                               &path_b, UDCCP_CKSUM_FULL,
                                               UDCCP_RESET_NO_CONNECTION),
                   0);
  assert_int_equal(out[0], 0xEE);
}

/* RFC 5596 §2.2: a Listen arrives before any connection; not answered. */
static void test_rfc5596_2_2_listen_not_answered(void **state) {
  uint8_t in[64], out[64];
  udccp_tb_pkt p;
  udccp_ssize n;
  (void)state;
  udccp_tb_pkt_init(&p, UDCCP_PKT_LISTEN, 0, 0);
  p.service_code = 7;
  n = udccp_tb_encode(in, sizeof(in), &path_a, &p);
  assert_int_equal(udccp_pkt_write_reset_reply(out, sizeof(out), in, (size_t)n,
                                               &path_b, UDCCP_CKSUM_FULL,
                                               UDCCP_RESET_NO_CONNECTION),
                   0);
}

/* RFC 6773 §3.3: over UDP the DCCP checksum field is zero. */
static void test_rfc6773_3_3_reset_reply_without_checksum(void **state) {
  uint8_t in[64], out[64];
  udccp_ssize n;
  udccp_hdr r;
  (void)state;
  n = udccp_tb_build(in, sizeof(in), &path_a, UDCCP_PKT_CLOSE, 9, 8, NULL, 0,
                     NULL, 0);
  n = udccp_pkt_write_reset_reply(out, sizeof(out), in, (size_t)n, &path_b,
                                  UDCCP_CKSUM_NONE, UDCCP_RESET_NO_CONNECTION);
  assert_int_equal(n, 28);
  assert_int_equal(out[6], 0);
  assert_int_equal(out[7], 0);
  assert_int_equal(udccp_hdr_decode(&r, out, 28), 0);
  assert_true(r.seq == 9 && r.ack == 9);
}

/* §5.6: Packet Error carries the offending type in Data 1; other codes
 * pass through. */
static void test_rfc4340_5_6_reset_reply_codes_and_data(void **state) {
  uint8_t in[64], out[64];
  udccp_hdr r;
  udccp_ssize n, m;
  (void)state;
  n = udccp_tb_build(in, sizeof(in), &path_a, UDCCP_PKT_DATA, 9, 0, NULL, 0,
                     NULL, 0);
  m = udccp_pkt_write_reset_reply(out, sizeof(out), in, (size_t)n, &path_b,
                                  UDCCP_CKSUM_FULL, UDCCP_RESET_PACKET_ERROR);
  decode_reply(&r, out, m);
  assert_int_equal(r.reset_code, UDCCP_RESET_PACKET_ERROR);
  assert_int_equal(r.reset_data[0], UDCCP_PKT_DATA);
  m = udccp_pkt_write_reset_reply(out, sizeof(out), in, (size_t)n, &path_b,
                                  UDCCP_CKSUM_FULL, UDCCP_RESET_BAD_SERVICE_CODE);
  decode_reply(&r, out, m);
  assert_int_equal(r.reset_code, UDCCP_RESET_BAD_SERVICE_CODE);
  assert_int_equal(r.reset_data[0], 0);
}

static void test_pkt_reset_reply_errors(void **state) {
  uint8_t in[64], out[64];
  udccp_ssize n;
  (void)state;
  n = udccp_tb_build(in, sizeof(in), &path_a, UDCCP_PKT_ACK, 9, 8, NULL, 0,
                     NULL, 0);
  assert_int_equal(udccp_pkt_write_reset_reply(out, 27, in, (size_t)n, &path_b,
                                               UDCCP_CKSUM_FULL,
                                               UDCCP_RESET_NO_CONNECTION),
                   UDCCP_ERR_NOBUF);
  assert_int_equal(udccp_pkt_write_reset_reply(out, sizeof(out), in, 11,
                                               &path_b, UDCCP_CKSUM_FULL,
                                               UDCCP_RESET_NO_CONNECTION),
                   UDCCP_ERR_PROTO);
  in[8] = (uint8_t)(12 << 1 | 1);
  assert_int_equal(udccp_pkt_write_reset_reply(out, sizeof(out), in, (size_t)n,
                                               &path_b, UDCCP_CKSUM_FULL,
                                               UDCCP_RESET_NO_CONNECTION),
                   UDCCP_ERR_PROTO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_5_every_type_round_trips),
      cmocka_unit_test(test_rfc4340_5_1_short_seqnos_round_trip),
      cmocka_unit_test(test_rfc4340_5_fixed_header_lengths),
      cmocka_unit_test(test_rfc4340_5_1_ack_subheader_types),
      cmocka_unit_test(test_rfc4340_5_1_wire_layout),
      cmocka_unit_test(test_rfc4340_5_1_sequence_number_widths),
      cmocka_unit_test(test_rfc4340_5_1_short_seqnos_only_on_data_ack_dataack),
      cmocka_unit_test(test_rfc4340_5_1_reserved_types_ignored),
      cmocka_unit_test(test_rfc4340_5_1_data_offset_below_header_ignored),
      cmocka_unit_test(test_rfc4340_5_1_data_offset_beyond_packet_ignored),
      cmocka_unit_test(test_rfc4340_8_5_packets_under_12_bytes_dropped),
      cmocka_unit_test(test_rfc4340_5_1_reserved_fields_ignored),
      cmocka_unit_test(test_rfc5596_2_2_1_listen_format),
      cmocka_unit_test(test_pkt_encode_rejects_bad_arguments),
      cmocka_unit_test(test_pkt_peek_hdr_reads_demux_fields),
      cmocka_unit_test(test_rfc4340_9_1_verify_cksum_covers_addresses),
      cmocka_unit_test(test_rfc4340_8_3_1_reset_reply_to_packet_without_ack),
      cmocka_unit_test(test_rfc4340_8_3_1_reset_reply_seq_is_ackno_plus_one),
      cmocka_unit_test(test_rfc4340_8_3_1_reset_reply_short_seqnos),
      cmocka_unit_test(test_rfc4340_8_5_never_reset_a_reset),
      cmocka_unit_test(test_rfc5596_2_2_listen_not_answered),
      cmocka_unit_test(test_rfc6773_3_3_reset_reply_without_checksum),
      cmocka_unit_test(test_rfc4340_5_6_reset_reply_codes_and_data),
      cmocka_unit_test(test_pkt_reset_reply_errors),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}

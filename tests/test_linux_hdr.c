/* SPDX-License-Identifier: MIT */
/*
 * <linux/dccp.h> and udccp's headers in one translation unit: no name
 * clashes (the build of this file is the first test), and the kernel's
 * numbers and wire structures agree with ours.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/dccp.h>

#include <udccp/udccp.h>

/* Every internal header of lib/. */
#include "ackvec.h"
#include "ccid.h"
#include "ccid2.h"
#include "cksum.h"
#include "conn.h"
#include "cookie.h"
#include "feat.h"
#include "opt.h"
#include "pkt.h"
#include "qpolicy.h"
#include "rxq.h"
#include "seq.h"
#include "siphash.h"
#include "tfrc_eq.h"
#include "tfrc_lh.h"
#include "tfrc_tx.h"

#include <cmocka.h>

static void test_linux_hdr_packet_types_agree(void **state) {
  (void)state;
  assert_int_equal(UDCCP_PKT_REQUEST, DCCP_PKT_REQUEST);
  assert_int_equal(UDCCP_PKT_RESPONSE, DCCP_PKT_RESPONSE);
  assert_int_equal(UDCCP_PKT_DATA, DCCP_PKT_DATA);
  assert_int_equal(UDCCP_PKT_ACK, DCCP_PKT_ACK);
  assert_int_equal(UDCCP_PKT_DATAACK, DCCP_PKT_DATAACK);
  assert_int_equal(UDCCP_PKT_CLOSEREQ, DCCP_PKT_CLOSEREQ);
  assert_int_equal(UDCCP_PKT_CLOSE, DCCP_PKT_CLOSE);
  assert_int_equal(UDCCP_PKT_RESET, DCCP_PKT_RESET);
  assert_int_equal(UDCCP_PKT_SYNC, DCCP_PKT_SYNC);
  assert_int_equal(UDCCP_PKT_SYNCACK, DCCP_PKT_SYNCACK);
  /* The kernel predates RFC 5596: its "invalid" type is our Listen. */
  assert_int_equal(UDCCP_PKT_LISTEN, DCCP_PKT_INVALID);
}

static void test_linux_hdr_reset_codes_agree(void **state) {
  (void)state;
  assert_int_equal(UDCCP_RESET_UNSPECIFIED, DCCP_RESET_CODE_UNSPECIFIED);
  assert_int_equal(UDCCP_RESET_CLOSED, DCCP_RESET_CODE_CLOSED);
  assert_int_equal(UDCCP_RESET_ABORTED, DCCP_RESET_CODE_ABORTED);
  assert_int_equal(UDCCP_RESET_NO_CONNECTION, DCCP_RESET_CODE_NO_CONNECTION);
  assert_int_equal(UDCCP_RESET_PACKET_ERROR, DCCP_RESET_CODE_PACKET_ERROR);
  assert_int_equal(UDCCP_RESET_OPTION_ERROR, DCCP_RESET_CODE_OPTION_ERROR);
  assert_int_equal(UDCCP_RESET_MANDATORY_ERROR,
                   DCCP_RESET_CODE_MANDATORY_ERROR);
  assert_int_equal(UDCCP_RESET_CONNECTION_REFUSED,
                   DCCP_RESET_CODE_CONNECTION_REFUSED);
  assert_int_equal(UDCCP_RESET_BAD_SERVICE_CODE,
                   DCCP_RESET_CODE_BAD_SERVICE_CODE);
  assert_int_equal(UDCCP_RESET_TOO_BUSY, DCCP_RESET_CODE_TOO_BUSY);
  assert_int_equal(UDCCP_RESET_BAD_INIT_COOKIE, DCCP_RESET_CODE_BAD_INIT_COOKIE);
  assert_int_equal(UDCCP_RESET_AGGRESSION_PENALTY,
                   DCCP_RESET_CODE_AGGRESSION_PENALTY);
}

static void test_linux_hdr_option_numbers_agree(void **state) {
  (void)state;
  assert_int_equal(UDCCP_OPT_PADDING, DCCPO_PADDING);
  assert_int_equal(UDCCP_OPT_MANDATORY, DCCPO_MANDATORY);
  assert_int_equal(UDCCP_OPT_CHANGE_L, DCCPO_CHANGE_L);
  assert_int_equal(UDCCP_OPT_CONFIRM_L, DCCPO_CONFIRM_L);
  assert_int_equal(UDCCP_OPT_CHANGE_R, DCCPO_CHANGE_R);
  assert_int_equal(UDCCP_OPT_CONFIRM_R, DCCPO_CONFIRM_R);
  assert_int_equal(UDCCP_OPT_NDP_COUNT, DCCPO_NDP_COUNT);
  assert_int_equal(UDCCP_OPT_ACK_VECTOR_0, DCCPO_ACK_VECTOR_0);
  assert_int_equal(UDCCP_OPT_ACK_VECTOR_1, DCCPO_ACK_VECTOR_1);
  assert_int_equal(UDCCP_OPT_TIMESTAMP, DCCPO_TIMESTAMP);
  assert_int_equal(UDCCP_OPT_TIMESTAMP_ECHO, DCCPO_TIMESTAMP_ECHO);
  assert_int_equal(UDCCP_OPT_ELAPSED_TIME, DCCPO_ELAPSED_TIME);
  assert_int_equal(UDCCP_OPT_DATA_CHECKSUM + 1, DCCPO_MAX);
  assert_int_equal(UDCCP_OPT_CCID_MIN, DCCPO_MIN_RX_CCID_SPECIFIC);
  assert_int_equal(UDCCP_OPTS_MAX_LEN, 1020 - 12);
}

/* The kernel's header structures give the same fixed lengths (X = 1). */
static void test_linux_hdr_fixed_lengths_agree(void **state) {
  uint8_t t;
  (void)state;
  for (t = DCCP_PKT_REQUEST; t < DCCP_NR_PKT_TYPES; t++) {
    size_t klen = sizeof(struct dccp_hdr) + sizeof(struct dccp_hdr_ext) +
                  dccp_packet_hdr_len(t);
    assert_int_equal(udccp_hdr_fixed_len(t, 1), klen);
  }
  assert_int_equal(udccp_hdr_fixed_len(DCCP_PKT_DATA, 0),
                   sizeof(struct dccp_hdr));
}

static uint16_t be16(uint16_t v) {
  uint8_t b[2];
  memcpy(b, &v, 2);
  return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t be32(uint32_t v) {
  uint8_t b[4];
  memcpy(b, &v, 4);
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
         b[3];
}

/* A Reset encoded by udccp, read back through the kernel's structures. */
static void test_linux_hdr_kernel_structs_read_our_reset(void **state) {
  uint8_t buf[64];
  udccp_hdr h;
  struct dccp_hdr gh;
  struct dccp_hdr_ext ext;
  struct dccp_hdr_reset rst;
  uint64_t seq, ack;
  (void)state;
  memset(&h, 0, sizeof(h));
  h.sport = 1234;
  h.dport = 5678;
  h.ccval = 5;
  h.cscov = 2;
  h.type = UDCCP_PKT_RESET;
  h.x = 1;
  h.seq = 0xA1A2A3A4A5A6ULL;
  h.ack = 0xB1B2B3B4B5B6ULL;
  h.reset_code = UDCCP_RESET_MANDATORY_ERROR;
  h.reset_data[0] = 41;
  h.reset_data[1] = 7;
  h.reset_data[2] = 8;
  assert_int_equal(udccp_pkt_encode(buf, sizeof(buf), &h, NULL, 0, NULL, 0),
                   28);
  memcpy(&gh, buf, sizeof(gh));
  memcpy(&ext, buf + sizeof(gh), sizeof(ext));
  memcpy(&rst, buf + sizeof(gh) + sizeof(ext), sizeof(rst));
  assert_int_equal(be16(gh.dccph_sport), 1234);
  assert_int_equal(be16(gh.dccph_dport), 5678);
  assert_int_equal(gh.dccph_doff, 7);
  assert_int_equal(gh.dccph_ccval, 5);
  assert_int_equal(gh.dccph_cscov, 2);
  assert_int_equal(gh.dccph_type, DCCP_PKT_RESET);
  assert_int_equal(gh.dccph_x, 1);
  /* X = 1: dccph_seq2 is the Reserved byte, dccph_seq the high 16 bits. */
  assert_int_equal(gh.dccph_seq2, 0);
  seq = (uint64_t)be16(gh.dccph_seq) << 32 | be32(ext.dccph_seq_low);
  assert_true(seq == h.seq);
  ack = (uint64_t)be16(rst.dccph_reset_ack.dccph_ack_nr_high) << 32 |
        be32(rst.dccph_reset_ack.dccph_ack_nr_low);
  assert_true(ack == h.ack);
  assert_int_equal(rst.dccph_reset_code, DCCP_RESET_CODE_MANDATORY_ERROR);
  assert_memory_equal(rst.dccph_reset_data, h.reset_data, 3);
}

/* A Request laid out with the kernel's structures, decoded by udccp. */
static void test_linux_hdr_we_decode_kernel_request(void **state) {
  uint8_t buf[sizeof(struct dccp_hdr) + sizeof(struct dccp_hdr_ext) +
              sizeof(struct dccp_hdr_request)];
  struct dccp_hdr gh;
  struct dccp_hdr_ext ext;
  struct dccp_hdr_request req;
  udccp_hdr d;
  (void)state;
  memset(&gh, 0, sizeof(gh));
  gh.dccph_sport = be16(4000);
  gh.dccph_dport = be16(5001);
  gh.dccph_doff = sizeof(buf) / 4;
  gh.dccph_type = DCCP_PKT_REQUEST;
  gh.dccph_x = 1;
  gh.dccph_seq = be16(0x1234);
  ext.dccph_seq_low = be32(0x56789ABCu);
  req.dccph_req_service = be32(0x50455246u);
  memcpy(buf, &gh, sizeof(gh));
  memcpy(buf + sizeof(gh), &ext, sizeof(ext));
  memcpy(buf + sizeof(gh) + sizeof(ext), &req, sizeof(req));
  assert_int_equal(udccp_hdr_decode(&d, buf, sizeof(buf)), 0);
  assert_int_equal(d.sport, 4000);
  assert_int_equal(d.dport, 5001);
  assert_int_equal(d.type, UDCCP_PKT_REQUEST);
  assert_true(d.seq == 0x123456789ABCULL);
  assert_int_equal(d.service_code, 0x50455246u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_linux_hdr_packet_types_agree),
      cmocka_unit_test(test_linux_hdr_reset_codes_agree),
      cmocka_unit_test(test_linux_hdr_option_numbers_agree),
      cmocka_unit_test(test_linux_hdr_fixed_lengths_agree),
      cmocka_unit_test(test_linux_hdr_kernel_structs_read_our_reset),
      cmocka_unit_test(test_linux_hdr_we_decode_kernel_request),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

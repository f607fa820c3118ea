/* SPDX-License-Identifier: MIT */
/*
 * Options (RFC 4340 §5.8): lengths, Mandatory, which option on which
 * packet type, unknown and CCID-specific options, and the writer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "opt.h"
#include "pkt.h"

static udccp_opts o;

/* Parses on a DCCP-Ack, where every RFC 4340 option is allowed. */
static int parse_ack(const uint8_t *b, size_t n) {
  return udccp_opts_parse(&o, UDCCP_PKT_ACK, b, n);
}

/* Builds [type, len, data...] with len = 2 + vlen and data 0x11, 0x22, ... */
static size_t mk(uint8_t *b, uint8_t type, size_t vlen) {
  size_t i;
  b[0] = type;
  b[1] = (uint8_t)(2 + vlen);
  for (i = 0; i < vlen; i++) {
    b[2 + i] = (uint8_t)(0x11 * (i + 1));
  }
  return 2 + vlen;
}

struct len_rule {
  uint8_t type;
  uint32_t bit;      /* UDCCP_OPTS_HAS_* set when accepted */
  uint8_t min, max;  /* valid option lengths (type and length bytes included) */
  uint8_t only_even; /* Timestamp Echo: 6, 8, 10; Elapsed Time: 4, 6 */
};

/* The Length column of the §5.8 table for the options with a fixed
 * format. */
static const struct len_rule rules[] = {
    {UDCCP_OPT_NDP_COUNT, UDCCP_OPTS_HAS_NDP_COUNT, 3, 8, 0},
    {UDCCP_OPT_TIMESTAMP, UDCCP_OPTS_HAS_TIMESTAMP, 6, 6, 0},
    {UDCCP_OPT_TIMESTAMP_ECHO, UDCCP_OPTS_HAS_TS_ECHO, 6, 10, 1},
    {UDCCP_OPT_ELAPSED_TIME, UDCCP_OPTS_HAS_ELAPSED, 4, 6, 1},
    {UDCCP_OPT_DATA_CHECKSUM, UDCCP_OPTS_HAS_DATA_CHECKSUM, 6, 6, 0},
};

static int len_valid(const struct len_rule *r, size_t len) {
  return len >= r->min && len <= r->max && (!r->only_even || len % 2 == 0);
}

/* §5.8: "Options with invalid values MUST be ignored"; §5.8.2: preceded by
 * Mandatory, they cause a Mandatory Error. */
static void test_rfc4340_5_8_fixed_option_lengths(void **state) {
  uint8_t b[32];
  size_t k, len;
  (void)state;
  for (k = 0; k < sizeof(rules) / sizeof(rules[0]); k++) {
    for (len = 2; len <= 12; len++) {
      size_t n = mk(b, rules[k].type, len - 2);
      assert_int_equal(parse_ack(b, n), 0);
      assert_int_equal(!!(o.present & rules[k].bit), len_valid(&rules[k], len));
      /* Mandatory in front. */
      b[0] = UDCCP_OPT_MANDATORY;
      n = 1 + mk(b + 1, rules[k].type, len - 2);
      if (len_valid(&rules[k], len)) {
        assert_int_equal(parse_ack(b, n), 0);
        assert_true(o.present & rules[k].bit);
      } else {
        assert_int_equal(parse_ack(b, n), UDCCP_ERR_MANDATORY);
        assert_int_equal(o.err_data[0], rules[k].type);
        assert_int_equal(o.err_data[1], len > 2 ? 0x11 : 0);
        assert_int_equal(o.err_data[2], len > 3 ? 0x22 : 0);
      }
    }
  }
}

/* §7.7: NDP Count holds 1 to 6 bytes, big-endian. */
static void test_rfc4340_7_7_ndp_count_values(void **state) {
  static const uint8_t one[] = {UDCCP_OPT_NDP_COUNT, 3, 0x7F};
  static const uint8_t six[] = {UDCCP_OPT_NDP_COUNT, 8, 1, 2, 3, 4, 5, 6};
  (void)state;
  assert_int_equal(parse_ack(one, sizeof(one)), 0);
  assert_true(o.ndp_count == 0x7F);
  assert_int_equal(parse_ack(six, sizeof(six)), 0);
  assert_true(o.ndp_count == 0x010203040506ULL);
}

/* §13.1, §13.3, §13.2: Timestamp, Timestamp Echo (with 0, 2 or 4 bytes of
 * Elapsed Time) and Elapsed Time (2 or 4 bytes), in 10 us units. */
static void test_rfc4340_13_timing_option_values(void **state) {
  static const uint8_t ts[] = {41, 6, 0xDE, 0xAD, 0xBE, 0xEF};
  static const uint8_t e6[] = {42, 6, 0, 0, 0, 9};
  static const uint8_t e8[] = {42, 8, 0, 0, 0, 9, 0x12, 0x34};
  static const uint8_t e10[] = {42, 10, 0, 0, 0, 9, 0x12, 0x34, 0x56, 0x78};
  static const uint8_t el4[] = {43, 4, 0xAB, 0xCD};
  static const uint8_t el6[] = {43, 6, 0xFF, 0xFF, 0xFF, 0xFF};
  (void)state;
  assert_int_equal(parse_ack(ts, sizeof(ts)), 0);
  assert_int_equal(o.timestamp, 0xDEADBEEFu);
  assert_int_equal(parse_ack(e6, sizeof(e6)), 0);
  assert_int_equal(o.ts_echo, 9);
  assert_int_equal(o.ts_echo_elapsed, 0);
  assert_int_equal(parse_ack(e8, sizeof(e8)), 0);
  assert_int_equal(o.ts_echo_elapsed, 0x1234);
  assert_int_equal(parse_ack(e10, sizeof(e10)), 0);
  assert_int_equal(o.ts_echo_elapsed, 0x12345678u);
  assert_int_equal(parse_ack(el4, sizeof(el4)), 0);
  assert_int_equal(o.elapsed_time, 0xABCD);
  assert_int_equal(parse_ack(el6, sizeof(el6)), 0);
  assert_int_equal(o.elapsed_time, 0xFFFFFFFFu);
}

/* §9.3: Data Checksum, length 6; §5.8's own example: length 4 ignored. */
static void test_rfc4340_9_3_data_checksum_option(void **state) {
  static const uint8_t ok[] = {44, 6, 0xE3, 0x06, 0x92, 0x83};
  static const uint8_t four[] = {44, 4, 0xE3, 0x06};
  (void)state;
  assert_int_equal(parse_ack(ok, sizeof(ok)), 0);
  assert_true(o.present & UDCCP_OPTS_HAS_DATA_CHECKSUM);
  assert_int_equal(o.data_checksum, 0xE3069283u);
  assert_int_equal(parse_ack(four, sizeof(four)), 0);
  assert_false(o.present & UDCCP_OPTS_HAS_DATA_CHECKSUM);
}

/* §6: Change/Confirm carry a feature number and values; recorded in order
 * with their Mandatory flag.  Without a feature number they mean nothing. */
static void test_rfc4340_6_feature_options_recorded(void **state) {
  static const uint8_t b[] = {32, 4, 1, 2,          /* Change L(CCID, 2) */
                              1,  34, 5, 5, 0, 4,   /* M Change R(5, 4) */
                              33, 3, 9,             /* empty Confirm L(9) */
                              35, 2};               /* no feature number */
  static const uint8_t mb[] = {1, 35, 2};
  (void)state;
  assert_int_equal(parse_ack(b, sizeof(b)), 0);
  assert_int_equal(o.n_feat, 3);
  assert_int_equal(o.feat[0].type, UDCCP_OPT_CHANGE_L);
  assert_int_equal(o.feat[0].mandatory, 0);
  assert_int_equal(o.feat[0].len, 2);
  assert_int_equal(o.feat[0].val[0], 1);
  assert_int_equal(o.feat[0].val[1], 2);
  assert_int_equal(o.feat[1].type, UDCCP_OPT_CHANGE_R);
  assert_int_equal(o.feat[1].mandatory, 1);
  assert_int_equal(o.feat[1].len, 3);
  assert_ptr_equal(o.feat[1].val, b + 7);
  assert_int_equal(o.feat[2].type, UDCCP_OPT_CONFIRM_L);
  assert_int_equal(o.feat[2].len, 1);
  assert_int_equal(parse_ack(mb, sizeof(mb)), UDCCP_ERR_MANDATORY);
  assert_int_equal(o.err_data[0], 35);
}

/* §8.1.4: Init Cookie; several may be echoed: the first is kept, all
 * counted. */
static void test_rfc4340_8_1_4_init_cookie_recorded(void **state) {
  static const uint8_t b[] = {36, 5, 'a', 'b', 'c', 36, 3, 'z', 36, 2};
  (void)state;
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_RESPONSE, b, sizeof(b)), 0);
  assert_true(o.present & UDCCP_OPTS_HAS_INIT_COOKIE);
  assert_int_equal(o.init_cookie_len, 3);
  assert_memory_equal(o.init_cookie, "abc", 3);
  assert_int_equal(o.n_init_cookie, 3);
}

/* §11.4, §11.7: Ack Vectors and Data Dropped are recorded for the ackvec
 * module, in order. */
static void test_rfc4340_11_4_ack_vectors_recorded(void **state) {
  static const uint8_t b[] = {38, 3, 0x05, 39, 4, 0xC0, 0x01, 40, 3, 0x80,
                              38, 2};
  (void)state;
  assert_int_equal(parse_ack(b, sizeof(b)), 0);
  assert_int_equal(o.n_ackvec, 2);
  assert_int_equal(o.ackvec[0].type, 38);
  assert_int_equal(o.ackvec[0].len, 1);
  assert_int_equal(o.ackvec[0].val[0], 0x05);
  assert_int_equal(o.ackvec[1].type, 39);
  assert_int_equal(o.ackvec[1].len, 2);
  assert_true(o.present & UDCCP_OPTS_HAS_DATA_DROPPED);
  assert_int_equal(o.data_dropped_len, 1);
  assert_int_equal(o.data_dropped[0], 0x80);
}

/* §5.8.1, §11.6: Padding anywhere; Slow Receiver is one byte. */
static void test_rfc4340_5_8_1_padding_and_slow_receiver(void **state) {
  static const uint8_t b[] = {0, 0, 2, 0, 41, 6, 0, 0, 0, 1, 0, 0};
  (void)state;
  assert_int_equal(parse_ack(b, sizeof(b)), 0);
  assert_int_equal(o.slow_receiver, 1);
  assert_true(o.present & UDCCP_OPTS_HAS_SLOW_RECEIVER);
  assert_int_equal(o.timestamp, 1);
  assert_int_equal(parse_ack(b, 2), 0);
  assert_int_equal(o.present, 0);
  assert_int_equal(o.slow_receiver, 0);
}

/* §5.8.2: Mandatory as the last byte is an Option Error. */
static void test_rfc4340_5_8_2_mandatory_last_is_option_error(void **state) {
  static const uint8_t b[] = {41, 6, 0, 0, 0, 1, 0, 1};
  (void)state;
  assert_int_equal(parse_ack(b, sizeof(b)), UDCCP_ERR_OPTION);
  assert_int_equal(o.err_data[0], UDCCP_OPT_MANDATORY);
  assert_int_equal(o.err_data[1], 0);
  assert_int_equal(o.err_data[2], 0);
  assert_int_equal(parse_ack(b, sizeof(b) - 1), 0);
}

/* §5.8.2: Mandatory followed by Mandatory is an Option Error. */
static void test_rfc4340_5_8_2_mandatory_mandatory_is_option_error(void **state) {
  static const uint8_t b[] = {1, 1, 2, 0};
  (void)state;
  assert_int_equal(parse_ack(b, sizeof(b)), UDCCP_ERR_OPTION);
  assert_int_equal(o.err_data[0], UDCCP_OPT_MANDATORY);
}

/* §5.8.2: "Mandatory Padding" is valid and behaves like two Paddings. */
static void test_rfc4340_5_8_2_mandatory_padding_valid(void **state) {
  static const uint8_t b[] = {1, 0, 41, 6, 0, 0, 0, 7};
  (void)state;
  assert_int_equal(parse_ack(b, sizeof(b)), 0);
  assert_int_equal(o.timestamp, 7);
}

/* §5.8.2: Mandatory before an option not understood: Mandatory Error, with
 * the option's type and first two data bytes (§5.6). */
static void test_rfc4340_5_8_2_mandatory_unknown_is_mandatory_error(void **state) {
  static const uint8_t reserved_multi[] = {1, 50, 4, 0xAA, 0xBB, 0, 0, 0};
  static const uint8_t reserved_one_data[] = {1, 127, 3, 0xCC, 0};
  static const uint8_t reserved_single[] = {1, 3, 0, 0};
  static const uint8_t unknown_alone[] = {50, 4, 0xAA, 0xBB, 41, 6, 0, 0, 0, 5};
  (void)state;
  assert_int_equal(parse_ack(reserved_multi, sizeof(reserved_multi)),
                   UDCCP_ERR_MANDATORY);
  assert_int_equal(o.err_data[0], 50);
  assert_int_equal(o.err_data[1], 0xAA);
  assert_int_equal(o.err_data[2], 0xBB);
  assert_int_equal(parse_ack(reserved_one_data, sizeof(reserved_one_data)),
                   UDCCP_ERR_MANDATORY);
  assert_int_equal(o.err_data[0], 127);
  assert_int_equal(o.err_data[1], 0xCC);
  assert_int_equal(o.err_data[2], 0);
  assert_int_equal(parse_ack(reserved_single, sizeof(reserved_single)),
                   UDCCP_ERR_MANDATORY);
  assert_int_equal(o.err_data[0], 3);
  /* §15: without Mandatory, unknown options are skipped. */
  assert_int_equal(parse_ack(unknown_alone, sizeof(unknown_alone)), 0);
  assert_int_equal(o.timestamp, 5);
}

/* §5.8.2: Mandatory options received on DCCP-Data MUST be ignored. */
static void test_rfc4340_5_8_2_mandatory_ignored_on_data(void **state) {
  static const uint8_t b[] = {1, 50, 2, 1, 1, 1, 41, 6, 0, 0, 0, 3};
  (void)state;
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_DATA, b, sizeof(b)), 0);
  assert_int_equal(o.timestamp, 3);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_DATAACK, b, sizeof(b)),
                   UDCCP_ERR_MANDATORY);
}

/* §5.8: a length byte below 2 or past the end: the option and everything
 * after it MUST be ignored. */
static void test_rfc4340_5_8_nonsensical_length_ignores_rest(void **state) {
  static const uint8_t len1[] = {41, 6, 0, 0, 0, 1, 42, 1, 41, 6, 0, 0, 0, 2};
  static const uint8_t len0[] = {37, 0, 41, 6, 0, 0, 0, 2};
  static const uint8_t past[] = {41, 6, 0, 0, 0, 1, 38, 9, 1, 2};
  static const uint8_t nolen[] = {41, 6, 0, 0, 0, 1, 0, 38};
  static const uint8_t mand_past[] = {1, 38, 9, 0xAB};
  static const uint8_t mand_nolen[] = {1, 38};
  (void)state;
  assert_int_equal(parse_ack(len1, sizeof(len1)), 0);
  assert_int_equal(o.timestamp, 1);
  assert_false(o.present & UDCCP_OPTS_HAS_TS_ECHO);
  assert_int_equal(parse_ack(len0, sizeof(len0)), 0);
  assert_int_equal(o.present, 0);
  assert_int_equal(parse_ack(past, sizeof(past)), 0);
  assert_int_equal(o.timestamp, 1);
  assert_int_equal(o.n_ackvec, 0);
  assert_int_equal(parse_ack(nolen, sizeof(nolen)), 0);
  assert_int_equal(o.n_ackvec, 0);
  /* Mandatory before it: the option cannot be processed. */
  assert_int_equal(parse_ack(mand_past, sizeof(mand_past)), UDCCP_ERR_MANDATORY);
  assert_int_equal(o.err_data[0], 38);
  assert_int_equal(o.err_data[1], 0xAB);
  assert_int_equal(parse_ack(mand_nolen, sizeof(mand_nolen)),
                   UDCCP_ERR_MANDATORY);
  assert_int_equal(o.err_data[0], 38);
  assert_int_equal(o.err_data[1], 0);
}

/* §10.3: options 128..255 go to the CCID, in order, with Mandatory. */
static void test_rfc4340_10_3_ccid_options_recorded(void **state) {
  static const uint8_t b[] = {192, 6, 1, 2, 3, 4, 1, 128, 2, 255, 3, 9};
  (void)state;
  assert_int_equal(parse_ack(b, sizeof(b)), 0);
  assert_int_equal(o.n_ccid, 3);
  assert_int_equal(o.ccid[0].type, 192);
  assert_int_equal(o.ccid[0].len, 4);
  assert_int_equal(o.ccid[0].mandatory, 0);
  assert_int_equal(o.ccid[1].type, 128);
  assert_int_equal(o.ccid[1].len, 0);
  assert_int_equal(o.ccid[1].mandatory, 1);
  assert_int_equal(o.ccid[2].type, 255);
  assert_int_equal(o.ccid[2].val[0], 9);
  /* The CCIDs scan for a Mandatory one they do not know (§5.8.2) only
   * when the parser saw one. */
  assert_true(o.present & UDCCP_OPTS_HAS_MANDATORY_CCID);
  assert_int_equal(parse_ack(b, 6), 0);
  assert_false(o.present & UDCCP_OPTS_HAS_MANDATORY_CCID);
  /* CCID options are allowed on DCCP-Data ("-" in the §5.8 table). */
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_DATA, b, sizeof(b)), 0);
  assert_int_equal(o.n_ccid, 3);
}

/* The §5.8 table's DCCP-Data? column, §8.1.4, §11, §11.7, §13.2 and RFC
 * 5596 §2.2.1, option by option and type by type. */
static void test_rfc4340_5_8_options_allowed_per_packet_type(void **state) {
  static const uint8_t y_on_data[] = {0, 2, 37, 41, 42, 44, 128, 200, 255};
  static const uint8_t n_on_data[] = {1, 32, 33, 34, 35, 36, 38, 39, 40, 43};
  static const uint8_t need_ack[] = {36, 38, 39, 40, 43};
  size_t i;
  uint8_t t;
  (void)state;
  for (i = 0; i < sizeof(y_on_data); i++) {
    assert_true(udccp_opt_allowed(y_on_data[i], UDCCP_PKT_DATA));
  }
  for (i = 0; i < sizeof(n_on_data); i++) {
    assert_false(udccp_opt_allowed(n_on_data[i], UDCCP_PKT_DATA));
  }
  for (i = 0; i < sizeof(need_ack); i++) {
    assert_false(udccp_opt_allowed(need_ack[i], UDCCP_PKT_REQUEST));
    for (t = UDCCP_PKT_RESPONSE; t <= UDCCP_PKT_SYNCACK; t++) {
      if (t != UDCCP_PKT_DATA) {
        assert_true(udccp_opt_allowed(need_ack[i], t));
      }
    }
  }
  for (t = 32; t <= 35; t++) {
    assert_true(udccp_opt_allowed(t, UDCCP_PKT_REQUEST));
  }
  for (i = 0; i < 256; i++) {
    assert_false(udccp_opt_allowed((uint8_t)i, UDCCP_PKT_LISTEN));
  }
}

/* Options not allowed on a packet type are ignored by the parser (§5.8). */
static void test_rfc4340_5_8_disallowed_options_ignored(void **state) {
  static const uint8_t feat[] = {32, 4, 1, 2};
  static const uint8_t av[] = {38, 3, 0};
  static const uint8_t cookie[] = {36, 3, 'c', 0};
  static const uint8_t el[] = {43, 4, 0, 1};
  static const uint8_t mand_av[] = {1, 38, 3, 0};
  (void)state;
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_DATA, feat, 4), 0);
  assert_int_equal(o.n_feat, 0);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_REQUEST, feat, 4), 0);
  assert_int_equal(o.n_feat, 1);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_REQUEST, av, 3), 0);
  assert_int_equal(o.n_ackvec, 0);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_DATA, av, 3), 0);
  assert_int_equal(o.n_ackvec, 0);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_SYNC, av, 3), 0);
  assert_int_equal(o.n_ackvec, 1);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_REQUEST, cookie, 4), 0);
  assert_false(o.present & UDCCP_OPTS_HAS_INIT_COOKIE);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_DATA, cookie, 4), 0);
  assert_false(o.present & UDCCP_OPTS_HAS_INIT_COOKIE);
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_REQUEST, el, 4), 0);
  assert_false(o.present & UDCCP_OPTS_HAS_ELAPSED);
  /* Mandatory before an option this packet may not carry: it is not
   * processed, so Mandatory Error (§5.8.2). */
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_REQUEST, mand_av, 4),
                   UDCCP_ERR_MANDATORY);
  assert_int_equal(o.err_data[0], 38);
}

/* RFC 5596 §2.2.1: clients MUST ignore all options in DCCP-Listen. */
static void test_rfc5596_2_2_1_listen_options_ignored(void **state) {
  static const uint8_t b[] = {41, 6, 0, 0, 0, 1, 1, 50, 2, 1};
  (void)state;
  assert_int_equal(udccp_opts_parse(&o, UDCCP_PKT_LISTEN, b, sizeof(b)), 0);
  assert_int_equal(o.present, 0);
}

/* §5.8: repeated options are processed independently; for fixed-format
 * options the last valid occurrence wins. */
static void test_rfc4340_5_8_last_valid_occurrence_wins(void **state) {
  static const uint8_t b[] = {41, 6, 0, 0, 0, 1, 41, 6, 0, 0, 0, 2,
                              41, 5, 0, 0, 3};
  (void)state;
  assert_int_equal(parse_ack(b, sizeof(b)), 0);
  assert_int_equal(o.timestamp, 2);
}

/* More feature options than feat[] holds: the rest stay readable through
 * feat_more and udccp_opts_next_feat, Mandatory flag included, so that
 * each Change still gets its Confirm (RFC 4340 §6.6.1, §6.6.7). */
static void test_opts_feature_overflow(void **state) {
  uint8_t b[UDCCP_OPTS_MAX_FEAT * 4 + 16];
  size_t i, n = 0, pos = 0;
  udccp_opt x;
  (void)state;
  for (i = 0; i <= UDCCP_OPTS_MAX_FEAT; i++) {
    b[n++] = 32;
    b[n++] = 4;
    b[n++] = (uint8_t)i;
    b[n++] = 1;
  }
  b[n++] = 1;
  b[n++] = 34;
  b[n++] = 4;
  b[n++] = 77;
  b[n++] = 1;
  assert_int_equal(parse_ack(b, n), 0);
  assert_int_equal(o.n_feat, UDCCP_OPTS_MAX_FEAT);
  assert_non_null(o.feat_more);
  assert_int_equal(udccp_opts_next_feat(o.feat_more, o.feat_more_len, &pos, &x),
                   1);
  assert_int_equal(x.type, 32);
  assert_int_equal(x.val[0], UDCCP_OPTS_MAX_FEAT);
  assert_int_equal(x.mandatory, 0);
  assert_int_equal(udccp_opts_next_feat(o.feat_more, o.feat_more_len, &pos, &x),
                   1);
  assert_int_equal(x.type, 34);
  assert_int_equal(x.val[0], 77);
  assert_int_equal(x.mandatory, 1);
  assert_int_equal(udccp_opts_next_feat(o.feat_more, o.feat_more_len, &pos, &x),
                   0);
  /* Within the limit, none is left over. */
  assert_int_equal(parse_ack(b, 4 * UDCCP_OPTS_MAX_FEAT), 0);
  assert_null(o.feat_more);
}

/* The same for CCID-specific options; and an empty Data Dropped (§11.7
 * needs at least one block) is ignored. */
static void test_opts_ccid_overflow_and_empty_data_dropped(void **state) {
  uint8_t b[UDCCP_OPTS_MAX_CCID * 2 + 8];
  static const uint8_t dd[] = {40, 2, 1, 40, 2};
  size_t i, n = 0;
  (void)state;
  for (i = 0; i <= UDCCP_OPTS_MAX_CCID; i++) {
    b[n++] = (uint8_t)(128 + i);
    b[n++] = 2;
  }
  assert_int_equal(parse_ack(b, n), 0);
  assert_int_equal(o.n_ccid, UDCCP_OPTS_MAX_CCID);
  assert_int_equal(o.ccid[UDCCP_OPTS_MAX_CCID - 1].type,
                   128 + UDCCP_OPTS_MAX_CCID - 1);
  b[n++] = 1;
  b[n++] = 200;
  b[n++] = 2;
  assert_int_equal(parse_ack(b, n), UDCCP_ERR_MANDATORY);
  assert_int_equal(o.err_data[0], 200);
  assert_int_equal(parse_ack(dd, 2), 0);
  assert_false(o.present & UDCCP_OPTS_HAS_DATA_DROPPED);
  assert_int_equal(parse_ack(dd + 2, 3), UDCCP_ERR_MANDATORY);
}

static void test_opts_optbuf_writes_parseable_options(void **state) {
  udccp_optbuf ob;
  static const uint8_t feat[] = {1, 2};
  (void)state;
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, feat, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_SLOW_RECEIVER, 0, NULL, 0), 0);
  assert_int_equal(udccp_optbuf_put_uint(&ob, UDCCP_OPT_TIMESTAMP, 0x01020304u,
                                         4),
                   0);
  assert_int_equal(udccp_optbuf_put_uint(&ob, UDCCP_OPT_NDP_COUNT,
                                         0x0000A1B2C3D4E5F6ULL, 6),
                   0);
  assert_int_equal(ob.len, 1 + 4 + 1 + 6 + 8);
  assert_int_equal(ob.buf[0], UDCCP_OPT_MANDATORY);
  assert_int_equal(ob.buf[2], 4);
  assert_int_equal(parse_ack(ob.buf, ob.len), 0);
  assert_int_equal(o.n_feat, 1);
  assert_int_equal(o.feat[0].mandatory, 1);
  assert_int_equal(o.slow_receiver, 1);
  assert_int_equal(o.timestamp, 0x01020304u);
  assert_true(o.ndp_count == 0xA1B2C3D4E5F6ULL);
}

static void test_opts_optbuf_limits(void **state) {
  static udccp_optbuf ob;
  static const uint8_t big[254];
  (void)state;
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, 200, 0, big, 254),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_PADDING, 0, big, 1),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_optbuf_put_uint(&ob, 37, 1, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_optbuf_put_uint(&ob, 37, 1, 9),
                   UDCCP_ERR_INVALID_ARGUMENT);
  /* 1008 bytes of room: three 255-byte options, then 242 bytes. */
  assert_int_equal(udccp_optbuf_put(&ob, 200, 0, big, 253), 0);
  assert_int_equal(udccp_optbuf_put(&ob, 200, 0, big, 253), 0);
  assert_int_equal(udccp_optbuf_put(&ob, 200, 0, big, 253), 0);
  assert_int_equal(udccp_optbuf_put(&ob, 200, 0, big, 240), 0);
  assert_int_equal(ob.len, UDCCP_OPTS_MAX_LEN - 1);
  assert_int_equal(udccp_optbuf_put(&ob, 2, 1, NULL, 0), UDCCP_ERR_NOBUF);
  assert_int_equal(ob.len, UDCCP_OPTS_MAX_LEN - 1);
  assert_int_equal(udccp_optbuf_put(&ob, 2, 0, NULL, 0), 0);
  assert_int_equal(udccp_optbuf_put(&ob, 0, 0, NULL, 0), UDCCP_ERR_NOBUF);
}

/* udccp_opts_parse_inline (the input path's parser: CCID 3 data packets'
 * RTT Estimate read inline) reads every options area as udccp_opts_parse
 * does: every area of up to 5 bytes over an alphabet of Padding,
 * Mandatory, Slow Receiver, small lengths and CCID-specific types, on
 * every packet type and two out of range. */
static void test_rfc4340_5_8_inline_parse_matches_parser(void **state) {
  static const uint8_t alpha[] = {0, 1, 2, 3, 4, 5, 0x80, 0xFF};
  static udccp_opts a, b;
  uint8_t area[5];
  size_t len, i, n;
  unsigned t, fast = 0;
  (void)state;
  for (t = 0; t <= 12; t++) {
    for (len = 0; len <= sizeof(area); len++) {
      size_t combos = 1;
      for (i = 0; i < len; i++) {
        combos *= sizeof(alpha);
      }
      for (n = 0; n < combos; n++) {
        size_t k = n;
        int ra, rb;
        for (i = 0; i < len; i++) {
          area[i] = alpha[k % sizeof(alpha)];
          k /= sizeof(alpha);
        }
        memset(&a, 0, sizeof(a));
        memset(&b, 0, sizeof(b));
        ra = udccp_opts_parse(&a, (uint8_t)t, area, len);
        rb = udccp_opts_parse_inline(&b, (uint8_t)t, area, len);
        assert_int_equal(ra, rb);
        assert_memory_equal(&a, &b, sizeof(a));
        fast += len >= 2 && area[0] >= 0x80 && a.n_ccid == 1;
      }
    }
  }
  assert_true(fast > 0);
}

/* udccp_opts_parse_ack (the input path reads the usual options of an Ack
 * or DataAck inline: Timestamp, Timestamp Echo, one Ack Vector, Padding)
 * reads every area it takes as udccp_opts_parse does, and
 * udccp_opts_parse_inline every area: the areas made of those options in
 * every combination (each present or not, the echo with 0, 2 or 4 bytes
 * of Elapsed Time, vectors of 0 to 3 bytes of either type, 0 to 4 bytes
 * of Padding), every prefix of each, and each with any one byte replaced
 * by one of an alphabet of types and lengths, on every packet type and
 * two out of range. */
static void cmp_ack_area(const uint8_t *area, size_t len, unsigned *fast) {
  static udccp_opts a, b, c;
  unsigned t;
  for (t = 0; t <= 12; t++) {
    int ra;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    memset(&c, 0, sizeof(c));
    ra = udccp_opts_parse(&a, (uint8_t)t, area, len);
    if (udccp_opts_parse_ack(&b, (uint8_t)t, area, len)) {
      assert_int_equal(ra, 0);
      assert_memory_equal(&a, &b, sizeof(a));
      ++*fast;
    }
    assert_int_equal(udccp_opts_parse_inline(&c, (uint8_t)t, area, len), ra);
    assert_memory_equal(&a, &c, sizeof(a));
  }
}

static void test_rfc4340_5_8_ack_parse_matches_parser(void **state) {
  static const uint8_t alpha[] = {0, 1,  2,  3,  4,  6,  7,  8,
                                  9, 10, 38, 39, 41, 42, 0x80};
  static const uint8_t ts[] = {41, 6, 0x01, 0x02, 0x03, 0x04};
  static const uint8_t echo[] = {42, 10, 0x0A, 0x0B, 0x0C, 0x0D,
                                 0x11, 0x12, 0x13, 0x14};
  uint8_t base[32], area[32];
  unsigned fast = 0, combo;
  (void)state;
  /* 2 (Timestamp) x 4 (echo: none, 6, 8, 10) x 9 (vector: none, or 0..3
   * bytes of type 38 or 39: none is not a vector) x 5 (0..4 bytes of
   * Padding) */
  for (combo = 0; combo < 2 * 4 * 9 * 5; combo++) {
    unsigned has_ts = combo % 2, el = (combo / 2) % 4;
    unsigned av = (combo / 8) % 9, pad = combo / 72;
    size_t len = 0, i, j, cut;
    if (has_ts) {
      memcpy(base, ts, sizeof(ts));
      len = sizeof(ts);
    }
    if (el > 0) {
      memcpy(base + len, echo, 4 + 2 * el);
      base[len + 1] = (uint8_t)(4 + 2 * el);
      len += 4 + 2 * el;
    }
    if (av > 0) {
      unsigned vlen = (av - 1) / 2;
      base[len] = (uint8_t)(av % 2 ? UDCCP_OPT_ACK_VECTOR_0
                                   : UDCCP_OPT_ACK_VECTOR_1);
      base[len + 1] = (uint8_t)(vlen + 2);
      for (j = 0; j < vlen; j++) {
        base[len + 2 + j] = (uint8_t)(0x3F - j); /* state 0 runs */
      }
      len += vlen + 2;
    }
    memset(base + len, 0, pad);
    len += pad;
    for (cut = 0; cut <= len; cut++) {
      cmp_ack_area(base, cut, &fast);
    }
    for (i = 0; i < len; i++) {
      for (j = 0; j < sizeof(alpha); j++) {
        memcpy(area, base, len);
        area[i] = alpha[j];
        cmp_ack_area(area, len, &fast);
      }
    }
  }
  assert_true(fast > 0);
  {
    /* the area of every ack CCID 2 writes: taken */
    static const uint8_t usual[] = {41, 6, 0, 0, 0x12, 0x34, 42, 6, 0, 0,
                                    0x56, 0x78, 38, 4, 0x3F, 0x05, 0, 0};
    static udccp_opts u;
    assert_int_equal(udccp_opts_parse_ack(&u, UDCCP_PKT_ACK, usual,
                                          sizeof(usual)),
                     1);
    assert_int_equal(u.n_ackvec, 1);
    assert_int_equal(u.ackvec[0].len, 2);
    assert_true(u.ackvec[0].val == usual + 14);
    assert_int_equal(u.timestamp, 0x1234u);
    assert_int_equal(u.ts_echo, 0x5678u);
    assert_int_equal(udccp_opts_parse_ack(&u, UDCCP_PKT_DATA, usual,
                                          sizeof(usual)),
                     0);
    /* a Data packet's after an ack: the ack's Timestamp echoed, taken */
    assert_int_equal(udccp_opts_parse_ack(&u, UDCCP_PKT_DATA, usual + 6, 6),
                     1);
    assert_true(u.present & UDCCP_OPTS_HAS_TS_ECHO);
    assert_int_equal(u.ts_echo, 0x5678u);
    assert_int_equal(u.n_ackvec, 0);
  }
}

/* §11.4: State 2 is reserved.  Both parsers note that the Ack Vectors
 * they recorded were checked and hold none (UDCCP_OPTS_AV_CHECKED, which
 * lets udccp_ackvec_check skip them), and never when one byte of any
 * vector has it. */
static void test_rfc4340_11_4_parser_checks_reserved_state(void **state) {
  static udccp_opts a, b;
  uint8_t area[24] = {41, 6, 0, 0, 0, 1, 38, 11, 0x3F, 0x3F, 0x3F, 0x3F,
                      0x3F, 0x3F, 0x3F, 0x3F, 0x05, 0, 0, 0};
  size_t pos;
  (void)state;
  /* valid: both parsers note the check */
  assert_int_equal(udccp_opts_parse(&a, UDCCP_PKT_ACK, area, 20), 0);
  assert_int_equal(udccp_opts_parse_inline(&b, UDCCP_PKT_ACK, area, 20), 0);
  assert_true(a.present & UDCCP_OPTS_AV_CHECKED);
  assert_true(b.present & UDCCP_OPTS_AV_CHECKED);
  /* a reserved byte anywhere in the vector (the word at a time and the
   * byte at a time parts): no note */
  for (pos = 8; pos < 17; pos++) {
    uint8_t keep = area[pos];
    area[pos] = (uint8_t)(0x80 | (keep & 0x3F));
    assert_int_equal(udccp_opts_parse(&a, UDCCP_PKT_ACK, area, 20), 0);
    assert_int_equal(udccp_opts_parse_inline(&b, UDCCP_PKT_DATAACK, area, 20),
                     0);
    assert_int_equal(a.n_ackvec, 1);
    assert_int_equal(b.n_ackvec, 1);
    assert_false(a.present & UDCCP_OPTS_AV_CHECKED);
    assert_false(b.present & UDCCP_OPTS_AV_CHECKED);
    area[pos] = keep;
  }
  /* two vectors (the general parser), the second with the reserved
   * state */
  {
    static const uint8_t two[] = {38, 3, 0x05, 39, 3, 0x85, 0, 0};
    assert_int_equal(udccp_opts_parse(&a, UDCCP_PKT_ACK, two, sizeof(two)), 0);
    assert_int_equal(a.n_ackvec, 2);
    assert_false(a.present & UDCCP_OPTS_AV_CHECKED);
  }
  /* no vector, no note */
  assert_int_equal(udccp_opts_parse(&a, UDCCP_PKT_ACK, area, 6), 0);
  assert_false(a.present & UDCCP_OPTS_AV_CHECKED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_5_8_fixed_option_lengths),
      cmocka_unit_test(test_rfc4340_7_7_ndp_count_values),
      cmocka_unit_test(test_rfc4340_13_timing_option_values),
      cmocka_unit_test(test_rfc4340_9_3_data_checksum_option),
      cmocka_unit_test(test_rfc4340_6_feature_options_recorded),
      cmocka_unit_test(test_rfc4340_8_1_4_init_cookie_recorded),
      cmocka_unit_test(test_rfc4340_11_4_ack_vectors_recorded),
      cmocka_unit_test(test_rfc4340_5_8_1_padding_and_slow_receiver),
      cmocka_unit_test(test_rfc4340_5_8_2_mandatory_last_is_option_error),
      cmocka_unit_test(test_rfc4340_5_8_2_mandatory_mandatory_is_option_error),
      cmocka_unit_test(test_rfc4340_5_8_2_mandatory_padding_valid),
      cmocka_unit_test(test_rfc4340_5_8_2_mandatory_unknown_is_mandatory_error),
      cmocka_unit_test(test_rfc4340_5_8_2_mandatory_ignored_on_data),
      cmocka_unit_test(test_rfc4340_5_8_nonsensical_length_ignores_rest),
      cmocka_unit_test(test_rfc4340_10_3_ccid_options_recorded),
      cmocka_unit_test(test_rfc4340_5_8_options_allowed_per_packet_type),
      cmocka_unit_test(test_rfc4340_5_8_disallowed_options_ignored),
      cmocka_unit_test(test_rfc5596_2_2_1_listen_options_ignored),
      cmocka_unit_test(test_rfc4340_5_8_last_valid_occurrence_wins),
      cmocka_unit_test(test_opts_feature_overflow),
      cmocka_unit_test(test_opts_ccid_overflow_and_empty_data_dropped),
      cmocka_unit_test(test_opts_optbuf_writes_parseable_options),
      cmocka_unit_test(test_opts_optbuf_limits),
      cmocka_unit_test(test_rfc4340_5_8_inline_parse_matches_parser),
      cmocka_unit_test(test_rfc4340_5_8_ack_parse_matches_parser),
      cmocka_unit_test(test_rfc4340_11_4_parser_checks_reserved_state),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * 48-bit circular sequence-number arithmetic (RFC 4340 §7.1, §7.6).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "seq.h"

#define TOP UDCCP_SEQ_MASK /* 2^48 - 1 */

/* §7.1: sequence numbers are 48 bits and wrap to 0. */
static void test_rfc4340_7_1_add_wraps_at_2_48(void **state) {
  (void)state;
  assert_true(udccp_seq_add(TOP, 1) == 0);
  assert_true(udccp_seq_add(0, -1) == TOP);
  assert_true(udccp_seq_add(TOP - 5, 10) == 4);
  assert_true(udccp_seq_add(3, -10) == TOP - 6);
  assert_true(udccp_seq_add(100, 0) == 100);
  assert_true(udccp_seq_add(0, (int64_t)UDCCP_SEQ_HALF) == UDCCP_SEQ_HALF);
}

static void test_rfc4340_7_1_sub_is_circular_distance(void **state) {
  (void)state;
  assert_int_equal(udccp_seq_sub(0, TOP), 1);
  assert_int_equal(udccp_seq_sub(TOP, 0), -1);
  assert_int_equal(udccp_seq_sub(5, TOP - 4), 10);
  assert_int_equal(udccp_seq_sub(TOP - 4, 5), -10);
  assert_int_equal(udccp_seq_sub(7, 7), 0);
  /* The range is [-2^47, 2^47). */
  assert_true(udccp_seq_sub(UDCCP_SEQ_HALF - 1, 0) ==
              (int64_t)UDCCP_SEQ_HALF - 1);
  assert_true(udccp_seq_sub(UDCCP_SEQ_HALF, 0) == -(int64_t)UDCCP_SEQ_HALF);
  assert_true(udccp_seq_sub(0, UDCCP_SEQ_HALF) == -(int64_t)UDCCP_SEQ_HALF);
}

/* Comparisons follow circular order, across the wrap. */
static void test_rfc4340_7_1_comparisons_across_wrap(void **state) {
  (void)state;
  assert_true(udccp_seq_lt(TOP, 0));
  assert_true(udccp_seq_gt(0, TOP));
  assert_true(udccp_seq_le(TOP, 0));
  assert_true(udccp_seq_ge(0, TOP));
  assert_true(udccp_seq_le(9, 9));
  assert_true(udccp_seq_ge(9, 9));
  assert_false(udccp_seq_lt(9, 9));
  assert_false(udccp_seq_gt(9, 9));
  assert_true(udccp_seq_lt(1, 2));
  assert_false(udccp_seq_lt(2, 1));
  assert_true(udccp_seq_lt(TOP - 100, 100));
  assert_true(udccp_seq_max(TOP - 1, 3) == 3);
  assert_true(udccp_seq_min(TOP - 1, 3) == TOP - 1);
  assert_true(udccp_seq_max(10, 20) == 20);
  assert_true(udccp_seq_min(10, 20) == 10);
}

/* The comparisons (sign of the shifted difference) agree with the sign
 * of udccp_seq_sub for distances at and around 0, +-1, +-2^47 and random
 * ones, from bases at and around 0, 2^47 and 2^48 - 1, and ignore the
 * top 16 bits of their arguments as udccp_seq_sub does. */
static void test_rfc4340_7_1_comparisons_match_distance(void **state) {
  static const uint64_t bases[] = {0, 1, UDCCP_SEQ_HALF - 1, UDCCP_SEQ_HALF,
                                   UDCCP_SEQ_HALF + 1, TOP - 1, TOP};
  static const int64_t ds[] = {0, 1, -1, 2, -2,
                               (int64_t)UDCCP_SEQ_HALF - 1,
                               (int64_t)UDCCP_SEQ_HALF,
                               (int64_t)UDCCP_SEQ_HALF + 1,
                               -(int64_t)UDCCP_SEQ_HALF + 1,
                               -(int64_t)UDCCP_SEQ_HALF};
  uint64_t x = 88172645463325252ULL;
  size_t i, j;
  int k;
  (void)state;
  for (k = 0; k < 20000; k++) {
    uint64_t a, b;
    int64_t d;
    if (k < 70) {
      i = (size_t)k % 7;
      j = (size_t)k / 7;
      b = bases[i];
      a = udccp_seq_add(b, ds[j]);
    } else {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      a = x;
      b = (k & 1) ? a - (x >> (x & 47)) : x * 0x9E3779B97F4A7C15ULL;
    }
    d = udccp_seq_sub(a, b);
    assert_int_equal(udccp_seq_lt(a, b), d < 0);
    assert_int_equal(udccp_seq_le(a, b), d <= 0);
    assert_int_equal(udccp_seq_gt(a, b), d > 0);
    assert_int_equal(udccp_seq_ge(a, b), d >= 0);
  }
}

/* The windows of §7.5.1 are circular intervals: lo <= x <= hi. */
static void test_rfc4340_7_5_between_across_wrap(void **state) {
  (void)state;
  assert_true(udccp_seq_between(5, 5, 10));
  assert_true(udccp_seq_between(10, 5, 10));
  assert_true(udccp_seq_between(7, 5, 10));
  assert_false(udccp_seq_between(4, 5, 10));
  assert_false(udccp_seq_between(11, 5, 10));
  /* Window wrapping past 2^48. */
  assert_true(udccp_seq_between(TOP, TOP - 10, 20));
  assert_true(udccp_seq_between(0, TOP - 10, 20));
  assert_true(udccp_seq_between(20, TOP - 10, 20));
  assert_true(udccp_seq_between(TOP - 10, TOP - 10, 20));
  assert_false(udccp_seq_between(21, TOP - 10, 20));
  assert_false(udccp_seq_between(TOP - 11, TOP - 10, 20));
  assert_false(udccp_seq_between(UDCCP_SEQ_HALF, TOP - 10, 20));
  /* One-element window. */
  assert_true(udccp_seq_between(TOP, TOP, TOP));
  assert_false(udccp_seq_between(0, TOP, TOP));
}

/* §7.6: a 24-bit number extends to the 48-bit value closest to the
 * reference, including when that value lies across a 2^24 boundary or the
 * 2^48 wrap. */
static void test_rfc4340_7_6_short_seqno_extension(void **state) {
  (void)state;
  assert_true(udccp_seq_extend24(0x123456000010ULL, 0x000011) ==
              0x123456000011ULL);
  assert_true(udccp_seq_extend24(0x123456000010ULL, 0x00000F) ==
              0x12345600000FULL);
  /* Just below a 2^24 boundary, s just above it: next block. */
  assert_true(udccp_seq_extend24(0x123456FFFFF0ULL, 0x000005) ==
              0x123457000005ULL);
  /* Just above, s just below: previous block. */
  assert_true(udccp_seq_extend24(0x123457000005ULL, 0xFFFFF0) ==
              0x123456FFFFF0ULL);
  /* Across the 2^48 wrap, both ways. */
  assert_true(udccp_seq_extend24(TOP - 5, 0x000003) == 3);
  assert_true(udccp_seq_extend24(2, 0xFFFFFE) == TOP - 1);
  assert_true(udccp_seq_extend24(0, 0) == 0);
  assert_true(udccp_seq_extend24(TOP, 0xFFFFFF) == TOP);
  /* Only the low 24 bits of s count. */
  assert_true(udccp_seq_extend24(0x100000000ULL, 0xFF000007u) ==
              0x100000007ULL);
}

static uint64_t lcg64(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 16;
}

/* Property: for any reference and any distance d with |d| < 2^23, the
 * extension of (ref + d) mod 2^24 is (ref + d) mod 2^48. */
static void test_rfc4340_7_6_extension_nearest_property(void **state) {
  static const uint64_t edges[] = {0, 1, 0x7FFFFF, 0x800000, 0xFFFFFF,
                                   0x1000000, TOP, TOP - 0x7FFFFF,
                                   TOP - 0xFFFFFF, UDCCP_SEQ_HALF};
  static const int64_t ds[] = {0, 1, -1, 0x7FFFFF, -0x7FFFFF, 0x400000,
                               -0x400000, 0x10, -0x10};
  uint64_t seed = 42;
  size_t i, j;
  int k;
  (void)state;
  for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
    for (j = 0; j < sizeof(ds) / sizeof(ds[0]); j++) {
      uint64_t want = udccp_seq_add(edges[i], ds[j]);
      assert_true(udccp_seq_extend24(edges[i], (uint32_t)(want & 0xFFFFFF)) ==
                  want);
    }
  }
  for (k = 0; k < 100000; k++) {
    uint64_t ref = lcg64(&seed) & TOP;
    int64_t d = (int64_t)(lcg64(&seed) % 0xFFFFFF) - 0x7FFFFF;
    uint64_t want = udccp_seq_add(ref, d);
    assert_true(udccp_seq_extend24(ref, (uint32_t)(want & 0xFFFFFF)) == want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_7_1_add_wraps_at_2_48),
      cmocka_unit_test(test_rfc4340_7_1_sub_is_circular_distance),
      cmocka_unit_test(test_rfc4340_7_1_comparisons_across_wrap),
      cmocka_unit_test(test_rfc4340_7_1_comparisons_match_distance),
      cmocka_unit_test(test_rfc4340_7_5_between_across_wrap),
      cmocka_unit_test(test_rfc4340_7_6_short_seqno_extension),
      cmocka_unit_test(test_rfc4340_7_6_extension_nearest_property),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

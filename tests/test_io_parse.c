/* SPDX-License-Identifier: MIT */
/*
 * Command-line value parsers of the tools (io/parse.h): rates, sizes,
 * times and Service Codes (RFC 5595 §2.1, RFC 4340 §8.1.2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "../io/parse.h"

static void test_io_parse_rate_units(void **state) {
  (void)state;
  uint64_t v = 0;
  assert_int_equal(udccp_io_parse_rate("50mbit", &v), 0);
  assert_int_equal(v, 50000000);
  assert_int_equal(udccp_io_parse_rate("1gbit", &v), 0);
  assert_int_equal(v, 1000000000);
  assert_int_equal(udccp_io_parse_rate("1.5M", &v), 0);
  assert_int_equal(v, 1500000);
  assert_int_equal(udccp_io_parse_rate("500k", &v), 0);
  assert_int_equal(v, 500000);
  assert_int_equal(udccp_io_parse_rate("1200", &v), 0);
  assert_int_equal(v, 1200);
  /* bytes per second are multiplied by 8 */
  assert_int_equal(udccp_io_parse_rate("10MBps", &v), 0);
  assert_int_equal(v, 80000000);
}

static void test_io_parse_rate_rejects_garbage(void **state) {
  (void)state;
  uint64_t v = 7;
  assert_int_equal(udccp_io_parse_rate("", &v), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_io_parse_rate("fast", &v), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_io_parse_rate("-5mbit", &v),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_io_parse_rate("5mbitz", &v),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_io_parse_rate("1e30gbit", &v),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(v, 7);
}

static void test_io_parse_size_and_time(void **state) {
  (void)state;
  uint64_t v = 0;
  assert_int_equal(udccp_io_parse_size("1400", &v), 0);
  assert_int_equal(v, 1400);
  assert_int_equal(udccp_io_parse_size("64k", &v), 0);
  assert_int_equal(v, 65536);
  assert_int_equal(udccp_io_parse_size("1M", &v), 0);
  assert_int_equal(v, 1048576);
  assert_int_equal(udccp_io_parse_size("12x", &v), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_io_parse_time("20ms", &v), 0);
  assert_int_equal(v, 20 * UDCCP_NS_PER_MS);
  assert_int_equal(udccp_io_parse_time("30s", &v), 0);
  assert_int_equal(v, 30 * UDCCP_NS_PER_S);
  assert_int_equal(udccp_io_parse_time("2.5", &v), 0);
  assert_int_equal(v, 2500 * UDCCP_NS_PER_MS);
  assert_int_equal(udccp_io_parse_time("1h", &v), UDCCP_ERR_INVALID_ARGUMENT);
}

static void test_io_parse_mp_sched_names(void **state) {
  (void)state;
  int v = -1;
  assert_int_equal(udccp_io_parse_mp_sched("minrtt", &v), 0);
  assert_int_equal(v, UDCCP_MP_SCHED_MINRTT);
  assert_int_equal(udccp_io_parse_mp_sched("backup", &v), 0);
  assert_int_equal(v, UDCCP_MP_SCHED_BACKUP);
  assert_int_equal(udccp_io_parse_mp_sched("rr", &v), 0);
  assert_int_equal(v, UDCCP_MP_SCHED_RR);
  assert_int_equal(udccp_io_parse_mp_sched("redundant", &v), 0);
  assert_int_equal(v, UDCCP_MP_SCHED_REDUNDANT);
  v = -1;
  assert_int_equal(udccp_io_parse_mp_sched("MinRTT", &v),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_io_parse_mp_sched("", &v), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(v, -1); /* untouched on error */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_io_parse_rate_units),
      cmocka_unit_test(test_io_parse_rate_rejects_garbage),
      cmocka_unit_test(test_io_parse_size_and_time),
      cmocka_unit_test(test_io_parse_mp_sched_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Service Codes as text (RFC 5595 §2.1), the public helpers
 * udccp_service_code_parse() and udccp_service_code_format().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <udccp/udccp.h>

/* RFC 5595 §2.1: Service Codes are often written as four ASCII characters
 * read as a big-endian 32-bit number. */
static void test_rfc5595_2_1_service_code_ascii_and_numbers(void **state) {
  (void)state;
  uint32_t c = 0;
  assert_int_equal(udccp_service_code_parse("PERF", &c), 0);
  assert_int_equal(c, 0x50455246u);
  assert_int_equal(udccp_service_code_parse("CHAT", &c), 0);
  assert_int_equal(c, 0x43484154u);
  assert_int_equal(udccp_service_code_parse("CAT", &c), 0);
  assert_int_equal(c, 0x43415400u);
  assert_int_equal(udccp_service_code_parse("42", &c), 0);
  assert_int_equal(c, 42);
  assert_int_equal(udccp_service_code_parse("0x10", &c), 0);
  assert_int_equal(c, 16);
  assert_int_equal(udccp_service_code_parse("1AB", &c), 0); /* not a number */
  assert_int_equal(c, 0x31414200u);
  assert_int_equal(udccp_service_code_parse("TOOLONG", &c),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_service_code_parse("", &c),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_service_code_parse(NULL, &c),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_service_code_parse("A\tB", &c),
                   UDCCP_ERR_INVALID_ARGUMENT); /* outside 32..126 */
  assert_int_equal(udccp_service_code_parse("\x7f", &c),
                   UDCCP_ERR_INVALID_ARGUMENT);
}

/* RFC 4340 §8.1.2: 4294967295 is never a valid Service Code. */
static void test_rfc4340_8_1_2_invalid_service_code_rejected(void **state) {
  (void)state;
  uint32_t c = 5;
  assert_int_equal(udccp_service_code_parse("4294967295", &c),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_service_code_parse("0xffffffff", &c),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(c, 5); /* untouched on error */
  assert_int_equal(udccp_service_code_parse("4294967294", &c), 0);
  assert_int_equal(c, 4294967294u);
}

static void test_service_code_format_chars_or_number(void **state) {
  (void)state;
  char b[UDCCP_SERVICE_CODE_STRLEN];
  assert_string_equal(udccp_service_code_format(0x43484154u, b, sizeof(b)),
                      "CHAT");
  assert_string_equal(udccp_service_code_format(0x43415400u, b, sizeof(b)),
                      "CAT");
  assert_string_equal(udccp_service_code_format(0, b, sizeof(b)), "0");
  assert_string_equal(udccp_service_code_format(42, b, sizeof(b)), "42");
  /* "1234" in ASCII would read back as the number 1234: a number */
  assert_string_equal(udccp_service_code_format(0x31323334u, b, sizeof(b)),
                      "825373492");
  /* a zero byte between characters cannot be written as text */
  assert_string_equal(udccp_service_code_format(0x41004200u, b, sizeof(b)),
                      "1090535936");
  assert_string_equal(udccp_service_code_format(4294967294u, b, sizeof(b)),
                      "4294967294");
  char small[3];
  assert_string_equal(udccp_service_code_format(0x43484154u, small, 3), "CH");
  assert_string_equal(udccp_service_code_format(1, NULL, 0), "");
}

/* Every code but the invalid one survives format then parse: tools and
 * logs print what users can type back. */
static void test_service_code_round_trip(void **state) {
  (void)state;
  static const uint32_t fixed[] = {0, 1, 9, 10, 0x20000000u, 0x7e7e7e7eu,
                                   0x31000000u, 0x2f2f2f2fu, 0x3a000000u,
                                   0x41424300u, 0x41420043u, 4294967294u};
  char b[UDCCP_SERVICE_CODE_STRLEN];
  uint32_t x = 0x9e3779b9u;
  for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + 100000; i++) {
    uint32_t code, back = 0;
    if (i < sizeof(fixed) / sizeof(fixed[0])) {
      code = fixed[i];
    } else {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      /* half of them printable 4-char codes, which the random half misses */
      code = (i & 1) ? x : (x & 0x3f3f3f3fu) + 0x20202020u;
      if (code == UDCCP_SERVICE_CODE_INVALID) {
        continue;
      }
    }
    udccp_service_code_format(code, b, sizeof(b));
    assert_int_equal(udccp_service_code_parse(b, &back), 0);
    assert_int_equal(back, code);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc5595_2_1_service_code_ascii_and_numbers),
      cmocka_unit_test(test_rfc4340_8_1_2_invalid_service_code_rejected),
      cmocka_unit_test(test_service_code_format_chars_or_number),
      cmocka_unit_test(test_service_code_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

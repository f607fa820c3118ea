/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the text the library reads and writes: Service
 * Codes as people write them (RFC 5595 §2.1, lib/service.c) and the names
 * of error codes, Reset codes and states (lib/util.c).
 *
 * Input: the bytes are a C string for udccp_service_code_parse() (cut at
 * the first NUL); their first 4 bytes are also a code for the formatter
 * and an int for the name functions.  Rules checked:
 *   - a string that parses formats back to a string that parses to the
 *     same code (format and parse agree);
 *   - every code formats to a string that parses back to it, unless it is
 *     4294967295 (never valid, RFC 4340 §8.1.2), which must not parse;
 *   - a truncating buffer yields a NUL-terminated prefix;
 *   - the name functions return a non-NULL, NUL-terminated string for any
 *     int;
 *   - a CCID name (udccp_ccid_parse, lib/ccid.c: "2", "ccid3", "cubic",
 *     "bbr") gives an error or a number 2..255, and that number written
 *     in decimal parses to itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <udccp/udccp.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                              \
  do {                                                                        \
    if (!(c)) {                                                               \
      abort();                                                                \
    }                                                                         \
  } while (0)

static void check_name(const char *s) {
  CHECK(s != NULL);
  CHECK(strlen(s) < 200);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *str = malloc(size + 1);
  char buf[UDCCP_SERVICE_CODE_STRLEN], small[4];
  uint32_t code = 0, back = 0, v = 0;
  CHECK(str != NULL);
  memcpy(str, data, size);
  str[size] = '\0';
  if (udccp_service_code_parse(str, &code) == 0) {
    CHECK(code != UDCCP_SERVICE_CODE_INVALID);
    udccp_service_code_format(code, buf, sizeof(buf));
    CHECK(udccp_service_code_parse(buf, &back) == 0 && back == code);
  }
  int id = udccp_ccid_parse(str);
  CHECK(id == UDCCP_ERR_INVALID_ARGUMENT || (id >= 2 && id <= 255));
  if (id >= 0) {
    char nb[16];
    snprintf(nb, sizeof(nb), "%d", id);
    CHECK(udccp_ccid_parse(nb) == id);
    snprintf(nb, sizeof(nb), "ccid%d", id);
    CHECK(udccp_ccid_parse(nb) == id);
  }
  free(str);

  for (size_t i = 0; i < 4; i++) {
    v = (v << 8) | (i < size ? data[i] : 0);
  }
  udccp_service_code_format(v, buf, sizeof(buf));
  CHECK(memchr(buf, '\0', sizeof(buf)) != NULL);
  if (v == UDCCP_SERVICE_CODE_INVALID) {
    CHECK(udccp_service_code_parse(buf, &back) != 0);
  } else {
    CHECK(udccp_service_code_parse(buf, &back) == 0 && back == v);
  }
  udccp_service_code_format(v, small, sizeof(small));
  CHECK(strlen(small) < sizeof(small) && strncmp(small, buf, strlen(small)) == 0);
  CHECK(udccp_service_code_format(v, NULL, 0)[0] == '\0');

  check_name(udccp_strerror((int)v));
  check_name(udccp_strerror(-(int)(v & 0x3FF)));
  check_name(udccp_reset_code_str((int)v));
  check_name(udccp_reset_code_str((int)(v & 0xFF)));
  check_name(udccp_state_str((int)v));
  check_name(udccp_state_str((int)(v & 0xF)));
  return 0;
}

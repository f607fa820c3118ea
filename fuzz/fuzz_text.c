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
 *     in decimal parses to itself;
 *   - the CCID registry (lib/ccid.c, include/udccp/ccid.h; RFC 4340 §10:
 *     248..255 experimental): bytes 4 and 5 choose a number, flags, BBR's
 *     or CUBIC's ops or a broken copy of them (a required function
 *     missing, a state too large, a timer without its handler, NULL) and
 *     whether the number is freed first; udccp_ccid_register_as answers as
 *     its contract says, a registered CCID is found by lookup, parse and
 *     the server's list of extras (once), unregistering empties the
 *     number, and what was there before is put back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <udccp/udccp.h>

#include "ccid.h"

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

struct extra_count {
  uint8_t id;
  int n;
};

static void count_extra(uint8_t id, void *user) {
  struct extra_count *c = user;
  if (id == c->id) {
    c->n++;
  }
}

static int extras_listing(uint8_t id) {
  struct extra_count c = {id, 0};
  udccp_ccid_each_extra(count_extra, &c);
  return c.n;
}

static void check_registry(const uint8_t *data, size_t size) {
  uint8_t id = size > 4 ? data[4] : 0, how = size > 5 ? data[5] : 0;
  unsigned flags = how & 3u; /* bit 1: a flag that does not exist */
  const udccp_ccid_ops *base = (how & 4) ? udccp_ccid_cubic() : udccp_ccid_bbr();
  const udccp_ccid_ops *ops = base, *before;
  udccp_ccid_ops bad = *base;
  int valid = 1, freed = 0, want, rc;
  char nb[16];
  switch ((how >> 3) & 7) {
  case 1:
    bad.tx_init = NULL;
    break;
  case 2:
    bad.rx_on_pkt = NULL;
    break;
  case 3:
    bad.tx_size = sizeof(udccp_ccid_state) + 1;
    break;
  case 4:
    bad.tx_get_expiry = NULL; /* no timer: valid */
    bad.tx_on_expiry = NULL;
    break;
  case 5:
    bad.rx_on_expiry = NULL; /* valid only if there is no rx timer */
    valid = bad.rx_get_expiry == NULL;
    break;
  case 6:
    ops = NULL;
    valid = 0;
    break;
  default:
    break;
  }
  if (((how >> 3) & 7) >= 1 && ((how >> 3) & 7) <= 5) {
    ops = &bad;
    valid = valid && ((how >> 3) & 7) >= 4;
  }
  before = udccp_ccid_lookup(id);
  if ((how & 0x40) != 0 && before != NULL && id >= 5) {
    CHECK(udccp_ccid_unregister(id) == 0);
    CHECK(udccp_ccid_lookup(id) == NULL && extras_listing(id) == 0);
    freed = 1;
  }
  if (!valid || (flags & ~UDCCP_CCID_REG_RESERVED) != 0 || id < 5 ||
      (id < UDCCP_CCID_EXPERIMENTAL_MIN &&
       !(flags & UDCCP_CCID_REG_RESERVED))) {
    want = UDCCP_ERR_INVALID_ARGUMENT;
  } else if (udccp_ccid_lookup(id) != NULL) {
    want = UDCCP_ERR_INVALID_STATE;
  } else {
    want = 0;
  }
  rc = udccp_ccid_register_as(ops, id, flags);
  CHECK(rc == want);
  if (rc == 0) {
    CHECK(udccp_ccid_lookup(id) == ops && extras_listing(id) == 1);
    snprintf(nb, sizeof(nb), "%u", id);
    CHECK(udccp_ccid_parse(nb) == id);
    CHECK(udccp_ccid_unregister(id) == 0);
    CHECK(udccp_ccid_lookup(id) == NULL && extras_listing(id) == 0);
    CHECK(udccp_ccid_unregister(id) == UDCCP_ERR_INVALID_ARGUMENT);
  }
  if (freed) {
    CHECK(udccp_ccid_register_as(
              before, id,
              id < UDCCP_CCID_EXPERIMENTAL_MIN ? UDCCP_CCID_REG_RESERVED : 0) ==
          0);
  }
  CHECK(udccp_ccid_lookup(id) == before);
  CHECK(id < 5 || extras_listing(id) == (before != NULL));
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
  check_registry(data, size);
  return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Service Codes as people write them (RFC 5595 §2.1): four ASCII
 * characters read as a big-endian 32-bit number ("CHAT" = 0x43484154), or
 * a number.  Both directions, so that applications, tools and logs agree.
 */
#include <errno.h>
#include <stdlib.h>

#include <udccp/udccp.h>

static int is_print(uint8_t ch) {
  return ch >= 32 && ch <= 126; /* RFC 5595 §2.1: ASCII 32..126 */
}

int udccp_service_code_parse(const char *s, uint32_t *code) {
  size_t n = 0;
  uint32_t c = 0;
  if (s == NULL || code == NULL || *s == '\0') {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (*s >= '0' && *s <= '9') {
    char *end = NULL;
    unsigned long long v;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno == 0 && end != s && *end == '\0') {
      /* RFC 4340 §8.1.2: 4294967295 is never a valid Service Code. */
      if (v >= UDCCP_SERVICE_CODE_INVALID) {
        return UDCCP_ERR_INVALID_ARGUMENT;
      }
      *code = (uint32_t)v;
      return 0;
    }
  }
  while (s[n] != '\0') {
    if (n == 4 || !is_print((uint8_t)s[n])) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    n++;
  }
  for (size_t i = 0; i < 4; i++) {
    c = (c << 8) | (i < n ? (uint8_t)s[i] : 0); /* short: zero-padded */
  }
  *code = c;
  return 0;
}

const char *udccp_service_code_format(uint32_t code, char *buf, size_t cap) {
  uint8_t b[4] = {(uint8_t)(code >> 24), (uint8_t)(code >> 16),
                  (uint8_t)(code >> 8), (uint8_t)code};
  char tmp[UDCCP_SERVICE_CODE_STRLEN];
  size_t n = 0, len;
  if (buf == NULL || cap == 0) {
    return "";
  }
  /* Characters when udccp_service_code_parse() reads them back as this
   * code: printable, then only zero bytes, not starting with a digit
   * (that would read as a number). */
  while (n < 4 && is_print(b[n])) {
    n++;
  }
  len = n;
  while (n < 4 && b[n] == 0) {
    n++;
  }
  if (len > 0 && n == 4 && !(b[0] >= '0' && b[0] <= '9')) {
    for (size_t i = 0; i < len; i++) {
      tmp[i] = (char)b[i];
    }
  } else {
    char rev[10];
    uint32_t v = code;
    size_t k = 0;
    do {
      rev[k++] = (char)('0' + v % 10);
      v /= 10;
    } while (v != 0);
    for (len = 0; len < k; len++) {
      tmp[len] = rev[k - 1 - len];
    }
  }
  if (len >= cap) {
    len = cap - 1; /* truncated, still terminated */
  }
  for (size_t i = 0; i < len; i++) {
    buf[i] = tmp[i];
  }
  buf[len] = '\0';
  return buf;
}

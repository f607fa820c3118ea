/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for Init Cookies (lib/cookie.h, RFC 4340 §8.1.4).
 *
 * Input: 1 byte of flags, 8 bytes of time offset, then the cookie bytes.
 * Opening arbitrary bytes must never crash or read out of bounds, and may
 * accept only a cookie this jar made (its randomness is fixed); a cookie the jar made itself, from state taken from the input, must open
 * to the same state; and that cookie with any one byte changed must not.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cookie.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fixed_rand(uint8_t *dest, size_t len, void *ud) {
  uint64_t *x = ud;
  size_t i;

  for (i = 0; i < len; i++) {
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    dest[i] = (uint8_t)(*x >> 56);
  }
}

static uint64_t get64(const uint8_t *p) {
  uint64_t v = 0;
  int i;

  for (i = 0; i < 8; i++) {
    v = (v << 8) | p[i];
  }
  return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  udccp_cookie_jar jar;
  udccp_path path;
  udccp_cookie_state st, got;
  uint64_t seed = 1;
  uint8_t flags, ck[UDCCP_COOKIE_MAX_LEN];
  uint8_t *copy;
  udccp_tstamp t0 = 1000 * UDCCP_NS_PER_S, ts;
  udccp_ssize n;
  size_t len;

  if (size < 9) {
    return 0;
  }
  flags = data[0];
  /* Within a few lifetimes of t0, either side. */
  ts = t0 + get64(data + 1) % (40 * UDCCP_NS_PER_S) - 4 * UDCCP_NS_PER_S;
  data += 9;
  size -= 9;

  memset(&path, 0, sizeof(path));
  path.family = (flags & 1) ? UDCCP_AF_INET6 : UDCCP_AF_INET;
  memset(path.local_addr, 0x11, sizeof(path.local_addr));
  memset(path.remote_addr, 0x22, sizeof(path.remote_addr));
  path.local_port = 6511;
  path.remote_port = (uint16_t)(flags >> 1);

  if (udccp_cookie_jar_init(&jar, fixed_rand, &seed, 8 * UDCCP_NS_PER_S,
                            t0) != 0) {
    abort();
  }

  /* Arbitrary bytes, in a buffer of exactly their size so that ASan sees
   * any over-read. */
  copy = malloc(size ? size : 1);
  if (copy == NULL) {
    return 0;
  }
  memcpy(copy, data, size);
  if (udccp_cookie_open(&jar, &path, copy, size, &got, ts) == 0) {
    /* Only a cookie this jar made can open (the seed corpus holds some:
     * the jar's randomness is fixed); what it decodes to must be what
     * its bytes say. */
    if (size != udccp_cookie_len(&got) || got.made > ts ||
        get64(copy + 2) != got.made ||
        (get64(copy + 10) >> 16) != got.isr ||
        (get64(copy + 14) & 0xFFFFFFFFFFFFULL) != got.iss ||
        (uint32_t)(get64(copy + 19) >> 8) != got.service_code ||
        memcmp(copy + UDCCP_COOKIE_HDR_LEN, got.feat, got.feat_len) != 0) {
      abort();
    }
  }
  free(copy);

  /* Round trip of state drawn from the input. */
  memset(&st, 0, sizeof(st));
  len = size < sizeof(ck) ? size : sizeof(ck);
  memcpy(ck, data, len);
  memset(ck + len, 0, sizeof(ck) - len);
  st.isr = get64(ck) & 0xFFFFFFFFFFFFULL;
  st.iss = get64(ck + 8) & 0xFFFFFFFFFFFFULL;
  st.service_code = (uint32_t)get64(ck + 16);
  st.feat_len = (uint8_t)(ck[24] % (UDCCP_COOKIE_FEAT_MAX + 1));
  memcpy(st.feat, ck + 25, st.feat_len);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), t0);
  if (n != (udccp_ssize)udccp_cookie_len(&st)) {
    abort();
  }
  if (udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, t0) != 0 ||
      got.isr != st.isr || got.iss != st.iss ||
      got.service_code != st.service_code || got.feat_len != st.feat_len ||
      memcmp(got.feat, st.feat, st.feat_len) != 0 || got.made != t0) {
    abort();
  }
  if (size > 0) {
    size_t at = data[0] % (size_t)n;
    uint8_t x = data[size - 1] ? data[size - 1] : 1;
    ck[at] ^= x;
    if (udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, t0) == 0) {
      abort();
    }
  }
  udccp_cookie_jar_clear(&jar);
  return 0;
}

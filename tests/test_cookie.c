/* SPDX-License-Identifier: MIT */
/*
 * Init Cookies (lib/cookie.h, RFC 4340 §8.1.4): round trip, tamper and
 * path binding, secret rotation and expiry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cookie.h"

#define S UDCCP_NS_PER_S
#define LIFETIME (8 * S)

/* Deterministic "randomness" that counts its calls. */
typedef struct test_rand {
  uint64_t x;
  int calls;
} test_rand;

static void test_rand_cb(uint8_t *dest, size_t len, void *ud) {
  test_rand *r = ud;
  size_t i;

  r->calls++;
  for (i = 0; i < len; i++) {
    r->x ^= r->x << 13;
    r->x ^= r->x >> 7;
    r->x ^= r->x << 17;
    dest[i] = (uint8_t)r->x;
  }
}

static udccp_path make_path4(uint8_t last, uint16_t lport, uint16_t rport) {
  udccp_path p;
  static const uint8_t l[4] = {192, 0, 2, 1};
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  memcpy(p.local_addr, l, 4);
  p.remote_addr[0] = 198;
  p.remote_addr[1] = 51;
  p.remote_addr[2] = 100;
  p.remote_addr[3] = last;
  p.local_port = lport;
  p.remote_port = rport;
  return p;
}

static udccp_cookie_state make_state(uint8_t feat_len) {
  udccp_cookie_state st;
  uint8_t i;

  memset(&st, 0, sizeof(st));
  st.isr = 0xABCDEF123456ULL;
  st.iss = 0x000102030405ULL;
  st.service_code = 0x50455246u; /* "PERF" */
  st.feat_len = feat_len;
  for (i = 0; i < feat_len; i++) {
    st.feat[i] = (uint8_t)(i * 7 + 1);
  }
  return st;
}

static void jar_setup(udccp_cookie_jar *jar, test_rand *r, uint64_t seed,
                      udccp_tstamp ts) {
  r->x = seed;
  r->calls = 0;
  assert_int_equal(udccp_cookie_jar_init(jar, test_rand_cb, r, LIFETIME, ts),
                   0);
}

static void test_cookie_jar_init_requires_rand(void **state) {
  udccp_cookie_jar jar;
  test_rand r = {1, 0};

  (void)state;
  assert_int_equal(udccp_cookie_jar_init(&jar, NULL, NULL, LIFETIME, 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_cookie_jar_init(&jar, test_rand_cb, &r, 0, 0), 0);
  assert_int_equal(jar.lifetime, UDCCP_COOKIE_DEFAULT_LIFETIME);
  assert_int_equal(r.calls, 2);
}

static void test_rfc4340_8_1_4_cookie_round_trip(void **state) {
  udccp_cookie_jar jar;
  test_rand r;
  udccp_path path = make_path4(7, 5001, 40000);
  udccp_cookie_state st = make_state(20), got;
  uint8_t ck[UDCCP_COOKIE_MAX_LEN];
  udccp_ssize n;

  (void)state;
  jar_setup(&jar, &r, 0x1234, 100 * S);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 101 * S);
  assert_int_equal(n, (udccp_ssize)udccp_cookie_len(&st));
  assert_int_equal(n, UDCCP_COOKIE_OVERHEAD + 20);
  memset(&got, 0xEE, sizeof(got));
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 102 * S), 0);
  assert_int_equal(got.isr, st.isr);
  assert_int_equal(got.iss, st.iss);
  assert_int_equal(got.service_code, st.service_code);
  assert_int_equal(got.feat_len, 20);
  assert_memory_equal(got.feat, st.feat, 20);
  assert_int_equal(got.made, 101 * S);
}

/* §8.1.4: each Init Cookie option holds at most 253 bytes. */
static void test_rfc4340_8_1_4_cookie_fits_one_option(void **state) {
  udccp_cookie_jar jar;
  test_rand r;
  udccp_path path = make_path4(7, 5001, 40000);
  udccp_cookie_state st = make_state(UDCCP_COOKIE_FEAT_MAX), got;
  uint8_t ck[UDCCP_COOKIE_MAX_LEN];
  udccp_ssize n;

  (void)state;
  jar_setup(&jar, &r, 99, 0);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0);
  assert_true(n > 0 && n <= 253);
  assert_int_equal(udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 0), 0);
  assert_memory_equal(got.feat, st.feat, UDCCP_COOKIE_FEAT_MAX);

  /* An empty feature blob is fine too. */
  st = make_state(0);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0);
  assert_int_equal(n, UDCCP_COOKIE_OVERHEAD);
  assert_int_equal(udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 0), 0);
  assert_int_equal(got.feat_len, 0);
}

static void test_cookie_make_argument_errors(void **state) {
  udccp_cookie_jar jar;
  test_rand r;
  udccp_path path = make_path4(7, 5001, 40000);
  udccp_cookie_state st = make_state(10);
  uint8_t ck[UDCCP_COOKIE_MAX_LEN];

  (void)state;
  jar_setup(&jar, &r, 5, 0);
  assert_int_equal(udccp_cookie_make(&jar, &path, &st, ck,
                                     udccp_cookie_len(&st) - 1, 0),
                   UDCCP_ERR_NOBUF);
  assert_int_equal(
      udccp_cookie_make(&jar, &path, &st, ck, udccp_cookie_len(&st), 0),
      (udccp_ssize)udccp_cookie_len(&st));
  st.feat_len = UDCCP_COOKIE_FEAT_MAX + 1;
  assert_int_equal(udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  st = make_state(10);
  st.isr = 1ULL << 48;
  assert_int_equal(udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
  st = make_state(10);
  st.iss = 1ULL << 48;
  assert_int_equal(udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0),
                   UDCCP_ERR_INVALID_ARGUMENT);
}

/* §8.1.4: the server SHOULD be able to detect tampering.  Every single bit
 * flip, every truncation and every extension must be rejected. */
static void test_rfc4340_8_1_4_tampered_cookie_rejected(void **state) {
  udccp_cookie_jar jar;
  test_rand r;
  udccp_path path = make_path4(7, 5001, 40000);
  udccp_cookie_state st = make_state(33), got;
  uint8_t ck[UDCCP_COOKIE_MAX_LEN], bad[UDCCP_COOKIE_MAX_LEN + 1];
  udccp_ssize n;
  size_t i, len;
  int bit;

  (void)state;
  jar_setup(&jar, &r, 77, 0);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), S);
  assert_true(n > 0);
  for (i = 0; i < (size_t)n; i++) {
    for (bit = 0; bit < 8; bit++) {
      memcpy(bad, ck, (size_t)n);
      bad[i] ^= (uint8_t)(1u << bit);
      assert_int_equal(
          udccp_cookie_open(&jar, &path, bad, (size_t)n, &got, 2 * S),
          UDCCP_ERR_COOKIE);
    }
  }
  for (len = 0; len < (size_t)n; len++) {
    assert_int_equal(udccp_cookie_open(&jar, &path, ck, len, &got, 2 * S),
                     UDCCP_ERR_COOKIE);
  }
  memcpy(bad, ck, (size_t)n);
  bad[n] = 0;
  assert_int_equal(
      udccp_cookie_open(&jar, &path, bad, (size_t)n + 1, &got, 2 * S),
      UDCCP_ERR_COOKIE);
  /* The untouched cookie still opens: the rejections above were real. */
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 2 * S), 0);
}

/* The cookie is bound to the addresses and ports it was made for. */
static void test_rfc4340_8_1_4_cookie_bound_to_path(void **state) {
  udccp_cookie_jar jar;
  test_rand r;
  udccp_path path = make_path4(7, 5001, 40000), other;
  udccp_cookie_state st = make_state(8), got;
  uint8_t ck[UDCCP_COOKIE_MAX_LEN];
  udccp_ssize n;

  (void)state;
  jar_setup(&jar, &r, 3, 0);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0);
  assert_true(n > 0);

  other = make_path4(8, 5001, 40000); /* other client address */
  assert_int_equal(udccp_cookie_open(&jar, &other, ck, (size_t)n, &got, 0),
                   UDCCP_ERR_COOKIE);
  other = make_path4(7, 5001, 40001); /* other client port */
  assert_int_equal(udccp_cookie_open(&jar, &other, ck, (size_t)n, &got, 0),
                   UDCCP_ERR_COOKIE);
  other = make_path4(7, 5002, 40000); /* other server port */
  assert_int_equal(udccp_cookie_open(&jar, &other, ck, (size_t)n, &got, 0),
                   UDCCP_ERR_COOKIE);
  other = path; /* other server address */
  other.local_addr[3] = 2;
  assert_int_equal(udccp_cookie_open(&jar, &other, ck, (size_t)n, &got, 0),
                   UDCCP_ERR_COOKIE);
  other = path; /* the two ends swapped */
  memcpy(other.local_addr, path.remote_addr, 16);
  memcpy(other.remote_addr, path.local_addr, 16);
  other.local_port = path.remote_port;
  other.remote_port = path.local_port;
  assert_int_equal(udccp_cookie_open(&jar, &other, ck, (size_t)n, &got, 0),
                   UDCCP_ERR_COOKIE);
  other = path; /* RFC 6773 §3.5: another UDP source port (DCCP-UDP) */
  other.encap_port = 6512;
  assert_int_equal(udccp_cookie_open(&jar, &other, ck, (size_t)n, &got, 0),
                   UDCCP_ERR_COOKIE);
  other = path; /* the same bytes read as IPv6 */
  other.family = UDCCP_AF_INET6;
  assert_int_equal(udccp_cookie_open(&jar, &other, ck, (size_t)n, &got, 0),
                   UDCCP_ERR_COOKIE);
  /* Bytes past an IPv4 address are not part of it. */
  other = path;
  other.remote_addr[10] = 0x55;
  assert_int_equal(udccp_cookie_open(&jar, &other, ck, (size_t)n, &got, 0), 0);
}

static void test_rfc4340_8_1_4_cookie_ipv6_path(void **state) {
  udccp_cookie_jar jar;
  test_rand r;
  udccp_path path, other;
  udccp_cookie_state st = make_state(8), got;
  uint8_t ck[UDCCP_COOKIE_MAX_LEN];
  udccp_ssize n;
  int i;

  (void)state;
  memset(&path, 0, sizeof(path));
  path.family = UDCCP_AF_INET6;
  for (i = 0; i < 16; i++) {
    path.local_addr[i] = (uint8_t)(0x20 + i);
    path.remote_addr[i] = (uint8_t)(0x40 + i);
  }
  path.local_port = 6511;
  path.remote_port = 1234;
  jar_setup(&jar, &r, 11, 0);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0);
  assert_int_equal(udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 0), 0);
  other = path; /* the last address byte counts for IPv6 */
  other.remote_addr[15] ^= 1;
  assert_int_equal(udccp_cookie_open(&jar, &other, ck, (size_t)n, &got, 0),
                   UDCCP_ERR_COOKIE);
}

/* Another listener (another secret) cannot open our cookies. */
static void test_rfc4340_8_1_4_cookie_needs_our_secret(void **state) {
  udccp_cookie_jar jar, jar2;
  test_rand r, r2;
  udccp_path path = make_path4(7, 5001, 40000);
  udccp_cookie_state st = make_state(8), got;
  uint8_t ck[UDCCP_COOKIE_MAX_LEN];
  udccp_ssize n;

  (void)state;
  jar_setup(&jar, &r, 1, 0);
  jar_setup(&jar2, &r2, 2, 0);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0);
  assert_int_equal(udccp_cookie_open(&jar2, &path, ck, (size_t)n, &got, 0),
                   UDCCP_ERR_COOKIE);
  /* After the secrets are wiped, nothing opens either. */
  udccp_cookie_jar_clear(&jar);
  assert_int_equal(udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 0),
                   UDCCP_ERR_COOKIE);
}

/* The secret rotates every lifetime, from fresh randomness; a cookie made
 * before one rotation still opens, after two it does not. */
static void test_cookie_rotation_accepts_previous_secret(void **state) {
  udccp_cookie_jar jar;
  test_rand r;
  udccp_path path = make_path4(7, 5001, 40000);
  udccp_cookie_state st = make_state(8), got;
  uint8_t ck[UDCCP_COOKIE_MAX_LEN], ck2[UDCCP_COOKIE_MAX_LEN];
  udccp_ssize n, n2;
  udccp_tstamp t0 = 1000 * S;

  (void)state;
  jar_setup(&jar, &r, 42, t0);
  assert_int_equal(r.calls, 2);
  /* Made late in the first lifetime. */
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), t0 + 7 * S);
  assert_int_equal(r.calls, 2);
  /* One rotation later (t0 + 8 s): a new secret was drawn... */
  n2 = udccp_cookie_make(&jar, &path, &st, ck2, sizeof(ck2), t0 + 9 * S);
  assert_int_equal(r.calls, 3);
  assert_int_equal(jar.epoch, 1);
  /* ...new cookies use it, so they differ from the old one... */
  assert_int_equal(n, n2);
  assert_memory_not_equal(ck + 10, ck2 + 10, (size_t)n - 10);
  /* ...and the old cookie is accepted under the previous secret. */
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, t0 + 9 * S), 0);
  assert_int_equal(got.made, t0 + 7 * S);
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck2, (size_t)n2, &got, t0 + 9 * S), 0);
  /* A second rotation (t0 + 16 s) retires the first secret. */
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, t0 + 16 * S),
      UDCCP_ERR_COOKIE);
  assert_int_equal(r.calls, 4);
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck2, (size_t)n2, &got, t0 + 16 * S), 0);
  /* A third retires the second. */
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck2, (size_t)n2, &got, t0 + 24 * S),
      UDCCP_ERR_COOKIE);
}

/* A cookie is never accepted past 2 lifetimes, even when the listener was
 * idle and rotates several periods at once. */
static void test_cookie_expires_after_two_lifetimes(void **state) {
  udccp_cookie_jar jar;
  test_rand r;
  udccp_path path = make_path4(7, 5001, 40000);
  udccp_cookie_state st = make_state(8), got;
  uint8_t ck[UDCCP_COOKIE_MAX_LEN];
  udccp_ssize n;

  (void)state;
  jar_setup(&jar, &r, 43, 0);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0);
  /* Just before the second rotation: accepted. */
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 16 * S - 1), 0);

  jar_setup(&jar, &r, 43, 0);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0);
  /* No call for 100 s: both secrets are replaced in one step. */
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 100 * S),
      UDCCP_ERR_COOKIE);
  assert_int_equal(jar.have_prev, 0);
  assert_int_equal(jar.epoch, 12);
  assert_int_equal(jar.rotated_at, 96 * S);
  /* and the jar keeps working */
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 100 * S);
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 105 * S), 0);
}

/* A broken rand that always gives the same bytes, so that every epoch has
 * the same secret and only the epoch byte and the timestamp can reject. */
static void const_rand_cb(uint8_t *dest, size_t len, void *ud) {
  (void)ud;
  memset(dest, 0x5A, len);
}

/* The timestamp bounds the age even if the epoch byte repeats (it wraps
 * after 256 rotations) under the same secret. */
static void test_cookie_age_bound_survives_epoch_byte_wrap(void **state) {
  udccp_cookie_jar jar;
  udccp_path path = make_path4(7, 5001, 40000);
  udccp_cookie_state st = make_state(8), got;
  uint8_t ck[UDCCP_COOKIE_MAX_LEN];
  udccp_ssize n;
  udccp_tstamp t;

  (void)state;
  assert_int_equal(
      udccp_cookie_jar_init(&jar, const_rand_cb, NULL, LIFETIME, 0), 0);
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 0);
  /* Same secret, epoch 2: the epoch byte alone rejects it. */
  assert_int_equal(udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 8 * S),
                   0);
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 16 * S),
      UDCCP_ERR_COOKIE);
  /* Rotate one period at a time to epoch 256: the epoch byte is 0 again
   * and the MAC verifies, so only the timestamp can reject. */
  for (t = 16 * S; t <= 256 * LIFETIME; t += LIFETIME) {
    udccp_cookie_jar_tick(&jar, t);
  }
  assert_int_equal(jar.epoch, 256);
  assert_int_equal(
      udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, 256 * LIFETIME),
      UDCCP_ERR_COOKIE);
  /* Whereas a cookie of the current epoch made now opens. */
  n = udccp_cookie_make(&jar, &path, &st, ck, sizeof(ck), 256 * LIFETIME);
  assert_int_equal(udccp_cookie_open(&jar, &path, ck, (size_t)n, &got,
                                     256 * LIFETIME + S),
                   0);
}

/* Before the first rotation there is no previous secret: a cookie whose
 * epoch byte is one less than the current must not verify, even if the
 * unused key slot held the very secret that made it. */
static void test_cookie_no_previous_secret_before_rotation(void **state) {
  udccp_cookie_jar old_jar, jar;
  udccp_path path = make_path4(7, 5001, 40000);
  udccp_cookie_state st = make_state(8), got;
  uint8_t ck[UDCCP_COOKIE_MAX_LEN];
  udccp_ssize n;
  udccp_tstamp t;

  (void)state;
  assert_int_equal(
      udccp_cookie_jar_init(&old_jar, const_rand_cb, NULL, LIFETIME, 0), 0);
  for (t = LIFETIME; t < 255 * LIFETIME; t += LIFETIME) {
    udccp_cookie_jar_tick(&old_jar, t);
  }
  n = udccp_cookie_make(&old_jar, &path, &st, ck, sizeof(ck), t);
  assert_int_equal(ck[1], 0xFF);
  assert_int_equal(
      udccp_cookie_jar_init(&jar, const_rand_cb, NULL, LIFETIME, t), 0);
  assert_int_equal(udccp_cookie_open(&jar, &path, ck, (size_t)n, &got, t),
                   UDCCP_ERR_COOKIE);
  /* The old jar, which did rotate, accepts it. */
  assert_int_equal(
      udccp_cookie_open(&old_jar, &path, ck, (size_t)n, &got, t), 0);
}

/* Whatever bytes arrive, open never reads past len and never accepts. */
static void test_cookie_open_garbage_rejected(void **state) {
  udccp_cookie_jar jar;
  test_rand r, g = {0x9E3779B97F4A7C15ULL, 0};
  udccp_path path = make_path4(7, 5001, 40000);
  udccp_cookie_state got;
  uint8_t buf[UDCCP_COOKIE_MAX_LEN + 10];
  int i;

  (void)state;
  jar_setup(&jar, &r, 45, 0);
  for (i = 0; i < 2000; i++) {
    size_t len = (size_t)(i % (int)sizeof(buf));
    test_rand_cb(buf, sizeof(buf), &g);
    buf[0] = UDCCP_COOKIE_VERSION;
    buf[1] = 0;
    if (len > 26) {
      buf[26] = (uint8_t)(len - UDCCP_COOKIE_OVERHEAD);
    }
    assert_int_equal(udccp_cookie_open(&jar, &path, buf, len, &got, 0),
                     UDCCP_ERR_COOKIE);
  }
  assert_int_equal(udccp_cookie_open(&jar, &path, NULL, 0, &got, 0),
                   UDCCP_ERR_COOKIE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cookie_jar_init_requires_rand),
      cmocka_unit_test(test_rfc4340_8_1_4_cookie_round_trip),
      cmocka_unit_test(test_rfc4340_8_1_4_cookie_fits_one_option),
      cmocka_unit_test(test_cookie_make_argument_errors),
      cmocka_unit_test(test_rfc4340_8_1_4_tampered_cookie_rejected),
      cmocka_unit_test(test_rfc4340_8_1_4_cookie_bound_to_path),
      cmocka_unit_test(test_rfc4340_8_1_4_cookie_ipv6_path),
      cmocka_unit_test(test_rfc4340_8_1_4_cookie_needs_our_secret),
      cmocka_unit_test(test_cookie_rotation_accepts_previous_secret),
      cmocka_unit_test(test_cookie_expires_after_two_lifetimes),
      cmocka_unit_test(test_cookie_age_bound_survives_epoch_byte_wrap),
      cmocka_unit_test(test_cookie_no_previous_secret_before_rotation),
      cmocka_unit_test(test_cookie_open_garbage_rejected),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP keys and HMACs (RFC 9897 §3.2.4, §3.2.6, §3.3) against
 * vectors computed independently of this code, with the OpenSSL command
 * line (openssl 3.0.19, Debian 12), e.g. for MP_HMAC(A) of an MP_JOIN:
 *
 *   printf '\xa1\xa2\xa3\xa4\xb1\xb2\xb3\xb4' |
 *     openssl dgst -sha256 -mac HMAC \
 *       -macopt hexkey:01020304050607081112131415161718
 *
 * (key = d-keyA = KeyA + KeyB, message = RA + RB; the MP_HMAC is the
 * first 20 bytes of the digest printed).  The others swap key halves and
 * nonces (B), or hash Address ID + Nonce + address + port (MP_ADDADDR) and
 * Address ID + Nonce (MP_REMOVEADDR).  The HMAC primitive is also checked
 * against RFC 4231 test case 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mp_auth.h"
#include "mp_hmac.h"

/* KeyA = 01..08, KeyB = 11..18; Host A's view. */
static udccp_mp_keys host_a(void) {
  udccp_mp_keys k;
  static const uint8_t ka[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  static const uint8_t kb[8] = {0x11, 0x12, 0x13, 0x14,
                                0x15, 0x16, 0x17, 0x18};
  memset(&k, 0, sizeof(k));
  memcpy(k.local, ka, 8);
  memcpy(k.remote, kb, 8);
  return k;
}

static udccp_mp_keys host_b(void) {
  udccp_mp_keys a = host_a(), b = a;
  memcpy(b.local, a.remote, 8);
  memcpy(b.remote, a.local, 8);
  return b;
}

static void unhex(const char *s, uint8_t *out, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    unsigned v = 0;
    int j;
    for (j = 0; j < 2; j++) {
      char c = s[2 * i + (size_t)j];
      v = v * 16 + (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    out[i] = (uint8_t)v;
  }
}

static void expect_mac(const uint8_t *got, const char *hex) {
  uint8_t want[20];
  unhex(hex, want, 20);
  assert_memory_equal(got, want, 20);
}

/* RFC 4231 §4.3, test case 2 (key "Jefe"). */
static void test_hmac_sha256_rfc4231_case2(void **state) {
  uint8_t out[32], want[32];
  static const char msg[] = "what do ya want for nothing?";
  (void)state;
  assert_int_equal(udccp_hmac_sha256((const uint8_t *)"Jefe", 4,
                                     (const uint8_t *)msg, sizeof(msg) - 1,
                                     out),
                   0);
  unhex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
        want, 32);
  assert_memory_equal(out, want, 32);
  assert_int_equal(udccp_hmac_sha256(NULL, 4, NULL, 0, out),
                   UDCCP_ERR_INVALID_ARGUMENT);
}

/* §3.2.4: d-keyA = KeyA + KeyB, d-keyB = KeyB + KeyA. */
static void test_rfc9897_3_2_4_derived_keys(void **state) {
  udccp_mp_keys a = host_a(), b = host_b();
  uint8_t da[16], db[16], peer[16];
  (void)state;
  udccp_mp_dkey(&a, 0, da);
  udccp_mp_dkey(&b, 0, db);
  assert_memory_equal(da, a.local, 8);
  assert_memory_equal(da + 8, a.remote, 8);
  assert_memory_equal(db, a.remote, 8);
  assert_memory_equal(db + 8, a.local, 8);
  udccp_mp_dkey(&a, 1, peer); /* what A computes for B */
  assert_memory_equal(peer, db, 16);
}

/* §3.2.6, §3.3: MP_HMAC(A) = HMAC(d-keyA, RA + RB), MP_HMAC(B) =
 * HMAC(d-keyB, RB + RA); each side computes the other's to verify it. */
static void test_rfc9897_3_2_6_join_hmac(void **state) {
  udccp_mp_keys a = host_a(), b = host_b();
  const uint32_t ra = 0xA1A2A3A4u, rb = 0xB1B2B3B4u;
  uint8_t mac_a[20], mac_b[20], check[20];
  (void)state;
  assert_int_equal(udccp_mp_hmac_join(&a, 0, ra, rb, mac_a), 0);
  expect_mac(mac_a, "53037f2899475529844115fd07e665d23d3554fb");
  assert_int_equal(udccp_mp_hmac_join(&b, 0, rb, ra, mac_b), 0);
  expect_mac(mac_b, "864b40428762fd06fa24bb3c5ea12c1bbf6546e7");
  /* B verifies A's, A verifies B's. */
  assert_int_equal(udccp_mp_hmac_join(&b, 1, rb, ra, check), 0);
  assert_true(udccp_mp_hmac_equal(check, mac_a));
  assert_int_equal(udccp_mp_hmac_join(&a, 1, ra, rb, check), 0);
  assert_true(udccp_mp_hmac_equal(check, mac_b));
  /* A replayed nonce gives another HMAC. */
  assert_int_equal(udccp_mp_hmac_join(&a, 0, ra, rb + 1, check), 0);
  assert_false(udccp_mp_hmac_equal(check, mac_a));
  check[19] ^= 1;
  assert_false(udccp_mp_hmac_equal(check, mac_a));
}

/* §3.2.8: the message is Address ID + Nonce + IP + port, two zero bytes
 * when the port is absent. */
static void test_rfc9897_3_2_8_addaddr_hmac(void **state) {
  udccp_mp_keys a = host_a(), b = host_b();
  udccp_mp_opt o;
  uint8_t mac[20], check[20];
  (void)state;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_ADDADDR;
  o.u.addaddr.addr_id = 2;
  o.u.addaddr.nonce = 0xCAFEBABEu;
  o.u.addaddr.family = UDCCP_AF_INET;
  o.u.addaddr.addr[0] = 192;
  o.u.addaddr.addr[2] = 2;
  o.u.addaddr.addr[3] = 7;
  assert_int_equal(udccp_mp_hmac_addaddr(&a, 0, &o, mac), 0);
  expect_mac(mac, "4b7156164da5b5705f0782c976007b99d4e6b929");
  assert_int_equal(udccp_mp_hmac_addaddr(&b, 1, &o, check), 0);
  assert_true(udccp_mp_hmac_equal(check, mac));
  o.u.addaddr.has_port = 1;
  o.u.addaddr.port = 5001;
  assert_int_equal(udccp_mp_hmac_addaddr(&a, 0, &o, mac), 0);
  expect_mac(mac, "b879e1d115af4fc47409040eac87cb9a95b99ba7");
  o.type = UDCCP_MP_JOIN;
  assert_int_equal(udccp_mp_hmac_addaddr(&a, 0, &o, mac),
                   UDCCP_ERR_INVALID_ARGUMENT);
}

/* §3.2.6: MP_REMOVEADDR's message is Address ID + Nonce. */
static void test_rfc9897_3_2_9_removeaddr_hmac(void **state) {
  udccp_mp_keys a = host_a(), b = host_b();
  uint8_t mac[20], check[20];
  (void)state;
  assert_int_equal(udccp_mp_hmac_removeaddr(&a, 0, 2, 0x11223344u, mac), 0);
  expect_mac(mac, "cca07050b971914f79fb85353458320a0ec1d4ff");
  assert_int_equal(udccp_mp_hmac_removeaddr(&b, 1, 2, 0x11223344u, check),
                   0);
  assert_true(udccp_mp_hmac_equal(check, mac));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hmac_sha256_rfc4231_case2),
      cmocka_unit_test(test_rfc9897_3_2_4_derived_keys),
      cmocka_unit_test(test_rfc9897_3_2_6_join_hmac),
      cmocka_unit_test(test_rfc9897_3_2_8_addaddr_hmac),
      cmocka_unit_test(test_rfc9897_3_2_9_removeaddr_hmac),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

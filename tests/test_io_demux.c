/* SPDX-License-Identifier: MIT */
/*
 * The runtime's connection table (io/demux.h): lookup by the DCCP-UDP
 * 6-tuple (RFC 6773 §3.8) and by the raw 4-tuple.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "../io/demux.h"

static udccp_path mkpath(uint8_t fam, uint8_t last, uint16_t lport,
                         uint16_t rport) {
  udccp_path p;
  memset(&p, 0, sizeof(p));
  p.family = fam;
  p.local_port = lport;
  p.remote_port = rport;
  if (fam == UDCCP_AF_INET) {
    p.remote_addr[0] = 127;
    p.remote_addr[3] = last;
  } else {
    p.remote_addr[15] = last;
  }
  return p;
}

/* RFC 6773 §3.8: two DCCP connections over the same UDP 4-tuple are told
 * apart by their DCCP ports; the same DCCP ports behind two UDP source
 * ports (two NAPT'd hosts) are two connections too. */
static void test_rfc6773_3_8_demux_by_6tuple(void **state) {
  (void)state;
  udccp_demux d;
  assert_int_equal(udccp_demux_init(&d, 4, 12345), 0);
  int a, b, c;
  udccp_demux_key ka, kb, kc, kx;
  udccp_path pa = mkpath(UDCCP_AF_INET, 1, 5001, 40000);
  udccp_path pb = mkpath(UDCCP_AF_INET, 1, 5001, 40001);
  udccp_demux_key_make(&ka, &pa, 6511);
  udccp_demux_key_make(&kb, &pb, 6511);
  udccp_demux_key_make(&kc, &pa, 6512); /* same DCCP ports, other UDP port */
  assert_int_equal(udccp_demux_insert(&d, &ka, &a), 0);
  assert_int_equal(udccp_demux_insert(&d, &kb, &b), 0);
  assert_int_equal(udccp_demux_insert(&d, &kc, &c), 0);
  assert_ptr_equal(udccp_demux_find(&d, &ka), &a);
  assert_ptr_equal(udccp_demux_find(&d, &kb), &b);
  assert_ptr_equal(udccp_demux_find(&d, &kc), &c);
  /* another remote address: unknown */
  udccp_path px = mkpath(UDCCP_AF_INET, 2, 5001, 40000);
  udccp_demux_key_make(&kx, &px, 6511);
  assert_null(udccp_demux_find(&d, &kx));
  /* duplicates are refused */
  assert_int_equal(udccp_demux_insert(&d, &ka, &b), UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_demux_remove(&d, &ka), 0);
  assert_null(udccp_demux_find(&d, &ka));
  assert_ptr_equal(udccp_demux_find(&d, &kb), &b);
  assert_int_equal(udccp_demux_remove(&d, &ka), UDCCP_ERR_AGAIN);
  udccp_demux_free(&d);
}

static void test_io_demux_families_differ(void **state) {
  (void)state;
  udccp_demux d;
  assert_int_equal(udccp_demux_init(&d, 16, 1), 0);
  udccp_path p4 = mkpath(UDCCP_AF_INET, 0, 1, 2);
  udccp_path p6 = mkpath(UDCCP_AF_INET6, 0, 1, 2);
  memset(p4.remote_addr, 0, 16);
  memset(p6.remote_addr, 0, 16);
  udccp_demux_key k4, k6;
  udccp_demux_key_make(&k4, &p4, 0);
  udccp_demux_key_make(&k6, &p6, 0);
  int x;
  assert_int_equal(udccp_demux_insert(&d, &k4, &x), 0);
  assert_null(udccp_demux_find(&d, &k6));
  udccp_demux_free(&d);
}

/* Many connections coming and going: the table must agree with a plain
 * array at every step (backward-shift deletion keeps probe runs intact). */
static void test_io_demux_matches_reference_under_churn(void **state) {
  (void)state;
  enum { N = 3000 };
  static int vals[N];
  static uint8_t present[N];
  udccp_demux d;
  assert_int_equal(udccp_demux_init(&d, 16, 99), 0);
  uint32_t rng = 1;
  size_t count = 0;
  for (int step = 0; step < 40000; step++) {
    rng = rng * 1103515245u + 12345u;
    int i = (int)((rng >> 8) % N);
    udccp_path p = mkpath(UDCCP_AF_INET6, (uint8_t)(i & 7),
                          (uint16_t)(i >> 3), 5000);
    udccp_demux_key k;
    udccp_demux_key_make(&k, &p, 6511);
    if (present[i]) {
      assert_ptr_equal(udccp_demux_find(&d, &k), &vals[i]);
      assert_int_equal(udccp_demux_remove(&d, &k), 0);
      present[i] = 0;
      count--;
    } else {
      assert_null(udccp_demux_find(&d, &k));
      assert_int_equal(udccp_demux_insert(&d, &k, &vals[i]), 0);
      present[i] = 1;
      count++;
    }
    assert_int_equal(d.n, count);
  }
  for (int i = 0; i < N; i++) {
    udccp_path p = mkpath(UDCCP_AF_INET6, (uint8_t)(i & 7),
                          (uint16_t)(i >> 3), 5000);
    udccp_demux_key k;
    udccp_demux_key_make(&k, &p, 6511);
    void *v = udccp_demux_find(&d, &k);
    if (present[i]) {
      assert_ptr_equal(v, &vals[i]);
    } else {
      assert_null(v);
    }
  }
  assert_true(d.n * 2 <= d.cap);
  udccp_demux_free(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc6773_3_8_demux_by_6tuple),
      cmocka_unit_test(test_io_demux_families_differ),
      cmocka_unit_test(test_io_demux_matches_reference_under_churn),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

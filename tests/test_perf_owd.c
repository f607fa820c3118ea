/* SPDX-License-Identifier: MIT */
/*
 * udccp-perf's one-way delay summary (tools/perf/owd.c): exact nearest-rank
 * percentiles up to the reservoir's 65,536 samples, and beyond it a
 * uniform sample of every delay seen (Vitter's algorithm R), so that the
 * percentiles of a long test describe the whole test and not its end.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "../tools/perf/owd.c"

/* Up to the reservoir's size the figures are exact: 1..1000 us in a
 * scrambled order give min 1, p50 500, p95 950, p99 990, max 1000. */
static void test_perf_owd_exact_below_cap(void **state) {
  (void)state;
  perf_owd o;
  memset(&o, 0, sizeof(o));
  for (uint32_t i = 0; i < 1000; i++) {
    uint32_t k = (i * 7919u) % 1000u + 1; /* a permutation of 1..1000 */
    perf_owd_add(&o, (double)k * 1e-6);
  }
  double ms[PERF_OWD_N];
  assert_int_equal(perf_owd_summary(&o, ms), 1);
  const double want[PERF_OWD_N] = {0.001, 0.500, 0.950, 0.990, 1.000};
  for (int i = 0; i < PERF_OWD_N; i++) {
    printf("owd[%d] %.6f ms (want %.6f)\n", i, ms[i], want[i]);
    assert_true(fabs(ms[i] - want[i]) < 1e-6);
  }
  perf_owd_reset(&o);
}

/* 2,000,000 delays rising steadily from 0 to 2 ms (a queue that fills
 * during the test): a uniform sample has its median near 1 ms, p95 near
 * 1.9 ms; a sample that favoured recent delays would read higher, one
 * that kept the first 65,536 would read about 0.03 ms.  Min and max are
 * exact. */
static void test_perf_owd_reservoir_is_uniform(void **state) {
  (void)state;
  perf_owd o;
  memset(&o, 0, sizeof(o));
  const uint32_t n = 2000000;
  for (uint32_t i = 0; i < n; i++) {
    perf_owd_add(&o, (double)i * 1e-9); /* i ns: 0 .. 2 ms */
  }
  double ms[PERF_OWD_N];
  assert_int_equal(perf_owd_summary(&o, ms), 1);
  printf("min %.4f p50 %.4f p95 %.4f p99 %.4f max %.4f ms\n", ms[0], ms[1],
         ms[2], ms[3], ms[4]);
  assert_true(ms[0] == 0.0);
  assert_true(fabs(ms[4] - (double)(n - 1) * 1e-6) < 1e-9);
  /* 65,536 samples: a percentile's rank is within about +-0.5 % of n
   * (several standard deviations), i.e. +-0.01 ms here */
  assert_true(fabs(ms[1] - 1.00) < 0.02);
  assert_true(fabs(ms[2] - 1.90) < 0.02);
  assert_true(fabs(ms[3] - 1.98) < 0.02);
  perf_owd_reset(&o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_perf_owd_exact_below_cap),
      cmocka_unit_test(test_perf_owd_reservoir_is_uniform),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

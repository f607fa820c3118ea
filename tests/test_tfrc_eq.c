/* SPDX-License-Identifier: MIT */
/*
 * TFRC throughput equation (lib/tfrc_eq.h): RFC 5348 §3.1 against an
 * independent long-double evaluation of the formula as printed and against
 * hand-computed constants; the §6.3.1 inverse; t_ipi never 0 (§4.6);
 * extremes without overflow or UB.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>

#include <cmocka.h>

#include "tfrc_eq.h"

#define US 1000ULL
#define MS UDCCP_NS_PER_MS
#define S UDCCP_NS_PER_S

/* RFC 5348 §3.1, written exactly as printed, in long double, with R and
 * t_RTO in seconds:  X = s / (R*sqrt(2*b*p/3) + t_RTO*(3*sqrt(3*b*p/8))
 *                              * p * (1+32*p^2)) */
static long double ref_x(long double s, long double r_s, long double rto_s,
                         long double b, long double p) {
  return s / (r_s * sqrtl(2.0L * b * p / 3.0L) +
              rto_s * (3.0L * sqrtl(3.0L * b * p / 8.0L)) * p *
                  (1.0L + 32.0L * p * p));
}

static double relerr(long double got, long double want) {
  return (double)fabsl((got - want) / want);
}

static void assert_rel(double got, double want, double tol) {
  double e = fabs((got - want) / want);
  if (!(e <= tol)) {
    fprintf(stderr, "got %.17g want %.17g relerr %.3g > %.3g\n", got, want,
            e, tol);
  }
  assert_true(e <= tol);
}

/* p = 1e-6 ... 0.9 (log-spaced, 241 points), R = 10 us ... 2 s (log, 54
 * points), three segment sizes: the library (one sqrt, factored) must agree
 * with the formula as printed to 1e-12. */
static void test_rfc5348_3_1_equation_matches_formula(void **state) {
  static const uint32_t sizes[] = {1, 1460, 65535};
  double worst = 0.0;
  size_t si;
  int ip, ir;
  (void)state;
  for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
    for (ip = 0; ip <= 240; ip++) {
      double p = pow(10.0, -6.0 + ip * (log10(0.9) + 6.0) / 240.0);
      for (ir = 0; ir <= 53; ir++) {
        udccp_tstamp r = (udccp_tstamp)(10.0 * US * pow(10.0, ir / 10.0));
        long double rs = (long double)r / 1e9L;
        double x = udccp_tfrc_calc_x(sizes[si], r, p);
        long double want = ref_x(sizes[si], rs, 4.0L * rs, 1.0L, p);
        double e = relerr(x, want);
        if (e > worst) {
          worst = e;
        }
        assert_true(e < 1e-12);
      }
    }
  }
  printf("worst relative error vs long-double formula: %.3g\n", worst);
}

/* Values computed by hand (40-digit decimal arithmetic, each term shown),
 * independent of both implementations. */
static void test_rfc5348_3_1_hand_computed_values(void **state) {
  (void)state;
  /* s=1460, R=100 ms, p=0.01: sqrt(2p/3) = 0.08164965809277260327,
   * 12*sqrt(3p/8)*p*(1+32p^2) = 0.00737198432988025280, f =
   * 0.08902164242265285608, X = 1460/(0.1*f) = 164005.06216996977053 */
  assert_rel(udccp_tfrc_calc_x(1460, 100 * MS, 0.01), 164005.06216996977053,
             1e-14);
  /* s=1000, R=1 s, p=1: f = 0.81649658092772603273 + 242.49948453553463172
   * = 243.31598111646235775, X = 4.1098821187637216413 */
  assert_rel(udccp_tfrc_calc_x(1000, 1 * S, 1.0), 4.1098821187637216413,
             1e-14);
  /* s=1460, R=1 ms, p=1e-6: f = 0.00081649658092772603 + 7.3484692285847e-9
   * = 0.00081650392939695462, X = 1788111419.2289464362 */
  assert_rel(udccp_tfrc_calc_x(1460, 1 * MS, 1e-6), 1788111419.2289464362,
             1e-14);
  /* s=1460, R=10 us, p=0.1: f = 0.25819888974716112568 +
   * 0.30674028101962741731 = 0.56493917076678854298, X =
   * 258434903.35753330221 */
  assert_rel(udccp_tfrc_calc_x(1460, 10 * US, 0.1), 258434903.35753330221,
             1e-14);
  /* f(p) itself at p = 0.01 */
  assert_rel(udccp_tfrc_f(0.01), 0.08902164242265285608, 1e-15);
}

/* The general form with b and t_RTO (§3.1: b = 2 for delayed acks, t_RTO =
 * max(4R, 1 s) as allowed). */
static void test_rfc5348_3_1_general_form_b_and_t_rto(void **state) {
  int ip;
  (void)state;
  for (ip = 0; ip <= 60; ip++) {
    double p = pow(10.0, -6.0 + ip * 0.1);
    if (p > 1.0) {
      p = 1.0;
    }
    assert_true(relerr(udccp_tfrc_calc_x_ext(1460, 50 * MS, 1 * S, 2.0, p),
                       ref_x(1460, 0.05L, 1.0L, 2.0L, p)) < 1e-12);
    assert_true(relerr(udccp_tfrc_calc_x_ext(100, 3 * MS, 12 * MS, 1.0, p),
                       ref_x(100, 0.003L, 0.012L, 1.0L, p)) < 1e-12);
    /* with b = 1 and t_RTO = 4R it is the simplified equation */
    assert_rel(udccp_tfrc_calc_x_ext(1460, 7 * MS, 28 * MS, 1.0, p),
               udccp_tfrc_calc_x(1460, 7 * MS, p), 1e-13);
  }
}

/* X falls strictly as p rises, and scales as s/R. */
static void test_rfc5348_3_1_monotonic_and_scaling(void **state) {
  double prev = INFINITY;
  int ip;
  (void)state;
  for (ip = 0; ip <= 1000; ip++) {
    double p = pow(10.0, -6.0 + ip * 0.006);
    double x = udccp_tfrc_calc_x(1460, 20 * MS, p > 1.0 ? 1.0 : p);
    if (p <= 1.0) {
      assert_true(x < prev);
    }
    prev = x;
  }
  assert_rel(udccp_tfrc_calc_x(2920, 20 * MS, 0.02),
             2.0 * udccp_tfrc_calc_x(1460, 20 * MS, 0.02), 1e-15);
  assert_rel(udccp_tfrc_calc_x(1460, 40 * MS, 0.02),
             0.5 * udccp_tfrc_calc_x(1460, 20 * MS, 0.02), 1e-15);
}

/* p = 0 has no finite X: the sentinel, never a division by zero; p > 1 is
 * p = 1; RTT 0 stays finite. */
static void test_rfc5348_3_1_p_zero_is_infinite(void **state) {
  (void)state;
  assert_true(isinf(udccp_tfrc_calc_x(1460, 100 * MS, 0.0)));
  assert_true(isinf(udccp_tfrc_calc_x(1460, 100 * MS, -0.5)));
  assert_true(isinf(udccp_tfrc_calc_x(1460, 100 * MS, NAN)));
  assert_true(isinf(udccp_tfrc_calc_x_ext(1460, 100 * MS, S, 1, 0.0)));
  assert_true(udccp_tfrc_calc_x(1460, 100 * MS, 5.0) ==
              udccp_tfrc_calc_x(1460, 100 * MS, 1.0));
  assert_true(isfinite(udccp_tfrc_calc_x(1460, 0, 0.5)));
  assert_true(udccp_tfrc_calc_x(1460, 0, 0.5) ==
              udccp_tfrc_calc_x(1460, 1, 0.5));
  assert_true(udccp_tfrc_calc_x(0, 100 * MS, 0.5) == 0.0);
  assert_true(udccp_tfrc_x_to_u64(UDCCP_TFRC_X_INF) == UINT64_MAX);
  assert_true(udccp_tfrc_f(0.0) == 0.0);
}

/* The whole input box: s 1..65535, R 1 ns..60 s, p down to 1e-300: finite
 * and positive where it should be, and integer conversion saturates. */
static void test_rfc5348_3_1_extremes_no_overflow(void **state) {
  double hi, lo;
  (void)state;
  hi = udccp_tfrc_calc_x(65535, 1, 1e-6); /* ~8e16 bytes/s */
  assert_true(isfinite(hi) && hi > 8.0e16 && hi < 8.1e16);
  assert_true(udccp_tfrc_x_to_u64(hi) > 80000000000000000ULL);
  hi = udccp_tfrc_calc_x(65535, 1, 1e-300);
  assert_true(isfinite(hi) && hi > 1e150);
  assert_true(udccp_tfrc_x_to_u64(hi) == UINT64_MAX);
  lo = udccp_tfrc_calc_x(1, 60 * S, 1.0); /* one byte per ~4 hours */
  assert_true(lo > 0.0 && lo < 1e-4);
  assert_true(udccp_tfrc_x_to_u64(lo) == 0);
  assert_true(udccp_tfrc_x_to_u64(-1.0) == 0);
  assert_true(udccp_tfrc_x_to_u64(NAN) == 0);
  assert_true(udccp_tfrc_x_to_u64(1.25e9) == 1250000000ULL);
  /* 10 Gbit/s and beyond are ordinary values */
  assert_true(udccp_tfrc_calc_x(1460, 10 * US, 1e-6) > 1.25e9);
}

/* §6.3.1: for each (p, R), X(p) -> p again, to 1e-9 in both p and X. */
static void test_rfc5348_6_3_1_inverse_roundtrip(void **state) {
  double worst = 0.0;
  int ip, ir;
  (void)state;
  for (ip = 0; ip <= 120; ip++) {
    double p = pow(10.0, -6.0 + ip * 0.05);
    if (p > 1.0) {
      p = 1.0;
    }
    for (ir = 0; ir <= 10; ir++) {
      udccp_tstamp r = (udccp_tstamp)(10.0 * US * pow(10.0, ir * 0.53));
      double x = udccp_tfrc_calc_x(1460, r, p);
      double p2 = udccp_tfrc_calc_p(1460, r, x);
      double e = fabs(p2 - p) / p;
      if (e > worst) {
        worst = e;
      }
      assert_true(e < 1e-9);
      assert_rel(udccp_tfrc_calc_x(1460, r, p2), x, 1e-9);
      /* the packets/s form (s = 1) gives the same p */
      assert_true(fabs(udccp_tfrc_calc_p(1, r, x / 1460.0) - p) / p < 1e-9);
    }
  }
  printf("worst relative error of the inverse: %.3g\n", worst);
}

/* §6.3.1 inverse at its bounds. */
static void test_rfc5348_6_3_1_inverse_bounds(void **state) {
  double p;
  (void)state;
  /* a target below X(p=1) cannot be reached: p = 1 */
  assert_true(udccp_tfrc_calc_p(1460, 100 * MS,
                                0.5 * udccp_tfrc_calc_x(1460, 100 * MS, 1)) ==
              1.0);
  assert_true(udccp_tfrc_calc_p(1460, 100 * MS, 0.0) == 1.0);
  assert_true(udccp_tfrc_calc_p(1460, 100 * MS, -3.0) == 1.0);
  assert_true(udccp_tfrc_calc_p(1460, 100 * MS, UDCCP_TFRC_X_INF) == 0.0);
  assert_true(udccp_tfrc_calc_p(1460, 100 * MS, NAN) == 0.0);
  /* 10 Gbit/s at 10 us RTT: p is tiny but exact */
  p = udccp_tfrc_calc_p(1460, 10 * US, 1.25e9);
  assert_true(p > 0.01 && p < 0.03); /* f = s/(R X) = 0.1168 */
  assert_rel(udccp_tfrc_calc_x(1460, 10 * US, p), 1.25e9, 1e-9);
  /* far beyond: p underflows towards 0, never negative or NaN */
  p = udccp_tfrc_calc_p(1, 60 * S, 1e300);
  assert_true(p >= 0.0 && p < 1e-300);
  assert_true(udccp_tfrc_f_inv(0.0) == 0.0);
  assert_true(udccp_tfrc_f_inv(1e9) == 1.0);
}

/* §4.6: t_ipi = s/X in ns, never 0 -- Linux's CCID 3 crashed when it
 * truncated to 0 at high rates; here 10 Gbit/s with 1-byte packets. */
static void test_rfc5348_4_6_t_ipi_never_zero(void **state) {
  (void)state;
  assert_true(udccp_tfrc_t_ipi(1, 1.25e9) == 1);          /* 0.8 ns */
  assert_true(udccp_tfrc_t_ipi(1460, 1.25e9) == 1168);    /* 1168 ns */
  assert_true(udccp_tfrc_t_ipi(1, 1e18) == 1);
  assert_true(udccp_tfrc_t_ipi(1460, UDCCP_TFRC_X_INF) == 1);
  assert_true(udccp_tfrc_t_ipi(1460, 0.0) == UDCCP_TFRC_T_IPI_MAX);
  assert_true(udccp_tfrc_t_ipi(1460, NAN) == UDCCP_TFRC_T_IPI_MAX);
  assert_true(udccp_tfrc_t_ipi(65535, 1e-12) == UDCCP_TFRC_T_IPI_MAX);
  /* 1 packet of 1460 bytes per second: exactly 1 s */
  assert_true(udccp_tfrc_t_ipi(1460, 1460.0) == S);
  assert_true(udccp_tfrc_bytes_to_ns(0, 5.0) == 0);
  assert_true(udccp_tfrc_bytes_to_ns(2920, 1460.0) == 2 * S);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc5348_3_1_equation_matches_formula),
      cmocka_unit_test(test_rfc5348_3_1_hand_computed_values),
      cmocka_unit_test(test_rfc5348_3_1_general_form_b_and_t_rto),
      cmocka_unit_test(test_rfc5348_3_1_monotonic_and_scaling),
      cmocka_unit_test(test_rfc5348_3_1_p_zero_is_infinite),
      cmocka_unit_test(test_rfc5348_3_1_extremes_no_overflow),
      cmocka_unit_test(test_rfc5348_6_3_1_inverse_roundtrip),
      cmocka_unit_test(test_rfc5348_6_3_1_inverse_bounds),
      cmocka_unit_test(test_rfc5348_4_6_t_ipi_never_zero),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

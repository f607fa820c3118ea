/* SPDX-License-Identifier: MIT */
/*
 * TFRC throughput equation, RFC 5348 §3.1, and its inverse for §6.3.1.
 */
#include "tfrc_eq.h"

#include <float.h>
#include <math.h>

/* f(p) = sqrt(p) * (C1 + C2*p*(1 + 32p^2)) with C1 = sqrt(2/3) and
 * C2 = 12*sqrt(3/8): the RFC 5348 §8.1 form with one square root. */
#define TFRC_C1 0.81649658092772603273 /* sqrt(2/3) */
#define TFRC_C2 7.34846922834953429460 /* 12*sqrt(3/8) = 3*sqrt(6) */

static double clamp_p(double p) {
  if (!(p > 0.0)) { /* also NaN */
    return 0.0;
  }
  return p > 1.0 ? 1.0 : p;
}

static double ns_to_s(udccp_tstamp t) {
  /* RFC 5348 leaves R > 0 to the caller; 0 would divide by zero. */
  return (double)(t == 0 ? 1 : t) * 1e-9;
}

double udccp_tfrc_f(double p) {
  p = clamp_p(p);
  return sqrt(p) * (TFRC_C1 + TFRC_C2 * p * (1.0 + 32.0 * p * p));
}

double udccp_tfrc_calc_x(uint32_t s, udccp_tstamp rtt, double p) {
  double f;
  if (!(p > 0.0)) {
    return UDCCP_TFRC_X_INF; /* no loss event: the equation does not bound X */
  }
  f = udccp_tfrc_f(p);
  if (!(f > 0.0)) { /* p so small that sqrt underflowed */
    return UDCCP_TFRC_X_INF;
  }
  return (double)s / (ns_to_s(rtt) * f);
}

double udccp_tfrc_calc_x_ext(double s, udccp_tstamp rtt, udccp_tstamp t_rto,
                             double b, double p) {
  double den;
  if (!(p > 0.0)) {
    return UDCCP_TFRC_X_INF;
  }
  p = clamp_p(p);
  if (!(b >= 1.0)) {
    b = 1.0;
  }
  den = ns_to_s(rtt) * sqrt(2.0 * b * p / 3.0) +
        ns_to_s(t_rto) * (3.0 * sqrt(3.0 * b * p / 8.0)) * p *
            (1.0 + 32.0 * p * p);
  if (!(den > 0.0)) {
    return UDCCP_TFRC_X_INF;
  }
  return s / den;
}

double udccp_tfrc_f_inv(double fval) {
  double u, f1 = udccp_tfrc_f(1.0);
  int i;
  if (!(fval > 0.0)) {
    return 0.0;
  }
  if (fval >= f1) {
    return 1.0;
  }
  /* g(u) >= C1*u, so the root lies at or below fval/C1; g is convex and
   * increasing, so Newton from an upper bound decreases monotonically to
   * the root. */
  u = fval / TFRC_C1;
  if (u > 1.0) {
    u = 1.0;
  }
  for (i = 0; i < 64; i++) {
    double u2 = u * u;
    double g = u * (TFRC_C1 + TFRC_C2 * u2 * (1.0 + 32.0 * u2 * u2));
    double dg = TFRC_C1 + 3.0 * TFRC_C2 * u2 + 224.0 * TFRC_C2 * u2 * u2 * u2;
    double step = (g - fval) / dg;
    if (!(step > 1e-15 * u)) { /* converged (or rounding made it <= 0) */
      if (step > 0.0) {
        u -= step;
      }
      break;
    }
    u -= step;
  }
  return u * u;
}

double udccp_tfrc_calc_p(uint32_t s, udccp_tstamp rtt, double x_target) {
  double fval;
  if (isnan(x_target) || isinf(x_target)) {
    return 0.0;
  }
  if (!(x_target > 0.0) || s == 0) {
    return 1.0;
  }
  /* X = s / (R f(p))  <=>  f(p) = s / (R X) */
  fval = (double)s / (ns_to_s(rtt) * x_target);
  if (isinf(fval)) {
    return 1.0;
  }
  return udccp_tfrc_f_inv(fval);
}

uint64_t udccp_tfrc_x_to_u64(double x) {
  if (!(x > 0.0)) {
    return 0;
  }
  /* 2^64 as a double; anything at or above it does not fit. */
  if (x >= 18446744073709551616.0) {
    return UINT64_MAX;
  }
  return (uint64_t)(x + 0.5 >= 18446744073709551616.0 ? x : x + 0.5);
}

udccp_tstamp udccp_tfrc_bytes_to_ns(double bytes, double x) {
  double t;
  if (!(bytes > 0.0)) {
    return 0;
  }
  if (!(x > 0.0)) {
    return UDCCP_TFRC_T_IPI_MAX;
  }
  t = bytes / x * 1e9 + 0.5;
  if (!(t < (double)UDCCP_TFRC_T_IPI_MAX)) {
    return UDCCP_TFRC_T_IPI_MAX;
  }
  return (udccp_tstamp)t;
}

udccp_tstamp udccp_tfrc_t_ipi(double s, double x) {
  udccp_tstamp t;
  if (!(x > 0.0)) {
    return UDCCP_TFRC_T_IPI_MAX;
  }
  t = udccp_tfrc_bytes_to_ns(s, x);
  /* RFC 5348 §4.6: a zero interval would mean unlimited bursts (and Linux
   * divided by it); 1 ns is the timer resolution of udccp_tstamp. */
  return t == 0 ? 1 : t;
}

/* SPDX-License-Identifier: MIT */
/*
 * The TFRC throughput equation (RFC 5348 §3.1) and its inverse (§6.3.1).
 *
 * Everything is computed in double precision from the closed form; there is
 * no lookup table (Linux's 500-entry table gave errors of several percent
 * between its steps).  Units: s in bytes, times in ns (udccp_tstamp), rates
 * in bytes per second as double.  A rate may be UDCCP_TFRC_X_INF ("no
 * limit"), which is what p <= 0 (no loss seen) yields; callers that need
 * an integer use udccp_tfrc_x_to_u64(), which saturates.
 */
#ifndef UDCCP_TFRC_EQ_H
#define UDCCP_TFRC_EQ_H

#include <math.h>
#include <stdint.h>

#include <udccp/udccp.h>

/* The "infinite" rate: returned for p <= 0 (or NaN), for which the
 * equation has no finite value.  Compare with isinf(). */
#define UDCCP_TFRC_X_INF ((double)INFINITY)

/* f(p) = sqrt(2p/3) + 12*sqrt(3p/8)*p*(1 + 32p^2): the denominator of the
 * equation over R, for b = 1 and t_RTO = 4R (RFC 5348 §8.1).  p is clamped
 * to [0, 1]; f(0) = 0. */
double udccp_tfrc_f(double p);

/* X_Bps for segment size s (bytes), round-trip time rtt (ns) and loss event
 * rate p, with b = 1 and t_RTO = 4*R (RFC 5348 §3.1 SHOULD/RECOMMENDED).
 * Returns bytes/s.  p <= 0 or NaN: UDCCP_TFRC_X_INF.  p > 1 is treated as 1.
 * rtt = 0 is treated as 1 ns (the result stays finite).  s = 0 gives 0.
 * No overflow is possible: the largest finite result (s = 65535, rtt = 1 ns,
 * p = DBL_MIN) is about 1e172. */
double udccp_tfrc_calc_x(uint32_t s, udccp_tstamp rtt, double p);

/* The general form of RFC 5348 §3.1 with explicit t_RTO (ns) and b (packets
 * acknowledged per ack, >= 1): X = s / (R*sqrt(2bp/3) +
 * t_RTO*3*sqrt(3bp/8)*p*(1+32p^2)).  Same conventions as above; b < 1 is
 * treated as 1; rtt and t_rto of 0 are treated as 1 ns. */
double udccp_tfrc_calc_x_ext(double s, udccp_tstamp rtt, udccp_tstamp t_rto,
                             double b, double p);

/* Inverse of f on [0, 1]: returns the p in [0, 1] with f(p) = fval, or 1 when
 * fval >= f(1), 0 when fval <= 0.  Newton's method on the polynomial
 * g(u) = c1*u + c2*u^3 + 32*c2*u^7 with u = sqrt(p), which is increasing
 * and convex for u > 0: started from the upper bound u0 = fval/c1 it
 * converges monotonically from above without overshooting.  At most 64
 * iterations; it stops when a step changes u by less than 1e-15*u, so the
 * relative error of the returned p is below 1e-12 (tests check
 * |X(p) - X_target| / X_target < 1e-9 across the whole range). */
double udccp_tfrc_f_inv(double fval);

/* RFC 5348 §6.3.1: the loss event rate p for which the equation (b = 1,
 * t_RTO = 4R) gives the rate x_target (bytes/s, or packets/s with s = 1) at
 * round-trip time rtt (ns).  Returns a value in [0, 1]: 1 if even p = 1
 * allows more than x_target (or x_target <= 0); 0 if x_target is
 * UDCCP_TFRC_X_INF or NaN.  A p smaller than DBL_MIN cannot be represented
 * and becomes 0; callers turn p into a loss interval 1/p and clamp it. */
double udccp_tfrc_calc_p(uint32_t s, udccp_tstamp rtt, double x_target);

/* A rate as an integer: rounds to nearest, saturates at UINT64_MAX (also
 * for UDCCP_TFRC_X_INF); negative or NaN gives 0. */
uint64_t udccp_tfrc_x_to_u64(double x);

/* t_ipi = s / x in ns (RFC 5348 §4.6), rounded to nearest, never 0: results
 * below 1 ns are raised to 1 ns (at 10 Gbit/s a 1-byte packet takes 0.8 ns;
 * Linux's CCID 3 divided by a t_ipi that truncated to 0).  x <= 0 or NaN,
 * or a result above UDCCP_TFRC_T_IPI_MAX, gives UDCCP_TFRC_T_IPI_MAX;
 * x = UDCCP_TFRC_X_INF gives 1. */
#define UDCCP_TFRC_T_IPI_MAX (3600ULL * UDCCP_NS_PER_S)
udccp_tstamp udccp_tfrc_t_ipi(double s, double x);

/* The time in ns to send `bytes` at rate x (bytes/s), e.g. 2*s/X for the
 * nofeedback timer: rounded to nearest, saturating at UDCCP_TFRC_T_IPI_MAX
 * like udccp_tfrc_t_ipi() but without its 1 ns floor (0 bytes -> 0). */
udccp_tstamp udccp_tfrc_bytes_to_ns(double bytes, double x);

#endif /* UDCCP_TFRC_EQ_H */

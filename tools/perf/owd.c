/* SPDX-License-Identifier: MIT */
/*
 * udccp-perf: one-way delay of the delivered datagrams (issue 17): arrival
 * time minus the send time the DATA carries, both read from
 * CLOCK_MONOTONIC.  The two ends share that clock on one host (loopback,
 * network namespaces); between hosts the figures include the clocks'
 * offset, but differences (p95 - min: the queueing) stay right as long
 * as the clocks do not drift apart during the test.
 *
 * Percentiles come from a uniform sample of at most PERF_OWD_CAP delays
 * per stream (reservoir sampling, Vitter's algorithm R), 256 KiB: exact
 * up to that many datagrams, then within a fraction of a percentile rank
 * (p99 of 65,536 samples: about +-0.04 % of the ranks).  Min and max are
 * exact.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define PERF_OWD_CAP 65536u

void perf_owd_reset(perf_owd *o) {
  free(o->s);
  memset(o, 0, sizeof(*o));
}

/* splitmix64: the reservoir's choice of slot (no quality needed beyond
 * uniformity; seeded per stream so runs are repeatable) */
static uint64_t next_rand(perf_owd *o) {
  uint64_t z = (o->rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void perf_owd_add(perf_owd *o, double delay_s) {
  if (o->n == 0) {
    o->base = delay_s; /* samples are kept relative to it, as floats */
    o->min = o->max = delay_s;
  }
  o->min = delay_s < o->min ? delay_s : o->min;
  o->max = delay_s > o->max ? delay_s : o->max;
  o->n++;
  float v = (float)((delay_s - o->base) * 1e6); /* microseconds */
  if (o->len < PERF_OWD_CAP) {
    if (o->len == o->cap) {
      uint32_t cap = o->cap ? o->cap * 2 : 1024;
      float *s = realloc(o->s, cap * sizeof(*s));
      if (s == NULL) {
        return; /* out of memory: the percentiles use what is kept */
      }
      o->s = s;
      o->cap = cap;
    }
    o->s[o->len++] = v;
    return;
  }
  /* keep it with probability CAP / n: j uniform in [0, n), by a
   * multiply-high (Lemire) rather than a 64-bit division per datagram */
#ifdef __SIZEOF_INT128__
  uint64_t j = (uint64_t)(((unsigned __int128)next_rand(o) * o->n) >> 64);
#else
  uint64_t j = next_rand(o) % o->n;
#endif
  if (j < PERF_OWD_CAP) {
    o->s[j] = v;
  }
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

int perf_owd_summary(perf_owd *o, double ms[PERF_OWD_N]) {
  if (o->n == 0 || o->len == 0) {
    return 0;
  }
  if (o->summed_n == o->n) {
    memcpy(ms, o->summary, sizeof(o->summary));
    return 1;
  }
  qsort(o->s, o->len, sizeof(*o->s), cmp_float);
  static const double q[3] = {0.50, 0.95, 0.99};
  ms[0] = o->min * 1e3;
  for (int i = 0; i < 3; i++) {
    /* nearest rank: the smallest value with at least q of them <= it */
    size_t k = (size_t)ceil(q[i] * (double)o->len);
    k = k == 0 ? 0 : k - 1;
    ms[1 + i] = (o->base + (double)o->s[k] / 1e6) * 1e3;
  }
  ms[4] = o->max * 1e3;
  memcpy(o->summary, ms, sizeof(o->summary));
  o->summed_n = o->n;
  return 1;
}

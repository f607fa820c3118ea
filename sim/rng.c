/* SPDX-License-Identifier: MIT */
/*
 * xoshiro256** (Blackman and Vigna, 2018), seeded with splitmix64 as its
 * authors recommend: a zero state is impossible and nearby seeds give
 * unrelated sequences.
 */
#include "sim_rng.h"

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void sim_rng_seed(sim_rng *r, uint64_t seed, uint64_t stream) {
  /* Mixing the stream in through a second splitmix round keeps streams of
   * neighbouring seeds apart (seed 1 stream 2 != seed 2 stream 1). */
  uint64_t x = seed;
  uint64_t base = splitmix64(&x);
  x = base ^ (stream * 0xD1B54A32D192ED03ULL);
  for (int i = 0; i < 4; i++) {
    r->s[i] = splitmix64(&x);
  }
}

uint64_t sim_rng_next(sim_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double sim_rng_uniform(sim_rng *r) {
  return (double)(sim_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

int sim_rng_chance(sim_rng *r, double p) {
  if (p <= 0.0) {
    return 0;
  }
  if (p >= 1.0) {
    return 1;
  }
  return sim_rng_uniform(r) < p;
}

uint64_t sim_rng_below(sim_rng *r, uint64_t n) {
  if (n == 0) {
    return 0;
  }
  /* Rejection sampling removes the modulo bias. */
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t v;
  do {
    v = sim_rng_next(r);
  } while (v >= limit);
  return v % n;
}

void sim_rng_bytes(sim_rng *r, uint8_t *dest, size_t len) {
  while (len > 0) {
    uint64_t v = sim_rng_next(r);
    for (int i = 0; i < 8 && len > 0; i++, len--) {
      *dest++ = (uint8_t)(v >> (8 * i));
    }
  }
}

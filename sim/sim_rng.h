/* SPDX-License-Identifier: MIT */
/*
 * The simulator's random numbers: xoshiro256** seeded through splitmix64.
 * Every random choice in sim/ comes from one of these generators, each
 * seeded from --seed, so that a run is a pure function of its seed.
 */
#ifndef UDCCP_SIM_RNG_H
#define UDCCP_SIM_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_rng {
  uint64_t s[4];
} sim_rng;

/* Seeds r from seed and a stream number: distinct streams are independent
 * sequences, so adding a consumer of one stream does not shift another. */
void sim_rng_seed(sim_rng *r, uint64_t seed, uint64_t stream);

/* Next 64 random bits. */
uint64_t sim_rng_next(sim_rng *r);

/* Uniform double in [0, 1), 53 bits of precision. */
double sim_rng_uniform(sim_rng *r);

/* 1 with probability p (p <= 0: never; p >= 1: always). */
int sim_rng_chance(sim_rng *r, double p);

/* Uniform integer in [0, n); n = 0 returns 0. */
uint64_t sim_rng_below(sim_rng *r, uint64_t n);

/* Fills dest with len random bytes. */
void sim_rng_bytes(sim_rng *r, uint8_t *dest, size_t len);

#endif /* UDCCP_SIM_RNG_H */

/* SPDX-License-Identifier: MIT */
/*
 * The endpoint's random source: the core's seeded generator (udccp_csprng,
 * SipHash-2-4 in counter mode, rekeyed after every fill) under a 128-bit
 * seed from getrandom(2), drawn once per endpoint.  Its outputs are
 * unpredictable without the seed, which is what initial sequence numbers
 * (RFC 4340 §7.2: "SHOULD be chosen randomly", against sequence-number
 * guessing) and ephemeral ports need, at the price of one system call per
 * endpoint instead of one per connection (issue 13).  An endpoint belongs
 * to one thread, so the generator needs no lock.
 */
#include "endpoint.h"

void udccp_io_rng_seed(udccp_csprng *r) {
  uint8_t seed[16];
  udccp_io_rand(seed, sizeof(seed), NULL);
  udccp_csprng_seed(r, seed);
}

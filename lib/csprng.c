/* SPDX-License-Identifier: MIT */
/*
 * A seeded CSPRNG for the application's udccp_settings.rand (issue 13: no
 * getrandom(2) per connection).  The library still has no randomness of
 * its own: the caller seeds it once (e.g. from getrandom) and owns it.
 *
 * Construction: SipHash-2-4 (siphash.h), a PRF with a 128-bit key, in
 * counter mode: block i is PRF(key, i).  Unpredictable outputs are what
 * RFC 4340 §7.2 asks of initial sequence numbers (the same reasoning as
 * RFC 6528 for TCP).  After every fill the key is replaced by two further
 * PRF outputs ("fast key erasure"), so that the state captured later does
 * not reveal sequence numbers already chosen.
 */
#include <string.h>

#include <udccp/udccp.h>

#include "siphash.h"

/* Domain separation between output blocks and the next key's halves. */
#define CTR_OUT 0u
#define CTR_KEY 1u

static uint64_t block(const udccp_csprng *rng, uint64_t ctr, uint8_t domain) {
  uint8_t msg[9];
  memcpy(msg, &ctr, 8);
  msg[8] = domain;
  return udccp_siphash24(rng->key, msg, sizeof(msg));
}

void udccp_csprng_seed(udccp_csprng *rng, const uint8_t seed[16]) {
  if (rng == NULL || seed == NULL) {
    return;
  }
  memcpy(rng->key, seed, sizeof(rng->key));
  rng->ctr = 0;
}

void udccp_csprng_fill(uint8_t *dest, size_t len, void *user_data) {
  udccp_csprng *rng = user_data;
  uint64_t k0, k1;
  if (rng == NULL || dest == NULL) {
    /* No generator: nothing to draw from.  udccp_settings_check() refuses
     * settings that would call us so; zeros rather than stale bytes. */
    if (dest != NULL) {
      memset(dest, 0, len);
    }
    return;
  }
  while (len > 0) {
    uint64_t v = block(rng, rng->ctr++, CTR_OUT);
    size_t n = len < 8 ? len : 8;
    memcpy(dest, &v, n);
    dest += n;
    len -= n;
  }
  k0 = block(rng, rng->ctr, CTR_KEY);
  k1 = block(rng, rng->ctr + 1, CTR_KEY);
  rng->ctr += 2;
  memcpy(rng->key, &k0, 8);
  memcpy(rng->key + 8, &k1, 8);
}

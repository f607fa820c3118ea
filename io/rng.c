/*
 * The endpoint's random source: SipHash-2-4 (lib/siphash.h) in counter
 * mode under a 128-bit key from getrandom(2), drawn once per endpoint.
 * A keyed PRF over distinct inputs gives outputs an attacker without the
 * key cannot predict, which is what initial sequence numbers (RFC 4340
 * §7.2: "SHOULD be chosen randomly", against sequence-number guessing)
 * and ephemeral ports need, at the price of one system call per endpoint
 * instead of one per connection (issue 13: handshakes without a getrandom
 * each).  An endpoint belongs to one thread, so the counter needs no lock.
 */
#include <string.h>

#include "endpoint.h"
#include "siphash.h"

void udccp_io_rng_seed(udccp_io_rng *r) {
  udccp_io_rand(r->key, sizeof(r->key), NULL);
  r->ctr = 0;
}

void udccp_io_rng_fill(uint8_t *dest, size_t len, void *user_data) {
  udccp_io_rng *r = user_data;
  while (len > 0) {
    uint64_t ctr = r->ctr++;
    uint64_t v = udccp_siphash24(r->key, &ctr, sizeof(ctr));
    size_t n = len < sizeof(v) ? len : sizeof(v);
    memcpy(dest, &v, n);
    dest += n;
    len -= n;
  }
}

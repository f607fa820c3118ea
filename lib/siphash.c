/* SPDX-License-Identifier: MIT */
/*
 * SipHash-2-4, from the description in the SipHash paper (§2): four 64-bit
 * words of state initialised from the key and four constants, c = 2
 * SipRounds per 8-byte message word, d = 4 SipRounds of finalisation.
 * Words are read little-endian, so the result is the same on any host.
 */
#include "siphash.h"

static uint64_t rotl64(uint64_t x, unsigned b) {
  return (x << b) | (x >> (64u - b));
}

static uint64_t load_le64(const uint8_t *p) {
  uint64_t v = 0;
  int i;

  for (i = 7; i >= 0; i--) {
    v = (v << 8) | p[i];
  }
  return v;
}

static void sipround(uint64_t v[4]) {
  v[0] += v[1];
  v[1] = rotl64(v[1], 13);
  v[1] ^= v[0];
  v[0] = rotl64(v[0], 32);
  v[2] += v[3];
  v[3] = rotl64(v[3], 16);
  v[3] ^= v[2];
  v[0] += v[3];
  v[3] = rotl64(v[3], 21);
  v[3] ^= v[0];
  v[2] += v[1];
  v[1] = rotl64(v[1], 17);
  v[1] ^= v[2];
  v[2] = rotl64(v[2], 32);
}

static void compress(uint64_t v[4], uint64_t m) {
  v[3] ^= m;
  sipround(v);
  sipround(v);
  v[0] ^= m;
}

uint64_t udccp_siphash24(const uint8_t key[UDCCP_SIPHASH_KEYLEN],
                         const void *msg, size_t len) {
  const uint8_t *p = msg;
  uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
  uint64_t v[4];
  uint64_t last;
  size_t i, rem = len & 7u;

  /* The constants spell "somepseudorandomlygeneratedbytes". */
  v[0] = k0 ^ 0x736f6d6570736575ULL;
  v[1] = k1 ^ 0x646f72616e646f6dULL;
  v[2] = k0 ^ 0x6c7967656e657261ULL;
  v[3] = k1 ^ 0x7465646279746573ULL;

  for (i = 0; i + 8 <= len; i += 8) {
    compress(v, load_le64(p + i));
  }
  /* The final word carries the message length mod 256 in its top byte and
   * the leftover bytes, little-endian, below it. */
  last = (uint64_t)(len & 0xffu) << 56;
  while (rem > 0) {
    rem--;
    last |= (uint64_t)p[i + rem] << (8 * rem);
  }
  compress(v, last);

  v[2] ^= 0xff;
  sipround(v);
  sipround(v);
  sipround(v);
  sipround(v);
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}

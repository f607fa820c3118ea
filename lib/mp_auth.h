/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP keys and authentication (RFC 9897 §3.2.4 MP_KEY, §3.2.6
 * MP_HMAC, §3.3 handshakes): the derived keys and the HMAC messages of
 * MP_JOIN, MP_ADDADDR and MP_REMOVEADDR.  Builds the messages (libc
 * only); the HMAC itself is mp_hmac.c's.
 *
 * Key Type 0 (plain text) is the one implemented: its key is 8 bytes and
 *   Host A: d-keyA = KeyA + KeyB,  Host B: d-keyB = KeyB + KeyA
 * (the local key first, §3.2.4).  Every HMAC is truncated to 20 bytes.
 */
#ifndef UDCCP_MP_AUTH_H
#define UDCCP_MP_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "mp_opt.h"

#define UDCCP_MP_PLAIN_KEY_LEN 8
#define UDCCP_MP_DKEY_MAX (2 * UDCCP_MP_PLAIN_KEY_LEN)

/* The keys of one MP-DCCP connection, once MP_KEY was exchanged. */
typedef struct udccp_mp_keys {
  uint8_t local[UDCCP_MP_PLAIN_KEY_LEN];  /* ours */
  uint8_t remote[UDCCP_MP_PLAIN_KEY_LEN]; /* the peer's */
  uint32_t local_ci;                      /* our Connection Identifier */
  uint32_t remote_ci;                     /* the peer's */
} udccp_mp_keys;

/* d-key of one side (§3.2.4): mine = local + remote (from_peer 0), the
 * peer's = remote + local (from_peer 1).  Writes 16 bytes to out. */
void udccp_mp_dkey(const udccp_mp_keys *k, int from_peer,
                   uint8_t out[UDCCP_MP_DKEY_MAX]);

/* §3.2.6, §3.3: MP_HMAC of an MP_JOIN exchange.  Ours (from_peer 0):
 * HMAC-SHA256(d-key mine, R mine + R peer); the one the peer must send
 * (from_peer 1): HMAC-SHA256(d-key peer, R peer + R mine).  Nonces in
 * network order.  Returns 0 or an error of udccp_hmac_sha256(). */
int udccp_mp_hmac_join(const udccp_mp_keys *k, int from_peer,
                       uint32_t nonce_local, uint32_t nonce_remote,
                       uint8_t out[UDCCP_MP_HMAC_LEN]);

/* §3.2.6, §3.2.8: MP_HMAC of an MP_ADDADDR a = Address ID + Nonce + IP
 * address + port (two zero bytes when it has none), network order, with
 * the sender's d-key (from_peer 0: we send it; 1: the peer did).
 * Returns 0, UDCCP_ERR_INVALID_ARGUMENT (a not an MP_ADDADDR or a bad
 * family) or an error of udccp_hmac_sha256(). */
int udccp_mp_hmac_addaddr(const udccp_mp_keys *k, int from_peer,
                          const udccp_mp_opt *a,
                          uint8_t out[UDCCP_MP_HMAC_LEN]);

/* §3.2.6, §3.2.9: MP_HMAC of an MP_REMOVEADDR = Address ID + Nonce (the
 * formula of §3.2.6; §3.2.9's prose names the Address ID alone, and the
 * Nonce is what makes it replay-proof). */
int udccp_mp_hmac_removeaddr(const udccp_mp_keys *k, int from_peer,
                             uint8_t addr_id, uint32_t nonce,
                             uint8_t out[UDCCP_MP_HMAC_LEN]);

/* 1 if the two 20-byte HMACs are equal, in time independent of where
 * they differ. */
int udccp_mp_hmac_equal(const uint8_t a[UDCCP_MP_HMAC_LEN],
                        const uint8_t b[UDCCP_MP_HMAC_LEN]);

#endif /* UDCCP_MP_AUTH_H */

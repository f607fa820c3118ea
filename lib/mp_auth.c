/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP authentication (RFC 9897):
 *   §3.2.4  Key Type 0: d-keyA = KeyA + KeyB, d-keyB = KeyB + KeyA
 *   §3.2.6  MP_HMAC: HMAC-SHA256 (RFC 2104, RFC 6234), leftmost 20 bytes;
 *           the messages of MP_JOIN (RA + RB / RB + RA), MP_ADDADDR
 *           (Address ID + Nonce + NBO(IP) + NBO(Port) or two zero bytes)
 *           and MP_REMOVEADDR (Address ID + Nonce)
 *   §3.3    the MP_JOIN handshake: B sends MP_HMAC(B) on the Response, A
 *           MP_HMAC(A) on its Ack
 */
#include "mp_auth.h"

#include <string.h>

#include "mp_hmac.h"

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

void udccp_mp_dkey(const udccp_mp_keys *k, int from_peer,
                   uint8_t out[UDCCP_MP_DKEY_MAX]) {
  const uint8_t *first = from_peer ? k->remote : k->local;
  const uint8_t *second = from_peer ? k->local : k->remote;
  memcpy(out, first, UDCCP_MP_PLAIN_KEY_LEN);
  memcpy(out + UDCCP_MP_PLAIN_KEY_LEN, second, UDCCP_MP_PLAIN_KEY_LEN);
}

/* HMAC-SHA256 with the sender's d-key, truncated to 20 bytes. */
static int mac(const udccp_mp_keys *k, int from_peer, const uint8_t *msg,
               size_t mlen, uint8_t out[UDCCP_MP_HMAC_LEN]) {
  uint8_t dkey[UDCCP_MP_DKEY_MAX], full[UDCCP_SHA256_LEN];
  int rv;
  udccp_mp_dkey(k, from_peer, dkey);
  rv = udccp_hmac_sha256(dkey, sizeof(dkey), msg, mlen, full);
  if (rv == 0) {
    memcpy(out, full, UDCCP_MP_HMAC_LEN); /* leftmost 160 bits */
  }
  memset(dkey, 0, sizeof(dkey));
  return rv;
}

int udccp_mp_hmac_join(const udccp_mp_keys *k, int from_peer,
                       uint32_t nonce_local, uint32_t nonce_remote,
                       uint8_t out[UDCCP_MP_HMAC_LEN]) {
  uint8_t msg[8];
  /* The sender's own nonce first: MP_HMAC(A) over RA + RB, (B) RB + RA. */
  put32(msg, from_peer ? nonce_remote : nonce_local);
  put32(msg + 4, from_peer ? nonce_local : nonce_remote);
  return mac(k, from_peer, msg, sizeof(msg), out);
}

int udccp_mp_hmac_addaddr(const udccp_mp_keys *k, int from_peer,
                          const udccp_mp_opt *a,
                          uint8_t out[UDCCP_MP_HMAC_LEN]) {
  uint8_t msg[1 + 4 + 16 + 2];
  size_t n = 0, alen;
  if (a->type != UDCCP_MP_ADDADDR) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  alen = a->u.addaddr.family == UDCCP_AF_INET    ? 4
         : a->u.addaddr.family == UDCCP_AF_INET6 ? 16
                                                 : 0;
  if (alen == 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  msg[n++] = a->u.addaddr.addr_id;
  put32(msg + n, a->u.addaddr.nonce);
  n += 4;
  memcpy(msg + n, a->u.addaddr.addr, alen);
  n += alen;
  /* §3.2.8: "If the port number is not present ... the HMAC message will
   * include 2 bytes of value zero." */
  msg[n++] = a->u.addaddr.has_port ? (uint8_t)(a->u.addaddr.port >> 8) : 0;
  msg[n++] = a->u.addaddr.has_port ? (uint8_t)a->u.addaddr.port : 0;
  return mac(k, from_peer, msg, n, out);
}

int udccp_mp_hmac_removeaddr(const udccp_mp_keys *k, int from_peer,
                             uint8_t addr_id, uint32_t nonce,
                             uint8_t out[UDCCP_MP_HMAC_LEN]) {
  uint8_t msg[5];
  msg[0] = addr_id;
  put32(msg + 1, nonce);
  return mac(k, from_peer, msg, sizeof(msg), out);
}

int udccp_mp_hmac_equal(const uint8_t a[UDCCP_MP_HMAC_LEN],
                        const uint8_t b[UDCCP_MP_HMAC_LEN]) {
  uint8_t d = 0;
  size_t i;
  for (i = 0; i < UDCCP_MP_HMAC_LEN; i++) {
    d |= (uint8_t)(a[i] ^ b[i]);
  }
  return d == 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * HMAC-SHA256 through libcrypto (OpenSSL 3, Debian libssl-dev): RFC 9897
 * §3.2.6 names RFC 2104 HMAC with RFC 6234 SHA-256.  HMAC() is the
 * one-shot interface OpenSSL 3 keeps (not deprecated).
 */
#include "mp_hmac.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <udccp/udccp.h>

int udccp_hmac_sha256(const uint8_t *key, size_t klen, const uint8_t *msg,
                      size_t mlen, uint8_t out[UDCCP_SHA256_LEN]) {
  static const uint8_t empty[1] = {0};
  unsigned int olen = 0;
  if (!out || (klen && !key) || (mlen && !msg) || klen > 4096 ||
      mlen > 4096) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (!HMAC(EVP_sha256(), klen ? key : empty, (int)klen,
            mlen ? msg : empty, mlen, out, &olen) ||
      olen != UDCCP_SHA256_LEN) {
    return UDCCP_ERR_NOMEM;
  }
  return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * HMAC-SHA256 for Multipath DCCP (RFC 9897 §3.2.6: RFC 2104 with SHA-256
 * of RFC 6234, truncated to the leftmost 160 bits).  The only place in
 * lib/ that calls a cryptographic library (libcrypto, OpenSSL): the rest
 * of the core stays libc-only.  Never hand-written crypto.
 */
#ifndef UDCCP_MP_HMAC_H
#define UDCCP_MP_HMAC_H

#include <stddef.h>
#include <stdint.h>

#define UDCCP_SHA256_LEN 32

/* out = HMAC-SHA256(key, msg), all 32 bytes.  Returns 0, or
 * UDCCP_ERR_INVALID_ARGUMENT (NULL pointers with non-zero lengths, a key
 * or message over 4 KiB) or UDCCP_ERR_NOMEM (the library failed). */
int udccp_hmac_sha256(const uint8_t *key, size_t klen, const uint8_t *msg,
                      size_t mlen, uint8_t out[UDCCP_SHA256_LEN]);

#endif /* UDCCP_MP_HMAC_H */

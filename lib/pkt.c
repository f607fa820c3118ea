/* SPDX-License-Identifier: MIT */
/*
 * Packet codec: generic header, Acknowledgement Number subheader and
 * type-specific fields (RFC 4340 §5.1-§5.7, DCCP-Listen of RFC 5596 §2.2.1).
 */
#include <string.h>

#include "pkt.h"

int udccp_hdr_decode(udccp_hdr *h, const uint8_t *pkt, size_t len) {
  return udccp_hdr_decode_inline(h, pkt, len);
}

udccp_ssize udccp_pkt_encode(uint8_t *dst, size_t cap, const udccp_hdr *h,
                             const uint8_t *opts, size_t opts_len,
                             const uint8_t *payload, size_t payload_len) {
  return udccp_pkt_encode_inline(dst, cap, h, opts, opts_len, payload,
                                 payload_len);
}

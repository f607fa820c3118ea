/* SPDX-License-Identifier: MIT */
/*
 * Packet codec: generic header, Acknowledgement Number subheader and
 * type-specific fields (RFC 4340 §5.1-§5.7, DCCP-Listen of RFC 5596 §2.2.1).
 */
#include <string.h>

#include "pkt.h"

/* Network-order stores (the loads are in pkt.h, for the inline decoder).
 * Written as whole-word shifts so that compilers turn the 32-bit ones into
 * one store and a byte swap (issue 13: every packet out). */
static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static void put48(uint8_t *p, uint64_t v) {
  put32(p, (uint32_t)(v >> 16));
  p[4] = (uint8_t)(v >> 8);
  p[5] = (uint8_t)v;
}

static void put24(uint8_t *p, uint64_t v) {
  p[0] = (uint8_t)(v >> 16);
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)v;
}

int udccp_hdr_decode(udccp_hdr *h, const uint8_t *pkt, size_t len) {
  return udccp_hdr_decode_inline(h, pkt, len);
}

udccp_ssize udccp_pkt_encode(uint8_t *dst, size_t cap, const udccp_hdr *h,
                             const uint8_t *opts, size_t opts_len,
                             const uint8_t *payload, size_t payload_len) {
  size_t fixed, hdr, total, off;
  uint8_t x = h->x ? 1 : 0;

  fixed = udccp_hdr_fixed_len(h->type, x);
  if (fixed == 0 || h->ccval > 15 || h->cscov > 15 ||
      (opts_len && !opts) || (payload_len && !payload)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (opts_len > UDCCP_MAX_DOFF_BYTES) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  /* §5.8: options are padded to a multiple of 32 bits. */
  hdr = fixed + ((opts_len + 3) & ~(size_t)3);
  if (hdr > UDCCP_MAX_DOFF_BYTES) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  total = hdr + payload_len;
  if (total < hdr || total > cap) {
    return UDCCP_ERR_NOBUF;
  }

  dst[0] = (uint8_t)(h->sport >> 8);
  dst[1] = (uint8_t)h->sport;
  dst[2] = (uint8_t)(h->dport >> 8);
  dst[3] = (uint8_t)h->dport;
  dst[4] = (uint8_t)(hdr / 4);
  dst[5] = (uint8_t)(h->ccval << 4 | h->cscov);
  dst[6] = 0;
  dst[7] = 0;
  /* Res = 0 (§5.1). */
  dst[8] = (uint8_t)(h->type << 1 | x);
  if (x) {
    dst[9] = 0;
    put48(dst + 10, h->seq);
    off = 16;
    if (udccp_pkt_type_has_ack(h->type)) {
      dst[16] = 0;
      dst[17] = 0;
      put48(dst + 18, h->ack);
      off = 24;
    }
  } else {
    put24(dst + 9, h->seq);
    off = 12;
    if (udccp_pkt_type_has_ack(h->type)) {
      dst[12] = 0;
      put24(dst + 13, h->ack);
      off = 16;
    }
  }
  switch (h->type) {
  case UDCCP_PKT_REQUEST:
  case UDCCP_PKT_RESPONSE:
  case UDCCP_PKT_LISTEN:
    put32(dst + off, h->service_code);
    break;
  case UDCCP_PKT_RESET:
    dst[off] = h->reset_code;
    dst[off + 1] = h->reset_data[0];
    dst[off + 2] = h->reset_data[1];
    dst[off + 3] = h->reset_data[2];
    break;
  default:
    break;
  }
  if (opts_len) {
    /* Padding options (type 0) fill out the last word (§5.8.1): that
     * word zeroed first (one store, not a call), the options over it. */
    static const uint8_t zero4[4] = {0, 0, 0, 0};
    memcpy(dst + hdr - 4, zero4, 4);
    memcpy(dst + fixed, opts, opts_len);
  }
  if (payload_len) {
    memcpy(dst + hdr, payload, payload_len);
  }
  return (udccp_ssize)total;
}

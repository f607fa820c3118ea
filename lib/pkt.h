/* SPDX-License-Identifier: MIT */
/*
 * Packet codec: the generic header and type-specific fields of every DCCP
 * packet type (RFC 4340 §5, DCCP-Listen of RFC 5596 §2.2).
 * Pure functions over byte buffers; no state, no allocation.
 */
#ifndef UDCCP_PKT_H
#define UDCCP_PKT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <udccp/udccp.h>

#define UDCCP_NUM_PKT_TYPES 11
#define UDCCP_MAX_DOFF_BYTES 1020 /* Data Offset is 8 bits of 32-bit words */

/* A decoded (or to-be-encoded) header. */
typedef struct udccp_hdr {
  uint16_t sport, dport; /* host byte order */
  uint8_t doff;          /* Data Offset, in 32-bit words */
  uint8_t ccval;         /* 4 bits */
  uint8_t cscov;         /* 4 bits */
  uint16_t cksum;        /* as on the wire (host order) */
  uint8_t type;          /* enum udccp_pkt_type */
  uint8_t x;             /* 1: 48-bit sequence numbers; 0: 24-bit (§5.1) */
  uint64_t seq;          /* 48-bit, or the raw 24 bits when x == 0 */
  uint8_t has_ack;       /* type carries an Acknowledgement Number subheader */
  uint64_t ack;          /* 48-bit, or the raw 24 bits when x == 0 */
  uint32_t service_code; /* Request, Response, Listen */
  uint8_t reset_code;    /* Reset */
  uint8_t reset_data[3]; /* Reset: Data 1..3 */
  /* Filled by udccp_hdr_decode(): */
  size_t hdr_len;        /* bytes before the options */
  const uint8_t *opts;   /* options area (may include padding) */
  size_t opts_len;
  const uint8_t *payload;
  size_t payload_len;
} udccp_hdr;

/* Bit k set: type k carries an Acknowledgement Number (§5.1: all but
 * Request and Data; Listen has none either). */
#define UDCCP_PKT_ACK_TYPES_MASK                                              \
  ((1u << UDCCP_PKT_RESPONSE) | (1u << UDCCP_PKT_ACK) |                      \
   (1u << UDCCP_PKT_DATAACK) | (1u << UDCCP_PKT_CLOSEREQ) |                  \
   (1u << UDCCP_PKT_CLOSE) | (1u << UDCCP_PKT_RESET) |                       \
   (1u << UDCCP_PKT_SYNC) | (1u << UDCCP_PKT_SYNCACK))

/* Bit k set: type k may use short sequence numbers (§5.1, X). */
#define UDCCP_PKT_SHORT_TYPES_MASK                                            \
  ((1u << UDCCP_PKT_DATA) | (1u << UDCCP_PKT_ACK) | (1u << UDCCP_PKT_DATAACK))

/* 1 if packets of this type carry an Acknowledgement Number (§5.1).
 * Inline, as the next one: every packet in and out asks (issue 13). */
static inline int udccp_pkt_type_has_ack(uint8_t type) {
  return type < UDCCP_NUM_PKT_TYPES &&
         ((UDCCP_PKT_ACK_TYPES_MASK >> type) & 1u);
}

/* Length of the fixed part (generic header, ack subheader, type-specific
 * fields) for a type and X bit; 0 for an invalid combination.  With X = 1:
 * generic header (16), ack subheader (8) where the type has one, then
 * Service Code (4) on Request, Response, Listen (RFC 5596 §2.2.1: "Data
 * Offset MUST be five or more"); Reset Code and Data 1..3 (4) on Reset
 * (§5.2-§5.7).  With X = 0: 12-byte generic header, 4-byte ack subheader
 * (§5.1). */
static inline size_t udccp_hdr_fixed_len(uint8_t type, uint8_t x) {
  static const uint8_t x1[UDCCP_NUM_PKT_TYPES] = {20, 28, 16, 24, 24, 24,
                                                  24, 28, 24, 24, 20};
  if (type >= UDCCP_NUM_PKT_TYPES) {
    return 0;
  }
  if (x) {
    return x1[type];
  }
  if (!((UDCCP_PKT_SHORT_TYPES_MASK >> type) & 1u)) {
    return 0;
  }
  return type == UDCCP_PKT_DATA ? 12 : 16;
}

/* Decodes the header of pkt (len bytes, no IP/UDP header).  Rejects, with
 * UDCCP_ERR_PROTO: len < 12 or smaller than the Data Offset or the fixed
 * header; Data Offset too small for the header; reserved types (>= 11);
 * X=0 on types other than Data, Ack, DataAck (§5.1); CsCov covering more
 * than the packet (§9.2).  These are all the header checks of §8.5 step 1
 * except the checksum itself (udccp_cksum_check()). */
int udccp_hdr_decode(udccp_hdr *h, const uint8_t *pkt, size_t len);

/* Network-order loads, written as whole-word shifts so that compilers
 * turn the 32-bit one into one load and a byte swap (issue 13: every
 * packet in). */
static inline uint32_t udccp_get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         (uint32_t)p[3];
}

static inline uint64_t udccp_get48(const uint8_t *p) {
  return (uint64_t)udccp_get32(p) << 16 | (uint64_t)p[4] << 8 | (uint64_t)p[5];
}

static inline uint32_t udccp_get24(const uint8_t *p) {
  return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | (uint32_t)p[2];
}

/* The body of udccp_hdr_decode, for the connection's input path, where
 * it is inlined: every packet received (issue 13); the caller then skips
 * filling the fields it never reads. */
static inline int udccp_hdr_decode_inline(udccp_hdr *h, const uint8_t *pkt,
                                          size_t len) {
  size_t fixed, doff_bytes, off;
  uint8_t type, x;

  /* RFC 4340 §8.5 step 1, in its order. */
  if (len < 12) {
    return UDCCP_ERR_PROTO;
  }
  type = (pkt[8] >> 1) & 0x0F;
  x = pkt[8] & 1u;
  /* §5.1: reserved types MUST be ignored (11..15; 10 is Listen). */
  if (type >= UDCCP_NUM_PKT_TYPES) {
    return UDCCP_ERR_PROTO;
  }
  /* §5.1: only Data, Ack and DataAck may have X = 0 (Listen: RFC 5596
   * §2.2.1, "X MUST be 1"). */
  fixed = udccp_hdr_fixed_len(type, x);
  if (fixed == 0) {
    return UDCCP_ERR_PROTO;
  }
  /* §5.1 Data Offset: ignore packets whose offset is smaller than the
   * type's header or larger than the packet. */
  doff_bytes = (size_t)pkt[4] * 4;
  if (doff_bytes < fixed || doff_bytes > len) {
    return UDCCP_ERR_PROTO;
  }
  /* §9.2, §8.5 step 1: CsCov asking for more data than the packet has
   * makes it invalid, whether or not the checksum is checked (DCCP-UDP). */
  if ((pkt[5] & 0x0F) != 0 &&
      doff_bytes + ((size_t)(pkt[5] & 0x0F) - 1) * 4 > len) {
    return UDCCP_ERR_PROTO;
  }

  h->sport = (uint16_t)(pkt[0] << 8 | pkt[1]);
  h->dport = (uint16_t)(pkt[2] << 8 | pkt[3]);
  h->doff = pkt[4];
  h->ccval = pkt[5] >> 4;
  h->cscov = pkt[5] & 0x0F;
  h->cksum = (uint16_t)(pkt[6] << 8 | pkt[7]);
  h->type = type;
  h->x = x;
  h->has_ack = (uint8_t)((UDCCP_PKT_ACK_TYPES_MASK >> type) & 1u);
  h->ack = 0;
  h->service_code = 0;
  h->reset_code = 0;
  h->reset_data[0] = h->reset_data[1] = h->reset_data[2] = 0;
  /* Reserved fields are ignored on receipt (§5.1). */
  if (x) {
    h->seq = udccp_get48(pkt + 10);
    off = 16;
    if (h->has_ack) {
      h->ack = udccp_get48(pkt + 18);
      off = 24;
    }
  } else {
    h->seq = udccp_get24(pkt + 9);
    off = 12;
    if (h->has_ack) {
      h->ack = udccp_get24(pkt + 13);
      off = 16;
    }
  }
  switch (type) {
  case UDCCP_PKT_REQUEST:
  case UDCCP_PKT_RESPONSE:
  case UDCCP_PKT_LISTEN:
    h->service_code = udccp_get32(pkt + off);
    break;
  case UDCCP_PKT_RESET:
    h->reset_code = pkt[off];
    h->reset_data[0] = pkt[off + 1];
    h->reset_data[1] = pkt[off + 2];
    h->reset_data[2] = pkt[off + 3];
    break;
  default:
    break;
  }
  h->hdr_len = fixed;
  h->opts = pkt + fixed;
  h->opts_len = doff_bytes - fixed;
  h->payload = pkt + doff_bytes;
  h->payload_len = len - doff_bytes;
  return 0;
}


/* Writes a packet: header from h (doff, hdr_len, opts*, payload* ignored),
 * options (opts_len bytes, padded here to a multiple of 4 with Padding at
 * the end), then payload.  The checksum field is written as 0; see
 * udccp_cksum_set().  Returns the packet length or UDCCP_ERR_NOBUF /
 * UDCCP_ERR_INVALID_ARGUMENT (options longer than the Data Offset allows,
 * invalid type or X). */
udccp_ssize udccp_pkt_encode(uint8_t *dst, size_t cap, const udccp_hdr *h,
                             const uint8_t *opts, size_t opts_len,
                             const uint8_t *payload, size_t payload_len);

/* Network-order stores, written as whole-word shifts so that compilers
 * turn the 32-bit one into one store and a byte swap (issue 13: every
 * packet out). */
static inline void udccp_put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static inline void udccp_put48(uint8_t *p, uint64_t v) {
  udccp_put32(p, (uint32_t)(v >> 16));
  p[4] = (uint8_t)(v >> 8);
  p[5] = (uint8_t)v;
}

static inline void udccp_put24(uint8_t *p, uint64_t v) {
  p[0] = (uint8_t)(v >> 16);
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)v;
}

/* The writing half of udccp_pkt_encode_inline, for a caller that has
 * established what its checks do (udccp_conn_build: a packet type, 4-bit
 * CCVal and CsCov, options from a udccp_optbuf, its total against cap):
 * writes the packet of fixed header bytes (udccp_hdr_fixed_len), hdr
 * with the options padded, hdr + payload_len in all, and returns that
 * total (issue 13: the checks, once per packet, are the caller's). */
static inline size_t udccp_pkt_write_inline(uint8_t *dst, const udccp_hdr *h,
                                            size_t fixed, size_t hdr,
                                            const uint8_t *opts,
                                            size_t opts_len,
                                            const uint8_t *payload,
                                            size_t payload_len) {
  size_t off;
  uint8_t x = h->x ? 1 : 0;
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
    udccp_put48(dst + 10, h->seq);
    off = 16;
    if (udccp_pkt_type_has_ack(h->type)) {
      dst[16] = 0;
      dst[17] = 0;
      udccp_put48(dst + 18, h->ack);
      off = 24;
    }
  } else {
    udccp_put24(dst + 9, h->seq);
    off = 12;
    if (udccp_pkt_type_has_ack(h->type)) {
      dst[12] = 0;
      udccp_put24(dst + 13, h->ack);
      off = 16;
    }
  }
  switch (h->type) {
  case UDCCP_PKT_REQUEST:
  case UDCCP_PKT_RESPONSE:
  case UDCCP_PKT_LISTEN:
    udccp_put32(dst + off, h->service_code);
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
  return hdr + payload_len;
}

/* The body of udccp_pkt_encode, inlined where the connection needs it. */
static inline udccp_ssize udccp_pkt_encode_inline(
    uint8_t *dst, size_t cap, const udccp_hdr *h, const uint8_t *opts,
    size_t opts_len, const uint8_t *payload, size_t payload_len) {
  size_t fixed, hdr, total;
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
  return (udccp_ssize)udccp_pkt_write_inline(dst, h, fixed, hdr, opts,
                                             opts_len, payload, payload_len);
}

#endif /* UDCCP_PKT_H */

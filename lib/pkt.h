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

/* Writes a packet: header from h (doff, hdr_len, opts*, payload* ignored),
 * options (opts_len bytes, padded here to a multiple of 4 with Padding at
 * the end), then payload.  The checksum field is written as 0; see
 * udccp_cksum_set().  Returns the packet length or UDCCP_ERR_NOBUF /
 * UDCCP_ERR_INVALID_ARGUMENT (options longer than the Data Offset allows,
 * invalid type or X). */
udccp_ssize udccp_pkt_encode(uint8_t *dst, size_t cap, const udccp_hdr *h,
                             const uint8_t *opts, size_t opts_len,
                             const uint8_t *payload, size_t payload_len);

#endif /* UDCCP_PKT_H */

/* SPDX-License-Identifier: MIT */
/*
 * The stateless packet functions of the public API: demultiplexing peek,
 * checksum verification, and the Reset that answers a packet for which no
 * connection exists.
 */
#include "cksum.h"
#include "pkt.h"

int udccp_pkt_peek_hdr(udccp_pkt_peek *out, const uint8_t *pkt, size_t len) {
  udccp_hdr h;
  int rv;
  if (out == NULL || (pkt == NULL && len > 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (pkt == NULL) {
    return UDCCP_ERR_PROTO; /* too short */
  }
  rv = udccp_hdr_decode(&h, pkt, len);
  if (rv != 0) {
    return rv;
  }
  out->sport = h.sport;
  out->dport = h.dport;
  out->type = h.type;
  out->x = h.x;
  out->seq = h.seq;
  out->service_code = h.service_code;
  return 0;
}

int udccp_pkt_verify_cksum(const uint8_t *pkt, size_t len,
                           const udccp_path *path) {
  if (path == NULL || (pkt == NULL && len > 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (pkt == NULL) {
    return UDCCP_ERR_PROTO; /* too short */
  }
  return udccp_cksum_check(pkt, len, path);
}

udccp_ssize udccp_pkt_write_reset_reply(uint8_t *dst, size_t cap,
                                        const uint8_t *pkt, size_t len,
                                        const udccp_path *path,
                                        uint8_t cksum_mode, uint8_t code) {
  udccp_hdr p, r;
  udccp_ssize n;
  uint64_t mask;
  int rv;

  if (path == NULL || (pkt == NULL && len > 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (dst == NULL) {
    return UDCCP_ERR_NOBUF; /* as udccp_conn_write_pkt() */
  }
  if (pkt == NULL) {
    return UDCCP_ERR_PROTO; /* too short */
  }
  rv = udccp_hdr_decode(&p, pkt, len);
  if (rv != 0) {
    return rv;
  }
  /* RFC 4340 §8.5 step 2: never answer a Reset (no reset storms).  A
   * DCCP-Listen is sent before any connection exists, to open a NAT for a
   * Request that comes later (RFC 5596 §2.2); a Reset would only tear down
   * the state it wants to create, so it is not answered either. */
  if (p.type == UDCCP_PKT_RESET || p.type == UDCCP_PKT_LISTEN) {
    return 0;
  }
  /* §8.3.1: the Reset's numbers come from the packet; with short sequence
   * numbers the upper 24 bits are zero. */
  mask = p.x ? 0xFFFFFFFFFFFFULL : 0xFFFFFFULL;
  r.sport = p.dport;
  r.dport = p.sport;
  r.ccval = 0;
  r.cscov = 0;
  r.type = UDCCP_PKT_RESET;
  r.x = 1;
  r.seq = p.has_ack ? (p.ack + 1) & mask : 0;
  r.ack = p.seq & mask;
  r.service_code = 0;
  r.reset_code = code;
  /* §5.6: Packet Error carries the offending type in Data 1. */
  r.reset_data[0] = code == UDCCP_RESET_PACKET_ERROR ? p.type : 0;
  r.reset_data[1] = 0;
  r.reset_data[2] = 0;
  n = udccp_pkt_encode(dst, cap, &r, NULL, 0, NULL, 0);
  if (n < 0) {
    return n;
  }
  /* RFC 6773 §3.3: over UDP the DCCP checksum is sent as zero. */
  if (cksum_mode == UDCCP_CKSUM_FULL) {
    rv = udccp_cksum_set(dst, (size_t)n, path);
    if (rv != 0) {
      return rv;
    }
  }
  return n;
}

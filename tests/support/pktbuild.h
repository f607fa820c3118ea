/* SPDX-License-Identifier: MIT */
/*
 * Test helpers that build DCCP packets by fields, with a correct checksum.
 *
 *   udccp_path me, peer;
 *   udccp_tb_path4(&me, "10.0.0.1", 5001, "10.0.0.2", 6001);
 *   udccp_tb_path_flip(&peer, &me);          // the other end's view
 *   uint8_t buf[1500];
 *   udccp_ssize n = udccp_tb_build(buf, sizeof buf, &peer, UDCCP_PKT_ACK,
 *                                  seq, ack, NULL, 0, NULL, 0);
 *   // buf now holds an Ack as the peer sends it to me: me's
 *   // udccp_cksum_check(buf, n, &me) accepts it.
 *
 * For everything else (X=0, CCVal, CsCov, Service Code, Reset code), fill a
 * udccp_tb_pkt and call udccp_tb_encode().
 */
#ifndef UDCCP_TESTS_PKTBUILD_H
#define UDCCP_TESTS_PKTBUILD_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

typedef struct udccp_tb_pkt {
  uint8_t type;            /* enum udccp_pkt_type */
  uint8_t x;               /* 1 (default): 48-bit numbers; 0: 24-bit */
  uint64_t seq, ack;       /* ack ignored on types without one */
  uint8_t ccval, cscov;
  uint32_t service_code;   /* Request, Response, Listen */
  uint8_t reset_code;      /* Reset */
  uint8_t reset_data[3];
  const uint8_t *opts;     /* raw options, padded to 4 bytes by the encoder */
  size_t opts_len;
  const uint8_t *payload;
  size_t payload_len;
  int no_cksum;            /* 1: leave the checksum field zero (DCCP-UDP) */
} udccp_tb_pkt;

/* Zeroes p and sets type, seq, ack, x = 1. */
void udccp_tb_pkt_init(udccp_tb_pkt *p, uint8_t type, uint64_t seq,
                       uint64_t ack);

/* Encodes p as sent on path (sport = path->local_port, dport =
 * path->remote_port, checksum from local_addr to remote_addr).  Returns the
 * length or a negative UDCCP_ERR_* code. */
udccp_ssize udccp_tb_encode(uint8_t *buf, size_t cap, const udccp_path *path,
                            const udccp_tb_pkt *p);

/* Shorthand for udccp_tb_encode with X = 1, CCVal = CsCov = 0 and Service
 * Code 0. */
udccp_ssize udccp_tb_build(uint8_t *buf, size_t cap, const udccp_path *path,
                           uint8_t type, uint64_t seq, uint64_t ack,
                           const uint8_t *opts, size_t opts_len,
                           const uint8_t *payload, size_t payload_len);

/* Recomputes the checksum of a packet as sent on path (after a test changed
 * bytes on purpose).  Returns 0 or UDCCP_ERR_PROTO. */
int udccp_tb_recksum(uint8_t *buf, size_t len, const udccp_path *path);

/* Fills path with an IPv4 / IPv6 path from textual addresses (inet_pton)
 * and ports.  Aborts on a malformed address. */
void udccp_tb_path4(udccp_path *path, const char *local, uint16_t lport,
                    const char *remote, uint16_t rport);
void udccp_tb_path6(udccp_path *path, const char *local, uint16_t lport,
                    const char *remote, uint16_t rport);

/* out = in seen from the other end (addresses and ports swapped). */
void udccp_tb_path_flip(udccp_path *out, const udccp_path *in);

#endif /* UDCCP_TESTS_PKTBUILD_H */

/* SPDX-License-Identifier: MIT */
/*
 * Packet builders for tests; see pktbuild.h.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "cksum.h"
#include "pkt.h"
#include "pktbuild.h"

void udccp_tb_pkt_init(udccp_tb_pkt *p, uint8_t type, uint64_t seq,
                       uint64_t ack) {
  memset(p, 0, sizeof(*p));
  p->type = type;
  p->x = 1;
  p->seq = seq;
  p->ack = ack;
}

udccp_ssize udccp_tb_encode(uint8_t *buf, size_t cap, const udccp_path *path,
                            const udccp_tb_pkt *p) {
  udccp_hdr h;
  udccp_ssize n;
  memset(&h, 0, sizeof(h));
  h.sport = path->local_port;
  h.dport = path->remote_port;
  h.ccval = p->ccval;
  h.cscov = p->cscov;
  h.type = p->type;
  h.x = p->x;
  h.seq = p->seq;
  h.ack = p->ack;
  h.service_code = p->service_code;
  h.reset_code = p->reset_code;
  memcpy(h.reset_data, p->reset_data, 3);
  n = udccp_pkt_encode(buf, cap, &h, p->opts, p->opts_len, p->payload,
                       p->payload_len);
  if (n < 0 || p->no_cksum) {
    return n;
  }
  if (udccp_cksum_set(buf, (size_t)n, path) != 0) {
    return UDCCP_ERR_PROTO;
  }
  return n;
}

udccp_ssize udccp_tb_build(uint8_t *buf, size_t cap, const udccp_path *path,
                           uint8_t type, uint64_t seq, uint64_t ack,
                           const uint8_t *opts, size_t opts_len,
                           const uint8_t *payload, size_t payload_len) {
  udccp_tb_pkt p;
  udccp_tb_pkt_init(&p, type, seq, ack);
  p.opts = opts;
  p.opts_len = opts_len;
  p.payload = payload;
  p.payload_len = payload_len;
  return udccp_tb_encode(buf, cap, path, &p);
}

int udccp_tb_recksum(uint8_t *buf, size_t len, const udccp_path *path) {
  return udccp_cksum_set(buf, len, path);
}

static void fill_path(udccp_path *path, int af, uint8_t family,
                      const char *local, uint16_t lport, const char *remote,
                      uint16_t rport) {
  memset(path, 0, sizeof(*path));
  path->family = family;
  if (inet_pton(af, local, path->local_addr) != 1 ||
      inet_pton(af, remote, path->remote_addr) != 1) {
    abort();
  }
  path->local_port = lport;
  path->remote_port = rport;
}

void udccp_tb_path4(udccp_path *path, const char *local, uint16_t lport,
                    const char *remote, uint16_t rport) {
  fill_path(path, AF_INET, UDCCP_AF_INET, local, lport, remote, rport);
}

void udccp_tb_path6(udccp_path *path, const char *local, uint16_t lport,
                    const char *remote, uint16_t rport) {
  fill_path(path, AF_INET6, UDCCP_AF_INET6, local, lport, remote, rport);
}

void udccp_tb_path_flip(udccp_path *out, const udccp_path *in) {
  udccp_path t = *in;
  memcpy(t.local_addr, in->remote_addr, sizeof(t.local_addr));
  memcpy(t.remote_addr, in->local_addr, sizeof(t.remote_addr));
  t.local_port = in->remote_port;
  t.remote_port = in->local_port;
  *out = t;
}

/* SPDX-License-Identifier: MIT */
/*
 * IPv4 header stripping and the raw socket port filter (see wire.h).
 */
#include <string.h>

#include <udccp/udccp.h>

#include "wire.h"

int udccp_io_ipv4_strip(const uint8_t *buf, size_t len, size_t *off,
                        size_t *dlen, uint8_t src[4], uint8_t dst[4],
                        uint8_t *ecn) {
  if (len < 20 || (buf[0] >> 4) != 4) {
    return UDCCP_ERR_PROTO;
  }
  size_t ihl = (size_t)(buf[0] & 0x0f) * 4;
  size_t tot = ((size_t)buf[2] << 8) | buf[3];
  if (ihl < 20 || ihl > len || buf[9] != UDCCP_IPPROTO_DCCP) {
    return UDCCP_ERR_PROTO;
  }
  /* Linux hands raw sockets reassembled packets with tot_len set; believe
   * the smaller of the two lengths so padding never becomes payload. */
  if (tot < ihl || tot > len) {
    tot = len;
  }
  *off = ihl;
  *dlen = tot - ihl;
  *ecn = buf[1] & 0x03;
  memcpy(src, buf + 12, 4);
  memcpy(dst, buf + 16, 4);
  return 0;
}

size_t udccp_io_bpf_build(struct sock_filter *prog, size_t cap, int ipv4,
                          const uint16_t *ports, size_t n) {
  /* Layout: [load X = IPv4 header length] load dport; n compares; drop;
   * accept.  Jump offsets are 8 bits, so n is bounded well below 255. */
  size_t need = (ipv4 ? 2 : 1) + n + 2;
  if (need > cap || n > 200) {
    return 0;
  }
  size_t i = 0;
  if (ipv4) {
    /* X = 4 * (pkt[0] & 0xf): the IPv4 header length. */
    prog[i++] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0);
    /* A = 16-bit destination port at X + 2. */
    prog[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2);
  } else {
    prog[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 2);
  }
  for (size_t k = 0; k < n; k++) {
    /* jump to "accept": skip the remaining compares and the drop */
    uint8_t jt = (uint8_t)(n - k);
    prog[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                             ports[k], jt, 0);
  }
  prog[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
  prog[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0x7fffffff);
  return i;
}

long udccp_io_bpf_run(const struct sock_filter *prog, size_t n,
                      const uint8_t *pkt, size_t len) {
  uint32_t a = 0, x = 0;
  for (size_t pc = 0; pc < n; pc++) {
    const struct sock_filter *f = &prog[pc];
    switch (f->code) {
    case BPF_LDX | BPF_B | BPF_MSH:
      if (f->k >= len) {
        return 0;
      }
      x = 4u * (pkt[f->k] & 0x0fu);
      break;
    case BPF_LD | BPF_H | BPF_IND:
    case BPF_LD | BPF_H | BPF_ABS: {
      size_t at = f->k + (f->code == (BPF_LD | BPF_H | BPF_IND) ? x : 0);
      if (at + 2 > len) {
        return 0; /* the kernel drops on an out-of-bounds load */
      }
      a = ((uint32_t)pkt[at] << 8) | pkt[at + 1];
      break;
    }
    case BPF_JMP | BPF_JEQ | BPF_K:
      pc += (a == f->k) ? f->jt : f->jf;
      break;
    case BPF_RET | BPF_K:
      return (long)f->k;
    default:
      return -1;
    }
  }
  return -1;
}

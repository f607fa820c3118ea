/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for io/'s intake of untrusted bytes (issue 11 §2):
 *   - a raw IPv4 buffer as an IPv4 raw socket delivers it
 *     (udccp_io_ipv4_strip), then the DCCP packet inside through the
 *     header peek and the pseudo-header checksum with the addresses found;
 *   - a raw IPv6 DCCP packet (the kernel strips IPv6 headers) through the
 *     same with IPv6 addresses;
 *   - a recvmsg control buffer as the kernel fills it: UDP_GRO's segment
 *     size (udccp_io_gro_size over arbitrary cmsg chains), then the
 *     payload cut at it as io/rx.c does, each segment peeked;
 *   - a sockaddr as recvmsg returns it (udccp_io_addr_from_sockaddr);
 *   - the raw socket's port filter: built for ports from the input and run
 *     (udccp_io_bpf_run) over the packet, which must agree with the port
 *     the peek reads.
 *   - the ICMP error queue: a recvmsg(MSG_ERRQUEUE) control buffer,
 *     each control message classified as udccp_io_drain_errqueue() does
 *     (udccp_io_errq_cmsg: PMTU, unreachable, or nothing), which must
 *     act only on an IP_RECVERR / IPV6_RECVERR long enough for its
 *     sock_extended_err, and the sockaddr that comes with it.
 *
 * Input: selector byte (bit 2 set: the error queue; else bits 0-1 which
 * other part), then bytes for that part.
 */
#define _GNU_SOURCE /* io/endpoint.h: struct mmsghdr */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/errqueue.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "addr.h"
#include "endpoint.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                              \
  do {                                                                        \
    if (!(c)) {                                                               \
      abort();                                                                \
    }                                                                         \
  } while (0)

static void dccp_in(const uint8_t *pkt, size_t len, uint8_t family,
                    const uint8_t *src, const uint8_t *dst) {
  udccp_pkt_peek pk;
  udccp_path path;
  memset(&path, 0, sizeof(path));
  path.family = family;
  memcpy(path.remote_addr, src, family == UDCCP_AF_INET ? 4 : 16);
  memcpy(path.local_addr, dst, family == UDCCP_AF_INET ? 4 : 16);
  if (udccp_pkt_peek_hdr(&pk, pkt, len) == 0) {
    path.remote_port = pk.sport;
    path.local_port = pk.dport;
    (void)udccp_pkt_verify_cksum(pkt, len, &path);
    /* the port filter must agree with the parser on the port */
    struct sock_filter prog[64];
    uint16_t ports[2] = {pk.dport, (uint16_t)(pk.dport + 1)};
    size_t n = udccp_io_bpf_build(prog, 64, 0, ports, 2);
    if (n > 0) {
      long v = udccp_io_bpf_run(prog, n, pkt, len);
      CHECK(v != 0);
    }
  }
}

static void part_ipv4(const uint8_t *d, size_t n) {
  size_t off = 0, dlen = 0;
  uint8_t src[4], dst[4], ecn = 0;
  if (udccp_io_ipv4_strip(d, n, &off, &dlen, src, dst, &ecn) == 0) {
    CHECK(off <= n && dlen <= n - off && ecn <= 3);
    dccp_in(d + off, dlen, UDCCP_AF_INET, src, dst);
    struct sock_filter prog[64];
    uint16_t port = n >= 2 ? (uint16_t)(d[0] << 8 | d[1]) : 0;
    size_t k = udccp_io_bpf_build(prog, 64, 1, &port, 1);
    if (k > 0) {
      CHECK(udccp_io_bpf_run(prog, k, d, n) >= 0);
    }
  }
}

static void part_ipv6(const uint8_t *d, size_t n) {
  uint8_t src[16], dst[16];
  if (n < 32) {
    return;
  }
  memcpy(src, d, 16);
  memcpy(dst, d + 16, 16);
  dccp_in(d + 32, n - 32, UDCCP_AF_INET6, src, dst);
}

/* The control length the kernel would report for the chain in b[0..cl):
 * it ends before the first header whose cmsg_len runs past the buffer.
 * The kernel never writes such a length, and glibc's CMSG_NXTHDR trusts
 * that: a cmsg_len near SIZE_MAX wraps its pointer back below the end. */
static size_t kernel_controllen(const uint8_t *b, size_t cl) {
  size_t off = 0;
  while (cl - off >= sizeof(struct cmsghdr)) {
    struct cmsghdr h;
    memcpy(&h, b + off, sizeof(h));
    if (h.cmsg_len < sizeof(h) || h.cmsg_len > cl - off) {
      break;
    }
    off += CMSG_ALIGN(h.cmsg_len);
    if (off > cl) {
      return cl;
    }
  }
  return off;
}

static void part_gro(const uint8_t *d, size_t n) {
  /* first byte: control length; then control bytes; then the payload */
  if (n < 1) {
    return;
  }
  size_t cl = d[0];
  d++, n--;
  if (cl > n) {
    cl = n;
  }
  /* aligned copy, as the kernel's buffer is */
  union {
    struct cmsghdr align;
    uint8_t b[256];
  } ctl;
  memset(&ctl, 0, sizeof(ctl));
  memcpy(ctl.b, d, cl);
  struct msghdr m;
  memset(&m, 0, sizeof(m));
  m.msg_control = ctl.b;
  m.msg_controllen = kernel_controllen(ctl.b, cl);
  size_t seg = udccp_io_gro_size(&m);
  const uint8_t *pay = d + cl;
  size_t len = n - cl;
  if (seg == 0 || seg >= len) {
    seg = len;
  }
  uint8_t zero[16] = {0};
  for (size_t off = 0; off < len && seg > 0; off += seg) {
    size_t k = len - off < seg ? len - off : seg;
    if (k >= 12) {
      dccp_in(pay + off, k, UDCCP_AF_INET, zero, zero);
    }
  }
}

static void part_sockaddr(const uint8_t *d, size_t n) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof(ss));
  memcpy(&ss, d, n < sizeof(ss) ? n : sizeof(ss));
  uint8_t fam = 0, addr[16];
  uint16_t port = 0;
  if (udccp_io_addr_from_sockaddr((const struct sockaddr *)&ss, &fam, addr,
                                  &port) == 0) {
    CHECK(fam == UDCCP_AF_INET || fam == UDCCP_AF_INET6);
    struct sockaddr_storage back;
    socklen_t sl = udccp_io_addr_to_sockaddr(&back, fam, addr, port);
    CHECK(sl > 0);
    uint8_t fam2 = 0, addr2[16];
    uint16_t port2 = 0;
    CHECK(udccp_io_addr_from_sockaddr((const struct sockaddr *)&back, &fam2,
                                      addr2, &port2) == 0);
    CHECK(fam2 == fam && port2 == port &&
          memcmp(addr, addr2, fam == UDCCP_AF_INET ? 4 : 16) == 0);
  }
}

static void part_errq(const uint8_t *d, size_t n) {
  /* first byte: control length; then control bytes; then the sockaddr */
  if (n < 1) {
    return;
  }
  size_t cl = d[0];
  d++, n--;
  if (cl > n) {
    cl = n;
  }
  union {
    struct cmsghdr align;
    uint8_t b[256];
  } ctl;
  memset(&ctl, 0, sizeof(ctl));
  memcpy(ctl.b, d, cl);
  struct msghdr m;
  memset(&m, 0, sizeof(m));
  m.msg_control = ctl.b;
  m.msg_controllen = kernel_controllen(ctl.b, cl);
  int acted = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL;
       c = CMSG_NXTHDR(&m, c)) {
    uint32_t mtu = 0;
    int kind = udccp_io_errq_cmsg(c, &mtu);
    CHECK(kind >= UDCCP_IO_ERRQ_NONE && kind <= UDCCP_IO_ERRQ_UNREACHABLE);
    if (kind != UDCCP_IO_ERRQ_NONE) {
      CHECK((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR) ||
            (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR));
      CHECK(c->cmsg_len >= CMSG_LEN(sizeof(struct sock_extended_err)));
      acted = 1;
    }
  }
  if (acted) {
    part_sockaddr(d + cl, n - cl);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) {
    return 0;
  }
  const uint8_t *d = data + 1;
  size_t n = size - 1;
  if (data[0] & 4) {
    part_errq(d, n);
    return 0;
  }
  switch (data[0] & 3) {
  case 0:
    part_ipv4(d, n);
    break;
  case 1:
    part_ipv6(d, n);
    break;
  case 2:
    part_gro(d, n);
    break;
  default:
    part_sockaddr(d, n);
    break;
  }
  return 0;
}

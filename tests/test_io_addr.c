/* SPDX-License-Identifier: MIT */
/*
 * Address helpers of the runtime (io/addr.h) and the raw-socket wire
 * helpers (io/wire.h): IPv4 header stripping and the BPF port filter; the
 * error queue's control messages (io/endpoint.h, udccp_io_errq_cmsg).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/errqueue.h>
#include <netinet/in.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "../io/addr.h"
#include "../io/endpoint.h"
#include "../io/wire.h"

static void test_io_addr_parse_numeric(void **state) {
  (void)state;
  uint8_t fam, a[16];
  assert_int_equal(udccp_io_parse_numeric("127.0.0.1", &fam, a), 0);
  assert_int_equal(fam, UDCCP_AF_INET);
  assert_int_equal(a[0], 127);
  assert_int_equal(a[3], 1);
  assert_int_equal(udccp_io_parse_numeric("::1", &fam, a), 0);
  assert_int_equal(fam, UDCCP_AF_INET6);
  assert_int_equal(a[15], 1);
  assert_int_equal(udccp_io_parse_numeric("[::1]", &fam, a), 0);
  assert_int_equal(fam, UDCCP_AF_INET6);
  assert_int_equal(udccp_io_parse_numeric("localhost", &fam, a),
                   UDCCP_ERR_RESOLVE);
  assert_int_equal(udccp_io_parse_numeric("1.2.3", &fam, a), UDCCP_ERR_RESOLVE);
}

/* An IPv4-mapped IPv6 address is IPv4 on the wire: the DCCP pseudo-header
 * is the IPv4 one (RFC 4340 §9.1). */
static void test_rfc4340_9_1_v4mapped_is_ipv4(void **state) {
  (void)state;
  uint8_t fam, a[16];
  assert_int_equal(udccp_io_parse_numeric("::ffff:10.1.2.3", &fam, a), 0);
  assert_int_equal(fam, UDCCP_AF_INET);
  assert_int_equal(a[0], 10);
  assert_int_equal(a[3], 3);
  struct sockaddr_storage ss;
  uint8_t v6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 2, 3};
  socklen_t sl = udccp_io_addr_to_sockaddr(&ss, UDCCP_AF_INET6, v6, 6511);
  assert_true(sl > 0);
  uint16_t port;
  assert_int_equal(
      udccp_io_addr_from_sockaddr((struct sockaddr *)&ss, &fam, a, &port), 0);
  assert_int_equal(fam, UDCCP_AF_INET);
  assert_int_equal(port, 6511);
  assert_int_equal(a[3], 3);
}

static void test_io_addr_roundtrip_and_format(void **state) {
  (void)state;
  uint8_t fam, a[16], b[16];
  uint16_t port;
  struct sockaddr_storage ss;
  assert_int_equal(udccp_io_parse_numeric("2001:db8::7", &fam, a), 0);
  udccp_io_addr_to_sockaddr(&ss, fam, a, 443);
  assert_int_equal(
      udccp_io_addr_from_sockaddr((struct sockaddr *)&ss, &fam, b, &port), 0);
  assert_memory_equal(a, b, 16);
  assert_int_equal(port, 443);
  char buf[80];
  assert_string_equal(udccp_io_addr_format(buf, sizeof(buf), fam, a, 443),
                      "[2001:db8::7]:443");
  assert_int_equal(udccp_io_parse_numeric("192.0.2.9", &fam, a), 0);
  assert_string_equal(udccp_io_addr_format(buf, sizeof(buf), fam, a, 9),
                      "192.0.2.9:9");
}

static void test_io_resolve_names_and_families(void **state) {
  (void)state;
  uint8_t fam, a[16];
  assert_int_equal(udccp_io_resolve("127.0.0.1", 1, 1, &fam, a), 0);
  assert_int_equal(udccp_io_resolve("::1", 1, 0, &fam, a),
                   UDCCP_ERR_AFNOSUPPORT);
  /* A label longer than 63 bytes fails inside the resolver before any
   * query leaves the host (tests send nothing beyond loopback). */
  char bad[96];
  memset(bad, 'x', 70);
  memcpy(bad + 70, ".invalid", 9);
  assert_int_equal(udccp_io_resolve(bad, 1, 1, &fam, a), UDCCP_ERR_RESOLVE);
  assert_int_equal(udccp_io_resolve("localhost", 1, 1, &fam, a), 0);
  assert_int_equal(udccp_io_resolve("", 1, 1, &fam, a), UDCCP_ERR_RESOLVE);
}

static size_t mk_ipv4(uint8_t *b, uint8_t proto, uint8_t tos, size_t ihl,
                      uint16_t dport, size_t payload) {
  memset(b, 0, ihl + payload);
  b[0] = (uint8_t)(0x40 | (ihl / 4));
  b[1] = tos;
  size_t tot = ihl + payload;
  b[2] = (uint8_t)(tot >> 8);
  b[3] = (uint8_t)tot;
  b[8] = 64;
  b[9] = proto;
  b[12] = 10, b[15] = 1;
  b[16] = 10, b[19] = 2;
  b[ihl + 2] = (uint8_t)(dport >> 8);
  b[ihl + 3] = (uint8_t)dport;
  return tot;
}

static void test_io_ipv4_strip(void **state) {
  (void)state;
  uint8_t b[128], src[4], dst[4], ecn;
  size_t off, dlen;
  size_t n = mk_ipv4(b, 33, 0x03, 24, 5001, 20);
  assert_int_equal(udccp_io_ipv4_strip(b, n, &off, &dlen, src, dst, &ecn), 0);
  assert_int_equal(off, 24);
  assert_int_equal(dlen, 20);
  assert_int_equal(ecn, 3);
  assert_int_equal(src[3], 1);
  assert_int_equal(dst[3], 2);
  n = mk_ipv4(b, 17, 0, 20, 5001, 20); /* not DCCP */
  assert_int_equal(udccp_io_ipv4_strip(b, n, &off, &dlen, src, dst, &ecn),
                   UDCCP_ERR_PROTO);
  n = mk_ipv4(b, 33, 0, 20, 5001, 20);
  assert_int_equal(udccp_io_ipv4_strip(b, 19, &off, &dlen, src, dst, &ecn),
                   UDCCP_ERR_PROTO);
  b[0] = 0x44; /* IHL 16 bytes: invalid */
  assert_int_equal(udccp_io_ipv4_strip(b, n, &off, &dlen, src, dst, &ecn),
                   UDCCP_ERR_PROTO);
}

/* DESIGN.md §3: a raw socket must not wake us for ports we do not own. */
static void test_io_bpf_filter_keeps_only_owned_ports(void **state) {
  (void)state;
  struct sock_filter prog[64];
  uint16_t ports[3] = {5001, 49999, 7};
  uint8_t b[128];
  for (int v4 = 0; v4 <= 1; v4++) {
    size_t n = udccp_io_bpf_build(prog, 64, v4, ports, 3);
    assert_true(n > 0);
    for (uint32_t port = 0; port < 65536; port += 7) {
      size_t ihl = v4 ? 28 : 0; /* with IPv4 options */
      size_t len;
      if (v4) {
        len = mk_ipv4(b, 33, 0, ihl, (uint16_t)port, 16);
      } else {
        memset(b, 0, 16);
        b[2] = (uint8_t)(port >> 8);
        b[3] = (uint8_t)port;
        len = 16;
      }
      long verdict = udccp_io_bpf_run(prog, n, b, len);
      int owned = port == 5001 || port == 49999 || port == 7;
      assert_int_equal(verdict != 0, owned);
    }
    for (int k = 0; k < 3; k++) {
      size_t len;
      if (v4) {
        len = mk_ipv4(b, 33, 0, 20, ports[k], 16);
      } else {
        b[2] = (uint8_t)(ports[k] >> 8);
        b[3] = (uint8_t)ports[k];
        len = 16;
      }
      assert_true(udccp_io_bpf_run(prog, n, b, len) > 0);
    }
  }
  /* no ports: drop everything */
  size_t n = udccp_io_bpf_build(prog, 64, 1, NULL, 0);
  size_t len = mk_ipv4(b, 33, 0, 20, 5001, 16);
  assert_int_equal(udccp_io_bpf_run(prog, n, b, len), 0);
  /* too many for the buffer: 0 = no filter */
  assert_int_equal(udccp_io_bpf_build(prog, 4, 1, ports, 3), 0);
}

/* The kernel's verifier accepts the program (any socket takes a classic
 * filter; no privileges needed). */
static void test_io_bpf_kernel_accepts_program(void **state) {
  (void)state;
  uint16_t ports[40];
  for (int i = 0; i < 40; i++) {
    ports[i] = (uint16_t)(1000 + i);
  }
  struct sock_filter prog[64];
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  assert_true(fd >= 0);
  for (int v4 = 0; v4 <= 1; v4++) {
    size_t n = udccp_io_bpf_build(prog, 64, v4, ports, 40);
    assert_true(n > 0);
    struct sock_fprog fp = {(unsigned short)n, prog};
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp,
                                sizeof(fp)), 0);
  }
  close(fd);
}

/* One IP(V6)_RECVERR control message with errno e and ee_info info; len
 * is its cmsg_len (CMSG_LEN of a whole sock_extended_err, or shorter). */
static const struct cmsghdr *errq_msg(void *buf, int level, int type,
                                      uint32_t e, uint32_t info, size_t len) {
  struct sock_extended_err ee;
  struct cmsghdr *c = buf;
  memset(&ee, 0, sizeof(ee));
  ee.ee_errno = e;
  ee.ee_info = info;
  c->cmsg_level = level;
  c->cmsg_type = type;
  c->cmsg_len = len;
  memcpy(CMSG_DATA(c), &ee, sizeof(ee));
  return c;
}

/* RFC 6773 §3.6-3.7 (RFC 4340 §14): EMSGSIZE and ICMP Too Big give the
 * PMTU, port or protocol unreachable a refusal; anything else, or a
 * message too short for its sock_extended_err, is not acted on. */
static void test_rfc6773_3_7_errqueue_classified(void **state) {
  union {
    struct cmsghdr align;
    uint8_t b[128];
  } u;
  const size_t whole = CMSG_LEN(sizeof(struct sock_extended_err));
  uint32_t mtu = 0;
  (void)state;
  memset(&u, 0, sizeof(u));
  assert_int_equal(udccp_io_errq_cmsg(errq_msg(&u, IPPROTO_IP, IP_RECVERR,
                                               EMSGSIZE, 1280, whole),
                                      &mtu),
                   UDCCP_IO_ERRQ_PMTU);
  assert_int_equal(mtu, 1280);
  assert_int_equal(udccp_io_errq_cmsg(errq_msg(&u, IPPROTO_IPV6, IPV6_RECVERR,
                                               ECONNREFUSED, 0, whole),
                                      &mtu),
                   UDCCP_IO_ERRQ_UNREACHABLE);
  assert_int_equal(udccp_io_errq_cmsg(errq_msg(&u, IPPROTO_IP, IP_RECVERR,
                                               ENOPROTOOPT, 0, whole),
                                      &mtu),
                   UDCCP_IO_ERRQ_UNREACHABLE);
  assert_int_equal(udccp_io_errq_cmsg(errq_msg(&u, IPPROTO_IP, IP_RECVERR,
                                               EHOSTUNREACH, 0, whole),
                                      &mtu),
                   UDCCP_IO_ERRQ_NONE);
  assert_int_equal(udccp_io_errq_cmsg(errq_msg(&u, IPPROTO_IP, IP_RECVERR,
                                               EMSGSIZE, 1280, whole - 1),
                                      &mtu),
                   UDCCP_IO_ERRQ_NONE);
  assert_int_equal(udccp_io_errq_cmsg(errq_msg(&u, IPPROTO_IP, IP_TTL,
                                               EMSGSIZE, 1280, whole),
                                      &mtu),
                   UDCCP_IO_ERRQ_NONE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_io_addr_parse_numeric),
      cmocka_unit_test(test_rfc4340_9_1_v4mapped_is_ipv4),
      cmocka_unit_test(test_io_addr_roundtrip_and_format),
      cmocka_unit_test(test_io_resolve_names_and_families),
      cmocka_unit_test(test_io_ipv4_strip),
      cmocka_unit_test(test_io_bpf_filter_keeps_only_owned_ports),
      cmocka_unit_test(test_io_bpf_kernel_accepts_program),
      cmocka_unit_test(test_rfc6773_3_7_errqueue_classified),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

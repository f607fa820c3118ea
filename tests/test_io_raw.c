/* SPDX-License-Identifier: MIT */
/*
 * The runtime's native DCCP transport over raw IP sockets (protocol 33,
 * loopback): pseudo-header checksums (RFC 4340 §9), IPv4 and IPv6, and
 * silence towards ports this endpoint does not own (DESIGN.md §3).
 * Raw sockets need root: without it every test FAILS with that reason.
 */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <udccp/udccp.h>

#include "pkt.h"
#include "pktbuild.h"
#include "../io/wire.h"

static uint64_t ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void need_root(void) {
  if (geteuid() != 0) {
    fail_msg("raw DCCP sockets need root (CAP_NET_RAW): run this test as "
             "root; it does not skip");
  }
}

static udccp_endpoint *raw_ep(const char *host) {
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new(&ep, UDCCP_TRANSPORT_RAW, host, 0);
  if (rv != 0) {
    fail_msg("raw endpoint on %s: %s", host, udccp_io_strerror(rv));
  }
  return ep;
}

typedef struct pair {
  udccp_endpoint *cep, *sep;
  udccp_sock *c, *s;
} pair;

static void drive_until_accept(pair *p, int ms) {
  uint64_t end = ms_now() + (uint64_t)ms;
  while (ms_now() < end) {
    assert_int_equal(udccp_endpoint_process(p->cep), 0);
    if (udccp_accept(p->sep, &p->s, 0) == 0) {
      return;
    }
    struct pollfd f[2] = {{udccp_endpoint_fd(p->cep), POLLIN, 0},
                          {udccp_endpoint_fd(p->sep), POLLIN, 0}};
    (void)poll(f, 2, 1);
  }
  fail_msg("no connection accepted within %d ms", ms);
}

/* A transfer in each family; the checksum is checked on every packet by
 * the receiving core, so arrival proves RFC 4340 §9.1 both ways.  Neither
 * raw socket sees the other's packets: the BPF port filter keeps them out
 * (rx_ignored stays 0 although both sockets share the host). */
static void run_transfer(const char *host, uint16_t port) {
  pair p;
  memset(&p, 0, sizeof(p));
  p.sep = raw_ep(host);
  p.cep = raw_ep(host);
  uint32_t code = 0x52415754; /* "RAWT" */
  assert_int_equal(udccp_listen(p.sep, port, &code, 1), 0);
  assert_int_equal(udccp_connect(p.cep, &p.c, host, port, code, 0, 0), 0);
  drive_until_accept(&p, 5000);
  enum { N = 300 };
  char msg[64];
  int got = 0;
  uint64_t end = ms_now() + 10000;
  for (int i = 0; i < N; i++) {
    int n = snprintf(msg, sizeof(msg), "datagram %d", i);
    assert_int_equal(udccp_send(p.c, msg, (size_t)n, 2000), n);
    char in[128];
    while (udccp_recv(p.s, in, sizeof(in), 0) >= 0) {
      got++;
    }
  }
  while (got < N && ms_now() < end) {
    (void)udccp_endpoint_process(p.cep);
    char in[128];
    udccp_ssize n = udccp_recv(p.s, in, sizeof(in), 2);
    if (n >= 0) {
      got++;
    }
  }
  assert_int_equal(got, N);
  udccp_endpoint_stats sc, ss;
  udccp_endpoint_get_stats(p.cep, &sc);
  udccp_endpoint_get_stats(p.sep, &ss);
  printf("  %s: client rx %llu ignored %llu bad %llu; server rx %llu "
         "ignored %llu bad %llu\n",
         host, (unsigned long long)sc.rx_pkts,
         (unsigned long long)sc.rx_ignored, (unsigned long long)sc.rx_bad,
         (unsigned long long)ss.rx_pkts, (unsigned long long)ss.rx_ignored,
         (unsigned long long)ss.rx_bad);
  assert_int_equal(sc.rx_ignored, 0);
  assert_int_equal(ss.rx_ignored, 0);
  assert_int_equal(sc.rx_bad, 0);
  assert_int_equal(ss.rx_bad, 0);
  udccp_conn_info info;
  udccp_sock_get_info(p.s, &info);
  assert_int_equal(info.pkts_bad_cksum, 0);
  udccp_endpoint_del(p.cep);
  udccp_endpoint_del(p.sep);
}

static void test_rfc4340_9_1_raw_ipv4_transfer(void **state) {
  (void)state;
  need_root();
  run_transfer("127.0.0.1", 47001);
}

static void test_rfc4340_9_1_raw_ipv6_transfer(void **state) {
  (void)state;
  need_root();
  run_transfer("::1", 47002);
}

/* A raw socket of our own to play a peer at DCCP port port: it sends DCCP
 * packets and reads those to port (a port filter keeps other DCCP traffic
 * on the host from filling its buffer). */
static int peer_sock(uint16_t port) {
  int fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, 33);
  assert_true(fd >= 0);
  struct sock_filter prog[8];
  size_t n = udccp_io_bpf_build(prog, 8, 1, &port, 1);
  assert_true(n > 0);
  struct sock_fprog fp = {(unsigned short)n, prog};
  assert_int_equal(
      setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)), 0);
  uint8_t junk[64];
  while (recv(fd, junk, sizeof(junk), 0) >= 0) {
  }
  return fd;
}

static void peer_send(int fd, const uint8_t *pkt, size_t len) {
  struct sockaddr_in to;
  memset(&to, 0, sizeof(to));
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  assert_int_equal(sendto(fd, pkt, len, 0, (struct sockaddr *)&to, sizeof(to)),
                   (ssize_t)len);
}

/* Waits (driving ep) for a DCCP packet to dport of the given type; returns
 * its length (DCCP part copied to out) or -1. */
static ssize_t peer_await(udccp_endpoint *ep, int fd, uint16_t dport,
                          uint8_t type, uint8_t *out, size_t cap, int ms) {
  uint64_t end = ms_now() + (uint64_t)ms;
  uint8_t buf[2048];
  while (ms_now() < end) {
    assert_int_equal(udccp_endpoint_process(ep), 0);
    ssize_t n;
    while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
      size_t ihl = (size_t)(buf[0] & 15) * 4;
      if ((size_t)n < ihl + 12) {
        continue;
      }
      udccp_pkt_peek pk;
      if (udccp_pkt_peek_hdr(&pk, buf + ihl, (size_t)n - ihl) == 0 &&
          pk.dport == dport && pk.type == type) {
        size_t len = (size_t)n - ihl;
        assert_true(len <= cap);
        memcpy(out, buf + ihl, len);
        return (ssize_t)len;
      }
    }
    struct pollfd f = {udccp_endpoint_fd(ep), POLLIN, 0};
    (void)poll(&f, 1, 1);
  }
  return -1;
}

/* RFC 4340 §9: a packet with a bad checksum MUST be ignored — no Reset, no
 * connection; the same packet with a good checksum gets its answer, and
 * that answer's checksum is right. */
static void test_rfc4340_9_raw_bad_checksum_ignored(void **state) {
  (void)state;
  need_root();
  udccp_endpoint *ep = raw_ep("127.0.0.1");
  uint32_t code = 5;
  assert_int_equal(udccp_listen(ep, 47003, &code, 1), 0);
  int fd = peer_sock(47903);
  udccp_path peer;
  udccp_tb_path4(&peer, "127.0.0.1", 47903, "127.0.0.1", 47003);
  udccp_tb_pkt p;
  udccp_tb_pkt_init(&p, UDCCP_PKT_REQUEST, 5000, 0);
  p.service_code = 6; /* wrong: the answer would be Bad Service Code */
  uint8_t pkt[256], reply[2048];
  udccp_ssize n = udccp_tb_encode(pkt, sizeof(pkt), &peer, &p);
  assert_true(n > 0);
  pkt[6] ^= 0x5a; /* break the checksum */
  peer_send(fd, pkt, (size_t)n);
  assert_int_equal(peer_await(ep, fd, 47903, UDCCP_PKT_RESET, reply,
                              sizeof(reply), 300),
                   -1);
  pkt[6] ^= 0x5a;
  peer_send(fd, pkt, (size_t)n);
  ssize_t r = peer_await(ep, fd, 47903, UDCCP_PKT_RESET, reply, sizeof(reply),
                         2000);
  assert_true(r > 0);
  udccp_hdr h;
  assert_int_equal(udccp_hdr_decode(&h, reply, (size_t)r), 0);
  assert_int_equal(h.reset_code, UDCCP_RESET_BAD_SERVICE_CODE);
  udccp_path me;
  udccp_tb_path_flip(&me, &peer); /* the reply as the peer receives it */
  assert_int_equal(udccp_pkt_verify_cksum(reply, (size_t)r, &peer), 0);
  (void)me;
  close(fd);
  udccp_endpoint_del(ep);
}

/* DESIGN.md §3: a raw endpoint never answers for a port it does not own
 * (another program's DCCP, or the kernel's), even with No Connection. */
static void test_io_raw_silent_for_foreign_ports(void **state) {
  (void)state;
  need_root();
  udccp_endpoint *ep = raw_ep("127.0.0.1");
  uint32_t code = 5;
  assert_int_equal(udccp_listen(ep, 47004, &code, 1), 0);
  int fd = peer_sock(47904);
  udccp_path peer;
  udccp_tb_path4(&peer, "127.0.0.1", 47904, "127.0.0.1", 47005);
  uint8_t pkt[256], reply[2048];
  udccp_tb_pkt p;
  udccp_tb_pkt_init(&p, UDCCP_PKT_REQUEST, 5000, 0);
  p.service_code = 5;
  udccp_ssize n = udccp_tb_encode(pkt, sizeof(pkt), &peer, &p);
  assert_true(n > 0);
  peer_send(fd, pkt, (size_t)n);
  assert_int_equal(peer_await(ep, fd, 47904, UDCCP_PKT_RESET, reply,
                              sizeof(reply), 300),
                   -1);
  assert_int_equal(peer_await(ep, fd, 47904, UDCCP_PKT_RESPONSE, reply,
                              sizeof(reply), 10),
                   -1);
  close(fd);
  udccp_endpoint_del(ep);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_9_1_raw_ipv4_transfer),
      cmocka_unit_test(test_rfc4340_9_1_raw_ipv6_transfer),
      cmocka_unit_test(test_rfc4340_9_raw_bad_checksum_ignored),
      cmocka_unit_test(test_io_raw_silent_for_foreign_ports),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

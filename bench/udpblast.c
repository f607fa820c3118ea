/* SPDX-License-Identifier: MIT */
/*
 * udccp-udpblast: the reference for `make bench` -- how many bytes of
 * equal-size UDP payloads this host moves from one process to another,
 * with no protocol above UDP.  Two roles, run as two processes:
 *
 *   udccp-udpblast -r [-a ADDR] -p PORT [-l BYTES] [--gro] [-T SECONDS]
 *       receive until the sender's END (or SECONDS of wait), then print
 *       one JSON object: received goodput, packets, the sender's count
 *       (-l: the largest datagram expected, for the receive slots).
 *   udccp-udpblast -s -a ADDR -p PORT [-l BYTES] [-t SECONDS] [--gso]
 *       send BYTES-byte datagrams as fast as sendmmsg allows for SECONDS,
 *       then END (repeated; it carries the number of datagrams sent).
 *
 * Batches: recvmmsg/sendmmsg of 64 datagrams; with --gso the sender hands
 * the kernel super-datagrams of 50 segments, or of as many as fit the
 * 65,507-byte UDP limit (UDP_SEGMENT: one for datagrams above half of
 * it, 7 of 8,900 bytes), with --gro the
 * receiver asks for coalesced ones (UDP_GRO) and counts segments by the
 * gso_size control message.  Goodput counts payload bytes of the data
 * datagrams, from the first to the last received, like udccp-perf does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define BATCH 64
#define GSO_SEGS 50 /* 50 * 1200 = 60000 bytes: below the 64 KiB limit */
#define UDP_MAX_PAYLOAD 65507 /* 65535 - 20 (IPv4) - 8 (UDP) */
/* A GSO send's payload: with its UDP, IP and link headers under the
 * device's gso_max_size (65,536), or Linux segments it in software and
 * loopback delivers each segment alone, without GRO (io/gso.c has the
 * same bound and the measurements). */
#define GSO_MAX_PAYLOAD (65536 - 1 - 14 - 40 - 8)
#define END_MAGIC "BLASTEND"
#define RXBUF_PLAIN 2048
#define RXBUF_GRO 65536

typedef struct opts {
  int recv, send, gso, gro;
  size_t segs; /* --segs: segments per GSO send (0: GSO_SEGS) */
  const char *addr;
  const char *port;
  size_t len;
  double secs, wait;
} opts;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_sock(const opts *o, int passive) {
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof(hints));
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  int rv = getaddrinfo(o->addr, o->port, &hints, &res);
  if (rv != 0) {
    fprintf(stderr, "udccp-udpblast: %s port %s: %s\n",
            o->addr ? o->addr : "*", o->port, gai_strerror(rv));
    return -1;
  }
  int fd = socket(res->ai_family, SOCK_DGRAM, 0);
  if (fd < 0) {
    perror("udccp-udpblast: socket");
    freeaddrinfo(res);
    return -1;
  }
  int buf = 4 * 1024 * 1024;
  int opt = passive ? SO_RCVBUFFORCE : SO_SNDBUFFORCE;
  if (setsockopt(fd, SOL_SOCKET, opt, &buf, sizeof(buf)) != 0) {
    (void)setsockopt(fd, SOL_SOCKET, passive ? SO_RCVBUF : SO_SNDBUF, &buf,
                     sizeof(buf));
  }
  if (passive) {
    rv = bind(fd, res->ai_addr, res->ai_addrlen);
  } else {
    rv = connect(fd, res->ai_addr, res->ai_addrlen);
  }
  freeaddrinfo(res);
  if (rv != 0) {
    fprintf(stderr, "udccp-udpblast: %s: %s\n", passive ? "bind" : "connect",
            strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

/* ------------------------------------------------------------- receiver */

typedef struct rx_count {
  uint64_t pkts, bytes, sent;
  double first, last;
  int ended;
} rx_count;

static void count_segment(rx_count *c, const uint8_t *p, size_t n, double t) {
  if (n == 16 && memcmp(p, END_MAGIC, 8) == 0) {
    uint64_t v;
    memcpy(&v, p + 8, 8);
    c->sent = v;
    c->ended = 1;
    return;
  }
  if (c->pkts == 0) {
    c->first = t;
  }
  c->pkts++;
  c->bytes += n;
  c->last = t;
}

static int run_receiver(const opts *o) {
  int fd = open_sock(o, 1);
  if (fd < 0) {
    return 1;
  }
  if (o->gro) {
    int one = 1;
    if (setsockopt(fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one)) != 0) {
      fprintf(stderr, "udccp-udpblast: UDP_GRO: %s\n", strerror(errno));
      close(fd);
      return 3;
    }
  }
  size_t bufsz = o->gro || o->len > RXBUF_PLAIN ? RXBUF_GRO : RXBUF_PLAIN;
  unsigned vlen = o->gro ? 16 : BATCH;
  uint8_t *bufs = malloc(bufsz * vlen);
  struct mmsghdr msgs[BATCH];
  struct iovec iov[BATCH];
  static uint8_t ctl[BATCH][64];
  if (bufs == NULL) {
    close(fd);
    return 1;
  }
  struct timeval tv = {0, 200000};
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  printf("ready\n");
  fflush(stdout);
  rx_count c;
  memset(&c, 0, sizeof(c));
  uint64_t calls = 0, dgrams = 0;
  double start = now_s();
  while (!c.ended) {
    for (unsigned i = 0; i < vlen; i++) {
      iov[i].iov_base = bufs + i * bufsz;
      iov[i].iov_len = bufsz;
      memset(&msgs[i].msg_hdr, 0, sizeof(msgs[i].msg_hdr));
      msgs[i].msg_hdr.msg_iov = &iov[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
      msgs[i].msg_hdr.msg_control = ctl[i];
      msgs[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
    }
    int n = recvmmsg(fd, msgs, vlen, MSG_WAITFORONE, NULL);
    double t = now_s();
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      perror("udccp-udpblast: recvmmsg");
      break;
    }
    if (n <= 0) {
      /* Nothing for 200 ms: the sender is gone or never came. */
      if ((c.pkts > 0 && t - c.last > 2.0) || t - start > o->wait) {
        break;
      }
      continue;
    }
    calls++;
    for (int i = 0; i < n; i++) {
      struct msghdr *m = &msgs[i].msg_hdr;
      size_t len = msgs[i].msg_len;
      const uint8_t *p = iov[i].iov_base;
      size_t seg = len;
      for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm != NULL;
           cm = CMSG_NXTHDR(m, cm)) {
        if (cm->cmsg_level == IPPROTO_UDP && cm->cmsg_type == UDP_GRO) {
          int g;
          memcpy(&g, CMSG_DATA(cm), sizeof(g));
          if (g > 0) {
            seg = (size_t)g;
          }
        }
      }
      dgrams++;
      for (size_t off = 0; off < len; off += seg) {
        size_t k = len - off < seg ? len - off : seg;
        count_segment(&c, p + off, k, t);
      }
    }
  }
  double dur = c.last > c.first ? c.last - c.first : 0;
  printf("{\"mode\": \"%s\", \"goodput_bps\": %.0f, \"received_pkts\": %" PRIu64
         ", \"sent_pkts\": %" PRIu64 ", \"duration_s\": %.3f, "
         "\"pkts_per_syscall\": %.2f, \"pkts_per_msg\": %.2f, \"complete\": %s}\n",
         o->gro ? "gro" : "recvmmsg", dur > 0 ? (double)c.bytes * 8 / dur : 0,
         c.pkts, c.sent, dur, calls ? (double)c.pkts / (double)calls : 0,
         dgrams ? (double)c.pkts / (double)dgrams : 0, c.ended ? "true" : "false");
  free(bufs);
  close(fd);
  return c.pkts > 0 ? 0 : 1;
}

/* --------------------------------------------------------------- sender */

static int run_sender(const opts *o) {
  int fd = open_sock(o, 0);
  if (fd < 0) {
    return 1;
  }
  size_t want = o->segs ? o->segs : GSO_SEGS;
  size_t segs = GSO_MAX_PAYLOAD / o->len < want ? GSO_MAX_PAYLOAD / o->len
                                                : want;
  segs = segs ? segs : 1;
  size_t per = o->gso ? segs * o->len : o->len;
  unsigned vlen = o->gso ? 8 : BATCH;
  if (o->gso) {
    int seg = (int)o->len;
    if (setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &seg, sizeof(seg)) != 0) {
      fprintf(stderr, "udccp-udpblast: UDP_SEGMENT: %s\n", strerror(errno));
      close(fd);
      return 3;
    }
  }
  uint8_t *buf = malloc(per);
  if (buf == NULL) {
    close(fd);
    return 1;
  }
  memset(buf, 0x5a, per);
  struct mmsghdr msgs[BATCH];
  struct iovec iov[BATCH];
  memset(msgs, 0, sizeof(msgs));
  for (unsigned i = 0; i < vlen; i++) {
    /* The same bytes every time: the payload is not the point. */
    iov[i].iov_base = buf;
    iov[i].iov_len = per;
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  uint64_t sent = 0, errs = 0;
  double stop = now_s() + o->secs;
  while (now_s() < stop) {
    int n = sendmmsg(fd, msgs, vlen, 0);
    if (n > 0) {
      sent += (uint64_t)n * (per / o->len);
    } else if (n < 0 && errno == EIO && o->gso) {
      fprintf(stderr, "udccp-udpblast: UDP GSO send: %s\n", strerror(errno));
      free(buf);
      close(fd);
      return 3;
    } else {
      /* ECONNREFUSED (no receiver yet), ENOBUFS: count and go on. */
      errs++;
    }
  }
  usleep(50000);
  int zero = 0;
  (void)setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &zero, sizeof(zero));
  uint8_t end[16];
  memcpy(end, END_MAGIC, 8);
  memcpy(end + 8, &sent, 8);
  for (int k = 0; k < 10; k++) {
    (void)send(fd, end, sizeof(end), 0);
    usleep(20000);
  }
  fprintf(stderr, "udccp-udpblast: sent %" PRIu64 " datagrams (%" PRIu64
                  " failed calls)\n", sent, errs);
  free(buf);
  close(fd);
  return 0;
}

static void usage(FILE *f) {
  fprintf(f,
"usage: udccp-udpblast -r [-a ADDR] -p PORT [-l BYTES] [--gro] [-T SECONDS]\n"
"       udccp-udpblast -s -a ADDR -p PORT [-l BYTES] [-t SECONDS] [--gso]\n"
"\n"
"Plain UDP throughput reference for make bench (two processes).\n"
"\n"
"  -r, --receive       receive and print one JSON line at the end\n"
"  -s, --send          send as fast as sendmmsg allows\n"
"  -a, --addr ADDR     address to bind (-r, default any) or send to (-s)\n"
"  -p, --port PORT     UDP port (required)\n"
"  -l, --length BYTES  payload per datagram, 16..65507 (default 1200; the\n"
"                      receiver sizes its slots by it)\n"
"  -t, --time SECONDS  sending time (default 3)\n"
"  -T, --wait SECONDS  receiver: give up after SECONDS (default 30)\n"
"      --gso           sender: UDP_SEGMENT, %d segments per send (fewer\n"
"                      when they would pass 65473 bytes)\n"
"      --segs N        sender: N segments per GSO send instead (the cost\n"
"                      of a send against that of a byte)\n"
"      --gro           receiver: UDP_GRO, split by the gso_size cmsg\n"
"  -h, --help          this help\n"
"Exit status 3: GSO/GRO not supported here.\n", GSO_SEGS);
}

int main(int argc, char **argv) {
  opts o;
  memset(&o, 0, sizeof(o));
  o.len = 1200;
  o.secs = 3;
  o.wait = 30;
  enum { OPT_GSO = 256, OPT_GRO, OPT_SEGS };
  static const struct option lopts[] = {
      {"receive", no_argument, NULL, 'r'},
      {"send", no_argument, NULL, 's'},
      {"addr", required_argument, NULL, 'a'},
      {"port", required_argument, NULL, 'p'},
      {"length", required_argument, NULL, 'l'},
      {"time", required_argument, NULL, 't'},
      {"wait", required_argument, NULL, 'T'},
      {"gso", no_argument, NULL, OPT_GSO},
      {"gro", no_argument, NULL, OPT_GRO},
      {"segs", required_argument, NULL, OPT_SEGS},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "rsa:p:l:t:T:h", lopts, NULL)) != -1) {
    switch (c) {
    case 'r': o.recv = 1; break;
    case 's': o.send = 1; break;
    case 'a': o.addr = optarg; break;
    case 'p': o.port = optarg; break;
    case 'l': o.len = (size_t)strtoul(optarg, NULL, 10); break;
    case 't': o.secs = strtod(optarg, NULL); break;
    case 'T': o.wait = strtod(optarg, NULL); break;
    case OPT_GSO: o.gso = 1; break;
    case OPT_GRO: o.gro = 1; break;
    case OPT_SEGS: o.segs = (size_t)strtoul(optarg, NULL, 10); break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (o.recv == o.send || o.port == NULL || (o.send && o.addr == NULL) ||
      o.len < 16 || o.len > UDP_MAX_PAYLOAD || o.secs <= 0) {
    usage(stderr);
    return 2;
  }
  return o.recv ? run_receiver(&o) : run_sender(&o);
}

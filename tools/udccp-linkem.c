/* SPDX-License-Identifier: MIT */
/*
 * udccp-linkem: a userspace link emulator, for kernels without netem.
 *
 *   udccp-linkem -a PORT -b PORT --link SPEC [--ab SPEC] [--ba SPEC]
 *                [--seed N] [--time TIME] [--max-packet BYTES] [--json]
 *
 * It forwards every packet read on port A to port B and back, through one
 * real-time link per direction (sim/rtlink.c over the sim_link model):
 * rate, one-way delay, drop-tail queue in bytes or packets, random loss,
 * Gilbert-Elliott burst loss, a fixed loss burst, duplication.  A port is
 *   tun:NAME[@NETNS]   a TUN device (IP packets), created or attached
 *   tap:NAME[@NETNS]   a TAP device (Ethernet frames), created or attached
 *   udp:LADDR:LPORT:RADDR:RPORT[@NETNS]   one packet or frame per datagram
 *                      (QEMU's -netdev socket,udp=...,localaddr=...)
 * NETNS is an "ip netns" name or a path like /proc/PID/ns/net: the device
 * or socket is created inside that namespace (setns), then the process
 * returns to its own.  A device it creates goes away when it exits.
 * Both ports must carry the same layer (tun+tun, tap+tap or tap+udp...).
 *
 * SIGINT/SIGTERM: print the statistics and exit 0; SIGUSR1: print them.
 * See doc/linkem.md.
 */
#define _GNU_SOURCE /* setns, ppoll, signalfd */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <udccp/udccp.h>

#include "../io/parse.h"
#include "sim_parse.h"
#include "sim_rtlink.h"

/* snprintf into an error buffer, cut short if it must be (a quoted spec
 * can be up to 511 bytes): through a va_list, which gcc's
 * -Wformat-truncation does not size. */
static void spec_err(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void spec_err(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
}

#define PROG "udccp-linkem"
#define LK_BUF 65536         /* read buffer: any IP packet */
#define LK_READ_BUDGET 64    /* packets read per port per loop turn */
#define LK_MIN_QUEUE 3028    /* floor of a BDP-sized queue: two frames */

enum { LK_TUN, LK_TAP, LK_UDP };

typedef struct lk_port {
  const char *spec;
  int kind;
  int fd;
  struct sockaddr_in peer; /* LK_UDP */
  uint64_t rx, write_errors;
} lk_port;

/* One direction's settings as parsed (queue still symbolic). */
typedef struct lk_dir_spec {
  uint64_t rate_bps;
  udccp_tstamp delay;
  double queue_bdp;      /* > 0: queue = this many bandwidth-delay products */
  uint64_t queue_bytes;
  uint32_t queue_pkts;
  double loss, ge_p, ge_r, ge_h, dup;
  udccp_tstamp burst_at;
  uint64_t burst_after;
  uint32_t burst_pkts;
} lk_dir_spec;

static void usage(FILE *f) {
  fprintf(f,
"usage: " PROG " -a PORT -b PORT --link SPEC [--ab SPEC] [--ba SPEC]\n"
"                    [--seed N] [--time TIME] [--max-packet BYTES] [--json]\n"
"\n"
"Forwards packets between ports A and B through an emulated link per\n"
"direction (userspace netem: rate, delay, drop-tail queue, loss).\n"
"\n"
"ports:\n"
"  tun:NAME[@NETNS]    TUN device (IP packets); created if absent\n"
"  tap:NAME[@NETNS]    TAP device (Ethernet frames); created if absent\n"
"  udp:LADDR:LPORT:RADDR:RPORT[@NETNS]\n"
"                      UDP socket bound to LADDR:LPORT, sending to\n"
"                      RADDR:RPORT (IPv4), one packet per datagram\n"
"  NETNS: an 'ip netns' name or a path (/proc/PID/ns/net)\n"
"\n"
"  -a, --port-a PORT   port A\n"
"  -b, --port-b PORT   port B\n"
"  --link SPEC         both directions; --ab / --ba then change A->B / B->A\n"
"  --ab SPEC, --ba SPEC\n"
"  --seed N            random seed (default 1): same seed, same losses\n"
"  --time TIME         exit after TIME (e.g. 60s; default: run until a signal)\n"
"  --max-packet BYTES  largest packet forwarded (default 9216)\n"
"  --json              statistics as one JSON object (default: key=value)\n"
"  -h, --help          this help\n"
"  --version           print the version\n"
"\n"
"SPEC: comma list of KEY=VALUE, each key once:\n"
"  rate=RATE           bit|kbit|mbit|gbit per second (required)\n"
"  delay=TIME          one-way delay: ns|us|ms|s (default 0)\n"
"  queue=Q             drop-tail limit: BYTES (64k, 150000), Np (packets)\n"
"                      or Xbdp (rate x (delay A->B + delay B->A); default\n"
"                      1bdp, at least %d bytes)\n"
"  loss=P              random loss, fraction or percentage (default 0)\n"
"  ge=P/R[/H]          Gilbert-Elliott loss: P(good->bad), P(bad->good) per\n"
"                      packet, loss probability H in the bad state (default 1)\n"
"  burst=TIME/N        lose N consecutive packets from TIME after start;\n"
"  burst=Kp/N          ... or after the first K packets of the direction\n"
"  dup=P               duplication probability (default 0)\n"
"\n"
"SIGINT/SIGTERM print the statistics and exit; SIGUSR1 prints them.\n"
"example: " PROG " -a tun:lk0@A -b tun:lk0@B --link rate=50mbit,delay=20ms\n",
          LK_MIN_QUEUE);
}

static udccp_tstamp now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (udccp_tstamp)ts.tv_sec * UDCCP_NS_PER_S + (udccp_tstamp)ts.tv_nsec;
}

/* ------------------------------------------------------------ SPEC */

static int spec_queue(const char *v, lk_dir_spec *d, char *err, size_t cap) {
  size_t n = strlen(v);
  char *end;
  if (n > 3 && strcmp(v + n - 3, "bdp") == 0) {
    double x = strtod(v, &end);
    if (end == v + n - 3 && x > 0 && x <= 1000) {
      d->queue_bdp = x;
      d->queue_bytes = 0;
      d->queue_pkts = 0;
      return 0;
    }
  } else if (n > 1 && v[n - 1] == 'p') {
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v + n - 1 && x > 0 && x <= 1000000) {
      d->queue_pkts = (uint32_t)x;
      d->queue_bytes = 0;
      d->queue_bdp = 0;
      return 0;
    }
  } else {
    uint64_t b;
    if (udccp_io_parse_size(v, &b) == 0 && b > 0 && b <= (1ull << 28)) {
      d->queue_bytes = b;
      d->queue_pkts = 0;
      d->queue_bdp = 0;
      return 0;
    }
  }
  spec_err(err, cap, "bad queue '%s': write bytes (64k, 150000), packets "
           "(100p) or bandwidth-delay products (1bdp)", v);
  return -1;
}

/* "P/R[/H]": every value a probability, none empty ("0.1//1" and a
 * trailing "/" were read as "0.1/1" by strtok). */
static int spec_prob_list(const char *v, double *out, int min, int max,
                          char *err, size_t cap) {
  char tmp[128], sub[160];
  if (strlen(v) >= sizeof(tmp)) {
    spec_err(err, cap, "'%.40s...' too long: expected P/R[/H]", v);
    return -1;
  }
  snprintf(tmp, sizeof(tmp), "%s", v);
  int n = 0;
  for (char *t = tmp; t != NULL;) {
    char *slash = strchr(t, '/');
    if (slash != NULL) {
      *slash = '\0';
    }
    if (n == max) {
      spec_err(err, cap, "too many values in '%s': expected P/R[/H]", v);
      return -1;
    }
    if (sim_parse_prob(t, &out[n], sub, sizeof(sub)) != 0) {
      spec_err(err, cap, "'%s': expected P/R[/H] with probabilities, e.g. "
               "0.01/0.3 (%s)", v, sub);
      return -1;
    }
    n++;
    t = slash != NULL ? slash + 1 : NULL;
  }
  if (n < min) {
    spec_err(err, cap, "'%s': expected P/R[/H]", v);
    return -1;
  }
  return n;
}

static int spec_one(const char *key, const char *v, lk_dir_spec *d, char *err,
                    size_t cap) {
  if (strcmp(key, "rate") == 0) {
    return sim_parse_rate(v, &d->rate_bps, err, cap);
  }
  if (strcmp(key, "delay") == 0) {
    return sim_parse_time(v, &d->delay, err, cap);
  }
  if (strcmp(key, "queue") == 0) {
    return spec_queue(v, d, err, cap);
  }
  if (strcmp(key, "loss") == 0) {
    if (sim_parse_prob(v, &d->loss, err, cap) != 0) {
      return -1;
    }
    if (d->loss >= 1.0) {
      spec_err(err, cap, "would drop everything: use a fraction below 1 "
               "(burst=TIME/N cuts the link for N packets)");
      return -1;
    }
    return 0;
  }
  if (strcmp(key, "dup") == 0) {
    return sim_parse_prob(v, &d->dup, err, cap);
  }
  if (strcmp(key, "ge") == 0) {
    double p[3] = {0, 0, 1};
    if (spec_prob_list(v, p, 2, 3, err, cap) < 0) {
      return -1;
    }
    /* P = 0 never enters the bad state (the option does nothing); R = 0
     * never leaves it (the link dies at the first bad packet) */
    if (p[0] <= 0 || p[1] <= 0) {
      spec_err(err, cap, "P (good->bad) and R (bad->good) must both be > 0, "
               "e.g. ge=0.01/0.3");
      return -1;
    }
    d->ge_p = p[0];
    d->ge_r = p[1];
    d->ge_h = p[2];
    return 0;
  }
  if (strcmp(key, "burst") == 0) {
    char tmp[64];
    if (strlen(v) >= sizeof(tmp)) {
      spec_err(err, cap, "bad burst '%.40s...': too long", v);
      return -1;
    }
    snprintf(tmp, sizeof(tmp), "%s", v);
    char *slash = strchr(tmp, '/');
    uint64_t n;
    if (slash == NULL) {
      spec_err(err, cap, "bad burst '%s': write TIME/N or Kp/N, e.g. "
               "5s/200 or 1000p/200", v);
      return -1;
    }
    *slash = '\0';
    size_t k = strlen(tmp);
    d->burst_after = 0;
    d->burst_at = 0;
    if (k > 1 && tmp[k - 1] == 'p') {
      tmp[k - 1] = '\0';
      if (sim_parse_uint(tmp, 1, UINT64_MAX, &d->burst_after, err, cap)) {
        return -1;
      }
    } else if (sim_parse_time(tmp, &d->burst_at, err, cap) != 0) {
      return -1;
    }
    if (sim_parse_uint(slash + 1, 1, UINT32_MAX, &n, err, cap) != 0) {
      return -1;
    }
    d->burst_pkts = (uint32_t)n;
    return 0;
  }
  spec_err(err, cap, "unknown key '%s': use rate, delay, queue, loss, ge, "
           "burst or dup", key);
  return -1;
}

/* Applies SPEC ("k=v,k=v") on top of d.  Strict: an empty item (",,",
 * a leading or trailing comma) and a key given twice are errors (strtok
 * skipped empty items, and the second value silently won). */
static int spec_parse(const char *s, lk_dir_spec *d, char *err, size_t cap) {
  char tmp[512], sub[384];
  if (strlen(s) >= sizeof(tmp)) {
    spec_err(err, cap, "link spec too long");
    return -1;
  }
  if (*s == '\0') {
    spec_err(err, cap, "empty link spec: write KEY=VALUE,..., e.g. "
             "rate=50mbit,delay=20ms");
    return -1;
  }
  snprintf(tmp, sizeof(tmp), "%s", s);
  char seen[8][8];
  int nseen = 0;
  for (char *t = tmp; t != NULL;) {
    char *comma = strchr(t, ',');
    if (comma != NULL) {
      *comma = '\0';
    }
    if (*t == '\0') {
      spec_err(err, cap, "'%s': empty item (a comma %s): write "
               "KEY=VALUE,KEY=VALUE", s,
               t == tmp ? "at the start" : comma == NULL ? "at the end"
                                                         : "doubled");
      return -1;
    }
    char *eq = strchr(t, '=');
    if (eq == NULL) {
      spec_err(err, cap, "'%s' in link spec: expected KEY=VALUE", t);
      return -1;
    }
    *eq = '\0';
    for (int i = 0; i < nseen; i++) {
      if (strcmp(seen[i], t) == 0) {
        spec_err(err, cap, "'%s' given twice in '%s' (--ab/--ba change "
                 "one direction of --link)", t, s);
        return -1;
      }
    }
    if (spec_one(t, eq + 1, d, sub, sizeof(sub)) != 0) {
      spec_err(err, cap, "%s=%s: %s", t, eq + 1, sub);
      return -1;
    }
    size_t klen = strlen(t);
    if (nseen < 8 && klen < sizeof(seen[0])) {
      memcpy(seen[nseen++], t, klen + 1);
    }
    t = comma != NULL ? comma + 1 : NULL;
  }
  return 0;
}

static void spec_to_cfg(const lk_dir_spec *d, udccp_tstamp rtt,
                        uint32_t max_pkt, sim_rtlink_cfg *c) {
  *c = (sim_rtlink_cfg){0};
  c->link.rate_bps = d->rate_bps;
  c->link.delay = d->delay;
  c->link.queue_pkts = d->queue_pkts;
  c->link.loss = d->loss;
  c->link.ge_p = d->ge_p;
  c->link.ge_r = d->ge_r;
  c->link.ge_h = d->ge_h;
  c->link.dup = d->dup;
  c->queue_bytes = d->queue_bytes;
  if (d->queue_bdp > 0) {
    long double b = (long double)d->rate_bps * (long double)rtt / 8e9L *
                    d->queue_bdp;
    c->queue_bytes = b < LK_MIN_QUEUE ? LK_MIN_QUEUE : (uint64_t)b;
  }
  c->burst_at = d->burst_at;
  c->burst_after = d->burst_after;
  c->burst_pkts = d->burst_pkts;
  c->max_pkt = max_pkt;
}

/* ------------------------------------------------------------ ports */

/* Enters the network namespace ns (NULL: stay); *saved gets the way back. */
static int ns_enter(const char *ns, int *saved) {
  *saved = -1;
  if (ns == NULL) {
    return 0;
  }
  char path[512];
  snprintf(path, sizeof(path), ns[0] == '/' ? "%s" : "/run/netns/%s", ns);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, PROG ": network namespace %s: %s\n", path,
            strerror(errno));
    return -1;
  }
  *saved = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (*saved < 0 || setns(fd, CLONE_NEWNET) != 0) {
    fprintf(stderr, PROG ": entering %s: %s\n", path, strerror(errno));
    close(fd);
    if (*saved >= 0) {
      close(*saved);
    }
    return -1;
  }
  close(fd);
  return 0;
}

static int ns_leave(int saved) {
  if (saved < 0) {
    return 0;
  }
  int rc = setns(saved, CLONE_NEWNET);
  close(saved);
  if (rc != 0) {
    fprintf(stderr, PROG ": back to own namespace: %s\n", strerror(errno));
  }
  return rc;
}

static int port_open_tun(lk_port *p, const char *name) {
  if (strlen(name) == 0 || strlen(name) >= IFNAMSIZ) {
    fprintf(stderr, PROG ": %s: bad interface name\n", p->spec);
    return -1;
  }
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, PROG ": /dev/net/tun: %s\n", strerror(errno));
    return -1;
  }
  struct ifreq ifr;
  memset(&ifr, 0, sizeof(ifr));
  ifr.ifr_flags = (short)((p->kind == LK_TAP ? IFF_TAP : IFF_TUN) | IFF_NO_PI);
  memcpy(ifr.ifr_name, name, strlen(name));
  if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
    fprintf(stderr, PROG ": %s: TUNSETIFF: %s%s\n", p->spec, strerror(errno),
            errno == EBUSY ? " (another process has it open)" : "");
    close(fd);
    return -1;
  }
  /* Bring it up (a socket in the current namespace does the ioctl). */
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s >= 0 && ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
    ifr.ifr_flags = (short)(ifr.ifr_flags | IFF_UP);
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0) {
      fprintf(stderr, PROG ": %s: up: %s\n", p->spec, strerror(errno));
    }
  }
  if (s >= 0) {
    close(s);
  }
  p->fd = fd;
  return 0;
}

static int parse_v4(const char *s, size_t n, uint16_t port,
                    struct sockaddr_in *sa) {
  char a[INET_ADDRSTRLEN];
  if (n == 0 || n >= sizeof(a)) {
    return -1;
  }
  memcpy(a, s, n);
  a[n] = '\0';
  memset(sa, 0, sizeof(*sa));
  sa->sin_family = AF_INET;
  sa->sin_port = htons(port);
  return inet_pton(AF_INET, a, &sa->sin_addr) == 1 ? 0 : -1;
}

/* "LADDR:LPORT:RADDR:RPORT" */
/* udp:LADDR:LPORT:RADDR:RPORT's value into its two addresses.  Returns 0
 * or -1 (said on stderr). */
static int udp_parse(const lk_port *p, const char *v, struct sockaddr_in *local,
                     struct sockaddr_in *peer) {
  const char *f[4];
  size_t len[4];
  const char *s = v;
  for (int i = 0; i < 4; i++) {
    const char *c = i < 3 ? strchr(s, ':') : s + strlen(s);
    if (c == NULL) {
      goto bad;
    }
    f[i] = s;
    len[i] = (size_t)(c - s);
    s = c + 1;
  }
  /* ports are all digits: "5000x" or "6000:extra" is a typo, not 5000 */
  if (len[1] == 0 || len[3] == 0 || strspn(f[1], "0123456789") != len[1] ||
      strspn(f[3], "0123456789") != len[3]) {
    goto bad;
  }
  unsigned long lp = strtoul(f[1], NULL, 10), rp = strtoul(f[3], NULL, 10);
  if (lp == 0 || lp > 65535 || rp == 0 || rp > 65535 ||
      parse_v4(f[0], len[0], (uint16_t)lp, local) != 0 ||
      parse_v4(f[2], len[2], (uint16_t)rp, peer) != 0) {
    goto bad;
  }
  return 0;
bad:
  fprintf(stderr, PROG ": %s: write udp:LADDR:LPORT:RADDR:RPORT (IPv4 "
                  "addresses, ports 1..65535)\n",
          p->spec);
  return -1;
}

static int port_open_udp(lk_port *p, const char *v) {
  struct sockaddr_in local;
  if (udp_parse(p, v, &local, &p->peer) != 0) {
    return -1;
  }
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int big = 4 << 20;
  if (fd < 0) {
    fprintf(stderr, PROG ": %s: socket: %s\n", p->spec, strerror(errno));
    return -1;
  }
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
  if (bind(fd, (struct sockaddr *)&local, sizeof(local)) != 0) {
    fprintf(stderr, PROG ": %s: bind: %s\n", p->spec, strerror(errno));
    close(fd);
    return -1;
  }
  p->fd = fd;
  return 0;
}

/* Reads p->spec: its kind (p->kind), its value and namespace (pointers
 * into tmp, cap bytes).  Checks the syntax only, opens nothing.  Returns
 * 0, or -1 said on stderr (a usage error: exit status 2). */
static int port_parse(lk_port *p, char *tmp, size_t cap, char **pv,
                      char **pns) {
  if (strlen(p->spec) >= cap) {
    fprintf(stderr, PROG ": port spec too long\n");
    return -1;
  }
  snprintf(tmp, cap, "%s", p->spec);
  char *ns = strchr(tmp, '@');
  if (ns != NULL) {
    *ns++ = '\0';
  }
  char *v = strchr(tmp, ':');
  if (v == NULL || v[1] == '\0') {
    goto bad;
  }
  *v++ = '\0';
  if (strcmp(tmp, "tun") == 0 || strcmp(tmp, "tap") == 0) {
    p->kind = strcmp(tmp, "tun") == 0 ? LK_TUN : LK_TAP;
    if (strlen(v) >= IFNAMSIZ || strchr(v, '/') != NULL) {
      /* a usage error, before the other port is opened (it was exit 1,
       * found when opening) */
      fprintf(stderr, PROG ": port '%s': interface name '%s' is not "
              "valid (at most %d characters, no '/')\n", p->spec, v,
              IFNAMSIZ - 1);
      return -1;
    }
  } else if (strcmp(tmp, "udp") == 0) {
    struct sockaddr_in a, b;
    p->kind = LK_UDP;
    if (udp_parse(p, v, &a, &b) != 0) {
      return -1;
    }
  } else {
    goto bad;
  }
  if (ns != NULL && *ns == '\0') {
    goto bad;
  }
  *pv = v;
  *pns = ns;
  return 0;
bad:
  fprintf(stderr, PROG ": port '%s': write tun:NAME, tap:NAME or "
          "udp:LADDR:LPORT:RADDR:RPORT, optionally @NETNS\n", p->spec);
  return -1;
}

static int port_open(lk_port *p) {
  char tmp[512], *v, *ns;
  p->fd = -1;
  if (port_parse(p, tmp, sizeof(tmp), &v, &ns) != 0) {
    return -1;
  }
  int saved;
  if (ns_enter(ns, &saved) != 0) {
    return -1;
  }
  int rc = p->kind == LK_UDP ? port_open_udp(p, v) : port_open_tun(p, v);
  if (ns_leave(saved) != 0) {
    return -1;
  }
  return rc;
}

static void port_write(lk_port *p, const uint8_t *pkt, uint32_t len) {
  ssize_t n;
  if (p->kind == LK_UDP) {
    n = sendto(p->fd, pkt, len, 0, (const struct sockaddr *)&p->peer,
               sizeof(p->peer));
  } else {
    n = write(p->fd, pkt, len);
  }
  if (n != (ssize_t)len) {
    p->write_errors++;
  }
}

/* ------------------------------------------------------------ stats */

static void print_stats(const char *name, const sim_rtlink *l,
                        const lk_port *out, int json, int last) {
  const sim_rtlink_stats *s = &l->stats;
  const struct {
    const char *key;
    uint64_t v;
  } kv[] = {{"offered", s->offered},
            {"offered_bytes", s->offered_bytes},
            {"forwarded", s->forwarded},
            {"delivered", s->delivered},
            {"delivered_bytes", s->delivered_bytes},
            {"lost_random", s->lost_random},
            {"lost_burst", s->lost_burst},
            {"lost_fixed_burst", s->lost_fixed_burst},
            {"dropped_queue", s->dropped_queue},
            {"dropped_store", s->dropped_store},
            {"duplicated", s->duplicated},
            {"write_errors", out->write_errors},
            {"in_flight", l->count},
            {"max_backlog_pkts", s->max_backlog_pkts},
            {"max_backlog_bytes", s->max_backlog_bytes}};
  size_t n = sizeof(kv) / sizeof(kv[0]);
  if (json) {
    printf("  \"%s\": {", name);
    for (size_t i = 0; i < n; i++) {
      printf("\"%s\": %" PRIu64 "%s", kv[i].key, kv[i].v,
             i + 1 < n ? ", " : "");
    }
    printf("}%s\n", last ? "" : ",");
  } else {
    printf(PROG ": %s", name);
    for (size_t i = 0; i < n; i++) {
      printf(" %s=%" PRIu64, kv[i].key, kv[i].v);
    }
    printf("\n");
  }
}

static void report(const sim_rtlink link[2], const lk_port port[2], int json,
                   double secs) {
  if (json) {
    printf("{\n  \"duration_s\": %.3f,\n", secs);
  } else {
    printf(PROG ": duration_s=%.3f\n", secs);
  }
  print_stats("a2b", &link[0], &port[1], json, 0);
  print_stats("b2a", &link[1], &port[0], json, 1);
  if (json) {
    printf("}\n");
  }
  fflush(stdout);
}

/* ------------------------------------------------------------ main loop */

/* Reads up to LK_READ_BUDGET packets from in into link l. */
static int pump_in(lk_port *in, sim_rtlink *l, uint8_t *buf) {
  for (int i = 0; i < LK_READ_BUDGET; i++) {
    ssize_t n = in->kind == LK_UDP ? recv(in->fd, buf, LK_BUF, 0)
                                   : read(in->fd, buf, LK_BUF);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return 0;
      }
      if (in->kind == LK_UDP && errno == ECONNREFUSED) {
        continue;
      }
      fprintf(stderr, PROG ": read %s: %s\n", in->spec, strerror(errno));
      return -1;
    }
    in->rx++;
    sim_rtlink_offer(l, buf, (uint32_t)n, now_ns());
  }
  return 0;
}

static void pump_out(sim_rtlink *l, lk_port *out, udccp_tstamp now) {
  const uint8_t *pkt;
  uint32_t len;
  while ((pkt = sim_rtlink_peek(l, now, &len)) != NULL) {
    port_write(out, pkt, len);
    sim_rtlink_pop(l);
  }
}

static int run(lk_port port[2], sim_rtlink link[2], int sfd,
               udccp_tstamp t_end, int json, udccp_tstamp t0) {
  static uint8_t buf[LK_BUF];
  struct pollfd pfd[3] = {{.fd = port[0].fd, .events = POLLIN},
                          {.fd = port[1].fd, .events = POLLIN},
                          {.fd = sfd, .events = POLLIN}};
  for (;;) {
    udccp_tstamp now = now_ns();
    pump_out(&link[0], &port[1], now);
    pump_out(&link[1], &port[0], now);
    if (now >= t_end) {
      return 0;
    }
    udccp_tstamp next = t_end;
    for (int d = 0; d < 2; d++) {
      udccp_tstamp t = sim_rtlink_next(&link[d]);
      next = t < next ? t : next;
    }
    now = now_ns();
    udccp_tstamp wait = next > now ? next - now : 0;
    struct timespec ts = {.tv_sec = (time_t)(wait / UDCCP_NS_PER_S),
                          .tv_nsec = (long)(wait % UDCCP_NS_PER_S)};
    int n = ppoll(pfd, 3, &ts, NULL);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
      return -1;
    }
    for (int i = 0; i < 2; i++) {
      if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
        fprintf(stderr, PROG ": port %s failed\n", port[i].spec);
        return -1;
      }
      if ((pfd[i].revents & POLLIN) && pump_in(&port[i], &link[i], buf) != 0) {
        return -1;
      }
    }
    if (pfd[2].revents & POLLIN) {
      struct signalfd_siginfo si;
      if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGUSR1) {
          report(link, port, json, (double)(now_ns() - t0) / 1e9);
        } else {
          return 0;
        }
      }
    }
  }
}

int main(int argc, char **argv) {
  enum { OPT_LINK = 256, OPT_AB, OPT_BA, OPT_SEED, OPT_TIME, OPT_MAXPKT,
         OPT_JSON, OPT_VERSION };
  static const struct option lopts[] = {
      {"port-a", required_argument, NULL, 'a'},
      {"port-b", required_argument, NULL, 'b'},
      {"link", required_argument, NULL, OPT_LINK},
      {"ab", required_argument, NULL, OPT_AB},
      {"ba", required_argument, NULL, OPT_BA},
      {"seed", required_argument, NULL, OPT_SEED},
      {"time", required_argument, NULL, OPT_TIME},
      {"max-packet", required_argument, NULL, OPT_MAXPKT},
      {"json", no_argument, NULL, OPT_JSON},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, OPT_VERSION},
      {NULL, 0, NULL, 0}};
  lk_port port[2] = {{.fd = -1}, {.fd = -1}};
  lk_dir_spec dir[2] = {{.queue_bdp = 1}, {.queue_bdp = 1}};
  const char *both = NULL, *ab = NULL, *ba = NULL;
  uint64_t seed = 1, max_pkt = 9216;
  udccp_tstamp duration = 0;
  int json = 0, c;
  char err[256];
  while ((c = getopt_long(argc, argv, "a:b:h", lopts, NULL)) != -1) {
    switch (c) {
    case 'a': port[0].spec = optarg; break;
    case 'b': port[1].spec = optarg; break;
    case OPT_LINK: both = optarg; break;
    case OPT_AB: ab = optarg; break;
    case OPT_BA: ba = optarg; break;
    case OPT_SEED:
      if (sim_parse_uint(optarg, 0, UINT64_MAX, &seed, err, sizeof(err))) {
        fprintf(stderr, PROG ": --seed: %s\n", err);
        return 2;
      }
      break;
    case OPT_TIME:
      if (sim_parse_time(optarg, &duration, err, sizeof(err)) != 0) {
        fprintf(stderr, PROG ": --time: %s\n", err);
        return 2;
      }
      if (duration == 0) { /* 0 meant "until a signal" */
        fprintf(stderr, PROG ": --time must be > 0, e.g. 60s (without "
                "--time: until SIGINT or SIGTERM)\n");
        return 2;
      }
      break;
    case OPT_MAXPKT:
      if (sim_parse_uint(optarg, 64, 65535, &max_pkt, err, sizeof(err))) {
        fprintf(stderr, PROG ": --max-packet: %s\n", err);
        return 2;
      }
      break;
    case OPT_JSON: json = 1; break;
    case 'h': usage(stdout); return 0;
    case OPT_VERSION: printf(PROG " (udccp) %s\n", UDCCP_VERSION); return 0;
    default: fprintf(stderr, "Try '" PROG " --help'.\n"); return 2;
    }
  }
  if (optind != argc || port[0].spec == NULL || port[1].spec == NULL) {
    fprintf(stderr, PROG ": need -a PORT and -b PORT (--help)\n");
    return 2;
  }
  /* The ports' syntax first: a bad spec is a usage error (exit 2). */
  for (int i = 0; i < 2; i++) {
    char tmp[512], *v, *ns;
    if (port_parse(&port[i], tmp, sizeof(tmp), &v, &ns) != 0) {
      return 2;
    }
  }
  /* TUN carries IP packets, TAP Ethernet frames: one cannot be written
   * into the other (doc/linkem.md). */
  if ((port[0].kind == LK_TUN && port[1].kind == LK_TAP) ||
      (port[0].kind == LK_TAP && port[1].kind == LK_TUN)) {
    fprintf(stderr, PROG ": %s and %s carry different layers (IP packets "
            "vs Ethernet frames): use tun with tun, or tap with tap\n",
            port[0].spec, port[1].spec);
    return 2;
  }
  const char *specs[2][2] = {{both, ab}, {both, ba}};
  for (int d = 0; d < 2; d++) {
    for (int k = 0; k < 2; k++) {
      if (specs[d][k] != NULL &&
          spec_parse(specs[d][k], &dir[d], err, sizeof(err)) != 0) {
        fprintf(stderr, PROG ": %s: %s\n", k == 0 ? "--link" : d ? "--ba" : "--ab",
                err);
        return 2;
      }
    }
    if (dir[d].rate_bps == 0) {
      fprintf(stderr, PROG ": no rate for %s: give --link rate=RATE,...\n",
              d ? "B->A" : "A->B");
      return 2;
    }
  }
  udccp_tstamp rtt = dir[0].delay + dir[1].delay;
  sim_rtlink link[2];
  udccp_tstamp t0 = now_ns();
  for (int d = 0; d < 2; d++) {
    sim_rtlink_cfg cfg;
    spec_to_cfg(&dir[d], rtt, (uint32_t)max_pkt, &cfg);
    if (sim_rtlink_init(&link[d], &cfg, seed, (uint64_t)d, t0) != 0) {
      /* a link larger than the emulator's bound is the spec's fault (a
       * usage error, exit 2); memory missing at run time is not */
      int too_big = sim_rtlink_store_size(&cfg) == 0;
      fprintf(stderr, PROG ": %s: cannot set up the link: %s\n",
              d ? "B->A" : "A->B",
              too_big ? "queue + rate x delay need more than 1 GiB of store"
                      : "out of memory");
      return too_big ? 2 : 1;
    }
  }
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGUSR1);
  sigaddset(&mask, SIGPIPE);
  sigprocmask(SIG_BLOCK, &mask, NULL);
  sigdelset(&mask, SIGPIPE);
  int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  /* Sleep exactly: the default 50 us timer slack would delay every packet. */
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  int rc = 1;
  if (sfd >= 0 && port_open(&port[0]) == 0 && port_open(&port[1]) == 0) {
    for (int d = 0; d < 2; d++) {
      const sim_rtlink_cfg *k = &link[d].cfg;
      fprintf(stderr, PROG ": %s rate=%" PRIu64 "bit delay=%" PRIu64
              "ns queue=%" PRIu64 "B/%" PRIu32 "p loss=%g store=%zuB\n",
              d ? "b2a" : "a2b", k->link.rate_bps, k->link.delay,
              k->queue_bytes, k->link.queue_pkts, k->link.loss, link[d].cap);
    }
    fprintf(stderr, PROG ": ready %s <-> %s\n", port[0].spec, port[1].spec);
    t0 = now_ns();
    link[0].start = link[1].start = t0;
    udccp_tstamp t_end = duration ? t0 + duration : UINT64_MAX;
    rc = run(port, link, sfd, t_end, json, t0) == 0 ? 0 : 1;
    report(link, port, json, (double)(now_ns() - t0) / 1e9);
  } else if (sfd < 0) {
    fprintf(stderr, PROG ": signalfd: %s\n", strerror(errno));
  }
  for (int i = 0; i < 2; i++) {
    if (port[i].fd >= 0) {
      close(port[i].fd);
    }
    sim_rtlink_free(&link[i]);
  }
  if (sfd >= 0) {
    close(sfd);
  }
  return rc;
}

/*
 * udccp-cat: netcat for DCCP datagrams (DESIGN.md §4).
 *
 *   udccp-cat [-l] [-p PORT] [--raw] [--ccid N] [--service CODE] [HOST]
 *
 * Each line of stdin (newline included) becomes one datagram; a line
 * longer than the connection's MPS is cut into MPS-sized datagrams.  Every
 * datagram received is written to stdout as it is.  At EOF on stdin the
 * connection is closed gracefully: the send queue drains, then Close, and
 * the program exits once the peer has acknowledged the close.  When the
 * peer closes first, udccp-cat writes what it received and exits.
 *
 * A peer that goes away is reported: a Reset from it (RFC 4340 §5.6) as
 * "reset by the peer" with its reason, silence beyond --idle-timeout as a
 * timeout.  SIGINT/SIGTERM abort the connection with Reset "Aborted", so
 * the peer learns at once that this end is gone.
 *
 * It drives the endpoint from its own poll() loop (udccp_endpoint_fd,
 * udccp_endpoint_timeout_ms, udccp_endpoint_process), the way an
 * application embeds udccp in an event loop.
 */
#define _GNU_SOURCE /* getopt_long, poll */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <udccp/udccp.h>

#include "../io/parse.h"

#define CAT_DEFAULT_PORT 5202
#define CAT_DEFAULT_SERVICE 0x43415400u /* "CAT" */
#define CAT_INBUF (256 * 1024)

typedef struct cat_opts {
  int listen, raw, no_stdin, verbose;
  uint16_t port, udp_port;
  uint8_t ccid;
  uint32_t service;
  int wait_ms;
  uint64_t idle_ns;
  const char *host;
  uint8_t cookies;             /* -l: enum udccp_init_cookie */
  uint32_t half_open, backlog; /* -l: 0 = the library's default */
} cat_opts;

static void usage(FILE *f) {
  fprintf(f,
"usage: udccp-cat [-l] [-p PORT] [--udp-port PORT] [--raw] [--ccid N]\n"
"                 [--service CODE] [-d] [-w SECONDS] [-i SECONDS]\n"
"                 [--cookies MODE] [--half-open N] [--backlog N] [HOST]\n"
"\n"
"netcat for DCCP datagrams: stdin lines become datagrams, received\n"
"datagrams go to stdout.  EOF on stdin closes the connection cleanly.\n"
"\n"
"  -l, --listen          wait for one connection instead of connecting\n"
"  -p, --port PORT       DCCP port (default %d); over DCCP-UDP also the\n"
"                        UDP port unless --udp-port is given\n"
"      --udp-port PORT   DCCP-UDP: the UDP port (default %d, or PORT when\n"
"                        -p is given)\n"
"      --raw             native DCCP over raw IP sockets (needs root)\n"
"      --ccid N          CCID to ask for: 2, 3 or 4 (default 2)\n"
"      --service CODE    Service Code: a number or up to 4 characters\n"
"                        (default \"CAT\")\n"
"  -d, --no-stdin        do not read stdin: only receive, until the peer\n"
"                        closes\n"
"  -w, --wait SECONDS    give up connecting/accepting after this long\n"
"                        (default 10 for connect, none for -l)\n"
"  -i, --idle-timeout SECONDS\n"
"                        reset the connection when nothing arrives from the\n"
"                        peer for this long: it is gone (killed, or the\n"
"                        network drops everything); 0 (default) waits forever\n"
"                        as DCCP itself does\n"
"      --cookies MODE    listener: when to answer a Request with an Init\n"
"                        Cookie and keep no state for the client until it\n"
"                        answers (RFC 4340 §8.1.4): auto (once --half-open\n"
"                        handshakes are pending; default), always, never\n"
"      --half-open N     listener: handshakes kept half-open (default %d;\n"
"                        with --cookies never, Reset Too Busy beyond)\n"
"      --backlog N       listener: completed connections waiting to be\n"
"                        accepted before Reset Too Busy (default %d)\n"
"  -v, --verbose         report the connection on stderr\n"
"  -h, --help            this help\n"
"      --version         print the version\n",
          CAT_DEFAULT_PORT, UDCCP_UDP_PORT_DEFAULT,
          UDCCP_HALF_OPEN_MAX_DEFAULT, UDCCP_BACKLOG_DEFAULT);
}

static int report(const char *what, int err) {
  fprintf(stderr, "udccp-cat: %s: %s\n", what, udccp_io_strerror(err));
  return 1;
}

/* The signal that asked us to stop (0: none).  Caught once connected, so
 * that the main loop aborts the connection instead of leaving the peer
 * waiting; a second one ends the program at once. */
static volatile sig_atomic_t g_sig;

static void on_signal(int sig) {
  if (g_sig != 0) {
    _exit(128 + sig);
  }
  g_sig = sig;
}

/* Why the connection died, in words that name the peer's part. */
static void report_dead(const cat_opts *o, udccp_sock *s, int err) {
  int rc = udccp_sock_reset_code(s);
  if (err == UDCCP_ERR_RESET) {
    fprintf(stderr, "udccp-cat: connection reset by the peer (Reset: %s)\n",
            udccp_reset_code_str(rc));
  } else if (err == UDCCP_ERR_TIMEOUT) {
    fprintf(stderr, "udccp-cat: connection timed out: nothing from the peer "
                    "for %.1f s (peer gone, or the network drops its "
                    "packets); Reset sent\n",
            (double)o->idle_ns / 1e9);
  } else {
    fprintf(stderr, "udccp-cat: connection: %s (Reset: %s)\n",
            udccp_io_strerror(err), udccp_reset_code_str(rc));
  }
}

/* Writes every datagram waiting; returns 0, or a negative code once the
 * connection is over (UDCCP_ERR_CLOSED: the peer closed). */
static int pump_out(udccp_sock *s, uint8_t *buf, size_t cap) {
  for (;;) {
    udccp_ssize n = udccp_recv(s, buf, cap, 0);
    if (n == UDCCP_ERR_AGAIN) {
      return 0;
    }
    if (n < 0) {
      return (int)n;
    }
    if (n > 0 && fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) {
      return UDCCP_ERR_SOCKET;
    }
  }
}

static void print_stats(udccp_sock *s) {
  udccp_conn_info info;
  udccp_sock_get_info(s, &info);
  fprintf(stderr,
          "udccp-cat: %llu datagrams sent, %llu received, %llu dropped here "
          "(receive queue full), %llu declared lost by the CCID\n"
          "udccp-cat: packets: %llu sent, %llu received, %llu refused by "
          "the RFC 4340 rules, %llu malformed, %llu bad checksum, "
          "%llu/%llu Syncs sent/received, %llu dropped by the send queue\n",
          (unsigned long long)info.data_pkts_sent,
          (unsigned long long)info.data_pkts_recv,
          (unsigned long long)info.rx_qdrops,
          (unsigned long long)info.pkts_lost,
          (unsigned long long)info.pkts_sent,
          (unsigned long long)info.pkts_recv,
          (unsigned long long)info.pkts_dropped,
          (unsigned long long)info.pkts_malformed,
          (unsigned long long)info.pkts_bad_cksum,
          (unsigned long long)info.syncs_sent,
          (unsigned long long)info.syncs_recv,
          (unsigned long long)info.tx_qdrops);
}

static int run(const cat_opts *o, udccp_endpoint *ep, udccp_sock *s) {
  size_t cap = 65536;
  uint8_t *rbuf = malloc(cap);
  char *in = malloc(CAT_INBUF);
  if (rbuf == NULL || in == NULL) {
    free(rbuf);
    free(in);
    return 1;
  }
  size_t in_len = 0, in_off = 0;
  int stdin_open = !o->no_stdin;
  int status = 0;
  for (;;) {
    int rv = pump_out(s, rbuf, cap);
    fflush(stdout);
    if (rv != 0) {
      if (rv != UDCCP_ERR_CLOSED) {
        report_dead(o, s, rv);
        status = 1;
      }
      break;
    }
    if (g_sig != 0) {
      fprintf(stderr, "udccp-cat: %s: connection aborted (Reset sent to the "
                      "peer)\n",
              g_sig == SIGINT ? "interrupted" : "terminated");
      udccp_abort(s);
      s = NULL;
      status = 128 + g_sig;
      break;
    }
    /* Send what stdin gave us, a line (or an MPS-sized piece) at a time. */
    int blocked = 0;
    while (in_off < in_len) {
      size_t mps = udccp_sock_get_mps(s);
      char *start = in + in_off;
      size_t avail = in_len - in_off;
      char *nl = memchr(start, '\n', avail);
      size_t n = nl ? (size_t)(nl - start) + 1 : avail;
      if (nl == NULL && stdin_open && avail < mps) {
        break; /* wait for the rest of the line */
      }
      if (n > mps) {
        n = mps;
      }
      udccp_ssize r = udccp_send(s, start, n, 0);
      if (r == UDCCP_ERR_AGAIN) {
        blocked = 1;
        break;
      }
      if (r < 0) {
        report_dead(o, s, (int)r);
        (void)udccp_close(s, 0);
        free(rbuf);
        free(in);
        return 1;
      }
      in_off += n;
    }
    if (in_off == in_len) {
      in_off = in_len = 0;
    } else if (in_off > CAT_INBUF / 2) {
      memmove(in, in + in_off, in_len - in_off);
      in_len -= in_off;
      in_off = 0;
    }
    if (!stdin_open && in_len == 0 && !o->no_stdin) {
      /* EOF and all queued: close gracefully, waiting (bounded) for the
       * queue to drain and the peer to acknowledge, so that the counters
       * printed afterwards include every datagram and every loss. */
      int crv = udccp_shutdown(s);
      for (int k = 0; crv == 0 && k < 3000 && g_sig == 0; k++) {
        int st = udccp_sock_state(s);
        if (st == UDCCP_STATE_TIMEWAIT || st == UDCCP_STATE_CLOSED) {
          break;
        }
        int t = udccp_endpoint_timeout_ms(ep);
        struct pollfd p1 = {udccp_endpoint_fd(ep), POLLIN, 0};
        (void)poll(&p1, 1, t < 0 || t > 10 ? 10 : t);
        (void)udccp_endpoint_process(ep);
        (void)pump_out(s, rbuf, cap);
      }
      if (o->verbose) {
        print_stats(s);
      }
      if (g_sig != 0) {
        udccp_abort(s);
        s = NULL;
        status = 128 + g_sig;
        break;
      }
      crv = udccp_close(s, 30000);
      s = NULL;
      if (crv != 0) {
        status = report("close", crv);
      }
      break;
    }
    struct pollfd pfd[2];
    pfd[0].fd = udccp_endpoint_fd(ep);
    pfd[0].events = POLLIN;
    nfds_t nfds = 1;
    if (stdin_open && !blocked && in_len < CAT_INBUF) {
      pfd[1].fd = STDIN_FILENO;
      pfd[1].events = POLLIN;
      nfds = 2;
    }
    int t = udccp_endpoint_timeout_ms(ep);
    if (blocked && (t < 0 || t > 10)) {
      t = 10; /* re-offer queued lines soon */
    }
    if (poll(pfd, nfds, t) < 0 && errno != EINTR) {
      status = 1;
      break;
    }
    (void)udccp_endpoint_process(ep);
    if (nfds == 2 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t r = read(STDIN_FILENO, in + in_len, CAT_INBUF - in_len);
      if (r > 0) {
        in_len += (size_t)r;
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        stdin_open = 0;
      }
    }
  }
  if (o->verbose && s != NULL) {
    print_stats(s);
  }
  if (s != NULL) {
    (void)udccp_close(s, 2000);
  }
  fflush(stdout);
  free(rbuf);
  free(in);
  return status;
}

int main(int argc, char **argv) {
  cat_opts o;
  memset(&o, 0, sizeof(o));
  o.port = CAT_DEFAULT_PORT;
  o.udp_port = UDCCP_UDP_PORT_DEFAULT;
  o.service = CAT_DEFAULT_SERVICE;
  o.wait_ms = -2;
  int port_set = 0, udp_port_set = 0;
  enum { OPT_RAW = 256, OPT_CCID, OPT_UDP_PORT, OPT_SERVICE, OPT_VERSION,
         OPT_COOKIES, OPT_HALF_OPEN, OPT_BACKLOG };
  static const struct option lopts[] = {
      {"listen", no_argument, NULL, 'l'},
      {"port", required_argument, NULL, 'p'},
      {"udp-port", required_argument, NULL, OPT_UDP_PORT},
      {"raw", no_argument, NULL, OPT_RAW},
      {"ccid", required_argument, NULL, OPT_CCID},
      {"service", required_argument, NULL, OPT_SERVICE},
      {"no-stdin", no_argument, NULL, 'd'},
      {"wait", required_argument, NULL, 'w'},
      {"idle-timeout", required_argument, NULL, 'i'},
      {"verbose", no_argument, NULL, 'v'},
      {"cookies", required_argument, NULL, OPT_COOKIES},
      {"half-open", required_argument, NULL, OPT_HALF_OPEN},
      {"backlog", required_argument, NULL, OPT_BACKLOG},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, OPT_VERSION},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "lp:dw:i:vh", lopts, NULL)) != -1) {
    char *end = NULL;
    unsigned long v;
    uint64_t ns;
    switch (c) {
    case 'l': o.listen = 1; break;
    case 'p':
    case OPT_UDP_PORT:
      v = strtoul(optarg, &end, 10);
      if (end == optarg || *end != '\0' || v == 0 || v > 65535) {
        fprintf(stderr, "udccp-cat: invalid port '%s' (1..65535)\n", optarg);
        return 2;
      }
      if (c == 'p') {
        o.port = (uint16_t)v;
        port_set = 1;
      } else {
        o.udp_port = (uint16_t)v;
        udp_port_set = 1;
      }
      break;
    case OPT_RAW: o.raw = 1; break;
    case OPT_CCID:
      v = strtoul(optarg, &end, 10);
      if (end == optarg || *end != '\0' || v < 2 || v > 4) {
        fprintf(stderr, "udccp-cat: --ccid must be 2, 3 or 4\n");
        return 2;
      }
      o.ccid = (uint8_t)v;
      break;
    case OPT_SERVICE:
      if (udccp_io_parse_service(optarg, &o.service) != 0) {
        fprintf(stderr, "udccp-cat: invalid service code '%s' (a number "
                        "below 4294967295, or 1-4 ASCII characters)\n",
                optarg);
        return 2;
      }
      break;
    case 'd': o.no_stdin = 1; break;
    case 'w':
      if (udccp_io_parse_time(optarg, &ns) != 0 ||
          ns > 86400 * UDCCP_NS_PER_S) {
        fprintf(stderr, "udccp-cat: invalid time '%s'\n", optarg);
        return 2;
      }
      o.wait_ms = (int)(ns / UDCCP_NS_PER_MS);
      break;
    case 'i':
      if (udccp_io_parse_time(optarg, &o.idle_ns) != 0 ||
          o.idle_ns > 86400 * UDCCP_NS_PER_S) {
        fprintf(stderr, "udccp-cat: invalid idle timeout '%s'\n", optarg);
        return 2;
      }
      break;
    case 'v': o.verbose = 1; break;
    case OPT_COOKIES:
      if (udccp_io_parse_cookie_mode(optarg, &o.cookies) != 0) {
        fprintf(stderr,
                "udccp-cat: --cookies must be auto, always or never\n");
        return 2;
      }
      break;
    case OPT_HALF_OPEN:
    case OPT_BACKLOG:
      if (udccp_io_parse_bound(optarg, c == OPT_BACKLOG ? &o.backlog
                                                        : &o.half_open) != 0) {
        fprintf(stderr, "udccp-cat: invalid count '%s' (1..4294967294 or "
                        "unlimited)\n", optarg);
        return 2;
      }
      break;
    case 'h': usage(stdout); return 0;
    case OPT_VERSION: printf("udccp-cat %s\n", UDCCP_VERSION); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind < argc) {
    o.host = argv[optind++];
  }
  if (optind < argc) {
    fprintf(stderr, "udccp-cat: unexpected argument '%s'\n", argv[optind]);
    return 2;
  }
  if (o.listen == (o.host != NULL)) {
    fprintf(stderr, "udccp-cat: give HOST to connect, or -l to listen "
                    "(see --help)\n");
    return 2;
  }
  if (port_set && !udp_port_set) {
    o.udp_port = o.port;
  }
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.transport = o.raw ? UDCCP_TRANSPORT_RAW : UDCCP_TRANSPORT_UDP;
  /* DCCP has no flow control: a reader that falls behind loses datagrams
   * (Data Dropped, RFC 4340 §11.7).  A deep receive queue lets a file
   * cross intact even when this process is short of CPU for a while. */
  udccp_settings st;
  udccp_settings_default(&st);
  st.rx_qlen = 8192;
  st.idle_timeout = o.idle_ns;
  cfg.settings = &st;
  if (o.listen) {
    cfg.local_port = o.udp_port;
    cfg.init_cookie = o.cookies;
    cfg.half_open_max = o.half_open;
    cfg.backlog = o.backlog;
  } else {
    cfg.remote_udp_port = o.udp_port;
  }
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv == UDCCP_ERR_ADDRINUSE) {
    fprintf(stderr, "udccp-cat: UDP port %u is already in use; choose "
                    "another with -p or --udp-port\n",
            (unsigned)o.udp_port);
    return 1;
  }
  if (rv == UDCCP_ERR_PERM) {
    fprintf(stderr, "udccp-cat: --raw needs root (or CAP_NET_RAW)\n");
    return 1;
  }
  if (rv != 0) {
    return report("cannot open the endpoint", rv);
  }
  udccp_sock *s = NULL;
  if (o.listen) {
    rv = udccp_listen(ep, o.port, &o.service, 1);
    if (rv == 0) {
      rv = udccp_accept(ep, &s, o.wait_ms == -2 ? -1 : o.wait_ms);
    }
    if (rv != 0) {
      udccp_endpoint_del(ep);
      return report(rv == UDCCP_ERR_AGAIN ? "no connection came" : "listen",
                    rv);
    }
  } else {
    rv = udccp_connect(ep, &s, o.host, o.port, o.service, o.ccid,
                       o.wait_ms == -2 ? 10000 : o.wait_ms);
    if (rv != 0) {
      if (rv == UDCCP_ERR_REFUSED) {
        fprintf(stderr, "udccp-cat: connection to %s port %u refused (wrong "
                        "service code, or nobody listening)\n",
                o.host, (unsigned)o.port);
      } else if (rv == UDCCP_ERR_RESOLVE) {
        fprintf(stderr, "udccp-cat: cannot resolve host '%s'\n", o.host);
      } else if (rv == UDCCP_ERR_INVALID_ARGUMENT && o.ccid != 0) {
        fprintf(stderr, "udccp-cat: CCID %u is not available in this build "
                        "of libudccp; try --ccid 2\n", (unsigned)o.ccid);
      } else {
        report("connect", rv);
      }
      udccp_endpoint_del(ep);
      return 1;
    }
  }
  if (o.verbose) {
    const udccp_path *p = udccp_sock_get_path(s);
    fprintf(stderr, "udccp-cat: connected, DCCP ports %u -> %u, MPS %zu\n",
            (unsigned)p->local_port, (unsigned)p->remote_port,
            udccp_sock_get_mps(s));
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
  int status = run(&o, ep, s);
  udccp_endpoint_del(ep);
  return status;
}

/* SPDX-License-Identifier: MIT */
/*
 * udccp-cat's command line: netcat's shape (HOST PORT, -l [ADDR] PORT,
 * -p kept), every option in --help with its default (tools/cat/cat.h).
 */
#define _GNU_SOURCE /* getopt_long */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/parse.h"
#include "cat.h"

static void usage(FILE *f) {
  fprintf(f,
"usage: udccp-cat [options] HOST PORT\n"
"       udccp-cat -l [options] [ADDR] PORT\n"
"\n"
"netcat for DCCP datagrams: stdin lines become datagrams, received\n"
"datagrams go to stdout.  EOF on stdin closes the connection once the\n"
"queue drained; with nothing sent (empty stdin) it keeps receiving until\n"
"the peer closes.  Unsent input and lost datagrams are reported on stderr\n"
"and make the exit status 1.\n"
"\n"
"  -l, --listen          wait for a connection instead of connecting\n"
"  -k, --keep-open       with -l: after a connection, wait for the next\n"
"  -p, --port PORT       DCCP port, as the PORT argument (default %d);\n"
"                        over DCCP-UDP also the UDP port unless --udp-port\n"
"                        is given\n"
"      --udp-port PORT   DCCP-UDP: the UDP port (default %d, or PORT when\n"
"                        a port is given)\n"
"  -4                    IPv4 only\n"
"  -6                    IPv6 only\n"
"  -s, --source ADDR     local address to bind (numeric)\n"
"      --raw             native DCCP over raw IP sockets (needs root)\n"
"      --ccid N          CCID to ask for: 2, 3, 4, cubic (CCID 249), bbr\n"
"                        (CCID 248) or a registered experimental N\n"
"                        (default 2)\n"
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
"      --keepalive IDLE[,INTERVAL[,PROBES]]\n"
"                        probe a silent peer with a Sync after IDLE, then\n"
"                        every INTERVAL; PROBES unanswered probes end the\n"
"                        connection (default 60,10,3: a vanished peer is\n"
"                        dropped within 90 s); 0 or off: never\n"
"      --cookies MODE    listener: when to answer a Request with an Init\n"
"                        Cookie and keep no state for the client until it\n"
"                        answers (RFC 4340 §8.1.4): auto (once --half-open\n"
"                        handshakes are pending; default), always, never\n"
"      --half-open N     listener: handshakes kept half-open (default %d;\n"
"                        with --cookies never, Reset Too Busy beyond)\n"
"      --backlog N       listener: completed connections waiting to be\n"
"                        accepted before Reset Too Busy (default %d)\n"
"      --pcap FILE       write every packet sent and received to FILE\n"
"                        (pcap; DCCP-UDP as UDP/IP: open it in Wireshark\n"
"                        with tools/wireshark/dccp-udp.lua)\n"
"      --multipath [ADDR,ADDR...]  Multipath DCCP (RFC 9897; with --raw too): a\n"
"                        listener accepts multipath connections; a client\n"
"                        opens one subflow from each local ADDR (numeric;\n"
"                        default: the route's source only; write\n"
"                        --multipath=ADDR,ADDR or put the list before HOST\n"
"                        PORT).  A peer without it: plain DCCP.  -v reports\n"
"                        every path (doc/multipath.md)\n"
"      --mp-sched S      client, multipath: scheduler minrtt (default),\n"
"                        backup (the first ADDR, the others standby), rr\n"
"                        or redundant\n"
"  -v, --verbose         report the connection and its counters on stderr\n"
"  -h, --help            this help\n"
"      --version         print the version\n"
"\n"
"exit status: 0 clean close and nothing lost; 1 connection failed, input\n"
"left unsent, or datagrams lost; 2 usage error; 128+N killed by signal N\n",
          CAT_DEFAULT_PORT, UDCCP_UDP_PORT_DEFAULT,
          UDCCP_HALF_OPEN_MAX_DEFAULT, UDCCP_BACKLOG_DEFAULT);
}

static int parse_port(const char *arg, uint16_t *port) {
  char *end = NULL;
  unsigned long v = strtoul(arg, &end, 10);
  if (end == arg || *end != '\0' || v == 0 || v > 65535) {
    fprintf(stderr, "udccp-cat: invalid port '%s' (1..65535)\n", arg);
    return -1;
  }
  *port = (uint16_t)v;
  return 0;
}

/* Positional arguments, netcat's way: HOST PORT to connect (PORT may come
 * from -p instead), [ADDR] PORT to listen.  Returns 0 or 2 (usage). */
static int parse_positional(cat_opts *o, int argc, char **argv, int optind_,
                            int *port_set) {
  int n = argc - optind_;
  char **a = argv + optind_;
  const char *port = NULL;
  if (o->listen) {
    if (n > 2) {
      fprintf(stderr, "udccp-cat: unexpected argument '%s'\n", a[2]);
      return 2;
    }
    if (n == 2) {
      if (o->source != NULL) {
        fprintf(stderr, "udccp-cat: give the local address once (ADDR or "
                        "-s)\n");
        return 2;
      }
      o->source = a[0];
    }
    if (n >= 1) {
      port = a[n - 1];
    }
  } else {
    if (n == 0) {
      fprintf(stderr, "udccp-cat: give HOST PORT to connect, or -l PORT to "
                      "listen (see --help)\n");
      return 2;
    }
    if (n > 2) {
      fprintf(stderr, "udccp-cat: unexpected argument '%s'\n", a[2]);
      return 2;
    }
    o->host = a[0];
    if (n == 2) {
      port = a[1];
    }
  }
  if (port != NULL) {
    if (*port_set) {
      fprintf(stderr, "udccp-cat: give the port once (PORT or -p)\n");
      return 2;
    }
    if (parse_port(port, &o->port) != 0) {
      return 2;
    }
    *port_set = 1;
  }
  return 0;
}

/* The local address: -s, or with -4/-6 the wildcard of that family (the
 * endpoint then opens only that family's socket, and a HOST name resolves
 * to it).  Returns 0 or 2 (usage). */
int cat_local_host(const cat_opts *o, const char **host) {
  *host = o->source;
  if (o->source != NULL) {
    int v6 = strchr(o->source, ':') != NULL;
    if ((o->family == 4 && v6) || (o->family == 6 && !v6)) {
      fprintf(stderr, "udccp-cat: -%d and source address %s differ in "
                      "family\n", o->family, o->source);
      return 2;
    }
  } else if (o->family == 4) {
    *host = "0.0.0.0";
  } else if (o->family == 6) {
    *host = "::";
  }
  return 0;
}

/* The command line into o (std_closed: udccp_io_reserve_std_fds()'s bits).
 * Returns -1 to go on, or the exit status: 0 after --help or --version, 2
 * for a usage error (said on stderr). */
int cat_parse_args(int argc, char **argv, unsigned std_closed, cat_opts *o) {
  memset(o, 0, sizeof(*o));
  o->port = CAT_DEFAULT_PORT;
  o->udp_port = UDCCP_UDP_PORT_DEFAULT;
  o->service = CAT_DEFAULT_SERVICE;
  o->wait_ms = -2;
  udccp_settings_default(&o->ka);
  int port_set = 0, udp_port_set = 0, sched_set = 0;
  enum { OPT_RAW = 256, OPT_CCID, OPT_UDP_PORT, OPT_SERVICE, OPT_VERSION,
         OPT_KEEPALIVE, OPT_COOKIES, OPT_HALF_OPEN, OPT_BACKLOG, OPT_PCAP,
         OPT_MULTIPATH, OPT_MP_SCHED };
  static const struct option lopts[] = {
      {"listen", no_argument, NULL, 'l'},
      {"keep-open", no_argument, NULL, 'k'},
      {"port", required_argument, NULL, 'p'},
      {"udp-port", required_argument, NULL, OPT_UDP_PORT},
      {"source", required_argument, NULL, 's'},
      {"raw", no_argument, NULL, OPT_RAW},
      {"ccid", required_argument, NULL, OPT_CCID},
      {"service", required_argument, NULL, OPT_SERVICE},
      {"no-stdin", no_argument, NULL, 'd'},
      {"wait", required_argument, NULL, 'w'},
      {"idle-timeout", required_argument, NULL, 'i'},
      {"keepalive", required_argument, NULL, OPT_KEEPALIVE},
      {"verbose", no_argument, NULL, 'v'},
      {"cookies", required_argument, NULL, OPT_COOKIES},
      {"half-open", required_argument, NULL, OPT_HALF_OPEN},
      {"backlog", required_argument, NULL, OPT_BACKLOG},
      {"pcap", required_argument, NULL, OPT_PCAP},
      {"multipath", optional_argument, NULL, OPT_MULTIPATH},
      {"mp-sched", required_argument, NULL, OPT_MP_SCHED},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, OPT_VERSION},
      {NULL, 0, NULL, 0}};
  int c;
  (void)signal(SIGPIPE, SIG_IGN); /* a reader gone is cat_out_flush()'s */
  while ((c = getopt_long(argc, argv, "lkp:s:46dw:i:vh", lopts, NULL)) !=
         -1) {
    unsigned long v;
    uint64_t ns;
    switch (c) {
    case 'l': o->listen = 1; break;
    case 'k': o->keep = 1; break;
    case '4': o->family = 4; break;
    case '6': o->family = 6; break;
    case 's': o->source = optarg; break;
    case 'p':
      if (parse_port(optarg, &o->port) != 0) {
        return 2;
      }
      port_set = 1;
      break;
    case OPT_UDP_PORT:
      if (parse_port(optarg, &o->udp_port) != 0) {
        return 2;
      }
      udp_port_set = 1;
      break;
    case OPT_RAW: o->raw = 1; break;
    case OPT_CCID:
      v = (unsigned long)udccp_ccid_parse(optarg); /* 2|3|4|cubic|bbr|N */
      if ((long)v < 0 || udccp_ccid_lookup((uint8_t)v) == NULL) {
        fprintf(stderr, "udccp-cat: --ccid must be 2, 3, 4, cubic, bbr or a "
                        "registered CCID\n");
        return 2;
      }
      o->ccid = (uint8_t)v;
      break;
    case OPT_SERVICE:
      if (udccp_service_code_parse(optarg, &o->service) != 0) {
        fprintf(stderr, "udccp-cat: invalid service code '%s' (a number "
                        "below 4294967295, or 1-4 ASCII characters)\n",
                optarg);
        return 2;
      }
      break;
    case 'd': o->no_stdin = 1; break;
    case 'w':
      /* 0 would make connect return before the handshake (and accept
       * give up at once): no wait is no connection. */
      if (udccp_io_parse_time(optarg, &ns) != 0 ||
          ns > 86400 * UDCCP_NS_PER_S || ns < UDCCP_NS_PER_MS) {
        fprintf(stderr, "udccp-cat: invalid wait '%s' (1ms to 86400 s, "
                        "e.g. 5 or 500ms)\n", optarg);
        return 2;
      }
      o->wait_ms = (int)(ns / UDCCP_NS_PER_MS);
      break;
    case 'i':
      if (udccp_io_parse_time(optarg, &o->idle_ns) != 0 ||
          o->idle_ns > 86400 * UDCCP_NS_PER_S) {
        fprintf(stderr, "udccp-cat: invalid idle timeout '%s'\n", optarg);
        return 2;
      }
      break;
    case OPT_KEEPALIVE:
      if (udccp_io_parse_keepalive(optarg, &o->ka) != 0) {
        fprintf(stderr, "udccp-cat: invalid keepalive '%s' (IDLE[,INTERVAL"
                        "[,PROBES]], e.g. 60,10,3 or 5s,1s,2; 0 or off)\n",
                optarg);
        return 2;
      }
      break;
    case 'v': o->verbose = 1; break;
    case OPT_PCAP: o->pcap = optarg; break;
    case OPT_MULTIPATH:
      o->multipath = 1;
      /* "--multipath ADDR,ADDR HOST PORT" as udccp-perf: the next word is
       * the list when it is made of address characters and HOST PORT
       * still follow it */
      if (optarg == NULL && optind + 2 < argc &&
          strspn(argv[optind], "0123456789abcdefABCDEF.:,") ==
              strlen(argv[optind]) &&
          (strchr(argv[optind], '.') || strchr(argv[optind], ':'))) {
        optarg = argv[optind++];
      }
      o->mp_local = optarg;
      break;
    case OPT_MP_SCHED:
      if (udccp_io_parse_mp_sched(optarg, &o->mp_sched) != 0) {
        fprintf(stderr, "udccp-cat: invalid scheduler '%s' (minrtt, backup, "
                        "rr or redundant)\n", optarg);
        return 2;
      }
      sched_set = 1;
      break;
    case OPT_COOKIES:
    case OPT_HALF_OPEN:
    case OPT_BACKLOG: {
      const char *name = c == OPT_COOKIES  ? "cookies"
                         : c == OPT_BACKLOG ? "backlog"
                                            : "half-open";
      const char *why = udccp_io_parse_listen_opt(name, optarg, &o->cookies,
                                                  &o->half_open, &o->backlog);
      if (why != NULL) {
        fprintf(stderr, "udccp-cat: --%s %s ('%s')\n", name, why, optarg);
        return 2;
      }
      break;
    }
    case 'h': usage(stdout); return 0;
    case OPT_VERSION: printf("udccp-cat %s\n", UDCCP_VERSION); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (parse_positional(o, argc, argv, optind, &port_set) != 0) {
    return 2;
  }
  if (o->keep && !o->listen) {
    fprintf(stderr, "udccp-cat: -k needs -l\n");
    return 2;
  }
  if ((std_closed & 1u) && !o->no_stdin) {
    fprintf(stderr, "udccp-cat: standard input is closed: give -d to only "
                    "receive, or </dev/null\n");
    return 2;
  }
  if (std_closed & 2u) {
    fprintf(stderr, "udccp-cat: standard output is closed: received "
                    "datagrams would be lost; redirect it (>/dev/null to "
                    "discard them)\n");
    return 2;
  }
  if (sched_set && (!o->multipath || o->listen)) {
    /* it was ignored: the listener and plain DCCP have no scheduler */
    fprintf(stderr, "udccp-cat: --mp-sched is for a multipath client: "
                    "add --multipath ADDR,ADDR (not with -l)\n");
    return 2;
  }
  if (o->multipath && o->listen && o->mp_local != NULL) {
    fprintf(stderr, "udccp-cat: --multipath ADDR,...: the local addresses "
                    "are the client's; a listener takes --multipath alone\n");
    return 2;
  }
  if (o->multipath && !o->listen && o->source != NULL) {
    fprintf(stderr, "udccp-cat: with --multipath give the local addresses "
                    "as --multipath ADDR,ADDR, not -s\n");
    return 2;
  }
  if (port_set && !udp_port_set) {
    o->udp_port = o->port;
  }
  return -1;
}

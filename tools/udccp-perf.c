/* SPDX-License-Identifier: MIT */
/*
 * udccp-perf: an iperf3-like throughput test over udccp (DESIGN.md §4).
 * This file reads the command line; tools/perf/ runs the test (perf.h
 * describes the protocol, stream.c the per-connection state machine,
 * client.c and server.c the two roles, report.c the text and JSON).
 *
 *   udccp-perf -s [-p PORT] [--udp-port PORT] [--raw] [-1] [-J] ...
 *   udccp-perf -c HOST [-p PORT] [-t SECONDS | -n BYTES | -k PKTS] [-P N]
 *              [-R | --bidir] [--ccid 2|3|4|cubic|bbr|N] [-l BYTES] [-b RATE] [-J] ...
 *
 * Ports follow the one-port model of RFC 6773 §3.8: every DCCP-UDP server
 * shares UDP port 6511, -p names the DCCP port only; --udp-port moves the
 * UDP port.
 */
#define _GNU_SOURCE /* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../io/parse.h"
#include "perf/perf.h"

static void usage(FILE *f) {
  fprintf(f,
"usage: udccp-perf -s [-p PORT] [--udp-port PORT] [--raw] [--no-gso] [-1]\n"
"                  [-J] [-i SECS] [-B ADDR] [-4|-6] [--threads N]\n"
"                  [--cookies MODE] [--half-open N] [--backlog N]\n"
"       udccp-perf -c HOST [-p PORT] [--udp-port PORT] [--raw]\n"
"                  [-t SECONDS | -n BYTES | -k PKTS] [-P N] [-R | --bidir]\n"
"                  [--ccid 2|3|4|cubic|bbr|N] [-l BYTES] [-b RATE] [-i SECS]\n"
"                  [-J]\n"
"                  [-B ADDR] [--cport PORT] [-4|-6] [--get-server-output]\n"
"                  [--no-gso] [--keepalive IDLE[,INTERVAL[,PROBES]]]\n"
"                  [-C N] [-w BYTES] [--connect-timeout MS] [-O SECS]\n"
"                  [--repeating-payload]\n"
"       common: [--logfile FILE] [--pcap FILE] [-V] [-f UNIT] [-T STR]\n"
"               [--timestamps] [-I FILE] [--rcv-timeout MS] [-S TOS]\n"
"               [-A CPU] [--bind-dev DEV]\n"
"       server: [-D] [--idle-timeout SECS] [--server-bitrate-limit RATE]\n"
"       multipath (RFC 9897): -s --multipath | -c HOST --multipath ADDR,ADDR...\n"
"               [--mp-sched minrtt|backup|rr|redundant]\n"
"\n"
"Measures DCCP throughput between a server and a client, like iperf3.\n"
"\n"
"  -s, --server          run as server (waits for clients)\n"
"  -1, --one-off         server: handle one test, then exit, 0 if it\n"
"                        completed, 1 if it failed: the client gave up\n"
"                        (it says why), reset or closed the connection,\n"
"                        or went silent for --rcv-timeout (with\n"
"                        --threads: one test per worker)\n"
"      --threads N       server, DCCP-UDP: N worker threads (1..64, default\n"
"                        1), each with its own endpoint on the same UDP\n"
"                        port; a connection stays on one worker (steered by\n"
"                        its DCCP ports)\n"
"      --cookies MODE    listener: when to answer a Request with an Init\n"
"                        Cookie and keep no state for the client until it\n"
"                        answers (RFC 4340 §8.1.4): auto (once --half-open\n"
"                        handshakes are pending; default), always, never\n"
"      --half-open N     listener: handshakes kept half-open (default %d;\n"
"                        with --cookies never, Reset Too Busy beyond)\n"
"      --backlog N       listener: completed connections waiting to be\n"
"                        accepted before Reset Too Busy (default %d)\n"
"  -c, --client HOST     run as client towards HOST (name, IPv4 or IPv6,\n"
"                        e.g. 127.0.0.1 or ::1)\n"
"  -p, --port PORT       DCCP port (default %d)\n"
"      --udp-port PORT   DCCP-UDP: UDP port of the server (default %d, the\n"
"                        RFC 6773 port every DCCP-UDP server shares)\n"
"      --raw             native DCCP over raw IP sockets (needs root)\n"
"                        instead of DCCP-UDP (RFC 6773, the default)\n"
"      --no-gso          DCCP-UDP: no UDP GSO/GRO offload (default: used\n"
"                        where the kernel has it)\n"
"  -B, --bind ADDR       bind to this local address (numeric)\n"
"      --cport PORT      client, DCCP-UDP: local UDP port (default: any)\n"
"      --bind-dev DEV    send and receive through network interface DEV\n"
"                        only (SO_BINDTODEVICE)\n"
"      --multipath [ADDR,ADDR...]  Multipath DCCP (RFC 9897), DCCP-UDP, one\n"
"                        stream: a server accepts multipath connections; a\n"
"                        client opens one subflow from each local ADDR\n"
"                        (numeric; default: the route's source only) and\n"
"                        reports every path (doc/udccp-perf.md)\n"
"      --mp-sched S      client, multipath: scheduler minrtt (default),\n"
"                        backup (active-backup: the first ADDR, the others\n"
"                        standby), rr (round-robin) or redundant (every\n"
"                        datagram on every path with room)\n"
"  -A, --affinity N      run on CPU N (the server's worker threads too)\n"
"  -4, --version4        IPv4 only\n"
"  -6, --version6        IPv6 only\n"
"  -t, --time SECONDS    test length (default 10; units s/ms allowed)\n"
"  -O, --omit SECS       leave the first SECS out of the statistics (the\n"
"                        test runs SECS longer; those intervals are\n"
"                        printed marked \"(omitted)\")\n"
"  -n, --bytes BYTES     send BYTES per stream instead of for a time (k/M/G\n"
"                        suffixes; a 'p' suffix counts datagrams: 1000p)\n"
"  -k, --blockcount PKTS send PKTS datagrams per stream\n"
"  -P, --parallel N      N streams (connections) at once (1..%d)\n"
"  -R, --reverse         the server sends, the client receives\n"
"      --bidir           both send at once (N streams each way)\n"
"      --ccid N          congestion control: 2, 3, 4, cubic (RFC 9438, CCID 249),\n"
"                        bbr (draft-ietf-ccwg-bbr, CCID 248) or a registered\n"
"                        experimental N (default 2)\n"
"  -l, --length BYTES    datagram size, %d up to the connection's MPS\n"
"                        (the route's MTU less headers: 65443 over IPv4\n"
"                        loopback; default: the MPS, at most %d)\n"
"  -b, --bitrate RATE    pace each sending stream at RATE, e.g. 10mbit,\n"
"                        1gbit (default 0: as fast as the CCID allows)\n"
"      --repeating-payload  payload \"0123456789...\" instead of random\n"
"                        bytes\n"
"  -S, --tos N           IP TOS / IPv6 traffic class of this end's\n"
"                        packets (0..255, e.g. 0x28); its ECN bits stay\n"
"                        the CCID's\n"
"      --server-bitrate-limit RATE[/SECS]  server: end a test whose data\n"
"                        (all streams, both ways) exceeds RATE on average\n"
"                        over SECS seconds (default 5); a test asking for\n"
"                        more (-b x streams) does not start\n"
"  -i, --interval SECS   seconds between interval lines (default 1; 0:\n"
"                        none)\n"
"  -J, --json            print one JSON object per test (client and\n"
"                        server); on failure one with an \"error\" member\n"
"      --get-server-output  client: fetch the server's text for this test\n"
"      --logfile FILE    append all output (stdout and stderr) to FILE\n"
"  -V, --verbose         more detail (version, system, endpoint counters)\n"
"  -w, --window BYTES    socket buffer size (SO_RCVBUF/SO_SNDBUF; default\n"
"                        4M)\n"
"  -f, --format k|m|g|K|M|G  rate unit: Kbit/s, Mbit/s (default), Gbit/s,\n"
"                        KByte/s, MByte/s, GByte/s\n"
"  -T, --title STR       prefix every line with STR\n"
"      --timestamps[=FMT]  prefix every line with the time (strftime FMT,\n"
"                        default \"%%c \")\n"
"  -I, --pidfile FILE    write the process id to FILE (removed at exit)\n"
"  -D, --daemon          server: run in the background\n"
"      --connect-timeout MS  client: give up connecting after MS ms\n"
"                        (default 5000)\n"
"      --rcv-timeout MS  end a stream whose peer is silent for MS ms\n"
"                        (default 10000); a server waits as long for a\n"
"                        new connection's test parameters\n"
"      --idle-timeout SECS  server: exit after SECS without a test\n"
"      --forceflush      accepted: every line is flushed anyway\n"
"      --udp-counters-64bit  accepted: counters are always 64-bit\n"
"  -u, --udp             accepted: DCCP always carries datagrams\n"
"      --dont-fragment   accepted: DF is always set (path MTU discovery)\n"
"      --json-stream     JSON lines: one per interval, then the end object\n"
"                        ({\"event\": \"interval\"|\"end\"|\"error\", \"data\": ...})\n"
"      --extra-data STR  copied into the JSON object (extra_data)\n"
"      --pcap FILE       write every packet sent and received to FILE\n"
"                        (pcap; DCCP-UDP as UDP/IP: open it in Wireshark\n"
"                        with tools/wireshark/dccp-udp.lua)\n"
"  -C, --congestion N    the same as --ccid N\n"
"      --keepalive IDLE[,INTERVAL[,PROBES]]\n"
"                        probe a silent peer with a Sync after IDLE, then\n"
"                        every INTERVAL; PROBES unanswered probes end the\n"
"                        connection (default 60,10,3); 0 or off: never\n"
"  -h, --help            this help\n"
"  -v, --version         print the version\n"
"\n"
"Interval lines give goodput, loss (confirmed: sequence gaps) as lost/\n"
"total, jitter (RFC 3550), RTT, and the sending half's cwnd (CCID 2) or\n"
"allowed rate X (CCID 3, 4), whichever end prints them.  The summary\n"
"adds the one-way delay of the delivered datagrams (min, p50, p95, p99,\n"
"max: arrival minus send time on CLOCK_REALTIME; exact on one host,\n"
"between hosts off by the clocks' offset).  Each stream is\n"
"one DCCP connection, Service Code \"PERF\"; control datagrams on it are\n"
"repeated until answered.  JSON fields: ccid, duration_s, sent_pkts,\n"
"received_pkts, lost_pkts, goodput_bps, rtt_ms, loss_rate, jitter_ms,\n"
"owd_ms, intervals, start, end, and more.  Exit status: 0 test complete, 1 failed\n"
"or interrupted, 2 usage.\n",
          UDCCP_HALF_OPEN_MAX_DEFAULT, UDCCP_BACKLOG_DEFAULT,
          PERF_DEFAULT_PORT, UDCCP_UDP_PORT_DEFAULT, PERF_MAX_STREAMS,
          PERF_MIN_LEN, PERF_DEFAULT_LEN);
}

static int g_json;
udccp_pcap *perf_pcap;

/* A usage error: said on stderr (and as JSON with -J); exit status 2. */
static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  perf_error("%s", msg);
  if (g_json) {
    perf_json_error_only();
  }
  return 2;
}

/* --ccid: kept in one function (other congestion controls may come). */
static int parse_ccid(const char *arg, uint8_t *ccid) {
  int v = udccp_ccid_parse(arg); /* 2|3|4|cubic|bbr|N, udccp/ccid.h */
  if (v < 0 || udccp_ccid_lookup((uint8_t)v) == NULL) {
    return -1;
  }
  *ccid = (uint8_t)v;
  return 0;
}

static int parse_port(const char *arg, uint16_t *port) {
  char *end = NULL;
  unsigned long v = strtoul(arg, &end, 10);
  if (end == arg || *end != '\0' || v == 0 || v > 65535) {
    return -1;
  }
  *port = (uint16_t)v;
  return 0;
}

static int parse_count(const char *arg, unsigned long lo, unsigned long hi,
                       int *out) {
  char *end = NULL;
  unsigned long v = strtoul(arg, &end, 10);
  if (end == arg || *end != '\0' || v < lo || v > hi) {
    return -1;
  }
  *out = (int)v;
  return 0;
}

/* -n BYTES (k/M/G) or -n PKTSp. */
static int parse_amount(const char *arg, perf_opts *o) {
  size_t n = strlen(arg);
  if (n > 1 && arg[n - 1] == 'p') {
    char *end = NULL;
    unsigned long long v = strtoull(arg, &end, 10);
    if (end != arg + n - 1 || v == 0) {
      return -1;
    }
    o->limit_pkts = v;
    return 0;
  }
  return udccp_io_parse_size(arg, &o->limit_bytes) != 0 ||
                 o->limit_bytes == 0
             ? -1
             : 0;
}

static void on_signal(int sig) {
  if (perf_sig != 0) {
    _exit(128 + sig); /* a second signal: stop at once */
  }
  perf_sig = sig;
}

int main(int argc, char **argv) {
  static perf_opts o;
  /* before any socket: a closed 0..2 would be one (io/parse.h) */
  unsigned std_closed = udccp_io_reserve_std_fds();
  memset(&o, 0, sizeof(o));
  o.port = PERF_DEFAULT_PORT;
  o.udp_port = UDCCP_UDP_PORT_DEFAULT;
  o.duration_ns = 10 * UDCCP_NS_PER_S;
  o.interval_ns = UDCCP_NS_PER_S;
  o.nstreams = 1;
  o.connect_timeout_ms = 5000;
  o.rcv_timeout_ms = PERF_IDLE_S * 1000;
  o.tos = -1;
  o.cpu = -1;
  perf_o = &o;
  for (int i = 1; i < argc; i++) { /* -J before the first usage error */
    if (strcmp(argv[i], "-J") == 0 || strcmp(argv[i], "--json") == 0) {
      g_json = o.json = 1;
    }
    if (strcmp(argv[i], "--json-stream") == 0) {
      g_json = o.json = o.json_stream = 1;
    }
  }
  enum { OPT_RAW = 256, OPT_CCID, OPT_UDP_PORT, OPT_NO_GSO, OPT_KEEPALIVE,
         OPT_COOKIES, OPT_HALF_OPEN, OPT_BACKLOG, OPT_THREADS, OPT_BIDIR,
         OPT_CPORT, OPT_LOGFILE, OPT_SRVOUT, OPT_TIMESTAMPS,
         OPT_CONNECT_TIMEOUT, OPT_RCV_TIMEOUT, OPT_IDLE_TIMEOUT, OPT_NOOP,
         OPT_JSON_STREAM, OPT_EXTRA_DATA, OPT_PCAP, OPT_REPEAT, OPT_SRV_LIMIT,
         OPT_BIND_DEV, OPT_MULTIPATH, OPT_MP_SCHED };
  static const struct option lopts[] = {
      {"server", no_argument, NULL, 's'},
      {"one-off", no_argument, NULL, '1'},
      {"cookies", required_argument, NULL, OPT_COOKIES},
      {"half-open", required_argument, NULL, OPT_HALF_OPEN},
      {"backlog", required_argument, NULL, OPT_BACKLOG},
      {"client", required_argument, NULL, 'c'},
      {"port", required_argument, NULL, 'p'},
      {"udp-port", required_argument, NULL, OPT_UDP_PORT},
      {"raw", no_argument, NULL, OPT_RAW},
      {"no-gso", no_argument, NULL, OPT_NO_GSO},
      {"threads", required_argument, NULL, OPT_THREADS},
      {"time", required_argument, NULL, 't'},
      {"bytes", required_argument, NULL, 'n'},
      {"blockcount", required_argument, NULL, 'k'},
      {"parallel", required_argument, NULL, 'P'},
      {"ccid", required_argument, NULL, OPT_CCID},
      {"length", required_argument, NULL, 'l'},
      {"bitrate", required_argument, NULL, 'b'},
      {"interval", required_argument, NULL, 'i'},
      {"reverse", no_argument, NULL, 'R'},
      {"bidir", no_argument, NULL, OPT_BIDIR},
      {"json", no_argument, NULL, 'J'},
      {"bind", required_argument, NULL, 'B'},
      {"cport", required_argument, NULL, OPT_CPORT},
      {"version4", no_argument, NULL, '4'},
      {"version6", no_argument, NULL, '6'},
      {"logfile", required_argument, NULL, OPT_LOGFILE},
      {"verbose", no_argument, NULL, 'V'},
      {"get-server-output", no_argument, NULL, OPT_SRVOUT},
      {"keepalive", required_argument, NULL, OPT_KEEPALIVE},
      {"window", required_argument, NULL, 'w'},
      {"format", required_argument, NULL, 'f'},
      {"title", required_argument, NULL, 'T'},
      {"timestamps", optional_argument, NULL, OPT_TIMESTAMPS},
      {"pidfile", required_argument, NULL, 'I'},
      {"daemon", no_argument, NULL, 'D'},
      {"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
      {"rcv-timeout", required_argument, NULL, OPT_RCV_TIMEOUT},
      {"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
      {"forceflush", no_argument, NULL, OPT_NOOP},
      {"udp-counters-64bit", no_argument, NULL, OPT_NOOP},
      {"udp", no_argument, NULL, 'u'},
      {"congestion", required_argument, NULL, 'C'},
      {"json-stream", no_argument, NULL, OPT_JSON_STREAM},
      {"extra-data", required_argument, NULL, OPT_EXTRA_DATA},
      {"pcap", required_argument, NULL, OPT_PCAP},
      {"omit", required_argument, NULL, 'O'},
      {"tos", required_argument, NULL, 'S'},
      {"repeating-payload", no_argument, NULL, OPT_REPEAT},
      {"server-bitrate-limit", required_argument, NULL, OPT_SRV_LIMIT},
      {"affinity", required_argument, NULL, 'A'},
      {"bind-dev", required_argument, NULL, OPT_BIND_DEV},
      {"multipath", optional_argument, NULL, OPT_MULTIPATH},
      {"mp-sched", required_argument, NULL, OPT_MP_SCHED},
      {"dont-fragment", no_argument, NULL, OPT_NOOP},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'v'},
      {NULL, 0, NULL, 0}};
  int c, sched_set = 0;
  uint64_t u;
  while ((c = getopt_long(argc, argv, "s1c:p:t:n:k:P:l:b:i:RJB:46Vhvw:f:T:I:DuC:O:S:A:", lopts,
                          NULL)) != -1) {
    switch (c) {
    case 's': o.server = 1; break;
    case '1': o.once = 1; break;
    case 'c': o.host = optarg; break;
    case 'p':
      if (parse_port(optarg, &o.port) != 0) {
        return usage_error("invalid port '%s' (1..65535)", optarg);
      }
      break;
    case OPT_UDP_PORT:
      if (parse_port(optarg, &o.udp_port) != 0) {
        return usage_error("invalid UDP port '%s' (1..65535)", optarg);
      }
      break;
    case OPT_CPORT:
      if (parse_port(optarg, &o.cport) != 0) {
        return usage_error("invalid --cport '%s' (1..65535)", optarg);
      }
      break;
    case OPT_RAW: o.raw = 1; break;
    case OPT_COOKIES:
    case OPT_HALF_OPEN:
    case OPT_BACKLOG: {
      const char *name = c == OPT_COOKIES  ? "cookies"
                         : c == OPT_BACKLOG ? "backlog"
                                            : "half-open";
      const char *why = udccp_io_parse_listen_opt(name, optarg, &o.cookies,
                                                  &o.half_open, &o.backlog);
      if (why != NULL) {
        return usage_error("--%s %s ('%s')", name, why, optarg);
      }
      break;
    }
    case OPT_NO_GSO: o.no_offload = 1; break;
    case OPT_THREADS:
      if (parse_count(optarg, 1, 64, &o.threads) != 0) {
        return usage_error("--threads must be 1..64 ('%s')", optarg);
      }
      break;
    case 'P':
      if (parse_count(optarg, 1, PERF_MAX_STREAMS, &o.nstreams) != 0) {
        return usage_error("-P must be 1..128 ('%s')", optarg);
      }
      break;
    case 't':
      if (udccp_io_parse_time(optarg, &o.duration_ns) != 0 ||
          o.duration_ns == 0 || o.duration_ns > 3600 * UDCCP_NS_PER_S) {
        return usage_error("invalid time '%s' (e.g. 10, 2.5s, 500ms; at "
                           "most 1 hour)", optarg);
      }
      break;
    case 'i':
      if (strcmp(optarg, "0") == 0) {
        o.interval_ns = 0;
      } else if (udccp_io_parse_time(optarg, &o.interval_ns) != 0 ||
                 o.interval_ns < UDCCP_NS_PER_S / 10 ||
                 o.interval_ns > 60 * UDCCP_NS_PER_S) {
        return usage_error("invalid interval '%s' (0, or 0.1 to 60 s)",
                           optarg);
      }
      break;
    case 'n':
      if (parse_amount(optarg, &o) != 0) {
        return usage_error("invalid amount '%s' (BYTES, e.g. 10M, or "
                           "datagrams, e.g. 1000p)", optarg);
      }
      break;
    case 'k':
      if (udccp_io_parse_size(optarg, &u) != 0 || u == 0) {
        return usage_error("invalid block count '%s'", optarg);
      }
      o.limit_pkts = u;
      break;
    case OPT_CCID:
    case 'C':
      if (parse_ccid(optarg, &o.ccid) != 0) {
        return usage_error("--ccid must be 2, 3, 4, cubic, bbr or a registered CCID ('%s')", optarg);
      }
      break;
    case 'w':
      if (udccp_io_parse_size(optarg, &u) != 0 || u < 4096 ||
          u > (1u << 30)) {
        return usage_error("invalid window '%s' (4096 bytes to 1G)", optarg);
      }
      o.sockbuf = (int)u;
      break;
    case 'f':
      if (strlen(optarg) != 1 || strchr("kmgKMG", optarg[0]) == NULL) {
        return usage_error("invalid format '%s' (k, m, g: bits; K, M, G: "
                           "bytes)", optarg);
      }
      o.format = optarg[0];
      break;
    case 'T': o.title = optarg; break;
    case OPT_TIMESTAMPS: o.timestamps = optarg ? optarg : "%c "; break;
    case 'I': o.pidfile = optarg; break;
    case 'D': o.daemon = 1; break;
    case OPT_CONNECT_TIMEOUT:
    case OPT_RCV_TIMEOUT:
      if (parse_count(optarg, 10, 3600000, c == OPT_RCV_TIMEOUT
                                                ? &o.rcv_timeout_ms
                                                : &o.connect_timeout_ms) != 0) {
        return usage_error("invalid timeout '%s' (10 to 3600000 ms)", optarg);
      }
      break;
    case OPT_IDLE_TIMEOUT:
      if (parse_count(optarg, 1, 86400, &o.idle_timeout_s) != 0) {
        return usage_error("invalid idle timeout '%s' (1 to 86400 s)",
                           optarg);
      }
      break;
    case OPT_NOOP:
    case 'u':
      break;
    case 'l':
      if (udccp_io_parse_size(optarg, &u) != 0 || u < PERF_MIN_LEN ||
          u > 65507) {
        return usage_error("invalid length '%s' (24..MPS bytes)", optarg);
      }
      o.length = u;
      break;
    case 'b':
      if (udccp_io_parse_rate(optarg, &o.rate_bps) != 0) {
        return usage_error("invalid rate '%s' (e.g. 10mbit, 1gbit, 500k)",
                           optarg);
      }
      break;
    case 'R': o.reverse = 1; break;
    case OPT_BIDIR: o.bidir = 1; break;
    case 'J': o.json = 1; break;
    case OPT_JSON_STREAM: o.json = o.json_stream = 1; break;
    case OPT_EXTRA_DATA: o.extra_data = optarg; break;
    case OPT_PCAP: o.pcap = optarg; break;
    case 'O':
      if (udccp_io_parse_time(optarg, &o.omit_ns) != 0 ||
          o.omit_ns > 600 * UDCCP_NS_PER_S) {
        return usage_error("invalid omit time '%s' (0 to 600 s)", optarg);
      }
      break;
    case 'S': {
      char *end = NULL;
      errno = 0;
      long v = strtol(optarg, &end, 0); /* 0x28, 050 or 40, as iperf3 */
      if (errno != 0 || end == optarg || *end != '\0' || v < 0 || v > 255) {
        return usage_error("invalid TOS '%s' (0..255: decimal, 0x hex or "
                           "0 octal)", optarg);
      }
      o.tos = (int)v;
      break;
    }
    case OPT_REPEAT: o.repeating_payload = 1; break;
    case 'A':
      if (parse_count(optarg, 0, CPU_SETSIZE - 1, &o.cpu) != 0) {
        return usage_error("invalid CPU '%s' (-A N: a CPU number; iperf3's "
                           "N,M form is not supported)", optarg);
      }
      break;
    case OPT_BIND_DEV: o.bind_dev = optarg; break;
    case OPT_MULTIPATH:
      o.multipath = 1;
      /* "--multipath ADDR,ADDR": the tool takes no operands, so a next
       * word that is not an option is the list */
      if (optarg == NULL && optind < argc && argv[optind][0] != '-') {
        optarg = argv[optind++];
      }
      o.mp_local = optarg;
      break;
    case OPT_MP_SCHED:
      if (udccp_io_parse_mp_sched(optarg, &o.mp_sched) != 0) {
        return usage_error("invalid scheduler '%s' (minrtt, backup, rr or "
                           "redundant)",
                           optarg);
      }
      sched_set = 1;
      break;
    case OPT_SRV_LIMIT: {
      char rate[64];
      const char *slash = strchr(optarg, '/');
      size_t n = slash ? (size_t)(slash - optarg) : strlen(optarg);
      int secs = 5;
      if (n >= sizeof(rate) ||
          (slash != NULL && parse_count(slash + 1, 1, 3600, &secs) != 0)) {
        return usage_error("invalid --server-bitrate-limit '%s' (RATE[/SECS],"
                           " e.g. 100mbit or 1gbit/10)", optarg);
      }
      memcpy(rate, optarg, n);
      rate[n] = '\0';
      if (udccp_io_parse_rate(rate, &o.srv_limit_bps) != 0) {
        return usage_error("invalid --server-bitrate-limit '%s' (RATE[/SECS],"
                           " e.g. 100mbit or 1gbit/10)", optarg);
      }
      o.srv_limit_secs = secs;
      break;
    }
    case 'B': o.bind = optarg; break;
    case '4': o.family = 4; break;
    case '6': o.family = 6; break;
    case 'V': o.verbose = 1; break;
    case OPT_LOGFILE: o.logfile = optarg; break;
    case OPT_SRVOUT: o.get_server_output = 1; break;
    case OPT_KEEPALIVE: {
      udccp_settings t;
      udccp_settings_default(&t);
      if (udccp_io_parse_keepalive(optarg, &t) != 0) {
        return usage_error("invalid keepalive '%s' (IDLE[,INTERVAL"
                           "[,PROBES]], e.g. 60,10,3 or 5s,1s,2; 0 or off)",
                           optarg);
      }
      o.keepalive = optarg;
      break;
    }
    case 'h': usage(stdout); return 0;
    case 'v': printf("udccp-perf %s\n", UDCCP_VERSION); return 0;
    default:
      usage(stderr);
      if (g_json) {
        perf_error("invalid option (see --help)");
        perf_json_error_only();
      }
      return 2;
    }
  }
  if (optind < argc) {
    return usage_error("unexpected argument '%s'", argv[optind]);
  }
  if (o.logfile != NULL) {
    if (freopen(o.logfile, "a", stdout) == NULL) {
      return usage_error("cannot open the log file '%s'", o.logfile);
    }
    if (dup2(fileno(stdout), fileno(stderr)) < 0) {
      return usage_error("cannot redirect stderr to '%s'", o.logfile);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
  }
  if (o.threads > 1 && (!o.server || o.raw)) {
    return usage_error("%s", "--threads is for a DCCP-UDP server (-s, "
                             "without --raw)");
  }
  if (o.server == (o.host != NULL)) {
    return usage_error("%s", "give exactly one of -s or -c HOST (see "
                             "--help)");
  }
  if (o.multipath && (o.raw || o.reverse || o.bidir || o.nstreams > 1 ||
                      o.threads > 1)) {
    return usage_error("%s", "--multipath runs one DCCP-UDP stream from the "
                             "client: not with --raw, -R, --bidir, -P or "
                             "--threads");
  }
  if (sched_set && (!o.multipath || o.server)) {
    /* it was ignored: a server and plain DCCP have no scheduler */
    return usage_error("%s", "--mp-sched is for a multipath client: add "
                             "--multipath ADDR,ADDR (not with -s)");
  }
  if (o.multipath && o.server && o.mp_local != NULL) {
    return usage_error("%s", "--multipath ADDR,...: the local addresses are "
                             "the client's; a server takes --multipath alone");
  }
  if (o.reverse && o.bidir) {
    return usage_error("%s", "-R and --bidir exclude each other");
  }
  if (o.server && (o.reverse || o.bidir || o.nstreams > 1 ||
                   o.limit_bytes || o.limit_pkts || o.cport ||
                   o.get_server_output || o.omit_ns ||
                   o.repeating_payload)) {
    return usage_error("%s", "-R, --bidir, -P, -n, -k, -O, --cport, "
                             "--repeating-payload and --get-server-output "
                             "are client options");
  }
  if (!o.server && o.srv_limit_bps) {
    return usage_error("%s", "--server-bitrate-limit is a server option");
  }
  if ((o.daemon || o.idle_timeout_s) && !o.server) {
    return usage_error("%s", "-D and --idle-timeout are server options");
  }
  if (o.cport && o.raw) {
    return usage_error("%s", "--cport is a DCCP-UDP port: not with --raw");
  }
  if (o.bind != NULL && o.family != 0 &&
      (strchr(o.bind, ':') != NULL) != (o.family == 6)) {
    return usage_error("-B %s and -4/-6 differ in address family", o.bind);
  }
  if (o.bind == NULL && o.family != 0) {
    /* the wildcard of that family: the endpoint opens only its socket, and
     * a HOST name resolves to it */
    o.bind = o.family == 4 ? "0.0.0.0" : "::";
  }
  if ((std_closed & 2u) && o.logfile == NULL && !o.daemon) {
    /* the report is the output: a test nobody can read is an error, not a
     * silent exit 0 */
    return usage_error("%s", "standard output is closed: the report goes "
                             "there (--logfile FILE writes it to a file)");
  }
  if (o.daemon && daemon(1, o.logfile != NULL) != 0) {
    perf_error("cannot run in the background: %s", strerror(errno));
    return 1;
  }
  if (o.pidfile != NULL) {
    FILE *pf = fopen(o.pidfile, "w");
    if (pf == NULL) {
      return usage_error("cannot write the pid file '%s'", o.pidfile);
    }
    fprintf(pf, "%d\n", (int)getpid());
    fclose(pf);
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
  /* a reader of the report that went away (| head) stops the test as a
   * signal does, and the peer is told (perf_line() sees EPIPE): not a
   * death by SIGPIPE that leaves the server waiting */
  (void)signal(SIGPIPE, SIG_IGN);
  if (o.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(o.cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
      perf_error("-A %d: cannot run on CPU %d: %s", o.cpu, o.cpu,
                 strerror(errno));
      if (o.json) {
        perf_json_error_only();
      }
      return 1;
    }
  }
  if (o.pcap != NULL && udccp_pcap_open(&perf_pcap, o.pcap) != 0) {
    perf_error("cannot create the capture file '%s': %s", o.pcap,
               strerror(errno));
    if (o.json) {
      perf_json_error_only();
    }
    return 1;
  }
  int rv = o.multipath ? (o.server ? perf_mp_server(&o) : perf_mp_client(&o))
                       : (o.server ? perf_run_server(&o) : perf_run_client(&o));
  if (perf_pcap != NULL) {
    uint64_t frames = udccp_pcap_frames(perf_pcap);
    if (udccp_pcap_close(perf_pcap) != 0) {
      fprintf(stderr, "udccp-perf: writing %s failed: it is incomplete\n",
              o.pcap);
      rv = rv != 0 ? rv : 1;
    } else if (o.verbose && !o.json) {
      printf("%llu packets captured in %s\n", (unsigned long long)frames,
             o.pcap);
    }
    perf_pcap = NULL;
  }
  if (o.pidfile != NULL) {
    (void)unlink(o.pidfile);
  }
  if (o.json && rv != 0 && perf_json_count == 0 && perf_first_error()) {
    perf_json_error_only(); /* a server that could not serve at all */
  }
  return rv;
}

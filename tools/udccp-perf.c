/* SPDX-License-Identifier: MIT */
/*
 * udccp-perf: an iperf3-like throughput test over udccp (DESIGN.md §4).
 *
 *   udccp-perf -s [-p PORT] [--raw] [-1]
 *   udccp-perf -c HOST [-p PORT] [--raw] [-t SECONDS] [--ccid 2|3|4]
 *              [-l BYTES] [-b RATE] [-R] [-J]
 *
 * The test runs on one DCCP connection (Service Code "PERF").  Besides the
 * data, the two ends exchange a few control datagrams on that same
 * connection (DCCP is unreliable, so each one is repeated until answered):
 *
 *   client -> server  HELLO   test parameters (direction, length, time, rate)
 *   server -> client  HELLO_ACK
 *   sender -> receiver DATA   sequence number + padding up to -l bytes
 *   receiver -> sender REPORT every second: packets/bytes received so far
 *   sender -> receiver END    sent packets/bytes, duration, RTT, CCID losses
 *   receiver -> sender RESULT received packets/bytes (answers every END)
 *
 * Then the client closes the connection.  The client (either role) prints
 * the figures; the server prints its own summary.  All integers on the
 * wire are big-endian.
 *
 * A peer that goes away ends the test with a clear message: its Reset
 * (RFC 4340 §5.6) as "reset by the peer", its silence for PERF_IDLE_S (the
 * core's idle timeout: the test never idles, REPORTs flow every second) as
 * a timeout.  SIGINT/SIGTERM abort the connection with Reset "Aborted".
 */
#define _GNU_SOURCE /* getopt_long, clock_gettime */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <udccp/udccp.h>

#include "../io/addr.h"
#include "../io/parse.h"

#define PERF_SERVICE 0x50455246u /* "PERF" */
#define PERF_MAGIC 0x55445046u   /* "UDPF" */
#define PERF_DEFAULT_PORT 5201
#define PERF_MAX_INTERVALS 3600
#define PERF_IDLE_S 10 /* a peer silent this long is gone */
/* drain(): SIGINT/SIGTERM asked us to stop (not a UDCCP_ERR_* code) */
#define PERF_ERR_STOPPED (-1000)
/* Connected, but the server never answered HELLO (10 tries, 3 s): not a
 * udccp-perf server, or its HELLO_ACKs are lost. */
#define PERF_ERR_NO_HELLO_ACK (-1001)

enum { M_HELLO = 1, M_HELLO_ACK, M_DATA, M_REPORT, M_END, M_RESULT };

typedef struct perf_opts {
  int server, once, raw, reverse, json, no_offload;
  int threads; /* server: worker threads on the one port (--threads) */
  const char *host;
  uint16_t port, udp_port;
  int udp_port_set;
  uint64_t duration_ns;
  uint8_t ccid;
  uint64_t length; /* 0: the MPS */
  uint64_t rate_bps;
  const char *keepalive; /* --keepalive, checked; NULL: the default */
  uint8_t cookies;             /* server: enum udccp_init_cookie */
  uint32_t half_open, backlog; /* server: 0 = the library's default */
} perf_opts;

typedef struct interval {
  double t0, t1;
  double goodput_bps, loss, rtt_ms;
  uint64_t cwnd;
  double x_bps;
} interval;

typedef struct perf_result {
  uint8_t ccid;
  uint64_t sent_pkts, sent_bytes;
  uint64_t recv_pkts, recv_bytes;
  uint64_t ccid_lost;
  double duration_s;
  double rtt_ms;
  int have_result;
  double tx_per_batch, rx_per_batch; /* this end's sendmmsg/recvmmsg */
  interval iv[PERF_MAX_INTERVALS];
  size_t niv;
} perf_result;

/* Per thread: a server with --threads runs one test per worker at once. */
static _Thread_local perf_result g_res;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
static void put64(uint8_t *p, uint64_t v) {
  put32(p, (uint32_t)(v >> 32));
  put32(p + 4, (uint32_t)v);
}
static uint32_t get32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
         ((uint32_t)p[2] << 8) | p[3];
}
static uint64_t get64(const uint8_t *p) {
  return ((uint64_t)get32(p) << 32) | get32(p + 4);
}

/* Message: magic(4) type(1) then fields at offset 8 (u64-aligned). */
static size_t msg_init(uint8_t *b, int type) {
  memset(b, 0, 8);
  put32(b, PERF_MAGIC);
  b[4] = (uint8_t)type;
  return 8;
}
static int msg_type(const uint8_t *b, udccp_ssize n) {
  if (n < 8 || get32(b) != PERF_MAGIC) {
    return -1;
  }
  return b[4];
}

static void usage(FILE *f) {
  fprintf(f,
"usage: udccp-perf -s [-p PORT] [--raw] [--no-gso] [-1] [--cookies MODE]\n"
"                  [--half-open N] [--backlog N] [--threads N]\n"
"       udccp-perf -c HOST [-p PORT] [--raw] [-t SECONDS] [--ccid 2|3|4]\n"
"                  [-l BYTES] [-b RATE] [-R] [-J] [--no-gso]\n"
"                  [--keepalive IDLE[,INTERVAL[,PROBES]]]\n"
"\n"
"Measures DCCP throughput between a server and a client, like iperf3.\n"
"\n"
"  -s, --server          run as server (waits for clients)\n"
"  -1, --one-off         server: handle one test, then exit (with\n"
"                        --threads: one test per worker)\n"
"      --threads N       server, DCCP-UDP: N worker threads (1..64, default\n"
"                        1), each with its own endpoint on the same UDP\n"
"                        port; a connection stays on one worker (steered by\n"
"                        its DCCP ports), each worker runs one test at a time\n"
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
"  -p, --port PORT       DCCP port (default %d); over DCCP-UDP also the\n"
"                        UDP port unless --udp-port is given\n"
"      --udp-port PORT   DCCP-UDP: UDP port of the server (default %d, the\n"
"                        RFC 6773 port, or PORT when -p is given)\n"
"      --raw             native DCCP over raw IP sockets (needs root)\n"
"                        instead of DCCP-UDP (RFC 6773, the default)\n"
"      --no-gso          DCCP-UDP: no UDP GSO/GRO offload (default: used\n"
"                        where the kernel has it)\n"
"  -t, --time SECONDS    test length (default 10; units s/ms allowed)\n"
"      --ccid N          congestion control: 2, 3 or 4 (default 2)\n"
"  -l, --length BYTES    datagram size (default: the connection's MPS)\n"
"  -b, --bitrate RATE    pace the sender at RATE, e.g. 10mbit, 1gbit\n"
"                        (default 0: as fast as the CCID allows)\n"
"  -R, --reverse         the server sends, the client receives\n"
"  -J, --json            print one JSON object at the end (client)\n"
"      --keepalive IDLE[,INTERVAL[,PROBES]]\n"
"                        probe a silent peer with a Sync after IDLE, then\n"
"                        every INTERVAL; PROBES unanswered probes end the\n"
"                        connection (default 60,10,3: a vanished peer is\n"
"                        dropped within 90 s); 0 or off: never\n"

"  -h, --help            this help\n"
"      --version         print the version\n"
"\n"
"Protocol: one DCCP connection, Service Code \"PERF\".  The client sends\n"
"HELLO (parameters), the server answers HELLO_ACK; the sender sends DATA\n"
"datagrams (sequence number + padding); the receiver reports its counts in\n"
"a REPORT datagram every second (the interval lines) and answers the\n"
"sender's final END with RESULT (received packets and bytes), so both ends\n"
"know sent, received and lost counts.  Control datagrams are repeated until\n"
"answered.  JSON fields: ccid, duration_s, sent_pkts, received_pkts,\n"
"lost_pkts, goodput_bps, rtt_ms, loss_rate, and more.\n",
          UDCCP_HALF_OPEN_MAX_DEFAULT, UDCCP_BACKLOG_DEFAULT,
          PERF_DEFAULT_PORT, UDCCP_UDP_PORT_DEFAULT);
}

static int die_err(const char *what, int err) {
  fprintf(stderr, "udccp-perf: %s: %s\n", what, udccp_io_strerror(err));
  return 1;
}

static volatile sig_atomic_t g_sig;

static void on_signal(int sig) {
  if (g_sig != 0) {
    _exit(128 + sig); /* a second signal: stop at once */
  }
  g_sig = sig;
}

/* Why a test ended early, naming the peer's part: "WHO: ...". */
static void report_end(const char *who, udccp_sock *s, int err) {
  int rc = udccp_sock_reset_code(s);
  if (err == PERF_ERR_STOPPED) {
    fprintf(stderr, "udccp-perf: %s: %s: connection aborted (Reset sent to "
                    "the peer)\n",
            who, g_sig == SIGINT ? "interrupted" : "terminated");
  } else if (err == UDCCP_ERR_RESET) {
    fprintf(stderr, "udccp-perf: %s: connection reset by the peer (Reset: "
                    "%s)\n",
            who, udccp_reset_code_str(rc));
  } else if (err == PERF_ERR_NO_HELLO_ACK) {
    fprintf(stderr, "udccp-perf: %s: connected, but the server did not "
                    "answer the test parameters (HELLO, sent 10 times in "
                    "3 s): is it a udccp-perf server?\n",
            who);
  } else if (err == UDCCP_ERR_TIMEOUT) {
    fprintf(stderr, "udccp-perf: %s: connection timed out: nothing from the "
                    "peer for %d s (peer gone, or the network drops its "
                    "packets)\n",
            who, PERF_IDLE_S);
  } else {
    fprintf(stderr, "udccp-perf: %s: %s%s%s%s\n", who,
            udccp_io_strerror(err), rc != UDCCP_RESET_NONE ? " (Reset: " : "",
            rc != UDCCP_RESET_NONE ? udccp_reset_code_str(rc) : "",
            rc != UDCCP_RESET_NONE ? ")" : "");
  }
}

/* Connection settings of both roles: the idle timeout that bounds a
 * vanished peer during a test, and the keepalive (main checked it). */
static void perf_settings(udccp_settings *st, const char *keepalive) {
  udccp_settings_default(st);
  st->idle_timeout = (udccp_tstamp)PERF_IDLE_S * UDCCP_NS_PER_S;
  if (keepalive != NULL) {
    (void)udccp_io_parse_keepalive(keepalive, st);
  }
}

/* ------------------------------------------------------------ receiving */

/* Polls every received datagram; returns the last control type seen
 * (or 0), or a negative error when the connection died. */
typedef struct rx_state {
  uint64_t pkts, bytes, max_seq_plus1;
  uint64_t last_report_pkts, last_report_bytes, last_report_lost;
  int got_end;
  uint64_t end_sent_pkts, end_sent_bytes, end_dur_ns, end_rtt_ns, end_lost;
  uint8_t end_ccid;
  double first_t, last_t;
  int got_hello_ack, got_result;
  uint64_t res_pkts, res_bytes;
} rx_state;

static int handle_dgram(rx_state *rx, const uint8_t *b, udccp_ssize n) {
  int t = msg_type(b, n);
  switch (t) {
  case M_DATA:
    if (n >= 16) {
      uint64_t seq = get64(b + 8);
      rx->pkts++;
      rx->bytes += (uint64_t)n;
      if (seq + 1 > rx->max_seq_plus1) {
        rx->max_seq_plus1 = seq + 1;
      }
      double t1 = now_s();
      if (rx->first_t == 0) {
        rx->first_t = t1;
      }
      rx->last_t = t1;
    }
    break;
  case M_REPORT:
    if (n >= 32) {
      rx->last_report_pkts = get64(b + 8);
      rx->last_report_bytes = get64(b + 16);
      rx->last_report_lost = get64(b + 24);
    }
    break;
  case M_END:
    if (n >= 56) {
      rx->got_end = 1;
      rx->end_sent_pkts = get64(b + 8);
      rx->end_sent_bytes = get64(b + 16);
      rx->end_dur_ns = get64(b + 24);
      rx->end_rtt_ns = get64(b + 32);
      rx->end_lost = get64(b + 40);
      rx->end_ccid = b[48];
    }
    break;
  case M_RESULT:
    if (n >= 24) {
      rx->got_result = 1;
      rx->res_pkts = get64(b + 8);
      rx->res_bytes = get64(b + 16);
    }
    break;
  case M_HELLO_ACK:
    rx->got_hello_ack = 1;
    break;
  default:
    break;
  }
  return t;
}

static int drain(udccp_sock *s, rx_state *rx, uint8_t *buf, size_t cap,
                 int timeout_ms) {
  int last = 0;
  if (g_sig != 0) {
    return PERF_ERR_STOPPED;
  }
  for (int k = 0; k < 100000; k++) {
    if (g_sig != 0) {
      /* A sender faster than us keeps data waiting: answer the signal
       * now, not after the whole backlog. */
      return PERF_ERR_STOPPED;
    }
    udccp_ssize n = udccp_recv(s, buf, cap, k == 0 ? timeout_ms : 0);
    if (n == UDCCP_ERR_AGAIN) {
      return last;
    }
    if (n < 0) {
      return (int)n;
    }
    int t = handle_dgram(rx, buf, n);
    if (t > 0 && t != M_DATA) {
      last = t;
    }
  }
  return last;
}

static void send_ctrl(udccp_sock *s, const uint8_t *b, size_t n) {
  /* A control datagram that finds the queue full is retried by its
   * caller's repeat loop. */
  (void)udccp_send(s, b, n, 50);
}

static void print_interval(const perf_opts *o, const interval *iv,
                           uint8_t ccid) {
  if (o->json) {
    return;
  }
  printf("[%6.2f-%6.2f s] %9.3f Mbit/s  loss %5.2f%%  rtt %7.3f ms", iv->t0,
         iv->t1, iv->goodput_bps / 1e6, iv->loss * 100, iv->rtt_ms);
  if (ccid == 2) {
    printf("  cwnd %" PRIu64 "\n", iv->cwnd);
  } else {
    printf("  X %.3f Mbit/s\n", iv->x_bps / 1e6);
  }
  fflush(stdout);
}

static void add_interval(const interval *iv) {
  if (g_res.niv < PERF_MAX_INTERVALS) {
    g_res.iv[g_res.niv++] = *iv;
  }
}

/* The receiving role.  Returns 0 or a negative error. */
static int run_receiver(const perf_opts *o, udccp_sock *s, int is_client,
                        uint8_t *buf, size_t cap) {
  rx_state rx;
  memset(&rx, 0, sizeof(rx));
  double start = now_s(), next_report = start + 1.0, end_seen = 0;
  double hard_stop = start + (double)o->duration_ns / 1e9 + 60.0;
  double last_rx = start;
  uint64_t last_pkts = 0;
  uint64_t prev_bytes = 0, prev_pkts = 0, prev_lost = 0;
  double prev_t = start;
  int rv = 0;
  for (;;) {
    int t = drain(s, &rx, buf, cap, 100);
    double now = now_s();
    if (t < 0) {
      rv = t == UDCCP_ERR_CLOSED ? 0 : t;
      break;
    }
    if (t == M_END) {
      uint8_t m[64];
      size_t n = msg_init(m, M_RESULT);
      put64(m + n, rx.pkts);
      put64(m + n + 8, rx.bytes);
      send_ctrl(s, m, n + 16);
      if (end_seen == 0) {
        end_seen = now;
      }
    }
    if (now >= next_report && !rx.got_end) {
      uint64_t lost = rx.max_seq_plus1 - rx.pkts;
      uint8_t m[64];
      size_t n = msg_init(m, M_REPORT);
      put64(m + n, rx.pkts);
      put64(m + n + 8, rx.bytes);
      put64(m + n + 16, lost);
      send_ctrl(s, m, n + 24);
      udccp_conn_info info;
      udccp_sock_get_info(s, &info);
      interval iv;
      memset(&iv, 0, sizeof(iv));
      iv.t0 = prev_t - start;
      iv.t1 = now - start;
      iv.goodput_bps = (double)(rx.bytes - prev_bytes) * 8 / (now - prev_t);
      uint64_t dl = lost - prev_lost, dp = rx.pkts - prev_pkts;
      iv.loss = dl + dp ? (double)dl / (double)(dl + dp) : 0;
      iv.rtt_ms = (double)info.srtt / 1e6;
      iv.cwnd = info.cwnd;
      iv.x_bps = (double)info.x_recv * 8;
      if (is_client) {
        add_interval(&iv);
        print_interval(o, &iv, info.rx_ccid);
      }
      prev_t = now;
      prev_bytes = rx.bytes;
      prev_pkts = rx.pkts;
      prev_lost = lost;
      next_report += 1.0;
      if (next_report < now) {
        next_report = now + 1.0;
      }
    }
    /* The client ends the test: after answering END, it lingers a little
     * for a repeated END (our RESULT was lost), then closes.  The server
     * waits for that close. */
    if (end_seen != 0 && is_client && now - end_seen > 0.3) {
      break;
    }
    if (end_seen != 0 && !is_client && now - end_seen > 5.0) {
      break;
    }
    if (rx.pkts != last_pkts || t > 0) {
      last_pkts = rx.pkts;
      last_rx = now;
    }
    /* A sender that vanished (killed, unplugged) leaves no trace in DCCP
     * until the core's own timers fire; give up after 10 silent seconds. */
    if (now > hard_stop || now - last_rx > 10.0) {
      rv = UDCCP_ERR_TIMEOUT;
      break;
    }
  }
  g_res.recv_pkts = rx.pkts;
  g_res.recv_bytes = rx.bytes;
  if (rx.got_end) {
    g_res.have_result = 1;
    g_res.sent_pkts = rx.end_sent_pkts;
    g_res.sent_bytes = rx.end_sent_bytes;
    g_res.duration_s = (double)rx.end_dur_ns / 1e9;
    g_res.rtt_ms = (double)rx.end_rtt_ns / 1e6;
    g_res.ccid_lost = rx.end_lost;
    g_res.ccid = rx.end_ccid;
  } else {
    udccp_conn_info info;
    udccp_sock_get_info(s, &info);
    g_res.ccid = info.rx_ccid;
    g_res.duration_s = rx.last_t > rx.first_t ? rx.last_t - rx.first_t : 0;
  }
  return rv;
}

/* The sending role.  Returns 0 or a negative error. */
static int run_sender(const perf_opts *o, udccp_endpoint *ep, udccp_sock *s,
                      uint64_t length, int is_client, uint8_t *buf,
                      size_t cap) {
  rx_state rx;
  memset(&rx, 0, sizeof(rx));
  uint8_t *data = malloc(length < 64 ? 64 : length);
  if (data == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  memset(data, 0xa5, length);
  msg_init(data, M_DATA);
  double start = now_s(), stop = start + (double)o->duration_ns / 1e9;
  double next_send = start, prev_t = start;
  uint64_t seq = 0, bytes = 0, prev_bytes = 0, prev_pkts = 0, prev_lost = 0;
  int rv = 0;
  double now = start, next_poll = start;
  while ((now = now_s()) < stop) {
    /* Control datagrams (REPORT) are read every millisecond, not after
     * every datagram: each look runs the endpoint's loop, and the loop
     * sends what udccp_send_more() batched. */
    int t = 0;
    if (now >= next_poll || o->rate_bps != 0) {
      t = drain(s, &rx, buf, cap, 0);
      next_poll = now + 0.001;
    }
    if (t < 0) {
      rv = t;
      break;
    }
    if (t == M_REPORT) {
      udccp_conn_info info;
      udccp_sock_get_info(s, &info);
      interval iv;
      memset(&iv, 0, sizeof(iv));
      iv.t0 = prev_t - start;
      iv.t1 = now - start;
      iv.goodput_bps =
          (double)(rx.last_report_bytes - prev_bytes) * 8 / (now - prev_t);
      uint64_t dl = rx.last_report_lost - prev_lost;
      uint64_t dp = rx.last_report_pkts - prev_pkts;
      iv.loss = dl + dp ? (double)dl / (double)(dl + dp) : 0;
      iv.rtt_ms = (double)info.srtt / 1e6;
      iv.cwnd = info.cwnd;
      iv.x_bps = (double)info.x * 8;
      if (is_client) {
        add_interval(&iv);
        print_interval(o, &iv, info.tx_ccid);
      }
      prev_t = now;
      prev_bytes = rx.last_report_bytes;
      prev_pkts = rx.last_report_pkts;
      prev_lost = rx.last_report_lost;
    }
    if (o->rate_bps != 0 && now < next_send) {
      double wait_ms = (next_send - now) * 1e3;
      (void)udccp_endpoint_run(ep, wait_ms < 1 ? 0 : (int)wait_ms);
      continue;
    }
    put64(data + 8, seq);
    int tmo = (int)((stop - now) * 1e3);
    /* Unpaced, datagrams go out in batches (one sendmmsg, or one GSO
     * send, per batch); paced ones at once. */
    udccp_ssize n = o->rate_bps != 0
                        ? udccp_send(s, data, length, tmo > 100 ? 100 : tmo)
                        : udccp_send_more(s, data, length,
                                          tmo > 100 ? 100 : tmo);
    if (n == (udccp_ssize)length) {
      seq++;
      bytes += length;
      if (o->rate_bps != 0) {
        next_send += (double)length * 8 / (double)o->rate_bps;
      }
    } else if (n != UDCCP_ERR_AGAIN) {
      rv = (int)n;
      break;
    }
  }
  free(data);
  double dur = now_s() - start;
  udccp_conn_info info;
  udccp_sock_get_info(s, &info);
  g_res.sent_pkts = seq;
  g_res.sent_bytes = bytes;
  g_res.duration_s = dur;
  g_res.rtt_ms = (double)info.srtt / 1e6;
  g_res.ccid_lost = info.pkts_lost;
  g_res.ccid = info.tx_ccid;
  if (rv != 0) {
    /* What the receiver last reported is all we know. */
    g_res.recv_pkts = rx.last_report_pkts;
    g_res.recv_bytes = rx.last_report_bytes;
    return rv;
  }
  /* END until RESULT: up to 20 tries, 250 ms apart. */
  for (int k = 0; k < 20 && !rx.got_result; k++) {
    uint8_t m[64];
    size_t n = msg_init(m, M_END);
    put64(m + n, seq);
    put64(m + n + 8, bytes);
    put64(m + n + 16, (uint64_t)(dur * 1e9));
    put64(m + n + 24, info.srtt);
    put64(m + n + 32, info.pkts_lost);
    m[n + 40] = info.tx_ccid;
    send_ctrl(s, m, n + 48);
    double until = now_s() + 0.25;
    while (!rx.got_result && now_s() < until) {
      int t = drain(s, &rx, buf, cap, 50);
      if (t < 0) {
        return t == UDCCP_ERR_CLOSED && rx.got_result ? 0 : t;
      }
    }
  }
  if (rx.got_result) {
    g_res.have_result = 1;
    g_res.recv_pkts = rx.res_pkts;
    g_res.recv_bytes = rx.res_bytes;
    /* The last partial interval, from the final counts. */
    if (dur - (prev_t - start) > 0.05 && rx.res_bytes >= prev_bytes) {
      interval iv;
      memset(&iv, 0, sizeof(iv));
      iv.t0 = prev_t - start;
      iv.t1 = dur;
      iv.goodput_bps = (double)(rx.res_bytes - prev_bytes) * 8 / (iv.t1 - iv.t0);
      uint64_t dp = rx.res_pkts - prev_pkts;
      uint64_t dsent = seq > prev_pkts + prev_lost ? seq - prev_pkts - prev_lost
                                                   : 0;
      iv.loss = dsent > dp ? (double)(dsent - dp) / (double)dsent : 0;
      iv.rtt_ms = (double)info.srtt / 1e6;
      iv.cwnd = info.cwnd;
      iv.x_bps = (double)info.x * 8;
      if (is_client) {
        add_interval(&iv);
        print_interval(o, &iv, info.tx_ccid);
      }
    }
  } else {
    /* Fall back on the last REPORT. */
    g_res.recv_pkts = rx.last_report_pkts;
    g_res.recv_bytes = rx.last_report_bytes;
  }
  return 0;
}

static void print_summary(const perf_opts *o, const char *who) {
  uint64_t lost =
      g_res.sent_pkts > g_res.recv_pkts ? g_res.sent_pkts - g_res.recv_pkts : 0;
  double loss = g_res.sent_pkts ? (double)lost / (double)g_res.sent_pkts : 0;
  double gp =
      g_res.duration_s > 0 ? (double)g_res.recv_bytes * 8 / g_res.duration_s : 0;
  if (o->json && !o->server) {
    printf("{\"ccid\": %u, \"transport\": \"%s\", \"reverse\": %s, "
           "\"duration_s\": %.3f, \"sent_pkts\": %" PRIu64
           ", \"received_pkts\": %" PRIu64 ", \"lost_pkts\": %" PRIu64
           ", \"sent_bytes\": %" PRIu64 ", \"received_bytes\": %" PRIu64
           ", \"goodput_bps\": %.0f, \"rtt_ms\": %.3f, \"loss_rate\": %.6f, "
           "\"ccid_lost_pkts\": %" PRIu64 ", \"complete\": %s, "
           "\"tx_pkts_per_batch\": %.2f, \"rx_pkts_per_batch\": %.2f, "
           "\"intervals\": [",
           (unsigned)g_res.ccid, o->raw ? "raw" : "udp",
           o->reverse ? "true" : "false", g_res.duration_s, g_res.sent_pkts,
           g_res.recv_pkts, lost, g_res.sent_bytes, g_res.recv_bytes, gp,
           g_res.rtt_ms, loss, g_res.ccid_lost,
           g_res.have_result ? "true" : "false", g_res.tx_per_batch,
           g_res.rx_per_batch);
    for (size_t i = 0; i < g_res.niv; i++) {
      const interval *iv = &g_res.iv[i];
      printf("%s{\"start\": %.3f, \"end\": %.3f, \"goodput_bps\": %.0f, "
             "\"loss_rate\": %.6f, \"rtt_ms\": %.3f, \"cwnd\": %" PRIu64 "}",
             i ? ", " : "", iv->t0, iv->t1, iv->goodput_bps, iv->loss,
             iv->rtt_ms, iv->cwnd);
    }
    printf("]}\n");
    return;
  }
  printf("- - - - - - - - - - - - - - - - - - - - - - - - -\n");
  printf("%s: CCID %u, %.2f s, sent %" PRIu64 " pkts (%" PRIu64
         " bytes), received %" PRIu64 " pkts (%" PRIu64 " bytes)\n",
         who, (unsigned)g_res.ccid, g_res.duration_s, g_res.sent_pkts,
         g_res.sent_bytes, g_res.recv_pkts, g_res.recv_bytes);
  printf("%s: goodput %.3f Mbit/s, lost %" PRIu64 " (%.2f%%), rtt %.3f ms%s\n",
         who, gp / 1e6, lost, loss * 100, g_res.rtt_ms,
         g_res.have_result ? "" : " (no final report: figures partial)");
  fflush(stdout);
}

/* --------------------------------------------------------------- server */

static int serve_one(const perf_opts *o, udccp_endpoint *ep, uint8_t *buf,
                     size_t cap) {
  udccp_sock *s = NULL;
  int rv;
  do {
    rv = udccp_accept(ep, &s, 200);
  } while (rv == UDCCP_ERR_AGAIN && g_sig == 0);
  if (g_sig != 0 && rv == UDCCP_ERR_AGAIN) {
    return 128 + g_sig;
  }
  if (rv != 0) {
    return die_err("accept", rv);
  }
  char peer[80] = "?";
  const udccp_path *p = udccp_sock_get_path(s);
  udccp_io_addr_format(peer, sizeof(peer), p->family, p->remote_addr,
                       p->remote_port);
  /* HELLO: the client repeats it until our HELLO_ACK arrives. */
  uint8_t hello[64];
  udccp_ssize n = UDCCP_ERR_AGAIN;
  for (int k = 0; k < 100 && g_sig == 0; k++) {
    n = udccp_recv(s, hello, sizeof(hello), 100);
    if (n >= 32 && msg_type(hello, n) == M_HELLO) {
      break;
    }
    if (n < 0 && n != UDCCP_ERR_AGAIN) {
      break;
    }
    n = UDCCP_ERR_AGAIN;
  }
  if (n < 32) {
    fprintf(stderr, "udccp-perf: %s: no test parameters received\n", peer);
    udccp_close(s, 1000);
    return 1;
  }
  perf_opts to = *o;
  to.reverse = hello[8] & 1;
  to.duration_ns = get64(hello + 16);
  uint64_t length = get64(hello + 24);
  to.rate_bps = n >= 40 ? get64(hello + 32) : 0;
  uint8_t ack[16];
  size_t an = msg_init(ack, M_HELLO_ACK);
  send_ctrl(s, ack, an);
  memset(&g_res, 0, sizeof(g_res));
  if (!o->json) {
    printf("accepted %s: %s, %" PRIu64 "-byte datagrams, %.1f s\n", peer,
           to.reverse ? "server sends" : "client sends", length,
           (double)to.duration_ns / 1e9);
    fflush(stdout);
  }
  if (to.reverse) {
    rv = run_sender(&to, ep, s, length, 0, buf, cap);
    /* Wait for the client's close. */
    for (int k = 0; k < 50 && rv == 0; k++) {
      udccp_ssize r = udccp_recv(s, buf, cap, 100);
      if (r < 0 && r != UDCCP_ERR_AGAIN) {
        break;
      }
    }
  } else {
    /* A duplicate HELLO may still come: answer it inside the receiver. */
    rv = run_receiver(&to, s, 0, buf, cap);
  }
  if (rv != 0 && rv != UDCCP_ERR_CLOSED) {
    char who[120];
    snprintf(who, sizeof(who), "test with %s", peer);
    report_end(who, s, rv);
  }
  print_summary(&to, "server");
  if (g_sig != 0) {
    udccp_abort(s);
  } else {
    (void)udccp_close(s, 2000);
  }
  return rv == 0 || rv == UDCCP_ERR_CLOSED ? 0 : 1;
}

typedef struct perf_worker {
  const perf_opts *o;
  udccp_endpoint *ep;
  int status;
} perf_worker;

static void *worker_main(void *arg) {
  perf_worker *w = arg;
  uint8_t *buf = malloc(65536);
  w->status = buf == NULL;
  while (buf != NULL) {
    w->status = serve_one(w->o, w->ep, buf, 65536);
    if (w->o->once || g_sig != 0) {
      break;
    }
  }
  free(buf);
  return NULL;
}

/* --threads N: one endpoint per worker, all on one UDP port. */
static int run_workers(const perf_opts *o, udccp_endpoint_config *cfg) {
  udccp_endpoint *eps[64];
  perf_worker w[64];
  pthread_t th[64];
  size_t n = (size_t)o->threads;
  int rv = udccp_endpoint_new_workers(eps, n, cfg);
  if (rv == UDCCP_ERR_ADDRINUSE) {
    fprintf(stderr,
            "udccp-perf: UDP port %u is already in use (another server?); "
            "choose another with -p or --udp-port\n",
            (unsigned)o->udp_port);
    return 1;
  }
  if (rv != 0) {
    return die_err("cannot open the worker endpoints", rv);
  }
  uint32_t code = PERF_SERVICE;
  for (size_t k = 0; k < n && rv == 0; k++) {
    rv = udccp_listen(eps[k], o->port, &code, 1);
  }
  if (rv != 0) {
    for (size_t k = 0; k < n; k++) {
      udccp_endpoint_del(eps[k]);
    }
    return die_err("listen", rv);
  }
  if (!o->json) {
    printf("udccp-perf server: DCCP port %u over UDP port %u, %zu worker "
           "threads\n",
           (unsigned)o->port, (unsigned)udccp_endpoint_local_port(eps[0]), n);
    fflush(stdout);
  }
  size_t started = 0;
  for (size_t k = 0; k < n; k++) {
    w[k].o = o;
    w[k].ep = eps[k];
    w[k].status = 1;
    if (pthread_create(&th[k], NULL, worker_main, &w[k]) != 0) {
      break;
    }
    started++;
  }
  int status = started == n ? 0 : 1;
  for (size_t k = 0; k < started; k++) {
    pthread_join(th[k], NULL);
    status |= w[k].status;
  }
  for (size_t k = 0; k < n; k++) {
    udccp_endpoint_del(eps[k]);
  }
  return status;
}

static int run_server(const perf_opts *o) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.transport = o->raw ? UDCCP_TRANSPORT_RAW : UDCCP_TRANSPORT_UDP;
  cfg.no_offload = (uint8_t)o->no_offload;
  cfg.local_port = o->udp_port;
  /* DCCP-UDP: share the UDP port (6511 by default) with other servers of
   * other DCCP ports (RFC 6773 §3.8), e.g. preloaded programs. */
  cfg.reuseport = (uint8_t)!o->raw;
  cfg.init_cookie = o->cookies;
  cfg.half_open_max = o->half_open;
  cfg.backlog = o->backlog;
  udccp_settings st;
  perf_settings(&st, o->keepalive);
  cfg.settings = &st;
  if (o->threads > 1) {
    return run_workers(o, &cfg);
  }
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv == UDCCP_ERR_ADDRINUSE) {
    fprintf(stderr,
            "udccp-perf: UDP port %u is already in use (another server?); "
            "choose another with -p or --udp-port\n",
            (unsigned)o->udp_port);
    return 1;
  }
  if (rv == UDCCP_ERR_PERM) {
    fprintf(stderr, "udccp-perf: --raw needs root (or CAP_NET_RAW); run as "
                    "root or drop --raw to use DCCP-UDP\n");
    return 1;
  }
  if (rv != 0) {
    return die_err("cannot open the endpoint", rv);
  }
  uint32_t code = PERF_SERVICE;
  rv = udccp_listen(ep, o->port, &code, 1);
  if (rv == UDCCP_ERR_ADDRINUSE) {
    fprintf(stderr,
            "udccp-perf: DCCP port %u is already in use on UDP port %u "
            "(another server?); choose another with -p or --udp-port\n",
            (unsigned)o->port, (unsigned)udccp_endpoint_local_port(ep));
    udccp_endpoint_del(ep);
    return 1;
  }
  if (rv != 0) {
    udccp_endpoint_del(ep);
    return die_err("listen", rv);
  }
  if (!o->json) {
    if (o->raw) {
      printf("udccp-perf server: native DCCP port %u\n", (unsigned)o->port);
    } else {
      printf("udccp-perf server: DCCP port %u over UDP port %u\n",
             (unsigned)o->port, (unsigned)udccp_endpoint_local_port(ep));
    }
    fflush(stdout);
  }
  size_t cap = 65536;
  uint8_t *buf = malloc(cap);
  int status = 0;
  if (buf == NULL) {
    status = 1;
  }
  while (buf != NULL) {
    status = serve_one(o, ep, buf, cap);
    if (o->once || g_sig != 0) {
      break;
    }
  }
  free(buf);
  udccp_endpoint_del(ep);
  return status;
}

/* --------------------------------------------------------------- client */

static int run_client(const perf_opts *o) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.transport = o->raw ? UDCCP_TRANSPORT_RAW : UDCCP_TRANSPORT_UDP;
  cfg.no_offload = (uint8_t)o->no_offload;
  cfg.remote_udp_port = o->udp_port;
  udccp_settings cst;
  perf_settings(&cst, o->keepalive);
  cfg.settings = &cst;
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv == UDCCP_ERR_PERM) {
    fprintf(stderr, "udccp-perf: --raw needs root (or CAP_NET_RAW); run as "
                    "root or drop --raw to use DCCP-UDP\n");
    return 1;
  }
  if (rv != 0) {
    return die_err("cannot open the endpoint", rv);
  }
  udccp_sock *s = NULL;
  rv = udccp_connect(ep, &s, o->host, o->port, PERF_SERVICE, o->ccid, 5000);
  if (rv != 0) {
    if (rv == UDCCP_ERR_RESOLVE) {
      fprintf(stderr, "udccp-perf: cannot resolve host '%s'\n", o->host);
    } else if (rv == UDCCP_ERR_REFUSED) {
      fprintf(stderr,
              "udccp-perf: connection to %s port %u refused (no udccp-perf "
              "server there, or it refused the service code)\n",
              o->host, (unsigned)o->port);
    } else if (rv == UDCCP_ERR_INVALID_ARGUMENT && o->ccid != 0) {
      fprintf(stderr,
              "udccp-perf: CCID %u is not available in this build of "
              "libudccp (%s); try --ccid 2\n",
              (unsigned)o->ccid, udccp_io_strerror(rv));
    } else if (rv == UDCCP_ERR_TIMEOUT) {
      fprintf(stderr,
              "udccp-perf: no answer from %s port %u within 5 s (is the "
              "server running? firewall?)\n",
              o->host, (unsigned)o->port);
    } else {
      char what[160];
      snprintf(what, sizeof(what), "cannot connect to %s port %u", o->host,
               (unsigned)o->port);
      die_err(what, rv);
    }
    udccp_endpoint_del(ep);
    return 1;
  }
  size_t mps = udccp_sock_get_mps(s);
  uint64_t length = o->length ? o->length : mps;
  if (length < 16 || length > mps) {
    fprintf(stderr,
            "udccp-perf: -l %" PRIu64 " is out of range: 16..%zu bytes (the "
            "connection's maximum packet size)\n",
            length, mps);
    udccp_abort(s);
    udccp_endpoint_del(ep);
    return 1;
  }
  if (o->ccid != 0) {
    udccp_conn_info info;
    udccp_sock_get_info(s, &info);
    uint8_t got = o->reverse ? info.rx_ccid : info.tx_ccid;
    if (got != o->ccid) {
      /* Feature negotiation (RFC 4340 §6.3.1) let the server's preference
       * win: measuring another CCID than asked would mislead. */
      fprintf(stderr,
              "udccp-perf: asked for CCID %u but the connection negotiated "
              "CCID %u (the server or this libudccp does not offer CCID %u "
              "first); no test run\n",
              (unsigned)o->ccid, (unsigned)got, (unsigned)o->ccid);
      udccp_abort(s);
      udccp_endpoint_del(ep);
      return 1;
    }
  }
  size_t cap = 65536;
  uint8_t *buf = malloc(cap);
  if (buf == NULL) {
    udccp_endpoint_del(ep);
    return 1;
  }
  if (!o->json) {
    printf("connected to %s port %u (%s), %" PRIu64
           "-byte datagrams, %s\n",
           o->host, (unsigned)o->port, o->raw ? "native DCCP" : "DCCP-UDP",
           length, o->reverse ? "server sends" : "client sends");
    fflush(stdout);
  }
  /* HELLO until HELLO_ACK (10 tries, 300 ms apart). */
  rx_state rx;
  memset(&rx, 0, sizeof(rx));
  for (int k = 0; k < 10 && !rx.got_hello_ack; k++) {
    uint8_t m[64];
    size_t n = msg_init(m, M_HELLO);
    m[n] = o->reverse ? 1 : 0;
    put64(m + 16, o->duration_ns);
    put64(m + 24, length);
    put64(m + 32, o->rate_bps);
    send_ctrl(s, m, 40);
    double until = now_s() + 0.3;
    while (!rx.got_hello_ack && now_s() < until) {
      int t = drain(s, &rx, buf, cap, 50);
      if (t < 0) {
        rv = t;
        break;
      }
    }
    if (rv != 0) {
      break;
    }
  }
  if (rv == 0 && !rx.got_hello_ack) {
    rv = PERF_ERR_NO_HELLO_ACK;
  }
  memset(&g_res, 0, sizeof(g_res));
  if (rv == 0) {
    rv = o->reverse ? run_receiver(o, s, 1, buf, cap)
                    : run_sender(o, ep, s, length, 1, buf, cap);
  }
  int status = 0;
  if (rv != 0) {
    report_end("test failed", s, rv);
    status = 1;
  }
  if (g_res.ccid == 0) {
    g_res.ccid = o->ccid ? o->ccid : 2;
  }
  udccp_endpoint_stats st;
  udccp_endpoint_get_stats(ep, &st);
  g_res.tx_per_batch =
      st.tx_batches ? (double)st.tx_pkts / (double)st.tx_batches : 0;
  g_res.rx_per_batch =
      st.rx_batches ? (double)st.rx_pkts / (double)st.rx_batches : 0;
  print_summary(o, o->reverse ? "receiver" : "sender");
  if (!g_res.have_result) {
    status = 1;
  }
  if (g_sig != 0) {
    udccp_abort(s);
    s = NULL;
  }
  int crv = udccp_close(s, 3000);
  if (crv != 0 && rv == 0 && !o->json) {
    fprintf(stderr, "udccp-perf: close: %s\n", udccp_io_strerror(crv));
  }
  free(buf);
  udccp_endpoint_del(ep);
  return status;
}

int main(int argc, char **argv) {
  perf_opts o;
  memset(&o, 0, sizeof(o));
  o.port = PERF_DEFAULT_PORT;
  o.udp_port = UDCCP_UDP_PORT_DEFAULT;
  o.duration_ns = 10 * UDCCP_NS_PER_S;
  int port_set = 0;
  enum { OPT_RAW = 256, OPT_CCID, OPT_UDP_PORT, OPT_VERSION, OPT_NO_GSO,
         OPT_KEEPALIVE, OPT_COOKIES, OPT_HALF_OPEN, OPT_BACKLOG, OPT_THREADS };
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
      {"ccid", required_argument, NULL, OPT_CCID},
      {"length", required_argument, NULL, 'l'},
      {"bitrate", required_argument, NULL, 'b'},
      {"reverse", no_argument, NULL, 'R'},
      {"json", no_argument, NULL, 'J'},
      {"keepalive", required_argument, NULL, OPT_KEEPALIVE},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, OPT_VERSION},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "s1c:p:t:l:b:RJh", lopts, NULL)) != -1) {
    char *end = NULL;
    unsigned long v;
    uint64_t u;
    switch (c) {
    case 's': o.server = 1; break;
    case '1': o.once = 1; break;
    case 'c': o.host = optarg; break;
    case 'p':
    case OPT_UDP_PORT:
      v = strtoul(optarg, &end, 10);
      if (end == optarg || *end != '\0' || v == 0 || v > 65535) {
        fprintf(stderr, "udccp-perf: invalid port '%s' (1..65535)\n", optarg);
        return 2;
      }
      if (c == 'p') {
        o.port = (uint16_t)v;
        port_set = 1;
      } else {
        o.udp_port = (uint16_t)v;
        o.udp_port_set = 1;
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
        fprintf(stderr, "udccp-perf: --%s %s ('%s')\n", name, why, optarg);
        return 2;
      }
      break;
    }
    case OPT_NO_GSO: o.no_offload = 1; break;
    case OPT_THREADS:
      v = strtoul(optarg, &end, 10);
      if (end == optarg || *end != '\0' || v < 1 || v > 64) {
        fprintf(stderr, "udccp-perf: --threads must be 1..64\n");
        return 2;
      }
      o.threads = (int)v;
      break;
    case 't':
      if (udccp_io_parse_time(optarg, &o.duration_ns) != 0 ||
          o.duration_ns == 0 || o.duration_ns > 3600 * UDCCP_NS_PER_S) {
        fprintf(stderr, "udccp-perf: invalid time '%s' (e.g. 10, 2.5s, "
                        "500ms; at most 1 hour)\n", optarg);
        return 2;
      }
      break;
    case OPT_CCID:
      v = strtoul(optarg, &end, 10);
      if (end == optarg || *end != '\0' || v < 2 || v > 4) {
        fprintf(stderr, "udccp-perf: --ccid must be 2, 3 or 4\n");
        return 2;
      }
      o.ccid = (uint8_t)v;
      break;
    case 'l':
      if (udccp_io_parse_size(optarg, &u) != 0 || u < 16 || u > 65507) {
        fprintf(stderr, "udccp-perf: invalid length '%s' (16..MPS bytes)\n",
                optarg);
        return 2;
      }
      o.length = u;
      break;
    case 'b':
      if (udccp_io_parse_rate(optarg, &o.rate_bps) != 0) {
        fprintf(stderr, "udccp-perf: invalid rate '%s' (e.g. 10mbit, "
                        "1gbit, 500k)\n", optarg);
        return 2;
      }
      break;
    case 'R': o.reverse = 1; break;
    case 'J': o.json = 1; break;
    case OPT_KEEPALIVE: {
      udccp_settings t;
      udccp_settings_default(&t);
      if (udccp_io_parse_keepalive(optarg, &t) != 0) {
        fprintf(stderr, "udccp-perf: invalid keepalive '%s' (IDLE[,INTERVAL"
                        "[,PROBES]], e.g. 60,10,3 or 5s,1s,2; 0 or off)\n",
                optarg);
        return 2;
      }
      o.keepalive = optarg;
      break;
    }
    case 'h': usage(stdout); return 0;
    case OPT_VERSION: printf("udccp-perf %s\n", UDCCP_VERSION); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "udccp-perf: unexpected argument '%s'\n", argv[optind]);
    return 2;
  }
  if (port_set && !o.udp_port_set) {
    o.udp_port = o.port;
  }
  if (o.threads > 1 && (!o.server || o.raw)) {
    fprintf(stderr, "udccp-perf: --threads is for a DCCP-UDP server (-s, "
                    "without --raw)\n");
    return 2;
  }
  if (o.server == (o.host != NULL)) {
    fprintf(stderr, "udccp-perf: give exactly one of -s or -c HOST "
                    "(see --help)\n");
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
  return o.server ? run_server(&o) : run_client(&o);
}

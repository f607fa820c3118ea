/* SPDX-License-Identifier: MIT */
/*
 * udccp-cat: netcat for DCCP datagrams (DESIGN.md §4).
 *
 *   udccp-cat [options] HOST PORT        connect
 *   udccp-cat -l [options] [ADDR] PORT   listen (-k: one connection after
 *                                        another)
 *
 * Each line of stdin (newline included) becomes one datagram; a line
 * longer than the connection's MPS is cut into MPS-sized datagrams.  Every
 * datagram received is written to stdout as it is.
 *
 * End of input, as netcat: a side that reaches EOF on stdin after sending
 * something closes once its send queue has drained (Close, RFC 4340 §8.3)
 * and exits when the peer acknowledged it.  A side whose stdin is empty
 * (EOF before anything was sent: a listener in a script has stdin at
 * /dev/null) keeps receiving until the peer closes.
 *
 * Nothing is lost silently.  The sender never drops a line: when the send
 * queue is full it stops reading stdin until there is room (backpressure).
 * If the peer closes or resets while input is still unsent, udccp-cat says
 * how much was not sent and exits 1.  At the end each side reports on
 * stderr what was lost: the datagrams its CCID declared lost (sender), the
 * packets missing from the peer's sequence numbers (receiver: gaps, i.e.
 * lost in the network) and the datagrams its receive queue dropped; any
 * of them makes the exit status 1.
 *
 * Why a bulk transfer used to lose ~5 % on loopback: not in our queues
 * (the send queue refuses rather than drops, the receive queue never
 * filled) but in the receiver's kernel UDP buffer.  Loopback never loses,
 * so CCID 2 stays in slow start and its cwnd grows to thousands of
 * packets (the Sequence Window follows it, RFC 4340 §7.5.2); when the
 * receiver is descheduled on a busy machine that many small datagrams
 * (~1 KiB of kernel memory each) overflow its socket buffer
 * (/proc/net/snmp RcvbufErrors).  DCCP has no flow control, so udccp-cat
 * keeps at most CAT_MAX_INFLIGHT packets in flight (an application-limited
 * sender: CCID 2 stops growing cwnd, RFC 4341 §5.1) and asks for a larger
 * socket buffer, which together hold a stalled receiver's backlog.
 *
 * A peer that goes away is reported: a Reset from it (RFC 4340 §5.6) as
 * "reset by the peer" with its reason, silence beyond --idle-timeout as a
 * timeout.  SIGINT/SIGTERM abort the connection with Reset "Aborted", so
 * the peer learns at once that this end is gone, and so does a standard
 * output that fails (a reader that exited: SIGPIPE is ignored).
 *
 * A listener without -k serves one connection: others that complete
 * their handshake meanwhile are reset (Too Busy) rather than left in the
 * accept queue, acknowledged and never read.
 *
 * It drives the endpoint from its own poll() loop (udccp_endpoint_fd,
 * udccp_endpoint_timeout_ms, udccp_endpoint_process), the way an
 * application embeds udccp in an event loop.
 */
#define _GNU_SOURCE /* getopt_long, poll */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <udccp/udccp.h>

#include "../io/parse.h"

#define CAT_DEFAULT_PORT 5202
#define CAT_DEFAULT_SERVICE 0x43415400u /* "CAT" */
#define CAT_INBUF (256 * 1024)
/* Packets in flight at most (CCID 2's pipe): about 2.5 MB of kernel
 * memory at the receiver even for MPS-sized datagrams, within the socket
 * buffer asked for below, and still 110 Mbit/s at 100 ms RTT. */
#define CAT_MAX_INFLIGHT 1024
#define CAT_SOCKBUF (8 * 1024 * 1024)

typedef struct cat_opts {
  int listen, keep, raw, no_stdin, verbose;
  int multipath;      /* --multipath: RFC 9897 */
  const char *mp_local; /* --multipath ADDR,ADDR: the client's addresses */
  int mp_sched;       /* --mp-sched */
  int family; /* 0, 4 or 6 */
  uint16_t port, udp_port;
  uint8_t ccid;
  uint32_t service;
  int wait_ms;
  uint64_t idle_ns;
  udccp_settings ka; /* keepalive_* from --keepalive (else the defaults) */
  const char *host;
  const char *source; /* -s: local address */
  const char *pcap;   /* --pcap FILE: capture of what we send and receive */
  uint8_t cookies;             /* -l: enum udccp_init_cookie */
  uint32_t half_open, backlog; /* -l: 0 = the library's default */
} cat_opts;

/* stdin, shared by the connections of one run (-k). */
typedef struct cat_input {
  char *buf;
  size_t len, off;
  int eof;
} cat_input;

/* One connection's bookkeeping for the loss and unsent reports. */
typedef struct cat_conn {
  udccp_sock *s;
  uint64_t sent_dgrams, sent_bytes; /* accepted by udccp_send */
  uint64_t gsr0, recv0;             /* the peer's side at the start */
  uint64_t gsr1, recv1;             /* ... and when we began to close */
  int closing;
} cat_conn;

/* Drops what was sent from the input buffer: empties it when all went,
 * moves the rest to the front once more than half of it is spent. */
static void input_compact(cat_input *in) {
  if (in->off == in->len) {
    in->off = in->len = 0;
  } else if (in->off > CAT_INBUF / 2) {
    memmove(in->buf, in->buf + in->off, in->len - in->off);
    in->len -= in->off;
    in->off = 0;
  }
}

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
    fprintf(stderr, "udccp-cat: connection reset by the peer (Reset: %s)%s\n",
            udccp_reset_code_str(rc),
            rc == UDCCP_RESET_TOO_BUSY
                ? ": the listener serves one connection at a time, try "
                  "again later"
                : "");
  } else if (err == UDCCP_ERR_TIMEOUT && o->idle_ns == 0) {
    fprintf(stderr, "udccp-cat: connection timed out: the peer answered "
                    "none of %u keepalive probes (peer gone, or the network "
                    "drops its packets); Reset sent\n",
            (unsigned)o->ka.keepalive_probes);
  } else if (err == UDCCP_ERR_TIMEOUT) {
    fprintf(stderr, "udccp-cat: connection timed out: nothing from the peer "
                    "for %.1f s (peer gone, or the network drops its "
                    "packets); Reset sent\n",
            (double)o->idle_ns / 1e9);
  } else if (err == UDCCP_ERR_CLOSED || err == UDCCP_ERR_INVALID_STATE) {
    fprintf(stderr, "udccp-cat: the peer closed the connection\n");
  } else {
    fprintf(stderr, "udccp-cat: connection: %s (Reset: %s)\n",
            udccp_io_strerror(err), udccp_reset_code_str(rc));
  }
}

/* Standard output failed (the reader exited: EPIPE, or a full disk):
 * the errno of the first failure, 0 while it works.  SIGPIPE is ignored,
 * so that a reader that exits early (udccp-cat -l 5000 | head) does not
 * kill us before the peer is told: the connection is reset instead of
 * left for the peer's keepalive to find 90 s later. */
static int g_out_errno;
static uint64_t g_out_lost;    /* datagrams received, not (all) written */
static uint64_t g_out_pending; /* datagrams in stdio's buffer, not flushed */

/* Writes one datagram received to stdout; on failure counts it unwritten
 * and remembers why. */
static void out_write(const uint8_t *buf, size_t n) {
  if (g_out_errno != 0) {
    g_out_lost++;
    return;
  }
  g_out_pending++;
  if (n > 0 && fwrite(buf, 1, n, stdout) != n) {
    g_out_errno = errno != 0 ? errno : EIO;
    g_out_lost += g_out_pending;
  }
}

/* Flushes stdout; returns 0, or -1 once it failed (now or before). */
static int out_flush(void) {
  if (g_out_errno == 0 && fflush(stdout) != 0) {
    g_out_errno = errno != 0 ? errno : EIO;
    g_out_lost += g_out_pending; /* stdio's buffer: some, or all, lost */
  }
  g_out_pending = 0;
  return g_out_errno != 0 ? -1 : 0;
}

/* Says that stdout failed, and how much of what arrived is not in it. */
static void report_stdout(void) {
  fprintf(stderr, "udccp-cat: cannot write to standard output (%s)%s; "
                  "connection aborted (Reset sent to the peer); %llu "
                  "datagram%s received not (fully) written\n",
          strerror(g_out_errno),
          g_out_errno == EPIPE ? ": the reader is gone" : "",
          (unsigned long long)g_out_lost,
          g_out_lost == 1 ? "" : "s");
}

static void addr_str(char *b, size_t cap, uint8_t family, const uint8_t *a) {
  if (inet_ntop(family == UDCCP_AF_INET ? AF_INET : AF_INET6, a, b,
                (socklen_t)cap) == NULL) {
    snprintf(b, cap, "?");
  }
}

/* Resets every connection waiting to be accepted, saying so on stderr.
 * A listener without -k serves one connection, as netcat's: a second
 * client that completes its handshake meanwhile would otherwise sit in
 * the accept queue, its datagrams acknowledged (RFC 4340 §11.4: received,
 * not read) and never written anywhere, and it would exit 0 after a clean
 * close.  Reset Too Busy (§5.6) tells it at once; when udccp-cat exits
 * (end of the connection, a signal between -k connections) the waiting
 * ones get Reset Aborted instead of silence. */
static void refuse_waiting(udccp_endpoint *ep, uint8_t code,
                           const char *why) {
  udccp_sock *x = NULL;
  while (udccp_accept(ep, &x, 0) == 0) {
    const udccp_path *p = udccp_sock_get_path(x);
    char a[64];
    addr_str(a, sizeof(a), p->family, p->remote_addr);
    fprintf(stderr, "udccp-cat: refused the connection from %s port %u: "
                    "%s (Reset: %s)\n",
            a, (unsigned)p->remote_port, why, udccp_reset_code_str(code));
    udccp_abort_code(x, code);
  }
}

/* refuse_waiting() for a --multipath listener: the waiting connections
 * are reset (udccp_mpsock_abort, every subflow). */
static void refuse_waiting_mp(udccp_endpoint *ep, const char *why) {
  udccp_mpsock *x = NULL;
  while (udccp_mpsock_accept(ep, &x, 0) == 0) {
    udccp_mp_info mi;
    char a[64];
    udccp_mpsock_get_info(x, &mi);
    addr_str(a, sizeof(a), mi.sub[0].path.family, mi.sub[0].path.remote_addr);
    fprintf(stderr, "udccp-cat: refused the multipath connection from %s "
                    "port %u: %s\n",
            a, (unsigned)mi.sub[0].path.remote_port, why);
    udccp_mpsock_abort(x);
  }
}

static uint64_t mono_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
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
    out_write(buf, (size_t)n);
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

/* ------------------------------------------------ loss and unsent input */

static void conn_start(cat_conn *c, udccp_sock *s) {
  udccp_conn_info info;
  memset(c, 0, sizeof(*c));
  c->s = s;
  udccp_sock_get_info(s, &info);
  c->gsr0 = info.gsr;
  c->recv0 = info.pkts_recv;
}

/* Bytes of a regular file on stdin not read yet (0 for a pipe). */
static uint64_t stdin_unread(const cat_input *in) {
  struct stat st;
  if (in->eof || fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) {
    return 0;
  }
  off_t pos = lseek(STDIN_FILENO, 0, SEEK_CUR);
  return pos >= 0 && st.st_size > pos ? (uint64_t)(st.st_size - pos) : 0;
}

/* The connection ended before our input was all sent: says how much was
 * not, and returns 1 if any was left. */
static int report_unsent(const cat_conn *c, const cat_input *in) {
  udccp_conn_info info;
  udccp_sock_get_info(c->s, &info);
  uint64_t queued_b = c->sent_bytes > info.data_bytes_sent
                          ? c->sent_bytes - info.data_bytes_sent : 0;
  uint64_t queued_d = c->sent_dgrams > info.data_pkts_sent
                          ? c->sent_dgrams - info.data_pkts_sent : 0;
  uint64_t held = in->len - in->off, unread = stdin_unread(in);
  uint64_t total = queued_b + held + unread;
  if (total == 0) {
    return 0;
  }
  fprintf(stderr,
          "udccp-cat: %llu bytes of input not sent: %llu bytes in %llu "
          "datagrams queued, %llu bytes read from stdin, %llu bytes of the "
          "file not read (%llu datagrams were sent)\n",
          (unsigned long long)total, (unsigned long long)queued_b,
          (unsigned long long)queued_d, (unsigned long long)held,
          (unsigned long long)unread,
          (unsigned long long)info.data_pkts_sent);
  return 1;
}

/* What was lost, on stderr; returns 1 if anything was.  The receiver's
 * count comes from the peer's sequence numbers (RFC 4340 §7.1: every
 * packet takes one): those between the first and the last seen that never
 * arrived were lost in the network, data or not. */
static int report_loss(const cat_conn *c) {
  udccp_conn_info info;
  udccp_sock_get_info(c->s, &info);
  /* The closer counts up to its Close: the peer's last acknowledgements
   * may cross it and be discarded (8 sequence numbers in a 20 MB run,
   * no kernel drop), and no datagram depends on them. */
  uint64_t gsr1 = c->closing ? c->gsr1 : info.gsr;
  uint64_t recv1 = c->closing ? c->recv1 : info.pkts_recv;
  uint64_t span = (gsr1 - c->gsr0) & 0xFFFFFFFFFFFFULL;
  /* Packets refused by the rules arrived all the same: they count as
   * received (a duplicate may hide a loss: an estimate from below). */
  uint64_t got = recv1 - c->recv0;
  uint64_t missing = span > got ? span - got : 0;
  int lost = 0;
  if (info.pkts_lost > 0) {
    /* The CCID's count is the sender's view: a packet not acknowledged
     * before the retransmission timer fired counts as lost although it
     * may have arrived late (a receiver stalled for seconds: its reader
     * slow, or it descheduled); the receiver's gap count is exact. */
    fprintf(stderr, "udccp-cat: %llu of %llu datagrams sent were declared "
                    "lost by CCID %u (not acknowledged in time: lost in the "
                    "network, or the receiver stalled; the receiver's "
                    "report says which)\n",
            (unsigned long long)info.pkts_lost,
            (unsigned long long)info.data_pkts_sent, (unsigned)info.tx_ccid);
    lost = 1;
  }
  if (missing > 0) {
    fprintf(stderr, "udccp-cat: %llu packets from the peer never arrived "
                    "(gaps in its sequence numbers: lost in the network); "
                    "%llu datagrams received\n",
            (unsigned long long)missing,
            (unsigned long long)info.data_pkts_recv);
    lost = 1;
  }
  if (info.rx_qdrops > 0) {
    fprintf(stderr, "udccp-cat: %llu datagrams received were dropped here "
                    "(receive queue full)\n",
            (unsigned long long)info.rx_qdrops);
    lost = 1;
  }
  return lost;
}

/* ------------------------------------------------------------ data path */

/* Room for more datagrams: CCID 2's packets in flight below the cap.  A
 * rate-based CCID (3, 4) follows the receiver's reported rate instead. */
static int inflight_ok(udccp_sock *s) {
  udccp_conn_info info;
  udccp_sock_get_info(s, &info);
  return info.tx_ccid != 2 || info.pipe < CAT_MAX_INFLIGHT;
}

/* Sends what stdin gave us, a line (or an MPS-sized piece) at a time.
 * Returns 1 if the queue (or the in-flight cap) stopped it, 0 if all was
 * queued, or the negative code of a connection that cannot send. */
static int send_input(cat_conn *c, cat_input *in) {
  int blocked = 0;
  if (!inflight_ok(c->s)) {
    return 1;
  }
  for (int k = 0; in->off < in->len; k++) {
    size_t mps = udccp_sock_get_mps(c->s);
    char *start = in->buf + in->off;
    size_t avail = in->len - in->off;
    char *nl = memchr(start, '\n', avail);
    size_t n = nl ? (size_t)(nl - start) + 1 : avail;
    if (nl == NULL && !in->eof && avail < mps) {
      break; /* wait for the rest of the line */
    }
    if (n > mps) {
      n = mps;
    }
    if (k > 0 && k % 64 == 0 && !inflight_ok(c->s)) {
      blocked = 1;
      break;
    }
    /* All but the last of a burst may wait in the transmit batch: one
     * sendmmsg per batch instead of a system call per line. */
    udccp_ssize r = udccp_send_more(c->s, start, n, 0);
    if (r == UDCCP_ERR_AGAIN) {
      blocked = 1;
      break;
    }
    if (r < 0) {
      return (int)r;
    }
    c->sent_dgrams++;
    c->sent_bytes += n;
    in->off += n;
  }
  input_compact(in);
  return blocked;
}

/* EOF and all queued: close gracefully, waiting (bounded) for the queue to
 * drain and the peer to acknowledge, so that the counters reported
 * afterwards include every datagram and every loss.  Returns the exit
 * status. */
static int close_conn(const cat_opts *o, udccp_endpoint *ep, cat_conn *c,
                      cat_input *in, uint8_t *rbuf, size_t cap) {
  udccp_sock *s = c->s;
  udccp_conn_info info;
  udccp_sock_get_info(s, &info);
  c->gsr1 = info.gsr;
  c->recv1 = info.pkts_recv;
  c->closing = 1;
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
  int status = 0;
  if (out_flush() != 0) {
    report_stdout();
    udccp_abort(s);
    return 1;
  }
  if (g_sig != 0) {
    (void)report_unsent(c, in);
    udccp_abort(s);
    return 128 + g_sig;
  }
  int err = udccp_sock_error(s);
  if (err != 0 && err != UDCCP_ERR_CLOSED) {
    report_dead(o, s, err);
    status = 1;
  }
  status |= report_unsent(c, in);
  status |= report_loss(c);
  crv = udccp_close(s, 30000);
  if (crv != 0 && status == 0) {
    status = report("close", crv);
  }
  return status;
}

/* One turn of a connection's loop: wait for the endpoint's socket, its
 * next timer or (while there is room and the connection takes input)
 * standard input; run the endpoint; read what stdin has.  While the
 * connection refuses input (blocked), wake within 10 ms to offer the
 * queued lines again.  Returns 0, or -1 when poll() fails. */
static int wait_and_read(const cat_opts *o, udccp_endpoint *ep,
                         cat_input *in, int blocked) {
  struct pollfd pfd[2];
  pfd[0].fd = udccp_endpoint_fd(ep);
  pfd[0].events = POLLIN;
  nfds_t nfds = 1;
  if (!o->no_stdin && !in->eof && !blocked && in->len < CAT_INBUF) {
    pfd[1].fd = STDIN_FILENO;
    pfd[1].events = POLLIN;
    nfds = 2;
  }
  int t = udccp_endpoint_timeout_ms(ep);
  if (blocked && (t < 0 || t > 10)) {
    t = 10;
  }
  if (poll(pfd, nfds, t) < 0 && errno != EINTR) {
    return -1;
  }
  (void)udccp_endpoint_process(ep);
  if (nfds == 2 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) {
    ssize_t r = read(STDIN_FILENO, in->buf + in->len, CAT_INBUF - in->len);
    if (r > 0) {
      in->len += (size_t)r;
    } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
      in->eof = 1;
    }
  }
  return 0;
}

/* Runs one connection to its end; returns the exit status. */
static int run(const cat_opts *o, udccp_endpoint *ep, udccp_sock *s,
               cat_input *in) {
  size_t cap = 65536;
  uint8_t *rbuf = malloc(cap);
  if (rbuf == NULL) {
    return 1;
  }
  cat_conn c;
  conn_start(&c, s);
  int status = 0;
  uint64_t next_refuse = 0;
  for (;;) {
    if (o->listen && !o->keep && mono_ms() >= next_refuse) {
      refuse_waiting(ep, UDCCP_RESET_TOO_BUSY,
                     "serving one connection already (-k serves them in "
                     "turn)");
      next_refuse = mono_ms() + 100;
    }
    int rv = pump_out(s, rbuf, cap);
    if (out_flush() != 0) {
      report_stdout();
      (void)report_unsent(&c, in);
      udccp_abort(s);
      s = NULL;
      status = 1;
      break;
    }
    if (rv != 0) {
      /* The peer closed (or reset): fine unless input was left. */
      if (rv != UDCCP_ERR_CLOSED) {
        report_dead(o, s, rv);
        status = 1;
      } else if (in->len > in->off || stdin_unread(in) > 0) {
        report_dead(o, s, rv);
      }
      status |= report_unsent(&c, in);
      status |= report_loss(&c);
      break;
    }
    if (g_sig != 0) {
      fprintf(stderr, "udccp-cat: %s: connection aborted (Reset sent to the "
                      "peer)\n",
              g_sig == SIGINT ? "interrupted" : "terminated");
      (void)report_unsent(&c, in);
      udccp_abort(s);
      s = NULL;
      status = 128 + g_sig;
      break;
    }
    int blocked = 0;
    if (!o->no_stdin) {
      blocked = send_input(&c, in);
      if (blocked < 0) {
        report_dead(o, s, blocked);
        status = 1;
        (void)report_unsent(&c, in);
        (void)report_loss(&c);
        break;
      }
    }
    /* EOF after sending: close once drained.  EOF with nothing sent on
     * this connection (empty stdin): keep receiving, as netcat does. */
    if (!o->no_stdin && in->eof && in->len == 0 && c.sent_dgrams > 0) {
      status = close_conn(o, ep, &c, in, rbuf, cap);
      s = NULL;
      break;
    }
    if (wait_and_read(o, ep, in, blocked) != 0) {
      status = 1;
      break;
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
  /* What this connection did not send is not offered to the next (-k). */
  in->len = in->off = 0;
  return status;
}

/* ------------------------------------------------------- multipath */

/* RFC 9897 through udccp_mpsock: the same loop as run(), the same promise
 * (nothing lost silently): input the connection did not take, datagrams
 * its paths' CCIDs declared lost, and MP_SEQ numbers the receiver never
 * got are reported and make the exit status 1. */

static const char *sched_name(int s) {
  switch (s) {
  case UDCCP_MP_SCHED_BACKUP: return "backup";
  case UDCCP_MP_SCHED_RR: return "rr";
  case UDCCP_MP_SCHED_REDUNDANT: return "redundant";
  default: return "minrtt";
  }
}

/* Per path, on stderr (-v): addresses, state, what it carried, its RTT
 * and losses, its share of the datagrams sent. */
static void mp_print_paths(const udccp_mp_info *mi) {
  fprintf(stderr, "udccp-cat: multipath %s, %u path%s, scheduler %s; "
                  "receiver: %llu datagrams released after a gap, %llu "
                  "came too late, %llu MP_SEQ numbers never came\n",
          mi->active ? "active" : "off (plain DCCP: the peer did not agree)",
          (unsigned)mi->n_subflows, mi->n_subflows == 1 ? "" : "s",
          sched_name(mi->sched), (unsigned long long)mi->rx_released_late,
          (unsigned long long)mi->rx_late_dropped,
          (unsigned long long)mi->rx_mp_seq_skipped);
  for (size_t i = 0; i < mi->n_subflows; i++) {
    const udccp_mp_subflow_info *p = &mi->sub[i];
    char la[64], ra[64];
    addr_str(la, sizeof(la), p->path.family, p->path.local_addr);
    addr_str(ra, sizeof(ra), p->path.family, p->path.remote_addr);
    fprintf(stderr, "udccp-cat: path %zu %s -> %s: %s%s, sent %llu "
                    "datagrams (%llu bytes, %u.%u %%), received %llu (%llu "
                    "bytes), rtt %.1f ms, %llu lost\n",
            i, la, ra, udccp_state_str(p->state), p->dead ? " (dead)" : "",
            (unsigned long long)p->tx_dgrams,
            (unsigned long long)p->tx_bytes, p->share_permille / 10,
            p->share_permille % 10, (unsigned long long)p->rx_dgrams,
            (unsigned long long)p->rx_bytes, (double)p->srtt / 1e6,
            (unsigned long long)p->pkts_lost);
  }
}

/* The largest datagram every path takes. */
static size_t mp_mps(udccp_mpsock *m) {
  size_t mps = 0;
  udccp_sock *s;
  for (size_t i = 0; (s = udccp_mpsock_subflow(m, i)) != NULL; i++) {
    size_t x = udccp_sock_get_mps(s);
    mps = x > 0 && (mps == 0 || x < mps) ? x : mps;
  }
  return mps > 0 ? mps : 536;
}

/* Losses and unsent input; returns 1 if any. */
static int mp_report(const udccp_mp_info *mi, uint64_t sent_dgrams,
                     const cat_input *in) {
  uint64_t tx = 0, lost = 0;
  int bad = 0;
  for (size_t i = 0; i < mi->n_subflows; i++) {
    tx += mi->sub[i].tx_dgrams;
    lost += mi->sub[i].pkts_lost;
  }
  uint64_t queued = sent_dgrams > tx ? sent_dgrams - tx : 0;
  uint64_t held = in->len - in->off, unread = stdin_unread(in);
  if (queued + held + unread > 0) {
    fprintf(stderr, "udccp-cat: input not sent: %llu datagrams queued, "
                    "%llu bytes read from stdin, %llu bytes of the file not "
                    "read (%llu datagrams were sent)\n",
            (unsigned long long)queued, (unsigned long long)held,
            (unsigned long long)unread, (unsigned long long)tx);
    bad = 1;
  }
  if (lost > 0) {
    fprintf(stderr, "udccp-cat: %llu datagrams sent were lost in the network "
                    "(declared lost by the paths' CCIDs)\n",
            (unsigned long long)lost);
    bad = 1;
  }
  if (mi->rx_mp_seq_skipped + mi->rx_late_dropped > 0) {
    fprintf(stderr, "udccp-cat: %llu datagrams from the peer never arrived "
                    "(gaps in MP_SEQ), %llu came after their gap was given "
                    "up and were dropped\n",
            (unsigned long long)mi->rx_mp_seq_skipped,
            (unsigned long long)mi->rx_late_dropped);
    bad = 1;
  }
  return bad;
}

/* Runs one multipath connection to its end; returns the exit status. */
static int run_mp(const cat_opts *o, udccp_endpoint *ep, udccp_mpsock *m,
                  cat_input *in) {
  static uint8_t rbuf[65536];
  uint64_t sent = 0;
  udccp_mp_info mi;
  int status = 0, closed = 0;
  uint64_t next_refuse = 0;
  for (;;) {
    udccp_ssize n;
    int end = 0;
    if (o->listen && !o->keep && mono_ms() >= next_refuse) {
      refuse_waiting_mp(ep, "serving one connection already (-k serves "
                            "them in turn)");
      next_refuse = mono_ms() + 100;
    }
    while ((n = udccp_mpsock_recv(m, rbuf, sizeof(rbuf), 0)) >= 0) {
      out_write(rbuf, (size_t)n);
    }
    if (out_flush() != 0) {
      report_stdout();
      udccp_mpsock_get_info(m, &mi);
      (void)mp_report(&mi, sent, in);
      udccp_mpsock_abort(m);
      in->len = in->off = 0;
      return 1;
    }
    if (n != UDCCP_ERR_AGAIN) {
      /* the peer closed (or reset): fine unless input was left */
      if (n != UDCCP_ERR_CLOSED) {
        fprintf(stderr, "udccp-cat: connection: %s\n",
                udccp_io_strerror((int)n));
        status = 1;
      } else if (in->len > in->off || stdin_unread(in) > 0) {
        fprintf(stderr, "udccp-cat: the peer closed the connection\n");
      }
      end = 1;
    }
    if (!end && g_sig != 0) {
      fprintf(stderr, "udccp-cat: %s: connection aborted (Reset sent to the "
                      "peer)\n",
              g_sig == SIGINT ? "interrupted" : "terminated");
      udccp_mpsock_get_info(m, &mi);
      (void)mp_report(&mi, sent, in);
      udccp_mpsock_abort(m);
      return 128 + g_sig;
    }
    int blocked = 0;
    while (!end && !o->no_stdin && in->off < in->len) {
      size_t mps = mp_mps(m);
      char *start = in->buf + in->off;
      size_t avail = in->len - in->off;
      char *nl = memchr(start, '\n', avail);
      size_t len = nl ? (size_t)(nl - start) + 1 : avail;
      if (nl == NULL && !in->eof && avail < mps) {
        break; /* wait for the rest of the line */
      }
      len = len > mps ? mps : len;
      udccp_ssize r = udccp_mpsock_send(m, start, len, 0);
      if (r == UDCCP_ERR_AGAIN) {
        blocked = 1;
        break;
      }
      if (r < 0) {
        fprintf(stderr, "udccp-cat: connection: %s\n",
                udccp_io_strerror((int)r));
        status = 1;
        end = 1;
        break;
      }
      sent++;
      in->off += len;
    }
    input_compact(in);
    /* EOF after sending: close once drained (as run()) */
    if (!end && !o->no_stdin && in->eof && in->len == 0 && sent > 0) {
      udccp_mpsock_get_info(m, &mi);
      int crv = udccp_mpsock_close(m, 30000);
      closed = 1;
      if (o->verbose) {
        mp_print_paths(&mi);
      }
      if (crv != 0) {
        fprintf(stderr, "udccp-cat: close: %s (%llu datagrams had been "
                        "handed to the connection)\n",
                udccp_io_strerror(crv), (unsigned long long)sent);
        status = 1;
      }
      /* what the paths declared lost up to the close; a clean close
       * sent what was queued then */
      status |= mp_report(&mi, crv == 0 ? 0 : sent, in);
      break;
    }
    if (end) {
      break;
    }
    if (wait_and_read(o, ep, in, blocked) != 0) {
      status = 1;
      break;
    }
  }
  if (!closed) {
    udccp_mpsock_get_info(m, &mi);
    if (o->verbose) {
      mp_print_paths(&mi);
    }
    status |= mp_report(&mi, sent, in);
    (void)udccp_mpsock_close(m, 2000);
  }
  fflush(stdout);
  in->len = in->off = 0;
  return status;
}

/* ------------------------------------------------------- command line */

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
static int local_host(const cat_opts *o, const char **host) {
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

/* Accepts the next connection, returning 0 or the exit status.  Waits in
 * short steps so that a signal between connections (-k) ends the run. */
static int accept_next(const cat_opts *o, udccp_endpoint *ep, udccp_sock **s,
                       int first) {
  int wait = first && o->wait_ms != -2 ? o->wait_ms : -1;
  for (;;) {
    int step = wait < 0 || wait > 200 ? 200 : wait;
    int rv = udccp_accept(ep, s, step);
    if (rv == 0) {
      return 0;
    }
    if (g_sig != 0) {
      return 128 + g_sig;
    }
    if (rv != UDCCP_ERR_AGAIN) {
      return report("accept", rv);
    }
    if (wait >= 0) {
      wait -= step;
      if (wait <= 0) {
        fprintf(stderr, "udccp-cat: no connection came within %.3g s (-w)\n",
                (double)o->wait_ms / 1000.0);
        return 1;
      }
    }
  }
}

/* --multipath: connect (a subflow from each local address) or listen,
 * then run_mp; returns the exit status. */
static int main_mp(const cat_opts *o, udccp_endpoint *ep) {
  const char *local[UDCCP_MP_SUBFLOWS_MAX];
  char list[512];
  size_t n = 0;
  udccp_mpsock *m = NULL;
  int rv;
  if (o->mp_local != NULL) {
    snprintf(list, sizeof(list), "%s", o->mp_local);
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
      if (n == UDCCP_MP_SUBFLOWS_MAX) {
        fprintf(stderr, "udccp-cat: --multipath: at most %d addresses\n",
                UDCCP_MP_SUBFLOWS_MAX);
        return 2;
      }
      local[n++] = t;
    }
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
  if (o->listen) {
    rv = udccp_listen(ep, o->port, &o->service, 1);
    if (rv != 0) {
      return report("listen", rv);
    }
  }
  cat_input in;
  memset(&in, 0, sizeof(in));
  in.buf = malloc(CAT_INBUF);
  in.eof = o->no_stdin;
  int status = in.buf == NULL ? 1 : 0;
  for (int first = 1; status == 0 || (o->keep && g_sig == 0); first = 0) {
    if (o->listen) {
      int wait = first && o->wait_ms != -2 ? o->wait_ms : -1;
      for (;;) {
        int step = wait < 0 || wait > 200 ? 200 : wait;
        rv = udccp_mpsock_accept(ep, &m, step);
        if (rv == 0 || g_sig != 0 || rv != UDCCP_ERR_AGAIN) {
          break;
        }
        if (wait >= 0 && (wait -= step) <= 0) {
          break;
        }
      }
      if (rv != 0) {
        if (status == 0 && g_sig == 0 && rv == UDCCP_ERR_AGAIN) {
          fprintf(stderr, "udccp-cat: no connection came within %.3g s "
                          "(-w)\n", (double)o->wait_ms / 1000.0);
        }
        status = status != 0 ? status
                 : g_sig != 0 ? 128 + g_sig
                 : rv == UDCCP_ERR_AGAIN ? 1
                              : report("accept", rv);
        break;
      }
    } else {
      rv = udccp_mpsock_connect(ep, &m, o->host, o->port, o->service,
                                o->ccid, local, n,
                                o->wait_ms == -2 ? 10000 : o->wait_ms);
      if (rv != 0) {
        fprintf(stderr, "udccp-cat: cannot open a multipath connection to "
                        "%s port %u%s: %s\n",
                o->host, (unsigned)o->port,
                n ? " from the addresses given" : "",
                rv == UDCCP_ERR_SOCKET && errno != 0
                    ? strerror(errno) /* e.g. an address not on this host */
                    : udccp_io_strerror(rv));
        status = 1;
        break;
      }
      (void)udccp_mpsock_set_sched(m, o->mp_sched);
      if (o->mp_sched == UDCCP_MP_SCHED_BACKUP) {
        for (size_t i = 1; i < n; i++) {
          (void)udccp_mpsock_set_prio(m, i, 1); /* standby (§3.2.10) */
        }
      }
    }
    if (o->verbose) {
      udccp_mp_info mi;
      udccp_mpsock_get_info(m, &mi);
      fprintf(stderr, "udccp-cat: multipath connection, DCCP ports %u -> %u,"
                      " %s\n",
              (unsigned)mi.sub[0].path.local_port,
              (unsigned)mi.sub[0].path.remote_port,
              o->listen ? "accepted" : "connected");
    }
    int r = run_mp(o, ep, m, &in);
    m = NULL;
    status = status != 0 ? status : r;
    if (!o->keep || g_sig != 0 || g_out_errno != 0) {
      break;
    }
  }
  free(in.buf);
  if (o->listen) {
    /* handshakes whose last Ack already came are completed first */
    (void)udccp_endpoint_process(ep);
    refuse_waiting_mp(ep, "udccp-cat is exiting");
  }
  return status;
}

/* A standard descriptor the shell closed (<&-, >&-) would be the next
 * socket's number: stdin then read the endpoint's own UDP socket (the
 * client hung), stdout wrote datagrams into a socket ("Destination address
 * required").  Each closed one gets /dev/null opened the other way round,
 * so that using it fails with EBADF as it would have.  Returns a bit per
 * descriptor that was closed. */
static unsigned reserve_std_fds(void) {
  unsigned closed = 0;
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      closed |= 1u << fd;
      int n = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
      if (n >= 0 && n != fd) {
        close(n);
      }
    }
  }
  return closed;
}

int main(int argc, char **argv) {
  unsigned std_closed = reserve_std_fds();
  cat_opts o;
  memset(&o, 0, sizeof(o));
  o.port = CAT_DEFAULT_PORT;
  o.udp_port = UDCCP_UDP_PORT_DEFAULT;
  o.service = CAT_DEFAULT_SERVICE;
  o.wait_ms = -2;
  udccp_settings_default(&o.ka);
  int port_set = 0, udp_port_set = 0;
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
  (void)signal(SIGPIPE, SIG_IGN); /* a reader gone is out_flush()'s */
  while ((c = getopt_long(argc, argv, "lkp:s:46dw:i:vh", lopts, NULL)) !=
         -1) {
    unsigned long v;
    uint64_t ns;
    switch (c) {
    case 'l': o.listen = 1; break;
    case 'k': o.keep = 1; break;
    case '4': o.family = 4; break;
    case '6': o.family = 6; break;
    case 's': o.source = optarg; break;
    case 'p':
      if (parse_port(optarg, &o.port) != 0) {
        return 2;
      }
      port_set = 1;
      break;
    case OPT_UDP_PORT:
      if (parse_port(optarg, &o.udp_port) != 0) {
        return 2;
      }
      udp_port_set = 1;
      break;
    case OPT_RAW: o.raw = 1; break;
    case OPT_CCID:
      v = (unsigned long)udccp_ccid_parse(optarg); /* 2|3|4|cubic|bbr|N */
      if ((long)v < 0 || udccp_ccid_lookup((uint8_t)v) == NULL) {
        fprintf(stderr, "udccp-cat: --ccid must be 2, 3, 4, cubic, bbr or a "
                        "registered CCID\n");
        return 2;
      }
      o.ccid = (uint8_t)v;
      break;
    case OPT_SERVICE:
      if (udccp_service_code_parse(optarg, &o.service) != 0) {
        fprintf(stderr, "udccp-cat: invalid service code '%s' (a number "
                        "below 4294967295, or 1-4 ASCII characters)\n",
                optarg);
        return 2;
      }
      break;
    case 'd': o.no_stdin = 1; break;
    case 'w':
      /* 0 would make connect return before the handshake (and accept
       * give up at once): no wait is no connection. */
      if (udccp_io_parse_time(optarg, &ns) != 0 ||
          ns > 86400 * UDCCP_NS_PER_S || ns < UDCCP_NS_PER_MS) {
        fprintf(stderr, "udccp-cat: invalid wait '%s' (1ms to 86400 s, "
                        "e.g. 5 or 500ms)\n", optarg);
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
    case OPT_KEEPALIVE:
      if (udccp_io_parse_keepalive(optarg, &o.ka) != 0) {
        fprintf(stderr, "udccp-cat: invalid keepalive '%s' (IDLE[,INTERVAL"
                        "[,PROBES]], e.g. 60,10,3 or 5s,1s,2; 0 or off)\n",
                optarg);
        return 2;
      }
      break;
    case 'v': o.verbose = 1; break;
    case OPT_PCAP: o.pcap = optarg; break;
    case OPT_MULTIPATH:
      o.multipath = 1;
      /* "--multipath ADDR,ADDR HOST PORT" as udccp-perf: the next word is
       * the list when it is made of address characters and HOST PORT
       * still follow it */
      if (optarg == NULL && optind + 2 < argc &&
          strspn(argv[optind], "0123456789abcdefABCDEF.:,") ==
              strlen(argv[optind]) &&
          (strchr(argv[optind], '.') || strchr(argv[optind], ':'))) {
        optarg = argv[optind++];
      }
      o.mp_local = optarg;
      break;
    case OPT_MP_SCHED:
      if (udccp_io_parse_mp_sched(optarg, &o.mp_sched) != 0) {
        fprintf(stderr, "udccp-cat: invalid scheduler '%s' (minrtt, backup, "
                        "rr or redundant)\n", optarg);
        return 2;
      }
      break;
    case OPT_COOKIES:
    case OPT_HALF_OPEN:
    case OPT_BACKLOG: {
      const char *name = c == OPT_COOKIES  ? "cookies"
                         : c == OPT_BACKLOG ? "backlog"
                                            : "half-open";
      const char *why = udccp_io_parse_listen_opt(name, optarg, &o.cookies,
                                                  &o.half_open, &o.backlog);
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
  if (parse_positional(&o, argc, argv, optind, &port_set) != 0) {
    return 2;
  }
  if (o.keep && !o.listen) {
    fprintf(stderr, "udccp-cat: -k needs -l\n");
    return 2;
  }
  if ((std_closed & 1u) && !o.no_stdin) {
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
  if (o.multipath && o.listen && o.mp_local != NULL) {
    fprintf(stderr, "udccp-cat: --multipath ADDR,...: the local addresses "
                    "are the client's; a listener takes --multipath alone\n");
    return 2;
  }
  if (o.multipath && !o.listen && o.source != NULL) {
    fprintf(stderr, "udccp-cat: with --multipath give the local addresses "
                    "as --multipath ADDR,ADDR, not -s\n");
    return 2;
  }
  const char *lhost = NULL;
  if (local_host(&o, &lhost) != 0) {
    return 2;
  }
  if (port_set && !udp_port_set) {
    o.udp_port = o.port;
  }
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.transport = o.raw ? UDCCP_TRANSPORT_RAW : UDCCP_TRANSPORT_UDP;
  cfg.local_host = lhost;
  /* The receiver's kernel buffer holds the packets in flight while this
   * process is descheduled (see CAT_MAX_INFLIGHT); without privilege the
   * kernel caps it at net.core.rmem_max. */
  cfg.sockbuf = CAT_SOCKBUF;
  /* DCCP has no flow control: a reader that falls behind loses datagrams
   * (Data Dropped, RFC 4340 §11.7).  A deep receive queue lets a file
   * cross intact even when this process is short of CPU for a while. */
  udccp_settings st;
  udccp_settings_default(&st);
  st.rx_qlen = 8192;
  st.idle_timeout = o.idle_ns;
  st.keepalive_idle = o.ka.keepalive_idle;
  st.keepalive_interval = o.ka.keepalive_interval;
  st.keepalive_probes = o.ka.keepalive_probes;
  if (o.multipath) {
    st.multipath = 1; /* RFC 9897 §3.1: Multipath Capable on the Request */
    if (!o.listen) {
      cfg.local_host = NULL; /* a subflow from every address given */
    }
  }
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
  errno = 0;
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
  if (rv == UDCCP_ERR_RESOLVE) {
    fprintf(stderr, "udccp-cat: invalid local address '%s' (give a numeric "
                    "IPv4 or IPv6 address)\n", lhost);
    return 2;
  }
  if (rv == UDCCP_ERR_SOCKET && errno != 0) {
    /* bind(2) said why: an address not on this host, a port taken */
    fprintf(stderr, "udccp-cat: cannot open the endpoint%s%s: %s\n",
            lhost != NULL ? " on " : "", lhost != NULL ? lhost : "",
            strerror(errno));
    return 1;
  }
  if (rv != 0) {
    return report("cannot open the endpoint", rv);
  }
  udccp_pcap *cap = NULL;
  if (o.pcap != NULL) {
    rv = udccp_pcap_open(&cap, o.pcap);
    if (rv != 0) {
      /* a usage error, as udccp-sim's --pcap (it was exit 1) */
      fprintf(stderr, "udccp-cat: cannot create --pcap file '%s' (%s): "
                      "check the directory exists and is writable\n",
              o.pcap, strerror(errno));
      udccp_endpoint_del(ep);
      return 2;
    }
    udccp_endpoint_set_pcap(ep, cap);
  }
  udccp_sock *s = NULL;
  if (o.multipath) {
    int mrv = main_mp(&o, ep);
    udccp_endpoint_del(ep);
    if (cap != NULL && udccp_pcap_close(cap) != 0 && mrv == 0) {
      fprintf(stderr, "udccp-cat: writing %s failed: it is incomplete\n",
              o.pcap);
      mrv = 1;
    }
    return mrv;
  }
  if (o.listen) {
    rv = udccp_listen(ep, o.port, &o.service, 1);
    if (rv != 0) {
      udccp_endpoint_del(ep);
      udccp_pcap_close(cap);
      return report("listen", rv);
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
      } else if (rv == UDCCP_ERR_AFNOSUPPORT && o.family != 0) {
        fprintf(stderr, "udccp-cat: host '%s' has no IPv%d address\n",
                o.host, o.family);
      } else if (rv == UDCCP_ERR_INVALID_ARGUMENT && o.ccid != 0) {
        fprintf(stderr, "udccp-cat: CCID %u is not available in this build "
                        "of libudccp; try --ccid 2\n", (unsigned)o.ccid);
      } else {
        report("connect", rv);
      }
      udccp_endpoint_del(ep);
      udccp_pcap_close(cap);
      return 1;
    }
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
  cat_input in;
  memset(&in, 0, sizeof(in));
  in.buf = malloc(CAT_INBUF);
  in.eof = o.no_stdin;
  int status = in.buf == NULL ? 1 : 0;
  for (int first = 1; status == 0 || (o.keep && g_sig == 0); first = 0) {
    if (o.listen) {
      int arv = accept_next(&o, ep, &s, first);
      if (arv != 0) {
        status = status != 0 ? status : arv;
        break;
      }
    }
    if (o.verbose) {
      const udccp_path *p = udccp_sock_get_path(s);
      fprintf(stderr, "udccp-cat: connected, DCCP ports %u -> %u, MPS %zu\n",
              (unsigned)p->local_port, (unsigned)p->remote_port,
              udccp_sock_get_mps(s));
    }
    int r = run(&o, ep, s, &in);
    s = NULL;
    status = status != 0 ? status : r;
    if (!o.keep || g_sig != 0 || g_out_errno != 0) {
      break;
    }
  }
  free(in.buf);
  if (o.listen) {
    /* A client whose handshake's last Ack is in the socket buffer already
     * says "connected": complete it, so that it is reset too (under load,
     * a SIGTERM before the listener read that Ack left the client waiting
     * for its keepalive, 90 s: tests/io_cat_edges.sh section 3). */
    (void)udccp_endpoint_process(ep);
    refuse_waiting(ep, UDCCP_RESET_ABORTED, "udccp-cat is exiting");
  }
  udccp_endpoint_del(ep);
  if (cap != NULL) {
    uint64_t frames = udccp_pcap_frames(cap);
    if (udccp_pcap_close(cap) != 0) {
      fprintf(stderr, "udccp-cat: writing %s failed: it is incomplete\n",
              o.pcap);
      status = status != 0 ? status : 1;
    } else if (o.verbose) {
      fprintf(stderr, "udccp-cat: %llu packets captured in %s\n",
              (unsigned long long)frames, o.pcap);
    }
  }
  return status;
}

/* SPDX-License-Identifier: MIT */
/*
 * udccp-cat: one connection's loop (tools/cat/cat.h).  Lines of stdin
 * become datagrams (backpressure: stdin is not read while the send queue
 * or the in-flight cap is full), datagrams received go to stdout; EOF
 * closes once drained (RFC 4340 §8.3), and what was lost or left unsent
 * is reported and makes the exit status 1.
 */
#define _GNU_SOURCE /* poll */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat.h"

/* One connection's bookkeeping for the loss and unsent reports. */
typedef struct cat_conn {
  udccp_sock *s;
  uint64_t sent_dgrams, sent_bytes; /* accepted by udccp_send */
  uint64_t gsr0, recv0;             /* the peer's side at the start */
  uint64_t gsr1, recv1;             /* ... and when we began to close */
  int closing;
} cat_conn;

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

/* Resets every connection waiting to be accepted, saying so on stderr.
 * A listener without -k serves one connection, as netcat's: a second
 * client that completes its handshake meanwhile would otherwise sit in
 * the accept queue, its datagrams acknowledged (RFC 4340 §11.4: received,
 * not read) and never written anywhere, and it would exit 0 after a clean
 * close.  Reset Too Busy (§5.6) tells it at once; when udccp-cat exits
 * (end of the connection, a signal between -k connections) the waiting
 * ones get Reset Aborted instead of silence. */
void cat_refuse_waiting(udccp_endpoint *ep, uint8_t code,
                           const char *why) {
  udccp_sock *x = NULL;
  while (udccp_accept(ep, &x, 0) == 0) {
    const udccp_path *p = udccp_sock_get_path(x);
    char a[64];
    cat_addr_str(a, sizeof(a), p->family, p->remote_addr);
    fprintf(stderr, "udccp-cat: refused the connection from %s port %u: "
                    "%s (Reset: %s)\n",
            a, (unsigned)p->remote_port, why, udccp_reset_code_str(code));
    udccp_abort_code(x, code);
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
    cat_out_write(buf, (size_t)n);
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

/* The connection ended before our input was all sent: says how much was
 * not, and returns 1 if any was left. */
static int report_unsent(const cat_conn *c, const cat_input *in) {
  udccp_conn_info info;
  udccp_sock_get_info(c->s, &info);
  uint64_t queued_b = c->sent_bytes > info.data_bytes_sent
                          ? c->sent_bytes - info.data_bytes_sent : 0;
  uint64_t queued_d = c->sent_dgrams > info.data_pkts_sent
                          ? c->sent_dgrams - info.data_pkts_sent : 0;
  uint64_t held = in->len - in->off, unread = cat_stdin_unread(in);
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
  cat_input_compact(in);
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
  for (int k = 0; crv == 0 && k < 3000 && cat_sig == 0; k++) {
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
  if (cat_out_flush() != 0) {
    cat_report_stdout();
    udccp_abort(s);
    return 1;
  }
  if (cat_sig != 0) {
    (void)report_unsent(c, in);
    udccp_abort(s);
    return 128 + cat_sig;
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
    status = cat_report("close", crv);
  }
  return status;
}

/* Runs one connection to its end; returns the exit status. */
int cat_run(const cat_opts *o, udccp_endpoint *ep, udccp_sock *s,
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
    if (o->listen && !o->keep && cat_mono_ms() >= next_refuse) {
      cat_refuse_waiting(ep, UDCCP_RESET_TOO_BUSY,
                     "serving one connection already (-k serves them in "
                     "turn)");
      next_refuse = cat_mono_ms() + 100;
    }
    int rv = pump_out(s, rbuf, cap);
    if (cat_out_flush() != 0) {
      cat_report_stdout();
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
      } else if (in->len > in->off || cat_stdin_unread(in) > 0) {
        report_dead(o, s, rv);
      }
      status |= report_unsent(&c, in);
      status |= report_loss(&c);
      break;
    }
    if (cat_sig != 0) {
      fprintf(stderr, "udccp-cat: %s: connection aborted (Reset sent to the "
                      "peer)\n",
              cat_sig == SIGINT ? "interrupted" : "terminated");
      (void)report_unsent(&c, in);
      udccp_abort(s);
      s = NULL;
      status = 128 + cat_sig;
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
    if (cat_wait_and_read(o, ep, in, blocked) != 0) {
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

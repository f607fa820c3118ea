/* SPDX-License-Identifier: MIT */
/*
 * udccp-perf: one stream's state machine, the same at the client and the
 * server, as sender or receiver (perf.h lists the messages).  A step never
 * blocks: it reads what arrived, sends what is due and tells the event
 * loop how long it may wait.
 *
 * Jitter is RFC 3550 §6.4.1's interarrival jitter: every DATA carries its
 * send time; J += (|D| - J) / 16 over the transit-time differences D.
 * Losses are confirmed ones: sequence numbers below the highest received
 * that never came (during the test), or sent minus received once the END
 * has come after the last datagram.  Datagrams still in flight when a
 * signal stops the test are not counted as lost.
 *
 * --omit (-O): the sender flags its DATA of the first omit seconds; when
 * that period ends it starts its counts, sequence numbers and clock
 * afresh, and the receiver does the same at the first unflagged DATA
 * (flagged ones that come later count nowhere).  REPORT and STAT carry
 * the flag too, so that one end's figures of the omit period never mix
 * with the other's of the test.  Omitted intervals are printed marked
 * "(omitted)" and kept out of the summaries and the JSON.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/random.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../io/addr.h"
#include "perf.h"

volatile int perf_sig;

const char *perf_stop_reason(void) {
  return perf_sig == SIGINT    ? "interrupted"
         : perf_sig == SIGPIPE ? "output closed"
                               : "terminated";
}

void perf_check_output(void) {
  struct pollfd p = {STDOUT_FILENO, 0, 0};
  /* POLLERR on a pipe's write end: no reader left (Linux pipe_poll) */
  if (perf_sig == 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0) {
    perf_sig = SIGPIPE;
  }
}

#define SRVOUT_CHUNK 1000

/* Datagrams an unpaced sender queues per step at most (tx_run): about
 * half a millisecond at loopback speed, under the 1 ms at which it looks
 * for control datagrams. */
#define PERF_TX_BURST 1024

void perf_send_ctrl(udccp_sock *s, const uint8_t *b, size_t n) {
  /* Never waits: a control datagram that finds the queue full is retried
   * by its repeat loop (or, for REPORT/STAT, by the next interval). */
  (void)udccp_send(s, b, n, 0);
}

perf_stream *perf_stream_new(udccp_sock *s, int id, int client) {
  perf_stream *st = calloc(1, sizeof(*st));
  if (st == NULL) {
    return NULL;
  }
  st->s = s;
  st->id = id;
  st->client = client;
  st->phase = P_HELLO;
  st->t_phase = perf_now();
  const udccp_path *p = udccp_sock_get_path(s);
  udccp_io_addr_format(st->peer, sizeof(st->peer), p->family, p->remote_addr,
                       p->remote_port);
  return st;
}

void perf_stream_free(perf_stream *st) {
  if (st != NULL) {
    free(st->data);
    free(st->iv);
    free(st->out);
    perf_owd_reset(&st->owd);
    free(st);
  }
}

static void out_append(perf_stream *st, const char *s, size_t n) {
  if (st->outlen + n + 1 > st->outcap) {
    size_t cap = st->outcap ? st->outcap * 2 : 1024;
    while (cap < st->outlen + n + 1) {
      cap *= 2;
    }
    char *p = realloc(st->out, cap);
    if (p == NULL) {
      return;
    }
    st->out = p;
    st->outcap = cap;
  }
  memcpy(st->out + st->outlen, s, n);
  st->outlen += n;
  st->out[st->outlen] = '\0';
}

/* A line of this end's text output: printed (unless -J) and, at a server
 * whose client asked with --get-server-output, kept for it. */
void perf_stream_say(perf_stream *st, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  if (n < 0) {
    return;
  }
  size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
  if (!perf_o->json) {
    char pre[160] = "";
    size_t k = 0;
    if (perf_o->timestamps != NULL) {
      time_t now = time(NULL);
      struct tm tm;
      /* the format is the user's (--timestamps=FMT), as iperf3's */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
      k = strftime(pre, sizeof(pre) - 64, perf_o->timestamps,
                   localtime_r(&now, &tm));
#pragma GCC diagnostic pop
    }
    if (perf_o->title != NULL) {
      snprintf(pre + k, sizeof(pre) - k, "%s:  ", perf_o->title);
    }
    fputs(pre, stdout);
    fputs(line, stdout);
    /* every line, as iperf3's --forceflush; a reader gone (SIGPIPE is
     * ignored) stops the test as a signal would, the peer told */
    if (fflush(stdout) != 0 && errno == EPIPE && perf_sig == 0) {
      perf_sig = SIGPIPE;
    }
  } else {
    perf_check_output(); /* -J: nothing written before the end */
  }
  if (st != NULL && !st->client && st->want_srvout) {
    out_append(st, line, len);
  }
}

static void add_iv(perf_stream *st, const perf_iv *iv);

/* A last interval shorter than 5 % of the period joins the one before
 * (a few datagrams over a millisecond make no rate). */
static void add_last_iv(perf_stream *st, const perf_iv *iv) {
  double period = st->interval_ns ? (double)st->interval_ns / 1e9 : 1.0;
  if (iv->t1 - iv->t0 >= 0.05 * period || st->niv == 0) {
    add_iv(st, iv);
  } else {
    /* joins the one before (whose line may be out already: the JSON
     * intervals still add up to the totals) */
    perf_iv *p = &st->iv[st->niv - 1];
    p->t1 = iv->t1;
    p->bytes += iv->bytes;
    p->pkts += iv->pkts;
    p->lost += iv->lost;
    p->sent_bytes += iv->sent_bytes;
    p->sent_pkts += iv->sent_pkts;
  }
}

static void add_iv(perf_stream *st, const perf_iv *iv) {
  if (st->niv == st->capiv) {
    size_t cap = st->capiv ? st->capiv * 2 : 16;
    perf_iv *p = realloc(st->iv, cap * sizeof(*p));
    if (p == NULL) {
      return;
    }
    st->iv = p;
    st->capiv = cap;
  }
  st->iv[st->niv++] = *iv;
}

/* An interval line: kept, or during --omit only printed. */
static void keep_iv(perf_stream *st, const perf_iv *iv, int last) {
  if (st->omitting) {
    perf_iv_omitted(st, iv);
  } else if (last) {
    add_last_iv(st, iv);
  } else {
    add_iv(st, iv);
  }
}

static uint64_t rx_gaps(const perf_stream *st) {
  return st->max_seq_plus1 > st->pkts ? st->max_seq_plus1 - st->pkts : 0;
}

static uint64_t sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

int perf_stream_start(perf_stream *st, double now) {
  st->phase = P_RUN;
  st->t_start = st->t_phase = st->prev_t = st->t_last_rx = now;
  st->omitting = st->omit_ns > 0;
  double period = st->interval_ns ? (double)st->interval_ns / 1e9 : 1.0;
  st->t_next_report = now + period;
  if (st->sender) {
    size_t len = st->length < 64 ? 64 : st->length;
    st->data = malloc(len);
    if (st->data == NULL) {
      st->err = UDCCP_ERR_NOMEM;
      st->phase = P_DONE;
      return -1;
    }
    /* iperf3's payloads: random bytes (nothing along the path can
     * compress them), or with --repeating-payload "0123456789..." */
    for (size_t i = 0; i < len; i++) {
      st->data[i] = (uint8_t)('0' + i % 10);
    }
    if (!st->repeat && getrandom(st->data, len, 0) != (ssize_t)len) {
      uint64_t x = (uint64_t)(now * 1e9) | 1; /* xorshift: no entropy? */
      for (size_t i = 0; i < len; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        st->data[i] = (uint8_t)x;
      }
    }
    perf_msg_init(st->data, M_DATA);
    st->data[PERF_OMIT_BYTE] = (uint8_t)st->omitting;
    st->data[PERF_CLOCK_BYTE] = 1;
    st->t_next_send = now;
    st->t_stop = st->limit_bytes || st->limit_pkts
                     ? now + 3600.0
                     : now + (double)(st->duration_ns + st->omit_ns) / 1e9;
  }
  return 0;
}

/* ------------------------------------------------------------ receiver */

static void rx_interval(perf_stream *st, double now, int last);

/* The first DATA after the sender's omit period: its last omitted
 * interval is printed, then the test's counts start from zero. */
static void rx_omit_end(perf_stream *st, double now) {
  double period = st->interval_ns ? (double)st->interval_ns / 1e9 : 1.0;
  if (st->pkts != st->prev_pkts || now - st->prev_t >= 0.05 * period) {
    rx_interval(st, now, 0);
  }
  st->omitting = 0;
  st->t_start = st->prev_t = now;
  st->t_next_report = now + period;
  st->pkts = st->bytes = st->max_seq_plus1 = st->ooo = 0;
  st->jitter_s = 0;
  st->have_transit = 0;
  perf_owd_reset(&st->owd);
  st->t_first_rx = 0;
  st->prev_bytes = st->prev_pkts = st->prev_lost = 0;
  st->prev_sent_pkts = st->prev_sent_bytes = 0;
  st->s_pkts = st->s_bytes = st->s_ccid_lost = 0;
  st->got_stat = 0;
}

static void rx_data(perf_stream *st, const uint8_t *b, udccp_ssize n) {
  if (n < PERF_MIN_LEN) {
    return;
  }
  double now = st->rx_now;
  int omitted = b[PERF_OMIT_BYTE] & 1;
  if (omitted && !st->omitting) {
    return; /* a late one of the omit period */
  }
  if (st->omitting && !omitted) {
    rx_omit_end(st, now);
  }
  st->wire_bytes += (uint64_t)n;
  uint64_t seq = perf_get64(b + 8);
  double sent = (double)perf_get64(b + 16) / 1e9;
  st->pkts++;
  st->bytes += (uint64_t)n;
  if (seq + 1 > st->max_seq_plus1) {
    st->max_seq_plus1 = seq + 1;
  } else {
    st->ooo++; /* came after a later one */
  }
  /* RFC 3550 §6.4.1: D(i,j) = (Rj - Ri) - (Sj - Si); the clocks' offset
   * cancels out.  With a CLOCK_REALTIME send time, transit is the one-way
   * delay too (exact on one host; between hosts up to their clocks'
   * offset). */
  int real = b[PERF_CLOCK_BYTE] == 1;
  double transit = (real ? st->rx_now_real : now) - sent;
  if (st->have_transit) {
    double d = fabs(transit - st->last_transit);
    st->jitter_s += (d - st->jitter_s) / 16.0;
  }
  st->last_transit = transit;
  st->have_transit = 1;
  if (real) {
    perf_owd_add(&st->owd, transit);
  }
  if (st->t_first_rx == 0) {
    st->t_first_rx = now;
  }
  st->t_last_data = now;
}

/* An interval at the receiver: its counts, the sender's latest STAT for
 * the sending half's columns; then REPORT to the sender. */
static void rx_interval(perf_stream *st, double now, int last) {
  perf_iv iv;
  memset(&iv, 0, sizeof(iv));
  uint64_t lost = rx_gaps(st);
  if (last && st->got_end && !(st->s_flags & PERF_F_INTERRUPTED)) {
    lost = sub0(st->s_pkts, st->pkts); /* the tail's losses too */
  }
  iv.t0 = st->prev_t - st->t_start;
  iv.t1 = now - st->t_start;
  iv.bytes = st->bytes - st->prev_bytes;
  iv.pkts = st->pkts - st->prev_pkts;
  iv.lost = sub0(lost, st->prev_lost);
  iv.jitter_ms = st->jitter_s * 1e3;
  if (st->got_stat || st->got_end) {
    iv.rtt_ms = (double)st->s_srtt / 1e6;
    iv.cwnd = st->s_cwnd;
    iv.x_bps = (double)st->s_x * 8;
    iv.ccid = st->s_ccid;
    iv.sent_pkts = sub0(st->s_pkts, st->prev_sent_pkts);
    iv.sent_bytes = sub0(st->s_bytes, st->prev_sent_bytes);
    st->prev_sent_pkts = st->s_pkts;
    st->prev_sent_bytes = st->s_bytes;
  } else {
    udccp_conn_info own; /* no STAT yet: this end's RTT estimate */
    udccp_sock_get_info(st->s, &own);
    iv.rtt_ms = (double)own.srtt / 1e6;
  }
  keep_iv(st, &iv, last);
  st->prev_t = now;
  st->prev_bytes = st->bytes;
  st->prev_pkts = st->pkts;
  st->prev_lost = lost > st->prev_lost ? lost : st->prev_lost;
  uint8_t m[64];
  size_t k = perf_msg_init(m, M_REPORT);
  m[PERF_OMIT_BYTE] = (uint8_t)st->omitting;
  perf_put64(m + k, st->pkts);
  perf_put64(m + k + 8, st->bytes);
  perf_put64(m + k + 16, lost);
  perf_put64(m + k + 24, (uint64_t)(st->jitter_s * 1e9));
  perf_put64(m + k + 32, st->ooo);
  perf_send_ctrl(st->s, m, k + 40);
}

/* RESULT: counts, jitter, reordering; then (since the one-way delays
 * came, 0.3) a flag byte and the delays min/p50/p95/p99/max in signed
 * nanoseconds, which an older sender does not read. */
static void send_result(perf_stream *st) {
  uint8_t m[8 + 48 + 8 * PERF_OWD_N];
  size_t k = perf_msg_init(m, M_RESULT);
  perf_put64(m + k, st->pkts);
  perf_put64(m + k + 8, st->bytes);
  perf_put64(m + k + 16, rx_gaps(st));
  perf_put64(m + k + 24, (uint64_t)(st->jitter_s * 1e9));
  perf_put64(m + k + 32, st->ooo);
  double ms[PERF_OWD_N] = {0};
  memset(m + k + 40, 0, 8);
  m[k + 40] = (uint8_t)perf_owd_summary(&st->owd, ms);
  for (int i = 0; i < PERF_OWD_N; i++) {
    perf_put64(m + k + 48 + 8 * i, (uint64_t)(int64_t)llround(ms[i] * 1e6));
  }
  perf_send_ctrl(st->s, m, sizeof(m));
}

/* What a receiver knows without the END (or with it). */
static void rx_fill(perf_stream *st) {
  perf_final *f = &st->fin;
  udccp_conn_info info;
  udccp_sock_get_info(st->s, &info);
  f->recv_pkts = st->pkts;
  f->recv_bytes = st->bytes;
  f->jitter_ms = st->jitter_s * 1e3;
  f->owd_set = perf_owd_summary(&st->owd, f->owd_ms);
  if (st->got_end) {
    f->sent_pkts = st->s_pkts;
    f->sent_bytes = st->s_bytes;
    f->duration_s = (double)st->s_dur_ns / 1e9;
    f->rtt_ms = (double)st->s_srtt / 1e6;
    f->ccid_lost = st->s_ccid_lost;
    f->ccid = st->s_ccid;
    f->interrupted = st->s_flags & PERF_F_INTERRUPTED;
    f->complete = 1;
    /* Everything sent before END has come or is lost; unless a signal
     * stopped the sender with datagrams still queued. */
    f->lost = f->interrupted ? rx_gaps(st) : sub0(st->s_pkts, st->pkts);
  } else {
    /* sent: at least up to the highest sequence number seen */
    f->sent_pkts = st->s_pkts > st->max_seq_plus1 ? st->s_pkts
                                                  : st->max_seq_plus1;
    f->sent_bytes = st->s_bytes > st->bytes ? st->s_bytes : st->bytes;
    f->duration_s =
        st->t_last_data > st->t_first_rx ? st->t_last_data - st->t_first_rx
                                         : 0;
    f->rtt_ms = st->got_stat ? (double)st->s_srtt / 1e6
                             : (double)info.srtt / 1e6;
    f->ccid_lost = st->s_ccid_lost;
    f->ccid = st->got_stat ? st->s_ccid : info.rx_ccid;
    f->lost = rx_gaps(st);
  }
  f->set = 1;
}

static void rx_finish(perf_stream *st, double now) {
  if (now - st->prev_t > 0.05 || st->pkts != st->prev_pkts) {
    rx_interval(st, now, 1); /* the last, partial interval */
  }
  rx_fill(st);
  st->phase = P_LINGER;
  st->t_phase = now;
  if (!st->client) {
    perf_stream_flush_intervals(st); /* its lines before its summary */
    perf_stream_summary(st);
    st->out_ready = 1;
  }
}

/* -------------------------------------------------------------- sender */

static void tx_interval(perf_stream *st, double now, uint64_t lost_now,
                        int last) {
  udccp_conn_info info;
  udccp_sock_get_info(st->s, &info);
  perf_iv iv;
  memset(&iv, 0, sizeof(iv));
  iv.t0 = st->prev_t - st->t_start;
  iv.t1 = now - st->t_start;
  iv.bytes = sub0(st->r_bytes, st->prev_bytes);
  iv.pkts = sub0(st->r_pkts, st->prev_pkts);
  iv.lost = sub0(lost_now, st->prev_lost);
  iv.jitter_ms = st->r_jitter_ms;
  iv.sent_pkts = st->seq - st->prev_sent_pkts;
  iv.sent_bytes = st->sent_bytes - st->prev_sent_bytes;
  iv.rtt_ms = (double)info.srtt / 1e6;
  iv.cwnd = info.cwnd;
  iv.x_bps = (double)info.x * 8;
  iv.ccid = info.tx_ccid;
  keep_iv(st, &iv, last);
  st->prev_t = now;
  st->prev_bytes = st->r_bytes;
  st->prev_pkts = st->r_pkts;
  st->prev_lost = lost_now > st->prev_lost ? lost_now : st->prev_lost;
  st->prev_sent_pkts = st->seq;
  st->prev_sent_bytes = st->sent_bytes;
}

/* STAT answers a REPORT; a sender's queue is often full of data, so a
 * STAT that finds no room goes first once there is some (tx_run). */
static void send_stat(perf_stream *st) {
  udccp_conn_info info;
  udccp_sock_get_info(st->s, &info);
  uint8_t m[80];
  size_t k = perf_msg_init(m, M_STAT);
  m[PERF_OMIT_BYTE] = (uint8_t)st->omitting;
  /* the figures of the interval the REPORT closed, even when sent late */
  uint64_t cwnd = info.cwnd, x = info.x, srtt = info.srtt;
  if (st->niv > 0) {
    const perf_iv *iv = &st->iv[st->niv - 1];
    cwnd = iv->cwnd;
    x = (uint64_t)(iv->x_bps / 8);
    srtt = (uint64_t)(iv->rtt_ms * 1e6 + 0.5);
  }
  perf_put64(m + k, st->seq);
  perf_put64(m + k + 8, st->sent_bytes);
  perf_put64(m + k + 16, cwnd);
  perf_put64(m + k + 24, x);
  perf_put64(m + k + 32, srtt);
  perf_put64(m + k + 40, info.pkts_lost);
  m[k + 48] = info.tx_ccid;
  st->stat_pending = udccp_send(st->s, m, k + 56, 0) == UDCCP_ERR_AGAIN;
}

static void tx_fill(perf_stream *st) {
  perf_final *f = &st->fin;
  udccp_conn_info info;
  udccp_sock_get_info(st->s, &info);
  f->sent_pkts = st->seq;
  f->sent_bytes = st->sent_bytes;
  f->recv_pkts = st->r_pkts;
  f->recv_bytes = st->r_bytes;
  f->jitter_ms = st->r_jitter_ms;
  f->owd_set = st->r_owd_set;
  memcpy(f->owd_ms, st->r_owd_ms, sizeof(f->owd_ms));
  f->rtt_ms = (double)info.srtt / 1e6;
  f->ccid_lost = info.pkts_lost;
  f->ccid = info.tx_ccid;
  f->interrupted = st->s_flags & PERF_F_INTERRUPTED;
  if (f->duration_s == 0) {
    f->duration_s = perf_now() - st->t_start;
  }
  f->complete = st->got_result;
  f->lost = st->got_result && !f->interrupted ? sub0(st->seq, st->r_pkts)
                                              : st->r_lost;
  f->set = 1;
}

/* Stops sending: END until RESULT (20 tries 250 ms apart; 4 after a
 * signal, so that Ctrl-C answers within a second). */
static void tx_end(perf_stream *st, double now, int interrupted) {
  st->phase = P_END;
  st->t_phase = now;
  st->tries = 0;
  st->t_retry = 0;
  st->s_flags = interrupted ? PERF_F_INTERRUPTED : 0;
  st->fin.duration_s = now - st->t_start;
}

static void send_end(perf_stream *st) {
  udccp_conn_info info;
  udccp_sock_get_info(st->s, &info);
  uint8_t m[64];
  size_t k = perf_msg_init(m, M_END);
  perf_put64(m + k, st->seq);
  perf_put64(m + k + 8, st->sent_bytes);
  perf_put64(m + k + 16, (uint64_t)(st->fin.duration_s * 1e9));
  perf_put64(m + k + 24, info.srtt);
  perf_put64(m + k + 32, info.pkts_lost);
  m[k + 40] = info.tx_ccid;
  m[k + 41] = st->s_flags;
  perf_send_ctrl(st->s, m, k + 48);
}

static void tx_finish(perf_stream *st, double now) {
  double dur = st->fin.duration_s;
  uint64_t lost = (st->s_flags & PERF_F_INTERRUPTED)
                      ? st->r_lost
                      : sub0(st->seq, st->r_pkts);
  if (dur - (st->prev_t - st->t_start) > 0.05 || st->r_pkts != st->prev_pkts) {
    tx_interval(st, st->t_start + dur, lost, 1); /* the last, partial one */
  }
  tx_fill(st);
  if (st->client) {
    st->phase = st->want_srvout ? P_SRVOUT : P_DONE;
    st->tries = 0;
    st->t_retry = 0;
  } else {
    st->phase = P_WAITCLOSE;
    perf_stream_flush_intervals(st);
    perf_stream_summary(st);
    st->out_ready = 1;
  }
  st->t_phase = now;
}

/* Sends what is due; returns the milliseconds it may wait. */
/* The end of the sender's omit period: the test's counts start now. */
static void tx_omit_end(perf_stream *st, double now) {
  st->omitting = 0;
  st->data[PERF_OMIT_BYTE] = 0;
  st->t_start = st->prev_t = now;
  st->seq = st->sent_bytes = 0;
  st->prev_sent_pkts = st->prev_sent_bytes = 0;
  st->prev_bytes = st->prev_pkts = st->prev_lost = 0;
  st->r_pkts = st->r_bytes = st->r_lost = 0;
  st->r_jitter_ms = 0;
}

/* -n/-k: the amount was sent (never during --omit). */
static int tx_limit_reached(const perf_stream *st) {
  return !st->omitting &&
         ((st->limit_bytes && st->sent_bytes >= st->limit_bytes) ||
          (st->limit_pkts && st->seq >= st->limit_pkts));
}

static int tx_run(perf_stream *st, double now) {
  if (st->omitting &&
      now - st->t_start >= (double)st->omit_ns / 1e9) {
    tx_omit_end(st, now);
  }
  if (now >= st->t_stop || tx_limit_reached(st)) {
    tx_end(st, now, 0);
    return 0;
  }
  uint64_t len = st->length;
  if (st->stat_pending) {
    send_stat(st);
    if (st->stat_pending) {
      return 1;
    }
  }
  if (st->rate_bps != 0) {
    for (int k = 0; k < 64 && now >= st->t_next_send; k++) {
      perf_put64(st->data + 8, st->seq);
      perf_put64(st->data + 16, (uint64_t)(perf_now_real() * 1e9));
      udccp_ssize n = udccp_send(st->s, st->data, len, 0);
      if (n == UDCCP_ERR_AGAIN) {
        return 1;
      }
      if (n < 0) {
        st->err = (int)n;
        return 0;
      }
      st->seq++;
      st->sent_bytes += len;
      st->wire_bytes += len;
      st->t_next_send += (double)len * 8 / (double)st->rate_bps;
      if (tx_limit_reached(st)) {
        return 0;
      }
    }
    /* The loop waits in whole milliseconds: a wait shorter than one
     * is rounded up, not down to 0, or a paced sender spins between its
     * datagrams (at 200 Mbit/s, 48 us apart: a whole core).  Datagrams
     * that fell due meanwhile go out together on the next step, at most
     * a millisecond's worth late, as iperf3's 1 ms pacing timer does;
     * each carries the time it was really sent. */
    double w = (st->t_next_send - now) * 1e3;
    return w <= 0 ? 0 : (int)ceil(w);
  }
  /* Unpaced: datagrams go out in batches (one sendmmsg, or one GSO send,
   * per batch), flushed when the event loop runs.  Up to PERF_TX_BURST
   * per step, until the queue is full: a step and a loop turn for every
   * 64 datagrams cost a sixth of the loopback bench's goodput (make
   * bench, 17.1 -> 19.3 Gbit/s); the clock for the send time is read
   * every 64 as before, so the one-way delays keep their precision. */
  double ts = 0;
  for (int k = 0; k < PERF_TX_BURST; k++) {
    if (k % 64 == 0) {
      ts = perf_now_real();
    }
    perf_put64(st->data + 8, st->seq);
    perf_put64(st->data + 16, (uint64_t)(ts * 1e9));
    udccp_ssize n = udccp_send_more(st->s, st->data, len, 0);
    if (n == UDCCP_ERR_AGAIN) {
      return 1;
    }
    if (n < 0) {
      st->err = (int)n;
      return 0;
    }
    st->seq++;
    st->sent_bytes += len;
    st->wire_bytes += len;
    if (tx_limit_reached(st)) {
      break;
    }
  }
  return 0;
}

/* ------------------------------------------------------------- control */

static void parse_hello(perf_stream *st, const uint8_t *b, udccp_ssize n,
                        double now) {
  uint8_t flags = b[8];
  st->sender = (flags & PERF_F_REVERSE) != 0;
  st->want_srvout = (flags & PERF_F_SRVOUT) != 0;
  st->index = b[9];
  st->nstreams = b[10] ? b[10] : 1;
  st->duration_ns = perf_get64(b + 16);
  st->length = perf_get64(b + 24);
  st->rate_bps = perf_get64(b + 32);
  st->interval_ns = perf_get64(b + 40);
  st->limit_bytes = perf_get64(b + 48);
  st->limit_pkts = perf_get64(b + 56);
  st->test_id = perf_get64(b + 64);
  st->repeat = (flags & PERF_F_REPEAT) != 0;
  st->omit_ns = n >= 80 ? perf_get64(b + 72) : 0;
  if (st->omit_ns > 3600 * UDCCP_NS_PER_S) {
    st->omit_ns = 0;
  }
  size_t mps = udccp_sock_get_mps(st->s);
  if (st->length < PERF_MIN_LEN || st->length > mps) {
    st->length = mps;
  }
  if (st->duration_ns == 0 || st->duration_ns > 3600 * UDCCP_NS_PER_S) {
    st->duration_ns = 10 * UDCCP_NS_PER_S;
  }
  (void)perf_stream_start(st, now);
}

static void srvout_answer(perf_stream *st, const uint8_t *b) {
  uint32_t off = perf_get32(b + 8);
  uint8_t m[SRVOUT_CHUNK + 32];
  size_t k = perf_msg_init(m, M_SRVOUT);
  size_t n = 0;
  if (st->out_ready && off < st->outlen) {
    n = st->outlen - off;
    size_t mps = udccp_sock_get_mps(st->s);
    size_t room = mps > 64 ? mps - 24 : 40;
    n = n > room ? room : n;
    n = n > SRVOUT_CHUNK ? SRVOUT_CHUNK : n;
    memcpy(m + 24, st->out + off, n);
  }
  perf_put32(m + k, off);
  perf_put32(m + k + 4, (uint32_t)st->outlen);
  m[k + 8] = (uint8_t)st->out_ready;
  perf_send_ctrl(st->s, m, 24 + n);
}

static void srvout_take(perf_stream *st, const uint8_t *b, udccp_ssize n) {
  uint32_t off = perf_get32(b + 8);
  uint32_t total = perf_get32(b + 12);
  if (!b[16] || st->out_done) {
    return; /* not ready yet: asked again */
  }
  if (off == st->outlen && n > 24) {
    out_append(st, (const char *)b + 24, (size_t)n - 24);
    st->tries = 0;
    st->t_retry = 0;
  }
  if (st->outlen >= total) {
    st->out_done = 1;
  }
}

static void fill(perf_stream *st);

static void handle(perf_stream *st, const uint8_t *b, udccp_ssize n,
                   double now) {
  int t = perf_msg_type(b, n);
  if (t <= 0) {
    return;
  }
  st->t_last_rx = now;
  switch (t) {
  case M_DATA:
    if (!st->sender) {
      rx_data(st, b, n);
    }
    break;
  case M_HELLO:
    if (!st->client && n >= 72) {
      if (st->phase == P_HELLO) {
        parse_hello(st, b, n, now);
      }
      uint8_t m[16];
      perf_send_ctrl(st->s, m, perf_msg_init(m, M_HELLO_ACK));
    }
    break;
  case M_HELLO_ACK:
    if (st->client && st->phase == P_HELLO) {
      (void)perf_stream_start(st, now);
    }
    break;
  case M_REPORT:
    if (st->sender && n >= 48) {
      st->r_pkts = perf_get64(b + 8);
      st->r_bytes = perf_get64(b + 16);
      st->r_lost = perf_get64(b + 24);
      st->r_jitter_ms = (double)perf_get64(b + 32) / 1e6;
      /* the receiver's last omitted report after our omit period ended:
       * its figures belong to neither */
      if (st->phase == P_RUN && !(b[PERF_OMIT_BYTE] && !st->omitting)) {
        tx_interval(st, now, st->r_lost, 0);
        send_stat(st);
      } else if (st->phase == P_RUN) {
        st->r_pkts = st->r_bytes = st->r_lost = 0;
      }
    }
    break;
  case M_STAT:
    if (!st->sender && n >= 57 && !(b[PERF_OMIT_BYTE] && !st->omitting)) {
      st->s_pkts = perf_get64(b + 8);
      st->s_bytes = perf_get64(b + 16);
      st->s_cwnd = perf_get64(b + 24);
      st->s_x = perf_get64(b + 32);
      st->s_srtt = perf_get64(b + 40);
      st->s_ccid_lost = perf_get64(b + 48);
      st->s_ccid = b[56];
      st->got_stat = 1;
    }
    break;
  case M_END:
    if (!st->sender && n >= 50) {
      st->s_pkts = perf_get64(b + 8);
      st->s_bytes = perf_get64(b + 16);
      st->s_dur_ns = perf_get64(b + 24);
      st->s_srtt = perf_get64(b + 32);
      st->s_ccid_lost = perf_get64(b + 40);
      st->s_ccid = b[48];
      st->s_flags = b[49];
      st->got_end = 1;
      send_result(st);
      if (st->phase == P_RUN) {
        rx_finish(st, now);
      }
    }
    break;
  case M_RESULT:
    if (st->sender && n >= 48) {
      st->r_pkts = perf_get64(b + 8);
      st->r_bytes = perf_get64(b + 16);
      st->r_lost = perf_get64(b + 24);
      st->r_jitter_ms = (double)perf_get64(b + 32) / 1e6;
      if (n >= 8 + 48 + 8 * PERF_OWD_N && b[48] == 1) {
        for (int i = 0; i < PERF_OWD_N; i++) {
          st->r_owd_ms[i] = (double)(int64_t)perf_get64(b + 56 + 8 * i) / 1e6;
        }
        st->r_owd_set = 1;
      }
      if (st->phase == P_END) {
        st->got_result = 1;
        tx_finish(st, now);
      }
    }
    break;
  case M_SRVREQ:
    if (!st->client && n >= 16) {
      srvout_answer(st, b);
    }
    break;
  case M_SRVOUT:
    if (st->client && n >= 24) {
      srvout_take(st, b, n);
    }
    break;
  case M_ERROR:
    /* the server's reason for ending the test, or (at the server) the
     * client's for giving up: -l out of range, another CCID, a stream
     * that could not connect */
    if (n > 8) {
      size_t k = (size_t)n - 8 < sizeof(st->srv_err) - 1
                     ? (size_t)n - 8
                     : sizeof(st->srv_err) - 1;
      memcpy(st->srv_err, b + 8, k);
      st->srv_err[k] = '\0';
      st->err = st->client ? PERF_ERR_SERVER : PERF_ERR_CLIENT;
      fill(st);
      st->phase = P_DONE;
    }
    break;
  default:
    break;
  }
}

static void fill(perf_stream *st) {
  if (!st->fin.set) {
    if (st->sender) {
      tx_fill(st);
    } else {
      rx_fill(st);
    }
  }
}

void perf_stream_fail(perf_stream *st, int err, const char *text) {
  if (st->phase == P_DONE) {
    return;
  }
  uint8_t m[200];
  size_t k = perf_msg_init(m, M_ERROR);
  size_t n = strlen(text);
  n = n > sizeof(m) - k ? sizeof(m) - k : n;
  memcpy(m + k, text, n);
  /* twice: DCCP may lose one; the close that follows goes after them */
  perf_send_ctrl(st->s, m, k + n);
  perf_send_ctrl(st->s, m, k + n);
  st->err = err;
  fill(st);
  st->phase = P_DONE;
}

/* Datagrams drained per reading of the clocks: one batch arrives within
 * microseconds, so its datagrams share a receive time. */
#define PERF_CLOCK_EVERY 32

/* Reads everything waiting; returns 0 or the connection's fatal code. */
static int drain(perf_stream *st, uint8_t *buf, size_t cap) {
  for (int k = 0;; k++) {
    /* udccp_recv() runs the endpoint's loop, which may take new packets,
     * only when nothing is queued: read the clocks after such a call, so
     * that a receive time is never before the arrival (a one-way delay
     * below zero), and every PERF_CLOCK_EVERY datagrams. */
    int queued = udccp_sock_peek_len(st->s) >= 0;
    if (k >= 512 && !queued) {
      /* Enough for one step, and the queue is empty: the event loop's
       * next turn may fill it whole.  Stopping with datagrams still
       * queued would let that turn overrun it (Data Dropped, drop code
       * 2: what a slow application causes, not a fast one). */
      return 0;
    }
    if (perf_sig != 0 && (k & 63) == 63) {
      return 0; /* a faster sender: answer the signal now */
    }
    /* DATA is read where it lies in the receive queue (rx_data only
     * looks at its header and sends nothing); anything else is copied
     * out first, since handling it may send, and a send may run the
     * endpoint's loop, which may move the queue's bytes
     * (udccp_recv_peek). */
    const uint8_t *b = NULL;
    udccp_ssize n = udccp_recv_peek(st->s, &b, NULL, 0);
    if (n == UDCCP_ERR_AGAIN) {
      return 0;
    }
    if (n < 0) {
      return (int)n;
    }
    if (!queued || k % PERF_CLOCK_EVERY == 0) {
      st->rx_now = perf_now();
      st->rx_now_real = perf_now_real();
    }
    if (perf_msg_type(b, n) == M_DATA && !st->omitting) {
      /* (the end of --omit sends a REPORT: copied, below) */
      handle(st, b, n, st->rx_now);
      (void)udccp_recv_consume(st->s);
    } else {
      if ((size_t)n > cap) {
        return UDCCP_ERR_NOBUF; /* as udccp_recv() would say */
      }
      memcpy(buf, b, (size_t)n);
      (void)udccp_recv_consume(st->s);
      handle(st, buf, n, st->rx_now);
    }
    if (st->phase == P_DONE) {
      return 0;
    }
  }
  return 0;
}

static int min_ms(int a, double until, double now) {
  double w = (until - now) * 1e3;
  int wi = w <= 0 ? 0 : w > 1e6 ? 1000000 : (int)w + 1;
  return wi < a ? wi : a;
}

void perf_stream_interrupt(perf_stream *st, double now, int hard) {
  if (hard && st->phase != P_DONE) {
    fill(st);
    st->fin.interrupted = 1;
    st->err = PERF_ERR_STOPPED;
    st->phase = P_DONE;
    return;
  }
  switch (st->phase) {
  case P_RUN:
    if (st->sender) {
      tx_end(st, now, 1);
      return;
    }
    fill(st);
    st->fin.interrupted = 1;
    st->err = PERF_ERR_STOPPED;
    break;
  case P_HELLO:
    st->err = PERF_ERR_STOPPED;
    break;
  case P_END:
    st->s_flags |= PERF_F_INTERRUPTED;
    if (st->tries < 16) {
      st->tries = 16; /* four more ENDs at most */
    }
    return;
  default:
    break;
  }
  fill(st);
  st->phase = P_DONE;
}

int perf_stream_step(perf_stream *st, udccp_endpoint *ep, uint8_t *buf,
                     size_t cap, double now) {
  (void)ep;
  if (st->phase == P_DONE) {
    return 1000;
  }
  /* A sender reads control datagrams every millisecond, not after every
   * datagram: each look runs the endpoint's loop. */
  if (!(st->sender && st->phase == P_RUN) || now >= st->t_next_poll) {
    int rv = drain(st, buf, cap);
    st->t_next_poll = now + 0.001;
    if (rv != 0) {
      /* after the final figures were exchanged, how the peer tears the
       * connection down (Close, or Linux's dccpt: a Reset) ends nothing */
      int benign = (rv == UDCCP_ERR_CLOSED || rv == UDCCP_ERR_RESET) &&
                   (st->phase == P_LINGER || st->phase == P_WAITCLOSE ||
                    st->phase == P_SRVOUT);
      if (!benign) {
        st->err = rv;
      }
      fill(st);
      st->phase = P_DONE;
      return 0;
    }
    if (st->phase == P_DONE) {
      return 0;
    }
  }
  int wait = 20;
  switch (st->phase) {
  case P_HELLO:
    if (!st->client) {
      /* a client that connected and went silent (killed, unplugged)
       * before its HELLO: given up after --rcv-timeout, as in a run */
      double hello_s = (double)perf_o->rcv_timeout_ms / 1e3;
      if (now - st->t_phase > hello_s) {
        st->err = PERF_ERR_NO_HELLO;
        st->phase = P_DONE;
      }
      return min_ms(wait, st->t_phase + hello_s, now);
    }
    if (now >= st->t_retry) {
      if (st->tries >= 10) {
        st->err = PERF_ERR_NO_HELLO_ACK;
        st->phase = P_DONE;
        return 0;
      }
      uint8_t m[80];
      memset(m, 0, sizeof(m));
      perf_msg_init(m, M_HELLO);
      m[8] = (uint8_t)((st->sender ? 0 : PERF_F_REVERSE) |
                       (st->want_srvout ? PERF_F_SRVOUT : 0) |
                       (st->repeat ? PERF_F_REPEAT : 0));
      m[9] = (uint8_t)st->index;
      m[10] = (uint8_t)st->nstreams;
      perf_put64(m + 16, st->duration_ns);
      perf_put64(m + 24, st->length);
      perf_put64(m + 32, st->rate_bps);
      perf_put64(m + 40, st->interval_ns);
      perf_put64(m + 48, st->limit_bytes);
      perf_put64(m + 56, st->limit_pkts);
      perf_put64(m + 64, st->test_id);
      perf_put64(m + 72, st->omit_ns);
      perf_send_ctrl(st->s, m, 80);
      st->tries++;
      st->t_retry = now + 0.3;
    }
    return min_ms(wait, st->t_retry, now);
  case P_RUN:
    if (st->sender) {
      int w = tx_run(st, now);
      if (st->err != 0) {
        /* the peer's reason, if it gave one (ERROR) before closing */
        int err = st->err;
        st->err = 0;
        (void)drain(st, buf, cap);
        if (st->err != PERF_ERR_SERVER) {
          st->err = err;
        }
        fill(st);
        st->phase = P_DONE;
        return 0;
      }
      return w < wait ? w : wait;
    }
    if (now >= st->t_next_report) {
      rx_interval(st, now, 0);
      double period = st->interval_ns ? (double)st->interval_ns / 1e9 : 1.0;
      st->t_next_report += period;
      if (st->t_next_report < now) {
        st->t_next_report = now + period;
      }
    }
    /* A sender that vanished (killed, unplugged) leaves no trace until
     * the core's timers fire: give up after PERF_IDLE_S silent seconds,
     * or a minute past the test's end. */
    if (now - st->t_last_rx > (double)perf_o->rcv_timeout_ms / 1e3 ||
        (!(st->limit_bytes || st->limit_pkts) &&
         now > st->t_start + (double)(st->duration_ns + st->omit_ns) / 1e9 +
                   60.0)) {
      st->err = UDCCP_ERR_TIMEOUT;
      fill(st);
      st->phase = P_DONE;
      return 0;
    }
    return min_ms(wait, st->t_next_report, now);
  case P_END:
    if (now >= st->t_retry) {
      if (st->tries >= 20) {
        tx_fill(st); /* no RESULT: the last REPORT is all we know */
        st->phase = st->client ? P_DONE : P_WAITCLOSE;
        if (!st->client) {
          perf_stream_flush_intervals(st);
          perf_stream_summary(st);
          st->out_ready = 1;
        }
        st->t_phase = now;
        return 0;
      }
      send_end(st);
      st->tries++;
      st->t_retry = now + 0.25;
    }
    return min_ms(wait, st->t_retry, now);
  case P_LINGER:
    /* The client lingers for a repeated END (its RESULT was lost), the
     * server waits for the client's close. */
    if (st->client && now - st->t_phase > 0.3) {
      st->phase = st->want_srvout ? P_SRVOUT : P_DONE;
      st->tries = 0;
      st->t_retry = 0;
      return 0;
    }
    if (!st->client && now - st->t_phase > 5.0) {
      st->phase = P_DONE;
      return 0;
    }
    return min_ms(wait, st->t_phase + (st->client ? 0.3 : 5.0), now);
  case P_WAITCLOSE:
    if (now - st->t_phase > 5.0) {
      st->phase = P_DONE;
      return 0;
    }
    return wait;
  case P_SRVOUT:
    if (st->out_done || st->tries >= 30) {
      st->phase = P_DONE;
      return 0;
    }
    if (now >= st->t_retry) {
      uint8_t m[16];
      size_t k = perf_msg_init(m, M_SRVREQ);
      perf_put32(m + k, (uint32_t)st->outlen);
      perf_put32(m + k + 4, 0);
      perf_send_ctrl(st->s, m, k + 8);
      st->tries++;
      st->t_retry = now + 0.1;
    }
    return min_ms(wait, st->t_retry, now);
  default:
    return wait;
  }
}

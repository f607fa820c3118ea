/* SPDX-License-Identifier: MIT */
/*
 * udccp-perf: what it prints.  Text: interval lines (per stream, and a
 * [SUM] per direction with -P), then per-stream summaries.  JSON (-J): one
 * object per test that keeps the fields of the first versions at the top
 * (ccid, duration_s, sent_pkts, ..., intervals[{start, end, goodput_bps,
 * ...}]) and adds iperf3's sections: intervals[].streams/sum, start, end
 * (streams, sum_sent, sum_received, sum, sum_reverse); on failure an
 * "error" member, and on a failure before any test an object with only
 * start/intervals/end/error (as iperf3 -J).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "perf.h"

const perf_opts *perf_o;
int perf_json_count;

static char g_err[512];
static pthread_mutex_t g_err_lock = PTHREAD_MUTEX_INITIALIZER;

void perf_error(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "udccp-perf: %s\n", msg);
  fflush(stderr);
  pthread_mutex_lock(&g_err_lock);
  if (g_err[0] == '\0') {
    snprintf(g_err, sizeof(g_err), "%s", msg);
  }
  pthread_mutex_unlock(&g_err_lock);
}

const char *perf_first_error(void) { return g_err[0] ? g_err : NULL; }

/* Why a stream ended early, naming the peer's part: "WHO: ...". */
void perf_report_end(const char *who, const perf_stream *st, int err) {
  int rc = st->s != NULL ? udccp_sock_reset_code(st->s) : UDCCP_RESET_NONE;
  if (err == PERF_ERR_STOPPED) {
    perf_error("%s: %s: connection aborted (Reset sent to the peer)", who,
               perf_stop_reason());
  } else if (err == UDCCP_ERR_RESET) {
    perf_error("%s: connection reset by the peer (Reset: %s)", who,
               udccp_reset_code_str(rc));
  } else if (err == PERF_ERR_NO_HELLO_ACK) {
    perf_error("%s: connected, but the server did not answer the test "
               "parameters (HELLO, sent 10 times in 3 s): is it a "
               "udccp-perf server?",
               who);
  } else if (err == PERF_ERR_NO_HELLO) {
    perf_error("%s: failed: no test parameters (HELLO) from the client "
               "within %g s (--rcv-timeout): client gone?",
               who, (double)perf_o->rcv_timeout_ms / 1e3);
  } else if (err == PERF_ERR_LIMIT) {
    perf_error("%s: ended: the total bitrate exceeds the server's limit "
               "(--server-bitrate-limit)", who);
  } else if (err == PERF_ERR_SERVER) {
    perf_error("%s: the server ended the test: %s", who, st->srv_err);
  } else if (err == PERF_ERR_CLIENT) {
    perf_error("%s: failed: the client gave up: %s", who, st->srv_err);
  } else if (err == PERF_ERR_NO_TEST) {
    perf_error("%s: failed: the client closed the connection without "
               "starting a test (no HELLO)", who);
  } else if (err == UDCCP_ERR_TIMEOUT) {
    perf_error("%s: connection timed out: nothing from the peer for %g s "
               "(peer gone, or the network drops its packets)",
               who, (double)perf_o->rcv_timeout_ms / 1e3);
  } else if (err == UDCCP_ERR_CLOSED) {
    perf_error("%s: the peer closed the connection before the end of the "
               "test", who);
  } else {
    perf_error("%s: %s%s%s%s", who, udccp_io_strerror(err),
               rc != UDCCP_RESET_NONE ? " (Reset: " : "",
               rc != UDCCP_RESET_NONE ? udccp_reset_code_str(rc) : "",
               rc != UDCCP_RESET_NONE ? ")" : "");
  }
}

const char *perf_mode_str(const perf_stream *st) {
  if (st->client) {
    return st->sender ? "TX-C" : "RX-C";
  }
  return st->sender ? "TX-S" : "RX-S";
}

/* A rate in -f's unit: k m g bits, K M G bytes per second. */
static const char *rate(char *b, size_t cap, double bps) {
  char f = perf_o->format ? perf_o->format : 'm';
  double div = f == 'k' || f == 'K' ? 1e3 : f == 'g' || f == 'G' ? 1e9 : 1e6;
  int bytes = f >= 'A' && f <= 'Z';
  const char *unit = f == 'k' ? "Kbit/s" : f == 'g' ? "Gbit/s"
                   : f == 'K' ? "KByte/s" : f == 'M' ? "MByte/s"
                   : f == 'G' ? "GByte/s" : "Mbit/s";
  snprintf(b, cap, "%9.3f %s", (bytes ? bps / 8 : bps) / div, unit);
  return b;
}

static double pct(uint64_t lost, uint64_t got) {
  return lost + got ? 100.0 * (double)lost / (double)(lost + got) : 0;
}

static int multi(const perf_test *t) {
  return t->n > 1 || (t->o != NULL && t->o->bidir) || t->nstreams > 1;
}

static void prefix(char *p, size_t cap, const perf_test *t,
                   const perf_stream *st) {
  if (t != NULL && !multi(t)) {
    p[0] = '\0';
  } else {
    snprintf(p, cap, "[%3d][%s] ", st->id, perf_mode_str(st));
  }
}

static void iv_line(perf_stream *st, const char *pre, const perf_iv *iv) {
  double dt = iv->t1 - iv->t0;
  double gp = dt > 0 ? (double)iv->bytes * 8 / dt : 0;
  char tail[64] = "";
  if (iv->ccid == 2) {
    snprintf(tail, sizeof(tail), "  cwnd %" PRIu64, iv->cwnd);
  } else if (iv->ccid != 0) {
    snprintf(tail, sizeof(tail), "  X %.3f Mbit/s", iv->x_bps / 1e6);
  }
  char r[48];
  perf_stream_say(st,
                  "%s[%6.2f-%6.2f s] %s  loss %5.2f%% (%" PRIu64
                  "/%" PRIu64 ")  jitter %.3f ms  rtt %7.3f ms%s%s\n",
                  pre, iv->t0, iv->t1, rate(r, sizeof(r), gp),
                  pct(iv->lost, iv->pkts),
                  iv->lost, iv->lost + iv->pkts, iv->jitter_ms, iv->rtt_ms,
                  tail, iv->omitted ? "  (omitted)" : "");
}

void perf_iv_omitted(perf_stream *st, const perf_iv *iv) {
  if (perf_o->json) {
    return; /* as iperf3 leaves them out of the sums: not in the JSON */
  }
  perf_iv o = *iv;
  o.omitted = 1;
  char pre[32];
  perf_stream_prefix(pre, sizeof(pre), st);
  iv_line(st, pre, &o);
}

/* The k-th intervals of the streams of one direction, summed. */
static int iv_sum(const perf_test *t, size_t k, int sender, perf_iv *sum) {
  int n = 0;
  memset(sum, 0, sizeof(*sum));
  for (int i = 0; i < t->n; i++) {
    const perf_stream *st = t->st[i];
    if (st->sender != sender || st->niv <= k) {
      continue;
    }
    const perf_iv *iv = &st->iv[k];
    if (n == 0) {
      *sum = *iv;
    } else {
      sum->bytes += iv->bytes;
      sum->pkts += iv->pkts;
      sum->lost += iv->lost;
      sum->sent_bytes += iv->sent_bytes;
      sum->sent_pkts += iv->sent_pkts;
      sum->jitter_ms += iv->jitter_ms;
      sum->rtt_ms += iv->rtt_ms;
      sum->x_bps += iv->x_bps;
      sum->cwnd += iv->cwnd;
      sum->t1 = iv->t1 > sum->t1 ? iv->t1 : sum->t1;
    }
    n++;
  }
  if (n > 1) {
    sum->jitter_ms /= n;
    sum->rtt_ms /= n;
  }
  return n;
}

static int producing(const perf_stream *st) {
  return st->phase == P_HELLO || st->phase == P_RUN || st->phase == P_END;
}

static void json_interval(const perf_test *t, size_t k, int dir);
static int main_dir(const perf_test *t);

void perf_test_emit_intervals(perf_test *t, int final) {
  for (;;) {
    size_t k = t->emitted;
    int any = 0;
    for (int i = 0; i < t->n; i++) {
      if (t->st[i]->niv > k) {
        any = 1;
      } else if (!final && producing(t->st[i])) {
        return;
      }
    }
    if (!any) {
      return;
    }
    t->emitted++;
    if (t->o->json_stream && t->o->interval_ns != 0) {
      printf("{\"event\": \"interval\", \"data\": ");
      json_interval(t, k, main_dir(t));
      printf("}\n");
      if (fflush(stdout) != 0 && errno == EPIPE && perf_sig == 0) {
        perf_sig = SIGPIPE; /* the reader went away, as perf_stream_say */
      }
    } else if (t->o->json) {
      perf_check_output();
    }
    if (t->o->interval_ns == 0) {
      continue;
    }
    char pre[32];
    for (int i = 0; i < t->n; i++) {
      perf_stream *st = t->st[i];
      if (st->niv > k && st->ivshown <= k) {
        prefix(pre, sizeof(pre), t, st);
        iv_line(st, pre, &st->iv[k]);
        st->ivshown = k + 1;
      }
    }
    for (int dir = 1; dir >= 0; dir--) {
      perf_iv sum;
      if (iv_sum(t, k, dir, &sum) > 1) {
        iv_line(NULL, dir ? "[SUM][TX] " : "[SUM][RX] ", &sum);
      }
    }
  }
}

void perf_stream_prefix(char *p, size_t cap, const perf_stream *st) {
  prefix(p, cap, st->test, st);
}

void perf_stream_flush_intervals(perf_stream *st) {
  if (perf_o->interval_ns == 0) {
    st->ivshown = st->niv;
    return;
  }
  char pre[32];
  prefix(pre, sizeof(pre), st->test, st);
  for (; st->ivshown < st->niv; st->ivshown++) {
    iv_line(st, pre, &st->iv[st->ivshown]);
  }
}

static void summary_lines(perf_stream *st, const char *pre, const char *who,
                          const perf_final *f) {
  double gp = f->duration_s > 0 ? (double)f->recv_bytes * 8 / f->duration_s
                                : 0;
  double loss = pct(f->lost, f->recv_pkts);
  perf_stream_say(st,
                  "%s%s: CCID %u, %.2f s, sent %" PRIu64 " pkts (%" PRIu64
                  " bytes), received %" PRIu64 " pkts (%" PRIu64 " bytes)\n",
                  pre, who, (unsigned)f->ccid, f->duration_s, f->sent_pkts,
                  f->sent_bytes, f->recv_pkts, f->recv_bytes);
  char r[48];
  const char *rp = rate(r, sizeof(r), gp);
  while (*rp == ' ') {
    rp++;
  }
  perf_stream_say(st,
                  "%s%s: goodput %s, lost %" PRIu64
                  " (%.2f%%), jitter %.3f ms, rtt %.3f ms%s%s\n",
                  pre, who, rp, f->lost, loss, f->jitter_ms, f->rtt_ms,
                  f->complete ? "" : " (no final report: figures partial)",
                  f->interrupted ? " (interrupted: datagrams still in flight "
                                   "are not counted as lost)"
                                 : "");
  if (f->owd_set) {
    perf_stream_say(st,
                    "%s%s: one-way delay min %.3f p50 %.3f p95 %.3f p99 %.3f "
                    "max %.3f ms\n",
                    pre, who, f->owd_ms[0], f->owd_ms[1], f->owd_ms[2],
                    f->owd_ms[3], f->owd_ms[4]);
  }
}

/* The one-way delays as a JSON member (after a comma), or nothing. */
static void json_owd(const perf_final *f) {
  if (f->owd_set) {
    printf(", \"owd_ms\": {\"min\": %.3f, \"p50\": %.3f, \"p95\": %.3f, "
           "\"p99\": %.3f, \"max\": %.3f}",
           f->owd_ms[0], f->owd_ms[1], f->owd_ms[2], f->owd_ms[3],
           f->owd_ms[4]);
  }
}

static const char *who_of(const perf_stream *st) {
  if (!st->client) {
    return "server";
  }
  return st->sender ? "sender" : "receiver";
}

void perf_stream_summary(perf_stream *st) {
  if (st->summarized) {
    return;
  }
  st->summarized = 1;
  char pre[32];
  prefix(pre, sizeof(pre), st->test, st);
  if (pre[0] == '\0') {
    perf_stream_say(st, "- - - - - - - - - - - - - - - - - - - - - - - - -\n");
  }
  summary_lines(st, pre, who_of(st), &st->fin);
}

/* The sum of the finals of one direction (sender flag at this end). */
static int fin_sum(const perf_test *t, int sender, perf_final *s) {
  int n = 0;
  memset(s, 0, sizeof(*s));
  s->complete = 1;
  for (int i = 0; i < t->n; i++) {
    const perf_stream *st = t->st[i];
    if (st->sender != sender) {
      continue;
    }
    const perf_final *f = &st->fin;
    if (n == 0) {
      s->ccid = f->ccid;
    }
    s->sent_pkts += f->sent_pkts;
    s->sent_bytes += f->sent_bytes;
    s->recv_pkts += f->recv_pkts;
    s->recv_bytes += f->recv_bytes;
    s->lost += f->lost;
    s->ccid_lost += f->ccid_lost;
    s->rtt_ms += f->rtt_ms;
    s->jitter_ms += f->jitter_ms;
    s->duration_s = f->duration_s > s->duration_s ? f->duration_s
                                                  : s->duration_s;
    s->complete &= f->complete;
    s->interrupted |= f->interrupted;
    if (f->owd_set) {
      /* several streams: the smallest minimum, and of each percentile
       * and the maximum the worst stream's (a bound, not a merge) */
      for (int q = 0; q < PERF_OWD_N; q++) {
        int lower = q == 0 ? f->owd_ms[q] < s->owd_ms[q]
                           : f->owd_ms[q] > s->owd_ms[q];
        if (!s->owd_set || lower) {
          s->owd_ms[q] = f->owd_ms[q];
        }
      }
      s->owd_set = 1;
    }
    n++;
  }
  if (n > 0) {
    s->rtt_ms /= n;
    s->jitter_ms /= n;
  } else {
    s->complete = 0;
  }
  return n;
}

void perf_test_summary(perf_test *t, int streams) {
  perf_final tmp;
  if (streams || fin_sum(t, 1, &tmp) > 1 || fin_sum(t, 0, &tmp) > 1) {
    perf_stream_say(NULL, "- - - - - - - - - - - - - - - - - - - - - - - - -\n");
  }
  char pre[32];
  for (int i = 0; streams && i < t->n; i++) {
    prefix(pre, sizeof(pre), t, t->st[i]);
    summary_lines(NULL, pre, who_of(t->st[i]), &t->st[i]->fin);
  }
  for (int dir = 1; dir >= 0; dir--) {
    perf_final s;
    if (fin_sum(t, dir, &s) > 1) {
      summary_lines(NULL, dir ? "[SUM][TX] " : "[SUM][RX] ",
                    dir ? "sender" : "receiver", &s);
    }
  }
  fflush(stdout);
}

/* ------------------------------------------------------------------ JSON */

static void json_esc(const char *s) {
  for (; s != NULL && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      printf("\\%c", c);
    } else if (c == '\n') {
      printf("\\n");
    } else if (c < 0x20) {
      printf("\\u%04x", c);
    } else {
      putchar(c);
    }
  }
}

static void json_str(const char *s) {
  putchar('"');
  json_esc(s);
  putchar('"');
}

static void json_start(const perf_test *t) {
  struct utsname u;
  char sys[400] = "";
  if (uname(&u) == 0) {
    snprintf(sys, sizeof(sys), "%s %s %s %s", u.sysname, u.nodename,
             u.release, u.machine);
  }
  const perf_opts *o = t->o;
  printf("\"start\": {\"version\": \"udccp-perf %s\", \"system_info\": ",
         UDCCP_VERSION);
  json_str(sys);
  printf(", \"timestamp\": {\"timesecs\": %lld}, \"connected\": [",
         (long long)time(NULL));
  for (int i = 0; i < t->n; i++) {
    const perf_stream *st = t->st[i];
    const udccp_path *p = st->s != NULL ? udccp_sock_get_path(st->s) : NULL;
    printf("%s{\"socket\": %d, \"remote\": ", i ? ", " : "", st->id);
    json_str(st->peer);
    printf(", \"local_port\": %u, \"remote_port\": %u, \"role\": \"%s\"}",
           p ? (unsigned)p->local_port : 0, p ? (unsigned)p->remote_port : 0,
           perf_mode_str(st));
  }
  const perf_stream *s0 = t->n ? t->st[0] : NULL;
  printf("], \"test_start\": {\"protocol\": \"DCCP\", \"transport\": \"%s\", "
         "\"num_streams\": %d, \"blksize\": %" PRIu64 ", \"duration\": %.3f, "
         "\"bytes\": %" PRIu64 ", \"blocks\": %" PRIu64 ", \"reverse\": %d, "
         "\"bidir\": %d, \"interval\": %.3f, \"ccid\": %u}}",
         o->raw ? "raw" : "udp", t->nstreams,
         s0 ? s0->length : 0, s0 ? (double)s0->duration_ns / 1e9 : 0,
         s0 ? s0->limit_bytes : 0, s0 ? s0->limit_pkts : 0,
         s0 && s0->client ? o->reverse : s0 && s0->sender,
         s0 && s0->client ? o->bidir : 0,
         s0 ? (double)s0->interval_ns / 1e9 : 0,
         s0 ? (unsigned)s0->fin.ccid : 0);
}

static void json_iv(int socket, int sender, const perf_iv *iv) {
  double dt = iv->t1 - iv->t0;
  if (socket > 0) {
    printf("{\"socket\": %d, ", socket);
  } else {
    printf("{");
  }
  printf("\"start\": %.3f, \"end\": %.3f, \"seconds\": %.3f, \"bytes\": "
         "%" PRIu64 ", \"bits_per_second\": %.0f, \"packets\": %" PRIu64
         ", \"lost_packets\": %" PRIu64 ", \"lost_percent\": %.4f, "
         "\"sent_packets\": %" PRIu64 ", \"jitter_ms\": %.4f, \"rtt_ms\": "
         "%.3f, \"cwnd\": %" PRIu64 ", \"x_bps\": %.0f, \"sender\": %s}",
         iv->t0, iv->t1, dt, iv->bytes,
         dt > 0 ? (double)iv->bytes * 8 / dt : 0, iv->pkts, iv->lost,
         pct(iv->lost, iv->pkts), iv->sent_pkts, iv->jitter_ms, iv->rtt_ms,
         iv->cwnd, iv->x_bps, sender ? "true" : "false");
}

static void json_fin(int socket, int sender, const perf_final *f) {
  double gp = f->duration_s > 0 ? (double)f->recv_bytes * 8 / f->duration_s
                                : 0;
  if (socket > 0) {
    printf("{\"socket\": %d, ", socket);
  } else {
    printf("{");
  }
  printf("\"sender\": %s, \"ccid\": %u, \"seconds\": %.3f, \"sent_pkts\": "
         "%" PRIu64 ", \"sent_bytes\": %" PRIu64 ", \"packets\": %" PRIu64
         ", \"bytes\": %" PRIu64 ", \"bits_per_second\": %.0f, "
         "\"lost_packets\": %" PRIu64 ", \"lost_percent\": %.4f, "
         "\"jitter_ms\": %.4f, \"rtt_ms\": %.3f, \"ccid_lost_pkts\": %" PRIu64
         ", \"complete\": %s, \"interrupted\": %s",
         sender ? "true" : "false", (unsigned)f->ccid, f->duration_s,
         f->sent_pkts, f->sent_bytes, f->recv_pkts, f->recv_bytes, gp,
         f->lost, pct(f->lost, f->recv_pkts), f->jitter_ms, f->rtt_ms,
         f->ccid_lost, f->complete ? "true" : "false",
         f->interrupted ? "true" : "false");
  json_owd(f);
  printf("}");
}

/* The direction the test is about: the client's -R, or (bidir) the
 * client's sending streams; seen from this end. */
static int main_dir(const perf_test *t) {
  const perf_stream *m = t->st[0];
  for (int i = 1; i < t->n; i++) {
    if (t->st[i]->index < m->index) {
      m = t->st[i];
    }
  }
  return m->sender;
}

/* Interval k of the test: the old members (the main direction's sum) and
 * iperf3's streams/sum/sum_reverse. */
static void json_interval(const perf_test *t, size_t k, int dir) {
  perf_iv sum;
  int n = iv_sum(t, k, dir, &sum);
  double dt = sum.t1 - sum.t0;
  printf("{\"start\": %.3f, \"end\": %.3f, \"goodput_bps\": %.0f, "
         "\"loss_rate\": %.6f, \"rtt_ms\": %.3f, \"cwnd\": %" PRIu64
         ", \"streams\": [",
         sum.t0, sum.t1, n && dt > 0 ? (double)sum.bytes * 8 / dt : 0,
         pct(sum.lost, sum.pkts) / 100, sum.rtt_ms, sum.cwnd);
  int first = 1;
  for (int i = 0; i < t->n; i++) {
    if (t->st[i]->niv > k) {
      printf("%s", first ? "" : ", ");
      json_iv(t->st[i]->id, t->st[i]->sender, &t->st[i]->iv[k]);
      first = 0;
    }
  }
  printf("], \"sum\": ");
  json_iv(0, dir, &sum);
  perf_iv rsum;
  if (iv_sum(t, k, !dir, &rsum) > 0) {
    printf(", \"sum_reverse\": ");
    json_iv(0, !dir, &rsum);
  }
  printf("}");
}

void perf_test_json(perf_test *t, const udccp_endpoint_stats *es) {
  if (t->n == 0) {
    perf_json_error_only();
    return;
  }
  const perf_opts *o = t->o;
  int dir = main_dir(t);
  perf_final f;
  fin_sum(t, dir, &f);
  double gp = f.duration_s > 0 ? (double)f.recv_bytes * 8 / f.duration_s : 0;
  double loss = f.sent_pkts ? (double)f.lost / (double)f.sent_pkts : 0;
  const perf_stream *s0 = t->st[0];
  if (o->json_stream) {
    printf("{\"event\": \"end\", \"data\": ");
  }
  printf("{\"ccid\": %u, \"transport\": \"%s\", \"reverse\": %s, "
         "\"bidir\": %s, \"num_streams\": %d, \"duration_s\": %.3f, "
         "\"sent_pkts\": %" PRIu64 ", \"received_pkts\": %" PRIu64
         ", \"lost_pkts\": %" PRIu64 ", \"sent_bytes\": %" PRIu64
         ", \"received_bytes\": %" PRIu64 ", \"goodput_bps\": %.0f, "
         "\"rtt_ms\": %.3f, \"loss_rate\": %.6f, \"jitter_ms\": %.4f, "
         "\"ccid_lost_pkts\": %" PRIu64 ", \"complete\": %s, "
         "\"interrupted\": %s, \"tx_pkts_per_batch\": %.2f, "
         "\"rx_pkts_per_batch\": %.2f, ",
         (unsigned)f.ccid, o->raw ? "raw" : "udp",
         (s0->client ? o->reverse : dir) ? "true" : "false",
         (s0->client && o->bidir) ? "true" : "false", t->nstreams,
         f.duration_s, f.sent_pkts, f.recv_pkts, f.lost, f.sent_bytes,
         f.recv_bytes, gp, f.rtt_ms, loss, f.jitter_ms, f.ccid_lost,
         f.complete ? "true" : "false", f.interrupted ? "true" : "false",
         es && es->tx_batches ? (double)es->tx_pkts / (double)es->tx_batches
                              : 0,
         es && es->rx_batches ? (double)es->rx_pkts / (double)es->rx_batches
                              : 0);
  if (f.owd_set) { /* the receiving end's one-way delays (owd.c) */
    printf("\"owd_ms\": {\"min\": %.3f, \"p50\": %.3f, \"p95\": %.3f, "
           "\"p99\": %.3f, \"max\": %.3f}, ",
           f.owd_ms[0], f.owd_ms[1], f.owd_ms[2], f.owd_ms[3], f.owd_ms[4]);
  }
  /* intervals: the old members (main direction's sum) and iperf3's */
  size_t niv = 0;
  for (int i = 0; i < t->n; i++) {
    niv = t->st[i]->niv > niv ? t->st[i]->niv : niv;
  }
  printf("\"intervals\": [");
  for (size_t k = 0; k < niv; k++) {
    printf("%s", k ? ", " : "");
    json_interval(t, k, dir);
  }
  printf("], ");
  json_start(t);
  printf(", \"end\": {\"streams\": [");
  for (int i = 0; i < t->n; i++) {
    printf("%s", i ? ", " : "");
    json_fin(t->st[i]->id, t->st[i]->sender, &t->st[i]->fin);
  }
  printf("], \"sum\": ");
  json_fin(0, dir, &f);
  perf_final r;
  if (fin_sum(t, !dir, &r) > 0) {
    printf(", \"sum_reverse\": ");
    json_fin(0, !dir, &r);
  }
  /* iperf3's names: what this end sent and what its peer received */
  perf_final tx, rx;
  fin_sum(t, 1, &tx);
  fin_sum(t, 0, &rx);
  printf(", \"sum_sent\": {\"seconds\": %.3f, \"bytes\": %" PRIu64
         ", \"packets\": %" PRIu64 ", \"bits_per_second\": %.0f}, "
         "\"sum_received\": {\"seconds\": %.3f, \"bytes\": %" PRIu64
         ", \"packets\": %" PRIu64 ", \"bits_per_second\": %.0f, "
         "\"lost_packets\": %" PRIu64 ", \"jitter_ms\": %.4f}}",
         tx.duration_s, tx.sent_bytes, tx.sent_pkts,
         tx.duration_s > 0 ? (double)tx.sent_bytes * 8 / tx.duration_s : 0,
         rx.duration_s, rx.recv_bytes, rx.recv_pkts,
         rx.duration_s > 0 ? (double)rx.recv_bytes * 8 / rx.duration_s : 0,
         rx.lost, rx.jitter_ms);
  if (s0->client && o->get_server_output) {
    printf(", \"server_output_text\": ");
    putchar('"');
    for (int i = 0; i < t->n; i++) {
      if (t->st[i]->out != NULL) {
        json_esc(t->st[i]->out);
      }
    }
    putchar('"');
  }
  if (perf_first_error() != NULL && s0->client) {
    printf(", \"error\": ");
    json_str(perf_first_error());
  }
  if (o->extra_data != NULL) {
    printf(", \"extra_data\": ");
    json_str(o->extra_data);
  }
  printf(o->json_stream ? "}}\n" : "}\n");
  fflush(stdout);
  t->json_shown = 1;
  perf_json_count++;
}

void perf_json_error_only(void) {
  perf_json_count++;
  if (perf_o->json_stream) {
    printf("{\"event\": \"error\", \"data\": ");
    json_str(perf_first_error() ? perf_first_error() : "failed");
    printf("}\n");
    fflush(stdout);
    return;
  }
  printf("{\"start\": {\"version\": \"udccp-perf %s\"}, \"intervals\": [], "
         "\"end\": {}, \"error\": ",
         UDCCP_VERSION);
  json_str(perf_first_error() ? perf_first_error() : "failed");
  printf("}\n");
  fflush(stdout);
}

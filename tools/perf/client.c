/* SPDX-License-Identifier: MIT */
/*
 * udccp-perf client: opens the test's connections on one endpoint (-P N
 * streams, twice that with --bidir: the first N send, the next N receive),
 * sends each its HELLO, runs them all from one event loop, then prints the
 * intervals, the summary or the JSON object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../../io/parse.h"
#include "perf.h"

void perf_settings(udccp_settings *st, const char *keepalive) {
  udccp_settings_default(st);
  st->idle_timeout = (udccp_tstamp)perf_o->rcv_timeout_ms * 1000000u;
  if (keepalive != NULL) {
    (void)udccp_io_parse_keepalive(keepalive, st);
  }
}

/* The error of a failed udccp_connect(), naming the ports tried. */
static void connect_error(const perf_opts *o, int rv) {
  char where[160];
  if (o->raw) {
    snprintf(where, sizeof(where), "%s DCCP port %u (native DCCP)", o->host,
             (unsigned)o->port);
  } else {
    snprintf(where, sizeof(where), "%s DCCP port %u over UDP port %u",
             o->host, (unsigned)o->port, (unsigned)o->udp_port);
  }
  if (rv == UDCCP_ERR_RESOLVE) {
    perf_error("cannot resolve host '%s'", o->host);
  } else if (rv == UDCCP_ERR_AFNOSUPPORT) {
    perf_error("host '%s' has no %s address", o->host,
               o->family == 4 ? "IPv4" : o->family == 6 ? "IPv6" : "usable");
  } else if (rv == UDCCP_ERR_REFUSED) {
    perf_error("connection to %s refused (no udccp-perf server there, or it "
               "refused the service code)",
               where);
  } else if (rv == UDCCP_ERR_INVALID_ARGUMENT && o->ccid != 0) {
    perf_error("CCID %u is not available in this build of libudccp (%s); "
               "try --ccid 2",
               (unsigned)o->ccid, udccp_io_strerror(rv));
  } else if (rv == UDCCP_ERR_TIMEOUT) {
    perf_error("no answer from %s within %g s (is the server running, on "
               "that UDP port? --udp-port sets it; firewall?)",
               where, (double)o->connect_timeout_ms / 1e3);
  } else {
    perf_error("cannot connect to %s: %s", where, udccp_io_strerror(rv));
  }
}

static uint64_t test_id(void) {
  uint64_t id = 0;
  if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id)) {
    id = (uint64_t)getpid() ^ (uint64_t)(perf_now() * 1e9);
  }
  return id;
}

/* Opens the endpoint; returns it or NULL (error said). */
static udccp_endpoint *client_endpoint(const perf_opts *o,
                                       udccp_settings *st) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.transport = o->raw ? UDCCP_TRANSPORT_RAW : UDCCP_TRANSPORT_UDP;
  cfg.no_offload = (uint8_t)o->no_offload;
  cfg.remote_udp_port = o->udp_port;
  cfg.local_host = o->bind;
  cfg.local_port = o->cport;
  if (o->sockbuf != 0) {
    cfg.sockbuf = o->sockbuf;
  }
  perf_settings(st, o->keepalive);
  cfg.settings = st;
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv == 0) {
    udccp_endpoint_set_pcap(ep, perf_pcap);
    if (o->tos >= 0 && udccp_endpoint_set_tos(ep, o->tos) != 0) {
      perf_error("-S %d: cannot set the IP TOS / traffic class: %s", o->tos,
                 strerror(errno));
      udccp_endpoint_del(ep);
      return NULL;
    }
    if (o->bind_dev != NULL &&
        (rv = udccp_endpoint_bind_device(ep, o->bind_dev)) != 0) {
      perf_error("--bind-dev %s: %s", o->bind_dev,
                 rv == UDCCP_ERR_RESOLVE ? "no such network interface"
                                         : strerror(errno));
      udccp_endpoint_del(ep);
      return NULL;
    }
    return ep;
  }
  if (rv == UDCCP_ERR_PERM && o->raw) {
    perf_error("--raw needs root (or CAP_NET_RAW); run as root or drop "
               "--raw to use DCCP-UDP");
  } else if (rv == UDCCP_ERR_PERM) {
    perf_error("local UDP port %u (--cport) needs privilege: ports below "
               "1024 are root's",
               (unsigned)o->cport);
  } else if (rv == UDCCP_ERR_ADDRINUSE) {
    perf_error("local UDP port %u (--cport) is already in use",
               (unsigned)o->cport);
  } else if (rv == UDCCP_ERR_RESOLVE) {
    perf_error("-B %s: not a numeric local address", o->bind);
  } else {
    perf_error("cannot open the endpoint%s%s: %s", o->bind ? " on " : "",
               o->bind ? o->bind : "", udccp_io_strerror(rv));
  }
  return NULL;
}

/* The client gives up on a connected stream: it tells the server why
 * (ERROR, twice, as DCCP may lose one) and closes gracefully, so that the
 * server reports the failed test and a -1 server exits.  A Reset alone
 * (udccp_abort) said nothing useful, and when it reached the server
 * before the server accepted the connection, the server never learnt of
 * the test at all: it waited for ever. */
static void give_up(udccp_sock *s, const char *why) {
  uint8_t m[200];
  size_t k = perf_msg_init(m, M_ERROR);
  size_t n = strlen(why);
  n = n > sizeof(m) - k ? sizeof(m) - k : n;
  memcpy(m + k, why, n);
  perf_send_ctrl(s, m, k + n);
  perf_send_ctrl(s, m, k + n);
  (void)udccp_shutdown(s);
  (void)udccp_close(s, 2000);
}

/* perf_error(), and the same text to the server (give_up). */
static void stream_error(udccp_sock *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void stream_error(udccp_sock *s, const char *fmt, ...) {
  char msg[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  perf_error("%s", msg);
  give_up(s, msg);
}

/* udccp_connect() that Ctrl-C (SIGINT/SIGTERM) ends at once: the blocking
 * call waited out --connect-timeout and then blamed the server.  The
 * Request is queued without waiting, and the loop runs in short turns
 * until the connection opens, dies, the deadline passes or a signal
 * came.  Returns 0 or a UDCCP_ERR_* / PERF_ERR_STOPPED. */
static int connect_stoppable(const perf_opts *o, udccp_endpoint *ep,
                             udccp_sock **ps) {
  udccp_sock *s = NULL;
  int rv = udccp_connect(ep, &s, o->host, o->port, PERF_SERVICE, o->ccid, 0);
  if (rv != 0) {
    return rv;
  }
  double end = perf_now() + (double)o->connect_timeout_ms / 1e3;
  for (;;) {
    int err = udccp_sock_error(s);
    if (err != 0) {
      udccp_abort(s);
      return err == UDCCP_ERR_CLOSED ? UDCCP_ERR_REFUSED : err;
    }
    if (udccp_sock_state(s) >= UDCCP_STATE_PARTOPEN) {
      *ps = s;
      return 0;
    }
    double left = end - perf_now();
    if (perf_sig != 0 || left <= 0) {
      udccp_abort(s); /* Reset Aborted: the server forgets it */
      (void)udccp_endpoint_process(ep);
      return perf_sig != 0 ? PERF_ERR_STOPPED : UDCCP_ERR_TIMEOUT;
    }
    (void)udccp_endpoint_run(ep, left > 0.05 ? 50 : (int)(left * 1e3) + 1);
  }
}

/* Connects stream i; returns it or NULL (error said). */
static perf_stream *client_stream(const perf_opts *o, udccp_endpoint *ep,
                                  int i, uint64_t id, uint64_t *length) {
  udccp_sock *s = NULL;
  int rv = connect_stoppable(o, ep, &s);
  if (rv == PERF_ERR_STOPPED) {
    perf_error("%s while connecting to %s: no test run",
               perf_stop_reason(), o->host);
    return NULL;
  }
  if (rv != 0) {
    connect_error(o, rv);
    return NULL;
  }
  int sender = o->bidir ? i < o->nstreams : !o->reverse;
  size_t mps = udccp_sock_get_mps(s);
  if (*length == 0) {
    *length = o->length          ? o->length
              : mps < PERF_DEFAULT_LEN ? mps
                                       : PERF_DEFAULT_LEN;
  }
  if (*length < PERF_MIN_LEN || *length > mps) {
    stream_error(s, "-l %" PRIu64 " is out of range: %d..%zu bytes (the "
                    "connection's maximum packet size)",
                 *length, PERF_MIN_LEN, mps);
    return NULL;
  }
  if (o->ccid != 0) {
    udccp_conn_info info;
    udccp_sock_get_info(s, &info);
    uint8_t got = sender ? info.tx_ccid : info.rx_ccid;
    if (got != o->ccid) {
      /* Feature negotiation (RFC 4340 §6.3.1) let the server's preference
       * win: measuring another CCID than asked would mislead. */
      stream_error(s, "asked for CCID %u but the connection negotiated "
                      "CCID %u (the server or this libudccp does not offer "
                      "CCID %u first); no test run",
                   (unsigned)o->ccid, (unsigned)got, (unsigned)o->ccid);
      return NULL;
    }
  }
  perf_stream *st = perf_stream_new(s, i + 1, 1);
  if (st == NULL) {
    stream_error(s, "out of memory");
    return NULL;
  }
  st->sender = sender;
  st->want_srvout = o->get_server_output;
  st->index = i;
  st->nstreams = o->nstreams * (o->bidir ? 2 : 1);
  st->test_id = id;
  st->duration_ns = o->duration_ns;
  st->length = *length;
  st->rate_bps = o->rate_bps;
  st->interval_ns = o->interval_ns;
  st->limit_bytes = o->limit_bytes;
  st->limit_pkts = o->limit_pkts;
  st->omit_ns = o->omit_ns;
  st->repeat = o->repeating_payload;
  return st;
}

static const char *direction(const perf_opts *o) {
  return o->bidir ? "both send" : o->reverse ? "server sends" : "client sends";
}

int perf_run_client(const perf_opts *o) {
  udccp_settings cst;
  udccp_endpoint *ep = client_endpoint(o, &cst);
  if (ep == NULL) {
    return 1;
  }
  if (o->verbose && !o->json) {
    struct utsname u;
    if (uname(&u) == 0) {
      perf_stream_say(NULL, "udccp-perf %s, %s %s %s\n", UDCCP_VERSION,
                      u.sysname, u.release, u.machine);
    }
    perf_stream_say(NULL, "local UDP port %u; server: %s DCCP port %u over "
                          "UDP port %u; socket buffers %d bytes\n",
                    (unsigned)udccp_endpoint_local_port(ep), o->host,
                    (unsigned)o->port, (unsigned)o->udp_port,
                    o->sockbuf ? o->sockbuf : 4 << 20);
  }
  static perf_test t;
  memset(&t, 0, sizeof(t));
  t.o = o;
  t.is_client = 1;
  t.id = test_id();
  t.nstreams = o->nstreams * (o->bidir ? 2 : 1);
  uint64_t length = 0;
  int status = 0;
  for (int i = 0; i < t.nstreams; i++) {
    perf_stream *st = client_stream(o, ep, i, t.id, &length);
    if (st == NULL) {
      /* the streams connected so far tell the server too */
      char why[300];
      snprintf(why, sizeof(why), "stream %d of %d: %s", i + 1, t.nstreams,
               perf_first_error() ? perf_first_error() : "failed");
      for (int k = 0; k < t.n; k++) {
        give_up(t.st[k]->s, why);
        perf_stream_free(t.st[k]);
      }
      t.n = 0;
      status = 1;
      break;
    }
    t.st[t.n++] = st;
    st->test = &t;
  }
  if (status == 0) {
    char more[64] = "";
    if (o->nstreams > 1) {
      snprintf(more, sizeof(more), ", %d streams%s", o->nstreams,
               o->bidir ? " each way" : "");
    }
    perf_stream_say(NULL, "connected to %s port %u (%s), %" PRIu64
                          "-byte datagrams, %s%s\n",
                    o->host, (unsigned)o->port,
                    o->raw ? "native DCCP" : "DCCP-UDP", length,
                    direction(o), more);
  }
  size_t cap = 65536;
  uint8_t *buf = malloc(cap);
  if (buf == NULL) {
    perf_error("out of memory");
    status = 1;
  }
  int interrupted = 0;
  double start = perf_now();
  double limit = start + (double)(o->duration_ns + o->omit_ns) / 1e9 + 120.0;
  if (o->limit_bytes || o->limit_pkts) {
    limit = start + 3700.0;
  }
  double out_checked = start;
  while (status == 0) {
    double now = perf_now();
    if (o->json && now - out_checked >= 0.2) {
      perf_check_output(); /* -i 0 -J: no interval calls it */
      out_checked = now;
    }
    if (perf_sig != 0 && !interrupted) {
      interrupted = 1;
      for (int i = 0; i < t.n; i++) {
        perf_stream_interrupt(t.st[i], now, 0);
      }
    }
    int wait = 20, alive = 0;
    for (int i = 0; i < t.n; i++) {
      if (t.st[i]->phase != P_DONE) {
        int w = perf_stream_step(t.st[i], ep, buf, cap, now);
        wait = w < wait ? w : wait;
        alive += t.st[i]->phase != P_DONE;
      }
    }
    perf_test_emit_intervals(&t, 0);
    if (alive == 0 || now > limit) {
      break;
    }
    (void)udccp_endpoint_run(ep, wait);
  }
  perf_test_emit_intervals(&t, 1);
  for (int i = 0; i < t.n; i++) {
    perf_stream *st = t.st[i];
    if (st->err != 0) {
      perf_report_end("test failed", st, st->err);
      status = 1;
    } else if (!st->fin.complete) {
      status = 1;
    }
  }
  if (interrupted) {
    perf_error("%s: test stopped after %.2f s; losses counted are the "
               "confirmed ones only",
               perf_stop_reason(),
               perf_now() - start);
    status = 1;
  }
  udccp_endpoint_stats es;
  udccp_endpoint_get_stats(ep, &es);
  if (o->json) {
    perf_test_json(&t, &es);
  } else if (t.n > 0) {
    perf_test_summary(&t, 1);
    if (o->get_server_output) {
      perf_stream_say(NULL, "\nServer output:\n");
      for (int i = 0; i < t.n; i++) {
        fputs(t.st[i]->out ? t.st[i]->out : "", stdout);
      }
    }
    if (o->verbose) {
      perf_stream_say(NULL, "endpoint: %" PRIu64 " datagrams sent in %" PRIu64
                            " batches, %" PRIu64 " received in %" PRIu64
                            " batches, %" PRIu64 " GSO sends, %" PRIu64
                            " GRO messages, %" PRIu64 " epoll waits\n",
                      es.tx_pkts, es.tx_batches, es.rx_pkts, es.rx_batches,
                      es.tx_gso_sends, es.rx_gro_msgs, es.polls);
    }
    fflush(stdout);
  }
  /* Close every stream at once, then wait for the closes. */
  for (int i = 0; i < t.n; i++) {
    perf_stream *st = t.st[i];
    if (interrupted && !st->got_result && !st->got_end) {
      udccp_abort(st->s);
      st->s = NULL;
    } else if (st->err == 0) {
      (void)udccp_shutdown(st->s);
    }
  }
  for (int i = 0; i < t.n; i++) {
    perf_stream *st = t.st[i];
    int crv = udccp_close(st->s, 3000);
    if (crv != 0 && st->err == 0 && status == 0 && !o->json) {
      fprintf(stderr, "udccp-perf: close: %s\n", udccp_io_strerror(crv));
    }
    perf_stream_free(st);
  }
  free(buf);
  udccp_endpoint_del(ep);
  return status;
}

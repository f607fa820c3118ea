/* SPDX-License-Identifier: MIT */
/*
 * udccp-perf server: accepts connections, learns from each HELLO which
 * test (client run) and stream it is, runs every stream from one event
 * loop per endpoint (--threads N: N endpoints on one UDP port, a thread
 * each), prints interval lines and summaries per stream, [SUM] lines and,
 * with -J, one JSON object per test once all its streams ended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define SRV_MAX_STREAMS 512
#define SRV_MAX_TESTS 64

typedef struct srv {
  const perf_opts *o;
  udccp_endpoint *ep;
  perf_stream *st[SRV_MAX_STREAMS]; /* live streams */
  int n;
  perf_test *tests[SRV_MAX_TESTS];
  int ntests;
  int status, tests_done;
} srv;

static perf_test *test_of(srv *v, perf_stream *st, double now) {
  for (int i = 0; i < v->ntests; i++) {
    if (v->tests[i]->id == st->test_id) {
      return v->tests[i];
    }
  }
  if (v->ntests == SRV_MAX_TESTS) {
    return NULL;
  }
  perf_test *t = calloc(1, sizeof(*t));
  if (t == NULL) {
    return NULL;
  }
  t->id = st->test_id;
  t->nstreams = st->nstreams;
  t->o = v->o;
  t->t_last = now;
  v->tests[v->ntests++] = t;
  return t;
}

/* A stream told its HELLO: joins its test. */
static void joined(srv *v, perf_stream *st, double now) {
  perf_test *t = test_of(v, st, now);
  st->id = st->index + 1;
  if (t == NULL || t->n == 2 * PERF_MAX_STREAMS) {
    perf_error("%s: too many tests at once", st->peer);
    udccp_abort(st->s);
    st->s = NULL;
    st->phase = P_DONE;
    st->err = UDCCP_ERR_NOMEM;
    return;
  }
  t->st[t->n++] = st;
  st->test = t;
  t->t_last = now;
  char pre[32];
  perf_stream_prefix(pre, sizeof(pre), st);
  perf_stream_say(st, "%saccepted %s: %s, %" PRIu64 "-byte datagrams, %.1f s\n",
                  pre, st->peer, st->sender ? "server sends" : "client sends",
                  st->length, (double)st->duration_ns / 1e9);
  /* iperf3: a test that asks for more than the limit does not start */
  uint64_t lim = v->o->srv_limit_bps;
  if (lim != 0 && st->rate_bps != 0 &&
      (double)st->rate_bps * st->nstreams > (double)lim) {
    char why[160];
    snprintf(why, sizeof(why), "the test's bitrate (%d x %.3f Mbit/s) "
             "exceeds the server's limit (%.3f Mbit/s)", st->nstreams,
             (double)st->rate_bps / 1e6, (double)lim / 1e6);
    perf_stream_say(st, "%s%s: %s\n", pre, st->peer, why);
    perf_stream_fail(st, PERF_ERR_LIMIT, why);
  }
}

/* --server-bitrate-limit RATE[/SECS]: once a second, the test's data
 * bytes (both directions, all streams); when the mean over the last SECS
 * seconds exceeds RATE, the test ends (iperf3's "total bitrate limit"). */
static void limit_check(srv *v, perf_test *t, double now) {
  int secs = v->o->srv_limit_secs;
  if (v->o->srv_limit_bps == 0 || now < t->lim_next) {
    return;
  }
  if (t->lim_ring == NULL) {
    t->lim_ring = calloc((size_t)secs + 1, sizeof(uint64_t));
    if (t->lim_ring == NULL) {
      return;
    }
    t->lim_next = now;
  }
  t->lim_next += 1.0;
  uint64_t total = 0;
  int running = 0;
  for (int i = 0; i < t->n; i++) {
    total += t->st[i]->wire_bytes;
    running += t->st[i]->phase == P_RUN;
  }
  t->lim_ring[t->lim_n % (secs + 1)] = total;
  t->lim_n++;
  if (t->lim_n <= secs || !running) {
    return;
  }
  uint64_t then = t->lim_ring[(t->lim_n - 1 - secs) % (secs + 1)];
  double bps = (double)(total - then) * 8 / secs;
  if (bps <= (double)v->o->srv_limit_bps) {
    return;
  }
  char why[160];
  snprintf(why, sizeof(why), "total bitrate %.3f Mbit/s over the last %d s "
           "exceeds the server's limit (%.3f Mbit/s)", bps / 1e6, secs,
           (double)v->o->srv_limit_bps / 1e6);
  perf_stream_say(t->st[0], "%s: %s: test ended\n", t->st[0]->peer, why);
  for (int i = 0; i < t->n; i++) {
    perf_stream_fail(t->st[i], PERF_ERR_LIMIT, why);
  }
}

static int stream_failed(const perf_stream *st) {
  return st->err != 0 && st->err != UDCCP_ERR_CLOSED;
}

/* A test whose streams all ended: its [SUM] or JSON, then freed. */
static int test_finish(srv *v, perf_test *t, double now) {
  int ended = 0;
  for (int i = 0; i < t->n; i++) {
    ended += t->st[i]->phase == P_DONE && t->st[i]->s == NULL;
  }
  if (ended < t->n || (t->n < t->nstreams && now - t->t_last < 3.0)) {
    return 0;
  }
  perf_test_emit_intervals(t, 1);
  if (v->o->json) {
    perf_test_json(t, NULL);
  } else if (t->n > 1) {
    perf_test_summary(t, 0);
  }
  for (int i = 0; i < t->n; i++) {
    v->status |= stream_failed(t->st[i]) && t->st[i]->err != PERF_ERR_LIMIT;
    perf_stream_free(t->st[i]);
  }
  free(t->lim_ring);
  v->tests_done++;
  return 1;
}

static void stream_end(srv *v, perf_stream *st) {
  if (st->test == NULL && st->err == UDCCP_ERR_CLOSED) {
    st->err = PERF_ERR_NO_TEST; /* closed in the HELLO phase */
  }
  if (st->err != 0 && st->err != UDCCP_ERR_CLOSED) {
    char who[120];
    snprintf(who, sizeof(who), "test with %s", st->peer);
    perf_report_end(who, st, st->err);
  }
  if (st->s != NULL) {
    if (st->test != NULL && !st->summarized) {
      perf_stream_flush_intervals(st);
      perf_stream_summary(st);
    }
    if (st->err == PERF_ERR_STOPPED) {
      udccp_abort(st->s);
    } else {
      (void)udccp_close(st->s, 0); /* the endpoint finishes the close */
    }
    st->s = NULL;
  }
  if (st->test == NULL) {
    /* Never joined a test (no HELLO: the client gave up, vanished or
     * reset the connection): a failed test of its own, which ends a -1
     * server as a test that ran would. */
    v->status |= stream_failed(st);
    v->tests_done += st->err != PERF_ERR_STOPPED;
    perf_stream_free(st);
  }
}

/* Worker threads (--threads N) with -1: set when one worker's test has
 * ended, so that the others, which had no part in it or only streams of
 * their own, end too once they hold none (each worker sees only the
 * streams the steering gave it). */
static atomic_int g_once_over;

/* Serves until a signal (or, with -1, one test).  Returns the status. */
static int serve(const perf_opts *o, udccp_endpoint *ep) {
  static _Thread_local srv v;
  memset(&v, 0, sizeof(v));
  v.o = o;
  v.ep = ep;
  size_t cap = 65536;
  uint8_t *buf = malloc(cap);
  if (buf == NULL) {
    perf_error("out of memory");
    return 1;
  }
  int stopped = 0;
  int acceptable = 0;
  double last_busy = perf_now();
  for (;;) {
    double now = perf_now();
    if (v.n > 0 || v.ntests > 0) {
      last_busy = now;
    } else if (o->idle_timeout_s > 0 && now - last_busy > o->idle_timeout_s) {
      perf_stream_say(NULL, "udccp-perf server: no test for %d s "
                            "(--idle-timeout): exiting\n",
                      o->idle_timeout_s);
      break;
    }
    if (perf_sig != 0 && !stopped) {
      stopped = 1;
      for (int i = 0; i < v.n; i++) {
        perf_stream_interrupt(v.st[i], now, 1);
      }
    }
    udccp_sock *s = NULL;
    /* One connection per turn, and only when the loop said one waits:
     * udccp_accept() finding none runs a turn of the endpoint's loop,
     * and two turns between a stream's reads can overrun its receive
     * queue (the datagrams dropped there, Data Dropped). */
    if (acceptable && !stopped && v.n < SRV_MAX_STREAMS &&
        udccp_accept(ep, &s, 0) == 0) {
      perf_stream *st = perf_stream_new(s, 0, 0);
      if (st == NULL) {
        udccp_abort(s);
      } else {
        v.st[v.n++] = st;
      }
    }
    acceptable = 0;
    int wait = 20;
    for (int i = 0; i < v.n; i++) {
      perf_stream *st = v.st[i];
      int was = st->phase;
      int w = perf_stream_step(st, ep, buf, cap, now);
      wait = w < wait ? w : wait;
      if (was == P_HELLO && st->phase != P_HELLO && st->t_start != 0 &&
          st->test == NULL) {
        joined(&v, st, now);
      }
      if (st->phase == P_DONE) {
        stream_end(&v, st);
        v.st[i--] = v.st[--v.n];
      }
    }
    for (int i = 0; i < v.ntests; i++) {
      limit_check(&v, v.tests[i], now);
      perf_test_emit_intervals(v.tests[i], 0);
      if (test_finish(&v, v.tests[i], now)) {
        free(v.tests[i]);
        v.tests[i--] = v.tests[--v.ntests];
      }
    }
    if (stopped && v.n == 0 && v.ntests == 0) {
      break;
    }
    if (o->once && v.n == 0 && v.ntests == 0 &&
        (v.tests_done > 0 || atomic_load(&g_once_over))) {
      atomic_store(&g_once_over, 1);
      break;
    }
    /* The loop's turn; its events tell whether a connection waits (the
     * streams read and write on their own). */
    udccp_event ev[16];
    int ne = udccp_endpoint_events(ep, ev, 16, wait);
    for (int i = 0; i < ne; i++) {
      acceptable |= (ev[i].events & UDCCP_EV_ACCEPTABLE) != 0;
    }
  }
  free(buf);
  if (stopped && v.tests_done == 0 && v.status == 0) {
    return 128 + perf_sig; /* stopped while idle, as before */
  }
  return v.status;
}

typedef struct perf_worker {
  const perf_opts *o;
  udccp_endpoint *ep;
  int status;
} perf_worker;

static void *worker_main(void *arg) {
  perf_worker *w = arg;
  w->status = serve(w->o, w->ep);
  return NULL;
}

static void listening(const perf_opts *o, udccp_endpoint *ep, size_t n) {
  if (o->raw) {
    perf_stream_say(NULL, "udccp-perf server: native DCCP port %u\n",
                    (unsigned)o->port);
  } else if (n > 1) {
    perf_stream_say(NULL, "udccp-perf server: DCCP port %u over UDP port %u, "
                          "%zu worker threads\n",
                    (unsigned)o->port,
                    (unsigned)udccp_endpoint_local_port(ep), n);
  } else {
    perf_stream_say(NULL, "udccp-perf server: DCCP port %u over UDP port %u\n",
                    (unsigned)o->port,
                    (unsigned)udccp_endpoint_local_port(ep));
  }
  if (o->verbose) {
    perf_stream_say(NULL, "udccp-perf %s; bound to %s; socket buffers %d "
                          "bytes\n",
                    UDCCP_VERSION, o->bind ? o->bind : "every local address",
                    o->sockbuf ? o->sockbuf : 4 << 20);
  }
}

/* The error of a failed endpoint, naming the UDP port. */
static int endpoint_error(const perf_opts *o, int rv) {
  if (rv == UDCCP_ERR_ADDRINUSE) {
    perf_error("UDP port %u is already in use by a program that does not "
               "share it; choose another with --udp-port",
               (unsigned)o->udp_port);
  } else if (rv == UDCCP_ERR_PERM && o->raw) {
    perf_error("--raw needs root (or CAP_NET_RAW); run as root or drop "
               "--raw to use DCCP-UDP");
  } else if (rv == UDCCP_ERR_PERM) {
    perf_error("UDP port %u needs privilege: ports below 1024 are root's "
               "(or CAP_NET_BIND_SERVICE); use --udp-port 1024 or above "
               "(default %u) -- --raw is not needed for DCCP-UDP",
               (unsigned)o->udp_port, (unsigned)UDCCP_UDP_PORT_DEFAULT);
  } else if (rv == UDCCP_ERR_RESOLVE) {
    perf_error("-B %s: not a numeric local address", o->bind);
  } else {
    perf_error("cannot open the endpoint on UDP port %u: %s",
               (unsigned)o->udp_port, udccp_io_strerror(rv));
  }
  return 1;
}

static int listen_error(const perf_opts *o, udccp_endpoint *ep, int rv) {
  if (rv == UDCCP_ERR_ADDRINUSE) {
    perf_error("DCCP port %u is already in use on UDP port %u (another "
               "server?); choose another with -p or --udp-port",
               (unsigned)o->port, (unsigned)udccp_endpoint_local_port(ep));
  } else {
    perf_error("listen on DCCP port %u: %s", (unsigned)o->port,
               udccp_io_strerror(rv));
  }
  return 1;
}

int perf_run_server(const perf_opts *o) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.transport = o->raw ? UDCCP_TRANSPORT_RAW : UDCCP_TRANSPORT_UDP;
  cfg.no_offload = (uint8_t)o->no_offload;
  cfg.local_port = o->udp_port;
  cfg.local_host = o->bind;
  /* DCCP-UDP: share the UDP port (6511 by default) with other servers of
   * other DCCP ports (RFC 6773 §3.8), e.g. preloaded programs. */
  cfg.reuseport = (uint8_t)!o->raw;
  cfg.init_cookie = o->cookies;
  cfg.half_open_max = o->half_open;
  cfg.backlog = o->backlog;
  if (o->sockbuf != 0) {
    cfg.sockbuf = o->sockbuf;
  }
  udccp_settings st;
  perf_settings(&st, o->keepalive);
  cfg.settings = &st;
  size_t n = o->threads > 1 ? (size_t)o->threads : 1;
  udccp_endpoint *eps[64];
  int rv = n > 1 ? udccp_endpoint_new_workers(eps, n, &cfg)
                 : udccp_endpoint_new_config(&eps[0], &cfg);
  if (rv != 0) {
    return endpoint_error(o, rv);
  }
  for (size_t k = 0; k < n; k++) {
    udccp_endpoint_set_pcap(eps[k], perf_pcap); /* shared by the workers */
    if (o->tos >= 0 && rv == 0 && udccp_endpoint_set_tos(eps[k], o->tos) != 0) {
      perf_error("-S %d: cannot set the IP TOS / traffic class: %s", o->tos,
                 strerror(errno));
      rv = UDCCP_ERR_SOCKET;
    }
    int brv = 0;
    if (o->bind_dev != NULL && rv == 0 &&
        (brv = udccp_endpoint_bind_device(eps[k], o->bind_dev)) != 0) {
      perf_error("--bind-dev %s: %s", o->bind_dev,
                 brv == UDCCP_ERR_RESOLVE ? "no such network interface"
                                          : strerror(errno));
      rv = brv;
    }
  }
  if (rv != 0) {
    for (size_t k = 0; k < n; k++) {
      udccp_endpoint_del(eps[k]);
    }
    return 1;
  }
  uint32_t code = PERF_SERVICE;
  for (size_t k = 0; k < n && rv == 0; k++) {
    rv = udccp_listen(eps[k], o->port, &code, 1);
  }
  if (rv != 0) {
    listen_error(o, eps[0], rv);
    for (size_t k = 0; k < n; k++) {
      udccp_endpoint_del(eps[k]);
    }
    return 1;
  }
  listening(o, eps[0], n);
  int status = 0;
  if (n == 1) {
    status = serve(o, eps[0]);
  } else {
    perf_worker w[64];
    pthread_t th[64];
    size_t started = 0;
    for (size_t k = 0; k < n; k++) {
      w[k].o = o;
      w[k].ep = eps[k];
      w[k].status = 1;
      if (pthread_create(&th[k], NULL, worker_main, &w[k]) != 0) {
        perf_error("cannot start worker thread %zu of %zu", k + 1, n);
        break;
      }
      started++;
    }
    status = started == n ? 0 : 1;
    for (size_t k = 0; k < started; k++) {
      pthread_join(th[k], NULL);
      status |= w[k].status;
    }
  }
  for (size_t k = 0; k < n; k++) {
    if (o->verbose && !o->json) {
      /* The receiver's side of the client's "endpoint:" line: batches
       * and GRO tell where a loopback run's cost per packet goes. */
      udccp_endpoint_stats es;
      udccp_endpoint_get_stats(eps[k], &es);
      perf_stream_say(NULL, "endpoint: %" PRIu64 " datagrams sent in %"
                            PRIu64 " batches, %" PRIu64 " received in %"
                            PRIu64 " batches, %" PRIu64 " GRO messages "
                            "(%" PRIu64 " packets), %" PRIu64
                            " epoll waits\n",
                      es.tx_pkts, es.tx_batches, es.rx_pkts, es.rx_batches,
                      es.rx_gro_msgs, es.rx_gro_pkts, es.polls);
    }
    udccp_endpoint_del(eps[k]);
  }
  return status;
}

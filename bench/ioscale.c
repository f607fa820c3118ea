/* SPDX-License-Identifier: MIT */
/*
 * udccp-ioscale: the socket runtime at scale (issue 13), for make bench.
 *
 *   udccp-ioscale rtt N [ROUNDS]   RTT of one active connection over
 *       loopback DCCP-UDP while N other connections sit idle on the same
 *       two endpoints (one thread runs both): median of ROUNDS (2000)
 *       one-byte ping-pongs.  Prints "rtt_us=<median> idle=<N>".
 *   udccp-ioscale hs SECONDS [CONCURRENCY]   handshakes over loopback
 *       DCCP-UDP: one server thread accepts and closes, one client thread
 *       keeps CONCURRENCY (256) connections opening at once and closes
 *       each as it opens.  Prints "hs_per_s=<accepted per second>" and
 *       connect_failed (connects refused, e.g. out of local ports: then
 *       the figure is not a handshake rate).
 *   udccp-ioscale mt FLOWS WORKERS SECONDS [pin]   bulk flows
 *       (1200-byte datagrams, CCID 2), one client thread and endpoint
 *       each, into a server of WORKERS threads on one UDP port
 *       (udccp_endpoint_new_workers); flow i is steered to worker
 *       i mod WORKERS.  With "pin", worker k and the flows steered to it
 *       run on CPU k mod (CPUs), so that a worker and its clients share
 *       one core and WORKERS cores are used.  Prints
 *       "goodput_mbps=<aggregate>".
 *
 * Timing figures: compare lines of one run, not runs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <udccp/udccp.h>

#define SVC 77
#define NPORTS 8
/* The handshake test's client closes first, so its side of every cycle
 * sits in TIMEWAIT (RFC 4340 §8.3): one client address has 16,384
 * ephemeral ports per server port, so the server listens on this many
 * ports for the client never to run out within a run (2 M cycles). */
#define HS_NPORTS 128
#define PORT0 7000

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, int rv) {
  fprintf(stderr, "udccp-ioscale: %s: %s\n", what, udccp_io_strerror(rv));
  exit(1);
}

static udccp_endpoint *server(int nports) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.sockbuf = 8 * 1024 * 1024;
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv != 0) {
    die("server endpoint", rv);
  }
  uint32_t code = SVC;
  for (int p = 0; p < nports; p++) {
    rv = udccp_listen(ep, (uint16_t)(PORT0 + p), &code, 1);
    if (rv != 0) {
      die("listen", rv);
    }
  }
  return ep;
}

static udccp_endpoint *client(uint16_t server_udp) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.sockbuf = 8 * 1024 * 1024;
  cfg.remote_udp_port = server_udp;
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv != 0) {
    die("client endpoint", rv);
  }
  return ep;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------ rtt */

static int rtt_main(long n, long rounds) {
  udccp_endpoint *sep = server(NPORTS);
  udccp_endpoint *cep = client(udccp_endpoint_local_port(sep));
  long total = n + 1, nc = 0, na = 0;
  udccp_sock **cs = calloc((size_t)total, sizeof(*cs));
  udccp_sock **ss = calloc((size_t)total, sizeof(*ss));
  double t0 = now_s();
  while (na < total) {
    while (nc < total && nc - na < 1000) {
      int rv = udccp_connect(cep, &cs[nc], "127.0.0.1",
                             (uint16_t)(PORT0 + nc % NPORTS), SVC, 0, 0);
      if (rv != 0) {
        die("connect", rv);
      }
      nc++;
    }
    (void)udccp_endpoint_process(cep);
    (void)udccp_endpoint_process(sep);
    while (na < nc && udccp_accept(sep, &ss[na], 0) == 0) {
      na++;
    }
    if (now_s() - t0 > 600) {
      fprintf(stderr, "udccp-ioscale: only %ld of %ld accepted\n", na, total);
      return 1;
    }
  }
  /* The last accepted pair is the active one; find its client side by
   * its DCCP ports. */
  udccp_sock *as = ss[total - 1], *ac = NULL;
  const udccp_path *sp = udccp_sock_get_path(as);
  for (long i = 0; i < total && ac == NULL; i++) {
    const udccp_path *cp = udccp_sock_get_path(cs[i]);
    if (cp->local_port == sp->remote_port &&
        cp->remote_port == sp->local_port) {
      ac = cs[i];
    }
  }
  if (ac == NULL) {
    fprintf(stderr, "udccp-ioscale: active pair not found\n");
    return 1;
  }
  double *rtt = calloc((size_t)rounds, sizeof(*rtt));
  uint8_t b[8];
  for (long r = 0; r < rounds + 100; r++) {
    double a = now_s();
    if (udccp_send(ac, "p", 1, 1000) != 1) {
      fprintf(stderr, "udccp-ioscale: send failed\n");
      return 1;
    }
    udccp_ssize k;
    while ((k = udccp_recv(as, b, sizeof(b), 0)) == UDCCP_ERR_AGAIN) {
      (void)udccp_endpoint_process(cep);
      (void)udccp_endpoint_run(sep, 1);
    }
    if (k != 1 || udccp_send(as, "q", 1, 1000) != 1) {
      fprintf(stderr, "udccp-ioscale: echo failed (%zd)\n", k);
      return 1;
    }
    while ((k = udccp_recv(ac, b, sizeof(b), 0)) == UDCCP_ERR_AGAIN) {
      (void)udccp_endpoint_process(sep);
      (void)udccp_endpoint_run(cep, 1);
    }
    if (k != 1) {
      fprintf(stderr, "udccp-ioscale: reply failed (%zd)\n", k);
      return 1;
    }
    if (r >= 100) { /* the first 100 warm up */
      rtt[r - 100] = now_s() - a;
    }
  }
  qsort(rtt, (size_t)rounds, sizeof(*rtt), cmp_double);
  printf("rtt_us=%.1f idle=%ld\n", rtt[rounds / 2] * 1e6, n);
  udccp_endpoint_del(cep);
  udccp_endpoint_del(sep);
  free(rtt);
  free(cs);
  free(ss);
  return 0;
}

/* ------------------------------------------------------------ handshakes */

typedef struct hs_state {
  udccp_endpoint *sep;
  volatile int stop;
  long accepted;
} hs_state;

static void *hs_server(void *arg) {
  hs_state *h = arg;
  while (!h->stop) {
    udccp_sock *s;
    int rv = udccp_accept(h->sep, &s, 10);
    if (rv == 0) {
      h->accepted++;
      (void)udccp_close(s, 0);
    }
  }
  return NULL;
}

static int hs_main(double secs, long conc) {
  hs_state h;
  memset(&h, 0, sizeof(h));
  h.sep = server(HS_NPORTS);
  udccp_endpoint *cep = client(udccp_endpoint_local_port(h.sep));
  pthread_t th;
  if (pthread_create(&th, NULL, hs_server, &h) != 0) {
    return 1;
  }
  udccp_sock **cs = calloc((size_t)conc, sizeof(*cs));
  long opened = 0, started = 0, refused = 0;
  double t0 = now_s(), tend = t0 + secs;
  uint32_t next = 0;
  while (now_s() < tend) {
    for (long i = 0; i < conc; i++) {
      if (cs[i] == NULL) {
        int rv = udccp_connect(cep, &cs[i], "127.0.0.1",
                               (uint16_t)(PORT0 + next++ % HS_NPORTS), SVC, 0,
                               0);
        if (rv != 0) {
          cs[i] = NULL;
          refused++; /* e.g. no free local port: the run is port-bound */
          continue;
        }
        started++;
      }
    }
    (void)udccp_endpoint_run(cep, 1);
    for (long i = 0; i < conc; i++) {
      if (cs[i] == NULL) {
        continue;
      }
      int st = udccp_sock_state(cs[i]);
      if (st >= UDCCP_STATE_PARTOPEN && st != UDCCP_STATE_TIMEWAIT &&
          udccp_sock_error(cs[i]) == 0) {
        opened++;
        (void)udccp_close(cs[i], 0);
        cs[i] = NULL;
      } else if (udccp_sock_error(cs[i]) != 0) {
        udccp_abort(cs[i]);
        cs[i] = NULL;
      }
    }
  }
  double dt = now_s() - t0;
  h.stop = 1;
  pthread_join(th, NULL);
  /* System calls per handshake that moved packets (issue 13): sendmmsg
   * and recvmmsg calls of each side per accepted connection. */
  udccp_endpoint_stats cst, sst;
  udccp_endpoint_get_stats(cep, &cst);
  udccp_endpoint_get_stats(h.sep, &sst);
  double acc = h.accepted > 0 ? (double)h.accepted : 1.0;
  printf("hs_per_s=%.0f opened=%ld accepted=%ld started=%ld secs=%.2f "
         "srv_tx_batches_per_hs=%.2f srv_rx_batches_per_hs=%.2f "
         "cli_tx_batches_per_hs=%.2f cli_rx_batches_per_hs=%.2f "
         "pkts_per_hs=%.2f connect_failed=%ld\n",
         (double)h.accepted / dt, opened, h.accepted, started, dt,
         (double)sst.tx_batches / acc, (double)sst.rx_batches / acc,
         (double)cst.tx_batches / acc, (double)cst.rx_batches / acc,
         (double)(sst.tx_pkts + cst.tx_pkts) / acc, refused);
  for (long i = 0; i < conc; i++) {
    if (cs[i] != NULL) {
      udccp_abort(cs[i]);
    }
  }
  udccp_endpoint_del(cep);
  udccp_endpoint_del(h.sep);
  free(cs);
  return 0;
}

/* ------------------------------------------------------- worker scaling */

#define MT_MAX 8

typedef struct mt_worker {
  udccp_endpoint *ep;
  int cpu; /* -1: not pinned */
  volatile int stop;
  volatile uint64_t bytes; /* received while counting */
  volatile int counting;
} mt_worker;

/* Run the calling thread on CPU cpu only (cpu < 0: anywhere). */
static void pin_to(int cpu) {
  if (cpu < 0) {
    return;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *mt_server(void *arg) {
  mt_worker *w = arg;
  pin_to(w->cpu);
  udccp_sock *socks[MT_MAX];
  int n = 0;
  static _Thread_local uint8_t buf[65536];
  while (!w->stop) {
    udccp_sock *s;
    if (n < MT_MAX && udccp_accept(w->ep, &s, n == 0 ? 20 : 0) == 0) {
      socks[n++] = s;
    }
    int got = 0;
    for (int i = 0; i < n; i++) {
      udccp_ssize r;
      while ((r = udccp_recv(socks[i], buf, sizeof(buf), 0)) > 0) {
        if (w->counting) {
          w->bytes += (uint64_t)r;
        }
        got = 1;
      }
    }
    if (!got && n > 0) {
      (void)udccp_endpoint_run(w->ep, 5);
    }
  }
  for (int i = 0; i < n; i++) {
    udccp_abort(socks[i]);
  }
  return NULL;
}

typedef struct mt_flow {
  uint16_t udp_port;
  int cpu;
  uint32_t worker, nworkers;
  volatile int stop;
  int rv;
} mt_flow;

static void *mt_client(void *arg) {
  mt_flow *f = arg;
  pin_to(f->cpu);
  udccp_endpoint *ep = client(f->udp_port);
  udccp_sock *s = NULL;
  /* A connection the steering rule gives to our worker: (client DCCP
   * port XOR server DCCP port) mod n, as udccp_endpoint_new_workers()
   * documents. */
  for (int k = 0; k < 200; k++) {
    f->rv = udccp_connect(ep, &s, "127.0.0.1", PORT0, SVC, 0, 5000);
    if (f->rv != 0) {
      break;
    }
    const udccp_path *p = udccp_sock_get_path(s);
    if ((uint32_t)(p->local_port ^ p->remote_port) % f->nworkers ==
        f->worker) {
      break;
    }
    udccp_abort(s);
    s = NULL;
  }
  if (s == NULL) {
    f->rv = f->rv ? f->rv : -1;
    udccp_endpoint_del(ep);
    return NULL;
  }
  static _Thread_local uint8_t buf[1200];
  memset(buf, 0x5a, sizeof(buf));
  while (!f->stop) {
    if (udccp_send_more(s, buf, sizeof(buf), 100) < 0 &&
        udccp_sock_error(s) != 0) {
      f->rv = udccp_sock_error(s);
      break;
    }
  }
  udccp_abort(s);
  udccp_endpoint_del(ep);
  return NULL;
}

static int mt_main(int flows, int workers, double secs, int pin) {
  if (flows < 1 || flows > MT_MAX || workers < 1 || workers > MT_MAX) {
    return 2;
  }
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  if (ncpu < 1) {
    ncpu = 1;
  }
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  udccp_endpoint *eps[MT_MAX];
  int rv = udccp_endpoint_new_workers(eps, (size_t)workers, &cfg);
  if (rv != 0) {
    die("workers", rv);
  }
  uint32_t code = SVC;
  mt_worker w[MT_MAX];
  pthread_t wt[MT_MAX], ct[MT_MAX];
  mt_flow fl[MT_MAX];
  for (int k = 0; k < workers; k++) {
    memset(&w[k], 0, sizeof(w[k]));
    w[k].ep = eps[k];
    w[k].cpu = pin ? (int)(k % ncpu) : -1;
    if ((rv = udccp_listen(eps[k], PORT0, &code, 1)) != 0) {
      die("listen", rv);
    }
    pthread_create(&wt[k], NULL, mt_server, &w[k]);
  }
  for (int i = 0; i < flows; i++) {
    memset(&fl[i], 0, sizeof(fl[i]));
    fl[i].udp_port = udccp_endpoint_local_port(eps[0]);
    fl[i].worker = (uint32_t)(i % workers);
    fl[i].nworkers = (uint32_t)workers;
    fl[i].cpu = w[i % workers].cpu;
    pthread_create(&ct[i], NULL, mt_client, &fl[i]);
  }
  /* One second to connect and ramp up, then count. */
  struct timespec one = {1, 0};
  nanosleep(&one, NULL);
  for (int k = 0; k < workers; k++) {
    w[k].counting = 1;
  }
  double t0 = now_s();
  struct timespec d = {(time_t)secs,
                       (long)((secs - (double)(time_t)secs) * 1e9)};
  nanosleep(&d, NULL);
  uint64_t total = 0;
  for (int k = 0; k < workers; k++) {
    w[k].counting = 0;
  }
  double dt = now_s() - t0;
  for (int k = 0; k < workers; k++) {
    total += w[k].bytes;
  }
  for (int i = 0; i < flows; i++) {
    fl[i].stop = 1;
    pthread_join(ct[i], NULL);
  }
  for (int k = 0; k < workers; k++) {
    w[k].stop = 1;
    pthread_join(wt[k], NULL);
    udccp_endpoint_del(eps[k]);
  }
  int bad = 0;
  for (int i = 0; i < flows; i++) {
    bad |= fl[i].rv != 0;
  }
  printf("goodput_mbps=%.1f flows=%d workers=%d%s%s\n",
         (double)total * 8 / dt / 1e6, flows, workers, pin ? " pinned" : "",
         bad ? " (a flow failed)" : "");
  return bad;
}

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[1], "mt") == 0) {
    return mt_main(atoi(argv[2]), atoi(argv[3]), atof(argv[4]),
                   argc > 5 && strcmp(argv[5], "pin") == 0);
  }
  if (argc >= 3 && strcmp(argv[1], "rtt") == 0) {
    return rtt_main(atol(argv[2]), argc > 3 ? atol(argv[3]) : 2000);
  }
  if (argc >= 3 && strcmp(argv[1], "hs") == 0) {
    return hs_main(atof(argv[2]), argc > 3 ? atol(argv[3]) : 256);
  }
  fprintf(stderr, "usage: udccp-ioscale rtt N [ROUNDS] | hs SECONDS "
                  "[CONCURRENCY] | mt FLOWS WORKERS SECONDS [pin]\n");
  return 2;
}

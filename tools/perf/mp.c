/* SPDX-License-Identifier: MIT */
/*
 * udccp-perf --multipath: one Multipath DCCP connection (RFC 9897, the
 * udccp_mpsock of udccp.h) from the client's local addresses to the
 * server, the client sending for -t seconds as fast as the subflows'
 * CCIDs allow (or at -b).  A line per interval and path: what the
 * scheduler gave the path, its RTT, cwnd and share; at the end the
 * receiver's counts, per path too.
 *
 *   client -> server  DATA     sequence number, send time (perf.h)
 *   client -> server  MPEND    sent datagrams and bytes; repeated until
 *   server -> client  MPRESULT received datagrams, bytes, the receiving
 *                              time, and per subflow: the client's address
 *                              (family, 16 bytes), datagrams, bytes
 *
 * A server without multipath answers with plain DCCP (§3.6 fallback): a
 * plain udccp-perf server does not speak this exchange, so the client
 * then reports the fallback and what it sent.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define M_MPEND 20
#define M_MPRESULT 21
#define MP_PATHS UDCCP_MP_SUBFLOWS_MAX
#define MP_RES_HDR 32 /* MPRESULT: header, pkts, bytes, duration ns */
#define MP_RES_PATH 33 /* family, address, datagrams, bytes */

static const char *sched_name(int s) {
  return s == UDCCP_MP_SCHED_BACKUP ? "backup"
         : s == UDCCP_MP_SCHED_RR   ? "rr"
         : s == UDCCP_MP_SCHED_REDUNDANT ? "redundant"
                                    : "minrtt";
}

static void addr_str(char *b, size_t cap, uint8_t family, const uint8_t *a) {
  if (inet_ntop(family == UDCCP_AF_INET ? AF_INET : AF_INET6, a, b,
                (socklen_t)cap) == NULL) {
    snprintf(b, cap, "?");
  }
}

static udccp_endpoint *mp_endpoint(const perf_opts *o, int server) {
  udccp_endpoint_config cfg;
  udccp_settings st;
  udccp_endpoint *ep = NULL;
  udccp_endpoint_config_default(&cfg);
  cfg.transport = UDCCP_TRANSPORT_UDP;
  cfg.no_offload = (uint8_t)o->no_offload;
  cfg.remote_udp_port = o->udp_port;
  cfg.local_host = server ? o->bind : NULL; /* a client: every address */
  cfg.local_port = server ? o->udp_port : o->cport;
  if (o->sockbuf != 0) {
    cfg.sockbuf = o->sockbuf;
  }
  perf_settings(&st, o->keepalive);
  st.multipath = 1;
  /* A subflow silent for a while is a dead path to route around, not a
   * connection to reset (keepalive still ends a vanished peer; the server
   * ends a silent test itself, PERF_IDLE_S). */
  st.idle_timeout = 0;
  cfg.settings = &st;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv != 0) {
    perf_error("cannot open the endpoint: %s", udccp_io_strerror(rv));
    return NULL;
  }
  udccp_endpoint_set_pcap(ep, perf_pcap);
  return ep;
}

/* --------------------------------------------------------------- client */

typedef struct mp_path_fin {
  uint64_t rx_pkts, rx_bytes;
  int set;
} mp_path_fin;

static void print_iv(const perf_opts *o, const udccp_mp_info *mi,
                     const uint64_t *prev, double t0, double t1) {
  uint64_t sum = 0;
  for (int i = 0; i < mi->n_subflows; i++) {
    const udccp_mp_subflow_info *s = &mi->sub[i];
    char la[64], ra[64];
    uint64_t d = s->tx_bytes - prev[i];
    sum += d;
    if (o->json) {
      continue;
    }
    addr_str(la, sizeof(la), s->path.family, s->path.local_addr);
    addr_str(ra, sizeof(ra), s->path.family, s->path.remote_addr);
    printf("[P%d] %5.2f-%5.2f s  %s -> %s  %7.2f Mbit/s  rtt %6.2f ms  "
           "cwnd %4u  share %5.1f %%%s\n",
           i + 1, t0, t1, la, ra, (double)d * 8 / (t1 - t0) / 1e6,
           (double)s->srtt / 1e6, s->cwnd, s->share_permille / 10.0,
           s->dead ? "  (dead)" : "");
  }
  if (!o->json) {
    printf("[MP] %5.2f-%5.2f s  %7.2f Mbit/s sent over %d path%s\n", t0, t1,
           (double)sum * 8 / (t1 - t0) / 1e6, mi->n_subflows,
           mi->n_subflows == 1 ? "" : "s");
    fflush(stdout);
  }
}

static int client_loop(const perf_opts *o, udccp_endpoint *ep,
                       udccp_mpsock *m, uint64_t *sent_pkts,
                       uint64_t *sent_bytes, double *dur) {
  uint8_t *buf = calloc(1, 65536);
  uint64_t prev[MP_PATHS] = {0};
  udccp_mp_info mi;
  double t_start = perf_now(), t_iv = t_start, now = t_start;
  double iv = o->interval_ns ? (double)o->interval_ns / 1e9 : 1.0;
  double end = t_start + (double)o->duration_ns / 1e9;
  size_t len = o->length ? (size_t)o->length : 1200;
  uint64_t seq = 0;
  int rv = 0;
  if (buf == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  while (now < end && !perf_sig) {
    /* -b: the datagrams due by now; else as many as the queue takes */
    double due = o->rate_bps ? (now - t_start) * (double)o->rate_bps / 8 /
                                   (double)len
                             : 1e18;
    for (int k = 0; k < 256 && (double)seq < due; k++) {
      perf_msg_init(buf, M_DATA);
      perf_put64(buf + 8, seq);
      perf_put64(buf + 16, (uint64_t)(now * 1e9));
      udccp_ssize n = udccp_mpsock_send(m, buf, len, 0);
      if (n == UDCCP_ERR_AGAIN) {
        break;
      }
      if (n < 0) {
        perf_error("sending: %s", udccp_io_strerror((int)n));
        rv = (int)n;
        goto out;
      }
      seq++;
      *sent_bytes += len;
    }
    (void)udccp_endpoint_run(ep, 1);
    now = perf_now();
    if (now - t_iv >= iv) {
      udccp_mpsock_get_info(m, &mi);
      print_iv(o, &mi, prev, t_iv - t_start, now - t_start);
      for (int i = 0; i < mi.n_subflows; i++) {
        prev[i] = mi.sub[i].tx_bytes;
      }
      t_iv = now;
    }
  }
out:
  *sent_pkts = seq;
  *dur = perf_now() - t_start;
  free(buf);
  return rv;
}

/* MPEND until MPRESULT (3 s at most); fills the receiver's figures. */
static int client_result(udccp_endpoint *ep, udccp_mpsock *m,
                         uint64_t sent_pkts, uint64_t sent_bytes,
                         uint64_t *rpkts, uint64_t *rbytes, double *rdur,
                         const udccp_mp_info *mi, mp_path_fin *pf) {
  uint8_t b[512];
  double end = perf_now() + 3, next = 0;
  while (perf_now() < end) {
    if (perf_now() >= next) {
      perf_msg_init(b, M_MPEND);
      perf_put64(b + 8, sent_pkts);
      perf_put64(b + 16, sent_bytes);
      (void)udccp_mpsock_send(m, b, 24, 0);
      next = perf_now() + 0.2;
    }
    udccp_ssize n = udccp_mpsock_recv(m, b, sizeof(b), 50);
    if (n < 0 && n != UDCCP_ERR_AGAIN) {
      return (int)n;
    }
    if (perf_msg_type(b, n) != M_MPRESULT || n < MP_RES_HDR) {
      continue;
    }
    *rpkts = perf_get64(b + 8);
    *rbytes = perf_get64(b + 16);
    *rdur = (double)perf_get64(b + 24) / 1e9;
    for (size_t off = MP_RES_HDR; off + MP_RES_PATH <= (size_t)n;
         off += MP_RES_PATH) {
      for (int i = 0; i < mi->n_subflows; i++) {
        if (b[off] == mi->sub[i].path.family &&
            memcmp(b + off + 1, mi->sub[i].path.local_addr, 16) == 0) {
          pf[i].rx_pkts = perf_get64(b + off + 17);
          pf[i].rx_bytes = perf_get64(b + off + 25);
          pf[i].set = 1;
        }
      }
    }
    (void)ep;
    return 0;
  }
  return UDCCP_ERR_TIMEOUT;
}

int perf_mp_client(const perf_opts *o) {
  const char *local[MP_PATHS];
  char list[512];
  size_t n = 0;
  udccp_mpsock *m = NULL;
  udccp_mp_info mi;
  mp_path_fin pf[MP_PATHS];
  uint64_t sp = 0, sb = 0, rp = 0, rb = 0;
  double dur = 0, rdur = 0;
  memset(pf, 0, sizeof(pf));
  if (o->mp_local != NULL) {
    snprintf(list, sizeof(list), "%s", o->mp_local);
    for (char *save = NULL, *t = strtok_r(list, ",", &save);
         t != NULL && n < MP_PATHS; t = strtok_r(NULL, ",", &save)) {
      local[n++] = t;
    }
  }
  udccp_endpoint *ep = mp_endpoint(o, 0);
  if (ep == NULL) {
    return 1;
  }
  int rv = udccp_mpsock_connect(ep, &m, o->host, o->port, PERF_SERVICE,
                                o->ccid, local, n, o->connect_timeout_ms);
  if (rv != 0) {
    perf_error("cannot open a multipath connection to %s DCCP port %u "
               "(UDP port %u)%s: %s",
               o->host, (unsigned)o->port, (unsigned)o->udp_port,
               n ? " from the addresses given" : "", udccp_io_strerror(rv));
    udccp_endpoint_del(ep);
    return 1;
  }
  size_t mps = udccp_sock_get_mps(udccp_mpsock_subflow(m, 0));
  if (o->length > mps) {
    perf_error("-l %" PRIu64 ": larger than the largest datagram the path "
               "takes (%zu bytes); use -l %zu or less",
               o->length, mps, mps);
    (void)udccp_mpsock_close(m, 0);
    udccp_endpoint_del(ep);
    return 1;
  }
  (void)udccp_mpsock_set_sched(m, o->mp_sched);
  if (o->mp_sched == UDCCP_MP_SCHED_BACKUP) {
    for (size_t i = 1; i < n; i++) {
      (void)udccp_mpsock_set_prio(m, i, 1); /* standby (§3.2.10) */
    }
  }
  if (!o->json) {
    printf("multipath connection to %s port %u: %zu local address%s, "
           "scheduler %s\n",
           o->host, (unsigned)o->port, n ? n : 1, n == 1 ? "" : "es",
           sched_name(o->mp_sched));
  }
  rv = client_loop(o, ep, m, &sp, &sb, &dur);
  udccp_mpsock_get_info(m, &mi);
  int res = UDCCP_ERR_INVALID_STATE;
  if (rv == 0 && mi.active) {
    res = client_result(ep, m, sp, sb, &rp, &rb, &rdur, &mi, pf);
  }
  udccp_mpsock_get_info(m, &mi);
  double rtt = 0;
  uint64_t lost_ccid = 0;
  for (int i = 0; i < mi.n_subflows; i++) {
    rtt += (double)mi.sub[i].srtt / 1e6 / mi.n_subflows;
    lost_ccid += mi.sub[i].pkts_lost;
  }
  double gp = res == 0 && rdur > 0 ? (double)rb * 8 / rdur : 0;
  uint64_t lost = res == 0 && sp > rp ? sp - rp : 0;
  if (o->json) {
    printf("{\"multipath\": {\"active\": %d, \"scheduler\": \"%s\", "
           "\"result\": %s, \"paths\": [",
           mi.active, sched_name(mi.sched), res == 0 ? "true" : "false");
    for (int i = 0; i < mi.n_subflows; i++) {
      const udccp_mp_subflow_info *s = &mi.sub[i];
      char la[64], ra[64];
      addr_str(la, sizeof(la), s->path.family, s->path.local_addr);
      addr_str(ra, sizeof(ra), s->path.family, s->path.remote_addr);
      printf("%s{\"local\": \"%s\", \"remote\": \"%s\", \"joined\": %u, "
             "\"sent_pkts\": %" PRIu64 ", \"sent_bytes\": %" PRIu64
             ", \"received_pkts\": %" PRIu64 ", \"received_bytes\": %" PRIu64
             ", \"goodput_bps\": %.0f, \"share\": %.3f, \"rtt_ms\": %.3f, "
             "\"cwnd\": %u, \"rate_bps\": %" PRIu64 ", \"ccid_lost_pkts\": %"
             PRIu64 ", \"loss_rate\": %.5f, \"deaths\": %" PRIu64
             ", \"revivals\": %" PRIu64 "}",
             i ? ", " : "", la, ra, s->joined, s->tx_dgrams, s->tx_bytes,
             pf[i].rx_pkts, pf[i].rx_bytes,
             rdur > 0 ? (double)pf[i].rx_bytes * 8 / rdur : 0.0,
             s->share_permille / 1000.0, (double)s->srtt / 1e6, s->cwnd,
             s->rate_bps, s->pkts_lost,
             s->data_pkts_sent ? (double)s->pkts_lost / s->data_pkts_sent
                               : 0.0,
             s->deaths, s->revivals);
    }
    printf("]}, \"ccid\": %u, \"duration_s\": %.3f, \"sent_pkts\": %" PRIu64
           ", \"sent_bytes\": %" PRIu64 ", \"received_pkts\": %" PRIu64
           ", \"received_bytes\": %" PRIu64 ", \"lost_pkts\": %" PRIu64
           ", \"ccid_lost_pkts\": %" PRIu64 ", \"goodput_bps\": %.0f, "
           "\"rtt_ms\": %.3f, \"loss_rate\": %.5f}\n",
           mi.n_subflows ? mi.sub[0].ccid : 0, dur, sp, sb, rp, rb, lost,
           lost_ccid, gp, rtt, sp ? (double)lost / (double)sp : 0.0);
  } else {
    printf("[MP] sender    0.00-%5.2f s  %7.2f Mbit/s  %" PRIu64
           " datagrams\n",
           dur, (double)sb * 8 / dur / 1e6, sp);
    if (res == 0) {
      printf("[MP] receiver 0.00-%5.2f s  %7.2f Mbit/s  %" PRIu64
             " datagrams, %" PRIu64 " lost (%.2f %%)\n",
             rdur, gp / 1e6, rp, lost, sp ? 100.0 * lost / sp : 0.0);
    } else if (!mi.active) {
      printf("[MP] the server did not agree to Multipath DCCP: plain DCCP "
             "(RFC 9897 §3.6 fallback); a multipath server is "
             "udccp-perf -s --multipath\n");
    } else {
      printf("[MP] no result from the server\n");
    }
    for (int i = 0; i < mi.n_subflows; i++) {
      const udccp_mp_subflow_info *s = &mi.sub[i];
      char la[64], ra[64];
      addr_str(la, sizeof(la), s->path.family, s->path.local_addr);
      addr_str(ra, sizeof(ra), s->path.family, s->path.remote_addr);
      printf("[P%d] %s -> %s  sent %" PRIu64 " (share %.1f %%), received %"
             PRIu64 " = %.2f Mbit/s, rtt %.2f ms, cwnd %u, CCID losses %"
             PRIu64 "%s\n",
             i + 1, la, ra, s->tx_dgrams, s->share_permille / 10.0,
             pf[i].rx_pkts,
             rdur > 0 ? (double)pf[i].rx_bytes * 8 / rdur / 1e6 : 0.0,
             (double)s->srtt / 1e6, s->cwnd, s->pkts_lost,
             s->deaths ? "  (was dead)" : "");
    }
  }
  (void)udccp_mpsock_close(m, 2000);
  udccp_endpoint_del(ep);
  return rv == 0 && (res == 0 || !mi.active) ? 0 : 1;
}

/* --------------------------------------------------------------- server */

static void server_result(udccp_mpsock *m, uint64_t pkts, uint64_t bytes,
                          double t_first, double t_last) {
  uint8_t b[MP_RES_HDR + MP_PATHS * MP_RES_PATH];
  udccp_mp_info mi;
  size_t off = MP_RES_HDR;
  udccp_mpsock_get_info(m, &mi);
  perf_msg_init(b, M_MPRESULT);
  perf_put64(b + 8, pkts);
  perf_put64(b + 16, bytes);
  perf_put64(b + 24, (uint64_t)((t_last - t_first) * 1e9));
  for (int i = 0; i < mi.n_subflows; i++, off += MP_RES_PATH) {
    b[off] = mi.sub[i].path.family;
    memcpy(b + off + 1, mi.sub[i].path.remote_addr, 16);
    perf_put64(b + off + 17, mi.sub[i].rx_dgrams);
    perf_put64(b + off + 25, mi.sub[i].rx_bytes);
  }
  (void)udccp_mpsock_send(m, b, off, 100);
}

static void serve_one(const perf_opts *o, udccp_mpsock *m) {
  uint8_t *buf = malloc(65536);
  uint64_t pkts = 0, bytes = 0;
  double t_first = 0, t_last = 0, t_end = 0, idle = perf_now();
  int ended = 0;
  udccp_mp_info mi;
  if (buf == NULL) {
    return;
  }
  while (!perf_sig) {
    udccp_ssize n = udccp_mpsock_recv(m, buf, 65536, 100);
    double now = perf_now();
    if (n == UDCCP_ERR_AGAIN) {
      if (now - idle > PERF_IDLE_S || (ended && now - t_end > 3)) {
        break;
      }
      continue;
    }
    if (n < 0) {
      break; /* closed by the client */
    }
    idle = now;
    int t = perf_msg_type(buf, n);
    if (t == M_DATA) {
      if (pkts == 0) {
        t_first = now;
      }
      pkts++;
      bytes += (uint64_t)n;
      t_last = now;
    } else if (t == M_MPEND) {
      ended = 1;
      t_end = now;
      server_result(m, pkts, bytes, t_first, t_last);
    }
  }
  udccp_mpsock_get_info(m, &mi);
  if (!o->json) {
    double d = t_last > t_first ? t_last - t_first : 1;
    printf("[MP] received %" PRIu64 " datagrams, %.2f Mbit/s over %d "
           "subflow%s (%s)\n",
           pkts, (double)bytes * 8 / d / 1e6, mi.n_subflows,
           mi.n_subflows == 1 ? "" : "s",
           mi.active ? "multipath" : "plain DCCP");
    for (int i = 0; i < mi.n_subflows; i++) {
      char ra[64];
      addr_str(ra, sizeof(ra), mi.sub[i].path.family,
               mi.sub[i].path.remote_addr);
      printf("[P%d] from %s: %" PRIu64 " datagrams, %.2f Mbit/s\n", i + 1,
             ra, mi.sub[i].rx_dgrams,
             (double)mi.sub[i].rx_bytes * 8 / d / 1e6);
    }
    fflush(stdout);
  }
  free(buf);
}

int perf_mp_server(const perf_opts *o) {
  static const uint32_t svc = PERF_SERVICE;
  udccp_endpoint *ep = mp_endpoint(o, 1);
  if (ep == NULL) {
    return 1;
  }
  int rv = udccp_listen(ep, o->port, &svc, 1);
  if (rv != 0) {
    perf_error("cannot listen on DCCP port %u: %s", (unsigned)o->port,
               udccp_io_strerror(rv));
    udccp_endpoint_del(ep);
    return 1;
  }
  if (!o->json) {
    printf("udccp-perf multipath server on UDP port %u, DCCP port %u\n",
           (unsigned)udccp_endpoint_local_port(ep), (unsigned)o->port);
    fflush(stdout);
  }
  while (!perf_sig) {
    udccp_mpsock *m = NULL;
    if (udccp_mpsock_accept(ep, &m, 500) != 0) {
      continue;
    }
    serve_one(o, m);
    (void)udccp_mpsock_close(m, 1000);
    if (o->once) {
      break;
    }
  }
  udccp_endpoint_del(ep);
  return 0;
}

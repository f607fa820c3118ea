/* SPDX-License-Identifier: MIT */
/*
 * Multipath udccp flows (RFC 9897): one MP-DCCP connection with a subflow
 * on every path of --paths, each a real udccp connection with its own
 * CCID (§3.8), driven like sim/flow_udccp.c drives a single one.  The
 * client's MP connection (lib/mp_conn.c) numbers datagrams (MP_SEQ,
 * §3.2.5) and spreads them by the scheduler of --mp-sched; the server's
 * puts them back in MP_SEQ order (unless --mp-no-reorder) with the bound
 * from the paths' RTTs, as io/mp.c does.
 *
 * The first subflow runs on path 0 (MP_CAPABLE and MP_KEY, §3.3); once it
 * is OPEN ("Host A waits for the final DCCP-Ack from Host B before
 * starting any establishment of additional subflow connections", §3.3)
 * the client joins one subflow per further path with MP_JOIN; the server
 * has a passive connection waiting on each path and finds the MP-DCCP
 * connection a join names by its CI (the resolver).  At the stop the
 * client closes with MP_CLOSE on every subflow (§3.2.11).
 *
 * The sender is greedy, or writes at the rate of :app (the options pause
 * and slow reader are not used by multipath flows).  Per path: the bytes
 * received
 * over it, the datagrams the scheduler gave it, its RTT and window, its
 * deaths and revivals (sim_path_result).
 */
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "mp.h"
#include "mp_conn.h"
#include "sim_flow.h"
#include "sim_rng.h"

#define MFLOW_SERVICE_CODE 5001u
#define MFLOW_MAX_BURST 65536   /* packets one end writes at one instant */
#define MFLOW_MAX_STUCK 100000  /* wakeups with the expiry in the past */
#define MFLOW_QLEN 128          /* connection-level send queue (io/mp.c) */
/* The receiver's queue: its reordering window is 4 x this many datagrams
 * (lib/mp_conn.c).  It must hold what the fast paths deliver while the
 * slowest one's datagram is on its way: 70 Mbit/s of 1200-byte datagrams
 * with 100 ms between the paths' delays is ~730; 4096 keeps 1 Gbit/s
 * paths 50 ms apart (io/mp.c has the same window).  Its memory follows
 * what is held (lib/mp_reorder.h).  A datagram pushed out of a full window
 * is given up (counted in mp_late_dropped when it comes). */
#define MFLOW_RX_QLEN 1024
#define MFLOW_DGRAM_MAX 1500
/* Reordering bound before the paths' RTTs are known, and its floor (as
 * io/mp.c). */
#define MFLOW_BOUND_DEFAULT (200 * UDCCP_NS_PER_MS)
#define MFLOW_BOUND_MIN (20 * UDCCP_NS_PER_MS)

enum { MT_START = 0, MT_PUMP = 1 };

typedef struct mpath {
  udccp_conn *c, *s;       /* client subflow (NULL until made), server */
  udccp_path pc, ps;
  int established;         /* the client subflow reached OPEN */
  uint64_t rx_bytes_stop;  /* rx.st[k].rx_bytes at the stop */
  udccp_conn_info info;    /* the client subflow's, at the stop */
  int have_info;
} mpath;

typedef struct mflow {
  mpath p[SIM_MAX_PATHS];
  uint32_t n;
  udccp_settings set_c, set_s;
  sim_rng rng_c, rng_s;
  udccp_mp_conn tx, rx;
  int tx_ok, rx_ok;
  int started, closing, established, broken;
  udccp_tstamp established_at;
  uint32_t dgram;
  uint64_t last_seq, disorder, stuck, placed;
  int have_last;
  /* application-limited sender (f->app_rate_bps): bytes queued since
   * app_base, and when the next datagram is due (sim/flow_udccp.c) */
  udccp_tstamp app_base, app_next;
  uint64_t app_queued;
  int app_based;
  uint8_t buf[MFLOW_DGRAM_MAX];
} mflow;

static void mflow_rand(uint8_t *dest, size_t len, void *user_data) {
  sim_rng_bytes(user_data, dest, len);
}

/* The server's MP connection by CI: the first subflow's keys; a join
 * while closing or past the subflow limit gets the verdict of §3.2.11 /
 * §3.10. */
static int resolve(void *ud, uint32_t ci, udccp_mp_keys *out) {
  mflow *m = ud;
  udccp_conn *s0 = m->p[0].s;
  if (s0 == NULL || s0->mp == NULL || s0->mp->keys.local_ci != ci) {
    return 0;
  }
  int v = udccp_mp_conn_join_verdict(&m->rx);
  if (v != 1) {
    return v;
  }
  *out = s0->mp->keys;
  return 1;
}

static void fail(sim_flow *f, mflow *m, const char *what) {
  m->broken = 1;
  snprintf(f->err, sizeof(f->err), "%s", what);
}

static void write_all(sim_flow *f, mflow *m, udccp_conn *c, uint32_t k,
                      int server, udccp_tstamp now) {
  for (int i = 0; i < MFLOW_MAX_BURST; i++) {
    sim_pkt *p = sim_flow_pkt_new(f);
    if (p == NULL) {
      return;
    }
    uint8_t ecn = 0;
    udccp_ssize n = udccp_conn_write_pkt(c, p->data, SIM_PKT_CAP, &ecn, now);
    if (n <= 0) {
      sim_flow_pkt_free(f, p);
      return;
    }
    p->len = (uint16_t)n;
    p->wire_len = (uint32_t)n + 20; /* IPv4 header */
    p->ecn = ecn;
    p->path = (uint8_t)k;
    p->dir = server ? SIM_DIR_REV : SIM_DIR_FWD;
    if (!server && n > 8) {
      uint8_t type = (p->data[8] >> 1) & 0x0F; /* RFC 4340 §5.1 */
      if (type == UDCCP_PKT_DATA || type == UDCCP_PKT_DATAACK) {
        f->sent_pkts++;
      }
    }
    sim_flow_xmit(f, p, now);
  }
  fail(f, m, "udccp_conn_write_pkt gave more than 65536 packets at one "
             "instant: flow abandoned");
}

/* §3.3: joins once the first subflow is OPEN, one per further path. */
static void maybe_join(sim_flow *f, mflow *m, udccp_tstamp now) {
  udccp_conn *c0 = m->p[0].c;
  if (m->closing || c0 == NULL || c0->state != UDCCP_STATE_OPEN ||
      !udccp_mp_active(c0->mp, &c0->feat)) {
    return;
  }
  for (uint32_t k = 1; k < m->n; k++) {
    mpath *pa = &m->p[k];
    if (pa->c != NULL) {
      continue;
    }
    int rv = udccp_conn_client_new(&pa->c, &m->set_c, &pa->pc,
                                   MFLOW_SERVICE_CODE, now);
    if (rv == 0) {
      rv = udccp_mp_join_client(pa->c->mp, &c0->mp->keys, (uint8_t)k);
    }
    if (rv == 0) {
      rv = udccp_mp_conn_add(&m->tx, pa->c, 3);
      rv = rv < 0 ? rv : 0;
    }
    if (rv != 0) {
      snprintf(f->err, sizeof(f->err), "joining subflow %u: %s", k,
               udccp_strerror(rv));
      m->broken = 1;
      return;
    }
  }
}

static void app_send(sim_flow *f, mflow *m, udccp_tstamp now) {
  udccp_conn *c0 = m->p[0].c;
  m->app_next = UDCCP_TSTAMP_NEVER;
  if (c0 == NULL || f->stopped || m->closing) {
    return;
  }
  if (c0->state != UDCCP_STATE_OPEN && c0->state != UDCCP_STATE_PARTOPEN) {
    return;
  }
  if (m->dgram == 0) {
    uint32_t want = sim_flow_config(f)->pkt_size;
    size_t mps = udccp_conn_get_mps(c0);
    m->dgram = want ? want : (uint32_t)(mps < MFLOW_DGRAM_MAX ? mps
                                                              : MFLOW_DGRAM_MAX);
    f->packet_size = m->dgram;
  }
  if (f->app_rate_bps == 0) {
    while (udccp_mp_conn_queue(&m->tx, m->buf, m->dgram) == 0) {
    }
    return;
  }
  if (!m->app_based) {
    m->app_based = 1; /* the application starts writing once open */
    m->app_base = now;
  }
  for (;;) {
    if (sim_flow_app_bytes(f, m->app_base, now) <
        m->app_queued + m->dgram) {
      m->app_next = sim_flow_app_time(f, m->app_base,
                                      m->app_queued + m->dgram);
      return;
    }
    if (udccp_mp_conn_queue(&m->tx, m->buf, m->dgram) != 0) {
      /* a blocked writer: the time it spends blocked is not credit */
      m->app_base = now;
      m->app_queued = 0;
      return; /* the queue drains on the next schedule */
    }
    m->app_queued += m->dgram;
  }
}

static void app_recv(sim_flow *f, mflow *m, udccp_tstamp now) {
  uint8_t buf[MFLOW_DGRAM_MAX];
  for (;;) {
    uint64_t seq;
    udccp_ssize n = udccp_mp_conn_read(&m->rx, buf, sizeof(buf), &seq, now);
    if (n < 0) {
      return;
    }
    if (seq != UINT64_MAX) {
      if (m->have_last && seq <= m->last_seq) {
        m->disorder++;
      }
      m->last_seq = seq;
      m->have_last = 1;
    }
    sim_flow_delivered(f, (size_t)n);
  }
}

/* The receiver's bound from the paths' RTTs (io/mp.c mp_bound). */
static void rx_bound(mflow *m) {
  udccp_tstamp lo = UDCCP_TSTAMP_NEVER, hi = 0;
  for (uint32_t k = 0; k < m->rx.n_sub; k++) {
    udccp_tstamp r;
    if (m->rx.sub[k]->state != UDCCP_STATE_OPEN ||
        (r = udccp_mp_conn_path_rtt(&m->rx, k)) == 0) {
      continue;
    }
    lo = r < lo ? r : lo;
    hi = r > hi ? r : hi;
  }
  if (hi > 0) {
    udccp_tstamp b = udccp_mp_conn_rx_bound(&m->rx, lo, hi);
    m->rx.ro.bound = b < MFLOW_BOUND_MIN ? MFLOW_BOUND_MIN : b;
  }
}

static udccp_tstamp tmin(udccp_tstamp a, udccp_tstamp b) {
  return a < b ? a : b;
}

static void pump(sim_flow *f, mflow *m, udccp_tstamp now) {
  if (m->broken) {
    return;
  }
  for (uint32_t k = 0; k < m->n; k++) {
    mpath *pa = &m->p[k];
    if (pa->c != NULL && udccp_conn_get_expiry(pa->c) <= now) {
      (void)udccp_conn_handle_expiry(pa->c, now);
    }
    if (pa->s != NULL && udccp_conn_get_expiry(pa->s) <= now) {
      (void)udccp_conn_handle_expiry(pa->s, now);
    }
  }
  maybe_join(f, m, now);
  app_send(f, m, now);
  for (int round = 0; round < 64 && !m->broken; round++) {
    size_t placed = udccp_mp_conn_schedule(&m->tx, now);
    m->placed += placed;
    for (uint32_t k = 0; k < m->n && !m->broken; k++) {
      if (m->p[k].c != NULL) {
        write_all(f, m, m->p[k].c, k, 0, now);
      }
      write_all(f, m, m->p[k].s, k, 1, now);
    }
    app_send(f, m, now);
    if (placed == 0) {
      break;
    }
  }
  (void)udccp_mp_conn_schedule(&m->rx, now); /* the receiver's signals */
  for (uint32_t k = 0; k < m->n; k++) {
    write_all(f, m, m->p[k].s, k, 1, now);
  }
  rx_bound(m);
  app_recv(f, m, now);
  for (uint32_t k = 0; k < m->n; k++) {
    udccp_conn *c = m->p[k].c;
    if (c != NULL && !m->p[k].established && c->state == UDCCP_STATE_OPEN) {
      m->p[k].established = 1;
      if (k == 0) {
        m->established = 1;
        m->established_at = now;
      }
    }
  }
  udccp_tstamp at = tmin(udccp_mp_conn_expiry(&m->tx),
                         udccp_mp_conn_expiry(&m->rx));
  at = tmin(at, m->app_next);
  for (uint32_t k = 0; k < m->n; k++) {
    if (m->p[k].c != NULL && !udccp_conn_is_done(m->p[k].c)) {
      at = tmin(at, udccp_conn_get_expiry(m->p[k].c));
    }
    if (!udccp_conn_is_done(m->p[k].s)) {
      at = tmin(at, udccp_conn_get_expiry(m->p[k].s));
    }
  }
  if (at == UDCCP_TSTAMP_NEVER) {
    return;
  }
  if (at <= now) {
    if (++m->stuck > MFLOW_MAX_STUCK) {
      fail(f, m, "an expiry stayed in the past 100000 times: flow "
                 "abandoned");
      return;
    }
    at = now + 1000;
  }
  sim_flow_arm(f, MT_PUMP, at);
}

/* ------------------------------------------------------ kind methods */

static void set_setup(sim_flow *f, udccp_settings *st, sim_rng *rng,
                      int server) {
  const sim_config *cfg = sim_flow_config(f);
  udccp_settings_default(st);
  sim_rng_seed(rng, sim_flow_seed(f), server ? 2 : 1);
  st->rand = mflow_rand;
  st->rand_user_data = rng;
  st->ccid = (uint8_t)f->kind->ccid;
  st->cksum_mode = UDCCP_CKSUM_FULL;
  st->multipath = 1;
  st->ecn_capable = (uint8_t)(cfg->ecn != 0);
  st->ack_vectors = (uint8_t)(cfg->ack_vectors != 0);
  st->idle_timeout = cfg->idle_timeout;
  if (cfg->seq_window != 0) {
    st->seq_window = cfg->seq_window;
  }
}

static int mflow_init(sim_flow *f) {
  mflow *m = calloc(1, sizeof(*m));
  if (m == NULL) {
    snprintf(f->err, sizeof(f->err), "out of memory");
    return -1;
  }
  f->priv = m;
  m->n = sim_flow_n_paths(f);
  set_setup(f, &m->set_c, &m->rng_c, 0);
  set_setup(f, &m->set_s, &m->rng_s, 1);
  for (size_t i = 0; i < sizeof(m->buf); i++) {
    m->buf[i] = (uint8_t)i;
  }
  uint64_t idsn;
  sim_rng_bytes(&m->rng_c, (uint8_t *)&idsn, sizeof(idsn));
  if (udccp_mp_conn_init(&m->tx, udccp_mem_default(), MFLOW_QLEN,
                         MFLOW_DGRAM_MAX, idsn & 0xFFFFFFFFFFFFULL, 0,
                         0) != 0 ||
      udccp_mp_conn_init(&m->rx, udccp_mem_default(), MFLOW_RX_QLEN,
                         MFLOW_DGRAM_MAX, 0,
                         !sim_flow_config(f)->mp_reorder_off,
                         MFLOW_BOUND_DEFAULT) != 0) {
    snprintf(f->err, sizeof(f->err), "udccp_mp_conn_init: out of memory");
    return -1;
  }
  m->tx_ok = m->rx_ok = 1;
  m->tx.sched = (uint8_t)sim_flow_config(f)->mp_sched;
  for (uint32_t k = 0; k < m->n; k++) {
    mpath *pa = &m->p[k];
    uint8_t cli[4], srv[4];
    sim_flow_path_addr(f, k, cli, srv);
    pa->pc.family = pa->ps.family = UDCCP_AF_INET;
    memcpy(pa->pc.local_addr, cli, 4);
    memcpy(pa->pc.remote_addr, srv, 4);
    memcpy(pa->ps.local_addr, srv, 4);
    memcpy(pa->ps.remote_addr, cli, 4);
    pa->pc.local_port = pa->ps.remote_port = f->cli_port;
    pa->pc.remote_port = pa->ps.local_port = f->srv_port;
    int rv = udccp_conn_listen_new(&pa->s, &m->set_s, &pa->ps,
                                   MFLOW_SERVICE_CODE, 0);
    if (rv == 0) {
      udccp_mp_set_resolver(pa->s->mp, resolve, m);
      rv = udccp_mp_conn_add(&m->rx, pa->s, 3);
      rv = rv < 0 ? rv : 0;
    }
    if (rv != 0) {
      snprintf(f->err, sizeof(f->err), "server subflow %u: %s", k,
               udccp_strerror(rv));
      return -1;
    }
  }
  sim_flow_arm(f, MT_START, f->start_at);
  return 0;
}

static void mflow_timer(sim_flow *f, unsigned which, udccp_tstamp now) {
  mflow *m = f->priv;
  if (which == MT_START) {
    if (m->started || f->stopped) {
      return;
    }
    m->started = 1;
    int rv = udccp_conn_client_new(&m->p[0].c, &m->set_c, &m->p[0].pc,
                                   MFLOW_SERVICE_CODE, now);
    if (rv == 0) {
      rv = udccp_mp_conn_add(&m->tx, m->p[0].c, 3);
      rv = rv < 0 ? rv : 0;
    }
    if (rv != 0) {
      snprintf(f->err, sizeof(f->err), "first subflow: %s",
               udccp_strerror(rv));
      m->broken = 1;
      return;
    }
  }
  pump(f, m, now);
}

static void mflow_recv(sim_flow *f, sim_pkt *p, udccp_tstamp now) {
  mflow *m = f->priv;
  uint32_t k = p->path;
  int fwd = p->dir == SIM_DIR_FWD;
  udccp_conn *c = p->dir == SIM_DIR_FWD ? m->p[k].s : m->p[k].c;
  if (m->broken || k >= m->n || c == NULL) {
    sim_flow_pkt_free(f, p);
    return;
  }
  udccp_conn_info before, after;
  if (p->corrupt) {
    udccp_conn_get_info(c, &before);
  }
  (void)udccp_conn_read_pkt(c, p->data, p->len, p->ecn, now);
  if (p->corrupt) {
    udccp_conn_get_info(c, &after);
    sim_flow_corrupt_seen(f, p, after.pkts_recv != before.pkts_recv);
  }
  sim_flow_pkt_free(f, p);
  if (fwd) {
    udccp_mp_conn_on_read(&m->rx, k, now);
  }
  pump(f, m, now);
}

static void mflow_stop(sim_flow *f, udccp_tstamp now) {
  mflow *m = f->priv;
  m->closing = 1;
  for (uint32_t k = 0; k < m->n; k++) {
    m->p[k].rx_bytes_stop = m->rx.st[k].rx_bytes;
    if (m->p[k].c != NULL) {
      udccp_conn_get_info(m->p[k].c, &m->p[k].info);
      m->p[k].have_info = 1;
    }
  }
  if (m->p[0].c == NULL || m->broken) {
    return;
  }
  if (m->p[0].c->state == UDCCP_STATE_OPEN ||
      m->p[0].c->state == UDCCP_STATE_PARTOPEN) {
    (void)udccp_mp_conn_close(&m->tx, now); /* MP_CLOSE, §3.2.11 */
  } else {
    for (uint32_t k = 0; k < m->n; k++) {
      if (m->p[k].c != NULL) {
        (void)udccp_conn_abort(m->p[k].c, UDCCP_RESET_ABORTED, now);
      }
    }
  }
  pump(f, m, now);
}

static int mflow_done(const sim_flow *f) {
  const mflow *m = f->priv;
  if (m->broken) {
    return 1;
  }
  for (uint32_t k = 0; k < m->n; k++) {
    const mpath *pa = &m->p[k];
    if (pa->c == NULL) {
      continue; /* never joined: its server end waits in vain */
    }
    if (!udccp_conn_is_done(pa->c) || !udccp_conn_is_done(pa->s)) {
      return 0;
    }
  }
  return 1;
}

static void mflow_sample(const sim_flow *f, sim_flow_sample *s) {
  const mflow *m = f->priv;
  if (m->p[0].c == NULL) {
    return;
  }
  udccp_conn_info info;
  udccp_conn_get_info(m->p[0].c, &info);
  s->srtt = info.srtt;
  s->cwnd = info.cwnd;
  s->ack_ratio = info.ack_ratio;
}

static int sub_clean(udccp_conn *c) {
  int e = udccp_conn_get_error(c);
  return udccp_conn_is_done(c) &&
         (e == UDCCP_ERR_CLOSED ||
          (e == UDCCP_ERR_RESET &&
           udccp_conn_get_reset_code(c) == UDCCP_RESET_CLOSED));
}

static void mflow_finish(sim_flow *f, sim_flow_result *r) {
  mflow *m = f->priv;
  double dur = (double)sim_flow_config(f)->duration / 1e9;
  uint64_t tx_total = 0;
  r->established = m->established;
  r->established_s = (double)m->established_at / 1e9;
  r->n_paths = m->n;
  r->closed_ok = m->p[0].c != NULL;
  for (uint32_t k = 0; k < m->n; k++) {
    tx_total += m->tx.st[k].tx_bytes;
  }
  for (uint32_t k = 0; k < m->n; k++) {
    mpath *pa = &m->p[k];
    sim_path_result *pr = &r->paths[k];
    pr->goodput_bps = (double)pa->rx_bytes_stop * 8.0 / dur;
    pr->tx_dgrams = m->tx.st[k].tx_dgrams;
    pr->rx_dgrams = m->rx.st[k].rx_dgrams;
    pr->share = tx_total ? (double)m->tx.st[k].tx_bytes / (double)tx_total
                         : 0;
    pr->deaths = m->tx.st[k].deaths;
    pr->revivals = m->tx.st[k].revivals;
    pr->established = pa->established;
    if (pa->c != NULL) {
      udccp_conn_info info;
      udccp_conn_get_info(pa->c, &info);
      if (pa->have_info) { /* RTT and window while it still sent */
        info.srtt = pa->info.srtt;
        info.cwnd = pa->info.cwnd;
      }
      pr->rtt_ms = (double)info.srtt / 1e6;
      pr->cwnd = info.cwnd;
      pr->sent_pkts = info.data_pkts_sent;
      pr->declared_lost = info.pkts_lost;
      pr->joined = pa->c->mp != NULL && pa->c->mp->join;
      r->declared_lost += info.pkts_lost;
      if (!sub_clean(pa->c) || !sub_clean(pa->s)) {
        r->closed_ok = 0;
      }
    }
  }
  if (m->p[0].c != NULL) {
    udccp_conn *c0 = m->p[0].c, *s0 = m->p[0].s;
    r->mp_active = udccp_mp_active(c0->mp, &c0->feat);
    r->client_error = udccp_conn_get_error(c0);
    r->client_reset = udccp_conn_get_reset_code(c0);
    r->server_error = udccp_conn_get_error(s0);
    r->server_reset = udccp_conn_get_reset_code(s0);
    r->client_ended = udccp_conn_is_done(c0);
    r->server_ended = udccp_conn_is_done(s0);
  } else {
    r->client_ended = r->server_ended = 1;
  }
  r->mp_disorder = m->disorder;
  r->mp_over_bound = m->rx.ro.over_bound;
  r->mp_released_late = m->rx.ro.released_late;
  r->mp_late_dropped = m->rx.ro.dropped_old;
  r->mp_placed = m->placed;
  r->mp_delivered = f->delivered_pkts;
  r->mp_dup_dropped = m->rx.rx_dup + m->rx.ro.dropped_dup;
  r->mp_bound_ms = (double)m->rx.ro.bound / 1e6;
  snprintf(r->close_desc, sizeof(r->close_desc),
           "multipath %s, %u paths; client: %s; server: %s",
           r->mp_active ? "active" : "fallen back", m->n,
           m->p[0].c ? udccp_state_str(udccp_conn_get_state(m->p[0].c))
                     : "never created",
           udccp_state_str(udccp_conn_get_state(m->p[0].s)));
  if (f->packet_size == 0) {
    f->packet_size = m->dgram;
  }
}

static void mflow_destroy(sim_flow *f) {
  mflow *m = f->priv;
  if (m != NULL) {
    if (m->tx_ok) {
      udccp_mp_conn_free(&m->tx);
    }
    if (m->rx_ok) {
      udccp_mp_conn_free(&m->rx);
    }
    for (uint32_t k = 0; k < SIM_MAX_PATHS; k++) {
      udccp_conn_del(m->p[k].c);
      udccp_conn_del(m->p[k].s);
    }
    free(m);
  }
  f->priv = NULL;
}

#define SIM_MP_KIND(name_, ccid_, help_)                                      \
  {name_,       ccid_,       0,            help_,        mflow_init,          \
   mflow_recv,  mflow_timer, mflow_stop,   mflow_done,   mflow_sample,        \
   mflow_finish, sim_flow_pcap_dccp, mflow_destroy}

const sim_flow_kind sim_kind_mp_ccid2 =
    SIM_MP_KIND("mp-ccid2", 2, "Multipath DCCP (RFC 9897), a CCID 2 subflow "
                               "on every path of --paths");
const sim_flow_kind sim_kind_mp_ccid3 =
    SIM_MP_KIND("mp-ccid3", 3, "Multipath DCCP (RFC 9897), a CCID 3 subflow "
                               "on every path of --paths");

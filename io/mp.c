/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP over the runtime (RFC 9897; udccp.h, "Multipath DCCP"):
 * a udccp_mpsock is the MP connection object of the core (lib/mp_conn.c)
 * over subflows that are ordinary runtime sockets of one endpoint.
 *
 *   §3.3    client: the first subflow offers Multipath Capable and MP_KEY;
 *           once it is OPEN ("Host A waits for the final DCCP-Ack ...
 *           before starting any establishment of additional subflow
 *           connections"), one MP_JOIN subflow from each further local
 *           address, to the server's address and DCCP port
 *   §3.2.2  server: a join names the connection by its CI; the listener's
 *           resolver finds the first subflow that owns that CI
 *           (mp_resolve), the endpoint attaches the join to its
 *           udccp_mpsock instead of the accept queue
 *   §3.2.5  MP_SEQ: the core needs each packet's datagram right after the
 *           packet is read (udccp_io_mp_on_read from udccp_io_input)
 *   §3.6    a first subflow without Multipath DCCP agreed is plain DCCP:
 *           the calls go straight to it
 *
 * The endpoint gives each subflow's turn to udccp_io_mp_turn before it
 * writes the subflow's packets: the scheduler places datagrams then, and
 * the liveness watch (dead paths, probes) runs; a subflow's timer is the
 * earlier of its connection's and the MP connection's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "endpoint.h"
#include "mp_conn.h"
#include "seq.h"

_Static_assert(UDCCP_MP_MAX_SUBFLOWS == UDCCP_MP_SUBFLOWS_MAX,
               "one limit on subflows");

/* Datagram size the MP connection handles (the subflows' MPS is below). */
#define MP_DGRAM_MAX 1500
/* Datagrams the connection-level send queue holds. */
#define MP_QLEN 128
/* The receiver's reordering window in datagrams: what the fast paths
 * deliver while the slowest one's datagram is on its way (64 Mbit/s of
 * 1200-byte datagrams over paths 60 ms apart is ~400; 4096 covers
 * 1 Gbit/s paths 40 ms apart).  Memory follows what is held: nothing while
 * idle, grown by doubling, given back after a second oversized
 * (lib/mp_reorder.h), so the window is no cost to an idle connection. */
#define MP_REORDER_WINDOW 4096
/* Reordering bound before the subflows' RTTs are known, and its floor. */
#define MP_BOUND_DEFAULT (200 * UDCCP_NS_PER_MS)
#define MP_BOUND_MIN (20 * UDCCP_NS_PER_MS)

struct udccp_mpsock {
  udccp_endpoint *ep;
  udccp_sock *sub[UDCCP_MP_MAX_SUBFLOWS];
  size_t n;               /* subflows in sub[] */
  uint8_t prio[UDCCP_MP_MAX_SUBFLOWS]; /* wanted, also for later ones */
  udccp_mp_conn mc;
  int fallback;           /* plain DCCP on sub[0] (§3.6) */
  int is_client;
  int in_turn;
  int shut;
  /* client: the joins still to open, from local[1..] */
  uint8_t join_addr[UDCCP_MP_MAX_SUBFLOWS][16];
  size_t n_join, joins_done;
  size_t pm_joins;        /* joins opened to addresses the peer announced */
  uint8_t pm_closed[UDCCP_MP_MAX_SUBFLOWS]; /* closed on MP_REMOVEADDR */
  uint16_t udp_port;
  uint8_t ccid;
  size_t idx;             /* in ep->mps */
};

static int mp_register(udccp_endpoint *ep, udccp_mpsock *m) {
  if (ep->nmps == ep->capmps) {
    size_t nc = ep->capmps ? 2 * ep->capmps : 4;
    udccp_mpsock **nm = realloc(ep->mps, nc * sizeof(*nm));
    if (nm == NULL) {
      return UDCCP_ERR_NOMEM;
    }
    ep->mps = nm;
    ep->capmps = nc;
  }
  m->idx = ep->nmps;
  ep->mps[ep->nmps++] = m;
  return 0;
}

static void mp_unregister(udccp_mpsock *m) {
  udccp_endpoint *ep = m->ep;
  size_t i = m->idx;
  if (i < ep->nmps && ep->mps[i] == m) {
    ep->mps[i] = ep->mps[--ep->nmps];
    ep->mps[i]->idx = i;
  }
}

static udccp_mpsock *mp_new(udccp_endpoint *ep, udccp_sock *first,
                            int is_client) {
  udccp_mpsock *m = calloc(1, sizeof(*m));
  size_t i;
  if (m == NULL) {
    return NULL;
  }
  m->ep = ep;
  m->is_client = is_client;
  for (i = 0; i < UDCCP_MP_MAX_SUBFLOWS; i++) {
    m->prio[i] = 3;
  }
  /* MP_SEQ starts at a random IDSN (§3.2.5 SHOULD). */
  uint8_t b[6];
  uint64_t idsn = 0;
  ep->settings.rand(b, sizeof(b), ep->settings.rand_user_data);
  for (i = 0; i < sizeof(b); i++) {
    idsn = idsn << 8 | b[i];
  }
  if (udccp_mp_conn_init(&m->mc, udccp_mem_default(), MP_QLEN, MP_DGRAM_MAX,
                         idsn, 1, MP_BOUND_DEFAULT) != 0 ||
      udccp_mp_conn_set_reorder_window(&m->mc, MP_REORDER_WINDOW) != 0) {
    udccp_mp_conn_free(&m->mc);
    free(m);
    return NULL;
  }
  if (mp_register(ep, m) != 0) {
    udccp_mp_conn_free(&m->mc);
    free(m);
    return NULL;
  }
  m->sub[0] = first;
  m->n = 1;
  first->mp = m;
  first->mp_idx = 0;
  first->app_owned = 1;
  m->fallback = first->conn->mp == NULL ||
                (udccp_conn_get_state(first->conn) >= UDCCP_STATE_OPEN &&
                 !udccp_mp_active(first->conn->mp, &first->conn->feat));
  if (first->conn->mp != NULL) {
    (void)udccp_mp_conn_add(&m->mc, first->conn, m->prio[0]);
  }
  return m;
}

/* Attaches s as the next subflow. */
static int mp_attach(udccp_mpsock *m, udccp_sock *s) {
  if (m->n == UDCCP_MP_MAX_SUBFLOWS ||
      udccp_mp_conn_add(&m->mc, s->conn, m->prio[m->n]) < 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  s->mp = m;
  s->mp_idx = (uint8_t)m->n;
  s->app_owned = 1;
  if (m->prio[m->n] != UDCCP_MP_PRIO_PRIMARY) {
    /* RFC 9897 §3.2.10: the peer learns it by MP_PRIO once it is open. */
    (void)udccp_mp_conn_set_prio(&m->mc, m->n, m->prio[m->n]);
  }
  m->sub[m->n++] = s;
  return 0;
}

/* The listener's resolver (lib/mp.h): the first subflow whose CI is ci. */
static int mp_resolve(void *ud, uint32_t ci, udccp_mp_keys *out) {
  udccp_endpoint *ep = ud;
  for (size_t i = 0; i < ep->nsocks; i++) {
    const udccp_conn *c = ep->socks[i]->conn;
    if (c != NULL && c->mp != NULL && !c->mp->join &&
        c->mp->phase == UDCCP_MP_KEYED && c->mp->keys.local_ci == ci) {
      /* RFC 9897 §3.2.11: ignored while closing; §3.10: Too Busy when
       * full. */
      udccp_mpsock *m = ep->socks[i]->mp;
      int v = m != NULL ? udccp_mp_conn_join_verdict(&m->mc) : 1;
      if (v == 1 && m != NULL && m->n >= UDCCP_MP_MAX_SUBFLOWS) {
        v = UDCCP_MP_RESOLVE_BUSY;
      }
      if (v != 1) {
        return v;
      }
      *out = c->mp->keys;
      return 1;
    }
  }
  return 0;
}

void udccp_io_mp_listener(udccp_endpoint *ep, udccp_listener *lis) {
  if (lis != NULL && ep->settings.multipath) {
    udccp_listener_set_mp_resolver(lis, mp_resolve, ep);
  }
}

int udccp_io_mp_adopt(udccp_endpoint *ep, udccp_sock *s) {
  const udccp_conn *c = s->conn;
  if (c == NULL || c->mp == NULL || !c->mp->join) {
    return 0;
  }
  for (size_t i = 0; i < ep->nmps; i++) {
    udccp_mpsock *m = ep->mps[i];
    if (!m->fallback && m->sub[0]->conn != NULL &&
        m->sub[0]->conn->mp != NULL &&
        m->sub[0]->conn->mp->keys.local_ci == c->mp->keys.local_ci) {
      return mp_attach(m, s) == 0;
    }
  }
  return 0;
}

/* §3.6: the first subflow's handshake ended without Multipath DCCP: the
 * client knows it from the Response (PARTOPEN), the server at accept.
 * Decided before its first datagram is read, and before the client has
 * to send one: a PARTOPEN client leaves that state on the server's next
 * packet, and a server that waits for data (Linux's, which knows neither
 * feature 10 nor option 46) sends none until the client's data comes. */
static void mp_check_fallback(udccp_mpsock *m) {
  const udccp_conn *c = m->sub[0]->conn;
  if (!m->fallback && m->n == 1 && c != NULL &&
      udccp_conn_get_state(c) >= UDCCP_STATE_PARTOPEN &&
      !udccp_mp_active(c->mp, &c->feat)) {
    m->fallback = 1;
  }
}

void udccp_io_mp_on_read(udccp_sock *s, udccp_tstamp now) {
  udccp_mpsock *m = s->mp;
  if (m != NULL) {
    mp_check_fallback(m);
  }
  if (m != NULL && !m->fallback) {
    udccp_mp_conn_on_read(&m->mc, s->mp_idx, now);
  }
}

/* Lifetime cap on joins to announced addresses: a peer that announces and
 * withdraws addresses in a loop gets no endless stream of handshakes
 * (RFC 9897 §3.10 limits; §4: subflows cost state). */
#define MP_PM_JOINS_MAX (2 * UDCCP_MP_MAX_SUBFLOWS)

/* Opens one MP_JOIN subflow from local to remote (DCCP port dport) on the
 * server's UDP port; returns 0 or -1. */
static int mp_open_join(udccp_mpsock *m, const uint8_t local[16],
                        const uint8_t remote[16], uint16_t dport,
                        udccp_tstamp now) {
  udccp_sock *s0 = m->sub[0];
  udccp_endpoint *ep = m->ep;
  udccp_path path = s0->path;
  udccp_settings st;
  udccp_conn *conn = NULL;
  memcpy(path.local_addr, local, 16);
  memcpy(path.remote_addr, remote, 16);
  path.remote_port = dport;
  path.local_port = udccp_io_pick_port_for(ep, &path, m->udp_port);
  if (path.local_port == 0) {
    return -1;
  }
  udccp_io_conn_settings(ep, s0->fidx, m->ccid, &st);
  st.multipath = 1;
  if (udccp_conn_client_new(&conn, &st, &path, s0->conn->service_code,
                            now) != 0) {
    return -1;
  }
  /* §3.3: MP_JOIN names the server's CI (Address ID: its index). */
  if (udccp_mp_join_client(conn->mp, &s0->conn->mp->keys,
                           (uint8_t)m->n) != 0) {
    udccp_conn_del(conn);
    return -1;
  }
  udccp_sock *s = udccp_io_sock_add(ep, conn, &path, m->udp_port, NULL);
  if (s == NULL) {
    udccp_conn_del(conn);
    return -1;
  }
  if (mp_attach(m, s) != 0) {
    udccp_io_sock_free(s);
    return -1;
  }
  udccp_io_sched_touch(s);
  return 0;
}

/* The path manager (client), on what the peer announced (§3.2.8
 * MP_ADDADDR, §3.2.9 MP_REMOVEADDR; lib/mp_sig.c checked their MP_HMAC):
 * a join from our first address to each announced address of the
 * family no subflow reaches yet, within the subflow limit and
 * MP_PM_JOINS_MAX; a subflow to an address the peer removed is closed. */
static void mp_paths(udccp_mpsock *m, udccp_tstamp now) {
  udccp_sock *s0 = m->sub[0];
  const udccp_mp_sig *sig = &m->mc.sig;
  if (!m->is_client || s0->conn == NULL ||
      udccp_conn_get_state(s0->conn) != UDCCP_STATE_OPEN ||
      !udccp_mp_active(s0->conn->mp, &s0->conn->feat)) {
    return;
  }
  for (size_t k = 0; k < UDCCP_MP_SIG_ADDRS; k++) {
    const udccp_mp_addr *a = &sig->remote[k];
    int have = 0;
    if (a->state != 1 || a->family != s0->path.family) {
      continue;
    }
    for (size_t i = 0; i < m->n && !have; i++) {
      have = !m->pm_closed[i] && !udccp_io_sock_dead(m->sub[i]) &&
             memcmp(m->sub[i]->path.remote_addr, a->addr, 16) == 0;
    }
    if (!have && m->n < UDCCP_MP_MAX_SUBFLOWS &&
        m->pm_joins < MP_PM_JOINS_MAX) {
      m->pm_joins++;
      (void)mp_open_join(m, s0->path.local_addr, a->addr,
                         a->has_port ? a->port : s0->path.remote_port, now);
    }
  }
  for (size_t i = 1; i < m->n; i++) {
    int removed = 0, present = 0;
    if (m->pm_closed[i] || udccp_io_sock_dead(m->sub[i])) {
      continue;
    }
    for (size_t k = 0; k < UDCCP_MP_SIG_ADDRS; k++) {
      const udccp_mp_addr *a = &sig->remote[k];
      if (a->state != 0 &&
          memcmp(m->sub[i]->path.remote_addr, a->addr, 16) == 0) {
        removed |= a->state == 2;
        present |= a->state == 1;
      }
    }
    if (removed && !present) {
      m->pm_closed[i] = 1;
      (void)udccp_shutdown(m->sub[i]); /* §3.2.9: the path is gone */
    }
  }
}

/* Client: the joining subflows, once the first is OPEN and keyed. */
static void mp_joins(udccp_mpsock *m, udccp_tstamp now) {
  udccp_sock *s0 = m->sub[0];
  if (!m->is_client || m->joins_done == m->n_join || s0->conn == NULL ||
      udccp_conn_get_state(s0->conn) != UDCCP_STATE_OPEN ||
      !udccp_mp_active(s0->conn->mp, &s0->conn->feat)) {
    return;
  }
  while (m->joins_done < m->n_join && m->n < UDCCP_MP_MAX_SUBFLOWS) {
    size_t k = m->joins_done++;
    (void)mp_open_join(m, m->join_addr[k], s0->path.remote_addr,
                       s0->path.remote_port, now);
  }
}

/* The receiver's bound from the subflows' RTTs (lib/mp_reorder.h). */
static void mp_bound(udccp_mpsock *m) {
  udccp_tstamp lo = UDCCP_TSTAMP_NEVER, hi = 0, b;
  for (size_t i = 0; i < m->n; i++) {
    const udccp_conn *c = m->sub[i]->conn;
    udccp_tstamp r;
    if (c == NULL || udccp_conn_get_state(c) != UDCCP_STATE_OPEN ||
        (r = udccp_mp_conn_path_rtt(&m->mc, i)) == 0) {
      continue;
    }
    lo = r < lo ? r : lo;
    hi = r > hi ? r : hi;
  }
  if (hi == 0) {
    return;
  }
  b = udccp_mp_conn_rx_bound(&m->mc, lo, hi); /* + the paths' jitter */
  m->mc.ro.bound = b < MP_BOUND_MIN ? MP_BOUND_MIN : b;
}

/* Datagrams the reordering bound let go move to the ready queue, so that
 * an application that does not read now leaves no timer due (it would
 * spin the endpoint's loop). */
static void mp_release(udccp_mpsock *m, udccp_tstamp now) {
  udccp_mp_conn *mc = &m->mc;
  (void)udccp_mp_reorder_trim(&mc->ro, now); /* its timer, when drained */
  for (int k = 0; k < MP_QLEN; k++) {
    uint64_t seq;
    if (udccp_mp_reorder_expiry(&mc->ro) > now ||
        udccp_rxq_len(&mc->rxq) >= MP_QLEN - 1) {
      return;
    }
    udccp_ssize n = udccp_mp_reorder_pop(&mc->ro, mc->tmp, mc->max_dgram,
                                         &seq, now);
    if (n < 0) {
      return;
    }
    (void)udccp_rxq_push_meta(&mc->rxq, mc->tmp, (size_t)n, seq, 0);
  }
}

/* The datagrams the scheduler just placed leave now, in MP_SEQ order
 * (RFC 9897 §3.2.5).  Left to the loop, a subflow given one would send it
 * only at its own turn, after the subflow being written had gone on
 * taking and sending later numbers for as long as its window let it (up
 * to a loop's worth of packets, or a preemption's time on a loaded
 * machine): the receiver sees a gap as long as that, and gives the number
 * up after its reordering bound.  Subflows share the endpoint's socket
 * and its transmit batch, so the order they are written in is the order
 * on the wire.  Called within the turn (m->in_turn): their own calls
 * back into the turn do nothing. */
static void mp_send_placed(udccp_mpsock *m, udccp_tstamp now) {
  uint8_t done[UDCCP_MP_MAX_SUBFLOWS] = {0};
  for (;;) {
    size_t best = m->n;
    for (size_t i = 0; i < m->n; i++) {
      const udccp_conn *c = m->sub[i]->conn;
      if (done[i] || c == NULL || c->mp == NULL ||
          udccp_sendq_len(&c->sendq) == 0) {
        continue;
      }
      if (best == m->n ||
          udccp_seq_lt(c->mp->tx_seq, m->sub[best]->conn->mp->tx_seq)) {
        best = i;
      }
    }
    if (best == m->n) {
      return;
    }
    done[best] = 1;
    udccp_io_sock_output(m->sub[best], now);
  }
}

size_t udccp_io_mp_turn(udccp_mpsock *m, udccp_tstamp now) {
  size_t placed = 0;
  if (m->in_turn) {
    return 0;
  }
  m->in_turn = 1;
  mp_check_fallback(m);
  /* Fallen back: what was queued before the handshake ended goes to the
   * one subflow, in order, as it takes it. */
  while (m->fallback && udccp_sendq_len(&m->mc.q) > 0) {
    const uint8_t *d;
    size_t len;
    (void)udccp_sendq_peek(&m->mc.q, &d, &len, NULL);
    if (udccp_conn_queue_datagram(m->sub[0]->conn, d, len, 0, now) != 0) {
      break;
    }
    (void)udccp_sendq_pop(&m->mc.q);
    placed++;
  }
  if (!m->fallback) {
    mp_joins(m, now);
    mp_paths(m, now);
    mp_bound(m);
    mp_release(m, now);
    placed = udccp_mp_conn_schedule(&m->mc, now);
    if (placed > 0) {
      mp_send_placed(m, now);
      for (size_t i = 0; i < m->n; i++) {
        udccp_io_sched_touch(m->sub[i]);
      }
    }
  }
  m->in_turn = 0;
  return placed;
}

udccp_tstamp udccp_io_mp_expiry(const udccp_mpsock *m) {
  return m->fallback ? UDCCP_TSTAMP_NEVER : udccp_mp_conn_expiry(&m->mc);
}

void udccp_io_mp_free_all(udccp_endpoint *ep) {
  while (ep->nmps > 0) {
    udccp_mpsock *m = ep->mps[ep->nmps - 1];
    for (size_t i = 0; i < m->n; i++) {
      m->sub[i]->mp = NULL;
    }
    ep->nmps--;
    udccp_mp_conn_free(&m->mc);
    free(m);
  }
  free(ep->mps);
  ep->mps = NULL;
  ep->capmps = 0;
}

/* ------------------------------------------------------- the calls */

/* Whether a subflow can send from addr: a UDP socket binds to it (port
 * 0).  An address no interface holds (EADDRNOTAVAIL) would have every
 * packet of that subflow refused by sendmsg and its handshake time out.
 * Returns 0, or UDCCP_ERR_SOCKET with errno set. */
static int addr_is_local(uint8_t family, const uint8_t addr[16]) {
  int fd = socket(family == UDCCP_AF_INET ? AF_INET : AF_INET6,
                  SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return UDCCP_ERR_SOCKET;
  }
  struct sockaddr_storage ss;
  socklen_t sl = udccp_io_addr_to_sockaddr(&ss, family, addr, 0);
  int rv = bind(fd, (struct sockaddr *)&ss, sl) == 0 ? 0 : UDCCP_ERR_SOCKET;
  int e = errno;
  close(fd);
  errno = e;
  return rv;
}

static int parse_local(udccp_endpoint *ep, const char *host, uint8_t family,
                       uint8_t addr[16]) {
  uint8_t fam = 0;
  memset(addr, 0, 16);
  int rv = udccp_io_resolve(host, family == UDCCP_AF_INET,
                            family == UDCCP_AF_INET6, &fam, addr);
  if (rv != 0) {
    return rv;
  }
  if (fam != family || (ep->local_family != 0 &&
                        memcmp(addr, ep->local_addr, 16) != 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return ep->local_family != 0 ? 0 : addr_is_local(family, addr);
}

static int mp_connect_ready(void *arg) {
  udccp_sock *s = arg;
  return udccp_io_sock_dead(s) ||
         udccp_conn_get_state(s->conn) >= UDCCP_STATE_PARTOPEN;
}

int udccp_mpsock_connect(udccp_endpoint *ep, udccp_mpsock **pmp,
                         const char *host, uint16_t port,
                         uint32_t service_code, uint8_t ccid,
                         const char *const *local, size_t n,
                         int timeout_ms) {
  udccp_path path;
  udccp_settings st;
  udccp_conn *conn = NULL;
  uint8_t addrs[UDCCP_MP_MAX_SUBFLOWS][16];
  if (ep == NULL || pmp == NULL || host == NULL || port == 0 ||
      n > UDCCP_MP_MAX_SUBFLOWS || (n > 0 && local == NULL)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  memset(&path, 0, sizeof(path));
  int rv = udccp_io_resolve(host, ep->fd[UDCCP_IO_V4] >= 0,
                            ep->fd[UDCCP_IO_V6] >= 0, &path.family,
                            path.remote_addr);
  if (rv != 0) {
    return rv;
  }
  for (size_t i = 0; i < n; i++) {
    rv = parse_local(ep, local[i], path.family, addrs[i]);
    if (rv != 0) {
      return rv;
    }
  }
  if (n == 0) {
    /* The route's source, as udccp_connect() finds it. */
    if (ep->local_family == path.family) {
      memcpy(path.local_addr, ep->local_addr, 16);
    } else {
      (void)udccp_io_route_source(path.family, path.remote_addr,
                                  path.local_addr);
    }
  } else {
    memcpy(path.local_addr, addrs[0], 16);
  }
  int fidx = path.family == UDCCP_AF_INET ? UDCCP_IO_V4 : UDCCP_IO_V6;
  uint16_t udp_port = ep->cfg.remote_udp_port ? ep->cfg.remote_udp_port
                                              : UDCCP_UDP_PORT_DEFAULT;
  path.remote_port = port;
  path.local_port = udccp_io_pick_port_for(ep, &path, udp_port);
  if (path.local_port == 0) {
    return UDCCP_ERR_ADDRINUSE;
  }
  udccp_io_conn_settings(ep, fidx, ccid, &st);
  st.multipath = 1; /* §3.1: Change R(Multipath Capable) on the Request */
  rv = udccp_conn_client_new(&conn, &st, &path, service_code,
                             udccp_io_now());
  if (rv != 0) {
    return rv;
  }
  udccp_sock *s = udccp_io_sock_add(ep, conn, &path, udp_port, NULL);
  if (s == NULL) {
    udccp_conn_del(conn);
    return UDCCP_ERR_NOMEM;
  }
  udccp_mpsock *m = mp_new(ep, s, 1);
  if (m == NULL) {
    udccp_io_sock_free(s);
    return UDCCP_ERR_NOMEM;
  }
  m->fallback = 0; /* decided once the handshake is over */
  m->udp_port = udp_port;
  m->ccid = ccid;
  for (size_t i = 1; i < n; i++) {
    memcpy(m->join_addr[m->n_join++], addrs[i], 16);
  }
  udccp_io_sock_flush(s); /* the Request goes out now */
  if (timeout_ms != 0) {
    rv = udccp_io_wait(ep, udccp_io_deadline(timeout_ms), mp_connect_ready,
                       s);
    if (rv == 0 && udccp_io_sock_dead(s)) {
      rv = udccp_io_sock_dead_error(s);
    } else if (rv == UDCCP_ERR_AGAIN) {
      rv = UDCCP_ERR_TIMEOUT;
    }
    if (rv != 0) {
      udccp_mpsock_close(m, 0);
      return rv;
    }
  }
  *pmp = m;
  return 0;
}

/* Joins waiting in the accept queue whose connection is known now. */
static void adopt_queued(udccp_endpoint *ep) {
  udccp_sock *s = ep->acc_head;
  while (s != NULL) {
    udccp_sock *next = s->acc_next;
    if (udccp_io_mp_adopt(ep, s)) {
      udccp_io_acceptq_remove(ep, s);
    }
    s = next;
  }
}

/* The oldest first subflow (not a join) ready to be accepted. */
static udccp_sock *accept_first(udccp_endpoint *ep) {
  adopt_queued(ep);
  for (udccp_sock *s = ep->acc_head; s != NULL; s = s->acc_next) {
    const udccp_conn *c = s->conn;
    int st = udccp_conn_get_state(c);
    if (c->mp != NULL && c->mp->join) {
      continue; /* its connection is not accepted yet */
    }
    if (st >= UDCCP_STATE_OPEN ||
        (st == UDCCP_STATE_CLOSED &&
         udccp_conn_get_error(c) == UDCCP_ERR_CLOSED)) {
      return s;
    }
  }
  return NULL;
}

static int accept_ready(void *arg) { return accept_first(arg) != NULL; }

int udccp_mpsock_accept(udccp_endpoint *ep, udccp_mpsock **pmp,
                        int timeout_ms) {
  if (ep == NULL || pmp == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (ep->nlis == 0) {
    return UDCCP_ERR_INVALID_STATE;
  }
  udccp_sock *s = accept_first(ep);
  if (s == NULL) {
    if (timeout_ms == 0 ||
        udccp_io_wait(ep, udccp_io_deadline(timeout_ms), accept_ready, ep) !=
            0) {
      return UDCCP_ERR_AGAIN;
    }
    s = accept_first(ep);
    if (s == NULL) {
      return UDCCP_ERR_AGAIN;
    }
  }
  udccp_io_acceptq_remove(ep, s);
  udccp_mpsock *m = mp_new(ep, s, 0);
  if (m == NULL) {
    udccp_abort(s);
    return UDCCP_ERR_NOMEM;
  }
  m->fallback = s->conn->mp == NULL ||
                !udccp_mp_active(s->conn->mp, &s->conn->feat);
  adopt_queued(ep);
  *pmp = m;
  return 0;
}

/* 1 once no subflow can carry anything any more. */
static int mp_all_dead(const udccp_mpsock *m) {
  for (size_t i = 0; i < m->n; i++) {
    if (!udccp_io_sock_dead(m->sub[i])) {
      return 0;
    }
  }
  return 1;
}

static int mp_dead_error(const udccp_mpsock *m) {
  int e = udccp_io_sock_dead_error(m->sub[0]);
  return e != 0 ? e : UDCCP_ERR_CLOSED;
}

static void mp_kick(udccp_mpsock *m) {
  udccp_io_mp_turn(m, udccp_io_now());
  for (size_t i = 0; i < m->n; i++) {
    if (m->sub[i]->conn != NULL) {
      udccp_io_sock_gen(m->sub[i]);
    }
  }
}

typedef struct mp_io {
  udccp_mpsock *m;
  const void *cbuf;
  void *buf;
  size_t len;
  udccp_ssize rv;
} mp_io;

static int send_ready(void *arg) {
  mp_io *a = arg;
  if (mp_all_dead(a->m)) {
    a->rv = mp_dead_error(a->m);
    return 1;
  }
  int rv = udccp_mp_conn_queue(&a->m->mc, a->cbuf, a->len);
  if (rv == 0) {
    a->rv = (udccp_ssize)a->len;
    return 1;
  }
  a->rv = rv;
  return rv != UDCCP_ERR_AGAIN;
}

static size_t mp_mps(const udccp_mpsock *m) {
  size_t mps = MP_DGRAM_MAX;
  for (size_t i = 0; i < m->n; i++) {
    if (m->sub[i]->conn != NULL) {
      size_t x = udccp_sock_get_mps(m->sub[i]);
      mps = x > 0 && x < mps ? x : mps;
    }
  }
  return mps;
}

udccp_ssize udccp_mpsock_send(udccp_mpsock *mp, const void *buf, size_t len,
                              int timeout_ms) {
  if (mp == NULL || (buf == NULL && len > 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (mp->shut) {
    return UDCCP_ERR_INVALID_STATE;
  }
  mp_check_fallback(mp);
  if (mp->fallback && udccp_sendq_len(&mp->mc.q) == 0) {
    return udccp_send(mp->sub[0], buf, len, timeout_ms);
  }
  if (len > mp_mps(mp)) {
    return UDCCP_ERR_MSGSIZE;
  }
  mp_io a = {mp, buf, NULL, len, 0};
  if (!send_ready(&a) && timeout_ms != 0) {
    if (udccp_io_wait(mp->ep, udccp_io_deadline(timeout_ms), send_ready,
                      &a) != 0) {
      a.rv = UDCCP_ERR_AGAIN;
    }
  }
  if (a.rv >= 0) {
    mp_kick(mp);
  }
  return a.rv;
}

static int recv_ready(void *arg) {
  mp_io *a = arg;
  uint64_t seq;
  mp_check_fallback(a->m);
  if (a->m->fallback) {
    return 1; /* decided while waiting: the caller reads the subflow */
  }
  udccp_ssize n = udccp_mp_conn_read(&a->m->mc, a->buf, a->len, &seq,
                                     udccp_io_now());
  if (n == UDCCP_ERR_AGAIN && mp_all_dead(a->m)) {
    if (a->m->mc.reorder && a->m->mc.ro.n > 0) {
      /* no path will fill the gaps any more: what is held goes to the
       * application now, not after the bound (nor never) */
      a->m->mc.ro.pressure = 1;
      n = udccp_mp_conn_read(&a->m->mc, a->buf, a->len, &seq,
                             udccp_io_now());
    } else {
      n = mp_dead_error(a->m);
    }
  }
  a->rv = n;
  return n != UDCCP_ERR_AGAIN;
}

udccp_ssize udccp_mpsock_recv(udccp_mpsock *mp, void *buf, size_t cap,
                              int timeout_ms) {
  if (mp == NULL || (buf == NULL && cap > 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  /* the clock only for a call that may wait (one per datagram drained) */
  udccp_tstamp deadline = timeout_ms == 0 ? 0 : udccp_io_deadline(timeout_ms);
  mp_io a = {mp, NULL, buf, cap, 0};
  if (!recv_ready(&a) && timeout_ms != 0) {
    if (udccp_io_wait(mp->ep, deadline, recv_ready, &a) != 0) {
      a.rv = UDCCP_ERR_AGAIN;
    }
  }
  if (mp->fallback) {
    int left = 0; /* what is left of the caller's timeout */
    if (deadline == UDCCP_TSTAMP_NEVER) {
      left = -1;
    } else if (timeout_ms != 0) {
      udccp_tstamp now = udccp_io_now();
      left = deadline > now ? (int)((deadline - now + UDCCP_NS_PER_MS - 1) /
                                    UDCCP_NS_PER_MS)
                            : 0;
    }
    return udccp_recv(mp->sub[0], buf, cap, left);
  }
  if (a.rv == UDCCP_ERR_NOBUF) {
    /* The reordering buffer keeps it; the call says it is dropped: take
     * it out so that the connection does not stall on it. */
    uint8_t tmp[MP_DGRAM_MAX];
    uint64_t seq;
    (void)udccp_mp_conn_read(&mp->mc, tmp, sizeof(tmp), &seq,
                             udccp_io_now());
  }
  return a.rv;
}

int udccp_mpsock_set_sched(udccp_mpsock *mp, int sched) {
  if (mp == NULL || sched < UDCCP_MP_SCHED_MINRTT ||
      sched > UDCCP_MP_SCHED_REDUNDANT) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  mp->mc.sched = (uint8_t)sched;
  return 0;
}

int udccp_mpsock_set_prio(udccp_mpsock *mp, size_t i, uint8_t prio) {
  if (mp == NULL || i >= UDCCP_MP_MAX_SUBFLOWS || prio > 15) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  mp->prio[i] = prio;
  if (i < mp->mc.n_sub) {
    /* RFC 9897 §3.2.10: MP_PRIO to the peer on that subflow, repeated
     * until confirmed (a full signal table: local only). */
    if (udccp_mp_conn_set_prio(&mp->mc, i, prio) != 0) {
      mp->mc.prio[i] = prio;
    }
  }
  return 0;
}

int udccp_mpsock_announce(udccp_mpsock *mp, const char *addr,
                          uint16_t port) {
  uint8_t a[16], fam = 0;
  if (mp == NULL || addr == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (mp->fallback) {
    return UDCCP_ERR_INVALID_STATE;
  }
  memset(a, 0, sizeof(a));
  int rv = udccp_io_resolve(addr, 1, 1, &fam, a);
  if (rv != 0) {
    return rv;
  }
  rv = udccp_mp_conn_announce(&mp->mc, fam, a, port);
  if (rv >= 0) {
    mp_kick(mp);
  }
  return rv;
}

int udccp_mpsock_unannounce(udccp_mpsock *mp, int id) {
  if (mp == NULL || id < 0 || id > 255) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (mp->fallback) {
    return UDCCP_ERR_INVALID_STATE;
  }
  int rv = udccp_mp_conn_unannounce(&mp->mc, (uint8_t)id);
  if (rv == 0) {
    mp_kick(mp);
  }
  return rv;
}

udccp_sock *udccp_mpsock_subflow(udccp_mpsock *mp, size_t i) {
  return mp != NULL && i < mp->n ? mp->sub[i] : NULL;
}

int udccp_mpsock_get_info(const udccp_mpsock *mp, udccp_mp_info *info) {
  uint64_t total = 0;
  size_t i;
  if (info == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  memset(info, 0, sizeof(*info)); /* also for mp NULL (udccp.h) */
  if (mp == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  info->active = !mp->fallback;
  info->sched = mp->mc.sched;
  info->n_subflows = (uint8_t)mp->n;
  info->reorder_bound = udccp_mp_reorder_wait(&mp->mc.ro);
  info->rx_released_late = mp->mc.ro.released_late;
  info->rx_late_dropped = mp->mc.ro.dropped_old;
  info->rx_reorder_bytes = udccp_mp_reorder_mem(&mp->mc.ro);
  info->rx_reorder_max_held = mp->mc.ro.max_n;
  info->rx_reorder_window_full = mp->mc.ro.window_full;
  info->rx_mp_seq_skipped = mp->mc.ro.skipped;
  for (i = 0; i < mp->n; i++) {
    total += mp->fallback ? 0 : mp->mc.st[i].tx_bytes;
  }
  for (i = 0; i < mp->n; i++) {
    udccp_mp_subflow_info *o = &info->sub[i];
    const udccp_sock *s = mp->sub[i];
    udccp_conn_info ci;
    o->path = s->path;
    if (s->conn == NULL) {
      o->state = UDCCP_STATE_CLOSED;
      continue;
    }
    udccp_conn_get_info(s->conn, &ci);
    o->state = (uint8_t)ci.state;
    o->prio = i < mp->mc.n_sub ? mp->mc.prio[i] : mp->prio[i];
    o->dead = (uint8_t)udccp_mp_conn_dead(&mp->mc, i);
    o->joined = s->conn->mp != NULL && s->conn->mp->join;
    o->ccid = ci.tx_ccid;
    if (mp->fallback) {
      o->tx_dgrams = ci.data_pkts_sent;
      o->tx_bytes = ci.data_bytes_sent;
      o->rx_dgrams = ci.data_pkts_recv;
      o->rx_bytes = ci.data_bytes_recv;
      o->share_permille = 1000;
    } else {
      o->tx_dgrams = mp->mc.st[i].tx_dgrams;
      o->tx_bytes = mp->mc.st[i].tx_bytes;
      o->rx_dgrams = mp->mc.st[i].rx_dgrams;
      o->rx_bytes = mp->mc.st[i].rx_bytes;
      o->share_permille =
          total ? (uint32_t)(o->tx_bytes * 1000 / total) : 0;
      o->deaths = mp->mc.st[i].deaths;
      o->revivals = mp->mc.st[i].revivals;
    }
    o->cwnd = ci.cwnd;
    o->srtt = ci.srtt;
    if (ci.x > 0) {
      o->rate_bps = ci.x * 8;
    } else if (ci.cwnd > 0 && ci.srtt > 0) {
      o->rate_bps = (uint64_t)((double)ci.cwnd * ci.mps * 8 *
                               (double)UDCCP_NS_PER_S / (double)ci.srtt);
    }
    o->pkts_lost = ci.pkts_lost;
    o->data_pkts_sent = ci.data_pkts_sent;
  }
  return 0;
}

typedef struct close_arg {
  udccp_mpsock *m;
  int phase; /* 0: drain the queues; 1: the subflows' close */
} close_arg;

static int close_ready(void *arg) {
  close_arg *a = arg;
  udccp_mpsock *m = a->m;
  if (a->phase == 0) {
    if (mp_all_dead(m)) {
      return 1;
    }
    if (udccp_sendq_len(&m->mc.q) > 0 || m->mc.have_moved) {
      return 0;
    }
    return 1;
  }
  for (size_t i = 0; i < m->n; i++) {
    udccp_sock *s = m->sub[i];
    int st = udccp_conn_get_state(s->conn);
    if (!udccp_io_sock_dead(s) && st != UDCCP_STATE_TIMEWAIT) {
      return 0;
    }
  }
  return 1;
}

int udccp_mpsock_close(udccp_mpsock *mp, int timeout_ms) {
  if (mp == NULL) {
    return 0;
  }
  udccp_endpoint *ep = mp->ep;
  udccp_tstamp dl = udccp_io_deadline(timeout_ms);
  close_arg a = {mp, 0};
  int rv = 0;
  mp->shut = 1;
  if (timeout_ms != 0 && !close_ready(&a) &&
      udccp_io_wait(ep, dl, close_ready, &a) != 0) {
    rv = UDCCP_ERR_TIMEOUT;
  }
  /* RFC 9897 §3.2.11: MP_CLOSE on every subflow's Close/CloseReq; joins
   * from now on are ignored. */
  if (mp->mc.close_state == UDCCP_MP_CONN_OPEN) {
    mp->mc.close_state = UDCCP_MP_CONN_CLOSING;
  }
  mp->mc.subs_closed = 1;
  for (size_t i = 0; i < mp->n; i++) {
    if (!udccp_io_sock_dead(mp->sub[i])) {
      if (!mp->fallback && mp->sub[i]->conn->mp != NULL) {
        mp->sub[i]->conn->mp->close_tx = 1;
      }
      (void)udccp_shutdown(mp->sub[i]);
    }
  }
  a.phase = 1;
  if (rv == 0 && !close_ready(&a) &&
      (timeout_ms == 0 || udccp_io_wait(ep, dl, close_ready, &a) != 0)) {
    rv = UDCCP_ERR_TIMEOUT;
  }
  if (rv == 0) {
    int e = udccp_io_sock_dead_error(mp->sub[0]);
    rv = e == UDCCP_ERR_CLOSED ? 0 : e;
  }
  mp_unregister(mp);
  for (size_t i = 0; i < mp->n; i++) {
    mp->sub[i]->mp = NULL;
    (void)udccp_close(mp->sub[i], 0);
  }
  udccp_mp_conn_free(&mp->mc);
  free(mp);
  return rv;
}

void udccp_mpsock_abort(udccp_mpsock *mp) {
  if (mp == NULL) {
    return;
  }
  mp->shut = 1;
  if (!mp->fallback) {
    /* RFC 9897 §3.2.3: Reset code 13 + MP_FAST_CLOSE on every subflow,
     * all torn down at once */
    (void)udccp_mp_conn_fast_close(&mp->mc, udccp_io_now());
  }
  mp_unregister(mp);
  for (size_t i = 0; i < mp->n; i++) {
    udccp_sock *s = mp->sub[i];
    s->mp = NULL;
    if (mp->fallback) {
      udccp_abort(s); /* plain DCCP: Reset "Aborted" */
      continue;
    }
    udccp_io_sock_flush(s); /* the Reset of fast_close */
    udccp_abort_code(s, UDCCP_RESET_MP_ABRUPT);
  }
  udccp_mp_conn_free(&mp->mc);
  free(mp);
}

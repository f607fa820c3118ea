/* SPDX-License-Identifier: MIT */
/*
 * libudccp-preload: the per-process service thread.  It owns the udccp
 * endpoints and, for every DCCP socket of the program, one udccp
 * connection (or listener) and the far end of the socket's socketpair:
 *   - datagrams the program writes are read from the pair and queued on the
 *     connection while its send queue has room; when it is full the thread
 *     stops reading, the pair's buffer fills and the program blocks or gets
 *     EAGAIN ("writable when the send queue has room");
 *   - datagrams udccp receives are written into the pair, so the program's
 *     descriptor polls readable when one is waiting;
 *   - a listener's pair carries each accepted connection's descriptor
 *     (SCM_RIGHTS), so accept() is a recvmsg() on a real descriptor;
 *   - a Reset shuts the pair down (POLLHUP) and records ECONNRESET for
 *     SO_ERROR and the next send(); a normal close shuts down our sending
 *     direction only, so recv() returns 0 as with the kernel.
 * Everything here runs with ucompat_mu held; the thread drops it only
 * while it waits in epoll_wait().
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "compat.h"
#include "parse.h"

#define SVC_BUF 65536

static ucompat_stat *g_slots;
static ucompat_sock *g_slot_owner[UCOMPAT_NSLOTS];

static int g_started;
static pthread_t g_thread;
static int g_epfd = -1, g_evfd = -1;
static ucompat_sock *g_list;
static udccp_endpoint *g_ep_raw, *g_ep_srv, *g_ep_cli;
static int g_transport = -1;
static uint16_t g_udp_port = UDCCP_UDP_PORT_DEFAULT;
static uint8_t g_buf[SVC_BUF];

/* ------------------------------------------------------------- slots */

static void slots_init(void) {
  if (g_slots != NULL) {
    return;
  }
  size_t sz = sizeof(ucompat_stat) * UCOMPAT_NSLOTS;
  void *p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                 -1, 0);
  g_slots = p == MAP_FAILED ? calloc(UCOMPAT_NSLOTS, sizeof(ucompat_stat)) : p;
}

int ucompat_slot_alloc(ucompat_sock *cs) {
  slots_init();
  if (g_slots == NULL) {
    return -1;
  }
  /* Parent and children share the slots: claim one with a CAS. */
  for (int i = 0; i < UCOMPAT_NSLOTS; i++) {
    uint32_t g = atomic_load(&g_slots[i].gen);
    if ((g & 1) == 0 && atomic_compare_exchange_strong(&g_slots[i].gen, &g,
                                                       g + 1)) {
      ucompat_stat *st = &g_slots[i];
      atomic_store(&st->state, UCOMPAT_NEW);
      atomic_store(&st->err, 0);
      atomic_store(&st->mps, 0);
      atomic_store(&st->accepted, 0);
      st->locallen = st->peerlen = 0;
      memset(&st->info, 0, sizeof(st->info));
      cs->slot = i;
      cs->gen = g + 1;
      cs->st = st;
      g_slot_owner[i] = cs;
      return 0;
    }
  }
  return -1;
}

void ucompat_slot_free(ucompat_sock *cs) {
  if (cs->st == NULL || !ucompat_slot_valid(cs)) {
    return;
  }
  if (g_slot_owner[cs->slot] == cs) {
    g_slot_owner[cs->slot] = NULL;
  }
  atomic_fetch_add(&cs->st->gen, 1);
}

ucompat_stat *ucompat_slot_get(int slot) {
  slots_init();
  if (g_slots == NULL || slot < 0 || slot >= UCOMPAT_NSLOTS) {
    return NULL;
  }
  return &g_slots[slot];
}

int ucompat_slot_valid(const ucompat_sock *cs) {
  return cs->st != NULL && atomic_load(&cs->st->gen) == cs->gen;
}

ucompat_sock *ucompat_svc_by_slot(int slot, uint32_t gen) {
  if (slot < 0 || slot >= UCOMPAT_NSLOTS) {
    return NULL;
  }
  ucompat_sock *cs = g_slot_owner[slot];
  return cs != NULL && cs->gen == gen && cs->owned ? cs : NULL;
}

/* The thread is the only writer of a slot's snapshot. */
static void snap_begin(ucompat_stat *st) { atomic_fetch_add(&st->seq, 1); }
static void snap_end(ucompat_stat *st) { atomic_fetch_add(&st->seq, 1); }

void ucompat_snap_read(const ucompat_sock *cs, ucompat_stat *out) {
  ucompat_stat *st = cs->st;
  for (int tries = 0; tries < 1000; tries++) {
    uint32_t s1 = atomic_load(&st->seq);
    if (s1 & 1) {
      continue;
    }
    memcpy(&out->local, &st->local, sizeof(out->local));
    memcpy(&out->peer, &st->peer, sizeof(out->peer));
    out->locallen = st->locallen;
    out->peerlen = st->peerlen;
    memcpy(&out->info, &st->info, sizeof(out->info));
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load(&st->seq) == s1) {
      return;
    }
  }
}

/* ------------------------------------------------------------ errors */

int ucompat_errno_of(int err, int rc) {
  /* Our own timeout (a handshake's retries, the keepalive) ends with the
   * Reset we sent, code Aborted (RFC 4340 §8.1.1): that code is ours, not
   * the peer's.  Linux's dccp_write_err() gives ETIMEDOUT for it, and
   * doc/preload.md promises it. */
  if (err == UDCCP_ERR_TIMEOUT) {
    return ETIMEDOUT;
  }
  /* Linux net/dccp/input.c maps a received Reset code to sk_err thus. */
  switch (rc) {
  case UDCCP_RESET_CLOSED: return 0; /* the end of a normal close */
  case UDCCP_RESET_ABORTED: return ECONNRESET;
  case UDCCP_RESET_NO_CONNECTION: return ECONNREFUSED;
  case UDCCP_RESET_PACKET_ERROR: return ENOMSG;
  case UDCCP_RESET_OPTION_ERROR: return EILSEQ;
  case UDCCP_RESET_MANDATORY_ERROR: return EOPNOTSUPP;
  case UDCCP_RESET_CONNECTION_REFUSED: return ECONNREFUSED;
  case UDCCP_RESET_BAD_SERVICE_CODE: return EBADRQC;
  case UDCCP_RESET_TOO_BUSY: return EUSERS;
  case UDCCP_RESET_BAD_INIT_COOKIE: return EBADR;
  case UDCCP_RESET_AGGRESSION_PENALTY: return EDQUOT;
  default: break;
  }
  switch (err) {
  case 0:
  case UDCCP_ERR_CLOSED: return 0;
  case UDCCP_ERR_TIMEOUT: return ETIMEDOUT;
  case UDCCP_ERR_REFUSED: return ECONNREFUSED;
  case UDCCP_ERR_NOMEM: return ENOMEM;
  default: return ECONNRESET;
  }
}

static int io_errno(int rv) {
  switch (rv) {
  case UDCCP_ERR_ADDRINUSE: return EADDRINUSE;
  case UDCCP_ERR_RESOLVE: return EINVAL;
  case UDCCP_ERR_PERM: return EPERM;
  case UDCCP_ERR_AFNOSUPPORT: return EAFNOSUPPORT;
  case UDCCP_ERR_NOMEM: return ENOMEM;
  case UDCCP_ERR_SOCKET: return errno != 0 ? errno : EIO;
  default: return EINVAL;
  }
}

/* ------------------------------------------------------------ helpers */

static void path_to_sockaddr(int family, const uint8_t *addr, uint8_t pfam,
                             uint16_t port, struct sockaddr_storage *ss,
                             socklen_t *len) {
  memset(ss, 0, sizeof(*ss));
  if (family == AF_INET6) {
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(port);
    if (pfam == UDCCP_AF_INET) { /* v4-mapped, as an AF_INET6 socket sees */
      s6->sin6_addr.s6_addr[10] = 0xff;
      s6->sin6_addr.s6_addr[11] = 0xff;
      memcpy(&s6->sin6_addr.s6_addr[12], addr, 4);
    } else {
      memcpy(&s6->sin6_addr, addr, 16);
    }
    *len = sizeof(*s6);
  } else {
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    s4->sin_family = AF_INET;
    s4->sin_port = htons(port);
    memcpy(&s4->sin_addr, addr, 4);
    *len = sizeof(*s4);
  }
}

static void stat_paths(ucompat_sock *cs) {
  const udccp_path *p = udccp_sock_get_path(cs->us);
  ucompat_stat *st = cs->st;
  snap_begin(st);
  path_to_sockaddr(cs->family, p->local_addr, p->family, p->local_port,
                   &st->local, &st->locallen);
  path_to_sockaddr(cs->family, p->remote_addr, p->family, p->remote_port,
                   &st->peer, &st->peerlen);
  snap_end(st);
}

static void stat_refresh(ucompat_sock *cs) {
  if (cs->us == NULL) {
    return;
  }
  ucompat_stat *st = cs->st;
  atomic_store(&st->mps, (uint32_t)udccp_sock_get_mps(cs->us));
  snap_begin(st);
  udccp_sock_get_info(cs->us, &st->info);
  snap_end(st);
  if (cs->mp != NULL) {
    udccp_mp_info mi;
    (void)udccp_mpsock_get_info(cs->mp, &mi);
    cs->mp_active = mi.active;
  }
}

void ucompat_svc_refresh(ucompat_sock *cs) {
  if (cs->owned) {
    stat_refresh(cs);
  }
}

int ucompat_svc_set_timewait(ucompat_sock *cs, int on) {
  if (!cs->owned || cs->us == NULL) {
    return -1;
  }
  return udccp_conn_set_server_timewait(udccp_sock_get_conn(cs->us), on);
}

static void wake(void) {
  if (g_evfd >= 0) {
    uint64_t one = 1;
    ssize_t r = write(g_evfd, &one, sizeof(one));
    (void)r;
  }
}

static void set_events(ucompat_sock *cs, uint32_t ev) {
  if (cs->svc_fd < 0 || (cs->in_epoll && ev == cs->ev)) {
    return;
  }
  struct epoll_event e;
  memset(&e, 0, sizeof(e));
  e.data.ptr = cs;
  e.events = ev;
  if (ev == 0) {
    if (cs->in_epoll) {
      (void)epoll_ctl(g_epfd, EPOLL_CTL_DEL, cs->svc_fd, &e);
      cs->in_epoll = 0;
    }
    return;
  }
  if (epoll_ctl(g_epfd, cs->in_epoll ? EPOLL_CTL_MOD : EPOLL_CTL_ADD,
                cs->svc_fd, &e) == 0) {
    cs->in_epoll = 1;
    cs->ev = ev;
  }
}

static void list_remove(ucompat_sock *cs) {
  for (ucompat_sock **pp = &g_list; *pp != NULL; pp = &(*pp)->next) {
    if (*pp == cs) {
      *pp = cs->next;
      cs->next = NULL;
      return;
    }
  }
}

/* The thread is done with cs: its connection ended or its application end
 * is gone.  cs itself lives on while the application has descriptors. */
static void finish(ucompat_sock *cs) {
  set_events(cs, 0);
  if (cs->svc_fd >= 0) {
    ucompat_libc.close(cs->svc_fd);
    cs->svc_fd = -1;
  }
  free(cs->pend);
  cs->pend = NULL;
  cs->has_pend = 0;
  free(cs->opend);
  cs->opend = NULL;
  cs->has_opend = 0;
  cs->thread_done = 1;
  list_remove(cs);
  pthread_cond_broadcast(&ucompat_cv);
  if (cs->refs == 0) {
    ucompat_slot_free(cs);
    free(cs);
  }
}

/* ------------------------------------------------------------ endpoints */

static int transport(void) {
  if (g_transport < 0) {
    const char *t = getenv("UDCCP_TRANSPORT");
    g_transport = t != NULL && strcmp(t, "raw") == 0 ? UDCCP_TRANSPORT_RAW
                                                     : UDCCP_TRANSPORT_UDP;
    const char *p = getenv("UDCCP_UDP_PORT");
    if (p != NULL && atoi(p) > 0 && atoi(p) < 65536) {
      g_udp_port = (uint16_t)atoi(p);
    }
  }
  return g_transport;
}

/* UDCCP_MULTIPATH (doc/preload.md): unset, empty or "0": plain DCCP;
 * "1": every connection is a Multipath DCCP connection (RFC 9897,
 * udccp_mpsock), a client's one subflow from the route's address;
 * "ADDR,ADDR...": a client's subflows from each numeric address.  A peer
 * without multipath gives plain DCCP (§3.6).  UDCCP_DEBUG=1 prints one
 * line per multipath connection when it ends (stderr). */
static int g_mp = -1, g_debug;
static char g_mp_buf[512];
static const char *g_mp_local[UDCCP_MP_SUBFLOWS_MAX];
static size_t g_mp_n;

static int multipath(void) {
  if (g_mp < 0) {
    const char *e = getenv("UDCCP_MULTIPATH");
    const char *d = getenv("UDCCP_DEBUG");
    g_debug = d != NULL && strcmp(d, "0") != 0 && *d != '\0';
    g_mp = e != NULL && *e != '\0' && strcmp(e, "0") != 0;
    if (g_mp && strcmp(e, "1") != 0) {
      char *save = NULL;
      snprintf(g_mp_buf, sizeof(g_mp_buf), "%s", e);
      for (char *t = strtok_r(g_mp_buf, ",", &save);
           t != NULL && g_mp_n < UDCCP_MP_SUBFLOWS_MAX;
           t = strtok_r(NULL, ",", &save)) {
        g_mp_local[g_mp_n++] = t;
      }
    }
  }
  return g_mp;
}

/* The endpoints' settings: multipath on when asked. */
static void ep_settings(udccp_endpoint_config *cfg, udccp_settings *st) {
  if (multipath()) {
    udccp_settings_default(st);
    st->multipath = 1; /* RFC 9897 §3.1: Multipath Capable */
    cfg->settings = st;
  }
}

/* UDCCP_KEEPALIVE="IDLE[,INTERVAL[,PROBES]]" or "off" (doc/preload.md)
 * changes the keepalive of every connection of ep; unset or malformed: the
 * library's default (60,10,3). */
static void ep_env_settings(udccp_endpoint *ep) {
  const char *k = getenv("UDCCP_KEEPALIVE");
  udccp_settings st;
  if (k == NULL) {
    return;
  }
  udccp_endpoint_get_settings(ep, &st);
  if (udccp_io_parse_keepalive(k, &st) == 0) {
    (void)udccp_endpoint_set_settings(ep, &st);
  }
}

/* The listeners' bounds from the environment (doc/preload.md); values
 * that do not parse leave the library's defaults. */
static void listen_env(udccp_endpoint_config *cfg) {
  const char *e = getenv("UDCCP_INIT_COOKIE");
  uint32_t n;
  if (e != NULL) {
    (void)udccp_io_parse_cookie_mode(e, &cfg->init_cookie);
  }
  e = getenv("UDCCP_HALF_OPEN_MAX");
  if (e != NULL && udccp_io_parse_bound(e, &n) == 0) {
    cfg->half_open_max = n;
  }
}

static int ep_register(udccp_endpoint *ep) {
  struct epoll_event e;
  ep_env_settings(ep);
  memset(&e, 0, sizeof(e));
  e.events = EPOLLIN;
  e.data.ptr = NULL;
  return epoll_ctl(g_epfd, EPOLL_CTL_ADD, udccp_endpoint_fd(ep), &e);
}

/* The endpoint for a connect() (server = 0) or a listen() (1).  DCCP-UDP
 * needs two on one host: listeners on the agreed UDP port, clients on an
 * ephemeral one sending to it (doc/preload.md). */
static int endpoint_get(int server, udccp_endpoint **pep) {
  int rv = 0;
  if (transport() == UDCCP_TRANSPORT_RAW) {
    if (g_ep_raw == NULL) {
      udccp_endpoint_config cfg;
      udccp_settings st;
      udccp_endpoint_config_default(&cfg);
      cfg.transport = UDCCP_TRANSPORT_RAW;
      ep_settings(&cfg, &st);
      listen_env(&cfg);
      rv = udccp_endpoint_new_config(&g_ep_raw, &cfg);
      if (rv == 0 && ep_register(g_ep_raw) != 0) {
        rv = UDCCP_ERR_SOCKET;
      }
    }
    *pep = g_ep_raw;
    return rv;
  }
  udccp_endpoint **slot = server ? &g_ep_srv : &g_ep_cli;
  if (*slot == NULL) {
    udccp_endpoint_config cfg;
    udccp_settings st;
    udccp_endpoint_config_default(&cfg);
    cfg.transport = UDCCP_TRANSPORT_UDP;
    ep_settings(&cfg, &st);
    cfg.local_port = server ? g_udp_port : 0;
    /* Servers share the UDP port with other processes (another preloaded
     * program, a udccp-perf server), each with its own DCCP ports (RFC
     * 6773 §3.8; udccp.h "Sharing a UDP port"). */
    cfg.reuseport = (uint8_t)server;
    cfg.remote_udp_port = g_udp_port;
    cfg.sockbuf = 1 << 20;
    if (server) {
      listen_env(&cfg);
    }
    rv = udccp_endpoint_new_config(slot, &cfg);
    if (rv == 0 && ep_register(*slot) != 0) {
      rv = UDCCP_ERR_SOCKET;
    }
  }
  *pep = *slot;
  return rv;
}

static void *svc_main(void *arg);

static int thread_start(void) {
  if (g_started) {
    return 0;
  }
  g_epfd = epoll_create1(EPOLL_CLOEXEC);
  g_evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (g_epfd < 0 || g_evfd < 0) {
    return -1;
  }
  struct epoll_event e;
  memset(&e, 0, sizeof(e));
  e.events = EPOLLIN;
  e.data.ptr = &g_evfd;
  (void)epoll_ctl(g_epfd, EPOLL_CTL_ADD, g_evfd, &e);
  /* The program's signal handlers must not run on our thread. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  int rv = pthread_create(&g_thread, &at, svc_main, NULL);
  pthread_attr_destroy(&at);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rv != 0) {
    errno = rv;
    return -1;
  }
  g_started = 1;
  return 0;
}

/* Per-connection settings go through the endpoint's template, which
 * udccp_connect() and udccp_listen() copy; *saved gets the old one. */
static void settings_apply(udccp_endpoint *ep, const ucompat_sock *cs,
                           udccp_settings *saved) {
  udccp_settings t;
  udccp_endpoint_get_settings(ep, saved);
  t = *saved;
  if (cs->tx_ccid != 0) {
    t.ccid = cs->tx_ccid;
  }
  if (cs->rx_ccid != 0) {
    t.rx_ccid = cs->rx_ccid;
  }
  t.send_cscov = cs->send_cscov;
  t.min_cscov = cs->recv_cscov;
  t.qpolicy = cs->qpolicy;
  if (cs->txqlen != 0) {
    t.tx_qlen = cs->txqlen;
  }
  t.server_timewait = cs->server_timewait;
  (void)udccp_endpoint_set_settings(ep, &t); /* the values were checked */
}

/* ------------------------------------------------------------ connect */

int ucompat_svc_connect(ucompat_sock *cs, const struct sockaddr *sa,
                        socklen_t len) {
  char host[INET6_ADDRSTRLEN];
  uint16_t port;
  /* Linux dccp_v4_connect() / dccp_v6_connect(): a short address is
   * EINVAL, one of the other family EAFNOSUPPORT (an AF_INET socket
   * connected to an IPv6 address; a short one was EAFNOSUPPORT). */
  if (len < (cs->family == AF_INET ? sizeof(struct sockaddr_in)
                                   : sizeof(struct sockaddr_in6))) {
    errno = EINVAL;
    return -1;
  }
  if (sa->sa_family != cs->family) {
    errno = EAFNOSUPPORT;
    return -1;
  }
  if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
    inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
    port = ntohs(s4->sin_port);
  } else if (sa->sa_family == AF_INET6 &&
             len >= sizeof(struct sockaddr_in6)) {
    const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
    if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
      inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], host, sizeof(host));
    } else {
      inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
    }
    port = ntohs(s6->sin6_port);
  } else {
    errno = EAFNOSUPPORT;
    return -1;
  }
  if (port == 0) {
    errno = ECONNREFUSED;
    return -1;
  }
  udccp_endpoint *ep = NULL;
  if (thread_start() != 0) {
    return -1;
  }
  int rv = endpoint_get(0, &ep);
  if (rv != 0) {
    errno = io_errno(rv);
    return -1;
  }
  udccp_settings saved;
  settings_apply(ep, cs, &saved);
  udccp_sock *us = NULL;
  errno = 0;
  if (multipath()) {
    udccp_mpsock *m = NULL;
    rv = udccp_mpsock_connect(ep, &m, host, port,
                              cs->nsc > 0 ? cs->sc[0] : 0, 0, g_mp_local,
                              g_mp_n, 0);
    cs->mp = m;
    us = rv == 0 ? udccp_mpsock_subflow(m, 0) : NULL;
  } else {
    rv = udccp_connect(ep, &us, host, port, cs->nsc > 0 ? cs->sc[0] : 0, 0,
                       0);
  }
  (void)udccp_endpoint_set_settings(ep, &saved);
  if (rv != 0) {
    errno = io_errno(rv);
    return -1;
  }
  cs->ep = ep;
  cs->us = us;
  atomic_store(&cs->st->state, UCOMPAT_CONNECTING);
  stat_paths(cs);
  cs->next = g_list;
  g_list = cs;
  wake();
  return 0;
}

/* ------------------------------------------------------------ listen */

/* listen()'s backlog as Linux reads it: at most somaxconn (4096 by
 * default; negative values mean that), 0 still lets one connection wait.
 * UDCCP_BACKLOG overrides the program's value. */
static uint32_t backlog_of(int backlog) {
  uint32_t b;
  const char *e = getenv("UDCCP_BACKLOG");
  if (e != NULL && udccp_io_parse_bound(e, &b) == 0) {
    return b;
  }
  if (backlog < 0 || backlog > 4096) {
    return 4096;
  }
  return backlog == 0 ? 1 : (uint32_t)backlog;
}

int ucompat_svc_listen(ucompat_sock *cs, int backlog) {
  uint16_t port = 0;
  if (cs->bound.ss_family == AF_INET) {
    port = ntohs(((struct sockaddr_in *)&cs->bound)->sin_port);
  } else if (cs->bound.ss_family == AF_INET6) {
    port = ntohs(((struct sockaddr_in6 *)&cs->bound)->sin6_port);
  }
  udccp_endpoint *ep = NULL;
  if (thread_start() != 0) {
    return -1;
  }
  int rv = endpoint_get(1, &ep);
  if (rv != 0) {
    errno = io_errno(rv);
    return -1;
  }
  if (port == 0) { /* listen() without bind(): an ephemeral port */
    port = udccp_endpoint_unused_port(ep);
    struct sockaddr_storage ss;
    socklen_t sl;
    uint8_t any[16] = {0};
    path_to_sockaddr(cs->family, any, cs->family == AF_INET6 ? UDCCP_AF_INET6
                                                             : UDCCP_AF_INET,
                     port, &ss, &sl);
    cs->bound = ss;
    cs->boundlen = sl;
  }
  uint32_t none = 0;
  udccp_settings saved;
  settings_apply(ep, cs, &saved);
  rv = udccp_listen(ep, port, cs->nsc > 0 ? cs->sc : &none,
                    cs->nsc > 0 ? cs->nsc : 1);
  (void)udccp_endpoint_set_settings(ep, &saved);
  if (rv != 0) {
    errno = io_errno(rv);
    return -1;
  }
  cs->ep = ep;
  cs->lport = port;
  cs->backlog = backlog_of(backlog);
  /* Past the backlog, Reset Too Busy (RFC 4340 §5.6): the runtime's
   * queue and the program's both hold at most that many. */
  (void)udccp_listen_set_backlog(ep, port, cs->backlog);
  atomic_store(&cs->st->pending, 0);
  atomic_store(&cs->st->state, UCOMPAT_LISTENING);
  snap_begin(cs->st);
  memcpy(&cs->st->local, &cs->bound, sizeof(cs->bound));
  cs->st->locallen = cs->boundlen;
  snap_end(cs->st);
  cs->next = g_list;
  g_list = cs;
  set_events(cs, EPOLLRDHUP);
  wake();
  return 0;
}

static ucompat_sock *find_listener(udccp_endpoint *ep, uint16_t port) {
  for (ucompat_sock *cs = g_list; cs != NULL; cs = cs->next) {
    if (cs->ep == ep && cs->lport == port && cs->us == NULL &&
        atomic_load(&cs->st->state) == UCOMPAT_LISTENING) {
      return cs;
    }
  }
  return NULL;
}

/* Ends a connection at once (Reset): a multipath one as a whole
 * (MP_FAST_CLOSE, RFC 9897 §3.2.3). */
static void conn_abort(udccp_sock *us, udccp_mpsock *m) {
  if (m != NULL) {
    udccp_mpsock_abort(m);
  } else {
    udccp_abort(us);
  }
}

/* UDCCP_DEBUG: what a multipath connection was, as it ends. */
static void mp_log(const ucompat_sock *cs) {
  udccp_mp_info mi;
  uint64_t tx = 0, rx = 0;
  if (!g_debug || udccp_mpsock_get_info(cs->mp, &mi) != 0) {
    return;
  }
  for (size_t i = 0; i < mi.n_subflows; i++) {
    tx += mi.sub[i].tx_dgrams;
    rx += mi.sub[i].rx_dgrams;
  }
  fprintf(stderr, "udccp-preload: %s connection, multipath %s, %u subflow%s, "
                  "%llu datagrams sent, %llu received\n",
          cs->is_server ? "accepted" : "client",
          mi.active ? "active" : "off (plain DCCP: the peer did not agree)",
          (unsigned)mi.n_subflows, mi.n_subflows == 1 ? "" : "s",
          (unsigned long long)tx, (unsigned long long)rx);
}

/* Closes the connection (RFC 4340 §8.3; RFC 9897 §3.2.11 MP_CLOSE); the
 * runtime finishes the handshakes alone. */
static void conn_close(ucompat_sock *cs) {
  if (cs->mp != NULL) {
    mp_log(cs);
    (void)udccp_mpsock_close(cs->mp, 0);
    cs->mp = NULL;
  } else {
    udccp_close(cs->us, 0);
  }
  cs->us = NULL;
}

/* A connection completed on a listening port: give the program a
 * descriptor for it through the listener's pair.  mp: its multipath
 * connection (us its first subflow), or NULL. */
static void hand_over(ucompat_sock *lis, udccp_sock *us, udccp_mpsock *mp) {
  if (atomic_load(&lis->st->pending) >= lis->backlog) {
    /* The program has not accept()ed its backlog: refuse (RFC 4340
     * §5.6, Too Busy), as Linux's DCCP drops past the backlog. */
    if (mp != NULL) {
      udccp_mpsock_abort(mp);
    } else {
      udccp_abort_code(us, UDCCP_RESET_TOO_BUSY);
    }
    return;
  }
  ucompat_sock *cs = calloc(1, sizeof(*cs));
  int sv[2] = {-1, -1};
  if (cs == NULL || ucompat_libc.socketpair(AF_UNIX, SOCK_SEQPACKET |
                                                         SOCK_CLOEXEC,
                                            0, sv) != 0) {
    free(cs);
    conn_abort(us, mp);
    return;
  }
  *cs = *lis;
  cs->refs = 0;
  cs->owned = 1;
  cs->svc_fd = sv[1];
  cs->in_epoll = 0;
  cs->ev = 0;
  cs->us = us;
  cs->mp = mp;
  cs->lport = 0;
  cs->is_server = 1;
  cs->next = NULL;
  if (ucompat_slot_alloc(cs) != 0) {
    ucompat_libc.close(sv[0]);
    ucompat_libc.close(sv[1]);
    free(cs);
    conn_abort(us, mp);
    return;
  }
  atomic_store(&cs->st->state, UCOMPAT_OPEN);
  stat_paths(cs);
  stat_refresh(cs);
  uint32_t id[2] = {(uint32_t)cs->slot, cs->gen};
  struct iovec iov = {id, sizeof(id)};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } u;
  memset(&u, 0, sizeof(u));
  struct msghdr m;
  memset(&m, 0, sizeof(m));
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = u.buf;
  m.msg_controllen = sizeof(u.buf);
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &sv[0], sizeof(int));
  /* counted before the program can accept() it (preload.c subtracts) */
  atomic_fetch_add(&lis->st->pending, 1);
  ssize_t r = ucompat_libc.sendmsg(lis->svc_fd, &m,
                                   MSG_DONTWAIT | MSG_NOSIGNAL);
  ucompat_libc.close(sv[0]);
  if (r < 0) { /* the program's backlog is full */
    atomic_fetch_sub(&lis->st->pending, 1);
    conn_abort(us, mp);
    cs->us = NULL;
    cs->mp = NULL;
    ucompat_libc.close(sv[1]);
    ucompat_slot_free(cs);
    free(cs);
    return;
  }
  cs->next = g_list;
  g_list = cs;
}

/* ------------------------------------------------------------ the pump */

static udccp_tstamp now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (udccp_tstamp)ts.tv_sec * UDCCP_NS_PER_S + (udccp_tstamp)ts.tv_nsec;
}

static int peer_shut(int fd, short what) {
  struct pollfd p = {fd, POLLRDHUP, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & what) != 0;
}

/* RFC 4340 §8.1.5: a client in PARTOPEN may already send data (DataAck);
 * a kernel server that only listens would otherwise never answer. */
static int can_send(const udccp_sock *us) {
  int st = udccp_sock_state(us);
  return st == UDCCP_STATE_OPEN || st == UDCCP_STATE_PARTOPEN;
}

/* Multipath: the datagram pump_out read that udccp_mpsock_send had no
 * room for goes first; returns 1 while it still waits. */
static int mp_out_held(ucompat_sock *cs) {
  if (cs->has_opend) {
    udccp_ssize r = udccp_mpsock_send(cs->mp, cs->opend, cs->opendlen, 0);
    if (r == UDCCP_ERR_AGAIN) {
      return 1;
    }
    cs->has_opend = 0; /* queued, or refused (too large): as below */
    cs->mp_sent += r >= 0;
  }
  return 0;
}

/* Room for one more datagram towards udccp. */
static int out_room(ucompat_sock *cs) {
  if (cs->mp != NULL) {
    return !cs->has_opend;
  }
  return udccp_conn_get_send_space(udccp_sock_get_conn(cs->us)) > 0;
}

/* Program -> network, while the send queue has room. */
static int pump_out(ucompat_sock *cs) {
  int queued = 0;
  size_t hdr = cs->qpolicy == UDCCP_QPOLICY_PRIO ? UCOMPAT_PRIO_HDR : 0;
  if (cs->mp != NULL && mp_out_held(cs)) {
    return 0;
  }
  while (!cs->app_eof && can_send(cs->us) && out_room(cs)) {
    ssize_t n = recv(cs->svc_fd, g_buf, sizeof(g_buf), MSG_DONTWAIT);
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        cs->app_eof = 1;
      }
      break;
    }
    if (n == 0 && peer_shut(cs->svc_fd, POLLRDHUP | POLLHUP)) {
      cs->app_eof = 1;
      break;
    }
    if ((size_t)n < hdr) {
      continue;
    }
    uint32_t prio = 0;
    if (hdr != 0) {
      memcpy(&prio, g_buf, sizeof(prio));
    }
    queued = 1;
    if (cs->mp != NULL) {
      /* no priorities across paths: the scheduler's order */
      udccp_ssize r = udccp_mpsock_send(cs->mp, g_buf + hdr,
                                        (size_t)n - hdr, 0);
      if (r == UDCCP_ERR_AGAIN) {
        uint8_t *p = realloc(cs->opend, (size_t)n > hdr ? (size_t)n - hdr : 1);
        if (p == NULL) {
          break; /* lost, as a full send queue would lose it */
        }
        cs->opend = p;
        memcpy(p, g_buf + hdr, (size_t)n - hdr);
        cs->opendlen = (size_t)n - hdr;
        cs->has_opend = 1;
      }
      cs->mp_sent += r >= 0;
      continue;
    }
    /* Over the MPS (it shrank after the program's check): dropped, as
     * a datagram the network would not carry. */
    (void)udccp_conn_queue_datagram(udccp_sock_get_conn(cs->us), g_buf + hdr,
                                    (size_t)n - hdr, prio, now_ns());
  }
  return queued;
}

/* Multipath: the next datagram for the program.  Fallen back (or not
 * known yet), only when the subflow holds one: udccp_mpsock_recv would
 * run the endpoint's loop to wait for it. */
static udccp_ssize mp_recv(ucompat_sock *cs) {
  if (!cs->mp_active && udccp_sock_peek_len(cs->us) < 0) {
    return UDCCP_ERR_AGAIN;
  }
  udccp_ssize n = udccp_mpsock_recv(cs->mp, g_buf, sizeof(g_buf), 0);
  if (n < 0 && n != UDCCP_ERR_AGAIN && n != UDCCP_ERR_NOBUF) {
    cs->mp_rx_end = 1; /* every subflow is done, all was read */
  }
  return n;
}

/* Multipath: every datagram the program wrote was handed to a subflow. */
static int mp_out_done(const ucompat_sock *cs) {
  udccp_mp_info mi;
  uint64_t tx = 0;
  if (cs->has_opend || udccp_mpsock_get_info(cs->mp, &mi) != 0) {
    return 0;
  }
  for (size_t i = 0; i < mi.n_subflows; i++) {
    tx += mi.sub[i].tx_dgrams;
  }
  return tx >= cs->mp_sent;
}

/* Network -> program, while the pair takes them. */
static void pump_in(ucompat_sock *cs) {
  for (;;) {
    if (cs->has_pend) {
      ssize_t r = send(cs->svc_fd, cs->pend, cs->pendlen,
                       MSG_DONTWAIT | MSG_NOSIGNAL);
      if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
      }
      cs->has_pend = 0; /* sent, or the program shut reading: dropped */
    }
    udccp_ssize n;
    if (cs->mp != NULL) {
      n = mp_recv(cs);
    } else if (udccp_sock_peek_len(cs->us) < 0) {
      return;
    } else {
      n = udccp_recv(cs->us, g_buf, sizeof(g_buf), 0);
    }
    if (n < 0) {
      return;
    }
    ssize_t r = send(cs->svc_fd, g_buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      uint8_t *p = realloc(cs->pend, (size_t)n > 0 ? (size_t)n : 1);
      if (p == NULL) {
        return; /* lost, as a full receive buffer loses it */
      }
      cs->pend = p;
      memcpy(p, g_buf, (size_t)n);
      cs->pendlen = (size_t)n;
      cs->has_pend = 1;
      return;
    }
  }
}

/* Reset "Aborted" (RFC 4340 §5.6, code 2); the thread is done with cs. */
static void abort_now(ucompat_sock *cs) {
  conn_abort(cs->us, cs->mp);
  cs->us = NULL;
  cs->mp = NULL;
  atomic_store(&cs->st->state, UCOMPAT_CLOSED);
  finish(cs);
}

/* The handshake is over: the program's end becomes writable (POLLOUT, as
 * Linux's connected or failed socket) once the datagrams that held it
 * are read (preload.c gate_close).  They were written before anything
 * else, so they are the first ones. */
static void gate_open(ucompat_sock *cs) {
  char b;
  struct iovec v = {&b, 1};
  struct msghdr m;
  memset(&m, 0, sizeof(m));
  m.msg_iov = &v;
  m.msg_iovlen = 1;
  while (cs->gate > 0 && cs->svc_fd >= 0 &&
         ucompat_libc.recvmsg(cs->svc_fd, &m, MSG_DONTWAIT) >= 0) {
    cs->gate--;
  }
  cs->gate = 0;
}

/* One connection's turn.  Returns 1 if it queued datagrams. */
static int service(ucompat_sock *cs) {
  ucompat_stat *st = cs->st;
  int state = atomic_load(&st->state);
  if (cs->us == NULL) {
    return 0;
  }
  int ust = udccp_sock_state(cs->us);
  int err = udccp_sock_error(cs->us);
  if (state == UCOMPAT_CONNECTING) {
    if (err == 0 && ust >= UDCCP_STATE_PARTOPEN) {
      /* the program may read the connection's state and options (its
       * CCIDs, MPS) as soon as it is writable: gate open last */
      stat_paths(cs);
      stat_refresh(cs);
      atomic_store(&st->state, UCOMPAT_OPEN);
      gate_open(cs);
      pthread_cond_broadcast(&ucompat_cv);
      state = UCOMPAT_OPEN;
    } else if (err != 0) {
      int e = ucompat_errno_of(err, udccp_sock_reset_code(cs->us));
      atomic_store(&st->err, e != 0 ? e : ECONNREFUSED);
      atomic_store(&st->state, UCOMPAT_CLOSED);
      gate_open(cs); /* POLLOUT with POLLHUP, as a failed connect */
      ucompat_libc.shutdown(cs->svc_fd, SHUT_RDWR);
      conn_close(cs);
      finish(cs);
      return 0;
    } else {
      return 0;
    }
  }
  if (cs->is_server && !atomic_load(&st->accepted) &&
      peer_shut(cs->svc_fd, POLLHUP)) {
    /* Handed over, never accept()ed, and the program's end is gone: its
     * listener closed or stopped with it in the backlog (the descriptor
     * in flight went with the listener's end).  Linux's
     * inet_csk_listen_stop() disconnects such a child: dccp_disconnect()
     * sends Reset "Aborted" (RFC 4340 §5.6, code 2), not a Close. */
    cs->abort_req = 1;
  }
  if (cs->abort_req) {
    /* Linux dccp_close(): unread data or a zero linger time abort the
     * connection with Reset "Aborted" (RFC 4340 §5.6, code 2). */
    abort_now(cs);
    return 1;
  }
  int queued = pump_out(cs);
  pump_in(cs);
  if (cs->app_eof && !cs->shut_sent && cs->mp != NULL && mp_out_done(cs)) {
    /* Multipath: the whole connection closes (MP_CLOSE on every subflow,
     * RFC 9897 §3.2.11) once the scheduler placed what the program sent;
     * what the peer still sends is not read (doc/preload.md). */
    cs->shut_sent = 1;
    atomic_store(&st->state, UCOMPAT_CLOSED);
    ucompat_libc.shutdown(cs->svc_fd, SHUT_WR);
    conn_close(cs);
    finish(cs);
    return queued;
  }
  if (cs->app_eof && !cs->shut_sent && cs->mp == NULL) {
    /* The program closed or shut down writing: RFC 4340 §8.3 graceful
     * close once what it sent is out. */
    cs->shut_sent = 1;
    (void)udccp_shutdown(cs->us);
  }
  stat_refresh(cs);
  ust = udccp_sock_state(cs->us);
  err = udccp_sock_error(cs->us);
  int closed = err != 0 || ust == UDCCP_STATE_TIMEWAIT ||
               ust == UDCCP_STATE_CLOSED;
  int drained = udccp_sock_peek_len(cs->us) < 0;
  if (cs->mp != NULL && cs->mp_active) {
    closed = drained = cs->mp_rx_end; /* every path, not the first alone */
  }
  if (closed && !cs->has_pend && drained) {
    int e = ucompat_errno_of(err, udccp_sock_reset_code(cs->us));
    if (e != 0) {
      atomic_store(&st->err, e);
    }
    atomic_store(&st->state, UCOMPAT_CLOSED);
    /* A Reset: hang-up both ways.  A close: end of file for the reader. */
    ucompat_libc.shutdown(cs->svc_fd, e != 0 ? SHUT_RDWR : SHUT_WR);
    conn_close(cs); /* the runtime finishes TIMEWAIT alone */
    finish(cs);
    return queued;
  }
  uint32_t ev = 0;
  if (!cs->app_eof && can_send(cs->us) && out_room(cs)) {
    ev |= EPOLLIN | EPOLLRDHUP;
  }
  if (cs->has_pend) {
    ev |= EPOLLOUT;
  }
  set_events(cs, ev);
  return queued;
}

static void service_listener(ucompat_sock *cs) {
  if (peer_shut(cs->svc_fd, POLLHUP | POLLRDHUP)) {
    (void)udccp_unlisten(cs->ep, cs->lport);
    atomic_store(&cs->st->state, UCOMPAT_CLOSED);
    cs->lport = 0;
    finish(cs);
  }
}

static int listening(udccp_endpoint *ep) {
  for (ucompat_sock *cs = g_list; cs != NULL; cs = cs->next) {
    if (cs->ep == ep && cs->lport != 0) {
      return 1;
    }
  }
  return 0;
}

static void turn(void) {
  udccp_endpoint *eps[3] = {g_ep_raw, g_ep_srv, g_ep_cli};
  for (int i = 0; i < 3; i++) {
    if (eps[i] == NULL) {
      continue;
    }
    (void)udccp_endpoint_process(eps[i]);
    if (listening(eps[i])) {
      udccp_sock *us;
      udccp_mpsock *m = NULL;
      while (multipath() ? udccp_mpsock_accept(eps[i], &m, 0) == 0 &&
                               (us = udccp_mpsock_subflow(m, 0)) != NULL
                         : udccp_accept(eps[i], &us, 0) == 0) {
        ucompat_sock *lis = find_listener(eps[i], udccp_sock_get_path(us)->local_port);
        if (lis == NULL) {
          conn_abort(us, m);
        } else {
          hand_over(lis, us, m);
        }
      }
    }
  }
  int queued = 0;
  ucompat_sock *next;
  for (ucompat_sock *cs = g_list; cs != NULL; cs = next) {
    next = cs->next;
    if (cs->lport != 0) {
      service_listener(cs);
    } else {
      queued |= service(cs);
    }
  }
  if (queued) {
    for (int i = 0; i < 3; i++) {
      if (eps[i] != NULL) {
        (void)udccp_endpoint_process(eps[i]);
      }
    }
  }
}

static int next_timeout(void) {
  udccp_endpoint *eps[3] = {g_ep_raw, g_ep_srv, g_ep_cli};
  int t = -1;
  for (int i = 0; i < 3; i++) {
    if (eps[i] != NULL) {
      int e = udccp_endpoint_timeout_ms(eps[i]);
      if (e >= 0 && (t < 0 || e < t)) {
        t = e;
      }
    }
  }
  /* Our own turn (service() of every socket) runs at least every 100 ms. */
  return t < 0 || t > 100 ? 100 : t;
}

static void *svc_main(void *arg) {
  (void)arg;
  int zero = 0;
  pthread_mutex_lock(&ucompat_mu);
  for (;;) {
    int t = next_timeout();
    zero = t == 0 ? zero + 1 : 0;
    if (zero > 3) {
      t = 1; /* a timer that stays due must not spin */
    }
    pthread_mutex_unlock(&ucompat_mu);
    struct epoll_event ev[64];
    int n = epoll_wait(g_epfd, ev, 64, t);
    pthread_mutex_lock(&ucompat_mu);
    for (int i = 0; i < n; i++) {
      if (ev[i].data.ptr == &g_evfd) {
        uint64_t v;
        ssize_t r = read(g_evfd, &v, sizeof(v));
        (void)r;
      }
    }
    turn();
  }
  return NULL;
}

void ucompat_svc_renew(ucompat_sock *cs, int svc_fd) {
  cs->svc_fd = svc_fd;
  cs->in_epoll = 0;
  cs->ev = 0;
  cs->ep = NULL;
  cs->us = NULL;
  cs->mp = NULL;
  cs->app_eof = cs->thread_done = cs->shut_sent = cs->abort_req = 0;
  cs->wr_shut = 0;
  cs->mp_active = cs->mp_rx_end = 0;
  cs->mp_sent = 0;
  cs->gate = 0;
  atomic_store(&cs->st->err, 0);
  atomic_store(&cs->st->mps, 0);
  atomic_store(&cs->st->state, UCOMPAT_NEW);
}

int ucompat_svc_disconnect(ucompat_sock *cs) {
  int e = atomic_load(&cs->st->err);
  if (cs->lport != 0) {
    /* a listener stops: what it had not handed over yet is dropped */
    (void)udccp_unlisten(cs->ep, cs->lport);
    cs->lport = 0;
  } else if (cs->us != NULL) {
    /* in a handshake or connected: Reset "Aborted" (RFC 4340 §5.6, code
     * 2), the ABORT of RFC 793 §3.8 Linux's dccp_disconnect() cites; its
     * error, ECONNRESET, is the socket's next one */
    conn_abort(cs->us, cs->mp);
    cs->us = NULL;
    cs->mp = NULL;
    e = ECONNRESET;
  }
  atomic_store(&cs->st->state, UCOMPAT_CLOSED);
  if (!cs->thread_done) {
    finish(cs); /* the program holds descriptors: cs stays */
  }
  wake(); /* the Reset goes out on the thread's next turn */
  return e;
}

void ucompat_svc_release(ucompat_sock *cs) {
  if (!cs->owned) {
    free(cs); /* a child's copy: the slot is the owning process's */
    return;
  }
  if (cs->thread_done) {
    ucompat_slot_free(cs);
    free(cs);
    return;
  }
  /* Still ours: the thread sees the hang-up on the pair and closes. */
  if (cs->us == NULL && cs->lport == 0) {
    /* Never connected nor listening. */
    finish(cs);
    return;
  }
  wake();
}

void ucompat_svc_atfork_child(void) {
  /* The parent's endpoints and connections stay the parent's: its thread
   * serves the descriptors we inherited through their pairs.  Drop our
   * copies of its private descriptors. */
  udccp_endpoint *eps[3] = {g_ep_raw, g_ep_srv, g_ep_cli};
  for (int i = 0; i < 3; i++) {
    if (eps[i] != NULL) {
      udccp_endpoint_forget_after_fork(eps[i]);
    }
  }
  g_ep_raw = g_ep_srv = g_ep_cli = NULL;
  for (ucompat_sock *cs = g_list; cs != NULL; cs = cs->next) {
    if (cs->svc_fd >= 0) {
      ucompat_libc.close(cs->svc_fd);
    }
    cs->svc_fd = -1;
    cs->owned = 0;
    cs->us = NULL;
    cs->mp = NULL;
  }
  g_list = NULL;
  memset(g_slot_owner, 0, sizeof(g_slot_owner));
  if (g_epfd >= 0) {
    ucompat_libc.close(g_epfd);
  }
  if (g_evfd >= 0) {
    ucompat_libc.close(g_evfd);
  }
  g_epfd = g_evfd = -1;
  g_started = 0;
}

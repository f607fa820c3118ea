/* SPDX-License-Identifier: MIT */
/*
 * The socket runtime's endpoint: its sockets, the preallocated receive and
 * transmit batches (recvmmsg/sendmmsg), demultiplexing of incoming packets
 * to connections and listeners, the timers, and the event loop.
 *
 * Transports (DESIGN.md §3):
 *   DCCP-UDP (RFC 6773): the UDP socket's own checksum protects the packet;
 *     the DCCP checksum is sent as zero and ignored (§3.3).  Connections
 *     are found by the 6-tuple (§3.8, second method: several DCCP
 *     connections may share one UDP 4-tuple).
 *   raw DCCP (IP protocol 33): the pseudo-header checksum (RFC 4340 §9).  A
 *     raw socket sees every DCCP packet of the host, so packets for DCCP
 *     ports this endpoint does not own are dropped, by a BPF filter in the
 *     kernel and again here; we never answer for someone else's port.
 */
#include <errno.h>
#include <limits.h>
#include <time.h>

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "addr.h"
#include "endpoint.h"
#include "siphash.h"
#include "wire.h"

static void tx_flush(udccp_endpoint *ep);
static udccp_tstamp rx_drain(udccp_endpoint *ep);

udccp_tstamp udccp_io_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (udccp_tstamp)ts.tv_sec * UDCCP_NS_PER_S + (udccp_tstamp)ts.tv_nsec;
}

void udccp_io_rand(uint8_t *dest, size_t len, void *user_data) {
  (void)user_data;
  while (len > 0) {
    ssize_t n = getrandom(dest, len, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) {
        continue;
      }
      /* getrandom(2) without GRND_NONBLOCK cannot fail for small lengths
       * once the pool is ready; never leave the buffer predictable. */
      abort();
    }
    dest += n;
    len -= (size_t)n;
  }
}

udccp_tstamp udccp_io_deadline(int timeout_ms) {
  if (timeout_ms < 0) {
    return UDCCP_TSTAMP_NEVER;
  }
  return udccp_io_now() + (udccp_tstamp)timeout_ms * UDCCP_NS_PER_MS;
}

const char *udccp_io_strerror(int err) {
  switch (err) {
  case UDCCP_ERR_ADDRINUSE: return "address already in use";
  case UDCCP_ERR_RESOLVE: return "unknown host or unparsable address";
  case UDCCP_ERR_SOCKET: return "socket system call failed";
  case UDCCP_ERR_PERM:
    return "permission denied: raw DCCP sockets need root or CAP_NET_RAW";
  case UDCCP_ERR_AFNOSUPPORT: return "address family not available";
  default: return udccp_strerror(err);
  }
}

void udccp_endpoint_config_default(udccp_endpoint_config *cfg) {
  memset(cfg, 0, sizeof(*cfg));
  cfg->transport = UDCCP_TRANSPORT_UDP;
  cfg->remote_udp_port = UDCCP_UDP_PORT_DEFAULT;
  cfg->batch = 64;
  cfg->sockbuf = 4 * 1024 * 1024;
}

void udccp_io_conn_settings(const udccp_endpoint *ep, int fidx, uint8_t ccid,
                            udccp_settings *out) {
  *out = ep->settings;
  uint32_t ip = fidx == UDCCP_IO_V4 ? 20 : 40;
  out->hdr_overhead =
      ip + (ep->cfg.transport == UDCCP_TRANSPORT_UDP ? 8u : 0u);
  if (ccid != 0) {
    out->ccid = ccid;
  }
}

/* ------------------------------------------------------------ sockets */

static int sys_error(void) {
  switch (errno) {
  case EADDRINUSE: return UDCCP_ERR_ADDRINUSE;
  case EPERM:
  case EACCES: return UDCCP_ERR_PERM;
  case EAFNOSUPPORT: return UDCCP_ERR_AFNOSUPPORT;
  case ENOMEM:
  case ENOBUFS: return UDCCP_ERR_NOMEM;
  default: return UDCCP_ERR_SOCKET;
  }
}

/* Packets one turn of rounds reads at most: rounds batches, but no more
 * than an application's receive queue holds (a larger transmit batch
 * must not make a turn overrun it: the excess would be dropped there). */
static size_t rx_budget(const udccp_endpoint *ep, int rounds) {
  size_t b = (size_t)rounds * ep->batch;
  if (ep->settings.rx_qlen > 0 && b > ep->settings.rx_qlen) {
    b = ep->settings.rx_qlen;
  }
  return b;
}

static void set_int(int fd, int level, int name, int val) {
  (void)setsockopt(fd, level, name, &val, sizeof(val));
}

static int open_socket(udccp_endpoint *ep, int fidx, uint16_t port) {
  int af = fidx == UDCCP_IO_V4 ? AF_INET : AF_INET6;
  int raw = ep->cfg.transport == UDCCP_TRANSPORT_RAW;
  int fd = socket(af, (raw ? SOCK_RAW : SOCK_DGRAM) | SOCK_NONBLOCK |
                          SOCK_CLOEXEC,
                  raw ? UDCCP_IPPROTO_DCCP : 0);
  if (fd < 0) {
    return sys_error();
  }
  if (raw) {
    /* A raw socket receives from the moment it exists: shut the door at
     * once (no port owned yet: accept nothing), then empty what slipped
     * in before the filter. */
    struct sock_filter prog[8];
    size_t n = udccp_io_bpf_build(prog, 8, fidx == UDCCP_IO_V4, NULL, 0);
    struct sock_fprog fp = {(unsigned short)n, prog};
    (void)setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp));
    uint8_t junk[64];
    for (int k = 0; k < 100000 && recv(fd, junk, sizeof(junk), MSG_DONTWAIT) >= 0;
         k++) {
    }
  }
  if (ep->cfg.sockbuf > 0) {
    /* FORCE variants pass rmem_max as root; fall back quietly. */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &ep->cfg.sockbuf,
                   sizeof(int)) != 0) {
      set_int(fd, SOL_SOCKET, SO_RCVBUF, ep->cfg.sockbuf);
    }
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &ep->cfg.sockbuf,
                   sizeof(int)) != 0) {
      set_int(fd, SOL_SOCKET, SO_SNDBUF, ep->cfg.sockbuf);
    }
  }
  if (fidx == UDCCP_IO_V4) {
    /* RFC 4340 §14: DCCP packets carry DF; EMSGSIZE tells us the MTU. */
    set_int(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO);
    set_int(fd, IPPROTO_IP, IP_PKTINFO, 1);
    set_int(fd, IPPROTO_IP, IP_RECVTOS, 1);
    set_int(fd, IPPROTO_IP, IP_RECVERR, 1);
  } else {
    set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
    set_int(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO);
    set_int(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1);
    set_int(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1);
    set_int(fd, IPPROTO_IPV6, IPV6_RECVERR, 1);
  }
  if (!raw) {
    udccp_io_offload_setup(ep, fd);
    if (ep->cfg.reuseport) {
      set_int(fd, SOL_SOCKET, SO_REUSEPORT, 1); /* share.c */
    }
  }
  if (!raw || ep->local_family != 0) {
    struct sockaddr_storage ss;
    uint8_t any[16] = {0};
    uint8_t fam = fidx == UDCCP_IO_V4 ? UDCCP_AF_INET : UDCCP_AF_INET6;
    const uint8_t *a = ep->local_family != 0 ? ep->local_addr : any;
    socklen_t sl = udccp_io_addr_to_sockaddr(&ss, fam, a, raw ? 0 : port);
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0) {
      int rv = sys_error();
      close(fd);
      return rv;
    }
  }
  ep->fd[fidx] = fd;
  return 0;
}

static int open_sockets(udccp_endpoint *ep) {
  int want[2];
  want[UDCCP_IO_V4] = ep->local_family == 0 ||
                      ep->local_family == UDCCP_AF_INET;
  want[UDCCP_IO_V6] = ep->local_family == 0 ||
                      ep->local_family == UDCCP_AF_INET6;
  uint16_t port = ep->cfg.local_port;
  /* With two sockets and an ephemeral port, the second bind may find the
   * port taken in its family: pick again a few times. */
  for (int attempt = 0; attempt < 8; attempt++) {
    int rv = 0;
    uint16_t p = port;
    for (int f = 0; f < 2 && rv == 0; f++) {
      if (!want[f]) {
        continue;
      }
      rv = open_socket(ep, f, p);
      if (rv == UDCCP_ERR_AFNOSUPPORT && ep->local_family == 0 &&
          f == UDCCP_IO_V6) {
        rv = 0; /* a host without IPv6: carry on with IPv4 */
        continue;
      }
      if (rv == 0 && p == 0 && ep->cfg.transport == UDCCP_TRANSPORT_UDP) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        uint8_t fam, addr[16];
        if (getsockname(ep->fd[f], (struct sockaddr *)&ss, &sl) == 0) {
          (void)udccp_io_addr_from_sockaddr((struct sockaddr *)&ss, &fam,
                                            addr, &p);
        }
      }
    }
    if (rv == 0) {
      ep->udp_port = ep->cfg.transport == UDCCP_TRANSPORT_UDP ? p : 0;
      return 0;
    }
    for (int f = 0; f < 2; f++) {
      if (ep->fd[f] >= 0) {
        close(ep->fd[f]);
        ep->fd[f] = -1;
      }
    }
    if (!(rv == UDCCP_ERR_ADDRINUSE && port == 0)) {
      return rv;
    }
  }
  return UDCCP_ERR_ADDRINUSE;
}

int udccp_endpoint_new(udccp_endpoint **pep, int transport,
                       const char *local_host, uint16_t local_port) {
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  if (transport != UDCCP_TRANSPORT_UDP && transport != UDCCP_TRANSPORT_RAW) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  cfg.transport = (uint8_t)transport;
  cfg.local_host = local_host;
  cfg.local_port = local_port;
  return udccp_endpoint_new_config(pep, &cfg);
}

int udccp_endpoint_new_config(udccp_endpoint **pep,
                              const udccp_endpoint_config *cfg) {
  if (pep == NULL || cfg == NULL ||
      (cfg->transport != UDCCP_TRANSPORT_UDP &&
       cfg->transport != UDCCP_TRANSPORT_RAW) ||
      (cfg->reuseport && cfg->transport != UDCCP_TRANSPORT_UDP)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  udccp_endpoint *ep = calloc(1, sizeof(*ep));
  if (ep == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  ep->cfg = *cfg;
  ep->cfg.local_host = NULL; /* not kept: the caller owns the string */
  ep->fd[0] = ep->fd[1] = ep->epfd = -1;
  ep->inbox_fd = ep->fwd_fd = -1;
  ep->group_n = 1;
  ep->batch = cfg->batch == 0 ? 64 : cfg->batch;
  if (ep->batch > UDCCP_IO_BATCH_MAX) {
    ep->batch = UDCCP_IO_BATCH_MAX;
  }
  if (cfg->settings != NULL) {
    ep->settings = *cfg->settings;
  } else {
    udccp_settings_default(&ep->settings);
  }
  udccp_io_rng_seed(&ep->rng);
  udccp_csprng_fill(ep->port_key, sizeof(ep->port_key), &ep->rng);
  ep->settings.rand = udccp_csprng_fill;
  ep->settings.rand_user_data = &ep->rng;
  if (ep->settings.mem == NULL) {
    if (udccp_mempool_new(&ep->pool, NULL, 0) != 0) {
      free(ep);
      return UDCCP_ERR_NOMEM;
    }
    ep->settings.mem = udccp_mempool_mem(ep->pool);
  }
  /* RFC 6773 §3.3: the DCCP checksum is zero on DCCP-UDP. */
  ep->settings.cksum_mode = cfg->transport == UDCCP_TRANSPORT_UDP
                                ? UDCCP_CKSUM_NONE
                                : UDCCP_CKSUM_FULL;
  int rv = 0;
  if (cfg->local_host != NULL &&
      udccp_io_parse_numeric(cfg->local_host, &ep->local_family,
                             ep->local_addr) != 0) {
    rv = UDCCP_ERR_RESOLVE;
    goto fail;
  }
  uint64_t seed;
  udccp_csprng_fill((uint8_t *)&seed, sizeof(seed), &ep->rng);
  ep->tbuf = malloc(UDCCP_IO_TXARENA);
  ep->gso_seg_max = UINT32_MAX;
  ep->portref = calloc(65536, sizeof(uint16_t));
  if (ep->tbuf == NULL || ep->portref == NULL ||
      udccp_demux_init(&ep->demux, 64, seed) != 0) {
    rv = UDCCP_ERR_NOMEM;
    goto fail;
  }
  ep->gso = ep->gro =
      cfg->transport == UDCCP_TRANSPORT_UDP && !cfg->no_offload;
  rv = open_sockets(ep);
  if (rv != 0) {
    goto fail;
  }
  if (!ep->gro) {
    /* One socket may have taken UDP_GRO before the other refused it: the
     * receive slots below are too small for coalesced datagrams. */
    for (int f = 0; f < 2; f++) {
      if (ep->fd[f] >= 0 && cfg->transport == UDCCP_TRANSPORT_UDP) {
        udccp_io_gro_off(ep->fd[f]);
      }
    }
  }
  /* A coalesced (GRO) datagram may be up to 64 KiB. */
  ep->rxbufsz = ep->gro ? 65536 : UDCCP_IO_RXBUF;
  /* With GRO a turn asks for no more messages than its packet budget
   * holds at UDCCP_IO_GRO_SEGS_MAX each (recv_fd): that many slots
   * (256 KiB for the default receive queue), not a batch of them. */
  ep->rslots = ep->batch;
  if (ep->gro) {
    size_t most = rx_budget(ep, UDCCP_IO_RX_ROUNDS) / UDCCP_IO_GRO_SEGS_MAX;
    most = most < 2 ? 2 : most;
    ep->rslots = most < ep->batch ? (uint32_t)most : ep->batch;
  }
  ep->rbuf = malloc((size_t)ep->rslots * ep->rxbufsz);
  if (ep->rbuf == NULL) {
    rv = UDCCP_ERR_NOMEM;
    goto fail;
  }
  ep->epfd = epoll_create1(EPOLL_CLOEXEC);
  if (ep->epfd < 0) {
    rv = sys_error();
    goto fail;
  }
  for (int f = 0; f < 2; f++) {
    if (ep->fd[f] < 0) {
      continue;
    }
    struct epoll_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN;
    ev.data.u32 = (uint32_t)f;
    if (epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->fd[f], &ev) != 0) {
      rv = sys_error();
      goto fail;
    }
  }
  *pep = ep;
  return 0;
fail:
  udccp_endpoint_del(ep);
  return rv;
}

void udccp_endpoint_del(udccp_endpoint *ep) {
  if (ep == NULL) {
    return;
  }
  tx_flush(ep); /* what udccp_send_more() left in the batch */
  udccp_io_mp_free_all(ep); /* before their subflows */
  while (ep->nsocks > 0) {
    udccp_io_sock_free(ep->socks[ep->nsocks - 1]);
  }
  free(ep->socks);
  free(ep->heap);
  free(ep->dirty);
  free(ep->ready);
  for (size_t i = 0; i < ep->nlis; i++) {
    udccp_listener_del(ep->lis[i].lis[0]);
    udccp_listener_del(ep->lis[i].lis[1]);
    udccp_io_share_close(ep, ep->lis[i].claim_fd);
  }
  udccp_io_share_close(ep, ep->inbox_fd);
  if (ep->fwd_fd >= 0) {
    close(ep->fwd_fd);
  }
  free(ep->lis);
  for (int f = 0; f < 2; f++) {
    if (ep->fd[f] >= 0) {
      close(ep->fd[f]);
    }
  }
  if (ep->epfd >= 0) {
    close(ep->epfd);
  }
  udccp_demux_free(&ep->demux);
  free(ep->rbuf);
  free(ep->tbuf);
  free(ep->portref);
  udccp_mempool_del(ep->pool); /* last: every connection is gone */
  free(ep);
}

uint16_t udccp_endpoint_local_port(const udccp_endpoint *ep) {
  return ep->udp_port;
}

int udccp_endpoint_fd(const udccp_endpoint *ep) { return ep->epfd; }

void udccp_endpoint_get_stats(const udccp_endpoint *ep,
                              udccp_endpoint_stats *stats) {
  *stats = ep->stats;
}

/* ---------------------------------------------------- ports and filter */

void udccp_io_port_ref(udccp_endpoint *ep, uint16_t port, int delta) {
  uint16_t old = ep->portref[port];
  if (delta > 0 && old < UINT16_MAX) {
    ep->portref[port]++;
  } else if (delta < 0 && old > 0) {
    ep->portref[port]--;
  }
  if ((old == 0) != (ep->portref[port] == 0)) {
    ep->filter_dirty = 1;
  }
}

static int is_listening(const udccp_endpoint *ep, uint16_t port) {
  for (size_t i = 0; i < ep->nlis; i++) {
    if (ep->lis[i].port == port) {
      return 1;
    }
  }
  return 0;
}

/* RFC 6056 §3.3.4, Algorithm 4 (double-hash port selection): offset =
 * F(addresses, remote ports, secret), index = G(the same, another key
 * part), port = offset + T[index]++, then every port once from there.
 * Connections to one destination take consecutive ports, so a client that
 * opens and aborts many of them does not come back to a port the server
 * still holds in TIMEWAIT (RFC 4340 §8.5 step 2 answers a Request there
 * with Reset(No Connection)): with a random port per connection, 200
 * connections to one server collided about once (the attack suite's
 * legitimate handshakes were refused 1-3 times in 200).  Other
 * destinations' counters are apart, so ports stay unpredictable to them. */
uint16_t udccp_io_pick_port_for(udccp_endpoint *ep, const udccp_path *path,
                                uint16_t remote_udp_port) {
  const uint32_t span = 65536u - UDCCP_IO_EPHEMERAL_LO;
  uint8_t msg[1 + 16 + 16 + 2 + 2];
  msg[0] = path->family;
  memcpy(msg + 1, path->local_addr, 16);
  memcpy(msg + 17, path->remote_addr, 16);
  msg[33] = (uint8_t)(path->remote_port >> 8);
  msg[34] = (uint8_t)path->remote_port;
  msg[35] = (uint8_t)(remote_udp_port >> 8);
  msg[36] = (uint8_t)remote_udp_port;
  uint64_t h = udccp_siphash24(ep->port_key, msg, sizeof(msg));
  uint32_t offset = (uint32_t)h;                   /* F */
  uint16_t *next = &ep->port_table[(h >> 32) % UDCCP_IO_PORT_TABLE]; /* G */
  udccp_path p = *path;
  udccp_demux_key k;
  /* then every port once: a remote with most of the range in use still
   * finds the free ones */
  for (uint32_t i = 0; i < span; i++) {
    p.local_port =
        (uint16_t)(UDCCP_IO_EPHEMERAL_LO + (offset + *next + i) % span);
    if (is_listening(ep, p.local_port) ||
        udccp_io_steer(p.remote_port, p.local_port, ep->group_n) !=
            ep->group_k) {
      continue; /* a worker's replies must come back to it (share.c) */
    }
    udccp_demux_key_make(&k, &p, remote_udp_port);
    if (udccp_demux_find(&ep->demux, &k) == NULL) {
      *next = (uint16_t)(*next + i + 1);
      return p.local_port;
    }
  }
  return 0;
}

uint16_t udccp_io_pick_port(udccp_endpoint *ep) {
  for (int i = 0; i < 256; i++) {
    uint16_t r;
    udccp_csprng_fill((uint8_t *)&r, sizeof(r), &ep->rng);
    uint16_t p = (uint16_t)(UDCCP_IO_EPHEMERAL_LO +
                            r % (65536u - UDCCP_IO_EPHEMERAL_LO));
    if (ep->portref[p] == 0) {
      return p;
    }
  }
  return 0;
}

#define IO_FILTER_MAX_PORTS 200

static void filter_update(udccp_endpoint *ep) {
  ep->filter_dirty = 0;
  if (ep->cfg.transport != UDCCP_TRANSPORT_RAW) {
    return;
  }
  uint16_t ports[IO_FILTER_MAX_PORTS];
  size_t n = 0, total = 0;
  for (uint32_t p = 0; p < 65536; p++) {
    if (ep->portref[p] != 0) {
      if (n < IO_FILTER_MAX_PORTS) {
        ports[n++] = (uint16_t)p;
      }
      total++;
    }
  }
  for (int f = 0; f < 2; f++) {
    if (ep->fd[f] < 0) {
      continue;
    }
    struct sock_filter prog[IO_FILTER_MAX_PORTS + 8];
    size_t len = total <= IO_FILTER_MAX_PORTS
                     ? udccp_io_bpf_build(prog, IO_FILTER_MAX_PORTS + 8,
                                          f == UDCCP_IO_V4, ports, n)
                     : 0;
    if (len > 0) {
      struct sock_fprog fp = {(unsigned short)len, prog};
      (void)setsockopt(ep->fd[f], SOL_SOCKET, SO_ATTACH_FILTER, &fp,
                       sizeof(fp));
    } else {
      /* Too many ports for one program: filter in userspace only. */
      int dummy = 0;
      (void)setsockopt(ep->fd[f], SOL_SOCKET, SO_DETACH_FILTER, &dummy,
                       sizeof(dummy));
    }
  }
}

/* ------------------------------------------------------------- connections */

udccp_sock *udccp_io_sock_add(udccp_endpoint *ep, udccp_conn *conn,
                              const udccp_path *path, uint16_t remote_udp_port,
                              udccp_listener *lis) {
  if (ep->nsocks == ep->capsocks) {
    size_t nc = ep->capsocks ? ep->capsocks * 2 : 16;
    udccp_sock **ns = realloc(ep->socks, nc * sizeof(*ns));
    if (ns == NULL) {
      return NULL;
    }
    ep->socks = ns;
    ep->capsocks = nc;
  }
  if (udccp_io_sched_reserve(ep, ep->capsocks) != 0) {
    return NULL;
  }
  udccp_sock *s = calloc(1, sizeof(*s));
  if (s == NULL) {
    return NULL;
  }
  udccp_io_sched_init_sock(s);
  s->ep = ep;
  s->conn = conn;
  s->path = *path;
  s->remote_udp_port =
      ep->cfg.transport == UDCCP_TRANSPORT_UDP ? remote_udp_port : 0;
  s->fidx = path->family == UDCCP_AF_INET ? UDCCP_IO_V4 : UDCCP_IO_V6;
  s->lis = lis;
  udccp_demux_key k;
  udccp_demux_key_make(&k, path, s->remote_udp_port);
  if (udccp_demux_insert(&ep->demux, &k, s) != 0) {
    free(s);
    return NULL;
  }
  s->in_demux = 1;
  udccp_io_port_ref(ep, path->local_port, +1);
  s->idx = ep->nsocks;
  ep->socks[ep->nsocks++] = s;
  udccp_io_sched_touch(s);
  return s;
}

static void sock_unlink(udccp_sock *s) {
  if (!s->in_demux) {
    return;
  }
  udccp_demux_key k;
  udccp_demux_key_make(&k, &s->path, s->remote_udp_port);
  (void)udccp_demux_remove(&s->ep->demux, &k);
  udccp_io_port_ref(s->ep, s->path.local_port, -1);
  s->in_demux = 0;
}

void udccp_io_acceptq_remove(udccp_endpoint *ep, udccp_sock *s) {
  if (!s->in_acceptq) {
    return;
  }
  udccp_sock **pp = &ep->acc_head;
  udccp_sock *prev = NULL;
  while (*pp != NULL && *pp != s) {
    prev = *pp;
    pp = &(*pp)->acc_next;
  }
  if (*pp == s) {
    *pp = s->acc_next;
    if (ep->acc_tail == s) {
      ep->acc_tail = prev;
    }
  }
  s->acc_next = NULL;
  s->in_acceptq = 0;
}

void udccp_io_sock_free(udccp_sock *s) {
  udccp_endpoint *ep = s->ep;
  udccp_io_sched_remove(s);
  udccp_io_ev_remove(s);
  sock_unlink(s);
  udccp_io_acceptq_remove(ep, s);
  for (size_t i = 0; i < ep->ntx; i++) {
    if (ep->towner[i] == s) {
      ep->towner[i] = NULL;
    }
  }
  if (s->lis != NULL) {
    udccp_listener_conn_gone(s->lis, s->conn);
  }
  udccp_conn_del(s->conn);
  ep->socks_freed++;
  size_t i = s->idx;
  ep->socks[i] = ep->socks[--ep->nsocks];
  ep->socks[i]->idx = i;
  free(s);
}

/* ------------------------------------------------------------ transmit */

size_t udccp_io_tx_plain(udccp_endpoint *ep, size_t from, size_t to) {
  size_t i = from, sent = 0;
  while (i < to) {
    int f = ep->tfidx[i];
    size_t j = i;
    while (j < to && ep->tfidx[j] == f) {
      j++;
    }
    while (i < j) {
      int r = sendmmsg(ep->fd[f], &ep->tmsg[i], (unsigned)(j - i),
                       MSG_DONTWAIT);
      if (r > 0) {
        ep->stats.tx_pkts += (uint64_t)r;
        ep->stats.tx_batches++;
        i += (size_t)r;
        sent += (size_t)r;
        continue;
      }
      if (r < 0 && errno == EINTR) {
        continue;
      }
      /* Message i failed.  A full socket buffer loses it like a full
       * router queue would: the CCID sees the loss. */
      if (r < 0 && errno == EMSGSIZE) {
        udccp_io_route_pmtu(ep, f, ep->tmsg[i].msg_hdr.msg_name,
                            ep->tmsg[i].msg_hdr.msg_namelen, 0);
      } else {
        ep->stats.tx_errors++;
      }
      i++;
    }
  }
  return sent;
}

static void tx_flush(udccp_endpoint *ep) {
  if (ep->gso && ep->ntx > 1) {
    udccp_io_gso_flush(ep);
  } else {
    (void)udccp_io_tx_plain(ep, 0, ep->ntx);
  }
  ep->ntx = 0;
  ep->tused = 0;
}

/* Room for a packet of up to cap bytes in the transmit batch (flushed
 * first when full); tx_commit() takes what the packet used. */
static uint8_t *tx_slot(udccp_endpoint *ep, size_t cap) {
  if (ep->ntx >= ep->batch || ep->tused + cap > UDCCP_IO_TXARENA) {
    tx_flush(ep);
  }
  return ep->tbuf + ep->tused;
}

/* The most a connection's packet may take: its MPS plus the largest DCCP
 * header (RFC 4340 §5.1: Data Offset counts 32-bit words, 1,020 bytes). */
static size_t tx_cap(const udccp_sock *s) {
  size_t cap = udccp_conn_get_mps(s->conn) + 1020;
  return cap < UDCCP_IO_TXBUF       ? UDCCP_IO_TXBUF
         : cap > UDCCP_IO_TXPKT_MAX ? UDCCP_IO_TXPKT_MAX
                                    : cap;
}

/* Ancillary data of packet i: the source address (the pseudo-header
 * checksum of a raw packet was computed over it) and the ECN codepoint. */
static void tx_ancillary(udccp_endpoint *ep, size_t i, int fidx,
                         const udccp_path *path, uint8_t ecn) {
  /* Each message's space (padding included) is zeroed as it is written,
   * not the whole buffer: every packet of a connection bound to an
   * address carries IP_PKTINFO, and clearing 128 bytes per packet cost
   * more than the rest of this function (perf, loopback bench). */
  struct msghdr *m = &ep->tmsg[i].msg_hdr;
  uint8_t *ctl = ep->tctl[i];
  m->msg_control = ctl;
  m->msg_controllen = UDCCP_IO_CTLBUF;
  struct cmsghdr *c = CMSG_FIRSTHDR(m);
  size_t used = 0;
  if (!udccp_io_addr_is_any(path->family, path->local_addr)) {
    if (fidx == UDCCP_IO_V4) {
      struct in_pktinfo pi;
      memset(c, 0, CMSG_SPACE(sizeof(pi)));
      memset(&pi, 0, sizeof(pi));
      memcpy(&pi.ipi_spec_dst, path->local_addr, 4);
      c->cmsg_level = IPPROTO_IP;
      c->cmsg_type = IP_PKTINFO;
      c->cmsg_len = CMSG_LEN(sizeof(pi));
      memcpy(CMSG_DATA(c), &pi, sizeof(pi));
      used += CMSG_SPACE(sizeof(pi));
    } else {
      struct in6_pktinfo pi;
      memset(c, 0, CMSG_SPACE(sizeof(pi)));
      memset(&pi, 0, sizeof(pi));
      memcpy(&pi.ipi6_addr, path->local_addr, 16);
      c->cmsg_level = IPPROTO_IPV6;
      c->cmsg_type = IPV6_PKTINFO;
      c->cmsg_len = CMSG_LEN(sizeof(pi));
      memcpy(CMSG_DATA(c), &pi, sizeof(pi));
      used += CMSG_SPACE(sizeof(pi));
    }
    c = (struct cmsghdr *)(void *)(ctl + used);
  }
  if (ecn != 0) {
    int tos = ep->tos | (ecn & 3); /* the byte's DSCP stays set_tos()'s */
    memset(c, 0, CMSG_SPACE(sizeof(int)));
    c->cmsg_level = fidx == UDCCP_IO_V4 ? IPPROTO_IP : IPPROTO_IPV6;
    c->cmsg_type = fidx == UDCCP_IO_V4 ? IP_TOS : IPV6_TCLASS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &tos, sizeof(int));
    used += CMSG_SPACE(sizeof(int));
  }
  m->msg_controllen = used;
  if (used == 0) {
    m->msg_control = NULL;
  }
}

static void tx_commit(udccp_endpoint *ep, int fidx, udccp_sock *owner,
                      const udccp_path *path, uint16_t udp_port, size_t len,
                      uint8_t ecn) {
  size_t i = ep->ntx++;
  struct msghdr *m = &ep->tmsg[i].msg_hdr;
  const uint8_t *hdr = ep->tbuf + ep->tused;
  ep->tiov[i].iov_base = ep->tbuf + ep->tused;
  ep->tiov[i].iov_len = len;
  ep->tused += (len + 15) & ~(size_t)15; /* the next one aligned */
  m->msg_iov = &ep->tiov[i];
  m->msg_iovlen = 1;
  m->msg_flags = 0;
  /* Data and DataAck (RFC 4340 §5.1: type in bits 1-4 of byte 8): a
   * sender's burst.  A receiver's acks do not count: a receiver reading
   * on while it acks would fill its application's receive queue in one
   * turn. */
  uint8_t type = len > 8 ? (uint8_t)((hdr[8] >> 1) & 15) : 0;
  if (type == UDCCP_PKT_DATA || type == UDCCP_PKT_DATAACK) {
    ep->tx_since_rx++;
  }
  int same = i > 0 && owner != NULL && ep->towner[i - 1] == owner &&
             ep->tfidx[i - 1] == fidx && ep->tecn[i - 1] == ecn;
  ep->towner[i] = owner;
  ep->tfidx[i] = fidx;
  ep->tecn[i] = ecn;
  ep->tsame[i] = (uint8_t)same;
  if (same) {
    /* The same connection as the packet before, with the same ECN
     * codepoint (a burst): the same address and ancillary data, so the
     * message points at the first one's (the kernel only reads them;
     * they live until the batch leaves).  Building them per packet, each
     * in cache lines of their own, cost a tenth of a bulk sender's time
     * (perf, loopback bench). */
    const struct msghdr *p = &ep->tmsg[i - 1].msg_hdr;
    m->msg_name = p->msg_name;
    m->msg_namelen = p->msg_namelen;
    m->msg_control = p->msg_control;
    m->msg_controllen = p->msg_controllen;
  } else {
    m->msg_name = &ep->tname[i];
    m->msg_namelen = udccp_io_addr_to_sockaddr(
        &ep->tname[i], path->family, path->remote_addr, udp_port);
    tx_ancillary(ep, i, fidx, path, ecn);
  }
  if (ep->pcap != NULL) {
    udccp_io_capture(ep, 1, path, udp_port, hdr, len, ecn);
  }
}

static void sock_gen(udccp_sock *s, udccp_tstamp now) {
  udccp_endpoint *ep = s->ep;
  if (s->conn == NULL) {
    return; /* a tombstone sends only in answer (tomb_input) */
  }
  s->more_queued = 0;
  if (s->mp != NULL) {
    udccp_io_mp_turn(s->mp, now); /* the scheduler fills its queue */
  }
  /* Bounded: a CCID that never says "stop" cannot hang the loop. */
  for (int k = 0; k < 4096; k++) {
    if (ep->tx_since_rx >= UDCCP_IO_DRAIN_PKTS) {
      /* 64 data packets went out since we last read: read what
       * came in before sending more.  Every packet we send acknowledges
       * GSR, and the peer accepts only acknowledgement numbers within its
       * last W'
       * sequence numbers sent (RFC 4340 §7.5.1, §7.5.3; Linux keeps
       * W' = 100).  During a long burst the peer keeps acking what it
       * gets; unread, those acks leave our GSR behind until the peer
       * finds our packets sequence-invalid and drops them (§7.5.4).
       * Reading also lets the CCID see its feedback sooner.  Every 64
       * packets (two batches of 32, one of 64), not every 32: at Ack
       * Ratio 2 the peer has sent at most 32 unread acks by then (64 at
       * Ack Ratio 1, still below W' = 100), and the fast path keeps its
       * pace (make bench: reading every 32 cost ~8 % on loopback). */
      tx_flush(ep);
      now = rx_drain(ep);
    }
    size_t cap = tx_cap(s);
    uint8_t *buf = tx_slot(ep, cap);
    uint8_t ecn = 0;
    udccp_ssize n = udccp_conn_write_pkt(s->conn, buf, cap, &ecn, now);
    if (n <= 0) {
      /* A multipath subflow takes one datagram at a time (lib/mp_conn.c):
       * while its CCID lets packets go, the scheduler refills it. */
      if (s->mp != NULL && udccp_io_mp_turn(s->mp, now) > 0) {
        continue;
      }
      break;
    }
    tx_commit(ep, s->fidx, s, &s->path, s->remote_udp_port, (size_t)n, ecn);
  }
}

void udccp_io_sock_gen(udccp_sock *s) {
  udccp_io_sock_gen_at(s, udccp_io_ep_now(s->ep));
}

void udccp_io_sock_gen_at(udccp_sock *s, udccp_tstamp now) {
  if (s->ep->filter_dirty) {
    filter_update(s->ep);
  }
  sock_gen(s, now);
  udccp_io_sched_update(s);
  /* dirty: udccp_endpoint_timeout_ms() says 0 until the loop sends */
  udccp_io_sched_touch(s);
}

void udccp_io_sock_flush(udccp_sock *s) {
  udccp_io_sock_flush_at(s, udccp_io_ep_now(s->ep));
}

void udccp_io_sock_flush_at(udccp_sock *s, udccp_tstamp now) {
  if (s->ep->filter_dirty) {
    filter_update(s->ep);
  }
  sock_gen(s, now);
  tx_flush(s->ep);
  udccp_io_sched_update(s);
  /* the next loop turn reaps it if it is done */
  udccp_io_sched_touch(s);
}

/* ------------------------------------------------------------- receive */

static udccp_listener *find_listener(udccp_endpoint *ep, uint16_t port,
                                     int fidx) {
  for (size_t i = 0; i < ep->nlis; i++) {
    if (ep->lis[i].port == port) {
      return ep->lis[i].lis[fidx];
    }
  }
  return NULL;
}

/* RFC 4340 §8.5 step 2: a tuple in TIMEWAIT answers every packet but a
 * Reset with Reset(No Connection), numbered from the packet (§8.3.1).
 * For a tombstone (its connection freed: sock_entomb) the endpoint
 * writes that Reset as the connection did, once the checksum holds (§9). */
static void tomb_input(udccp_endpoint *ep, int fidx, const udccp_path *path,
                       uint16_t udp_rport, const uint8_t *pkt, size_t len) {
  if (ep->settings.cksum_mode == UDCCP_CKSUM_FULL &&
      udccp_pkt_verify_cksum(pkt, len, path) != 0) {
    ep->stats.rx_bad++;
    return;
  }
  uint8_t *out = tx_slot(ep, UDCCP_IO_TXBUF);
  udccp_ssize n =
      udccp_pkt_write_reset_reply(out, UDCCP_IO_TXBUF, pkt, len, path,
                                  ep->settings.cksum_mode,
                                  UDCCP_RESET_NO_CONNECTION);
  if (n > 0) {
    tx_commit(ep, fidx, NULL, path, udp_rport, (size_t)n, 0);
    ep->stats.resets_sent++;
  }
}

/* udccp_io_input with a hint: the connection the previous segment of the
 * same UDP_GRO message went to (the same addresses and UDP ports), or
 * NULL.  A segment with that connection's DCCP ports goes there without a
 * lookup (its demultiplexer key would be the same); *hint is updated. */
static void input_hinted(udccp_endpoint *ep, int fidx, udccp_path *path,
                         uint16_t udp_rport, const uint8_t *pkt, size_t len,
                         uint8_t ecn, udccp_tstamp now, int from_peer,
                         udccp_sock **hint);

void udccp_io_input(udccp_endpoint *ep, int fidx, udccp_path *path,
                    uint16_t udp_rport, const uint8_t *pkt, size_t len,
                    uint8_t ecn, udccp_tstamp now, int from_peer) {
  input_hinted(ep, fidx, path, udp_rport, pkt, len, ecn, now, from_peer,
               NULL);
}

static void input_hinted(udccp_endpoint *ep, int fidx, udccp_path *path,
                         uint16_t udp_rport, const uint8_t *pkt, size_t len,
                         uint8_t ecn, udccp_tstamp now, int from_peer,
                         udccp_sock **hint) {
  /* The ports decide where the packet goes; a connection's own input
   * checks the rest of the header (RFC 4340 §8.5 step 1), so a packet
   * for a connection is decoded once, there.  Only one that no
   * connection takes is decoded here (its type picks the answer). */
  if (len < 12) {
    ep->stats.rx_bad++; /* §8.5 step 1, as udccp_pkt_peek_hdr would */
    return;
  }
  uint16_t sport = (uint16_t)(pkt[0] << 8 | pkt[1]);
  uint16_t dport = (uint16_t)(pkt[2] << 8 | pkt[3]);
  path->local_port = dport;
  path->remote_port = sport;
  /* Init Cookies are bound to the client's UDP port (RFC 6773 §3.5). */
  path->encap_port =
      ep->cfg.transport == UDCCP_TRANSPORT_UDP ? udp_rport : 0;
  if (ep->group_n > 1 && !from_peer) {
    /* A worker group: the rule, not the kernel's choice, decides (GRO may
     * have brought another worker's packet; share.c). */
    uint32_t w = udccp_io_steer(sport, dport, ep->group_n);
    if (w != ep->group_k) {
      udccp_io_share_relay(ep, w, path, udp_rport, pkt, len, ecn);
      return;
    }
  }
  if (ep->cfg.transport == UDCCP_TRANSPORT_RAW) {
    /* Not our port: someone else's DCCP, or our own outgoing packet seen
     * on loopback.  Stay silent (DESIGN.md §3). */
    if (ep->portref[dport] == 0) {
      ep->stats.rx_ignored++;
      return;
    }
  }
  udccp_sock *s = hint != NULL ? *hint : NULL;
  if (s == NULL || s->path.local_port != dport ||
      s->path.remote_port != sport) {
    udccp_demux_key k;
    udccp_demux_key_make(&k, path, udp_rport);
    s = udccp_demux_find(&ep->demux, &k);
  }
  if (hint != NULL) {
    /* Not across a multipath subflow's read (mp.c may rearrange its
     * connection), nor to a tombstone; a socket is freed only after the
     * loop's turn, never during a read. */
    *hint = s != NULL && s->conn != NULL && s->mp == NULL ? s : NULL;
  }
  if (s != NULL && s->conn != NULL) {
    if (ep->pcap != NULL) {
      udccp_io_capture(ep, 0, path, udp_rport, pkt, len, ecn);
    }
    (void)udccp_conn_read_pkt(s->conn, pkt, len, ecn, now);
    if (s->mp != NULL) {
      udccp_io_mp_on_read(s, now); /* RFC 9897 §3.2.5: its MP_SEQ */
    }
    if (s->lis != NULL) {
      udccp_listener_conn_update(s->lis, s->conn);
    }
    udccp_io_sched_touch(s);
    int st = udccp_conn_get_state(s->conn);
    if (st >= UDCCP_STATE_PARTOPEN && st != UDCCP_STATE_TIMEWAIT) {
      s->seen_open = 1;
    }
    return;
  }
  udccp_pkt_peek pk;
  if (udccp_pkt_peek_hdr(&pk, pkt, len) != 0) {
    ep->stats.rx_bad++;
    return;
  }
  if (ep->pcap != NULL) {
    udccp_io_capture(ep, 0, path, udp_rport, pkt, len, ecn);
  }
  if (s != NULL) {
    tomb_input(ep, fidx, path, udp_rport, pkt, len);
    return;
  }
  udccp_listener *lis = find_listener(ep, pk.dport, fidx);
  uint8_t *out = tx_slot(ep, UDCCP_IO_TXBUF);
  if (lis != NULL) {
    udccp_conn *conn = NULL;
    udccp_ssize n = udccp_listener_read_pkt(lis, path, pkt, len, now, &conn,
                                            out, UDCCP_IO_TXBUF);
    if (conn != NULL) {
      udccp_sock *ns = udccp_io_sock_add(ep, conn, path, udp_rport, lis);
      if (ns == NULL) {
        udccp_listener_conn_gone(lis, conn);
        udccp_conn_del(conn);
        return;
      }
      udccp_io_route_mtu_apply(ns, now);
      if (udccp_io_mp_adopt(ep, ns)) {
        return; /* a join (RFC 9897 §3.3): its connection takes it */
      }
      ns->in_acceptq = 1;
      if (ep->acc_tail != NULL) {
        ep->acc_tail->acc_next = ns;
      } else {
        ep->acc_head = ns;
      }
      ep->acc_tail = ns;
    } else if (n > 0) {
      tx_commit(ep, fidx, NULL, path, udp_rport, (size_t)n, 0);
    }
    return;
  }
  /* RFC 4340 §9: a packet with a bad checksum MUST be ignored (the core
   * checks those it is given; this one it is not). */
  if (ep->settings.cksum_mode == UDCCP_CKSUM_FULL &&
      udccp_pkt_verify_cksum(pkt, len, path) != 0) {
    ep->stats.rx_bad++;
    return;
  }
  /* A shared UDP port: the DCCP port may be another endpoint's. */
  if (ep->cfg.reuseport && !from_peer &&
      udccp_io_share_forward(ep, path, udp_rport, pkt, len, ecn)) {
    return;
  }
  /* RFC 4340 §8.5 step 1: no connection, no listener: Reset No
   * Connection (unless the packet is itself a Reset); a Request to a port
   * with no server gets Connection Refused (RFC 5595 §3.3.1 MUST).  Both
   * transports come here (raw: only for ports we own, above). */
  udccp_ssize n = udccp_pkt_write_reset_reply(
      out, UDCCP_IO_TXBUF, pkt, len, path, ep->settings.cksum_mode,
      pk.type == UDCCP_PKT_REQUEST ? UDCCP_RESET_CONNECTION_REFUSED
                                   : UDCCP_RESET_NO_CONNECTION);
  if (n > 0) {
    tx_commit(ep, fidx, NULL, path, udp_rport, (size_t)n, 0);
    ep->stats.resets_sent++;
  }
}

/* Returns the number of packets the message carried (GRO: several). */
static size_t input_msg(udccp_endpoint *ep, int fidx, struct mmsghdr *mm,
                        udccp_tstamp now) {
  struct msghdr *m = &mm->msg_hdr;
  size_t len = mm->msg_len;
  const uint8_t *buf = m->msg_iov[0].iov_base;
  if (m->msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
    ep->stats.rx_bad++;
    if ((m->msg_flags & MSG_TRUNC) && ep->rxbufsz < UDCCP_IO_RXBUF_MAX) {
      /* A peer sends more than its route told us to expect (another
       * worker's connection, an asymmetric path): this one is lost, the
       * next ones fit. */
      ep->rx_want = UDCCP_IO_RXBUF_MAX;
    }
    return 1;
  }
  udccp_path path;
  memset(&path, 0, sizeof(path));
  uint16_t sport = 0;
  uint8_t ecn = 0;
  if (udccp_io_addr_from_sockaddr(m->msg_name, &path.family,
                                  path.remote_addr, &sport) != 0) {
    ep->stats.rx_bad++;
    return 1;
  }
  for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c != NULL;
       c = CMSG_NXTHDR(m, c)) {
    if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
      struct in_pktinfo pi;
      memcpy(&pi, CMSG_DATA(c), sizeof(pi));
      memcpy(path.local_addr, &pi.ipi_addr, 4);
    } else if (c->cmsg_level == IPPROTO_IPV6 &&
               c->cmsg_type == IPV6_PKTINFO) {
      struct in6_pktinfo pi;
      memcpy(&pi, CMSG_DATA(c), sizeof(pi));
      memcpy(path.local_addr, &pi.ipi6_addr, 16);
    } else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
      ecn = *(const uint8_t *)CMSG_DATA(c) & 3;
    } else if (c->cmsg_level == IPPROTO_IPV6 &&
               c->cmsg_type == IPV6_TCLASS) {
      int tc;
      memcpy(&tc, CMSG_DATA(c), sizeof(tc));
      ecn = (uint8_t)(tc & 3);
    }
  }
  const uint8_t *pkt = buf;
  uint16_t udp_rport = 0;
  if (ep->cfg.transport == UDCCP_TRANSPORT_RAW) {
    if (fidx == UDCCP_IO_V4) {
      size_t off, dlen;
      uint8_t src[4], dst[4];
      if (udccp_io_ipv4_strip(buf, len, &off, &dlen, src, dst, &ecn) != 0) {
        ep->stats.rx_bad++;
        return 1;
      }
      memcpy(path.remote_addr, src, 4);
      memcpy(path.local_addr, dst, 4);
      pkt = buf + off;
      len = dlen;
    }
  } else {
    udp_rport = sport;
  }
  if (udccp_io_addr_is_any(path.family, path.local_addr) &&
      ep->local_family == path.family) {
    memcpy(path.local_addr, ep->local_addr, 16);
  }
  if (ep->cfg.transport == UDCCP_TRANSPORT_RAW) {
    udccp_io_input(ep, fidx, &path, udp_rport, pkt, len, ecn, now, 0);
    return 1;
  }
  /* UDP_GRO: several datagrams of one peer in one buffer, cut at the
   * segment size (only the last segment may be shorter). */
  if (len < 12) {
    ep->stats.rx_bad++; /* RFC 6773 §3.3, as below */
    return 1;
  }
  size_t seg = ep->gro ? udccp_io_gro_size(m) : 0;
  if (seg == 0 || seg >= len) {
    seg = len;
  } else {
    ep->stats.rx_gro_msgs++;
    ep->stats.rx_gro_pkts += (len + seg - 1) / seg;
    ep->stats.rx_pkts += (len + seg - 1) / seg - 1;
  }
  udccp_sock *hint = NULL;
  for (size_t off = 0; off < len; off += seg) {
    size_t n = len - off < seg ? len - off : seg;
    /* RFC 6773 §3.3: drop when the UDP length is below 20, i.e. less than
     * 12 bytes of DCCP.  The kernel has already dropped packets with a bad
     * UDP checksum (zero checksums cannot be told apart on IPv4 sockets). */
    if (n < 12) {
      ep->stats.rx_bad++;
      continue;
    }
    input_hinted(ep, fidx, &path, udp_rport, pkt + off, n, ecn, now, 0,
                 &hint);
  }
  return (len + seg - 1) / seg;
}

/* A connection whose route carries datagrams larger than the receive
 * slots came (udccp_io_route_mtu_apply): the slots grow, between two
 * batches, so that its peer's packets are not cut (truncated datagrams
 * are dropped).  The slots' pages are touched only by what arrives: an
 * endpoint that never receives a large datagram keeps its footprint.
 * Stays as it was if memory is short. */
static void rx_grow(udccp_endpoint *ep) {
  uint8_t *nb = malloc((size_t)ep->rslots * ep->rx_want);
  if (nb != NULL) {
    free(ep->rbuf);
    ep->rbuf = nb;
    ep->rxbufsz = ep->rx_want;
  }
  ep->rx_want = 0;
}

static int recv_fd(udccp_endpoint *ep, int fidx, udccp_tstamp now,
                   int rounds) {
  int fd = ep->fd[fidx];
  ep->tx_since_rx = 0;
  /* Bounded, so that acks and timers get their turn under a flood, and in
   * packets: one turn hands the connections at most rounds batches' worth
   * and no more than a receive queue holds (rx_budget; an application's
   * receive queue is counted in datagrams). */
  size_t budget = rx_budget(ep, rounds), done = 0;
  for (int round = 0; round < rounds && done < budget; round++) {
    /* With GRO one message may carry up to 64 packets: ask for no more
     * messages than the budget holds at 64 each.  The budget is the
     * application's receive queue (256 by default): a turn that
     * overshoots it drops datagrams there, as estimates from the last
     * call's packets per message did when coalescing grew from one call
     * to the next.  Without coalescing a turn then reads fewer packets
     * (more turns); with it, about as many as before. */
    if (ep->rx_want > ep->rxbufsz) {
      rx_grow(ep);
    }
    uint32_t vlen = ep->batch;
    if (ep->gro) {
      size_t want = (budget - done) / UDCCP_IO_GRO_SEGS_MAX;
      if (want == 0 && round > 0) {
        break; /* the next message could overshoot: next turn */
      }
      if (want == 0) {
        want = 1; /* a drain's one batch (rx_drain): one message */
      }
      if (want < vlen) {
        vlen = (uint32_t)want;
      }
      if (vlen > ep->rslots) {
        vlen = ep->rslots;
      }
    }
    for (uint32_t i = 0; i < vlen; i++) {
      struct msghdr *m = &ep->rmsg[i].msg_hdr;
      ep->riov[i].iov_base = ep->rbuf + (size_t)i * ep->rxbufsz;
      ep->riov[i].iov_len = ep->rxbufsz;
      m->msg_name = &ep->rname[i];
      m->msg_namelen = sizeof(ep->rname[i]);
      m->msg_iov = &ep->riov[i];
      m->msg_iovlen = 1;
      m->msg_control = ep->rctl[i];
      m->msg_controllen = UDCCP_IO_CTLBUF;
      m->msg_flags = 0;
    }
    int n = recvmmsg(fd, ep->rmsg, vlen, MSG_DONTWAIT, NULL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return 0;
      }
      if (errno == EINTR) {
        continue;
      }
      /* An ICMP error was reported through sk_err (IP_RECVERR): read it
       * from the error queue and carry on. */
      if (errno == ECONNREFUSED || errno == EHOSTUNREACH ||
          errno == ENETUNREACH || errno == EMSGSIZE || errno == ENOPROTOOPT ||
          errno == EPROTO || errno == EHOSTDOWN) {
        udccp_io_drain_errqueue(ep, fidx);
        continue;
      }
      return UDCCP_ERR_SOCKET;
    }
    if (n == 0) {
      return 0;
    }
    ep->stats.rx_pkts += (uint64_t)n;
    ep->stats.rx_batches++;
    size_t pk = 0;
    for (int i = 0; i < n; i++) {
      pk += input_msg(ep, fidx, &ep->rmsg[i], now);
    }
    done += pk;
    ep->rx_per_msg = (pk + (size_t)n - 1) / (size_t)n;
    if ((uint32_t)n < vlen) {
      return 0;
    }
  }
  return 0;
}

/* Reads both sockets once (bounded as in the loop), without waiting and
 * without generating output: the connections that got packets are marked
 * dirty for the loop.  Returns the time after reading. */
static udccp_tstamp rx_drain(udccp_endpoint *ep) {
  udccp_tstamp now = udccp_io_ep_now(ep);
  for (int f = 0; f < 2; f++) {
    if (ep->fd[f] >= 0) {
      /* One batch: what a sender needs is the acks that came in; the
       * loop's turns, between which the application reads, keep taking
       * the rest.  A socket error is for the loop to report. */
      (void)recv_fd(ep, f, now, 1);
    }
  }
  ep->tx_since_rx = 0;
  return udccp_io_ep_now(ep);
}

/* ------------------------------------------------------------ the loop */

int udccp_endpoint_timeout_ms(const udccp_endpoint *ep) {
  udccp_tstamp e = udccp_io_sched_next(ep);
  if (e == UDCCP_TSTAMP_NEVER) {
    return -1;
  }
  udccp_tstamp now = udccp_io_now();
  if (e <= now) {
    return 0;
  }
  udccp_tstamp ms = (e - now + UDCCP_NS_PER_MS - 1) / UDCCP_NS_PER_MS;
  return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Issue 12/13: a connection the application has closed keeps, during
 * TIMEWAIT (RFC 4340 §8.3), only what TIMEWAIT needs: its tuple in the
 * demultiplexer (no new connection may reuse it) and the time it ends.
 * The connection and everything it holds are freed; the socket stays
 * as the tombstone (conn NULL): tomb_input answers its packets. */
static void sock_entomb(udccp_sock *s) {
  /* Also a connection the peer reset while it waited in the accept queue
   * (RFC 4340 §8.5 step 9: the receiver of a Reset holds TIMEWAIT): the
   * application would accept a dead connection, and meanwhile it held a
   * backlog slot for 60 s, so that a client making and aborting
   * connections (or one whose handshakes a flood made it abort) filled
   * the backlog of a server that accepts slowly (issue 12: udccp-cat -l
   * serving one connection refused the others with Too Busy). */
  int unaccepted = !s->app_owned && s->in_acceptq;
  if (s->conn == NULL || !(s->orphan || unaccepted) ||
      udccp_conn_get_state(s->conn) != UDCCP_STATE_TIMEWAIT) {
    return;
  }
  udccp_io_acceptq_remove(s->ep, s);
  udccp_tstamp end = udccp_conn_get_expiry(s->conn); /* TIMEWAIT's end */
  if (s->lis != NULL) {
    udccp_listener_conn_gone(s->lis, s->conn);
    s->lis = NULL;
  }
  udccp_conn_del(s->conn);
  s->conn = NULL;
  s->exp = end;
  udccp_io_sched_update(s);
}

void udccp_io_sock_orphaned(udccp_sock *s) {
  s->app_owned = 0;
  s->orphan = 1;
  udccp_io_ev_remove(s); /* the application let go: no more events */
  if (s->conn == NULL || udccp_conn_is_done(s->conn)) {
    udccp_io_sock_free(s);
    return;
  }
  sock_entomb(s);
}

/* After its turn: the connection's new expiry, and its end. */
static void settle(udccp_sock *s) {
  udccp_io_sched_update(s);
  if (s->conn == NULL) {
    if (s->exp == UDCCP_TSTAMP_NEVER) {
      udccp_io_sock_free(s); /* TIMEWAIT is over: the tuple is free */
    }
    return;
  }
  if (s->app_owned) {
    udccp_io_ev_note(s);
  }
  if (!udccp_conn_is_done(s->conn)) {
    sock_entomb(s);
    return;
  }
  /* RFC 4340 §8.5 step 1: a fully closed connection no longer owns its
   * packets; the peer's stragglers get Reset No Connection. */
  sock_unlink(s);
  if (s->orphan || (!s->app_owned && s->in_acceptq)) {
    udccp_io_sock_free(s);
  }
}

/* Memory returns (DESIGN.md §1): after short-lived allocations (Requests
 * answered with Init Cookies, each through a throw-away connection;
 * connections freed) the C library keeps the freed pages, scattered
 * between live blocks.  At most once a second, if any such free happened
 * since the last trim, hand them back (malloc_trim walks the heap: about
 * a millisecond for the few MB a listener under flood holds). */
/* Under AddressSanitizer its allocator owns the heap: glibc's malloc is
 * never set up, and malloc_trim from two worker threads at once ran
 * glibc's set-up twice and crashed (SEGV in mtrim, perf_oneoff's
 * --threads 2 -P 3 case). */
#if defined(__SANITIZE_ADDRESS__)
#define UDCCP_IO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UDCCP_IO_ASAN 1
#endif
#endif

static void trim_after_churn(udccp_endpoint *ep, udccp_tstamp now) {
  if (now - ep->trim_at < UDCCP_NS_PER_S) {
    return;
  }
  uint64_t churn = ep->socks_freed;
  for (size_t i = 0; i < ep->nlis; i++) {
    for (int f = 0; f < 2; f++) {
      udccp_listener_stats st;
      udccp_listener_get_stats(ep->lis[i].lis[f], &st);
      churn += st.cookies_sent + st.too_busy;
    }
  }
  if (churn != ep->trim_mark) {
    ep->trim_at = now;
    ep->trim_mark = churn;
#if defined(__GLIBC__) && !defined(UDCCP_IO_ASAN)
    (void)malloc_trim(0);
#endif
  }
}

#define IO_EVENTS_MAX 8

/* One loop turn on the n events epoll gave: read, run due timers,
 * generate and send. */
static int process_events(udccp_endpoint *ep, const struct epoll_event *ev,
                          int n) {
  int rv = 0;
  udccp_tstamp now = udccp_io_ep_now(ep);
  for (int i = 0; i < n; i++) {
    if (ev[i].data.u32 & UDCCP_IO_EV_SHARE) {
      udccp_io_share_recv(ep, (int)(ev[i].data.u32 & ~UDCCP_IO_EV_SHARE),
                          now);
      continue;
    }
    int f = (int)ev[i].data.u32;
    if (ev[i].events & EPOLLERR) {
      udccp_io_drain_errqueue(ep, f);
    }
    if (ev[i].events & EPOLLIN) {
      int r = recv_fd(ep, f, now, UDCCP_IO_RX_ROUNDS);
      if (r != 0) {
        rv = r;
      }
    }
  }
  now = udccp_io_ep_now(ep);
  udccp_sock *s;
  while ((s = udccp_io_sched_pop_due(ep, now)) != NULL) {
    if (s->conn != NULL) {
      (void)udccp_conn_handle_expiry(s->conn, now);
    } else {
      s->exp = UDCCP_TSTAMP_NEVER; /* a tombstone's TIMEWAIT ended */
    }
    udccp_io_sched_touch(s);
  }
  if (ep->filter_dirty) {
    filter_update(ep);
  }
  /* The list may grow while we go (a PMTU update on flush touches). */
  for (size_t i = 0; i < ep->ndirty; i++) {
    sock_gen(ep->dirty[i], now);
  }
  tx_flush(ep);
  for (size_t i = 0; i < ep->ndirty; i++) {
    ep->dirty[i]->dirty = 0;
  }
  /* settle() may free: work on a list nobody else edits now. */
  size_t nd = ep->ndirty;
  ep->ndirty = 0;
  for (size_t i = 0; i < nd; i++) {
    settle(ep->dirty[i]);
  }
  if (ep->filter_dirty) {
    filter_update(ep);
  }
  trim_after_churn(ep, now);
  return rv;
}

int udccp_endpoint_process(udccp_endpoint *ep) {
  struct epoll_event ev[IO_EVENTS_MAX];
  int n = epoll_wait(ep->epfd, ev, IO_EVENTS_MAX, 0);
  return process_events(ep, ev, n > 0 ? n : 0);
}

int udccp_endpoint_run(udccp_endpoint *ep, int timeout_ms) {
  int t = udccp_endpoint_timeout_ms(ep);
  if (timeout_ms >= 0 && (t < 0 || timeout_ms < t)) {
    t = timeout_ms;
  }
  /* The events of this wait are the turn's: no second epoll_wait. */
  struct epoll_event ev[IO_EVENTS_MAX];
  int n = epoll_wait(ep->epfd, ev, IO_EVENTS_MAX, t);
  if (n < 0 && errno != EINTR) {
    return UDCCP_ERR_SOCKET;
  }
  return process_events(ep, ev, n > 0 ? n : 0);
}

int udccp_io_wait(udccp_endpoint *ep, udccp_tstamp deadline,
                  int (*ready)(void *arg), void *arg) {
  int zero_waits = 0;
  struct epoll_event ev[IO_EVENTS_MAX];
  int n = epoll_wait(ep->epfd, ev, IO_EVENTS_MAX, 0);
  for (;;) {
    /* a turn on the events the last wait returned (no second poll) */
    int rv = process_events(ep, ev, n > 0 ? n : 0);
    if (rv != 0) {
      return rv;
    }
    if (ready(arg)) {
      return 0;
    }
    udccp_tstamp now = udccp_io_now();
    if (deadline != UDCCP_TSTAMP_NEVER && now >= deadline) {
      return UDCCP_ERR_AGAIN;
    }
    int t = udccp_endpoint_timeout_ms(ep);
    if (deadline != UDCCP_TSTAMP_NEVER) {
      udccp_tstamp ms = (deadline - now + UDCCP_NS_PER_MS - 1) /
                        UDCCP_NS_PER_MS;
      if (ms > INT_MAX) {
        ms = INT_MAX;
      }
      if (t < 0 || (int)ms < t) {
        t = (int)ms;
      }
    }
    /* A timer that stays due after being run would spin; give it a
     * millisecond after a few rounds. */
    zero_waits = t == 0 ? zero_waits + 1 : 0;
    if (zero_waits > 3) {
      t = 1;
    }
    n = epoll_wait(ep->epfd, ev, IO_EVENTS_MAX, t);
    if (n < 0 && errno != EINTR) {
      return UDCCP_ERR_SOCKET;
    }
  }
}

/* SPDX-License-Identifier: MIT */
/*
 * The socket runtime's endpoint: creating it (its sockets, the
 * preallocated receive and transmit batches, the epoll set), deleting it,
 * and the small calls every other part uses (the clock, random bytes,
 * connection settings).  The rest of the runtime, one job per file:
 * ports.c (DCCP ports and the raw filter), socks.c (a connection's slot
 * and its lifetime), tx.c (the transmit batch), rx.c (the receive batch
 * and demultiplexing), loop.c (the event loop).
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
#include <time.h>

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "endpoint.h"
#include "wire.h"

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
  if (cfg == NULL) {
    return;
  }
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
   * holds at UDCCP_IO_GRO_SEGS_MAX each (udccp_io_recv, rx.c): that many slots
   * (256 KiB for the default receive queue), not a batch of them. */
  ep->rslots = ep->batch;
  if (ep->gro) {
    size_t most = udccp_io_rx_budget(ep, UDCCP_IO_RX_ROUNDS) / UDCCP_IO_GRO_SEGS_MAX;
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
  udccp_io_tx_flush(ep); /* what udccp_send_more() left in the batch */
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
  return ep != NULL ? ep->udp_port : 0;
}

int udccp_endpoint_fd(const udccp_endpoint *ep) {
  return ep != NULL ? ep->epfd : UDCCP_ERR_INVALID_ARGUMENT;
}

void udccp_endpoint_get_stats(const udccp_endpoint *ep,
                              udccp_endpoint_stats *stats) {
  if (stats == NULL) {
    return;
  }
  if (ep == NULL) {
    memset(stats, 0, sizeof(*stats));
    return;
  }
  *stats = ep->stats;
}

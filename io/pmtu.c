/* SPDX-License-Identifier: MIT */
/*
 * Path MTU and ICMP errors for the socket runtime (RFC 4340 §14, RFC 6773
 * §3.6-3.7).  Sockets send with DF; EMSGSIZE from sendmmsg and the
 * IP_RECVERR error queue tell us a path's MTU, which the connections on
 * that path take as their new PMTU (their MPS follows).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <linux/errqueue.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "endpoint.h"

static void apply_pmtu(udccp_endpoint *ep, uint8_t fam, const uint8_t *addr,
                       uint16_t udp_port, uint32_t mtu) {
  for (size_t i = 0; i < ep->nsocks; i++) {
    udccp_sock *s = ep->socks[i];
    if (s->conn != NULL && s->path.family == fam &&
        memcmp(s->path.remote_addr, addr, fam == UDCCP_AF_INET ? 4 : 16) ==
            0 &&
        s->remote_udp_port == udp_port) {
      /* RFC 4340 §14: the MPS follows the path MTU. */
      (void)udccp_conn_set_pmtu(s->conn, mtu);
      udccp_io_sched_touch(s);
      ep->stats.pmtu_updates++;
    }
  }
}

/* ------------------------------------------------- routes at connect */

/* Asks the routing table through a connected UDP probe socket: the
 * source address it would use and the route's MTU (Linux's DCCP takes
 * dst_mtu at connect; on loopback 65,536).  Returns 0 or -1 (no route). */
static int route_probe(uint8_t family, const uint8_t *addr, uint8_t src[16],
                       uint32_t *mtu) {
  int v4 = family == UDCCP_AF_INET;
  int fd = socket(v4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return -1;
  }
  struct sockaddr_storage ss, me;
  socklen_t sl = udccp_io_addr_to_sockaddr(&ss, family, addr, 9);
  socklen_t ml = sizeof(me);
  uint8_t fam;
  uint16_t port;
  int rv = -1;
  if (connect(fd, (struct sockaddr *)&ss, sl) == 0 &&
      getsockname(fd, (struct sockaddr *)&me, &ml) == 0 &&
      udccp_io_addr_from_sockaddr((struct sockaddr *)&me, &fam, src, &port) ==
          0) {
    rv = 0;
    int m = 0;
    socklen_t vl = sizeof(m);
    *mtu = 0;
    if (getsockopt(fd, v4 ? IPPROTO_IP : IPPROTO_IPV6, v4 ? IP_MTU : IPV6_MTU,
                   &m, &vl) == 0 &&
        m > 0) {
      *mtu = (uint32_t)m > UDCCP_IO_MTU_MAX ? UDCCP_IO_MTU_MAX : (uint32_t)m;
    }
  }
  close(fd);
  return rv;
}

static size_t route_slot(uint8_t family, const uint8_t *addr) {
  /* FNV-1a: a cache, not a table an attacker can overload (a collision
   * costs one probe socket) */
  uint32_t h = 2166136261u ^ family;
  for (int i = 0; i < 16; i++) {
    h = (h ^ addr[i]) * 16777619u;
  }
  return (h ^ (h >> 16)) % UDCCP_IO_ROUTES;
}

const udccp_io_route *udccp_io_route_get(udccp_endpoint *ep, uint8_t family,
                                         const uint8_t *addr,
                                         udccp_tstamp now) {
  udccp_io_route *r = &ep->routes[route_slot(family, addr)];
  if (r->family == family && memcmp(r->dst, addr, 16) == 0 && now < r->until) {
    return r;
  }
  uint8_t src[16] = {0};
  uint32_t mtu = 0;
  if (route_probe(family, addr, src, &mtu) != 0) {
    return NULL;
  }
  r->family = family;
  memcpy(r->dst, addr, 16);
  memcpy(r->src, src, 16);
  r->mtu = mtu;
  r->until = now + UDCCP_IO_ROUTE_TTL;
  return r;
}

void udccp_io_route_mtu_apply(udccp_sock *s, udccp_tstamp now) {
  udccp_endpoint *ep = s->ep;
  const udccp_io_route *r =
      udccp_io_route_get(ep, s->path.family, s->path.remote_addr, now);
  if (r == NULL || r->mtu == 0) {
    return;
  }
  /* RFC 4340 §14: the MPS follows the PMTU; discovery lowers it later
   * (EMSGSIZE, ICMP Too Big: udccp_io_route_pmtu). */
  (void)udccp_conn_set_pmtu(s->conn, r->mtu);
  /* What the peer sends on this route fits a receive slot: at most the
   * MTU, with the IPv4 header a raw socket reads (whole 4 KiB pages). */
  size_t want = ((size_t)r->mtu + 4095) & ~(size_t)4095;
  if (want > ep->rxbufsz && want > ep->rx_want) {
    ep->rx_want = want > UDCCP_IO_RXBUF_MAX ? UDCCP_IO_RXBUF_MAX : want;
  }
}

/* The route's MTU towards dst, as the kernel learnt it (a connected probe
 * socket reads it); mtu_hint wins when known (ICMP Too Big). */
void udccp_io_route_pmtu(udccp_endpoint *ep, int fidx,
                         const struct sockaddr_storage *dst, socklen_t dlen,
                         uint32_t mtu_hint) {
  uint8_t fam, addr[16];
  uint16_t port;
  if (udccp_io_addr_from_sockaddr((const struct sockaddr *)dst, &fam, addr,
                                  &port) != 0) {
    return;
  }
  uint32_t mtu = mtu_hint;
  if (mtu == 0) {
    int af = fidx == UDCCP_IO_V4 ? AF_INET : AF_INET6;
    int fd = socket(af, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
      struct sockaddr_storage ss = *dst;
      if (port == 0) {
        /* raw transport: any port routes the same */
        ((struct sockaddr_in *)(void *)&ss)->sin_port = htons(9);
      }
      int v = 0;
      socklen_t vl = sizeof(v);
      if (connect(fd, (struct sockaddr *)&ss, dlen) == 0 &&
          getsockopt(fd, fidx == UDCCP_IO_V4 ? IPPROTO_IP : IPPROTO_IPV6,
                     fidx == UDCCP_IO_V4 ? IP_MTU : IPV6_MTU, &v, &vl) == 0 &&
          v > 0) {
        mtu = (uint32_t)v;
      }
      close(fd);
    }
  }
  if (mtu == 0) {
    return;
  }
  if (mtu > UDCCP_IO_MTU_MAX) {
    mtu = UDCCP_IO_MTU_MAX;
  }
  /* New connections to dst start from what was learnt, not the route */
  udccp_io_route *r = &ep->routes[route_slot(fam, addr)];
  if (r->family == fam && memcmp(r->dst, addr, 16) == 0) {
    r->mtu = mtu;
  }
  apply_pmtu(ep, fam, addr, ep->cfg.transport == UDCCP_TRANSPORT_UDP ? port : 0,
             mtu);
}

int udccp_io_errq_cmsg(const struct cmsghdr *c, uint32_t *mtu) {
  struct sock_extended_err ee;
  if (!((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR) ||
        (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR)) ||
      c->cmsg_len < CMSG_LEN(sizeof(ee))) {
    return UDCCP_IO_ERRQ_NONE;
  }
  memcpy(&ee, CMSG_DATA(c), sizeof(ee));
  if (ee.ee_errno == EMSGSIZE) {
    *mtu = ee.ee_info;
    return UDCCP_IO_ERRQ_PMTU;
  }
  if (ee.ee_errno == ECONNREFUSED || ee.ee_errno == ENOPROTOOPT) {
    return UDCCP_IO_ERRQ_UNREACHABLE;
  }
  return UDCCP_IO_ERRQ_NONE;
}

/* IP_RECVERR queue: locally detected EMSGSIZE, ICMP Too Big (RFC 6773
 * §3.6-3.7), and ICMP unreachable while a Request is outstanding. */
void udccp_io_drain_errqueue(udccp_endpoint *ep, int fidx) {
  for (int k = 0; k < 64; k++) {
    uint8_t data[64];
    uint8_t ctl[512];
    struct sockaddr_storage name;
    struct iovec iov = {data, sizeof(data)};
    struct msghdr m;
    memset(&m, 0, sizeof(m));
    m.msg_name = &name;
    m.msg_namelen = sizeof(name);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof(ctl);
    if (recvmsg(ep->fd[fidx], &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
      return;
    }
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL;
         c = CMSG_NXTHDR(&m, c)) {
      uint32_t mtu = 0;
      int kind = udccp_io_errq_cmsg(c, &mtu);
      if (kind == UDCCP_IO_ERRQ_PMTU) {
        udccp_io_route_pmtu(ep, fidx, &name, m.msg_namelen, mtu);
      } else if (kind == UDCCP_IO_ERRQ_UNREACHABLE) {
        uint8_t fam, addr[16];
        uint16_t port;
        if (udccp_io_addr_from_sockaddr((struct sockaddr *)&name, &fam, addr,
                                        &port) != 0) {
          continue;
        }
        if (ep->cfg.transport == UDCCP_TRANSPORT_RAW) {
          port = 0;
        }
        /* Port/protocol unreachable: nobody speaks DCCP(-UDP) there.  Only
         * a connection still in REQUEST takes it as a refusal, as TCP does
         * for SYN; later ones are left to the protocol's own timers. */
        for (size_t i = 0; i < ep->nsocks; i++) {
          udccp_sock *s = ep->socks[i];
          if (s->conn != NULL && s->path.family == fam &&
              s->remote_udp_port == port &&
              memcmp(s->path.remote_addr, addr,
                     fam == UDCCP_AF_INET ? 4 : 16) == 0 &&
              udccp_conn_get_state(s->conn) == UDCCP_STATE_REQUEST) {
            s->io_error = UDCCP_ERR_REFUSED;
            udccp_io_sched_touch(s);
          }
        }
      }
    }
  }
}

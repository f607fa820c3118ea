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

/* SPDX-License-Identifier: MIT */
/*
 * Sharing one UDP port between endpoints (SO_REUSEPORT): worker groups of
 * one process, and unrelated processes that each serve their own DCCP
 * ports on one UDP port such as 6511 (RFC 6773 §3.8: DCCP-UDP
 * demultiplexes on the DCCP ports, so the UDP port need not be owned by
 * one program).  See "Sharing a UDP port" in udccp.h.
 *
 * Steering.  A worker group attaches a classic BPF program to the port's
 * reuseport group: (DCCP source port XOR destination port) mod n picks the
 * socket, so every packet of a connection reaches the worker that
 * accepted it (the kernel runs it with the UDP payload, the DCCP header,
 * at offset 0).  Without a program the kernel hashes the UDP 4-tuple.
 *
 * Ownership.  Neither rule knows which process serves which DCCP port, so
 * a packet may reach an endpoint that has neither its connection nor a
 * listener on its port.  udccp_listen() on a sharing endpoint binds an
 * abstract Unix datagram socket named after the UDP and DCCP ports: the
 * claim.  The name is unique on the host (network namespace), so a second
 * claim fails (UDCCP_ERR_ADDRINUSE), and a receiver that does not own a
 * packet passes it, with its addresses, to the claim's socket; only if
 * nobody claims the port does it answer Reset No Connection (RFC 4340 §8.5
 * step 1).  The owner believes only senders of its own user (SO_PASSCRED),
 * the same trust the kernel's reuseport group requires, and never passes a
 * packet on twice (no loops).  In a worker group only worker 0 claims.
 *
 * The kernel's steering is not the last word: UDP GRO coalesces datagrams
 * of one UDP 4-tuple (many DCCP connections may share it) and the program
 * sees only the first.  So each worker checks every packet against the
 * rule and relays another worker's to that worker's inbox (an abstract
 * Unix socket per worker); its outgoing connections get local ports the
 * rule gives to it (udccp_io_pick_port_for).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/filter.h>

#include "endpoint.h"

/* What travels with a passed-on packet. */
typedef struct share_hdr {
  uint8_t family;   /* udccp_family */
  uint8_t ecn;
  uint16_t udp_rport;
  uint8_t remote[16];
  uint8_t local[16];
} share_hdr;

static socklen_t claim_name(struct sockaddr_un *sa, uint16_t udp,
                            uint16_t dport) {
  memset(sa, 0, sizeof(*sa));
  sa->sun_family = AF_UNIX;
  /* sun_path[0] = 0: the abstract namespace, gone with the socket */
  int n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
                   "udccp-udp/%u/dccp/%u", (unsigned)udp, (unsigned)dport);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static socklen_t inbox_name(struct sockaddr_un *sa, uint16_t udp, int k) {
  memset(sa, 0, sizeof(*sa));
  sa->sun_family = AF_UNIX;
  int n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
                   "udccp-udp/%u/pid/%ld/worker/%d", (unsigned)udp,
                   (long)getpid(), k);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

uint32_t udccp_io_steer(uint16_t sport, uint16_t dport, uint32_t n) {
  return n > 1 ? (uint32_t)(sport ^ dport) % n : 0;
}

int udccp_io_steer_attach(int fd, uint32_t n) {
  /* Loads are big-endian, as the header carries the ports (RFC 4340
   * §5.1: source port at offset 0, destination port at 2). */
  struct sock_filter prog[] = {
      BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 2),
      BPF_STMT(BPF_ST, 0),
      BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 0),
      BPF_STMT(BPF_LDX | BPF_W | BPF_MEM, 0),
      BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
      BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, n),
      BPF_STMT(BPF_RET | BPF_A, 0),
  };
  struct sock_fprog fp = {(unsigned short)(sizeof(prog) / sizeof(prog[0])),
                          prog};
  return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &fp,
                    sizeof(fp)) == 0
             ? 0
             : UDCCP_ERR_SOCKET;
}

static int unix_socket(void) {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
  }
  return fd;
}

static int bind_watch(udccp_endpoint *ep, struct sockaddr_un *sa,
                      socklen_t sl, int *pfd) {
  int fd = unix_socket();
  if (fd < 0) {
    return UDCCP_ERR_SOCKET;
  }
  if (bind(fd, (struct sockaddr *)sa, sl) != 0) {
    int rv = errno == EADDRINUSE ? UDCCP_ERR_ADDRINUSE : UDCCP_ERR_SOCKET;
    close(fd);
    return rv;
  }
  struct epoll_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.events = EPOLLIN;
  ev.data.u32 = UDCCP_IO_EV_SHARE | (uint32_t)fd;
  if (epoll_ctl(ep->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
    close(fd);
    return UDCCP_ERR_SOCKET;
  }
  *pfd = fd;
  return 0;
}

int udccp_io_share_claim(udccp_endpoint *ep, uint16_t dport, int *pfd) {
  *pfd = -1;
  if (!ep->cfg.reuseport || ep->group_k != 0) {
    return 0;
  }
  struct sockaddr_un sa;
  socklen_t sl = claim_name(&sa, ep->udp_port, dport);
  return bind_watch(ep, &sa, sl, pfd);
}

int udccp_io_share_inbox(udccp_endpoint *ep) {
  struct sockaddr_un sa;
  socklen_t sl = inbox_name(&sa, ep->udp_port, ep->group_k);
  return bind_watch(ep, &sa, sl, &ep->inbox_fd);
}

void udccp_io_share_close(udccp_endpoint *ep, int fd) {
  if (fd >= 0) {
    (void)epoll_ctl(ep->epfd, EPOLL_CTL_DEL, fd, NULL);
    close(fd);
  }
}

static int send_to(udccp_endpoint *ep, struct sockaddr_un *sa, socklen_t sl,
                   const share_hdr *h, const uint8_t *pkt, size_t len) {
  if (ep->fwd_fd < 0) {
    ep->fwd_fd = unix_socket();
    if (ep->fwd_fd < 0) {
      return 0;
    }
  }
  struct iovec iov[2] = {{(void *)h, sizeof(*h)}, {(void *)pkt, len}};
  struct msghdr m;
  memset(&m, 0, sizeof(m));
  m.msg_name = sa;
  m.msg_namelen = sl;
  m.msg_iov = iov;
  m.msg_iovlen = 2;
  /* A full inbox loses the packet, as a full socket buffer would. */
  return sendmsg(ep->fwd_fd, &m, MSG_DONTWAIT) >= 0 ||
         errno == EAGAIN || errno == EWOULDBLOCK;
}

static void fill_hdr(share_hdr *h, const udccp_path *path,
                     uint16_t udp_rport, uint8_t ecn) {
  memset(h, 0, sizeof(*h));
  h->family = path->family;
  h->ecn = ecn;
  h->udp_rport = udp_rport;
  memcpy(h->remote, path->remote_addr, 16);
  memcpy(h->local, path->local_addr, 16);
}

void udccp_io_share_relay(udccp_endpoint *ep, uint32_t worker,
                          const udccp_path *path, uint16_t udp_rport,
                          const uint8_t *pkt, size_t len, uint8_t ecn) {
  share_hdr h;
  fill_hdr(&h, path, udp_rport, ecn);
  struct sockaddr_un sa;
  socklen_t sl = inbox_name(&sa, ep->udp_port, (int)worker);
  if (send_to(ep, &sa, sl, &h, pkt, len)) {
    ep->stats.rx_forwarded++;
  }
}

int udccp_io_share_forward(udccp_endpoint *ep, const udccp_path *path,
                           uint16_t udp_rport, const uint8_t *pkt, size_t len,
                           uint8_t ecn) {
  share_hdr h;
  fill_hdr(&h, path, udp_rport, ecn);
  struct sockaddr_un sa;
  socklen_t sl = claim_name(&sa, ep->udp_port, path->local_port);
  if (!send_to(ep, &sa, sl, &h, pkt, len)) {
    return 0; /* nobody claims the port (ECONNREFUSED): ours to answer */
  }
  ep->stats.rx_forwarded++;
  return 1;
}

void udccp_io_share_recv(udccp_endpoint *ep, int fd, udccp_tstamp now) {
  /* the receive batch is idle between reads: all of it, so that a
   * relayed datagram as large as the route carries fits */
  const size_t cap = (size_t)ep->rslots * ep->rxbufsz;
  uint8_t *buf = ep->rbuf;
  for (int k = 0; k < (int)ep->batch; k++) {
    union {
      struct cmsghdr align;
      uint8_t b[CMSG_SPACE(sizeof(struct ucred))];
    } ctl;
    struct iovec iov = {buf, cap};
    struct msghdr m;
    memset(&m, 0, sizeof(m));
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl.b;
    m.msg_controllen = sizeof(ctl.b);
    ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT);
    if (n < 0) {
      return;
    }
    struct ucred cr;
    int trusted = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL;
         c = CMSG_NXTHDR(&m, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        memcpy(&cr, CMSG_DATA(c), sizeof(cr));
        trusted = cr.uid == geteuid();
      }
    }
    if (!trusted || (size_t)n < sizeof(share_hdr) + 4 ||
        (m.msg_flags & MSG_TRUNC)) {
      ep->stats.rx_bad++;
      continue;
    }
    share_hdr h;
    memcpy(&h, buf, sizeof(h));
    const uint8_t *pkt = buf + sizeof(h);
    size_t len = (size_t)n - sizeof(h);
    uint16_t sport = (uint16_t)(pkt[0] << 8 | pkt[1]);
    uint16_t dport = (uint16_t)(pkt[2] << 8 | pkt[3]);
    uint32_t w = udccp_io_steer(sport, dport, ep->group_n);
    if (w != ep->group_k) {
      /* A worker group's claim: the connection is that worker's. */
      struct sockaddr_un sa;
      socklen_t sl = inbox_name(&sa, ep->udp_port, (int)w);
      (void)send_to(ep, &sa, sl, &h, pkt, len);
      continue;
    }
    udccp_path path;
    memset(&path, 0, sizeof(path));
    path.family = h.family;
    memcpy(path.remote_addr, h.remote, 16);
    memcpy(path.local_addr, h.local, 16);
    int fidx = h.family == UDCCP_AF_INET ? UDCCP_IO_V4 : UDCCP_IO_V6;
    if (ep->fd[fidx] < 0 || len < 12) {
      ep->stats.rx_bad++;
      continue;
    }
    ep->stats.rx_from_peer++;
    udccp_io_input(ep, fidx, &path, h.udp_rport, pkt, len, h.ecn, now, 1);
  }
}

int udccp_endpoint_new_workers(udccp_endpoint **eps, size_t n,
                               const udccp_endpoint_config *cfg) {
  if (eps == NULL || cfg == NULL || n == 0 || n > 64 ||
      cfg->transport != UDCCP_TRANSPORT_UDP) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  udccp_endpoint_config c = *cfg;
  c.reuseport = 1;
  size_t made = 0;
  int rv = 0;
  for (size_t k = 0; k < n; k++) {
    /* In order: worker k's sockets are the k-th of their reuseport
     * groups (one per address family), the index the program returns. */
    rv = udccp_endpoint_new_config(&eps[k], &c);
    if (rv != 0) {
      break;
    }
    made++;
    eps[k]->group_n = (uint32_t)n;
    eps[k]->group_k = (uint32_t)k;
    c.local_port = udccp_endpoint_local_port(eps[0]);
    if (n > 1) {
      rv = udccp_io_share_inbox(eps[k]);
      if (rv != 0) {
        break;
      }
    }
  }
  for (int f = 0; f < 2 && rv == 0 && n > 1; f++) {
    if (eps[0]->fd[f] >= 0) {
      rv = udccp_io_steer_attach(eps[0]->fd[f], (uint32_t)n);
    }
  }
  if (rv != 0) {
    while (made > 0) {
      made--;
      udccp_endpoint_del(eps[made]);
      eps[made] = NULL;
    }
  }
  return rv;
}

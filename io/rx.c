/* SPDX-License-Identifier: MIT */
/*
 * The receive batch: recvmmsg into preallocated slots, each datagram (or
 * each segment of a UDP_GRO one) stripped of its UDP or IP layer and
 * handed to its connection, its listener, or answered (RFC 4340 §8.5
 * step 1; RFC 6773 §3.3).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "endpoint.h"
#include "wire.h"

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
  uint8_t *out = udccp_io_tx_slot(ep, UDCCP_IO_TXBUF);
  udccp_ssize n =
      udccp_pkt_write_reset_reply(out, UDCCP_IO_TXBUF, pkt, len, path,
                                  ep->settings.cksum_mode,
                                  UDCCP_RESET_NO_CONNECTION);
  if (n > 0) {
    udccp_io_tx_commit(ep, fidx, NULL, path, udp_rport, (size_t)n, 0);
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
  uint8_t *out = udccp_io_tx_slot(ep, UDCCP_IO_TXBUF);
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
      udccp_io_tx_commit(ep, fidx, NULL, path, udp_rport, (size_t)n, 0);
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
    udccp_io_tx_commit(ep, fidx, NULL, path, udp_rport, (size_t)n, 0);
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

int udccp_io_recv(udccp_endpoint *ep, int fidx, udccp_tstamp now,
                  int rounds) {
  int fd = ep->fd[fidx];
  ep->tx_since_rx = 0;
  /* Bounded, so that acks and timers get their turn under a flood, and in
   * packets: one turn hands the connections at most rounds batches' worth
   * and no more than a receive queue holds (rx_budget; an application's
   * receive queue is counted in datagrams). */
  size_t budget = udccp_io_rx_budget(ep, rounds), done = 0;
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
        want = 1; /* a drain's one batch (udccp_io_rx_drain): one message */
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
    ep->rx_hot = n > 0; /* loop.c look() */
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
udccp_tstamp udccp_io_rx_drain(udccp_endpoint *ep) {
  udccp_tstamp now = udccp_io_ep_now(ep);
  for (int f = 0; f < 2; f++) {
    /* Not a socket without connections (an endpoint with no local
     * address has both, and a bulk sender uses one: a recvmmsg that
     * found nothing at every drain); its listeners' packets wait for
     * the loop's turn, which reads what epoll reports. */
    if (ep->fd[f] >= 0 && ep->nsocks_fam[f] > 0) {
      /* One batch: what a sender needs is the acks that came in; the
       * loop's turns, between which the application reads, keep taking
       * the rest.  A socket error is for the loop to report. */
      (void)udccp_io_recv(ep, f, now, 1);
    }
  }
  ep->tx_since_rx = 0;
  return udccp_io_ep_now(ep);
}

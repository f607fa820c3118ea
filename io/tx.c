/* SPDX-License-Identifier: MIT */
/*
 * The transmit batch: connections write their packets into one
 * preallocated arena, each with its message, address and ancillary data;
 * the batch leaves in one sendmmsg (gso.c: runs of packets as UDP_SEGMENT
 * sends) when full or when the loop runs.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "addr.h"
#include "conn.h" /* the connection's send queue, for its hold */
#include "endpoint.h"

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

void udccp_io_tx_flush(udccp_endpoint *ep) {
  if (ep->gso && ep->ntx > 1) {
    udccp_io_gso_flush(ep);
  } else {
    (void)udccp_io_tx_plain(ep, 0, ep->ntx);
  }
  ep->ntx = 0;
  ep->ntiov = 0;
  ep->tused = 0;
  ep->tbytes = 0;
  ep->trun_n = 0;
  ep->tx_due = 0;
  ep->tx_epoch++; /* no packet points at a send queue now */
  /* The kernel has copied the payloads: the send queues may reuse them. */
  for (size_t k = 0; k < ep->nheld; k++) {
    udccp_sock *s = ep->theld[k];
    s->tx_held = 0;
    if (s->conn != NULL) {
      udccp_sendq_release(&s->conn->sendq);
    }
  }
  ep->nheld = 0;
}

void udccp_io_tx_forget(udccp_sock *s) {
  if (s->tx_held) {
    udccp_io_tx_flush(s->ep);
  }
}

/* Would a packet of up to cap bytes make the batch leave first?  With
 * GSO the batch holds UDCCP_IO_TX_GSO_BATCHES times the batch's packets,
 * and leaves at the end of a full GSO message once another would not fit
 * (tx_run). */
static int tx_full(const udccp_endpoint *ep, size_t cap) {
  size_t most = ep->gso ? (size_t)UDCCP_IO_TX_GSO_BATCHES * ep->batch
                        : ep->batch;
  return ep->tx_due || ep->ntx >= most ||
         ep->tused + cap > UDCCP_IO_TXARENA ||
         ep->tbytes >= UDCCP_IO_TX_BYTES_MAX;
}

/* Room for a packet of up to cap bytes in the transmit batch (flushed
 * first when full); udccp_io_tx_commit() takes what the packet used. */
uint8_t *udccp_io_tx_slot(udccp_endpoint *ep, size_t cap) {
  if (tx_full(ep, cap)) {
    udccp_io_tx_flush(ep);
  }
  return ep->tbuf + ep->tused;
}

/* Follows the GSO messages the batch's packets will make (gso.c group():
 * a burst's packets of one size, the last one possibly shorter, up to 64
 * segments and UDCCP_IO_GSO_MAX_BYTES) as packet i of len bytes joins,
 * and marks the batch due when the last message is full and another full
 * one would not fit: the batch then leaves as whole messages, not with
 * the start of one (at 1,200 bytes: 4 x 53 packets in one sendmmsg, where
 * a batch of 64 packets made two messages, 53 + 11; issue 13). */
static inline void tx_run(udccp_endpoint *ep, int same, uint32_t len) {
  if (same && ep->trun_n > 0 && !ep->trun_end && len <= ep->trun_seg &&
      ep->trun_n < UDCCP_IO_GSO_MAX_SEGS &&
      ep->trun_bytes + len <= UDCCP_IO_GSO_MAX_BYTES) {
    ep->trun_n++;
    ep->trun_bytes += len;
    ep->trun_end = len < ep->trun_seg; /* only the last may be shorter */
  } else {
    ep->trun_n = 1;
    ep->trun_bytes = ep->trun_seg = len;
    ep->trun_end = 0;
  }
  if (ep->trun_end || ep->trun_n == UDCCP_IO_GSO_MAX_SEGS ||
      ep->trun_bytes + ep->trun_seg > UDCCP_IO_GSO_MAX_BYTES) {
    size_t most = (size_t)UDCCP_IO_TX_GSO_BATCHES * ep->batch;
    if (ep->tbytes + UDCCP_IO_GSO_MAX_BYTES > UDCCP_IO_TX_BYTES_MAX ||
        ep->ntx + UDCCP_IO_GSO_MAX_SEGS > most) {
      ep->tx_due = 1;
    }
  }
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

/* udccp_io_tx_commit(), inlined into a connection's output loop (its
 * arguments there are a socket's own: the call cost about 20
 * instructions per packet).  The packet is the len bytes written at the
 * slot, then pl_len bytes at pl (its payload, in the connection's send
 * queue: udccp_conn_write_pkt_sg), which the kernel copies when the batch
 * leaves; until then the connection is left alone (udccp_io_tx_unref). */
static inline void tx_commit(udccp_endpoint *ep, int fidx, udccp_sock *owner,
                             const udccp_path *path, uint16_t udp_port,
                             size_t len, const uint8_t *pl, size_t pl_len,
                             uint8_t ecn) {
  size_t i = ep->ntx++;
  struct msghdr *m = &ep->tmsg[i].msg_hdr;
  const uint8_t *hdr = ep->tbuf + ep->tused;
  struct iovec *v = &ep->tiov[ep->ntiov];
  v[0].iov_base = ep->tbuf + ep->tused;
  v[0].iov_len = len;
  ep->tused += (len + 15) & ~(size_t)15; /* the next one aligned */
  m->msg_iov = v;
  m->msg_iovlen = 1;
  if (pl_len > 0) {
    v[1].iov_base = (void *)(uintptr_t)pl; /* the kernel only reads it */
    v[1].iov_len = pl_len;
    m->msg_iovlen = 2;
  }
  ep->ntiov += m->msg_iovlen;
  ep->tlen[i] = (uint32_t)(len + pl_len);
  ep->tbytes += len + pl_len;
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
  if (ep->gso) {
    tx_run(ep, same, ep->tlen[i]);
  }
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
    /* (a capture's packets are written whole: udccp_io_sock_output) */
    udccp_io_capture(ep, 1, path, udp_port, hdr, len, ecn);
  }
}

void udccp_io_tx_commit(udccp_endpoint *ep, int fidx, udccp_sock *owner,
                        const udccp_path *path, uint16_t udp_port, size_t len,
                        uint8_t ecn) {
  tx_commit(ep, fidx, owner, path, udp_port, len, NULL, 0, ecn);
}

/* The end of s's turn: no packet in the batch may point into s's send
 * queue after it (udccp_conn_write_pkt_sg: the application's next send
 * may write over those bytes, a read or a timer free them).  Small
 * payloads (a 1500-byte path's) are copied into the batch's arena, so
 * that the next turns' packets still join them in one sendmmsg: with
 * CCID 2's ack clock a turn sends 20-60 packets, and flushing after each
 * halved the packets per sendmmsg at 1,200 bytes (45 -> 24) and cost
 * more CPU per GB than the copies it saved (make bench, A/B).  Large
 * ones leave now: a batch holds few of them anyway, and a copy of 8 or
 * 64 KB costs more than a sendmmsg.  The packets that left during the
 * turn (a full batch, a drain) were never copied. */
static void tx_sg_settle(udccp_endpoint *ep, const udccp_sock *s) {
  size_t bytes = 0, most = 0;
  for (size_t i = 0; i < ep->ntx; i++) {
    const struct msghdr *m = &ep->tmsg[i].msg_hdr;
    if (ep->towner[i] == s && m->msg_iovlen == 2) {
      size_t n = m->msg_iov[1].iov_len;
      bytes += (n + 15) & ~(size_t)15;
      most = n > most ? n : most;
    }
  }
  if (most > UDCCP_IO_SG_COPY_PKT || bytes > UDCCP_IO_SG_COPY_MAX ||
      ep->tused + bytes > UDCCP_IO_TXARENA) {
    udccp_io_tx_flush(ep);
    return;
  }
  for (size_t i = 0; i < ep->ntx; i++) {
    struct msghdr *m = &ep->tmsg[i].msg_hdr;
    if (ep->towner[i] == s && m->msg_iovlen == 2) {
      struct iovec *v = &m->msg_iov[1];
      uint8_t *d = ep->tbuf + ep->tused;
      memcpy(d, v->iov_base, v->iov_len);
      v->iov_base = d;
      ep->tused += (v->iov_len + 15) & ~(size_t)15;
    }
  }
}

/* How many data packets s may send between two reads of the sockets.
 * Every packet we send acknowledges GSR, and the peer accepts
 * acknowledgement numbers only within its last W' sequence numbers sent
 * (RFC 4340 §7.5.1, §7.5.3).  The peer sends about one ack per Ack Ratio
 * of our data packets (RFC 4341 §6.1.2): after W'/2 x Ack Ratio of them
 * unread, its acks of what we sent since the last read fill half of W'
 * (the other half is for those of the packets in flight then, which CCID
 * 2 keeps within W'/2: lib/ccid2.c ar_min).  Linux keeps W' = 100 (100
 * packets at Ack Ratio 2); ours starts at 1,000 and grows with the rate
 * (§7.5.2).  At most UDCCP_IO_DRAIN_MAX, so that the CCID sees its
 * feedback within a few batches; at least UDCCP_IO_DRAIN_MIN. */
static uint32_t drain_every(const udccp_sock *s) {
  const udccp_ccid_env *e = &s->conn->env;
  uint64_t n = e->seq_window_in / 2 * (e->ack_ratio > 0 ? e->ack_ratio : 1);
  return n < UDCCP_IO_DRAIN_MIN   ? UDCCP_IO_DRAIN_MIN
         : n > UDCCP_IO_DRAIN_MAX ? UDCCP_IO_DRAIN_MAX
                                  : (uint32_t)n;
}

void udccp_io_sock_output(udccp_sock *s, udccp_tstamp now) {
  udccp_endpoint *ep = s->ep;
  uint32_t sg_epoch = ep->tx_epoch - 1; /* no payload of s in the batch */
  if (s->conn == NULL) {
    return; /* a tombstone sends only in answer (tomb_input) */
  }
  uint32_t drain_at = drain_every(s);
  udccp_sendq *q = &s->conn->sendq;
  s->more_queued = 0;
  if (s->mp != NULL) {
    udccp_io_mp_turn(s->mp, now); /* the scheduler fills its queue */
  }
  int sg = ep->pcap == NULL && s->mp == NULL;
  /* Bounded: a CCID that never says "stop" cannot hang the loop. */
  for (int k = 0; k < 4096; k++) {
    size_t cap = tx_cap(s);
    if (ep->tx_since_rx >= drain_at ||
        (ep->tx_since_rx >= UDCCP_IO_DRAIN_SOFT && tx_full(ep, cap))) {
      /* Enough data packets went out since we last read: read what came
       * in before sending more, so that our packets' acknowledgement
       * numbers stay within the peer's W' (drain_every) and the CCID
       * sees its feedback; where the batch leaves anyway, after
       * UDCCP_IO_DRAIN_SOFT (a read of its own would leave a part of a
       * GSO message). */
      udccp_io_tx_flush(ep);
      now = udccp_io_rx_drain(ep);
    }
    uint8_t *buf = udccp_io_tx_slot(ep, cap);
    uint8_t ecn = 0;
    const uint8_t *pl = NULL;
    size_t pl_len = 0;
    /* The payload stays in the send queue and the batch's message points
     * at it (issue 13: a copy per packet less); a capture, or a subflow
     * (whose scheduler acts on the connection between its packets),
     * takes whole packets. */
    if (sg && !q->hold) {
      /* The send queue keeps the bytes of what it pops until the batch
       * has left (SIMPLE; under PRIO the end of the turn copies them):
       * no copy, and the batch fills across turns (issue 13). */
      (void)udccp_sendq_hold(q);
    }
    udccp_ssize n = sg ? udccp_conn_write_pkt_sg(s->conn, buf, cap, &pl,
                                                 &pl_len, &ecn, now)
                       : udccp_conn_write_pkt(s->conn, buf, cap, &ecn, now);
    if (n <= 0) {
      /* A multipath subflow takes one datagram at a time (lib/mp_conn.c):
       * while its CCID lets packets go, the scheduler refills it. */
      if (s->mp != NULL && udccp_io_mp_turn(s->mp, now) > 0) {
        continue;
      }
      break;
    }
    tx_commit(ep, s->fidx, s, &s->path, s->remote_udp_port, (size_t)n, pl,
              pl_len, ecn);
    if (pl_len > 0) {
      sg_epoch = ep->tx_epoch;
      if (q->hold && !s->tx_held) {
        s->tx_held = 1;
        ep->theld[ep->nheld++] = s; /* one packet in the batch at least */
      }
    }
  }
  if (q->hold && !s->tx_held) {
    udccp_sendq_release(q); /* nothing in the batch points into it */
  }
  if (sg_epoch == ep->tx_epoch && !s->tx_held) {
    tx_sg_settle(ep, s);
  }
}

void udccp_io_sock_gen(udccp_sock *s) {
  udccp_io_sock_gen_at(s, udccp_io_ep_now(s->ep));
}

void udccp_io_sock_gen_at(udccp_sock *s, udccp_tstamp now) {
  if (s->ep->filter_dirty) {
    udccp_io_filter_update(s->ep);
  }
  udccp_io_sock_output(s, now);
  udccp_io_sched_update(s);
  /* dirty: udccp_endpoint_timeout_ms() says 0 until the loop sends */
  udccp_io_sched_touch(s);
}

void udccp_io_sock_flush(udccp_sock *s) {
  udccp_io_sock_flush_at(s, udccp_io_ep_now(s->ep));
}

void udccp_io_sock_flush_at(udccp_sock *s, udccp_tstamp now) {
  if (s->ep->filter_dirty) {
    udccp_io_filter_update(s->ep);
  }
  udccp_io_sock_output(s, now);
  udccp_io_tx_flush(s->ep);
  udccp_io_sched_update(s);
  /* the next loop turn reaps it if it is done */
  udccp_io_sched_touch(s);
}

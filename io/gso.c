/* SPDX-License-Identifier: MIT */
/*
 * UDP segmentation offload for DCCP-UDP (see endpoint.h).
 *
 * Transmit (UDP_SEGMENT, Linux >= 4.18): a run of packets in the transmit
 * batch that go to one peer with the same ancillary data and share one
 * size (the last may be shorter) leaves as one super-datagram; the kernel
 * (or the NIC) cuts it into ordinary UDP datagrams, each one DCCP packet
 * with its own header, so the wire is the same as without GSO.  The
 * packets are not copied: the message points at their slots (one iovec
 * each, or two: the header, and the payload in the send queue) and the
 * segment size makes the boundaries.
 *
 * Receive (UDP_GRO, Linux >= 5.0): the kernel may hand us several
 * datagrams of one flow as one buffer with the segment size in a control
 * message; rx.c cuts it back into packets (RFC 6773 §3.3 still
 * applies to each: every segment was one UDP datagram).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "endpoint.h"

#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* Kernel limits (endpoint.h): at most 64 segments (UDP_MAX_SEGMENTS in
 * older kernels), and the whole super-datagram must stay under the
 * device's gso_max_size.  One that does not is not refused: Linux segments it
 * in software before the device (validate_xmit_skb, "skb->len >=
 * gso_max_size"), and over loopback the receiver then gets every segment
 * as its own datagram, no GRO, a socket buffer charged per datagram.
 * Linux 6.18, loopback: IPv4 payloads of 65,493 bytes stay whole, 65,494
 * are cut; IPv6 65,473 and 65,474.  46 DCCP-UDP packets of 1,408 bytes
 * of data (1,424 with the 16-byte Data header) make 65,504 bytes: before
 * this bound, udccp-perf's default size ran at half the goodput of
 * 1,407 bytes and lost packets at the receiver's socket buffer. */
#define GSO_MAX_SEGS UDCCP_IO_GSO_MAX_SEGS
#define GSO_MAX_BYTES UDCCP_IO_GSO_MAX_BYTES

void udccp_io_offload_setup(udccp_endpoint *ep, int fd) {
  int zero = 0, one = 1;
  /* Setting the per-socket segment size to 0 (none) only tests that the
   * option exists; each send names its size in a control message. */
  if (ep->gso &&
      setsockopt(fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero)) != 0) {
    ep->gso = 0;
  }
  if (ep->gro && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) != 0) {
    ep->gro = 0;
  }
}

void udccp_io_gro_off(int fd) {
  int zero = 0;
  (void)setsockopt(fd, SOL_UDP, UDP_GRO, &zero, sizeof(zero));
}

size_t udccp_io_gro_size(struct msghdr *m) {
  for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c != NULL;
       c = CMSG_NXTHDR(m, c)) {
    if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
        c->cmsg_len >= CMSG_LEN(sizeof(int))) {
      int g;
      memcpy(&g, CMSG_DATA(c), sizeof(g));
      return g > 0 ? (size_t)g : 0;
    }
  }
  return 0;
}

/* Does packet i carry application data (DCCP-Data or -DataAck, RFC 4340
 * §5.1: the Type field, bits 1..4 of byte 8)? */
static int carries_data(const udccp_endpoint *ep, size_t i) {
  const struct iovec *v = ep->tmsg[i].msg_hdr.msg_iov; /* the header */
  const uint8_t *h = v->iov_base;
  unsigned type = v->iov_len > 8 ? (h[8] >> 1) & 0x0fu : 0;
  return type == 2 || type == 4;
}

/* Can packet j join the run that starts at packet i?  (A packet that
 * continues its predecessor's burst, tsame, can: group() asks only while
 * every packet since i joined, so it is the same as i's.) */
static int same_run(const udccp_endpoint *ep, size_t i, size_t j) {
  const struct msghdr *a = &ep->tmsg[i].msg_hdr, *b = &ep->tmsg[j].msg_hdr;
  /* Data packets: one connection per run (its DCCP ports, the first 4
   * bytes of each packet).  The receiver's GRO keeps a run as one
   * message and a worker group steers a message by its first packet's
   * ports (io/share.c), so a bulk run mixing connections would put half
   * of it through the relay.  Control packets (handshakes, Acks, closes)
   * of many connections to one peer still share runs: one GSO send for
   * a burst of handshakes, three times the handshakes per second over
   * loopback, and a few relayed packets at worst. */
  if ((carries_data(ep, i) || carries_data(ep, j)) &&
      memcmp(a->msg_iov->iov_base, b->msg_iov->iov_base, 4) != 0) {
    return 0;
  }
  /* A burst's packets share one address and one ancillary buffer
   * (tx.c, udccp_io_tx_commit): equal pointers, nothing to compare. */
  return ep->tfidx[i] == ep->tfidx[j] && a->msg_namelen == b->msg_namelen &&
         (a->msg_name == b->msg_name ||
          memcmp(a->msg_name, b->msg_name, a->msg_namelen) == 0) &&
         a->msg_controllen == b->msg_controllen &&
         (a->msg_controllen == 0 || a->msg_control == b->msg_control ||
          memcmp(a->msg_control, b->msg_control, a->msg_controllen) == 0);
}

/* Groups tmsg[0..ntx) into gmsg[]; returns the number of messages. */
static size_t group(udccp_endpoint *ep) {
  size_t ng = 0, i = 0;
  while (i < ep->ntx) {
    size_t seg = ep->tlen[i], total = seg, j = i + 1;
    size_t niov = ep->tmsg[i].msg_hdr.msg_iovlen;
    while (j < ep->ntx && j - i < GSO_MAX_SEGS && seg <= ep->gso_seg_max &&
           (ep->tsame[j] || same_run(ep, i, j)) && ep->tlen[j] <= seg &&
           total + ep->tlen[j] <= GSO_MAX_BYTES) {
      total += ep->tlen[j];
      niov += ep->tmsg[j].msg_hdr.msg_iovlen;
      /* A shorter packet ends the run: only the last segment may be. */
      if (ep->tlen[j++] < seg) {
        break;
      }
    }
    struct mmsghdr *g = &ep->gmsg[ng];
    g->msg_hdr = ep->tmsg[i].msg_hdr;
    g->msg_len = 0;
    ep->gfirst[ng] = (uint16_t)i;
    ep->gcount[ng] = (uint16_t)(j - i);
    if (j - i > 1) {
      struct msghdr *m = &g->msg_hdr;
      /* The packets' iovecs are adjacent, in order (tx.c); segments are
       * cut by bytes, so a header and its payload make one. */
      m->msg_iovlen = niov;
      size_t used = m->msg_controllen;
      uint8_t *ctl = ep->gctl[ng];
      memset(ctl, 0, used + CMSG_SPACE(sizeof(uint16_t)));
      if (used > 0) {
        memcpy(ctl, m->msg_control, used);
      }
      struct cmsghdr *c = (struct cmsghdr *)(void *)(ctl + used);
      uint16_t gs = (uint16_t)seg;
      c->cmsg_level = SOL_UDP;
      c->cmsg_type = UDP_SEGMENT;
      c->cmsg_len = CMSG_LEN(sizeof(gs));
      memcpy(CMSG_DATA(c), &gs, sizeof(gs));
      m->msg_control = ctl;
      m->msg_controllen = used + CMSG_SPACE(sizeof(gs));
    }
    ng++;
    i = j;
  }
  return ng;
}

static int gso_refused(int err) {
  return err == EIO || err == EINVAL || err == ENOPROTOOPT ||
         err == EOPNOTSUPP;
}

void udccp_io_gso_flush(udccp_endpoint *ep) {
  size_t ng = group(ep);
  size_t g = 0;
  while (g < ng) {
    int f = ep->tfidx[ep->gfirst[g]];
    size_t h = g;
    while (h < ng && ep->tfidx[ep->gfirst[h]] == f) {
      h++;
    }
    while (g < h) {
      int r = sendmmsg(ep->fd[f], &ep->gmsg[g], (unsigned)(h - g),
                       MSG_DONTWAIT);
      if (r > 0) {
        ep->stats.tx_batches++;
        for (size_t k = g; k < g + (size_t)r; k++) {
          ep->stats.tx_pkts += ep->gcount[k];
          if (ep->gcount[k] > 1) {
            ep->stats.tx_gso_sends++;
            ep->stats.tx_gso_pkts += ep->gcount[k];
          }
        }
        g += (size_t)r;
        continue;
      }
      if (r < 0 && errno == EINTR) {
        continue;
      }
      int err = r < 0 ? errno : EIO;
      size_t first = ep->gfirst[g], cnt = ep->gcount[g];
      if (cnt > 1 && gso_refused(err)) {
        /* Resend packet by packet.  If that works, the kernel (or the
         * route's device) cannot segment: stop asking.  If it fails too
         * (e.g. EMSGSIZE after a PMTU drop, which GSO reports as
         * EINVAL), the plain path has handled it and GSO stays. */
        if (udccp_io_tx_plain(ep, first, first + cnt) > 0) {
          size_t seg = ep->tlen[first];
          ep->stats.gso_fallbacks++;
          if (seg > 1500) {
            /* Large packets (a loopback-sized MTU): the kernel may refuse
             * to segment them where it segments ordinary ones; such runs
             * go packet by packet from now on, the others keep GSO. */
            ep->gso_seg_max = (uint32_t)seg - 1;
            g++;
            continue;
          }
          ep->gso = 0;
          size_t rest = first + cnt;
          (void)udccp_io_tx_plain(ep, rest, ep->ntx);
          return;
        }
      } else if (err == EMSGSIZE) {
        /* The plain path learns the path MTU from its own EMSGSIZE. */
        (void)udccp_io_tx_plain(ep, first, first + cnt);
      } else {
        /* A full buffer: every packet of the run is lost, as a full
         * router queue would lose it; the CCID sees the loss. */
        ep->stats.tx_errors += cnt;
      }
      g++;
    }
  }
}

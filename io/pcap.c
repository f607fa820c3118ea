/* SPDX-License-Identifier: MIT */
/*
 * pcap file format (the classic one, nanosecond variant, magic a1b23c4d),
 * written in host byte order as the format allows (see pcap.h), and the
 * endpoint's capture (udccp_pcap_open(), udccp_endpoint_set_pcap()).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "endpoint.h"
#include "pcap.h"
#include "wire.h"

#define PCAP_MAGIC_NS 0xa1b23c4dU
#define PCAP_SNAPLEN 65535U

static void put16be(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

uint32_t udccp_io_inet_sum(uint32_t sum, const uint8_t *data, size_t len) {
  size_t i = 0;
  for (; i + 1 < len; i += 2) {
    sum += (uint32_t)data[i] << 8 | data[i + 1];
    if (sum & 0x80000000U) {
      sum = (sum & 0xFFFF) + (sum >> 16);
    }
  }
  if (i < len) {
    sum += (uint32_t)data[i] << 8;
  }
  return sum;
}

uint16_t udccp_io_inet_fold(uint32_t sum) {
  while (sum >> 16) {
    sum = (sum & 0xFFFF) + (sum >> 16);
  }
  return (uint16_t)~sum;
}

int udccp_io_pcap_init(struct udccp_pcap *p, const char *path) {
  memset(p, 0, sizeof(*p));
  p->f = fopen(path, "wb");
  if (p->f == NULL) {
    return -1;
  }
  struct {
    uint32_t magic;
    uint16_t major, minor;
    int32_t thiszone;
    uint32_t sigfigs, snaplen, linktype;
  } hdr = {PCAP_MAGIC_NS, 2, 4, 0, 0, PCAP_SNAPLEN, UDCCP_PCAP_LINKTYPE_RAW};
  if (fwrite(&hdr, sizeof(hdr), 1, p->f) != 1) {
    p->failed = 1;
  }
  return 0;
}

/* The IP header (20 bytes IPv4, 40 IPv6) for fr carrying l4len bytes. */
static size_t ip_header(struct udccp_pcap *p, const udccp_pcap_frame *fr,
                        size_t l4len, uint8_t *ip) {
  if (fr->family == UDCCP_AF_INET6) {
    ip[0] = (uint8_t)(0x60 | fr->tos >> 4); /* version 6, traffic class */
    ip[1] = (uint8_t)(fr->tos << 4);        /* flow label 0 */
    ip[2] = ip[3] = 0;
    put16be(ip + 4, (uint16_t)l4len);
    ip[6] = fr->proto;
    ip[7] = 64; /* hop limit */
    memcpy(ip + 8, fr->src, 16);
    memcpy(ip + 24, fr->dst, 16);
    return 40;
  }
  ip[0] = 0x45; /* version 4, IHL 5 */
  ip[1] = fr->tos;
  put16be(ip + 2, (uint16_t)(20 + l4len));
  put16be(ip + 4, p->ip_id++);
  put16be(ip + 6, 0x4000); /* DF */
  ip[8] = 64;              /* TTL */
  ip[9] = fr->proto;
  put16be(ip + 10, 0);
  memcpy(ip + 12, fr->src, 4);
  memcpy(ip + 16, fr->dst, 4);
  put16be(ip + 10, udccp_io_inet_fold(udccp_io_inet_sum(0, ip, 20)));
  return 20;
}

/* The UDP header (RFC 768) in front of fr's payload, its checksum over the
 * pseudo-header (RFC 768 for IPv4, RFC 8200 §8.1 for IPv6). */
static void udp_header(const udccp_pcap_frame *fr, uint8_t *udp) {
  size_t alen = fr->family == UDCCP_AF_INET6 ? 16 : 4;
  uint16_t ulen = (uint16_t)(8 + fr->len);
  put16be(udp, fr->sport);
  put16be(udp + 2, fr->dport);
  put16be(udp + 4, ulen);
  put16be(udp + 6, 0);
  uint8_t ph[4] = {0, UDCCP_IPPROTO_UDP, 0, 0};
  put16be(ph + 2, ulen);
  uint32_t sum = udccp_io_inet_sum(0, fr->src, alen);
  sum = udccp_io_inet_sum(sum, fr->dst, alen);
  sum = udccp_io_inet_sum(sum, ph, 4);
  sum = udccp_io_inet_sum(sum, udp, 8);
  uint16_t ck = udccp_io_inet_fold(udccp_io_inet_sum(sum, fr->l4, fr->len));
  put16be(udp + 6, ck == 0 ? 0xFFFF : ck); /* 0 means "none" (RFC 768) */
}

int udccp_io_pcap_write(struct udccp_pcap *p, uint64_t ts,
                        const udccp_pcap_frame *fr) {
  size_t ulen = fr->proto == UDCCP_IPPROTO_UDP ? 8 : 0;
  if (p->f == NULL || fr->len + ulen > PCAP_SNAPLEN - 40) {
    return -1;
  }
  uint8_t hdr[48];
  flockfile(p->f); /* ip_id and frames too */
  size_t iplen = ip_header(p, fr, ulen + fr->len, hdr);
  if (ulen != 0) {
    udp_header(fr, hdr + iplen);
  }
  size_t total = iplen + ulen + fr->len;
  struct {
    uint32_t sec, nsec, caplen, len;
  } rec = {(uint32_t)(ts / UDCCP_NS_PER_S), (uint32_t)(ts % UDCCP_NS_PER_S),
           (uint32_t)total, (uint32_t)total};
  int bad = fwrite(&rec, sizeof(rec), 1, p->f) != 1 ||
            fwrite(hdr, iplen + ulen, 1, p->f) != 1 ||
            (fr->len > 0 && fwrite(fr->l4, fr->len, 1, p->f) != 1);
  if (bad) {
    p->failed = 1;
  } else {
    p->frames++;
  }
  funlockfile(p->f);
  return bad ? -1 : 0;
}

int udccp_io_pcap_fini(struct udccp_pcap *p) {
  if (p->f == NULL) {
    return p->failed ? -1 : 0;
  }
  if (fclose(p->f) != 0) {
    p->failed = 1;
  }
  p->f = NULL;
  return p->failed ? -1 : 0;
}

/* ------------------------------------------------ the public capture */

int udccp_pcap_open(udccp_pcap **pp, const char *path) {
  if (pp == NULL || path == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  *pp = NULL;
  udccp_pcap *p = malloc(sizeof(*p));
  if (p == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  if (udccp_io_pcap_init(p, path) != 0) {
    int e = errno;
    free(p);
    errno = e;
    return UDCCP_ERR_SOCKET;
  }
  *pp = p;
  return 0;
}

uint64_t udccp_pcap_frames(const udccp_pcap *p) {
  return p == NULL ? 0 : p->frames;
}

int udccp_pcap_close(udccp_pcap *p) {
  if (p == NULL) {
    return 0;
  }
  int rv = udccp_io_pcap_fini(p);
  free(p);
  return rv == 0 ? 0 : UDCCP_ERR_SOCKET;
}

void udccp_endpoint_set_pcap(udccp_endpoint *ep, udccp_pcap *p) {
  if (ep != NULL) {
    ep->pcap = p;
  }
}

void udccp_io_capture(udccp_endpoint *ep, int out, const udccp_path *path,
                      uint16_t udp_rport, const uint8_t *pkt, size_t len,
                      uint8_t ecn) {
  int udp = ep->cfg.transport == UDCCP_TRANSPORT_UDP;
  udccp_pcap_frame fr;
  memset(&fr, 0, sizeof(fr));
  fr.family = path->family;
  fr.src = out ? path->local_addr : path->remote_addr;
  fr.dst = out ? path->remote_addr : path->local_addr;
  fr.proto = udp ? UDCCP_IPPROTO_UDP : UDCCP_IPPROTO_DCCP;
  /* received: the DSCP is the sender's and not known here, only ECN */
  fr.tos = (uint8_t)((out ? ep->tos : 0) | (ecn & 3));
  fr.sport = out ? ep->udp_port : udp_rport;
  fr.dport = out ? udp_rport : ep->udp_port;
  fr.l4 = pkt;
  fr.len = len;
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  (void)udccp_io_pcap_write(ep->pcap,
                            (uint64_t)t.tv_sec * UDCCP_NS_PER_S +
                                (uint64_t)t.tv_nsec,
                            &fr);
}

int udccp_endpoint_set_tos(udccp_endpoint *ep, int tos) {
  if (ep == NULL || tos < 0 || tos > 255) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  int v = tos & ~3; /* RFC 3168 §5: the ECN field is the transport's */
  for (int f = 0; f < 2; f++) {
    if (ep->fd[f] < 0) {
      continue;
    }
    int rc = f == UDCCP_IO_V4
                 ? setsockopt(ep->fd[f], IPPROTO_IP, IP_TOS, &v, sizeof(v))
                 : setsockopt(ep->fd[f], IPPROTO_IPV6, IPV6_TCLASS, &v,
                              sizeof(v));
    if (rc != 0) {
      return UDCCP_ERR_SOCKET;
    }
  }
  ep->tos = (uint8_t)v;
  return 0;
}

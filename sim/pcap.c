/* SPDX-License-Identifier: MIT */
/*
 * pcap file format (the classic one, nanosecond variant, magic a1b23c4d),
 * written in host byte order as the format allows.
 */
#include <string.h>

#include "sim_pcap.h"

#define PCAP_MAGIC_NS 0xa1b23c4dU
#define PCAP_SNAPLEN 65535U

static void put16be(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

uint32_t sim_inet_sum(uint32_t sum, const uint8_t *data, size_t len) {
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

uint16_t sim_inet_fold(uint32_t sum) {
  while (sum >> 16) {
    sum = (sum & 0xFFFF) + (sum >> 16);
  }
  return (uint16_t)~sum;
}

int sim_pcap_open(sim_pcap *p, const char *path) {
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
  } hdr = {PCAP_MAGIC_NS, 2, 4, 0, 0, PCAP_SNAPLEN, SIM_PCAP_LINKTYPE_RAW};
  if (fwrite(&hdr, sizeof(hdr), 1, p->f) != 1) {
    p->failed = 1;
  }
  return 0;
}

int sim_pcap_write_ipv4(sim_pcap *p, udccp_tstamp ts, const uint8_t src[4],
                        const uint8_t dst[4], uint8_t proto, uint8_t tos,
                        const uint8_t *l4, size_t l4_len) {
  if (p->f == NULL || l4_len > PCAP_SNAPLEN - 20) {
    return -1;
  }
  uint8_t ip[20];
  size_t total = 20 + l4_len;
  ip[0] = 0x45; /* version 4, IHL 5 */
  ip[1] = tos;
  put16be(ip + 2, (uint16_t)total);
  put16be(ip + 4, p->ip_id++);
  put16be(ip + 6, 0x4000); /* DF */
  ip[8] = 64;              /* TTL */
  ip[9] = proto;
  put16be(ip + 10, 0);
  memcpy(ip + 12, src, 4);
  memcpy(ip + 16, dst, 4);
  put16be(ip + 10, sim_inet_fold(sim_inet_sum(0, ip, 20)));
  struct {
    uint32_t sec, nsec, caplen, len;
  } rec = {(uint32_t)(ts / UDCCP_NS_PER_S), (uint32_t)(ts % UDCCP_NS_PER_S),
           (uint32_t)total, (uint32_t)total};
  if (fwrite(&rec, sizeof(rec), 1, p->f) != 1 || fwrite(ip, 20, 1, p->f) != 1 ||
      (l4_len > 0 && fwrite(l4, l4_len, 1, p->f) != 1)) {
    p->failed = 1;
    return -1;
  }
  p->frames++;
  return 0;
}

int sim_pcap_close(sim_pcap *p) {
  if (p->f == NULL) {
    return 0;
  }
  if (fclose(p->f) != 0) {
    p->failed = 1;
  }
  p->f = NULL;
  return p->failed ? -1 : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The simulator's captures, written by the runtime's pcap writer
 * (io/pcap.c) in virtual time.
 */
#include <string.h>

#include "sim_pcap.h"

int sim_pcap_open(sim_pcap *p, const char *path) {
  return udccp_io_pcap_init(p, path);
}

int sim_pcap_write_ipv4(sim_pcap *p, udccp_tstamp ts, const uint8_t src[4],
                        const uint8_t dst[4], uint8_t proto, uint8_t tos,
                        const uint8_t *l4, size_t l4_len) {
  udccp_pcap_frame fr;
  memset(&fr, 0, sizeof(fr));
  fr.family = UDCCP_AF_INET;
  fr.src = src;
  fr.dst = dst;
  fr.proto = proto;
  fr.tos = tos;
  fr.l4 = l4;
  fr.len = l4_len;
  return udccp_io_pcap_write(p, ts, &fr);
}

int sim_pcap_close(sim_pcap *p) { return udccp_io_pcap_fini(p); }

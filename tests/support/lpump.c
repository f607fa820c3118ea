/* SPDX-License-Identifier: MIT */
#include "lpump.h"

#include <string.h>

void udccp_lpump_path(udccp_path *p, uint32_t i, int server) {
  uint16_t cport = (uint16_t)(1024 + i % 60000);
  memset(p, 0, sizeof(*p));
  p->family = UDCCP_AF_INET;
  p->local_addr[0] = p->remote_addr[0] = 127;
  p->local_addr[3] = p->remote_addr[3] = 1;
  p->local_port = server ? 5001 : cport;
  p->remote_port = server ? cport : 5001;
}

int udccp_lpump(udccp_listener *lis, udccp_conn *c[2], uint32_t i,
                uint8_t *buf, size_t cap, udccp_tstamp *now,
                udccp_tstamp step) {
  int moved = 1, rounds = 0;
  udccp_path sp;
  udccp_lpump_path(&sp, i, 1);
  while (moved && rounds++ < 64) {
    int side;
    moved = 0;
    for (side = 0; side < 2; ++side) {
      udccp_ssize n;
      if (c[side] == NULL) {
        continue;
      }
      while ((n = udccp_conn_write_pkt(c[side], buf, cap, NULL, *now)) > 0) {
        moved = 1;
        if (side == 0 && c[1] == NULL) {
          uint8_t out[256];
          udccp_ssize r = udccp_listener_read_pkt(lis, &sp, buf, (size_t)n,
                                                  *now, &c[1], out,
                                                  sizeof(out));
          if (r < 0 && c[1] == NULL) {
            return -1;
          }
        } else if (c[1 - side] != NULL) {
          (void)udccp_conn_read_pkt(c[1 - side], buf, (size_t)n, 0, *now);
        }
      }
    }
    *now += step;
  }
  return 0;
}

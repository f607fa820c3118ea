/* SPDX-License-Identifier: MIT */
/*
 * The DCCP ports an endpoint owns: reference counts, the choice of a
 * local port for an outgoing connection (RFC 6056 §3.3.4), and the raw
 * transport's classic BPF port filter, rebuilt when the set changes.
 */
#include <string.h>
#include <sys/socket.h>

#include "endpoint.h"
#include "siphash.h"
#include "wire.h"

void udccp_io_port_ref(udccp_endpoint *ep, uint16_t port, int delta) {
  uint16_t old = ep->portref[port];
  if (delta > 0 && old < UINT16_MAX) {
    ep->portref[port]++;
  } else if (delta < 0 && old > 0) {
    ep->portref[port]--;
  }
  if ((old == 0) != (ep->portref[port] == 0)) {
    ep->filter_dirty = 1;
  }
}

static int is_listening(const udccp_endpoint *ep, uint16_t port) {
  for (size_t i = 0; i < ep->nlis; i++) {
    if (ep->lis[i].port == port) {
      return 1;
    }
  }
  return 0;
}

/* RFC 6056 §3.3.4, Algorithm 4 (double-hash port selection): offset =
 * F(addresses, remote ports, secret), index = G(the same, another key
 * part), port = offset + T[index]++, then every port once from there.
 * Connections to one destination take consecutive ports, so a client that
 * opens and aborts many of them does not come back to a port the server
 * still holds in TIMEWAIT (RFC 4340 §8.5 step 2 answers a Request there
 * with Reset(No Connection)): with a random port per connection, 200
 * connections to one server collided about once (the attack suite's
 * legitimate handshakes were refused 1-3 times in 200).  Other
 * destinations' counters are apart, so ports stay unpredictable to them. */
uint16_t udccp_io_pick_port_for(udccp_endpoint *ep, const udccp_path *path,
                                uint16_t remote_udp_port) {
  const uint32_t span = 65536u - UDCCP_IO_EPHEMERAL_LO;
  uint8_t msg[1 + 16 + 16 + 2 + 2];
  msg[0] = path->family;
  memcpy(msg + 1, path->local_addr, 16);
  memcpy(msg + 17, path->remote_addr, 16);
  msg[33] = (uint8_t)(path->remote_port >> 8);
  msg[34] = (uint8_t)path->remote_port;
  msg[35] = (uint8_t)(remote_udp_port >> 8);
  msg[36] = (uint8_t)remote_udp_port;
  uint64_t h = udccp_siphash24(ep->port_key, msg, sizeof(msg));
  uint32_t offset = (uint32_t)h;                   /* F */
  uint16_t *next = &ep->port_table[(h >> 32) % UDCCP_IO_PORT_TABLE]; /* G */
  udccp_path p = *path;
  udccp_demux_key k;
  /* then every port once: a remote with most of the range in use still
   * finds the free ones */
  for (uint32_t i = 0; i < span; i++) {
    p.local_port =
        (uint16_t)(UDCCP_IO_EPHEMERAL_LO + (offset + *next + i) % span);
    if (is_listening(ep, p.local_port) ||
        udccp_io_steer(p.remote_port, p.local_port, ep->group_n) !=
            ep->group_k) {
      continue; /* a worker's replies must come back to it (share.c) */
    }
    udccp_demux_key_make(&k, &p, remote_udp_port);
    if (udccp_demux_find(&ep->demux, &k) == NULL) {
      *next = (uint16_t)(*next + i + 1);
      return p.local_port;
    }
  }
  return 0;
}

uint16_t udccp_io_pick_port(udccp_endpoint *ep) {
  for (int i = 0; i < 256; i++) {
    uint16_t r;
    udccp_csprng_fill((uint8_t *)&r, sizeof(r), &ep->rng);
    uint16_t p = (uint16_t)(UDCCP_IO_EPHEMERAL_LO +
                            r % (65536u - UDCCP_IO_EPHEMERAL_LO));
    if (ep->portref[p] == 0) {
      return p;
    }
  }
  return 0;
}

#define IO_FILTER_MAX_PORTS 200

void udccp_io_filter_update(udccp_endpoint *ep) {
  ep->filter_dirty = 0;
  if (ep->cfg.transport != UDCCP_TRANSPORT_RAW) {
    return;
  }
  uint16_t ports[IO_FILTER_MAX_PORTS];
  size_t n = 0, total = 0;
  for (uint32_t p = 0; p < 65536; p++) {
    if (ep->portref[p] != 0) {
      if (n < IO_FILTER_MAX_PORTS) {
        ports[n++] = (uint16_t)p;
      }
      total++;
    }
  }
  for (int f = 0; f < 2; f++) {
    if (ep->fd[f] < 0) {
      continue;
    }
    struct sock_filter prog[IO_FILTER_MAX_PORTS + 8];
    size_t len = total <= IO_FILTER_MAX_PORTS
                     ? udccp_io_bpf_build(prog, IO_FILTER_MAX_PORTS + 8,
                                          f == UDCCP_IO_V4, ports, n)
                     : 0;
    if (len > 0) {
      struct sock_fprog fp = {(unsigned short)len, prog};
      (void)setsockopt(ep->fd[f], SOL_SOCKET, SO_ATTACH_FILTER, &fp,
                       sizeof(fp));
    } else {
      /* Too many ports for one program: filter in userspace only. */
      int dummy = 0;
      (void)setsockopt(ep->fd[f], SOL_SOCKET, SO_DETACH_FILTER, &dummy,
                       sizeof(dummy));
    }
  }
}

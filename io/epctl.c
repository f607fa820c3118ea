/* SPDX-License-Identifier: MIT */
/*
 * Endpoint control: the settings template that connect and listen copy,
 * a free DCCP port, stopping a listener and its backlog; socket options
 * of the whole endpoint (TOS, device).
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <udccp/udccp.h>

#include "endpoint.h"

void udccp_endpoint_get_settings(const udccp_endpoint *ep, udccp_settings *s) {
  if (s == NULL) {
    return;
  }
  if (ep == NULL) {
    memset(s, 0, sizeof(*s));
    return;
  }
  *s = ep->settings;
}

int udccp_endpoint_set_settings(udccp_endpoint *ep, const udccp_settings *s) {
  udccp_settings t;
  if (ep == NULL || s == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  t = *s;
  /* The runtime's own: its random source and the transport's checksum
   * rule (RFC 6773 §3.3 on DCCP-UDP). */
  t.rand = ep->settings.rand;
  t.rand_user_data = ep->settings.rand_user_data;
  t.cksum_mode = ep->settings.cksum_mode;
  if (udccp_settings_check(&t) != 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  ep->settings = t;
  return 0;
}

void udccp_endpoint_forget_after_fork(udccp_endpoint *ep) {
  int f;
  if (ep == NULL) {
    return;
  }
  for (f = 0; f < 2; f++) {
    if (ep->fd[f] >= 0) {
      (void)close(ep->fd[f]);
    }
  }
  (void)close(ep->epfd);
}

uint16_t udccp_endpoint_unused_port(udccp_endpoint *ep) {
  if (ep == NULL) {
    return 0;
  }
  return udccp_io_pick_port(ep);
}

int udccp_unlisten(udccp_endpoint *ep, uint16_t port) {
  size_t i, k;
  if (ep == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  for (i = 0; i < ep->nlis; i++) {
    udccp_io_listen *l = &ep->lis[i];
    if (l->port != port) {
      continue;
    }
    /* Connections it made live on; they no longer report to it. */
    for (k = 0; k < ep->nsocks; k++) {
      udccp_sock *s = ep->socks[k];
      if (s->lis != NULL && (s->lis == l->lis[0] || s->lis == l->lis[1])) {
        s->lis = NULL;
      }
    }
    udccp_listener_del(l->lis[0]);
    udccp_listener_del(l->lis[1]);
    udccp_io_share_close(ep, l->claim_fd);
    *l = ep->lis[--ep->nlis];
    udccp_io_port_ref(ep, port, -1);
    return 0;
  }
  return UDCCP_ERR_INVALID_STATE;
}

int udccp_listen_set_backlog(udccp_endpoint *ep, uint16_t port,
                             uint32_t backlog) {
  size_t i;
  if (ep == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  for (i = 0; i < ep->nlis; i++) {
    if (ep->lis[i].port == port) {
      udccp_listener_set_backlog(ep->lis[i].lis[0], backlog);
      udccp_listener_set_backlog(ep->lis[i].lis[1], backlog);
      return 0;
    }
  }
  return UDCCP_ERR_INVALID_STATE;
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

int udccp_endpoint_bind_device(udccp_endpoint *ep, const char *ifname) {
  if (ep == NULL || ifname == NULL || ifname[0] == '\0' ||
      strlen(ifname) >= IF_NAMESIZE) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (if_nametoindex(ifname) == 0) {
    return UDCCP_ERR_RESOLVE; /* errno: ENODEV */
  }
  for (int f = 0; f < 2; f++) {
    if (ep->fd[f] >= 0 &&
        setsockopt(ep->fd[f], SOL_SOCKET, SO_BINDTODEVICE, ifname,
                   (socklen_t)strlen(ifname)) != 0) {
      return errno == EPERM ? UDCCP_ERR_PERM : UDCCP_ERR_SOCKET;
    }
  }
  return 0;
}

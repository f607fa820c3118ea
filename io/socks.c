/* SPDX-License-Identifier: MIT */
/*
 * A connection's slot in the endpoint (udccp_sock): made reachable by
 * incoming packets, unlinked, freed; the accept queue; and its end: a
 * connection the application closed keeps only a tombstone during
 * TIMEWAIT, one that is done leaves the demultiplexer.
 */
#include <stdlib.h>

#include "endpoint.h"

udccp_sock *udccp_io_sock_add(udccp_endpoint *ep, udccp_conn *conn,
                              const udccp_path *path, uint16_t remote_udp_port,
                              udccp_listener *lis) {
  if (ep->nsocks == ep->capsocks) {
    size_t nc = ep->capsocks ? ep->capsocks * 2 : 16;
    udccp_sock **ns = realloc(ep->socks, nc * sizeof(*ns));
    if (ns == NULL) {
      return NULL;
    }
    ep->socks = ns;
    ep->capsocks = nc;
  }
  if (udccp_io_sched_reserve(ep, ep->capsocks) != 0) {
    return NULL;
  }
  udccp_sock *s = calloc(1, sizeof(*s));
  if (s == NULL) {
    return NULL;
  }
  udccp_io_sched_init_sock(s);
  s->ep = ep;
  s->conn = conn;
  s->path = *path;
  s->remote_udp_port =
      ep->cfg.transport == UDCCP_TRANSPORT_UDP ? remote_udp_port : 0;
  s->fidx = path->family == UDCCP_AF_INET ? UDCCP_IO_V4 : UDCCP_IO_V6;
  s->lis = lis;
  udccp_demux_key k;
  udccp_demux_key_make(&k, path, s->remote_udp_port);
  if (udccp_demux_insert(&ep->demux, &k, s) != 0) {
    free(s);
    return NULL;
  }
  s->in_demux = 1;
  udccp_io_port_ref(ep, path->local_port, +1);
  s->idx = ep->nsocks;
  ep->socks[ep->nsocks++] = s;
  ep->nsocks_fam[s->fidx]++;
  udccp_io_sched_touch(s);
  return s;
}

static void sock_unlink(udccp_sock *s) {
  if (!s->in_demux) {
    return;
  }
  udccp_demux_key k;
  udccp_demux_key_make(&k, &s->path, s->remote_udp_port);
  (void)udccp_demux_remove(&s->ep->demux, &k);
  udccp_io_port_ref(s->ep, s->path.local_port, -1);
  s->in_demux = 0;
}

void udccp_io_acceptq_remove(udccp_endpoint *ep, udccp_sock *s) {
  if (!s->in_acceptq) {
    return;
  }
  udccp_sock **pp = &ep->acc_head;
  udccp_sock *prev = NULL;
  while (*pp != NULL && *pp != s) {
    prev = *pp;
    pp = &(*pp)->acc_next;
  }
  if (*pp == s) {
    *pp = s->acc_next;
    if (ep->acc_tail == s) {
      ep->acc_tail = prev;
    }
  }
  s->acc_next = NULL;
  s->in_acceptq = 0;
}

void udccp_io_sock_free(udccp_sock *s) {
  udccp_endpoint *ep = s->ep;
  udccp_io_sched_remove(s);
  udccp_io_ev_remove(s);
  sock_unlink(s);
  udccp_io_acceptq_remove(ep, s);
  for (size_t i = 0; i < ep->ntx; i++) {
    if (ep->towner[i] == s) {
      ep->towner[i] = NULL;
    }
  }
  if (s->lis != NULL) {
    udccp_listener_conn_gone(s->lis, s->conn);
  }
  udccp_io_tx_forget(s); /* no batched packet may point into its queue */
  udccp_conn_del(s->conn);
  ep->socks_freed++;
  ep->nsocks_fam[s->fidx]--;
  size_t i = s->idx;
  ep->socks[i] = ep->socks[--ep->nsocks];
  ep->socks[i]->idx = i;
  free(s);
}

/* Issue 12/13: a connection the application has closed keeps, during
 * TIMEWAIT (RFC 4340 §8.3), only what TIMEWAIT needs: its tuple in the
 * demultiplexer (no new connection may reuse it) and the time it ends.
 * The connection and everything it holds are freed; the socket stays
 * as the tombstone (conn NULL): tomb_input answers its packets. */
static void sock_entomb(udccp_sock *s) {
  /* Also a connection the peer reset while it waited in the accept queue
   * (RFC 4340 §8.5 step 9: the receiver of a Reset holds TIMEWAIT): the
   * application would accept a dead connection, and meanwhile it held a
   * backlog slot for 60 s, so that a client making and aborting
   * connections (or one whose handshakes a flood made it abort) filled
   * the backlog of a server that accepts slowly (issue 12: udccp-cat -l
   * serving one connection refused the others with Too Busy). */
  int unaccepted = !s->app_owned && s->in_acceptq;
  if (s->conn == NULL || !(s->orphan || unaccepted) ||
      udccp_conn_get_state(s->conn) != UDCCP_STATE_TIMEWAIT) {
    return;
  }
  udccp_io_acceptq_remove(s->ep, s);
  udccp_tstamp end = udccp_conn_get_expiry(s->conn); /* TIMEWAIT's end */
  if (s->lis != NULL) {
    udccp_listener_conn_gone(s->lis, s->conn);
    s->lis = NULL;
  }
  udccp_io_tx_forget(s); /* no batched packet may point into its queue */
  udccp_conn_del(s->conn);
  s->conn = NULL;
  s->exp = end;
  udccp_io_sched_update(s);
}

void udccp_io_sock_orphaned(udccp_sock *s) {
  s->app_owned = 0;
  s->orphan = 1;
  udccp_io_ev_remove(s); /* the application let go: no more events */
  if (s->conn == NULL || udccp_conn_is_done(s->conn)) {
    udccp_io_sock_free(s);
    return;
  }
  sock_entomb(s);
}

/* After its turn: the connection's new expiry, and its end. */
void udccp_io_sock_settle(udccp_sock *s) {
  udccp_io_sched_update(s);
  if (s->conn == NULL) {
    if (s->exp == UDCCP_TSTAMP_NEVER) {
      udccp_io_sock_free(s); /* TIMEWAIT is over: the tuple is free */
    }
    return;
  }
  if (s->app_owned) {
    udccp_io_ev_note(s);
  }
  if (!udccp_conn_is_done(s->conn)) {
    sock_entomb(s);
    return;
  }
  /* RFC 4340 §8.5 step 1: a fully closed connection no longer owns its
   * packets; the peer's stragglers get Reset No Connection. */
  sock_unlink(s);
  if (s->orphan || (!s->app_owned && s->in_acceptq)) {
    udccp_io_sock_free(s);
  }
}

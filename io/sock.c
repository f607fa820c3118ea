/* SPDX-License-Identifier: MIT */
/*
 * The socket-like calls of the runtime: connect, listen, accept, send,
 * recv, shutdown, close (see the io/ section of udccp.h).  Each call that
 * may wait runs the endpoint's loop (udccp_io_wait) until its condition
 * holds or its deadline passes.
 */
#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "endpoint.h"

int udccp_io_sock_dead(const udccp_sock *s) {
  return s->io_error != 0 || udccp_conn_get_error(s->conn) != 0 ||
         udccp_conn_get_state(s->conn) == UDCCP_STATE_CLOSED ||
         udccp_conn_is_done(s->conn);
}

/* Why a dead connection failed, in the terms the application asked about
 * (0 while it lives). */
int udccp_io_sock_dead_error(const udccp_sock *s) {
  if (s->io_error != 0) {
    return s->io_error;
  }
  int err = udccp_conn_get_error(s->conn);
  int rc = udccp_conn_get_reset_code(s->conn);
  /* A Reset "No Connection" (RFC 4340 §8.5 step 1) or "Encapsulated Port
   * Reuse" (12, RFC 6773 §3.8) answering our Request means nobody takes
   * the connection: a refusal, as a TCP RST answering a SYN.  The core
   * itself maps Bad Service Code, Connection Refused and Too Busy. */
  if (err == UDCCP_ERR_RESET && !s->seen_open &&
      (rc == UDCCP_RESET_NO_CONNECTION || rc == 12)) {
    return UDCCP_ERR_REFUSED;
  }
  if (err != 0) {
    return err;
  }
  return udccp_conn_get_state(s->conn) == UDCCP_STATE_CLOSED ||
                 udccp_conn_is_done(s->conn)
             ? UDCCP_ERR_CLOSED
             : 0;
}

/* The source address the kernel will use towards addr (a connected UDP
 * probe socket asks the routing table); the raw pseudo-header needs it. */
int udccp_io_route_source(uint8_t family, const uint8_t *addr,
                          uint8_t local[16]) {
  int af = family == UDCCP_AF_INET ? AF_INET : AF_INET6;
  int fd = socket(af, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return UDCCP_ERR_SOCKET;
  }
  struct sockaddr_storage ss;
  socklen_t sl = udccp_io_addr_to_sockaddr(&ss, family, addr, 9);
  int rv = UDCCP_ERR_SOCKET;
  if (connect(fd, (struct sockaddr *)&ss, sl) == 0) {
    struct sockaddr_storage me;
    socklen_t ml = sizeof(me);
    uint8_t fam;
    uint16_t port;
    if (getsockname(fd, (struct sockaddr *)&me, &ml) == 0 &&
        udccp_io_addr_from_sockaddr((struct sockaddr *)&me, &fam, local,
                                    &port) == 0) {
      rv = 0;
    }
  }
  close(fd);
  return rv;
}

static int connect_ready(void *arg) {
  udccp_sock *s = arg;
  return udccp_io_sock_dead(s) || udccp_conn_get_state(s->conn) >= UDCCP_STATE_PARTOPEN;
}

int udccp_connect(udccp_endpoint *ep, udccp_sock **psock, const char *host,
                  uint16_t port, uint32_t service_code, uint8_t ccid,
                  int timeout_ms) {
  if (ep == NULL || psock == NULL || host == NULL || port == 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  udccp_path path;
  memset(&path, 0, sizeof(path));
  int rv = udccp_io_resolve(host, ep->fd[UDCCP_IO_V4] >= 0,
                            ep->fd[UDCCP_IO_V6] >= 0, &path.family,
                            path.remote_addr);
  if (rv != 0) {
    return rv;
  }
  int fidx = path.family == UDCCP_AF_INET ? UDCCP_IO_V4 : UDCCP_IO_V6;
  udccp_tstamp now = udccp_io_now();
  /* the route: its source address and MTU (pmtu.c, cached) */
  const udccp_io_route *r =
      udccp_io_route_get(ep, path.family, path.remote_addr, now);
  /* An endpoint bound to a family's wildcard (udccp-cat -6, -4) still
   * takes the route's source: the raw transport's checksum covers it
   * (RFC 4340 §9.1), and a wildcard there made every packet fail the
   * peer's check. */
  if (ep->local_family == path.family &&
      !udccp_io_addr_is_any(path.family, ep->local_addr)) {
    memcpy(path.local_addr, ep->local_addr, 16);
  } else if (r != NULL) {
    memcpy(path.local_addr, r->src, 16);
  } else if (ep->cfg.transport == UDCCP_TRANSPORT_RAW) {
    return UDCCP_ERR_SOCKET; /* no route: errno tells */
  }
  path.remote_port = port;
  /* One port model (RFC 6773 §3.8): DCCP-UDP servers share the IANA UDP
   * port 6511 and demultiplex on DCCP ports, so that is where a client
   * goes, whatever its DCCP port, unless told otherwise. */
  uint16_t udp_port = ep->cfg.remote_udp_port ? ep->cfg.remote_udp_port
                                              : UDCCP_UDP_PORT_DEFAULT;
  path.local_port = udccp_io_pick_port_for(ep, &path, udp_port);
  if (path.local_port == 0) {
    return UDCCP_ERR_ADDRINUSE;
  }
  udccp_settings st;
  udccp_io_conn_settings(ep, fidx, ccid, &st);
  udccp_conn *conn = NULL;
  rv = udccp_conn_client_new(&conn, &st, &path, service_code, now);
  if (rv != 0) {
    return rv;
  }
  udccp_sock *s = udccp_io_sock_add(ep, conn, &path, udp_port, NULL);
  if (s == NULL) {
    udccp_conn_del(conn);
    return UDCCP_ERR_NOMEM;
  }
  udccp_io_route_mtu_apply(s, now);
  s->app_owned = 1;
  if (timeout_ms == 0) {
    /* Issue 13: a non-blocking connect queues its Request in the
     * endpoint's transmit batch (the socket is dirty, so
     * udccp_endpoint_timeout_ms() says 0 and the next loop turn sends it,
     * before it would wait): an application opening many connections
     * hands the kernel one sendmmsg for them all, not one each. */
    udccp_io_sock_gen(s);
    *psock = s;
    return 0;
  }
  udccp_io_sock_flush(s); /* the Request goes out now */
  rv = udccp_io_wait(ep, udccp_io_deadline(timeout_ms), connect_ready, s);
  if (rv == 0 && !udccp_io_sock_dead(s)) {
    *psock = s;
    return 0;
  }
  int err = rv == UDCCP_ERR_AGAIN ? UDCCP_ERR_TIMEOUT : udccp_io_sock_dead_error(s);
  if (err == 0 || err == UDCCP_ERR_CLOSED) {
    err = rv != 0 ? rv : UDCCP_ERR_TIMEOUT;
  }
  if (!udccp_io_sock_dead(s)) {
    /* Our deadline, not the protocol's: tell the peer we gave up. */
    (void)udccp_conn_abort(s->conn, UDCCP_RESET_ABORTED, udccp_io_now());
    udccp_io_sock_flush(s);
  }
  udccp_io_sock_free(s);
  return err;
}

int udccp_listen(udccp_endpoint *ep, uint16_t port,
                 const uint32_t *service_codes, size_t n) {
  if (ep == NULL || service_codes == NULL || n == 0 || port == 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  for (size_t i = 0; i < ep->nlis; i++) {
    if (ep->lis[i].port == port) {
      return UDCCP_ERR_ADDRINUSE;
    }
  }
  if (ep->nlis == ep->caplis) {
    size_t nc = ep->caplis ? ep->caplis * 2 : 4;
    udccp_io_listen *nl = realloc(ep->lis, nc * sizeof(*nl));
    if (nl == NULL) {
      return UDCCP_ERR_NOMEM;
    }
    ep->lis = nl;
    ep->caplis = nc;
  }
  udccp_io_listen *l = &ep->lis[ep->nlis];
  memset(l, 0, sizeof(*l));
  l->port = port;
  int crv = udccp_io_share_claim(ep, port, &l->claim_fd);
  if (crv != 0) {
    return crv;
  }
  udccp_listener_settings ls;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = service_codes;
  ls.n_service_codes = n;
  ls.init_cookie = ep->cfg.init_cookie;
  ls.cookie_lifetime = 8 * UDCCP_NS_PER_S;
  ls.max_conns = ep->cfg.max_conns;
  ls.half_open_max = ep->cfg.half_open_max;
  ls.backlog = ep->cfg.backlog;
  for (int f = 0; f < 2; f++) {
    if (ep->fd[f] < 0) {
      continue;
    }
    udccp_settings st;
    udccp_io_conn_settings(ep, f, 0, &st);
    int rv = udccp_listener_new(&l->lis[f], &st, &ls, udccp_io_now());
    if (rv != 0) {
      udccp_listener_del(l->lis[0]);
      udccp_listener_del(l->lis[1]);
      udccp_io_share_close(ep, l->claim_fd);
      return rv;
    }
    udccp_io_mp_listener(ep, l->lis[f]); /* RFC 9897 joins (mp.c) */
  }
  ep->nlis++;
  udccp_io_port_ref(ep, port, +1);
  (void)udccp_endpoint_process(ep); /* installs the raw port filter */
  return 0;
}

static int acceptable(const udccp_sock *s) {
  int st = udccp_conn_get_state(s->conn);
  if (st >= UDCCP_STATE_OPEN) {
    return 1;
  }
  /* Opened and already closed by the peer: its data is still readable. */
  return st == UDCCP_STATE_CLOSED &&
         udccp_conn_get_error(s->conn) == UDCCP_ERR_CLOSED;
}

static udccp_sock *accept_find(udccp_endpoint *ep) {
  for (udccp_sock *s = ep->acc_head; s != NULL; s = s->acc_next) {
    if (acceptable(s)) {
      return s;
    }
  }
  return NULL;
}

static int accept_ready(void *arg) { return accept_find(arg) != NULL; }

int udccp_io_accept_pending(udccp_endpoint *ep) {
  return accept_find(ep) != NULL;
}

int udccp_accept(udccp_endpoint *ep, udccp_sock **psock, int timeout_ms) {
  if (ep == NULL || psock == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (ep->nlis == 0) {
    return UDCCP_ERR_INVALID_STATE;
  }
  /* Issue 13: a connection already waiting is handed out without a turn
   * of the loop (an epoll_wait, and a sendmmsg for what the previous
   * udccp_close() queued): a server draining its accept queue makes one
   * turn, one batch, per queue-full, not per connection.  The queue is
   * bounded by the backlog, so the loop runs again soon. */
  int rv = accept_ready(ep) ? 0
                            : udccp_io_wait(ep, udccp_io_deadline(timeout_ms),
                                            accept_ready, ep);
  if (rv != 0) {
    return rv;
  }
  udccp_sock *s = accept_find(ep);
  /* unlink from the accept queue */
  udccp_sock **pp = &ep->acc_head;
  udccp_sock *prev = NULL;
  while (*pp != s) {
    prev = *pp;
    pp = &(*pp)->acc_next;
  }
  *pp = s->acc_next;
  if (ep->acc_tail == s) {
    ep->acc_tail = prev;
  }
  s->acc_next = NULL;
  s->in_acceptq = 0;
  s->app_owned = 1;
  if (s->lis != NULL) {
    udccp_listener_conn_accepted(s->lis, s->conn);
  }
  udccp_io_ev_note(s); /* data or a close may have come before */
  *psock = s;
  return 0;
}

static int can_send_or_dead(void *arg) {
  udccp_sock *s = arg;
  if (udccp_io_sock_dead(s)) {
    return 1;
  }
  int st = udccp_conn_get_state(s->conn);
  if (st < UDCCP_STATE_PARTOPEN) {
    return 0;
  }
  return udccp_conn_get_send_space(s->conn) > 0;
}

/* One datagram to send: its priority and deadline (udccp_send_ex). */
typedef struct send_req {
  uint32_t prio;
  udccp_tstamp expires; /* UDCCP_TSTAMP_NEVER: none */
  int more;
} send_req;

static udccp_ssize send_common(udccp_sock *s, const void *buf, size_t len,
                               int timeout_ms, const send_req *rq) {
  if (s == NULL || (buf == NULL && len > 0)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (s->shut) {
    return UDCCP_ERR_INVALID_STATE;
  }
  int more = rq->more;
  /* One clock reading per round (a sender queueing a batch calls this once
   * per datagram); the deadline only when it waits. */
  udccp_tstamp deadline = 0;
  for (int round = 0;; round++) {
    if (udccp_io_sock_dead(s)) {
      int e = udccp_io_sock_dead_error(s);
      return e != 0 ? e : UDCCP_ERR_CLOSED;
    }
    /* Too large now is too large after the handshake too (its MPS is the
     * route's from the start): no wait for a datagram that cannot go. */
    if (len > udccp_conn_get_mps(s->conn)) {
      return UDCCP_ERR_MSGSIZE;
    }
    int st = udccp_conn_get_state(s->conn);
    /* RFC 4340 §8.1.5: a client in PARTOPEN may send data (the core puts
     * it in DataAck packets), so data never waits for OPEN: a server that
     * only reads would never send the packet that ends PARTOPEN. */
    if (st >= UDCCP_STATE_PARTOPEN) {
      /* A datagram without a deadline is stamped with the loop's last
       * clock reading (the core uses the time only for deadlines and to
       * arm a buffer trim): a bulk sender reads the clock per batch, not
       * per datagram. */
      udccp_tstamp now = more && rq->expires == UDCCP_TSTAMP_NEVER &&
                                 s->ep->now != 0
                             ? s->ep->now
                             : udccp_io_ep_now(s->ep);
      int r = udccp_conn_queue_datagram_until(s->conn, buf, len, rq->prio,
                                              rq->expires, now);
      if (r == 0) {
        if (!more) {
          udccp_io_sock_flush_at(s, udccp_io_ep_now(s->ep));
        } else if (++s->more_queued >= s->ep->batch ||
                   udccp_conn_get_send_space(s->conn) == 0) {
          /* A batch's worth (or a full queue): its packets go into the
           * transmit batch now, which leaves when full.  Fewer, and the
           * next loop turn generates them (the socket is marked for it):
           * one generation per batch, not per datagram. */
          udccp_io_sock_gen_at(s, udccp_io_ep_now(s->ep));
        } else {
          udccp_io_sched_touch(s);
        }
        return (udccp_ssize)len;
      }
      if (r != UDCCP_ERR_AGAIN) {
        if (r == UDCCP_ERR_INVALID_STATE && udccp_io_sock_dead(s)) {
          continue;
        }
        return r;
      }
    }
    /* Handshake pending or queue full: run the loop until that changes.
     * The first round of a non-blocking call still runs it once. */
    if (round > 0 && timeout_ms == 0) {
      s->want_write = 1; /* UDCCP_EV_WRITABLE once there is room */
      return UDCCP_ERR_AGAIN;
    }
    if (round == 0) {
      deadline = udccp_io_deadline(timeout_ms);
      if (rq->expires < deadline) {
        deadline = rq->expires; /* never wait past the datagram's deadline */
      }
    }
    int rv = udccp_io_wait(s->ep, deadline, can_send_or_dead, s);
    if (rv != 0) {
      if (rv == UDCCP_ERR_AGAIN && rq->expires != UDCCP_TSTAMP_NEVER &&
          udccp_io_now() >= rq->expires) {
        /* Its deadline came while it waited: the core drops and counts
         * a datagram that is already too late. */
        return udccp_conn_queue_datagram_until(s->conn, buf, len, rq->prio,
                                               rq->expires, udccp_io_now());
      }
      if (rv == UDCCP_ERR_AGAIN) {
        s->want_write = 1;
      }
      return rv;
    }
  }
}

udccp_ssize udccp_send(udccp_sock *s, const void *buf, size_t len,
                       int timeout_ms) {
  send_req rq = {0, UDCCP_TSTAMP_NEVER, 0};
  return send_common(s, buf, len, timeout_ms, &rq);
}

udccp_ssize udccp_send_more(udccp_sock *s, const void *buf, size_t len,
                            int timeout_ms) {
  send_req rq = {0, UDCCP_TSTAMP_NEVER, 1};
  return send_common(s, buf, len, timeout_ms, &rq);
}

udccp_tstamp udccp_now(void) { return udccp_io_now(); }

udccp_ssize udccp_send_ex(udccp_sock *s, const void *buf, size_t len,
                          const udccp_send_opts *opts, int timeout_ms) {
  send_req rq = {0, UDCCP_TSTAMP_NEVER, 0};
  if (opts != NULL) {
    /* Only the first opts->size bytes are the caller's (udccp_send_opts
     * grows at its end); members beyond them keep their defaults. */
    uint32_t sz = opts->size;
    if (sz < 8 || (opts->flags & ~UDCCP_SEND_F_MORE) != 0) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    rq.more = (opts->flags & UDCCP_SEND_F_MORE) != 0;
    if (sz >= offsetof(udccp_send_opts, prio) + sizeof(opts->prio)) {
      rq.prio = opts->prio;
    }
    if (sz >= offsetof(udccp_send_opts, expires) + sizeof(opts->expires) &&
        opts->expires != 0) {
      rq.expires = opts->expires;
    }
  }
  return send_common(s, buf, len, timeout_ms, &rq);
}

static int readable_or_dead(void *arg) {
  udccp_sock *s = arg;
  if (udccp_conn_peek_datagram_len(s->conn) >= 0) {
    return 1;
  }
  int st = udccp_conn_get_state(s->conn);
  return udccp_io_sock_dead(s) || st == UDCCP_STATE_TIMEWAIT;
}

udccp_ssize udccp_recv(udccp_sock *s, void *buf, size_t cap, int timeout_ms) {
  return udccp_recv_ex(s, buf, cap, NULL, timeout_ms);
}

/* udccp_recv_ex() and udccp_recv_peek(): buf != NULL or cap == 0 copies
 * the datagram out (and removes it), else *pdata points at it in place. */
static udccp_ssize recv_common(udccp_sock *s, void *buf, size_t cap,
                               const uint8_t **pdata, udccp_recv_info *ri,
                               int timeout_ms) {
  /* The deadline is for waiting: read the clock only then (a receiver
   * that drains a batch calls this once per datagram). */
  udccp_tstamp deadline = 0;
  for (int round = 0;; round++) {
    udccp_ssize r = pdata != NULL
                        ? udccp_conn_peek_datagram(s->conn, pdata, ri)
                        : udccp_conn_read_datagram_ex(s->conn, buf, cap, ri);
    if (r >= 0 || r == UDCCP_ERR_NOBUF) {
      if (pdata == NULL) {
        /* Room in the receive queue may let the core ack or say more:
         * the next loop turn asks it (no sweep would).  A peek changes
         * nothing: udccp_recv_consume() marks it. */
        udccp_io_sched_touch(s);
      }
      return r;
    }
    if (r != UDCCP_ERR_AGAIN) {
      int e = udccp_io_sock_dead_error(s);
      return e != 0 ? e : r;
    }
    int st = udccp_conn_get_state(s->conn);
    if (udccp_io_sock_dead(s) || st == UDCCP_STATE_TIMEWAIT) {
      int e = udccp_io_sock_dead_error(s);
      return e != 0 ? e : UDCCP_ERR_CLOSED;
    }
    if (round > 0 && timeout_ms == 0) {
      return UDCCP_ERR_AGAIN;
    }
    if (round == 0) {
      deadline = udccp_io_deadline(timeout_ms);
    }
    int rv = udccp_io_wait(s->ep, deadline, readable_or_dead, s);
    if (rv != 0) {
      return rv;
    }
  }
}

udccp_ssize udccp_recv_ex(udccp_sock *s, void *buf, size_t cap,
                          udccp_recv_info *ri, int timeout_ms) {
  if (s == NULL || (buf == NULL && cap > 0) || (ri != NULL && ri->size < 8)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return recv_common(s, buf, cap, NULL, ri, timeout_ms);
}

udccp_ssize udccp_recv_peek(udccp_sock *s, const uint8_t **pdata,
                            udccp_recv_info *ri, int timeout_ms) {
  if (s == NULL || pdata == NULL || (ri != NULL && ri->size < 8)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return recv_common(s, NULL, 0, pdata, ri, timeout_ms);
}

int udccp_recv_consume(udccp_sock *s) {
  if (s == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  int r = udccp_conn_consume_datagram(s->conn);
  if (r == 0) {
    udccp_io_sched_touch(s); /* room in the receive queue, as a read */
  }
  return r;
}

udccp_ssize udccp_sock_peek_len(udccp_sock *s) {
  if (s == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return udccp_conn_peek_datagram_len(s->conn);
}

int udccp_shutdown(udccp_sock *s) {
  if (s == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  /* Idempotent (udccp.h): the core's close answers a second call. */
  int rv = udccp_conn_close(s->conn, udccp_io_now());
  if (!s->shut) {
    s->shut = 1;
    udccp_io_sock_flush(s);
  }
  return rv;
}

static int close_done(void *arg) {
  udccp_sock *s = arg;
  int st = udccp_conn_get_state(s->conn);
  return udccp_io_sock_dead(s) || st == UDCCP_STATE_TIMEWAIT;
}

int udccp_close(udccp_sock *s, int timeout_ms) {
  if (s == NULL) {
    return 0;
  }
  udccp_endpoint *ep = s->ep;
  if (!s->shut) {
    (void)udccp_conn_close(s->conn, udccp_io_now());
    s->shut = 1;
    if (timeout_ms == 0) {
      udccp_io_sock_gen(s); /* into the batch, as udccp_connect() */
    } else {
      udccp_io_sock_flush(s);
    }
  }
  /* Without time to wait, a turn of the loop cannot see the peer answer a
   * Close not yet sent: the state as it stands decides (issue 13: a
   * server closing each connection it accepts no longer pays a loop turn,
   * an epoll_wait and a sendmmsg, per connection). */
  int rv = timeout_ms == 0 ? (close_done(s) ? 0 : UDCCP_ERR_AGAIN)
                           : udccp_io_wait(ep, udccp_io_deadline(timeout_ms),
                                           close_done, s);
  int result;
  if (rv == UDCCP_ERR_AGAIN) {
    result = UDCCP_ERR_TIMEOUT;
  } else if (rv != 0) {
    result = rv;
  } else {
    int e = udccp_io_sock_dead_error(s);
    result = (e == 0 || e == UDCCP_ERR_CLOSED) ? 0 : e;
  }
  udccp_io_sock_orphaned(s);
  return result;
}

void udccp_abort(udccp_sock *s) { udccp_abort_code(s, UDCCP_RESET_ABORTED); }

void udccp_abort_code(udccp_sock *s, uint8_t reset_code) {
  if (s == NULL) {
    return;
  }
  if (!udccp_io_sock_dead(s)) {
    (void)udccp_conn_abort(s->conn, reset_code, udccp_io_now());
    udccp_io_sock_flush(s);
  }
  s->shut = 1;
  udccp_io_sock_orphaned(s);
}

int udccp_sock_state(const udccp_sock *s) {
  if (s == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return udccp_conn_get_state(s->conn);
}

int udccp_sock_error(const udccp_sock *s) {
  if (s == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (!udccp_io_sock_dead(s)) {
    return 0;
  }
  return udccp_io_sock_dead_error(s);
}

int udccp_sock_reset_code(const udccp_sock *s) {
  if (s == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return udccp_conn_get_reset_code(s->conn);
}

size_t udccp_sock_get_mps(const udccp_sock *s) {
  return s != NULL ? udccp_conn_get_mps(s->conn) : 0;
}

const udccp_path *udccp_sock_get_path(const udccp_sock *s) {
  return s != NULL ? &s->path : NULL;
}

void udccp_sock_get_info(const udccp_sock *s, udccp_conn_info *info) {
  udccp_conn_get_info(s != NULL ? s->conn : NULL, info);
}

udccp_conn *udccp_sock_get_conn(udccp_sock *s) {
  if (s == NULL) {
    return NULL;
  }
  /* The caller is about to act on the connection behind our back: give it
   * a turn in the next loop. */
  udccp_io_sched_touch(s);
  return s->conn;
}

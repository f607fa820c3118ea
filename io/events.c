/* SPDX-License-Identifier: MIT */
/*
 * The event interface (issue 14): udccp_endpoint_events() tells the
 * application which of its sockets became readable, writable, connected,
 * closed or reset, and whether a connection waits in udccp_accept(), like
 * epoll_wait() for udccp sockets.
 *
 * It costs nothing per idle socket: the loop already knows which
 * connections had a turn (a packet, a timer, a call: sched.c's dirty
 * list), and only those of them the application holds are put on the
 * endpoint's ready list (udccp_io_ev_note, from settle()).  A call looks
 * at that list alone.  Readable is level-triggered (a socket stays on the
 * list while a datagram waits, behind the ones not yet reported); connected,
 * closed and reset are reported once; writable once after a send found
 * the queue full.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"

void udccp_io_ev_note(udccp_sock *s) {
  udccp_endpoint *ep = s->ep;
  if (s->ready_idx != SIZE_MAX) {
    return;
  }
  /* capsched >= nsocks (reserved in sock_add): never full */
  s->ready_idx = ep->nready;
  ep->ready[ep->nready++] = s;
}

void udccp_io_ev_remove(udccp_sock *s) {
  udccp_endpoint *ep = s->ep;
  size_t i = s->ready_idx;
  if (i == SIZE_MAX) {
    return;
  }
  udccp_sock *last = ep->ready[--ep->nready];
  ep->ready[i] = last;
  last->ready_idx = i;
  s->ready_idx = SIZE_MAX;
}

/* Reverses a[from..to). */
static void reverse(udccp_sock **a, size_t from, size_t to) {
  while (from + 1 < to) {
    udccp_sock *t = a[from];
    a[from++] = a[--to];
    a[to] = t;
  }
}

/* What s has to report now (UDCCP_EV_* bits), without reporting it. */
static uint32_t sock_events(const udccp_sock *s) {
  uint32_t ev = 0;
  if (s->conn == NULL) {
    return 0; /* a tombstone (socks.c): nobody holds it */
  }
  int dead = udccp_io_sock_dead(s);
  int st = udccp_conn_get_state(s->conn);
  if (udccp_conn_peek_datagram_len(s->conn) >= 0) {
    ev |= UDCCP_EV_READABLE;
  }
  if (!s->ev_connected && s->lis == NULL && !dead &&
      st >= UDCCP_STATE_PARTOPEN) {
    ev |= UDCCP_EV_CONNECTED;
  }
  if (s->want_write && !dead && !s->shut && st >= UDCCP_STATE_PARTOPEN &&
      udccp_conn_get_send_space(s->conn) > 0) {
    ev |= UDCCP_EV_WRITABLE;
  }
  if (!s->ev_dead && dead) {
    ev |= udccp_io_sock_dead_error(s) == UDCCP_ERR_CLOSED ? UDCCP_EV_CLOSED
                                                          : UDCCP_EV_RESET;
  }
  return ev;
}

/* Drops from the ready list the sockets with nothing to report; 1 if an
 * event is waiting. */
static int events_waiting(void *arg) {
  udccp_endpoint *ep = arg;
  for (size_t i = 0; i < ep->nready;) {
    udccp_sock *s = ep->ready[i];
    if (sock_events(s) == 0) {
      udccp_io_ev_remove(s); /* the last one moves to i */
    } else {
      i++;
    }
  }
  return ep->nready > 0 || (ep->nlis > 0 && udccp_io_accept_pending(ep));
}

int udccp_endpoint_events(udccp_endpoint *ep, udccp_event *ev, size_t max,
                          int timeout_ms) {
  if (ep == NULL || ev == NULL || max == 0) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  int rv = udccp_io_wait(ep, udccp_io_deadline(timeout_ms), events_waiting,
                         ep);
  if (rv == UDCCP_ERR_AGAIN) {
    return 0; /* nothing happened within timeout_ms */
  }
  if (rv != 0) {
    return rv;
  }
  size_t n = 0;
  if (ep->nlis > 0 && udccp_io_accept_pending(ep)) {
    memset(&ev[n], 0, sizeof(ev[n]));
    ev[n].sock = NULL;
    ev[n].user = NULL;
    ev[n].events = UDCCP_EV_ACCEPTABLE;
    ev[n].error = 0;
    ev[n].reset_code = UDCCP_RESET_NONE;
    n++;
  }
  /* Front to back.  A socket that stays readable stays on the list
   * (level-triggered), the others leave it.  Next time, the sockets not
   * looked at now come first and the ones that stayed after them: one
   * the application does not drain cannot keep the others out when max
   * is small. */
  size_t n0 = ep->nready, v = 0, k = 0;
  for (; v < n0 && n < max; v++) {
    udccp_sock *s = ep->ready[v];
    uint32_t bits = sock_events(s);
    if (bits != 0) {
      memset(&ev[n], 0, sizeof(ev[n]));
      ev[n].sock = s;
      ev[n].user = s->user;
      ev[n].events = bits;
      ev[n].error = 0;
      ev[n].reset_code = udccp_conn_get_reset_code(s->conn);
      if (bits & UDCCP_EV_CONNECTED) {
        s->ev_connected = 1;
      }
      if (bits & UDCCP_EV_WRITABLE) {
        s->want_write = 0;
      }
      if (bits & (UDCCP_EV_CLOSED | UDCCP_EV_RESET)) {
        s->ev_dead = 1;
        ev[n].error = udccp_io_sock_dead_error(s);
      }
      n++;
    }
    if (bits & UDCCP_EV_READABLE) {
      ep->ready[k++] = s; /* stays, in order, at the front for now */
    } else {
      s->ready_idx = SIZE_MAX;
    }
  }
  /* [0,k) stayed, [v,n0) not looked at: make it [v,n0) then [0,k). */
  size_t u = n0 - v;
  memmove(ep->ready + k, ep->ready + v, u * sizeof(*ep->ready));
  reverse(ep->ready, 0, k);
  reverse(ep->ready, k, k + u);
  reverse(ep->ready, 0, k + u);
  ep->nready = k + u;
  for (size_t i = 0; i < ep->nready; i++) {
    ep->ready[i]->ready_idx = i;
  }
  return (int)n;
}

void udccp_sock_set_user(udccp_sock *s, void *user) {
  if (s != NULL) {
    s->user = user;
  }
}

void *udccp_sock_get_user(const udccp_sock *s) {
  return s != NULL ? s->user : NULL;
}

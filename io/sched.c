/* SPDX-License-Identifier: MIT */
/*
 * Which connections of an endpoint need attention: a min-heap of their
 * next expiry (udccp_conn_get_expiry) and a list of "dirty" ones that had
 * a packet, a timer or a call since the loop last ran.  The loop then
 * touches only those, not every connection, so one endpoint can hold many
 * idle connections cheaply: an idle connection costs nothing until its
 * own expiry (DESIGN.md §1: no periodic sweep over all sockets).  Every
 * way a connection changes outside a packet or a timer goes through a
 * call that marks it dirty: the socket calls, and udccp_sock_get_conn()
 * for changes made straight through the core.
 */
#include <stdint.h>
#include <stdlib.h>

#include "endpoint.h"

#define NOT_IN_HEAP SIZE_MAX

int udccp_io_sched_reserve(udccp_endpoint *ep, size_t cap) {
  if (cap <= ep->capsched) {
    return 0;
  }
  udccp_sock **h = realloc(ep->heap, cap * sizeof(*h));
  if (h == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  ep->heap = h;
  udccp_sock **d = realloc(ep->dirty, cap * sizeof(*d));
  if (d == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  ep->dirty = d;
  udccp_sock **r = realloc(ep->ready, cap * sizeof(*r));
  if (r == NULL) {
    return UDCCP_ERR_NOMEM;
  }
  ep->ready = r;
  ep->capsched = cap;
  return 0;
}

void udccp_io_sched_init_sock(udccp_sock *s) {
  s->heap_idx = NOT_IN_HEAP;
  s->ready_idx = SIZE_MAX;
  s->exp = UDCCP_TSTAMP_NEVER;
  s->dirty = 0;
}

static void heap_set(udccp_endpoint *ep, size_t i, udccp_sock *s) {
  ep->heap[i] = s;
  s->heap_idx = i;
}

static void sift_up(udccp_endpoint *ep, size_t i) {
  udccp_sock *s = ep->heap[i];
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (ep->heap[parent]->exp <= s->exp) {
      break;
    }
    heap_set(ep, i, ep->heap[parent]);
    i = parent;
  }
  heap_set(ep, i, s);
}

static void sift_down(udccp_endpoint *ep, size_t i) {
  udccp_sock *s = ep->heap[i];
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    udccp_tstamp best = s->exp;
    if (l < ep->nheap && ep->heap[l]->exp < best) {
      m = l;
      best = ep->heap[l]->exp;
    }
    if (l + 1 < ep->nheap && ep->heap[l + 1]->exp < best) {
      m = l + 1;
    }
    if (m == i) {
      break;
    }
    heap_set(ep, i, ep->heap[m]);
    i = m;
  }
  heap_set(ep, i, s);
}

static void heap_remove(udccp_endpoint *ep, udccp_sock *s) {
  size_t i = s->heap_idx;
  if (i == NOT_IN_HEAP) {
    return;
  }
  s->heap_idx = NOT_IN_HEAP;
  udccp_sock *last = ep->heap[--ep->nheap];
  if (last == s) {
    return;
  }
  heap_set(ep, i, last);
  sift_up(ep, i);
  sift_down(ep, last->heap_idx);
}

void udccp_io_sched_update(udccp_sock *s) {
  udccp_endpoint *ep = s->ep;
  if (s->conn != NULL) {
    s->exp = udccp_conn_get_expiry(s->conn); /* a tombstone keeps its own */
    if (s->mp != NULL) {
      udccp_tstamp e = udccp_io_mp_expiry(s->mp); /* mp.c */
      s->exp = e < s->exp ? e : s->exp;
    }
  }
  if (s->exp == UDCCP_TSTAMP_NEVER) {
    heap_remove(ep, s);
    return;
  }
  if (s->heap_idx == NOT_IN_HEAP) {
    /* capsched >= nsocks >= nheap + 1 (reserved in sock_add) */
    size_t i = ep->nheap++;
    heap_set(ep, i, s);
    sift_up(ep, i);
    return;
  }
  sift_up(ep, s->heap_idx);
  sift_down(ep, s->heap_idx);
}

void udccp_io_sched_touch(udccp_sock *s) {
  if (!s->dirty) {
    s->dirty = 1;
    s->ep->dirty[s->ep->ndirty++] = s;
  }
}

void udccp_io_sched_remove(udccp_sock *s) {
  udccp_endpoint *ep = s->ep;
  heap_remove(ep, s);
  if (s->dirty) {
    for (size_t i = 0; i < ep->ndirty; i++) {
      if (ep->dirty[i] == s) {
        ep->dirty[i] = ep->dirty[--ep->ndirty];
        break;
      }
    }
    s->dirty = 0;
  }
}

udccp_sock *udccp_io_sched_pop_due(udccp_endpoint *ep, udccp_tstamp now) {
  if (ep->nheap == 0 || ep->heap[0]->exp > now) {
    return NULL;
  }
  udccp_sock *s = ep->heap[0];
  heap_remove(ep, s);
  return s;
}

udccp_tstamp udccp_io_sched_next(const udccp_endpoint *ep) {
  if (ep->ndirty > 0) {
    return 0; /* work is waiting: now */
  }
  return ep->nheap > 0 ? ep->heap[0]->exp : UDCCP_TSTAMP_NEVER;
}

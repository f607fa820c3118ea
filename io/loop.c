/* SPDX-License-Identifier: MIT */
/*
 * The event loop: one turn reads the sockets epoll reported, runs the
 * timers that fell due, lets the connections that had something happen
 * write their packets, sends the batch and settles them (sched.c keeps
 * the timers and the dirty list); the blocking calls wait in it.
 */
#include <errno.h>
#include <limits.h>
#include <sys/epoll.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "endpoint.h"

int udccp_endpoint_timeout_ms(const udccp_endpoint *ep) {
  if (ep == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  udccp_tstamp e = udccp_io_sched_next(ep);
  if (e == UDCCP_TSTAMP_NEVER) {
    return -1;
  }
  udccp_tstamp now = udccp_io_now();
  if (e <= now) {
    return 0;
  }
  udccp_tstamp ms = (e - now + UDCCP_NS_PER_MS - 1) / UDCCP_NS_PER_MS;
  return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Memory returns (DESIGN.md §1): after short-lived allocations (Requests
 * answered with Init Cookies, each through a throw-away connection;
 * connections freed) the C library keeps the freed pages, scattered
 * between live blocks.  At most once a second, if any such free happened
 * since the last trim, hand them back (malloc_trim walks the heap: about
 * a millisecond for the few MB a listener under flood holds). */
/* Under AddressSanitizer its allocator owns the heap: glibc's malloc is
 * never set up, and malloc_trim from two worker threads at once ran
 * glibc's set-up twice and crashed (SEGV in mtrim, perf_oneoff's
 * --threads 2 -P 3 case). */
#if defined(__SANITIZE_ADDRESS__)
#define UDCCP_IO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UDCCP_IO_ASAN 1
#endif
#endif

static void trim_after_churn(udccp_endpoint *ep, udccp_tstamp now) {
  if (now - ep->trim_at < UDCCP_NS_PER_S) {
    return;
  }
  uint64_t churn = ep->socks_freed;
  for (size_t i = 0; i < ep->nlis; i++) {
    for (int f = 0; f < 2; f++) {
      udccp_listener_stats st;
      udccp_listener_get_stats(ep->lis[i].lis[f], &st);
      churn += st.cookies_sent + st.too_busy;
    }
  }
  if (churn != ep->trim_mark) {
    ep->trim_at = now;
    ep->trim_mark = churn;
#if defined(__GLIBC__) && !defined(UDCCP_IO_ASAN)
    (void)malloc_trim(0);
#endif
  }
}

#define IO_EVENTS_MAX 8

/* One loop turn on the n events epoll gave: read, run due timers,
 * generate and send. */
static int process_events(udccp_endpoint *ep, const struct epoll_event *ev,
                          int n) {
  int rv = 0;
  udccp_tstamp now = udccp_io_ep_now(ep);
  for (int i = 0; i < n; i++) {
    if (ev[i].data.u32 & UDCCP_IO_EV_SHARE) {
      udccp_io_share_recv(ep, (int)(ev[i].data.u32 & ~UDCCP_IO_EV_SHARE),
                          now);
      continue;
    }
    int f = (int)ev[i].data.u32;
    if (ev[i].events & EPOLLERR) {
      udccp_io_drain_errqueue(ep, f);
    }
    if (ev[i].events & EPOLLIN) {
      int r = udccp_io_recv(ep, f, now, UDCCP_IO_RX_ROUNDS);
      if (r != 0) {
        rv = r;
      }
    }
  }
  now = udccp_io_ep_now(ep);
  udccp_sock *s;
  while ((s = udccp_io_sched_pop_due(ep, now)) != NULL) {
    if (s->conn != NULL) {
      (void)udccp_conn_handle_expiry(s->conn, now);
    } else {
      s->exp = UDCCP_TSTAMP_NEVER; /* a tombstone's TIMEWAIT ended */
    }
    udccp_io_sched_touch(s);
  }
  if (ep->filter_dirty) {
    udccp_io_filter_update(ep);
  }
  /* The list may grow while we go (a PMTU update on flush touches). */
  for (size_t i = 0; i < ep->ndirty; i++) {
    udccp_io_sock_output(ep->dirty[i], now);
  }
  udccp_io_tx_flush(ep);
  for (size_t i = 0; i < ep->ndirty; i++) {
    ep->dirty[i]->dirty = 0;
  }
  /* udccp_io_sock_settle() may free: work on a list nobody else edits now. */
  size_t nd = ep->ndirty;
  ep->ndirty = 0;
  for (size_t i = 0; i < nd; i++) {
    udccp_io_sock_settle(ep->dirty[i]);
  }
  if (ep->filter_dirty) {
    udccp_io_filter_update(ep);
  }
  trim_after_churn(ep, now);
  return rv;
}

/* A look for input before a turn: epoll_wait(t), or, while the sockets
 * with connections keep having packets (ep->rx_hot: the last recvmmsg
 * took some), a read of them straight away.  A busy receiver's looks
 * find packets nearly every time (udccp-perf's server: 92 % of its
 * epoll_wait calls were zero-timeout looks, each followed by the
 * recvmmsg it announced), and so do a bulk sender's (the acks that came
 * while it wrote), so asking epoll first cost a system call per turn for
 * nothing (issue 13).  Once a read finds nothing, epoll is asked (a
 * quiet endpoint pays no extra call), and also every
 * UDCCP_IO_LOOK_EPOLL_EVERY looks, so that a socket without connections
 * (a listener's), a share.c relay socket and an error queue wait a few
 * turns at most.  Returns the events in ev (0 when the read took
 * packets), or -1 with errno (epoll_wait's), or 0 with a read's error
 * code in *rv. */
static int look(udccp_endpoint *ep, struct epoll_event *ev, int t, int *rv) {
  *rv = 0;
  if (ep->rx_hot && ep->looks_direct < UDCCP_IO_LOOK_EPOLL_EVERY) {
    uint64_t b0 = ep->stats.rx_batches;
    udccp_tstamp now = udccp_io_ep_now(ep);
    for (int f = 0; f < 2; f++) {
      if (ep->fd[f] >= 0 && ep->nsocks_fam[f] > 0) {
        int r = udccp_io_recv(ep, f, now, UDCCP_IO_RX_ROUNDS);
        if (r != 0) {
          *rv = r;
        }
      }
    }
    if (ep->stats.rx_batches != b0 || *rv != 0) {
      ep->looks_direct++;
      return 0;
    }
  }
  ep->looks_direct = 0;
  ep->stats.polls++;
  return epoll_wait(ep->epfd, ev, IO_EVENTS_MAX, t);
}

int udccp_endpoint_process(udccp_endpoint *ep) {
  struct epoll_event ev[IO_EVENTS_MAX];
  if (ep == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  ep->stats.polls++;
  int n = epoll_wait(ep->epfd, ev, IO_EVENTS_MAX, 0);
  return process_events(ep, ev, n > 0 ? n : 0);
}

int udccp_endpoint_run(udccp_endpoint *ep, int timeout_ms) {
  if (ep == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  int t = udccp_endpoint_timeout_ms(ep);
  if (timeout_ms >= 0 && (t < 0 || timeout_ms < t)) {
    t = timeout_ms;
  }
  /* The events of this wait are the turn's: no second epoll_wait. */
  struct epoll_event ev[IO_EVENTS_MAX];
  int rv;
  int n = look(ep, ev, t, &rv);
  if (rv != 0) {
    return rv;
  }
  if (n < 0 && errno != EINTR) {
    return UDCCP_ERR_SOCKET;
  }
  return process_events(ep, ev, n > 0 ? n : 0);
}

int udccp_io_wait(udccp_endpoint *ep, udccp_tstamp deadline,
                  int (*ready)(void *arg), void *arg) {
  int zero_waits = 0;
  struct epoll_event ev[IO_EVENTS_MAX];
  int rv;
  int n = look(ep, ev, 0, &rv);
  if (rv != 0) {
    return rv;
  }
  for (;;) {
    /* a turn on the events the last wait returned (no second poll) */
    rv = process_events(ep, ev, n > 0 ? n : 0);
    if (rv != 0) {
      return rv;
    }
    if (ready(arg)) {
      return 0;
    }
    udccp_tstamp now = udccp_io_now();
    if (deadline != UDCCP_TSTAMP_NEVER && now >= deadline) {
      return UDCCP_ERR_AGAIN;
    }
    int t = udccp_endpoint_timeout_ms(ep);
    if (deadline != UDCCP_TSTAMP_NEVER) {
      udccp_tstamp ms = (deadline - now + UDCCP_NS_PER_MS - 1) /
                        UDCCP_NS_PER_MS;
      if (ms > INT_MAX) {
        ms = INT_MAX;
      }
      if (t < 0 || (int)ms < t) {
        t = (int)ms;
      }
    }
    /* A timer that stays due after being run would spin; give it a
     * millisecond after a few rounds. */
    zero_waits = t == 0 ? zero_waits + 1 : 0;
    if (zero_waits > 3) {
      t = 1;
    }
    n = look(ep, ev, t, &rv);
    if (rv != 0) {
      return rv;
    }
    if (n < 0 && errno != EINTR) {
      return UDCCP_ERR_SOCKET;
    }
  }
}

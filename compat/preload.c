/* SPDX-License-Identifier: MIT */
/*
 * libudccp-preload: the interposed C library calls.
 *
 * A program's DCCP socket (AF_INET/AF_INET6, SOCK_DCCP, protocol 0 or
 * IPPROTO_DCCP) is one end of an AF_UNIX SOCK_SEQPACKET socketpair; the
 * service thread (svc.c) carries its datagrams over udccp.  Every call on
 * any other descriptor goes straight to the C library after one lookup in
 * a descriptor table, without a lock.  Data moves through the pair with
 * the C library's own calls, so poll/select/epoll, blocking and
 * O_NONBLOCK behave natively; the calls here add the kernel's DCCP rules
 * (EMSGSIZE, ENOTCONN, EPIPE, ECONNRESET, the SOL_DCCP options,
 * getsockname/getpeername with DCCP ports).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "compat.h"

#define EXPORT __attribute__((visibility("default")))
#ifndef SOCK_DCCP
#define SOCK_DCCP 6
#endif
#define UCOMPAT_IPPROTO_DCCP 33
/* How long close() of a connection waits for its queue to drain and the
 * close handshake to finish before the program may exit (ms). */
#define UCOMPAT_CLOSE_WAIT_MS 3000
#define UCOMPAT_CONNECT_WAIT_MS 120000

ucompat_real ucompat_libc;
pthread_mutex_t ucompat_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ucompat_cv = PTHREAD_COND_INITIALIZER;

static ucompat_sock *_Atomic g_fd[UCOMPAT_MAX_FDS];

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_readv)(int, const struct iovec *, int);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_sendto)(int, const void *, size_t, int,
                              const struct sockaddr *, socklen_t);
static int (*real_sendmmsg)(int, struct mmsghdr *, unsigned, int);
static ssize_t (*real_recv)(int, void *, size_t, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *,
                                socklen_t *);
static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_connect)(int, const struct sockaddr *, socklen_t);
static int (*real_listen)(int, int);
static int (*real_accept)(int, struct sockaddr *, socklen_t *);
static int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_fcntl)(int, int, ...);
static int (*real_fcntl64)(int, int, ...);
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
static int (*real_getpeername)(int, struct sockaddr *, socklen_t *);

static void *sym(const char *name) { return dlsym(RTLD_NEXT, name); }

void ucompat_init_real(void) {
  if (ucompat_libc.socket != NULL) {
    return;
  }
  real_read = sym("read");
  real_write = sym("write");
  real_readv = sym("readv");
  real_writev = sym("writev");
  real_send = sym("send");
  real_sendto = sym("sendto");
  real_sendmmsg = sym("sendmmsg");
  real_recv = sym("recv");
  real_recvfrom = sym("recvfrom");
  real_bind = sym("bind");
  real_connect = sym("connect");
  real_listen = sym("listen");
  real_accept = sym("accept");
  real_accept4 = sym("accept4");
  real_dup = sym("dup");
  real_dup2 = sym("dup2");
  real_dup3 = sym("dup3");
  real_fcntl = sym("fcntl");
  real_fcntl64 = sym("fcntl64");
  real_ioctl = sym("ioctl");
  real_getsockname = sym("getsockname");
  real_getpeername = sym("getpeername");
  ucompat_libc.socketpair = sym("socketpair");
  ucompat_libc.close = sym("close");
  ucompat_libc.sendmsg = sym("sendmsg");
  ucompat_libc.recvmsg = sym("recvmsg");
  ucompat_libc.shutdown = sym("shutdown");
  ucompat_libc.getsockopt = sym("getsockopt");
  ucompat_libc.setsockopt = sym("setsockopt");
  atomic_thread_fence(memory_order_release);
  ucompat_libc.socket = sym("socket");
}

#define REAL(f) (ucompat_libc.socket == NULL ? ucompat_init_real() : (void)0, f)

/* The fast path: one relaxed load per call on a non-DCCP descriptor. */
static inline ucompat_sock *lookup(int fd) {
  if (fd < 0 || fd >= UCOMPAT_MAX_FDS) {
    return NULL;
  }
  return atomic_load_explicit(&g_fd[fd], memory_order_acquire);
}

static int fail(int e) {
  errno = e;
  return -1;
}

/* The socket's state as the program sees it; a slot reused after the
 * owning process finished the connection reads as closed. */
static int state_of(const ucompat_sock *cs) {
  if (!ucompat_slot_valid(cs)) {
    return UCOMPAT_CLOSED;
  }
  return atomic_load(&cs->st->state);
}

static int take_err(ucompat_sock *cs) {
  return ucompat_slot_valid(cs) ? atomic_exchange(&cs->st->err, 0) : 0;
}

static int is_nonblock(int fd) {
  int fl = REAL(real_fcntl)(fd, F_GETFL);
  return fl >= 0 && (fl & O_NONBLOCK) != 0;
}

static int deadline_wait(struct timespec *dl) {
  return pthread_cond_timedwait(&ucompat_cv, &ucompat_mu, dl);
}

static void deadline_in(struct timespec *dl, int ms) {
  clock_gettime(CLOCK_REALTIME, dl);
  dl->tv_sec += ms / 1000;
  dl->tv_nsec += (long)(ms % 1000) * 1000000L;
  if (dl->tv_nsec >= 1000000000L) {
    dl->tv_sec++;
    dl->tv_nsec -= 1000000000L;
  }
}

/* Waits (blocking sockets) until the handshake is over. */
static void wait_connected(ucompat_sock *cs) {
  if (!cs->owned) {
    return;
  }
  struct timespec dl;
  deadline_in(&dl, UCOMPAT_CONNECT_WAIT_MS);
  pthread_mutex_lock(&ucompat_mu);
  while (state_of(cs) == UCOMPAT_CONNECTING) {
    if (deadline_wait(&dl) == ETIMEDOUT) {
      break;
    }
  }
  pthread_mutex_unlock(&ucompat_mu);
}

static void map_fd(int fd, ucompat_sock *cs) {
  cs->refs++;
  atomic_store_explicit(&g_fd[fd], cs, memory_order_release);
}

/* Drops descriptor fd's reference; call with ucompat_mu held. */
static void unmap_fd(int fd, ucompat_sock *cs) {
  atomic_store_explicit(&g_fd[fd], NULL, memory_order_release);
  if (--cs->refs == 0) {
    ucompat_svc_release(cs);
  }
}

static void atfork_prepare(void) { pthread_mutex_lock(&ucompat_mu); }
static void atfork_parent(void) { pthread_mutex_unlock(&ucompat_mu); }
static void atfork_child(void) {
  pthread_mutex_init(&ucompat_mu, NULL);
  pthread_cond_init(&ucompat_cv, NULL);
  ucompat_svc_atfork_child();
  /* Every inherited socket, connected or not, stays the parent's: its
   * status slot is the parent's to free, its thread end ours to drop. */
  for (int fd = 0; fd < UCOMPAT_MAX_FDS; fd++) {
    ucompat_sock *cs = atomic_load_explicit(&g_fd[fd], memory_order_relaxed);
    if (cs != NULL) {
      if (cs->owned && cs->svc_fd >= 0) {
        ucompat_libc.close(cs->svc_fd);
      }
      cs->svc_fd = -1;
      cs->owned = 0;
      cs->us = NULL;
    }
  }
}

static void ucompat_fini(void);

__attribute__((constructor)) static void ucompat_ctor(void) {
  ucompat_init_real();
  pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
  atexit(ucompat_fini);
}

/* ------------------------------------------------------------ socket */

EXPORT int socket(int domain, int type, int protocol) {
  int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (base != SOCK_DCCP || (domain != AF_INET && domain != AF_INET6) ||
      (protocol != 0 && protocol != UCOMPAT_IPPROTO_DCCP)) {
    return REAL(ucompat_libc.socket)(domain, type, protocol);
  }
  ucompat_init_real();
  int sv[2];
  if (ucompat_libc.socketpair(AF_UNIX,
                              SOCK_SEQPACKET |
                                  (type & (SOCK_NONBLOCK | SOCK_CLOEXEC)),
                              0, sv) != 0) {
    return -1;
  }
  /* Our end: close-on-exec, used with MSG_DONTWAIT. */
  REAL(real_fcntl)(sv[1], F_SETFD, FD_CLOEXEC);
  REAL(real_fcntl)(sv[1], F_SETFL, 0);
  ucompat_sock *cs = calloc(1, sizeof(*cs));
  if (sv[0] >= UCOMPAT_MAX_FDS || cs == NULL) {
    ucompat_libc.close(sv[0]);
    ucompat_libc.close(sv[1]);
    free(cs);
    return fail(cs == NULL ? ENOMEM : EMFILE);
  }
  cs->family = domain;
  cs->owned = 1;
  cs->svc_fd = sv[1];
  cs->qpolicy = UDCCP_QPOLICY_SIMPLE;
  pthread_mutex_lock(&ucompat_mu);
  if (ucompat_slot_alloc(cs) != 0) {
    pthread_mutex_unlock(&ucompat_mu);
    ucompat_libc.close(sv[0]);
    ucompat_libc.close(sv[1]);
    free(cs);
    return fail(ENOBUFS);
  }
  map_fd(sv[0], cs);
  pthread_mutex_unlock(&ucompat_mu);
  return sv[0];
}

EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_bind)(fd, sa, len);
  }
  if (sa == NULL || len < sizeof(sa_family_t)) {
    return fail(EINVAL);
  }
  if (sa->sa_family != cs->family &&
      !(cs->family == AF_INET6 && sa->sa_family == AF_INET)) {
    return fail(EAFNOSUPPORT);
  }
  socklen_t need = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                            : sizeof(struct sockaddr_in6);
  if (len < need) {
    return fail(EINVAL);
  }
  pthread_mutex_lock(&ucompat_mu);
  int rv = 0;
  if (state_of(cs) != UCOMPAT_NEW || cs->boundlen != 0) {
    rv = fail(EINVAL);
  } else {
    memcpy(&cs->bound, sa, need);
    cs->boundlen = need;
  }
  pthread_mutex_unlock(&ucompat_mu);
  return rv;
}

static int renew_pair(ucompat_sock *cs, int fd);

EXPORT int listen(int fd, int backlog) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_listen)(fd, backlog);
  }
  pthread_mutex_lock(&ucompat_mu);
  int st = state_of(cs), rv = 0;
  if (st == UCOMPAT_LISTENING && cs->lis_shut && cs->owned) {
    /* Stopped by shutdown(SHUT_RD): Linux's inet_shutdown() disconnected
     * it (SS_UNCONNECTED, CLOSED), so listen() starts it again (the
     * preload answered 0 and every accept() failed with EINVAL). */
    (void)ucompat_svc_disconnect(cs);
    cs->lis_shut = 0;
    rv = renew_pair(cs, fd);
    if (rv == 0) {
      rv = ucompat_svc_listen(cs, backlog);
    }
  } else if (st == UCOMPAT_LISTENING) {
    rv = 0;
  } else if (st != UCOMPAT_NEW) {
    rv = fail(EINVAL);
  } else if (!cs->owned) {
    rv = fail(EOPNOTSUPP); /* inherited across fork (doc/preload.md) */
  } else {
    rv = ucompat_svc_listen(cs, backlog);
  }
  pthread_mutex_unlock(&ucompat_mu);
  return rv;
}

/* connect() after a failed handshake (Linux's __inet_stream_connect() on
 * an SS_UNCONNECTED socket in TCP_CLOSE: a new handshake).  The thread hung
 * up the old pair; every descriptor of cs gets a new one, dup3()ed over
 * it: the numbers, O_NONBLOCK and FD_CLOEXEC stay (an epoll registration
 * of the old pair does not: doc/preload.md).  Call with ucompat_mu held. */
static int renew_pair(ucompat_sock *cs, int fd) {
  int fl = REAL(real_fcntl)(fd, F_GETFL);
  int sv[2];
  if (ucompat_libc.socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
    return -1;
  }
  REAL(real_fcntl)(sv[1], F_SETFD, FD_CLOEXEC);
  if (fl >= 0 && (fl & O_NONBLOCK) != 0) {
    REAL(real_fcntl)(sv[0], F_SETFL, O_NONBLOCK);
  }
  for (int d = 0; d < UCOMPAT_MAX_FDS; d++) {
    if (atomic_load_explicit(&g_fd[d], memory_order_relaxed) != cs) {
      continue;
    }
    int fdfl = REAL(real_fcntl)(d, F_GETFD);
    int cloexec = fdfl >= 0 && (fdfl & FD_CLOEXEC) != 0 ? O_CLOEXEC : 0;
    if (REAL(real_dup3)(sv[0], d, cloexec) < 0) {
      int e = errno;
      ucompat_libc.close(sv[0]);
      ucompat_libc.close(sv[1]);
      return fail(e);
    }
  }
  ucompat_libc.close(sv[0]);
  ucompat_svc_renew(cs, sv[1]);
  return 0;
}

/* connect() to an AF_UNSPEC address: Linux's __inet_stream_connect()
 * disconnects the socket (dccp_disconnect()) and answers 0 whatever its
 * state.  A connection or handshake is aborted (Reset "Aborted"; the
 * socket's next error is ECONNRESET: send() says it, then EPIPE), a
 * listener stops, unread data is dropped, and the socket is unconnected
 * again: connect() and listen() work on it anew (the preload had refused
 * with EAFNOSUPPORT, or EISCONN once connected).  A socket that was
 * never connected nor listening is left as it is. */
static int disconnect(ucompat_sock *cs, int fd) {
  pthread_mutex_lock(&ucompat_mu);
  int rv = 0;
  if (!cs->owned) {
    rv = fail(EOPNOTSUPP); /* inherited across fork (doc/preload.md) */
  } else if (state_of(cs) != UCOMPAT_NEW) {
    int e = ucompat_svc_disconnect(cs);
    cs->lis_shut = 0;
    rv = renew_pair(cs, fd); /* the old pair goes, with what it held */
    if (rv == 0) {
      atomic_store(&cs->st->err, e);
    }
    cs->connect_pending = 0;
  }
  pthread_mutex_unlock(&ucompat_mu);
  return rv;
}

/* A non-blocking connect(): the pair is writable at once, so poll/select
 * would report POLLOUT while the handshake runs and the program would ask
 * SO_ERROR early (which then waited for the whole handshake, whatever the
 * program's own timeout: Python's settimeout(2) connect took 64 s against
 * a silent peer).  Linux reports a connecting DCCP socket writable once
 * it is connected or failed (sk_stream_wait_connect's states), so the
 * program's end writes datagrams to the thread's end until its send
 * buffer is full: AF_UNIX reports it writable again only once the thread
 * has read them (svc.c gate_open, when the handshake ends).  Nothing else
 * can be written before them: a send() while connecting waits or fails
 * with EAGAIN.  Call with ucompat_mu held. */
#define UCOMPAT_GATE_MAX 65536
static void gate_close(ucompat_sock *cs, int fd) {
  char b = 0;
  struct iovec v = {&b, 1};
  struct msghdr m;
  memset(&m, 0, sizeof(m));
  m.msg_iov = &v;
  m.msg_iovlen = 1;
  while (cs->gate < UCOMPAT_GATE_MAX &&
         ucompat_libc.sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) == 1) {
    cs->gate++;
  }
}

EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_connect)(fd, sa, len);
  }
  /* Linux move_addr_to_kernel() and __inet_stream_connect(): a length
   * that cannot hold the family, or is larger than any address, is
   * EINVAL; the family is read before anything else */
  if (len < sizeof(sa_family_t) || len > sizeof(struct sockaddr_storage)) {
    return fail(EINVAL);
  }
  if (sa == NULL) {
    return fail(EFAULT);
  }
  if (sa->sa_family == AF_UNSPEC) {
    return disconnect(cs, fd);
  }
  pthread_mutex_lock(&ucompat_mu);
  int st = state_of(cs), rv = 0, told = 0;
  if (st == UCOMPAT_CONNECTING) {
    rv = fail(EALREADY);
  } else if (st == UCOMPAT_LISTENING && cs->lis_shut && cs->owned) {
    /* Stopped by shutdown(SHUT_RD): Linux's inet_shutdown() disconnected
     * it (dccp_disconnect(): CLOSED, SS_UNCONNECTED), and
     * __inet_stream_connect() connects a CLOSED socket (the preload said
     * EISCONN, as for a listener). */
    (void)ucompat_svc_disconnect(cs);
    cs->lis_shut = 0;
    rv = renew_pair(cs, fd);
    if (rv == 0) {
      rv = ucompat_svc_connect(cs, sa, len);
    }
  } else if (st == UCOMPAT_LISTENING && cs->lis_shut) {
    rv = fail(EOPNOTSUPP); /* inherited across fork (doc/preload.md) */
  } else if (st == UCOMPAT_LISTENING) {
    rv = fail(EISCONN);
  } else if ((st == UCOMPAT_OPEN || st == UCOMPAT_CLOSED) &&
             cs->connect_pending) {
    /* A non-blocking connect()'s outcome, learnt by calling connect()
     * again: Linux's __inet_stream_connect() answers 0 once the socket is
     * connected, and the socket's error (else ECONNABORTED) once the
     * handshake failed, and the socket is SS_UNCONNECTED again. */
    cs->connect_pending = 0;
    told = 1;
    if (st == UCOMPAT_CLOSED) {
      int e = take_err(cs);
      rv = fail(e != 0 ? e : ECONNABORTED);
    }
  } else if (st == UCOMPAT_OPEN) {
    rv = fail(EISCONN);
  } else if (st == UCOMPAT_CLOSED && ucompat_slot_valid(cs) &&
             atomic_load(&cs->st->mps) == 0 && cs->owned) {
    /* The handshake failed and connect() said so: as Linux, a new
     * handshake (it was ECONNABORTED for ever). */
    rv = renew_pair(cs, fd);
    if (rv == 0) {
      rv = ucompat_svc_connect(cs, sa, len);
    }
  } else if (st == UCOMPAT_CLOSED && !cs->owned) {
    rv = fail(EOPNOTSUPP); /* inherited across fork (doc/preload.md) */
  } else if (st == UCOMPAT_CLOSED) {
    rv = fail(EISCONN); /* was connected: Linux's SS_CONNECTED */
  } else if (st != UCOMPAT_NEW) {
    rv = fail(EBADFD);
  } else if (!cs->owned) {
    rv = fail(EOPNOTSUPP); /* inherited across fork (doc/preload.md) */
  } else {
    rv = ucompat_svc_connect(cs, sa, len);
  }
  int nonblock = is_nonblock(fd);
  if (rv == 0 && !told) {
    cs->connect_pending = 1;
    if (nonblock && cs->owned) {
      gate_close(cs, fd);
    }
  }
  pthread_mutex_unlock(&ucompat_mu);
  if (rv != 0 || told) {
    return rv;
  }
  if (nonblock) {
    return fail(EINPROGRESS);
  }
  wait_connected(cs);
  pthread_mutex_lock(&ucompat_mu);
  st = state_of(cs);
  if (st != UCOMPAT_CONNECTING) {
    cs->connect_pending = 0; /* the outcome is told now */
  }
  pthread_mutex_unlock(&ucompat_mu);
  if (st == UCOMPAT_OPEN) {
    return 0;
  }
  int e = take_err(cs);
  return fail(e != 0 ? e : (st == UCOMPAT_CONNECTING ? ETIMEDOUT
                                                     : ECONNREFUSED));
}

static void fill_addr(const struct sockaddr_storage *ss, socklen_t sl,
                      struct sockaddr *out, socklen_t *outlen) {
  if (out == NULL || outlen == NULL) {
    return;
  }
  socklen_t n = *outlen < sl ? *outlen : sl;
  memcpy(out, ss, n);
  *outlen = sl;
}

/* One hand-over from the listener's service thread (svc.c hand_over): the
 * connection's status slot and generation into id, its descriptor into
 * *nfd (-1 when the message carried none); one fewer waits in the
 * backlog then.  recvmsg's result. */
static ssize_t recv_handover(ucompat_sock *lis, int fd, int rflags,
                             uint32_t id[2], int *nfd) {
  struct iovec iov = {id, 2 * sizeof(uint32_t)};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } u;
  struct msghdr m;
  memset(&m, 0, sizeof(m));
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = u.buf;
  m.msg_controllen = sizeof(u.buf);
  *nfd = -1;
  ssize_t n = ucompat_libc.recvmsg(fd, &m, rflags);
  if (n < 0) {
    return n;
  }
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  if (c != NULL && c->cmsg_level == SOL_SOCKET &&
      c->cmsg_type == SCM_RIGHTS) {
    memcpy(nfd, CMSG_DATA(c), sizeof(int));
    if (ucompat_slot_valid(lis) && atomic_load(&lis->st->pending) > 0) {
      atomic_fetch_sub(&lis->st->pending, 1);
    }
  }
  return n;
}

static int do_accept(int fd, struct sockaddr *addr, socklen_t *alen,
                     int flags) {
  ucompat_sock *lis = lookup(fd);
  if (state_of(lis) != UCOMPAT_LISTENING) {
    return fail(EINVAL);
  }
  for (;;) {
    uint32_t id[2];
    int nfd;
    ssize_t n = recv_handover(
        lis, fd, (flags & SOCK_CLOEXEC) ? MSG_CMSG_CLOEXEC : 0, id, &nfd);
    if (n < 0) {
      return -1;
    }
    if (n == 0 && nfd < 0) {
      return fail(EINVAL); /* the listener is gone */
    }
    if (nfd < 0) {
      continue;
    }
    if (n != sizeof(id)) {
      ucompat_libc.close(nfd);
      continue;
    }
    if (nfd >= UCOMPAT_MAX_FDS) {
      ucompat_libc.close(nfd);
      return fail(EMFILE);
    }
    if (flags & SOCK_NONBLOCK) {
      REAL(real_fcntl)(nfd, F_SETFL, O_NONBLOCK);
    }
    pthread_mutex_lock(&ucompat_mu);
    ucompat_sock *cs = ucompat_svc_by_slot((int)id[0], id[1]);
    if (cs == NULL) {
      /* Created by another process's thread (we are its child), or
       * already finished: a proxy on the shared status slot. */
      cs = calloc(1, sizeof(*cs));
      if (cs == NULL) {
        pthread_mutex_unlock(&ucompat_mu);
        ucompat_libc.close(nfd);
        return fail(ENOMEM);
      }
      *cs = *lis;
      cs->refs = 0;
      cs->owned = 0;
      cs->svc_fd = -1;
      cs->slot = (int)id[0];
      cs->gen = id[1];
      cs->st = ucompat_slot_get(cs->slot);
      cs->us = NULL;
      cs->next = NULL;
      cs->thread_done = 1;
      cs->is_server = 1;
      cs->lport = 0;
    }
    if (ucompat_slot_valid(cs)) {
      atomic_store(&cs->st->accepted, 1); /* no longer the backlog's */
    }
    map_fd(nfd, cs);
    pthread_mutex_unlock(&ucompat_mu);
    if (addr != NULL && alen != NULL && ucompat_slot_valid(cs)) {
      ucompat_stat snap;
      ucompat_snap_read(cs, &snap);
      fill_addr(&snap.peer, snap.peerlen, addr, alen);
    }
    return nfd;
  }
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *alen) {
  if (lookup(fd) == NULL) {
    return REAL(real_accept)(fd, addr, alen);
  }
  return do_accept(fd, addr, alen, 0);
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *alen,
                   int flags) {
  if (lookup(fd) == NULL) {
    return REAL(real_accept4)(fd, addr, alen, flags);
  }
  return do_accept(fd, addr, alen, flags);
}

/* ------------------------------------------------------------ sending */

/* RFC 4340 §14 and Linux dccp_sendmsg(): one datagram per call, refused
 * with EMSGSIZE above the current MPS; EPIPE when not connected (Linux's
 * sk_stream_wait_connect()), the pending error (ECONNRESET) first. */
static ssize_t do_send(ucompat_sock *cs, int fd, const struct iovec *iov,
                       size_t iovcnt, int flags, int has_prio,
                       uint32_t prio) {
  int st = state_of(cs);
  if (st == UCOMPAT_CONNECTING) {
    if ((flags & MSG_DONTWAIT) || is_nonblock(fd)) {
      return fail(EAGAIN);
    }
    wait_connected(cs);
    st = state_of(cs);
  }
  if (st != UCOMPAT_OPEN) {
    int e = take_err(cs);
    return fail(e != 0 ? e : EPIPE);
  }
  if (cs->wr_shut) {
    return fail(EPIPE); /* Linux sock_alloc_send_skb(): SEND_SHUTDOWN */
  }
  if (has_prio && cs->qpolicy != UDCCP_QPOLICY_PRIO) {
    return fail(EINVAL); /* Linux: the simple policy takes no parameter */
  }
  size_t total = 0;
  for (size_t i = 0; i < iovcnt; i++) {
    total += iov[i].iov_len;
  }
  uint32_t mps = atomic_load(&cs->st->mps);
  if (mps != 0 && total > mps) {
    return fail(EMSGSIZE);
  }
  struct iovec v[UIO_MAXIOV];
  size_t n = 0;
  if (cs->qpolicy == UDCCP_QPOLICY_PRIO) {
    v[n].iov_base = &prio;
    v[n].iov_len = sizeof(prio);
    n++;
  }
  if (iovcnt + n > UIO_MAXIOV) {
    return fail(EINVAL);
  }
  for (size_t i = 0; i < iovcnt; i++) {
    v[n++] = iov[i];
  }
  struct msghdr m;
  memset(&m, 0, sizeof(m));
  m.msg_iov = v;
  m.msg_iovlen = n;
  ssize_t r = ucompat_libc.sendmsg(fd, &m, (flags & MSG_DONTWAIT) |
                                               MSG_NOSIGNAL);
  if (r < 0) {
    if (errno == EPIPE || errno == ECONNRESET) {
      int e = take_err(cs);
      return fail(e != 0 ? e : EPIPE);
    }
    return -1;
  }
  return (ssize_t)total;
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_send)(fd, buf, len, flags);
  }
  struct iovec v = {(void *)(uintptr_t)buf, len};
  return do_send(cs, fd, &v, 1, flags, 0, 0);
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
                      const struct sockaddr *to, socklen_t tolen) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_sendto)(fd, buf, len, flags, to, tolen);
  }
  struct iovec v = {(void *)(uintptr_t)buf, len};
  return do_send(cs, fd, &v, 1, flags, 0, 0);
}

static ssize_t dccp_sendmsg(ucompat_sock *cs, int fd, const struct msghdr *m,
                            int flags) {
  int has_prio = 0;
  uint32_t prio = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c != NULL;
       c = CMSG_NXTHDR((struct msghdr *)(uintptr_t)m, c)) {
    if (c->cmsg_level != SOL_DCCP) {
      continue;
    }
    /* DCCP_SCM_PRIORITY = 1 (<linux/dccp.h>): a __u32 priority. */
    if (c->cmsg_type != 1 || c->cmsg_len != CMSG_LEN(sizeof(uint32_t))) {
      return fail(EINVAL);
    }
    memcpy(&prio, CMSG_DATA(c), sizeof(prio));
    has_prio = 1;
  }
  return do_send(cs, fd, m->msg_iov, m->msg_iovlen, flags, has_prio, prio);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int flags) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(ucompat_libc.sendmsg)(fd, m, flags);
  }
  return dccp_sendmsg(cs, fd, m, flags);
}

EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned vlen, int flags) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_sendmmsg)(fd, v, vlen, flags);
  }
  unsigned i;
  for (i = 0; i < vlen; i++) {
    ssize_t r = dccp_sendmsg(cs, fd, &v[i].msg_hdr, flags);
    if (r < 0) {
      return i > 0 ? (int)i : -1;
    }
    v[i].msg_len = (unsigned)r;
  }
  return (int)i;
}

EXPORT ssize_t write(int fd, const void *buf, size_t len) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_write)(fd, buf, len);
  }
  struct iovec v = {(void *)(uintptr_t)buf, len};
  return do_send(cs, fd, &v, 1, 0, 0, 0);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_writev)(fd, iov, cnt);
  }
  if (cnt < 0) {
    return fail(EINVAL);
  }
  return do_send(cs, fd, iov, (size_t)cnt, 0, 0, 0);
}

/* ------------------------------------------------------------ receiving */

/* Linux dccp_recvmsg(): ENOTCONN on a listening or never-connected
 * socket, the pending error first on an unconnected one (ECONNRESET once
 * after connect(AF_UNSPEC) cut a connection); after a Reset or a Close,
 * end of file (0). */
static int recv_check(ucompat_sock *cs) {
  int st = state_of(cs);
  if (st == UCOMPAT_NEW) {
    int e = take_err(cs);
    return fail(e != 0 ? e : ENOTCONN);
  }
  if (st == UCOMPAT_LISTENING) {
    return fail(ENOTCONN);
  }
  return 0;
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_recv)(fd, buf, len, flags);
  }
  if (recv_check(cs) != 0) {
    return -1;
  }
  return real_recv(fd, buf, len, flags);
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
                        struct sockaddr *from, socklen_t *fromlen) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_recvfrom)(fd, buf, len, flags, from, fromlen);
  }
  if (recv_check(cs) != 0) {
    return -1;
  }
  ssize_t r = real_recv(fd, buf, len, flags);
  if (r >= 0 && fromlen != NULL) {
    *fromlen = 0; /* as Linux DCCP: no source address */
  }
  return r;
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int flags) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(ucompat_libc.recvmsg)(fd, m, flags);
  }
  if (recv_check(cs) != 0) {
    return -1;
  }
  void *name = m->msg_name;
  m->msg_name = NULL;
  m->msg_namelen = 0;
  ssize_t r = ucompat_libc.recvmsg(fd, m, flags);
  m->msg_name = name;
  return r;
}

EXPORT ssize_t read(int fd, void *buf, size_t len) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_read)(fd, buf, len);
  }
  if (recv_check(cs) != 0) {
    return -1;
  }
  return real_read(fd, buf, len);
}

/* _FORTIFY_SOURCE builds (the default of distribution packages) call
 * these instead of recv/recvfrom/read. */
static ssize_t (*real_recv_chk)(int, void *, size_t, size_t, int);
static ssize_t (*real_recvfrom_chk)(int, void *, size_t, size_t, int,
                                    struct sockaddr *, socklen_t *);
static ssize_t (*real_read_chk)(int, void *, size_t, size_t);

EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen,
                          int flags);
EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen,
                          int flags) {
  if (lookup(fd) == NULL || len > buflen) {
    if (real_recv_chk == NULL) {
      real_recv_chk = sym("__recv_chk");
    }
    return real_recv_chk(fd, buf, len, buflen, flags);
  }
  return recv(fd, buf, len, flags);
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen,
                              int flags, struct sockaddr *from,
                              socklen_t *fromlen);
EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen,
                              int flags, struct sockaddr *from,
                              socklen_t *fromlen) {
  if (lookup(fd) == NULL || len > buflen) {
    if (real_recvfrom_chk == NULL) {
      real_recvfrom_chk = sym("__recvfrom_chk");
    }
    return real_recvfrom_chk(fd, buf, len, buflen, flags, from, fromlen);
  }
  return recvfrom(fd, buf, len, flags, from, fromlen);
}

EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);
EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen) {
  if (lookup(fd) == NULL || len > buflen) {
    if (real_read_chk == NULL) {
      real_read_chk = sym("__read_chk");
    }
    return real_read_chk(fd, buf, len, buflen);
  }
  return read(fd, buf, len);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_readv)(fd, iov, cnt);
  }
  if (recv_check(cs) != 0) {
    return -1;
  }
  return real_readv(fd, iov, cnt);
}

/* ------------------------------------------------------------ closing */

static int peer_hup(int fd) {
  struct pollfd p = {fd, 0, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP) != 0;
}

/* A stopped listener's backlog: the connections handed over and not
 * accept()ed are closed here, and the thread resets them (svc.c: never
 * accepted), as Linux's inet_csk_listen_stop() resets a disconnected
 * listener's children at once (Reset "Aborted", RFC 4340 §5.6).  accept()
 * then finds nothing (EINVAL, the listener stopped); hand-overs after the
 * shutdown fail in the thread and are reset there. */
static void drop_backlog(ucompat_sock *lis, int fd) {
  for (;;) {
    uint32_t id[2];
    int nfd;
    ssize_t n = recv_handover(lis, fd, MSG_DONTWAIT | MSG_CMSG_CLOEXEC, id,
                              &nfd);
    if (nfd >= 0) {
      ucompat_libc.close(nfd);
    }
    if (n <= 0) {
      return;
    }
  }
}

EXPORT int shutdown(int fd, int how) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(ucompat_libc.shutdown)(fd, how);
  }
  if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR) {
    return fail(EINVAL);
  }
  int st = state_of(cs);
  if (st == UCOMPAT_NEW || st == UCOMPAT_CLOSED) {
    return fail(ENOTCONN); /* Linux inet_shutdown() in state CLOSED */
  }
  if (st == UCOMPAT_LISTENING) {
    /* Linux's inet_shutdown(): SHUT_RD (or RDWR) on a listener stops it
     * and wakes a thread blocked in accept(), which fails with EINVAL, as
     * every later accept() does: how servers stop their accept threads.
     * Our end of the pair shut for reading gives just that (do_accept()
     * reads end of file); the thread's later hand-overs fail and reset
     * their connections. */
    if (how == SHUT_WR) {
      return 0;
    }
    pthread_mutex_lock(&ucompat_mu);
    cs->lis_shut = 1;
    pthread_mutex_unlock(&ucompat_mu);
    int rv = ucompat_libc.shutdown(fd, SHUT_RD);
    drop_backlog(cs, fd);
    return rv;
  }
  /* As Linux's DCCP: nothing goes on the wire (dccp_shutdown() does
   * nothing; DCCP closes whole connections, close() does).  SHUT_WR makes
   * later sends fail with EPIPE; SHUT_RD makes reads return 0 once the
   * queued datagrams are read (the thread's later ones are dropped). */
  if (how != SHUT_RD) {
    cs->wr_shut = 1;
  }
  if (how != SHUT_WR) {
    return ucompat_libc.shutdown(fd, SHUT_RD);
  }
  return 0;
}

EXPORT int close(int fd) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(ucompat_libc.close)(fd);
  }
  int abort_conn = 0;
  if (cs->refs == 1 && cs->owned) {
    int unread = 0;
    struct linger lg;
    socklen_t ll = sizeof(lg);
    if ((REAL(real_ioctl)(fd, FIONREAD, &unread) == 0 && unread > 0) ||
        (ucompat_libc.getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &ll) == 0 &&
         lg.l_onoff && lg.l_linger == 0)) {
      abort_conn = 1;
    }
  }
  pthread_mutex_lock(&ucompat_mu);
  atomic_store_explicit(&g_fd[fd], NULL, memory_order_release);
  int rv = ucompat_libc.close(fd);
  if (abort_conn && cs->svc_fd >= 0 && peer_hup(cs->svc_fd)) {
    cs->abort_req = 1;
  }
  int e = errno;
  if (cs->refs == 1 && cs->owned && !cs->thread_done && cs->us != NULL &&
      cs->svc_fd >= 0 && peer_hup(cs->svc_fd)) {
    /* The last descriptor anywhere: the kernel would finish sending and
     * closing after close() returned, but this process may exit at once.
     * Give the thread a bounded time to drain and close. */
    struct timespec dl;
    deadline_in(&dl, UCOMPAT_CLOSE_WAIT_MS);
    pthread_cond_broadcast(&ucompat_cv);
    while (!cs->thread_done) {
      if (deadline_wait(&dl) == ETIMEDOUT) {
        break;
      }
    }
  }
  if (--cs->refs == 0) {
    ucompat_svc_release(cs);
  }
  pthread_mutex_unlock(&ucompat_mu);
  errno = e;
  return rv;
}

static void ucompat_fini(void) {
  /* exit() without close(): close the connections this process drives so
   * their data and the close handshake go out. */
  for (int fd = 0; fd < UCOMPAT_MAX_FDS; fd++) {
    ucompat_sock *cs = lookup(fd);
    if (cs != NULL && cs->owned && cs->us != NULL) {
      close(fd);
    }
  }
}

/* ------------------------------------------------------------ dup */

static int dup_map(int oldfd, int newfd, int rv) {
  if (rv < 0) {
    return rv;
  }
  pthread_mutex_lock(&ucompat_mu);
  ucompat_sock *old = lookup(newfd);
  if (old != NULL) {
    unmap_fd(newfd, old); /* dup2() closed it */
  }
  ucompat_sock *cs = lookup(oldfd);
  if (cs != NULL && newfd < UCOMPAT_MAX_FDS) {
    map_fd(newfd, cs);
  }
  pthread_mutex_unlock(&ucompat_mu);
  return rv;
}

EXPORT int dup(int fd) {
  int rv = REAL(real_dup)(fd);
  if (lookup(fd) == NULL) {
    return rv;
  }
  return dup_map(fd, rv, rv);
}

EXPORT int dup2(int fd, int nfd) {
  int rv = REAL(real_dup2)(fd, nfd);
  if (lookup(fd) == NULL && lookup(nfd) == NULL) {
    return rv;
  }
  return fd == nfd ? rv : dup_map(fd, nfd, rv);
}

EXPORT int dup3(int fd, int nfd, int flags) {
  int rv = REAL(real_dup3)(fd, nfd, flags);
  if (lookup(fd) == NULL && lookup(nfd) == NULL) {
    return rv;
  }
  return dup_map(fd, nfd, rv);
}

static int fcntl_common(int (*fn)(int, int, ...), int fd, int cmd,
                        void *arg) {
  int rv = fn(fd, cmd, arg);
  if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && rv >= 0 &&
      lookup(fd) != NULL) {
    return dup_map(fd, rv, rv);
  }
  return rv;
}

EXPORT int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return fcntl_common(REAL(real_fcntl), fd, cmd, arg);
}

EXPORT int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  ucompat_init_real();
  return fcntl_common(real_fcntl64 != NULL ? real_fcntl64 : real_fcntl, fd,
                      cmd, arg);
}

EXPORT int ioctl(int fd, unsigned long req, ...) {
  va_list ap;
  va_start(ap, req);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  ucompat_sock *cs = lookup(fd);
  if (cs != NULL && (req == FIONREAD || req == SIOCOUTQ)) {
    /* Linux dccp_ioctl(): ENOTCONN on a listener.  Otherwise the pair
     * answers as DCCP does: FIONREAD is the next datagram's length,
     * SIOCOUTQ the bytes not yet taken by the send queue. */
    if (state_of(cs) == UCOMPAT_LISTENING) {
      return fail(ENOTCONN);
    }
  }
  return REAL(real_ioctl)(fd, req, arg);
}

/* ------------------------------------------------------------ names */

EXPORT int getsockname(int fd, struct sockaddr *sa, socklen_t *len) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_getsockname)(fd, sa, len);
  }
  if (sa == NULL || len == NULL) {
    return fail(EFAULT);
  }
  int st = state_of(cs);
  ucompat_stat snap;
  memset(&snap, 0, sizeof(snap));
  if (ucompat_slot_valid(cs) && st != UCOMPAT_NEW) {
    ucompat_snap_read(cs, &snap);
  }
  if (snap.locallen == 0) {
    if (cs->boundlen != 0) {
      memcpy(&snap.local, &cs->bound, cs->boundlen);
      snap.locallen = cs->boundlen;
    } else {
      snap.local.ss_family = (sa_family_t)cs->family;
      snap.locallen = cs->family == AF_INET ? sizeof(struct sockaddr_in)
                                            : sizeof(struct sockaddr_in6);
    }
  }
  fill_addr(&snap.local, snap.locallen, sa, len);
  return 0;
}

EXPORT int getpeername(int fd, struct sockaddr *sa, socklen_t *len) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(real_getpeername)(fd, sa, len);
  }
  if (state_of(cs) != UCOMPAT_OPEN) {
    return fail(ENOTCONN);
  }
  if (sa == NULL || len == NULL) {
    return fail(EFAULT);
  }
  ucompat_stat snap;
  ucompat_snap_read(cs, &snap);
  fill_addr(&snap.peer, snap.peerlen, sa, len);
  return 0;
}

/* ------------------------------------------------------------ options */

EXPORT int getsockopt(int fd, int level, int name, void *val,
                      socklen_t *len) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(ucompat_libc.getsockopt)(fd, level, name, val, len);
  }
  if (level == SOL_SOCKET && name == SO_ERROR && state_of(cs) ==
                                                     UCOMPAT_CONNECTING) {
    /* A non-blocking connect(): the pair is writable at once, so the
     * program asks SO_ERROR early; answer with the handshake's outcome. */
    wait_connected(cs);
  }
  if (level == SOL_SOCKET && name == SO_ERROR && val != NULL && len != NULL &&
      *len >= sizeof(int)) {
    int e = take_err(cs);
    memcpy(val, &e, sizeof(int));
    *len = sizeof(int);
    return 0;
  }
  return ucompat_getsockopt(cs, fd, level, name, val, len);
}

EXPORT int setsockopt(int fd, int level, int name, const void *val,
                      socklen_t len) {
  ucompat_sock *cs = lookup(fd);
  if (cs == NULL) {
    return REAL(ucompat_libc.setsockopt)(fd, level, name, val, len);
  }
  return ucompat_setsockopt(cs, fd, level, name, val, len);
}

int ucompat_state(const ucompat_sock *cs);
int ucompat_state(const ucompat_sock *cs) { return state_of(cs); }

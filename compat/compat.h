/* SPDX-License-Identifier: MIT */
/*
 * libudccp-preload: internals shared by the interposed calls (preload.c),
 * the SOL_DCCP options (sockopt.c) and the service thread (svc.c).
 * See doc/preload.md for the design and its limits.
 *
 * Every socket the program opens with socket(AF_INET[6], SOCK_DCCP, 0|33)
 * is one end of socketpair(AF_UNIX, SOCK_SEQPACKET): a real descriptor on
 * which poll, select, epoll and blocking calls work, and which keeps
 * datagram boundaries.  A per-process service thread holds the other end
 * and one udccp connection per socket, and moves datagrams between them.
 */
#ifndef UDCCP_COMPAT_H
#define UDCCP_COMPAT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <udccp/udccp.h>

#define UCOMPAT_MAX_FDS 65536
#define UCOMPAT_NSLOTS 2048
#define UCOMPAT_MAX_SC 32 /* service codes on a listener, as Linux */
#define UCOMPAT_PRIO_HDR 4 /* prio qpolicy: app -> thread header bytes */

/* What a socket is doing (the application's view). */
enum {
  UCOMPAT_NEW = 0,    /* socket() done, neither connect() nor listen() */
  UCOMPAT_CONNECTING, /* handshake under way */
  UCOMPAT_OPEN,       /* data may flow */
  UCOMPAT_LISTENING,
  UCOMPAT_CLOSED      /* closed by the peer, reset, or failed to connect */
};

/* Status of a socket, in memory shared with forked children (MAP_SHARED):
 * a child that inherited the descriptor sees what the parent's thread
 * learns.  One writer (the owning thread); readers use atomics and the
 * seqlock around the snapshot. */
typedef struct ucompat_stat {
  _Atomic uint32_t gen;   /* odd while in use; a new use bumps it */
  _Atomic int state;      /* UCOMPAT_* */
  _Atomic int err;        /* pending socket error (SO_ERROR); consumed */
  _Atomic uint32_t mps;   /* current MPS payload, 0 if not connected */
  _Atomic uint32_t pending; /* listener: connections handed to the program
                               and not yet accept()ed (its backlog) */
  _Atomic uint32_t accepted; /* a connection a listener handed over: 1 once
                               the program accept()ed it (preload.c); one
                               never accepted is reset when the listener's
                               end goes (svc.c) */
  _Atomic uint32_t seq;   /* seqlock over the fields below */
  struct sockaddr_storage local, peer;
  socklen_t locallen, peerlen;
  udccp_conn_info info;   /* snapshot, refreshed by the thread */
} ucompat_stat;

/* One socket object; several descriptors (dup) may refer to it. */
typedef struct ucompat_sock ucompat_sock;
struct ucompat_sock {
  int refs;           /* descriptors of this process mapped to it */
  int family;         /* AF_INET or AF_INET6 */
  int owned;          /* 1: this process's thread drives it (0 in a child) */
  int slot;
  uint32_t gen;
  ucompat_stat *st;
  /* options, set before connect()/listen() (sockopt.c) */
  uint32_t sc[UCOMPAT_MAX_SC]; /* service codes, host order */
  size_t nsc;
  uint8_t tx_ccid, rx_ccid;    /* 0: default */
  uint8_t send_cscov, recv_cscov;
  uint8_t qpolicy;             /* enum udccp_qpolicy */
  uint8_t server_timewait;
  uint32_t txqlen;             /* 0: default */
  uint8_t is_server;           /* accepted connection */
  uint8_t wr_shut;             /* shutdown(SHUT_WR): sends fail with EPIPE */
  uint8_t lis_shut;            /* a listener stopped by shutdown(SHUT_RD):
                                  Linux's inet_shutdown() disconnected it,
                                  and listen() starts it anew */
  uint8_t connect_pending;     /* a connect() started a handshake whose
                                  outcome no connect() reported yet
                                  (Linux: sock->state SS_CONNECTING) */
  uint32_t gate;               /* datagrams the program's end wrote to itself
                                  during a non-blocking connect(): they keep
                                  it from polling writable until the thread
                                  reads them, when the handshake is over
                                  (preload.c gate_close, svc.c gate_open) */
  struct sockaddr_storage bound;
  socklen_t boundlen;
  /* the thread's side (svc.c); valid while owned */
  int svc_fd;                  /* our end of the pair, -1 if none */
  int in_epoll;
  uint32_t ev;                 /* events registered */
  udccp_endpoint *ep;
  udccp_sock *us;
  uint16_t lport;              /* listening DCCP port */
  uint32_t backlog;            /* listener: listen()'s backlog, clamped */
  uint8_t app_eof, thread_done, shut_sent;
  uint8_t abort_req;           /* closed with linger 0 or unread data */
  uint8_t *pend;               /* datagram waiting for room towards the app */
  size_t pendlen;
  int has_pend;
  /* UDCCP_MULTIPATH (svc.c): the connection is a udccp_mpsock and us its
   * first subflow */
  udccp_mpsock *mp;
  uint8_t mp_active;           /* Multipath DCCP agreed (else fallen back) */
  uint8_t mp_rx_end;           /* every subflow done and everything read */
  uint64_t mp_sent;            /* datagrams handed to udccp_mpsock_send */
  uint8_t *opend;              /* datagram waiting for room towards udccp */
  size_t opendlen;
  int has_opend;
  ucompat_sock *next;          /* the thread's list */
};

/* The real C library calls (preload.c). */
typedef struct ucompat_real {
  int (*socket)(int, int, int);
  int (*socketpair)(int, int, int, int[2]);
  int (*close)(int);
  ssize_t (*sendmsg)(int, const struct msghdr *, int);
  ssize_t (*recvmsg)(int, struct msghdr *, int);
  int (*shutdown)(int, int);
  int (*getsockopt)(int, int, int, void *, socklen_t *);
  int (*setsockopt)(int, int, int, const void *, socklen_t);
} ucompat_real;

extern ucompat_real ucompat_libc;
extern pthread_mutex_t ucompat_mu;
extern pthread_cond_t ucompat_cv;

void ucompat_init_real(void);

/* Service thread (svc.c); called with ucompat_mu held unless noted. */
int ucompat_svc_connect(ucompat_sock *cs, const struct sockaddr *sa,
                        socklen_t len);
int ucompat_svc_listen(ucompat_sock *cs, int backlog);
/* A socket object this process created (by slot), or NULL. */
ucompat_sock *ucompat_svc_by_slot(int slot, uint32_t gen);
/* The application dropped its last descriptor of cs in this process. */
void ucompat_svc_release(ucompat_sock *cs);
/* Refreshes the snapshot of cs now (getsockopt of the CCID info). */
void ucompat_svc_refresh(ucompat_sock *cs);
/* connect() again after a failed handshake: the thread's side of cs
 * (finished) starts afresh on svc_fd, its new end of the pair. */
void ucompat_svc_renew(ucompat_sock *cs, int svc_fd);
/* connect(AF_UNSPEC), Linux's dccp_disconnect(): aborts the connection
 * or handshake (Reset "Aborted"), or stops the listener, and the thread
 * lets go of cs (state UCOMPAT_CLOSED, its end of the pair closed; the
 * caller gives cs a new pair with ucompat_svc_renew).  Returns the error
 * the socket reports next: ECONNRESET if a connection or handshake was
 * cut, else the one pending. */
int ucompat_svc_disconnect(ucompat_sock *cs);
/* Applies SERVER_TIMEWAIT to a live connection. */
int ucompat_svc_set_timewait(ucompat_sock *cs, int on);
/* After fork, in the child: the parent's sockets keep working through the
 * parent's thread; this process starts afresh for new ones. */
void ucompat_svc_atfork_child(void);

/* Shared status slots. */
int ucompat_slot_alloc(ucompat_sock *cs);
void ucompat_slot_free(ucompat_sock *cs);
ucompat_stat *ucompat_slot_get(int slot);
/* 1 if cs's slot still describes cs (not reused after the connection
 * ended in the process that owned it). */
int ucompat_slot_valid(const ucompat_sock *cs);
void ucompat_snap_read(const ucompat_sock *cs, ucompat_stat *out);

/* Kernel errno for a dead udccp connection. */
int ucompat_errno_of(int udccp_err, int reset_code);

/* SOL_DCCP options (sockopt.c).  Return 0 or -1 with errno. */
int ucompat_getsockopt(ucompat_sock *cs, int fd, int level, int name,
                       void *val, socklen_t *len);
int ucompat_setsockopt(ucompat_sock *cs, int fd, int level, int name,
                       const void *val, socklen_t len);

#endif /* UDCCP_COMPAT_H */

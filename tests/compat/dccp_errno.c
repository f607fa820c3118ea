/* SPDX-License-Identifier: MIT */
/*
 * Error numbers and options of DCCP sockets as the Linux kernel gave them,
 * written against <linux/dccp.h> alone (run under libudccp-preload by
 * tests/compat_preload.sh).  One process is both server and client.
 *
 *   dccp_errno PORT [noconn]
 *
 * PORT is the listener's DCCP port; "noconn" also checks ECONNREFUSED for
 * a port nobody listens on (needs a DCCP stack answering for every port,
 * as DCCP-UDP does; over raw IP nobody answers for unowned ports).
 * Prints one line per check and "PASS" at the end, or "FAIL: ..." (exit 1).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/dccp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_DCCP
#define SOL_DCCP 269
#endif

static int g_port;

static void fail(const char *what, int want, int got) {
  printf("FAIL: %s: want errno %d (%s), got %d (%s)\n", what, want,
         strerror(want), got, strerror(got));
  exit(1);
}

/* rv must be -1 with errno want. */
static void expect(const char *what, long rv, int want) {
  if (rv != -1 || errno != want) {
    fail(what, want, rv == -1 ? errno : 0);
  }
  printf("ok %-44s %s\n", what, strerror(want));
}

static void ok(const char *what, int cond) {
  if (!cond) {
    printf("FAIL: %s (errno %d: %s)\n", what, errno, strerror(errno));
    exit(1);
  }
  printf("ok %s\n", what);
}

static int dccp_socket(uint32_t service) {
  int fd = socket(AF_INET, SOCK_DCCP, IPPROTO_DCCP);
  uint32_t sc = htonl(service);
  ok("socket(AF_INET, SOCK_DCCP, IPPROTO_DCCP)", fd >= 0);
  if (setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_SERVICE, &sc, sizeof(sc)) != 0) {
    ok("setsockopt SERVICE", 0);
  }
  return fd;
}

static struct sockaddr_in addr(int port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

static int connect_to(int port, uint32_t service) {
  int fd = dccp_socket(service);
  struct sockaddr_in a = addr(port);
  if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
    return -1 - 0 * close(fd);
  }
  return fd;
}

static int accept_one(int lis) {
  struct pollfd p = {lis, POLLIN, 0};
  ok("listener polls readable on a new connection", poll(&p, 1, 5000) == 1);
  int c = accept(lis, NULL, NULL);
  ok("accept", c >= 0);
  return c;
}

static void wait_hup(int fd) {
  struct pollfd p = {fd, POLLIN, 0};
  ok("poll reports the Reset (POLLHUP)",
     poll(&p, 1, 5000) == 1 && (p.revents & POLLHUP));
}

/* The server end aborts: zero linger time, as Linux's dccp_close() turns
 * into Reset "Aborted" (RFC 4340 §5.6). */
static void abort_conn(int fd) {
  struct linger lg = {1, 0};
  ok("SO_LINGER 0", setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg,
                               sizeof(lg)) == 0);
  close(fd);
}

/* datagram `what` sent on a arrives on b */
static int crosses(int a, int b, const char *what) {
  char buf[64];
  size_t n = strlen(what);
  struct pollfd p = {b, POLLIN, 0};
  return send(a, what, n, 0) == (ssize_t)n && poll(&p, 1, 5000) == 1 &&
         recv(b, buf, sizeof(buf), 0) == (ssize_t)n &&
         memcmp(buf, what, n) == 0;
}

/* connect() to an AF_UNSPEC address disconnects the socket (Linux
 * __inet_stream_connect() -> dccp_disconnect()) and returns 0: a
 * connection or handshake is aborted (Reset "Aborted", RFC 4340 §5.6;
 * ECONNRESET is the socket's next error), a listener stops, and the socket
 * is unconnected again: connect() and listen() work on it anew.  lis
 * listens on g_port (service code 42); port g_port + 2 is free. */
static void disconnect_checks(int lis, int noconn) {
  struct sockaddr un;
  memset(&un, 0, sizeof(un));
  un.sa_family = AF_UNSPEC;
  struct sockaddr_in la = addr(g_port);
  char huge[256];
  memset(huge, 0, sizeof(huge));
  memcpy(huge, &la, sizeof(la));
  int ds = dccp_socket(42);
  expect("connect with a 1-byte address: EINVAL", connect(ds, &un, 1),
         EINVAL);
  expect("connect with a 256-byte address: EINVAL",
         connect(ds, (struct sockaddr *)huge, sizeof(huge)), EINVAL);
  ok("connect AF_UNSPEC on a new socket: 0",
     connect(ds, &un, sizeof(un)) == 0);
  expect("... and recv: ENOTCONN (no error pending)",
         recv(ds, huge, sizeof(huge), MSG_DONTWAIT), ENOTCONN);
  ok("the socket connects afterwards",
     connect(ds, (struct sockaddr *)&la, sizeof(la)) == 0);
  int as = accept_one(lis);
  ok("a datagram crosses", crosses(ds, as, "before"));
  ok("connect AF_UNSPEC on the connected socket: 0",
     connect(ds, &un, sizeof(un)) == 0);
  wait_hup(as);
  int err = 0;
  socklen_t el = sizeof(err);
  ok("the peer's SO_ERROR is ECONNRESET (Reset \"Aborted\")",
     getsockopt(as, SOL_SOCKET, SO_ERROR, &err, &el) == 0 &&
         err == ECONNRESET);
  close(as);
  expect("send after the disconnect: ECONNRESET", send(ds, "x", 1, 0),
         ECONNRESET);
  expect("send again: EPIPE", send(ds, "x", 1, 0), EPIPE);
  expect("recv after the disconnect: ENOTCONN",
         recv(ds, huge, sizeof(huge), MSG_DONTWAIT), ENOTCONN);
  struct sockaddr_in pa;
  socklen_t pl = sizeof(pa);
  expect("getpeername after the disconnect: ENOTCONN",
         getpeername(ds, (struct sockaddr *)&pa, &pl), ENOTCONN);
  ok("the disconnected socket connects again",
     connect(ds, (struct sockaddr *)&la, sizeof(la)) == 0);
  as = accept_one(lis);
  ok("a datagram crosses the new connection", crosses(ds, as, "again") &&
                                                  crosses(as, ds, "back"));
  close(as);
  close(ds);

  /* a handshake cut short: ECONNRESET next, as Linux in REQUESTING */
  int l2 = dccp_socket(42);
  struct sockaddr_in l2a = addr(g_port + 2);
  /* SO_REUSEADDR, as a server that listens again sets it: Linux keeps the
   * connections the listener made (the handshake cut short below, its
   * children in TIMEWAIT) in the port's bind bucket, and without it the
   * second listen() conflicts with them (EADDRINUSE, seen on 6.1) */
  int one = 1;
  ok("second listener, service code 42",
     setsockopt(l2, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
         bind(l2, (struct sockaddr *)&l2a, sizeof(l2a)) == 0 &&
         listen(l2, 4) == 0);
  int nb = dccp_socket(42);
  fcntl(nb, F_SETFL, fcntl(nb, F_GETFL) | O_NONBLOCK);
  expect("non-blocking connect: EINPROGRESS",
         connect(nb, (struct sockaddr *)&l2a, sizeof(l2a)), EINPROGRESS);
  ok("connect AF_UNSPEC during the handshake: 0",
     connect(nb, &un, sizeof(un)) == 0);
  expect("send after it: ECONNRESET", send(nb, "x", 1, 0), ECONNRESET);
  close(nb);

  /* a listener stops, and listens again */
  ok("connect AF_UNSPEC on the listener: 0",
     connect(l2, &un, sizeof(un)) == 0);
  fcntl(l2, F_SETFL, fcntl(l2, F_GETFL) | O_NONBLOCK);
  expect("accept on the stopped listener: EINVAL", accept(l2, NULL, NULL),
         EINVAL);
  if (noconn) {
    expect("connect to the stopped listener: ECONNREFUSED",
           connect_to(g_port + 2, 42), ECONNREFUSED);
  }
  fcntl(l2, F_SETFL, fcntl(l2, F_GETFL) & ~O_NONBLOCK);
  ok("listen again on the same socket", listen(l2, 4) == 0);
  int c2 = connect_to(g_port + 2, 42);
  ok("connect to it", c2 >= 0);
  int a2 = accept_one(l2);
  ok("a datagram crosses", crosses(c2, a2, "relisten"));
  close(a2);
  close(c2);
  close(l2);
}

/* A listener stops with a connection in its backlog (connected, not
 * accept()ed): Linux's inet_csk_listen_stop() disconnects the child and
 * dccp_disconnect() sends Reset "Aborted" (RFC 4340 §5.6, code 2), so the
 * client's error is ECONNRESET (a Close would leave it 0).  The three
 * ways a listener stops: close(), connect(AF_UNSPEC), shutdown(SHUT_RD).
 * A listener stopped by shutdown() is CLOSED (inet_shutdown() calls
 * dccp_disconnect()) and connects like a new socket
 * (__inet_stream_connect() in SS_UNCONNECTED, TCP_CLOSE).  lis listens on
 * g_port (service code 42); port g_port + 3 is free. */
static void listener_stop_checks(int lis) {
  static const char *const how[3] = {"close()", "connect(AF_UNSPEC)",
                                     "shutdown(SHUT_RD)"};
  struct sockaddr un;
  struct sockaddr_in la = addr(g_port), l3a = addr(g_port + 3);
  char what[96];
  memset(&un, 0, sizeof(un));
  un.sa_family = AF_UNSPEC;
  for (int k = 0; k < 3; k++) {
    int one = 1, l = dccp_socket(42);
    snprintf(what, sizeof(what), "a listener to stop by %s", how[k]);
    ok(what, setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
                 bind(l, (struct sockaddr *)&l3a, sizeof(l3a)) == 0 &&
                 listen(l, 4) == 0);
    int c = connect_to(g_port + 3, 42);
    ok("connect (the connection waits in the backlog)", c >= 0);
    struct pollfd p = {l, POLLIN, 0};
    ok("the listener polls readable", poll(&p, 1, 5000) == 1);
    snprintf(what, sizeof(what), "%s of the listener", how[k]);
    if (k == 0) {
      ok(what, close(l) == 0);
    } else if (k == 1) {
      ok(what, connect(l, &un, sizeof(un)) == 0);
    } else {
      ok(what, shutdown(l, SHUT_RD) == 0);
    }
    wait_hup(c);
    int err = 0;
    socklen_t el = sizeof(err);
    ok("the backlog's connection is reset: SO_ERROR ECONNRESET",
       getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &el) == 0 &&
           err == ECONNRESET);
    close(c);
    if (k == 2) {
      ok("the listener stopped by shutdown() connects",
         connect(l, (struct sockaddr *)&la, sizeof(la)) == 0);
      int s = accept_one(lis);
      ok("a datagram crosses", crosses(l, s, "from a listener"));
      ok("and back", crosses(s, l, "to a listener"));
      close(s);
    }
    if (k != 0) {
      close(l);
    }
  }
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2) {
    fprintf(stderr, "usage: dccp_errno PORT [noconn]\n");
    return 2;
  }
  g_port = atoi(argv[1]);
  char buf[4096];

  /* --- a socket that is not connected (Linux dccp_recvmsg/sendmsg) */
  int fd = dccp_socket(42);
  expect("recv on an unconnected socket: ENOTCONN",
         recv(fd, buf, sizeof(buf), MSG_DONTWAIT), ENOTCONN);
  struct sockaddr_in pa;
  socklen_t pl = sizeof(pa);
  expect("shutdown unconnected: ENOTCONN", shutdown(fd, SHUT_WR), ENOTCONN);
  expect("getpeername unconnected: ENOTCONN",
         getpeername(fd, (struct sockaddr *)&pa, &pl), ENOTCONN);
  expect("send unconnected: EPIPE (sk_stream_wait_connect)",
         send(fd, "x", 1, MSG_DONTWAIT), EPIPE);
  uint8_t bad = 99;
  expect("setsockopt CCID 99: EINVAL",
         setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_CCID, &bad, 1), EINVAL);
  int one = 1;
  expect("SERVER_TIMEWAIT on a client: EOPNOTSUPP",
         setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_SERVER_TIMEWAIT, &one,
                    sizeof(one)),
         EOPNOTSUPP);
  int v = 16;
  expect("SEND_CSCOV 16: EINVAL",
         setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_SEND_CSCOV, &v, sizeof(v)),
         EINVAL);
  uint8_t ccids[8];
  socklen_t cl = sizeof(ccids);
  ok("AVAILABLE_CCIDS lists 2 and 3",
     getsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_AVAILABLE_CCIDS, ccids, &cl) == 0 &&
         cl >= 2 && ccids[0] == 2 && ccids[1] == 3);
  /* issue 17: the experimental CCIDs (RFC 4340 §10: 248..255) udccp
   * registers by default, BBR 248 and CUBIC 249, are listed and taken.
   * The kernel has none (interop/compat.sh runs this program there too):
   * 248 is an unknown CCID to it, as 99 is. */
  const char *preload = getenv("LD_PRELOAD");
  uint8_t exp_pref[2] = {248, 249};
  if (preload != NULL && strstr(preload, "udccp") != NULL) {
    int has248 = 0, has249 = 0;
    for (socklen_t i = 0; i < cl; i++) {
      has248 |= ccids[i] == 248;
      has249 |= ccids[i] == 249;
    }
    ok("AVAILABLE_CCIDS lists 248 (BBR) and 249 (CUBIC)", has248 && has249);
    ok("setsockopt CCID 248, 249 accepted",
       setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_CCID, exp_pref, 2) == 0);
    uint8_t unreg = 250;
    expect("setsockopt CCID 250 (not registered): EINVAL",
           setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_CCID, &unreg, 1), EINVAL);
  } else {
    printf("(not under libudccp-preload: the kernel's CCIDs only)\n");
    expect("setsockopt CCID 248 (the kernel has none): EINVAL",
           setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_CCID, exp_pref, 1), EINVAL);
  }
  close(fd);

  /* --- the listener: service codes 42 and 7 (RFC 5595 §4) */
  int lis = socket(AF_INET, SOCK_DCCP, 0);
  uint32_t scl[2] = {htonl(42), htonl(7)};
  ok("listener SERVICE list",
     setsockopt(lis, SOL_DCCP, DCCP_SOCKOPT_SERVICE, scl, sizeof(scl)) == 0);
  struct sockaddr_in la = addr(g_port);
  int reuse = 1; /* it listens again at the end (see l2 above) */
  ok("bind + listen",
     setsockopt(lis, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse)) == 0 &&
         bind(lis, (struct sockaddr *)&la, sizeof(la)) == 0 &&
         listen(lis, 4) == 0);
  uint32_t got[4];
  socklen_t gl = sizeof(got);
  ok("getsockopt SERVICE returns both codes",
     getsockopt(lis, SOL_DCCP, DCCP_SOCKOPT_SERVICE, got, &gl) == 0 &&
         gl == 8 && got[0] == htonl(42) && got[1] == htonl(7));
  expect("recv on a listener: ENOTCONN", recv(lis, buf, 1, MSG_DONTWAIT),
         ENOTCONN);
  int nread = 0;
  expect("FIONREAD on a listener: ENOTCONN", ioctl(lis, FIONREAD, &nread),
         ENOTCONN);
  fcntl(lis, F_SETFL, O_NONBLOCK);
  expect("accept with nothing pending (O_NONBLOCK): EAGAIN",
         accept(lis, NULL, NULL), EAGAIN);

  /* --- refusals */
  expect("connect, wrong service code: EBADRQC (Linux's mapping)",
         connect_to(g_port, 43), EBADRQC);
  {
    /* A non-blocking connect's outcome learnt by calling connect() again
     * (Linux __inet_stream_connect(): the socket's error, once). */
    int nb = dccp_socket(43);
    struct sockaddr_in na = addr(g_port);
    fcntl(nb, F_SETFL, fcntl(nb, F_GETFL) | O_NONBLOCK);
    expect("non-blocking connect: EINPROGRESS",
           connect(nb, (struct sockaddr *)&na, sizeof(na)), EINPROGRESS);
    struct pollfd np = {nb, POLLOUT, 0};
    ok("poll for the handshake's end", poll(&np, 1, 5000) == 1);
    /* poll says writable at once under the preload: EALREADY until the
     * handshake's end, as Linux while it lasts */
    int crv = -1;
    for (int i = 0; i < 100; i++) {
      crv = connect(nb, (struct sockaddr *)&na, sizeof(na));
      if (crv == 0 || errno != EALREADY) {
        break;
      }
      usleep(50000);
    }
    expect("connect again after the refusal: EBADRQC", crv, EBADRQC);
    /* The refusal told, the socket is unconnected again (Linux:
     * SS_UNCONNECTED, TCP_CLOSE): connect() starts a new handshake (it
     * was ECONNABORTED for ever under the preload). */
    expect("connect once more: EINPROGRESS (a new handshake)",
           connect(nb, (struct sockaddr *)&na, sizeof(na)), EINPROGRESS);
    for (int i = 0; i < 100; i++) {
      crv = connect(nb, (struct sockaddr *)&na, sizeof(na));
      if (crv == 0 || errno != EALREADY) {
        break;
      }
      usleep(50000);
    }
    expect("... refused again: EBADRQC", crv, EBADRQC);
    close(nb);
  }
  {
    /* Linux dccp_v4_connect(): an address too short for a sockaddr_in is
     * EINVAL, an IPv6 one on an AF_INET socket EAFNOSUPPORT (the preload
     * said EAFNOSUPPORT to the first and connected over IPv6 for the
     * second); the socket stays usable. */
    int bs = dccp_socket(42);
    struct sockaddr_in ba = addr(g_port);
    expect("connect with a short address: EINVAL",
           connect(bs, (struct sockaddr *)&ba, 8), EINVAL);
    struct sockaddr_in6 b6 = {.sin6_family = AF_INET6,
                              .sin6_port = htons(g_port)};
    b6.sin6_addr.s6_addr[15] = 1; /* ::1 */
    expect("connect an AF_INET socket to an IPv6 address: EAFNOSUPPORT",
           connect(bs, (struct sockaddr *)&b6, sizeof(b6)), EAFNOSUPPORT);
    ok("connect the same socket properly",
       connect(bs, (struct sockaddr *)&ba, sizeof(ba)) == 0);
    close(accept_one(lis));
    close(bs);
  }
  {
    /* The same with a blocking socket, and a retry that succeeds on the
     * same descriptor once the right service code is set. */
    int rs = dccp_socket(43);
    struct sockaddr_in ra = addr(g_port);
    expect("blocking connect, wrong service code: EBADRQC",
           connect(rs, (struct sockaddr *)&ra, sizeof(ra)), EBADRQC);
    expect("connect again: a new handshake, EBADRQC",
           connect(rs, (struct sockaddr *)&ra, sizeof(ra)), EBADRQC);
    uint32_t sc42 = htonl(42);
    ok("SERVICE set to the listener's code after the failures",
       setsockopt(rs, SOL_DCCP, DCCP_SOCKOPT_SERVICE, &sc42,
                  sizeof(sc42)) == 0);
    ok("connect on the same descriptor succeeds",
       connect(rs, (struct sockaddr *)&ra, sizeof(ra)) == 0);
    int as = accept_one(lis);
    struct pollfd ap = {as, POLLIN, 0};
    ok("a datagram crosses the retried connection",
       send(rs, "retry", 5, 0) == 5 && poll(&ap, 1, 5000) == 1 &&
           recv(as, buf, sizeof(buf), 0) == 5 && memcmp(buf, "retry", 5) == 0);
    expect("connect when connected: EISCONN",
           connect(rs, (struct sockaddr *)&ra, sizeof(ra)), EISCONN);
    close(as);
    close(rs);
  }
  {
    /* A non-blocking connect that succeeds: connect() again says 0 once
     * (Linux's __inet_stream_connect() leaving SS_CONNECTING), then
     * EISCONN. */
    int ns = dccp_socket(42);
    struct sockaddr_in sa2 = addr(g_port);
    fcntl(ns, F_SETFL, fcntl(ns, F_GETFL) | O_NONBLOCK);
    expect("non-blocking connect (right code): EINPROGRESS",
           connect(ns, (struct sockaddr *)&sa2, sizeof(sa2)), EINPROGRESS);
    int crv = -1;
    for (int i = 0; i < 100; i++) {
      crv = connect(ns, (struct sockaddr *)&sa2, sizeof(sa2));
      if (crv == 0 || errno != EALREADY) {
        break;
      }
      usleep(50000);
    }
    ok("connect again once the handshake is over: 0", crv == 0);
    expect("and then: EISCONN",
           connect(ns, (struct sockaddr *)&sa2, sizeof(sa2)), EISCONN);
    int as = accept_one(lis);
    close(as);
    close(ns);
  }
  if (argc > 2 && strcmp(argv[2], "noconn") == 0) {
    expect("connect, nobody listening: ECONNREFUSED",
           connect_to(g_port + 1, 42), ECONNREFUSED);
  }
  disconnect_checks(lis, argc > 2 && strcmp(argv[2], "noconn") == 0);
  listener_stop_checks(lis);

  /* --- a connection on the second code: EMSGSIZE, EAGAIN */
  int c = connect_to(g_port, 7);
  ok("connect with the listener's second service code", c >= 0);
  int s = accept_one(lis);
  int mps = 0;
  socklen_t ml = sizeof(mps);
  ok("GET_CUR_MPS", getsockopt(c, SOL_DCCP, DCCP_SOCKOPT_GET_CUR_MPS, &mps,
                               &ml) == 0 && mps > 500 && mps < 65536);
  char *big = calloc(1, (size_t)mps + 1);
  expect("send above the MPS: EMSGSIZE", send(c, big, (size_t)mps + 1, 0),
         EMSGSIZE);
  ok("send of exactly the MPS", send(c, big, (size_t)mps, 0) == mps);
  struct pollfd sp = {s, POLLIN, 0};
  ok("the MPS-sized datagram arrives whole",
     poll(&sp, 1, 5000) == 1 && recv(s, big, (size_t)mps + 1, 0) == mps);
  ok("FIONREAD 0 with nothing queued",
     ioctl(s, FIONREAD, &nread) == 0 && nread == 0);
  v = 1;
  expect("QPOLICY_ID after connect: EISCONN",
         setsockopt(c, SOL_DCCP, DCCP_SOCKOPT_QPOLICY_ID, &v, sizeof(v)),
         EISCONN);
  struct tfrc_info_like {
    uint32_t a[16];
  } ti;
  socklen_t tl = sizeof(ti);
  expect("CCID_TX_INFO on CCID 2: ENOPROTOOPT",
         getsockopt(c, SOL_DCCP, DCCP_SOCKOPT_CCID_TX_INFO, &ti, &tl),
         ENOPROTOOPT);
  ok("SERVER_TIMEWAIT on the accepted socket",
     setsockopt(s, SOL_DCCP, DCCP_SOCKOPT_SERVER_TIMEWAIT, &one,
                sizeof(one)) == 0);
  {
    /* DCCP_SCM_PRIORITY needs the prio policy (Linux: EINVAL). */
    uint32_t prio = 5;
    char cb[CMSG_SPACE(sizeof(prio))];
    struct iovec iov = {"p", 1};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb,
                       .msg_controllen = sizeof(cb)};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_DCCP;
    cm->cmsg_type = DCCP_SCM_PRIORITY;
    cm->cmsg_len = CMSG_LEN(sizeof(prio));
    memcpy(CMSG_DATA(cm), &prio, sizeof(prio));
    expect("DCCP_SCM_PRIORITY with the simple policy: EINVAL",
           sendmsg(c, &m, 0), EINVAL);
  }
  /* The server does not read: the sender's queue fills up. */
  fcntl(c, F_SETFL, O_NONBLOCK);
  long n = 0;
  ssize_t r = 0;
  for (n = 0; n < 200000; n++) {
    r = send(c, big, 1000, 0);
    if (r < 0) {
      break;
    }
  }
  expect("non-blocking send on a full queue: EAGAIN", r, EAGAIN);
  printf("   (after %ld datagrams)\n", n);
  struct pollfd wp = {c, POLLOUT, 0};
  ok("writable again once the queue drains",
     poll(&wp, 1, 10000) == 1 && (wp.revents & POLLOUT));

  /* --- the peer resets: recv 0, then ECONNRESET, then EPIPE (Linux) */
  abort_conn(s);
  wait_hup(c);
  for (int k = 0; k < 100000; k++) { /* what was in flight before */
    if (recv(c, big, (size_t)mps + 1, 0) <= 0) {
      break;
    }
  }
  ok("recv after the Reset returns 0", recv(c, buf, sizeof(buf), 0) == 0);
  expect("send after the peer's Reset: ECONNRESET", send(c, "x", 1, 0),
         ECONNRESET);
  expect("send again: EPIPE", send(c, "x", 1, 0), EPIPE);
  close(c);

  /* --- another Reset, seen through SO_ERROR */
  fcntl(lis, F_SETFL, 0);
  c = connect_to(g_port, 42);
  ok("connect again", c >= 0);
  s = accept_one(lis);
  abort_conn(s);
  wait_hup(c);
  int err = 0;
  socklen_t el = sizeof(err);
  ok("SO_ERROR after the Reset is ECONNRESET",
     getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &el) == 0 &&
         err == ECONNRESET);
  expect("send after SO_ERROR was read: EPIPE", send(c, "x", 1, 0), EPIPE);
  close(c);

  /* --- priority queue: DCCP_SCM_PRIORITY carried, data intact */
  c = dccp_socket(42);
  v = 1;
  ok("QPOLICY_ID prio", setsockopt(c, SOL_DCCP, DCCP_SOCKOPT_QPOLICY_ID, &v,
                                   sizeof(v)) == 0);
  {
    int q = -1, qv = 0;
    socklen_t ql = sizeof(qv);
    expect("QPOLICY_TXQLEN -1: EINVAL",
           setsockopt(c, SOL_DCCP, DCCP_SOCKOPT_QPOLICY_TXQLEN, &q,
                      sizeof(q)),
           EINVAL);
    q = 12;
    ok("QPOLICY_TXQLEN 12", setsockopt(c, SOL_DCCP,
                                       DCCP_SOCKOPT_QPOLICY_TXQLEN, &q,
                                       sizeof(q)) == 0);
    ok("getsockopt QPOLICY_TXQLEN reads 12",
       getsockopt(c, SOL_DCCP, DCCP_SOCKOPT_QPOLICY_TXQLEN, &qv, &ql) == 0 &&
           qv == 12);
    ql = sizeof(qv);
    ok("getsockopt QPOLICY_ID reads prio",
       getsockopt(c, SOL_DCCP, DCCP_SOCKOPT_QPOLICY_ID, &qv, &ql) == 0 &&
           qv == 1);
  }
  struct sockaddr_in ca = addr(g_port);
  ok("connect (prio policy)", connect(c, (struct sockaddr *)&ca,
                                      sizeof(ca)) == 0);
  s = accept_one(lis);
  for (uint32_t i = 0; i < 5; i++) {
    uint32_t prio = i;
    char cb[CMSG_SPACE(sizeof(prio))];
    char data[32];
    int len = snprintf(data, sizeof(data), "prio-%u", i);
    struct iovec iov = {data, (size_t)len};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb,
                       .msg_controllen = sizeof(cb)};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_DCCP;
    cm->cmsg_type = DCCP_SCM_PRIORITY;
    cm->cmsg_len = CMSG_LEN(sizeof(prio));
    memcpy(CMSG_DATA(cm), &prio, sizeof(prio));
    ok("sendmsg with DCCP_SCM_PRIORITY", sendmsg(c, &m, 0) == len);
  }
  ok("write() on the prio socket", write(c, "plain", 5) == 5);
  struct timeval tv = {5, 0};
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  int seen = 0;
  for (int i = 0; i < 6; i++) {
    ssize_t rr = recv(s, buf, sizeof(buf), 0);
    ok("a prioritised datagram arrives", rr > 0);
    buf[rr] = 0;
    seen += strncmp(buf, "prio-", 5) == 0 || strcmp(buf, "plain") == 0;
  }
  ok("every datagram intact (no priority header leaked)", seen == 6);
  /* shutdown(): nothing on the wire, as Linux's dccp_shutdown() */
  ok("shutdown(SHUT_WR)", shutdown(c, SHUT_WR) == 0);
  expect("send after SHUT_WR: EPIPE", send(c, "x", 1, 0), EPIPE);
  ok("the peer still sends", send(s, "back", 4, 0) == 4);
  setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ok("and SHUT_WR's side still receives", recv(c, buf, sizeof(buf), 0) == 4);
  ok("shutdown(SHUT_RD)", shutdown(c, SHUT_RD) == 0);
  ok("recv after SHUT_RD returns 0", recv(c, buf, sizeof(buf), 0) == 0);
  close(c);
  close(s);
  /* shutdown(SHUT_RDWR) stops a listener (Linux inet_shutdown(): the
   * listener is disconnected and a thread blocked in accept() wakes with
   * EINVAL): how a server stops its accept threads.  Non-blocking here,
   * so that a listener that did not stop fails (EAGAIN) instead of
   * hanging. */
  ok("shutdown(SHUT_RDWR) of the listener", shutdown(lis, SHUT_RDWR) == 0);
  {
    struct pollfd lp = {lis, POLLIN, 0};
    ok("poll wakes on the stopped listener", poll(&lp, 1, 3000) == 1);
  }
  fcntl(lis, F_SETFL, fcntl(lis, F_GETFL) | O_NONBLOCK);
  expect("accept on the stopped listener: EINVAL", accept(lis, NULL, NULL),
         EINVAL);
  /* inet_shutdown() disconnected it: listen() starts it again (the
   * preload said 0 and accept() failed for ever) */
  ok("listen again after shutdown(SHUT_RDWR)", listen(lis, 4) == 0);
  c = connect_to(g_port, 42);
  ok("connect to the listener started again", c >= 0);
  s = accept_one(lis);
  ok("a datagram crosses", crosses(c, s, "relistened"));
  close(s);
  close(c);
  close(lis);
  free(big);
  printf("PASS dccp_errno\n");
  return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * A DCCP echo client and server written against the Linux kernel's socket
 * API (<linux/dccp.h> alone, no udccp header): the test program of the
 * preload library (tests/compat_preload.sh), and usable as is against the
 * kernel's DCCP.
 *
 *   dccp_pair server MODE PORT CCID SERVICE NCONN
 *   dccp_pair client MODE HOST PORT CCID SERVICE COUNT
 *
 * MODE: blocking, poll, epoll, select, threaded, fork (fork after accept),
 * prefork (children accept on the inherited listener).
 * The client sends COUNT datagrams of varied sizes, each starting with its
 * number, and checks every echo; both ends check the CCID they asked for
 * (DCCP_SOCKOPT_TX_CCID/RX_CCID), the MPS, and the addresses.  Prints
 * "PASS ..." and exits 0, or "FAIL: why" and exits 1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/dccp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SOL_DCCP
#define SOL_DCCP 269
#endif

static const char *g_mode;
static int g_ccid;

__attribute__((format(printf, 1, 2))) static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("FAIL: ");
  vprintf(fmt, ap);
  printf(" (errno %d: %s)\n", errno, strerror(errno));
  va_end(ap);
  fflush(stdout);
  exit(1);
}

static int is(const char *m) { return strcmp(g_mode, m) == 0; }

static void set_nonblock(int fd) {
  if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
    die("fcntl O_NONBLOCK");
  }
}

/* Waits for ev on fd with the mode's readiness call. */
static void wait_fd(int fd, int want_write) {
  if (is("poll")) {
    struct pollfd p = {fd, (short)(want_write ? POLLOUT : POLLIN), 0};
    if (poll(&p, 1, 10000) != 1) {
      die("poll timed out");
    }
  } else if (is("epoll")) {
    int ep = epoll_create1(0);
    struct epoll_event e = {.events = want_write ? EPOLLOUT : EPOLLIN};
    e.data.fd = fd;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) != 0) {
      die("epoll_ctl");
    }
    if (epoll_wait(ep, &e, 1, 10000) != 1) {
      die("epoll_wait timed out");
    }
    close(ep);
  } else if (is("select")) {
    fd_set s;
    FD_ZERO(&s);
    FD_SET(fd, &s);
    struct timeval tv = {10, 0};
    if (select(fd + 1, want_write ? NULL : &s, want_write ? &s : NULL, NULL,
               &tv) != 1) {
      die("select timed out");
    }
  }
}

static int event_mode(void) { return is("poll") || is("epoll") || is("select"); }

static void check_conn(int fd, const char *who) {
  int v = 0;
  socklen_t l = sizeof(v);
  if (getsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_TX_CCID, &v, &l) != 0 ||
      v != g_ccid) {
    die("%s: TX CCID %d, asked for %d", who, v, g_ccid);
  }
  l = sizeof(v);
  if (getsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_RX_CCID, &v, &l) != 0 ||
      v != g_ccid) {
    die("%s: RX CCID %d, asked for %d", who, v, g_ccid);
  }
  l = sizeof(v);
  if (getsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_GET_CUR_MPS, &v, &l) != 0 ||
      v < 500 || v > 65535) {
    die("%s: MPS %d", who, v);
  }
  l = sizeof(v);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) != 0 || v != SOCK_DCCP) {
    die("%s: SO_TYPE %d", who, v);
  }
  struct sockaddr_storage a, b;
  socklen_t al = sizeof(a), bl = sizeof(b);
  if (getsockname(fd, (struct sockaddr *)&a, &al) != 0 ||
      getpeername(fd, (struct sockaddr *)&b, &bl) != 0 ||
      a.ss_family != b.ss_family) {
    die("%s: getsockname/getpeername", who);
  }
}

static void set_ccid(int fd) {
  uint8_t c = (uint8_t)g_ccid;
  if (setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_CCID, &c, 1) != 0) {
    die("setsockopt CCID %d", g_ccid);
  }
}

/* ------------------------------------------------------------ server */

/* Echoes every datagram until the client closes; returns the count. */
static long echo_conn(int fd) {
  char buf[2048];
  long n = 0;
  if (event_mode()) {
    set_nonblock(fd);
  }
  check_conn(fd, "server");
  for (;;) {
    if (event_mode()) {
      wait_fd(fd, 0);
    }
    ssize_t r = recv(fd, buf, sizeof(buf), 0);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
      continue;
    }
    if (r < 0) {
      die("server recv");
    }
    if (r == 0) {
      break;
    }
    if (n == 0 && g_ccid == 3) {
      /* struct tfrc_rx_info of <linux/tfrc.h>: the receiver's view. */
      struct {
        uint32_t x_recv, rtt, p;
      } ri;
      socklen_t rl = sizeof(ri);
      if (getsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_CCID_RX_INFO, &ri, &rl) != 0 ||
          rl != sizeof(ri)) {
        die("CCID_RX_INFO");
      }
    }
    for (;;) {
      ssize_t w = send(fd, buf, (size_t)r, 0);
      if (w == r) {
        break;
      }
      if (w < 0 && errno == EAGAIN) { /* Linux: even when blocking */
        if (event_mode()) {
          wait_fd(fd, 1);
        } else {
          usleep(1000);
        }
        continue;
      }
      die("server send");
    }
    n++;
  }
  close(fd);
  return n;
}

static void *echo_thread(void *arg) {
  long n = echo_conn((int)(intptr_t)arg);
  return (void *)n;
}

static int server(int argc, char **argv) {
  if (argc < 7) {
    die("usage");
  }
  int port = atoi(argv[3]);
  uint32_t sc[2] = {htonl(1), htonl((uint32_t)strtoul(argv[5], NULL, 0))};
  int nconn = atoi(argv[6]);
  int fd = socket(AF_INET, SOCK_DCCP, IPPROTO_DCCP);
  if (fd < 0) {
    die("socket");
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  /* A listener may serve several codes (RFC 5595 §4): 1 and ours. */
  if (setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_SERVICE, sc, sizeof(sc)) != 0) {
    die("setsockopt SERVICE");
  }
  set_ccid(fd);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 8) != 0) {
    die("bind/listen");
  }
  struct sockaddr_in me;
  socklen_t ml = sizeof(me);
  if (getsockname(fd, (struct sockaddr *)&me, &ml) != 0 ||
      ntohs(me.sin_port) != port) {
    die("getsockname: port %d, bound %d", ntohs(me.sin_port), port);
  }
  if (event_mode()) {
    set_nonblock(fd);
  }
  printf("listening on %d\n", port);
  fflush(stdout);
  long total = 0;
  pthread_t th[16];
  pid_t kids[16];
  if (is("prefork")) {
    /* Children accept on the inherited listener (pre-forked server). */
    for (int i = 0; i < nconn && i < 16; i++) {
      kids[i] = fork();
      if (kids[i] == 0) {
        int c = accept(fd, NULL, NULL);
        if (c < 0) {
          die("accept in a pre-forked child");
        }
        long n = echo_conn(c);
        _exit(n > 0 ? 0 : 1);
      }
    }
    for (int i = 0; i < nconn && i < 16; i++) {
      int stt;
      if (waitpid(kids[i], &stt, 0) != kids[i] || !WIFEXITED(stt) ||
          WEXITSTATUS(stt) != 0) {
        die("pre-forked child %d failed", i);
      }
    }
    close(fd);
    printf("PASS server prefork: %d connections\n", nconn);
    return 0;
  }
  for (int i = 0; i < nconn && i < 16; i++) {
    struct sockaddr_in peer;
    socklen_t pl = sizeof(peer);
    if (event_mode()) {
      wait_fd(fd, 0);
    }
    int c = accept(fd, (struct sockaddr *)&peer, &pl);
    if (c < 0) {
      die("accept");
    }
    if (pl != sizeof(peer) || peer.sin_family != AF_INET) {
      die("accept address");
    }
    if (is("threaded")) {
      pthread_create(&th[i], NULL, echo_thread, (void *)(intptr_t)c);
    } else if (is("fork")) {
      pid_t p = fork();
      if (p == 0) {
        close(fd);
        long n = echo_conn(c);
        printf("child echoed %ld\n", n);
        _exit(n > 0 ? 0 : 1);
      }
      kids[i] = p;
      close(c); /* the child's descriptor keeps the connection */
    } else {
      total += echo_conn(c);
    }
  }
  for (int i = 0; i < nconn && i < 16; i++) {
    if (is("threaded")) {
      void *r;
      pthread_join(th[i], &r);
      total += (long)r;
    } else if (is("fork")) {
      int stt;
      if (waitpid(kids[i], &stt, 0) != kids[i] || !WIFEXITED(stt) ||
          WEXITSTATUS(stt) != 0) {
        die("forked child %d failed", i);
      }
      total++;
    }
  }
  close(fd);
  printf("PASS server %s: %d connections, %ld datagrams\n", g_mode, nconn,
         total);
  return 0;
}

/* ------------------------------------------------------------ client */

static int g_count;
static atomic_int g_recvd; /* threaded mode: echoes the reader has seen */

static size_t dgram_len(int i) { return 8 + (size_t)(i * 37) % 1000; }

static void fill(char *b, int i) {
  size_t len = dgram_len(i);
  memcpy(b, &i, sizeof(i));
  for (size_t k = sizeof(i); k < len; k++) {
    b[k] = (char)(i + (int)k);
  }
}

static void check_echo(const char *b, ssize_t r, int expect) {
  char want[2048];
  fill(want, expect);
  if (r != (ssize_t)dgram_len(expect) || memcmp(b, want, (size_t)r) != 0) {
    int got = -1;
    if (r >= 4) {
      memcpy(&got, b, 4);
    }
    die("echo %d: got #%d of %zd bytes", expect, got, r);
  }
}

static void *recv_thread(void *arg) {
  int fd = (int)(intptr_t)arg;
  char b[2048];
  for (int i = 0; i < g_count; i++) {
    ssize_t r = recv(fd, b, sizeof(b), 0);
    if (r < 0) {
      die("client recv (thread)");
    }
    check_echo(b, r, i);
    atomic_store(&g_recvd, i + 1);
  }
  return NULL;
}

static int client(int argc, char **argv) {
  if (argc < 8) {
    die("usage");
  }
  const char *host = argv[3];
  int port = atoi(argv[4]);
  uint32_t sc = htonl((uint32_t)strtoul(argv[6], NULL, 0));
  g_count = atoi(argv[7]);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
    die("address %s", host);
  }
  int fd = socket(AF_INET, SOCK_DCCP, IPPROTO_DCCP);
  if (fd < 0) {
    die("socket");
  }
  if (setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_SERVICE, &sc, sizeof(sc)) != 0) {
    die("setsockopt SERVICE");
  }
  set_ccid(fd);
  struct timeval tv = {10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  if (event_mode()) {
    set_nonblock(fd);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ||
        errno != EINPROGRESS) {
      die("non-blocking connect did not say EINPROGRESS");
    }
    wait_fd(fd, 1);
    int err = -1;
    socklen_t el = sizeof(err);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err != 0) {
      errno = err;
      die("connect (SO_ERROR)");
    }
  } else if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
    die("connect");
  }
  check_conn(fd, "client");
  uint32_t got[2];
  socklen_t gl = sizeof(got);
  if (getsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_SERVICE, got, &gl) != 0 ||
      gl != 4 || got[0] != sc) {
    die("getsockopt SERVICE");
  }
  char b[2048];
  pthread_t rt;
  if (is("threaded")) {
    pthread_create(&rt, NULL, recv_thread, (void *)(intptr_t)fd);
  }
  int sent = 0, recvd = 0;
  const int window = event_mode() ? 8 : 1;
  while (recvd < g_count) {
    if (is("threaded")) {
      if (sent == g_count) {
        break;
      }
      /* DCCP has no flow control: stay at most 16 datagrams ahead of
       * the reader thread, so that nothing is lost on a slow path. */
      if (sent - atomic_load(&g_recvd) >= 16) {
        usleep(200);
        continue;
      }
      fill(b, sent);
      ssize_t w = send(fd, b, dgram_len(sent), 0);
      if (w < 0 && errno == EAGAIN) { /* Linux: even when blocking */
        usleep(1000);
        continue;
      }
      if (w != (ssize_t)dgram_len(sent)) {
        die("client send (thread)");
      }
      sent++;
      continue;
    }
    if (sent < g_count && sent - recvd < window) {
      fill(b, sent);
      ssize_t w = send(fd, b, dgram_len(sent), 0);
      if (w == (ssize_t)dgram_len(sent)) {
        sent++;
        continue;
      }
      if (!(w < 0 && errno == EAGAIN)) {
        die("client send");
      }
      if (!event_mode()) {
        usleep(1000); /* Linux: EAGAIN on a full queue even when blocking */
        continue;
      }
    }
    if (event_mode()) {
      wait_fd(fd, 0);
    }
    ssize_t r = recv(fd, b, sizeof(b), 0);
    if (r < 0 && errno == EAGAIN && event_mode()) {
      continue;
    }
    if (r < 0) {
      die("client recv");
    }
    check_echo(b, r, recvd);
    recvd++;
  }
  if (is("threaded")) {
    pthread_join(rt, NULL);
  }
  if (g_ccid == 3) {
    /* struct tfrc_tx_info of <linux/tfrc.h> (not a UAPI header). */
    struct {
      uint64_t x, x_recv;
      uint32_t x_calc, rtt, p, rto, ipi;
    } ti;
    socklen_t tl = sizeof(ti);
    if (getsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_CCID_TX_INFO, &ti, &tl) != 0 ||
        tl != sizeof(ti) || ti.x == 0) {
      die("CCID_TX_INFO");
    }
    printf("ccid3 tx: X=%llu B/s (x64) rtt=%u us\n", (unsigned long long)ti.x,
           ti.rtt);
  }
  if (close(fd) != 0) {
    die("close");
  }
  printf("PASS client %s: %d datagrams echoed, CCID %d\n", g_mode, g_count,
         g_ccid);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: see the header of dccp_pair.c\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  g_mode = argv[2];
  if (strcmp(argv[1], "server") == 0) {
    g_ccid = argc > 4 ? atoi(argv[4]) : 2;
    return server(argc, argv);
  }
  g_ccid = argc > 5 ? atoi(argv[5]) : 2;
  return client(argc, argv);
}

/* SPDX-License-Identifier: MIT */
/*
 * udccp-cat: standard input and output, signals, and one turn of the
 * poll() loop (tools/cat/cat.h).
 */
#define _GNU_SOURCE /* poll */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cat.h"

/* Drops what was sent from the input buffer: empties it when all went,
 * moves the rest to the front once more than half of it is spent. */
void cat_input_compact(cat_input *in) {
  if (in->off == in->len) {
    in->off = in->len = 0;
  } else if (in->off > CAT_INBUF / 2) {
    memmove(in->buf, in->buf + in->off, in->len - in->off);
    in->len -= in->off;
    in->off = 0;
  }
}

int cat_report(const char *what, int err) {
  fprintf(stderr, "udccp-cat: %s: %s\n", what, udccp_io_strerror(err));
  return 1;
}

/* The signal that asked us to stop (0: none).  Caught once connected, so
 * that the main loop aborts the connection instead of leaving the peer
 * waiting; a second one ends the program at once. */
volatile sig_atomic_t cat_sig;

static void cat_on_signal(int sig) {
  if (cat_sig != 0) {
    _exit(128 + sig);
  }
  cat_sig = sig;
}

/* SIGINT and SIGTERM set cat_sig (a second one exits at once). */
void cat_catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = cat_on_signal;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
}

/* Standard output failed (the reader exited: EPIPE, or a full disk):
 * the errno of the first failure, 0 while it works.  SIGPIPE is ignored,
 * so that a reader that exits early (udccp-cat -l 5000 | head) does not
 * kill us before the peer is told: the connection is reset instead of
 * left for the peer's keepalive to find 90 s later. */
int cat_out_errno;
static uint64_t g_out_lost;    /* datagrams received, not (all) written */
static uint64_t g_out_pending; /* datagrams in stdio's buffer, not flushed */

/* Writes one datagram received to stdout; on failure counts it unwritten
 * and remembers why. */
void cat_out_write(const uint8_t *buf, size_t n) {
  if (cat_out_errno != 0) {
    g_out_lost++;
    return;
  }
  g_out_pending++;
  if (n > 0 && fwrite(buf, 1, n, stdout) != n) {
    cat_out_errno = errno != 0 ? errno : EIO;
    g_out_lost += g_out_pending;
  }
}

/* Flushes stdout; returns 0, or -1 once it failed (now or before). */
int cat_out_flush(void) {
  if (cat_out_errno == 0 && fflush(stdout) != 0) {
    cat_out_errno = errno != 0 ? errno : EIO;
    g_out_lost += g_out_pending; /* stdio's buffer: some, or all, lost */
  }
  g_out_pending = 0;
  return cat_out_errno != 0 ? -1 : 0;
}

/* Says that stdout failed, and how much of what arrived is not in it. */
void cat_report_stdout(void) {
  fprintf(stderr, "udccp-cat: cannot write to standard output (%s)%s; "
                  "connection aborted (Reset sent to the peer); %llu "
                  "datagram%s received not (fully) written\n",
          strerror(cat_out_errno),
          cat_out_errno == EPIPE ? ": the reader is gone" : "",
          (unsigned long long)g_out_lost,
          g_out_lost == 1 ? "" : "s");
}

void cat_addr_str(char *b, size_t cap, uint8_t family, const uint8_t *a) {
  if (inet_ntop(family == UDCCP_AF_INET ? AF_INET : AF_INET6, a, b,
                (socklen_t)cap) == NULL) {
    snprintf(b, cap, "?");
  }
}

uint64_t cat_mono_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* Bytes of a regular file on stdin not read yet (0 for a pipe). */
uint64_t cat_stdin_unread(const cat_input *in) {
  struct stat st;
  if (in->eof || fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) {
    return 0;
  }
  off_t pos = lseek(STDIN_FILENO, 0, SEEK_CUR);
  return pos >= 0 && st.st_size > pos ? (uint64_t)(st.st_size - pos) : 0;
}

/* One turn of a connection's loop: wait for the endpoint's socket, its
 * next timer or (while there is room and the connection takes input)
 * standard input; run the endpoint; read what stdin has.  While the
 * connection refuses input (blocked), wake within 10 ms to offer the
 * queued lines again.  Returns 0, or -1 when poll() fails. */
int cat_wait_and_read(const cat_opts *o, udccp_endpoint *ep,
                         cat_input *in, int blocked) {
  struct pollfd pfd[2];
  pfd[0].fd = udccp_endpoint_fd(ep);
  pfd[0].events = POLLIN;
  nfds_t nfds = 1;
  if (!o->no_stdin && !in->eof && !blocked && in->len < CAT_INBUF) {
    pfd[1].fd = STDIN_FILENO;
    pfd[1].events = POLLIN;
    nfds = 2;
  }
  int t = udccp_endpoint_timeout_ms(ep);
  if (blocked && (t < 0 || t > 10)) {
    t = 10;
  }
  if (poll(pfd, nfds, t) < 0 && errno != EINTR) {
    return -1;
  }
  (void)udccp_endpoint_process(ep);
  if (nfds == 2 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) {
    ssize_t r = read(STDIN_FILENO, in->buf + in->len, CAT_INBUF - in->len);
    if (r > 0) {
      in->len += (size_t)r;
    } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
      in->eof = 1;
    }
  }
  return 0;
}

/* A standard descriptor the shell closed (<&-, >&-) would be the next
 * socket's number: stdin then read the endpoint's own UDP socket (the
 * client hung), stdout wrote datagrams into a socket ("Destination address
 * required").  Each closed one gets /dev/null opened the other way round,
 * so that using it fails with EBADF as it would have.  Returns a bit per
 * descriptor that was closed. */
unsigned cat_reserve_std_fds(void) {
  unsigned closed = 0;
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      closed |= 1u << fd;
      int n = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
      if (n >= 0 && n != fd) {
        close(n);
      }
    }
  }
  return closed;
}

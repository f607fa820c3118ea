/* SPDX-License-Identifier: MIT */
/*
 * chat_server: a multi-client chat room on an application's own epoll
 * loop, with the event interface (udccp_endpoint_events): no per-socket
 * polling.  Every datagram a client sends goes to every other client,
 * prefixed with the sender's name, as a line; joins and leaves are
 * announced (to everyone, the newcomer too).
 *
 *   chat_server [UDP_PORT [DCCP_PORT]]   (defaults 6511 and 5300; service
 *                                         "CHAT")
 *   udccp-cat --service CHAT --udp-port UDP_PORT 127.0.0.1 DCCP_PORT
 *
 * Runs until SIGINT/SIGTERM, or EXAMPLE_MAX_SECONDS (for the tests).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <udccp/udccp.h>

#define MAX_CLIENTS 256

typedef struct client {
  udccp_sock *sock;
  char name[24];
  int in_use;
} client;

static client clients[MAX_CLIENTS];
static volatile sig_atomic_t stop;

static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

/* Sends msg to every client but `except`; a full send queue drops the
 * message for that client (DCCP is unreliable: counted, not blocking). */
static unsigned long drops;
static void broadcast(const client *except, const char *msg, size_t len) {
  for (int i = 0; i < MAX_CLIENTS; i++) {
    client *c = &clients[i];
    if (c->in_use && c != except && udccp_send(c->sock, msg, len, 0) < 0) {
      drops++;
    }
  }
}

static void leave(client *c, const char *why) {
  char msg[128];
  int n = snprintf(msg, sizeof(msg), "* %s left (%s)\n", c->name, why);
  if (n < 0 || (size_t)n >= sizeof(msg)) {
    n = (int)sizeof(msg) - 1; /* truncated */
  }
  udccp_abort(c->sock); /* frees the handle; the peer is gone anyway */
  c->in_use = 0;
  broadcast(NULL, msg, (size_t)n);
  fputs(msg, stdout);
}

/* A port argument: 1..65535 (0 for the UDP port: any free one). */
static int port_arg(const char *s, unsigned min, uint16_t *port) {
  char *end = NULL;
  unsigned long v = strtoul(s, &end, 10);
  if (end == s || *end != '\0' || v < min || v > 65535) {
    fprintf(stderr, "usage: chat_server [UDP_PORT [DCCP_PORT]] (ports are "
                    "numbers, e.g. 6511 5300; not '%s')\n", s);
    return -1;
  }
  *port = (uint16_t)v;
  return 0;
}

int main(int argc, char **argv) {
  uint16_t udp_port = UDCCP_UDP_PORT_DEFAULT;
  uint16_t dccp_port = 5300;
  if (argc > 3) { /* it exited 2 and said nothing */
    fprintf(stderr, "usage: chat_server [UDP_PORT [DCCP_PORT]] (unexpected "
                    "argument '%s')\n", argv[3]);
    return 2;
  }
  if ((argc > 1 && port_arg(argv[1], 0, &udp_port) != 0) ||
      (argc > 2 && port_arg(argv[2], 1, &dccp_port) != 0)) {
    return 2;
  }
  const char *max_env = getenv("EXAMPLE_MAX_SECONDS");
  time_t end = max_env != NULL ? time(NULL) + atol(max_env) : 0;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  uint32_t service;
  (void)udccp_service_code_parse("CHAT", &service);
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  cfg.local_host = "127.0.0.1";
  cfg.local_port = udp_port;
  cfg.reuseport = 1; /* share UDP 6511 with other DCCP-UDP services */
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv == 0) {
    rv = udccp_listen(ep, dccp_port, &service, 1);
  }
  if (rv != 0) {
    fprintf(stderr, "chat_server: UDP %u DCCP %u: %s\n", (unsigned)udp_port,
            (unsigned)dccp_port, udccp_io_strerror(rv));
    udccp_endpoint_del(ep);
    return 1;
  }
  /* The application's own loop: the endpoint is one descriptor in it. */
  int efd = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event watch = {.events = EPOLLIN};
  epoll_ctl(efd, EPOLL_CTL_ADD, udccp_endpoint_fd(ep), &watch);
  printf("chat_server: UDP %u, DCCP port %u, service CHAT\n",
         (unsigned)udccp_endpoint_local_port(ep), (unsigned)dccp_port);
  fflush(stdout);
  int next_id = 1;
  while (!stop && (end == 0 || time(NULL) < end)) {
    struct epoll_event got;
    int t = udccp_endpoint_timeout_ms(ep);
    if (t < 0 || t > 500) {
      t = 500; /* look at the clock for EXAMPLE_MAX_SECONDS and signals */
    }
    (void)epoll_wait(efd, &got, 1, t);
    udccp_event ev[64];
    int n = udccp_endpoint_events(ep, ev, 64, 0);
    for (int k = 0; k < n; k++) {
      client *c = ev[k].user;
      if (ev[k].events & UDCCP_EV_ACCEPTABLE) {
        udccp_sock *s;
        while (udccp_accept(ep, &s, 0) == 0) {
          int i = 0;
          while (i < MAX_CLIENTS && clients[i].in_use) {
            i++;
          }
          if (i == MAX_CLIENTS) {
            udccp_abort_code(s, UDCCP_RESET_TOO_BUSY);
            continue;
          }
          clients[i].sock = s;
          clients[i].in_use = 1;
          snprintf(clients[i].name, sizeof(clients[i].name), "guest%d",
                   next_id++);
          udccp_sock_set_user(s, &clients[i]);
          char msg[64];
          int m = snprintf(msg, sizeof(msg), "* %s joined\n", clients[i].name);
          broadcast(NULL, msg, (size_t)m);
          fputs(msg, stdout);
        }
        continue;
      }
      if (ev[k].events & UDCCP_EV_READABLE) {
        /* Room for any datagram (a loopback MPS is about 64 KiB): with
         * less, udccp_recv() refuses a long line (UDCCP_ERR_NOBUF) and it
         * stays first in the queue, so that nothing this client said
         * afterwards would be read either.  A line longer than a chat
         * line is cut, and the cut is said. */
        static char buf[65536];
        char msg[1600];
        udccp_ssize r;
        while ((r = udccp_recv(c->sock, buf, sizeof(buf), 0)) >= 0) {
          int len = (int)r, cut = 0;
          if (len > 0 && buf[len - 1] == '\n') {
            len--; /* udccp-cat sends the line with its newline */
          }
          if (len > 1400) {
            cut = len - 1400;
            len = 1400;
          }
          int m = cut ? snprintf(msg, sizeof(msg), "[%s] %.*s [%d bytes cut]\n",
                                 c->name, len, buf, cut)
                      : snprintf(msg, sizeof(msg), "[%s] %.*s\n", c->name,
                                 len, buf);
          broadcast(c, msg, (size_t)m);
        }
      }
      if (ev[k].events & UDCCP_EV_CLOSED) {
        leave(c, "closed");
      } else if (ev[k].events & UDCCP_EV_RESET) {
        leave(c, udccp_io_strerror(ev[k].error));
      }
      fflush(stdout);
    }
  }
  for (int i = 0; i < MAX_CLIENTS; i++) {
    if (clients[i].in_use) {
      (void)udccp_close(clients[i].sock, 500);
    }
  }
  printf("chat_server: stopped (%lu messages dropped at full queues)\n", drops);
  close(efd);
  udccp_endpoint_del(ep);
  return 0;
}

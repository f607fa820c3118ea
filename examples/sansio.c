/* SPDX-License-Identifier: MIT */
/*
 * sansio: drives the sans-I/O core (lib/) with the program's own UDP
 * sockets and its own clock, no udccp runtime: what an application with
 * its own event loop, or another language's binding, would do.
 *
 * One process holds both ends of a DCCP-UDP connection (RFC 6773) on
 * 127.0.0.1: a client connection and a listener on two UDP sockets.  The
 * client sends COUNT datagrams (default 100), the server reads them, then
 * the client closes.  Prints what arrived; exits 0 if the transfer and the
 * close completed.
 *
 *   sansio [COUNT]
 *
 * The pattern, for every connection:
 *   packet in  -> udccp_conn_read_pkt() (or udccp_listener_read_pkt())
 *   then       -> udccp_conn_write_pkt() until it returns 0; send each
 *   sleep until udccp_conn_get_expiry(), then udccp_conn_handle_expiry()
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <udccp/udccp.h>

#define DCCP_CLIENT_PORT 50000
#define DCCP_SERVER_PORT 5001

static udccp_tstamp now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (udccp_tstamp)ts.tv_sec * UDCCP_NS_PER_S + (udccp_tstamp)ts.tv_nsec;
}

/* A UDP socket on 127.0.0.1, ephemeral port; returns the fd, the port. */
static int udp_socket(uint16_t *port) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof(a);
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
      getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
    perror("sansio: socket");
    exit(1);
  }
  *port = ntohs(a.sin_port);
  return fd;
}

/* Sends every packet conn has now to UDP port `to` on loopback. */
static void flush(udccp_conn *conn, int fd, uint16_t to) {
  uint8_t pkt[2048];
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(to)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  udccp_ssize n;
  while ((n = udccp_conn_write_pkt(conn, pkt, sizeof(pkt), NULL, now_ns())) >
         0) {
    (void)sendto(fd, pkt, (size_t)n, 0, (struct sockaddr *)&a, sizeof(a));
  }
}

/* The path as `self` sees it, DCCP-UDP to UDP port peer_udp. */
static udccp_path make_path(uint16_t lport, uint16_t rport, uint16_t peer_udp) {
  udccp_path p;
  memset(&p, 0, sizeof(p));
  p.family = UDCCP_AF_INET;
  p.local_addr[0] = p.remote_addr[0] = 127;
  p.local_addr[3] = p.remote_addr[3] = 1;
  p.local_port = lport;
  p.remote_port = rport;
  p.encap_port = peer_udp;
  return p;
}

/* COUNT: 1..1000000 (atoi() read "abc" as 0 and "-5" as a hang). */
static int count_arg(int argc, char **argv, int dflt, int *count) {
  if (argc > 2) {
    return -1;
  }
  if (argc < 2) {
    *count = dflt;
    return 0;
  }
  char *end = NULL;
  long v = strtol(argv[1], &end, 10);
  if (end == argv[1] || *end != '\0' || v < 1 || v > 1000000) {
    return -1;
  }
  *count = (int)v;
  return 0;
}

int main(int argc, char **argv) {
  int count;
  if (count_arg(argc, argv, 100, &count) != 0) {
    fprintf(stderr, "usage: sansio [COUNT] (datagrams to send, 1..1000000, "
                    "default 100)\n");
    return 2;
  }
  uint8_t seed[16];
  if (getrandom(seed, sizeof(seed), 0) != (ssize_t)sizeof(seed)) {
    perror("sansio: getrandom");
    return 1;
  }
  udccp_csprng rng;
  udccp_csprng_seed(&rng, seed);
  udccp_settings st;
  udccp_settings_default(&st);
  st.rand = udccp_csprng_fill;
  st.rand_user_data = &rng;
  st.cksum_mode = UDCCP_CKSUM_NONE; /* DCCP-UDP: UDP's checksum covers it */
  st.hdr_overhead = 20 + 8;         /* IPv4 + UDP */
  uint16_t cport, sport;
  int cfd = udp_socket(&cport), sfd = udp_socket(&sport);
  uint32_t service = 42;

  udccp_listener_settings ls;
  memset(&ls, 0, sizeof(ls));
  ls.service_codes = &service;
  ls.n_service_codes = 1;
  udccp_listener *lis = NULL;
  udccp_conn *client = NULL, *server = NULL;
  udccp_path cpath = make_path(DCCP_CLIENT_PORT, DCCP_SERVER_PORT, sport);
  if (udccp_listener_new(&lis, &st, &ls, now_ns()) != 0 ||
      udccp_conn_client_new(&client, &st, &cpath, service, now_ns()) != 0) {
    fprintf(stderr, "sansio: cannot create the connection\n");
    return 1;
  }
  flush(client, cfd, sport); /* the Request */
  int sent = 0, got = 0, closing = 0;
  udccp_tstamp give_up = now_ns() + 20 * UDCCP_NS_PER_S;
  while (now_ns() < give_up && !(client == NULL && server == NULL)) {
    /* sleep until a packet or the earliest timer */
    udccp_tstamp next = UDCCP_TSTAMP_NEVER;
    if (client != NULL && udccp_conn_get_expiry(client) < next) {
      next = udccp_conn_get_expiry(client);
    }
    if (server != NULL && udccp_conn_get_expiry(server) < next) {
      next = udccp_conn_get_expiry(server);
    }
    udccp_tstamp t = now_ns();
    int wait_ms = next == UDCCP_TSTAMP_NEVER ? 100
                  : next <= t                ? 0
                                             : (int)((next - t) / UDCCP_NS_PER_MS + 1);
    struct pollfd pf[2] = {{.fd = cfd, .events = POLLIN},
                           {.fd = sfd, .events = POLLIN}};
    (void)poll(pf, 2, wait_ms > 100 ? 100 : wait_ms);
    uint8_t pkt[2048], out[2048];
    ssize_t n;
    while ((n = recv(cfd, pkt, sizeof(pkt), 0)) > 0 && client != NULL) {
      (void)udccp_conn_read_pkt(client, pkt, (size_t)n, 0, now_ns());
    }
    while ((n = recv(sfd, pkt, sizeof(pkt), 0)) > 0) {
      if (server != NULL) {
        (void)udccp_conn_read_pkt(server, pkt, (size_t)n, 0, now_ns());
        continue;
      }
      /* no connection yet: the listener's turn (one peer in this demo) */
      udccp_path spath = make_path(DCCP_SERVER_PORT, DCCP_CLIENT_PORT, cport);
      udccp_conn *nc = NULL;
      udccp_ssize r = udccp_listener_read_pkt(lis, &spath, pkt, (size_t)n,
                                              now_ns(), &nc, out, sizeof(out));
      if (nc != NULL) {
        server = nc;
        udccp_listener_conn_accepted(lis, server);
      } else if (r > 0) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(cport)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        (void)sendto(sfd, out, (size_t)r, 0, (struct sockaddr *)&a, sizeof(a));
      }
    }
    /* timers */
    if (client != NULL && udccp_conn_get_expiry(client) <= now_ns()) {
      (void)udccp_conn_handle_expiry(client, now_ns());
    }
    if (server != NULL && udccp_conn_get_expiry(server) <= now_ns()) {
      (void)udccp_conn_handle_expiry(server, now_ns());
    }
    /* the applications: send, read, close */
    if (client != NULL && udccp_conn_get_state(client) >= UDCCP_STATE_PARTOPEN) {
      while (sent < count && udccp_conn_get_send_space(client) > 0) {
        char msg[32];
        int len = snprintf(msg, sizeof(msg), "datagram %d", sent);
        if (udccp_conn_queue_datagram(client, msg, (size_t)len, 0, now_ns()) != 0) {
          break;
        }
        sent++;
      }
    }
    if (server != NULL) {
      char buf[2048];
      while (udccp_conn_read_datagram(server, buf, sizeof(buf)) >= 0) {
        got++;
      }
    }
    if (client != NULL && !closing && sent == count &&
        udccp_conn_get_state(client) == UDCCP_STATE_OPEN) {
      (void)udccp_conn_close(client, now_ns()); /* after the queue drains */
      closing = 1;
    }
    if (client != NULL) {
      flush(client, cfd, sport);
    }
    if (server != NULL) {
      flush(server, sfd, cport);
    }
    /* the end of each: fully closed connections are freed.  The client
     * closed, so it ends in TIMEWAIT (RFC 4340 §8.3), which lasts 2 MSL
     * (4 minutes) to absorb stragglers; a demo need not wait for it. */
    if (client != NULL &&
        (udccp_conn_is_done(client) ||
         udccp_conn_get_state(client) == UDCCP_STATE_TIMEWAIT)) {
      udccp_conn_del(client);
      client = NULL;
    }
    if (server != NULL && udccp_conn_is_done(server)) {
      udccp_listener_conn_gone(lis, server);
      udccp_conn_del(server);
      server = NULL;
    }
  }
  int ok = client == NULL && server == NULL && sent == count;
  printf("sansio: sent %d, received %d (DCCP is unreliable: losses are "
         "counted, not repaired), %s\n",
         sent, got, ok ? "closed cleanly" : "did NOT finish");
  udccp_conn_del(client);
  if (server != NULL) {
    udccp_listener_conn_gone(lis, server);
  }
  udccp_conn_del(server);
  udccp_listener_del(lis);
  close(cfd);
  close(sfd);
  return ok && got > 0 ? 0 : 1;
}

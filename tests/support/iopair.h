/* SPDX-License-Identifier: MIT */
/*
 * Test helper: two DCCP-UDP endpoints over loopback, a server with a
 * listener and a client, and one connection between them opened through
 * the public API (udccp_listen, udccp_connect, udccp_accept), both loops
 * run by the calling thread.  Shared by the io tests that need "an OPEN
 * connection" before they start.
 */
#ifndef UDCCP_TESTS_IOPAIR_H
#define UDCCP_TESTS_IOPAIR_H

#include <stdint.h>

#include <udccp/udccp.h>

typedef struct udccp_io_pair {
  udccp_endpoint *sep, *cep; /* server and client endpoints */
  udccp_sock *s, *c;         /* the accepted and the connecting sockets */
} udccp_io_pair;

typedef struct udccp_io_pair_opts {
  /* the server endpoint's local_host; NULL: every address (IPv4 and IPv6
   * sockets).  The client is always bound to 127.0.0.1 and connects
   * there. */
  const char *server_host;
  uint8_t no_offload;                /* both endpoints: no GSO/GRO */
  const udccp_settings *client_set; /* NULL: the endpoint's defaults */
  uint16_t port;                     /* DCCP port the server listens on */
  uint32_t code;                     /* service code */
  uint8_t ccid;                      /* 0: the default */
} udccp_io_pair_opts;

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t udccp_test_ms_now(void);

/* Opens the pair and runs both loops (udccp_endpoint_run, 1 ms) until the
 * server accepted and both ends are OPEN, for at most 5 s.  0 on success;
 * -1 on any failure, with what failed on stderr (the caller asserts). */
int udccp_io_pair_open(udccp_io_pair *p, const udccp_io_pair_opts *o);

/* Aborts both connections and deletes both endpoints. */
void udccp_io_pair_close(udccp_io_pair *p);

#endif /* UDCCP_TESTS_IOPAIR_H */

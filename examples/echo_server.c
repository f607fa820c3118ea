/* SPDX-License-Identifier: MIT */
/*
 * echo_server: the smallest udccp server.  Accepts DCCP-UDP connections
 * one at a time and sends every datagram back, until the client closes.
 *
 *   echo_server [UDP_PORT [DCCP_PORT]]   (defaults 6511 and 7)
 *
 * Blocking calls only: udccp_accept(), udccp_recv(), udccp_send().
 * Stops after serving EXAMPLE_MAX_CLIENTS clients if that variable is set
 * (the test suite uses it).
 */
#include <stdio.h>
#include <stdlib.h>

#include <udccp/udccp.h>

/* A port argument: 1..65535 (0 for the UDP port: any free one). */
static int port_arg(const char *s, unsigned min, uint16_t *port) {
  char *end = NULL;
  unsigned long v = strtoul(s, &end, 10);
  if (end == s || *end != '\0' || v < min || v > 65535) {
    fprintf(stderr, "usage: echo_server [UDP_PORT [DCCP_PORT]] (ports are "
                    "numbers, e.g. 6511 7; not '%s')\n", s);
    return -1;
  }
  *port = (uint16_t)v;
  return 0;
}

int main(int argc, char **argv) {
  uint16_t udp_port = UDCCP_UDP_PORT_DEFAULT;
  uint16_t dccp_port = 7;
  if (argc > 3) { /* it exited 2 and said nothing */
    fprintf(stderr, "usage: echo_server [UDP_PORT [DCCP_PORT]] (unexpected "
                    "argument '%s')\n", argv[3]);
    return 2;
  }
  if ((argc > 1 && port_arg(argv[1], 0, &udp_port) != 0) ||
      (argc > 2 && port_arg(argv[2], 1, &dccp_port) != 0)) {
    return 2;
  }
  const char *max_env = getenv("EXAMPLE_MAX_CLIENTS");
  long max_clients = max_env != NULL ? atol(max_env) : -1;
  uint32_t service;
  if (udccp_service_code_parse("ECHO", &service) != 0) {
    return 1;
  }
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new(&ep, UDCCP_TRANSPORT_UDP, "127.0.0.1", udp_port);
  if (rv != 0) {
    fprintf(stderr, "echo_server: UDP port %u: %s\n", (unsigned)udp_port,
            udccp_io_strerror(rv));
    return 1;
  }
  rv = udccp_listen(ep, dccp_port, &service, 1);
  if (rv != 0) {
    fprintf(stderr, "echo_server: DCCP port %u (UDP %u): %s\n",
            (unsigned)dccp_port, (unsigned)udp_port, udccp_io_strerror(rv));
    udccp_endpoint_del(ep);
    return 1;
  }
  printf("echo_server: listening on UDP %u, DCCP port %u, service ECHO\n",
         (unsigned)udccp_endpoint_local_port(ep), (unsigned)dccp_port);
  fflush(stdout);
  for (long served = 0; max_clients < 0 || served < max_clients; served++) {
    udccp_sock *s = NULL;
    if (udccp_accept(ep, &s, -1) != 0) {
      break;
    }
    /* Room for the largest datagram a peer may send (a connection's MPS
     * over loopback is about 64 KiB): with less, udccp_recv() refuses
     * the datagram (UDCCP_ERR_NOBUF) and it would not come back. */
    static uint8_t buf[65536];
    udccp_ssize n;
    while ((n = udccp_recv(s, buf, sizeof(buf), 30000)) >= 0) {
      if (udccp_send(s, buf, (size_t)n, 5000) < 0) {
        break;
      }
    }
    /* UDCCP_ERR_CLOSED: the client closed; anything else is an error */
    if (n != UDCCP_ERR_CLOSED) {
      fprintf(stderr, "echo_server: %s\n", udccp_io_strerror((int)n));
    }
    (void)udccp_close(s, 2000);
  }
  udccp_endpoint_del(ep);
  return 0;
}

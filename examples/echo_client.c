/* SPDX-License-Identifier: MIT */
/*
 * echo_client: connects to an echo server, sends each line of standard
 * input as one datagram and prints the answer.
 *
 *   echo_client HOST [UDP_PORT [DCCP_PORT]]   (defaults 6511 and 7)
 *
 * DCCP is unreliable: a datagram or its answer may be lost; the client
 * waits 2 s for each answer, says so when none comes, and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <udccp/udccp.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: echo_client HOST [UDP_PORT [DCCP_PORT]]\n");
    return 2;
  }
  udccp_endpoint_config cfg;
  udccp_endpoint_config_default(&cfg);
  if (argc > 2) {
    cfg.remote_udp_port = (uint16_t)atoi(argv[2]);
  }
  uint16_t dccp_port = argc > 3 ? (uint16_t)atoi(argv[3]) : 7;
  uint32_t service;
  (void)udccp_service_code_parse("ECHO", &service);
  udccp_endpoint *ep = NULL;
  int rv = udccp_endpoint_new_config(&ep, &cfg);
  if (rv != 0) {
    fprintf(stderr, "echo_client: %s\n", udccp_io_strerror(rv));
    return 1;
  }
  udccp_sock *s = NULL;
  rv = udccp_connect(ep, &s, argv[1], dccp_port, service, 2, 5000);
  if (rv != 0) {
    fprintf(stderr, "echo_client: %s UDP %u DCCP %u: %s\n", argv[1],
            (unsigned)cfg.remote_udp_port, (unsigned)dccp_port,
            udccp_io_strerror(rv));
    udccp_endpoint_del(ep);
    return 1;
  }
  char line[1024];
  int lost = 0;
  while (fgets(line, sizeof(line), stdin) != NULL) {
    size_t len = strcspn(line, "\n");
    if (udccp_send(s, line, len, 5000) < 0) {
      lost = 1;
      break;
    }
    char back[1024];
    udccp_ssize n = udccp_recv(s, back, sizeof(back) - 1, 2000);
    if (n < 0) {
      fprintf(stderr, "echo_client: no answer: %s\n", udccp_io_strerror((int)n));
      lost = 1;
      continue;
    }
    back[n] = '\0';
    printf("%s\n", back);
  }
  (void)udccp_close(s, 2000);
  udccp_endpoint_del(ep);
  return lost;
}

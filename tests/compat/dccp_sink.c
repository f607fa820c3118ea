/* SPDX-License-Identifier: MIT */
/*
 * A DCCP server written against the Linux kernel's socket API alone: it
 * listens with a Service Code and accepts and closes connections for ever
 * (the preloaded SOCK_DCCP victim of the attack suite, tests/attack/).
 *
 *   dccp_sink PORT SERVICE BACKLOG
 *
 * SERVICE is a number.  Prints "listening" once ready.
 */
#include <arpa/inet.h>
#include <linux/dccp.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_DCCP
#define SOL_DCCP 269
#endif

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: dccp_sink PORT SERVICE BACKLOG\n");
    return 2;
  }
  int fd = socket(AF_INET, SOCK_DCCP, IPPROTO_DCCP);
  if (fd < 0) {
    perror("socket");
    return 1;
  }
  uint32_t sc = htonl((uint32_t)strtoul(argv[2], NULL, 0));
  if (setsockopt(fd, SOL_DCCP, DCCP_SOCKOPT_SERVICE, &sc, sizeof(sc)) != 0) {
    perror("DCCP_SOCKOPT_SERVICE");
    return 1;
  }
  struct sockaddr_in a;
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)atoi(argv[1]));
  if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
      listen(fd, atoi(argv[3])) != 0) {
    perror("bind/listen");
    return 1;
  }
  printf("listening\n");
  fflush(stdout);
  for (;;) {
    int c = accept(fd, NULL, NULL);
    if (c >= 0) {
      close(c);
    }
  }
}

/* SPDX-License-Identifier: MIT */
/*
 * Address helpers of the socket runtime (see addr.h).
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"

static const uint8_t v4mapped_prefix[12] = {0, 0, 0, 0, 0, 0,
                                            0, 0, 0, 0, 0xff, 0xff};

int udccp_io_addr_from_sockaddr(const struct sockaddr *sa, uint8_t *family,
                                uint8_t addr[16], uint16_t *port) {
  memset(addr, 0, 16);
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;
    *family = UDCCP_AF_INET;
    memcpy(addr, &s4->sin_addr, 4);
    *port = ntohs(s4->sin_port);
    return 0;
  }
  if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *s6 =
        (const struct sockaddr_in6 *)(const void *)sa;
    const uint8_t *a = s6->sin6_addr.s6_addr;
    *port = ntohs(s6->sin6_port);
    if (memcmp(a, v4mapped_prefix, 12) == 0) {
      *family = UDCCP_AF_INET;
      memcpy(addr, a + 12, 4);
    } else {
      *family = UDCCP_AF_INET6;
      memcpy(addr, a, 16);
    }
    return 0;
  }
  return UDCCP_ERR_AFNOSUPPORT;
}

socklen_t udccp_io_addr_to_sockaddr(struct sockaddr_storage *ss,
                                    uint8_t family, const uint8_t *addr,
                                    uint16_t port) {
  /* Only the address's own bytes are zeroed (a 16-byte sockaddr_in, not
   * the 128 of the storage): every packet sent builds one. */
  if (family == UDCCP_AF_INET) {
    struct sockaddr_in *s4 = (struct sockaddr_in *)(void *)ss;
    memset(s4, 0, sizeof(*s4));
    s4->sin_family = AF_INET;
    s4->sin_port = htons(port);
    memcpy(&s4->sin_addr, addr, 4);
    return sizeof(*s4);
  }
  if (family == UDCCP_AF_INET6) {
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)(void *)ss;
    memset(s6, 0, sizeof(*s6));
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(port);
    memcpy(&s6->sin6_addr, addr, 16);
    return sizeof(*s6);
  }
  memset(ss, 0, sizeof(*ss));
  return 0;
}

int udccp_io_parse_numeric(const char *host, uint8_t *family,
                           uint8_t addr[16]) {
  memset(addr, 0, 16);
  if (host == NULL) {
    return UDCCP_ERR_RESOLVE;
  }
  if (inet_pton(AF_INET, host, addr) == 1) {
    *family = UDCCP_AF_INET;
    return 0;
  }
  /* Accept "[::1]" as well as "::1". */
  char tmp[INET6_ADDRSTRLEN + 2];
  size_t n = strlen(host);
  if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof(tmp)) {
    memcpy(tmp, host + 1, n - 2);
    tmp[n - 2] = '\0';
    host = tmp;
  }
  if (inet_pton(AF_INET6, host, addr) == 1) {
    if (memcmp(addr, v4mapped_prefix, 12) == 0) {
      memmove(addr, addr + 12, 4);
      memset(addr + 4, 0, 12);
      *family = UDCCP_AF_INET;
    } else {
      *family = UDCCP_AF_INET6;
    }
    return 0;
  }
  return UDCCP_ERR_RESOLVE;
}

int udccp_io_resolve(const char *host, int want_v4, int want_v6,
                     uint8_t *family, uint8_t addr[16]) {
  if (host == NULL || *host == '\0') {
    return UDCCP_ERR_RESOLVE;
  }
  if (udccp_io_parse_numeric(host, family, addr) == 0) {
    if ((*family == UDCCP_AF_INET && !want_v4) ||
        (*family == UDCCP_AF_INET6 && !want_v6)) {
      return UDCCP_ERR_AFNOSUPPORT;
    }
    return 0;
  }
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  if (getaddrinfo(host, NULL, &hints, &res) != 0 || res == NULL) {
    return UDCCP_ERR_RESOLVE;
  }
  int rv = UDCCP_ERR_AFNOSUPPORT;
  for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
    uint16_t port;
    if (udccp_io_addr_from_sockaddr(ai->ai_addr, family, addr, &port) != 0) {
      continue;
    }
    if ((*family == UDCCP_AF_INET && want_v4) ||
        (*family == UDCCP_AF_INET6 && want_v6)) {
      rv = 0;
      break;
    }
  }
  freeaddrinfo(res);
  return rv;
}

char *udccp_io_addr_format(char *buf, size_t cap, uint8_t family,
                           const uint8_t *addr, uint16_t port) {
  char a[INET6_ADDRSTRLEN];
  if (family == UDCCP_AF_INET6) {
    inet_ntop(AF_INET6, addr, a, sizeof(a));
    snprintf(buf, cap, "[%s]:%u", a, (unsigned)port);
  } else {
    inet_ntop(AF_INET, addr, a, sizeof(a));
    snprintf(buf, cap, "%s:%u", a, (unsigned)port);
  }
  return buf;
}

int udccp_io_addr_is_any(uint8_t family, const uint8_t *addr) {
  size_t n = family == UDCCP_AF_INET ? 4 : 16;
  for (size_t i = 0; i < n; i++) {
    if (addr[i] != 0) {
      return 0;
    }
  }
  return 1;
}

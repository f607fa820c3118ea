/* SPDX-License-Identifier: MIT */
/*
 * Addresses for the socket runtime: name resolution and the conversions
 * between struct sockaddr and the core's udccp_path address fields.
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are treated as IPv4, since
 * the DCCP pseudo-header of such a packet is the IPv4 one.
 */
#ifndef UDCCP_IO_ADDR_H
#define UDCCP_IO_ADDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <udccp/udccp.h>

/* Reads the address and port of sa into family/addr/port (host order).
 * Returns 0 or UDCCP_ERR_AFNOSUPPORT. */
int udccp_io_addr_from_sockaddr(const struct sockaddr *sa, uint8_t *family,
                                uint8_t addr[16], uint16_t *port);

/* Writes a sockaddr of the given family (udccp_family) into *ss.
 * Returns its length, or 0 for an unknown family. */
socklen_t udccp_io_addr_to_sockaddr(struct sockaddr_storage *ss,
                                    uint8_t family, const uint8_t *addr,
                                    uint16_t port);

/* Resolves host (a numeric address or a name) to the first address whose
 * family is allowed (want_v4/want_v6).  Returns 0, UDCCP_ERR_RESOLVE or
 * UDCCP_ERR_AFNOSUPPORT (the host exists but only in other families). */
int udccp_io_resolve(const char *host, int want_v4, int want_v6,
                     uint8_t *family, uint8_t addr[16]);

/* Parses a numeric address only.  Returns 0 or UDCCP_ERR_RESOLVE. */
int udccp_io_parse_numeric(const char *host, uint8_t *family,
                           uint8_t addr[16]);

/* Formats "a.b.c.d:port" or "[v6]:port" into buf.  Returns buf. */
char *udccp_io_addr_format(char *buf, size_t cap, uint8_t family,
                           const uint8_t *addr, uint16_t port);

/* 1 if the family's address bytes are all zero (unspecified). */
int udccp_io_addr_is_any(uint8_t family, const uint8_t *addr);

#endif /* UDCCP_IO_ADDR_H */

/* SPDX-License-Identifier: MIT */
/*
 * Many connections through one listener in one process, with no sockets
 * and no delay: connection i's client is 127.0.0.1:(1024 + i mod 60000)
 * and its server end is made by the listener on 127.0.0.1:5001.  Used by
 * the memory tests (test_conn_mem) and the handshake bench (hsbench).
 */
#ifndef UDCCP_TESTS_LPUMP_H
#define UDCCP_TESTS_LPUMP_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

/* Connection i's path, as seen by its server end (server = 1) or its
 * client end (server = 0). */
void udccp_lpump_path(udccp_path *p, uint32_t i, int server);

/* Moves packets between c[0] (client) and c[1] (server; NULL until the
 * listener makes it from the client's packets) until neither has one to
 * send, at most 64 rounds; *now advances by step each round (the RTT the
 * ends measure).  buf (cap bytes) holds one packet.  Returns -1 when the
 * listener fails on a packet without making the server end, else 0. */
int udccp_lpump(udccp_listener *lis, udccp_conn *c[2], uint32_t i,
                uint8_t *buf, size_t cap, udccp_tstamp *now,
                udccp_tstamp step);

#endif

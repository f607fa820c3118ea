/* SPDX-License-Identifier: MIT */
/*
 * Connection lookup for the socket runtime: an open-addressing hash table
 * keyed by what identifies a DCCP connection at this endpoint.  For
 * DCCP-UDP that is the remote UDP address and port plus both DCCP ports
 * (RFC 6773 §3.8: demultiplex on the 6-tuple, so several DCCP connections
 * may share one UDP 4-tuple); for raw DCCP the UDP port is 0.
 * Grows by doubling (rarely, at connection set-up); lookups never allocate.
 */
#ifndef UDCCP_IO_DEMUX_H
#define UDCCP_IO_DEMUX_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

typedef struct udccp_demux_key {
  uint8_t family;     /* enum udccp_family */
  uint8_t zero;       /* always 0: keys are compared bytewise */
  uint16_t udp_port;  /* remote UDP port (DCCP-UDP), 0 for raw */
  uint16_t lport;     /* local DCCP port */
  uint16_t rport;     /* remote DCCP port */
  uint8_t addr[16];   /* remote address; IPv4 in the first 4 bytes */
} udccp_demux_key;

typedef struct udccp_demux_slot {
  udccp_demux_key key;
  void *val; /* NULL: empty slot */
} udccp_demux_slot;

typedef struct udccp_demux {
  udccp_demux_slot *slots;
  size_t cap; /* power of two */
  size_t n;
  uint64_t seed; /* keyed hash: a peer cannot aim collisions at us */
} udccp_demux;

/* Builds a key; remote address bytes beyond the family's length are 0. */
void udccp_demux_key_make(udccp_demux_key *k, const udccp_path *path,
                          uint16_t remote_udp_port);

/* Returns 0 or UDCCP_ERR_NOMEM.  cap_hint is rounded up to a power of 2. */
int udccp_demux_init(udccp_demux *d, size_t cap_hint, uint64_t seed);
void udccp_demux_free(udccp_demux *d);

/* Returns 0, UDCCP_ERR_INVALID_ARGUMENT (key present, or val NULL) or
 * UDCCP_ERR_NOMEM. */
int udccp_demux_insert(udccp_demux *d, const udccp_demux_key *k, void *val);

/* Returns the value stored for k, or NULL. */
void *udccp_demux_find(const udccp_demux *d, const udccp_demux_key *k);

/* Returns 0, or UDCCP_ERR_AGAIN if k was not present. */
int udccp_demux_remove(udccp_demux *d, const udccp_demux_key *k);

#endif /* UDCCP_IO_DEMUX_H */

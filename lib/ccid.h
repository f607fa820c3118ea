/* SPDX-License-Identifier: MIT */
/*
 * The CCID interface (RFC 4340 §10).  A CCID is two halves: the sender half
 * (HC-Sender) runs on the packets we send, the receiver half (HC-Receiver)
 * on the packets we receive.  Their state lives inside the connection
 * (udccp_ccid_state, no allocation needed; a half may allocate at init
 * through env->mem and free in exit).  A CCID never sleeps: it says when it
 * may send next, and when its timer expires.
 */
#ifndef UDCCP_CCID_H
#define UDCCP_CCID_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "opt.h"

/* The interface itself (udccp_ccid_env, udccp_ccid_pkt, udccp_ccid_state,
 * udccp_ccid_dep, udccp_ccid_ops) is public: include/udccp/ccid.h, which
 * udccp.h includes.  Here: what lib/ adds to it. */

/* Returns the CCID registered under this identifier (built-in or
 * registered at run time, lib/ccid.c), or NULL. */
const udccp_ccid_ops *udccp_ccid_find(uint8_t id);

/* 1 if a CCID is registered under this identifier. */
int udccp_ccid_supported(uint8_t id);

/* Calls fn(id) for each registered CCID number outside 2..4, in increasing
 * order (the server's CCID preference list, lib/feat.c). */
void udccp_ccid_each_extra(void (*fn)(uint8_t id, void *user), void *user);

#endif /* UDCCP_CCID_H */

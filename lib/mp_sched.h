/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP packet schedulers (RFC 9897 §3.11.2 "Concurrent path
 * usage", §3.11.1 "Path mobility", §3.2.10 MP_PRIO): which subflow the
 * next datagram goes on, from what the caller knows of each subflow.
 * Pure functions; the MP connection feeds them.
 *
 * MP_PRIO classes (§3.2.10): 0 = do not use; 1 = standby, only when no
 * secondary or primary path is established; 2 = secondary, only when the
 * primary paths are not available or cannot take more; 3..15 = primary,
 * higher first.  Default 3.
 */
#ifndef UDCCP_MP_SCHED_H
#define UDCCP_MP_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

/* What a scheduler sees of one subflow. */
typedef struct udccp_mp_path_view {
  udccp_tstamp srtt;   /* smoothed RTT, 0 if not measured yet */
  uint8_t up;          /* established and usable (OPEN) */
  uint8_t can_send;    /* its CCID lets a datagram go now */
  uint8_t prio;        /* MP_PRIO value for this path, 0..15 */
} udccp_mp_path_view;

/* Min-RTT (the default): among the usable paths of the best MP_PRIO
 * class that has any usable path, the one with the smallest RTT that can
 * send now; an unmeasured RTT counts as larger than any measured one.
 * When no path of that class can send, a lower class is used only if it
 * is secondary (2) and every primary path is blocked (§3.2.10: secondary
 * paths take the overflow); standby (1) only when no primary or
 * secondary path is up.  Returns the index, or -1: wait. */
int udccp_mp_sched_minrtt(const udccp_mp_path_view *p, size_t n);

/* Active-backup (path mobility, §3.11.1): only the usable path of the
 * highest MP_PRIO (1..15), ties to the lowest RTT then index; -1 if it
 * cannot send now (no overflow onto another path). */
int udccp_mp_sched_backup(const udccp_mp_path_view *p, size_t n);

/* Round-robin over the usable paths of priority >= 1 that can send,
 * starting after *last (updated).  Returns the index or -1. */
int udccp_mp_sched_rr(const udccp_mp_path_view *p, size_t n, size_t *last);

/* Redundant: every usable path of priority >= 2, or the standby (1)
 * paths when no primary or secondary path is up (the classes of §3.2.10
 * as min-RTT uses them), once all of them can send: writes their indices
 * to out[] and returns how many; 0: wait (one of them has no room).  The
 * slowest usable path sets the pace: a path found dead is no longer
 * usable, so it does not hold the others. */
size_t udccp_mp_sched_redundant(const udccp_mp_path_view *p, size_t n,
                                size_t *out);

#endif /* UDCCP_MP_SCHED_H */

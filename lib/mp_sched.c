/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP schedulers (RFC 9897 §3.11, §3.2.10 MP_PRIO).
 */
#include "mp_sched.h"

/* The MP_PRIO class of a value: 0 never, 1 standby, 2 secondary, 3
 * primary (3..15 are all primary; their order is the value's). */
static int cls(uint8_t prio) { return prio >= 3 ? 3 : prio; }

static int rtt_less(const udccp_mp_path_view *a, const udccp_mp_path_view *b) {
  if (a->srtt == 0 || b->srtt == 0) {
    return a->srtt != 0 && b->srtt == 0; /* measured beats unmeasured */
  }
  return a->srtt < b->srtt;
}

/* Best path that can send among those of class c (primary: the highest
 * prio value first, then RTT). */
static int best_in_class(const udccp_mp_path_view *p, size_t n, int c) {
  int best = -1;
  size_t i;
  for (i = 0; i < n; i++) {
    if (!p[i].up || !p[i].can_send || cls(p[i].prio) != c) {
      continue;
    }
    if (best < 0 || p[i].prio > p[best].prio ||
        (p[i].prio == p[best].prio && rtt_less(&p[i], &p[best]))) {
      best = (int)i;
    }
  }
  return best;
}

static int class_up(const udccp_mp_path_view *p, size_t n, int c) {
  size_t i;
  for (i = 0; i < n; i++) {
    if (p[i].up && cls(p[i].prio) == c) {
      return 1;
    }
  }
  return 0;
}

int udccp_mp_sched_minrtt(const udccp_mp_path_view *p, size_t n) {
  int best = -1;
  size_t i;
  /* Primary paths: by RTT only (the prio value orders them for path
   * mobility; concurrent use takes the fastest that has room). */
  for (i = 0; i < n; i++) {
    if (p[i].up && p[i].can_send && cls(p[i].prio) == 3 &&
        (best < 0 || rtt_less(&p[i], &p[best]))) {
      best = (int)i;
    }
  }
  if (best >= 0) {
    return best;
  }
  /* Secondary: the overflow of blocked (or absent) primary paths. */
  best = best_in_class(p, n, 2);
  if (best >= 0) {
    return best;
  }
  /* Standby: only when no primary or secondary path is established. */
  if (!class_up(p, n, 3) && !class_up(p, n, 2)) {
    return best_in_class(p, n, 1);
  }
  return -1;
}

int udccp_mp_sched_backup(const udccp_mp_path_view *p, size_t n) {
  int best = -1;
  size_t i;
  for (i = 0; i < n; i++) {
    if (!p[i].up || p[i].prio == 0) {
      continue;
    }
    if (best < 0 || p[i].prio > p[best].prio ||
        (p[i].prio == p[best].prio && rtt_less(&p[i], &p[best]))) {
      best = (int)i;
    }
  }
  return best >= 0 && p[best].can_send ? best : -1;
}

int udccp_mp_sched_rr(const udccp_mp_path_view *p, size_t n, size_t *last) {
  size_t k;
  for (k = 1; k <= n; k++) {
    size_t i = (*last + k) % n;
    if (p[i].up && p[i].can_send && p[i].prio >= 1) {
      *last = i;
      return (int)i;
    }
  }
  return -1;
}

size_t udccp_mp_sched_redundant(const udccp_mp_path_view *p, size_t n,
                                size_t *out) {
  size_t i, k = 0;
  int lo = class_up(p, n, 3) || class_up(p, n, 2) ? 2 : 1;
  for (i = 0; i < n; i++) {
    if (p[i].up && cls(p[i].prio) >= lo) {
      if (!p[i].can_send) {
        return 0; /* every copy goes at once: wait for the slowest */
      }
      out[k++] = i;
    }
  }
  return k;
}

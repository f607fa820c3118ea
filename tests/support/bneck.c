/* SPDX-License-Identifier: MIT */
#include "bneck.h"

#define MS UDCCP_NS_PER_MS

uint64_t bneck_ack(bneck *b) {
  b->now = b->ack_at[b->una % BNECK_RING];
  return b->una++;
}

uint64_t bneck_send(bneck *b) {
  udccp_tstamp gap = b->gap ? b->gap : MS;
  udccp_tstamp dep = b->now + 50 * MS; /* arrival at the bottleneck */
  b->arr_at[b->next % BNECK_RING] = dep;
  if (dep < b->last_dep + gap) {
    dep = b->last_dep + gap;
  }
  b->last_dep = dep;
  b->ack_at[b->next % BNECK_RING] = dep + b->cross_queue + 50 * MS;
  return b->next++;
}

void bneck_set_gap(bneck *b, udccp_tstamp gap) {
  udccp_tstamp prev = 0;
  uint64_t q;
  b->gap = gap;
  for (q = b->una; q < b->next; q++) {
    udccp_tstamp dep = b->ack_at[q % BNECK_RING] - b->cross_queue - 50 * MS;
    if (dep <= b->now) {
      prev = dep;
      continue;
    }
    dep = b->arr_at[q % BNECK_RING];
    if (prev != 0 && dep < prev + gap) {
      dep = prev + gap;
    }
    if (dep < b->now) {
      dep = b->now;
    }
    b->ack_at[q % BNECK_RING] = dep + b->cross_queue + 50 * MS;
    prev = dep;
  }
  if (prev != 0) {
    b->last_dep = prev;
  }
}

/* SPDX-License-Identifier: MIT */
/*
 * Binary heap of events by value: no allocation per event, growth by
 * doubling (rare once the simulation reaches its steady state).
 */
#include <stdlib.h>

#include "sim_evq.h"

static int ev_before(const sim_event *a, const sim_event *b) {
  if (a->at != b->at) {
    return a->at < b->at;
  }
  return a->order < b->order;
}

int sim_evq_init(sim_evq *q, size_t cap) {
  if (cap < 16) {
    cap = 16;
  }
  q->heap = malloc(cap * sizeof(*q->heap));
  q->n = 0;
  q->cap = q->heap ? cap : 0;
  q->next_order = 0;
  return q->heap ? 0 : -1;
}

void sim_evq_free(sim_evq *q) {
  free(q->heap);
  q->heap = NULL;
  q->n = q->cap = 0;
}

int sim_evq_push(sim_evq *q, udccp_tstamp at, uint8_t kind, uint8_t which,
                 uint32_t gen, void *obj) {
  if (q->n == q->cap) {
    size_t ncap = q->cap ? q->cap * 2 : 16;
    sim_event *h = realloc(q->heap, ncap * sizeof(*h));
    if (h == NULL) {
      return -1;
    }
    q->heap = h;
    q->cap = ncap;
  }
  sim_event ev = {at, q->next_order++, obj, gen, kind, which};
  size_t i = q->n++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!ev_before(&ev, &q->heap[parent])) {
      break;
    }
    q->heap[i] = q->heap[parent];
    i = parent;
  }
  q->heap[i] = ev;
  return 0;
}

int sim_evq_pop(sim_evq *q, sim_event *out) {
  if (q->n == 0) {
    return -1;
  }
  *out = q->heap[0];
  sim_event last = q->heap[--q->n];
  size_t n = q->n, i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) {
      break;
    }
    if (c + 1 < n && ev_before(&q->heap[c + 1], &q->heap[c])) {
      c++;
    }
    if (!ev_before(&q->heap[c], &last)) {
      break;
    }
    q->heap[i] = q->heap[c];
    i = c;
  }
  if (n > 0) {
    q->heap[i] = last;
  }
  return 0;
}

const sim_event *sim_evq_peek(const sim_evq *q) {
  return q->n ? &q->heap[0] : NULL;
}

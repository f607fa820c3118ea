/* SPDX-License-Identifier: MIT */
/*
 * The event queue: a binary min-heap ordered by (time, insertion order).
 * Ties in time keep the order events were scheduled in, which is what makes
 * the simulation deterministic.
 */
#ifndef UDCCP_SIM_EVQ_H
#define UDCCP_SIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

typedef struct sim_event {
  udccp_tstamp at;  /* virtual time, ns */
  uint64_t order;   /* insertion counter: tie-breaker */
  void *obj;        /* what the event concerns (packet, flow) */
  uint32_t gen;     /* timer generation (stale timers are skipped) */
  uint8_t kind;     /* owner-defined */
  uint8_t which;    /* owner-defined sub-kind */
} sim_event;

typedef struct sim_evq {
  sim_event *heap;
  size_t n, cap;
  uint64_t next_order;
} sim_evq;

/* Returns 0, or -1 if the initial allocation failed. */
int sim_evq_init(sim_evq *q, size_t cap);
void sim_evq_free(sim_evq *q);

/* Schedules an event.  Returns 0, or -1 if the heap could not grow. */
int sim_evq_push(sim_evq *q, udccp_tstamp at, uint8_t kind, uint8_t which,
                 uint32_t gen, void *obj);

/* Removes the earliest event into *out.  Returns 0, or -1 if empty. */
int sim_evq_pop(sim_evq *q, sim_event *out);

/* The earliest event without removing it, or NULL. */
const sim_event *sim_evq_peek(const sim_evq *q);

static inline size_t sim_evq_len(const sim_evq *q) { return q->n; }

#endif /* UDCCP_SIM_EVQ_H */

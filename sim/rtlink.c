/* SPDX-License-Identifier: MIT */
/*
 * The real-time link: sim_link decides each packet's fate and arrival
 * time; this file keeps the packet bytes until then.  Because the queue is
 * FIFO at a fixed rate, arrival order is offer order, so the store is one
 * circular byte buffer: entries are appended at tail and leave at head.
 * An entry that does not fit before the end of the buffer goes to offset 0;
 * the gap left is marked (or is shorter than a header), and readers skip it.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_rtlink.h"

typedef struct rt_ent {
  udccp_tstamp arrive; /* when the packet leaves the link */
  udccp_tstamp done;   /* when its serialisation ends (leaves the queue) */
  uint32_t len;        /* RT_WRAP: the rest of the buffer is a gap */
  uint32_t copies;     /* 2 when duplicated, counts down in pop */
} rt_ent;

#define RT_HDR sizeof(rt_ent)
#define RT_WRAP UINT32_MAX
#define RT_MIN_PKT 20u             /* sizing assumes packets of >= 20 bytes */
#define RT_STORE_MAX (1ull << 30)  /* refuse configurations needing more */
#define RT_SLACK_NS (50 * UDCCP_NS_PER_MS) /* late pops, for sizing */

static size_t rt_round8(uint64_t n) {
  return (size_t)((n + 7) & ~(uint64_t)7);
}

static size_t rt_ent_size(uint32_t len) {
  return RT_HDR + rt_round8(len);
}

/* Bytes a store needs for entries holding `bytes` of packets of at least
 * RT_MIN_PKT bytes each (headers and padding included). */
static uint64_t rt_store_for(uint64_t bytes) {
  return bytes + (bytes / RT_MIN_PKT + 1) * (RT_HDR + 7);
}

size_t sim_rtlink_store_size(const sim_rtlink_cfg *cfg) {
  uint64_t big = rt_ent_size(cfg->max_pkt);
  uint64_t q = UINT64_MAX;
  if (cfg->queue_bytes > 0) {
    q = rt_store_for(cfg->queue_bytes);
  }
  if (cfg->link.queue_pkts > 0) {
    uint64_t qp = (uint64_t)cfg->link.queue_pkts * big;
    q = qp < q ? qp : q;
  }
  /* In propagation: what finishes serialisation within delay (+ slack). */
  long double bits = (long double)cfg->link.rate_bps *
                     (long double)(cfg->link.delay + RT_SLACK_NS) / 1e9L;
  uint64_t prop = rt_store_for((uint64_t)(bits / 8) + cfg->max_pkt);
  uint64_t total = q + prop + 2 * big;
  if (total > RT_STORE_MAX || q == UINT64_MAX) {
    return 0;
  }
  return (size_t)rt_round8(total);
}

int sim_rtlink_init(sim_rtlink *l, const sim_rtlink_cfg *cfg, uint64_t seed,
                    uint64_t stream, udccp_tstamp start) {
  *l = (sim_rtlink){0};
  if (cfg->link.rate_bps == 0 || cfg->link.reorder > 0.0 ||
      cfg->max_pkt == 0 ||
      (cfg->link.queue_pkts == 0 && cfg->queue_bytes == 0)) {
    return -1;
  }
  size_t cap = sim_rtlink_store_size(cfg);
  if (cap == 0) {
    return -1;
  }
  l->cfg = *cfg;
  sim_link_cfg lc = cfg->link;
  if (lc.queue_pkts == 0) {
    /* Byte limit only: a packet limit that the byte limit always meets
     * first (packets of at least RT_MIN_PKT bytes). */
    uint64_t n = cfg->queue_bytes / RT_MIN_PKT + 1;
    lc.queue_pkts = n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)n;
  }
  if (sim_link_init(&l->link, &lc, seed, stream) != 0) {
    return -1;
  }
  l->buf = malloc(cap);
  if (l->buf == NULL) {
    sim_link_free(&l->link);
    return -1;
  }
  l->cap = cap;
  l->start = start;
  return 0;
}

void sim_rtlink_free(sim_rtlink *l) {
  sim_link_free(&l->link);
  free(l->buf);
  l->buf = NULL;
}

/* The entry at off, skipping a wrap gap. */
static size_t rt_norm(const sim_rtlink *l, size_t off) {
  if (l->cap - off < RT_HDR) {
    return 0;
  }
  rt_ent e;
  memcpy(&e, l->buf + off, RT_HDR);
  return e.len == RT_WRAP ? 0 : off;
}

static rt_ent *rt_at(const sim_rtlink *l, size_t off) {
  return (rt_ent *)(void *)(l->buf + off);
}

/* Ends the queueing of the entries whose serialisation is over by now. */
static void rt_expire(sim_rtlink *l, udccp_tstamp now) {
  while (l->svc_count > 0) {
    rt_ent *e = rt_at(l, l->svc);
    if (e->done > now) {
      break;
    }
    l->backlog_bytes -= e->len;
    l->svc_count--;
    l->svc += rt_ent_size(e->len);
    if (l->svc_count > 0) {
      l->svc = rt_norm(l, l->svc);
    }
  }
}

/* Finds room for need bytes; returns its offset, or SIZE_MAX if full. */
static size_t rt_alloc(sim_rtlink *l, size_t need) {
  if (l->count == 0) {
    l->head = l->tail = l->svc = 0;
  }
  size_t t = l->tail;
  if (l->count == 0 || t > l->head) {
    /* free: [t, cap) then [0, head) */
    if (l->cap - t >= need) {
      return t;
    }
    if (need <= l->head) {
      if (l->cap - t >= RT_HDR) {
        rt_ent gap = {.len = RT_WRAP};
        memcpy(l->buf + t, &gap, RT_HDR);
      }
      return 0;
    }
    return SIZE_MAX;
  }
  /* wrapped: free is [t, head) */
  return l->head - t >= need ? t : SIZE_MAX;
}

int sim_rtlink_offer(sim_rtlink *l, const uint8_t *pkt, uint32_t len,
                     udccp_tstamp now) {
  sim_rtlink_stats *st = &l->stats;
  st->offered++;
  st->offered_bytes += len;
  /* The fixed burst, once: the first burst_pkts packets offered from
   * start + burst_at on (or after the first burst_after) are lost. */
  if (l->cfg.burst_pkts > 0 && !l->burst_done &&
      (l->cfg.burst_after > 0 ? st->offered > l->cfg.burst_after
                              : now >= l->start + l->cfg.burst_at)) {
    l->burst_done = 1;
    l->burst_left = l->cfg.burst_pkts;
  }
  if (l->burst_left > 0) {
    l->burst_left--;
    st->lost_fixed_burst++;
    return SIM_RTLINK_LOST_FIXED_BURST;
  }
  rt_expire(l, now);
  if (l->cfg.queue_bytes > 0 &&
      l->backlog_bytes + len > l->cfg.queue_bytes) {
    st->dropped_queue++;
    return SIM_RTLINK_DROPPED_QUEUE;
  }
  size_t need = rt_ent_size(len);
  size_t off = len > l->cfg.max_pkt ? SIZE_MAX : rt_alloc(l, need);
  if (off == SIZE_MAX) {
    st->dropped_store++;
    return SIM_RTLINK_DROPPED_STORE;
  }
  udccp_tstamp arrive[2];
  int verdict;
  int n = sim_link_send(&l->link, len, now, arrive, &verdict);
  if (n == 0) {
    switch (verdict) {
    case SIM_LINK_LOST_RANDOM: st->lost_random++; return SIM_RTLINK_LOST_RANDOM;
    case SIM_LINK_LOST_BURST: st->lost_burst++; return SIM_RTLINK_LOST_BURST;
    default: st->dropped_queue++; return SIM_RTLINK_DROPPED_QUEUE;
    }
  }
  rt_ent e = {.arrive = arrive[0], .done = arrive[0] - l->cfg.link.delay,
              .len = len, .copies = (uint32_t)n};
  memcpy(l->buf + off, &e, RT_HDR);
  memcpy(l->buf + off + RT_HDR, pkt, len);
  if (l->count == 0) {
    l->head = off;
  }
  if (l->svc_count == 0) {
    l->svc = off;
  }
  l->tail = off + need;
  l->count++;
  l->svc_count++;
  l->backlog_bytes += len;
  st->forwarded++;
  st->forwarded_bytes += len;
  st->duplicated += (uint64_t)(n - 1);
  if (l->backlog_bytes > st->max_backlog_bytes) {
    st->max_backlog_bytes = l->backlog_bytes;
  }
  if (l->svc_count > st->max_backlog_pkts) {
    st->max_backlog_pkts = (uint32_t)l->svc_count;
  }
  return SIM_RTLINK_QUEUED;
}

udccp_tstamp sim_rtlink_next(const sim_rtlink *l) {
  return l->count == 0 ? UINT64_MAX : rt_at(l, l->head)->arrive;
}

const uint8_t *sim_rtlink_peek(sim_rtlink *l, udccp_tstamp now,
                               uint32_t *len) {
  if (l->count == 0) {
    return NULL;
  }
  rt_ent *e = rt_at(l, l->head);
  if (e->arrive > now) {
    return NULL;
  }
  rt_expire(l, now); /* done <= arrive <= now: the head leaves the queue */
  *len = e->len;
  return l->buf + l->head + RT_HDR;
}

int sim_rtlink_pop(sim_rtlink *l) {
  if (l->count == 0) {
    return 0;
  }
  rt_ent *e = rt_at(l, l->head);
  l->stats.delivered++;
  l->stats.delivered_bytes += e->len;
  if (--e->copies > 0) {
    return 0;
  }
  if (l->svc_count == l->count) {
    /* popped without peek at its arrival: it leaves the queue too */
    l->backlog_bytes -= e->len;
    l->svc_count--;
    l->svc += rt_ent_size(e->len);
  }
  l->head += rt_ent_size(e->len);
  l->count--;
  if (l->count > 0) {
    l->head = rt_norm(l, l->head);
    if (l->svc_count > 0) {
      l->svc = rt_norm(l, l->svc);
    }
  } else {
    l->head = l->tail = l->svc = 0;
  }
  return 1;
}

uint64_t sim_rtlink_backlog_bytes(sim_rtlink *l, udccp_tstamp now) {
  rt_expire(l, now);
  return l->backlog_bytes;
}

size_t sim_rtlink_backlog_pkts(sim_rtlink *l, udccp_tstamp now) {
  rt_expire(l, now);
  return l->svc_count;
}

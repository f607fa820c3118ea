/* SPDX-License-Identifier: MIT */
/*
 * Link arithmetic.  Because the queue is FIFO at a fixed rate, a packet's
 * departure time is known when it enters: the queue is just the list of
 * departure times still in the future, which is all drop-tail needs.
 */
#include <math.h>
#include <stdlib.h>

#include "sim_link.h"

int sim_link_init(sim_link *l, const sim_link_cfg *cfg, uint64_t seed,
                  uint64_t stream) {
  *l = (sim_link){0};
  if (cfg->rate_bps == 0 || cfg->queue_pkts == 0) {
    return -1;
  }
  l->cfg = *cfg;
  l->measure_end = UDCCP_TSTAMP_NEVER;
  sim_rng_seed(&l->rng, seed, stream);
  uint32_t cap = 1;
  while (cap < cfg->queue_pkts) {
    cap <<= 1;
  }
  l->txq = malloc(cap * sizeof(*l->txq));
  if (l->txq == NULL) {
    return -1;
  }
  l->txq_mask = cap - 1;
  return 0;
}

void sim_link_free(sim_link *l) {
  free(l->txq);
  l->txq = NULL;
}

static void link_expire(sim_link *l, udccp_tstamp now) {
  while (l->txq_count > 0 && l->txq[l->txq_head] <= now) {
    l->txq_head = (l->txq_head + 1) & l->txq_mask;
    l->txq_count--;
  }
}

uint32_t sim_link_backlog(sim_link *l, udccp_tstamp now) {
  link_expire(l, now);
  return l->txq_count;
}

udccp_tstamp sim_link_ser_time(const sim_link *l, uint32_t wire_bytes) {
  uint64_t num = (uint64_t)wire_bytes * 8 * UDCCP_NS_PER_S;
  return (num + l->cfg.rate_bps - 1) / l->cfg.rate_bps;
}

int sim_link_in_blackout(const sim_link *l, udccp_tstamp t) {
  for (uint32_t i = 0; i < l->cfg.n_blackouts; i++) {
    const sim_blackout *b = &l->cfg.blackouts[i];
    if (t >= b->at && t - b->at < b->len) {
      return 1;
    }
  }
  return 0;
}

void sim_link_set_rate(sim_link *l, uint64_t rate_bps) {
  if (rate_bps == 0) {
    return;
  }
  /* tx_frac counts 1/rate ns: round the pending fraction up to a whole ns
   * so it means the same under the new rate. */
  if (l->tx_frac > 0) {
    l->tx_end++;
    l->tx_frac = 0;
  }
  l->cfg.rate_bps = rate_bps;
}

static int link_lost_before_queue(sim_link *l, udccp_tstamp now,
                                  int *verdict) {
  if (sim_link_in_blackout(l, now)) {
    l->stats.lost_blackout++;
    *verdict = SIM_LINK_LOST_BLACKOUT;
    return 1;
  }
  if (sim_rng_chance(&l->rng, l->cfg.loss)) {
    l->stats.lost_random++;
    *verdict = SIM_LINK_LOST_RANDOM;
    return 1;
  }
  if (l->cfg.ge_p > 0.0) {
    /* Gilbert-Elliott: the channel state moves (per packet, or per slot
     * of time elapsed), then the packet is lost with the bad state's
     * probability. */
    if (l->cfg.ge_slot > 0) {
      /* k steps of the two-state chain at once (k may be fractional):
       * P(bad) = pi + (bad_now - pi) (1 - p - r)^k, pi = p / (p + r). */
      double p = l->cfg.ge_p, r = l->cfg.ge_r, pi = p / (p + r);
      double k = now > l->ge_t
                     ? (double)(now - l->ge_t) / (double)l->cfg.ge_slot
                     : 0.0;
      /* p + r > 1 (a chain that flips more often than it stays) has a
       * negative eigenvalue, and pow() of it at a fractional k is NaN: no
       * packet was ever lost (--burst-loss 0.9,0.2 lost nothing).  Its
       * memory then fades within a step: take the stationary state. */
      double base = 1.0 - p - r > 0.0 ? 1.0 - p - r : 0.0;
      double pb = pi + ((l->ge_bad ? 1.0 : 0.0) - pi) * pow(base, k);
      l->ge_bad = sim_rng_chance(&l->rng, pb);
      if (now > l->ge_t) {
        l->ge_t = now;
      }
    } else if (l->ge_bad) {
      if (sim_rng_chance(&l->rng, l->cfg.ge_r)) {
        l->ge_bad = 0;
      }
    } else if (sim_rng_chance(&l->rng, l->cfg.ge_p)) {
      l->ge_bad = 1;
    }
    if (l->ge_bad && sim_rng_chance(&l->rng, l->cfg.ge_h)) {
      l->stats.lost_burst++;
      *verdict = SIM_LINK_LOST_BURST;
      return 1;
    }
  }
  return 0;
}

int sim_link_send(sim_link *l, uint32_t wire_bytes, udccp_tstamp now,
                  udccp_tstamp arrive[2], int *verdict) {
  return sim_link_send_ecn(l, wire_bytes, now, arrive, verdict, NULL);
}

/* RED-like marking on the instantaneous queue (RFC 3168 §5: mark ECT
 * packets where a non-ECN queue would drop early). */
static void link_mark(sim_link *l, uint8_t *ecn) {
  uint32_t q = l->txq_count;
  double p;
  if (ecn == NULL || l->cfg.mark_min == 0 || (*ecn != 1 && *ecn != 2) ||
      q < l->cfg.mark_min) {
    return;
  }
  if (q >= l->cfg.mark_max) {
    p = 1.0;
  } else {
    p = l->cfg.mark_pmax * (double)(q - l->cfg.mark_min) /
        (double)(l->cfg.mark_max - l->cfg.mark_min);
  }
  if (sim_rng_chance(&l->rng, p)) {
    *ecn = 3;
    l->stats.ce_marked++;
  }
}

int sim_link_send_ecn(sim_link *l, uint32_t wire_bytes, udccp_tstamp now,
                      udccp_tstamp arrive[2], int *verdict, uint8_t *ecn) {
  l->stats.offered++;
  if (link_lost_before_queue(l, now, verdict)) {
    return 0;
  }
  link_expire(l, now);
  if (l->txq_count >= l->cfg.queue_pkts) {
    l->stats.dropped_queue++;
    *verdict = SIM_LINK_DROPPED_QUEUE;
    return 0;
  }
  link_mark(l, ecn);
  /* Service starts when the previous packet is done, or now if idle. */
  uint64_t rate = l->cfg.rate_bps;
  udccp_tstamp start = l->tx_end;
  uint64_t frac = l->tx_frac;
  if (l->txq_count == 0 || now > start || (now == start && frac == 0)) {
    start = now;
    frac = 0;
  }
  uint64_t num = (uint64_t)wire_bytes * 8 * UDCCP_NS_PER_S;
  udccp_tstamp end = start + num / rate;
  frac += num % rate;
  if (frac >= rate) {
    end++;
    frac -= rate;
  }
  l->tx_end = end;
  l->tx_frac = frac;
  udccp_tstamp done = end + (frac > 0);
  l->txq[(l->txq_head + l->txq_count) & l->txq_mask] = done;
  l->txq_count++;
  if (l->txq_count > l->stats.max_backlog) {
    l->stats.max_backlog = l->txq_count;
  }
  if (sim_link_in_blackout(l, done)) {
    /* serialised into a dead link: the queue slot was used, nothing
     * arrives */
    l->stats.lost_blackout++;
    *verdict = SIM_LINK_LOST_BLACKOUT;
    return 0;
  }
  l->stats.forwarded++;
  l->stats.forwarded_bytes += wire_bytes;
  if (done <= l->measure_end) {
    l->stats.measured_bytes += wire_bytes;
  }
  if (done - now > l->stats.max_sojourn) {
    l->stats.max_sojourn = done - now;
  }
  *verdict = SIM_LINK_SENT;
  if (sim_rng_chance(&l->rng, l->cfg.corrupt)) {
    l->stats.corrupted++;
    *verdict = SIM_LINK_CORRUPTED;
  }
  arrive[0] = done + l->cfg.delay;
  if (sim_rng_chance(&l->rng, l->cfg.reorder)) {
    arrive[0] += l->cfg.reorder_delay;
    l->stats.reordered++;
  }
  if (sim_rng_chance(&l->rng, l->cfg.dup)) {
    arrive[1] = arrive[0];
    l->stats.duplicated++;
    return 2;
  }
  return 1;
}

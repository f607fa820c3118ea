/* SPDX-License-Identifier: MIT */
/*
 * The simulation loop: flows, the two links of the dumbbell, sampling and
 * the measured period.  Events are taken in (time, insertion) order; every
 * random choice comes from generators seeded from cfg->seed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_evq.h"
#include "sim_flow.h"
#include "sim_pcap.h"

enum {
  EV_DELIVER = 1, /* obj: sim_pkt arriving at the end of its link */
  EV_TIMER,       /* obj: sim_flow; which: timer index; gen: generation */
  EV_SAMPLE,      /* the 1-second goodput and RTT samples */
  EV_STOP,        /* the measured period ends */
  EV_PROGRESS,
  EV_RATE,        /* which: index into cfg->rate_steps */
  EV_FLOW_STOP    /* obj: sim_flow whose application stops early */
};

/* Random streams (sim_rng_seed's stream argument). */
enum { STREAM_START = 1, STREAM_LINK_FWD = 2, STREAM_LINK_REV = 3,
       STREAM_CORRUPT = 4, STREAM_LINK_PATHS = 100, STREAM_FLOW_BASE = 1000 };

struct sim {
  const sim_config *cfg;
  sim_evq evq;
  sim_pool pool;
  sim_link link[SIM_MAX_PATHS][2]; /* [path][SIM_DIR_*] */
  uint32_t n_paths;
  sim_flow *flows;
  size_t n_flows;
  udccp_tstamp now, stop_at, end_limit, next_sample;
  int stopped;
  int oom;
  sim_pcap pcap;
  int pcap_on;
  uint64_t events;
  uint64_t progress_mark; /* total delivered bytes at the last progress */
  sim_rng corrupt_rng;    /* which bit a corruption flips */
  uint8_t scratch[SIM_PKT_CAP + 64];
};

void sim_config_default(sim_config *c) {
  memset(c, 0, sizeof(*c));
  c->duration = 30 * UDCCP_NS_PER_S;
  c->seed = 1;
  c->ge_h = 1.0;
  c->start_spread = UDCCP_TSTAMP_NEVER;
  c->close_grace = 300 * UDCCP_NS_PER_S;
  c->progress_every = 10 * UDCCP_NS_PER_S;
}

uint32_t sim_bdp_pkts(uint64_t rate_bps, udccp_tstamp delay) {
  /* rate x RTT / (8 x 1500), RTT = 2 x delay; in double to avoid overflow
   * at high rates and long delays. */
  double bdp = (double)rate_bps * 2.0 * (double)delay / 1e9 / (8.0 * 1500.0);
  double pkts = ceil(bdp);
  if (pkts < 2) {
    pkts = 2;
  }
  if (pkts > 1e7) {
    pkts = 1e7;
  }
  return (uint32_t)pkts;
}

double sim_jain(const double *x, size_t n) {
  double s = 0, s2 = 0;
  for (size_t i = 0; i < n; i++) {
    s += x[i];
    s2 += x[i] * x[i];
  }
  if (n == 0 || s2 <= 0) {
    return 0;
  }
  return s * s / ((double)n * s2);
}

/* ------------------------------------------------------ flow services */

const sim_config *sim_flow_config(const sim_flow *f) { return f->sim->cfg; }

uint64_t sim_flow_seed(const sim_flow *f) {
  return f->sim->cfg->seed ^ ((uint64_t)(STREAM_FLOW_BASE + f->id) << 32);
}

sim_pkt *sim_flow_pkt_new(sim_flow *f) {
  sim_pkt *p = sim_pool_get(&f->sim->pool);
  if (p == NULL) {
    f->sim->oom = 1;
    return NULL;
  }
  p->flow = f->id;
  return p;
}

void sim_flow_pkt_free(sim_flow *f, sim_pkt *p) { sim_pool_put(&f->sim->pool, p); }

const uint8_t *sim_flow_pcap_dccp(const sim_flow *f, const sim_pkt *p,
                                  uint8_t *scratch, size_t cap, size_t *len,
                                  uint8_t *proto) {
  (void)f, (void)scratch, (void)cap;
  *len = p->len;
  *proto = 33; /* DCCP, RFC 4340 §19.1 */
  return p->data;
}

uint32_t sim_flow_n_paths(const sim_flow *f) { return f->sim->n_paths; }

void sim_flow_path_addr(const sim_flow *f, uint32_t path, uint8_t cli[4],
                        uint8_t srv[4]) {
  memcpy(cli, f->cli_addr, 4);
  memcpy(srv, f->srv_addr, 4);
  /* path k > 0: 10.k.0.1 to 10.k.1.1 (a host with one address per path) */
  if (path > 0) {
    cli[1] = srv[1] = (uint8_t)path;
  }
}

void sim_flow_xmit(sim_flow *f, sim_pkt *p, udccp_tstamp now) {
  sim *s = f->sim;
  udccp_tstamp arrive[2];
  int verdict;
  int fwd = p->dir == SIM_DIR_FWD;
  if (fwd) {
    f->fwd_offered++;
  }
  p->sent_at = now;
  int n = sim_link_send_ecn(&s->link[p->path][p->dir], p->wire_len, now, arrive,
                            &verdict, &p->ecn);
  if (n == 0) {
    if (fwd) {
      f->fwd_lost++;
    }
    sim_pool_put(&s->pool, p);
    return;
  }
  if (verdict == SIM_LINK_CORRUPTED) {
    /* One bit flipped anywhere in the L4 packet: the Internet checksum
     * always detects a single-bit error (RFC 1071), so a receiver that
     * checks it (RFC 4340 §9) must refuse every such packet.  Kinds
     * without real bytes (the TCP model) see only the flag. */
    p->corrupt = 1;
    f->corrupted += (uint64_t)n;
    if (p->len > 0) {
      uint64_t bit = sim_rng_below(&s->corrupt_rng, (uint64_t)p->len * 8);
      p->data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
  }
  if (n == 2) {
    sim_pkt *d = sim_pool_get(&s->pool);
    if (d != NULL) {
      d->flow = p->flow;
      d->wire_len = p->wire_len;
      d->len = p->len;
      d->dir = p->dir;
      d->ecn = p->ecn;
      d->corrupt = p->corrupt;
      d->path = p->path;
      d->sent_at = p->sent_at;
      memcpy(d->meta, p->meta, sizeof(d->meta));
      memcpy(d->data, p->data, p->len);
      if (sim_evq_push(&s->evq, arrive[1], EV_DELIVER, 0, 0, d) != 0) {
        sim_pool_put(&s->pool, d);
        s->oom = 1;
      }
    }
  }
  if (sim_evq_push(&s->evq, arrive[0], EV_DELIVER, 0, 0, p) != 0) {
    sim_pool_put(&s->pool, p);
    s->oom = 1;
  }
}

void sim_flow_arm(sim_flow *f, unsigned which, udccp_tstamp at) {
  if (which >= SIM_FLOW_TIMERS || at == UDCCP_TSTAMP_NEVER) {
    return;
  }
  if (at < f->sim->now) {
    at = f->sim->now;
  }
  /* An earlier wakeup already pending covers this one: the flow re-arms
   * when it fires.  This keeps one heap entry per timer move earlier,
   * not one per re-arm. */
  if (f->timers[which].at <= at) {
    return;
  }
  f->timers[which].at = at;
  f->timers[which].gen++;
  if (sim_evq_push(&f->sim->evq, at, EV_TIMER, (uint8_t)which,
                   f->timers[which].gen, f) != 0) {
    f->sim->oom = 1;
  }
}

void sim_flow_delivered(sim_flow *f, size_t bytes) {
  f->delivered_pkts++;
  f->delivered_bytes += bytes;
}

void sim_flow_corrupt_seen(sim_flow *f, const sim_pkt *p, int accepted) {
  if (!p->corrupt) {
    return;
  }
  if (accepted) {
    f->corrupt_accepted++;
  } else {
    f->corrupt_caught++;
  }
}

uint64_t sim_flow_app_bytes(const sim_flow *f, udccp_tstamp since,
                            udccp_tstamp now) {
  if (f->app_rate_bps == 0) {
    return UINT64_MAX;
  }
  if (now <= since) {
    return 0;
  }
  /* in double: rate x time overflows 64 bits at high rates */
  return (uint64_t)((double)(now - since) / 1e9 *
                    (double)f->app_rate_bps / 8.0);
}

udccp_tstamp sim_flow_app_time(const sim_flow *f, udccp_tstamp since,
                               uint64_t bytes) {
  if (f->app_rate_bps == 0) {
    return since;
  }
  double t = (double)bytes * 8.0 / (double)f->app_rate_bps * 1e9;
  return since + (udccp_tstamp)ceil(t) + 1;
}

/* ---------------------------------------------------------- sampling */

static void take_sample(sim *s, udccp_tstamp now) {
  size_t k = (size_t)(now / UDCCP_NS_PER_S);
  for (size_t i = 0; i < s->n_flows; i++) {
    sim_flow *f = &s->flows[i];
    uint64_t bytes = f->delivered_bytes - f->bin_mark;
    f->bin_mark = f->delivered_bytes;
    if (k >= 1 && k - 1 < f->n_bins) {
      f->bins[k - 1] = bytes;
    }
    sim_flow_sample smp;
    memset(&smp, 0, sizeof(smp));
    f->kind->sample(f, &smp);
    if (smp.srtt > 0) {
      f->rtt_sum += (double)smp.srtt / 1e6;
      f->rtt_n++;
    }
    if (k >= 1 && k - 1 < f->n_bins && smp.x_recv_bps > 0) {
      f->xr_sum += smp.x_recv_bps;
      f->xr_n++;
    }
    if (k >= 1 && k - 1 < f->n_bins && smp.p > 0) {
      f->p_sum += smp.p;
      f->p_n++;
    }
    f->p_end = smp.p;
    if (s->cfg->csv != NULL) {
      fprintf(s->cfg->csv, "%.3f,%zu,%s,%.0f,%.3f,%u,%u,%u,%.0f,%.6f\n",
              (double)now / 1e9, i, f->kind->name, (double)bytes * 8.0,
              (double)smp.srtt / 1e6, smp.cwnd, smp.ack_ratio,
              sim_link_backlog(&s->link[0][SIM_DIR_FWD], now), smp.x_bps,
              smp.p);
    }
  }
}

static void do_progress(sim *s, udccp_tstamp now) {
  uint64_t total = 0;
  for (size_t i = 0; i < s->n_flows; i++) {
    total += s->flows[i].delivered_bytes;
  }
  sim_progress p;
  p.now = now;
  p.duration = s->cfg->duration;
  p.goodput_bps = (double)(total - s->progress_mark) * 8.0 /
                  ((double)s->cfg->progress_every / 1e9);
  p.backlog = sim_link_backlog(&s->link[0][SIM_DIR_FWD], now);
  s->progress_mark = total;
  s->cfg->progress(s->cfg->progress_user_data, &p);
}

static void do_stop(sim *s, udccp_tstamp now) {
  if (s->next_sample == now) {
    take_sample(s, now);
  }
  s->stopped = 1;
  for (size_t i = 0; i < s->n_flows; i++) {
    sim_flow *f = &s->flows[i];
    f->m_sent = f->sent_pkts;
    f->m_dpkts = f->delivered_pkts;
    f->m_dbytes = f->delivered_bytes;
    f->m_offered = f->fwd_offered;
    f->m_lost = f->fwd_lost;
    if (!f->stopped) {
      f->stopped = 1;
      f->kind->stop(f, now);
    }
  }
}

/* A flow's application stops before the measured period ends; its
 * counters keep running until then (it may still deliver queued data). */
static void flow_stop_early(sim *s, sim_flow *f) {
  if (!f->stopped) {
    f->stopped = 1;
    f->kind->stop(f, s->now);
  }
}

static int all_done(const sim *s) {
  for (size_t i = 0; i < s->n_flows; i++) {
    if (!s->flows[i].kind->done(&s->flows[i])) {
      return 0;
    }
  }
  return 1;
}

static void capture(sim *s, const sim_flow *f, const sim_pkt *p) {
  size_t len = 0;
  uint8_t proto = 0;
  const uint8_t *l4 = f->kind->pcap_l4(f, p, s->scratch, sizeof(s->scratch),
                                       &len, &proto);
  if (l4 == NULL) {
    return;
  }
  int fwd = p->dir == SIM_DIR_FWD;
  uint8_t cli[4], srv[4];
  sim_flow_path_addr(f, p->path, cli, srv);
  sim_pcap_write_ipv4(&s->pcap, s->now, fwd ? cli : srv, fwd ? srv : cli,
                      proto, p->ecn & 3, l4, len);
}

/* One-way delay histogram: SIM_OWD_BINS bins of SIM_OWD_BIN ns (0 to
 * 3.3 s); beyond it, counted and the maximum kept. */
#define SIM_OWD_BIN (50 * 1000)
#define SIM_OWD_BINS (1u << 16)

static void delay_note(sim_delay_hist *h, udccp_tstamp d) {
  uint64_t bin = d / SIM_OWD_BIN;
  if (h->bins == NULL) {
    h->bins = calloc(SIM_OWD_BINS, sizeof(*h->bins));
    if (h->bins == NULL) {
      return;
    }
    h->min = d;
  }
  if (bin >= SIM_OWD_BINS) {
    h->over++;
  } else {
    h->bins[bin]++;
  }
  h->n++;
  if (d < h->min) {
    h->min = d;
  }
  if (d > h->max) {
    h->max = d;
  }
}

static void owd_note(sim_flow *f, const sim_pkt *p, udccp_tstamp now) {
  if (p->dir != SIM_DIR_FWD || f->stopped || now < p->sent_at ||
      (f->kind->ccid != 0 && p->wire_len <= SIM_OWD_MIN_WIRE)) {
    return;
  }
  delay_note(&f->owd, now - p->sent_at);
}

void sim_flow_app_delay(sim_flow *f, udccp_tstamp written, udccp_tstamp now) {
  if (!f->stopped && now >= written) {
    delay_note(&f->app_delay, now - written);
  }
}

/* The q-quantile of the histogram, ms (bin middles; the maximum past the
 * last bin). */
static double delay_quantile(const sim_delay_hist *h, double q) {
  uint64_t want = (uint64_t)ceil(q * (double)h->n), acc = 0;
  if (want == 0) {
    want = 1;
  }
  for (uint32_t b = 0; b < SIM_OWD_BINS; b++) {
    acc += h->bins[b];
    if (acc >= want) {
      double mid = ((double)b + 0.5) * SIM_OWD_BIN;
      if (mid < (double)h->min) {
        mid = (double)h->min;
      }
      if (mid > (double)h->max) {
        mid = (double)h->max;
      }
      return mid / 1e6;
    }
  }
  return (double)h->max / 1e6;
}

/* min, p50, p95, p99, max of h, ms; all 0 without samples */
static void delay_summary(const sim_delay_hist *h, double out[5]) {
  if (h->n == 0 || h->bins == NULL) {
    memset(out, 0, 5 * sizeof(*out));
    return;
  }
  out[0] = (double)h->min / 1e6;
  out[1] = delay_quantile(h, 0.50);
  out[2] = delay_quantile(h, 0.95);
  out[3] = delay_quantile(h, 0.99);
  out[4] = (double)h->max / 1e6;
}

static void dispatch(sim *s, const sim_event *ev) {
  switch (ev->kind) {
  case EV_DELIVER: {
    sim_pkt *p = ev->obj;
    sim_flow *f = &s->flows[p->flow];
    if (s->pcap_on) {
      capture(s, f, p);
    }
    if (p->corrupt && f->kind->ccid == 0) {
      /* the TCP model carries no bytes: its checksum drops the segment */
      f->corrupt_caught++;
      sim_pool_put(&s->pool, p);
      break;
    }
    owd_note(f, p, s->now);
    f->kind->recv(f, p, s->now);
    break;
  }
  case EV_TIMER: {
    sim_flow *f = ev->obj;
    if (ev->gen != f->timers[ev->which].gen) {
      break; /* superseded by an earlier wakeup */
    }
    f->timers[ev->which].at = UDCCP_TSTAMP_NEVER;
    f->kind->timer(f, ev->which, s->now);
    break;
  }
  case EV_SAMPLE:
    take_sample(s, s->now);
    s->next_sample += UDCCP_NS_PER_S;
    if (s->next_sample < s->stop_at) {
      sim_evq_push(&s->evq, s->next_sample, EV_SAMPLE, 0, 0, NULL);
    }
    break;
  case EV_STOP:
    do_stop(s, s->now);
    break;
  case EV_RATE: {
    uint64_t rate = s->cfg->rate_steps[ev->which].rate_bps;
    sim_link_set_rate(&s->link[0][SIM_DIR_FWD], rate);
    sim_link_set_rate(&s->link[0][SIM_DIR_REV], rate);
    break;
  }
  case EV_FLOW_STOP:
    flow_stop_early(s, ev->obj);
    break;
  case EV_PROGRESS:
    do_progress(s, s->now);
    if (s->now + s->cfg->progress_every < s->stop_at) {
      sim_evq_push(&s->evq, s->now + s->cfg->progress_every, EV_PROGRESS, 0,
                   0, NULL);
    }
    break;
  default:
    break;
  }
}

/* ----------------------------------------------------------- results */

static void flow_result(const sim *s, sim_flow *f, sim_flow_result *r) {
  double dur = (double)s->cfg->duration / 1e9;
  r->kind = f->kind->name;
  r->ccid = f->kind->ccid;
  r->tfrc = f->kind->tfrc;
  r->client_reset = r->server_reset = UDCCP_RESET_NONE;
  f->kind->finish(f, r);
  r->packet_size = f->packet_size;
  r->goodput_bps = (double)f->m_dbytes * 8.0 / dur;
  r->loss_rate = f->m_offered ? (double)f->m_lost / (double)f->m_offered : 0;
  r->rtt_ms = f->rtt_n ? f->rtt_sum / (double)f->rtt_n : 0;
  r->sent_pkts = f->m_sent;
  r->delivered_pkts = f->m_dpkts;
  r->delivered_bytes = f->m_dbytes;
  r->fwd_offered = f->m_offered;
  r->fwd_lost = f->m_lost;
  double sum = 0, sum2 = 0;
  for (size_t k = 0; k < f->n_bins; k++) {
    sum += (double)f->bins[k];
  }
  double mean = f->n_bins ? sum / (double)f->n_bins : 0;
  for (size_t k = 0; k < f->n_bins; k++) {
    double d = (double)f->bins[k] - mean;
    sum2 += d * d;
  }
  r->rate_cov = mean > 0 ? sqrt(sum2 / (double)f->n_bins) / mean : 0;
  if (f->owd.n > 0) {
    double d[5];
    delay_summary(&f->owd, d);
    r->owd_samples = f->owd.n;
    r->owd_min_ms = d[0];
    r->owd_p50_ms = d[1];
    r->owd_p95_ms = d[2];
    r->owd_p99_ms = d[3];
    r->owd_max_ms = d[4];
  }
  r->app_delay_samples = f->app_delay.n;
  delay_summary(&f->app_delay, r->app_delay_ms);
  if (r->tfrc) {
    r->loss_event_rate = f->p_n ? f->p_sum / (double)f->p_n : 0;
    r->loss_event_rate_end = f->p_end;
    r->x_recv_bps = f->xr_n ? f->xr_sum / (double)f->xr_n : 0;
  }
  r->rate_series = calloc(f->n_bins ? f->n_bins : 1, sizeof(double));
  if (r->rate_series != NULL) {
    for (size_t k = 0; k < f->n_bins; k++) {
      r->rate_series[k] = (double)f->bins[k] * 8.0;
    }
    r->n_series = f->n_bins;
  }
  if (f->err[0] != '\0') {
    memcpy(r->err, f->err, sizeof(r->err));
  }
}

/* The first path's mean rate over the measured period [0, duration]:
 * with --rate-change steps, utilization is over the capacity the link
 * had, not over the rate it ended with (a run that dropped to 1kbit at
 * 1 s reported a utilization of 1449.984).  Steps at one time apply in
 * the order given, as their events do. */
static double path0_mean_rate(const sim_config *cfg, double initial) {
  sim_rate_step st[SIM_MAX_SCHED];
  uint32_t n = cfg->n_rate_steps;
  udccp_tstamp end = cfg->duration, t = 0;
  double cur = initial, acc = 0;
  memcpy(st, cfg->rate_steps, n * sizeof(st[0]));
  for (uint32_t i = 1; i < n; i++) { /* stable insertion sort by time */
    sim_rate_step x = st[i];
    uint32_t j = i;
    for (; j > 0 && st[j - 1].at > x.at; j--) {
      st[j] = st[j - 1];
    }
    st[j] = x;
  }
  for (uint32_t i = 0; i < n && st[i].at < end; i++) {
    acc += cur * (double)(st[i].at - t);
    t = st[i].at;
    cur = (double)st[i].rate_bps;
  }
  acc += cur * (double)(end - t);
  return end > 0 ? acc / (double)end : initial;
}

static void summarise(sim *s, sim_result *res) {
  double dur = (double)s->cfg->duration / 1e9;
  double total = 0;
  double *x = calloc(s->n_flows ? s->n_flows : 1, sizeof(*x));
  for (size_t i = 0; i < s->n_flows; i++) {
    flow_result(s, &s->flows[i], &res->flows[i]);
    res->flows[i].corrupted = s->flows[i].corrupted;
    res->flows[i].corrupt_caught = s->flows[i].corrupt_caught;
    res->flows[i].corrupt_accepted = s->flows[i].corrupt_accepted;
    total += res->flows[i].goodput_bps;
    if (x != NULL) {
      x[i] = res->flows[i].goodput_bps;
    }
  }
  /* goodputs are already bits per second of the measured period */
  double rates = 0, wire = 0;
  res->n_paths = s->n_paths;
  for (uint32_t k = 0; k < s->n_paths; k++) {
    rates += k == 0 ? path0_mean_rate(s->cfg, s->cfg->n_paths > 0
                                                  ? (double)s->cfg->paths[0].rate_bps
                                                  : (double)s->cfg->rate_bps)
                    : (double)s->link[k][SIM_DIR_FWD].cfg.rate_bps;
    wire += (double)s->link[k][SIM_DIR_FWD].stats.measured_bytes;
    res->path_fwd[k] = s->link[k][SIM_DIR_FWD].stats;
    res->path_rev[k] = s->link[k][SIM_DIR_REV].stats;
    res->path_rate_bps[k] = s->link[k][SIM_DIR_FWD].cfg.rate_bps;
    res->path_delay[k] = s->link[k][SIM_DIR_FWD].cfg.delay;
    res->path_queue[k] = s->link[k][SIM_DIR_FWD].cfg.queue_pkts;
  }
  res->utilization = total / rates;
  /* the forward bottleneck's busy share, every header counted (IPv4,
   * UDP, DCCP or TCP): what "the link is full" means, next to the
   * payload-only utilization above */
  res->link_utilization = wire * 8.0 / (rates * dur);
  res->jain_fairness = x ? sim_jain(x, s->n_flows) : 0;
  free(x);
  res->sim_time_s = dur;
  res->end_time_s = (double)s->now / 1e9;
  res->events = s->events;
  res->pool_high_water = s->pool.high_water;
  res->fwd = s->link[0][SIM_DIR_FWD].stats;
  res->rev = s->link[0][SIM_DIR_REV].stats;
}

/* ------------------------------------------------------------- setup */

static int setup(sim *s, const sim_config *cfg, sim_result *res) {
  s->cfg = cfg;
  if (cfg->n_flows == 0 || cfg->n_flows > SIM_MAX_FLOWS) {
    snprintf(res->err, sizeof(res->err),
             "need 1 to %d flows, got %zu", SIM_MAX_FLOWS, cfg->n_flows);
    return -1;
  }
  if ((cfg->rate_bps == 0 && cfg->n_paths == 0) || cfg->duration == 0) {
    snprintf(res->err, sizeof(res->err), "rate and duration must be > 0");
    return -1;
  }
  sim_pool_init(&s->pool);
  if (sim_evq_init(&s->evq, 1024) != 0) {
    snprintf(res->err, sizeof(res->err), "out of memory");
    return -1;
  }
  if (cfg->n_blackouts > SIM_MAX_SCHED || cfg->n_rate_steps > SIM_MAX_SCHED) {
    snprintf(res->err, sizeof(res->err),
             "at most %d blackouts and %d rate changes", SIM_MAX_SCHED,
             SIM_MAX_SCHED);
    return -1;
  }
  for (uint32_t i = 0; i < cfg->n_rate_steps; i++) {
    if (cfg->rate_steps[i].rate_bps == 0) {
      snprintf(res->err, sizeof(res->err), "rate change %u: rate 0", i);
      return -1;
    }
  }
  if (cfg->n_paths > SIM_MAX_PATHS) {
    snprintf(res->err, sizeof(res->err), "at most %d paths", SIM_MAX_PATHS);
    return -1;
  }
  sim_rng_seed(&s->corrupt_rng, cfg->seed, STREAM_CORRUPT);
  s->n_paths = cfg->n_paths > 0 ? cfg->n_paths : 1;
  for (uint32_t k = 0; k < s->n_paths; k++) {
    /* path 0 is the bottleneck of cfg unless --paths gave it */
    sim_path_cfg pc;
    memset(&pc, 0, sizeof(pc));
    pc.rate_bps = cfg->rate_bps;
    pc.delay = cfg->delay;
    pc.queue_pkts = cfg->queue_pkts;
    pc.loss = cfg->loss;
    pc.n_blackouts = cfg->n_blackouts;
    memcpy(pc.blackouts, cfg->blackouts, sizeof(pc.blackouts));
    if (cfg->n_paths > 0) {
      pc = cfg->paths[k];
    }
    if (pc.rate_bps == 0 || pc.n_blackouts > SIM_MAX_SCHED) {
      snprintf(res->err, sizeof(res->err),
               "path %u: rate must be > 0, at most %d blackouts", k,
               SIM_MAX_SCHED);
      return -1;
    }
    sim_link_cfg lc = {0};
    lc.rate_bps = pc.rate_bps;
    lc.delay = pc.delay;
    lc.queue_pkts = pc.queue_pkts ? pc.queue_pkts
                                  : sim_bdp_pkts(pc.rate_bps, pc.delay);
    lc.loss = pc.loss;
    lc.ge_p = cfg->ge_p;
    lc.ge_r = cfg->ge_r;
    lc.ge_h = cfg->ge_h;
    /* per 1500-byte packet time at the link's rate (sim_link.h) */
    lc.ge_slot = (udccp_tstamp)(12000.0 * 1e9 / (double)pc.rate_bps);
    if (lc.ge_slot == 0) {
      lc.ge_slot = 1;
    }
    lc.reorder = cfg->reorder;
    lc.reorder_delay = cfg->reorder_delay;
    lc.dup = cfg->dup;
    lc.corrupt = cfg->corrupt;
    lc.n_blackouts = pc.n_blackouts;
    memcpy(lc.blackouts, pc.blackouts, sizeof(lc.blackouts));
    if (cfg->ecn) {
      /* Mark from half the queue, with a probability rising to 0.2 at 7/8
       * and certainly above: a window-halving sender that backs off there
       * still keeps the link busy (half a BDP of queue stays), and the
       * drop-tail limit is rarely met. */
      lc.mark_min = lc.queue_pkts / 2 > 0 ? lc.queue_pkts / 2 : 1;
      lc.mark_max = (7 * lc.queue_pkts) / 8 > lc.mark_min
                        ? (7 * lc.queue_pkts) / 8
                        : lc.mark_min + 1;
      lc.mark_pmax = 0.2;
    }
    if (k == 0) {
      res->queue_pkts = lc.queue_pkts;
    }
    /* path 0 keeps the streams of the single-path simulator */
    uint64_t sf = k == 0 ? STREAM_LINK_FWD : STREAM_LINK_PATHS + 2 * k;
    uint64_t sr = k == 0 ? STREAM_LINK_REV : STREAM_LINK_PATHS + 2 * k + 1;
    if (sim_link_init(&s->link[k][SIM_DIR_FWD], &lc, cfg->seed, sf) ||
        sim_link_init(&s->link[k][SIM_DIR_REV], &lc, cfg->seed, sr)) {
      snprintf(res->err, sizeof(res->err),
               "cannot set up the links of path %u (queue %u)", k,
               lc.queue_pkts);
      return -1;
    }
    s->link[k][SIM_DIR_FWD].measure_end = cfg->duration;
  }
  if (cfg->pcap_path != NULL) {
    if (sim_pcap_open(&s->pcap, cfg->pcap_path) != 0) {
      snprintf(res->err, sizeof(res->err), "cannot create %s", cfg->pcap_path);
      return -1;
    }
    s->pcap_on = 1;
  }
  s->stop_at = cfg->duration;
  s->end_limit = cfg->duration + cfg->close_grace;
  s->flows = calloc(cfg->n_flows, sizeof(*s->flows));
  res->flows = calloc(cfg->n_flows, sizeof(*res->flows));
  if (s->flows == NULL || res->flows == NULL) {
    snprintf(res->err, sizeof(res->err), "out of memory");
    return -1;
  }
  res->n_flows = cfg->n_flows;
  udccp_tstamp spread = cfg->start_spread == UDCCP_TSTAMP_NEVER
                            ? 2 * cfg->delay
                            : cfg->start_spread;
  sim_rng start_rng;
  sim_rng_seed(&start_rng, cfg->seed, STREAM_START);
  size_t n_bins = (size_t)(cfg->duration / UDCCP_NS_PER_S);
  for (size_t i = 0; i < cfg->n_flows; i++) {
    sim_flow *f = &s->flows[i];
    f->sim = s;
    f->kind = cfg->kinds[i];
    f->id = (uint32_t)i;
    f->start_at = sim_rng_below(&start_rng, spread);
    const sim_flow_opts *fo = &cfg->flow_opts[i];
    if (fo->has_start) {
      f->start_at = fo->start;
      if (fo->start >= cfg->duration) {
        /* it would measure nothing, and only say "never established" */
        snprintf(res->err, sizeof(res->err),
                 "flow %zu starts (%.3f s) when the measured period (%.3f s) "
                 "is over", i, (double)fo->start / 1e9,
                 (double)cfg->duration / 1e9);
        return -1;
      }
    }
    f->stop_at = UDCCP_TSTAMP_NEVER;
    if (fo->stop > 0 && fo->stop < cfg->duration) {
      if (fo->stop <= f->start_at) {
        snprintf(res->err, sizeof(res->err),
                 "flow %zu stops (%.3f s) before it starts (%.3f s)", i,
                 (double)fo->stop / 1e9, (double)f->start_at / 1e9);
        return -1;
      }
      f->stop_at = fo->stop;
    }
    f->app_rate_bps = fo->app_rate_bps;
    f->opts = fo;
    for (unsigned t = 0; t < SIM_FLOW_TIMERS; t++) {
      f->timers[t].at = UDCCP_TSTAMP_NEVER;
    }
    /* Hosts 10.0.0.1 (senders) and 10.0.1.1 (receivers); the flow is told
     * apart by its client port. */
    static const uint8_t cli[4] = {10, 0, 0, 1}, srv[4] = {10, 0, 1, 1};
    memcpy(f->cli_addr, cli, 4);
    memcpy(f->srv_addr, srv, 4);
    f->cli_port = (uint16_t)(40000 + i);
    f->srv_port = 5001;
    f->n_bins = n_bins;
    f->bins = calloc(n_bins ? n_bins : 1, sizeof(*f->bins));
    if (f->bins == NULL) {
      snprintf(res->err, sizeof(res->err), "out of memory");
      return -1;
    }
    s->n_flows = i + 1;
    if (f->kind->init(f) != 0) {
      snprintf(res->err, sizeof(res->err), "flow %zu (%s): %s", i,
               f->kind->name, f->err[0] ? f->err : "set-up failed");
      return -1;
    }
    if (f->stop_at != UDCCP_TSTAMP_NEVER) {
      sim_evq_push(&s->evq, f->stop_at, EV_FLOW_STOP, 0, 0, f);
    }
  }
  for (uint32_t i = 0; i < cfg->n_rate_steps; i++) {
    sim_evq_push(&s->evq, cfg->rate_steps[i].at, EV_RATE, (uint8_t)i, 0,
                 NULL);
  }
  s->next_sample = UDCCP_NS_PER_S;
  if (s->next_sample < s->stop_at) {
    sim_evq_push(&s->evq, s->next_sample, EV_SAMPLE, 0, 0, NULL);
  }
  sim_evq_push(&s->evq, s->stop_at, EV_STOP, 0, 0, NULL);
  if (cfg->progress != NULL && cfg->progress_every > 0 &&
      cfg->progress_every < s->stop_at) {
    sim_evq_push(&s->evq, cfg->progress_every, EV_PROGRESS, 0, 0, NULL);
  }
  return 0;
}

static void teardown(sim *s) {
  for (size_t i = 0; i < s->n_flows; i++) {
    sim_flow *f = &s->flows[i];
    if (f->kind->destroy != NULL) {
      f->kind->destroy(f);
    }
    free(f->bins);
    free(f->owd.bins);
    free(f->app_delay.bins);
  }
  free(s->flows);
  s->flows = NULL;
  if (s->pcap_on) {
    sim_pcap_close(&s->pcap);
  }
  for (uint32_t k = 0; k < SIM_MAX_PATHS; k++) {
    sim_link_free(&s->link[k][SIM_DIR_FWD]);
    sim_link_free(&s->link[k][SIM_DIR_REV]);
  }
  sim_evq_free(&s->evq);
  sim_pool_free(&s->pool);
}

int sim_run(const sim_config *cfg, sim_result *res) {
  memset(res, 0, sizeof(*res));
  sim *s = calloc(1, sizeof(*s));
  if (s == NULL) {
    snprintf(res->err, sizeof(res->err), "out of memory");
    return -1;
  }
  int rv = setup(s, cfg, res);
  if (rv == 0) {
    sim_event ev;
    while (!s->oom && sim_evq_pop(&s->evq, &ev) == 0) {
      if (ev.at > s->end_limit) {
        break;
      }
      s->now = ev.at;
      s->events++;
      dispatch(s, &ev);
      if (s->stopped && all_done(s)) {
        break;
      }
    }
    if (s->oom) {
      snprintf(res->err, sizeof(res->err),
               "out of memory at %.3f s (%zu packets in flight)",
               (double)s->now / 1e9, s->pool.n_used);
      rv = -1;
    } else {
      if (!s->stopped) {
        do_stop(s, s->stop_at); /* nothing happened after the last event */
      }
      summarise(s, res);
    }
    if (s->pcap_on && sim_pcap_close(&s->pcap) != 0 && rv == 0) {
      snprintf(res->err, sizeof(res->err), "writing %s failed",
               cfg->pcap_path);
      rv = -1;
    }
    s->pcap_on = 0;
  }
  teardown(s);
  free(s);
  return rv;
}

void sim_result_free(sim_result *res) {
  for (size_t i = 0; res->flows != NULL && i < res->n_flows; i++) {
    free(res->flows[i].rate_series);
  }
  free(res->flows);
  res->flows = NULL;
  res->n_flows = 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Chaos scenarios and their verdict (sim_chaos.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_chaos.h"
#include "sim_flow.h"
#include "sim_rng.h"

/* log-uniform in [lo, hi] */
static double log_uniform(sim_rng *r, double lo, double hi) {
  return exp(log(lo) + sim_rng_uniform(r) * (log(hi) - log(lo)));
}

static udccp_tstamp secs(double s) { return (udccp_tstamp)(s * 1e9); }

void sim_chaos_config(uint64_t seed, sim_config *cfg, char *desc, size_t cap) {
  sim_rng r;
  sim_rng_seed(&r, seed, 0xC4A05);
  cfg->seed = seed;
  cfg->check_invariants = 1;
  /* The applications reap a silent peer (a lost Reset leaves the other
   * end OPEN with nothing to send: only an idle timeout ends it). */
  cfg->idle_timeout = SIM_CHAOS_IDLE;
  /* Keep a seed cheap: at most ~2e5 packets of link time. */
  cfg->duration = secs(5 + (double)sim_rng_below(&r, 16));
  double dur = (double)cfg->duration / 1e9;
  double max_rate = 2e5 * 12000.0 / dur;
  cfg->rate_bps = (uint64_t)log_uniform(&r, 1e5, fmin(1e9, max_rate));
  cfg->delay = secs(log_uniform(&r, 1e-4, 0.2));
  double bdp = (double)sim_bdp_pkts(cfg->rate_bps, cfg->delay);
  double qf = log_uniform(&r, 0.1, 4);
  cfg->queue_pkts = (uint32_t)fmax(4, qf * bdp);
  cfg->loss = sim_rng_chance(&r, 0.7) ? sim_rng_uniform(&r) * 0.30 : 0;
  if (sim_rng_chance(&r, 0.3)) {
    cfg->ge_p = log_uniform(&r, 1e-4, 1e-2);
    cfg->ge_r = log_uniform(&r, 0.02, 0.5);
    cfg->ge_h = 0.5 + 0.5 * sim_rng_uniform(&r);
  }
  if (sim_rng_chance(&r, 0.3)) {
    cfg->reorder = sim_rng_uniform(&r) * 0.1;
    cfg->reorder_delay = secs(log_uniform(&r, 1e-4, 0.05));
  }
  cfg->dup = sim_rng_chance(&r, 0.3) ? sim_rng_uniform(&r) * 0.05 : 0;
  cfg->corrupt = sim_rng_chance(&r, 0.3) ? sim_rng_uniform(&r) * 0.05 : 0;
  cfg->n_blackouts = (uint32_t)(sim_rng_chance(&r, 0.4)
                                    ? 1 + sim_rng_below(&r, 3) : 0);
  for (uint32_t i = 0; i < cfg->n_blackouts; i++) {
    cfg->blackouts[i].at = sim_rng_below(&r, cfg->duration);
    cfg->blackouts[i].len = secs(log_uniform(&r, 0.1, 30));
  }
  cfg->n_rate_steps = (uint32_t)(sim_rng_chance(&r, 0.3)
                                     ? 1 + sim_rng_below(&r, 3) : 0);
  for (uint32_t i = 0; i < cfg->n_rate_steps; i++) {
    cfg->rate_steps[i].at = sim_rng_below(&r, cfg->duration);
    cfg->rate_steps[i].rate_bps =
        (uint64_t)log_uniform(&r, 5e4, (double)cfg->rate_bps * 2);
  }
  cfg->ecn = sim_rng_chance(&r, 0.3);
  cfg->short_seqnos = sim_rng_chance(&r, 0.3);
  cfg->send_cscov = sim_rng_chance(&r, 0.2) ? (uint8_t)sim_rng_below(&r, 4) : 0;
  if (sim_rng_chance(&r, 0.3)) {
    cfg->seq_window = 32 + sim_rng_below(&r, 2000);
  }
  if (sim_rng_chance(&r, 0.2)) {
    cfg->pkt_size = (uint32_t)(1 + sim_rng_below(&r, 1400));
  }
  cfg->n_flows = 1 + sim_rng_below(&r, 3);
  /* every CCID: the RFC ones and the experimental CUBIC and BBR (issue
   * 17: "every CCID survives the chaos run") */
  static const sim_flow_kind *const kinds[] = {&sim_kind_ccid2, &sim_kind_ccid3,
                                               &sim_kind_ccid4, &sim_kind_cubic,
                                               &sim_kind_bbr};
  for (size_t i = 0; i < cfg->n_flows; i++) {
    cfg->kinds[i] = kinds[sim_rng_below(&r, sizeof(kinds) / sizeof(kinds[0]))];
    sim_flow_opts *o = &cfg->flow_opts[i];
    memset(o, 0, sizeof(*o));
    o->has_start = 1;
    o->start = sim_rng_below(&r, cfg->duration / 2);
    if (sim_rng_chance(&r, 0.3)) {
      o->stop = o->start + 1 + sim_rng_below(&r, cfg->duration - o->start);
      if (o->stop >= cfg->duration) {
        o->stop = 0;
      }
    }
    if (sim_rng_chance(&r, 0.3)) {
      o->app_rate_bps = (uint64_t)log_uniform(&r, 1e4, (double)cfg->rate_bps);
    }
    if (sim_rng_chance(&r, 0.3)) {
      o->pause_at = sim_rng_below(&r, cfg->duration);
      o->pause_len = secs(log_uniform(&r, 0.01, 10));
    }
    if (sim_rng_chance(&r, 0.2)) {
      o->read_rate_bps = (uint64_t)log_uniform(&r, 1e4, (double)cfg->rate_bps);
    }
    o->stop_how = sim_rng_chance(&r, 0.5) ? SIM_STOP_CLIENT_CLOSE
                                          : (int)sim_rng_below(&r, 4);
  }
  size_t off = (size_t)snprintf(
      desc, cap,
      "seed %llu: %.3g Mbit/s, %.3g ms, queue %u, loss %.3f, burst %s, "
      "reorder %.3f, dup %.3f, corrupt %.3f, %u blackouts, %u rate "
      "changes, %.0f s:",
      (unsigned long long)seed, (double)cfg->rate_bps / 1e6,
      (double)cfg->delay / 1e6, cfg->queue_pkts, cfg->loss,
      cfg->ge_p > 0 ? "on" : "off", cfg->reorder, cfg->dup, cfg->corrupt,
      cfg->n_blackouts, cfg->n_rate_steps, dur);
  for (size_t i = 0; i < cfg->n_flows && off < cap; i++) {
    const sim_flow_opts *o = &cfg->flow_opts[i];
    static const char *const how[] = {"cli-close", "cli-abort", "srv-close",
                                      "srv-abort"};
    off += (size_t)snprintf(desc + off, cap - off, " %s@%.1f%s%s%s%s %s",
                            cfg->kinds[i]->name, (double)o->start / 1e9,
                            o->stop ? "-stop" : "",
                            o->app_rate_bps ? "/app" : "",
                            o->pause_len ? "/pause" : "",
                            o->read_rate_bps ? "/slowread" : "",
                            how[o->stop_how]);
  }
}

udccp_tstamp sim_chaos_end_bound(const sim_result *res) {
  return SIM_CHAOS_END_BOUND + res->fwd.max_sojourn + res->rev.max_sojourn;
}

int sim_chaos_judge(const sim_config *cfg, const sim_result *res, char *why,
                    size_t cap) {
  for (size_t i = 0; i < res->n_flows; i++) {
    const sim_flow_result *r = &res->flows[i];
    if (r->err[0] != '\0') {
      snprintf(why, cap, "flow %zu (%s): %s", i, r->kind, r->err);
      return -1;
    }
    if (r->corrupt_accepted > 0) {
      snprintf(why, cap, "flow %zu (%s): %llu corrupted packets accepted "
               "(RFC 4340 §9)", i, r->kind,
               (unsigned long long)r->corrupt_accepted);
      return -1;
    }
    if (!r->client_ended || !r->server_ended) {
      snprintf(why, cap, "flow %zu (%s): connection never ended (%s)", i,
               r->kind, r->close_desc);
      return -1;
    }
    udccp_tstamp stop = cfg->flow_opts[i].stop ? cfg->flow_opts[i].stop
                                                : cfg->duration;
    udccp_tstamp bound = sim_chaos_end_bound(res);
    if (r->closed_s * 1e9 > (double)(stop + bound)) {
      snprintf(why, cap, "flow %zu (%s): ended at %.1f s, more than %.0f s "
               "after its stop at %.1f s (%s)", i, r->kind, r->closed_s,
               (double)bound / 1e9, (double)stop / 1e9, r->close_desc);
      return -1;
    }
    /* An end that did not close cleanly must have been told why: a
     * Reset, a timeout or a refusal. */
    int errs[2] = {r->client_error, r->server_error};
    for (int k = 0; k < 2 && !r->closed_ok; k++) {
      int e = errs[k];
      if (e != 0 && e != UDCCP_ERR_CLOSED && e != UDCCP_ERR_RESET &&
          e != UDCCP_ERR_TIMEOUT && e != UDCCP_ERR_REFUSED) {
        snprintf(why, cap, "flow %zu (%s): %s ended with %s", i, r->kind,
                 k ? "server" : "client", udccp_strerror(e));
        return -1;
      }
    }
  }
  return 0;
}

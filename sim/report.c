/* SPDX-License-Identifier: MIT */
/*
 * Result formatting.  Numbers are printed with fixed formats so that the
 * same result always gives the same bytes.
 */
#include <math.h>
#include <string.h>

#include "sim_report.h"

static void json_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      fprintf(out, "\\%c", c);
    } else if (c < 0x20) {
      fprintf(out, "\\u%04x", c);
    } else {
      fputc(c, out);
    }
  }
  fputc('"', out);
}

static double fin(double v) { return isfinite(v) ? v : 0.0; }

void sim_report_json(FILE *out, const sim_config *cfg, const sim_result *res,
                     double wall_s) {
  fprintf(out, "{\n  \"flows\": [");
  for (size_t i = 0; i < res->n_flows; i++) {
    const sim_flow_result *r = &res->flows[i];
    fprintf(out, "%s\n    {\"flow\": %zu, \"kind\": ", i ? "," : "", i);
    json_str(out, r->kind);
    if (r->ccid) {
      fprintf(out, ", \"ccid\": %d", r->ccid);
    } else {
      fprintf(out, ", \"ccid\": ");
      json_str(out, r->kind);
    }
    fprintf(out,
            ", \"packet_size\": %u, \"goodput_bps\": %.0f, \"loss_rate\": %.6f"
            ", \"rtt_ms\": %.3f, \"sent_pkts\": %llu, \"delivered_pkts\": %llu"
            ", \"rate_cov\": %.4f",
            r->packet_size, fin(r->goodput_bps), fin(r->loss_rate),
            fin(r->rtt_ms), (unsigned long long)r->sent_pkts,
            (unsigned long long)r->delivered_pkts, fin(r->rate_cov));
    fprintf(out, ", \"declared_lost_pkts\": %llu",
            (unsigned long long)r->declared_lost);
    fprintf(out,
            ", \"owd_min_ms\": %.3f, \"owd_p50_ms\": %.3f, \"owd_p95_ms\": %.3f"
            ", \"owd_p99_ms\": %.3f, \"owd_max_ms\": %.3f",
            fin(r->owd_min_ms), fin(r->owd_p50_ms), fin(r->owd_p95_ms),
            fin(r->owd_p99_ms), fin(r->owd_max_ms));
    if (r->app_delay_samples > 0) {
      fprintf(out,
              ", \"app_delay_min_ms\": %.3f, \"app_delay_p50_ms\": %.3f"
              ", \"app_delay_p95_ms\": %.3f, \"app_delay_p99_ms\": %.3f"
              ", \"app_delay_max_ms\": %.3f",
              fin(r->app_delay_ms[0]), fin(r->app_delay_ms[1]),
              fin(r->app_delay_ms[2]), fin(r->app_delay_ms[3]),
              fin(r->app_delay_ms[4]));
    }
    if (r->ccid) {
      fprintf(out, ", \"rx_dropped_pkts\": %llu, \"rx_seq_invalid_pkts\": %llu",
              (unsigned long long)r->rx_dropped,
              (unsigned long long)r->rx_seq_invalid);
    }
    if (r->tfrc) {
      fprintf(out, ", \"loss_event_rate\": %.6f, \"loss_event_rate_end\": %.6f",
              fin(r->loss_event_rate), fin(r->loss_event_rate_end));
      fprintf(out, ", \"x_recv_bps\": %.0f", fin(r->x_recv_bps));
    }
    if (cfg->corrupt > 0) {
      fprintf(out, ", \"corrupted_pkts\": %llu, \"corrupt_refused_pkts\": %llu"
              ", \"corrupt_accepted_pkts\": %llu",
              (unsigned long long)r->corrupted,
              (unsigned long long)r->corrupt_caught,
              (unsigned long long)r->corrupt_accepted);
    }
    fprintf(out, ", \"established\": %s, \"closed_cleanly\": %s",
            r->established ? "true" : "false", r->closed_ok ? "true" : "false");
    if (r->ccid) {
      fprintf(out, ", \"established_s\": %.6f, \"closed_s\": %.6f",
              r->established_s, r->closed_s);
    }
    if (r->n_paths > 0) {
      fprintf(out, ",\n     \"multipath\": {\"active\": %s, \"disorder\": %llu"
              ", \"over_bound\": %llu, \"released_late\": %llu"
              ", \"late_dropped\": %llu, \"dup_dropped\": %llu"
              ", \"reorder_bound_ms\": %.3f, \"paths\": [",
              r->mp_active ? "true" : "false",
              (unsigned long long)r->mp_disorder,
              (unsigned long long)r->mp_over_bound,
              (unsigned long long)r->mp_released_late,
              (unsigned long long)r->mp_late_dropped,
              (unsigned long long)r->mp_dup_dropped, fin(r->mp_bound_ms));
      for (uint32_t k = 0; k < r->n_paths; k++) {
        const sim_path_result *p = &r->paths[k];
        fprintf(out, "%s\n       {\"path\": %u, \"goodput_bps\": %.0f"
                ", \"share\": %.4f, \"tx_dgrams\": %llu, \"rx_dgrams\": %llu"
                ", \"rtt_ms\": %.3f, \"cwnd\": %u, \"sent_pkts\": %llu"
                ", \"declared_lost_pkts\": %llu, \"deaths\": %llu"
                ", \"revivals\": %llu, \"joined\": %s, \"established\": %s}",
                k ? "," : "", k, fin(p->goodput_bps), fin(p->share),
                (unsigned long long)p->tx_dgrams,
                (unsigned long long)p->rx_dgrams, fin(p->rtt_ms), p->cwnd,
                (unsigned long long)p->sent_pkts,
                (unsigned long long)p->declared_lost,
                (unsigned long long)p->deaths,
                (unsigned long long)p->revivals,
                p->joined ? "true" : "false",
                p->established ? "true" : "false");
      }
      fprintf(out, "]}");
    }
    fprintf(out, ", \"close\": ");
    json_str(out, r->close_desc);
    if (r->err[0] != '\0') {
      fprintf(out, ", \"error\": ");
      json_str(out, r->err);
    }
    fputc('}', out);
  }
  fprintf(out, "\n  ],\n");
  fprintf(out,
          "  \"rate_bps\": %llu, \"delay_ms\": %.3f, \"queue_pkts\": %u, "
          "\"loss\": %.6f, \"seed\": %llu,\n",
          (unsigned long long)cfg->rate_bps, (double)cfg->delay / 1e6,
          res->queue_pkts, cfg->loss, (unsigned long long)cfg->seed);
  fprintf(out,
          "  \"utilization\": %.4f, \"link_utilization\": %.4f, "
          "\"jain_fairness\": %.4f, "
          "\"sim_time_s\": %.3f, \"end_time_s\": %.3f,\n",
          fin(res->utilization), fin(res->link_utilization),
          fin(res->jain_fairness), res->sim_time_s,
          res->end_time_s);
  fprintf(out,
          "  \"events\": %llu, \"fwd_queue_drops\": %llu, "
          "\"fwd_random_losses\": %llu, \"fwd_ce_marks\": %llu, "
          "\"max_backlog_pkts\": %u",
          (unsigned long long)res->events,
          (unsigned long long)res->fwd.dropped_queue,
          (unsigned long long)(res->fwd.lost_random + res->fwd.lost_burst),
          (unsigned long long)res->fwd.ce_marked, res->fwd.max_backlog);
  if (cfg->n_blackouts > 0) {
    fprintf(out, ",\n  \"blackout_losses\": %llu",
            (unsigned long long)(res->fwd.lost_blackout +
                                 res->rev.lost_blackout));
  }
  if (cfg->n_paths > 0) {
    fprintf(out, ",\n  \"paths\": [");
    for (uint32_t k = 0; k < res->n_paths; k++) {
      const sim_link_stats *fw = &res->path_fwd[k], *rv = &res->path_rev[k];
      fprintf(out, "%s\n    {\"path\": %u, \"rate_bps\": %llu, \"delay_ms\": "
              "%.3f, \"queue_pkts\": %u, \"loss\": %.6f, \"fwd_forwarded\": "
              "%llu, \"fwd_queue_drops\": %llu, \"fwd_random_losses\": %llu"
              ", \"blackout_losses\": %llu, \"max_backlog_pkts\": %u}",
              k ? "," : "", k, (unsigned long long)res->path_rate_bps[k],
              (double)res->path_delay[k] / 1e6, res->path_queue[k],
              cfg->paths[k].loss, (unsigned long long)fw->forwarded,
              (unsigned long long)fw->dropped_queue,
              (unsigned long long)(fw->lost_random + fw->lost_burst),
              (unsigned long long)(fw->lost_blackout + rv->lost_blackout),
              fw->max_backlog);
    }
    fprintf(out, "\n  ]");
  }
  if (wall_s >= 0) {
    fprintf(out, ",\n  \"wall_time_s\": %.3f", wall_s);
  }
  fprintf(out, "\n}\n");
}

const char *sim_fmt_rate(char *buf, size_t cap, double bps) {
  if (bps >= 1e9) {
    snprintf(buf, cap, "%.2f Gbit/s", bps / 1e9);
  } else if (bps >= 1e6) {
    snprintf(buf, cap, "%.2f Mbit/s", bps / 1e6);
  } else if (bps >= 1e3) {
    snprintf(buf, cap, "%.2f kbit/s", bps / 1e3);
  } else {
    snprintf(buf, cap, "%.0f bit/s", bps);
  }
  return buf;
}

/* A duration for people: "20 ms", "250 s", "100000 s" (never 1e+08 ms). */
static const char *fmt_dur(char *buf, size_t cap, double ns) {
  if (ns < 1e10) {
    snprintf(buf, cap, "%.3g ms", ns / 1e6);
  } else {
    snprintf(buf, cap, "%.0f s", ns / 1e9);
  }
  return buf;
}

void sim_report_table(FILE *out, const sim_config *cfg, const sim_result *res,
                      double wall_s) {
  char rate[32], gp[32], dl[32];
  fprintf(out,
          "%zu flow%s over %s, %s one-way delay, queue %u packets, "
          "loss %.4g, seed %llu: %.3g s simulated\n",
          res->n_flows, res->n_flows == 1 ? "" : "s",
          sim_fmt_rate(rate, sizeof(rate), (double)cfg->rate_bps),
          fmt_dur(dl, sizeof(dl), (double)cfg->delay), res->queue_pkts,
          cfg->loss, (unsigned long long)cfg->seed, res->sim_time_s);
  fprintf(out, "%-4s %-10s %5s %14s %8s %9s %9s %9s %6s  %s\n", "flow", "kind",
          "size", "goodput", "loss", "rtt", "sent", "delivered", "cov",
          "connection");
  for (size_t i = 0; i < res->n_flows; i++) {
    const sim_flow_result *r = &res->flows[i];
    char rtt[16];
    snprintf(rtt, sizeof(rtt), "%.1fms", r->rtt_ms);
    const char *life = r->err[0] ? "FAILED"
                       : !r->established ? "never established"
                       : r->ccid == 0   ? "-"
                       : r->closed_ok   ? "closed cleanly"
                                        : "did not close cleanly";
    fprintf(out, "%-4zu %-10s %5u %14s %7.3f%% %9s %9llu %9llu %6.3f  %s\n", i,
            r->kind, r->packet_size,
            sim_fmt_rate(gp, sizeof(gp), r->goodput_bps), r->loss_rate * 100,
            rtt, (unsigned long long)r->sent_pkts,
            (unsigned long long)r->delivered_pkts, r->rate_cov, life);
  }
  for (size_t i = 0; i < res->n_flows; i++) {
    const sim_flow_result *r = &res->flows[i];
    if (r->owd_samples > 0) {
      fprintf(out, "flow %zu one-way delay: min %.1f p50 %.1f p95 %.1f p99 "
              "%.1f max %.1f ms\n", i, r->owd_min_ms, r->owd_p50_ms,
              r->owd_p95_ms, r->owd_p99_ms, r->owd_max_ms);
    }
    if (r->app_delay_samples > 0) {
      fprintf(out, "flow %zu write-to-read delay: min %.1f p50 %.1f p95 "
              "%.1f p99 %.1f max %.1f ms\n", i, r->app_delay_ms[0],
              r->app_delay_ms[1], r->app_delay_ms[2], r->app_delay_ms[3],
              r->app_delay_ms[4]);
    }
  }
  for (size_t i = 0; i < res->n_flows; i++) {
    const sim_flow_result *r = &res->flows[i];
    if (r->err[0] != '\0') {
      fprintf(out, "flow %zu error: %s\n", i, r->err);
    } else if (r->ccid && !r->closed_ok) {
      fprintf(out, "flow %zu close: %s\n", i, r->close_desc);
    }
  }
  for (size_t i = 0; cfg->corrupt > 0 && i < res->n_flows; i++) {
    const sim_flow_result *r = &res->flows[i];
    fprintf(out, "flow %zu corruption: %llu packets corrupted, %llu refused "
            "by the receiver, %llu accepted%s\n", i,
            (unsigned long long)r->corrupted,
            (unsigned long long)r->corrupt_caught,
            (unsigned long long)r->corrupt_accepted,
            r->corrupt_accepted ? " (CHECKSUM FAILURE)" : "");
  }
  if (cfg->n_blackouts > 0) {
    fprintf(out, "blackouts: %llu packets lost (%llu forward, %llu reverse)\n",
            (unsigned long long)(res->fwd.lost_blackout +
                                 res->rev.lost_blackout),
            (unsigned long long)res->fwd.lost_blackout,
            (unsigned long long)res->rev.lost_blackout);
  }
  for (uint32_t k = 0; cfg->n_paths > 0 && k < res->n_paths; k++) {
    const sim_link_stats *fw = &res->path_fwd[k], *rv = &res->path_rev[k];
    fprintf(out, "path %u: %s, %.3g ms one way, queue %u: %llu packets "
            "forwarded, %llu queue drops, %llu lost at random, %llu in "
            "blackouts\n", k,
            sim_fmt_rate(rate, sizeof(rate), (double)res->path_rate_bps[k]),
            (double)res->path_delay[k] / 1e6, res->path_queue[k],
            (unsigned long long)fw->forwarded,
            (unsigned long long)fw->dropped_queue,
            (unsigned long long)(fw->lost_random + fw->lost_burst),
            (unsigned long long)(fw->lost_blackout + rv->lost_blackout));
  }
  for (size_t i = 0; i < res->n_flows; i++) {
    const sim_flow_result *r = &res->flows[i];
    if (r->n_paths == 0) {
      continue;
    }
    fprintf(out, "flow %zu multipath %s: %llu datagrams out of MP_SEQ "
            "order, %llu held past the %.1f ms bound, %llu released after "
            "a gap was given up, %llu came too late (dropped)\n", i,
            r->mp_active ? "active" : "FALLEN BACK (plain DCCP)",
            (unsigned long long)r->mp_disorder,
            (unsigned long long)r->mp_over_bound, r->mp_bound_ms,
            (unsigned long long)r->mp_released_late,
            (unsigned long long)r->mp_late_dropped);
    for (uint32_t k = 0; k < r->n_paths; k++) {
      const sim_path_result *p = &r->paths[k];
      fprintf(out, "flow %zu path %u: %14s, share %.3f, %llu datagrams, "
              "rtt %.1fms, cwnd %u, %llu lost, dead %llu, back %llu%s\n", i,
              k, sim_fmt_rate(gp, sizeof(gp), p->goodput_bps), p->share,
              (unsigned long long)p->tx_dgrams, p->rtt_ms, p->cwnd,
              (unsigned long long)p->declared_lost,
              (unsigned long long)p->deaths, (unsigned long long)p->revivals,
              p->established ? "" : ", never opened");
    }
  }
  fprintf(out, "utilization %.3f (link, headers included: %.3f), Jain "
          "fairness %.3f", res->utilization, res->link_utilization,
          res->jain_fairness);
  if (wall_s >= 0) {
    /* slower than real time reads 0.02x, not 0x */
    double speed = wall_s > 0 ? res->sim_time_s / wall_s : 0.0;
    fprintf(out, "; %.3g s simulated in %.3g s wall (%.*fx)", res->sim_time_s,
            wall_s, speed >= 10 || speed == 0 ? 0 : speed >= 1 ? 1 : 3, speed);
  }
  fputc('\n', out);
}

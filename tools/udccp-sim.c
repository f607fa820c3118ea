/* SPDX-License-Identifier: MIT */
/*
 * udccp-sim: udccp connections (and reference TCP flows) sharing a
 * simulated bottleneck, in virtual time.  See DESIGN.md §4 and --help.
 */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <udccp/udccp.h>

#include "sim.h"
#include "sim_chaos.h"
#include "sim_flow.h"
#include "sim_parse.h"
#include "sim_plot.h"
#include "sim_report.h"

#define PROG "udccp-sim"

enum {
  OPT_FLOWS = 256, OPT_RATE, OPT_DELAY, OPT_QUEUE, OPT_LOSS, OPT_BURST,
  OPT_REORDER, OPT_REORDER_DELAY, OPT_DUP, OPT_DURATION, OPT_SEED, OPT_JSON,
  OPT_CSV, OPT_PCAP, OPT_PLOT, OPT_PROGRESS, OPT_VERSION, OPT_SEQWIN,
  OPT_ECN, OPT_ACK_VECTORS, OPT_CORRUPT, OPT_BLACKOUT, OPT_RATE_CHANGE, OPT_CHAOS,
  OPT_VERBOSE, OPT_PATHS, OPT_MP_SCHED, OPT_MP_NO_REORDER
};

static void usage(FILE *out) {
  fprintf(out,
"usage: " PROG " --flows SPEC --rate RATE --delay TIME [options]\n"
"       " PROG " --chaos N [--seed FIRST] [--verbose]\n"
"\n"
"Runs udccp connections and reference TCP flows through one simulated\n"
"bottleneck (a dumbbell) in virtual time, deterministically.\n"
"\n"
"required:\n"
"  --flows SPEC        comma list of flows sharing the bottleneck, each KIND\n"
"                      or NxKIND (e.g. ccid2,tcp or 4xccid2), each optionally\n"
"                      followed by :start=TIME (start then, not at random in\n"
"                      the first RTT), :stop=TIME (the sender stops and\n"
"                      closes then) and :app=RATE (application-limited:\n"
"                      data is written at RATE only), e.g.\n"
"                      ccid2:start=5s:stop=20s,tcp:app=2mbit. Kinds:\n");
  for (size_t i = 0; sim_flow_kinds[i] != NULL; i++) {
    fprintf(out, "                        %-6s %s\n", sim_flow_kinds[i]->name,
            sim_flow_kinds[i]->help);
  }
  fprintf(out, "                        %-6s %s\n", "ccidN",
          "udccp connection, the CCID registered under N (udccp_ccid_register)");
  fprintf(out,
"  --rate RATE         bottleneck rate, both directions: bit|kbit|mbit|gbit\n"
"                      (e.g. 50mbit)\n"
"  --delay TIME        one-way propagation delay: ns|us|ms|s (e.g. 20ms);\n"
"                      RTT = 2 x delay + queueing\n"
"options:\n"
"  --paths LIST        several paths between the two hosts instead of one\n"
"                      bottleneck (then --rate, --delay, --queue, --loss and\n"
"                      --blackout are not taken: each path has its own):\n"
"                      comma list of RATE/DELAY, each optionally followed by\n"
"                      :queue=PKTS, :loss=P and :blackout=AT+LEN (repeat it),\n"
"                      e.g. 50mbit/10ms,20mbit/40ms:blackout=5s+30s (at most\n"
"                      8).  Multipath flows (mp-ccid2, mp-ccid3) run a subflow\n"
"                      on every path, the others use the first; --burst-loss,\n"
"                      --reorder, --dup, --corrupt and --ecn apply to every\n"
"                      path, --rate-change to the first.  Per-path figures\n"
"                      follow the table (\"paths\" in --json)\n"
"  --mp-sched NAME     scheduler of multipath flows (RFC 9897 section 3.11):\n"
"                      minrtt (default), rr (round-robin), backup\n"
"                      (active-backup: the first path while it answers),\n"
"                      redundant (every datagram on every path with room)\n"
"  --mp-no-reorder     multipath receivers deliver datagrams as they come,\n"
"                      not in MP_SEQ order (default: reordered)\n"
"  --queue PKTS        drop-tail queue limit in packets (default: one\n"
"                      bandwidth-delay product of 1500-byte packets)\n"
"  --loss P            random loss before the queue, both directions, as a\n"
"                      fraction or percentage (default 0)\n"
"  --burst-loss P,R[,H] Gilbert-Elliott burst loss: P(good->bad), P(bad->good)\n"
"                      per packet time (a 1500-byte packet at --rate: sparse\n"
"                      flows see bursts as long in time as busy ones), loss\n"
"                      probability H in the bad state\n"
"                      (default off; H defaults to 1)\n"
"  --reorder P         probability a packet is delayed past later ones\n"
"                      (default 0)\n"
"  --reorder-delay TIME extra delay of a reordered packet (default 5ms)\n"
"  --dup P             probability a packet is duplicated (default 0)\n"
"  --corrupt P         probability a packet has one bit flipped (both\n"
"                      directions; default 0): the receiver's checksum must\n"
"                      refuse it (RFC 4340 section 9); the counts are printed\n"
"  --blackout AT+LEN   the link (both directions) drops everything from AT\n"
"                      for LEN, e.g. 10s+2s; repeat for more (at most 16);\n"
"                      AT before the end of --duration, as every time given\n"
"  --rate-change AT:RATE  the bottleneck rate becomes RATE at AT, e.g.\n"
"                      --rate-change 10s:5mbit --rate-change 20s:100mbit\n"
"                      (at most 16; the queue limit stays)\n"
"  --ecn               udccp flows negotiate ECN (RFC 4340 §12) and the\n"
"                      bottleneck queue marks ECT packets CE, RED-like: from\n"
"                      1/2 of the queue limit, with a probability rising to\n"
"                      0.2 at 7/8, always above\n"
"  --ack-vectors       CCID 3/4 senders ask their receivers for Ack Vectors\n"
"                      and count lost packets (declared_lost_pkts)\n"
"  --duration TIME     measured period (default 30s); udccp flows then close\n"
"                      and the run continues until they are done\n"
"  --seed N            random seed (default 1); the same seed gives the same\n"
"                      results\n"
"  -l, --length BYTES  datagram payload of udccp flows (default: the\n"
"                      connection's MPS). TCP flows use 1460-byte segments\n"
"  --seq-window N      initial Sequence Window of udccp endpoints (RFC 4340\n"
"                      7.5.2; default: the library's, 1000)\n"
"  --json              print one JSON object instead of the table\n"
"  --csv FILE          write per-second samples (time_s, flow, kind,\n"
"                      goodput_bps, rtt_ms, cwnd, ack_ratio, fwd_queue_pkts,\n"
"                      x_bps and p: TFRC allowed rate and loss event rate)\n"
"  --pcap FILE         capture what crosses the bottleneck, both directions\n"
"                      (raw IPv4; DCCP as udccp wrote it, TCP with synthetic\n"
"                      headers and zero payload)\n"
"  --plot FILE.svg     draw every flow's goodput over time (the --csv\n"
"                      samples) as an SVG image, in Mbit/s against s\n"
"  --progress          progress lines on stderr every 10 s of simulated\n"
"                      time (default: only when stderr is a terminal)\n"
"  --chaos N           instead of one run: N chaos runs, seeds FIRST (--seed,\n"
"                      default 1) to FIRST+N-1, each drawing its own link,\n"
"                      impairments and udccp flows with random application\n"
"                      behaviour, invariants checked after every event; one\n"
"                      line per failing seed (--verbose: every seed), then a\n"
"                      summary; exit status 1 if any seed failed\n"
"  -h, --help          this help\n"
"  --version           print the version\n");
}

static int fail(const char *msg) {
  fprintf(stderr, PROG ": %s\n", msg);
  return 2;
}

static void on_progress(void *ud, const sim_progress *p) {
  (void)ud;
  char rate[32];
  fprintf(stderr, PROG ": %.0f s / %.0f s simulated, %s aggregate, queue %u\n",
          (double)p->now / 1e9, (double)p->duration / 1e9,
          sim_fmt_rate(rate, sizeof(rate), p->goodput_bps), p->backlog);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_burst(const char *arg, sim_config *cfg, char *err, size_t cap) {
  char buf[128];
  if (strlen(arg) >= sizeof(buf)) {
    snprintf(err, cap, "--burst-loss '%s' too long", arg);
    return -1;
  }
  strcpy(buf, arg);
  double v[3] = {0, 0, 1};
  int n = 0;
  for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
    if (n == 3 || sim_parse_prob(tok, &v[n], err, cap) != 0) {
      snprintf(err, cap,
               "bad --burst-loss '%s': write P,R or P,R,H with probabilities, "
               "e.g. 0.01,0.3", arg);
      return -1;
    }
    n++;
  }
  if (n < 2 || v[0] <= 0 || v[1] <= 0) {
    snprintf(err, cap,
             "bad --burst-loss '%s': need P,R both > 0, e.g. 0.01,0.3", arg);
    return -1;
  }
  cfg->ge_p = v[0];
  cfg->ge_r = v[1];
  cfg->ge_h = v[2];
  return 0;
}

/* Timed events must fall inside the measured period [0, --duration): one
 * at or after its end changed nothing that was measured (a --blackout or
 * --rate-change at 40s in a 1 s run ran, and exited 0, as if it had been
 * left out), and --duration may come after them on the command line, so
 * this runs once every option is read.  Times cannot be negative: the
 * parser refuses a sign. */
static int check_schedule(const sim_config *cfg, char *err, size_t cap) {
  double dur = (double)cfg->duration / 1e9;
  static const char fix[] = "give a time before it, or a longer --duration";
  for (uint32_t i = 0; i < cfg->n_blackouts; i++) {
    const sim_blackout *b = &cfg->blackouts[i];
    if (b->at >= cfg->duration) {
      snprintf(err, cap, "--blackout %gs+%gs starts at %gs, when the measured "
               "period is over (--duration %gs): %s", (double)b->at / 1e9,
               (double)b->len / 1e9, (double)b->at / 1e9, dur, fix);
      return -1;
    }
  }
  for (uint32_t i = 0; i < cfg->n_rate_steps; i++) {
    const sim_rate_step *r = &cfg->rate_steps[i];
    if (r->at >= cfg->duration) {
      snprintf(err, cap, "--rate-change at %gs comes when the measured "
               "period is over (--duration %gs): %s", (double)r->at / 1e9,
               dur, fix);
      return -1;
    }
  }
  for (uint32_t k = 0; k < cfg->n_paths; k++) {
    for (uint32_t i = 0; i < cfg->paths[k].n_blackouts; i++) {
      const sim_blackout *b = &cfg->paths[k].blackouts[i];
      if (b->at >= cfg->duration) {
        snprintf(err, cap, "--paths: path %u's blackout=%gs+%gs starts at "
                 "%gs, when the measured period is over (--duration %gs): %s",
                 k, (double)b->at / 1e9, (double)b->len / 1e9,
                 (double)b->at / 1e9, dur, fix);
        return -1;
      }
    }
  }
  for (size_t i = 0; i < cfg->n_flows; i++) {
    const sim_flow_opts *fo = &cfg->flow_opts[i];
    /* sim.h: stop is "before the measured period ends"; later, the flow
     * is stopped at --duration with every other one */
    if (fo->stop >= cfg->duration) {
      snprintf(err, cap, "--flows: flow %zu (%s) stops at %gs (stop=), when "
               "the measured period is over (--duration %gs): every flow "
               "stops then anyway; %s", i, cfg->kinds[i]->name,
               (double)fo->stop / 1e9, dur, fix);
      return -1;
    }
  }
  return 0;
}

/* --chaos: seeds first .. first + n - 1 (sim_chaos.h). */
static int run_chaos(uint64_t first, uint64_t n, int verbose) {
  uint64_t failed = 0;
  double t0 = now_s(), sim_s = 0;
  for (uint64_t seed = first; seed < first + n; seed++) {
    static sim_config cfg; /* large: keep it off the stack */
    char desc[1024], why[768];
    sim_config_default(&cfg);
    sim_chaos_config(seed, &cfg, desc, sizeof(desc));
    sim_result res;
    int bad;
    if (sim_run(&cfg, &res) != 0) {
      snprintf(why, sizeof(why), "sim_run: %s", res.err);
      bad = 1;
    } else {
      bad = sim_chaos_judge(&cfg, &res, why, sizeof(why)) != 0;
      sim_s += res.end_time_s;
    }
    if (bad) {
      failed++;
      printf("FAIL %s\n  %s\n  reproduce: " PROG " --chaos 1 --seed %llu "
             "--verbose\n", desc, why, (unsigned long long)seed);
    } else if (verbose) {
      printf("ok   %s\n", desc);
      for (size_t i = 0; i < res.n_flows; i++) {
        const sim_flow_result *r = &res.flows[i];
        printf("     flow %zu %s: %.3f Mbit/s, %s, ended %.1f s, %zu bytes "
               "peak\n", i, r->kind, r->goodput_bps / 1e6, r->close_desc,
               r->closed_s, r->mem_peak);
      }
    }
    fflush(stdout);
    sim_result_free(&res);
  }
  printf("chaos: %llu of %llu seeds passed (seeds %llu..%llu); %.0f s "
         "simulated in %.1f s wall\n",
         (unsigned long long)(n - failed), (unsigned long long)n,
         (unsigned long long)first, (unsigned long long)(first + n - 1),
         sim_s, now_s() - t0);
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  static const struct option opts[] = {
      {"flows", required_argument, NULL, OPT_FLOWS},
      {"paths", required_argument, NULL, OPT_PATHS},
      {"mp-sched", required_argument, NULL, OPT_MP_SCHED},
      {"mp-no-reorder", no_argument, NULL, OPT_MP_NO_REORDER},
      {"rate", required_argument, NULL, OPT_RATE},
      {"delay", required_argument, NULL, OPT_DELAY},
      {"queue", required_argument, NULL, OPT_QUEUE},
      {"loss", required_argument, NULL, OPT_LOSS},
      {"burst-loss", required_argument, NULL, OPT_BURST},
      {"reorder", required_argument, NULL, OPT_REORDER},
      {"reorder-delay", required_argument, NULL, OPT_REORDER_DELAY},
      {"dup", required_argument, NULL, OPT_DUP},
      {"corrupt", required_argument, NULL, OPT_CORRUPT},
      {"blackout", required_argument, NULL, OPT_BLACKOUT},
      {"rate-change", required_argument, NULL, OPT_RATE_CHANGE},
      {"ecn", no_argument, NULL, OPT_ECN},
      {"ack-vectors", no_argument, NULL, OPT_ACK_VECTORS},
      {"duration", required_argument, NULL, OPT_DURATION},
      {"seed", required_argument, NULL, OPT_SEED},
      {"length", required_argument, NULL, 'l'},
      {"json", no_argument, NULL, OPT_JSON},
      {"csv", required_argument, NULL, OPT_CSV},
      {"pcap", required_argument, NULL, OPT_PCAP},
      {"plot", required_argument, NULL, OPT_PLOT},
      {"progress", no_argument, NULL, OPT_PROGRESS},
      {"seq-window", required_argument, NULL, OPT_SEQWIN},
      {"chaos", required_argument, NULL, OPT_CHAOS},
      {"verbose", no_argument, NULL, OPT_VERBOSE},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, OPT_VERSION},
      {NULL, 0, NULL, 0}};
  sim_config cfg;
  sim_config_default(&cfg);
  cfg.reorder_delay = 5 * UDCCP_NS_PER_MS;
  char err[512];
  int have_flows = 0, have_rate = 0, have_delay = 0, json = 0, progress = 0;
  int verbose = 0;
  /* given explicitly: --paths replaces them (each path has its own) */
  const char *single_path_opt = NULL;
  uint64_t chaos = 0;
  const char *csv_path = NULL, *plot_path = NULL;
  uint64_t v;
  int c;
  while ((c = getopt_long(argc, argv, "hl:", opts, NULL)) != -1) {
    int bad = 0;
    switch (c) {
    case OPT_FLOWS:
      bad = sim_parse_flows(optarg, &cfg, err, sizeof(err));
      have_flows = 1;
      break;
    case OPT_PATHS:
      bad = sim_parse_paths(optarg, &cfg, err, sizeof(err));
      have_rate = have_delay = 1;
      break;
    case OPT_MP_SCHED:
      if (strcmp(optarg, "minrtt") == 0) {
        cfg.mp_sched = UDCCP_MP_SCHED_MINRTT;
      } else if (strcmp(optarg, "rr") == 0) {
        cfg.mp_sched = UDCCP_MP_SCHED_RR;
      } else if (strcmp(optarg, "backup") == 0) {
        cfg.mp_sched = UDCCP_MP_SCHED_BACKUP;
      } else if (strcmp(optarg, "redundant") == 0) {
        cfg.mp_sched = UDCCP_MP_SCHED_REDUNDANT;
      } else {
        snprintf(err, sizeof(err), "unknown --mp-sched '%s': use minrtt, rr, "
                 "backup or redundant", optarg);
        bad = 1;
      }
      break;
    case OPT_MP_NO_REORDER:
      cfg.mp_reorder_off = 1;
      break;
    case OPT_RATE:
      bad = sim_parse_rate(optarg, &cfg.rate_bps, err, sizeof(err));
      have_rate = 1;
      single_path_opt = "--rate";
      break;
    case OPT_DELAY:
      bad = sim_parse_time(optarg, &cfg.delay, err, sizeof(err));
      have_delay = 1;
      single_path_opt = "--delay";
      break;
    case OPT_QUEUE:
      single_path_opt = "--queue";
      bad = sim_parse_uint(optarg, 1, 10000000, &v, err, sizeof(err));
      if (bad) {
        snprintf(err + strlen(err), sizeof(err) - strlen(err),
                 " (--queue is in packets)");
      }
      cfg.queue_pkts = (uint32_t)v;
      break;
    case OPT_LOSS:
      single_path_opt = "--loss";
      bad = sim_parse_prob(optarg, &cfg.loss, err, sizeof(err));
      if (!bad && cfg.loss >= 1.0) {
        snprintf(err, sizeof(err), "--loss %s would drop everything: use a "
                 "fraction below 1", optarg);
        bad = 1;
      }
      break;
    case OPT_BURST:
      bad = parse_burst(optarg, &cfg, err, sizeof(err));
      break;
    case OPT_REORDER:
      bad = sim_parse_prob(optarg, &cfg.reorder, err, sizeof(err));
      break;
    case OPT_REORDER_DELAY:
      bad = sim_parse_time(optarg, &cfg.reorder_delay, err, sizeof(err));
      break;
    case OPT_DUP:
      bad = sim_parse_prob(optarg, &cfg.dup, err, sizeof(err));
      break;
    case OPT_CORRUPT:
      bad = sim_parse_prob(optarg, &cfg.corrupt, err, sizeof(err));
      break;
    case OPT_BLACKOUT:
      single_path_opt = "--blackout";
      bad = sim_parse_blackout(optarg, &cfg, err, sizeof(err));
      break;
    case OPT_RATE_CHANGE:
      bad = sim_parse_rate_step(optarg, &cfg, err, sizeof(err));
      break;
    case OPT_ACK_VECTORS:
      cfg.ack_vectors = 1;
      break;
    case OPT_ECN:
      cfg.ecn = 1;
      break;
    case OPT_DURATION:
      bad = sim_parse_time(optarg, &cfg.duration, err, sizeof(err));
      if (!bad && cfg.duration == 0) {
        snprintf(err, sizeof(err), "--duration must be > 0, e.g. 30s");
        bad = 1;
      }
      break;
    case OPT_SEED:
      bad = sim_parse_uint(optarg, 0, UINT64_MAX, &cfg.seed, err, sizeof(err));
      if (bad) {
        snprintf(err + strlen(err), sizeof(err) - strlen(err), " (--seed)");
      }
      break;
    case OPT_SEQWIN:
      bad = sim_parse_uint(optarg, 32, 70368744177663ULL, &cfg.seq_window, err,
                           sizeof(err));
      if (bad) { /* RFC 4340 §7.5.2: Wmin = 32, Wmax = 2^46 - 1 */
        snprintf(err + strlen(err), sizeof(err) - strlen(err),
                 " (--seq-window, RFC 4340 section 7.5.2)");
      }
      break;
    case 'l':
      bad = sim_parse_uint(optarg, 1, 65535, &v, err, sizeof(err));
      if (bad) {
        snprintf(err + strlen(err), sizeof(err) - strlen(err),
                 " (-l/--length: datagram payload bytes)");
      }
      cfg.pkt_size = (uint32_t)v;
      break;
    case OPT_JSON:
      json = 1;
      break;
    case OPT_CSV:
      csv_path = optarg;
      break;
    case OPT_PCAP:
      cfg.pcap_path = optarg;
      break;
    case OPT_PLOT:
      plot_path = optarg;
      break;
    case OPT_PROGRESS:
      progress = 1;
      break;
    case OPT_CHAOS:
      bad = sim_parse_uint(optarg, 1, 100000000, &chaos, err, sizeof(err));
      if (bad) {
        snprintf(err + strlen(err), sizeof(err) - strlen(err),
                 " (--chaos: number of runs)");
      }
      break;
    case OPT_VERBOSE:
      verbose = 1;
      break;
    case 'h':
      usage(stdout);
      return 0;
    case OPT_VERSION:
      printf(PROG " (udccp) %s\n", UDCCP_VERSION);
      return 0;
    default:
      fprintf(stderr, "Try '" PROG " --help'.\n");
      return 2;
    }
    if (bad) {
      return fail(err);
    }
  }
  if (optind < argc) {
    snprintf(err, sizeof(err), "unexpected argument '%s' (options start "
             "with --; see --help)", argv[optind]);
    return fail(err);
  }
  if (chaos > 0) {
    return run_chaos(cfg.seed, chaos, verbose);
  }
  if (cfg.n_paths > 0 && single_path_opt != NULL) {
    /* each path has its own figures: the option was ignored, and the
     * report's header showed it as the link's (--paths 4mbit/10ms --rate
     * 50mbit ran at 4 Mbit/s and said 50) */
    snprintf(err, sizeof(err), "%s does not go with --paths: give each "
             "path its own (RATE/DELAY:queue=PKTS:loss=P:blackout=AT+LEN)",
             single_path_opt);
    return fail(err);
  }
  if (!have_flows || !have_rate || !have_delay) {
    snprintf(err, sizeof(err), "missing%s%s%s: e.g. " PROG
             " --flows ccid2,tcp --rate 50mbit --delay 20ms",
             have_flows ? "" : " --flows", have_rate ? "" : " --rate",
             have_delay ? "" : " --delay");
    return fail(err);
  }
  if (check_schedule(&cfg, err, sizeof(err)) != 0) {
    return fail(err);
  }
  /* A flow that starts once the measured period is over measures nothing
   * and reported "never established" with exit 0; one that stops before
   * it starts failed only after the files were created. */
  for (size_t i = 0; i < cfg.n_flows; i++) {
    const sim_flow_opts *fo = &cfg.flow_opts[i];
    if (fo->has_start && fo->start >= cfg.duration) {
      snprintf(err, sizeof(err), "flow %zu (%s) starts at %gs, when the "
               "measured period is over (--duration %gs): start it earlier "
               "or give a longer --duration", i, cfg.kinds[i]->name,
               (double)fo->start / 1e9, (double)cfg.duration / 1e9);
      return fail(err);
    }
    if (fo->has_start && fo->stop > 0 && fo->stop <= fo->start) {
      snprintf(err, sizeof(err), "flow %zu (%s) stops (stop=%gs) before it "
               "starts (start=%gs)", i, cfg.kinds[i]->name,
               (double)fo->stop / 1e9, (double)fo->start / 1e9);
      return fail(err);
    }
  }
  FILE *csv = NULL;
  if (csv_path != NULL) {
    csv = fopen(csv_path, "w");
    if (csv == NULL) {
      snprintf(err, sizeof(err), "cannot create --csv file '%s' (%s): check "
               "the directory exists and is writable", csv_path,
               strerror(errno));
      return fail(err);
    }
    fprintf(csv, "time_s,flow,kind,goodput_bps,rtt_ms,cwnd,ack_ratio,"
                 "fwd_queue_pkts,x_bps,p\n");
    cfg.csv = csv;
  }
  FILE *svg = NULL;
  if (plot_path != NULL) {
    svg = fopen(plot_path, "w"); /* before the run: fail early */
    if (svg == NULL) {
      if (csv != NULL) {
        fclose(csv);
      }
      int e = errno;
      snprintf(err, sizeof(err), "cannot create --plot file '%s' (%s): check "
               "the directory exists and is writable", plot_path,
               strerror(e));
      return fail(err);
    }
  }
  if (cfg.pcap_path != NULL) {
    /* before the run, as --csv and --plot: a usage error, with the reason */
    FILE *pf = fopen(cfg.pcap_path, "w");
    if (pf == NULL) {
      int e = errno;
      if (csv != NULL) {
        fclose(csv);
      }
      if (svg != NULL) {
        fclose(svg);
      }
      snprintf(err, sizeof(err), "cannot create --pcap file '%s' (%s): "
               "check the directory exists and is writable", cfg.pcap_path,
               strerror(e));
      return fail(err);
    }
    fclose(pf);
  }
  if (progress || isatty(STDERR_FILENO)) {
    cfg.progress = on_progress;
  }
  sim_result res;
  double t0 = now_s();
  int rv = sim_run(&cfg, &res);
  double wall = now_s() - t0;
  if (csv != NULL && fclose(csv) != 0 && rv == 0) {
    snprintf(res.err, sizeof(res.err), "writing %s failed", csv_path);
    rv = -1;
  }
  if (rv != 0) {
    fprintf(stderr, PROG ": %s\n", res.err);
    if (svg != NULL) {
      fclose(svg);
    }
    sim_result_free(&res);
    return 1;
  }
  if (svg != NULL) {
    int bad = sim_plot_svg(svg, &cfg, &res) != 0;
    if (fclose(svg) != 0) {
      bad = 1;
    }
    if (bad) {
      fprintf(stderr, PROG ": cannot write --plot file '%s': check the "
              "directory exists and is writable\n", plot_path);
      sim_result_free(&res);
      return 1;
    }
  }
  if (json) {
    sim_report_json(stdout, &cfg, &res, wall);
  } else {
    sim_report_table(stdout, &cfg, &res, wall);
  }
  int status = 0;
  for (size_t i = 0; i < res.n_flows; i++) {
    if (res.flows[i].err[0] != '\0') {
      fprintf(stderr, PROG ": flow %zu (%s): %s\n", i, res.flows[i].kind,
              res.flows[i].err);
      status = 1;
    } else if (!res.flows[i].established) {
      /* nothing was measured: not a result to take for one (it exited 0) */
      const char *why = res.flows[i].close_desc;
      fprintf(stderr, PROG ": flow %zu (%s) never established its "
              "connection, nothing was measured%s%s%s: check --loss, "
              "--blackout, --paths and start=\n", i, res.flows[i].kind,
              why[0] ? " (" : "", why, why[0] ? ")" : "");
      status = 1;
    }
  }
  sim_result_free(&res);
  return status;
}

/* SPDX-License-Identifier: MIT */
/*
 * udccp's network simulator: a dumbbell in virtual time.  N flows share one
 * bottleneck link in the forward direction (senders to receivers); their
 * acknowledgements share the reverse link, which has the same rate and
 * delay.  Flows of kind "ccid2" are real udccp connections driven through
 * the public API; "tcp" is a reference TCP (Reno with SACK) living inside the
 * simulator (sim_flow.h has the kind table).
 *
 * Everything is a function of the configuration and its seed: the same
 * sim_config gives the same sim_result, bit for bit.
 */
#ifndef UDCCP_SIM_H
#define UDCCP_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <udccp/udccp.h>

#include "sim_link.h"

#define SIM_MAX_FLOWS 256
/* Most paths between the two hosts (--paths); a multipath flow runs one
 * subflow over each (RFC 9897 §3.10: we allow 8 subflows). */
#define SIM_MAX_PATHS 8
/* udccp packets up to this many bytes on the wire (IP header included)
 * are acknowledgements to the one-way delay figures, not data. */
#define SIM_OWD_MIN_WIRE 100u

typedef struct sim_flow_kind sim_flow_kind;

/* Reported to the progress callback every progress_every of virtual time. */
typedef struct sim_progress {
  udccp_tstamp now, duration;
  double goodput_bps;  /* all flows, over the last interval */
  uint32_t backlog;    /* forward queue, packets */
} sim_progress;

/* A flow's own timing and application (sim_config.flow_opts). */
typedef struct sim_flow_opts {
  int has_start;              /* 1: starts at `start`, not at random */
  udccp_tstamp start;
  udccp_tstamp stop;          /* > 0: its sending application stops and
                                 closes then, before the measured period
                                 ends */
  uint64_t app_rate_bps;      /* > 0: application-limited: the sender is
                                 given data at this rate only */
  /* udccp flows only (the chaos runs' application behaviour): */
  udccp_tstamp pause_at, pause_len; /* the sender writes nothing inside */
  uint64_t read_rate_bps;     /* > 0: the receiving application reads at
                                 this rate only (a slow reader) */
  int stop_how;               /* enum sim_stop_how: what happens at stop */
} sim_flow_opts;

enum sim_stop_how {
  SIM_STOP_CLIENT_CLOSE = 0, /* the client closes (the default) */
  SIM_STOP_CLIENT_ABORT,     /* the client aborts: Reset(Aborted) */
  SIM_STOP_SERVER_CLOSE,     /* the server closes (CloseReq) */
  SIM_STOP_SERVER_ABORT      /* the server aborts */
};

/* The bottleneck rate (both directions) becomes rate_bps at `at`. */
typedef struct sim_rate_step {
  udccp_tstamp at;
  uint64_t rate_bps;
} sim_rate_step;

/* One path between the hosts (--paths): its own pair of one-way links,
 * both directions with these figures.  The impairments of sim_config
 * that have no field here (burst loss, reordering, duplication,
 * corruption, ECN marking) apply to every path. */
typedef struct sim_path_cfg {
  uint64_t rate_bps;          /* > 0 */
  udccp_tstamp delay;         /* one-way propagation delay */
  uint32_t queue_pkts;        /* 0: one bandwidth-delay product */
  double loss;                /* random loss, both directions */
  uint32_t n_blackouts;       /* both directions drop everything inside */
  sim_blackout blackouts[SIM_MAX_SCHED];
} sim_path_cfg;

typedef struct sim_config {
  size_t n_flows;
  const sim_flow_kind *kinds[SIM_MAX_FLOWS];
  uint64_t rate_bps;          /* bottleneck rate, both directions */
  udccp_tstamp delay;         /* one-way propagation delay */
  uint32_t queue_pkts;        /* drop-tail limit; 0 = one bandwidth-delay product */
  double loss;                /* random loss before the queue, both directions */
  double ge_p, ge_r, ge_h;    /* Gilbert-Elliott burst loss (see sim_link.h) */
  double reorder;             /* reordering probability... */
  udccp_tstamp reorder_delay; /* ...and the extra delay of a reordered packet */
  double dup;                 /* duplication probability */
  double corrupt;             /* probability a packet has one bit flipped
                                 (both directions; the receiver's checksum
                                 must catch it, RFC 4340 §9) */
  uint32_t n_blackouts;       /* both directions drop everything inside */
  sim_blackout blackouts[SIM_MAX_SCHED];
  uint32_t n_rate_steps;      /* rate changes during the run */
  sim_rate_step rate_steps[SIM_MAX_SCHED];
  sim_flow_opts flow_opts[SIM_MAX_FLOWS]; /* zero: random start, greedy */
  int ecn;                    /* 1: udccp flows use ECN, queues mark CE */
  int check_invariants;       /* udccp flows: check sim_inv.h after every
                                 event; a violation fails the flow */
  int short_seqnos;           /* udccp endpoints accept X=0 packets */
  int ack_vectors;            /* udccp settings.ack_vectors (CCID 3/4
                                 senders count lost packets) */
  udccp_tstamp idle_timeout;  /* udccp settings.idle_timeout (0: off) */
  uint8_t send_cscov;         /* CsCov of udccp packets (0 = all) */
  udccp_tstamp duration;      /* measured period */
  uint64_t seed;
  uint32_t pkt_size;          /* datagram payload of udccp flows; 0 = the MPS */
  uint64_t seq_window;        /* udccp settings.seq_window of both ends;
                                 0 = the library default */
  udccp_tstamp start_spread;  /* flows start at random times in [0, this);
                                 UDCCP_TSTAMP_NEVER = one base RTT */
  udccp_tstamp close_grace;   /* after duration: time allowed to close */
  /* Paths: 0 = one path, the bottleneck above.  n_paths >= 1: path k has
   * paths[k] (path 0 replaces rate_bps, delay, queue_pkts, loss and the
   * blackouts above); single-path flows use path 0, multipath flows
   * ("mp-ccid2"...) one subflow on every path.  Rate changes apply to
   * path 0. */
  uint32_t n_paths;
  sim_path_cfg paths[SIM_MAX_PATHS];
  int mp_sched;               /* multipath flows: enum udccp_mp_sched */
  int mp_reorder_off;         /* 1: multipath receivers do not reorder */
  const char *pcap_path;      /* NULL: no capture */
  FILE *csv;                  /* NULL: no per-second samples */
  void (*progress)(void *user_data, const sim_progress *p);
  void *progress_user_data;
  udccp_tstamp progress_every;
} sim_config;

/* Fills the defaults: 30 s, seed 1, queue one BDP, no loss, MPS-sized
 * datagrams, start spread one base RTT, 300 s to close.  Flows, rate and
 * delay must still be set. */
void sim_config_default(sim_config *c);

/* A multipath flow's figures on one path (sim_flow_result.paths). */
typedef struct sim_path_result {
  double goodput_bps;        /* payload received over it in the measured
                                period (before reordering) */
  uint64_t tx_dgrams;        /* datagrams the scheduler gave it */
  uint64_t rx_dgrams;        /* datagrams that came over it */
  double share;              /* its part of the bytes sent, 0..1 */
  double rtt_ms;             /* its subflow's smoothed RTT at the stop */
  uint32_t cwnd;             /* CCID 2-like: window at the stop, packets */
  uint64_t sent_pkts;        /* data packets its subflow sent */
  uint64_t declared_lost;    /* data packets its CCID declared lost */
  uint64_t deaths, revivals; /* found dead / came back */
  int joined;                /* 1: joined with MP_JOIN (0: first, or never) */
  int established;           /* its subflow reached OPEN */
} sim_path_result;

typedef struct sim_flow_result {
  const char *kind;          /* kind name ("ccid2", "tcp") */
  int ccid;                  /* DCCP CCID; 0 for the reference TCP */
  int tfrc;                  /* 1: loss_event_rate is meaningful */
  uint32_t packet_size;      /* payload bytes per data packet */
  double goodput_bps;        /* payload delivered to the receiving app */
  double loss_rate;          /* forward packets lost / offered (network) */
  double rtt_ms;             /* mean of the sender's 1-second RTT estimates */
  double rate_cov;           /* coefficient of variation of 1-s goodput */
  double loss_event_rate;    /* TFRC p (CCID 3/4): mean of the sender's
                                1-second samples of p over the measured
                                period, counting those with p > 0 */
  double x_recv_bps;         /* TFRC: mean of the sender's 1-second samples
                                of X_recv (udccp_conn_info.x_recv), bits/s */
  double loss_event_rate_end;/* TFRC p when the measured period ended */
  double *rate_series;       /* goodput of each whole second of the
                                measured period, bits/s (the --csv
                                goodput_bps); n_series values */
  size_t n_series;
  uint64_t sent_pkts;        /* data packets the sender transmitted */
  uint64_t delivered_pkts;   /* datagrams/segments the receiving app got */
  uint64_t delivered_bytes;
  uint64_t fwd_offered, fwd_lost;
  uint64_t declared_lost;    /* sender's view: udccp info.pkts_lost (data
                                packets the CCID declared lost), TCP:
                                segments retransmitted */
  uint64_t rx_lost;          /* udccp receiver: info.pkts_lost_rx, the
                                sender's data packets it found missing */
  uint64_t rx_dropped;       /* udccp receiver: packets its rules dropped
                                (sequence-invalid...): info.pkts_dropped */
  uint64_t rx_seq_invalid;   /* udccp receiver: read_pkt said UDCCP_ERR_SEQ */
  /* One-way delay of the forward data packets that arrived in the
   * measured period (from sim_flow_xmit to the receiver: propagation,
   * serialization, queueing; the simulator's one clock), ms, to 50 us;
   * 0 if none.  Data packets: every TCP segment, udccp packets of more
   * than SIM_OWD_MIN_WIRE bytes on the wire (acknowledgements are less). */
  double owd_min_ms, owd_p50_ms, owd_p95_ms, owd_p99_ms, owd_max_ms;
  uint64_t owd_samples;
  /* Application-limited udccp flows (app=RATE): the delay of each
   * datagram read in the measured period from its write by the sending
   * application to its read by the receiving one (the sender's queue, its
   * CCID's pacing and window, the network; the write time rides in the
   * datagram's first 8 bytes): min, p50, p95, p99, max, ms; 0 samples
   * for other flows. */
  double app_delay_ms[5];
  uint64_t app_delay_samples;
  /* Corruption (cfg->corrupt), both directions: packets of this flow the
   * network corrupted and that arrived; of those, the ones the receiving
   * end refused (checksum, or a header too broken to check) and the ones
   * it accepted as valid (a checksum failure: must stay 0). */
  uint64_t corrupted, corrupt_caught, corrupt_accepted;
  /* Connection life (udccp flows; the TCP model: established when its
   * SYN-ACK arrived, and it does not close). */
  int established;           /* reached OPEN */
  double established_s;      /* when, virtual seconds */
  int closed_ok;             /* both ends closed without timeout or abort */
  double closed_s;           /* when both ends were done */
  int client_error, server_error; /* udccp_conn_get_error() at the end */
  int client_reset, server_reset; /* udccp_conn_get_reset_code() */
  char close_desc[128];      /* human summary of the close */
  int client_ended, server_ended; /* the end was freed (done); a server
                                 never created counts as ended */
  size_t mem_peak;           /* check_invariants: most bytes either end held */
  /* Multipath flows: n_paths > 0, one entry per path; mp_active 1 if
   * Multipath DCCP was agreed (else it fell back, §3.6); the receiver's
   * reordering: datagrams out of MP_SEQ order given to the application
   * (must be 0 with reordering on), held past the bound, released after
   * a gap was given up, dropped because their number had been given up. */
  uint32_t n_paths;
  sim_path_result paths[SIM_MAX_PATHS];
  int mp_active;
  uint64_t mp_disorder, mp_over_bound, mp_released_late;
  uint64_t mp_late_dropped;  /* came after their number was given up */
  uint64_t mp_placed;        /* whole run: datagrams (MP_SEQ numbers) the
                                sender placed on subflows, each once
                                however many copies went */
  uint64_t mp_delivered;     /* whole run: datagrams the application read */
  uint64_t mp_dup_dropped;   /* copies the receiver dropped by MP_SEQ */
  double mp_bound_ms;
  char err[256];             /* non-empty: the flow failed (setup, -l...) */
} sim_flow_result;

typedef struct sim_result {
  size_t n_flows;
  sim_flow_result *flows;
  double utilization;        /* delivered payload bits / (rate x duration);
                                with paths: the sum of the paths' rates */
  double link_utilization;   /* wire bits (every header) serialised onto
                                the forward bottleneck in the measured
                                period / (rate x duration) */
  double jain_fairness;      /* over the flows' goodputs */
  double sim_time_s;         /* the measured period */
  double end_time_s;         /* virtual time when the run ended (closes) */
  uint32_t queue_pkts;       /* the queue limit in effect */
  uint64_t events;
  size_t pool_high_water;    /* most packets in flight at once */
  sim_link_stats fwd, rev;   /* path 0 */
  uint32_t n_paths;          /* paths in path_fwd/path_rev (at least 1) */
  sim_link_stats path_fwd[SIM_MAX_PATHS], path_rev[SIM_MAX_PATHS];
  uint64_t path_rate_bps[SIM_MAX_PATHS];
  udccp_tstamp path_delay[SIM_MAX_PATHS];
  uint32_t path_queue[SIM_MAX_PATHS];
  char err[512];             /* set when sim_run fails */
} sim_result;

/* Runs the simulation.  Returns 0 (flows may still have failed: see
 * res->flows[i].err), or -1 with res->err naming the problem.  Free res
 * with sim_result_free() in both cases. */
int sim_run(const sim_config *cfg, sim_result *res);
void sim_result_free(sim_result *res);

/* Queue limit in packets that --queue 0 means for this rate and delay:
 * one bandwidth-delay product of 1500-byte packets (at least 2). */
uint32_t sim_bdp_pkts(uint64_t rate_bps, udccp_tstamp delay);

/* Jain's fairness index of x[0..n): (sum x)^2 / (n sum x^2); 0 if all 0. */
double sim_jain(const double *x, size_t n);

#endif /* UDCCP_SIM_H */

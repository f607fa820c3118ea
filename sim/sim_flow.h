/* SPDX-License-Identifier: MIT */
/*
 * Flow kinds: what the simulator needs from a flow, and the services it
 * offers flows.  Adding a kind is one sim_flow_kind object plus a line in
 * the table of kinds.c (a udccp CCID: one line, see SIM_UDCCP_KIND).
 */
#ifndef UDCCP_SIM_FLOW_H
#define UDCCP_SIM_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "sim.h"
#include "sim_pool.h"

#define SIM_FLOW_TIMERS 6

typedef struct sim sim;
typedef struct sim_flow sim_flow;

typedef struct sim_flow_sample {
  udccp_tstamp srtt; /* sender's smoothed RTT; 0 if unknown */
  uint32_t cwnd;     /* packets; 0 if not window-based */
  uint32_t ack_ratio;/* data packets per ack (CCID 2 Ack Ratio); 0 unknown */
  double x_bps;      /* TFRC allowed rate X, bits/s; 0 if not rate-based */
  double x_recv_bps; /* TFRC: the receive rate X_recv the sender uses, bits/s */
  double p;          /* TFRC loss event rate; 0 if none */
} sim_flow_sample;

struct sim_flow_kind {
  const char *name;   /* as written in --flows */
  int ccid;           /* DCCP CCID of udccp flows; 0 for others */
  int tfrc;           /* 1: report loss_event_rate */
  const char *help;   /* one line for --help */
  /* Set-up: allocate f->priv, arm the start timer for f->start_at.
   * Returns 0, or -1 with f->err set. */
  int (*init)(sim_flow *f);
  /* A packet arrived at the end p->dir points to (FWD: the receiver).
   * The kind owns p and must free or forward it. */
  void (*recv)(sim_flow *f, sim_pkt *p, udccp_tstamp now);
  /* Timer `which` fired (possibly early: re-check and re-arm). */
  void (*timer)(sim_flow *f, unsigned which, udccp_tstamp now);
  /* The measured period is over: the sending application stops and
   * closes. */
  void (*stop)(sim_flow *f, udccp_tstamp now);
  /* 1 once the flow has nothing left to do after stop. */
  int (*done)(const sim_flow *f);
  void (*sample)(const sim_flow *f, sim_flow_sample *s);
  /* Fills the kind's part of the result (connection life, TFRC p). */
  void (*finish)(sim_flow *f, sim_flow_result *r);
  /* For the pcap: returns the L4 bytes of p (p->data itself or a packet
   * built into scratch), their length and IP protocol. */
  const uint8_t *(*pcap_l4)(const sim_flow *f, const sim_pkt *p,
                            uint8_t *scratch, size_t cap, size_t *len,
                            uint8_t *proto);
  void (*destroy)(sim_flow *f);
};

/* A delay histogram (sim.c): bins of 50 us from 0 to 3.3 s, allocated
 * with the first sample; beyond, counted and the maximum kept. */
typedef struct sim_delay_hist {
  uint32_t *bins;
  uint64_t n, over;
  udccp_tstamp min, max;
} sim_delay_hist;

struct sim_flow {
  sim *sim;
  const sim_flow_kind *kind;
  uint32_t id;
  void *priv;
  udccp_tstamp start_at;
  uint32_t packet_size;            /* the kind sets it */
  udccp_tstamp stop_at;            /* the app stops here (UDCCP_TSTAMP_NEVER:
                                      at the end of the measured period) */
  uint64_t app_rate_bps;           /* > 0: application-limited sender */
  const sim_flow_opts *opts;       /* the flow's sim_config.flow_opts */
  uint8_t cli_addr[4], srv_addr[4];/* client sends forward */
  uint16_t cli_port, srv_port;
  int stopped;                     /* measured period over */
  char err[256];                   /* the kind's failure, if any */
  /* Counters: sent_pkts by the kind, the rest by the simulator. */
  uint64_t sent_pkts, delivered_pkts, delivered_bytes;
  uint64_t fwd_offered, fwd_lost;
  uint64_t corrupted, corrupt_caught, corrupt_accepted;
  /* Simulator-private from here. */
  struct {
    udccp_tstamp at;
    uint32_t gen;
  } timers[SIM_FLOW_TIMERS];
  uint64_t m_sent, m_dpkts, m_dbytes, m_offered, m_lost; /* at stop */
  uint64_t *bins;                  /* bytes delivered per whole second */
  size_t n_bins;
  uint64_t bin_mark;
  double rtt_sum;
  uint64_t rtt_n;
  double p_sum;                    /* p > 0 samples in the measured period */
  uint64_t p_n;
  double p_end;                    /* p of the sample at the stop */
  double xr_sum;                   /* X_recv samples in the measured period */
  uint64_t xr_n;
  sim_delay_hist owd;              /* one-way delay of forward data packets
                                      in the measured period */
  sim_delay_hist app_delay;        /* application-limited udccp flows: from
                                      the write of each datagram to its read
                                      (sim_flow_app_delay) */
};

/* The kinds, NULL-terminated, and lookup by name (NULL if unknown). */
extern const sim_flow_kind *const sim_flow_kinds[];
const sim_flow_kind *sim_flow_kind_find(const char *name);

extern const sim_flow_kind sim_kind_tcp;
extern const sim_flow_kind sim_kind_tcp_delack;
extern const sim_flow_kind sim_kind_tcp_cubic;
extern const sim_flow_kind sim_kind_tcp_bbr;
extern const sim_flow_kind sim_kind_ccid2;
extern const sim_flow_kind sim_kind_ccid3;
extern const sim_flow_kind sim_kind_ccid4;
extern const sim_flow_kind sim_kind_cubic;
extern const sim_flow_kind sim_kind_bbr;
extern const sim_flow_kind sim_kind_mp_ccid2;
extern const sim_flow_kind sim_kind_mp_ccid3;

/* --- services for flow kinds --- */

const sim_config *sim_flow_config(const sim_flow *f);
/* Seed for the flow's own random stream (sim_rng_seed(r, seed, stream)). */
uint64_t sim_flow_seed(const sim_flow *f);
/* A zeroed packet of this flow, or NULL when memory ran out (the run then
 * ends with an error; just stop sending). */
sim_pkt *sim_flow_pkt_new(sim_flow *f);
void sim_flow_pkt_free(sim_flow *f, sim_pkt *p);
/* pcap_l4 for the kinds whose packets are DCCP as sent: p->data, IP
 * protocol 33 (RFC 4340 §19.1). */
const uint8_t *sim_flow_pcap_dccp(const sim_flow *f, const sim_pkt *p,
                                  uint8_t *scratch, size_t cap, size_t *len,
                                  uint8_t *proto);
/* Paths between the hosts (1 without --paths), and the addresses of the
 * client and server ends on path k (path 0: f->cli_addr, f->srv_addr). */
uint32_t sim_flow_n_paths(const sim_flow *f);
void sim_flow_path_addr(const sim_flow *f, uint32_t path, uint8_t cli[4],
                        uint8_t srv[4]);
/* Sends p (dir, path, len and wire_len set) onto the link of its path
 * and direction.
 * Takes ownership of p. */
void sim_flow_xmit(sim_flow *f, sim_pkt *p, udccp_tstamp now);
/* Guarantees a timer(which) call no later than at (it may come earlier). */
void sim_flow_arm(sim_flow *f, unsigned which, udccp_tstamp at);
/* The receiving application got a datagram/segment of bytes payload. */
void sim_flow_delivered(sim_flow *f, size_t bytes);
/* A datagram written at `written` was read now (measured period only). */
void sim_flow_app_delay(sim_flow *f, udccp_tstamp written, udccp_tstamp now);
/* The kind read p (p->corrupt set by the network): accepted = 1 if its
 * receiver took it as valid.  Call before freeing p. */
void sim_flow_corrupt_seen(sim_flow *f, const sim_pkt *p, int accepted);
/* Application-limited senders: how many bytes the application has handed
 * to the sender between since and now, UINT64_MAX if greedy; and when that
 * total reaches `bytes` (a little after, never before). */
uint64_t sim_flow_app_bytes(const sim_flow *f, udccp_tstamp since,
                            udccp_tstamp now);
udccp_tstamp sim_flow_app_time(const sim_flow *f, udccp_tstamp since,
                               uint64_t bytes);

#endif /* UDCCP_SIM_FLOW_H */

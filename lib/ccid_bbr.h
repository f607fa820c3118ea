/* SPDX-License-Identifier: MIT */
/*
 * BBR (draft-ietf-ccwg-bbr) as an experimental CCID on CCID 2's feedback;
 * see lib/ccid_bbr.c and doc/bbr.md.  Registered by default under
 * UDCCP_CCID_BBR_DEFAULT (include/udccp/ccid.h).
 */
#ifndef UDCCP_CCID_BBR_H
#define UDCCP_CCID_BBR_H

#include "ccid.h"
#include "ccid2.h"

/* Bytes of policy state after CCID 2's sender state. */
#define UDCCP_BBR_CC_STATE_SIZE 640u

_Static_assert(UDCCP_CCID2_TX_STATE_SIZE + UDCCP_BBR_CC_STATE_SIZE <=
                   UDCCP_CCID_STATE_SIZE,
               "bbr state size");

/* BBR.state values (udccp_bbr_model.state). */
enum {
  UDCCP_BBR_STARTUP,
  UDCCP_BBR_DRAIN,
  UDCCP_BBR_PROBE_BW_DOWN,
  UDCCP_BBR_PROBE_BW_CRUISE,
  UDCCP_BBR_PROBE_BW_REFILL,
  UDCCP_BBR_PROBE_BW_UP,
  UDCCP_BBR_PROBE_RTT
};

/* The model of a BBR sender half, for tests and diagnostics. */
typedef struct udccp_bbr_model {
  int state;
  double max_bw, bw;          /* packets/s */
  udccp_tstamp min_rtt;       /* UDCCP_TSTAMP_NEVER before a sample */
  double pacing_rate, cwnd;   /* packets/s, packets */
  uint64_t round_count;
  int full_bw_reached;
  double inflight_longterm;   /* packets; > 1e299: none */
} udccp_bbr_model;

void udccp_bbr_get_model(const udccp_ccid_state *st, udccp_bbr_model *m);

extern const udccp_ccid2_cc udccp_bbr_cc;
extern const udccp_ccid_ops udccp_ccid_bbr_ops;

#endif /* UDCCP_CCID_BBR_H */

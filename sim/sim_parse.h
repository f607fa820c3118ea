/* SPDX-License-Identifier: MIT */
/*
 * Parsing of udccp-sim's arguments: rates ("50mbit"), times ("20ms"),
 * probabilities ("0.01", "1%") and flow lists ("ccid2,tcp", "4xccid2").
 * Each returns 0, or -1 with a message in err that names the problem and
 * the fix.
 */
#ifndef UDCCP_SIM_PARSE_H
#define UDCCP_SIM_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/* bit, kbit, mbit, gbit (case-insensitive, decimal fractions allowed). */
int sim_parse_rate(const char *s, uint64_t *bps, char *err, size_t cap);
/* ns, us, ms, s (a unit is required). */
int sim_parse_time(const char *s, udccp_tstamp *ns, char *err, size_t cap);
/* A fraction in [0, 1], or a percentage "5%". */
int sim_parse_prob(const char *s, double *p, char *err, size_t cap);
/* An unsigned integer in [min, max]. */
int sim_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v,
                   char *err, size_t cap);
/* Comma list of KIND or NxKIND, each optionally followed by attributes
 * ":start=TIME", ":stop=TIME", ":app=RATE"; fills cfg->kinds,
 * cfg->flow_opts and cfg->n_flows. */
int sim_parse_flows(const char *s, sim_config *cfg, char *err, size_t cap);
/* "AT+LENGTH" (times): appends a blackout to cfg. */
int sim_parse_blackout(const char *s, sim_config *cfg, char *err, size_t cap);
/* "AT:RATE": appends a rate change to cfg. */
int sim_parse_rate_step(const char *s, sim_config *cfg, char *err,
                        size_t cap);

/* "RATE/DELAY[:queue=PKTS][:loss=P][:blackout=AT+LEN]...,...": the
 * paths between the hosts (at most SIM_MAX_PATHS); sets cfg->paths,
 * n_paths, and rate_bps / delay from the first. */
int sim_parse_paths(const char *s, sim_config *cfg, char *err, size_t cap);

#endif /* UDCCP_SIM_PARSE_H */

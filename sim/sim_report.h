/* SPDX-License-Identifier: MIT */
/*
 * Output of a simulation: one JSON object (the udccp-sim --json contract,
 * DESIGN.md §4) or a human-readable table.
 */
#ifndef UDCCP_SIM_REPORT_H
#define UDCCP_SIM_REPORT_H

#include <stdio.h>

#include "sim.h"

/* wall_s < 0 leaves wall_time_s out (for comparing runs). */
void sim_report_json(FILE *out, const sim_config *cfg, const sim_result *res,
                     double wall_s);
void sim_report_table(FILE *out, const sim_config *cfg, const sim_result *res,
                      double wall_s);

/* "50 Mbit/s"-style rendering of bits/s into buf. */
const char *sim_fmt_rate(char *buf, size_t cap, double bps);

#endif /* UDCCP_SIM_REPORT_H */

/* SPDX-License-Identifier: MIT */
/*
 * udccp-sim --plot: the goodput of every flow over time as a plain SVG
 * image (no scripts, no external resources), drawn from the same 1-second
 * samples as --csv: axes with tick labels and units, a title naming the
 * scenario, a legend with each flow's mean, and the bottleneck rate.
 */
#ifndef UDCCP_SIM_PLOT_H
#define UDCCP_SIM_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "sim.h"

/* Writes the SVG document to out.  Returns 0, or -1 if writing failed. */
int sim_plot_svg(FILE *out, const sim_config *cfg, const sim_result *res);

/* The "nice" tick step (1, 2 or 5 times a power of ten) that divides
 * [0, max] into about `target` intervals; 1 if max <= 0. */
double sim_plot_tick_step(double max, int target);

#endif /* UDCCP_SIM_PLOT_H */

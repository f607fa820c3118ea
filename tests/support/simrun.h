/* SPDX-License-Identifier: MIT */
/*
 * One simulator run for the sim tests: flows through one bottleneck of
 * rate bit/s and one-way delay, random loss; prints one line per flow (and,
 * for udccp flows, how they opened and closed).  Fails the current cmocka
 * test if the configuration is refused or the run fails.
 */
#ifndef UDCCP_TESTS_SIMRUN_H
#define UDCCP_TESTS_SIMRUN_H

#include <stdint.h>

#include "sim.h"

void udccp_test_sim_run(const char *flows, uint64_t rate, udccp_tstamp delay,
                        udccp_tstamp duration, double loss, sim_result *res);

/* A place for the current test's result, and a cmocka teardown that frees
 * it, so that it is freed even when an assertion fails half-way. */
extern sim_result udccp_test_res;
int udccp_test_sim_free(void **state);

#endif /* UDCCP_TESTS_SIMRUN_H */

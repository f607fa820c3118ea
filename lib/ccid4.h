/* SPDX-License-Identifier: MIT */
/*
 * CCID 4: TCP-Friendly Rate Control for Small Packets (RFC 5622, with
 * TFRC-SP of RFC 4828).
 *
 * CCID 4 is CCID 3 (lib/ccid3.h) with the TFRC-SP parameter set:
 *   - the equation uses a nominal segment size of 1460 bytes (or the MPS if
 *     smaller, RFC 4828 §3) and the rate is scaled by s/(s + 36), s being
 *     the mean data segment size and 36 the IPv4 + DCCP-Data header size
 *     (RFC 5622 §5);
 *   - at least 10 ms between data packets (RFC 5622 §5; its MAY of one
 *     extra packet per timeslice is not used);
 *   - loss intervals of at most two RTTs count as Data Length / Drop Count,
 *     and a short current interval is left out of the average (RFC 4828
 *     §3, RFC 5622 §6.1); the receiver adds the Dropped Packets option
 *     (195, RFC 5622 §8.7) to every Loss Intervals option.
 * Option and feature numbers are CCID 3's (RFC 5622 §8), and so are the
 * dependencies.
 */
#ifndef UDCCP_CCID4_H
#define UDCCP_CCID4_H

#include "ccid.h"
#include "ccid3.h"

/* RFC 5622 §5: minimum interval between data packets. */
#define UDCCP_CCID4_MIN_INTERVAL UDCCP_TFRC_SP_MIN_INTERVAL

extern const udccp_tfrc_ccid_params udccp_ccid4_params;

/* The CCID 4 operations table (registered in lib/ccid.c). */
extern const udccp_ccid_ops udccp_ccid4_ops;

#endif /* UDCCP_CCID4_H */

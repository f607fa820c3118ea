/* SPDX-License-Identifier: MIT */
/*
 * CUBIC (RFC 9438) as an experimental CCID on CCID 2's feedback; see
 * lib/ccid_cubic.c and doc/cubic.md.  Registered by default under
 * UDCCP_CCID_CUBIC_DEFAULT (include/udccp/ccid.h).
 */
#ifndef UDCCP_CCID_CUBIC_H
#define UDCCP_CCID_CUBIC_H

#include "ccid.h"
#include "ccid2.h"

/* Bytes of policy state after CCID 2's sender state (HyStart++ made it
 * outgrow UDCCP_CCID2_CC_STATE_SIZE). */
#define UDCCP_CUBIC_CC_STATE_SIZE 128u

_Static_assert(UDCCP_CCID2_TX_STATE_SIZE + UDCCP_CUBIC_CC_STATE_SIZE <=
                   UDCCP_CCID_STATE_SIZE,
               "cubic state size");

/* RFC 9438 §5.1 (constants): C in packets/s^3, beta_cubic. */
#define UDCCP_CUBIC_C 0.4
#define UDCCP_CUBIC_BETA 0.7

extern const udccp_ccid2_cc udccp_cubic_cc;
extern const udccp_ccid_ops udccp_ccid_cubic_ops;

#endif /* UDCCP_CCID_CUBIC_H */

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

/* RFC 9438 §5.1 (constants): C in packets/s^3, beta_cubic. */
#define UDCCP_CUBIC_C 0.4
#define UDCCP_CUBIC_BETA 0.7

extern const udccp_ccid2_cc udccp_cubic_cc;
extern const udccp_ccid_ops udccp_ccid_cubic_ops;

#endif /* UDCCP_CCID_CUBIC_H */

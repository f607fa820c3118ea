/* SPDX-License-Identifier: MIT */
/*
 * Parsers for the command-line values the tools share (DESIGN.md §4):
 * rates like "50mbit", sizes like "64k", times like "20ms".  Service
 * Codes are read by the public udccp_service_code_parse().
 */
#ifndef UDCCP_IO_PARSE_H
#define UDCCP_IO_PARSE_H

#include <stdint.h>

#include <udccp/udccp.h>

/* Rate in bits/s: "<number>[k|m|g][bit|bps|b]" (decimal multipliers, bits);
 * "<number>[K|M|G]Bps"/"B/s" means bytes/s.  A bare number is bits/s.
 * Returns 0 or UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_io_parse_rate(const char *s, uint64_t *bps);

/* Size in bytes: "<number>[k|K|m|M|g|G]" (binary multipliers).
 * Returns 0 or UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_io_parse_size(const char *s, uint64_t *bytes);

/* Time: "<number>[ns|us|ms|s|m]" (bare number: seconds) into nanoseconds.
 * Returns 0 or UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_io_parse_time(const char *s, uint64_t *ns);

/* Keepalive (udccp_settings keepalive_*): "IDLE[,INTERVAL[,PROBES]]", times
 * as udccp_io_parse_time, PROBES 1..255; "0" or "off" turns it off.  Fields
 * not given keep their value in *st.  Returns 0 or
 * UDCCP_ERR_INVALID_ARGUMENT (then *st is unchanged). */
int udccp_io_parse_keepalive(const char *s, udccp_settings *st);

/* A listener's Init Cookie mode (enum udccp_init_cookie): "auto",
 * "always" or "never".  Returns 0 or UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_io_parse_cookie_mode(const char *s, uint8_t *mode);

/* A multipath scheduler (enum udccp_mp_sched): "minrtt", "backup", "rr"
 * or "redundant".  Returns 0 or UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_io_parse_mp_sched(const char *s, int *sched);

/* A bound such as a backlog: a decimal number 1 .. 2^32 - 2, or
 * "unlimited" (UINT32_MAX).  Returns 0 or UDCCP_ERR_INVALID_ARGUMENT. */
int udccp_io_parse_bound(const char *s, uint32_t *n);

/* The tools' listener options: name "cookies" (udccp_io_parse_cookie_mode
 * into *cookies), "half-open" or "backlog" (udccp_io_parse_bound into
 * *half_open or *backlog).  Returns NULL, or what is wrong with arg, for
 * a message "TOOL: --NAME <that>". */
const char *udccp_io_parse_listen_opt(const char *name, const char *arg,
                                      uint8_t *cookies, uint32_t *half_open,
                                      uint32_t *backlog);

/* Call first in main(): a standard descriptor the shell closed (<&-, >&-)
 * would be the next socket's number, so each closed one of 0..2 gets
 * /dev/null opened the other way round (using it fails with EBADF, as it
 * would have).  Returns a bit per descriptor that was closed (1: stdin,
 * 2: stdout, 4: stderr). */
unsigned udccp_io_reserve_std_fds(void);

#endif /* UDCCP_IO_PARSE_H */

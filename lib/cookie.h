/* SPDX-License-Identifier: MIT */
/*
 * Init Cookies (RFC 4340 §8.1.4): a listener that answers a Request with a
 * Response carrying an Init Cookie keeps no state; the client echoes the
 * cookie on its Ack (and every PARTOPEN packet, §8.1.5), and the listener
 * rebuilds the connection from it.
 *
 * Format of a cookie (all integers big-endian), at most 253 bytes so that
 * it fits one Init Cookie option:
 *
 *   0   version        1   (UDCCP_COOKIE_VERSION)
 *   1   key epoch      1   low 8 bits of the secret's epoch number
 *   2   made           8   udccp_tstamp at creation (ns)
 *   10  ISR            6   the Request's Sequence Number
 *   16  ISS            6   the Response's Sequence Number
 *   22  service code   4
 *   26  feat_len       1   0..UDCCP_COOKIE_FEAT_MAX
 *   27  feat           feat_len bytes, opaque to this module
 *   ..  MAC            8   SipHash-2-4 under the epoch's secret of the
 *                          path (family, local and remote address, local
 *                          and remote DCCP port, remote UDP port on
 *                          DCCP-UDP) followed by every byte above
 *
 * The cookie is authenticated, not encrypted: everything in it is either
 * already visible to the client in the Response (ISS, ISR, service code,
 * the confirmed features) or harmless (the server's clock).
 *
 * Secrets rotate every `lifetime`: the jar keeps the current and the
 * previous 128-bit secret, drawn from the caller's rand callback at the
 * rotation (done lazily by make and open, from the ts they are given).  A
 * cookie is accepted if its MAC verifies under the secret of its epoch, that
 * epoch is the current or previous one, and it is at most 2 lifetimes old:
 * so it stays valid for at least one lifetime (8 s by default, far more
 * than a handshake round trip) and at most two.  The MAC is compared in
 * constant time.
 *
 * A valid cookie proves only that this listener issued it for this path
 * within 2 lifetimes; within that window it can be replayed, so the caller
 * must check the echoing packet (Acknowledgement Number == ISS, Sequence
 * Number after ISR, §8.1.4, §8.5) and remember the cookies that already
 * made a connection (the listener keeps their MACs per epoch: open reports
 * both).
 */
#ifndef UDCCP_COOKIE_H
#define UDCCP_COOKIE_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#define UDCCP_COOKIE_VERSION 1
#define UDCCP_COOKIE_MAX_LEN 253  /* one Init Cookie option's value, §8.1.4 */
#define UDCCP_COOKIE_HDR_LEN 27   /* bytes before feat */
#define UDCCP_COOKIE_MAC_LEN 8
#define UDCCP_COOKIE_OVERHEAD (UDCCP_COOKIE_HDR_LEN + UDCCP_COOKIE_MAC_LEN)
#define UDCCP_COOKIE_FEAT_MAX 128 /* opaque feature bytes a cookie can hold */
#define UDCCP_COOKIE_SECRET_LEN 16
#define UDCCP_COOKIE_DEFAULT_LIFETIME (8 * UDCCP_NS_PER_S)

/* What a cookie carries.  make reads every field but `made`; open fills
 * every field. */
typedef struct udccp_cookie_state {
  uint64_t isr;          /* 48 bits: Sequence Number of the Request */
  uint64_t iss;          /* 48 bits: Sequence Number of the Response */
  uint32_t service_code; /* the Request's Service Code (§8.1.2) */
  uint8_t feat_len;
  uint8_t feat[UDCCP_COOKIE_FEAT_MAX]; /* negotiated feature values the
                                          Response confirmed; the
                                          connection code defines them */
  udccp_tstamp made;     /* open: when the cookie was made */
  uint64_t epoch;        /* open: the number of the secret that made it */
  uint64_t mac;          /* open: its MAC, which names it (replay guard) */
} udccp_cookie_state;

typedef struct udccp_cookie_jar {
  udccp_rand_cb rand;
  void *rand_user_data;
  udccp_tstamp lifetime;    /* rotation period (ns) */
  udccp_tstamp rotated_at;  /* when the current secret was drawn */
  uint64_t epoch;           /* number of the current secret */
  int have_prev;            /* the previous secret may still verify */
  /* secret[epoch & 1] is current, secret[(epoch - 1) & 1] the previous */
  uint8_t secret[2][UDCCP_COOKIE_SECRET_LEN];
} udccp_cookie_jar;

/* Sets up jar and draws its first secret from rand (required).  lifetime
 * 0 means UDCCP_COOKIE_DEFAULT_LIFETIME (8 s); values above UINT64_MAX / 2
 * are clamped to it.  Returns 0 or
 * UDCCP_ERR_INVALID_ARGUMENT (rand NULL). */
int udccp_cookie_jar_init(udccp_cookie_jar *jar, udccp_rand_cb rand,
                          void *rand_user_data, udccp_tstamp lifetime,
                          udccp_tstamp ts);

/* Wipes the secrets. */
void udccp_cookie_jar_clear(udccp_cookie_jar *jar);

/* Rotates the secrets if ts has passed one or more lifetimes since the last
 * rotation (make and open call it; exposed for the listener's timer and
 * for tests).  After two or more missed lifetimes both secrets are
 * replaced, since no cookie under the old ones may be accepted any more. */
void udccp_cookie_jar_tick(udccp_cookie_jar *jar, udccp_tstamp ts);

/* The length of the cookie make writes for st. */
static inline size_t udccp_cookie_len(const udccp_cookie_state *st) {
  return UDCCP_COOKIE_OVERHEAD + st->feat_len;
}

/* Writes the Init Cookie for st on path (as seen by the server: local is
 * the server) into out, under the current secret at ts.  Returns the
 * cookie's length (<= UDCCP_COOKIE_MAX_LEN), UDCCP_ERR_NOBUF if cap is too
 * small, or UDCCP_ERR_INVALID_ARGUMENT (feat_len > UDCCP_COOKIE_FEAT_MAX,
 * isr or iss wider than 48 bits). */
udccp_ssize udccp_cookie_make(udccp_cookie_jar *jar, const udccp_path *path,
                              const udccp_cookie_state *st, uint8_t *out,
                              size_t cap, udccp_tstamp ts);

/* Checks the cookie echoed on a packet received on path (same orientation
 * as for make) at ts, and on success fills *st.  Returns 0, or
 * UDCCP_ERR_COOKIE if it is malformed, forged, altered, made for another
 * path, under a retired secret, or older than 2 lifetimes (the listener
 * then resets with Reset Code 10, "Bad Init Cookie", §8.1.4). *st is
 * unspecified on failure. */
int udccp_cookie_open(udccp_cookie_jar *jar, const udccp_path *path,
                      const uint8_t *cookie, size_t len,
                      udccp_cookie_state *st, udccp_tstamp ts);

#endif /* UDCCP_COOKIE_H */

/* SPDX-License-Identifier: MIT */
/*
 * Multipath DCCP (RFC 9897, draft-ietf-tsvwg-multipath-dccp-25): the
 * Multipath option (type 46) and its suboptions, decoded and encoded.
 * Stateless; the connection logic lives elsewhere (lib/mp.c).
 *
 * Wire format (§3.2 "Multipath Option"): 46, Length, MP_OPT, value...
 * Lengths below are the whole option's (the Length byte), as the spec's
 * table in §3.2 gives them:
 *   MP_CONFIRM     var   list of confirmations (§3.2.1)
 *   MP_JOIN        12    Addr ID, CI (4), Nonce (4) (§3.2.2)
 *   MP_FAST_CLOSE  var   Key Data of the peer (§3.2.3)
 *   MP_KEY         var   resvd, CI (4), [Key Type, Key Data]... (§3.2.4)
 *   MP_SEQ         9     48-bit sequence number (§3.2.5)
 *   MP_HMAC        23    HMAC-SHA256 truncated to 20 bytes (§3.2.6)
 *   MP_RTT         12    RTT Type, RTT (4), Age (4), milliseconds (§3.2.7)
 *   MP_ADDADDR     12..26  Addr ID, Nonce (4), IPv4/IPv6, [Port] (§3.2.8)
 *   MP_REMOVEADDR  8     Addr ID, Nonce (4) (§3.2.9)
 *   MP_PRIO        4     4 bits reserved, 4 bits prio (§3.2.10)
 *   MP_CLOSE       var   Key Data of the peer (§3.2.11)
 *   MP_EXP         var   up to 252 bytes for private use (§3.2.12)
 *
 * The suboption type numbers are the IANA "Multipath Options" registry of
 * §7.3; MP_OPT > 11 is unassigned: udccp_mp_opt_parse() reports it as
 * unknown (1), and §3.6 (Fallback) lets the receiver close the subflow
 * ("The same procedure applies if the MP option is unknown": MAY) -- the
 * connection decides.
 */
#ifndef UDCCP_MP_OPT_H
#define UDCCP_MP_OPT_H

#include <stddef.h>
#include <stdint.h>

#include <udccp/udccp.h>

#include "opt.h"


/* MP_OPT values, RFC 9897 §3.2 and §7.3. */
enum udccp_mp_type {
  UDCCP_MP_CONFIRM = 0,
  UDCCP_MP_JOIN = 1,
  UDCCP_MP_FAST_CLOSE = 2,
  UDCCP_MP_KEY = 3,
  UDCCP_MP_SEQ = 4,
  UDCCP_MP_HMAC = 5,
  UDCCP_MP_RTT = 6,
  UDCCP_MP_ADDADDR = 7,
  UDCCP_MP_REMOVEADDR = 8,
  UDCCP_MP_PRIO = 9,
  UDCCP_MP_CLOSE = 10,
  UDCCP_MP_EXP = 11,
  UDCCP_MP_TYPE_MAX = 11 /* above: unassigned */
};

/* MP_KEY Key Types, RFC 9897 §3.2.4 and §7.5 (registry: 1..254 open). */
enum udccp_mp_key_type {
  UDCCP_MP_KEY_PLAIN = 0,        /* 8-byte key in plain text */
  UDCCP_MP_KEY_EXPERIMENTAL = 255 /* 64 bytes, private use */
};

/* MP_RTT RTT Types, §3.2.7. */
enum udccp_mp_rtt_type {
  UDCCP_MP_RTT_RAW = 0,
  UDCCP_MP_RTT_MIN = 1,
  UDCCP_MP_RTT_MAX = 2,
  UDCCP_MP_RTT_SMOOTH = 3
};

/* MP_PRIO values, §3.2.10 (3..15: primary, higher is preferred). */
enum udccp_mp_prio {
  UDCCP_MP_PRIO_OFF = 0,
  UDCCP_MP_PRIO_STANDBY = 1,
  UDCCP_MP_PRIO_SECONDARY = 2,
  UDCCP_MP_PRIO_PRIMARY = 3
};

#define UDCCP_MP_VERSION 0        /* §3.1: the version this code speaks */
#define UDCCP_MP_HMAC_LEN 20      /* §3.2.6: leftmost 160 bits */
#define UDCCP_MP_KEYS_MAX 4       /* MP_KEY entries we keep per option */
#define UDCCP_MP_KEY_DATA_MAX 64  /* longest Key Data we know (type 255) */
#define UDCCP_MP_EXP_MAX 252      /* §3.2.12 */

/* One Key Type / Key Data pair of an MP_KEY. */
typedef struct udccp_mp_key {
  uint8_t type;        /* enum udccp_mp_key_type */
  uint8_t len;         /* Key Data bytes (udccp_mp_key_len(type)) */
  const uint8_t *data; /* points into the packet (or the caller's buffer) */
} udccp_mp_key;

/* One Multipath option, decoded.  Pointers point into the packet. */
typedef struct udccp_mp_opt {
  uint8_t type;        /* MP_OPT, enum udccp_mp_type */
  uint8_t len;         /* the option's Length byte (whole option) */
  const uint8_t *raw;  /* the option from its type byte 46 (len bytes) */
  union {
    struct {           /* MP_CONFIRM: embedded Multipath options, copied
                          verbatim: an MP_SEQ, then the options it confirms,
                          repeated (§3.2.1); walk with udccp_mp_confirm_next */
      const uint8_t *list;
      uint8_t list_len;
    } confirm;
    struct {           /* MP_JOIN */
      uint8_t addr_id;
      uint32_t ci;     /* the peer's Connection Identifier */
      uint32_t nonce;
    } join;
    struct {           /* MP_FAST_CLOSE, MP_CLOSE: the peer's Key Data */
      const uint8_t *data;
      uint8_t len;
    } key_data;
    struct {           /* MP_KEY */
      uint32_t ci;
      uint8_t n_keys;  /* entries in keys[] */
      /* 1 if the list went on with a Key Type whose length we do not
       * know (unassigned 1..254): its data and everything after it cannot
       * be delimited and is skipped; the keys before it stand. */
      uint8_t unknown_type;
      udccp_mp_key keys[UDCCP_MP_KEYS_MAX];
    } key;
    uint64_t seq;      /* MP_SEQ, 48 bits */
    uint8_t hmac[UDCCP_MP_HMAC_LEN]; /* MP_HMAC */
    struct {           /* MP_RTT */
      uint8_t rtt_type; /* enum udccp_mp_rtt_type */
      uint32_t rtt_ms;
      uint32_t age_ms;
    } rtt;
    struct {           /* MP_ADDADDR */
      uint8_t addr_id;
      uint8_t family;  /* UDCCP_AF_INET or UDCCP_AF_INET6 */
      uint8_t has_port;
      uint16_t port;   /* host order; valid if has_port */
      uint32_t nonce;
      uint8_t addr[16]; /* network order; IPv4 in the first 4 bytes */
    } addaddr;
    struct {           /* MP_REMOVEADDR */
      uint8_t addr_id;
      uint32_t nonce;
    } removeaddr;
    uint8_t prio;      /* MP_PRIO, 0..15 */
    struct {           /* MP_EXP, and unknown MP_OPT values */
      const uint8_t *data;
      uint8_t len;
    } exp;
  } u;
} udccp_mp_opt;

/* Key Data length of a Key Type (§3.2.4): 8 for plain text, 64 for the
 * experimental type; -1 for a type we do not know (its length cannot be
 * told from the option: the registry is open, §7.5). */
int udccp_mp_key_len(uint8_t key_type);

/* Decodes one Multipath option whose value (after type 46 and Length)
 * is val[0..vlen-1]; raw, if not NULL, is the option's first byte (kept in
 * o->raw for MP_CONFIRM echoes).  Every length is checked against §3.2.
 * Returns 0 (decoded), 1 (MP_OPT unassigned, > 11: o->type set, the rest
 * in o->u.exp; §3.6 lets the connection ignore it or close the subflow),
 * or UDCCP_ERR_OPTION (malformed: wrong length for its type, a Key Data
 * running past the end, an MP_CONFIRM list that is not a sequence of
 * well-formed Multipath options starting with an MP_SEQ, an address of a
 * length neither IPv4 nor IPv6). */
int udccp_mp_opt_parse(udccp_mp_opt *o, const uint8_t *raw,
                       const uint8_t *val, size_t vlen);

/* Walks the Multipath options of an options area (each well-formed
 * option of type 46 in turn, as udccp_opts_parse() delimits them) from
 * *pos: decodes the next into o, moves *pos past it and returns its
 * udccp_mp_opt_parse() result (0, 1 or UDCCP_ERR_OPTION); returns 2 at
 * the end. */
int udccp_mp_next(const uint8_t *opts, size_t len, size_t *pos,
                  udccp_mp_opt *o);

/* Walks an MP_CONFIRM list (§3.2.1): from *pos, gives in *seq the MP_SEQ
 * the next confirmed option came with and in o that option, and returns
 * 1; 0 at the end.  Only call on a list udccp_mp_opt_parse() accepted. */
int udccp_mp_confirm_next(const uint8_t *list, size_t len, size_t *pos,
                          uint64_t *seq, udccp_mp_opt *o);

/* Encodes o as a whole option (46, Length, MP_OPT, value) into
 * dst[0..cap-1].  o->len is ignored (computed).  For MP_KEY the key types
 * must be known (udccp_mp_key_len) and each key's len match; for
 * MP_ADDADDR family 4 or 6.  Returns the length written, or
 * UDCCP_ERR_INVALID_ARGUMENT (a field out of range: prio > 15, MP_SEQ or
 * a value over its width, a list too long for one option, an unknown
 * type) or UDCCP_ERR_NOBUF. */
udccp_ssize udccp_mp_opt_encode(const udccp_mp_opt *o, uint8_t *dst,
                                size_t cap);

/* Encodes o at the end of ob (udccp_mp_opt_encode).  Returns 0,
 * UDCCP_ERR_INVALID_ARGUMENT or UDCCP_ERR_NOBUF. */
int udccp_mp_opt_put(udccp_optbuf *ob, const udccp_mp_opt *o);

#endif /* UDCCP_MP_OPT_H */

/* SPDX-License-Identifier: MIT */
/*
 * DCCP options (RFC 4340 §5.8): parsing with the §5.8 rules, and a writer.
 * Options 128..255 are CCID-specific (§10.3) and are handed to the CCIDs
 * uninterpreted.
 */
#ifndef UDCCP_OPT_H
#define UDCCP_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <udccp/udccp.h>

enum udccp_opt_type {
  UDCCP_OPT_PADDING = 0,
  UDCCP_OPT_MANDATORY = 1,
  UDCCP_OPT_SLOW_RECEIVER = 2,
  UDCCP_OPT_CHANGE_L = 32,
  UDCCP_OPT_CONFIRM_L = 33,
  UDCCP_OPT_CHANGE_R = 34,
  UDCCP_OPT_CONFIRM_R = 35,
  UDCCP_OPT_INIT_COOKIE = 36,
  UDCCP_OPT_NDP_COUNT = 37,
  UDCCP_OPT_ACK_VECTOR_0 = 38,
  UDCCP_OPT_ACK_VECTOR_1 = 39,
  UDCCP_OPT_DATA_DROPPED = 40,
  UDCCP_OPT_TIMESTAMP = 41,
  UDCCP_OPT_TIMESTAMP_ECHO = 42,
  UDCCP_OPT_ELAPSED_TIME = 43,
  UDCCP_OPT_DATA_CHECKSUM = 44,
  UDCCP_OPT_MULTIPATH = 46, /* RFC 9897 §3.2, lib/mp_opt.h */
  UDCCP_OPT_CCID_MIN = 128
};

#define UDCCP_OPTS_MAX_FEAT 32   /* Change/Confirm options kept per packet */
#define UDCCP_OPTS_MAX_AV 8      /* Ack Vector options kept per packet */
#define UDCCP_OPTS_MAX_CCID 16   /* CCID-specific options kept per packet */
#define UDCCP_OPTS_MAX_LEN 1008  /* options space: 1020 - 12 header bytes */

/* One option as found in a packet. */
typedef struct udccp_opt {
  uint8_t type;
  uint8_t mandatory;   /* preceded by Mandatory (§5.8.2) */
  uint8_t len;         /* value length (the option's length minus 2) */
  const uint8_t *val;  /* points into the packet */
} udccp_opt;

/* The options of one packet, parsed.  Pointers point into the packet.
 * The fields udccp_opts_reset clears come first, the arrays last, so that
 * the reset is a few wide stores (issue 13: every packet received). */
typedef struct udccp_opts {
  uint32_t present;    /* bit (1u << k) per field below, UDCCP_OPTS_HAS_* */
  uint8_t slow_receiver;
  uint8_t init_cookie_len;
  uint8_t n_init_cookie;       /* how many Init Cookie options there were */
  uint8_t data_dropped_len;
  size_t n_feat;       /* Change L/R, Confirm L/R, in packet order (feat[]) */
  /* When more came than feat[] holds: the options area from the first one
   * left out (read it with udccp_opts_next_feat); NULL if none. */
  const uint8_t *feat_more;
  size_t feat_more_len;
  const uint8_t *init_cookie;  /* the first Init Cookie option */
  uint64_t ndp_count;
  size_t n_ackvec;     /* Ack Vector options, in packet order (ackvec[]) */
  const uint8_t *data_dropped;
  uint32_t timestamp;
  uint32_t ts_echo;
  uint32_t ts_echo_elapsed;    /* 10 us units (0 if absent, §13.3) */
  uint32_t elapsed_time;       /* 10 us units (§13.2) */
  uint32_t data_checksum;
  /* Multipath options (type 46, RFC 9897 §3.2): the area from the first
   * one to the end of the options (walk it with udccp_mp_next, mp_opt.h);
   * NULL if none.  n_mp counts them. */
  uint16_t mp_len;
  uint8_t n_mp;
  /* When parsing fails, the Reset's Data 1..3 (§5.6: the offending option
   * type and the first two bytes of its data, zero where it has fewer). */
  uint8_t err_data[3];
  const uint8_t *mp;
  size_t n_ccid;       /* options 128..255, in packet order (ccid[]) */
  udccp_opt feat[UDCCP_OPTS_MAX_FEAT];
  udccp_opt ackvec[UDCCP_OPTS_MAX_AV];
  udccp_opt ccid[UDCCP_OPTS_MAX_CCID];
} udccp_opts;

enum {
  UDCCP_OPTS_HAS_SLOW_RECEIVER = 1u << 0,
  UDCCP_OPTS_HAS_INIT_COOKIE = 1u << 1,
  UDCCP_OPTS_HAS_NDP_COUNT = 1u << 2,
  UDCCP_OPTS_HAS_DATA_DROPPED = 1u << 3,
  UDCCP_OPTS_HAS_TIMESTAMP = 1u << 4,
  UDCCP_OPTS_HAS_TS_ECHO = 1u << 5,
  UDCCP_OPTS_HAS_ELAPSED = 1u << 6,
  UDCCP_OPTS_HAS_DATA_CHECKSUM = 1u << 7,
  /* a CCID option (128..255) preceded by Mandatory: the CCIDs look for
   * one they do not know (§5.8.2) only then (issue 13) */
  UDCCP_OPTS_HAS_MANDATORY_CCID = 1u << 8,
  /* Ack Vector options were recorded and none has a byte in the reserved
   * State 2 (RFC 4340 §11.4): the parser checked, so that their readers
   * need not read them again (udccp_ackvec_check; issue 13) */
  UDCCP_OPTS_AV_CHECKED = 1u << 9
};

/* 1 if a byte of v[0..n) has State 2, reserved (§11.4).  Eight bytes at
 * a time: a byte's top bits are 10 iff bit 7 of (w & ~(w << 1)) is set
 * in it (the shift moves each byte's bit 6 to its bit 7; what crosses
 * into the next byte lands in bit 0, masked off); the rest a byte at a
 * time, the same test. */
static inline int udccp_opt_av_reserved(const uint8_t *v, size_t n) {
  unsigned acc = 0;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, v, 8);
    if (w & ~(w << 1) & 0x8080808080808080ULL) {
      return 1;
    }
    v += 8;
    n -= 8;
  }
  for (; n > 0; n--, v++) {
    acc |= (unsigned)*v & ~((unsigned)*v << 1);
  }
  return (acc & 0x80u) != 0;
}

/* 1 if an option of this type may appear on a packet of this type: the
 * "DCCP-Data?" column of the §5.8 table (N options ignored on DCCP-Data);
 * Init Cookie, Ack Vector, Data Dropped and Elapsed Time are ignored on
 * DCCP-Request and DCCP-Data (§8.1.4, §11, §11.7, §13.2); every option is
 * ignored on DCCP-Listen (RFC 5596 §2.2.1).  Options not allowed are
 * ignored by udccp_opts_parse(), as §5.8 says.  (Init Cookie after the
 * connection is OPEN is for the connection to ignore.) */
int udccp_opt_allowed(uint8_t opt_type, uint8_t pkt_type);

/* Sets out to "no options" (counts zero, nothing present) without
 * touching the arrays: what udccp_opts_parse does first; enough for a
 * packet dropped before its options are read. */
static inline void udccp_opts_reset(udccp_opts *out) {
  /* In field order: the compiler merges the stores (inline: every packet
   * received, issue 13). */
  out->present = 0;
  out->slow_receiver = 0;
  out->init_cookie_len = 0;
  out->n_init_cookie = 0;
  out->data_dropped_len = 0;
  out->n_feat = 0;
  out->feat_more = NULL;
  out->feat_more_len = 0;
  out->init_cookie = NULL;
  out->ndp_count = 0;
  out->n_ackvec = 0;
  out->data_dropped = NULL;
  out->timestamp = 0;
  out->ts_echo = 0;
  out->ts_echo_elapsed = 0;
  out->elapsed_time = 0;
  out->data_checksum = 0;
  out->mp_len = 0;
  out->n_mp = 0;
  out->err_data[0] = out->err_data[1] = out->err_data[2] = 0;
  out->mp = NULL;
  out->n_ccid = 0;
}

/* Parses an options area (§5.8).  Returns 0, or:
 *   UDCCP_ERR_OPTION    -- Mandatory as the last byte, or Mandatory before
 *                          Mandatory (Reset code Option Error, §5.8.2);
 *   UDCCP_ERR_MANDATORY -- Mandatory before an option this parser cannot
 *                          process: unknown (below 128), not allowed on
 *                          this packet type, invalid length, or no room
 *                          left to record it (Reset code Mandatory Error,
 *                          §5.8.2); Changes and Confirms beyond feat[]
 *                          are left in feat_more instead.
 * On error out->err_data holds the Reset data.  Without Mandatory, unknown
 * options, options with invalid lengths and options not allowed on the
 * packet type are skipped (§5.8, §15); an option whose length byte is
 * below 2 or runs past the end stops parsing, the rest being ignored
 * (§5.8).  On DCCP-Data, Mandatory itself is ignored (§5.8.2).
 * Change/Confirm (with at least a feature number) and options 128..255 are
 * recorded with their Mandatory flag: the feature module and the CCID
 * decide.  Fixed-format options (Timestamp, Timestamp Echo, Elapsed Time,
 * NDP Count, Data Checksum): the last valid occurrence wins. */
int udccp_opts_parse(udccp_opts *out, uint8_t pkt_type, const uint8_t *opts,
                     size_t len);

/* The options area of an Ack or DataAck as CCID 2 writes them on every
 * ack (issue 13), read inline: Timestamp (§13.1, length 6), Timestamp
 * Echo (§13.3, length 6, 8 or 10), one Ack Vector (§11.4, at least one
 * byte), each at most once, in that order, any of them absent, then at
 * most the Padding of the last word (§5.8.1); and the same without the
 * Ack Vector on a DCCP-Data packet (§5.8: Timestamp and Timestamp Echo
 * may ride on Data; a CCID 2 sender's Data packet after an ack echoes its
 * Timestamp, conn.h UDCCP_CONN_ACKACK_EVERY).  Fills out as
 * udccp_opts_parse() would (none of these can be Mandatory's: no
 * Mandatory byte is accepted) and returns 1; returns 0, out untouched,
 * for any other area or packet type: the caller parses it. */
static inline uint32_t udccp_opt_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

static inline int udccp_opts_parse_ack(udccp_opts *out, uint8_t pkt_type,
                                       const uint8_t *opts, size_t len) {
  const uint8_t *ts = NULL, *echo = NULL, *av = NULL;
  size_t k = 0;
  if (pkt_type != UDCCP_PKT_ACK && pkt_type != UDCCP_PKT_DATAACK &&
      pkt_type != UDCCP_PKT_DATA) {
    return 0;
  }
  if (len >= 6 && opts[0] == UDCCP_OPT_TIMESTAMP && opts[1] == 6) {
    ts = opts;
    k = 6;
  }
  if (len - k >= 6 && opts[k] == UDCCP_OPT_TIMESTAMP_ECHO &&
      (opts[k + 1] == 6 || opts[k + 1] == 8 || opts[k + 1] == 10) &&
      opts[k + 1] <= len - k) {
    echo = opts + k;
    k += opts[k + 1];
  }
  if (pkt_type != UDCCP_PKT_DATA && len - k >= 3 &&
      (opts[k] & 0xFE) == UDCCP_OPT_ACK_VECTOR_0 &&
      opts[k + 1] >= 3 && opts[k + 1] <= len - k) {
    av = opts + k;
    k += opts[k + 1];
  }
  if (len - k > 3) {
    return 0;
  }
  for (; k < len; k++) {
    if (opts[k] != UDCCP_OPT_PADDING) {
      return 0;
    }
  }
  udccp_opts_reset(out);
  if (ts != NULL) {
    out->timestamp = udccp_opt_be32(ts + 2);
    out->present = UDCCP_OPTS_HAS_TIMESTAMP;
  }
  if (echo != NULL) {
    out->ts_echo = udccp_opt_be32(echo + 2);
    /* §13.3: 0, 2 or 4 bytes of Elapsed Time */
    out->ts_echo_elapsed =
        echo[1] == 6    ? 0
        : echo[1] == 8  ? (uint32_t)echo[6] << 8 | echo[7]
                        : udccp_opt_be32(echo + 6);
    out->present |= UDCCP_OPTS_HAS_TS_ECHO;
  }
  if (av != NULL) {
    out->ackvec[0].type = av[0];
    out->ackvec[0].mandatory = 0;
    out->ackvec[0].len = (uint8_t)(av[1] - 2);
    out->ackvec[0].val = av + 2;
    out->n_ackvec = 1;
    if (!udccp_opt_av_reserved(av + 2, (size_t)av[1] - 2)) {
      out->present |= UDCCP_OPTS_AV_CHECKED;
    }
  }
  return 1;
}

/* udccp_opts_parse() for the connection's input path (issue 13): the
 * options area of every CCID 3 data packet (RFC 6323 §3.3: its RTT
 * Estimate) -- one CCID-specific option (§10.3), then at most the Padding
 * of its last word -- read inline, as udccp_opts_parse() would read it
 * (no Mandatory, a type the parser reads); an empty area; and the usual
 * area of an Ack or DataAck (udccp_opts_parse_ack); any other area goes
 * to it. */
static inline int udccp_opts_parse_inline(udccp_opts *out, uint8_t pkt_type,
                                          const uint8_t *opts, size_t len) {
  if (len >= 2 && opts[0] >= UDCCP_OPT_CCID_MIN && opts[1] >= 2 &&
      opts[1] <= len && len - opts[1] <= 3 &&
      pkt_type < UDCCP_PKT_LISTEN /* 10, the last type: not it, in range */) {
    size_t k = opts[1];
    while (k < len && opts[k] == UDCCP_OPT_PADDING) {
      k++;
    }
    if (k == len) {
      udccp_opts_reset(out);
      out->ccid[0].type = opts[0];
      out->ccid[0].mandatory = 0;
      out->ccid[0].len = (uint8_t)(opts[1] - 2);
      out->ccid[0].val = opts + 2;
      out->n_ccid = 1;
      return 0;
    }
  } else if (len == 0) {
    udccp_opts_reset(out); /* a CCID 2 data packet's: no options */
    return 0;
  } else if (udccp_opts_parse_ack(out, pkt_type, opts, len)) {
    return 0;
  }
  return udccp_opts_parse(out, pkt_type, opts, len);
}

/* Walks an options area from *pos to the next Change/Confirm option (with
 * at least a feature number): fills o (Mandatory flag included), moves
 * *pos past it and returns 1; returns 0 at the end.  For the options
 * udccp_opts_parse() left in feat_more. */
int udccp_opts_next_feat(const uint8_t *buf, size_t len, size_t *pos,
                         udccp_opt *o);

/* Builds the options area of an outgoing packet. */
typedef struct udccp_optbuf {
  size_t len;
  uint8_t buf[UDCCP_OPTS_MAX_LEN];
} udccp_optbuf;

static inline void udccp_optbuf_init(udccp_optbuf *ob) { ob->len = 0; }

/* Appends option type with value val (vlen bytes; for types 0..31 vlen must
 * be 0 and a single byte is written).  mandatory != 0 writes Mandatory
 * first.  Returns 0 or UDCCP_ERR_NOBUF (no room) / UDCCP_ERR_INVALID_ARGUMENT
 * (vlen > 253). */
int udccp_optbuf_put(udccp_optbuf *ob, uint8_t type, int mandatory,
                     const uint8_t *val, size_t vlen);

/* Appends an option whose value is an unsigned integer of vlen bytes
 * (network order), e.g. Timestamp (4), NDP Count (1..6). */
int udccp_optbuf_put_uint(udccp_optbuf *ob, uint8_t type, uint64_t v,
                          size_t vlen);

/* udccp_optbuf_put_uint() for callers that know type >= 32 and vlen 1..8
 * (checked by the caller): written in place, no call, no copy (issue 13:
 * every Ack and DataAck carries a Timestamp and its echo).  Returns 0 or
 * UDCCP_ERR_NOBUF. */
static inline int udccp_optbuf_put_be(udccp_optbuf *ob, uint8_t type,
                                      uint64_t v, size_t vlen) {
  uint8_t *d;
  size_t k;
  if (2 + vlen > sizeof(ob->buf) - ob->len) {
    return UDCCP_ERR_NOBUF;
  }
  d = ob->buf + ob->len;
  d[0] = type;
  d[1] = (uint8_t)(vlen + 2);
  for (k = vlen; k > 0; k--) {
    d[1 + k] = (uint8_t)v;
    v >>= 8;
  }
  ob->len += 2 + vlen;
  return 0;
}

#endif /* UDCCP_OPT_H */

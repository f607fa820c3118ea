/* SPDX-License-Identifier: MIT */
/*
 * Options (RFC 4340 §5.8): a single straight pass over the options area
 * that applies the generic rules (lengths, Mandatory, which packet types
 * may carry which option) and decodes the fixed-format options.  Options
 * whose meaning depends on connection state (Change/Confirm, Ack Vector,
 * Data Dropped, Init Cookie, CCID options) are recorded for their modules.
 */
#include <string.h>

#include "opt.h"
#include "be.h"
#include "pkt.h"

/* Bit k set: option type 32 + k may not be carried by a packet without an
 * Acknowledgement Number (Request, Data): Init Cookie is refused there by
 * §8.1.4; Ack Vector (§11.4), Data Dropped (§11.7) and Elapsed Time (§13.2)
 * only make sense relative to an Acknowledgement Number (§11). */
#define NEEDS_ACK_MASK                                                        \
  ((1u << (UDCCP_OPT_INIT_COOKIE - 32)) |                                    \
   (1u << (UDCCP_OPT_ACK_VECTOR_0 - 32)) |                                   \
   (1u << (UDCCP_OPT_ACK_VECTOR_1 - 32)) |                                   \
   (1u << (UDCCP_OPT_DATA_DROPPED - 32)) |                                   \
   (1u << (UDCCP_OPT_ELAPSED_TIME - 32)))

/* Bit k set: option type 32 + k has "N" in the DCCP-Data? column of the
 * §5.8 table (Mandatory, type 1, is handled on its own). */
#define NOT_ON_DATA_MASK                                                      \
  (NEEDS_ACK_MASK | (1u << (UDCCP_OPT_CHANGE_L - 32)) |                      \
   (1u << (UDCCP_OPT_CONFIRM_L - 32)) | (1u << (UDCCP_OPT_CHANGE_R - 32)) |  \
   (1u << (UDCCP_OPT_CONFIRM_R - 32)))

/* udccp_opt_allowed's body, inlined into the parser (called for every
 * option of every packet). */
static inline int opt_allowed(uint8_t opt_type, uint8_t pkt_type) {
  /* RFC 5596 §2.2.1: clients MUST ignore all options on DCCP-Listen. */
  if (pkt_type == UDCCP_PKT_LISTEN || pkt_type >= UDCCP_NUM_PKT_TYPES) {
    return 0;
  }
  if (opt_type == UDCCP_OPT_MANDATORY) {
    return pkt_type != UDCCP_PKT_DATA; /* §5.8.2 */
  }
  if (opt_type < 32 || opt_type > UDCCP_OPT_DATA_CHECKSUM) {
    return 1; /* Padding, Slow Receiver, reserved, CCID-specific */
  }
  if (pkt_type == UDCCP_PKT_DATA) {
    return !((NOT_ON_DATA_MASK >> (opt_type - 32)) & 1u);
  }
  if (pkt_type == UDCCP_PKT_REQUEST) {
    return !((NEEDS_ACK_MASK >> (opt_type - 32)) & 1u);
  }
  return 1;
}

int udccp_opt_allowed(uint8_t opt_type, uint8_t pkt_type) {
  return opt_allowed(opt_type, pkt_type);
}

/* Sets err_data to option type t and its first two data bytes, zero where
 * the option has fewer (§5.6, Option Error). */
static void set_err(udccp_opts *out, uint8_t t, const uint8_t *val,
                    size_t avail) {
  out->err_data[0] = t;
  out->err_data[1] = avail > 0 ? val[0] : 0;
  out->err_data[2] = avail > 1 ? val[1] : 0;
}

static void put_opt(udccp_opt *o, uint8_t t, int mand, const uint8_t *val,
                    uint8_t vlen) {
  o->type = t;
  o->mandatory = (uint8_t)mand;
  o->len = vlen;
  o->val = val;
}

/* Processes one multi-byte option; returns 1 if it was understood and
 * processed, 0 if ignored (unknown, not allowed here, invalid length, or
 * no room to record it). */
static int take_opt(udccp_opts *out, uint8_t pkt_type, uint64_t allowed,
                    uint8_t t, int mand, const uint8_t *val, uint8_t vlen) {
  /* opt_allowed(t, pkt_type): below 64 from the packet's mask */
  if (t < 64 ? !((allowed >> t) & 1u) : !opt_allowed(t, pkt_type)) {
    return 0;
  }
  if (t >= UDCCP_OPT_CCID_MIN) {
    /* §10.3: the CCID interprets these, and decides on Mandatory. */
    if (out->n_ccid == UDCCP_OPTS_MAX_CCID) {
      return 0;
    }
    if (mand) {
      out->present |= UDCCP_OPTS_HAS_MANDATORY_CCID;
    }
    put_opt(&out->ccid[out->n_ccid++], t, mand, val, vlen);
    return 1;
  }
  /* The options of every Ack and DataAck first, before the switch's
   * jump table (issue 13). */
  if (t == UDCCP_OPT_ACK_VECTOR_0 || t == UDCCP_OPT_ACK_VECTOR_1) {
    /* §11.4: at least one run-length byte. */
    if (vlen < 1 || out->n_ackvec == UDCCP_OPTS_MAX_AV) {
      return 0;
    }
    put_opt(&out->ackvec[out->n_ackvec++], t, mand, val, vlen);
    return 1;
  }
  if (t == UDCCP_OPT_TIMESTAMP) {
    if (vlen != 4) { /* §13.1: length 6 */
      return 0;
    }
    out->timestamp = (uint32_t)get_be(val, 4);
    out->present |= UDCCP_OPTS_HAS_TIMESTAMP;
    return 1;
  }
  if (t == UDCCP_OPT_TIMESTAMP_ECHO) {
    /* §13.3: length 6, 8 or 10: echo, then 0, 2 or 4 bytes of Elapsed
     * Time. */
    if (vlen != 4 && vlen != 6 && vlen != 8) {
      return 0;
    }
    out->ts_echo = (uint32_t)get_be(val, 4);
    out->ts_echo_elapsed = (uint32_t)get_be(val + 4, (size_t)vlen - 4);
    out->present |= UDCCP_OPTS_HAS_TS_ECHO;
    return 1;
  }
  switch (t) {
  case UDCCP_OPT_CHANGE_L:
  case UDCCP_OPT_CONFIRM_L:
  case UDCCP_OPT_CHANGE_R:
  case UDCCP_OPT_CONFIRM_R:
    /* §6: the first data byte is the feature number.  A value that is
     * invalid for its feature (e.g. a Change without value) is the feature
     * module's to answer (§6.6.8: empty Confirm, or Option Error). */
    if (vlen < 1 || out->n_feat == UDCCP_OPTS_MAX_FEAT) {
      return 0;
    }
    put_opt(&out->feat[out->n_feat++], t, mand, val, vlen);
    return 1;
  case UDCCP_OPT_INIT_COOKIE:
    /* §8.1.4: the server may send several; the first is kept. */
    if (out->n_init_cookie++ == 0) {
      out->init_cookie = val;
      out->init_cookie_len = vlen;
      out->present |= UDCCP_OPTS_HAS_INIT_COOKIE;
    }
    return 1;
  case UDCCP_OPT_NDP_COUNT:
    /* §7.7: 1 to 6 bytes of count. */
    if (vlen < 1 || vlen > 6) {
      return 0;
    }
    out->ndp_count = get_be(val, vlen);
    out->present |= UDCCP_OPTS_HAS_NDP_COUNT;
    return 1;
  case UDCCP_OPT_DATA_DROPPED:
    /* §11.7: at least one block byte. */
    if (vlen < 1) {
      return 0;
    }
    out->data_dropped = val;
    out->data_dropped_len = vlen;
    out->present |= UDCCP_OPTS_HAS_DATA_DROPPED;
    return 1;
  case UDCCP_OPT_ELAPSED_TIME:
    if (vlen != 2 && vlen != 4) { /* §13.2: length 4 or 6 */
      return 0;
    }
    out->elapsed_time = (uint32_t)get_be(val, vlen);
    out->present |= UDCCP_OPTS_HAS_ELAPSED;
    return 1;
  case UDCCP_OPT_DATA_CHECKSUM:
    if (vlen != 4) { /* §9.3: length 6; §5.8: length 4 MUST be ignored */
      return 0;
    }
    out->data_checksum = (uint32_t)get_be(val, 4);
    out->present |= UDCCP_OPTS_HAS_DATA_CHECKSUM;
    return 1;
  default:
    return 0; /* reserved 45..127: unknown, §5.8 / §15 */
  }
}

/* opt_allowed(t, pkt_type) for every t from 32 to 63 at once, bit t
 * (the parser asks for each option; issue 13).  Bits below 32 are not
 * used (single-byte options are handled apart). */
static uint64_t allowed_mask(uint8_t pkt_type) {
  if (pkt_type == UDCCP_PKT_LISTEN || pkt_type >= UDCCP_NUM_PKT_TYPES) {
    return 0;
  }
  if (pkt_type == UDCCP_PKT_DATA) {
    return ~((uint64_t)NOT_ON_DATA_MASK << 32);
  }
  if (pkt_type == UDCCP_PKT_REQUEST) {
    return ~((uint64_t)NEEDS_ACK_MASK << 32);
  }
  return ~(uint64_t)0;
}

int udccp_opts_parse(udccp_opts *out, uint8_t pkt_type, const uint8_t *opts,
                     size_t len) {
  size_t i = 0;
  int mand = 0;
  /* §5.8.2: Mandatory on DCCP-Data MUST be ignored. */
  int mand_ok = opt_allowed(UDCCP_OPT_MANDATORY, pkt_type);
  uint64_t allowed;

  udccp_opts_reset(out);
  /* RFC 5596 §2.2.1: every option on a DCCP-Listen is ignored. */
  if (pkt_type == UDCCP_PKT_LISTEN) {
    return 0;
  }
  allowed = allowed_mask(pkt_type);

  while (i < len) {
    uint8_t t = opts[i];
    size_t olen, avail;
    if (t < 32) {
      /* §5.8: types 0..31 are single bytes. */
      i++;
      if (t == UDCCP_OPT_PADDING) {
        /* The usual one (the last word's fill, §5.8.1), tested first;
         * "Mandatory Padding" is valid: two bytes of padding. */
        mand = 0;
        continue;
      }
      if (t == UDCCP_OPT_MANDATORY) {
        if (!mand_ok) {
          continue;
        }
        /* §5.8.2: "Mandatory Mandatory" is an Option Error. */
        if (mand) {
          set_err(out, UDCCP_OPT_MANDATORY, NULL, 0);
          return UDCCP_ERR_OPTION;
        }
        mand = 1;
        continue;
      }
      if (t == UDCCP_OPT_SLOW_RECEIVER) {
        out->slow_receiver = 1;
        out->present |= UDCCP_OPTS_HAS_SLOW_RECEIVER;
      } else if (mand) {
        /* Reserved single-byte option, not understood (§5.8.2). */
        set_err(out, t, NULL, 0);
        return UDCCP_ERR_MANDATORY;
      }
      mand = 0;
      continue;
    }
    /* §5.8: a length below 2 or past the options area is nonsensical;
     * that option and everything after it MUST be ignored. */
    avail = len - i - 1;
    olen = avail > 0 ? opts[i + 1] : 0;
    if (olen < 2 || olen > len - i) {
      if (mand) {
        /* The option Mandatory marks cannot be processed (§5.8.2). */
        set_err(out, t, avail > 1 ? opts + i + 2 : NULL,
                avail > 1 ? avail - 1 : 0);
        return UDCCP_ERR_MANDATORY;
      }
      break;
    }
    if (t >= UDCCP_OPT_CHANGE_L && t <= UDCCP_OPT_CONFIRM_R && olen >= 3 &&
        out->n_feat == UDCCP_OPTS_MAX_FEAT &&
        opt_allowed(t, pkt_type)) {
      /* More Changes/Confirms than feat[] holds: the feature module reads
       * the rest from here (§6.6.7: each Change gets its Confirm). */
      if (out->feat_more == NULL) {
        out->feat_more = opts + i - mand;
        out->feat_more_len = len - i + (size_t)mand;
      }
      mand = 0;
      i += olen;
      continue;
    }
    if (t == UDCCP_OPT_MULTIPATH && olen >= 3) {
      /* RFC 9897 §3.2: allowed on every packet type, DCCP-Data included;
       * the multipath module reads them (udccp_mp_next). */
      if (out->mp == NULL) {
        out->mp = opts + i;
        out->mp_len = (uint16_t)(len - i);
      }
      if (out->n_mp < UINT8_MAX) {
        out->n_mp++;
      }
      mand = 0;
      i += olen;
      continue;
    }
    if (!take_opt(out, pkt_type, allowed, t, mand, opts + i + 2,
                  (uint8_t)(olen - 2)) &&
        mand) {
      set_err(out, t, opts + i + 2, olen - 2);
      return UDCCP_ERR_MANDATORY;
    }
    mand = 0;
    i += olen;
  }
  if (mand) {
    /* §5.8.2: Mandatory as the last byte is an Option Error. */
    set_err(out, UDCCP_OPT_MANDATORY, NULL, 0);
    return UDCCP_ERR_OPTION;
  }
  if (out->n_ackvec > 0) {
    size_t k;
    for (k = 0; k < out->n_ackvec; k++) {
      if (udccp_opt_av_reserved(out->ackvec[k].val, out->ackvec[k].len)) {
        return 0;
      }
    }
    out->present |= UDCCP_OPTS_AV_CHECKED;
  }
  return 0;
}

int udccp_opts_next_feat(const uint8_t *buf, size_t len, size_t *pos,
                         udccp_opt *o) {
  size_t i = *pos;
  int mand = 0;
  while (i < len) {
    uint8_t t = buf[i];
    size_t olen;
    if (t < 32) {
      mand = t == UDCCP_OPT_MANDATORY;
      i++;
      continue;
    }
    olen = i + 1 < len ? buf[i + 1] : 0;
    if (olen < 2 || olen > len - i) {
      break; /* §5.8: the rest is ignored */
    }
    if (t >= UDCCP_OPT_CHANGE_L && t <= UDCCP_OPT_CONFIRM_R && olen >= 3) {
      put_opt(o, t, mand, buf + i + 2, (uint8_t)(olen - 2));
      *pos = i + olen;
      return 1;
    }
    mand = 0;
    i += olen;
  }
  *pos = len;
  return 0;
}

int udccp_optbuf_put(udccp_optbuf *ob, uint8_t type, int mandatory,
                     const uint8_t *val, size_t vlen) {
  size_t need;
  if (type < 32 ? vlen != 0 : vlen > 253) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (vlen && !val) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  need = (mandatory ? 1u : 0u) + (type < 32 ? 1u : 2u + vlen);
  if (need > sizeof(ob->buf) - ob->len) {
    return UDCCP_ERR_NOBUF;
  }
  if (mandatory) {
    ob->buf[ob->len++] = UDCCP_OPT_MANDATORY;
  }
  ob->buf[ob->len++] = type;
  if (type >= 32) {
    ob->buf[ob->len++] = (uint8_t)(vlen + 2);
    if (vlen) {
      memcpy(ob->buf + ob->len, val, vlen);
    }
    ob->len += vlen;
  }
  return 0;
}

int udccp_optbuf_put_uint(udccp_optbuf *ob, uint8_t type, uint64_t v,
                          size_t vlen) {
  uint8_t b[8];
  size_t k;
  if (vlen == 0 || vlen > 8) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  for (k = 0; k < vlen; k++) {
    b[vlen - 1 - k] = (uint8_t)(v >> (8 * k));
  }
  return udccp_optbuf_put(ob, type, 0, b, vlen);
}

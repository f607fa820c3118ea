/* SPDX-License-Identifier: MIT */
/*
 * The Multipath option of RFC 9897 (draft-ietf-tsvwg-multipath-dccp-25
 * text; section numbers are the draft's): decoding and encoding of every
 * suboption, with the lengths of §3.2:
 *   §3.2    type 46, Length, MP_OPT; MP_OPT > 11 unassigned
 *   §3.2.1  MP_CONFIRM: the received MP_SEQ and the confirmed options,
 *           copied verbatim, most recent first, possibly several groups
 *   §3.2.2  MP_JOIN: Length 12
 *   §3.2.3  MP_FAST_CLOSE: the peer's Key Data
 *   §3.2.4  MP_KEY: resvd, CI, then Key Type + Key Data pairs; Key Type 0
 *           plain text (8 bytes), 255 experimental (64 bytes), the rest of
 *           the registry open (§7.5): an unknown type cannot be delimited
 *   §3.2.5  MP_SEQ: Length 9, 48-bit number
 *   §3.2.6  MP_HMAC: Length 23, 20 bytes of HMAC-SHA256
 *   §3.2.7  MP_RTT: Length 12, RTT Type, RTT and Age in milliseconds
 *   §3.2.8  MP_ADDADDR: Length 12 to 26: IPv4 or IPv6, optional port
 *   §3.2.9  MP_REMOVEADDR: Length 8
 *   §3.2.10 MP_PRIO: Length 4, 4 bits reserved (sent 0, ignored), prio
 *   §3.2.11 MP_CLOSE: the peer's Key Data
 *   §3.2.12 MP_EXP: up to 252 bytes of data
 * The MP_CONFIRM list layout (a whole MP_SEQ option, then whole confirmed
 * options) is the reading of "copied verbatim" that the Linux reference
 * implementation (multipath-dccp.org) follows.
 */
#include "mp_opt.h"
#include "be.h"

#include <string.h>

int udccp_mp_key_len(uint8_t key_type) {
  switch (key_type) {
  case UDCCP_MP_KEY_PLAIN:
    return 8;
  case UDCCP_MP_KEY_EXPERIMENTAL:
    return 64;
  default:
    return -1; /* 1..254: reserved, length unknown (§7.5) */
  }
}

/* §3.2.4: after resvd and CI, Key Type / Key Data pairs. */
static int parse_key(udccp_mp_opt *o, const uint8_t *v, size_t n) {
  size_t i = 5;
  if (n < 6) { /* resvd, CI, at least one Key Type */
    return UDCCP_ERR_OPTION;
  }
  o->u.key.ci = (uint32_t)get_be(v + 1, 4);
  o->u.key.n_keys = 0;
  o->u.key.unknown_type = 0;
  while (i < n) {
    int kl = udccp_mp_key_len(v[i]);
    if (kl < 0) {
      o->u.key.unknown_type = 1; /* cannot delimit it: skip the rest */
      return 0;
    }
    if ((size_t)kl > n - i - 1) {
      return UDCCP_ERR_OPTION; /* Key Data runs past the option */
    }
    if (o->u.key.n_keys < UDCCP_MP_KEYS_MAX) {
      udccp_mp_key *k = &o->u.key.keys[o->u.key.n_keys++];
      k->type = v[i];
      k->len = (uint8_t)kl;
      k->data = v + i + 1;
    }
    i += 1 + (size_t)kl;
  }
  return 0;
}

/* §3.2.1: [MP_SEQ, option, option...]...; nothing else, no nesting. */
static int check_confirm_list(const uint8_t *l, size_t n) {
  size_t i = 0;
  int after_seq = 0; /* options seen since the last MP_SEQ */
  int seen_seq = 0;
  while (i < n) {
    udccp_mp_opt e;
    size_t olen;
    if (n - i < 3 || l[i] != UDCCP_OPT_MULTIPATH) {
      return UDCCP_ERR_OPTION;
    }
    olen = l[i + 1];
    if (olen < 3 || olen > n - i) {
      return UDCCP_ERR_OPTION;
    }
    if (l[i + 2] == UDCCP_MP_CONFIRM) {
      return UDCCP_ERR_OPTION; /* a confirmation is not confirmed */
    }
    if (udccp_mp_opt_parse(&e, l + i, l + i + 2, olen - 2) < 0) {
      return UDCCP_ERR_OPTION;
    }
    if (e.type == UDCCP_MP_SEQ) {
      if (seen_seq && after_seq == 0) {
        return UDCCP_ERR_OPTION; /* an MP_SEQ confirming nothing */
      }
      seen_seq = 1;
      after_seq = 0;
    } else {
      if (!seen_seq) {
        return UDCCP_ERR_OPTION; /* the list starts with the MP_SEQ */
      }
      after_seq++;
    }
    i += olen;
  }
  return seen_seq && after_seq > 0 ? 0 : UDCCP_ERR_OPTION;
}

int udccp_mp_opt_parse(udccp_mp_opt *o, const uint8_t *raw,
                       const uint8_t *val, size_t vlen) {
  const uint8_t *v;
  size_t n;
  memset(o, 0, sizeof(*o));
  if (vlen < 1 || vlen > 253) {
    return UDCCP_ERR_OPTION; /* §3.2: MP_OPT is always there */
  }
  o->type = val[0];
  o->len = (uint8_t)(vlen + 2);
  o->raw = raw;
  v = val + 1;
  n = vlen - 1;
  switch (o->type) {
  case UDCCP_MP_CONFIRM:
    if (check_confirm_list(v, n) != 0) {
      return UDCCP_ERR_OPTION;
    }
    o->u.confirm.list = v;
    o->u.confirm.list_len = (uint8_t)n;
    return 0;
  case UDCCP_MP_JOIN:
    if (o->len != 12) {
      return UDCCP_ERR_OPTION;
    }
    o->u.join.addr_id = v[0];
    o->u.join.ci = (uint32_t)get_be(v + 1, 4);
    o->u.join.nonce = (uint32_t)get_be(v + 5, 4);
    return 0;
  case UDCCP_MP_FAST_CLOSE:
  case UDCCP_MP_CLOSE:
    if (n < 1) {
      return UDCCP_ERR_OPTION; /* §3.2.3, §3.2.11: Key Data is carried */
    }
    o->u.key_data.data = v;
    o->u.key_data.len = (uint8_t)n;
    return 0;
  case UDCCP_MP_KEY:
    return parse_key(o, v, n);
  case UDCCP_MP_SEQ:
    if (o->len != 9) {
      return UDCCP_ERR_OPTION;
    }
    o->u.seq = get_be(v, 6);
    return 0;
  case UDCCP_MP_HMAC:
    if (o->len != 23) {
      return UDCCP_ERR_OPTION;
    }
    memcpy(o->u.hmac, v, UDCCP_MP_HMAC_LEN);
    return 0;
  case UDCCP_MP_RTT:
    if (o->len != 12) {
      return UDCCP_ERR_OPTION;
    }
    o->u.rtt.rtt_type = v[0];
    o->u.rtt.rtt_ms = (uint32_t)get_be(v + 1, 4);
    o->u.rtt.age_ms = (uint32_t)get_be(v + 5, 4);
    return 0;
  case UDCCP_MP_ADDADDR: {
    size_t alen;
    /* §3.2.8: 12 (IPv4), 14 (IPv4 + port), 24 (IPv6), 26 (IPv6 + port). */
    switch (o->len) {
    case 12:
    case 14:
      alen = 4;
      o->u.addaddr.family = UDCCP_AF_INET;
      break;
    case 24:
    case 26:
      alen = 16;
      o->u.addaddr.family = UDCCP_AF_INET6;
      break;
    default:
      return UDCCP_ERR_OPTION;
    }
    o->u.addaddr.addr_id = v[0];
    o->u.addaddr.nonce = (uint32_t)get_be(v + 1, 4);
    memcpy(o->u.addaddr.addr, v + 5, alen);
    o->u.addaddr.has_port = n > 5 + alen;
    if (o->u.addaddr.has_port) {
      o->u.addaddr.port = (uint16_t)get_be(v + 5 + alen, 2);
    }
    return 0;
  }
  case UDCCP_MP_REMOVEADDR:
    if (o->len != 8) {
      return UDCCP_ERR_OPTION;
    }
    o->u.removeaddr.addr_id = v[0];
    o->u.removeaddr.nonce = (uint32_t)get_be(v + 1, 4);
    return 0;
  case UDCCP_MP_PRIO:
    if (o->len != 4) {
      return UDCCP_ERR_OPTION;
    }
    o->u.prio = v[0] & 0x0F; /* resvd bits: MUST be ignored */
    return 0;
  case UDCCP_MP_EXP:
  default:
    o->u.exp.data = v;
    o->u.exp.len = (uint8_t)n;
    return o->type == UDCCP_MP_EXP ? 0 : 1;
  }
}

int udccp_mp_next(const uint8_t *opts, size_t len, size_t *pos,
                  udccp_mp_opt *o) {
  size_t i = *pos;
  while (i < len) {
    uint8_t t = opts[i];
    size_t olen;
    if (t < 32) {
      i++; /* single-byte options (§5.8) */
      continue;
    }
    olen = i + 1 < len ? opts[i + 1] : 0;
    if (olen < 2 || olen > len - i) {
      break; /* §5.8: the rest of the area is ignored */
    }
    if (t == UDCCP_OPT_MULTIPATH) {
      *pos = i + olen;
      return udccp_mp_opt_parse(o, opts + i, opts + i + 2, olen - 2);
    }
    i += olen;
  }
  *pos = len;
  return 2;
}

int udccp_mp_confirm_next(const uint8_t *list, size_t len, size_t *pos,
                          uint64_t *seq, udccp_mp_opt *o) {
  size_t i = *pos;
  /* The MP_SEQ in force is the last one before *pos: find it again (the
   * list is at most 250 bytes). */
  size_t j = 0;
  uint64_t cur = 0;
  while (j < i && j + 3 <= len && list[j + 1] >= 3) {
    if (list[j + 2] == UDCCP_MP_SEQ && list[j + 1] == 9) {
      cur = get_be(list + j + 3, 6);
    }
    j += list[j + 1];
  }
  while (i + 3 <= len && list[i + 1] >= 3 && list[i + 1] <= len - i) {
    size_t olen = list[i + 1];
    if (list[i + 2] == UDCCP_MP_SEQ && olen == 9) {
      cur = get_be(list + i + 3, 6);
      i += olen;
      continue;
    }
    *pos = i + olen;
    *seq = cur;
    return udccp_mp_opt_parse(o, list + i, list + i + 2, olen - 2) >= 0;
  }
  *pos = len;
  return 0;
}

udccp_ssize udccp_mp_opt_encode(const udccp_mp_opt *o, uint8_t *dst,
                                size_t cap) {
  uint8_t v[253];
  size_t n = 0, i;
  v[n++] = o->type;
  switch (o->type) {
  case UDCCP_MP_CONFIRM:
    if (o->u.confirm.list_len == 0 || o->u.confirm.list_len > 252 ||
        !o->u.confirm.list) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    memcpy(v + n, o->u.confirm.list, o->u.confirm.list_len);
    n += o->u.confirm.list_len;
    break;
  case UDCCP_MP_JOIN:
    v[n++] = o->u.join.addr_id;
    put_be(v + n, o->u.join.ci, 4);
    put_be(v + n + 4, o->u.join.nonce, 4);
    n += 8;
    break;
  case UDCCP_MP_FAST_CLOSE:
  case UDCCP_MP_CLOSE:
    if (o->u.key_data.len == 0 || o->u.key_data.len > 252 ||
        !o->u.key_data.data) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    memcpy(v + n, o->u.key_data.data, o->u.key_data.len);
    n += o->u.key_data.len;
    break;
  case UDCCP_MP_KEY:
    if (o->u.key.n_keys == 0 || o->u.key.n_keys > UDCCP_MP_KEYS_MAX) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    v[n++] = 0; /* resvd */
    put_be(v + n, o->u.key.ci, 4);
    n += 4;
    for (i = 0; i < o->u.key.n_keys; i++) {
      const udccp_mp_key *k = &o->u.key.keys[i];
      int kl = udccp_mp_key_len(k->type);
      if (kl < 0 || k->len != kl || !k->data || n + 1 + (size_t)kl > 253) {
        return UDCCP_ERR_INVALID_ARGUMENT;
      }
      v[n++] = k->type;
      memcpy(v + n, k->data, (size_t)kl);
      n += (size_t)kl;
    }
    break;
  case UDCCP_MP_SEQ:
    if (o->u.seq >> 48) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    put_be(v + n, o->u.seq, 6);
    n += 6;
    break;
  case UDCCP_MP_HMAC:
    memcpy(v + n, o->u.hmac, UDCCP_MP_HMAC_LEN);
    n += UDCCP_MP_HMAC_LEN;
    break;
  case UDCCP_MP_RTT:
    v[n++] = o->u.rtt.rtt_type;
    put_be(v + n, o->u.rtt.rtt_ms, 4);
    put_be(v + n + 4, o->u.rtt.age_ms, 4);
    n += 8;
    break;
  case UDCCP_MP_ADDADDR: {
    size_t alen = o->u.addaddr.family == UDCCP_AF_INET    ? 4
                  : o->u.addaddr.family == UDCCP_AF_INET6 ? 16
                                                          : 0;
    if (alen == 0) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    v[n++] = o->u.addaddr.addr_id;
    put_be(v + n, o->u.addaddr.nonce, 4);
    n += 4;
    memcpy(v + n, o->u.addaddr.addr, alen);
    n += alen;
    if (o->u.addaddr.has_port) {
      put_be(v + n, o->u.addaddr.port, 2);
      n += 2;
    }
    break;
  }
  case UDCCP_MP_REMOVEADDR:
    v[n++] = o->u.removeaddr.addr_id;
    put_be(v + n, o->u.removeaddr.nonce, 4);
    n += 4;
    break;
  case UDCCP_MP_PRIO:
    if (o->u.prio > 15) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    v[n++] = o->u.prio; /* resvd bits sent as 0 */
    break;
  case UDCCP_MP_EXP:
    if (o->u.exp.len > UDCCP_MP_EXP_MAX || (o->u.exp.len && !o->u.exp.data)) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    if (o->u.exp.len) {
      memcpy(v + n, o->u.exp.data, o->u.exp.len);
    }
    n += o->u.exp.len;
    break;
  default:
    return UDCCP_ERR_INVALID_ARGUMENT; /* we send only assigned types */
  }
  if (n + 2 > cap) {
    return UDCCP_ERR_NOBUF;
  }
  dst[0] = UDCCP_OPT_MULTIPATH;
  dst[1] = (uint8_t)(n + 2);
  memcpy(dst + 2, v, n);
  return (udccp_ssize)(n + 2);
}

int udccp_mp_opt_put(udccp_optbuf *ob, const udccp_mp_opt *o) {
  udccp_ssize n = udccp_mp_opt_encode(o, ob->buf + ob->len,
                                      sizeof(ob->buf) - ob->len);
  if (n < 0) {
    return (int)n;
  }
  ob->len += (size_t)n;
  return 0;
}

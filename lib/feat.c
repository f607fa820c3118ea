/* SPDX-License-Identifier: MIT */
/*
 * Feature negotiation (RFC 4340 §6, erratum 974).
 *
 * Each feature we know has two entries, one per location.  Received
 * options run through the §6.6.2 pseudocode; outgoing packets carry the
 * Changes of every entry not STABLE and the Confirms we owe.
 */
#include "feat.h"
#include "be.h"

#include <string.h>

#include "ccid.h"
#include "pkt.h"
#include "seq.h"

typedef struct feat_spec {
  uint8_t num;
  uint8_t rule;     /* enum udccp_feat_rule */
  uint8_t vlen;     /* bytes per value */
  uint8_t required; /* "Req'd" column of §6.4 */
  uint64_t def;     /* initial value, §6.4 */
} feat_spec;

/* RFC 4340 §6.4 table 4; 10 from RFC 9897 §3 (Multipath Capable); 192
 * from RFC 4342 §8.5 (CCID 3, also CCID 4); 128 from RFC 6323 §3.2.2
 * (CCID 3 and 4).  The order of the first ones is relied on below
 * (specs[2], specs[4]). */
static const feat_spec specs[UDCCP_FEAT_N_KNOWN] = {
    {UDCCP_FEAT_CCID, UDCCP_FEAT_SP, 1, 1, 2},
    {UDCCP_FEAT_ALLOW_SHORT_SEQNOS, UDCCP_FEAT_SP, 1, 1, 0},
    {UDCCP_FEAT_SEQ_WINDOW, UDCCP_FEAT_NN, 6, 1, 100},
    {UDCCP_FEAT_ECN_INCAPABLE, UDCCP_FEAT_SP, 1, 0, 0},
    {UDCCP_FEAT_ACK_RATIO, UDCCP_FEAT_NN, 2, 0, 2},
    {UDCCP_FEAT_SEND_ACK_VECTOR, UDCCP_FEAT_SP, 1, 0, 0},
    {UDCCP_FEAT_SEND_NDP_COUNT, UDCCP_FEAT_SP, 1, 0, 0},
    {UDCCP_FEAT_MIN_CSCOV, UDCCP_FEAT_SP, 1, 0, 0},
    {UDCCP_FEAT_CHECK_DATA_CKSUM, UDCCP_FEAT_SP, 1, 0, 0},
    {UDCCP_FEAT_CCID3_SEND_LOSS_EVENT_RATE, UDCCP_FEAT_SP, 1, 0, 0},
    {UDCCP_FEAT_CCID3_SEND_RTT_ESTIMATE, UDCCP_FEAT_SP, 1, 0, 0}, /* 6323 */
    /* Last: it has one entry, not two (UDCCP_FEAT_N_ENT). */
    {UDCCP_FEAT_MP_CAPABLE, UDCCP_FEAT_SP, 1, 0, 0}, /* RFC 9897 §3.1 */
};

/* CCIDs we offer after the configured one, if implemented.  Only those
 * Linux knows: Linux treats a Change or Confirm listing any other CCID as
 * invalid (and resets on such a Confirm), although §6.6.8 says SP values
 * have no limits.  A CCID outside this list is offered only when it is
 * the configured one. */
static const uint8_t ccid_candidates[] = {2, 3};

static int spec_index(uint8_t num) {
  int i;
  /* §6.4's features 1..9 sit at specs[num - 1]: no search for them, as
   * some are looked up on every packet (issue 13). */
  if (num >= 1 && num <= 9 && specs[num - 1].num == num) {
    return num - 1;
  }
  for (i = 0; i < UDCCP_FEAT_N_KNOWN; i++) {
    if (specs[i].num == num) {
      return i;
    }
  }
  return -1;
}

int udccp_feat_rule(uint8_t num) {
  int i = spec_index(num);
  return i < 0 ? 0 : specs[i].rule;
}

uint64_t udccp_feat_default(uint8_t num) {
  int i = spec_index(num);
  return i < 0 ? 0 : specs[i].def;
}

/* The entry of spec i at a location; NULL for Multipath Capable when
 * multipath is off (unknown here: Empty Confirm, RFC 4340 §6.6.7) or at
 * the client's location (RFC 9897 §3.1: the feature is the server's). */
static udccp_feat_entry *ent_at(const udccp_feat_set *fs, int i, int local) {
  if (specs[i].num == UDCCP_FEAT_MP_CAPABLE) {
    if (!fs->mp_enabled || (local ? 1 : 0) != fs->is_server) {
      return NULL;
    }
    return (udccp_feat_entry *)&fs->ent[2 * i];
  }
  return (udccp_feat_entry *)&fs->ent[2 * i + (local ? 1 : 0)];
}

udccp_feat_entry *udccp_feat_entry_get(udccp_feat_set *fs, uint8_t num,
                                       int local) {
  int i = spec_index(num);
  return i < 0 ? NULL : ent_at(fs, i, local);
}

/* RFC 9897 §3.1: the low four bits of a Multipath Capable value are
 * unassigned and MUST be ignored by the receiver: compare versions only. */
static size_t mp_versions(const uint8_t *v, size_t n, uint8_t *out) {
  size_t i;
  for (i = 0; i < n && i < UDCCP_FEAT_MAX_PREF; i++) {
    out[i] = v[i] & 0xF0;
  }
  return i;
}

static const feat_spec *entry_spec(const udccp_feat_entry *e) {
  return &specs[spec_index(e->num)];
}

/* NN value limits, §6.6.8: Sequence Window 32..2^46-1 (§7.5.2); Ack Ratio
 * any 16-bit value, 0 meaning "no Ack Ratio" (§11.3, erratum 1049). */
static int nn_valid(uint8_t num, uint64_t v) {
  switch (num) {
  case UDCCP_FEAT_SEQ_WINDOW:
    return v >= UDCCP_SEQ_WINDOW_MIN && v <= UDCCP_SEQ_WINDOW_MAX;
  case UDCCP_FEAT_ACK_RATIO:
    return v <= 0xFFFF;
  default:
    return 0;
  }
}

static void set_val(udccp_feat_set *fs, udccp_feat_entry *e, uint64_t v) {
  if (e->val != v) {
    e->val = v;
    fs->generation++;
  }
}

/* Sets our preference list; a list chosen by settings, a CCID or the
 * caller is not flexible. */
static void set_pref(udccp_feat_entry *e, const uint8_t *p, size_t n) {
  if (n > UDCCP_FEAT_MAX_PREF) {
    n = UDCCP_FEAT_MAX_PREF;
  }
  memmove(e->pref, p, n);
  e->n_pref = (uint8_t)n;
  e->flexible = 0;
}

/* Our Change has new contents: a STABLE entry starts CHANGING; a CHANGING
 * one becomes UNSTABLE until the new Change goes out (§6.6.5). */
/* An entry became STABLE: is any other still under negotiation?  Runs
 * only when a Confirm (or a Change of the peer's) settles an entry, so
 * that udccp_feat_all_confirmed() need not scan on every packet. */
void udccp_feat_settle(udccp_feat_set *fs) {
  size_t i;
  for (i = 0; i < UDCCP_FEAT_N_ENT; i++) {
    if (fs->ent[i].state != UDCCP_FEAT_STABLE) {
      fs->pending = 1;
      return;
    }
  }
  fs->pending = 0;
}

static void start_change(udccp_feat_set *fs, udccp_feat_entry *e) {
  fs->pending = 1;
  e->state = e->state == UDCCP_FEAT_STABLE ? UDCCP_FEAT_CHANGING
                                           : UDCCP_FEAT_UNSTABLE;
  e->change_new = 1;
}

/* §6.3.1: the first entry of the server's list that the client's list
 * also holds; -1 if none. */
static int sp_reconcile(const uint8_t *srv, size_t ns, const uint8_t *cli,
                        size_t nc) {
  size_t i, j;
  for (i = 0; i < ns; i++) {
    for (j = 0; j < nc; j++) {
      if (srv[i] == cli[j]) {
        return srv[i];
      }
    }
  }
  return -1;
}

static int reconcile_with_peer(const udccp_feat_set *fs,
                               const udccp_feat_entry *e, const uint8_t *peer,
                               size_t np) {
  return fs->is_server ? sp_reconcile(e->pref, e->n_pref, peer, np)
                       : sp_reconcile(peer, np, e->pref, e->n_pref);
}

/* A server that does not mind which value wins may present its list in
 * any order (§6.3.1 only fixes how lists are reconciled): it puts the
 * client's first acceptable value first, so the client's wish is granted
 * and the Confirm's list still reconciles to the value confirmed. */
static void flexible_reorder(const udccp_feat_set *fs, udccp_feat_entry *e,
                             const uint8_t *peer, size_t np) {
  size_t i, j;
  if (!fs->is_server || !e->flexible) {
    return;
  }
  for (i = 0; i < np; i++) {
    for (j = 0; j < e->n_pref; j++) {
      if (e->pref[j] == peer[i]) {
        uint8_t v = e->pref[j];
        memmove(e->pref + 1, e->pref, j);
        e->pref[0] = v;
        return;
      }
    }
  }
}

typedef struct ccid_extra_ctx {
  uint8_t *out;
  size_t *n;
  uint8_t first;
} ccid_extra_ctx;

static void ccid_extra_add(uint8_t id, void *user) {
  ccid_extra_ctx *c = user;
  if (id != c->first && *c->n < UDCCP_FEAT_MAX_PREF) {
    c->out[(*c->n)++] = id;
  }
}

/* Builds the list [first, then every other CCID we implement] for a
 * server.  A client offers only the CCID it was asked for, as Linux does:
 * under server-priority reconciliation (§6.3.1) a longer client list lets
 * the server's first choice win over the application's explicit request. */
static size_t ccid_prefs(const udccp_feat_set *fs, uint8_t first,
                         uint8_t *out) {
  size_t n = 0, i;
  out[n++] = first;
  if (!fs->ccid_find || !fs->is_server) {
    return n;
  }
  for (i = 0; i < sizeof(ccid_candidates) && n < UDCCP_FEAT_MAX_PREF; i++) {
    uint8_t id = ccid_candidates[i];
    if (id != first && fs->ccid_find(id)) {
      out[n++] = id;
    }
  }
  /* CCIDs registered at run time (experimental 248..255, RFC 4340 §10):
   * the application registered them to have them, so a server accepts a
   * client that asks for one. */
  if (fs->ccid_find == udccp_ccid_find) {
    ccid_extra_ctx c = {out, &n, first};
    udccp_ccid_each_extra(ccid_extra_add, &c);
  }
  return n;
}

/* RFC 4340 §10: a CCID's dependencies on other features.  half 0: the
 * half-connection we send on (we are its HC-Sender); half 1: the one we
 * receive on. */
static void apply_deps(udccp_feat_set *fs, int half, uint8_t ccid) {
  const udccp_ccid_ops *ops = fs->ccid_find ? fs->ccid_find(ccid) : NULL;
  size_t i;
  fs->dep_ccid[half] = ccid;
  if (!ops) {
    return;
  }
  for (i = 0; i < ops->n_deps; i++) {
    const udccp_ccid_dep *d = &ops->deps[i];
    int local = half == 0 ? !d->at_receiver : d->at_receiver;
    udccp_feat_entry *e = udccp_feat_entry_get(fs, d->feat, local);
    if (!e) {
      continue;
    }
    if (entry_spec(e)->rule == UDCCP_FEAT_SP) {
      uint8_t v = (uint8_t)d->val;
      int same_list = e->n_pref == 1 && e->pref[0] == v;
      if (d->feat == UDCCP_FEAT_SEND_ACK_VECTOR && half == 0 &&
          d->at_receiver && !d->mandatory && v == 0 && fs->want_ackvec) {
        /* udccp_settings.ack_vectors: our TFRC sender asks for them to
         * count lost packets (RFC 4342 §5), non-mandatory; a list of
         * only 1, or a server listing 0 first would win with 0 (§6.3.1) */
        v = 1;
        same_list = e->n_pref == 1 && e->pref[0] == v;
      }
      set_pref(e, &v, 1);
      e->mandatory = d->mandatory != 0;
      if (local && !d->mandatory && v == 0 &&
          d->feat == UDCCP_FEAT_SEND_ACK_VECTOR) {
        /* The receiving half of a CCID that needs no Ack Vector (CCID 3,
         * RFC 4342 §5) prefers 0 but grants a sender that asks for them
         * (RFC 4342 §5: to learn exactly which packets were lost). */
        static const uint8_t b01[] = {0, 1};
        set_pref(e, b01, 2);
        e->flexible = 1;
        same_list = 0;
      }
      if (e->val != v || (e->state != UDCCP_FEAT_STABLE && !same_list)) {
        start_change(fs, e);
      }
    } else if (local && nn_valid(d->feat, d->val) &&
               e->state == UDCCP_FEAT_STABLE && e->val != d->val) {
      /* An NN value the CCID wants (e.g. Linux's CCID 3: Ack Ratio 0);
       * a Change already under way (from the settings, or the CCID
       * itself) takes precedence. */
      e->mandatory = d->mandatory != 0;
      e->nn_want = d->val;
      start_change(fs, e);
    }
  }
}

/* After a CCID value settles: its dependencies follow (§10). */
static void ccid_settled(udccp_feat_set *fs, const udccp_feat_entry *e) {
  int half = e->local ? 0 : 1;
  if (e->num == UDCCP_FEAT_CCID && fs->dep_ccid[half] != (uint8_t)e->val) {
    apply_deps(fs, half, (uint8_t)e->val);
  }
}

int udccp_feat_init(udccp_feat_set *fs, const udccp_settings *s,
                    int is_server, uint64_t iss,
                    const udccp_ccid_ops *(*ccid_find)(uint8_t id)) {
  static const uint8_t b01[] = {0, 1}, b10[] = {1, 0}, b0[] = {0}, b1[] = {1};
  uint8_t list[UDCCP_FEAT_MAX_PREF];
  uint8_t rx;
  size_t n, i;
  udccp_feat_entry *e;

  if (!fs || !s) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  rx = s->rx_ccid ? s->rx_ccid : s->ccid;
  if (s->min_cscov > 15 || s->send_cscov > 15 ||
      !nn_valid(UDCCP_FEAT_SEQ_WINDOW, s->seq_window) ||
      (ccid_find && (!ccid_find(s->ccid) || !ccid_find(rx)))) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  memset(fs, 0, sizeof(*fs));
  fs->is_server = is_server ? 1 : 0;
  fs->fgss = iss & UDCCP_SEQ_MASK; /* §6.6.4: FGSS starts at ISS */
  fs->ccid_find = ccid_find;
  fs->want_ackvec = s->ack_vectors ? 1 : 0;
  for (i = 0; i < UDCCP_FEAT_N_ENT; i++) {
    e = &fs->ent[i];
    e->num = specs[i / 2].num;
    e->fgss_lo = (uint32_t)iss;
    e->local = i & 1;
    if (e->num == UDCCP_FEAT_MP_CAPABLE) {
      e->local = fs->is_server; /* located at the server */
    }
    e->val = specs[i / 2].def;
    if (specs[i / 2].rule == UDCCP_FEAT_NN) {
      e->nn_want = e->val;
    } else {
      /* By default accept whatever the peer proposes among the valid
       * Boolean values, preferring the initial value. */
      set_pref(e, b01, 2);
      e->flexible = 1;
    }
  }

  /* CCID: always negotiated explicitly, as Linux does. */
  n = ccid_prefs(fs, s->ccid, list);
  e = udccp_feat_entry_get(fs, UDCCP_FEAT_CCID, 1);
  set_pref(e, list, n);
  start_change(fs, e);
  n = ccid_prefs(fs, rx, list);
  e = udccp_feat_entry_get(fs, UDCCP_FEAT_CCID, 0);
  set_pref(e, list, n);
  start_change(fs, e);

  /* Allow Short Seqnos/peer lets the peer send X=0 packets (§7.6.1); we
   * accept it when allowed but never ask for it. */
  e = udccp_feat_entry_get(fs, UDCCP_FEAT_ALLOW_SHORT_SEQNOS, 0);
  if (s->allow_short_seqnos) {
    set_pref(e, b10, 2);
    e->flexible = 1;
  } else {
    set_pref(e, b0, 1);
  }

  if (s->seq_window != specs[2].def) {
    e = udccp_feat_entry_get(fs, UDCCP_FEAT_SEQ_WINDOW, 1);
    e->nn_want = s->seq_window;
    start_change(fs, e);
  }
  if (s->ack_ratio != specs[4].def) {
    e = udccp_feat_entry_get(fs, UDCCP_FEAT_ACK_RATIO, 1);
    e->nn_want = s->ack_ratio;
    start_change(fs, e);
  }

  /* Listing only 1: a server whose list starts with 0 would otherwise
   * win with 0 (§6.3.1). */
  if (s->send_ndp_count) {
    e = udccp_feat_entry_get(fs, UDCCP_FEAT_SEND_NDP_COUNT, 0);
    set_pref(e, b1, 1);
    start_change(fs, e);
  }

  /* Minimum Checksum Coverage/local = m lets the peer send CsCov >= m; any
   * stricter value (larger, or 0 = full coverage only) suits us too
   * (§9.2.1). */
  e = udccp_feat_entry_get(fs, UDCCP_FEAT_MIN_CSCOV, 1);
  if (s->min_cscov == 0) {
    set_pref(e, b0, 1);
  } else {
    n = 0;
    for (i = s->min_cscov; i <= 15; i++) {
      list[n++] = (uint8_t)i;
    }
    list[n++] = 0;
    set_pref(e, list, n);
    start_change(fs, e);
  }
  /* .../peer must accept the CsCov we send: any value from send_cscov down
   * to 1, or 0 (then we fall back to full coverage). */
  e = udccp_feat_entry_get(fs, UDCCP_FEAT_MIN_CSCOV, 0);
  n = 0;
  if (s->send_cscov == 0) {
    for (i = 0; i <= 15; i++) {
      list[n++] = (uint8_t)i;
    }
    set_pref(e, list, n);
    e->flexible = 1;
  } else {
    for (i = s->send_cscov; i >= 1; i--) {
      list[n++] = (uint8_t)i;
    }
    list[n++] = 0;
    set_pref(e, list, n);
    start_change(fs, e);
  }

  /* §9.3.1: a Mandatory Change R(Check Data Checksum, 1) requires the peer
   * to check our Data Checksum options. */
  if (s->check_data_checksum) {
    e = udccp_feat_entry_get(fs, UDCCP_FEAT_CHECK_DATA_CKSUM, 0);
    set_pref(e, b1, 1);
    e->mandatory = 1;
    start_change(fs, e);
  }

  /* RFC 9897 §3.1: the feature is located at the server.  "Clients MUST
   * include a Change R ... during the initial handshake request" listing
   * the versions supported (0 only); the server Confirms L. */
  if (s->multipath) {
    static const uint8_t v0[] = {0x00}; /* version 0, high nibble */
    fs->mp_enabled = 1;
    e = udccp_feat_entry_get(fs, UDCCP_FEAT_MP_CAPABLE, is_server ? 1 : 0);
    set_pref(e, v0, 1);
    if (!is_server) {
      start_change(fs, e);
    }
  }

  apply_deps(fs, 0, s->ccid);
  apply_deps(fs, 1, rx);
  return 0;
}

static void add_empty(udccp_feat_set *fs, uint8_t type, uint8_t num) {
  uint8_t *b = fs->empty[type == UDCCP_OPT_CONFIRM_L ? 0 : 1];
  if (!(b[num >> 3] & (1u << (num & 7)))) {
    b[num >> 3] |= (uint8_t)(1u << (num & 7));
    fs->n_empty++;
  }
}

static int fail(const udccp_opt *o, uint8_t code, uint8_t *reset_code,
                uint8_t reset_data[3]) {
  /* §5.6: Data 1 = option type, Data 2..3 = first two value bytes. */
  *reset_code = code;
  reset_data[0] = o->type;
  reset_data[1] = o->len >= 1 ? o->val[0] : 0;
  reset_data[2] = o->len >= 2 ? o->val[1] : 0;
  return code == UDCCP_RESET_MANDATORY_ERROR ? UDCCP_ERR_MANDATORY
                                              : UDCCP_ERR_OPTION;
}

/* A Change from the peer for entry e (third step of §6.6.2). */
static int on_change(udccp_feat_set *fs, udccp_feat_entry *e,
                     const udccp_opt *o, uint8_t *reset_code,
                     uint8_t reset_data[3]) {
  const feat_spec *sp = entry_spec(e);
  const uint8_t *v = o->val + 1;
  size_t vlen = (size_t)o->len - 1;

  if (sp->rule == UDCCP_FEAT_NN) {
    /* §6.3.2: only the location may Change an NN feature; the remote
     * accepts any valid value. */
    if (!e->local && vlen == sp->vlen && nn_valid(e->num, get_be(v, vlen))) {
      set_val(fs, e, get_be(v, vlen));
      e->confirm_owed = 1;
      fs->owed = 1;
      e->confirm_empty = 0;
      e->state = UDCCP_FEAT_STABLE;
      udccp_feat_settle(fs);
      return 0;
    }
  } else if (vlen >= 1) {
    /* SP values have no limits (§6.6.8): unknown ones just never match. */
    int r;
    uint8_t mv[UDCCP_FEAT_MAX_PREF];
    if (e->num == UDCCP_FEAT_MP_CAPABLE) {
      vlen = mp_versions(v, vlen, mv);
      v = mv;
    }
    flexible_reorder(fs, e, v, vlen);
    r = reconcile_with_peer(fs, e, v, vlen);
    if (r < 0 && o->mandatory) {
      /* §6.6.9: no shared entry in a Mandatory Change. */
      return fail(o, UDCCP_RESET_MANDATORY_ERROR, reset_code, reset_data);
    }
    if (r >= 0) {
      set_val(fs, e, (uint64_t)r);
    }
    /* §6.3.1: without a shared entry the Confirm repeats the old value.
     * §6.6.6: in CHANGING, the peer's Change answers ours. */
    e->confirm_owed = 1;
    fs->owed = 1;
    e->confirm_empty = 0;
    if (e->num == UDCCP_FEAT_MP_CAPABLE) {
      /* RFC 9897 §3.1: "If no agreement is found, the Server MUST reply
       * with an empty Confirm L". */
      e->agreed = r >= 0;
      e->confirm_empty = r < 0;
    }
    e->state = UDCCP_FEAT_STABLE;
    udccp_feat_settle(fs);
    e->change_new = 0;
    ccid_settled(fs, e);
    return 0;
  }
  /* Invalid Change: §6.6.9 Mandatory -> reset; else Empty Confirm (§6.6.8),
   * staying in the current state. */
  if (o->mandatory) {
    return fail(o, UDCCP_RESET_MANDATORY_ERROR, reset_code, reset_data);
  }
  e->confirm_owed = 1;
  fs->owed = 1;
  e->confirm_empty = 1;
  return 0;
}

/* A Confirm from the peer for entry e (fourth step of §6.6.2). */
static int on_confirm(udccp_feat_set *fs, udccp_feat_entry *e,
                      const udccp_opt *o, uint8_t *reset_code,
                      uint8_t reset_data[3]) {
  const feat_spec *sp = entry_spec(e);
  const uint8_t *v = o->val + 1;
  size_t vlen = (size_t)o->len - 1;

  /* §6.6.8: not part of a current negotiation: ignore.  A Change not yet
   * sent is not under negotiation either (§6.6.2 enters CHANGING on
   * sending): a late Confirm of an earlier value must not reset us. */
  if (e->state != UDCCP_FEAT_CHANGING || e->change_new) {
    return 0;
  }
  if (vlen == 0) {
    /* §6.6.7: the peer does not know the feature or refused our value;
     * the value stays.  A required feature, or one our CCID needs (sent
     * Mandatory), cannot go on without it. */
    e->state = UDCCP_FEAT_STABLE;
    udccp_feat_settle(fs);
    if (sp->required || e->mandatory) {
      return fail(o, UDCCP_RESET_OPTION_ERROR, reset_code, reset_data);
    }
    return 0;
  }
  if (sp->rule == UDCCP_FEAT_NN) {
    uint64_t got = vlen == sp->vlen ? get_be(v, vlen) : 0;
    /* A Confirm of a value we asked for before (the current one, or the
     * Change this one replaced) answers an older Change that arrived
     * late: its packet can acknowledge our latest Change without the
     * peer having received that (a DCCP ack is the greatest number
     * received, not all below it), so §6.6.4's FGSS check lets it through.
     * It is not part of the current negotiation (§6.6.8): ignored, and
     * our Change goes on being sent. */
    if (got != e->nn_want && nn_valid(e->num, got) &&
        (got == e->val || (e->nn_prev != 0 && got == e->nn_prev))) {
      return 0;
    }
    /* §6.6.8: a Confirm selecting another value than ours is invalid. */
    if (vlen != sp->vlen || got != e->nn_want) {
      return fail(o, UDCCP_RESET_OPTION_ERROR, reset_code, reset_data);
    }
    set_val(fs, e, e->nn_want);
  } else {
    uint8_t got = v[0];
    int expect;
    if (e->num == UDCCP_FEAT_MP_CAPABLE) {
      /* RFC 9897 §3.1: the agreed version first, then the server's list;
       * versions only (the low four bits are ignored).  A version we did
       * not offer is no agreement: plain DCCP (§3.6). */
      size_t i;
      got = v[0] & 0xF0;
      e->agreed = 0;
      for (i = 0; i < e->n_pref; i++) {
        e->agreed |= (e->pref[i] & 0xF0) == got;
      }
      set_val(fs, e, e->agreed ? got : 0);
      e->state = UDCCP_FEAT_STABLE;
      udccp_feat_settle(fs);
      return 0;
    }
    if (vlen > 1) {
      expect = reconcile_with_peer(fs, e, v + 1, vlen - 1);
      if (expect < 0) {
        expect = (int)e->val; /* §6.3.1: no shared entry: old value */
      }
      if (got != (uint8_t)expect) {
        return fail(o, UDCCP_RESET_OPTION_ERROR, reset_code, reset_data);
      }
    } else {
      /* No preference list came with it: it must at least be a value we
       * offered, or the old one. */
      size_t i;
      int ok = got == e->val;
      for (i = 0; i < e->n_pref; i++) {
        ok |= e->pref[i] == got;
      }
      if (!ok) {
        return fail(o, UDCCP_RESET_OPTION_ERROR, reset_code, reset_data);
      }
    }
    set_val(fs, e, got);
  }
  e->state = UDCCP_FEAT_STABLE;
  udccp_feat_settle(fs);
  ccid_settled(fs, e);
  return 0;
}

/* One Change or Confirm of a received packet (§6.6.2). */
static int read_one(udccp_feat_set *fs, const udccp_opt *o,
                    const udccp_feat_pkt *pkt, int old_pkt,
                    uint8_t *reset_code, uint8_t reset_data[3]) {
  int is_change = o->type == UDCCP_OPT_CHANGE_L ||
                  o->type == UDCCP_OPT_CHANGE_R;
  /* Change L / Confirm L come from the location: the feature is at the
   * peer. */
  int local = o->type == UDCCP_OPT_CHANGE_R || o->type == UDCCP_OPT_CONFIRM_R;
  udccp_feat_entry *e;

  if (o->len < 1) {
    return fail(o, UDCCP_RESET_OPTION_ERROR, reset_code, reset_data);
  }
  e = udccp_feat_entry_get(fs, o->val[0], local);
  if (!e) {
    /* §6.6.7 and the first step of §6.6.2: unknown feature.  Mandatory
     * resets whatever the option (§5.8.2: not understood); otherwise a
     * Change gets an Empty Confirm and a Confirm is ignored. */
    if (o->mandatory) {
      return fail(o, UDCCP_RESET_MANDATORY_ERROR, reset_code, reset_data);
    }
    if (is_change && !old_pkt) {
      add_empty(fs, local ? UDCCP_OPT_CONFIRM_L : UDCCP_OPT_CONFIRM_R,
                o->val[0]);
    }
    return 0;
  }
  /* §6.6.2 second step: reordering. */
  if (e->state == UDCCP_FEAT_UNSTABLE || old_pkt) {
    return 0;
  }
  if (is_change && e->num == UDCCP_FEAT_MP_CAPABLE &&
      pkt->type != UDCCP_PKT_REQUEST) {
    /* RFC 9897 §3.1: "The negotiation MUST be a part of the initial
     * handshake procedure ...  No subsequent re-negotiation of the
     * MP_CAPABLE feature is allowed": a Change of it on anything but a
     * Request changes nothing; it gets a Confirm of the value in force
     * (RFC 4340 §6.3.1: the old value), empty if none was agreed. */
    e->confirm_owed = 1;
    fs->owed = 1;
    e->confirm_empty = !e->agreed;
    return 0;
  }
  if (is_change) {
    return on_change(fs, e, o, reset_code, reset_data);
  }
  /* §6.6.4 rule 2 with FGSS(F/X), the alternative the section allows
   * ("slightly more forgiving to multiple overlapped feature
   * negotiations"): the Ack must reach this feature's latest new Change. */
  if (!pkt->has_ack ||
      (int32_t)((uint32_t)pkt->ack - e->fgss_lo) < 0) {
    return 0;
  }
  return on_confirm(fs, e, o, reset_code, reset_data);
}

/* udccp_feat_read past its inline part (feat.h: FGSR set up, Data and
 * packets without Change/Confirm options answered): a non-Data packet
 * with feature options. */
int udccp_feat_read_opts(udccp_feat_set *fs, const udccp_opts *opts,
                         const udccp_feat_pkt *pkt, uint8_t *reset_code,
                         uint8_t reset_data[3]) {
  uint64_t seq = pkt->seq & UDCCP_SEQ_MASK;
  size_t i;
  int old_pkt, rv;

  /* §6.6.4 rule 1 and 2, with the FGSR of before this packet. */
  old_pkt = udccp_seq_le(seq, fs->fgsr);

  for (i = 0; i < opts->n_feat; i++) {
    rv = read_one(fs, &opts->feat[i], pkt, old_pkt, reset_code, reset_data);
    if (rv != 0) {
      return rv;
    }
  }
  if (opts->feat_more != NULL) {
    /* More than the parser kept: every one still counts (§6.6.1). */
    size_t pos = 0;
    udccp_opt o;
    while (udccp_opts_next_feat(opts->feat_more, opts->feat_more_len, &pos,
                                &o)) {
      rv = read_one(fs, &o, pkt, old_pkt, reset_code, reset_data);
      if (rv != 0) {
        return rv;
      }
    }
  }
  if (!old_pkt) {
    fs->fgsr = seq;
  }
  return 0;
}

static int put_change(udccp_optbuf *ob, const udccp_feat_entry *e) {
  const feat_spec *sp = entry_spec(e);
  uint8_t buf[1 + UDCCP_FEAT_MAX_PREF + 8];
  size_t n = 1;
  buf[0] = e->num;
  if (sp->rule == UDCCP_FEAT_NN) {
    put_be(buf + 1, e->nn_want, sp->vlen);
    n += sp->vlen;
  } else {
    memcpy(buf + 1, e->pref, e->n_pref);
    n += e->n_pref;
  }
  return udccp_optbuf_put(ob, e->local ? UDCCP_OPT_CHANGE_L : UDCCP_OPT_CHANGE_R,
                          e->mandatory, buf, n);
}

static int put_confirm(udccp_optbuf *ob, const udccp_feat_entry *e) {
  const feat_spec *sp = entry_spec(e);
  uint8_t buf[2 + UDCCP_FEAT_MAX_PREF + 8];
  size_t n = 1;
  buf[0] = e->num;
  if (!e->confirm_empty) {
    if (sp->rule == UDCCP_FEAT_NN) {
      put_be(buf + 1, e->val, sp->vlen);
      n += sp->vlen;
    } else {
      /* §6.3.1: the selected value, then our preference list. */
      buf[n++] = (uint8_t)e->val;
      memcpy(buf + n, e->pref, e->n_pref);
      n += e->n_pref;
    }
  }
  return udccp_optbuf_put(ob,
                          e->local ? UDCCP_OPT_CONFIRM_L : UDCCP_OPT_CONFIRM_R,
                          0, buf, n);
}

/* udccp_feat_write past its inline checks (feat.h): something may be
 * owed on this non-Data packet. */
int udccp_feat_write_opts(udccp_feat_set *fs, udccp_optbuf *ob,
                          uint8_t pkt_type, uint64_t seq) {
  size_t i;
  int with_ack, n = 0, unsent = 0;
  /* §6.6.1: any packet with a Confirm must carry an Acknowledgement
   * Number. */
  with_ack = udccp_pkt_type_has_ack(pkt_type);
  if (with_ack && (fs->owed || fs->n_empty > 0)) {
    /* §6.6.7: Empty Confirms for unknown features; those that do not fit
     * stay owed and go on the next packets (udccp_feat_want_packet). */
    size_t loc;
    for (loc = 0; loc < 2 && fs->n_empty > 0; loc++) {
      uint8_t t = loc == 0 ? UDCCP_OPT_CONFIRM_L : UDCCP_OPT_CONFIRM_R;
      for (i = 0; i < 256 && fs->n_empty > 0; i++) {
        uint8_t num = (uint8_t)i;
        if (!(fs->empty[loc][i >> 3] & (1u << (i & 7)))) {
          continue;
        }
        if (udccp_optbuf_put(ob, t, 0, &num, 1) != 0) {
          break;
        }
        fs->empty[loc][i >> 3] &= (uint8_t)~(1u << (i & 7));
        fs->n_empty--;
      }
    }
    for (i = 0; i < UDCCP_FEAT_N_ENT; i++) {
      udccp_feat_entry *e = &fs->ent[i];
      if (e->confirm_owed && put_confirm(ob, e) == 0) {
        e->confirm_owed = 0; /* §6.2: Confirms are not retransmitted */
      }
    }
    fs->owed = 0;
    for (i = 0; i < UDCCP_FEAT_N_ENT; i++) {
      if (fs->ent[i].confirm_owed) {
        fs->owed = 1; /* did not fit: the next packet */
        break;
      }
    }
  }
  if (!fs->pending) {
    fs->repeat = 0;
    return 0;
  }
  for (i = 0; i < UDCCP_FEAT_N_ENT; i++) {
    udccp_feat_entry *e = &fs->ent[i];
    if (e->state == UDCCP_FEAT_STABLE || (!e->change_new && !fs->repeat)) {
      continue;
    }
    if (put_change(ob, e) != 0) {
      unsent++;
      continue;
    }
    n++;
    if (e->change_new) {
      /* §6.6.4: a packet with a new Change moves FGSS (and this
       * feature's FGSS(F/X), which its Confirm is checked against). */
      fs->fgss = seq;
      e->fgss_lo = (uint32_t)seq;
      e->change_new = 0;
    }
    e->state = UDCCP_FEAT_CHANGING; /* UNSTABLE ends once sent (§6.6.5) */
  }
  if (unsent == 0) {
    fs->repeat = 0;
  }
  return n;
}

int udccp_feat_want_packet_scan(const udccp_feat_set *fs) {
  size_t i;
  for (i = 0; i < UDCCP_FEAT_N_ENT; i++) {
    const udccp_feat_entry *e = &fs->ent[i];
    if (e->confirm_owed || (e->state != UDCCP_FEAT_STABLE &&
                            (e->change_new || fs->repeat))) {
      return 1;
    }
  }
  return 0;
}

int udccp_feat_owes_confirm_scan(const udccp_feat_set *fs) {
  size_t i;
  for (i = 0; i < UDCCP_FEAT_N_ENT; i++) {
    if (fs->ent[i].confirm_owed) {
      return 1;
    }
  }
  return 0;
}

void udccp_feat_keep_handshake_confirms(udccp_feat_set *fs) {
  size_t i;
  for (i = 0; i < UDCCP_FEAT_N_ENT; i++) {
    fs->ent[i].confirm_hs = fs->ent[i].confirm_owed;
  }
}

void udccp_feat_repeat_handshake_confirms(udccp_feat_set *fs) {
  size_t i;
  for (i = 0; i < UDCCP_FEAT_N_ENT; i++) {
    if (fs->ent[i].confirm_hs) {
      fs->ent[i].confirm_owed = 1;
      fs->owed = 1;
    }
  }
}

int udccp_feat_only_nn_pending(const udccp_feat_set *fs) {
  size_t i;
  for (i = 0; i < UDCCP_FEAT_N_ENT; i++) {
    if (fs->ent[i].state != UDCCP_FEAT_STABLE &&
        udccp_feat_rule(fs->ent[i].num) != UDCCP_FEAT_NN) {
      return 0;
    }
  }
  return 1;
}

uint64_t udccp_feat_get_local(const udccp_feat_set *fs, uint8_t num) {
  int i = spec_index(num);
  const udccp_feat_entry *e = i < 0 ? NULL : ent_at(fs, i, 1);
  return e ? e->val : udccp_feat_default(num);
}

uint64_t udccp_feat_get_remote(const udccp_feat_set *fs, uint8_t num) {
  int i = spec_index(num);
  const udccp_feat_entry *e = i < 0 ? NULL : ent_at(fs, i, 0);
  return e ? e->val : udccp_feat_default(num);
}

int udccp_feat_change_nn(udccp_feat_set *fs, uint8_t num, uint64_t value) {
  udccp_feat_entry *e = udccp_feat_entry_get(fs, num, 1);
  if (!e || entry_spec(e)->rule != UDCCP_FEAT_NN || !nn_valid(num, value)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (e->state == UDCCP_FEAT_STABLE ? e->val == value : e->nn_want == value) {
    return 0; /* nothing new to say */
  }
  if (e->state == UDCCP_FEAT_CHANGING && !e->change_new) {
    e->nn_prev = e->nn_want; /* sent: its Confirm may still come */
  }
  e->nn_want = value;
  start_change(fs, e);
  return 0;
}

int udccp_feat_change_sp(udccp_feat_set *fs, uint8_t num, int local,
                         const uint8_t *prefs, size_t n, int mandatory) {
  udccp_feat_entry *e = udccp_feat_entry_get(fs, num, local);
  if (!e || entry_spec(e)->rule != UDCCP_FEAT_SP || !prefs || n == 0 ||
      n > UDCCP_FEAT_MAX_PREF) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  set_pref(e, prefs, n);
  e->mandatory = mandatory ? 1 : 0;
  start_change(fs, e);
  return 0;
}

void udccp_feat_hold_ccids(udccp_feat_set *fs) {
  int local;
  for (local = 0; local < 2; local++) {
    udccp_feat_entry *e = udccp_feat_entry_get(fs, UDCCP_FEAT_CCID, local);
    uint8_t v = (uint8_t)e->val;
    if (e->state == UDCCP_FEAT_STABLE) {
      set_pref(e, &v, 1); /* not flexible: the list is the CCID we run */
    }
  }
}

int udccp_feat_mp_version(const udccp_feat_set *fs) {
  const udccp_feat_entry *e =
      ent_at(fs, spec_index(UDCCP_FEAT_MP_CAPABLE), fs->is_server);
  if (e == NULL || !e->agreed) {
    return -1;
  }
  return (int)(e->val >> 4);
}

void udccp_feat_mp_fallback(udccp_feat_set *fs) {
  udccp_feat_entry *e;
  if (!fs->mp_enabled || fs->is_server) {
    return;
  }
  e = udccp_feat_entry_get(fs, UDCCP_FEAT_MP_CAPABLE, 0);
  if (e->state != UDCCP_FEAT_STABLE) {
    e->state = UDCCP_FEAT_STABLE;
    e->change_new = 0;
    e->agreed = 0;
    udccp_feat_settle(fs);
  }
}

void udccp_feat_mp_refuse(udccp_feat_set *fs) {
  udccp_feat_entry *e;
  if (!fs->mp_enabled || !fs->is_server) {
    return;
  }
  e = udccp_feat_entry_get(fs, UDCCP_FEAT_MP_CAPABLE, 1);
  e->agreed = 0;
  if (e->confirm_owed) {
    e->confirm_empty = 1;
  }
}

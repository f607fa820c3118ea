/* SPDX-License-Identifier: MIT */
/*
 * MP-DCCP signalling (RFC 9897, draft-25 sections; mp_sig.h has the whole
 * picture):
 *   §3.2.1  MP_ADDADDR, MP_REMOVEADDR and MP_PRIO are repeated until an
 *           MP_CONFIRM echoes them; they MUST travel with an MP_SEQ; an
 *           option older than one applied for the same dataset is
 *           outdated; the MP_CONFIRM echoes the MP_SEQ (MUST) and lists
 *           the most recent option first (MUST), options copied verbatim
 *   §3.2.8  MP_ADDADDR: MP_HMAC MUST follow, and one that does not verify
 *           makes the receiver silently ignore it (MUST); Address IDs
 *           MUST identify an address uniquely; broadcast and multicast
 *           addresses MUST be ignored; an MP_ADDADDR with a known ID but
 *           another address MUST be ignored; addresses are soft state
 *           (a full table drops the announcement, MAY)
 *   §3.2.9  MP_REMOVEADDR: MP_HMAC (MUST) over ID and nonce, silently
 *           ignored if it does not verify (MUST); an unknown ID is
 *           ignored; the sender releases the ID once confirmed
 *   §3.2.10 MP_PRIO sets the priority of the subflow it came over
 */
#include "mp_sig.h"

#include <string.h>

#include "seq.h"

void udccp_mp_sig_init(udccp_mp_sig *s, udccp_tstamp rto) {
  size_t i;
  memset(s, 0, sizeof(*s));
  s->rto = rto ? rto : 200 * UDCCP_NS_PER_MS;
  for (i = 0; i < UDCCP_MP_SIG_OUT; i++) {
    s->out[i].next_tx = UDCCP_TSTAMP_NEVER;
  }
}

static size_t addr_len(uint8_t family) {
  return family == UDCCP_AF_INET6 ? 16 : 4;
}

static int same_addr(const udccp_mp_addr *a, uint8_t family,
                     const uint8_t *addr) {
  return a->family == family && memcmp(a->addr, addr, addr_len(family)) == 0;
}

int udccp_mp_sig_local_id(udccp_mp_sig *s, uint8_t family,
                          const uint8_t *addr, uint16_t port, int has_port) {
  size_t i, free_slot = UDCCP_MP_SIG_ADDRS;
  int tries;
  if (addr == NULL || (family != UDCCP_AF_INET && family != UDCCP_AF_INET6)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  for (i = 0; i < UDCCP_MP_SIG_ADDRS; i++) {
    udccp_mp_addr *a = &s->local[i];
    if (a->state != 0 && same_addr(a, family, addr)) {
      return a->id; /* one address, one ID */
    }
    if (a->state == 0 && free_slot == UDCCP_MP_SIG_ADDRS) {
      free_slot = i;
    }
  }
  if (free_slot == UDCCP_MP_SIG_ADDRS) {
    return UDCCP_ERR_NOBUF;
  }
  /* A fresh ID that no address (nor one being removed) holds. */
  for (tries = 0; tries < 256; tries++) {
    uint8_t id = s->next_id++;
    int taken = 0;
    for (i = 0; i < UDCCP_MP_SIG_ADDRS; i++) {
      taken |= s->local[i].state != 0 && s->local[i].id == id;
    }
    if (!taken) {
      udccp_mp_addr *a = &s->local[free_slot];
      memset(a, 0, sizeof(*a));
      a->state = 1;
      a->id = id;
      a->family = family;
      memcpy(a->addr, addr, addr_len(family));
      a->has_port = has_port != 0;
      a->port = port;
      return id;
    }
  }
  return UDCCP_ERR_NOBUF; /* not reached: 8 addresses, 256 IDs */
}

static udccp_mp_addr *local_by_id(udccp_mp_sig *s, uint8_t id) {
  size_t i;
  for (i = 0; i < UDCCP_MP_SIG_ADDRS; i++) {
    if (s->local[i].state != 0 && s->local[i].id == id) {
      return &s->local[i];
    }
  }
  return NULL;
}

/* The out entry for a dataset (replacing an older signal), or a free one. */
static udccp_mp_sig_out *out_slot(udccp_mp_sig *s, uint8_t type, size_t sub,
                                  uint8_t id) {
  size_t i;
  udccp_mp_sig_out *free_e = NULL;
  for (i = 0; i < UDCCP_MP_SIG_OUT; i++) {
    udccp_mp_sig_out *e = &s->out[i];
    if (!e->used) {
      free_e = free_e ? free_e : e;
      continue;
    }
    if (type == UDCCP_MP_PRIO && e->type == UDCCP_MP_PRIO && e->sub == sub) {
      return e;
    }
    if (type != UDCCP_MP_PRIO && e->type != UDCCP_MP_PRIO && e->id == id) {
      return e; /* MP_REMOVEADDR replaces an unconfirmed MP_ADDADDR */
    }
  }
  return free_e;
}

static void out_fill(udccp_mp_sig_out *e, const udccp_mp_opt *o,
                     size_t sub) {
  udccp_ssize n;
  memset(e, 0, sizeof(*e));
  n = udccp_mp_opt_encode(o, e->opt, sizeof(e->opt));
  e->len = n > 0 ? (uint8_t)n : 0;
  e->used = n > 0;
  e->type = o->type;
  e->sub = (uint8_t)sub;
  e->next_tx = 0; /* due now */
}

int udccp_mp_sig_announce(udccp_mp_sig *s, const udccp_mp_keys *keys,
                          uint8_t id, uint32_t nonce) {
  udccp_mp_addr *a = local_by_id(s, id);
  udccp_mp_sig_out *e;
  udccp_mp_opt o;
  if (a == NULL || a->state != 1 || keys == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  e = out_slot(s, UDCCP_MP_ADDADDR, UDCCP_MP_SIG_ANY, id);
  if (e == NULL) {
    return UDCCP_ERR_NOBUF;
  }
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_ADDADDR;
  o.u.addaddr.addr_id = id;
  o.u.addaddr.family = a->family;
  o.u.addaddr.has_port = a->has_port;
  o.u.addaddr.port = a->port;
  o.u.addaddr.nonce = nonce;
  memcpy(o.u.addaddr.addr, a->addr, addr_len(a->family));
  out_fill(e, &o, UDCCP_MP_SIG_ANY);
  e->id = id;
  /* §3.2.8: d-key ours; message ID + nonce + address + port (or 00 00). */
  e->has_hmac = udccp_mp_hmac_addaddr(keys, 0, &o, e->hmac) == 0;
  return e->used && e->has_hmac ? 0 : UDCCP_ERR_INVALID_ARGUMENT;
}

int udccp_mp_sig_remove(udccp_mp_sig *s, const udccp_mp_keys *keys,
                        uint8_t id, uint32_t nonce) {
  udccp_mp_addr *a = local_by_id(s, id);
  udccp_mp_sig_out *e;
  udccp_mp_opt o;
  if (a == NULL || keys == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  e = out_slot(s, UDCCP_MP_REMOVEADDR, UDCCP_MP_SIG_ANY, id);
  if (e == NULL) {
    return UDCCP_ERR_NOBUF;
  }
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_REMOVEADDR;
  o.u.removeaddr.addr_id = id;
  o.u.removeaddr.nonce = nonce;
  out_fill(e, &o, UDCCP_MP_SIG_ANY);
  e->id = id;
  e->has_hmac = udccp_mp_hmac_removeaddr(keys, 0, id, nonce, e->hmac) == 0;
  a->state = 2; /* §3.2.9: released when confirmed */
  return e->used && e->has_hmac ? 0 : UDCCP_ERR_INVALID_ARGUMENT;
}

int udccp_mp_sig_prio(udccp_mp_sig *s, size_t sub, uint8_t prio) {
  udccp_mp_sig_out *e;
  udccp_mp_opt o;
  if (sub >= UDCCP_MP_SIG_SUBS || prio > 15) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  e = out_slot(s, UDCCP_MP_PRIO, sub, 0);
  if (e == NULL) {
    return UDCCP_ERR_NOBUF;
  }
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_PRIO;
  o.u.prio = prio;
  out_fill(e, &o, sub);
  return e->used ? 0 : UDCCP_ERR_INVALID_ARGUMENT;
}

static int out_for(const udccp_mp_sig_out *e, size_t sub) {
  return e->used && (e->type != UDCCP_MP_PRIO || e->sub == sub);
}

int udccp_mp_sig_due(const udccp_mp_sig *s, size_t sub, udccp_tstamp ts) {
  size_t i;
  if (s->n_ack > 0) {
    return 1;
  }
  for (i = 0; i < UDCCP_MP_SIG_OUT; i++) {
    if (out_for(&s->out[i], sub) && ts >= s->out[i].next_tx) {
      return 1;
    }
  }
  return 0;
}

int udccp_mp_sig_due_prio(const udccp_mp_sig *s, size_t sub,
                          udccp_tstamp ts) {
  size_t i;
  for (i = 0; i < UDCCP_MP_SIG_OUT; i++) {
    const udccp_mp_sig_out *e = &s->out[i];
    if (e->used && e->type == UDCCP_MP_PRIO && e->sub == sub &&
        ts >= e->next_tx) {
      return 1;
    }
  }
  return 0;
}

int udccp_mp_sig_due_shared(const udccp_mp_sig *s, udccp_tstamp ts) {
  size_t i;
  if (s->n_ack > 0) {
    return 1;
  }
  for (i = 0; i < UDCCP_MP_SIG_OUT; i++) {
    const udccp_mp_sig_out *e = &s->out[i];
    if (e->used && e->type != UDCCP_MP_PRIO && ts >= e->next_tx) {
      return 1;
    }
  }
  return 0;
}

udccp_tstamp udccp_mp_sig_expiry(const udccp_mp_sig *s) {
  udccp_tstamp t = UDCCP_TSTAMP_NEVER;
  size_t i;
  for (i = 0; i < UDCCP_MP_SIG_OUT; i++) {
    if (s->out[i].used && s->out[i].next_tx < t) {
      t = s->out[i].next_tx;
    }
  }
  return t;
}

static int put_seq(udccp_optbuf *ob, uint64_t seq) {
  udccp_mp_opt o;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_SEQ;
  o.u.seq = seq & UDCCP_SEQ_MASK;
  return udccp_mp_opt_put(ob, &o);
}

/* §3.2.1: MP_CONFIRM with [MP_SEQ, option] for every option owed, the
 * most recent first; what does not fit in one option waits. */
static size_t put_confirm(udccp_mp_sig *s, udccp_optbuf *ob) {
  uint8_t list[UDCCP_MP_EXP_MAX];
  size_t n = 0, k = s->n_ack, done = 0;
  udccp_mp_opt o;
  while (k > 0) {
    const udccp_mp_sig_ack *a = &s->ack[k - 1];
    udccp_optbuf tmp;
    if (n + 9 + a->len > 250) {
      break;
    }
    udccp_optbuf_init(&tmp);
    (void)put_seq(&tmp, a->seq);
    memcpy(list + n, tmp.buf, tmp.len);
    n += tmp.len;
    memcpy(list + n, a->opt, a->len);
    n += a->len;
    k--;
    done++;
  }
  if (done == 0) {
    return 0;
  }
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_CONFIRM;
  o.u.confirm.list = list;
  o.u.confirm.list_len = (uint8_t)n;
  if (udccp_mp_opt_put(ob, &o) != 0) {
    return 0;
  }
  /* The older ones (not listed) stay, at the front. */
  s->n_ack -= done;
  s->st.tx_confirms++;
  return 1;
}

size_t udccp_mp_sig_write(udccp_mp_sig *s, size_t sub, udccp_optbuf *ob,
                          udccp_tstamp ts) {
  size_t i, n = 0, mark = ob->len;
  if (ob->len + 9 > sizeof(ob->buf)) {
    return 0;
  }
  n += put_confirm(s, ob);
  for (i = 0; i < UDCCP_MP_SIG_OUT; i++) {
    udccp_mp_sig_out *e = &s->out[i];
    size_t need = e->len + (e->has_hmac ? 23u : 0u);
    if (!out_for(e, sub) || ts < e->next_tx) {
      continue;
    }
    if (ob->len + need + 9 > sizeof(ob->buf)) {
      continue; /* the next packet */
    }
    memcpy(ob->buf + ob->len, e->opt, e->len);
    ob->len += e->len;
    if (e->has_hmac) {
      udccp_mp_opt h;
      memset(&h, 0, sizeof(h));
      h.type = UDCCP_MP_HMAC;
      memcpy(h.u.hmac, e->hmac, sizeof(h.u.hmac));
      (void)udccp_mp_opt_put(ob, &h);
    }
    if (!e->sent) {
      e->seq_first = s->seq_now;
      e->sent = 1;
    } else {
      s->st.tx_repeats++;
    }
    e->tx_count++;
    e->next_tx = ts + s->rto;
    s->st.tx_signals++;
    n++;
  }
  if (n > 0 && put_seq(ob, s->seq_now) != 0) {
    ob->len = mark; /* no room for the MP_SEQ: nothing goes (§3.2.1) */
    return 0;
  }
  return n;
}

/* Queues a received option for MP_CONFIRM, as the most recent; the same
 * option repeated (a retransmission) moves to the front with its MP_SEQ. */
static void owe_confirm(udccp_mp_sig *s, const udccp_mp_opt *o,
                        uint64_t seq) {
  size_t i;
  udccp_mp_sig_ack *a;
  if (o->len > UDCCP_MP_SIG_OPT_MAX) {
    return;
  }
  for (i = 0; i < s->n_ack; i++) {
    if (s->ack[i].len == o->len && memcmp(s->ack[i].opt, o->raw, o->len) == 0) {
      memmove(&s->ack[i], &s->ack[i + 1],
              (s->n_ack - i - 1) * sizeof(s->ack[0]));
      s->n_ack--;
      break;
    }
  }
  if (s->n_ack == UDCCP_MP_SIG_CONFIRMS) {
    memmove(&s->ack[0], &s->ack[1], (s->n_ack - 1) * sizeof(s->ack[0]));
    s->n_ack--; /* the oldest: its sender repeats it */
  }
  a = &s->ack[s->n_ack++];
  a->seq = seq;
  a->len = o->len;
  memcpy(a->opt, o->raw, o->len);
}

/* §3.2.8: "The advertisement of broadcast or multicast IP addresses MUST
 * be ignored". */
static int unicast(uint8_t family, const uint8_t *a) {
  static const uint8_t zero[16] = {0};
  if (family == UDCCP_AF_INET) {
    return (a[0] & 0xF0) != 0xE0 && /* 224/4 multicast */
           !(a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255) &&
           memcmp(a, zero, 4) != 0;
  }
  return a[0] != 0xFF && memcmp(a, zero, 16) != 0; /* ff00::/8 */
}

static udccp_mp_addr *remote_by_id(udccp_mp_sig *s, uint8_t id) {
  size_t i;
  for (i = 0; i < UDCCP_MP_SIG_ADDRS; i++) {
    if (s->remote[i].state != 0 && s->remote[i].id == id) {
      return &s->remote[i];
    }
  }
  return NULL;
}

/* A slot for a new remote ID: a free one, else the oldest tombstone. */
static udccp_mp_addr *remote_slot(udccp_mp_sig *s) {
  size_t i;
  udccp_mp_addr *tomb = NULL;
  for (i = 0; i < UDCCP_MP_SIG_ADDRS; i++) {
    if (s->remote[i].state == 0) {
      return &s->remote[i];
    }
    if (s->remote[i].state == 2 &&
        (tomb == NULL || udccp_seq_lt(s->remote[i].seq, tomb->seq))) {
      tomb = &s->remote[i];
    }
  }
  return tomb;
}

/* 1 if the option is older than the last one applied to its dataset. */
static int outdated(uint8_t set, uint64_t last, uint64_t seq) {
  return set && udccp_seq_lt(seq, last);
}

static unsigned on_addaddr(udccp_mp_sig *s, const udccp_mp_opt *o,
                           uint64_t seq) {
  udccp_mp_addr *a = remote_by_id(s, o->u.addaddr.addr_id);
  if (!unicast(o->u.addaddr.family, o->u.addaddr.addr)) {
    s->st.rx_bad_addr++;
    return 0;
  }
  if (a != NULL && outdated(a->seq_set, a->seq, seq)) {
    s->st.rx_outdated++;
    return 0;
  }
  if (a != NULL && a->state == 1 &&
      !same_addr(a, o->u.addaddr.family, o->u.addaddr.addr)) {
    /* §3.2.8: "The receiver MUST silently ignore the MP_ADDADDR if the IP
     * Address is not the same as that previously assigned to this
     * Address ID." */
    s->st.rx_bad_addr++;
    return 0;
  }
  if (a == NULL && (a = remote_slot(s)) == NULL) {
    return UDCCP_MP_SIG_EV_CONFIRM; /* soft state: dropped (MAY), still
                                        confirmed so it is not repeated */
  }
  a->state = 1;
  a->id = o->u.addaddr.addr_id;
  a->family = o->u.addaddr.family;
  memcpy(a->addr, o->u.addaddr.addr, 16);
  a->has_port = o->u.addaddr.has_port;
  a->port = o->u.addaddr.port;
  a->seq = seq;
  a->seq_set = 1;
  s->st.rx_applied++;
  return UDCCP_MP_SIG_EV_CONFIRM | UDCCP_MP_SIG_EV_ADDR;
}

static unsigned on_removeaddr(udccp_mp_sig *s, const udccp_mp_opt *o,
                              uint64_t seq) {
  udccp_mp_addr *a = remote_by_id(s, o->u.removeaddr.addr_id);
  if (a != NULL && outdated(a->seq_set, a->seq, seq)) {
    s->st.rx_outdated++;
    return 0;
  }
  if (a == NULL) {
    /* §3.2.9: "If there is no address at the requested Address ID, the
     * receiver will silently ignore the request" -- confirmed, so that
     * the sender can release the ID. */
    return UDCCP_MP_SIG_EV_CONFIRM;
  }
  a->state = 2;
  a->seq = seq;
  a->seq_set = 1;
  s->st.rx_applied++;
  return UDCCP_MP_SIG_EV_CONFIRM | UDCCP_MP_SIG_EV_ADDR;
}

static unsigned on_prio(udccp_mp_sig *s, size_t sub, const udccp_mp_opt *o,
                        uint64_t seq) {
  if (sub >= UDCCP_MP_SIG_SUBS) {
    return 0;
  }
  if (outdated(s->prio_rx_set[sub], s->prio_rx_seq[sub], seq)) {
    s->st.rx_outdated++;
    return 0;
  }
  s->prio_rx[sub] = o->u.prio;
  s->prio_rx_set[sub] = 1;
  s->prio_rx_seq[sub] = seq;
  s->st.rx_applied++;
  return UDCCP_MP_SIG_EV_CONFIRM | UDCCP_MP_SIG_EV_PRIO;
}

/* §3.2.1: an MP_CONFIRM clears each signal it echoes with an MP_SEQ at
 * least that of the signal's first transmission (an echo of an older
 * signal with the same bytes does not confirm the newer one). */
static unsigned on_confirm(udccp_mp_sig *s, const udccp_mp_opt *c) {
  size_t pos = 0, i;
  uint64_t seq;
  udccp_mp_opt o;
  unsigned ev = 0;
  while (udccp_mp_confirm_next(c->u.confirm.list, c->u.confirm.list_len,
                               &pos, &seq, &o) == 1) {
    for (i = 0; i < UDCCP_MP_SIG_OUT; i++) {
      udccp_mp_sig_out *e = &s->out[i];
      if (!e->used || !e->sent || e->len != o.len ||
          memcmp(e->opt, o.raw, o.len) != 0 ||
          udccp_seq_lt(seq, e->seq_first)) {
        continue;
      }
      if (e->type == UDCCP_MP_REMOVEADDR) {
        udccp_mp_addr *a = local_by_id(s, e->id);
        if (a != NULL && a->state == 2) {
          memset(a, 0, sizeof(*a)); /* §3.2.9: the ID is free again */
        }
      }
      memset(e, 0, sizeof(*e));
      e->next_tx = UDCCP_TSTAMP_NEVER;
      s->st.rx_confirmed++;
      ev |= UDCCP_MP_SIG_EV_CONFIRMED;
    }
  }
  return ev;
}

/* The MP_HMAC right after option o (by position in the area), or NULL. */
static int hmac_after(const uint8_t *opts, size_t len, size_t pos,
                      udccp_mp_opt *h) {
  return udccp_mp_next(opts, len, &pos, h) == 0 && h->type == UDCCP_MP_HMAC;
}

unsigned udccp_mp_sig_read(udccp_mp_sig *s, const udccp_mp_keys *keys,
                           size_t sub, const uint8_t *opts, size_t len) {
  udccp_mp_opt o, h;
  size_t pos = 0;
  uint64_t seq = 0;
  int rv, have_seq = 0;
  unsigned ev = 0;
  if (opts == NULL) {
    return 0;
  }
  /* The packet's MP_SEQ first: it dates every option in it. */
  while ((rv = udccp_mp_next(opts, len, &pos, &o)) != 2) {
    if (rv == 0 && o.type == UDCCP_MP_SEQ && !have_seq) {
      seq = o.u.seq;
      have_seq = 1;
    }
  }
  pos = 0;
  while ((rv = udccp_mp_next(opts, len, &pos, &o)) != 2) {
    unsigned e = 0;
    uint8_t want[UDCCP_MP_HMAC_LEN];
    if (rv != 0) {
      continue;
    }
    switch (o.type) {
    case UDCCP_MP_CONFIRM:
      ev |= on_confirm(s, &o);
      continue;
    case UDCCP_MP_RTT:
      if (sub < UDCCP_MP_SIG_SUBS) {
        s->rtt_rx_ms[sub] = o.u.rtt.rtt_ms;
        s->rtt_rx_set[sub] = 1;
        ev |= UDCCP_MP_SIG_EV_RTT;
      }
      continue;
    case UDCCP_MP_ADDADDR:
    case UDCCP_MP_REMOVEADDR:
      /* §3.2.8, §3.2.9: "If a host receives an MP_ADDADDR [MP_REMOVEADDR]
       * option for which it cannot validate the HMAC, it MUST silently
       * ignore the option" -- d-key of the peer. */
      if (keys == NULL || !hmac_after(opts, len, pos, &h) ||
          (o.type == UDCCP_MP_ADDADDR
               ? udccp_mp_hmac_addaddr(keys, 1, &o, want)
               : udccp_mp_hmac_removeaddr(keys, 1, o.u.removeaddr.addr_id,
                                          o.u.removeaddr.nonce, want)) != 0 ||
          !udccp_mp_hmac_equal(h.u.hmac, want)) {
        s->st.rx_bad_hmac++;
        continue;
      }
      break;
    case UDCCP_MP_PRIO:
      break;
    default:
      continue;
    }
    if (!have_seq) {
      s->st.rx_no_seq++; /* §3.2.1: cannot be ordered */
      continue;
    }
    if (o.type == UDCCP_MP_ADDADDR) {
      e = on_addaddr(s, &o, seq);
    } else if (o.type == UDCCP_MP_REMOVEADDR) {
      e = on_removeaddr(s, &o, seq);
    } else {
      e = on_prio(s, sub, &o, seq);
    }
    if (e & UDCCP_MP_SIG_EV_CONFIRM) {
      owe_confirm(s, &o, seq);
    }
    ev |= e;
  }
  return ev;
}

int udccp_mp_sig_peer_prio(const udccp_mp_sig *s, size_t sub) {
  if (sub >= UDCCP_MP_SIG_SUBS || !s->prio_rx_set[sub]) {
    return -1;
  }
  return s->prio_rx[sub];
}

const udccp_mp_addr *udccp_mp_sig_peer_addr(const udccp_mp_sig *s,
                                            uint8_t id) {
  size_t i;
  for (i = 0; i < UDCCP_MP_SIG_ADDRS; i++) {
    if (s->remote[i].state == 1 && s->remote[i].id == id) {
      return &s->remote[i];
    }
  }
  return NULL;
}

size_t udccp_mp_sig_unconfirmed(const udccp_mp_sig *s) {
  size_t i, n = 0;
  for (i = 0; i < UDCCP_MP_SIG_OUT; i++) {
    n += s->out[i].used;
  }
  return n;
}

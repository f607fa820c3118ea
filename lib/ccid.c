/* SPDX-License-Identifier: MIT */
/*
 * The CCID registry (RFC 4340 §10): one ops table per CCID number.  The
 * built-in CCIDs 2, 3 and 4 are fixed entries; numbers 248..255
 * (experimental, §10) -- and, asked for explicitly, the reserved 5..247 --
 * are filled at run time by udccp_ccid_register().  The connection finds
 * every CCID, built-in or not, through udccp_ccid_find(): one path, no
 * shortcut for the built-in ones.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ccid.h"
#include "ccid2.h"
#include "ccid3.h"
#include "ccid4.h"
#include "ccid_bbr.h"
#include "ccid_cubic.h"
#include "opt.h"
#include "ackvec.h"

static const udccp_ccid_ops *const udccp_ccid_builtin[5] = {
    NULL, NULL,
    &udccp_ccid2_ops, /* RFC 4341 */
    &udccp_ccid3_ops, /* RFC 4342 */
    &udccp_ccid4_ops, /* RFC 5622 */
};

/* Numbers 5..255; a lookup is one atomic load.  CUBIC (RFC 9438 on CCID
 * 2's feedback, lib/ccid_cubic.c) is there from the start, under its
 * default experimental number; an application may move it. */
static _Atomic(const udccp_ccid_ops *) udccp_ccid_slots[256] = {
    [UDCCP_CCID_CUBIC_DEFAULT] = &udccp_ccid_cubic_ops,
    [UDCCP_CCID_BBR_DEFAULT] = &udccp_ccid_bbr_ops, /* lib/ccid_bbr.c */
};

/* Which of the slots above are filled, one bit per number, so that a
 * server's CCID preference list (lib/feat.c, every new server connection)
 * visits the registered numbers instead of loading all 251 slots: that
 * scan was about 6,000 instructions per accepted connection (issue 13).
 * A bit is set after its slot is filled and cleared after it is emptied;
 * each_extra still asks the slot, so a bit seen for a slot being emptied
 * costs one lookup and nothing else. */
#define CCID_BIT(w, id) ((id) / 64 == (w) ? (uint64_t)1 << ((id) % 64) : 0)
#define CCID_DEFAULT_BITS(w) \
  (CCID_BIT(w, UDCCP_CCID_CUBIC_DEFAULT) | CCID_BIT(w, UDCCP_CCID_BBR_DEFAULT))
static _Atomic uint64_t udccp_ccid_filled[4] = {
    CCID_DEFAULT_BITS(0), CCID_DEFAULT_BITS(1), CCID_DEFAULT_BITS(2),
    CCID_DEFAULT_BITS(3)};

static void filled_set(uint8_t id) {
  atomic_fetch_or_explicit(&udccp_ccid_filled[id / 64],
                           (uint64_t)1 << (id % 64), memory_order_release);
}

static void filled_clear(uint8_t id) {
  atomic_fetch_and_explicit(&udccp_ccid_filled[id / 64],
                            ~((uint64_t)1 << (id % 64)),
                            memory_order_release);
  /* A register_as() between our emptying the slot and clearing the bit
   * has its bit back. */
  if (atomic_load_explicit(&udccp_ccid_slots[id], memory_order_acquire) !=
      NULL) {
    filled_set(id);
  }
}

const udccp_ccid_ops *udccp_ccid_find(uint8_t id) {
  if (id < 5) {
    return udccp_ccid_builtin[id];
  }
  return atomic_load_explicit(&udccp_ccid_slots[id], memory_order_acquire);
}

int udccp_ccid_supported(uint8_t id) { return udccp_ccid_find(id) != NULL; }

const udccp_ccid_ops *udccp_ccid_lookup(uint8_t id) {
  return udccp_ccid_find(id);
}

void udccp_ccid_each_extra(void (*fn)(uint8_t id, void *user), void *user) {
  unsigned w, id;
  for (w = 0; w < 4; w++) {
    uint64_t bits = atomic_load_explicit(&udccp_ccid_filled[w],
                                         memory_order_acquire);
    if (w == 0) {
      bits &= ~(uint64_t)0x1F; /* 0..4: reserved and built-in */
    }
    for (id = w * 64; bits != 0; id++, bits >>= 1) {
      while ((bits & 0xFF) == 0) { /* whole empty bytes at once */
        bits >>= 8;
        id += 8;
      }
      if ((bits & 1) != 0 && udccp_ccid_find((uint8_t)id) != NULL) {
        fn((uint8_t)id, user);
      }
    }
  }
}

static int ops_valid(const udccp_ccid_ops *ops) {
  return ops != NULL && ops->tx_init != NULL && ops->tx_next_send != NULL &&
         ops->tx_on_sent != NULL && ops->tx_on_pkt != NULL &&
         ops->rx_init != NULL && ops->rx_on_pkt != NULL &&
         ops->tx_size <= sizeof(udccp_ccid_state) &&
         ops->rx_size <= sizeof(udccp_ccid_state) &&
         (ops->n_deps == 0 || ops->deps != NULL) &&
         /* a timer needs its handler */
         (ops->tx_get_expiry == NULL || ops->tx_on_expiry != NULL) &&
         (ops->rx_get_expiry == NULL || ops->rx_on_expiry != NULL) &&
         (ops->flags & ~(uint32_t)UDCCP_CCID_F_TX_ACKS_ONLY) == 0 &&
         ops->reserved[0] == NULL && ops->reserved[1] == NULL &&
         ops->reserved[2] == NULL;
}

int udccp_ccid_register_as(const udccp_ccid_ops *ops, uint8_t id,
                           unsigned flags) {
  const udccp_ccid_ops *expect = NULL;
  int experimental =
      id >= UDCCP_CCID_EXPERIMENTAL_MIN; /* 248..255, RFC 4340 §10 */
  if (!ops_valid(ops) || (flags & ~UDCCP_CCID_REG_RESERVED) != 0 || id < 5 ||
      (!experimental && !(flags & UDCCP_CCID_REG_RESERVED))) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (!atomic_compare_exchange_strong(&udccp_ccid_slots[id], &expect, ops)) {
    return UDCCP_ERR_INVALID_STATE;
  }
  filled_set(id);
  return 0;
}

int udccp_ccid_register(const udccp_ccid_ops *ops) {
  if (ops == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return udccp_ccid_register_as(ops, ops->id, 0);
}

int udccp_ccid_unregister(uint8_t id) {
  if (id < 5 || atomic_exchange(&udccp_ccid_slots[id], NULL) == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  filled_clear(id);
  return 0;
}

int udccp_ccid_parse(const char *s) {
  char *end = NULL;
  long v;
  if (s == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (strcmp(s, "cubic") == 0 || strcmp(s, "bbr") == 0) {
    const udccp_ccid_ops *want =
        s[0] == 'c' ? &udccp_ccid_cubic_ops : &udccp_ccid_bbr_ops;
    unsigned id;
    for (id = 5; id < 256; id++) {
      if (udccp_ccid_find((uint8_t)id) == want) {
        return (int)id;
      }
    }
    return UDCCP_ERR_INVALID_ARGUMENT; /* unregistered */
  }
  if (strncmp(s, "ccid", 4) == 0) {
    s += 4;
  }
  if (*s < '0' || *s > '9') {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < 2 || v > 255) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return (int)v;
}

/* ------------------------------------------------ helpers for CCIDs */

int udccp_ccid_opt_put(udccp_optbuf *ob, uint8_t type, int mandatory,
                       const void *val, size_t vlen) {
  if (ob == NULL || (vlen > 0 && val == NULL)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return udccp_optbuf_put(ob, type, mandatory, val, vlen);
}

size_t udccp_ccid_pkt_n_opts(const udccp_ccid_pkt *pkt) {
  return pkt != NULL && pkt->opts != NULL ? pkt->opts->n_ccid : 0;
}

int udccp_ccid_pkt_opt(const udccp_ccid_pkt *pkt, size_t i, uint8_t *type,
                       const uint8_t **val, size_t *len, int *mandatory) {
  const udccp_opt *o;
  if (pkt == NULL || i >= udccp_ccid_pkt_n_opts(pkt)) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  o = &pkt->opts->ccid[i];
  if (type) {
    *type = o->type;
  }
  if (val) {
    *val = o->val;
  }
  if (len) {
    *len = o->len;
  }
  if (mandatory) {
    *mandatory = o->mandatory;
  }
  return 0;
}

int udccp_ccid_pkt_ackvec(const udccp_ccid_pkt *pkt,
                          int (*cb)(uint64_t hi, uint64_t lo, uint8_t state,
                                    void *user),
                          void *user) {
  if (pkt == NULL || cb == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  if (!pkt->has_ack || pkt->opts == NULL || pkt->opts->n_ackvec == 0) {
    return 0;
  }
  return udccp_ackvec_parse(pkt->opts, pkt->ack & 0xFFFFFFFFFFFFull, cb, user);
}

udccp_tstamp udccp_ccid_pkt_elapsed(const udccp_ccid_pkt *pkt) {
  if (pkt == NULL || pkt->opts == NULL ||
      !(pkt->opts->present & UDCCP_OPTS_HAS_ELAPSED)) {
    return 0;
  }
  return (udccp_tstamp)pkt->opts->elapsed_time * 10000u; /* 10 us units */
}

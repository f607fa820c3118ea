/* SPDX-License-Identifier: MIT */
/*
 * Feature negotiation (lib/feat.h): RFC 4340 §6 with erratum 974, the
 * CCID dependencies of §10, and the Linux peer's handshake behaviour.
 * Two udccp_feat_sets talk through udccp_optbuf and udccp_opts_parse, as
 * the connection will use them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "feat.h"
#include "seq.h"

/* A local CCID table (the real one lives in lib/ccid.c). */
static const udccp_ccid_dep deps2[] = {
    {UDCCP_FEAT_SEND_ACK_VECTOR, 1, 1, 1}, /* RFC 4341 §4.1 */
    {UDCCP_FEAT_ACK_RATIO, 0, 0, 2},       /* RFC 4341 §6.1.2 */
};
static const udccp_ccid_dep deps3[] = {
    {UDCCP_FEAT_CCID3_SEND_LOSS_EVENT_RATE, 1, 1, 1}, /* RFC 4342 §8.5 */
    {UDCCP_FEAT_ACK_RATIO, 0, 0, 0}, /* as Linux: no Ack Ratio */
};
static udccp_ccid_ops ops2, ops3;

static const udccp_ccid_ops *tfind(uint8_t id) {
  ops2.id = 2;
  ops2.name = "ccid2";
  ops2.deps = deps2;
  ops2.n_deps = 2;
  ops3.id = 3;
  ops3.name = "ccid3";
  ops3.deps = deps3;
  ops3.n_deps = 2;
  return id == 2 ? &ops2 : id == 3 ? &ops3 : NULL;
}

typedef struct ep {
  udccp_feat_set fs;
  uint64_t seq;      /* next sequence number we send */
  uint64_t gsr;      /* greatest received */
  udccp_optbuf ob;   /* the options of the last packet sent */
  uint8_t reset_code;
  uint8_t reset_data[3];
} ep;

static udccp_settings defaults(void) {
  udccp_settings s;
  udccp_settings_default(&s);
  return s;
}

static void ep_init(ep *e, const udccp_settings *s, int server, uint64_t iss) {
  memset(e, 0, sizeof(*e));
  e->seq = iss;
  assert_int_equal(udccp_feat_init(&e->fs, s, server, iss, tfind), 0);
}

/* Writes the next packet of "from" (options only). */
static udccp_optbuf *ep_write(ep *from, uint8_t type) {
  udccp_optbuf_init(&from->ob);
  assert_true(udccp_feat_write(&from->fs, &from->ob, type, from->seq) >= 0);
  from->seq = udccp_seq_add(from->seq, 1);
  return &from->ob;
}

/* Delivers options ob, as packet (type, seq, ack), to "to". */
static int ep_read(ep *to, const udccp_optbuf *ob, uint8_t type, uint64_t seq,
                   int has_ack, uint64_t ack) {
  udccp_opts opts;
  udccp_feat_pkt p;
  assert_int_equal(udccp_opts_parse(&opts, type, ob->buf, ob->len), 0);
  if (udccp_seq_gt(seq, to->gsr) || to->gsr == 0) {
    to->gsr = seq;
  }
  p.type = type;
  p.has_ack = (uint8_t)has_ack;
  p.seq = seq;
  p.ack = ack;
  p.gsr = to->gsr;
  return udccp_feat_read(&to->fs, &opts, &p, &to->reset_code, to->reset_data);
}

/* from sends a packet of type to to (which receives it at once). */
static int xfer(ep *from, ep *to, uint8_t type) {
  uint64_t seq = from->seq;
  int has_ack = type != UDCCP_PKT_REQUEST && type != UDCCP_PKT_DATA;
  ep_write(from, type);
  return ep_read(to, &from->ob, type, seq, has_ack, to->seq - 1);
}

/* Request, Response, Ack between a fresh client and server. */
static void handshake(ep *c, ep *sv) {
  assert_int_equal(xfer(c, sv, UDCCP_PKT_REQUEST), 0);
  assert_int_equal(xfer(sv, c, UDCCP_PKT_RESPONSE), 0);
  assert_int_equal(xfer(c, sv, UDCCP_PKT_ACK), 0);
}

/* Finds option type for feature num in ob; returns its offset or -1 and
 * sets *mand if a Mandatory option precedes it. */
static int find_opt(const udccp_optbuf *ob, uint8_t type, uint8_t num,
                    int *mand) {
  size_t i = 0;
  int m = 0;
  while (i < ob->len) {
    uint8_t t = ob->buf[i];
    if (t < 32) {
      m = t == UDCCP_OPT_MANDATORY;
      i++;
      continue;
    }
    if (t == type && ob->buf[i + 1] >= 3 && ob->buf[i + 2] == num) {
      if (mand) {
        *mand = m;
      }
      return (int)i;
    }
    m = 0;
    i += ob->buf[i + 1];
  }
  return -1;
}

/* 1 if ob holds exactly the option bytes want[0..n-1]. */
static int has_bytes(const udccp_optbuf *ob, const uint8_t *want, size_t n) {
  int off = find_opt(ob, want[0], want[2], NULL);
  return off >= 0 && ob->buf[off + 1] == n &&
         memcmp(ob->buf + off, want, n) == 0;
}

static size_t count_type(const udccp_optbuf *ob, uint8_t type) {
  size_t i = 0, n = 0;
  while (i < ob->len) {
    uint8_t t = ob->buf[i];
    if (t < 32) {
      i++;
      continue;
    }
    n += t == type;
    i += ob->buf[i + 1];
  }
  return n;
}

static void assert_agree(const ep *a, const ep *b) {
  static const uint8_t nums[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 192};
  size_t i;
  for (i = 0; i < sizeof(nums); i++) {
    assert_int_equal(udccp_feat_get_local(&a->fs, nums[i]),
                     udccp_feat_get_remote(&b->fs, nums[i]));
    assert_int_equal(udccp_feat_get_remote(&a->fs, nums[i]),
                     udccp_feat_get_local(&b->fs, nums[i]));
  }
}

/* Full handshake between two default endpoints: Request, Response, Ack. */
static void test_rfc4340_6_handshake_converges(void **state) {
  udccp_settings s = defaults();
  ep c, sv;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  assert_false(udccp_feat_all_confirmed(&c.fs));
  assert_int_equal(xfer(&c, &sv, UDCCP_PKT_REQUEST), 0);
  assert_int_equal(xfer(&sv, &c, UDCCP_PKT_RESPONSE), 0);
  assert_true(udccp_feat_all_confirmed(&c.fs));
  assert_int_equal(xfer(&c, &sv, UDCCP_PKT_ACK), 0);
  assert_true(udccp_feat_all_confirmed(&sv.fs));
  assert_false(udccp_feat_want_packet(&c.fs));
  assert_false(udccp_feat_want_packet(&sv.fs));
  assert_agree(&c, &sv);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_CCID), 2);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 2);
  /* §10 / RFC 4341: both directions use CCID 2, both send Ack Vectors. */
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_SEND_ACK_VECTOR), 1);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_SEND_ACK_VECTOR),
                   1);
  /* §7.5.2: both asked for their Sequence Window setting (1000). */
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_SEQ_WINDOW), 1000);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_SEQ_WINDOW), 1000);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
  /* Nothing more to send on the next packets. */
  ep_write(&c, UDCCP_PKT_ACK);
  assert_int_equal(c.ob.len, 0);
}

/* §6.5 first example: Change R(CCID, 2 3 1) -> Confirm L(CCID, 3, 3 2 1). */
static void test_rfc4340_6_5_sp_server_priority(void **state) {
  static const uint8_t cli[] = {2, 3, 1}, srv[] = {3, 2, 1};
  static const uint8_t change[] = {34, 6, 1, 2, 3, 1};
  static const uint8_t confirm[] = {33, 7, 1, 3, 3, 2, 1};
  udccp_settings s = defaults();
  udccp_feat_entry *e;
  ep c, sv;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  assert_int_equal(udccp_feat_change_sp(&c.fs, UDCCP_FEAT_CCID, 0, cli, 3, 0),
                   0);
  e = udccp_feat_entry_get(&sv.fs, UDCCP_FEAT_CCID, 1);
  memcpy(e->pref, srv, 3);
  e->n_pref = 3;
  e->state = UDCCP_FEAT_STABLE; /* the server only answers */
  ep_write(&c, UDCCP_PKT_REQUEST);
  assert_true(has_bytes(&c.ob, change, sizeof(change)));
  assert_int_equal(ep_read(&sv, &c.ob, UDCCP_PKT_REQUEST, 1000, 0, 0), 0);
  /* §6.6.1: the Confirm-sending endpoint changes at once. */
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_CCID), 3);
  assert_int_equal(xfer(&sv, &c, UDCCP_PKT_RESPONSE), 0);
  assert_true(has_bytes(&sv.ob, confirm, sizeof(confirm)));
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 3);
  /* The same lists with the roles swapped: the server's list still wins. */
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  assert_int_equal(udccp_feat_change_sp(&c.fs, UDCCP_FEAT_CCID, 0, srv, 3, 0),
                   0);
  e = udccp_feat_entry_get(&sv.fs, UDCCP_FEAT_CCID, 1);
  memcpy(e->pref, cli, 3);
  e->n_pref = 3;
  e->state = UDCCP_FEAT_STABLE;
  assert_int_equal(xfer(&c, &sv, UDCCP_PKT_REQUEST), 0);
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_CCID), 2);
  assert_int_equal(xfer(&sv, &c, UDCCP_PKT_RESPONSE), 0);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 2);
}

/* §6.5 second example: a lost Change L is retransmitted unchanged, and the
 * client's Confirm R(CCID, 3, 2 3 1) settles it (§6.6.3). */
static void test_rfc4340_6_6_3_change_retransmitted_until_confirmed(
    void **state) {
  static const uint8_t srv[] = {3, 2, 1}, cli[] = {2, 3, 1};
  static const uint8_t change[] = {32, 6, 1, 3, 2, 1};
  static const uint8_t confirm[] = {35, 7, 1, 3, 2, 3, 1};
  udccp_settings s = defaults();
  udccp_feat_entry *e;
  udccp_optbuf first;
  ep c, sv;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  /* Get through a handshake first. */
  handshake(&c, &sv);
  e = udccp_feat_entry_get(&c.fs, UDCCP_FEAT_CCID, 0);
  memcpy(e->pref, cli, 3);
  e->n_pref = 3;
  assert_int_equal(udccp_feat_change_sp(&sv.fs, UDCCP_FEAT_CCID, 1, srv, 3, 0),
                   0);
  ep_write(&sv, UDCCP_PKT_ACK); /* lost */
  first = sv.ob;
  assert_true(has_bytes(&first, change, sizeof(change)));
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_CCID), 2);
  /* §6.6.3: not repeated on every packet, only once the caller (its
   * back-off timer, or an ack without the Confirm) asks for it. */
  assert_false(udccp_feat_want_packet(&sv.fs));
  ep_write(&sv, UDCCP_PKT_ACK);
  assert_int_equal(find_opt(&sv.ob, UDCCP_OPT_CHANGE_L, UDCCP_FEAT_CCID, NULL),
                   -1);
  sv.fs.repeat = 1;
  assert_true(udccp_feat_want_packet(&sv.fs));
  ep_write(&sv, UDCCP_PKT_ACK); /* lost too */
  assert_int_equal(sv.ob.len, first.len);
  assert_memory_equal(sv.ob.buf, first.buf, first.len);
  assert_int_equal(sv.fs.repeat, 0);
  sv.fs.repeat = 1;
  assert_int_equal(xfer(&sv, &c, UDCCP_PKT_DATAACK), 0);
  assert_int_equal(xfer(&c, &sv, UDCCP_PKT_ACK), 0);
  assert_true(has_bytes(&c.ob, confirm, sizeof(confirm)));
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_CCID), 3);
  assert_int_equal(udccp_feat_entry_get(&sv.fs, UDCCP_FEAT_CCID, 1)->state,
                   UDCCP_FEAT_STABLE);
  /* Confirms are sent once, Changes no more. */
  ep_write(&c, UDCCP_PKT_ACK);
  assert_int_equal(count_type(&c.ob, UDCCP_OPT_CONFIRM_R), 0);
  ep_write(&sv, UDCCP_PKT_ACK);
  assert_int_equal(find_opt(&sv.ob, UDCCP_OPT_CHANGE_L, UDCCP_FEAT_CCID, NULL),
                   -1);
  /* CCID 3's dependency on Ack Ratio 0 follows the new value (§10). */
  assert_true(find_opt(&sv.ob, UDCCP_OPT_CHANGE_L, UDCCP_FEAT_ACK_RATIO,
                       NULL) >= 0);
}

/* §6.5 third example and §6.3.2: NN values are echoed; §6.6.1: the
 * Change-sender waits for the Confirm before using the value. */
static void test_rfc4340_6_3_2_nn_ack_ratio_echo(void **state) {
  static const uint8_t change[] = {32, 5, 5, 0, 3};
  static const uint8_t confirm[] = {35, 5, 5, 0, 3};
  udccp_settings s = defaults();
  ep c, sv;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  handshake(&c, &sv);
  assert_int_equal(udccp_feat_change_nn(&sv.fs, UDCCP_FEAT_ACK_RATIO, 3), 0);
  assert_int_equal(xfer(&sv, &c, UDCCP_PKT_DATAACK), 0);
  assert_true(has_bytes(&sv.ob, change, sizeof(change)));
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_ACK_RATIO), 2);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_ACK_RATIO), 3);
  assert_int_equal(xfer(&c, &sv, UDCCP_PKT_ACK), 0);
  assert_true(has_bytes(&c.ob, confirm, sizeof(confirm)));
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_ACK_RATIO), 3);
  /* Ack Ratio 0 ("no Ack Ratio", §11.3, erratum 1049) is valid. */
  assert_int_equal(udccp_feat_change_nn(&sv.fs, UDCCP_FEAT_ACK_RATIO, 0), 0);
  assert_int_equal(xfer(&sv, &c, UDCCP_PKT_DATAACK), 0);
  assert_int_equal(xfer(&c, &sv, UDCCP_PKT_ACK), 0);
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_ACK_RATIO), 0);
  assert_agree(&c, &sv);
}

/* §7.5.2 byte encoding of §6.5: Change L(Sequence Window, 1024). */
static void test_rfc4340_7_5_2_seq_window_from_settings(void **state) {
  static const uint8_t change[] = {32, 9, 3, 0, 0, 0, 0, 4, 0};
  static const uint8_t confirm[] = {35, 9, 3, 0, 0, 0, 0, 4, 0};
  udccp_settings s = defaults();
  ep c, sv;
  (void)state;
  s.seq_window = 1024;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  assert_int_equal(xfer(&c, &sv, UDCCP_PKT_REQUEST), 0);
  assert_true(has_bytes(&c.ob, change, sizeof(change)));
  assert_int_equal(xfer(&sv, &c, UDCCP_PKT_RESPONSE), 0);
  assert_true(has_bytes(&sv.ob, confirm, sizeof(confirm)));
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_SEQ_WINDOW), 1024);
  assert_int_equal(udccp_feat_get_remote(&sv.fs, UDCCP_FEAT_SEQ_WINDOW), 1024);
  assert_int_equal(xfer(&c, &sv, UDCCP_PKT_ACK), 0);
  assert_agree(&c, &sv);
  /* Limits: 32 .. 2^46 - 1; only NN features at this endpoint. */
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_SEQ_WINDOW, 31),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_SEQ_WINDOW,
                                        UDCCP_SEQ_WINDOW_MAX + 1),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_SEQ_WINDOW,
                                        UDCCP_SEQ_WINDOW_MAX),
                   0);
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_ACK_RATIO, 65536),
                   UDCCP_ERR_INVALID_ARGUMENT);
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_CCID, 3),
                   UDCCP_ERR_INVALID_ARGUMENT);
  s.seq_window = 20;
  assert_int_equal(udccp_feat_init(&c.fs, &s, 0, 1, tfind),
                   UDCCP_ERR_INVALID_ARGUMENT);
}

/* §6.5 fourth example / §6.6.6: both ends start negotiating CCID/server at
 * once; each Change answers the other, both agree on 3. */
static void test_rfc4340_6_6_6_simultaneous_negotiation(void **state) {
  static const uint8_t cli[] = {2, 3, 1}, srv[] = {3, 2, 1};
  udccp_settings s = defaults();
  ep c, sv;
  uint64_t cseq, sseq;
  udccp_optbuf cob, sob;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  handshake(&c, &sv);
  assert_int_equal(udccp_feat_change_sp(&c.fs, UDCCP_FEAT_CCID, 0, cli, 3, 0),
                   0);
  assert_int_equal(udccp_feat_change_sp(&sv.fs, UDCCP_FEAT_CCID, 1, srv, 3, 0),
                   0);
  /* 1a and 1b cross in flight. */
  cseq = c.seq;
  sseq = sv.seq;
  cob = *ep_write(&c, UDCCP_PKT_ACK);
  sob = *ep_write(&sv, UDCCP_PKT_ACK);
  assert_int_equal(ep_read(&sv, &cob, UDCCP_PKT_ACK, cseq, 1, sseq - 1), 0);
  assert_int_equal(ep_read(&c, &sob, UDCCP_PKT_ACK, sseq, 1, cseq - 1), 0);
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_CCID), 3);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 3);
  assert_int_equal(udccp_feat_entry_get(&c.fs, UDCCP_FEAT_CCID, 0)->state,
                   UDCCP_FEAT_STABLE);
  assert_int_equal(udccp_feat_entry_get(&sv.fs, UDCCP_FEAT_CCID, 1)->state,
                   UDCCP_FEAT_STABLE);
  /* 2a and 2b: the Confirms, now unexpected, are ignored. */
  assert_int_equal(xfer(&sv, &c, UDCCP_PKT_ACK), 0);
  assert_true(find_opt(&sv.ob, UDCCP_OPT_CONFIRM_L, UDCCP_FEAT_CCID, NULL) >=
              0);
  assert_int_equal(xfer(&c, &sv, UDCCP_PKT_ACK), 0);
  assert_true(find_opt(&c.ob, UDCCP_OPT_CONFIRM_R, UDCCP_FEAT_CCID, NULL) >=
              0);
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_CCID), 3);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 3);
  /* CCID 3's own dependency (Send Loss Event Rate) settles as well. */
  assert_int_equal(xfer(&sv, &c, UDCCP_PKT_ACK), 0);
  assert_true(udccp_feat_all_confirmed(&c.fs));
  assert_true(udccp_feat_all_confirmed(&sv.fs));
  assert_agree(&c, &sv);
}

/* §6.6.7: unknown features get Empty Confirms; Confirms for unknown
 * features are ignored. */
static void test_rfc4340_6_6_7_unknown_feature_empty_confirm(void **state) {
  static const uint8_t f100[] = {100, 1}, f200[] = {200, 5};
  static const uint8_t e100[] = {35, 3, 100}, e200[] = {33, 3, 200};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep sv;
  (void)state;
  ep_init(&sv, &s, 1, 5000);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, f100, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 0, f200, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_L, 0, f100, 2), 0);
  assert_int_equal(ep_read(&sv, &ob, UDCCP_PKT_REQUEST, 77, 0, 0), 0);
  assert_true(udccp_feat_want_packet(&sv.fs));
  ep_write(&sv, UDCCP_PKT_RESPONSE);
  assert_true(has_bytes(&sv.ob, e100, sizeof(e100)));
  assert_true(has_bytes(&sv.ob, e200, sizeof(e200)));
  /* Sent once. */
  ep_write(&sv, UDCCP_PKT_ACK);
  assert_int_equal(find_opt(&sv.ob, UDCCP_OPT_CONFIRM_R, 100, NULL), -1);
}

/* §6.6.9: a Mandatory Change for an unknown feature resets the connection
 * with Mandatory Error; the Reset data name the option (§5.6). */
static void test_rfc4340_6_6_9_mandatory_unknown_feature_resets(void **state) {
  static const uint8_t f100[] = {100, 1};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep sv;
  (void)state;
  ep_init(&sv, &s, 1, 5000);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, f100, 2), 0);
  assert_int_equal(ep_read(&sv, &ob, UDCCP_PKT_REQUEST, 77, 0, 0),
                   UDCCP_ERR_MANDATORY);
  assert_int_equal(sv.reset_code, UDCCP_RESET_MANDATORY_ERROR);
  assert_int_equal(sv.reset_data[0], UDCCP_OPT_CHANGE_L);
  assert_int_equal(sv.reset_data[1], 100);
  assert_int_equal(sv.reset_data[2], 1);
  /* The same for a Mandatory Confirm (first step of §6.6.2). */
  ep_init(&sv, &s, 1, 5000);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 1, f100, 2), 0);
  assert_int_equal(ep_read(&sv, &ob, UDCCP_PKT_ACK, 77, 1, 5000),
                   UDCCP_ERR_MANDATORY);
  assert_int_equal(sv.reset_data[0], UDCCP_OPT_CONFIRM_R);
}

/* §6.6.9: no shared entry in a Mandatory SP Change resets; without
 * Mandatory the Confirm repeats the old value (§6.3.1). */
static void test_rfc4340_6_6_9_mandatory_no_shared_entry(void **state) {
  static const uint8_t want5[] = {1, 5};
  static const uint8_t confirm_old[] = {33, 6, 1, 2, 2, 3};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep sv;
  (void)state;
  ep_init(&sv, &s, 1, 5000);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 1, want5, 2), 0);
  assert_int_equal(ep_read(&sv, &ob, UDCCP_PKT_REQUEST, 77, 0, 0),
                   UDCCP_ERR_MANDATORY);
  assert_int_equal(sv.reset_code, UDCCP_RESET_MANDATORY_ERROR);
  assert_int_equal(sv.reset_data[0], UDCCP_OPT_CHANGE_R);
  ep_init(&sv, &s, 1, 5000);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 0, want5, 2), 0);
  assert_int_equal(ep_read(&sv, &ob, UDCCP_PKT_REQUEST, 77, 0, 0), 0);
  ep_write(&sv, UDCCP_PKT_RESPONSE);
  assert_true(has_bytes(&sv.ob, confirm_old, sizeof(confirm_old)));
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_CCID), 2);
}

/* §6.6.8: invalid Changes get Empty Confirms (or a reset when Mandatory):
 * NN values out of range or of the wrong length, and Change R for an NN
 * feature (§6.3.2). */
static void test_rfc4340_6_6_8_invalid_change_empty_confirm(void **state) {
  static const uint8_t sw10[] = {3, 0, 0, 0, 0, 0, 10};
  static const uint8_t ar1byte[] = {5, 4};
  static const uint8_t sw_ok[] = {3, 0, 0, 0, 0, 1, 0};
  static const uint8_t e_sw_r[] = {35, 3, 3}, e_ar_r[] = {35, 3, 5};
  static const uint8_t e_sw_l[] = {33, 3, 3};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep sv;
  (void)state;
  ep_init(&sv, &s, 1, 5000);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, sw10, 7), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, ar1byte, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 0, sw_ok, 7), 0);
  assert_int_equal(ep_read(&sv, &ob, UDCCP_PKT_REQUEST, 77, 0, 0), 0);
  ep_write(&sv, UDCCP_PKT_RESPONSE);
  assert_true(has_bytes(&sv.ob, e_sw_r, sizeof(e_sw_r)));
  assert_true(has_bytes(&sv.ob, e_ar_r, sizeof(e_ar_r)));
  assert_true(has_bytes(&sv.ob, e_sw_l, sizeof(e_sw_l)));
  assert_int_equal(udccp_feat_get_remote(&sv.fs, UDCCP_FEAT_SEQ_WINDOW), 100);
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_SEQ_WINDOW), 100);
  /* Mandatory and invalid: reset. */
  ep_init(&sv, &s, 1, 5000);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, sw10, 7), 0);
  assert_int_equal(ep_read(&sv, &ob, UDCCP_PKT_REQUEST, 77, 0, 0),
                   UDCCP_ERR_MANDATORY);
  assert_int_equal(sv.reset_code, UDCCP_RESET_MANDATORY_ERROR);
  /* An SP Change without any value is invalid too. */
  ep_init(&sv, &s, 1, 5000);
  udccp_optbuf_init(&ob);
  {
    static const uint8_t novalue[] = {UDCCP_FEAT_SEND_NDP_COUNT};
    static const uint8_t e_snc[] = {35, 3, UDCCP_FEAT_SEND_NDP_COUNT};
    assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, novalue, 1),
                     0);
    assert_int_equal(ep_read(&sv, &ob, UDCCP_PKT_REQUEST, 77, 0, 0), 0);
    ep_write(&sv, UDCCP_PKT_RESPONSE);
    assert_true(has_bytes(&sv.ob, e_snc, sizeof(e_snc)));
  }
}

/* Builds a client that has sent its Request (seq 1000), and delivers it
 * to nothing; returns with the client waiting for Confirms. */
static void client_after_request(ep *c, const udccp_settings *s) {
  ep_init(c, s, 0, 1000);
  ep_write(c, UDCCP_PKT_REQUEST);
}

/* §6.6.8: a Confirm selecting the wrong value resets with Option Error. */
static void test_rfc4340_6_6_8_invalid_confirm_resets(void **state) {
  static const uint8_t ccid4[] = {1, 4, 4};
  static const uint8_t sw600[] = {3, 0, 0, 0, 0, 2, 88};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep c;
  (void)state;
  client_after_request(&c, &s);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_L, 0, ccid4, 3), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_RESPONSE, 9000, 1, 1000),
                   UDCCP_ERR_OPTION);
  assert_int_equal(c.reset_code, UDCCP_RESET_OPTION_ERROR);
  assert_int_equal(c.reset_data[0], UDCCP_OPT_CONFIRM_L);
  assert_int_equal(c.reset_data[1], 1);
  assert_int_equal(c.reset_data[2], 4);
  /* NN: the Confirm must echo our value. */
  s.seq_window = 500;
  client_after_request(&c, &s);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, sw600, 7), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_RESPONSE, 9000, 1, 1000),
                   UDCCP_ERR_OPTION);
  assert_int_equal(c.reset_code, UDCCP_RESET_OPTION_ERROR);
  /* A client offers only the CCID it was asked for (as Linux does), so a
   * Confirm choosing another CCID is invalid (§6.6.8). */
  {
    static const uint8_t ccid3[] = {1, 3, 3, 2};
    s = defaults();
    client_after_request(&c, &s);
    udccp_optbuf_init(&ob);
    assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_L, 0, ccid3, 4),
                     0);
    assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_RESPONSE, 9000, 1, 1000),
                     UDCCP_ERR_OPTION);
    assert_int_equal(c.reset_code, UDCCP_RESET_OPTION_ERROR);
  }
  /* ...while the Confirm of the CCID we asked for is fine. */
  {
    static const uint8_t ccid2[] = {1, 2, 2};
    s = defaults();
    client_after_request(&c, &s);
    udccp_optbuf_init(&ob);
    assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_L, 0, ccid2, 3),
                     0);
    assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_RESPONSE, 9000, 1, 1000), 0);
    assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 2);
  }
}

/* §6.6.7: an empty Confirm leaves the value; for a feature every DCCP must
 * understand (Sequence Window) we reset with Option Error. */
static void test_rfc4340_6_6_7_empty_confirm(void **state) {
  static const uint8_t e_ar[] = {5}, e_sw[] = {3};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep c;
  (void)state;
  s.ack_ratio = 4;
  client_after_request(&c, &s);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, e_ar, 1), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_RESPONSE, 9000, 1, 1000), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
  assert_int_equal(udccp_feat_entry_get(&c.fs, UDCCP_FEAT_ACK_RATIO, 1)->state,
                   UDCCP_FEAT_STABLE);
  s = defaults();
  s.seq_window = 64;
  client_after_request(&c, &s);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, e_sw, 1), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_RESPONSE, 9000, 1, 1000),
                   UDCCP_ERR_OPTION);
  assert_int_equal(c.reset_code, UDCCP_RESET_OPTION_ERROR);
}

/* §6.6.4 and §6.6.5: Confirms that do not acknowledge our latest Change
 * (Ack < FGSS) and options on packets not newer than FGSR are ignored;
 * an UNSTABLE feature ignores everything until it has sent its Change. */
static void test_rfc4340_6_6_4_reordered_options_ignored(void **state) {
  static const uint8_t ar4[] = {5, 0, 4}, ar5[] = {5, 0, 5};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep c, sv;
  uint64_t first;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  handshake(&c, &sv);
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_ACK_RATIO, 4), 0);
  first = c.seq;
  ep_write(&c, UDCCP_PKT_ACK); /* Change L(Ack Ratio, 4): FGSS = first */
  assert_int_equal(c.fs.fgss, first);
  /* §6.6.5: new preference while CHANGING -> UNSTABLE ... */
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_ACK_RATIO, 5), 0);
  assert_int_equal(udccp_feat_entry_get(&c.fs, UDCCP_FEAT_ACK_RATIO, 1)->state,
                   UDCCP_FEAT_UNSTABLE);
  /* ... which ignores a Confirm that arrives now. */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, ar4, 3), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6000, 1, first), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
  ep_write(&c, UDCCP_PKT_ACK); /* Change L(Ack Ratio, 5): FGSS moves */
  assert_int_equal(c.fs.fgss, first + 1);
  assert_int_equal(udccp_feat_entry_get(&c.fs, UDCCP_FEAT_ACK_RATIO, 1)->state,
                   UDCCP_FEAT_CHANGING);
  /* A delayed Confirm of the old Change (Ack = first < FGSS): ignored. */
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6001, 1, first), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
  /* A Confirm on a packet older than FGSR (6001): ignored. */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, ar5, 3), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 5999, 1, first + 1), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
  /* Confirms need an Acknowledgement Number at all. */
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6002, 0, 0), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
  /* The right one. */
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6003, 1, first + 1), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 5);
  assert_true(udccp_feat_all_confirmed(&c.fs));
  /* A reordered Change (seq <= FGSR) gets no Confirm. */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, ar4, 3), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6000, 1, first + 1), 0);
  assert_false(udccp_feat_want_packet(&c.fs));
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
}

/* §6.6.4 with reordering: our Change L(Ack Ratio, 4) is replaced by
 * Change L(Ack Ratio, 5) before any answer; the peer gets the first late,
 * after a packet newer than the second (so its Acknowledgement Number
 * passes FGSS without it having seen the Change of 5) and confirms 4.
 * That Confirm is not part of the current negotiation (§6.6.8): ignored,
 * no reset; the Confirm of 5 then settles it.  A Confirm of a value never
 * asked for still resets. */
static void test_rfc4340_6_6_4_late_confirm_of_replaced_change(void **state) {
  static const uint8_t ar2[] = {5, 0, 2}, ar4[] = {5, 0, 4}, ar5[] = {5, 0, 5};
  static const uint8_t ar7[] = {5, 0, 7};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep c, sv;
  uint64_t second;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  handshake(&c, &sv);
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_ACK_RATIO, 4), 0);
  ep_write(&c, UDCCP_PKT_ACK); /* Change L(Ack Ratio, 4) */
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_ACK_RATIO, 5), 0);
  second = c.seq;
  ep_write(&c, UDCCP_PKT_ACK); /* Change L(Ack Ratio, 5): FGSS = second */
  ep_write(&c, UDCCP_PKT_ACK); /* a later packet the peer gets first */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, ar4, 3), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6000, 1, second + 1), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
  assert_int_equal(udccp_feat_entry_get(&c.fs, UDCCP_FEAT_ACK_RATIO, 1)->state,
                   UDCCP_FEAT_CHANGING);
  /* a Confirm of the value in force (an older Change still) likewise */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, ar2, 3), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6001, 1, second + 1), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
  /* the Change of 5 stays outstanding, and its Confirm settles it */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, ar5, 3), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6002, 1, second + 1), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 5);
  assert_true(udccp_feat_all_confirmed(&c.fs));
  /* a value never asked for: invalid, Option Error (§6.6.8) */
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_ACK_RATIO, 6), 0);
  second = c.seq;
  ep_write(&c, UDCCP_PKT_ACK);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, ar7, 3), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6003, 1, second),
                   UDCCP_ERR_OPTION);
  assert_int_equal(c.reset_code, UDCCP_RESET_OPTION_ERROR);
}

/* §6.6.4, the per-feature alternative FGSS(F/X) ("slightly more forgiving
 * to multiple overlapped feature negotiations"): a new Change of Ack Ratio
 * sent while our Sequence Window Change is in flight does not void the
 * Sequence Window's Confirm, which acknowledges its own Change; a Confirm
 * older than a feature's own latest new Change is still ignored.  (With
 * one FGSS, a sender whose cwnd grows changed Ack Ratio every RTT and its
 * Sequence Window Confirms were all ignored: the window, and so the
 * flight, lagged cwnd in every slow start on long fat paths.) */
static void test_rfc4340_6_6_4_per_feature_fgss(void **state) {
  static const uint8_t sw[] = {3, 0, 0, 0, 0, 0x0b, 0xb8}; /* 3000 */
  static const uint8_t ar3[] = {5, 0, 3};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep c, sv;
  uint64_t sw_seq, ar_seq;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  handshake(&c, &sv);
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_SEQ_WINDOW, 3000), 0);
  sw_seq = c.seq;
  ep_write(&c, UDCCP_PKT_ACK); /* Change L(Sequence Window, 3000) */
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_ACK_RATIO, 3), 0);
  ar_seq = c.seq;
  ep_write(&c, UDCCP_PKT_ACK); /* Change L(Ack Ratio, 3): FGSS moves */
  assert_int_equal(c.fs.fgss, ar_seq);
  /* The peer's Confirm of the Sequence Window, acknowledging sw_seq (the
   * packet with that Change) but not ar_seq: taken. */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, sw, 7), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6000, 1, sw_seq), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_SEQ_WINDOW), 3000);
  /* A Confirm of Ack Ratio acknowledging only sw_seq, before its own
   * Change: ignored (rule 2 with FGSS(Ack Ratio)). */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, ar3, 3), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6001, 1, sw_seq), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
  /* ... and taken once it acknowledges ar_seq. */
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 6002, 1, ar_seq), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 3);
  assert_true(udccp_feat_all_confirmed(&c.fs));
}

/* §6.6.2/§6.6.5: while UNSTABLE (new preferences not yet sent) a Change
 * from the peer is ignored: no Confirm, no new value. */
static void test_rfc4340_6_6_5_unstable_ignores_change(void **state) {
  static const uint8_t l1[] = {3, 2}, l2[] = {2, 3}, peer[] = {1, 3};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep c, sv;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  handshake(&c, &sv);
  assert_int_equal(udccp_feat_change_sp(&c.fs, UDCCP_FEAT_CCID, 0, l1, 2, 0),
                   0);
  ep_write(&c, UDCCP_PKT_ACK);
  assert_int_equal(udccp_feat_change_sp(&c.fs, UDCCP_FEAT_CCID, 0, l2, 2, 0),
                   0);
  assert_int_equal(udccp_feat_entry_get(&c.fs, UDCCP_FEAT_CCID, 0)->state,
                   UDCCP_FEAT_UNSTABLE);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, peer, 2), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 7000, 1, c.seq - 1), 0);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 2);
  assert_false(udccp_feat_entry_get(&c.fs, UDCCP_FEAT_CCID, 0)->confirm_owed);
  /* Once the new Change is out, the same Change is answered. */
  ep_write(&c, UDCCP_PKT_ACK);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 7001, 1, c.seq - 1), 0);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 3);
  assert_true(udccp_feat_entry_get(&c.fs, UDCCP_FEAT_CCID, 0)->confirm_owed);
}

/* §6.6.2: CHANGING starts when the Change is sent.  A Confirm of the
 * previous value arriving before the new Change left (Linux confirms every
 * retransmitted Change) is ignored, not taken as invalid. */
static void test_rfc4340_6_6_2_confirm_before_change_sent_ignored(
    void **state) {
  static const uint8_t ar3[] = {5, 0, 3};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep c, sv;
  uint64_t sent;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_init(&sv, &s, 1, 5000);
  handshake(&c, &sv);
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_ACK_RATIO, 3), 0);
  sent = c.seq;
  ep_write(&c, UDCCP_PKT_ACK);
  ep_write(&c, UDCCP_PKT_ACK); /* retransmitted */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, ar3, 3), 0);
  /* The peer's packets (its sequence numbers, sv.seq onwards). */
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, sv.seq, 1, sent), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 3);
  assert_int_equal(udccp_feat_change_nn(&c.fs, UDCCP_FEAT_ACK_RATIO, 4), 0);
  /* The Confirm answering the retransmission, before Change(4) is out. */
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, sv.seq + 1, 1, sent + 1),
                   0);
  sv.seq += 2;
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 3);
  assert_int_equal(xfer(&c, &sv, UDCCP_PKT_ACK), 0);
  assert_int_equal(xfer(&sv, &c, UDCCP_PKT_ACK), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_ACK_RATIO), 4);
  assert_agree(&c, &sv);
}

/* Erratum 974: FGSR <= GSR and FGSS <= GSS are enforced across wraps. */
static void test_errata_974_fgsr_fgss_follow_wrap(void **state) {
  static const uint8_t ar4[] = {5, 0, 4};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  udccp_opts opts;
  udccp_feat_pkt p;
  ep c;
  uint64_t gsr;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  /* After 2^47 + 5 packets without negotiation FGSR looks "newer" than
   * GSR; a new Change would be ignored without the erratum. */
  c.fs.fgsr_valid = 1;
  c.fs.fgsr = 100;
  gsr = udccp_seq_add(100, (int64_t)UDCCP_SEQ_HALF + 5);
  assert_true(udccp_seq_gt(c.fs.fgsr, gsr));
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, ar4, 3), 0);
  assert_int_equal(udccp_opts_parse(&opts, UDCCP_PKT_ACK, ob.buf, ob.len), 0);
  memset(&p, 0, sizeof(p));
  p.type = UDCCP_PKT_ACK;
  p.has_ack = 1;
  p.seq = gsr;
  p.gsr = gsr;
  p.ack = 1000;
  assert_int_equal(udccp_feat_read(&c.fs, &opts, &p, &c.reset_code,
                                   c.reset_data),
                   0);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_ACK_RATIO), 4);
  assert_int_equal(c.fs.fgsr, gsr);
  /* The same for FGSS, through udccp_feat_check_wrap. */
  c.fs.fgss = 100;
  udccp_feat_check_wrap(&c.fs, gsr, gsr);
  assert_int_equal(c.fs.fgss, udccp_seq_add(gsr, -(int64_t)UDCCP_SEQ_WINDOW_MAX));
  assert_true(udccp_seq_le(c.fs.fgss, gsr));
  assert_true(udccp_seq_le(c.fs.fgsr, gsr));
}

/* §6: no negotiation options on DCCP-Data, in or out; §6.6.1: Confirms only
 * on packets with an Acknowledgement Number. */
static void test_rfc4340_6_no_negotiation_on_data(void **state) {
  static const uint8_t ar4[] = {5, 0, 4};
  udccp_settings s = defaults();
  udccp_opts opts;
  udccp_feat_pkt p;
  ep c;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_write(&c, UDCCP_PKT_DATA);
  assert_int_equal(c.ob.len, 0);
  /* Data with a Change L (the codec drops them already; feat too). */
  memset(&opts, 0, sizeof(opts));
  opts.n_feat = 1;
  opts.feat[0].type = UDCCP_OPT_CHANGE_L;
  opts.feat[0].len = 3;
  opts.feat[0].val = ar4;
  memset(&p, 0, sizeof(p));
  p.type = UDCCP_PKT_DATA;
  p.seq = p.gsr = 50;
  assert_int_equal(udccp_feat_read(&c.fs, &opts, &p, &c.reset_code,
                                   c.reset_data),
                   0);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_ACK_RATIO), 2);
  /* The same on an Ack is processed, and owes a Confirm ... */
  p.type = UDCCP_PKT_ACK;
  p.seq = p.gsr = 51;
  assert_int_equal(udccp_feat_read(&c.fs, &opts, &p, &c.reset_code,
                                   c.reset_data),
                   0);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_ACK_RATIO), 4);
  /* ... which a Request (no Ack Number) cannot carry, nor a Reset ... */
  ep_write(&c, UDCCP_PKT_REQUEST);
  assert_int_equal(count_type(&c.ob, UDCCP_OPT_CONFIRM_R), 0);
  assert_true(count_type(&c.ob, UDCCP_OPT_CHANGE_L) > 0);
  ep_write(&c, UDCCP_PKT_RESET);
  assert_int_equal(c.ob.len, 0);
  /* ... but an Ack does, once. */
  ep_write(&c, UDCCP_PKT_ACK);
  assert_int_equal(count_type(&c.ob, UDCCP_OPT_CONFIRM_R), 1);
  ep_write(&c, UDCCP_PKT_ACK);
  assert_int_equal(count_type(&c.ob, UDCCP_OPT_CONFIRM_R), 0);
}

/* §10, RFC 4341 §4.1: with CCID 2 the Request asks for Ack Vectors both
 * ways with Mandatory Changes. */
static void test_rfc4340_10_ccid2_dependency_send_ack_vector(void **state) {
  static const uint8_t sav[] = {6, 1};
  udccp_settings s = defaults();
  int mand = 0, off;
  ep c;
  (void)state;
  ep_init(&c, &s, 0, 1000);
  ep_write(&c, UDCCP_PKT_REQUEST);
  off = find_opt(&c.ob, UDCCP_OPT_CHANGE_R, UDCCP_FEAT_SEND_ACK_VECTOR, &mand);
  assert_true(off >= 0);
  assert_true(mand);
  assert_memory_equal(c.ob.buf + off + 2, sav, 2);
  mand = 0;
  off = find_opt(&c.ob, UDCCP_OPT_CHANGE_L, UDCCP_FEAT_SEND_ACK_VECTOR, &mand);
  assert_true(off >= 0);
  assert_true(mand);
  /* CCID 3 has no such need in our table; once the server settles on 2,
   * the dependency follows. */
  s.ccid = 3;
  ep_init(&c, &s, 0, 1000);
  ep_write(&c, UDCCP_PKT_REQUEST);
  assert_int_equal(
      find_opt(&c.ob, UDCCP_OPT_CHANGE_R, UDCCP_FEAT_SEND_ACK_VECTOR, NULL),
      -1);
  {
    /* The server settles both CCIDs on 2 (its list wins, §6.3.1). */
    static const uint8_t conf2[] = {1, 2, 2};
    static const uint8_t conf_sav[] = {6, 1, 1};
    udccp_optbuf ob;
    uint64_t ackseq;
    udccp_optbuf_init(&ob);
    assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, conf2, 3),
                     0);
    assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_L, 0, conf2, 3),
                     0);
    assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_RESPONSE, 9000, 1, 1000), 0);
    assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_CCID), 2);
    assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 2);
    assert_false(udccp_feat_all_confirmed(&c.fs));
    ackseq = c.seq;
    ep_write(&c, UDCCP_PKT_ACK);
    mand = 0;
    off = find_opt(&c.ob, UDCCP_OPT_CHANGE_R, UDCCP_FEAT_SEND_ACK_VECTOR,
                   &mand);
    assert_true(off >= 0);
    assert_true(mand);
    assert_memory_equal(c.ob.buf + off + 2, sav, 2);
    mand = 0;
    off = find_opt(&c.ob, UDCCP_OPT_CHANGE_L, UDCCP_FEAT_SEND_ACK_VECTOR,
                   &mand);
    assert_true(off >= 0);
    assert_true(mand);
    udccp_optbuf_init(&ob);
    assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_L, 0, conf_sav, 3),
                     0);
    assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, conf_sav, 3),
                     0);
    assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_ACK, 9001, 1, ackseq), 0);
    assert_int_equal(
        udccp_feat_get_remote(&c.fs, UDCCP_FEAT_SEND_ACK_VECTOR), 1);
    assert_int_equal(
        udccp_feat_get_local(&c.fs, UDCCP_FEAT_SEND_ACK_VECTOR), 1);
  }
}

/* §10: an NN value a CCID depends on is negotiated by the location (the
 * sender's Ack Ratio), but never overrides a value the settings asked for. */
static void test_rfc4340_10_nn_dependency(void **state) {
  static const uint8_t ar0[] = {32, 5, 5, 0, 0}, ar4[] = {32, 5, 5, 0, 4};
  udccp_settings s = defaults();
  ep c;
  (void)state;
  s.ccid = 3;
  ep_init(&c, &s, 0, 1000);
  ep_write(&c, UDCCP_PKT_REQUEST);
  assert_true(has_bytes(&c.ob, ar0, sizeof(ar0)));
  s = defaults();
  s.ack_ratio = 4;
  ep_init(&c, &s, 0, 1000);
  ep_write(&c, UDCCP_PKT_REQUEST);
  assert_true(has_bytes(&c.ob, ar4, sizeof(ar4)));
  s = defaults();
  ep_init(&c, &s, 0, 1000);
  ep_write(&c, UDCCP_PKT_REQUEST);
  assert_int_equal(find_opt(&c.ob, UDCCP_OPT_CHANGE_L, UDCCP_FEAT_ACK_RATIO,
                            NULL),
                   -1); /* CCID 2 wants the default, 2: nothing to say */
}

/* The Response of a Linux 6.1 server with CCID 2 (kernel-peer/README.md,
 * net/dccp/feat.c): Confirms of our Changes, Change L/R(CCID, 2 3),
 * Mandatory Change L/R(Send Ack Vector, 1), and the Mandatory Change
 * L(Allow Short Seqnos, 0) and L(ECN Incapable, 1) every Linux socket
 * sends.  All accepted; our Ack confirms all of them. */
static void test_linux_ccid2_response_accepted(void **state) {
  static const uint8_t ccid23[] = {1, 2, 3}, conf_ccid[] = {1, 2, 2, 3};
  static const uint8_t sav1[] = {6, 1}, conf_sav[] = {6, 1, 1};
  static const uint8_t ass0[] = {2, 0}, ecn1[] = {4, 1};
  /* Linux confirms our Change L(Sequence Window, 1000) too. */
  static const uint8_t conf_sw[] = {3, 0, 0, 0, 0, 0x03, 0xE8};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep c;
  (void)state;
  client_after_request(&c, &s);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_PADDING, 0, NULL, 0), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, conf_sw, 7),
                   0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_L, 0, conf_ccid, 4),
                   0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, conf_ccid, 4),
                   0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_L, 0, conf_sav, 3),
                   0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CONFIRM_R, 0, conf_sav, 3),
                   0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, ccid23, 3), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 0, ccid23, 3), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, sav1, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 1, sav1, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, ass0, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, ecn1, 2), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_RESPONSE, 777, 1, 1000), 0);
  assert_true(udccp_feat_all_confirmed(&c.fs));
  ep_write(&c, UDCCP_PKT_ACK);
  assert_int_equal(count_type(&c.ob, UDCCP_OPT_CONFIRM_L), 2);
  assert_int_equal(count_type(&c.ob, UDCCP_OPT_CONFIRM_R), 4);
  /* §12.1: the peer cannot read ECN bits; we must not send ECT. */
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_ECN_INCAPABLE), 1);
  assert_int_equal(
      udccp_feat_get_remote(&c.fs, UDCCP_FEAT_ALLOW_SHORT_SEQNOS), 0);
  assert_int_equal(count_type(&c.ob, UDCCP_OPT_CHANGE_L), 0);
  assert_int_equal(count_type(&c.ob, UDCCP_OPT_CHANGE_R), 0);
  {
    static const uint8_t want_l[] = {33, 5, 1, 2, 2};
    static const uint8_t want_sav[] = {35, 5, 6, 1, 1};
    /* We are the client: we confirm 2 with our one-entry list. */
    assert_true(has_bytes(&c.ob, want_l, sizeof(want_l)));
    assert_true(has_bytes(&c.ob, want_sav, sizeof(want_sav)));
  }
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_CCID), 2);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 2);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_SEND_ACK_VECTOR), 1);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_SEND_ACK_VECTOR),
                   1);
}

/* The Linux server with CCID 3 adds Send NDP Count, Send Loss Event Rate,
 * Ack Ratio 0 and Send Ack Vector 0: all accepted. */
static void test_linux_ccid3_response_accepted(void **state) {
  static const uint8_t ccid32[] = {1, 3, 2};
  static const uint8_t snc[] = {7, 1}, sler[] = {192, 1}, ar0[] = {5, 0, 0};
  static const uint8_t sav0[] = {6, 0};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep c;
  (void)state;
  s.ccid = 3;
  ep_init(&c, &s, 0, 1000);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, ccid32, 3), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 0, ccid32, 3), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 0, snc, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, sler, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, ar0, 3), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, sav0, 2), 0);
  assert_int_equal(ep_read(&c, &ob, UDCCP_PKT_RESPONSE, 777, 1, 1000), 0);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_CCID), 3);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID), 3);
  assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_SEND_NDP_COUNT), 1);
  assert_int_equal(
      udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CCID3_SEND_LOSS_EVENT_RATE), 1);
  assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_ACK_RATIO), 0);
  ep_write(&c, UDCCP_PKT_ACK);
  assert_int_equal(count_type(&c.ob, UDCCP_OPT_CONFIRM_R), 4);
  assert_int_equal(count_type(&c.ob, UDCCP_OPT_CONFIRM_L), 2);
}

/* A Linux client's Request (CCID 2 set by socket option, so its
 * dependencies come along): every Change is Confirmed in our Response; of
 * our own we add only Change L(Sequence Window, 1000), which Linux
 * confirms in its Ack (and which, being NN, may settle after the
 * handshake if that Ack is lost, §6.6.3). */
static void test_linux_client_request_all_confirmed(void **state) {
  static const uint8_t ccid23[] = {1, 2, 3}, sav1[] = {6, 1};
  static const uint8_t ass0[] = {2, 0}, ecn1[] = {4, 1};
  udccp_settings s = defaults();
  udccp_optbuf ob;
  ep sv;
  (void)state;
  ep_init(&sv, &s, 1, 5000);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_PADDING, 0, NULL, 0), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 0, ccid23, 3), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 0, ccid23, 3), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, sav1, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_R, 1, sav1, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, ass0, 2), 0);
  assert_int_equal(udccp_optbuf_put(&ob, UDCCP_OPT_CHANGE_L, 1, ecn1, 2), 0);
  assert_int_equal(ep_read(&sv, &ob, UDCCP_PKT_REQUEST, 42, 0, 0), 0);
  assert_false(udccp_feat_all_confirmed(&sv.fs));
  assert_true(udccp_feat_only_nn_pending(&sv.fs));
  ep_write(&sv, UDCCP_PKT_RESPONSE);
  assert_int_equal(count_type(&sv.ob, UDCCP_OPT_CONFIRM_L), 2);
  assert_int_equal(count_type(&sv.ob, UDCCP_OPT_CONFIRM_R), 4);
  assert_int_equal(udccp_feat_get_remote(&sv.fs, UDCCP_FEAT_ECN_INCAPABLE), 1);
  {
    /* As server we list the client's wish first in our Confirm, so that
     * Linux's check of the reconciliation (§6.6.8) agrees. */
    static const uint8_t conf_ecn[] = {35, 6, 4, 1, 1, 0};
    assert_true(has_bytes(&sv.ob, conf_ecn, sizeof(conf_ecn)));
  }
  assert_int_equal(count_type(&sv.ob, UDCCP_OPT_CHANGE_L), 1);
  {
    static const uint8_t chg_sw[] = {32, 9, 3, 0, 0, 0, 0, 0x03, 0xE8};
    assert_true(has_bytes(&sv.ob, chg_sw, sizeof(chg_sw)));
  }
  assert_int_equal(count_type(&sv.ob, UDCCP_OPT_CHANGE_R), 0);
  assert_int_equal(udccp_feat_get_local(&sv.fs, UDCCP_FEAT_SEND_ACK_VECTOR), 1);
}

/* §6.6.1 and Linux: until every Change is Confirmed, all_confirmed says
 * no; settings map to the right Changes. */
static void test_rfc4340_6_settings_changes(void **state) {
  udccp_settings s = defaults();
  int mand = 0;
  ep c;
  (void)state;
  s.send_ndp_count = 1;
  s.check_data_checksum = 1;
  s.min_cscov = 4;
  s.send_cscov = 2;
  ep_init(&c, &s, 0, 1000);
  ep_write(&c, UDCCP_PKT_REQUEST);
  assert_true(find_opt(&c.ob, UDCCP_OPT_CHANGE_R, UDCCP_FEAT_SEND_NDP_COUNT,
                       NULL) >= 0);
  assert_true(find_opt(&c.ob, UDCCP_OPT_CHANGE_R, UDCCP_FEAT_CHECK_DATA_CKSUM,
                       &mand) >= 0);
  assert_true(mand); /* §9.3.1 */
  assert_true(find_opt(&c.ob, UDCCP_OPT_CHANGE_L, UDCCP_FEAT_MIN_CSCOV,
                       NULL) >= 0);
  assert_true(find_opt(&c.ob, UDCCP_OPT_CHANGE_R, UDCCP_FEAT_MIN_CSCOV,
                       NULL) >= 0);
  assert_false(udccp_feat_all_confirmed(&c.fs));
  {
    ep sv;
    udccp_settings ss = defaults();
    ep_init(&sv, &ss, 1, 5000);
    assert_int_equal(ep_read(&sv, &c.ob, UDCCP_PKT_REQUEST, 1000, 0, 0), 0);
    assert_int_equal(xfer(&sv, &c, UDCCP_PKT_RESPONSE), 0);
    assert_true(udccp_feat_all_confirmed(&c.fs));
    assert_int_equal(xfer(&c, &sv, UDCCP_PKT_ACK), 0);
    assert_true(udccp_feat_all_confirmed(&sv.fs));
    assert_agree(&c, &sv);
    assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_SEND_NDP_COUNT),
                     1);
    assert_int_equal(
        udccp_feat_get_remote(&c.fs, UDCCP_FEAT_CHECK_DATA_CKSUM), 1);
    /* The default server accepts only full coverage: its MinCsCov stays 0
     * (first of its list [0] found in ours); ours becomes 4. */
    assert_int_equal(udccp_feat_get_remote(&c.fs, UDCCP_FEAT_MIN_CSCOV), 0);
    assert_int_equal(udccp_feat_get_local(&c.fs, UDCCP_FEAT_MIN_CSCOV), 4);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_6_handshake_converges),
      cmocka_unit_test(test_rfc4340_6_5_sp_server_priority),
      cmocka_unit_test(test_rfc4340_6_6_3_change_retransmitted_until_confirmed),
      cmocka_unit_test(test_rfc4340_6_3_2_nn_ack_ratio_echo),
      cmocka_unit_test(test_rfc4340_7_5_2_seq_window_from_settings),
      cmocka_unit_test(test_rfc4340_6_6_6_simultaneous_negotiation),
      cmocka_unit_test(test_rfc4340_6_6_7_unknown_feature_empty_confirm),
      cmocka_unit_test(test_rfc4340_6_6_9_mandatory_unknown_feature_resets),
      cmocka_unit_test(test_rfc4340_6_6_9_mandatory_no_shared_entry),
      cmocka_unit_test(test_rfc4340_6_6_8_invalid_change_empty_confirm),
      cmocka_unit_test(test_rfc4340_6_6_8_invalid_confirm_resets),
      cmocka_unit_test(test_rfc4340_6_6_4_late_confirm_of_replaced_change),
      cmocka_unit_test(test_rfc4340_6_6_7_empty_confirm),
      cmocka_unit_test(test_rfc4340_6_6_4_reordered_options_ignored),
      cmocka_unit_test(test_rfc4340_6_6_5_unstable_ignores_change),
      cmocka_unit_test(test_rfc4340_6_6_2_confirm_before_change_sent_ignored),
      cmocka_unit_test(test_errata_974_fgsr_fgss_follow_wrap),
      cmocka_unit_test(test_rfc4340_6_6_4_per_feature_fgss),
      cmocka_unit_test(test_rfc4340_6_no_negotiation_on_data),
      cmocka_unit_test(test_rfc4340_10_ccid2_dependency_send_ack_vector),
      cmocka_unit_test(test_rfc4340_10_nn_dependency),
      cmocka_unit_test(test_linux_ccid2_response_accepted),
      cmocka_unit_test(test_linux_ccid3_response_accepted),
      cmocka_unit_test(test_linux_client_request_all_confirmed),
      cmocka_unit_test(test_rfc4340_6_settings_changes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

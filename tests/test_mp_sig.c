/* SPDX-License-Identifier: MIT */
/*
 * MP-DCCP signalling (lib/mp_sig.c): MP_ADDADDR, MP_REMOVEADDR and MP_PRIO
 * with MP_SEQ, repeated until MP_CONFIRM, outdated options, HMACs, Address
 * IDs.  Two signalling objects (host A, host B) exchange options areas
 * built by the code under test; hostile areas are built with
 * udccp_mp_opt_put.  Test names carry the RFC 9897 (draft-25) section.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mp_opt.h"
#include "mp_sig.h"

#define MS UDCCP_NS_PER_MS

static udccp_mp_keys ka, kb; /* A's and B's view of the same keys */

static void keys_init(void) {
  size_t i;
  memset(&ka, 0, sizeof(ka));
  for (i = 0; i < UDCCP_MP_PLAIN_KEY_LEN; i++) {
    ka.local[i] = (uint8_t)(0x10 + i);
    ka.remote[i] = (uint8_t)(0xA0 + i);
  }
  ka.local_ci = 0x11111111;
  ka.remote_ci = 0x22222222;
  memcpy(kb.local, ka.remote, sizeof(kb.local));
  memcpy(kb.remote, ka.local, sizeof(kb.remote));
  kb.local_ci = ka.remote_ci;
  kb.remote_ci = ka.local_ci;
}

static const uint8_t ip_a2[4] = {10, 0, 2, 1};
static const uint8_t ip_a3[4] = {10, 0, 3, 1};

/* The i-th Multipath option of an area (type in *t), or -1 at the end. */
static int nth(const udccp_optbuf *ob, size_t i, udccp_mp_opt *o) {
  size_t pos = 0, k = 0;
  int rv;
  while ((rv = udccp_mp_next(ob->buf, ob->len, &pos, o)) != 2) {
    if (k++ == i) {
      return rv;
    }
  }
  return -1;
}

static int count_type(const udccp_optbuf *ob, uint8_t t) {
  udccp_mp_opt o;
  int n = 0;
  size_t i;
  for (i = 0; nth(ob, i, &o) >= 0; i++) {
    n += o.type == t;
  }
  return n;
}

/* A sends on subflow sub at ts, B reads it; returns B's events. */
static unsigned a_to_b(udccp_mp_sig *a, udccp_mp_sig *b, size_t sub,
                       udccp_tstamp ts, udccp_optbuf *ob) {
  udccp_optbuf_init(ob);
  (void)udccp_mp_sig_write(a, sub, ob, ts);
  return udccp_mp_sig_read(b, &kb, sub, ob->buf, ob->len);
}

static unsigned b_to_a(udccp_mp_sig *b, udccp_mp_sig *a, size_t sub,
                       udccp_tstamp ts, udccp_optbuf *ob) {
  udccp_optbuf_init(ob);
  (void)udccp_mp_sig_write(b, sub, ob, ts);
  return udccp_mp_sig_read(a, &ka, sub, ob->buf, ob->len);
}

static void put_seq(udccp_optbuf *ob, uint64_t seq) {
  udccp_mp_opt o;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_SEQ;
  o.u.seq = seq;
  assert_int_equal(udccp_mp_opt_put(ob, &o), 0);
}

static void put_prio(udccp_optbuf *ob, uint8_t prio) {
  udccp_mp_opt o;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_PRIO;
  o.u.prio = prio;
  assert_int_equal(udccp_mp_opt_put(ob, &o), 0);
}

/* MP_ADDADDR for id/addr from A (keys k) with its MP_HMAC. */
static void put_addaddr(udccp_optbuf *ob, const udccp_mp_keys *k, uint8_t id,
                        const uint8_t *addr) {
  udccp_mp_opt o, h;
  memset(&o, 0, sizeof(o));
  o.type = UDCCP_MP_ADDADDR;
  o.u.addaddr.addr_id = id;
  o.u.addaddr.family = UDCCP_AF_INET;
  o.u.addaddr.nonce = 0x5eed;
  memcpy(o.u.addaddr.addr, addr, 4);
  assert_int_equal(udccp_mp_opt_put(ob, &o), 0);
  memset(&h, 0, sizeof(h));
  h.type = UDCCP_MP_HMAC;
  assert_int_equal(udccp_mp_hmac_addaddr(k, 0, &o, h.u.hmac), 0);
  assert_int_equal(udccp_mp_opt_put(ob, &h), 0);
}

static void setup_pair(udccp_mp_sig *a, udccp_mp_sig *b) {
  keys_init();
  udccp_mp_sig_init(a, 100 * MS);
  udccp_mp_sig_init(b, 100 * MS);
}

/* §3.2.1: options requiring confirmation "MUST be sent in a DCCP
 * datagram with MP_SEQ"; §3.2.8 "Along with the MP_ADDADDR option an
 * MP_HMAC option MUST be sent"; §3.2.10 the same for MP_PRIO. */
static void test_mp_sig_3_2_1_signals_sent_with_mp_seq_and_hmac(void **st) {
  udccp_mp_sig a, b;
  udccp_optbuf ob;
  udccp_mp_opt o;
  int id;
  (void)st;
  setup_pair(&a, &b);
  a.seq_now = 1234;
  id = udccp_mp_sig_local_id(&a, UDCCP_AF_INET, ip_a2, 0, 0);
  assert_true(id >= 0);
  assert_int_equal(udccp_mp_sig_announce(&a, &ka, (uint8_t)id, 7), 0);
  assert_int_equal(udccp_mp_sig_prio(&a, 0, UDCCP_MP_PRIO_STANDBY), 0);
  assert_true(udccp_mp_sig_due(&a, 0, 0));
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_mp_sig_write(&a, 0, &ob, 0), 2);
  assert_int_equal(count_type(&ob, UDCCP_MP_SEQ), 1);
  assert_int_equal(count_type(&ob, UDCCP_MP_ADDADDR), 1);
  assert_int_equal(count_type(&ob, UDCCP_MP_PRIO), 1);
  /* The MP_HMAC directly after the MP_ADDADDR. */
  assert_int_equal(nth(&ob, 0, &o), 0);
  assert_int_equal(o.type, UDCCP_MP_ADDADDR);
  assert_int_equal(nth(&ob, 1, &o), 0);
  assert_int_equal(o.type, UDCCP_MP_HMAC);
  assert_int_equal(nth(&ob, 3, &o), 0);
  assert_int_equal(o.type, UDCCP_MP_SEQ);
  assert_int_equal(o.u.seq, 1234);
  assert_int_equal(udccp_mp_sig_read(&b, &kb, 0, ob.buf, ob.len) &
                       (UDCCP_MP_SIG_EV_ADDR | UDCCP_MP_SIG_EV_PRIO),
                   UDCCP_MP_SIG_EV_ADDR | UDCCP_MP_SIG_EV_PRIO);
  assert_non_null(udccp_mp_sig_peer_addr(&b, (uint8_t)id));
  assert_int_equal(udccp_mp_sig_peer_prio(&b, 0), UDCCP_MP_PRIO_STANDBY);
  /* MP_PRIO is for the subflow it is sent on: not on subflow 1. */
  assert_int_equal(udccp_mp_sig_peer_prio(&b, 1), -1);
}

/* §3.2.1: "Such options will be retransmitted by the sender until an
 * MP_CONFIRM is received"; §3.2.10 "the MP_PRIO suboption MUST be
 * acknowledged via an MP_CONFIRM"; §3.2.8/§3.2.9 likewise. */
static void test_mp_sig_3_2_1_repeated_until_confirmed(void **st) {
  udccp_mp_sig a, b;
  udccp_optbuf ob;
  unsigned ev;
  int id;
  (void)st;
  setup_pair(&a, &b);
  id = udccp_mp_sig_local_id(&a, UDCCP_AF_INET, ip_a2, 0, 0);
  assert_int_equal(udccp_mp_sig_announce(&a, &ka, (uint8_t)id, 7), 0);
  assert_int_equal(udccp_mp_sig_prio(&a, 1, 2), 0);
  /* Lost: nothing reaches B. */
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_mp_sig_write(&a, 1, &ob, 0), 2);
  assert_false(udccp_mp_sig_due(&a, 1, 50 * MS));
  assert_int_equal(udccp_mp_sig_expiry(&a), 100 * MS);
  assert_true(udccp_mp_sig_due(&a, 1, 100 * MS));
  /* The repeat arrives: B owes an MP_CONFIRM. */
  ev = a_to_b(&a, &b, 1, 100 * MS, &ob);
  assert_true(ev & UDCCP_MP_SIG_EV_CONFIRM);
  assert_int_equal(a.st.tx_repeats, 2);
  assert_true(udccp_mp_sig_due(&b, 0, 100 * MS));
  /* B's MP_CONFIRM on any path (subflow 0) clears both. */
  ev = b_to_a(&b, &a, 0, 110 * MS, &ob);
  assert_int_equal(count_type(&ob, UDCCP_MP_CONFIRM), 1);
  assert_true(ev & UDCCP_MP_SIG_EV_CONFIRMED);
  assert_int_equal(udccp_mp_sig_unconfirmed(&a), 0);
  assert_int_equal(udccp_mp_sig_expiry(&a), UDCCP_TSTAMP_NEVER);
  assert_false(udccp_mp_sig_due(&a, 1, 10000 * MS));
  assert_false(udccp_mp_sig_due(&b, 0, 10000 * MS));
}

/* §3.2.1: "The associated MP_SEQ received MUST be echoed"; "The order of
 * the confirmed multipath options in the list of confirmations MUST
 * reflect the incoming order ... with the most recent suboption received
 * listed first" (MP_SEQ_2 + MP_ADDADDR + MP_SEQ_1 + MP_PRIO); options
 * copied verbatim. */
static void test_mp_sig_3_2_1_confirm_echoes_seq_most_recent_first(
    void **st) {
  udccp_mp_sig a, b;
  udccp_optbuf in1, in2, out;
  udccp_mp_opt c, o;
  uint64_t seq;
  size_t pos = 0;
  (void)st;
  setup_pair(&a, &b);
  udccp_optbuf_init(&in1);
  put_prio(&in1, 4);
  put_seq(&in1, 100);
  udccp_optbuf_init(&in2);
  put_addaddr(&in2, &ka, 2, ip_a2);
  put_seq(&in2, 101);
  (void)udccp_mp_sig_read(&b, &kb, 0, in1.buf, in1.len);
  (void)udccp_mp_sig_read(&b, &kb, 0, in2.buf, in2.len);
  udccp_optbuf_init(&out);
  assert_int_equal(udccp_mp_sig_write(&b, 0, &out, 0), 1);
  assert_int_equal(nth(&out, 0, &c), 0);
  assert_int_equal(c.type, UDCCP_MP_CONFIRM);
  assert_int_equal(udccp_mp_confirm_next(c.u.confirm.list,
                                         c.u.confirm.list_len, &pos, &seq,
                                         &o),
                   1);
  assert_int_equal(seq, 101);
  assert_int_equal(o.type, UDCCP_MP_ADDADDR);
  assert_memory_equal(o.raw, in2.buf, o.len); /* verbatim */
  assert_int_equal(udccp_mp_confirm_next(c.u.confirm.list,
                                         c.u.confirm.list_len, &pos, &seq,
                                         &o),
                   1);
  assert_int_equal(seq, 100);
  assert_int_equal(o.type, UDCCP_MP_PRIO);
  assert_int_equal(udccp_mp_confirm_next(c.u.confirm.list,
                                         c.u.confirm.list_len, &pos, &seq,
                                         &o),
                   0);
}

/* §3.2.1 (the MP_PRIO 0, 1, 0 example): an MP_CONFIRM echoing an older
 * MP_SEQ does not confirm a newer option with the same bytes; a newer
 * MP_PRIO replaces an unconfirmed one. */
static void test_mp_sig_3_2_1_old_echo_does_not_confirm_newer(void **st) {
  udccp_mp_sig a, b;
  udccp_optbuf p1, p2, p3, conf1;
  (void)st;
  setup_pair(&a, &b);
  a.seq_now = 10;
  assert_int_equal(udccp_mp_sig_prio(&a, 0, 0), 0);
  (void)a_to_b(&a, &b, 0, 0, &p1);
  /* B confirms (seq 10); that MP_CONFIRM is delayed. */
  udccp_optbuf_init(&conf1);
  (void)udccp_mp_sig_write(&b, 0, &conf1, 0);
  a.seq_now = 20;
  assert_int_equal(udccp_mp_sig_prio(&a, 0, 1), 0);
  udccp_optbuf_init(&p2);
  (void)udccp_mp_sig_write(&a, 0, &p2, 1 * MS); /* lost */
  a.seq_now = 30;
  assert_int_equal(udccp_mp_sig_prio(&a, 0, 0), 0);
  assert_int_equal(udccp_mp_sig_unconfirmed(&a), 1); /* replaced */
  udccp_optbuf_init(&p3);
  (void)udccp_mp_sig_write(&a, 0, &p3, 2 * MS); /* lost */
  /* The late echo of MP_PRIO(0) at seq 10 must not confirm the third. */
  (void)udccp_mp_sig_read(&a, &ka, 0, conf1.buf, conf1.len);
  assert_int_equal(udccp_mp_sig_unconfirmed(&a), 1);
  /* The repeat gets through and is confirmed. */
  (void)a_to_b(&a, &b, 0, 200 * MS, &p3);
  assert_int_equal(udccp_mp_sig_peer_prio(&b, 0), 0);
  (void)b_to_a(&b, &a, 0, 210 * MS, &conf1);
  assert_int_equal(udccp_mp_sig_unconfirmed(&a), 0);
}

/* §3.2.1: "An outdated multipath option is detected at the receiver if a
 * previous multipath option referring to the same dataset contained a
 * higher sequence number in the MP_SEQ" (the MP_PRIO(4) / MP_PRIO(1)
 * example: the late MP_PRIO(4) is ignored). */
static void test_mp_sig_3_2_1_outdated_option_ignored(void **st) {
  udccp_mp_sig a, b;
  udccp_optbuf late, now;
  (void)st;
  setup_pair(&a, &b);
  udccp_optbuf_init(&late);
  put_prio(&late, 4);
  put_seq(&late, 1);
  udccp_optbuf_init(&now);
  put_prio(&now, 1);
  put_seq(&now, 2);
  assert_true(udccp_mp_sig_read(&b, &kb, 0, now.buf, now.len) &
              UDCCP_MP_SIG_EV_PRIO);
  assert_int_equal(udccp_mp_sig_read(&b, &kb, 0, late.buf, late.len), 0);
  assert_int_equal(udccp_mp_sig_peer_prio(&b, 0), 1);
  assert_int_equal(b.st.rx_outdated, 1);
  /* Address IDs are datasets too: a late MP_ADDADDR after its
   * MP_REMOVEADDR does not bring the address back. */
  udccp_optbuf_init(&late);
  put_addaddr(&late, &ka, 5, ip_a3);
  put_seq(&late, 40);
  assert_true(udccp_mp_sig_read(&b, &kb, 0, late.buf, late.len) &
              UDCCP_MP_SIG_EV_ADDR);
  {
    udccp_mp_opt o, h;
    udccp_optbuf rm;
    udccp_optbuf_init(&rm);
    memset(&o, 0, sizeof(o));
    o.type = UDCCP_MP_REMOVEADDR;
    o.u.removeaddr.addr_id = 5;
    o.u.removeaddr.nonce = 9;
    assert_int_equal(udccp_mp_opt_put(&rm, &o), 0);
    memset(&h, 0, sizeof(h));
    h.type = UDCCP_MP_HMAC;
    assert_int_equal(udccp_mp_hmac_removeaddr(&ka, 0, 5, 9, h.u.hmac), 0);
    assert_int_equal(udccp_mp_opt_put(&rm, &h), 0);
    put_seq(&rm, 50);
    assert_true(udccp_mp_sig_read(&b, &kb, 0, rm.buf, rm.len) &
                UDCCP_MP_SIG_EV_ADDR);
  }
  assert_null(udccp_mp_sig_peer_addr(&b, 5));
  assert_int_equal(udccp_mp_sig_read(&b, &kb, 0, late.buf, late.len), 0);
  assert_null(udccp_mp_sig_peer_addr(&b, 5));
}

/* §3.2.1: a signal without MP_SEQ cannot be ordered (its sender broke the
 * MUST): not applied. */
static void test_mp_sig_3_2_1_without_mp_seq_ignored(void **st) {
  udccp_mp_sig a, b;
  udccp_optbuf ob;
  (void)st;
  setup_pair(&a, &b);
  udccp_optbuf_init(&ob);
  put_prio(&ob, 7);
  assert_int_equal(udccp_mp_sig_read(&b, &kb, 0, ob.buf, ob.len), 0);
  assert_int_equal(udccp_mp_sig_peer_prio(&b, 0), -1);
  assert_int_equal(b.st.rx_no_seq, 1);
}

/* §3.2.8: "If a host receives an MP_ADDADDR option for which it cannot
 * validate the HMAC, it MUST silently ignore the option" (no address, no
 * MP_CONFIRM); an MP_ADDADDR without MP_HMAC is the same. */
static void test_mp_sig_3_2_8_addaddr_bad_hmac_silently_ignored(void **st) {
  udccp_mp_sig a, b;
  udccp_optbuf ob;
  udccp_mp_keys wrong = ka;
  (void)st;
  setup_pair(&a, &b);
  wrong.local[0] ^= 1;
  udccp_optbuf_init(&ob);
  put_addaddr(&ob, &wrong, 2, ip_a2);
  put_seq(&ob, 1);
  assert_int_equal(udccp_mp_sig_read(&b, &kb, 0, ob.buf, ob.len), 0);
  assert_null(udccp_mp_sig_peer_addr(&b, 2));
  assert_false(udccp_mp_sig_due(&b, 0, 0));
  /* Without the MP_HMAC at all. */
  udccp_optbuf_init(&ob);
  put_addaddr(&ob, &ka, 2, ip_a2);
  ob.len -= 23; /* drop the MP_HMAC */
  put_seq(&ob, 2);
  assert_int_equal(udccp_mp_sig_read(&b, &kb, 0, ob.buf, ob.len), 0);
  assert_null(udccp_mp_sig_peer_addr(&b, 2));
  assert_int_equal(b.st.rx_bad_hmac, 2);
  /* The right one is taken. */
  udccp_optbuf_init(&ob);
  put_addaddr(&ob, &ka, 2, ip_a2);
  put_seq(&ob, 3);
  assert_true(udccp_mp_sig_read(&b, &kb, 0, ob.buf, ob.len) &
              UDCCP_MP_SIG_EV_ADDR);
  assert_non_null(udccp_mp_sig_peer_addr(&b, 2));
}

/* §3.2.9: "If a host receives an MP_REMOVEADDR option for which it cannot
 * validate the HMAC, it MUST silently ignore the option." */
static void test_mp_sig_3_2_9_removeaddr_bad_hmac_silently_ignored(
    void **st) {
  udccp_mp_sig a, b;
  udccp_optbuf ob;
  int id;
  (void)st;
  setup_pair(&a, &b);
  id = udccp_mp_sig_local_id(&a, UDCCP_AF_INET, ip_a2, 0, 0);
  assert_int_equal(udccp_mp_sig_announce(&a, &ka, (uint8_t)id, 1), 0);
  (void)a_to_b(&a, &b, 0, 0, &ob);
  (void)b_to_a(&b, &a, 0, 0, &ob);
  assert_non_null(udccp_mp_sig_peer_addr(&b, (uint8_t)id));
  assert_int_equal(udccp_mp_sig_remove(&a, &ka, (uint8_t)id, 2), 0);
  udccp_optbuf_init(&ob);
  assert_int_equal(udccp_mp_sig_write(&a, 0, &ob, 0), 1);
  ob.buf[ob.len - 9 - 3] ^= 0x40; /* a bit of the MP_HMAC */
  assert_int_equal(udccp_mp_sig_read(&b, &kb, 0, ob.buf, ob.len), 0);
  assert_non_null(udccp_mp_sig_peer_addr(&b, (uint8_t)id));
  assert_int_equal(b.st.rx_bad_hmac, 1);
  /* The repeat, intact, removes it; the ID stays taken at A until the
   * MP_CONFIRM (§3.2.9: "the sender releases the address ID only after
   * MP_REMOVEADDR has been confirmed"). */
  (void)a_to_b(&a, &b, 0, 100 * MS, &ob);
  assert_null(udccp_mp_sig_peer_addr(&b, (uint8_t)id));
  assert_int_equal(udccp_mp_sig_local_id(&a, UDCCP_AF_INET, ip_a3, 0, 0) ==
                       id,
                   0);
  (void)b_to_a(&b, &a, 0, 100 * MS, &ob);
  assert_int_equal(udccp_mp_sig_unconfirmed(&a), 0);
}

/* §3.2.8: "The Address ID MUST uniquely identify the address for the
 * sender of the option (within the scope of the connection)": one
 * address keeps its ID, two addresses never share one. */
static void test_mp_sig_3_2_8_address_ids_unique(void **st) {
  udccp_mp_sig a, b;
  uint8_t addr[4] = {192, 0, 2, 0};
  int ids[UDCCP_MP_SIG_ADDRS];
  size_t i, j;
  (void)st;
  setup_pair(&a, &b);
  for (i = 0; i < UDCCP_MP_SIG_ADDRS; i++) {
    addr[3] = (uint8_t)(i + 1);
    ids[i] = udccp_mp_sig_local_id(&a, UDCCP_AF_INET, addr, 0, 0);
    assert_true(ids[i] >= 0);
    assert_int_equal(udccp_mp_sig_local_id(&a, UDCCP_AF_INET, addr, 0, 0),
                     ids[i]);
    for (j = 0; j < i; j++) {
      assert_int_not_equal(ids[i], ids[j]);
    }
  }
  addr[3] = 200;
  assert_int_equal(udccp_mp_sig_local_id(&a, UDCCP_AF_INET, addr, 0, 0),
                   UDCCP_ERR_NOBUF);
}

/* §3.2.8: "The receiver MUST silently ignore the MP_ADDADDR if the IP
 * Address is not the same as that previously assigned to this Address
 * ID"; "The advertisement of broadcast or multicast IP addresses MUST be
 * ignored". */
static void test_mp_sig_3_2_8_reused_id_and_multicast_ignored(void **st) {
  udccp_mp_sig a, b;
  udccp_optbuf ob;
  const udccp_mp_addr *pa;
  static const uint8_t mcast[4] = {239, 1, 2, 3};
  static const uint8_t bcast[4] = {255, 255, 255, 255};
  (void)st;
  setup_pair(&a, &b);
  udccp_optbuf_init(&ob);
  put_addaddr(&ob, &ka, 2, ip_a2);
  put_seq(&ob, 1);
  (void)udccp_mp_sig_read(&b, &kb, 0, ob.buf, ob.len);
  udccp_optbuf_init(&ob);
  put_addaddr(&ob, &ka, 2, ip_a3);
  put_seq(&ob, 2);
  assert_int_equal(udccp_mp_sig_read(&b, &kb, 0, ob.buf, ob.len), 0);
  pa = udccp_mp_sig_peer_addr(&b, 2);
  assert_non_null(pa);
  assert_memory_equal(pa->addr, ip_a2, 4);
  udccp_optbuf_init(&ob);
  put_addaddr(&ob, &ka, 3, mcast);
  put_addaddr(&ob, &ka, 4, bcast);
  put_seq(&ob, 3);
  assert_int_equal(udccp_mp_sig_read(&b, &kb, 0, ob.buf, ob.len), 0);
  assert_null(udccp_mp_sig_peer_addr(&b, 3));
  assert_null(udccp_mp_sig_peer_addr(&b, 4));
  assert_int_equal(b.st.rx_bad_addr, 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mp_sig_3_2_1_signals_sent_with_mp_seq_and_hmac),
      cmocka_unit_test(test_mp_sig_3_2_1_repeated_until_confirmed),
      cmocka_unit_test(
          test_mp_sig_3_2_1_confirm_echoes_seq_most_recent_first),
      cmocka_unit_test(test_mp_sig_3_2_1_old_echo_does_not_confirm_newer),
      cmocka_unit_test(test_mp_sig_3_2_1_outdated_option_ignored),
      cmocka_unit_test(test_mp_sig_3_2_1_without_mp_seq_ignored),
      cmocka_unit_test(test_mp_sig_3_2_8_addaddr_bad_hmac_silently_ignored),
      cmocka_unit_test(
          test_mp_sig_3_2_9_removeaddr_bad_hmac_silently_ignored),
      cmocka_unit_test(test_mp_sig_3_2_8_address_ids_unique),
      cmocka_unit_test(test_mp_sig_3_2_8_reused_id_and_multicast_ignored),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

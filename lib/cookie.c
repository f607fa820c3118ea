/* SPDX-License-Identifier: MIT */
/*
 * Init Cookies (RFC 4340 §8.1.4); the format is described in cookie.h.
 */
#include <string.h>

#include "cookie.h"
#include "be.h"
#include "siphash.h"

#define SEQ48_MAX 0xFFFFFFFFFFFFULL
/* path encoding: family, local address, remote address, two DCCP ports,
 * the remote UDP port of DCCP-UDP (0 for native DCCP) */
#define PATH_ENC_LEN (1 + 16 + 16 + 2 + 2 + 2)

#if UDCCP_COOKIE_OVERHEAD + UDCCP_COOKIE_FEAT_MAX > UDCCP_COOKIE_MAX_LEN
#error "an Init Cookie must fit in one option (RFC 4340 §8.1.4)"
#endif

static void draw_secret(udccp_cookie_jar *jar, uint8_t *secret) {
  jar->rand(secret, UDCCP_COOKIE_SECRET_LEN, jar->rand_user_data);
}

int udccp_cookie_jar_init(udccp_cookie_jar *jar, udccp_rand_cb rand,
                          void *rand_user_data, udccp_tstamp lifetime,
                          udccp_tstamp ts) {
  memset(jar, 0, sizeof(*jar));
  if (rand == NULL) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  jar->rand = rand;
  jar->rand_user_data = rand_user_data;
  jar->lifetime = lifetime ? lifetime : UDCCP_COOKIE_DEFAULT_LIFETIME;
  /* 2 * lifetime bounds a cookie's age: keep it from overflowing. */
  if (jar->lifetime > UINT64_MAX / 2) {
    jar->lifetime = UINT64_MAX / 2;
  }
  jar->rotated_at = ts;
  jar->epoch = 0;
  jar->have_prev = 0;
  draw_secret(jar, jar->secret[0]);
  /* No key slot is ever left predictable (all zero), even unused. */
  draw_secret(jar, jar->secret[1]);
  return 0;
}

void udccp_cookie_jar_clear(udccp_cookie_jar *jar) {
  /* volatile so that the wipe is not optimised away as a dead store. */
  volatile uint8_t *p = (volatile uint8_t *)jar->secret;
  size_t i;

  for (i = 0; i < sizeof(jar->secret); i++) {
    p[i] = 0;
  }
  jar->have_prev = 0;
}

void udccp_cookie_jar_tick(udccp_cookie_jar *jar, udccp_tstamp ts) {
  uint64_t n;

  if (jar->rand == NULL || ts < jar->rotated_at ||
      ts - jar->rotated_at < jar->lifetime) {
    return;
  }
  n = (ts - jar->rotated_at) / jar->lifetime;
  jar->epoch += n;
  jar->rotated_at += n * jar->lifetime;
  draw_secret(jar, jar->secret[jar->epoch & 1]);
  if (n == 1) {
    jar->have_prev = 1;
  } else {
    /* The secret before was current two or more lifetimes ago: every
     * cookie it made is too old now, so it must not verify anything. */
    draw_secret(jar, jar->secret[(jar->epoch - 1) & 1]);
    jar->have_prev = 0;
  }
}

static void encode_path(uint8_t *p, const udccp_path *path) {
  /* Only the bytes the family uses: IPv4 addresses might come with
   * garbage after their first 4 bytes. */
  size_t alen = path->family == UDCCP_AF_INET ? 4 : 16;

  memset(p, 0, PATH_ENC_LEN);
  p[0] = path->family;
  memcpy(p + 1, path->local_addr, alen);
  memcpy(p + 17, path->remote_addr, alen);
  put_be(p + 33, path->local_port, 2);
  put_be(p + 35, path->remote_port, 2);
  /* RFC 6773 §3.5: over DCCP-UDP the UDP ports name the connection too.
   * Without them in the MAC, one cookie Ack replayed from many UDP source
   * ports would make as many connections. */
  put_be(p + 37, path->encap_port, 2);
}

/* MAC of path || body[0..body_len) under secret. */
static uint64_t cookie_mac(const uint8_t *secret, const udccp_path *path,
                           const uint8_t *body, size_t body_len) {
  uint8_t buf[PATH_ENC_LEN + UDCCP_COOKIE_MAX_LEN];

  encode_path(buf, path);
  memcpy(buf + PATH_ENC_LEN, body, body_len);
  return udccp_siphash24(secret, buf, PATH_ENC_LEN + body_len);
}

udccp_ssize udccp_cookie_make(udccp_cookie_jar *jar, const udccp_path *path,
                              const udccp_cookie_state *st, uint8_t *out,
                              size_t cap, udccp_tstamp ts) {
  size_t body_len, len;

  if (jar->rand == NULL || st->feat_len > UDCCP_COOKIE_FEAT_MAX ||
      st->isr > SEQ48_MAX || st->iss > SEQ48_MAX) {
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  body_len = UDCCP_COOKIE_HDR_LEN + st->feat_len;
  len = body_len + UDCCP_COOKIE_MAC_LEN;
  if (cap < len) {
    return UDCCP_ERR_NOBUF;
  }
  udccp_cookie_jar_tick(jar, ts);
  out[0] = UDCCP_COOKIE_VERSION;
  out[1] = (uint8_t)jar->epoch;
  put_be(out + 2, ts, 8);
  put_be(out + 10, st->isr, 6);
  put_be(out + 16, st->iss, 6);
  put_be(out + 22, st->service_code, 4);
  out[26] = st->feat_len;
  memcpy(out + UDCCP_COOKIE_HDR_LEN, st->feat, st->feat_len);
  put_be(out + body_len,
         cookie_mac(jar->secret[jar->epoch & 1], path, out, body_len),
         UDCCP_COOKIE_MAC_LEN);
  return (udccp_ssize)len;
}

/* Compares n bytes in time that depends on n only, so that a forger cannot
 * learn from response timing how many MAC bytes were right. */
static int ct_equal(const uint8_t *a, const uint8_t *b, size_t n) {
  volatile uint8_t diff = 0;
  size_t i;

  for (i = 0; i < n; i++) {
    diff |= (uint8_t)(a[i] ^ b[i]);
  }
  return diff == 0;
}

int udccp_cookie_open(udccp_cookie_jar *jar, const udccp_path *path,
                      const uint8_t *cookie, size_t len,
                      udccp_cookie_state *st, udccp_tstamp ts) {
  const uint8_t *secret;
  uint8_t mac[UDCCP_COOKIE_MAC_LEN];
  size_t body_len, feat_len;
  udccp_tstamp made;

  if (jar->rand == NULL || cookie == NULL || len < UDCCP_COOKIE_OVERHEAD ||
      len > UDCCP_COOKIE_MAX_LEN || cookie[0] != UDCCP_COOKIE_VERSION) {
    return UDCCP_ERR_COOKIE;
  }
  feat_len = cookie[26];
  if (feat_len > UDCCP_COOKIE_FEAT_MAX ||
      len != UDCCP_COOKIE_OVERHEAD + feat_len) {
    return UDCCP_ERR_COOKIE;
  }
  udccp_cookie_jar_tick(jar, ts);
  if (cookie[1] == (uint8_t)jar->epoch) {
    secret = jar->secret[jar->epoch & 1];
    st->epoch = jar->epoch;
  } else if (jar->have_prev && cookie[1] == (uint8_t)(jar->epoch - 1)) {
    secret = jar->secret[(jar->epoch - 1) & 1];
    st->epoch = jar->epoch - 1;
  } else {
    return UDCCP_ERR_COOKIE;
  }
  body_len = len - UDCCP_COOKIE_MAC_LEN;
  put_be(mac, cookie_mac(secret, path, cookie, body_len), sizeof(mac));
  if (!ct_equal(mac, cookie + body_len, sizeof(mac))) {
    return UDCCP_ERR_COOKIE;
  }
  /* Authentic; the epoch check already bounds the age to under two
   * lifetimes, the timestamp makes the bound exact. */
  made = get_be(cookie + 2, 8);
  if (made > ts || ts - made > 2 * jar->lifetime) {
    return UDCCP_ERR_COOKIE;
  }
  st->made = made;
  st->mac = get_be(cookie + body_len, UDCCP_COOKIE_MAC_LEN);
  st->isr = get_be(cookie + 10, 6);
  st->iss = get_be(cookie + 16, 6);
  st->service_code = (uint32_t)get_be(cookie + 22, 4);
  st->feat_len = (uint8_t)feat_len;
  memcpy(st->feat, cookie + UDCCP_COOKIE_HDR_LEN, feat_len);
  return 0;
}

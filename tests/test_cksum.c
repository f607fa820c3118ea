/* SPDX-License-Identifier: MIT */
/*
 * Checksums: the header checksum over IPv4/IPv6 pseudo-headers with CsCov
 * (RFC 4340 §9.1, §9.2) and CRC-32c (§9.3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cksum.h"
#include "pkt.h"
#include "pktbuild.h"

static udccp_path p4, p6;   /* 10.0.0.1:1 -> 10.0.0.2:2, fe80::1 -> fe80::2 */
static udccp_path p4r, p6r; /* the receiver's views */

static int setup(void **state) {
  (void)state;
  udccp_tb_path4(&p4, "10.0.0.1", 1, "10.0.0.2", 2);
  udccp_tb_path6(&p6, "fe80::1", 1, "fe80::2", 2);
  udccp_tb_path_flip(&p4r, &p4);
  udccp_tb_path_flip(&p6r, &p6);
  return 0;
}

/* A Request, seq 1, Service Code 100, with n payload bytes. */
#define request(buf, path, pl, n, cscov) \
  request_cap(buf, sizeof(buf), path, pl, n, cscov)
static size_t request_cap(uint8_t *buf, size_t cap, const udccp_path *path,
                          const uint8_t *pl, size_t n, uint8_t cscov) {
  udccp_ssize len;
  udccp_tb_pkt p;
  udccp_tb_pkt_init(&p, UDCCP_PKT_REQUEST, 1, 0);
  p.service_code = 100;
  p.payload = pl;
  p.payload_len = n;
  p.cscov = cscov;
  p.no_cksum = 1;
  len = udccp_tb_encode(buf, cap, path, &p);
  assert_true(len > 0);
  return (size_t)len;
}

/* Worked by hand.  Packet words (checksum as 0):
 *   0001 0002 0500 [0000] 0100 0000 0000 0001 0000 0064  -> 0x0668
 * IPv4 pseudo-header 10.0.0.1, 10.0.0.2, 0x00 33, length 20:
 *   0A00 0001 0A00 0002 0021 0014                        -> 0x1438
 * sum 0x1AA0, complement 0xE55F.  With one payload byte 0xAB (length 21,
 * padded to the word AB00): 0x0668 + 0xAB00 + 0x1439 = 0xC5A1 -> 0x3A5E. */
static void test_rfc4340_9_1_ipv4_checksum_by_hand(void **state) {
  uint8_t buf[256];
  static const uint8_t ab = 0xAB;
  size_t n;
  (void)state;
  n = request(buf, &p4, NULL, 0, 0);
  assert_int_equal(n, 20);
  assert_int_equal(udccp_cksum_compute(buf, n, UDCCP_AF_INET, p4.local_addr,
                                       p4.remote_addr),
                   0xE55F);
  n = request(buf, &p4, &ab, 1, 0);
  assert_int_equal(udccp_cksum_compute(buf, n, UDCCP_AF_INET, p4.local_addr,
                                       p4.remote_addr),
                   0x3A5E);
  /* Stored in network order by udccp_cksum_set. */
  assert_int_equal(udccp_cksum_set(buf, n, &p4), 0);
  assert_int_equal(buf[6], 0x3A);
  assert_int_equal(buf[7], 0x5E);
}

/* IPv6 pseudo-header (RFC 2460 §8.1): fe80::1, fe80::2, 32-bit length 20,
 * 24 zero bits and next header 33:
 *   FE80 0001 FE80 0002 0000 0014 0000 0021 (zeros elsewhere) -> 0x1FD38
 * plus the packet's 0x0668 = 0x203A0, folded 0x03A2, complement 0xFC5D. */
static void test_rfc4340_9_1_ipv6_checksum_by_hand(void **state) {
  uint8_t buf[256];
  size_t n;
  (void)state;
  n = request(buf, &p6, NULL, 0, 0);
  assert_int_equal(udccp_cksum_compute(buf, n, UDCCP_AF_INET6, p6.local_addr,
                                       p6.remote_addr),
                   0xFC5D);
}

/* Straightforward reference: big-endian words, byte by byte. */
static uint16_t ref_cksum(const uint8_t *pkt, size_t len, size_t cov,
                          int v6, const uint8_t *src, const uint8_t *dst) {
  uint8_t ph[40];
  size_t phlen, i;
  uint32_t acc = 0;
  memset(ph, 0, sizeof(ph));
  if (v6) {
    memcpy(ph, src, 16);
    memcpy(ph + 16, dst, 16);
    ph[32] = (uint8_t)(len >> 24);
    ph[33] = (uint8_t)(len >> 16);
    ph[34] = (uint8_t)(len >> 8);
    ph[35] = (uint8_t)len;
    ph[39] = 33;
    phlen = 40;
  } else {
    memcpy(ph, src, 4);
    memcpy(ph + 4, dst, 4);
    ph[9] = 33;
    ph[10] = (uint8_t)(len >> 8);
    ph[11] = (uint8_t)len;
    phlen = 12;
  }
  for (i = 0; i < phlen; i += 2) {
    acc += (uint32_t)(ph[i] << 8 | ph[i + 1]);
  }
  for (i = 0; i < cov; i++) {
    uint8_t b = (i == 6 || i == 7) ? 0 : pkt[i];
    acc += (i % 2 == 0) ? (uint32_t)b << 8 : b;
  }
  while (acc >> 16) {
    acc = (acc & 0xFFFF) + (acc >> 16);
  }
  return (uint16_t)~acc;
}

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

/* The optimised summation equals the reference on random packets of every
 * length parity and coverage, for both families. */
static void test_rfc4340_9_1_checksum_matches_reference(void **state) {
  uint8_t buf[1600], pl[1500];
  uint32_t seed = 1;
  int iter;
  (void)state;
  for (iter = 0; iter < 2000; iter++) {
    size_t plen = lcg(&seed) % 300, i, n;
    uint8_t cscov = (uint8_t)(lcg(&seed) % 16);
    int v6 = iter & 1;
    const udccp_path *path = v6 ? &p6 : &p4;
    udccp_ssize cov;
    if (iter % 97 == 0) {
      plen = 1400 + lcg(&seed) % 100;
    }
    for (i = 0; i < plen; i++) {
      pl[i] = (uint8_t)lcg(&seed);
    }
    if (cscov > 0 && (size_t)(cscov - 1) * 4 > plen) {
      cscov = 0;
    }
    n = request(buf, path, pl, plen, cscov);
    buf[6] = (uint8_t)lcg(&seed); /* the stored value must not matter */
    buf[7] = (uint8_t)lcg(&seed);
    cov = udccp_cksum_coverage(buf, n);
    assert_true(cov > 0);
    assert_int_equal(udccp_cksum_compute(buf, n, path->family,
                                         path->local_addr, path->remote_addr),
                     ref_cksum(buf, n, (size_t)cov, v6, path->local_addr,
                               path->remote_addr));
    assert_int_equal(udccp_cksum_set(buf, n, path), 0);
    assert_int_equal(udccp_cksum_check(buf, n, v6 ? &p6r : &p4r), 0);
  }
}

/* The unrolled summation reads words with memcpy: a packet at any address
 * (offsets 0..7 from an 8-byte boundary) and of any length, hence every
 * remainder of the 128-, 16- and 8-byte steps and every odd tail, sums to
 * the reference, with random bytes in every position. */
static void test_rfc4340_9_1_checksum_any_offset_and_length(void **state) {
  static uint64_t store[1664 / 8];
  uint8_t *base = (uint8_t *)store, pl[1500];
  uint32_t seed = 7;
  int iter;
  (void)state;
  for (iter = 0; iter < 3000; iter++) {
    size_t off = (size_t)iter % 8, plen, i, n;
    int v6 = (iter / 8) & 1;
    const udccp_path *path = v6 ? &p6 : &p4;
    uint8_t *buf = base + off;
    /* every length below 300, then random ones up to 1500 */
    plen = iter < 2400 ? (size_t)iter / 8 : lcg(&seed) % 1501;
    for (i = 0; i < plen; i++) {
      pl[i] = (uint8_t)lcg(&seed);
    }
    n = request_cap(buf, sizeof(store) - off, path, pl, plen, 0);
    buf[6] = (uint8_t)lcg(&seed);
    buf[7] = (uint8_t)lcg(&seed);
    assert_int_equal(udccp_cksum_compute(buf, n, path->family,
                                         path->local_addr, path->remote_addr),
                     ref_cksum(buf, n, n, v6, path->local_addr,
                               path->remote_addr));
    assert_int_equal(udccp_cksum_set(buf, n, path), 0);
    assert_int_equal(udccp_cksum_check(buf, n, v6 ? &p6r : &p4r), 0);
    /* one flipped bit anywhere is caught (bytes 4 and 5, Data Offset and
     * CsCov, may make the packet malformed instead: the checksum field
     * stands in for them) */
    i = lcg(&seed) % n;
    i = (i == 4 || i == 5) ? 6 : i;
    buf[i] ^= (uint8_t)(1u << (lcg(&seed) % 8));
    assert_int_equal(udccp_cksum_check(buf, n, v6 ? &p6r : &p4r),
                     UDCCP_ERR_CHECKSUM);
  }
}

/* The 64-bit summation carries out of every word on payloads of all ones
 * (and near it): every length, hence every tail and loop remainder, still
 * equals the reference (RFC 1071 end-around carry). */
static void test_rfc4340_9_1_checksum_end_around_carries(void **state) {
  static uint8_t buf[1600], pl[1500];
  size_t plen, n;
  int fill, v6;
  (void)state;
  for (fill = 0; fill < 2; fill++) {
    memset(pl, fill ? 0xFE : 0xFF, sizeof(pl));
    for (plen = 0; plen < sizeof(pl); plen++) {
      udccp_ssize cov;
      v6 = (int)(plen & 1);
      n = request(buf, v6 ? &p6 : &p4, pl, plen, 0);
      cov = udccp_cksum_coverage(buf, n);
      assert_true(cov > 0);
      assert_int_equal(
          udccp_cksum_compute(buf, n, v6 ? p6.family : p4.family,
                              v6 ? p6.local_addr : p4.local_addr,
                              v6 ? p6.remote_addr : p4.remote_addr),
          ref_cksum(buf, n, (size_t)cov, v6,
                    v6 ? p6.local_addr : p4.local_addr,
                    v6 ? p6.remote_addr : p4.remote_addr));
      assert_int_equal(udccp_cksum_set(buf, n, v6 ? &p6 : &p4), 0);
      assert_int_equal(udccp_cksum_check(buf, n, v6 ? &p6r : &p4r), 0);
    }
  }
}

/* §9.1: packets with invalid header checksums MUST be ignored: any change
 * to a covered byte, an address, or the length is detected. */
static void test_rfc4340_9_1_bad_checksum_detected(void **state) {
  uint8_t buf[256], pl[64];
  size_t n, i;
  udccp_path other;
  (void)state;
  memset(pl, 0x5A, sizeof(pl));
  n = request(buf, &p6, pl, sizeof(pl), 0);
  assert_int_equal(udccp_cksum_set(buf, n, &p6), 0);
  assert_int_equal(udccp_cksum_check(buf, n, &p6r), 0);
  for (i = 0; i < n; i++) {
    buf[i] ^= 0x01;
    assert_int_equal(udccp_cksum_check(buf, n, &p6r), UDCCP_ERR_CHECKSUM);
    buf[i] ^= 0x01;
  }
  other = p6r;
  other.remote_addr[15] = 9;
  assert_int_equal(udccp_cksum_check(buf, n, &other), UDCCP_ERR_CHECKSUM);
  other = p6r;
  other.family = UDCCP_AF_INET;
  assert_int_equal(udccp_cksum_check(buf, n, &other), UDCCP_ERR_CHECKSUM);
  /* Four trailing zero bytes leave the word sum alone: only the
   * pseudo-header's length notices. */
  memset(buf + n, 0, 4);
  assert_int_equal(udccp_cksum_check(buf, n + 4, &p6r), UDCCP_ERR_CHECKSUM);
}

/* One's complement has two zeros: a sender may store 0x0000 or 0xFFFF when
 * the sum is all ones; both are accepted. */
static void test_rfc4340_9_1_both_zero_encodings_accepted(void **state) {
  uint8_t buf[256], pl[2] = {0, 0};
  size_t n;
  uint16_t c;
  (void)state;
  n = request(buf, &p4, pl, 2, 0);
  c = udccp_cksum_compute(buf, n, UDCCP_AF_INET, p4.local_addr, p4.remote_addr);
  /* Payload word = checksum makes the data sum 0xFFFF: checksum 0. */
  buf[20] = (uint8_t)(c >> 8);
  buf[21] = (uint8_t)c;
  assert_int_equal(udccp_cksum_compute(buf, n, UDCCP_AF_INET, p4.local_addr,
                                       p4.remote_addr),
                   0);
  buf[6] = buf[7] = 0;
  assert_int_equal(udccp_cksum_check(buf, n, &p4r), 0);
  buf[6] = buf[7] = 0xFF;
  assert_int_equal(udccp_cksum_check(buf, n, &p4r), 0);
}

/* §9.2: coverage is the header and options plus (CsCov - 1) * 4 bytes of
 * data; CsCov 0 covers everything. */
static void test_rfc4340_9_2_cscov_coverage(void **state) {
  uint8_t buf[256], pl[40];
  size_t n;
  uint8_t c;
  (void)state;
  memset(pl, 1, sizeof(pl));
  n = request(buf, &p4, pl, 39, 0);
  assert_int_equal(udccp_cksum_coverage(buf, n), 59);
  for (c = 1; c <= 10; c++) {
    n = request(buf, &p4, pl, 39, c);
    assert_int_equal(udccp_cksum_coverage(buf, n), 20 + (c - 1) * 4);
  }
  /* Exactly the data length: allowed. */
  n = request(buf, &p4, pl, 40, 11);
  assert_int_equal(udccp_cksum_coverage(buf, n), 60);
}

/* §9.2: (CsCov - 1) * 4 MUST be <= the data length; such packets MUST be
 * ignored (and their checksum cannot be set). */
static void test_rfc4340_9_2_cscov_beyond_packet_rejected(void **state) {
  uint8_t buf[256], pl[64];
  udccp_hdr h;
  size_t n;
  uint8_t c;
  (void)state;
  memset(pl, 1, sizeof(pl));
  for (c = 1; c <= 15; c++) {
    size_t plen = (size_t)(c - 1) * 4;
    if (plen == 0) {
      continue;
    }
    n = request(buf, &p4, pl, plen - 1, c);
    assert_int_equal(udccp_cksum_coverage(buf, n), UDCCP_ERR_PROTO);
    assert_int_equal(udccp_cksum_set(buf, n, &p4), UDCCP_ERR_PROTO);
    assert_int_equal(udccp_cksum_check(buf, n, &p4r), UDCCP_ERR_PROTO);
    /* The header decoder applies the same rule (DCCP-UDP checks no
     * checksum but still drops these). */
    assert_int_equal(udccp_hdr_decode(&h, buf, n), UDCCP_ERR_PROTO);
    n = request(buf, &p4, pl, plen, c);
    assert_int_equal(udccp_hdr_decode(&h, buf, n), 0);
  }
  n = request(buf, &p4, NULL, 0, 2);
  assert_int_equal(udccp_cksum_coverage(buf, n), UDCCP_ERR_PROTO);
  /* No payload, CsCov 1: just the header. */
  n = request(buf, &p4, NULL, 0, 1);
  assert_int_equal(udccp_cksum_coverage(buf, n), 20);
}

/* §9.2: data outside the coverage is not protected; inside it is. */
static void test_rfc4340_9_2_partial_coverage_protects_prefix(void **state) {
  uint8_t buf[256], pl[32];
  size_t n;
  (void)state;
  memset(pl, 7, sizeof(pl));
  n = request(buf, &p4, pl, sizeof(pl), 3); /* covers 8 data bytes */
  assert_int_equal(udccp_cksum_set(buf, n, &p4), 0);
  buf[20 + 8] ^= 0xFF;
  assert_int_equal(udccp_cksum_check(buf, n, &p4r), 0);
  buf[20 + 7] ^= 0xFF;
  assert_int_equal(udccp_cksum_check(buf, n, &p4r), UDCCP_ERR_CHECKSUM);
  buf[20 + 7] ^= 0xFF;
  /* CsCov 1: no data covered. */
  n = request(buf, &p4, pl, sizeof(pl), 1);
  assert_int_equal(udccp_cksum_set(buf, n, &p4), 0);
  buf[20] ^= 0xFF;
  assert_int_equal(udccp_cksum_check(buf, n, &p4r), 0);
}

static void test_cksum_malformed_header(void **state) {
  uint8_t buf[64];
  size_t n;
  (void)state;
  n = request(buf, &p4, NULL, 0, 0);
  assert_int_equal(udccp_cksum_coverage(buf, 11), UDCCP_ERR_PROTO);
  buf[4] = 2; /* Data Offset 8 bytes: below any header */
  assert_int_equal(udccp_cksum_coverage(buf, n), UDCCP_ERR_PROTO);
  buf[4] = 6; /* 24 > 20 */
  assert_int_equal(udccp_cksum_coverage(buf, n), UDCCP_ERR_PROTO);
}

/* ------------------------------------------- the vector sums (issue 13) */

/* RFC 1071: the one's complement sum of network-order 16-bit words, an odd
 * last byte padded on the right with zero, folded to 16 bits; byte by
 * byte, as prefix sums: prefix[k] is the sum of the first k bytes. */
static void ref_prefix(const uint8_t *p, size_t n, uint64_t *prefix) {
  uint64_t acc = 0;
  size_t i;
  prefix[0] = 0;
  for (i = 0; i < n; i++) {
    acc += (i % 2 == 0) ? (uint64_t)p[i] << 8 : p[i];
    prefix[i + 1] = acc;
  }
}

static int ref_fold(uint64_t acc) {
  while (acc >> 16) {
    acc = (acc & 0xFFFF) + (acc >> 16);
  }
  return (int)acc;
}

static const char *const impl_name[] = {"best", "C", "AVX2"};

/* Every implementation this CPU runs equals the reference on buffers of
 * every length 0..2048 at every alignment 0..63 (every vector's head and
 * tail remainder, odd and even addresses), with random contents and with
 * adversarial ones: all 0xFF (every add carries), the words 0x8000 and
 * 0x7FFF and 0xFFFF/0x0000 mixed (the vector sums bias each word by
 * 0x8000: the extremes of the signed lanes), all zero.  Fails at the
 * first difference, naming the implementation, pattern, length and
 * alignment. */
static void test_rfc1071_vector_sums_match_reference(void **state) {
  enum { MAXLEN = 2048, MAXAL = 64 };
  static uint8_t store[MAXLEN + MAXAL + 64];
  static uint64_t prefix[MAXLEN + 1];
  uint32_t seed = 11;
  int impl, pat, ran = 0;
  size_t al, len, i;
  (void)state;
  for (pat = 0; pat < 6; pat++) {
    for (i = 0; i < sizeof(store); i++) {
      switch (pat) {
      case 0: store[i] = (uint8_t)lcg(&seed); break;
      case 1: store[i] = 0xFF; break;
      case 2: store[i] = (i % 2) ? 0x00 : 0x80; break;    /* 0x8000 / 0x0080 */
      case 3: store[i] = (i % 2) ? 0xFF : 0x7F; break;    /* 0x7FFF / 0xFF7F */
      case 4: store[i] = (i / 2 % 2) ? 0xFF : 0x00; break; /* 0xFFFF, 0x0000 */
      default: store[i] = 0; break;
      }
    }
    for (al = 0; al < MAXAL; al++) {
      const uint8_t *p = store + al;
      ref_prefix(p, MAXLEN, prefix);
      for (impl = UDCCP_CKSUM_IMPL_BEST; impl <= UDCCP_CKSUM_IMPL_AVX2; impl++) {
        if (udccp_cksum_sum_impl(impl, p, 0) < 0) {
          continue; /* not on this CPU or build */
        }
        ran |= 1 << impl;
        for (len = 0; len <= MAXLEN; len++) {
          int got = udccp_cksum_sum_impl(impl, p, len);
          int want = ref_fold(prefix[len]);
          if (got != want) {
            fail_msg("%s sum, pattern %d, length %zu at alignment %zu: "
                     "0x%04x, reference 0x%04x", impl_name[impl], pat, len, al,
                     (unsigned)got, (unsigned)want);
          }
        }
      }
    }
  }
  print_message("sums checked:%s%s%s\n", ran & 1 ? " best" : "",
                ran & 2 ? " C" : "", ran & 4 ? " AVX2" : " (no AVX2 here)");
  assert_true(ran & 1);
  assert_true(ran & 2);
}

/* Past 512 KiB the vector sums start a new block of 32-bit lanes (they
 * would overflow otherwise): a few MiB of the lanes' extremes, all 0xFF
 * and all 0x00 words, and random data, at odd lengths and addresses. */
static void test_rfc1071_vector_sums_long_buffers(void **state) {
  enum { LONG = 3 * 1024 * 1024 + 77 };
  uint8_t *buf = malloc(LONG + 1);
  uint32_t seed = 5;
  int impl, pat;
  size_t i, n;
  (void)state;
  assert_non_null(buf);
  for (pat = 0; pat < 3; pat++) {
    uint64_t acc = 0;
    for (i = 0; i < LONG + 1; i++) {
      buf[i] = pat == 0 ? 0xFF : pat == 1 ? (i % 2 ? 0x00 : 0x80)
                                          : (uint8_t)lcg(&seed);
    }
    for (i = 0; i < LONG; i++) {
      acc += (i % 2 == 0) ? (uint64_t)buf[1 + i] << 8 : buf[1 + i];
    }
    for (impl = UDCCP_CKSUM_IMPL_BEST; impl <= UDCCP_CKSUM_IMPL_AVX2; impl++) {
      for (n = LONG - 1; n <= LONG; n++) {
        uint64_t want = acc;
        int got = udccp_cksum_sum_impl(impl, buf + 1, n);
        if (got < 0) {
          continue;
        }
        if (n < LONG) {
          want -= (n % 2 == 0) ? (uint64_t)buf[1 + n] << 8 : buf[1 + n];
        }
        if (got != ref_fold(want)) {
          fail_msg("%s sum, pattern %d, %zu bytes: 0x%04x, reference 0x%04x",
                   impl_name[impl], pat, n, (unsigned)got,
                   (unsigned)ref_fold(want));
        }
      }
    }
  }
  free(buf);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

/* XINUSE (XGETBV with ECX = 1) bit 2: the upper halves of the YMM
 * registers hold state; -1 if the CPU cannot tell. */
static int ymm_upper_in_use(void) {
  unsigned a, b, c, d, lo, hi;
  if (!__get_cpuid_count(0xD, 1, &a, &b, &c, &d) || !(a & 4)) {
    return -1; /* no XGETBV with ECX = 1 */
  }
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  (void)hi;
  return (lo >> 2) & 1;
}
#endif

/* The AVX2 sum leaves the YMM upper halves clean on every path (whole
 * vectors only, a tail after them, short buffers): SSE code run after
 * AVX code with dirty upper halves pays for a merge on every instruction.
 * gcc 12 left them dirty on the path to the scalar tail, which cost a
 * fifth of the data path's CPU time (bench/ippbench.c). */
static void test_cksum_avx2_leaves_ymm_upper_clean(void **state) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static uint8_t buf[1300];
  static const size_t lens[] = {1216, 1228, 1201, 100, 64, 40, 0};
  size_t i;
  (void)state;
  memset(buf, 0xA5, sizeof(buf));
  if (udccp_cksum_sum_impl(UDCCP_CKSUM_IMPL_AVX2, buf, 0) < 0 ||
      ymm_upper_in_use() < 0) {
    skip();
  }
  for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
    int in_use;
    (void)udccp_cksum_sum_impl(UDCCP_CKSUM_IMPL_AVX2, buf, lens[i]);
    in_use = ymm_upper_in_use();
    if (in_use != 0) {
      fail_msg("YMM upper halves dirty after the AVX2 sum of %zu bytes",
               lens[i]);
    }
  }
#else
  (void)state;
  skip();
#endif
}

/* ------------------------------------------------------------ CRC-32c */

static uint32_t ref_crc32c(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  size_t i;
  int k;
  for (i = 0; i < n; i++) {
    c ^= p[i];
    for (k = 0; k < 8; k++) {
      c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    }
  }
  return ~c;
}

/* §9.3: CRC-32c as in SCTP.  The catalogued check value, the empty input
 * (§9.3: "the CRC-32c of zero bytes of data equals zero"), and the test
 * vectors of RFC 3720 §B.4. */
static void test_rfc4340_9_3_crc32c_known_values(void **state) {
  uint8_t b[32];
  int i;
  (void)state;
  assert_int_equal(udccp_crc32c((const uint8_t *)"123456789", 9), 0xE3069283u);
  assert_int_equal(udccp_crc32c(NULL, 0), 0);
  memset(b, 0, sizeof(b));
  assert_int_equal(udccp_crc32c(b, 32), 0x8A9136AAu);
  memset(b, 0xFF, sizeof(b));
  assert_int_equal(udccp_crc32c(b, 32), 0x62A8AB43u);
  for (i = 0; i < 32; i++) {
    b[i] = (uint8_t)i;
  }
  assert_int_equal(udccp_crc32c(b, 32), 0x46DD794Eu);
  for (i = 0; i < 32; i++) {
    b[i] = (uint8_t)(31 - i);
  }
  assert_int_equal(udccp_crc32c(b, 32), 0x113FDB5Cu);
}

/* The sliced table code equals the bitwise definition at every length and
 * alignment. */
static void test_rfc4340_9_3_crc32c_matches_bitwise(void **state) {
  uint8_t b[300];
  uint32_t seed = 7;
  size_t off, len;
  (void)state;
  for (len = 0; len < sizeof(b); len++) {
    b[len] = (uint8_t)lcg(&seed);
  }
  for (off = 0; off < 8; off++) {
    for (len = 0; len + off < sizeof(b); len += 7) {
      assert_int_equal(udccp_crc32c(b + off, len), ref_crc32c(b + off, len));
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rfc4340_9_1_ipv4_checksum_by_hand),
      cmocka_unit_test(test_rfc4340_9_1_ipv6_checksum_by_hand),
      cmocka_unit_test(test_rfc4340_9_1_checksum_matches_reference),
      cmocka_unit_test(test_rfc4340_9_1_checksum_any_offset_and_length),
      cmocka_unit_test(test_rfc4340_9_1_checksum_end_around_carries),
      cmocka_unit_test(test_rfc4340_9_1_bad_checksum_detected),
      cmocka_unit_test(test_rfc4340_9_1_both_zero_encodings_accepted),
      cmocka_unit_test(test_rfc4340_9_2_cscov_coverage),
      cmocka_unit_test(test_rfc4340_9_2_cscov_beyond_packet_rejected),
      cmocka_unit_test(test_rfc4340_9_2_partial_coverage_protects_prefix),
      cmocka_unit_test(test_cksum_malformed_header),
      cmocka_unit_test(test_rfc1071_vector_sums_match_reference),
      cmocka_unit_test(test_rfc1071_vector_sums_long_buffers),
      cmocka_unit_test(test_cksum_avx2_leaves_ymm_upper_clean),
      cmocka_unit_test(test_rfc4340_9_3_crc32c_known_values),
      cmocka_unit_test(test_rfc4340_9_3_crc32c_matches_bitwise),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}

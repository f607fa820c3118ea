/* SPDX-License-Identifier: MIT */
/*
 * DCCP header checksum (RFC 4340 §9.1, §9.2) and CRC-32c (§9.3).
 *
 * The Internet checksum is summed in native byte order, eight bytes at a
 * time, and converted to network order once at the end: the one's
 * complement sum commutes with byte swapping (RFC 1071 §2(B)), and a
 * 64-bit one's complement sum folds to the same 16-bit sum because
 * 2^16 - 1 divides 2^64 - 1.
 */
#include <string.h>

#include "cksum.h"

/* The vector sum is x86-64 code for GCC and clang: a function compiled for
 * AVX2 (__attribute__((target))) within a library built for baseline
 * x86-64, chosen per call by __builtin_cpu_supports (libgcc fills its
 * table once, before main; until then it reads as "no AVX2" and the C sum
 * runs, also right).  Other CPUs and compilers, and x86-64 CPUs without
 * AVX2, sum in portable C: an SSE2 version of the same sum (PMADDWD on
 * 16-byte vectors, SSE's two-operand instructions needing a register copy
 * per vector) took 451 instructions for 1216 bytes against C's 388, and
 * about 5% less time: not worth its code. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define UDCCP_CKSUM_X86 1
#include <immintrin.h>
#else
#define UDCCP_CKSUM_X86 0
#endif

#define UDCCP_IPPROTO_DCCP 33 /* IANA protocol number, RFC 4340 §19.1 */

/* Adds the 8 bytes at p to *acc, a 64-bit sum whose carries out are
 * counted in *c (compilers emit add + adc $0: two instructions). */
static inline void add8(uint64_t *acc, uint64_t *c, const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  *acc += v;
  *c += *acc < v;
}

/* Adds the bytes p[0..n) to acc as native-order 16-bit words.  p must lie at
 * an even offset from the start of the checksummed data (any alignment in
 * memory: words are read with memcpy); an odd tail byte is padded on the
 * right with zero (§9.1).
 *
 * Why 64-bit words: a one's complement sum may be taken in any word size
 * whose modulus 2^k - 1 is a multiple of 2^16 - 1 (RFC 1071 §2(B)), so each
 * accumulator is a 64-bit one's complement sum, and so is their sum.  The
 * carries out of the running sums are counted apart and added back once at
 * the end (end-around carry, RFC 1071 §2(A)).  The main loop takes 128
 * bytes into four independent sums: two instructions per 8 bytes and
 * little loop overhead; the checksum is the largest per-packet cost after
 * the copies (issue 13). */
static uint64_t sum_native(const uint8_t *p, size_t n, uint64_t acc) {
  uint64_t a1 = 0, a2 = 0, a3 = 0, c = 0;
  size_t k;
  while (n >= 128) {
    for (k = 0; k < 128; k += 32) {
      add8(&acc, &c, p + k);
      add8(&a1, &c, p + k + 8);
      add8(&a2, &c, p + k + 16);
      add8(&a3, &c, p + k + 24);
    }
    p += 128;
    n -= 128;
  }
  while (n >= 16) {
    add8(&acc, &c, p);
    add8(&a1, &c, p + 8);
    p += 16;
    n -= 16;
  }
  if (n >= 8) {
    add8(&acc, &c, p);
    p += 8;
    n -= 8;
  }
  /* 0..7 bytes left: a 4-byte and a 2-byte word (any word size folds
   * alike), then an odd byte padded on the right with zero (§9.1), summed
   * into t (< 2^33) and t into a2. */
  if (n) {
    uint64_t t = 0;
    if (n >= 4) {
      uint32_t v4;
      memcpy(&v4, p, 4);
      t = v4;
      p += 4;
      n -= 4;
    }
    if (n >= 2) {
      uint16_t v2;
      memcpy(&v2, p, 2);
      t += v2;
      p += 2;
      n -= 2;
    }
    if (n) {
      uint8_t tail[2] = {p[0], 0};
      uint16_t v2;
      memcpy(&v2, tail, 2);
      t += v2;
    }
    a2 += t;
    c += a2 < t;
  }
  a1 += a2;
  c += a1 < a2;
  a1 += a3;
  c += a1 < a3;
  acc += a1;
  c += acc < a1;
  /* c counts at most n/8 + 3 carries, far from overflowing; adding it
   * (and the one carry that may produce) is exact. */
  acc += c;
  return acc + (acc < c);
}

#if UDCCP_CKSUM_X86
/* The vector sum (issue 13: the checksum was the largest per-packet cost
 * after the copies, computed by the sender and again by the receiver).
 *
 * x86 has no unsigned widening add of 16-bit words, but VPMADDWD
 * (multiply-add of signed words into 32-bit lanes) by ones adds two
 * neighbouring words into a 32-bit lane in one instruction.  The words are
 * unsigned, so each is first biased: u XOR 0x8000 read as signed is
 * exactly u - 32768, a lane gets u1 + u2 - 65536, and the true sum is the
 * lanes' sum plus 65536 per lane and vector, added back once per block.
 * Three instructions per 32 bytes (XOR with a memory operand, VPMADDWD,
 * add) against eight in add/adc.  AVX2, not AVX-512: valgrind (3.19), which
 * counts the instructions of bench/ipp.sh, runs AVX2 code but not AVX-512.
 *
 * The 32-bit lanes stay exact: a lane takes at most 65536 in magnitude
 * per vector, and a block is at most VEC_BLOCK vectors (2^14, 512 KiB), so
 * a lane stays within 2^30.  Blocks are whole vectors, so the words keep
 * their parity: p is at an even offset from the start of the checksummed
 * data, as for sum_native, which takes the tail (< one vector). */
#define VEC_BLOCK 16384u

/* The biased words of the 32 bytes at p, summed in pairs (see above). */
__attribute__((target("avx2"))) static inline __m256i
pairs32(const uint8_t *p, __m256i bias, __m256i ones) {
  __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
  return _mm256_madd_epi16(_mm256_xor_si256(bias, v), ones);
}

/* The same for the 128 bytes at p: a tree of adds, so that the loop
 * carries one dependency through its accumulator, not four. */
__attribute__((target("avx2"))) static inline __m256i
pairs128(const uint8_t *p, __m256i bias, __m256i ones) {
  return _mm256_add_epi32(_mm256_add_epi32(pairs32(p, bias, ones),
                                           pairs32(p + 32, bias, ones)),
                          _mm256_add_epi32(pairs32(p + 64, bias, ones),
                                           pairs32(p + 96, bias, ones)));
}

/* Adds the lanes of s, the biased pair sums of nv vectors, to acc. */
__attribute__((target("avx2"))) static inline uint64_t
add_lanes(uint64_t acc, __m256i s, size_t nv) {
  __m128i h;
  uint64_t t;
  /* eight signed lanes -> four 64-bit ones -> one */
  s = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(s)),
                       _mm256_cvtepi32_epi64(_mm256_extracti128_si256(s, 1)));
  h = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  h = _mm_add_epi64(h, _mm_unpackhi_epi64(h, h));
  /* plus the bias, 65536 for each of a vector's 8 lanes: the exact word
   * sum (< 2^35), added with end-around carry */
  t = (uint64_t)_mm_cvtsi128_si64(h) + (uint64_t)nv * 8 * 65536;
  acc += t;
  return acc + (acc < t);
}

__attribute__((target("avx2"))) static uint64_t
sum_avx2(const uint8_t *p, size_t n, uint64_t acc) {
  const __m256i bias = _mm256_set1_epi16((short)0x8000);
  const __m256i ones = _mm256_set1_epi16(1);
  while (n >= 32) {
    size_t nv = n / 32 < VEC_BLOCK ? n / 32 : VEC_BLOCK, k = nv;
    __m256i s = _mm256_setzero_si256();
    for (; k >= 8; k -= 8, p += 256) {
      s = _mm256_add_epi32(s, _mm256_add_epi32(pairs128(p, bias, ones),
                                               pairs128(p + 128, bias, ones)));
    }
    if (k >= 4) {
      s = _mm256_add_epi32(s, pairs128(p, bias, ones));
      k -= 4;
      p += 128;
    }
    for (; k > 0; k--, p += 32) {
      s = _mm256_add_epi32(s, pairs32(p, bias, ones));
    }
    n -= nv * 32;
    if (n > 0 && n < 32) {
      /* The tail (1..31 bytes) as one more vector, not a call to
       * sum_native (issue 13: a DataAck's length is rarely a multiple of
       * 32): the 32 bytes that end with its last whole word, read back
       * over bytes summed already (this block had a vector at least),
       * those masked to zero (a zero word adds nothing once its bias is
       * taken back in add_lanes), the words keeping their parity; an odd
       * last byte is the low byte of a word padded with zero (§9.1,
       * native order: x86 is little-endian). */
      static const uint8_t keep_last[64] = {
          0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
          0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
          0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0xFF,
          0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
          0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
          0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
      size_t m = n & ~(size_t)1;
      uint64_t odd = (n & 1u) ? p[m] : 0;
      __m256i v = _mm256_and_si256(
          _mm256_loadu_si256((const __m256i *)(const void *)(p + m - 32)),
          _mm256_loadu_si256((const __m256i *)(const void *)(keep_last + m)));
      s = _mm256_add_epi32(s,
                           _mm256_madd_epi16(_mm256_xor_si256(bias, v), ones));
      nv++;
      acc += odd;
      acc += acc < odd;
      n = 0;
    }
    acc = add_lanes(acc, s, nv);
  }
  /* The upper halves of the YMM registers are clean again before any
   * SSE code runs (sum_native or the caller's): compilers end the
   * function with VZEROUPPER but not the path that jumps to
   * sum_native (gcc 12), and SSE instructions after AVX ones with dirty
   * upper halves each pay a merge (issue 13). */
  _mm256_zeroupper();
  return n ? sum_native(p, n, acc) : acc;
}

#endif

/* Below this many bytes the scalar sum is cheaper than a vector sum's
 * reduction (acknowledgements, headers). */
#define VEC_MIN 64

/* sum_native's contract, by the fastest sum this CPU has. */
static inline uint64_t sum_words(const uint8_t *p, size_t n, uint64_t acc) {
#if UDCCP_CKSUM_X86
  if (n >= VEC_MIN) {
    if (__builtin_cpu_supports("avx2")) {
      return sum_avx2(p, n, acc);
    }
  }
#endif
  return sum_native(p, n, acc);
}

/* Folds a native-order sum to 16 bits and returns its value read as a
 * network-order word. */
static uint16_t fold_to_host(uint64_t acc) {
  uint16_t w;
  uint8_t b[2];
  /* < 2^33, < 2^18, <= 0x10002, <= 0xFFFF: four folds, no loop */
  acc = (acc & 0xFFFFFFFFu) + (acc >> 32);
  acc = (acc & 0xFFFFu) + (acc >> 16);
  acc = (acc & 0xFFFFu) + (acc >> 16);
  acc = (acc & 0xFFFFu) + (acc >> 16);
  w = (uint16_t)acc;
  memcpy(b, &w, 2);
  return (uint16_t)((b[0] << 8) | b[1]);
}

/* Sum of the pseudo-header (§9.1): IPv4 as for TCP (RFC 793 §3.1), IPv6
 * as RFC 2460 §8.1.  len is the whole DCCP length, whatever CsCov says.
 * Summed as native 32-bit words (they fold like 16-bit ones): a few adds
 * instead of a loop per field, on every packet (issue 13). */
static uint64_t sum_pseudo(size_t len, uint8_t family, const uint8_t *src,
                           const uint8_t *dst) {
  uint8_t tail[8];
  uint32_t w[8], t[2];
  uint64_t acc = 0;
  size_t i;
  if (family == UDCCP_AF_INET6) {
    memcpy(w, src, 16);
    memcpy(w + 4, dst, 16);
    for (i = 0; i < 8; i++) {
      acc += w[i];
    }
    tail[0] = (uint8_t)(len >> 24);
    tail[1] = (uint8_t)(len >> 16);
    tail[2] = (uint8_t)(len >> 8);
    tail[3] = (uint8_t)len;
    tail[4] = 0;
    tail[5] = 0;
    tail[6] = 0;
    tail[7] = UDCCP_IPPROTO_DCCP;
    memcpy(t, tail, 8);
    return acc + t[0] + t[1];
  }
  memcpy(w, src, 4);
  memcpy(w + 1, dst, 4);
  tail[0] = 0;
  tail[1] = UDCCP_IPPROTO_DCCP;
  tail[2] = (uint8_t)(len >> 8);
  tail[3] = (uint8_t)len;
  memcpy(t, tail, 4);
  return (uint64_t)w[0] + w[1] + t[0];
}

int udccp_cksum_sum_impl(int impl, const uint8_t *p, size_t n) {
  uint64_t acc;
  switch (impl) {
  case UDCCP_CKSUM_IMPL_BEST:
    acc = sum_words(p, n, 0);
    break;
  case UDCCP_CKSUM_IMPL_C:
    acc = sum_native(p, n, 0);
    break;
#if UDCCP_CKSUM_X86
  case UDCCP_CKSUM_IMPL_AVX2:
    if (!__builtin_cpu_supports("avx2")) {
      return UDCCP_ERR_INVALID_ARGUMENT;
    }
    acc = sum_avx2(p, n, 0);
    break;
#endif
  default:
    return UDCCP_ERR_INVALID_ARGUMENT;
  }
  return fold_to_host(acc);
}

udccp_ssize udccp_cksum_coverage(const uint8_t *pkt, size_t len) {
  size_t hdr, cov;
  uint8_t cscov;
  if (len < 12) {
    return UDCCP_ERR_PROTO;
  }
  hdr = (size_t)pkt[4] * 4;
  if (hdr < 12 || hdr > len) {
    return UDCCP_ERR_PROTO;
  }
  cscov = pkt[5] & 0x0F;
  if (cscov == 0) {
    return (udccp_ssize)len;
  }
  /* RFC 4340 §9.2: (CsCov - 1) * 4 MUST be <= the application data
   * length; packets asking for more MUST be ignored. */
  cov = hdr + ((size_t)cscov - 1) * 4;
  if (cov > len) {
    return UDCCP_ERR_PROTO;
  }
  return (udccp_ssize)cov;
}

/* The checksum of pkt with cov bytes covered (cov <= len). */
static uint16_t compute_cov(const uint8_t *pkt, size_t len, size_t cov,
                            uint8_t family, const uint8_t *src,
                            const uint8_t *dst) {
  uint64_t acc = sum_pseudo(len, family, src, dst);
  if (cov >= 8) {
    /* The Checksum field (bytes 6..7) counts as zero (§9.1): sum it with
     * the rest in one pass, then take it out again (adding its one's
     * complement subtracts it). */
    uint16_t w;
    uint64_t x;
    acc = sum_words(pkt, cov, acc);
    memcpy(&w, pkt + 6, 2);
    x = (uint64_t)(0xFFFFu - w);
    acc += x;
    acc += acc < x;
  } else {
    acc = sum_native(pkt, cov < 6 ? cov : 6, acc);
  }
  return (uint16_t)~fold_to_host(acc);
}

uint16_t udccp_cksum_compute(const uint8_t *pkt, size_t len, uint8_t family,
                             const uint8_t *src, const uint8_t *dst) {
  udccp_ssize c = udccp_cksum_coverage(pkt, len);
  return compute_cov(pkt, len, c < 0 ? len : (size_t)c, family, src, dst);
}

int udccp_cksum_set(uint8_t *pkt, size_t len, const udccp_path *path) {
  udccp_ssize c = udccp_cksum_coverage(pkt, len);
  uint16_t v;
  if (c < 0) {
    return UDCCP_ERR_PROTO;
  }
  v = compute_cov(pkt, len, (size_t)c, path->family, path->local_addr,
                  path->remote_addr);
  pkt[6] = (uint8_t)(v >> 8);
  pkt[7] = (uint8_t)v;
  return 0;
}

int udccp_cksum_check(const uint8_t *pkt, size_t len, const udccp_path *path) {
  udccp_ssize cov = udccp_cksum_coverage(pkt, len);
  uint64_t acc;
  if (cov < 0) {
    return (int)cov;
  }
  /* Summing the stored checksum along with the data gives all ones for an
   * intact packet; this accepts both encodings of zero, as the kernel does. */
  acc = sum_pseudo(len, path->family, path->remote_addr, path->local_addr);
  acc = sum_words(pkt, (size_t)cov, acc);
  return fold_to_host(acc) == 0xFFFFu ? 0 : UDCCP_ERR_CHECKSUM;
}

/* CRC-32c (Castagnoli, reflected polynomial 0x82F63B78), as SCTP uses it
 * (RFC 3309); sliced four bytes at a time.  Table k holds the CRC of a byte
 * followed by k zero bytes. */
static const uint32_t crc32c_tab[4][256] = {
  {
    0x00000000u, 0xF26B8303u, 0xE13B70F7u, 0x1350F3F4u, 0xC79A971Fu, 0x35F1141Cu,
    0x26A1E7E8u, 0xD4CA64EBu, 0x8AD958CFu, 0x78B2DBCCu, 0x6BE22838u, 0x9989AB3Bu,
    0x4D43CFD0u, 0xBF284CD3u, 0xAC78BF27u, 0x5E133C24u, 0x105EC76Fu, 0xE235446Cu,
    0xF165B798u, 0x030E349Bu, 0xD7C45070u, 0x25AFD373u, 0x36FF2087u, 0xC494A384u,
    0x9A879FA0u, 0x68EC1CA3u, 0x7BBCEF57u, 0x89D76C54u, 0x5D1D08BFu, 0xAF768BBCu,
    0xBC267848u, 0x4E4DFB4Bu, 0x20BD8EDEu, 0xD2D60DDDu, 0xC186FE29u, 0x33ED7D2Au,
    0xE72719C1u, 0x154C9AC2u, 0x061C6936u, 0xF477EA35u, 0xAA64D611u, 0x580F5512u,
    0x4B5FA6E6u, 0xB93425E5u, 0x6DFE410Eu, 0x9F95C20Du, 0x8CC531F9u, 0x7EAEB2FAu,
    0x30E349B1u, 0xC288CAB2u, 0xD1D83946u, 0x23B3BA45u, 0xF779DEAEu, 0x05125DADu,
    0x1642AE59u, 0xE4292D5Au, 0xBA3A117Eu, 0x4851927Du, 0x5B016189u, 0xA96AE28Au,
    0x7DA08661u, 0x8FCB0562u, 0x9C9BF696u, 0x6EF07595u, 0x417B1DBCu, 0xB3109EBFu,
    0xA0406D4Bu, 0x522BEE48u, 0x86E18AA3u, 0x748A09A0u, 0x67DAFA54u, 0x95B17957u,
    0xCBA24573u, 0x39C9C670u, 0x2A993584u, 0xD8F2B687u, 0x0C38D26Cu, 0xFE53516Fu,
    0xED03A29Bu, 0x1F682198u, 0x5125DAD3u, 0xA34E59D0u, 0xB01EAA24u, 0x42752927u,
    0x96BF4DCCu, 0x64D4CECFu, 0x77843D3Bu, 0x85EFBE38u, 0xDBFC821Cu, 0x2997011Fu,
    0x3AC7F2EBu, 0xC8AC71E8u, 0x1C661503u, 0xEE0D9600u, 0xFD5D65F4u, 0x0F36E6F7u,
    0x61C69362u, 0x93AD1061u, 0x80FDE395u, 0x72966096u, 0xA65C047Du, 0x5437877Eu,
    0x4767748Au, 0xB50CF789u, 0xEB1FCBADu, 0x197448AEu, 0x0A24BB5Au, 0xF84F3859u,
    0x2C855CB2u, 0xDEEEDFB1u, 0xCDBE2C45u, 0x3FD5AF46u, 0x7198540Du, 0x83F3D70Eu,
    0x90A324FAu, 0x62C8A7F9u, 0xB602C312u, 0x44694011u, 0x5739B3E5u, 0xA55230E6u,
    0xFB410CC2u, 0x092A8FC1u, 0x1A7A7C35u, 0xE811FF36u, 0x3CDB9BDDu, 0xCEB018DEu,
    0xDDE0EB2Au, 0x2F8B6829u, 0x82F63B78u, 0x709DB87Bu, 0x63CD4B8Fu, 0x91A6C88Cu,
    0x456CAC67u, 0xB7072F64u, 0xA457DC90u, 0x563C5F93u, 0x082F63B7u, 0xFA44E0B4u,
    0xE9141340u, 0x1B7F9043u, 0xCFB5F4A8u, 0x3DDE77ABu, 0x2E8E845Fu, 0xDCE5075Cu,
    0x92A8FC17u, 0x60C37F14u, 0x73938CE0u, 0x81F80FE3u, 0x55326B08u, 0xA759E80Bu,
    0xB4091BFFu, 0x466298FCu, 0x1871A4D8u, 0xEA1A27DBu, 0xF94AD42Fu, 0x0B21572Cu,
    0xDFEB33C7u, 0x2D80B0C4u, 0x3ED04330u, 0xCCBBC033u, 0xA24BB5A6u, 0x502036A5u,
    0x4370C551u, 0xB11B4652u, 0x65D122B9u, 0x97BAA1BAu, 0x84EA524Eu, 0x7681D14Du,
    0x2892ED69u, 0xDAF96E6Au, 0xC9A99D9Eu, 0x3BC21E9Du, 0xEF087A76u, 0x1D63F975u,
    0x0E330A81u, 0xFC588982u, 0xB21572C9u, 0x407EF1CAu, 0x532E023Eu, 0xA145813Du,
    0x758FE5D6u, 0x87E466D5u, 0x94B49521u, 0x66DF1622u, 0x38CC2A06u, 0xCAA7A905u,
    0xD9F75AF1u, 0x2B9CD9F2u, 0xFF56BD19u, 0x0D3D3E1Au, 0x1E6DCDEEu, 0xEC064EEDu,
    0xC38D26C4u, 0x31E6A5C7u, 0x22B65633u, 0xD0DDD530u, 0x0417B1DBu, 0xF67C32D8u,
    0xE52CC12Cu, 0x1747422Fu, 0x49547E0Bu, 0xBB3FFD08u, 0xA86F0EFCu, 0x5A048DFFu,
    0x8ECEE914u, 0x7CA56A17u, 0x6FF599E3u, 0x9D9E1AE0u, 0xD3D3E1ABu, 0x21B862A8u,
    0x32E8915Cu, 0xC083125Fu, 0x144976B4u, 0xE622F5B7u, 0xF5720643u, 0x07198540u,
    0x590AB964u, 0xAB613A67u, 0xB831C993u, 0x4A5A4A90u, 0x9E902E7Bu, 0x6CFBAD78u,
    0x7FAB5E8Cu, 0x8DC0DD8Fu, 0xE330A81Au, 0x115B2B19u, 0x020BD8EDu, 0xF0605BEEu,
    0x24AA3F05u, 0xD6C1BC06u, 0xC5914FF2u, 0x37FACCF1u, 0x69E9F0D5u, 0x9B8273D6u,
    0x88D28022u, 0x7AB90321u, 0xAE7367CAu, 0x5C18E4C9u, 0x4F48173Du, 0xBD23943Eu,
    0xF36E6F75u, 0x0105EC76u, 0x12551F82u, 0xE03E9C81u, 0x34F4F86Au, 0xC69F7B69u,
    0xD5CF889Du, 0x27A40B9Eu, 0x79B737BAu, 0x8BDCB4B9u, 0x988C474Du, 0x6AE7C44Eu,
    0xBE2DA0A5u, 0x4C4623A6u, 0x5F16D052u, 0xAD7D5351u,
  },
  {
    0x00000000u, 0x13A29877u, 0x274530EEu, 0x34E7A899u, 0x4E8A61DCu, 0x5D28F9ABu,
    0x69CF5132u, 0x7A6DC945u, 0x9D14C3B8u, 0x8EB65BCFu, 0xBA51F356u, 0xA9F36B21u,
    0xD39EA264u, 0xC03C3A13u, 0xF4DB928Au, 0xE7790AFDu, 0x3FC5F181u, 0x2C6769F6u,
    0x1880C16Fu, 0x0B225918u, 0x714F905Du, 0x62ED082Au, 0x560AA0B3u, 0x45A838C4u,
    0xA2D13239u, 0xB173AA4Eu, 0x859402D7u, 0x96369AA0u, 0xEC5B53E5u, 0xFFF9CB92u,
    0xCB1E630Bu, 0xD8BCFB7Cu, 0x7F8BE302u, 0x6C297B75u, 0x58CED3ECu, 0x4B6C4B9Bu,
    0x310182DEu, 0x22A31AA9u, 0x1644B230u, 0x05E62A47u, 0xE29F20BAu, 0xF13DB8CDu,
    0xC5DA1054u, 0xD6788823u, 0xAC154166u, 0xBFB7D911u, 0x8B507188u, 0x98F2E9FFu,
    0x404E1283u, 0x53EC8AF4u, 0x670B226Du, 0x74A9BA1Au, 0x0EC4735Fu, 0x1D66EB28u,
    0x298143B1u, 0x3A23DBC6u, 0xDD5AD13Bu, 0xCEF8494Cu, 0xFA1FE1D5u, 0xE9BD79A2u,
    0x93D0B0E7u, 0x80722890u, 0xB4958009u, 0xA737187Eu, 0xFF17C604u, 0xECB55E73u,
    0xD852F6EAu, 0xCBF06E9Du, 0xB19DA7D8u, 0xA23F3FAFu, 0x96D89736u, 0x857A0F41u,
    0x620305BCu, 0x71A19DCBu, 0x45463552u, 0x56E4AD25u, 0x2C896460u, 0x3F2BFC17u,
    0x0BCC548Eu, 0x186ECCF9u, 0xC0D23785u, 0xD370AFF2u, 0xE797076Bu, 0xF4359F1Cu,
    0x8E585659u, 0x9DFACE2Eu, 0xA91D66B7u, 0xBABFFEC0u, 0x5DC6F43Du, 0x4E646C4Au,
    0x7A83C4D3u, 0x69215CA4u, 0x134C95E1u, 0x00EE0D96u, 0x3409A50Fu, 0x27AB3D78u,
    0x809C2506u, 0x933EBD71u, 0xA7D915E8u, 0xB47B8D9Fu, 0xCE1644DAu, 0xDDB4DCADu,
    0xE9537434u, 0xFAF1EC43u, 0x1D88E6BEu, 0x0E2A7EC9u, 0x3ACDD650u, 0x296F4E27u,
    0x53028762u, 0x40A01F15u, 0x7447B78Cu, 0x67E52FFBu, 0xBF59D487u, 0xACFB4CF0u,
    0x981CE469u, 0x8BBE7C1Eu, 0xF1D3B55Bu, 0xE2712D2Cu, 0xD69685B5u, 0xC5341DC2u,
    0x224D173Fu, 0x31EF8F48u, 0x050827D1u, 0x16AABFA6u, 0x6CC776E3u, 0x7F65EE94u,
    0x4B82460Du, 0x5820DE7Au, 0xFBC3FAF9u, 0xE861628Eu, 0xDC86CA17u, 0xCF245260u,
    0xB5499B25u, 0xA6EB0352u, 0x920CABCBu, 0x81AE33BCu, 0x66D73941u, 0x7575A136u,
    0x419209AFu, 0x523091D8u, 0x285D589Du, 0x3BFFC0EAu, 0x0F186873u, 0x1CBAF004u,
    0xC4060B78u, 0xD7A4930Fu, 0xE3433B96u, 0xF0E1A3E1u, 0x8A8C6AA4u, 0x992EF2D3u,
    0xADC95A4Au, 0xBE6BC23Du, 0x5912C8C0u, 0x4AB050B7u, 0x7E57F82Eu, 0x6DF56059u,
    0x1798A91Cu, 0x043A316Bu, 0x30DD99F2u, 0x237F0185u, 0x844819FBu, 0x97EA818Cu,
    0xA30D2915u, 0xB0AFB162u, 0xCAC27827u, 0xD960E050u, 0xED8748C9u, 0xFE25D0BEu,
    0x195CDA43u, 0x0AFE4234u, 0x3E19EAADu, 0x2DBB72DAu, 0x57D6BB9Fu, 0x447423E8u,
    0x70938B71u, 0x63311306u, 0xBB8DE87Au, 0xA82F700Du, 0x9CC8D894u, 0x8F6A40E3u,
    0xF50789A6u, 0xE6A511D1u, 0xD242B948u, 0xC1E0213Fu, 0x26992BC2u, 0x353BB3B5u,
    0x01DC1B2Cu, 0x127E835Bu, 0x68134A1Eu, 0x7BB1D269u, 0x4F567AF0u, 0x5CF4E287u,
    0x04D43CFDu, 0x1776A48Au, 0x23910C13u, 0x30339464u, 0x4A5E5D21u, 0x59FCC556u,
    0x6D1B6DCFu, 0x7EB9F5B8u, 0x99C0FF45u, 0x8A626732u, 0xBE85CFABu, 0xAD2757DCu,
    0xD74A9E99u, 0xC4E806EEu, 0xF00FAE77u, 0xE3AD3600u, 0x3B11CD7Cu, 0x28B3550Bu,
    0x1C54FD92u, 0x0FF665E5u, 0x759BACA0u, 0x663934D7u, 0x52DE9C4Eu, 0x417C0439u,
    0xA6050EC4u, 0xB5A796B3u, 0x81403E2Au, 0x92E2A65Du, 0xE88F6F18u, 0xFB2DF76Fu,
    0xCFCA5FF6u, 0xDC68C781u, 0x7B5FDFFFu, 0x68FD4788u, 0x5C1AEF11u, 0x4FB87766u,
    0x35D5BE23u, 0x26772654u, 0x12908ECDu, 0x013216BAu, 0xE64B1C47u, 0xF5E98430u,
    0xC10E2CA9u, 0xD2ACB4DEu, 0xA8C17D9Bu, 0xBB63E5ECu, 0x8F844D75u, 0x9C26D502u,
    0x449A2E7Eu, 0x5738B609u, 0x63DF1E90u, 0x707D86E7u, 0x0A104FA2u, 0x19B2D7D5u,
    0x2D557F4Cu, 0x3EF7E73Bu, 0xD98EEDC6u, 0xCA2C75B1u, 0xFECBDD28u, 0xED69455Fu,
    0x97048C1Au, 0x84A6146Du, 0xB041BCF4u, 0xA3E32483u,
  },
  {
    0x00000000u, 0xA541927Eu, 0x4F6F520Du, 0xEA2EC073u, 0x9EDEA41Au, 0x3B9F3664u,
    0xD1B1F617u, 0x74F06469u, 0x38513EC5u, 0x9D10ACBBu, 0x773E6CC8u, 0xD27FFEB6u,
    0xA68F9ADFu, 0x03CE08A1u, 0xE9E0C8D2u, 0x4CA15AACu, 0x70A27D8Au, 0xD5E3EFF4u,
    0x3FCD2F87u, 0x9A8CBDF9u, 0xEE7CD990u, 0x4B3D4BEEu, 0xA1138B9Du, 0x045219E3u,
    0x48F3434Fu, 0xEDB2D131u, 0x079C1142u, 0xA2DD833Cu, 0xD62DE755u, 0x736C752Bu,
    0x9942B558u, 0x3C032726u, 0xE144FB14u, 0x4405696Au, 0xAE2BA919u, 0x0B6A3B67u,
    0x7F9A5F0Eu, 0xDADBCD70u, 0x30F50D03u, 0x95B49F7Du, 0xD915C5D1u, 0x7C5457AFu,
    0x967A97DCu, 0x333B05A2u, 0x47CB61CBu, 0xE28AF3B5u, 0x08A433C6u, 0xADE5A1B8u,
    0x91E6869Eu, 0x34A714E0u, 0xDE89D493u, 0x7BC846EDu, 0x0F382284u, 0xAA79B0FAu,
    0x40577089u, 0xE516E2F7u, 0xA9B7B85Bu, 0x0CF62A25u, 0xE6D8EA56u, 0x43997828u,
    0x37691C41u, 0x92288E3Fu, 0x78064E4Cu, 0xDD47DC32u, 0xC76580D9u, 0x622412A7u,
    0x880AD2D4u, 0x2D4B40AAu, 0x59BB24C3u, 0xFCFAB6BDu, 0x16D476CEu, 0xB395E4B0u,
    0xFF34BE1Cu, 0x5A752C62u, 0xB05BEC11u, 0x151A7E6Fu, 0x61EA1A06u, 0xC4AB8878u,
    0x2E85480Bu, 0x8BC4DA75u, 0xB7C7FD53u, 0x12866F2Du, 0xF8A8AF5Eu, 0x5DE93D20u,
    0x29195949u, 0x8C58CB37u, 0x66760B44u, 0xC337993Au, 0x8F96C396u, 0x2AD751E8u,
    0xC0F9919Bu, 0x65B803E5u, 0x1148678Cu, 0xB409F5F2u, 0x5E273581u, 0xFB66A7FFu,
    0x26217BCDu, 0x8360E9B3u, 0x694E29C0u, 0xCC0FBBBEu, 0xB8FFDFD7u, 0x1DBE4DA9u,
    0xF7908DDAu, 0x52D11FA4u, 0x1E704508u, 0xBB31D776u, 0x511F1705u, 0xF45E857Bu,
    0x80AEE112u, 0x25EF736Cu, 0xCFC1B31Fu, 0x6A802161u, 0x56830647u, 0xF3C29439u,
    0x19EC544Au, 0xBCADC634u, 0xC85DA25Du, 0x6D1C3023u, 0x8732F050u, 0x2273622Eu,
    0x6ED23882u, 0xCB93AAFCu, 0x21BD6A8Fu, 0x84FCF8F1u, 0xF00C9C98u, 0x554D0EE6u,
    0xBF63CE95u, 0x1A225CEBu, 0x8B277743u, 0x2E66E53Du, 0xC448254Eu, 0x6109B730u,
    0x15F9D359u, 0xB0B84127u, 0x5A968154u, 0xFFD7132Au, 0xB3764986u, 0x1637DBF8u,
    0xFC191B8Bu, 0x595889F5u, 0x2DA8ED9Cu, 0x88E97FE2u, 0x62C7BF91u, 0xC7862DEFu,
    0xFB850AC9u, 0x5EC498B7u, 0xB4EA58C4u, 0x11ABCABAu, 0x655BAED3u, 0xC01A3CADu,
    0x2A34FCDEu, 0x8F756EA0u, 0xC3D4340Cu, 0x6695A672u, 0x8CBB6601u, 0x29FAF47Fu,
    0x5D0A9016u, 0xF84B0268u, 0x1265C21Bu, 0xB7245065u, 0x6A638C57u, 0xCF221E29u,
    0x250CDE5Au, 0x804D4C24u, 0xF4BD284Du, 0x51FCBA33u, 0xBBD27A40u, 0x1E93E83Eu,
    0x5232B292u, 0xF77320ECu, 0x1D5DE09Fu, 0xB81C72E1u, 0xCCEC1688u, 0x69AD84F6u,
    0x83834485u, 0x26C2D6FBu, 0x1AC1F1DDu, 0xBF8063A3u, 0x55AEA3D0u, 0xF0EF31AEu,
    0x841F55C7u, 0x215EC7B9u, 0xCB7007CAu, 0x6E3195B4u, 0x2290CF18u, 0x87D15D66u,
    0x6DFF9D15u, 0xC8BE0F6Bu, 0xBC4E6B02u, 0x190FF97Cu, 0xF321390Fu, 0x5660AB71u,
    0x4C42F79Au, 0xE90365E4u, 0x032DA597u, 0xA66C37E9u, 0xD29C5380u, 0x77DDC1FEu,
    0x9DF3018Du, 0x38B293F3u, 0x7413C95Fu, 0xD1525B21u, 0x3B7C9B52u, 0x9E3D092Cu,
    0xEACD6D45u, 0x4F8CFF3Bu, 0xA5A23F48u, 0x00E3AD36u, 0x3CE08A10u, 0x99A1186Eu,
    0x738FD81Du, 0xD6CE4A63u, 0xA23E2E0Au, 0x077FBC74u, 0xED517C07u, 0x4810EE79u,
    0x04B1B4D5u, 0xA1F026ABu, 0x4BDEE6D8u, 0xEE9F74A6u, 0x9A6F10CFu, 0x3F2E82B1u,
    0xD50042C2u, 0x7041D0BCu, 0xAD060C8Eu, 0x08479EF0u, 0xE2695E83u, 0x4728CCFDu,
    0x33D8A894u, 0x96993AEAu, 0x7CB7FA99u, 0xD9F668E7u, 0x9557324Bu, 0x3016A035u,
    0xDA386046u, 0x7F79F238u, 0x0B899651u, 0xAEC8042Fu, 0x44E6C45Cu, 0xE1A75622u,
    0xDDA47104u, 0x78E5E37Au, 0x92CB2309u, 0x378AB177u, 0x437AD51Eu, 0xE63B4760u,
    0x0C158713u, 0xA954156Du, 0xE5F54FC1u, 0x40B4DDBFu, 0xAA9A1DCCu, 0x0FDB8FB2u,
    0x7B2BEBDBu, 0xDE6A79A5u, 0x3444B9D6u, 0x91052BA8u,
  },
  {
    0x00000000u, 0xDD45AAB8u, 0xBF672381u, 0x62228939u, 0x7B2231F3u, 0xA6679B4Bu,
    0xC4451272u, 0x1900B8CAu, 0xF64463E6u, 0x2B01C95Eu, 0x49234067u, 0x9466EADFu,
    0x8D665215u, 0x5023F8ADu, 0x32017194u, 0xEF44DB2Cu, 0xE964B13Du, 0x34211B85u,
    0x560392BCu, 0x8B463804u, 0x924680CEu, 0x4F032A76u, 0x2D21A34Fu, 0xF06409F7u,
    0x1F20D2DBu, 0xC2657863u, 0xA047F15Au, 0x7D025BE2u, 0x6402E328u, 0xB9474990u,
    0xDB65C0A9u, 0x06206A11u, 0xD725148Bu, 0x0A60BE33u, 0x6842370Au, 0xB5079DB2u,
    0xAC072578u, 0x71428FC0u, 0x136006F9u, 0xCE25AC41u, 0x2161776Du, 0xFC24DDD5u,
    0x9E0654ECu, 0x4343FE54u, 0x5A43469Eu, 0x8706EC26u, 0xE524651Fu, 0x3861CFA7u,
    0x3E41A5B6u, 0xE3040F0Eu, 0x81268637u, 0x5C632C8Fu, 0x45639445u, 0x98263EFDu,
    0xFA04B7C4u, 0x27411D7Cu, 0xC805C650u, 0x15406CE8u, 0x7762E5D1u, 0xAA274F69u,
    0xB327F7A3u, 0x6E625D1Bu, 0x0C40D422u, 0xD1057E9Au, 0xABA65FE7u, 0x76E3F55Fu,
    0x14C17C66u, 0xC984D6DEu, 0xD0846E14u, 0x0DC1C4ACu, 0x6FE34D95u, 0xB2A6E72Du,
    0x5DE23C01u, 0x80A796B9u, 0xE2851F80u, 0x3FC0B538u, 0x26C00DF2u, 0xFB85A74Au,
    0x99A72E73u, 0x44E284CBu, 0x42C2EEDAu, 0x9F874462u, 0xFDA5CD5Bu, 0x20E067E3u,
    0x39E0DF29u, 0xE4A57591u, 0x8687FCA8u, 0x5BC25610u, 0xB4868D3Cu, 0x69C32784u,
    0x0BE1AEBDu, 0xD6A40405u, 0xCFA4BCCFu, 0x12E11677u, 0x70C39F4Eu, 0xAD8635F6u,
    0x7C834B6Cu, 0xA1C6E1D4u, 0xC3E468EDu, 0x1EA1C255u, 0x07A17A9Fu, 0xDAE4D027u,
    0xB8C6591Eu, 0x6583F3A6u, 0x8AC7288Au, 0x57828232u, 0x35A00B0Bu, 0xE8E5A1B3u,
    0xF1E51979u, 0x2CA0B3C1u, 0x4E823AF8u, 0x93C79040u, 0x95E7FA51u, 0x48A250E9u,
    0x2A80D9D0u, 0xF7C57368u, 0xEEC5CBA2u, 0x3380611Au, 0x51A2E823u, 0x8CE7429Bu,
    0x63A399B7u, 0xBEE6330Fu, 0xDCC4BA36u, 0x0181108Eu, 0x1881A844u, 0xC5C402FCu,
    0xA7E68BC5u, 0x7AA3217Du, 0x52A0C93Fu, 0x8FE56387u, 0xEDC7EABEu, 0x30824006u,
    0x2982F8CCu, 0xF4C75274u, 0x96E5DB4Du, 0x4BA071F5u, 0xA4E4AAD9u, 0x79A10061u,
    0x1B838958u, 0xC6C623E0u, 0xDFC69B2Au, 0x02833192u, 0x60A1B8ABu, 0xBDE41213u,
    0xBBC47802u, 0x6681D2BAu, 0x04A35B83u, 0xD9E6F13Bu, 0xC0E649F1u, 0x1DA3E349u,
    0x7F816A70u, 0xA2C4C0C8u, 0x4D801BE4u, 0x90C5B15Cu, 0xF2E73865u, 0x2FA292DDu,
    0x36A22A17u, 0xEBE780AFu, 0x89C50996u, 0x5480A32Eu, 0x8585DDB4u, 0x58C0770Cu,
    0x3AE2FE35u, 0xE7A7548Du, 0xFEA7EC47u, 0x23E246FFu, 0x41C0CFC6u, 0x9C85657Eu,
    0x73C1BE52u, 0xAE8414EAu, 0xCCA69DD3u, 0x11E3376Bu, 0x08E38FA1u, 0xD5A62519u,
    0xB784AC20u, 0x6AC10698u, 0x6CE16C89u, 0xB1A4C631u, 0xD3864F08u, 0x0EC3E5B0u,
    0x17C35D7Au, 0xCA86F7C2u, 0xA8A47EFBu, 0x75E1D443u, 0x9AA50F6Fu, 0x47E0A5D7u,
    0x25C22CEEu, 0xF8878656u, 0xE1873E9Cu, 0x3CC29424u, 0x5EE01D1Du, 0x83A5B7A5u,
    0xF90696D8u, 0x24433C60u, 0x4661B559u, 0x9B241FE1u, 0x8224A72Bu, 0x5F610D93u,
    0x3D4384AAu, 0xE0062E12u, 0x0F42F53Eu, 0xD2075F86u, 0xB025D6BFu, 0x6D607C07u,
    0x7460C4CDu, 0xA9256E75u, 0xCB07E74Cu, 0x16424DF4u, 0x106227E5u, 0xCD278D5Du,
    0xAF050464u, 0x7240AEDCu, 0x6B401616u, 0xB605BCAEu, 0xD4273597u, 0x09629F2Fu,
    0xE6264403u, 0x3B63EEBBu, 0x59416782u, 0x8404CD3Au, 0x9D0475F0u, 0x4041DF48u,
    0x22635671u, 0xFF26FCC9u, 0x2E238253u, 0xF36628EBu, 0x9144A1D2u, 0x4C010B6Au,
    0x5501B3A0u, 0x88441918u, 0xEA669021u, 0x37233A99u, 0xD867E1B5u, 0x05224B0Du,
    0x6700C234u, 0xBA45688Cu, 0xA345D046u, 0x7E007AFEu, 0x1C22F3C7u, 0xC167597Fu,
    0xC747336Eu, 0x1A0299D6u, 0x782010EFu, 0xA565BA57u, 0xBC65029Du, 0x6120A825u,
    0x0302211Cu, 0xDE478BA4u, 0x31035088u, 0xEC46FA30u, 0x8E647309u, 0x5321D9B1u,
    0x4A21617Bu, 0x9764CBC3u, 0xF54642FAu, 0x2803E842u,
  },
};

uint32_t udccp_crc32c(const uint8_t *data, size_t len) {
  uint32_t crc = 0xFFFFFFFFu;
  while (len >= 4) {
    crc ^= (uint32_t)data[0] | (uint32_t)data[1] << 8 |
           (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
    crc = crc32c_tab[3][crc & 0xFF] ^ crc32c_tab[2][(crc >> 8) & 0xFF] ^
          crc32c_tab[1][(crc >> 16) & 0xFF] ^ crc32c_tab[0][crc >> 24];
    data += 4;
    len -= 4;
  }
  while (len--) {
    crc = crc32c_tab[0][(crc ^ *data++) & 0xFF] ^ (crc >> 8);
  }
  return crc ^ 0xFFFFFFFFu;
}

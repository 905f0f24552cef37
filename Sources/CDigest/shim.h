#ifndef NEWSSTAND_CDIGEST_SHIM_H
#define NEWSSTAND_CDIGEST_SHIM_H

/* SHA-256 and MD5, in C, with no library. A local key takes SHA-256's first bytes of a catalog's
   ID, 10,000 of them a refresh: swift-crypto's SHA256 spent about 0.3 us on each, of which 0.04 us
   was the hashing itself (the rest went to the digest's context object, its Swift wrappers and
   the digest value). Here the state lives with the caller, and the blocks are compressed with
   the CPU's SHA extensions when it has them (AMD's since Zen, Intel's since Goldmont and Ice
   Lake), else in plain C. Downloads are checked with the same code as a stream, and HTTP Digest
   authentication takes MD5 of short texts (RFC 7616). With these, newsstand needs no crypto
   library: swift-crypto's BoringSSL was compiled by every build, CI's three among them. The
   output is the standard one (keys made before stay the same); the tests hold each against
   Python's hashlib (OpenSSL). */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t cdigest_sha256_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t cdigest_rotate_right(uint32_t value, int count) {
    return (value >> count) | (value << (32 - count));
}

/* FIPS 180-4's compression, word by word. */
static inline void cdigest_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
    for (; blocks > 0; blocks--, data += 64) {
        uint32_t w[64];
        for (int i = 0; i < 16; i++) {
            w[i] = (uint32_t)data[4 * i] << 24 | (uint32_t)data[4 * i + 1] << 16 | (uint32_t)data[4 * i + 2] << 8 | data[4 * i + 3];
        }
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = cdigest_rotate_right(w[i - 15], 7) ^ cdigest_rotate_right(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = cdigest_rotate_right(w[i - 2], 17) ^ cdigest_rotate_right(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; i++) {
            uint32_t s1 = cdigest_rotate_right(e, 6) ^ cdigest_rotate_right(e, 11) ^ cdigest_rotate_right(e, 25);
            uint32_t choice = (e & f) ^ (~e & g);
            uint32_t t1 = h + s1 + choice + cdigest_sha256_constants[i] + w[i];
            uint32_t s0 = cdigest_rotate_right(a, 2) ^ cdigest_rotate_right(a, 13) ^ cdigest_rotate_right(a, 22);
            uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
            uint32_t t2 = s0 + majority;
            h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
        state[4] += e; state[5] += f; state[6] += g; state[7] += h;
    }
}

#if defined(__x86_64__)
/* The same with the SHA extensions: the state is held as ABEF and CDGH, as sha256rnds2 wants,
   two rounds an instruction, and the message schedule four words at a time. */
__attribute__((target("sha,sse4.1,ssse3")))
static inline void cdigest_sha256_blocks_extensions(uint32_t state[8], const uint8_t *data, size_t blocks) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i cdab = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        /* Words 4g to 4g + 3 of the schedule, for the last four groups g. */
        __m128i groups[4];
        for (int i = 0; i < 4; i++) groups[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), byte_swap);
        /* Unrolled, the four groups stay in registers: 1.55 GB/s here, as OpenSSL's assembly, against 1.2. */
#pragma GCC unroll 16
        for (int group = 0; group < 16; group++) {
            if (group >= 4) {
                __m128i next = _mm_sha256msg1_epu32(groups[group & 3], groups[(group + 1) & 3]);
                next = _mm_add_epi32(next, _mm_alignr_epi8(groups[(group + 3) & 3], groups[(group + 2) & 3], 4));
                groups[group & 3] = _mm_sha256msg2_epu32(next, groups[(group + 3) & 3]);
            }
            __m128i sum = _mm_add_epi32(groups[group & 3], _mm_loadu_si128((const __m128i *)&cdigest_sha256_constants[4 * group]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, sum);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(sum, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

/* Whether the CPU has the SHA extensions (and the SSE it needs), asked once. */
static inline int cdigest_has_sha_extensions(void) {
    static int known; /* 0 not asked yet, 1 no, 2 yes */
    int answer = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (answer == 0) {
        unsigned int eax, ebx, ecx, edx;
        int sse = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSSE3) && (ecx & bit_SSE4_1);
        int sha = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_SHA);
        answer = sse && sha ? 2 : 1;
        __atomic_store_n(&known, answer, __ATOMIC_RELAXED);
    }
    return answer == 2;
}
#endif

static inline void cdigest_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks, int portable) {
#if defined(__x86_64__)
    if (!portable && cdigest_has_sha_extensions()) {
        cdigest_sha256_blocks_extensions(state, data, blocks);
        return;
    }
#endif
    cdigest_sha256_blocks_portable(state, data, blocks);
}

/* The last block or two of a text of `length` bytes whose last `rest` bytes are `rest_bytes`:
   those bytes, 0x80, zeros and the length in bits (big-endian for SHA-256, little-endian for
   MD5), written into `last`. Answers how many blocks that took. */
static inline size_t cdigest_padded(uint8_t last[128], const uint8_t *rest_bytes, size_t rest, uint64_t length, int little_endian) {
    if (rest > 0) memcpy(last, rest_bytes, rest);
    last[rest] = 0x80;
    size_t size = rest + 1 + 8 <= 64 ? 64 : 128;
    memset(last + rest + 1, 0, size - rest - 1);
    uint64_t bits = length * 8;
    for (int i = 0; i < 8; i++) last[little_endian ? size - 8 + i : size - 1 - i] = (uint8_t)(bits >> (8 * i));
    return size / 64;
}

/* Pads the last `rest` bytes of a text of `length` bytes, compresses them and writes the digest
   (32 bytes). */
static inline void cdigest_sha256_last(uint32_t state[8], const uint8_t *rest_bytes, size_t rest, uint64_t length, uint8_t digest[32],
                                       int portable) {
    uint8_t last[128];
    cdigest_sha256_blocks(state, last, cdigest_padded(last, rest_bytes, rest, length, 0), portable);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)state[i];
    }
}

static inline void cdigest_sha256_initial(uint32_t state[8]) {
    static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(state, initial, sizeof initial);
}

/* The SHA-256 digest of `count` bytes into `digest` (32 bytes); `portable` keeps to plain C
   whatever the CPU has (for the tests of both ways). */
static inline void cdigest_sha256(const uint8_t *bytes, size_t count, uint8_t digest[32], int portable) {
    uint32_t state[8];
    cdigest_sha256_initial(state);
    size_t whole = count / 64;
    if (whole > 0) cdigest_sha256_blocks(state, bytes, whole, portable);
    cdigest_sha256_last(state, bytes + whole * 64, count - whole * 64, count, digest, portable);
}

/* SHA-256 of bytes given piece by piece: a file read back in chunks. */
typedef struct {
    uint32_t state[8];
    uint64_t length;      /* bytes added so far */
    uint8_t held[64];     /* the start of a block not yet whole: length % 64 bytes */
    int portable;
} cdigest_sha256_stream;

static inline void cdigest_sha256_stream_start(cdigest_sha256_stream *stream, int portable) {
    cdigest_sha256_initial(stream->state);
    stream->length = 0;
    stream->portable = portable;
}

static inline void cdigest_sha256_stream_add(cdigest_sha256_stream *stream, const void *start, size_t count) {
    if (count == 0) return;
    const uint8_t *bytes = start;
    size_t held = (size_t)(stream->length % 64);
    stream->length += count;
    if (held > 0) {
        size_t take = 64 - held < count ? 64 - held : count;
        memcpy(stream->held + held, bytes, take);
        if (held + take < 64) return;
        cdigest_sha256_blocks(stream->state, stream->held, 1, stream->portable);
        bytes += take;
        count -= take;
    }
    size_t whole = count / 64;
    if (whole > 0) cdigest_sha256_blocks(stream->state, bytes, whole, stream->portable);
    if (count > whole * 64) memcpy(stream->held, bytes + whole * 64, count - whole * 64);
}

/* The digest of everything added (32 bytes); the stream is spent. */
static inline void cdigest_sha256_stream_finish(cdigest_sha256_stream *stream, uint8_t digest[32]) {
    cdigest_sha256_last(stream->state, stream->held, (size_t)(stream->length % 64), stream->length, digest, stream->portable);
}

/* MD5 (RFC 1321), for HTTP Digest authentication's hashes of short texts, which servers such as
   calibre's still ask for. Not for anything that must resist an attacker's collisions. */
static const uint32_t cdigest_md5_constants[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static const uint8_t cdigest_md5_shifts[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};

static inline void cdigest_md5_blocks(uint32_t state[4], const uint8_t *data, size_t blocks) {
    for (; blocks > 0; blocks--, data += 64) {
        uint32_t m[16];
        for (int i = 0; i < 16; i++) {
            m[i] = (uint32_t)data[4 * i] | (uint32_t)data[4 * i + 1] << 8 | (uint32_t)data[4 * i + 2] << 16 | (uint32_t)data[4 * i + 3] << 24;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        for (int i = 0; i < 64; i++) {
            uint32_t f;
            int word;
            switch (i / 16) {
            case 0: f = (b & c) | (~b & d); word = i; break;
            case 1: f = (d & b) | (~d & c); word = (5 * i + 1) % 16; break;
            case 2: f = b ^ c ^ d; word = (3 * i + 5) % 16; break;
            default: f = c ^ (b | ~d); word = (7 * i) % 16; break;
            }
            f += a + cdigest_md5_constants[i] + m[word];
            int shift = cdigest_md5_shifts[(i / 16) * 4 + i % 4];
            a = d;
            d = c;
            c = b;
            b += (f << shift) | (f >> (32 - shift));
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
    }
}

/* The MD5 digest of `count` bytes into `digest` (16 bytes). */
static inline void cdigest_md5(const uint8_t *bytes, size_t count, uint8_t digest[16]) {
    uint32_t state[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    size_t whole = count / 64;
    if (whole > 0) cdigest_md5_blocks(state, bytes, whole);
    uint8_t last[128];
    cdigest_md5_blocks(state, last, cdigest_padded(last, bytes + whole * 64, count - whole * 64, count, 1));
    for (int i = 0; i < 4; i++) {
        digest[4 * i] = (uint8_t)state[i];
        digest[4 * i + 1] = (uint8_t)(state[i] >> 8);
        digest[4 * i + 2] = (uint8_t)(state[i] >> 16);
        digest[4 * i + 3] = (uint8_t)(state[i] >> 24);
    }
}

#endif

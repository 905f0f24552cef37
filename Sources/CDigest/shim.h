#ifndef NEWSSTAND_CDIGEST_SHIM_H
#define NEWSSTAND_CDIGEST_SHIM_H

/* SHA-256 of a short text in one call, for the hash in a local key. swift-crypto's SHA256 spent
   about 0.3 us on each of a catalog's 10,000 IDs, of which 0.04 us was the hashing itself: the
   rest went to the digest's context object, its Swift wrappers and the digest value. Here the
   state lives on the stack, and the blocks are compressed with the CPU's SHA extensions when it
   has them (AMD's since Zen, Intel's since Goldmont and Ice Lake), else in plain C. The output
   is SHA-256's, so keys made before stay the same; the tests hold both ways against swift-crypto. */

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

/* The SHA-256 digest of `count` bytes into `digest` (32 bytes); `portable` keeps to plain C
   whatever the CPU has (for the tests of both ways). */
static inline void cdigest_sha256(const uint8_t *bytes, size_t count, uint8_t digest[32], int portable) {
    uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    size_t whole = count / 64;
    if (whole > 0) cdigest_sha256_blocks(state, bytes, whole, portable);
    /* The rest, 0x80, zeros and the length in bits, big-endian: one block or two. */
    uint8_t last[128];
    size_t rest = count - whole * 64;
    if (rest > 0) memcpy(last, bytes + whole * 64, rest);
    last[rest] = 0x80;
    size_t size = rest + 1 + 8 <= 64 ? 64 : 128;
    memset(last + rest + 1, 0, size - rest - 1);
    uint64_t bits = (uint64_t)count * 8;
    for (int i = 0; i < 8; i++) last[size - 1 - i] = (uint8_t)(bits >> (8 * i));
    cdigest_sha256_blocks(state, last, size / 64, portable);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)state[i];
    }
}

#endif

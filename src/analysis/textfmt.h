/* Numbers to text without printf, for writers that run once per decoded
 * block or instruction (printf costs thousands of host instructions a
 * line).  Internal to src/analysis. */
#ifndef RVT_ANALYSIS_TEXTFMT_H
#define RVT_ANALYSIS_TEXTFMT_H

#include <stdint.h>
#include <string.h>

/* Eight upper-case hex digits of v as they lie in memory, most significant
 * first (no printf: this runs once per decoded instruction). */
static inline uint64_t txt_hex8(uint32_t v)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x = v;
    x = (x | x << 16) & 0x0000FFFF0000FFFFull;
    x = (x | x << 8) & 0x00FF00FF00FF00FFull;
    x = (x | x << 4) & 0x0F0F0F0F0F0F0F0Full; /* byte i = nibble i */
    uint64_t letters = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull; /* nibble >= 10 */
    x += 0x3030303030303030ull + letters * 7;  /* '0' + n, or 'A' + n - 10 */
    return __builtin_bswap64(x);                 /* most significant digit first */
#else
    static const char hex[] = "0123456789ABCDEF";
    uint64_t x;
    char t[8];
    for (int i = 0; i < 8; i++)
        t[i] = hex[(v >> (28 - 4 * i)) & 15];
    memcpy(&x, t, 8);
    return x;
#endif
}

/* Lower-case hex digits of v, as many as it needs (at least one, at most
 * 16), or exactly `width` (8 or 16) zero-padded: "%" PRIx64 and "%0*" PRIx64.
 * Stores 16 bytes at p whatever it keeps: leave room. */
static inline char *txt_hex(char *p, uint64_t v, unsigned width)
{
    uint64_t hi = txt_hex8((uint32_t)(v >> 32)), lo = txt_hex8((uint32_t)v);
    /* hex8 is upper-case: letters ('A'..'F', bit 6 set) to lower case */
    hi |= (hi & 0x4040404040404040ull) >> 1;
    lo |= (lo & 0x4040404040404040ull) >> 1;
    char t[32] = {0}; /* (16 bytes are copied from wherever the digits start) */
    memcpy(t, &hi, 8);
    memcpy(t + 8, &lo, 8);
    unsigned n = width;
    if (!n) {
#if defined(__GNUC__)
        n = (unsigned)(67 - __builtin_clzll(v | 1)) / 4;
#else
        n = 1;
        for (uint64_t x = v >> 4; x; x >>= 4)
            n++;
#endif
    }
    memcpy(p, t + 16 - n, 16);
    return p + n;
}

/* "%*" PRIu64 without printf: right-aligned in `width` columns. */
static inline char *txt_dec(char *p, uint64_t v, unsigned width)
{
    static const char pairs[200] =
        "0001020304050607080910111213141516171819"
        "2021222324252627282930313233343536373839"
        "4041424344454647484950515253545556575859"
        "6061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    static const uint64_t pow10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};
    unsigned n = 1;
    while (n < 20 && v >= pow10[n])
        n++;
    for (; width > n; width--)
        *p++ = ' ';
    char *q = p + n;
    for (; v >= 100; v /= 100) { /* two digits at a time */
        q -= 2;
        memcpy(q, pairs + 2 * (v % 100), 2);
    }
    if (v >= 10)
        memcpy(q - 2, pairs + 2 * v, 2);
    else
        q[-1] = (char)('0' + v);
    return p + n;
}

static inline char *txt_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* s as a JSON string (quotes included) at p, if it fits in room bytes;
 * NULL if not. */
static inline char *txt_json(char *p, const char *s, size_t room)
{
    static const char hex[] = "0123456789abcdef";
    char *const end = p + room;
    if (p == end)
        return NULL;
    *p++ = '"';
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (end - p < 7)
            return NULL;
        if (c == '"' || c == '\\') {
            *p++ = '\\';
            *p++ = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            memcpy(p, "\\u00", 4);
            p[4] = hex[c >> 4];
            p[5] = hex[c & 15];
            p += 6;
        } else {
            *p++ = (char)c;
        }
    }
    if (p == end)
        return NULL;
    *p++ = '"';
    return p;
}

#endif

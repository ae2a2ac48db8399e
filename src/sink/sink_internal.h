/* Helpers shared by the sink layer's files (not public). */
#ifndef RVT_SINK_INTERNAL_H
#define RVT_SINK_INTERNAL_H

#include "rvtrace/sink.h"

#include <stdbool.h>

/* Parse an unsigned number spanning exactly s[0..n): decimal, 0x hex or
 * 0b binary, with optional '_' separators between digits.  With
 * allow_suffix, a final k/m/g multiplies by 2^10/2^20/2^30.  Returns false
 * on anything else or on overflow. */
bool rvt_sk_parse_u64(const char *s, size_t n, bool allow_suffix, uint64_t *out);

/* A line of a text buffer without its end-of-line; trailing comment
 * ('#', ';' or "//") and surrounding blanks removed. */
struct rvt_sk_line {
    const char *p;
    size_t n;
    unsigned lineno;
};
/* Next line from *pos (updated); false at the end. */
bool rvt_sk_next_line(const char *text, size_t len, size_t *pos, unsigned *lineno, struct rvt_sk_line *line);
/* Split off the next blank-separated token of a line. */
bool rvt_sk_token(struct rvt_sk_line *l, const char **tok, size_t *tn);
/* Printable copy of at most outsz-1 bytes of s for messages. */
const char *rvt_sk_quote(const char *s, size_t n, char *out, size_t outsz);

/* Little-endian 32-bit word access. */
static inline uint32_t rvt_sk_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void rvt_sk_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Trace word widths the RAM sink accepts (bits): 32 .. 1024, powers of 2. */
static inline bool rvt_sk_width_ok(unsigned bits)
{
    return bits >= 32 && bits <= 1024 && (bits & (bits - 1)) == 0;
}

#endif

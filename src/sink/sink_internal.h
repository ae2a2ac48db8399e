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

/* fd's whole file mapped read-only (private), if it is a non-empty
 * regular file that can be: rvt_map_file's mapping, for a file already
 * open (the caller closes fd when it likes; unmap with rvt_unmap_file). */
bool rvt_map_fd(int fd, const uint8_t **data, size_t *len);

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

/* ---- Trace Control Interface register descriptions (tci.c) ---------------- */

enum rvt_sk_acc {
    RVT_SK_RW,        /* read/write (also WARL: reads back a legal value) */
    RVT_SK_RO,        /* read-only */
    RVT_SK_RW1C,      /* sticky status, write 1 to clear */
    RVT_SK_W1         /* write 1 for an action, reads 0 */
};

/* Component kinds as bits, for registers shared by several kinds. */
enum {
    RVT_SK_K_TE = 1u << 0,
    RVT_SK_K_FUNNEL = 1u << 1,
    RVT_SK_K_RAM = 1u << 2,
    RVT_SK_K_ATB = 1u << 3
};

struct rvt_sk_field {
    const char *name;
    uint8_t lsb, width;
    uint8_t acc;      /* enum rvt_sk_acc */
};

struct rvt_sk_reg {
    const char *name; /* for indexed blocks: the suffix ("Control") */
    uint16_t off;     /* for indexed blocks: offset inside the 0x20 block */
    uint8_t kinds;    /* RVT_SK_K_* */
    uint8_t block;    /* 0, or 1 = trTeFilter<i>, 2 = trTeComp<j> */
    bool side_effect; /* reading changes state (trRamData) */
    const struct rvt_sk_field *fields;
    unsigned nfields;
};

unsigned rvt_sk_kind_bit(enum rvt_tci_comp kind);
/* The register named name[0..n) (case-insensitive); *off is its offset in
 * the block (indexed filter/comparator registers included). */
const struct rvt_sk_reg *rvt_sk_reg_find(const char *name, size_t n, uint32_t *off);
/* The register of a component kind at an offset (NULL: none described). */
const struct rvt_sk_reg *rvt_sk_reg_at(enum rvt_tci_comp kind, uint32_t off);
/* A field of register r by name; NULL if none. */
const struct rvt_sk_field *rvt_sk_reg_field(const struct rvt_sk_reg *r, const char *name, size_t n);
/* A field name that is unique among the fixed (non-indexed) registers. */
const struct rvt_sk_field *rvt_sk_field_find(const char *name, size_t n, const struct rvt_sk_reg **reg,
                                             uint32_t *off);
/* Bits of r that read back what was written if the value is legal. */
uint32_t rvt_sk_reg_rw_mask(const struct rvt_sk_reg *r);
/* Bits of r that act when written as 1 (RW1C, W1). */
uint32_t rvt_sk_reg_action_mask(const struct rvt_sk_reg *r);
/* Name of a register for messages and dumps ("trTeFilter2Control"). */
const char *rvt_sk_reg_fullname(const struct rvt_sk_reg *r, uint32_t off, char *buf, size_t bufsz);

#endif

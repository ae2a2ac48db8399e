/* The one-pass reader of E-Trace formats 1 and 2 (et_pkt_read_fast in
 * etrace.h), inline for the decoder's packet loop; packet.c exports it for
 * the tests and the fuzz target, which compare it with the general reader. */
#ifndef RVT_ETRACE_FASTRD_H
#define RVT_ETRACE_FASTRD_H

#include "etrace/etrace.h"

#include <string.h>

#if defined(__GNUC__)
#define RVT_FASTRD_INLINE inline __attribute__((always_inline))
#else
#define RVT_FASTRD_INLINE inline
#endif

static inline uint64_t et_fmask64(unsigned w)
{
    return w >= 64 ? ~0ull : ((1ull << w) - 1);
}

/* E-Trace 2.0's branch_map widths (payload.adoc, format 1). */
static inline unsigned et_map_bits_v2(unsigned branches)
{
    return branches == 0 ? 31 : branches == 1 ? 1 : branches <= 3 ? 3 : branches <= 7 ? 7 : branches <= 15 ? 15 : 31;
}

static inline uint64_t et_load64le(const uint8_t *b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, b, 8);
    return v;
#else
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
#endif
}

/* Bits pos..pos+n-1 (n <= 64; m: their mask) of w, which holds the payload
 * followed by copies of its last bit (what rd_get reads beyond the
 * received bits). */
static inline uint64_t et_fget(const uint64_t *w, unsigned pos, unsigned n, uint64_t m)
{
    unsigned i = pos / 64, o = pos % 64;
    uint64_t v = w[i] >> o;
    if (o + n > 64)
        v |= w[i + 1] << (64 - o);
    return v & m;
}

static RVT_FASTRD_INLINE bool et_pkt_read_fast_inline(const struct et_fastrd *fr, const uint8_t *payload, unsigned len,
                                                      struct et_packet *k, bool clean)
{
    unsigned fmt = payload[0] & 3;
    if (fmt != ET_F1 && fmt != ET_F2)
        return false;
    /* The payload's bits, then (sign-based compression) copies of its last. */
    uint64_t fill = 0 - (uint64_t)(payload[len - 1] >> 7);
    uint64_t w[5] = {fill, fill, fill, fill, fill};
    unsigned last = (len - 1) / 8; /* the word of the last payload byte */
    /* (unrolled: a loop here becomes a call of memcpy) */
    if (last > 0)
        w[0] = et_load64le(payload);
    if (last > 1)
        w[1] = et_load64le(payload + 8);
    if (last > 2)
        w[2] = et_load64le(payload + 16);
    uint64_t m = et_fmask64(8 * (len - 8 * last));
    w[last] = (et_load64le(payload + 8 * last) & m) | (fill & ~m);
    /* clean: k is zero but for the fields written below (the reader
     * filled it last), which are all written */
    if (!clean)
        memset(k, 0, sizeof *k);
    k->format = (uint8_t)fmt;
    unsigned pos = 2;
    bool addr = true;
    k->branches = 0;
    k->branch_map = 0;
    if (fmt == ET_F1) {
        unsigned branches = (unsigned)et_fget(w, pos, 5, 0x1f);
        unsigned mb = et_map_bits_v2(branches);
        k->branches = (uint8_t)branches;
        k->branch_map = (uint32_t)et_fget(w, pos + 5, mb, (1u << mb) - 1);
        pos += 5 + mb;
        addr = branches != 0;
    }
    if (!addr) {
        k->address = 0;
        k->has_address = false;
        k->raw_notify = k->raw_updiscon = k->notify = k->updiscon = 0;
        k->has_status = false;
        k->raw_irreport = k->irreport = 0;
        k->raw_irdepth = k->irdepth = 0;
        k->has_ir = false;
    } else {
        /* get_status and get_ir */
        uint64_t a = et_fget(w, pos, fr->aw, fr->aw_mask);
        unsigned st = (unsigned)et_fget(w, pos + fr->aw, 3, 7); /* notify, updiscon, irreport */
        pos += fr->aw + 3;
        unsigned n = st & 1, u = (st >> 1) & 1, ir = st >> 2;
        uint32_t depth = (uint32_t)et_fget(w, pos, fr->irdb, fr->ir_ones);
        pos += fr->irdb;
        k->address = a;
        k->has_address = true;
        k->raw_notify = (uint8_t)n;
        k->raw_updiscon = (uint8_t)u;
        k->notify = n != ((a >> (fr->aw - 1)) & 1);
        k->updiscon = u != n;
        k->has_status = true;
        k->raw_irreport = (uint8_t)ir;
        k->raw_irdepth = depth;
        k->irreport = ir != u;
        k->has_ir = true;
        k->irdepth = k->irreport ? depth : 0;
        if (!k->irreport && depth != (ir ? fr->ir_ones : 0) && depth != fr->ir_ones)
            return false; /* et_pkt_check_irdepth */
    }
    k->field_bits = pos;
    unsigned nbits = 8 * len;
    if (nbits >= pos + 8)
        return false; /* et_pkt_unpack_bits: a payload longer than its fields */
    if (pos < nbits) {
        /* et_pkt_check_padding: bits pos-1 .. nbits-1 all equal */
        uint64_t pm = (2ull << (nbits - pos)) - 1; /* (at most 8 bits) */
        uint64_t pad = et_fget(w, pos - 1, nbits - pos + 1, pm);
        if (pad != 0 && pad != pm)
            return false;
    }
    /* et_pkt_check_compressed: with the padding sound, the bits from
     * min(nbits, fields' end) - 1 on all equal the last one, so the
     * compressed form needs all len bytes exactly when one of the last
     * nine payload bits differs from the others (or len is 1). */
    if (fr->check_compressed && len > 1) {
        uint64_t top = et_fget(w, nbits - 9, 9, 0x1ff);
        if (top == 0 || top == 0x1ff)
            return false;
    }
    return true;
}

#endif

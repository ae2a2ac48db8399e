/* CDL compressed trace: nybble codes <-> fields, nybble packing, sync search. */
#include "cdl/cdl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

unsigned cdl_data_bytes(unsigned nnn, bool wide)
{
    if (wide && nnn == 7)
        return 9;
    return nnn & 7;
}

/* Bytes needed for a value of up to 72 bits given as low 64 bits + top byte. */
static unsigned bytes_needed(uint64_t lo, unsigned hi)
{
    if (hi)
        return 9;
    unsigned n = 0;
    while (lo) {
        n++;
        lo >>= 8;
    }
    return n;
}

/* Shortest length code that holds `bytes` bytes; 0 if none does. */
static unsigned nnn_for(unsigned bytes, bool wide)
{
    if (bytes <= 6 || (bytes == 7 && !wide))
        return bytes;
    return wide ? 7 : 0; /* wide: code 7 = 9 bytes */
}

static uint64_t pc_value(uint64_t pc, unsigned xlen)
{
    return xlen == 32 ? (pc & 0xffffffffu) : pc;
}

/* A register value as traced: integer registers are XLEN wide, floating
 * point registers FLEN = 64 wide (a single-precision value NaN-boxed). */
static uint64_t rfw_value(unsigned rd, uint64_t value, unsigned xlen)
{
    return xlen == 32 && (rd & 63) < 32 ? (value & 0xffffffffu) : value;
}

unsigned cdl_pc_bytes(uint64_t pc, unsigned xlen)
{
    unsigned nb = bytes_needed(pc_value(pc, xlen), 0);
    return nb ? nb : 1;
}

unsigned cdl_rfw_bytes(unsigned rd, uint64_t value, unsigned xlen)
{
    /* The field's integer is rd | value << 8 (72 bits at most); byte 0 (rd)
     * is always sent. */
    uint64_t v = rfw_value(rd, value, xlen);
    unsigned nb = bytes_needed((uint64_t)(rd & 63) | (v << 8), (unsigned)(v >> 56));
    return nb ? nb : 1;
}

bool cdl_field_pc(struct cdl_field *f, uint64_t pc, struct cdl_fmt fm)
{
    memset(f, 0, sizeof *f);
    unsigned nnn = nnn_for(cdl_pc_bytes(pc, fm.xlen), fm.wide);
    if (!nnn)
        return false;
    f->kind = CDL_F_DATA;
    f->reason = CDL_DATA_PC;
    f->value = pc_value(pc, fm.xlen);
    f->nnn = (uint8_t)nnn;
    f->nbytes = (uint8_t)cdl_data_bytes(nnn, fm.wide);
    return true;
}

bool cdl_field_rfw(struct cdl_field *f, unsigned rd, uint64_t value, struct cdl_fmt fm)
{
    memset(f, 0, sizeof *f);
    unsigned nnn = nnn_for(cdl_rfw_bytes(rd, value, fm.xlen), fm.wide);
    if (!nnn)
        return false;
    f->kind = CDL_F_DATA;
    f->reason = CDL_DATA_RFW;
    f->rd = (uint8_t)(rd & 63);
    f->value = rfw_value(rd, value, fm.xlen);
    f->nnn = (uint8_t)nnn;
    f->nbytes = (uint8_t)cdl_data_bytes(nnn, fm.wide);
    return true;
}

unsigned cdl_field_encode(const struct cdl_field *f, struct cdl_fmt fm, uint8_t *nyb)
{
    switch (f->kind) {
    case CDL_F_SKIP:
        nyb[0] = 0;
        return 1;
    case CDL_F_SEQ:
        nyb[0] = (uint8_t)(f->seq & 7);
        return 1;
    case CDL_F_NONSEQ:
        nyb[0] = (uint8_t)(0x8 | (f->nonseq & 3));
        return 1;
    case CDL_F_TRACEPOINT:
        nyb[0] = CDL_TRACEPOINT;
        nyb[1] = (uint8_t)(f->tp & 0xf);
        return 2;
    case CDL_F_STOP:
    case CDL_F_LOST:
        nyb[0] = CDL_DATA;
        nyb[1] = f->kind == CDL_F_LOST ? 0x8 : 0x0;
        return 2;
    case CDL_F_DATA: {
        unsigned nb = cdl_data_bytes(f->nnn, fm.wide);
        nyb[0] = CDL_DATA;
        nyb[1] = (uint8_t)(((f->reason & 1) << 3) | (f->nnn & 7));
        uint64_t lo;
        unsigned hi;
        if (f->reason == CDL_DATA_RFW) {
            lo = (uint64_t)f->rd | (f->value << 8);
            hi = (unsigned)(f->value >> 56);
        } else {
            lo = f->value;
            hi = 0;
        }
        /* least significant nybble first: the low 64 bits (16 nybbles at
         * most), then the top byte's two */
        const unsigned n = 2 * nb, nlo = n < 16 ? n : 16;
        for (unsigned i = 0; i < nlo; i++, lo >>= 4)
            nyb[2 + i] = (uint8_t)(lo & 0xf);
        for (unsigned i = nlo; i < n; i++, hi >>= 4)
            nyb[2 + i] = (uint8_t)(hi & 0xf);
        return 2 + n;
    }
    default:
        return 0;
    }
}

int cdl_field_decode(const uint8_t *nyb, size_t avail, struct cdl_fmt fm, struct cdl_field *f, struct rvt_diag *d)
{
    if (avail == 0)
        return 0;
    memset(f, 0, sizeof *f);
    unsigned c = nyb[0] & 0xf;
    if (c == CDL_SKIP) {
        f->kind = CDL_F_SKIP;
        return 1;
    }
    if (c < 0x8) {
        f->kind = CDL_F_SEQ;
        f->seq = (uint8_t)c;
        return 1;
    }
    if (c < 0xC) {
        f->kind = CDL_F_NONSEQ;
        f->nonseq = (uint8_t)(c & 3);
        return 1;
    }
    if (c == CDL_TRACEPOINT) {
        if (avail < 2)
            return 0;
        f->kind = CDL_F_TRACEPOINT;
        f->tp = (uint8_t)(nyb[1] & 0xf);
        return 2;
    }
    if (c != CDL_DATA)
        return rvt_fail(d, RVT_ERR_FORMAT, "reserved control nybble 0x%X (111x), expected 0000..1101", c);
    if (avail < 2)
        return 0;
    f->kind = CDL_F_DATA;
    f->reason = (uint8_t)((nyb[1] >> 3) & 1);
    f->nnn = (uint8_t)(nyb[1] & 7);
    if (f->nnn == 0) {
        /* No data: the recorder's stop (R=0) or lost (R=1) marker. */
        f->kind = f->reason == CDL_DATA_RFW ? CDL_F_LOST : CDL_F_STOP;
        return 2;
    }
    unsigned nb = cdl_data_bytes(f->nnn, fm.wide);
    f->nbytes = (uint8_t)nb;
    if (avail < 2 + 2 * (size_t)nb)
        return 0;
    uint64_t lo = 0;
    unsigned hi = 0;
    for (unsigned i = 0; i < 2 * nb; i++) {
        unsigned bit = 4 * i;
        uint64_t v = nyb[2 + i] & 0xf;
        if (bit < 64)
            lo |= v << bit;
        else
            hi |= (unsigned)v << (bit - 64);
    }
    if (f->reason == CDL_DATA_PC) {
        if (hi || (fm.xlen == 32 && (lo >> 32)))
            return rvt_fail(d, RVT_ERR_FORMAT, "PC data of %u bytes is wider than XLEN=%u", nb, fm.xlen);
        if (lo & 1)
            return rvt_fail(d, RVT_ERR_FORMAT, "PC data 0x%" PRIx64 " is odd, expected a 2-byte aligned address",
                            lo);
        f->value = lo;
    } else {
        f->rd = (uint8_t)(lo & 0xff);
        if (f->rd > 63)
            return rvt_fail(d, RVT_ERR_FORMAT, "register write names register %u, expected 0..63", f->rd);
        uint64_t val = (lo >> 8) | ((uint64_t)hi << 56);
        if (fm.xlen == 32 && f->rd < 32 && (val >> 32))
            return rvt_fail(d, RVT_ERR_FORMAT,
                            "write of x%u = 0x%" PRIx64 " is wider than XLEN=32 (only f registers hold 64 bits)",
                            f->rd, val);
        f->value = val;
    }
    return (int)(2 + 2 * nb);
}

unsigned cdl_field_len(const uint8_t *nyb, size_t avail, bool wide)
{
    if (!avail)
        return 0;
    unsigned c = nyb[0] & 0xf;
    if (c < CDL_DATA || c > CDL_TRACEPOINT)
        return 1;
    if (c == CDL_TRACEPOINT)
        return 2;
    if (avail < 2)
        return 0;
    return 2 + 2 * cdl_data_bytes(nyb[1] & 7, wide);
}

int cdl_field_format(const struct cdl_field *f, char *buf, size_t size)
{
    static const char *const ns[4] = {"branch-taken", "jump", "trap", "trap-return"};
    switch (f->kind) {
    case CDL_F_SKIP:
        return snprintf(buf, size, "skip");
    case CDL_F_SEQ:
        return snprintf(buf, size, "seq %u", f->seq);
    case CDL_F_NONSEQ:
        return snprintf(buf, size, "nonseq %s", ns[f->nonseq & 3]);
    case CDL_F_TRACEPOINT:
        return snprintf(buf, size, "tracepoint %u", f->tp);
    case CDL_F_STOP:
        return snprintf(buf, size, "stop (trace off, or the end of the recording)");
    case CDL_F_LOST:
        return snprintf(buf, size, "lost (trace data dropped)");
    case CDL_F_DATA:
        if (f->reason == CDL_DATA_PC)
            return snprintf(buf, size, "data pc 0x%" PRIx64 " (nnn %u, %u bytes)", f->value, f->nnn, f->nbytes);
        return snprintf(buf, size, "data rfw x%u%s = 0x%" PRIx64 " (nnn %u, %u bytes)",
                        f->rd & 31u, f->rd >= 32 ? " (f)" : "", f->value, f->nnn, f->nbytes);
    default:
        return snprintf(buf, size, "?");
    }
}

bool cdl_find_zero_run(const uint8_t *nyb, size_t len, size_t from, unsigned min_zeros, size_t *run_start,
                       size_t *after)
{
    size_t i = from;
    while (i < len) {
        if (nyb[i]) {
            i++;
            continue;
        }
        size_t s = i;
        while (i < len && nyb[i] == 0)
            i++;
        if (i - s >= min_zeros) {
            *run_start = s;
            *after = i;
            return true;
        }
    }
    return false;
}

/* A sync candidate is the first nybble after a run of >= sync_nybbles zeros.
 * Zero runs also occur inside data fields (an address such as 0x80000000
 * has seven zero nybbles), so a candidate is only accepted when what
 * follows parses as the start of a recording: with the flow traced, the
 * first field is a PC data field (the encoder always puts one there), and
 * the next CDL_SYNC_CHECK_NYBBLES nybbles hold no reserved code or
 * malformed data field.  The decoder then confirms the rest against the
 * code (with an image) and resynchronises again at the next candidate if
 * they disagree. */
#define CDL_SYNC_CHECK_NYBBLES 64

bool cdl_sync_valid(const uint8_t *nyb, size_t len, size_t pos, const struct cdl_cfg *c)
{
    size_t end = pos + CDL_SYNC_CHECK_NYBBLES < len ? pos + CDL_SYNC_CHECK_NYBBLES : len;
    bool first = true;
    struct rvt_diag d;
    while (pos < end) {
        struct cdl_field f;
        int n = cdl_field_decode(nyb + pos, len - pos, cdl_cfg_fmt(c), &f, &d);
        if (n < 0)
            return false;
        if (n == 0)
            return !first || !(c->pack & CDL_PACK_FLOW); /* cut by the end of the data */
        if (first && f.kind != CDL_F_SKIP) {
            if ((c->pack & CDL_PACK_FLOW) && !(f.kind == CDL_F_DATA && f.reason == CDL_DATA_PC))
                return false;
            first = false;
        }
        pos += (size_t)n;
    }
    return !first || !(c->pack & CDL_PACK_FLOW);
}

bool cdl_next_sync(const uint8_t *nyb, size_t len, size_t from, const struct cdl_cfg *c, bool start_is_boundary,
                   size_t *pos)
{
    if (from == 0 && start_is_boundary && len && nyb[0] && cdl_sync_valid(nyb, len, 0, c)) {
        *pos = 0;
        return true;
    }
    size_t rs, after;
    while (cdl_find_zero_run(nyb, len, from, c->sync_nybbles, &rs, &after)) {
        if (after < len && cdl_sync_valid(nyb, len, after, c)) {
            *pos = after;
            return true;
        }
        from = after;
    }
    return false;
}

/* N-Trace packet layer: one message struct <-> MSEO-framed bytes.
 *
 * Transmission (spec chapter "N-Trace Transmission Protocol"): each byte
 * carries 6 data bits (MDO, bits 7..2) and 2 MSEO bits (bits 1..0).  MSEO 00
 * = start/middle of a message, 01 = last byte of a variable-length field,
 * 11 = last byte of the message, byte 0xFF between messages = idle, 10 and
 * 11->01 reserved.  Fields are packed LSB first into the MDO bit stream in
 * the order of the spec's "Fields in Messages" table; a variable-length
 * field ends at the end of an MDO chunk (zero-filled), so it is at least
 * the rest of the chunk it starts in, or one whole chunk.
 *
 * One table (g_layout) describes every message; encode and decode both
 * walk it, so the two directions cannot disagree.
 */
#include "ntrace/ntrace.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- names --------------------------------------------------------------- */

const char *nt_tcode_name(unsigned tcode)
{
    switch (tcode) {
    case NT_TC_OWNERSHIP: return "Ownership";
    case NT_TC_DIRECT_BRANCH: return "DirectBranch";
    case NT_TC_INDIRECT_BRANCH: return "IndirectBranch";
    case NT_TC_ERROR: return "Error";
    case NT_TC_PROG_TRACE_SYNC: return "ProgTraceSync";
    case NT_TC_DIRECT_BRANCH_SYNC: return "DirectBranchSync";
    case NT_TC_INDIRECT_BRANCH_SYNC: return "IndirectBranchSync";
    case NT_TC_RESOURCE_FULL: return "ResourceFull";
    case NT_TC_INDIRECT_BRANCH_HIST: return "IndirectBranchHist";
    case NT_TC_INDIRECT_BRANCH_HIST_SYNC: return "IndirectBranchHistSync";
    case NT_TC_REPEAT_BRANCH: return "RepeatBranch";
    case NT_TC_PROG_TRACE_CORRELATION: return "ProgTraceCorrelation";
    default: return tcode >= 56 && tcode <= 62 ? "VendorDefined" : "Reserved";
    }
}

bool nt_tcode_is_sync(unsigned tcode)
{
    return tcode == NT_TC_PROG_TRACE_SYNC || tcode == NT_TC_DIRECT_BRANCH_SYNC ||
           tcode == NT_TC_INDIRECT_BRANCH_SYNC || tcode == NT_TC_INDIRECT_BRANCH_HIST_SYNC;
}

const char *nt_sync_name(unsigned sync)
{
    static const char *const names[16] = {
        "external trigger", "exit from reset", "periodic", "exit from debug",
        "I-CNT full", "trace enable", "trace event", "FIFO overrun",
        "reserved", "exit from power-down", "reserved", "reserved",
        "reserved", "reserved", "vendor", "vendor"};
    return sync < 16 ? names[sync] : "?";
}

const char *nt_btype_name(unsigned btype)
{
    static const char *const names[4] = {"indirect", "trap", "exception", "interrupt"};
    return btype < 4 ? names[btype] : "?";
}

const char *nt_rcode_name(unsigned rcode)
{
    switch (rcode) {
    case NT_RCODE_ICNT: return "I-CNT full";
    case NT_RCODE_HIST: return "HIST full";
    case NT_RCODE_HIST_REPEAT: return "HIST repeated";
    default: return rcode >= 8 ? "vendor" : "reserved";
    }
}

const char *nt_evcode_name(unsigned evcode)
{
    switch (evcode) {
    case 0: return "debug entry";
    case 1: return "low-power entry";
    case 4: return "trace disabled";
    default: return evcode >= 8 ? "vendor" : "reserved";
    }
}

const char *nt_field_name(unsigned field)
{
    static const char *const names[NT_F__COUNT] = {
        [NT_F_SRC] = "SRC",       [NT_F_SYNC] = "SYNC",       [NT_F_BTYPE] = "B-TYPE",
        [NT_F_ETYPE] = "ETYPE",   [NT_F_ECODE] = "ECODE",     [NT_F_RCODE] = "RCODE",
        [NT_F_RDATA] = "RDATA",   [NT_F_HREPEAT] = "HREPEAT", [NT_F_EVCODE] = "EVCODE",
        [NT_F_CDF] = "CDF",       [NT_F_ICNT] = "I-CNT",      [NT_F_FADDR] = "F-ADDR",
        [NT_F_UADDR] = "U-ADDR",  [NT_F_HIST] = "HIST",       [NT_F_BCNT] = "B-CNT",
        [NT_F_PROCESS] = "PROCESS", [NT_F_TSTAMP] = "TSTAMP"};
    return field < NT_F__COUNT ? names[field] : "TCODE";
}

/* ---- layout table ---------------------------------------------------------- */

enum { K_FIX, K_VAR, K_ADDR };
enum { C_ALWAYS, C_RCODE2, C_CDF1 };

struct fdesc {
    uint8_t field, kind, bits, cond;
};
struct layout {
    uint8_t tcode;
    uint8_t n;
    struct fdesc f[6];
};

#define FIX(f, b) {f, K_FIX, b, C_ALWAYS}
#define VAR(f) {f, K_VAR, 0, C_ALWAYS}
#define ADR(f) {f, K_ADDR, 0, C_ALWAYS}

/* Fields after TCODE and SRC, in transmission order ("Fields in Messages").
 * TSTAMP, optional for every message, follows them. */
static const struct layout g_layout[] = {
    {NT_TC_OWNERSHIP, 1, {VAR(NT_F_PROCESS)}},
    {NT_TC_DIRECT_BRANCH, 1, {VAR(NT_F_ICNT)}},
    {NT_TC_INDIRECT_BRANCH, 3, {FIX(NT_F_BTYPE, 2), VAR(NT_F_ICNT), ADR(NT_F_UADDR)}},
    {NT_TC_ERROR, 2, {FIX(NT_F_ETYPE, 4), VAR(NT_F_ECODE)}},
    {NT_TC_PROG_TRACE_SYNC, 3, {FIX(NT_F_SYNC, 4), VAR(NT_F_ICNT), ADR(NT_F_FADDR)}},
    {NT_TC_DIRECT_BRANCH_SYNC, 3, {FIX(NT_F_SYNC, 4), VAR(NT_F_ICNT), ADR(NT_F_FADDR)}},
    {NT_TC_INDIRECT_BRANCH_SYNC, 4, {FIX(NT_F_SYNC, 4), FIX(NT_F_BTYPE, 2), VAR(NT_F_ICNT), ADR(NT_F_FADDR)}},
    {NT_TC_RESOURCE_FULL, 3, {FIX(NT_F_RCODE, 4), VAR(NT_F_RDATA), {NT_F_HREPEAT, K_VAR, 0, C_RCODE2}}},
    {NT_TC_INDIRECT_BRANCH_HIST, 4, {FIX(NT_F_BTYPE, 2), VAR(NT_F_ICNT), ADR(NT_F_UADDR), VAR(NT_F_HIST)}},
    {NT_TC_INDIRECT_BRANCH_HIST_SYNC, 5,
     {FIX(NT_F_SYNC, 4), FIX(NT_F_BTYPE, 2), VAR(NT_F_ICNT), ADR(NT_F_FADDR), VAR(NT_F_HIST)}},
    {NT_TC_REPEAT_BRANCH, 1, {VAR(NT_F_BCNT)}},
    {NT_TC_PROG_TRACE_CORRELATION, 4,
     {FIX(NT_F_EVCODE, 4), FIX(NT_F_CDF, 2), VAR(NT_F_ICNT), {NT_F_HIST, K_VAR, 0, C_CDF1}}},
};

/* TCODE -> layout, for a lookup per message. */
static const struct layout *const g_by_tcode[64] = {
    [NT_TC_OWNERSHIP] = &g_layout[0],
    [NT_TC_DIRECT_BRANCH] = &g_layout[1],
    [NT_TC_INDIRECT_BRANCH] = &g_layout[2],
    [NT_TC_ERROR] = &g_layout[3],
    [NT_TC_PROG_TRACE_SYNC] = &g_layout[4],
    [NT_TC_DIRECT_BRANCH_SYNC] = &g_layout[5],
    [NT_TC_INDIRECT_BRANCH_SYNC] = &g_layout[6],
    [NT_TC_RESOURCE_FULL] = &g_layout[7],
    [NT_TC_INDIRECT_BRANCH_HIST] = &g_layout[8],
    [NT_TC_INDIRECT_BRANCH_HIST_SYNC] = &g_layout[9],
    [NT_TC_REPEAT_BRANCH] = &g_layout[10],
    [NT_TC_PROG_TRACE_CORRELATION] = &g_layout[11],
};

static const struct layout *layout_of(unsigned tcode)
{
    return tcode < 64 ? g_by_tcode[tcode] : NULL;
}

bool nt_tcode_known(unsigned tcode)
{
    return layout_of(tcode) != NULL;
}

static bool cond_holds(const struct nt_msg *m, unsigned cond)
{
    switch (cond) {
    case C_RCODE2: return m->v[NT_F_RCODE] == NT_RCODE_HIST_REPEAT;
    case C_CDF1: return m->v[NT_F_CDF] == 1;
    default: return true;
    }
}

/* Only present fields are defined (see nt_has); the two that decide
 * whether a later field exists start as 0. */
void nt_msg_init(struct nt_msg *m, unsigned tcode)
{
    m->tcode = (uint8_t)tcode;
    m->present = 0;
    m->addr_extended = false;
    m->v[NT_F_RCODE] = 0;
    m->v[NT_F_CDF] = 0;
}

static inline uint64_t low_mask(unsigned bits)
{
    return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

static inline unsigned bit_length(uint64_t v)
{
    return v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
}

/* Width in bits of an address field: the PC without its always-zero bit 0. */
static inline unsigned addr_field_bits(const struct nt_wire *w)
{
    return (w->xlen == 32 ? 32u : 64u) - 1u;
}

/* ---- encoding ---------------------------------------------------------------- */

struct writer {
    uint8_t *out;
    size_t len;     /* bytes started */
    unsigned used;  /* MDO bits used in out[len-1]; 6 (or len == 0) = no open chunk */
};

static void put_bits(struct writer *w, uint64_t v, unsigned n)
{
    while (n) {
        if (w->len == 0 || w->used == 6) {
            w->out[w->len++] = 0; /* MSEO 00 */
            w->used = 0;
        }
        unsigned k = 6 - w->used;
        if (k > n)
            k = n;
        w->out[w->len - 1] |= (uint8_t)((v & low_mask(k)) << (2 + w->used));
        w->used += k;
        v = k >= 64 ? 0 : v >> k;
        n -= k;
    }
}

/* End a variable-length field: zero-fill the open chunk and mark it 01. */
static void end_var(struct writer *w)
{
    w->out[w->len - 1] = (uint8_t)((w->out[w->len - 1] & ~3u) | 1u);
    w->used = 6;
}

static void put_var(struct writer *w, uint64_t v)
{
    unsigned nb = bit_length(v);
    bool at_boundary = w->len == 0 || w->used == 6;
    if (at_boundary && nb == 0)
        nb = 1; /* at least one chunk */
    put_bits(w, v, nb);
    end_var(w);
}

/* Address field.  With the virtual address optimization the field is cut
 * to whole chunks whose most significant transmitted bit equals every
 * skipped bit above it; without it, only leading zeros are skipped. */
static void put_addr(struct writer *w, const struct nt_wire *wire, uint64_t v)
{
    unsigned width = addr_field_bits(wire);
    v &= low_mask(width);
    if (!wire->addr_ext) {
        put_var(w, v);
        return;
    }
    unsigned start = (w->len == 0 || w->used == 6) ? 0 : w->used; /* bits already in the open chunk */
    unsigned nbits = width;
    for (unsigned chunks = 1;; chunks++) {
        unsigned bits = 6 * chunks - start;
        if (bits >= width)
            break;
        uint64_t above = v >> (bits - 1); /* the transmitted MSB and everything above it */
        if (above == 0 || above == low_mask(width - bits + 1)) {
            nbits = bits;
            break;
        }
    }
    put_bits(w, v, nbits);
    end_var(w);
}

int nt_msg_encode(const struct nt_wire *wire, const struct nt_msg *m, uint8_t *out, struct rvt_diag *d)
{
    const struct layout *L = layout_of(m->tcode);
    if (!L)
        return rvt_fail(d, RVT_ERR_INVAL, "N-Trace: cannot encode TCODE %u (not an N-Trace 1.0 message)", m->tcode);
    struct writer w = {out, 0, 6};
    put_bits(&w, m->tcode, 6);
    if (wire->src_bits) {
        if (m->v[NT_F_SRC] > low_mask(wire->src_bits))
            return rvt_fail(d, RVT_ERR_INVAL, "N-Trace %s: SRC %llu does not fit in %u bits", nt_tcode_name(m->tcode),
                            (unsigned long long)m->v[NT_F_SRC], wire->src_bits);
        put_bits(&w, m->v[NT_F_SRC], wire->src_bits);
    }
    for (unsigned i = 0; i < L->n; i++) {
        const struct fdesc *f = &L->f[i];
        if (!cond_holds(m, f->cond))
            continue;
        if (!nt_has(m, (enum nt_field)f->field))
            return rvt_fail(d, RVT_ERR_INVAL, "N-Trace %s: field %s missing", nt_tcode_name(m->tcode),
                            nt_field_name(f->field));
        uint64_t v = m->v[f->field];
        switch (f->kind) {
        case K_FIX:
            if (v > low_mask(f->bits))
                return rvt_fail(d, RVT_ERR_INVAL, "N-Trace %s: %s %llu does not fit in %u bits",
                                nt_tcode_name(m->tcode), nt_field_name(f->field), (unsigned long long)v, f->bits);
            put_bits(&w, v, f->bits);
            break;
        case K_VAR: put_var(&w, v); break;
        default: put_addr(&w, wire, v); break;
        }
    }
    if (nt_has(m, NT_F_TSTAMP))
        put_var(&w, m->v[NT_F_TSTAMP]);
    out[w.len - 1] |= 3u; /* end of message */
    return (int)w.len;
}

/* ---- decoding ---------------------------------------------------------------- */

struct reader {
    const uint8_t *p;
    size_t n;       /* chunks (bytes) */
    size_t pos;     /* bit position in the MDO stream */
};

static inline unsigned mseo_at(const struct reader *r, size_t chunk)
{
    return r->p[chunk] & 3u;
}

static int get_fixed(struct reader *r, unsigned bits, uint64_t *v, unsigned tcode, unsigned field, uint64_t offset,
                     struct rvt_diag *d)
{
    uint64_t val = 0;
    unsigned got = 0;
    /* The chunk and the bit in it, kept as they advance (no division per chunk). */
    size_t chunk = r->pos / 6;
    unsigned off = (unsigned)(r->pos % 6);
    while (got < bits) {
        if (chunk >= r->n)
            return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%llx: %s message ends inside field %s",
                            (unsigned long long)offset, nt_tcode_name(tcode), nt_field_name(field));
        unsigned k = 6 - off;
        if (k > bits - got)
            k = bits - got;
        val |= (uint64_t)((r->p[chunk] >> (2 + off)) & low_mask(k)) << got;
        got += k;
        off += k;
        if (off == 6) {
            /* A fixed-length field never ends a variable-length one: a chunk
             * it completes must be an ordinary (MSEO 00) chunk. */
            if (mseo_at(r, chunk) != 0)
                return rvt_fail(d, RVT_ERR_FORMAT,
                                "offset 0x%llx: %s message: end of field (MSEO=%u) inside fixed-length field %s",
                                (unsigned long long)(offset + chunk), nt_tcode_name(tcode), mseo_at(r, chunk),
                                nt_field_name(field));
            chunk++;
            off = 0;
        }
    }
    r->pos = chunk * 6 + off;
    *v = val;
    return 0;
}

/* A variable-length field: from pos to the end of the next chunk marked
 * 01/11.  *nbits gets its transmitted width. */
static int get_var(struct reader *r, uint64_t *v, unsigned *nbits, unsigned tcode, unsigned field, uint64_t offset,
                   struct rvt_diag *d)
{
    size_t chunk = r->pos / 6;
    if (chunk >= r->n)
        return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%llx: %s message ends before field %s",
                        (unsigned long long)offset, nt_tcode_name(tcode), nt_field_name(field));
    /* The first chunk from the field's bit in it, the others whole. */
    const unsigned off = (unsigned)(r->pos % 6);
    uint64_t val = (uint64_t)(r->p[chunk] >> (2 + off));
    unsigned got = 6 - off;
    while (mseo_at(r, chunk) == 0) {
        if (chunk + 1 >= r->n) /* cannot happen for a framed message (last byte has MSEO 11) */
            return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%llx: %s message: field %s not terminated",
                            (unsigned long long)offset, nt_tcode_name(tcode), nt_field_name(field));
        chunk++;
        const uint64_t bits = (uint64_t)(r->p[chunk] >> 2);
        if (got < 64) {
            val |= bits << got;
            if (got + 6 > 64 && (bits >> (64 - got)) != 0)
                return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%llx: %s message: field %s wider than 64 bits",
                                (unsigned long long)(offset + chunk), nt_tcode_name(tcode), nt_field_name(field));
        } else if (bits) {
            return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%llx: %s message: field %s wider than 64 bits",
                            (unsigned long long)(offset + chunk), nt_tcode_name(tcode), nt_field_name(field));
        }
        got += 6;
    }
    r->pos = (chunk + 1) * 6;
    *v = val;
    *nbits = got;
    return 0;
}

int nt_msg_decode(const struct nt_wire *wire, const uint8_t *p, size_t n, uint64_t offset, struct nt_msg *m,
                  struct rvt_diag *d)
{
    struct reader r = {p, n, 0};
    uint64_t tc = 0;
    nt_msg_init(m, 0);
    if (n == 0)
        return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%llx: empty message", (unsigned long long)offset);
    int rc = get_fixed(&r, 6, &tc, 0, NT_F__COUNT, offset, d);
    if (rc < 0)
        return rc;
    m->tcode = (uint8_t)tc;
    if (wire->src_bits) {
        uint64_t src;
        rc = get_fixed(&r, wire->src_bits, &src, m->tcode, NT_F_SRC, offset, d);
        if (rc < 0)
            return rc;
        nt_set(m, NT_F_SRC, src);
    }
    const struct layout *L = layout_of(m->tcode);
    if (!L)
        return 0; /* vendor/reserved: only TCODE (and SRC) are defined */
    for (unsigned i = 0; i < L->n; i++) {
        const struct fdesc *f = &L->f[i];
        if (!cond_holds(m, f->cond))
            continue;
        uint64_t v;
        unsigned nbits;
        if (f->kind == K_FIX) {
            rc = get_fixed(&r, f->bits, &v, m->tcode, f->field, offset, d);
        } else {
            rc = get_var(&r, &v, &nbits, m->tcode, f->field, offset, d);
            if (rc == 0 && f->kind == K_ADDR) {
                unsigned width = addr_field_bits(wire);
                if (nbits < width)
                    v &= low_mask(nbits);
                if (wire->addr_ext && nbits < width && ((v >> (nbits - 1)) & 1u)) {
                    v |= low_mask(width) & ~low_mask(nbits);
                    m->addr_extended = true;
                }
                if (v > low_mask(width))
                    return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%llx: %s message: %s 0x%llx wider than %u bits",
                                    (unsigned long long)offset, nt_tcode_name(m->tcode), nt_field_name(f->field),
                                    (unsigned long long)v, width);
            }
        }
        if (rc < 0)
            return rc;
        nt_set(m, (enum nt_field)f->field, v);
    }
    /* One more variable-length field, if any, is the optional TSTAMP. */
    if (r.pos / 6 < n) {
        uint64_t v;
        unsigned nbits;
        rc = get_var(&r, &v, &nbits, m->tcode, NT_F_TSTAMP, offset, d);
        if (rc < 0)
            return rc;
        nt_set(m, NT_F_TSTAMP, v);
    }
    if (r.pos / 6 < n)
        return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%llx: %s message has more fields than defined",
                        (unsigned long long)offset, nt_tcode_name(m->tcode));
    return 0;
}

/* ---- what N-Trace and the configuration can produce ------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int check_fail(struct rvt_diag *d, uint64_t offset, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return rvt_fail(d, RVT_ERR_FORMAT, "offset 0x%llx: %s", (unsigned long long)offset, text);
}

/* A HIST value: a stop bit and at most NTRACE_MAX_HIST (32) bits in all. */
static int check_hist(const struct nt_msg *m, const char *field, uint64_t v, bool need_outcome, uint64_t offset,
                      struct rvt_diag *d)
{
    if (v == 0)
        return check_fail(d, offset, "%s %s is 0: a HIST value has a stop bit", nt_tcode_name(m->tcode), field);
    if (v >> NT_MAX_HIST_BITS)
        return check_fail(d, offset, "%s %s 0x%llx is wider than the 32 bits of NTRACE_MAX_HIST",
                          nt_tcode_name(m->tcode), field, (unsigned long long)v);
    if (need_outcome && v == 1)
        return check_fail(d, offset, "%s %s 0x1 holds no outcome: a full HIST has at least one",
                          nt_tcode_name(m->tcode), field);
    return 0;
}

int nt_msg_check(const struct nt_cfg *c, const struct nt_msg *m, uint64_t offset, struct rvt_diag *d)
{
    unsigned tc = m->tcode;
    uint64_t icnt_max = c->icnt_bits >= 64 ? ~0ull : (1ull << c->icnt_bits) - 1;
    if (!nt_tcode_known(tc)) {
        if (tc >= 56 && tc <= 62) {
            if (c->vendor_msgs)
                return 0;
            return check_fail(d, offset,
                              "Vendor Defined message (TCODE %u): rvtrace's encoder never sends one, so it is taken "
                              "for damage (--vendor-msgs ignores such messages)",
                              tc);
        }
        return check_fail(d, offset,
                          "reserved TCODE %u: N-Trace 1.0 defines 2-4, 8, 9, 11, 12, 27-30, 33 and vendor 56-62", tc);
    }
    /* TSTAMP exists only with trTsEnable (--timestamps), and then in every
     * synchronising message ("ALL Synchronizing Messages must include an
     * absolute TSTAMP value"); other messages may omit it. */
    if (nt_has(m, NT_F_TSTAMP) && !c->timestamps)
        return check_fail(d, offset, "%s has a field after its last one (a TSTAMP, but --timestamps is not given)",
                          nt_tcode_name(tc));
    if (c->timestamps && nt_tcode_is_sync(tc) && !nt_has(m, NT_F_TSTAMP))
        return check_fail(d, offset, "%s without TSTAMP: with --timestamps every synchronising message has one",
                          nt_tcode_name(tc));
    if ((c->given & NT_GIVEN_MODE) && c->mode == NT_MODE_HTM &&
        (tc == NT_TC_DIRECT_BRANCH || tc == NT_TC_DIRECT_BRANCH_SYNC ||
         (tc == NT_TC_PROG_TRACE_CORRELATION && m->v[NT_F_CDF] != 1)))
        return check_fail(d, offset, "%s%s: not in HTM (--ntrace-mode htm; \"In HTM trace mode CDF must be 1\")",
                          nt_tcode_name(tc), tc == NT_TC_PROG_TRACE_CORRELATION ? " with CDF=0" : "");
    if ((c->given & NT_GIVEN_MODE) && c->mode == NT_MODE_BTM &&
        (nt_has(m, NT_F_HIST) || (tc == NT_TC_RESOURCE_FULL && m->v[NT_F_RCODE] != NT_RCODE_ICNT)))
        return check_fail(d, offset, "%s with a HIST: not in BTM (--ntrace-mode btm)", nt_tcode_name(tc));
    if ((c->given & NT_GIVEN_REPEAT) &&
        ((tc == NT_TC_REPEAT_BRANCH && !(c->repeat & 1)) ||
         (tc == NT_TC_RESOURCE_FULL && m->v[NT_F_RCODE] == NT_RCODE_HIST_REPEAT && !(c->repeat & 2))))
        return check_fail(d, offset, "%s%s, but --repeat %u does not send it", nt_tcode_name(tc),
                          tc == NT_TC_RESOURCE_FULL ? " RCODE=2" : "", c->repeat);
    if ((c->given & NT_GIVEN_BTYPE_COMPAT) && nt_has(m, NT_F_BTYPE) &&
        (c->btype_compat ? m->v[NT_F_BTYPE] >= NT_BTYPE_EXCEPTION : m->v[NT_F_BTYPE] == NT_BTYPE_TRAP))
        return check_fail(d, offset, "%s B-TYPE=%u, but %s", nt_tcode_name(tc), (unsigned)m->v[NT_F_BTYPE],
                          c->btype_compat ? "--btype-compat reports every trap as 1"
                                          : "traps are B-TYPE 2/3 without --btype-compat");
    if ((c->given & NT_GIVEN_HIST_BITS) && nt_has(m, NT_F_HIST) && m->v[NT_F_HIST] >> c->hist_bits > 1)
        return check_fail(d, offset, "%s HIST 0x%llx holds more than the %u outcomes of --hist-bits",
                          nt_tcode_name(tc), (unsigned long long)m->v[NT_F_HIST], c->hist_bits);
    if (nt_has(m, NT_F_ICNT) && m->v[NT_F_ICNT] > icnt_max)
        return check_fail(d, offset,
                          "%s I-CNT %llu does not fit the %u-bit I-CNT counter (NTRACE_MAX_ICNT is 22; a wider "
                          "counter is the --icnt-bits extension)",
                          nt_tcode_name(tc), (unsigned long long)m->v[NT_F_ICNT], c->icnt_bits);
    if (nt_has(m, NT_F_HIST)) {
        int rc = check_hist(m, "HIST", m->v[NT_F_HIST], false, offset, d);
        if (rc < 0)
            return rc;
    }
    switch (tc) {
    case NT_TC_OWNERSHIP: {
        uint64_t p = m->v[NT_F_PROCESS];
        /* trTeContext (--context) controls Ownership messages. */
        if (!c->context)
            return check_fail(d, offset, "Ownership message, but --context (trTeContext) is not given");
        if ((p & 3u) == 1)
            return check_fail(d, offset, "Ownership PROCESS 0x%llx has the reserved FORMAT 1", (unsigned long long)p);
        if (((p >> 4) & 1u) && ((p >> 2) & 3u) >= 2)
            return check_fail(d, offset, "Ownership PROCESS 0x%llx: V=1 with PRV=%u is reserved",
                              (unsigned long long)p, (unsigned)((p >> 2) & 3u));
        return 0;
    }
    case NT_TC_ERROR: {
        unsigned et = (unsigned)m->v[NT_F_ETYPE];
        uint64_t ec = m->v[NT_F_ECODE];
        if (et != NT_ETYPE_OVERRUN && !(et >= 8 && c->vendor_msgs))
            return check_fail(d, offset, "Error ETYPE %u is %s (0 = FIFO overrun)", et,
                              et >= 8 ? "vendor defined (--vendor-msgs accepts it)" : "reserved");
        if (ec & ~(uint64_t)(NT_ECODE_PROGRAM_LOST | NT_ECODE_OWNERSHIP_LOST | NT_ECODE_VENDOR_LOST))
            return check_fail(d, offset, "Error ECODE 0x%llx sets reserved bits (defined: 0x4, 0x8, 0x80)",
                              (unsigned long long)ec);
        return 0;
    }
    case NT_TC_RESOURCE_FULL: {
        uint64_t rcode = m->v[NT_F_RCODE], rd = m->v[NT_F_RDATA];
        if (rcode > NT_RCODE_HIST_REPEAT)
            return check_fail(d, offset, "ResourceFull RCODE %llu is %s (0 I-CNT, 1 HIST, 2 HIST repeated)",
                              (unsigned long long)rcode, nt_rcode_name((unsigned)rcode));
        if (rcode == NT_RCODE_ICNT) {
            if (rd > icnt_max)
                return check_fail(d, offset,
                                  "ResourceFull I-CNT %llu does not fit the %u-bit I-CNT counter (NTRACE_MAX_ICNT is "
                                  "22; a wider counter is the --icnt-bits extension)",
                                  (unsigned long long)rd, c->icnt_bits);
            if (rd == 0)
                return check_fail(d, offset, "ResourceFull I-CNT 0: a full counter is not empty");
            return 0;
        }
        int rc = check_hist(m, "RDATA", rd, true, offset, d);
        if (rc < 0)
            return rc;
        if (c->given & NT_GIVEN_HIST_BITS) {
            /* A full HIST holds hist-bits outcomes; a repeated pattern may
             * be 1 or 3 shorter (the 30/28-of-31 detection). */
            unsigned n = 63u - (unsigned)__builtin_clzll(rd), h = c->hist_bits;
            bool ok = rcode == NT_RCODE_HIST ? n == h : (n == h || n + 1 == h || n + 3 == h);
            if (!ok)
                return check_fail(d, offset, "ResourceFull RCODE=%llu RDATA holds %u outcomes; --hist-bits %u gives %s",
                                  (unsigned long long)rcode, n, h,
                                  rcode == NT_RCODE_HIST ? "exactly that many" : "that many, or 1 or 3 fewer");
        }
        if (rcode == NT_RCODE_HIST_REPEAT && (m->v[NT_F_HREPEAT] == 0 || m->v[NT_F_HREPEAT] > NT_MAX_HREPEAT))
            return check_fail(d, offset, "ResourceFull HREPEAT %llu is outside 1..%u (NTRACE_MAX_HREPEAT is 18 bits)",
                              (unsigned long long)m->v[NT_F_HREPEAT], NT_MAX_HREPEAT);
        return 0;
    }
    case NT_TC_REPEAT_BRANCH:
        if (m->v[NT_F_BCNT] == 0 || m->v[NT_F_BCNT] > NT_MAX_BCNT)
            return check_fail(d, offset, "RepeatBranch B-CNT %llu is outside 1..%u (NTRACE_MAX_BCNT is 18 bits)",
                              (unsigned long long)m->v[NT_F_BCNT], NT_MAX_BCNT);
        return 0;
    case NT_TC_PROG_TRACE_CORRELATION: {
        unsigned ev = (unsigned)m->v[NT_F_EVCODE], cdf = (unsigned)m->v[NT_F_CDF];
        if (ev != 0 && ev != 1 && ev != 4 && !(ev >= 8 && c->vendor_msgs))
            return check_fail(d, offset,
                              "ProgTraceCorrelation EVCODE %u is %s (0 debug entry, 1 low power, 4 trace disabled)", ev,
                              nt_evcode_name(ev));
        if (cdf > 1)
            return check_fail(d, offset, "ProgTraceCorrelation CDF %u is reserved (0 or 1)", cdf);
        return 0;
    }
    default: return 0;
    }
}

/* ---- framing ---------------------------------------------------------------- */

/* Skip to just after the next byte with MSEO 11 (end of whatever message
 * was damaged), starting at i. */
static size_t skip_to_end(const uint8_t *buf, size_t len, size_t i)
{
    while (i < len && (buf[i] & 3u) != 3u)
        i++;
    return i < len ? i + 1 : len;
}

int nt_frame_next(const uint8_t *buf, size_t len, size_t *pos, size_t *start, size_t *n, struct rvt_diag *d)
{
    size_t i = *pos;
    while (i < len && buf[i] == 0xFF)
        i++;
    if (i >= len) {
        *pos = len;
        return 0;
    }
    *start = i;
    unsigned mseo = buf[i] & 3u;
    if (mseo != 0) {
        *pos = mseo == 3 ? i + 1 : skip_to_end(buf, len, i + 1);
        return rvt_fail(d, RVT_ERR_FORMAT,
                        "offset 0x%llx: byte 0x%02x cannot start a message (MSEO=%u%u, expected 00); skipped to "
                        "offset 0x%llx",
                        (unsigned long long)i, buf[i], (mseo >> 1) & 1u, mseo & 1u, (unsigned long long)*pos);
    }
    for (size_t j = i + 1; j < len; j++) {
        unsigned ms = buf[j] & 3u;
        if (ms == 3) {
            *n = j - i + 1;
            *pos = j + 1;
            return 1;
        }
        if (ms == 2) {
            *pos = skip_to_end(buf, len, j + 1);
            return rvt_fail(d, RVT_ERR_FORMAT,
                            "offset 0x%llx: reserved MSEO=10 in message starting at 0x%llx; skipped to offset 0x%llx",
                            (unsigned long long)j, (unsigned long long)i, (unsigned long long)*pos);
        }
        if (j - i + 1 >= NT_MSG_PARSE_MAX) {
            *pos = skip_to_end(buf, len, j + 1);
            return rvt_fail(d, RVT_ERR_FORMAT,
                            "offset 0x%llx: message longer than %d bytes without an end (MSEO=11); skipped to "
                            "offset 0x%llx",
                            (unsigned long long)i, NT_MSG_PARSE_MAX, (unsigned long long)*pos);
        }
    }
    *pos = len;
    return rvt_fail(d, RVT_ERR_TRUNCATED, "offset 0x%llx: trace ends inside a message (%zu bytes, no MSEO=11 end)",
                    (unsigned long long)i, len - i);
}

/* ---- PROCESS field -------------------------------------------------------- */

/* PROCESS = {CONTEXT, V, PRV[1:0], FORMAT[1:0]}.  Ingress priv D (debug)
 * has no V/PRV encoding; it is sent as the reserved PRV=2 with V=0. */
uint64_t nt_process_encode(unsigned format, uint8_t priv, uint64_t context)
{
    unsigned prv, v;
    switch (priv) {
    case RVT_PRIV_U: prv = 0; v = 0; break;
    case RVT_PRIV_S: prv = 1; v = 0; break;
    case RVT_PRIV_VU: prv = 0; v = 1; break;
    case RVT_PRIV_VS: prv = 1; v = 1; break;
    case RVT_PRIV_D: prv = 2; v = 0; break;
    default: prv = 3; v = 0; break;
    }
    uint64_t p = (uint64_t)(format & 3u) | (uint64_t)prv << 2 | (uint64_t)v << 4;
    if (format >= 2)
        p |= context << 5;
    return p;
}

bool nt_process_decode(uint64_t process, uint8_t *priv, uint64_t *context, bool *has_context)
{
    unsigned format = (unsigned)(process & 3u), prv = (unsigned)(process >> 2) & 3u, v = (unsigned)(process >> 4) & 1u;
    if (format == 1)
        return false;
    if (v)
        *priv = prv == 0 ? RVT_PRIV_VU : prv == 1 ? RVT_PRIV_VS : RVT_PRIV_M;
    else
        *priv = prv == 0 ? RVT_PRIV_U : prv == 1 ? RVT_PRIV_S : prv == 2 ? RVT_PRIV_D : RVT_PRIV_M;
    *has_context = format >= 2;
    *context = format >= 2 ? process >> 5 : 0;
    return true;
}

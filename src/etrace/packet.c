/* E-Trace te_inst packets: struct <-> bits, for E-Trace 2.0 (payload.adoc)
 * and the 0.026 draft (seed 001 chapter 6), with sign-based compression.
 *
 * Fields are transmitted LSB first in table order; the packet is then
 * shortened by dropping repeated copies of its most significant bit
 * (keeping one) and sign-extended to a byte boundary. */
#include "etrace/etrace.h"
#include "etrace/fastrd.h"

#include <string.h>

static inline uint64_t mask64(unsigned w)
{
    return w >= 64 ? ~0ull : ((1ull << w) - 1);
}

/* ---- bit vector ----------------------------------------------------------- */

static bool bits_put(struct et_bits *b, uint64_t v, unsigned w)
{
    if (w == 0)
        return true;
    if (b->n + w > ET_MAX_BITS)
        return false;
    v &= mask64(w);
    unsigned i = b->n / 64, o = b->n % 64;
    b->w[i] |= v << o;
    if (o && o + w > 64)
        b->w[i + 1] |= v >> (64 - o);
    b->n += w;
    return true;
}

static inline unsigned bit_at(const struct et_bits *b, unsigned pos)
{
    return (unsigned)(b->w[pos / 64] >> (pos % 64)) & 1u;
}

/* et_bits_compressed_len of b's first n bits. */
static unsigned compressed_len_n(const struct et_bits *b, unsigned n)
{
    if (n == 0)
        return 0;
    unsigned sign = bit_at(b, n - 1);
    /* Scan down word by word for the highest bit that differs from the sign. */
    int top = (int)n - 2;
    while (top >= 0) {
        unsigned wi = (unsigned)top / 64;
        uint64_t word = b->w[wi] ^ (sign ? ~0ull : 0);
        unsigned lim = (unsigned)top % 64;
        word &= (lim == 63) ? ~0ull : ((2ull << lim) - 1);
        if (word) {
            unsigned hi = 63u - (unsigned)__builtin_clzll(word);
            return wi * 64 + hi + 2;
        }
        top = (int)(wi * 64) - 1;
    }
    return 1;
}

unsigned et_bits_compressed_len(const struct et_bits *b)
{
    return compressed_len_n(b, b->n);
}

/* ---- reading --------------------------------------------------------------- */

struct rd {
    const struct et_bits *b;
    unsigned nbits;  /* received bits; beyond: copies of bit nbits-1 */
    unsigned pos;
    unsigned sign;
};

/* A field that is not within one word of the received bits: across two,
 * or (sign-based compression) partly or wholly beyond them, where every
 * bit is a copy of the last received one. */
static uint64_t rd_get_split(struct rd *r, unsigned w)
{
    unsigned p = r->pos;
    r->pos = p + w;
    unsigned have = p < r->nbits ? r->nbits - p : 0; /* received bits of the field */
    if (have > w)
        have = w;
    uint64_t v = 0;
    if (have) {
        unsigned o = p % 64;
        v = r->b->w[p / 64] >> o;
        if (o && o + have > 64)
            v |= r->b->w[p / 64 + 1] << (64 - o);
        v &= mask64(have);
    }
    if (have < w && r->sign)
        v |= mask64(w) & ~mask64(have);
    return v;
}

/* The next w bits (w <= 64).  Most fields lie within one word of the
 * received bits: one shift and mask. */
static inline uint64_t rd_get(struct rd *r, unsigned w)
{
    unsigned p = r->pos, o = p % 64;
    if (p + w <= r->nbits && o + w <= 64) {
        r->pos = p + w;
        return (r->b->w[p / 64] >> o) & mask64(w);
    }
    return rd_get_split(r, w);
}

/* ---- field helpers ------------------------------------------------------- */

unsigned et_map_bits(const struct et_params *p, unsigned branches, bool *has_addr)
{
    if (has_addr)
        *has_addr = branches != 0;
    if (branches == 0)
        return 31;
    if (branches == 1)
        return 1;
    if (p->version == ET_V0_026) {
        if (branches <= 9)
            return 9;
        if (branches <= 17)
            return 17;
        if (branches <= 25)
            return 25;
        return 31;
    }
    if (branches <= 3)
        return 3;
    if (branches <= 7)
        return 7;
    if (branches <= 15)
        return 15;
    return 31;
}

uint64_t et_addr_field_sext(const struct et_params *p, uint64_t field)
{
    unsigned w = et_addr_bits(p);
    if (w >= 64 || w == 0)
        return field;
    field &= mask64(w);
    if (field >> (w - 1))
        field |= ~mask64(w);
    return field;
}

/* Which format-0 subformat a packet without a subformat field has. */
static unsigned implied_f0(const struct et_params *p)
{
    return (p->jump_target_cache && !p->branch_prediction) ? ET_SF0_JTC : ET_SF0_BPRED;
}

struct wr {
    struct et_bits *b;
    struct rvt_diag *d;
    int err;
};

static void put_field(struct wr *w, const char *name, uint64_t v, unsigned width, bool check)
{
    if (w->err)
        return;
    if (check && width < 64 && (v >> width) != 0) {
        w->err = rvt_fail(w->d, RVT_ERR_OVERFLOW, "etrace: %s value 0x%llx does not fit in %u bits", name,
                          (unsigned long long)v, width);
        return;
    }
    if (!bits_put(w->b, v, width))
        w->err = rvt_fail(w->d, RVT_ERR_OVERFLOW, "etrace: packet longer than %u bits", ET_MAX_BITS);
}

/* Status bits after an address (formats 1, 2, 0.0): each is sent as the
 * inverse of the preceding bit when its condition holds. */
static void put_status(struct wr *w, struct et_packet *k, unsigned prev)
{
    k->raw_notify = (uint8_t)((k->notify ? 1u : 0u) ^ prev);
    k->raw_updiscon = (uint8_t)((k->updiscon ? 1u : 0u) ^ k->raw_notify);
    put_field(w, "notify", k->raw_notify, 1, false);
    put_field(w, "updiscon", k->raw_updiscon, 1, false);
    k->has_status = true;
}

static void put_ir(struct wr *w, const struct et_params *p, struct et_packet *k, unsigned prev)
{
    unsigned bits = et_irdepth_bits(p);
    k->raw_irreport = (uint8_t)((k->irreport ? 1u : 0u) ^ prev);
    put_field(w, "irreport", k->raw_irreport, 1, false);
    if (k->irreport)
        k->raw_irdepth = k->irdepth;
    else if (p->model_compat)
        k->raw_irdepth = (uint32_t)mask64(bits); /* the reference model fills ones */
    else
        k->raw_irdepth = prev ? (uint32_t)mask64(bits) : 0;
    put_field(w, "irdepth", k->raw_irdepth, bits, true);
    k->has_ir = true;
}

static void put_addr_status(struct wr *w, const struct et_params *p, struct et_packet *k)
{
    unsigned aw = et_addr_bits(p);
    k->address &= mask64(aw);
    put_field(w, "address", k->address, aw, false);
    if (p->version == ET_V0_026)
        return;
    put_status(w, k, (unsigned)(k->address >> (aw - 1)) & 1u);
    put_ir(w, p, k, k->raw_updiscon);
}

int et_pkt_bits(const struct et_params *p, struct et_packet *k, struct et_bits *b, struct rvt_diag *d)
{
    memset(b, 0, sizeof *b);
    struct wr w = {b, d, 0};
    unsigned aw = et_addr_bits(p), cw = et_ctx_bits(p), tw = et_time_bits(p);
    k->has_status = k->has_ir = false;
    k->has_address = false;

    if (k->msg == ET_MSG_TE_SUPPORT) { /* 0.026 draft te_support */
        put_field(&w, "msg_type", 0, 2, false);
        put_field(&w, "control_code", 0x34, 6, false);
        put_field(&w, "support_type", k->support_type, 4, true);
        put_field(&w, "enable", k->ienable, 1, true);
        put_field(&w, "encoder_mode", k->encoder_mode, 2, true);
        put_field(&w, "qual_status", k->qual_status, 2, true);
        return w.err;
    }

    put_field(&w, "format", k->format, 2, true);
    if (p->version == ET_V0_026) {
        switch (k->format) {
        case ET_F0:
        case ET_F1: {
            bool has_addr;
            if (k->branches > 31)
                return rvt_fail(d, RVT_ERR_INVAL, "etrace: branches %u > 31", k->branches);
            unsigned mb = et_map_bits(p, k->branches, &has_addr);
            put_field(&w, "branches", k->branches, 5, true);
            put_field(&w, "branch_map", k->branch_map, mb, true);
            if (has_addr) {
                k->address &= mask64(aw);
                put_field(&w, "address", k->address, aw, false);
                k->has_address = true;
            }
            break;
        }
        case ET_F2:
            k->address &= mask64(aw);
            put_field(&w, "address", k->address, aw, false);
            k->has_address = true;
            break;
        default:
            if (k->subformat > ET_SF_CONTEXT)
                return rvt_fail(d, RVT_ERR_INVAL, "etrace 0.026: format 3 subformat %u is reserved",
                                k->subformat);
            put_field(&w, "subformat", k->subformat, 2, true);
            put_field(&w, "context", k->context, cw, true);
            put_field(&w, "privilege", k->privilege, p->privilege_width_p, true);
            if (k->subformat != ET_SF_CONTEXT) {
                put_field(&w, "branch", k->branch, 1, true);
                k->address &= mask64(aw);
                put_field(&w, "address", k->address, aw, false);
                k->has_address = true;
            }
            if (k->subformat == ET_SF_TRAP) {
                put_field(&w, "ecause", k->ecause, p->ecause_width_p, true);
                put_field(&w, "interrupt", k->interrupt, 1, true);
                if (!p->notval_p)
                    put_field(&w, "tval", k->tval, p->iaddress_width_p, false);
            }
            break;
        }
        return w.err;
    }

    switch (k->format) {
    case ET_F3:
        put_field(&w, "subformat", k->subformat, 2, true);
        switch (k->subformat) {
        case ET_SF_START:
        case ET_SF_TRAP:
            put_field(&w, "branch", k->branch, 1, true);
            put_field(&w, "privilege", k->privilege, p->privilege_width_p, true);
            put_field(&w, "time", k->time, tw, true);
            put_field(&w, "context", k->context, cw, true);
            if (k->subformat == ET_SF_TRAP) {
                put_field(&w, "ecause", k->ecause, p->ecause_width_p, true);
                put_field(&w, "interrupt", k->interrupt, 1, true);
                put_field(&w, "thaddr", k->thaddr, 1, true);
                if (!(p->implicit_except && k->thaddr)) {
                    k->address &= mask64(aw);
                    put_field(&w, "address", k->address, aw, false);
                    k->has_address = true;
                }
                if (!k->interrupt)
                    put_field(&w, "tval", k->tval, p->iaddress_width_p, false);
            } else {
                k->address &= mask64(aw);
                put_field(&w, "address", k->address, aw, false);
                k->has_address = true;
            }
            break;
        case ET_SF_CONTEXT:
            put_field(&w, "privilege", k->privilege, p->privilege_width_p, true);
            put_field(&w, "time", k->time, tw, true);
            put_field(&w, "context", k->context, cw, true);
            break;
        default:
            put_field(&w, "ienable", k->ienable, 1, true);
            put_field(&w, "encoder_mode", k->encoder_mode, p->encoder_mode_width, true);
            put_field(&w, "qual_status", k->qual_status, 2, true);
            put_field(&w, "ioptions", k->ioptions, p->ioptions_width, true);
            if (p->denable_p) {
                put_field(&w, "denable", k->denable, 1, true);
                put_field(&w, "dloss", k->dloss, 1, true);
                put_field(&w, "doptions", k->doptions, p->doptions_width, true);
            }
            break;
        }
        break;
    case ET_F2:
        k->has_address = true;
        put_addr_status(&w, p, k);
        break;
    case ET_F1: {
        bool has_addr;
        if (k->branches > 31)
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: branches %u > 31", k->branches);
        unsigned mb = et_map_bits(p, k->branches, &has_addr);
        put_field(&w, "branches", k->branches, 5, true);
        put_field(&w, "branch_map", k->branch_map, mb, true);
        if (has_addr) {
            k->has_address = true;
            put_addr_status(&w, p, k);
        }
        break;
    }
    default: /* format 0 */
        if (p->f0s_width_p)
            put_field(&w, "subformat", k->subformat, p->f0s_width_p, true);
        else if (k->subformat != implied_f0(p))
            return rvt_fail(d, RVT_ERR_INVAL,
                            "etrace: format 0 subformat %u needs f0s_width_p > 0 with these options",
                            k->subformat);
        if (k->subformat == ET_SF0_BPRED) {
            put_field(&w, "branch_count", k->branch_count, 32, true);
            put_field(&w, "branch_fmt", k->branch_fmt, 2, true);
            if (k->branch_fmt & 2) {
                k->has_address = true;
                put_addr_status(&w, p, k);
            } else if (k->branch_fmt != 0) {
                return rvt_fail(d, RVT_ERR_INVAL, "etrace: branch_fmt 1 is reserved");
            }
        } else if (k->subformat == ET_SF0_JTC) {
            put_field(&w, "index", k->index, p->cache_size_p, true);
            put_field(&w, "branches", k->branches, 5, true);
            unsigned prev;
            if (k->branches) {
                unsigned mb = et_map_bits(p, k->branches, NULL);
                put_field(&w, "branch_map", k->branch_map, mb, true);
                prev = (unsigned)(k->branch_map >> (mb - 1)) & 1u;
            } else {
                prev = (unsigned)(k->branches >> 4) & 1u;
            }
            put_ir(&w, p, k, prev);
        } else {
            return rvt_fail(d, RVT_ERR_INVAL, "etrace: format 0 subformat %u not defined", k->subformat);
        }
        break;
    }
    return w.err;
}

int et_pkt_pack(const struct et_params *p, struct et_packet *k, uint8_t *out, size_t cap,
                unsigned *full_bits, struct rvt_diag *d)
{
    struct et_bits b;
    int rc = et_pkt_bits(p, k, &b, d);
    if (rc < 0)
        return rc;
    if (full_bits)
        *full_bits = b.n;
    unsigned keep = et_bits_compressed_len(&b);
    size_t nbytes = (keep + 7) / 8;
    if (nbytes > cap)
        return rvt_fail(d, RVT_ERR_OVERFLOW, "etrace: %s packet needs %zu bytes (limit %zu)", et_pkt_name(k, p->version == ET_V0_026),
                        nbytes, cap);
    unsigned sign = b.n ? bit_at(&b, b.n - 1) : 0;
    for (size_t i = 0; i < nbytes; i++) {
        unsigned v = 0;
        for (unsigned j = 0; j < 8; j++) {
            unsigned pos = (unsigned)i * 8 + j;
            unsigned bit = pos < b.n ? bit_at(&b, pos) : sign;
            v |= bit << j;
        }
        out[i] = (uint8_t)v;
    }
    return (int)nbytes;
}

/* ---- unpack --------------------------------------------------------------- */

static void get_status(struct rd *r, const struct et_params *p, struct et_packet *k)
{
    unsigned aw = et_addr_bits(p);
    k->address = rd_get(r, aw);
    k->has_address = true;
    if (p->version == ET_V0_026)
        return;
    unsigned msb = (unsigned)(k->address >> (aw - 1)) & 1u;
    k->raw_notify = (uint8_t)rd_get(r, 1);
    k->raw_updiscon = (uint8_t)rd_get(r, 1);
    k->notify = k->raw_notify != msb;
    k->updiscon = k->raw_updiscon != k->raw_notify;
    k->has_status = true;
}

static void get_ir(struct rd *r, const struct et_params *p, struct et_packet *k, unsigned prev)
{
    k->raw_irreport = (uint8_t)rd_get(r, 1);
    k->raw_irdepth = (uint32_t)rd_get(r, et_irdepth_bits(p));
    k->irreport = k->raw_irreport != prev;
    k->irdepth = k->irreport ? k->raw_irdepth : 0;
    k->has_ir = true;
}

int et_pkt_unpack(const struct et_params *p, uint8_t msg, const uint8_t *payload, size_t len, unsigned nbits,
                  struct et_packet *k, struct rvt_diag *d)
{
    if (len * 8 > ET_MAX_BITS)
        return rvt_fail(d, RVT_ERR_FORMAT, "etrace: packet payload of %zu bytes is too long", len);
    if (nbits > len * 8)
        nbits = (unsigned)(len * 8);
    struct et_bits b;
    memset(&b, 0, sizeof b);
    for (size_t i = 0; i < len; i++)
        b.w[i / 8] |= (uint64_t)payload[i] << (8 * (i % 8));
    b.n = nbits;
    return et_pkt_unpack_bits(p, msg, &b, k, d);
}

int et_pkt_unpack_bits(const struct et_params *p, uint8_t msg, const struct et_bits *bits, struct et_packet *k,
                       struct rvt_diag *d)
{
    memset(k, 0, sizeof *k);
    unsigned nbits = bits->n;
    if (nbits == 0)
        return rvt_fail(d, RVT_ERR_FORMAT, "etrace: empty packet payload");
    struct rd r = {bits, nbits, 0, bit_at(bits, nbits - 1)};
    unsigned aw = et_addr_bits(p), cw = et_ctx_bits(p), tw = et_time_bits(p);
    k->msg = msg;

    if (msg == ET_MSG_TE_SUPPORT) {
        unsigned mt = (unsigned)rd_get(&r, 2), cc = (unsigned)rd_get(&r, 6);
        if (mt != 0 || cc != 0x34)
            return rvt_fail(d, RVT_ERR_FORMAT,
                            "etrace 0.026: te_support with msg_type %u control_code 0x%x (expected 0, 0x34)", mt,
                            cc);
        k->format = ET_F3;
        k->subformat = ET_SF_SUPPORT;
        k->support_type = (uint8_t)rd_get(&r, 4);
        k->ienable = (uint8_t)rd_get(&r, 1);
        k->encoder_mode = (uint8_t)rd_get(&r, 2);
        k->qual_status = (uint8_t)rd_get(&r, 2);
        goto done;
    }

    k->format = (uint8_t)rd_get(&r, 2);
    if (p->version == ET_V0_026) {
        switch (k->format) {
        case ET_F0:
        case ET_F1: {
            bool has_addr;
            k->branches = (uint8_t)rd_get(&r, 5);
            unsigned mb = et_map_bits(p, k->branches, &has_addr);
            k->branch_map = (uint32_t)rd_get(&r, mb);
            if (has_addr) {
                k->address = rd_get(&r, aw);
                k->has_address = true;
            }
            break;
        }
        case ET_F2:
            k->address = rd_get(&r, aw);
            k->has_address = true;
            break;
        default:
            k->subformat = (uint8_t)rd_get(&r, 2);
            if (k->subformat == 3)
                return rvt_fail(d, RVT_ERR_FORMAT, "etrace 0.026: format 3 subformat 3 is reserved");
            k->context = rd_get(&r, cw);
            k->privilege = (uint8_t)rd_get(&r, p->privilege_width_p);
            if (k->subformat != ET_SF_CONTEXT) {
                k->branch = (uint8_t)rd_get(&r, 1);
                k->address = rd_get(&r, aw);
                k->has_address = true;
            }
            if (k->subformat == ET_SF_TRAP) {
                k->ecause = (uint32_t)rd_get(&r, p->ecause_width_p);
                k->interrupt = (uint8_t)rd_get(&r, 1);
                k->thaddr = 1;
                if (!p->notval_p)
                    k->tval = rd_get(&r, p->iaddress_width_p);
            }
            break;
        }
        goto done;
    }

    switch (k->format) {
    case ET_F3:
        k->subformat = (uint8_t)rd_get(&r, 2);
        switch (k->subformat) {
        case ET_SF_START:
        case ET_SF_TRAP:
            k->branch = (uint8_t)rd_get(&r, 1);
            k->privilege = (uint8_t)rd_get(&r, p->privilege_width_p);
            k->time = rd_get(&r, tw);
            k->context = rd_get(&r, cw);
            if (k->subformat == ET_SF_TRAP) {
                k->ecause = (uint32_t)rd_get(&r, p->ecause_width_p);
                k->interrupt = (uint8_t)rd_get(&r, 1);
                k->thaddr = (uint8_t)rd_get(&r, 1);
                if (!(p->implicit_except && k->thaddr)) {
                    k->address = rd_get(&r, aw);
                    k->has_address = true;
                }
                if (!k->interrupt)
                    k->tval = rd_get(&r, p->iaddress_width_p);
            } else {
                k->address = rd_get(&r, aw);
                k->has_address = true;
            }
            break;
        case ET_SF_CONTEXT:
            k->privilege = (uint8_t)rd_get(&r, p->privilege_width_p);
            k->time = rd_get(&r, tw);
            k->context = rd_get(&r, cw);
            break;
        default:
            k->ienable = (uint8_t)rd_get(&r, 1);
            k->encoder_mode = (uint8_t)rd_get(&r, p->encoder_mode_width);
            k->qual_status = (uint8_t)rd_get(&r, 2);
            k->ioptions = (uint32_t)rd_get(&r, p->ioptions_width);
            if (p->denable_p) {
                k->denable = (uint8_t)rd_get(&r, 1);
                k->dloss = (uint8_t)rd_get(&r, 1);
                k->doptions = (uint32_t)rd_get(&r, p->doptions_width);
            }
            break;
        }
        break;
    case ET_F2:
        get_status(&r, p, k);
        get_ir(&r, p, k, k->raw_updiscon);
        break;
    case ET_F1: {
        bool has_addr;
        k->branches = (uint8_t)rd_get(&r, 5);
        unsigned mb = et_map_bits(p, k->branches, &has_addr);
        k->branch_map = (uint32_t)rd_get(&r, mb);
        if (has_addr) {
            get_status(&r, p, k);
            get_ir(&r, p, k, k->raw_updiscon);
        }
        break;
    }
    default:
        if (p->f0s_width_p)
            k->subformat = (uint8_t)rd_get(&r, p->f0s_width_p);
        else if (p->branch_prediction || p->jump_target_cache)
            k->subformat = (uint8_t)implied_f0(p);
        else
            return rvt_fail(d, RVT_ERR_FORMAT,
                            "etrace: format 0 packet but neither branch prediction nor the jump target "
                            "cache is enabled");
        if (k->subformat == ET_SF0_BPRED) {
            k->branch_count = (uint32_t)rd_get(&r, 32);
            k->branch_fmt = (uint8_t)rd_get(&r, 2);
            if (k->branch_fmt == 1)
                return rvt_fail(d, RVT_ERR_FORMAT, "etrace: format 0 branch_fmt 1 is reserved");
            if (k->branch_fmt & 2) {
                get_status(&r, p, k);
                get_ir(&r, p, k, k->raw_updiscon);
            }
        } else if (k->subformat == ET_SF0_JTC) {
            k->index = (uint32_t)rd_get(&r, p->cache_size_p);
            k->branches = (uint8_t)rd_get(&r, 5);
            unsigned prev;
            if (k->branches) {
                unsigned mb = et_map_bits(p, k->branches, NULL);
                k->branch_map = (uint32_t)rd_get(&r, mb);
                prev = (unsigned)(k->branch_map >> (mb - 1)) & 1u;
            } else {
                prev = 0;
            }
            get_ir(&r, p, k, prev);
        } else {
            return rvt_fail(d, RVT_ERR_FORMAT, "etrace: format 0 subformat %u is not defined", k->subformat);
        }
        break;
    }
done:
    k->field_bits = r.pos;
    /* A payload longer than its fields (after byte padding) is not a valid
     * sign-compressed packet: most likely corruption or a framing slip. */
    if (nbits >= r.pos + 8)
        return rvt_fail(d, RVT_ERR_FORMAT, "etrace: %s packet of %u bits, but its fields end at bit %u",
                        et_pkt_name(k, p->version == ET_V0_026), nbits, r.pos);
    return 0;
}

int et_pkt_check_compressed(const struct et_bits *b, const struct et_packet *k, unsigned lead, bool draft,
                            struct rvt_diag *d)
{
    unsigned end = k->field_bits;
    if (end == 0 || b->n < 8 || end > ET_MAX_BITS)
        return 0;
    /* The packet at full length is the received bits sign-extended to
     * `end` (or cut there): its compressed length is that of its first
     * min(received, end) bits.  "The payload must be sign-extended to the
     * nearest byte boundary" (payload.adoc); encapsulation bits before it
     * that are not whole bytes add "padding bits ... in the most
     * significant bits of the final byte" (encapsulation.adoc), so the
     * longest length a compressing encoder sends is that of the lead bits
     * and the whole payload bytes (rvtrace packs them closer). */
    unsigned need = (lead + 8 * ((compressed_len_n(b, b->n < end ? b->n : end) + 7) / 8) + 7) / 8;
    unsigned have = (lead + b->n) / 8;
    if (have > need)
        return rvt_fail(d, RVT_ERR_FORMAT,
                        "etrace: %s packet of %u %sbytes, but its sign-compressed form has %u (an encoder "
                        "that compresses whole packets, as rvtrace and the reference model do, cannot send it; "
                        "--partial-compression accepts it)",
                        et_pkt_name(k, draft), have, lead ? "" : "payload ", need);
    return 0;
}

int et_pkt_check_padding(const struct et_bits *b, const struct et_packet *k, bool draft, struct rvt_diag *d)
{
    unsigned end = k->field_bits;
    if (end == 0 || end >= b->n)
        return 0;
    unsigned sign = bit_at(b, end - 1);
    for (unsigned i = end; i < b->n; i++)
        if (bit_at(b, i) != sign)
            return rvt_fail(d, RVT_ERR_FORMAT,
                            "etrace: %s packet: padding bit %u is %u, expected %u (a payload is sign-extended to "
                            "a byte boundary from its last field bit %u)",
                            et_pkt_name(k, draft), i, bit_at(b, i), sign, end - 1);
    return 0;
}

/* payload.adoc: "If irreport is the same value as updiscon, all bits in
 * this field [irdepth] will also be the same value as updiscon" (the
 * preceding bit).  The reference model fills them with ones instead
 * (--model-compat), which is accepted too. */
int et_pkt_check_irdepth(const struct et_params *p, const struct et_packet *k, struct rvt_diag *d)
{
    if (!k->has_ir || k->irreport)
        return 0;
    uint32_t ones = (uint32_t)mask64(et_irdepth_bits(p)), want = k->raw_irreport ? ones : 0;
    if (k->raw_irdepth == want || k->raw_irdepth == ones)
        return 0;
    return rvt_fail(d, RVT_ERR_FORMAT,
                    "etrace: %s packet: irdepth bits 0x%x without irreport: expected all %u (\"if "
                    "irreport is the same value as updiscon, all bits in this field will also be the same value\")",
                    et_pkt_name(k, p->version == ET_V0_026), (unsigned)k->raw_irdepth, (unsigned)k->raw_irreport);
}

/* ---- one-pass reader (formats 1 and 2) ------------------------------------ */

void et_fastrd_init(struct et_fastrd *fr, const struct et_params *p)
{
    memset(fr, 0, sizeof *fr);
    fr->aw = et_addr_bits(p);
    fr->irdb = et_irdepth_bits(p);
    fr->ir_ones = (uint32_t)mask64(fr->irdb);
    fr->aw_mask = mask64(fr->aw);
    fr->check_compressed = !p->partial_compression;
    /* (the fields of a format 1 packet end by bit 2+5+31+64+2+1+32 = 137:
     * within the five words et_pkt_read_fast reads) */
    fr->on = p->version == ET_V2_0 && p->framing == ET_FRAME_ENCAP && p->src_bits == 0 && p->type_bits == 0 &&
             fr->aw >= 1 && fr->aw <= 64 && fr->irdb <= 32;
}

bool et_pkt_read_fast(const struct et_fastrd *fr, const uint8_t *payload, unsigned len, struct et_packet *k)
{
    return et_pkt_read_fast_inline(fr, payload, len, k, false);
}

/* ---- names and text -------------------------------------------------------- */

const char *et_pkt_name(const struct et_packet *k, bool draft)
{
    if (k->msg == ET_MSG_TE_SUPPORT)
        return "te_support";
    switch (k->format) {
    case ET_F0:
        if (draft)
            return "F0";
        return k->subformat == ET_SF0_JTC ? "F0.JTC" : "F0.BPRED";
    case ET_F1:
        return "F1";
    case ET_F2:
        return "F2";
    default:
        switch (k->subformat) {
        case ET_SF_START:
            return "F3.START";
        case ET_SF_TRAP:
            return "F3.TRAP";
        case ET_SF_CONTEXT:
            return "F3.CONTEXT";
        default:
            return "F3.SUPPORT";
        }
    }
}

struct sb {
    char *buf;
    size_t size, len;
};

static void sb_add(struct sb *s, const char *name, uint64_t v, bool hex)
{
    if (s->len >= s->size)
        return;
    int n = snprintf(s->buf + s->len, s->size - s->len, hex ? " %s=0x%llx" : " %s=%llu", name,
                     (unsigned long long)v);
    if (n > 0)
        s->len += (size_t)n;
}

int et_pkt_format_fields(const struct et_params *p, const struct et_packet *k, char *buf, size_t size)
{
    struct sb s = {buf, size, 0};
    if (size)
        buf[0] = 0;
    if (k->msg == ET_MSG_TE_SUPPORT) {
        sb_add(&s, "support_type", k->support_type, false);
        sb_add(&s, "enable", k->ienable, false);
        sb_add(&s, "encoder_mode", k->encoder_mode, false);
        sb_add(&s, "qual_status", k->qual_status, false);
        return (int)s.len;
    }
    bool v026 = p->version == ET_V0_026;
    sb_add(&s, "format", k->format, false);
    if (k->format == ET_F3 || (k->format == ET_F0 && !v026))
        sb_add(&s, "subformat", k->subformat, false);
    if (k->format == ET_F3) {
        if (k->subformat == ET_SF_SUPPORT) {
            sb_add(&s, "ienable", k->ienable, false);
            sb_add(&s, "encoder_mode", k->encoder_mode, false);
            sb_add(&s, "qual_status", k->qual_status, false);
            sb_add(&s, "ioptions", k->ioptions, true);
            if (p->denable_p) {
                sb_add(&s, "denable", k->denable, false);
                sb_add(&s, "dloss", k->dloss, false);
                sb_add(&s, "doptions", k->doptions, true);
            }
            return (int)s.len;
        }
        if (k->subformat != ET_SF_CONTEXT)
            sb_add(&s, "branch", k->branch, false);
        sb_add(&s, "privilege", k->privilege, false);
        if (et_time_bits(p) && !v026)
            sb_add(&s, "time", k->time, true);
        if (et_ctx_bits(p))
            sb_add(&s, "context", k->context, true);
        if (k->subformat == ET_SF_TRAP) {
            sb_add(&s, "ecause", k->ecause, false);
            sb_add(&s, "interrupt", k->interrupt, false);
            if (!v026)
                sb_add(&s, "thaddr", k->thaddr, false);
        }
        if (k->has_address)
            sb_add(&s, "address", (uint64_t)k->address << p->iaddress_lsb_p, true);
        if (k->subformat == ET_SF_TRAP && !k->interrupt && !(v026 && p->notval_p))
            sb_add(&s, "tval", k->tval, true);
        return (int)s.len;
    }
    /* The branch map's valid bits: the rest of the field ("wasted bits",
     * payload.adoc) carries nothing, whatever an encoder puts there. */
    uint32_t valid_map = k->branches == 0 || k->branches >= 32 ? k->branch_map
                                                               : k->branch_map & ((1u << k->branches) - 1);
    if (k->format == ET_F0 && !v026) {
        if (k->subformat == ET_SF0_BPRED) {
            sb_add(&s, "branch_count", k->branch_count, false);
            sb_add(&s, "branch_fmt", k->branch_fmt, false);
        } else {
            sb_add(&s, "index", k->index, false);
            sb_add(&s, "branches", k->branches, false);
            if (k->branches)
                sb_add(&s, "branch_map", valid_map, true);
        }
    }
    if (k->format == ET_F1 || (v026 && k->format == ET_F0)) {
        sb_add(&s, "branches", k->branches, false);
        sb_add(&s, "branch_map", valid_map, true);
    }
    if (k->has_address) {
        bool full = p->full_address || (v026 && k->format == ET_F0);
        if (full)
            sb_add(&s, "address", (uint64_t)k->address << p->iaddress_lsb_p, true);
        else {
            int64_t diff = (int64_t)et_addr_field_sext(p, k->address) * (1ll << p->iaddress_lsb_p);
            if (s.len < s.size) {
                int n = snprintf(s.buf + s.len, s.size - s.len, " address=%s0x%llx", diff < 0 ? "-" : "+",
                                 (unsigned long long)(diff < 0 ? -(uint64_t)diff : (uint64_t)diff));
                if (n > 0)
                    s.len += (size_t)n;
            }
        }
    }
    if (k->has_status) {
        sb_add(&s, "notify", k->raw_notify, false);
        sb_add(&s, "updiscon", k->raw_updiscon, false);
    }
    if (k->has_ir) {
        sb_add(&s, "irreport", k->raw_irreport, false);
        if (et_irdepth_bits(p))
            sb_add(&s, "irdepth", k->raw_irdepth, false);
    }
    return (int)s.len;
}

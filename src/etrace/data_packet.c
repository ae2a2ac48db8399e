/* E-Trace te_data packets: struct <-> bits (dataTracePayload.adoc).
 *
 * One walk over the fields of a packet's table serves both directions, so
 * packing and parsing cannot disagree: each field is written from, or read
 * into, the struct in table order (LSB first), with widths that may depend
 * on fields already walked (data_len on size, data on data_len, the CSR
 * operand on addr_msbs).  Sign-based compression of the whole packet is
 * the same as for te_inst (et_bits_compressed_len). */
#include "etrace/etrace.h"

#include <inttypes.h>
#include <string.h>

static inline uint64_t mask64(unsigned w)
{
    return w >= 64 ? ~0ull : ((1ull << w) - 1);
}

static unsigned clog2(unsigned v)
{
    unsigned r = 0;
    while ((1u << r) < v)
        r++;
    return r;
}

unsigned et_d_format_bits(const struct et_dparams *d)
{
    /* "This field is 2 bits wide if only unified loads and stores are
     * supported, or 3 bits otherwise"; a hart reporting only loads and
     * stores has dtype_width_p 1 (ingressPort.adoc). */
    return d->dtype_width_p <= 1 && !d->data_split_p ? 2 : 3;
}

unsigned et_d_size_bits(const struct et_dparams *d)
{
    /* max(1, clog2(clog2(data_width_p/8 + 1))) */
    unsigned v = clog2(clog2(d->data_width_p / 8 + 1));
    return v < 1 ? 1 : v;
}

unsigned et_d_csr_len_bits(const struct et_dparams *d)
{
    /* "2 bits wide if hart has 32-bit CSRs, 3 bits if 64-bit"; the
     * reference model decides by data_width_p instead */
    if (d->model_compat)
        return d->data_width_p == 64 ? 3 : 2;
    return d->xlen == 64 ? 3 : 2;
}

static bool csr_read_only(unsigned csr)
{
    return ((csr >> 10) & 3) == 3; /* "as determined by addr[11:10] = 11" */
}

int et_dpkt_layout(const struct et_dparams *d, unsigned format, unsigned csr)
{
    bool split = d->data_split_p != 0;
    switch (format) {
    case ET_DF_LOAD_ALIGNED:
    case ET_DF_LOAD_UNALIGNED:
        if (split)
            return ET_DL_SPLIT_REQ;
        /* fall through */
    case ET_DF_STORE_ALIGNED:
    case ET_DF_STORE_UNALIGNED:
        return d->no_data ? ET_DL_LS_ADDR : d->no_address ? ET_DL_LS_DATA : ET_DL_LS_FULL;
    case ET_DF_SPLIT_LOAD_DATA:
        return split ? ET_DL_SPLIT_DATA : -1;
    case ET_DF_CSR:
        if (et_d_format_bits(d) == 2)
            return -1;
        (void)csr;
        /* the CSR packets all carry the CSR number: there is no data-only CSR table */
        return d->no_data ? ET_DL_CSR_ADDR : ET_DL_CSR_FULL;
    case ET_DF_ATOMIC:
        if (et_d_format_bits(d) == 2)
            return -1;
        if (split)
            return ET_DL_SPLIT_AT_OP;
        return d->no_data ? ET_DL_AT_ADDR : d->no_address ? ET_DL_AT_DATA : ET_DL_AT_FULL;
    case ET_DF_SPLIT_ATOMIC_DATA:
        return split ? ET_DL_SPLIT_AT_DATA : -1;
    default:
        return -1;
    }
}

/* ---- the walk -------------------------------------------------------------- */

struct io {
    bool writing;
    struct et_bits *wb;       /* writing */
    const struct et_bits *rb; /* reading */
    unsigned pos;
    unsigned sign;            /* reading: bits past the end repeat the last received one */
    bool overflow;
    const char *bad;          /* reading: the field whose value is not allowed */
};

static void io_field(struct io *io, uint64_t *v, unsigned w)
{
    if (w == 0) {
        if (!io->writing)
            *v = 0;
        return;
    }
    if (io->writing) {
        struct et_bits *b = io->wb;
        if (b->n + w > ET_MAX_BITS) {
            io->overflow = true;
            return;
        }
        uint64_t x = *v & mask64(w);
        unsigned i = b->n / 64, o = b->n % 64;
        b->w[i] |= x << o;
        if (o && o + w > 64)
            b->w[i + 1] |= x >> (64 - o);
        b->n += w;
        return;
    }
    const struct et_bits *b = io->rb;
    uint64_t x = 0;
    for (unsigned i = 0; i < w;) {
        unsigned p = io->pos + i;
        if (p >= b->n) { /* past the received bits: copies of the last one */
            if (io->sign)
                x |= mask64(w) & ~mask64(i);
            break;
        }
        unsigned o = p % 64, take = 64 - o;
        if (take > w - i)
            take = w - i;
        if (take > b->n - p)
            take = b->n - p;
        x |= ((b->w[p / 64] >> o) & mask64(take)) << i;
        i += take;
    }
    io->pos += w;
    *v = x;
}

/* Fields held in narrower struct members (the widths come from parameters
 * checked to fit them). */
static void io_u8(struct io *io, uint8_t *m, unsigned w)
{
    uint64_t v = *m;
    io_field(io, &v, w);
    *m = (uint8_t)v;
}

static void io_u32(struct io *io, uint32_t *m, unsigned w)
{
    uint64_t v = *m;
    io_field(io, &v, w);
    *m = (uint32_t)v;
}

/* A data or operand field of len + 1 bytes (values are at most 64 bits). */
static void io_bytes(struct io *io, uint64_t *v, unsigned len)
{
    if (len >= 8) {
        if (!io->bad)
            io->bad = "data_len/op_len (more than 8 bytes)";
        return;
    }
    io_field(io, v, 8u * (len + 1u));
}

static void walk(const struct et_dparams *d, struct et_dpkt *k, const uint8_t *lrid_size, struct io *io)
{
    const unsigned fw = et_d_format_bits(d), sw = et_d_size_bits(d), aw = d->daddress_width_p;
    const unsigned dw = d->data_width_p, lw = et_d_csr_len_bits(d), rw = d->lrid_width_p;
    io_u8(io, &k->format, fw);
    int layout = et_dpkt_layout(d, k->format, 0);
    if (layout < 0) {
        io->bad = "format";
        return;
    }
    k->layout = (uint8_t)layout;
    k->has_data = k->has_operand = k->has_address = false;
    switch (layout) {
    case ET_DL_LS_FULL:
        io_u8(io, &k->size, sw);
        io_u8(io, &k->diff, 2);
        io_u8(io, &k->data_len, k->size);
        io_bytes(io, &k->data, k->data_len);
        io_field(io, &k->address, aw);
        k->has_data = k->has_address = true;
        break;
    case ET_DL_LS_ADDR:
        io_u8(io, &k->size, sw);
        io_u8(io, &k->diff, 1);
        io_field(io, &k->address, aw);
        k->has_address = true;
        break;
    case ET_DL_LS_DATA:
        io_u8(io, &k->size, sw);
        io_u8(io, &k->diff, 2);
        io_field(io, &k->data, dw);
        k->has_data = true;
        break;
    case ET_DL_SPLIT_REQ:
        io_u8(io, &k->size, sw);
        io_u32(io, &k->lrid, rw);
        io_u8(io, &k->diff, 1);
        io_field(io, &k->address, aw);
        k->has_address = true;
        break;
    case ET_DL_SPLIT_DATA:
        io_u8(io, &k->size, sw);
        io_u32(io, &k->lrid, rw);
        io_u8(io, &k->resp, 2);
        io_field(io, &k->data, dw);
        k->has_data = k->resp != 0;
        break;
    case ET_DL_AT_FULL:
        io_u8(io, &k->subtype, 3);
        io_u8(io, &k->size, sw);
        io_u8(io, &k->diff, 2);
        io_u8(io, &k->op_len, k->size);
        io_bytes(io, &k->operand, k->op_len);
        io_u8(io, &k->data_len, k->size);
        io_bytes(io, &k->data, k->data_len);
        io_field(io, &k->address, aw);
        k->has_data = k->has_operand = k->has_address = true;
        break;
    case ET_DL_AT_ADDR:
        io_u8(io, &k->subtype, 3);
        io_u8(io, &k->size, sw);
        io_u8(io, &k->diff, 1);
        io_field(io, &k->address, aw);
        k->has_address = true;
        break;
    case ET_DL_AT_DATA:
        io_u8(io, &k->subtype, 3);
        io_u8(io, &k->size, sw);
        io_u8(io, &k->diff, 2);
        io_u8(io, &k->op_len, k->size);
        io_bytes(io, &k->operand, k->op_len);
        io_field(io, &k->data, dw);
        k->has_data = k->has_operand = true;
        break;
    case ET_DL_SPLIT_AT_OP:
        io_u8(io, &k->subtype, 3);
        io_u8(io, &k->size, sw);
        io_u32(io, &k->lrid, rw);
        io_u8(io, &k->diff, 1);
        io_u8(io, &k->op_len, k->size);
        io_bytes(io, &k->operand, k->op_len);
        io_field(io, &k->address, aw);
        k->has_operand = k->has_address = true;
        break;
    case ET_DL_SPLIT_AT_DATA:
        io_u32(io, &k->lrid, rw);
        io_u8(io, &k->resp, 2);
        if (!io->writing) {
            /* data_len is as wide as the request's size field value */
            if (!lrid_size || k->lrid >= ET_DMAX_LRID || lrid_size[k->lrid] == 0xff) {
                io->bad = "lrid (no outstanding atomic request)";
                return;
            }
            k->size = lrid_size[k->lrid];
        }
        if (k->resp != 0) { /* "Not included if resp indicates an error" */
            io_u8(io, &k->data_len, k->size);
            io_bytes(io, &k->data, k->data_len);
            k->has_data = true;
        }
        break;
    case ET_DL_CSR_FULL:
        io_u8(io, &k->subtype, 2);
        io_u8(io, &k->diff, 2);
        io_u8(io, &k->data_len, lw);
        io_bytes(io, &k->data, k->data_len);
        {
            uint64_t msbs = k->csr >> 6, lsbs = k->csr & 63;
            io_field(io, &msbs, 6);
            if (!csr_read_only((unsigned)msbs << 6)) {
                io_u8(io, &k->op_len, lw);
                io_bytes(io, &k->operand, k->op_len);
                k->has_operand = true;
            }
            io_field(io, &lsbs, 6);
            k->csr = (uint16_t)(msbs << 6 | lsbs);
        }
        k->has_data = true;
        break;
    case ET_DL_CSR_ADDR: {
        /* (the table's "subtype | 3" lists 2-bit codes: 2 bits, as in the
         * other CSR tables and the reference model) */
        io_u8(io, &k->subtype, 2);
        io_u8(io, &k->diff, 1);
        uint64_t msbs = k->csr >> 6, lsbs = k->csr & 63;
        io_field(io, &msbs, 6);
        io_field(io, &lsbs, 6);
        k->csr = (uint16_t)(msbs << 6 | lsbs);
        break;
    }
    }
}

int et_dpkt_bits(const struct et_dparams *d, struct et_dpkt *k, struct et_bits *b, struct rvt_diag *diag)
{
    memset(b, 0, sizeof *b);
    struct io io = {.writing = true, .wb = b};
    walk(d, k, NULL, &io);
    if (io.bad)
        return rvt_fail(diag, RVT_ERR_INVAL, "te_data format %u is not available with these parameters (%s)",
                        k->format, io.bad);
    if (io.overflow)
        return rvt_fail(diag, RVT_ERR_OVERFLOW, "te_data packet longer than %u bits", ET_MAX_BITS);
    return 0;
}

int et_dpkt_unpack(const struct et_dparams *d, const struct et_bits *b, const uint8_t *lrid_size, struct et_dpkt *k,
                   struct rvt_diag *diag)
{
    memset(k, 0, sizeof *k);
    if (b->n == 0)
        return rvt_fail(diag, RVT_ERR_FORMAT, "empty te_data packet");
    struct io io = {.writing = false, .rb = b};
    io.sign = (unsigned)(b->w[(b->n - 1) / 64] >> ((b->n - 1) % 64)) & 1u;
    walk(d, k, lrid_size, &io);
    if (io.bad)
        return rvt_fail(diag, RVT_ERR_FORMAT, "te_data packet: bad %s (format %u)", io.bad, k->format);
    if (io.pos < b->n) {
        /* bits beyond the packet must be sign extension (byte padding) */
        unsigned extra = b->n - io.pos;
        if (extra >= 8)
            return rvt_fail(diag, RVT_ERR_FORMAT, "te_data packet %s: %u bits after its last field", et_dpkt_name(k),
                            extra);
    }
    if (k->layout == ET_DL_CSR_FULL || k->layout == ET_DL_CSR_ADDR) {
        if (k->subtype == 3)
            return rvt_fail(diag, RVT_ERR_FORMAT, "te_data CSR packet with the reserved subtype 3");
    }
    /* (the reference model labels CSR packets 10 with full data and differential addresses) */
    if ((k->layout == ET_DL_LS_DATA || k->layout == ET_DL_AT_DATA || (k->layout == ET_DL_CSR_FULL && !d->model_compat)) &&
        k->diff == 2)
        return rvt_fail(diag, RVT_ERR_FORMAT, "te_data packet %s with the reserved diff code 10", et_dpkt_name(k));
    if (k->size >= ET_DSIZES || (1u << k->size) > d->data_width_p / 8 + (d->model_compat ? 8u : 0u))
        return rvt_fail(diag, RVT_ERR_FORMAT, "te_data packet %s: size %u (%u bytes) wider than data_width_p %u",
                        et_dpkt_name(k), k->size, 1u << (k->size & 7), d->data_width_p);
    return 0;
}

const char *et_dpkt_name(const struct et_dpkt *k)
{
    switch (k->layout) {
    case ET_DL_LS_FULL:
    case ET_DL_LS_ADDR:
    case ET_DL_LS_DATA: {
        static const char *const n[4] = {"LOAD", "LOAD.U", "STORE", "STORE.U"};
        return n[k->format & 3];
    }
    case ET_DL_SPLIT_REQ:
        return k->format == ET_DF_LOAD_ALIGNED ? "SPLIT.LOAD" : "SPLIT.LOAD.U";
    case ET_DL_SPLIT_DATA:
        return "SPLIT.LOAD.DATA";
    case ET_DL_AT_FULL:
    case ET_DL_AT_ADDR:
    case ET_DL_AT_DATA:
        return "ATOMIC";
    case ET_DL_SPLIT_AT_OP:
        return "SPLIT.ATOMIC";
    case ET_DL_SPLIT_AT_DATA:
        return "SPLIT.ATOMIC.DATA";
    case ET_DL_CSR_FULL:
    case ET_DL_CSR_ADDR:
        return "CSR";
    default:
        return "?";
    }
}

int et_dpkt_format_fields(const struct et_dparams *d, const struct et_dpkt *k, char *buf, size_t size)
{
    (void)d;
    size_t n = 0;
#define ADD(...)                                                                                                       \
    do {                                                                                                               \
        int r_ = snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__);                                             \
        if (r_ > 0)                                                                                                    \
            n += (size_t)r_;                                                                                           \
    } while (0)
    ADD("format=%u", k->format);
    bool csr = k->layout == ET_DL_CSR_FULL || k->layout == ET_DL_CSR_ADDR;
    bool atomic = k->layout >= ET_DL_AT_FULL && k->layout <= ET_DL_SPLIT_AT_DATA;
    if (csr || (atomic && k->layout != ET_DL_SPLIT_AT_DATA))
        ADD(" subtype=%u", k->subtype);
    if (!csr && k->layout != ET_DL_SPLIT_AT_DATA)
        ADD(" size=%u", k->size);
    if (k->layout == ET_DL_SPLIT_REQ || k->layout == ET_DL_SPLIT_DATA || k->layout == ET_DL_SPLIT_AT_OP ||
        k->layout == ET_DL_SPLIT_AT_DATA)
        ADD(" lrid=%" PRIu32, k->lrid);
    if (k->layout == ET_DL_SPLIT_DATA || k->layout == ET_DL_SPLIT_AT_DATA)
        ADD(" resp=%u", k->resp);
    else
        ADD(" diff=%u", k->diff);
    if (k->has_operand)
        ADD(" op_len=%u operand=0x%" PRIx64, k->op_len, k->operand);
    if (k->has_data) {
        if (k->layout == ET_DL_LS_DATA || k->layout == ET_DL_AT_DATA || k->layout == ET_DL_SPLIT_DATA)
            ADD(" data=0x%" PRIx64, k->data);
        else
            ADD(" data_len=%u data=0x%" PRIx64, k->data_len, k->data);
    }
    if (csr)
        ADD(" addr=0x%03x", k->csr);
    if (k->has_address)
        ADD(" address=0x%" PRIx64, k->address);
#undef ADD
    return (int)n;
}

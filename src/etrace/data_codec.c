/* E-Trace data trace: parameters and options, and the per-access encoding
 * and decoding rules of dataTracePayload.adoc (full, differential and XOR
 * compression, sign-extension trimming, the split protocol).
 *
 * The rules, quoted:
 *  - "Following a synchronization instruction trace packet, the first data
 *    trace packet for a given access size must include the full
 *    (unencoded) data access address. Thereafter, the address may be
 *    reported differentially (i.e. address of this data access, minus the
 *    address of the previous data access of the same size)."  The same for
 *    the data value; "data may be encoded or unencoded depending on
 *    whichever results in the most efficient represenation".
 *  - diff (with address and data): 00 full address and data (sync), 01
 *    differential address, XOR-compressed data, 10 differential address,
 *    full data, 11 differential address, differential data.  So a full
 *    address always goes with full data.
 *  - operand: "Uncompressed, although upper bytes that are all the same
 *    value do not need to be included in the packet".
 *  - address: "Byte address if format is unaligned, otherwise shift left by
 *    size to recover byte address": a differential address is sent shifted
 *    only when the difference itself is a multiple of the size (the access
 *    and the previous one of its size both aligned).
 * Choices the spec leaves open, made here: data of a size is compressed
 * against the previous data value of that size whatever the access type
 * (CSR values included: their size is XLEN); the data-only data field is
 * the value sign-extended from its size to data_width_p (the packet's sign
 * compression then drops its upper bytes); a failed store-conditional
 * (atomic subtype 111) sends data 0 as full data and leaves the data base
 * alone.  The reference data model's labelling (model_compat) differs:
 * see docs/etrace.md. */
#include "etrace/etrace.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static inline uint64_t mask64(unsigned w)
{
    return w >= 64 ? ~0ull : ((1ull << w) - 1);
}

static uint64_t sext(uint64_t v, unsigned w)
{
    if (w >= 64)
        return v;
    v &= mask64(w);
    return (v >> (w - 1)) & 1 ? v | ~mask64(w) : v;
}

/* ---- parameters ---------------------------------------------------------- */

void et_dparams_default(struct et_dparams *d)
{
    memset(d, 0, sizeof *d);
    d->dblock_width_p = 1;
    d->dsize_width_p = 3;
    d->dtype_width_p = 4;
    d->iaddr_lsbs_width_p = 1;
    d->lrid_width_p = 1;
    d->lresp_width_p = 2;
    d->classes = ET_DCL_ALL;
    d->mode = ET_DATA_OFF;
    d->compress = ET_DC_DIFF;
}

static int parse_u64(const char *s, uint64_t *v)
{
    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno || end == s || *end)
        return -1;
    *v = x;
    return 0;
}

static int parse_bool(const char *s, bool *v)
{
    if (!s)
        return -1;
    if (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on")) {
        *v = true;
        return 0;
    }
    if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off")) {
        *v = false;
        return 0;
    }
    return -1;
}

static int parse_classes(const char *s, unsigned *out)
{
    char buf[128];
    if (!s || strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    unsigned m = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcasecmp(t, "load") || !strcasecmp(t, "loads"))
            m |= ET_DCL_LOAD;
        else if (!strcasecmp(t, "store") || !strcasecmp(t, "stores"))
            m |= ET_DCL_STORE;
        else if (!strcasecmp(t, "atomic") || !strcasecmp(t, "atomics"))
            m |= ET_DCL_ATOMIC;
        else if (!strcasecmp(t, "csr") || !strcasecmp(t, "csrs"))
            m |= ET_DCL_CSR;
        else if (!strcasecmp(t, "all"))
            m |= ET_DCL_ALL;
        else
            return -1;
    }
    if (!m)
        return -1;
    *out = m;
    return 0;
}

/* "LO..HI" (HI excluded) or "LO..=HI", as --filter-range. */
static int parse_range(const char *s, uint64_t *lo, uint64_t *hi)
{
    const char *dots = s ? strstr(s, "..") : NULL;
    if (!dots || dots == s)
        return -1;
    char a[64];
    size_t n = (size_t)(dots - s);
    if (n >= sizeof a)
        return -1;
    memcpy(a, s, n);
    a[n] = 0;
    bool incl = dots[2] == '=';
    uint64_t h;
    if (parse_u64(a, lo) || parse_u64(dots + 2 + incl, &h))
        return -1;
    if (!incl) {
        if (h <= *lo)
            return -1;
        h--;
    }
    if (h < *lo)
        return -1;
    *hi = h;
    return 0;
}

int et_dparam_set(struct et_dparams *d, const char *key, const char *val, struct rvt_diag *diag)
{
    struct {
        const char *name;
        unsigned *dst;
        unsigned max;
    } hw[] = {
        {"daddress_width_p", &d->daddress_width_p, 64}, {"dblock_width_p", &d->dblock_width_p, 8},
        {"data_width_p", &d->data_width_p, 128},         {"dsize_width_p", &d->dsize_width_p, 8},
        {"dtype_width_p", &d->dtype_width_p, 4},         {"iaddr_lsbs_width_p", &d->iaddr_lsbs_width_p, 16},
        {"lrid_width_p", &d->lrid_width_p, 6},           {"lresp_width_p", &d->lresp_width_p, 8},
        {"ldata_width_p", &d->ldata_width_p, 128},       {"sdata_width_p", &d->sdata_width_p, 128},
        {"data_split_p", &d->data_split_p, 1},           {"data-split-lag", &d->split_lag, 1000},
    };
    uint64_t v;
    for (size_t i = 0; i < sizeof hw / sizeof hw[0]; i++) {
        if (strcmp(key, hw[i].name))
            continue;
        if (parse_u64(val, &v) || v > hw[i].max)
            return rvt_fail(diag, RVT_ERR_INVAL, "etrace: %s expects an integer 0..%u, got \"%s\"", key, hw[i].max,
                            val ? val : "");
        *hw[i].dst = (unsigned)v;
        return 0;
    }
    /* ucf [codec] keys of the reference flow, and their option names */
    struct {
        const char *name;
        bool *dst;
    } flags[] = {
        {"no-address", &d->no_address},     {"data-no-address", &d->no_address},
        {"no-data", &d->no_data},           {"data-no-value", &d->no_data},
        {"full-daddress", &d->full_address}, {"data-full-address", &d->full_address},
        {"full-data", &d->full_data},       {"data-full-value", &d->full_data},
        {"data-trim", &d->trim},            {"data-model-compat", &d->model_compat},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        if (strcmp(key, flags[i].name))
            continue;
        if (parse_bool(val, flags[i].dst))
            return rvt_fail(diag, RVT_ERR_INVAL, "etrace: %s expects true or false, got \"%s\"", key, val ? val : "");
        return 0;
    }
    if (!strcmp(key, "data-trace")) {
        bool b;
        if (val && !strcasecmp(val, "only"))
            d->mode = ET_DATA_ONLY;
        else if (!parse_bool(val, &b))
            d->mode = b ? ET_DATA_ON : ET_DATA_OFF;
        else
            return rvt_fail(diag, RVT_ERR_INVAL, "etrace: data-trace expects on, off or only, got \"%s\"",
                            val ? val : "");
        return 0;
    }
    if (!strcmp(key, "data-compress")) {
        /* names, or the reference ucf's numbers (0 full only, 1 XOR, 2 differential, 3 dynamic) */
        if (val && (!strcasecmp(val, "diff") || !strcasecmp(val, "differential") || !strcmp(val, "2")))
            d->compress = ET_DC_DIFF;
        else if (val && (!strcasecmp(val, "xor") || !strcmp(val, "1")))
            d->compress = ET_DC_XOR;
        else if (val && (!strcasecmp(val, "best") || !strcmp(val, "3")))
            d->compress = ET_DC_BEST;
        else if (val && !strcmp(val, "0"))
            d->compress = ET_DC_DIFF; /* the reference flow's default key value: its model ignores it */
        else
            return rvt_fail(diag, RVT_ERR_INVAL, "etrace: data-compress expects diff, xor or best, got \"%s\"",
                            val ? val : "");
        return 0;
    }
    if (!strcmp(key, "data-types")) {
        if (parse_classes(val, &d->classes))
            return rvt_fail(diag, RVT_ERR_INVAL,
                            "etrace: data-types expects a list of load, store, atomic, csr (or all), got \"%s\"",
                            val ? val : "");
        return 0;
    }
    if (!strcmp(key, "data-filter-address")) {
        if (d->n_dranges >= ET_DMAX_RANGES)
            return rvt_fail(diag, RVT_ERR_LIMIT, "etrace: at most %d data address filter ranges", ET_DMAX_RANGES);
        if (parse_range(val, &d->drange_lo[d->n_dranges], &d->drange_hi[d->n_dranges]))
            return rvt_fail(diag, RVT_ERR_INVAL,
                            "etrace: data-filter-address expects LO..HI (HI excluded) or LO..=HI, got \"%s\"",
                            val ? val : "");
        d->n_dranges++;
        return 0;
    }
    if (!strcmp(key, "data-filter-range")) {
        if (d->n_ranges >= ET_DMAX_RANGES)
            return rvt_fail(diag, RVT_ERR_LIMIT, "etrace: at most %d data filter ranges", ET_DMAX_RANGES);
        if (parse_range(val, &d->range_lo[d->n_ranges], &d->range_hi[d->n_ranges]))
            return rvt_fail(diag, RVT_ERR_INVAL,
                            "etrace: data-filter-range expects LO..HI (HI excluded) or LO..=HI, got \"%s\"",
                            val ? val : "");
        d->n_ranges++;
        return 0;
    }
    return -RVT_ERR_UNSUPPORTED;
}

int et_dparams_finish(struct et_dparams *d, unsigned xlen, unsigned doptions_width, unsigned *type_bits, bool encap,
                      struct rvt_diag *diag)
{
    d->xlen = xlen;
    if (!d->daddress_width_p)
        d->daddress_width_p = xlen;
    if (!d->data_width_p)
        d->data_width_p = 64;
    if (!d->ldata_width_p)
        d->ldata_width_p = d->data_width_p;
    if (!d->sdata_width_p)
        d->sdata_width_p = d->data_width_p;
    if (d->data_width_p < 8 || d->data_width_p > 64 || (d->data_width_p & (d->data_width_p - 1)))
        return rvt_fail(diag, RVT_ERR_UNSUPPORTED,
                        "etrace: data_width_p %u: this encoder supports 8, 16, 32 or 64-bit data", d->data_width_p);
    if (d->daddress_width_p < 2)
        return rvt_fail(diag, RVT_ERR_INVAL, "etrace: daddress_width_p %u too small", d->daddress_width_p);
    if (d->dtype_width_p < 1)
        return rvt_fail(diag, RVT_ERR_INVAL, "etrace: dtype_width_p must be 1..4");
    if (d->data_split_p && (d->lrid_width_p < 1 || d->lrid_width_p > 6))
        return rvt_fail(diag, RVT_ERR_UNSUPPORTED, "etrace: split loads need lrid_width_p 1..6");
    if (d->mode == ET_DATA_OFF)
        return 0;
    if (d->no_address && d->no_data)
        return rvt_fail(diag, RVT_ERR_INVAL, "etrace: no-address and no-data together leave nothing to trace");
    if (d->full_address && !d->full_data && !d->no_data && !d->no_address)
        return rvt_fail(diag, RVT_ERR_INVAL,
                        "etrace: a full data address needs full data too (the diff field's code 00 is \"full "
                        "address and data\"; there is none for a full address with compressed data)");
    if (d->data_split_p && d->no_address)
        return rvt_fail(diag, RVT_ERR_UNSUPPORTED,
                        "etrace: split loads report the address in the request packet: no-address is not available");
    if (d->data_split_p && d->model_compat)
        return rvt_fail(diag, RVT_ERR_UNSUPPORTED, "etrace: the reference data model has no split protocol");
    if (d->compress != ET_DC_DIFF && doptions_width < ET_DOPTIONS_WIDTH)
        return rvt_fail(diag, RVT_ERR_INVAL,
                        "etrace: data-compress %s must be announced in doptions, which needs doptions_width >= %u "
                        "(it is %u)",
                        d->compress == ET_DC_XOR ? "xor" : "best", ET_DOPTIONS_WIDTH, doptions_width);
    if (d->classes != ET_DCL_ALL && doptions_width < ET_DOPTIONS_WIDTH)
        return rvt_fail(diag, RVT_ERR_INVAL, "etrace: data-types must be announced in doptions, which needs "
                                             "doptions_width >= %u (it is %u)",
                        ET_DOPTIONS_WIDTH, doptions_width);
    if (d->model_compat && d->compress != ET_DC_DIFF)
        return rvt_fail(diag, RVT_ERR_INVAL, "etrace: the reference data model compresses by subtraction only");
    if (encap && type_bits && *type_bits == 0)
        *type_bits = 1; /* "If both instruction and data trace are supported, the minimum width is 1" */
    return 0;
}

unsigned et_dclasses(const struct et_dparams *d)
{
    unsigned c = d->classes & ET_DCL_ALL;
    /* what the hart can report: dtype_width_p 1 loads and stores, 3 also CSRs, 4 everything */
    if (d->dtype_width_p < 4)
        c &= ~(unsigned)ET_DCL_ATOMIC;
    if (d->dtype_width_p < 3)
        c &= ~(unsigned)ET_DCL_CSR;
    return c;
}

uint32_t et_doptions(const struct et_dparams *d)
{
    uint32_t v = 0;
    if (d->no_address)
        v |= ET_DOPT_NO_ADDRESS;
    if (d->no_data)
        v |= ET_DOPT_NO_DATA;
    if (d->full_address)
        v |= ET_DOPT_FULL_ADDRESS;
    if (d->full_data)
        v |= ET_DOPT_FULL_DATA;
    v |= (uint32_t)d->compress << ET_DOPT_COMPRESS_SHIFT;
    v |= (uint32_t)(~et_dclasses(d) & ET_DCL_ALL) << ET_DOPT_NO_CLASS_SHIFT;
    return v;
}

int et_apply_doptions(struct et_dparams *d, uint32_t v, unsigned width, struct rvt_diag *diag)
{
    if (width < 32)
        v &= (1u << width) - 1;
    if (v >> ET_DOPTIONS_WIDTH)
        return rvt_fail(diag, RVT_ERR_UNSUPPORTED, "doptions 0x%" PRIx32 " has bits this decoder does not know", v);
    unsigned c = (v >> ET_DOPT_COMPRESS_SHIFT) & 3;
    if (c == 3)
        return rvt_fail(diag, RVT_ERR_FORMAT, "doptions 0x%" PRIx32 ": reserved data compression code 3", v);
    d->no_address = (v & ET_DOPT_NO_ADDRESS) != 0;
    d->no_data = (v & ET_DOPT_NO_DATA) != 0;
    d->full_address = (v & ET_DOPT_FULL_ADDRESS) != 0;
    d->full_data = (v & ET_DOPT_FULL_DATA) != 0;
    if (d->no_address && d->no_data)
        return rvt_fail(diag, RVT_ERR_FORMAT, "doptions 0x%" PRIx32 ": no address and no data", v);
    d->compress = (enum et_dcompress)c;
    unsigned off = (v >> ET_DOPT_NO_CLASS_SHIFT) & ET_DCL_ALL;
    d->classes = ET_DCL_ALL & ~off;
    return 0;
}

void et_dprint_discovery(const struct et_dparams *d, FILE *out)
{
    fprintf(out, "data trace (attribute = value  [parameter]):\n");
    struct {
        const char *name;
        unsigned p;
    } a[] = {
        {"daddress_width", d->daddress_width_p}, {"dblock_width", d->dblock_width_p},
        {"data_width", d->data_width_p},         {"dsize_width", d->dsize_width_p},
        {"dtype_width", d->dtype_width_p},       {"iaddr_lsbs_width", d->iaddr_lsbs_width_p},
        {"lrid_width", d->lrid_width_p},         {"lresp_width", d->lresp_width_p},
        {"ldata_width", d->ldata_width_p},       {"sdata_width", d->sdata_width_p},
    };
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        fprintf(out, "  %-18s = %-4ld [%s_p = %u]\n", a[i].name, (long)a[i].p - 1, a[i].name, a[i].p);
    fprintf(out, "  %-18s = %u (rvtrace: split load protocol)\n", "data_split", d->data_split_p);
    unsigned c = et_dclasses(d);
    char traced[40] = "";
    static const char *const names[4] = {"load", "store", "atomic", "csr"};
    for (unsigned i = 0; i < 4; i++)
        if (c & (1u << i))
            snprintf(traced + strlen(traced), sizeof traced - strlen(traced), "%s%s", traced[0] ? "," : "", names[i]);
    fprintf(out, "doptions (0x%" PRIx32 "): no_address=%u no_data=%u full_address=%u full_data=%u compress=%s traced=%s\n",
            et_doptions(d), d->no_address, d->no_data, d->full_address, d->full_data,
            d->compress == ET_DC_XOR ? "xor" : d->compress == ET_DC_BEST ? "best" : "diff", c ? traced : "none");
    fprintf(out, "te_data fields: format %u bits, size %u bits, CSR data_len %u bits, mode %s\n", et_d_format_bits(d),
            et_d_size_bits(d), et_d_csr_len_bits(d),
            d->mode == ET_DATA_ON ? "on" : d->mode == ET_DATA_ONLY ? "only (no instruction trace)" : "off");
}

/* ---- classes and filters -------------------------------------------------- */

unsigned et_dclass_of_dtype(unsigned t)
{
    if (t == RVT_DTYPE_LOAD)
        return ET_DCL_LOAD;
    if (t == RVT_DTYPE_STORE || t == RVT_DTYPE_SC_FAIL)
        return ET_DCL_STORE; /* an SC is a store instruction whatever its outcome */
    if (rvt_dtype_is_csr(t))
        return ET_DCL_CSR;
    if (rvt_dtype_is_amo(t))
        return ET_DCL_ATOMIC;
    return 0;
}

unsigned et_dclass_of_isa(int a)
{
    if (a < 0)
        return 0;
    if (a == RVT_ISA_DATA_SC)
        return ET_DCL_STORE;
    return et_dclass_of_dtype((unsigned)a);
}

bool et_dtraced(const struct et_dparams *d, unsigned cls, uint64_t iaddr)
{
    if (!(et_dclasses(d) & cls))
        return false;
    if (!d->n_ranges)
        return true;
    for (unsigned i = 0; i < d->n_ranges; i++)
        if (iaddr >= d->range_lo[i] && iaddr <= d->range_hi[i])
            return true;
    return false;
}

bool et_dtraced_addr(const struct et_dparams *d, const struct et_access *a)
{
    if (!d->n_dranges || rvt_dtype_is_csr(a->dtype))
        return true;
    for (unsigned i = 0; i < d->n_dranges; i++)
        if (a->addr >= d->drange_lo[i] && a->addr <= d->drange_hi[i])
            return true;
    return false;
}

/* ---- shared helpers ---------------------------------------------------------- */

void et_dstate_reset(struct et_dstate *s)
{
    memset(s, 0, sizeof *s);
}

/* Bytes (1..n) of v that sign extension restores to n bytes. */
static unsigned trim_len(uint64_t v, unsigned n)
{
    unsigned w = 8 * n;
    v &= mask64(w);
    for (unsigned k = 1; k < n; k++)
        if ((sext(v, 8 * k) & mask64(w)) == v)
            return k;
    return n;
}

static unsigned atomic_subtype(const struct et_dparams *d, unsigned dtype)
{
    if (dtype == RVT_DTYPE_SC_FAIL)
        return 7;
    unsigned s = dtype - RVT_DTYPE_AMO_SWAP; /* swap add and or xor max min: 0..6 */
    if (d->model_compat && s >= 4)
        s++; /* the model numbers xor/max/min 5/6/7 */
    return s;
}

static int dtype_of_subtype(const struct et_dparams *d, unsigned s)
{
    if (d->model_compat) {
        if (s == 4)
            return -1;
        if (s >= 5)
            s--;
        else if (s == 7)
            return -1;
        return (int)(RVT_DTYPE_AMO_SWAP + s);
    }
    if (s == 7)
        return RVT_DTYPE_SC_FAIL;
    return (int)(RVT_DTYPE_AMO_SWAP + s);
}

/* The model's diff label: a constant of the options (its diff_type). */
static unsigned model_diff(const struct et_dparams *d)
{
    if (d->no_address)
        return d->full_data ? 0 : 1;
    if (d->no_data)
        return d->full_address ? 0 : 1;
    if (d->full_address)
        return 0;
    return d->full_data ? 2 : 1;
}

/* ---- encoder -------------------------------------------------------------------- */

void et_denc_init(struct et_denc *e, const struct et_dparams *d)
{
    memset(e, 0, sizeof *e);
    e->d = d;
}

/* Compressed data value: full, XOR or differential (the diff code's data
 * part: 0 full, 1 XOR, 3 differential), the most efficient with BEST. */
static uint64_t compress_data(const struct et_denc *e, unsigned sz, uint64_t v, bool full, unsigned *kind)
{
    const struct et_dparams *d = e->d;
    unsigned w = 8u << sz;
    uint64_t last = e->st.data[sz];
    if (full) {
        *kind = 0;
        return v;
    }
    uint64_t x = (v ^ last) & mask64(w), df = (v - last) & mask64(w);
    switch (d->compress) {
    case ET_DC_XOR:
        *kind = 1;
        return x;
    case ET_DC_DIFF:
        *kind = 3;
        return df;
    default: {
        /* "whichever results in the most efficient representation": the
         * fewest bytes after sign-extension trimming (ties: full, XOR, diff) */
        unsigned n = 1u << sz, lf = trim_len(v, n), lx = trim_len(x, n), ld = trim_len(df, n);
        if (lf <= lx && lf <= ld) {
            *kind = 2; /* full, but not a sync: the 10 code */
            return v;
        }
        if (lx <= ld) {
            *kind = 1;
            return x;
        }
        *kind = 3;
        return df;
    }
    }
}

/* Address field: full or differential, aligned (shifted) when possible.
 * need_aligned (atomic packets have no unaligned form): a difference that
 * is not a multiple of the size is sent as a full address instead (*full). */
static uint64_t address_field(struct et_denc *e, const struct et_access *a, unsigned sz, bool *full, bool *aligned,
                              bool need_aligned)
{
    const struct et_dparams *d = e->d;
    unsigned aw = d->daddress_width_p;
    uint64_t m = mask64(aw), addr = a->addr & m;
    bool al = (addr & mask64(sz)) == 0;
    if (d->model_compat) {
        /* the model keeps the field value, shifted or not, as the base */
        uint64_t f = al ? addr >> sz : addr;
        uint64_t out = *full ? f : (f - e->st.addr[sz]) & m;
        e->st.addr[sz] = f;
        *aligned = al;
        return out & m;
    }
    uint64_t last = e->st.addr[sz];
    e->st.addr[sz] = addr;
    if (!*full && need_aligned && al && (last & mask64(sz)))
        *full = true;
    if (*full) {
        *aligned = al;
        return al ? addr >> sz : addr;
    }
    uint64_t diff = (addr - last) & m;
    al = al && (last & mask64(sz)) == 0;
    *aligned = al;
    if (!al)
        return diff;
    return ((uint64_t)((int64_t)sext(diff, aw) >> sz)) & m;
}

/* Data field of length len+1 bytes (or data_width_p in the data-only
 * layouts: sign-extended from the access size). */
static void set_data(const struct et_dparams *d, struct et_dpkt *k, uint64_t v, unsigned sz, bool data_only)
{
    unsigned n = 1u << sz;
    if (data_only) {
        k->data = sext(v, 8 * n) & mask64(d->data_width_p);
        return;
    }
    k->data_len = (uint8_t)((d->trim ? trim_len(v, n) : n) - 1);
    k->data = v & mask64(8u * (k->data_len + 1u));
}

static void set_operand(const struct et_dparams *d, struct et_dpkt *k, uint64_t v, unsigned n)
{
    k->op_len = (uint8_t)((d->trim ? trim_len(v, n) : n) - 1);
    k->operand = v & mask64(8u * (k->op_len + 1u));
}

/* The reference model: everything through one differential handler per
 * size (first value of a size full, then subtraction), labels constant. */
static uint64_t model_value(struct et_denc *e, unsigned sz, uint64_t v)
{
    if (!((e->st.have_data >> sz) & 1)) {
        e->st.have_data |= (uint8_t)(1u << sz);
        e->st.data[sz] = v;
        return v;
    }
    uint64_t r = v - e->st.data[sz];
    e->st.data[sz] = v;
    return r;
}

static int encode_compat(struct et_denc *e, const struct et_access *a, struct et_dpkt *k, struct rvt_diag *diag)
{
    const struct et_dparams *d = e->d;
    unsigned sz = a->size, n = 1u << sz, dw = d->data_width_p;
    k->size = (uint8_t)sz;
    k->diff = (uint8_t)model_diff(d);
    bool full_a = d->full_address || !((e->st.have_addr >> sz) & 1);
    if (rvt_dtype_is_csr(a->dtype)) {
        k->format = ET_DF_CSR;
        k->subtype = (uint8_t)(a->dtype - RVT_DTYPE_CSR_RW);
        k->csr = (uint16_t)(a->addr & 0xfff);
        if (!d->no_data) {
            uint64_t dv = d->full_data ? a->data : model_value(e, sz, a->data);
            k->data_len = (uint8_t)(n - 1);
            k->data = dv & mask64(8 * n);
            if (((k->csr >> 10) & 3) != 3) {
                uint64_t ov = d->full_data ? a->operand : model_value(e, sz, a->operand);
                k->op_len = (uint8_t)(n - 1);
                k->operand = ov & mask64(8 * n);
            }
        }
        return 0;
    }
    if (a->dtype == RVT_DTYPE_SC_FAIL)
        return rvt_fail(diag, RVT_ERR_UNSUPPORTED,
                        "the reference data model has no packet for a failed store-conditional (dtype 15; its "
                        "atomic subtype 7 is min)");
    bool atomic = rvt_dtype_is_amo(a->dtype);
    /* (without an address the format still says whether the access was aligned) */
    bool aligned = (a->addr & mask64(sz)) == 0;
    if (!d->no_address) {
        k->address = address_field(e, a, sz, &full_a, &aligned, false);
        e->st.have_addr |= (uint8_t)(1u << sz);
    }
    if (atomic) {
        k->format = ET_DF_ATOMIC;
        k->subtype = (uint8_t)atomic_subtype(d, a->dtype);
        if (!d->no_data) {
            uint64_t ov = d->full_data ? a->operand : model_value(e, sz, a->operand);
            k->op_len = (uint8_t)(n - 1);
            k->operand = ov & mask64(8 * n);
            if (d->no_address) {
                /* its data field takes data_width_p bits of the whole data bus (operand above the store data) */
                uint64_t bus = n < 8 ? (a->operand << (8 * n)) | (a->data & mask64(8 * n)) : a->data;
                uint64_t dv = d->full_data ? bus : model_value(e, sz, bus);
                k->data = dv & mask64(dw);
            } else {
                uint64_t dv = d->full_data ? a->data : model_value(e, sz, a->data);
                k->data_len = (uint8_t)(n - 1);
                k->data = dv & mask64(8 * n);
            }
        }
    } else {
        bool load = a->dtype == RVT_DTYPE_LOAD;
        k->format = (uint8_t)((load ? ET_DF_LOAD_ALIGNED : ET_DF_STORE_ALIGNED) + (aligned ? 0 : 1));
        if (!d->no_data) {
            uint64_t dv = d->full_data ? a->data : model_value(e, sz, a->data);
            if (d->no_address) {
                k->data = dv & mask64(dw); /* (an 8-byte value loses its upper half with a 32-bit data_width_p) */
            } else {
                k->data_len = (uint8_t)(n - 1);
                k->data = dv & mask64(8 * n);
            }
        }
    }
    return 0;
}

static int encode_unified(struct et_denc *e, const struct et_access *a, struct et_dpkt *k, struct rvt_diag *diag)
{
    const struct et_dparams *d = e->d;
    const unsigned sz = a->size, n = 1u << sz;
    memset(k, 0, sizeof *k);
    k->size = (uint8_t)sz;
    if (d->model_compat)
        return encode_compat(e, a, k, diag);
    const bool have_a = (e->st.have_addr >> sz) & 1, have_d = (e->st.have_data >> sz) & 1;
    const bool sc_fail = a->dtype == RVT_DTYPE_SC_FAIL;
    if (rvt_dtype_is_csr(a->dtype)) {
        k->format = ET_DF_CSR;
        k->subtype = (uint8_t)(a->dtype - RVT_DTYPE_CSR_RW);
        k->csr = (uint16_t)(a->addr & 0xfff);
        if (d->no_data) {
            k->diff = 0; /* the CSR number is always sent whole */
            return 0;
        }
        unsigned kind;
        uint64_t v = compress_data(e, sz, a->data & mask64(8 * n), d->full_data || !have_d, &kind);
        k->diff = (uint8_t)(kind == 2 ? 0 : kind); /* CSR diff codes: data only (00 full) */
        e->st.data[sz] = a->data & mask64(8 * n);
        e->st.have_data |= (uint8_t)(1u << sz);
        /* data_len: "2 bits wide if hart has 32-bit CSRs, 3 bits if 64-bit" */
        set_data(d, k, v, sz, false);
        if (((k->csr >> 10) & 3) != 3)
            set_operand(d, k, a->operand, n);
        return 0;
    }
    const bool atomic = rvt_dtype_is_amo(a->dtype) || sc_fail;
    /* address part */
    /* (without an address the format still says whether the access was aligned) */
    bool full_a = d->full_address || !have_a, aligned = (a->addr & mask64(sz)) == 0;
    if (!d->no_address) {
        k->address = address_field(e, a, sz, &full_a, &aligned, atomic);
        e->st.have_addr |= (uint8_t)(1u << sz);
        if (atomic && !aligned)
            return rvt_fail(diag, RVT_ERR_INVAL,
                            "atomic access at 0x%" PRIx64 " is not aligned to its %u bytes (atomic packets carry an "
                            "aligned address)",
                            a->addr, n);
    }
    if (atomic) {
        k->format = ET_DF_ATOMIC;
        k->subtype = (uint8_t)atomic_subtype(d, a->dtype);
    } else {
        bool load = a->dtype == RVT_DTYPE_LOAD;
        k->format = (uint8_t)((load ? ET_DF_LOAD_ALIGNED : ET_DF_STORE_ALIGNED) + (aligned ? 0 : 1));
    }
    if (d->no_data) {
        k->diff = full_a ? 0 : 1;
        return 0;
    }
    /* data part; a full address goes with full data (code 00) */
    unsigned kind;
    uint64_t v = a->data & mask64(8 * n);
    uint64_t cv;
    if (sc_fail) {
        cv = 0;
        kind = (d->no_address ? false : !full_a) ? 2 : 0; /* full data: 10 with a differential address */
    } else {
        bool full_d = d->full_data || !have_d || (!d->no_address && full_a);
        cv = compress_data(e, sz, v, full_d, &kind);
        if (kind == 0 && !d->no_address && !full_a)
            kind = 2; /* full data beside a differential address: 10 */
        e->st.data[sz] = v;
        e->st.have_data |= (uint8_t)(1u << sz);
    }
    if (d->no_address)
        k->diff = (uint8_t)(kind == 2 ? 0 : kind); /* data-only codes: 00 full, 01 XOR, 11 differential */
    else
        k->diff = (uint8_t)(full_a ? 0 : kind);
    if (atomic)
        set_operand(d, k, a->operand, n);
    set_data(d, k, cv, sz, d->no_address);
    return 0;
}

/* Split protocol: the request packet now, the response later. */
static int encode_split(struct et_denc *e, const struct et_access *a, struct et_dpkt *out, unsigned *nout,
                        struct rvt_diag *diag)
{
    const struct et_dparams *d = e->d;
    const unsigned sz = a->size, n = 1u << sz;
    unsigned nid = 1u << d->lrid_width_p;
    if (e->npend >= nid || e->npend >= ET_DMAX_LRID)
        return rvt_fail(diag, RVT_ERR_INVAL, "internal: no free load request id");
    struct et_dpkt *k = &out[(*nout)++];
    memset(k, 0, sizeof *k);
    bool full_a = d->full_address || !((e->st.have_addr >> sz) & 1), aligned = true;
    bool atomic = rvt_dtype_is_amo(a->dtype) || a->dtype == RVT_DTYPE_SC_FAIL;
    k->address = address_field(e, a, sz, &full_a, &aligned, atomic);
    e->st.have_addr |= (uint8_t)(1u << sz);
    k->diff = full_a ? 0 : 1;
    k->size = (uint8_t)sz;
    k->lrid = e->next_lrid;
    if (atomic) {
        if (!aligned)
            return rvt_fail(diag, RVT_ERR_INVAL, "atomic access at 0x%" PRIx64 " is not aligned", a->addr);
        k->format = ET_DF_ATOMIC;
        k->subtype = (uint8_t)atomic_subtype(d, a->dtype);
        set_operand(d, k, d->no_data ? 0 : a->operand, n);
    } else {
        k->format = (uint8_t)(ET_DF_LOAD_ALIGNED + (aligned ? 0 : 1));
    }
    if (!d->no_data) {
        struct et_dpending *p = &e->pend[e->npend++];
        p->a = *a;
        p->lrid = e->next_lrid;
        p->after = d->split_lag;
    }
    e->next_lrid = (e->next_lrid + 1) & (nid - 1);
    return 0;
}

int et_denc_access(struct et_denc *e, const struct et_access *a, struct et_dpkt *out, unsigned *n, struct rvt_diag *diag)
{
    const struct et_dparams *d = e->d;
    *n = 0;
    if (a->size >= ET_DSIZES || (1u << a->size) > d->data_width_p / 8) {
        if (!(d->model_compat && d->no_address && !rvt_dtype_is_csr(a->dtype)))
            return rvt_fail(diag, RVT_ERR_OVERFLOW,
                            "%s of %u bytes at 0x%" PRIx64 " is wider than data_width_p = %u bits (set data_width_p)",
                            rvt_dtype_name(a->dtype), 1u << (a->size & 7), a->addr, d->data_width_p);
    }
    if (!d->no_data && !a->has_data && a->dtype != RVT_DTYPE_SC_FAIL)
        return rvt_fail(diag, RVT_ERR_INVAL,
                        "%s at 0x%" PRIx64 " has no value in the ingress (a capture without values?): trace "
                        "addresses only with --data-no-value",
                        rvt_dtype_name(a->dtype), a->addr);
    if (d->daddress_width_p < 64 && !rvt_dtype_is_csr(a->dtype) && (a->addr >> d->daddress_width_p))
        return rvt_fail(diag, RVT_ERR_OVERFLOW, "%s address 0x%" PRIx64 " wider than daddress_width_p = %u",
                        rvt_dtype_name(a->dtype), a->addr, d->daddress_width_p);
    if (a->dtype == RVT_DTYPE_SC_FAIL && d->dtype_width_p < 4)
        return rvt_fail(diag, RVT_ERR_UNSUPPORTED,
                        "a failed store-conditional at 0x%" PRIx64 " (dtype 15) cannot be reported with dtype_width_p %u: "
                        "set dtype_width_p 4, or leave stores out (--data-types)",
                        a->addr, d->dtype_width_p);
    bool split_kind = a->dtype == RVT_DTYPE_LOAD || rvt_dtype_is_amo(a->dtype) || a->dtype == RVT_DTYPE_SC_FAIL;
    int rc;
    if (d->data_split_p && split_kind) {
        /* a free id: release the oldest response first */
        unsigned nid = 1u << d->lrid_width_p;
        while (e->npend >= nid) {
            if ((rc = et_denc_response(e, true, &out[*n], diag)) < 0)
                return rc;
            if (rc == 1) {
                (*n)++;
                break; /* (one response at most frees one id) */
            }
        }
        rc = encode_split(e, a, out, n, diag);
    } else {
        rc = encode_unified(e, a, &out[*n], diag);
        if (rc == 0)
            (*n)++;
    }
    if (rc < 0)
        return rc;
    e->packets += *n;
    return 0;
}

void et_denc_tick(struct et_denc *e)
{
    for (unsigned i = 0; i < e->npend; i++)
        if (e->pend[i].after)
            e->pend[i].after--;
}

int et_denc_response(struct et_denc *e, bool flush, struct et_dpkt *k, struct rvt_diag *diag)
{
    (void)diag;
    if (!e->npend)
        return 0;
    struct et_dpending *p = &e->pend[0];
    if (!flush && p->after > 0)
        return 0;
    const struct et_dparams *d = e->d;
    const struct et_access *a = &p->a;
    const unsigned sz = a->size, n = 1u << sz;
    memset(k, 0, sizeof *k);
    k->lrid = p->lrid;
    k->size = (uint8_t)sz;
    uint64_t v = a->data & mask64(8 * n), cv;
    unsigned kind;
    if (a->dtype == RVT_DTYPE_SC_FAIL) {
        cv = 0;
        kind = 2;
    } else {
        cv = compress_data(e, sz, v, d->full_data || !((e->st.have_data >> sz) & 1), &kind);
        e->st.data[sz] = v;
        e->st.have_data |= (uint8_t)(1u << sz);
    }
    /* resp: 01 XOR, 10 full, 11 differential */
    k->resp = (uint8_t)(kind == 0 ? 2 : kind);
    if (rvt_dtype_is_amo(a->dtype) || a->dtype == RVT_DTYPE_SC_FAIL) {
        /* "Split atomic load data only": the spec means the value the
         * atomic loaded, which the records (store data and operand, as the
         * unified port reports an atomic) do not carry; the value written
         * goes there, as in a unified atomic's data, and the user is told
         * (et_enc_stats). */
        k->format = ET_DF_SPLIT_ATOMIC_DATA;
        set_data(d, k, cv, sz, false);
        if (a->dtype != RVT_DTYPE_SC_FAIL)
            e->atomic_responses++;
    } else {
        k->format = ET_DF_SPLIT_LOAD_DATA;
        set_data(d, k, cv, sz, true);
    }
    memmove(&e->pend[0], &e->pend[1], (e->npend - 1) * sizeof e->pend[0]);
    e->npend--;
    e->packets++;
    return 1;
}

/* ---- decoder ---------------------------------------------------------------- */

void et_ddec_init(struct et_ddec *x, const struct et_dparams *d)
{
    memset(x, 0, sizeof *x);
    x->d = d;
    memset(x->lrid_size, 0xff, sizeof x->lrid_size);
}

void et_ddec_reset(struct et_ddec *x)
{
    et_dstate_reset(&x->st);
    x->valid = true;
}

void et_ddec_invalidate(struct et_ddec *x)
{
    x->valid = false;
    memset(x->lrid_size, 0xff, sizeof x->lrid_size);
}

/* Reconstruct data from a field and its code (0 full, 1 XOR, 3 diff). */
static int undata(struct et_ddec *x, unsigned sz, uint64_t field, unsigned kind, bool update, uint64_t *out,
                  struct rvt_diag *diag)
{
    unsigned w = 8u << sz;
    uint64_t v;
    if (kind == 0) {
        v = field;
    } else {
        if (!((x->st.have_data >> sz) & 1))
            return rvt_fail(diag, RVT_ERR_MISMATCH,
                            "%s data of a %u-byte access without a full value of that size since the last "
                            "synchronisation",
                            kind == 1 ? "XOR-compressed" : "differential", 1u << sz);
        v = kind == 1 ? field ^ x->st.data[sz] : field + x->st.data[sz];
    }
    v &= mask64(w);
    if (update) {
        x->st.data[sz] = v;
        x->st.have_data |= (uint8_t)(1u << sz);
    }
    *out = v;
    return 0;
}

static int unaddress(struct et_ddec *x, unsigned sz, uint64_t field, bool full, bool aligned, uint64_t *out,
                     struct rvt_diag *diag)
{
    const struct et_dparams *d = x->d;
    unsigned aw = d->daddress_width_p;
    uint64_t m = mask64(aw);
    if (d->model_compat) {
        uint64_t f = field & m;
        if (!full) {
            if (!((x->st.have_addr >> sz) & 1))
                return rvt_fail(diag, RVT_ERR_MISMATCH, "differential address without a base");
            f = (f + x->st.addr[sz]) & m;
        }
        x->st.addr[sz] = f;
        x->st.have_addr |= (uint8_t)(1u << sz);
        *out = aligned ? (f << sz) & m : f;
        return 0;
    }
    uint64_t a;
    if (full) {
        a = aligned ? (field << sz) & m : field & m;
    } else {
        if (!((x->st.have_addr >> sz) & 1))
            return rvt_fail(diag, RVT_ERR_MISMATCH,
                            "differential address of a %u-byte access without a full address of that size since "
                            "the last synchronisation",
                            1u << sz);
        uint64_t diff = aligned ? sext(field, aw) << sz : field;
        a = (x->st.addr[sz] + diff) & m;
    }
    x->st.addr[sz] = a;
    x->st.have_addr |= (uint8_t)(1u << sz);
    *out = a;
    return 0;
}

/* The model's handler: first value of a size as is, then added (masked to
 * the size, or to data_width_p for the data-only field). */
static uint64_t model_unvalue(struct et_ddec *x, unsigned sz, uint64_t f, unsigned w)
{
    if (!((x->st.have_data >> sz) & 1)) {
        x->st.have_data |= (uint8_t)(1u << sz);
        x->st.data[sz] = f;
        return f;
    }
    uint64_t r = (f + x->st.data[sz]) & mask64(w);
    x->st.data[sz] = r;
    return r;
}

static int decode_compat(struct et_ddec *x, const struct et_dpkt *k, struct et_access *a, struct rvt_diag *diag)
{
    const struct et_dparams *d = x->d;
    bool full_lbl = d->full_data; /* the model compresses unless full-data */
    if (k->layout == ET_DL_CSR_FULL || k->layout == ET_DL_CSR_ADDR) {
        unsigned sz = d->data_width_p == 64 ? 3 : 2;
        a->dtype = (uint8_t)(RVT_DTYPE_CSR_RW + k->subtype);
        a->size = (uint8_t)sz;
        a->addr = k->csr;
        a->has_addr = true;
        if (k->layout == ET_DL_CSR_FULL) {
            a->data = full_lbl ? k->data : model_unvalue(x, sz, k->data, 8u << sz);
            a->has_data = true;
            if (k->has_operand) {
                a->operand = full_lbl ? k->operand : model_unvalue(x, sz, k->operand, 8u << sz);
                a->has_operand = true;
            }
        }
        return ET_DR_ACCESS;
    }
    unsigned sz = k->size;
    bool atomic = k->layout == ET_DL_AT_FULL || k->layout == ET_DL_AT_ADDR || k->layout == ET_DL_AT_DATA;
    if (atomic) {
        int t = dtype_of_subtype(d, k->subtype);
        if (t < 0)
            return rvt_fail(diag, RVT_ERR_FORMAT, "atomic subtype %u has no meaning in the reference model", k->subtype);
        a->dtype = (uint8_t)t;
    } else {
        a->dtype = k->format <= ET_DF_LOAD_UNALIGNED ? RVT_DTYPE_LOAD : RVT_DTYPE_STORE;
    }
    a->size = (uint8_t)sz;
    if (k->has_address) {
        bool aligned = atomic || !(k->format & 1);
        int rc = unaddress(x, sz, k->address, d->full_address || !((x->st.have_addr >> sz) & 1), aligned, &a->addr,
                           diag);
        if (rc < 0)
            return rc;
        a->has_addr = true;
    }
    if (k->has_operand) {
        a->operand = full_lbl ? k->operand : model_unvalue(x, sz, k->operand, 8u << sz);
        a->has_operand = true;
    }
    if (k->has_data) {
        a->data = full_lbl ? k->data : model_unvalue(x, sz, k->data, 8u << sz);
        a->data &= mask64(8u << sz);
        a->has_data = true;
    }
    return ET_DR_ACCESS;
}

int et_ddec_packet(struct et_ddec *x, const struct et_dpkt *k, struct et_access *a, uint32_t *lrid,
                   struct rvt_diag *diag)
{
    const struct et_dparams *d = x->d;
    memset(a, 0, sizeof *a);
    *lrid = 0;
    if (!x->valid)
        return rvt_fail(diag, RVT_ERR_MISMATCH, "no synchronisation packet yet: the compression state is unknown");
    if (d->model_compat)
        return decode_compat(x, k, a, diag);
    int rc;
    unsigned sz = k->size;
    switch (k->layout) {
    case ET_DL_CSR_FULL:
    case ET_DL_CSR_ADDR: {
        sz = d->xlen == 64 ? 3 : 2;
        a->dtype = (uint8_t)(RVT_DTYPE_CSR_RW + k->subtype);
        a->size = (uint8_t)sz;
        a->addr = k->csr;
        a->has_addr = true;
        if (k->layout == ET_DL_CSR_ADDR) {
            if (k->diff != 0)
                return rvt_fail(diag, RVT_ERR_FORMAT, "CSR packet with a differential address (diff 1)");
            return ET_DR_ACCESS;
        }
        if ((rc = undata(x, sz, sext(k->data, 8u * (k->data_len + 1u)), k->diff, true, &a->data, diag)) < 0)
            return rc;
        a->has_data = true;
        if (k->has_operand) {
            a->operand = sext(k->operand, 8u * (k->op_len + 1u)) & mask64(8u << sz);
            a->has_operand = true;
        }
        return ET_DR_ACCESS;
    }
    case ET_DL_SPLIT_DATA:
    case ET_DL_SPLIT_AT_DATA: {
        if (k->lrid >= ET_DMAX_LRID || x->lrid_size[k->lrid] == 0xff)
            return rvt_fail(diag, RVT_ERR_MISMATCH, "split response for lrid %" PRIu32 " without a request",
                            k->lrid);
        sz = x->lrid_size[k->lrid];
        if (k->layout == ET_DL_SPLIT_DATA && k->size != sz)
            return rvt_fail(diag, RVT_ERR_MISMATCH, "split response of size %u for a request of size %u", k->size,
                            sz);
        a->dtype = x->lrid_dtype[k->lrid];
        a->size = (uint8_t)sz;
        *lrid = k->lrid;
        x->lrid_size[k->lrid] = 0xff;
        if (k->resp == 0)
            return rvt_fail(diag, RVT_ERR_MISMATCH, "split response for lrid %" PRIu32 ": the load failed (resp 00)",
                            k->lrid);
        uint64_t f = k->layout == ET_DL_SPLIT_DATA ? k->data : sext(k->data, 8u * (k->data_len + 1u));
        bool scf = a->dtype == RVT_DTYPE_SC_FAIL;
        unsigned kind = k->resp == 2 ? 0 : k->resp;
        if (scf) {
            a->data = 0;
        } else if ((rc = undata(x, sz, f, kind, true, &a->data, diag)) < 0) {
            return rc;
        }
        a->has_data = true;
        return ET_DR_RESPONSE;
    }
    default:
        break;
    }
    bool atomic = k->layout == ET_DL_AT_FULL || k->layout == ET_DL_AT_ADDR || k->layout == ET_DL_AT_DATA ||
                  k->layout == ET_DL_SPLIT_AT_OP;
    if (atomic) {
        int t = dtype_of_subtype(d, k->subtype);
        a->dtype = (uint8_t)t;
    } else {
        a->dtype = k->format <= ET_DF_LOAD_UNALIGNED ? RVT_DTYPE_LOAD : RVT_DTYPE_STORE;
    }
    a->size = (uint8_t)sz;
    bool sc_fail = a->dtype == RVT_DTYPE_SC_FAIL;
    bool full_a = false;
    if (k->has_address) {
        /* address-only and split request: 1-bit diff; with data: 00 full */
        /* 1-bit diff (address only, split requests): 0 full; 2-bit: 00 full address and data */
        full_a = k->diff == 0;
        bool aligned = atomic || !(k->format & 1);
        if ((rc = unaddress(x, sz, k->address, full_a, aligned, &a->addr, diag)) < 0)
            return rc;
        a->has_addr = true;
    }
    if (k->has_operand && !d->no_data) { /* (a split request carries one also without values: 0) */
        a->operand = sext(k->operand, 8u * (k->op_len + 1u)) & mask64(8u << sz);
        a->has_operand = true;
    }
    if (k->layout == ET_DL_SPLIT_REQ || k->layout == ET_DL_SPLIT_AT_OP) {
        if (k->lrid >= ET_DMAX_LRID)
            return rvt_fail(diag, RVT_ERR_FORMAT, "lrid %" PRIu32 " out of range", k->lrid);
        if (!d->no_data) {
            if (x->lrid_size[k->lrid] != 0xff)
                return rvt_fail(diag, RVT_ERR_MISMATCH, "split request reuses lrid %" PRIu32 " still outstanding",
                                k->lrid);
            x->lrid_size[k->lrid] = (uint8_t)sz;
            x->lrid_dtype[k->lrid] = a->dtype;
            *lrid = k->lrid;
            return ET_DR_REQUEST;
        }
        return ET_DR_ACCESS;
    }
    if (k->has_data) {
        unsigned kind;
        if (k->layout == ET_DL_LS_DATA || k->layout == ET_DL_AT_DATA)
            kind = k->diff; /* 00 full, 01 XOR, 11 differential */
        else
            kind = k->diff == 2 ? 0 : k->diff; /* 00/10 full data */
        uint64_t f = (k->layout == ET_DL_LS_DATA || k->layout == ET_DL_AT_DATA) ? k->data
                                                                                 : sext(k->data, 8u * (k->data_len + 1u));
        if (sc_fail) {
            if (kind != 0 || (f & mask64(8u << sz)) != 0)
                return rvt_fail(diag, RVT_ERR_FORMAT, "failed store-conditional with data 0x%" PRIx64, k->data);
            a->data = 0;
        } else if ((rc = undata(x, sz, f, kind, true, &a->data, diag)) < 0) {
            return rc;
        }
        a->has_data = true;
    }
    return ET_DR_ACCESS;
}

int et_access_format(const struct et_access *a, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s %u", rvt_dtype_name(a->dtype), 1u << a->size);
    if (a->has_addr && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, rvt_dtype_is_csr(a->dtype) ? " [csr 0x%03" PRIx64 "]" : " [0x%" PRIx64 "]",
                      a->addr);
    if (a->has_data && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " = 0x%" PRIx64, a->data);
    if (a->has_operand && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " operand 0x%" PRIx64, a->operand);
    return n;
}

/* ---- from ingress records ------------------------------------------------------ */

int et_access_from_rec(const struct et_dparams *d, const struct rvt_ing_rec *r, struct et_access *a, bool *has,
                       struct rvt_diag *diag)
{
    memset(a, 0, sizeof *a);
    *has = false;
    int t = rvt_ing_dtype(r);
    if (t < 0)
        return 0;
    if (t == 2 || t == 3 || t == 7 || t > 15)
        return rvt_fail(diag, RVT_ERR_INVAL, "reserved data access type %d", t);
    unsigned bytes = r->mem_size, sz = 0;
    if (rvt_dtype_is_csr((unsigned)t) && !bytes)
        bytes = d->xlen / 8;
    while (sz < 7 && (1u << sz) < bytes)
        sz++;
    if (!bytes || (1u << sz) != bytes)
        return rvt_fail(diag, RVT_ERR_INVAL, "%s at 0x%" PRIx64 " of %u bytes (not a power of two)",
                        rvt_dtype_name((unsigned)t), r->mem_addr, bytes);
    a->dtype = (uint8_t)t;
    a->size = (uint8_t)sz;
    a->addr = r->mem_addr;
    a->has_addr = true;
    if (r->flags & RVT_ING_HAS_MEMVAL) {
        a->data = r->mem_value & mask64(8 * bytes);
        a->has_data = true;
        if (rvt_dtype_is_amo((unsigned)t) || rvt_dtype_is_csr((unsigned)t) || t == RVT_DTYPE_SC_FAIL) {
            a->operand = r->mem_operand & mask64(8 * bytes);
            a->has_operand = true;
        }
    }
    *has = true;
    return 0;
}

/* `verify` for the E-Trace data trace: the comparison (rvt_seqcmp) with
 * what the codec says it traces checks every access — a record changed in
 * any one field the trace carries (a load's value, a store's address, a
 * CSR's value or number, an atomic's operand) is found and named, and an
 * option that leaves a field out leaves it out of the comparison.  The
 * data trace alone (no instructions) is compared access for access in
 * order: a changed instruction address is not a difference there, a
 * missing access is. */
#include "rt.h"
#include "rvtrace/gen.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_etrace;

struct recs {
    struct rvt_ing_rec *r;
    size_t n, cap, pos;
};

static int put_rec(void *ctx, const struct rvt_ing_rec *r)
{
    struct recs *v = ctx;
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 8192;
        v->r = realloc(v->r, v->cap * sizeof *v->r);
        if (!v->r)
            abort();
    }
    v->r[v->n++] = *r;
    return 0;
}

static int pull(void *ctx, struct rvt_ing_rec *r)
{
    struct recs *v = ctx;
    if (v->pos >= v->n)
        return 0;
    *r = v->r[v->pos++];
    return 1;
}

/* Decode bytes against recs: SAME, else the kind of the first difference
 * (RVT_CMP_INSN is 0). */
enum { SAME = RVT_CMP__COUNT };
static unsigned compare(void *cfg, const struct rvt_image *img, const struct rt_result *enc, struct recs *recs,
                        char *why, size_t whylen)
{
    recs->pos = 0;
    struct rvt_seqcmp_config sc = {.size = sizeof sc, .xlen = rvt_img_xlen(img),
                                   .traced = rvt_codec_etrace.traced(cfg), .image = img};
    struct rvt_seqcmp *c = rvt_seqcmp_new_ex(pull, recs, &sc);
    struct rvt_flow_sink sink = rvt_seqcmp_sink(c);
    struct rvt_diag d = {0};
    int rc = rvt_decode_buffer(&rvt_codec_etrace, cfg, img, RVT_FLOW_ECALL_TRAP, enc->bytes, enc->nbytes, &sink, &d);
    int crc = rvt_seqcmp_finish(c);
    unsigned k = crc < 0 || rc < 0 ? rvt_seqcmp_failed_kind(c) : SAME;
    snprintf(why, whylen, "%s", rvt_seqcmp_error(c));
    rvt_seqcmp_free(c);
    return k;
}

static size_t find(const struct recs *v, int dtype, bool csr_writable)
{
    for (size_t i = v->n / 3; i < v->n; i++) {
        const struct rvt_ing_rec *r = &v->r[i];
        if (rvt_ing_dtype(r) != dtype || !(r->flags & RVT_ING_HAS_MEMVAL))
            continue;
        if (csr_writable && ((r->mem_addr >> 10) & 3) == 3)
            continue;
        return i;
    }
    return (size_t)-1;
}

static void run(unsigned xlen, const char *const *opts, bool values, bool addresses)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = 21 + xlen;
    gc.xlen = xlen;
    gc.insns = 30000;
    gc.features = RVT_GEN_ALL_FEATURES;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_gen_program_new(&prog, &gc, &d) == 0);
    struct recs v = {0};
    REQUIRE(rvt_gen_run_ex(prog, &gc, false, put_rec, &v, &d) == 0);
    struct rvt_image *img = rvt_gen_image(prog);
    char err[700], why[700];
    void *cfg = rt_config(opts, xlen, img, err, sizeof err);
    REQUIRE(cfg);
    struct rt_result enc = {0};
    REQUIRE(rt_encode(cfg, v.r, v.n, &enc, err, sizeof err) == 0);
    unsigned k = compare(cfg, img, &enc, &v, why, sizeof why);
    CHECK_MSG(k == SAME, "rv%u: the unchanged records differ: %s", xlen, why);

    /* one field changed at a time */
    struct {
        int dtype;
        bool writable;
        int field; /* 0 value, 1 address, 2 operand */
        unsigned kind;
        bool traced;
    } cases[] = {
        {RVT_DTYPE_LOAD, false, 0, RVT_DATA_LOAD_VALUE, values},
        {RVT_DTYPE_STORE, false, 1, RVT_DATA_STORE_ADDR, addresses},
        {RVT_DTYPE_CSR_RS, false, 0, RVT_DATA_CSR_VALUE, values},
        {RVT_DTYPE_CSR_RW, false, 1, RVT_DATA_CSR_ADDR, true},
        {RVT_DTYPE_CSR_RW, true, 2, RVT_DATA_OPERAND, values},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t j = find(&v, cases[i].dtype, cases[i].writable);
        CHECK_MSG(j != (size_t)-1, "rv%u: no %s record", xlen, rvt_dtype_name((unsigned)cases[i].dtype));
        if (j == (size_t)-1)
            continue;
        struct rvt_ing_rec keep = v.r[j];
        if (cases[i].field == 0)
            v.r[j].mem_value ^= 1;
        else if (cases[i].field == 1)
            v.r[j].mem_addr ^= 8;
        else
            v.r[j].mem_operand ^= 1;
        k = compare(cfg, img, &enc, &v, why, sizeof why);
        if (cases[i].traced)
            CHECK_MSG(k == cases[i].kind, "rv%u: %s changed: difference kind %u (%s), expected %u", xlen,
                      rvt_dtype_name((unsigned)cases[i].dtype), k, why, cases[i].kind);
        else
            CHECK_MSG(k == SAME, "rv%u: %s changed in a field not traced: %s", xlen,
                      rvt_dtype_name((unsigned)cases[i].dtype), why);
        v.r[j] = keep;
    }
    /* An instruction address is compared only where instructions are traced. */
    const bool no_insns = (rvt_codec_etrace.traced(cfg) & RVT_TRACED_NO_INSNS) != 0;
    size_t j = find(&v, RVT_DTYPE_LOAD, false);
    REQUIRE(j != (size_t)-1);
    struct rvt_ing_rec keep = v.r[j];
    v.r[j].iaddr += 0x100;
    k = compare(cfg, img, &enc, &v, why, sizeof why);
    CHECK_MSG(no_insns ? k == SAME : k == RVT_CMP_INSN, "rv%u: a load's instruction moved: kind %u (%s)", xlen, k, why);
    v.r[j] = keep;
    /* An access the input has and the trace does not: the input with one
     * more load (a copy of one) after the last record. */
    put_rec(&v, &v.r[j]);
    {
        k = compare(cfg, img, &enc, &v, why, sizeof why);
        CHECK_MSG(k != SAME, "rv%u %s %s: an access more in the input is not found", xlen, opts[1], opts[2] ? opts[2] : "");
        CHECK_MSG(!no_insns || k == (addresses ? RVT_DATA_LOAD_ADDR : RVT_DATA_LOAD_VALUE),
                  "rv%u: an access more in the input: kind %u (%s)", xlen, k, why);
        v.n--;
    }
    rt_free(&enc);
    rvt_codec_cfg_free(cfg);
    free(v.r);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

int main(void)
{
    static const char *const all[] = {"data-trace", "on", NULL};
    static const char *const noval[] = {"data-trace", "on", "data-no-value", "1", NULL};
    static const char *const noaddr[] = {"data-trace", "on", "data-no-address", "1", "framing", "refraw", NULL};
    static const char *const only[] = {"data-trace", "only", NULL};
    static const char *const only_noval[] = {"data-trace", "only", "data-no-value", "1", NULL};
    static const char *const only_noaddr[] = {"data-trace", "only", "data-no-address", "1", NULL};
    for (unsigned x = 32; x <= 64; x += 32) {
        run(x, all, true, true);
        run(x, noval, false, true);
        run(x, noaddr, true, false);
        run(x, only, true, true);
        run(x, only_noval, false, true);
        run(x, only_noaddr, true, false);
    }
    return rvt_test_summary("test_et_data_verify");
}

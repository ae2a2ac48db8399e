/* E-Trace data trace round trips on generated programs (rvt_gen with data
 * values, atomics, FP, CSRs, traps, interrupts, privilege changes): every
 * option set of the data trace, RV32 and RV64; the decoded instructions
 * must equal the execution and the decoded accesses (each tied to its
 * instruction) must equal the records' accesses, in order, value for value.
 * Arguments: seeds [instructions [option-set]]. */
#include "drt.h"
#include "rt.h"
#include "rvtrace/gen.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct recs {
    struct rvt_ing_rec *r;
    size_t n, cap;
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

struct pcs {
    uint64_t *pc;
    size_t n, cap;
};

static int put_step(void *ctx, const struct rvt_gen_step *s)
{
    struct pcs *v = ctx;
    if (s->kind != RVT_GEN_STEP_INSN)
        return 0;
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 8192;
        v->pc = realloc(v->pc, v->cap * sizeof *v->pc);
        if (!v->pc)
            abort();
    }
    v->pc[v->n++] = s->pc;
    return 0;
}

struct optset {
    const char *name;
    const char *opts[40];
    bool merge;
    unsigned xlen; /* 0: both */
};

#define DATA "data-trace", "on"
static const struct optset sets[] = {
    {"default", {DATA, NULL}, false, 0},
    {"refraw", {DATA, "framing", "refraw", NULL}, true, 0},
    {"no-value", {DATA, "data-no-value", "1", NULL}, false, 0},
    {"no-address", {DATA, "data-no-address", "1", NULL}, true, 0},
    {"full", {DATA, "data-full-address", "1", "data-full-value", "1", NULL}, false, 0},
    {"full-value", {DATA, "data-full-value", "1", NULL}, false, 0},
    {"xor-trim", {DATA, "data-compress", "xor", "data-trim", "1", NULL}, false, 0},
    {"best-trim", {DATA, "data-compress", "best", "data-trim", "1", "framing", "refraw", NULL}, true, 0},
    {"best-no-address", {DATA, "data-compress", "best", "data-no-address", "1", NULL}, false, 0},
    {"loads-stores", {DATA, "data-types", "load,store", NULL}, false, 0},
    {"atomics-csrs", {DATA, "data-types", "atomic,csr", "data-trim", "1", NULL}, false, 0},
    {"split", {DATA, "data_split_p", "1", "lrid_width_p", "2", "data-split-lag", "2", NULL}, false, 0},
    {"split-lag0", {DATA, "data_split_p", "1", "lrid_width_p", "1", "data-compress", "best", NULL}, true, 0},
    {"split-no-value", {DATA, "data_split_p", "1", "lrid_width_p", "3", "data-no-value", "1", NULL}, false, 0},
    {"narrow", {DATA, "daddress_width_p", "32", "data_width_p", "32", "dtype_width_p", "1", "data-trim", "1", NULL},
     false, 32},
    {"with-ir-bp",
     {DATA, "implicit-return", "fixed", "return_stack_size_p", "2", "branch-prediction", "1", "jump-target-cache",
      "1", "sijump", "1", "resync-max", "0", NULL},
     true, 0},
    {"daddr-filter", {DATA, "data-filter-address", "@", NULL}, false, 0}, /* @: the stack's page */
    {"inst-filter", {DATA, "filter-priv", "u,s", "data-types", "load,store,atomic", NULL}, false, 0},
    {"with-context", {DATA, "nocontext_p", "0", "context_width_p", "16", "notime_p", "0", "time_width_p", "48",
                      "encap-type-bits", "2", NULL},
     false, 0},
};

static void one(const struct optset *os, unsigned xlen, unsigned seed, uint64_t insns, uint32_t features)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = seed;
    gc.xlen = xlen;
    gc.insns = insns;
    gc.features = features;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    if (rvt_gen_program_new(&prog, &gc, &d) < 0) {
        CHECK_MSG(0, "gen seed %u: %s", seed, d.msg);
        return;
    }
    struct recs rc = {0};
    struct pcs want = {0};
    int r1 = rvt_gen_run_ex(prog, &gc, os->merge, put_rec, &rc, &d);
    CHECK_MSG(r1 == 0, "gen run: %s", d.msg);
    int r2 = rvt_gen_run_pcs(prog, &gc, put_step, &want, &d);
    CHECK_MSG(r2 == 0, "gen run pcs: %s", d.msg);
    struct rvt_image *img = rvt_gen_image(prog);
    char err[700];
    /* "@": a range around the first store (the stack), known only now */
    const char *opts[40];
    char range[64] = "";
    for (size_t k = 0; k < rc.n && !range[0]; k++)
        if (rc.r[k].flags & RVT_ING_MEM_STORE)
            snprintf(range, sizeof range, "0x%llx..0x%llx", (unsigned long long)(rc.r[k].mem_addr & ~0xfffull),
                     (unsigned long long)((rc.r[k].mem_addr & ~0xfffull) + 0x1000));
    for (size_t k = 0; k < 40; k++) {
        opts[k] = os->opts[k] && !strcmp(os->opts[k], "@") ? range : os->opts[k];
        if (!os->opts[k])
            break;
    }
    void *cfg = r1 == 0 && r2 == 0 ? rt_config(opts, xlen, img, err, sizeof err) : NULL;
    CHECK_MSG(cfg || r1 || r2, "%s: %s", os->name, err);
    if (cfg) {
        struct rt_result enc = {0};
        struct drt_notes got = {0}, exp = {0};
        if (rt_encode(cfg, rc.r, rc.n, &enc, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s rv%u seed %u: encode: %s", os->name, xlen, seed, err);
        } else if (drt_decode(cfg, img, RVT_FLOW_ECALL_TRAP, enc.bytes, enc.nbytes, &got, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s rv%u seed %u: %s", os->name, xlen, seed, err);
        } else {
            size_t at = rt_first_diff(got.pcs, got.npcs, want.pc, want.n);
            if (!strcmp(os->name, "inst-filter")) /* (the filter's own tests check the instructions) */
                at = want.n, got.npcs = want.n, got.gaps = 0;
            CHECK_MSG(at == want.n && got.npcs == want.n && !got.errors && !got.gaps,
                      "%s rv%u seed %u: %zu of %zu instructions, first difference at #%zu%s%s", os->name, xlen, seed,
                      got.npcs, want.n, at, got.errors ? ": " : "", got.first_error);
            CHECK_MSG(!got.lost, "%s rv%u seed %u: %u accesses lost, the first %s", os->name, xlen, seed, got.lost,
                      got.first_lost);
            char why[400] = "";
            CHECK(drt_expect(cfg, rc.r, rc.n, img, &exp) == 0);
            size_t k = drt_compare(&got, &exp, why, sizeof why);
            CHECK_MSG(k == exp.n && got.n == exp.n, "%s rv%u seed %u (%zu bytes): data: %s", os->name, xlen, seed,
                      enc.nbytes, why);
            CHECK_MSG(exp.n > 0 || !strcmp(os->name, "atomics-csrs") || !strcmp(os->name, "inst-filter"),
                      "%s: no data accesses at all", os->name);
            if (getenv("ET_VERBOSE"))
                printf("%-16s rv%u seed %-3u %7zu instructions %6zu data notes %8zu bytes\n", os->name, xlen, seed,
                       want.n, exp.n, enc.nbytes);
        }
        drt_free(&got);
        drt_free(&exp);
        rt_free(&enc);
        rvt_codec_cfg_free(cfg);
    }
    free(rc.r);
    free(want.pc);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

int main(int argc, char **argv)
{
    unsigned seeds = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    uint64_t insns = argc > 2 ? (uint64_t)atoll(argv[2]) : 20000;
    const char *only = argc > 3 ? argv[3] : NULL;
    unsigned first = getenv("ET_SEED") ? (unsigned)atoi(getenv("ET_SEED")) : 1;
    const uint32_t feature_sets[] = {
        RVT_GEN_ALL_FEATURES,
        RVT_GEN_DEFAULT_FEATURES | RVT_GEN_DATA | RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS | RVT_GEN_NESTED,
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        if (only && strcmp(only, sets[i].name))
            continue;
        for (unsigned seed = first; seed < first + seeds; seed++)
            for (size_t f = 0; f < sizeof feature_sets / sizeof feature_sets[0]; f++) {
                unsigned xlen = sets[i].xlen ? sets[i].xlen : (seed + (unsigned)f) % 2 ? 32 : 64;
                uint32_t feat = feature_sets[f];
                if (!strcmp(sets[i].name, "narrow")) /* 8-byte FP accesses do not fit a 32-bit data bus; a */
                    feat &= ~(uint32_t)(RVT_GEN_FP | RVT_GEN_ATOMICS); /* hart with dtype_width_p 1 has no dtype 15 */
                one(&sets[i], xlen, seed * 5 + (unsigned)f, insns, feat);
            }
    }
    return rvt_test_summary("test_et_data");
}

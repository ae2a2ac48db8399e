/* E-Trace round trips on the shared generator's programs (rvt_gen): real
 * bare-metal code run on its instruction-set simulator — M/S/U privilege,
 * traps of every kind, nested interrupts, scheduler context switches,
 * setjmp/longjmp, co-routines, millicode x5 links, jump tables, recursion,
 * far code — encoded with every option set, decoded, compared instruction
 * by instruction.  Arguments: seeds [instructions [option-set]]. */
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
    const char *opts[32];
    bool merge;
};

static const struct optset sets[] = {
    {"default", {NULL}, false},
    {"refraw-full", {"framing", "refraw", "full-address", "1", NULL}, false},
    {"resync0", {"resync-max", "0", NULL}, true},
    {"ir-2.0", {"implicit-return", "2.0", "return_stack_size_p", "2", NULL}, false},
    {"ir-fixed", {"implicit-return", "fixed", "return_stack_size_p", "3", NULL}, true},
    {"ir-counter", {"implicit-return", "fixed", "call_counter_size_p", "3", NULL}, false},
    {"bpred", {"branch-prediction", "1", "bpred_size_p", "8", NULL}, false},
    {"jtc", {"jump-target-cache", "1", "cache_size_p", "5", NULL}, true},
    {"sijump", {"sijump", "1", NULL}, false},
    {"context-time", {"nocontext_p", "0", "context_width_p", "16", "notime_p", "0", "time_width_p", "48", NULL},
     false},
    {"all-fixed",
     {"implicit-return", "fixed", "return_stack_size_p", "2", "branch-prediction", "1", "jump-target-cache", "1",
      "sijump", "1", "resync-max", "1", "nocontext_p", "0", NULL},
     true},
    {"all-2.0",
     {"implicit-return", "2.0", "return_stack_size_p", "3", "branch-prediction", "1", "jump-target-cache", "1",
      "sijump", "1", "resync-max", "2", NULL},
     false},
    {"0.026", {"etrace-version", "0.026", NULL}, false},
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
    void *cfg = r1 == 0 && r2 == 0 ? rt_config(os->opts, xlen, img, err, sizeof err) : NULL;
    if (cfg) {
        struct rt_result enc = {0}, dec = {0};
        if (rt_encode(cfg, rc.r, rc.n, &enc, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s rv%u seed %u: encode: %s", os->name, xlen, seed, err);
        } else if (rt_decode(cfg, img, RVT_FLOW_ECALL_TRAP, enc.bytes, enc.nbytes, &dec, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s rv%u seed %u: %s", os->name, xlen, seed, err);
        } else {
            size_t at = rt_first_diff(dec.pcs, dec.npcs, want.pc, want.n);
            bool ok = at == want.n && dec.npcs == want.n && dec.errors == 0;
            CHECK_MSG(ok, "%s rv%u seed %u features 0x%x: %zu of %zu instructions, first difference at #%zu "
                          "(got 0x%llx, expected 0x%llx)%s%s",
                      os->name, xlen, seed, features, dec.npcs, want.n, at,
                      at < dec.npcs ? (unsigned long long)dec.pcs[at] : 0ull,
                      at < want.n ? (unsigned long long)want.pc[at] : 0ull, dec.errors ? ": " : "",
                      dec.first_error);
            if (!ok && getenv("ET_FAIL_DIR")) {
                char path[600];
                snprintf(path, sizeof path, "%s/gen-%s-rv%u-%u.elf", getenv("ET_FAIL_DIR"), os->name, xlen, seed);
                rvt_gen_write_elf(prog, path, &d);
                snprintf(path, sizeof path, "%s/gen-%s-rv%u-%u.bin", getenv("ET_FAIL_DIR"), os->name, xlen, seed);
                FILE *f = fopen(path, "wb");
                if (f) {
                    fwrite(enc.bytes, 1, enc.nbytes, f);
                    fclose(f);
                }
                snprintf(path, sizeof path, "%s/gen-%s-rv%u-%u.pcs", getenv("ET_FAIL_DIR"), os->name, xlen, seed);
                if ((f = fopen(path, "w"))) {
                    for (size_t k = 0; k < want.n; k++)
                        fprintf(f, "0x%0*llX\n", xlen / 4, (unsigned long long)want.pc[k]);
                    fclose(f);
                }
            }
        }
        rt_free(&enc);
        rt_free(&dec);
        rvt_codec_cfg_free(cfg);
    } else if (r1 == 0 && r2 == 0) {
        CHECK_MSG(0, "%s: %s", os->name, err);
    }
    free(rc.r);
    free(want.pc);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

int main(int argc, char **argv)
{
    unsigned seeds = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    uint64_t insns = argc > 2 ? (uint64_t)atoll(argv[2]) : 30000;
    const char *only = argc > 3 ? argv[3] : NULL;
    unsigned first = getenv("ET_SEED") ? (unsigned)atoi(getenv("ET_SEED")) : 1;
    const uint32_t feature_sets[] = {
        RVT_GEN_ALL_FEATURES,
        RVT_GEN_DEFAULT_FEATURES,
        RVT_GEN_DEFAULT_FEATURES | RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS | RVT_GEN_NESTED,
        RVT_GEN_DEFAULT_FEATURES | RVT_GEN_PRIV | RVT_GEN_CONTEXT,
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        if (only && strcmp(only, sets[i].name))
            continue;
        for (unsigned seed = first; seed < first + seeds; seed++)
            for (size_t f = 0; f < sizeof feature_sets / sizeof feature_sets[0]; f++) {
                uint32_t feat = feature_sets[f];
                if (!strcmp(sets[i].name, "0.026"))
                    feat &= ~(uint32_t)RVT_GEN_LOOPS; /* the draft cannot count loops without decisions */
                one(&sets[i], (seed + (unsigned)f) % 2 ? 32 : 64, seed * 7 + (unsigned)f, insns, feat);
            }
    }
    return rvt_test_summary("test_et_gen");
}

/* Every analysis view computed from a decoded trace equals the same view
 * computed from the ingress it was encoded from (the ground truth), for
 * every family and several option sets, on real captures (bzip2; the
 * two-hart system capture with traps and interrupts, per hart and through a
 * funnel; the bare-metal analysis program with DWARF lines, longjmp and
 * traps) and on generated programs with every control-flow feature.
 *
 * Compared: call tree, flat profile (functions, lines, addresses, call
 * graph), coverage, folded stacks, callgrind, Chrome JSON, lcov, the HTML
 * report and the summary counters.  Only what a family does not carry is
 * removed on both sides (trap causes for N-Trace, CDL and dbg; record and
 * byte offsets), plus the end-of-trace message N-Trace adds. */
#include "testlib.h"
#include "views.h"

#include <stdlib.h>
#include <string.h>

struct family {
    const char *label;
    const char *name;
    const char *opts[12];
    bool cause; /* carries trap causes and tval */
    bool intr;  /* tells interrupts from exceptions */
};

static const struct family g_families[] = {
    {"ntrace htm", "ntrace", {NULL}, false, true},
    {"ntrace btm", "ntrace", {"ntrace-mode", "btm", NULL}, false, true},
    {"ntrace htm callstack", "ntrace", {"callstack", "8", "repeat", "2", NULL}, false, true},
    {"etrace", "etrace", {NULL}, true, true},
    {"etrace ir+bp", "etrace", {"implicit-return", "fixed", "branch-prediction", "1", NULL}, true, true},
    /* wide data fields: the generated RV64 programs run at addresses of 8
     * significant bytes, more than a seed-000 data field holds */
    {"cdl", "cdl", {"cdl-data", "wide", NULL}, false, false},
    {"dbg", "dbg", {NULL}, false, true},
};
#define NFAM (sizeof g_families / sizeof g_families[0])

static bool has_opt(const char *family, const char *name)
{
    const struct rvt_codec *c = rvt_codec_find(family);
    for (const struct rvt_codec_opt *o = c ? c->options : NULL; o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return true;
    return false;
}

/* The family's options, plus --ecall trap for a system-mode stream. */
static void opts_for(const struct family *fm, enum rvt_flow_ecall ecall, const char **out)
{
    size_t k = 0;
    for (size_t i = 0; fm->opts[i]; i++)
        out[k++] = fm->opts[i];
    if (ecall == RVT_FLOW_ECALL_TRAP && has_opt(fm->name, "ecall")) {
        out[k++] = "ecall";
        out[k++] = "trap";
    }
    out[k] = NULL;
}

static unsigned harts_of(const struct rvt_recs *recs, unsigned *list)
{
    bool seen[RVT_AN_MAX_HARTS] = {0};
    for (size_t i = 0; i < recs->n; i++)
        if (recs->r[i].hart < RVT_AN_MAX_HARTS)
            seen[recs->r[i].hart] = true;
    unsigned n = 0;
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++)
        if (seen[h])
            list[n++] = h;
    return n;
}

/* ---- records as an ingress reader (for the funnel encoder) ------------------------- */

struct recs_src {
    const struct rvt_recs *recs;
    size_t i;
    unsigned xlen;
};

static int src_next(void *self, struct rvt_ing_rec *r)
{
    struct recs_src *s = self;
    if (s->i == s->recs->n)
        return 0;
    *r = s->recs->r[s->i++];
    return 1;
}

static const char *src_error(const void *self)
{
    (void)self;
    return "";
}

static void src_close(void *self)
{
    (void)self;
}

static unsigned src_xlen(const void *self)
{
    return ((const struct recs_src *)self)->xlen;
}

struct funnel_ctx {
    const struct rvt_codec *c;
    const char *const *opts;
    const struct rvt_image *img;
};

static void *make_cfg(void *ctx, unsigned hart, struct rvt_diag *d)
{
    struct funnel_ctx *f = ctx;
    char v[16], msg[300];
    snprintf(v, sizeof v, "%u", hart);
    void *cfg = family_cfg(f->c, f->opts, "src-id", v, f->img, msg, sizeof msg);
    if (!cfg)
        rvt_fail(d, RVT_ERR_INVAL, "%s", msg);
    return cfg;
}

/* All harts through one funnel (src-bits 1), then each source id decoded. */
static void funnel_case(const char *what, const struct views *want, const struct rvt_image *img,
                        const struct rvt_srclines *lines, const struct rvt_recs *recs, const struct family *fm,
                        enum rvt_flow_ecall ecall)
{
    const char *o[16];
    opts_for(fm, ecall, o);
    size_t k = 0;
    while (o[k])
        k++;
    o[k++] = "src-bits";
    o[k++] = "1";
    o[k] = NULL;
    const struct rvt_codec *c = rvt_codec_find(fm->name);
    struct funnel_ctx fc = {c, o, img};
    struct recs_src src = {recs, 0, rvt_img_xlen(img)};
    const struct rvt_ing_source_ops ops = {src_next, src_error, src_close, src_xlen};
    struct rvt_ing_reader *in = rvt_ing_reader_wrap(&ops, &src, RVT_ING_FMT_NATIVE);
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
    struct rvt_codec_stats st;
    struct rvt_diag d = {0};
    int rc = rvt_encode_funnel(c, make_cfg, &fc, in, img, &sink, 2, &st, NULL, &d);
    rvt_ing_close(in);
    CHECK_MSG(rc == 0, "%s [%s, funnel]: encode: %s", what, fm->label, d.msg);
    struct rvt_an_config ac = {.size = sizeof ac, .image = img, .lines = lines};
    struct rvt_analysis *a = rvt_an_new(&ac);
    struct norm_opts no = {.mask_cause = !fm->cause, .mask_intr = !fm->intr, .mask_time = true};
    unsigned harts[RVT_AN_MAX_HARTS];
    unsigned nh = harts_of(recs, harts);
    for (unsigned i = 0; i < nh && rc == 0; i++) {
        char v[16], msg[512] = "";
        snprintf(v, sizeof v, "%u", harts[i]);
        void *cfg = family_cfg(c, o, "src-id", v, img, msg, sizeof msg);
        CHECK_MSG(cfg != NULL, "%s: %s", what, msg);
        if (!cfg)
            break;
        rc = decode_into(a, harts[i], c, cfg, img, mb.data, mb.len, ecall, &no, msg, sizeof msg);
        CHECK_MSG(rc == 0, "%s [%s, funnel] hart %u: %s", what, fm->label, harts[i], msg);
        rvt_codec_cfg_free(cfg);
    }
    if (rc == 0) {
        struct views got;
        views_of(a, NULL, &got);
        char label[200];
        snprintf(label, sizeof label, "%s [%s through a funnel]", what, fm->label);
        views_compare(label, want, &got);
        views_free(&got);
    }
    rvt_an_free(a);
    rvt_membuf_free(&mb);
}

/* The ground truth, then every family; per hart for multi-hart streams. */
static void run_case(const char *what, const struct rvt_image *img, const struct rvt_srclines *lines,
                     const struct rvt_recs *recs, enum rvt_flow_ecall ecall, bool funnel)
{
    unsigned harts[RVT_AN_MAX_HARTS];
    unsigned nh = harts_of(recs, harts);
    /* the ground truth without what a family cannot carry: [mask_cause + 2 * mask_intr] */
    struct views want[4] = {0};
    bool have[4] = {0};
    uint64_t insns = 0;
    for (size_t f = 0; f < NFAM; f++) {
        const struct family *fm = &g_families[f];
        const char *o[16];
        opts_for(fm, ecall, o);
        struct norm_opts no = {.mask_cause = !fm->cause, .mask_intr = !fm->intr, .mask_time = true};
        const int w = no.mask_cause + 2 * no.mask_intr;
        if (!have[w]) {
            struct rvt_analysis *t = analyse_records(img, lines, recs, ecall, &no);
            CHECK_MSG(t != NULL, "%s: the ingress does not analyse", what);
            if (!t)
                return;
            views_of(t, NULL, &want[w]);
            rvt_an_free(t);
            have[w] = true;
            if (!insns) {
                sscanf(want[w].v[8], "hart -1 insns %" SCNu64, &insns);
                CHECK_MSG(insns > 0, "%s: no instructions", what);
            }
        }
        struct rvt_an_config ac = {.size = sizeof ac, .image = img, .lines = lines};
        struct rvt_analysis *a = rvt_an_new(&ac);
        int rc = 0;
        char msg[768] = "";
        for (unsigned i = 0; i < nh && rc == 0; i++)
            rc = encode_decode_into(a, harts[i], img, recs, nh > 1 ? (int)harts[i] : -1, fm->name, o, ecall, &no, msg,
                                    sizeof msg);
        CHECK_MSG(rc == 0, "%s [%s]: %s", what, fm->label, msg);
        if (rc == 0) {
            struct views got;
            views_of(a, NULL, &got);
            char label[200];
            snprintf(label, sizeof label, "%s [%s]", what, fm->label);
            if (views_compare(label, &want[w], &got) == 0)
                printf("  %s: %s: all views equal the ingress's (%" PRIu64 " instructions, %u hart%s)\n", what,
                       fm->label, insns, nh, nh > 1 ? "s" : "");
            views_free(&got);
        }
        rvt_an_free(a);
        if (funnel && nh > 1 && has_opt(fm->name, "src-id") && fm->opts[0] == NULL)
            funnel_case(what, &want[w], img, lines, recs, fm, ecall);
    }
    for (int i = 0; i < 4; i++)
        views_free(&want[i]);
}

static struct rvt_image *load_elf(const char *path)
{
    struct rvt_image *img = rvt_img_new();
    CHECK_MSG(img && rvt_img_load_elf(img, path) == 0, "%s: %s", path, img ? rvt_img_error(img) : "no memory");
    return img;
}

static void real_case(const char *what, const char *elf_xz, const char *ing_xz, enum rvt_flow_ecall ecall,
                      bool with_lines, bool funnel)
{
    char *elf = unxz(elf_xz), *ing = unxz(ing_xz);
    struct rvt_image *img = load_elf(elf);
    struct rvt_recs recs = {0};
    struct rvt_diag d = {0};
    CHECK_MSG(rvt_recs_load(&recs, ing, img, &d) == 0, "%s: %s", ing, d.msg);
    struct rvt_srclines *lines = NULL;
    if (with_lines) {
        int rc = rvt_srclines_load(&lines, elf, &d);
        if (rvt_srclines_supported())
            CHECK_MSG(rc == 0, "%s: %s", elf, d.msg);
    }
    run_case(what, img, lines, &recs, ecall, funnel);
    rvt_srclines_free(lines);
    rvt_recs_free(&recs);
    rvt_img_free(img);
    free(elf);
    free(ing);
}

static void gen_case(uint64_t seed, unsigned xlen, uint32_t features)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = seed;
    gc.xlen = xlen;
    gc.insns = 60000;
    gc.features = features;
    gc.p_longjmp = 50;
    struct rvt_gen_program *p = NULL;
    struct rvt_diag d = {0};
    CHECK_MSG(rvt_gen_program_new(&p, &gc, &d) == 0, "gen seed %" PRIu64 ": %s", seed, d.msg);
    if (!p)
        return;
    struct rvt_image *img = rvt_gen_image(p);
    struct rvt_recs recs = {0};
    CHECK_MSG(rvt_recs_gen(&recs, p, &gc, true, &d) == 0, "gen run: %s", d.msg);
    bool traps = (rvt_gen_features(p) & (RVT_GEN_TRAPS | RVT_GEN_PRIV | RVT_GEN_CONTEXT | RVT_GEN_INTERRUPTS)) != 0;
    char what[96];
    snprintf(what, sizeof what, "generated RV%u seed %" PRIu64, xlen, seed);
    run_case(what, img, NULL, &recs, traps ? RVT_FLOW_ECALL_TRAP : RVT_FLOW_ECALL_SEQUENTIAL, false);
    rvt_recs_free(&recs);
    rvt_img_free(img);
    rvt_gen_program_free(p);
}

int main(void)
{
    real_case("bzip2", "real/bzip2.xz", "real/bzip2-9.ing.xz", RVT_FLOW_ECALL_SEQUENTIAL, false, false);
    real_case("sysmode smp64 2 harts", "sysmode/smp64.xz", "sysmode/smp64-2.ing.xz", RVT_FLOW_ECALL_TRAP, false,
              true);
    real_case("analysis prog64 (DWARF)", "analysis/prog64.xz", "analysis/prog64.ing.xz", RVT_FLOW_ECALL_TRAP, true,
              false);
    gen_case(11, 64, RVT_GEN_DEFAULT_FEATURES);
    gen_case(12, 64, RVT_GEN_ALL_FEATURES & ~(RVT_GEN_TIME | RVT_GEN_DATA));
    gen_case(13, 32, RVT_GEN_ALL_FEATURES & ~(RVT_GEN_TIME | RVT_GEN_DATA));
    return rvt_test_summary("test_an_views");
}

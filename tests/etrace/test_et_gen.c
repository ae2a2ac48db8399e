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

/* The encoder's quiet paths against its general path (every record
 * through the spec's pipeline): the same bytes and packets.  On the
 * option set's records (blocks or one instruction each), a record at a
 * time (et_enc_put's quiet record); and on records of one instruction
 * each, by batches of runs (enc_put_plain, as text input takes it), and
 * the same in short (enc_put_short, as text read on threads gives it). */
static bool same_encoding(const struct rt_result *a, const struct rt_result *ref, size_t *at)
{
    size_t k = 0;
    while (k < a->nbytes && k < ref->nbytes && a->bytes[k] == ref->bytes[k])
        k++;
    *at = k;
    return a->nbytes == ref->nbytes && k == ref->nbytes && a->packets == ref->packets;
}

static void quiet_paths(const struct optset *os, unsigned xlen, unsigned seed, uint32_t features, void *cfg,
                        const struct rvt_gen_program *prog, const struct rvt_gen_config *gc, const struct recs *recs,
                        const struct rt_result *enc)
{
    char err[700];
    struct rt_result ref = {0};
    size_t at;
    if (rt_encode_general(cfg, recs->r, recs->n, &ref, err, sizeof err) < 0) {
        CHECK_MSG(0, "%s rv%u seed %u: the general path: %s", os->name, xlen, seed, err);
        return;
    }
    CHECK_MSG(same_encoding(enc, &ref, &at),
              "%s rv%u seed %u features 0x%x, %s records: the quiet record gives %zu bytes, %llu packets, the "
              "general path %zu bytes, %llu packets; first difference at byte %zu",
              os->name, xlen, seed, features, os->merge ? "merged" : "one-instruction", enc->nbytes,
              (unsigned long long)enc->packets, ref.nbytes, (unsigned long long)ref.packets, at);
    struct recs own = {0};
    struct rvt_diag d = {0};
    if (os->merge) { /* (runs are of one-instruction records) */
        rt_free(&ref);
        if (rvt_gen_run_ex(prog, gc, false, put_rec, &own, &d) < 0) {
            CHECK_MSG(0, "gen run: %s", d.msg);
            return;
        }
        recs = &own;
        if (rt_encode_general(cfg, recs->r, recs->n, &ref, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s rv%u seed %u: the general path: %s", os->name, xlen, seed, err);
            free(own.r);
            return;
        }
    }
    const unsigned batches[] = {3, 64, 4096};
    for (size_t b = 0; b < 2 * sizeof batches / sizeof batches[0]; b++) {
        /* (enc_put_plain, then in short: enc_put_short) */
        const bool shorts = b % 2;
        const unsigned nb = batches[b / 2] + seed % (shorts ? 7 : 5);
        struct rt_result runs = {0};
        int rc = (shorts ? rt_encode_shorts : rt_encode_runs)(cfg, recs->r, recs->n, nb, &runs, err, sizeof err);
        CHECK_MSG(rc == 0 && same_encoding(&runs, &ref, &at),
                  "%s rv%u seed %u features 0x%x, batches of up to %u: %s gives %zu bytes, %llu packets, "
                  "the general path %zu bytes, %llu packets; first difference at byte %zu%s%s",
                  os->name, xlen, seed, features, nb, shorts ? "enc_put_short" : "enc_put_plain", runs.nbytes,
                  (unsigned long long)runs.packets, ref.nbytes, (unsigned long long)ref.packets, at,
                  rc ? ": " : "", rc ? err : "");
        rt_free(&runs);
    }
    rt_free(&ref);
    free(own.r);
}

/* The spec: "the resultant packet sequence generated by the encoder must
 * be the same as if retiring one instruction at a time"
 * (exampleAlgorithm.adoc).  Records of one instruction each and records
 * merged into blocks give the same bytes, with the option set's options,
 * the spec's algorithm alone:
 * - no periodic resync: one that falls due inside a block goes out at the
 *   block's last instruction, not at the next one (when it is sent is the
 *   encoder's choice: "the exact mechanism for determining this is not
 *   specified");
 * - without --disambiguate, this project's extension, whose extra reports
 *   look at the code run since the last packet by records: with implicit
 *   return 2.0 they differ by granularity in about 1 run in 250 (4 of
 *   1,040 runs of 30,000 instructions). */
static void same_by_blocks(const struct optset *os, unsigned xlen, unsigned seed, uint32_t features,
                           const struct rvt_gen_program *prog, const struct rvt_gen_config *gc,
                           struct rvt_image *img)
{
    const char *opts[40];
    size_t k = 0;
    for (const char *const *o = os->opts; *o && k + 7 <= sizeof opts / sizeof opts[0]; o += 2) {
        if (strcmp(o[0], "resync-max") && strcmp(o[0], "disambiguate")) {
            opts[k++] = o[0];
            opts[k++] = o[1];
        }
    }
    opts[k++] = "resync-max";
    opts[k++] = "off";
    opts[k++] = "disambiguate";
    opts[k++] = "off";
    opts[k] = NULL;
    char err[700];
    void *cfg = rt_config(opts, xlen, img, err, sizeof err);
    CHECK_MSG(cfg != NULL, "%s, the spec's algorithm alone: %s", os->name, err);
    if (!cfg)
        return;
    struct recs by[2] = {{0}, {0}};
    struct rt_result enc[2] = {{0}, {0}};
    struct rvt_diag d = {0};
    int rc = 0;
    for (int merged = 0; merged < 2 && rc == 0; merged++) {
        rc = rvt_gen_run_ex(prog, gc, merged, put_rec, &by[merged], &d);
        CHECK_MSG(rc == 0, "gen run: %s", d.msg);
        if (rc == 0)
            rc = rt_encode(cfg, by[merged].r, by[merged].n, &enc[merged], err, sizeof err);
    }
    if (rc == 0) {
        size_t at = 0;
        while (at < enc[0].nbytes && at < enc[1].nbytes && enc[0].bytes[at] == enc[1].bytes[at])
            at++;
        CHECK_MSG(enc[0].nbytes == enc[1].nbytes && at == enc[0].nbytes,
                  "%s, the spec's algorithm alone, rv%u seed %u features 0x%x: %zu records of one instruction "
                  "give %zu bytes, %zu merged %zu; first difference at byte %zu",
                  os->name, xlen, seed, features, by[0].n, enc[0].nbytes, by[1].n, enc[1].nbytes, at);
        if (getenv("ET_FAIL_DIR") && at != enc[0].nbytes) {
            for (int m = 0; m < 2; m++) {
                char path[600];
                snprintf(path, sizeof path, "%s/blocks-%s-rv%u-%u-%s.bin", getenv("ET_FAIL_DIR"), os->name, xlen,
                         seed, m ? "merged" : "one");
                FILE *f = fopen(path, "wb");
                if (f) {
                    fwrite(enc[m].bytes, 1, enc[m].nbytes, f);
                    fclose(f);
                }
            }
        }
    }
    for (int m = 0; m < 2; m++) {
        rt_free(&enc[m]);
        free(by[m].r);
    }
    rvt_codec_cfg_free(cfg);
}

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
        if (enc.bytes)
            quiet_paths(os, xlen, seed, features, cfg, prog, &gc, &rc, &enc);
        same_by_blocks(os, xlen, seed, features, prog, &gc, img);
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

/* Paths of one-instruction records (4-byte instructions, plain or
 * inferable jumps) through the quiet paths (a record at a time, and runs)
 * and the general path: the same bytes and packets.  The generated programs rarely do what these
 * do with --disambiguate's ranges of code run since the last packet:
 * - a run that falls into code run before (reached by an inferable jump
 *   back to just before it): the instruction before the one that
 *   re-enters it is reported, in the middle of a run;
 * - a loop without decisions whose inferable jump goes back into the
 *   middle of the run before it: that run's range must reach its end;
 * - 40 hops of inferable jumps to code not run since the last packet:
 *   more ranges than the encoder keeps (32), after which every
 *   instruction whose successor was run counts as re-entering;
 * - an inferable jump back into the middle of a quiet block (a record of
 *   several instructions): the block's range must be all of it. */
struct path {
    struct rvt_ing_rec r[256];
    size_t n;
};

static void path_add(struct path *p, uint64_t pc, uint8_t itype)
{
    if (p->n < sizeof p->r / sizeof p->r[0])
        p->r[p->n++] = (struct rvt_ing_rec){.iaddr = pc, .iretire = 2, .ilastsize = 1, .itype = itype,
                                            .priv = RVT_PRIV_M};
}

/* pc .. end (exclusive) one by one, then an inferable jump at end */
static void path_run(struct path *p, uint64_t pc, uint64_t end)
{
    for (; pc < end; pc += 4)
        path_add(p, pc, RVT_ITYPE_NONE);
    path_add(p, end, RVT_ITYPE_JUMP_INF);
}

/* A block of n 4-byte instructions from pc, the last of type itype. */
static void path_block(struct path *p, uint64_t pc, uint32_t n, uint8_t itype)
{
    if (p->n < sizeof p->r / sizeof p->r[0])
        p->r[p->n++] = (struct rvt_ing_rec){.iaddr = pc, .iretire = 2 * n, .ilastsize = 1, .itype = itype,
                                            .priv = RVT_PRIV_M};
}

static void plain_paths(void)
{
    static struct path paths[6];
    const char *names[6] = {"fall into code run", "loop back into a run",     "40 hops",
                            "jump back into a block", "privilege changed", "context changed"};
    path_run(&paths[0], 0x1000, 0x100c);
    path_run(&paths[0], 0x0ff0, 0x1014);
    path_run(&paths[1], 0x2000, 0x201c);
    for (int k = 0; k < 3; k++)
        path_run(&paths[1], 0x2010, 0x201c);
    for (uint64_t k = 0; k < 40; k++)
        path_run(&paths[2], 0x4000 + 0x100 * k, 0x4000 + 0x100 * k + 8);
    path_run(&paths[2], 0x4004, 0x400c);
    /* (a quiet block's range is all of it: the jump back into its middle
     * re-enters code run since the last packet) */
    path_run(&paths[3], 0x5000, 0x5008);
    path_add(&paths[3], 0x5100, RVT_ITYPE_NONE);
    path_add(&paths[3], 0x5104, RVT_ITYPE_NONE);
    path_block(&paths[3], 0x5108, 4, RVT_ITYPE_NONE);
    path_block(&paths[3], 0x5118, 2, RVT_ITYPE_JUMP_INF);
    path_block(&paths[3], 0x510c, 2, RVT_ITYPE_NOT_TAKEN);
    path_block(&paths[3], 0x5114, 2, RVT_ITYPE_NONE);
    /* A privilege or context that changes on a plain instruction (the
     * producer's word: no trap): in short, records carry their batch's,
     * which a run must not take for the instruction's before. */
    for (uint64_t k = 0; k < 24; k++) {
        path_add(&paths[4], 0x6000 + 4 * k, RVT_ITYPE_NONE);
        if (k >= 12)
            paths[4].r[paths[4].n - 1].priv = RVT_PRIV_S;
    }
    /* (the context, not reported where it changes (ctype 0), is in the
     * periodic syncs: one every 16 packets, an uninferable jump's each) */
    for (uint64_t k = 0; k < 48; k++) {
        const uint64_t pc = 0x7000 + 0x40 * k;
        for (uint64_t i = 0; i < 4; i++)
            path_add(&paths[5], pc + 4 * i, RVT_ITYPE_NONE);
        path_add(&paths[5], pc + 16, RVT_ITYPE_JUMP_UNINF);
        for (size_t i = 0; i < 5; i++)
            paths[5].r[paths[5].n - 5 + i].context = i < 2 ? k : k + 1;
    }
    char err[700];
    static const char *const ctx_opts[] = {"context_width_p", "8", "resync-max", "0", NULL};
    void *cfg = rt_config(ctx_opts, 32, NULL, err, sizeof err);
    CHECK_MSG(cfg != NULL, "plain paths: %s", err);
    if (!cfg)
        return;
    for (size_t t = 0; t < sizeof paths / sizeof paths[0]; t++) {
        const struct path *p = &paths[t];
        struct rt_result one = {0};
        CHECK_MSG(rt_encode_general(cfg, p->r, p->n, &one, err, sizeof err) == 0, "%s: %s", names[t], err);
        struct rt_result quiet = {0};
        int qrc = rt_encode(cfg, p->r, p->n, &quiet, err, sizeof err);
        CHECK_MSG(qrc == 0 && quiet.nbytes == one.nbytes && !memcmp(quiet.bytes, one.bytes, one.nbytes) &&
                      quiet.packets == one.packets,
                  "%s, a record at a time: %zu bytes, %llu packets; the general path %zu, %llu", names[t],
                  quiet.nbytes, (unsigned long long)quiet.packets, one.nbytes, (unsigned long long)one.packets);
        rt_free(&quiet);
        for (unsigned runs = 1; runs <= 40; runs++) {
            struct rt_result fast = {0};
            int rc = rt_encode_runs(cfg, p->r, p->n, runs, &fast, err, sizeof err);
            CHECK_MSG(rc == 0 && fast.nbytes == one.nbytes && !memcmp(fast.bytes, one.bytes, one.nbytes) &&
                          fast.packets == one.packets,
                      "%s, batches of up to %u: %zu bytes, %llu packets; the general path %zu, %llu", names[t], runs,
                      fast.nbytes, (unsigned long long)fast.packets, one.nbytes, (unsigned long long)one.packets);
            rt_free(&fast);
            rc = rt_encode_shorts(cfg, p->r, p->n, runs, &fast, err, sizeof err);
            CHECK_MSG(rc == 0 && fast.nbytes == one.nbytes && !memcmp(fast.bytes, one.bytes, one.nbytes) &&
                          fast.packets == one.packets,
                      "%s, in short, batches of up to %u: %zu bytes, %llu packets; the general path %zu, %llu",
                      names[t], runs, fast.nbytes, (unsigned long long)fast.packets, one.nbytes,
                      (unsigned long long)one.packets);
            rt_free(&fast);
        }
        rt_free(&one);
    }
    rvt_codec_cfg_free(cfg);
}

int main(int argc, char **argv)
{
    plain_paths();
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

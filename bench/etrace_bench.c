/* Benchmark: the E-Trace family on a real capture, in one process.
 *
 *   bench_etrace_bench PROG.elf RUN.ing [repeats]
 *
 * The records are read into memory first, so the times are the family's
 * own (no process start, ELF load or file reading).  For every option set:
 * trace bytes, bits per instruction, packets, encode speed (records ->
 * bytes), decode speed (bytes -> flow engine -> a counting consumer), and
 * the round trip (every decoded instruction compared with the records by
 * rvt_seqcmp).  Best of `repeats` runs (wall clock); peak RSS at the end.
 * Prints a Markdown table.  bench/etrace_run.sh runs it and the CLI. */
#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

extern const struct rvt_codec rvt_codec_etrace;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct run {
    struct rvt_ing_rec *r;
    size_t n;
    uint64_t insns;
};

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_etrace_bench: %s: %s\n", what, msg);
    exit(1);
}

static void load(const char *path, const struct rvt_image *img, struct run *run)
{
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .image = img};
    struct rvt_ing_reader *rd;
    struct rvt_diag d = {0};
    if (rvt_ing_open(&rd, path, &rc, &d) < 0)
        die(path, d.msg);
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    size_t cap = 1 << 16;
    run->r = malloc(cap * sizeof *run->r);
    if (!run->r)
        die(path, "out of memory");
    run->n = 0;
    run->insns = 0;
    struct rvt_ing_rec rec;
    int k;
    while ((k = rvt_ing_next(rd, &rec)) > 0) {
        if (run->n == cap) {
            cap *= 2;
            run->r = realloc(run->r, cap * sizeof *run->r);
            if (!run->r)
                die(path, "out of memory");
        }
        uint64_t c = 0;
        rvt_ing_count_insns(&rec, bc, &c);
        run->insns += c;
        run->r[run->n++] = rec;
    }
    if (k < 0)
        die(path, rvt_ing_error(rd));
    rvt_bcache_free(bc);
    rvt_ing_close(rd);
}

static uint64_t g_count, g_errors;
static int count_block(void *ctx, const struct rvt_block *b)
{
    (void)ctx;
    g_count += b->ninsns;
    return 0;
}
static int count_note(void *ctx, const struct rvt_note *n)
{
    (void)ctx;
    if (n->kind == RVT_NOTE_ERROR)
        g_errors++;
    return 0;
}

struct pull_ctx {
    const struct run *run;
    size_t i;
};
static int pull(void *ctx, struct rvt_ing_rec *r)
{
    struct pull_ctx *p = ctx;
    if (p->i >= p->run->n)
        return 0;
    *r = p->run->r[p->i++];
    return 1;
}

static void bench(const char *label, const char *const *opts, const struct rvt_image *img, const struct run *run,
                  int repeats)
{
    const struct rvt_codec *c = &rvt_codec_etrace;
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    for (size_t i = 0; opts[i]; i += 2)
        if (c->cfg_set(cfg, opts[i], opts[i + 1], &d) < 0)
            die(label, d.msg);
    if (c->cfg_finish(cfg, rvt_img_xlen(img), img, &d) < 0)
        die(label, d.msg);

    struct rvt_membuf out;
    double enc = 1e9;
    for (int k = 0; k < repeats; k++) {
        rvt_membuf_init(&out);
        struct rvt_byte_sink sink = rvt_membuf_sink(&out);
        void *e;
        if (c->enc_new(&e, cfg, &sink, &d) < 0)
            die(label, d.msg);
        double t0 = now();
        for (size_t i = 0; i < run->n; i++)
            if (c->enc_put(e, &run->r[i]) < 0)
                die(label, c->enc_error(e));
        if (c->enc_finish(e) < 0)
            die(label, c->enc_error(e));
        double t = now() - t0;
        enc = t < enc ? t : enc;
        c->enc_free(e);
        if (k + 1 < repeats)
            rvt_membuf_free(&out);
    }

    double dec = 1e9;
    uint64_t decoded = 0;
    for (int k = 0; k < repeats; k++) {
        struct rvt_flow_sink sink = {.block = count_block, .note = count_note, .ctx = NULL};
        g_count = g_errors = 0;
        double t0 = now();
        if (rvt_decode_buffer(c, cfg, img, -1, out.data, out.len, &sink, &d) < 0)
            die(label, d.msg);
        double t = now() - t0;
        dec = t < dec ? t : dec;
        decoded = g_count;
    }

    struct pull_ctx pc = {run, 0};
    struct rvt_seqcmp *cmp = rvt_seqcmp_new(pull, &pc, rvt_img_xlen(img));
    struct rvt_flow_sink vs = rvt_seqcmp_sink(cmp);
    int drc = rvt_decode_buffer(c, cfg, img, -1, out.data, out.len, &vs, &d);
    int crc = rvt_seqcmp_finish(cmp);
    bool ok = drc == 0 && crc == 0 && rvt_seqcmp_insns(cmp) == run->insns && !g_errors;

    double mi = (double)run->insns / 1e6;
    printf("| %s | %" PRIu64 " | %zu | %.4f | %.1f | %.1f | %s |\n", label, decoded, out.len,
           8.0 * (double)out.len / (double)run->insns, mi / enc, mi / dec,
           ok ? "exact" : (crc < 0 ? rvt_seqcmp_error(cmp) : d.msg));
    fflush(stdout);
    rvt_seqcmp_free(cmp);
    rvt_membuf_free(&out);
    rvt_codec_cfg_free(cfg);
}

#define IR16 "implicit-return", "fixed", "return_stack_size_p", "4"
#define BP1K "branch-prediction", "true", "bpred_size_p", "10"
#define JTC64 "jump-target-cache", "true", "cache_size_p", "6", "f0s_width_p", "1"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_etrace_bench PROG.elf RUN.ing [repeats]\n");
        return 2;
    }
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    if (repeats < 1)
        repeats = 1;
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, argv[1]) < 0)
        die(argv[1], rvt_img_error(img));
    struct run run;
    double t0 = now();
    load(argv[2], img, &run);
    fprintf(stderr, "%s: %zu records, %" PRIu64 " instructions, read in %.2f s\n", argv[2], run.n, run.insns,
            now() - t0);

    printf("| option set | decoded | bytes | bits/instr | encode M/s | decode M/s | round trip |\n");
    printf("|---|---|---|---|---|---|---|\n");
    static const struct {
        const char *label;
        const char *opts[24];
    } sets[] = {
        {"defaults (encap, delta, resync every 1024 packets)", {NULL}},
        {"refraw framing", {"framing", "refraw", NULL}},
        {"no periodic resync", {"resync-max", "off", NULL}},
        {"full address", {"full-address", "true", NULL}},
        {"implicit return 2.0, 8-entry stack", {"implicit-return", "2.0", "return_stack_size_p", "3", NULL}},
        {"implicit return fixed, 8-entry stack", {"implicit-return", "fixed", "return_stack_size_p", "3", NULL}},
        {"implicit return fixed, 16-entry stack", {IR16, NULL}},
        {"implicit return fixed, call counter 4 bits", {"implicit-return", "fixed", "call_counter_size_p", "4", NULL}},
        {"branch prediction, 1024 entries", {BP1K, NULL}},
        {"jump target cache, 64 entries", {"jump-target-cache", "true", "cache_size_p", "6", NULL}},
        {"sequentially inferable jumps", {"sijump", "true", NULL}},
        {"IR fixed 16 + BP 1024", {IR16, BP1K, NULL}},
        {"IR fixed 16 + BP 1024 + JTC 64 + sijump", {IR16, BP1K, JTC64, "sijump", "true", NULL}},
        {"same, refraw framing, no resync",
         {IR16, BP1K, JTC64, "sijump", "true", "framing", "refraw", "resync-max", "off", NULL}},
        {"0.026 draft", {"etrace-version", "0.026", NULL}},
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        bench(sets[i].label, sets[i].opts, img, &run, repeats);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("\npeak RSS %ld KiB (records held in memory: %zu bytes)\n", ru.ru_maxrss, run.n * sizeof *run.r);
    free(run.r);
    rvt_img_free(img);
    return 0;
}

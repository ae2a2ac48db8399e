/* Benchmark: the nybble families (cdl, dbg) on a real capture.
 *
 *   bench_cdl_dbg_bench PROG.elf RUN.ing [repeats]
 *
 * The records are read into memory first, so the times are the families'
 * own.  For every configuration: trace bytes and bits per instruction,
 * encode speed (records -> bytes), decode speed (bytes -> flow engine ->
 * a counting consumer), decode without the ELF where the configuration
 * allows it, and the round trip (the decoded instructions compared with
 * the records by rvt_seqcmp).  Best of `repeats` runs; peak RSS at the end.
 * Prints a Markdown table. */
#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

extern const struct rvt_codec rvt_codec_cdl, rvt_codec_dbg;

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
    fprintf(stderr, "bench_cdl_dbg_bench: %s: %s\n", what, msg);
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

static uint64_t g_count;
static int count_block(void *ctx, const struct rvt_block *b)
{
    (void)ctx;
    g_count += b->ninsns;
    return 0;
}
static uint64_t g_errors;
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

static void bench(const char *label, const struct rvt_codec *c, const char *const *opts, const struct rvt_image *img,
                  const struct run *run, int repeats, bool try_nocode)
{
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

    double nocode = 0;
    if (try_nocode) {
        struct rvt_image *empty = rvt_img_new();
        rvt_img_set_xlen(empty, rvt_img_xlen(img));
        nocode = 1e9;
        for (int k = 0; k < repeats; k++) {
            struct rvt_flow_sink sink = {.block = count_block, .note = count_note, .ctx = NULL};
            g_count = g_errors = 0;
            double t0 = now();
            if (rvt_decode_buffer(c, cfg, empty, -1, out.data, out.len, &sink, &d) < 0)
                die(label, d.msg);
            double t = now() - t0;
            nocode = t < nocode ? t : nocode;
        }
        if (g_errors)
            die(label, "errors decoding without the ELF");
        rvt_img_free(empty);
    }

    /* The round trip: every decoded instruction against the records. */
    struct pull_ctx pc = {run, 0};
    struct rvt_seqcmp *cmp = rvt_seqcmp_new(pull, &pc, rvt_img_xlen(img));
    struct rvt_flow_sink vs = rvt_seqcmp_sink(cmp);
    int drc = rvt_decode_buffer(c, cfg, img, -1, out.data, out.len, &vs, &d);
    int crc = rvt_seqcmp_finish(cmp);
    bool ok = drc == 0 && crc == 0 && rvt_seqcmp_insns(cmp) == run->insns;

    double mi = (double)run->insns / 1e6;
    char nc[32] = "-";
    if (try_nocode)
        snprintf(nc, sizeof nc, "%.1f", mi / nocode);
    printf("| %s | %" PRIu64 " | %zu | %.3f | %.1f | %.1f | %s | %s |\n", label, decoded, out.len,
           8.0 * (double)out.len / (double)run->insns, mi / enc, mi / dec, nc,
           ok ? "exact" : (crc < 0 ? rvt_seqcmp_error(cmp) : d.msg));
    rvt_seqcmp_free(cmp);
    rvt_membuf_free(&out);
    rvt_codec_cfg_free(cfg);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_cdl_dbg_bench PROG.elf RUN.ing [repeats]\n");
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

    printf("| family and options | decoded | bytes | bits/instr | encode M/s | decode M/s | decode without ELF M/s "
           "| round trip |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    static const char *const cdl_default[] = {NULL};
    static const char *const cdl_uninf[] = {"cdl-pc", "uninferable", NULL};
    static const char *const cdl_sparse[] = {"cdl-pc", "uninferable", "cdl-sync-interval", "4096", NULL};
    static const char *const cdl_all[] = {"cdl-pack", "all", NULL};
    bench("cdl (pc all, sync 128)", &rvt_codec_cdl, cdl_default, img, &run, repeats, true);
    bench("cdl --cdl-pc uninferable", &rvt_codec_cdl, cdl_uninf, img, &run, repeats, false);
    bench("cdl --cdl-pc uninferable --cdl-sync-interval 4096", &rvt_codec_cdl, cdl_sparse, img, &run, repeats, false);
    bench("cdl --cdl-pack all", &rvt_codec_cdl, cdl_all, img, &run, repeats, true);
    static const char *const dbg_default[] = {NULL};
    static const char *const dbg_pairs[] = {"dbg-emit", "pc,priv", NULL};
    static const char *const dbg_mem[] = {"dbg-emit", "pc,branch,priv,loadaddr,storeaddr", NULL};
    bench("dbg (pc,branch,priv)", &rvt_codec_dbg, dbg_default, img, &run, repeats, false);
    bench("dbg --dbg-emit pc,priv", &rvt_codec_dbg, dbg_pairs, img, &run, repeats, true);
    bench("dbg --dbg-emit pc,branch,priv,loadaddr,storeaddr", &rvt_codec_dbg, dbg_mem, img, &run, repeats, false);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("\npeak RSS %ld KiB (records held in memory: %zu bytes)\n", ru.ru_maxrss, run.n * sizeof *run.r);
    free(run.r);
    rvt_img_free(img);
    return 0;
}

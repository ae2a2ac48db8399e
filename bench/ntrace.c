/* Benchmark: N-Trace encode and decode on a real capture, in one process
 * (no file or CLI start-up in the timings).
 *
 *   bench_ntrace PROG.elf RUN.ing [repeats] [--ecall MODE] ["opt=val opt ..." ...]
 *   bench_ntrace --mem PROG.elf RUN.ing [--ecall MODE] "opt=val ..."
 *
 * The records are read into memory once.  For each option set (the given
 * ones, or a default list covering the reference tool's five and the other
 * options) it measures, best of `repeats`:
 *   encode   records -> bytes in memory (instructions/s)
 *   count    decode to blocks, counting instructions (no text)
 *   pcs      decode with the PC-list text output written to /dev/null
 * and checks once that the decoded instructions equal the input.  Prints a
 * Markdown table: bytes, messages, bits/instruction, speeds.
 *
 * --mem streams the capture through the encoder into memory (no records
 * kept), then decodes: peak RSS before and after the decode shows the
 * decoder's own memory, which must not grow with the trace. */
#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

extern const struct rvt_codec rvt_codec_ntrace;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine may be shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct recs {
    struct rvt_ing_rec *r;
    size_t n, cap;
};

static void load(struct recs *v, const char *path, const struct rvt_image *img, uint64_t *insns)
{
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .image = img};
    struct rvt_ing_reader *r;
    struct rvt_diag d = {0};
    if (rvt_ing_open(&r, path, &rc, &d) < 0) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    struct rvt_ing_rec rec;
    *insns = 0;
    while (rvt_ing_next(r, &rec) > 0) {
        if (v->n == v->cap) {
            v->cap = v->cap ? 2 * v->cap : 1u << 20;
            v->r = realloc(v->r, v->cap * sizeof *v->r);
            if (!v->r)
                exit(1);
        }
        v->r[v->n++] = rec;
        uint64_t k = 0;
        if (rec.iretire && rvt_ing_count_insns(&rec, bc, &k) == 0)
            *insns += k;
    }
    rvt_bcache_free(bc);
    rvt_ing_close(r);
}

static void *make_cfg(const char *opts, const char *ecall, unsigned xlen, const struct rvt_image *img)
{
    void *cfg = rvt_codec_cfg_new(&rvt_codec_ntrace);
    struct rvt_diag d = {0};
    char buf[512];
    snprintf(buf, sizeof buf, "%s", opts);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (eq)
            *eq++ = 0;
        if (rvt_codec_ntrace.cfg_set(cfg, tok, eq ? eq : "1", &d) < 0) {
            fprintf(stderr, "%s\n", d.msg);
            exit(1);
        }
    }
    if (ecall && rvt_codec_ntrace.cfg_set(cfg, "ecall", ecall, &d) < 0) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    if (rvt_codec_ntrace.cfg_finish(cfg, xlen, img, &d) < 0) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    return cfg;
}

static uint64_t g_count;
static int count_block(void *ctx, const struct rvt_block *b)
{
    (void)ctx;
    g_count += b->ninsns;
    return 0;
}

struct cursor {
    const struct recs *v;
    size_t i;
};
static int pull(void *ctx, struct rvt_ing_rec *r)
{
    struct cursor *c = ctx;
    if (c->i >= c->v->n)
        return 0;
    *r = c->v->r[c->i++];
    return 1;
}

static void bench(const char *opts, const char *ecall, const struct recs *v, uint64_t insns,
                  const struct rvt_image *img, int repeats)
{
    unsigned xlen = rvt_img_xlen(img);
    void *cfg = make_cfg(opts, ecall, xlen, img);
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_codec_stats st;
    double best_enc = 1e30, best_cnt = 1e30, best_pcs = 1e30;
    for (int rep = 0; rep < repeats; rep++) {
        mb.len = 0;
        struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
        void *enc;
        struct rvt_diag d = {0};
        double t0 = now();
        if (rvt_codec_ntrace.enc_new(&enc, cfg, &sink, &d) < 0)
            exit(1);
        for (size_t i = 0; i < v->n; i++)
            if (rvt_codec_ntrace.enc_put(enc, &v->r[i]) < 0) {
                fprintf(stderr, "%s\n", rvt_codec_ntrace.enc_error(enc));
                exit(1);
            }
        rvt_codec_ntrace.enc_finish(enc);
        double t = now() - t0;
        rvt_codec_ntrace.enc_stats(enc, &st);
        rvt_codec_ntrace.enc_free(enc);
        if (t < best_enc)
            best_enc = t;
    }
    for (int rep = 0; rep < repeats; rep++) {
        struct rvt_flow_sink fs = {.block = count_block, .note = NULL, .ctx = NULL};
        struct rvt_diag d = {0};
        g_count = 0;
        double t0 = now();
        if (rvt_decode_buffer(&rvt_codec_ntrace, cfg, img, -1, mb.data, mb.len, &fs, &d) < 0) {
            fprintf(stderr, "%s\n", d.msg);
            exit(1);
        }
        double t = now() - t0;
        if (t < best_cnt)
            best_cnt = t;
    }
    uint64_t counted = g_count;
    FILE *null = fopen("/dev/null", "w");
    for (int rep = 0; rep < repeats && null; rep++) {
        struct rvt_out_config oc = {.size = sizeof oc, .kind = RVT_OUT_PCS, .f = null, .image = img, .xlen = xlen};
        struct rvt_output *out = rvt_out_new(&oc);
        struct rvt_flow_sink fs = rvt_out_sink(out);
        struct rvt_diag d = {0};
        double t0 = now();
        rvt_decode_buffer(&rvt_codec_ntrace, cfg, img, -1, mb.data, mb.len, &fs, &d);
        rvt_out_finish(out);
        double t = now() - t0;
        rvt_out_free(out);
        if (t < best_pcs)
            best_pcs = t;
    }
    if (null)
        fclose(null);
    /* Lossless? */
    struct cursor cur = {v, 0};
    struct rvt_seqcmp *cmp = rvt_seqcmp_new(pull, &cur, xlen);
    struct rvt_flow_sink fs = rvt_seqcmp_sink(cmp);
    struct rvt_diag d = {0};
    int rc = rvt_decode_buffer(&rvt_codec_ntrace, cfg, img, -1, mb.data, mb.len, &fs, &d);
    int crc = rvt_seqcmp_finish(cmp);
    bool ok = rc == 0 && crc == 0 && counted == insns;
    printf("| `%s%s%s` | %zu | %" PRIu64 " | %.4f | %.1f | ", opts, ecall ? " ecall=" : "", ecall ? ecall : "", mb.len,
           st.packets, 8.0 * (double)mb.len / (double)insns, (double)insns / best_enc / 1e6);
    if (ok)
        printf("%.1f | %.1f | yes |\n", (double)counted / best_cnt / 1e6, (double)insns / best_pcs / 1e6);
    else
        printf("- | - | NO |\n"); /* the decode stopped at an error: no speed to report */
    if (rc || crc)
        fprintf(stderr, "%s: %s %s\n", opts, d.msg, rvt_seqcmp_error(cmp));
    rvt_seqcmp_free(cmp);
    rvt_membuf_free(&mb);
    rvt_codec_cfg_free(cfg);
}

static long peak_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int mem_mode(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench_ntrace --mem PROG.elf RUN.ing [--ecall MODE] \"opts\"\n");
        return 2;
    }
    const char *ecall = NULL;
    const char *opts = argv[4];
    if (argc > 6 && strcmp(argv[4], "--ecall") == 0) {
        ecall = argv[5];
        opts = argv[6];
    }
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, argv[2]) < 0) {
        fprintf(stderr, "%s\n", rvt_img_error(img));
        return 1;
    }
    void *cfg = make_cfg(opts, ecall, rvt_img_xlen(img), img);
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .image = img};
    struct rvt_ing_reader *in;
    struct rvt_diag d = {0};
    if (rvt_ing_open(&in, argv[3], &rc, &d) < 0) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
    struct rvt_codec_stats st;
    if (rvt_encode_stream(&rvt_codec_ntrace, cfg, in, img, &sink, &st, &d) < 0) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    rvt_ing_close(in);
    long before = peak_kib();
    struct rvt_flow_sink fs = {.block = count_block, .note = NULL, .ctx = NULL};
    g_count = 0;
    if (rvt_decode_buffer(&rvt_codec_ntrace, cfg, img, -1, mb.data, mb.len, &fs, &d) < 0) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    long after = peak_kib();
    printf("| `%s` | %" PRIu64 " | %zu | %ld | %ld | %ld |\n", opts, g_count, mb.len, before, after, after - before);
    rvt_membuf_free(&mb);
    rvt_codec_cfg_free(cfg);
    rvt_img_free(img);
    return g_count == st.insns ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--mem") == 0)
        return mem_mode(argc, argv);
    if (argc < 3) {
        fprintf(stderr, "usage: bench_ntrace PROG.elf RUN.ing [repeats] [--ecall MODE] [\"opt=val ...\" ...]\n");
        return 2;
    }
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, argv[1]) < 0) {
        fprintf(stderr, "%s\n", rvt_img_error(img));
        return 1;
    }
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    if (repeats < 1)
        repeats = 1;
    const char *ecall = NULL;
    int first = 4;
    if (argc > 5 && strcmp(argv[4], "--ecall") == 0) {
        ecall = argv[5];
        first = 6;
    }
    struct recs v = {0};
    uint64_t insns;
    double t0 = now();
    load(&v, argv[2], img, &insns);
    fprintf(stderr, "%s: %zu records, %" PRIu64 " instructions (read in %.2f s)\n", argv[2], v.n, insns, now() - t0);
    static const char *const defaults[] = {
        "ntrace-mode=htm callstack=8 repeat=2",
        "ntrace-mode=btm callstack=0 repeat=0",
        "ntrace-mode=htm callstack=0 repeat=0",
        "ntrace-mode=htm callstack=0 repeat=2",
        "ntrace-mode=htm callstack=8 repeat=0",
        "ntrace-mode=btm callstack=8 repeat=1",
        "ntrace-mode=htm callstack=32 repeat=3 sijump",
        "ntrace-mode=htm callstack=8 callstack-mode=count repeat=2",
        "ntrace-mode=htm callstack=8 repeat=2 sync-period=65536",
        "ntrace-mode=htm callstack=8 repeat=2 timestamps context src-bits=4 addr-ext",
        NULL};
    printf("| options | bytes | messages | bits/instr | encode M insn/s | decode count M insn/s | decode pcs M insn/s | "
           "lossless |\n|---|---|---|---|---|---|---|---|\n");
    if (argc > first)
        for (int i = first; i < argc; i++)
            bench(argv[i], ecall, &v, insns, img, repeats);
    else
        for (const char *const *o = defaults; *o; o++)
            bench(*o, ecall, &v, insns, img, repeats);
    free(v.r);
    rvt_img_free(img);
    return 0;
}

/* The listing's caches through the library (src/analysis/output.c):
 * - a formatter's line and run tables cost only the slots the code uses:
 *   a threaded listing makes a formatter per thread, and each must not
 *   touch its whole 4 MiB line table at start (peak memory, start-up);
 * - the zeroed tables do not take address 0 for a cached line: code at
 *   address 0 is listed right, the first time and from the caches;
 * - a PC list and a listing take the flow engine's runs
 *   (rvt_flow_sink.runs): their text and statistics are those the output
 *   makes from the same blocks given one at a time. */
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* ThreadSanitizer's allocator fills what calloc returns, and its threads
 * have large shadows: resident memory says nothing there. */
#if defined(__SANITIZE_THREAD__)
#define RSS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RSS_MEANINGFUL 0
#endif
#endif
#ifndef RSS_MEANINGFUL
#define RSS_MEANINGFUL 1
#endif

/* The resident set of this process in KiB (/proc/self/status VmRSS; 0:
 * unknown). */
static unsigned long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %lu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static void formatters_cost_what_they_use(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(img && rvt_img_load_elf(img, elf) == 0);
    FILE *null = fopen("/dev/null", "w");
    REQUIRE(null);
    const unsigned long before = rss_kib();
    struct rvt_out_config cfg = {.size = sizeof cfg, .kind = RVT_OUT_INSN, .f = null, .image = img};
    struct rvt_output *o = rvt_out_new(&cfg);
    REQUIRE(o);
    /* 16 threads: 16 formatters besides the output's own. */
    struct rvt_out_jobs *j = rvt_out_jobs_new(o, 16);
    REQUIRE(j);
    const unsigned long after = rss_kib();
    /* 17 line tables of 4 MiB each were 68 MiB; what remains is the
     * batches' and texts' first pages and the block caches. */
    if (RSS_MEANINGFUL && before && after)
        CHECK_MSG(after - before < 16 * 1024, "17 listing formatters took %lu KiB resident", after - before);
    rvt_out_jobs_free(j);
    rvt_out_free(o);
    fclose(null);
    rvt_img_free(img);
    free(elf);
}

/* A listing of code at address 0: `addi a0, a0, 1` (0x00150513) twice,
 * then `c.addi a0, 1` (0x0505) — the block at 0 listed three times (the
 * second and third from the caches). */
static void code_at_address_zero(void)
{
    const uint8_t code[] = {0x13, 0x05, 0x15, 0x00, 0x13, 0x05, 0x15, 0x00, 0x05, 0x05};
    struct rvt_image *img = rvt_img_new();
    REQUIRE(img);
    rvt_img_set_xlen(img, 64);
    REQUIRE(rvt_img_add_raw(img, 0, code, sizeof code, NULL) == 0);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    REQUIRE(mem);
    struct rvt_out_config cfg = {.size = sizeof cfg, .kind = RVT_OUT_INSN, .f = mem, .image = img};
    struct rvt_output *o = rvt_out_new(&cfg);
    REQUIRE(o);
    struct rvt_flow_sink s = rvt_out_sink(o);
    for (uint64_t i = 0; i < 3; i++) {
        struct rvt_block b = {.start = 0, .last = 8, .next = 0, .ninsns = 3, .index = 3 * i, .end = RVT_END_SEQ,
                              .last_len = 2};
        CHECK_EQ(s.block(s.ctx, &b), 0);
    }
    CHECK_EQ(rvt_out_finish(o), 0);
    rvt_out_free(o);
    fclose(mem);
    /* Each of the nine lines names its address and its instruction's bits. */
    const char *want[3] = {"         0:\t00150513", "         4:\t00150513", "         8:\t0505"};
    const char *p = text;
    for (int line = 0; line < 9; line++) {
        CHECK_MSG(p && strncmp(p, want[line % 3], strlen(want[line % 3])) == 0, "line %d of the listing: %.40s", line,
                  p ? p : "(missing)");
        p = p ? strchr(p, '\n') : NULL;
        p = p ? p + 1 : NULL;
    }
    CHECK_MSG(p && *p == 0, "nothing after the nine lines: %s", p ? p : "(missing)");
    free(text);
    rvt_img_free(img);
}

/* A sink in front of the output's: blocks and notes passed on one at a
 * time, and (runs) the runs too, counted. */
struct fwd {
    struct rvt_flow_sink in;
    size_t runs_calls;
};
static int fwd_block(void *ctx, const struct rvt_block *b)
{
    struct fwd *f = ctx;
    return f->in.block(f->in.ctx, b);
}
static int fwd_note(void *ctx, const struct rvt_note *n)
{
    struct fwd *f = ctx;
    return f->in.note(f->in.ctx, n);
}
static int fwd_runs(void *ctx, size_t n, const struct rvt_block_counts *c, uint64_t index, struct rvt_block_run **room,
                    size_t *cap)
{
    struct fwd *f = ctx;
    f->runs_calls++;
    return f->in.runs(f->in.ctx, n, c, index, room, cap);
}

/* The golden N-Trace vector (test-NEX.bin, 164,959 instructions) decoded
 * into an output of `kind`, its blocks as runs or not: the text, and the
 * statistics in *st. */
static void decode_t1(const struct rvt_image *img, const uint8_t *trace, size_t len, enum rvt_out_kind kind,
                      bool runs, char **text, size_t *tlen, struct rvt_out_stats *st, size_t *runs_calls)
{
    const struct rvt_codec *c = rvt_codec_find("ntrace");
    REQUIRE(c);
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    REQUIRE(cfg && c->cfg_set(cfg, "ntrace-mode", "htm", &d) == 0 && c->cfg_set(cfg, "callstack", "8", &d) == 0 &&
            c->cfg_set(cfg, "repeat", "2", &d) == 0 && c->cfg_finish(cfg, 32, img, &d) == 0);
    FILE *f = open_memstream(text, tlen);
    REQUIRE(f);
    struct rvt_out_config oc = {.size = sizeof oc, .kind = kind, .f = f, .image = img, .xlen = 32};
    struct rvt_output *out = rvt_out_new(&oc);
    REQUIRE(out);
    struct fwd w = {.in = rvt_out_sink(out)};
    struct rvt_flow_sink s = {.block = fwd_block, .note = fwd_note, .ctx = &w};
    if (runs) {
        CHECK_MSG(w.in.runs && w.in.runs_image == img, "output kind %d takes no runs", (int)kind);
        s.runs = w.in.runs ? fwd_runs : NULL;
        s.runs_image = w.in.runs_image;
        s.runs_plain = w.in.runs_plain;
    }
    CHECK_MSG(rvt_decode_buffer(c, cfg, img, -1, trace, len, &s, &d) == 0, "%s", d.msg);
    CHECK(rvt_out_finish(out) == 0);
    *st = *rvt_out_stats(out);
    *runs_calls = w.runs_calls;
    rvt_out_free(out);
    fclose(f);
    rvt_codec_cfg_free(cfg);
}

static void runs_make_the_same_text(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf"), *bin = rvt_test_data("ntrace-t1/test-NEX.bin");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(img && rvt_img_load_elf(img, elf) == 0);
    size_t len = 0;
    uint8_t *trace = rvt_test_read(bin, &len);
    REQUIRE(trace);
    const enum rvt_out_kind kinds[2] = {RVT_OUT_PCS, RVT_OUT_INSN};
    for (int k = 0; k < 2; k++) {
        size_t alen = 0, blen = 0, acalls = 0, bcalls = 0;
        struct rvt_out_stats ast, bst;
        char *a = NULL, *b = NULL;
        decode_t1(img, trace, len, kinds[k], false, &a, &alen, &ast, &acalls);
        decode_t1(img, trace, len, kinds[k], true, &b, &blen, &bst, &bcalls);
        CHECK_EQ(acalls, 0);
        CHECK_MSG(a && b && alen > 100000 && alen == blen && memcmp(a, b, alen) == 0,
                  "kind %d: the text from runs differs (%zu bytes, from blocks %zu)", (int)kinds[k], blen, alen);
        CHECK_MSG(bcalls > 10, "kind %d: %zu hand-overs of runs", (int)kinds[k], bcalls);
        CHECK_MSG(ast.insns == bst.insns && ast.blocks == bst.blocks && ast.traps == bst.traps &&
                      memcmp(ast.ends, bst.ends, sizeof ast.ends) == 0,
                  "kind %d: statistics from runs: %llu instructions, %llu blocks; from blocks %llu, %llu",
                  (int)kinds[k], (unsigned long long)bst.insns, (unsigned long long)bst.blocks,
                  (unsigned long long)ast.insns, (unsigned long long)ast.blocks);
        free(a);
        free(b);
    }
    free(trace);
    rvt_img_free(img);
    free(elf);
    free(bin);
}

int main(void)
{
    formatters_cost_what_they_use();
    code_at_address_zero();
    runs_make_the_same_text();
    return rvt_test_summary("test_outjobs_lib");
}

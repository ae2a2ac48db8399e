/* Fuzz the threaded decode (rvt_decode_jobs, docs/parallel.md "The decode
 * in pieces") against the serial one: any bytes, decoded as N-Trace and as
 * E-Trace against the reference program t1 by rvt_decode and by
 * rvt_decode_jobs on 2 threads with a piece at every sync point, must give
 * the sink the same events (every field, note texts included) and the same
 * result.  The
 * first input byte picks the sink: bit 0 a count-like one (blocks in runs
 * and counts, rvt_flow_sink.counts: the totals and the notes must agree), else one that
 * logs every event and, when bits 2..7 are K > 0, refuses the 200K-th event
 * (the serial decode stops there; the threaded one must stop at the same
 * event with the same error); bit 1 gives the N-Trace decoder
 * --ntrace-mode htm (t1's mode: without it, what the decoder learns of the
 * mode makes every later piece decode again) and the E-Trace decoder the
 * reference flow's raw framing and t1's hardware parameters (the golden
 * vectors' tests/data/etrace-t1/resync0/hw.scf; without it: e-trace-encap
 * and the defaults, as `rvtrace encode --format etrace` writes).  A
 * difference aborts.
 *
 * Then, for one input in four (its length 0 or 1 modulo 8), the output's
 * hand-off (rvt_out_jobs, src/parallel/pardecode.c): the same bytes
 * decoded as one of the families (the input's length odd: N-Trace, even:
 * E-Trace) into a PC list, a listing or a block list (bits
 * 2..7 modulo 3), serially and through rvt_out_jobs on 2 threads with
 * batches of 3 blocks (RVT_JOBS_BATCH), written out in pieces of 48
 * bytes as they are formatted when at the head (RVT_JOBS_SPILL), must give
 * the same text, the same
 * damage reports, statistics and result — also when the listing stops at
 * a block outside the code (one input in three is decoded without the
 * program's code: the first block stops it).  When the input's last byte
 * is odd the threaded output is a temporary file, where a PC list's
 * batches are written in place (each at its offset, out of order). */
#include "rvtrace/rvtrace.h"
#include "driver/fuzz_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct rvt_image *g_img;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g_img = rvt_fuzz_image("ntrace-t1/test.elf", "fuzz_decode_jobs");
    setenv("RVT_JOBS_SEGMENT_BYTES", "1", 1); /* a piece at every sync point */
    setenv("RVT_JOBS_BATCH", "3", 1);         /* batches cut every few blocks */
    setenv("RVT_JOBS_LAZY", "2", 1);          /* the workers start after two batches' worth */
    setenv("RVT_JOBS_SPILL", "48", 1);        /* a batch at the head goes out every 48 bytes of text */
    return 0;
}

struct log {
    uint8_t *p;
    size_t n, cap;
    uint64_t events, refuse_at; /* refuse_at: 1-based event to refuse (0: none) */
    struct rvt_block_counts sums;
};

static void put(struct log *l, const void *v, size_t k)
{
    if (l->n + k > l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4096;
        while (cap < l->n + k)
            cap *= 2;
        uint8_t *p = realloc(l->p, cap);
        if (!p)
            abort();
        l->p = p;
        l->cap = cap;
    }
    memcpy(l->p + l->n, v, k);
    l->n += k;
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct log *l = ctx;
    const uint64_t f[] = {b->start, b->last, b->next, b->ninsns, b->index, b->context, b->time, b->tval,
                          b->trace_offset, b->cause, b->end, b->cf, b->priv, b->flags, b->last_len};
    put(l, "B", 1);
    put(l, f, sizeof f);
    l->sums.blocks++;
    l->sums.insns += b->ninsns;
    l->sums.ends[b->end & 15]++;
    return ++l->events == l->refuse_at || l->sums.insns > (1u << 16);
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct log *l = ctx;
    const uint64_t f[] = {n->addr, n->offset, n->value, n->index, n->kind, n->reason, n->priv, n->tval};
    put(l, "N", 1);
    put(l, f, sizeof f);
    if (n->text)
        put(l, n->text, strlen(n->text) + 1);
    return ++l->events == l->refuse_at;
}

/* The count-like sink: totals, and the notes in order. */
static int on_block_total(void *ctx, const struct rvt_block *b)
{
    struct log *l = ctx;
    l->sums.blocks++;
    l->sums.insns += b->ninsns;
    l->sums.ends[b->end & 15]++;
    return 0;
}

static int on_blocks_total(void *ctx, const struct rvt_block *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        on_block_total(ctx, &b[i]);
    return 0;
}

static int on_sums(void *ctx, const struct rvt_block_counts *s)
{
    struct log *l = ctx;
    l->sums.blocks += s->blocks;
    l->sums.insns += s->insns;
    for (unsigned e = 0; e < 16; e++)
        l->sums.ends[e] += s->ends[e];
    return 0;
}

static int decode(const struct rvt_codec *c, const void *cfg, const uint8_t *data, size_t size, unsigned threads,
                  bool count, struct log *l, struct rvt_diag *d)
{
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = l};
    if (count)
        sink = (struct rvt_flow_sink){
            .block = on_block_total, .note = on_note, .blocks = on_blocks_total, .counts = on_sums, .ctx = l};
    struct rvt_decode_options o = {.size = sizeof o, .ecall = -1, .max_insns = 1 << 16, .starts_at_trace_start = true};
    return threads == 1 ? rvt_decode(c, cfg, g_img, &o, data, size, &sink, d)
                        : rvt_decode_jobs(c, cfg, g_img, &o, data, size, threads, &sink, NULL, d);
}

/* One text output of the decode: its text, diagnostics, statistics and the
 * decode's result. */
struct text_run {
    char *text, *diag;
    size_t tlen, dlen;
    struct rvt_out_stats st;
    int rc;
    char msg[sizeof ((struct rvt_diag *)0)->msg];
};

/* The text of a file the output wrote (to_file), as open_memstream gives it. */
static void file_text(FILE *f, struct text_run *r)
{
    struct stat st;
    if (fflush(f) != 0 || fstat(fileno(f), &st) != 0)
        abort();
    r->tlen = (size_t)st.st_size;
    if (!(r->text = malloc(r->tlen + 1)) || pread(fileno(f), r->text, r->tlen, 0) != (ssize_t)r->tlen)
        abort();
}

/* to_file: the output is a temporary file, which a PC list on threads
 * writes in place (each batch at its offset: src/parallel/pardecode.c). */
static void text_decode(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img, const uint8_t *data,
                        size_t size, enum rvt_out_kind kind, unsigned threads, bool to_file, struct text_run *r)
{
    memset(r, 0, sizeof *r);
    FILE *f = to_file ? tmpfile() : open_memstream(&r->text, &r->tlen), *diag = open_memstream(&r->diag, &r->dlen);
    if (!f || !diag)
        abort();
    struct rvt_out_config oc = {.size = sizeof oc,
                                .kind = kind,
                                .f = f,
                                .image = img,
                                .xlen = img ? rvt_img_xlen(img) : 32,
                                .diag = diag};
    struct rvt_output *out = rvt_out_new(&oc);
    struct rvt_out_jobs *jobs = threads > 1 && out ? rvt_out_jobs_new(out, threads) : NULL;
    if (!out || (threads > 1 && !jobs))
        abort();
    struct rvt_flow_sink sink = jobs ? rvt_out_jobs_sink(jobs) : rvt_out_sink(out);
    struct rvt_decode_options o = {.size = sizeof o, .ecall = -1, .max_insns = 1 << 16, .starts_at_trace_start = true};
    struct rvt_diag d = {0};
    r->rc = rvt_decode(c, cfg, g_img, &o, data, size, &sink, &d);
    memcpy(r->msg, d.msg, sizeof r->msg);
    if (jobs)
        rvt_out_jobs_finish(jobs);
    if (rvt_out_finish(out) < 0)
        r->rc -= 1000;
    r->st = *rvt_out_stats(out);
    rvt_out_jobs_free(jobs);
    rvt_out_free(out);
    if (to_file)
        file_text(f, r);
    fclose(f);
    fclose(diag);
}

static void same_text(const struct rvt_codec *c, const void *cfg, uint8_t sel, const uint8_t *data, size_t size)
{
    static const enum rvt_out_kind kinds[] = {RVT_OUT_PCS, RVT_OUT_INSN, RVT_OUT_BLOCKS};
    /* Without the code (1 in 3): a listing stops at its first block. */
    const struct rvt_image *img = data[0] % 3 ? g_img : NULL;
    const enum rvt_out_kind k = kinds[(sel >> 2) % 3];
    struct text_run a, b;
    text_decode(c, cfg, img, data, size, k, 1, false, &a);
    text_decode(c, cfg, img, data, size, k, 2, data[size - 1] & 1, &b);
    if (a.rc != b.rc || strcmp(a.msg, b.msg) != 0 || a.tlen != b.tlen || memcmp(a.text, b.text, a.tlen) != 0 ||
        a.dlen != b.dlen || memcmp(a.diag, b.diag, a.dlen) != 0 || memcmp(&a.st, &b.st, sizeof a.st) != 0)
        abort(); /* the output on threads is not the serial output */
    free(a.text);
    free(a.diag);
    free(b.text);
    free(b.diag);
}

/* The family's configuration for selector bit 1 (see the top), or NULL. */
static void *family_cfg(const struct rvt_codec *c, bool alt)
{
    void *cfg = rvt_codec_cfg_new(c);
    if (!cfg)
        return NULL;
    struct rvt_diag d = {0};
    int rc = 0;
    if (alt && !strcmp(c->name, "ntrace")) {
        rc = c->cfg_set(cfg, "ntrace-mode", "htm", &d);
    } else if (alt) {
        const char *dir = getenv("RVT_TEST_DATA");
        char scf[1024];
        snprintf(scf, sizeof scf, "%s/etrace-t1/resync0/hw.scf", dir ? dir : "tests/data");
        rc = c->cfg_set(cfg, "scf", scf, &d);
        if (rc >= 0)
            rc = c->cfg_set(cfg, "framing", "refraw", &d);
    }
    if (rc < 0) {
        fprintf(stderr, "fuzz_decode_jobs: %s\n", d.msg);
        abort(); /* (a fuzz run without its configuration would test nothing) */
    }
    return cfg;
}

static void one_family(const char *family, uint8_t sel, const uint8_t *data, size_t size)
{
    const struct rvt_codec *c = rvt_codec_find(family);
    void *cfg = c ? family_cfg(c, sel & 2) : NULL;
    if (!cfg)
        return;
    struct rvt_diag d = {0};
    if (c->cfg_finish && c->cfg_finish(cfg, 32, g_img, &d) < 0) {
        rvt_codec_cfg_free(cfg);
        return;
    }
    bool count = sel & 1;
    struct log a = {.refuse_at = count ? 0 : 200u * (sel >> 2)}, b = {.refuse_at = a.refuse_at};
    struct rvt_diag da = {0}, db = {0};
    int ra = decode(c, cfg, data, size, 1, count, &a, &da);
    int rb = decode(c, cfg, data, size, 2, count, &b, &db);
    if (ra != rb || strcmp(da.msg, db.msg) != 0 || a.n != b.n || (a.n && memcmp(a.p, b.p, a.n) != 0) ||
        a.events != b.events || memcmp(&a.sums, &b.sums, sizeof a.sums) != 0)
        abort(); /* the threaded decode is not the serial one */
    free(a.p);
    free(b.p);
    /* One input in four (each output's formatters cost a few MB to set up,
     * which would make the corpus replay in CI minutes long). */
    if (size % 8 < 2 && (strcmp(family, "ntrace") == 0) == (size % 2 == 1))
        same_text(c, cfg, sel, data, size);
    rvt_codec_cfg_free(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    if (!g_img && LLVMFuzzerInitialize(NULL, NULL) != 0)
        return 0;
    one_family("ntrace", data[0], data + 1, size - 1);
    one_family("etrace", data[0], data + 1, size - 1);
    return 0;
}

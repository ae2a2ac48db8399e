/* N-Trace decoder robustness on the reference program (t1): decoding from
 * an arbitrary byte (starts at the first sync after the cut and matches the
 * input from there), truncation (a prefix of the input), bit flips and
 * garbage (errors with offsets, resynchronisation, never a crash). */
#include "ntrace/ntrace.h"
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static struct rvt_image *g_img;
static struct rvt_bcache *g_bc;
static struct rvt_ing_rec *g_recs;
static size_t g_nrec;
static uint64_t *g_pcs; /* one instruction per record */

/* ---- encoding with the record index of every message --------------------- */

struct trace {
    struct rvt_membuf buf;
    size_t sync_off[4096];
    size_t sync_idx[4096]; /* instructions retired before the sync point */
    size_t nsync;
};

struct tap {
    struct rvt_membuf *mb;
    size_t *rec_now;
    struct trace *t;
};

static long tap_write(void *ctx, const uint8_t *p, size_t n)
{
    struct tap *tp = ctx;
    /* A sync message is written at the boundary before the record being
     * put: the instructions before it are the records already put. */
    if (n && (p[0] & 3u) == 0 && nt_tcode_is_sync(p[0] >> 2) && tp->t->nsync < 4096) {
        tp->t->sync_off[tp->t->nsync] = tp->mb->len;
        tp->t->sync_idx[tp->t->nsync++] = *tp->rec_now;
    }
    return rvt_membuf_append(tp->mb, p, n) < 0 ? -RVT_ERR_NOMEM : (long)n;
}

static void *make_cfg(const char *opts)
{
    void *cfg = rvt_codec_cfg_new(&rvt_codec_ntrace);
    struct rvt_diag d = {0};
    char buf[256];
    snprintf(buf, sizeof buf, "%s", opts);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (eq)
            *eq++ = 0;
        CHECK_MSG(rvt_codec_ntrace.cfg_set(cfg, tok, eq ? eq : "1", &d) == 0, "%s: %s", tok, d.msg);
    }
    CHECK_MSG(rvt_codec_ntrace.cfg_finish(cfg, 32, g_img, &d) == 0, "%s", d.msg);
    return cfg;
}

static void encode(const void *cfg, struct trace *t)
{
    memset(t, 0, sizeof *t);
    rvt_membuf_init(&t->buf);
    size_t rec_now = 0;
    struct tap tp = {&t->buf, &rec_now, t};
    struct rvt_byte_sink sink = {tap_write, &tp};
    void *enc;
    struct rvt_diag d = {0};
    REQUIRE(rvt_codec_ntrace.enc_new(&enc, cfg, &sink, &d) == 0);
    for (rec_now = 0; rec_now < g_nrec; rec_now++)
        REQUIRE(rvt_codec_ntrace.enc_put(enc, &g_recs[rec_now]) == 0);
    REQUIRE(rvt_codec_ntrace.enc_finish(enc) == 0);
    rvt_codec_ntrace.enc_free(enc);
}

/* ---- decoding into a PC array, with the notes ------------------------------- */

struct collect {
    uint64_t *pcs; /* the PCs since the last error (all of them without errors) */
    size_t seg;    /* how many */
    size_t n, cap; /* all PCs decoded */
    size_t errors, syncs;
    size_t after_last_error; /* PCs decoded when the last error was reported */
    size_t gaps_lost, before_gap;
    uint64_t first_error_offset;
};

/* One buffer for every decode (more than the input can only be wrong). */
static uint64_t *g_out;
static size_t g_out_cap;

static int add_pc(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct collect *c = ctx;
    if (c->seg < c->cap)
        c->pcs[c->seg] = pc;
    c->seg++;
    c->n++;
    return 0;
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    return rvt_block_insns(g_bc, 32, b, add_pc, ctx);
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct collect *c = ctx;
    if (n->kind == RVT_NOTE_ERROR) {
        if (!c->errors)
            c->first_error_offset = n->offset;
        c->errors++;
        c->after_last_error = c->n;
        c->seg = 0;
        CHECK(n->text && strstr(n->text, "offset 0x") != NULL);
    }
    if (n->kind == RVT_NOTE_SYNC)
        c->syncs++;
    if (n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_LOST) {
        c->gaps_lost++;
        c->before_gap = c->n;
        /* keep the part before the loss in g_out, collect the rest after it */
        c->pcs = g_out + c->n;
        c->cap = c->cap > c->n ? c->cap - c->n : 0;
        c->seg = 0;
    }
    return 0;
}

static int decode(const void *cfg, const uint8_t *p, size_t n, struct collect *c)
{
    memset(c, 0, sizeof *c);
    c->pcs = g_out;
    c->cap = g_out_cap;
    struct rvt_flow_sink sink = {on_block, on_note, c};
    struct rvt_diag d = {0};
    return rvt_decode_buffer(&rvt_codec_ntrace, cfg, g_img, -1, p, n, &sink, &d);
}

/* Is got[] equal to the input from instruction `from` to the end? */
static bool is_tail(const struct collect *c, size_t skip, size_t from)
{
    return from <= g_nrec && c->n <= c->cap && c->n - skip == g_nrec - from &&
           memcmp(c->pcs + skip, g_pcs + from, (c->n - skip) * sizeof *g_pcs) == 0;
}

/* ---- the tests ------------------------------------------------------------- */

static uint64_t g_rng = 0x243F6A8885A308D3ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

static void run_options(const char *opts)
{
    void *cfg = make_cfg(opts);
    void *plain = make_cfg("");
    static struct trace t;
    encode(cfg, &t);
    CHECK_MSG(t.nsync > 10, "%s: %zu syncs", opts, t.nsync);
    /* Decoder options that describe the wire format (not the encoder's
     * choices) must match; the rest is not needed. */
    void *dcfg = strstr(opts, "src-bits") || strstr(opts, "addr-ext") || strstr(opts, "ecall") ? cfg : plain;
    struct collect c;

    /* Whole trace. */
    CHECK(decode(dcfg, t.buf.data, t.buf.len, &c) == 0);
    CHECK_MSG(c.errors == 0 && is_tail(&c, 0, 0), "%s: full decode: %zu errors, %zu instructions", opts, c.errors,
              c.n);
    
    /* Cut at arbitrary bytes: decoding starts at the first complete sync
     * message after the cut and reproduces the input from that point. */
    size_t cuts = 0;
    for (size_t cut = 1; cut < t.buf.len; cut += 1 + rnd() % 13, cuts++) {
        size_t k = 0;
        while (k < t.nsync && t.sync_off[k] < cut)
            k++;
        size_t from = k < t.nsync ? t.sync_idx[k] : g_nrec;
        CHECK(decode(dcfg, t.buf.data + cut, t.buf.len - cut, &c) == 0);
        CHECK_MSG(c.errors == 0 && is_tail(&c, 0, from),
                  "%s: cut at %zu: %zu instructions, %zu errors (first at 0x%llx), expected the last %zu", opts, cut,
                  c.n, c.errors, (unsigned long long)c.first_error_offset, g_nrec - from);
        if (!(c.errors == 0 && is_tail(&c, 0, from)) && getenv("NT_DEBUG")) {
            char fn[64];
            snprintf(fn, sizeof fn, "/tmp/nt_cut_%zu.bin", cut);
            FILE *f = fopen(fn, "wb");
            fwrite(t.buf.data + cut, 1, t.buf.len - cut, f);
            fclose(f);
        }
            }
    CHECK(cuts > 200);

    /* Truncation: a prefix of the input; the cut message is reported. */
    for (size_t len = 1; len < t.buf.len; len += 1 + rnd() % 41) {
        CHECK(decode(dcfg, t.buf.data, len, &c) == 0);
        CHECK_MSG(c.n <= g_nrec && c.n <= c.cap && memcmp(c.pcs, g_pcs, c.n * sizeof *g_pcs) == 0,
                  "%s: truncated at %zu: output is not a prefix of the input", opts, len);
            }

    /* Bit flips: errors name offsets; after the last error the decoder is
     * back in step (a suffix of the input); never a crash. */
    uint8_t *copy = malloc(t.buf.len);
    REQUIRE(copy);
    size_t detected = 0, silent = 0, harmless = 0;
    for (int i = 0; i < 400; i++) {
        memcpy(copy, t.buf.data, t.buf.len);
        size_t at = rnd() % t.buf.len;
        copy[at] ^= (uint8_t)(1u << (rnd() % 8));
        CHECK(decode(dcfg, copy, t.buf.len, &c) == 0);
        if (c.errors) {
            detected++;
            /* The PCs after the last error come from a sync after the
             * damage: the end of the input. */
            size_t tail = c.seg;
            bool okk = tail <= g_nrec && (tail == 0 || memcmp(c.pcs, g_pcs + g_nrec - tail, tail * sizeof *g_pcs) == 0);
            CHECK_MSG(okk, "%s: flip at %zu: output after the last error is not the input's end", opts, at);
            if (!okk && getenv("NT_DEBUG")) {
                char fn[64];
                snprintf(fn, sizeof fn, "/tmp/nt_flip_%zu.bin", at);
                FILE *f = fopen(fn, "wb");
                fwrite(copy, 1, t.buf.len, f);
                fclose(f);
                snprintf(fn, sizeof fn, "/tmp/nt_orig_%zu.bin", at);
                f = fopen(fn, "wb");
                fwrite(t.buf.data, 1, t.buf.len, f);
                fclose(f);
            }
        } else if (is_tail(&c, 0, 0)) {
            harmless++; /* e.g. a flipped bit in a padding position */
        } else {
            silent++; /* a different but consistent flow: N-Trace has no checksum */
        }
            }
    CHECK(detected > 0);
    printf("%s: %zu bytes, %zu syncs; flips: %zu detected, %zu harmless, %zu undetectable\n", opts, t.buf.len, t.nsync,
           detected, harmless, silent);
    free(copy);

    rvt_membuf_free(&t.buf);
    rvt_codec_cfg_free(cfg);
    rvt_codec_cfg_free(plain);
}

static void garbage(void)
{
    void *cfg = make_cfg("");
    uint8_t buf[4096];
    struct collect c;
    for (int i = 0; i < 40; i++) {
        for (size_t k = 0; k < sizeof buf; k++)
            buf[k] = (uint8_t)rnd();
        CHECK(decode(cfg, buf, sizeof buf, &c) == 0);
            }
    memset(buf, 0, sizeof buf); /* a trace of zeros: one endless field */
    CHECK(decode(cfg, buf, sizeof buf, &c) == 0);
    CHECK_EQ(c.n, 0);
        memset(buf, 0xFF, sizeof buf); /* all idle */
    CHECK(decode(cfg, buf, sizeof buf, &c) == 0);
    CHECK_EQ(c.n, 0);
    CHECK_EQ(c.errors, 0);
        rvt_codec_cfg_free(cfg);
}

/* Strict mode stops at the first error with its offset. */
static void strict_mode(void)
{
    void *cfg = make_cfg("callstack=8 repeat=2 strict");
    static struct trace t;
    encode(cfg, &t);
    t.buf.data[t.buf.len / 2] ^= 0x02; /* MSEO 00 -> 10 or the like */
    struct collect c;
    memset(&c, 0, sizeof c);
    struct rvt_flow_sink sink = {on_block, on_note, &c};
    struct rvt_diag d = {0};
    int rc = rvt_decode_buffer(&rvt_codec_ntrace, cfg, g_img, -1, t.buf.data, t.buf.len, &sink, &d);
    CHECK(rc < 0);
    CHECK(strstr(d.msg, "offset 0x") != NULL);
        rvt_membuf_free(&t.buf);
    rvt_codec_cfg_free(cfg);
}

/* Output loss: the sink refuses a stretch of messages.  The encoder sends
 * an Error message (ETYPE 0, program trace lost) when the sink takes bytes
 * again, then a ProgTraceSync-type message with SYNC=7; the decoder reports
 * the loss and continues from that sync, matching the input there. */
struct lossy {
    struct rvt_membuf mb;
    size_t calls, from, to;
    size_t *rec_now;
    size_t resync_off, resync_idx;
    bool have_resync;
};

static long lossy_write(void *ctx, const uint8_t *p, size_t n)
{
    struct lossy *l = ctx;
    size_t call = l->calls++;
    if (call >= l->from && call < l->to)
        return 0; /* full */
    if (!l->have_resync && call >= l->to && n > 1 && nt_tcode_is_sync(p[0] >> 2) && ((p[1] >> 2) & 15) == NT_SYNC_OVERRUN) {
        l->have_resync = true;
        l->resync_off = l->mb.len;
        l->resync_idx = *l->rec_now;
    }
    return rvt_membuf_append(&l->mb, p, n) < 0 ? -RVT_ERR_NOMEM : (long)n;
}

static void loss(void)
{
    void *cfg = make_cfg("callstack=8 repeat=2 sync-period=20000");
    size_t rec_now = 0;
    struct lossy l;
    memset(&l, 0, sizeof l);
    rvt_membuf_init(&l.mb);
    l.from = 40;
    l.to = 90;
    l.rec_now = &rec_now;
    struct rvt_byte_sink sink = {lossy_write, &l};
    void *enc;
    struct rvt_diag d = {0};
    REQUIRE(rvt_codec_ntrace.enc_new(&enc, cfg, &sink, &d) == 0);
    for (rec_now = 0; rec_now < g_nrec; rec_now++)
        REQUIRE(rvt_codec_ntrace.enc_put(enc, &g_recs[rec_now]) == 0);
    REQUIRE(rvt_codec_ntrace.enc_finish(enc) == 0);
    struct rvt_codec_stats st;
    rvt_codec_ntrace.enc_stats(enc, &st);
    rvt_codec_ntrace.enc_free(enc);
    CHECK(st.lost > 0);
    REQUIRE(l.have_resync);

    /* The message before the SYNC=7 one is the Error message. */
    struct nt_wire w = {0, 32, false};
    size_t pos = 0, start, n, prev = 0;
    struct nt_msg m;
    int rc;
    bool found = false;
    while ((rc = nt_frame_next(l.mb.data, l.mb.len, &pos, &start, &n, &d)) == 1) {
        if (start == l.resync_off) {
            struct nt_msg e;
            REQUIRE(nt_msg_decode(&w, l.mb.data + prev, start - prev, prev, &e, &d) == 0);
            CHECK_EQ(e.tcode, NT_TC_ERROR);
            CHECK_EQ(e.v[NT_F_ETYPE], NT_ETYPE_OVERRUN);
            CHECK(e.v[NT_F_ECODE] & NT_ECODE_PROGRAM_LOST);
            REQUIRE(nt_msg_decode(&w, l.mb.data + start, n, start, &m, &d) == 0);
            CHECK_EQ(m.v[NT_F_SYNC], NT_SYNC_OVERRUN);
            found = true;
        }
        prev = start;
    }
    CHECK(found);

    struct collect c;
    CHECK(decode(cfg, l.mb.data, l.mb.len, &c) == 0);
    CHECK_EQ(c.errors, 0);
    CHECK_EQ(c.gaps_lost, 1);
    /* Before the loss: the beginning of the input; after it: the end. */
    CHECK(c.before_gap <= g_nrec && memcmp(g_out, g_pcs, (c.before_gap < c.cap ? c.before_gap : 0) * sizeof *g_pcs) == 0);
    CHECK_MSG(c.seg == g_nrec - l.resync_idx &&
                  memcmp(c.pcs, g_pcs + l.resync_idx, (g_nrec - l.resync_idx) * sizeof *g_pcs) == 0,
              "after the loss: %zu instructions, expected the last %zu", c.seg, g_nrec - l.resync_idx);
    rvt_membuf_free(&l.mb);
    rvt_codec_cfg_free(cfg);
}

int main(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf");
    char *pcs = rvt_test_data("ntrace-t1/test-PCONLY.txt");
    g_img = rvt_img_new();
    if (rvt_img_load_elf(g_img, elf) < 0) {
        CHECK_MSG(0, "%s", rvt_img_error(g_img));
        return rvt_test_summary("ntrace_decoder");
    }
    g_bc = rvt_bcache_new(g_img, 0);
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = RVT_ING_FMT_PCLIST, .image = g_img};
    struct rvt_ing_reader *in = NULL;
    struct rvt_diag d = {0};
    if (rvt_ing_open(&in, pcs, &rc, &d) < 0) {
        CHECK_MSG(0, "%s", d.msg);
        return rvt_test_summary("ntrace_decoder");
    }
    size_t cap = 200000;
    g_recs = malloc(cap * sizeof *g_recs);
    g_pcs = malloc(cap * sizeof *g_pcs);
    struct rvt_ing_rec r;
    while (rvt_ing_next(in, &r) > 0 && g_nrec < cap) {
        g_recs[g_nrec] = r;
        g_pcs[g_nrec++] = r.iaddr;
    }
    rvt_ing_close(in);
    CHECK_EQ(g_nrec, 164959);
    g_out_cap = 2 * g_nrec;
    g_out = malloc(g_out_cap * sizeof *g_out);

    run_options("callstack=8 repeat=2 sync-period=4000");
    run_options("ntrace-mode=btm callstack=4 repeat=1 sync-msgs=60");
    run_options("callstack=2 repeat=3 sync-period=2500 timestamps context src-bits=4 src-id=3 addr-ext");
    run_options("callstack=8 callstack-mode=count repeat=2 sync-msgs=8 hist-bits=12 icnt-bits=9");
    garbage();
    strict_mode();
    loss();

    free(g_recs);
    free(g_pcs);
    free(g_out);
    rvt_bcache_free(g_bc);
    rvt_img_free(g_img);
    free(elf);
    free(pcs);
    return rvt_test_summary("ntrace_decoder");
}

/* N-Trace decoder robustness on the reference program (t1): decoding from
 * an arbitrary byte (starts at the first sync after the cut and matches the
 * input from there), truncation (a prefix of the input), bit flips and
 * garbage (errors with offsets, resynchronisation, never a crash). */
#include "ntrace/ntrace.h"
#include "roundtrip.h"
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = c};
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
    return rvt_test_xorshift(&g_rng);
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
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = &c};
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

/* ---- issue 10: what the decoder must report ------------------------------- */

/* Decode with notes counted by kind; returns the decoder's status. */
struct notes {
    size_t insns, errors, ends, wraps, offs;
    uint64_t first_offset;
    char first[600];
};
static int count_insn(void *ctx, const struct rvt_block *b)
{
    ((struct notes *)ctx)->insns += b->ninsns;
    return 0;
}
static int count_note(void *ctx, const struct rvt_note *n)
{
    struct notes *x = ctx;
    bool err = n->kind == RVT_NOTE_ERROR, end = n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_END;
    if ((err || end) && !x->errors && !x->ends) {
        x->first_offset = n->offset;
        snprintf(x->first, sizeof x->first, "%s", n->text ? n->text : "");
    }
    x->errors += err;
    x->ends += end;
    x->wraps += n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_WRAP;
    x->offs += n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_TRACE_OFF;
    return 0;
}
static int decode_notes(const void *cfg, const uint8_t *p, size_t n, struct notes *x)
{
    memset(x, 0, sizeof *x);
    struct rvt_flow_sink sink = {.block = count_insn, .note = count_note, .ctx = x};
    struct rvt_diag d = {0};
    return rvt_decode_buffer(&rvt_codec_ntrace, cfg, g_img, -1, p, n, &sink, &d);
}

/* Messages built field by field (RV32 t1, no SRC). */
struct stream {
    uint8_t b[512];
    size_t n;
};
static size_t put_msg(struct stream *s, const struct nt_msg *m)
{
    struct nt_wire w = {0, 32, false};
    struct rvt_diag d = {0};
    size_t at = s->n;
    int k = nt_msg_encode(&w, m, s->b + s->n, &d);
    CHECK_MSG(k > 0, "%s", d.msg);
    if (k > 0)
        s->n += (size_t)k;
    return at;
}
static size_t put_sync(struct stream *s, uint64_t addr)
{
    struct nt_msg m;
    nt_msg_init(&m, NT_TC_PROG_TRACE_SYNC);
    nt_set(&m, NT_F_SYNC, NT_SYNC_RESET);
    nt_set(&m, NT_F_ICNT, 0);
    nt_set(&m, NT_F_FADDR, addr >> 1);
    return put_msg(s, &m);
}
static size_t put_ptc(struct stream *s, unsigned evcode, uint64_t icnt, uint64_t hist)
{
    struct nt_msg m;
    nt_msg_init(&m, NT_TC_PROG_TRACE_CORRELATION);
    nt_set(&m, NT_F_EVCODE, evcode);
    nt_set(&m, NT_F_CDF, 1);
    nt_set(&m, NT_F_ICNT, icnt);
    nt_set(&m, NT_F_HIST, hist);
    return put_msg(s, &m);
}

/* Every structurally invalid message is an error at its offset (also in
 * the dump); the decoder resynchronises at the next sync message. */
static void invalid_messages(void)
{
    void *cfg = make_cfg("");
    static struct trace t;
    encode(cfg, &t); /* t1, with no periodic sync: one sync */
    struct {
        const char *what;
        unsigned tcode;
        int field[3];
        uint64_t val[3];
    } bad[] = {
        {"reserved TCODE", 1, {-1}, {0}},
        {"reserved TCODE", 40, {-1}, {0}},
        {"Vendor Defined", 60, {-1}, {0}},
        {"EVCODE 2", NT_TC_PROG_TRACE_CORRELATION, {NT_F_EVCODE, NT_F_CDF, NT_F_ICNT}, {2, 0, 0}},
        {"CDF 2", NT_TC_PROG_TRACE_CORRELATION, {NT_F_EVCODE, NT_F_CDF, NT_F_ICNT}, {0, 2, 0}},
        {"RCODE 3", NT_TC_RESOURCE_FULL, {NT_F_RCODE, NT_F_RDATA, -1}, {3, 5, 0}},
        {"HREPEAT", NT_TC_RESOURCE_FULL, {NT_F_RCODE, NT_F_RDATA, NT_F_HREPEAT}, {2, 0x80000000u, 1u << 18}},
        {"HREPEAT 0", NT_TC_RESOURCE_FULL, {NT_F_RCODE, NT_F_RDATA, NT_F_HREPEAT}, {2, 0x80000000u, 0}},
        {"NTRACE_MAX_HIST", NT_TC_RESOURCE_FULL, {NT_F_RCODE, NT_F_RDATA, -1}, {1, 0x1ffffffffull, 0}},
        {"no outcome", NT_TC_RESOURCE_FULL, {NT_F_RCODE, NT_F_RDATA, -1}, {1, 1, 0}},
        {"22-bit I-CNT", NT_TC_RESOURCE_FULL, {NT_F_RCODE, NT_F_RDATA, -1}, {0, 1u << 22, 0}},
        {"22-bit I-CNT", NT_TC_DIRECT_BRANCH, {NT_F_ICNT, -1}, {1u << 22, 0}},
        {"B-CNT", NT_TC_REPEAT_BRANCH, {NT_F_BCNT, -1}, {0, 0}},
        {"B-CNT", NT_TC_REPEAT_BRANCH, {NT_F_BCNT, -1}, {1u << 18, 0}},
        {"ETYPE", NT_TC_ERROR, {NT_F_ETYPE, NT_F_ECODE, -1}, {3, 4, 0}},
        {"ECODE", NT_TC_ERROR, {NT_F_ETYPE, NT_F_ECODE, -1}, {0, 0x10, 0}},
        {"HIST is 0", NT_TC_INDIRECT_BRANCH_HIST, {NT_F_BTYPE, NT_F_ICNT, NT_F_UADDR}, {0, 4, 0}},
        {"--context", NT_TC_OWNERSHIP, {NT_F_PROCESS, -1}, {0xc, 0}},
        {"BTM messages cannot follow HTM", NT_TC_DIRECT_BRANCH, {NT_F_ICNT, -1}, {2, 0}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct nt_msg m;
        nt_msg_init(&m, bad[i].tcode);
        for (int f = 0; f < 3 && bad[i].field[f] >= 0; f++)
            nt_set(&m, (enum nt_field)bad[i].field[f], bad[i].val[f]);
        if (bad[i].tcode == NT_TC_INDIRECT_BRANCH_HIST)
            nt_set(&m, NT_F_HIST, 0);
        /* Insert it after the first 40 messages of t1. */
        size_t pos = 0, start = 0, n = 0, k = 0;
        struct rvt_diag d = {0};
        while (k < 40 && nt_frame_next(t.buf.data, t.buf.len, &pos, &start, &n, &d) == 1)
            k++;
        static uint8_t buf[8192];
        struct nt_wire w = {0, 32, false};
        uint8_t msg[NT_MSG_PARSE_MAX];
        int mlen;
        if (!nt_tcode_known(m.tcode)) { /* TCODE and one byte of payload */
            msg[0] = (uint8_t)(m.tcode << 2);
            msg[1] = 0x07;
            mlen = 2;
        } else {
            mlen = nt_msg_encode(&w, &m, msg, &d);
        }
        REQUIRE(mlen > 0 && pos + (size_t)mlen <= sizeof buf && t.buf.len <= sizeof buf - (size_t)mlen);
        memcpy(buf, t.buf.data, pos);
        memcpy(buf + pos, msg, (size_t)mlen);
        memcpy(buf + pos + (size_t)mlen, t.buf.data + pos, t.buf.len - pos);
        struct notes x;
        CHECK(decode_notes(cfg, buf, t.buf.len + (size_t)mlen, &x) == 0);
        CHECK_MSG(x.errors >= 1 && x.first_offset == pos && strstr(x.first, bad[i].what),
                  "%s: %zu errors, first at 0x%llx (message at 0x%zx): %s", bad[i].what, x.errors,
                  (unsigned long long)x.first_offset, pos, x.first);
        /* The dump shows it as an error too (all but the mixed modes, which
         * take the messages before it). */
        if (i == sizeof bad / sizeof bad[0] - 1)
            continue;
        FILE *null = fopen("/dev/null", "w");
        REQUIRE(null);
        struct rvt_diag dd = {0};
        CHECK(nt_dump((const struct nt_cfg *)cfg, buf, t.buf.len + (size_t)mlen, null, &dd) < 0);
        fclose(null);
    }
    rvt_membuf_free(&t.buf);
    rvt_codec_cfg_free(cfg);
}

/* Truncation and the end marker, in every mode: a message cut off, a trace
 * cut between messages (no ProgTraceCorrelation), the empty trace. */
static void truncation(void)
{
    void *cfg = make_cfg("callstack=8 repeat=2");
    void *strict = make_cfg("callstack=8 repeat=2 strict");
    static struct trace t;
    encode(cfg, &t);
    struct notes x;
    /* The whole trace: no note. */
    CHECK(decode_notes(cfg, t.buf.data, t.buf.len, &x) == 0);
    CHECK(x.errors == 0 && x.ends == 0 && x.insns == g_nrec);
    size_t pos = 0, start = 0, n = 0, bounds = 0, inside = 0;
    struct rvt_diag d = {0};
    while (nt_frame_next(t.buf.data, t.buf.len, &pos, &start, &n, &d) == 1 && pos < t.buf.len) {
        /* cut between messages and inside the next one */
        for (int k = 0; k < 2; k++) {
            size_t len = k == 0 ? pos : pos + 1 + (size_t)(rnd() % 3);
            if (len >= t.buf.len || (k == 1 && (t.buf.data[len - 1] & 3u) == 3u))
                continue;
            CHECK(decode_notes(cfg, t.buf.data, len, &x) == 0);
            CHECK_MSG(x.ends == 1 && x.first_offset == (k == 0 ? len : pos) && x.errors == 0,
                      "cut at %zu: %zu end notes (first at 0x%llx: %s), %zu errors", len, x.ends,
                      (unsigned long long)x.first_offset, x.first, x.errors);
            bounds += k == 0;
            inside += k == 1;
            if (bounds % 16 == 1) {
                /* strict mode reports it too, then fails */
                CHECK(decode_notes(strict, t.buf.data, len, &x) < 0);
                CHECK_EQ(x.ends, 1);
            }
        }
    }
    CHECK(bounds > 300 && inside > 300);
    /* A single cut message, before any sync point. */
    CHECK(decode_notes(cfg, t.buf.data, 3, &x) == 0);
    CHECK_EQ(x.ends, 1);
    /* Empty, and only idles: nothing at all. */
    CHECK(decode_notes(cfg, t.buf.data, 0, &x) == 0);
    CHECK(x.insns == 0 && x.errors == 0 && x.ends == 0 && x.wraps == 0);
    uint8_t idle[64];
    memset(idle, 0xFF, sizeof idle);
    CHECK(decode_notes(strict, idle, sizeof idle, &x) == 0);
    CHECK(x.insns == 0 && x.errors == 0 && x.ends == 0 && x.wraps == 0);
    rvt_membuf_free(&t.buf);
    rvt_codec_cfg_free(cfg);
    rvt_codec_cfg_free(strict);
}

/* Counts the configuration cannot produce are errors, not walks: one
 * ResourceFull with HREPEAT 2^30-1 (a 34-byte file that printed > 2 GB of
 * PCs) ends at once; a HIST whose branches lie beyond what the I-CNT
 * counter allows stops there. */
static void bounded_work(void)
{
    void *cfg = make_cfg("");
    struct stream s = {.n = 0};
    put_sync(&s, 0x20010522);
    struct nt_msg m;
    nt_msg_init(&m, NT_TC_RESOURCE_FULL);
    nt_set(&m, NT_F_RCODE, NT_RCODE_HIST_REPEAT);
    nt_set(&m, NT_F_RDATA, 0xd5555555u);
    nt_set(&m, NT_F_HREPEAT, (1u << 30) - 1);
    size_t rf = put_msg(&s, &m);
    put_ptc(&s, 0, 100, 1);
    CHECK(s.n <= 34);
    struct notes x;
    clock_t c0 = clock();
    CHECK(decode_notes(cfg, s.b, s.n, &x) == 0);
    double sec = (double)(clock() - c0) / CLOCKS_PER_SEC;
    CHECK_MSG(x.errors == 1 && x.first_offset == rf && strstr(x.first, "HREPEAT"), "%zu errors: %s", x.errors, x.first);
    CHECK_MSG(sec < 1.0, "HREPEAT 2^30-1 took %.2f s", sec);
    CHECK(x.insns == 0);
    /* With --icnt-bits 8 the outcomes of one HIST must lie within 255
     * halfwords of the range start: t1's first branches do not. */
    void *narrow = make_cfg("icnt-bits=8");
    s.n = 0;
    put_sync(&s, 0x20010522);
    nt_msg_init(&m, NT_TC_RESOURCE_FULL);
    nt_set(&m, NT_F_RCODE, NT_RCODE_HIST);
    nt_set(&m, NT_F_RDATA, 0xffffffffu);
    rf = put_msg(&s, &m);
    put_msg(&s, &m);
    put_ptc(&s, 0, 100, 1);
    CHECK(decode_notes(narrow, s.b, s.n, &x) == 0);
    CHECK_MSG(x.errors == 1 && strstr(x.first, "I-CNT counter"), "%zu errors: %s", x.errors, x.first);
    rvt_codec_cfg_free(narrow);
    rvt_codec_cfg_free(cfg);
}

/* Seed 003's corner cases decode: a trace that starts disabled
 * (ProgTraceCorrelation EVCODE=4, then SYNC=5) and a hart halted with trace
 * disabled (EVCODE=0, I-CNT=0 at the end); a non-empty ProgTraceCorrelation
 * while stopped, or a branch message after one, is an error. */
static void corner_cases(void)
{
    void *cfg = make_cfg("");
    struct rvt_ing_rec recs[3000];
    size_t nr = 3000;
    memcpy(recs, g_recs, sizeof recs);
    for (size_t i = 0; i < 500; i++)
        recs[i].flags |= RVT_ING_UNQUALIFIED;
    for (size_t i = 2500; i < nr; i++)
        recs[i].flags |= RVT_ING_UNQUALIFIED;
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
    void *enc;
    struct rvt_diag d = {0};
    REQUIRE(rvt_codec_ntrace.enc_new(&enc, cfg, &sink, &d) == 0);
    for (size_t i = 0; i < nr; i++)
        REQUIRE(rvt_codec_ntrace.enc_put(enc, &recs[i]) == 0);
    REQUIRE(rvt_codec_ntrace.enc_finish(enc) == 0);
    rvt_codec_ntrace.enc_free(enc);
    struct nt_wire w = {0, 32, false};
    struct nt_msg first, last;
    size_t pos = 0, start = 0, n = 0, last_start = 0;
    REQUIRE(nt_frame_next(mb.data, mb.len, &pos, &start, &n, &d) == 1);
    REQUIRE(nt_msg_decode(&w, mb.data + start, n, start, &first, &d) == 0);
    CHECK_EQ(first.tcode, NT_TC_PROG_TRACE_CORRELATION);
    CHECK_EQ(first.v[NT_F_EVCODE], 4);
    while (nt_frame_next(mb.data, mb.len, &pos, &start, &n, &d) == 1)
        last_start = start;
    REQUIRE(nt_msg_decode(&w, mb.data + last_start, mb.len - last_start, last_start, &last, &d) == 0);
    CHECK_EQ(last.tcode, NT_TC_PROG_TRACE_CORRELATION);
    CHECK_EQ(last.v[NT_F_EVCODE], 0);
    CHECK_EQ(last.v[NT_F_ICNT], 0);
    struct collect c;
    CHECK(decode(cfg, mb.data, mb.len, &c) == 0);
    CHECK_MSG(c.errors == 0 && c.n == 2000 && memcmp(c.pcs, g_pcs + 500, 2000 * sizeof *g_pcs) == 0,
              "%zu errors, %zu instructions", c.errors, c.n);
    struct notes x;
    CHECK(decode_notes(cfg, mb.data, mb.len, &x) == 0);
    CHECK(x.ends == 0 && x.wraps == 0 && x.offs == 1);
    /* After the trace stopped: a non-empty ProgTraceCorrelation, a branch. */
    struct stream s = {.n = 0};
    put_sync(&s, 0x20010522);
    put_ptc(&s, 4, 3, 1);
    size_t bad = put_ptc(&s, 0, 5, 1);
    CHECK(decode_notes(cfg, s.b, s.n, &x) == 0);
    CHECK_MSG(x.errors == 1 && x.first_offset == bad, "%zu errors at 0x%llx: %s", x.errors,
              (unsigned long long)x.first_offset, x.first);
    rvt_membuf_free(&mb);
    rvt_codec_cfg_free(cfg);
}

/* Encoder options given to the decoder are checked: messages an encoder
 * with them cannot produce are errors (periodic syncs placed early or
 * missed, RepeatBranch without --repeat 1, an explicit return the call
 * stack predicts); without them any encoder's trace decodes. */
static void given_options(void)
{
    static struct trace t;
    void *enc = make_cfg("ntrace-mode=btm callstack=8 repeat=1 sync-msgs=30");
    encode(enc, &t);
    struct notes x;
    void *same = make_cfg("ntrace-mode=btm callstack=8 repeat=1 sync-msgs=30");
    CHECK(decode_notes(same, t.buf.data, t.buf.len, &x) == 0);
    CHECK_MSG(x.errors == 0 && x.insns == g_nrec, "%zu errors: %s", x.errors, x.first);
    static const char *const wrong[] = {"sync-msgs=40", "sync-msgs=20", "repeat=0", "ntrace-mode=htm", "callstack=0"};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        void *other = make_cfg(wrong[i]);
        CHECK(decode_notes(other, t.buf.data, t.buf.len, &x) == 0);
        CHECK_MSG(x.errors > 0, "decoder with --%s: no error", wrong[i]);
        rvt_codec_cfg_free(other);
    }
    rvt_membuf_free(&t.buf);
    rvt_codec_cfg_free(same);
    rvt_codec_cfg_free(enc);
}

/* The i-th message of a trace with B-TYPE (from 0), rewritten with
 * another B-TYPE in place (the field has a fixed width); returns its
 * offset, or SIZE_MAX when there is no such message. */
static size_t set_btype(uint8_t *buf, size_t len, size_t nth, unsigned from, unsigned to)
{
    struct nt_wire w = {0, 32, false};
    struct rvt_diag d = {0};
    size_t pos = 0, start = 0, n = 0, k = 0;
    while (nt_frame_next(buf, len, &pos, &start, &n, &d) == 1) {
        struct nt_msg m;
        if (nt_msg_decode(&w, buf + start, n, start, &m, &d) < 0 || !nt_has(&m, NT_F_BTYPE) ||
            m.v[NT_F_BTYPE] != from || nt_tcode_is_sync(m.tcode) || (from == 0 && m.v[NT_F_ICNT] == 0) ||
            k++ != nth)
            continue;
        m.v[NT_F_BTYPE] = to;
        uint8_t out[NT_MSG_MAX];
        if (nt_msg_encode(&w, &m, out, &d) != (int)n)
            return SIZE_MAX;
        memcpy(buf + start, out, n);
        return start;
    }
    return SIZE_MAX;
}

/* Trap messages: "Either 1-only or both 2 and 3 should be implemented and
 * consistently reported" (B-TYPE), so a trace mixing them is damaged; and
 * a trap cannot end a range at an uninferable jump (the jump's target is
 * sent first), so B-TYPE 0 flipped to 2 is an error, not a trap. */
static void trap_messages(void)
{
    /* t1 with two interrupts, each taken where the code goes on (the
     * handler address is the next record's). */
    size_t n = 0, want[2] = {1000, 2000};
    static struct rvt_ing_rec recs[3000];
    for (size_t i = 0; i < 2400; i++) {
        recs[n++] = g_recs[i];
        if (n < 2900 && (i == want[0] || i == want[1])) {
            struct rvt_ing_rec t = {.iaddr = g_recs[i + 1].iaddr, .itype = RVT_ITYPE_INTERRUPT, .cause = 7,
                                    .priv = g_recs[i].priv};
            recs[n++] = t;
        }
    }
    static const char *const cfgs[2] = {"", "btype-compat"};
    for (int compat = 0; compat < 2; compat++) {
        void *cfg = make_cfg(cfgs[compat]), *dcfg = make_cfg("");
        struct rvt_membuf mb;
        rvt_membuf_init(&mb);
        struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
        void *enc;
        struct rvt_diag d = {0};
        REQUIRE(rvt_codec_ntrace.enc_new(&enc, cfg, &sink, &d) == 0);
        for (size_t i = 0; i < n; i++)
            REQUIRE(rvt_codec_ntrace.enc_put(enc, &recs[i]) == 0);
        REQUIRE(rvt_codec_ntrace.enc_finish(enc) == 0);
        rvt_codec_ntrace.enc_free(enc);
        /* Either way decodes whole without being told which. */
        struct notes x;
        CHECK(decode_notes(dcfg, mb.data, mb.len, &x) == 0);
        CHECK_MSG(x.errors == 0 && x.ends == 0 && x.insns == 2400, "%s: %zu errors, %zu instructions: %s",
                  cfgs[compat], x.errors, x.insns, x.first);
        unsigned bt = compat ? NT_BTYPE_TRAP : NT_BTYPE_INTERRUPT, other = compat ? NT_BTYPE_INTERRUPT : NT_BTYPE_TRAP;
        /* The second trap of the other kind: an error there. */
        uint8_t *copy = malloc(mb.len);
        REQUIRE(copy);
        memcpy(copy, mb.data, mb.len);
        size_t second = set_btype(copy, mb.len, 1, bt, other);
        REQUIRE(second != SIZE_MAX);
        CHECK(decode_notes(dcfg, copy, mb.len, &x) == 0);
        CHECK_MSG(x.errors == 1 && x.first_offset == second && strstr(x.first, "either as 1 only or as 2 and 3"),
                  "%s: second trap changed: %zu errors, the first at 0x%llx (changed 0x%zx): %s", cfgs[compat],
                  x.errors, (unsigned long long)x.first_offset, second, x.first);
        /* The first one changed: the second, now the odd one out by a tie,
         * is reported (the damage is found one trap late, not never). */
        memcpy(copy, mb.data, mb.len);
        size_t first = set_btype(copy, mb.len, 0, bt, other);
        second = set_btype(mb.data, mb.len, 1, bt, bt);
        REQUIRE(first != SIZE_MAX && second != SIZE_MAX && first < second);
        CHECK(decode_notes(dcfg, copy, mb.len, &x) == 0);
        CHECK_MSG(x.errors == 1 && x.first_offset == second, "%s: first trap changed: %zu errors, the first at 0x%llx: %s",
                  cfgs[compat], x.errors, (unsigned long long)x.first_offset, x.first);
        /* Told --btype-compat, the first one is wrong at once. */
        void *told = make_cfg(compat ? "btype-compat" : "btype-compat=0");
        CHECK(decode_notes(told, copy, mb.len, &x) == 0);
        CHECK_MSG(x.errors >= 1 && x.first_offset == first, "%s, told: first error at 0x%llx, expected 0x%zx: %s",
                  cfgs[compat], (unsigned long long)x.first_offset, first, x.first);
        rvt_codec_cfg_free(told);
        free(copy);
        rvt_membuf_free(&mb);
        rvt_codec_cfg_free(cfg);
        rvt_codec_cfg_free(dcfg);
    }

    /* An uninferable jump's message turned into a trap to the same address. */
    void *cfg = make_cfg("callstack=0");
    static struct trace t;
    encode(cfg, &t);
    struct notes x;
    for (size_t k = 0; k < 3; k++) {
        uint8_t *copy = malloc(t.buf.len);
        REQUIRE(copy);
        memcpy(copy, t.buf.data, t.buf.len);
        size_t at = set_btype(copy, t.buf.len, k, NT_BTYPE_INDIRECT, k == 1 ? NT_BTYPE_TRAP : NT_BTYPE_EXCEPTION);
        REQUIRE(at != SIZE_MAX);
        CHECK(decode_notes(cfg, copy, t.buf.len, &x) == 0);
        CHECK_MSG(x.errors >= 1 && x.first_offset == at && strstr(x.first, "whose target the trace has not given"),
                  "jump %zu as a trap at 0x%zx: %zu errors, the first at 0x%llx: %s", k, at, x.errors,
                  (unsigned long long)x.first_offset, x.first);
        free(copy);
    }
    rvt_membuf_free(&t.buf);
    /* Not told the encoder's call stack: once the trace has sent a return
     * this decoder's (deepest) stack predicts and never left one implicit,
     * the encoder has none, so a return cannot end a trap's range either.
     * (t1's first return message comes before any such evidence.) */
    void *plain = make_cfg("");
    encode(plain, &t);
    for (size_t k = 1; k < 3; k++) {
        uint8_t *copy = malloc(t.buf.len);
        REQUIRE(copy);
        memcpy(copy, t.buf.data, t.buf.len);
        size_t at = set_btype(copy, t.buf.len, k, NT_BTYPE_INDIRECT, NT_BTYPE_EXCEPTION);
        REQUIRE(at != SIZE_MAX);
        CHECK(decode_notes(plain, copy, t.buf.len, &x) == 0);
        CHECK_MSG(x.errors >= 1 && x.first_offset == at && strstr(x.first, "after return"),
                  "return %zu as a trap at 0x%zx, no --callstack: %zu errors, the first at 0x%llx: %s", k, at,
                  x.errors, (unsigned long long)x.first_offset, x.first);
        free(copy);
    }
    rvt_membuf_free(&t.buf);
    rvt_codec_cfg_free(plain);
    rvt_codec_cfg_free(cfg);
}

/* A periodic sync (SYNC=2) replaces the message due at a record boundary;
 * one that carries a trap's B-TYPE right after a conditional branch cannot
 * be: the trap is a record of its own and the sync was due at the
 * boundary before it already.  t1's periodic syncs, each made a trap. */
static void periodic_trap_sync(void)
{
    void *cfg = make_cfg("callstack=8 repeat=2 sync-period=4000");
    static struct trace t;
    encode(cfg, &t);
    struct nt_wire w = {0, 32, false};
    struct rvt_diag d = {0};
    size_t pos = 0, start = 0, n = 0, tried = 0, found = 0;
    uint8_t *copy = malloc(t.buf.len);
    REQUIRE(copy);
    while (nt_frame_next(t.buf.data, t.buf.len, &pos, &start, &n, &d) == 1) {
        struct nt_msg m;
        if (nt_msg_decode(&w, t.buf.data + start, n, start, &m, &d) < 0 || !nt_has(&m, NT_F_BTYPE) ||
            m.v[NT_F_SYNC] != NT_SYNC_PERIODIC || m.v[NT_F_BTYPE] != NT_BTYPE_INDIRECT)
            continue;
        memcpy(copy, t.buf.data, t.buf.len);
        m.v[NT_F_BTYPE] = NT_BTYPE_EXCEPTION;
        REQUIRE(nt_msg_encode(&w, &m, copy + start, &d) == (int)n);
        struct notes x;
        CHECK(decode_notes(cfg, copy, t.buf.len, &x) == 0);
        tried++;
        if (x.errors && strstr(x.first, "SYNC=2 (periodic) with B-TYPE=2 after a conditional branch")) {
            found++;
            CHECK_MSG(x.first_offset == start, "sync at 0x%zx: error at 0x%llx", start,
                      (unsigned long long)x.first_offset);
        }
    }
    CHECK_MSG(tried > 10 && found > 0, "%zu periodic syncs with B-TYPE 0, %zu found", tried, found);
    free(copy);
    rvt_membuf_free(&t.buf);
    rvt_codec_cfg_free(cfg);
}

/* Not told --callstack or --sijump, the decoder learns from the trace that
 * its encoder had neither (a return its stack predicts, or a sequentially
 * inferable jump, sent; none left out), and then a trap message that ends
 * its range at one is damage: a generated program with traps, calls and
 * auipc/jalr pairs, every B-TYPE 0 message turned into an exception. */
static void learnt_options(void)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = 3;
    gc.insns = 20000;
    gc.features |= RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS | RVT_GEN_PRIV;
    struct rvt_gen_program *p = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_gen_program_new(&p, &gc, &d) == 0);
    struct rvt_image *img = rvt_gen_image(p);
    struct rvt_recs recs = {0};
    REQUIRE(img && rvt_recs_gen(&recs, p, &gc, true, &d) == 0);
    void *cfg = rvt_codec_cfg_new(&rvt_codec_ntrace);
    REQUIRE(rvt_codec_ntrace.cfg_set(cfg, "ecall", "trap", &d) == 0);
    REQUIRE(rvt_codec_ntrace.cfg_finish(cfg, rvt_img_xlen(img), img, &d) == 0);
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
    void *enc;
    REQUIRE(rvt_codec_ntrace.enc_new(&enc, cfg, &sink, &d) == 0);
    for (size_t i = 0; i < recs.n; i++)
        REQUIRE(rvt_codec_ntrace.enc_put(enc, &recs.r[i]) == 0);
    REQUIRE(rvt_codec_ntrace.enc_finish(enc) == 0);
    rvt_codec_ntrace.enc_free(enc);
    uint8_t *copy = malloc(mb.len);
    REQUIRE(copy);
    size_t flipped = 0, missed = 0, late = 0;
    for (size_t k = 0;; k++) {
        memcpy(copy, mb.data, mb.len);
        size_t at = set_btype(copy, mb.len, k, NT_BTYPE_INDIRECT, NT_BTYPE_EXCEPTION);
        if (at == SIZE_MAX)
            break;
        struct notes x;
        memset(&x, 0, sizeof x);
        struct rvt_flow_sink s = {.block = count_insn, .note = count_note, .ctx = &x};
        CHECK(rvt_decode_buffer(&rvt_codec_ntrace, cfg, img, -1, copy, mb.len, &s, &d) == 0);
        flipped++;
        if (x.errors == 0)
            missed++;
        else if (x.first_offset != at)
            late++;
        /* Once the first messages have shown how the encoder works, none
         * is missed. */
        CHECK_MSG(k < 20 || (x.errors && x.first_offset == at), "message %zu at 0x%zx as a trap: %zu errors, the first at 0x%llx: %s", k, at,
                  x.errors, (unsigned long long)x.first_offset, x.first);
    }
    CHECK(flipped > 500);
    printf("learnt options: %zu B-TYPE 0 messages made exceptions: %zu missed, %zu reported late\n", flipped, missed,
           late);
    free(copy);
    rvt_membuf_free(&mb);
    rvt_codec_cfg_free(cfg);
    rvt_recs_free(&recs);
    rvt_img_free(img);
    rvt_gen_program_free(p);
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
    invalid_messages();
    truncation();
    bounded_work();
    corner_cases();
    given_options();
    trap_messages();
    learnt_options();
    periodic_trap_sync();

    free(g_recs);
    free(g_pcs);
    free(g_out);
    rvt_bcache_free(g_bc);
    rvt_img_free(g_img);
    free(elf);
    free(pcs);
    return rvt_test_summary("ntrace_decoder");
}

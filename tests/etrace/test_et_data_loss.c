/* E-Trace data trace when trace is lost: a sink that refuses bytes for a
 * while (a full FIFO), a trace cut at an arbitrary byte, data packets
 * damaged.  Whatever the decoder still ties to an instruction must be that
 * instruction's access, and every traced data instruction it decodes must
 * get its access or an RVT_DATA_LOST note: nothing silently missing,
 * nothing tied to the wrong instruction.
 *
 * To tell accesses apart, each access of 4 or more bytes carries its own
 * record number as its value (the codecs do not look at what values mean). */
#include "drt.h"
#include "etrace/etrace.h"
#include "rt.h"
#include "rvtrace/gen.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_etrace;

/* Tags: out of reach of 1- and 2-byte values. */
#define TAG 0x5a000000u

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

/* A sink that refuses every write in [from, to) (counted in calls). */
struct tsink {
    struct rvt_membuf mb;
    uint64_t calls, from, to;
};

static long tsink_write(void *ctx, const uint8_t *p, size_t n)
{
    struct tsink *s = ctx;
    uint64_t k = s->calls++;
    if (k >= s->from && k < s->to)
        return 0;
    return rvt_membuf_append(&s->mb, p, n) < 0 ? -RVT_ERR_NOMEM : (long)n;
}

/* What the decoder said. */
struct dec {
    uint64_t *pc;
    size_t npc, cap;
    struct drt_note *v; /* data notes, with LOST ones */
    size_t n, vcap;
    unsigned gaps, errors;
    struct rvt_bcache *bc;
    unsigned xlen;
};

static int on_pc(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    struct dec *d = ctx;
    (void)b;
    if (d->npc == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 4096;
        d->pc = realloc(d->pc, d->cap * sizeof *d->pc);
        if (!d->pc)
            abort();
    }
    d->pc[d->npc++] = pc;
    return 0;
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct dec *d = ctx;
    /* (indices count decoded instructions without holes) */
    CHECK_MSG(d->npc == b->index, "block index %" PRIu64 " after %zu instructions", b->index, d->npc);
    return rvt_block_insns(d->bc, d->xlen, b, on_pc, d) < 0;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct dec *d = ctx;
    if (n->kind == RVT_NOTE_GAP)
        d->gaps++;
    if (n->kind == RVT_NOTE_ERROR)
        d->errors++;
    if (n->kind != RVT_NOTE_DATA)
        return 0;
    if (d->n == d->vcap) {
        d->vcap = d->vcap ? 2 * d->vcap : 4096;
        d->v = realloc(d->v, d->vcap * sizeof *d->v);
        if (!d->v)
            abort();
    }
    d->v[d->n++] = (struct drt_note){.index = n->index, .addr = n->addr, .value = n->value, .kind = n->reason};
    return 0;
}

static bool traced_data_insn(const struct rvt_image *img, uint64_t pc)
{
    struct rvt_insn in;
    return rvt_img_insn(img, pc, &in) == 0 && rvt_isa_data_access(&in) >= 0;
}

/* Check every note against the records. */
static void check(const char *what, const struct recs *rc, const struct rvt_image *img, const struct dec *d,
                  bool expect_loss, bool values)
{
    unsigned attached = 0, lost = 0, orphans = 0, checked = 0;
    /* (instruction index -> noted) */
    uint8_t *noted = calloc(d->npc + 1, 1);
    for (size_t i = 0; i < d->n; i++) {
        const struct drt_note *t = &d->v[i];
        if (t->index == UINT64_MAX) {
            orphans++;
            continue;
        }
        if (t->index >= d->npc) {
            CHECK_MSG(0, "%s: a data note for instruction %" PRIu64 " of %zu", what, t->index, d->npc);
            continue;
        }
        uint64_t pc = d->pc[t->index];
        CHECK_MSG(traced_data_insn(img, pc), "%s: data note for 0x%" PRIx64 ", not a data instruction", what, pc);
        if (t->kind == RVT_DATA_LOST) {
            lost++;
            noted[t->index] = 1;
            continue;
        }
        noted[t->index] = 1;
        attached++;
        if (t->kind != RVT_DATA_LOAD_VALUE && t->kind != RVT_DATA_STORE_VALUE)
            continue;
        /* value = TAG + record number (accesses of 4+ bytes) */
        uint64_t j = t->value - TAG;
        if (t->value < TAG || j >= rc->n || rc->r[j].mem_value != t->value)
            continue; /* (a narrower access, an atomic's value) */
        checked++;
        if (!values)
            continue;
        const struct rvt_ing_rec *r = &rc->r[j];
        CHECK_MSG(rvt_ing_last_addr(r) == pc && r->mem_addr == t->addr,
                  "%s: access #%" PRIu64 " (load/store at 0x%" PRIx64 " of [0x%" PRIx64 "]) tied to instruction %" PRIu64
                  " at 0x%" PRIx64 " [0x%" PRIx64 "]",
                  what, j, rvt_ing_last_addr(r), r->mem_addr, t->index, pc, t->addr);
    }
    /* every decoded data instruction has its access or a lost note */
    unsigned missing = 0;
    uint64_t first_missing = 0;
    for (size_t i = 0; i < d->npc; i++)
        if (traced_data_insn(img, d->pc[i]) && !noted[i] && !missing++)
            first_missing = i;
    CHECK_MSG(!missing, "%s: %u decoded data instructions without a note, the first #%" PRIu64 " at 0x%" PRIx64,
              what, missing, first_missing, missing ? d->pc[first_missing] : 0);
    CHECK_MSG(checked > 100 || !values, "%s: only %u tagged accesses checked", what, checked);
    if (expect_loss)
        CHECK_MSG(d->gaps + d->errors > 0, "%s: bytes lost but no gap reported", what);
    if (getenv("ET_VERBOSE"))
        printf("%-34s %6zu insns %6u accesses (%u checked) %4u lost %4u without instruction, %u gaps\n", what, d->npc,
               attached, checked, lost, orphans, d->gaps);
    free(noted);
}

static void decode(void *cfg, const struct rvt_image *img, const uint8_t *buf, size_t len, struct dec *d)
{
    memset(d, 0, sizeof *d);
    d->bc = rvt_bcache_new(img, 0);
    d->xlen = rvt_img_xlen(img);
    struct rvt_flow_sink fs = {.block = on_block, .note = on_note, .ctx = d};
    struct rvt_diag dg = {0};
    CHECK_MSG(rvt_decode_buffer(&rvt_codec_etrace, cfg, img, RVT_FLOW_ECALL_TRAP, buf, len, &fs, &dg) == 0,
              "decode: %s", dg.msg);
    rvt_bcache_free(d->bc);
}

static void dec_free(struct dec *d)
{
    free(d->pc);
    free(d->v);
}

static void run(const char *name, const char *const *opts, unsigned xlen, unsigned seed)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = seed;
    gc.xlen = xlen;
    gc.insns = 40000;
    gc.features = RVT_GEN_ALL_FEATURES;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_gen_program_new(&prog, &gc, &d) == 0);
    struct recs rc = {0};
    REQUIRE(rvt_gen_run_ex(prog, &gc, false, put_rec, &rc, &d) == 0);
    for (size_t j = 0; j < rc.n; j++)
        if ((rc.r[j].flags & RVT_ING_HAS_MEMVAL) && rc.r[j].mem_size >= 4 && !(rc.r[j].flags & RVT_ING_HAS_DTYPE))
            rc.r[j].mem_value = TAG + j; /* a tag: which access this is */
    struct rvt_image *img = rvt_gen_image(prog);
    char err[700];
    void *cfg = rt_config(opts, xlen, img, err, sizeof err);
    REQUIRE(cfg);
    const struct et_params *p = &((struct et_config *)cfg)->p;

    /* the whole trace, then refusal windows, then cuts */
    struct { uint64_t from, to; } win[] = {{0, 0}, {200, 260}, {1000, 1003}, {2500, 2900}, {4000, 4001}};
    for (size_t w = 0; w < sizeof win / sizeof win[0]; w++) {
        struct tsink s = {.from = win[w].from, .to = win[w].to};
        rvt_membuf_init(&s.mb);
        struct rvt_byte_sink sink = {tsink_write, &s};
        void *enc;
        REQUIRE(rvt_codec_etrace.enc_new(&enc, cfg, &sink, &d) == 0);
        int r = 0;
        for (size_t i = 0; i < rc.n && !r; i++)
            r = rvt_codec_etrace.enc_put(enc, &rc.r[i]);
        if (!r)
            r = rvt_codec_etrace.enc_finish(enc);
        CHECK_MSG(r == 0, "%s: encode: %s", name, rvt_codec_etrace.enc_error(enc));
        struct rvt_codec_stats st;
        rvt_codec_etrace.enc_stats(enc, &st);
        rvt_codec_etrace.enc_free(enc);
        char what[96];
        snprintf(what, sizeof what, "%s rv%u refuse %" PRIu64 "..%" PRIu64, name, xlen, win[w].from, win[w].to);
        struct dec dd;
        decode(cfg, img, s.mb.data, s.mb.len, &dd);
        check(what, &rc, img, &dd, st.lost > 0, true);
        if (!st.lost)
            CHECK_MSG(dd.gaps == 0 && dd.errors == 0, "%s: gaps without loss", what);
        dec_free(&dd);
        if (w == 0) {
            /* cut anywhere: a wrapped RAM keeps the newest bytes (encap
             * finds its way in at a synchronisation sequence; refraw at a
             * sync packet) */
            for (size_t cut = s.mb.len / 7; cut < s.mb.len; cut += s.mb.len / 5) {
                snprintf(what, sizeof what, "%s rv%u from byte %zu", name, xlen, cut);
                decode(cfg, img, s.mb.data + cut, s.mb.len - cut, &dd);
                check(what, &rc, img, &dd, false, true);
                dec_free(&dd);
            }
            /* damage: flip one bit inside data packets, one at a time */
            struct et_deframer df;
            et_deframer_init(&df, p, s.mb.data, s.mb.len);
            struct et_frame fr;
            unsigned flips = 0;
            while (et_deframer_next(&df, &fr, &d) > 0 && flips < 12) {
                if (!fr.is_data || (fr.offset % 97) != 0)
                    continue;
                uint8_t *copy = malloc(s.mb.len);
                memcpy(copy, s.mb.data, s.mb.len);
                copy[fr.offset + fr.size - 1] ^= 0x10;
                snprintf(what, sizeof what, "%s rv%u bit flip at 0x%" PRIx64, name, xlen, fr.offset + fr.size - 1);
                decode(cfg, img, copy, s.mb.len, &dd);
                /* a damaged value may decode to a wrong value: what must hold
                 * is that every data instruction still gets a note */
                check(what, &rc, img, &dd, false, false);
                dec_free(&dd);
                free(copy);
                flips++;
            }
        }
        rvt_membuf_free(&s.mb);
    }
    rvt_codec_cfg_free(cfg);
    free(rc.r);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

int main(void)
{
    static const char *const plain[] = {"data-trace", "on", NULL};
    static const char *const refraw[] = {"data-trace", "on", "framing", "refraw", "resync-max", "2", NULL};
    static const char *const split[] = {"data-trace", "on", "data_split_p", "1", "lrid_width_p", "2",
                                        "data-split-lag", "3", "encap-sync", "512", NULL};
    static const char *const best[] = {"data-trace", "on", "data-compress", "best", "data-trim", "1",
                                       "resync-max", "1", NULL};
    for (unsigned x = 0; x < 2; x++) {
        unsigned xlen = x ? 64 : 32;
        run("encap", plain, xlen, 3 + x);
        run("refraw", refraw, xlen, 5 + x);
        run("split", split, xlen, 7 + x);
        run("best", best, xlen, 9 + x);
    }
    return rvt_test_summary("test_et_data_loss");
}

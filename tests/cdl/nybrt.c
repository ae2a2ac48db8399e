/* Round-trip helpers for the nybble families: see nybrt.h. */
#include "nybrt.h"
#include "rvtrace/gen.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void nrt_exec_free(struct nrt_exec *x)
{
    free(x->recs);
    memset(x, 0, sizeof *x);
}

int nrt_exec_push(struct nrt_exec *x, const struct rvt_ing_rec *r)
{
    if (x->n == x->cap) {
        size_t nc = x->cap ? 2 * x->cap : 4096;
        struct rvt_ing_rec *p = realloc(x->recs, nc * sizeof *p);
        if (!p)
            return -RVT_ERR_NOMEM;
        x->recs = p;
        x->cap = nc;
    }
    x->recs[x->n++] = *r;
    return 0;
}

int nrt_exec_keep(void *x, const struct rvt_ing_rec *r)
{
    return nrt_exec_push(x, r);
}

struct rvt_image *nrt_exec_gen(struct nrt_exec *x, unsigned xlen, uint32_t features, uint64_t seed, bool merge,
                               uint64_t insns, char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.xlen = xlen;
    gc.seed = seed;
    gc.insns = insns;
    gc.features = features;
    struct rvt_gen_program *g;
    struct rvt_diag d = {0};
    if (rvt_gen_program_new(&g, &gc, &d) < 0) {
        errf(err, errlen, "gen seed %" PRIu64 ": %s", seed, d.msg);
        return NULL;
    }
    struct rvt_image *img = rvt_gen_image(g);
    int rc = rvt_gen_run_ex(g, &gc, merge, nrt_exec_keep, x, &d);
    rvt_gen_program_free(g);
    if (rc < 0 || !img) {
        errf(err, errlen, "gen seed %" PRIu64 " run: %s", seed, d.msg);
        rvt_img_free(img);
        nrt_exec_free(x);
        return NULL;
    }
    return img;
}

struct rvt_image *nrt_load(const char *rel)
{
    char *p = rvt_test_data(rel);
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, p) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", rvt_img_error(img));
        rvt_img_free(img);
        img = NULL;
    }
    free(p);
    return img;
}

uint64_t nrt_sym(const struct rvt_image *img, const char *name)
{
    const struct rvt_symbol *s = rvt_img_symbol_named(img, name);
    if (!s)
        rvt_test_fail(__FILE__, __LINE__, "no symbol %s", name);
    return s ? s->addr : 0;
}

/* ---- executions ------------------------------------------------------------- */

struct build {
    struct nrt_exec *x;
    struct rvt_ing_builder *b;
    const struct rvt_image *img;
    unsigned xlen;
    uint64_t seed, time;
    unsigned extra;
    int failed;
};

static int keep(void *ctx, const struct rvt_ing_rec *r)
{
    struct build *bd = ctx;
    struct nrt_exec *x = bd->x;
    if (nrt_exec_push(x, r) < 0)
        return -RVT_ERR_NOMEM;
    if (bd->extra & NRT_HARTS)
        x->recs[x->n - 1].hart = (uint16_t)(((x->n - 1) / 700) % 3);
    return 0;
}

/* Side data for the instruction at pc, as a hart would report it. */
static void extra_for(struct build *bd, uint64_t pc, struct rvt_ing_extra *e)
{
    memset(e, 0, sizeof *e);
    uint64_t mask = bd->xlen == 32 ? 0xffffffffull : ~0ull;
    if (bd->extra & NRT_TIME) {
        bd->time += 1 + rng(&bd->seed) % 3;
        e->flags |= RVT_ING_HAS_TIME;
        e->time = bd->time;
    }
    if (bd->extra & NRT_TRACEPOINTS && rng(&bd->seed) % 37 == 0) {
        e->flags |= RVT_ING_TRACEPOINT;
        e->tp_type = (uint8_t)(rng(&bd->seed) & 15);
    }
    if (!(bd->extra & NRT_DATA))
        return;
    struct rvt_insn in;
    if (rvt_img_insn(bd->img, pc, &in) < 0)
        return;
    uint64_t r = rng(&bd->seed);
    /* Values of every magnitude: small, negative, pointer-like, full. */
    uint64_t v;
    switch (r % 5) {
    case 0:
        v = r >> 60;
        break;
    case 1:
        v = (uint64_t) - (int64_t)(r >> 58);
        break;
    case 2:
        v = 0x80000000ull + ((r >> 20) & 0xfff8);
        break;
    case 3:
        v = r;
        break;
    default:
        v = 0;
        break;
    }
    v &= mask;
    if (in.flags & RVT_IF_WRITES_RD) {
        e->flags |= RVT_ING_HAS_RD;
        e->rd = (uint8_t)(in.rd + ((in.flags & RVT_IF_FP_RD) ? 32 : 0));
        e->rd_value = v;
    }
    if (in.flags & (RVT_IF_LOAD | RVT_IF_STORE)) {
        e->flags |= RVT_ING_HAS_MEM | RVT_ING_HAS_MEMVAL;
        if (!(in.flags & RVT_IF_LOAD))
            e->flags |= RVT_ING_MEM_STORE;
        e->mem_size = in.mem_size ? in.mem_size : 4;
        /* Addresses walk around a few regions: nearby and far jumps. */
        uint64_t base = (r >> 8) % 4 == 0 ? 0x80000000ull : 0x10000ull;
        e->mem_addr = (base + ((rng(&bd->seed) >> 40) & ~(uint64_t)(e->mem_size - 1))) & mask;
        e->mem_value = rng(&bd->seed) & (e->mem_size >= 8 ? ~0ull : ((1ull << (8 * e->mem_size)) - 1)) & mask;
    }
}

static int insn(struct build *bd, uint64_t pc, uint8_t priv)
{
    struct rvt_ing_extra e;
    extra_for(bd, pc, &e);
    return rvt_ing_builder_insn(bd->b, pc, -1, priv, 0, &e);
}

static int start_build(struct build *bd, struct nrt_exec *x, const struct rvt_image *img, unsigned xlen,
                       uint64_t seed, unsigned extra)
{
    memset(x, 0, sizeof *x);
    memset(bd, 0, sizeof *bd);
    bd->x = x;
    bd->img = img;
    bd->xlen = xlen;
    bd->seed = seed | 1;
    bd->extra = extra;
    struct rvt_ing_builder_config bc = {.size = sizeof bc, .image = img, .xlen = xlen, .emit = keep, .emit_ctx = bd};
    bd->b = rvt_ing_builder_new(&bc);
    return bd->b ? 0 : -1;
}

static int end_build(struct build *bd, int rc, char *err, size_t errlen)
{
    if (rc >= 0)
        rc = rvt_ing_builder_finish(bd->b);
    if (rc < 0)
        errf(err, errlen, "builder: %s", rvt_ing_builder_error(bd->b));
    bd->x->insns = rvt_ing_builder_insns(bd->b);
    rvt_ing_builder_free(bd->b);
    return rc;
}

int nrt_exec_flowtest(const struct rvt_image *img, unsigned xlen, unsigned iters, uint64_t seed, unsigned extra,
                      struct nrt_exec *x, char *err, size_t errlen)
{
    struct build bd;
    if (start_build(&bd, x, img, xlen, seed, extra) < 0) {
        errf(err, errlen, "builder");
        return -1;
    }
    uint64_t s = nrt_sym(img, "_start"), loop = nrt_sym(img, "loop"), cs = nrt_sym(img, "call_site"),
             leaf = nrt_sym(img, "leaf"), al = nrt_sym(img, "after_leaf"), si = nrt_sym(img, "si_target"),
             it = nrt_sym(img, "indirect_target"), sc = nrt_sym(img, "sicall_target"),
             as = nrt_sym(img, "after_sicall"), ae = nrt_sym(img, "after_ecall"), tail = nrt_sym(img, "tail");
    uint64_t body[32];
    unsigned n = 0;
    body[n++] = s;
    for (int i = 0; i < 3; i++) {
        body[n++] = loop;
        body[n++] = loop + 4;
    }
    body[n++] = loop + 8;
    body[n++] = cs;
    body[n++] = leaf;
    body[n++] = leaf + 2;
    body[n++] = al;
    body[n++] = si - 4;
    body[n++] = si;
    body[n++] = si + 4;
    body[n++] = si + 8;
    body[n++] = it;
    body[n++] = it + 4;
    body[n++] = sc;
    int rc = 0;
    uint64_t r = seed | 1;
    for (unsigned k = 0; k < iters && rc >= 0; k++) {
        for (unsigned i = 0; i < n && rc >= 0; i++) {
            /* An interrupt before this instruction: the handler (an mret)
             * returns to it. */
            if (!(extra & NRT_NO_INTERRUPTS) && rng(&r) % 23 == 0) {
                rc = rvt_ing_builder_trap(bd.b, true, 7, 0, body[i]);
                if (rc >= 0)
                    rc = insn(&bd, tail, RVT_PRIV_M);
            }
            if (rc >= 0)
                rc = insn(&bd, body[i], RVT_PRIV_U);
        }
        if (rc < 0)
            break;
        /* ecall traps: handler mret -> after_ecall -> j tail -> mret -> _start */
        rc = rvt_ing_builder_trap(bd.b, false, 8, 0, as);
        if (rc >= 0)
            rc = insn(&bd, tail, RVT_PRIV_M);
        if (rc >= 0)
            rc = insn(&bd, ae, RVT_PRIV_U);
        if (rc >= 0)
            rc = insn(&bd, tail, RVT_PRIV_M);
    }
    return end_build(&bd, rc, err, errlen);
}

int nrt_exec_pclist(const char *path, const struct rvt_image *img, uint64_t seed, unsigned extra,
                    struct nrt_exec *x, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        errf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    struct build bd;
    if (start_build(&bd, x, img, rvt_img_xlen(img), seed, extra) < 0) {
        fclose(f);
        errf(err, errlen, "builder");
        return -1;
    }
    char line[64];
    int rc = 0;
    while (rc >= 0 && fgets(line, sizeof line, f))
        rc = insn(&bd, strtoull(line, NULL, 16), RVT_PRIV_M);
    fclose(f);
    return end_build(&bd, rc, err, errlen);
}

int nrt_exec_file(const char *path, const struct rvt_image *img, struct nrt_exec *x, char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .image = img};
    struct rvt_ing_reader *r;
    struct rvt_diag d = {0};
    if (rvt_ing_open(&r, path, &rc, &d) < 0) {
        errf(err, errlen, "%s", d.msg);
        return -1;
    }
    struct build bd = {.x = x};
    struct rvt_ing_rec rec;
    int n;
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    while ((n = rvt_ing_next(r, &rec)) > 0) {
        uint64_t k = 0;
        if (rvt_ing_count_insns(&rec, bc, &k) < 0 || keep(&bd, &rec) < 0) {
            n = -1;
            break;
        }
        x->insns += k;
    }
    if (n < 0)
        errf(err, errlen, "%s: %s", path, rvt_ing_error(r));
    rvt_bcache_free(bc);
    rvt_ing_close(r);
    return n < 0 ? -1 : 0;
}

/* ---- expectations ------------------------------------------------------------ */

struct pcvec {
    uint64_t *p;
    size_t n, cap;
};

static int push_pc(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct pcvec *v = ctx;
    if (v->n == v->cap) {
        size_t nc = v->cap ? 2 * v->cap : 4096;
        uint64_t *p = realloc(v->p, nc * sizeof *p);
        if (!p)
            return -RVT_ERR_NOMEM;
        v->p = p;
        v->cap = nc;
    }
    v->p[v->n++] = pc;
    return 0;
}

uint64_t *nrt_expected_pcs(const struct nrt_exec *x, const struct rvt_image *img, unsigned xlen, size_t *n)
{
    struct pcvec v = {0};
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    for (size_t i = 0; i < x->n; i++) {
        const struct rvt_ing_rec *r = &x->recs[i];
        if (!r->iretire || (r->flags & RVT_ING_UNQUALIFIED))
            continue;
        uint64_t k;
        if (rvt_ing_count_insns(r, bc, &k) < 0)
            break;
        struct rvt_block b = {.start = r->iaddr, .ninsns = k};
        if (rvt_block_insns(bc, xlen, &b, push_pc, &v) != 0)
            break;
    }
    rvt_bcache_free(bc);
    *n = v.n;
    return v.p;
}

static void push_item(struct nrt_item **items, size_t *n, size_t *cap, uint8_t kind, uint64_t addr, uint64_t value,
                      uint64_t index, uint8_t size)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        *items = realloc(*items, *cap * sizeof **items);
        if (!*items)
            abort();
    }
    (*items)[(*n)++] = (struct nrt_item){kind, addr, value, index, size};
}

size_t nrt_expected_data(const struct nrt_exec *x, const struct rvt_image *img, unsigned xlen, struct nrt_item **out)
{
    struct nrt_item *items = NULL;
    size_t n = 0, cap = 0;
    uint64_t mask = xlen == 32 ? 0xffffffffull : ~0ull, index = 0;
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    for (size_t i = 0; i < x->n; i++) {
        const struct rvt_ing_rec *r = &x->recs[i];
        if (!r->iretire || (r->flags & RVT_ING_UNQUALIFIED))
            continue;
        uint64_t k = 0;
        rvt_ing_count_insns(r, bc, &k);
        index += k;
        uint64_t at = index - 1;
        /* Values at their full width: integer registers and addresses are
         * XLEN wide, f registers 64 bits (also on RV32), memory data as
         * wide as the access (8 bytes for fld/fsd on RV32). */
        if (r->flags & RVT_ING_HAS_RD)
            push_item(&items, &n, &cap, RVT_DATA_REG_WRITE, r->rd, r->rd < 32 ? r->rd_value & mask : r->rd_value, at,
                      0);
        if (r->flags & RVT_ING_HAS_MEM) {
            bool st = r->flags & RVT_ING_MEM_STORE;
            push_item(&items, &n, &cap, st ? RVT_DATA_STORE_ADDR : RVT_DATA_LOAD_ADDR, 0, r->mem_addr & mask, at, 0);
            if (r->flags & RVT_ING_HAS_MEMVAL)
                push_item(&items, &n, &cap, st ? RVT_DATA_STORE_VALUE : RVT_DATA_LOAD_VALUE, 0, r->mem_value, at,
                          r->mem_size);
        }
        if (r->flags & RVT_ING_TRACEPOINT)
            push_item(&items, &n, &cap, RVT_DATA_TRACEPOINT, 0, r->tp_type, at, 0);
    }
    rvt_bcache_free(bc);
    *out = items;
    return n;
}

/* ---- encode / decode ----------------------------------------------------------- */

int nrt_cfg(const struct rvt_codec *c, void **cfgp, const char *const *opts, unsigned xlen,
            const struct rvt_image *img, char *err, size_t errlen)
{
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    /* The test programs write 64-bit values (RV64, and f registers on
     * RV32D): cdl records them with the wide extension unless a test asks
     * for the seed's lengths (test_cdl_roundtrip checks both). */
    if (strcmp(c->name, "cdl") == 0)
        c->cfg_set(cfg, "cdl-data", "wide", &d);
    for (size_t i = 0; opts && opts[i]; i += 2) {
        if (c->cfg_set(cfg, opts[i], opts[i + 1], &d) < 0) {
            errf(err, errlen, "%s", d.msg);
            rvt_codec_cfg_free(cfg);
            return -1;
        }
    }
    if (c->cfg_finish(cfg, xlen, img, &d) < 0) {
        errf(err, errlen, "%s", d.msg);
        rvt_codec_cfg_free(cfg);
        return -1;
    }
    *cfgp = cfg;
    return 0;
}

int nrt_encode(const struct rvt_codec *c, const void *cfg, const struct nrt_exec *x, struct nrt_enc *e, char *err,
               size_t errlen)
{
    rvt_membuf_init(&e->out);
    struct rvt_byte_sink sink = rvt_membuf_sink(&e->out);
    void *enc;
    struct rvt_diag d = {0};
    if (c->enc_new(&enc, cfg, &sink, &d) < 0) {
        errf(err, errlen, "enc_new: %s", d.msg);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < x->n && rc >= 0; i++)
        if ((rc = c->enc_put(enc, &x->recs[i])) < 0)
            errf(err, errlen, "record %zu: %s", i, c->enc_error(enc));
    if (rc >= 0 && (rc = c->enc_finish(enc)) < 0)
        errf(err, errlen, "finish: %s", c->enc_error(enc));
    c->enc_stats(enc, &e->st);
    c->enc_free(enc);
    return rc;
}

struct dctx {
    struct nrt_dec *d;
    struct rvt_bcache *bc;
    unsigned xlen;
    struct pcvec v;
    struct pcvec offs; /* trace offset of the block of each decoded PC */
    struct pcvec segs; /* decoded PC index at each resynchronisation */
};

static void note_offsets(struct dctx *c, size_t from, uint64_t off)
{
    while (c->offs.n < c->v.n)
        if (push_pc(&c->offs, off, NULL))
            return;
    (void)from;
}

static int expand_block(struct dctx *c, const struct rvt_block *b);

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct dctx *c = ctx;
    size_t from = c->v.n;
    int rc = expand_block(c, b);
    note_offsets(c, from, b->trace_offset);
    return rc;
}

static int expand_block(struct dctx *c, const struct rvt_block *b)
{
    c->d->blocks++;
    if (b->end == RVT_END_TRAP)
        c->d->traps++;
    if (!(b->flags & RVT_BLK_COUNT_UNKNOWN)) {
        /* Blocks rebuilt without code from damaged trace may name
         * addresses without code: counted, not fatal. */
        if (rvt_block_insns(c->bc, c->xlen, b, push_pc, &c->v))
            c->d->bad_blocks++;
        return 0;
    }
    /* Without a count: from start up to last (or up to the end address a
     * block with an unknown last instruction holds in `last`). */
    c->d->nocount_blocks++;
    uint64_t pc = b->start;
    bool incl = !(b->flags & RVT_BLK_LAST_UNKNOWN);
    for (unsigned guard = 0; guard < (1u << 20); guard++) {
        if (!incl && pc == b->last)
            return 0;
        struct rvt_insn in;
        if (rvt_img_insn(rvt_bcache_image(c->bc), pc, &in) < 0 || !in.len || push_pc(&c->v, pc, b)) {
            c->d->bad_blocks++;
            return 0;
        }
        if (incl && pc == b->last)
            return 0;
        pc += in.len;
    }
    c->d->bad_blocks++;
    return 0;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct dctx *c = ctx;
    struct nrt_dec *d = c->d;
    if (n->kind == RVT_NOTE_GAP || n->kind == RVT_NOTE_ERROR) {
        if (d->ngapv == d->capgapv) {
            d->capgapv = d->capgapv ? 2 * d->capgapv : 64;
            d->gapv = realloc(d->gapv, d->capgapv * sizeof *d->gapv);
            if (!d->gapv)
                return 1;
        }
        d->gapv[d->ngapv++] = (struct nrt_gap){n->kind == RVT_NOTE_ERROR ? RVT_GAP_ERROR : n->reason, n->offset, c->v.n};
    }
    switch (n->kind) {
    case RVT_NOTE_SYNC:
        d->syncs++;
        if (push_pc(&c->segs, c->v.n, NULL))
            return 1;
        break;
    case RVT_NOTE_TRAP:
        d->traps++;
        break;
    case RVT_NOTE_ERROR:
        d->errors++;
        if (!d->first_error[0])
            snprintf(d->first_error, sizeof d->first_error, "%s", n->text ? n->text : "?");
        break;
    case RVT_NOTE_GAP:
        d->gaps++;
        if (n->reason < 8)
            d->gap_reasons[n->reason]++;
        snprintf(d->last_gap, sizeof d->last_gap, "%s", n->text ? n->text : "?");
        break;
    case RVT_NOTE_TIME:
    case RVT_NOTE_DATA:
        if (d->ndata == d->capd) {
            d->capd = d->capd ? 2 * d->capd : 1024;
            d->data = realloc(d->data, d->capd * sizeof *d->data);
            if (!d->data)
                return 1;
        }
        d->data[d->ndata++] =
            (struct nrt_item){n->kind == RVT_NOTE_TIME ? NRT_KIND_TIME : n->reason, n->addr, n->value, n->index, 0};
        break;
    default:
        break;
    }
    return 0;
}

void nrt_dec_free(struct nrt_dec *d)
{
    free(d->segs);
    free(d->offs);
    free(d->pcs);
    free(d->data);
    free(d->gapv);
    memset(d, 0, sizeof *d);
}

int nrt_decode(const struct rvt_codec *c, const void *cfg, const struct rvt_image *dec_img,
               const struct rvt_image *ref_img, unsigned xlen, int ecall, const uint8_t *buf, size_t len,
               struct nrt_dec *d)
{
    memset(d, 0, sizeof *d);
    struct dctx ctx = {.d = d, .bc = rvt_bcache_new(ref_img, 0), .xlen = xlen};
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = &ctx};
    struct rvt_diag dg = {0};
    d->rc = rvt_decode_buffer(c, cfg, dec_img, ecall, buf, len, &sink, &dg);
    snprintf(d->msg, sizeof d->msg, "%s", dg.msg);
    d->pcs = ctx.v.p;
    d->npcs = ctx.v.n;
    d->offs = ctx.offs.p;
    d->segs = ctx.segs.p;
    d->nsegs = ctx.segs.n;
    rvt_bcache_free(ctx.bc);
    return d->rc;
}

bool nrt_same_pcs(const uint64_t *exp, size_t nexp, const uint64_t *got, size_t ngot, bool suffix, char *why,
                  size_t whylen)
{
    if (ngot > nexp || (!suffix && ngot != nexp)) {
        errf(why, whylen, "decoded %zu instructions, expected %s%zu", ngot, suffix ? "at most " : "", nexp);
        if (ngot != nexp && !suffix) {
            size_t m = ngot < nexp ? ngot : nexp;
            for (size_t i = 0; i < m; i++)
                if (exp[i] != got[i]) {
                    errf(why, whylen, "decoded %zu instructions, expected %zu; first difference at #%zu: 0x%" PRIx64
                                      " != 0x%" PRIx64,
                         ngot, nexp, i, got[i], exp[i]);
                    break;
                }
        }
        return false;
    }
    const uint64_t *e = exp + (nexp - ngot);
    for (size_t i = 0; i < ngot; i++)
        if (e[i] != got[i]) {
            errf(why, whylen, "instruction #%zu%s: decoded 0x%" PRIx64 ", expected 0x%" PRIx64, i,
                 suffix ? " of the tail" : "", got[i], e[i]);
            return false;
        }
    return true;
}

/* ---- programs and checks shared by the family tests ----------------------------- */

void nrt_prog_free(struct nrt_prog *p)
{
    nrt_exec_free(&p->x);
    free(p->pcs);
    free(p->data);
    rvt_img_free(p->img);
}

bool nrt_prog_flowtest(struct nrt_prog *p, const char *elf, unsigned xlen, unsigned iters, unsigned extra)
{
    memset(p, 0, sizeof *p);
    p->name = elf;
    p->img = nrt_load(elf);
    p->xlen = xlen;
    char err[256];
    if (!p->img || nrt_exec_flowtest(p->img, xlen, iters, 0x5eed + xlen, extra, &p->x, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: %s", elf, err);
        return false;
    }
    p->pcs = nrt_expected_pcs(&p->x, p->img, xlen, &p->npcs);
    p->ndata = nrt_expected_data(&p->x, p->img, xlen, &p->data);
    p->ecall = "trap"; /* its ecall raises an exception */
    return p->npcs == p->x.insns;
}

bool nrt_prog_pclist(struct nrt_prog *p, const char *elf, const char *list, unsigned extra)
{
    memset(p, 0, sizeof *p);
    p->name = list;
    p->img = nrt_load(elf);
    char err[256];
    char *path = rvt_test_data(list);
    int rc = p->img ? nrt_exec_pclist(path, p->img, 77, extra, &p->x, err, sizeof err) : -1;
    free(path);
    if (rc < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: %s", list, err);
        return false;
    }
    p->xlen = rvt_img_xlen(p->img);
    p->pcs = nrt_expected_pcs(&p->x, p->img, p->xlen, &p->npcs);
    p->ndata = nrt_expected_data(&p->x, p->img, p->xlen, &p->data);
    return true;
}

/* Encode and decode with the options; returns the decode (caller frees). */
bool nrt_run(const struct rvt_codec *codec, const struct nrt_prog *p, const char *const *opts, bool nocode, struct nrt_enc *enc, struct nrt_dec *dec,
                void **cfgp)
{
    char err[512];
    void *cfg;
    const char *all[64];
    size_t n = 0;
    if (p->ecall) {
        all[n++] = "ecall";
        all[n++] = p->ecall;
    }
    for (size_t i = 0; opts && opts[i] && n + 2 < sizeof all / sizeof all[0]; i++)
        all[n++] = opts[i];
    all[n] = NULL;
    /* The encoder always has the program; the decoder works without code
     * when the flow engine's image is empty (see below). */
    if (nrt_cfg(codec, &cfg, all, p->xlen, p->img, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: cfg: %s", p->name, err);
        return false;
    }
    if (nrt_encode(codec, cfg, &p->x, enc, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: encode: %s", p->name, err);
        rvt_codec_cfg_free(cfg);
        return false;
    }
    struct rvt_image *empty = NULL;
    if (nocode) {
        empty = rvt_img_new();
        rvt_img_set_xlen(empty, p->xlen);
    }
    nrt_decode(codec, cfg, nocode ? empty : p->img, p->img, p->xlen, -1, enc->out.data, enc->out.len, dec);
    rvt_img_free(empty);
    if (cfgp)
        *cfgp = cfg;
    else
        rvt_codec_cfg_free(cfg);
    return true;
}

const char *nrt_opts_desc(const char *const *opts, char *buf, size_t n)
{
    buf[0] = 0;
    for (size_t i = 0; opts[i]; i += 2) {
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "--%s %s ", opts[i], opts[i + 1]);
    }
    return buf;
}

/* Decoded data of `kind` equal to the expected ones (indices too when
 * with_index). */
void nrt_check_data(const struct nrt_prog *p, const struct nrt_dec *d, uint8_t kind, bool with_index, const char *what)
{
    size_t j = 0, n = 0;
    for (size_t i = 0; i < p->ndata; i++) {
        if (p->data[i].kind != kind)
            continue;
        n++;
        while (j < d->ndata && d->data[j].kind != kind)
            j++;
        if (j >= d->ndata) {
            rvt_test_fail(__FILE__, __LINE__, "%s: %s: only %zu of the data values of kind %u decoded", p->name, what,
                          n - 1, kind);
            return;
        }
        const struct nrt_item *e = &p->data[i], *g = &d->data[j++];
        /* A memory value carries the access's bits (a trace may extend
         * them, e.g. dbg's sign extension); every one of them must be there. */
        uint64_t m = e->size && e->size < 8 ? (1ull << (8 * e->size)) - 1 : ~0ull;
        if ((e->value & m) != (g->value & m) || e->addr != g->addr || (with_index && e->index != g->index)) {
            rvt_test_fail(__FILE__, __LINE__,
                          "%s: %s: value #%zu of kind %u: decoded (r%" PRIu64 ", 0x%" PRIx64 ", insn %" PRIu64
                          "), expected (r%" PRIu64 ", 0x%" PRIx64 ", insn %" PRIu64 ")",
                          p->name, what, n - 1, kind, g->addr, g->value, g->index, e->addr, e->value, e->index);
            return;
        }
    }
    while (j < d->ndata && d->data[j].kind != kind)
        j++;
    CHECK_MSG(j == d->ndata, "%s: %s: more values of kind %u decoded than expected", p->name, what, kind);
    CHECK_MSG(n > 0, "%s: %s: the execution has no values of kind %u", p->name, what, kind);
}


bool nrt_holes_ok(const uint64_t *exp, size_t nexp, const uint64_t *got, size_t ngot, size_t junk_budget,
                  size_t *runs, size_t *junk, char *why, size_t whylen)
{
    enum { K = 16 };
    size_t i = 0, j = 0, r = 0, bad = 0;
    while (j < ngot) {
        /* The next run: K decoded instructions (or the rest) that appear in
         * order at or after the current point of the execution. */
        size_t k = ngot - j < K ? ngot - j : K;
        size_t found = SIZE_MAX;
        for (size_t a = i; a + k <= nexp && found == SIZE_MAX; a++)
            if (exp[a] == got[j] && memcmp(exp + a, got + j, k * sizeof *exp) == 0)
                found = a;
        if (found == SIZE_MAX) {
            bad++; /* decoded but not executed here: damage not yet detected */
            j++;
            continue;
        }
        r++;
        i = found;
        while (j < ngot && i < nexp && exp[i] == got[j]) {
            i++;
            j++;
        }
    }
    if (runs)
        *runs = r;
    if (junk)
        *junk = bad;
    if (bad > junk_budget) {
        errf(why, whylen, "%zu decoded instructions are not part of the execution (at most %zu allowed)", bad,
             junk_budget);
        return false;
    }
    return true;
}

void nrt_match_clean(const struct nrt_dec *clean, const struct nrt_dec *dmg, size_t *good, size_t *junk,
                     uint8_t *is_junk)
{
    size_t c = 0, g = 0, bad = 0;
    for (size_t j = 0; j < dmg->npcs; j++) {
        uint64_t off = dmg->offs[j];
        while (c < clean->npcs && clean->offs[c] < off)
            c++;
        size_t k = c;
        while (k < clean->npcs && clean->offs[k] == off && clean->pcs[k] != dmg->pcs[j])
            k++;
        if (is_junk)
            is_junk[j] = !(k < clean->npcs && clean->offs[k] == off);
        if (k < clean->npcs && clean->offs[k] == off) {
            g++;
            c = k + 1; /* later instructions of the block come after it */
            while (c > 0 && c < clean->npcs && clean->offs[c] != off && clean->offs[c - 1] == off)
                break;
        } else {
            bad++;
        }
    }
    *good = g;
    *junk = bad;
}

bool nrt_segments_ok(const uint64_t *exp, size_t nexp, const struct nrt_dec *d, size_t *segs, char *why, size_t whylen)
{
    size_t i = 0, n = 0;
    for (size_t k = 0; k <= d->nsegs; k++) {
        size_t from = k == 0 ? 0 : (size_t)d->segs[k - 1];
        size_t to = k < d->nsegs ? (size_t)d->segs[k] : d->npcs;
        if (to <= from)
            continue;
        size_t len = to - from, found = SIZE_MAX;
        for (size_t a = i; a + len <= nexp && found == SIZE_MAX; a++)
            if (exp[a] == d->pcs[from] && memcmp(exp + a, d->pcs + from, len * sizeof *exp) == 0)
                found = a;
        if (found == SIZE_MAX) {
            errf(why, whylen, "decoded segment %zu (%zu instructions from 0x%" PRIx64 ") is no later part of the "
                              "execution",
                 k, len, d->pcs[from]);
            return false;
        }
        i = found + len;
        n++;
    }
    if (segs)
        *segs = n;
    return true;
}

bool nrt_prog_gen(struct nrt_prog *p, unsigned xlen, uint32_t features, uint64_t seed, bool merge, uint64_t insns)
{
    memset(p, 0, sizeof *p);
    p->name = xlen == 32 ? (merge ? "gen32-merged" : "gen32") : (merge ? "gen64-merged" : "gen64");
    char err[600];
    if (!(p->img = nrt_exec_gen(&p->x, xlen, features, seed, merge, insns, err, sizeof err))) {
        rvt_test_fail(__FILE__, __LINE__, "%s", err);
        return false;
    }
    p->xlen = xlen;
    p->pcs = nrt_expected_pcs(&p->x, p->img, xlen, &p->npcs);
    p->x.insns = p->npcs;
    p->ndata = nrt_expected_data(&p->x, p->img, xlen, &p->data);
    p->ecall = "trap"; /* bare metal: ecall raises an exception */
    return p->npcs > insns / 2;
}

bool nrt_prog_real(struct nrt_prog *p)
{
    memset(p, 0, sizeof *p);
    p->name = "real/bzip2-9";
    char path[600], ing[600];
    if (!rvt_test_unxz("real/bzip2.xz", "bzip2", path, sizeof path) ||
        !rvt_test_unxz("real/bzip2-9.ing.xz", "bzip2-9.ing", ing, sizeof ing)) {
        printf("  (no xz: the bundled real capture is not used)\n");
        return false;
    }
    p->img = rvt_img_new();
    if (rvt_img_load_elf(p->img, path) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", rvt_img_error(p->img));
        return false;
    }
    p->xlen = rvt_img_xlen(p->img);
    char err[256];
    if (nrt_exec_file(ing, p->img, &p->x, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", err);
        return false;
    }
    p->pcs = nrt_expected_pcs(&p->x, p->img, p->xlen, &p->npcs);
    p->ndata = nrt_expected_data(&p->x, p->img, p->xlen, &p->data);
    return p->npcs == p->x.insns && p->npcs > 1000000;
}

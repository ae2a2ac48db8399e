/* N-Trace round trip: encode -> decode == input, for every mode and many
 * option combinations, on executions that exercise what real programs
 * rarely show in a short run: interrupts and exceptions (also nested, at
 * the first instruction of a handler, back to back), trap returns,
 * privilege and context changes, deep call chains (call-stack overflow),
 * returns that do not match their call (longjmp-like unwinding), ecall in
 * its three treatments, and sequentially inferable jumps.
 *
 * The executions are random but valid control flow over real code: the
 * reference program t1 (RV32IMAC) and the flow test programs (RV32/RV64),
 * plus a small trap handler added as raw code.  Data values do not matter
 * to a trace, only that each step is one the instruction can take; the
 * ingress builder checks every step against the code. */
#include "ntrace/ntrace.h"
#include "rvtrace/gen.h"
#include "rvtrace/rvtrace.h"
#include "roundtrip.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* ---- a random walk through real code ----------------------------------- */

enum ecall_kind { EC_SEQ, EC_UNINF, EC_TRAP };

struct walk_opts {
    unsigned irq_per_64k;     /* interrupt probability per instruction, /65536 */
    unsigned longjmp_pct;     /* returns that skip frames, percent */
    unsigned ctx_per_64k;     /* context changes */
    enum ecall_kind ecall;
    bool time;
    bool merge;
};

struct recs {
    struct rvt_ing_rec *r;
    size_t n, cap;
};

static int keep(void *ctx, const struct rvt_ing_rec *r)
{
    struct recs *x = ctx;
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 65536;
        x->r = realloc(x->r, x->cap * sizeof *x->r);
        if (!x->r)
            abort();
    }
    x->r[x->n++] = *r;
    return 0;
}

struct exec {
    const struct rvt_image *img;
    unsigned xlen;
    uint64_t mask, rng;
    struct rvt_ing_builder *b;
    uint64_t funcs[4096];
    size_t nfuncs;
    uint64_t handler;
    uint64_t shadow[256];
    unsigned sdepth;
    struct {
        uint64_t epc;
        uint8_t priv;
    } traps[32];
    unsigned tdepth;
    uint64_t pc, ctx, time;
    uint8_t priv;
    bool have_prev;
    struct rvt_insn prev;
};

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t random_func(struct exec *x)
{
    return x->funcs[rnd(&x->rng) % x->nfuncs];
}

static void shadow_push(struct exec *x, uint64_t a)
{
    if (x->sdepth == 256) {
        memmove(x->shadow, x->shadow + 1, 255 * sizeof x->shadow[0]);
        x->sdepth--;
    }
    x->shadow[x->sdepth++] = a;
}

static int take_trap(struct exec *x, bool interrupt, uint32_t cause, uint64_t epc, uint64_t resume)
{
    int rc = rvt_ing_builder_trap(x->b, interrupt, cause, 0, epc);
    if (rc < 0)
        return rc;
    if (x->tdepth < 32) {
        x->traps[x->tdepth].epc = resume;
        x->traps[x->tdepth++].priv = x->priv;
    }
    x->pc = x->handler;
    x->priv = RVT_PRIV_M;
    x->have_prev = false;
    return 0;
}

static int run_walk(struct exec *x, const struct walk_opts *o, size_t ninsns)
{
    int rc;
    for (size_t i = 0; i < ninsns; i++) {
        uint64_t r = rnd(&x->rng);
        if ((r & 0xffff) < o->irq_per_64k && x->tdepth < 30) {
            if ((rc = take_trap(x, true, 7, x->pc, x->pc)) < 0)
                return rc;
            continue;
        }
        struct rvt_insn in;
        if (rvt_img_insn(x->img, x->pc, &in) < 0 || !(in.flags & RVT_IF_VALID) || (in.len != 2 && in.len != 4)) {
            /* Illegal instruction (data in the text): the handler skips to
             * somewhere else. */
            if ((rc = take_trap(x, false, 2, x->pc, random_func(x))) < 0)
                return rc;
            continue;
        }
        uint64_t fall = rvt_isa_next_pc(&in, x->xlen);
        if ((in.cf == RVT_CF_ECALL || in.cf == RVT_CF_EBREAK) && (o->ecall == EC_TRAP || in.cf == RVT_CF_EBREAK)) {
            /* Environment calls that trap do not retire; the handler
             * returns after them. */
            uint32_t cause = in.cf == RVT_CF_EBREAK ? 3 : x->priv == RVT_PRIV_M ? 11 : x->priv == RVT_PRIV_S ? 9 : 8;
            if ((rc = take_trap(x, false, cause, x->pc, fall)) < 0)
                return rc;
            continue;
        }
        if (((r >> 16) & 0xffff) < o->ctx_per_64k)
            x->ctx++;
        struct rvt_ing_extra ex;
        memset(&ex, 0, sizeof ex);
        if (o->time) {
            x->time += 1 + ((r >> 32) & 3);
            ex.flags = RVT_ING_HAS_TIME;
            ex.time = x->time;
        }
        if ((rc = rvt_ing_builder_insn(x->b, x->pc, -1, x->priv, x->ctx, &ex)) < 0)
            return rc;

        uint64_t next = fall, t;
        bool sij = x->have_prev && rvt_cf_uninferable(in.cf) && in.cf != RVT_CF_TRAPRET &&
                   rvt_isa_sijump_target(&x->prev, &in, x->xlen, &t);
        switch (in.cf) {
        case RVT_CF_BRANCH: next = ((r >> 40) & 1) ? in.target : fall; break;
        case RVT_CF_CALL_INF:
            shadow_push(x, fall);
            next = in.target;
            break;
        case RVT_CF_JUMP_INF:
        case RVT_CF_OTHER_INF: next = in.target; break;
        case RVT_CF_CALL_UNINF:
            shadow_push(x, fall);
            next = random_func(x);
            break;
        case RVT_CF_JUMP_UNINF:
        case RVT_CF_OTHER_UNINF: next = random_func(x); break;
        case RVT_CF_COSWAP: {
            next = x->sdepth ? x->shadow[--x->sdepth] : random_func(x);
            shadow_push(x, fall);
            break;
        }
        case RVT_CF_RETURN:
            if (x->sdepth >= 3 && ((r >> 44) % 100) < o->longjmp_pct) {
                x->sdepth -= 1 + (unsigned)((r >> 52) % 2); /* skip one or two frames */
                next = x->shadow[--x->sdepth];
            } else if (x->sdepth) {
                next = x->shadow[--x->sdepth];
            } else {
                next = random_func(x);
            }
            break;
        case RVT_CF_TRAPRET:
            if (x->tdepth) {
                x->tdepth--;
                next = x->traps[x->tdepth].epc;
                x->priv = x->traps[x->tdepth].priv;
            } else {
                next = random_func(x);
                x->priv = RVT_PRIV_U;
            }
            break;
        default: break; /* sequential, and ecall that falls through */
        }
        if (sij)
            next = t;
        x->prev = in;
        x->have_prev = true;
        x->pc = next & x->mask;
    }
    return 0;
}

/* The handler: c.nop; addi a0,a0,1; beq a0,a1,+8; nop; mret. */
static const uint8_t g_handler[] = {0x01, 0x00, 0x13, 0x05, 0x15, 0x00, 0x63, 0x04, 0xb5, 0x00,
                                    0x13, 0x00, 0x00, 0x00, 0x73, 0x00, 0x20, 0x30};

static struct rvt_image *load_image(const char *rel, uint64_t handler)
{
    char *p = rvt_test_data(rel);
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, p) < 0 || rvt_img_add_raw(img, handler, g_handler, sizeof g_handler, "handler") < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s: %s", p, rvt_img_error(img));
        rvt_img_free(img);
        img = NULL;
    }
    free(p);
    return img;
}

static void make_exec(struct exec *x, const struct rvt_image *img, uint64_t handler, uint64_t seed)
{
    memset(x, 0, sizeof *x);
    x->img = img;
    x->xlen = rvt_img_xlen(img);
    x->mask = x->xlen == 32 ? 0xffffffffull : ~0ull;
    x->rng = seed | 1;
    x->handler = handler;
    for (size_t i = 0; i < rvt_img_symbol_count(img) && x->nfuncs < 4096; i++) {
        const struct rvt_symbol *s = rvt_img_symbol_index(img, i);
        struct rvt_insn in;
        if (s->is_func && rvt_img_insn(img, s->addr, &in) == 0 && (in.flags & RVT_IF_VALID))
            x->funcs[x->nfuncs++] = s->addr;
    }
    if (!x->nfuncs)
        x->funcs[x->nfuncs++] = rvt_img_entry(img);
    x->pc = x->funcs[0];
    x->priv = RVT_PRIV_U;
}

static bool generate(const struct rvt_image *img, uint64_t handler, uint64_t seed, const struct walk_opts *o, size_t n,
                     struct recs *out)
{
    struct exec x;
    make_exec(&x, img, handler, seed);
    struct rvt_ing_builder_config bc = {.size = sizeof bc,
                                        .image = img,
                                        .ecall_mode = o->ecall == EC_UNINF ? RVT_ECALL_UNINFERABLE : RVT_ECALL_SEQUENTIAL,
                                        .merge_blocks = o->merge,
                                        .emit = keep,
                                        .emit_ctx = out};
    x.b = rvt_ing_builder_new(&bc);
    out->n = 0;
    int rc = run_walk(&x, o, n);
    if (rc == 0)
        rc = rvt_ing_builder_finish(x.b);
    CHECK_MSG(rc == 0, "walk seed %llu: %s", (unsigned long long)seed, rvt_ing_builder_error(x.b));
    rvt_ing_builder_free(x.b);
    return rc == 0;
}

/* ---- encode, decode, compare ---------------------------------------------- */

struct cursor {
    const struct recs *r;
    size_t i;
};
static int pull(void *ctx, struct rvt_ing_rec *r)
{
    struct cursor *c = ctx;
    if (c->i >= c->r->n)
        return 0;
    *r = c->r->r[c->i++];
    return 1;
}

static void *make_cfg(const char *opts, unsigned xlen, const struct rvt_image *img)
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
    CHECK_MSG(rvt_codec_ntrace.cfg_finish(cfg, xlen, img, &d) == 0, "%s: %s", opts, d.msg);
    return cfg;
}

static unsigned long g_runs, g_bytes, g_insns, g_ctx_checked;

/* With Ownership messages the decoded privilege and context of every
 * instruction must be the input's too. */
struct ctxcheck {
    struct rvt_bcache *bc;
    unsigned xlen;
    uint8_t *priv;
    uint64_t *ctx;
    size_t n, i, bad;
    char first[160];
};

static int exp_insn(void *c, uint64_t pc, const struct rvt_block *b)
{
    (void)pc;
    struct ctxcheck *x = c;
    x->priv[x->n] = b->priv;
    x->ctx[x->n++] = b->context;
    return 0;
}

static int got_insn(void *c, uint64_t pc, const struct rvt_block *b)
{
    struct ctxcheck *x = c;
    if (x->i < x->n && (b->priv != x->priv[x->i] || b->context != x->ctx[x->i]) && !x->bad++)
        snprintf(x->first, sizeof x->first, "instruction %zu at 0x%llx: priv %u context %llu, input priv %u context %llu",
                 x->i, (unsigned long long)pc, b->priv, (unsigned long long)b->context, x->priv[x->i],
                 (unsigned long long)x->ctx[x->i]);
    x->i++;
    return 0;
}

static int got_block(void *c, const struct rvt_block *b)
{
    struct ctxcheck *x = c;
    return rvt_block_insns(x->bc, x->xlen, b, got_insn, x);
}

static void check_context(const struct rvt_image *img, const struct recs *recs, const void *cfg, const uint8_t *trace,
                          size_t len, const char *what)
{
    struct ctxcheck x;
    memset(&x, 0, sizeof x);
    x.xlen = rvt_img_xlen(img);
    x.bc = rvt_bcache_new(img, 0);
    size_t total = 0;
    for (size_t i = 0; i < recs->n; i++) {
        uint64_t k = 0;
        if (recs->r[i].iretire)
            rvt_ing_count_insns(&recs->r[i], x.bc, &k);
        total += k;
    }
    x.priv = malloc(total + 1);
    x.ctx = malloc((total + 1) * sizeof *x.ctx);
    for (size_t i = 0; i < recs->n; i++) {
        const struct rvt_ing_rec *r = &recs->r[i];
        uint64_t k = 0;
        if (!r->iretire || rvt_ing_count_insns(r, x.bc, &k) < 0)
            continue;
        struct rvt_block b = {.start = r->iaddr, .ninsns = k, .priv = r->priv, .context = r->context};
        rvt_block_insns(x.bc, x.xlen, &b, exp_insn, &x);
    }
    struct rvt_flow_sink fs = {.block = got_block, .note = NULL, .ctx = &x};
    struct rvt_diag d = {0};
    CHECK(rvt_decode_buffer(&rvt_codec_ntrace, cfg, img, -1, trace, len, &fs, &d) == 0);
    CHECK_MSG(x.bad == 0 && x.i == x.n, "%s: %zu instructions with the wrong privilege/context (%zu of %zu): %s", what,
              x.bad, x.i, x.n, x.first);
    g_ctx_checked += x.i;
    free(x.priv);
    free(x.ctx);
    rvt_bcache_free(x.bc);
}

static void roundtrip(const struct rvt_image *img, const struct recs *recs, const char *opts, const char *what)
{
    unsigned xlen = rvt_img_xlen(img);
    void *cfg = make_cfg(opts, xlen, img);
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
    void *enc;
    struct rvt_diag d = {0};
    REQUIRE(rvt_codec_ntrace.enc_new(&enc, cfg, &sink, &d) == 0);
    int rc = 0;
    for (size_t i = 0; i < recs->n && rc == 0; i++)
        rc = rvt_codec_ntrace.enc_put(enc, &recs->r[i]);
    if (rc == 0)
        rc = rvt_codec_ntrace.enc_finish(enc);
    CHECK_MSG(rc == 0, "%s [%s]: encode: %s", what, opts, rvt_codec_ntrace.enc_error(enc));
    struct rvt_codec_stats st;
    rvt_codec_ntrace.enc_stats(enc, &st);
    rvt_codec_ntrace.enc_free(enc);

    struct cursor cur = {recs, 0};
    struct rvt_seqcmp *cmp = rvt_seqcmp_new(pull, &cur, xlen);
    struct rvt_flow_sink fs = rvt_seqcmp_sink(cmp);
    /* Only the ecall treatment and the wire format are decoder options. */
    rc = rvt_decode_buffer(&rvt_codec_ntrace, cfg, img, -1, mb.data, mb.len, &fs, &d);
    int crc = rvt_seqcmp_finish(cmp);
    CHECK_MSG(rc == 0 && crc == 0, "%s [%s]: %s%s", what, opts, rc ? d.msg : "", crc ? rvt_seqcmp_error(cmp) : "");
    if ((rc || crc) && getenv("NT_DEBUG")) {
        /* Keep the case for a closer look with the CLI. */
        struct rvt_ing_writer *w;
        struct rvt_diag wd = {0};
        if (rvt_ing_writer_open(&w, "/tmp/nt_rt_fail.ing", xlen, &wd) == 0) {
            for (size_t i = 0; i < recs->n; i++)
                rvt_ing_write(w, &recs->r[i]);
            rvt_ing_writer_close(w);
        }
        FILE *f = fopen("/tmp/nt_rt_fail.bin", "wb");
        if (f) {
            fwrite(mb.data, 1, mb.len, f);
            fclose(f);
        }
        fprintf(stderr, "kept /tmp/nt_rt_fail.ing and .bin\n");
        exit(1);
    }
    if (strstr(opts, "context"))
        check_context(img, recs, cfg, mb.data, mb.len, what);
    g_runs++;
    g_bytes += mb.len;
    g_insns += rvt_seqcmp_insns(cmp);
    rvt_seqcmp_free(cmp);
    rvt_membuf_free(&mb);
    rvt_codec_cfg_free(cfg);
}

/* Option sets every execution is checked with. */
static const char *const g_sets[] = {
    "ntrace-mode=btm",
    "ntrace-mode=btm callstack=8",
    "ntrace-mode=btm callstack=2 repeat=1 sync-period=3000",
    "ntrace-mode=btm callstack=64 repeat=1 icnt-bits=6 icnt-sync",
    "ntrace-mode=btm sijump btype-compat sync-msgs=17 timestamps",
    "",
    "callstack=8 repeat=2",
    "callstack=1 repeat=3",
    "callstack=32 repeat=3 sijump sync-period=1000",
    "callstack=8 repeat=2 context timestamps",
    "callstack=4 repeat=1 context sync-msgs=9 src-bits=7 src-id=100 addr-ext",
    "repeat=2 hist-bits=5 icnt-bits=5",
    "callstack=3 repeat=3 hist-bits=1 sijump context btype-compat",
    "callstack=1024 repeat=2 sync-period=200 sync-msgs=3 timestamps addr-ext",
};
/* The counter-only stack is lossless only where returns match calls. */
static const char *const g_count_sets[] = {
    "callstack=8 callstack-mode=count repeat=2",
    "ntrace-mode=btm callstack=2 callstack-mode=count repeat=1 context",
};

static void run_image(const char *elf, uint64_t handler, size_t n)
{
    struct rvt_image *img = load_image(elf, handler);
    if (!img)
        return;
    static const struct walk_opts walks[] = {
        {0, 0, 0, EC_SEQ, false, false},       {40, 10, 0, EC_SEQ, false, true},
        {120, 25, 30, EC_TRAP, true, false},   {20, 5, 5, EC_UNINF, false, true},
        {400, 50, 100, EC_TRAP, false, true},
    };
    struct recs recs = {0};
    for (size_t w = 0; w < sizeof walks / sizeof walks[0]; w++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            if (!generate(img, handler, seed * 7919 + w, &walks[w], n, &recs))
                continue;
            char what[160];
            snprintf(what, sizeof what, "%s walk %zu seed %llu (%zu records)", elf, w, (unsigned long long)seed,
                     recs.n);
            const char *ecall = walks[w].ecall == EC_UNINF ? " ecall=uninferable"
                                : walks[w].ecall == EC_TRAP ? " ecall=trap"
                                                            : "";
            for (size_t s = 0; s < sizeof g_sets / sizeof g_sets[0]; s++) {
                char opts[256];
                snprintf(opts, sizeof opts, "%s%s", g_sets[s], ecall);
                roundtrip(img, &recs, opts, what);
            }
            if (walks[w].longjmp_pct == 0 && walks[w].ecall != EC_UNINF)
                for (size_t s = 0; s < sizeof g_count_sets / sizeof g_count_sets[0]; s++) {
                    char opts[256];
                    snprintf(opts, sizeof opts, "%s%s", g_count_sets[s], ecall);
                    roundtrip(img, &recs, opts, what);
                }
        }
    }
    free(recs.r);
    rvt_img_free(img);
}

/* Generated programs (rvt_gen): real control flow with every feature —
 * M/S/U privilege, system calls, exceptions and nested interrupts,
 * context switches, recursion, tail calls, tables, co-routines,
 * setjmp/longjmp, far code at the top of the address space. */
static void run_generated(unsigned xlen, uint32_t features, uint64_t seed, uint64_t insns, bool merge)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.xlen = xlen;
    gc.seed = seed;
    gc.insns = insns;
    gc.features = features;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    if (rvt_gen_program_new(&prog, &gc, &d) < 0) {
        CHECK_MSG(0, "gen seed %llu: %s", (unsigned long long)seed, d.msg);
        return;
    }
    struct rvt_image *img = rvt_gen_image(prog);
    struct recs recs = {0};
    int rc = img ? rvt_gen_run_ex(prog, &gc, merge, keep, &recs, &d) : -1;
    CHECK_MSG(img && rc == 0, "gen seed %llu run: %s", (unsigned long long)seed, d.msg);
    if (img && rc == 0) {
        char what[128];
        snprintf(what, sizeof what, "generated RV%u seed %llu features 0x%x%s (%zu records)", xlen,
                 (unsigned long long)seed, (unsigned)features, merge ? " merged" : "", recs.n);
        uint32_t f = rvt_gen_features(prog);
        const char *ecall = (f & (RVT_GEN_TRAPS | RVT_GEN_PRIV | RVT_GEN_CONTEXT)) ? " ecall=trap" : "";
        for (size_t s = 0; s < sizeof g_sets / sizeof g_sets[0]; s++) {
            char opts[256];
            snprintf(opts, sizeof opts, "%s%s", g_sets[s], ecall);
            roundtrip(img, &recs, opts, what);
        }
        if (!(f & (RVT_GEN_LONGJMP | RVT_GEN_COROUTINES)))
            for (size_t s = 0; s < sizeof g_count_sets / sizeof g_count_sets[0]; s++) {
                char opts[256];
                snprintf(opts, sizeof opts, "%s%s", g_count_sets[s], ecall);
                roundtrip(img, &recs, opts, what);
            }
    }
    free(recs.r);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

/* The shared oracle (tests/lib/roundtrip.h): cuts and truncations of a
 * trace with periodic syncs, on a generated program with every feature. */
static void run_oracle(unsigned xlen, uint64_t seed)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.xlen = xlen;
    gc.seed = seed;
    gc.insns = 50000;
    gc.features = RVT_GEN_ALL_FEATURES;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    if (rvt_gen_program_new(&prog, &gc, &d) < 0) {
        CHECK_MSG(0, "%s", d.msg);
        return;
    }
    struct rvt_image *img = rvt_gen_image(prog);
    struct rvt_recs recs = {0};
    REQUIRE(img && rvt_recs_gen(&recs, prog, &gc, false, &d) == 0);
    static const char *const opts[] = {"callstack", "8", "repeat", "3", "sync-period", "3000", "context", "1",
                                       "timestamps", "1", "ecall", "trap", NULL};
    struct rvt_rt_opts o = {.format = "ntrace", .options = opts};
    struct rvt_rt_result res;
    size_t len = 0;
    uint8_t *bytes = NULL;
    int rc = rvt_roundtrip(&o, img, &recs, &res, &bytes, &len);
    CHECK_MSG(rc == 0, "oracle RV%u seed %llu: %s", xlen, (unsigned long long)seed, res.msg);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull | 1;
    for (int i = 0; i < 40 && len > 2; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        o.cut = 1 + s % (len - 1);
        o.truncate = 0;
        rc = rvt_roundtrip(&o, img, &recs, &res, NULL, NULL);
        CHECK_MSG(rc == 0 && res.errors == 0, "oracle cut at %zu: %s", o.cut, res.msg);
        o.cut = 0;
        o.truncate = 1 + (s >> 20) % (len - 1);
        rc = rvt_roundtrip(&o, img, &recs, &res, NULL, NULL);
        CHECK_MSG(rc == 0, "oracle truncated at %zu: %s", o.truncate, res.msg);
    }
    free(bytes);
    rvt_recs_free(&recs);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

int main(void)
{
    run_oracle(64, 11);
    run_oracle(32, 12);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        run_generated(64, RVT_GEN_ALL_FEATURES, seed, 60000, seed & 1);
        run_generated(32, RVT_GEN_ALL_FEATURES, seed, 60000, !(seed & 1));
        run_generated(seed & 1 ? 64 : 32, RVT_GEN_DEFAULT_FEATURES & ~(RVT_GEN_LONGJMP | RVT_GEN_COROUTINES), seed,
                      30000, false);
    }
    run_image("ntrace-t1/test.elf", 0x30000000, 20000);
    run_image("flow/flowtest64.elf", 0x7000000, 4000);
    run_image("flow/flowtest32.elf", 0x7000000, 4000);
    printf("ntrace round trips: %lu, %lu instructions, %lu bytes; privilege/context checked on %lu\n", g_runs,
           g_insns, g_bytes, g_ctx_checked);
    return rvt_test_summary("ntrace_roundtrip");
}

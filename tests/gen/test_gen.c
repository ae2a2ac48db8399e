/* Generator tests: determinism, every instruction agreeing with the shared
 * classifier, the ELF read back by the image layer, every feature switch
 * producing its feature (counted in the ingress records), and the ideal
 * decoder (flow engine fed from the records) reproducing the execution
 * instruction by instruction for RV32 and RV64 with every feature. */
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static struct rvt_gen_config base(unsigned xlen, uint64_t seed, uint32_t features, uint64_t insns)
{
    struct rvt_gen_config c;
    rvt_gen_config_init(&c);
    c.xlen = xlen;
    c.seed = seed;
    c.features = features;
    c.insns = insns;
    return c;
}

static struct rvt_gen_program *make(const struct rvt_gen_config *c)
{
    struct rvt_diag d;
    rvt_diag_clear(&d);
    struct rvt_gen_program *p = NULL;
    if (rvt_gen_program_new(&p, c, &d) < 0)
        rvt_test_fail(__FILE__, __LINE__, "xlen %u seed %" PRIu64 " features 0x%x: %s", c->xlen, c->seed,
                      c->features, d.msg);
    return p;
}

/* ---- execution as steps ------------------------------------------------- */

struct steps {
    uint64_t *pc;
    uint8_t *priv;
    size_t n, cap;
    uint64_t exc, irq;
};

static int on_step(void *ctx, const struct rvt_gen_step *s)
{
    struct steps *st = ctx;
    if (s->kind == RVT_GEN_STEP_TRAP) {
        if (s->interrupt)
            st->irq++;
        else
            st->exc++;
        return 0;
    }
    if (st->n == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 4096;
        st->pc = realloc(st->pc, st->cap * sizeof *st->pc);
        st->priv = realloc(st->priv, st->cap);
        if (!st->pc || !st->priv)
            abort();
    }
    st->pc[st->n] = s->pc;
    st->priv[st->n] = s->priv;
    st->n++;
    return 0;
}

static void steps_free(struct steps *s)
{
    free(s->pc);
    free(s->priv);
    memset(s, 0, sizeof *s);
}

/* ---- the ideal decoder reproduces the execution ------------------------- */

struct replay {
    struct rvt_flow *f;
    struct rvt_ingflow *x;
    const struct steps *exp;
    size_t idx;
    unsigned bad;
    char msg[256];
    int err;
};

static int rp_insn(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    struct replay *r = ctx;
    if (r->idx >= r->exp->n || r->exp->pc[r->idx] != pc || r->exp->priv[r->idx] != b->priv) {
        if (!r->bad++)
            snprintf(r->msg, sizeof r->msg,
                     "instruction %zu: flow 0x%" PRIx64 " priv %u, execution 0x%" PRIx64 " priv %u", r->idx, pc,
                     b->priv, r->idx < r->exp->n ? r->exp->pc[r->idx] : 0,
                     r->idx < r->exp->n ? r->exp->priv[r->idx] : 0);
    }
    r->idx++;
    return 0;
}

static int rp_block(void *ctx, const struct rvt_block *b)
{
    struct replay *r = ctx;
    return rvt_flow_block_insns(r->f, b, rp_insn, r) < 0;
}

static int rp_emit(void *ctx, const struct rvt_ing_rec *rec)
{
    struct replay *r = ctx;
    if (r->err)
        return r->err;
    int e = rvt_ingflow_put(r->x, rec);
    if (e < 0) {
        r->err = e;
        snprintf(r->msg, sizeof r->msg, "ideal decoder: %s", rvt_ingflow_error(r->x));
    }
    return e;
}

/* Returns the number of instructions compared. */
static uint64_t roundtrip(unsigned xlen, uint64_t seed, uint32_t features, uint64_t insns, bool merge)
{
    /* the flow engine's options vary with the seed: they must not matter */
    enum rvt_flow_ecall ecall = (seed & 2) ? RVT_FLOW_ECALL_TRAP : RVT_FLOW_ECALL_SEQUENTIAL;
    unsigned depth = (seed & 4) ? 8 : 0;
    struct rvt_gen_config c = base(xlen, seed, features, insns);
    struct rvt_gen_program *p = make(&c);
    if (!p)
        return 0;
    struct rvt_image *img = rvt_gen_image(p);
    CHECK(img != NULL);
    struct steps st = {0};
    struct rvt_diag d;
    rvt_diag_clear(&d);
    int r = rvt_gen_run_pcs(p, &c, on_step, &st, &d);
    CHECK_MSG(r == 0, "run xlen %u seed %" PRIu64 ": %s", xlen, seed, d.msg);
    CHECK_EQ(st.n, insns);
    struct replay rp;
    memset(&rp, 0, sizeof rp);
    rp.exp = &st;
    struct rvt_flow_config fc = {.size = sizeof fc,
                                 .image = img,
                                 .xlen = xlen,
                                 .ecall = ecall,
                                 .callstack_depth = depth,
                                 .pop_on_explicit_return = depth != 0,
                                 .sijump = (seed & 1) != 0,
                                 .sink = {.block = rp_block, .note = NULL, .ctx = &rp}};
    rp.f = img ? rvt_flow_new(&fc) : NULL;
    rp.x = rp.f ? rvt_ingflow_new(rp.f) : NULL;
    CHECK(rp.x != NULL);
    if (rp.x) {
        rvt_diag_clear(&d);
        r = rvt_gen_run_ex(p, &c, merge, rp_emit, &rp, &d);
        CHECK_MSG(r == 0 && rp.err == 0, "xlen %u seed %" PRIu64 " features 0x%x: %s / %s", xlen, seed, features,
                  d.msg, rp.msg);
        if (r == 0 && rvt_ingflow_finish(rp.x) < 0)
            CHECK_MSG(0, "finish: %s", rvt_ingflow_error(rp.x));
        CHECK_MSG(rp.bad == 0, "xlen %u seed %" PRIu64 " features 0x%x: %u mismatches, first: %s", xlen, seed,
                  features, rp.bad, rp.msg);
        CHECK_MSG(rp.idx == st.n, "xlen %u seed %" PRIu64 ": flow retired %zu of %zu", xlen, seed, rp.idx, st.n);
    }
    rvt_ingflow_free(rp.x);
    rvt_flow_free(rp.f);
    rvt_img_free(img);
    uint64_t n = rp.idx;
    steps_free(&st);
    rvt_gen_program_free(p);
    return n;
}

static void test_roundtrip(void)
{
    uint64_t total = 0;
    for (unsigned xlen = 32; xlen <= 64; xlen += 32)
        for (uint64_t seed = 1; seed <= 6; seed++) {
            total += roundtrip(xlen, seed, RVT_GEN_ALL_FEATURES, 60000, seed & 1);
            total += roundtrip(xlen, seed + 100, RVT_GEN_DEFAULT_FEATURES, 30000, !(seed & 1));
        }
    /* a plain program: no feature at all */
    total += roundtrip(64, 7, 0, 20000, false);
    total += roundtrip(32, 7, 0, 20000, true);
    printf("roundtrip: %" PRIu64 " instructions reproduced by the ideal decoder\n", total);
}

/* ---- determinism ---------------------------------------------------------- */

struct hash {
    uint64_t h, n;
};

static void mix(struct hash *h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h->h = (h->h ^ b[i]) * 0x100000001b3ull;
}

static int hash_rec(void *ctx, const struct rvt_ing_rec *r)
{
    struct hash *h = ctx;
    uint64_t v[] = {r->iaddr, r->tval, r->context, r->time, r->rd_value, r->mem_addr, r->mem_value,
                    r->iretire, r->cause, r->flags, r->itype, r->ilastsize, r->priv, r->ctype, r->rd, r->mem_size};
    mix(h, v, sizeof v);
    h->n++;
    return 0;
}

static struct hash run_hash(const struct rvt_gen_config *c)
{
    struct hash h = {0xcbf29ce484222325ull, 0};
    struct rvt_gen_program *p = make(c);
    if (p) {
        struct rvt_diag d;
        CHECK(rvt_gen_run(p, c, hash_rec, &h, &d) == 0);
        rvt_gen_program_free(p);
    }
    return h;
}

static void test_determinism(void)
{
    for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
        struct rvt_gen_config c = base(xlen, 42, RVT_GEN_ALL_FEATURES, 50000);
        struct rvt_gen_program *a = make(&c), *b = make(&c);
        REQUIRE(a && b);
        uint8_t *ea, *eb;
        size_t la, lb;
        REQUIRE(rvt_gen_elf(a, &ea, &la) == 0 && rvt_gen_elf(b, &eb, &lb) == 0);
        CHECK(la == lb && memcmp(ea, eb, la) == 0);
        free(eb);
        /* another seed: another program */
        struct rvt_gen_config c2 = c;
        c2.seed = 43;
        struct rvt_gen_program *o = make(&c2);
        REQUIRE(o);
        REQUIRE(rvt_gen_elf(o, &eb, &lb) == 0);
        CHECK(la != lb || memcmp(ea, eb, la) != 0);
        free(ea);
        free(eb);
        rvt_gen_program_free(a);
        rvt_gen_program_free(b);
        rvt_gen_program_free(o);

        struct hash h1 = run_hash(&c), h2 = run_hash(&c);
        CHECK_EQ(h1.h, h2.h);
        CHECK_EQ(h1.n, h2.n);
        /* the run seed changes the execution, not the program */
        struct rvt_gen_config c3 = c;
        c3.run_seed = 7;
        struct hash h3 = run_hash(&c3);
        CHECK(h3.h != h1.h);
        /* a longer run starts with the shorter one (records of the prefix
         * may differ only in the last record, whose successor is unknown) */
    }
}

/* ---- the code: every instruction valid, ELF read back ------------------- */

struct codecheck {
    unsigned xlen;
    uint64_t n, c16, bad;
    const struct rvt_image *img;
    uint64_t imgbad;
    uint64_t amo, fp;
};

static int check_code(void *ctx, uint64_t pc, uint32_t bits, unsigned len)
{
    struct codecheck *c = ctx;
    struct rvt_insn in;
    rvt_isa_decode(bits, pc, c->xlen, &in);
    c->n++;
    if (len == 2)
        c->c16++;
    if (!(in.flags & RVT_IF_VALID) || in.len != len) {
        if (!c->bad++)
            rvt_test_fail(__FILE__, __LINE__, "invalid instruction 0x%08x at 0x%" PRIx64, bits, pc);
    }
    if (len == 4 && (bits & 0x7f) == 0x2f)
        c->amo++;
    if (in.flags & RVT_IF_FP_RD || ((bits & 0x7f) == 0x27 && len == 4) || ((bits & 0x7f) == 0x53 && len == 4))
        c->fp++;
    if (c->img) {
        struct rvt_insn im;
        if (rvt_img_insn(c->img, pc, &im) < 0 || im.bits != in.bits || im.len != len)
            c->imgbad++;
    }
    return 0;
}

static void test_code_and_elf(void)
{
    for (unsigned xlen = 32; xlen <= 64; xlen += 32)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            struct rvt_gen_config c = base(xlen, seed, RVT_GEN_ALL_FEATURES, 1000);
            c.functions = 20 + 30 * (unsigned)seed;
            struct rvt_gen_program *p = make(&c);
            REQUIRE(p);
            uint8_t *elf;
            size_t len;
            REQUIRE(rvt_gen_elf(p, &elf, &len) == 0);
            struct rvt_image *img = rvt_img_new();
            REQUIRE(img);
            int r = rvt_img_load_elf_mem(img, elf, len, "gen.elf");
            CHECK_MSG(r == 0, "image: %s", rvt_img_error(img));
            CHECK_EQ(rvt_img_xlen(img), xlen);
            CHECK_EQ(rvt_img_entry(img), rvt_gen_entry(p));
            /* every symbol, by name and address */
            CHECK(rvt_gen_symbol_count(p) > (size_t)c.functions);
            for (size_t i = 0; i < rvt_gen_symbol_count(p); i++) {
                const struct rvt_symbol *s = rvt_gen_symbol(p, i);
                const struct rvt_symbol *t = rvt_img_symbol_named(img, s->name);
                CHECK_MSG(t && t->addr == s->addr && t->size == s->size && !!t->is_func == !!s->is_func,
                          "symbol %s", s->name);
            }
            CHECK(rvt_img_symbol_named(img, "_start") && rvt_img_symbol_named(img, "_start")->addr == rvt_gen_entry(p));
            CHECK(rvt_img_symbol_named(img, "f0") != NULL || rvt_img_symbol_named(img, "ping0") != NULL ||
                  rvt_img_symbol_named(img, "leaf0") != NULL);
            /* segments: bytes as generated */
            for (size_t i = 0; i < rvt_gen_segment_count(p); i++) {
                const struct rvt_gen_segment *s = rvt_gen_segment(p, i);
                uint8_t *buf = malloc(s->filesz ? s->filesz : 1);
                REQUIRE(buf);
                size_t got = rvt_img_read(img, s->addr, buf, s->filesz);
                CHECK_MSG(got == s->filesz && memcmp(buf, s->data, s->filesz) == 0, "segment %s", s->name);
                free(buf);
            }
            struct codecheck cc = {xlen, 0, 0, 0, img, 0, 0, 0};
            rvt_gen_for_each_insn(p, check_code, &cc);
            CHECK_EQ(cc.n, rvt_gen_code_insns(p));
            CHECK_EQ(cc.bad, 0);
            CHECK_EQ(cc.imgbad, 0);
            CHECK(cc.c16 > cc.n / 10);
            free(elf);
            rvt_img_free(img);
            rvt_gen_program_free(p);
        }
}

/* ---- feature switches ------------------------------------------------------ */

#define MAXSTACK 4096

struct fcount {
    const struct rvt_image *img;
    unsigned xlen;
    uint64_t rec, itype[16], exc_cause[16], irq_cause[16], priv_seen, flags_or;
    uint64_t c16, sijump, high, tval_bad, fp_rd;
    uint64_t contexts[32];
    unsigned ncontexts;
    int depth, max_depth;          /* trap nesting */
    uint64_t unwinds, recursion, tail_to_func, mid_jumps, back_branches;
    uint64_t ret_stack[MAXSTACK], fn_stack[MAXSTACK];
    unsigned sp;
    struct rvt_ing_rec prev;
    bool have_prev;
    uint64_t last_time;
    bool time_backwards;
    uint64_t high_base;
};

static uint64_t func_of(const struct fcount *f, uint64_t addr)
{
    const struct rvt_symbol *s = rvt_img_symbol_at(f->img, addr);
    return s ? s->addr : 0;
}

static bool is_func_start(const struct fcount *f, uint64_t addr)
{
    const struct rvt_symbol *s = rvt_img_symbol_at(f->img, addr);
    return s && s->addr == addr && s->is_func && strncmp(s->name, "__restore", 9) != 0 && strcmp(s->name, "_start");
}

/* The previous record's last instruction went to `next`. */
static void resolve_prev(struct fcount *f, uint64_t next)
{
    if (!f->have_prev)
        return;
    const struct rvt_ing_rec *r = &f->prev;
    uint64_t last = rvt_ing_last_addr(r), ret = rvt_ing_next_addr(r);
    const struct rvt_symbol *from = rvt_img_symbol_at(f->img, last);
    bool from_start = from && strcmp(from->name, "_start") == 0;
    switch (r->itype) {
    case RVT_ITYPE_CALL_INF:
    case RVT_ITYPE_CALL_UNINF: {
        uint64_t fn = func_of(f, next);
        for (unsigned i = 0; i < f->sp; i++)
            if (f->fn_stack[i] == fn && fn) {
                f->recursion++;
                break;
            }
        if (f->sp < MAXSTACK) {
            f->ret_stack[f->sp] = ret;
            f->fn_stack[f->sp] = fn;
            f->sp++;
        }
        break;
    }
    case RVT_ITYPE_RETURN:
        if (f->sp) {
            f->sp--;
            if (f->ret_stack[f->sp] != next)
                f->unwinds++;
        }
        break;
    case RVT_ITYPE_COSWAP:
        /* co-routines swap inside one function: no effect on its frame */
        break;
    case RVT_ITYPE_JUMP_INF:
    case RVT_ITYPE_JUMP_UNINF:
        if (!from_start && is_func_start(f, next)) {
            f->tail_to_func++;
            if (next == func_of(f, last))
                f->recursion++;
        }
        if (r->itype == RVT_ITYPE_JUMP_UNINF && !is_func_start(f, next) && func_of(f, next) == func_of(f, last))
            f->mid_jumps++;
        break;
    case RVT_ITYPE_TAKEN:
        if (next < last)
            f->back_branches++;
        break;
    default:
        break;
    }
}

static int count_rec(void *ctx, const struct rvt_ing_rec *r)
{
    struct fcount *f = ctx;
    f->rec++;
    f->itype[r->itype & 15]++;
    f->flags_or |= r->flags;
    f->priv_seen |= 1ull << (r->priv & 7);
    if (r->flags & RVT_ING_SIJUMP)
        f->sijump++;
    if ((r->flags & RVT_ING_HAS_RD) && r->rd >= 32)
        f->fp_rd++;
    if (f->high_base && r->iaddr >= f->high_base)
        f->high++;
    bool seen = false;
    for (unsigned i = 0; i < f->ncontexts; i++)
        seen |= f->contexts[i] == r->context;
    if (!seen && f->ncontexts < 32)
        f->contexts[f->ncontexts++] = r->context;
    if (r->flags & RVT_ING_HAS_TIME) {
        if (r->time < f->last_time)
            f->time_backwards = true;
        f->last_time = r->time;
    }
    resolve_prev(f, r->iaddr);
    f->have_prev = false;
    if (r->itype == RVT_ITYPE_EXCEPTION || r->itype == RVT_ITYPE_INTERRUPT) {
        if (r->itype == RVT_ITYPE_EXCEPTION) {
            f->exc_cause[r->cause & 15]++;
            /* tval: the instruction for illegal, the pc for breakpoints, the address for memory faults */
            struct rvt_insn in;
            uint64_t epc = r->iaddr + 2ull * r->iretire;
            bool ok = true;
            if (rvt_img_insn(f->img, epc, &in) < 0)
                ok = false;
            else if (r->cause == 2)
                ok = r->tval == (in.len == 2 ? (in.bits & 0xffff) : in.bits);
            else if (r->cause == 3)
                ok = r->tval == epc;
            else if (r->cause == 13 || r->cause == 15)
                ok = r->tval < 0x1000 && ((in.flags & (RVT_IF_LOAD | RVT_IF_STORE)) != 0);
            else if (r->cause == 4 || r->cause == 6)
                ok = (r->tval & 1) || (r->tval & 2) || (r->tval & 4);
            else if (r->cause == 8 || r->cause == 9 || r->cause == 11)
                ok = in.cf == RVT_CF_ECALL && r->tval == 0;
            if (!ok)
                f->tval_bad++;
        } else {
            f->irq_cause[r->cause & 15]++;
        }
        f->depth++;
        if (f->depth > f->max_depth)
            f->max_depth = f->depth;
    }
    if (r->iretire) {
        if (r->ilastsize == 0)
            f->c16++;
        if (r->itype == RVT_ITYPE_TRAPRET)
            f->depth--;
        f->prev = *r;
        f->have_prev = true;
    }
    return 0;
}

static void count(struct fcount *f, unsigned xlen, uint64_t seed, uint32_t features, uint64_t insns,
                  void (*tweak)(struct rvt_gen_config *))
{
    memset(f, 0, sizeof *f);
    struct rvt_gen_config c = base(xlen, seed, features, insns);
    if (tweak)
        tweak(&c);
    struct rvt_gen_program *p = make(&c);
    if (!p)
        return;
    struct rvt_image *img = rvt_gen_image(p);
    f->img = img;
    f->xlen = xlen;
    for (size_t i = 0; i < rvt_gen_segment_count(p); i++)
        if (strcmp(rvt_gen_segment(p, i)->name, ".text.high") == 0)
            f->high_base = rvt_gen_segment(p, i)->addr;
    struct rvt_diag d;
    rvt_diag_clear(&d);
    int r = rvt_gen_run(p, &c, count_rec, f, &d);
    CHECK_MSG(r == 0, "run: %s", d.msg);
    rvt_img_free(img);
    f->img = NULL;
    rvt_gen_program_free(p);
}

/* Run a few seeds and both xlens; `stat` picks the counted quantity. */
typedef uint64_t (*stat_fn)(const struct fcount *f);
static uint64_t total(uint32_t features, stat_fn stat, void (*tweak)(struct rvt_gen_config *))
{
    uint64_t t = 0;
    for (unsigned xlen = 32; xlen <= 64; xlen += 32)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            struct fcount *f = malloc(sizeof *f);
            if (!f)
                abort();
            count(f, xlen, seed, features, 25000, tweak);
            t += stat(f);
            free(f);
        }
    return t;
}

static uint64_t s_c16(const struct fcount *f) { return f->c16; }
static uint64_t s_back(const struct fcount *f) { return f->back_branches; }
static uint64_t s_recursion(const struct fcount *f) { return f->recursion; }
static uint64_t s_tail(const struct fcount *f) { return f->tail_to_func; }
static uint64_t s_mid(const struct fcount *f) { return f->mid_jumps; }
static uint64_t s_sijump(const struct fcount *f) { return f->sijump; }
static uint64_t s_other(const struct fcount *f) { return f->itype[14] + f->itype[15]; }
static uint64_t s_coswap(const struct fcount *f) { return f->itype[12]; }
static uint64_t s_unwind(const struct fcount *f) { return f->unwinds; }
static uint64_t s_high(const struct fcount *f) { return f->high; }
static uint64_t s_exc(const struct fcount *f) { return f->itype[1]; }
static uint64_t s_irq(const struct fcount *f) { return f->itype[2]; }
static uint64_t s_nest(const struct fcount *f) { return f->max_depth >= 2; }
static uint64_t s_user(const struct fcount *f) { return (f->priv_seen & 1) && (f->priv_seen & 2); }
static uint64_t s_ctx(const struct fcount *f) { return f->ncontexts > 1; }
static uint64_t s_time(const struct fcount *f) { return (f->flags_or & RVT_ING_HAS_TIME) && !f->time_backwards; }
static uint64_t s_data(const struct fcount *f) { return (f->flags_or & (RVT_ING_HAS_RD | RVT_ING_HAS_MEM)) != 0; }
static uint64_t s_fprd(const struct fcount *f) { return f->fp_rd; }
static uint64_t s_trapret(const struct fcount *f) { return f->itype[3]; }
static uint64_t s_tvalbad(const struct fcount *f) { return f->tval_bad; }

static void longjmp_always(struct rvt_gen_config *c)
{
    c->p_longjmp = 100;
}
static void frequent_traps(struct rvt_gen_config *c)
{
    c->p_trap = 40;
    c->interrupt_interval = 300;
}

static void test_features(void)
{
    const uint32_t D = RVT_GEN_DEFAULT_FEATURES;
    /* control flow without traps: each feature on (and the others default) vs off */
    CHECK(total(D, s_c16, NULL) > 0);
    CHECK_EQ(total(D & ~RVT_GEN_COMPRESSED, s_c16, NULL), 0);
    uint32_t noat = D & ~RVT_GEN_ATOMICS & ~RVT_GEN_COROUTINES; /* lr/sc and co-routine loops */
    CHECK(total(noat, s_back, NULL) > 0);
    CHECK_EQ(total(noat & ~RVT_GEN_LOOPS, s_back, NULL), 0);
    uint32_t nolj = D & ~RVT_GEN_LONGJMP;
    CHECK(total(nolj, s_recursion, NULL) > 0);
    CHECK_EQ(total(nolj & ~RVT_GEN_RECURSION, s_recursion, NULL), 0);
    CHECK(total(D & ~RVT_GEN_ALTLINK, s_tail, NULL) > 0);
    CHECK_EQ(total(D & ~RVT_GEN_ALTLINK & ~RVT_GEN_TAILCALLS, s_tail, NULL), 0);
    uint32_t sw = D & ~RVT_GEN_LONGJMP & ~RVT_GEN_ALTLINK;
    CHECK(total(sw, s_mid, NULL) > 0);
    CHECK_EQ(total(sw & ~RVT_GEN_TABLES, s_mid, NULL), 0);
    CHECK(total(D, s_sijump, NULL) > 0);
    CHECK_EQ(total(D & ~RVT_GEN_SIJUMPS, s_sijump, NULL), 0);
    CHECK(total(D, s_other, NULL) > 0);
    CHECK_EQ(total(D & ~RVT_GEN_ALTLINK, s_other, NULL), 0);
    CHECK(total(D, s_coswap, NULL) > 0);
    CHECK_EQ(total(D & ~RVT_GEN_COROUTINES, s_coswap, NULL), 0);
    CHECK(total(D, s_unwind, longjmp_always) > 0);
    CHECK_EQ(total(D & ~RVT_GEN_LONGJMP, s_unwind, longjmp_always), 0);
    CHECK(total(D, s_high, NULL) > 0);
    CHECK_EQ(total(D & ~RVT_GEN_FARCODE, s_high, NULL), 0);

    /* traps */
    CHECK(total(D | RVT_GEN_TRAPS, s_exc, NULL) > 0);
    CHECK(total(D | RVT_GEN_TRAPS, s_trapret, NULL) > 0);
    CHECK_EQ(total(D | RVT_GEN_TRAPS | RVT_GEN_PRIV | RVT_GEN_INTERRUPTS, s_tvalbad, frequent_traps), 0);
    CHECK_EQ(total(D, s_exc, NULL), 0);
    CHECK_EQ(total(D, s_trapret, NULL), 0);
    CHECK(total(D | RVT_GEN_INTERRUPTS, s_irq, NULL) > 0);
    CHECK_EQ(total(D | RVT_GEN_TRAPS, s_irq, NULL), 0);
    uint32_t t = D | RVT_GEN_TRAPS | RVT_GEN_INTERRUPTS;
    CHECK(total(t | RVT_GEN_NESTED, s_nest, frequent_traps) > 0);
    CHECK_EQ(total(t, s_nest, frequent_traps), 0);
    CHECK(total(D | RVT_GEN_PRIV, s_user, NULL) == 6);
    CHECK_EQ(total(t, s_user, NULL), 0);
    CHECK(total(D | RVT_GEN_CONTEXT, s_ctx, NULL) == 6);
    CHECK_EQ(total(t | RVT_GEN_PRIV, s_ctx, NULL), 0);
    CHECK(total(D | RVT_GEN_TIME, s_time, NULL) == 6);
    CHECK_EQ(total(D, s_time, NULL), 0);
    CHECK(total(D | RVT_GEN_DATA, s_data, NULL) == 6);
    CHECK_EQ(total(D, s_data, NULL), 0);
    CHECK(total(D | RVT_GEN_DATA, s_fprd, NULL) > 0);
    CHECK_EQ(total((D | RVT_GEN_DATA) & ~RVT_GEN_FP, s_fprd, NULL), 0);

    /* every exception kind and every interrupt cause the programs enable */
    uint64_t exc[16] = {0}, irq[16] = {0};
    for (unsigned xlen = 32; xlen <= 64; xlen += 32)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            struct fcount *f = malloc(sizeof *f);
            if (!f)
                abort();
            count(f, xlen, seed, RVT_GEN_ALL_FEATURES, 60000, frequent_traps);
            for (int k = 0; k < 16; k++) {
                exc[k] += f->exc_cause[k];
                irq[k] += f->irq_cause[k];
            }
            CHECK(f->priv_seen == ((1u << 0) | (1u << 1) | (1u << 3)));
            free(f);
        }
    static const int exc_kinds[] = {2, 3, 4, 6, 8, 9, 13, 15};
    for (size_t i = 0; i < sizeof exc_kinds / sizeof exc_kinds[0]; i++)
        CHECK_MSG(exc[exc_kinds[i]] > 0, "no exception with cause %d", exc_kinds[i]);
    static const int irq_kinds[] = {1, 3, 5, 7, 9, 11};
    for (size_t i = 0; i < sizeof irq_kinds / sizeof irq_kinds[0]; i++)
        CHECK_MSG(irq[irq_kinds[i]] > 0, "no interrupt with cause %d", irq_kinds[i]);
    CHECK_EQ(exc[0] + exc[1] + exc[5] + exc[7] + exc[10] + exc[12] + exc[14], 0);
}

/* Extensions that only show in the code: A and F/D. */
static void test_code_features(void)
{
    for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
        for (int on = 0; on < 2; on++) {
            struct rvt_gen_config c = base(xlen, 11, on ? RVT_GEN_ALL_FEATURES : RVT_GEN_ALL_FEATURES & ~(RVT_GEN_FP | RVT_GEN_ATOMICS), 100);
            c.functions = 80;
            struct rvt_gen_program *p = make(&c);
            REQUIRE(p);
            struct codecheck cc = {xlen, 0, 0, 0, NULL, 0, 0, 0};
            rvt_gen_for_each_insn(p, check_code, &cc);
            CHECK_EQ(cc.bad, 0);
            if (on) {
                CHECK(cc.fp > 0);
                CHECK(cc.amo > 0);
            } else {
                CHECK_EQ(cc.fp, 0);
                CHECK_EQ(cc.amo, 0);
            }
            rvt_gen_program_free(p);
        }
    }
}

/* ---- configuration errors -------------------------------------------------- */

static void test_config(void)
{
    struct rvt_gen_config c;
    struct rvt_gen_program *p = NULL;
    struct rvt_diag d;
    rvt_gen_config_init(&c);
    c.xlen = 48;
    CHECK(rvt_gen_program_new(&p, &c, &d) == -RVT_ERR_INVAL && p == NULL);
    CHECK(strstr(d.msg, "xlen") != NULL);
    rvt_gen_config_init(&c);
    c.functions = 2;
    CHECK(rvt_gen_program_new(&p, &c, &d) == -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "functions") != NULL);
    rvt_gen_config_init(&c);
    c.features = 1u << 30;
    CHECK(rvt_gen_program_new(&p, &c, &d) == -RVT_ERR_INVAL);
    rvt_gen_config_init(&c);
    c.p_compressed = 101;
    CHECK(rvt_gen_program_new(&p, &c, &d) == -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "p_compressed") != NULL);
    c.size = 4;
    CHECK(rvt_gen_program_new(&p, &c, &d) == -RVT_ERR_INVAL);
    for (uint32_t b = 1; b & RVT_GEN_ALL_FEATURES; b <<= 1) {
        const char *n = rvt_gen_feature_name(b);
        CHECK(n != NULL);
        if (n)
            CHECK_EQ(rvt_gen_feature_parse(n), b);
    }
    CHECK_EQ(rvt_gen_feature_parse("nonsense"), 0);
}

/* A callback's non-zero return stops the run and is returned. */
static int stop_after(void *ctx, const struct rvt_gen_step *s)
{
    (void)s;
    return --*(int *)ctx == 0 ? 77 : 0;
}

static void test_stop(void)
{
    struct rvt_gen_config c = base(64, 5, RVT_GEN_DEFAULT_FEATURES, 10000);
    struct rvt_gen_program *p = make(&c);
    REQUIRE(p);
    int left = 100;
    CHECK_EQ(rvt_gen_run_pcs(p, &c, stop_after, &left, NULL), 77);
    CHECK_EQ(left, 0);
    rvt_gen_program_free(p);
}

int main(void)
{
    test_config();
    test_stop();
    test_determinism();
    test_code_and_elf();
    test_code_features();
    test_features();
    test_roundtrip();
    return rvt_test_summary("test_gen");
}

/* Flow engine tests on tests/data/flow/flowtest{32,64}.elf (source:
 * flowtest.S) and on the N-Trace reference execution: walk limits, branch
 * queue, uninferable/sequentially inferable jumps, the implicit-return
 * stack, ecall modes, traps, errors; and the ideal decoder reproducing a
 * real execution exactly. */
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

struct collect {
    struct rvt_block b[256];
    unsigned n;
    uint64_t pcs[1024];
    unsigned npcs;
    struct rvt_flow *f;
    unsigned notes[8];
};

static int add_pc(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct collect *c = ctx;
    if (c->npcs < 1024)
        c->pcs[c->npcs++] = pc;
    return 0;
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct collect *c = ctx;
    if (c->n < 256)
        c->b[c->n++] = *b;
    return rvt_flow_block_insns(c->f, b, add_pc, c) < 0;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct collect *c = ctx;
    if (n->kind < 8)
        c->notes[n->kind]++;
    return 0;
}

static uint64_t sym(const struct rvt_image *img, const char *name)
{
    const struct rvt_symbol *s = rvt_img_symbol_named(img, name);
    if (!s) {
        rvt_test_fail(__FILE__, __LINE__, "symbol %s missing", name);
        return 0;
    }
    return s->addr;
}

static struct rvt_image *load(const char *rel)
{
    char *p = rvt_test_data(rel);
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, p) < 0)
        rvt_test_fail(__FILE__, __LINE__, "load %s: %s", p, rvt_img_error(img));
    free(p);
    return img;
}

static struct rvt_flow *mkflow(struct rvt_image *img, struct collect *c, enum rvt_flow_ecall ecall, unsigned depth,
                               bool sijump)
{
    memset(c, 0, sizeof *c);
    struct rvt_flow_config fc = {.size = sizeof fc,
                                 .image = img,
                                 .ecall = ecall,
                                 .callstack_depth = depth,
                                 .sijump = sijump,
                                 .pop_on_explicit_return = true,
                                 .sink = {.block = on_block, .note = on_note, .ctx = c}};
    c->f = rvt_flow_new(&fc);
    return c->f;
}

/* The full expected execution of flowtest from _start to the mret. */
static unsigned expected(const struct rvt_image *img, uint64_t *pcs)
{
    uint64_t s = sym(img, "_start"), loop = sym(img, "loop"), cs = sym(img, "call_site"),
             leaf = sym(img, "leaf"), al = sym(img, "after_leaf"), si = sym(img, "si_target"),
             it = sym(img, "indirect_target"), sc = sym(img, "sicall_target"), as = sym(img, "after_sicall"),
             ae = sym(img, "after_ecall"), tail = sym(img, "tail");
    unsigned n = 0;
    pcs[n++] = s;
    for (int i = 0; i < 3; i++) {
        pcs[n++] = loop;
        pcs[n++] = loop + 4;
    }
    pcs[n++] = loop + 8; /* c.nop */
    pcs[n++] = cs;       /* jal leaf */
    pcs[n++] = leaf;
    pcs[n++] = leaf + 2; /* c.jr ra */
    pcs[n++] = al;       /* lui/c.lui t1 */
    pcs[n++] = si - 4;   /* jalr x0 */
    pcs[n++] = si;       /* auipc t0 */
    pcs[n++] = si + 4;   /* addi */
    pcs[n++] = si + 8;   /* jr t0 */
    pcs[n++] = it;       /* auipc ra */
    pcs[n++] = it + 4;   /* jalr ra */
    pcs[n++] = sc;       /* ret */
    pcs[n++] = as;       /* ecall */
    pcs[n++] = ae;       /* j tail */
    pcs[n++] = tail;     /* mret */
    return n;
}

static void check_pcs(const struct collect *c, const uint64_t *exp, unsigned n, const char *what)
{
    CHECK_MSG(c->npcs == n, "%s: %u instructions decoded, expected %u", what, c->npcs, n);
    for (unsigned i = 0; i < n && i < c->npcs; i++)
        if (c->pcs[i] != exp[i]) {
            rvt_test_fail(__FILE__, __LINE__, "%s: instruction %u at 0x%llx, expected 0x%llx", what, i,
                          (unsigned long long)c->pcs[i], (unsigned long long)exp[i]);
            break;
        }
}

/* Builder -> ideal decoder -> flow reproduces the execution. */
struct recs {
    struct rvt_ing_rec r[128];
    unsigned n;
};
static int keep(void *ctx, const struct rvt_ing_rec *r)
{
    struct recs *x = ctx;
    if (x->n < 128)
        x->r[x->n++] = *r;
    return 0;
}

static void test_ideal(const char *elf)
{
    struct rvt_image *img = load(elf);
    uint64_t exp[64];
    unsigned n = expected(img, exp);
    for (int merge = 0; merge < 2; merge++) {
        struct recs recs = {.n = 0};
        struct rvt_ing_builder_config bc = {.size = sizeof bc, .image = img, .merge_blocks = merge,
                                            .emit = keep, .emit_ctx = &recs};
        struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
        REQUIRE(b);
        for (unsigned i = 0; i < n; i++)
            CHECK_MSG(rvt_ing_builder_insn(b, exp[i], -1, RVT_PRIV_M, 0, NULL) == 0, "%s: %s", elf,
                      rvt_ing_builder_error(b));
        CHECK(rvt_ing_builder_finish(b) == 0);
        CHECK_EQ(rvt_ing_builder_insns(b), n);
        rvt_ing_builder_free(b);
        /* itypes: taken, taken, not taken, inferable call, return, sijump, jump, call, return */
        unsigned taken = 0, nt = 0, sij = 0;
        for (unsigned i = 0; i < recs.n; i++) {
            taken += recs.r[i].itype == RVT_ITYPE_TAKEN;
            nt += recs.r[i].itype == RVT_ITYPE_NOT_TAKEN;
            sij += (recs.r[i].flags & RVT_ING_SIJUMP) != 0;
        }
        CHECK_EQ(taken, 2);
        CHECK_EQ(nt, 1);
        CHECK_EQ(sij, 2); /* lui+jalr and auipc+jalr; not auipc+addi+jr */
        if (merge)
            CHECK(recs.n < n);
        else
            CHECK_EQ(recs.n, n);

        struct collect c;
        struct rvt_flow *f = mkflow(img, &c, RVT_FLOW_ECALL_SEQUENTIAL, 0, false);
        struct rvt_ingflow *x = rvt_ingflow_new(f);
        for (unsigned i = 0; i < recs.n; i++)
            CHECK_MSG(rvt_ingflow_put(x, &recs.r[i]) == 0, "%s: %s", elf, rvt_ingflow_error(x));
        CHECK(rvt_ingflow_finish(x) == 0);
        check_pcs(&c, exp, n, elf);
        rvt_ingflow_free(x);
        rvt_flow_free(f);
    }
    rvt_img_free(img);
}

static void test_walk_decisions(const char *elf)
{
    struct rvt_image *img = load(elf);
    uint64_t exp[64];
    unsigned n = expected(img, exp);
    struct collect c;
    struct rvt_flow *f = mkflow(img, &c, RVT_FLOW_ECALL_SEQUENTIAL, 0, false);
    struct rvt_stop st;
    struct rvt_walk w = {0};
    uint64_t loop = sym(img, "loop");

    CHECK(rvt_flow_sync(f, sym(img, "_start"), RVT_PRIV_M, 0, true) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_BRANCH);
    CHECK_EQ(st.last, loop + 4);
    CHECK_EQ(st.target, loop);
    CHECK_EQ(st.insns, 3);
    CHECK(rvt_flow_branch(f, true) == 0);
    CHECK(rvt_flow_push_branches(f, 0x1, 2) == 0); /* taken, then not taken */
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    /* jal followed, then the return stops the walk (no call stack) */
    CHECK_EQ(st.reason, RVT_STOP_UNINF);
    CHECK_EQ(st.cf, RVT_CF_RETURN);
    CHECK_EQ(st.last, sym(img, "leaf") + 2);
    CHECK_EQ(rvt_flow_queued_branches(f), 0);
    /* a branch outcome for a return is refused, with the instruction named */
    CHECK(rvt_flow_branch(f, true) == -RVT_ERR_MISMATCH);
    CHECK(strstr(rvt_flow_error(f), "not a conditional branch") != NULL);
    CHECK(rvt_flow_jump(f, sym(img, "after_leaf")) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_UNINF); /* lui+jalr: sijump disabled */
    CHECK(rvt_flow_jump(f, sym(img, "si_target")) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.cf, RVT_CF_JUMP_UNINF);
    CHECK(rvt_flow_jump(f, sym(img, "indirect_target")) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.cf, RVT_CF_CALL_UNINF);
    CHECK(rvt_flow_jump(f, sym(img, "sicall_target")) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.cf, RVT_CF_RETURN);
    CHECK(rvt_flow_jump(f, sym(img, "after_sicall")) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == 0); /* ecall falls through, j followed, mret stops */
    CHECK_EQ(st.cf, RVT_CF_TRAPRET);
    CHECK(rvt_flow_finish(f) == 0);
    check_pcs(&c, exp, n, "explicit decisions");
    /* blocks end where control left sequence */
    unsigned ends[16] = {0};
    for (unsigned i = 0; i < c.n; i++)
        ends[c.b[i].end]++;
    CHECK_EQ(ends[RVT_END_BRANCH], 2);
    CHECK_EQ(ends[RVT_END_CALL], 2);
    CHECK_EQ(ends[RVT_END_RETURN], 2);
    CHECK_EQ(ends[RVT_END_JUMP], 3);
    rvt_flow_free(f);

    /* With sijump and the implicit-return stack only the jr t2 and the mret
     * need the trace. */
    f = mkflow(img, &c, RVT_FLOW_ECALL_SEQUENTIAL, 8, true);
    w.flags = RVT_WALK_IMPLICIT_RET;
    CHECK(rvt_flow_sync(f, sym(img, "_start"), RVT_PRIV_M, 0, true) == 0);
    CHECK(rvt_flow_push_branches(f, 0x3, 3) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_UNINF);
    CHECK_EQ(st.last, sym(img, "si_target") + 8);
    CHECK(rvt_flow_jump(f, sym(img, "indirect_target")) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.cf, RVT_CF_TRAPRET);
    CHECK(rvt_flow_finish(f) == 0);
    check_pcs(&c, exp, n, "sijump + implicit return");
    unsigned implicit = 0;
    for (unsigned i = 0; i < c.n; i++)
        implicit += (c.b[i].flags & RVT_BLK_IMPLICIT) != 0;
    CHECK_EQ(implicit, 2);
    rvt_flow_free(f);
    rvt_img_free(img);
}

static void test_limits(const char *elf)
{
    struct rvt_image *img = load(elf);
    struct collect c;
    struct rvt_flow *f = mkflow(img, &c, RVT_FLOW_ECALL_TRAP, 0, false);
    struct rvt_stop st;
    uint64_t start = sym(img, "_start"), loop = sym(img, "loop");

    /* halfword count: li + addi = 4 halfwords, then 1 halfword ends inside bnez */
    CHECK(rvt_flow_sync(f, start, RVT_PRIV_M, 0, true) == 0);
    struct rvt_walk w = {.flags = RVT_WALK_HALFWORDS, .halfwords = 4};
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_COUNT);
    CHECK_EQ(st.insns, 2);
    CHECK_EQ(st.last, loop);
    w.halfwords = 1;
    CHECK(rvt_flow_walk(f, &w, &st) == -RVT_ERR_MISMATCH);
    CHECK(strstr(rvt_flow_error(f), "ends inside") != NULL);

    /* instruction count with default not-taken branches */
    CHECK(rvt_flow_sync(f, start, RVT_PRIV_M, 0, true) == 0);
    w.flags = RVT_WALK_INSNS | RVT_WALK_NT_DEFAULT;
    w.insns = 5;
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_COUNT);
    CHECK_EQ(st.last, sym(img, "call_site"));
    CHECK_EQ(st.cf, RVT_CF_CALL_INF);

    /* stop at an address, and not before retiring one when asked */
    CHECK(rvt_flow_sync(f, start, RVT_PRIV_M, 0, true) == 0);
    CHECK(rvt_flow_push_branches(f, 0x3, 3) == 0);
    w.flags = RVT_WALK_ADDR;
    w.addr = sym(img, "leaf");
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_ADDR);
    CHECK_EQ(st.pc, sym(img, "leaf"));
    CHECK_EQ(rvt_flow_pc(f), sym(img, "leaf"));
    w.flags = RVT_WALK_ADDR | RVT_WALK_ADDR_NOT_FIRST;
    w.addr = loop;
    CHECK(rvt_flow_sync(f, loop, RVT_PRIV_M, 0, true) == 0);
    CHECK(rvt_flow_push_branches(f, 0x1, 1) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_ADDR);
    CHECK_EQ(st.insns, 2); /* addi, bnez (taken back to loop) */

    /* ecall in trap mode does not retire: the walk stops before it */
    CHECK(rvt_flow_sync(f, sym(img, "indirect_target"), RVT_PRIV_M, 0, true) == 0);
    w.flags = 0;
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK(rvt_flow_jump(f, sym(img, "after_sicall")) == 0);
    unsigned before = c.n;
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_TRAPINSN);
    CHECK_EQ(st.pc, sym(img, "after_sicall"));
    CHECK(rvt_flow_trap(f, false, 11, 0, true, sym(img, "tail")) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.cf, RVT_CF_TRAPRET);
    CHECK(rvt_flow_finish(f) == 0);
    /* the trap had nothing retired since the jump: it is a note, not a block end */
    CHECK_EQ(c.notes[RVT_NOTE_TRAP], 1);
    CHECK(c.n > before);

    /* no code, and walking without an address */
    rvt_flow_reset(f);
    CHECK(rvt_flow_walk(f, &w, &st) == -RVT_ERR_NOSYNC);
    CHECK(rvt_flow_sync(f, 0x4000, RVT_PRIV_M, 0, true) == 0);
    CHECK(rvt_flow_walk(f, &w, &st) == -RVT_ERR_NOCODE);
    CHECK(strstr(rvt_flow_error(f), "0x4000") != NULL);
    /* a jump target for an instruction whose target the code fixes must agree */
    CHECK(rvt_flow_sync(f, sym(img, "call_site"), RVT_PRIV_M, 0, true) == 0);
    w.flags = RVT_WALK_STOP_JUMP;
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_JUMP);
    CHECK(rvt_flow_jump(f, 0x1234) == -RVT_ERR_MISMATCH);
    rvt_flow_free(f);
    rvt_img_free(img);
}

/* rvt_flow_walk_one against rvt_flow_walk with {.flags = RVT_WALK_INSNS,
 * .insns = 1} (its own quicker path, which hands anything unusual to the
 * walk): from every instruction of the execution, with ecalls that trap
 * (an ecall alone in its block does not retire) or fall through, and at
 * the decode's instruction limit: the same result, stop, state after, and
 * the same blocks. */
static struct rvt_flow *mkflow_cap(struct rvt_image *img, struct collect *c, enum rvt_flow_ecall ecall,
                                   uint64_t max_insns)
{
    memset(c, 0, sizeof *c);
    struct rvt_flow_config fc = {.size = sizeof fc,
                                 .image = img,
                                 .ecall = ecall,
                                 .max_insns = max_insns,
                                 .sink = {.block = on_block, .note = on_note, .ctx = c}};
    c->f = rvt_flow_new(&fc);
    return c->f;
}

static void same_walk_one(struct collect *a, struct collect *b, uint64_t pc, const char *what)
{
    struct rvt_stop sa, sb;
    const struct rvt_walk w = {.flags = RVT_WALK_INSNS, .insns = 1};
    int ra = rvt_flow_walk(a->f, &w, &sa), rb = rvt_flow_walk_one(b->f, &sb);
    CHECK_MSG(ra == rb, "%s 0x%llx: walk %d, walk_one %d", what, (unsigned long long)pc, ra, rb);
    if (ra < 0) {
        CHECK(strcmp(rvt_flow_error(a->f), rvt_flow_error(b->f)) == 0);
        return;
    }
    CHECK_MSG(sa.reason == sb.reason && sa.cf == sb.cf && sa.last == sb.last && sa.pc == sb.pc &&
                  sa.insns == sb.insns && sa.halfwords == sb.halfwords && sa.target == sb.target,
              "%s 0x%llx: stops differ (reason %u/%u, insns %llu/%llu, halfwords %llu/%llu, pc 0x%llx/0x%llx)", what,
              (unsigned long long)pc, sa.reason, sb.reason, (unsigned long long)sa.insns,
              (unsigned long long)sb.insns, (unsigned long long)sa.halfwords, (unsigned long long)sb.halfwords,
              (unsigned long long)sa.pc, (unsigned long long)sb.pc);
    CHECK(rvt_flow_pending(a->f) == rvt_flow_pending(b->f));
    CHECK(rvt_flow_insns(a->f) == rvt_flow_insns(b->f));
    CHECK(rvt_flow_pending_sijump(a->f) == rvt_flow_pending_sijump(b->f));
    CHECK(rvt_flow_continue(a->f) == rvt_flow_continue(b->f));
    CHECK_MSG(rvt_flow_pc(a->f) == rvt_flow_pc(b->f), "%s 0x%llx: next pc 0x%llx, walk_one 0x%llx", what,
              (unsigned long long)pc, (unsigned long long)rvt_flow_pc(a->f), (unsigned long long)rvt_flow_pc(b->f));
}

static void same_blocks(const struct collect *a, const struct collect *b, const char *what)
{
    CHECK_MSG(a->n == b->n, "%s: %u blocks, walk_one %u", what, a->n, b->n);
    for (unsigned i = 0; i < a->n && i < b->n; i++) {
        const struct rvt_block *x = &a->b[i], *y = &b->b[i];
        CHECK_MSG(x->start == y->start && x->last == y->last && x->next == y->next && x->ninsns == y->ninsns &&
                      x->index == y->index && x->end == y->end && x->cf == y->cf && x->flags == y->flags &&
                      x->last_len == y->last_len,
                  "%s: block %u differs", what, i);
    }
}

static void test_walk_one(const char *elf)
{
    struct rvt_image *img = load(elf);
    uint64_t exp[64];
    unsigned n = expected(img, exp);
    static struct collect ca, cb;
    for (int mode = 0; mode < 2; mode++) {
        enum rvt_flow_ecall ecall = mode ? RVT_FLOW_ECALL_SEQUENTIAL : RVT_FLOW_ECALL_TRAP;
        struct rvt_flow *fa = mkflow_cap(img, &ca, ecall, 0), *fb = mkflow_cap(img, &cb, ecall, 0);
        /* each instruction on its own, after a sync to it */
        for (unsigned i = 0; i < n; i++) {
            CHECK(rvt_flow_sync(fa, exp[i], RVT_PRIV_M, 0, true) == 0);
            CHECK(rvt_flow_sync(fb, exp[i], RVT_PRIV_M, 0, true) == 0);
            same_walk_one(&ca, &cb, exp[i], elf);
        }
        /* one after another, as a decoder retiring reported instructions does */
        CHECK(rvt_flow_sync(fa, exp[0], RVT_PRIV_M, 0, true) == 0);
        CHECK(rvt_flow_sync(fb, exp[0], RVT_PRIV_M, 0, true) == 0);
        for (unsigned i = 0; i < 8; i++)
            same_walk_one(&ca, &cb, rvt_flow_pc(fa), elf);
        CHECK(rvt_flow_finish(fa) == 0);
        CHECK(rvt_flow_finish(fb) == 0);
        same_blocks(&ca, &cb, elf);
        CHECK(cb.n > n / 2);
        rvt_flow_free(fa);
        rvt_flow_free(fb);
    }
    /* the decode's instruction limit: the second instruction is refused alike */
    struct rvt_flow *fa = mkflow_cap(img, &ca, RVT_FLOW_ECALL_TRAP, 1), *fb = mkflow_cap(img, &cb, RVT_FLOW_ECALL_TRAP, 1);
    CHECK(rvt_flow_sync(fa, exp[0], RVT_PRIV_M, 0, true) == 0);
    CHECK(rvt_flow_sync(fb, exp[0], RVT_PRIV_M, 0, true) == 0);
    same_walk_one(&ca, &cb, exp[0], elf);
    same_walk_one(&ca, &cb, exp[1], elf);
    CHECK(rvt_flow_limit_reached(fb));
    rvt_flow_finish(fa);
    rvt_flow_finish(fb);
    same_blocks(&ca, &cb, elf);
    rvt_flow_free(fa);
    rvt_flow_free(fb);
    rvt_img_free(img);
}

/* The auipc/lui of a sequentially inferable jump retired by an earlier
 * walk (a count ending between the pair) still makes the jump inferable;
 * a trap in between does not. */
static void test_sijump_across(const char *elf)
{
    struct rvt_image *img = load(elf);
    struct collect c;
    struct rvt_flow *f = mkflow(img, &c, RVT_FLOW_ECALL_SEQUENTIAL, 0, true);
    struct rvt_stop st;
    uint64_t al = sym(img, "after_leaf"), si = sym(img, "si_target");
    struct rvt_insn lui;
    REQUIRE(rvt_img_insn(img, al, &lui) == 0);
    CHECK(rvt_flow_sync(f, al, RVT_PRIV_M, 0, true) == 0);
    struct rvt_walk w = {.flags = RVT_WALK_HALFWORDS, .halfwords = lui.len / 2u};
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_COUNT);
    CHECK_EQ(st.last, al);
    w.flags = RVT_WALK_ADDR;
    w.addr = si + 8; /* stop before jr t2 */
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_ADDR); /* the jalr x0 went to si_target by itself */
    CHECK_EQ(st.insns, 3);
    /* with a trap between the pair the jump needs its target from the trace */
    CHECK(rvt_flow_sync(f, al, RVT_PRIV_M, 0, true) == 0);
    w.flags = RVT_WALK_HALFWORDS;
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK(rvt_flow_trap(f, true, 7, 0, true, si - 4) == 0);
    w.flags = 0;
    CHECK(rvt_flow_walk(f, &w, &st) == 0);
    CHECK_EQ(st.reason, RVT_STOP_UNINF);
    CHECK_EQ(st.last, si - 4);
    rvt_flow_free(f);
    rvt_img_free(img);
}

static void test_callstack(void)
{
    struct rvt_callstack cs;
    uint64_t v;
    rvt_cs_init(&cs, 3, RVT_CS_DROP_OLDEST);
    CHECK(!rvt_cs_pop(&cs, &v));
    CHECK(!rvt_cs_push(&cs, 1));
    CHECK(!rvt_cs_push(&cs, 2));
    CHECK(!rvt_cs_push(&cs, 3));
    CHECK(rvt_cs_push(&cs, 4)); /* overflow drops 1 */
    CHECK(rvt_cs_pop(&cs, &v) && v == 4);
    CHECK(rvt_cs_pop(&cs, &v) && v == 3);
    CHECK(rvt_cs_pop(&cs, &v) && v == 2);
    CHECK(!rvt_cs_pop(&cs, &v));
    rvt_cs_init(&cs, 2, RVT_CS_IGNORE_NEW);
    rvt_cs_push(&cs, 1);
    rvt_cs_push(&cs, 2);
    CHECK(rvt_cs_push(&cs, 3));
    CHECK(rvt_cs_peek(&cs, &v) && v == 2);
    rvt_cs_init(&cs, 0, RVT_CS_DROP_OLDEST);
    CHECK(!rvt_cs_push(&cs, 1));
    CHECK(!rvt_cs_pop(&cs, &v));
}

/* The reference execution (164,959 instructions of a real RV32 program):
 * PC list -> builder -> ideal decoder -> PC list, byte for byte. */
static void test_reference_execution(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf"), *pcs = rvt_test_data("ntrace-t1/test-PCONLY.txt");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_load_elf(img, elf) == 0);
    for (int merge = 0; merge < 2; merge++) {
        char out[512];
        snprintf(out, sizeof out, "%s/pcs%d.txt", rvt_test_tmpdir(), merge);
        FILE *fo = fopen(out, "w");
        REQUIRE(fo);
        struct rvt_out_config oc = {.size = sizeof oc, .kind = RVT_OUT_PCS, .f = fo, .image = img};
        struct rvt_output *o = rvt_out_new(&oc);
        struct rvt_flow_config fc = {.size = sizeof fc, .image = img, .sink = rvt_out_sink(o)};
        struct rvt_flow *f = rvt_flow_new(&fc);
        struct rvt_ingflow *x = rvt_ingflow_new(f);
        struct rvt_ing_reader_config rc = {.size = sizeof rc, .image = img, .merge_blocks = merge};
        struct rvt_ing_reader *r;
        struct rvt_diag d = {0};
        REQUIRE(rvt_ing_open(&r, pcs, &rc, &d) == 0);
        CHECK_EQ(rvt_ing_reader_format(r), RVT_ING_FMT_PCLIST);
        struct rvt_ing_rec rec;
        int n, bad = 0;
        while ((n = rvt_ing_next(r, &rec)) > 0)
            if (rvt_ingflow_put(x, &rec) < 0 && !bad++)
                rvt_test_fail(__FILE__, __LINE__, "%s", rvt_ingflow_error(x));
        CHECK(n == 0);
        CHECK(rvt_ingflow_finish(x) == 0);
        CHECK(rvt_out_finish(o) == 0);
        CHECK_EQ(rvt_out_stats(o)->insns, 164959);
        fclose(fo);
        CHECK_MSG(rvt_test_sh("cmp -s '%s' '%s'", out, pcs) == 0, "decoded PCs differ from %s (merge %d)", pcs, merge);
        rvt_ing_close(r);
        rvt_ingflow_free(x);
        rvt_flow_free(f);
        rvt_out_free(o);
    }
    rvt_img_free(img);
    free(elf);
    free(pcs);
}

int main(void)
{
    test_callstack();
    test_ideal("flow/flowtest64.elf");
    test_ideal("flow/flowtest32.elf");
    test_walk_decisions("flow/flowtest64.elf");
    test_walk_decisions("flow/flowtest32.elf");
    test_limits("flow/flowtest64.elf");
    test_limits("flow/flowtest32.elf");
    test_walk_one("flow/flowtest64.elf");
    test_walk_one("flow/flowtest32.elf");
    test_sijump_across("flow/flowtest64.elf");
    test_sijump_across("flow/flowtest32.elf");
    test_reference_execution();
    return rvt_test_summary("test_flow");
}

/* The call tree's rules on hand-made block streams over the analysis test
 * program's code (tests/data/analysis/prog64): calls and returns, longjmp
 * unwinding, unmatched returns, tail calls, traps (with the call a trap
 * hid), gaps, the depth limit, time shares, branch outcomes and coverage,
 * and the errors the analysis reports. */
#include "testlib.h"
#include "views.h"

#include <stdlib.h>
#include <string.h>

static struct rvt_image *g_img;

static uint64_t sym(const char *name)
{
    const struct rvt_symbol *s = rvt_img_symbol_named(g_img, name);
    CHECK_MSG(s != NULL, "no symbol %s", name);
    return s ? s->addr : 0;
}

/* The address k instructions after addr. */
static uint64_t after(uint64_t addr, unsigned k)
{
    for (unsigned i = 0; i < k; i++) {
        struct rvt_insn in;
        CHECK(rvt_img_insn(g_img, addr, &in) == 0);
        addr += in.len;
    }
    return addr;
}

/* A block of n instructions from start, ending as told. */
static struct rvt_block blk(uint64_t start, unsigned n, uint8_t end, uint8_t cf, uint64_t next)
{
    struct rvt_block b = {.start = start, .ninsns = n, .end = end, .cf = cf, .next = next};
    uint64_t last = after(start, n - 1);
    struct rvt_insn in;
    CHECK(rvt_img_insn(g_img, last, &in) == 0);
    b.last = last;
    b.last_len = in.len;
    return b;
}

struct feed {
    struct rvt_analysis *a;
    struct rvt_flow_sink s;
};

static struct feed start(unsigned max_depth)
{
    struct rvt_an_config ac = {.size = sizeof ac, .image = g_img, .max_depth = max_depth};
    struct feed f;
    f.a = rvt_an_new(&ac);
    f.s = rvt_an_sink(f.a, 0);
    return f;
}

static void put(struct feed *f, struct rvt_block b)
{
    CHECK_MSG(f->s.block(f->s.ctx, &b) == 0, "block at 0x%" PRIx64 ": %s", b.start, rvt_an_error(f->a));
}

static void note(struct feed *f, uint8_t kind, uint8_t reason, uint64_t addr, uint64_t value)
{
    struct rvt_note n = {.kind = kind, .reason = reason, .addr = addr, .value = value};
    CHECK(f->s.note(f->s.ctx, &n) == 0);
}

static const struct rvt_an_node *node_named(struct rvt_analysis *a, const char *name, uint8_t kind, unsigned nth)
{
    size_t n;
    const struct rvt_an_node *nd = rvt_an_nodes(a, 0, &n);
    for (size_t i = 0; i < n; i++)
        if (nd[i].kind == kind && strcmp(nd[i].name, name) == 0 && nth-- == 0)
            return &nd[i];
    return NULL;
}

static struct rvt_an_summary summary(struct rvt_analysis *a)
{
    struct rvt_an_summary s;
    memset(&s, 0, sizeof s);
    CHECK(rvt_an_summary(a, 0, &s, sizeof s) == 0);
    return s;
}

static const struct rvt_an_func *func_named(struct rvt_analysis *a, const char *name)
{
    size_t n;
    const struct rvt_an_func *v = rvt_an_funcs(a, -1, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

/* main -> protected_dives -> setjmp (returns) -> dive -> dive -> dive ->
 * longjmp, whose return lands in protected_dives (setjmp's return address,
 * no longer on the stack): the four frames above it are unwound. */
static void test_longjmp(void)
{
    struct feed f = start(0);
    const uint64_t M = sym("main_hart"), P = sym("protected_dives.constprop.0"), S = sym("setjmp"),
                   D = sym("dive"), L = sym("longjmp");
    const uint64_t m_ret = after(M, 1), p_ret = after(P, 1);
    put(&f, blk(M, 1, RVT_END_CALL, RVT_CF_CALL_INF, P));
    put(&f, blk(P, 1, RVT_END_CALL, RVT_CF_CALL_INF, S));
    put(&f, blk(S, 1, RVT_END_RETURN, RVT_CF_RETURN, p_ret));
    put(&f, blk(p_ret, 1, RVT_END_CALL, RVT_CF_CALL_INF, D));
    put(&f, blk(D, 1, RVT_END_CALL, RVT_CF_CALL_INF, D));
    put(&f, blk(D, 1, RVT_END_CALL, RVT_CF_CALL_INF, D));
    put(&f, blk(D, 1, RVT_END_CALL, RVT_CF_CALL_INF, L));
    put(&f, blk(L, 1, RVT_END_RETURN, RVT_CF_RETURN, p_ret)); /* longjmp */
    put(&f, blk(p_ret, 1, RVT_END_RETURN, RVT_CF_RETURN, m_ret));
    put(&f, blk(m_ret, 2, RVT_END_SEQ, RVT_CF_NONE, 0));
    CHECK(rvt_an_finish(f.a) == 0);
    struct rvt_an_summary s = summary(f.a);
    CHECK_EQ(s.insns, 11);
    CHECK_EQ(s.calls, 6);
    CHECK_EQ(s.returns, 3);
    CHECK_EQ(s.unwound, 4);
    CHECK_EQ(s.unmatched, 0);
    CHECK_EQ(s.max_depth, 6);
    const struct rvt_an_node *main_n = node_named(f.a, "main_hart", RVT_AN_RESUMED, 0),
                              *p = node_named(f.a, "protected_dives.constprop.0", RVT_AN_CALL, 0),
                              *l = node_named(f.a, "longjmp", RVT_AN_CALL, 0),
                              *d1 = node_named(f.a, "dive", RVT_AN_CALL, 0);
    REQUIRE(main_n && p && l && d1);
    CHECK_EQ(main_n->total, 11);
    CHECK_EQ(main_n->self, 3);
    CHECK_EQ(p->total, 8);
    CHECK_EQ(p->self, 3);
    CHECK_EQ(p->calls, 1);
    CHECK_EQ(l->unwound, 1);
    CHECK_EQ(d1->unwound, 1);
    CHECK_EQ(d1->total, 4); /* dive, dive, dive, longjmp */
    CHECK_EQ(l->depth, 6);
    /* spans: 4 unwound, protected_dives and setjmp returned, main to the end */
    size_t ns;
    const struct rvt_an_span *sp = rvt_an_spans(f.a, 0, &ns);
    unsigned unw = 0, ret = 0, end = 0;
    for (size_t i = 0; i < ns; i++) {
        unw += sp[i].how == RVT_AN_END_UNWOUND;
        ret += sp[i].how == RVT_AN_END_RETURN;
        end += sp[i].how == RVT_AN_END_TRACE;
    }
    CHECK_EQ(unw, 4);
    CHECK_EQ(ret, 2);
    CHECK_EQ(end, 1);
    /* dive counted once in total despite recursion */
    const struct rvt_an_func *fd = func_named(f.a, "dive");
    REQUIRE(fd);
    CHECK_EQ(fd->total, 4);
    CHECK_EQ(fd->self, 3);
    CHECK_EQ(fd->calls, 3);
    rvt_an_free(f.a);
}

/* A return to where no frame leads, outside any function on the stack;
 * a return from the function the trace started in. */
static void test_unmatched(void)
{
    struct feed f = start(0);
    const uint64_t M = sym("main_hart"), F = sym("fib"), A = sym("op_add"), X = sym("op_mix");
    put(&f, blk(M, 1, RVT_END_CALL, RVT_CF_CALL_INF, F));
    put(&f, blk(F, 1, RVT_END_RETURN, RVT_CF_RETURN, after(A, 1))); /* not main's return address */
    put(&f, blk(after(A, 1), 1, RVT_END_RETURN, RVT_CF_RETURN, after(X, 1)));
    put(&f, blk(after(X, 1), 1, RVT_END_SEQ, RVT_CF_NONE, 0));
    CHECK(rvt_an_finish(f.a) == 0);
    struct rvt_an_summary s = summary(f.a);
    CHECK_EQ(s.unmatched, 1);
    const struct rvt_an_node *fib = node_named(f.a, "fib", RVT_AN_CALL, 0),
                              *add = node_named(f.a, "op_add", RVT_AN_RESUMED, 0),
                              *mix = node_named(f.a, "op_mix", RVT_AN_RESUMED, 0);
    REQUIRE(fib && add && mix);
    CHECK_EQ(fib->unmatched, 1);
    CHECK_EQ(add->depth, 1); /* resumed at the top level */
    CHECK_EQ(mix->depth, 1);
    CHECK_EQ(add->calls, 0);
    rvt_an_free(f.a);
}

/* A jump to another function's first instruction replaces the frame; a
 * jump inside a function does not. */
static void test_tail_call(void)
{
    struct feed f = start(0);
    const uint64_t M = sym("main_hart"), O = sym("op_fib"), F = sym("fib");
    const uint64_t m_ret = after(M, 1);
    put(&f, blk(M, 1, RVT_END_CALL, RVT_CF_CALL_INF, O));
    put(&f, blk(O, 2, RVT_END_JUMP, RVT_CF_JUMP_INF, after(O, 3))); /* inside op_fib */
    put(&f, blk(after(O, 3), 1, RVT_END_JUMP, RVT_CF_JUMP_INF, F));  /* tail call */
    put(&f, blk(F, 3, RVT_END_RETURN, RVT_CF_RETURN, m_ret));       /* returns to main */
    put(&f, blk(m_ret, 1, RVT_END_SEQ, RVT_CF_NONE, 0));
    CHECK(rvt_an_finish(f.a) == 0);
    struct rvt_an_summary s = summary(f.a);
    CHECK_EQ(s.tail_calls, 1);
    CHECK_EQ(s.unmatched, 0);
    const struct rvt_an_node *o = node_named(f.a, "op_fib", RVT_AN_CALL, 0),
                              *fib = node_named(f.a, "fib", RVT_AN_CALL, 0),
                              *m = node_named(f.a, "main_hart", RVT_AN_RESUMED, 0);
    REQUIRE(o && fib && m);
    CHECK_EQ(o->self, 3);
    CHECK_EQ(fib->self, 3);
    CHECK_EQ(fib->depth, 2); /* a sibling of op_fib under main */
    CHECK_EQ(fib->parent, (uint32_t)(m - rvt_an_nodes(f.a, 0, &(size_t){0})));
    CHECK_EQ(m->self, 2);
    rvt_an_free(f.a);
}

/* An interrupt right after a call retired: the handler runs in a trap
 * frame; its trap return lands in the callee, and the call the trap hid
 * takes effect then. */
static void test_trap_hides_call(void)
{
    struct feed f = start(0);
    const uint64_t M = sym("main_hart"), F = sym("fib"), T = sym("trap_entry_m"), MT = sym("m_trap");
    const uint64_t m_ret = after(M, 1), t_ret = after(T, 1);
    struct rvt_block b = blk(M, 1, RVT_END_TRAP, RVT_CF_CALL_INF, T);
    b.flags = RVT_BLK_INTERRUPT;
    b.cause = 7;
    put(&f, b);
    put(&f, blk(T, 1, RVT_END_CALL, RVT_CF_CALL_INF, MT));
    put(&f, blk(MT, 2, RVT_END_RETURN, RVT_CF_RETURN, t_ret));
    put(&f, blk(t_ret, 1, RVT_END_TRAPRET, RVT_CF_TRAPRET, F));
    put(&f, blk(F, 2, RVT_END_RETURN, RVT_CF_RETURN, m_ret));
    put(&f, blk(m_ret, 1, RVT_END_SEQ, RVT_CF_NONE, 0));
    CHECK(rvt_an_finish(f.a) == 0);
    struct rvt_an_summary s = summary(f.a);
    CHECK_EQ(s.traps, 1);
    CHECK_EQ(s.interrupts, 1);
    CHECK_EQ(s.trap_returns, 1);
    CHECK_EQ(s.unmatched, 0);
    const struct rvt_an_node *t = node_named(f.a, "trap_entry_m", RVT_AN_TRAP, 0),
                              *fib = node_named(f.a, "fib", RVT_AN_CALL, 0),
                              *mt = node_named(f.a, "m_trap", RVT_AN_CALL, 0);
    REQUIRE(t && fib && mt);
    CHECK_EQ(t->depth, 2);
    CHECK_EQ(t->total, 4);
    CHECK_EQ(mt->depth, 3);
    CHECK_EQ(fib->depth, 2);
    CHECK_EQ(fib->self, 2);
    size_t ne;
    const struct rvt_an_event *ev = rvt_an_events(f.a, 0, &ne);
    REQUIRE(ne == 1);
    CHECK_EQ(ev[0].kind, RVT_AN_EV_INTERRUPT);
    CHECK_EQ(ev[0].cause, 7);
    CHECK_EQ(ev[0].addr, M);
    CHECK_EQ(ev[0].handler, T);
    CHECK_EQ(ev[0].index, 1);
    rvt_an_free(f.a);
}

/* A trap with nothing retired (a note), nested in a handler before its
 * first instruction; a gap closes every frame; the stack restarts after.
 * The call to fib retired but fib's first instruction faulted: like a trap
 * that ends a block, the transfer before it takes effect when the handler
 * returns to its target, so the handler's frame is main's child. */
static void test_note_trap_and_gap(void)
{
    struct feed f = start(0);
    const uint64_t M = sym("main_hart"), T = sym("trap_entry_m"), F = sym("fib");
    put(&f, blk(M, 2, RVT_END_CALL, RVT_CF_CALL_INF, F));
    note(&f, RVT_NOTE_TRAP, 0, F, 2); /* fib's first instruction faults */
    note(&f, RVT_NOTE_TRAP, 1, T, 7); /* an interrupt before the handler's first instruction */
    put(&f, blk(T, 3, RVT_END_SEQ, RVT_CF_NONE, 0));
    note(&f, RVT_NOTE_GAP, RVT_GAP_LOST, 0, 0);
    put(&f, blk(F, 2, RVT_END_SEQ, RVT_CF_NONE, 0));
    CHECK(rvt_an_finish(f.a) == 0);
    struct rvt_an_summary s = summary(f.a);
    CHECK_EQ(s.traps, 2);
    CHECK_EQ(s.interrupts, 1);
    CHECK_EQ(s.gaps, 1);
    CHECK_EQ(s.calls, 0); /* the call never took effect */
    const struct rvt_an_node *main_n = node_named(f.a, "main_hart", RVT_AN_RESUMED, 0),
                              *outer = node_named(f.a, "trap_entry_m", RVT_AN_TRAP, 0),
                              *inner = node_named(f.a, "trap_entry_m", RVT_AN_TRAP, 1),
                              *fib_res = node_named(f.a, "fib", RVT_AN_RESUMED, 0);
    REQUIRE(main_n && outer && inner && fib_res);
    CHECK(node_named(f.a, "fib", RVT_AN_CALL, 0) == NULL); /* the handler never returned to it */
    CHECK_EQ(outer->depth, main_n->depth + 1);
    CHECK_EQ(outer->self, 0); /* nested before running */
    CHECK_EQ(inner->self, 3);
    CHECK_EQ(inner->depth, outer->depth + 1);
    CHECK_EQ(main_n->total, 5);
    CHECK_EQ(fib_res->depth, 1); /* after the gap */
    CHECK_EQ(fib_res->self, 2);
    size_t ns, ne;
    const struct rvt_an_span *sp = rvt_an_spans(f.a, 0, &ns);
    unsigned gap = 0;
    for (size_t i = 0; i < ns; i++)
        gap += sp[i].how == RVT_AN_END_GAP;
    CHECK_EQ(gap, 3); /* main and both trap frames */
    const struct rvt_an_event *ev = rvt_an_events(f.a, 0, &ne);
    REQUIRE(ne == 3);
    CHECK_EQ(ev[0].handler, T); /* the nested trap's epc is the first handler */
    CHECK_EQ(ev[0].addr, after(M, 1));
    CHECK_EQ(ev[1].handler, T);
    CHECK_EQ(ev[1].kind, RVT_AN_EV_INTERRUPT);
    CHECK_EQ(ev[2].kind, RVT_AN_EV_GAP);
    CHECK_EQ(ev[2].index, 5);
    rvt_an_free(f.a);
}

/* Calls deeper than the limit are counted, and their returns do not pop
 * the frames kept. */
static void test_depth_limit(void)
{
    struct feed f = start(4);
    const uint64_t M = sym("main_hart"), F = sym("fib");
    uint64_t ret[8];
    put(&f, blk(M, 1, RVT_END_CALL, RVT_CF_CALL_INF, F));
    ret[0] = after(M, 1);
    for (int i = 1; i < 6; i++) {
        put(&f, blk(F, 1, RVT_END_CALL, RVT_CF_CALL_INF, F));
        ret[i] = after(F, 1);
    }
    for (int i = 5; i >= 0; i--)
        put(&f, blk(F, 1, RVT_END_RETURN, RVT_CF_RETURN, ret[i]));
    put(&f, blk(ret[0], 1, RVT_END_SEQ, RVT_CF_NONE, 0));
    CHECK(rvt_an_finish(f.a) == 0);
    struct rvt_an_summary s = summary(f.a);
    CHECK_EQ(s.max_depth, 3);
    CHECK_EQ(s.depth_overflow, 4);
    CHECK_EQ(s.unmatched, 0);
    const struct rvt_an_node *m = node_named(f.a, "main_hart", RVT_AN_RESUMED, 0);
    REQUIRE(m);
    CHECK_EQ(m->total, 13);
    CHECK_EQ(m->self, 2);
    rvt_an_free(f.a);
}

/* Time since the last timestamp is shared by the frames that ran since, in
 * proportion to their instructions. */
static void test_time(void)
{
    struct feed f = start(0);
    const uint64_t M = sym("main_hart"), F = sym("fib");
    const uint64_t m_ret = after(M, 4);
    struct rvt_block b = blk(M, 4, RVT_END_CALL, RVT_CF_CALL_INF, F);
    b.flags = RVT_BLK_HAS_TIME;
    b.time = 1000;
    put(&f, b);
    b = blk(F, 4, RVT_END_RETURN, RVT_CF_RETURN, m_ret);
    b.flags = RVT_BLK_HAS_TIME;
    b.time = 1000;
    put(&f, b);
    b = blk(m_ret, 4, RVT_END_SEQ, RVT_CF_NONE, 0);
    b.flags = RVT_BLK_HAS_TIME;
    b.time = 1080; /* 80 for main's 4 and fib's 4 */
    put(&f, b);
    b = blk(after(m_ret, 4), 1, RVT_END_SEQ, RVT_CF_NONE, 0);
    b.flags = RVT_BLK_HAS_TIME;
    b.time = 1100; /* 20 for main's second 4 */
    put(&f, b);
    CHECK(rvt_an_finish(f.a) == 0);
    struct rvt_an_summary s = summary(f.a);
    CHECK(s.has_time);
    CHECK_EQ(s.time_first, 1000);
    CHECK_EQ(s.time_last, 1100);
    const struct rvt_an_func *fm = func_named(f.a, "main_hart"), *ff = func_named(f.a, "fib");
    REQUIRE(fm && ff);
    CHECK_EQ(ff->self_time, 40);
    CHECK_EQ(fm->self_time, 60);
    CHECK_EQ(fm->total_time, 100);
    rvt_an_free(f.a);
}

/* Branch outcomes: a block ending in a taken branch, one cut right after a
 * not-taken one, branches inside blocks (not taken), a branch cut by an
 * interrupt whose trap return shows where it went. */
static void test_branches(void)
{
    const uint64_t F = sym("fib"), T = sym("trap_entry_m");
    uint64_t br = F;
    unsigned k = 0;
    struct rvt_insn in;
    while (rvt_img_insn(g_img, br, &in) == 0 && in.cf != RVT_CF_BRANCH && k < 40) {
        br += in.len;
        k++;
    }
    REQUIRE(in.cf == RVT_CF_BRANCH);
    const uint64_t fall = br + in.len, target = in.target;
    struct feed f = start(0);
    put(&f, blk(F, k + 1, RVT_END_BRANCH, RVT_CF_BRANCH, target));  /* taken */
    put(&f, blk(F, k + 1, RVT_END_SEQ, RVT_CF_BRANCH, fall));       /* not taken, cut there */
    put(&f, blk(F, k + 2, RVT_END_SEQ, RVT_CF_NONE, 0));            /* not taken inside */
    struct rvt_block b = blk(F, k + 1, RVT_END_TRAP, RVT_CF_BRANCH, T); /* interrupted */
    b.flags = RVT_BLK_INTERRUPT;
    put(&f, b);
    put(&f, blk(T, 1, RVT_END_TRAPRET, RVT_CF_TRAPRET, target)); /* ... after it was taken */
    put(&f, blk(target, 1, RVT_END_SEQ, RVT_CF_NONE, 0));
    CHECK(rvt_an_finish(f.a) == 0);
    const struct rvt_an_insn *x = NULL;
    size_t n;
    const struct rvt_an_insn *v = rvt_an_insns(f.a, &n);
    for (size_t i = 0; i < n; i++)
        if (v[i].addr == br)
            x = &v[i];
    REQUIRE(x);
    CHECK_EQ(x->count, 4);
    CHECK_EQ(x->taken, 2);
    CHECK_EQ(x->not_taken, 2);
    struct rvt_an_summary s = summary(f.a);
    CHECK(s.branches_both >= 1);
    CHECK(s.branches_total > s.branches_both);
    const struct rvt_an_func *ff = func_named(f.a, "fib");
    REQUIRE(ff);
    CHECK(ff->insns_hit >= k + 2);
    CHECK(ff->insns_total > ff->insns_hit);
    CHECK_EQ(ff->branches_both, 1);
    /* basic blocks: fib's entry, the branch's target and the one after it ran */
    CHECK(ff->bblocks_hit >= 3);
    CHECK(ff->bblocks_total > ff->bblocks_hit);
    CHECK_EQ(s.bblocks_total >= ff->bblocks_total, 1);
    rvt_an_free(f.a);
}

/* What the analysis refuses, with messages; and an empty analysis writes
 * every view. */
static void test_errors(void)
{
    struct feed f = start(0);
    struct rvt_block b = blk(sym("fib"), 1, RVT_END_SEQ, RVT_CF_NONE, 0);
    b.flags = RVT_BLK_COUNT_UNKNOWN;
    CHECK(f.s.block(f.s.ctx, &b) != 0);
    CHECK(strstr(rvt_an_error(f.a), "needs the ELF") != NULL);
    rvt_an_free(f.a);

    f = start(0);
    put(&f, blk(sym("fib"), 1, RVT_END_SEQ, RVT_CF_NONE, 0));
    CHECK(rvt_an_finish(f.a) == 0);
    b = blk(sym("fib"), 1, RVT_END_SEQ, RVT_CF_NONE, 0);
    CHECK(f.s.block(f.s.ctx, &b) != 0);
    CHECK(strstr(rvt_an_error(f.a), "after rvt_an_finish") != NULL);
    rvt_an_free(f.a);

    /* a block running off the code */
    f = start(0);
    struct rvt_block off = {.start = 0x1000, .last = 0x1000, .ninsns = 3, .last_len = 4};
    put(&f, off);
    CHECK(rvt_an_finish(f.a) < 0);
    CHECK(strstr(rvt_an_error(f.a), "without code") != NULL);
    rvt_an_free(f.a);

    f = start(0);
    CHECK(rvt_an_finish(f.a) == 0);
    struct views v;
    views_of(f.a, NULL, &v);
    CHECK(v.v[0] && v.v[5] && v.v[7]);
    CHECK(strstr(v.v[5], "\"traceEvents\"") != NULL);
    views_free(&v);
    CHECK(rvt_an_sink(f.a, RVT_AN_MAX_HARTS).block == NULL);
    rvt_an_free(f.a);
    struct rvt_an_config bad = {.size = sizeof bad};
    CHECK(rvt_an_new(&bad) == NULL); /* no image */
}

int main(void)
{
    char *elf = unxz("analysis/prog64.xz");
    g_img = rvt_img_new();
    if (!g_img || rvt_img_load_elf(g_img, elf) < 0) {
        fprintf(stderr, "%s: %s\n", elf, g_img ? rvt_img_error(g_img) : "no memory");
        return 1;
    }
    test_longjmp();
    test_unmatched();
    test_tail_call();
    test_trap_hides_call();
    test_note_trap_and_gap();
    test_depth_limit();
    test_time();
    test_branches();
    test_errors();
    rvt_img_free(g_img);
    free(elf);
    return rvt_test_summary("test_an_tree");
}

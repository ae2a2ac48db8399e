/* Filter and trigger tests.
 *
 * On the real execution of tests/data/ntrace-t1 (test.elf, 164,959 PCs):
 * every comparator function, ranges, masks, latches, symbols, context,
 * privilege, sideband and every trigger kind, each compared instruction by
 * instruction with a direct computation from the PC list (the test's own
 * reading of the text file, and instruction lengths from the ISA decoder,
 * not the filter's block cache), with one-instruction records and with
 * merged multi-instruction records (which the filter must split).
 * Hand-built trap sequences check the cause/interrupt windows, nesting and
 * saturation, held tval, notify and the fields of split records exactly. */
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* ---- the reference execution ----------------------------------------------- */

static struct rvt_image *g_img;
static uint64_t *g_pcs;
static size_t g_npcs;
static char *g_pclist_path;

static void load_reference(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf");
    g_pclist_path = rvt_test_data("ntrace-t1/test-PCONLY.txt");
    g_img = rvt_img_new();
    if (rvt_img_load_elf(g_img, elf) < 0) {
        CHECK_MSG(0, "load %s: %s", elf, rvt_img_error(g_img));
        exit(rvt_test_summary("test_filter"));
    }
    size_t len;
    uint8_t *text = rvt_test_read(g_pclist_path, &len);
    if (!text)
        exit(rvt_test_summary("test_filter"));
    g_pcs = malloc(sizeof *g_pcs * (len / 8 + 1));
    char *s = (char *)text, *end = (char *)text + len;
    while (s < end) {
        char *e;
        uint64_t v = strtoull(s, &e, 16);
        if (e == s)
            break;
        g_pcs[g_npcs++] = v;
        s = e;
        while (s < end && (*s == '\n' || *s == '\r'))
            s++;
    }
    free(text);
    free(elf);
}

static const struct rvt_symbol *sym(const char *name)
{
    const struct rvt_symbol *s = rvt_img_symbol_named(g_img, name);
    if (!s) {
        CHECK_MSG(0, "no symbol %s", name);
        exit(rvt_test_summary("test_filter"));
    }
    return s;
}

/* Length of the instruction at pc, from the ISA decoder on the image bytes. */
static unsigned insn_len(uint64_t pc)
{
    uint8_t b[2] = {0, 0};
    if (rvt_img_read(g_img, pc, b, 2) < 2)
        return 0;
    return rvt_isa_length((uint16_t)(b[0] | b[1] << 8));
}

/* ---- running a filter --------------------------------------------------------- */

struct recs {
    struct rvt_ing_rec *r;
    size_t n, cap;
};

static int push_rec(void *ctx, const struct rvt_ing_rec *r)
{
    struct recs *v = ctx;
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 1024;
        v->r = realloc(v->r, v->cap * sizeof *v->r);
    }
    v->r[v->n++] = *r;
    return 0;
}

/* What the filter decided for one retired instruction. */
struct insn_out {
    uint64_t pc;
    bool q, notify;
};

struct run {
    struct insn_out *v;
    size_t n;
    struct rvt_filter_stats st;
    struct recs out;
    bool ok;
};

static void run_free(struct run *r)
{
    free(r->v);
    free(r->out.r);
    memset(r, 0, sizeof *r);
}

/* Optional rewrite of each input record before the filter (synthetic
 * context / privilege on the real execution); i = record number. */
typedef void (*rec_hook)(struct rvt_ing_rec *r, size_t i);

static bool make_cfg(struct rvt_filter_config *cfg, const char *filter, const char *trigger, const char *sideband)
{
    rvt_filter_config_init(cfg);
    cfg->image = g_img;
    struct rvt_diag d = {0};
    if (filter && rvt_filter_parse(cfg, filter, &d) < 0) {
        CHECK_MSG(0, "parse '%s': %s", filter, d.msg);
        return false;
    }
    if (trigger && rvt_filter_parse_trigger(cfg, trigger, &d) < 0) {
        CHECK_MSG(0, "parse trigger '%s': %s", trigger, d.msg);
        return false;
    }
    if (sideband && rvt_filter_parse_sideband(cfg, sideband, &d) < 0) {
        CHECK_MSG(0, "parse sideband '%s': %s", sideband, d.msg);
        return false;
    }
    return true;
}

/* Feed the PCONLY execution (merged or one record per instruction) through
 * the configuration; expand the output records back to instructions. */
static struct run run_cfg(const struct rvt_filter_config *cfg, bool merge, rec_hook hook)
{
    struct run out;
    memset(&out, 0, sizeof out);
    struct rvt_diag d = {0};
    struct rvt_filter *f = NULL;
    if (rvt_filter_new(&f, cfg, &d) < 0) {
        CHECK_MSG(0, "rvt_filter_new: %s", d.msg);
        return out;
    }
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = RVT_ING_FMT_PCLIST, .image = g_img, .merge_blocks = merge};
    struct rvt_ing_reader *in = NULL;
    if (rvt_ing_open(&in, g_pclist_path, &rc, &d) < 0) {
        CHECK_MSG(0, "open: %s", d.msg);
        rvt_filter_free(f);
        return out;
    }
    struct rvt_ing_rec r;
    int rr;
    size_t i = 0;
    while ((rr = rvt_ing_next(in, &r)) > 0) {
        if (hook)
            hook(&r, i);
        i++;
        if (rvt_filter_put(f, &r, push_rec, &out.out) < 0) {
            CHECK_MSG(0, "put: %s", rvt_filter_error(f));
            break;
        }
    }
    CHECK(rr == 0);
    CHECK(rvt_filter_finish(f) == 0);
    rvt_filter_get_stats(f, &out.st, sizeof out.st);
    rvt_filter_free(f);
    rvt_ing_close(in);
    /* Expand: each record's instructions, lengths from the ISA decoder. */
    out.v = malloc(sizeof *out.v * (g_npcs + 1));
    out.ok = true;
    for (size_t k = 0; k < out.out.n && out.ok; k++) {
        const struct rvt_ing_rec *o = &out.out.r[k];
        uint64_t pc = o->iaddr, end = rvt_ing_next_addr(o);
        while (pc < end) {
            unsigned len = insn_len(pc);
            if (!len || out.n == g_npcs) {
                CHECK_MSG(0, "record %zu at 0x%" PRIx64 ": cannot expand at 0x%" PRIx64, k, o->iaddr, pc);
                out.ok = false;
                break;
            }
            bool last = pc + len == end;
            out.v[out.n++] = (struct insn_out){pc, !(o->flags & RVT_ING_UNQUALIFIED),
                                               last && (o->flags & RVT_FILTER_NOTIFY)};
            pc += len;
        }
        if (pc != end) {
            CHECK_MSG(0, "record %zu: instructions overrun its end", k);
            out.ok = false;
        }
        if (o->flags & RVT_FILTER_NOTIFY)
            CHECK_MSG(!(o->flags & RVT_ING_UNQUALIFIED), "record %zu: notify on an unqualified record", k);
    }
    /* The instruction stream itself never changes. */
    CHECK_EQ(out.n, g_npcs);
    for (size_t k = 0; k < out.n && k < g_npcs; k++)
        if (out.v[k].pc != g_pcs[k]) {
            CHECK_MSG(0, "instruction %zu: 0x%" PRIx64 " after filtering, 0x%" PRIx64 " in the input", k, out.v[k].pc,
                      g_pcs[k]);
            out.ok = false;
            break;
        }
    CHECK_EQ(out.st.insns, g_npcs);
    CHECK_EQ(out.st.records_out, out.out.n);
    return out;
}

/* Expected qualification of instruction i at pc. */
typedef bool (*oracle_fn)(void *st, size_t i, uint64_t pc);

/* Run a spec on both record shapes and compare with the oracle, instruction
 * by instruction; checks the statistics against the oracle too. */
static void expect(const char *filter, const char *trigger, const char *sideband, rec_hook hook, oracle_fn oracle,
                   void *ost, size_t ost_size, const char *label)
{
    struct rvt_filter_config cfg;
    if (!make_cfg(&cfg, filter, trigger, sideband))
        return;
    void *state = malloc(ost_size ? ost_size : 1);
    for (int merge = 0; merge < 2; merge++) {
        if (merge && hook)
            break; /* the hooks give per-instruction values: one record per instruction */
        if (ost_size)
            memcpy(state, ost, ost_size);
        struct run r = run_cfg(&cfg, merge, hook);
        if (!r.ok) {
            run_free(&r);
            continue;
        }
        uint64_t traced = 0, ons = 0, offs = 0, bad = 0;
        int prev = -1;
        for (size_t i = 0; i < g_npcs; i++) {
            bool want = oracle(state, i, g_pcs[i]);
            traced += want;
            if (prev >= 0 && want != (bool)prev)
                want ? ons++ : offs++;
            prev = want;
            if (r.v[i].q != want && bad++ < 3)
                CHECK_MSG(0, "%s (%s records): instruction %zu at 0x%" PRIx64 ": qualified %d, expected %d", label,
                          merge ? "merged" : "single", i, g_pcs[i], r.v[i].q, want);
        }
        CHECK_MSG(bad == 0, "%s (%s records): %" PRIu64 " instructions decided wrongly", label,
                  merge ? "merged" : "single", bad);
        CHECK_EQ(r.st.insns_traced, traced);
        CHECK_EQ(r.st.on_transitions, ons);
        CHECK_EQ(r.st.off_transitions, offs);
        /* A filter that does something must leave some instructions on both sides. */
        CHECK_MSG(traced > 0 && traced < g_npcs, "%s: traced %" PRIu64 " of %zu: the case tests nothing", label,
                  traced, g_npcs);
        run_free(&r);
    }
    free(state);
}

/* ---- comparators on the instruction address ---------------------------------- */

struct range {
    uint64_t lo, hi; /* inclusive */
};
static bool in_range(void *st, size_t i, uint64_t pc)
{
    (void)i;
    const struct range *r = st;
    return pc >= r->lo && pc <= r->hi;
}
static bool not_in_range(void *st, size_t i, uint64_t pc)
{
    return !in_range(st, i, pc);
}

struct cmpv {
    int fn;
    uint64_t v, mask;
};
static bool cmp_oracle(void *st, size_t i, uint64_t pc)
{
    (void)i;
    const struct cmpv *c = st;
    uint64_t a = pc & c->mask, b = c->v & c->mask;
    switch (c->fn) {
    case 0:
        return a == b;
    case 1:
        return a != b;
    case 2:
        return a < b;
    case 3:
        return a <= b;
    case 4:
        return a > b;
    default:
        return a >= b;
    }
}

static void test_iaddr_comparators(void)
{
    const struct rvt_symbol *cmp = sym("xrle_compress");
    /* A value inside the hot compressor loop. */
    uint64_t v = cmp->addr + 0x40;
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    static const char *const words[] = {"eq", "neq", "lt", "lte", "gt", "gte"};
    for (int fn = 0; fn < 6; fn++) {
        char spec[128], label[64];
        struct cmpv c = {fn, v, ~(uint64_t)0};
        snprintf(spec, sizeof spec, "addr %s 0x%" PRIx64, ops[fn], v);
        snprintf(label, sizeof label, "comparator %s", ops[fn]);
        expect(spec, NULL, NULL, NULL, cmp_oracle, &c, sizeof c, label);
        snprintf(spec, sizeof spec, "pc %s xrle_compress+0x40", words[fn]);
        expect(spec, NULL, NULL, NULL, cmp_oracle, &c, sizeof c, label);
    }
    /* Values at the first and at the last instruction of merged records (a
     * call target, a branch): where a record must be cut, or not. */
    static const uint64_t edges[] = {0x20010364, 0x200101d2};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        for (int fn = 0; fn < 6; fn++) {
            char spec[128], label[64];
            struct cmpv c = {fn, edges[e], ~(uint64_t)0};
            snprintf(spec, sizeof spec, "addr %s 0x%" PRIx64, ops[fn], edges[e]);
            snprintf(label, sizeof label, "comparator %s at a record edge", ops[fn]);
            expect(spec, NULL, NULL, NULL, cmp_oracle, &c, sizeof c, label);
        }
    /* Masked (the secondary comparator as a mask): every instruction whose
     * address is 0x...4 modulo 16. */
    struct cmpv m = {0, 0x4, 0xf};
    expect("addr & 0xf == 0x4", NULL, NULL, NULL, cmp_oracle, &m, sizeof m, "masked ==");
    struct cmpv m2 = {2, 0x20010300, 0xffffff00};
    expect("iaddr & 0xffffff00 < 0x20010300", NULL, NULL, NULL, cmp_oracle, &m2, sizeof m2, "masked <");

    /* Ranges: P >= lo && S <= hi, and its negation !(P && S). */
    struct range r = {0x20010200, 0x200103ff};
    expect("addr in 0x20010200..0x20010400", NULL, NULL, NULL, in_range, &r, sizeof r, "range ..");
    expect("addr in 0x20010200..=0x200103ff", NULL, NULL, NULL, in_range, &r, sizeof r, "range ..=");
    expect("addr not in 0x20010200..0x20010400", NULL, NULL, NULL, not_in_range, &r, sizeof r, "not in range");
    expect("not addr in 0x20010200..0x20010400", NULL, NULL, NULL, not_in_range, &r, sizeof r, "not (in range)");
    /* The same range written as one comparator unit "(P and S)". */
    expect("(addr >= 0x20010200 and addr < 0x20010400)", NULL, NULL, NULL, in_range, &r, sizeof r, "pair");
    expect("not (addr >= 0x20010200 and addr < 0x20010400)", NULL, NULL, NULL, not_in_range, &r, sizeof r,
           "not pair");
    /* Two comparator units ANDed by the filter. */
    expect("addr >= 0x20010200 and addr <= 0x200103ff", NULL, NULL, NULL, in_range, &r, sizeof r, "two units");
    /* A function by its symbol: [addr, addr + size). */
    const struct rvt_symbol *dec = sym("xrle_decompress");
    struct range rs = {dec->addr, dec->addr + dec->size - 1};
    expect("addr in xrle_decompress", NULL, NULL, NULL, in_range, &rs, sizeof rs, "symbol range");
    /* Alternatives: filters are ORed. */
    struct range both = {cmp->addr, dec->addr + dec->size - 1}; /* the two are adjacent */
    CHECK_EQ(cmp->addr + cmp->size, dec->addr);
    expect("addr in xrle_compress or addr in xrle_decompress", NULL, NULL, NULL, in_range, &both, sizeof both, "or");
}

/* always / never */
static void test_always_never(void)
{
    struct rvt_filter_config cfg;
    for (int k = 0; k < 3; k++) {
        static const char *const specs[] = {"always", "never", "not always"};
        if (!make_cfg(&cfg, specs[k], NULL, NULL))
            continue;
        struct run r = run_cfg(&cfg, true, NULL);
        CHECK_EQ(r.st.insns_traced, k == 0 ? g_npcs : 0);
        for (size_t i = 0; i < r.n; i++)
            if (r.v[i].q != (k == 0)) {
                CHECK_MSG(0, "%s: instruction %zu", specs[k], i);
                break;
            }
        CHECK_EQ(r.st.splits, 0); /* nothing changes inside a record */
        run_free(&r);
    }
}

/* ---- latches: from A to B ------------------------------------------------------- */

struct latch {
    bool on;
    uint64_t a, b; /* P: pc == a; S: pc == b */
    bool primed, no_end;
};
static bool latch_oracle(void *st, size_t i, uint64_t pc)
{
    (void)i;
    struct latch *l = st;
    bool out = l->on || (!l->primed && pc == l->a);
    l->on = out && (l->no_end || pc != l->b);
    return out;
}

static void test_latches(void)
{
    const struct rvt_symbol *dec = sym("xrle_decompress"), *mc = sym("memcpy");
    char spec[160];
    /* From the entry of xrle_decompress to its first instruction after... the
     * call of memcpy: each time the entry is reached the latch is set again. */
    struct latch l = {false, dec->addr, mc->addr, false, false};
    snprintf(spec, sizeof spec, "from xrle_decompress to memcpy");
    expect(spec, NULL, NULL, NULL, latch_oracle, &l, sizeof l, "from..to");
    snprintf(spec, sizeof spec, "from addr == 0x%" PRIx64 " to pc == 0x%" PRIx64, dec->addr, mc->addr);
    expect(spec, NULL, NULL, NULL, latch_oracle, &l, sizeof l, "from cmp to cmp");
    /* until: primed latch (P never true), traced from the start. */
    struct latch u = {true, 0, dec->addr, true, false};
    expect("until xrle_decompress", NULL, NULL, NULL, latch_oracle, &u, sizeof u, "until");
    /* from without an end. */
    struct latch fr = {false, dec->addr, 0, false, true};
    expect("from xrle_decompress", NULL, NULL, NULL, latch_oracle, &fr, sizeof fr, "from");
}

/* ---- record inputs: context, privilege (synthetic values on the real run) ----- */

static void ctx_hook(struct rvt_ing_rec *r, size_t i)
{
    r->context = i / 5000; /* a new context every 5000 instructions */
}
static bool ctx_eq3(void *st, size_t i, uint64_t pc)
{
    (void)st, (void)pc;
    return i / 5000 == 3;
}
static bool ctx_range(void *st, size_t i, uint64_t pc)
{
    (void)st, (void)pc;
    return i / 5000 >= 7 && i / 5000 < 12;
}
static bool ctx_latch(void *st, size_t i, uint64_t pc)
{
    /* from ctx == 4 to ctx == 6: from the first instruction of context 4 up to
     * and including the first of context 6. */
    (void)st, (void)pc;
    return i >= 4 * 5000 && i <= 6 * 5000;
}
static bool ctx_masked(void *st, size_t i, uint64_t pc)
{
    (void)st, (void)pc;
    return ((i / 5000) & 3) == 1;
}

static void priv_hook(struct rvt_ing_rec *r, size_t i)
{
    (void)i;
    const struct rvt_symbol *c = rvt_img_symbol_named(g_img, "xrle_compress");
    const struct rvt_symbol *d = rvt_img_symbol_named(g_img, "xrle_decompress");
    if (r->iaddr >= c->addr && r->iaddr < c->addr + c->size)
        r->priv = RVT_PRIV_U;
    else if (r->iaddr >= d->addr && r->iaddr < d->addr + d->size)
        r->priv = RVT_PRIV_S;
    else
        r->priv = RVT_PRIV_M;
}
static unsigned priv_of(uint64_t pc)
{
    struct rvt_ing_rec r;
    memset(&r, 0, sizeof r);
    r.iaddr = pc;
    priv_hook(&r, 0);
    return r.priv;
}
static bool priv_u(void *st, size_t i, uint64_t pc)
{
    (void)st, (void)i;
    return priv_of(pc) == RVT_PRIV_U;
}
static bool priv_not_m(void *st, size_t i, uint64_t pc)
{
    (void)st, (void)i;
    return priv_of(pc) != RVT_PRIV_M;
}
static bool priv_u_in_range(void *st, size_t i, uint64_t pc)
{
    (void)i;
    const struct range *r = st;
    return priv_of(pc) == RVT_PRIV_U && pc >= r->lo && pc <= r->hi;
}

static void test_context_priv(void)
{
    expect("ctx == 3", NULL, NULL, ctx_hook, ctx_eq3, NULL, 0, "ctx ==");
    expect("context in 7..12", NULL, NULL, ctx_hook, ctx_range, NULL, 0, "ctx range");
    expect("from ctx == 4 to ctx == 6", NULL, NULL, ctx_hook, ctx_latch, NULL, 0, "ctx latch");
    expect("ctx & 3 == 1", NULL, NULL, ctx_hook, ctx_masked, NULL, 0, "ctx masked");

    expect("priv == U", NULL, NULL, priv_hook, priv_u, NULL, 0, "priv == U");
    expect("priv in {U, S}", NULL, NULL, priv_hook, priv_not_m, NULL, 0, "priv in set");
    expect("priv != M", NULL, NULL, priv_hook, priv_not_m, NULL, 0, "priv !=");
    expect("priv in 0|1", NULL, NULL, priv_hook, priv_not_m, NULL, 0, "priv numbers");
    expect("not priv == M", NULL, NULL, priv_hook, priv_not_m, NULL, 0, "not priv");
    struct range r = {0x20010200, 0x200102ff};
    expect("priv == U and addr in 0x20010200..0x20010300", NULL, NULL, priv_hook, priv_u_in_range, &r, sizeof r,
           "priv and range");
}

/* ---- user sideband (impdef) ------------------------------------------------------ */

static bool sb_window(void *st, size_t i, uint64_t pc)
{
    (void)st, (void)pc;
    /* impdef = 5 on [10000, 20000) and [60000, 61000); 7 on [20000, 60000) */
    return (i >= 10000 && i < 20000) || (i >= 60000 && i < 61000);
}
static bool sb_masked(void *st, size_t i, uint64_t pc)
{
    (void)st, (void)pc;
    return i >= 10000 && i < 61000; /* 5 & 1 == 7 & 1 */
}

static void test_sideband(void)
{
    const char *sched = "impdef=5@10000, impdef=7@20000, impdef=5@60000, impdef=0@61000";
    expect("impdef == 5", NULL, sched, NULL, sb_window, NULL, 0, "impdef ==");
    expect("user & 1 == 1", NULL, sched, NULL, sb_masked, NULL, 0, "impdef masked");
    /* Events given out of order are sorted. */
    expect("sideband & 0xff == 5", NULL, "impdef=0@61000,impdef=5@60000,impdef=7@20000,impdef=5@10000", NULL,
           sb_window, NULL, 0, "impdef sorted");
}

/* ---- debug-module triggers --------------------------------------------------------- */

struct trig {
    bool tracing;
    uint64_t on, off; /* 0: none */
};
static bool trig_oracle(void *st, size_t i, uint64_t pc)
{
    (void)i;
    struct trig *t = st;
    bool now = t->tracing || pc == t->on; /* on: from this instruction */
    t->tracing = now && pc != t->off;     /* off: after this instruction */
    return now;
}
struct trig_range {
    bool tracing;
    uint64_t lo, hi; /* on for pc in [lo, hi) */
    uint64_t off;
};
static bool trig_range_oracle(void *st, size_t i, uint64_t pc)
{
    (void)i;
    struct trig_range *t = st;
    bool now = t->tracing || (pc >= t->lo && pc < t->hi);
    t->tracing = now && pc != t->off;
    return now;
}

static void test_triggers(void)
{
    const struct rvt_symbol *dec = sym("xrle_decompress"), *mc = sym("memcpy"), *cmp = sym("xrle_compress");
    char spec[160];
    /* on@A, off@B: a window that opens at every A and closes after every B. */
    struct trig t = {false, dec->addr, mc->addr};
    expect(NULL, "on@xrle_decompress,off@memcpy", NULL, NULL, trig_oracle, &t, sizeof t, "on/off");
    expect(NULL, "start@xrle_decompress, stop@memcpy", NULL, NULL, trig_oracle, &t, sizeof t, "start/stop");
    /* Separate --trigger options accumulate. */
    {
        struct rvt_filter_config a, b;
        struct rvt_diag d = {0};
        make_cfg(&a, NULL, "on@xrle_decompress,off@memcpy", NULL);
        make_cfg(&b, NULL, "on@xrle_decompress", NULL);
        CHECK(rvt_filter_parse_trigger(&b, "off@memcpy", &d) == 0);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
    /* off only: traced from the start until the first memcpy instruction. */
    struct trig o = {true, 0, mc->addr};
    expect(NULL, "off@memcpy", NULL, NULL, trig_oracle, &o, sizeof o, "off only");
    /* on only. */
    struct trig n = {false, mc->addr, 0};
    expect(NULL, "on@memcpy", NULL, NULL, trig_oracle, &n, sizeof n, "on only");
    /* initial=on with an on trigger: traced from the start anyway. */
    struct trig io = {true, mc->addr, cmp->addr + 0x10};
    snprintf(spec, sizeof spec, "initial=on, on@memcpy, off@0x%" PRIx64, cmp->addr + 0x10);
    expect(NULL, spec, NULL, NULL, trig_oracle, &io, sizeof io, "initial=on");
    /* on and off at the same instruction: only that instruction, every time
     * ("trace single"). */
    struct trig s = {false, cmp->addr + 0x70, cmp->addr + 0x70}; /* runs 165 times */
    snprintf(spec, sizeof spec, "on@0x%" PRIx64 ",off@0x%" PRIx64, s.on, s.off);
    expect(NULL, spec, NULL, NULL, trig_oracle, &s, sizeof s, "single-shot");
    /* A range trigger (chained >= / <) fires on every instruction inside. */
    struct trig_range tr = {false, dec->addr + 0x20, dec->addr + 0x30, mc->addr};
    snprintf(spec, sizeof spec, "on@0x%" PRIx64 "..0x%" PRIx64 ",off@memcpy", tr.lo, tr.hi);
    expect(NULL, spec, NULL, NULL, trig_range_oracle, &tr, sizeof tr, "range trigger");
    /* Triggers gate the filters: trTeInstTracing && filters. */
    struct trig g = {false, dec->addr, mc->addr};
    struct rvt_filter_config cfg;
    if (make_cfg(&cfg, "addr in xrle_decompress", "on@xrle_decompress,off@memcpy", NULL)) {
        struct run r = run_cfg(&cfg, true, NULL);
        uint64_t want = 0;
        for (size_t i = 0; i < g_npcs && r.ok; i++) {
            bool q = trig_oracle(&g, i, g_pcs[i]) && g_pcs[i] >= dec->addr && g_pcs[i] < dec->addr + dec->size;
            want += q;
            if (r.v[i].q != q) {
                CHECK_MSG(0, "trigger+filter: instruction %zu", i);
                break;
            }
        }
        CHECK_EQ(r.st.insns_traced, want);
        CHECK(want > 0);
        run_free(&r);
    }
}

/* notify: the instruction is reported (last of its record), only when qualified. */
static void test_notify(void)
{
    const struct rvt_symbol *mc = sym("memcpy"), *dec = sym("xrle_decompress");
    uint64_t target = dec->addr + 0x92; /* in the decompressor's inner loop */
    size_t hits = 0;
    for (size_t i = 0; i < g_npcs; i++)
        hits += g_pcs[i] == target;
    CHECK(hits > 1);
    struct rvt_filter_config cfg;
    char spec[96];
    snprintf(spec, sizeof spec, "notify@0x%" PRIx64, target);
    for (int merge = 0; merge < 2; merge++) {
        if (!make_cfg(&cfg, NULL, spec, NULL))
            return;
        struct run r = run_cfg(&cfg, merge, NULL);
        size_t seen = 0;
        for (size_t i = 0; i < r.n; i++) {
            CHECK(r.v[i].q); /* notify does not change qualification */
            if (r.v[i].notify != (r.v[i].pc == target)) {
                CHECK_MSG(0, "notify at instruction %zu (0x%" PRIx64 ")", i, r.v[i].pc);
                break;
            }
            seen += r.v[i].notify;
        }
        CHECK_EQ(seen, hits);
        CHECK_EQ(r.st.notifies, hits);
        if (merge) /* the notified instruction ends its record: merged records are cut */
            CHECK(r.st.splits > 0);
        run_free(&r);
    }
    /* Not reported while not traced: only the hits inside the on/off window. */
    if (!make_cfg(&cfg, "addr in memcpy", spec, NULL))
        return;
    struct run r = run_cfg(&cfg, true, NULL);
    CHECK_EQ(r.st.notifies, 0);
    run_free(&r);
    /* A comparator's notify (watchpoint) works the same way. */
    rvt_filter_config_init(&cfg);
    cfg.image = g_img;
    cfg.ncomparators = 1;
    cfg.comp[0] = (struct rvt_comparator){RVT_CMP_IADDR, RVT_CMP_IADDR, RVT_CMP_EQ, RVT_CMP_ALWAYS,
                                          RVT_CMP_MODE_P, true, false, target, 0};
    r = run_cfg(&cfg, true, NULL);
    CHECK_EQ(r.st.notifies, hits);
    CHECK_EQ(r.st.insns_traced, g_npcs);
    run_free(&r);
    (void)mc;
}

/* ---- hand-built sequences: traps, nesting, tval, splitting --------------------- */

static struct rvt_ing_rec insn(uint64_t pc, unsigned priv)
{
    struct rvt_ing_rec r;
    memset(&r, 0, sizeof r);
    r.iaddr = pc;
    r.iretire = 2;
    r.ilastsize = 1;
    r.priv = (uint8_t)priv;
    return r;
}

static struct rvt_ing_rec trap(uint64_t epc, bool irq, uint32_t cause, uint64_t tval, unsigned priv)
{
    struct rvt_ing_rec r;
    memset(&r, 0, sizeof r);
    r.iaddr = epc;
    r.itype = irq ? RVT_ITYPE_INTERRUPT : RVT_ITYPE_EXCEPTION;
    r.cause = cause;
    r.tval = tval;
    r.priv = (uint8_t)priv;
    return r;
}

static struct rvt_ing_rec mret(uint64_t pc)
{
    struct rvt_ing_rec r = insn(pc, RVT_PRIV_M);
    r.itype = RVT_ITYPE_TRAPRET;
    return r;
}

/* Run records through a spec; returns the string of decisions, one char per
 * output record: 'Q' qualified, '.' not, 'N' qualified + notify. */
static void decide_seq(const char *filter, const char *trigger, unsigned nest_max, const struct rvt_ing_rec *in,
                       size_t n, char *out, size_t outsz)
{
    struct rvt_filter_config cfg;
    out[0] = 0;
    if (!make_cfg(&cfg, filter, trigger, NULL))
        return;
    cfg.trap_nesting_max = nest_max;
    struct rvt_filter *f;
    struct rvt_diag d = {0};
    if (rvt_filter_new(&f, &cfg, &d) < 0) {
        CHECK_MSG(0, "%s", d.msg);
        return;
    }
    struct recs v = {0};
    for (size_t i = 0; i < n; i++)
        if (rvt_filter_put(f, &in[i], push_rec, &v) < 0)
            CHECK_MSG(0, "put %zu: %s", i, rvt_filter_error(f));
    size_t k = 0;
    for (; k < v.n && k + 1 < outsz; k++)
        out[k] = v.r[k].flags & RVT_ING_UNQUALIFIED ? '.' : v.r[k].flags & RVT_FILTER_NOTIFY ? 'N' : 'Q';
    out[k] = 0;
    free(v.r);
    rvt_filter_free(f);
}

static void test_traps(void)
{
    /* U code at 0x1000.., an ecall (cause 8) into a handler at 0x8000 that is
     * interrupted (nested, timer interrupt 7) into 0x9000, returns, then mret
     * back to U; later an illegal instruction (cause 2, tval 0x73) trap. */
    const struct rvt_ing_rec seq[] = {
        insn(0x1000, RVT_PRIV_U),                      /* 0 */
        trap(0x1004, false, 8, 0, RVT_PRIV_U),         /* 1 ecall: retires nothing */
        insn(0x8000, RVT_PRIV_M),                      /* 2 handler of 8 */
        insn(0x8004, RVT_PRIV_M),                      /* 3, then a timer interrupt */
        trap(0x8008, true, 7, 0, RVT_PRIV_M),          /* 4 */
        insn(0x9000, RVT_PRIV_M),                      /* 5 interrupt handler */
        mret(0x9004),                                  /* 6 back into handler of 8 */
        insn(0x8008, RVT_PRIV_M),                      /* 7 */
        mret(0x800c),                                  /* 8 back to U */
        insn(0x1008, RVT_PRIV_U),                      /* 9 */
        trap(0x100c, false, 2, 0x73, RVT_PRIV_U),      /* 10 illegal instruction */
        insn(0x8000, RVT_PRIV_M),                      /* 11 handler of 2 */
        mret(0x8010),                                  /* 12 */
        insn(0x1010, RVT_PRIV_U),                      /* 13 */
    };
    const size_t n = sizeof seq / sizeof seq[0];
    char got[64];
    /* cause 8: the handler from its first instruction to its mret, nested
     * interrupt handler included (the nesting count). */
    decide_seq("cause == 8", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, "..QQQQQQQ.....");
    /* With a counter that saturates at 1 the nested return ends it early. */
    decide_seq("cause == 8", NULL, 1, seq, n, got, sizeof got);
    CHECK_STR(got, "..QQQQQ.......");
    decide_seq("cause in {2, 8}", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, "..QQQQQQQ..QQ.");
    decide_seq("cause != 8", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, ".....QQ....QQ.");
    /* interrupt: only the timer handler; exception: both exception handlers. */
    decide_seq("interrupt", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, ".....QQ.......");
    decide_seq("interrupt == 1", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, ".....QQ.......");
    decide_seq("exception", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, "..QQQQQQQ..QQ.");
    decide_seq("interrupt == 0", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, "..QQQQQQQ..QQ.");
    decide_seq("cause == 7 and interrupt", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, ".....QQ.......");
    /* cause 2 with tval 0x73: tval is held from the trap on (like mtval). */
    decide_seq("cause == 2 and tval == 0x73", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, "...........QQ.");
    decide_seq("tval == 0x73", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, "...........QQQ");
    decide_seq("tval == 0", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, "QQQQQQQQQQQ...");
    /* Privilege: traps that retire nothing are decided with the state before
     * the trap (the ecall at 0x1004 in U). */
    decide_seq("priv == U", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, "QQ.......QQ..Q");
    decide_seq("priv == M", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, "..QQQQQQQ..QQ.");
    /* A trap record is decided like an instruction at its iaddr. */
    decide_seq("addr == 0x1004 or addr == 0x8008", NULL, 0, seq, n, got, sizeof got);
    CHECK_STR(got, ".Q..Q..Q......");
    /* Triggers do not fire on instructions that did not retire: the ecall
     * record at 0x1004 does not start tracing, the next one at 0x1008 does. */
    decide_seq(NULL, "on@0x1004", 0, seq, n, got, sizeof got);
    CHECK_STR(got, "..............");
    decide_seq(NULL, "on@0x1008", 0, seq, n, got, sizeof got);
    CHECK_STR(got, ".........QQQQQ");
    /* Privilege-restricted trigger (mcontrol m/s/u): 0x8000 runs twice in M. */
    decide_seq(NULL, "on@0x8000/U", 0, seq, n, got, sizeof got);
    CHECK_STR(got, "..............");
    decide_seq(NULL, "on@0x8000/M,off@0x8004", 0, seq, n, got, sizeof got);
    CHECK_STR(got, "..QQ.......QQQ");
    decide_seq(NULL, "notify@0x8000", 0, seq, n, got, sizeof got);
    CHECK_STR(got, "QQNQQQQQQQQNQQ");
}

/* Data triggers fire on the record's last instruction when it accessed memory. */
static void test_data_triggers(void)
{
    struct rvt_ing_rec seq[6];
    for (int i = 0; i < 6; i++)
        seq[i] = insn(0x2000 + 4u * (unsigned)i, RVT_PRIV_M);
    seq[1].flags |= RVT_ING_HAS_MEM; /* load 0x80001000 */
    seq[1].mem_addr = 0x80001000;
    seq[1].mem_size = 4;
    seq[3].flags |= RVT_ING_HAS_MEM | RVT_ING_MEM_STORE; /* store 0x80001000 */
    seq[3].mem_addr = 0x80001000;
    seq[3].mem_size = 4;
    seq[4].flags |= RVT_ING_HAS_MEM | RVT_ING_MEM_STORE; /* store 0x80002000 */
    seq[4].mem_addr = 0x80002000;
    char got[16];
    decide_seq(NULL, "on@load:0x80001000", 0, seq, 6, got, sizeof got);
    CHECK_STR(got, ".QQQQQ");
    decide_seq(NULL, "on@store:0x80001000", 0, seq, 6, got, sizeof got);
    CHECK_STR(got, "...QQQ");
    decide_seq(NULL, "on@access:0x80001000,off@store:0x80001000", 0, seq, 6, got, sizeof got);
    CHECK_STR(got, ".QQQ..");
    decide_seq(NULL, "off@store:>=0x80002000", 0, seq, 6, got, sizeof got);
    CHECK_STR(got, "QQQQQ.");
    decide_seq(NULL, "notify@store:0x80001000..0x80003000", 0, seq, 6, got, sizeof got);
    CHECK_STR(got, "QQQNNQ");
    /* An execute trigger on a data address never fires. */
    decide_seq(NULL, "on@0x80001000", 0, seq, 6, got, sizeof got);
    CHECK_STR(got, "......");
}

/* NAPOT and the other mcontrol match kinds through the configuration. */
static void test_trigger_matches(void)
{
    struct rvt_ing_rec seq[8];
    for (int i = 0; i < 8; i++)
        seq[i] = insn(0x3000 + 8u * (unsigned)i, RVT_PRIV_M); /* 0x3000 .. 0x3038 */
    struct {
        uint8_t match;
        uint64_t t2;
        const char *want;
    } cases[] = {
        /* NAPOT: t trailing ones in tdata2 -> 2^(t+1) bytes (debug spec, match 1). */
        {RVT_TRIG_MATCH_NAPOT, 0x3007, "NNQQQQQQ"}, /* 16 bytes: 0x3000..0x300f */
        {RVT_TRIG_MATCH_NAPOT, 0x3017, "QQNNQQQQ"}, /* 16 bytes: 0x3010..0x301f */
        {RVT_TRIG_MATCH_NAPOT, 0x300f, "NNNNQQQQ"}, /* 32 bytes: 0x3000..0x301f */
        {RVT_TRIG_MATCH_NAPOT, 0x301f, "NNNNNNNN"}, /* 64 bytes: 0x3000..0x303f */
        {RVT_TRIG_MATCH_GE, 0x3030, "QQQQQQNN"},
        {RVT_TRIG_MATCH_LT, 0x3010, "NNQQQQQQ"},
        {RVT_TRIG_MATCH_NE, 0x3010, "NNQNNNNN"},
        {RVT_TRIG_MATCH_EQ, 0x3010, "QQNQQQQQ"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct rvt_filter_config cfg;
        rvt_filter_config_init(&cfg);
        cfg.xlen = 64;
        cfg.ntriggers = 1;
        cfg.trigger[0] = (struct rvt_debug_trigger){RVT_TRIG_NOTIFY, RVT_TRIG_EXECUTE, cases[c].match, 0,
                                                    cases[c].t2, 0};
        struct rvt_filter *f;
        struct rvt_diag d = {0};
        if (rvt_filter_new(&f, &cfg, &d) < 0) {
            CHECK_MSG(0, "%s", d.msg);
            continue;
        }
        struct recs v = {0};
        for (int i = 0; i < 8; i++)
            rvt_filter_put(f, &seq[i], push_rec, &v);
        char got[16];
        for (size_t k = 0; k < v.n && k < 15; k++)
            got[k] = v.r[k].flags & RVT_FILTER_NOTIFY ? 'N' : 'Q';
        got[v.n < 15 ? v.n : 15] = 0;
        CHECK_MSG(strcmp(got, cases[c].want) == 0, "match %u tdata2 0x%" PRIx64 ": %s, expected %s", cases[c].match,
                  cases[c].t2, got, cases[c].want);
        free(v.r);
        rvt_filter_free(f);
    }
}

/* Comparator register semantics the text syntax does not reach. */
static void test_register_semantics(void)
{
    struct rvt_ing_rec seq[6];
    for (int i = 0; i < 6; i++) {
        seq[i] = insn(0x4000 + 4u * (unsigned)i, RVT_PRIV_M);
        seq[i].context = (uint64_t)i | 0xab00; /* 0xab00 .. 0xab05 */
    }
    struct {
        struct rvt_comparator k;
        unsigned ctx_width;
        const char *want;
    } cases[] = {
        /* P on iaddr, S on context: P && S with different inputs. */
        {{RVT_CMP_IADDR, RVT_CMP_CONTEXT, RVT_CMP_GE, RVT_CMP_LE, RVT_CMP_MODE_P_AND_S, false, false, 0x4004, 0xab03},
         0, ".QQQ.."},
        {{RVT_CMP_IADDR, RVT_CMP_CONTEXT, RVT_CMP_GE, RVT_CMP_LE, RVT_CMP_MODE_NOT_P_AND_S, false, false, 0x4004, 0xab03},
         0, "Q...QQ"},
        /* Only the input's width is compared: match bits above it are ignored. */
        {{RVT_CMP_CONTEXT, RVT_CMP_CONTEXT, RVT_CMP_EQ, RVT_CMP_ALWAYS, RVT_CMP_MODE_P, false, false, 0xff02, 0},
         8, "..Q..."},
        /* Latch: set by P (ctx == 0xab01), cleared after S (iaddr == 0x4010). */
        {{RVT_CMP_CONTEXT, RVT_CMP_IADDR, RVT_CMP_EQ, RVT_CMP_EQ, RVT_CMP_MODE_LATCH, false, false, 0xab01, 0x4010},
         0, ".QQQQ."},
        /* P and S true on the same instruction: just that one. */
        {{RVT_CMP_IADDR, RVT_CMP_IADDR, RVT_CMP_EQ, RVT_CMP_EQ, RVT_CMP_MODE_LATCH, false, false, 0x4008, 0x4008},
         0, "..Q..."},
        /* Primed latch (P function 6) cleared by S. */
        {{RVT_CMP_IADDR, RVT_CMP_IADDR, RVT_CMP_P_NEVER, RVT_CMP_EQ, RVT_CMP_MODE_LATCH, false, false, 0, 0x4004},
         0, "QQ...."},
        /* P function 6 outside latch mode: never. */
        {{RVT_CMP_IADDR, RVT_CMP_IADDR, RVT_CMP_P_NEVER, RVT_CMP_ALWAYS, RVT_CMP_MODE_P, false, false, 0, 0},
         0, "......"},
        /* Secondary as mask with a relational primary. */
        {{RVT_CMP_IADDR, RVT_CMP_IADDR, RVT_CMP_GT, RVT_CMP_S_MASK, RVT_CMP_MODE_P, false, false, 0x0008, 0x000f},
         0, "...Q.."},
        /* S notify: watchpoint on the secondary. */
        {{RVT_CMP_IADDR, RVT_CMP_IADDR, RVT_CMP_ALWAYS, RVT_CMP_EQ, RVT_CMP_MODE_P, false, true, 0, 0x400c},
         0, "QQQNQQ"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct rvt_filter_config cfg;
        rvt_filter_config_init(&cfg);
        cfg.xlen = 32;
        cfg.context_width = cases[c].ctx_width;
        cfg.ncomparators = 1;
        cfg.comp[0] = cases[c].k;
        cfg.nfilters = 1;
        cfg.filter[0].enable = true;
        cfg.filter[0].match_comp[0] = true;
        cfg.inst_filters = 1;
        struct rvt_filter *f;
        struct rvt_diag d = {0};
        if (rvt_filter_new(&f, &cfg, &d) < 0) {
            CHECK_MSG(0, "%s", d.msg);
            continue;
        }
        struct recs v = {0};
        for (int i = 0; i < 6; i++)
            rvt_filter_put(f, &seq[i], push_rec, &v);
        char got[16];
        for (size_t k = 0; k < v.n && k < 15; k++)
            got[k] = v.r[k].flags & RVT_ING_UNQUALIFIED ? '.' : v.r[k].flags & RVT_FILTER_NOTIFY ? 'N' : 'Q';
        got[v.n < 15 ? v.n : 15] = 0;
        CHECK_MSG(strcmp(got, cases[c].want) == 0, "case %zu: %s, expected %s", c, got, cases[c].want);
        free(v.r);
        rvt_filter_free(f);
    }
    /* Selected filters OR; a selected but disabled filter matches nothing;
     * input records already unqualified stay so. */
    struct rvt_filter_config cfg;
    rvt_filter_config_init(&cfg);
    cfg.nfilters = 2;
    cfg.filter[0].enable = false;
    cfg.filter[1].enable = true;
    cfg.filter[1].match_priv = true;
    cfg.filter[1].priv_choice = 1u << RVT_PRIV_U;
    cfg.inst_filters = 1;
    const struct rvt_ing_rec pr[3] = {insn(0x10, RVT_PRIV_U), insn(0x14, RVT_PRIV_M), insn(0x18, RVT_PRIV_U)};
    char got[8];
    for (int k = 0; k < 3; k++) {
        cfg.inst_filters = (uint16_t)(k == 0 ? 1 : k == 1 ? 2 : 3);
        struct rvt_filter *f;
        struct rvt_diag d = {0};
        REQUIRE(rvt_filter_new(&f, &cfg, &d) == 0);
        struct recs v = {0};
        for (int i = 0; i < 3; i++) {
            struct rvt_ing_rec r = pr[i];
            if (i == 2)
                r.flags |= RVT_ING_UNQUALIFIED;
            rvt_filter_put(f, &r, push_rec, &v);
        }
        for (size_t i = 0; i < 3; i++)
            got[i] = i < v.n && !(v.r[i].flags & RVT_ING_UNQUALIFIED) ? 'Q' : '.';
        got[3] = 0;
        CHECK_STR(got, k == 0 ? "..." : "Q..");
        free(v.r);
        rvt_filter_free(f);
    }
}

/* The pieces of a split record: fields exactly as documented. */
static void test_split_fields(void)
{
    /* xrle_compress's first instructions as one record ending with a store
     * that has register/memory data and a time stamp. */
    const struct rvt_symbol *c = sym("xrle_compress");
    uint64_t pcs[8];
    unsigned n = 0;
    uint64_t pc = c->addr;
    while (n < 6) {
        pcs[n++] = pc;
        pc += insn_len(pc);
    }
    struct rvt_ing_rec r;
    memset(&r, 0, sizeof r);
    r.iaddr = pcs[0];
    r.iretire = (uint32_t)((pcs[5] - pcs[0]) / 2 + insn_len(pcs[5]) / 2);
    r.ilastsize = insn_len(pcs[5]) == 4 ? 1 : 0;
    r.itype = RVT_ITYPE_JUMP_UNINF;
    r.priv = RVT_PRIV_M;
    r.context = 9;
    r.ctype = RVT_CTYPE_PRECISE;
    r.flags = RVT_ING_HAS_TIME | RVT_ING_HAS_RD | RVT_ING_HAS_MEM | RVT_ING_MEM_STORE | RVT_ING_SIJUMP;
    r.time = 1234;
    r.rd = 10;
    r.rd_value = 77;
    r.mem_addr = 0x80000000;
    r.mem_size = 4;
    /* Qualified for instructions 2 and 3 only. */
    char spec[96];
    snprintf(spec, sizeof spec, "addr in 0x%" PRIx64 "..0x%" PRIx64, pcs[2], pcs[4]);
    struct rvt_filter_config cfg;
    REQUIRE(make_cfg(&cfg, spec, NULL, NULL));
    struct rvt_filter *f;
    struct rvt_diag d = {0};
    REQUIRE(rvt_filter_new(&f, &cfg, &d) == 0);
    struct recs v = {0};
    CHECK(rvt_filter_put(f, &r, push_rec, &v) == 0);
    REQUIRE(v.n == 3);
    const struct rvt_ing_rec *a = &v.r[0], *b = &v.r[1], *z = &v.r[2];
    CHECK_EQ(a->iaddr, pcs[0]);
    CHECK_EQ(a->iretire, (pcs[2] - pcs[0]) / 2);
    CHECK_EQ(a->ilastsize, insn_len(pcs[1]) == 4);
    CHECK_EQ(b->iaddr, pcs[2]);
    CHECK_EQ(b->iretire, (pcs[4] - pcs[2]) / 2);
    CHECK_EQ(b->ilastsize, insn_len(pcs[3]) == 4);
    CHECK_EQ(z->iaddr, pcs[4]);
    CHECK_EQ(z->iretire, r.iretire - a->iretire - b->iretire);
    CHECK_EQ(z->ilastsize, r.ilastsize);
    CHECK_EQ(a->itype, RVT_ITYPE_NONE);
    CHECK_EQ(b->itype, RVT_ITYPE_NONE);
    CHECK_EQ(z->itype, RVT_ITYPE_JUMP_UNINF);
    CHECK_EQ(a->flags, RVT_ING_HAS_TIME | RVT_ING_UNQUALIFIED);
    CHECK_EQ(b->flags, RVT_ING_HAS_TIME | RVT_ING_SAME_CYCLE);
    CHECK_EQ(z->flags, r.flags | RVT_ING_SAME_CYCLE | RVT_ING_UNQUALIFIED);
    CHECK_EQ(a->ctype, RVT_CTYPE_PRECISE);
    CHECK_EQ(b->ctype, RVT_CTYPE_UNREPORTED);
    CHECK_EQ(z->ctype, RVT_CTYPE_UNREPORTED);
    for (int k = 0; k < 3; k++) {
        CHECK_EQ(v.r[k].time, 1234);
        CHECK_EQ(v.r[k].context, 9);
        CHECK_EQ(v.r[k].priv, RVT_PRIV_M);
    }
    CHECK_EQ(z->rd_value, 77);
    CHECK_EQ(z->mem_addr, 0x80000000);
    struct rvt_filter_stats st;
    rvt_filter_get_stats(f, &st, sizeof st);
    CHECK_EQ(st.records_in, 1);
    CHECK_EQ(st.records_out, 3);
    CHECK_EQ(st.splits, 2);
    CHECK_EQ(st.insns, 6);
    CHECK_EQ(st.insns_traced, 2);
    CHECK_EQ(st.on_transitions, 1);
    CHECK_EQ(st.off_transitions, 1);
    rvt_filter_free(f);
    free(v.r);
}

/* Harts keep separate state. */
static void test_harts(void)
{
    struct rvt_ing_rec seq[8];
    for (int i = 0; i < 8; i++) {
        seq[i] = insn(0x5000 + 4u * (unsigned)(i / 2), RVT_PRIV_M);
        seq[i].hart = (uint16_t)(i & 1 ? 3 : 0);
    }
    seq[3].iaddr = 0x6000; /* hart 3 runs elsewhere at step 1 */
    char got[16];
    /* on@0x5004: hart 0 at step 1 (record 2); hart 3 at step 1 is at 0x6000,
     * then 0x5008/0x500c: never 0x5004 -> stays off. */
    decide_seq(NULL, "on@0x5004", 0, seq, 8, got, sizeof got);
    CHECK_STR(got, "..Q.Q.Q.");
    struct rvt_filter_config cfg;
    REQUIRE(make_cfg(&cfg, "impdef == 1", NULL, NULL));
    struct rvt_filter *f;
    struct rvt_diag d = {0};
    REQUIRE(rvt_filter_new(&f, &cfg, &d) == 0);
    struct recs v = {0};
    rvt_filter_set_impdef(f, 3, 1);
    for (int i = 0; i < 8; i++)
        rvt_filter_put(f, &seq[i], push_rec, &v);
    for (size_t k = 0; k < 8 && k < v.n; k++)
        got[k] = v.r[k].flags & RVT_ING_UNQUALIFIED ? '.' : 'Q';
    got[8] = 0;
    CHECK_STR(got, ".Q.Q.Q.Q");
    free(v.r);
    rvt_filter_free(f);
}

/* ---- the reader adapter, errors ---------------------------------------------------- */

static void test_reader(void)
{
    struct rvt_filter_config cfg;
    REQUIRE(make_cfg(&cfg, "addr in xrle_decompress", NULL, NULL));
    const struct rvt_symbol *dec = sym("xrle_decompress");
    uint64_t want = 0;
    for (size_t i = 0; i < g_npcs; i++)
        want += g_pcs[i] >= dec->addr && g_pcs[i] < dec->addr + dec->size;
    for (int mode = 0; mode < 2; mode++) {
        struct rvt_filter *f;
        struct rvt_diag d = {0};
        REQUIRE(rvt_filter_new(&f, &cfg, &d) == 0);
        struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = RVT_ING_FMT_PCLIST, .image = g_img, .merge_blocks = true};
        struct rvt_ing_reader *in, *fr;
        REQUIRE(rvt_ing_open(&in, g_pclist_path, &rc, &d) == 0);
        REQUIRE(rvt_filter_reader(&fr, in, f, (enum rvt_filter_reader_mode)mode, &d) == 0);
        CHECK_EQ(rvt_ing_xlen(fr), 32);
        struct rvt_ing_rec r;
        uint64_t recs = 0, unq = 0, insns = 0;
        struct rvt_bcache *bc = rvt_bcache_new(g_img, 0);
        int rr;
        while ((rr = rvt_ing_next(fr, &r)) > 0) {
            recs++;
            unq += !!(r.flags & RVT_ING_UNQUALIFIED);
            uint64_t k;
            if (!(r.flags & RVT_ING_UNQUALIFIED) && rvt_ing_count_insns(&r, bc, &k) == 0)
                insns += k;
        }
        CHECK(rr == 0);
        CHECK(rvt_ing_next(fr, &r) == 0); /* stays at the end */
        struct rvt_filter_stats st;
        rvt_filter_get_stats(f, &st, sizeof st);
        CHECK_EQ(insns, want);
        CHECK_EQ(st.insns_traced, want);
        if (mode == RVT_FILTER_MARK) {
            CHECK_EQ(recs, st.records_out);
            CHECK(unq > 0);
        } else {
            CHECK_EQ(unq, 0);
            CHECK(recs < st.records_out);
        }
        /* Finished: more records are refused. */
        struct rvt_ing_rec x = insn(0x20010522, RVT_PRIV_M);
        struct recs v = {0};
        CHECK(rvt_filter_put(f, &x, push_rec, &v) == -RVT_ERR_INVAL);
        rvt_bcache_free(bc);
        rvt_ing_close(fr);
        rvt_filter_free(f);
    }
}

static int fail_emit(void *ctx, const struct rvt_ing_rec *r)
{
    (void)ctx, (void)r;
    return -RVT_ERR_IO;
}

static void test_put_errors(void)
{
    struct rvt_filter_config cfg;
    struct rvt_filter *f;
    struct rvt_diag d = {0};
    struct recs v = {0};
    /* Splitting needs code: without an image a multi-instruction record the
     * decision may change in fails... */
    REQUIRE(make_cfg(&cfg, "addr < 0x20010526", NULL, NULL));
    cfg.image = NULL;
    REQUIRE(rvt_filter_new(&f, &cfg, &d) == 0);
    struct rvt_ing_rec r = insn(0x20010522, RVT_PRIV_M);
    r.iretire = 8;
    CHECK(rvt_filter_put(f, &r, push_rec, &v) == -RVT_ERR_INVAL);
    CHECK(strstr(rvt_filter_error(f), "0x20010522") && strstr(rvt_filter_error(f), "program image"));
    rvt_filter_free(f);
    /* ...but one whose comparisons cannot change inside it (0x20010530 is
     * after its last instruction) does not need it. */
    REQUIRE(make_cfg(&cfg, "addr < 0x20010530", NULL, NULL));
    cfg.image = NULL;
    REQUIRE(rvt_filter_new(&f, &cfg, &d) == 0);
    CHECK(rvt_filter_put(f, &r, push_rec, &v) == 0);
    CHECK(v.n == 1 && !(v.r[0].flags & RVT_ING_UNQUALIFIED));
    v.n = 0;
    rvt_filter_free(f);
    /* Nor does a filter that does not depend on the address. */
    REQUIRE(make_cfg(&cfg, "priv == M", NULL, NULL));
    cfg.image = NULL;
    REQUIRE(rvt_filter_new(&f, &cfg, &d) == 0);
    CHECK(rvt_filter_put(f, &r, push_rec, &v) == 0);
    CHECK(v.n == 1 && !(v.r[0].flags & RVT_ING_UNQUALIFIED));
    rvt_filter_free(f);
    /* No code at the record's address (a latch: decided per instruction). */
    REQUIRE(make_cfg(&cfg, "from 0x20010524", NULL, NULL));
    REQUIRE(rvt_filter_new(&f, &cfg, &d) == 0);
    r.iaddr = 0x10;
    size_t before = v.n;
    CHECK(rvt_filter_put(f, &r, push_rec, &v) == -RVT_ERR_NOCODE);
    CHECK(strstr(rvt_filter_error(f), "iaddr 0x10,") && strstr(rvt_filter_error(f), "no code"));
    /* A record partly in code fails before any piece is emitted. */
    r.iaddr = 0x200107a8; /* near the end of .text: runs out of code */
    r.iretire = 200;
    CHECK(rvt_filter_put(f, &r, push_rec, &v) == -RVT_ERR_NOCODE);
    CHECK_EQ(v.n, before);
    r.iretire = 8;
    /* Code whose instructions do not end where the record says: 3 halfwords
     * ending with a 32-bit instruction put the last one inside the lui at
     * 0x2001052a. */
    r.iaddr = 0x2001052a;
    r.iretire = 3;
    int rc = rvt_filter_put(f, &r, push_rec, &v);
    CHECK(rc == -RVT_ERR_MISMATCH);
    CHECK(strstr(rvt_filter_error(f), "do not end at the last instruction") != NULL);
    CHECK_EQ(v.n, before);
    /* Malformed records. */
    r.iretire = 1;
    r.ilastsize = 1;
    CHECK(rvt_filter_put(f, &r, push_rec, &v) == -RVT_ERR_FORMAT);
    r.ilastsize = 200;
    CHECK(rvt_filter_put(f, &r, push_rec, &v) == -RVT_ERR_FORMAT);
    /* A failing consumer. */
    r = insn(0x20010524, RVT_PRIV_M);
    CHECK(rvt_filter_put(f, &r, fail_emit, NULL) == -RVT_ERR_IO);
    rvt_filter_free(f);
    free(v.r);

    /* Configuration checks. */
    rvt_filter_config_init(&cfg);
    cfg.xlen = 48;
    CHECK(rvt_filter_new(&f, &cfg, &d) == -RVT_ERR_INVAL && strstr(d.msg, "xlen 48"));
    rvt_filter_config_init(&cfg);
    cfg.ncomparators = 1;
    cfg.comp[0].p_input = 3;
    CHECK(rvt_filter_new(&f, &cfg, &d) == -RVT_ERR_UNSUPPORTED && strstr(d.msg, "daddr"));
    rvt_filter_config_init(&cfg);
    cfg.inst_filters = 4;
    cfg.nfilters = 2;
    CHECK(rvt_filter_new(&f, &cfg, &d) == -RVT_ERR_INVAL && strstr(d.msg, "selects filter 2"));
    rvt_filter_config_init(&cfg);
    cfg.inst_filters = 1;
    cfg.nfilters = 1;
    cfg.filter[0].match_comp[1] = true;
    cfg.filter[0].comp[1] = 5;
    CHECK(rvt_filter_new(&f, &cfg, &d) == -RVT_ERR_INVAL && strstr(d.msg, "comparator 5"));
    rvt_filter_config_init(&cfg);
    cfg.ntriggers = 1;
    cfg.trigger[0].action = 5;
    cfg.trigger[0].select = RVT_TRIG_EXECUTE;
    CHECK(rvt_filter_new(&f, &cfg, &d) == -RVT_ERR_INVAL && strstr(d.msg, "action 5"));
    rvt_filter_config_init(&cfg);
    cfg.nevents = 2;
    cfg.event[0].index = 5;
    CHECK(rvt_filter_new(&f, &cfg, &d) == -RVT_ERR_INVAL && strstr(d.msg, "sideband event 1"));
    rvt_filter_config_init(&cfg);
    cfg.size = 8;
    CHECK(rvt_filter_new(&f, &cfg, &d) == -RVT_ERR_INVAL);
}

/* ---- the syntax ------------------------------------------------------------------- */

static void test_parse_config(void)
{
    struct rvt_filter_config c;
    struct rvt_diag d = {0};
    rvt_filter_config_init(&c);
    CHECK(!rvt_filter_config_active(&c));
    /* addr in LO..HI: one unit, P: iaddr >= LO, S: iaddr <= HI-1, P && S. */
    CHECK(rvt_filter_parse(&c, "addr in 0x20010000..0x20010400", &d) == 0);
    CHECK(rvt_filter_config_active(&c));
    CHECK_EQ(c.ncomparators, 1);
    CHECK_EQ(c.comp[0].p_input, RVT_CMP_IADDR);
    CHECK_EQ(c.comp[0].p_fn, RVT_CMP_GE);
    CHECK_EQ(c.comp[0].p_match, 0x20010000);
    CHECK_EQ(c.comp[0].s_input, RVT_CMP_IADDR);
    CHECK_EQ(c.comp[0].s_fn, RVT_CMP_LE);
    CHECK_EQ(c.comp[0].s_match, 0x200103ff);
    CHECK_EQ(c.comp[0].mode, RVT_CMP_MODE_P_AND_S);
    CHECK_EQ(c.nfilters, 1);
    CHECK_EQ(c.inst_filters, 1);
    CHECK(c.filter[0].enable && c.filter[0].match_comp[0] && c.filter[0].comp[0] == 0);
    CHECK(!c.filter[0].match_priv && !c.filter[0].match_ecause && !c.filter[0].match_interrupt);
    /* A second --filter: ORed filter unit; the identical range is shared. */
    CHECK(rvt_filter_parse(&c, "priv in {U, VU} and addr in 0x20010000..0x20010400 and cause == 8", &d) == 0);
    CHECK_EQ(c.ncomparators, 1);
    CHECK_EQ(c.nfilters, 2);
    CHECK_EQ(c.inst_filters, 3);
    CHECK(c.filter[1].match_priv);
    CHECK_EQ(c.filter[1].priv_choice, (1u << 0) | (1u << 5));
    CHECK(c.filter[1].match_ecause);
    CHECK_EQ(c.filter[1].ecause_choice, 1u << 8);
    CHECK(c.filter[1].match_comp[0] && c.filter[1].comp[0] == 0);
    /* "or" in one spec: two units. */
    CHECK(rvt_filter_parse(&c, "interrupt or exception", &d) == 0);
    CHECK_EQ(c.nfilters, 4);
    CHECK(c.filter[2].match_interrupt && c.filter[2].interrupt_value);
    CHECK(c.filter[3].match_interrupt && !c.filter[3].interrupt_value);
    /* Masks, words, impdef. */
    CHECK(rvt_filter_parse(&c, "tval & 0xff00 gte 0x1200 && impdef & 0xf0 == 0x30", &d) == 0);
    CHECK_EQ(c.comp[1].p_input, RVT_CMP_TVAL);
    CHECK_EQ(c.comp[1].p_fn, RVT_CMP_GE);
    CHECK_EQ(c.comp[1].s_fn, RVT_CMP_S_MASK);
    CHECK_EQ(c.comp[1].s_match, 0xff00);
    CHECK(c.filter[4].match_impdef && c.filter[4].impdef_mask == 0xf0 && c.filter[4].impdef_value == 0x30);
    /* Latches. */
    CHECK(rvt_filter_parse(&c, "from 0x100 to ctx == 4", &d) == 0);
    CHECK_EQ(c.comp[2].mode, RVT_CMP_MODE_LATCH);
    CHECK_EQ(c.comp[2].p_fn, RVT_CMP_EQ);
    CHECK_EQ(c.comp[2].p_match, 0x100);
    CHECK_EQ(c.comp[2].s_input, RVT_CMP_CONTEXT);
    CHECK_EQ(c.comp[2].s_match, 4);
    CHECK(rvt_filter_parse(&c, "until 0x200", &d) == 0);
    CHECK_EQ(c.comp[3].p_fn, RVT_CMP_P_NEVER);
    CHECK_EQ(c.comp[3].mode, RVT_CMP_MODE_LATCH);

    /* describe: register values from the spec's bit layout. */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    REQUIRE(m);
    CHECK(rvt_filter_describe(&c, m) == 0);
    fclose(m);
    /* comparator 0: PInput 0, SInput 0 <<2, PFunction 5 <<4, SFunction 3 <<8, mode 1 <<12 */
    CHECK(strstr(buf, "trTeComp0Control = 0x00001350") != NULL);
    /* comparator 1: PInput 2, SInput 2, PFunction 5, SFunction 6, mode 0 */
    CHECK(strstr(buf, "trTeComp1Control = 0x0000065a") != NULL);
    /* filter 1: enable, priv, ecause, MatchComp1 (bit 4) comp 0 */
    CHECK(strstr(buf, "trTeFilter1Control = 0x00000017, MatchInst = 0x00000021") != NULL);
    /* filter 2: interrupt (bit 3), MatchValueInterrupt (MatchInst bit 8) */
    CHECK(strstr(buf, "trTeFilter2Control = 0x00000009, MatchInst = 0x00000100") != NULL);
    /* filter 4: comp 1 in slot 1 (bit 4 + comp<<5), impdef (bit 16) */
    CHECK(strstr(buf, "trTeFilter4Control = 0x00010031") != NULL);
    CHECK(strstr(buf, "trTeInstFilters = 0x007f") != NULL);
    free(buf);

    /* Triggers. */
    rvt_filter_config_init(&c);
    CHECK(rvt_filter_parse_trigger(&c, "on@0x20010544, off@store:0x80000000..=0x80000fff, notify@>=0x10/U|S", &d) ==
          0);
    CHECK_EQ(c.ntriggers, 3);
    CHECK(c.tracing_off_at_start);
    CHECK(c.trigger[0].action == RVT_TRIG_TRACE_ON && c.trigger[0].select == RVT_TRIG_EXECUTE &&
          c.trigger[0].match == RVT_TRIG_MATCH_EQ && c.trigger[0].tdata2 == 0x20010544);
    CHECK(c.trigger[1].action == RVT_TRIG_TRACE_OFF && c.trigger[1].select == RVT_TRIG_STORE &&
          c.trigger[1].match == RVT_TRIG_MATCH_RANGE && c.trigger[1].tdata2 == 0x80000000 &&
          c.trigger[1].tdata3 == 0x80001000);
    CHECK(c.trigger[2].action == RVT_TRIG_NOTIFY && c.trigger[2].match == RVT_TRIG_MATCH_GE &&
          c.trigger[2].privs == 3);
    CHECK(rvt_filter_parse_trigger(&c, "initial=on", &d) == 0);
    CHECK(!c.tracing_off_at_start);
    CHECK(rvt_filter_parse_trigger(&c, "single@main", &d) == -RVT_ERR_INVAL); /* no image */
    CHECK(strstr(d.msg, "program image") != NULL);
    c.image = g_img;
    CHECK(rvt_filter_parse_trigger(&c, "single@main+4", &d) == 0);
    CHECK_EQ(c.trigger[3].tdata2, sym("main")->addr + 4);

    /* Sideband. */
    CHECK(rvt_filter_parse_sideband(&c, "impdef=0x11, impdef=2@100, user=3@50", &d) == 0);
    CHECK_EQ(c.impdef, 0x11);
    CHECK_EQ(c.nevents, 2);
    CHECK(c.event[0].index == 50 && c.event[0].impdef == 3 && c.event[1].index == 100);

    /* Options. */
    struct rvt_filter_config o;
    rvt_filter_config_init(&o);
    CHECK(rvt_filter_option(&o, "filter", "priv == U", &d) == 1);
    CHECK(rvt_filter_option(&o, "trigger", "off@0x10", &d) == 1);
    CHECK(rvt_filter_option(&o, "sideband", "impdef=1", &d) == 1);
    CHECK(rvt_filter_option(&o, "format", "ntrace", &d) == 0);
    CHECK(rvt_filter_option(&o, "filter", "priv ==", &d) < 0);
    CHECK(strstr(rvt_filter_options_help(), "--filter SPEC") != NULL);
    CHECK(o.nfilters == 1 && o.ntriggers == 1 && o.impdef == 1);
}

static void test_parse_errors(void)
{
    static const struct {
        const char *spec, *msg;
    } cases[] = {
        {"", "column 1: empty filter"},
        {"addr", "column 5: expected a comparison (== != < <= > >=), found the end"},
        {"addr in 0x10..", "column 15: expected a number or a symbol, found the end"},
        {"addr in 0x20..0x10", "column 9: empty range 0x20..0x10"},
        {"addr in 0x20..0x20", "column 9: empty range"},
        {"addr == 0x12g", "column 9: malformed number '0x12g'"},
        {"addr == 123456789012345678901234", "does not fit 64 bits"},
        {"addr == 0x1 0x2", "column 13: expected 'and', 'or' or the end, found '0x2'"},
        {"priv == X", "column 9: expected a privilege (U, S, M, D, VU, VS or 0..7), found 'X'"},
        {"priv == 8", "privilege 8 out of range"},
        {"cause == 64", "cause 64 out of range"},
        {"cause == 1 and cause == 2", "column 16: cause given twice"},
        {"interrupt and exception", "interrupt/exception given twice"},
        {"impdef != 3", "expected '=='"},
        {"impdef == 0x100000000", "impdef value and mask are 32 bits"},
        {"not cause == 3", "column 1: 'not' applies to"},
        {"addr == main", "symbol 'main' needs the program image"},
        {"from 0x10 to", "expected a number or a symbol, found the end"},
        {"(addr & 3 == 1 and ctx == 2)", "masked comparison"},
        {"(addr == 1 or ctx == 2)", "expected 'and'"},
        {"addr == 1 and addr == 2 and addr == 3 and addr == 4", "column 43: a filter combines at most 3"},
        {"addr ~ 3", "unexpected character '~'"},
        {"addr == \"main", "unterminated quoted name"},
        {"frobnicate", "expected a condition"},
        {"addr == 1 and", "expected a condition"},
        {"addr in 5", "expected '..' or '..='"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct rvt_filter_config c, before;
        struct rvt_diag d = {0};
        rvt_filter_config_init(&c);
        c.xlen = 64;
        CHECK(rvt_filter_parse(&c, "priv == M", &d) == 0);
        before = c;
        int rc = rvt_filter_parse(&c, cases[k].spec, &d);
        CHECK_MSG(rc == -RVT_ERR_INVAL, "'%s' parsed", cases[k].spec);
        CHECK_MSG(strstr(d.msg, cases[k].msg) != NULL, "'%s': message \"%s\" lacks \"%s\"", cases[k].spec, d.msg,
                  cases[k].msg);
        CHECK_MSG(memcmp(&c, &before, sizeof c) == 0, "'%s': configuration changed by a failed parse", cases[k].spec);
    }
    /* Widths: a 32-bit program's addresses. */
    struct rvt_filter_config c;
    struct rvt_diag d = {0};
    rvt_filter_config_init(&c);
    c.image = g_img;
    CHECK(rvt_filter_parse(&c, "addr >= 0x100000000", &d) == -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "does not fit the 32-bit iaddr") != NULL);
    c.context_width = 8;
    CHECK(rvt_filter_parse(&c, "ctx == 0x100", &d) == -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "does not fit the 8-bit context") != NULL);
    CHECK(rvt_filter_parse(&c, "addr in nosuchsymbol", &d) == -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "no symbol 'nosuchsymbol'") != NULL);
    /* Limits: 8 comparator units, 16 filters. */
    rvt_filter_config_init(&c);
    char spec[64];
    int rc = 0;
    for (int k = 0; k < 9 && rc == 0; k++) {
        snprintf(spec, sizeof spec, "addr == %d", k);
        rc = rvt_filter_parse(&c, spec, &d);
    }
    CHECK(rc == -RVT_ERR_INVAL && strstr(d.msg, "more than 8 comparator units"));
    rvt_filter_config_init(&c);
    rc = 0;
    for (int k = 0; k < 17 && rc == 0; k++)
        rc = rvt_filter_parse(&c, "priv == U", &d);
    CHECK(rc == -RVT_ERR_INVAL && strstr(d.msg, "more than 16 filters"));
    /* Trigger and sideband errors. */
    static const struct {
        int kind;
        const char *spec, *msg;
    } more[] = {
        {0, "on", "expected '@'"},
        {0, "go@0x10", "expected a trigger"},
        {0, "on@0x10..0x10", "empty range"},
        {0, "initial=maybe", "expected 'on' or 'off'"},
        {0, "on@0x10 off@0x20", "expected ',' or the end"},
        {0, "on@load:", "expected a number or a symbol"},
        {1, "impdef", "expected '='"},
        {1, "impdef=1@", "expected an instruction index"},
        {1, "impdef=0x100000000", "impdef is 32 bits"},
        {1, "x=1", "expected 'impdef='"},
    };
    for (size_t k = 0; k < sizeof more / sizeof more[0]; k++) {
        rvt_filter_config_init(&c);
        rc = more[k].kind ? rvt_filter_parse_sideband(&c, more[k].spec, &d)
                          : rvt_filter_parse_trigger(&c, more[k].spec, &d);
        CHECK_MSG(rc < 0 && strstr(d.msg, more[k].msg), "'%s': %s", more[k].spec, d.msg);
    }
}

static void test_parse_file(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/filters.txt", rvt_test_tmpdir());
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs("# trace the decompressor while triggered\n"
          "filter addr in xrle_decompress   # the function\n"
          "\n"
          "trigger: on@main, off@memcpy\n"
          "sideband impdef=4@10\n",
          f);
    fclose(f);
    struct rvt_filter_config c, ref;
    struct rvt_diag d = {0};
    rvt_filter_config_init(&c);
    c.image = g_img;
    CHECK(rvt_filter_parse_file(&c, path, &d) == 0);
    REQUIRE(make_cfg(&ref, "addr in xrle_decompress", "on@main, off@memcpy", "impdef=4@10"));
    CHECK(memcmp(&c, &ref, sizeof c) == 0);
    f = fopen(path, "w");
    REQUIRE(f);
    fputs("filter priv == U\nfilter addr in\n", f);
    fclose(f);
    rvt_filter_config_init(&c);
    CHECK(rvt_filter_parse_file(&c, path, &d) == -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "filters.txt: line 2: filter \"addr in\"") != NULL);
    CHECK_EQ(c.nfilters, 0); /* all or nothing */
    f = fopen(path, "w");
    REQUIRE(f);
    fputs("filtre priv == U\n", f);
    fclose(f);
    CHECK(rvt_filter_parse_file(&c, path, &d) < 0 && strstr(d.msg, "line 1: expected 'filter'"));
    CHECK(rvt_filter_parse_file(&c, "/nonexistent/x", &d) == -RVT_ERR_IO);
}


/* Filters programmed through the Trace Control Interface registers read
 * back as the configuration the text gave: each field at the place the
 * TCI tables put it ("Trace Encoder Filter Registers"). */
static void tci_w(struct rvt_tci *t, uint32_t off, uint32_t v)
{
    CHECK_EQ(rvt_tci_comp_write(t, RVT_TCI_ENCODER, 0, off, v), 0);
}

static void test_from_registers(void)
{
    struct rvt_filter_config fc;
    rvt_filter_config_init(&fc);
    fc.image = g_img;
    struct rvt_diag d = {0};
    REQUIRE(rvt_filter_parse(&fc, "addr in 0x20010200..0x20010400 and priv in {U, M} and cause in {8, 11}", &d) == 0);
    REQUIRE(rvt_filter_parse(&fc, "ctx & 0xf0 == 0x30 and impdef & 0x3 == 0x1 and interrupt", &d) == 0);
    REQUIRE(rvt_filter_parse(&fc, "from 0x20010544 to 0x20010600", &d) == 0);
    struct rvt_tci_config tc = {.size = sizeof tc, .n_encoders = 1, .te_format = 1};
    struct rvt_tci *t = NULL;
    REQUIRE(rvt_tci_new(&tc, &t, &d) == 0);
    tci_w(t, 0, 1);
    for (unsigned j = 0; j < fc.ncomparators; j++) {
        const struct rvt_comparator *k = &fc.comp[j];
        tci_w(t, 0x600 + 0x20 * j,
              (uint32_t)k->p_input | (uint32_t)k->s_input << 2 | (uint32_t)k->p_fn << 4 | (uint32_t)k->s_fn << 8 |
                  (uint32_t)k->mode << 12 | (uint32_t)k->p_notify << 14 | (uint32_t)k->s_notify << 15);
        tci_w(t, 0x610 + 0x20 * j, (uint32_t)k->p_match);
        tci_w(t, 0x614 + 0x20 * j, (uint32_t)(k->p_match >> 32));
        tci_w(t, 0x618 + 0x20 * j, (uint32_t)k->s_match);
        tci_w(t, 0x61C + 0x20 * j, (uint32_t)(k->s_match >> 32));
    }
    for (unsigned i = 0; i < fc.nfilters; i++) {
        const struct rvt_filter_unit *u = &fc.filter[i];
        uint32_t ctl = (uint32_t)u->enable | (uint32_t)u->match_priv << 1 | (uint32_t)u->match_ecause << 2 |
                       (uint32_t)u->match_interrupt << 3 | (uint32_t)u->match_impdef << 16;
        for (unsigned k = 0; k < RVT_FILTER_COMPS_PER_FILTER; k++)
            ctl |= ((uint32_t)u->match_comp[k] | (uint32_t)u->comp[k] << 1) << (4 + 4 * k);
        tci_w(t, 0x400 + 0x20 * i, ctl);
        tci_w(t, 0x404 + 0x20 * i, u->priv_choice | (uint32_t)u->interrupt_value << 8);
        tci_w(t, 0x408 + 0x20 * i, (uint32_t)u->ecause_choice);
        tci_w(t, 0x40C + 0x20 * i, (uint32_t)(u->ecause_choice >> 32));
        tci_w(t, 0x410 + 0x20 * i, u->impdef_value);
        tci_w(t, 0x414 + 0x20 * i, u->impdef_mask);
    }
    tci_w(t, 0x00C, fc.inst_filters);
    struct rvt_filter_config rf;
    rvt_filter_config_init(&rf);
    CHECK_EQ(rvt_filter_config_from_tci(&rf, t, 0, &d), 1);
    CHECK_EQ(rf.inst_filters, fc.inst_filters);
    CHECK_EQ(rf.nfilters, fc.nfilters);
    CHECK_EQ(rf.ncomparators, fc.ncomparators);
    for (unsigned i = 0; i < fc.nfilters; i++)
        CHECK_MSG(memcmp(&rf.filter[i], &fc.filter[i], sizeof fc.filter[i]) == 0, "filter %u differs", i);
    for (unsigned j = 0; j < fc.ncomparators; j++)
        CHECK_MSG(memcmp(&rf.comp[j], &fc.comp[j], sizeof fc.comp[j]) == 0, "comparator %u differs", j);
    /* Nothing selected: everything qualifies. */
    tci_w(t, 0x00C, 0);
    CHECK_EQ(rvt_filter_config_from_tci(&rf, t, 0, &d), 0);
    CHECK(!rvt_filter_config_active(&rf));
    rvt_tci_free(t);
}

int main(void)
{
    load_reference();
    CHECK_EQ(g_npcs, 164959);
    test_parse_config();
    test_parse_errors();
    test_parse_file();
    test_put_errors();
    test_split_fields();
    test_traps();
    test_data_triggers();
    test_trigger_matches();
    test_register_semantics();
    test_harts();
    test_iaddr_comparators();
    test_always_never();
    test_latches();
    test_context_priv();
    test_sideband();
    test_triggers();
    test_notify();
    test_reader();
    test_from_registers();
    free(g_pcs);
    free(g_pclist_path);
    rvt_img_free(g_img);
    return rvt_test_summary("test_filter");
}

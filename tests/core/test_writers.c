/* The PC list, instruction listing and block list writers (rvt_output
 * kinds pcs, insn and blocks) against a plain printf formatting of the
 * same blocks: RV64 PCs
 * whose upper half changes inside a block (across 4 GiB), PCs with hex
 * letters, RV32, more distinct instructions than the listing's line cache
 * holds (so lines are evicted and made again), blocks that start and end
 * anywhere, function headers on a generated program's execution, and
 * block lines with every end kind, trap fields and context. */
#include "roundtrip.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct text {
    char *p;
    size_t n, cap;
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void tprintf(struct text *t, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    REQUIRE(n >= 0 && (size_t)n < sizeof line);
    if (t->n + (size_t)n + 1 > t->cap) {
        t->cap = (t->n + (size_t)n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        REQUIRE(t->p != NULL);
    }
    memcpy(t->p + t->n, line, (size_t)n + 1);
    t->n += (size_t)n;
}

/* What the writers must produce, the slow and obvious way. */
struct reference {
    struct text t;
    const struct rvt_image *img;
    unsigned xlen;
    bool listing;
    const void *cur; /* the symbol, or the segment of code no symbol holds, of the last line */
};

/* The executable segment with a name holding pc, the last added winning. */
static const struct rvt_segment *ref_segment(const struct rvt_image *img, uint64_t pc)
{
    const struct rvt_segment *found = NULL;
    for (size_t i = 0; i < rvt_img_segment_count(img); i++) {
        const struct rvt_segment *g = rvt_img_segment(img, i);
        if (g->exec && g->name && pc >= g->addr && pc - g->addr < g->size)
            found = g;
    }
    return found;
}

static int ref_insn(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct reference *r = ctx;
    if (!r->listing) {
        tprintf(&r->t, "0x%0*" PRIX64 "\n", r->xlen / 4, pc);
        return 0;
    }
    /* Code no symbol holds is headed by its file ("<no symbol in FILE>:",
     * the name after its last '/'), or "<no symbol>:" outside every file;
     * an image without symbols (raw code) has no headers. */
    const struct rvt_symbol *s = rvt_img_symbol_at(r->img, pc);
    const struct rvt_segment *seg = s || !rvt_img_symbol_count(r->img) ? NULL : ref_segment(r->img, pc);
    const void *id = s ? (const void *)s : (const void *)seg;
    if (id != r->cur) {
        if (s && s->addr == pc)
            tprintf(&r->t, "\n<%s>:\n", s->name);
        else if (s)
            tprintf(&r->t, "\n<%s+0x%" PRIx64 ">:\n", s->name, pc - s->addr);
        else if (seg)
            tprintf(&r->t, "\n<no symbol in %s>:\n", strrchr(seg->name, '/') ? strrchr(seg->name, '/') + 1 : seg->name);
        else
            tprintf(&r->t, "\n<no symbol>:\n");
    }
    r->cur = id;
    struct rvt_insn in;
    char dis[96];
    if (rvt_img_insn(r->img, pc, &in) < 0) {
        tprintf(&r->t, "%10" PRIx64 ":\t(no code)\n", pc);
        return 0;
    }
    rvt_isa_disasm(&in, r->xlen, dis, sizeof dis);
    if (in.len == 2)
        tprintf(&r->t, "%10" PRIx64 ":\t%04" PRIx32 "          \t%s\n", pc, in.bits & 0xffff, dis);
    else
        tprintf(&r->t, "%10" PRIx64 ":\t%08" PRIx32 "      \t%s\n", pc, in.bits, dis);
    return 0;
}

/* The blocks given to both. */
struct blocks {
    struct rvt_block *b;
    size_t n, cap;
};

static int keep_block(void *ctx, const struct rvt_block *b)
{
    struct blocks *v = ctx;
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 1024;
        v->b = realloc(v->b, v->cap * sizeof *v->b);
        if (!v->b)
            abort();
    }
    v->b[v->n++] = *b;
    return 0;
}

/* What the writer wrote to f (closed here) against the expected text t
 * (freed here). */
static void check_text(const char *what, FILE *f, struct text *t)
{
    long len = ftell(f);
    REQUIRE(len >= 0);
    char *got = malloc((size_t)len + 1);
    REQUIRE(got != NULL);
    rewind(f);
    REQUIRE(fread(got, 1, (size_t)len, f) == (size_t)len);
    got[len] = 0;
    fclose(f);
    size_t at = 0;
    while (at < (size_t)len && at < t->n && got[at] == t->p[at])
        at++;
    size_t from = at > 60 ? at - 60 : 0;
    CHECK_MSG((size_t)len == t->n && at == t->n, "%s: %ld bytes, expected %zu; first difference at %zu:\n"
                                                 "got:      ...%.90s\nexpected: ...%.90s",
              what, len, t->n, at, got + from, t->p + from);
    free(got);
    free(t->p);
    t->p = NULL;
}

/* A block list line (docs: "--output blocks"), the printf way. */
static void ref_block(struct text *t, unsigned xlen, const struct rvt_block *b)
{
    const int w = (int)xlen / 4;
    tprintf(t, "0x%0*" PRIx64 " 0x%0*" PRIx64 " %6" PRIu64 " %-7s", w, b->start, w, b->last, b->ninsns,
            rvt_block_end_name(b->end));
    if (b->end != RVT_END_SEQ && b->end != RVT_END_GAP)
        tprintf(t, " -> 0x%0*" PRIx64, w, b->next);
    if (b->end == RVT_END_TRAP)
        tprintf(t, " cause=0x%" PRIx32 "%s tval=0x%" PRIx64, b->cause,
                b->flags & RVT_BLK_INTERRUPT ? " (interrupt)" : "", b->tval);
    if (b->flags & RVT_BLK_IMPLICIT)
        tprintf(t, " implicit");
    tprintf(t, " priv=%u", b->priv);
    if (b->context)
        tprintf(t, " ctx=0x%" PRIx64, b->context);
    tprintf(t, "\n");
}

static void check_kind(const char *what, const struct rvt_image *img, const struct blocks *v, enum rvt_out_kind kind)
{
    FILE *f = tmpfile();
    REQUIRE(f != NULL);
    struct rvt_out_config oc = {.size = sizeof oc, .kind = kind, .f = f, .image = img, .xlen = rvt_img_xlen(img)};
    struct rvt_output *o = rvt_out_new(&oc);
    REQUIRE(o != NULL);
    struct rvt_flow_sink s = rvt_out_sink(o);
    struct reference r = {.img = img, .xlen = rvt_img_xlen(img), .listing = kind == RVT_OUT_INSN};
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    tprintf(&r.t, "%s", "");
    for (size_t i = 0; i < v->n; i++) {
        CHECK(s.block(s.ctx, &v->b[i]) == 0);
        const struct rvt_block *b = &v->b[i];
        if (kind == RVT_OUT_BLOCKS) {
            ref_block(&r.t, r.xlen, b);
            continue;
        }
        CHECK(rvt_block_insns(bc, r.xlen, b, ref_insn, &r) == 0);
        if (kind != RVT_OUT_INSN)
            continue;
        if (b->end == RVT_END_TRAP)
            tprintf(&r.t, "\t\t\t# %s 0x%" PRIx32 " tval 0x%" PRIx64 " -> 0x%" PRIx64 "\n",
                    b->flags & RVT_BLK_INTERRUPT ? "interrupt" : "exception", b->cause, b->tval, b->next);
        else if (b->flags & RVT_BLK_IMPLICIT)
            tprintf(&r.t, "\t\t\t# return (implicit) -> 0x%" PRIx64 "\n", b->next);
    }
    CHECK(rvt_out_finish(o) == 0);
    rvt_out_free(o);
    rvt_bcache_free(bc);
    char label[96];
    snprintf(label, sizeof label, "%s %s", what,
             kind == RVT_OUT_INSN ? "insn" : kind == RVT_OUT_PCS ? "pcs" : "blocks");
    check_text(label, f, &r.t);
}

/* Sequential code: c.nop and addi in a pseudo-random mix. */
static size_t add_code(struct rvt_image *img, uint64_t addr, size_t bytes, uint32_t seed)
{
    uint8_t *code = malloc(bytes);
    if (!code)
        abort();
    size_t at = 0, insns = 0;
    while (at + 4 <= bytes) {
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 16) & 1) {
            const uint8_t c[2] = {0x01, 0x00}; /* c.nop */
            memcpy(code + at, c, 2);
            at += 2;
        } else {
            uint32_t addi = 0x00000013u | ((seed >> 20) & 0x7ffu) << 20 | 5u << 7 | 5u << 15; /* addi t0,t0,imm */
            for (int k = 0; k < 4; k++)
                code[at + (size_t)k] = (uint8_t)(addi >> (8 * k));
            at += 4;
        }
        insns++;
    }
    CHECK(rvt_img_add_raw(img, addr, code, at, "code") == 0);
    free(code);
    return insns;
}

/* Blocks over [addr, addr + n instructions): one whole, then pieces. */
static void add_blocks(struct blocks *v, const struct rvt_image *img, uint64_t addr, size_t n, uint32_t seed)
{
    struct rvt_block b = {.start = addr, .ninsns = n, .end = RVT_END_SEQ};
    keep_block(v, &b);
    uint64_t pc = addr;
    size_t left = n;
    while (left) {
        seed = seed * 1103515245u + 12345u;
        size_t k = 1 + (seed >> 16) % 150;
        if (k > left)
            k = left;
        struct rvt_block p = {.start = pc, .ninsns = k, .end = RVT_END_JUMP};
        keep_block(v, &p);
        for (size_t i = 0; i < k; i++) {
            struct rvt_insn in;
            REQUIRE(rvt_img_insn(img, pc, &in) == 0);
            pc += in.len;
        }
        left -= k;
    }
}

static void raw_images(void)
{
    /* RV64: across 4 GiB, hex letters, and more instructions than the
     * listing's line cache has slots. */
    struct rvt_image *img = rvt_img_new();
    struct blocks v = {0};
    size_t n1 = add_code(img, 0xFFFFFF00ull, 0x400, 1);
    size_t n2 = add_code(img, 0xABCDEF00ull, 0x300, 2);
    size_t n3 = add_code(img, 0x80000000ull, 0x30000, 3);
    size_t n4 = add_code(img, 0xFEDCBA9876540000ull, 0x200, 4);
    CHECK(n3 > (1u << 15));
    add_blocks(&v, img, 0xFFFFFF00ull, n1, 5);
    add_blocks(&v, img, 0xABCDEF00ull, n2, 6);
    add_blocks(&v, img, 0x80000000ull, n3, 7);
    add_blocks(&v, img, 0xFEDCBA9876540000ull, n4, 8);
    add_blocks(&v, img, 0x80000000ull, n3, 9); /* again: the line cache's second round */
    check_kind("rv64 raw code", img, &v, RVT_OUT_PCS);
    check_kind("rv64 raw code", img, &v, RVT_OUT_INSN);
    free(v.b);
    rvt_img_free(img);

    img = rvt_img_new();
    rvt_img_set_xlen(img, 32);
    memset(&v, 0, sizeof v);
    n1 = add_code(img, 0xFFFFF000ull, 0xf00, 10);
    n2 = add_code(img, 0x0000A5C0ull, 0x800, 11);
    add_blocks(&v, img, 0xFFFFF000ull, n1, 12);
    add_blocks(&v, img, 0x0000A5C0ull, n2, 13);
    check_kind("rv32 raw code", img, &v, RVT_OUT_PCS);
    check_kind("rv32 raw code", img, &v, RVT_OUT_INSN);
    free(v.b);
    rvt_img_free(img);
}

/* A real execution with function headers: a generated program's blocks
 * from the ideal decoder. */
static void generated(unsigned xlen, uint64_t seed)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.xlen = xlen;
    gc.seed = seed;
    gc.features = RVT_GEN_ALL_FEATURES;
    gc.insns = 30000;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_gen_program_new(&prog, &gc, &d) == 0);
    struct rvt_recs recs = {0};
    REQUIRE(rvt_recs_gen(&recs, prog, &gc, true, &d) == 0);
    struct rvt_image *img = rvt_gen_image(prog);
    CHECK(rvt_gen_symbol_count(prog) > 0);
    struct blocks v = {0};
    struct rvt_flow_config fc = {.size = sizeof fc,
                                 .image = img,
                                 .ecall = RVT_FLOW_ECALL_TRAP,
                                 .sink = {.block = keep_block, .note = NULL, .ctx = &v}};
    struct rvt_flow *f = rvt_flow_new(&fc);
    struct rvt_ingflow *x = rvt_ingflow_new(f);
    for (size_t i = 0; i < recs.n; i++)
        REQUIRE(rvt_ingflow_put(x, &recs.r[i]) == 0);
    REQUIRE(rvt_ingflow_finish(x) == 0);
    rvt_ingflow_free(x);
    rvt_flow_free(f);
    CHECK(v.n > 100);
    char what[64];
    snprintf(what, sizeof what, "generated rv%u", xlen);
    check_kind(what, img, &v, RVT_OUT_PCS);
    check_kind(what, img, &v, RVT_OUT_INSN);
    check_kind(what, img, &v, RVT_OUT_BLOCKS);
    free(v.b);
    rvt_recs_free(&recs);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

/* Block lines: every end kind (and one past them), trap fields, implicit
 * returns, contexts, instruction counts of every width, values with and
 * without hex letters, RV32 and RV64, no program image. */
static void block_lines(void)
{
    for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
        struct rvt_image *img = rvt_img_new();
        rvt_img_set_xlen(img, xlen);
        struct blocks v = {0};
        uint64_t x = 0x9E3779B97F4A7C15ull;
        const uint64_t mask = xlen == 32 ? 0xffffffffull : ~0ull;
        for (unsigned i = 0; i < 4000; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const unsigned shift = (unsigned)(x >> 58); /* values of every length */
            struct rvt_block b = {.start = (x >> shift) & mask,
                                  .last = (x * 3 >> (shift ^ 7)) & mask,
                                  .next = i % 7 ? (x >> 3) & mask : 0,
                                  .ninsns = i % 5 == 0 ? x >> (shift | 32) : 1 + i % 1000,
                                  .end = (uint8_t)(i % 11),
                                  .flags = (uint8_t)((x >> 8) & (RVT_BLK_INTERRUPT | RVT_BLK_IMPLICIT)),
                                  .cause = i % 3 ? (uint32_t)(x >> shift) : 0,
                                  .tval = i % 4 ? x >> (shift / 2) : 0,
                                  .priv = (uint8_t)(i % 4),
                                  .context = i % 2 ? x >> shift : 0};
            keep_block(&v, &b);
        }
        check_kind(xlen == 32 ? "rv32 block lines" : "rv64 block lines", img, &v, RVT_OUT_BLOCKS);
        free(v.b);
        rvt_img_free(img);
    }
}

/* JSON string, the obvious way. */
static void ref_json_str(struct text *t, const char *s)
{
    tprintf(t, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            tprintf(t, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            tprintf(t, "\\u%04x", c);
        else
            tprintf(t, "%c", c);
    }
    tprintf(t, "\"");
}

/* JSON Lines (rvt_jsonl): blocks with every field, on a generated program
 * (function names), and notes of every kind, with texts that need escapes
 * and texts longer than a line's buffer, against printf. */
static void jsonl_lines(void)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = 5;
    gc.insns = 2000;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_gen_program_new(&prog, &gc, &d) == 0);
    struct rvt_image *img = rvt_gen_image(prog);
    const struct rvt_symbol *fn = rvt_img_symbol_index(img, 0);
    REQUIRE(fn != NULL);
    FILE *f = tmpfile();
    REQUIRE(f != NULL);
    struct rvt_jsonl *j = rvt_jsonl_new(f, img, 0, 3);
    REQUIRE(j != NULL);
    struct rvt_flow_sink s = rvt_jsonl_sink(j);
    struct text t = {0};
    char long_text[3000];
    for (size_t i = 0; i < sizeof long_text - 1; i++)
        long_text[i] = (char)(i % 97 == 5 ? '"' : i % 89 == 7 ? '\n' : 'a' + i % 26);
    long_text[sizeof long_text - 1] = 0;
    const char *texts[] = {NULL, "plain", "quote \" backslash \\ tab \t del \x7f end", long_text};
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (unsigned i = 0; i < 3000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const unsigned shift = (unsigned)(x >> 58);
        if (i % 3) {
            struct rvt_block b = {.start = i % 4 ? fn->addr + (x & 0x3e) : x >> shift,
                                  .last = x >> (shift ^ 5),
                                  .next = i % 7 ? x >> 3 : 0,
                                  .ninsns = x >> (shift | 40),
                                  .index = x >> shift,
                                  .end = (uint8_t)(i % 11),
                                  .flags = (uint8_t)((x >> 8) & (RVT_BLK_INTERRUPT | RVT_BLK_IMPLICIT | RVT_BLK_HAS_TIME)),
                                  .cause = (uint32_t)(x >> shift),
                                  .tval = x >> (shift / 2),
                                  .time = x >> 9,
                                  .priv = (uint8_t)(i % 4),
                                  .context = i % 2 ? x >> shift : 0,
                                  .trace_offset = x >> 20};
            CHECK(s.block(s.ctx, &b) == 0);
            tprintf(&t,
                    "{\"type\":\"block\",\"hart\":3,\"start\":\"0x%" PRIx64 "\",\"last\":\"0x%" PRIx64
                    "\",\"insns\":%" PRIu64 ",\"index\":%" PRIu64 ",\"end\":\"%s\"",
                    b.start, b.last, b.ninsns, b.index, rvt_block_end_name(b.end));
            if (b.end != RVT_END_GAP && b.next)
                tprintf(&t, ",\"next\":\"0x%" PRIx64 "\"", b.next);
            if (b.end == RVT_END_TRAP)
                tprintf(&t, ",\"cause\":%" PRIu32 ",\"tval\":\"0x%" PRIx64 "\",\"interrupt\":%s", b.cause, b.tval,
                        b.flags & RVT_BLK_INTERRUPT ? "true" : "false");
            if (b.flags & RVT_BLK_IMPLICIT)
                tprintf(&t, ",\"implicit\":true");
            if (b.flags & RVT_BLK_HAS_TIME)
                tprintf(&t, ",\"time\":%" PRIu64, b.time);
            tprintf(&t, ",\"priv\":%u", b.priv);
            if (b.context)
                tprintf(&t, ",\"context\":\"0x%" PRIx64 "\"", b.context);
            tprintf(&t, ",\"offset\":%" PRIu64, b.trace_offset);
            const struct rvt_symbol *sym = rvt_img_symbol_at(img, b.start);
            if (sym) {
                tprintf(&t, ",\"func\":");
                ref_json_str(&t, sym->name);
            }
            tprintf(&t, "}\n");
            continue;
        }
        static const char *const kinds[] = {"?", "sync", "gap", "error", "context", "time", "trap", "data"};
        static const char *const reasons[] = {"?", "trace off", "lost", "error", "wrap", "end", "limit"};
        static const char *const dkinds[] = {"?",          "reg write",   "load addr",  "store addr", "load value",
                                             "store value", "tracepoint", "hart",      "csr addr",   "csr value",
                                             "operand",    "sc fail",     "lost"};
        struct rvt_note n = {.addr = x >> shift,
                             .offset = x >> 11,
                             .value = x >> (shift ^ 9),
                             .index = i % 13 ? x >> 30 : UINT64_MAX,
                             .text = texts[(i / 3) % 4],
                             .kind = (uint8_t)((i / 3) % 9),
                             .reason = (uint8_t)((i / 5) % 14),
                             .priv = (uint8_t)(i % 4)};
        CHECK(s.note(s.ctx, &n) == 0);
        tprintf(&t, "{\"type\":\"%s\",\"hart\":3", n.kind < 8 ? kinds[n.kind] : "?");
        if (n.index == UINT64_MAX)
            tprintf(&t, ",\"index\":null");
        else
            tprintf(&t, ",\"index\":%" PRIu64, n.index);
        tprintf(&t, ",\"offset\":%" PRIu64, n.offset);
        switch (n.kind) {
        case RVT_NOTE_SYNC:
            tprintf(&t, ",\"addr\":\"0x%" PRIx64 "\",\"priv\":%u", n.addr, n.priv);
            break;
        case RVT_NOTE_GAP:
        case RVT_NOTE_ERROR:
            tprintf(&t, ",\"reason\":\"%s\"", n.reason < 7 ? reasons[n.reason] : "?");
            if (n.text) {
                tprintf(&t, ",\"text\":");
                ref_json_str(&t, n.text);
            }
            break;
        case RVT_NOTE_CONTEXT:
            tprintf(&t, ",\"priv\":%u,\"context\":\"0x%" PRIx64 "\"", n.priv, n.value);
            break;
        case RVT_NOTE_TIME:
            tprintf(&t, ",\"time\":%" PRIu64, n.value);
            break;
        case RVT_NOTE_TRAP:
            tprintf(&t, ",\"cause\":%" PRIu64 ",\"epc\":\"0x%" PRIx64 "\"", n.value, n.addr);
            break;
        case RVT_NOTE_DATA:
            tprintf(&t, ",\"data\":\"%s\",\"addr\":\"0x%" PRIx64 "\",\"value\":\"0x%" PRIx64 "\"",
                    n.reason < 13 ? dkinds[n.reason] : "?", n.addr, n.value);
            if (n.text) {
                tprintf(&t, ",\"text\":");
                ref_json_str(&t, n.text);
            }
            break;
        default:
            break;
        }
        tprintf(&t, "}\n");
    }
    CHECK(rvt_jsonl_finish(j) == 0);
    rvt_jsonl_free(j);
    check_text("jsonl", f, &t);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

/* The data notes of one instruction, the printf way (docs: "load [ADDR] =
 * VALUE; ..."): items [0, k) of v share an index. */
static void ref_data_line(struct text *t, const struct rvt_note *v, size_t k)
{
    tprintf(t, "\t\t\t#");
    if (v[0].index == UINT64_MAX)
        tprintf(t, " (instruction not known)");
    unsigned prev = 0;
    for (size_t i = 0; i < k; i++) {
        const struct rvt_note *n = &v[i];
        const unsigned kind = n->reason;
        bool cont = (kind == RVT_DATA_LOAD_VALUE && prev == RVT_DATA_LOAD_ADDR) ||
                    (kind == RVT_DATA_STORE_VALUE && prev == RVT_DATA_STORE_ADDR) ||
                    (kind == RVT_DATA_CSR_VALUE && prev == RVT_DATA_CSR_ADDR) || kind == RVT_DATA_OPERAND;
        if (i && !cont)
            tprintf(t, ";");
        switch (kind) {
        case RVT_DATA_REG_WRITE:
            tprintf(t, " %s%u = 0x%" PRIx64, n->addr >= 32 ? "f" : "x", (unsigned)(n->addr & 31), n->value);
            break;
        case RVT_DATA_LOAD_ADDR:
            tprintf(t, " load [0x%" PRIx64 "]", n->value);
            break;
        case RVT_DATA_STORE_ADDR:
            tprintf(t, " store [0x%" PRIx64 "]", n->value);
            break;
        case RVT_DATA_LOAD_VALUE:
        case RVT_DATA_STORE_VALUE:
        case RVT_DATA_CSR_VALUE:
            if (cont)
                tprintf(t, " = 0x%" PRIx64, n->value);
            else
                tprintf(t, " %s = 0x%" PRIx64,
                        kind == RVT_DATA_LOAD_VALUE ? "load" : kind == RVT_DATA_STORE_VALUE ? "store" : "csr", n->value);
            break;
        case RVT_DATA_CSR_ADDR:
            tprintf(t, " csr 0x%03" PRIx64, n->value);
            break;
        case RVT_DATA_OPERAND:
            tprintf(t, " operand 0x%" PRIx64, n->value);
            break;
        case RVT_DATA_SC_FAIL:
            tprintf(t, " store-conditional failed [0x%" PRIx64 "]", n->value);
            break;
        case RVT_DATA_TRACEPOINT:
            tprintf(t, " tracepoint %" PRIu64, n->value);
            break;
        case RVT_DATA_HART:
            tprintf(t, " hart %" PRIu64, n->value);
            break;
        case RVT_DATA_LOST:
            tprintf(t, " data lost: %s", n->text ? n->text : "");
            break;
        default:
            tprintf(t, " data %u = 0x%" PRIx64, kind, n->value);
            break;
        }
        prev = kind;
    }
    tprintf(t, "\n");
}

/* Data notes in a listing: every kind, in the pairs that continue a
 * fragment, sent before the block of their instruction (as the E-Trace data
 * trace does), bursts of hundreds for one instruction (more than a line
 * buffer holds), and notes of no known instruction; and time notes. */
static void data_lines(void)
{
    struct rvt_image *img = rvt_img_new();
    const size_t n = add_code(img, 0x80000000ull, 0x4000, 31);
    struct blocks v = {0};
    add_blocks(&v, img, 0x80000000ull, n, 32);
    FILE *f = tmpfile();
    REQUIRE(f != NULL);
    struct rvt_out_config oc = {.size = sizeof oc, .kind = RVT_OUT_INSN, .f = f, .image = img, .xlen = 64};
    struct rvt_output *o = rvt_out_new(&oc);
    REQUIRE(o != NULL);
    struct rvt_flow_sink s = rvt_out_sink(o);
    struct reference r = {.img = img, .xlen = 64, .listing = true};
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    tprintf(&r.t, "%s", "");
    uint64_t x = 0x853C49E6748FEA9Bull, index = 0;
    struct rvt_note notes[600];
    for (size_t i = 0; i < v.n; i++) {
        const struct rvt_block *b = &v.b[i];
        /* notes for some of the block's instructions, grouped by index */
        size_t k = 0;
        for (uint64_t at = index; at < index + b->ninsns && k < 400; at++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            if (x % 3)
                continue;
            size_t m = x % 97 == 0 ? 300 : 1 + (x >> 8) % 4; /* (a burst now and then) */
            for (size_t j = 0; j < m && k < 600; j++, k++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                notes[k] = (struct rvt_note){.kind = RVT_NOTE_DATA, .index = at, .reason = (uint8_t)(1 + x % 15),
                                             .addr = (x >> 20) % 64, .value = x >> (x % 64),
                                             .text = x % 5 ? "its packet was lost" : NULL};
            }
        }
        for (size_t j = 0; j < k; j++)
            CHECK(s.note(s.ctx, &notes[j]) == 0);
        struct rvt_note unknown = {.kind = RVT_NOTE_DATA, .index = UINT64_MAX, .reason = RVT_DATA_STORE_ADDR,
                                   .value = x};
        if (i % 50 == 7) { /* written at once */
            CHECK(s.note(s.ctx, &unknown) == 0);
            ref_data_line(&r.t, &unknown, 1);
        }
        if (i % 3 == 1) { /* a timestamp: its own line, at once */
            struct rvt_note tn = {.kind = RVT_NOTE_TIME, .index = index, .value = x >> (x % 64)};
            CHECK(s.note(s.ctx, &tn) == 0);
            tprintf(&r.t, "# time %" PRIu64 "\n", tn.value);
        }
        struct rvt_block bb = *b;
        bb.index = index;
        CHECK(s.block(s.ctx, &bb) == 0);
        /* the reference: each instruction, then its notes */
        uint64_t pc = b->start;
        size_t at = 0;
        for (uint64_t q = 0; q < b->ninsns; q++) {
            ref_insn(&r, pc, b);
            size_t e = at;
            while (e < k && notes[e].index == index + q)
                e++;
            if (e > at)
                ref_data_line(&r.t, notes + at, e - at);
            at = e;
            struct rvt_insn in;
            REQUIRE(rvt_img_insn(img, pc, &in) == 0);
            pc += in.len;
        }
        index += b->ninsns;
    }
    CHECK(rvt_out_finish(o) == 0);
    rvt_out_free(o);
    rvt_bcache_free(bc);
    check_text("data notes", f, &r.t);
    free(v.b);
    rvt_img_free(img);
}

int main(void)
{
    data_lines();
    jsonl_lines();
    block_lines();
    raw_images();
    generated(64, 21);
    generated(32, 22);
    return rvt_test_summary("test_writers");
}

/* Block cache tests: one block per control-flow class (tests/data/image/
 * classes.S for RV32 and RV64), capped blocks, blocks at the end of code,
 * invalid encodings, RVC masks and halfword offsets, sequentially inferable
 * jumps, the RV32 wrap, and the cache against a naive per-instruction walk
 * over every address of real binaries, with table sizes that force eviction
 * and growth. */
#include "rvtrace/image.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static struct rvt_image *load(const char *rel)
{
    char *p = rvt_test_data(rel);
    struct rvt_image *img = rvt_img_new();
    int e = rvt_img_load_elf(img, p);
    CHECK_MSG(e == 0, "load %s: %s", p, rvt_img_error(img));
    free(p);
    return img;
}

static uint64_t sym(const struct rvt_image *img, const char *name)
{
    const struct rvt_symbol *s = rvt_img_symbol_named(img, name);
    if (!s) {
        rvt_test_fail(__FILE__, __LINE__, "no symbol %s", name);
        return 0;
    }
    return s->addr;
}

/* ---- the naive oracle: one instruction at a time ------------------------ */

/* Every byte inside an executable segment (the newest segment covering it). */
static bool is_code(const struct rvt_image *img, uint64_t addr, unsigned len)
{
    for (unsigned k = 0; k < len; k++) {
        uint64_t a = addr + k;
        bool found = false, exec = false;
        for (size_t i = rvt_img_segment_count(img); i-- > 0 && !found;) {
            const struct rvt_segment *s = rvt_img_segment(img, i);
            if (a >= s->addr && a - s->addr < s->size) {
                found = true;
                exec = s->exec;
            }
        }
        if (!exec)
            return false;
    }
    return true;
}

static void naive_block(const struct rvt_image *img, uint64_t addr, struct rvt_block_info *b)
{
    unsigned xlen = rvt_img_xlen(img);
    memset(b, 0, sizeof *b);
    b->start = b->last = b->next = addr;
    if (addr & 1) {
        b->flags = RVT_BI_EMPTY | RVT_BI_STOP_BADINSN;
        return;
    }
    struct rvt_insn prev, in;
    memset(&prev, 0, sizeof prev);
    memset(&in, 0, sizeof in);
    uint64_t pc = addr;
    uint8_t stop = 0;
    for (;;) {
        if (b->ninsns == RVT_BLOCK_MAX_INSNS) {
            stop = RVT_BI_CAPPED;
            break;
        }
        uint8_t lo[2];
        if (!is_code(img, pc, 2) || rvt_img_read(img, pc, lo, 2) != 2) {
            stop = RVT_BI_STOP_NOCODE;
            break;
        }
        unsigned len = rvt_isa_length((uint16_t)(lo[0] | lo[1] << 8));
        if (len != 2 && len != 4) {
            stop = RVT_BI_STOP_BADINSN;
            break;
        }
        if (!is_code(img, pc, len)) {
            stop = RVT_BI_STOP_NOCODE;
            break;
        }
        struct rvt_insn cur;
        CHECK_EQ(rvt_img_insn(img, pc, &cur), 0);
        if (!(cur.flags & RVT_IF_VALID)) {
            stop = RVT_BI_STOP_BADINSN;
            break;
        }
        prev = in;
        in = cur;
        if (len == 2)
            b->rvc_mask |= 1ull << b->ninsns;
        b->ninsns++;
        b->halfwords += len / 2;
        b->last = pc;
        pc += len;
        if (cur.cf != RVT_CF_NONE) {
            stop = RVT_BI_CF_END;
            break;
        }
    }
    if (b->ninsns == 0) {
        b->flags = (uint8_t)(RVT_BI_EMPTY | stop);
        return;
    }
    b->next = xlen == 32 ? pc & 0xffffffffu : pc;
    b->flags = stop;
    b->cf = in.cf;
    b->rd = in.rd;
    b->rs1 = in.rs1;
    b->last_bits = in.bits;
    uint64_t t;
    if (in.cf == RVT_CF_BRANCH || rvt_cf_inferable_jump(in.cf))
        b->target = in.target;
    else if (rvt_cf_uninferable(in.cf) && b->ninsns >= 2 &&
             rvt_isa_sijump_target(&prev, &in, xlen, &t)) {
        b->flags |= RVT_BI_SIJUMP;
        b->target = t;
    }
}

static bool same_block(const struct rvt_block_info *a, const struct rvt_block_info *b)
{
    return a->start == b->start && a->last == b->last && a->next == b->next &&
           a->target == b->target && a->rvc_mask == b->rvc_mask && a->ninsns == b->ninsns &&
           a->halfwords == b->halfwords && a->cf == b->cf && a->flags == b->flags &&
           a->rd == b->rd && a->rs1 == b->rs1 && a->last_bits == b->last_bits;
}

static void print_block(const char *what, const struct rvt_block_info *b)
{
    fprintf(stderr,
            "  %s: start %llx last %llx next %llx target %llx rvc %llx n %u hw %u cf %u flags %x "
            "rd %u rs1 %u bits %08x\n",
            what, (unsigned long long)b->start, (unsigned long long)b->last,
            (unsigned long long)b->next, (unsigned long long)b->target,
            (unsigned long long)b->rvc_mask, b->ninsns, b->halfwords, b->cf, b->flags, b->rd,
            b->rs1, b->last_bits);
}

/* ---- expected shapes for classes.S ------------------------------------- */

struct want {
    const char *label;
    long offset;      /* from the label */
    unsigned ninsns;
    unsigned bytes;   /* next - start */
    unsigned cf;
    uint64_t rvc;
    unsigned flags;
    const char *target; /* label, "" for none, "#0x..." for a number */
    int rd, rs1;        /* -1: not checked */
};

static const struct want g_want[] = {
    {"b_branch", 0, 3, 10, RVT_CF_BRANCH, 0x2, RVT_BI_CF_END, "b_branch", -1, 10},
    {"b_jal", 0, 2, 8, RVT_CF_CALL_INF, 0, RVT_BI_CF_END, "f1", 1, -1},
    {"b_cj", 0, 1, 2, RVT_CF_JUMP_INF, 1, RVT_BI_CF_END, "b_branch", 0, -1},
    {"b_jal_x0", 0, 1, 4, RVT_CF_JUMP_INF, 0, RVT_BI_CF_END, "b_jal", 0, -1},
    {"b_jal_other", 0, 1, 4, RVT_CF_OTHER_INF, 0, RVT_BI_CF_END, "f1", 12, -1},
    {"b_call_uninf", 0, 2, 6, RVT_CF_CALL_UNINF, 1, RVT_BI_CF_END, "", 1, 15},
    {"b_cjalr", 0, 1, 2, RVT_CF_CALL_UNINF, 1, RVT_BI_CF_END, "", 1, 15},
    {"b_jr", 0, 1, 4, RVT_CF_JUMP_UNINF, 0, RVT_BI_CF_END, "", 0, 15},
    {"b_cjr", 0, 1, 2, RVT_CF_JUMP_UNINF, 1, RVT_BI_CF_END, "", 0, 15},
    {"b_ret", 0, 1, 4, RVT_CF_RETURN, 0, RVT_BI_CF_END, "", 0, 1},
    {"b_cret", 0, 1, 2, RVT_CF_RETURN, 1, RVT_BI_CF_END, "", 0, 1},
    {"b_coswap", 0, 1, 4, RVT_CF_COSWAP, 0, RVT_BI_CF_END, "", 1, 5},
    {"b_other_uninf", 0, 1, 4, RVT_CF_OTHER_UNINF, 0, RVT_BI_CF_END, "", 12, 13},
    {"b_sij_auipc", 0, 2, 8, RVT_CF_CALL_UNINF, 0, RVT_BI_CF_END | RVT_BI_SIJUMP, "f1", 1, 6},
    {"b_sij_lui", 0, 2, 8, RVT_CF_JUMP_UNINF, 0, RVT_BI_CF_END | RVT_BI_SIJUMP, "f1", 0, 6},
    {"b_sij_clui", 0, 2, 4, RVT_CF_JUMP_UNINF, 3, RVT_BI_CF_END | RVT_BI_SIJUMP, "#0x1000", 0, 6},
    {"b_not_sij", 0, 2, 8, RVT_CF_JUMP_UNINF, 0, RVT_BI_CF_END, "", 0, 7},
    {"b_sij_split", 0, 2, 8, RVT_CF_JUMP_UNINF, 0, RVT_BI_CF_END | RVT_BI_SIJUMP, "b_ecall", 0, 6},
    {"b_sij_second", 0, 1, 4, RVT_CF_JUMP_UNINF, 0, RVT_BI_CF_END, "", 0, 6},
    {"b_ecall", 0, 1, 4, RVT_CF_ECALL, 0, RVT_BI_CF_END, "", -1, -1},
    {"b_ebreak", 0, 1, 2, RVT_CF_EBREAK, 1, RVT_BI_CF_END, "", -1, -1},
    {"b_mret", 0, 1, 4, RVT_CF_TRAPRET, 0, RVT_BI_CF_END, "", -1, -1},
    {"b_sret", 0, 1, 4, RVT_CF_TRAPRET, 0, RVT_BI_CF_END, "", -1, -1},
    /* 33 x (nop, c.nop): cut after 64, odd ones compressed. */
    {"b_cap", 0, 64, 192, RVT_CF_NONE, 0xaaaaaaaaaaaaaaaaull, RVT_BI_CAPPED, "", -1, -1},
    {"b_cap", 192, 3, 10, RVT_CF_RETURN, 2, RVT_BI_CF_END, "", 0, 1},
    {"b_cap", 4, 64, 192, RVT_CF_NONE, 0x5555555555555555ull, RVT_BI_CAPPED, "", -1, -1},
    /* Inside the first nop: 0x0000, not an instruction. */
    {"b_cap", 2, 0, 0, RVT_CF_NONE, 0, RVT_BI_EMPTY | RVT_BI_STOP_BADINSN, "", -1, -1},
    {"b_badinsn", 0, 1, 4, RVT_CF_NONE, 0, RVT_BI_STOP_BADINSN, "", -1, -1},
    {"b_badinsn", 4, 0, 0, RVT_CF_NONE, 0, RVT_BI_EMPTY | RVT_BI_STOP_BADINSN, "", -1, -1},
    {"b_long48", 0, 1, 4, RVT_CF_NONE, 0, RVT_BI_STOP_BADINSN, "", -1, -1},
    {"b_long_ret", 0, 1, 4, RVT_CF_RETURN, 0, RVT_BI_CF_END, "", 0, 1},
    {"f1", 0, 1, 4, RVT_CF_RETURN, 0, RVT_BI_CF_END, "", 0, 1},
    /* The last bytes of the code segment. */
    {"b_end", 0, 2, 6, RVT_CF_NONE, 2, RVT_BI_STOP_NOCODE, "", -1, -1},
    {"b_end", 4, 1, 2, RVT_CF_NONE, 1, RVT_BI_STOP_NOCODE, "", -1, -1},
    {"b_end", 6, 0, 0, RVT_CF_NONE, 0, RVT_BI_EMPTY | RVT_BI_STOP_NOCODE, "", -1, -1},
    {"b_end", 1, 0, 0, RVT_CF_NONE, 0, RVT_BI_EMPTY | RVT_BI_STOP_BADINSN, "", -1, -1},
};

static const struct want g_want32[] = {
    {"b_cjal", 0, 1, 2, RVT_CF_CALL_INF, 1, RVT_BI_CF_END, "f1", 1, -1},
};

static void check_want(const struct rvt_image *img, struct rvt_bcache *bc, const struct want *w)
{
    uint64_t start = sym(img, w->label) + (uint64_t)w->offset;
    const struct rvt_block_info *b = rvt_bcache_get(bc, start);
    uint64_t target = 0;
    if (w->target[0] == '#')
        target = strtoull(w->target + 1, NULL, 0);
    else if (w->target[0])
        target = sym(img, w->target);
    unsigned last_len = w->ninsns ? (w->rvc >> (w->ninsns - 1) & 1 ? 2 : 4) : 0;
    bool ok = b->start == start && b->ninsns == w->ninsns && b->next == start + w->bytes &&
              b->halfwords == w->bytes / 2 && b->cf == w->cf && b->rvc_mask == w->rvc &&
              b->flags == w->flags && b->target == target &&
              b->last == (w->ninsns ? start + w->bytes - last_len : start) &&
              (w->rd < 0 || b->rd == w->rd) && (w->rs1 < 0 || b->rs1 == w->rs1);
    rvt_test_checks++;
    if (!ok) {
        rvt_test_fail(__FILE__, __LINE__, "xlen %u block at %s%+ld (0x%llx) differs",
                      rvt_img_xlen(img), w->label, w->offset, (unsigned long long)start);
        print_block("got", b);
    }
    /* Halfword offsets of every instruction follow from the mask. */
    uint32_t hw = 0;
    for (uint32_t i = 0; i <= b->ninsns; i++) {
        CHECK_EQ(rvt_block_hw_offset(b, i), hw);
        if (i < b->ninsns)
            hw += (b->rvc_mask >> i & 1) ? 1 : 2;
    }
    CHECK_EQ(hw, b->halfwords);
    /* The oracle agrees. */
    struct rvt_block_info n;
    naive_block(img, start, &n);
    CHECK(same_block(&n, b));
}

static void test_classes(const char *rel, unsigned xlen)
{
    struct rvt_image *img = load(rel);
    REQUIRE(rvt_img_xlen(img) == xlen);
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    REQUIRE(bc != NULL);
    CHECK(rvt_bcache_image(bc) == img);
    for (size_t i = 0; i < sizeof g_want / sizeof g_want[0]; i++)
        check_want(img, bc, &g_want[i]);
    if (xlen == 32)
        check_want(img, bc, &g_want32[0]);
    else
        CHECK(rvt_img_symbol_named(img, "b_cjal") == NULL);
    /* Raw bits of the last instruction: ret = 0x00008067, c.jr ra = 0x8082. */
    CHECK_EQ(rvt_bcache_get(bc, sym(img, "b_ret"))->last_bits, 0x00008067);
    CHECK_EQ(rvt_bcache_get(bc, sym(img, "b_cret"))->last_bits & 0xffff, 0x8082);
    rvt_bcache_free(bc);
    rvt_img_free(img);
}

/* ---- hand-assembled raw code -------------------------------------------- */

enum { NOP = 0x00000013, RET = 0x00008067, CNOP = 0x0001 };

struct code {
    uint8_t b[1024];
    size_t n;
};

static void emit32(struct code *c, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        c->b[c->n++] = (uint8_t)(v >> (8 * i));
}

static void emit16(struct code *c, uint16_t v)
{
    c->b[c->n++] = (uint8_t)v;
    c->b[c->n++] = (uint8_t)(v >> 8);
}

static void test_raw_blocks(void)
{
    struct rvt_image *img = rvt_img_new();
    struct code c = {{0}, 0};
    /* 70 instructions, every third one compressed, then ret. */
    uint64_t base = 0x80000000;
    uint64_t mask = 0, bytes64 = 0, last63 = 0;
    for (int i = 0; i < 70; i++) {
        if (i == 63)
            last63 = c.n;
        if (i % 3 == 1) {
            emit16(&c, CNOP);
            if (i < 64)
                mask |= 1ull << i;
        } else {
            emit32(&c, NOP);
        }
        if (i == 63)
            bytes64 = c.n;
    }
    emit32(&c, RET);
    REQUIRE(rvt_img_add_raw(img, base, c.b, c.n, "cap") == 0);
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    const struct rvt_block_info *b = rvt_bcache_get(bc, base);
    CHECK_EQ(b->ninsns, 64);
    CHECK_EQ(b->flags, RVT_BI_CAPPED);
    CHECK_EQ(b->cf, RVT_CF_NONE);
    CHECK_EQ(b->rvc_mask, mask);
    CHECK_EQ(b->next, base + bytes64);
    CHECK_EQ(b->last, base + last63);
    CHECK_EQ(b->halfwords, bytes64 / 2);
    uint32_t off = 0;
    for (uint32_t i = 0; i <= 64; i++) {
        CHECK_EQ(rvt_block_hw_offset(b, i), off);
        off += i % 3 == 1 ? 1 : 2;
    }
    uint64_t next = b->next;
    b = rvt_bcache_get(bc, next);
    CHECK_EQ(b->ninsns, 7);
    CHECK_EQ(b->flags, RVT_BI_CF_END);
    CHECK_EQ(b->cf, RVT_CF_RETURN);
    CHECK_EQ(b->next, base + c.n);
    CHECK_EQ(b->last_bits, RET);
    CHECK_EQ(b->rvc_mask, 1u << 0 | 1u << 3); /* instructions 64 and 67 */

    /* Stats: every lookup so far missed; repeats hit. */
    uint64_t hits, misses;
    rvt_bcache_stats(bc, &hits, &misses);
    CHECK_EQ(hits, 0);
    CHECK_EQ(misses, 2);
    rvt_bcache_get(bc, base);
    rvt_bcache_get(bc, next);
    rvt_bcache_get(bc, base);
    rvt_bcache_stats(bc, &hits, &misses);
    CHECK_EQ(hits, 3);
    CHECK_EQ(misses, 2);
    rvt_bcache_free(bc);
    rvt_img_free(img);

    /* Edge cases, each in its own segment at a distinct address. */
    img = rvt_img_new();
    struct code e = {{0}, 0};
    emit32(&e, NOP);
    emit16(&e, CNOP); /* 0x1000: nop, c.nop, end of segment */
    REQUIRE(rvt_img_add_raw(img, 0x1000, e.b, e.n, "end16") == 0);
    e.n = 0;
    emit32(&e, NOP);
    emit16(&e, (uint16_t)NOP); /* 0x2000: nop, half of a nop */
    REQUIRE(rvt_img_add_raw(img, 0x2000, e.b, e.n, "cut32") == 0);
    e.n = 0;
    emit32(&e, NOP);
    emit16(&e, 0x0000); /* 0x3000: nop, c.unimp */
    emit32(&e, RET);
    REQUIRE(rvt_img_add_raw(img, 0x3000, e.b, e.n, "illegal") == 0);
    e.n = 0;
    emit16(&e, CNOP);
    emit16(&e, 0x001f); /* 0x4000: c.nop, 48-bit encoding */
    emit32(&e, 0);
    emit16(&e, 0x003f); /* 0x4008: a 64-bit encoding */
    emit16(&e, 0);
    emit32(&e, 0);
    emit32(&e, 0xffffffff); /* 0x4010: reserved (>= 80-bit) */
    REQUIRE(rvt_img_add_raw(img, 0x4000, e.b, e.n, "long") == 0);
    bc = rvt_bcache_new(img, 0);
    struct {
        uint64_t addr;
        unsigned ninsns, flags;
        uint64_t next;
    } cases[] = {
        {0x1000, 2, RVT_BI_STOP_NOCODE, 0x1006},
        {0x1004, 1, RVT_BI_STOP_NOCODE, 0x1006},
        {0x1006, 0, RVT_BI_EMPTY | RVT_BI_STOP_NOCODE, 0x1006},
        {0x0ffe, 0, RVT_BI_EMPTY | RVT_BI_STOP_NOCODE, 0x0ffe},
        {0x2000, 1, RVT_BI_STOP_NOCODE, 0x2004},
        {0x2004, 0, RVT_BI_EMPTY | RVT_BI_STOP_NOCODE, 0x2004},
        {0x3000, 1, RVT_BI_STOP_BADINSN, 0x3004},
        {0x3004, 0, RVT_BI_EMPTY | RVT_BI_STOP_BADINSN, 0x3004},
        {0x3006, 1, RVT_BI_CF_END, 0x300a},
        {0x3001, 0, RVT_BI_EMPTY | RVT_BI_STOP_BADINSN, 0x3001},
        {0x4000, 1, RVT_BI_STOP_BADINSN, 0x4002},
        {0x4008, 0, RVT_BI_EMPTY | RVT_BI_STOP_BADINSN, 0x4008},
        {0x4010, 0, RVT_BI_EMPTY | RVT_BI_STOP_BADINSN, 0x4010},
        {0x4014, 0, RVT_BI_EMPTY | RVT_BI_STOP_NOCODE, 0x4014},
        {0x9000, 0, RVT_BI_EMPTY | RVT_BI_STOP_NOCODE, 0x9000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        b = rvt_bcache_get(bc, cases[i].addr);
        CHECK_MSG(b->start == cases[i].addr && b->ninsns == cases[i].ninsns &&
                      b->flags == cases[i].flags && b->next == cases[i].next,
                  "case 0x%llx: n %u flags %x next %llx", (unsigned long long)cases[i].addr,
                  b->ninsns, b->flags, (unsigned long long)b->next);
        if (b->ninsns == 0)
            CHECK(b->last == b->start && b->halfwords == 0 && b->rvc_mask == 0);
    }
    rvt_bcache_free(bc);

    /* Non-executable bytes are not code, even if they decode. */
    struct rvt_image *elf = load("ntrace-t1/test.elf");
    bc = rvt_bcache_new(elf, 0);
    CHECK_EQ(rvt_bcache_get(bc, 0x80000000)->flags, RVT_BI_EMPTY | RVT_BI_STOP_NOCODE);
    CHECK_EQ(rvt_bcache_get(bc, 0x80000428)->flags, RVT_BI_EMPTY | RVT_BI_STOP_NOCODE);
    /* The reference program's first block: auipc, addi, auipc, addi, csrw,
     * li, beqz 0x20010020 (objdump). */
    b = rvt_bcache_get(bc, 0x20010000);
    CHECK_EQ(b->ninsns, 7);
    CHECK_EQ(b->cf, RVT_CF_BRANCH);
    CHECK_EQ(b->target, 0x20010020);
    CHECK_EQ(b->next, 0x2001001c);
    /* _enter+0x30: beqz ra; then c.jalr ra at 0x20010034. */
    b = rvt_bcache_get(bc, 0x20010034);
    CHECK_EQ(b->cf, RVT_CF_CALL_UNINF);
    CHECK_EQ(b->next, 0x20010036);
    rvt_bcache_free(bc);
    rvt_img_free(elf);
    rvt_img_free(img);
}

/* RV32 pcs wrap at 4 GiB; RV64 code may end at the top of the address space. */
static void test_address_space_ends(void)
{
    struct rvt_image *img = rvt_img_new();
    rvt_img_set_xlen(img, 32);
    struct code c = {{0}, 0};
    emit32(&c, NOP);
    emit32(&c, NOP);
    REQUIRE(rvt_img_add_raw(img, 0xfffffff8, c.b, c.n, "top32") == 0);
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    const struct rvt_block_info *b = rvt_bcache_get(bc, 0xfffffff8);
    CHECK_EQ(b->ninsns, 2);
    CHECK_EQ(b->flags, RVT_BI_CAPPED);
    CHECK_EQ(b->next, 0);
    CHECK_EQ(b->last, 0xfffffffc);
    rvt_bcache_free(bc);
    rvt_img_free(img);

    img = rvt_img_new();
    c.n = 0;
    emit32(&c, NOP);
    emit32(&c, NOP);
    emit32(&c, NOP);
    emit16(&c, CNOP);
    c.n++; /* 15 bytes: up to the last byte, which stays unmapped */
    REQUIRE(rvt_img_add_raw(img, 0xfffffffffffffff0ull, c.b, c.n, "top64") == 0);
    bc = rvt_bcache_new(img, 0);
    b = rvt_bcache_get(bc, 0xfffffffffffffff0ull);
    CHECK_EQ(b->ninsns, 4);
    CHECK_EQ(b->flags, RVT_BI_STOP_NOCODE);
    CHECK_EQ(b->next, 0xfffffffffffffffeull);
    b = rvt_bcache_get(bc, UINT64_MAX);
    CHECK_EQ(b->start, UINT64_MAX);
    CHECK_EQ(b->flags, RVT_BI_EMPTY | RVT_BI_STOP_BADINSN);
    b = rvt_bcache_get(bc, 0xfffffffffffffffeull);
    CHECK_EQ(b->flags, RVT_BI_EMPTY | RVT_BI_STOP_NOCODE);
    rvt_bcache_free(bc);
    rvt_img_free(img);
}

/* Code supplied by the reader callback is code. */
static size_t ret_reader(void *ctx, uint64_t addr, void *buf, size_t len)
{
    (void)ctx;
    static const uint8_t code[8] = {0x13, 0, 0, 0, 0x67, 0x80, 0, 0}; /* nop; ret */
    if (addr < 0x7000 || addr >= 0x7008)
        return 0;
    size_t n = 0x7008 - addr < len ? (size_t)(0x7008 - addr) : len;
    memcpy(buf, code + (addr - 0x7000), n);
    return n;
}

static void test_reader_code(void)
{
    struct rvt_image *img = rvt_img_new();
    rvt_img_set_reader(img, ret_reader, NULL);
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    const struct rvt_block_info *b = rvt_bcache_get(bc, 0x7000);
    CHECK_EQ(b->ninsns, 2);
    CHECK_EQ(b->cf, RVT_CF_RETURN);
    CHECK_EQ(b->next, 0x7008);
    CHECK_EQ(rvt_bcache_get(bc, 0x7008)->flags, RVT_BI_EMPTY | RVT_BI_STOP_NOCODE);
    rvt_bcache_free(bc);
    rvt_img_free(img);
}

/* ---- the cache against the oracle over every address -------------------- */

struct all_blocks {
    uint64_t *addrs;
    struct rvt_block_info *want;
    size_t n;
};

static void oracle_all(const struct rvt_image *img, struct all_blocks *ab)
{
    size_t n = 0;
    for (size_t i = 0; i < rvt_img_segment_count(img); i++)
        n += rvt_img_segment(img, i)->size / 2 + 2;
    ab->addrs = malloc(n * sizeof *ab->addrs);
    ab->want = malloc(n * sizeof *ab->want);
    ab->n = 0;
    for (size_t i = 0; i < rvt_img_segment_count(img); i++) {
        const struct rvt_segment *s = rvt_img_segment(img, i);
        /* Every halfword, plus the first address after the segment. */
        for (uint64_t a = s->addr; a <= s->addr + s->size; a += 2) {
            ab->addrs[ab->n] = a;
            naive_block(img, a, &ab->want[ab->n]);
            ab->n++;
        }
    }
}

static void compare_all(const struct rvt_image *img, const struct all_blocks *ab, unsigned log2,
                        const char *name)
{
    struct rvt_bcache *bc = rvt_bcache_new(img, log2);
    REQUIRE(bc != NULL);
    unsigned bad = 0;
    uint64_t lookups = 0;
    /* Ascending, descending, then a pseudo-random order with repeats. */
    for (int pass = 0; pass < 3; pass++) {
        uint64_t s = 0x9e3779b97f4a7c15ull + (uint64_t)pass;
        for (size_t k = 0; k < ab->n; k++) {
            size_t i = pass == 0 ? k : pass == 1 ? ab->n - 1 - k : (size_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33) % ab->n;
            const struct rvt_block_info *b = rvt_bcache_get(bc, ab->addrs[i]);
            lookups++;
            if (!same_block(b, &ab->want[i]) && bad++ < 3) {
                rvt_test_fail(__FILE__, __LINE__, "%s slots_log2 %u: block at 0x%llx differs",
                              name, log2, (unsigned long long)ab->addrs[i]);
                print_block("cache", b);
                print_block("naive", &ab->want[i]);
            }
        }
    }
    rvt_test_checks++;
    CHECK_EQ(bad, 0);
    uint64_t hits, misses;
    rvt_bcache_stats(bc, &hits, &misses);
    CHECK_EQ(hits + misses, lookups);
    CHECK(misses >= ab->n); /* every distinct address was decoded at least once */
    /* A cache big enough for everything keeps it: later passes all hit. */
    if ((1ull << (log2 ? log2 : 16)) >= 4 * ab->n)
        CHECK_MSG(misses == ab->n, "%s slots_log2 %u: %llu misses for %zu blocks", name, log2,
                  (unsigned long long)misses, ab->n);
    if (log2 && log2 <= 4)
        CHECK(misses > ab->n); /* 16 slots cannot hold them: evictions happened */
    if (log2 == 0)
        printf("%s: %zu addresses, %llu lookups, %llu misses (default size)\n", name, ab->n,
               (unsigned long long)lookups, (unsigned long long)misses);
    rvt_bcache_free(bc);
}

static void test_against_oracle(const char *path, bool optional)
{
    struct rvt_image *img = rvt_img_new();
    if (rvt_img_load_elf(img, path) != 0) {
        if (optional)
            printf("note: %s not loadable (%s), skipped\n", path, rvt_img_error(img));
        else
            rvt_test_fail(__FILE__, __LINE__, "%s", rvt_img_error(img));
        rvt_img_free(img);
        return;
    }
    struct all_blocks ab;
    oracle_all(img, &ab);
    static const unsigned sizes[] = {1, 2, 4, 9, 0, 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        compare_all(img, &ab, sizes[i], path);
    free(ab.addrs);
    free(ab.want);
    rvt_img_free(img);
}

int main(void)
{
    test_classes("image/classes32.elf", 32);
    test_classes("image/classes64.elf", 64);
    test_raw_blocks();
    test_address_space_ends();
    test_reader_code();
    const char *rels[] = {"ntrace-t1/test.elf", "image/prog32.elf", "image/prog64.elf",
                          "image/classes32.elf", "image/classes64.elf", "image/libdyn.so"};
    for (size_t i = 0; i < sizeof rels / sizeof rels[0]; i++) {
        char *p = rvt_test_data(rels[i]);
        test_against_oracle(p, false);
        free(p);
    }
    /* A large real binary, when the cross toolchain's loader is installed. */
    test_against_oracle("/usr/riscv64-linux-gnu/lib/ld-linux-riscv64-lp64d.so.1", true);
    return rvt_test_summary("test_image_bcache");
}

/* Decoder, control-flow classes and sequentially inferable jumps.
 *
 * Instruction words come from GNU as (riscv64-unknown-elf-as, 2.40) for the
 * assembly shown beside each; expected classes are the rows of the E-Trace
 * ingress-port "Jump classification and target inference" list, expected
 * targets the assembler's own pc-relative offsets. */
#include "testlib.h"

#include "isa/opcodes.h"
#include "rvtrace/isa.h"

#include <string.h>

static struct rvt_insn dec(uint32_t bits, uint64_t pc, unsigned xlen)
{
    struct rvt_insn in;
    int rc = rvt_isa_decode(bits, pc, xlen, &in);
    CHECK_EQ(rc, 0);
    return in;
}

/* ---- instruction length -------------------------------------------- */

static void test_length(void)
{
    CHECK_EQ(rvt_isa_length(0x0000), 2);
    CHECK_EQ(rvt_isa_length(0x0001), 2);
    CHECK_EQ(rvt_isa_length(0x0002), 2);
    CHECK_EQ(rvt_isa_length(0xfffe), 2);
    CHECK_EQ(rvt_isa_length(0x0003), 4);
    CHECK_EQ(rvt_isa_length(0x0013), 4);
    CHECK_EQ(rvt_isa_length(0x0073), 4);
    CHECK_EQ(rvt_isa_length(0x001b), 4); /* bits[4:2]=110: still 32-bit */
    CHECK_EQ(rvt_isa_length(0x001f), 6); /* xx011111: 48-bit */
    CHECK_EQ(rvt_isa_length(0x005f), 6);
    CHECK_EQ(rvt_isa_length(0x003f), 8); /* x0111111: 64-bit */
    CHECK_EQ(rvt_isa_length(0x00bf), 8);
    CHECK_EQ(rvt_isa_length(0x007f), 0); /* >= 80-bit: none defined */
    CHECK_EQ(rvt_isa_length(0x107f), 0);
    CHECK_EQ(rvt_isa_length(0x707f), 0); /* reserved >= 192-bit */
    CHECK_EQ(rvt_isa_length(0xffff), 0);

    /* Long encodings: length reported, never valid, no class. */
    static const struct {
        uint32_t bits;
        unsigned len;
    } longs[] = {{0x1234001f, 6}, {0x1111003f, 8}, {0x0001007f, 0}, {0x0000707f, 0}, {0xffffffff, 0}};
    for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++)
        for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
            struct rvt_insn in = dec(longs[i].bits, 0x1000, xlen);
            CHECK_EQ(in.len, longs[i].len);
            CHECK_EQ(in.flags & RVT_IF_VALID, 0);
            CHECK_EQ(in.cf, RVT_CF_NONE);
            CHECK_EQ(in.bits, longs[i].bits);
        }
}

/* ---- control flow --------------------------------------------------- */

struct cf_case {
    uint32_t bits;
    unsigned xlen; /* 0: both */
    unsigned cf;
    int64_t off;   /* pc-relative target for branches and inferable jumps */
    unsigned rd, rs1;
    const char *text;
};

static const struct cf_case cf_cases[] = {
    /* Calls */
    {0xf01ff0ef, 0, RVT_CF_CALL_INF, -0x100, 1, 0, "jal x1, .-0x100"},
    {0x7ff7f2ef, 0, RVT_CF_CALL_INF, 0x7fffe, 5, 0, "jal x5, .+0x7fffe"},
    {0x000080e7, 0, RVT_CF_CALL_UNINF, 0, 1, 1, "jalr x1, 0(x1)"},
    {0x000300e7, 0, RVT_CF_CALL_UNINF, 0, 1, 6, "jalr x1, 0(x6)"},
    {0x000282e7, 0, RVT_CF_CALL_UNINF, 0, 5, 5, "jalr x5, 0(x5)"},
    {0x000302e7, 0, RVT_CF_CALL_UNINF, 0, 5, 6, "jalr x5, 0(x6)"},
    {0x9082, 0, RVT_CF_CALL_UNINF, 0, 1, 1, "c.jalr x1"},
    {0x9302, 0, RVT_CF_CALL_UNINF, 0, 1, 6, "c.jalr x6"},
    {0x2ffd, 32, RVT_CF_CALL_INF, 0x7fe, 1, 0, "c.jal .+0x7fe"},
    {0x3001, 32, RVT_CF_CALL_INF, -0x800, 1, 0, "c.jal .-0x800"},
    /* Other jumps without linkage */
    {0x1000006f, 0, RVT_CF_JUMP_INF, 0x100, 0, 0, "jal x0, .+0x100"},
    {0xaffd, 0, RVT_CF_JUMP_INF, 0x7fe, 0, 0, "c.j .+0x7fe"},
    {0xb001, 0, RVT_CF_JUMP_INF, -0x800, 0, 0, "c.j .-0x800"},
    {0x00830067, 0, RVT_CF_JUMP_UNINF, 0, 0, 6, "jalr x0, 8(x6)"},
    {0x8302, 0, RVT_CF_JUMP_UNINF, 0, 0, 6, "c.jr x6"},
    /* Returns */
    {0x00008067, 0, RVT_CF_RETURN, 0, 0, 1, "jalr x0, 0(x1)"},
    {0x00028067, 0, RVT_CF_RETURN, 0, 0, 5, "jalr x0, 0(x5)"},
    {0x00008367, 0, RVT_CF_RETURN, 0, 6, 1, "jalr x6, 0(x1)"},
    {0x00028367, 0, RVT_CF_RETURN, 0, 6, 5, "jalr x6, 0(x5)"},
    {0x8082, 0, RVT_CF_RETURN, 0, 0, 1, "c.jr x1"},
    {0x8282, 0, RVT_CF_RETURN, 0, 0, 5, "c.jr x5"},
    /* Co-routine swap */
    {0xffc280e7, 0, RVT_CF_COSWAP, 0, 1, 5, "jalr x1, -4(x5)"},
    {0x000082e7, 0, RVT_CF_COSWAP, 0, 5, 1, "jalr x5, 0(x1)"},
    {0x9282, 0, RVT_CF_COSWAP, 0, 1, 5, "c.jalr x5"},
    /* Other jumps with linkage */
    {0x8000036f, 0, RVT_CF_OTHER_INF, -0x100000, 6, 0, "jal x6, .-0x100000"},
    {0x00c38367, 0, RVT_CF_OTHER_UNINF, 0, 6, 7, "jalr x6, 12(x7)"},
    /* Conditional branches, forward and backward */
    {0x00b50863, 0, RVT_CF_BRANCH, 0x10, 0, 10, "beq a0, a1, .+0x10"},
    {0xfe0518e3, 0, RVT_CF_BRANCH, -0x10, 0, 10, "bne a0, zero, .-0x10"},
    {0x7eb54fe3, 0, RVT_CF_BRANCH, 0xffe, 0, 10, "blt a0, a1, .+0xffe"},
    {0x80b55063, 0, RVT_CF_BRANCH, -0x1000, 0, 10, "bge a0, a1, .-0x1000"},
    {0x00b56263, 0, RVT_CF_BRANCH, 4, 0, 10, "bltu a0, a1, .+4"},
    {0xfeb57fe3, 0, RVT_CF_BRANCH, -2, 0, 10, "bgeu a0, a1, .-2"},
    {0xcd7d, 0, RVT_CF_BRANCH, 0xfe, 0, 10, "c.beqz a0, .+0xfe"},
    {0xf081, 0, RVT_CF_BRANCH, -0x100, 0, 9, "c.bnez s1, .-0x100"},
    /* Trap returns and traps */
    {0x30200073, 0, RVT_CF_TRAPRET, 0, 0, 0, "mret"},
    {0x10200073, 0, RVT_CF_TRAPRET, 0, 0, 0, "sret"},
    {0x00200073, 0, RVT_CF_TRAPRET, 0, 0, 0, "uret"},
    {0x7b200073, 0, RVT_CF_TRAPRET, 0, 0, 0, "dret"},
    {0x70200073, 0, RVT_CF_TRAPRET, 0, 0, 0, "mnret"},
    {0x00000073, 0, RVT_CF_ECALL, 0, 0, 0, "ecall"},
    {0x00100073, 0, RVT_CF_EBREAK, 0, 0, 0, "ebreak"},
    {0x9002, 0, RVT_CF_EBREAK, 0, 0, 0, "c.ebreak"},
    /* Sequential */
    {0x10500073, 0, RVT_CF_NONE, 0, 0, 0, "wfi"},
    {0x12b50073, 0, RVT_CF_NONE, 0, 0, 10, "sfence.vma a0, a1"},
    {0x00001317, 0, RVT_CF_NONE, 0, 6, 0, "auipc t1, 0x1"},
};

static void test_control_flow(void)
{
    const uint64_t pcs[] = {0x20010000, 0x80001000, 0x7ffffffc00};
    for (size_t i = 0; i < sizeof cf_cases / sizeof cf_cases[0]; i++) {
        const struct cf_case *c = &cf_cases[i];
        for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
            if (c->xlen && c->xlen != xlen)
                continue;
            for (size_t p = 0; p < sizeof pcs / sizeof pcs[0]; p++) {
                const uint64_t mask = xlen == 32 ? 0xffffffffu : ~(uint64_t)0;
                const uint64_t pc = pcs[p] & mask;
                struct rvt_insn in = dec(c->bits, pc, xlen);
                const unsigned len = (c->bits & 3) == 3 ? 4 : 2;
                CHECK_MSG(in.flags & RVT_IF_VALID, "%s: not valid", c->text);
                CHECK_MSG(in.cf == c->cf, "%s (rv%u): class %s, expected %s", c->text, xlen,
                          rvt_cf_name(in.cf), rvt_cf_name(c->cf));
                CHECK_EQ(in.len, len);
                CHECK_EQ(!!(in.flags & RVT_IF_COMPRESSED), len == 2);
                CHECK_EQ(in.pc, pc);
                if (c->cf == RVT_CF_BRANCH || rvt_cf_inferable_jump(c->cf)) {
                    CHECK_MSG(in.target == ((pc + (uint64_t)c->off) & mask),
                              "%s at %" PRIx64 ": target %" PRIx64, c->text, pc, in.target);
                    CHECK_EQ(in.imm, c->off);
                }
                if (c->cf == RVT_CF_BRANCH) {
                    CHECK_EQ(in.rs1, c->rs1);
                } else if (c->cf != RVT_CF_NONE) {
                    CHECK_EQ(in.rd, c->rd);
                    CHECK_EQ(in.rs1, c->rs1);
                    CHECK_EQ(!!(in.flags & RVT_IF_WRITES_RD), c->rd != 0);
                }
                CHECK_EQ(rvt_cf_uninferable(in.cf),
                         c->cf == RVT_CF_TRAPRET || c->cf == RVT_CF_CALL_UNINF ||
                             c->cf == RVT_CF_JUMP_UNINF || c->cf == RVT_CF_COSWAP ||
                             c->cf == RVT_CF_RETURN || c->cf == RVT_CF_OTHER_UNINF);
                CHECK_EQ(rvt_isa_next_pc(&in, xlen), (pc + len) & mask);
            }
        }
    }
    /* The class values that are itypes are the itype codes. */
    CHECK_EQ(RVT_CF_TRAPRET, 3);
    CHECK_EQ(RVT_CF_CALL_UNINF, 8);
    CHECK_EQ(RVT_CF_OTHER_INF, 15);
    CHECK(rvt_cf_is_call(RVT_CF_COSWAP) && rvt_cf_is_call(RVT_CF_CALL_INF) &&
          !rvt_cf_is_call(RVT_CF_RETURN) && !rvt_cf_is_call(RVT_CF_OTHER_INF));
}

/* Every jalr rd/rs1 combination against the list's rows, written out. */
static void test_jalr_matrix(void)
{
    for (unsigned rd = 0; rd < 32; rd++)
        for (unsigned rs1 = 0; rs1 < 32; rs1++) {
            const uint32_t bits = 0x67u | rd << 7 | rs1 << 15;
            struct rvt_insn in = dec(bits, 0x1000, 64);
            const bool rd_link = rd == 1 || rd == 5, rs_link = rs1 == 1 || rs1 == 5;
            unsigned want;
            if ((rd == 1 && rs1 == 5) || (rd == 5 && rs1 == 1))
                want = RVT_CF_COSWAP;
            else if (rd_link)
                want = RVT_CF_CALL_UNINF; /* jalr x1, rs (rs != x5); jalr x5, rs (rs != x1) */
            else if (rs_link)
                want = RVT_CF_RETURN;     /* jalr rd, x1/x5 with rd not a link register */
            else if (rd == 0)
                want = RVT_CF_JUMP_UNINF;
            else
                want = RVT_CF_OTHER_UNINF;
            CHECK_MSG(in.cf == want, "jalr x%u, 0(x%u): %s, expected %s", rd, rs1,
                      rvt_cf_name(in.cf), rvt_cf_name(want));
        }
    /* c.jr / c.jalr for every register (x0 forms are c.ebreak / reserved). */
    for (unsigned r = 1; r < 32; r++) {
        struct rvt_insn jr = dec(0x8002u | r << 7, 0x1000, 32);
        struct rvt_insn jalr = dec(0x9002u | r << 7, 0x1000, 32);
        CHECK_EQ(jr.cf, (r == 1 || r == 5) ? RVT_CF_RETURN : RVT_CF_JUMP_UNINF);
        CHECK_EQ(jalr.cf, r == 5 ? RVT_CF_COSWAP : RVT_CF_CALL_UNINF);
        CHECK_EQ(jalr.rd, 1);
        CHECK_EQ(jalr.rs1, r);
    }
    /* jal for every rd. */
    for (unsigned rd = 0; rd < 32; rd++) {
        struct rvt_insn in = dec(0x0000006fu | rd << 7, 0x1000, 64);
        CHECK_EQ(in.cf, rd == 0 ? RVT_CF_JUMP_INF
                        : (rd == 1 || rd == 5) ? RVT_CF_CALL_INF
                                               : RVT_CF_OTHER_INF);
    }
}

static void test_wraparound(void)
{
    /* RV32: targets wrap at 2^32; RV64 keeps the carry. */
    struct rvt_insn in = dec(0x1000006f, 0xffffff80, 32); /* jal x0, .+0x100 */
    CHECK_EQ(in.target, 0x80);
    in = dec(0x1000006f, 0xffffff80, 64);
    CHECK_EQ(in.target, 0x100000080ull);
    in = dec(0xfe0518e3, 0x8, 32); /* bne a0, zero, .-0x10 */
    CHECK_EQ(in.target, 0xfffffff8);
    in = dec(0xfe0518e3, 0x8, 64);
    CHECK_EQ(in.target, 0xfffffffffffffff8ull);
    in = dec(0xb001, 0x100, 32); /* c.j .-0x800 */
    CHECK_EQ(in.target, 0xfffff900);
    in = dec(0x2ffd, 0xfffffc00, 32); /* c.jal .+0x7fe */
    CHECK_EQ(in.target, 0x3fe);
    in = dec(0xcd7d, 0xffffff80, 32); /* c.beqz a0, .+0xfe */
    CHECK_EQ(in.target, 0x7e);
    /* Constants: auipc wraps like a target, lui sign-extends then masks. */
    in = dec(0x00001317, 0xfffff800, 32); /* auipc t1, 0x1 */
    CHECK_EQ(in.target, 0x800);
    CHECK(in.flags & RVT_IF_LOADS_CONST);
    in = dec(0x00001317, 0xfffff800, 64);
    CHECK_EQ(in.target, 0x100000800ull);
    in = dec(0xfffff317, 0x1000, 64); /* auipc t1, 0xfffff */
    CHECK_EQ(in.target, 0);
    in = dec(0x800002b7, 0, 32); /* lui t0, 0x80000 */
    CHECK_EQ(in.target, 0x80000000u);
    in = dec(0x800002b7, 0, 64);
    CHECK_EQ(in.target, 0xffffffff80000000ull);
    CHECK_EQ(in.imm, -(int64_t)0x80000000);
    in = dec(0x7781, 0, 64); /* c.lui a5, 0xfffe0 */
    CHECK_EQ(in.target, 0xfffffffffffe0000ull);
    CHECK_EQ(in.rd, 15);
    in = dec(0x7781, 0, 32);
    CHECK_EQ(in.target, 0xfffe0000u);
    in = dec(0x6785, 0, 32); /* c.lui a5, 0x1 */
    CHECK_EQ(in.target, 0x1000);
    CHECK(in.flags & RVT_IF_LOADS_CONST);
}

/* ---- sequentially inferable jumps ----------------------------------- */

static void test_sijump(void)
{
    uint64_t t = 0;
    struct rvt_insn prev, jump;

    /* auipc t1, 0x1 ; jalr ra, 16(t1) */
    prev = dec(0x00001317, 0x20010000, 64);
    jump = dec(0x010300e7, 0x20010004, 64);
    CHECK(rvt_isa_sijump_target(&prev, &jump, 64, &t));
    CHECK_EQ(t, 0x20011010);
    /* lui t1, 0x12345 ; jalr x0, 0x678(t1) */
    prev = dec(0x12345337, 0x1000, 64);
    jump = dec(0x67830067, 0x1004, 64);
    CHECK_EQ(jump.cf, RVT_CF_JUMP_UNINF);
    CHECK(rvt_isa_sijump_target(&prev, &jump, 64, &t));
    CHECK_EQ(t, 0x12345678);
    /* lui t0, 0x1 ; jalr x0, 3(t0): bit 0 of the target is cleared */
    prev = dec(0x000012b7, 0x1000, 32);
    jump = dec(0x00328067, 0x1004, 32);
    CHECK(rvt_isa_sijump_target(&prev, &jump, 32, &t));
    CHECK_EQ(t, 0x1002);
    /* c.lui a5, 0x1 ; c.jr a5 */
    prev = dec(0x6785, 0x400, 32);
    jump = dec(0x8782, 0x402, 32);
    CHECK_EQ(jump.cf, RVT_CF_JUMP_UNINF);
    CHECK(rvt_isa_sijump_target(&prev, &jump, 32, &t));
    CHECK_EQ(t, 0x1000);
    /* c.lui a5, 0xfffe0 ; c.jalr a5: negative constant, RV32 and RV64 */
    prev = dec(0x7781, 0x400, 32);
    jump = dec(0x9782, 0x402, 32);
    CHECK(rvt_isa_sijump_target(&prev, &jump, 32, &t));
    CHECK_EQ(t, 0xfffe0000u);
    prev = dec(0x7781, 0x400, 64);
    jump = dec(0x9782, 0x402, 64);
    CHECK(rvt_isa_sijump_target(&prev, &jump, 64, &t));
    CHECK_EQ(t, 0xfffffffffffe0000ull);
    /* RV32 wrap: auipc t1, 0x1 at 0xfffff000 -> 0; jalr ra, -4(t1) -> 0xfffffffc */
    prev = dec(0x00001317, 0xfffff000, 32);
    jump = dec(0xffc300e7, 0xfffff004, 32);
    CHECK(rvt_isa_sijump_target(&prev, &jump, 32, &t));
    CHECK_EQ(t, 0xfffffffcu);
    /* lui ra, 0x10 ; ret (a return through a constant is still inferable) */
    prev = dec(0x000100b7, 0, 64);
    jump = dec(0x8082, 4, 64);
    CHECK_EQ(jump.cf, RVT_CF_RETURN);
    CHECK(rvt_isa_sijump_target(&prev, &jump, 64, &t));
    CHECK_EQ(t, 0x10000);
    /* auipc t0 ; jalr t0, 0(t0): the jump reads rs1 before writing rd */
    prev = dec(0x00000297, 0x2000, 64);
    jump = dec(0x000282e7, 0x2004, 64);
    CHECK(rvt_isa_sijump_target(&prev, &jump, 64, &t));
    CHECK_EQ(t, 0x2000);
    /* A NULL target pointer is allowed. */
    CHECK(rvt_isa_sijump_target(&prev, &jump, 64, NULL));

    /* Not sequentially inferable: */
    t = 0x5555;
    prev = dec(0x00001317, 0x1000, 64); /* auipc t1, 0x1 */
    jump = dec(0x000380e7, 0x1004, 64); /* jalr ra, 0(t2): other register */
    CHECK(!rvt_isa_sijump_target(&prev, &jump, 64, &t));
    CHECK_EQ(t, 0x5555);
    prev = dec(0x00001017, 0x1000, 64); /* auipc zero, 0x1 */
    jump = dec(0x00000067, 0x1004, 64); /* jr zero */
    CHECK(!rvt_isa_sijump_target(&prev, &jump, 64, &t));
    prev = dec(0x00130313, 0x1000, 64); /* addi t1, t1, 1: not a constant */
    jump = dec(0x000300e7, 0x1004, 64); /* jalr ra, 0(t1) */
    CHECK(!rvt_isa_sijump_target(&prev, &jump, 64, &t));
    prev = dec(0x00001317, 0x1000, 64); /* auipc t1 */
    jump = dec(0x1000006f, 0x1004, 64); /* jal: inferable anyway */
    CHECK(!rvt_isa_sijump_target(&prev, &jump, 64, &t));
    jump = dec(0x30200073, 0x1004, 64); /* mret: trap returns use xepc */
    CHECK(!rvt_isa_sijump_target(&prev, &jump, 64, &t));
    jump = dec(0x00030463, 0x1004, 64); /* beqz t1: a branch */
    CHECK(!rvt_isa_sijump_target(&prev, &jump, 64, &t));
    jump = dec(0x00031067, 0x1004, 64); /* jalr with funct3=1: illegal */
    CHECK(!(jump.flags & RVT_IF_VALID));
    CHECK(!rvt_isa_sijump_target(&prev, &jump, 64, &t));
    CHECK(!rvt_isa_sijump_target(&prev, &jump, 16, &t));
    CHECK(!rvt_isa_sijump_target(NULL, &jump, 64, &t));
    CHECK_EQ(t, 0x5555);
}

/* ---- fields and flags ----------------------------------------------- */

struct field_case {
    uint32_t bits;
    unsigned xlen; /* 0: both */
    unsigned op;
    uint16_t flags; /* exact, VALID included */
    unsigned rd, rs1, rs2;
    int64_t imm;
    unsigned mem;
    const char *text;
};

#define V RVT_IF_VALID
#define C RVT_IF_COMPRESSED
#define W RVT_IF_WRITES_RD
#define L RVT_IF_LOAD
#define S RVT_IF_STORE
#define F RVT_IF_FP_RD
#define K RVT_IF_LOADS_CONST

static const struct field_case field_cases[] = {
    {0xfe058503, 0, RVT_OP_LB, V | L | W, 10, 11, 0, -32, 1, "lb a0,-32(a1)"},
    {0xfe05d503, 0, RVT_OP_LHU, V | L | W, 10, 11, 0, -32, 2, "lhu a0,-32(a1)"},
    {0x0005a003, 0, RVT_OP_LW, V | L, 0, 11, 0, 0, 4, "lw zero,0(a1)"},
    {0xfe05b503, 64, RVT_OP_LD, V | L | W, 10, 11, 0, -32, 8, "ld a0,-32(a1)"},
    {0xfe05e503, 64, RVT_OP_LWU, V | L | W, 10, 11, 0, -32, 4, "lwu a0,-32(a1)"},
    {0xfec58523, 0, RVT_OP_SB, V | S, 0, 11, 12, -22, 1, "sb a2,-22(a1)"},
    {0xfec5b523, 64, RVT_OP_SD, V | S, 0, 11, 12, -22, 8, "sd a2,-22(a1)"},
    {0x7ff00513, 0, RVT_OP_ADDI, V | W, 10, 0, 0, 2047, 0, "li a0,2047"},
    {0x80058513, 0, RVT_OP_ADDI, V | W, 10, 11, 0, -2048, 0, "addi a0,a1,-2048"},
    {0x03f59513, 64, RVT_OP_SLLI, V | W, 10, 11, 0, 63, 0, "slli a0,a1,0x3f"},
    {0x4205d513, 64, RVT_OP_SRAI, V | W, 10, 11, 0, 32, 0, "srai a0,a1,0x20"},
    {0x4015d51b, 64, RVT_OP_SRAIW, V | W, 10, 11, 0, 1, 0, "sraiw a0,a1,0x1"},
    {0x40c58533, 0, RVT_OP_SUB, V | W, 10, 11, 12, 0, 0, "sub a0,a1,a2"},
    {0x02c5c53b, 64, RVT_OP_DIVW, V | W, 10, 11, 12, 0, 0, "divw a0,a1,a2"},
    {0x123450b7, 0, RVT_OP_LUI, V | W | K, 1, 0, 0, 0x12345000, 0, "lui ra,0x12345"},
    {0x00001017, 0, RVT_OP_AUIPC, V, 0, 0, 0, 0x1000, 0, "auipc zero,0x1 (no constant kept)"},
    {0x1005a52f, 0, RVT_OP_LR_W, V | L | W, 10, 11, 0, 0, 4, "lr.w a0,(a1)"},
    {0x1ac5a52f, 0, RVT_OP_SC_W, V | S | W, 10, 11, 12, 0, 4, "sc.w.rl a0,a2,(a1)"},
    {0x06c5b52f, 64, RVT_OP_AMOADD_D, V | L | S | W, 10, 11, 12, 0, 8, "amoadd.d.aqrl a0,a2,(a1)"},
    {0xe0c5a02f, 0, RVT_OP_AMOMAXU_W, V | L | S, 0, 11, 12, 0, 4, "amomaxu.w zero,a2,(a1)"},
    {0x0205a507, 0, RVT_OP_FLW, V | L | F, 10, 11, 0, 32, 4, "flw fa0,32(a1)"},
    {0x02c5b527, 0, RVT_OP_FSD, V | S, 0, 11, 12, 42, 8, "fsd fa2,42(a1)"},
    {0x68c58543, 0, RVT_OP_FMADD_S, V | F, 10, 11, 12, 0, 0, "fmadd.s fa0,fa1,fa2,fa3,rne"},
    {0x02c5f553, 0, RVT_OP_FADD_D, V | F, 10, 11, 12, 0, 0, "fadd.d fa0,fa1,fa2"},
    {0xa2c5a553, 0, RVT_OP_FEQ_D, V | W, 10, 11, 12, 0, 0, "feq.d a0,fa1,fa2"},
    {0xc2359553, 64, RVT_OP_FCVT_LU_D, V | W, 10, 11, 3, 0, 0, "fcvt.lu.d a0,fa1,rtz"},
    {0xd2058553, 0, RVT_OP_FCVT_D_W, V | F, 10, 11, 0, 0, 0, "fcvt.d.w fa0,a1"},
    {0x42058553, 0, RVT_OP_FCVT_D_S, V | F, 10, 11, 0, 0, 0, "fcvt.d.s fa0,fa1"},
    {0xe2058553, 64, RVT_OP_FMV_X_D, V | W, 10, 11, 0, 0, 0, "fmv.x.d a0,fa1"},
    {0xf0058553, 0, RVT_OP_FMV_W_X, V | F, 10, 11, 0, 0, 0, "fmv.w.x fa0,a1"},
    {0x30529073, 0, RVT_OP_CSRRW, V | RVT_IF_CSR, 0, 5, 0, 0x305, 0, "csrw mtvec,t0"},
    {0xf1402573, 0, RVT_OP_CSRRS, V | RVT_IF_CSR | W, 10, 0, 0, 0xf14, 0, "csrr a0,mhartid"},
    {0x7c105073, 0, RVT_OP_CSRRWI, V | RVT_IF_CSR, 0, 0, 0, 0x7c1, 0, "csrwi 0x7c1,0"},
    {0x3004f073, 0, RVT_OP_CSRRCI, V | RVT_IF_CSR, 0, 9, 0, 0x300, 0, "csrci mstatus,9"},
    {0x10500073, 0, RVT_OP_WFI, V | RVT_IF_WFI, 0, 0, 0, 0, 0, "wfi"},
    {0x0ff0000f, 0, RVT_OP_FENCE, V | RVT_IF_FENCE, 0, 0, 0, 0x0ff, 0, "fence"},
    {0x8330000f, 0, RVT_OP_FENCE_TSO, V | RVT_IF_FENCE, 0, 0, 0, 0x833, 0, "fence.tso"},
    {0x0000100f, 0, RVT_OP_FENCE_I, V | RVT_IF_FENCE, 0, 0, 0, 0, 0, "fence.i"},
    {0x12b50073, 0, RVT_OP_SFENCE_VMA, V | RVT_IF_FENCE, 0, 10, 11, 0, 0, "sfence.vma a0,a1"},
    {0x22000073, 0, RVT_OP_HFENCE_VVMA, V | RVT_IF_FENCE, 0, 0, 0, 0, 0, "hfence.vvma"},
    /* compressed: registers expanded, implicit operands filled in */
    {0x1000, 0, RVT_OP_C_ADDI4SPN, V | C | W, 8, 2, 0, 32, 0, "addi s0,sp,32"},
    {0x4398, 0, RVT_OP_C_LW, V | C | L | W, 14, 15, 0, 0, 4, "lw a4,0(a5)"},
    {0x6000, 64, RVT_OP_C_LD, V | C | L | W, 8, 8, 0, 0, 8, "ld s0,0(s0)"},
    {0x6000, 32, RVT_OP_C_FLW, V | C | L | F, 8, 8, 0, 0, 4, "flw fs0,0(s0)"},
    {0x61c8, 32, RVT_OP_C_FLW, V | C | L | F, 10, 11, 0, 4, 4, "flw fa0,4(a1)"},
    {0xe426, 32, RVT_OP_C_FSWSP, V | C | S, 0, 2, 9, 8, 4, "fsw fs1,8(sp)"},
    {0xe426, 64, RVT_OP_C_SDSP, V | C | S, 0, 2, 9, 8, 8, "sd s1,8(sp)"},
    {0xc606, 0, RVT_OP_C_SWSP, V | C | S, 0, 2, 1, 12, 4, "sw ra,12(sp)"},
    {0x40b2, 0, RVT_OP_C_LWSP, V | C | L | W, 1, 2, 0, 12, 4, "lw ra,12(sp)"},
    {0x1141, 0, RVT_OP_C_ADDI, V | C | W, 2, 2, 0, -16, 0, "addi sp,sp,-16"},
    {0x7139, 0, RVT_OP_C_ADDI16SP, V | C | W, 2, 2, 0, -64, 0, "addi sp,sp,-64"},
    {0x0001, 0, RVT_OP_C_NOP, V | C, 0, 0, 0, 0, 0, "nop"},
    {0x4501, 0, RVT_OP_C_LI, V | C | W, 10, 0, 0, 0, 0, "li a0,0"},
    {0x4001, 0, RVT_OP_C_LI, V | C, 0, 0, 0, 0, 0, "c.li zero,0 (hint)"},
    {0x8406, 0, RVT_OP_C_MV, V | C | W, 8, 0, 1, 0, 0, "mv s0,ra"},
    {0x953a, 0, RVT_OP_C_ADD, V | C | W, 10, 10, 14, 0, 0, "add a0,a0,a4"},
    {0x8509, 0, RVT_OP_C_SRAI, V | C | W, 10, 10, 0, 2, 0, "srai a0,a0,0x2"},
    {0x893d, 0, RVT_OP_C_ANDI, V | C | W, 10, 10, 0, 15, 0, "andi a0,a0,15"},
    {0x8d15, 0, RVT_OP_C_SUB, V | C | W, 10, 10, 13, 0, 0, "sub a0,a0,a3"},
    {0x9c21, 64, RVT_OP_C_ADDW, V | C | W, 8, 8, 8, 0, 0, "addw s0,s0,s0"},
    {0x2505, 64, RVT_OP_C_ADDIW, V | C | W, 10, 10, 0, 1, 0, "addiw a0,a0,1"},
    {0x070e, 0, RVT_OP_C_SLLI, V | C | W, 14, 14, 0, 3, 0, "slli a4,a4,0x3"},
    {0x6785, 0, RVT_OP_C_LUI, V | C | W | K, 15, 0, 0, 0x1000, 0, "lui a5,0x1"},
    {0x6005, 0, RVT_OP_C_LUI, V | C, 0, 0, 0, 0x1000, 0, "c.lui zero,0x1 (hint)"},
};

static void test_fields(void)
{
    for (size_t i = 0; i < sizeof field_cases / sizeof field_cases[0]; i++) {
        const struct field_case *c = &field_cases[i];
        for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
            if (c->xlen && c->xlen != xlen)
                continue;
            struct rvt_insn in = dec(c->bits, 0x1000, xlen);
            CHECK_MSG(in.op == c->op, "%s: op %s", c->text, rvt_isa_op_name(in.op));
            CHECK_MSG(in.flags == c->flags, "%s (rv%u): flags 0x%x, expected 0x%x", c->text, xlen,
                      in.flags, c->flags);
            CHECK_MSG(in.rd == c->rd && in.rs1 == c->rs1 && in.rs2 == c->rs2,
                      "%s: rd %u rs1 %u rs2 %u", c->text, in.rd, in.rs1, in.rs2);
            CHECK_MSG(in.imm == c->imm, "%s: imm %" PRId64, c->text, in.imm);
            CHECK_MSG(in.mem_size == c->mem, "%s: mem_size %u", c->text, in.mem_size);
            CHECK_EQ(in.cf, RVT_CF_NONE);
        }
    }
}

/* ---- illegal and reserved bits --------------------------------------- */

struct bad_case {
    uint32_t bits;
    unsigned xlen; /* 0: both */
    const char *text;
};

static const struct bad_case bad_cases[] = {
    {0x0000, 0, "all-zero parcel"},
    {0x0004, 0, "c.addi4spn with zero immediate"},
    {0x8000, 0, "quadrant 0 funct3=100 (reserved)"},
    {0x6101, 0, "c.addi16sp with zero immediate"},
    {0x6081, 0, "c.lui with zero immediate"},
    {0x6001, 0, "c.lui zero with zero immediate"},
    {0x4002, 0, "c.lwsp rd=0"},
    {0x6002, 64, "c.ldsp rd=0"},
    {0x8002, 0, "c.jr x0"},
    {0x2001, 64, "c.addiw rd=0"},
    {0x9c01, 32, "c.subw on RV32"},
    {0x9c21, 32, "c.addw on RV32"},
    {0x9c41, 0, "misc-alu funct=10 with bit 12 set (reserved)"},
    {0x9c61, 0, "misc-alu funct=11 with bit 12 set (reserved)"},
    {0x9101, 32, "c.srli with shamt[5]=1 on RV32"},
    {0x9501, 32, "c.srai with shamt[5]=1 on RV32"},
    {0x1002, 32, "c.slli with shamt[5]=1 on RV32"},
    {0xfe05b503, 32, "ld on RV32"},
    {0xfe05e503, 32, "lwu on RV32"},
    {0xfec5b523, 32, "sd on RV32"},
    {0x0015851b, 32, "addiw on RV32"},
    {0x00c5853b, 32, "addw on RV32"},
    {0x02059513, 32, "slli shamt=32 on RV32"},
    {0x4205d513, 32, "srai shamt=32 on RV32"},
    {0xc0258553, 32, "fcvt.l.s on RV32"},
    {0xe2058553, 32, "fmv.x.d on RV32"},
    {0x00c5b52f, 32, "amoadd.d on RV32"},
    {0xfe05f503, 0, "load funct3=111"},
    {0xfec5c523, 0, "store funct3=100"},
    {0x00b52863, 0, "branch funct3=010"},
    {0x00b53863, 0, "branch funct3=011"},
    {0x00009067, 0, "jalr funct3=001"},
    {0x80c58533, 0, "OP funct7=0x40"},
    {0x40c59533, 0, "sll with funct7=0x20"},
    {0xfff01513, 0, "slli with imm[11:6] != 0"},
    {0x0200151b, 64, "slliw with shamt[5]=1"},
    {0x10c5a52f, 0, "lr.w with rs2 != 0"},
    {0x0805c52f, 0, "AMO funct3=100"},
    {0x0005d553, 0, "fadd.s with reserved rm=101"},
    {0x0005e553, 0, "fadd.s with reserved rm=110"},
    {0x68c5d543, 0, "fmadd.s with reserved rm"},
    {0x04c58553, 0, "fadd.h (no Zfh)"},
    {0x58158553, 0, "fsqrt.s with rs2 != 0"},
    {0x20b5b553, 0, "fsgnj funct3=011"},
    {0x0205c507, 0, "flq (no Q)"},
    {0x00004073, 0, "SYSTEM funct3=100"},
    {0x00300073, 0, "SYSTEM funct3=000 unknown funct12"},
    {0x12000173, 0, "sfence.vma with rd != 0"},
    {0x0000200f, 0, "MISC-MEM funct3=010 (cbo)"},
    {0x0000000b, 0, "custom-0 opcode"},
    {0x0000005b, 0, "custom-2 opcode"},
    {0x00000057, 0, "OP-V opcode"},
};

static void test_illegal(void)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
            if (c->xlen && c->xlen != xlen)
                continue;
            struct rvt_insn in = dec(c->bits, 0x1000, xlen);
            CHECK_MSG(!(in.flags & RVT_IF_VALID), "%s (rv%u) decoded as valid %s", c->text, xlen,
                      rvt_isa_op_name(in.op));
            CHECK_EQ(in.cf, RVT_CF_NONE);
            CHECK_EQ(in.flags & ~RVT_IF_COMPRESSED, 0);
            CHECK_EQ(in.mem_size, 0);
            CHECK_EQ(in.target, 0);
            CHECK_EQ(in.len, (c->bits & 3) == 3 ? 4 : 2);
        }
    }
    /* The same words where they are legal. */
    CHECK(dec(0x9c01, 0x1000, 64).flags & RVT_IF_VALID);
    CHECK(dec(0x9101, 0x1000, 64).flags & RVT_IF_VALID);
    CHECK(dec(0x02059513, 0x1000, 64).flags & RVT_IF_VALID);
    CHECK(dec(0x6002, 0x1000, 32).flags & RVT_IF_VALID); /* c.flwsp ft0,0(sp) */
    CHECK(dec(0x0005f553, 0x1000, 64).flags & RVT_IF_VALID); /* fadd.s, rm=dyn */

    /* A bad xlen is the only error; *out is still filled. */
    struct rvt_insn in;
    memset(&in, 0xa5, sizeof in);
    CHECK_EQ(rvt_isa_decode(0x00000013, 0x10, 16, &in), -RVT_ERR_INVAL);
    CHECK_EQ(in.flags, 0);
    CHECK_EQ(in.cf, RVT_CF_NONE);
    CHECK_EQ(in.pc, 0x10);
    CHECK_EQ(in.len, 4);
}

/* ---- invariants over pseudo-random words ----------------------------- */

static void test_invariants(void)
{
    uint64_t s = 0x243f6a8885a308d3ull;
    unsigned valid = 0;
    for (unsigned i = 0; i < 400000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        const uint32_t bits = (uint32_t)s;
        const unsigned xlen = (s >> 40) & 1 ? 64 : 32;
        const uint64_t mask = xlen == 32 ? 0xffffffffu : ~(uint64_t)0;
        const uint64_t pc = (s >> 20) & mask & ~(uint64_t)1;
        struct rvt_insn in = dec(bits, pc, xlen);
        CHECK(in.len == 0 || in.len == 2 || in.len == 4 || in.len == 6 || in.len == 8);
        CHECK_EQ(in.len, rvt_isa_length((uint16_t)bits));
        CHECK_EQ(!!(in.flags & RVT_IF_COMPRESSED), in.len == 2);
        CHECK(in.rd < 32 && in.rs1 < 32 && in.rs2 < 32);
        CHECK(in.op < RVT_OP__COUNT);
        if (!(in.flags & RVT_IF_VALID)) {
            CHECK_EQ(in.cf, RVT_CF_NONE);
            CHECK_EQ(in.flags & ~RVT_IF_COMPRESSED, 0);
            continue;
        }
        valid++;
        CHECK(in.len == 2 || in.len == 4);
        CHECK(in.op != RVT_OP_UNKNOWN);
        if (in.cf == RVT_CF_BRANCH || rvt_cf_inferable_jump(in.cf))
            CHECK_EQ(in.target, (pc + (uint64_t)in.imm) & mask);
        if (in.flags & RVT_IF_WRITES_RD)
            CHECK(in.rd != 0 && !(in.flags & RVT_IF_FP_RD));
        if (in.flags & (RVT_IF_LOAD | RVT_IF_STORE))
            CHECK(in.mem_size == 1 || in.mem_size == 2 || in.mem_size == 4 || in.mem_size == 8);
        else
            CHECK_EQ(in.mem_size, 0);
        if (in.flags & RVT_IF_LOADS_CONST)
            CHECK(in.rd != 0 && in.target == (in.target & mask));
        if (xlen == 32)
            CHECK(in.mem_size != 8 || (in.op == RVT_OP_FLD || in.op == RVT_OP_FSD ||
                                       in.op == RVT_OP_C_FLD || in.op == RVT_OP_C_FLDSP ||
                                       in.op == RVT_OP_C_FSD || in.op == RVT_OP_C_FSDSP));
    }
    CHECK(valid > 100000);
}

static void test_names(void)
{
    CHECK_STR(rvt_cf_name(RVT_CF_NONE), "none");
    CHECK_STR(rvt_cf_name(RVT_CF_BRANCH), "branch");
    CHECK_STR(rvt_cf_name(RVT_CF_CALL_INF), "call");
    CHECK_STR(rvt_cf_name(RVT_CF_RETURN), "return");
    CHECK_STR(rvt_cf_name(RVT_CF_TRAPRET), "trap-return");
    CHECK_STR(rvt_cf_name(99), "unknown");
    /* Every class has its own name. */
    const unsigned all[] = {RVT_CF_NONE,     RVT_CF_TRAPRET,  RVT_CF_BRANCH,      RVT_CF_CALL_UNINF,
                            RVT_CF_CALL_INF, RVT_CF_JUMP_UNINF, RVT_CF_JUMP_INF,  RVT_CF_COSWAP,
                            RVT_CF_RETURN,   RVT_CF_OTHER_UNINF, RVT_CF_OTHER_INF, RVT_CF_ECALL,
                            RVT_CF_EBREAK};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        for (size_t j = i + 1; j < sizeof all / sizeof all[0]; j++)
            CHECK(strcmp(rvt_cf_name(all[i]), rvt_cf_name(all[j])) != 0);
    CHECK_STR(rvt_isa_op_name(RVT_OP_C_ADDI4SPN), "c.addi4spn");
    CHECK_STR(rvt_isa_op_name(RVT_OP__COUNT + 5), "unknown");

    /* Disassembly output contract: snprintf-like truncation and length. */
    struct rvt_insn in = dec(0x00b50863, 0x20010534, 32); /* beq a0,a1,.+0x10 */
    char buf[64];
    CHECK_EQ(rvt_isa_disasm(&in, 32, buf, sizeof buf), (int)strlen("beq a0,a1,20010544"));
    CHECK_STR(buf, "beq a0,a1,20010544");
    char small[5];
    CHECK_EQ(rvt_isa_disasm(&in, 32, small, sizeof small), 18);
    CHECK_STR(small, "beq ");
    CHECK_EQ(rvt_isa_disasm(&in, 32, NULL, 0), 18);
    in = dec(0x1234001f, 0, 64);
    rvt_isa_disasm(&in, 64, buf, sizeof buf);
    CHECK_STR(buf, ".6byte 0x1234001f (low 32 bits)");
}

int main(void)
{
    test_length();
    test_control_flow();
    test_jalr_matrix();
    test_wraparound();
    test_sijump();
    test_fields();
    test_illegal();
    test_invariants();
    test_names();
    return rvt_test_summary("test_isa_decode");
}

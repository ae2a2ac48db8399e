/* Fuzz target for the ISA layer: every 16-bit-aligned window of the input
 * is decoded as an instruction for RV32 and RV64 (first 8 bytes give the
 * pc), disassembled into full-size and truncated buffers, and paired with
 * the previous instruction for sequentially inferable jumps.  Invariants
 * that must hold for any bits abort on failure. */
#include "isa/opcodes.h"
#include "rvtrace/isa.h"

#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)                                                                         \
    do {                                                                                   \
        if (!(c))                                                                          \
            abort();                                                                       \
    } while (0)

static void check_one(const struct rvt_insn *in, const struct rvt_insn *prev, unsigned xlen)
{
    const uint64_t mask = xlen == 32 ? 0xffffffffu : ~(uint64_t)0;
    REQUIRE(in->len == 0 || in->len == 2 || in->len == 4 || in->len == 6 || in->len == 8);
    REQUIRE(in->len == rvt_isa_length((uint16_t)in->bits));
    REQUIRE(!!(in->flags & RVT_IF_COMPRESSED) == (in->len == 2));
    REQUIRE(in->rd < 32 && in->rs1 < 32 && in->rs2 < 32 && in->op < RVT_OP__COUNT);
    if (!(in->flags & RVT_IF_VALID)) {
        REQUIRE(in->cf == RVT_CF_NONE);
        REQUIRE((in->flags & ~RVT_IF_COMPRESSED) == 0);
    } else {
        REQUIRE(in->len == 2 || in->len == 4);
        if (in->cf == RVT_CF_BRANCH || rvt_cf_inferable_jump(in->cf))
            REQUIRE(in->target == ((in->pc + (uint64_t)in->imm) & mask));
        if (in->flags & RVT_IF_WRITES_RD)
            REQUIRE(in->rd != 0);
    }
    REQUIRE(strlen(rvt_cf_name(in->cf)) > 0);

    char full[128], small[7];
    int n = rvt_isa_disasm(in, xlen, full, sizeof full);
    REQUIRE(n > 0 && (size_t)n < sizeof full && strlen(full) == (size_t)n);
    int m = rvt_isa_disasm(in, xlen, small, sizeof small);
    REQUIRE(m == n && strlen(small) == ((size_t)n < sizeof small ? (size_t)n : sizeof small - 1));
    REQUIRE(strncmp(full, small, strlen(small)) == 0);
    REQUIRE(rvt_isa_disasm(in, xlen, NULL, 0) == n);

    uint64_t t = 0;
    if (rvt_isa_sijump_target(prev, in, xlen, &t)) {
        REQUIRE(prev->flags & RVT_IF_LOADS_CONST && prev->rd == in->rs1);
        REQUIRE(rvt_cf_uninferable(in->cf) && in->cf != RVT_CF_TRAPRET);
        REQUIRE((t & 1) == 0 && (t & mask) == t);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t pc = 0;
    size_t at = 0;
    for (; at < size && at < 8; at++)
        pc |= (uint64_t)data[at] << (8 * at);
    pc &= ~(uint64_t)1;
    for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
        const uint64_t mask = xlen == 32 ? 0xffffffffu : ~(uint64_t)0;
        struct rvt_insn prev = {0};
        for (size_t i = at; i + 2 <= size; i += 2) {
            uint32_t bits = 0;
            for (size_t k = 0; k < 4 && i + k < size; k++)
                bits |= (uint32_t)data[i + k] << (8 * k);
            struct rvt_insn in;
            REQUIRE(rvt_isa_decode(bits, (pc + (i - at)) & mask, xlen, &in) == 0);
            check_one(&in, &prev, xlen);
            prev = in;
        }
    }
    struct rvt_insn bad;
    REQUIRE(rvt_isa_decode(0x13, pc, 128, &bad) == -RVT_ERR_INVAL);
    return 0;
}

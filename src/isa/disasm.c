/* rvtrace — objdump-style disassembly of a decoded instruction (display
 * only; never on the decode hot path).
 *
 * The text follows what GNU objdump prints for RISC-V with its default
 * options (ABI register names, pseudo-instructions, compressed
 * instructions shown as their expanded forms): the mnemonic, one space,
 * then comma-separated operands; branch and jump targets are absolute
 * addresses in hex without "0x" (objdump's "<symbol>" and "# comment"
 * decorations are not produced).  Where objdump knows no instruction it
 * prints ".2byte"/".4byte" with the bits, and so do we.
 *
 * Deliberate differences from binutils 2.40 (see tests/data/isa/README.md):
 *  - immediate-operand instructions keep their own names (addi, slli,
 *    andi, addiw, csrwi, ...), as every other binutils release prints
 *    them; 2.40 prints "add a0,a0,1", "csrw mstatus,8";
 *  - mnret, hfence.vvma and hfence.gvma are named (2.40 with its default
 *    rv64gc has no Smrnmi/H and prints .4byte);
 *  - 48/64-bit encodings print their low 32 bits only (rvt_insn holds no
 *    more); all bits[6:0]==0x7f encodings print as ".2byte".
 */
#include "rvtrace/isa.h"

#include "isa/opcodes.h"
#include "isa/textout.h"

#include <inttypes.h>
#include <stdarg.h>

static const char *const op_names[RVT_OP__COUNT] = {
#define RVT_OP_NAME_(id, name) name,
    RVT_OP_LIST(RVT_OP_NAME_)
#undef RVT_OP_NAME_
};

const char *rvt_isa_op_name(unsigned op)
{
    return op < RVT_OP__COUNT ? op_names[op] : op_names[RVT_OP_UNKNOWN];
}

static const char *const xreg[32] = {"zero", "ra", "sp",  "gp",  "tp", "t0", "t1", "t2",
                                     "s0",   "s1", "a0",  "a1",  "a2", "a3", "a4", "a5",
                                     "a6",   "a7", "s2",  "s3",  "s4", "s5", "s6", "s7",
                                     "s8",   "s9", "s10", "s11", "t3", "t4", "t5", "t6"};

static const char *const freg[32] = {"ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6",  "ft7",
                                     "fs0", "fs1", "fa0",  "fa1",  "fa2", "fa3", "fa4",  "fa5",
                                     "fa6", "fa7", "fs2",  "fs3",  "fs4", "fs5", "fs6",  "fs7",
                                     "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};

/* Rounding modes as objdump names them (5 and 6 are reserved). */
static const char *const rm_names[8] = {"rne", "rtz", "rdn", "rup", "rmm", "unknown", "unknown", "dyn"};

/* FENCE predecessor/successor sets; an empty set prints as "unknown". */
static const char *const fence_sets[16] = {"unknown", "w",  "r",  "rw",  "o",  "ow",  "or",  "orw",
                                           "i",       "iw", "ir", "irw", "io", "iow", "ior", "iorw"};

/* ---- CSR names ---------------------------------------------------------
 * The standard CSRs of the privileged spec (machine, supervisor,
 * hypervisor, debug/trigger, counters, F and V state, AIA, Sstc, state
 * enable, entropy source).  A row with count > 1 names a numbered series:
 * prefix + (first + offset) + suffix. */
struct csr_row {
    uint16_t num;
    uint8_t count;
    uint8_t first;
    const char *prefix;
    const char *suffix;
};

static const struct csr_row csr_rows[] = {
    {0x001, 1, 0, "fflags", ""},      {0x002, 1, 0, "frm", ""},
    {0x003, 1, 0, "fcsr", ""},        {0x008, 1, 0, "vstart", ""},
    {0x009, 1, 0, "vxsat", ""},       {0x00a, 1, 0, "vxrm", ""},
    {0x00f, 1, 0, "vcsr", ""},        {0x015, 1, 0, "seed", ""},
    {0x100, 1, 0, "sstatus", ""},     {0x104, 1, 0, "sie", ""},
    {0x105, 1, 0, "stvec", ""},       {0x106, 1, 0, "scounteren", ""},
    {0x10a, 1, 0, "senvcfg", ""},     {0x10c, 4, 0, "sstateen", ""},
    {0x114, 1, 0, "sieh", ""},        {0x140, 1, 0, "sscratch", ""},
    {0x141, 1, 0, "sepc", ""},        {0x142, 1, 0, "scause", ""},
    {0x143, 1, 0, "stval", ""},       {0x144, 1, 0, "sip", ""},
    {0x14d, 1, 0, "stimecmp", ""},    {0x150, 1, 0, "siselect", ""},
    {0x151, 1, 0, "sireg", ""},       {0x154, 1, 0, "siph", ""},
    {0x15c, 1, 0, "stopei", ""},      {0x15d, 1, 0, "stimecmph", ""},
    {0x180, 1, 0, "satp", ""},        {0x200, 1, 0, "vsstatus", ""},
    {0x204, 1, 0, "vsie", ""},        {0x205, 1, 0, "vstvec", ""},
    {0x214, 1, 0, "vsieh", ""},       {0x240, 1, 0, "vsscratch", ""},
    {0x241, 1, 0, "vsepc", ""},       {0x242, 1, 0, "vscause", ""},
    {0x243, 1, 0, "vstval", ""},      {0x244, 1, 0, "vsip", ""},
    {0x24d, 1, 0, "vstimecmp", ""},   {0x250, 1, 0, "vsiselect", ""},
    {0x251, 1, 0, "vsireg", ""},      {0x254, 1, 0, "vsiph", ""},
    {0x25c, 1, 0, "vstopei", ""},     {0x25d, 1, 0, "vstimecmph", ""},
    {0x280, 1, 0, "vsatp", ""},       {0x300, 1, 0, "mstatus", ""},
    {0x301, 1, 0, "misa", ""},        {0x302, 1, 0, "medeleg", ""},
    {0x303, 1, 0, "mideleg", ""},     {0x304, 1, 0, "mie", ""},
    {0x305, 1, 0, "mtvec", ""},       {0x306, 1, 0, "mcounteren", ""},
    {0x308, 1, 0, "mvien", ""},       {0x309, 1, 0, "mvip", ""},
    {0x30a, 1, 0, "menvcfg", ""},     {0x30c, 4, 0, "mstateen", ""},
    {0x310, 1, 0, "mstatush", ""},    {0x313, 1, 0, "midelegh", ""},
    {0x314, 1, 0, "mieh", ""},        {0x318, 1, 0, "mvienh", ""},
    {0x319, 1, 0, "mviph", ""},       {0x31a, 1, 0, "menvcfgh", ""},
    {0x31c, 4, 0, "mstateen", "h"},   {0x320, 1, 0, "mcountinhibit", ""},
    {0x323, 29, 3, "mhpmevent", ""},  {0x340, 1, 0, "mscratch", ""},
    {0x341, 1, 0, "mepc", ""},        {0x342, 1, 0, "mcause", ""},
    {0x343, 1, 0, "mtval", ""},       {0x344, 1, 0, "mip", ""},
    {0x34a, 1, 0, "mtinst", ""},      {0x34b, 1, 0, "mtval2", ""},
    {0x350, 1, 0, "miselect", ""},    {0x351, 1, 0, "mireg", ""},
    {0x354, 1, 0, "miph", ""},        {0x35c, 1, 0, "mtopei", ""},
    {0x3a0, 16, 0, "pmpcfg", ""},     {0x3b0, 64, 0, "pmpaddr", ""},
    {0x5a8, 1, 0, "scontext", ""},    {0x600, 1, 0, "hstatus", ""},
    {0x602, 1, 0, "hedeleg", ""},     {0x603, 1, 0, "hideleg", ""},
    {0x604, 1, 0, "hie", ""},         {0x605, 1, 0, "htimedelta", ""},
    {0x606, 1, 0, "hcounteren", ""},  {0x607, 1, 0, "hgeie", ""},
    {0x608, 1, 0, "hvien", ""},       {0x609, 1, 0, "hvictl", ""},
    {0x60a, 1, 0, "henvcfg", ""},     {0x60c, 4, 0, "hstateen", ""},
    {0x613, 1, 0, "hidelegh", ""},    {0x615, 1, 0, "htimedeltah", ""},
    {0x618, 1, 0, "hvienh", ""},      {0x61a, 1, 0, "henvcfgh", ""},
    {0x61c, 4, 0, "hstateen", "h"},   {0x643, 1, 0, "htval", ""},
    {0x644, 1, 0, "hip", ""},         {0x645, 1, 0, "hvip", ""},
    {0x646, 2, 1, "hviprio", ""},     {0x64a, 1, 0, "htinst", ""},
    {0x655, 1, 0, "hviph", ""},       {0x656, 2, 1, "hviprio", "h"},
    {0x680, 1, 0, "hgatp", ""},       {0x6a8, 1, 0, "hcontext", ""},
    {0x723, 29, 3, "mhpmevent", "h"}, {0x747, 1, 0, "mseccfg", ""},
    {0x757, 1, 0, "mseccfgh", ""},    {0x7a0, 1, 0, "tselect", ""},
    {0x7a1, 3, 1, "tdata", ""},       {0x7a4, 1, 0, "tinfo", ""},
    {0x7a5, 1, 0, "tcontrol", ""},    {0x7a8, 1, 0, "mcontext", ""},
    {0x7aa, 1, 0, "mscontext", ""},   {0x7b0, 1, 0, "dcsr", ""},
    {0x7b1, 1, 0, "dpc", ""},         {0x7b2, 2, 0, "dscratch", ""},
    {0xb00, 1, 0, "mcycle", ""},      {0xb02, 1, 0, "minstret", ""},
    {0xb03, 29, 3, "mhpmcounter", ""}, {0xb80, 1, 0, "mcycleh", ""},
    {0xb82, 1, 0, "minstreth", ""},   {0xb83, 29, 3, "mhpmcounter", "h"},
    {0xc00, 1, 0, "cycle", ""},       {0xc01, 1, 0, "time", ""},
    {0xc02, 1, 0, "instret", ""},     {0xc03, 29, 3, "hpmcounter", ""},
    {0xc20, 1, 0, "vl", ""},          {0xc21, 1, 0, "vtype", ""},
    {0xc22, 1, 0, "vlenb", ""},       {0xc80, 1, 0, "cycleh", ""},
    {0xc81, 1, 0, "timeh", ""},       {0xc82, 1, 0, "instreth", ""},
    {0xc83, 29, 3, "hpmcounter", "h"}, {0xda0, 1, 0, "scountovf", ""},
    {0xdb0, 1, 0, "stopi", ""},       {0xe12, 1, 0, "hgeip", ""},
    {0xeb0, 1, 0, "vstopi", ""},      {0xf11, 1, 0, "mvendorid", ""},
    {0xf12, 1, 0, "marchid", ""},     {0xf13, 1, 0, "mimpid", ""},
    {0xf14, 1, 0, "mhartid", ""},     {0xf15, 1, 0, "mconfigptr", ""},
    {0xfb0, 1, 0, "mtopi", ""},
};

/* ---- bounded output ---------------------------------------------------- */

struct out {
    char *buf;
    size_t size;
    size_t len; /* length the full text needs (may exceed size) */
};

/* printf's text, appended (textout.h: without printf for these formats). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rvt_isa_vappend(o->buf, o->size, &o->len, fmt, ap);
    va_end(ap);
}

static void put_csr(struct out *o, unsigned csr)
{
    for (size_t i = 0; i < sizeof csr_rows / sizeof csr_rows[0]; i++) {
        const struct csr_row *r = &csr_rows[i];
        if (csr < r->num || csr >= (unsigned)r->num + r->count)
            continue;
        if (r->count == 1)
            put(o, "%s", r->prefix);
        else
            put(o, "%s%u%s", r->prefix, r->first + (csr - r->num), r->suffix);
        return;
    }
    put(o, "0x%x", csr);
}

static void put_raw(struct out *o, const struct rvt_insn *in)
{
    switch (in->len) {
    case 2:
        if (in->bits == 0)
            put(o, "unimp"); /* objdump's name for the all-zero parcel */
        else
            put(o, ".2byte 0x%" PRIx32, in->bits & 0xffff);
        break;
    case 4: put(o, ".4byte 0x%" PRIx32, in->bits); break;
    case 6:
    case 8: put(o, ".%ubyte 0x%08" PRIx32 " (low 32 bits)", (unsigned)in->len, in->bits); break;
    default: put(o, ".2byte 0x%" PRIx32, in->bits & 0xffff); break;
    }
}

/* ---- operand shapes ---------------------------------------------------- */

static void put_target(struct out *o, const char *mn, const struct rvt_insn *in)
{
    put(o, "%s %" PRIx64, mn, in->target);
}

static void put_rrr(struct out *o, const char *mn, const char *const *rd_file, unsigned rd,
                    const char *const *rs_file, unsigned rs1, unsigned rs2)
{
    put(o, "%s %s,%s,%s", mn, rd_file[rd], rs_file[rs1], rs_file[rs2]);
}

static void put_rri(struct out *o, const char *mn, unsigned rd, unsigned rs1, int64_t imm)
{
    put(o, "%s %s,%s,%" PRId64, mn, xreg[rd], xreg[rs1], imm);
}

static void put_shift(struct out *o, const char *mn, unsigned rd, unsigned rs1, int64_t shamt)
{
    put(o, "%s %s,%s,0x%" PRIx64, mn, xreg[rd], xreg[rs1], (uint64_t)shamt);
}

static void put_mem(struct out *o, const char *mn, const char *reg, int64_t off, unsigned base)
{
    put(o, "%s %s,%" PRId64 "(%s)", mn, reg, off, xreg[base]);
}

/* ",rm" unless the dynamic rounding mode is selected. */
static void put_rm(struct out *o, uint32_t bits)
{
    unsigned rm = (bits >> 12) & 7;
    if (rm != 7)
        put(o, ",%s", rm_names[rm]);
}

/* lui/c.lui print the 20-bit field, not the shifted value. */
static unsigned upper20(int64_t imm)
{
    return (unsigned)(((uint64_t)imm >> 12) & 0xfffff);
}

/* ---- per-group printers ------------------------------------------------ */

static void dis_jalr(struct out *o, const struct rvt_insn *in)
{
    const unsigned rd = in->rd, rs1 = in->rs1;
    const int64_t imm = in->imm;
    if (rd == 0 && rs1 == 1 && imm == 0)
        put(o, "ret");
    else if (rd == 0 || rd == 1) {
        const char *mn = rd == 0 ? "jr" : "jalr";
        if (imm == 0)
            put(o, "%s %s", mn, xreg[rs1]);
        else
            put(o, "%s %" PRId64 "(%s)", mn, imm, xreg[rs1]);
    } else if (imm == 0)
        put(o, "jalr %s,%s", xreg[rd], xreg[rs1]);
    else
        put(o, "jalr %s,%" PRId64 "(%s)", xreg[rd], imm, xreg[rs1]);
}

static void dis_branch(struct out *o, const struct rvt_insn *in)
{
    const unsigned rs1 = in->rs1, rs2 = in->rs2;
    const char *zname = NULL; /* single-register alias */
    unsigned zreg = 0;
    switch (in->op) {
    case RVT_OP_BEQ:
        if (rs2 == 0)
            zname = "beqz", zreg = rs1;
        break;
    case RVT_OP_BNE:
        if (rs2 == 0)
            zname = "bnez", zreg = rs1;
        break;
    case RVT_OP_BLT:
        if (rs2 == 0)
            zname = "bltz", zreg = rs1;
        else if (rs1 == 0)
            zname = "bgtz", zreg = rs2;
        break;
    case RVT_OP_BGE:
        if (rs1 == 0)
            zname = "blez", zreg = rs2;
        else if (rs2 == 0)
            zname = "bgez", zreg = rs1;
        break;
    default: break;
    }
    if (zname)
        put(o, "%s %s,%" PRIx64, zname, xreg[zreg], in->target);
    else
        put(o, "%s %s,%s,%" PRIx64, op_names[in->op], xreg[rs1], xreg[rs2], in->target);
}

static void dis_csr(struct out *o, const struct rvt_insn *in, unsigned xlen)
{
    const unsigned rd = in->rd, src = in->rs1, csr = (unsigned)in->imm;
    const bool imm_form = in->op >= RVT_OP_CSRRWI;
    static const char *const fp_write[4] = {NULL, "fsflags", "fsrm", "fscsr"};
    static const char *const fp_read[4] = {NULL, "frflags", "frrm", "frcsr"};
    static const char *const counters[3] = {"rdcycle", "rdtime", "rdinstret"};
    static const char *const counters_h[3] = {"rdcycleh", "rdtimeh", "rdinstreth"};
    static const char *const short_names[6] = {"csrw", "csrs", "csrc", "csrwi", "csrsi", "csrci"};

    switch (in->op) {
    case RVT_OP_CSRRW:
        if (in->bits == 0xc0001073) { /* csrw cycle,zero */
            put(o, "unimp");
            return;
        }
        if (csr >= 1 && csr <= 3) {
            if (rd == 0)
                put(o, "%s %s", fp_write[csr], xreg[src]);
            else
                put(o, "%s %s,%s", fp_write[csr], xreg[rd], xreg[src]);
            return;
        }
        break;
    case RVT_OP_CSRRS:
        if (src != 0)
            break;
        if (csr >= 1 && csr <= 3) {
            put(o, "%s %s", fp_read[csr], xreg[rd]);
            return;
        }
        if (csr >= 0xc00 && csr <= 0xc02) {
            put(o, "%s %s", counters[csr - 0xc00], xreg[rd]);
            return;
        }
        if (xlen == 32 && csr >= 0xc80 && csr <= 0xc82) {
            put(o, "%s %s", counters_h[csr - 0xc80], xreg[rd]);
            return;
        }
        put(o, "csrr %s,", xreg[rd]);
        put_csr(o, csr);
        return;
    case RVT_OP_CSRRWI:
        if (csr == 1 || csr == 2) {
            put(o, "%s %s,%u", csr == 1 ? "fsflagsi" : "fsrmi", xreg[rd], src);
            return;
        }
        break;
    default: break;
    }
    const unsigned k = in->op - RVT_OP_CSRRW;
    if (rd == 0) {
        put(o, "%s ", short_names[k]);
        put_csr(o, csr);
    } else {
        put(o, "%s %s,", op_names[in->op], xreg[rd]);
        put_csr(o, csr);
    }
    if (imm_form)
        put(o, ",%u", src);
    else
        put(o, ",%s", xreg[src]);
}

static void dis_amo(struct out *o, const struct rvt_insn *in)
{
    static const char *const order[4] = {"", ".rl", ".aq", ".aqrl"};
    const char *sfx = order[(in->bits >> 25) & 3];
    if (in->op == RVT_OP_LR_W || in->op == RVT_OP_LR_D)
        put(o, "%s%s %s,(%s)", op_names[in->op], sfx, xreg[in->rd], xreg[in->rs1]);
    else
        put(o, "%s%s %s,%s,(%s)", op_names[in->op], sfx, xreg[in->rd], xreg[in->rs2], xreg[in->rs1]);
}

static void dis_fence(struct out *o, const struct rvt_insn *in)
{
    const uint32_t b = in->bits;
    const unsigned pred = (b >> 24) & 15, succ = (b >> 20) & 15, fm = b >> 28;
    /* objdump names fences only with rd, rs1 (and fm, imm for fence.i) zero. */
    if (in->rd != 0 || in->rs1 != 0) {
        put_raw(o, in);
        return;
    }
    switch (in->op) {
    case RVT_OP_FENCE_TSO: put(o, "fence.tso"); return;
    case RVT_OP_FENCE_I:
        if (in->imm != 0)
            put_raw(o, in);
        else
            put(o, "fence.i");
        return;
    default:
        if (fm != 0)
            put_raw(o, in);
        else if (pred == 15 && succ == 15)
            put(o, "fence");
        else
            put(o, "fence %s,%s", fence_sets[pred], fence_sets[succ]);
        return;
    }
}

static void dis_fp(struct out *o, const struct rvt_insn *in)
{
    const uint32_t b = in->bits;
    const unsigned rd = in->rd, rs1 = in->rs1, rs2 = in->rs2, rm = (b >> 12) & 7;
    const char *mn = op_names[in->op];
    switch (in->op) {
    case RVT_OP_FLW:
    case RVT_OP_FLD: put_mem(o, mn, freg[rd], in->imm, rs1); return;
    case RVT_OP_FSW:
    case RVT_OP_FSD: put_mem(o, mn, freg[rs2], in->imm, rs1); return;
    case RVT_OP_FMADD_S: case RVT_OP_FMADD_D: case RVT_OP_FMSUB_S: case RVT_OP_FMSUB_D:
    case RVT_OP_FNMSUB_S: case RVT_OP_FNMSUB_D: case RVT_OP_FNMADD_S: case RVT_OP_FNMADD_D:
        put(o, "%s %s,%s,%s,%s", mn, freg[rd], freg[rs1], freg[rs2], freg[b >> 27]);
        put_rm(o, b);
        return;
    case RVT_OP_FADD_S: case RVT_OP_FADD_D: case RVT_OP_FSUB_S: case RVT_OP_FSUB_D:
    case RVT_OP_FMUL_S: case RVT_OP_FMUL_D: case RVT_OP_FDIV_S: case RVT_OP_FDIV_D:
        put_rrr(o, mn, freg, rd, freg, rs1, rs2);
        put_rm(o, b);
        return;
    case RVT_OP_FSQRT_S: case RVT_OP_FSQRT_D: case RVT_OP_FCVT_S_D:
        put(o, "%s %s,%s", mn, freg[rd], freg[rs1]);
        put_rm(o, b);
        return;
    case RVT_OP_FCVT_D_S:
        /* Exact conversion: objdump knows only the rm=0 encoding. */
        if (rm != 0)
            put_raw(o, in);
        else
            put(o, "%s %s,%s", mn, freg[rd], freg[rs1]);
        return;
    case RVT_OP_FSGNJ_S: case RVT_OP_FSGNJ_D: case RVT_OP_FSGNJN_S: case RVT_OP_FSGNJN_D:
    case RVT_OP_FSGNJX_S: case RVT_OP_FSGNJX_D:
        if (rs1 == rs2) {
            static const char *const alias[3][2] = {
                {"fmv.s", "fmv.d"}, {"fneg.s", "fneg.d"}, {"fabs.s", "fabs.d"}};
            const unsigned k = (in->op - RVT_OP_FSGNJ_S) / 2, d = (in->op - RVT_OP_FSGNJ_S) & 1;
            put(o, "%s %s,%s", alias[k][d], freg[rd], freg[rs1]);
        } else {
            put_rrr(o, mn, freg, rd, freg, rs1, rs2);
        }
        return;
    case RVT_OP_FMIN_S: case RVT_OP_FMIN_D: case RVT_OP_FMAX_S: case RVT_OP_FMAX_D:
        put_rrr(o, mn, freg, rd, freg, rs1, rs2);
        return;
    case RVT_OP_FEQ_S: case RVT_OP_FEQ_D: case RVT_OP_FLT_S: case RVT_OP_FLT_D:
    case RVT_OP_FLE_S: case RVT_OP_FLE_D:
        put_rrr(o, mn, xreg, rd, freg, rs1, rs2);
        return;
    case RVT_OP_FCLASS_S: case RVT_OP_FCLASS_D: case RVT_OP_FMV_X_W: case RVT_OP_FMV_X_D:
        put(o, "%s %s,%s", mn, xreg[rd], freg[rs1]);
        return;
    case RVT_OP_FMV_W_X: case RVT_OP_FMV_D_X:
        put(o, "%s %s,%s", mn, freg[rd], xreg[rs1]);
        return;
    case RVT_OP_FCVT_W_S: case RVT_OP_FCVT_W_D: case RVT_OP_FCVT_WU_S: case RVT_OP_FCVT_WU_D:
    case RVT_OP_FCVT_L_S: case RVT_OP_FCVT_L_D: case RVT_OP_FCVT_LU_S: case RVT_OP_FCVT_LU_D:
        put(o, "%s %s,%s", mn, xreg[rd], freg[rs1]);
        put_rm(o, b);
        return;
    case RVT_OP_FCVT_D_W: case RVT_OP_FCVT_D_WU:
        if (rm != 0) { /* exact conversion: objdump knows only rm=0 */
            put_raw(o, in);
            return;
        }
        put(o, "%s %s,%s", mn, freg[rd], xreg[rs1]);
        return;
    case RVT_OP_FCVT_S_W: case RVT_OP_FCVT_S_WU: case RVT_OP_FCVT_S_L: case RVT_OP_FCVT_S_LU:
    case RVT_OP_FCVT_D_L: case RVT_OP_FCVT_D_LU:
        put(o, "%s %s,%s", mn, freg[rd], xreg[rs1]);
        put_rm(o, b);
        return;
    default: put_raw(o, in); return;
    }
}

static void dis_compressed(struct out *o, const struct rvt_insn *in)
{
    const unsigned rd = in->rd, rs1 = in->rs1, rs2 = in->rs2;
    const int64_t imm = in->imm;
    switch (in->op) {
    case RVT_OP_C_ADDI4SPN: put_rri(o, "addi", rd, 2, imm); return;
    case RVT_OP_C_FLD: case RVT_OP_C_FLDSP: put_mem(o, "fld", freg[rd], imm, rs1); return;
    case RVT_OP_C_FLW: case RVT_OP_C_FLWSP: put_mem(o, "flw", freg[rd], imm, rs1); return;
    case RVT_OP_C_LW: case RVT_OP_C_LWSP: put_mem(o, "lw", xreg[rd], imm, rs1); return;
    case RVT_OP_C_LD: case RVT_OP_C_LDSP: put_mem(o, "ld", xreg[rd], imm, rs1); return;
    case RVT_OP_C_FSD: case RVT_OP_C_FSDSP: put_mem(o, "fsd", freg[rs2], imm, rs1); return;
    case RVT_OP_C_FSW: case RVT_OP_C_FSWSP: put_mem(o, "fsw", freg[rs2], imm, rs1); return;
    case RVT_OP_C_SW: case RVT_OP_C_SWSP: put_mem(o, "sw", xreg[rs2], imm, rs1); return;
    case RVT_OP_C_SD: case RVT_OP_C_SDSP: put_mem(o, "sd", xreg[rs2], imm, rs1); return;
    case RVT_OP_C_NOP:
        if (imm == 0)
            put(o, "nop");
        else
            put(o, "c.nop %" PRId64, imm);
        return;
    case RVT_OP_C_ADDI: put_rri(o, "addi", rd, rd, imm); return;
    case RVT_OP_C_JAL: put_target(o, "jal", in); return;
    case RVT_OP_C_ADDIW:
        if (imm == 0)
            put(o, "sext.w %s,%s", xreg[rd], xreg[rd]);
        else
            put_rri(o, "addiw", rd, rd, imm);
        return;
    case RVT_OP_C_LI: put(o, "%s %s,%" PRId64, rd ? "li" : "c.li", xreg[rd], imm); return;
    case RVT_OP_C_ADDI16SP: put_rri(o, "addi", 2, 2, imm); return;
    case RVT_OP_C_LUI: put(o, "%s %s,0x%x", rd ? "lui" : "c.lui", xreg[rd], upper20(imm)); return;
    case RVT_OP_C_SRLI:
    case RVT_OP_C_SRAI:
        if (imm == 0)
            put(o, "%s %s", in->op == RVT_OP_C_SRLI ? "c.srli64" : "c.srai64", xreg[rd]);
        else
            put_shift(o, in->op == RVT_OP_C_SRLI ? "srli" : "srai", rd, rd, imm);
        return;
    case RVT_OP_C_ANDI: put_rri(o, "andi", rd, rd, imm); return;
    case RVT_OP_C_SUB: put_rrr(o, "sub", xreg, rd, xreg, rd, rs2); return;
    case RVT_OP_C_XOR: put_rrr(o, "xor", xreg, rd, xreg, rd, rs2); return;
    case RVT_OP_C_OR: put_rrr(o, "or", xreg, rd, xreg, rd, rs2); return;
    case RVT_OP_C_AND: put_rrr(o, "and", xreg, rd, xreg, rd, rs2); return;
    case RVT_OP_C_SUBW: put_rrr(o, "subw", xreg, rd, xreg, rd, rs2); return;
    case RVT_OP_C_ADDW: put_rrr(o, "addw", xreg, rd, xreg, rd, rs2); return;
    case RVT_OP_C_J: put_target(o, "j", in); return;
    case RVT_OP_C_BEQZ: put(o, "beqz %s,%" PRIx64, xreg[rs1], in->target); return;
    case RVT_OP_C_BNEZ: put(o, "bnez %s,%" PRIx64, xreg[rs1], in->target); return;
    case RVT_OP_C_SLLI:
        if (imm == 0)
            put(o, "c.slli64 %s", xreg[rd]);
        else if (rd == 0)
            put(o, "c.slli zero,0x%" PRIx64, (uint64_t)imm);
        else
            put_shift(o, "slli", rd, rd, imm);
        return;
    case RVT_OP_C_JR:
        if (rs1 == 1)
            put(o, "ret");
        else
            put(o, "jr %s", xreg[rs1]);
        return;
    case RVT_OP_C_MV: put(o, "%s %s,%s", rd ? "mv" : "c.mv", xreg[rd], xreg[rs2]); return;
    case RVT_OP_C_EBREAK: put(o, "ebreak"); return;
    case RVT_OP_C_JALR: put(o, "jalr %s", xreg[rs1]); return;
    case RVT_OP_C_ADD:
        if (rd == 0)
            put(o, "c.add zero,%s", xreg[rs2]);
        else
            put_rrr(o, "add", xreg, rd, xreg, rd, rs2);
        return;
    default: put_raw(o, in); return;
    }
}

static void dis_32(struct out *o, const struct rvt_insn *in, unsigned xlen)
{
    const unsigned op = in->op, rd = in->rd, rs1 = in->rs1, rs2 = in->rs2;
    const int64_t imm = in->imm;
    const char *mn = op_names[op];

    switch (op) {
    case RVT_OP_LUI:
    case RVT_OP_AUIPC: put(o, "%s %s,0x%x", mn, xreg[rd], upper20(imm)); return;
    case RVT_OP_JAL:
        if (rd == 0)
            put_target(o, "j", in);
        else if (rd == 1)
            put_target(o, "jal", in);
        else
            put(o, "jal %s,%" PRIx64, xreg[rd], in->target);
        return;
    case RVT_OP_JALR: dis_jalr(o, in); return;
    case RVT_OP_BEQ: case RVT_OP_BNE: case RVT_OP_BLT: case RVT_OP_BGE: case RVT_OP_BLTU:
    case RVT_OP_BGEU:
        dis_branch(o, in);
        return;
    case RVT_OP_LB: case RVT_OP_LH: case RVT_OP_LW: case RVT_OP_LD: case RVT_OP_LBU:
    case RVT_OP_LHU: case RVT_OP_LWU:
        put_mem(o, mn, xreg[rd], imm, rs1);
        return;
    case RVT_OP_SB: case RVT_OP_SH: case RVT_OP_SW: case RVT_OP_SD:
        put_mem(o, mn, xreg[rs2], imm, rs1);
        return;
    case RVT_OP_ADDI:
        if (rd == 0 && rs1 == 0 && imm == 0)
            put(o, "nop");
        else if (rs1 == 0)
            put(o, "li %s,%" PRId64, xreg[rd], imm);
        else if (imm == 0)
            put(o, "mv %s,%s", xreg[rd], xreg[rs1]);
        else
            put_rri(o, mn, rd, rs1, imm);
        return;
    case RVT_OP_SLTIU:
        if (imm == 1)
            put(o, "seqz %s,%s", xreg[rd], xreg[rs1]);
        else
            put_rri(o, mn, rd, rs1, imm);
        return;
    case RVT_OP_XORI:
        if (imm == -1)
            put(o, "not %s,%s", xreg[rd], xreg[rs1]);
        else
            put_rri(o, mn, rd, rs1, imm);
        return;
    case RVT_OP_ANDI:
        if (imm == 255)
            put(o, "zext.b %s,%s", xreg[rd], xreg[rs1]);
        else
            put_rri(o, mn, rd, rs1, imm);
        return;
    case RVT_OP_SLTI: case RVT_OP_ORI: put_rri(o, mn, rd, rs1, imm); return;
    case RVT_OP_ADDIW:
        if (imm == 0)
            put(o, "sext.w %s,%s", xreg[rd], xreg[rs1]);
        else
            put_rri(o, mn, rd, rs1, imm);
        return;
    case RVT_OP_SLLI: case RVT_OP_SRLI: case RVT_OP_SRAI: case RVT_OP_SLLIW: case RVT_OP_SRLIW:
    case RVT_OP_SRAIW:
        put_shift(o, mn, rd, rs1, imm);
        return;
    case RVT_OP_SUB:
    case RVT_OP_SUBW:
        if (rs1 == 0)
            put(o, "%s %s,%s", op == RVT_OP_SUB ? "neg" : "negw", xreg[rd], xreg[rs2]);
        else
            put_rrr(o, mn, xreg, rd, xreg, rs1, rs2);
        return;
    case RVT_OP_SLT:
        if (rs2 == 0)
            put(o, "sltz %s,%s", xreg[rd], xreg[rs1]);
        else if (rs1 == 0)
            put(o, "sgtz %s,%s", xreg[rd], xreg[rs2]);
        else
            put_rrr(o, mn, xreg, rd, xreg, rs1, rs2);
        return;
    case RVT_OP_SLTU:
        if (rs1 == 0)
            put(o, "snez %s,%s", xreg[rd], xreg[rs2]);
        else
            put_rrr(o, mn, xreg, rd, xreg, rs1, rs2);
        return;
    case RVT_OP_ADD: case RVT_OP_SLL: case RVT_OP_XOR: case RVT_OP_SRL: case RVT_OP_SRA:
    case RVT_OP_OR: case RVT_OP_AND: case RVT_OP_ADDW: case RVT_OP_SLLW: case RVT_OP_SRLW:
    case RVT_OP_SRAW: case RVT_OP_MUL: case RVT_OP_MULH: case RVT_OP_MULHSU: case RVT_OP_MULHU:
    case RVT_OP_DIV: case RVT_OP_DIVU: case RVT_OP_REM: case RVT_OP_REMU: case RVT_OP_MULW:
    case RVT_OP_DIVW: case RVT_OP_DIVUW: case RVT_OP_REMW: case RVT_OP_REMUW:
        put_rrr(o, mn, xreg, rd, xreg, rs1, rs2);
        return;
    case RVT_OP_FENCE: case RVT_OP_FENCE_TSO: case RVT_OP_FENCE_I: dis_fence(o, in); return;
    case RVT_OP_ECALL: case RVT_OP_EBREAK: case RVT_OP_URET: case RVT_OP_SRET: case RVT_OP_MRET:
    case RVT_OP_MNRET: case RVT_OP_DRET: case RVT_OP_WFI:
        put(o, "%s", mn);
        return;
    case RVT_OP_SFENCE_VMA: case RVT_OP_HFENCE_VVMA: case RVT_OP_HFENCE_GVMA:
        if (rs1 == 0 && rs2 == 0)
            put(o, "%s", mn);
        else if (rs2 == 0)
            put(o, "%s %s", mn, xreg[rs1]);
        else
            put(o, "%s %s,%s", mn, xreg[rs1], xreg[rs2]);
        return;
    case RVT_OP_CSRRW: case RVT_OP_CSRRS: case RVT_OP_CSRRC: case RVT_OP_CSRRWI:
    case RVT_OP_CSRRSI: case RVT_OP_CSRRCI:
        dis_csr(o, in, xlen);
        return;
    default:
        if (op >= RVT_OP_LR_W && op <= RVT_OP_AMOMAXU_D)
            dis_amo(o, in);
        else if (op >= RVT_OP_FLW && op <= RVT_OP_FMV_D_X)
            dis_fp(o, in);
        else
            put_raw(o, in);
        return;
    }
}

int rvt_isa_disasm(const struct rvt_insn *in, unsigned xlen, char *buf, size_t size)
{
    struct out o = {buf, size, 0};
    if (buf && size)
        buf[0] = '\0';
    if (!in)
        return 0;
    if (in->op == RVT_OP_UNKNOWN || in->op >= RVT_OP__COUNT || (in->len != 2 && in->len != 4))
        put_raw(&o, in);
    else if (in->len == 2)
        dis_compressed(&o, in);
    else
        dis_32(&o, in, xlen);
    return (int)o.len;
}

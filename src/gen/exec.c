/* Generator: the instruction-set simulator that produces executions.
 *
 * It runs the generated code for real: integer registers, memory (RAM, code
 * and tables), the CSRs the programs use, M/S/U privilege with trap
 * delegation, trap entry and xRET per the privileged architecture.  The
 * only outside choices (from the run's random stream) are the outcome of
 * branches the generator marked as data dependent, the entropy CSR, stall
 * cycles and when interrupt requests arrive.  Anything the code does that a
 * correct generated program never does (jumping outside the code, touching
 * memory outside RAM, a stack guard) is reported as an error naming the
 * address: it would be a generator bug. */
#include "gen/gen_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* mstatus bits */
#define MS_SIE (1ull << 1)
#define MS_MIE (1ull << 3)
#define MS_SPIE (1ull << 5)
#define MS_MPIE (1ull << 7)
#define MS_SPP (1ull << 8)
#define MS_MPP_SHIFT 11
#define MS_MPP (3ull << MS_MPP_SHIFT)
#define MS_FS (3ull << 13)

enum { EXC_NONE = -1 };

struct xstate {
    const struct rvt_gen_program *p;
    const struct rvt_gen_config *cfg;
    struct rvt_diag *diag;
    struct grng rng;
    unsigned xlen;
    uint64_t mask;
    bool smode;          /* S and U modes exist */
    uint32_t feat;
    uint64_t x[32];
    uint64_t f[32];      /* FP registers (FLEN 64; singles NaN-boxed) */
    uint64_t pc;
    unsigned priv;
    uint64_t mstatus, mie, mip, mtvec, stvec, mepc, sepc, mcause, scause, mtval, stval;
    uint64_t mscratch, sscratch, medeleg, mideleg, mcounteren, scounteren, scontext, mcontext, satp;
    uint64_t cycle, instret;
    uint8_t *ram;
    uint64_t resv_addr;
    bool resv_valid;
    uint32_t *pat;       /* per annotation: position in its pattern */
    uint64_t irq_countdown;
    /* the instruction being executed: memory access and rd write for data trace */
    struct rvt_ing_extra extra;
};

static int64_t sx(const struct xstate *s, uint64_t v)
{
    return s->xlen == 32 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}
static uint64_t sext32(uint64_t v)
{
    return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
}

static void wr(struct xstate *s, unsigned rd, uint64_t v)
{
    if (rd == 0)
        return;
    v &= s->mask;
    s->x[rd] = v;
    if (s->feat & RVT_GEN_DATA) {
        s->extra.flags |= RVT_ING_HAS_RD;
        s->extra.rd = (uint8_t)rd;
        s->extra.rd_value = v;
    }
}

/* ---- memory ---------------------------------------------------------------- */

enum mres { M_OK, M_FAULT, M_MISALIGNED, M_BUG };

/* Where addr..addr+size-1 lives; *ptr points at its bytes. */
static enum mres mem_find(struct xstate *s, uint64_t addr, unsigned size, bool store, uint8_t **ptr)
{
    const struct rvt_gen_program *p = s->p;
    const struct gram *ram = &p->ram;
    if (addr & (size - 1))
        return M_MISALIGNED;
    uint64_t off = addr - ram->base;
    if (off < ram->size && off + size <= ram->size) {
        if (off >= ram->stack_base) {
            uint64_t so = off - ram->stack_base, period = ram->stack_size + ram->stack_guard;
            if (so % period < ram->stack_guard)
                return M_BUG; /* a stack guard: some stack overflowed */
        }
        *ptr = s->ram + off;
        return M_OK;
    }
    if (!store)
        for (unsigned i = 0; i < p->nseg; i++) {
            const struct rvt_gen_segment *g = &p->segs_out[i];
            uint64_t o = addr - g->addr;
            if (!(g->flags & RVT_GEN_SEG_WRITE) && o < g->filesz && o + size <= g->filesz) {
                *ptr = (uint8_t *)(uintptr_t)(g->data + o);
                return M_OK;
            }
        }
    if (addr < 0x1000)
        return M_FAULT; /* the null page */
    return M_BUG;
}

static uint64_t rd_bytes(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static void wr_bytes(uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- CSRs ------------------------------------------------------------------ */

static uint64_t sstatus_mask(void)
{
    return MS_SIE | MS_SPIE | MS_SPP | MS_FS;
}

static uint64_t supported_irqs(const struct xstate *s)
{
    return s->smode ? 0xaaaull : 0x888ull;
}

static uint64_t status_read(const struct xstate *s)
{
    uint64_t v = s->mstatus;
    if (s->xlen == 64 && s->smode)
        v |= 2ull << 32 | 2ull << 34; /* UXL = SXL = 64-bit */
    if ((v & MS_FS) == MS_FS)
        v |= 1ull << (s->xlen - 1); /* SD: some state is dirty */
    return v;
}

/* Read (and optionally write) a CSR.  False: illegal instruction. */
static bool csr_rw(struct xstate *s, unsigned csr, bool write, uint64_t wval, uint64_t *old)
{
    unsigned level = (csr >> 8) & 3;
    if (level == 2 || level > s->priv)
        return false;
    if (level == 1 && !s->smode)
        return false;
    if (write && ((csr >> 10) & 3) == 3)
        return false;
    uint64_t v;
    switch (csr) {
    case CSR_CYCLE:
    case CSR_TIME:
    case CSR_INSTRET: {
        unsigned bit = csr - CSR_CYCLE;
        if (s->priv < 3 && !((s->mcounteren >> bit) & 1))
            return false;
        if (s->priv == 0 && s->smode && !((s->scounteren >> bit) & 1))
            return false;
        v = csr == CSR_CYCLE ? s->cycle : csr == CSR_TIME ? s->cycle / 4 : s->instret;
        break;
    }
    case CSR_ENTROPY:
        v = grng_next(&s->rng);
        break;
    case CSR_MCYCLE:
        v = s->cycle;
        if (write)
            s->cycle = wval;
        break;
    case CSR_MINSTRET:
        v = s->instret;
        if (write)
            s->instret = wval;
        break;
    case CSR_MHARTID:
        v = 0;
        break;
    case CSR_MISA:
        v = (s->xlen == 64 ? 2ull << 62 : 1ull << 30) | 1u << ('I' - 'A') | 1u << ('M' - 'A') |
            1u << ('A' - 'A') | 1u << ('C' - 'A') | 1u << ('F' - 'A') | 1u << ('D' - 'A') | (s->smode ? (1u << ('S' - 'A') | 1u << ('U' - 'A')) : 0);
        break; /* writes ignored (WARL) */
    case CSR_MSTATUS:
        v = status_read(s);
        if (write) {
            uint64_t m = MS_MIE | MS_MPIE | MS_FS | (s->smode ? MS_SIE | MS_SPIE | MS_SPP | MS_MPP : 0);
            uint64_t nv = (s->mstatus & ~m) | (wval & m);
            if (s->smode && ((nv >> MS_MPP_SHIFT) & 3) == 2)
                nv = (nv & ~MS_MPP) | (s->mstatus & MS_MPP); /* reserved value: keep */
            s->mstatus = nv;
        }
        break;
    case CSR_SSTATUS:
        v = status_read(s) & (sstatus_mask() | (s->xlen == 64 ? 3ull << 32 : 0) | 1ull << (s->xlen - 1));
        if (write)
            s->mstatus = (s->mstatus & ~sstatus_mask()) | (wval & sstatus_mask());
        break;
    case CSR_MIE:
        v = s->mie;
        if (write)
            s->mie = wval & supported_irqs(s);
        break;
    case CSR_SIE:
        v = s->mie & s->mideleg;
        if (write)
            s->mie = (s->mie & ~s->mideleg) | (wval & s->mideleg);
        break;
    case CSR_MIP:
        v = s->mip;
        break;
    case CSR_SIP:
        v = s->mip & s->mideleg;
        break;
    case CSR_MTVEC:
        v = s->mtvec;
        if (write)
            s->mtvec = wval & ~2ull & s->mask;
        break;
    case CSR_STVEC:
        v = s->stvec;
        if (write)
            s->stvec = wval & ~2ull & s->mask;
        break;
    case CSR_MEPC:
        v = s->mepc;
        if (write)
            s->mepc = wval & ~1ull & s->mask;
        break;
    case CSR_SEPC:
        v = s->sepc;
        if (write)
            s->sepc = wval & ~1ull & s->mask;
        break;
    case CSR_MCAUSE:
        v = s->mcause;
        if (write)
            s->mcause = wval;
        break;
    case CSR_SCAUSE:
        v = s->scause;
        if (write)
            s->scause = wval;
        break;
    case CSR_MTVAL:
        v = s->mtval;
        if (write)
            s->mtval = wval;
        break;
    case CSR_STVAL:
        v = s->stval;
        if (write)
            s->stval = wval;
        break;
    case CSR_MSCRATCH:
        v = s->mscratch;
        if (write)
            s->mscratch = wval;
        break;
    case CSR_SSCRATCH:
        v = s->sscratch;
        if (write)
            s->sscratch = wval;
        break;
    case CSR_MEDELEG:
        if (!s->smode)
            return false;
        v = s->medeleg;
        if (write)
            s->medeleg = wval & 0xb3ffull; /* not ecall from M (11) */
        break;
    case CSR_MIDELEG:
        if (!s->smode)
            return false;
        v = s->mideleg;
        if (write)
            s->mideleg = wval & 0x222ull;
        break;
    case CSR_MCOUNTEREN:
        if (!s->smode)
            return false;
        v = s->mcounteren;
        if (write)
            s->mcounteren = wval & 7;
        break;
    case CSR_SCOUNTEREN:
        v = s->scounteren;
        if (write)
            s->scounteren = wval & 7;
        break;
    case CSR_SATP:
        v = s->satp;
        if (write && (wval >> (s->xlen == 64 ? 60 : 31)) == 0)
            s->satp = wval & s->mask; /* Bare only */
        break;
    case CSR_SCONTEXT:
        v = s->scontext;
        if (write)
            s->scontext = wval & 0xffffffffull;
        break;
    case CSR_MCONTEXT:
        v = s->mcontext;
        if (write)
            s->mcontext = wval & 0xffffffffull;
        break;
    default:
        return false;
    }
    *old = v & s->mask;
    return true;
}

static uint64_t context_of(const struct xstate *s)
{
    return s->smode ? s->scontext : s->mcontext;
}

/* ---- traps ----------------------------------------------------------------- */

static void trap_enter(struct xstate *s, bool irq, unsigned cause, uint64_t tval, uint64_t epc)
{
    uint64_t irqbit = 1ull << (s->xlen - 1);
    bool deleg = s->smode && s->priv <= 1 && (((irq ? s->mideleg : s->medeleg) >> cause) & 1);
    if (deleg) {
        s->scause = (irq ? irqbit : 0) | cause;
        s->sepc = epc;
        s->stval = tval;
        uint64_t st = s->mstatus & ~(MS_SPP | MS_SPIE | MS_SIE);
        if (s->priv == 1)
            st |= MS_SPP;
        if (s->mstatus & MS_SIE)
            st |= MS_SPIE;
        s->mstatus = st;
        s->priv = 1;
        s->pc = (s->stvec & ~3ull) + (irq && (s->stvec & 1) ? 4ull * cause : 0);
    } else {
        s->mcause = (irq ? irqbit : 0) | cause;
        s->mepc = epc;
        s->mtval = tval;
        uint64_t st = s->mstatus & ~(MS_MPP | MS_MPIE | MS_MIE);
        st |= (uint64_t)s->priv << MS_MPP_SHIFT;
        if (s->mstatus & MS_MIE)
            st |= MS_MPIE;
        s->mstatus = st;
        s->priv = 3;
        s->pc = (s->mtvec & ~3ull) + (irq && (s->mtvec & 1) ? 4ull * cause : 0);
    }
    s->pc &= s->mask;
    s->resv_valid = false;
    s->cycle += 4;
}

/* The interrupt to take now, or -1. */
static int pending_irq(const struct xstate *s)
{
    static const unsigned order[] = {11, 3, 7, 9, 1, 5};
    uint64_t pend = s->mip & s->mie;
    if (!pend)
        return -1;
    uint64_t deleg = s->smode ? s->mideleg : 0;
    bool m_en = s->priv < 3 || (s->mstatus & MS_MIE);
    bool s_en = s->priv < 1 || (s->priv == 1 && (s->mstatus & MS_SIE));
    for (unsigned i = 0; i < 6; i++) {
        unsigned c = order[i];
        if (!((pend >> c) & 1))
            continue;
        if ((deleg >> c) & 1) {
            if (s_en)
                return (int)c;
        } else if (m_en) {
            return (int)c;
        }
    }
    return -1;
}

static void next_countdown(struct xstate *s)
{
    s->irq_countdown = 1 + grng_below(&s->rng, 2ull * s->cfg->interrupt_interval);
}

/* ---- one instruction -------------------------------------------------------- */

struct xres {
    int exc;        /* exception cause or EXC_NONE */
    uint64_t tval;
    uint64_t npc;
    int bug;        /* 0, or a generator bug to report */
    uint64_t bug_addr;
};

static bool branch_outcome(struct xstate *s, const struct xinsn *x)
{
    const struct gann *a = &s->p->ann[x->ann - 1];
    if (a->kind == ANN_PATTERN) {
        uint32_t *pos = &s->pat[x->ann - 1];
        bool t = (a->pattern >> *pos) & 1;
        *pos = (*pos + 1) % a->period;
        return t;
    }
    return (uint32_t)grng_next(&s->rng) < a->prob;
}

static void mem_note(struct xstate *s, uint64_t addr, unsigned size, bool store, uint64_t value)
{
    if (!(s->feat & RVT_GEN_DATA))
        return;
    s->extra.flags |= RVT_ING_HAS_MEM | RVT_ING_HAS_MEMVAL | (store ? RVT_ING_MEM_STORE : 0);
    s->extra.mem_addr = addr;
    s->extra.mem_size = (uint8_t)size;
    s->extra.mem_value = value;
}

/* The data trace's view of the access just noted (ingress dtype, the
 * operand): atomics, failed store-conditionals and CSR accesses. */
static void dtype_note(struct xstate *s, unsigned dtype, uint64_t operand)
{
    if (!(s->feat & RVT_GEN_DATA))
        return;
    s->extra.flags |= RVT_ING_HAS_DTYPE;
    s->extra.dtype = (uint8_t)dtype;
    s->extra.mem_operand = operand;
}

/* A data access that touches no memory (CSR, failed store-conditional). */
static void nomem_note(struct xstate *s, unsigned dtype, uint64_t addr, unsigned size, uint64_t value,
                       uint64_t operand)
{
    if (!(s->feat & RVT_GEN_DATA))
        return;
    s->extra.flags |= RVT_ING_HAS_MEMVAL;
    s->extra.mem_addr = addr;
    s->extra.mem_size = (uint8_t)size;
    s->extra.mem_value = value;
    dtype_note(s, dtype, operand);
}

static uint64_t alu(struct xstate *s, unsigned op, uint64_t a, uint64_t b)
{
    unsigned sh = s->xlen == 64 ? 63 : 31;
    int64_t sa = sx(s, a), sb = sx(s, b);
    switch (op) {
    case OP_ADD:
    case OP_ADDI:
        return a + b;
    case OP_SUB:
        return a - b;
    case OP_SLL:
    case OP_SLLI:
        return a << (b & sh);
    case OP_SLT:
    case OP_SLTI:
        return sa < sb;
    case OP_SLTU:
    case OP_SLTIU:
        return (a & s->mask) < (b & s->mask);
    case OP_XOR:
    case OP_XORI:
        return a ^ b;
    case OP_SRL:
    case OP_SRLI:
        return (a & s->mask) >> (b & sh);
    case OP_SRA:
    case OP_SRAI:
        return (uint64_t)(sa >> (b & sh));
    case OP_OR:
    case OP_ORI:
        return a | b;
    case OP_AND:
    case OP_ANDI:
        return a & b;
    case OP_ADDW:
    case OP_ADDIW:
        return sext32(a + b);
    case OP_SUBW:
        return sext32(a - b);
    case OP_SLLW:
    case OP_SLLIW:
        return sext32((uint32_t)a << (b & 31));
    case OP_SRLW:
    case OP_SRLIW:
        return sext32((uint32_t)a >> (b & 31));
    case OP_SRAW:
    case OP_SRAIW:
        return (uint64_t)(int64_t)((int32_t)(uint32_t)a >> (b & 31));
    case OP_MUL:
        return a * b;
    case OP_MULH:
        if (s->xlen == 32)
            return (uint64_t)(((int64_t)sa * sb) >> 32);
        return (uint64_t)(((__int128)sa * sb) >> 64);
    case OP_MULHSU:
        if (s->xlen == 32)
            return (uint64_t)((sa * (int64_t)(b & 0xffffffffull)) >> 32);
        return (uint64_t)(((__int128)sa * (unsigned __int128)b) >> 64);
    case OP_MULHU:
        if (s->xlen == 32)
            return ((a & s->mask) * (b & s->mask)) >> 32;
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    case OP_DIV:
        if (sb == 0)
            return ~0ull;
        if (sb == -1 && sa == (s->xlen == 32 ? INT32_MIN : INT64_MIN))
            return (uint64_t)sa;
        return (uint64_t)(sa / sb);
    case OP_DIVU:
        if ((b & s->mask) == 0)
            return ~0ull;
        return (a & s->mask) / (b & s->mask);
    case OP_REM:
        if (sb == 0)
            return (uint64_t)sa;
        if (sb == -1)
            return 0;
        return (uint64_t)(sa % sb);
    case OP_REMU:
        if ((b & s->mask) == 0)
            return a;
        return (a & s->mask) % (b & s->mask);
    case OP_MULW:
        return sext32((uint32_t)a * (uint32_t)b);
    case OP_DIVW: {
        int32_t x = (int32_t)a, y = (int32_t)b;
        if (y == 0)
            return ~0ull;
        if (y == -1 && x == INT32_MIN)
            return sext32((uint32_t)x);
        return sext32((uint32_t)(x / y));
    }
    case OP_DIVUW: {
        uint32_t x = (uint32_t)a, y = (uint32_t)b;
        return y ? sext32(x / y) : ~0ull;
    }
    case OP_REMW: {
        int32_t x = (int32_t)a, y = (int32_t)b;
        if (y == 0)
            return sext32((uint32_t)x);
        if (y == -1)
            return 0;
        return sext32((uint32_t)(x % y));
    }
    case OP_REMUW: {
        uint32_t x = (uint32_t)a, y = (uint32_t)b;
        return sext32(y ? x % y : x);
    }
    default:
        return 0;
    }
}

/* ---- F and D ------------------------------------------------------------ */

static float getf(uint64_t v)
{
    uint32_t w = (v >> 32) == 0xffffffffu ? (uint32_t)v : 0x7fc00000u; /* unboxed: canonical NaN */
    float f;
    memcpy(&f, &w, 4);
    return f;
}
/* Arithmetic results that are NaN are the canonical NaN (RISC-V F/D);
 * this also keeps results independent of how the host orders operands. */
static uint64_t boxf(float f)
{
    uint32_t w = 0x7fc00000u;
    if (f == f)
        memcpy(&w, &f, 4);
    return 0xffffffff00000000ull | w;
}
static double getd(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}
static uint64_t boxd(double d)
{
    uint64_t v = 0x7ff8000000000000ull;
    if (d == d)
        memcpy(&v, &d, 8);
    return v;
}
/* fmin/fmax: a NaN operand yields the other; -0 < +0. */
static double fminmax(double a, double b, bool max)
{
    if (a != a)
        return b;
    if (b != b)
        return a;
    if (a == b && a == 0)
        return (signbit(a) != 0) == max ? b : a;
    return (a < b) != max ? a : b;
}
/* fcvt.w with round-towards-zero and RISC-V saturation (NaN -> max). */
static uint64_t to_w(double d)
{
    if (d != d || d >= 2147483648.0)
        return sext32(0x7fffffffu);
    if (d <= -2147483649.0)
        return sext32(0x80000000u);
    return sext32((uint32_t)(int32_t)d);
}

static void wrf(struct xstate *s, unsigned rd, uint64_t v)
{
    s->f[rd] = v;
    s->mstatus |= MS_FS; /* dirty */
    if (s->feat & RVT_GEN_DATA) {
        s->extra.flags |= RVT_ING_HAS_RD;
        s->extra.rd = (uint8_t)(32 + rd);
        s->extra.rd_value = v;
    }
}

static void exec_fp(struct xstate *s, const struct xinsn *x, struct xres *r)
{
    uint64_t a = s->f[x->rs1], b = s->f[x->rs2], ia = s->x[x->rs1];
    switch (x->op) {
    case OP_FADD_S: wrf(s, x->rd, boxf(getf(a) + getf(b))); break;
    case OP_FSUB_S: wrf(s, x->rd, boxf(getf(a) - getf(b))); break;
    case OP_FMUL_S: wrf(s, x->rd, boxf(getf(a) * getf(b))); break;
    case OP_FDIV_S: wrf(s, x->rd, boxf(getf(a) / getf(b))); break;
    case OP_FSGNJ_S: { /* bit operations: NaN payloads pass through */
        uint32_t ua = (a >> 32) == 0xffffffffu ? (uint32_t)a : 0x7fc00000u;
        uint32_t ub = (b >> 32) == 0xffffffffu ? (uint32_t)b : 0x7fc00000u;
        wrf(s, x->rd, 0xffffffff00000000ull | (ua & 0x7fffffffu) | (ub & 0x80000000u));
        break;
    }
    case OP_FMIN_S: wrf(s, x->rd, boxf((float)fminmax(getf(a), getf(b), false))); break;
    case OP_FMAX_S: wrf(s, x->rd, boxf((float)fminmax(getf(a), getf(b), true))); break;
    case OP_FADD_D: wrf(s, x->rd, boxd(getd(a) + getd(b))); break;
    case OP_FSUB_D: wrf(s, x->rd, boxd(getd(a) - getd(b))); break;
    case OP_FMUL_D: wrf(s, x->rd, boxd(getd(a) * getd(b))); break;
    case OP_FDIV_D: wrf(s, x->rd, boxd(getd(a) / getd(b))); break;
    case OP_FSGNJ_D: wrf(s, x->rd, (a & ~(1ull << 63)) | (b & (1ull << 63))); break;
    case OP_FMIN_D: wrf(s, x->rd, boxd(fminmax(getd(a), getd(b), false))); break;
    case OP_FMAX_D: wrf(s, x->rd, boxd(fminmax(getd(a), getd(b), true))); break;
    case OP_FMADD_S: wrf(s, x->rd, boxf(fmaf(getf(a), getf(b), getf(s->f[x->imm & 31])))); break;
    case OP_FMADD_D: wrf(s, x->rd, boxd(fma(getd(a), getd(b), getd(s->f[x->imm & 31])))); break;
    case OP_FEQ_S: wr(s, x->rd, getf(a) == getf(b)); break;
    case OP_FLT_S: wr(s, x->rd, getf(a) < getf(b)); break;
    case OP_FLE_S: wr(s, x->rd, getf(a) <= getf(b)); break;
    case OP_FEQ_D: wr(s, x->rd, getd(a) == getd(b)); break;
    case OP_FLT_D: wr(s, x->rd, getd(a) < getd(b)); break;
    case OP_FLE_D: wr(s, x->rd, getd(a) <= getd(b)); break;
    case OP_FCVT_W_S: wr(s, x->rd, to_w(getf(a))); break;
    case OP_FCVT_W_D: wr(s, x->rd, to_w(getd(a))); break;
    case OP_FCVT_S_W: wrf(s, x->rd, boxf((float)(int32_t)(uint32_t)ia)); break;
    case OP_FCVT_D_W: wrf(s, x->rd, boxd((double)(int32_t)(uint32_t)ia)); break;
    case OP_FCVT_D_S: wrf(s, x->rd, boxd((double)getf(a))); break;
    case OP_FCVT_S_D: wrf(s, x->rd, boxf((float)getd(a))); break;
    case OP_FMV_X_W: wr(s, x->rd, sext32((uint32_t)a)); break;
    case OP_FMV_W_X: wrf(s, x->rd, 0xffffffff00000000ull | (uint32_t)ia); break;
    case OP_FMV_X_D: wr(s, x->rd, a); break;
    case OP_FMV_D_X: wrf(s, x->rd, ia); break;
    default:
        r->bug = 1;
        r->bug_addr = s->pc;
        break;
    }
    s->mstatus |= MS_FS;
}

static void exec_insn(struct xstate *s, const struct xinsn *x, struct xres *r)
{
    uint64_t pc = s->pc, m = s->mask;
    uint64_t a = s->x[x->rs1], b = s->x[x->rs2];
    r->exc = EXC_NONE;
    r->bug = 0;
    r->npc = (pc + x->len) & m;
    unsigned op = x->op;
    const struct gop_info *gi = &gop_table[op];
    if ((gi->kind == GK_FP || gi->kind == GK_FLOAD || gi->kind == GK_FSTORE) && !(s->mstatus & MS_FS)) {
        r->exc = 2; /* the FP unit is off */
        r->tval = x->bits;
        return;
    }
    switch (gi->kind) {
    case GK_FP:
        exec_fp(s, x, r);
        return;
    case GK_ALU:
        if (op == OP_LUI)
            wr(s, x->rd, (uint64_t)x->imm);
        else if (op == OP_AUIPC)
            wr(s, x->rd, pc + (uint64_t)x->imm);
        else
            wr(s, x->rd, alu(s, op, a, gi->uses_imm ? (uint64_t)x->imm : b));
        return;
    case GK_BRANCH: {
        bool t;
        if (x->ann) {
            t = branch_outcome(s, x);
        } else {
            int64_t sa = sx(s, a), sb = sx(s, b);
            switch (op) {
            case OP_BEQ: t = a == b; break;
            case OP_BNE: t = a != b; break;
            case OP_BLT: t = sa < sb; break;
            case OP_BGE: t = sa >= sb; break;
            case OP_BLTU: t = a < b; break;
            default: t = a >= b; break;
            }
        }
        if (t)
            r->npc = (pc + (uint64_t)x->imm) & m;
        return;
    }
    case GK_JAL:
        wr(s, x->rd, pc + x->len);
        r->npc = (pc + (uint64_t)x->imm) & m;
        return;
    case GK_JALR: {
        uint64_t t = (a + (uint64_t)x->imm) & ~1ull & m;
        wr(s, x->rd, pc + x->len);
        r->npc = t;
        return;
    }
    case GK_LOAD:
    case GK_STORE:
    case GK_FLOAD:
    case GK_FSTORE: {
        uint64_t addr = (a + (uint64_t)x->imm) & m;
        unsigned size = gi->size;
        bool store = gi->kind == GK_STORE || gi->kind == GK_FSTORE;
        if (gi->kind == GK_FSTORE)
            b = s->f[x->rs2];
        uint8_t *ptr;
        enum mres mr = mem_find(s, addr, size, store, &ptr);
        if (mr == M_MISALIGNED || mr == M_FAULT) {
            r->exc = mr == M_MISALIGNED ? (store ? 6 : 4) : (store ? 15 : 13);
            r->tval = addr;
            return;
        }
        if (mr == M_BUG) {
            r->bug = 1;
            r->bug_addr = addr;
            return;
        }
        if (store) {
            wr_bytes(ptr, size, b);
            mem_note(s, addr, size, true, b & (size == 8 ? ~0ull : (1ull << (8 * size)) - 1));
            if (s->resv_valid && s->resv_addr == addr)
                s->resv_valid = false;
        } else if (gi->kind == GK_FLOAD) {
            uint64_t v = rd_bytes(ptr, size);
            mem_note(s, addr, size, false, v);
            wrf(s, x->rd, size == 4 ? 0xffffffff00000000ull | v : v);
        } else {
            uint64_t v = rd_bytes(ptr, size);
            mem_note(s, addr, size, false, v);
            switch (op) {
            case OP_LB: v = (uint64_t)(int64_t)(int8_t)v; break;
            case OP_LH: v = (uint64_t)(int64_t)(int16_t)v; break;
            case OP_LW: v = sext32(v); break;
            default: break;
            }
            wr(s, x->rd, v);
        }
        return;
    }
    case GK_AMO: {
        uint64_t addr = a & m;
        unsigned size = gi->size;
        bool lr = op == OP_LR_W || op == OP_LR_D, sc = op == OP_SC_W || op == OP_SC_D;
        uint8_t *ptr;
        enum mres mr = mem_find(s, addr, size, !lr, &ptr);
        if (mr == M_MISALIGNED || mr == M_FAULT) {
            r->exc = mr == M_MISALIGNED ? (lr ? 4 : 6) : (lr ? 13 : 15);
            r->tval = addr;
            return;
        }
        if (mr == M_BUG) {
            r->bug = 1;
            r->bug_addr = addr;
            return;
        }
        uint64_t old = rd_bytes(ptr, size);
        uint64_t oldx = size == 4 ? sext32(old) : old;
        if (lr) {
            s->resv_valid = true;
            s->resv_addr = addr;
            mem_note(s, addr, size, false, old);
            wr(s, x->rd, oldx);
            return;
        }
        if (sc) {
            bool ok = s->resv_valid && s->resv_addr == addr;
            s->resv_valid = false;
            if (ok) {
                wr_bytes(ptr, size, b);
                mem_note(s, addr, size, true, size == 4 ? (uint32_t)b : b);
            } else {
                nomem_note(s, RVT_DTYPE_SC_FAIL, addr, size, 0, size == 4 ? (uint32_t)b : b);
            }
            wr(s, x->rd, ok ? 0 : 1);
            return;
        }
        uint64_t nv;
        unsigned dt;
        switch (op) {
        case OP_AMOSWAP_W:
        case OP_AMOSWAP_D: nv = b; dt = RVT_DTYPE_AMO_SWAP; break;
        case OP_AMOADD_W:
        case OP_AMOADD_D: nv = old + b; dt = RVT_DTYPE_AMO_ADD; break;
        case OP_AMOXOR_W: nv = old ^ b; dt = RVT_DTYPE_AMO_XOR; break;
        case OP_AMOAND_W: nv = old & b; dt = RVT_DTYPE_AMO_AND; break;
        default: nv = old | b; dt = RVT_DTYPE_AMO_OR; break;
        }
        wr_bytes(ptr, size, nv);
        mem_note(s, addr, size, true, size == 4 ? (uint32_t)nv : nv);
        dtype_note(s, dt, size == 4 ? (uint32_t)b : b);
        wr(s, x->rd, oldx);
        return;
    }
    case GK_CSR: {
        bool imm_form = op >= OP_CSRRWI;
        uint64_t src = imm_form ? (uint64_t)x->imm : a;
        unsigned base = imm_form ? op - OP_CSRRWI : op - OP_CSRRW; /* 0 rw, 1 rs, 2 rc */
        bool write = base == 0 || (imm_form ? x->imm != 0 : x->rs1 != 0);
        uint64_t old;
        /* read first to compute the written value */
        if (!csr_rw(s, x->csr, false, 0, &old)) {
            r->exc = 2;
            r->tval = x->bits;
            return;
        }
        uint64_t nv = base == 0 ? src : base == 1 ? old | src : old & ~src;
        if (write && !csr_rw(s, x->csr, true, nv, &old)) {
            r->exc = 2;
            r->tval = x->bits;
            return;
        }
        /* the data trace's CSR access: the value written (read, when
         * nothing is written) and the operand */
        nomem_note(s, RVT_DTYPE_CSR_RW + base, x->csr, s->xlen / 8, (write ? nv : old) & s->mask, src & s->mask);
        wr(s, x->rd, old);
        return;
    }
    case GK_SYSTEM:
        switch (op) {
        case OP_ECALL:
            r->exc = s->priv == 3 ? 11 : s->priv == 1 ? 9 : 8;
            r->tval = 0;
            return;
        case OP_EBREAK:
            r->exc = 3;
            r->tval = pc;
            return;
        case OP_MRET: {
            if (s->priv != 3) {
                r->exc = 2;
                r->tval = x->bits;
                return;
            }
            unsigned np = (unsigned)((s->mstatus >> MS_MPP_SHIFT) & 3);
            uint64_t st = s->mstatus & ~(MS_MIE | MS_MPP);
            if (s->mstatus & MS_MPIE)
                st |= MS_MIE;
            st |= MS_MPIE;
            if (!s->smode)
                st |= MS_MPP; /* M only: MPP stays M */
            s->mstatus = st;
            s->priv = np;
            r->npc = s->mepc;
            return;
        }
        case OP_SRET: {
            if (!s->smode || s->priv == 0) {
                r->exc = 2;
                r->tval = x->bits;
                return;
            }
            unsigned np = (s->mstatus & MS_SPP) ? 1 : 0;
            uint64_t st = s->mstatus & ~(MS_SIE | MS_SPP);
            if (s->mstatus & MS_SPIE)
                st |= MS_SIE;
            st |= MS_SPIE;
            s->mstatus = st;
            s->priv = np;
            r->npc = s->sepc;
            return;
        }
        case OP_WFI:
            if (s->smode && s->priv == 0) {
                r->exc = 2;
                r->tval = x->bits;
                return;
            }
            if ((s->feat & RVT_GEN_INTERRUPTS) && s->irq_countdown > 3)
                s->irq_countdown = 1 + grng_below(&s->rng, 3);
            return;
        case OP_SFENCE_VMA:
            if (s->priv == 0) {
                r->exc = 2;
                r->tval = x->bits;
            }
            return;
        default: /* fences */
            return;
        }
    }
}

/* ---- the run ------------------------------------------------------------- */

int rvt_gen_run_pcs(const struct rvt_gen_program *p, const struct rvt_gen_config *cfg, rvt_gen_step_fn fn,
                    void *ctx, struct rvt_diag *diag)
{
    if (!p || !cfg || !fn || cfg->size < offsetof(struct rvt_gen_config, functions))
        return rvt_fail(diag, RVT_ERR_INVAL, "generator run: missing program, configuration or callback");
    struct xstate s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.cfg = &p->cfg;
    s.diag = diag;
    s.xlen = p->xlen;
    s.mask = p->xlen == 64 ? ~0ull : 0xffffffffull;
    s.feat = p->features;
    s.smode = (p->features & RVT_GEN_PRIV) != 0;
    uint64_t run_seed = cfg->run_seed ? cfg->run_seed : cfg->seed * 0x9e3779b97f4a7c15ull + 0x5851f42d4c957f2dull;
    grng_seed(&s.rng, run_seed);
    /* Timing knobs of this run (the program's structure is fixed). */
    struct rvt_gen_config runcfg = p->cfg;
    if (cfg->size >= offsetof(struct rvt_gen_config, stall_max) + sizeof cfg->stall_max) {
        if (cfg->interrupt_interval >= 10)
            runcfg.interrupt_interval = cfg->interrupt_interval;
        runcfg.stall_max = cfg->stall_max;
    }
    s.cfg = &runcfg;
    uint64_t total = cfg->insns;

    s.ram = calloc(p->ram.size ? p->ram.size : 1, 1);
    s.pat = calloc(p->nann + 1, sizeof *s.pat);
    if (!s.ram || !s.pat) {
        free(s.ram);
        free(s.pat);
        return rvt_fail(diag, RVT_ERR_NOMEM, "generator run: out of memory");
    }
    memcpy(s.ram, p->ram_init, p->ram.globals_size);
    /* Registers are undefined at reset: random values. */
    for (unsigned i = 1; i < 32; i++)
        s.x[i] = grng_next(&s.rng) & s.mask;
    for (unsigned i = 0; i < 32; i++)
        s.f[i] = grng_next(&s.rng);
    s.pc = p->entry;
    s.priv = 3;
    if (!s.smode)
        s.mstatus = MS_MPP;
    next_countdown(&s);

    int ret = 0;
    uint64_t retired = 0, prev_pc = p->entry;
    struct rvt_gen_step st;
    bool irqs = (s.feat & RVT_GEN_INTERRUPTS) != 0;
    while (retired < total) {
        if (irqs && --s.irq_countdown == 0) {
            uint64_t src = s.mie & supported_irqs(&s);
            if (src) {
                unsigned n = (unsigned)__builtin_popcountll(src);
                uint64_t k = grng_below(&s.rng, n);
                for (unsigned c = 0; c < 64; c++)
                    if (((src >> c) & 1) && k-- == 0) {
                        s.mip |= 1ull << c;
                        break;
                    }
            }
            next_countdown(&s);
        }
        if (s.mip) {
            int c = pending_irq(&s);
            if (c >= 0) {
                memset(&st, 0, sizeof st);
                st.kind = RVT_GEN_STEP_TRAP;
                st.interrupt = true;
                st.cause = (uint32_t)c;
                st.pc = s.pc;
                st.priv = (uint8_t)s.priv;
                st.context = context_of(&s);
                s.mip &= ~(1ull << c);
                trap_enter(&s, true, (unsigned)c, 0, s.pc);
                ret = fn(ctx, &st);
                if (ret)
                    break;
                continue;
            }
        }
        const struct xinsn *x = prog_insn_at(p, s.pc);
        if (!x) {
            ret = rvt_fail(diag, RVT_ERR_MISMATCH,
                           "generator bug: execution reached 0x%" PRIx64 ", not an instruction (after 0x%" PRIx64
                           ", %" PRIu64 " instructions retired)",
                           s.pc, prev_pc, retired);
            break;
        }
        memset(&s.extra, 0, sizeof s.extra);
        uint8_t priv = (uint8_t)s.priv;
        uint64_t context = context_of(&s);
        struct xres r;
        exec_insn(&s, x, &r);
        if (r.bug) {
            ret = rvt_fail(diag, RVT_ERR_MISMATCH,
                           "generator bug: instruction at 0x%" PRIx64 " accessed 0x%" PRIx64
                           " outside the program's memory (or a stack guard)",
                           s.pc, r.bug_addr);
            break;
        }
        if (r.exc != EXC_NONE) {
            memset(&st, 0, sizeof st);
            st.kind = RVT_GEN_STEP_TRAP;
            st.cause = (uint32_t)r.exc;
            st.tval = r.tval & s.mask;
            st.pc = s.pc;
            st.priv = priv;
            st.context = context;
            trap_enter(&s, false, (unsigned)r.exc, r.tval & s.mask, s.pc);
            ret = fn(ctx, &st);
            if (ret)
                break;
            continue;
        }
        s.cycle += 1;
        if (runcfg.stall_max && grng_below(&s.rng, 8) == 0)
            s.cycle += 1 + grng_below(&s.rng, runcfg.stall_max);
        s.instret++;
        st.kind = RVT_GEN_STEP_INSN;
        st.len = x->len;
        st.priv = priv;
        st.interrupt = false;
        st.bits = x->bits;
        st.cause = 0;
        st.pc = s.pc;
        st.tval = 0;
        st.context = context;
        st.extra = s.extra;
        if (s.feat & RVT_GEN_TIME) {
            st.extra.flags |= RVT_ING_HAS_TIME;
            st.extra.time = s.cycle;
        }
        retired++;
        prev_pc = s.pc;
        s.pc = r.npc;
        ret = fn(ctx, &st);
        if (ret)
            break;
    }
    free(s.ram);
    free(s.pat);
    return ret;
}

/* ---- records through the shared ingress builder ---------------------------- */

struct to_builder {
    struct rvt_ing_builder *b;
    int err;
};

static int step_to_builder(void *ctx, const struct rvt_gen_step *s)
{
    struct to_builder *t = ctx;
    int r;
    if (s->kind == RVT_GEN_STEP_INSN)
        r = rvt_ing_builder_insn(t->b, s->pc, (int64_t)s->bits, s->priv, s->context,
                                 s->extra.flags ? &s->extra : NULL);
    else
        r = rvt_ing_builder_trap(t->b, s->interrupt, s->cause, s->tval, s->pc);
    if (r < 0)
        t->err = r;
    return r < 0 ? r : 0;
}

int rvt_gen_run_ex(const struct rvt_gen_program *p, const struct rvt_gen_config *cfg, bool merge_blocks,
                   rvt_ing_emit_fn emit, void *ctx, struct rvt_diag *diag)
{
    if (!p || !emit)
        return rvt_fail(diag, RVT_ERR_INVAL, "generator run: missing program or callback");
    struct rvt_ing_builder_config bc;
    memset(&bc, 0, sizeof bc);
    bc.size = sizeof bc;
    bc.image = NULL;
    bc.xlen = p->xlen;
    bc.ecall_mode = RVT_ECALL_SEQUENTIAL;
    bc.merge_blocks = merge_blocks;
    bc.emit = emit;
    bc.emit_ctx = ctx;
    struct to_builder t = {rvt_ing_builder_new(&bc), 0};
    if (!t.b)
        return rvt_fail(diag, RVT_ERR_NOMEM, "generator run: cannot create the ingress builder");
    int r = rvt_gen_run_pcs(p, cfg, step_to_builder, &t, diag);
    if (r == 0) {
        r = rvt_ing_builder_finish(t.b);
        if (r < 0)
            t.err = r;
    }
    if (t.err) {
        const char *m = rvt_ing_builder_error(t.b);
        r = rvt_fail(diag, (enum rvt_err)-t.err, "generator run: ingress builder: %s",
                     m && m[0] ? m : rvt_errstr(t.err));
    }
    rvt_ing_builder_free(t.b);
    return r;
}

int rvt_gen_run(const struct rvt_gen_program *p, const struct rvt_gen_config *cfg, rvt_ing_emit_fn emit, void *ctx,
                struct rvt_diag *diag)
{
    return rvt_gen_run_ex(p, cfg, false, emit, ctx, diag);
}

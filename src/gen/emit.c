/* Generator: emission helpers shared by the function, task and system
 * builders. */
#include "gen/emit.h"

#include <string.h>

const uint8_t g_sorder[NSREG] = {S0, S1, S2, S3, S4, S5, S6, S7, S8, S9, S10, S11};

/* ---- reachability ------------------------------------------------------ */

/* Conservative address windows of the segments: low = [text_base,
 * text_base + LOW_SPAN), high = the top HIGH_SPAN bytes below the last page. */
static void seg_window(const struct gctx *g, unsigned seg, int64_t *lo, int64_t *hi)
{
    if (seg == SEG_HIGH) {
        /* as signed xlen values: just below zero */
        *lo = -(int64_t)(HIGH_SPAN + 0x1000);
        *hi = -0x1000;
    } else {
        *lo = (int64_t)g->text_base;
        *hi = (int64_t)(g->text_base + LOW_SPAN);
    }
}

bool reach_jal(const struct gctx *g, unsigned from, unsigned to)
{
    (void)g;
    /* Same code segment: jal reaches +-1 MiB; layout relaxes longer calls. */
    return (from == SEG_HIGH) == (to == SEG_HIGH) && to != SEG_RODATA && to != SEG_RAM;
}

bool reach_auipc(const struct gctx *g, unsigned from, unsigned to)
{
    if (g->xlen == 32)
        return true; /* 32-bit arithmetic wraps: auipc reaches everything */
    int64_t flo, fhi, tlo, thi;
    seg_window(g, from, &flo, &fhi);
    seg_window(g, to, &tlo, &thi);
    int64_t d1 = thi - flo, d2 = tlo - fhi;
    int64_t lim = 0x7fffe000; /* 2^31 minus what the sign of the low part costs */
    return d1 < lim && d1 > -lim && d2 < lim && d2 > -lim;
}

bool reach_lui(const struct gctx *g, unsigned to)
{
    if (g->xlen == 32)
        return true;
    int64_t lo, hi;
    seg_window(g, to, &lo, &hi);
    return lo >= -0x7ffff800ll && hi <= 0x7ffff000ll;
}

/* ---- emission ---------------------------------------------------------- */

struct gins gi_make(enum gop op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm)
{
    struct gins in;
    memset(&in, 0, sizeof in);
    in.op = (uint8_t)op;
    in.form = FM_32;
    in.rd = (uint8_t)rd;
    in.rs1 = (uint8_t)rs1;
    in.rs2 = (uint8_t)rs2;
    in.imm = imm;
    in.label = UINT32_MAX;
    switch (op) {
    case OP_ECALL:
        in.cf = RVT_CF_ECALL;
        break;
    case OP_EBREAK:
        in.cf = RVT_CF_EBREAK;
        break;
    case OP_MRET:
    case OP_SRET:
        in.cf = RVT_CF_TRAPRET;
        break;
    default:
        in.cf = RVT_CF_NONE;
        break;
    }
    return in;
}

void e_push(struct emit *e, const struct gins *in)
{
    if (gvec_push(e->v, in) < 0)
        e->g->b->oom = true;
}

static void maybe_compress(struct emit *e, struct gins *in, bool pcrel)
{
    if (!e->g->rvc || !grng_pct(&e->g->rng, e->g->cfg->p_compressed))
        return;
    enum gform forms[4];
    unsigned n = asm_compressed_forms((enum gop)in->op, in->rd, in->rs1, in->rs2, in->imm, e->g->xlen, pcrel, forms);
    if (n)
        in->form = (uint8_t)forms[grng_below(&e->g->rng, n)];
}

void e_op(struct emit *e, enum gop op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm)
{
    struct gins in = gi_make(op, rd, rs1, rs2, imm);
    maybe_compress(e, &in, false);
    e_push(e, &in);
}

void e_op32(struct emit *e, enum gop op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm)
{
    struct gins in = gi_make(op, rd, rs1, rs2, imm);
    e_push(e, &in);
}

void e_csr(struct emit *e, enum gop op, unsigned rd, unsigned csr, unsigned rs1_or_uimm)
{
    bool imm_form = op == OP_CSRRWI || op == OP_CSRRSI || op == OP_CSRRCI;
    struct gins in = gi_make(op, rd, imm_form ? 0 : rs1_or_uimm, 0, imm_form ? rs1_or_uimm : 0);
    in.csr = (uint16_t)csr;
    e_push(e, &in);
}

void e_label(struct emit *e, uint32_t label)
{
    struct gins in = gi_make(OP_ADDI, 0, 0, 0, 0);
    in.flags = GF_LABEL;
    in.label = label;
    e_push(e, &in);
}

void e_align4(struct emit *e)
{
    if (!e->g->rvc)
        return;
    struct gins in = gi_make(OP_ADDI, 0, 0, 0, 0);
    in.flags = GF_ALIGN4;
    e_push(e, &in);
}

void e_branch(struct emit *e, enum gop op, unsigned rs1, unsigned rs2, uint32_t label, uint32_t ann)
{
    struct gins in = gi_make(op, 0, rs1, rs2, 0);
    in.cf = RVT_CF_BRANCH;
    in.reloc = RL_BRANCH;
    in.label = label;
    in.ann = ann;
    maybe_compress(e, &in, true);
    e_push(e, &in);
}

void e_jal(struct emit *e, unsigned rd, uint32_t label, unsigned cf, bool relax)
{
    struct gins in = gi_make(OP_JAL, rd, 0, 0, 0);
    in.cf = (uint8_t)cf;
    in.reloc = RL_JAL;
    in.label = label;
    if (relax)
        in.flags |= GF_RELAX;
    maybe_compress(e, &in, true);
    e_push(e, &in);
}

void e_jalr(struct emit *e, unsigned rd, unsigned rs1, int64_t imm, unsigned cf)
{
    struct gins in = gi_make(OP_JALR, rd, rs1, 0, imm);
    in.cf = (uint8_t)cf;
    maybe_compress(e, &in, false);
    e_push(e, &in);
}

void e_hi(struct emit *e, enum gop op, enum gform form, unsigned rd, uint32_t label)
{
    struct gins in = gi_make(op, rd, 0, 0, 0);
    in.form = (uint8_t)form;
    in.reloc = op == OP_AUIPC ? RL_PCREL_HI : RL_ABS_HI;
    in.label = label;
    e_push(e, &in);
}

void e_lo(struct emit *e, enum gop op, unsigned rd, unsigned rs1, uint32_t label, bool pcrel, unsigned cf,
                 bool sijump)
{
    struct gins in = gi_make(op, rd, rs1, 0, 0);
    in.reloc = pcrel ? RL_PCREL_LO : RL_ABS_LO;
    in.label = label;
    in.cf = (uint8_t)cf;
    if (sijump)
        in.flags |= GF_SIJUMP;
    e_push(e, &in);
}

void e_ldr(struct emit *e, unsigned rd, unsigned base, int64_t off)
{
    e_op(e, e->g->rs == 8 ? OP_LD : OP_LW, rd, base, 0, off);
}

void e_str(struct emit *e, unsigned rs, unsigned base, int64_t off)
{
    e_op(e, e->g->rs == 8 ? OP_SD : OP_SW, 0, base, rs, off);
}

/* rd = label, as gp plus a 32-bit offset: reaches anything in the low
 * window from any code (gp is a register). */
static void e_gprel(struct emit *e, unsigned rd, uint32_t label)
{
    struct gins in = gi_make(OP_LUI, rd, 0, 0, 0);
    in.reloc = RL_GPREL_HI;
    in.label = label;
    e_push(e, &in);
    in = gi_make(OP_ADDI, rd, rd, 0, 0);
    in.reloc = RL_GPREL_LO;
    in.label = label;
    e_push(e, &in);
    e_op(e, OP_ADD, rd, rd, GP, 0);
}

void e_la(struct emit *e, unsigned rd, uint32_t label, unsigned lseg, bool allow_got)
{
    struct gctx *g = e->g;
    int choices[4];
    unsigned n = 0;
    if (reach_auipc(g, e->seg, lseg))
        choices[n++] = 0;
    if (reach_lui(g, lseg))
        choices[n++] = 1;
    int slot = -1;
    if (allow_got && (n == 0 || grng_pct(&g->rng, 25))) {
        slot = gb_got_slot(g->b, label, (unsigned)g->p->ram.got_max);
        if (slot >= 0)
            choices[n++] = 2;
    }
    if (allow_got && lseg != SEG_HIGH && (n == 0 || grng_pct(&g->rng, 10)))
        choices[n++] = 3; /* gp-relative: needs gp, reaches the low window */
    if (n == 0) {
        gb_error(g->b, "no way to reach a label from segment %u", e->seg);
        return;
    }
    int c = choices[grng_below(&g->rng, n)];
    if (c == 3) {
        e_gprel(e, rd, label);
    } else if (c == 2) {
        e_ldr(e, rd, GP, g->p->ram.got_off + slot * (int)g->rs);
    } else if (c == 0) {
        e_hi(e, OP_AUIPC, FM_32, rd, label);
        e_lo(e, OP_ADDI, rd, rd, label, true, RVT_CF_NONE, false);
    } else {
        e_hi(e, OP_LUI, FM_32, rd, label);
        e_lo(e, OP_ADDI, rd, rd, label, false, RVT_CF_NONE, false);
    }
}

void e_li(struct emit *e, unsigned rd, int64_t value)
{
    if (value >= -2048 && value < 2048) {
        e_op(e, OP_ADDI, rd, X0, 0, value);
        return;
    }
    int64_t lo = ((value & 0xfff) ^ 0x800) - 0x800;
    int64_t hi = ((value - lo) >> 12) & 0xfffff;
    e_op(e, OP_LUI, rd, 0, 0, hi);
    if (lo)
        e_op(e, e->g->xlen == 64 ? OP_ADDIW : OP_ADDI, rd, rd, 0, lo);
}

/* The class a jalr has by the link-register rules (x1/x5 are links). */
unsigned jalr_class(unsigned rd, unsigned rs1)
{
    bool rd_link = rd == RA || rd == T0, rs_link = rs1 == RA || rs1 == T0;
    if (rd_link && rs_link)
        return rd == rs1 ? RVT_CF_CALL_UNINF : RVT_CF_COSWAP;
    if (rd_link)
        return RVT_CF_CALL_UNINF;
    if (rs_link)
        return RVT_CF_RETURN;
    return rd == 0 ? RVT_CF_JUMP_UNINF : RVT_CF_OTHER_UNINF;
}
unsigned jal_class(unsigned rd)
{
    return rd == RA || rd == T0 ? RVT_CF_CALL_INF : rd == 0 ? RVT_CF_JUMP_INF : RVT_CF_OTHER_INF;
}

void e_far_jump(struct emit *e, unsigned rd, uint32_t label, unsigned lseg, bool aligned4k, unsigned scratch)
{
    struct gctx *g = e->g;
    enum { V_JAL, V_AUIPC_SELF, V_AUIPC, V_LUI, V_CLUI, V_LUI_CJALR, V_GOT, V_LA, V_GPREL, V__N };
    int v[V__N];
    unsigned n = 0;
    bool si = (g->feat & RVT_GEN_SIJUMPS) != 0;
    bool ind = grng_pct(&g->rng, g->cfg->p_indirect);
    if (reach_jal(g, e->seg, lseg) && !ind)
        v[n++] = V_JAL;
    if (ind || n == 0) {
        if (si && reach_auipc(g, e->seg, lseg)) {
            v[n++] = V_AUIPC;
            if (rd != 0)
                v[n++] = V_AUIPC_SELF;
        }
        if (si && reach_lui(g, lseg))
            v[n++] = V_LUI;
        if (si && g->rvc && lseg == SEG_HIGH)
            v[n++] = V_CLUI;
        if (si && g->rvc && aligned4k && (rd == 0 || rd == RA) && reach_lui(g, lseg))
            v[n++] = V_LUI_CJALR;
        v[n++] = V_GOT;
        if (reach_auipc(g, e->seg, lseg) || reach_lui(g, lseg))
            v[n++] = V_LA;
        if (lseg != SEG_HIGH)
            v[n++] = V_GPREL;
    }
    int c = v[grng_below(&g->rng, n)];
    int slot = -1;
    if (c == V_GOT) {
        slot = gb_got_slot(g->b, label, (unsigned)g->p->ram.got_max);
        if (slot < 0) {
            /* GOT full: any other form that reaches */
            unsigned k = 0;
            for (unsigned i = 0; i < n; i++)
                if (v[i] != V_GOT)
                    v[k++] = v[i];
            if (k == 0) {
                gb_error(g->b, "no way to reach a function from segment %u", e->seg);
                return;
            }
            c = v[grng_below(&g->rng, k)];
        }
    }
    unsigned r = scratch;
    switch (c) {
    case V_JAL:
        e_jal(e, rd, label, jal_class(rd), true);
        return;
    case V_AUIPC_SELF:
        r = rd;
        /* fall through */
    case V_AUIPC:
        e_hi(e, OP_AUIPC, FM_32, r, label);
        e_lo(e, OP_JALR, rd, r, label, true, jalr_class(rd, r), true);
        return;
    case V_LUI:
        e_hi(e, OP_LUI, FM_32, r, label);
        e_lo(e, OP_JALR, rd, r, label, false, jalr_class(rd, r), true);
        return;
    case V_CLUI:
        e_hi(e, OP_LUI, FM_C_LUI, r, label); /* r is never x0 or sp */
        e_lo(e, OP_JALR, rd, r, label, false, jalr_class(rd, r), true);
        return;
    case V_LUI_CJALR: {
        /* lo part is zero: the target is 4 KiB aligned. */
        e_hi(e, OP_LUI, lseg == SEG_HIGH && g->rvc ? FM_C_LUI : FM_32, r, label);
        struct gins in = gi_make(OP_JALR, rd, r, 0, 0);
        in.form = rd == 0 ? FM_C_JR : FM_C_JALR;
        in.cf = (uint8_t)jalr_class(rd, r);
        in.label = label; /* checked: the inferred target must be the label */
        in.flags |= GF_SIJUMP;
        e_push(e, &in);
        return;
    }
    case V_GOT:
        e_ldr(e, r, GP, g->p->ram.got_off + slot * (int)g->rs);
        e_jalr(e, rd, r, 0, jalr_class(rd, r));
        return;
    case V_GPREL:
        e_gprel(e, r, label);
        e_jalr(e, rd, r, 0, jalr_class(rd, r));
        return;
    case V_LA:
    default:
        e_la(e, r, label, lseg, false);
        e_jalr(e, rd, r, 0, jalr_class(rd, r));
        return;
    }
}

uint32_t ann_random(struct gctx *g, unsigned pct_taken)
{
    struct gann a;
    memset(&a, 0, sizeof a);
    a.kind = ANN_RANDOM;
    a.prob = (uint32_t)((double)pct_taken / 100.0 * 4294967295.0);
    return gb_new_ann(g->b, &a);
}

uint32_t ann_for_branch(struct gctx *g, double *p_taken)
{
    struct gann a;
    memset(&a, 0, sizeof a);
    unsigned r = (unsigned)grng_below(&g->rng, 10);
    if (r < 4) {
        /* around the configured mean taken rate */
        int pct = (int)g->cfg->p_branch_taken + (int)grng_range(&g->rng, -15, 15);
        pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
        a.kind = ANN_RANDOM;
        a.prob = (uint32_t)((double)pct / 100.0 * 4294967295.0);
        *p_taken = pct / 100.0;
    } else if (r < 7) {
        /* strongly biased either way */
        unsigned pct = grng_pct(&g->rng, 50) ? 3 : 97;
        a.kind = ANN_RANDOM;
        a.prob = (uint32_t)((double)pct / 100.0 * 4294967295.0);
        *p_taken = pct / 100.0;
    } else {
        /* a repeating pattern (predictable by history) */
        a.kind = ANN_PATTERN;
        a.period = (uint8_t)grng_range(&g->rng, 2, 12);
        a.pattern = grng_next(&g->rng) & ((1ull << a.period) - 1);
        if (a.pattern == 0)
            a.pattern = 1;
        *p_taken = (double)__builtin_popcountll(a.pattern) / a.period;
    }
    return gb_new_ann(g->b, &a);
}

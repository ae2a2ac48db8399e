/* Generator: layout of the IR into segments, relaxation of out-of-range
 * jumps, encoding, and the check of every instruction against the shared
 * classifier (rvt_isa_decode): the generator only ships code whose class,
 * length and targets the classifier agrees with. */
#include "gen/gen_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gvec_push(struct gvec *v, const struct gins *in)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 64;
        struct gins *nv = realloc(v->v, nc * sizeof *nv);
        if (!nv)
            return -RVT_ERR_NOMEM;
        v->v = nv;
        v->cap = nc;
    }
    v->v[v->n++] = *in;
    return 0;
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np)
        return false;
    *p = np;
    *cap = nc;
    return true;
}

uint32_t gb_new_label(struct gbuild *b)
{
    size_t need = b->nlabels + 1;
    size_t c1 = b->caplabels, c2 = b->caplabels, c3 = b->caplabels;
    if (!grow((void **)&b->label_frag, &c1, need, sizeof *b->label_frag) ||
        !grow((void **)&b->label_addr, &c2, need, sizeof *b->label_addr) ||
        !grow((void **)&b->label_defined, &c3, need, sizeof *b->label_defined)) {
        b->oom = true;
        return 0;
    }
    b->caplabels = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    b->label_frag[b->nlabels] = UINT32_MAX;
    b->label_addr[b->nlabels] = 0;
    b->label_defined[b->nlabels] = 0;
    return (uint32_t)b->nlabels++;
}

size_t gb_new_frag(struct gbuild *b, const char *name, unsigned seg, unsigned align, bool is_func)
{
    if (!grow((void **)&b->frags, &b->capfrags, b->nfrags + 1, sizeof *b->frags)) {
        b->oom = true;
        return 0;
    }
    struct gfrag *f = calloc(1, sizeof *f);
    if (!f) {
        b->oom = true;
        return 0;
    }
    b->frags[b->nfrags] = f;
    snprintf(f->name, sizeof f->name, "%s", name);
    f->seg = (uint8_t)seg;
    f->align = (uint8_t)align;
    f->is_func = is_func;
    return b->nfrags++;
}

uint32_t gb_new_table(struct gbuild *b, const char *name, const uint32_t *entries, unsigned n, bool relative)
{
    if (!grow((void **)&b->tables, &b->captables, b->ntables + 1, sizeof *b->tables)) {
        b->oom = true;
        return 0;
    }
    struct gtable *t = &b->tables[b->ntables];
    memset(t, 0, sizeof *t);
    t->entries = malloc(n * sizeof *t->entries);
    if (!t->entries) {
        b->oom = true;
        return 0;
    }
    memcpy(t->entries, entries, n * sizeof *entries);
    t->n = n;
    t->relative = relative;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->label = gb_new_label(b);
    b->ntables++;
    return t->label;
}

uint32_t gb_new_ann(struct gbuild *b, const struct gann *a)
{
    if (!grow((void **)&b->anns, &b->capanns, b->nanns + 1, sizeof *b->anns)) {
        b->oom = true;
        return 0;
    }
    b->anns[b->nanns++] = *a;
    return (uint32_t)b->nanns; /* 1-based */
}

uint32_t gb_ram_label(struct gbuild *b, uint64_t offset)
{
    uint32_t l = gb_new_label(b);
    if (!b->oom) {
        b->label_frag[l] = UINT32_MAX - 1; /* resolved once RAM is placed */
        b->label_addr[l] = offset;
    }
    return l;
}

int gb_got_slot(struct gbuild *b, uint32_t label, unsigned max_slots)
{
    for (size_t i = 0; i < b->ngot; i++)
        if (b->got[i] == label)
            return (int)i;
    if (b->ngot >= max_slots)
        return -1;
    uint32_t *ng = realloc(b->got, (b->ngot + 1) * sizeof *ng);
    if (!ng) {
        b->oom = true;
        return -1;
    }
    b->got = ng;
    b->got[b->ngot] = label;
    return (int)b->ngot++;
}

void gb_error(struct gbuild *b, const char *fmt, ...)
{
    if (b->err[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, sizeof b->err, fmt, ap);
    va_end(ap);
}

void gb_free(struct gbuild *b)
{
    for (size_t i = 0; i < b->nfrags; i++) {
        free(b->frags[i]->code.v);
        free(b->frags[i]);
    }
    free(b->frags);
    free(b->label_frag);
    free(b->label_addr);
    free(b->label_defined);
    for (size_t i = 0; i < b->ntables; i++)
        free(b->tables[i].entries);
    free(b->tables);
    free(b->anns);
    free(b->got);
    memset(b, 0, sizeof *b);
}

/* ---- layout ------------------------------------------------------------ */

static uint64_t xmask(unsigned xlen)
{
    return xlen == 64 ? ~0ull : 0xffffffffull;
}
static int64_t sext(uint64_t v, unsigned bits)
{
    if (bits >= 64)
        return (int64_t)v;
    uint64_t m = 1ull << (bits - 1);
    v &= (1ull << bits) - 1;
    return (int64_t)((v ^ m) - m);
}

/* Split a value (an xlen-wide difference or address) into hi20/lo12 with
 * sext32(hi << 12) + sext12(lo) == value (mod 2^xlen).  False if it does
 * not fit (RV64 values outside the signed 32-bit range). */
static bool split_hilo(uint64_t value, unsigned xlen, int64_t *hi, int64_t *lo)
{
    int64_t v = sext(value & xmask(xlen), xlen);
    int64_t l = sext((uint64_t)v & 0xfff, 12);
    int64_t h = (v - l) >> 12;
    if (xlen == 32) {
        h = sext((uint64_t)h & 0xfffff, 20);
    } else if (h < -(1 << 19) || h >= (1 << 19)) {
        return false;
    }
    *hi = h;
    *lo = l;
    return true;
}

static unsigned item_size(const struct gins *g, uint64_t off)
{
    if (g->flags & GF_LABEL)
        return 0;
    if (g->flags & GF_ALIGN4)
        return (off & 2) ? 2 : 0;
    if (g->flags & GF_EXPANDED)
        return 8;
    return asm_form_len((enum gform)g->form);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* Assign addresses to every fragment and label of the code segments. */
static void layout_code(struct gbuild *b)
{
    uint64_t off[2] = {0, 0};
    for (size_t i = 0; i < b->nfrags; i++) {
        struct gfrag *f = b->frags[i];
        unsigned s = f->seg == SEG_HIGH ? 1 : 0;
        off[s] = align_up(off[s], f->align ? f->align : 2);
        f->addr = off[s];
        uint64_t o = off[s];
        for (size_t k = 0; k < f->code.n; k++)
            o += item_size(&f->code.v[k], o);
        f->size = o - off[s];
        off[s] = o;
    }
    /* The high segment ends a page below the top of the address space. */
    uint64_t top = b->xlen == 64 ? 0 : 0x100000000ull; /* 2^64 wraps to 0 */
    uint64_t high_size = align_up(off[1], 4096);
    b->seg_base[SEG_HIGH] = (top - 0x1000 - high_size) & xmask(b->xlen);
    for (size_t i = 0; i < b->nfrags; i++) {
        struct gfrag *f = b->frags[i];
        f->addr += b->seg_base[f->seg == SEG_HIGH ? SEG_HIGH : SEG_TEXT];
        uint64_t o = f->addr;
        for (size_t k = 0; k < f->code.n; k++) {
            const struct gins *g = &f->code.v[k];
            if (g->flags & GF_LABEL) {
                b->label_addr[g->label] = o;
                b->label_defined[g->label] = 1;
                b->label_frag[g->label] = (uint32_t)i;
            }
            o += item_size(g, o);
        }
    }
    b->p->seg[SEG_TEXT].memsz = off[0];
    b->p->seg[SEG_HIGH].memsz = off[1];
}

/* Widen compressed jumps/branches and relax far jal; true if anything changed. */
static int relax(struct gbuild *b, bool *changed)
{
    *changed = false;
    for (size_t i = 0; i < b->nfrags; i++) {
        struct gfrag *f = b->frags[i];
        uint64_t pc = f->addr;
        for (size_t k = 0; k < f->code.n; k++) {
            struct gins *g = &f->code.v[k];
            unsigned sz = item_size(g, pc);
            if ((g->reloc == RL_BRANCH || g->reloc == RL_JAL) && !(g->flags & GF_EXPANDED)) {
                if (!b->label_defined[g->label])
                    return rvt_fail(b->diag, RVT_ERR_INVAL, "generator: label %u used in %s but never defined",
                                    g->label, f->name);
                int64_t off = sext((b->label_addr[g->label] + (uint64_t)g->imm - pc) & xmask(b->xlen), b->xlen);
                uint32_t bits;
                if (!asm_encode((enum gop)g->op, (enum gform)g->form, g->rd, g->rs1, g->rs2, off, 0, b->xlen,
                                &bits)) {
                    if (g->form != FM_32) {
                        g->form = FM_32;
                        *changed = true;
                    } else if (g->op == OP_JAL && (g->flags & GF_RELAX)) {
                        g->flags |= GF_EXPANDED;
                        *changed = true;
                    } else {
                        return rvt_fail(b->diag, RVT_ERR_OVERFLOW,
                                        "generator: %s at 0x%" PRIx64 " in %s cannot reach 0x%" PRIx64,
                                        gop_table[g->op].name, pc, f->name, b->label_addr[g->label]);
                    }
                }
            }
            pc += sz;
        }
    }
    return 0;
}

/* ---- encoding and checking --------------------------------------------- */

struct enc_out {
    uint32_t bits;
    unsigned len;
    uint8_t op, rd, rs1, rs2, cf;
    int64_t imm;     /* simulator immediate */
    uint64_t target; /* expected static target / constant */
    bool has_target;
    bool sijump;     /* expected sequentially inferable (jalr) */
    uint64_t sitarget;
};

static int enc_fail(struct gbuild *b, const struct gfrag *f, uint64_t pc, const struct gins *g, const char *why)
{
    return rvt_fail(b->diag, RVT_ERR_INVAL, "generator: cannot encode %s (%s) at 0x%" PRIx64 " in %s: %s",
                    gop_table[g->op].name, asm_form_name((enum gform)g->form), pc, f->name, why);
}

/* Encode one IR instruction at pc (one or two machine instructions). */
static int encode_item(struct gbuild *b, const struct gfrag *f, const struct gins *g, uint64_t pc, uint64_t prev_pc,
                       struct enc_out out[2], unsigned *nout)
{
    unsigned xlen = b->xlen;
    uint64_t m = xmask(xlen);
    uint64_t target = 0;
    if (g->label != UINT32_MAX) {
        if (!b->label_defined[g->label])
            return enc_fail(b, f, pc, g, "undefined label");
        target = (b->label_addr[g->label] + (g->reloc != RL_NONE ? (uint64_t)g->imm : 0)) & m;
    }
    int64_t imm = g->imm;
    int64_t hi, lo;
    memset(out, 0, 2 * sizeof *out);
    *nout = 1;
    out[0].op = g->op;
    out[0].rd = g->rd;
    out[0].rs1 = g->rs1;
    out[0].rs2 = g->rs2;
    out[0].cf = g->cf;
    out[0].len = asm_form_len((enum gform)g->form);

    if (g->flags & GF_EXPANDED) {
        /* jal rd, target  ->  auipc r, hi ; jalr rd, lo(r) */
        unsigned r = g->rd ? g->rd : T1;
        if (!split_hilo(target - pc, xlen, &hi, &lo))
            return enc_fail(b, f, pc, g, "relaxed call out of auipc range");
        *nout = 2;
        out[0].op = OP_AUIPC;
        out[0].rd = (uint8_t)r;
        out[0].rs1 = out[0].rs2 = 0;
        out[0].cf = RVT_CF_NONE;
        out[0].len = 4;
        out[0].imm = (int64_t)(uint64_t)sext((uint64_t)hi << 12, 32);
        out[0].target = (pc + (uint64_t)out[0].imm) & m;
        out[0].has_target = true;
        if (!asm_encode(OP_AUIPC, FM_32, r, 0, 0, hi, 0, xlen, &out[0].bits))
            return enc_fail(b, f, pc, g, "auipc");
        out[1].op = OP_JALR;
        out[1].rd = g->rd;
        out[1].rs1 = (uint8_t)r;
        out[1].len = 4;
        out[1].imm = lo;
        out[1].cf = g->rd == RA || g->rd == T0 ? RVT_CF_CALL_UNINF
                    : g->rd == 0             ? RVT_CF_JUMP_UNINF
                                             : RVT_CF_OTHER_UNINF;
        out[1].sijump = true;
        out[1].sitarget = target;
        if (!asm_encode(OP_JALR, FM_32, g->rd, r, 0, lo, 0, xlen, &out[1].bits))
            return enc_fail(b, f, pc, g, "jalr");
        return 0;
    }

    switch ((enum greloc)g->reloc) {
    case RL_NONE:
        break;
    case RL_BRANCH:
    case RL_JAL:
        imm = sext((target - pc) & m, xlen);
        out[0].target = target;
        out[0].has_target = true;
        break;
    case RL_PCREL_HI:
        if (!split_hilo(target - pc, xlen, &hi, &lo))
            return enc_fail(b, f, pc, g, "pc-relative target out of auipc range");
        imm = hi;
        break;
    case RL_PCREL_LO:
        if (!split_hilo(target - prev_pc, xlen, &hi, &lo))
            return enc_fail(b, f, pc, g, "pc-relative target out of auipc range");
        imm = lo;
        break;
    case RL_ABS_HI:
        if (!split_hilo(target, xlen, &hi, &lo))
            return enc_fail(b, f, pc, g, "absolute target out of lui range");
        imm = hi;
        break;
    case RL_ABS_LO:
        if (!split_hilo(target, xlen, &hi, &lo))
            return enc_fail(b, f, pc, g, "absolute target out of lui range");
        imm = lo;
        break;
    case RL_GPREL_HI:
    case RL_GPREL_LO:
        if (!split_hilo(target - b->p->ram.gp, xlen, &hi, &lo))
            return enc_fail(b, f, pc, g, "target too far from gp");
        imm = g->reloc == RL_GPREL_HI ? hi : lo;
        break;
    }
    if (!asm_encode((enum gop)g->op, (enum gform)g->form, g->rd, g->rs1, g->rs2, imm, g->csr, xlen, &out[0].bits))
        return enc_fail(b, f, pc, g, "operands do not fit the form");
    if (g->op == OP_LUI || g->op == OP_AUIPC) {
        int64_t v = sext((uint64_t)sext((uint64_t)imm & 0xfffff, 20) << 12, 32);
        out[0].imm = v;
        out[0].target = ((g->op == OP_AUIPC ? pc : 0) + (uint64_t)v) & m;
        out[0].has_target = true;
    } else {
        out[0].imm = imm;
    }
    if (g->op == OP_JALR && (g->flags & GF_SIJUMP)) {
        out[0].sijump = true;
        out[0].sitarget = target;
    }
    return 0;
}

/* Compare what the shared classifier says with what we meant. */
static int check_insn(struct gbuild *b, const struct gfrag *f, uint64_t pc, const struct enc_out *e,
                      const struct rvt_insn *prev, struct rvt_insn *in)
{
    unsigned xlen = b->xlen;
    char why[160];
    why[0] = 0;
    rvt_isa_decode(e->bits, pc, xlen, in);
    const struct gop_info *gi = &gop_table[e->op];
    bool is_c = e->len == 2;
    if (!(in->flags & RVT_IF_VALID))
        snprintf(why, sizeof why, "decoded as invalid");
    else if (in->len != e->len)
        snprintf(why, sizeof why, "length %u, expected %u", in->len, e->len);
    else if (!!(in->flags & RVT_IF_COMPRESSED) != is_c)
        snprintf(why, sizeof why, "compressed flag %d, expected %d", !!(in->flags & RVT_IF_COMPRESSED), is_c);
    else if (in->cf != e->cf)
        snprintf(why, sizeof why, "class %s, expected %s", rvt_cf_name(in->cf), rvt_cf_name(e->cf));
    else if (e->has_target && in->target != e->target)
        snprintf(why, sizeof why, "target 0x%" PRIx64 ", expected 0x%" PRIx64, in->target, e->target);
    else if ((gi->kind == GK_JAL || gi->kind == GK_JALR) && in->rd != e->rd)
        snprintf(why, sizeof why, "rd x%u, expected x%u", in->rd, e->rd);
    else if ((gi->kind == GK_JALR || gi->kind == GK_BRANCH) && in->rs1 != e->rs1)
        snprintf(why, sizeof why, "rs1 x%u, expected x%u", in->rs1, e->rs1);
    else if (gi->kind == GK_BRANCH && in->rs2 != e->rs2)
        snprintf(why, sizeof why, "rs2 x%u, expected x%u", in->rs2, e->rs2);
    else if (gi->kind == GK_LOAD && (!(in->flags & RVT_IF_LOAD) || in->mem_size != gi->size))
        snprintf(why, sizeof why, "not a %u-byte load", gi->size);
    else if (gi->kind == GK_STORE && (!(in->flags & RVT_IF_STORE) || in->mem_size != gi->size))
        snprintf(why, sizeof why, "not a %u-byte store", gi->size);
    else if (gi->kind == GK_FLOAD && (!(in->flags & RVT_IF_LOAD) || in->mem_size != gi->size ||
                                      !(in->flags & RVT_IF_FP_RD) || in->rd != e->rd))
        snprintf(why, sizeof why, "not a %u-byte load into f%u", gi->size, e->rd);
    else if (gi->kind == GK_FSTORE && (!(in->flags & RVT_IF_STORE) || in->mem_size != gi->size || in->rs2 != e->rs2))
        snprintf(why, sizeof why, "not a %u-byte store of f%u", gi->size, e->rs2);
    else if (gi->kind == GK_FP && (gi->fpr & FPR_RD) && (!(in->flags & RVT_IF_FP_RD) || in->rd != e->rd))
        snprintf(why, sizeof why, "does not write f%u", e->rd);
    else if (gi->kind == GK_FP && !(gi->fpr & FPR_RD) && e->rd &&
             (!(in->flags & RVT_IF_WRITES_RD) || (in->flags & RVT_IF_FP_RD) || in->rd != e->rd))
        snprintf(why, sizeof why, "does not write x%u", e->rd);
    else if (gi->kind == GK_CSR && !(in->flags & RVT_IF_CSR))
        snprintf(why, sizeof why, "not a CSR instruction");
    else if ((e->op == OP_LUI || e->op == OP_AUIPC) && !(in->flags & RVT_IF_LOADS_CONST))
        snprintf(why, sizeof why, "constant load not flagged");
    else if (gi->kind == GK_ALU && e->rd && !(in->flags & RVT_IF_WRITES_RD))
        snprintf(why, sizeof why, "does not write rd");
    else if (gi->kind == GK_ALU && e->rd && in->rd != e->rd)
        snprintf(why, sizeof why, "rd x%u, expected x%u", in->rd, e->rd);
    else if (e->op == OP_WFI && !(in->flags & RVT_IF_WFI))
        snprintf(why, sizeof why, "wfi not flagged");
    else if (gi->kind == GK_JALR) {
        uint64_t t = 0;
        bool si = prev && rvt_isa_sijump_target(prev, in, xlen, &t);
        if (si != e->sijump)
            snprintf(why, sizeof why, "sequentially inferable %d, expected %d", si, e->sijump);
        else if (si && t != e->sitarget)
            snprintf(why, sizeof why, "inferred target 0x%" PRIx64 ", expected 0x%" PRIx64, t, e->sitarget);
    }
    if (why[0]) {
        char dis[96];
        rvt_isa_disasm(in, xlen, dis, sizeof dis);
        return rvt_fail(b->diag, RVT_ERR_BADINSN,
                        "generator: instruction 0x%0*" PRIx32 " at 0x%" PRIx64 " in %s (%s, %s) disagrees with the "
                        "classifier: %s",
                        e->len == 2 ? 4 : 8, e->bits, pc, f->name, gop_table[e->op].name, dis, why);
    }
    return 0;
}

static int add_symbol(struct rvt_gen_program *p, size_t *cap, size_t *namecap, size_t *namelen, uint64_t addr,
                      uint64_t size, const char *name, bool is_func)
{
    if (!grow((void **)&p->syms, cap, p->nsyms + 1, sizeof *p->syms))
        return -RVT_ERR_NOMEM;
    size_t l = strlen(name) + 1;
    if (!grow((void **)&p->symnames, namecap, *namelen + l, 1))
        return -RVT_ERR_NOMEM;
    memcpy(p->symnames + *namelen, name, l);
    struct rvt_symbol *s = &p->syms[p->nsyms++];
    s->addr = addr;
    s->size = size;
    s->name = (const char *)(uintptr_t)*namelen; /* fixed up once names stop moving */
    s->is_func = is_func;
    *namelen += l;
    return 0;
}

int gb_finish(struct gbuild *b)
{
    struct rvt_gen_program *p = b->p;
    unsigned xlen = b->xlen;
    uint64_t m = xmask(xlen);
    if (b->oom)
        return rvt_fail(b->diag, RVT_ERR_NOMEM, "generator: out of memory");
    if (b->err[0])
        return rvt_fail(b->diag, RVT_ERR_LIMIT, "generator: %s", b->err);

    /* 1. code layout to a fixed point (sizes only grow, so it ends). */
    for (int iter = 0;; iter++) {
        bool changed;
        layout_code(b);
        int r = relax(b, &changed);
        if (r < 0)
            return r;
        if (!changed)
            break;
        if (iter > 64)
            return rvt_fail(b->diag, RVT_ERR_LIMIT, "generator: layout does not converge");
    }

    /* 2. .rodata after .text, RAM after .rodata (one unmapped page between). */
    uint64_t text_end = b->seg_base[SEG_TEXT] + p->seg[SEG_TEXT].memsz;
    uint64_t ro = align_up(text_end, 4096);
    b->seg_base[SEG_RODATA] = ro;
    uint64_t o = 0;
    for (size_t i = 0; i < b->ntables; i++) {
        struct gtable *t = &b->tables[i];
        unsigned esz = t->relative ? 4 : p->regsz;
        o = align_up(o, esz);
        t->addr = ro + o;
        b->label_addr[t->label] = t->addr;
        b->label_defined[t->label] = 1;
        o += (uint64_t)esz * t->n;
    }
    p->seg[SEG_RODATA].memsz = o;
    uint64_t ram = align_up(ro + o, 4096) + 4096;
    b->seg_base[SEG_RAM] = ram;
    /* Everything below the high segment must stay in the window the
     * reachability rules assumed (program.c: LOW_SPAN). */
    if (ram + p->ram.size > b->seg_limit[SEG_RAM] ||
        (p->seg[SEG_HIGH].memsz && ram + p->ram.size > b->seg_base[SEG_HIGH]))
        return rvt_fail(b->diag, RVT_ERR_LIMIT,
                        "generator: program too large (code, tables and RAM end at 0x%" PRIx64 ", limit 0x%" PRIx64 ")",
                        ram + p->ram.size, b->seg_limit[SEG_RAM]);

    /* RAM labels were created with offsets (label_addr holds the offset). */
    for (size_t l = 0; l < b->nlabels; l++)
        if (b->label_frag[l] == UINT32_MAX - 1) {
            b->label_addr[l] += ram;
            b->label_defined[l] = 1;
            b->label_frag[l] = UINT32_MAX - 2; /* resolved */
        }
    p->ram.base = ram;
    p->ram.gp = ram + 0x800;

    /* 3. segment buffers. */
    for (unsigned s = 0; s < SEG__COUNT; s++) {
        p->seg[s].addr = b->seg_base[s];
        uint64_t fs = s == SEG_RAM ? p->ram.globals_size : p->seg[s].memsz;
        p->seg[s].filesz = fs;
        if (s == SEG_RAM)
            p->seg[s].memsz = p->ram.size;
        p->segdata[s] = calloc(fs ? fs : 1, 1);
        if (!p->segdata[s])
            return rvt_fail(b->diag, RVT_ERR_NOMEM, "generator: out of memory");
        p->seg[s].data = p->segdata[s];
    }
    p->seg[SEG_TEXT].name = ".text";
    p->seg[SEG_TEXT].flags = RVT_GEN_SEG_EXEC;
    p->seg[SEG_HIGH].name = ".text.high";
    p->seg[SEG_HIGH].flags = RVT_GEN_SEG_EXEC;
    p->seg[SEG_RODATA].name = ".rodata";
    p->seg[SEG_RODATA].flags = 0;
    p->seg[SEG_RAM].name = ".data";
    p->seg[SEG_RAM].flags = RVT_GEN_SEG_WRITE;

    /* 4. tables. */
    for (size_t i = 0; i < b->ntables; i++) {
        struct gtable *t = &b->tables[i];
        uint8_t *d = p->segdata[SEG_RODATA] + (t->addr - ro);
        for (unsigned k = 0; k < t->n; k++) {
            if (!b->label_defined[t->entries[k]])
                return rvt_fail(b->diag, RVT_ERR_INVAL, "generator: table %s entry %u undefined", t->name, k);
            uint64_t a = b->label_addr[t->entries[k]];
            if (t->relative) {
                int64_t rel = sext((a - t->addr) & m, xlen);
                if (rel < INT32_MIN || rel > INT32_MAX)
                    return rvt_fail(b->diag, RVT_ERR_OVERFLOW, "generator: table %s entry out of 32-bit range",
                                    t->name);
                uint32_t v = (uint32_t)rel;
                for (unsigned j = 0; j < 4; j++)
                    d[4 * k + j] = (uint8_t)(v >> (8 * j));
            } else {
                for (unsigned j = 0; j < p->regsz; j++)
                    d[p->regsz * k + j] = (uint8_t)(a >> (8 * j));
            }
        }
    }

    /* 5. GOT (in the initialised RAM globals). */
    if (b->ngot > (size_t)p->ram.got_max)
        return rvt_fail(b->diag, RVT_ERR_LIMIT, "generator: GOT overflow");
    for (size_t i = 0; i < b->ngot; i++) {
        if (!b->label_defined[b->got[i]])
            return rvt_fail(b->diag, RVT_ERR_INVAL, "generator: GOT entry %zu undefined", i);
        uint64_t a = b->label_addr[b->got[i]];
        uint64_t off = (uint64_t)(0x800 + p->ram.got_off) + i * p->regsz;
        for (unsigned j = 0; j < p->regsz; j++)
            p->segdata[SEG_RAM][off + j] = (uint8_t)(a >> (8 * j));
    }

    /* 6. encode, check against the classifier, build the simulator's tables. */
    size_t total = 0;
    for (size_t i = 0; i < b->nfrags; i++)
        total += b->frags[i]->code.n * 2;
    p->xi = calloc(total ? total : 1, sizeof *p->xi);
    if (!p->xi)
        return rvt_fail(b->diag, RVT_ERR_NOMEM, "generator: out of memory");
    p->nxcode = 0;
    for (unsigned s = SEG_TEXT; s <= SEG_HIGH; s++) {
        if (p->seg[s].memsz == 0)
            continue;
        struct xcode *xc = &p->xcode[p->nxcode++];
        xc->base = b->seg_base[s];
        xc->size = p->seg[s].memsz;
        xc->slot = calloc(xc->size / 2 + 1, sizeof *xc->slot);
        if (!xc->slot)
            return rvt_fail(b->diag, RVT_ERR_NOMEM, "generator: out of memory");
    }
    for (size_t i = 0; i < b->nfrags; i++) {
        const struct gfrag *f = b->frags[i];
        unsigned s = f->seg == SEG_HIGH ? SEG_HIGH : SEG_TEXT;
        struct xcode *xc = NULL;
        for (unsigned k = 0; k < p->nxcode; k++)
            if (p->xcode[k].base == b->seg_base[s])
                xc = &p->xcode[k];
        uint8_t *seg = p->segdata[s];
        /* Padding before the fragment: nops (never executed). */
        uint64_t pc = f->addr;
        uint64_t prev_pc = 0;
        struct rvt_insn prev, cur;
        bool have_prev = false;
        for (size_t k = 0; k < f->code.n; k++) {
            const struct gins *g = &f->code.v[k];
            unsigned sz = item_size(g, pc);
            if (g->flags & GF_LABEL) {
                continue;
            }
            if (g->flags & GF_ALIGN4) {
                if (sz == 2) {
                    seg[pc - b->seg_base[s]] = 0x01; /* c.nop */
                    seg[pc - b->seg_base[s] + 1] = 0x00;
                    struct xinsn *x = &p->xi[p->nxi++];
                    memset(x, 0, sizeof *x);
                    x->op = OP_ADDI;
                    x->len = 2;
                    x->bits = 0x0001;
                    xc->slot[(pc - xc->base) >> 1] = (uint32_t)p->nxi;
                    rvt_isa_decode(0x0001, pc, xlen, &cur);
                    prev = cur;
                    have_prev = true;
                    prev_pc = pc;
                }
                pc += sz;
                continue;
            }
            struct enc_out e[2];
            unsigned ne = 0;
            int r = encode_item(b, f, g, pc, prev_pc, e, &ne);
            if (r < 0)
                return r;
            uint64_t ipc = pc;
            for (unsigned j = 0; j < ne; j++) {
                r = check_insn(b, f, ipc, &e[j], have_prev ? &prev : NULL, &cur);
                if (r < 0)
                    return r;
                uint8_t *d = seg + (ipc - b->seg_base[s]);
                for (unsigned q = 0; q < e[j].len; q++)
                    d[q] = (uint8_t)(e[j].bits >> (8 * q));
                struct xinsn *x = &p->xi[p->nxi++];
                x->imm = e[j].imm;
                x->bits = e[j].bits;
                x->ann = g->ann;
                x->csr = g->csr;
                x->op = e[j].op;
                x->len = (uint8_t)e[j].len;
                x->rd = e[j].rd;
                x->rs1 = e[j].rs1;
                x->rs2 = e[j].rs2;
                xc->slot[(ipc - xc->base) >> 1] = (uint32_t)p->nxi;
                prev = cur;
                have_prev = true;
                prev_pc = ipc;
                ipc += e[j].len;
            }
            pc += sz;
        }
        /* Fill the gap to the next fragment with nops (never executed, but
         * it keeps disassembly readable). */
        uint64_t next = i + 1 < b->nfrags && b->frags[i + 1]->seg == f->seg ? b->frags[i + 1]->addr : pc;
        for (uint64_t a = pc; a + 2 <= next && a - b->seg_base[s] + 2 <= p->seg[s].memsz;) {
            uint8_t *d = seg + (a - b->seg_base[s]);
            if ((a & 3) == 0 && a + 4 <= next) {
                d[0] = 0x13, d[1] = 0, d[2] = 0, d[3] = 0;
                a += 4;
            } else {
                d[0] = 0x01, d[1] = 0;
                a += 2;
            }
        }
    }
    p->code_insns = p->nxi;

    /* 7. symbols. */
    size_t cap = 0, namecap = 0, namelen = 0;
    for (size_t i = 0; i < b->nfrags; i++) {
        const struct gfrag *f = b->frags[i];
        if (f->name[0] && add_symbol(p, &cap, &namecap, &namelen, f->addr, f->size, f->name, f->is_func) < 0)
            return rvt_fail(b->diag, RVT_ERR_NOMEM, "generator: out of memory");
    }
    for (size_t i = 0; i < b->ntables; i++) {
        const struct gtable *t = &b->tables[i];
        if (add_symbol(p, &cap, &namecap, &namelen, t->addr, (uint64_t)t->n * (t->relative ? 4 : p->regsz), t->name,
                       false) < 0)
            return rvt_fail(b->diag, RVT_ERR_NOMEM, "generator: out of memory");
    }
    if (add_symbol(p, &cap, &namecap, &namelen, ram, p->ram.globals_size, "_globals", false) < 0 ||
        add_symbol(p, &cap, &namecap, &namelen, p->ram.gp + (uint64_t)(int64_t)p->ram.got_off,
                   (uint64_t)p->ram.got_max * p->regsz, "_got", false) < 0)
        return rvt_fail(b->diag, RVT_ERR_NOMEM, "generator: out of memory");
    for (size_t i = 0; i < p->nsyms; i++)
        p->syms[i].name = p->symnames + (uintptr_t)p->syms[i].name;

    /* 8. annotations and the segment list. */
    p->ann = b->anns;
    p->nann = b->nanns;
    b->anns = NULL;
    b->nanns = 0;
    p->nseg = 0;
    for (unsigned s = 0; s < SEG__COUNT; s++)
        if (p->seg[s].memsz)
            p->segs_out[p->nseg++] = p->seg[s];
    return 0;
}

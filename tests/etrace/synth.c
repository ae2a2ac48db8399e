/* Test helper: random RISC-V programs and executions (see synth.h). */
#include "synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- assembler ----------------------------------------------------------------- */

void as_init(struct as *a, uint64_t base)
{
    memset(a, 0, sizeof *a);
    a->base = base;
}

void as_free(struct as *a)
{
    free(a->buf);
    a->buf = NULL;
}

uint64_t as_pc(const struct as *a)
{
    return a->base + a->len;
}

static void as_put(struct as *a, const void *p, size_t n)
{
    if (a->len + n > a->cap) {
        a->cap = a->cap ? a->cap * 2 : 4096;
        while (a->len + n > a->cap)
            a->cap *= 2;
        a->buf = realloc(a->buf, a->cap);
        if (!a->buf)
            abort();
    }
    memcpy(a->buf + a->len, p, n);
    a->len += n;
}

void as_u32(struct as *a, uint32_t w)
{
    uint8_t b[4] = {(uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24)};
    as_put(a, b, 4);
}

void as_u16(struct as *a, uint16_t h)
{
    uint8_t b[2] = {(uint8_t)h, (uint8_t)(h >> 8)};
    as_put(a, b, 2);
}

void as_patch32(struct as *a, uint64_t at, uint32_t w)
{
    size_t o = (size_t)(at - a->base);
    a->buf[o] = (uint8_t)w;
    a->buf[o + 1] = (uint8_t)(w >> 8);
    a->buf[o + 2] = (uint8_t)(w >> 16);
    a->buf[o + 3] = (uint8_t)(w >> 24);
}

uint32_t enc_addi(unsigned rd, unsigned rs1, int32_t imm)
{
    return ((uint32_t)imm & 0xfff) << 20 | rs1 << 15 | rd << 7 | 0x13;
}

uint32_t enc_lui(unsigned rd, int32_t imm20)
{
    return ((uint32_t)imm20 & 0xfffff) << 12 | rd << 7 | 0x37;
}

uint32_t enc_auipc(unsigned rd, int32_t imm20)
{
    return ((uint32_t)imm20 & 0xfffff) << 12 | rd << 7 | 0x17;
}

uint32_t enc_jal(unsigned rd, int32_t off)
{
    uint32_t o = (uint32_t)off;
    return ((o >> 20) & 1) << 31 | ((o >> 1) & 0x3ff) << 21 | ((o >> 11) & 1) << 20 | ((o >> 12) & 0xff) << 12 |
           rd << 7 | 0x6f;
}

uint32_t enc_jalr(unsigned rd, unsigned rs1, int32_t imm)
{
    return ((uint32_t)imm & 0xfff) << 20 | rs1 << 15 | rd << 7 | 0x67;
}

uint32_t enc_branch(unsigned funct3, unsigned rs1, unsigned rs2, int32_t off)
{
    uint32_t o = (uint32_t)off;
    return ((o >> 12) & 1) << 31 | ((o >> 5) & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 |
           ((o >> 1) & 0xf) << 8 | ((o >> 11) & 1) << 7 | 0x63;
}

uint16_t enc_c_addi(unsigned rd, int32_t imm)
{
    uint32_t i = (uint32_t)imm;
    return (uint16_t)(((i >> 5) & 1) << 12 | rd << 7 | (i & 0x1f) << 2 | 1);
}

uint16_t enc_c_j(int32_t off)
{
    uint32_t o = (uint32_t)off;
    uint32_t v = ((o >> 11) & 1) << 12 | ((o >> 4) & 1) << 11 | ((o >> 8) & 3) << 9 | ((o >> 10) & 1) << 8 |
                 ((o >> 6) & 1) << 7 | ((o >> 7) & 1) << 6 | ((o >> 1) & 7) << 3 | ((o >> 5) & 1) << 2;
    return (uint16_t)(0xa001 | v);
}

uint16_t enc_c_jr(unsigned rs1)
{
    return (uint16_t)(0x8002 | rs1 << 7);
}

uint16_t enc_c_jalr(unsigned rs1)
{
    return (uint16_t)(0x9002 | rs1 << 7);
}

uint16_t enc_c_beqz(unsigned rs1p, int32_t off)
{
    uint32_t o = (uint32_t)off;
    uint32_t v = ((o >> 8) & 1) << 12 | ((o >> 3) & 3) << 10 | (rs1p & 7) << 7 | ((o >> 6) & 3) << 5 |
                 ((o >> 1) & 3) << 3 | ((o >> 5) & 1) << 2;
    return (uint16_t)(0xc001 | v);
}

/* ---- random numbers ----------------------------------------------------------- */

struct rng {
    uint64_t s;
};

static uint32_t rnd(struct rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 11);
}

static unsigned below(struct rng *r, unsigned n)
{
    return n ? rnd(r) % n : 0;
}

static bool chance(struct rng *r, unsigned per_mille)
{
    return below(r, 1000) < per_mille;
}

/* ---- programs -------------------------------------------------------------------- */

enum kind {
    K_PLAIN,
    K_BRANCH,   /* target = static */
    K_CALL,     /* jal ra: target static */
    K_SCALL,    /* auipc t1 + jalr ra (the jalr; target static) */
    K_ICALL,    /* jalr ra, t2 / c.jalr: target at run time */
    K_IJMP,     /* jalr x0, t0: run time, same function */
    K_SJMP,     /* lui/auipc t0 + jalr x0 (the jalr; target static) */
    K_JMP,      /* jal x0 / c.j */
    K_RET,
    K_ECALL,
    K_MRET,
    K_COSWAP    /* jalr ra, 0(t0): run time function entry */
};

struct info {
    uint8_t kind;
    uint8_t len;
    uint16_t bias;  /* branches: taken probability 1/1000 */
    uint32_t func;  /* function index */
    uint64_t target;
};

struct prog {
    struct as a;
    struct info *inf; /* per halfword from base */
    size_t ninf;
    uint64_t handler;
    unsigned nfuncs;
    uint64_t *fentry;
    uint64_t **bstart; /* [func][block] */
    unsigned nblocks;
    bool *leaf;
};

static struct info *info_at(struct prog *pg, uint64_t pc)
{
    size_t i = (size_t)((pc - pg->a.base) / 2);
    return i < pg->ninf ? &pg->inf[i] : NULL;
}

static void mark(struct prog *pg, uint64_t pc, uint8_t kind, uint8_t len, uint32_t func, uint64_t target,
                 uint16_t bias)
{
    size_t i = (size_t)((pc - pg->a.base) / 2);
    if (i >= pg->ninf) {
        size_t n = pg->ninf ? pg->ninf : 1024;
        while (n <= i)
            n *= 2;
        pg->inf = realloc(pg->inf, n * sizeof *pg->inf);
        if (!pg->inf)
            abort();
        memset(pg->inf + pg->ninf, 0, (n - pg->ninf) * sizeof *pg->inf);
        pg->ninf = n;
    }
    pg->inf[i] = (struct info){kind, len, bias, func, target};
}

struct fixup {
    uint64_t at;
    uint8_t kind; /* 0 branch32, 1 c.beqz, 2 jal, 3 c.j, 4 auipc pair (at = auipc), 5 lui pair */
    uint8_t rd;
    uint32_t func, block; /* target block (block == ~0: function entry) */
    unsigned funct3;
};

static void plain(struct prog *pg, struct rng *r, uint32_t f)
{
    if (chance(r, 450)) {
        uint64_t pc = as_pc(&pg->a);
        as_u16(&pg->a, enc_c_addi(10 + below(r, 6), (int32_t)below(r, 31) + 1));
        mark(pg, pc, K_PLAIN, 2, f, 0, 0);
    } else {
        uint64_t pc = as_pc(&pg->a);
        as_u32(&pg->a, enc_addi(10 + below(r, 6), 10 + below(r, 6), (int32_t)below(r, 2000) - 1000));
        mark(pg, pc, K_PLAIN, 4, f, 0, 0);
    }
}

static void build_prog(struct prog *pg, const struct synth_opts *o, struct rng *r)
{
    memset(pg, 0, sizeof *pg);
    as_init(&pg->a, o->base);
    pg->nfuncs = o->funcs < 2 ? 2 : o->funcs;
    pg->nblocks = o->blocks < 3 ? 3 : o->blocks;
    pg->fentry = calloc(pg->nfuncs, sizeof *pg->fentry);
    pg->bstart = calloc(pg->nfuncs, sizeof *pg->bstart);
    pg->leaf = calloc(pg->nfuncs, sizeof *pg->leaf);
    struct fixup *fx = NULL;
    size_t nfx = 0, capfx = 0;

    /* trap handler: a few instructions, a branch, mret */
    pg->handler = as_pc(&pg->a);
    plain(pg, r, ~0u);
    plain(pg, r, ~0u);
    {
        uint64_t pc = as_pc(&pg->a);
        as_u32(&pg->a, enc_branch(0, 11, 12, 8)); /* skip the next 4-byte instruction */
        mark(pg, pc, K_BRANCH, 4, ~0u, pc + 8, 500);
        uint64_t p2 = as_pc(&pg->a);
        as_u32(&pg->a, enc_addi(13, 13, 1));
        mark(pg, p2, K_PLAIN, 4, ~0u, 0, 0);
        plain(pg, r, ~0u);
        uint64_t pm = as_pc(&pg->a);
        as_u32(&pg->a, ENC_MRET);
        mark(pg, pm, K_MRET, 4, ~0u, 0, 0);
    }

    for (uint32_t f = 0; f < pg->nfuncs; f++) {
        pg->bstart[f] = calloc(pg->nblocks, sizeof(uint64_t));
        pg->leaf[f] = f == pg->nfuncs - 1;
        /* functions start at varied alignment, sometimes far apart */
        if (chance(r, 200))
            for (unsigned k = below(r, 64); k; k--)
                plain(pg, r, ~0u);
        pg->fentry[f] = as_pc(&pg->a);
        for (uint32_t b = 0; b < pg->nblocks; b++) {
            pg->bstart[f][b] = as_pc(&pg->a);
            unsigned n = 1 + below(r, 5);
            for (unsigned i = 0; i < n; i++) {
                if (o->ecalls && f != 0 && chance(r, 20)) {
                    uint64_t pc = as_pc(&pg->a);
                    as_u32(&pg->a, ENC_ECALL);
                    mark(pg, pc, K_ECALL, 4, f, 0, 0);
                } else {
                    plain(pg, r, f);
                }
            }
            bool last = b == pg->nblocks - 1;
            unsigned t = below(r, 100);
            if (last)
                t = 99;
            uint64_t pc = as_pc(&pg->a);
            if (nfx + 2 >= capfx) {
                capfx = capfx ? capfx * 2 : 256;
                fx = realloc(fx, capfx * sizeof *fx);
            }
            bool leaf = pg->leaf[f];
            if (t < 35) { /* conditional branch within the function */
                uint32_t tb = below(r, pg->nblocks);
                uint16_t bias = (uint16_t)(chance(r, 400) ? 500 : chance(r, 500) ? 80 : 920);
                if (chance(r, 300)) {
                    as_u16(&pg->a, 0);
                    mark(pg, pc, K_BRANCH, 2, f, 0, bias);
                    fx[nfx++] = (struct fixup){pc, 1, 0, f, tb, 0};
                } else {
                    as_u32(&pg->a, 0);
                    mark(pg, pc, K_BRANCH, 4, f, 0, bias);
                    fx[nfx++] = (struct fixup){pc, 0, 0, f, tb, below(r, 2)};
                }
            } else if (t < 50 && !leaf) { /* inferable call to a later function */
                uint32_t tf = f + 1 + below(r, pg->nfuncs - f - 1);
                as_u32(&pg->a, 0);
                mark(pg, pc, K_CALL, 4, f, 0, 0);
                fx[nfx++] = (struct fixup){pc, 2, 1, tf, ~0u, 0};
            } else if (t < 56 && !leaf) { /* auipc + jalr ra: sequentially inferable call */
                uint32_t tf = f + 1 + below(r, pg->nfuncs - f - 1);
                as_u32(&pg->a, 0);
                mark(pg, pc, K_PLAIN, 4, f, 0, 0);
                as_u32(&pg->a, 0);
                mark(pg, pc + 4, K_SCALL, 4, f, 0, 0);
                fx[nfx++] = (struct fixup){pc, 4, 1, tf, ~0u, 0};
            } else if (t < 64 && !leaf) { /* indirect call */
                if (chance(r, 400)) {
                    as_u16(&pg->a, enc_c_jalr(7));
                    mark(pg, pc, K_ICALL, 2, f, 0, 0);
                } else {
                    as_u32(&pg->a, enc_jalr(1, 7, 0));
                    mark(pg, pc, K_ICALL, 4, f, 0, 0);
                }
            } else if (t < 65 && !leaf) { /* co-routine swap */
                as_u32(&pg->a, enc_jalr(1, 5, 0));
                mark(pg, pc, K_COSWAP, 4, f, 0, 0);
            } else if (t < 72 && !last) { /* indirect jump within the function */
                if (chance(r, 400)) {
                    as_u16(&pg->a, enc_c_jr(6));
                    mark(pg, pc, K_IJMP, 2, f, 0, 0);
                } else {
                    as_u32(&pg->a, enc_jalr(0, 6, 0));
                    mark(pg, pc, K_IJMP, 4, f, 0, 0);
                }
            } else if (t < 77 && !last) { /* lui/auipc + jalr x0: sequentially inferable jump */
                uint32_t tb = below(r, pg->nblocks);
                as_u32(&pg->a, 0);
                mark(pg, pc, K_PLAIN, 4, f, 0, 0);
                as_u32(&pg->a, 0);
                mark(pg, pc + 4, K_SJMP, 4, f, 0, 0);
                fx[nfx++] = (struct fixup){pc, (uint8_t)(o->xlen == 32 && chance(r, 300) ? 5 : 4), 0, f, tb, 0};
            } else if (t < 85 && !last) { /* direct jump forward in the function */
                uint32_t tb = b + 1 + below(r, pg->nblocks - b - 1);
                if (chance(r, 400)) {
                    as_u16(&pg->a, 0);
                    mark(pg, pc, K_JMP, 2, f, 0, 0);
                    fx[nfx++] = (struct fixup){pc, 3, 0, f, tb, 0};
                } else {
                    as_u32(&pg->a, 0);
                    mark(pg, pc, K_JMP, 4, f, 0, 0);
                    fx[nfx++] = (struct fixup){pc, 2, 0, f, tb, 0};
                }
            } else if (t < 92 && !last) {
                plain(pg, r, f); /* falls through */
            } else { /* return */
                if (chance(r, 500)) {
                    as_u16(&pg->a, enc_c_jr(1));
                    mark(pg, pc, K_RET, 2, f, 0, 0);
                } else {
                    as_u32(&pg->a, enc_jalr(0, 1, 0));
                    mark(pg, pc, K_RET, 4, f, 0, 0);
                }
            }
        }
    }
    /* resolve targets */
    for (size_t i = 0; i < nfx; i++) {
        struct fixup *x = &fx[i];
        uint64_t t = x->block == ~0u ? pg->fentry[x->func] : pg->bstart[x->func][x->block];
        int64_t off = (int64_t)(t - x->at);
        struct info *in = info_at(pg, x->at);
        switch (x->kind) {
        case 0:
            if (off < -4096 || off >= 4096) { /* out of reach: branch to the next instruction */
                t = x->at + 4;
                off = 4;
            }
            as_patch32(&pg->a, x->at, enc_branch(x->funct3, 10 + x->funct3, 11, (int32_t)off));
            in->target = t;
            break;
        case 1:
            if (off < -256 || off >= 256) {
                t = x->at + 2;
                off = 2;
            }
            {
                size_t o2 = (size_t)(x->at - pg->a.base);
                uint16_t h = enc_c_beqz(2, (int32_t)off); /* x10 */
                pg->a.buf[o2] = (uint8_t)h;
                pg->a.buf[o2 + 1] = (uint8_t)(h >> 8);
            }
            in->target = t;
            break;
        case 2:
            as_patch32(&pg->a, x->at, enc_jal(x->rd, (int32_t)off));
            in->target = t;
            break;
        case 3:
            if (off < -2048 || off >= 2048) { /* c.j reach: use the next instruction */
                t = x->at + 2;
                off = 2;
            }
            {
                size_t o2 = (size_t)(x->at - pg->a.base);
                uint16_t h = enc_c_j((int32_t)off);
                pg->a.buf[o2] = (uint8_t)h;
                pg->a.buf[o2 + 1] = (uint8_t)(h >> 8);
            }
            in->target = t;
            break;
        case 4:
        case 5: { /* pair: auipc/lui reg ; jalr rd, lo(reg) */
            unsigned reg = x->rd == 1 ? 6 : 7; /* not x5: jalr x0, x5 is a return */
            int64_t v = x->kind == 4 ? off : (int64_t)t;
            int32_t hi = (int32_t)((v + 0x800) >> 12), lo = (int32_t)(v - ((int64_t)hi << 12));
            as_patch32(&pg->a, x->at, x->kind == 4 ? enc_auipc(reg, hi) : enc_lui(reg, hi));
            as_patch32(&pg->a, x->at + 4, enc_jalr(x->rd, reg, lo));
            info_at(pg, x->at + 4)->target = t;
            break;
        }
        }
    }
    free(fx);
}

static void free_prog(struct prog *pg)
{
    for (unsigned f = 0; f < pg->nfuncs; f++)
        free(pg->bstart[f]);
    free(pg->bstart);
    free(pg->fentry);
    free(pg->leaf);
    free(pg->inf);
    as_free(&pg->a);
}

/* ---- executions ---------------------------------------------------------------- */

struct frame {
    uint64_t resume;
    uint8_t priv;
};

static int emit(void *ctx, const struct rvt_ing_rec *r)
{
    struct synth *s = ctx;
    if (s->nrecs == s->caprecs) {
        s->caprecs = s->caprecs ? s->caprecs * 2 : 4096;
        s->recs = realloc(s->recs, s->caprecs * sizeof *s->recs);
        if (!s->recs)
            abort();
    }
    s->recs[s->nrecs++] = *r;
    return 0;
}

static void add_pc(struct synth *s, uint64_t pc, uint8_t priv)
{
    if (s->npcs == s->cappcs) {
        s->cappcs = s->cappcs ? s->cappcs * 2 : 4096;
        s->pcs = realloc(s->pcs, s->cappcs * sizeof *s->pcs);
        s->privs = realloc(s->privs, s->cappcs);
        if (!s->pcs || !s->privs)
            abort();
    }
    s->privs[s->npcs] = priv;
    s->pcs[s->npcs++] = pc;
}

void synth_default(struct synth_opts *o, unsigned seed, unsigned xlen)
{
    memset(o, 0, sizeof *o);
    o->xlen = xlen;
    o->base = xlen == 32 ? 0x20010000u : 0x80000000u;
    o->funcs = 12;
    o->blocks = 10;
    o->insns = 20000;
    o->seed = seed;
    o->p_interrupt = 3;
    o->p_fault = 2;
    o->p_mismatch = 30;
    o->p_context = 1;
    o->p_ctx_imprecise = 300;
    o->max_depth = 40;
    o->ecalls = true;
    o->privilege = true;
}

int synth_run(struct synth *s, const struct synth_opts *o)
{
    memset(s, 0, sizeof *s);
    struct rng r = {0x9e3779b97f4a7c15ull ^ ((uint64_t)o->seed * 0x100000001b3ull)};
    if (!r.s)
        r.s = 1;
    struct prog pg;
    build_prog(&pg, o, &r);
    s->img = rvt_img_new();
    rvt_img_set_xlen(s->img, o->xlen);
    if (rvt_img_add_raw(s->img, pg.a.base, pg.a.buf, pg.a.len, "synth") < 0) {
        fprintf(stderr, "synth: %s\n", rvt_img_error(s->img));
        free_prog(&pg);
        return -1;
    }
    struct rvt_ing_builder_config bc = {.size = sizeof bc,
                                        .image = s->img,
                                        .xlen = o->xlen,
                                        .ecall_mode = RVT_ECALL_SEQUENTIAL,
                                        .merge_blocks = o->merge_blocks,
                                        .emit = emit,
                                        .emit_ctx = s};
    struct rvt_ing_builder *b = rvt_ing_builder_new(&bc);
    uint64_t pc = pg.fentry[0];
    uint8_t priv = o->privilege ? RVT_PRIV_U : RVT_PRIV_M;
    uint64_t context = 0, time = 1000;
    struct frame frames[8];
    unsigned nframes = 0;
    uint64_t *stack = NULL;
    size_t depth = 0, capstack = 0;
    int rc = 0;
    uint64_t mask = o->xlen == 32 ? 0xffffffffull : ~0ull;

    for (uint64_t n = 0; n < o->insns && rc >= 0;) {
        struct info *in = info_at(&pg, pc);
        if (!in || !in->len) {
            fprintf(stderr, "synth: no instruction at 0x%llx\n", (unsigned long long)pc);
            rc = -1;
            break;
        }
        bool in_handler = in->func == ~0u;
        /* interrupt before this instruction (nested in the handler too) */
        if (nframes < 6 && chance(&r, o->p_interrupt)) {
            rc = rvt_ing_builder_trap(b, true, 7, 0, pc);
            frames[nframes++] = (struct frame){pc, priv};
            pc = pg.handler;
            priv = RVT_PRIV_M;
            continue;
        }
        /* exception: the instruction does not retire */
        /* (faults only on plain instructions: the handler resumes after them) */
        if (nframes < 6 && (in->kind == K_ECALL || (!in_handler && in->kind == K_PLAIN && chance(&r, o->p_fault)))) {
            bool ec = in->kind == K_ECALL;
            uint32_t cause = ec ? (priv == RVT_PRIV_U ? 8 : 11) : 5;
            rc = rvt_ing_builder_trap(b, false, cause, ec ? 0 : (0x1000 + below(&r, 0x10000)), pc);
            frames[nframes++] = (struct frame){(pc + in->len) & mask, priv};
            pc = pg.handler;
            priv = RVT_PRIV_M;
            continue;
        }
        if (chance(&r, o->p_context)) {
            context = below(&r, 16);
            rvt_ing_builder_set_ctype(b, chance(&r, o->p_ctx_imprecise) ? RVT_CTYPE_IMPRECISE : RVT_CTYPE_PRECISE);
        }
        struct rvt_ing_extra ex;
        memset(&ex, 0, sizeof ex);
        if (o->with_time) {
            time += 1 + below(&r, 3);
            ex.flags = RVT_ING_HAS_TIME;
            ex.time = time;
        }
        rc = rvt_ing_builder_insn(b, pc, -1, priv, context, o->with_time ? &ex : NULL);
        if (rc < 0)
            break;
        add_pc(s, pc, priv);
        n++;
        uint64_t next = (pc + in->len) & mask;
        switch (in->kind) {
        case K_BRANCH:
            if (chance(&r, in->bias))
                next = in->target;
            break;
        case K_CALL:
        case K_SCALL:
        case K_ICALL:
        case K_COSWAP: {
            uint64_t t = in->target;
            if (in->kind == K_ICALL || in->kind == K_COSWAP) {
                uint32_t tf = depth >= o->max_depth ? pg.nfuncs - 1 : below(&r, pg.nfuncs);
                t = pg.fentry[tf];
            }
            if (depth == capstack) {
                capstack = capstack ? capstack * 2 : 64;
                stack = realloc(stack, capstack * sizeof *stack);
            }
            stack[depth++] = next;
            next = t;
            break;
        }
        case K_IJMP:
            next = pg.bstart[in->func][below(&r, pg.nblocks)];
            break;
        case K_SJMP:
        case K_JMP:
            next = in->target;
            break;
        case K_RET:
            if (depth)
                next = stack[--depth];
            else
                next = pg.fentry[0];
            if (chance(&r, o->p_mismatch)) {
                uint32_t tf = below(&r, pg.nfuncs);
                next = pg.bstart[tf][below(&r, pg.nblocks)];
            }
            break;
        case K_MRET:
            if (nframes) {
                next = frames[nframes - 1].resume;
                priv = frames[nframes - 1].priv;
                nframes--;
            } else {
                next = pg.fentry[0];
                priv = o->privilege ? RVT_PRIV_U : RVT_PRIV_M;
            }
            break;
        default:
            break;
        }
        pc = next;
    }
    if (rc >= 0)
        rc = rvt_ing_builder_finish(b);
    if (rc < 0)
        fprintf(stderr, "synth: %s\n", rvt_ing_builder_error(b));
    rvt_ing_builder_free(b);
    free(stack);
    free_prog(&pg);
    /* some records retire in the same cycle as the one before */
    if (o->same_cycle)
        for (size_t i = 1; i < s->nrecs; i++)
            if (s->recs[i].iretire && s->recs[i - 1].iretire && (i * 2654435761u) % 3 == 0)
                s->recs[i].flags |= RVT_ING_SAME_CYCLE;
    return rc < 0 ? -1 : 0;
}

void synth_free(struct synth *s)
{
    rvt_img_free(s->img);
    free(s->recs);
    free(s->pcs);
    free(s->privs);
    memset(s, 0, sizeof *s);
}

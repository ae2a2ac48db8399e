/* The branch predictor and the jump target cache (branchTrace.adoc
 * "Branch prediction mode", "Jump target cache mode").  Encoder and decoder
 * run identical copies, so both live here. */
#include "etrace/etrace.h"

#include <stdlib.h>
#include <string.h>

/* 2-bit states: MSB = predicted outcome, LSB = most recent actual outcome. */
enum { BP_NT_STRONG = 0, BP_NT_WEAK = 1, BP_T_WEAK = 2, BP_T_STRONG = 3 };

int et_bpred_init(struct et_bpred *bp, unsigned size_p, unsigned shift)
{
    memset(bp, 0, sizeof *bp);
    if (size_p == 0)
        return 0;
    bp->state = malloc((size_t)1 << size_p);
    if (!bp->state)
        return -RVT_ERR_NOMEM;
    bp->bits = size_p;
    bp->shift = shift;
    et_bpred_reset(bp);
    return 0;
}

void et_bpred_free(struct et_bpred *bp)
{
    free(bp->state);
    bp->state = NULL;
}

void et_bpred_reset(struct et_bpred *bp)
{
    if (bp->state)
        memset(bp->state, BP_NT_WEAK, (size_t)1 << bp->bits); /* "initialized to 01" */
}

static inline size_t bp_index(const struct et_bpred *bp, uint64_t addr)
{
    return (size_t)((addr >> bp->shift) & (((uint64_t)1 << bp->bits) - 1));
}

bool et_bpred_predict(const struct et_bpred *bp, uint64_t addr)
{
    return (bp->state[bp_index(bp, addr)] >> 1) & 1u;
}

void et_bpred_update(struct et_bpred *bp, uint64_t addr, bool taken)
{
    uint8_t *s = &bp->state[bp_index(bp, addr)];
    bool ok = (((*s >> 1) & 1u) != 0) == taken;
    switch (*s) {
    case BP_NT_STRONG: /* 00: to 01 if the prediction fails */
        *s = ok ? BP_NT_STRONG : BP_NT_WEAK;
        break;
    case BP_NT_WEAK: /* 01: to 00 on success, else 11 */
        *s = ok ? BP_NT_STRONG : BP_T_STRONG;
        break;
    case BP_T_STRONG: /* 11: to 10 if the prediction fails */
        *s = ok ? BP_T_STRONG : BP_T_WEAK;
        break;
    default: /* 10: to 11 on success, else 00 */
        *s = ok ? BP_T_STRONG : BP_NT_STRONG;
        break;
    }
}

int et_jtc_init(struct et_jtc *c, unsigned size_p, unsigned shift)
{
    memset(c, 0, sizeof *c);
    if (size_p == 0)
        return 0;
    size_t n = (size_t)1 << size_p;
    c->entry = calloc(n, sizeof *c->entry);
    c->valid = calloc(n, 1);
    if (!c->entry || !c->valid) {
        et_jtc_free(c);
        return -RVT_ERR_NOMEM;
    }
    c->bits = size_p;
    c->shift = shift;
    return 0;
}

void et_jtc_free(struct et_jtc *c)
{
    free(c->entry);
    free(c->valid);
    c->entry = NULL;
    c->valid = NULL;
}

void et_jtc_reset(struct et_jtc *c)
{
    if (c->valid)
        memset(c->valid, 0, (size_t)1 << c->bits);
}

unsigned et_jtc_index(const struct et_jtc *c, uint64_t addr)
{
    return (unsigned)((addr >> c->shift) & (((uint64_t)1 << c->bits) - 1));
}

bool et_jtc_lookup_update(struct et_jtc *c, uint64_t addr, unsigned *index)
{
    unsigned i = et_jtc_index(c, addr);
    *index = i;
    if (c->valid[i] && c->entry[i] == addr)
        return true;
    c->entry[i] = addr;
    c->valid[i] = 1;
    return false;
}

bool et_jtc_get(const struct et_jtc *c, unsigned index, uint64_t *addr)
{
    if (!c->valid || index >= (1u << c->bits) || !c->valid[index])
        return false;
    *addr = c->entry[index];
    return true;
}

/* The ideal decoder: drives the flow engine from ingress records, as if a
 * trace reported every record exactly.  `rvtrace check` runs it to prove an
 * ingress stream consistent with the program, and tests use it as the
 * reference that every family's decoder must match. */
#include "rvtrace/flow.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct rvt_ingflow {
    struct rvt_flow *f;
    struct rvt_diag diag;
    uint64_t rec;          /* index of the record being applied */
    bool pend_insn;        /* the previous record's last instruction awaits its successor */
    uint8_t pend_itype;
    bool trap_pending;     /* a trap record awaits the handler address */
    bool trap_int;
    uint32_t cause;
    uint64_t tval;
    bool started;
};

struct rvt_ingflow *rvt_ingflow_new(struct rvt_flow *f)
{
    struct rvt_ingflow *x = calloc(1, sizeof *x);
    if (x)
        x->f = f;
    return x;
}

void rvt_ingflow_free(struct rvt_ingflow *x)
{
    free(x);
}

const char *rvt_ingflow_error(const struct rvt_ingflow *x)
{
    return x->diag.msg;
}

#define CHECKED(call)                                                                             \
    do {                                                                                          \
        int rc_ = (call);                                                                         \
        if (rc_ < 0) {                                                                            \
            rvt_fail(&x->diag, (enum rvt_err)-rc_, "record %" PRIu64 ": %s", x->rec,              \
                     rvt_flow_error(x->f));                                                       \
            return rc_;                                                                           \
        }                                                                                         \
    } while (0)

/* The previous record's last instruction went to `next`. */
static int resolve(struct rvt_ingflow *x, uint64_t next)
{
    if (!x->pend_insn)
        return 0;
    x->pend_insn = false;
    switch (x->pend_itype) {
    case RVT_ITYPE_NOT_TAKEN:
        CHECKED(rvt_flow_branch(x->f, false));
        break;
    case RVT_ITYPE_TAKEN:
        CHECKED(rvt_flow_branch(x->f, true));
        break;
    case RVT_ITYPE_NONE:
    case RVT_ITYPE_CALL_INF:
    case RVT_ITYPE_JUMP_INF:
    case RVT_ITYPE_OTHER_INF:
        CHECKED(rvt_flow_continue(x->f));
        break;
    default:
        CHECKED(rvt_flow_jump(x->f, next));
        break;
    }
    return 0;
}

static bool itype_matches(uint8_t itype, uint8_t cf)
{
    switch (itype) {
    case RVT_ITYPE_NONE: /* 3-bit itype also reports inferable calls as 0 */
        return cf == RVT_CF_NONE || cf == RVT_CF_ECALL || cf == RVT_CF_EBREAK || rvt_cf_inferable_jump(cf);
    case RVT_ITYPE_NOT_TAKEN:
    case RVT_ITYPE_TAKEN:
        return cf == RVT_CF_BRANCH;
    case RVT_ITYPE_UNINF_JUMP3:
        return rvt_cf_uninferable(cf) && cf != RVT_CF_TRAPRET;
    case RVT_ITYPE_CALL_UNINF:
        return cf == itype || cf == RVT_CF_ECALL || cf == RVT_CF_EBREAK;
    default:
        return cf == itype;
    }
}

int rvt_ingflow_put(struct rvt_ingflow *x, const struct rvt_ing_rec *r)
{
    struct rvt_flow *f = x->f;
    rvt_flow_set_offset(f, x->rec);
    int rc;
    if (r->iretire == 0) {
        if (r->itype != RVT_ITYPE_EXCEPTION && r->itype != RVT_ITYPE_INTERRUPT)
            return rvt_fail(&x->diag, RVT_ERR_FORMAT, "record %" PRIu64 ": retires nothing but is not a trap (itype %u)",
                            x->rec, r->itype);
        if ((rc = resolve(x, r->iaddr)) < 0)
            return rc;
        if (x->trap_pending) /* nested: the handler's first instruction trapped */
            CHECKED(rvt_flow_trap(f, x->trap_int, x->cause, x->tval, true, r->iaddr));
        if (r->itype == RVT_ITYPE_EXCEPTION && rvt_flow_have_pc(f) && rvt_flow_pc(f) != r->iaddr)
            return rvt_fail(&x->diag, RVT_ERR_MISMATCH,
                            "record %" PRIu64 ": exception at epc 0x%" PRIx64 " but execution is at 0x%" PRIx64,
                            x->rec, r->iaddr, rvt_flow_pc(f));
        x->trap_pending = true;
        x->trap_int = r->itype == RVT_ITYPE_INTERRUPT;
        x->cause = r->cause;
        x->tval = r->tval;
        x->started = true;
        x->rec++;
        return 0;
    }
    if ((rc = resolve(x, r->iaddr)) < 0)
        return rc;
    if (x->trap_pending) {
        x->trap_pending = false;
        CHECKED(rvt_flow_trap(f, x->trap_int, x->cause, x->tval, true, r->iaddr));
    }
    if (!rvt_flow_have_pc(f)) {
        CHECKED(rvt_flow_sync(f, r->iaddr, r->priv, r->context, true));
    } else if (rvt_flow_pc(f) != r->iaddr) {
        return rvt_fail(&x->diag, RVT_ERR_MISMATCH,
                        "record %" PRIu64 ": block starts at 0x%" PRIx64 " but execution continues at 0x%" PRIx64,
                        x->rec, r->iaddr, rvt_flow_pc(f));
    }
    CHECKED(rvt_flow_set_context(f, r->priv, r->context));
    if (r->flags & RVT_ING_HAS_TIME)
        rvt_flow_set_time(f, r->time);
    x->started = true;

    /* Every instruction but the last is sequential; the last has the itype. */
    struct rvt_walk w = {.flags = RVT_WALK_HALFWORDS | RVT_WALK_STOP_BRANCH | RVT_WALK_STOP_JUMP,
                         .halfwords = r->iretire};
    struct rvt_stop st;
    CHECKED(rvt_flow_walk(f, &w, &st));
    if (st.reason != RVT_STOP_COUNT || st.halfwords != r->iretire) {
        return rvt_fail(&x->diag, RVT_ERR_MISMATCH,
                        "record %" PRIu64 ": block at 0x%" PRIx64 " retires %" PRIu32 " halfwords, but the %s at 0x%" PRIx64
                        " after %" PRIu64 " halfwords ends it",
                        x->rec, r->iaddr, r->iretire,
                        st.reason == RVT_STOP_TRAPINSN ? "environment call" : rvt_cf_name(st.cf),
                        st.reason == RVT_STOP_TRAPINSN ? st.pc : st.last, st.halfwords);
    }
    uint64_t last = rvt_ing_last_addr(r);
    if (st.last != (last & (rvt_flow_xlen(f) == 32 ? 0xffffffffull : ~0ull)))
        return rvt_fail(&x->diag, RVT_ERR_MISMATCH,
                        "record %" PRIu64 ": last instruction at 0x%" PRIx64 " (ilastsize %u) but the code's is at 0x%" PRIx64,
                        x->rec, last, r->ilastsize, st.last);
    if (!itype_matches(r->itype, st.cf))
        return rvt_fail(&x->diag, RVT_ERR_MISMATCH,
                        "record %" PRIu64 ": itype %u for the instruction at 0x%" PRIx64 ", which is a %s",
                        x->rec, r->itype, st.last, rvt_cf_name(st.cf));
    x->pend_insn = true;
    x->pend_itype = r->itype;
    x->rec++;
    return 0;
}

int rvt_ingflow_finish(struct rvt_ingflow *x)
{
    CHECKED(rvt_flow_finish(x->f));
    return 0;
}

int rvt_ingflow_run(struct rvt_ing_reader *in, const struct rvt_flow_config *cfg,
                    struct rvt_flow_sink (*sink_of)(void *ctx, unsigned hart),
                    void (*after)(void *ctx, unsigned hart, const struct rvt_ing_rec *r, const struct rvt_flow *f),
                    void *ctx, struct rvt_diag *d)
{
    struct rvt_flow *flow[RVT_INGFLOW_MAX_HARTS] = {0};
    struct rvt_ingflow *x[RVT_INGFLOW_MAX_HARTS] = {0};
    unsigned harts = 0; /* harts seen */
    struct rvt_ing_rec r;
    uint64_t n = 0;
    int rc;
    while ((rc = rvt_ing_next(in, &r)) > 0) {
        const unsigned h = r.hart;
        if (h >= RVT_INGFLOW_MAX_HARTS) {
            rc = rvt_fail(d, RVT_ERR_UNSUPPORTED, "record %" PRIu64 ": hart %u (at most %d harts are followed)", n, h,
                          RVT_INGFLOW_MAX_HARTS);
            goto out;
        }
        if (!x[h]) {
            struct rvt_flow_config fc = *cfg;
            if (sink_of)
                fc.sink = sink_of(ctx, h);
            flow[h] = rvt_flow_new(&fc);
            x[h] = flow[h] ? rvt_ingflow_new(flow[h]) : NULL;
            if (!x[h]) {
                rc = rvt_fail(d, RVT_ERR_NOMEM, "cannot create the flow engine for hart %u", h);
                goto out;
            }
            harts++;
        }
        if ((rc = rvt_ingflow_put(x[h], &r)) < 0) {
            /* (the engine counts its hart's own records) */
            if (harts > 1)
                rvt_fail(d, (enum rvt_err)-rc, "hart %u: %s (the input's record %" PRIu64 ")", h,
                         rvt_ingflow_error(x[h]), n);
            else
                rvt_fail(d, (enum rvt_err)-rc, "%s", rvt_ingflow_error(x[h]));
            goto out;
        }
        if (after)
            after(ctx, h, &r, flow[h]);
        n++;
    }
    if (rc < 0) {
        rvt_fail(d, (enum rvt_err)-rc, "%s", rvt_ing_error(in));
        goto out;
    }
    for (unsigned h = 0; h < RVT_INGFLOW_MAX_HARTS; h++) {
        if (!x[h])
            continue;
        if ((rc = rvt_ingflow_finish(x[h])) < 0) {
            if (harts > 1)
                rvt_fail(d, (enum rvt_err)-rc, "hart %u: %s", h, rvt_ingflow_error(x[h]));
            else
                rvt_fail(d, (enum rvt_err)-rc, "%s", rvt_ingflow_error(x[h]));
            goto out;
        }
        if (after)
            after(ctx, h, NULL, flow[h]);
    }
    rc = 0;
out:
    for (unsigned h = 0; h < RVT_INGFLOW_MAX_HARTS; h++) {
        rvt_ingflow_free(x[h]);
        rvt_flow_free(flow[h]);
    }
    return rc;
}

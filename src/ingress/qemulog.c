/* rvtrace capture --system: QEMU system-emulation log -> ingress records
 * (see capture_sys.h; the plugin's lines are described in
 * tools/qemu/rvtrace-qemu-sys.c).
 *
 * Per hart, the log gives the sequence of translated blocks it started
 * (X/x lines), how many of each block's instructions began executing (the
 * count on the next X or @E line; an x line implies the whole block), each
 * block's privilege level (in_asm's Priv line) and the traps QEMU took
 * (trap lines).  Every instruction whose execution began retired, except
 * the last one before a trap or a re-execution:
 *   - a synchronous trap whose epc is that instruction: it faulted;
 *   - an interrupt whose epc is that instruction, which cannot jump to
 *     itself: QEMU abandoned it (an I/O access it restarts) and the
 *     interrupt came first;
 *   - the next block starts at that instruction, which cannot jump to
 *     itself and accesses memory: QEMU restarts it (cpu_io_recompile, or a
 *     store into translated code).
 *
 * The plugin writes block entries in batches, so a trap line is only known
 * to lie in a window: after the hart's last entry written before it and
 * before the hart's first non-static (X) entry written after it.  The
 * hart's entries are held until that X entry; then the traps are placed at
 * the window's block boundaries so that each fits its boundary (epc and
 * the code around it) and every boundary the code cannot explain has one,
 * and exactly one such placement must exist (close_window).  Everything
 * else follows from the code: the ingress builder checks every step, so an
 * unexplained discontinuity is an error with its log line and addresses. */
#include "qemulog.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QSYS_MAX_LINE (1u << 20)
#define TRAP_LINE "riscv_cpu_do_interrupt: "

struct qins {
    uint64_t pc;
    uint32_t bits;
};

struct qtb {
    uint64_t pc0;
    size_t first; /* index of its first instruction in qsys.ins */
    uint32_t n;
    int8_t priv;  /* enum rvt_priv, -1 until its in_asm Priv line */
};

struct qtrap {
    uint64_t cause, epc, tval, line;
    size_t win;  /* the hart's held entries when the trap line came */
    size_t at;   /* the block boundary it was placed at */
    bool async;
};

/* A block entry (X or x line). */
struct qentry {
    uint64_t id, count, line;
    bool has_count, is_static;
};

struct qsys;
struct qhart {
    struct qsys *q;
    unsigned index;
    struct rvt_ing_builder *b;
    int64_t cur;       /* block executing, -1 before the first */
    bool ended;
    struct qtrap *pend; /* traps whose window is open */
    size_t npend, cappend;
    struct qentry *held; /* entries after `cur` while a window is open */
    size_t nheld, capheld;
    int last_priv;
    struct qsys_hart_stats st;
};

struct qsys {
    struct qsys_config cfg;
    struct rvt_diag diag;
    unsigned xlen;
    uint64_t mask;
    unsigned nharts;
    bool have_header, stopped, flush_each;
    struct qtb *tbs;
    size_t ntbs, captbs;
    struct qins *ins;
    size_t nins, capins;
    int64_t await_priv, await_addr; /* block whose in_asm text is expected */
    struct qhart hart[QSYS_MAX_HARTS];
    char *lbuf;
    size_t llen, lcap;
    uint64_t line;
    uint64_t insns, records, executed;
};

static int qfail(struct qsys *q, enum rvt_err code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int qfail(struct qsys *q, enum rvt_err code, const char *fmt, ...)
{
    if (q->diag.code)
        return -q->diag.code;
    char msg[440];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rvt_fail(&q->diag, code, "log line %" PRIu64 ": %s", q->line, msg);
}

static int emit_record(void *ctx, const struct rvt_ing_rec *rec)
{
    struct qhart *h = ctx;
    struct qsys *q = h->q;
    struct rvt_ing_rec r = *rec;
    r.hart = (uint16_t)h->index;
    h->st.records++;
    q->records++;
    switch (r.itype) {
    case RVT_ITYPE_EXCEPTION:
        h->st.exceptions++;
        if (r.cause < 32)
            h->st.exc_causes |= 1u << r.cause;
        break;
    case RVT_ITYPE_INTERRUPT:
        h->st.interrupts++;
        if (r.cause < 32)
            h->st.int_causes |= 1u << r.cause;
        break;
    case RVT_ITYPE_TRAPRET:
        h->st.trap_returns++;
        break;
    default:
        break;
    }
    return q->cfg.emit(q->cfg.ctx, &r);
}

struct qsys *qsys_new(const struct qsys_config *cfg)
{
    if (!cfg || cfg->size < sizeof *cfg || !cfg->emit)
        return NULL;
    struct qsys *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->cfg = *cfg;
    q->await_priv = q->await_addr = -1;
    return q;
}

void qsys_free(struct qsys *q)
{
    if (!q)
        return;
    for (unsigned i = 0; i < q->nharts; i++) {
        rvt_ing_builder_free(q->hart[i].b);
        free(q->hart[i].pend);
        free(q->hart[i].held);
    }
    free(q->tbs);
    free(q->ins);
    free(q->lbuf);
    free(q);
}

const char *qsys_error(const struct qsys *q)
{
    return q->diag.msg;
}

bool qsys_has_header(const struct qsys *q)
{
    return q->have_header;
}

void qsys_get_stats(const struct qsys *q, struct qsys_stats *st)
{
    memset(st, 0, sizeof *st);
    st->xlen = q->xlen;
    st->harts = q->nharts;
    st->insns = q->insns;
    st->records = q->records;
    st->lines = q->line;
    st->blocks_translated = q->ntbs;
    st->blocks_executed = q->executed;
    st->limit_reached = q->stopped;
    for (unsigned i = 0; i < q->nharts; i++)
        st->hart[i] = q->hart[i].st;
}

int qsys_code_foreach(const struct qsys *q, qsys_code_fn fn, void *ctx)
{
    for (size_t i = 0; i < q->nins; i++) {
        unsigned len = rvt_isa_length((uint16_t)q->ins[i].bits);
        int rc = fn(ctx, q->ins[i].pc, q->ins[i].bits, len);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- number parsing ------------------------------------------------------ */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Hex digits at *p (at least one, at most 16 significant); advances *p. */
static bool get_hex(const char **p, uint64_t *out, unsigned *ndigits)
{
    const char *s = *p;
    uint64_t v = 0;
    unsigned n = 0;
    int d;
    while ((d = hexval(*s)) >= 0) {
        if (v >> 60)
            return false;
        v = v << 4 | (uint64_t)d;
        s++;
        n++;
    }
    if (n == 0)
        return false;
    *p = s;
    *out = v;
    if (ndigits)
        *ndigits = n;
    return true;
}

static bool get_dec(const char **p, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (*s < '0' || *s > '9')
        return false;
    while (*s >= '0' && *s <= '9') {
        if (v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
        s++;
    }
    *p = s;
    *out = v;
    return true;
}

static bool expect_str(const char **p, const char *lit)
{
    size_t n = strlen(lit);
    if (strncmp(*p, lit, n) != 0)
        return false;
    *p += n;
    return true;
}

/* ---- retirement ----------------------------------------------------------- */

static struct qins *tb_insn(struct qsys *q, const struct qtb *tb, uint32_t i)
{
    return &q->ins[tb->first + i];
}

static int retire(struct qsys *q, struct qhart *h, const struct qins *in, int priv)
{
    if (q->stopped)
        return 0;
    int rc = rvt_ing_builder_insn(h->b, in->pc, (int64_t)in->bits, (uint8_t)priv, 0, NULL);
    if (rc < 0)
        return qfail(q, (enum rvt_err)-rc, "hart %u: %s", h->index, rvt_ing_builder_error(h->b));
    if (h->last_priv >= 0 && h->last_priv != priv)
        h->st.priv_changes++;
    h->last_priv = priv;
    h->st.privs |= (uint8_t)(1u << (priv & 7));
    h->st.insns++;
    h->st.ran = true;
    if (++q->insns == q->cfg.max_insns) {
        /* The limit: every hart's stream ends here. */
        for (unsigned i = 0; i < q->nharts; i++) {
            rc = rvt_ing_builder_finish(q->hart[i].b);
            if (rc < 0)
                return qfail(q, (enum rvt_err)-rc, "hart %u: %s", i, rvt_ing_builder_error(q->hart[i].b));
        }
        q->stopped = true;
    }
    return 0;
}

/* Can the instruction go to its own address (a loop on itself)? */
static bool can_loop_on_itself(const struct rvt_insn *in)
{
    if (in->cf == RVT_CF_BRANCH || rvt_cf_inferable_jump(in->cf))
        return in->target == in->pc;
    return rvt_cf_uninferable(in->cf);
}

static bool is_fetch_fault(uint64_t cause)
{
    return cause == 0 || cause == 1 || cause == 12 || cause == 20;
}

static bool is_memory_access(const struct rvt_insn *in)
{
    return (in->flags & (RVT_IF_LOAD | RVT_IF_STORE)) != 0;
}

/* Could `in` (which retired) be followed by `pc` without a trap: its
 * fall-through or static target, or anything after an uninferable jump? */
static bool may_go_to(const struct rvt_insn *in, unsigned xlen, uint64_t pc)
{
    if (rvt_cf_uninferable(in->cf))
        return true;
    if (in->cf == RVT_CF_ECALL || in->cf == RVT_CF_EBREAK)
        return false; /* they trap */
    if (rvt_cf_inferable_jump(in->cf))
        return pc == in->target;
    return pc == rvt_isa_next_pc(in, xlen) || (in->cf == RVT_CF_BRANCH && pc == in->target);
}

/* One block boundary of a hart: `count` instructions of block `prev` began
 * executing (prev NULL: before the hart's first block), then `next` started
 * (NULL: the log ended); `is_static` when next's entry was static. */
struct boundary {
    const struct qtb *prev;
    uint64_t count;
    const struct qtb *next;
    bool is_static;
};

/* Could trap t have happened at boundary b?  `nested`: an earlier trap was
 * placed there (t was then taken before the handler's first instruction). */
static bool trap_fits(struct qsys *q, const struct qtrap *t, const struct boundary *b, bool nested)
{
    bool fetch = !t->async && is_fetch_fault(t->cause);
    if (nested || !b->prev || b->count == 0)
        return t->async || fetch;
    const struct qins *last = tb_insn(q, b->prev, (uint32_t)b->count - 1);
    struct rvt_insn d;
    rvt_isa_decode(last->bits, last->pc, q->xlen, &d);
    /* A static entry started at a static successor of a block whose last
     * instruction cannot trap: a trap there entered a handler at the address
     * execution would have gone to anyway, which must differ from epc. */
    if (b->is_static && b->next && b->next->pc0 == t->epc)
        return false;
    if (!t->async && !fetch)
        return !b->is_static && t->epc == last->pc; /* it faulted */
    if (t->epc == last->pc) {
        if (fetch)
            return false;
        /* An interrupt before the instruction retired: QEMU restarted a
         * memory access; or it retired and jumped to itself. */
        return is_memory_access(&d) || can_loop_on_itself(&d);
    }
    return may_go_to(&d, q->xlen, t->epc);
}

/* Block `tb` ended after `count` instructions began executing; `trap` is the
 * first trap at this boundary (NULL if none), then (if next) block `next`
 * started. */
static int finish_block(struct qsys *q, struct qhart *h, const struct qtb *tb, uint64_t count, const struct qtrap *trap,
                        const struct qtb *next)
{
    if (count > tb->n)
        return qfail(q, RVT_ERR_FORMAT, "hart %u: %" PRIu64 " instructions of block %zx at 0x%" PRIx64
                     " executed, but it has %" PRIu32, h->index, count, (size_t)(tb - q->tbs), tb->pc0, tb->n);
    int rc;
    for (uint32_t i = 0; i + 1 < count; i++)
        if ((rc = retire(q, h, tb_insn(q, tb, i), tb->priv)) < 0)
            return rc;
    if (count == 0)
        return 0;
    const struct qins *last = tb_insn(q, tb, (uint32_t)count - 1);
    struct rvt_insn d;
    rvt_isa_decode(last->bits, last->pc, q->xlen, &d);
    bool retired = true;
    if (trap) {
        if (trap->epc == last->pc && (!trap->async || !can_loop_on_itself(&d)))
            retired = false;
    } else if (next && next->pc0 == last->pc && !can_loop_on_itself(&d)) {
        if (!is_memory_access(&d))
            return qfail(q, RVT_ERR_MISMATCH,
                         "hart %u: the instruction at 0x%" PRIx64 " began executing twice in a row without a "
                         "trap, and it is not a memory access QEMU could have restarted",
                         h->index, last->pc);
        retired = false; /* it begins again in the next block */
    }
    if (retired && (d.cf == RVT_CF_ECALL || d.cf == RVT_CF_EBREAK))
        return qfail(q, RVT_ERR_MISMATCH,
                     "hart %u: the %s at 0x%" PRIx64 " completed without a trap line (semihosting and "
                     "debugger breakpoints are not supported)",
                     h->index, d.cf == RVT_CF_ECALL ? "ecall" : "ebreak", last->pc);
    if (retired && (rc = retire(q, h, last, tb->priv)) < 0)
        return rc;
    return 0;
}

static int take_trap(struct qsys *q, struct qhart *h, const struct qtrap *t)
{
    if (q->stopped)
        return 0;
    uint64_t cause = t->cause & (q->mask >> 1); /* without the interrupt bit */
    if (cause > UINT32_MAX)
        return qfail(q, RVT_ERR_UNSUPPORTED, "hart %u: trap cause 0x%" PRIx64 " (log line %" PRIu64 ") does not fit",
                     h->index, t->cause, t->line);
    int rc = rvt_ing_builder_trap(h->b, t->async, (uint32_t)cause, t->tval & q->mask, t->epc & q->mask);
    if (rc < 0)
        return qfail(q, (enum rvt_err)-rc, "hart %u: trap of log line %" PRIu64 ": %s", h->index, t->line,
                     rvt_ing_builder_error(h->b));
    return 0;
}

/* The boundary after the hart's k-th block of the open window (0: `cur`). */
static void window_boundary(struct qsys *q, const struct qhart *h, size_t k, const struct qentry *end,
                            uint64_t end_count, struct boundary *b)
{
    int64_t prev = k == 0 ? h->cur : (int64_t)h->held[k - 1].id;
    b->prev = prev >= 0 ? &q->tbs[prev] : NULL;
    if (k < h->nheld) {
        b->next = &q->tbs[h->held[k].id];
        b->is_static = h->held[k].is_static;
        b->count = h->held[k].has_count ? h->held[k].count : b->prev ? b->prev->n : 0;
    } else if (end) {
        b->next = &q->tbs[end->id];
        b->is_static = end->is_static;
        b->count = end->has_count ? end->count : b->prev ? b->prev->n : 0;
    } else {
        b->next = NULL;
        b->is_static = false;
        b->count = end_count;
    }
}

/* Must boundary b hold a trap: does the block after it start where the
 * instruction before it cannot go (or did that block stop early with no
 * other explanation)? */
static bool needs_trap(struct qsys *q, const struct boundary *b)
{
    if (!b->next || !b->prev || b->count == 0)
        return false;
    const struct qins *last = tb_insn(q, b->prev, (uint32_t)b->count - 1);
    struct rvt_insn d;
    rvt_isa_decode(last->bits, last->pc, q->xlen, &d);
    uint64_t to = b->next->pc0;
    if (to == last->pc && is_memory_access(&d) && !can_loop_on_itself(&d))
        return false; /* QEMU restarts it */
    if (b->count < b->prev->n && !((d.flags & RVT_IF_WFI) && to == rvt_isa_next_pc(&d, q->xlen)))
        return true; /* only wfi leaves a block early without a trap or a restart */
    return !may_go_to(&d, q->xlen, to);
}

/* Close the hart's window at entry `end` (NULL: its end line, with
 * end_count): place the pending traps, in order, at block boundaries so
 * that each trap fits its boundary and every boundary that needs a trap
 * has one; exactly one such placement must exist.  Then retire everything
 * in order. */
static int close_window(struct qsys *q, struct qhart *h, const struct qentry *end, uint64_t end_count)
{
    size_t m = h->nheld, nt = h->npend;
    struct boundary b;
    /* ways[k][i]: placements of traps i.. on boundaries k.. (capped at 2). */
    size_t cols = nt + 1;
    unsigned char *ways = calloc((m + 2) * cols, 1);
    bool *need = calloc(m + 1, sizeof *need);
    if (!ways || !need) {
        free(ways);
        free(need);
        return qfail(q, RVT_ERR_NOMEM, "out of memory");
    }
#define WAYS(k, i) ways[(size_t)(k) * cols + (i)]
    for (size_t k = 0; k <= m; k++) {
        window_boundary(q, h, k, end, end_count, &b);
        need[k] = needs_trap(q, &b);
    }
    WAYS(m + 1, nt) = 1;
    for (size_t k = m + 1; k-- > 0;) {
        window_boundary(q, h, k, end, end_count, &b);
        for (size_t i = nt + 1; i-- > 0;) {
            /* Place traps i .. i+j-1 at boundary k (j = 0: none). */
            unsigned total = 0;
            for (size_t j = 0; i + j <= nt; j++) {
                if (j > 0) {
                    const struct qtrap *t = &h->pend[i + j - 1];
                    if (t->win > k || !trap_fits(q, t, &b, j > 1))
                        break;
                }
                if (j == 0 && need[k])
                    continue;
                total += WAYS(k + 1, i + j);
            }
            WAYS(k, i) = (unsigned char)(total > 2 ? 2 : total);
        }
    }
    int rc = 0;
    if (WAYS(0, 0) != 1) {
        const struct qtrap *t = &h->pend[0];
        rc = qfail(q, RVT_ERR_MISMATCH,
                   WAYS(0, 0) == 0 ? "hart %u: no placement at block boundaries explains the %s (cause %" PRIu64
                                     ", epc 0x%" PRIx64 ") of log line %" PRIu64 "%s"
                                   : "hart %u: the %s (cause %" PRIu64 ", epc 0x%" PRIx64 ") of log line %" PRIu64
                                     " fits more than one block boundary%s",
                   h->index, t->async ? "interrupt" : "exception", t->cause, t->epc, t->line,
                   WAYS(0, 0) == 0 ? (nt > 1 ? " and the traps after it" : "")
                                   : ": its handler is a static successor of the interrupted code (capture with "
                                     "--flush-each)");
    } else {
        /* The one placement: at each boundary the choice that leads on. */
        size_t i = 0;
        for (size_t k = 0; k <= m; k++) {
            window_boundary(q, h, k, end, end_count, &b);
            size_t take = 0;
            for (size_t j = 0; i + j <= nt; j++) {
                if (j > 0) {
                    const struct qtrap *t = &h->pend[i + j - 1];
                    if (t->win > k || !trap_fits(q, t, &b, j > 1))
                        break;
                }
                if ((j > 0 || !need[k]) && WAYS(k + 1, i + j)) {
                    take = j;
                    break;
                }
            }
            for (size_t j = 0; j < take; j++)
                h->pend[i + j].at = k;
            i += take;
        }
    }
#undef WAYS
    free(ways);
    free(need);
    if (rc < 0)
        return rc;
    size_t ti = 0;
    for (size_t k = 0; k <= m; k++) {
        window_boundary(q, h, k, end, end_count, &b);
        const struct qtrap *first = ti < h->npend && h->pend[ti].at == k ? &h->pend[ti] : NULL;
        if (b.prev && (rc = finish_block(q, h, b.prev, b.count, first, b.next)) < 0)
            return rc;
        for (; ti < h->npend && h->pend[ti].at == k; ti++)
            if ((rc = take_trap(q, h, &h->pend[ti])) < 0)
                return rc;
        q->executed += b.next != NULL;
    }
    h->cur = end ? (int64_t)end->id : -1;
    h->npend = h->nheld = 0;
    return 0;
}

/* ---- lines ------------------------------------------------------------------ */

static int on_header(struct qsys *q, const char *p)
{
    uint64_t version, harts;
    if (!expect_str(&p, "rvtrace-qemu ") || !get_dec(&p, &version) || *p++ != ' ')
        return qfail(q, RVT_ERR_FORMAT, "malformed plugin header line");
    if (version != 1)
        return qfail(q, RVT_ERR_UNSUPPORTED, "plugin log version %" PRIu64 ", expected 1 (plugin and rvtrace differ)",
                     version);
    if (expect_str(&p, "riscv64 "))
        q->xlen = 64;
    else if (expect_str(&p, "riscv32 "))
        q->xlen = 32;
    else
        return qfail(q, RVT_ERR_UNSUPPORTED, "target is not riscv32 or riscv64");
    if (!get_dec(&p, &harts) || harts == 0)
        return qfail(q, RVT_ERR_FORMAT, "malformed vCPU count in the plugin header");
    if (expect_str(&p, " each"))
        q->flush_each = true;
    else if (!expect_str(&p, " batch"))
        return qfail(q, RVT_ERR_FORMAT, "malformed flush mode in the plugin header");
    if (*p)
        return qfail(q, RVT_ERR_FORMAT, "malformed plugin header line");
    if (harts > QSYS_MAX_HARTS)
        return qfail(q, RVT_ERR_UNSUPPORTED, "%" PRIu64 " harts; at most %d are supported", harts, QSYS_MAX_HARTS);
    if (q->have_header)
        return qfail(q, RVT_ERR_FORMAT, "a second plugin header (two plugins, or two logs in one file?)");
    q->have_header = true;
    q->mask = q->xlen == 32 ? 0xffffffffull : ~0ull;
    q->nharts = (unsigned)harts;
    for (unsigned i = 0; i < q->nharts; i++) {
        struct qhart *h = &q->hart[i];
        h->q = q;
        h->index = i;
        h->cur = -1;
        h->last_priv = -1;
        struct rvt_ing_builder_config bc = {.size = sizeof bc,
                                            .xlen = q->xlen,
                                            .ecall_mode = RVT_ECALL_SEQUENTIAL,
                                            .merge_blocks = q->cfg.merge_blocks,
                                            .emit = emit_record,
                                            .emit_ctx = h};
        h->b = rvt_ing_builder_new(&bc);
        if (!h->b)
            return qfail(q, RVT_ERR_NOMEM, "cannot create the ingress builder");
    }
    if (q->cfg.start) {
        int rc = q->cfg.start(q->cfg.ctx, q->xlen, q->nharts);
        if (rc < 0)
            return qfail(q, (enum rvt_err)-rc, "the output could not be started");
    }
    return 0;
}

static int on_translated(struct qsys *q, const char *p)
{
    uint64_t id, pc;
    if (!q->have_header)
        return qfail(q, RVT_ERR_FORMAT, "block line before the plugin header");
    if (q->await_priv >= 0)
        return qfail(q, RVT_ERR_FORMAT,
                     "no in_asm text (Priv line) for block %" PRIx64 " before the next one: run QEMU with -d in_asm",
                     (uint64_t)q->await_priv);
    if (!get_hex(&p, &id, NULL) || *p++ != ' ' || !get_hex(&p, &pc, NULL))
        return qfail(q, RVT_ERR_FORMAT, "malformed block line");
    if (id != q->ntbs)
        return qfail(q, RVT_ERR_FORMAT, "block %" PRIx64 " where %zx was expected (lines lost or reordered)", id, q->ntbs);
    if (q->ntbs == q->captbs) {
        size_t cap = q->captbs ? q->captbs * 2 : 1024;
        struct qtb *t = realloc(q->tbs, cap * sizeof *t);
        if (!t)
            return qfail(q, RVT_ERR_NOMEM, "out of memory for blocks");
        q->tbs = t;
        q->captbs = cap;
    }
    struct qtb *tb = &q->tbs[q->ntbs];
    tb->pc0 = pc & q->mask;
    tb->first = q->nins;
    tb->n = 0;
    tb->priv = -1;
    uint64_t at = tb->pc0;
    while (*p == ' ') {
        p++;
        uint64_t bits;
        unsigned nd;
        if (!get_hex(&p, &bits, &nd) || (nd != 4 && nd != 8))
            return qfail(q, RVT_ERR_FORMAT, "block %" PRIx64 ": malformed instruction bits", id);
        unsigned len = rvt_isa_length((uint16_t)bits);
        if (len != nd / 2)
            return qfail(q, RVT_ERR_FORMAT, "block %" PRIx64 ": bits %0*" PRIx64 " at 0x%" PRIx64 " are not a %u-byte instruction",
                         id, (int)nd, bits, at, nd / 2);
        if (q->nins == q->capins) {
            size_t cap = q->capins ? q->capins * 2 : 8192;
            struct qins *n = realloc(q->ins, cap * sizeof *n);
            if (!n)
                return qfail(q, RVT_ERR_NOMEM, "out of memory for instructions");
            q->ins = n;
            q->capins = cap;
        }
        q->ins[q->nins].pc = at;
        q->ins[q->nins].bits = (uint32_t)bits;
        q->nins++;
        tb->n++;
        at = (at + len) & q->mask;
    }
    if (*p || tb->n == 0) {
        q->nins = tb->first;
        return qfail(q, RVT_ERR_FORMAT, "block %" PRIx64 ": malformed instruction list", id);
    }
    q->ntbs++;
    q->await_priv = (int64_t)id;
    return 0;
}

static int on_priv(struct qsys *q, const char *p)
{
    uint64_t priv, virt;
    if (q->await_priv < 0)
        return 0; /* in_asm text of a block the plugin did not see (none expected) */
    if (!get_dec(&p, &priv) || !expect_str(&p, "; Virt: ") || !get_dec(&p, &virt))
        return qfail(q, RVT_ERR_FORMAT, "malformed Priv line");
    int8_t v;
    if (virt == 0 && (priv == 0 || priv == 1 || priv == 3))
        v = (int8_t)priv;
    else if (virt == 1 && (priv == 0 || priv == 1))
        v = priv == 0 ? RVT_PRIV_VU : RVT_PRIV_VS;
    else
        return qfail(q, RVT_ERR_FORMAT, "privilege %" PRIu64 " with virtualisation %" PRIu64 " is not a RISC-V mode",
                     priv, virt);
    q->tbs[q->await_priv].priv = v;
    q->await_addr = q->await_priv;
    q->await_priv = -1;
    return 0;
}

/* The first disassembled instruction of the in_asm text: it must be the
 * block the plugin announced, or the Priv line belongs to another block. */
static int on_disasm(struct qsys *q, const char *p)
{
    uint64_t addr;
    if (!get_hex(&p, &addr, NULL) || *p != ':')
        return 0;
    const struct qtb *tb = &q->tbs[q->await_addr];
    if ((addr & q->mask) != tb->pc0)
        return qfail(q, RVT_ERR_FORMAT, "in_asm text at 0x%" PRIx64 " follows plugin block %" PRIx64 " at 0x%" PRIx64,
                     addr, (uint64_t)q->await_addr, tb->pc0);
    q->await_addr = -1;
    return 0;
}

static struct qhart *vcpu_hart(struct qsys *q, const char **p)
{
    uint64_t v;
    if (!q->have_header) {
        qfail(q, RVT_ERR_FORMAT, "execution line before the plugin header");
        return NULL;
    }
    if (!get_dec(p, &v)) {
        qfail(q, RVT_ERR_FORMAT, "malformed vCPU number");
        return NULL;
    }
    if (v >= q->nharts) {
        qfail(q, RVT_ERR_FORMAT, "vCPU %" PRIu64 ", but the plugin announced %u", v, q->nharts);
        return NULL;
    }
    struct qhart *h = &q->hart[v];
    if (h->ended) {
        qfail(q, RVT_ERR_FORMAT, "hart %u executes after its end line", h->index);
        return NULL;
    }
    return h;
}

/* The hart's most recent block (the one a count refers to). */
static size_t last_block(const struct qhart *h)
{
    return h->nheld ? (size_t)h->held[h->nheld - 1].id : (size_t)h->cur;
}

static int on_exec(struct qsys *q, const char *p, bool is_static)
{
    struct qhart *h = vcpu_hart(q, &p);
    if (!h)
        return -q->diag.code;
    struct qentry e = {.is_static = is_static, .line = q->line};
    if (*p++ != ' ' || !get_hex(&p, &e.id, NULL))
        return qfail(q, RVT_ERR_FORMAT, "malformed execution line");
    if (e.id >= q->ntbs)
        return qfail(q, RVT_ERR_FORMAT, "hart %u executes block %" PRIx64 ", which was never translated", h->index,
                     e.id);
    if (q->tbs[e.id].priv < 0)
        return qfail(q, RVT_ERR_FORMAT,
                     "hart %u executes block %" PRIx64 " before its in_asm text (Priv line): run QEMU with -d in_asm",
                     h->index, e.id);
    e.has_count = *p == ' ';
    if (e.has_count && (p++, !get_hex(&p, &e.count, NULL)))
        return qfail(q, RVT_ERR_FORMAT, "malformed execution count");
    if (*p)
        return qfail(q, RVT_ERR_FORMAT, "malformed execution line");
    if (e.has_count && (is_static || h->cur < 0))
        return qfail(q, RVT_ERR_FORMAT, "hart %u: a count where none can be", h->index);
    if (e.has_count && e.count > q->tbs[last_block(h)].n)
        return qfail(q, RVT_ERR_FORMAT, "hart %u: %" PRIu64 " instructions of a %" PRIu32 "-instruction block executed",
                     h->index, e.count, q->tbs[last_block(h)].n);
    if (h->npend > 0) {
        if (is_static && !q->flush_each) {
            /* Inside a trap's window: wait for the entry that closes it. */
            if (h->nheld == h->capheld) {
                size_t cap = h->capheld ? h->capheld * 2 : 16;
                struct qentry *n = realloc(h->held, cap * sizeof *n);
                if (!n)
                    return qfail(q, RVT_ERR_NOMEM, "out of memory");
                h->held = n;
                h->capheld = cap;
            }
            h->held[h->nheld++] = e;
            return 0;
        }
        return close_window(q, h, &e, 0);
    }
    if (h->cur >= 0) {
        const struct qtb *cur = &q->tbs[h->cur];
        int rc = finish_block(q, h, cur, e.has_count ? e.count : cur->n, NULL, &q->tbs[e.id]);
        if (rc < 0)
            return rc;
    }
    h->cur = (int64_t)e.id;
    q->executed++;
    return 0;
}

static int on_end(struct qsys *q, const char *p)
{
    struct qhart *h = vcpu_hart(q, &p);
    if (!h)
        return -q->diag.code;
    uint64_t count;
    if (*p++ != ' ' || !get_hex(&p, &count, NULL) || *p)
        return qfail(q, RVT_ERR_FORMAT, "malformed end line");
    if (h->cur < 0)
        return qfail(q, RVT_ERR_FORMAT, "hart %u ends without having executed", h->index);
    if (count > q->tbs[last_block(h)].n)
        return qfail(q, RVT_ERR_FORMAT, "hart %u: %" PRIu64 " instructions of a %" PRIu32 "-instruction block executed",
                     h->index, count, q->tbs[last_block(h)].n);
    int rc = h->npend > 0 ? close_window(q, h, NULL, count) : finish_block(q, h, &q->tbs[h->cur], count, NULL, NULL);
    if (rc < 0)
        return rc;
    h->ended = true;
    h->cur = -1;
    if (!q->stopped && (rc = rvt_ing_builder_finish(h->b)) < 0)
        return qfail(q, (enum rvt_err)-rc, "hart %u: %s", h->index, rvt_ing_builder_error(h->b));
    return 0;
}

static int on_trap(struct qsys *q, const char *p)
{
    uint64_t hart, async, cause, epc, tval;
    if (!q->have_header)
        return qfail(q, RVT_ERR_FORMAT, "trap line before the plugin header (is the plugin loaded?)");
    if (!expect_str(&p, "hart:") || !get_dec(&p, &hart) || !expect_str(&p, ", async:") || !get_dec(&p, &async) ||
        async > 1 || !expect_str(&p, ", cause:") || !get_hex(&p, &cause, NULL) || !expect_str(&p, ", epc:0x") ||
        !get_hex(&p, &epc, NULL) || !expect_str(&p, ", tval:0x") || !get_hex(&p, &tval, NULL))
        return qfail(q, RVT_ERR_FORMAT, "malformed trap line");
    if (hart >= q->nharts)
        return qfail(q, RVT_ERR_UNSUPPORTED,
                     "trap on hart %" PRIu64 ", but there are %u vCPUs (hart ids must equal vCPU numbers)", hart,
                     q->nharts);
    struct qhart *h = &q->hart[hart];
    if (h->ended)
        return qfail(q, RVT_ERR_FORMAT, "hart %u traps after its end line", h->index);
    if (h->npend == h->cappend) {
        size_t cap = h->cappend ? h->cappend * 2 : 4;
        struct qtrap *t = realloc(h->pend, cap * sizeof *t);
        if (!t)
            return qfail(q, RVT_ERR_NOMEM, "out of memory for traps");
        h->pend = t;
        h->cappend = cap;
    }
    h->pend[h->npend++] = (struct qtrap){.cause = cause, .epc = epc & q->mask, .tval = tval, .line = q->line,
                                         .win = h->nheld, .async = async != 0};
    return 0;
}

static int on_line(struct qsys *q, const char *p)
{
    q->line++;
    if (p[0] == 'X' || p[0] == 'x')
        return on_exec(q, p + 1, p[0] == 'x');
    if (p[0] == '@') {
        switch (p[1]) {
        case 'T':
            return on_translated(q, p + 2);
        case 'E':
            return on_end(q, p + 2);
        case 'H':
            return p[2] == ' ' ? on_header(q, p + 3) : qfail(q, RVT_ERR_FORMAT, "malformed plugin header line");
        case '!':
            return qfail(q, RVT_ERR_FORMAT, "the plugin reports: %s", p[2] == ' ' ? p + 3 : p + 2);
        default:
            return qfail(q, RVT_ERR_FORMAT, "unknown plugin line '%.20s'", p);
        }
    }
    if (strncmp(p, TRAP_LINE, sizeof TRAP_LINE - 1) == 0)
        return on_trap(q, p + sizeof TRAP_LINE - 1);
    if (strncmp(p, "Priv: ", 6) == 0)
        return on_priv(q, p + 6);
    if (q->await_addr >= 0 && p[0] == '0' && p[1] == 'x')
        return on_disasm(q, p + 2);
    return 0; /* the rest of QEMU's log */
}

int qsys_feed(struct qsys *q, const char *data, size_t len)
{
    if (q->diag.code)
        return -q->diag.code;
    if (q->stopped)
        return 1;
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t take = nl ? (size_t)(nl - data) : len;
        if (q->llen + take + 1 > q->lcap) {
            if (q->llen + take + 1 > QSYS_MAX_LINE)
                return qfail(q, RVT_ERR_FORMAT, "line longer than %u bytes", QSYS_MAX_LINE);
            size_t cap = q->lcap ? q->lcap : 4096;
            while (cap < q->llen + take + 1)
                cap *= 2;
            char *b = realloc(q->lbuf, cap);
            if (!b)
                return qfail(q, RVT_ERR_NOMEM, "out of memory");
            q->lbuf = b;
            q->lcap = cap;
        }
        memcpy(q->lbuf + q->llen, data, take);
        q->llen += take;
        if (!nl)
            break;
        q->lbuf[q->llen] = 0;
        q->llen = 0;
        if (memchr(q->lbuf, 0, take) != NULL)
            return q->line++, qfail(q, RVT_ERR_FORMAT, "NUL byte in the log");
        int rc = on_line(q, q->lbuf);
        if (rc < 0)
            return rc;
        if (q->stopped)
            return 1;
        data = nl + 1;
        len -= take + 1;
    }
    return 0;
}

int qsys_finish(struct qsys *q)
{
    if (q->diag.code)
        return -q->diag.code;
    if (q->stopped)
        return 0;
    if (q->llen > 0)
        return q->line++, qfail(q, RVT_ERR_TRUNCATED, "the log ends inside a line");
    if (!q->have_header)
        return rvt_fail(&q->diag, RVT_ERR_FORMAT,
                        "no plugin header in the log: was QEMU run with -plugin librvtrace-qemu.so -d plugin?");
    for (unsigned i = 0; i < q->nharts; i++) {
        struct qhart *h = &q->hart[i];
        if (h->cur >= 0 && !h->ended)
            return rvt_fail(&q->diag, RVT_ERR_TRUNCATED,
                            "the log ends without hart %u's final count (QEMU did not exit normally)", i);
        if (!h->ended && h->npend > 0)
            return rvt_fail(&q->diag, RVT_ERR_TRUNCATED, "the log ends inside hart %u's trap window", i);
    }
    return 0;
}

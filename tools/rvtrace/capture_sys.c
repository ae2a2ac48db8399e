/* rvtrace capture --system: QEMU system-emulation log -> ingress records
 * (see capture_sys.h; the plugin's lines are described in
 * tools/qemu/rvtrace-qemu-sys.c).
 *
 * Per hart, the log gives the sequence of translated blocks it started
 * (@X), how many of each block's instructions began executing (the count on
 * the next @X or @E), and the traps QEMU took in between (trap lines).
 * Every instruction whose execution began retired, except the last one
 * before a trap or a re-execution:
 *   - a synchronous trap whose epc is that instruction: it faulted;
 *   - an interrupt whose epc is that instruction, which cannot jump to
 *     itself: QEMU abandoned it (an I/O access it restarts) and the
 *     interrupt came first;
 *   - the next block starts at that instruction, which cannot jump to
 *     itself and accesses memory: QEMU restarts it (cpu_io_recompile).
 * Everything else follows from the code: the ingress builder checks every
 * step, so an unexplained discontinuity is an error with its addresses. */
#include "capture_sys.h"

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
    bool async;
};

struct qsys;
struct qhart {
    struct qsys *q;
    unsigned index;
    struct rvt_ing_builder *b;
    int64_t cur;       /* block executing, -1 before the first */
    bool ended;
    struct qtrap *pend; /* traps since the current block started */
    size_t npend, cappend;
    int last_priv;
    struct qsys_hart_stats st;
};

struct qsys {
    struct qsys_config cfg;
    struct rvt_diag diag;
    unsigned xlen;
    uint64_t mask;
    unsigned nharts;
    bool have_header, stopped;
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

/* The hart's current block ends after `count` instructions began executing;
 * then come its pending traps, then (if has_next) the block at next_pc. */
static int finish_block(struct qsys *q, struct qhart *h, uint64_t count, bool has_next, uint64_t next_pc)
{
    const struct qtb *tb = &q->tbs[h->cur];
    if (count > tb->n)
        return qfail(q, RVT_ERR_FORMAT, "hart %u: %" PRIu64 " instructions of block %" PRIx64 " at 0x%" PRIx64
                     " executed, but it has %" PRIu32, h->index, count, (uint64_t)h->cur, tb->pc0, tb->n);
    int rc;
    for (uint32_t i = 0; i + 1 < count; i++)
        if ((rc = retire(q, h, tb_insn(q, tb, i), tb->priv)) < 0)
            return rc;
    if (count > 0) {
        const struct qins *last = tb_insn(q, tb, (uint32_t)count - 1);
        struct rvt_insn d;
        rvt_isa_decode(last->bits, last->pc, q->xlen, &d);
        bool retired = true;
        if (h->npend > 0) {
            const struct qtrap *t = &h->pend[0];
            if (t->epc == last->pc && (!t->async || !can_loop_on_itself(&d)))
                retired = false;
            else if (!t->async && !is_fetch_fault(t->cause))
                return qfail(q, RVT_ERR_MISMATCH,
                             "hart %u: exception cause %" PRIu64 " (log line %" PRIu64 ") at epc 0x%" PRIx64
                             ", but the last instruction that began executing is at 0x%" PRIx64
                             " (only an instruction fetch can fault without beginning to execute)",
                             h->index, t->cause, t->line, t->epc, last->pc);
        } else if (has_next && next_pc == last->pc && !can_loop_on_itself(&d)) {
            if (!(d.flags & (RVT_IF_LOAD | RVT_IF_STORE)))
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
    } else if (h->npend > 0 && !h->pend[0].async && !is_fetch_fault(h->pend[0].cause)) {
        return qfail(q, RVT_ERR_MISMATCH,
                     "hart %u: exception cause %" PRIu64 " (log line %" PRIu64 ") at epc 0x%" PRIx64
                     " with no instruction executing", h->index, h->pend[0].cause, h->pend[0].line, h->pend[0].epc);
    }
    return 0;
}

/* Hand the hart's pending traps to its builder, oldest first. */
static int flush_traps(struct qsys *q, struct qhart *h)
{
    for (size_t i = 0; i < h->npend && !q->stopped; i++) {
        const struct qtrap *t = &h->pend[i];
        uint64_t cause = t->cause & (q->mask >> 1); /* without the interrupt bit */
        if (cause > UINT32_MAX)
            return qfail(q, RVT_ERR_UNSUPPORTED, "hart %u: trap cause 0x%" PRIx64 " (log line %" PRIu64 ") does not fit",
                         h->index, t->cause, t->line);
        int rc = rvt_ing_builder_trap(h->b, t->async, (uint32_t)cause, t->tval & q->mask, t->epc & q->mask);
        if (rc < 0)
            return qfail(q, (enum rvt_err)-rc, "hart %u: trap of log line %" PRIu64 ": %s", h->index, t->line,
                         rvt_ing_builder_error(h->b));
    }
    h->npend = 0;
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
    if (!get_dec(&p, &harts) || *p || harts == 0)
        return qfail(q, RVT_ERR_FORMAT, "malformed vCPU count in the plugin header");
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

static int on_exec(struct qsys *q, const char *p)
{
    struct qhart *h = vcpu_hart(q, &p);
    if (!h)
        return -q->diag.code;
    uint64_t id, count;
    if (*p++ != ' ' || !get_hex(&p, &id, NULL))
        return qfail(q, RVT_ERR_FORMAT, "malformed execution line");
    if (id >= q->ntbs)
        return qfail(q, RVT_ERR_FORMAT, "hart %u executes block %" PRIx64 ", which was never translated", h->index, id);
    const struct qtb *next = &q->tbs[id];
    if (next->priv < 0)
        return qfail(q, RVT_ERR_FORMAT,
                     "hart %u executes block %" PRIx64 " before its in_asm text (Priv line): run QEMU with -d in_asm",
                     h->index, id);
    bool has_count = *p == ' ';
    if (has_count && (p++, !get_hex(&p, &count, NULL)))
        return qfail(q, RVT_ERR_FORMAT, "malformed execution count");
    if (*p)
        return qfail(q, RVT_ERR_FORMAT, "malformed execution line");
    int rc;
    if (h->cur >= 0) {
        if (!has_count)
            count = q->tbs[h->cur].n;
        if ((rc = finish_block(q, h, count, true, next->pc0)) < 0)
            return rc;
    } else if (has_count) {
        return qfail(q, RVT_ERR_FORMAT, "hart %u: a count for the block before its first one", h->index);
    }
    if ((rc = flush_traps(q, h)) < 0)
        return rc;
    h->cur = (int64_t)id;
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
    int rc;
    if ((rc = finish_block(q, h, count, false, 0)) < 0 || (rc = flush_traps(q, h)) < 0)
        return rc;
    h->ended = true;
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
                                         .async = async != 0};
    return 0;
}

static int on_line(struct qsys *q, const char *p)
{
    q->line++;
    if (p[0] == '@') {
        switch (p[1]) {
        case 'X':
            return on_exec(q, p + 2);
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
        if (h->cur < 0 && h->npend > 0)
            return rvt_fail(&q->diag, RVT_ERR_TRUNCATED, "hart %u took a trap but never executed", i);
    }
    return 0;
}

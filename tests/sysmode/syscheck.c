/* sysmode_check: compare a system-mode capture with what the program itself
 * saw.  The bare-metal test programs print one TRAP line per trap from
 * their handlers, with the cause, epc and tval CSRs, the privilege level
 * the trap came from (mstatus.MPP / sstatus.SPP), the level of the handler
 * and the handler's address (from mtvec/stvec); the capture must hold the
 * same traps for that hart, in the same order.
 *
 *   sysmode_check [--subset] [--ordered] SERIAL STREAM [HART_STREAM...]
 *
 * For each hart, every printed trap must be one of the trace's trap records
 * of that hart (each record used once, the first unused one that matches),
 * and (unless --subset, for traps the program does not see, such as
 * OpenSBI's) every trap record must be printed.  --ordered also requires
 * the same order (handlers note a trap at entry, so a higher level's
 * interrupt that preempts a lower level's handler first is otherwise
 * allowed to come first).  A match means: interrupt flag, cause and epc (the record's iaddr) equal;
 * tval equal for exceptions; the hart's next record starts at the printed
 * handler address at the printed level; the hart's last retired record
 * before the trap ran at the printed `from` level (unless it was a trap
 * return, whose target level the stream does not say).  In --subset mode
 * the handler is checked only when the trace's trap enters that level
 * (OpenSBI delivers some traps to S-mode itself, after its own trap).
 * HART_STREAMS (the FILE.hartN files) must equal STREAM's records of that
 * hart, in order.
 * Prints per hart: records, traps, interrupts, the privilege levels, the
 * deepest trap nesting (a trap taken before the previous one's handler
 * returned: the stack of traps pops at each trap return; lower-level calls
 * enter with a trap return that pops nothing) and, with --elf, how many
 * interrupts came right after a wfi; then how often the merged stream
 * switches harts. */
#include "testlib.h"

#include "rvtrace/rvtrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HARTS 64

struct printed {
    unsigned hart, interrupt;
    unsigned long cause, epc, tval, handler;
    char from, to;
    unsigned line;
};

struct recs {
    struct rvt_ing_rec *v;
    size_t n, cap;
};

static void push(struct recs *r, const struct rvt_ing_rec *rec)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 1024;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        if (!r->v) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    r->v[r->n++] = *rec;
}

static bool read_stream(const char *path, struct recs *out)
{
    struct rvt_ing_reader_config cfg = {.size = sizeof cfg, .format = RVT_ING_FMT_NATIVE};
    struct rvt_diag diag;
    rvt_diag_clear(&diag);
    struct rvt_ing_reader *r = NULL;
    if (rvt_ing_open(&r, path, &cfg, &diag) < 0) {
        CHECK_MSG(false, "%s: %s", path, diag.msg);
        return false;
    }
    struct rvt_ing_rec rec;
    int rc;
    while ((rc = rvt_ing_next(r, &rec)) > 0)
        push(out, &rec);
    CHECK_MSG(rc == 0, "%s: %s", path, rvt_ing_error(r));
    rvt_ing_close(r);
    return rc == 0;
}

static char priv_char(unsigned p)
{
    return p == RVT_PRIV_U ? 'U' : p == RVT_PRIV_S ? 'S' : p == RVT_PRIV_M ? 'M' : '?';
}

static bool is_trap(const struct rvt_ing_rec *r)
{
    return r->iretire == 0 && (r->itype == RVT_ITYPE_EXCEPTION || r->itype == RVT_ITYPE_INTERRUPT);
}

/* Does trace trap record i of hart h (index into `all`) match printed p? */
static bool matches(const struct recs *all, size_t i, const struct printed *p)
{
    const struct rvt_ing_rec *t = &all->v[i];
    return (t->itype == RVT_ITYPE_INTERRUPT) == (p->interrupt != 0) && t->cause == p->cause && t->iaddr == p->epc &&
           (p->interrupt || t->tval == p->tval);
}

static void check_context(const struct recs *all, size_t i, const struct printed *p, bool subset)
{
    unsigned h = p->hart;
    /* The hart's next record: the handler. */
    size_t j = i + 1;
    while (j < all->n && all->v[j].hart != h)
        j++;
    if (j < all->n && !is_trap(&all->v[j]) && (!subset || priv_char(all->v[j].priv) == p->to)) {
        CHECK_MSG(all->v[j].iaddr == p->handler, "serial line %u: handler at 0x%lx but the hart continues at 0x%" PRIx64,
                  p->line, p->handler, all->v[j].iaddr);
        CHECK_MSG(priv_char(all->v[j].priv) == p->to, "serial line %u: handler level %c but the trace says %c", p->line,
                  p->to, priv_char(all->v[j].priv));
    } else if (j < all->n && is_trap(&all->v[j])) {
        /* Nested at once: the next trap's epc is this handler's address. */
        CHECK_MSG(subset || all->v[j].iaddr == p->handler,
                  "serial line %u: handler 0x%lx but the next trap is at 0x%" PRIx64, p->line, p->handler,
                  all->v[j].iaddr);
    }
    /* The hart's previous record: what ran before the trap. */
    size_t k = i;
    while (k > 0 && all->v[k - 1].hart != h)
        k--;
    if (k > 0) {
        const struct rvt_ing_rec *prev = &all->v[k - 1];
        if (!is_trap(prev) && prev->itype != RVT_ITYPE_TRAPRET)
            CHECK_MSG(priv_char(prev->priv) == p->from, "serial line %u: trap from %c but the trace ran at %c before it",
                      p->line, p->from, priv_char(prev->priv));
    }
}

static int run(int argc, char **argv)
{
    bool subset = false, ordered = false;
    const char *elf = NULL;
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "--subset") == 0)
            subset = true;
        else if (strcmp(argv[a], "--ordered") == 0)
            ordered = true;
        else if (strcmp(argv[a], "--elf") == 0 && a + 1 < argc)
            elf = argv[++a];
        else
            break;
    }
    struct rvt_image *img = NULL;
    if (elf) {
        img = rvt_img_new();
        if (!img || rvt_img_load_elf(img, elf) < 0) {
            fprintf(stderr, "%s: %s\n", elf, img ? rvt_img_error(img) : "out of memory");
            return 1;
        }
    }
    if (argc - a < 2) {
        fprintf(stderr, "usage: sysmode_check [--subset] [--ordered] [--elf PROG] SERIAL STREAM [HART_STREAM...]\n");
        return 2;
    }
    const char *serial = argv[a], *stream = argv[a + 1];

    /* The program's TRAP lines. */
    FILE *f = fopen(serial, "r");
    if (!f) {
        perror(serial);
        return 1;
    }
    struct printed *pr = NULL;
    size_t npr = 0, cappr = 0;
    char line[512];
    unsigned ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        const char *t = strstr(line, "TRAP h=");
        if (!t)
            continue;
        struct printed p = {.line = ln};
        if (sscanf(t, "TRAP h=%u i=%u c=%lu epc=%lx tval=%lx from=%c to=%c handler=%lx", &p.hart, &p.interrupt,
                   &p.cause, &p.epc, &p.tval, &p.from, &p.to, &p.handler) != 8) {
            CHECK_MSG(false, "%s:%u: malformed TRAP line: %s", serial, ln, line);
            continue;
        }
        if (npr == cappr) {
            cappr = cappr ? cappr * 2 : 64;
            pr = realloc(pr, cappr * sizeof *pr);
            if (!pr)
                return 1;
        }
        pr[npr++] = p;
    }
    fclose(f);

    struct recs all = {0};
    if (!read_stream(stream, &all))
        return 1;
    unsigned nharts = 0;
    for (size_t i = 0; i < all.n; i++)
        if (all.v[i].hart + 1u > nharts)
            nharts = all.v[i].hart + 1u;
    CHECK_MSG(nharts <= MAX_HARTS, "hart %u", nharts - 1);
    if (nharts > MAX_HARTS)
        return 1;

    for (unsigned h = 0; h < nharts; h++) {
        size_t traps = 0, ints = 0, recs = 0, matched = 0, inversions = 0, depth = 0, max_depth = 0, after_wfi = 0;
        unsigned privs = 0;
        size_t *tr = malloc((all.n + 1) * sizeof *tr); /* this hart's trap records */
        bool *used = calloc(all.n + 1, sizeof *used);
        if (!tr || !used)
            return 1;
        for (size_t i = 0; i < all.n; i++) {
            const struct rvt_ing_rec *r = &all.v[i];
            if (r->hart != h)
                continue;
            recs++;
            if (is_trap(r)) {
                tr[traps++] = i;
                ints += r->itype == RVT_ITYPE_INTERRUPT;
                if (++depth > max_depth)
                    max_depth = depth;
                struct rvt_insn in;
                if (img && r->itype == RVT_ITYPE_INTERRUPT && rvt_img_insn(img, r->iaddr - 4, &in) >= 0 &&
                    (in.flags & RVT_IF_WFI))
                    after_wfi++;
            } else {
                privs |= 1u << (r->priv & 7);
                if (r->itype == RVT_ITYPE_TRAPRET && depth > 0)
                    depth--;
            }
        }
        /* Each printed trap takes the first unmatched trace trap that is the
         * same trap; handlers note traps at entry, so a higher level's
         * interrupt that preempts a lower level's handler before it notes its
         * own trap is printed first (counted as an inversion). */
        size_t last = 0;
        bool have_last = false;
        for (size_t p = 0; p < npr; p++) {
            if (pr[p].hart != h)
                continue;
            size_t k = 0;
            while (k < traps && (used[k] || !matches(&all, tr[k], &pr[p])))
                k++;
            if (k == traps) {
                CHECK_MSG(false, "hart %u: %s:%u (i=%u c=%lu epc=%lx tval=%lx) has no trap record in the trace", h,
                          serial, pr[p].line, pr[p].interrupt, pr[p].cause, pr[p].epc, pr[p].tval);
                continue;
            }
            used[k] = true;
            matched++;
            if (have_last && k < last)
                inversions++;
            last = k;
            have_last = true;
            check_context(&all, tr[k], &pr[p], subset);
        }
        for (size_t k = 0; k < traps && !subset; k++)
            CHECK_MSG(used[k], "hart %u: trap record %zu (itype %u cause %" PRIu32 " epc 0x%" PRIx64 " tval 0x%" PRIx64
                      ") was not printed by the program", h, tr[k], all.v[tr[k]].itype, all.v[tr[k]].cause,
                      all.v[tr[k]].iaddr, all.v[tr[k]].tval);
        CHECK_MSG(!ordered || inversions == 0, "hart %u: %zu traps printed out of the trace's order", h, inversions);
        printf("hart %u: %zu records, %zu traps (%zu interrupts), %zu printed traps matched (%zu out of order), "
               "max depth %zu, after wfi %zu, levels",
               h, recs, traps, ints, matched, inversions, max_depth, after_wfi);
        for (unsigned p = 0; p < 8; p++)
            if (privs >> p & 1)
                printf(" %c", priv_char(p));
        printf("\n");
        free(tr);
        free(used);
    }

    size_t switches = 0;
    for (size_t i = 1; i < all.n; i++)
        switches += all.v[i].hart != all.v[i - 1].hart;
    printf("hart switches %zu\n", switches);

    /* Per-hart streams: the merged stream's records of that hart. */
    for (int k = a + 2; k < argc; k++) {
        const char *dot = strrchr(argv[k], '.');
        unsigned h;
        if (!dot || sscanf(dot, ".hart%u", &h) != 1) {
            CHECK_MSG(false, "%s: expected a name ending in .hartN", argv[k]);
            continue;
        }
        struct recs one = {0};
        if (!read_stream(argv[k], &one))
            continue;
        size_t j = 0;
        for (size_t i = 0; i < all.n; i++) {
            if (all.v[i].hart != h)
                continue;
            if (j >= one.n) {
                CHECK_MSG(false, "%s ends after %zu records; the merged stream has more of hart %u", argv[k], j, h);
                break;
            }
            const struct rvt_ing_rec *x = &all.v[i], *y = &one.v[j++];
            CHECK_MSG(x->iaddr == y->iaddr && x->iretire == y->iretire && x->itype == y->itype &&
                          x->ilastsize == y->ilastsize && x->priv == y->priv && x->cause == y->cause &&
                          x->tval == y->tval && x->hart == y->hart && x->context == y->context,
                      "%s: record %zu differs from the merged stream's", argv[k], j - 1);
        }
        CHECK_MSG(j == one.n, "%s has %zu records, the merged stream %zu of hart %u", argv[k], one.n, j, h);
        free(one.v);
    }
    free(all.v);
    free(pr);
    rvt_img_free(img);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = run(argc, argv);
    if (rc)
        return rc;
    return rvt_test_summary("sysmode_check");
}

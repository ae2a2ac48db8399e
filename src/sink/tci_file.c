/* Register-setting files: a text list of register writes (and read-back
 * checks) applied to a TCI system in order, as a debugger would perform
 * them.  Syntax in docs/sinks.md. */
#include "sink/sink_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct file_ctx {
    struct rvt_tci *t;
    const struct rvt_tci_file_options *opt;
    const char *name;
    unsigned lineno;
    struct rvt_diag *diag;
};

/* A resolved left-hand side. */
struct target {
    enum rvt_tci_comp kind;
    unsigned idx;
    uint32_t off;
    const struct rvt_sk_reg *reg;      /* NULL: no register described there */
    const struct rvt_sk_field *field;  /* NULL: the whole register */
    char text[96];                     /* "encoder0.trTeControl" for messages */
};

static const struct {
    const char *name;
    enum rvt_tci_comp kind;
    const char *canon;
} g_comp_names[] = {
    {"encoder", RVT_TCI_ENCODER, "encoder"}, {"te", RVT_TCI_ENCODER, "encoder"},
    {"funnel", RVT_TCI_FUNNEL, "funnel"},    {"ramsink", RVT_TCI_RAMSINK, "ramsink"},
    {"ram", RVT_TCI_RAMSINK, "ramsink"},     {"atbbridge", RVT_TCI_ATBBRIDGE, "atb"},
    {"atb", RVT_TCI_ATBBRIDGE, "atb"},
};

static const char *canon_name(enum rvt_tci_comp kind)
{
    for (size_t i = 0; i < sizeof g_comp_names / sizeof g_comp_names[0]; i++)
        if (g_comp_names[i].kind == kind)
            return g_comp_names[i].canon;
    return "?";
}

/* "encoder1", "ram", "atb0" ... */
static bool parse_comp(const char *s, size_t n, enum rvt_tci_comp *kind, unsigned *idx)
{
    for (size_t i = 0; i < sizeof g_comp_names / sizeof g_comp_names[0]; i++) {
        size_t pl = strlen(g_comp_names[i].name);
        if (n < pl || strncasecmp(s, g_comp_names[i].name, pl) != 0)
            continue;
        uint64_t v = 0;
        if (n > pl && !rvt_sk_parse_u64(s + pl, n - pl, false, &v))
            continue;
        if (v > 1000)
            continue;
        *kind = g_comp_names[i].kind;
        *idx = (unsigned)v;
        return true;
    }
    return false;
}

static int fail_at(struct file_ctx *c, enum rvt_err code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail_at(struct file_ctx *c, enum rvt_err code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rvt_fail(c->diag, code, "%s:%u: %s", c->name, c->lineno, msg);
}

static int check_index(struct file_ctx *c, enum rvt_tci_comp kind, unsigned idx)
{
    unsigned n = rvt_tci_count(c->t, kind);
    if (idx >= n)
        return fail_at(c, RVT_ERR_INVAL, "no %s%u: the system has %u %s%s", canon_name(kind), idx, n,
                       canon_name(kind), n == 1 ? "" : "s");
    return 0;
}

static int resolve(struct file_ctx *c, const char *s, size_t n, struct target *tg)
{
    char q[80];
    memset(tg, 0, sizeof *tg);
    rvt_sk_quote(s, n, tg->text, sizeof tg->text);
    if (!n)
        return fail_at(c, RVT_ERR_FORMAT, "missing register before '='");
    /* A bus address. */
    if (s[0] >= '0' && s[0] <= '9') {
        uint64_t a;
        if (!rvt_sk_parse_u64(s, n, false, &a))
            return fail_at(c, RVT_ERR_FORMAT, "'%s' is not an address", rvt_sk_quote(s, n, q, sizeof q));
        uint64_t best_base = 0;
        bool found = false;
        static const enum rvt_tci_comp kinds[4] = {RVT_TCI_ENCODER, RVT_TCI_FUNNEL, RVT_TCI_RAMSINK,
                                                   RVT_TCI_ATBBRIDGE};
        for (int k = 0; k < 4; k++) {
            for (unsigned i = 0; i < rvt_tci_count(c->t, kinds[k]); i++) {
                uint64_t b;
                rvt_tci_get_base(c->t, kinds[k], i, &b);
                if (a >= b && a - b < 0x1000 && !found) {
                    found = true;
                    best_base = b;
                    tg->kind = kinds[k];
                    tg->idx = i;
                }
            }
        }
        if (!found)
            return fail_at(c, RVT_ERR_INVAL, "address 0x%" PRIx64 " is not in any trace component's block", a);
        tg->off = (uint32_t)(a - best_base);
        if (tg->off % 4)
            return fail_at(c, RVT_ERR_INVAL, "address 0x%" PRIx64 " is not 32-bit aligned", a);
        tg->reg = rvt_sk_reg_at(tg->kind, tg->off);
        return 0;
    }
    /* "<component>+<offset>" */
    const char *plus = memchr(s, '+', n);
    if (plus) {
        uint64_t off;
        if (!parse_comp(s, (size_t)(plus - s), &tg->kind, &tg->idx))
            return fail_at(c, RVT_ERR_FORMAT, "'%s' is not a component (encoderN, funnelN, ramsinkN, atbN)",
                           rvt_sk_quote(s, (size_t)(plus - s), q, sizeof q));
        if (!rvt_sk_parse_u64(plus + 1, n - (size_t)(plus - s) - 1, false, &off) || off >= 0x1000 || off % 4)
            return fail_at(c, RVT_ERR_FORMAT, "offset '%s' is not a 32-bit register offset below 0x1000",
                           rvt_sk_quote(plus + 1, n - (size_t)(plus - s) - 1, q, sizeof q));
        int rc = check_index(c, tg->kind, tg->idx);
        if (rc < 0)
            return rc;
        tg->off = (uint32_t)off;
        tg->reg = rvt_sk_reg_at(tg->kind, tg->off);
        return 0;
    }
    /* "[component.]register[.field]" or "[component.]field" */
    const char *part[4];
    size_t pn[4];
    unsigned np = 0;
    const char *p = s;
    size_t left = n;
    while (np < 4) {
        const char *dot = memchr(p, '.', left);
        size_t len = dot ? (size_t)(dot - p) : left;
        part[np] = p;
        pn[np++] = len;
        if (!dot)
            break;
        left -= len + 1;
        p = dot + 1;
    }
    if (np == 4)
        return fail_at(c, RVT_ERR_FORMAT, "'%s': too many '.'", rvt_sk_quote(s, n, q, sizeof q));
    unsigned first = 0;
    bool have_comp = false;
    if (np > 1 && parse_comp(part[0], pn[0], &tg->kind, &tg->idx)) {
        have_comp = true;
        first = 1;
    }
    if (np - first == 0 || np - first > 2)
        return fail_at(c, RVT_ERR_FORMAT, "'%s': expected [component.]register[.field]",
                       rvt_sk_quote(s, n, q, sizeof q));
    for (unsigned i = first; i < np; i++)
        if (!pn[i])
            return fail_at(c, RVT_ERR_FORMAT, "'%s': empty name", rvt_sk_quote(s, n, q, sizeof q));
    const struct rvt_sk_reg *reg = rvt_sk_reg_find(part[first], pn[first], &tg->off);
    if (np - first == 2) {
        if (!reg)
            return fail_at(c, RVT_ERR_INVAL, "unknown register '%s'", rvt_sk_quote(part[first], pn[first], q, sizeof q));
        tg->field = rvt_sk_reg_field(reg, part[first + 1], pn[first + 1]);
        if (!tg->field)
            return fail_at(c, RVT_ERR_INVAL, "register %s has no field '%s'", reg->name,
                           rvt_sk_quote(part[first + 1], pn[first + 1], q, sizeof q));
    } else if (!reg) {
        tg->field = rvt_sk_field_find(part[first], pn[first], &reg, &tg->off);
        if (!tg->field)
            return fail_at(c, RVT_ERR_INVAL,
                           "unknown register or field '%s' (filter and comparator fields need their register: "
                           "trTeFilter0Control.trTeFilterEnable)",
                           rvt_sk_quote(part[first], pn[first], q, sizeof q));
    }
    tg->reg = reg;
    if (have_comp) {
        if (!(reg->kinds & rvt_sk_kind_bit(tg->kind)))
            return fail_at(c, RVT_ERR_INVAL, "%s is not a register of a %s", reg->name, canon_name(tg->kind));
    } else {
        tg->kind = (reg->kinds & RVT_SK_K_TE)       ? RVT_TCI_ENCODER
                   : (reg->kinds & RVT_SK_K_FUNNEL) ? RVT_TCI_FUNNEL
                   : (reg->kinds & RVT_SK_K_RAM)    ? RVT_TCI_RAMSINK
                                                    : RVT_TCI_ATBBRIDGE;
        tg->idx = 0;
    }
    return check_index(c, tg->kind, tg->idx);
}

static uint32_t fmask(const struct rvt_sk_field *f)
{
    return f->width >= 32 ? 0xFFFFFFFFu : ((1u << f->width) - 1) << f->lsb;
}

static void describe(const struct target *tg, char *buf, size_t bufsz)
{
    char rn[48];
    if (tg->reg)
        snprintf(buf, bufsz, "%s%u.%s%s%s", canon_name(tg->kind), tg->idx, rvt_sk_reg_fullname(tg->reg, tg->off, rn, sizeof rn),
                 tg->field ? "." : "", tg->field ? tg->field->name : "");
    else
        snprintf(buf, bufsz, "%s%u+0x%03x", canon_name(tg->kind), tg->idx, tg->off);
}

/* After a write: tell what did not read back as written. */
static int check_readback(struct file_ctx *c, const struct target *tg, uint32_t wv)
{
    if (tg->reg && tg->reg->side_effect)
        return 0;
    uint32_t rb;
    int rc = rvt_tci_comp_read(c->t, tg->kind, tg->idx, tg->off, &rb);
    if (rc < 0)
        return rc;
    uint32_t mask = tg->reg ? rvt_sk_reg_rw_mask(tg->reg) : 0xFFFFFFFFu;
    if (tg->field)
        mask &= fmask(tg->field);
    if (!((rb ^ wv) & mask))
        return 0;
    char what[128], msg[640];
    describe(tg, what, sizeof what);
    int m = snprintf(msg, sizeof msg, "%s:%u: %s: wrote 0x%08" PRIx32 ", reads back 0x%08" PRIx32, c->name, c->lineno,
                     what, wv, rb);
    if (!tg->reg) {
        snprintf(msg + m, sizeof msg - (size_t)m, " (no register there: reserved, write ignored)");
    } else {
        for (unsigned i = 0; i < tg->reg->nfields && m > 0 && (size_t)m < sizeof msg; i++) {
            const struct rvt_sk_field *f = &tg->reg->fields[i];
            uint32_t fm = fmask(f);
            if (f->acc != RVT_SK_RW || !((rb ^ wv) & fm & mask))
                continue;
            m += snprintf(msg + m, sizeof msg - (size_t)m, "; %s %" PRIu32 " -> %" PRIu32, f->name,
                          (wv & fm) >> f->lsb, (rb & fm) >> f->lsb);
        }
        uint32_t ctl = 0;
        rvt_tci_comp_read(c->t, tg->kind, tg->idx, 0, &ctl);
        if (tg->off != 0 && !(ctl & 1) && m > 0 && (size_t)m < sizeof msg) {
            const struct rvt_sk_reg *cr = rvt_sk_reg_at(tg->kind, 0);
            snprintf(msg + m, sizeof msg - (size_t)m, " (the component is in reset: write %s = 0x1 first)",
                     cr ? cr->name : "its control register");
        }
    }
    if (c->opt && c->opt->strict)
        return rvt_fail(c->diag, RVT_ERR_MISMATCH, "%s", msg);
    if (c->opt && c->opt->note)
        c->opt->note(c->opt->note_ctx, msg);
    return 0;
}

static int do_line(struct file_ctx *c, struct rvt_sk_line l)
{
    char q[80];
    const char *tok;
    size_t tn;
    struct rvt_sk_line rest = l;
    rvt_sk_token(&rest, &tok, &tn);
    bool expect = tn == 6 && strncasecmp(tok, "expect", 6) == 0;
    bool base = tn == 4 && strncasecmp(tok, "base", 4) == 0;
    if (expect || base)
        l = rest;
    /* Split at '=' ("==" allowed for expect). */
    const char *eq = memchr(l.p, '=', l.n);
    const char *lhs = l.p, *rhs;
    size_t ln, rn;
    if (base && !eq) {
        /* "base encoder1 0x1000" */
        struct rvt_sk_line r2 = l;
        if (!rvt_sk_token(&r2, &lhs, &ln))
            return fail_at(c, RVT_ERR_FORMAT, "base: expected 'base <component> = <address>'");
        rhs = r2.p;
        rn = r2.n;
    } else {
        if (!eq)
            return fail_at(c, RVT_ERR_FORMAT, "expected '<register> = <value>', found '%s'",
                           rvt_sk_quote(l.p, l.n, q, sizeof q));
        ln = (size_t)(eq - l.p);
        rhs = eq + 1;
        rn = l.n - ln - 1;
        if (expect && rn && rhs[0] == '=') {
            rhs++;
            rn--;
        }
    }
    while (ln && (lhs[ln - 1] == ' ' || lhs[ln - 1] == '\t'))
        ln--;
    while (rn && (rhs[0] == ' ' || rhs[0] == '\t')) {
        rhs++;
        rn--;
    }
    uint64_t v;
    if (!rn || !rvt_sk_parse_u64(rhs, rn, false, &v))
        return fail_at(c, RVT_ERR_FORMAT, "value '%s' is not a number", rvt_sk_quote(rhs, rn, q, sizeof q));
    if (base) {
        enum rvt_tci_comp kind;
        unsigned idx;
        if (!parse_comp(lhs, ln, &kind, &idx))
            return fail_at(c, RVT_ERR_FORMAT, "base: '%s' is not a component (encoderN, funnelN, ramsinkN, atbN)",
                           rvt_sk_quote(lhs, ln, q, sizeof q));
        int rc = check_index(c, kind, idx);
        if (rc < 0)
            return rc;
        if (rvt_tci_set_base(c->t, kind, idx, v) < 0)
            return fail_at(c, RVT_ERR_INVAL, "%s", rvt_tci_error(c->t));
        return 0;
    }
    struct target tg;
    int rc = resolve(c, lhs, ln, &tg);
    if (rc < 0)
        return rc;
    uint64_t limit = tg.field ? (tg.field->width >= 32 ? 0xFFFFFFFFu : (1u << tg.field->width) - 1) : 0xFFFFFFFFu;
    char what[128];
    describe(&tg, what, sizeof what);
    if (v > limit)
        return fail_at(c, RVT_ERR_INVAL, "%s: value 0x%" PRIx64 " does not fit in %u bits", what, v,
                       tg.field ? tg.field->width : 32);
    if (expect) {
        uint32_t rb;
        rc = rvt_tci_comp_read(c->t, tg.kind, tg.idx, tg.off, &rb);
        if (rc < 0)
            return fail_at(c, RVT_ERR_INVAL, "%s", rvt_tci_error(c->t));
        uint32_t got = tg.field ? (rb & fmask(tg.field)) >> tg.field->lsb : rb;
        if (got != v)
            return fail_at(c, RVT_ERR_MISMATCH, "expect %s = 0x%" PRIx64 ", read 0x%" PRIx32, what, v, got);
        return 0;
    }
    uint32_t wv = (uint32_t)v;
    if (tg.field && tg.field->width < 32) {
        /* Read-modify-write, writing 0 to the action bits (RW1C, W1) so
         * that setting one field does not clear sticky status. */
        uint32_t cur = 0;
        if (!tg.reg->side_effect)
            rvt_tci_comp_read(c->t, tg.kind, tg.idx, tg.off, &cur);
        cur &= ~rvt_sk_reg_action_mask(tg.reg);
        wv = (cur & ~fmask(tg.field)) | (uint32_t)v << tg.field->lsb;
    }
    uint32_t ctl_before = 1;
    if (tg.off == 0)
        rvt_tci_comp_read(c->t, tg.kind, tg.idx, 0, &ctl_before);
    rc = rvt_tci_comp_write(c->t, tg.kind, tg.idx, tg.off, wv);
    if (rc < 0)
        return fail_at(c, RVT_ERR_INVAL, "%s", rvt_tci_error(c->t));
    /* A control write to a component in reset either keeps it there or
     * releases it with every field at its default: nothing to report. */
    if (tg.off == 0 && !(ctl_before & 1))
        return 0;
    return check_readback(c, &tg, wv);
}

int rvt_tci_apply_text(struct rvt_tci *t, const char *text, size_t len, const char *name,
                       const struct rvt_tci_file_options *opt, struct rvt_diag *diag)
{
    if (opt && opt->size < sizeof *opt)
        return rvt_fail(diag, RVT_ERR_INVAL, "tci file options: size %zu, expected %zu", opt->size, sizeof *opt);
    struct file_ctx c = {.t = t, .opt = opt, .name = name ? name : "(registers)", .diag = diag};
    size_t pos = 0;
    unsigned lineno = 0;
    struct rvt_sk_line l;
    while (rvt_sk_next_line(text, len, &pos, &lineno, &l)) {
        c.lineno = l.lineno;
        if (!l.n)
            continue;
        int rc = do_line(&c, l);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int rvt_tci_apply_file(struct rvt_tci *t, const char *path, const struct rvt_tci_file_options *opt,
                       struct rvt_diag *diag)
{
    uint8_t *data;
    size_t len;
    int rc = rvt_read_file(path, &data, &len, diag);
    if (rc < 0)
        return rc;
    rc = rvt_tci_apply_text(t, (const char *)data, len, path, opt, diag);
    free(data);
    return rc;
}

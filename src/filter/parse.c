/* The text syntax of filters, triggers and sideband events (docs/filters.md):
 * a small recursive-descent parser that compiles specs into the register-
 * level configuration (comparator units, filter units, debug triggers). */
#include "rvtrace/filter.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- lexer ------------------------------------------------------------------ */

enum tok_kind { T_END = 0, T_NUM, T_IDENT, T_STR, T_OP, T_BAD };

struct tok {
    enum tok_kind k;
    const char *s; /* IDENT/STR: the text (not NUL-terminated) */
    size_t len;
    uint64_t num;
    size_t col;    /* 1-based */
    char op[4];
};

struct parser {
    const char *what; /* "filter", "trigger", "sideband" */
    const char *src;
    size_t pos;
    struct tok t;
    struct rvt_filter_config *cfg; /* the working copy */
    struct rvt_diag *d;
    int err; /* first error (negated rvt_err), 0 if none */
};

static bool ident_start(int c)
{
    return isalpha(c) || c == '_' || c == '$';
}
static bool ident_char(int c)
{
    return isalnum(c) || c == '_' || c == '$' || c == '.';
}

static int perr(struct parser *p, size_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int perr(struct parser *p, size_t col, const char *fmt, ...)
{
    if (p->err)
        return p->err;
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int n = (int)strlen(p->src);
    p->err = rvt_fail(p->d, RVT_ERR_INVAL, "%s \"%.*s%s\": column %zu: %s", p->what, n > 80 ? 80 : n, p->src,
                      n > 80 ? "..." : "", col, what);
    return p->err;
}

static const char *tok_text(const struct tok *t, char *buf, size_t size)
{
    switch (t->k) {
    case T_END:
        return "the end";
    case T_NUM:
        snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->s);
        return buf;
    case T_IDENT:
        snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->s);
        return buf;
    case T_STR:
        snprintf(buf, size, "\"%.*s\"", (int)(t->len > 40 ? 40 : t->len), t->s);
        return buf;
    case T_OP:
        snprintf(buf, size, "'%s'", t->op);
        return buf;
    default:
        snprintf(buf, size, "'%c'", t->s[0]);
        return buf;
    }
}

static void next(struct parser *p)
{
    const char *s = p->src;
    while (s[p->pos] && isspace((unsigned char)s[p->pos]))
        p->pos++;
    struct tok *t = &p->t;
    memset(t, 0, sizeof *t);
    t->col = p->pos + 1;
    t->s = s + p->pos;
    unsigned char c = (unsigned char)s[p->pos];
    if (!c) {
        t->k = T_END;
        return;
    }
    if (isdigit(c)) {
        size_t i = p->pos;
        unsigned base = 10;
        if (c == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
            base = 16;
            i += 2;
        } else if (c == '0' && (s[i + 1] == 'b' || s[i + 1] == 'B')) {
            base = 2;
            i += 2;
        }
        uint64_t v = 0;
        unsigned digits = 0;
        bool overflow = false;
        for (;; i++) {
            int ch = (unsigned char)s[i];
            unsigned dv;
            if (ch == '_')
                continue;
            if (isdigit(ch))
                dv = (unsigned)(ch - '0');
            else if (base == 16 && isxdigit(ch))
                dv = (unsigned)(tolower(ch) - 'a' + 10);
            else
                break;
            if (dv >= base)
                break;
            if (v > (UINT64_MAX - dv) / base)
                overflow = true;
            v = v * base + dv;
            digits++;
        }
        t->len = i - p->pos;
        p->pos = i;
        if (!digits || ident_start((unsigned char)s[i]) || isdigit((unsigned char)s[i])) {
            while (ident_char((unsigned char)s[p->pos]) && !(s[p->pos] == '.' && s[p->pos + 1] == '.'))
                p->pos++;
            t->len = (size_t)(s + p->pos - t->s);
            perr(p, t->col, "malformed number '%.*s'", (int)(t->len > 40 ? 40 : t->len), t->s);
            t->k = T_BAD;
            return;
        }
        if (overflow) {
            perr(p, t->col, "number '%.*s' does not fit 64 bits", (int)(t->len > 40 ? 40 : t->len), t->s);
            t->k = T_BAD;
            return;
        }
        t->k = T_NUM;
        t->num = v;
        return;
    }
    if (ident_start(c)) {
        size_t i = p->pos + 1;
        while (ident_char((unsigned char)s[i]) && !(s[i] == '.' && s[i + 1] == '.'))
            i++;
        t->k = T_IDENT;
        t->len = i - p->pos;
        p->pos = i;
        return;
    }
    if (c == '"') {
        size_t i = p->pos + 1;
        while (s[i] && s[i] != '"')
            i++;
        if (!s[i]) {
            perr(p, t->col, "unterminated quoted name");
            t->k = T_BAD;
            p->pos = i;
            return;
        }
        t->k = T_STR;
        t->s = s + p->pos + 1;
        t->len = i - p->pos - 1;
        p->pos = i + 1;
        return;
    }
    static const char *const ops[] = {"..=", "==", "!=", "<=", ">=", "&&", "||", "..", "<", ">", "&", "|",
                                      "{",   "}",  "(",  ")",  ",",  "+",  "-",  "@",  ":", "=", "!", "/"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t n = strlen(ops[k]);
        if (strncmp(s + p->pos, ops[k], n) == 0) {
            t->k = T_OP;
            memcpy(t->op, ops[k], n + 1);
            t->len = n;
            p->pos += n;
            return;
        }
    }
    t->k = T_BAD;
    t->len = 1;
    p->pos++;
    if (isprint(c))
        perr(p, t->col, "unexpected character '%c'", c);
    else
        perr(p, t->col, "unexpected byte 0x%02x", c);
}

static bool is_op(const struct parser *p, const char *op)
{
    return p->t.k == T_OP && strcmp(p->t.op, op) == 0;
}

static bool is_word(const struct parser *p, const char *w)
{
    size_t n = strlen(w);
    if (p->t.k != T_IDENT || p->t.len != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)p->t.s[i]) != w[i])
            return false;
    return true;
}

static bool accept_op(struct parser *p, const char *op)
{
    if (!is_op(p, op))
        return false;
    next(p);
    return true;
}

static bool accept_word(struct parser *p, const char *w)
{
    if (!is_word(p, w))
        return false;
    next(p);
    return true;
}

static int expected(struct parser *p, const char *what)
{
    char buf[64];
    return perr(p, p->t.col, "expected %s, found %s", what, tok_text(&p->t, buf, sizeof buf));
}

static int expect_op(struct parser *p, const char *op)
{
    if (accept_op(p, op))
        return 0;
    char what[16];
    snprintf(what, sizeof what, "'%s'", op);
    return expected(p, what);
}

/* ---- values ----------------------------------------------------------------- */

/* A number, a symbol (its address) or "name" (quoted symbol), with + and -
 * offsets.  *sym is the symbol when the value is exactly one symbol. */
static int parse_value(struct parser *p, uint64_t *v, const struct rvt_symbol **sym)
{
    uint64_t acc = 0;
    const struct rvt_symbol *only = NULL;
    int sign = 1;
    for (unsigned terms = 0;; terms++) {
        uint64_t x;
        if (p->t.k == T_NUM) {
            x = p->t.num;
            only = NULL;
        } else if (p->t.k == T_IDENT || p->t.k == T_STR) {
            char name[256];
            if (p->t.len >= sizeof name)
                return perr(p, p->t.col, "symbol name longer than %zu characters", sizeof name - 1);
            memcpy(name, p->t.s, p->t.len);
            name[p->t.len] = 0;
            if (!p->cfg->image)
                return perr(p, p->t.col, "symbol '%s' needs the program image (ELF)", name);
            const struct rvt_symbol *s = rvt_img_symbol_named(p->cfg->image, name);
            if (!s)
                return perr(p, p->t.col, "no symbol '%s' in the program", name);
            x = s->addr;
            only = terms == 0 ? s : NULL;
        } else {
            return expected(p, "a number or a symbol");
        }
        acc = sign > 0 ? acc + x : acc - x;
        next(p);
        if (is_op(p, "+"))
            sign = 1;
        else if (is_op(p, "-"))
            sign = -1;
        else
            break;
        only = NULL;
        next(p);
    }
    *v = acc;
    if (sym)
        *sym = only;
    return p->err;
}

static unsigned cfg_xlen(const struct rvt_filter_config *c)
{
    if (c->xlen)
        return c->xlen;
    return c->image ? rvt_img_xlen(c->image) : 64;
}

static int check_width(struct parser *p, unsigned input, uint64_t v, size_t col)
{
    unsigned bits = input == RVT_CMP_CONTEXT ? (p->cfg->context_width ? p->cfg->context_width : 64)
                                             : cfg_xlen(p->cfg);
    static const char *const names[] = {"iaddr", "context", "tval"};
    if (bits < 64 && (v >> bits))
        return perr(p, col, "0x%" PRIx64 " does not fit the %u-bit %s", v, bits, names[input]);
    return 0;
}

/* ---- filter terms ----------------------------------------------------------- */

/* One comparison "FIELD [& MASK] OP VALUE". */
struct cmp {
    uint8_t input, fn;
    uint64_t value;
    bool masked;
    uint64_t mask;
};

static int field_input(const struct parser *p)
{
    if (is_word(p, "addr") || is_word(p, "iaddr") || is_word(p, "pc"))
        return RVT_CMP_IADDR;
    if (is_word(p, "ctx") || is_word(p, "context"))
        return RVT_CMP_CONTEXT;
    if (is_word(p, "tval"))
        return RVT_CMP_TVAL;
    return -1;
}

static int rel_op(const struct parser *p)
{
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    static const char *const words[] = {"eq", "neq", "lt", "lte", "gt", "gte"};
    for (int i = 0; i < 6; i++)
        if (is_op(p, ops[i]) || is_word(p, words[i]))
            return i; /* = enum rvt_cmp_fn */
    if (is_word(p, "ne"))
        return RVT_CMP_NE;
    if (is_word(p, "le"))
        return RVT_CMP_LE;
    if (is_word(p, "ge"))
        return RVT_CMP_GE;
    return -1;
}

/* After the field word: "[& MASK] OP VALUE". */
static int parse_cmp_rest(struct parser *p, unsigned input, struct cmp *c)
{
    memset(c, 0, sizeof *c);
    c->input = (uint8_t)input;
    if (accept_op(p, "&")) {
        c->masked = true;
        if (parse_value(p, &c->mask, NULL))
            return p->err;
    }
    int fn = rel_op(p);
    if (fn < 0)
        return expected(p, "a comparison (== != < <= > >=)");
    c->fn = (uint8_t)fn;
    next(p);
    size_t col = p->t.col;
    if (parse_value(p, &c->value, NULL))
        return p->err;
    return check_width(p, input, c->value, col);
}

/* A latch condition: a comparison, or a bare address meaning "addr == A". */
static int parse_cond(struct parser *p, struct cmp *c)
{
    int input = field_input(p);
    if (input >= 0) {
        next(p);
        return parse_cmp_rest(p, (unsigned)input, c);
    }
    memset(c, 0, sizeof *c);
    c->input = RVT_CMP_IADDR;
    c->fn = RVT_CMP_EQ;
    size_t col = p->t.col;
    if (parse_value(p, &c->value, NULL))
        return p->err;
    return check_width(p, RVT_CMP_IADDR, c->value, col);
}

/* "LO..HI", "LO..=HI" or a sized symbol: the inclusive bounds in lo and hi. */
static int parse_range(struct parser *p, unsigned input, uint64_t *lo, uint64_t *hi)
{
    const struct rvt_symbol *sym = NULL;
    size_t col = p->t.col;
    if (parse_value(p, lo, &sym))
        return p->err;
    bool incl = false;
    if (accept_op(p, ".."))
        incl = false;
    else if (accept_op(p, "..="))
        incl = true;
    else if (sym) {
        if (!sym->size)
            return perr(p, col, "symbol '%s' has no size: give the range as LO..HI", sym->name);
        *hi = sym->addr + sym->size - 1;
        if (*hi < sym->addr)
            return perr(p, col, "symbol '%s' wraps around the address space", sym->name);
        return check_width(p, input, *hi, col);
    } else {
        return expected(p, "'..' or '..=' (a range LO..HI)");
    }
    size_t hcol = p->t.col;
    uint64_t h;
    if (parse_value(p, &h, NULL))
        return p->err;
    if (check_width(p, input, *lo, col) || check_width(p, input, h, hcol))
        return p->err;
    if (incl ? h < *lo : h <= *lo)
        return perr(p, col, "empty range 0x%" PRIx64 "..%s0x%" PRIx64, *lo, incl ? "=" : "", h);
    *hi = incl ? h : h - 1;
    return 0;
}

static uint8_t negate_fn(uint8_t fn)
{
    static const uint8_t neg[8] = {RVT_CMP_NE, RVT_CMP_EQ, RVT_CMP_GE, RVT_CMP_GT,
                                   RVT_CMP_LE, RVT_CMP_LT, RVT_CMP_ALWAYS, RVT_CMP_P_NEVER};
    return neg[fn & 7];
}

/* A comparator unit with one comparison in P. */
static struct rvt_comparator unit_p(const struct cmp *c)
{
    struct rvt_comparator k;
    memset(&k, 0, sizeof k);
    k.p_input = c->input;
    k.p_fn = c->fn;
    k.p_match = c->value;
    k.s_input = c->input;
    k.s_fn = c->masked ? RVT_CMP_S_MASK : RVT_CMP_ALWAYS;
    k.s_match = c->masked ? c->mask : 0;
    k.mode = RVT_CMP_MODE_P;
    return k;
}

static int unit_ps(struct parser *p, const struct cmp *a, const struct cmp *b, uint8_t mode, size_t col,
                   struct rvt_comparator *k)
{
    if (a->masked || b->masked)
        return perr(p, col, "a masked comparison uses the whole comparator unit: it cannot be paired");
    memset(k, 0, sizeof *k);
    k->p_input = a->input;
    k->p_fn = a->fn;
    k->p_match = a->value;
    k->s_input = b->input;
    k->s_fn = b->fn;
    k->s_match = b->value;
    k->mode = mode;
    return 0;
}

/* A filter unit being built from one alternative. */
struct ubuild {
    struct rvt_filter_unit u;
    unsigned ncomp;
    bool has_priv, has_cause, has_int, has_impdef;
};

static int add_comparator(struct parser *p, struct ubuild *b, const struct rvt_comparator *k, size_t col)
{
    struct rvt_filter_config *c = p->cfg;
    if (b->ncomp == RVT_FILTER_COMPS_PER_FILTER)
        return perr(p, col, "a filter combines at most %d comparator units (trTeFilterComp1..3): use a range "
                            "or move conditions to another --filter",
                    RVT_FILTER_COMPS_PER_FILTER);
    unsigned j;
    for (j = 0; j < c->ncomparators; j++) {
        const struct rvt_comparator *e = &c->comp[j];
        if (e->p_input == k->p_input && e->s_input == k->s_input && e->p_fn == k->p_fn && e->s_fn == k->s_fn &&
            e->mode == k->mode && e->p_notify == k->p_notify && e->s_notify == k->s_notify &&
            e->p_match == k->p_match && e->s_match == k->s_match)
            break; /* an identical unit (same inputs, same state) can be shared */
    }
    if (j == c->ncomparators) {
        if (c->ncomparators == RVT_FILTER_MAX_COMPARATORS)
            return perr(p, col, "more than %d comparator units in all (trTeComp0..%d)", RVT_FILTER_MAX_COMPARATORS,
                        RVT_FILTER_MAX_COMPARATORS - 1);
        c->comp[c->ncomparators++] = *k;
    }
    b->u.match_comp[b->ncomp] = true;
    b->u.comp[b->ncomp] = (uint8_t)j;
    b->ncomp++;
    return 0;
}

static int priv_item(struct parser *p, uint8_t *mask)
{
    static const struct {
        const char *name;
        unsigned v;
    } names[] = {{"u", RVT_PRIV_U}, {"s", RVT_PRIV_S}, {"m", RVT_PRIV_M},
                 {"d", RVT_PRIV_D}, {"vu", RVT_PRIV_VU}, {"vs", RVT_PRIV_VS}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (accept_word(p, names[i].name)) {
            *mask |= (uint8_t)(1u << names[i].v);
            return 0;
        }
    if (p->t.k == T_NUM) {
        if (p->t.num > 7)
            return perr(p, p->t.col, "privilege %" PRIu64 " out of range (0..7)", p->t.num);
        *mask |= (uint8_t)(1u << p->t.num);
        next(p);
        return 0;
    }
    return expected(p, "a privilege (U, S, M, D, VU, VS or 0..7)");
}

static int cause_item(struct parser *p, uint64_t *mask)
{
    if (p->t.k != T_NUM)
        return expected(p, "an exception cause (0..63)");
    if (p->t.num > 63)
        return perr(p, p->t.col, "cause %" PRIu64 " out of range (trTeFilterMatchChoiceEcause covers 0..63)",
                    p->t.num);
    *mask |= (uint64_t)1 << p->t.num;
    next(p);
    return 0;
}

/* "{a, b}" or "a|b|c" or "a". */
static int parse_set(struct parser *p, int (*item)(struct parser *, void *), void *mask)
{
    if (accept_op(p, "{")) {
        do {
            if (item(p, mask))
                return p->err;
        } while (accept_op(p, ","));
        return expect_op(p, "}");
    }
    do {
        if (item(p, mask))
            return p->err;
    } while (accept_op(p, "|"));
    return 0;
}
static int priv_item_v(struct parser *p, void *m)
{
    return priv_item(p, m);
}
static int cause_item_v(struct parser *p, void *m)
{
    return cause_item(p, m);
}

/* "== SET", "!= SET", "in SET", "not in SET": *negated set for the != forms. */
static int set_op(struct parser *p, bool *negated)
{
    if (accept_op(p, "==") || accept_word(p, "in") || accept_word(p, "eq")) {
        *negated = false;
        return 0;
    }
    if (accept_op(p, "!=") || accept_word(p, "neq") || accept_word(p, "ne")) {
        *negated = true;
        return 0;
    }
    if (accept_word(p, "not")) {
        *negated = true;
        if (accept_word(p, "in"))
            return 0;
        return expected(p, "'in'");
    }
    return expected(p, "'==', '!=', 'in' or 'not in'");
}

static int parse_term(struct parser *p, struct ubuild *b);

static int parse_priv(struct parser *p, struct ubuild *b, bool negate)
{
    bool neg;
    if (set_op(p, &neg))
        return p->err;
    uint8_t m = 0;
    if (parse_set(p, priv_item_v, &m))
        return p->err;
    if (neg != negate)
        m = (uint8_t)~m;
    /* Two privilege conditions in one filter: both must hold. */
    b->u.priv_choice = b->has_priv ? (uint8_t)(b->u.priv_choice & m) : m;
    b->u.match_priv = true;
    b->has_priv = true;
    return 0;
}

static int parse_field_term(struct parser *p, struct ubuild *b, unsigned input, bool negate, size_t col)
{
    struct rvt_comparator k;
    bool notin = false;
    if (is_word(p, "not")) {
        next(p);
        if (!accept_word(p, "in"))
            return expected(p, "'in' after 'not'");
        notin = true;
    } else if (accept_word(p, "in")) {
        notin = false;
    } else {
        struct cmp c;
        if (parse_cmp_rest(p, input, &c))
            return p->err;
        if (negate)
            c.fn = negate_fn(c.fn);
        k = unit_p(&c);
        return add_comparator(p, b, &k, col);
    }
    uint64_t lo = 0, hi = 0;
    if (parse_range(p, input, &lo, &hi))
        return p->err;
    struct cmp a = {(uint8_t)input, RVT_CMP_GE, lo, false, 0}, z = {(uint8_t)input, RVT_CMP_LE, hi, false, 0};
    if (unit_ps(p, &a, &z, notin != negate ? RVT_CMP_MODE_NOT_P_AND_S : RVT_CMP_MODE_P_AND_S, col, &k))
        return p->err;
    return add_comparator(p, b, &k, col);
}

/* "( CMP and CMP )": one comparator unit, P && S (or !(P && S) negated). */
static int parse_pair(struct parser *p, struct ubuild *b, bool negate, size_t col)
{
    struct cmp a, z;
    int in = field_input(p);
    if (in < 0)
        return expected(p, "a comparison on addr, ctx or tval");
    next(p);
    if (parse_cmp_rest(p, (unsigned)in, &a))
        return p->err;
    if (!accept_word(p, "and") && !accept_op(p, "&&"))
        return expected(p, "'and' (a parenthesised pair is one comparator unit: P and S)");
    if ((in = field_input(p)) < 0)
        return expected(p, "a comparison on addr, ctx or tval");
    next(p);
    if (parse_cmp_rest(p, (unsigned)in, &z) || expect_op(p, ")"))
        return p->err;
    struct rvt_comparator k;
    if (unit_ps(p, &a, &z, negate ? RVT_CMP_MODE_NOT_P_AND_S : RVT_CMP_MODE_P_AND_S, col, &k))
        return p->err;
    return add_comparator(p, b, &k, col);
}

static int parse_term(struct parser *p, struct ubuild *b)
{
    size_t col = p->t.col;
    bool negate = false;
    while (accept_word(p, "not") || accept_op(p, "!"))
        negate = !negate;
    int input = field_input(p);
    if (input >= 0) {
        next(p);
        return parse_field_term(p, b, (unsigned)input, negate, col);
    }
    if (accept_op(p, "("))
        return parse_pair(p, b, negate, col);
    if (is_word(p, "always") || is_word(p, "never")) {
        bool always = is_word(p, "always") != negate;
        next(p);
        struct cmp c = {RVT_CMP_IADDR, always ? RVT_CMP_ALWAYS : RVT_CMP_P_NEVER, 0, false, 0};
        struct rvt_comparator k = unit_p(&c);
        return add_comparator(p, b, &k, col);
    }
    if (accept_word(p, "priv") || accept_word(p, "privilege"))
        return parse_priv(p, b, negate);
    if (negate)
        return perr(p, col, "'not' applies to comparisons, ranges, (pairs), priv, always and never");
    if (is_word(p, "from") || is_word(p, "until")) {
        struct cmp a, z;
        if (accept_word(p, "until")) {
            /* Traced from the start: P never true primes the latch. */
            if (parse_cond(p, &z))
                return p->err;
            a = (struct cmp){z.input, RVT_CMP_P_NEVER, 0, false, 0};
        } else {
            next(p);
            if (parse_cond(p, &a))
                return p->err;
            if (accept_word(p, "to") || accept_word(p, "until")) {
                if (parse_cond(p, &z))
                    return p->err;
            } else {
                /* No end: S never true (unsigned "< 0" on the same input). */
                z = (struct cmp){a.input, RVT_CMP_LT, 0, false, 0};
            }
        }
        struct rvt_comparator k;
        if (unit_ps(p, &a, &z, RVT_CMP_MODE_LATCH, col, &k))
            return p->err;
        return add_comparator(p, b, &k, col);
    }
    if (accept_word(p, "cause") || accept_word(p, "ecause")) {
        if (b->has_cause)
            return perr(p, col, "cause given twice in one filter (list the causes in one set)");
        bool neg;
        if (set_op(p, &neg))
            return p->err;
        uint64_t m = 0;
        if (parse_set(p, cause_item_v, &m))
            return p->err;
        b->u.match_ecause = true;
        b->u.ecause_choice = neg ? ~m : m;
        b->has_cause = true;
        return 0;
    }
    if (is_word(p, "interrupt") || is_word(p, "exception")) {
        bool irq = is_word(p, "interrupt");
        next(p);
        if (!irq && (is_op(p, "==") || is_op(p, "!=")))
            return perr(p, p->t.col, "write 'interrupt == 0|1' or 'exception'");
        if (irq && (is_op(p, "==") || is_op(p, "!="))) {
            bool ne = is_op(p, "!=");
            next(p);
            if (p->t.k != T_NUM || p->t.num > 1)
                return expected(p, "0 or 1");
            irq = (p->t.num == 1) != ne;
            next(p);
        }
        if (b->has_int)
            return perr(p, col, "interrupt/exception given twice in one filter");
        b->u.match_interrupt = true;
        b->u.interrupt_value = irq;
        b->has_int = true;
        return 0;
    }
    if (accept_word(p, "impdef") || accept_word(p, "user") || accept_word(p, "sideband")) {
        if (b->has_impdef)
            return perr(p, col, "impdef given twice in one filter (combine the masks)");
        uint64_t mask = 0xffffffffu, v;
        if (accept_op(p, "&") && parse_value(p, &mask, NULL))
            return p->err;
        if (!accept_op(p, "==") && !accept_word(p, "eq"))
            return expected(p, "'==' (impdef matches (impdef & mask) == (value & mask))");
        size_t vcol = p->t.col;
        if (parse_value(p, &v, NULL))
            return p->err;
        if ((v | mask) >> 32)
            return perr(p, vcol, "impdef value and mask are 32 bits");
        b->u.match_impdef = true;
        b->u.impdef_value = (uint32_t)v;
        b->u.impdef_mask = (uint32_t)mask;
        b->has_impdef = true;
        return 0;
    }
    return expected(p, "a condition (addr, ctx, tval, priv, cause, interrupt, exception, impdef, from, until, "
                       "always, never)");
}

static int parse_filter_spec(struct parser *p)
{
    next(p);
    if (p->t.k == T_END)
        return perr(p, 1, "empty filter");
    for (;;) {
        struct ubuild b;
        memset(&b, 0, sizeof b);
        for (;;) {
            if (parse_term(p, &b))
                return p->err;
            if (!accept_word(p, "and") && !accept_op(p, "&&"))
                break;
        }
        struct rvt_filter_config *c = p->cfg;
        if (c->nfilters == RVT_FILTER_MAX_FILTERS)
            return perr(p, p->t.col, "more than %d filters (trTeInstFilters has 16 bits)", RVT_FILTER_MAX_FILTERS);
        b.u.enable = true;
        c->filter[c->nfilters] = b.u;
        c->inst_filters |= (uint16_t)(1u << c->nfilters);
        c->nfilters++;
        if (p->err)
            return p->err;
        if (!accept_word(p, "or") && !accept_op(p, "||"))
            break;
    }
    if (p->t.k != T_END)
        return expected(p, "'and', 'or' or the end");
    return p->err;
}

/* ---- entry points ----------------------------------------------------------- */

static int run(struct rvt_filter_config *cfg, const char *what, const char *spec, struct rvt_diag *d,
               int (*fn)(struct parser *))
{
    if (!spec)
        return rvt_fail(d, RVT_ERR_INVAL, "%s: no text", what);
    struct rvt_filter_config *work = malloc(sizeof *work);
    if (!work)
        return rvt_fail(d, RVT_ERR_NOMEM, "%s: out of memory", what);
    *work = *cfg;
    struct parser p;
    memset(&p, 0, sizeof p);
    p.what = what;
    p.src = spec;
    p.cfg = work;
    p.d = d;
    int rc = fn(&p);
    if (!rc && p.err)
        rc = p.err;
    if (!rc)
        *cfg = *work; /* all or nothing */
    free(work);
    return rc;
}

int rvt_filter_parse(struct rvt_filter_config *cfg, const char *spec, struct rvt_diag *d)
{
    return run(cfg, "filter", spec, d, parse_filter_spec);
}

/* ---- triggers ---------------------------------------------------------------- */

static int parse_trigger_item(struct parser *p, bool *explicit_initial, bool *added_on)
{
    size_t col = p->t.col;
    struct rvt_filter_config *c = p->cfg;
    if (accept_word(p, "initial")) {
        if (expect_op(p, "="))
            return p->err;
        if (accept_word(p, "on"))
            c->tracing_off_at_start = false;
        else if (accept_word(p, "off"))
            c->tracing_off_at_start = true;
        else
            return expected(p, "'on' or 'off'");
        *explicit_initial = true;
        return 0;
    }
    struct rvt_debug_trigger g;
    memset(&g, 0, sizeof g);
    if (accept_word(p, "on") || accept_word(p, "start"))
        g.action = RVT_TRIG_TRACE_ON;
    else if (accept_word(p, "off") || accept_word(p, "stop"))
        g.action = RVT_TRIG_TRACE_OFF;
    else if (accept_word(p, "notify") || accept_word(p, "single"))
        g.action = RVT_TRIG_NOTIFY;
    else
        return expected(p, "a trigger (on@, off@, notify@, start@, stop@, single@) or initial=");
    if (expect_op(p, "@"))
        return p->err;
    g.select = RVT_TRIG_EXECUTE;
    /* "load:" / "store:" / "access:" / "exec:" */
    if (p->t.k == T_IDENT) {
        size_t save_pos = p->pos;
        struct tok save = p->t;
        uint8_t sel = 0;
        if (is_word(p, "exec") || is_word(p, "execute"))
            sel = RVT_TRIG_EXECUTE;
        else if (is_word(p, "load"))
            sel = RVT_TRIG_LOAD;
        else if (is_word(p, "store"))
            sel = RVT_TRIG_STORE;
        else if (is_word(p, "access"))
            sel = RVT_TRIG_LOAD | RVT_TRIG_STORE;
        if (sel) {
            next(p);
            if (accept_op(p, ":")) {
                g.select = sel;
            } else { /* a symbol that happens to be named "load" */
                p->pos = save_pos;
                p->t = save;
            }
        }
    }
    g.match = RVT_TRIG_MATCH_EQ;
    if (accept_op(p, ">="))
        g.match = RVT_TRIG_MATCH_GE;
    else if (accept_op(p, "<"))
        g.match = RVT_TRIG_MATCH_LT;
    else if (accept_op(p, "!="))
        g.match = RVT_TRIG_MATCH_NE;
    size_t vcol = p->t.col;
    if (parse_value(p, &g.tdata2, NULL) || check_width(p, RVT_CMP_IADDR, g.tdata2, vcol))
        return p->err;
    if (g.match == RVT_TRIG_MATCH_EQ && (is_op(p, "..") || is_op(p, "..="))) {
        bool incl = is_op(p, "..=");
        next(p);
        size_t hcol = p->t.col;
        uint64_t hi;
        if (parse_value(p, &hi, NULL) || check_width(p, RVT_CMP_IADDR, hi, hcol))
            return p->err;
        if (incl) {
            if (hi == UINT64_MAX)
                return perr(p, hcol, "range end too large");
            hi++;
        }
        if (hi <= g.tdata2)
            return perr(p, vcol, "empty range");
        g.match = RVT_TRIG_MATCH_RANGE;
        g.tdata3 = hi;
    }
    if (accept_op(p, "/")) { /* privilege modes the trigger fires in (mcontrol m/s/u) */
        uint8_t m = 0;
        if (parse_set(p, priv_item_v, &m))
            return p->err;
        g.privs = m;
    }
    if (c->ntriggers == RVT_FILTER_MAX_TRIGGERS)
        return perr(p, col, "more than %d triggers", RVT_FILTER_MAX_TRIGGERS);
    c->trigger[c->ntriggers++] = g;
    if (g.action == RVT_TRIG_TRACE_ON)
        *added_on = true;
    return 0;
}

static int parse_trigger_spec(struct parser *p)
{
    next(p);
    if (p->t.k == T_END)
        return perr(p, 1, "empty trigger");
    bool explicit_initial = false, added_on = false;
    do {
        if (parse_trigger_item(p, &explicit_initial, &added_on))
            return p->err;
    } while (accept_op(p, ","));
    if (p->t.k != T_END)
        return expected(p, "',' or the end");
    /* A trace-on trigger means tracing waits for it, unless said otherwise. */
    if (added_on && !explicit_initial)
        p->cfg->tracing_off_at_start = true;
    return 0;
}

int rvt_filter_parse_trigger(struct rvt_filter_config *cfg, const char *spec, struct rvt_diag *d)
{
    return run(cfg, "trigger", spec, d, parse_trigger_spec);
}

/* ---- sideband ------------------------------------------------------------------ */

static int parse_sideband_spec(struct parser *p)
{
    next(p);
    if (p->t.k == T_END)
        return perr(p, 1, "empty sideband spec");
    struct rvt_filter_config *c = p->cfg;
    do {
        size_t col = p->t.col;
        if (!accept_word(p, "impdef") && !accept_word(p, "user"))
            return expected(p, "'impdef='");
        if (expect_op(p, "="))
            return p->err;
        size_t vcol = p->t.col;
        uint64_t v;
        if (parse_value(p, &v, NULL))
            return p->err;
        if (v >> 32)
            return perr(p, vcol, "impdef is 32 bits");
        if (!accept_op(p, "@")) {
            c->impdef = (uint32_t)v;
            continue;
        }
        if (p->t.k != T_NUM)
            return expected(p, "an instruction index");
        uint64_t index = p->t.num;
        next(p);
        if (c->nevents == RVT_FILTER_MAX_EVENTS)
            return perr(p, col, "more than %d sideband events", RVT_FILTER_MAX_EVENTS);
        /* Keep the events in index order (stable: later ones win on ties). */
        unsigned at = c->nevents;
        while (at && c->event[at - 1].index > index) {
            c->event[at] = c->event[at - 1];
            at--;
        }
        c->event[at].index = index;
        c->event[at].impdef = (uint32_t)v;
        c->nevents++;
    } while (accept_op(p, ","));
    if (p->t.k != T_END)
        return expected(p, "',' or the end");
    return 0;
}

int rvt_filter_parse_sideband(struct rvt_filter_config *cfg, const char *spec, struct rvt_diag *d)
{
    return run(cfg, "sideband", spec, d, parse_sideband_spec);
}

/* ---- files and options --------------------------------------------------------- */

int rvt_filter_parse_file(struct rvt_filter_config *cfg, const char *path, struct rvt_diag *d)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return rvt_fail(d, RVT_ERR_IO, "%s: %s", path, strerror(errno));
    struct rvt_filter_config *work = malloc(sizeof *work);
    if (!work) {
        fclose(fp);
        return rvt_fail(d, RVT_ERR_NOMEM, "%s: out of memory", path);
    }
    *work = *cfg;
    char line[4096];
    unsigned lineno = 0;
    int rc = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n' && !feof(fp)) {
            rc = rvt_fail(d, RVT_ERR_FORMAT, "%s: line %u: longer than %zu characters", path, lineno, sizeof line - 2);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        n = strlen(s);
        while (n && isspace((unsigned char)s[n - 1]))
            s[--n] = 0;
        if (!*s)
            continue;
        char *rest = s;
        while (*rest && !isspace((unsigned char)*rest) && *rest != ':')
            rest++;
        size_t kw = (size_t)(rest - s);
        if (*rest == ':')
            rest++;
        while (isspace((unsigned char)*rest))
            rest++;
        struct rvt_diag ld = {0};
        if (kw == 6 && strncmp(s, "filter", 6) == 0)
            rc = rvt_filter_parse(work, rest, &ld);
        else if (kw == 7 && strncmp(s, "trigger", 7) == 0)
            rc = rvt_filter_parse_trigger(work, rest, &ld);
        else if (kw == 8 && strncmp(s, "sideband", 8) == 0)
            rc = rvt_filter_parse_sideband(work, rest, &ld);
        else
            rc = rvt_fail(&ld, RVT_ERR_FORMAT, "expected 'filter', 'trigger' or 'sideband', found '%.*s'",
                          (int)(kw > 40 ? 40 : kw), s);
        if (rc < 0) {
            rvt_fail_from(d, &ld, "%s: line %u", path, lineno);
            break;
        }
    }
    if (!rc && ferror(fp))
        rc = rvt_fail(d, RVT_ERR_IO, "%s: read error", path);
    fclose(fp);
    if (!rc)
        *cfg = *work;
    free(work);
    return rc;
}

int rvt_filter_option(struct rvt_filter_config *cfg, const char *name, const char *value, struct rvt_diag *d)
{
    int rc;
    if (strcmp(name, "filter") == 0)
        rc = rvt_filter_parse(cfg, value, d);
    else if (strcmp(name, "trigger") == 0)
        rc = rvt_filter_parse_trigger(cfg, value, d);
    else if (strcmp(name, "sideband") == 0)
        rc = rvt_filter_parse_sideband(cfg, value, d);
    else if (strcmp(name, "filter-file") == 0)
        rc = rvt_filter_parse_file(cfg, value, d);
    else
        return 0;
    return rc < 0 ? rc : 1;
}

const char *rvt_filter_options_help(void)
{
    return "  --filter SPEC        trace only what SPEC qualifies (repeatable: filters are ORed), e.g.\n"
           "                       'addr in 0x20010000..0x20010400', 'addr in main and priv == U',\n"
           "                       'cause in {8, 9}', 'interrupt', 'from 0x20010544 to 0x20010600',\n"
           "                       'ctx == 3 or tval & 0xfff == 0'\n"
           "  --trigger SPEC       debug-module triggers: on@ADDR, off@ADDR, notify@ADDR (start/stop/single\n"
           "                       are aliases), on@load:ADDR, off@store:ADDR, on@LO..HI, initial=on|off\n"
           "  --sideband SPEC      impdef (user sideband) input: impdef=V (initial), impdef=V@N (from the\n"
           "                       N-th retired instruction of each hart)\n"
           "  --filter-file FILE   lines 'filter SPEC', 'trigger SPEC', 'sideband SPEC' (# comments)\n"
           "                       (see docs/filters.md)\n"
           "                       Address ranges, everywhere: LO..HI is LO <= addr < HI (HI excluded),\n"
           "                       LO..=HI is LO <= addr <= HI\n";
}

/* ---- describe -------------------------------------------------------------------- */

static const char *const g_in[] = {"iaddr", "context", "tval", "daddr"};
static const char *const g_fn[] = {"==", "!=", "<", "<=", ">", ">="};

static void put_cmp(FILE *out, unsigned input, unsigned fn, uint64_t v, bool primary)
{
    if (fn <= RVT_CMP_GE)
        fprintf(out, "%s %s 0x%" PRIx64, g_in[input & 3], g_fn[fn], v);
    else if (fn == RVT_CMP_ALWAYS)
        fputs("always", out);
    else
        fputs(primary ? "never" : "mask", out);
}

int rvt_filter_describe(const struct rvt_filter_config *c, FILE *out)
{
    static const char *const modes[] = {"P", "P && S", "!(P && S)", "latch: set by P, clear after S"};
    fprintf(out, "trTeInstTracing at start: %s\n", c->tracing_off_at_start ? "0 (off)" : "1 (on)");
    fprintf(out, "trTeInstFilters = 0x%04x%s\n", c->inst_filters, c->inst_filters ? "" : " (everything qualifies)");
    for (unsigned j = 0; j < c->ncomparators && j < RVT_FILTER_MAX_COMPARATORS; j++) {
        const struct rvt_comparator *k = &c->comp[j];
        uint32_t ctl = (uint32_t)(k->p_input & 3) | (uint32_t)(k->s_input & 3) << 2 | (uint32_t)(k->p_fn & 7) << 4 |
                       (uint32_t)(k->s_fn & 7) << 8 | (uint32_t)(k->mode & 3) << 12 | (uint32_t)k->p_notify << 14 |
                       (uint32_t)k->s_notify << 15;
        fprintf(out, "comparator %u: trTeComp%uControl = 0x%08x, PMatch = 0x%" PRIx64 ", SMatch = 0x%" PRIx64 ": P: ", j,
                j, ctl, k->p_match, k->s_match);
        put_cmp(out, k->p_input, k->p_fn, k->p_match, true);
        if (k->s_fn == RVT_CMP_S_MASK) {
            fprintf(out, " (masked with 0x%" PRIx64 ")", k->s_match);
        } else if (k->mode != RVT_CMP_MODE_P) {
            fputs(", S: ", out);
            put_cmp(out, k->s_input, k->s_fn, k->s_match, false);
        }
        fprintf(out, ", mode %s%s%s\n", modes[k->mode & 3], k->p_notify ? ", notify on P" : "",
                k->s_notify ? ", notify on S" : "");
    }
    for (unsigned i = 0; i < c->nfilters && i < RVT_FILTER_MAX_FILTERS; i++) {
        const struct rvt_filter_unit *u = &c->filter[i];
        uint32_t ctl = (uint32_t)u->enable | (uint32_t)u->match_priv << 1 | (uint32_t)u->match_ecause << 2 |
                       (uint32_t)u->match_interrupt << 3 | (uint32_t)u->match_impdef << 16;
        for (unsigned k = 0; k < RVT_FILTER_COMPS_PER_FILTER; k++)
            ctl |= ((uint32_t)u->match_comp[k] | (uint32_t)(u->comp[k] & 7) << 1) << (4 + 4 * k);
        uint32_t inst = u->priv_choice | (uint32_t)u->interrupt_value << 8;
        fprintf(out, "filter %u: trTeFilter%uControl = 0x%08x, MatchInst = 0x%08x, MatchEcause = 0x%016" PRIx64
                     ", impdef value/mask = 0x%x/0x%x:%s",
                i, i, ctl, inst, u->ecause_choice, u->impdef_value, u->impdef_mask,
                u->enable ? "" : " (disabled)");
        const char *sep = " ";
        if (u->match_priv) {
            fprintf(out, "%spriv in {", sep);
            const char *psep = "";
            for (unsigned v = 0; v < 8; v++)
                if (u->priv_choice >> v & 1) {
                    fprintf(out, "%s%u", psep, v);
                    psep = ",";
                }
            fputs("}", out);
            sep = " and ";
        }
        if (u->match_ecause) {
            fprintf(out, "%sin handlers of causes 0x%" PRIx64, sep, u->ecause_choice);
            sep = " and ";
        }
        if (u->match_interrupt) {
            fprintf(out, "%sin %s handlers", sep, u->interrupt_value ? "interrupt" : "exception");
            sep = " and ";
        }
        for (unsigned k = 0; k < RVT_FILTER_COMPS_PER_FILTER; k++)
            if (u->match_comp[k]) {
                fprintf(out, "%scomparator %u", sep, u->comp[k]);
                sep = " and ";
            }
        if (u->match_impdef) {
            fprintf(out, "%simpdef & 0x%x == 0x%x", sep, u->impdef_mask, u->impdef_value & u->impdef_mask);
            sep = " and ";
        }
        if (sep[0] == ' ' && sep[1] == 0)
            fputs(" always", out);
        fprintf(out, "%s\n", c->inst_filters >> i & 1 ? "" : " (not selected)");
    }
    static const char *const actions[] = {"?", "?", "trace-on", "trace-off", "notify"};
    for (unsigned t = 0; t < c->ntriggers && t < RVT_FILTER_MAX_TRIGGERS; t++) {
        const struct rvt_debug_trigger *g = &c->trigger[t];
        fprintf(out, "trigger %u: action %u (%s) on%s%s%s", t, g->action, g->action <= 4 ? actions[g->action] : "?",
                g->select & RVT_TRIG_EXECUTE ? " execute" : "", g->select & RVT_TRIG_LOAD ? " load" : "",
                g->select & RVT_TRIG_STORE ? " store" : "");
        switch (g->match) {
        case RVT_TRIG_MATCH_EQ:
            fprintf(out, " == 0x%" PRIx64, g->tdata2);
            break;
        case RVT_TRIG_MATCH_NE:
            fprintf(out, " != 0x%" PRIx64, g->tdata2);
            break;
        case RVT_TRIG_MATCH_GE:
            fprintf(out, " >= 0x%" PRIx64, g->tdata2);
            break;
        case RVT_TRIG_MATCH_LT:
            fprintf(out, " < 0x%" PRIx64, g->tdata2);
            break;
        case RVT_TRIG_MATCH_NAPOT:
            fprintf(out, " napot 0x%" PRIx64, g->tdata2);
            break;
        default:
            fprintf(out, " in 0x%" PRIx64 "..0x%" PRIx64, g->tdata2, g->tdata3);
            break;
        }
        if (g->privs)
            fprintf(out, " in privileges 0x%02x", g->privs);
        fputc('\n', out);
    }
    if (c->impdef || c->nevents)
        fprintf(out, "impdef = 0x%x at start\n", c->impdef);
    for (unsigned e = 0; e < c->nevents && e < RVT_FILTER_MAX_EVENTS; e++)
        fprintf(out, "impdef = 0x%x from instruction %" PRIu64 "\n", c->event[e].impdef, c->event[e].index);
    return ferror(out) ? -RVT_ERR_IO : 0;
}

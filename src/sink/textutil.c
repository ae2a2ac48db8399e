/* Small text helpers for the sink layer's parsers (sink specs, sidecars,
 * register files). */
#include "sink/sink_internal.h"

#include <string.h>

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

bool rvt_sk_parse_u64(const char *s, size_t n, bool allow_suffix, uint64_t *out)
{
    unsigned shift = 0;
    if (allow_suffix && n > 1) {
        char c = s[n - 1];
        if (c == 'k' || c == 'K')
            shift = 10;
        else if (c == 'm' || c == 'M')
            shift = 20;
        else if (c == 'g' || c == 'G')
            shift = 30;
        if (shift)
            n--;
    }
    unsigned base = 10;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        n -= 2;
    } else if (n > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        s += 2;
        n -= 2;
    }
    if (n == 0)
        return false;
    uint64_t v = 0;
    bool prev_digit = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '_') {
            /* A separator only between two digits. */
            if (!prev_digit || i + 1 == n)
                return false;
            prev_digit = false;
            continue;
        }
        int d = digit_value(s[i]);
        if (d >= (int)base)
            return false;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return false;
        v = v * base + (uint64_t)d;
        prev_digit = true;
    }
    if (shift) {
        if (v > (UINT64_MAX >> shift))
            return false;
        v <<= shift;
    }
    *out = v;
    return true;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool rvt_sk_next_line(const char *text, size_t len, size_t *pos, unsigned *lineno, struct rvt_sk_line *line)
{
    if (*pos >= len)
        return false;
    size_t b = *pos, e = b;
    while (e < len && text[e] != '\n')
        e++;
    *pos = e < len ? e + 1 : e;
    (*lineno)++;
    line->lineno = *lineno;
    /* Cut the comment. */
    for (size_t i = b; i < e; i++) {
        if (text[i] == '#' || text[i] == ';' || (text[i] == '/' && i + 1 < e && text[i + 1] == '/')) {
            e = i;
            break;
        }
    }
    while (b < e && is_blank(text[b]))
        b++;
    while (e > b && is_blank(text[e - 1]))
        e--;
    line->p = text + b;
    line->n = e - b;
    return true;
}

bool rvt_sk_token(struct rvt_sk_line *l, const char **tok, size_t *tn)
{
    while (l->n && is_blank(*l->p)) {
        l->p++;
        l->n--;
    }
    if (!l->n)
        return false;
    size_t i = 0;
    while (i < l->n && !is_blank(l->p[i]))
        i++;
    *tok = l->p;
    *tn = i;
    l->p += i;
    l->n -= i;
    while (l->n && is_blank(*l->p)) {
        l->p++;
        l->n--;
    }
    return true;
}

const char *rvt_sk_quote(const char *s, size_t n, char *out, size_t outsz)
{
    size_t j = 0, i = 0;
    for (; i < n && j + 5 < outsz; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f) {
            out[j++] = (char)c;
        } else {
            static const char hex[] = "0123456789abcdef";
            out[j++] = '\\';
            out[j++] = 'x';
            out[j++] = hex[c >> 4];
            out[j++] = hex[c & 15];
        }
    }
    if (i < n && j + 3 <= outsz) {
        out[j++] = '.';
        out[j++] = '.';
    }
    out[j] = 0;
    return out;
}

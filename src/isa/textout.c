/* printf's text for the disassembler's formats, without printf
 * (textout.h).  A listing disassembles every distinct instruction it
 * meets once, and vsnprintf was 80 % of that: about 1,700 host
 * instructions a line (bench/RESULTS.md, "What the lead's thirteenth
 * round changed"). */
#include "isa/textout.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

static void append_char(char *buf, size_t size, size_t *len, char c)
{
    if (*len + 1 < size)
        buf[*len] = c;
    ++*len;
}

/* v in base 10 or 16 (lower case), after a '-' when neg, in at least
 * `width` columns: padded with zeros after the sign, or spaces before it. */
static void append_num(char *buf, size_t size, size_t *len, uint64_t v, bool neg, unsigned base, unsigned width,
                       bool zero)
{
    static const char digits[] = "0123456789abcdef";
    char t[20];
    unsigned n = 0;
    do {
        t[n++] = digits[v % base];
        v /= base;
    } while (v);
    unsigned pad = width > n + neg ? width - n - neg : 0;
    for (; !zero && pad; pad--)
        append_char(buf, size, len, ' ');
    if (neg)
        append_char(buf, size, len, '-');
    for (; pad; pad--)
        append_char(buf, size, len, '0');
    while (n)
        append_char(buf, size, len, t[--n]);
}

void rvt_isa_vappend(char *buf, size_t size, size_t *len, const char *fmt, va_list ap)
{
    va_list whole;
    va_copy(whole, ap);
    const size_t len0 = *len;
    for (const char *f = fmt; *f; f++) {
        if (*f != '%') {
            append_char(buf, size, len, *f);
            continue;
        }
        f++;
        const bool zero = *f == '0';
        if (zero)
            f++;
        unsigned width = 0;
        while (*f >= '0' && *f <= '9' && width < 1000)
            width = width * 10 + (unsigned)(*f++ - '0');
        int size_mod = 0; /* -2 hh, -1 h, 0 none, 1 l, 2 ll */
        while (*f == 'h' && size_mod > -2) {
            size_mod--;
            f++;
        }
        while (*f == 'l' && size_mod >= 0 && size_mod < 2) {
            size_mod++;
            f++;
        }
        const bool plain = !zero && !width && !size_mod;
        if (*f == 's' && plain) {
            const char *a = va_arg(ap, const char *);
            for (a = a ? a : "(null)"; *a; a++) /* (glibc's text for a null string) */
                append_char(buf, size, len, *a);
        } else if (*f == 'c' && plain) {
            append_char(buf, size, len, (char)va_arg(ap, int));
        } else if (*f == '%' && plain) {
            append_char(buf, size, len, '%');
        } else if (*f == 'd' || *f == 'i') {
            int64_t v;
            switch (size_mod) {
            case -2: v = (signed char)va_arg(ap, int); break;
            case -1: v = (short)va_arg(ap, int); break;
            case 1: v = va_arg(ap, long); break;
            case 2: v = va_arg(ap, long long); break;
            default: v = va_arg(ap, int); break;
            }
            append_num(buf, size, len, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0, 10, width, zero);
        } else if (*f == 'u' || *f == 'x') {
            uint64_t v;
            switch (size_mod) {
            case -2: v = (unsigned char)va_arg(ap, unsigned); break;
            case -1: v = (unsigned short)va_arg(ap, unsigned); break;
            case 1: v = va_arg(ap, unsigned long); break;
            case 2: v = va_arg(ap, unsigned long long); break;
            default: v = va_arg(ap, unsigned); break;
            }
            append_num(buf, size, len, v, false, *f == 'u' ? 10 : 16, width, zero);
        } else { /* (not one of ours: printf's text for the whole format) */
            *len = len0;
            char *dst = *len < size ? buf + *len : NULL;
            const int n = vsnprintf(dst, dst ? size - *len : 0, fmt, whole);
            if (n > 0)
                *len += (size_t)n;
            break;
        }
    }
    va_end(whole);
    if (size)
        buf[*len < size ? *len : size - 1] = '\0';
}

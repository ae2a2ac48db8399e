/* printf's text for the disassembler's formats, without printf (internal
 * to the library). */
#ifndef RVT_ISA_TEXTOUT_H
#define RVT_ISA_TEXTOUT_H

#include <stdarg.h>
#include <stddef.h>

/* Append the text of fmt and ap at buf + *len, bounded like vsnprintf:
 * *len grows by the whole text's length, written or not, and buf (when
 * size > 0) ends with a NUL within size.  %s, %c, %%, and %d %i %u %x with
 * a '0' flag, a width and the length modifiers hh, h, l, ll are made here;
 * any other conversion (or flag, precision, modifier) hands the whole
 * format to vsnprintf, so the text is always printf's. */
void rvt_isa_vappend(char *buf, size_t size, size_t *len, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 0)))
#endif
    ;

#endif

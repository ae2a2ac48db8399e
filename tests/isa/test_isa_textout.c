/* rvt_isa_vappend (the disassembler's printf-free formatting) against
 * vsnprintf: every format the disassembler uses and the ones it hands to
 * vsnprintf (flags, precision, other conversions), over edge and random
 * values, into buffers of every size from 0 to past the text, appended
 * after text already there. */
#include "testlib.h"

#include "isa/textout.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* One format with its arguments: ours and vsnprintf's text after the
 * prefix "ab", at every buffer size 0 .. 48, the same bytes and length. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void same(const char *fmt, ...)
{
    for (size_t size = 0; size <= 48; size++) {
        char ours[64], want[64], whole[256], joined[264];
        va_list ap, ap2;
        va_start(ap, fmt);
        va_copy(ap2, ap);
        const int n = vsnprintf(whole, sizeof whole, fmt, ap2);
        va_end(ap2);
        /* "ab" already there, then the text: what snprintf puts in `size` bytes */
        memset(ours, 'Z', sizeof ours);
        memset(want, 'Z', sizeof want);
        snprintf(joined, sizeof joined, "ab%s", whole);
        if (size) {
            snprintf(ours, size, "ab");
            const size_t keep = strlen(joined) < size - 1 ? strlen(joined) : size - 1;
            memcpy(want, joined, keep);
            want[keep] = '\0';
        }
        size_t len = 2;
        rvt_isa_vappend(size ? ours : NULL, size, &len, fmt, ap);
        va_end(ap);
        CHECK_MSG(len == 2 + (size_t)n, "\"%s\" size %zu: length %zu, printf %d", fmt, size, len - 2, n);
        CHECK_MSG(memcmp(ours, want, sizeof ours) == 0, "\"%s\" size %zu: \"%s\" != \"%s\"", fmt, size,
                  size ? ours : "", size ? want : "");
    }
}

static void test_disassembler_formats(void)
{
    static const char *const regs[] = {"zero", "ra", "a0", "t6", "ft11", "mstatus", ""};
    static const int64_t imms[] = {0, 1, -1, 2047, -2048, 524287, INT64_MIN, INT64_MAX, -4294967296};
    for (size_t r = 0; r < sizeof regs / sizeof regs[0]; r++)
        for (size_t i = 0; i < sizeof imms / sizeof imms[0]; i++) {
            const int64_t v = imms[i];
            same("%s %s,%s,%" PRId64, "addi", regs[r], regs[0], v);
            same("%s %s,%s,0x%" PRIx64, "slli", regs[r], regs[1], (uint64_t)v);
            same("%s %s,%" PRId64 "(%s)", "ld", regs[r], v, regs[2]);
            same("jal %s,%" PRIx64, regs[r], (uint64_t)v);
            same(".%ubyte 0x%08" PRIx32 " (low 32 bits)", 6u, (uint32_t)v);
            same("%s%u%s", regs[r], (unsigned)(v & 31), "h");
            same("%s %s,0x%x", regs[r], regs[3], (unsigned)v);
            same(".2byte 0x%" PRIx32, (uint32_t)v & 0xffff);
        }
    same("fence.i");
    same("100%% %c%c", 'o', 'k');
    same("%s", (const char *)"");
}

static void test_other_formats(void)
{
    uint64_t st = 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < 200; k++) {
        const uint64_t r = rvt_test_xorshift(&st);
        const int64_t s = (int64_t)r >> (r & 63);
        same("%05d|%5d|%-5d|%+d|% d", (int)s, (int)s, (int)s, (int)s, (int)s);
        same("%hhd %hd %hhu %hu %hhx", (signed char)r, (short)r, (unsigned char)r, (unsigned short)r, (unsigned char)r);
        same("%lld %llu %llx %020lld", (long long)s, (unsigned long long)r, (unsigned long long)r, (long long)s);
        same("%ld %lu %lx %3lx", (long)s, (unsigned long)r, (unsigned long)r, (unsigned long)r);
        same("%08x %X %#x %.3d %zu", (unsigned)r, (unsigned)r, (unsigned)r, (int)s, (size_t)r);
        same("%5s|%-5s|%.2s|%c", "ab", "cd", "efg", (int)('a' + (r & 15)));
    }
    same("%d %d %u %x", INT_MIN, INT_MAX, UINT_MAX, UINT_MAX);
}

int main(void)
{
    test_disassembler_formats();
    test_other_formats();
    return rvt_test_summary("test_isa_textout");
}

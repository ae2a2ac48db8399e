/* Fuzz the ingress parsers: the native binary format (in memory) and the
 * PC-list / PC INSN text readers (through a memory stream, with the flow
 * test program as the code image). */
#define _GNU_SOURCE /* memfd_create */
#include "rvtrace/rvtrace.h"
#include "driver/fuzz_image.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct rvt_image *g_img;

/* data as a file that can be mapped (a memory file), else as a memory
 * stream. */
static FILE *as_file(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz", 0);
    if (fd >= 0) {
        FILE *f = write(fd, data, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0 ? fdopen(fd, "r") : NULL;
        if (f)
            return f;
        close(fd);
    }
    return fmemopen((void *)(uintptr_t)data, size, "r");
}

/* Every field (not the padding). */
static bool same_rec(const struct rvt_ing_rec *a, const struct rvt_ing_rec *b)
{
    return a->iaddr == b->iaddr && a->tval == b->tval && a->context == b->context && a->time == b->time &&
           a->rd_value == b->rd_value && a->mem_addr == b->mem_addr && a->mem_value == b->mem_value &&
           a->mem_operand == b->mem_operand && a->iretire == b->iretire && a->cause == b->cause &&
           a->flags == b->flags && a->itype == b->itype && a->ilastsize == b->ilastsize && a->priv == b->priv &&
           a->ctype == b->ctype && a->rd == b->rd && a->mem_size == b->mem_size && a->tp_type == b->tp_type &&
           a->hart == b->hart && a->dtype == b->dtype;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g_img = rvt_fuzz_image("flow/flowtest64.elf", "fuzz_ingress");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rvt_diag d = {0};
    rvt_ing_parse_native(data, size, NULL, NULL, &d);
    /* Also read it as a native file with a valid header prepended. */
    uint8_t *buf = malloc(size + 16);
    if (!buf)
        return 0;
    memcpy(buf, RVT_ING_MAGIC, 8);
    memset(buf + 8, 0, 8);
    buf[8] = RVT_ING_VERSION;
    buf[10] = 64;
    memcpy(buf + 16, data, size);
    rvt_ing_parse_native(buf, size + 16, NULL, NULL, &d);
    free(buf);

    /* The usual lines' fast path against the general parse: the same text
     * with a blank before every line (which the fast path does not take)
     * must give the same records and the same end or error.  (Lines near
     * the length limit are left out: the blank makes them one longer.) */
    {
        bool long_line = false;
        size_t nl = 0;
        for (size_t i = 0, len = 0; i < size; i++, len++) {
            if (data[i] == '\n') {
                nl++;
                len = 0;
            }
            long_line |= len >= 4000;
        }
        char *blank = long_line ? NULL : malloc(size + nl + 2);
        if (blank) {
            size_t n = 0;
            blank[n++] = ' ';
            for (size_t i = 0; i < size; i++) {
                blank[n++] = (char)data[i];
                if (data[i] == '\n' && i + 1 < size)
                    blank[n++] = ' ';
            }
            struct rvt_ing_rec ra, rb;
            char ea[600], eb[600];
            int ka = 0, kb = 0;
            FILE *fa = size ? fmemopen((void *)(uintptr_t)data, size, "r") : NULL, *fb = fmemopen(blank, n, "r");
            struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = RVT_ING_FMT_PCINSN, .xlen = 64};
            struct rvt_ing_reader *a = NULL, *b = NULL;
            if (!fa || !fb) {
                if (fa)
                    fclose(fa);
                if (fb)
                    fclose(fb);
            } else { /* each takes its FILE, opened or not */
                rvt_ing_open_stream(&a, fa, "fuzz", &rc, &d);
                rvt_ing_open_stream(&b, fb, "fuzz", &rc, &d);
            }
            if (a && b) {
                for (int i = 0; i < 100000; i++) {
                    ka = rvt_ing_next(a, &ra);
                    kb = rvt_ing_next(b, &rb);
                    if (ka != kb || (ka > 0 && (ra.iaddr != rb.iaddr || ra.iretire != rb.iretire || ra.itype != rb.itype ||
                                                ra.ilastsize != rb.ilastsize || ra.flags != rb.flags)))
                        abort();
                    if (ka <= 0)
                        break;
                }
                if (ka < 0) {
                    snprintf(ea, sizeof ea, "%s", rvt_ing_error(a));
                    snprintf(eb, sizeof eb, "%s", rvt_ing_error(b));
                    if (strcmp(ea, eb) != 0)
                        abort();
                }
            }
            rvt_ing_close(a);
            rvt_ing_close(b);
            free(blank);
        }
    }

    /* Text on threads (rvt_ing_text_jobs; in a quarter of the runs read
     * serially but taken by batches), cut into chunks of 1 to 192
     * bytes (and longer in long inputs: at most about 64 chunks, each a
     * hand-off between threads), from a memory stream or a file it maps,
     * against the serial reader (also of either): the same
     * records (taken one by one, or by batches and one by one), end or
     * error (message), for both text formats and every ecall mode. */
    if (size > 0) {
        /* (over 64 bytes, a mapped input's chunks have lines read in place) */
        const size_t chunk = (data[0] & 0x80 ? 65 + data[0] % 128 : 1 + data[0] % 64) + size / 64;
        const unsigned jobs = 2 + data[size - 1] % 3;
        const unsigned mapped = size > 1 ? data[1] & 3 : 0; /* bit k: reader k's input is a file it maps */
        for (int fmt = RVT_ING_FMT_PCLIST; fmt <= RVT_ING_FMT_PCINSN; fmt++) {
            struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = (enum rvt_ing_format)fmt, .image = g_img,
                                               .ecall_mode = (enum rvt_ecall_mode)(size % 3)};
            struct rvt_ing_reader *r[2] = {NULL, NULL};
            for (int k = 0; k < 2; k++) {
                /* reader 0 parses the usual lines by SSE2 alone (where the
                 * machine has AVX2, reader 1 by AVX2) in half of the runs */
                if (k == 0 && size > 1 && data[1] & 4)
                    setenv("RVT_TEXT_SIMD", "sse2", 1);
                FILE *f = mapped >> k & 1 ? as_file(data, size) : fmemopen((void *)(uintptr_t)data, size, "r");
                if (f && rvt_ing_open_stream(&r[k], f, "fuzz", &rc, &d) < 0)
                    r[k] = NULL;
                unsetenv("RVT_TEXT_SIMD");
            }
            /* (a quarter of the runs: reader 1 stays serial, to be taken by batches) */
            const bool serial = size > 2 && (data[2] & 6) == 6;
            struct rvt_ing_reader *p = NULL;
            int kj = r[1] && !serial ? rvt_ing_text_jobs(&p, r[1], jobs, chunk, &d) : 0;
            if (kj > 0)
                r[1] = p;
            else if (kj < 0) /* (out of memory: closed) */
                r[1] = NULL;
            if (r[0] && r[1]) {
                struct rvt_ing_rec a, b;
                int ka, kb;
                /* reader 1's records by batches (as encode takes them),
                 * every third time one by one, mixed; or all in short
                 * (as encode takes them for E-Trace and CDL) */
                const bool shorts = size > 2 && data[2] & 8;
                const bool batches = size > 2 && data[2] & 1;
                const struct rvt_ing_rec *batch = NULL;
                size_t nbatch = 0;
                struct rvt_ing_short_batch sb = {0};
                size_t sat = 0, sfull = 0;
                unsigned turn = 0;
                for (int i = 0;; i++) {
                    ka = rvt_ing_next(r[0], &a);
                    kb = 0;
                    if (shorts && sat == sb.n && (kb = rvt_ing_next_short(r[1], &sb)) > 0) {
                        if (!sb.n)
                            abort();
                        sat = sfull = 0;
                    }
                    if (shorts && sat < sb.n) {
                        rvt_ing_short_rec(&sb, sat++, &sfull, &b);
                        kb = 1;
                    } else if (shorts) { /* (the end or error: kb) */
                    } else if (nbatch) {
                        b = *batch++;
                        nbatch--;
                        kb = 1;
                    } else if (!batches || turn++ % 3 == 2) {
                        kb = rvt_ing_next(r[1], &b);
                    } else if ((kb = rvt_ing_next_batch(r[1], &batch, &nbatch)) > 0) {
                        if (!nbatch)
                            abort();
                        b = *batch++;
                        nbatch--;
                    }
                    if (ka != kb || (ka > 0 && !same_rec(&a, &b)))
                        abort();
                    if (ka <= 0 || i == 100000)
                        break;
                }
                if (ka < 0 && strcmp(rvt_ing_error(r[0]), rvt_ing_error(r[1])) != 0)
                    abort();
            }
            rvt_ing_close(r[0]);
            rvt_ing_close(r[1]);
        }
    }

    for (int fmt = RVT_ING_FMT_PCLIST; fmt <= RVT_ING_FMT_PCINSN; fmt++) {
        FILE *f = fmemopen((void *)(uintptr_t)data, size ? size : 1, "r");
        if (!f)
            return 0;
        struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = (enum rvt_ing_format)fmt, .image = g_img,
                                           .merge_blocks = size & 1};
        struct rvt_ing_reader *r;
        if (rvt_ing_open_stream(&r, f, "fuzz", &rc, &d) < 0)
            continue;
        struct rvt_ing_rec rec;
        for (int i = 0; i < 100000 && rvt_ing_next(r, &rec) > 0; i++)
            ;
        rvt_ing_close(r);
    }
    return 0;
}

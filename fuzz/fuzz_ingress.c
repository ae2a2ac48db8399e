/* Fuzz the ingress parsers: the native binary format (in memory) and the
 * PC-list / PC INSN text readers (through a memory stream, with the flow
 * test program as the code image). */
#include "rvtrace/rvtrace.h"
#include "driver/fuzz_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rvt_image *g_img;

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

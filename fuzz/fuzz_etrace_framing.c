/* Fuzz the E-Trace framing and decoder: arbitrary bytes decoded with the t1
 * program as the code image, through both framings and several option sets
 * (the first two bytes select them).  Errors are fine; crashes, hangs and
 * out-of-bounds reads are not. */
#include "etrace/etrace.h"
#include "rvtrace/rvtrace.h"
#include "driver/fuzz_image.h"

#include <stdio.h>
#include <stdlib.h>

extern const struct rvt_codec rvt_codec_etrace;
static struct rvt_image *g_img;
static FILE *g_null;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g_img = rvt_fuzz_image("ntrace-t1/test.elf", "fuzz_etrace_framing");
    g_null = fopen("/dev/null", "w");
    if (!g_null)
        exit(1);
    return 0;
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    (void)b;
    return ++*(unsigned long *)ctx > 5000; /* bound the work per input: a damaged count can walk a loop */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    if (!g_img)
        LLVMFuzzerInitialize(NULL, NULL);
    const struct rvt_codec *c = &rvt_codec_etrace;
    uint8_t sel = data[0];
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    c->cfg_set(cfg, "framing", (sel & 1) ? "refraw" : "encap", &d);
    c->cfg_set(cfg, "iaddress_lsb_p", (sel & 2) ? "0" : "1", &d);
    if (sel & 4)
        c->cfg_set(cfg, "implicit-return", (sel & 8) ? "fixed" : "2.0", &d);
    if (sel & 16)
        c->cfg_set(cfg, "branch-prediction", "1", &d);
    if (sel & 32)
        c->cfg_set(cfg, "jump-target-cache", "1", &d);
    if (sel & 64)
        c->cfg_set(cfg, "sijump", "1", &d);
    if (sel & 128)
        c->cfg_set(cfg, "etrace-version", "0.026", &d);
    /* the second byte: resync period, encapsulation fields, decoder modes */
    uint8_t sel2 = data[1];
    static const char *const resync[] = {"6", "0", "any", "off"};
    c->cfg_set(cfg, "resync-max", resync[sel2 & 3], &d);
    if (sel2 & 4)
        c->cfg_set(cfg, "src-bits", (sel2 & 8) ? "12" : "8", &d);
    if (sel2 & 16)
        c->cfg_set(cfg, "encap-timestamp", "2", &d);
    if (sel2 & 32)
        c->cfg_set(cfg, "encap-type-bits", "1", &d);
    if (sel2 & 64)
        c->cfg_set(cfg, "partial-compression", "1", &d);
    if (sel2 & 128)
        c->cfg_set(cfg, "strict", "1", &d);
    if (c->cfg_finish(cfg, 32, g_img, &d) == 0) {
        unsigned long blocks = 0;
        struct rvt_flow_sink sink = {.block = on_block, .note = NULL, .ctx = &blocks};
        rvt_decode_buffer(c, cfg, g_img, -1, data + 2, size - 2, &sink, &d);
        c->dump(cfg, data + 2, size - 2, g_null, &d);
    }
    rvt_codec_cfg_free(cfg);
    return 0;
}

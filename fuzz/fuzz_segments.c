/* Fuzz segments (docs/parallel.md): the families' sync-point listings
 * (rvt_segments, rvt_segment_range) and segment decodes
 * (rvt_decode_segment), which read trace bytes from a sync point found in
 * the middle of them and stop at the next.  The first input byte picks the
 * family (ntrace, etrace encap, etrace raw, cdl) and a minimum segment
 * size, the second and third a byte range to check; the rest is the trace,
 * decoded against the reference program t1 with a sink that stops after a
 * bounded number of instructions.  Each segment's decode must not crash,
 * leak or run unbounded, whatever the bytes. */
#include "rvtrace/rvtrace.h"
#include "driver/fuzz_image.h"

#include <stdlib.h>
#include <string.h>

static struct rvt_image *g_img;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g_img = rvt_fuzz_image("ntrace-t1/test.elf", "fuzz_segments");
    return 0;
}

static int count_block(void *ctx, const struct rvt_block *b)
{
    uint64_t *n = ctx;
    *n += b->ninsns;
    return *n > 32768;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    if (!g_img && LLVMFuzzerInitialize(NULL, NULL) != 0)
        return 0;
    static const char *const fam[4] = {"ntrace", "etrace", "etrace", "cdl"};
    uint8_t sel = data[0], ra = data[1], rb = data[2];
    data += 3;
    size -= 3;
    const struct rvt_codec *c = rvt_codec_find(fam[sel & 3]);
    void *cfg = c ? rvt_codec_cfg_new(c) : NULL;
    if (!cfg)
        return 0;
    struct rvt_diag d = {0};
    if ((sel & 3) == 2)
        c->cfg_set(cfg, "framing", "refraw", &d);
    if ((sel & 3) == 3)
        c->cfg_set(cfg, "cdl-data", "wide", &d);
    if (c->cfg_finish && c->cfg_finish(cfg, 32, g_img, &d) < 0) {
        rvt_codec_cfg_free(cfg);
        return 0;
    }
    struct rvt_trace_segment *seg = NULL, one;
    size_t n = 0;
    uint64_t min = (uint64_t)(sel >> 2) * 8;
    if (rvt_segments(c, cfg, data, size, min, &seg, &n, &d) == 0) {
        for (size_t i = 0; i < n && i < 6; i++) {
            uint64_t insns = 0;
            struct rvt_flow_sink sink = {.block = count_block, .ctx = &insns};
            struct rvt_decode_options o = {.size = sizeof o, .ecall = -1, .max_insns = 1 << 16};
            struct rvt_diag dd = {0};
            (void)rvt_decode_segment(c, cfg, g_img, &o, data, size, &seg[i], &sink, &dd);
        }
    }
    free(seg);
    /* A range named by the user: two places checked, then decoded. */
    if (size) {
        uint64_t a = (uint64_t)ra * size / 256, b = a + 1 + (uint64_t)rb * (size - a) / 256;
        if (b > size)
            b = size;
        struct rvt_diag rd = {0};
        if (rvt_segment_range(c, cfg, data, size, a, b, &one, &rd) == 0) {
            uint64_t insns = 0;
            struct rvt_flow_sink sink = {.block = count_block, .ctx = &insns};
            struct rvt_decode_options o = {.size = sizeof o, .ecall = -1, .max_insns = 1 << 16};
            (void)rvt_decode_segment(c, cfg, g_img, &o, data, size, &one, &sink, &rd);
        }
    }
    rvt_codec_cfg_free(cfg);
    return 0;
}

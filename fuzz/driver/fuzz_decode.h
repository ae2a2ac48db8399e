/* Shared by the fuzz targets of the nybble families' decoders (cdl, dbg):
 * any bytes decoded with the code (and without it) under option sets
 * chosen by the first byte, then dumped.  The decoder must return (never
 * crash, hang or read out of bounds), blocks must be well formed, and
 * every error must say where. */
#ifndef RVT_FUZZ_DECODE_H
#define RVT_FUZZ_DECODE_H

#include "rvtrace/rvtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The code the fuzzed traces run over: tests/data/flow/flowtest32/64.elf's
 * .text (loop, branches, jal/jalr, sequentially inferable jumps, ecall,
 * mret, compressed instructions) at its link address, so the target needs
 * no files. */
static const uint8_t rvt_fuzz_code32[] = {
    0x13, 0x05, 0x30, 0x00, 0x13, 0x05, 0xf5, 0xff, 0xe3, 0x1e, 0x05, 0xfe,
    0x01, 0x00, 0xef, 0x00, 0x40, 0x03, 0x37, 0xf3, 0xff, 0xff, 0x67, 0x00,
    0xa3, 0x01, 0x97, 0x03, 0x00, 0x00, 0x93, 0x83, 0xc3, 0x00, 0x67, 0x80,
    0x03, 0x00, 0x97, 0x00, 0x00, 0x00, 0xe7, 0x80, 0x80, 0x01, 0x73, 0x00,
    0x00, 0x00, 0x6f, 0x00, 0x40, 0x01, 0x13, 0x00, 0x00, 0x00, 0x13, 0x00,
    0x00, 0x00, 0x67, 0x80, 0x00, 0x00, 0x05, 0x05, 0x82, 0x80, 0x73, 0x00,
    0x20, 0x30, 0x13, 0x00, 0x00, 0x00,
};
static const uint8_t rvt_fuzz_code64[] = {
    0x13, 0x05, 0x30, 0x00, 0x13, 0x05, 0xf5, 0xff, 0xe3, 0x1e, 0x05, 0xfe,
    0x01, 0x00, 0xef, 0x00, 0x20, 0x03, 0x41, 0x63, 0x67, 0x00, 0x83, 0x01,
    0x97, 0x03, 0x00, 0x00, 0x93, 0x83, 0xc3, 0x00, 0x67, 0x80, 0x03, 0x00,
    0x97, 0x00, 0x00, 0x00, 0xe7, 0x80, 0x80, 0x01, 0x73, 0x00, 0x00, 0x00,
    0x6f, 0x00, 0x40, 0x01, 0x13, 0x00, 0x00, 0x00, 0x13, 0x00, 0x00, 0x00,
    0x67, 0x80, 0x00, 0x00, 0x05, 0x05, 0x82, 0x80, 0x73, 0x00, 0x20, 0x30,
    0x13, 0x00, 0x00, 0x00,
};

static inline void rvt_fuzz_check(int cond)
{
    if (!cond)
        abort();
}

static inline int rvt_fuzz_on_block(void *ctx, const struct rvt_block *b)
{
    (void)ctx;
    rvt_fuzz_check(b->ninsns >= 1);
    rvt_fuzz_check(b->end <= RVT_END_GAP);
    return 0;
}

static inline int rvt_fuzz_on_note(void *ctx, const struct rvt_note *n)
{
    (void)ctx;
    if (n->kind == RVT_NOTE_ERROR)
        rvt_fuzz_check(n->text && strstr(n->text, "offset 0x") != NULL);
    return 0;
}

/* Decode and dump data[1..) with codec c.  The first byte selects the xlen
 * (bit 0), leaves the code out when it has the no_code bit, and chooses
 * the family's options through configure. */
static inline int rvt_fuzz_decode(const struct rvt_codec *c, const uint8_t *data, size_t size, uint8_t no_code,
                                  void (*configure)(const struct rvt_codec *c, void *cfg, uint8_t sel,
                                                    struct rvt_diag *d))
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    unsigned xlen = (sel & 1) ? 64 : 32;
    struct rvt_image *img = rvt_img_new();
    if (!img)
        return 0;
    rvt_img_set_xlen(img, xlen);
    if (!(sel & no_code)) {
        if (xlen == 32)
            rvt_img_add_raw(img, 0xfffff000u, rvt_fuzz_code32, sizeof rvt_fuzz_code32, "flowtest32");
        else
            rvt_img_add_raw(img, 0x10000u, rvt_fuzz_code64, sizeof rvt_fuzz_code64, "flowtest64");
    }
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    configure(c, cfg, sel, &d);
    if (c->cfg_finish(cfg, xlen, img, &d) == 0) {
        struct rvt_flow_sink sink = {.block = rvt_fuzz_on_block, .note = rvt_fuzz_on_note, .ctx = NULL};
        int rc = rvt_decode_buffer(c, cfg, img, -1, data + 1, size - 1, &sink, &d);
        if (rc < 0)
            rvt_fuzz_check(d.msg[0] != 0);
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
            c->dump(cfg, data + 1, size - 1, devnull, &d);
            fclose(devnull);
        }
    }
    rvt_codec_cfg_free(cfg);
    rvt_img_free(img);
    return 0;
}

#endif

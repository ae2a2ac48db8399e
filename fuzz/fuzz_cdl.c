/* Fuzz target for the CDL decoder and dump: any bytes, decoded with the
 * code (and without it) under option sets chosen by the first byte.  The
 * decoder must return (never crash, hang or read out of bounds), blocks
 * must be well formed, and every error must say where. */
#include "rvtrace/rvtrace.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern const struct rvt_codec rvt_codec_cdl;

/* The code the fuzzed traces run over: tests/data/flow/flowtest32/64.elf's
 * .text (loop, branches, jal/jalr, sequentially inferable jumps, ecall,
 * mret, compressed instructions) at its link address, so the target needs
 * no files. */
static const uint8_t code32[] = {
    0x13, 0x05, 0x30, 0x00, 0x13, 0x05, 0xf5, 0xff, 0xe3, 0x1e, 0x05, 0xfe,
    0x01, 0x00, 0xef, 0x00, 0x40, 0x03, 0x37, 0xf3, 0xff, 0xff, 0x67, 0x00,
    0xa3, 0x01, 0x97, 0x03, 0x00, 0x00, 0x93, 0x83, 0xc3, 0x00, 0x67, 0x80,
    0x03, 0x00, 0x97, 0x00, 0x00, 0x00, 0xe7, 0x80, 0x80, 0x01, 0x73, 0x00,
    0x00, 0x00, 0x6f, 0x00, 0x40, 0x01, 0x13, 0x00, 0x00, 0x00, 0x13, 0x00,
    0x00, 0x00, 0x67, 0x80, 0x00, 0x00, 0x05, 0x05, 0x82, 0x80, 0x73, 0x00,
    0x20, 0x30, 0x13, 0x00, 0x00, 0x00,
};
static const uint8_t code64[] = {
    0x13, 0x05, 0x30, 0x00, 0x13, 0x05, 0xf5, 0xff, 0xe3, 0x1e, 0x05, 0xfe,
    0x01, 0x00, 0xef, 0x00, 0x20, 0x03, 0x41, 0x63, 0x67, 0x00, 0x83, 0x01,
    0x97, 0x03, 0x00, 0x00, 0x93, 0x83, 0xc3, 0x00, 0x67, 0x80, 0x03, 0x00,
    0x97, 0x00, 0x00, 0x00, 0xe7, 0x80, 0x80, 0x01, 0x73, 0x00, 0x00, 0x00,
    0x6f, 0x00, 0x40, 0x01, 0x13, 0x00, 0x00, 0x00, 0x13, 0x00, 0x00, 0x00,
    0x67, 0x80, 0x00, 0x00, 0x05, 0x05, 0x82, 0x80, 0x73, 0x00, 0x20, 0x30,
    0x13, 0x00, 0x00, 0x00,
};

static void check(int cond)
{
    if (!cond)
        abort();
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    (void)ctx;
    check(b->ninsns >= 1);
    check(b->end <= RVT_END_GAP);
    return 0;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    (void)ctx;
    if (n->kind == RVT_NOTE_ERROR)
        check(n->text && strstr(n->text, "offset 0x") != NULL);
    return 0;
}

/* Options from the first byte: xlen, what is packed, PC mode, code or
 * not, buffer layouts, strictness. */
static void configure(const struct rvt_codec *c, void *cfg, uint8_t sel, struct rvt_diag *d)
{
    static const char *const packs[4] = {"flow", "flow,rfw,tracepoints", "rfw,traps", "all"};
    c->cfg_set(cfg, "cdl-pack", packs[(sel >> 1) & 3], d);
    c->cfg_set(cfg, "cdl-pc", (sel & 8) ? "uninferable" : "all", d);
    switch ((sel >> 5) & 3) {
    case 1:
        c->cfg_set(cfg, "cdl-buffer", "256", d);
        break;
    case 2:
        c->cfg_set(cfg, "cdl-buffer", "256", d);
        c->cfg_set(cfg, "cdl-overflow", "halt", d);
        break;
    case 3:
        c->cfg_set(cfg, "cdl-image", "raw", d);
        c->cfg_set(cfg, "cdl-write-offset", "64", d);
        c->cfg_set(cfg, "cdl-wrapped", "1", d);
        c->cfg_set(cfg, "cdl-sync-nybbles", "6", d);
        break;
    default:
        break;
    }
    if (sel & 0x80)
        c->cfg_set(cfg, "strict", "1", d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const struct rvt_codec *c = &rvt_codec_cdl;
    uint8_t sel = data[0];
    unsigned xlen = (sel & 1) ? 64 : 32;
    struct rvt_image *img = rvt_img_new();
    if (!img)
        return 0;
    rvt_img_set_xlen(img, xlen);
    if (!(sel & 0x10)) {
        if (xlen == 32)
            rvt_img_add_raw(img, 0xfffff000u, code32, sizeof code32, "flowtest32");
        else
            rvt_img_add_raw(img, 0x10000u, code64, sizeof code64, "flowtest64");
    }
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    configure(c, cfg, sel, &d);
    if (c->cfg_finish(cfg, xlen, img, &d) == 0) {
        struct rvt_flow_sink sink = {on_block, on_note, NULL};
        int rc = rvt_decode_buffer(c, cfg, img, -1, data + 1, size - 1, &sink, &d);
        if (rc < 0)
            check(d.msg[0] != 0);
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

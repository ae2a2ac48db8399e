/* Fuzz target for the debug-spec trace module (dbg) decoder and dump: any bytes, decoded with the
 * code (and without it) under option sets chosen by the first byte.  The
 * decoder must return (never crash, hang or read out of bounds), blocks
 * must be well formed, and every error must say where. */
#include "rvtrace/rvtrace.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern const struct rvt_codec rvt_codec_dbg;

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

/* Options from the first byte: xlen, emit bits, destination and full
 * action, code or not, custom headers. */
static void configure(const struct rvt_codec *c, void *cfg, uint8_t sel, struct rvt_diag *d)
{
    static const char *const emits[8] = {"pc,branch,priv", "pc,priv", "pc", "pc,branch",
                                         "all", "pc,priv,loadaddr,storedata", "loaddata,storeaddr,timestamp", "none"};
    c->cfg_set(cfg, "dbg-emit", emits[(sel >> 1) & 7], d);
    c->cfg_set(cfg, "dbg-buffer", "1024", d);
    switch ((sel >> 4) & 3) {
    case 1:
        c->cfg_set(cfg, "dbg-destination", "sysram", d);
        c->cfg_set(cfg, "dbg-tbufwrite", "0x100", d);
        c->cfg_set(cfg, "dbg-wrapped", "1", d);
        break;
    case 2:
        c->cfg_set(cfg, "dbg-destination", "ram", d);
        c->cfg_set(cfg, "dbg-fullaction", "stop", d);
        break;
    default:
        break;
    }
    c->cfg_set(cfg, "dbg-custom", (sel & 0x80) ? "none" : "value", d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const struct rvt_codec *c = &rvt_codec_dbg;
    uint8_t sel = data[0];
    unsigned xlen = (sel & 1) ? 64 : 32;
    struct rvt_image *img = rvt_img_new();
    if (!img)
        return 0;
    rvt_img_set_xlen(img, xlen);
    if (!(sel & 0x40)) {
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

/* Fuzz target for the CDL decoder and dump (fuzz/driver/fuzz_decode.h):
 * the option sets the first byte chooses. */
#include "driver/fuzz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern const struct rvt_codec rvt_codec_cdl;

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
    /* Bit 0x10 of the first byte: decode without the code. */
    return rvt_fuzz_decode(&rvt_codec_cdl, data, size, 0x10, configure);
}

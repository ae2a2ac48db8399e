/* Fuzz target for the debug-spec trace module (dbg) decoder and dump
 * (fuzz/driver/fuzz_decode.h): the option sets the first byte chooses. */
#include "driver/fuzz_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern const struct rvt_codec rvt_codec_dbg;

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
    /* Bit 0x40 of the first byte: decode without the code. */
    return rvt_fuzz_decode(&rvt_codec_dbg, data, size, 0x40, configure);
}

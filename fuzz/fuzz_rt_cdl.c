/* Round-trip fuzzing of the cdl family (fuzz/driver/fuzz_roundtrip.h):
 * a generated execution, encoded with one of the option sets below, must
 * decode to itself; damaged copies must decode within the limit. */
#include "driver/fuzz_roundtrip.h"

/* (Generated programs write 64-bit values and run code above 2^56: the
 * wide data extension, docs/cdl.md.) */
static const struct rvt_fuzz_optset g_sets[] = {
    {{"cdl-data", "wide", NULL}},
    {{"cdl-data", "wide", "cdl-pc", "uninferable", NULL}},
    {{"cdl-data", "wide", "cdl-pack", "flow,rfw,traps", NULL}},
    {{"cdl-data", "wide", "cdl-pc", "uninferable", "cdl-sync-interval", "32", "cdl-sync-nybbles", "6", NULL}},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return rvt_fuzz_roundtrip(rvt_codec_find("cdl"), g_sets, sizeof g_sets / sizeof g_sets[0], data, size);
}

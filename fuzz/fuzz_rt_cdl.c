/* Round-trip fuzzing of the cdl family (fuzz/driver/fuzz_roundtrip.h):
 * a generated execution, encoded with one of the option sets below, must
 * decode to itself; damaged copies must decode within the limit. */
#include "driver/fuzz_roundtrip.h"

static const struct rvt_fuzz_optset g_sets[] = {
    {{NULL}},
    {{"cdl-pc", "uninferable", NULL}},
    {{"cdl-pack", "flow,rfw,traps", NULL}},
    {{"cdl-pc", "uninferable", "cdl-sync-interval", "32", "cdl-sync-nybbles", "6", NULL}},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return rvt_fuzz_roundtrip(rvt_codec_find("cdl"), g_sets, sizeof g_sets / sizeof g_sets[0], data, size);
}

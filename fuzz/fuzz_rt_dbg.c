/* Round-trip fuzzing of the dbg family (fuzz/driver/fuzz_roundtrip.h):
 * a generated execution, encoded with one of the option sets below, must
 * decode to itself; damaged copies must decode within the limit. */
#include "driver/fuzz_roundtrip.h"

static const struct rvt_fuzz_optset g_sets[] = {
    {{NULL}},
    {{"dbg-emit", "all", NULL}},
    {{"dbg-emit", "pc,priv", NULL}},
    {{"dbg-emit", "pc,branch,priv,timestamp", "dbg-buffer", "1024", NULL}},
    {{"dbg-emit", "pc,branch,priv,loadaddr,storeaddr", "dbg-buffer", "2048", NULL}},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return rvt_fuzz_roundtrip(rvt_codec_find("dbg"), g_sets, sizeof g_sets / sizeof g_sets[0], data, size);
}

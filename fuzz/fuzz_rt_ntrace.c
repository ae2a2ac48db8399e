/* Round-trip fuzzing of the ntrace family (fuzz/driver/fuzz_roundtrip.h):
 * a generated execution, encoded with one of the option sets below, must
 * decode to itself; damaged copies must decode within the limit. */
#include "driver/fuzz_roundtrip.h"

static const struct rvt_fuzz_optset g_sets[] = {
    {{"ntrace-mode", "btm", NULL}},
    {{"ntrace-mode", "htm", NULL}},
    {{"ntrace-mode", "htm", "callstack", "8", "repeat", "3", NULL}},
    {{"ntrace-mode", "btm", "repeat", "1", "sync-msgs", "16", NULL}},
    {{"ntrace-mode", "htm", "sync-period", "200", "timestamps", "1", "context", "1", NULL}},
    {{"ntrace-mode", "htm", "sijump", "1", "addr-ext", "1", "src-bits", "3", "src-id", "5", NULL}},
    {{"ntrace-mode", "btm", "icnt-bits", "8", "icnt-sync", "1", "callstack", "4", "repeat", "1",
      NULL}},
    {{"ntrace-mode", "htm", "hist-bits", "5", "btype-compat", "1", "context", "1", NULL}},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return rvt_fuzz_roundtrip(rvt_codec_find("ntrace"), g_sets, sizeof g_sets / sizeof g_sets[0], data, size);
}

/* Round-trip fuzzing of the etrace family (fuzz/driver/fuzz_roundtrip.h):
 * a generated execution, encoded with one of the option sets below, must
 * decode to itself; damaged copies must decode within the limit. */
#include "driver/fuzz_roundtrip.h"

static const struct rvt_fuzz_optset g_sets[] = {
    {{NULL}},
    {{"implicit-return", "fixed", "return_stack_size_p", "3", NULL}},
    {{"branch-prediction", "1", "bpred_size_p", "6", NULL}},
    {{"jump-target-cache", "1", "cache_size_p", "4", NULL}},
    {{"sijump", "1", "full-address", "1", NULL}},
    {{"framing", "refraw", "resync-max", "0", NULL}},
    {{"etrace-version", "0.026", NULL}},
    {{"implicit-return", "fixed", "return_stack_size_p", "4", "branch-prediction", "1", "bpred_size_p", "8",
      "jump-target-cache", "1", "cache_size_p", "5", "sijump", "1", "resync-max", "off", NULL}},
    {{"implicit-return", "2.0", "call_counter_size_p", "3", "src-bits", "4", "src-id", "3", "encap-timestamp", "2",
      NULL}},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return rvt_fuzz_roundtrip(rvt_codec_find("etrace"), g_sets, sizeof g_sets / sizeof g_sets[0], data, size);
}

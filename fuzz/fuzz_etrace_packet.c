/* Fuzz the E-Trace packet parser: the first byte picks the parameters
 * (version, widths, optional formats), the rest is a packet payload.  A
 * packet that parses must pack again to a payload that parses the same. */
#include "etrace/etrace.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t sel = data[0];
    struct et_params p;
    et_params_default(&p);
    p.iaddress_width_p = (sel & 1) ? 64 : 32;
    p.iaddress_lsb_p = (sel >> 1) & 1;
    p.version = (sel & 4) ? ET_V0_026 : ET_V2_0;
    p.nocontext_p = (sel >> 3) & 1;
    p.context_width_p = 24;
    p.notime_p = (sel >> 4) & 1;
    p.time_width_p = 40;
    p.return_stack_size_p = (sel >> 5) & 1 ? 3 : 0;
    p.call_counter_size_p = p.return_stack_size_p ? 0 : 2;
    p.branch_prediction = (sel >> 6) & 1;
    p.jump_target_cache = (sel >> 7) & 1;
    p.cache_size_p = 5;
    p.bpred_size_p = 6;
    p.f0s_width_p = p.branch_prediction && p.jump_target_cache ? 1 : 0;
    p.implicit_except = (sel & 0x24) == 0x20;
    p.have_tvec[3] = true;
    struct et_packet k;
    struct rvt_diag d = {0};
    size_t len = size - 1 > 64 ? 64 : size - 1;
    for (uint8_t msg = 0; msg < 2; msg++) {
        if (et_pkt_unpack(&p, msg, data + 1, len, (unsigned)len * 8, &k, &d) < 0)
            continue;
        char text[800];
        et_pkt_format_fields(&p, &k, text, sizeof text);
        uint8_t out[80];
        struct et_packet again = k;
        int n = et_pkt_pack(&p, &again, out, sizeof out, NULL, &d);
        if (n > 0) {
            struct et_packet k2;
            if (et_pkt_unpack(&p, msg, out, (size_t)n, (unsigned)n * 8, &k2, &d) < 0 || k2.format != k.format ||
                k2.address != k.address || k2.branch_map != k.branch_map)
                __builtin_trap(); /* pack and unpack disagree */
        }
    }
    return 0;
}

/* Fuzz the E-Trace packet parser: the first byte picks the parameters
 * (version, widths, optional formats), the rest is a packet payload.  A
 * packet that parses must pack again to a payload that parses the same.
 * The one-pass reader of formats 1 and 2 (et_pkt_read_fast) must take
 * exactly the payloads the general reader and the decoder's checks find
 * to be sound format 1 and 2 packets, and read them the same. */
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
    if (p.version == ET_V2_0 && len <= 31)
        for (int partial = 0; partial < 2; partial++) {
            struct et_params q = p;
            q.partial_compression = partial;
            struct et_fastrd fr;
            et_fastrd_init(&fr, &q);
            struct et_bits b;
            memset(&b, 0, sizeof b);
            for (size_t i = 0; i < len; i++)
                b.w[i / 8] |= (uint64_t)data[1 + i] << (8 * (i % 8));
            b.n = (unsigned)len * 8;
            struct et_packet kg, kf;
            bool g = et_pkt_unpack_bits(&q, ET_MSG_TE_INST, &b, &kg, &d) == 0 &&
                     et_pkt_check_padding(&b, &kg, false, &d) == 0 && et_pkt_check_irdepth(&q, &kg, &d) == 0 &&
                     (partial || et_pkt_check_compressed(&b, &kg, 0, false, &d) == 0) &&
                     (kg.format == ET_F1 || kg.format == ET_F2);
            uint8_t buf[32];
            memset(buf, 0x5a, sizeof buf); /* (it reads 32 bytes; those after the payload must not matter) */
            memcpy(buf, data + 1, len);
            bool f = fr.on && et_pkt_read_fast(&fr, buf, (unsigned)len, &kf);
            if (fr.on && (f != g || (f && memcmp(&kf, &kg, sizeof kf) != 0)))
                __builtin_trap(); /* the one-pass reader and the general one disagree */
        }
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

/* Fuzz register-setting files against a trace system with N-Trace and
 * E-Trace encoders, a funnel, an SRAM and an SMEM RAM sink and an ATB
 * bridge.  Invariant: whatever state a file reaches, the register file
 * rvt_tci_write_regfile writes for it applies cleanly to a system fresh
 * from reset and reproduces every register. */
#include "rvtrace/filter.h"
#include "rvtrace/sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUIRE(c)                                                                         \
    do {                                                                                   \
        if (!(c))                                                                          \
            abort();                                                                       \
    } while (0)

static uint8_t g_mem[2][512];

static struct rvt_tci *make(int which)
{
    struct rvt_ramsink_config ram[2] = {
        {.size = sizeof ram[0], .mode = RVT_RAM_SRAM, .width_bits = 64, .pad_byte = 0xFF, .sram_bytes = 1024},
        {.size = sizeof ram[1],
         .mode = RVT_RAM_SMEM,
         .width_bits = 32,
         .has_sram = 1,
         .has_smem = 1,
         .sram_bytes = 256,
         .mem = g_mem[which],
         .mem_base = 0x80000000,
         .mem_len = sizeof g_mem[which]},
    };
    struct rvt_te_caps caps[2];
    rvt_te_caps_default(&caps[0], 1);
    rvt_te_caps_default(&caps[1], 0);
    caps[1].n_filters = 3;
    caps[1].n_comparators = 2;
    struct rvt_tci_config c = {.size = sizeof c,
                               .n_encoders = 2,
                               .te_caps = caps,
                               .n_funnels = 1,
                               .funnel_fifo_bytes = 64,
                               .n_ramsinks = 2,
                               .ramsinks = ram,
                               .n_atb_bridges = 1,
                               .base_address = 0x1000000};
    struct rvt_tci *t = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_tci_new(&c, &t, &d) == 0);
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rvt_tci *a = make(0);
    struct rvt_diag d = {0};
    struct rvt_tci_file_options opt = {.size = sizeof opt};
    if (rvt_tci_apply_text(a, (const char *)data, size, "fuzz.regs", &opt, &d) < 0)
        REQUIRE(d.msg[0] != 0);
    /* Push some bytes through the sinks the file configured. */
    struct rvt_byte_sink s0 = rvt_ramsink_sink(rvt_tci_ramsink(a, 0));
    struct rvt_byte_sink s1 = rvt_ramsink_sink(rvt_tci_ramsink(a, 1));
    REQUIRE(s0.write(s0.ctx, data, size) >= 0);
    REQUIRE(s1.write(s1.ctx, data, size) >= 0);
    char *text = NULL, *dump = NULL;
    size_t len = 0, dlen = 0;
    FILE *f = open_memstream(&dump, &dlen);
    REQUIRE(f);
    REQUIRE(rvt_tci_dump(a, f) == 0);
    fclose(f);
    free(dump);
    /* Flush first: the register file does not carry buffered bytes. */
    rvt_ramsink_flush(rvt_tci_ramsink(a, 0));
    rvt_ramsink_flush(rvt_tci_ramsink(a, 1));
    f = open_memstream(&text, &len);
    REQUIRE(f);
    REQUIRE(rvt_tci_write_regfile(a, f) == 0);
    fclose(f);
    struct rvt_tci *b = make(1);
    opt.strict = 1;
    if (rvt_tci_apply_text(b, text, len, "regenerated", &opt, &d) != 0) {
        fprintf(stderr, "%s\n%s", d.msg, text);
        abort();
    }
    static const enum rvt_tci_comp kinds[4] = {RVT_TCI_ENCODER, RVT_TCI_FUNNEL, RVT_TCI_RAMSINK, RVT_TCI_ATBBRIDGE};
    for (int k = 0; k < 4; k++) {
        for (unsigned i = 0; i < rvt_tci_count(a, kinds[k]); i++) {
            for (uint32_t off = 0; off < 0x1000; off += 4) {
                if (kinds[k] == RVT_TCI_RAMSINK && off == 0x040)
                    continue;
                uint32_t va, vb;
                REQUIRE(rvt_tci_comp_read(a, kinds[k], i, off, &va) == 0);
                REQUIRE(rvt_tci_comp_read(b, kinds[k], i, off, &vb) == 0);
                if (va != vb) {
                    fprintf(stderr, "component 0x%x#%u +0x%03x: 0x%08x vs 0x%08x\n%s", (unsigned)kinds[k], i, off,
                            va, vb, text);
                    abort();
                }
            }
        }
    }
    /* Filters as the file programmed them: a configuration the filter
     * accepts, or an error that says why. */
    for (unsigned i = 0; i < rvt_tci_count(a, RVT_TCI_ENCODER); i++) {
        struct rvt_filter_config fc;
        rvt_filter_config_init(&fc);
        int k = rvt_filter_config_from_tci(&fc, a, i, &d);
        if (k < 0) {
            REQUIRE(d.msg[0] != 0);
        } else if (k > 0) {
            struct rvt_filter *flt = NULL;
            if (rvt_filter_new(&flt, &fc, &d) < 0)
                REQUIRE(d.msg[0] != 0);
            rvt_filter_free(flt);
        }
    }
    /* Discovery from any state finds the implementation, not the state. */
    struct rvt_te_caps caps[2];
    rvt_te_caps_default(&caps[0], 1);
    rvt_te_caps_default(&caps[1], 0);
    for (unsigned i = 0; i < 2; i++) {
        struct rvt_tci_discovery dd;
        REQUIRE(rvt_tci_discover(a, RVT_TCI_ENCODER, i, &dd, sizeof dd) == 0);
        REQUIRE(dd.inst_modes == caps[i].inst_modes && dd.features == caps[i].features);
        REQUIRE(dd.sync_max_min == caps[i].sync_max_min && dd.sync_max_max == caps[i].sync_max_max);
        REQUIRE(dd.n_filters == (i ? 3u : caps[i].n_filters) && dd.n_comparators == (i ? 2u : caps[i].n_comparators));
    }
    for (unsigned k = 1; k < 4; k++)
        for (unsigned i = 0; i < rvt_tci_count(a, kinds[k]); i++) {
            struct rvt_tci_discovery dd;
            REQUIRE(rvt_tci_discover(a, kinds[k], i, &dd, sizeof dd) == 0);
        }
    free(text);
    rvt_tci_free(a);
    rvt_tci_free(b);
    return 0;
}

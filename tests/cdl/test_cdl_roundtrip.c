/* CDL round trips: executions with traps, interrupts, privilege changes,
 * compressed code, register writes and tracepoints, through every packing
 * configuration, decoded with the ELF and without; circular buffers that
 * wrap (the tail from the first sync point is exact) or halt (the stop is
 * reported); corruption (errors with offsets, resynchronisation). */
#include "cdl/cdl.h"
#include "nybrt.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_cdl;

static const struct rvt_codec *codec(void)
{
    /* Referenced directly so the family is linked from the static library. */
    return &rvt_codec_cdl;
}

/* Every configuration that carries the flow reproduces every instruction,
 * and the register writes/tracepoints when packed. */
static void test_configs(const struct nrt_prog *p)
{
    static const char *const configs[][16] = {
        {NULL},
        {"cdl-pc", "uninferable", NULL},
        {"cdl-pack", "flow,rfw", NULL},
        {"cdl-pack", "flow,rfw,tracepoints", "cdl-pc", "uninferable", NULL},
        {"cdl-pack", "all", "cdl-sync-interval", "0", NULL},
        {"cdl-sync-interval", "16", NULL},
        {"cdl-sync-interval", "1000", "cdl-sync-nybbles", "7", NULL},
        {"cdl-pack", "flow,tracepoints", "cdl-sync-nybbles", "12", "cdl-sync-interval", "40", NULL},
    };
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) {
        for (int nocode = 0; nocode < 2; nocode++) {
            const char *const *o = configs[k];
            bool uninf = false, rfw = false, tp = false;
            for (size_t i = 0; o[i]; i += 2) {
                uninf |= strcmp(o[i + 1], "uninferable") == 0;
                rfw |= strstr(o[i + 1], "rfw") || strcmp(o[i + 1], "all") == 0;
                tp |= strstr(o[i + 1], "tracepoints") || strcmp(o[i + 1], "all") == 0;
            }
            if (nocode && uninf)
                continue; /* needs the ELF */
            char desc[256], why[256];
            nrt_opts_desc(o, desc, sizeof desc);
            struct nrt_enc enc;
            struct nrt_dec dec;
            if (!nrt_run(codec(), p, o, nocode, &enc, &dec, NULL))
                continue;
            CHECK_MSG(dec.rc == 0 && dec.errors == 0, "%s %s%s: decode rc %d, %" PRIu64 " errors: %s %s", p->name,
                      desc, nocode ? "(no ELF)" : "", dec.rc, dec.errors, dec.msg, dec.first_error);
            CHECK_MSG(nrt_same_pcs(p->pcs, p->npcs, dec.pcs, dec.npcs, false, why, sizeof why), "%s %s%s: %s",
                      p->name, desc, nocode ? "(no ELF)" : "", why);
            if (rfw && p->ndata)
                nrt_check_data(p, &dec, RVT_DATA_REG_WRITE, true, desc);
            if (tp && p->ndata)
                nrt_check_data(p, &dec, RVT_DATA_TRACEPOINT, true, desc);
            if (!rfw)
                for (size_t i = 0; i < dec.ndata; i++)
                    CHECK_MSG(dec.data[i].kind != RVT_DATA_REG_WRITE, "%s %s: register writes decoded but not packed",
                              p->name, desc);
            if (!nocode)
                printf("  %-12s %-70s %8zu insns %7zu bytes %.3f bits/insn\n", p->name, desc, dec.npcs, enc.out.len,
                       8.0 * (double)enc.out.len / (double)(p->npcs ? p->npcs : 1));
            nrt_dec_free(&dec);
            rvt_membuf_free(&enc.out);
        }
    }
}

/* Packed traces without the flow: logs of register writes, traps,
 * tracepoints. */
static void test_logs(const struct nrt_prog *p)
{
    const char *const rfw[] = {"cdl-pack", "rfw", NULL};
    struct nrt_enc enc;
    struct nrt_dec dec;
    if (nrt_run(codec(), p, rfw, false, &enc, &dec, NULL)) {
        CHECK_MSG(dec.npcs == 0 && dec.errors == 0, "%s: rfw log: %zu insns, %" PRIu64 " errors", p->name, dec.npcs,
                  dec.errors);
        nrt_check_data(p, &dec, RVT_DATA_REG_WRITE, false, "rfw log");
        nrt_dec_free(&dec);
        rvt_membuf_free(&enc.out);
    }
    const char *const traps[] = {"cdl-pack", "traps,tracepoints", NULL};
    if (nrt_run(codec(), p, traps, false, &enc, &dec, NULL)) {
        uint64_t want = 0;
        for (size_t i = 0; i < p->x.n; i++)
            want += p->x.recs[i].itype == RVT_ITYPE_EXCEPTION || p->x.recs[i].itype == RVT_ITYPE_INTERRUPT;
        CHECK_MSG(dec.traps == want, "%s: traps log: %" PRIu64 " traps decoded, %" PRIu64 " in the execution",
                  p->name, dec.traps, want);
        nrt_check_data(p, &dec, RVT_DATA_TRACEPOINT, false, "traps log");
        nrt_dec_free(&dec);
        rvt_membuf_free(&enc.out);
    }
}

int main(void)
{
    const struct rvt_codec *c = codec();
    if (!c) {
        rvt_test_fail(__FILE__, __LINE__, "no cdl codec registered");
        return rvt_test_summary("test_cdl_roundtrip");
    }
    struct nrt_prog p32, p64, t1, real;
    if (nrt_prog_flowtest(&p32, "flow/flowtest32.elf", 32, 400, NRT_DATA | NRT_TRACEPOINTS)) {
        test_configs(&p32);
        test_logs(&p32);
    }
    if (nrt_prog_flowtest(&p64, "flow/flowtest64.elf", 64, 400, NRT_DATA | NRT_TRACEPOINTS)) {
        test_configs(&p64);
        test_logs(&p64);
    }
    if (nrt_prog_pclist(&t1, "ntrace-t1/test.elf", "ntrace-t1/test-PCONLY.txt", NRT_DATA | NRT_TRACEPOINTS)) {
        test_configs(&t1);
    }
    if (nrt_prog_real(&real))
        test_configs(&real);
    nrt_prog_free(&real);
    nrt_prog_free(&p32);
    nrt_prog_free(&p64);
    nrt_prog_free(&t1);
    return rvt_test_summary("test_cdl_roundtrip");
}

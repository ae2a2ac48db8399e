/* Both nybble families on generated programs (RV32 and RV64, every
 * generator feature: compressed code, traps of every kind, interrupts,
 * nesting, privilege changes, processes, time, register and memory data):
 * every configuration round-trips the instructions, and the register writes
 * (cdl) or load/store addresses and values (dbg) when enabled; with and
 * without the ELF where the configuration allows it.  Built only when the
 * generator (include/rvtrace/gen.h) is in the tree. */
#include "nybrt.h"
#include "rvtrace/gen.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_cdl, rvt_codec_dbg;

static bool has_kind(const struct nrt_prog *p, uint8_t kind)
{
    for (size_t i = 0; i < p->ndata; i++)
        if (p->data[i].kind == kind)
            return true;
    return false;
}

static void run_case(const struct rvt_codec *c, const struct nrt_prog *p, const char *const *o, bool nocode,
                     const uint8_t *kinds, bool with_index)
{
    char desc[256], why[256];
    nrt_opts_desc(o, desc, sizeof desc);
    struct nrt_enc enc;
    struct nrt_dec dec;
    if (!nrt_run(c, p, o, nocode, &enc, &dec, NULL))
        return;
    CHECK_MSG(dec.rc == 0 && dec.errors == 0 && dec.gaps == 0, "%s %s %s%s: rc %d, %" PRIu64 " errors, %" PRIu64
                                                               " gaps: %s %s %s",
              c->name, p->name, desc, nocode ? "(no ELF)" : "", dec.rc, dec.errors, dec.gaps, dec.msg,
              dec.first_error, dec.last_gap);
    CHECK_MSG(nrt_same_pcs(p->pcs, p->npcs, dec.pcs, dec.npcs, false, why, sizeof why), "%s %s %s%s: %s", c->name,
              p->name, desc, nocode ? "(no ELF)" : "", why);
    for (const uint8_t *k = kinds; k && *k; k++)
        if (has_kind(p, *k))
            nrt_check_data(p, &dec, *k, with_index, desc);
    if (!nocode)
        printf("  %-4s %-13s %-60s %8zu insns %8zu bytes %.3f bits/insn\n", c->name, p->name, desc, dec.npcs,
               enc.out.len, 8.0 * (double)enc.out.len / (double)(p->npcs ? p->npcs : 1));
    nrt_dec_free(&dec);
    rvt_membuf_free(&enc.out);
}

static void test_cdl(const struct nrt_prog *p)
{
    static const char *const cfgs[][8] = {
        {NULL},
        {"cdl-pc", "uninferable", NULL},
        {"cdl-pack", "all", NULL},
        {"cdl-pack", "flow,rfw", "cdl-pc", "uninferable", "cdl-sync-interval", "64", NULL},
    };
    static const uint8_t rfw[] = {RVT_DATA_REG_WRITE, 0};
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
        bool uninf = cfgs[k][0] && strstr(cfgs[k][1], "uninferable");
        for (size_t i = 0; cfgs[k][i]; i += 2)
            uninf |= strcmp(cfgs[k][i + 1], "uninferable") == 0;
        bool data = cfgs[k][0] && (strstr(cfgs[k][1], "rfw") || strcmp(cfgs[k][1], "all") == 0);
        run_case(&rvt_codec_cdl, p, cfgs[k], false, data ? rfw : NULL, true);
        if (!uninf)
            run_case(&rvt_codec_cdl, p, cfgs[k], true, data ? rfw : NULL, true);
    }
}

static void test_dbg(const struct nrt_prog *p, bool rvc)
{
    static const char *const cfgs[][8] = {
        {NULL},
        {"dbg-emit", "pc,priv", NULL},
        {"dbg-emit", "pc,branch,priv,loadaddr,storeaddr,timestamp", "dbg-buffer", "1024", NULL},
        {"dbg-emit", "pc,priv,loadaddr,loaddata,storeaddr,storedata", NULL},
    };
    static const uint8_t mem[] = {RVT_DATA_LOAD_ADDR, RVT_DATA_STORE_ADDR, 0};
    static const uint8_t memval[] = {RVT_DATA_LOAD_ADDR, RVT_DATA_STORE_ADDR, RVT_DATA_STORE_VALUE, 0};
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
        const uint8_t *kinds = k == 2 ? mem : k == 3 ? memval : NULL;
        run_case(&rvt_codec_dbg, p, cfgs[k], false, kinds, false);
        if (k == 1 || k == 3)
            run_case(&rvt_codec_dbg, p, cfgs[k], true, kinds, false);
    }
    /* PC packets only: an interrupt names the last instruction executed
     * (seed 004), so one taken just before an indirect jump does not read
     * as that jump (issue 9 §5; the old epc form decoded one instruction
     * too many here).  The old form stays decodable with emitpriv. */
    static const char *const pc_only[] = {"dbg-emit", "pc", NULL};
    run_case(&rvt_codec_dbg, p, pc_only, false, NULL, false);
    static const char *const epc[] = {"dbg-emit", "pc,priv", "dbg-trap-pc", "epc", NULL};
    run_case(&rvt_codec_dbg, p, epc, false, NULL, false);
    static const char *const epc_br[] = {"dbg-trap-pc", "epc", NULL};
    run_case(&rvt_codec_dbg, p, epc_br, false, NULL, false);
    if (!rvc) {
        const char *const o[] = {"dbg-emit", "pc,priv", "dbg-rvc", "off", NULL};
        run_case(&rvt_codec_dbg, p, o, false, NULL, false);
        run_case(&rvt_codec_dbg, p, o, true, NULL, false);
    }
}

int main(void)
{
    /* Everything the generator can do. */
    uint32_t all = RVT_GEN_ALL_FEATURES;
    for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
        struct nrt_prog p;
        if (nrt_prog_gen(&p, xlen, all, 7 + xlen, false, 200000)) {
            test_cdl(&p);
            test_dbg(&p, true);
        }
        nrt_prog_free(&p);
        /* Merged blocks (data only for each block's last instruction). */
        if (nrt_prog_gen(&p, xlen, all, 11 + xlen, true, 200000)) {
            test_cdl(&p);
            test_dbg(&p, true);
        }
        nrt_prog_free(&p);
        /* Without the C extension: dbg PC packets can drop bit 1. */
        if (nrt_prog_gen(&p, xlen, all & ~(uint32_t)RVT_GEN_COMPRESSED, 13 + xlen, false, 100000))
            test_dbg(&p, false);
        nrt_prog_free(&p);
    }
    return rvt_test_summary("test_nybble_gen");
}

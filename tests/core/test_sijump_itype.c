/* The hart's sijump signal applies to uninferable jumps only: "Ignored for
 * itype codes other than 6, 8, 10, 12 or 14" (E-Trace ingressPort.adoc,
 * the sijump signal).  An ingress file may carry the flag on any record
 * (native files and reference CSV come from outside); the encoders must
 * give the same bytes as without it on returns, trap returns, branches,
 * traps and plain records, and the decode must still be the execution. */
#include "rvtrace/rvtrace.h"
#include "roundtrip.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static bool sijump_applies(uint8_t itype)
{
    return itype == RVT_ITYPE_UNINF_JUMP3 || itype == RVT_ITYPE_CALL_UNINF || itype == RVT_ITYPE_JUMP_UNINF ||
           itype == RVT_ITYPE_COSWAP || itype == RVT_ITYPE_OTHER_UNINF;
}

static void one(const char *format, const char *const *options, unsigned xlen, uint64_t seed)
{
    struct rvt_gen_config gc;
    rvt_gen_config_init(&gc);
    gc.seed = seed;
    gc.xlen = xlen;
    gc.insns = 20000;
    gc.features |= RVT_GEN_TRAPS | RVT_GEN_PRIV;
    struct rvt_gen_program *prog = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_gen_program_new(&prog, &gc, &d) == 0);
    struct rvt_image *img = rvt_gen_image(prog);
    struct rvt_recs recs = {0};
    REQUIRE(rvt_recs_gen(&recs, prog, &gc, false, &d) == 0);

    struct rvt_rt_opts o = {.format = format, .options = options};
    struct rvt_rt_result res;
    uint8_t *want = NULL, *got = NULL;
    size_t want_len = 0, got_len = 0;
    int rc = rvt_roundtrip(&o, img, &recs, &res, &want, &want_len);
    CHECK_MSG(rc == 0 && res.errors == 0, "%s rv%u seed %llu as generated: %s", format, xlen,
              (unsigned long long)seed, res.msg);

    size_t flagged = 0, returns = 0;
    for (size_t i = 0; i < recs.n; i++)
        if (!sijump_applies(recs.r[i].itype) && !(recs.r[i].flags & RVT_ING_SIJUMP)) {
            recs.r[i].flags |= RVT_ING_SIJUMP;
            flagged++;
            returns += recs.r[i].itype == RVT_ITYPE_RETURN;
        }
    CHECK_MSG(returns > 100, "%s rv%u seed %llu: only %zu returns", format, xlen, (unsigned long long)seed, returns);
    rc = rvt_roundtrip(&o, img, &recs, &res, &got, &got_len);
    CHECK_MSG(rc == 0 && res.errors == 0, "%s rv%u seed %llu with sijump set on %zu other records: %s", format, xlen,
              (unsigned long long)seed, flagged, res.msg);
    CHECK_MSG(got_len == want_len && want && got && memcmp(got, want, want_len) == 0,
              "%s rv%u seed %llu: sijump on %zu records it does not apply to changed the bytes (%zu -> %zu)", format,
              xlen, (unsigned long long)seed, flagged, want_len, got_len);
    free(want);
    free(got);
    rvt_recs_free(&recs);
    rvt_img_free(img);
    rvt_gen_program_free(prog);
}

int main(void)
{
    static const char *const nt[] = {"sijump", "1", NULL};
    static const char *const nt_cs[] = {"sijump", "1", "callstack", "8", NULL};
    static const char *const et[] = {"sijump", "1", NULL};
    static const char *const et_ir[] = {"sijump", "1", "implicit-return", "fixed", NULL};
    for (unsigned xlen = 32; xlen <= 64; xlen += 32)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            one("ntrace", nt, xlen, seed);
            one("ntrace", nt_cs, xlen, seed);
            one("etrace", et, xlen, seed);
            one("etrace", et_ir, xlen, seed);
        }
    return rvt_test_summary("test_sijump_itype");
}

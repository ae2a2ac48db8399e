/* E-Trace on the bundled real capture (tests/data/real: bzip2 -9 on
 * RV64GC, 1.47 M instructions) through the shared round-trip oracle
 * (tests/lib/roundtrip.h): every option set exact, and for some, traces cut
 * at several offsets (a tail from the next sync point) and truncated (a
 * prefix).  Skipped when xz is missing. */
#include "roundtrip.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_etrace; /* (links the family in) */

static const struct {
    const char *name;
    const char *opts[24];
    bool cuts;
} sets[] = {
    {"default", {NULL}, true},
    {"refraw", {"framing", "refraw", NULL}, false},
    {"full-address", {"full-address", "1", NULL}, false},
    {"resync 2^5 packets", {"resync-max", "1", NULL}, true},
    {"ir-2.0", {"implicit-return", "2.0", "return_stack_size_p", "3", NULL}, false},
    {"ir-fixed", {"implicit-return", "fixed", "return_stack_size_p", "2", NULL}, true},
    {"ir-fixed-counter", {"implicit-return", "fixed", "call_counter_size_p", "3", NULL}, false},
    {"bpred", {"branch-prediction", "1", "bpred_size_p", "8", NULL}, true},
    {"jtc", {"jump-target-cache", "1", "cache_size_p", "5", NULL}, false},
    {"sijump", {"sijump", "1", NULL}, false},
    {"multi-retire", {"taken_branches_p", "8", NULL}, false},
    {"all",
     {"implicit-return", "fixed", "return_stack_size_p", "4", "branch-prediction", "1", "jump-target-cache", "1",
      "f0s_width_p", "1", "sijump", "1", "resync-max", "0", NULL},
     true},
    {"0.026", {"etrace-version", "0.026", NULL}, true},
};

/* Issue 10: a flip in the leading synchronisation sequence dropped the
 * first 3,354 instructions without a word.  Every flip of the bits that
 * matter (length bits 0-4 of each null byte; the others keep it a null)
 * gives the whole decode or an error. */
static void leading_sync(const struct rvt_image *img, const struct rvt_rt_opts *o, const uint8_t *bytes, size_t len,
                         uint64_t insns)
{
    uint8_t *buf = malloc(len);
    unsigned whole = 0, reported = 0;
    for (size_t at = 0; at < 33 && at < len; at++) {
        for (unsigned bit = 0; bit < 5; bit++) {
            memcpy(buf, bytes, len);
            buf[at] ^= (uint8_t)(1u << bit);
            struct rvt_rt_result r;
            CHECK(rvt_decode_segments(o, img, buf, len, &r) > 0);
            if (r.errors)
                reported++;
            else if (r.insns_out == insns && r.gaps == 0)
                whole++;
            else
                CHECK_MSG(0, "leading sync byte %zu bit %u: %" PRIu64 " of %" PRIu64 " instructions, no error", at,
                          bit, r.insns_out, insns);
        }
    }
    printf("  leading sync flips: %u whole decodes, %u reported\n", whole, reported);
    free(buf);
}

static void run(void)
{
    struct rvt_image *img = NULL;
    struct rvt_recs recs = {0};
    int got = rvt_recs_bundled_capture(&img, &recs);
    if (got <= 0) {
        rvt_img_free(img);
        return;
    }

    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        struct rvt_rt_opts o = {.format = "etrace", .options = sets[i].opts};
        struct rvt_rt_result r;
        uint8_t *bytes = NULL;
        size_t len = 0;
        int rc = rvt_roundtrip(&o, img, &recs, &r, &bytes, &len);
        CHECK_MSG(rc == 0, "%s: %s", sets[i].name, r.msg);
        CHECK_MSG(r.insns_in == 1465437 && r.insns_out == r.insns_in, "%s: %" PRIu64 " of %" PRIu64 " instructions",
                  sets[i].name, r.insns_out, r.insns_in);
        printf("  %-18s %8" PRIu64 " insns %7" PRIu64 " bytes %6" PRIu64 " packets %.4f bits/insn\n", sets[i].name,
               r.insns_in, r.bytes, r.packets, r.insns_in ? 8.0 * (double)r.bytes / (double)r.insns_in : 0);
        if (sets[i].cuts && rc == 0) {
            /* cuts at a spread of offsets, and truncations */
            for (unsigned k = 1; k <= 6; k++) {
                struct rvt_rt_opts oc = o;
                oc.cut = len * k / 7 + k * 13;
                struct rvt_rt_result rr;
                CHECK_MSG(rvt_roundtrip(&oc, img, &recs, &rr, NULL, NULL) == 0, "%s cut at %zu: %s", sets[i].name,
                          oc.cut, rr.msg);
                CHECK_MSG(rr.insns_out > 0, "%s cut at %zu: nothing decoded", sets[i].name, oc.cut);
                struct rvt_rt_opts ot = o;
                ot.truncate = len * k / 7 + k * 7;
                CHECK_MSG(rvt_roundtrip(&ot, img, &recs, &rr, NULL, NULL) == 0, "%s truncated at %zu: %s",
                          sets[i].name, ot.truncate, rr.msg);
            }
        }
        if (i == 0 && rc == 0)
            leading_sync(img, &o, bytes, len, r.insns_in);
        free(bytes);
    }
    rvt_recs_free(&recs);
    rvt_img_free(img);
}

int main(void)
{
    (void)&rvt_codec_etrace;
    run();
    return rvt_test_summary("test_et_real");
}

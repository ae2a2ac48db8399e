/* E-Trace data trace on a real capture: the bundled bzip2 -9 run
 * (tests/data/real) captured with `rvtrace capture --mem`
 * (tests/data/etrace-data/real): 1.47 M instructions, 405,467 loads,
 * stores and atomics with their addresses (QEMU's plugin interface gives
 * no values, so the data trace carries addresses only).  Encoded with the
 * data trace options, decoded: every instruction and every access, tied
 * to its instruction.  Skipped when xz is missing. */
#include "drt.h"
#include "roundtrip.h"
#include "rt.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    const char *opts[24];
} sets[] = {
    {"default", {"data-trace", "on", "data-no-value", "1", NULL}},
    {"refraw", {"data-trace", "on", "data-no-value", "1", "framing", "refraw", NULL}},
    {"full-address", {"data-trace", "on", "data-no-value", "1", "data-full-address", "1", NULL}},
    {"split", {"data-trace", "on", "data-no-value", "1", "data_split_p", "1", "lrid_width_p", "3", NULL}},
    {"loads", {"data-trace", "on", "data-no-value", "1", "data-types", "load", NULL}},
    {"stack-range",
     {"data-trace", "on", "data-no-value", "1", "data-filter-range", "0x10000..0x20000", "data-filter-range",
      "0x40000..0x50000", NULL}},
    {"all-inst",
     {"data-trace", "on", "data-no-value", "1", "implicit-return", "fixed", "return_stack_size_p", "4",
      "branch-prediction", "1", "jump-target-cache", "1", "sijump", "1", "resync-max", "0", NULL}},
};

int main(void)
{
    char path[1024], ing[1024];
    if (!rvt_test_unxz("real/bzip2.xz", "bzip2", path, sizeof path) ||
        !rvt_test_unxz("etrace-data/real/bzip2-9-mem.ing.xz", "mem.ing", ing, sizeof ing)) {
        printf("  (no xz: the real capture is not used)\n");
        return 77;
    }
    struct rvt_image *img = rvt_img_new();
    if (!img || rvt_img_load_elf(img, path) < 0) {
        CHECK_MSG(0, "%s: %s", path, img ? rvt_img_error(img) : "out of memory");
        return rvt_test_summary("test_et_data_real");
    }
    struct rvt_recs recs = {0};
    struct rvt_diag d = {0};
    if (rvt_recs_load(&recs, ing, img, &d) < 0) {
        CHECK_MSG(0, "%s: %s", ing, d.msg);
        return rvt_test_summary("test_et_data_real");
    }
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        char err[700];
        void *cfg = rt_config(sets[i].opts, 64, img, err, sizeof err);
        CHECK_MSG(cfg, "%s: %s", sets[i].name, err);
        if (!cfg)
            continue;
        struct rt_result enc = {0};
        struct drt_notes got = {0}, want = {0};
        if (rt_encode(cfg, recs.r, recs.n, &enc, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s: encode: %s", sets[i].name, err);
        } else if (drt_decode(cfg, img, -1, enc.bytes, enc.nbytes, &got, err, sizeof err) < 0) {
            CHECK_MSG(0, "%s: %s", sets[i].name, err);
        } else {
            CHECK(drt_expect(cfg, recs.r, recs.n, img, &want) == 0);
            char why[400] = "";
            size_t k = drt_compare(&got, &want, why, sizeof why);
            CHECK_MSG(got.npcs == 1465437 && !got.errors && !got.gaps && !got.lost, "%s: %zu instructions%s%s",
                      sets[i].name, got.npcs, got.errors ? ", error " : "", got.first_error);
            CHECK_MSG(k == want.n && got.n == want.n, "%s: %s", sets[i].name, why);
            CHECK_MSG(want.n > 1000, "%s: only %zu accesses", sets[i].name, want.n);
            printf("  %-14s %8zu bytes, %6zu data notes\n", sets[i].name, enc.nbytes, want.n);
        }
        drt_free(&got);
        drt_free(&want);
        rt_free(&enc);
        rvt_codec_cfg_free(cfg);
    }
    rvt_recs_free(&recs);
    rvt_img_free(img);
    return rvt_test_summary("test_et_data_real");
}

/* The shared round-trip oracle (tests/lib/roundtrip.h) on both nybble
 * families: exact round trips of generated RV32/RV64 executions, decoding
 * from an arbitrary cut (a capture that starts mid-stream: the tail from
 * the first sync point), truncated traces (a prefix), and damaged bytes. */
#include "roundtrip.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Referenced so the families are linked from the static library. */
extern const struct rvt_codec rvt_codec_cdl, rvt_codec_dbg;
const struct rvt_codec *const nybble_codecs[] = {&rvt_codec_cdl, &rvt_codec_dbg};

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* `values`: the configuration traces data values, and the round trip must
 * have compared some (every one of them, at full width: rvt_roundtrip). */
static void run(const char *format, const char *const *opts, const struct rvt_image *img,
                const struct rvt_recs *recs, unsigned xlen, bool values)
{
    struct rvt_rt_opts o = {.format = format, .options = opts};
    struct rvt_rt_result res;
    uint8_t *bytes = NULL;
    size_t len = 0;
    int rc = rvt_roundtrip(&o, img, recs, &res, &bytes, &len);
    char desc[200] = "";
    for (size_t i = 0; opts[i]; i += 2) {
        size_t l = strlen(desc);
        snprintf(desc + l, sizeof desc - l, " --%s %s", opts[i], opts[i + 1]);
    }
    CHECK_MSG(rc == 0 && res.insns_out == res.insns_in, "%s rv%u%s: %s", format, xlen, desc, res.msg);
    CHECK_MSG(!values || res.values > 1000, "%s rv%u%s: only %" PRIu64 " values compared", format, xlen, desc,
              res.values);
    if (rc < 0 || !bytes)
        return;
    uint64_t s = 99 + xlen;
    for (int k = 0; k < 6; k++) {
        /* Decode from an arbitrary byte: the tail from the first sync point. */
        struct rvt_rt_opts cut = o;
        cut.cut = 1 + (size_t)(rng(&s) % (len - len / 4));
        rc = rvt_roundtrip(&cut, img, recs, &res, NULL, NULL);
        CHECK_MSG(rc == 0 && res.insns_out > 0, "%s rv%u%s cut at %zu of %zu: %s (%" PRIu64 " decoded)", format, xlen,
                  desc, cut.cut, len, res.msg, res.insns_out);
        /* Keep only a prefix: what was recorded before it stopped. */
        struct rvt_rt_opts tr = o;
        tr.truncate = 64 + (size_t)(rng(&s) % (len - 64));
        rc = rvt_roundtrip(&tr, img, recs, &res, NULL, NULL);
        CHECK_MSG(rc == 0, "%s rv%u%s truncated to %zu of %zu: %s", format, xlen, desc, tr.truncate, len, res.msg);
    }
    /* Damage: the decoder survives and says what it skipped. */
    for (int k = 0; k < 8; k++) {
        uint8_t *b = malloc(len);
        memcpy(b, bytes, len);
        for (int j = 0; j < 1 + k; j++)
            b[rng(&s) % len] ^= (uint8_t)(1u << (rng(&s) % 8));
        rc = rvt_decode_segments(&o, img, b, len, &res);
        CHECK_MSG(rc > 0, "%s rv%u%s damaged: %s", format, xlen, desc, res.msg);
        free(b);
    }
    free(bytes);
}

static void family_tests(unsigned xlen)
{
    {
        struct rvt_gen_config gc;
        rvt_gen_config_init(&gc);
        gc.xlen = xlen;
        gc.seed = 21 + xlen;
        gc.insns = 60000;
        gc.features = RVT_GEN_ALL_FEATURES;
        struct rvt_gen_program *g;
        struct rvt_diag d = {0};
        REQUIRE(rvt_gen_program_new(&g, &gc, &d) == 0);
        struct rvt_image *img = rvt_gen_image(g);
        struct rvt_recs recs = {0};
        REQUIRE(img && rvt_recs_gen(&recs, g, &gc, xlen == 64, &d) == 0);
        /* (The generated programs jump to the top of the address space and
         * write 64-bit f registers: cdl needs the wide data extension.) */
        static const char *const cdl1[] = {"ecall", "trap", "cdl-data", "wide", "cdl-pack", "all", NULL};
        static const char *const cdl2[] = {"ecall", "trap", "cdl-data", "wide", "cdl-pc", "uninferable",
                                           "cdl-sync-interval", "256", NULL};
        static const char *const dbg1[] = {"ecall", "trap", NULL};
        static const char *const dbg2[] = {"ecall", "trap", "dbg-emit", "pc,priv", "dbg-buffer", "2048", NULL};
        static const char *const dbg3[] = {"ecall", "trap", "dbg-emit", "all", NULL};
        run("cdl", cdl1, img, &recs, xlen, true);
        run("cdl", cdl2, img, &recs, xlen, false);
        run("dbg", dbg1, img, &recs, xlen, false);
        run("dbg", dbg2, img, &recs, xlen, false);
        run("dbg", dbg3, img, &recs, xlen, true);
        rvt_recs_free(&recs);
        rvt_img_free(img);
        rvt_gen_program_free(g);
    }
}

int main(void)
{
    family_tests(32);
    family_tests(64);
    return rvt_test_summary("test_nybble_oracle");
}

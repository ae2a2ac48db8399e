/* E-Trace robustness: a trace cut at any byte (front, back or both, as a
 * wrapped circular buffer leaves it) decodes from the next synchronisation
 * point and matches the execution from there; corrupted traces give errors
 * with an offset and the decoder resynchronises. */
#include "rt.h"
#include "synth.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* Is `got` a contiguous run inside `want` that ends exactly where want ends
 * (suffix) when must_end? */
static bool is_slice(const uint64_t *got, size_t ng, const uint64_t *want, size_t nw, bool must_end)
{
    if (ng == 0)
        return true;
    if (ng > nw)
        return false;
    size_t lo = must_end ? nw - ng : 0, hi = nw - ng;
    for (size_t j = lo; j <= hi; j++)
        if (!memcmp(got, want + j, ng * sizeof *got))
            return true;
    return false;
}

static void cuts(const char *name, const char *const *opts, unsigned xlen, unsigned seed)
{
    struct synth_opts so;
    synth_default(&so, seed, xlen);
    so.insns = 6000;
    struct synth s;
    REQUIRE(synth_run(&s, &so) == 0);
    char err[600];
    void *cfg = rt_config(opts, xlen, s.img, err, sizeof err);
    REQUIRE(cfg != NULL);
    struct rt_result enc = {0};
    REQUIRE(rt_encode(cfg, s.recs, s.nrecs, &enc, err, sizeof err) == 0);
    size_t n = enc.nbytes;
    unsigned bad = 0, decoded_some = 0, tried = 0;
    size_t step = n > 2000 ? n / 2000 : 1;
    for (size_t cut = 0; cut < n && bad < 5; cut += step) {
        /* front cut: decode must be exactly a suffix of the execution */
        struct rt_result dec = {0};
        int rc = rt_decode(cfg, s.img, RVT_FLOW_ECALL_TRAP, enc.bytes + cut, n - cut, &dec, err, sizeof err);
        tried++;
        bool ok = rc == 0 && is_slice(dec.pcs, dec.npcs, s.pcs, s.npcs, true);
        if (dec.npcs)
            decoded_some++;
        if (!ok)
            bad++;
        CHECK_MSG(ok, "%s rv%u: cut at byte %zu of %zu: %zu instructions decoded, not a suffix of the "
                      "execution (%u errors: %s)",
                  name, xlen, cut, n, dec.npcs, dec.errors, dec.first_error);
        rt_free(&dec);
        /* both ends cut (a wrapped buffer): a contiguous slice */
        size_t end = n - (cut * 7919) % (n - cut);
        if (end > cut) {
            memset(&dec, 0, sizeof dec);
            rc = rt_decode(cfg, s.img, RVT_FLOW_ECALL_TRAP, enc.bytes + cut, end - cut, &dec, err, sizeof err);
            ok = rc == 0 && is_slice(dec.pcs, dec.npcs, s.pcs, s.npcs, false);
            if (!ok && bad == 0 && getenv("ET_FAIL_DIR")) {
                char path[600];
                snprintf(path, sizeof path, "%s/robust-%zu-%zu.bin", getenv("ET_FAIL_DIR"), cut, end);
                FILE *f = fopen(path, "wb");
                if (f) {
                    fwrite(enc.bytes, 1, n, f);
                    fclose(f);
                }
                const struct rvt_segment *seg = rvt_img_segment(s.img, 0);
                snprintf(path, sizeof path, "%s/robust.code@%llx", getenv("ET_FAIL_DIR"),
                         (unsigned long long)seg->addr);
                if ((f = fopen(path, "wb"))) {
                    fwrite(seg->data, 1, (size_t)seg->size, f);
                    fclose(f);
                }
                snprintf(path, sizeof path, "%s/robust.pcs", getenv("ET_FAIL_DIR"));
                if ((f = fopen(path, "w"))) {
                    for (size_t k = 0; k < s.npcs; k++)
                        fprintf(f, "0x%0*llX\n", xlen / 4, (unsigned long long)s.pcs[k]);
                    fclose(f);
                }
            }
            if (!ok)
                bad++;
            CHECK_MSG(ok, "%s rv%u: bytes %zu..%zu of %zu: %zu instructions, not a slice of the execution "
                          "(%u errors: %s)",
                      name, xlen, cut, end, n, dec.npcs, dec.errors, dec.first_error);
            rt_free(&dec);
        }
    }
    /* a sync point in every stretch of the trace: most cuts still decode */
    CHECK_MSG(decoded_some * 10 >= tried * 8, "%s: only %u of %u cuts decoded anything", name, decoded_some, tried);
    rt_free(&enc);
    rvt_codec_cfg_free(cfg);
    synth_free(&s);
}

static void corruption(const char *name, const char *const *opts, unsigned xlen, unsigned seed)
{
    struct synth_opts so;
    synth_default(&so, seed, xlen);
    so.insns = 20000;
    struct synth s;
    REQUIRE(synth_run(&s, &so) == 0);
    char err[600];
    void *cfg = rt_config(opts, xlen, s.img, err, sizeof err);
    REQUIRE(cfg != NULL);
    struct rt_result enc = {0};
    REQUIRE(rt_encode(cfg, s.recs, s.nrecs, &enc, err, sizeof err) == 0);
    uint64_t r = 0x9e3779b97f4a7c15ull * (seed + 1);
    unsigned recovered = 0, reported = 0;
    for (unsigned trial = 0; trial < 40; trial++) {
        uint8_t *buf = malloc(enc.nbytes);
        memcpy(buf, enc.bytes, enc.nbytes);
        /* a few flipped bits or a burst of garbage in the first half */
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        size_t at = (size_t)(r % (enc.nbytes / 2));
        if (trial % 2) {
            for (unsigned k = 0; k < 3; k++)
                buf[(at + k * 37) % enc.nbytes] ^= (uint8_t)(1u << ((r >> (8 * k)) & 7));
        } else {
            for (unsigned k = 0; k < 16 && at + k < enc.nbytes; k++)
                buf[at + k] = (uint8_t)(r >> (k % 8 * 8));
        }
        struct rt_result dec = {0};
        int rc = rt_decode(cfg, s.img, RVT_FLOW_ECALL_TRAP, buf, enc.nbytes, &dec, err, sizeof err);
        CHECK_MSG(rc == 0, "%s: corrupted trace: decode failed outright: %s", name, err);
        if (dec.errors)
            reported++;
        /* the last quarter of the execution is decoded exactly at the end */
        size_t tail = s.npcs / 4;
        if (dec.npcs >= tail && !memcmp(dec.pcs + dec.npcs - tail, s.pcs + s.npcs - tail, tail * sizeof(uint64_t)))
            recovered++;
        rt_free(&dec);
        free(buf);
    }
    CHECK_MSG(recovered >= 36, "%s: resynchronised after only %u of 40 corruptions", name, recovered);
    CHECK_MSG(reported >= 10, "%s: only %u of 40 corruptions reported", name, reported);
    rt_free(&enc);
    rvt_codec_cfg_free(cfg);
    synth_free(&s);
}

int main(void)
{
    const char *const encap[] = {"resync-max", "1", NULL};
    const char *const encap_all[] = {"resync-max", "1", "implicit-return", "fixed", "branch-prediction", "1",
                                     "jump-target-cache", "1", "sijump", "1", NULL};
    const char *const refraw[] = {"framing", "refraw", "resync-max", "1", NULL};
    for (unsigned seed = 1; seed <= 2; seed++) {
        cuts("encap", encap, seed == 1 ? 32 : 64, seed);
        cuts("encap, all options", encap_all, 64, seed);
        cuts("refraw", refraw, 32, seed);
        corruption("encap", encap, 64, seed);
        corruption("encap, all options", encap_all, 32, seed);
        corruption("refraw", refraw, 64, seed);
    }
    return rvt_test_summary("test_et_robust");
}

/* dbg decoder contract (issue 10): every kind of damage is reported with
 * its offset, never passed off as the whole history.
 *
 *   - an empty trace decodes to nothing and reports nothing;
 *   - a trace cut anywhere ends with RVT_GAP_END at the cut (in strict mode
 *     too), after an exact prefix;
 *   - packets the configuration never emits (data packets with their emit
 *     bits off, Privilege Level where no trap or xRET is, Nops between sync
 *     points, a Change Hart without its sync fields, custom packets) are
 *     errors at their offset;
 *   - after inserted or deleted bytes the sync grid has moved: the decoder
 *     finds it again at any offset and decodes the rest exactly. */
#include "dbg/dbg.h"
#include "nybrt.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_dbg;
#define CODEC (&rvt_codec_dbg)

static bool make_cfg(void **cfg, const struct nrt_prog *p, const char *emit)
{
    const char *o[] = {"ecall", "trap", "dbg-emit", emit, "dbg-buffer", "1024", NULL};
    char err[256];
    if (nrt_cfg(CODEC, cfg, o, p->xlen, p->img, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", err);
        return false;
    }
    return true;
}

static void test_empty(const struct nrt_prog *p)
{
    void *cfg;
    if (!make_cfg(&cfg, p, "pc,branch,priv"))
        return;
    struct nrt_dec d;
    nrt_decode(CODEC, cfg, p->img, p->img, p->xlen, -1, (const uint8_t *)"", 0, &d);
    CHECK_MSG(d.rc == 0 && d.npcs == 0 && d.ngapv == 0 && d.syncs == 0, "empty trace: rc %d, %zu insns, %zu notes",
              d.rc, d.npcs, d.ngapv);
    nrt_dec_free(&d);
    rvt_codec_cfg_free(cfg);
}

static void test_truncation(const struct nrt_prog *p, const char *emit)
{
    void *cfg;
    char err[256];
    struct nrt_enc enc;
    if (!make_cfg(&cfg, p, emit))
        return;
    if (nrt_encode(CODEC, cfg, &p->x, &enc, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", err);
        rvt_codec_cfg_free(cfg);
        return;
    }
    uint64_t s = 0x7ac;
    for (int k = 0; k < 24; k++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        size_t len = 16 + (size_t)((s >> 17) % (enc.out.len - 32));
        for (int strict = 0; strict < 2; strict++) {
            ((struct dbg_cfg *)cfg)->strict = strict;
            struct nrt_dec d;
            char why[256];
            nrt_decode(CODEC, cfg, p->img, p->img, p->xlen, -1, enc.out.data, len, &d);
            CHECK_MSG(d.rc == 0 && d.errors == 0 && d.ngapv == 1 && d.gap_reasons[RVT_GAP_END] == 1,
                      "%s %s cut at %zu%s: rc %d, %" PRIu64 " errors, %zu notes, last '%s'", p->name, emit, len,
                      strict ? " (strict)" : "", d.rc, d.errors, d.ngapv, d.last_gap);
            CHECK_MSG(d.ngapv < 1 || d.gapv[0].offset == len || strstr(d.last_gap, "inside a packet"),
                      "%s cut at %zu: the end is reported at 0x%" PRIx64, p->name, len, d.ngapv ? d.gapv[0].offset : 0);
            CHECK_MSG(nrt_same_pcs(p->pcs, d.npcs, d.pcs, d.npcs, false, why, sizeof why), "%s cut at %zu: %s",
                      p->name, len, why);
            nrt_dec_free(&d);
        }
    }
    rvt_membuf_free(&enc.out);
    rvt_codec_cfg_free(cfg);
}

/* Replace the n-th packet with header `from` (a one-nybble packet) by
 * `to`, decode, and expect an error naming `what` at that offset (or at
 * the packet after it, where what it opened turns out wrong). */
static void expect_error(const struct nrt_prog *p, const char *emit, unsigned from, unsigned nth, const uint8_t *to,
                         size_t nto, const char *what)
{
    void *cfg;
    char err[256];
    struct nrt_enc enc;
    if (!make_cfg(&cfg, p, emit))
        return;
    if (nrt_encode(CODEC, cfg, &p->x, &enc, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", err);
        rvt_codec_cfg_free(cfg);
        return;
    }
    size_t n = 2 * enc.out.len;
    uint8_t *nyb = malloc(n + 32);
    rvt_nyb_unpack(enc.out.data, enc.out.len, nyb);
    size_t pos = 0, at = SIZE_MAX;
    unsigned seen = 0;
    while (pos < n) {
        unsigned len = dbg_packet_len(nyb + pos, n - pos);
        if (!len)
            break;
        if (nyb[pos] == from && len == 1 && seen++ == nth) {
            at = pos;
            break;
        }
        pos += len;
    }
    REQUIRE(at != SIZE_MAX);
    /* Splice: the packet becomes `to` (the stream grows by nto - 1 nybbles,
     * kept whole bytes by eating following Nops is not needed: decoders
     * find the grid again). */
    uint8_t *out = malloc(n + 32);
    memcpy(out, nyb, at);
    memcpy(out + at, to, nto);
    memcpy(out + at + nto, nyb + at + 1, n - at - 1);
    size_t m = n - 1 + nto;
    if (m % 2)
        out[m++] = 0;
    uint8_t *bytes = malloc(m / 2);
    rvt_nyb_pack(out, m, bytes);
    struct nrt_dec d;
    nrt_decode(CODEC, cfg, p->img, p->img, p->xlen, -1, bytes, m / 2, &d);
    CHECK_MSG(d.rc == 0 && d.errors >= 1 && strstr(d.first_error, what) &&
                  d.gapv[0].reason == RVT_GAP_ERROR && d.gapv[0].offset >= at / 2 && d.gapv[0].offset <= at / 2 + 2,
              "%s %s: packet %u (0x%X) at 0x%zx made %.*s: %" PRIu64 " errors, first at 0x%" PRIx64 ": '%s'", p->name,
              emit, nth, from, at / 2, (int)nto, "", d.errors, d.ngapv ? d.gapv[0].offset : 0, d.first_error);
    nrt_dec_free(&d);
    free(bytes);
    free(out);
    free(nyb);
    rvt_membuf_free(&enc.out);
    rvt_codec_cfg_free(cfg);
}

static void test_never_emitted(const struct nrt_prog *p)
{
    /* A Branch Taken turned into each packet kind the configuration
     * cannot produce. */
    static const uint8_t load_addr[] = {0x8, 0x0, 0x4};
    static const uint8_t store_data[] = {0xB, 0x0, 0x1};
    static const uint8_t stamp[] = {0xC, 0x0, 0x1};
    static const uint8_t priv[] = {0x6, 0x6};
    static const uint8_t nop[] = {0x0};
    static const uint8_t hart[] = {0x7, 0x0, 0x3};
    static const uint8_t custom[] = {0xE, 0x0, 0x1};
    static const uint8_t reserved[] = {0xD};
    expect_error(p, "pc,branch,priv", 0x2, 40, load_addr, sizeof load_addr, "emitloadaddr is off");
    expect_error(p, "pc,branch,priv", 0x2, 41, store_data, sizeof store_data, "emitstoredata is off");
    expect_error(p, "pc,branch,priv", 0x2, 42, stamp, sizeof stamp, "emittimestamp is off");
    expect_error(p, "pc,branch", 0x2, 43, priv, sizeof priv, "emitpriv is off");
    expect_error(p, "pc,branch,priv", 0x2, 44, priv, sizeof priv, "follows no trap source PC");
    expect_error(p, "pc,branch,priv", 0x3, 45, nop, sizeof nop, "Nops end at");
    expect_error(p, "pc,branch,priv", 0x2, 46, hart, sizeof hart, "inside sync fields");
    expect_error(p, "pc,branch,priv", 0x2, 47, custom, sizeof custom, "custom header");
    expect_error(p, "pc,branch,priv", 0x2, 48, reserved, sizeof reserved, "reserved header");
}

static void test_runs(const struct nrt_prog *p, const char *emit)
{
    void *cfg;
    char err[256];
    struct nrt_enc enc;
    if (!make_cfg(&cfg, p, emit))
        return;
    if (nrt_encode(CODEC, cfg, &p->x, &enc, err, sizeof err) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", err);
        rvt_codec_cfg_free(cfg);
        return;
    }
    const struct rvt_membuf *out = &enc.out;
    uint64_t s = 0xd0d0;
    unsigned silent = 0;
    size_t lost = 0;
    for (int k = 0; k < 40; k++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        size_t at = 32 + (size_t)((s >> 20) % (out->len - 64));
        size_t n = 1 + (size_t)((s >> 8) % 16);
        bool insert = k & 1;
        uint8_t *b = malloc(out->len + 16);
        size_t len;
        if (insert) {
            memcpy(b, out->data, at);
            for (size_t i = 0; i < n; i++)
                b[at + i] = (uint8_t)(s >> (i % 56));
            memcpy(b + at + n, out->data + at, out->len - at);
            len = out->len + n;
        } else {
            memcpy(b, out->data, at);
            memcpy(b + at, out->data + at + n, out->len - at - n);
            len = out->len - n;
        }
        struct nrt_dec d;
        nrt_decode(CODEC, cfg, p->img, p->img, p->xlen, -1, b, len, &d);
        bool same = d.npcs == p->npcs && !memcmp(d.pcs, p->pcs, d.npcs * sizeof *d.pcs);
        size_t runs, junk;
        char why[256];
        nrt_holes_ok(p->pcs, p->npcs, d.pcs, d.npcs, SIZE_MAX, &runs, &junk, why, sizeof why);
        size_t good = d.npcs - junk;
        CHECK_MSG(d.rc == 0, "%s: %s", p->name, d.msg);
        silent += !same && d.errors == 0 && d.ngapv == 0;
        /* The grid is found again: at most about two sync segments lost
         * (the segment hit, and the one whose sync fields confirm the
         * grid), never the rest of the trace. */
        CHECK_MSG(good + 3 * p->npcs / 20 >= p->npcs, "%s %s %s %zu bytes at 0x%zx: only %zu of %zu instructions decoded",
                  p->name, emit, insert ? "inserting" : "deleting", n, at, good, p->npcs);
        CHECK_MSG(d.errors == 0 || d.gapv[0].offset + 512 >= at,
                  "%s: the first error at 0x%" PRIx64 " is long before the damage at 0x%zx", p->name,
                  d.ngapv ? d.gapv[0].offset : 0, at);
        lost += p->npcs - good;
        nrt_dec_free(&d);
        free(b);
    }
    CHECK_MSG(silent == 0, "%s %s: %u of 40 inserted/deleted runs decoded silently wrong", p->name, emit, silent);
    printf("  %s %s: 40 inserted/deleted byte runs: %zu of %zu instructions lost on average\n", p->name, emit,
           lost / 40, p->npcs);
    rvt_membuf_free(&enc.out);
    rvt_codec_cfg_free(cfg);
}

int main(void)
{
    struct nrt_prog p32, p64;
    if (nrt_prog_flowtest(&p32, "flow/flowtest32.elf", 32, 300, NRT_DATA)) {
        test_empty(&p32);
        test_truncation(&p32, "pc,branch,priv");
        test_truncation(&p32, "pc,priv");
        test_never_emitted(&p32);
        test_runs(&p32, "pc,branch,priv");
        test_runs(&p32, "pc,priv");
    }
    if (nrt_prog_flowtest(&p64, "flow/flowtest64.elf", 64, 300, NRT_DATA)) {
        test_truncation(&p64, "pc,branch,priv");
        test_runs(&p64, "pc,branch,priv");
    }
    nrt_prog_free(&p32);
    nrt_prog_free(&p64);
    return rvt_test_summary("test_dbg_damage");
}

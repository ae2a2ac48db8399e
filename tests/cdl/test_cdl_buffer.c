/* CDL recorder: a circular buffer that wraps (decoding from the first sync
 * point reproduces the tail exactly, ordered or raw images), that halts
 * (the stop is reported, the recorded part is exact), and damaged traces
 * (errors name offsets, decoding resynchronises). */
#include "cdl/cdl.h"
#include "nybrt.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_cdl;
#define CODEC (&rvt_codec_cdl)

/* Encode with the family API (for the sync points and the recorder state). */
static int encode(const struct nrt_prog *p, struct cdl_cfg *cfg, struct rvt_membuf *out, struct cdl_state *st,
                  struct rvt_nyb_sync_point **sp, size_t *nsp)
{
    rvt_membuf_init(out);
    struct rvt_byte_sink sink = rvt_membuf_sink(out);
    struct cdl_enc *e;
    struct rvt_diag d = {0};
    if (cdl_enc_new(&e, cfg, &sink, &d) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", d.msg);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < p->x.n && rc >= 0; i++)
        rc = cdl_enc_put(e, &p->x.recs[i]);
    if (rc >= 0)
        rc = cdl_enc_finish(e);
    if (rc < 0)
        rvt_test_fail(__FILE__, __LINE__, "encode: %s", cdl_enc_error(e));
    if (st)
        cdl_enc_state(e, st);
    if (sp) {
        const struct rvt_nyb_sync_point *pts;
        *nsp = cdl_enc_sync_points(e, &pts);
        *sp = malloc((*nsp ? *nsp : 1) * sizeof **sp);
        memcpy(*sp, pts, *nsp * sizeof **sp);
    }
    cdl_enc_free(e);
    return rc;
}

static void base_cfg(struct cdl_cfg *c, const struct nrt_prog *p)
{
    cdl_cfg_defaults(c);
    c->xlen = p->xlen;
    c->image = p->img;
    if (p->ecall)
        c->ecall = RVT_FLOW_ECALL_TRAP;
}

/* The instruction the decode of a wrapped buffer must start with: the
 * first sync point whose whole mark survived. */
static uint64_t tail_start(const struct cdl_cfg *c, const struct cdl_state *st, const struct rvt_nyb_sync_point *sp,
                           size_t nsp)
{
    for (size_t i = 0; i < nsp; i++)
        if (sp[i].nybble >= st->lost_nybbles + c->sync_nybbles)
            return sp[i].insns;
    return UINT64_MAX;
}

static void test_wrap(const struct nrt_prog *p, uint64_t buffer, unsigned interval)
{
    struct cdl_cfg c;
    base_cfg(&c, p);
    c.buffer = buffer;
    c.sync_interval = interval;
    c.overflow = CDL_OVF_WRAP;
    struct rvt_membuf out;
    struct cdl_state st;
    struct rvt_nyb_sync_point *sp;
    size_t nsp;
    if (encode(p, &c, &out, &st, &sp, &nsp) < 0)
        return;
    CHECK(st.wrapped);
    CHECK_EQ(out.len, buffer);
    uint64_t from = tail_start(&c, &st, sp, nsp);
    char why[256];
    struct nrt_dec d;
    if (from == UINT64_MAX) {
        /* No sync mark survived: nothing can be decoded, and it says so. */
        nrt_decode(CODEC, &c, p->img, p->img, p->xlen, -1, out.data, out.len, &d);
        CHECK_MSG(d.rc == -RVT_ERR_NOSYNC && d.npcs == 0, "%s wrap without marks: rc %d, %zu insns", p->name, d.rc,
                  d.npcs);
        nrt_dec_free(&d);
        rvt_membuf_free(&out);
        free(sp);
        return;
    }

    /* Ordered image. */
    nrt_decode(CODEC, &c, p->img, p->img, p->xlen, -1, out.data, out.len, &d);
    CHECK_MSG(d.rc == 0 && d.errors == 0, "%s wrap %" PRIu64 ": %s %s", p->name, buffer, d.msg, d.first_error);
    CHECK_MSG(d.npcs == p->npcs - from, "%s wrap %" PRIu64 "/%u: decoded %zu, the tail from the first sync point has %" PRIu64,
              p->name, buffer, interval, d.npcs, p->npcs - from);
    CHECK_MSG(nrt_same_pcs(p->pcs, p->npcs, d.pcs, d.npcs, true, why, sizeof why), "%s wrap: %s", p->name, why);
    CHECK_EQ(d.gap_reasons[RVT_GAP_WRAP], 1);
    nrt_dec_free(&d);

    /* Raw image: the decoder needs the write offset (state file or options). */
    struct cdl_cfg r = c;
    r.image_kind = CDL_IMAGE_RAW;
    snprintf(r.state_path, sizeof r.state_path, "%s/cdl-state-%" PRIu64, rvt_test_tmpdir(), buffer);
    struct rvt_membuf raw;
    REQUIRE(encode(p, &r, &raw, NULL, NULL, NULL) == 0);
    CHECK_EQ(raw.len, buffer);
    nrt_decode(CODEC, &r, p->img, p->img, p->xlen, -1, raw.data, raw.len, &d);
    CHECK_MSG(d.npcs == p->npcs - from && d.errors == 0, "%s raw wrap (state file): decoded %zu of %" PRIu64 ": %s",
              p->name, d.npcs, p->npcs - from, d.first_error);
    CHECK(nrt_same_pcs(p->pcs, p->npcs, d.pcs, d.npcs, true, why, sizeof why));
    nrt_dec_free(&d);
    struct cdl_cfg o = r;
    o.state_path[0] = 0;
    o.have_write_offset = true;
    o.write_offset = st.write_offset;
    o.wrapped = true;
    nrt_decode(CODEC, &o, p->img, p->img, p->xlen, -1, raw.data, raw.len, &d);
    CHECK_MSG(d.npcs == p->npcs - from && d.errors == 0, "%s raw wrap (options): decoded %zu of %" PRIu64, p->name,
              d.npcs, p->npcs - from);
    nrt_dec_free(&d);
    /* The raw image is the ordered one rotated at the write offset. */
    CHECK(memcmp(raw.data + st.write_offset, out.data, buffer - st.write_offset) == 0);
    CHECK(memcmp(raw.data, out.data + buffer - st.write_offset, st.write_offset) == 0);
    rvt_membuf_free(&raw);
    rvt_membuf_free(&out);
    free(sp);
}

static void test_halt(const struct nrt_prog *p, uint64_t buffer)
{
    struct cdl_cfg c;
    base_cfg(&c, p);
    c.buffer = buffer;
    c.overflow = CDL_OVF_HALT;
    struct rvt_membuf out, full;
    struct cdl_state st;
    if (encode(p, &c, &out, &st, NULL, NULL) < 0)
        return;
    CHECK(st.halted && !st.wrapped);
    CHECK_EQ(out.len, buffer);
    /* What was recorded is the start of the unbounded stream. */
    struct cdl_cfg s = c;
    s.buffer = 0;
    REQUIRE(encode(p, &s, &full, NULL, NULL, NULL) == 0);
    REQUIRE(full.len > buffer);
    CHECK(memcmp(out.data, full.data, buffer) == 0);
    CHECK_EQ(st.lost_nybbles, 2 * (full.len - buffer));

    struct nrt_dec d;
    char why[256];
    nrt_decode(CODEC, &c, p->img, p->img, p->xlen, -1, out.data, out.len, &d);
    CHECK_MSG(d.errors == 0, "%s halt: %s", p->name, d.first_error);
    CHECK_MSG(d.npcs > 0 && d.npcs < p->npcs, "%s halt: decoded %zu of %zu", p->name, d.npcs, p->npcs);
    /* A prefix of the execution... */
    CHECK_MSG(nrt_same_pcs(p->pcs, d.npcs, d.pcs, d.npcs, false, why, sizeof why), "%s halt: %s", p->name, why);
    /* ...and the stop is reported with where it happened. */
    CHECK_EQ(d.gap_reasons[RVT_GAP_LOST], 1);
    CHECK_MSG(strstr(d.last_gap, "halted") && strstr(d.last_gap, "offset 0x"), "%s halt: gap note '%s'", p->name,
              d.last_gap);
    /* The unbounded stream cut at the same length decodes the same. */
    struct nrt_dec t;
    nrt_decode(CODEC, &s, p->img, p->img, p->xlen, -1, full.data, buffer, &t);
    CHECK_EQ(t.npcs, d.npcs);
    nrt_dec_free(&t);
    nrt_dec_free(&d);
    rvt_membuf_free(&out);
    rvt_membuf_free(&full);
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Damage: flipped bits, a zeroed stretch, garbage; with and without code. */
static void test_corruption(const struct nrt_prog *p)
{
    struct cdl_cfg c;
    base_cfg(&c, p);
    struct rvt_membuf out;
    if (encode(p, &c, &out, NULL, NULL, NULL) < 0)
        return;
    struct nrt_dec clean;
    nrt_decode(CODEC, &c, p->img, p->img, p->xlen, -1, out.data, out.len, &clean);
    REQUIRE(clean.npcs == p->npcs);
    uint64_t s = 0x1234567;
    uint64_t total_errors = 0, nocode_errors = 0;
    size_t junk_total = 0;
    for (int round = 0; round < 24; round++) {
        uint8_t *b = malloc(out.len);
        memcpy(b, out.data, out.len);
        int kind = round % 3;
        size_t at = 64 + (size_t)(rng(&s) % (out.len - 128));
        if (kind == 0) {
            for (int k = 0; k < 1 + round / 3; k++)
                b[64 + rng(&s) % (out.len - 128)] ^= (uint8_t)(1u << (rng(&s) % 8));
        } else if (kind == 1) {
            memset(b + at, 0, 16);
        } else {
            for (int k = 0; k < 24; k++)
                b[at + (size_t)k] = (uint8_t)rng(&s);
        }
        for (int nocode = 0; nocode < 2; nocode++) {
            struct rvt_image *empty = NULL;
            if (nocode) {
                empty = rvt_img_new();
                rvt_img_set_xlen(empty, p->xlen);
            }
            struct nrt_dec d;
            nrt_decode(CODEC, &c, nocode ? empty : p->img, p->img, p->xlen, -1, b, out.len, &d);
            size_t junk = 0;
            CHECK_MSG(d.rc == 0, "%s damage %d: decode failed: %s", p->name, round, d.msg);
            if (!nocode) {
                /* With the code, decoded instructions are the executed ones
                 * with holes where trace was damaged; a damaged count can
                 * walk valid code before the disagreement shows (bounded,
                 * and always followed by an error). */
                size_t good;
                nrt_match_clean(&clean, &d, &good, &junk, NULL);
                uint64_t reported = d.errors + d.gap_reasons[RVT_GAP_LOST];
                CHECK_MSG(junk <= 64 * reported, "%s damage %d: %zu instructions decoded from damage, %" PRIu64
                                                 " errors/discontinuities reported (%s)",
                          p->name, round, junk, reported, d.first_error);
                junk_total += junk;
                CHECK_MSG(d.npcs >= p->npcs / 2, "%s damage %d: only %zu of %zu decoded", p->name, round, d.npcs,
                          p->npcs);
                /* The end of the execution is reached again. */
                CHECK_MSG(d.npcs && d.pcs[d.npcs - 1] == p->pcs[p->npcs - 1], "%s damage %d: the end is not decoded",
                          p->name, round);
            }
            if (d.errors)
                CHECK_MSG(strstr(d.first_error, "offset 0x") != NULL, "error without an offset: %s", d.first_error);
            if (nocode)
                nocode_errors += d.errors;
            else
                total_errors += d.errors;
            nrt_dec_free(&d);
            rvt_img_free(empty);
        }
        free(b);
    }
    nrt_dec_free(&clean);
    printf("  %s: 24 damaged traces: %" PRIu64 " errors reported (%" PRIu64 " without the ELF), %zu instructions "
           "decoded from damage\n",
           p->name, total_errors, nocode_errors, junk_total);
    CHECK_MSG(total_errors >= 12, "%s: only %" PRIu64 " errors reported for 24 damaged traces", p->name,
              total_errors);
    /* Strict mode stops at the first error. */
    uint8_t *b = malloc(out.len);
    memcpy(b, out.data, out.len);
    memset(b + out.len / 2, 0xEE, 8);
    struct cdl_cfg strict = c;
    strict.strict = true;
    struct nrt_dec d;
    nrt_decode(CODEC, &strict, p->img, p->img, p->xlen, -1, b, out.len, &d);
    CHECK_MSG(d.rc < 0 && strstr(d.msg, "offset 0x"), "strict: rc %d, '%s'", d.rc, d.msg);
    nrt_dec_free(&d);
    /* No sync point at all. */
    memset(b, 0x11, out.len);
    nrt_decode(CODEC, &c, p->img, p->img, p->xlen, -1, b, out.len, &d);
    CHECK_MSG(d.rc == -RVT_ERR_NOSYNC && strstr(d.msg, "no sync point"), "no sync: rc %d '%s'", d.rc, d.msg);
    nrt_dec_free(&d);
    free(b);
    rvt_membuf_free(&out);
}

int main(void)
{
    struct nrt_prog p32, p64, t1;
    if (nrt_prog_flowtest(&p32, "flow/flowtest32.elf", 32, 300, NRT_DATA)) {
        test_wrap(&p32, 4096, 128);
        test_wrap(&p32, 1024, 40);
        test_halt(&p32, 2048);
        test_corruption(&p32);
    }
    if (nrt_prog_flowtest(&p64, "flow/flowtest64.elf", 64, 300, NRT_DATA)) {
        test_wrap(&p64, 8192, 256);
        test_halt(&p64, 4096);
        test_corruption(&p64);
    }
    if (nrt_prog_pclist(&t1, "ntrace-t1/test.elf", "ntrace-t1/test-PCONLY.txt", 0)) {
        test_wrap(&t1, 16384, 128);
        test_wrap(&t1, 4096, 0); /* sync marks only at the start: the buffer has none left */
        test_corruption(&t1);
    }
    nrt_prog_free(&p32);
    nrt_prog_free(&p64);
    nrt_prog_free(&t1);
    return rvt_test_summary("test_cdl_buffer");
}

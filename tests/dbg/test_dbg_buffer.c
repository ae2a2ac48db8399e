/* dbg trace buffers: the RAM image with 8 sync points that wraps (decoding
 * from the first sync point after tbufwrite reproduces the tail exactly,
 * with the registers given as options or as a register file), that stops
 * (the stop is reported), a FIFO that drops packet groups (Trace Disabled,
 * resynchronisation), the newest bytes of a stream (a wrapped sink: the
 * grid from the stream position), and damaged traces. */
#include "dbg/dbg.h"
#include "nybrt.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_dbg;
#define CODEC (&rvt_codec_dbg)

static int encode(const struct nrt_prog *p, const struct dbg_cfg *cfg, struct rvt_membuf *out, struct dbg_regs *regs,
                  struct rvt_nyb_sync_point **sp, size_t *nsp, struct rvt_codec_stats *st)
{
    rvt_membuf_init(out);
    struct rvt_byte_sink sink = rvt_membuf_sink(out);
    struct dbg_enc *e;
    struct rvt_diag d = {0};
    if (dbg_enc_new(&e, cfg, &sink, &d) < 0) {
        rvt_test_fail(__FILE__, __LINE__, "%s", d.msg);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < p->x.n && rc >= 0; i++)
        rc = dbg_enc_put(e, &p->x.recs[i]);
    if (rc >= 0)
        rc = dbg_enc_finish(e);
    if (rc < 0)
        rvt_test_fail(__FILE__, __LINE__, "encode: %s", dbg_enc_error(e));
    if (regs)
        dbg_enc_regs(e, regs);
    if (sp) {
        const struct rvt_nyb_sync_point *pts;
        *nsp = dbg_enc_sync_points(e, &pts);
        *sp = malloc((*nsp ? *nsp : 1) * sizeof **sp);
        memcpy(*sp, pts, *nsp * sizeof **sp);
    }
    if (st)
        dbg_enc_stats(e, st);
    dbg_enc_free(e);
    return rc;
}

static void base_cfg(struct dbg_cfg *c, const struct nrt_prog *p, const char *emit)
{
    dbg_cfg_defaults(c);
    struct rvt_diag d = {0};
    if (emit)
        CHECK(rvt_codec_dbg.cfg_set(c, "dbg-emit", emit, &d) == 0);
    if (p->ecall)
        CHECK(rvt_codec_dbg.cfg_set(c, "ecall", p->ecall, &d) == 0);
    CHECK(rvt_codec_dbg.cfg_finish(c, p->xlen, p->img, &d) == 0);
}

static void test_wrap(const struct nrt_prog *p, const char *emit, uint64_t buffer)
{
    struct dbg_cfg c;
    base_cfg(&c, p, emit);
    struct rvt_diag dg = {0};
    char size[32];
    snprintf(size, sizeof size, "%" PRIu64, buffer);
    REQUIRE(rvt_codec_dbg.cfg_set(&c, "dbg-destination", "sysram", &dg) == 0);
    REQUIRE(rvt_codec_dbg.cfg_set(&c, "dbg-tbufstart", "0x80100000", &dg) == 0);
    REQUIRE(rvt_codec_dbg.cfg_set(&c, "dbg-buffer", size, &dg) == 0);
    struct rvt_membuf out;
    struct dbg_regs regs;
    struct rvt_nyb_sync_point *sp;
    size_t nsp;
    struct rvt_codec_stats st;
    if (encode(p, &c, &out, &regs, &sp, &nsp, &st) < 0)
        return;
    CHECK_EQ(out.len, buffer);
    CHECK(regs.trace & DBG_TRACE_WRAPPED);
    CHECK_EQ(regs.tbufstart, 0x80100000u);
    CHECK_EQ(regs.tbufend, 0x80100000u + buffer);
    CHECK_EQ((regs.tbufwrite - regs.tbufstart) % 4, 0);
    /* Sync points every buffer/8 bytes in buffer offsets. */
    for (size_t i = 0; i < nsp; i++)
        CHECK_EQ(sp[i].nybble % (buffer / 4), 0);
    uint64_t oldest = 2 * st.bytes - 2 * buffer, from = UINT64_MAX;
    for (size_t i = 0; i < nsp && from == UINT64_MAX; i++)
        if (sp[i].nybble >= oldest)
            from = sp[i].insns;
    REQUIRE(from < p->npcs);

    /* Registers as options. */
    struct dbg_cfg d = c;
    d.regs = regs;
    d.have_tbufwrite = true;
    struct nrt_dec dec;
    char why[256];
    nrt_decode(CODEC, &d, p->img, p->img, p->xlen, -1, out.data, out.len, &dec);
    CHECK_MSG(dec.rc == 0 && dec.errors == 0, "%s wrap %" PRIu64 ": %s %s", p->name, buffer, dec.msg,
              dec.first_error);
    CHECK_MSG(dec.npcs == p->npcs - from, "%s wrap %" PRIu64 " (%s): decoded %zu, the tail from the first sync point "
                                          "has %" PRIu64,
              p->name, buffer, emit ? emit : "default", dec.npcs, p->npcs - from);
    CHECK_MSG(nrt_same_pcs(p->pcs, p->npcs, dec.pcs, dec.npcs, true, why, sizeof why), "%s wrap: %s", p->name, why);
    CHECK_EQ(dec.gap_reasons[RVT_GAP_WRAP], 1);
    nrt_dec_free(&dec);

    /* The same through the register file the encoder writes. */
    struct dbg_cfg f = c;
    snprintf(f.regs_path, sizeof f.regs_path, "%s/dbg-regs-%" PRIu64, rvt_test_tmpdir(), buffer);
    struct rvt_membuf out2;
    REQUIRE(encode(p, &f, &out2, NULL, NULL, NULL, NULL) == 0);
    CHECK(out2.len == out.len && memcmp(out2.data, out.data, out.len) == 0);
    struct dbg_regs back;
    struct rvt_diag rd = {0};
    REQUIRE(dbg_regs_read(f.regs_path, &back, &rd) == 0);
    CHECK(back.trace == regs.trace && back.tbufwrite == regs.tbufwrite && back.tbufend == regs.tbufend);
    nrt_decode(CODEC, &f, p->img, p->img, p->xlen, -1, out2.data, out2.len, &dec);
    CHECK_MSG(dec.npcs == p->npcs - from && dec.errors == 0, "%s wrap (register file): %zu of %" PRIu64, p->name,
              dec.npcs, p->npcs - from);
    nrt_dec_free(&dec);

    /* A wrapped image without tbufwrite cannot be ordered: said clearly. */
    struct dbg_cfg n = c;
    n.regs.trace |= DBG_TRACE_WRAPPED;
    nrt_decode(CODEC, &n, p->img, p->img, p->xlen, -1, out.data, out.len, &dec);
    CHECK_MSG(dec.rc < 0 && strstr(dec.msg, "tbufwrite"), "wrapped without tbufwrite: '%s'", dec.msg);
    nrt_dec_free(&dec);
    rvt_membuf_free(&out);
    rvt_membuf_free(&out2);
    free(sp);
}

static void test_stop(const struct nrt_prog *p, uint64_t buffer)
{
    struct dbg_cfg c;
    base_cfg(&c, p, NULL);
    struct rvt_diag dg = {0};
    char size[32];
    snprintf(size, sizeof size, "%" PRIu64, buffer);
    REQUIRE(rvt_codec_dbg.cfg_set(&c, "dbg-destination", "ram", &dg) == 0);
    REQUIRE(rvt_codec_dbg.cfg_set(&c, "dbg-fullaction", "stop", &dg) == 0);
    REQUIRE(rvt_codec_dbg.cfg_set(&c, "dbg-buffer", size, &dg) == 0);
    struct rvt_membuf out;
    struct dbg_regs regs;
    if (encode(p, &c, &out, &regs, NULL, NULL, NULL) < 0)
        return;
    CHECK_EQ(out.len, buffer);
    CHECK(!(regs.trace & DBG_TRACE_WRAPPED));
    CHECK_EQ(regs.tbufwrite, regs.tbufend);
    for (int with_regs = 0; with_regs < 2; with_regs++) {
        struct dbg_cfg d = c;
        if (with_regs) {
            d.regs = regs;
            d.have_tbufwrite = true;
        }
        struct nrt_dec dec;
        char why[256];
        nrt_decode(CODEC, &d, p->img, p->img, p->xlen, -1, out.data, out.len, &dec);
        CHECK_MSG(dec.errors == 0, "%s stop: %s", p->name, dec.first_error);
        CHECK_MSG(dec.npcs > 0 && dec.npcs < p->npcs, "%s stop: decoded %zu of %zu", p->name, dec.npcs, p->npcs);
        CHECK_MSG(nrt_same_pcs(p->pcs, dec.npcs, dec.pcs, dec.npcs, false, why, sizeof why), "%s stop: %s", p->name,
                  why);
        CHECK_MSG(dec.gap_reasons[RVT_GAP_LOST] == 1 && strstr(dec.last_gap, "recording stopped at offset 0x"),
                  "%s stop (registers %d): last gap '%s'", p->name, with_regs, dec.last_gap);
        nrt_dec_free(&dec);
    }
    rvt_membuf_free(&out);
}

/* stall = 0: a FIFO that cannot take a group drops it whole; Trace
 * Disabled and fresh sync fields follow, and the decoder resumes exactly. */
static void test_fifo(const struct nrt_prog *p, const char *emit)
{
    struct dbg_cfg c;
    base_cfg(&c, p, emit);
    c.regs.trace &= ~(uint32_t)DBG_TRACE_STALL;
    c.fifo = 160;
    c.drain = 1;
    struct rvt_membuf out;
    struct rvt_codec_stats st;
    if (encode(p, &c, &out, NULL, NULL, NULL, &st) < 0)
        return;
    CHECK_MSG(st.lost > 0, "%s fifo: nothing was dropped", p->name);
    struct nrt_dec dec;
    char why[256];
    size_t runs = 0;
    nrt_decode(CODEC, &c, p->img, p->img, p->xlen, -1, out.data, out.len, &dec);
    CHECK_MSG(dec.rc == 0 && dec.errors == 0, "%s fifo %s: %s %s", p->name, emit, dec.msg, dec.first_error);
    CHECK_MSG(nrt_segments_ok(p->pcs, p->npcs, &dec, &runs, why, sizeof why), "%s fifo %s: %s", p->name, emit, why);
    /* Every drop is reported as lost (Trace Disabled followed by the sync
     * fields, not by Trace Enabled), never as trace off. */
    CHECK_MSG(dec.gap_reasons[RVT_GAP_LOST] + 1 >= runs && dec.gap_reasons[RVT_GAP_TRACE_OFF] == 0,
              "%s fifo: %" PRIu64 " losses and %" PRIu64 " trace-off gaps for %zu runs", p->name,
              dec.gap_reasons[RVT_GAP_LOST], dec.gap_reasons[RVT_GAP_TRACE_OFF], runs);
    CHECK_MSG(runs > 1 && dec.npcs > 0, "%s fifo %s: %zu runs, %zu of %zu instructions", p->name, emit, runs,
              dec.npcs, p->npcs);
    /* Each loss where a stretch ends: the decoder resynchronises right
     * after it. */
    for (size_t k = 0; k < dec.ngapv; k++)
        CHECK_MSG(k + 1 < dec.nsegs && dec.gapv[k].reason == RVT_GAP_LOST && dec.gapv[k].at == dec.segs[k + 1],
                  "%s fifo %s: gap %zu (reason %u) after %zu instructions, not where a stretch ends", p->name, emit, k,
                  dec.gapv[k].reason, dec.gapv[k].at);
    printf("  %s fifo (%s): %" PRIu64 " bytes dropped, %zu of %zu instructions in %zu runs\n", p->name, emit,
           st.lost, dec.npcs, p->npcs, runs);
    nrt_dec_free(&dec);
    rvt_membuf_free(&out);
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_corruption(const struct nrt_prog *p, const char *emit)
{
    struct dbg_cfg c;
    base_cfg(&c, p, emit);
    struct rvt_diag dg = {0};
    REQUIRE(rvt_codec_dbg.cfg_set(&c, "dbg-buffer", "1024", &dg) == 0);
    struct rvt_membuf out;
    if (encode(p, &c, &out, NULL, NULL, NULL, NULL) < 0)
        return;
    struct nrt_dec clean;
    nrt_decode(CODEC, &c, p->img, p->img, p->xlen, -1, out.data, out.len, &clean);
    REQUIRE(clean.npcs == p->npcs);
    uint64_t s = 0xfeed, errors = 0;
    size_t junk_total = 0;
    const uint64_t segbytes = dbg_cfg_buffer(&c) / 8;
    const size_t nseg = (size_t)((out.len + segbytes - 1) / segbytes);
    uint8_t *hit = malloc(nseg);
    for (int round = 0; round < 24; round++) {
        uint8_t *b = malloc(out.len);
        memcpy(b, out.data, out.len);
        memset(hit, 0, nseg);
        size_t at = 64 + (size_t)(rng(&s) % (out.len - 128));
        if (round % 3 == 0) {
            for (int k = 0; k < 1 + round / 3; k++) {
                size_t o = 64 + rng(&s) % (out.len - 128);
                b[o] ^= (uint8_t)(1u << (rng(&s) % 8));
                hit[o / segbytes] = 1;
            }
        } else {
            for (int k = 0; k < (round % 3 == 1 ? 16 : 24); k++) {
                b[at + (size_t)k] = round % 3 == 1 ? 0 : (uint8_t)rng(&s);
                hit[(at + (size_t)k) / segbytes] = 1;
            }
        }
        struct nrt_dec d;
        nrt_decode(CODEC, &c, p->img, p->img, p->xlen, -1, b, out.len, &d);
        size_t good, junk, outside = 0;
        uint8_t *is_junk = malloc(d.npcs ? d.npcs : 1);
        nrt_match_clean(&clean, &d, &good, &junk, is_junk);
        /* Damage only spoils the sync segment it hits (and the block that
         * runs from it into the next); everything else is exact. */
        for (size_t j = 0; j < d.npcs; j++) {
            size_t g = (size_t)(d.offs[j] / segbytes);
            if (is_junk[j] && !(g < nseg && hit[g]) && !(g > 0 && g - 1 < nseg && hit[g - 1]))
                outside++;
        }
        CHECK_MSG(d.rc == 0, "%s damage %d: %s", p->name, round, d.msg);
        CHECK_MSG(outside == 0, "%s damage %d: %zu wrong instructions outside the damaged sync segments (%s)",
                  p->name, round, outside, d.first_error);
        CHECK_MSG(good >= p->npcs / 2, "%s damage %d: only %zu of %zu decoded", p->name, round, good, p->npcs);
        /* (Unless the damage hit the last sync segment, whose sync fields
         * the decoder needs.) */
        CHECK_MSG(hit[nseg - 1] || (d.npcs && d.pcs[d.npcs - 1] == p->pcs[p->npcs - 1]),
                  "%s damage %d: the end is not decoded", p->name, round);
        if (d.errors)
            CHECK_MSG(strstr(d.first_error, "offset 0x") != NULL, "error without an offset: %s", d.first_error);
        errors += d.errors;
        junk_total += junk;
        free(is_junk);
        nrt_dec_free(&d);
        free(b);
    }
    free(hit);
    printf("  %s (%s): 24 damaged traces: %" PRIu64 " errors, %zu instructions decoded from damage\n", p->name,
           emit ? emit : "default", errors, junk_total);
    CHECK(errors >= 12);
    nrt_dec_free(&clean);
    rvt_membuf_free(&out);
}

/* The newest bytes of an off-chip stream, as a wrapped trace RAM sink keeps
 * them (docs/sinks.md): its description gives the stream position of the
 * first byte kept (bytes written - bytes kept), and the sync grid follows
 * exactly (--stream-offset, set by rvtrace decode from the .sink sidecar).
 * With a --dbg-buffer that is not the encoder's, the first grid point holds
 * no sync fields: an error before any instruction.  Without the position, a
 * grid placed by one sync point's content alone is reported. */
static void test_window(const struct nrt_prog *p, uint64_t buffer, size_t keep)
{
    struct dbg_cfg c;
    base_cfg(&c, p, NULL);
    struct rvt_diag dg = {0};
    char size[32], off[32];
    snprintf(size, sizeof size, "%" PRIu64, buffer);
    REQUIRE(rvt_codec_dbg.cfg_set(&c, "dbg-buffer", size, &dg) == 0);
    struct rvt_membuf out;
    struct rvt_nyb_sync_point *sp;
    size_t nsp;
    if (encode(p, &c, &out, NULL, &sp, &nsp, NULL) < 0)
        return;
    REQUIRE(out.len > keep + buffer);
    size_t first = out.len - keep;
    uint64_t from = UINT64_MAX;
    for (size_t i = 0; i < nsp && from == UINT64_MAX; i++)
        if (sp[i].nybble >= 2 * (uint64_t)first)
            from = sp[i].insns;
    REQUIRE(from < p->npcs);
    snprintf(off, sizeof off, "%zu", first);
    struct nrt_dec dec;
    char why[256];

    struct dbg_cfg k = c;
    REQUIRE(rvt_codec_dbg.cfg_set(&k, "stream-offset", off, &dg) == 0);
    nrt_decode(CODEC, &k, p->img, p->img, p->xlen, -1, out.data + first, keep, &dec);
    CHECK_MSG(dec.rc == 0 && dec.errors == 0 && dec.npcs == p->npcs - from, "%s, the last %zu bytes at stream offset "
              "%zu: %zu instructions (the tail from the first sync point has %" PRIu64 "), %" PRIu64 " errors: %s",
              p->name, keep, first, dec.npcs, p->npcs - from, dec.errors, dec.first_error);
    CHECK_MSG(nrt_same_pcs(p->pcs, p->npcs, dec.pcs, dec.npcs, true, why, sizeof why), "%s window: %s", p->name, why);
    nrt_dec_free(&dec);

    /* the wrong buffer size: the grid points hold no sync fields */
    snprintf(size, sizeof size, "%" PRIu64, buffer + 256);
    REQUIRE(rvt_codec_dbg.cfg_set(&k, "dbg-buffer", size, &dg) == 0);
    nrt_decode(CODEC, &k, p->img, p->img, p->xlen, -1, out.data + first, keep, &dec);
    CHECK_MSG(dec.errors > 0 && strstr(dec.first_error, "no sync fields at the synchronisation point"),
              "%s window, wrong --dbg-buffer: %" PRIu64 " errors: %s", p->name, dec.errors, dec.first_error);
    nrt_dec_free(&dec);

    /* no position, and a window shorter than the grid: one sync point
     * places it, nothing confirms it */
    size_t spacing = (size_t)buffer / 8, at = 0;
    for (size_t i = 0; i < nsp && !at; i++)
        if (sp[i].nybble / 2 > spacing)
            at = (size_t)(sp[i].nybble / 2);
    REQUIRE(at > 8);
    nrt_decode(CODEC, &c, p->img, p->img, p->xlen, -1, out.data + at - 8, spacing, &dec);
    CHECK_MSG(dec.errors > 0 && strstr(dec.first_error, "placed by these sync fields alone"),
              "%s, %zu bytes from a sync point without its position: %" PRIu64 " errors: %s", p->name, spacing,
              dec.errors, dec.first_error);
    nrt_dec_free(&dec);
    rvt_membuf_free(&out);
    free(sp);
}

int main(void)
{
    struct nrt_prog p32, p64, t1;
    if (nrt_prog_flowtest(&p32, "flow/flowtest32.elf", 32, 300, NRT_TIME)) {
        test_wrap(&p32, NULL, 2048);
        test_wrap(&p32, "pc,priv", 1024);
        test_window(&p32, 2048, 1024);
        test_stop(&p32, 2048);
        test_fifo(&p32, "pc,branch,priv");
        test_fifo(&p32, "pc,priv,timestamp");
        test_corruption(&p32, NULL);
        test_corruption(&p32, "pc,priv");
    }
    if (nrt_prog_flowtest(&p64, "flow/flowtest64.elf", 64, 300, 0)) {
        test_wrap(&p64, NULL, 4096);
        test_stop(&p64, 1024);
        test_fifo(&p64, "pc,branch,priv");
        test_corruption(&p64, NULL);
    }
    if (nrt_prog_pclist(&t1, "ntrace-t1/test.elf", "ntrace-t1/test-PCONLY.txt", NRT_DATA)) {
        test_wrap(&t1, NULL, 1024);
        test_window(&t1, 2208, 1024);
        test_wrap(&t1, "pc,priv,loadaddr,storeaddr", 8192);
        test_stop(&t1, 4096);
        test_fifo(&t1, "pc,branch,priv,loadaddr,loaddata");
        test_corruption(&t1, NULL);
        test_corruption(&t1, "pc,priv,loadaddr");
    }
    nrt_prog_free(&p32);
    nrt_prog_free(&p64);
    nrt_prog_free(&t1);
    return rvt_test_summary("test_dbg_buffer");
}

/* Segments through the library (docs/parallel.md): rvt_segments covers
 * the trace with contiguous segments of at least min_bytes from sync
 * points; rvt_segment_range accepts exactly the boundaries; the decodes of
 * all segments retire the whole decode's instructions in order, for each
 * family; a family without the hooks has one segment, the whole trace. */
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

struct pcs {
    struct rvt_bcache *bc;
    uint64_t n, hash;
};

static int one_pc(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct pcs *p = ctx;
    p->n++;
    p->hash = (p->hash ^ pc) * 0x100000001b3ull;
    return 0;
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct pcs *p = ctx;
    return rvt_block_insns(p->bc, 32, b, one_pc, p);
}

static void check_family(const char *fmt, const char *opts, const struct rvt_image *img, const char *elf,
                         const char *pcs)
{
    char trace[512];
    snprintf(trace, sizeof trace, "%s/seg-%s.bin", rvt_test_tmpdir(), fmt);
    REQUIRE(rvt_test_sh("'%s' encode --format %s %s --elf '%s' --input '%s' -o '%s'", rvt_test_cli(), fmt, opts, elf,
                        pcs, trace) == 0);
    size_t len;
    uint8_t *buf = rvt_test_read(trace, &len);
    REQUIRE(buf && len > 0);
    const struct rvt_codec *c = rvt_codec_find(fmt);
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    char copy[256];
    snprintf(copy, sizeof copy, "%s", opts);
    for (char *k = strtok(copy, " "); k; k = strtok(NULL, " ")) {
        char *v = strtok(NULL, " ");
        CHECK(c->cfg_set(cfg, k + 2, v, &d) == 0);
    }
    CHECK(c->cfg_finish(cfg, 32, img, &d) == 0);

    struct pcs whole = {rvt_bcache_new(img, 0), 0, 0};
    struct rvt_flow_sink sink = {.block = on_block, .ctx = &whole};
    CHECK(rvt_decode(c, cfg, img, NULL, buf, len, &sink, &d) == 0);
    CHECK(whole.n > 100000);

    for (int pass = 0; pass < 2; pass++) {
        uint64_t min = pass ? len / 8 : 0; /* every sync point a segment, then about 8 */
        struct rvt_trace_segment *seg = NULL;
        size_t n = 0;
        CHECK(rvt_segments(c, cfg, buf, len, min, &seg, &n, &d) == 0);
        CHECK_MSG(n > 3, "%s min %" PRIu64 ": %zu segments", fmt, min, n);
        struct pcs joined = {whole.bc, 0, 0};
        struct rvt_flow_sink js = {.block = on_block, .ctx = &joined};
        for (size_t i = 0; i < n; i++) {
            CHECK_EQ(seg[i].offset, i ? seg[i - 1].end : 0);
            CHECK(seg[i].end > seg[i].offset);
            if (i + 1 < n)
                CHECK_MSG(seg[i].end - seg[i].offset >= min, "%s segment %zu is %" PRIu64 " bytes", fmt, i,
                          seg[i].end - seg[i].offset);
            CHECK(!i || seg[i].sync.offset == seg[i].offset);
            struct rvt_trace_segment r;
            CHECK(rvt_segment_range(c, cfg, buf, len, seg[i].offset, seg[i].end, &r, &d) == 0);
            CHECK_EQ(r.end, seg[i].end);
            CHECK(rvt_decode_segment(c, cfg, img, NULL, buf, len, &seg[i], &js, &d) == 0);
        }
        CHECK_EQ(seg[n - 1].end, len);
        CHECK_EQ(joined.n, whole.n);
        CHECK_EQ(joined.hash, whole.hash);
        /* Not boundaries: inside a segment, and past the end. */
        struct rvt_trace_segment r;
        CHECK(rvt_segment_range(c, cfg, buf, len, seg[1].offset + 1, len, &r, &d) == -RVT_ERR_INVAL);
        CHECK(rvt_segment_range(c, cfg, buf, len, 0, seg[1].offset + 1, &r, &d) == -RVT_ERR_INVAL);
        CHECK(rvt_segment_range(c, cfg, buf, len, 0, len + 1, &r, &d) == -RVT_ERR_INVAL);
        free(seg);
    }

    /* The same family without the hooks: one segment. */
    struct rvt_codec plain = *c;
    plain.sync_points = NULL;
    plain.dec_run_segment = NULL;
    struct rvt_trace_segment *seg = NULL, r;
    size_t n = 0;
    CHECK(rvt_segments(&plain, cfg, buf, len, 0, &seg, &n, &d) == 0);
    CHECK_EQ(n, 1);
    CHECK(seg && seg[0].offset == 0 && seg[0].end == len);
    CHECK(rvt_segment_range(&plain, cfg, buf, len, 0, len, &r, &d) == 0);
    CHECK(rvt_segment_range(&plain, cfg, buf, len, 0, len / 2, &r, &d) == -RVT_ERR_UNSUPPORTED);
    free(seg);
    rvt_bcache_free(whole.bc);
    rvt_codec_cfg_free(cfg);
    free(buf);
}

int main(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf"), *pcs = rvt_test_data("ntrace-t1/test-PCONLY.txt");
    struct rvt_image *img = rvt_img_new();
    if (!img || rvt_img_load_elf(img, elf) < 0) {
        fprintf(stderr, "cannot load %s\n", elf);
        return 1;
    }
    check_family("ntrace", "--sync-msgs 16", img, elf, pcs);
    check_family("etrace", "--resync-max 0", img, elf, pcs);
    check_family("cdl", "--cdl-sync-interval 64", img, elf, pcs);
    check_family("dbg", "--dbg-buffer 1024", img, elf, pcs);
    /* An empty trace has no segment. */
    struct rvt_trace_segment *seg = (void *)1;
    size_t n = 5;
    struct rvt_diag d = {0};
    CHECK(rvt_segments(rvt_codec_find("ntrace"), NULL, (const uint8_t *)"", 0, 0, &seg, &n, &d) == 0);
    CHECK(n == 0 && seg == NULL);
    rvt_img_free(img);
    free(elf);
    free(pcs);
    return rvt_test_summary("test_segments_lib");
}

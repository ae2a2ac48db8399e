/* N-Trace against the reference vector tests/data/ntrace-t1: the encoder
 * reproduces test-NEX.bin byte for byte (HTM, call stack 8, repeated
 * history) and the reference's sizes for the four other option sets; every
 * one decodes back to test-PCONLY.txt. */
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_ntrace;

static struct rvt_image *g_img;
static char *g_pcs_path;

static void *make_cfg(const char *opts)
{
    void *cfg = rvt_codec_cfg_new(&rvt_codec_ntrace);
    struct rvt_diag d = {0};
    char buf[256];
    snprintf(buf, sizeof buf, "%s", opts);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (eq)
            *eq++ = 0;
        CHECK_MSG(rvt_codec_ntrace.cfg_set(cfg, tok, eq ? eq : "1", &d) == 0, "%s: %s", tok, d.msg);
    }
    CHECK_MSG(rvt_codec_ntrace.cfg_finish(cfg, 32, g_img, &d) == 0, "%s", d.msg);
    return cfg;
}

static struct rvt_ing_reader *open_pcs(void)
{
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = RVT_ING_FMT_PCLIST, .image = g_img};
    struct rvt_ing_reader *r = NULL;
    struct rvt_diag d = {0};
    CHECK_MSG(rvt_ing_open(&r, g_pcs_path, &rc, &d) == 0, "%s", d.msg);
    return r;
}

static int pull(void *ctx, struct rvt_ing_rec *r)
{
    return rvt_ing_next(ctx, r);
}

/* Decode `trace` and compare, instruction by instruction, with the PC list. */
static void check_decode(const void *cfg, const uint8_t *trace, size_t len, const char *what)
{
    struct rvt_ing_reader *in = open_pcs();
    REQUIRE(in);
    struct rvt_seqcmp *cmp = rvt_seqcmp_new(pull, in, 32);
    struct rvt_flow_sink sink = rvt_seqcmp_sink(cmp);
    struct rvt_diag d = {0};
    int rc = rvt_decode_buffer(&rvt_codec_ntrace, cfg, g_img, -1, trace, len, &sink, &d);
    CHECK_MSG(rc == 0, "%s: decode: %s", what, d.msg);
    rc = rvt_seqcmp_finish(cmp);
    CHECK_MSG(rc == 0, "%s: %s", what, rvt_seqcmp_error(cmp));
    CHECK_MSG(rvt_seqcmp_insns(cmp) == 164959, "%s: %llu instructions decoded", what,
              (unsigned long long)rvt_seqcmp_insns(cmp));
    rvt_seqcmp_free(cmp);
    rvt_ing_close(in);
}

static void run(const char *opts, uint64_t bytes, uint64_t messages, const uint8_t *golden, size_t golden_len)
{
    void *cfg = make_cfg(opts);
    struct rvt_ing_reader *in = open_pcs();
    REQUIRE(in);
    struct rvt_membuf mb;
    rvt_membuf_init(&mb);
    struct rvt_byte_sink sink = rvt_membuf_sink(&mb);
    struct rvt_codec_stats st;
    struct rvt_diag d = {0};
    int rc = rvt_encode_stream(&rvt_codec_ntrace, cfg, in, g_img, &sink, &st, &d);
    CHECK_MSG(rc == 0, "%s: %s", opts, d.msg);
    rvt_ing_close(in);
    CHECK_MSG(mb.len == bytes, "%s: %zu bytes, reference %llu", opts, mb.len, (unsigned long long)bytes);
    CHECK_MSG(st.packets == messages, "%s: %llu messages, reference %llu", opts, (unsigned long long)st.packets,
              (unsigned long long)messages);
    CHECK_EQ(st.insns, 164959);
    if (golden) {
        CHECK(mb.len == golden_len && memcmp(mb.data, golden, golden_len) == 0);
        for (size_t i = 0; i < mb.len && i < golden_len; i++)
            if (mb.data[i] != golden[i]) {
                CHECK_MSG(0, "first difference at byte 0x%zx: 0x%02x, reference 0x%02x", i, mb.data[i], golden[i]);
                break;
            }
    }
    check_decode(cfg, mb.data, mb.len, opts);
    /* The decoder needs none of the encoder's options. */
    void *plain = make_cfg("");
    check_decode(plain, mb.data, mb.len, opts);
    rvt_codec_cfg_free(plain);
    rvt_membuf_free(&mb);
    rvt_codec_cfg_free(cfg);
}

/* The golden file itself decodes to the PC list, and the PC-list output is
 * the same text as test-PCONLY.txt. */
static void decode_golden_text(const uint8_t *golden, size_t len)
{
    void *cfg = make_cfg("ntrace-mode=htm callstack=8 repeat=2");
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    REQUIRE(f);
    struct rvt_out_config oc = {.size = sizeof oc, .kind = RVT_OUT_PCS, .f = f, .image = g_img, .xlen = 32};
    struct rvt_output *out = rvt_out_new(&oc);
    REQUIRE(out);
    struct rvt_flow_sink sink = rvt_out_sink(out);
    struct rvt_diag d = {0};
    CHECK_MSG(rvt_decode_buffer(&rvt_codec_ntrace, cfg, g_img, -1, golden, len, &sink, &d) == 0, "%s", d.msg);
    CHECK(rvt_out_finish(out) == 0);
    CHECK_EQ(rvt_out_stats(out)->errors, 0);
    rvt_out_free(out);
    fclose(f);
    size_t plen = 0;
    uint8_t *pcs = rvt_test_read(g_pcs_path, &plen);
    REQUIRE(pcs);
    CHECK_MSG(tlen == plen && memcmp(text, pcs, plen) == 0, "decoded PC text differs from test-PCONLY.txt (%zu vs %zu bytes)",
              tlen, plen);
    free(pcs);
    free(text);
    rvt_codec_cfg_free(cfg);
}

int main(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf");
    char *bin = rvt_test_data("ntrace-t1/test-NEX.bin");
    g_pcs_path = rvt_test_data("ntrace-t1/test-PCONLY.txt");
    g_img = rvt_img_new();
    if (rvt_img_load_elf(g_img, elf) < 0) {
        CHECK_MSG(0, "%s", rvt_img_error(g_img));
        return rvt_test_summary("ntrace_golden");
    }
    size_t glen = 0;
    uint8_t *golden = rvt_test_read(bin, &glen);
    if (golden) {
        /* The README's table: bytes and messages for each option set. */
        run("ntrace-mode=htm callstack=8 repeat=2", 2604, 367, golden, glen);
        run("ntrace-mode=btm callstack=0 repeat=0", 12978, 6233, NULL, 0);
        run("ntrace-mode=htm callstack=0 repeat=0", 3393, 485, NULL, 0);
        run("ntrace-mode=htm callstack=0 repeat=2", 2628, 371, NULL, 0);
        run("ntrace-mode=htm callstack=8 repeat=0", 3374, 482, NULL, 0);
        decode_golden_text(golden, glen);
        void *cfg = make_cfg("");
        check_decode(cfg, golden, glen, "test-NEX.bin");
        rvt_codec_cfg_free(cfg);
    }
    free(golden);
    free(elf);
    free(bin);
    free(g_pcs_path);
    rvt_img_free(g_img);
    return rvt_test_summary("ntrace_golden");
}

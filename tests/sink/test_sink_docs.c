/* The examples in docs/sinks.md work as documented: the register file
 * applies to the system the page describes, the hand-written sidecar
 * linearises a dump, the --sink examples parse, and the example note is
 * the text the library produces. */
#include "rvtrace/sink.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* The first ``` block after the line starting with `heading`. */
static char *block_after(const char *doc, const char *heading, size_t *len)
{
    const char *h = strstr(doc, heading);
    if (!h)
        return NULL;
    const char *b = strstr(h, "```");
    if (!b)
        return NULL;
    b = strchr(b, '\n');
    if (!b)
        return NULL;
    b++;
    const char *e = strstr(b, "```");
    if (!e)
        return NULL;
    *len = (size_t)(e - b);
    char *out = malloc(*len + 1);
    memcpy(out, b, *len);
    out[*len] = 0;
    return out;
}

struct notes {
    int n;
    char last[700];
};

static void note_cb(void *ctx, const char *msg)
{
    struct notes *nt = ctx;
    nt->n++;
    snprintf(nt->last, sizeof nt->last, "%s", msg);
}

static void check_docs(void)
{
    size_t dl;
    uint8_t *doc = rvt_test_read(RVT_SOURCE_DIR "/docs/sinks.md", &dl);
    REQUIRE(doc);
    char *text = malloc(dl + 1);
    memcpy(text, doc, dl);
    text[dl] = 0;
    free(doc);

    /* The register-file example, on the system of the TCI example. */
    size_t n;
    char *regs = block_after(text, "### Register-setting files", &n);
    REQUIRE(regs);
    struct rvt_ramsink_config ram = {.size = sizeof ram, .mode = RVT_RAM_SRAM, .sram_bytes = 65536,
                                     .width_bits = 32, .pad_byte = 0xFF};
    struct rvt_tci_config tc = {.size = sizeof tc, .n_encoders = 2, .te_format = 1, .n_funnels = 1,
                                .n_ramsinks = 1, .ramsinks = &ram, .n_atb_bridges = 1,
                                .base_address = 0x10000000};
    struct rvt_tci *t = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_tci_new(&tc, &t, &d) == 0);
    struct notes nt = {0};
    struct rvt_tci_file_options opt = {.size = sizeof opt, .note = note_cb, .note_ctx = &nt};
    CHECK_MSG(rvt_tci_apply_text(t, regs, n, "board.regs", &opt, &d) == 0, "%s", d.msg);
    CHECK_MSG(nt.n == 0, "unexpected note: %s", nt.last);
    for (unsigned i = 0; i < 2; i++) {
        struct rvt_te_settings s;
        REQUIRE(rvt_tci_te_settings(t, i, &s, sizeof s) == 0);
        CHECK(s.enabled && s.inst_tracing);
        CHECK_EQ(s.inst_mode, 6);
        CHECK_EQ(s.sync_mode, RVT_TE_SYNC_HALFWORDS);
        CHECK_EQ(s.sync_period, 1024);
        CHECK_EQ(s.src_id, i);
        CHECK_EQ(s.src_bits, 1);
    }
    struct rvt_ramsink_state st;
    rvt_ramsink_state(rvt_tci_ramsink(t, 0), &st);
    CHECK(st.enabled && !st.stop_on_wrap);
    CHECK_EQ(st.size, 65536);
    /* The note shown on the page, from line 12 of the same file. */
    const char *line12 = "\n\n\n\n\n\n\n\n\n\n\nencoder1.trTeControl = 0x00630067\n";
    CHECK_EQ(rvt_tci_apply_text(t, line12, strlen(line12), "board.regs", &opt, &d), 0);
    CHECK_EQ(nt.n, 1);
    CHECK_MSG(strstr(text, nt.last) != NULL, "the page does not show the note '%s'", nt.last);
    free(regs);
    rvt_tci_free(t);

    /* The hand-written sidecar for a raw dump. */
    char *side = block_after(text, "A raw dump from a debugger", &n);
    REQUIRE(side);
    struct rvt_sink_info info;
    CHECK_MSG(rvt_sink_info_parse(side, n, "dump.sink", &info, &d) == 0, "%s", d.msg);
    size_t img_len = 0x100000 + 0x10000;
    uint8_t *img = calloc(1, img_len);
    REQUIRE(img);
    img[0x100000 + 0xa40] = 0xAB; /* the oldest byte */
    img[0x100000 + 0xa3f] = 0xCD; /* the newest */
    struct rvt_sink_image li;
    REQUIRE(rvt_sink_linearize(img, img_len, &info, &li, &d) == 0);
    CHECK_EQ(li.len, 0x10000);
    CHECK_EQ(li.data[0], 0xAB);
    CHECK_EQ(li.data[0xFFFF], 0xCD);
    CHECK_EQ(li.lost_known, 0);
    rvt_sink_image_free(&li);
    free(img);
    free(side);

    /* The sidecar the page shows parses. */
    side = block_after(text, "and its description to `path.sink`", &n);
    REQUIRE(side);
    CHECK_MSG(rvt_sink_info_parse(side, n, "trace.bin.sink", &info, &d) == 0, "%s", d.msg);
    CHECK_EQ(info.wp, 0x1a2c);
    free(side);

    /* The --sink examples. */
    static const char *const specs[] = {"sram:65536:wrap", "sram:64k:stop:64", "smem:0x80000000:1m:wrap:128"};
    for (int i = 0; i < 3; i++) {
        struct rvt_sink_spec sp;
        CHECK_MSG(rvt_sink_spec_parse(specs[i], &sp, &d) == 0, "%s: %s", specs[i], d.msg);
        CHECK_MSG(strstr(text, specs[i]) != NULL, "%s is not on the page", specs[i]);
    }
    free(text);
}

int main(void)
{
    check_docs();
    return rvt_test_summary("test_sink_docs");
}

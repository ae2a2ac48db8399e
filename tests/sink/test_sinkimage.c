/* Sink images on disk: the --sink spec, the sidecar file, saving a sink
 * and loading the image back oldest-first with the bytes lost. */
#include "rvtrace/sink.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static void test_spec(void)
{
    struct rvt_sink_spec sp;
    struct rvt_diag d = {0};
    REQUIRE(rvt_sink_spec_parse("sram:65536:wrap", &sp, &d) == 0);
    CHECK_EQ(sp.mode, RVT_RAM_SRAM);
    CHECK_EQ(sp.bytes, 65536);
    CHECK_EQ(sp.stop_on_wrap, 0);
    CHECK_EQ(sp.width_bits, 32);
    REQUIRE(rvt_sink_spec_parse("sram:64k:stop:64", &sp, &d) == 0);
    CHECK_EQ(sp.bytes, 65536);
    CHECK_EQ(sp.stop_on_wrap, 1);
    CHECK_EQ(sp.width_bits, 64);
    REQUIRE(rvt_sink_spec_parse("sram:0x1000:wrap:128", &sp, &d) == 0);
    CHECK_EQ(sp.bytes, 0x1000);
    CHECK_EQ(sp.width_bits, 128);
    REQUIRE(rvt_sink_spec_parse("smem:0x80000000:1m:wrap", &sp, &d) == 0);
    CHECK_EQ(sp.mode, RVT_RAM_SMEM);
    CHECK_EQ(sp.start, 0x80000000);
    CHECK_EQ(sp.bytes, 1 << 20);

    static const char *const bad[][2] = {
        {"sram", "expected"},
        {"flash:64:wrap", "expected sram"},
        {"sram:abc:wrap", "'abc' is not a number"},
        {"sram:64:loop", "mode 'loop'"},
        {"sram:64:wrap:48", "width '48'"},
        {"sram:66:wrap", "multiple"},
        {"sram:0:wrap", "multiple"},
        {"sram:64:wrap:32:extra", "expected"},
        {"sram:8g:wrap", "4 GiB"},
        {"smem:0x1002:64:wrap", "aligned"},
        {"smem:64:wrap", "expected smem"},
        {"sram:99999999999999999999:wrap", "not a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = rvt_sink_spec_parse(bad[i][0], &sp, &d);
        CHECK_MSG(rc == -RVT_ERR_INVAL, "%s: rc %d", bad[i][0], rc);
        CHECK_MSG(strstr(d.msg, bad[i][1]) != NULL, "%s: message '%s' lacks '%s'", bad[i][0], d.msg, bad[i][1]);
    }
}

static void test_sidecar_text(void)
{
    struct rvt_sink_info in;
    rvt_sink_info_init(&in);
    in.known = RVT_SINFO_MODE | RVT_SINFO_POLICY | RVT_SINFO_WIDTH | RVT_SINFO_SIZE | RVT_SINFO_START |
               RVT_SINFO_BASE | RVT_SINFO_ORIGIN | RVT_SINFO_WP | RVT_SINFO_WRAP | RVT_SINFO_WRITTEN |
               RVT_SINFO_DROPPED | RVT_SINFO_PAD;
    in.mode = RVT_RAM_SMEM;
    in.stop_on_wrap = 0;
    in.width_bits = 64;
    in.size = 4096;
    in.start = 0x80001000;
    in.base = 0x80000000;
    in.origin = 0x80001000;
    in.wp = 0x80001238;
    in.wrap = 1;
    in.written = 123456;
    in.dropped = 7;
    in.pad_byte = 0xFF;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    REQUIRE(f);
    CHECK_EQ(rvt_sink_info_write(f, &in), 0);
    fclose(f);
    CHECK(strncmp(text, "rvtrace-sink 1\n", 15) == 0);
    CHECK(strstr(text, "sink = smem\n") != NULL);
    CHECK(strstr(text, "mode = wrap\n") != NULL);
    CHECK(strstr(text, "width = 64\n") != NULL);
    CHECK(strstr(text, "wp = 0x80001238\n") != NULL);
    CHECK(strstr(text, "wrap = 1\n") != NULL);
    CHECK(strstr(text, "written = 123456\n") != NULL);
    struct rvt_sink_info out;
    struct rvt_diag d = {0};
    REQUIRE(rvt_sink_info_parse(text, len, "t.sink", &out, &d) == 0);
    CHECK_EQ(out.known, in.known);
    CHECK_EQ(out.mode, in.mode);
    CHECK_EQ(out.width_bits, in.width_bits);
    CHECK_EQ(out.size, in.size);
    CHECK_EQ(out.start, in.start);
    CHECK_EQ(out.base, in.base);
    CHECK_EQ(out.origin, in.origin);
    CHECK_EQ(out.wp, in.wp);
    CHECK_EQ(out.wrap, in.wrap);
    CHECK_EQ(out.written, in.written);
    CHECK_EQ(out.dropped, in.dropped);
    CHECK_EQ(out.pad_byte, in.pad_byte);
    free(text);

    /* Hand-written forms: comments, "key value", "key=value". */
    const char *hand = "# captured with a debugger\n"
                       "rvtrace-sink 1   # version\n"
                       "\n"
                       "size 0x2000\n"
                       "wp=0x1c0 ; the write pointer\n"
                       "wrap   =   1\n";
    REQUIRE(rvt_sink_info_parse(hand, strlen(hand), "hand.sink", &out, &d) == 0);
    CHECK_EQ(out.known, RVT_SINFO_SIZE | RVT_SINFO_WP | RVT_SINFO_WRAP);
    CHECK_EQ(out.size, 0x2000);
    CHECK_EQ(out.wp, 0x1C0);
    CHECK_EQ(out.wrap, 1);

    static const char *const bad[][2] = {
        {"", "empty"},
        {"size = 4\n", "hand.sink:1: expected 'rvtrace-sink 1' first"},
        {"rvtrace-sink 2\n", "hand.sink:1: sidecar version '2'"},
        {"rvtrace-sink 1\nsize = 4\nsize = 8\n", "hand.sink:3: 'size' given twice"},
        {"rvtrace-sink 1\ncolour = red\n", "hand.sink:2: unknown key 'colour'"},
        {"rvtrace-sink 1\nwrap = 2\n", "hand.sink:2: wrap 2"},
        {"rvtrace-sink 1\nwp = 0xZZ\n", "hand.sink:2: wp: '0xZZ' is not a number"},
        {"rvtrace-sink 1\nwidth = 24\n", "hand.sink:2: width 24"},
        {"rvtrace-sink 1\nmode = loop\n", "hand.sink:2: mode 'loop'"},
        {"rvtrace-sink 1\nsink = flash\n", "hand.sink:2: sink 'flash'"},
        {"rvtrace-sink 1\nwp\n", "hand.sink:2: 'wp' has no value"},
        {"rvtrace-sink 1\nwp = 1 2\n", "hand.sink:2: unexpected '2'"},
        {"rvtrace-sink 1\npad = 0x100\n", "hand.sink:2: pad 0x100"},
        {"rvtrace-sink 1\nsize = 0\n", "hand.sink:2: size 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = rvt_sink_info_parse(bad[i][0], strlen(bad[i][0]), "hand.sink", &out, &d);
        CHECK_MSG(rc < 0, "case %zu accepted", i);
        CHECK_MSG(strstr(d.msg, bad[i][1]) != NULL, "case %zu: message '%s' lacks '%s'", i, d.msg, bad[i][1]);
    }
}

static void test_linearize(void)
{
    uint8_t img[16];
    for (int i = 0; i < 16; i++)
        img[i] = (uint8_t)i;
    struct rvt_sink_info info;
    struct rvt_sink_image out;
    struct rvt_diag d = {0};

    /* No description: the image is the trace. */
    rvt_sink_info_init(&info);
    REQUIRE(rvt_sink_linearize(img, 16, &info, &out, &d) == 0);
    CHECK_EQ(out.len, 16);
    CHECK_EQ(out.described, 0);
    CHECK_EQ(out.lost_known, 1);
    CHECK_EQ(out.lost, 0);
    rvt_sink_image_free(&out);

    /* Not wrapped: start .. WP. */
    info.known = RVT_SINFO_WP | RVT_SINFO_WRAP;
    info.wp = 10;
    info.wrap = 0;
    REQUIRE(rvt_sink_linearize(img, 16, &info, &out, &d) == 0);
    CHECK_EQ(out.len, 10);
    CHECK_EQ(out.data[9], 9);
    CHECK_EQ(out.wrapped, 0);
    rvt_sink_image_free(&out);

    /* Wrapped, total unknown: WP .. end, start .. WP; loss unknown. */
    info.wrap = 1;
    info.wp = 12;
    REQUIRE(rvt_sink_linearize(img, 16, &info, &out, &d) == 0);
    CHECK_EQ(out.len, 16);
    CHECK_EQ(out.data[0], 12);
    CHECK_EQ(out.data[3], 15);
    CHECK_EQ(out.data[4], 0);
    CHECK_EQ(out.data[15], 11);
    CHECK_EQ(out.lost_known, 0);
    CHECK_EQ(out.wrapped, 1);
    rvt_sink_image_free(&out);

    /* Wrapped with the total: lost = written - size. */
    info.known |= RVT_SINFO_WRITTEN;
    info.written = 100;
    REQUIRE(rvt_sink_linearize(img, 16, &info, &out, &d) == 0);
    CHECK_EQ(out.lost_known, 1);
    CHECK_EQ(out.lost, 84);
    rvt_sink_image_free(&out);

    /* Wrapped after starting mid-buffer (origin 8), only 12 bytes ever
     * written: the 12 before WP = 4 are valid (8..15, 0..3). */
    info.known |= RVT_SINFO_ORIGIN;
    info.origin = 8;
    info.wp = 4;
    info.written = 12;
    REQUIRE(rvt_sink_linearize(img, 16, &info, &out, &d) == 0);
    CHECK_EQ(out.len, 12);
    CHECK_EQ(out.data[0], 8);
    CHECK_EQ(out.data[11], 3);
    CHECK_EQ(out.lost, 0);
    rvt_sink_image_free(&out);

    /* A buffer inside a larger memory dump: base 0x1000, buffer at 0x1004
     * of 8 bytes, WP 0x1008 wrapped. */
    rvt_sink_info_init(&info);
    info.known = RVT_SINFO_BASE | RVT_SINFO_START | RVT_SINFO_SIZE | RVT_SINFO_WP | RVT_SINFO_WRAP;
    info.base = 0x1000;
    info.start = 0x1004;
    info.size = 8;
    info.wp = 0x1008;
    info.wrap = 1;
    REQUIRE(rvt_sink_linearize(img, 16, &info, &out, &d) == 0);
    CHECK_EQ(out.len, 8);
    CHECK_EQ(out.data[0], 8);
    CHECK_EQ(out.data[3], 11);
    CHECK_EQ(out.data[4], 4);
    rvt_sink_image_free(&out);

    /* Errors name what does not fit. */
    info.size = 16;
    CHECK_EQ(rvt_sink_linearize(img, 16, &info, &out, &d), -RVT_ERR_TRUNCATED);
    CHECK(strstr(d.msg, "16-byte buffer at 0x1004") != NULL);
    info.size = 8;
    info.wp = 0x2000;
    CHECK_EQ(rvt_sink_linearize(img, 16, &info, &out, &d), -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "write pointer 0x2000 is outside the buffer 0x1004..0x100c") != NULL);
    info.start = 0x800;
    CHECK_EQ(rvt_sink_linearize(img, 16, &info, &out, &d), -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "outside the image") != NULL);
    rvt_sink_info_init(&info);
    info.known = RVT_SINFO_WRAP;
    info.wrap = 1;
    CHECK_EQ(rvt_sink_linearize(img, 16, &info, &out, &d), -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "no write pointer") != NULL);
    info.known = RVT_SINFO_WIDTH;
    info.width_bits = 64;
    CHECK_EQ(rvt_sink_linearize(img, 12, &info, &out, &d), -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "multiple of the 64-bit trace word") != NULL);
}

/* Save a wrapped sink and load it back: the same bytes and loss as the
 * sink reports itself. */
static void test_save_load(void)
{
    struct rvt_sink_spec sp;
    struct rvt_diag d = {0};
    REQUIRE(rvt_sink_spec_parse("sram:256:wrap:64", &sp, &d) == 0);
    struct rvt_ramsink *s = NULL;
    REQUIRE(rvt_ramsink_from_spec(&sp, 0xFF, &s, &d) == 0);
    uint8_t data[1000];
    for (int i = 0; i < 1000; i++)
        data[i] = (uint8_t)(i * 7 + 3);
    CHECK_EQ(rvt_ramsink_write(s, data, 1000), 1000);
    char path[512];
    snprintf(path, sizeof path, "%s/wrapped.bin", rvt_test_tmpdir());
    REQUIRE(rvt_ramsink_save(s, path, &d) == 0);
    uint8_t *lin;
    size_t n;
    uint64_t lost;
    REQUIRE(rvt_ramsink_linear(s, &lin, &n, &lost) == 0);
    CHECK_EQ(n, 256);
    CHECK_EQ(lost, 744); /* 1000 bytes, a multiple of the 8-byte word: no padding */

    size_t flen;
    uint8_t *file = rvt_test_read(path, &flen);
    REQUIRE(file);
    size_t bl;
    const uint8_t *buf = rvt_ramsink_buffer(s, &bl);
    CHECK_EQ(flen, 256);
    CHECK(memcmp(file, buf, 256) == 0);
    free(file);

    struct rvt_sink_image img;
    REQUIRE(rvt_sink_image_load(path, NULL, &img, &d) == 0);
    CHECK_EQ(img.len, 256);
    CHECK_EQ(img.lost_known, 1);
    CHECK_EQ(img.lost, 744);
    CHECK_EQ(img.described, 1);
    CHECK(memcmp(img.data, lin, 256) == 0);
    CHECK(memcmp(img.data, data + 744, 256) == 0);
    CHECK_EQ(img.info.width_bits, 64);
    CHECK_EQ(img.info.stop_on_wrap, 0);
    CHECK_EQ(img.info.wp, 1000 % 256);
    rvt_sink_image_free(&img);

    /* The same image with only WP and wrap given (no sidecar). */
    char raw[512];
    snprintf(raw, sizeof raw, "%s/raw.bin", rvt_test_tmpdir());
    FILE *f = fopen(raw, "wb");
    REQUIRE(f);
    fwrite(buf, 1, 256, f);
    fclose(f);
    struct rvt_sink_info ov;
    rvt_sink_info_init(&ov);
    ov.known = RVT_SINFO_WP | RVT_SINFO_WRAP;
    ov.wp = 1000 % 256;
    ov.wrap = 1;
    REQUIRE(rvt_sink_image_load(raw, &ov, &img, &d) == 0);
    CHECK_EQ(img.len, 256);
    CHECK_EQ(img.lost_known, 0);
    CHECK(memcmp(img.data, lin, 256) == 0);
    rvt_sink_image_free(&img);
    /* Overrides beat the sidecar. */
    ov.known = RVT_SINFO_WRAP;
    ov.wrap = 0;
    REQUIRE(rvt_sink_image_load(path, &ov, &img, &d) == 0);
    CHECK_EQ(img.len, 1000 % 256);
    CHECK_EQ(img.wrapped, 0);
    rvt_sink_image_free(&img);

    /* A broken sidecar is an error naming the file and line. */
    char side[600];
    snprintf(side, sizeof side, "%s.sink", raw);
    f = fopen(side, "w");
    REQUIRE(f);
    fputs("rvtrace-sink 1\nwp = nowhere\n", f);
    fclose(f);
    CHECK_EQ(rvt_sink_image_load(raw, NULL, &img, &d), -RVT_ERR_FORMAT);
    CHECK(strstr(d.msg, "raw.bin.sink:2: wp: 'nowhere' is not a number") != NULL);
    /* A missing image names the file. */
    snprintf(raw, sizeof raw, "%s/none.bin", rvt_test_tmpdir());
    CHECK_EQ(rvt_sink_image_load(raw, NULL, &img, &d), -RVT_ERR_IO);
    CHECK(strstr(d.msg, "none.bin") != NULL);
    free(lin);
    rvt_ramsink_free(s);

    /* Stop mode: the sidecar says so; nothing lost to wrapping, the rest dropped. */
    REQUIRE(rvt_sink_spec_parse("sram:64:stop", &sp, &d) == 0);
    REQUIRE(rvt_ramsink_from_spec(&sp, 0xFF, &s, &d) == 0);
    CHECK_EQ(rvt_ramsink_write(s, data, 100), 64);
    snprintf(path, sizeof path, "%s/stopped.bin", rvt_test_tmpdir());
    REQUIRE(rvt_ramsink_save(s, path, &d) == 0);
    REQUIRE(rvt_sink_image_load(path, NULL, &img, &d) == 0);
    CHECK_EQ(img.len, 64);
    CHECK_EQ(img.lost, 0);
    CHECK_EQ(img.info.dropped, 36);
    CHECK_EQ(img.info.stop_on_wrap, 1);
    CHECK(memcmp(img.data, data, 64) == 0);
    rvt_sink_image_free(&img);
    rvt_ramsink_free(s);

    /* SMEM spec: the image is the buffer, addresses from start. */
    REQUIRE(rvt_sink_spec_parse("smem:0x80000000:128:wrap", &sp, &d) == 0);
    REQUIRE(rvt_ramsink_from_spec(&sp, 0x00, &s, &d) == 0);
    CHECK_EQ(rvt_ramsink_write(s, data, 130), 130);
    snprintf(path, sizeof path, "%s/smem.bin", rvt_test_tmpdir());
    REQUIRE(rvt_ramsink_save(s, path, &d) == 0);
    REQUIRE(rvt_sink_image_load(path, NULL, &img, &d) == 0);
    CHECK_EQ(img.info.start, 0x80000000);
    CHECK_EQ(img.info.wp, 0x80000004);
    CHECK_EQ(img.len, 128);
    CHECK_EQ(img.lost, 4);
    CHECK(memcmp(img.data, data + 4, 126) == 0);
    CHECK_EQ(img.data[126], 0);
    CHECK_EQ(img.data[127], 0);
    rvt_sink_image_free(&img);
    rvt_ramsink_free(s);
}


/* One description, the same words and counts for encode and decode: a
 * stopped buffer is never "wrapped", a wrapped one says what was lost. */
static void test_describe(void)
{
    uint8_t ram[64];
    char text[512];
    struct rvt_diag d = {0};
    struct rvt_ramsink_config c = {.size = sizeof c, .mode = RVT_RAM_SRAM, .sram_bytes = 64, .stop_on_wrap = 1,
                                   .pad_byte = 0xFF};
    struct rvt_ramsink *s;
    REQUIRE(rvt_ramsink_new(&c, &s, &d) == 0);
    memset(ram, 0x5A, sizeof ram);
    CHECK_EQ(rvt_ramsink_write(s, ram, 40), 40);
    CHECK_EQ(rvt_ramsink_write(s, ram, 40), 24); /* fills and stops */
    CHECK_EQ(rvt_ramsink_write(s, ram, 10), 0);
    rvt_ramsink_flush(s);
    struct rvt_sink_info info;
    rvt_ramsink_info(s, &info);
    CHECK_EQ(info.dropped, 26);
    rvt_sink_info_describe(&info, 0, text, sizeof text);
    CHECK_STR(text, "trace RAM of 64 bytes filled and stopped (stop mode): it holds the first 64 bytes of the trace, "
                    "nothing was overwritten; 26 bytes offered after it stopped were refused");
    rvt_sink_info_describe(&info, 1, text, sizeof text);
    CHECK_MSG(strstr(text, "; decoding them from the start") && !strstr(text, "wrapped"), "%s", text);
    /* The image loaded back is not "wrapped": nothing was overwritten. */
    struct rvt_sink_image img;
    REQUIRE(rvt_sink_linearize(rvt_ramsink_buffer(s, &(size_t){0}), 64, &info, &img, &d) == 0);
    CHECK_EQ(img.stopped, 1);
    CHECK_EQ(img.wrapped, 0);
    CHECK_EQ(img.len, 64);
    CHECK_EQ(img.lost, 0);
    rvt_sink_image_free(&img);
    rvt_ramsink_free(s);

    /* Wrap mode: newest bytes, older overwritten. */
    c.stop_on_wrap = 0;
    REQUIRE(rvt_ramsink_new(&c, &s, &d) == 0);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(rvt_ramsink_write(s, ram, 40), 40);
    rvt_ramsink_flush(s);
    rvt_ramsink_info(s, &info);
    rvt_sink_info_describe(&info, 1, text, sizeof text);
    CHECK_STR(text, "trace RAM of 64 bytes wrapped (wrap mode): it holds the newest 64 of 200 bytes written; the 136 "
                    "older bytes were overwritten; decoding from the oldest synchronisation point in the bytes kept");
    rvt_ramsink_free(s);

    /* A hand-written description: wrap flag, no total, no mode. */
    rvt_sink_info_init(&info);
    info.known = RVT_SINFO_WP | RVT_SINFO_WRAP | RVT_SINFO_SIZE;
    info.wp = 16;
    info.wrap = 1;
    info.size = 64;
    rvt_sink_info_describe(&info, 0, text, sizeof text);
    CHECK_STR(text, "trace RAM of 64 bytes wrapped: it holds the newest 64 bytes; how many older bytes were "
                    "overwritten is not known");
    /* Not wrapped. */
    info.known |= RVT_SINFO_POLICY;
    info.wrap = 0;
    rvt_sink_info_describe(&info, 0, text, sizeof text);
    CHECK_STR(text, "trace RAM of 64 bytes (wrap mode): it holds all 16 bytes written (not wrapped)");
}

int main(void)
{
    test_spec();
    test_sidecar_text();
    test_linearize();
    test_save_load();
    test_describe();
    return rvt_test_summary("test_sinkimage");
}

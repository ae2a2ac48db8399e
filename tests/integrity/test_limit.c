/* Bounded work and the classification of a decode (docs/decoding.md):
 *   - the flow engine's instruction limit: exactly max_insns instructions,
 *     one RVT_GAP_LIMIT note at the offset, then nothing more, whatever the
 *     decoder calls next;
 *   - rvt_decode: the default limit for the buffer's size, the limit ending
 *     a decode with status 0 from the library and "damaged" from the stats;
 *   - a 33-byte N-Trace file whose repeated history walks a loop for 51 M
 *     instructions ends at the default limit (issue 10's 34-byte file);
 *   - a 54-byte E-Trace file (found by fuzz_etrace_framing) whose data
 *     trace side waits for a data packet that never comes while the walk
 *     runs to the default limit: the held blocks must cost O(1) each (it
 *     took 86 s when each released block moved the whole held queue);
 *   - rvt_out_status, rvt_out_describe and the bounded damage reports;
 *   - a damaged start: what a decoder cannot decode before its first sync
 *     point is the overwritten part of a wrapped RAM by default, damage
 *     with rvt_decode_options.starts_at_trace_start (and callers built
 *     with the older, smaller options struct still work). */
#include "ntrace/ntrace.h"
#include "rvtrace/rvtrace.h"
#include "testlib.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tally {
    uint64_t insns, blocks, notes[8], limit_notes, errors, gaps;
    uint64_t limit_offset;
};

static int t_block(void *ctx, const struct rvt_block *b)
{
    struct tally *t = ctx;
    t->insns += b->ninsns;
    t->blocks++;
    return 0;
}

static int t_note(void *ctx, const struct rvt_note *n)
{
    struct tally *t = ctx;
    if (n->kind < 8)
        t->notes[n->kind]++;
    if (n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_LIMIT) {
        t->limit_notes++;
        t->limit_offset = n->offset;
    }
    return 0;
}

/* `1: j 1b` at 0x1000 behind three nops: a walk without limits never ends. */
static void flow_limit(void)
{
    static const uint8_t code[] = {0x13, 0x00, 0x00, 0x00, 0x13, 0x00, 0x00, 0x00,
                                   0x13, 0x00, 0x00, 0x00, 0x6f, 0x00, 0x00, 0x00};
    struct rvt_image *img = rvt_img_new();
    rvt_img_set_xlen(img, 64);
    REQUIRE(rvt_img_add_raw(img, 0x1000, code, sizeof code, "loop") == 0);
    struct tally t = {0};
    struct rvt_flow_config fc = {.size = sizeof fc, .image = img, .sink = {.block = t_block, .note = t_note, .ctx = &t}, .max_insns = 1000};
    struct rvt_flow *f = rvt_flow_new(&fc);
    REQUIRE(f);
    rvt_flow_set_offset(f, 0x42);
    CHECK(rvt_flow_sync(f, 0x1000, RVT_PRIV_M, 0, true) == 0);
    struct rvt_walk w = {0};
    struct rvt_stop st;
    CHECK_EQ(rvt_flow_walk(f, &w, &st), -RVT_ERR_LIMIT);
    CHECK(rvt_flow_limit_reached(f));
    CHECK_EQ(t.insns, 1000);
    CHECK_EQ(rvt_flow_insns(f), 1000);
    CHECK_EQ(t.limit_notes, 1);
    CHECK_EQ(t.limit_offset, 0x42);
    CHECK(strstr(rvt_flow_error(f), "0x42") != NULL);
    /* After the limit: every call fails, nothing more reaches the sink. */
    uint64_t blocks = t.blocks, notes = t.notes[RVT_NOTE_GAP] + t.notes[RVT_NOTE_ERROR] + t.notes[RVT_NOTE_SYNC];
    CHECK_EQ(rvt_flow_walk(f, &w, &st), -RVT_ERR_LIMIT);
    CHECK_EQ(rvt_flow_sync(f, 0x1000, RVT_PRIV_M, 0, true), -RVT_ERR_LIMIT);
    CHECK_EQ(rvt_flow_gap(f, RVT_GAP_ERROR, "damage"), -RVT_ERR_LIMIT);
    struct rvt_block b = {.start = 0x1000, .last = 0x100c, .ninsns = 4, .last_len = 4};
    CHECK_EQ(rvt_flow_emit_block(f, &b), -RVT_ERR_LIMIT);
    CHECK_EQ(t.blocks, blocks);
    CHECK_EQ(t.notes[RVT_NOTE_GAP] + t.notes[RVT_NOTE_ERROR] + t.notes[RVT_NOTE_SYNC], notes);
    CHECK_EQ(t.insns, 1000);
    rvt_flow_free(f);

    /* Walks that stop on their own at the limit are not cut: a count of
     * exactly max_insns retires and the decode goes on. */
    memset(&t, 0, sizeof t);
    fc.max_insns = 10;
    f = rvt_flow_new(&fc);
    CHECK(rvt_flow_sync(f, 0x1000, RVT_PRIV_M, 0, true) == 0);
    struct rvt_walk w10 = {.flags = RVT_WALK_INSNS, .insns = 10};
    CHECK_EQ(rvt_flow_walk(f, &w10, &st), 0);
    CHECK_EQ(st.reason, RVT_STOP_COUNT);
    CHECK(!rvt_flow_limit_reached(f));
    CHECK_EQ(rvt_flow_finish(f), 0);
    CHECK_EQ(t.insns, 10);
    CHECK_EQ(t.limit_notes, 0);
    /* ...one more is past it. */
    struct rvt_walk w1 = {.flags = RVT_WALK_INSNS, .insns = 1};
    CHECK_EQ(rvt_flow_walk(f, &w1, &st), -RVT_ERR_LIMIT);
    CHECK_EQ(t.limit_notes, 1);
    rvt_flow_free(f);

    /* Blocks built without code count too: one that would cross the limit
     * is left out. */
    memset(&t, 0, sizeof t);
    fc.max_insns = 6;
    f = rvt_flow_new(&fc);
    CHECK_EQ(rvt_flow_emit_block(f, &b), 0);
    CHECK_EQ(rvt_flow_emit_block(f, &b), -RVT_ERR_LIMIT);
    CHECK_EQ(t.insns, 4);
    CHECK_EQ(t.limit_notes, 1);
    rvt_flow_free(f);
    rvt_img_free(img);
}

static void default_limit(void)
{
    CHECK_EQ(rvt_decode_default_limit(0), RVT_DECODE_LIMIT_BASE);
    CHECK_EQ(rvt_decode_default_limit(1000), RVT_DECODE_LIMIT_BASE + 1000 * RVT_DECODE_LIMIT_PER_BYTE);
    CHECK_EQ(rvt_decode_default_limit(SIZE_MAX), RVT_DECODE_UNLIMITED);
}

/* Sync into the reference program's loop, repeat a 31-outcome history
 * 2^18 - 1 times, close with a huge I-CNT: 33 bytes, 51 M instructions. */
static void runaway_ntrace(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_load_elf(img, elf) == 0);
    free(elf);
    struct nt_wire wire = {0, 32, false};
    struct rvt_diag d = {0};
    uint8_t buf[4 * NT_MSG_MAX];
    size_t len = 0;
    struct nt_msg m;
    nt_msg_init(&m, NT_TC_PROG_TRACE_SYNC);
    nt_set(&m, NT_F_SYNC, 1);
    nt_set(&m, NT_F_ICNT, 0);
    nt_set(&m, NT_F_FADDR, 0x10008291);
    int k = nt_msg_encode(&wire, &m, buf + len, &d);
    REQUIRE(k > 0);
    len += (size_t)k;
    nt_msg_init(&m, NT_TC_RESOURCE_FULL);
    nt_set(&m, NT_F_RCODE, 1);
    nt_set(&m, NT_F_RDATA, 0xD5528000);
    REQUIRE((k = nt_msg_encode(&wire, &m, buf + len, &d)) > 0);
    len += (size_t)k;
    nt_msg_init(&m, NT_TC_RESOURCE_FULL);
    nt_set(&m, NT_F_RCODE, 2);
    nt_set(&m, NT_F_RDATA, 0x80000000);
    nt_set(&m, NT_F_HREPEAT, NT_MAX_HREPEAT);
    REQUIRE((k = nt_msg_encode(&wire, &m, buf + len, &d)) > 0);
    len += (size_t)k;
    nt_msg_init(&m, NT_TC_PROG_TRACE_CORRELATION);
    nt_set(&m, NT_F_EVCODE, 0);
    nt_set(&m, NT_F_CDF, 1);
    nt_set(&m, NT_F_ICNT, 0xFFFFFFFFull);
    nt_set(&m, NT_F_HIST, 1);
    REQUIRE((k = nt_msg_encode(&wire, &m, buf + len, &d)) > 0);
    len += (size_t)k;
    CHECK_EQ(len, 33);

    const struct rvt_codec *c = rvt_codec_find("ntrace");
    void *cfg = rvt_codec_cfg_new(c);
    REQUIRE(c->cfg_finish(cfg, 32, img, &d) == 0);
    struct tally t = {0};
    struct rvt_output *o = NULL;
    FILE *null = fopen("/dev/null", "w");
    struct rvt_out_config oc = {.size = sizeof oc, .kind = RVT_OUT_COUNT, .f = null, .image = img, .xlen = 32};
    o = rvt_out_new(&oc);
    REQUIRE(o);
    struct rvt_flow_sink os = rvt_out_sink(o);
    clock_t t0 = clock();
    /* through the output layer (what the CLI classifies) */
    CHECK_EQ(rvt_decode(c, cfg, img, NULL, buf, len, &os, &d), 0);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    rvt_out_finish(o);
    const struct rvt_out_stats *st = rvt_out_stats(o);
    CHECK_MSG(st->insns <= rvt_decode_default_limit(len), "%llu instructions from 33 bytes",
              (unsigned long long)st->insns);
    CHECK_EQ(rvt_out_status(st), RVT_DECODE_DAMAGED);
    CHECK_MSG(secs < 20, "the 33-byte trace took %.1f s", secs);
    printf("  33-byte N-Trace runaway: %llu instructions, %.2f s, status %d\n", (unsigned long long)st->insns, secs,
           (int)rvt_out_status(st));
    rvt_out_free(o);
    fclose(null);

    /* With a smaller limit, exactly that many, and the library says 0. */
    struct rvt_decode_options opt = {.size = sizeof opt, .max_insns = 12345};
    struct rvt_flow_sink ts = {.block = t_block, .note = t_note, .ctx = &t};
    CHECK_EQ(rvt_decode(c, cfg, img, &opt, buf, len, &ts, &d), 0);
    if (t.limit_notes) /* (unless the family rejects the repeat count first) */
        CHECK_EQ(t.insns, 12345);
    CHECK(t.insns <= 12345);
    rvt_codec_cfg_free(cfg);
    rvt_img_free(img);
}

static void runaway_etrace_data(void)
{
    static const uint8_t trace[] = {
        0x00, 0x00, 0x80, 0x01, 0x1f, 0x05, 0xf3, 0x48, 0x41, 0x00, 0x08, 0x03, 0x1f, 0x8d, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0xf3, 0x48, 0x41, 0x00, 0x08, 0x03, 0x01,
        0x55, 0xad, 0x02, 0xd8, 0x81, 0x02, 0x02, 0x07, 0x00, 0x00, 0x02, 0x70, 0x03, 0x02, 0x02, 0xa9, 0x68, 0x05};
    char *elf = rvt_test_data("ntrace-t1/test.elf");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_load_elf(img, elf) == 0);
    free(elf);
    const struct rvt_codec *c = rvt_codec_find("etrace");
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    static const char *const opts[][2] = {{"implicit-return", "fixed"}, {"branch-prediction", "1"},
                                          {"jump-target-cache", "1"},   {"sijump", "1"},
                                          {"resync-max", "any"}};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        REQUIRE(c->cfg_set(cfg, opts[i][0], opts[i][1], &d) == 0);
    REQUIRE(c->cfg_finish(cfg, 32, img, &d) == 0);
    FILE *null = fopen("/dev/null", "w");
    struct rvt_out_config oc = {.size = sizeof oc, .kind = RVT_OUT_COUNT, .f = null, .image = img, .xlen = 32};
    struct rvt_output *o = rvt_out_new(&oc);
    REQUIRE(o);
    struct rvt_flow_sink os = rvt_out_sink(o);
    clock_t t0 = clock();
    CHECK_EQ(rvt_decode(c, cfg, img, NULL, trace, sizeof trace, &os, &d), 0);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    rvt_out_finish(o);
    const struct rvt_out_stats *st = rvt_out_stats(o);
    CHECK_MSG(st->insns <= rvt_decode_default_limit(sizeof trace), "%llu instructions from 54 bytes",
              (unsigned long long)st->insns);
    CHECK_EQ(rvt_out_status(st), RVT_DECODE_DAMAGED);
    CHECK_MSG(secs < 20, "the 54-byte E-Trace took %.1f s", secs);
    printf("  54-byte E-Trace runaway with data trace waiting: %llu instructions, %.2f s\n",
           (unsigned long long)st->insns, secs);
    rvt_out_free(o);
    fclose(null);
    rvt_codec_cfg_free(cfg);
    rvt_img_free(img);
}

/* A message N-Trace reserves (TCODE 1), then t1's start: a sync and a
 * ProgTraceCorrelation over its first instructions. */
struct lead {
    uint64_t insns, wraps, errors, damaged_start, first_offset;
};
static int lead_block(void *ctx, const struct rvt_block *b)
{
    ((struct lead *)ctx)->insns += b->ninsns;
    return 0;
}
static int lead_note(void *ctx, const struct rvt_note *n)
{
    struct lead *l = ctx;
    l->wraps += n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_WRAP;
    if (n->kind == RVT_NOTE_ERROR && n->reason == RVT_GAP_ERROR) {
        if (!l->errors++)
            l->first_offset = n->offset;
        l->damaged_start += n->text && strncmp(n->text, "damaged start: ", 15) == 0;
    }
    return 0;
}

static void damaged_start(void)
{
    char *elf = rvt_test_data("ntrace-t1/test.elf");
    struct rvt_image *img = rvt_img_new();
    REQUIRE(rvt_img_load_elf(img, elf) == 0);
    free(elf);
    struct nt_wire wire = {0, 32, false};
    struct rvt_diag d = {0};
    uint8_t buf[3 * NT_MSG_MAX];
    size_t len = 0;
    buf[len++] = 1u << 2; /* TCODE 1, MSEO 00 */
    buf[len++] = 0x07;    /* ...MSEO 11: the end of the message */
    struct nt_msg m;
    nt_msg_init(&m, NT_TC_PROG_TRACE_SYNC);
    nt_set(&m, NT_F_SYNC, 1);
    nt_set(&m, NT_F_ICNT, 0);
    nt_set(&m, NT_F_FADDR, 0x10008291);
    int k = nt_msg_encode(&wire, &m, buf + len, &d);
    REQUIRE(k > 0);
    len += (size_t)k;
    nt_msg_init(&m, NT_TC_PROG_TRACE_CORRELATION);
    nt_set(&m, NT_F_EVCODE, 0);
    nt_set(&m, NT_F_CDF, 0);
    nt_set(&m, NT_F_ICNT, 2);
    REQUIRE((k = nt_msg_encode(&wire, &m, buf + len, &d)) > 0);
    len += (size_t)k;
    const struct rvt_codec *c = rvt_codec_find("ntrace");
    void *cfg = rvt_codec_cfg_new(c);
    REQUIRE(c->cfg_finish(cfg, 32, img, &d) == 0);

    /* Default (a wrapped RAM, or a capture begun mid-stream): not damage. */
    struct lead l = {0};
    struct rvt_flow_sink s = {.block = lead_block, .note = lead_note, .ctx = &l};
    CHECK_EQ(rvt_decode(c, cfg, img, NULL, buf, len, &s, &d), 0);
    CHECK_MSG(l.wraps == 1 && l.errors == 0 && l.insns > 0, "default: %llu wraps, %llu errors, %llu instructions",
              (unsigned long long)l.wraps, (unsigned long long)l.errors, (unsigned long long)l.insns);
    /* A trace that starts where tracing started: an error at offset 0. */
    memset(&l, 0, sizeof l);
    struct rvt_decode_options o = {.size = sizeof o, .ecall = -1, .starts_at_trace_start = true};
    CHECK_EQ(rvt_decode(c, cfg, img, &o, buf, len, &s, &d), 0);
    CHECK_MSG(l.wraps == 0 && l.errors == 1 && l.damaged_start == 1 && l.first_offset == 0 && l.insns > 0,
              "from the trace start: %llu wraps, %llu errors (%llu damaged starts, the first at 0x%llx)",
              (unsigned long long)l.wraps, (unsigned long long)l.errors, (unsigned long long)l.damaged_start,
              (unsigned long long)l.first_offset);
    /* ...which the output layer counts as damage. */
    FILE *null = fopen("/dev/null", "w");
    REQUIRE(null);
    struct rvt_out_config oc = {.size = sizeof oc, .kind = RVT_OUT_COUNT, .f = null, .image = img, .xlen = 32};
    struct rvt_output *out = rvt_out_new(&oc);
    REQUIRE(out);
    struct rvt_flow_sink os = rvt_out_sink(out);
    CHECK_EQ(rvt_decode(c, cfg, img, &o, buf, len, &os, &d), 0);
    rvt_out_finish(out);
    CHECK_EQ(rvt_out_status(rvt_out_stats(out)), RVT_DECODE_DAMAGED);
    rvt_out_free(out);
    fclose(null);
    /* A caller built with the struct before starts_at_trace_start. */
    memset(&l, 0, sizeof l);
    o.size = offsetof(struct rvt_decode_options, max_insns) + sizeof o.max_insns;
    CHECK_EQ(rvt_decode(c, cfg, img, &o, buf, len, &s, &d), 0);
    CHECK_MSG(l.wraps == 1 && l.errors == 0, "old struct size: %llu wraps, %llu errors", (unsigned long long)l.wraps,
              (unsigned long long)l.errors);
    o.size = offsetof(struct rvt_decode_options, max_insns);
    CHECK_EQ(rvt_decode(c, cfg, img, &o, buf, len, &s, &d), -RVT_ERR_INVAL);
    rvt_codec_cfg_free(cfg);
    rvt_img_free(img);
}

/* The classification from notes, and bounded reports. */
static void status_and_reports(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/diag.txt", rvt_test_tmpdir());
    FILE *diag = fopen(path, "w+");
    FILE *null = fopen("/dev/null", "w");
    struct rvt_image *img = rvt_img_new();
    rvt_img_set_xlen(img, 32);
    struct rvt_out_config oc = {
        .size = sizeof oc, .kind = RVT_OUT_BLOCKS, .f = null, .image = img, .xlen = 32, .diag = diag, .diag_max = 3};
    struct rvt_output *o = rvt_out_new(&oc);
    REQUIRE(o && diag);
    struct rvt_flow_sink s = rvt_out_sink(o);
    CHECK_EQ(rvt_out_status(rvt_out_stats(o)), RVT_DECODE_NOTHING);
    struct rvt_block b = {.start = 0x100, .last = 0x104, .ninsns = 2, .last_len = 4};
    s.block(s.ctx, &b);
    CHECK_EQ(rvt_out_status(rvt_out_stats(o)), RVT_DECODE_WHOLE);
    /* not damage */
    struct rvt_note off = {.kind = RVT_NOTE_GAP, .reason = RVT_GAP_TRACE_OFF, .offset = 7};
    s.note(s.ctx, &off);
    struct rvt_note wrap = {.kind = RVT_NOTE_GAP, .reason = RVT_GAP_WRAP, .offset = 0};
    s.note(s.ctx, &wrap);
    CHECK_EQ(rvt_out_status(rvt_out_stats(o)), RVT_DECODE_WHOLE);
    char text[600];
    rvt_out_describe(rvt_out_stats(o), text, sizeof text);
    CHECK_MSG(strstr(text, "tracing was off 1 time") && strstr(text, "overwritten"), "%s", text);
    /* damage: 5 errors (3 printed), one raw byte in a text */
    for (int i = 0; i < 5; i++) {
        struct rvt_note e = {.kind = RVT_NOTE_ERROR,
                             .reason = RVT_GAP_ERROR,
                             .offset = 0x10u + (unsigned)i,
                             .text = "bad byte \x01\xff here"};
        s.note(s.ctx, &e);
    }
    struct rvt_note end = {.kind = RVT_NOTE_GAP, .reason = RVT_GAP_END, .offset = 0x99, .text = "cut"};
    s.note(s.ctx, &end);
    const struct rvt_out_stats *st = rvt_out_stats(o);
    CHECK_EQ(rvt_out_status(st), RVT_DECODE_DAMAGED);
    CHECK_EQ(st->by_reason[RVT_GAP_ERROR], 5);
    CHECK_EQ(st->first_offset[RVT_GAP_ERROR], 0x10);
    CHECK_EQ(st->by_reason[RVT_GAP_END], 1);
    CHECK_EQ(st->first_offset[RVT_GAP_END], 0x99);
    CHECK_EQ(rvt_out_diag_printed(o), 3);
    CHECK_EQ(rvt_out_diag_suppressed(o), 3);
    CHECK(strstr(rvt_out_first_damage(o), "trace offset 0x10") != NULL);
    rvt_out_describe(st, text, sizeof text);
    CHECK_MSG(strstr(text, "5 decode errors (the first at trace offset 0x10)") &&
                  strstr(text, "ends unexpectedly (trace offset 0x99)"),
              "%s", text);
    fflush(diag);
    rewind(diag);
    int c, lines = 0;
    bool clean = true;
    while ((c = fgetc(diag)) != EOF) {
        lines += c == '\n';
        clean &= c == '\n' || (c >= 0x20 && c < 0x7f);
    }
    CHECK_EQ(lines, 3);
    CHECK_MSG(clean, "a raw byte reached the report");
    /* the limit is damage too */
    struct rvt_note lim = {.kind = RVT_NOTE_GAP, .reason = RVT_GAP_LIMIT, .offset = 0x200};
    s.note(s.ctx, &lim);
    CHECK_EQ(st->by_reason[RVT_GAP_LIMIT], 1);
    CHECK(rvt_gap_is_damage(RVT_GAP_LIMIT) && rvt_gap_is_damage(RVT_GAP_LOST) && !rvt_gap_is_damage(RVT_GAP_WRAP) &&
          !rvt_gap_is_damage(RVT_GAP_TRACE_OFF));
    rvt_out_free(o);
    rvt_img_free(img);
    fclose(diag);
    fclose(null);
}

int main(void)
{
    flow_limit();
    default_limit();
    runaway_ntrace();
    runaway_etrace_data();
    status_and_reports();
    damaged_start();
    return rvt_test_summary("test_limit");
}

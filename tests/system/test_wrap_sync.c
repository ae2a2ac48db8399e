/* Issue 9 §3: a wrapping trace RAM is decodable with default options.
 *
 * The bundled real capture (bzip2 -9, 1.47 M instructions) goes through
 * every family into a wrapping SRAM sink whose family synchronisation was
 * left to rvt_codec_wrap_sync: the RAM's bytes, oldest first, must decode
 * without error to exactly the tail of the input, starting at a sync point
 * no further into the kept bytes than the promised gap.  Then the choices
 * themselves: options and registers the user gave are kept, "off" is
 * reported, a buffer too small for any period is reported. */
#include "roundtrip.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* Instruction address ranges [s, e), adjacent ones merged. */
struct ranges {
    uint64_t *s, *e;
    size_t n, cap;
};

static void range_add(struct ranges *g, uint64_t s, uint64_t e)
{
    if (s == e)
        return;
    if (g->n && g->e[g->n - 1] == s) {
        g->e[g->n - 1] = e;
        return;
    }
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        g->s = realloc(g->s, g->cap * sizeof *g->s);
        g->e = realloc(g->e, g->cap * sizeof *g->e);
    }
    g->s[g->n] = s;
    g->e[g->n++] = e;
}

struct dec {
    struct ranges got;
    uint64_t insns, errors, gaps, wrap_gaps;
    uint64_t first_sync;
    bool synced;
};

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct dec *c = ctx;
    c->insns += b->ninsns;
    range_add(&c->got, b->start, b->last + b->last_len);
    return 0;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct dec *c = ctx;
    if (n->kind == RVT_NOTE_ERROR)
        c->errors++;
    else if (n->kind == RVT_NOTE_GAP && n->reason == RVT_GAP_WRAP && !c->insns)
        c->wrap_gaps++; /* the overwritten trace before the first sync point */
    else if (n->kind == RVT_NOTE_GAP)
        c->gaps++;
    else if (n->kind == RVT_NOTE_SYNC && !c->synced) {
        c->synced = true;
        c->first_sync = n->offset;
    }
    return 0;
}

static struct rvt_image *g_img;
static struct rvt_recs g_recs;
static struct ranges g_exp;

static void wrapped_ram(const char *family, uint64_t window)
{
    const struct rvt_codec *c = rvt_codec_find(family);
    REQUIRE(c);
    void *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    struct rvt_wrap_sync ws;
    REQUIRE(rvt_codec_wrap_sync(c, cfg, window, NULL, NULL, 0, NULL, &ws, sizeof ws, &d) == 0);
    if (ws.kind != RVT_WRAP_SYNC_CHOSEN && ws.kind != RVT_WRAP_SYNC_DEFAULT) {
        CHECK_MSG(0, "%s %llu: %s", family, (unsigned long long)window, ws.text);
        rvt_codec_cfg_free(cfg);
        return;
    }
    CHECK_MSG(ws.max_gap > 0 && ws.max_gap <= window, "%s %llu: gap %llu", family, (unsigned long long)window,
              (unsigned long long)ws.max_gap);
    CHECK_MSG(strstr(ws.text, ws.value) && strstr(ws.text, ws.option), "%s: %s", family, ws.text);
    REQUIRE(c->cfg_finish(cfg, rvt_img_xlen(g_img), g_img, &d) == 0);

    char spec[64];
    snprintf(spec, sizeof spec, "sram:%llu:wrap", (unsigned long long)window);
    struct rvt_sink_spec sp;
    struct rvt_ramsink *ram = NULL;
    REQUIRE(rvt_sink_spec_parse(spec, &sp, &d) == 0);
    REQUIRE(rvt_ramsink_from_spec(&sp, c->idle_byte, &ram, &d) == 0);
    struct rvt_byte_sink out = rvt_ramsink_sink(ram);
    void *enc = NULL;
    REQUIRE(c->enc_new(&enc, cfg, &out, &d) == 0);
    for (size_t i = 0; i < g_recs.n; i++)
        REQUIRE(c->enc_put(enc, &g_recs.r[i]) >= 0);
    REQUIRE(c->enc_finish(enc) >= 0);
    c->enc_free(enc);
    rvt_ramsink_flush(ram);
    struct rvt_ramsink_state st;
    rvt_ramsink_state(ram, &st);
    CHECK_MSG(st.wrap && st.written > window, "%s %llu: the RAM did not wrap (%llu bytes written)", family,
              (unsigned long long)window, (unsigned long long)st.written);
    uint8_t *buf = NULL;
    size_t len = 0;
    uint64_t lost = 0;
    REQUIRE(rvt_ramsink_linear(ram, &buf, &len, &lost) == 0);

    struct dec dc;
    memset(&dc, 0, sizeof dc);
    struct rvt_flow_sink fs = {.block = on_block, .note = on_note, .ctx = &dc};
    CHECK_MSG(rvt_decode_buffer(c, cfg, g_img, -1, buf, len, &fs, &d) == 0, "%s: %s", family, d.msg);
    CHECK_MSG(dc.errors == 0 && dc.gaps == 0, "%s %llu: %llu errors, %llu gaps", family, (unsigned long long)window,
              (unsigned long long)dc.errors, (unsigned long long)dc.gaps);
    CHECK_MSG(dc.synced && dc.first_sync <= ws.max_gap,
              "%s %llu: first sync point at byte %llu of the kept bytes, promised within %llu", family,
              (unsigned long long)window, (unsigned long long)dc.first_sync, (unsigned long long)ws.max_gap);
    /* Exactly the input's tail: the first decoded range may start inside
     * an input range (the sync point), every other one is equal. */
    const struct ranges *got = &dc.got;
    bool tail = got->n > 0 && got->n <= g_exp.n;
    size_t off = tail ? g_exp.n - got->n : 0;
    for (size_t i = 0; tail && i < got->n; i++) {
        size_t k = off + i;
        tail = got->e[i] == g_exp.e[k] &&
               (got->s[i] == g_exp.s[k] || (i == 0 && got->s[i] > g_exp.s[k] && got->s[i] < g_exp.e[k]));
    }
    CHECK_MSG(tail, "%s %llu: the %llu decoded instructions (%zu ranges) are not the input's tail", family,
              (unsigned long long)window, (unsigned long long)dc.insns, got->n);
    printf("%s, %llu-byte RAM: --%s %s, first sync at byte %llu (bound %llu), last %llu instructions decoded\n",
           family, (unsigned long long)window, ws.option, ws.value, (unsigned long long)dc.first_sync,
           (unsigned long long)ws.max_gap, (unsigned long long)dc.insns);
    free(dc.got.s);
    free(dc.got.e);
    free(buf);
    rvt_ramsink_free(ram);
    rvt_codec_cfg_free(cfg);
}

static void choices(void)
{
    struct rvt_diag d = {0};
    struct rvt_wrap_sync ws;
    static const struct {
        const char *family, *name, *val;
        enum rvt_wrap_sync_kind kind;
    } cases[] = {
        {"ntrace", "sync-period", "1000", RVT_WRAP_SYNC_GIVEN},
        {"ntrace", "sync-msgs", "0", RVT_WRAP_SYNC_OFF},
        {"ntrace", "sync-period", "0", RVT_WRAP_SYNC_OFF},
        {"ntrace", "ntrace-mode", "btm", RVT_WRAP_SYNC_CHOSEN},
        {"etrace", "resync-max", "2", RVT_WRAP_SYNC_GIVEN},
        {"etrace", "resync-max", "off", RVT_WRAP_SYNC_OFF},
        {"cdl", "cdl-sync-interval", "0", RVT_WRAP_SYNC_OFF},
        {"cdl", "cdl-sync-interval", "64", RVT_WRAP_SYNC_GIVEN},
        {"dbg", "dbg-buffer", "2048", RVT_WRAP_SYNC_GIVEN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct rvt_codec *c = rvt_codec_find(cases[i].family);
        void *cfg = rvt_codec_cfg_new(c);
        const char *n[1] = {cases[i].name}, *v[1] = {cases[i].val};
        REQUIRE(c->cfg_set(cfg, n[0], v[0], &d) == 0);
        REQUIRE(rvt_codec_wrap_sync(c, cfg, 8192, n, v, 1, NULL, &ws, sizeof ws, &d) == 0);
        CHECK_MSG(ws.kind == cases[i].kind, "%s --%s %s: kind %d: %s", cases[i].family, cases[i].name, cases[i].val,
                  (int)ws.kind, ws.text);
        if (ws.kind == RVT_WRAP_SYNC_OFF)
            CHECK_MSG(strstr(ws.text, "not be decodable") && strstr(ws.text, rvt_codec_sync_hint(c)), "%s", ws.text);
        rvt_codec_cfg_free(cfg);
    }
    /* Registers: trTeInstSyncMode decides. */
    const struct rvt_codec *nt = rvt_codec_find("ntrace");
    void *cfg = rvt_codec_cfg_new(nt);
    struct rvt_te_settings ts;
    memset(&ts, 0, sizeof ts);
    ts.size = sizeof ts;
    ts.sync_mode = RVT_TE_SYNC_OFF;
    REQUIRE(rvt_codec_wrap_sync(nt, cfg, 8192, NULL, NULL, 0, &ts, &ws, sizeof ws, &d) == 0);
    CHECK_EQ(ws.kind, RVT_WRAP_SYNC_OFF);
    CHECK_MSG(strstr(ws.text, "trTeInstSyncMode 0"), "%s", ws.text);
    ts.sync_mode = RVT_TE_SYNC_PACKETS;
    REQUIRE(rvt_codec_wrap_sync(nt, cfg, 8192, NULL, NULL, 0, &ts, &ws, sizeof ws, &d) == 0);
    CHECK_EQ(ws.kind, RVT_WRAP_SYNC_GIVEN);
    rvt_codec_cfg_free(cfg);
    /* Too small: E-Trace's shortest period is 16 packets of up to 48 bytes. */
    const struct rvt_codec *et = rvt_codec_find("etrace");
    cfg = rvt_codec_cfg_new(et);
    REQUIRE(rvt_codec_wrap_sync(et, cfg, 512, NULL, NULL, 0, NULL, &ws, sizeof ws, &d) == 0);
    CHECK_EQ(ws.kind, RVT_WRAP_SYNC_TOO_SMALL);
    /* A large RAM keeps E-Trace's default (every 1024 packets)... */
    REQUIRE(rvt_codec_wrap_sync(et, cfg, 1u << 20, NULL, NULL, 0, NULL, &ws, sizeof ws, &d) == 0);
    CHECK_EQ(ws.kind, RVT_WRAP_SYNC_DEFAULT);
    CHECK_STR(ws.value, "6");
    rvt_codec_cfg_free(cfg);
    /* ...N-Trace's period is one trTeInstSyncMax can express. */
    cfg = rvt_codec_cfg_new(nt);
    REQUIRE(rvt_codec_wrap_sync(nt, cfg, 65536, NULL, NULL, 0, NULL, &ws, sizeof ws, &d) == 0);
    CHECK_EQ(ws.kind, RVT_WRAP_SYNC_CHOSEN);
    CHECK_STR(ws.value, "512");
    CHECK_MSG(strstr(ws.text, "trTeInstSyncMax 5"), "%s", ws.text);
    rvt_codec_cfg_free(cfg);
    for (const struct rvt_codec *const *c = rvt_codec_list(); *c; c++)
        CHECK_MSG(rvt_codec_sync_hint(*c) != NULL, "%s has no sync hint", (*c)->name);
}

int main(void)
{
    choices();
    const char *tmp = rvt_test_tmpdir();
    char *elf_xz = rvt_test_data("real/bzip2.xz"), *ing_xz = rvt_test_data("real/bzip2-9.ing.xz");
    char elf[512], ing[512];
    snprintf(elf, sizeof elf, "%s/bzip2", tmp);
    snprintf(ing, sizeof ing, "%s/bzip2-9.ing", tmp);
    int ok = rvt_test_sh("xz -dc '%s' > '%s' && xz -dc '%s' > '%s'", elf_xz, elf, ing_xz, ing) == 0;
    free(elf_xz);
    free(ing_xz);
    CHECK_MSG(ok, "cannot unpack the bundled capture");
    struct rvt_diag d = {0};
    g_img = rvt_img_new();
    if (ok && rvt_img_load_elf(g_img, elf) < 0) {
        CHECK_MSG(0, "%s", rvt_img_error(g_img));
        ok = 0;
    }
    if (ok && rvt_recs_load(&g_recs, ing, g_img, &d) < 0) {
        CHECK_MSG(0, "%s", d.msg);
        ok = 0;
    }
    if (ok) {
        for (size_t i = 0; i < g_recs.n; i++)
            if (!(g_recs.r[i].flags & RVT_ING_UNQUALIFIED))
                range_add(&g_exp, g_recs.r[i].iaddr, rvt_ing_next_addr(&g_recs.r[i]));
        static const char *const fam[] = {"ntrace", "etrace", "cdl", "dbg"};
        for (int f = 0; f < 4; f++) {
            wrapped_ram(fam[f], 2048);
            wrapped_ram(fam[f], 8192);
        }
        /* The case: a 64 KiB RAM (the bundled capture wraps it in
         * CDL and the debug-spec format). */
        wrapped_ram("cdl", 65536);
        wrapped_ram("dbg", 65536);
        /* RAMs too small for the families' defaults. */
        wrapped_ram("dbg", 1024);
        wrapped_ram("ntrace", 1024);
    }
    free(g_exp.s);
    free(g_exp.e);
    rvt_recs_free(&g_recs);
    rvt_img_free(g_img);
    return rvt_test_summary("test_wrap_sync");
}

/* Trace Control Interface register model: reset values, discovery
 * read-back in the spec layout, WARL legalisation, RW1C, encoder settings
 * from register values, the address map, and register-setting files. */
#include "rvtrace/sink.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static struct rvt_tci *make(unsigned n_te, unsigned format, unsigned n_fun, int preset)
{
    struct rvt_ramsink_config ram = {.size = sizeof ram,
                                     .mode = RVT_RAM_SRAM,
                                     .width_bits = 32,
                                     .pad_byte = 0xFF,
                                     .sram_bytes = 4096};
    struct rvt_tci_config c = {.size = sizeof c,
                               .n_encoders = n_te,
                               .te_format = format,
                               .n_funnels = n_fun,
                               .n_ramsinks = 1,
                               .ramsinks = &ram,
                               .n_atb_bridges = 1,
                               .base_address = 0x10000000,
                               .preset = preset};
    struct rvt_tci *t = NULL;
    struct rvt_diag d = {0};
    CHECK_MSG(rvt_tci_new(&c, &t, &d) == 0, "tci_new: %s", d.msg);
    return t;
}

static uint32_t te_rd(struct rvt_tci *t, unsigned i, uint32_t off)
{
    uint32_t v = 0xDEADBEEF;
    CHECK_EQ(rvt_tci_comp_read(t, RVT_TCI_ENCODER, i, off, &v), 0);
    return v;
}

static void te_wr(struct rvt_tci *t, unsigned i, uint32_t off, uint32_t v)
{
    CHECK_EQ(rvt_tci_comp_write(t, RVT_TCI_ENCODER, i, off, v), 0);
}

/* Reset and discovery (TCI "Reset and Discovery", "Versioning"). */
static void test_discovery(void)
{
    struct rvt_tci *t = make(2, 1, 1, 0);
    REQUIRE(t);
    /* Power-up: trTeActive 0, trTeEnable 0, trTeEmpty 1; trTeFormat is
     * hard wired to 1 (N-Trace). */
    CHECK_EQ(te_rd(t, 0, 0x000), 0x01000008);
    CHECK_EQ(te_rd(t, 0, 0x004), 0); /* inaccessible in reset */
    te_wr(t, 0, 0x000, 0x0);
    CHECK_EQ(te_rd(t, 0, 0x000) & 1, 0);
    te_wr(t, 0, 0x000, 0x1);
    CHECK_EQ(te_rd(t, 0, 0x000), 0x01000009);
    /* trTeImpl: VerMajor 1, VerMinor 0, CompType 1, protocol N-Trace 1.0. */
    CHECK_EQ(te_rd(t, 0, 0x004), 0x00010101);
    /* trTeImpl is read-only. */
    te_wr(t, 0, 0x004, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x004), 0x00010101);
    /* Other components: funnel 0x801, RAM sink (SRAM) 0x1901, ATB 0xE01. */
    uint32_t v;
    CHECK_EQ(rvt_tci_comp_write(t, RVT_TCI_FUNNEL, 0, 0, 1), 0);
    CHECK_EQ(rvt_tci_comp_read(t, RVT_TCI_FUNNEL, 0, 4, &v), 0);
    CHECK_EQ(v, 0x801);
    CHECK_EQ(rvt_tci_comp_write(t, RVT_TCI_RAMSINK, 0, 0, 1), 0);
    CHECK_EQ(rvt_tci_comp_read(t, RVT_TCI_RAMSINK, 0, 4, &v), 0);
    CHECK_EQ(v, 0x1901);
    CHECK_EQ(rvt_tci_comp_write(t, RVT_TCI_ATBBRIDGE, 0, 0, 1), 0);
    CHECK_EQ(rvt_tci_comp_read(t, RVT_TCI_ATBBRIDGE, 0, 4, &v), 0);
    CHECK_EQ(v, 0xE01);
    /* Address map: encoders, funnel, RAM sink, ATB bridge, 4 KiB apart. */
    CHECK_EQ(rvt_tci_read(t, 0x10000004, &v), 0);
    CHECK_EQ(v, 0x00010101);
    CHECK_EQ(rvt_tci_read(t, 0x10002004, &v), 0);
    CHECK_EQ(v, 0x801);
    CHECK_EQ(rvt_tci_read(t, 0x10003004, &v), 0);
    CHECK_EQ(v, 0x1901);
    CHECK_EQ(rvt_tci_read(t, 0x10004004, &v), 0);
    CHECK_EQ(v, 0xE01);
    CHECK_EQ(rvt_tci_read(t, 0x10005000, &v), -RVT_ERR_INVAL);
    CHECK(strstr(rvt_tci_error(t), "0x10005000") != NULL);
    CHECK_EQ(rvt_tci_read(t, 0x10000002, &v), -RVT_ERR_INVAL);
    CHECK_EQ(rvt_tci_set_base(t, RVT_TCI_ENCODER, 1, 0x20000000), 0);
    CHECK_EQ(rvt_tci_write(t, 0x20000000, 1), 0);
    CHECK_EQ(te_rd(t, 1, 0), 0x01000009);
    CHECK_EQ(rvt_tci_set_base(t, RVT_TCI_ENCODER, 1, 0x20000800), -RVT_ERR_INVAL);
    /* Overlapping blocks are reported, not guessed. */
    CHECK_EQ(rvt_tci_set_base(t, RVT_TCI_FUNNEL, 0, 0x20000000), 0);
    CHECK_EQ(rvt_tci_read(t, 0x20000000, &v), -RVT_ERR_INVAL);
    CHECK(strstr(rvt_tci_error(t), "two component blocks") != NULL);
    /* Unused offsets read 0 and ignore writes. */
    te_wr(t, 0, 0x100, 0x1234);
    CHECK_EQ(te_rd(t, 0, 0x100), 0);
    CHECK_EQ(rvt_tci_count(t, RVT_TCI_ENCODER), 2);
    CHECK_EQ(rvt_tci_count(t, RVT_TCI_PIBSINK), 0);
    rvt_tci_free(t);

    /* E-Trace encoder: protocol 0.0, trTeInstMode hard coded 7. */
    t = make(1, 0, 0, 0);
    REQUIRE(t);
    te_wr(t, 0, 0, 1);
    CHECK_EQ(te_rd(t, 0, 0x004), 0x00000101);
    CHECK_EQ(te_rd(t, 0, 0x000), 0x00000079); /* mode 7, format 0 */
    te_wr(t, 0, 0, 0x31);
    CHECK_EQ(te_rd(t, 0, 0x000) >> 4 & 7, 7);
    te_wr(t, 0, 0, 0x200 | 1); /* trTeContext: hard coded 0 for E-Trace */
    CHECK_EQ(te_rd(t, 0, 0x000) & 0x200, 0);
    CHECK_EQ(te_rd(t, 0, 0x010), 0x1); /* trTeDataImplemented */
    rvt_tci_free(t);
}

/* WARL legalisation of the encoder fields. */
static void test_warl(void)
{
    struct rvt_tci *t = make(1, 1, 0, 0);
    REQUIRE(t);
    te_wr(t, 0, 0, 1);
    /* trTeInstMode: N-Trace supports 3 and 6.  An unsupported non-zero
     * mode must not revert to 0. */
    static const unsigned req[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const unsigned got[8] = {0, 3, 3, 3, 3, 3, 6, 6};
    for (int i = 0; i < 8; i++) {
        te_wr(t, 0, 0, 1 | req[i] << 4);
        CHECK_MSG((te_rd(t, 0, 0) >> 4 & 7) == got[i], "mode %u reads %u", req[i], te_rd(t, 0, 0) >> 4 & 7);
    }
    /* trTeFormat hard wired; reserved bits read 0. */
    te_wr(t, 0, 0, 0xF8C4C581u);
    uint32_t c = te_rd(t, 0, 0);
    CHECK_EQ(c >> 24 & 7, 1);
    CHECK_EQ(c & 0xF80C4580u, 0); /* bits 31:27, 19:18, 14, 10, 8:7 */
    /* trTeInstSyncMax: 4 bits, all legal with default caps; period 2^(max+4). */
    te_wr(t, 0, 0, 1 | 3u << 16 | 0xBu << 20);
    struct rvt_te_settings s;
    CHECK_EQ(rvt_tci_te_settings(t, 0, &s, sizeof s), 0);
    CHECK_EQ(s.sync_mode, RVT_TE_SYNC_HALFWORDS);
    CHECK_EQ(s.sync_max, 11);
    CHECK_EQ(s.sync_period, 1u << 15);
    /* trTeInstFeatures: all ones reads back what N-Trace implements:
     * seq jump, implicit return, return mode 3, repeated history, extend
     * MSB; src ID 12 bits; src bits clamped to 12.  trTeInstEnAllJumps
     * (bit 9) reads 0: the encoders do not implement it. */
    te_wr(t, 0, 0x008, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x008), 0xCFFF05CC);
    te_wr(t, 0, 0x008, 1u << 9);
    CHECK_EQ(te_rd(t, 0, 0x008), 0);
    /* Implicit return modes 1 (counting) and 3 (full addresses); 2
     * (partial compare) becomes the nearest lower one. */
    te_wr(t, 0, 0x008, 1u << 3 | 2u << 6);
    CHECK_EQ(te_rd(t, 0, 0x008), 1u << 3 | 1u << 6);
    te_wr(t, 0, 0x008, 1u << 3 | 3u << 6);
    CHECK_EQ(te_rd(t, 0, 0x008), 1u << 3 | 3u << 6);
    /* trTeInstStallEna reads 0: nothing stalls the hart here. */
    te_wr(t, 0, 0, 1 | 1u << 13);
    CHECK_EQ(te_rd(t, 0, 0) >> 13 & 1, 0);
    te_wr(t, 0, 0x008, 0);
    CHECK_EQ(te_rd(t, 0, 0x008), 0);
    /* Filters and comparators: 16 and 8 by default. */
    te_wr(t, 0, 0x00C, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x00C), 0xFFFF);
    te_wr(t, 0, 0x400 + 0x20 * 15, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x400 + 0x20 * 15), 0x0001FFFF); /* no data trace: dtype/dsize 0 */
    te_wr(t, 0, 0x41C, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x41C), 0); /* reserved */
    te_wr(t, 0, 0x404, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x404), 0x1FF);
    te_wr(t, 0, 0x418, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x418), 0); /* MatchData needs data trace */
    te_wr(t, 0, 0x600 + 0x20 * 7, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x600 + 0x20 * 7), 0xF77F);
    te_wr(t, 0, 0x61C, 0x89ABCDEF);
    CHECK_EQ(te_rd(t, 0, 0x61C), 0x89ABCDEF);
    te_wr(t, 0, 0x604, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x604), 0);
    /* External trigger inputs: actions 0, 2, 3, 4 legal, others read 0. */
    te_wr(t, 0, 0x054, 0x12345678);
    CHECK_EQ(te_rd(t, 0, 0x054), 0x02340000);
    te_wr(t, 0, 0x058, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x058), 0x33333333); /* vendor events 2-3 not implemented */
    te_wr(t, 0, 0x050, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x050), 0); /* no vendor debug-trigger controls */
    /* Timestamp unit: width 48 read-only; reset is W1 and reads 0. */
    te_wr(t, 0, 0x040, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 0x040), 0x3000834B); /* width 48, enable, prescale 3, mode 4, run-in-debug, count, active */
    CHECK_EQ(te_rd(t, 0, 0x048), 0);
    rvt_tci_free(t);

    /* Restricted capabilities. */
    struct rvt_te_caps caps;
    rvt_te_caps_default(&caps, 1);
    caps.inst_modes = 1u << 3;
    caps.sync_modes = 1u << 1;
    caps.sync_max_min = 2;
    caps.sync_max_max = 10;
    caps.src_bits_max = 4;
    caps.src_id_bits = 4;
    caps.n_filters = 2;
    caps.n_comparators = 3;
    caps.has_inhibit_src = 0;
    caps.ts_modes = 0;
    caps.impl_vendor = 0xA5;
    struct rvt_tci_config tc = {.size = sizeof tc, .n_encoders = 1, .te_caps = &caps};
    struct rvt_diag d = {0};
    REQUIRE(rvt_tci_new(&tc, &t, &d) == 0);
    te_wr(t, 0, 0, 1);
    CHECK_EQ(te_rd(t, 0, 4), 0xA5010101);
    /* After activation the WARL fields hold their defaults, what 0
     * legalises to: mode 3 (0 is not implemented here), sync mode 1, sync
     * max 2 (the lowest legal). */
    CHECK_EQ(te_rd(t, 0, 0), 0x01210039);
    te_wr(t, 0, 0, 1 | 6u << 4 | 3u << 16 | 15u << 20 | 1u << 15);
    c = te_rd(t, 0, 0);
    CHECK_EQ(c >> 4 & 7, 3);
    CHECK_EQ(c >> 16 & 3, 1);
    CHECK_EQ(c >> 20 & 15, 10);
    CHECK_EQ(c >> 15 & 1, 0); /* no trTeInhibitSrc */
    te_wr(t, 0, 0, 1 | 3u << 4 | 1u << 16);
    CHECK_EQ(te_rd(t, 0, 0) >> 20 & 15, 2);
    te_wr(t, 0, 8, 0xFFFFFFFF);
    CHECK_EQ(te_rd(t, 0, 8), 0x400F05CC);
    te_wr(t, 0, 0x00C, 0xFFFF);
    CHECK_EQ(te_rd(t, 0, 0x00C), 0x3);
    te_wr(t, 0, 0x400 + 0x20 * 2, 1);
    CHECK_EQ(te_rd(t, 0, 0x400 + 0x20 * 2), 0); /* filter 2 not implemented */
    te_wr(t, 0, 0x400, 0x7u << 5 | 0x5u << 9 | 1u << 13 | 1);
    CHECK_EQ(te_rd(t, 0, 0x400), 0x2u << 5 | 0x2u << 9 | 1u << 13 | 1); /* comparator index <= 2 */
    CHECK_EQ(te_rd(t, 0, 0x040), 0); /* no timestamp unit */
    rvt_tci_free(t);

    /* Capabilities that contradict the spec are refused. */
    rvt_te_caps_default(&caps, 1);
    caps.sync_modes = 1;
    CHECK_EQ(rvt_tci_new(&tc, &t, &d), -RVT_ERR_INVAL);
    CHECK(strstr(d.msg, "non-zero trTeInstSyncMode") != NULL);
    rvt_te_caps_default(&caps, 1);
    caps.inst_modes = 1;
    CHECK_EQ(rvt_tci_new(&tc, &t, &d), -RVT_ERR_INVAL);
    rvt_te_caps_default(&caps, 1);
    caps.ts_width = 64;
    CHECK_EQ(rvt_tci_new(&tc, &t, &d), -RVT_ERR_INVAL);
}

/* trTeInstStallOrOverflow: set by hardware, RW1C, cleared by enabling. */
static void test_rw1c(void)
{
    struct rvt_tci *t = make(1, 1, 0, 1);
    REQUIRE(t);
    uint32_t c0 = te_rd(t, 0, 0);
    CHECK_EQ(c0 & 0x1000, 0);
    CHECK_EQ(rvt_tci_te_overflow(t, 0), 0);
    CHECK_EQ(te_rd(t, 0, 0) & 0x1000, 0x1000);
    /* Writing the value back with the bit 0 keeps it. */
    te_wr(t, 0, 0, c0 & ~0x1000u);
    CHECK_EQ(te_rd(t, 0, 0) & 0x1000, 0x1000);
    /* A register-file field write does not clear it either. */
    struct rvt_diag d = {0};
    const char *txt = "trTeInstSyncMax = 5\n";
    CHECK_EQ(rvt_tci_apply_text(t, txt, strlen(txt), "f", NULL, &d), 0);
    CHECK_EQ(te_rd(t, 0, 0) & 0x1000, 0x1000);
    CHECK_EQ(te_rd(t, 0, 0) >> 20 & 15, 5);
    te_wr(t, 0, 0, te_rd(t, 0, 0)); /* write 1: clear */
    CHECK_EQ(te_rd(t, 0, 0) & 0x1000, 0);
    rvt_tci_te_overflow(t, 0);
    te_wr(t, 0, 0, 0x1 | (te_rd(t, 0, 0) & ~0x1002u));
    te_wr(t, 0, 0, 0x3 | (te_rd(t, 0, 0) & ~0x1000u)); /* enable 0 -> 1 clears */
    CHECK_EQ(te_rd(t, 0, 0) & 0x1000, 0);
    rvt_tci_free(t);
}

/* The documented values configure the same trace as the options would. */
static void test_settings(void)
{
    struct rvt_tci *t = make(4, 1, 1, 1);
    REQUIRE(t);
    /* Preset: every encoder active, enabled, tracing, HTM (6), source IDs
     * 0..3 in 2-bit fields, periodic sync every 2^12 half-words. */
    for (unsigned i = 0; i < 4; i++) {
        struct rvt_te_settings s;
        CHECK_EQ(rvt_tci_te_settings(t, i, &s, sizeof s), 0);
        CHECK_EQ(s.size, sizeof s);
        CHECK(s.active && s.enabled && s.inst_tracing);
        CHECK_EQ(s.format, 1);
        CHECK_EQ(s.inst_mode, 6);
        CHECK_EQ(s.src_id, i);
        CHECK_EQ(s.src_bits, 2);
        CHECK_EQ(s.sync_mode, RVT_TE_SYNC_HALFWORDS);
        CHECK_EQ(s.sync_period, 4096);
    }
    /* Encoder 2, by register values: BTM, sync every 2^8 messages, SRC
     * ID 0x2A in 6 bits, implicit return asking for partial compare (not
     * implemented: legalised to mode 1, counting), context. */
    const char *txt = "encoder2.trTeControl = 0x00410237\n"
                      "encoder2.trTeInstFeatures = 0x602A0088\n"
                      "encoder3.trTeControl = 0x00418237   # the same, SRC inhibited\n";
    struct rvt_diag d = {0};
    CHECK_EQ(rvt_tci_apply_text(t, txt, strlen(txt), "regs", NULL, &d), 0);
    struct rvt_te_settings s;
    CHECK_EQ(rvt_tci_te_settings(t, 2, &s, sizeof s), 0);
    CHECK(s.enabled && s.inst_tracing);
    CHECK_EQ(s.inst_mode, 3);
    CHECK_EQ(s.context, 1);
    CHECK_EQ(s.sync_mode, RVT_TE_SYNC_PACKETS);
    CHECK_EQ(s.sync_max, 4);
    CHECK_EQ(s.sync_period, 256);
    CHECK_EQ(s.src_id, 0x2A);
    CHECK_EQ(s.src_bits, 6);
    CHECK_EQ(s.implicit_return, 1);
    CHECK_EQ(s.implicit_return_mode, 1);
    CHECK_EQ(s.sequential_jump, 0);
    CHECK_EQ(s.control, 0x0141023F); /* format reads 1; empty; active */
    CHECK_EQ(s.features, 0x602A0048);
    CHECK_EQ(rvt_tci_te_settings(t, 3, &s, sizeof s), 0);
    CHECK_EQ(s.inhibit_src, 1);
    CHECK_EQ(s.src_bits, 0);
    /* A short out struct gets only what it holds. */
    struct rvt_te_settings small;
    memset(&small, 0x5A, sizeof small);
    CHECK_EQ(rvt_tci_te_settings(t, 0, &small, offsetof(struct rvt_te_settings, inst_mode)), 0);
    CHECK_EQ(small.size, offsetof(struct rvt_te_settings, inst_mode));
    CHECK_EQ(small.format, 1);
    CHECK_EQ(small.inst_mode, 0x5A5A5A5A);
    CHECK_EQ(rvt_tci_te_settings(t, 9, &s, sizeof s), -RVT_ERR_INVAL);
    /* The live funnel and RAM sink behind the blocks. */
    struct rvt_funnel *f = rvt_tci_funnel(t, 0);
    struct rvt_ramsink *ram = rvt_tci_ramsink(t, 0);
    REQUIRE(f && ram);
    CHECK(rvt_tci_funnel(t, 1) == NULL);
    struct rvt_byte_sink rs = rvt_ramsink_sink(ram);
    rvt_funnel_set_output(f, &rs);
    struct rvt_byte_sink in = rvt_funnel_input(f, 3);
    uint8_t p[6] = {1, 2, 3, 4, 5, 6};
    CHECK_EQ(in.write(in.ctx, p, 6), 6);
    uint32_t v;
    CHECK_EQ(rvt_tci_comp_read(t, RVT_TCI_RAMSINK, 0, 0x020, &v), 0);
    CHECK_EQ(v, 4);
    /* Disabling input 3 through its register. */
    txt = "funnel0.trFunnelDisInput = 0x8\n";
    CHECK_EQ(rvt_tci_apply_text(t, txt, strlen(txt), "regs", NULL, &d), 0);
    CHECK_EQ(in.write(in.ctx, p, 6), 6);
    CHECK_EQ(rvt_tci_comp_read(t, RVT_TCI_RAMSINK, 0, 0x020, &v), 0);
    CHECK_EQ(v, 4);
    int en;
    unsigned id, af;
    CHECK_EQ(rvt_tci_atb_settings(t, 0, &en, &id, &af), 0);
    CHECK_EQ(en, 1);
    CHECK_EQ(id, 0x10);
    CHECK_EQ(af, 0);
    rvt_tci_free(t);
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

static void test_regfile(void)
{
    struct rvt_tci *t = make(2, 1, 1, 0);
    REQUIRE(t);
    struct notes nt = {0};
    struct rvt_tci_file_options opt = {.size = sizeof opt, .note = note_cb, .note_ctx = &nt};
    struct rvt_diag d = {0};
    const char *txt = "# bring up the RAM sink, then the funnel, then encoder 1\n"
                      "ramsink0.trRamControl = 0x1\n"
                      "expect trRamImpl = 0x1901\n"
                      "expect trRamHasSRAM = 1            // a field\n"
                      "ramsink0.trRamLimitLow = 0x7fc     ; 2 KiB\n"
                      "ram0+0x020 = 0                     # WP\n"
                      "trRamStopOnWrap = 1\n"
                      "trRamEnable = 1\n"
                      "funnel0.trFunnelControl = 1\n"
                      "funnel0.trFunnelDisInput = 0b01\n"
                      "trFunnelEnable = 1\n"
                      "base encoder1 = 0x40000000\n"
                      "0x40000000 = 0x1\n"
                      "encoder1.trTeInstFeatures.trTeSrcID = 1\n"
                      "encoder1.trTeSrcBits = 1\n"
                      "encoder1.trTeControl=0x01630067\n"
                      "expect encoder1.trTeInstMode == 6\n"
                      "expect 0x40000004 = 0x00010101\n"
                      "encoder1.trTeFilter1Control.trTeFilterEnable = 1\n"
                      "expect encoder1.trTeFilter1Control = 0x1\n"
                      "encoder1.trTeComp2PMatchLow = 0x80001000\n"
                      "expect encoder1+0x650 = 0x80001000\n";
    CHECK_MSG(rvt_tci_apply_text(t, txt, strlen(txt), "sys.regs", &opt, &d) == 0, "%s", d.msg);
    CHECK_EQ(nt.n, 0);
    struct rvt_ramsink_state st;
    rvt_ramsink_state(rvt_tci_ramsink(t, 0), &st);
    CHECK(st.active && st.enabled && st.stop_on_wrap);
    CHECK_EQ(st.size, 2048);
    struct rvt_te_settings s;
    CHECK_EQ(rvt_tci_te_settings(t, 1, &s, sizeof s), 0);
    CHECK_EQ(s.src_id, 1);
    CHECK_EQ(s.src_bits, 1);
    CHECK_EQ(s.inst_mode, 6);
    CHECK_EQ(s.sync_mode, 3);
    CHECK_EQ(s.sync_max, 6);
    CHECK(s.enabled && s.inst_tracing);
    CHECK_EQ(rvt_tci_te_settings(t, 0, &s, sizeof s), 0);
    CHECK(!s.active);

    /* WARL adjustments and writes to components in reset are noted. */
    txt = "encoder1.trTeInstMode = 5\n";
    CHECK_EQ(rvt_tci_apply_text(t, txt, strlen(txt), "w.regs", &opt, &d), 0);
    CHECK_EQ(nt.n, 1);
    CHECK(strstr(nt.last, "w.regs:1: encoder1.trTeControl.trTeInstMode: wrote 0x") != NULL);
    CHECK(strstr(nt.last, "trTeInstMode 5 -> 3") != NULL);
    txt = "trTeInstFeatures = 0x10\n";
    CHECK_EQ(rvt_tci_apply_text(t, txt, strlen(txt), "w.regs", &opt, &d), 0);
    CHECK_EQ(nt.n, 2);
    CHECK(strstr(nt.last, "encoder0.trTeInstFeatures: wrote 0x00000010, reads back 0x00000000") != NULL);
    CHECK(strstr(nt.last, "in reset: write trTeControl = 0x1 first") != NULL);
    txt = "funnel0+0x100 = 5\n";
    CHECK_EQ(rvt_tci_apply_text(t, txt, strlen(txt), "w.regs", &opt, &d), 0);
    CHECK(strstr(nt.last, "no register there") != NULL);
    /* Strict mode: the same is an error. */
    opt.strict = 1;
    txt = "\n\nencoder1.trTeInstMode = 5\n";
    CHECK_EQ(rvt_tci_apply_text(t, txt, strlen(txt), "w.regs", &opt, &d), -RVT_ERR_MISMATCH);
    CHECK(strstr(d.msg, "w.regs:3:") != NULL);

    /* Errors name the line and what was expected. */
    static const char *const bad[][2] = {
        {"trTeControl 1\n", "bad.regs:1: expected '<register> = <value>'"},
        {"trTeControl = banana\n", "bad.regs:1: value 'banana' is not a number"},
        {"trNothing = 1\n", "unknown register or field 'trNothing'"},
        {"encoder7.trTeControl = 1\n", "no encoder7: the system has 2 encoders"},
        {"funnel0.trTeControl = 1\n", "trTeControl is not a register of a funnel"},
        {"trTeControl.trNope = 1\n", "register trTeControl has no field 'trNope'"},
        {"trTeInstMode = 9\n", "value 0x9 does not fit in 3 bits"},
        {"trTeControl = 0x100000000\n", "does not fit in 32 bits"},
        {"0x50000000 = 1\n", "address 0x50000000 is not in any trace component's block"},
        {"0x40000002 = 1\n", "not 32-bit aligned"},
        {"pump0+0x10 = 1\n", "'pump0' is not a component"},
        {"encoder0+0x1000 = 1\n", "offset '0x1000' is not a 32-bit register offset"},
        {"base encoder0 = 0x123\n", "not aligned on a 4 KiB boundary"},
        {"base pump = 0x1000\n", "'pump' is not a component"},
        {"base\n", "base: expected 'base <component> = <address>'"},
        {"expect trRamImpl = 0x1902\n", "bad.regs:1: expect ramsink0.trRamImpl = 0x1902, read 0x1901"},
        {"trTeFilterEnable = 1\n", "filter and comparator fields need their register"},
        {"a.b.c.d = 1\n", "too many"},
        {"= 1\n", "missing register"},
    };
    opt.strict = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = rvt_tci_apply_text(t, bad[i][0], strlen(bad[i][0]), "bad.regs", &opt, &d);
        CHECK_MSG(rc < 0, "case %zu accepted", i);
        CHECK_MSG(strstr(d.msg, bad[i][1]) != NULL, "case %zu: message '%s' lacks '%s'", i, d.msg, bad[i][1]);
    }

    /* From a file. */
    char path[512];
    snprintf(path, sizeof path, "%s/sys.regs", rvt_test_tmpdir());
    FILE *fp = fopen(path, "w");
    REQUIRE(fp);
    fputs("expect encoder1.trTeControl.trTeActive = 1\n", fp);
    fclose(fp);
    CHECK_EQ(rvt_tci_apply_file(t, path, &opt, &d), 0);
    CHECK_EQ(rvt_tci_apply_file(t, "/nonexistent/x.regs", &opt, &d), -RVT_ERR_IO);

    /* Names. */
    enum rvt_tci_comp kind;
    uint32_t off;
    CHECK_EQ(rvt_tci_reg_lookup("trRamWPLow", &kind, &off), 0);
    CHECK_EQ(kind, RVT_TCI_RAMSINK);
    CHECK_EQ(off, 0x020);
    CHECK_EQ(rvt_tci_reg_lookup("TRTECOMP7SMATCHHIGH", &kind, &off), 0);
    CHECK_EQ(off, 0x600 + 7 * 0x20 + 0x1C);
    CHECK_EQ(rvt_tci_reg_lookup("trTeComp8Control", &kind, &off), -RVT_ERR_INVAL);
    CHECK_EQ(rvt_tci_reg_lookup("trTsControl", &kind, &off), 0);
    CHECK_EQ(kind, RVT_TCI_ENCODER);
    char nb[48];
    CHECK_STR(rvt_tci_reg_name(RVT_TCI_ENCODER, 0x400 + 3 * 0x20 + 0x8, nb, sizeof nb), "trTeFilter3MatchEcauseLow");
    CHECK_STR(rvt_tci_reg_name(RVT_TCI_FUNNEL, 0x008, nb, sizeof nb), "trFunnelDisInput");
    CHECK_STR(rvt_tci_reg_name(RVT_TCI_FUNNEL, 0x00C, nb, sizeof nb), "+0x00c");
    rvt_tci_free(t);
}

/* Every register value a system can reach is reproduced by the register
 * file rvt_tci_write_regfile writes for it. */
static void test_regfile_round_trip(void)
{
    struct rvt_tci *a = make(3, 1, 1, 1);
    REQUIRE(a);
    struct rvt_diag d = {0};
    const char *txt = "encoder1.trTeControl = 0x00418237\n"
                      "encoder2.trTeInstFeatures = 0x300C074C\n"
                      "encoder2.trTeInstFilters = 0x5\n"
                      "encoder2.trTeFilter0Control = 0x2013\n"
                      "encoder2.trTeFilter0MatchInst = 0x109\n"
                      "encoder2.trTeComp1Control = 0x1203\n"
                      "encoder2.trTeComp1PMatchLow = 0x80000000\n"
                      "encoder2.trTeComp1SMatchLow = 0x80001000\n"
                      "encoder0.trTsControl = 0x8023\n"
                      "encoder0.trTeTrigExtInControl = 0x32\n"
                      "ramsink0.trRamControl = 0x101\n"
                      "ramsink0.trRamLimitLow = 0x3fc\n"
                      "ramsink0.trRamWPLow = 0x101\n"
                      "ramsink0.trRamRPLow = 0x200\n"
                      "funnel0.trFunnelDisInput = 0x4\n"
                      "atb0.trAtbBridgeControl = 0x2303\n";
    CHECK_MSG(rvt_tci_apply_text(a, txt, strlen(txt), "a", NULL, &d) == 0, "%s", d.msg);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    REQUIRE(f);
    CHECK_EQ(rvt_tci_write_regfile(a, f), 0);
    fclose(f);
    struct rvt_tci *b = make(3, 1, 1, 0);
    REQUIRE(b);
    struct notes nt = {0};
    struct rvt_tci_file_options opt = {.size = sizeof opt, .note = note_cb, .note_ctx = &nt};
    CHECK_MSG(rvt_tci_apply_text(b, text, len, "gen", &opt, &d) == 0, "%s\n%s", d.msg, text);
    CHECK_MSG(nt.n == 0, "note: %s", nt.last);
    static const enum rvt_tci_comp kinds[4] = {RVT_TCI_ENCODER, RVT_TCI_FUNNEL, RVT_TCI_RAMSINK, RVT_TCI_ATBBRIDGE};
    int diffs = 0;
    for (int k = 0; k < 4; k++) {
        for (unsigned i = 0; i < rvt_tci_count(a, kinds[k]); i++) {
            for (uint32_t off = 0; off < 0x1000; off += 4) {
                if (kinds[k] == RVT_TCI_RAMSINK && off == 0x040)
                    continue; /* trRamData reads advance RP */
                uint32_t va, vb;
                rvt_tci_comp_read(a, kinds[k], i, off, &va);
                rvt_tci_comp_read(b, kinds[k], i, off, &vb);
                if (va != vb && diffs++ < 5)
                    CHECK_MSG(0, "component 0x%x#%u +0x%03x: 0x%08x vs 0x%08x", (unsigned)kinds[k], i, off, va, vb);
            }
        }
    }
    CHECK_EQ(diffs, 0);
    /* The dump lists every implemented register with its fields. */
    char *dump = NULL;
    size_t dl = 0;
    f = open_memstream(&dump, &dl);
    REQUIRE(f);
    CHECK_EQ(rvt_tci_dump(b, f), 0);
    fclose(f);
    CHECK(strstr(dump, "encoder1 @ 0x10001000") != NULL);
    CHECK(strstr(dump, "trTeInstMode=3") != NULL);
    CHECK(strstr(dump, "trTeComp1PMatchLow") != NULL);
    CHECK(strstr(dump, "trRamWrap=1") != NULL);
    CHECK(strstr(dump, "trAtbBridgeID=35") != NULL);
    free(dump);
    free(text);
    rvt_tci_free(a);
    rvt_tci_free(b);
}

/* rvt_tci_discover finds, through the registers only, exactly what the
 * implementation supports: default and restricted encoders, the funnel,
 * SRAM and SMEM sinks, the ATB bridge. */
static void check_probe(const struct rvt_te_caps *c, const struct rvt_tci_discovery *dd)
{
    CHECK_EQ(dd->kind, RVT_TCI_ENCODER);
    CHECK_EQ(dd->ver_major, 1);
    CHECK_EQ(dd->comp_type, 1);
    CHECK_EQ(dd->vendor, c->impl_vendor);
    CHECK_EQ(dd->format, c->format);
    CHECK_EQ(dd->protocol_major, c->protocol_major);
    CHECK_EQ(dd->protocol_minor, c->protocol_minor);
    CHECK_EQ(dd->inst_modes, c->inst_modes);
    CHECK_EQ(dd->sync_modes, c->sync_modes);
    CHECK_EQ(dd->sync_max_min, c->sync_max_min);
    CHECK_EQ(dd->sync_max_max, c->sync_max_max);
    CHECK_EQ(dd->has_context, c->has_context);
    CHECK_EQ(dd->has_trig_enable, c->has_trig_enable);
    CHECK_EQ(dd->has_stall, c->has_stall);
    CHECK_EQ(dd->has_inhibit_src, c->has_inhibit_src);
    CHECK_EQ(dd->features, c->features);
    CHECK_EQ(dd->implicit_return_modes, c->implicit_return_modes);
    CHECK_EQ(dd->src_id_bits, c->src_id_bits);
    CHECK_EQ(dd->src_bits_max, c->src_bits_max);
    CHECK_EQ(dd->n_filters, c->n_filters);
    CHECK_EQ(dd->n_comparators, c->n_comparators);
    CHECK_EQ(dd->has_data_trace, c->has_data_trace);
    CHECK_EQ(dd->trig_dbg_mask, c->trig_dbg_mask);
    CHECK_EQ(dd->n_ext_trig_in, c->n_ext_trig_in);
    CHECK_EQ(dd->n_ext_trig_out, c->n_ext_trig_out);
    CHECK_EQ(dd->has_ts, c->ts_modes != 0);
    CHECK_EQ(dd->ts_modes, c->ts_modes);
    CHECK_EQ(dd->ts_width, c->ts_modes ? c->ts_width : 0);
}

static void test_probe(void)
{
    struct rvt_te_caps caps[3];
    rvt_te_caps_default(&caps[0], 1);
    rvt_te_caps_default(&caps[1], 0);
    rvt_te_caps_default(&caps[2], 1);
    caps[2].inst_modes = 1u << 3;
    caps[2].sync_modes = 1u << 0 | 1u << 1;
    caps[2].sync_max_min = 2;
    caps[2].sync_max_max = 10;
    caps[2].src_bits_max = 4;
    caps[2].src_id_bits = 4;
    caps[2].n_filters = 2;
    caps[2].n_comparators = 3;
    caps[2].has_inhibit_src = 0;
    caps[2].has_context = 0;
    caps[2].features = 1u << 2;
    caps[2].implicit_return_modes = 1u << 0;
    caps[2].ts_modes = 0;
    caps[2].n_ext_trig_in = 2;
    caps[2].n_ext_trig_out = 0;
    caps[2].trig_dbg_mask = 0x3;
    caps[2].impl_vendor = 0xA5;
    struct rvt_ramsink_config ram[2] = {
        {.size = sizeof ram[0], .mode = RVT_RAM_SRAM, .width_bits = 32, .sram_bytes = 8192, .sram_limit_fixed = 1},
        {.size = sizeof ram[1], .mode = RVT_RAM_SMEM, .width_bits = 64, .mem_base = 0x80000000, .mem_len = 0x10000,
         .has_smem = 1}};
    struct rvt_tci_config tc = {.size = sizeof tc, .n_encoders = 3, .te_caps = caps, .n_funnels = 1,
                                .funnel_inputs = 5, .n_ramsinks = 2, .ramsinks = ram, .n_atb_bridges = 1};
    struct rvt_tci *t = NULL;
    struct rvt_diag d = {0};
    REQUIRE(rvt_tci_new(&tc, &t, &d) == 0);
    struct rvt_tci_discovery dd;
    for (unsigned i = 0; i < 3; i++) {
        REQUIRE(rvt_tci_discover(t, RVT_TCI_ENCODER, i, &dd, sizeof dd) == 0);
        check_probe(&caps[i], &dd);
    }
    REQUIRE(rvt_tci_discover(t, RVT_TCI_FUNNEL, 0, &dd, sizeof dd) == 0);
    CHECK_EQ(dd.impl, 0x801);
    CHECK_EQ(dd.n_inputs, 5);
    REQUIRE(rvt_tci_discover(t, RVT_TCI_RAMSINK, 0, &dd, sizeof dd) == 0);
    CHECK_EQ(dd.has_sram, 1);
    CHECK_EQ(dd.has_smem, 0);
    CHECK_EQ(dd.stop_on_wrap, 1);
    CHECK_EQ(dd.mem_formats, 1);
    CHECK_EQ(dd.ram[0].present, 1);
    CHECK_EQ(dd.ram[1].present, 0);
    CHECK_EQ(dd.ram[0].start_max, 0);
    CHECK_EQ(dd.ram[0].limit_min, 8188); /* hard coded: not trimmable */
    CHECK_EQ(dd.ram[0].limit_max, 8188);
    CHECK_EQ(dd.ram[0].word_bytes, 4);
    CHECK_EQ(dd.ram[0].has_rp, 1);
    CHECK_EQ(dd.ram[0].has_limit_high, 0);
    REQUIRE(rvt_tci_discover(t, RVT_TCI_RAMSINK, 1, &dd, sizeof dd) == 0);
    CHECK_EQ(dd.has_sram, 0);
    CHECK_EQ(dd.has_smem, 1);
    CHECK_EQ(dd.ram[1].present, 1);
    CHECK_EQ(dd.ram[1].start_min, 0x80000000);
    CHECK_EQ(dd.ram[1].limit_max, 0x8000FFFC);
    CHECK_EQ(dd.ram[1].word_bytes, 8);
    REQUIRE(rvt_tci_discover(t, RVT_TCI_ATBBRIDGE, 0, &dd, sizeof dd) == 0);
    CHECK_EQ(dd.comp_type, 0xE);
    CHECK_EQ(dd.id_bits, 7);
    CHECK_EQ(dd.async_freqs, 1);
    CHECK_EQ(rvt_tci_discover(t, RVT_TCI_ENCODER, 3, &dd, sizeof dd), -RVT_ERR_INVAL);
    /* The probe leaves the component in reset, and the print names every field. */
    CHECK_EQ(te_rd(t, 0, 0) & 1, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    REQUIRE(f);
    REQUIRE(rvt_tci_discover(t, RVT_TCI_ENCODER, 2, &dd, sizeof dd) == 0);
    CHECK_EQ(rvt_tci_discovery_print(&dd, 2, f), 0);
    fclose(f);
    static const char *const names[] = {"trTeImpl 0xa5010101", "trTeInstMode                 3 ",
                                        "trTeInstSyncMax              2..10", "trTeInstEnAllJumps           not implemented",
                                        "trTeInstEnSequentialJump     implemented", "trTeSrcID                    4 bits",
                                        "2 filter units", "3 comparator units", "no timestamp unit",
                                        "2 inputs, 0 outputs", "writable bits 0x00000003"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK_MSG(strstr(text, names[i]), "'%s' not in:\n%s", names[i], text);
    free(text);
    rvt_tci_free(t);
}

int main(void)
{
    test_discovery();
    test_warl();
    test_rw1c();
    test_settings();
    test_regfile();
    test_regfile_round_trip();
    test_probe();
    return rvt_test_summary("test_tci");
}

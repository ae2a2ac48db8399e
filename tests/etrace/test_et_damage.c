/* E-Trace under the decoder contract (docs/decoding.md, docs/etrace.md
 * "Damage and resynchronisation"): damage is reported with its byte offset,
 * never presented as a whole decode.
 *
 *  - every bit of the leading synchronisation sequence flipped: the whole
 *    execution, or an error near the start (never a silently shorter one);
 *  - a trace cut at every byte: a prefix of the execution and an "ends
 *    early" note, also in strict mode; an empty trace gives nothing;
 *  - structurally invalid packets, each made by changing one packet of a
 *    real encode: an error at that packet's offset, then the decode goes on;
 *  - inserted and deleted bytes in both framings: reported, and the decode
 *    is back on track for the end of the execution. */
#include "etrace/encoder.h"
#include "etrace/etrace.h"
#include "rt.h"
#include "synth.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* ---- an execution, its packets and bytes ---------------------------------------------- */

struct run {
    struct synth s;
    void *cfg;
    const struct et_params *p;
    struct et_packet *k;
    unsigned nk, capk;
    uint8_t *bytes;
    size_t n;
};

static void observe(void *ctx, const struct et_packet *k, unsigned full, unsigned sent)
{
    (void)full;
    (void)sent;
    struct run *r = ctx;
    if (r->nk == r->capk) {
        r->capk = r->capk ? 2 * r->capk : 1024;
        r->k = realloc(r->k, r->capk * sizeof *r->k);
        if (!r->k)
            abort();
    }
    r->k[r->nk++] = *k;
}

static bool g_no_traps; /* make_run: user code without traps, interrupts or privilege changes */

static bool make_run(struct run *r, const char *const *opts, unsigned xlen, unsigned seed, uint64_t insns)
{
    memset(r, 0, sizeof *r);
    struct synth_opts so;
    synth_default(&so, seed, xlen);
    so.insns = insns;
    if (g_no_traps) {
        so.p_interrupt = so.p_fault = 0;
        so.ecalls = so.privilege = false;
        so.p_context = 0;
    }
    if (synth_run(&r->s, &so) < 0)
        return false;
    char err[600];
    r->cfg = rt_config(opts, xlen, r->s.img, err, sizeof err);
    CHECK_MSG(r->cfg != NULL, "%s", err);
    if (!r->cfg)
        return false;
    r->p = &((struct et_config *)r->cfg)->p;
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink sink = rvt_membuf_sink(&m);
    struct et_encoder *e;
    struct rvt_diag d = {0};
    bool ok = et_enc_new(&e, r->p, &sink, &d) == 0;
    if (ok) {
        et_enc_set_observer(e, observe, r);
        for (size_t i = 0; i < r->s.nrecs && ok; i++)
            ok = et_enc_put(e, &r->s.recs[i]) == 0;
        ok = ok && et_enc_finish(e) == 0;
        et_enc_free(e);
    }
    CHECK_MSG(ok, "encode failed");
    r->bytes = m.data;
    r->n = m.len;
    return ok;
}

static void free_run(struct run *r)
{
    free(r->k);
    free(r->bytes);
    rvt_codec_cfg_free(r->cfg);
    synth_free(&r->s);
}

/* Frame packets as the encoder would (no periodic synchronisation
 * sequences); *at_out (optional) gets the byte offset of packet `mark`. */
static uint8_t *frame(const struct run *r, const struct et_packet *k, unsigned nk, unsigned mark, size_t *len,
                      uint64_t *at_out)
{
    struct rvt_membuf m;
    rvt_membuf_init(&m);
    struct rvt_byte_sink sink = rvt_membuf_sink(&m);
    struct et_framer fr;
    et_framer_init(&fr, r->p, &sink);
    struct rvt_diag d = {0};
    for (unsigned i = 0; i < nk; i++) {
        struct et_packet kk = k[i];
        struct et_bits b;
        if (et_pkt_bits(r->p, &kk, &b, &d) < 0 || et_framer_put(&fr, &b, kk.msg, kk.time, &d) < 0) {
            CHECK_MSG(0, "framing packet %u: %s", i, d.msg);
            break;
        }
    }
    *len = m.len;
    if (at_out) { /* the mark-th packet's offset */
        struct et_deframer df;
        et_deframer_init(&df, r->p, m.data, m.len);
        struct et_frame f;
        for (unsigned i = 0; et_deframer_next(&df, &f, &d) == 1;)
            if (!f.is_null && i++ == mark)
                *at_out = f.offset;
    }
    return m.data;
}

static void decode(const struct run *r, const void *cfg, const uint8_t *buf, size_t n, struct rt_result *dec)
{
    char err[600];
    memset(dec, 0, sizeof *dec);
    int rc = rt_decode((void *)cfg, r->s.img, RVT_FLOW_ECALL_TRAP, buf, n, dec, err, sizeof err);
    CHECK_MSG(rc == 0, "decode failed: %s", err);
}

/* Is got[] a prefix of want[] (when suffix is false) or a suffix? */
static bool part_of(const uint64_t *got, size_t ng, const uint64_t *want, size_t nw, bool suffix)
{
    if (ng > nw)
        return false;
    return ng == 0 || !memcmp(got, want + (suffix ? nw - ng : 0), ng * sizeof *got);
}

/* ---- the leading synchronisation sequence ----------------------------------------------- */

static void leading_sync(void)
{
    const char *const opts[] = {"resync-max", "3", NULL};
    struct run r;
    if (!make_run(&r, opts, 32, 1, 8000))
        return;
    uint8_t *buf = malloc(r.n);
    unsigned silent = 0, reported = 0, whole = 0;
    for (size_t at = 0; at < 33; at++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            memcpy(buf, r.bytes, r.n);
            buf[at] ^= (uint8_t)(1u << bit);
            struct rt_result dec;
            decode(&r, r.cfg, buf, r.n, &dec);
            bool exact = dec.npcs == r.s.npcs && !memcmp(dec.pcs, r.s.pcs, r.s.npcs * sizeof *dec.pcs);
            if (exact && !dec.errors) {
                whole++;
            } else if (dec.errors && dec.first_error_offset <= 40) {
                reported++;
                /* reported, and the decode goes on from the next sync packet */
                CHECK_MSG(dec.npcs > 0 && part_of(dec.pcs, dec.npcs, r.s.pcs, r.s.npcs, true),
                          "byte %zu bit %u: %zu of %zu instructions, not the end of the execution", at, bit,
                          dec.npcs, r.s.npcs);
            } else {
                silent++;
                CHECK_MSG(0, "byte %zu bit %u of the leading sync: %zu of %zu instructions, %u errors (first at "
                             "0x%llx)",
                          at, bit, dec.npcs, r.s.npcs, dec.errors, (unsigned long long)dec.first_error_offset);
            }
            rt_free(&dec);
        }
    }
    printf("  leading sync: %u flips harmless, %u reported, %u silent\n", whole, reported, silent);
    CHECK(reported > 100);
    free(buf);
    free_run(&r);
}

/* ---- truncation and the empty trace ------------------------------------------------------ */

static void truncation(const char *name, const char *const *opts, const char *const *strict_opts)
{
    struct run r;
    if (!make_run(&r, opts, 64, 2, 1500))
        return;
    char err[600];
    void *strict = rt_config(strict_opts, 64, r.s.img, err, sizeof err);
    REQUIRE(strict != NULL);
    unsigned bad = 0;
    for (size_t cut = 0; cut < r.n && bad < 5; cut++) {
        for (int st = 0; st < 2; st++) {
            struct rt_result dec;
            decode(&r, st ? strict : r.cfg, r.bytes, cut, &dec);
            bool prefix = part_of(dec.pcs, dec.npcs, r.s.pcs, r.s.npcs, false);
            /* every cut leaves a packet cut or the support packet that ends
             * tracing missing (before the first packet: nothing at all) */
            bool noted = dec.ends + dec.errors > 0 || (dec.npcs == 0 && dec.gaps == 0);
            if (!prefix || !noted || dec.ends > 1)
                bad++;
            CHECK_MSG(prefix && noted && dec.ends <= 1,
                      "%s%s: cut at %zu of %zu: %zu instructions (%s a prefix), %u end notes, %u errors", name,
                      st ? " strict" : "", cut, r.n, dec.npcs, prefix ? "" : "not", dec.ends, dec.errors);
            rt_free(&dec);
        }
    }
    struct rt_result dec;
    decode(&r, r.cfg, r.bytes, r.n, &dec); /* the whole trace: no note */
    CHECK_EQ(dec.ends + dec.errors + dec.gaps, 0);
    CHECK_EQ(dec.npcs, r.s.npcs);
    rt_free(&dec);
    decode(&r, r.cfg, r.bytes, 0, &dec); /* empty: nothing */
    CHECK_EQ(dec.npcs + dec.ends + dec.errors + dec.gaps, 0);
    rt_free(&dec);
    uint8_t zeros[200] = {0};
    decode(&r, r.cfg, zeros, sizeof zeros, &dec); /* only null packets: nothing */
    CHECK_EQ(dec.npcs + dec.ends + dec.gaps, 0);
    rt_free(&dec);
    rvt_codec_cfg_free(strict);
    free_run(&r);
}

/* ---- structurally invalid packets --------------------------------------------------------- */

enum change {
    C_F0_NO_OPTION,   /* a format 0 packet with neither branch prediction nor the cache */
    C_IRREPORT,       /* irreport set with implicit return off */
    C_ENCODER_MODE,   /* support packet encoder_mode 1 */
    C_AFTER_TRAP0,    /* an address packet right after a trap packet without handler */
    C_AFTER_SUPPORT,  /* an address packet right after the first support packet */
    C_EARLY_SYNC,     /* a packet deleted before a resync: the sync packet comes early */
    C_LATE_SYNC,      /* packets added: the resync does not come when due */
};

static const char *const change_name[] = {"format 0 without the options", "irreport without implicit return",
                                          "encoder_mode 1", "address packet after thaddr 0",
                                          "address packet after the support packet", "resync too early",
                                          "resync missing"};

static int find_kind(const struct run *r, unsigned from, unsigned format, int sub)
{
    for (unsigned i = from; i < r->nk; i++)
        if (r->k[i].msg == ET_MSG_TE_INST && r->k[i].format == format && (sub < 0 || r->k[i].subformat == sub))
            return (int)i;
    return -1;
}

static void invalid_packets(void)
{
    const char *const opts[] = {"resync-max", "0", NULL};
    struct run r;
    if (!make_run(&r, opts, 32, 3, 6000))
        return;
    for (unsigned c = C_F0_NO_OPTION; c <= C_LATE_SYNC; c++) {
        struct et_packet *k = malloc((r.nk + 16) * sizeof *k);
        memcpy(k, r.k, r.nk * sizeof *k);
        unsigned nk = r.nk;
        int at = -1;
        switch ((enum change)c) {
        case C_F0_NO_OPTION:
            at = find_kind(&r, 5, ET_F2, -1);
            REQUIRE(at >= 0);
            /* written with an options struct that allows it */
            break;
        case C_IRREPORT:
            at = find_kind(&r, 5, ET_F2, -1);
            k[at].irreport = 1;
            break;
        case C_ENCODER_MODE:
            at = 0;
            k[0].encoder_mode = 1;
            break;
        case C_AFTER_TRAP0: {
            int t = find_kind(&r, 5, ET_F3, ET_SF_TRAP);
            REQUIRE(t >= 0);
            k[t].thaddr = 0;
            for (int j = t - 1; j >= 0; j--) /* (thaddr 0 reports the privilege before the trap) */
                if (r.k[j].msg == ET_MSG_TE_INST && r.k[j].format == ET_F3 && r.k[j].subformat != ET_SF_SUPPORT) {
                    k[t].privilege = r.k[j].privilege;
                    break;
                }
            at = t + 1;
            k[at] = r.k[find_kind(&r, 5, ET_F2, -1)];
            break;
        }
        case C_AFTER_SUPPORT:
            at = 1;
            k[1] = r.k[find_kind(&r, 2, ET_F2, -1)];
            break;
        case C_EARLY_SYNC: {
            /* the resync start packets (same privilege as the one before) */
            int s1 = -1, s2 = -1;
            for (unsigned i = 2; i < r.nk && s2 < 0; i++) {
                if (r.k[i].format != ET_F3 || r.k[i].subformat != ET_SF_START)
                    continue;
                bool plain = r.k[i - 1].format != ET_F3 && r.k[i].privilege == r.k[i - 1].privilege;
                for (unsigned j = i - 1; j > 0 && plain; j--) {
                    if (r.k[j].format == ET_F3) {
                        plain = r.k[j].subformat == ET_SF_START && r.k[j].privilege == r.k[i].privilege &&
                                i - j == 18; /* the period of resync-max 0, and one */
                        break;
                    }
                }
                if (plain)
                    s1 < 0 ? (void)(s1 = (int)i) : (void)(s2 = (int)i);
            }
            REQUIRE(s1 > 0);
            memmove(k + s1 - 1, k + s1, (nk - (unsigned)s1) * sizeof *k); /* delete the packet before it */
            nk--;
            at = s1 - 1; /* (the error may come earlier, where that packet's branches are missing) */
            break;
        }
        case C_LATE_SYNC: {
            /* twelve context packets more (changing nothing): the resync
             * does not come when the count says */
            int f = -1;
            for (unsigned i = 2; i < r.nk && f < 0; i++) /* a sync packet followed by a resync start */
                if (r.k[i].format == ET_F3 && r.k[i].subformat == ET_SF_START && r.k[i - 1].format != ET_F3 &&
                    r.k[i].privilege == r.k[i - 1].privilege)
                    for (unsigned j = i - 1; j > 0; j--)
                        if (r.k[j].format == ET_F3) {
                            if (r.k[j].subformat == ET_SF_START && i - j == 18)
                                f = (int)j; /* (after the start before it) */
                            break;
                        }
            REQUIRE(f >= 0);
            memmove(k + f + 13, k + f + 1, (nk - (unsigned)f - 1) * sizeof *k);
            for (int i = 1; i <= 12; i++) {
                memset(&k[f + i], 0, sizeof k[f + i]);
                k[f + i].format = ET_F3;
                k[f + i].subformat = ET_SF_CONTEXT;
                k[f + i].privilege = r.k[f].privilege;
            }
            nk += 12;
            at = -1;
            break;
        }
        }
        size_t len;
        uint64_t off = 0;
        uint8_t *buf;
        if (c == C_F0_NO_OPTION) {
            /* a format 0.1 packet framed with options that have it */
            struct run w = r;
            struct et_params wp = *r.p;
            wp.jump_target_cache = true;
            wp.cache_size_p = 2;
            w.p = &wp;
            k[at].format = ET_F0;
            k[at].subformat = ET_SF0_JTC;
            k[at].index = 1;
            k[at].branches = 0;
            buf = frame(&w, k, nk, (unsigned)at, &len, &off);
        } else {
            buf = frame(&r, k, nk, at < 0 ? 0 : (unsigned)at, &len, &off);
        }
        struct rt_result dec;
        decode(&r, r.cfg, buf, len, &dec);
        CHECK_MSG(dec.errors > 0, "%s: no error reported", change_name[c]);
        if (at >= 0)
            CHECK_MSG(c == C_EARLY_SYNC ? dec.first_error_offset <= off : dec.first_error_offset == off,
                      "%s: first error at 0x%llx, expected at the packet at 0x%llx (%s)", change_name[c],
                      (unsigned long long)dec.first_error_offset, (unsigned long long)off, dec.first_error);
        /* the decode goes on: the end of the execution is there */
        size_t tail = r.s.npcs / 4;
        CHECK_MSG(dec.npcs >= tail && !memcmp(dec.pcs + dec.npcs - tail, r.s.pcs + r.s.npcs - tail, tail * 8),
                  "%s: not back on track (%zu instructions)", change_name[c], dec.npcs);
        rt_free(&dec);
        if (c == C_LATE_SYNC) {
            /* the resync period is a configuration: with "any", and by default
             * (no --resync-max: the timer may count cycles or half-words,
             * exampleAlgorithm.adoc), nothing is wrong here */
            static const char *const not_counted[][3] = {{"resync-max", "any", NULL}, {NULL}};
            for (unsigned i = 0; i < 2; i++) {
                char err[600];
                void *cfg = rt_config(not_counted[i], 32, r.s.img, err, sizeof err);
                REQUIRE(cfg != NULL);
                decode(&r, cfg, buf, len, &dec);
                CHECK_MSG(dec.errors == 0 && dec.npcs == r.s.npcs, "%s with %s: %s", change_name[c],
                          i ? "no resync option" : "resync-max any", dec.first_error);
                rt_free(&dec);
                rvt_codec_cfg_free(cfg);
            }
        }
        free(buf);
        free(k);
    }
    /* the period comes from the trace (a wrapping RAM makes the encoder
     * pick one): a stream with another one decodes without a word, with
     * the default and with "any" */
    static const char *const cfgs[][3] = {{"resync-max", "3", NULL}, {"resync-max", "any", NULL}};
    for (unsigned i = 0; i < 2; i++) {
        char err[600];
        void *cfg = rt_config(cfgs[i], 32, r.s.img, err, sizeof err);
        REQUIRE(cfg != NULL);
        struct rt_result dec;
        decode(&r, cfg, r.bytes, r.n, &dec);
        CHECK_MSG(dec.errors == 0, "resync-max %s on a resync-max 0 stream: %s", cfgs[i][1], dec.first_error);
        CHECK_EQ(dec.npcs, r.s.npcs);
        rt_free(&dec);
        rvt_codec_cfg_free(cfg);
    }
    free_run(&r);
}

/* Damaged bytes in a real stream: the encapsulation and payload checks. */
static void invalid_bytes(void)
{
    const char *const opts[] = {"resync-max", "2", NULL};
    struct run r;
    if (!make_run(&r, opts, 64, 4, 6000))
        return;
    uint8_t *buf = malloc(r.n + 8);
    /* the packets of the stream, by offset (from the dump's deframer) */
    struct et_deframer df;
    et_deframer_init(&df, r.p, r.bytes, r.n);
    struct et_frame fr;
    struct rvt_diag d = {0};
    size_t f1 = 0, f1len = 0, align = 0;
    while (et_deframer_next(&df, &fr, &d) == 1) {
        if (fr.is_null && fr.is_align && fr.offset > 100 && !align)
            align = (size_t)fr.offset;
        struct et_packet k;
        if (!fr.is_null && !f1 && fr.offset > 100 && fr.size >= 4 &&
            (r.bytes[fr.offset + fr.size - 1] == 0 || r.bytes[fr.offset + fr.size - 1] == 0xff) &&
            et_pkt_unpack_bits(r.p, fr.msg, &fr.bits, &k, &d) == 0 && k.field_bits > fr.bits.n + 8)
            f1 = (size_t)fr.offset, f1len = fr.size;
    }
    REQUIRE(f1 && align);
    struct {
        const char *what;
        size_t at;
        uint8_t xor_;
    } cases[] = {
        {"extend bit without timestamps", f1, 0x80},
        {"null.alignment turned idle", align, 0x80},
        {"padding bit not the sign", f1 + f1len - 1, 0x80},
        {"a packet one byte longer than its compressed form", 0, 0},
    };
    for (unsigned c = 0; c < 4; c++) {
        memcpy(buf, r.bytes, r.n);
        size_t n = r.n;
        if (c == 3) {
            /* repeat the last payload byte (the sign extension) */
            memcpy(buf, r.bytes, f1 + f1len);
            buf[f1] = (uint8_t)(buf[f1] + 1);
            buf[f1 + f1len] = r.bytes[f1 + f1len - 1];
            memcpy(buf + f1 + f1len + 1, r.bytes + f1 + f1len, r.n - f1 - f1len);
            n++;
        } else {
            buf[cases[c].at] ^= cases[c].xor_;
        }
        struct rt_result dec;
        decode(&r, r.cfg, buf, n, &dec);
        CHECK_MSG(dec.errors > 0, "%s: no error", cases[c].what);
        size_t expect_at = c == 1 ? align : f1;
        CHECK_MSG(dec.first_error_offset == expect_at, "%s: first error at 0x%llx, expected 0x%zx (%s)",
                  cases[c].what, (unsigned long long)dec.first_error_offset, expect_at, dec.first_error);
        rt_free(&dec);
        if (c == 3) {
            const char *const pc[] = {"resync-max", "2", "partial-compression", "1", NULL};
            char err[600];
            void *cfg = rt_config(pc, 64, r.s.img, err, sizeof err);
            REQUIRE(cfg != NULL);
            decode(&r, cfg, buf, n, &dec);
            CHECK_MSG(dec.errors == 0 && dec.npcs == r.s.npcs, "--partial-compression: %u errors (%s)", dec.errors,
                      dec.first_error);
            rt_free(&dec);
            rvt_codec_cfg_free(cfg);
        }
    }
    free(buf);
    free_run(&r);
}

/* ---- inserted and deleted bytes ------------------------------------------------------------ */

/* With traps, every trap packet restarts the resync count: whole packets
 * deleted between two of them can leave a consistent, shorter path that no
 * check sees (see docs/etrace.md); without traps every sync is a periodic
 * one and its count shows them. */
static void insert_delete(const char *name, const char *const *opts, bool traps)
{
    struct run r;
    g_no_traps = !traps;
    bool made = make_run(&r, opts, 32, 5, 30000);
    g_no_traps = false;
    if (!made)
        return;
    uint64_t x = 0x2545f4914f6cdd1dull;
    unsigned back = 0, reported = 0, trials = 40;
    uint8_t *buf = malloc(r.n + 32);
    for (unsigned t = 0; t < trials; t++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t at = (size_t)(x % (r.n / 2)), k = 1 + (x >> 32) % 16, n;
        if (t % 2) { /* insert k bytes */
            memcpy(buf, r.bytes, at);
            for (size_t i = 0; i < k; i++)
                buf[at + i] = (uint8_t)(x >> (8 * (i % 8)));
            memcpy(buf + at + k, r.bytes + at, r.n - at);
            n = r.n + k;
        } else { /* delete k bytes */
            memcpy(buf, r.bytes, at);
            memcpy(buf + at, r.bytes + at + k, r.n - at - k);
            n = r.n - k;
        }
        struct rt_result dec;
        decode(&r, r.cfg, buf, n, &dec);
        bool exact = dec.npcs == r.s.npcs && !memcmp(dec.pcs, r.s.pcs, r.s.npcs * 8);
        if (dec.errors)
            reported++;
        CHECK_MSG(exact || dec.errors || traps, "%s: %s %zu bytes at %zu: %zu of %zu instructions, no error", name,
                  t % 2 ? "inserted" : "deleted", k, at, dec.npcs, r.s.npcs);
        if (!exact && !dec.errors && getenv("ET_FAIL_DIR")) {
            char path[600];
            snprintf(path, sizeof path, "%s/damage-%s-%u.bin", getenv("ET_FAIL_DIR"), name, t);
            FILE *f = fopen(path, "wb");
            if (f) {
                fwrite(buf, 1, n, f);
                fclose(f);
            }
            snprintf(path, sizeof path, "%s/damage-%s-orig.bin", getenv("ET_FAIL_DIR"), name);
            if ((f = fopen(path, "wb"))) {
                fwrite(r.bytes, 1, r.n, f);
                fclose(f);
            }
            const struct rvt_segment *seg = rvt_img_segment(r.s.img, 0);
            snprintf(path, sizeof path, "%s/damage.code@%llx", getenv("ET_FAIL_DIR"), (unsigned long long)seg->addr);
            if ((f = fopen(path, "wb"))) {
                fwrite(seg->data, 1, (size_t)seg->size, f);
                fclose(f);
            }
        }
        size_t tail = r.s.npcs / 3;
        if (dec.npcs >= tail && !memcmp(dec.pcs + dec.npcs - tail, r.s.pcs + r.s.npcs - tail, tail * 8))
            back++;
        rt_free(&dec);
    }
    printf("  %s: %u of %u insertions/deletions reported, %u back on track\n", name, reported, trials, back);
    CHECK_MSG(back == trials, "%s: only %u of %u decodes back on track", name, back, trials);
    free(buf);
    free_run(&r);
}

/* The dump lists everything and returns the first damage. */
static void dump_status(void)
{
    const char *const none[] = {NULL};
    struct run r;
    if (!make_run(&r, none, 32, 6, 3000))
        return;
    FILE *null = fopen("/dev/null", "w");
    REQUIRE(null != NULL);
    struct rvt_diag d = {0};
    CHECK_MSG(et_dump(r.p, r.bytes, r.n, null, &d) == 0, "a whole trace: %s", d.msg);
    CHECK_EQ(et_dump(r.p, r.bytes, r.n - 1, null, &d), -RVT_ERR_TRUNCATED);
    uint8_t *buf = malloc(r.n);
    memcpy(buf, r.bytes, r.n);
    buf[40] ^= 0x80; /* the header of the second packet: extend without timestamps */
    CHECK_EQ(et_dump(r.p, buf, r.n, null, &d), -RVT_ERR_FORMAT);
    CHECK_MSG(strstr(d.msg, "0x28") != NULL, "the first damage names its offset: %s", d.msg);
    memset(buf, 0, 64);
    CHECK_EQ(et_dump(r.p, buf, 64, null, &d), -RVT_ERR_NOSYNC);
    free(buf);
    fclose(null);

    /* An RV32 trap packet (EPC and tval 0x7ffff322) read with 64-bit
     * address fields: address 0x7ffff3227ffff322, which no RV64 hart
     * fetches from; the listing says so (dump it with --xlen 32). */
    struct et_packet k[2];
    k[0] = r.k[0]; /* the support packet */
    memset(&k[1], 0, sizeof k[1]);
    k[1].format = ET_F3;
    k[1].subformat = ET_SF_TRAP;
    k[1].branch = 1;
    k[1].ecause = 3;
    k[1].address = 0x7ffff322u >> r.p->iaddress_lsb_p;
    k[1].tval = 0x7ffff322u;
    size_t len;
    uint8_t *tb = frame(&r, k, 2, 1, &len, NULL);
    struct et_params p64 = *r.p;
    p64.xlen = p64.iaddress_width_p = 64;
    for (int w = 0; w < 2; w++) {
        char *text = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&text, &n);
        REQUIRE(f != NULL);
        et_dump(w ? &p64 : r.p, tb, len, f, &d);
        fclose(f);
        bool noted = strstr(text, "no RV64 instruction address") != NULL;
        CHECK_MSG(noted == (w == 1), "RV32 trap packet dumped with %u-bit addresses: %s", w ? 64 : 32, text);
        CHECK_MSG(w == 1 || strstr(text, "address=0x7ffff322 tval=0x7ffff322"), "RV32 dump: %s", text);
        free(text);
    }
    free(tb);
    free_run(&r);
}

int main(void)
{
    dump_status();
    leading_sync();
    const char *const none[] = {NULL}, *const strict[] = {"strict", "1", NULL};
    const char *const raw[] = {"framing", "refraw", NULL}, *const raw_strict[] = {"framing", "refraw", "strict", "1",
                                                                                    NULL};
    truncation("encap", none, strict);
    truncation("refraw", raw, raw_strict);
    invalid_packets();
    invalid_bytes();
    const char *const enc1[] = {"resync-max", "1", NULL};
    const char *const raw1[] = {"framing", "refraw", "resync-max", "1", NULL};
    insert_delete("encap", enc1, false);
    insert_delete("refraw", raw1, false);
    insert_delete("encap, traps", enc1, true);
    insert_delete("refraw, traps", raw1, true);
    return rvt_test_summary("test_et_damage");
}

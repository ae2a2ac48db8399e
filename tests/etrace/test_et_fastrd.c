/* The one-pass reader of E-Trace formats 1 and 2 (et_pkt_read_fast) against
 * the general reader it stands in for in the decoder (et_pkt_unpack_bits,
 * et_pkt_check_padding, et_pkt_check_irdepth, et_pkt_check_compressed, as
 * the decoder's unpack_frame applies them): for every payload both must
 * agree whether it is a sound format 1 or 2 packet, and on every field of
 * it.  Payloads: every packet of the bundled real capture encoded with
 * several option sets, packets packed from random fields (with extra
 * padding bytes and single bit flips), and random bytes, under several
 * field widths. */
#include "etrace/etrace.h"
#include "etrace/fastrd.h"
#include "roundtrip.h"
#include "testlib.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_etrace; /* (links the family in) */

static uint64_t compared, taken;
/* The last packet the fast reader read: the decoder reads the next one
 * into it without clearing it first (clean). */
static struct et_packet prev_fast;
static bool have_prev;

/* The decoder's general reading of an encapsulated payload without srcID
 * or type bits (the only kind the fast reader is used for). */
static bool general(const struct et_params *p, const uint8_t *pl, unsigned len, struct et_packet *k)
{
    struct rvt_diag d = {0};
    struct et_bits b;
    memset(&b, 0, sizeof b);
    for (unsigned i = 0; i < len; i++)
        b.w[i / 8] |= (uint64_t)pl[i] << (8 * (i % 8));
    b.n = 8 * len;
    if (et_pkt_unpack_bits(p, ET_MSG_TE_INST, &b, k, &d) < 0)
        return false;
    if (et_pkt_check_padding(&b, k, false, &d) < 0 || et_pkt_check_irdepth(p, k, &d) < 0)
        return false;
    if (!p->partial_compression && et_pkt_check_compressed(&b, k, 0, false, &d) < 0)
        return false;
    return true;
}

/* Both readers on one payload (len 1..31): the fast one takes exactly the
 * sound format 1 and 2 packets, and reads them as the general one does. */
static bool compare(const struct et_params *p, const struct et_fastrd *fr, const uint8_t *pl, unsigned len,
                    const char *what)
{
    uint8_t buf[32];
    memset(buf, 0xa5, sizeof buf); /* (bytes after the payload must not matter) */
    memcpy(buf, pl, len);
    struct et_packet kg, kf;
    memset(&kg, 0, sizeof kg);
    bool g = general(p, pl, len, &kg);
    bool f = et_pkt_read_fast(fr, buf, len, &kf);
    bool want = g && (kg.format == ET_F1 || kg.format == ET_F2);
    compared++;
    taken += f;
    if (f != want) {
        char hex[100] = "";
        for (unsigned i = 0; i < len; i++)
            snprintf(hex + 2 * i, 3, "%02x", pl[i]);
        CHECK_MSG(0, "%s: payload %s: fast reader %s, general reader %s (format %u)", what, hex,
                  f ? "took it" : "left it", g ? "reads it" : "rejects it", kg.format);
        return f;
    }
    if (f)
        CHECK_MSG(memcmp(&kf, &kg, sizeof kf) == 0, "%s: the two readers read a %s packet differently", what,
                  et_pkt_name(&kg, false));
    if (have_prev) { /* the same into the packet it read before, not cleared */
        struct et_packet kc = prev_fast;
        bool c = et_pkt_read_fast_inline(fr, buf, len, &kc, true);
        CHECK_MSG(c == f, "%s: the fast reader %s a packet into a used one", what, c ? "takes" : "leaves");
        if (c && f)
            CHECK_MSG(memcmp(&kc, &kg, sizeof kc) == 0, "%s: a %s packet read into a used one differs", what,
                      et_pkt_name(&kg, false));
    }
    if (f) {
        prev_fast = kf;
        have_prev = true;
    }
    return f;
}

/* ---- every packet of real traces --------------------------------------------- */

static void real_trace(const struct rvt_image *img, const struct rvt_recs *recs, const char *name,
                       const char *const *opts)
{
    struct rvt_rt_opts o = {.format = "etrace", .options = opts};
    struct rvt_rt_result res;
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (rvt_roundtrip(&o, img, recs, &res, &bytes, &len) < 0 && !bytes) {
        CHECK_MSG(0, "%s: encode: %s", name, res.msg);
        return;
    }
    const struct rvt_codec *c = &rvt_codec_etrace;
    struct et_config *cfg = rvt_codec_cfg_new(c);
    struct rvt_diag d = {0};
    for (size_t i = 0; opts[i]; i += 2)
        REQUIRE(c->cfg_set(cfg, opts[i], opts[i + 1], &d) == 0);
    REQUIRE(c->cfg_finish(cfg, rvt_img_xlen(img), img, &d) == 0);
    struct et_fastrd fr;
    et_fastrd_init(&fr, &cfg->p);
    CHECK_MSG(fr.on, "%s: the fast reader is off", name);
    struct et_deframer df;
    et_deframer_init(&df, &cfg->p, bytes, len);
    struct et_frame f;
    uint64_t before = taken, frames = 0;
    while (et_deframer_next(&df, &f, &d) == 1) {
        if (f.is_null)
            continue;
        REQUIRE(f.payload_bytes != NULL);
        compare(&cfg->p, &fr, f.payload_bytes, (unsigned)(f.size - 1), name);
        frames++;
    }
    CHECK_EQ(df.pos, len);
    printf("  %s: %" PRIu64 " packets, %" PRIu64 " read by the fast reader\n", name, frames, taken - before);
    CHECK(taken - before > frames / 2); /* (formats 1 and 2 are most of a trace) */
    rvt_codec_cfg_free(cfg);
    free(bytes);
}

static void real_capture(void)
{
    struct rvt_image *img = NULL;
    struct rvt_recs recs = {0};
    int got = rvt_recs_bundled_capture(&img, &recs);
    if (got <= 0) {
        rvt_img_free(img);
        return;
    }
    static const char *const def[] = {NULL};
    static const char *const irf[] = {"implicit-return", "fixed", "return_stack_size_p", "2", NULL};
    static const char *const ir20[] = {"implicit-return", "2.0", "call_counter_size_p", "3", NULL};
    static const char *const full[] = {"full-address", "1", "resync-max", "0", NULL};
    static const char *const sij[] = {"sijump", "1", "flow", "2", NULL};
    real_trace(img, &recs, "default", def);
    real_trace(img, &recs, "implicit-return fixed", irf);
    real_trace(img, &recs, "implicit-return 2.0 with a call counter", ir20);
    real_trace(img, &recs, "full-address", full);
    real_trace(img, &recs, "sijump, flow 2", sij);
    rvt_recs_free(&recs);
    rvt_img_free(img);
}

/* ---- edge cases -------------------------------------------------------------- */

static uint64_t rnd64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void params(struct et_params *p, unsigned variant)
{
    et_params_default(p);
    p->iaddress_width_p = variant & 1 ? 32 : 64;
    p->iaddress_lsb_p = (variant >> 1) % 3;
    switch ((variant >> 3) % 4) {
    case 0: break;                                              /* irdepth 0 bits */
    case 1: p->return_stack_size_p = 3; break;                  /* 4 */
    case 2: p->call_counter_size_p = 5; break;                  /* 5 */
    default: p->return_stack_size_p = 9; p->call_counter_size_p = 22; break; /* 32 */
    }
    p->implicit_return = p->return_stack_size_p || p->call_counter_size_p ? ET_IR_FIXED : ET_IR_OFF;
    p->partial_compression = (variant >> 5) & 1;
}

/* Packets of random fields (packed as the encoder packs them), with
 * padding bytes added and single bits flipped; random bytes. */
static void edge_cases(void)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (unsigned variant = 0; variant < 64; variant++) {
        struct et_params p;
        params(&p, variant);
        struct et_fastrd fr;
        et_fastrd_init(&fr, &p);
        CHECK(fr.on);
        char what[80];
        snprintf(what, sizeof what, "variant %u (aw %u, irdepth %u bits)", variant, et_addr_bits(&p),
                 et_irdepth_bits(&p));
        unsigned aw = et_addr_bits(&p), irdb = et_irdepth_bits(&p);
        for (unsigned n = 0; n < 3000; n++) {
            struct et_packet k;
            memset(&k, 0, sizeof k);
            uint64_t r = rnd64(&s);
            k.format = r & 1 ? ET_F2 : ET_F1;
            k.branches = (uint8_t)((r >> 1) % 32);
            k.branch_map = (uint32_t)rnd64(&s);
            unsigned shape = (unsigned)(r >> 8) % 4; /* addresses near 0, near the top, anywhere */
            uint64_t a = rnd64(&s) >> (r >> 16) % 64;
            k.address = (shape == 0 ? a % 64 : shape == 1 ? ~(a % 64) : a) & (aw >= 64 ? ~0ull : (1ull << aw) - 1);
            k.notify = (r >> 24) & 1 && (r >> 25) & 1;
            k.updiscon = (r >> 26) & 1;
            k.irreport = irdb && (r >> 27) & 1;
            k.irdepth = k.irreport ? (uint32_t)(rnd64(&s) & (irdb >= 32 ? 0xffffffffu : (1u << irdb) - 1)) : 0;
            uint8_t out[64];
            struct rvt_diag d = {0};
            int len = et_pkt_pack(&p, &k, out, sizeof out, NULL, &d);
            if (len <= 0 || len > 31)
                continue;
            compare(&p, &fr, out, (unsigned)len, what);
            if (len < 31) { /* a padding byte more: longer than its compressed form */
                out[len] = out[len - 1] & 0x80 ? 0xff : 0x00;
                compare(&p, &fr, out, (unsigned)len + 1, what);
            }
            unsigned bit = (unsigned)(rnd64(&s) % (8u * (unsigned)len));
            out[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            compare(&p, &fr, out, (unsigned)len, what);
        }
        for (unsigned n = 0; n < 3000; n++) {
            uint8_t pl[31];
            unsigned len = 1 + (unsigned)(rnd64(&s) % 31);
            for (unsigned i = 0; i < len; i++)
                pl[i] = (uint8_t)rnd64(&s);
            /* short payloads mostly; every format */
            if (n % 2)
                len = 1 + len % 8;
            compare(&p, &fr, pl, len, what);
        }
    }
    /* Each check the fast reader folds in, one at a time: a sound packet,
     * then the same with its padding, its unused irdepth bits or its
     * length wrong. */
    struct et_params p;
    params(&p, 8); /* 64-bit, lsb 0, irdepth 4 bits */
    struct et_fastrd fr;
    et_fastrd_init(&fr, &p);
    /* F1, 0 branches (31-bit map, no address): format 01, branches 00000,
     * map bits 7..37 (bit 36 0, bit 37 1), padding bits 38, 39 copies of 37 */
    const uint8_t f1_map[] = {0x01, 0x00, 0x00, 0x00, 0xe0};
    CHECK(compare(&p, &fr, f1_map, sizeof f1_map, "full map"));
    const uint8_t f1_map_long[] = {0x01, 0x00, 0x00, 0x00, 0xe0, 0xff};
    CHECK(!compare(&p, &fr, f1_map_long, sizeof f1_map_long, "full map, a byte longer than its compressed form"));
    const uint8_t f1_map_badpad[] = {0x01, 0x00, 0x00, 0x00, 0x60};
    CHECK(!compare(&p, &fr, f1_map_badpad, sizeof f1_map_badpad, "full map, padding bit differs"));
    const uint8_t f1_map_extra[] = {0x01, 0x00, 0x00, 0x00, 0xe0, 0xff, 0xff};
    CHECK(!compare(&p, &fr, f1_map_extra, sizeof f1_map_extra, "full map, a payload longer than its fields"));
    /* F2: address 0x1000, notify (so the status bits and the unused
     * irdepth bits, copies of irreport, are ones and are sent) */
    struct et_packet k;
    memset(&k, 0, sizeof k);
    k.format = ET_F2;
    k.address = 0x1000;
    k.notify = true;
    uint8_t out[64];
    struct rvt_diag d = {0};
    int len = et_pkt_pack(&p, &k, out, sizeof out, NULL, &d);
    REQUIRE(len == 9);
    CHECK(compare(&p, &fr, out, (unsigned)len, "F2"));
    uint8_t bad[64];
    memcpy(bad, out, (size_t)len);
    bad[(2 + 64 + 3) / 8] ^= (uint8_t)(1u << ((2 + 64 + 3) % 8)); /* an irdepth bit without irreport */
    CHECK(!compare(&p, &fr, bad, (unsigned)len, "F2, irdepth bit without irreport"));
    const uint8_t f3[] = {0x03, 0x00};
    CHECK(!compare(&p, &fr, f3, sizeof f3, "F3"));
    struct et_packet kf;
    uint8_t buf[32] = {0};
    memcpy(buf, out, (size_t)len);
    CHECK(et_pkt_read_fast(&fr, buf, (unsigned)len, &kf) && kf.address == 0x1000 && kf.has_address);
    memcpy(buf, bad, (size_t)len);
    CHECK(!et_pkt_read_fast(&fr, buf, (unsigned)len, &kf));
    /* off where the configuration needs the general reader */
    struct et_params q = p;
    q.type_bits = 2;
    et_fastrd_init(&fr, &q);
    CHECK(!fr.on);
    q = p;
    q.version = ET_V0_026;
    et_fastrd_init(&fr, &q);
    CHECK(!fr.on);
    q = p;
    q.src_bits = 8;
    et_fastrd_init(&fr, &q);
    CHECK(!fr.on);
}

int main(void)
{
    edge_cases();
    real_capture();
    printf("  %" PRIu64 " payloads compared, %" PRIu64 " read by the fast reader\n", compared, taken);
    return rvt_test_summary("test_et_fastrd");
}

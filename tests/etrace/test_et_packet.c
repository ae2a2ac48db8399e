/* E-Trace packet layer: the worked examples of exampleCodeSnippets.adoc
 * (fields and exact bytes), the notify/updiscon/irreport "differs from the
 * preceding bit" rule, sign-based compression, every format at several
 * widths (pack/unpack round trip), and the reference model's golden
 * packets parsed and checked field by field against its listings. */
#include "etrace/encoder.h"
#include "etrace/etrace.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ----------------------------------------------------------------- */

struct pkts {
    struct et_packet k[64];
    unsigned n;
};

static void observe(void *ctx, const struct et_packet *k, unsigned full, unsigned sent)
{
    (void)full;
    (void)sent;
    struct pkts *p = ctx;
    if (p->n < 64)
        p->k[p->n++] = *k;
}

static long sink_write(void *ctx, const uint8_t *b, size_t n)
{
    (void)ctx;
    (void)b;
    return (long)n;
}

/* One retired instruction as a record. */
static struct rvt_ing_rec rec(uint64_t addr, unsigned size, unsigned itype)
{
    struct rvt_ing_rec r;
    memset(&r, 0, sizeof r);
    r.iaddr = addr;
    r.iretire = size / 2;
    r.ilastsize = size == 4 ? 1 : 0;
    r.itype = (uint8_t)itype;
    r.priv = RVT_PRIV_U;
    return r;
}

static void params64(struct et_params *p, unsigned lsb)
{
    et_params_default(p);
    p->iaddress_width_p = 64;
    p->iaddress_lsb_p = lsb;
    p->framing = ET_FRAME_REFRAW;
    p->resync_max = -1;
}

static void encode(const struct et_params *p, const struct rvt_ing_rec *r, size_t n, struct pkts *out)
{
    struct et_encoder *e;
    struct rvt_diag d = {0};
    struct rvt_byte_sink sink = {sink_write, NULL};
    memset(out, 0, sizeof *out);
    REQUIRE(et_enc_new(&e, p, &sink, &d) == 0);
    et_enc_set_observer(e, observe, out);
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(et_enc_put(e, &r[i]) == 0, "record %zu: %s", i, et_enc_error(e));
    CHECK(et_enc_finish(e) == 0);
    et_enc_free(e);
}

/* The compressed payload bytes of a packet. */
static int bytes_of(const struct et_params *p, const struct et_packet *k, uint8_t *out)
{
    struct et_packet c = *k;
    struct rvt_diag d = {0};
    return et_pkt_pack(p, &c, out, 64, NULL, &d);
}

/* ---- exampleCodeSnippets.adoc --------------------------------------------------------- */

/* 1. Return from debug_printf(): te_inst[format=2, address=0x80001a88, updiscon=0]. */
static void example_return(void)
{
    struct et_params p;
    params64(&p, 0);
    struct rvt_ing_rec r[] = {
        rec(0x80001178, 2, 0),  /* addi sp,sp,-64: first traced */
        rec(0x8000117a, 2, 0), rec(0x8000117c, 2, 0), rec(0x8000117e, 2, 0), rec(0x80001180, 2, 0),
        rec(0x80001182, 2, 0), rec(0x80001184, 2, 0), rec(0x80001186, 2, 0), rec(0x80001188, 2, 0),
        rec(0x8000118a, 2, RVT_ITYPE_RETURN), /* ret: uninferable with implicit return off */
        rec(0x80001a88, 4, 0),  /* auipc a1,0x0 */
        rec(0x80001a8c, 4, 0),
    };
    struct pkts k;
    encode(&p, r, sizeof r / sizeof r[0], &k);
    REQUIRE(k.n >= 4);
    CHECK_EQ(k.k[0].format, ET_F3);
    CHECK_EQ(k.k[0].subformat, ET_SF_SUPPORT);
    CHECK_EQ(k.k[1].subformat, ET_SF_START);
    CHECK_EQ(k.k[1].address, 0x80001178);
    const struct et_packet *f2 = &k.k[2];
    CHECK_EQ(f2->format, ET_F2);
    CHECK_EQ(f2->address, 0x80001a88 - 0x80001178); /* differential */
    CHECK_EQ(f2->raw_updiscon, 0);
    CHECK_EQ(f2->updiscon, 0);
    CHECK_EQ(f2->notify, 0);
    uint8_t b[64];
    int n = bytes_of(&p, f2, b);
    /* format 10, address 0x910 from bit 2: 0x2442, all higher bits 0 */
    CHECK_EQ(n, 2);
    CHECK_EQ(b[0], 0x42);
    CHECK_EQ(b[1], 0x24);
}

/* 2. Func_2: a taken branch then ret: format=1 branches=1 branch_map=0x0,
 *    address 0x80001b8a (delta 0xab0), updiscon=0. */
static void example_branch_ret(void)
{
    struct et_params p;
    params64(&p, 0);
    struct rvt_ing_rec r[] = {
        rec(0x800010da, 2, 0),                 /* li a5,0 */
        rec(0x800010dc, 4, RVT_ITYPE_TAKEN),   /* blez a0,800010ec: taken */
        rec(0x800010ec, 2, 0), rec(0x800010ee, 2, 0), rec(0x800010f0, 2, 0), rec(0x800010f2, 2, 0),
        rec(0x800010f4, 2, 0),
        rec(0x800010f6, 2, RVT_ITYPE_RETURN),  /* ret */
        rec(0x80001b8a, 4, 0),                 /* lw a2,-188(s0) */
        rec(0x80001b8e, 4, 0),
    };
    struct pkts k;
    encode(&p, r, sizeof r / sizeof r[0], &k);
    REQUIRE(k.n >= 3);
    const struct et_packet *f1 = &k.k[2];
    CHECK_EQ(f1->format, ET_F1);
    CHECK_EQ(f1->branches, 1);
    CHECK_EQ(f1->branch_map, 0x0);
    CHECK_EQ(f1->address, 0xab0);
    CHECK_EQ(f1->raw_updiscon, 0);
    uint8_t b[64];
    int n = bytes_of(&p, f1, b);
    /* bits: format 1,0; branches 1 (5 bits); map 0 (1 bit); address from bit 8 */
    CHECK_EQ(n, 3);
    CHECK_EQ(b[0], 0x05);
    CHECK_EQ(b[1], 0xb0);
    CHECK_EQ(b[2], 0x0a);
}

/* 3. Proc_6: three branches (not taken, not taken, taken) then ret back to
 *    Proc_1: format=1 branches=3 branch_map=0x3, delta 0x148. */
static void example_three_branches(void)
{
    struct et_params p;
    params64(&p, 0);
    struct rvt_ing_rec r[] = {
        rec(0x80001110, 2, 0),
        rec(0x80001112, 2, 0),                    /* sw s0,0(s1) */
        rec(0x80001114, 2, 0),                    /* li a5,1 */
        rec(0x80001116, 4, RVT_ITYPE_NOT_TAKEN),  /* beq s0,a5: not taken */
        rec(0x8000111a, 2, RVT_ITYPE_NOT_TAKEN),  /* beqz s0: not taken */
        rec(0x8000111c, 2, 0),                    /* li a4,2 */
        rec(0x8000111e, 4, RVT_ITYPE_TAKEN),      /* beq s0,a4,8000115e: taken */
        rec(0x8000115e, 2, 0), rec(0x80001160, 2, 0), rec(0x80001162, 2, 0), rec(0x80001164, 2, 0),
        rec(0x80001166, 2, 0),
        rec(0x80001168, 2, RVT_ITYPE_RETURN),     /* ret */
        rec(0x80001258, 4, 0),                    /* ld a5,0(s2) */
        rec(0x8000125c, 4, 0),
    };
    struct pkts k;
    encode(&p, r, sizeof r / sizeof r[0], &k);
    REQUIRE(k.n >= 3);
    const struct et_packet *f1 = &k.k[2];
    CHECK_EQ(f1->format, ET_F1);
    CHECK_EQ(f1->branches, 3);
    CHECK_EQ(f1->branch_map, 0x3);
    CHECK_EQ(f1->address, 0x148);
    CHECK_EQ(f1->raw_updiscon, 0);
    uint8_t b[64];
    int n = bytes_of(&p, f1, b);
    CHECK_EQ(n, 3);
    CHECK_EQ(b[0], 0x8d);
    CHECK_EQ(b[1], 0x21);
    CHECK_EQ(b[2], 0x05);
}

/* 4. Proc_1 -> Proc_6 -> Func_3: two jal (inferable), ret to a branch that
 *    is not taken: format=1 branches=2 branch_map=0x2, address 0x80001110
 *    (delta 0xfffffffffffffef4), updiscon=1 -- the transmitted bit, equal
 *    to notify which equals the address MSB: not an updiscon report. */
static void example_complex(void)
{
    struct et_params p;
    params64(&p, 0);
    struct rvt_ing_rec r[] = {
        rec(0x8000121c, 2, 0),                 /* lw a5,8(s0) */
        rec(0x8000121e, 2, RVT_ITYPE_TAKEN),   /* beqz a5,8000124a: taken */
        rec(0x8000124a, 2, 0), rec(0x8000124c, 2, 0), rec(0x8000124e, 4, 0), rec(0x80001252, 2, 0),
        rec(0x80001254, 4, RVT_ITYPE_CALL_INF), /* jal x1,80001100 */
        rec(0x80001100, 2, 0), rec(0x80001102, 2, 0), rec(0x80001104, 2, 0), rec(0x80001106, 2, 0),
        rec(0x80001108, 2, 0), rec(0x8000110a, 2, 0),
        rec(0x8000110c, 4, RVT_ITYPE_CALL_INF), /* jal x1,800010f8 */
        rec(0x800010f8, 2, 0), rec(0x800010fa, 4, 0),
        rec(0x800010fe, 2, RVT_ITYPE_RETURN),   /* ret */
        rec(0x80001110, 2, RVT_ITYPE_NOT_TAKEN),/* beqz a0,80001134: not taken */
        rec(0x80001112, 2, 0),
        rec(0x80001114, 2, 0),
    };
    struct pkts k;
    encode(&p, r, sizeof r / sizeof r[0], &k);
    REQUIRE(k.n >= 3);
    const struct et_packet *f1 = &k.k[2];
    CHECK_EQ(f1->format, ET_F1);
    CHECK_EQ(f1->branches, 2);
    CHECK_EQ(f1->branch_map, 0x2);
    CHECK_EQ(f1->address, 0xfffffffffffffef4ull);
    CHECK_EQ(f1->raw_notify, 1);
    CHECK_EQ(f1->raw_updiscon, 1);
    CHECK_EQ(f1->raw_irreport, 1);
    CHECK_EQ(f1->notify, 0);
    CHECK_EQ(f1->updiscon, 0);
    CHECK_EQ(f1->irreport, 0);
    uint8_t b[64];
    int n = bytes_of(&p, f1, b);
    /* the trailing ones of the negative difference and the three status
     * bits compress away: 20 bits, 3 bytes */
    CHECK_EQ(n, 3);
    CHECK_EQ(b[0], 0x09);
    CHECK_EQ(b[1], 0xd1);
    CHECK_EQ(b[2], 0xfb);
    /* With iaddress_lsb_p = 1 the field carries the difference >> 1. */
    params64(&p, 1);
    encode(&p, r, sizeof r / sizeof r[0], &k);
    REQUIRE(k.n >= 3);
    CHECK_EQ(k.k[2].address, 0x7fffffffffffff7aull); /* 63-bit field */
}

/* ---- payload.adoc: the status-bit encodings -------------------------------------------- */

static void status_bits(void)
{
    struct et_params p;
    params64(&p, 0);
    p.iaddress_width_p = 32;
    p.return_stack_size_p = 2; /* irdepth: 3 bits */
    p.implicit_return = ET_IR_20;
    uint8_t b[64];
    struct rvt_diag d = {0};
    /* notify differs from address[MSB] only for a notification */
    for (unsigned msb = 0; msb < 2; msb++)
        for (unsigned notify = 0; notify < 2; notify++)
            for (unsigned upd = 0; upd < 2; upd++)
                for (unsigned irr = 0; irr < 2; irr++) {
                    struct et_packet k;
                    memset(&k, 0, sizeof k);
                    k.format = ET_F2;
                    k.address = msb ? 0x80000010u : 0x10u;
                    k.notify = (uint8_t)notify;
                    k.updiscon = (uint8_t)upd;
                    k.irreport = (uint8_t)irr;
                    k.irdepth = irr ? 5 : 0;
                    int n = et_pkt_pack(&p, &k, b, sizeof b, NULL, &d);
                    CHECK(n > 0);
                    CHECK_EQ(k.raw_notify, msb ^ notify);
                    CHECK_EQ(k.raw_updiscon, k.raw_notify ^ upd);
                    CHECK_EQ(k.raw_irreport, k.raw_updiscon ^ irr);
                    /* not reported: irdepth repeats the updiscon bit */
                    CHECK_EQ(k.raw_irdepth, irr ? 5u : (k.raw_updiscon ? 7u : 0u));
                    struct et_packet u;
                    CHECK(et_pkt_unpack(&p, ET_MSG_TE_INST, b, (size_t)n, (unsigned)n * 8, &u, &d) == 0);
                    CHECK_EQ(u.address, k.address);
                    CHECK_EQ(u.notify, notify);
                    CHECK_EQ(u.updiscon, upd);
                    CHECK_EQ(u.irreport, irr);
                    CHECK_EQ(u.irdepth, irr ? 5u : 0u);
                    /* the usual case costs nothing: every status bit equal to
                     * the address MSB compresses away */
                    if (!notify && !upd && !irr)
                        CHECK_EQ(n, msb ? 5 : 1);
                }
    /* format 0.1: irreport differs from branch_map[MSB] (or branches[MSB]) */
    p.jump_target_cache = true;
    p.cache_size_p = 3;
    struct et_packet j;
    memset(&j, 0, sizeof j);
    j.format = ET_F0;
    j.subformat = ET_SF0_JTC;
    j.index = 5;
    j.branches = 3;
    j.branch_map = 0x4; /* MSB of the 3-bit map is 1 */
    int n = et_pkt_pack(&p, &j, b, sizeof b, NULL, &d);
    CHECK(n > 0);
    CHECK_EQ(j.raw_irreport, 1);
    CHECK_EQ(j.raw_irdepth, 7);
    j.irreport = 1;
    j.irdepth = 2;
    et_pkt_pack(&p, &j, b, sizeof b, NULL, &d);
    CHECK_EQ(j.raw_irreport, 0);
    CHECK_EQ(j.raw_irdepth, 2);
}

/* Format 1 with a full branch map: branches = 0 (no address) or 31 (address). */
static void full_map(void)
{
    struct et_params p;
    params64(&p, 1);
    p.iaddress_width_p = 32;
    struct rvt_ing_rec r[80];
    unsigned n = 0;
    r[n++] = rec(0x1000, 4, 0);
    for (unsigned i = 0; i < 31; i++) /* a loop branch taken 31 times */
        r[n++] = rec(0x1004, 4, RVT_ITYPE_TAKEN);
    r[n++] = rec(0x1004, 4, RVT_ITYPE_NOT_TAKEN);
    r[n++] = rec(0x1008, 4, RVT_ITYPE_JUMP_UNINF);
    r[n++] = rec(0x2000, 4, 0);
    r[n++] = rec(0x2004, 4, 0);
    struct pkts k;
    encode(&p, r, n, &k);
    REQUIRE(k.n >= 5);
    CHECK_EQ(k.k[2].format, ET_F1);
    CHECK_EQ(k.k[2].branches, 0);       /* full map, no address */
    CHECK_EQ(k.k[2].branch_map, 0);     /* all 31 taken */
    CHECK(!k.k[2].has_address);
    CHECK_EQ(k.k[3].format, ET_F1);
    CHECK_EQ(k.k[3].branches, 1);       /* the not-taken exit */
    CHECK_EQ(k.k[3].branch_map, 1);
    CHECK_EQ(k.k[3].address, (0x2000 - 0x1000) >> 1);
    /* the 31st branch is the target of an uninferable jump: its packet
     * carries the full map and the address (branches = 31) */
    n = 0;
    r[n++] = rec(0x1000, 4, 0);
    for (unsigned i = 0; i < 29; i++)
        r[n++] = rec(0x1004, 4, RVT_ITYPE_TAKEN);
    r[n++] = rec(0x1004, 4, RVT_ITYPE_NOT_TAKEN);
    r[n++] = rec(0x1008, 4, RVT_ITYPE_JUMP_UNINF);
    r[n++] = rec(0x3000, 4, RVT_ITYPE_TAKEN);
    r[n++] = rec(0x3100, 4, 0);
    r[n++] = rec(0x3104, 4, 0);
    encode(&p, r, n, &k);
    REQUIRE(k.n >= 4);
    CHECK_EQ(k.k[2].format, ET_F1);
    CHECK_EQ(k.k[2].branches, 31);
    CHECK_EQ(k.k[2].branch_map, 1u << 29); /* the 30th, not taken */
    CHECK(k.k[2].has_address);
    CHECK_EQ(k.k[2].address, (0x3000 - 0x1000) >> 1);
}

/* ---- compression and round trips of every format -------------------------------------- */

static void compression(void)
{
    struct et_bits b;
    memset(&b, 0, sizeof b);
    b.n = 10;
    b.w[0] = 0x3ff; /* all ones: one bit stays */
    CHECK_EQ(et_bits_compressed_len(&b), 1);
    b.w[0] = 0; /* all zeros */
    CHECK_EQ(et_bits_compressed_len(&b), 1);
    b.w[0] = 0x1; /* 0000000001: bits 0..1 */
    CHECK_EQ(et_bits_compressed_len(&b), 2);
    b.w[0] = 0x3fe; /* 1111111110 */
    CHECK_EQ(et_bits_compressed_len(&b), 2);
    b.n = 130;
    memset(b.w, 0xff, sizeof b.w);
    b.w[1] = 0xfffffffffffffffeull; /* bit 64 clear, all above set */
    CHECK_EQ(et_bits_compressed_len(&b), 66);
}

static uint64_t rnd64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t fit(uint64_t v, unsigned w)
{
    return w >= 64 ? v : v & ((1ull << w) - 1);
}

static void roundtrip_all_formats(void)
{
    uint64_t s = 0x1234567;
    unsigned failures = 0;
    for (unsigned iter = 0; iter < 20000 && failures < 5; iter++) {
        struct et_params p;
        et_params_default(&p);
        p.iaddress_width_p = (unsigned)(rnd64(&s) % 2 ? 64 : 32);
        p.iaddress_lsb_p = (unsigned)(rnd64(&s) % 3);
        p.privilege_width_p = 1 + (unsigned)(rnd64(&s) % 3);
        p.context_width_p = (unsigned)(rnd64(&s) % 65);
        p.time_width_p = (unsigned)(rnd64(&s) % 65);
        p.nocontext_p = (unsigned)(rnd64(&s) % 2);
        p.notime_p = (unsigned)(rnd64(&s) % 2);
        p.ecause_width_p = 1 + (unsigned)(rnd64(&s) % 16);
        p.return_stack_size_p = (unsigned)(rnd64(&s) % 4);
        p.call_counter_size_p = p.return_stack_size_p ? 0 : (unsigned)(rnd64(&s) % 4);
        p.cache_size_p = (unsigned)(rnd64(&s) % 6);
        p.f0s_width_p = 1 + (unsigned)(rnd64(&s) % 2);
        p.branch_prediction = true;
        p.jump_target_cache = true;
        p.implicit_except = rnd64(&s) % 4 == 0;
        p.version = rnd64(&s) % 5 == 0 ? ET_V0_026 : ET_V2_0;
        p.notval_p = (unsigned)(rnd64(&s) % 2);
        struct et_packet k;
        memset(&k, 0, sizeof k);
        unsigned aw = et_addr_bits(&p);
        k.format = (uint8_t)(rnd64(&s) % 4);
        k.address = fit(rnd64(&s) >> (rnd64(&s) % 64), aw);
        if (rnd64(&s) % 2)
            k.address = fit(~k.address, aw); /* negative differences */
        k.branches = (uint8_t)(rnd64(&s) % 32);
        unsigned mb = et_map_bits(&p, k.branches, NULL);
        k.branch_map = (uint32_t)fit(rnd64(&s), mb);
        k.notify = (uint8_t)(rnd64(&s) % 2);
        k.updiscon = (uint8_t)(rnd64(&s) % 2);
        k.irreport = (uint8_t)(rnd64(&s) % 2);
        k.irdepth = k.irreport ? (uint32_t)fit(rnd64(&s), et_irdepth_bits(&p)) : 0;
        if (p.version == ET_V0_026) {
            k.subformat = (uint8_t)(rnd64(&s) % 3);
            k.notify = k.updiscon = k.irreport = 0;
            k.irdepth = 0;
        } else if (k.format == ET_F3) {
            k.subformat = (uint8_t)(rnd64(&s) % 4);
        } else if (k.format == ET_F0) {
            k.subformat = (uint8_t)(rnd64(&s) % 2);
        }
        k.branch = (uint8_t)(rnd64(&s) % 2);
        k.privilege = (uint8_t)fit(rnd64(&s), p.privilege_width_p);
        k.time = fit(rnd64(&s), et_time_bits(&p));
        k.context = fit(rnd64(&s), et_ctx_bits(&p));
        k.ecause = (uint32_t)fit(rnd64(&s), p.ecause_width_p);
        k.interrupt = (uint8_t)(rnd64(&s) % 2);
        k.thaddr = (uint8_t)(rnd64(&s) % 2);
        k.tval = fit(rnd64(&s), p.iaddress_width_p);
        k.branch_count = (uint32_t)rnd64(&s);
        k.branch_fmt = (uint8_t)((rnd64(&s) % 3) ? 2 + rnd64(&s) % 2 : 0);
        k.index = (uint32_t)fit(rnd64(&s), p.cache_size_p);
        k.ienable = (uint8_t)(rnd64(&s) % 2);
        k.qual_status = (uint8_t)(rnd64(&s) % 4);
        k.ioptions = (uint32_t)fit(rnd64(&s), p.ioptions_width);
        uint8_t buf[80];
        struct rvt_diag d = {0};
        unsigned full;
        int n = et_pkt_pack(&p, &k, buf, sizeof buf, &full, &d);
        if (n < 0)
            continue; /* e.g. a packet longer than the buffer allows */
        struct et_packet u;
        int rc = et_pkt_unpack(&p, ET_MSG_TE_INST, buf, (size_t)n, (unsigned)n * 8, &u, &d);
        bool ok = rc == 0 && u.format == k.format && u.has_address == k.has_address &&
                  (!k.has_address || u.address == k.address);
        if (ok && k.format == ET_F3 && p.version == ET_V2_0) {
            ok = u.subformat == k.subformat;
            if (k.subformat == ET_SF_START || k.subformat == ET_SF_TRAP)
                ok = ok && u.branch == k.branch && u.privilege == k.privilege && u.time == k.time &&
                     u.context == k.context;
            if (k.subformat == ET_SF_TRAP)
                ok = ok && u.ecause == k.ecause && u.interrupt == k.interrupt && u.thaddr == k.thaddr &&
                     (k.interrupt || u.tval == k.tval);
            if (k.subformat == ET_SF_SUPPORT)
                ok = ok && u.ienable == k.ienable && u.qual_status == k.qual_status && u.ioptions == k.ioptions;
        }
        if (ok && k.format == ET_F1)
            ok = u.branches == k.branches && u.branch_map == k.branch_map;
        if (ok && k.has_status)
            ok = u.notify == k.notify && u.updiscon == k.updiscon;
        if (ok && k.has_ir)
            ok = u.irreport == k.irreport && u.irdepth == k.irdepth;
        if (ok && k.format == ET_F0 && p.version == ET_V2_0) {
            ok = u.subformat == k.subformat;
            if (k.subformat == ET_SF0_BPRED)
                ok = ok && u.branch_count == k.branch_count && u.branch_fmt == k.branch_fmt;
            else
                ok = ok && u.index == k.index && u.branches == k.branches &&
                     (!k.branches || u.branch_map == k.branch_map);
        }
        /* compressed length: never longer than the full packet */
        ok = ok && (unsigned)n * 8 <= ((full + 7) / 8) * 8;
        if (!ok)
            failures++;
        CHECK_MSG(ok, "iteration %u: format %u.%u v%s aw %u: %s", iter, k.format, k.subformat,
                  p.version ? "0.026" : "2.0", aw, rc ? d.msg : "field differs");
    }
}

/* ---- the reference model's golden packets ------------------------------------------------ */

static const char *const configs[] = {"default", "fulladdr", "lsb1", "resync0", "resync3", "nocontext", "combo"};

/* Split a CSV line into fields (in place). */
static unsigned split(char *s, char **f, unsigned max)
{
    unsigned n = 0;
    f[n++] = s;
    for (; *s && n < max; s++)
        if (*s == ',') {
            *s = 0;
            f[n++] = s + 1;
        }
    return n;
}

static void check_field(const char *cfg, unsigned line, const char *name, const char *want, bool present,
                        uint64_t got, bool hex)
{
    if (!strcmp(want, "_")) {
        CHECK_MSG(!present, "%s line %u: %s should be absent", cfg, line, name);
        return;
    }
    CHECK_MSG(present, "%s line %u: %s missing (listing says %s)", cfg, line, name, want);
    uint64_t w = strtoull(want, NULL, hex ? 16 : 10);
    CHECK_MSG(w == got, "%s line %u: %s = 0x%llx, listing says %s", cfg, line, name, (unsigned long long)got, want);
}

static void golden_listing(const char *cfg)
{
    char path[512];
    snprintf(path, sizeof path, "etrace-t1/%s/hw.scf", cfg);
    char *scf = rvt_test_data(path);
    snprintf(path, sizeof path, "etrace-t1/%s/encoder.ucf", cfg);
    char *ucf = rvt_test_data(path);
    snprintf(path, sizeof path, "etrace-t1/%s/t1_%s.te_inst_raw", cfg, cfg);
    char *raw = rvt_test_data(path);
    snprintf(path, sizeof path, "etrace-t1/%s/t1_%s.te_inst.csv", cfg, cfg);
    char *csv = rvt_test_data(path);
    struct et_params p;
    et_params_default(&p);
    struct rvt_diag d = {0};
    CHECK_MSG(et_load_scf(&p, scf, &d) == 0, "%s", d.msg);
    CHECK_MSG(et_load_ucf(&p, ucf, &d) == 0, "%s", d.msg);
    p.framing = ET_FRAME_REFRAW;
    size_t rlen = 0, clen = 0;
    uint8_t *rb = rvt_test_read(raw, &rlen);
    char *cb = (char *)rvt_test_read(csv, &clen);
    if (!rb || !cb)
        goto out;
    cb = realloc(cb, clen + 1);
    cb[clen] = 0;
    struct et_deframer df;
    et_deframer_init(&df, &p, rb, rlen);
    char *save = NULL;
    char *line = strtok_r(cb, "\n", &save); /* header */
    char *hdr[32];
    char hcopy[1024];
    snprintf(hcopy, sizeof hcopy, "%s", line);
    unsigned nh = split(hcopy, hdr, 32);
    unsigned lineno = 1, packets = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        lineno++;
        char *f[32];
        unsigned nf = split(line, f, 32);
        CHECK_EQ(nf, nh);
        struct et_frame fr;
        int rc = et_deframer_next(&df, &fr, &d);
        CHECK_MSG(rc == 1, "%s line %u: no packet in the raw file (%s)", cfg, lineno, d.msg);
        if (rc != 1)
            break;
        struct et_packet k;
        rc = et_pkt_unpack_bits(&p, fr.msg, &fr.bits, &k, &d);
        CHECK_MSG(rc == 0, "%s line %u: %s", cfg, lineno, d.msg);
        packets++;
        bool f3 = k.format == ET_F3;
        bool sync = f3 && (k.subformat == ET_SF_START || k.subformat == ET_SF_TRAP);
        bool support = f3 && k.subformat == ET_SF_SUPPORT;
        for (unsigned i = 0; i < nh; i++) {
            const char *h = hdr[i], *v = f[i];
            if (!strcmp(h, "format"))
                check_field(cfg, lineno, h, v, true, k.format, false);
            else if (!strcmp(h, "subformat"))
                check_field(cfg, lineno, h, v, f3, k.subformat, false);
            else if (!strcmp(h, "address"))
                check_field(cfg, lineno, h, v, k.has_address, k.address, true);
            else if (!strcmp(h, "branch"))
                check_field(cfg, lineno, h, v, sync, k.branch, false);
            else if (!strcmp(h, "branches"))
                check_field(cfg, lineno, h, v, k.format == ET_F1, k.branches, false);
            else if (!strcmp(h, "branch_map"))
                check_field(cfg, lineno, h, v, k.format == ET_F1, k.branch_map, false);
            else if (!strcmp(h, "context"))
                check_field(cfg, lineno, h, v, sync, k.context, false);
            else if (!strcmp(h, "privilege"))
                check_field(cfg, lineno, h, v, sync, k.privilege, false);
            else if (!strcmp(h, "ienable"))
                check_field(cfg, lineno, h, v, support, k.ienable, false);
            else if (!strcmp(h, "encoder_mode"))
                check_field(cfg, lineno, h, v, support, k.encoder_mode, false);
            else if (!strcmp(h, "qual_status"))
                check_field(cfg, lineno, h, v, support, k.qual_status, false);
            else if (!strcmp(h, "ioptions"))
                check_field(cfg, lineno, h, v, support, k.ioptions, false);
            else if (!strcmp(h, "notify"))
                check_field(cfg, lineno, h, v, k.has_status, k.raw_notify, false);
            else if (!strcmp(h, "updiscon"))
                check_field(cfg, lineno, h, v, k.has_status, k.raw_updiscon, false);
            else if (!strcmp(h, "irreport"))
                check_field(cfg, lineno, h, v, k.has_ir, k.raw_irreport, false);
            else if (!strcmp(h, "irdepth"))
                check_field(cfg, lineno, h, v, k.has_ir && et_irdepth_bits(&p), k.raw_irdepth, false);
            /* ecause, interrupt, thaddr, tval, time, branch_count, branch_fmt:
             * absent in these vectors (no traps, notime); denable/dloss/doptions
             * are written after the listing by the model */
            else if (!strcmp(h, "ecause") || !strcmp(h, "interrupt") || !strcmp(h, "thaddr") ||
                     !strcmp(h, "tval") || !strcmp(h, "time") || !strcmp(h, "branch_count") ||
                     !strcmp(h, "branch_fmt"))
                CHECK_MSG(!strcmp(v, "_"), "%s line %u: %s = %s unexpected", cfg, lineno, h, v);
        }
    }
    struct et_frame fr;
    CHECK_MSG(et_deframer_next(&df, &fr, &d) == 0, "%s: raw file has more packets than the listing", cfg);
    CHECK(packets > 400);
out:
    free(rb);
    free(cb);
    free(scf);
    free(ucf);
    free(raw);
    free(csv);
}

int main(void)
{
    example_return();
    example_branch_ret();
    example_three_branches();
    example_complex();
    status_bits();
    full_map();
    compression();
    roundtrip_all_formats();
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        golden_listing(configs[i]);
    return rvt_test_summary("test_et_packet");
}

/* The reference model's "resync" vector (tests/data/etrace-resync): a
 * resynchronisation falls due while a branch is pending and the format 1
 * packet repeats the last reported address.  The spec's notify rule (format
 * 1/2 payload tables: notify differs from address[MSB] only "because a
 * notification was requested via trigger[2]") makes it an ordinary packet:
 * rvtrace must encode the model's bytes exactly, and its decoder must read
 * them and rvtrace 0.1's older stream (the repeat sent as a notification)
 * back to the same 6,528 instructions.
 *
 * The slice's bzip2 build is not bundled; its code is only conditional
 * branches and plain instructions, so the code image is rebuilt from the
 * CSV: a branch at every itype 4/5 address (taken target: the row after a
 * taken one), a nop of the right size elsewhere. */
#include "etrace/etrace.h"
#include "ingress/refcsv.h"
#include "rt.h"
#include "synth.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

struct recs {
    struct rvt_ing_rec *r;
    size_t n, cap;
};

static int put(void *ctx, const struct rvt_ing_rec *r)
{
    struct recs *v = ctx;
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 8192;
        v->r = realloc(v->r, v->cap * sizeof *v->r);
        if (!v->r)
            abort();
    }
    v->r[v->n++] = *r;
    return 0;
}

/* The code image the execution implies (NULL if it is not one the rebuild
 * can express). */
static struct rvt_image *rebuild_image(const struct recs *v)
{
    uint64_t lo = ~0ull, hi = 0;
    for (size_t i = 0; i < v->n; i++) {
        lo = v->r[i].iaddr < lo ? v->r[i].iaddr : lo;
        hi = v->r[i].iaddr > hi ? v->r[i].iaddr : hi;
    }
    size_t size = (size_t)(hi - lo) + 4;
    uint8_t *code = calloc(1, size);
    uint64_t *target = calloc(size, sizeof *target);
    bool ok = code && target;
    for (size_t i = 0; ok && i < v->n; i++) {
        const struct rvt_ing_rec *r = &v->r[i];
        unsigned len = 2u << r->ilastsize;
        uint64_t next = i + 1 < v->n ? v->r[i + 1].iaddr : r->iaddr + len;
        bool branch = r->itype == RVT_ITYPE_TAKEN || r->itype == RVT_ITYPE_NOT_TAKEN;
        ok = r->iretire == len / 2 && (branch || r->itype == RVT_ITYPE_NONE) &&
             (r->itype == RVT_ITYPE_TAKEN || i + 1 == v->n || next == r->iaddr + len) && (!branch || len == 4);
        if (ok && r->itype == RVT_ITYPE_TAKEN)
            target[r->iaddr - lo] = next;
    }
    for (size_t i = 0; ok && i < v->n; i++) {
        const struct rvt_ing_rec *r = &v->r[i];
        size_t at = (size_t)(r->iaddr - lo);
        uint32_t w;
        if (r->itype == RVT_ITYPE_NONE)
            w = r->ilastsize ? enc_addi(0, 0, 0) : 0x0001u; /* nop, c.nop */
        else /* bne a0, a1 to the taken target (any target if never taken) */
            w = enc_branch(1, 10, 11, target[at] ? (int32_t)(target[at] - r->iaddr) : 8);
        for (unsigned b = 0; b < (2u << r->ilastsize); b++)
            code[at + b] = (uint8_t)(w >> (8 * b));
    }
    struct rvt_image *img = NULL;
    if (ok) {
        img = rvt_img_new();
        rvt_img_set_xlen(img, 64);
        if (rvt_img_add_raw(img, lo, code, size, "resync") < 0) {
            rvt_img_free(img);
            img = NULL;
        }
    }
    free(code);
    free(target);
    return img;
}

static void run(void)
{
    char *dir = rvt_test_data("etrace-resync");
    char path[600], scf[600], ucf[600];
    snprintf(path, sizeof path, "%s/resync_itype4.csv", dir);
    snprintf(scf, sizeof scf, "%s/hw.scf", dir);
    snprintf(ucf, sizeof ucf, "%s/encoder.ucf", dir);
    size_t len = 0;
    char *csv = (char *)rvt_test_read(path, &len);
    REQUIRE(csv != NULL);
    struct recs v = {0};
    struct rvt_diag d = {0};
    CHECK_MSG(rvt_refcsv_parse_mem(csv, len, path, put, &v, &d) == 6528, "%s", d.msg);
    free(csv);
    struct rvt_image *img = rebuild_image(&v);
    CHECK_MSG(img != NULL, "the slice is not only branches and plain instructions");
    const char *const opts[] = {"scf", scf, "ucf", ucf, "framing", "refraw", NULL};
    char err[700];
    void *cfg = rt_config(opts, 64, img, err, sizeof err);
    CHECK_MSG(cfg != NULL, "%s", err);
    if (!cfg || !img)
        goto out;

    /* encode: the model's bytes */
    struct rt_result enc = {0};
    CHECK_MSG(rt_encode(cfg, v.r, v.n, &enc, err, sizeof err) == 0, "%s", err);
    snprintf(path, sizeof path, "%s/resync.te_inst_raw", dir);
    size_t glen = 0;
    uint8_t *golden = rvt_test_read(path, &glen);
    REQUIRE(golden != NULL);
    CHECK_EQ(enc.nbytes, glen);
    CHECK_MSG(enc.nbytes == glen && !memcmp(enc.bytes, golden, glen), "not the model's %zu bytes", glen);
    free(golden);
    rt_free(&enc);

    /* decode: the model's stream and rvtrace 0.1's */
    static const char *const files[] = {"resync.te_inst_raw", "resync-rvtrace-0.1.te_inst_raw"};
    for (unsigned f = 0; f < 2; f++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        size_t n = 0;
        uint8_t *raw = rvt_test_read(path, &n);
        if (!raw)
            continue;
        struct rt_result dec = {0};
        CHECK_MSG(rt_decode(cfg, img, -1, raw, n, &dec, err, sizeof err) == 0, "%s: %s", files[f], err);
        size_t at = dec.npcs;
        for (size_t i = 0; i < dec.npcs && i < v.n && at == dec.npcs; i++)
            if (dec.pcs[i] != v.r[i].iaddr)
                at = i;
        CHECK_MSG(dec.npcs == v.n && at == dec.npcs && dec.errors == 0,
                  "%s: %zu of %zu instructions, first difference at #%zu, %u errors %s", files[f], dec.npcs, v.n, at,
                  dec.errors, dec.first_error);
        rt_free(&dec);
        free(raw);
    }
out:
    rvt_codec_cfg_free(cfg);
    rvt_img_free(img);
    free(v.r);
    free(dir);
}

int main(void)
{
    run();
    return rvt_test_summary("test_et_resync");
}

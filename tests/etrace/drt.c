/* Data-trace round-trip helpers (see drt.h). */
#include "drt.h"
#include "etrace/etrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct rvt_codec rvt_codec_etrace;

void drt_free(struct drt_notes *d)
{
    free(d->v);
    free(d->pcs);
    memset(d, 0, sizeof *d);
}

static void push(struct drt_notes *d, uint8_t kind, uint64_t addr, uint64_t value, uint64_t index)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 1024;
        d->v = realloc(d->v, d->cap * sizeof *d->v);
        if (!d->v)
            abort();
    }
    d->v[d->n++] = (struct drt_note){.index = index, .addr = addr, .value = value, .kind = kind};
}

static uint64_t mask_bytes(unsigned n)
{
    return n >= 8 ? ~0ull : (1ull << (8 * n)) - 1;
}

int drt_expect(const void *cfgp, const struct rvt_ing_rec *recs, size_t n, const struct rvt_image *img,
               struct drt_notes *out)
{
    const struct et_params *p = &((const struct et_config *)cfgp)->p;
    const struct et_dparams *d = &p->d;
    struct rvt_bcache *bc = rvt_bcache_new(img, 0);
    uint64_t index = 0;
    unsigned classes = et_dclasses(d); /* (what the options and the hart's dtype_width_p allow) */
    const bool only = d->mode == ET_DATA_ONLY; /* accesses without instructions */
    for (size_t i = 0; i < n; i++) {
        const struct rvt_ing_rec *r = &recs[i];
        if (!r->iretire && !only)
            continue;
        if (p->priv_mask && r->priv < 32 && !((p->priv_mask >> r->priv) & 1u))
            continue; /* not traced (the privilege filter): not decoded either */
        uint64_t k = 1;
        if (r->iretire && r->iretire != 1u << r->ilastsize && rvt_ing_count_insns(r, bc, &k) < 0) {
            rvt_bcache_free(bc);
            return -1;
        }
        index += k;
        int t = rvt_ing_dtype(r);
        if (t < 0 || (r->flags & RVT_ING_UNQUALIFIED))
            continue;
        unsigned cls = t == RVT_DTYPE_LOAD ? ET_DCL_LOAD
                       : t == RVT_DTYPE_STORE || t == RVT_DTYPE_SC_FAIL ? ET_DCL_STORE
                       : t >= 4 && t <= 6 ? ET_DCL_CSR
                                          : ET_DCL_ATOMIC;
        uint64_t pc = r->iretire ? rvt_ing_last_addr(r) : r->iaddr;
        if (!(classes & cls))
            continue;
        if (d->n_ranges) {
            bool in = false;
            for (unsigned j = 0; j < d->n_ranges; j++)
                in |= pc >= d->range_lo[j] && pc <= d->range_hi[j];
            if (!in)
                continue;
        }
        uint64_t at = only || d->n_dranges ? UINT64_MAX : index - 1, a = r->mem_addr;
        if (d->n_dranges && cls != ET_DCL_CSR) {
            bool in = false; /* (the data-address filter: accesses the decoder cannot tie) */
            for (unsigned j = 0; j < d->n_dranges; j++)
                in |= a >= d->drange_lo[j] && a <= d->drange_hi[j];
            if (!in)
                continue;
        }
        unsigned bytes = r->mem_size ? r->mem_size : p->xlen / 8;
        uint64_t v = r->mem_value & mask_bytes(bytes), op = r->mem_operand & mask_bytes(bytes);
        bool addr = !d->no_address, data = !d->no_data;
        if (cls == ET_DCL_CSR) {
            push(out, RVT_DATA_CSR_ADDR, a, a, at);
            if (data) {
                push(out, RVT_DATA_CSR_VALUE, a, v, at);
                if (((a >> 10) & 3) != 3)
                    push(out, RVT_DATA_OPERAND, a, op, at);
            }
        } else if (t == RVT_DTYPE_SC_FAIL) {
            push(out, RVT_DATA_SC_FAIL, addr ? a : 0, addr ? a : 0, at);
            if (data)
                push(out, RVT_DATA_OPERAND, addr ? a : 0, op, at);
        } else {
            bool load = t == RVT_DTYPE_LOAD;
            uint64_t na = addr ? a : 0;
            if (addr)
                push(out, load ? RVT_DATA_LOAD_ADDR : RVT_DATA_STORE_ADDR, na, a, at);
            if (data)
                push(out, load ? RVT_DATA_LOAD_VALUE : RVT_DATA_STORE_VALUE, na, v, at);
            if (data && cls == ET_DCL_ATOMIC)
                push(out, RVT_DATA_OPERAND, na, op, at);
        }
    }
    rvt_bcache_free(bc);
    return 0;
}

struct dctx {
    struct drt_notes *out;
    struct rvt_bcache *bc;
    unsigned xlen;
};

static int on_pc(void *ctx, uint64_t pc, const struct rvt_block *b)
{
    (void)b;
    struct drt_notes *r = ctx;
    if (r->npcs == r->pcap) {
        r->pcap = r->pcap ? r->pcap * 2 : 4096;
        r->pcs = realloc(r->pcs, r->pcap * sizeof *r->pcs);
        if (!r->pcs)
            abort();
    }
    r->pcs[r->npcs++] = pc;
    return 0;
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct dctx *c = ctx;
    return rvt_block_insns(c->bc, c->xlen, b, on_pc, c->out) < 0 ? 1 : 0;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct dctx *c = ctx;
    struct drt_notes *r = c->out;
    if (n->kind == RVT_NOTE_ERROR) {
        if (!r->errors)
            snprintf(r->first_error, sizeof r->first_error, "offset 0x%" PRIx64 ": %s", n->offset,
                     n->text ? n->text : "?");
        r->errors++;
    } else if (n->kind == RVT_NOTE_GAP) {
        r->gaps++;
    } else if (n->kind == RVT_NOTE_DATA) {
        if (n->reason == RVT_DATA_LOST) {
            if (!r->lost)
                snprintf(r->first_lost, sizeof r->first_lost, "instruction %" PRIu64 " at 0x%" PRIx64 ": %s",
                         n->index, n->addr, n->text ? n->text : "?");
            r->lost++;
        } else {
            push(r, n->reason, n->addr, n->value, n->index);
        }
    }
    return 0;
}

int drt_decode(const void *cfg, const struct rvt_image *img, int ecall, const uint8_t *buf, size_t len,
               struct drt_notes *out, char *err, size_t errlen)
{
    struct dctx c = {out, rvt_bcache_new(img, 0), rvt_img_xlen(img)};
    struct rvt_flow_sink sink = {.block = on_block, .note = on_note, .ctx = &c};
    struct rvt_diag d = {0};
    int rc = rvt_decode_buffer(&rvt_codec_etrace, cfg, img, ecall, buf, len, &sink, &d);
    rvt_bcache_free(c.bc);
    if (rc < 0) {
        snprintf(err, errlen, "decode: %s", d.msg);
        return -1;
    }
    return 0;
}

size_t drt_compare(const struct drt_notes *got, const struct drt_notes *want, char *why, size_t whylen)
{
    size_t n = got->n < want->n ? got->n : want->n;
    for (size_t i = 0; i < n; i++) {
        const struct drt_note *g = &got->v[i], *w = &want->v[i];
        if (g->kind != w->kind || g->value != w->value || g->index != w->index || g->addr != w->addr) {
            snprintf(why, whylen,
                     "note #%zu: got kind %u addr 0x%" PRIx64 " value 0x%" PRIx64 " instruction %" PRIu64
                     ", expected kind %u addr 0x%" PRIx64 " value 0x%" PRIx64 " instruction %" PRIu64,
                     i, g->kind, g->addr, g->value, g->index, w->kind, w->addr, w->value, w->index);
            return i;
        }
    }
    if (got->n != want->n) {
        snprintf(why, whylen, "%zu notes decoded, %zu expected", got->n, want->n);
        return n;
    }
    return got->n;
}

/* Trace funnel (TCI chapter "Trace Funnel"): several packet sources into
 * one sink, whole packets at a time, with per-input disable; and the split
 * of a merged stream back into per-source streams. */
#include "sink/sink_internal.h"

#include <stdlib.h>
#include <string.h>

enum {
    FUNNEL_CONTROL = 0x000,
    FUNNEL_IMPL = 0x004,
    FUNNEL_DIS_INPUT = 0x008
};

struct funnel_input {
    struct rvt_funnel *f;
    unsigned idx;
    /* FIFO: payload bytes in a ring, packet lengths in a second ring. */
    uint8_t *data;
    size_t head, used;
    uint32_t *lens;
    size_t lcap, lhead, lcount;
    struct rvt_funnel_input_stats st;
};

struct rvt_funnel {
    unsigned n;
    struct rvt_byte_sink out;
    size_t fifo;
    bool has_dis;
    uint8_t impl_vendor;
    bool active, enabled;
    uint16_t dis;
    unsigned rr;              /* next input the arbiter serves */
    uint8_t *scratch;         /* a packet that wraps around its ring */
    size_t scratch_cap;
    struct funnel_input in[RVT_FUNNEL_MAX_INPUTS];
};

static long null_write(void *ctx, const uint8_t *p, size_t n)
{
    (void)ctx;
    (void)p;
    (void)n;
    return 0;
}

static long input_write(void *ctx, const uint8_t *p, size_t n)
{
    struct funnel_input *in = ctx;
    struct rvt_funnel *f = in->f;
    if (!f->active || !f->enabled) {
        in->st.refused += n;
        return 0;
    }
    if (f->dis >> in->idx & 1) {
        /* "Incoming messages are read from disabled input but discarded." */
        in->st.discarded += n;
        return (long)n;
    }
    if (!n)
        return 0;
    if (!f->fifo) {
        long r = f->out.write(f->out.ctx, p, n);
        if (r < 0)
            return r;
        in->st.packets++;
        in->st.bytes += n;
        in->st.lost_downstream += n - (size_t)r;
        return r;
    }
    /* A packet that does not fit is refused whole: partial packets are
     * never sent. */
    if (n > f->fifo - in->used || n > UINT32_MAX) {
        in->st.refused += n;
        return 0;
    }
    if (in->lcount == in->lcap) {
        size_t nc = in->lcap ? in->lcap * 2 : 16;
        uint32_t *nl = malloc(nc * sizeof *nl);
        if (!nl)
            return -RVT_ERR_NOMEM;
        for (size_t i = 0; i < in->lcount; i++)
            nl[i] = in->lens[(in->lhead + i) % in->lcap];
        free(in->lens);
        in->lens = nl;
        in->lcap = nc;
        in->lhead = 0;
    }
    in->lens[(in->lhead + in->lcount) % in->lcap] = (uint32_t)n;
    in->lcount++;
    size_t tail = (in->head + in->used) % f->fifo;
    size_t n1 = n < f->fifo - tail ? n : f->fifo - tail;
    memcpy(in->data + tail, p, n1);
    memcpy(in->data, p + n1, n - n1);
    in->used += n;
    in->st.packets++;
    in->st.bytes += n;
    in->st.queued = in->used;
    return (long)n;
}

int rvt_funnel_new(const struct rvt_funnel_config *cfg, struct rvt_funnel **out, struct rvt_diag *diag)
{
    *out = NULL;
    if (!cfg || cfg->size < sizeof *cfg)
        return rvt_fail(diag, RVT_ERR_INVAL, "funnel: config size %zu, expected %zu", cfg ? cfg->size : 0,
                        sizeof *cfg);
    if (cfg->n_inputs < 1 || cfg->n_inputs > RVT_FUNNEL_MAX_INPUTS)
        return rvt_fail(diag, RVT_ERR_INVAL, "funnel: %u inputs, expected 1..%d (trFunnelDisInput has 16 bits)",
                        cfg->n_inputs, RVT_FUNNEL_MAX_INPUTS);
    struct rvt_funnel *f = calloc(1, sizeof *f);
    if (!f)
        return rvt_fail(diag, RVT_ERR_NOMEM, "funnel: out of memory");
    f->n = cfg->n_inputs;
    f->fifo = cfg->fifo_bytes;
    f->has_dis = !cfg->no_dis_input;
    f->impl_vendor = cfg->impl_vendor;
    f->dis = f->has_dis ? cfg->dis_input & (uint16_t)((1u << f->n) - 1) : 0;
    f->active = f->enabled = !cfg->power_on_reset;
    rvt_funnel_set_output(f, &cfg->out);
    for (unsigned i = 0; i < f->n; i++) {
        f->in[i].f = f;
        f->in[i].idx = i;
        if (f->fifo) {
            f->in[i].data = malloc(f->fifo);
            if (!f->in[i].data) {
                rvt_funnel_free(f);
                return rvt_fail(diag, RVT_ERR_NOMEM, "funnel: out of memory for %u FIFOs of %zu bytes", f->n,
                                f->fifo);
            }
        }
    }
    *out = f;
    return 0;
}

void rvt_funnel_free(struct rvt_funnel *f)
{
    if (!f)
        return;
    for (unsigned i = 0; i < f->n; i++) {
        free(f->in[i].data);
        free(f->in[i].lens);
    }
    free(f->scratch);
    free(f);
}

void rvt_funnel_set_output(struct rvt_funnel *f, const struct rvt_byte_sink *out)
{
    if (out && out->write) {
        f->out = *out;
    } else {
        f->out.write = null_write;
        f->out.ctx = NULL;
    }
}

struct rvt_byte_sink rvt_funnel_input(struct rvt_funnel *f, unsigned i)
{
    struct rvt_byte_sink s = {null_write, NULL};
    if (i < f->n) {
        s.write = input_write;
        s.ctx = &f->in[i];
    }
    return s;
}

/* Send input i's oldest packet downstream.  Returns its length or <0. */
static long forward_one(struct rvt_funnel *f, struct funnel_input *in)
{
    size_t n = in->lens[in->lhead];
    in->lhead = (in->lhead + 1) % in->lcap;
    in->lcount--;
    const uint8_t *p = in->data + in->head;
    if (in->head + n > f->fifo) {
        if (f->scratch_cap < n) {
            uint8_t *ns = realloc(f->scratch, n);
            if (!ns)
                return -RVT_ERR_NOMEM;
            f->scratch = ns;
            f->scratch_cap = n;
        }
        size_t n1 = f->fifo - in->head;
        memcpy(f->scratch, p, n1);
        memcpy(f->scratch + n1, in->data, n - n1);
        p = f->scratch;
    }
    in->head = (in->head + n) % f->fifo;
    in->used -= n;
    in->st.queued = in->used;
    long r = f->out.write(f->out.ctx, p, n);
    if (r < 0)
        return r;
    in->st.lost_downstream += n - (size_t)r;
    return (long)n;
}

long rvt_funnel_drain(struct rvt_funnel *f, size_t budget)
{
    if (!f->fifo)
        return 0;
    size_t sent = 0;
    for (;;) {
        bool any = false;
        for (unsigned k = 0; k < f->n; k++) {
            struct funnel_input *in = &f->in[f->rr];
            f->rr = (f->rr + 1) % f->n;
            if (!in->lcount)
                continue;
            any = true;
            long r = forward_one(f, in);
            if (r < 0)
                return r;
            sent += (size_t)r;
            if (budget && sent >= budget)
                return (long)sent;
        }
        if (!any)
            return (long)sent;
    }
}

int rvt_funnel_flush(struct rvt_funnel *f)
{
    long r = rvt_funnel_drain(f, 0);
    return r < 0 ? (int)r : 0;
}

int rvt_funnel_input_stats(const struct rvt_funnel *f, unsigned i, struct rvt_funnel_input_stats *st)
{
    if (i >= f->n)
        return -RVT_ERR_INVAL;
    *st = f->in[i].st;
    return 0;
}

static bool all_empty(const struct rvt_funnel *f)
{
    for (unsigned i = 0; i < f->n; i++)
        if (f->in[i].used)
            return false;
    return true;
}

unsigned rvt_funnel_n_inputs(const struct rvt_funnel *f)
{
    return f->n;
}

int rvt_funnel_reg_read(struct rvt_funnel *f, uint32_t off, uint32_t *val)
{
    *val = 0;
    if (off % 4 || off >= 0x1000)
        return -RVT_ERR_INVAL;
    if (off == FUNNEL_CONTROL) {
        *val = (uint32_t)f->active | (uint32_t)f->enabled << 1 | (uint32_t)all_empty(f) << 3;
        return 0;
    }
    if (!f->active)
        return 0;
    if (off == FUNNEL_IMPL)
        *val = 1u | 0u << 4 | (uint32_t)RVT_TCI_FUNNEL << 8 | (uint32_t)f->impl_vendor << 24;
    else if (off == FUNNEL_DIS_INPUT)
        *val = f->dis;
    return 0;
}

int rvt_funnel_reg_write(struct rvt_funnel *f, uint32_t off, uint32_t val)
{
    if (off % 4 || off >= 0x1000)
        return -RVT_ERR_INVAL;
    if (off == FUNNEL_CONTROL) {
        bool act = val & 1, en = (val >> 1) & 1;
        if (!f->active) {
            if (act) {
                f->active = true; /* out of reset: enable stays 0 */
                f->enabled = false;
            }
            return 0;
        }
        if (!act || (f->enabled && !en)) {
            /* "Setting trFunnelEnable to 0 flushes any queued trace data". */
            long r = rvt_funnel_drain(f, 0);
            if (r < 0)
                return (int)r;
        }
        f->active = act;
        f->enabled = act && en;
        return 0;
    }
    if (!f->active)
        return 0;
    if (off == FUNNEL_DIS_INPUT && f->has_dis)
        f->dis = (uint16_t)(val & ((1u << f->n) - 1)); /* only existing inputs can be disabled */
    return 0;
}

/* ---- split ------------------------------------------------------------------ */

int rvt_split(const uint8_t *buf, size_t len, const struct rvt_split_config *cfg, struct rvt_split_stats *st,
              struct rvt_diag *diag)
{
    struct rvt_split_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    if (!cfg || cfg->size < sizeof *cfg || !cfg->classify || !cfg->deliver)
        return rvt_fail(diag, RVT_ERR_INVAL, "split: config without classify/deliver");
    size_t pos = 0;
    while (pos < len) {
        struct rvt_split_item it = {0, 0, RVT_SPLIT_PACKET};
        int rc = cfg->classify(cfg->classify_ctx, buf + pos, len - pos, pos, &it);
        if (rc < 0)
            return rvt_fail(diag, (enum rvt_err)-rc, "split: offset 0x%zx: classifier failed (%s)", pos,
                            rvt_errstr(rc));
        if (it.len == 0)
            return rvt_fail(diag, RVT_ERR_INVAL, "split: offset 0x%zx: classifier returned an empty item", pos);
        size_t avail = len - pos;
        size_t n = it.len < avail ? it.len : avail;
        switch (it.kind) {
        case RVT_SPLIT_PACKET:
            rc = cfg->deliver(cfg->deliver_ctx, it.src, pos, buf + pos, n);
            if (rc < 0)
                return rvt_fail(diag, (enum rvt_err)-rc, "split: offset 0x%zx: delivering a packet of source %u failed",
                                pos, it.src);
            if (it.len > avail)
                st->truncated_bytes += n;
            else
                st->packets++;
            st->packet_bytes += n;
            break;
        case RVT_SPLIT_FILLER:
            st->filler_bytes += n;
            break;
        default:
            st->garbage_bytes += n;
            break;
        }
        pos += n;
    }
    return 0;
}

int rvt_split_deliver_membufs(void *ctx, uint32_t src, uint64_t off, const uint8_t *p, size_t n)
{
    struct rvt_split_bufs *b = ctx;
    (void)off;
    if (src >= b->n) {
        b->unrouted_bytes += n;
        return 0;
    }
    return rvt_membuf_append(&b->bufs[src], p, n);
}

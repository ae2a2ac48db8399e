/* Segments: a trace cut at its synchronisation points into pieces that
 * decode independently (docs/parallel.md).  The family finds the points
 * with its decoder's own unit reader (struct rvt_codec.sync_points); this
 * file only groups them. */
#include "rvtrace/codec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct collect {
    struct rvt_sync_point *v;
    size_t n, cap;
};

static int collect(void *ctx, const struct rvt_sync_point *sp)
{
    struct collect *c = ctx;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        struct rvt_sync_point *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return -RVT_ERR_NOMEM;
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = *sp;
    return 0;
}

int rvt_segments(const struct rvt_codec *c, const void *cfg, const uint8_t *buf, size_t len, uint64_t min_bytes,
                 struct rvt_trace_segment **out, size_t *n, struct rvt_diag *d)
{
    *out = NULL;
    *n = 0;
    if (!len)
        return 0;
    struct collect pts = {0};
    if (c->sync_points && c->dec_run_segment) {
        int rc = c->sync_points(cfg, buf, len, 0, collect, &pts, d);
        if (rc < 0) {
            free(pts.v);
            return rc == -RVT_ERR_NOMEM && !d->code ? rvt_fail(d, RVT_ERR_NOMEM, "segments: out of memory") : rc;
        }
    }
    struct rvt_trace_segment *seg = calloc(pts.n ? pts.n : 1, sizeof *seg);
    if (!seg) {
        free(pts.v);
        return rvt_fail(d, RVT_ERR_NOMEM, "segments: out of memory");
    }
    size_t k = 0;
    seg[0].offset = 0;
    seg[0].end = len;
    if (pts.n)
        seg[0].sync = pts.v[0];
    else
        seg[0].sync = (struct rvt_sync_point){.unit = NULL, .needs = NULL}; /* none found: the whole trace */
    /* Each later sync point starts a segment once the open one is long
     * enough. */
    for (size_t i = 1; i < pts.n; i++) {
        if (pts.v[i].offset <= seg[k].offset || pts.v[i].offset >= len)
            continue; /* (a family lists them in order; be safe) */
        if (pts.v[i].offset - seg[k].offset < min_bytes)
            continue;
        seg[k].end = pts.v[i].offset;
        k++;
        seg[k].offset = pts.v[i].offset;
        seg[k].end = len;
        seg[k].sync = pts.v[i];
    }
    /* A last piece shorter than min_bytes joins the one before it. */
    if (k > 0 && min_bytes && seg[k].end - seg[k].offset < min_bytes) {
        seg[k - 1].end = seg[k].end;
        k--;
    }
    free(pts.v);
    *out = seg;
    *n = k + 1;
    return 0;
}

/* The first sync point at or after a byte. */
struct first {
    bool found;
    struct rvt_sync_point sp;
};

static int first_point(void *ctx, const struct rvt_sync_point *sp)
{
    struct first *f = ctx;
    f->found = true;
    f->sp = *sp;
    return 1; /* stop */
}

int rvt_segment_range(const struct rvt_codec *c, const void *cfg, const uint8_t *buf, size_t len, uint64_t from,
                      uint64_t to, struct rvt_trace_segment *out, struct rvt_diag *d)
{
    if (from >= to || to > len)
        return rvt_fail(d, RVT_ERR_INVAL, "segment %" PRIu64 "..%" PRIu64 ": expected OFFSET < END <= %zu", from, to,
                        len);
    memset(out, 0, sizeof *out);
    out->offset = from;
    out->end = to;
    if (!c->sync_points || !c->dec_run_segment) {
        if (from != 0 || to != len)
            return rvt_fail(d, RVT_ERR_UNSUPPORTED, "%s traces are not decoded in segments: the only one is 0..%zu",
                            c->name, len);
        return 0;
    }
    /* Each end must be where the family's own listing puts a sync point
     * when it reads on from there. */
    struct first a = {0}, b = {0};
    int rc = c->sync_points(cfg, buf, len, (size_t)from, first_point, &a, d);
    if (rc < 0)
        return rc;
    if (from != 0 && (!a.found || a.sp.offset != from)) {
        if (a.found)
            return rvt_fail(d, RVT_ERR_INVAL,
                            "no segment starts at byte %" PRIu64
                            " (a segment starts at 0 or at a synchronisation point; the next one is at byte %" PRIu64 ")",
                            from, a.sp.offset);
        return rvt_fail(d, RVT_ERR_INVAL,
                        "no segment starts at byte %" PRIu64 " (a segment starts at 0 or at a synchronisation point; "
                        "there is none after it)",
                        from);
    }
    out->sync = a.found ? a.sp : (struct rvt_sync_point){0};
    if (to == len)
        return 0;
    if ((rc = c->sync_points(cfg, buf, len, (size_t)to, first_point, &b, d)) < 0)
        return rc;
    if (!b.found || b.sp.offset != to)
        return rvt_fail(d, RVT_ERR_INVAL,
                        "no segment ends at byte %" PRIu64 " (a segment ends at the next synchronisation point or at "
                        "the end, %zu bytes)",
                        to, len);
    return 0;
}

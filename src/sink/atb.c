/* ATB bridge: bytes of several trace sources in CoreSight formatter frames
 * (16 bytes, 7-bit trace IDs), written and read back.
 *
 * Frame layout: bytes 0..14 carry data or ID changes, byte 15 is the
 * auxiliary byte.  Even byte 2k (k = 0..7): bit 0 = 1 -> ID change, new ID
 * in bits 7:1, and aux bit k = 1 says the following byte (2k+1) still
 * belongs to the previous ID; bit 0 = 0 -> data, bits 7:1 are the data
 * bits 7:1 and aux bit k is data bit 0.  Odd bytes are always data. */
#include "sink/sink_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t FSYNC[4] = {0xFF, 0xFF, 0xFF, 0x7F}; /* 0x7FFFFFFF, LSB first */
#define ID_NONE 0xFFu /* writer: no ID stated yet */

struct atb_port {
    struct rvt_atb_writer *w;
    unsigned id;
};

struct rvt_atb_writer {
    struct rvt_diag diag;
    struct rvt_byte_sink out;
    bool fsync_at_start;
    unsigned fsync_period, id_repeat;
    /* Bytes waiting to be framed, with their IDs. */
    uint8_t *qid, *qb;
    size_t qhead, qlen, qcap;
    unsigned cur;             /* ID in force at the end of the last frame */
    unsigned frames_since_id;
    bool restate;             /* the next frame must state the ID (after a sync) */
    struct rvt_atb_writer_stats st;
    struct atb_port ports[RVT_ATB_ID_MAX + 1];
};

int rvt_atb_writer_new(const struct rvt_atb_writer_config *cfg, struct rvt_atb_writer **out, struct rvt_diag *diag)
{
    *out = NULL;
    if (!cfg || cfg->size < sizeof *cfg || !cfg->out.write)
        return rvt_fail(diag, RVT_ERR_INVAL, "atb writer: config size %zu (expected %zu) or no output",
                        cfg ? cfg->size : 0, sizeof *cfg);
    struct rvt_atb_writer *w = calloc(1, sizeof *w);
    if (!w)
        return rvt_fail(diag, RVT_ERR_NOMEM, "atb writer: out of memory");
    w->out = cfg->out;
    w->fsync_at_start = cfg->fsync_at_start != 0;
    w->fsync_period = cfg->fsync_period;
    w->id_repeat = cfg->id_repeat_frames;
    w->cur = ID_NONE;
    for (unsigned i = 0; i <= RVT_ATB_ID_MAX; i++) {
        w->ports[i].w = w;
        w->ports[i].id = i;
    }
    *out = w;
    return 0;
}

void rvt_atb_writer_free(struct rvt_atb_writer *w)
{
    if (!w)
        return;
    free(w->qid);
    free(w->qb);
    free(w);
}

const char *rvt_atb_writer_error(const struct rvt_atb_writer *w)
{
    return w->diag.msg;
}

void rvt_atb_writer_stats(const struct rvt_atb_writer *w, struct rvt_atb_writer_stats *st)
{
    *st = w->st;
}

static int emit(struct rvt_atb_writer *w, const uint8_t *p, size_t n)
{
    long r = w->out.write(w->out.ctx, p, n);
    if (r < 0)
        return rvt_fail(&w->diag, (enum rvt_err)-r, "atb writer: output failed after %" PRIu64 " frames (%s)",
                        w->st.frames, rvt_errstr((int)r));
    w->st.lost += n - (size_t)r;
    return 0;
}

/* Build and write one frame from the queue; with fewer than 16 bytes
 * queued (only when flushing) the frame is completed with null-ID padding. */
static int write_frame(struct rvt_atb_writer *w)
{
    uint8_t buf[4 + RVT_ATB_FRAME];
    size_t o = 0;
    uint64_t idx = w->st.frames;
    if ((idx == 0 && w->fsync_at_start) || (w->fsync_period && idx % w->fsync_period == 0)) {
        memcpy(buf, FSYNC, 4);
        o = 4;
        w->st.fsyncs++;
        w->restate = true; /* a decoder starting at this sync learns the ID at once */
    }
    uint8_t *fr = buf + o, aux = 0;
    const uint8_t *qid = w->qid + w->qhead, *qb = w->qb + w->qhead;
    size_t avail = w->qlen, used = 0;
    bool force = w->restate || (w->id_repeat && w->frames_since_id >= w->id_repeat);
    bool had_id = false;
    unsigned cur = w->cur;
    for (unsigned k = 0; k < 8; k++) {
        unsigned pos = 2 * k;
        bool last = k == 7; /* byte 14 has no partner: byte 15 is aux */
        size_t left = avail - used;
        if (!left) {
            /* Padding: switch to the null ID, then null data. */
            if (cur != RVT_ATB_ID_NULL) {
                fr[pos] = (uint8_t)(RVT_ATB_ID_NULL << 1 | 1);
                cur = RVT_ATB_ID_NULL;
                had_id = true;
            } else {
                fr[pos] = 0;
                w->st.pad_bytes++;
            }
            if (!last) {
                fr[pos + 1] = 0;
                w->st.pad_bytes++;
            }
            continue;
        }
        unsigned a = qid[used];
        if (a != cur || (force && k == 0)) {
            /* ID change; the following byte belongs to the new ID. */
            fr[pos] = (uint8_t)(a << 1 | 1);
            if (a != cur)
                w->st.id_changes++;
            cur = a;
            had_id = true;
            if (!last) {
                fr[pos + 1] = qb[used++];
                w->st.data_bytes++;
            }
            continue;
        }
        if (last) {
            fr[pos] = qb[used] & 0xFE;
            aux |= (uint8_t)((qb[used] & 1) << k);
            used++;
            w->st.data_bytes++;
            continue;
        }
        if (left >= 2 && qid[used + 1] == cur) {
            fr[pos] = qb[used] & 0xFE;
            aux |= (uint8_t)((qb[used] & 1) << k);
            fr[pos + 1] = qb[used + 1];
            used += 2;
            w->st.data_bytes += 2;
            continue;
        }
        /* One byte left for the current ID: state the next ID (or the null
         * ID when nothing follows) with the "previous ID" flag so that byte
         * still goes to the current one. */
        unsigned next = left >= 2 ? qid[used + 1] : RVT_ATB_ID_NULL;
        fr[pos] = (uint8_t)(next << 1 | 1);
        aux |= (uint8_t)(1u << k);
        fr[pos + 1] = qb[used++];
        w->st.data_bytes++;
        if (next != RVT_ATB_ID_NULL)
            w->st.id_changes++;
        cur = next;
        had_id = true;
    }
    fr[15] = aux;
    w->cur = cur;
    w->qhead += used;
    w->qlen -= used;
    w->restate = false;
    w->frames_since_id = had_id ? 0 : w->frames_since_id + 1;
    w->st.frames++;
    return emit(w, buf, o + RVT_ATB_FRAME);
}

int rvt_atb_write(struct rvt_atb_writer *w, unsigned id, const uint8_t *p, size_t n)
{
    if (id < 1 || id > RVT_ATB_ID_MAX)
        return rvt_fail(&w->diag, RVT_ERR_INVAL, "atb writer: trace ID 0x%x, expected 0x01..0x%02x", id,
                        RVT_ATB_ID_MAX);
    if (!n)
        return 0;
    /* Make room: compact, then grow. */
    if (w->qhead && w->qhead + w->qlen + n > w->qcap) {
        memmove(w->qid, w->qid + w->qhead, w->qlen);
        memmove(w->qb, w->qb + w->qhead, w->qlen);
        w->qhead = 0;
    }
    if (w->qlen + n > w->qcap) {
        size_t nc = w->qcap ? w->qcap : 256;
        while (nc < w->qlen + n)
            nc *= 2;
        uint8_t *ni = realloc(w->qid, nc);
        if (!ni)
            return rvt_fail(&w->diag, RVT_ERR_NOMEM, "atb writer: out of memory");
        w->qid = ni;
        uint8_t *nb = realloc(w->qb, nc);
        if (!nb)
            return rvt_fail(&w->diag, RVT_ERR_NOMEM, "atb writer: out of memory");
        w->qb = nb;
        w->qcap = nc;
    }
    memset(w->qid + w->qhead + w->qlen, (int)id, n);
    memcpy(w->qb + w->qhead + w->qlen, p, n);
    w->qlen += n;
    /* A frame is decided only with one byte of look-ahead past it. */
    while (w->qlen >= RVT_ATB_FRAME) {
        int rc = write_frame(w);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static long port_write(void *ctx, const uint8_t *p, size_t n)
{
    struct atb_port *pt = ctx;
    int rc = rvt_atb_write(pt->w, pt->id, p, n);
    return rc < 0 ? rc : (long)n;
}

struct rvt_byte_sink rvt_atb_writer_input(struct rvt_atb_writer *w, unsigned id)
{
    struct rvt_byte_sink s = {port_write, NULL};
    if (id >= 1 && id <= RVT_ATB_ID_MAX)
        s.ctx = &w->ports[id];
    else
        s.ctx = &w->ports[0]; /* ID 0 is refused by rvt_atb_write */
    return s;
}

int rvt_atb_writer_flush(struct rvt_atb_writer *w)
{
    while (w->qlen) {
        int rc = write_frame(w);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- reader ----------------------------------------------------------------------- */

struct atb_reader {
    const struct rvt_atb_reader_config *cfg;
    struct rvt_atb_read_stats *st;
    struct rvt_diag *diag;
    unsigned cur;             /* current ID; 0 also for "unknown" (see cur_known) */
    bool cur_known;
    /* The run of bytes of the current ID inside the frame. */
    uint8_t run[RVT_ATB_FRAME];
    unsigned nrun;
    uint64_t frame_off;
    int rc;
};

/* Count an error; the first one is kept in the diagnostic. */
static void fail_once(struct atb_reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void fail_once(struct atb_reader *r, const char *fmt, ...)
{
    r->st->errors++;
    if (!r->rc) {
        va_list ap;
        va_start(ap, fmt);
        r->rc = rvt_vfail(r->diag, RVT_ERR_FORMAT, fmt, ap);
        va_end(ap);
    }
}

static int flush_run(struct atb_reader *r)
{
    if (!r->nrun)
        return 0;
    unsigned n = r->nrun;
    r->nrun = 0;
    if (!r->cur_known) {
        r->st->unknown_bytes += n;
    } else if (r->cur == RVT_ATB_ID_NULL) {
        r->st->null_bytes += n;
    } else if (r->cur > RVT_ATB_ID_MAX) {
        r->st->reserved_bytes += n;
    } else {
        r->st->data_bytes += n;
        if (r->cfg->deliver) {
            int rc = r->cfg->deliver(r->cfg->ctx, r->cur, r->frame_off, r->run, n);
            if (rc < 0)
                return rvt_fail(r->diag, (enum rvt_err)-rc, "atb reader: offset 0x%" PRIx64 ": delivering ID 0x%02x failed",
                                r->frame_off, r->cur);
        }
    }
    return 0;
}

static int set_id(struct atb_reader *r, unsigned id)
{
    if (r->cur_known && id == r->cur)
        return 0;
    int rc = flush_run(r);
    r->cur = id;
    r->cur_known = true;
    return rc;
}

static int unpack(struct atb_reader *r, const uint8_t *fr)
{
    uint8_t aux = fr[15];
    /* An ID of 0x7F cannot occur (it is what syncs look like): the frame is
     * corrupt or misaligned. */
    for (unsigned k = 0; k < 8; k++) {
        if ((fr[2 * k] & 1) && fr[2 * k] >> 1 == 0x7F) {
            fail_once(r, "atb reader: offset 0x%" PRIx64 ": ID byte 0x7f at frame byte %u"
                      " (corrupt or misaligned frame; dropped)",
                      r->frame_off, 2 * k);
            r->st->skipped_bytes += RVT_ATB_FRAME;
            r->cur_known = false;
            return 0;
        }
    }
    r->st->frames++;
    for (unsigned k = 0; k < 8; k++) {
        uint8_t b = fr[2 * k];
        bool ab = aux >> k & 1, last = k == 7;
        int rc = 0;
        if (b & 1) {
            unsigned id = b >> 1;
            if (!last && ab && !(r->cur_known && id == r->cur)) {
                /* The following byte still belongs to the previous ID. */
                r->run[r->nrun++] = fr[2 * k + 1];
                rc = set_id(r, id);
            } else {
                rc = set_id(r, id);
                if (!last)
                    r->run[r->nrun++] = fr[2 * k + 1];
            }
        } else {
            r->run[r->nrun++] = (uint8_t)(b | ab);
            if (!last)
                r->run[r->nrun++] = fr[2 * k + 1];
        }
        if (rc < 0)
            return rc;
    }
    return flush_run(r);
}

int rvt_atb_read(const uint8_t *buf, size_t len, const struct rvt_atb_reader_config *cfg,
                 struct rvt_atb_read_stats *st, struct rvt_diag *diag)
{
    struct rvt_atb_read_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    if (!cfg || cfg->size < sizeof *cfg)
        return rvt_fail(diag, RVT_ERR_INVAL, "atb reader: config size %zu, expected %zu", cfg ? cfg->size : 0,
                        sizeof *cfg);
    struct atb_reader r = {.cfg = cfg, .st = st, .diag = diag};
    if (cfg->initial_id && cfg->initial_id < 0x7F) {
        r.cur = cfg->initial_id;
        r.cur_known = true;
    }
    size_t pos = 0;
    if (cfg->find_fsync) {
        size_t i = 0;
        while (i + 4 <= len && memcmp(buf + i, FSYNC, 4) != 0)
            i++;
        if (i + 4 > len) {
            st->skipped_bytes = len;
            return rvt_fail(diag, RVT_ERR_NOSYNC, "atb reader: no frame sync (ff ff ff 7f) in %zu bytes", len);
        }
        st->skipped_bytes += i;
        pos = i;
    }
    uint8_t fr[RVT_ATB_FRAME];
    unsigned fn = 0;
    while (pos < len) {
        if (fn == 0) {
            if (len - pos >= 4 && memcmp(buf + pos, FSYNC, 4) == 0) {
                st->fsyncs++;
                pos += 4;
                continue;
            }
            r.frame_off = pos;
        }
        if (len - pos < 2)
            break;
        if (cfg->hsyncs && buf[pos] == 0xFF && buf[pos + 1] == 0x7F) {
            /* Halfword sync, unless it starts a frame sync at a word boundary. */
            if (!(fn % 4 == 0 && len - pos >= 4 && memcmp(buf + pos, FSYNC, 4) == 0)) {
                st->hsyncs++;
                pos += 2;
                continue;
            }
        }
        if (fn && fn % 4 == 0 && len - pos >= 4 && memcmp(buf + pos, FSYNC, 4) == 0) {
            fail_once(&r, "atb reader: offset 0x%zx: frame sync inside the frame at 0x%" PRIx64
                      " (frame dropped)",
                      pos, r.frame_off);
            st->skipped_bytes += fn;
            fn = 0;
            r.cur_known = false;
            continue;
        }
        fr[fn] = buf[pos];
        fr[fn + 1] = buf[pos + 1];
        fn += 2;
        pos += 2;
        if (fn == RVT_ATB_FRAME) {
            fn = 0;
            int rc = unpack(&r, fr);
            if (rc < 0)
                return rc;
        }
    }
    st->partial_bytes = fn + (len - pos);
    return r.rc;
}

static int demux_deliver(void *ctx, unsigned id, uint64_t off, const uint8_t *p, size_t n)
{
    struct rvt_membuf *out = ctx;
    (void)off;
    return rvt_membuf_append(&out[id], p, n);
}

int rvt_atb_demux(const uint8_t *buf, size_t len, int hsyncs, struct rvt_membuf out[128],
                  struct rvt_atb_read_stats *st, struct rvt_diag *diag)
{
    struct rvt_atb_reader_config c = {.size = sizeof c, .deliver = demux_deliver, .ctx = out, .hsyncs = hsyncs};
    return rvt_atb_read(buf, len, &c, st, diag);
}

uint64_t rvt_atb_payload_bytes(uint64_t frame_bytes, unsigned fsync_period)
{
    /* A reader of a cut stream starts after the first frame sync (up to a
     * whole group of frames lost) and drops the last partial frame; a
     * frame carries 15 bytes, 14 when it restates the ID (after a frame
     * sync, or a change of source): count 14 for every frame. */
    uint64_t group = fsync_period ? (uint64_t)fsync_period * RVT_ATB_FRAME + 4 : 0;
    uint64_t edge = group + RVT_ATB_FRAME;
    if (frame_bytes <= edge)
        return 0;
    uint64_t b = frame_bytes - edge;
    if (!fsync_period)
        return b / RVT_ATB_FRAME * 14;
    return b / group * fsync_period * 14 + (b % group) / RVT_ATB_FRAME * 14;
}

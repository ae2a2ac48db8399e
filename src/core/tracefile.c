/* Trace files mapped for decoding, and a decode that gives back the pages
 * behind it: a decode's memory is the image, the decoder's state and a
 * window of the trace, not the file (issue 12: a 1 GB trace decodes in
 * tens of MB). */
#define _DEFAULT_SOURCE /* madvise(MADV_DONTNEED) */
#include "rvtrace/codec.h"
#include "core/tracefile.h"
#include "sink/sink_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Pages are given back in steps of this many bytes, this far behind the
 * byte being decoded (decoders look back a little when they resynchronise). */
#define RELEASE_STEP (4u << 20)
#define RELEASE_LAG (1u << 20)

struct rvt_trace_file {
    uint8_t *data;
    size_t len;
    bool mapped;   /* else malloc'd */
    size_t map_len;
    size_t released; /* bytes at the start given back (page multiple) */
    size_t page;
};

static struct rvt_trace_file *file_new(void)
{
    struct rvt_trace_file *t = calloc(1, sizeof *t);
    if (t) {
        long page = sysconf(_SC_PAGESIZE);
        t->page = page > 0 ? (size_t)page : 4096;
    }
    return t;
}

static void file_mapped(struct rvt_trace_file *t, const uint8_t *data)
{
    t->data = (uint8_t *)(uintptr_t)data;
    t->map_len = t->len;
#ifdef MADV_SEQUENTIAL
    if (t->mapped)
        madvise(t->data, t->map_len, MADV_SEQUENTIAL); /* read ahead; a hint only */
#endif
}

int rvt_trace_file_open(struct rvt_trace_file **out, const char *path, struct rvt_diag *d)
{
    *out = NULL;
    struct rvt_trace_file *t = file_new();
    if (!t)
        return rvt_fail(d, RVT_ERR_NOMEM, "%s: out of memory", path);
    const uint8_t *data;
    int rc = rvt_map_file(path, &data, &t->len, &t->mapped, d);
    if (rc < 0) {
        free(t);
        return rc;
    }
    file_mapped(t, data);
    *out = t;
    return 0;
}

struct rvt_trace_file *rvt_trace_file_map_fd(int fd)
{
    struct rvt_trace_file *t = file_new();
    const uint8_t *data;
    if (!t || !(t->mapped = rvt_map_fd(fd, &data, &t->len))) {
        free(t);
        return NULL;
    }
    file_mapped(t, data);
    return t;
}

const uint8_t *rvt_trace_file_data(const struct rvt_trace_file *t)
{
    return t->data;
}

size_t rvt_trace_file_size(const struct rvt_trace_file *t)
{
    return t->len;
}

void rvt_trace_file_done_before(struct rvt_trace_file *t, uint64_t offset)
{
    if (!t->mapped || offset <= RELEASE_LAG)
        return;
    uint64_t upto = offset - RELEASE_LAG;
    if (upto > t->map_len)
        upto = t->map_len;
    upto -= upto % t->page;
    if (upto < t->released + RELEASE_STEP / 2)
        return; /* (in steps: each call costs the other threads' TLBs) */
#ifdef MADV_DONTNEED
    /* A read-only private file mapping: the pages are dropped from this
     * process and read again from the file if touched. */
    madvise(t->data + t->released, upto - t->released, MADV_DONTNEED);
#endif
    t->released = (size_t)upto;
}

void rvt_trace_file_close(struct rvt_trace_file *t)
{
    if (!t)
        return;
    rvt_unmap_file(t->data, t->map_len, t->mapped);
    free(t);
}

static void on_progress(void *ctx, uint64_t offset)
{
    rvt_trace_file_done_before(ctx, offset);
}

int rvt_decode_file(const struct rvt_codec *c, const void *cfg, const struct rvt_image *img,
                    const struct rvt_decode_options *opt, struct rvt_trace_file *t, const struct rvt_flow_sink *sink,
                    struct rvt_diag *d)
{
    struct rvt_decode_options o = {.size = sizeof o, .ecall = -1};
    if (opt) {
        if (opt->size < sizeof o)
            return rvt_fail(d, RVT_ERR_INVAL, "struct rvt_decode_options: size %zu, expected %zu", opt->size,
                            sizeof o);
        o = *opt;
    }
    if (t->mapped) {
        o.progress = on_progress;
        o.progress_ctx = t;
        o.progress_every = RELEASE_STEP;
    }
    return rvt_decode(c, cfg, img, &o, t->data, t->len, sink, d);
}

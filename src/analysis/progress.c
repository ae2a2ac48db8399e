/* Progress of a long decode on one rewritten line ("\r"), about twice a
 * second: instructions so far and, when the trace length is known, how
 * far into it the decoder is.  The caller decides where it goes (the CLI
 * shows it only when stderr is a terminal). */
#include "rvtrace/analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rvt_progress {
    FILE *f;
    char what[64];
    uint64_t total_bytes, bytes, insns, blocks;
    struct rvt_flow_sink inner;
    double next, interval;
    bool shown;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct rvt_progress *rvt_progress_new(FILE *f, const char *what, uint64_t total_bytes,
                                      const struct rvt_flow_sink *inner)
{
    struct rvt_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->f = f;
    snprintf(p->what, sizeof p->what, "%s", what ? what : "rvtrace");
    p->total_bytes = total_bytes;
    if (inner)
        p->inner = *inner;
    p->interval = 0.5;
    p->next = now() + p->interval;
    return p;
}

void rvt_progress_free(struct rvt_progress *p)
{
    free(p);
}

static void show(struct rvt_progress *p)
{
    if (!p->f)
        return;
    if (p->total_bytes)
        fprintf(p->f, "\r%s: %.1f M instructions, %.0f%% of %.1f %s   ", p->what, (double)p->insns / 1e6,
                100.0 * (double)(p->bytes < p->total_bytes ? p->bytes : p->total_bytes) / (double)p->total_bytes,
                (double)p->total_bytes / (p->total_bytes < 1000000 ? 1e3 : 1e6),
                p->total_bytes < 1000000 ? "kB" : "MB");
    else
        fprintf(p->f, "\r%s: %.1f M instructions   ", p->what, (double)p->insns / 1e6);
    fflush(p->f);
    p->shown = true;
}

/* The clock is read every 4096 blocks only: the wrapper stays off the
 * decode's profile. */
static void tick(struct rvt_progress *p)
{
    if ((++p->blocks & 4095) != 0)
        return;
    double t = now();
    if (t < p->next)
        return;
    p->next = t + p->interval;
    show(p);
}

static int on_block(void *ctx, const struct rvt_block *b)
{
    struct rvt_progress *p = ctx;
    p->insns += b->ninsns;
    if (b->trace_offset > p->bytes)
        p->bytes = b->trace_offset;
    tick(p);
    return p->inner.block ? p->inner.block(p->inner.ctx, b) : 0;
}

static int on_note(void *ctx, const struct rvt_note *n)
{
    struct rvt_progress *p = ctx;
    return p->inner.note ? p->inner.note(p->inner.ctx, n) : 0;
}

struct rvt_flow_sink rvt_progress_sink(struct rvt_progress *p)
{
    struct rvt_flow_sink s = {.block = on_block, .note = on_note, .ctx = p};
    return s;
}

void rvt_progress_set_interval(struct rvt_progress *p, double seconds)
{
    p->interval = seconds > 0 ? seconds : 0;
    p->next = now() + p->interval;
}

void rvt_progress_add(struct rvt_progress *p, uint64_t insns, uint64_t bytes)
{
    p->bytes += bytes;
    p->insns += insns;
    tick(p);
}

void rvt_progress_done(struct rvt_progress *p)
{
    if (p->shown && p->f) {
        fprintf(p->f, "\r%*s\r", (int)strlen(p->what) + 48, "");
        fflush(p->f);
    }
    p->shown = false;
}

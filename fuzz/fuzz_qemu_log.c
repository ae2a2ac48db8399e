/* Fuzz the system-mode capture's reader of QEMU logs (src/ingress/qemulog.c): any
 * bytes, fed in two chunks split where the input says, must end in records
 * or an error, never a crash, a hang or a read out of bounds.  Built like
 * the targets in fuzz/ (libFuzzer with RVT_FUZZ, else the replay driver
 * over corpus/: the seed logs made by make-corpus.sh). */
#include "ingress/qemulog.h"

#include <stdint.h>
#include <string.h>

struct sink {
    uint64_t records;
    uint16_t max_hart;
};

static int count(void *ctx, const struct rvt_ing_rec *r)
{
    struct sink *s = ctx;
    s->records++;
    if (r->hart > s->max_hart)
        s->max_hart = r->hart;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sink s = {0};
    struct qsys_config cfg = {.size = sizeof cfg,
                              .merge_blocks = size & 1,
                              .max_insns = 1000000, /* bounds the work a tiny input can ask for */
                              .emit = count,
                              .ctx = &s};
    struct qsys *q = qsys_new(&cfg);
    if (!q)
        return 0;
    size_t split = size ? (size_t)data[0] * size / 256 : 0;
    int rc = qsys_feed(q, (const char *)data, split);
    if (rc == 0)
        rc = qsys_feed(q, (const char *)data + split, size - split);
    if (rc >= 0)
        qsys_finish(q);
    struct qsys_stats st;
    qsys_get_stats(q, &st);
    if (s.records && s.max_hart >= st.harts)
        __builtin_trap(); /* a record for a hart the log never announced */
    qsys_free(q);
    return 0;
}

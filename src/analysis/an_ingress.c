/* An analysis fed straight from ingress records: one flow per hart, each
 * driven by the ideal decoder (rvt_ingflow), so the views of a capture can
 * be compared with those of any trace encoded from it. */
#include "an_internal.h"

#include <string.h>

struct feed {
    struct rvt_analysis *a;
    struct rvt_progress *progress;
    uint64_t done[RVT_INGFLOW_MAX_HARTS]; /* instructions counted into progress */
};

static struct rvt_flow_sink sink_of(void *ctx, unsigned hart)
{
    return rvt_an_sink(((struct feed *)ctx)->a, hart);
}

static void after(void *ctx, unsigned hart, const struct rvt_ing_rec *r, const struct rvt_flow *f)
{
    struct feed *fd = ctx;
    (void)r;
    if (fd->progress) {
        uint64_t now = rvt_flow_insns(f);
        rvt_progress_add(fd->progress, now - fd->done[hart], 0);
        fd->done[hart] = now;
    }
}

int rvt_an_ingress(struct rvt_analysis *a, struct rvt_ing_reader *in, enum rvt_flow_ecall ecall,
                   struct rvt_progress *progress, struct rvt_diag *d)
{
    _Static_assert(RVT_AN_MAX_HARTS <= RVT_INGFLOW_MAX_HARTS, "every hart analysed is followed");
    struct feed fd = {.a = a, .progress = progress};
    struct rvt_flow_config fc = {.size = sizeof fc, .image = a->cfg.image, .xlen = rvt_ing_xlen(in), .ecall = ecall};
    int rc = rvt_ingflow_run(in, &fc, sink_of, after, &fd, d);
    if (rc < 0 && a->err) { /* (what the analysis refused) */
        char msg[sizeof d->msg];
        memcpy(msg, d->msg, sizeof msg);
        rvt_fail(d, (enum rvt_err)d->code, "%s: %s", msg, rvt_an_error(a));
    }
    return rc;
}

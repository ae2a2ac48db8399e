/* An analysis fed straight from ingress records: one flow per hart, each
 * driven by the ideal decoder (rvt_ingflow), so the views of a capture can
 * be compared with those of any trace encoded from it. */
#include "an_internal.h"

#include <inttypes.h>
#include <stdlib.h>

int rvt_an_ingress(struct rvt_analysis *a, struct rvt_ing_reader *in, enum rvt_flow_ecall ecall,
                   struct rvt_progress *progress, struct rvt_diag *d)
{
    struct rvt_flow *flow[RVT_AN_MAX_HARTS] = {0};
    struct rvt_ingflow *x[RVT_AN_MAX_HARTS] = {0};
    uint64_t done[RVT_AN_MAX_HARTS] = {0};
    struct rvt_ing_rec r;
    uint64_t n = 0;
    int rc;
    while ((rc = rvt_ing_next(in, &r)) > 0) {
        unsigned h = r.hart;
        if (h >= RVT_AN_MAX_HARTS) {
            rc = rvt_fail(d, RVT_ERR_UNSUPPORTED, "record %" PRIu64 ": hart %u (at most %d harts are analysed)", n, h,
                          RVT_AN_MAX_HARTS);
            goto out;
        }
        if (!x[h]) {
            struct rvt_flow_config fc = {.size = sizeof fc,
                                         .image = a->cfg.image,
                                         .xlen = rvt_ing_xlen(in),
                                         .ecall = ecall,
                                         .sink = rvt_an_sink(a, h)};
            flow[h] = rvt_flow_new(&fc);
            x[h] = flow[h] ? rvt_ingflow_new(flow[h]) : NULL;
            if (!x[h]) {
                rc = rvt_fail(d, RVT_ERR_NOMEM, "cannot create the flow engine for hart %u", h);
                goto out;
            }
        }
        if ((rc = rvt_ingflow_put(x[h], &r)) < 0) {
            rc = rvt_fail(d, (enum rvt_err)-rc, "hart %u: %s%s%s", h, rvt_ingflow_error(x[h]),
                          a->err ? ": " : "", a->err ? rvt_an_error(a) : "");
            goto out;
        }
        if (progress) {
            uint64_t now = rvt_flow_insns(flow[h]);
            rvt_progress_add(progress, now - done[h], 0);
            done[h] = now;
        }
        n++;
    }
    if (rc < 0) {
        rvt_fail(d, (enum rvt_err)-rc, "%s", rvt_ing_error(in));
        goto out;
    }
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++)
        if (x[h] && (rc = rvt_ingflow_finish(x[h])) < 0) {
            rvt_fail(d, (enum rvt_err)-rc, "hart %u: %s", h, rvt_ingflow_error(x[h]));
            goto out;
        }
    rc = 0;
out:
    for (unsigned h = 0; h < RVT_AN_MAX_HARTS; h++) {
        rvt_ingflow_free(x[h]);
        rvt_flow_free(flow[h]);
    }
    return rc;
}

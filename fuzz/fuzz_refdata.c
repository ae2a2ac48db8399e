/* Fuzz the reference flow's data-port CSV reader (refdata): any text must
 * parse or fail with an error naming the line; every record it gives is a
 * data access the E-Trace data encoder accepts or refuses cleanly. */
#include "etrace/etrace.h"
#include "ingress/refdata.h"

#include <stdlib.h>
#include <string.h>

static int on_rec(void *ctx, const struct rvt_ing_rec *r)
{
    (void)ctx;
    if (!(r->flags & RVT_ING_HAS_DTYPE) || r->iretire != 0)
        abort();
    struct et_dparams d;
    et_dparams_default(&d);
    d.mode = ET_DATA_ONLY;
    unsigned tb = 0;
    struct rvt_diag diag = {0};
    if (et_dparams_finish(&d, 64, ET_DOPTIONS_WIDTH, &tb, false, &diag) < 0)
        abort();
    struct et_access a;
    bool has;
    if (et_access_from_rec(&d, r, &a, &has, &diag) == 0 && has) {
        struct et_denc e;
        et_denc_init(&e, &d);
        struct et_dpkt k[2];
        unsigned n;
        et_denc_access(&e, &a, k, &n, &diag);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rvt_diag d = {0};
    int rc = rvt_refdata_parse_mem((const char *)data, size, "fuzz.csv", on_rec, NULL, &d);
    if (rc < 0 && !strstr(d.msg, "fuzz.csv"))
        abort(); /* every error names the input */
    return 0;
}

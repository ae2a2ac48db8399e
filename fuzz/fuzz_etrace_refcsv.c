/* Fuzz the reference flow's encoder-port CSV reader, and feed what it reads
 * to the E-Trace encoder. */
#include "etrace/encoder.h"
#include "ingress/refcsv.h"

static long null_write(void *ctx, const uint8_t *p, size_t n)
{
    (void)ctx;
    (void)p;
    return (long)n;
}

static int put(void *ctx, const struct rvt_ing_rec *r)
{
    et_enc_put(ctx, r);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct et_params p;
    et_params_default(&p);
    p.iaddress_width_p = 64;
    p.privilege_width_p = 3;
    p.nocontext_p = 0;
    p.context_width_p = 64;
    p.ecause_width_p = 32;
    struct rvt_byte_sink sink = {null_write, NULL};
    struct et_encoder *e;
    struct rvt_diag d = {0};
    if (et_enc_new(&e, &p, &sink, &d) < 0)
        return 0;
    rvt_refcsv_parse_mem((const char *)data, size, "fuzz.csv", put, e, &d);
    et_enc_finish(e);
    et_enc_free(e);
    return 0;
}

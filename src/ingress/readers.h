/* Internal: readers implemented outside the ingress folder. */
#ifndef RVT_INGRESS_READERS_H
#define RVT_INGRESS_READERS_H

#include "rvtrace/ingress.h"

/* E-Trace reference-flow encoder-port CSV (src/etrace/refcsv.c). */
int rvt_refcsv_open(struct rvt_ing_reader **out, const char *path, const struct rvt_ing_reader_config *cfg,
                    struct rvt_diag *diag) __attribute__((weak));

/* Writer of the same CSV (src/etrace/refcsv.c), for `rvtrace convert`. */
int rvt_refcsv_write_header(FILE *f) __attribute__((weak));
int rvt_refcsv_write(FILE *f, const struct rvt_ing_rec *r) __attribute__((weak));

#endif

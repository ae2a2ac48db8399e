/* The E-Trace reference flow's data-port CSV ("refdata"): the input of its
 * data trace encoder model (referenceFlow/scripts/data_encoder_model.py,
 * produced by its instrumented Spike as <test>.spike_data_trace).
 *
 * Header DRETIRE,DTYPE,DADDR,DSIZE,DATA (any case); one data access per
 * row: dretire 0/1, dtype the ingress port's code (decimal), daddr and data
 * hexadecimal without 0x, dsize log2 of the bytes of DATA.  Atomic and CSR
 * rows carry two values in DATA, "with the store data in the LSBs and the
 * load data or operand in the MSBs" (ingressPort.adoc), so their dsize is
 * one more than the access's.
 *
 * The rows carry no instructions: read, each becomes a record that retires
 * nothing and holds one data access (RVT_ING_HAS_DTYPE), which only the
 * E-Trace data trace without instruction trace (--data-trace only)
 * encodes. */
#ifndef RVT_INGRESS_REFDATA_H
#define RVT_INGRESS_REFDATA_H

#include "rvtrace/ingress.h"

#include <stdio.h>

int rvt_refdata_open(struct rvt_ing_reader **out, const char *path, const struct rvt_ing_reader_config *cfg,
                     struct rvt_diag *diag);
/* Parse from memory (tests, fuzzing): fn per record; the number of records
 * or <0 with d naming "name:line". */
int rvt_refdata_parse_mem(const char *text, size_t len, const char *name,
                          int (*fn)(void *ctx, const struct rvt_ing_rec *r), void *ctx, struct rvt_diag *d);

/* Writer.  A record's access becomes one row; records without one write
 * nothing.  *skipped (may be NULL) counts the accesses the format cannot
 * hold (a failed store-conditional: the reference model has no row kind
 * for dtype 15). */
int rvt_refdata_write_header(FILE *f);
int rvt_refdata_write(FILE *f, const struct rvt_ing_rec *r, uint64_t *skipped);

#endif

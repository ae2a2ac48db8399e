/* The E-Trace reference flow's encoder-port CSV ("refcsv"): reader (an
 * ingress source) and writer.
 *
 * Columns (header line, any order): itype_0, cause, tval, priv, iaddr_0,
 * context, ctype, iretire_0, ilastsize_0 are required; time, sijump_0 and
 * trigger (the ingress port's trigger signal: bit 2+N = trace-notify for
 * block N, RVT_ING_NOTIFY; bits 0-1, trace on/off, are refused) are optional; itype_N, iaddr_N, iretire_N, ilastsize_N, sijump_N (N >= 1)
 * add further blocks retired in the same cycle (multiple retirement).
 * itype, cause, priv, ctype, iretire, ilastsize, context and time are
 * decimal; iaddr and tval hexadecimal without 0x (a 0x prefix is accepted
 * everywhere).  iretire 0/1 counts instructions (single retirement: 1 = one
 * instruction of 2^ilastsize halfwords); larger values count halfwords. */
#ifndef RVT_INGRESS_REFCSV_H
#define RVT_INGRESS_REFCSV_H

#include "rvtrace/ingress.h"

#include <stdio.h>

/* Open a refcsv file as an ingress reader (streamed, bounded memory). */
int rvt_refcsv_open(struct rvt_ing_reader **out, const char *path, const struct rvt_ing_reader_config *cfg,
                    struct rvt_diag *diag);

/* Writer: the nine reference columns, one record per row. */
int rvt_refcsv_write_header(FILE *f);
int rvt_refcsv_write(FILE *f, const struct rvt_ing_rec *r);

/* Writer with optional columns (RVT_REFCSV_*): time, sijump_0, trigger. */
enum { RVT_REFCSV_TIME = 1u << 0, RVT_REFCSV_SIJUMP = 1u << 1, RVT_REFCSV_TRIGGER = 1u << 2 };
int rvt_refcsv_write_header_ex(FILE *f, unsigned flags);
int rvt_refcsv_write_ex(FILE *f, const struct rvt_ing_rec *r, unsigned flags);

/* Parse CSV text from memory, calling fn for each record (tests, fuzzing).
 * Returns the number of records or <0 with d naming "name:line". */
int rvt_refcsv_parse_mem(const char *text, size_t len, const char *name,
                         int (*fn)(void *ctx, const struct rvt_ing_rec *r), void *ctx, struct rvt_diag *d);

#endif

/* The hook struct rvt_output (output.c) calls for the analysis kinds and
 * JSON Lines (an_output.c). */
#ifndef RVT_AN_OUTPUT_H
#define RVT_AN_OUTPUT_H

#include "rvtrace/analysis.h"

struct an_out;
/* NULL if out of memory or the kind needs an image and none is given. */
struct an_out *an_out_new(const struct rvt_out_config *cfg);
void an_out_free(struct an_out *o);
/* The sink for the blocks (called directly per block); after an error
 * from it, an_out_report says why. */
struct rvt_flow_sink an_out_sink(const struct an_out *o);
void an_out_report(const struct an_out *o);
int an_out_note(struct an_out *o, const struct rvt_note *n);
/* Writes the view; errors are also reported on cfg->diag. */
int an_out_finish(struct an_out *o);
/* Why JSON Lines' first write failed (its errno; 0: none failed).  The
 * write may have failed on another thread (decode --jobs), whose errno is
 * not the caller's. */
int an_out_write_errno(const struct an_out *o);

#endif

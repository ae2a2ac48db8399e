/* E-Trace decoder, data side (data_decoder.c): te_data packets -> accesses
 * tied to the instructions of the flow's blocks (internal API). */
#ifndef RVT_ETRACE_DATA_DECODER_H
#define RVT_ETRACE_DATA_DECODER_H

#include "etrace/etrace.h"

struct et_dside;
/* p: the decoder's parameters (the support packet's doptions are applied
 * to p->d).  Data trace starts when the options or a support packet say
 * so; from then on it stands in front of the flow's sink. */
int et_dside_new(struct et_dside **out, struct et_params *p, struct rvt_flow *f, struct rvt_diag *d);
void et_dside_free(struct et_dside *s);
/* It stands in front of the flow's sink (data trace is on, or was). */
bool et_dside_installed(const struct et_dside *s);
/* Every te_inst packet as the deframer meets it (format 3: the compression
 * state restarts; support: denable, doptions). */
int et_dside_inst(struct et_dside *s, const struct et_packet *k, uint64_t offset, struct rvt_diag *d);
/* A te_data frame as the deframer meets it. */
int et_dside_frame(struct et_dside *s, const struct et_frame *fr);
/* The deframer lost its place (error, resynchronisation). */
void et_dside_lost_sync(struct et_dside *s);
/* After the flow's last block: what is still held goes out, with notes for
 * whatever data never came. */
int et_dside_finish(struct et_dside *s);
void et_dside_stats(const struct et_dside *s, uint64_t *accesses, uint64_t *lost, uint64_t *orphaned);

#endif

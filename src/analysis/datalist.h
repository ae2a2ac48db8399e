/* Data notes (RVT_NOTE_DATA) in text listings: each instruction's values
 * on a comment line after it (internal to src/analysis). */
#ifndef RVT_ANALYSIS_DATALIST_H
#define RVT_ANALYSIS_DATALIST_H

#include "rvtrace/flow.h"

#include <stddef.h>

struct rvt_datalist;
struct rvt_datalist *rvt_datalist_new(void);
void rvt_datalist_free(struct rvt_datalist *l);
/* A data note.  next_index: the stream index of the next instruction the
 * listing will print (UINT64_MAX: none; notes are then written at once).
 * Notes of an instruction not printed yet wait for it; others are written
 * to out now (one line).  Returns <0 on out of memory. */
int rvt_datalist_add(struct rvt_datalist *l, const struct rvt_note *n, uint64_t next_index, char *out, size_t size);
/* After printing instruction `index`: the line of its notes (and of any
 * older ones still waiting) into out, as many as fit (call again while it
 * returns more than 0); 0 if none. */
size_t rvt_datalist_take(struct rvt_datalist *l, uint64_t index, char *out, size_t size);
/* Notes waiting for their instruction (0: nothing to take). */
size_t rvt_datalist_pending(const struct rvt_datalist *l);
/* Room in out that take and flush need to write every waiting note, and
 * that add needs for note n: with it no line is cut. */
size_t rvt_datalist_room(const struct rvt_datalist *l);
size_t rvt_datalist_note_room(const struct rvt_note *n);
/* Everything still waiting (a gap, a sync, the end), as much as fits
 * (call again while notes wait). */
size_t rvt_datalist_flush(struct rvt_datalist *l, char *out, size_t size);

#endif

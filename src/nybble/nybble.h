/* Nybble streams, shared by the two nybble families (cdl, dbg); not public.
 *
 *   - packing: one nybble per byte <-> bytes, nybble 2k in bits 3:0 of
 *     byte k and 2k+1 in bits 7:4 (the little-endian order of nybbles in
 *     the 32-bit words both seeds describe);
 *   - the staged writer: nybbles go to a struct rvt_byte_sink in whole
 *     units (cdl fields, dbg packets).  When the sink takes only part of a
 *     write, the unit the cut falls in is completed by the next write (a
 *     reader of what the sink holds then sees whole units), everything
 *     after it is dropped until the family has put its loss indication
 *     out, and the sync points the sink did not get are forgotten;
 *   - sync points: stream offsets a decoder can start at.
 */
#ifndef RVT_NYBBLE_H
#define RVT_NYBBLE_H

#include "rvtrace/sink.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- packing ------------------------------------------------------------- */

/* bytes[k] = nyb[2k] | nyb[2k+1] << 4 for every whole pair (an odd last
 * nybble is not packed). */
void rvt_nyb_pack(const uint8_t *nyb, size_t count, uint8_t *bytes);
/* 2 * nbytes nybbles from nbytes bytes. */
void rvt_nyb_unpack(const uint8_t *bytes, size_t nbytes, uint8_t *nyb);
/* 2 * count nybbles from count bytes of the circular buffer buf[len],
 * starting at byte `start` (the oldest data of a wrapped RAM image). */
void rvt_nyb_unpack_ring(const uint8_t *buf, size_t len, size_t start, size_t count, uint8_t *nyb);

/* ---- sync points ----------------------------------------------------------- */

/* A place a decoder can start at: its stream nybble offset and the
 * instructions retired before the PC given there. */
struct rvt_nyb_sync_point {
    uint64_t nybble;
    uint64_t insns;
};
struct rvt_nyb_syncs {
    struct rvt_nyb_sync_point *p;
    size_t n, cap;
};
/* Append one; -RVT_ERR_NOMEM when the list cannot grow. */
int rvt_nyb_syncs_add(struct rvt_nyb_syncs *s, uint64_t nybble, uint64_t insns);
void rvt_nyb_syncs_free(struct rvt_nyb_syncs *s);

/* ---- staged writer --------------------------------------------------------- */

/* Nybbles staged before packing them into bytes for the sink. */
#define RVT_NYB_STAGE 8192

/* Length in nybbles of the unit starting at nyb[0] (0 when the avail
 * nybbles do not say); the family's field or packet length. */
typedef unsigned (*rvt_nyb_unit_len_fn)(const uint8_t *nyb, size_t avail, const void *ctx);

struct rvt_nyb_writer {
    struct rvt_byte_sink out;
    const char *family;        /* names the writer in error messages ("cdl") */
    struct rvt_diag *diag;
    rvt_nyb_unit_len_fn unit_len;
    const void *ctx;           /* for unit_len */
    struct rvt_nyb_syncs *syncs; /* sync points to forget when the sink does not take them (or NULL) */

    /* The stage holds whole units from `bound` on (the rest of a unit a
     * refused write cut may precede it); last_start is the start of the
     * last unit appended. */
    uint8_t stage[RVT_NYB_STAGE];
    size_t nstage, bound, last_start;
    uint64_t bytes_out;        /* bytes the sink took */
    bool lost;                 /* the sink refused data: units are dropped until rvt_nyb_writer_resume */
};

void rvt_nyb_writer_init(struct rvt_nyb_writer *w, const struct rvt_byte_sink *out, const char *family,
                         struct rvt_diag *diag, rvt_nyb_unit_len_fn unit_len, const void *ctx,
                         struct rvt_nyb_syncs *syncs);

/* Append nybbles nyb[0..n): whole units, the last one starting at
 * nyb[last] (n < RVT_NYB_STAGE); or, with singles, a run of one-nybble
 * units (skips, Nops) of any length, which may be split across writes.
 * Dropped while w->lost.  Returns 0 or a negative rvt_err (the sink
 * failed; w->diag says so). */
int rvt_nyb_writer_put_staged(struct rvt_nyb_writer *w, const uint8_t *nyb, size_t n, size_t last, bool singles);
static inline int rvt_nyb_writer_put(struct rvt_nyb_writer *w, const uint8_t *nyb, size_t n, size_t last,
                                     bool singles)
{
    /* What fits the stage goes in here (a field or packet at a time, most
     * of them), the rest through the stage's writes. */
    if (n && n <= RVT_NYB_STAGE - w->nstage && !w->lost) {
        if (n == 1) /* (a one-nybble unit: no call to copy it) */
            w->stage[w->nstage] = nyb[0];
        else
            memcpy(w->stage + w->nstage, nyb, n);
        w->last_start = w->nstage + (singles ? n - 1 : last);
        w->nstage += n;
        return 0;
    }
    return rvt_nyb_writer_put_staged(w, nyb, n, last, singles);
}

/* Write out everything staged (the end of the stream). */
int rvt_nyb_writer_flush(struct rvt_nyb_writer *w);

/* The family has put its loss indication out (or is about to): take
 * units again. */
static inline void rvt_nyb_writer_resume(struct rvt_nyb_writer *w)
{
    w->lost = false;
}

/* Nybbles of the output stream so far, as a decoder of it sees them: those
 * the sink took and those staged. */
static inline uint64_t rvt_nyb_writer_pos(const struct rvt_nyb_writer *w)
{
    return 2 * w->bytes_out + w->nstage;
}

#endif

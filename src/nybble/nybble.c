/* Nybble streams: packing, sync points, the staged writer (nybble.h). */
#include "nybble/nybble.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void rvt_nyb_pack(const uint8_t *nyb, size_t count, uint8_t *bytes)
{
    for (size_t i = 0; i + 1 < count; i += 2)
        bytes[i / 2] = (uint8_t)((nyb[i] & 0xf) | (nyb[i + 1] << 4));
}

void rvt_nyb_unpack(const uint8_t *bytes, size_t nbytes, uint8_t *nyb)
{
    for (size_t i = 0; i < nbytes; i++) {
        nyb[2 * i] = bytes[i] & 0xf;
        nyb[2 * i + 1] = bytes[i] >> 4;
    }
}

void rvt_nyb_unpack_ring(const uint8_t *buf, size_t len, size_t start, size_t count, uint8_t *nyb)
{
    for (size_t i = 0; i < count; i++) {
        uint8_t b = buf[(start + i) % (len ? len : 1)];
        nyb[2 * i] = b & 0xf;
        nyb[2 * i + 1] = b >> 4;
    }
}

int rvt_nyb_syncs_add(struct rvt_nyb_syncs *s, uint64_t nybble, uint64_t insns)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 64;
        struct rvt_nyb_sync_point *p = realloc(s->p, nc * sizeof *p);
        if (!p)
            return -RVT_ERR_NOMEM;
        s->p = p;
        s->cap = nc;
    }
    s->p[s->n].nybble = nybble;
    s->p[s->n].insns = insns;
    s->n++;
    return 0;
}

void rvt_nyb_syncs_free(struct rvt_nyb_syncs *s)
{
    free(s->p);
    s->p = NULL;
    s->n = s->cap = 0;
}

void rvt_nyb_writer_init(struct rvt_nyb_writer *w, const struct rvt_byte_sink *out, const char *family,
                         struct rvt_diag *diag, rvt_nyb_unit_len_fn unit_len, const void *ctx,
                         struct rvt_nyb_syncs *syncs)
{
    memset(w, 0, sizeof *w);
    w->out = *out;
    w->family = family;
    w->diag = diag;
    w->unit_len = unit_len;
    w->ctx = ctx;
    w->syncs = syncs;
}

/* The sink took only the first `cut` nybbles of the stage.  The unit the
 * cut falls in is completed first (what the sink holds then ends with a
 * whole unit); the rest is dropped, and stream positions continue from
 * what the sink holds.  (cut < nstage: at least one byte was refused.) */
static void refused(struct rvt_nyb_writer *w, size_t cut)
{
    size_t end = w->bound;
    while (end < cut) {
        unsigned l = w->unit_len(w->stage + end, w->nstage - end, w->ctx);
        end += l ? l : w->nstage - end;
    }
    if (end > w->nstage)
        end = w->nstage;
    size_t rest = end - cut;
    memmove(w->stage, w->stage + cut, rest);
    w->nstage = rest;
    w->bound = w->last_start = rest;
    /* Sync points whose sync data did not reach the sink. */
    uint64_t at = 2 * w->bytes_out;
    while (w->syncs && w->syncs->n && w->syncs->p[w->syncs->n - 1].nybble >= at)
        w->syncs->n--;
    w->lost = true;
}

/* Write the staged nybbles (all, or the even part: the sink takes bytes). */
static int flush_stage(struct rvt_nyb_writer *w, bool all)
{
    size_t n = all ? w->nstage : w->nstage & ~(size_t)1;
    if (!n)
        return 0;
    uint8_t bytes[RVT_NYB_STAGE / 2];
    rvt_nyb_pack(w->stage, n, bytes);
    size_t nb = n / 2;
    long took = w->out.write(w->out.ctx, bytes, nb);
    if (took < 0)
        return rvt_fail(w->diag, (enum rvt_err)-took, "%s: output write failed after %" PRIu64 " bytes", w->family,
                        w->bytes_out);
    if ((size_t)took < nb) {
        w->bytes_out += (size_t)took;
        refused(w, 2 * (size_t)took);
        return 0;
    }
    w->bytes_out += nb;
    /* At most one nybble stays: a whole one-nybble unit, or the end of the
     * last unit. */
    size_t carry = w->nstage - n;
    if (carry)
        w->stage[0] = w->stage[n];
    w->bound = w->last_start >= n ? w->last_start - n : carry;
    w->last_start = w->bound;
    w->nstage = carry;
    return 0;
}

int rvt_nyb_writer_put_staged(struct rvt_nyb_writer *w, const uint8_t *nyb, size_t n, size_t last, bool singles)
{
    while (n && !w->lost) {
        /* Units go into the stage whole (so its unit boundaries are known
         * when a write is refused); runs of one-nybble units may be split. */
        size_t room = RVT_NYB_STAGE - w->nstage;
        if (room < (singles ? 1 : n)) {
            int r = flush_stage(w, false);
            if (r < 0)
                return r;
            continue;
        }
        size_t take = singles && n > room ? room : n;
        memcpy(w->stage + w->nstage, nyb, take);
        w->last_start = w->nstage + (singles ? take - 1 : last);
        w->nstage += take;
        nyb += take;
        n -= take;
    }
    return 0;
}

int rvt_nyb_writer_flush(struct rvt_nyb_writer *w)
{
    return flush_stage(w, true);
}

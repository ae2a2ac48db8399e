/* One hart encoder's statistics at the end of a funnelled encode, added to
 * the totals: shared by the serial encode (pipeline.c) and the per-hart
 * threaded one (parallel/parencode.c), which must report the same. */
#ifndef RVT_CORE_ENCSTATS_H
#define RVT_CORE_ENCSTATS_H

#include "rvtrace/codec.h"

#include <string.h>

static inline void rvt_hart_stats_add(const struct rvt_codec *c, void *enc, uint64_t insns, uint64_t records,
                                      struct rvt_codec_stats *per_hart, struct rvt_codec_stats *st)
{
    struct rvt_codec_stats hs = {0};
    if (c->enc_stats)
        c->enc_stats(enc, &hs);
    hs.insns = insns;
    hs.records = records;
    if (per_hart)
        *per_hart = hs;
    st->insns += hs.insns;
    st->records += hs.records;
    st->packets += hs.packets;
    st->bytes += hs.bytes;
    st->lost += hs.lost;
    if (hs.misled_returns && !st->misled_returns) { /* (the first hart's first; each hart's insns are its own) */
        st->misled_at = hs.misled_at;
        st->misled_to = hs.misled_to;
        st->misled_predicted = hs.misled_predicted;
        st->misled_insns = hs.misled_insns;
    }
    st->misled_returns += hs.misled_returns;
    if (hs.unfed[0] && !st->unfed[0]) /* (every hart's encoder has the same options: the first says it) */
        memcpy(st->unfed, hs.unfed, sizeof st->unfed);
}

#endif

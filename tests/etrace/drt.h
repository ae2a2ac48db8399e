/* Data-trace round trips for the E-Trace tests: what the decoder must
 * report for a list of records (written from the records and the options,
 * independently of the encoder), and the decoder's data notes. */
#ifndef ET_DRT_H
#define ET_DRT_H

#include "rvtrace/rvtrace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One RVT_NOTE_DATA note. */
struct drt_note {
    uint64_t index;  /* instruction (UINT64_MAX: none) */
    uint64_t addr, value;
    uint8_t kind;    /* enum rvt_data_kind */
};

struct drt_notes {
    struct drt_note *v;
    size_t n, cap;
    uint64_t *pcs;   /* decoded instructions */
    size_t npcs, pcap;
    unsigned errors, gaps, lost;
    char first_error[600], first_lost[600];
};
void drt_free(struct drt_notes *d);

/* The notes the data trace of configuration cfg (an etrace codec config)
 * must give for records recs (their instructions counted with img). */
int drt_expect(const void *cfg, const struct rvt_ing_rec *recs, size_t n, const struct rvt_image *img,
               struct drt_notes *out);
/* Decode with cfg; data notes and instructions. */
int drt_decode(const void *cfg, const struct rvt_image *img, int ecall, const uint8_t *buf, size_t len,
               struct drt_notes *out, char *err, size_t errlen);
/* First index where the note lists differ (n if equal); *why describes it. */
size_t drt_compare(const struct drt_notes *got, const struct drt_notes *want, char *why, size_t whylen);

#endif

/* Helpers of the analysis tests: every view of an analysis as text, an
 * analysis of ingress records (the ground truth) and of a decoded trace,
 * both through a normalising sink that removes what one side cannot
 * carry. */
#ifndef RVT_TEST_VIEWS_H
#define RVT_TEST_VIEWS_H

#include "roundtrip.h"
#include "rvtrace/rvtrace.h"

#include <stdbool.h>

#define NVIEWS 9
extern const char *const view_names[NVIEWS];

/* What to remove before comparing. */
struct norm_opts {
    bool mask_cause;   /* the family does not carry trap causes / tval */
    bool mask_intr;    /* ... nor whether a trap was an interrupt */
    bool mask_time;    /* timestamps (decoded ones are per message, not per instruction) */
};

/* Every view of a finished analysis, malloc'd strings (lcov only with lines). */
struct views {
    char *v[NVIEWS];
};
void views_of(struct rvt_analysis *a, const char *source_dir, struct views *out);
void views_free(struct views *v);
/* 0 if equal; else prints the first difference (what: which case). */
int views_compare(const char *what, const struct views *want, const struct views *got);

/* Analysis of records as the ideal decoder walks them (one flow per hart). */
struct rvt_analysis *analyse_records(const struct rvt_image *img, const struct rvt_srclines *lines,
                                     const struct rvt_recs *recs, enum rvt_flow_ecall ecall,
                                     const struct norm_opts *n);

/* Encode records (of one hart, or all with `hart` < 0) with a family and
 * options (name, value, ... NULL), decode into hart `as_hart` of `a`.
 * Returns 0, or <0 with msg. */
int encode_decode_into(struct rvt_analysis *a, unsigned as_hart, const struct rvt_image *img,
                       const struct rvt_recs *recs, int hart, const char *family, const char *const *opts,
                       enum rvt_flow_ecall ecall, const struct norm_opts *n, char *msg, size_t msglen);

/* A family configuration from options (NULL-terminated pairs). */
void *family_cfg(const struct rvt_codec *c, const char *const *opts, const char *extra_key, const char *extra_val,
                 const struct rvt_image *img, char *msg, size_t msglen);
/* Decode bytes into hart `as_hart` of `a` through the normaliser. */
int decode_into(struct rvt_analysis *a, unsigned as_hart, const struct rvt_codec *c, const void *cfg,
                const struct rvt_image *img, const uint8_t *buf, size_t len, enum rvt_flow_ecall ecall,
                const struct norm_opts *n, char *msg, size_t msglen);

/* xz -dc a file of the test data into the test's temporary directory. */
char *unxz(const char *rel);

#endif

/* Round-trip helpers for the nybble families (cdl, dbg): executions with
 * data values, encode/decode through the codec table, decoded instruction
 * and data streams, and the expectations to compare them with. */
#ifndef NYBRT_H
#define NYBRT_H

#include "rvtrace/rvtrace.h"

#include <stdbool.h>
#include <stdint.h>

/* An execution: ingress records plus the instruction count. */
struct nrt_exec {
    struct rvt_ing_rec *recs;
    size_t n, cap;
    uint64_t insns;
};
void nrt_exec_free(struct nrt_exec *x);
/* Append a record (0, or -RVT_ERR_NOMEM). */
int nrt_exec_push(struct nrt_exec *x, const struct rvt_ing_rec *r);
/* The same as a record callback (x: the struct nrt_exec). */
int nrt_exec_keep(void *x, const struct rvt_ing_rec *r);
/* A generated program (rvt_gen) run: its records, one per instruction or
 * merged into blocks, into x; returns the program's image (NULL, with err
 * set, if the generator failed). */
struct rvt_image *nrt_exec_gen(struct nrt_exec *x, unsigned xlen, uint32_t features, uint64_t seed, bool merge,
                               uint64_t insns, char *err, size_t errlen);

enum nrt_extra {
    NRT_DATA = 1u << 0,        /* register writes and memory accesses with values */
    NRT_TRACEPOINTS = 1u << 1, /* some instructions are tracepoints */
    NRT_TIME = 1u << 2,        /* every instruction has a time */
    NRT_HARTS = 1u << 3,       /* the hart changes now and then */
    NRT_NO_INTERRUPTS = 1u << 4 /* flowtest: only the ecall traps */
};

/* The flowtest program (tests/data/flow) run `iters` times around: loops,
 * calls, returns, sequentially inferable jumps, compressed code, an ecall
 * that traps to an mret handler, interrupts at random points returning to
 * the interrupted instruction, U/M privilege.  Deterministic for a seed. */
int nrt_exec_flowtest(const struct rvt_image *img, unsigned xlen, unsigned iters, uint64_t seed, unsigned extra,
                      struct nrt_exec *x, char *err, size_t errlen);
/* A PC list ("0x..." per line) run through the builder with synthetic data
 * values on the instructions that write registers or access memory. */
int nrt_exec_pclist(const char *path, const struct rvt_image *img, uint64_t seed, unsigned extra,
                    struct nrt_exec *x, char *err, size_t errlen);
/* Records from an ingress file as they are. */
int nrt_exec_file(const char *path, const struct rvt_image *img, struct nrt_exec *x, char *err, size_t errlen);

/* A decoded or expected data value.  Timestamps (RVT_NOTE_TIME) are
 * collected with kind NRT_KIND_TIME. */
#define NRT_KIND_TIME 200
struct nrt_item {
    uint8_t kind;     /* enum rvt_data_kind */
    uint64_t addr;    /* register number for REG_WRITE */
    uint64_t value;
    uint64_t index;   /* instruction index (UINT64_MAX: not given) */
    uint8_t size;     /* expected memory values: the access size in bytes (the
                         bits a trace must carry; 0: the whole value) */
};

/* Expected data values of an execution, in order, with the instruction
 * index each belongs to. */
size_t nrt_expected_data(const struct nrt_exec *x, const struct rvt_image *img, unsigned xlen, struct nrt_item **out);
/* Expected PCs (every retired instruction). */
uint64_t *nrt_expected_pcs(const struct nrt_exec *x, const struct rvt_image *img, unsigned xlen, size_t *n);

/* Encode: options are "name", "value" pairs ending with NULL. */
struct nrt_enc {
    struct rvt_membuf out;
    struct rvt_codec_stats st;
};
int nrt_cfg(const struct rvt_codec *c, void **cfg, const char *const *opts, unsigned xlen,
            const struct rvt_image *img, char *err, size_t errlen);
int nrt_encode(const struct rvt_codec *c, const void *cfg, const struct nrt_exec *x, struct nrt_enc *e, char *err,
               size_t errlen);

/* A gap or error note as decoded: its reason (RVT_GAP_ERROR for errors),
 * trace byte offset, and how many PCs were decoded before it. */
struct nrt_gap {
    uint8_t reason;
    uint64_t offset;
    size_t at;
};

/* Decode: PCs expanded with the reference image (blocks without code are
 * expanded from start/count or start/end), data notes, note counts. */
struct nrt_dec {
    uint64_t *segs;  /* index into pcs at each resynchronisation (NOTE_SYNC) */
    size_t nsegs;
    uint64_t *offs;  /* trace byte offset of the packet that ended each PC's block */
    uint64_t *pcs;
    size_t npcs, cap;
    struct nrt_item *data;
    size_t ndata, capd;
    uint64_t blocks, syncs, gaps, errors, traps, nocount_blocks;
    uint64_t bad_blocks; /* blocks that could not be expanded with the program's code */
    uint64_t gap_reasons[8];
    char first_error[400];
    char last_gap[400];
    struct nrt_gap *gapv; /* every gap and error note, in order */
    size_t ngapv, capgapv;
    int rc;
    char msg[512];
};
void nrt_dec_free(struct nrt_dec *d);
/* dec_img: the image the decoder walks (an empty one to decode without
 * code); ref_img: the program, to expand blocks into PCs. */
int nrt_decode(const struct rvt_codec *c, const void *cfg, const struct rvt_image *dec_img,
               const struct rvt_image *ref_img, unsigned xlen, int ecall, const uint8_t *buf, size_t len,
               struct nrt_dec *d);

/* got == exp, or (suffix) got is the tail of exp.  Explains in why. */
bool nrt_same_pcs(const uint64_t *exp, size_t nexp, const uint64_t *got, size_t ngot, bool suffix, char *why,
                  size_t whylen);

/* got is exp with holes: runs of consecutive expected instructions, in
 * order (what decoding a damaged trace gives), plus at most junk_budget
 * instructions that were not executed there (decoded from damage before
 * the decoder detected it).  *runs, *junk: how many of each. */
bool nrt_holes_ok(const uint64_t *exp, size_t nexp, const uint64_t *got, size_t ngot, size_t junk_budget,
                  size_t *runs, size_t *junk, char *why, size_t whylen);

/* Every decoded segment (PCs between resynchronisations) is a run of
 * consecutive executed instructions, the runs in execution order: what
 * decoding a trace with dropped (not damaged) data must give. */
bool nrt_segments_ok(const uint64_t *exp, size_t nexp, const struct nrt_dec *d, size_t *segs, char *why,
                     size_t whylen);

/* Decoded instructions of a damaged trace that the clean trace decodes the
 * same way, by trace offset (the packet that ends their block) and
 * address: *good of them; *junk were decoded from damage. */
void nrt_match_clean(const struct nrt_dec *clean, const struct nrt_dec *dmg, size_t *good, size_t *junk,
                     uint8_t *is_junk);

/* The program images of tests/data/flow and tests/data/ntrace-t1. */
struct rvt_image *nrt_load(const char *rel);
uint64_t nrt_sym(const struct rvt_image *img, const char *name);

/* A program, its execution and what decoding it must give. */
struct nrt_prog {
    const char *name;
    struct rvt_image *img;
    unsigned xlen;
    struct nrt_exec x;
    uint64_t *pcs;
    size_t npcs;
    struct nrt_item *data;
    size_t ndata;
    const struct nrt_prog *alt; /* the same program without interrupts (for configurations that need it) */
    const char *ecall;          /* the execution's ecall behaviour ("trap" for flowtest) or NULL */
};
bool nrt_prog_flowtest(struct nrt_prog *p, const char *elf, unsigned xlen, unsigned iters, unsigned extra);
bool nrt_prog_pclist(struct nrt_prog *p, const char *elf, const char *list, unsigned extra);
/* The bundled real capture (tests/data/real: bzip2 -9 under QEMU user
 * mode, 1.47 M instructions, ecall sequential); false if xz is missing. */
bool nrt_prog_real(struct nrt_prog *p);
/* A generated program (nrt_exec_gen), named gen32/gen64[-merged], ecall
 * trapping (bare metal). */
bool nrt_prog_gen(struct nrt_prog *p, unsigned xlen, uint32_t features, uint64_t seed, bool merge, uint64_t insns);
void nrt_prog_free(struct nrt_prog *p);
/* Configure (options "name", "value", ..., NULL), encode, decode (with the
 * program's image, or an empty one for nocode).  *cfgp (if given) keeps the
 * configuration for the caller to free. */
bool nrt_run(const struct rvt_codec *codec, const struct nrt_prog *p, const char *const *opts, bool nocode,
             struct nrt_enc *enc, struct nrt_dec *dec, void **cfgp);
const char *nrt_opts_desc(const char *const *opts, char *buf, size_t n);
/* The decoded values of `kind` equal the expected ones (and their
 * instruction indices when with_index). */
void nrt_check_data(const struct nrt_prog *p, const struct nrt_dec *d, uint8_t kind, bool with_index,
                    const char *what);

#endif

/* rvtrace — filters and triggers: which retired instructions are traced.
 *
 * The filter sits between ingress and the encoder:
 *
 *   ingress ──► filter ──► encoder
 *
 * It never drops a record: a record whose instructions are not qualified
 * for tracing keeps flowing with RVT_ING_UNQUALIFIED set, and encoders emit
 * their format's trace-off / trace-on (+ resynchronisation) when the flag
 * changes.  A record retiring several instructions is split where the
 * qualification changes inside it (instruction boundaries come from the
 * image's block cache, never guessed), so an encoder only ever sees whole
 * qualified or whole unqualified records.
 *
 * The model is the one of the RISC-V Trace Control Interface (E-Trace
 * chapter "Filtering", seed 001 chapter 4):
 *
 *  - comparator units (trTeComp<j>): a primary (P) and a secondary (S)
 *    comparator on iaddr, context or tval with = != < <= > >= / always /
 *    never, combined as P, P&&S, !(P&&S) or a latch (set by P, cleared after
 *    the instruction on which S is true); S may instead mask P;
 *  - filter units (trTeFilter<i>): the AND of privilege choice, exception
 *    cause choice, interrupt/exception, up to 3 comparator units and the
 *    masked impdef (user sideband) input; the enabled filters selected by
 *    trTeInstFilters are ORed (none selected: everything qualifies);
 *  - debug-module triggers (mcontrol action 2/3/4 = trace on / trace off /
 *    trace notify, seed 001 table 4.1) that set or clear trTeInstTracing or
 *    ask for the address of one instruction to be reported.
 *
 * An instruction is qualified when trTeInstTracing is 1 and the filters
 * match it (and it was not already unqualified on input).  Every decision
 * is made per instruction, as if the hart retired one instruction per cycle
 * (the E-Trace rule that multiple retirement must give the same packets).
 * docs/filters.md documents the model and the text syntax.
 */
#ifndef RVTRACE_FILTER_H
#define RVTRACE_FILTER_H
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include "rvtrace/common.h"
#include "rvtrace/image.h"
#include "rvtrace/ingress.h"
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Trace-notify request: set on a qualified record whose *last* instruction
 * must be reported explicitly (a watchpoint: debug trigger action 4 or a
 * comparator's P/S notify).  The filter ends the record at that
 * instruction.  Bit 15 of rvt_ing_rec.flags is reserved for it here until
 * enum rvt_ing_flags adopts it; encoders without notify support ignore it. */
#define RVT_FILTER_NOTIFY RVT_ING_NOTIFY

#define RVT_FILTER_MAX_COMPARATORS 8 /* trTeFilterComp<n> fields are 3 bits */
#define RVT_FILTER_MAX_FILTERS 16    /* trTeInstFilters is a 16-bit mask */
#define RVT_FILTER_COMPS_PER_FILTER 3
#define RVT_FILTER_MAX_TRIGGERS 16
#define RVT_FILTER_MAX_EVENTS 64

/* ---- comparator units (trTeComp<j>Control, PMatch, SMatch) ---------------- */

/* trTeCompPInput / trTeCompSInput.  daddr (3) needs data trace: rejected. */
enum rvt_cmp_input {
    RVT_CMP_IADDR = 0,   /* the instruction's address */
    RVT_CMP_CONTEXT = 1, /* the record's context */
    RVT_CMP_TVAL = 2     /* tval of the most recent trap (held, like mtval) */
};

/* trTeCompPFunction / trTeCompSFunction.  Comparisons are unsigned, on the
 * input's width only (iaddr/tval: xlen bits; context: context_width). */
enum rvt_cmp_fn {
    RVT_CMP_EQ = 0,
    RVT_CMP_NE = 1,
    RVT_CMP_LT = 2,
    RVT_CMP_LE = 3,
    RVT_CMP_GT = 4,
    RVT_CMP_GE = 5,
    RVT_CMP_P_NEVER = 6, /* primary: always false; primes the latch to 1 in LATCH mode */
    RVT_CMP_S_MASK = 6,  /* secondary: always true; s_match masks the primary comparison */
    RVT_CMP_ALWAYS = 7   /* always true (input ignored) */
};

/* trTeCompMatchMode. */
enum rvt_cmp_mode {
    RVT_CMP_MODE_P = 0,           /* P */
    RVT_CMP_MODE_P_AND_S = 1,     /* P && S */
    RVT_CMP_MODE_NOT_P_AND_S = 2, /* !(P && S) */
    RVT_CMP_MODE_LATCH = 3        /* true from an instruction where P is true up to and
                                     including the instruction where S is true */
};

struct rvt_comparator {
    uint8_t p_input, s_input; /* enum rvt_cmp_input */
    uint8_t p_fn, s_fn;       /* enum rvt_cmp_fn */
    uint8_t mode;             /* enum rvt_cmp_mode */
    bool p_notify, s_notify;  /* trTeCompPNotify/SNotify: report the qualified instruction on
                                 which P (S) is true (iaddr input only) */
    uint64_t p_match, s_match;
};

/* ---- filter units (trTeFilter<i>Control, MatchInst, MatchEcause, impdef) --- */

struct rvt_filter_unit {
    bool enable;               /* trTeFilterEnable */
    bool match_priv;           /* trTeFilterMatchPrivilege */
    uint8_t priv_choice;       /* bit N: match priv N (enum rvt_priv) */
    bool match_ecause;         /* from a trap whose cause is chosen to the return from it */
    uint64_t ecause_choice;    /* bit N: cause N */
    bool match_interrupt;      /* from an interrupt (value 1) / exception (0) to its return */
    bool interrupt_value;
    bool match_comp[RVT_FILTER_COMPS_PER_FILTER]; /* trTeFilterMatchComp1..3 */
    uint8_t comp[RVT_FILTER_COMPS_PER_FILTER];    /* trTeFilterComp1..3: comparator index */
    bool match_impdef;
    uint32_t impdef_value, impdef_mask; /* (impdef & mask) == (value & mask) */
};

/* ---- debug-module triggers (mcontrol with a trace action) ----------------- */

enum rvt_trig_action {
    RVT_TRIG_TRACE_ON = 2,  /* trTeInstTracing -> 1 from this instruction on */
    RVT_TRIG_TRACE_OFF = 3, /* trTeInstTracing -> 0 after this instruction */
    RVT_TRIG_NOTIFY = 4     /* report this instruction (seed 001: "trace single") */
};
/* mcontrol execute/store/load bits. */
enum rvt_trig_select {
    RVT_TRIG_LOAD = 1u << 0,   /* data address of a load (records with RVT_ING_HAS_MEM) */
    RVT_TRIG_STORE = 1u << 1,  /* data address of a store */
    RVT_TRIG_EXECUTE = 1u << 2 /* instruction address */
};
/* mcontrol match (values as in the debug specification; RANGE is the
 * chained pair "GE tdata2" + "LT tdata3"). */
enum rvt_trig_match {
    RVT_TRIG_MATCH_EQ = 0,
    RVT_TRIG_MATCH_NAPOT = 1, /* top bits equal: tdata2's trailing ones give the size */
    RVT_TRIG_MATCH_GE = 2,
    RVT_TRIG_MATCH_LT = 3,
    RVT_TRIG_MATCH_NE = 8,
    RVT_TRIG_MATCH_RANGE = 16 /* tdata2 <= value < tdata3 */
};
struct rvt_debug_trigger {
    uint8_t action; /* enum rvt_trig_action */
    uint8_t select; /* enum rvt_trig_select bits */
    uint8_t match;  /* enum rvt_trig_match */
    uint8_t privs;  /* bit N: fires when priv is N (mcontrol m/s/u, vs/vu); 0: any */
    uint64_t tdata2, tdata3;
};

/* ---- user sideband (impdef) schedule --------------------------------------- */

/* From the hart's `index`-th retired instruction (0-based) on, the impdef
 * input holds `impdef`.  Events are applied in index order. */
struct rvt_sideband_event {
    uint64_t index;
    uint32_t impdef;
};

/* ---- configuration --------------------------------------------------------- */

struct rvt_filter_config {
    size_t size;                  /* sizeof(struct rvt_filter_config) */
    const struct rvt_image *image;/* symbols (parser) and instruction boundaries (splitting) */
    unsigned xlen;                /* 32 or 64; 0: from the image, else 64 */
    unsigned context_width;       /* bits of context compared; 0: 64 */
    bool tracing_off_at_start;    /* trTeInstTracing = 0 until a trace-on trigger */
    uint32_t trap_nesting_max;    /* nested-trap counter saturates here (0: 2^32-1) */
    uint32_t impdef;              /* impdef input before any sideband event */
    uint16_t inst_filters;        /* trTeInstFilters: bit i selects filter[i]; 0: all qualify */
    unsigned ncomparators;        /* comparator units configured (comp[0..n-1]) */
    unsigned nfilters;            /* filter units configured (filter[0..n-1]) */
    unsigned ntriggers;
    unsigned nevents;
    struct rvt_comparator comp[RVT_FILTER_MAX_COMPARATORS];
    struct rvt_filter_unit filter[RVT_FILTER_MAX_FILTERS];
    struct rvt_debug_trigger trigger[RVT_FILTER_MAX_TRIGGERS];
    struct rvt_sideband_event event[RVT_FILTER_MAX_EVENTS];
};

/* Empty configuration: everything qualifies. */
void rvt_filter_config_init(struct rvt_filter_config *cfg);
/* True if the configuration can leave an instruction unqualified or ask for
 * a notify (i.e. the filter is worth running). */
bool rvt_filter_config_active(const struct rvt_filter_config *cfg);

/* ---- the text syntax (docs/filters.md) ------------------------------------- */

/* Add the filter(s) of one spec ("addr in 0x20010000..0x20010400 and priv == U",
 * alternatives separated by "or" become separate filter units).  Symbols are
 * looked up in cfg->image.  Errors name the spec, the column and what was
 * expected; cfg is unchanged on error. */
int rvt_filter_parse(struct rvt_filter_config *cfg, const char *spec, struct rvt_diag *d);
/* Add debug triggers: "on@0x20010544,off@0x20010600", "notify@main",
 * "on@load:0x80001000", "on@0x100..0x200", "initial=off". */
int rvt_filter_parse_trigger(struct rvt_filter_config *cfg, const char *spec, struct rvt_diag *d);
/* Add sideband events: "impdef=0x3@1000,impdef=0@2000" ("impdef=V" alone: initial value). */
int rvt_filter_parse_sideband(struct rvt_filter_config *cfg, const char *spec, struct rvt_diag *d);
/* A file of lines "filter SPEC", "trigger SPEC", "sideband SPEC"; '#' starts a comment.
 * Errors name the file and line. */
int rvt_filter_parse_file(struct rvt_filter_config *cfg, const char *path, struct rvt_diag *d);
/* Print the configuration, one unit per line, with its register values. */
int rvt_filter_describe(const struct rvt_filter_config *cfg, FILE *out);

/* The filter and comparator registers of encoder idx of a Trace Control
 * Interface model (trTeInstFilters, trTeFilter<i>*, trTeComp<j>*), field by
 * field, into cfg (image, xlen and context_width are kept).  Returns 1 if
 * trTeInstFilters selects filters, 0 if it selects none (cfg then lets
 * everything through), <0 on error. */
struct rvt_tci;
int rvt_filter_config_from_tci(struct rvt_filter_config *cfg, struct rvt_tci *t, unsigned idx, struct rvt_diag *d);

/* CLI glue: apply option `name` ("filter", "trigger", "sideband",
 * "filter-file", without dashes) with its value.  Returns 1 if the option
 * is a filter option (applied), 0 if it is not one, <0 on error. */
int rvt_filter_option(struct rvt_filter_config *cfg, const char *name, const char *value, struct rvt_diag *d);
/* Help text for those options (lines of "  --name ARG   what"). */
const char *rvt_filter_options_help(void);

/* ---- the filter ------------------------------------------------------------ */

struct rvt_filter;
/* Validates the configuration (indexes, functions, inputs) with messages. */
int rvt_filter_new(struct rvt_filter **out, const struct rvt_filter_config *cfg, struct rvt_diag *d);
void rvt_filter_free(struct rvt_filter *f);
const char *rvt_filter_error(const struct rvt_filter *f);

/* Filter one record: emit() receives it, or the pieces it is split into, in
 * order, with RVT_ING_UNQUALIFIED / RVT_FILTER_NOTIFY set as decided.
 * State is kept per hart (rec->hart).  A negative emit() return aborts and
 * is returned.  A multi-instruction record is walked (and checked against
 * the code: -RVT_ERR_NOCODE / -RVT_ERR_MISMATCH before anything is emitted)
 * only when the decision may change inside it; without an image that is an
 * error, and records decided whole are counted in `insns` only if their
 * instruction count is known (one instruction, or an image). */
int rvt_filter_put(struct rvt_filter *f, const struct rvt_ing_rec *in, rvt_ing_emit_fn emit, void *ctx);
/* End of the stream (no more records; statistics are final). */
int rvt_filter_finish(struct rvt_filter *f);
/* Drive the impdef (user sideband) input of a hart from the next record on. */
void rvt_filter_set_impdef(struct rvt_filter *f, unsigned hart, uint32_t impdef);

struct rvt_filter_stats {
    uint64_t records_in, records_out;
    uint64_t insns, insns_traced;   /* retired instructions seen / qualified */
    uint64_t traps, traps_traced;   /* records retiring nothing (traps) seen / qualified */
    uint64_t on_transitions;        /* unqualified -> qualified (per hart; the start is not one) */
    uint64_t off_transitions;       /* qualified -> unqualified */
    uint64_t notifies;              /* records marked RVT_FILTER_NOTIFY */
    uint64_t splits;                /* extra records made by splitting */
};
/* Copies min(size, sizeof stats) bytes. */
void rvt_filter_get_stats(const struct rvt_filter *f, struct rvt_filter_stats *st, size_t size);

/* ---- as a reader: what the CLI puts between the input and the encoder ------ */

enum rvt_filter_reader_mode {
    RVT_FILTER_MARK = 0, /* every record, flagged (feed an encoder) */
    RVT_FILTER_DROP = 1  /* only qualified records (the expected decode, for comparisons) */
};
/* A reader that yields `in`'s records through f.  Takes over `in` (closed
 * with the result); f is not owned and must outlive the reader. */
int rvt_filter_reader(struct rvt_ing_reader **out, struct rvt_ing_reader *in, struct rvt_filter *f,
                      enum rvt_filter_reader_mode mode, struct rvt_diag *d);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif

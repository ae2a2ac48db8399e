/* rvtrace — the flow engine: the one code walker every decoder feeds.
 *
 * A decoder turns packets into calls on a struct rvt_flow:
 *
 *   rvt_flow_sync(f, addr, ...)        start/resync at a full address
 *   rvt_flow_push_branches(f, bits, n) outcomes of the next n conditional branches
 *   rvt_flow_walk(f, &limit, &stop)    retire code until a limit or a decision
 *   rvt_flow_branch/jump/trap/...      resolve the pending decision
 *   rvt_flow_gap(f, ...)               trace off, data lost, decoder error
 *
 * The engine walks the image one cached block at a time, follows inferable
 * jumps (and returns predicted by the implicit-return call stack, when the
 * walk asks for it), consumes queued branch outcomes, and emits *blocks* —
 * maximal runs of sequentially retired instructions — to a sink.  When the
 * events and the code disagree it fails with the address, the event and
 * what the code expected.
 */
#ifndef RVTRACE_FLOW_H
#define RVTRACE_FLOW_H
#pragma GCC visibility push(default) /* exported: the public API (CMakeLists.txt) */

#include "rvtrace/common.h"
#include "rvtrace/image.h"
#include "rvtrace/ingress.h"
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- call stack (shared by encoders and the flow engine) --------------- */

/* What happens when a call is pushed onto a full stack. */
enum rvt_cs_overflow {
    RVT_CS_DROP_OLDEST = 0, /* circular: the oldest entry is overwritten */
    RVT_CS_IGNORE_NEW = 1   /* the new entry is not pushed */
};

#define RVT_CALLSTACK_MAX 1024

struct rvt_callstack {
    uint64_t entry[RVT_CALLSTACK_MAX]; /* return addresses, circular */
    unsigned depth;                    /* capacity in use (0 = disabled) */
    unsigned count;                    /* entries held (<= depth) */
    unsigned top;                      /* index of the next free slot */
    enum rvt_cs_overflow overflow;
};

void rvt_cs_init(struct rvt_callstack *cs, unsigned depth, enum rvt_cs_overflow overflow);
void rvt_cs_clear(struct rvt_callstack *cs);
/* Push a return address; returns true if an entry was lost (overflow). */
bool rvt_cs_push(struct rvt_callstack *cs, uint64_t ret);
/* Pop into *ret; false if empty. */
bool rvt_cs_pop(struct rvt_callstack *cs, uint64_t *ret);
/* Peek at the top; false if empty. */
bool rvt_cs_peek(const struct rvt_callstack *cs, uint64_t *ret);

/* ---- blocks: what the engine emits ------------------------------------- */

enum rvt_block_end {
    RVT_END_SEQ = 0,   /* cut without a discontinuity (limit, resync, end) */
    RVT_END_BRANCH,    /* taken conditional branch */
    RVT_END_JUMP,      /* jump without linkage (inferable or not) */
    RVT_END_CALL,      /* call (jal/jalr with x1/x5, other linking jump) */
    RVT_END_RETURN,    /* return */
    RVT_END_COSWAP,    /* co-routine swap */
    RVT_END_TRAP,      /* exception or interrupt after the last instruction */
    RVT_END_TRAPRET,   /* mret/sret/... */
    RVT_END_ECALL,     /* ecall treated as an uninferable jump (user emulation) */
    RVT_END_GAP        /* trace stopped / lost / error: `next` unknown */
};
const char *rvt_block_end_name(unsigned end);

enum rvt_block_flags {
    RVT_BLK_INTERRUPT = 1u << 0, /* END_TRAP: asynchronous */
    RVT_BLK_IMPLICIT = 1u << 1,  /* RETURN predicted by the call stack */
    RVT_BLK_HAS_TIME = 1u << 2,
    /* Built without a code image (from recorded addresses and counts): */
    RVT_BLK_LAST_UNKNOWN = 1u << 3,  /* the last instruction's address is not known; `last` holds
                                        the address after the block if known, else 0 */
    RVT_BLK_COUNT_UNKNOWN = 1u << 4  /* `ninsns` is not known (1 is stored): the block runs from
                                        `start` to `last` */
};

struct rvt_block {
    uint64_t start;   /* first instruction */
    uint64_t last;    /* last instruction */
    uint64_t next;    /* where execution continued (valid unless END_GAP/SEQ-at-end) */
    uint64_t ninsns;  /* instructions in the block (>= 1) */
    uint64_t index;   /* stream index of the first instruction */
    uint64_t context;
    uint64_t time;
    uint64_t tval;    /* END_TRAP */
    uint64_t trace_offset; /* byte offset in the trace of the packet that ended the block */
    uint32_t cause;   /* END_TRAP */
    uint8_t end;      /* enum rvt_block_end */
    uint8_t cf;       /* class of the last instruction */
    uint8_t priv;
    uint8_t flags;    /* enum rvt_block_flags */
    uint8_t last_len; /* bytes of the last instruction (block spans start .. last+last_len) */
};

/* Non-block events a consumer may want (for listings and loss reports). */
enum rvt_note_kind {
    RVT_NOTE_SYNC = 1,   /* resynchronised at `addr` */
    RVT_NOTE_GAP,        /* trace lost / off from here (reason in `reason`) */
    RVT_NOTE_ERROR,      /* decoder error at `offset`; `text` explains; resync follows */
    RVT_NOTE_CONTEXT,    /* priv/context changed */
    RVT_NOTE_TIME,       /* timestamp */
    RVT_NOTE_TRAP,       /* trap with no instruction retired since the last sync/trap
                            (cause in `value`, epc in `addr`, `tval`, `reason` 1 for an interrupt);
                            other traps end a block */
    RVT_NOTE_DATA        /* a traced data value: kind in `reason` (enum rvt_data_kind) */
};
/* RVT_NOTE_DATA: `index` is the instruction it belongs to (when known),
 * `addr` the register number or memory address, `value` the value. */
enum rvt_data_kind {
    RVT_DATA_REG_WRITE = 1, /* addr = register (0..31 x, 32..63 f), value = written value */
    RVT_DATA_LOAD_ADDR,     /* value = address loaded from */
    RVT_DATA_STORE_ADDR,    /* value = address stored to */
    RVT_DATA_LOAD_VALUE,    /* value = data loaded (or CSR read) */
    RVT_DATA_STORE_VALUE,   /* value = data stored (or CSR written) */
    RVT_DATA_TRACEPOINT,    /* value = tracepoint type */
    RVT_DATA_HART,          /* value = hart whose trace follows */
    /* E-Trace data trace (docs/etrace.md); `addr` is the access's address
     * (CSR: number) for all of an access's notes: */
    RVT_DATA_CSR_ADDR,      /* value = CSR number accessed */
    RVT_DATA_CSR_VALUE,     /* value = the CSR's data (written, or read when nothing is written) */
    RVT_DATA_OPERAND,       /* value = operand of an atomic (rs2) or CSR access (rs1 / immediate) */
    RVT_DATA_SC_FAIL,       /* value = address of a store-conditional that failed */
    RVT_DATA_LOST           /* the access of instruction `index` (at `addr`) is not in the trace:
                               `text` says why; index UINT64_MAX: `value` packets that could not
                               be decoded */
};
/* What a decoder reports besides the instruction flow, for one family
 * configuration (struct rvt_codec.traced): the round-trip comparison
 * (rvt_seqcmp) checks exactly these against the ingress records. */
enum rvt_traced {
    RVT_TRACED_PRIV = 1u << 0,        /* blocks carry the privilege of their instructions */
    RVT_TRACED_PRIV_UMS = 1u << 1,    /* ...as U, S or M only (VU -> U, VS -> S, debug -> M) */
    RVT_TRACED_TIME = 1u << 2,        /* RVT_NOTE_TIME at every change of the records' time, in order */
    RVT_TRACED_REG_WRITE = 1u << 3,   /* RVT_DATA_REG_WRITE for every register write */
    RVT_TRACED_LOAD_ADDR = 1u << 4,   /* RVT_DATA_LOAD_ADDR for every load */
    RVT_TRACED_STORE_ADDR = 1u << 5,  /* RVT_DATA_STORE_ADDR for every store */
    RVT_TRACED_LOAD_VALUE = 1u << 6,  /* RVT_DATA_LOAD_VALUE for every load (and CSR read, below) */
    RVT_TRACED_STORE_VALUE = 1u << 7, /* RVT_DATA_STORE_VALUE for every store (and CSR write) */
    RVT_TRACED_CSR_VALUES = 1u << 8,  /* CSR instructions: the value read as load data, the value written
                                         (a store value without an address) as store data */
    RVT_TRACED_TRACEPOINT = 1u << 9,  /* RVT_DATA_TRACEPOINT for every tracepoint */
    RVT_TRACED_HART = 1u << 10,       /* RVT_DATA_HART at every change of the records' hart */
    RVT_TRACED_DATA_INDEX = 1u << 11, /* data notes name their instruction exactly (`index`) */
    RVT_TRACED_TIME_SAMPLED = 1u << 12, /* RVT_NOTE_TIME with the time of some records, in order (a format
                                          that sends the time only with some packets) */
    /* The data trace interface's other accesses (records with a dtype, ingress.h): */
    RVT_TRACED_CSR_ADDR = 1u << 13,  /* RVT_DATA_CSR_ADDR for every CSR access */
    RVT_TRACED_CSR_VALUE = 1u << 14, /* RVT_DATA_CSR_VALUE for every CSR access with values */
    RVT_TRACED_OPERAND = 1u << 15,   /* RVT_DATA_OPERAND for every atomic, failed store-conditional and CSR
                                        access with values (but a read-only CSR's: it cannot be written, so
                                        its operand is 0) */
    RVT_TRACED_SC_FAIL = 1u << 16,   /* RVT_DATA_SC_FAIL (its address) for every failed store-conditional */
    RVT_TRACED_NO_INSNS = 1u << 17   /* no instruction flow: the decode gives no blocks, only the data notes
                                        of the other flags, in order and tied to no instruction (E-Trace
                                        --data-trace only) */
};
enum rvt_gap_reason {
    RVT_GAP_TRACE_OFF = 1, /* tracing disabled / filtered out */
    RVT_GAP_LOST,          /* overflow: the encoder dropped trace */
    RVT_GAP_ERROR,         /* the decoder could not follow: corrupt or inconsistent trace */
    RVT_GAP_WRAP,          /* circular buffer overwrote older trace */
    RVT_GAP_END,           /* trace ended (truncated) */
    RVT_GAP_LIMIT          /* the decode stopped: the configured instruction limit was reached */
};
struct rvt_note {
    uint64_t addr;
    uint64_t offset;     /* trace byte offset */
    uint64_t value;      /* context or time */
    uint64_t index;      /* instruction index in the stream at this point */
    const char *text;    /* NOTE_ERROR: message */
    uint8_t kind;        /* enum rvt_note_kind */
    uint8_t reason;      /* enum rvt_gap_reason */
    uint8_t priv;
    uint64_t tval;       /* NOTE_TRAP: the trap value */
};

/* What a consumer that only counts blocks gets instead of them
 * (rvt_flow_sink.counts): the blocks emitted since the last delivery. */
struct rvt_block_counts {
    uint64_t blocks;   /* how many */
    uint64_t insns;    /* the sum of their ninsns */
    uint64_t ends[16]; /* how many by enum rvt_block_end */
};

/* Of a block, where it starts and how many instructions it has: all a PC
 * list needs (rvt_flow_sink.runs). */
struct rvt_block_run {
    uint64_t start, ninsns;
};

/* Initialise it with designated initialisers ({.block = ..., .ctx = ...}):
 * members may be added. */
struct rvt_flow_sink {
    int (*block)(void *ctx, const struct rvt_block *b); /* nonzero return aborts the decode */
    int (*note)(void *ctx, const struct rvt_note *n);   /* optional */
    void *ctx;
    /* Optional: blocks in batches (b[0..n-1], in order), which costs a
     * consumer with little work per block (a count) one call per batch
     * instead of one per block.  When set the engine uses it instead of
     * `block` (which must still be set: a sink put in front of this one,
     * rvt_flow_set_sink, passes blocks on one at a time).  The engine hands
     * over the batch it holds before every note (so blocks and notes keep
     * their order), when it fails, when the trace ends (rvt_flow_finish,
     * rvt_flow_gap), on rvt_flow_set_sink/rvt_flow_reset and at the latest
     * in rvt_flow_free: the consumer must live until then.  A nonzero
     * return aborts the decode: the call that delivered fails (or, from
     * rvt_flow_set_sink/rvt_flow_reset, the next one that can). */
    int (*blocks)(void *ctx, const struct rvt_block *b, size_t n);
    /* Optional, for a consumer that needs no block's fields but its end
     * and instruction count (`--output count`): the engine counts the
     * blocks instead of building them (the walk that emits most of them
     * writes nothing per block but its end) and hands over the counts
     * when it would hand over a batch (above; the same rules, the same
     * stops).  When set it is used instead of `blocks` and `block` (which
     * must still be set, for a sink put in front of this one). */
    int (*counts)(void *ctx, const struct rvt_block_counts *c);
    /* Optional, for a consumer that needs of a block only where it starts
     * and how many instructions it has (a PC list made on other threads:
     * src/parallel/pardecode.c): the engine writes those (struct
     * rvt_block_run) straight into memory the consumer lends, and counts
     * the blocks as for `counts`, instead of building each block and
     * calling `block` — the decoding thread's cost per block is then two
     * stores.  Used only when `runs_image` is the engine's image: a run is
     * a block the engine retired from that image's code, so a consumer
     * that lists the image's code can list every run, and needs no check
     * that would stop the decode at a run.  A block a decoder gives
     * (rvt_flow_emit_block), which may lie outside the code, still goes to
     * `block`, one at a time, after the runs before it.
     * The call takes the n runs written at the start of the room it lent
     * last, their counts c and the stream index of the first one's first
     * instruction (each next one's follows on: the one before's plus its
     * instruction count); the rest of that room is the consumer's
     * again.  Then, when room is not NULL, it lends room for at least one
     * more run (*room, *cap >= 1); room NULL: nothing is lent (a note or a
     * block given one at a time may come next).  The engine hands its runs
     * over when the room is full and when it would hand over a batch
     * (`blocks`: the same rules, the same stops).  A nonzero return, or no
     * room lent, aborts the decode.  When it is used, `blocks` is not
     * (`block` must still be set); `counts`, when set, is used instead. */
    int (*runs)(void *ctx, size_t n, const struct rvt_block_counts *c, uint64_t index, struct rvt_block_run **room,
                size_t *cap);
    const struct rvt_image *runs_image;
    /* Runs only of blocks that end neither in a trap nor in an implicit
     * return (a listing names more of those: they go to `block`). */
    bool runs_plain;
};

/* ---- the engine --------------------------------------------------------- */

/* How the walker treats ecall/ebreak.  TRAP: they do not retire; the walk
 * stops before them (RVT_STOP_TRAPINSN) for the decoder to report the trap. */
enum rvt_flow_ecall {
    RVT_FLOW_ECALL_SEQUENTIAL = 0, /* user-mode emulation: ecall falls through */
    RVT_FLOW_ECALL_UNINFERABLE = 1,/* reference N-Trace: ecall is an uninferable call (target from trace) */
    RVT_FLOW_ECALL_TRAP = 2        /* system mode: ecall/ebreak trap */
};

struct rvt_flow_config {
    size_t size;                     /* sizeof(struct rvt_flow_config) */
    const struct rvt_image *image;   /* required */
    unsigned xlen;                   /* 0: from image */
    enum rvt_flow_ecall ecall;
    unsigned callstack_depth;        /* implicit-return stack (0: none) */
    enum rvt_cs_overflow callstack_overflow;
    bool sijump;                     /* follow sequentially inferable jumps */
    /* ...also when the auipc/lui/c.lui was the last instruction of the
     * previous walk or cache block (the plain ingress rule: it retired just
     * before the jump).  A family whose encoder adds conditions of its own
     * (E-Trace: not right after a sync) turns this off and decides those
     * pairs itself. */
    bool sijump_no_across;
    /* A return resolved explicitly (rvt_flow_jump) also pops the call stack
     * entry it would have used (the encoder must do the same). */
    bool pop_on_explicit_return;
    struct rvt_flow_sink sink;
    /* Bounded work: retire at most this many instructions (0: no limit).
     * The walk that would retire one more emits the block so far and a
     * NOTE_GAP with reason RVT_GAP_LIMIT, and fails with RVT_ERR_LIMIT; from
     * then on the engine emits nothing and every call that would retire or
     * report fails with RVT_ERR_LIMIT, so a decoder stops however it
     * handles the error. */
    uint64_t max_insns;
    /* Walk every cache block with the engine's general step, not its fast
     * path.  The result is the same, only slower: this is the reference
     * the tests hold the fast path to.  Decoders that have a fast packet
     * reader read every packet with their general one then too
     * (rvt_flow_reference). */
    bool no_fast_walk;
    /* Optional: called from rvt_flow_set_offset each time the decode has
     * moved at least progress_every bytes (0: 1 MiB) past the offset of the
     * last call (e.g. to give back the pages of a mapped trace behind it). */
    void (*progress)(void *ctx, uint64_t offset);
    void *progress_ctx;
    uint64_t progress_every;
    /* The trace begins where tracing began (a file, a RAM that did not
     * wrap): it starts with a sync point, so the undecodable bytes a
     * decoder reports before its first one (RVT_GAP_WRAP: the bytes alone
     * cannot tell a damaged start from a wrapped RAM) are damage.  Such a
     * note reaches the sink as RVT_NOTE_ERROR, reason RVT_GAP_ERROR, its
     * text saying so. */
    bool starts_at_trace_start;
    /* Co-routine swaps neither pop nor push the call stack (E-Trace:
     * branchTrace.adoc's stack counts calls and returns only, and the jump
     * classes make a swap neither).  Otherwise a swap pushes its link, and
     * pops first with pop_on_explicit_return (N-Trace's "Pop,Push"). */
    bool swap_keeps_stack;
};

struct rvt_flow;
struct rvt_flow *rvt_flow_new(const struct rvt_flow_config *cfg);
void rvt_flow_free(struct rvt_flow *f);
const char *rvt_flow_error(const struct rvt_flow *f);
/* Reset to "no address known" (keeps configuration, clears stack and queue). */
void rvt_flow_reset(struct rvt_flow *f);

/* The decoder learnt from its own configuration (a family's buffer
 * registers or recorder state) that the buffer wrapped: what it reports
 * before its first sync point is the overwritten part, not damage (clears
 * rvt_flow_config.starts_at_trace_start). */
void rvt_flow_buffer_wrapped(struct rvt_flow *f);

/* Byte offset of the packet being applied (goes into blocks, notes and errors). */
void rvt_flow_set_offset(struct rvt_flow *f, uint64_t offset);

/* Start or resynchronise at addr.  Any pending decision and queued branches
 * are dropped (a NOTE_SYNC is emitted).  The call stack is kept unless
 * clear_stack. */
int rvt_flow_sync(struct rvt_flow *f, uint64_t addr, uint8_t priv, uint64_t context, bool clear_stack);
/* Change priv/context from the next instruction on (NOTE_CONTEXT). */
int rvt_flow_set_context(struct rvt_flow *f, uint8_t priv, uint64_t context);
void rvt_flow_set_time(struct rvt_flow *f, uint64_t time);

/* Queue outcomes of the next n (<= 64) conditional branches, bit 0 first
 * (1 = taken). */
int rvt_flow_push_branches(struct rvt_flow *f, uint64_t bits, unsigned n);
unsigned rvt_flow_queued_branches(const struct rvt_flow *f);
void rvt_flow_clear_branches(struct rvt_flow *f);

/* Walk limits.  Zero / absent fields mean "no limit". */
enum rvt_walk_flags {
    RVT_WALK_HALFWORDS = 1u << 0,   /* stop after `halfwords` halfwords retired */
    RVT_WALK_INSNS = 1u << 1,       /* stop after `insns` instructions retired */
    RVT_WALK_ADDR = 1u << 2,        /* stop when the next instruction is at `addr` */
    RVT_WALK_ADDR_NOT_FIRST = 1u << 3, /* ...but not before retiring at least one */
    RVT_WALK_NT_DEFAULT = 1u << 4,  /* branches without a queued outcome are not taken */
    RVT_WALK_IMPLICIT_RET = 1u << 5,/* returns with a non-empty call stack pop it (no stop) */
    RVT_WALK_STOP_BRANCH = 1u << 6, /* stop after every conditional branch, even with outcomes queued */
    RVT_WALK_STOP_JUMP = 1u << 7    /* stop after inferable jumps too (before following) */
};
struct rvt_walk {
    uint32_t flags;
    uint64_t halfwords;
    uint64_t insns;
    uint64_t addr;
    /* Optional: the outcome of a conditional branch (at addr) that has no
     * queued outcome, asked during the walk so that a decoder whose
     * outcomes come from a predictor need not stop at every branch.
     * Return 1 with *taken set, or 0 to stop there (RVT_STOP_BRANCH). */
    int (*branch_outcome)(void *ctx, uint64_t addr, bool *taken);
    void *branch_ctx;
};

/* Why a walk stopped.  For COUNT/BRANCH/UNINF/JUMP the last retired
 * instruction's successor is pending: resolve it with rvt_flow_branch /
 * rvt_flow_jump / rvt_flow_trap / rvt_flow_continue (a following walk
 * resolves it by the code if it can). */
enum rvt_stop_reason {
    RVT_STOP_COUNT = 1,  /* halfword/instruction limit reached exactly */
    RVT_STOP_ADDR,       /* the next instruction is at walk.addr (not retired) */
    RVT_STOP_BRANCH,     /* a conditional branch retired, no outcome queued (or STOP_BRANCH) */
    RVT_STOP_UNINF,      /* an uninferable jump / trap return / ecall(UNINFERABLE) retired */
    RVT_STOP_JUMP,       /* an inferable jump retired (RVT_WALK_STOP_JUMP) */
    RVT_STOP_TRAPINSN    /* next instruction is ecall/ebreak and ecall mode is TRAP (not retired) */
};
struct rvt_stop {
    uint8_t reason;      /* enum rvt_stop_reason */
    uint8_t cf;          /* class of the last retired instruction (pending one) */
    uint64_t last;       /* address of the last retired instruction (if any this walk) */
    uint64_t pc;         /* address of the next instruction if known (ADDR, TRAPINSN, natural successor) */
    uint64_t insns;      /* instructions retired by this walk */
    uint64_t halfwords;  /* halfwords retired by this walk */
    uint64_t target;     /* static target of the pending branch/jump, if any */
};

/* Retire instructions from the current pc under the limits.  Returns 0 and
 * fills *stop, or <0 on error (no code, count ending mid-instruction, a
 * count that overruns an uninferable jump, ...: rvt_flow_error explains). */
int rvt_flow_walk(struct rvt_flow *f, const struct rvt_walk *w, struct rvt_stop *stop);
/* rvt_flow_walk with {.flags = RVT_WALK_INSNS, .insns = 1}: retire the
 * one instruction at the current pc, at a fraction of a walk's set-up. */
int rvt_flow_walk_one(struct rvt_flow *f, struct rvt_stop *stop);

/* Resolutions of the pending instruction. */
int rvt_flow_branch(struct rvt_flow *f, bool taken);   /* pending must be a conditional branch */
int rvt_flow_jump(struct rvt_flow *f, uint64_t target);/* pending jump/trap return/ecall goes to target */
int rvt_flow_continue(struct rvt_flow *f);             /* natural successor (sequential/inferable/call stack) */
/* A trap after the last retired instruction (or instead of the ecall/ebreak
 * the walk stopped at); execution continues at handler (if known; pass
 * have_handler=false when the handler address comes later, e.g. by sync). */
int rvt_flow_trap(struct rvt_flow *f, bool interrupt, uint32_t cause, uint64_t tval, bool have_handler,
                  uint64_t handler);
/* Trace stopped/lost/error here; the pc becomes unknown until rvt_flow_sync. */
int rvt_flow_gap(struct rvt_flow *f, enum rvt_gap_reason reason, const char *text);
/* Flush the block in progress (end of trace). */
int rvt_flow_finish(struct rvt_flow *f);

/* The sink blocks and notes go to.  A decoder that must see them first
 * (the E-Trace data trace ties accesses to the instructions of blocks)
 * puts its own in front and passes them on. */
struct rvt_flow_sink rvt_flow_get_sink(const struct rvt_flow *f);
void rvt_flow_set_sink(struct rvt_flow *f, const struct rvt_flow_sink *sink);

/* Pass a decoder's own note (e.g. RVT_NOTE_DATA) to the sink as given. */
int rvt_flow_note(struct rvt_flow *f, const struct rvt_note *n);
/* Decoders that rebuild the flow without a code image (CDL and dbg with
 * every target recorded) hand their blocks to the sink through the engine
 * (flushing any block in progress first) so consumers see one stream. */
int rvt_flow_emit_block(struct rvt_flow *f, const struct rvt_block *b);

/* State queries. */
bool rvt_flow_have_pc(const struct rvt_flow *f);
bool rvt_flow_pending(const struct rvt_flow *f);
uint64_t rvt_flow_pc(const struct rvt_flow *f);           /* next pc (if known) */
uint64_t rvt_flow_insns(const struct rvt_flow *f);        /* instructions retired so far */
bool rvt_flow_limit_reached(const struct rvt_flow *f);    /* max_insns stopped the decode */
struct rvt_callstack *rvt_flow_callstack(struct rvt_flow *f);
/* Returns the call stack predicted so far (RVT_BLK_IMPLICIT blocks): a
 * decoder not told the encoder's stack depth learns from them whether it
 * has one. */
uint64_t rvt_flow_implicit_returns(const struct rvt_flow *f);
/* Sequentially inferable jumps followed so far (rvt_flow_config.sijump),
 * and whether the pending instruction is one: likewise for the encoder's
 * sequential-jump setting. */
uint64_t rvt_flow_sijumps(const struct rvt_flow *f);
bool rvt_flow_pending_sijump(const struct rvt_flow *f);
struct rvt_bcache *rvt_flow_bcache(struct rvt_flow *f);
unsigned rvt_flow_xlen(const struct rvt_flow *f);
bool rvt_flow_reference(const struct rvt_flow *f); /* no_fast_walk: take the general paths */

/* Per-instruction adapter: call fn for every instruction of a block emitted
 * by this flow (addresses in order).  Uses the block cache.  A nonzero
 * return from fn stops the iteration and is returned. */
typedef int (*rvt_insn_fn)(void *ctx, uint64_t pc, const struct rvt_block *b);
int rvt_flow_block_insns(struct rvt_flow *f, const struct rvt_block *b, rvt_insn_fn fn, void *ctx);
/* The same with any block cache (e.g. a consumer's own, on another thread). */
int rvt_block_insns(struct rvt_bcache *bc, unsigned xlen, const struct rvt_block *b, rvt_insn_fn fn, void *ctx);

/* ---- speculative decode (docs/parallel.md) ------------------------------ */

/* Do a and b (engines of the same configuration) do and emit the same from
 * here on, given the same calls?  Positions, the instruction count and the
 * learnt-setting counters (rvt_flow_implicit_returns, rvt_flow_sijumps:
 * compared by the decoder that consults them) are left out. */
bool rvt_flow_state_equal(const struct rvt_flow *a, const struct rvt_flow *b);
/* Add insns to the instruction count (and the open block's index): an
 * engine that decoded from a fresh state continues a decode that had
 * retired insns instructions before. */
void rvt_flow_rebase(struct rvt_flow *f, uint64_t insns);
/* A fresh decode's start: an empty open block at the pc (a
 * *placeholder*), so that the engine acts as it would if the whole
 * decode's block were open there (it grows, or is emitted with its end);
 * if the whole decode has no block open there, the placeholder's first
 * instructions are the block the whole decode opens.  The block it becomes
 * is the first the engine emits (0 instructions: it ended before any). */
void rvt_flow_placeholder(struct rvt_flow *f);
/* A copy of the open block, if one is open. */
bool rvt_flow_open_block(const struct rvt_flow *f, struct rvt_block *b);
/* Replace the open block (a placeholder's continuation) by b, the block
 * the whole decode has open there; b NULL closes it. */
void rvt_flow_set_open_block(struct rvt_flow *f, const struct rvt_block *b);
/* Back to the state of rvt_flow_new (same configuration and sink), keeping
 * the block cache. */
void rvt_flow_refresh(struct rvt_flow *f);
/* Exchange the two engines' caches of the program (the block cache, the
 * counting walk's memo): what they have learnt about the code, nothing
 * about the trace.  Both engines must have the same configuration and
 * image, and neither be inside a call.  The parallel decode keeps a warm
 * set per thread and lends it to whichever engine the thread runs. */
void rvt_flow_swap_caches(struct rvt_flow *a, struct rvt_flow *b);

/* ---- the ideal decoder: ingress -> flow --------------------------------- */

/* Feed a flow from ingress records directly (no trace family).  This is
 * what `rvtrace check` runs and the reference for every decoder: the blocks
 * must reproduce the records' instructions. */
struct rvt_ingflow;
struct rvt_ingflow *rvt_ingflow_new(struct rvt_flow *f);
void rvt_ingflow_free(struct rvt_ingflow *x);
int rvt_ingflow_put(struct rvt_ingflow *x, const struct rvt_ing_rec *r);
int rvt_ingflow_finish(struct rvt_ingflow *x);
const char *rvt_ingflow_error(const struct rvt_ingflow *x);

/* Every record of `in` through the ideal decoder, each hart with a flow
 * engine of its own (the harts of a multi-hart stream run at once, each its
 * own flow), made from cfg; sink_of (NULL: cfg's sink) gives hart h's sink.
 * after (may be NULL) is called after each record with its hart's engine,
 * and with r NULL once each hart has ended.  What `rvtrace check` and the
 * analysis of a capture run.  Errors name the hart when the stream has
 * several, and the input's record. */
#define RVT_INGFLOW_MAX_HARTS 64
int rvt_ingflow_run(struct rvt_ing_reader *in, const struct rvt_flow_config *cfg,
                    struct rvt_flow_sink (*sink_of)(void *ctx, unsigned hart),
                    void (*after)(void *ctx, unsigned hart, const struct rvt_ing_rec *r, const struct rvt_flow *f),
                    void *ctx, struct rvt_diag *d);

#ifdef __cplusplus
}
#endif
#pragma GCC visibility pop
#endif

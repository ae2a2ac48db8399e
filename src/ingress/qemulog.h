/* rvtrace capture --system: QEMU system-emulation log -> ingress records.
 *
 * Reads the log QEMU writes with `-d plugin,int,in_asm` while the
 * librvtrace-qemu plugin runs (tools/qemu/rvtrace-qemu-sys.c describes the
 * plugin's lines), and rebuilds every hart's retirement order with its
 * traps and privilege levels through one ingress builder per hart.  Records
 * carry `hart` and come out in one stream in the order they became complete
 * (a record is complete when its hart's next instruction or trap is known),
 * which keeps each hart's records in program order and interleaves harts as
 * QEMU ran them.  Anything the log does not explain is an error naming the
 * log line, hart and addresses. */
#ifndef RVT_INGRESS_QEMULOG_H
#define RVT_INGRESS_QEMULOG_H

#include "rvtrace/ingress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QSYS_MAX_HARTS 64

struct qsys_config {
    size_t size;        /* sizeof(struct qsys_config) */
    bool merge_blocks;  /* merge sequential instructions into blocks */
    uint64_t max_insns; /* stop after this many instructions in all (0: no limit) */
    /* The log's header was read: xlen and harts are known (before any record). */
    int (*start)(void *ctx, unsigned xlen, unsigned harts);
    /* One record (hart set). */
    rvt_ing_emit_fn emit;
    void *ctx;
};

struct qsys_hart_stats {
    uint64_t insns, records;
    uint64_t exceptions, interrupts, trap_returns;
    uint64_t priv_changes;
    uint32_t exc_causes;  /* bit c: an exception with cause c (< 32) */
    uint32_t int_causes;  /* bit c: an interrupt with cause c (< 32) */
    uint8_t privs;        /* bit p: instructions retired at priv p (enum rvt_priv) */
    bool ran;
};

struct qsys_stats {
    unsigned xlen, harts;
    uint64_t insns, records, lines, blocks_translated, blocks_executed;
    bool limit_reached;
    struct qsys_hart_stats hart[QSYS_MAX_HARTS];
};

struct qsys;
struct qsys *qsys_new(const struct qsys_config *cfg);
void qsys_free(struct qsys *q);
/* Feed log bytes in any chunks.  Returns 0, 1 when max_insns was reached
 * (the stream is complete: stop feeding and call qsys_finish), or <0. */
int qsys_feed(struct qsys *q, const char *data, size_t len);
/* End of the log: every hart must have ended (the plugin's @E lines). */
int qsys_finish(struct qsys *q);
const char *qsys_error(const struct qsys *q);
/* Has the plugin's header line been read? */
bool qsys_has_header(const struct qsys *q);
void qsys_get_stats(const struct qsys *q, struct qsys_stats *st);

/* Every translated instruction's address and bits, for a code image of
 * what ran (addresses in no particular order; each (pc, bits) once). */
typedef int (*qsys_code_fn)(void *ctx, uint64_t pc, uint32_t bits, unsigned len);
int qsys_code_foreach(const struct qsys *q, qsys_code_fn fn, void *ctx);

#endif

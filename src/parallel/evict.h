/* Whether a threaded decode's worker evicts the cache lines of a batch it
 * has read (internal to src/parallel).
 *
 * The decoding thread writes a batch's entries into a slot of the ring; a
 * worker reads them; the decoding thread writes the same slot again a
 * ring's length of batches later.  If the worker's core still holds those
 * lines, each of those writes first takes its line back from that core.
 * Evicting them after reading is worth it on one machine and ruinous on
 * another (bench/RESULTS.md, "What the lead's nineteenth round changed"):
 *   - AMD EPYC VM, cores far apart (a line's round trip 340-380 ns): the
 *     decoding thread ran about 3 times as slowly without it; `insn --jobs
 *     2` took 0.61-0.66 of one thread's time with it, 1.0-1.6 without.
 *   - Intel Xeon VM (round trip 115-130 ns): with `clflush` the worker
 *     spent half its time flushing and `--jobs 2` was 1.05x one thread;
 *     without eviction 1.69x (pcs) and 1.50x (insn).
 * No single rule fits both, and the AMD machine changes from near to far
 * by itself every few minutes.  So the decoding thread measures what
 * eviction buys: in a probe, batches alternate (evict, keep, evict, ...;
 * the ring's length is even, so a slot's next batch has its parity), and
 * each batch's cost is what filling it took the decoding thread plus what
 * evicting its slot's previous batch took the worker, per instruction.
 * Neighbouring batches decode alike, so the two medians compare the
 * choices on the same part of the trace; the cheaper (evicting only if
 * at least 3 % cheaper: keeping costs the worker nothing) is kept for
 * EVICT_HOLD batches, then measured again. */
#ifndef RVT_PARALLEL_EVICT_H
#define RVT_PARALLEL_EVICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A probe lasts EVICT_PROBE batches; the winner is then kept for
 * EVICT_HOLD batches (0.1-0.3 s of a listing with 4,096-entry batches),
 * so while the probes choose right, 1 batch in 66 runs with the slower
 * choice (the probe's half). */
enum { EVICT_PROBE = 64, EVICT_HOLD = 2048 };

enum rvt_evict_rule {
    RVT_EVICT_MEASURE = 0, /* the default: measure (above) */
    RVT_EVICT_ALWAYS,
    RVT_EVICT_NEVER,
};

struct rvt_evict_policy {
    enum rvt_evict_rule rule;
    bool holding;   /* keeping the winner (else probing) */
    bool evict;     /* the winner (holding) */
    uint32_t done;  /* batches of this probe or hold so far */
    /* the probe's costs per instruction (ns), by whether the slot's
     * previous batch was evicted */
    double cost[2][EVICT_PROBE];
    unsigned ncost[2];
    /* what it did (bench and tests) */
    uint64_t batches, evicted, probes, won_evict;
};

/* The rule is RVT_EVICT_MEASURE unless the environment variable
 * RVT_JOBS_EVICT says `always` or `never` (benchmarks). */
void rvt_evict_policy_init(struct rvt_evict_policy *p);

/* The batch handed over now, by the decoding thread, once per batch and in
 * order: what filling it took (ns) and how many instructions it holds,
 * and its slot's previous batch: whether a worker formatted it, whether
 * that worker evicted it, and what the eviction took (ns).  Returns
 * whether this batch is to be evicted. */
bool rvt_evict_policy_next(struct rvt_evict_policy *p, uint64_t fill_ns, uint64_t insns, bool prev_by_worker,
                           bool prev_evicted, uint64_t prev_evict_ns);

/* Evict the cache lines of [p, p + bytes) from this core's caches
 * (x86: clflushopt where the CPU has it, else clflush; elsewhere
 * nothing). */
void rvt_evict_lines(const void *p, size_t bytes);

#endif

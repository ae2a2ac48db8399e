/* Whether a threaded decode's worker evicts what it read (evict.h). */
#include "parallel/evict.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <emmintrin.h>
#endif

void rvt_evict_policy_init(struct rvt_evict_policy *p)
{
    memset(p, 0, sizeof *p);
    const char *env = getenv("RVT_JOBS_EVICT");
    if (env && !strcmp(env, "always"))
        p->rule = RVT_EVICT_ALWAYS;
    else if (env && !strcmp(env, "never"))
        p->rule = RVT_EVICT_NEVER;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Fewer batches than this of either kind measured (a worker that formats
 * few, or a decode that ends): keep without evicting, the choice that
 * costs nothing when nobody gains. */
enum { MIN_SAMPLES = 8 };
/* Evicting must be this much cheaper to win: where the two are close the
 * medians of a probe order them by chance (on the Intel VM, where keeping
 * is 9 % faster for a PC list, evicting won 1 probe in 5 without a
 * margin), and keeping costs the worker nothing.  On the AMD VM eviction
 * saved 8 % of the wall time with the cores near and 40-60 % with them
 * far. */
#define EVICT_MARGIN 0.97

bool rvt_evict_policy_next(struct rvt_evict_policy *p, uint64_t fill_ns, uint64_t insns, bool prev_by_worker,
                           bool prev_evicted, uint64_t prev_evict_ns)
{
    p->batches++;
    bool e;
    if (p->rule != RVT_EVICT_MEASURE) {
        e = p->rule == RVT_EVICT_ALWAYS;
    } else if (p->holding) {
        e = p->evict;
        if (++p->done == EVICT_HOLD) {
            p->holding = false;
            p->done = 0;
            p->ncost[0] = p->ncost[1] = 0;
        }
    } else {
        /* Only a batch whose slot a worker had: one the decoding thread
         * formatted itself is in its own cache either way. */
        if (prev_by_worker && insns) {
            const unsigned k = prev_evicted;
            p->cost[k][p->ncost[k]++] = ((double)fill_ns + (double)prev_evict_ns) / (double)insns;
        }
        e = !(p->done & 1);
        if (++p->done == EVICT_PROBE) {
            p->probes++;
            p->holding = true;
            p->done = 0;
            p->evict = p->ncost[0] >= MIN_SAMPLES && p->ncost[1] >= MIN_SAMPLES &&
                       median(p->cost[1], p->ncost[1]) < EVICT_MARGIN * median(p->cost[0], p->ncost[0]);
            p->won_evict += p->evict;
        }
    }
    p->evicted += e;
    return e;
}

#if defined(__x86_64__) || defined(__i386__)
/* CPUID.(EAX=7, ECX=0):EBX bit 23: CLFLUSHOPT.  It is CLFLUSH without the
 * ordering against other flushes and stores, so a batch's lines flush
 * overlapped: on the Intel VM a PC list's `--jobs 2` took 351 ms evicting
 * with it, 512 with CLFLUSH (bench/RESULTS.md, nineteenth round).  (The
 * lock that hands the slot back orders it before anything the next owner
 * does.) */
static bool has_clflushopt(void)
{
    static _Atomic int known = -1; /* (every thread finds the same) */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k < 0) {
        unsigned a, b, c, d;
        k = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 23 & 1);
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k;
}
#endif

void rvt_evict_lines(const void *p, size_t bytes)
{
#if defined(__x86_64__) || defined(__i386__)
    const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63), *end = (const char *)p + bytes;
    if (has_clflushopt()) {
        for (; c < end; c += 64) /* (x86 cache lines are 64 bytes) */
            __asm__ volatile("clflushopt %0" : : "m"(*(const volatile char *)c));
    } else {
        for (; c < end; c += 64)
            _mm_clflush(c);
    }
#else
    (void)p;
    (void)bytes;
#endif
}

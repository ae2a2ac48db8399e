/* The threaded decode's eviction policy (src/parallel/evict.h) on a
 * simulated machine: each batch's fill time is its instructions times the
 * trace's local cost (which drifts, as a real trace's does) times a factor
 * set by whether its slot's previous batch (a ring's length before) was
 * evicted, plus the worker's eviction time, plus the odd preemption.  The
 * policy must find the cheaper choice, follow the machine when it changes,
 * and spend few batches on the dearer one. */
#include "parallel/evict.h"
#include "testlib.h"

#include <stdlib.h>

enum { RING = 6 };

struct machine {
    double keep_factor, evict_factor; /* fill time per instruction, by the previous batch's eviction */
    double evict_ns_per_insn;         /* the worker's eviction of a batch, per instruction */
    unsigned worker_share;            /* of 8 batches, how many a worker formats */
};

struct sim {
    uint64_t rng;
    double local; /* the trace's local cost, ns per instruction */
    bool evicted[RING], by_worker[RING];
    uint64_t evict_ns[RING];
    uint64_t seq;
    uint64_t chose_evict; /* batches the policy chose to evict */
};

/* Run n batches on machine m; returns how many of them were evicted. */
static uint64_t run(struct sim *s, struct rvt_evict_policy *p, const struct machine *m, uint64_t n)
{
    uint64_t evicted = 0;
    for (uint64_t i = 0; i < n; i++, s->seq++) {
        const unsigned slot = (unsigned)(s->seq % RING);
        /* the local cost drifts by up to 2 % a batch, within 0.5 .. 2 */
        const double step = (double)(rvt_test_xorshift(&s->rng) % 2001) / 1000.0 - 1.0;
        s->local *= 1.0 + 0.02 * step;
        if (s->local < 0.5)
            s->local = 0.5;
        if (s->local > 2.0)
            s->local = 2.0;
        const uint64_t insns = 20000 + rvt_test_xorshift(&s->rng) % 12769;
        const bool prev_worker = s->by_worker[slot], prev_evicted = s->evicted[slot];
        double fill = (double)insns * s->local * (prev_worker && prev_evicted ? m->evict_factor : m->keep_factor);
        if (rvt_test_xorshift(&s->rng) % 20 == 0) /* preempted: 4 ms */
            fill += 4e6;
        const bool e = rvt_evict_policy_next(p, (uint64_t)fill, insns, prev_worker, prev_evicted, s->evict_ns[slot]);
        evicted += e;
        /* this batch, as the slot's next batch will find it */
        s->by_worker[slot] = rvt_test_xorshift(&s->rng) % 8 < m->worker_share;
        s->evicted[slot] = s->by_worker[slot] && e;
        s->evict_ns[slot] = s->evicted[slot] ? (uint64_t)((double)insns * m->evict_ns_per_insn) : 0;
    }
    return evicted;
}

int main(void)
{
    /* Cores far apart: without eviction the decoding thread takes its
     * lines back from the other core, 3 times as slow. */
    const struct machine far = {3.0, 1.0, 0.05, 6};
    /* A flush that costs more than it saves (the Intel VM with clflush). */
    const struct machine dear = {1.0, 1.1, 0.4, 6};
    /* Little between them, but eviction 5 % dearer. */
    const struct machine close = {1.0, 1.05, 0.0, 6};
    /* No difference: keep (it costs the worker nothing; the margin keeps
     * chance from choosing); 10 % cheaper (the AMD VM with its cores
     * near): evict. */
    const struct machine marginal = {1.0, 1.0, 0.0, 6};
    const struct machine near = {1.0, 0.9, 0.0, 6};
    /* The worker formats nothing: nothing is evicted, nothing measured. */
    const struct machine idle = {1.0, 0.5, 0.0, 0};

    const uint64_t n = 40 * (EVICT_PROBE + EVICT_HOLD);
    struct {
        const struct machine *m;
        bool evict_wins;
    } cases[] = {{&far, true}, {&dear, false}, {&close, false}, {&marginal, false}, {&near, true}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct rvt_evict_policy p;
        rvt_evict_policy_init(&p);
        struct sim s = {.rng = 0x9E3779B97F4A7C15ull + c, .local = 1.0};
        const uint64_t ev = run(&s, &p, cases[c].m, n);
        CHECK_EQ(p.batches, n);
        CHECK(p.probes >= 40 && p.probes <= 41);
        /* every probe found the cheaper choice (the probes evict half) */
        CHECK_MSG(p.won_evict == (cases[c].evict_wins ? p.probes : 0), "case %zu: evict won %llu of %llu probes", c,
                  (unsigned long long)p.won_evict, (unsigned long long)p.probes);
        const double share = (double)ev / (double)n;
        if (cases[c].evict_wins)
            CHECK_MSG(share > 1.0 - 1.0 / 30, "case %zu: %.3f of the batches evicted", c, share);
        else
            CHECK_MSG(share < 1.0 / 30, "case %zu: %.3f of the batches evicted", c, share);
    }

    /* The machine changes (the AMD VM's cores move apart, then back):
     * the policy follows within a hold and a probe. */
    {
        struct rvt_evict_policy p;
        rvt_evict_policy_init(&p);
        struct sim s = {.rng = 12345, .local = 1.0};
        const uint64_t span = 10 * (EVICT_PROBE + EVICT_HOLD), lag = EVICT_PROBE + EVICT_HOLD + EVICT_PROBE;
        run(&s, &p, &dear, span);
        run(&s, &p, &far, lag);
        CHECK(p.evict && p.holding);
        CHECK(run(&s, &p, &far, span) > span - span / 30);
        run(&s, &p, &dear, lag);
        CHECK(!p.evict && p.holding);
        CHECK(run(&s, &p, &dear, span) < span / 30);
    }

    /* A worker that formats nothing leaves nothing to measure: keep. */
    {
        struct rvt_evict_policy p;
        rvt_evict_policy_init(&p);
        struct sim s = {.rng = 777, .local = 1.0};
        run(&s, &p, &idle, 5 * (EVICT_PROBE + EVICT_HOLD));
        CHECK(p.probes == 5 && p.won_evict == 0);
    }

    /* RVT_JOBS_EVICT=always / never: no probe. */
    {
        struct rvt_evict_policy p;
        struct sim s = {.rng = 4242, .local = 1.0};
        setenv("RVT_JOBS_EVICT", "always", 1);
        rvt_evict_policy_init(&p);
        CHECK_EQ(run(&s, &p, &dear, 3000), 3000);
        CHECK_EQ(p.probes, 0);
        setenv("RVT_JOBS_EVICT", "never", 1);
        rvt_evict_policy_init(&p);
        CHECK_EQ(run(&s, &p, &far, 3000), 0);
        unsetenv("RVT_JOBS_EVICT");
    }

    /* Evicting lines changes nothing in them (and does not fault on a
     * range that starts inside a line). */
    {
        char buf[1000];
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (char)(i * 7);
        rvt_evict_lines(buf + 3, sizeof buf - 3);
        rvt_evict_lines(buf, 0);
        bool same = true;
        for (size_t i = 0; i < sizeof buf; i++)
            same &= buf[i] == (char)(i * 7);
        CHECK(same);
    }
    return rvt_test_summary("test_evict_policy");
}

/* bench_cores THREADS: a fixed amount of perfectly parallel work (each
 * thread its own arithmetic loop, nothing shared) split over THREADS
 * threads; prints the wall milliseconds.  bench/speed.sh runs it with 1 and
 * 2 threads beside every `decode --jobs` pair: the speed-up this machine
 * gives at that moment to work that cannot do better (a virtual machine's
 * second core is not always there).
 *
 * bench_cores --round-trip: two threads hand a cache line back and forth;
 * prints the nanoseconds of one round trip (the median of 9 runs of 20,000).
 * On this VM it is 55-90 ns or 340-380 ns, changing by itself every few
 * minutes (where the hypervisor runs the two virtual CPUs): what a
 * threaded decode's hand-overs cost then (bench/RESULTS.md). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { WORK = 150000000, MAX_THREADS = 64 };

static void *spin(void *arg)
{
    const uint64_t n = *(const uint64_t *)arg;
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < n; i++)
        x = x + i * i;
    return (void *)(uintptr_t)x;
}

enum { TRIPS = 20000, RUNS = 9 };
static _Atomic uint64_t ball; /* odd: the other thread's turn */

static void *bounce(void *arg)
{
    (void)arg;
    for (uint64_t i = 0; i < (uint64_t)TRIPS * RUNS; i++) {
        while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 1)
            ;
        atomic_store_explicit(&ball, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static int round_trip(void)
{
    pthread_t th;
    if (pthread_create(&th, NULL, bounce, NULL) != 0) {
        fprintf(stderr, "bench_cores: cannot start a thread\n");
        return 1;
    }
    double ns[RUNS];
    uint64_t i = 0;
    for (int r = 0; r < RUNS; r++) {
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (uint64_t end = i + TRIPS; i < end; i++) {
            atomic_store_explicit(&ball, 2 * i + 1, memory_order_release);
            while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 2)
                ;
        }
        ns[r] = ms_since(&t0) * 1e6 / TRIPS;
    }
    pthread_join(th, NULL);
    for (int a = 1; a < RUNS; a++) /* (insertion sort: the median) */
        for (int b = a; b > 0 && ns[b - 1] > ns[b]; b--) {
            double t = ns[b];
            ns[b] = ns[b - 1];
            ns[b - 1] = t;
        }
    printf("%.0f\n", ns[RUNS / 2]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--round-trip") == 0)
        return round_trip();
    const int threads = argc > 1 ? atoi(argv[1]) : 1;
    if (threads < 1 || threads > MAX_THREADS) {
        fprintf(stderr, "usage: bench_cores THREADS (1..%d) | --round-trip\n", MAX_THREADS);
        return 2;
    }
    uint64_t share = WORK / (uint64_t)threads;
    pthread_t th[MAX_THREADS];
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&th[i], NULL, spin, &share) != 0) {
            fprintf(stderr, "bench_cores: cannot start a thread\n");
            return 1;
        }
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    printf("%.3f\n", ms_since(&t0));
    return 0;
}

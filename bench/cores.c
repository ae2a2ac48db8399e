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
 * threaded decode's hand-overs cost then (bench/RESULTS.md).
 *
 * bench_cores --copy THREADS: the same amount of text-like copying (chunks
 * of 230 bytes, a listing's run of lines, from a small table into two
 * alternating 1.2 MB buffers per thread, a listing's batch texts) split
 * over THREADS threads; prints the wall milliseconds.  What a second core
 * gives to the listing's main cost, its memcpy of kept lines
 * (bench/RESULTS.md, "What the lead's fourteenth round changed"). */
#include <pthread.h>
#include <stdbool.h>
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

#define COPY_TOTAL ((uint64_t)3 << 30)
enum { COPY_CHUNK = 230, COPY_BUF = 1200000 };

static void *copy(void *arg)
{
    const uint64_t n = *(const uint64_t *)arg;
    static const char line[] = "     10da2:\t00078197      \tauipc gp,0x78\n";
    char src[64][256];
    for (int i = 0; i < 64; i++)
        for (int k = 0; k < 256; k++)
            src[i][k] = line[(i + k) % (sizeof line - 1)];
    char *buf[2] = {malloc(COPY_BUF), malloc(COPY_BUF)};
    if (!buf[0] || !buf[1]) {
        free(buf[0]);
        free(buf[1]);
        return NULL;
    }
    size_t len = 0;
    unsigned cur = 0;
    for (uint64_t done = 0, k = 0; done < n; done += COPY_CHUNK, k++) {
        memcpy(buf[cur] + len, src[k & 63], COPY_CHUNK);
        if ((len += COPY_CHUNK) + COPY_CHUNK > COPY_BUF) {
            len = 0;
            cur ^= 1;
        }
    }
    uintptr_t x = (unsigned char)((volatile char *)buf[0])[7] + (unsigned char)((volatile char *)buf[1])[7];
    free(buf[0]);
    free(buf[1]);
    return (void *)x;
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
    const bool copying = argc > 2 && strcmp(argv[1], "--copy") == 0;
    const int threads = copying ? atoi(argv[2]) : argc > 1 ? atoi(argv[1]) : 1;
    if (threads < 1 || threads > MAX_THREADS) {
        fprintf(stderr, "usage: bench_cores THREADS (1..%d) | --copy THREADS | --round-trip\n", MAX_THREADS);
        return 2;
    }
    uint64_t share = (copying ? COPY_TOTAL : WORK) / (uint64_t)threads;
    pthread_t th[MAX_THREADS];
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&th[i], NULL, copying ? copy : spin, &share) != 0) {
            fprintf(stderr, "bench_cores: cannot start a thread\n");
            return 1;
        }
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    printf("%.3f\n", ms_since(&t0));
    return 0;
}

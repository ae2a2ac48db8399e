/* Source of rv64gc-prog.elf (see README.md): ordinary C exercising the
 * integer, M, A, F, D and C instructions, plus trap handlers and a few
 * system instructions, linked with picolibc (printf, strtod, libm). */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* picolibc's stdio writes through this stream: a byte-wide UART register. */
static int uart_putc(char ch, FILE *f)
{
    (void)f;
    *(volatile char *)0x10000000 = ch;
    return (unsigned char)ch;
}
static FILE uart = FDEV_SETUP_STREAM(uart_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdout = &uart;

static _Atomic long counter;
static _Atomic int flags;
static volatile uint64_t ticks;

struct entry {
    const char *key;
    double value;
    struct entry *next;
};

static struct entry *table[64];
static struct entry pool[256];
static int pool_used;

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static void put(const char *key, double v)
{
    unsigned i = hash(key) & 63;
    for (struct entry *e = table[i]; e; e = e->next)
        if (strcmp(e->key, key) == 0) {
            e->value += v;
            return;
        }
    if (pool_used >= 256)
        return;
    struct entry *e = &pool[pool_used++];
    e->key = key;
    e->value = v;
    e->next = table[i];
    table[i] = e;
    atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
}

static void matmul(int n, const double *a, const double *b, double *c)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s = fma(a[i * n + k], b[k * n + j], s);
            c[i * n + j] = s;
        }
}

static float stats(const float *x, int n, float *var)
{
    float m = 0, q = 0;
    for (int i = 0; i < n; i++) {
        float d = x[i] - m;
        m += d / (float)(i + 1);
        q += d * (x[i] - m);
    }
    *var = n > 1 ? q / (float)(n - 1) : 0.0f;
    return m;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static long classify(double d)
{
    switch (fpclassify(d)) {
    case FP_NAN: return 1;
    case FP_INFINITE: return signbit(d) ? -2 : 2;
    case FP_ZERO: return 0;
    case FP_SUBNORMAL: return 3;
    default: return (long)lrint(d);
    }
}

static int opcode_name(int k, char *out)
{
    switch (k) {
    case 0: strcpy(out, "add"); return 3;
    case 1: strcpy(out, "sub"); return 3;
    case 2: strcpy(out, "mul"); return 3;
    case 3: strcpy(out, "div"); return 3;
    case 4: strcpy(out, "rem"); return 3;
    case 5: strcpy(out, "and"); return 3;
    case 6: strcpy(out, "or"); return 2;
    case 7: strcpy(out, "xor"); return 3;
    default: out[0] = 0; return 0;
    }
}

#if __riscv_xlen == 64
static int64_t mulhi(int64_t a, int64_t b)
{
    return (int64_t)(((__int128)a * b) >> 64);
}

static uint64_t umulhi(uint64_t a, uint64_t b)
{
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}
#else
static int32_t mulhi(int64_t a, int64_t b)
{
    return (int32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32);
}

static uint32_t umulhi(uint64_t a, uint64_t b)
{
    return (uint32_t)(((uint64_t)(uint32_t)a * (uint32_t)b) >> 32);
}
#endif

static int spin_try(void)
{
    int expected = 0;
    return atomic_compare_exchange_strong(&flags, &expected, 1);
}

static int atomics(int v)
{
    int old = atomic_exchange(&flags, v);
    atomic_fetch_or(&flags, 4);
    atomic_fetch_and(&flags, ~2);
    atomic_fetch_xor(&flags, 8);
    long c = atomic_load_explicit(&counter, memory_order_acquire);
    atomic_store_explicit(&counter, c + 1, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    return old + spin_try();
}

/* AMO min/max and LR/SC on doublewords have no C11 spelling. */
long amo_minmax(long *p, long v)
{
    long a, b, c, d, old;
    int fail;
#if __riscv_xlen == 64
#define AMO_XL "d"
#else
#define AMO_XL "w"
#endif
    __asm__ volatile("amomin." AMO_XL " %0, %2, (%1)" : "=r"(a) : "r"(p), "r"(v) : "memory");
    __asm__ volatile("amomax." AMO_XL ".aqrl %0, %2, (%1)" : "=r"(b) : "r"(p), "r"(v) : "memory");
    __asm__ volatile("amominu.w.rl %0, %2, (%1)" : "=r"(c) : "r"(p), "r"(v) : "memory");
    __asm__ volatile("amomaxu.w %0, %2, (%1)" : "=r"(d) : "r"(p), "r"(v) : "memory");
    __asm__ volatile("1: lr." AMO_XL " %0, (%2)\n\tsc." AMO_XL ".rl %1, %3, (%2)\n\tbnez %1, 1b\n\t"
                     "fence.tso"
                     : "=&r"(old), "=&r"(fail)
                     : "r"(p), "r"(v)
                     : "memory");
    return a + b + c + d + old;
}

uint64_t read_cycles(void)
{
    uint64_t c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

void __attribute__((interrupt("machine"))) machine_trap(void)
{
    uint64_t cause, epc;
    __asm__ volatile("csrr %0, mcause" : "=r"(cause));
    __asm__ volatile("csrr %0, mepc" : "=r"(epc));
    if ((int64_t)cause >= 0) {
        epc += 4;
        __asm__ volatile("csrw mepc, %0" ::"r"(epc));
    } else {
        ticks++;
        __asm__ volatile("csrc mip, %0" ::"r"(0x80ul));
        __asm__ volatile("csrci sip, 2");
    }
}

void __attribute__((interrupt("supervisor"))) supervisor_trap(void)
{
    uint64_t cause;
    __asm__ volatile("csrr %0, scause" : "=r"(cause));
    __asm__ volatile("csrw sscratch, %0" ::"r"(cause));
    __asm__ volatile("sfence.vma");
}

void system_setup(void (*handler)(void))
{
    __asm__ volatile("csrw mtvec, %0" ::"r"(handler));
    __asm__ volatile("csrsi mstatus, 8");
    __asm__ volatile("csrs mie, %0" ::"r"(1ul << 7));
    __asm__ volatile("fence.i");
    __asm__ volatile("fence rw, rw");
    __asm__ volatile("wfi");
    __asm__ volatile("ecall");
    __asm__ volatile("ebreak");
}

int main(int argc, char **argv)
{
    static const char *words[] = {"alpha", "beta", "gamma", "delta", "alpha", "pi", "beta"};
    double a[16], b[16], c[16], xs[32];
    float fs[32], var;
    char name[8];
    for (int i = 0; i < 16; i++) {
        a[i] = i * 0.5 - 3;
        b[i] = sqrt((double)i) + 1.0 / (i + 1);
    }
    matmul(4, a, b, c);
    for (int i = 0; i < 32; i++) {
        xs[i] = sin(i * 0.3) * 100.0;
        fs[i] = (float)xs[i] * 0.25f + (float)(i & 3);
    }
    qsort(xs, 32, sizeof xs[0], cmp_double);
    float mean = stats(fs, 32, &var);
    for (int i = 0; i < 7; i++)
        put(words[i], xs[i]);
    long cls = 0;
    for (int i = 0; i < 32; i++)
        cls += classify(xs[i] / (i - 16));
    int total = 0;
    for (int k = 0; k < 9; k++)
        total += opcode_name((argc + k) % 9, name);
    double parsed = argc > 1 ? strtod(argv[1], NULL) : 2.5;
    int64_t h = mulhi(-(int64_t)argc * 0x123456789ll, 0x7edcba987ll) + (int64_t)umulhi(argc, ~0ull);
    long q = (long)(parsed * 1000) / (argc + 1), r = (long)(parsed * 1000) % (argc + 2);
    unsigned uq = (unsigned)total / (unsigned)(argc + 3), ur = (unsigned)total % 7u;
    printf("%g %g %f %f %ld %d %lld %ld %ld %u %u %d %ld\n", c[5], c[10], (double)mean, (double)var,
           cls, total, (long long)h, q, r, uq, ur, atomics(argc), (long)atomic_load(&counter));
    printf("%e %a %lu\n", fmax(c[0], parsed) / fmin(c[3], -parsed), ldexp(parsed, argc),
           (unsigned long)(parsed > 0 ? (unsigned long)parsed : 0));
    if (argc > 5)
        system_setup(argc > 6 ? supervisor_trap : machine_trap);
    if (argc > 7)
        h += amo_minmax((long *)&ticks, argc);
    return (int)(read_cycles() & 1) + (int)(ticks & 1);
}

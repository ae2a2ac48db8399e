/* A small freestanding program with ordinary compiler output (loops,
 * calls, a jump table, function pointers, recursion) for the image tests
 * and the fuzz corpus.  See README.md for how it is built. */
typedef unsigned long ulong;

static ulong table[64];

__attribute__((noinline)) static ulong mix(ulong x)
{
    x ^= x >> 7;
    x *= 0x2545f491u;
    return x ^ (x >> 13);
}

__attribute__((noinline)) static ulong fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static ulong op(unsigned k, ulong a, ulong b)
{
    switch (k & 7) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a ^ b;
    case 4: return a << (b & 15);
    case 5: return a >> (b & 15);
    case 6: return a | b;
    default: return a & b;
    }
}

static ulong twice(ulong x) { return 2 * x; }
static ulong plus3(ulong x) { return x + 3; }
static ulong (*const fns[2])(ulong) = {twice, plus3};

__attribute__((noinline)) ulong run(unsigned n)
{
    ulong acc = 1;
    for (unsigned i = 0; i < n; i++) {
        table[i & 63] = mix(acc + i);
        acc = op(i, acc, table[(i * 7) & 63]);
        acc = fns[acc & 1](acc);
        if ((acc & 0xff) == 0x42)
            acc += fib(10);
    }
    return acc;
}

void _start(void)
{
    ulong r = run(1000);
    register ulong a0 __asm__("a0") = r & 0xff;
    register ulong a7 __asm__("a7") = 93; /* exit */
    __asm__ volatile("ecall" : : "r"(a0), "r"(a7));
    for (;;)
        ;
}

/* A bare-metal workload for the analysis views (call tree, profile, source
 * lines, coverage, timeline): recursion, calls through a function-pointer
 * table, tail calls, setjmp/longjmp unwinding several frames, a function
 * never called, U-mode work whose ecalls trap to M, an illegal instruction
 * skipped by the handler, and machine timer interrupts during the work.
 * Built with -g by make.sh; its source lines are what the tests check. */
#include "rt.h"

#include <setjmp.h>

#define PERIOD 30 /* timer ticks between interrupts (~3000 instructions) */

static volatile unsigned long ticks, illegal;
static jmp_buf escape;

void m_trap(struct frame *f)
{
    rt_report_trap(0, f, (f->status >> 11) & 3, PRV_M, csr_read(mtvec));
    if (f->cause & MCAUSE_INT) {
        ticks++;
        rt_set_mtimecmp(0, rt_mtime() + PERIOD);
        return;
    }
    switch (f->cause) {
    case CAUSE_USER_ECALL:
        if (f->x[17] == RT_ECALL_RETURN) {
            rt_lower_return(f, PRV_M);
            return;
        }
        f->x[10] = f->x[10] * 2 + 1; /* the "system call": a0 = 2 a0 + 1 */
        f->epc += 4;
        return;
    case CAUSE_ILLEGAL:
        illegal++;
        rt_skip_insn(f);
        return;
    default:
        rt_exit(20);
    }
}

void s_trap(struct frame *f)
{
    (void)f;
    rt_exit(21); /* nothing is delegated */
}

__attribute__((noinline)) static unsigned long fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static unsigned long op_add(unsigned long a, unsigned long b)
{
    return a + b;
}

__attribute__((noinline)) static unsigned long op_mix(unsigned long a, unsigned long b)
{
    return (a ^ (b << 3)) + (a >> 2);
}

__attribute__((noinline)) static unsigned long op_fib(unsigned long a, unsigned long b)
{
    return fib((unsigned)((a + b) & 7)) + a; /* a tail call at -O2 */
}

static unsigned long (*const ops[])(unsigned long, unsigned long) = {op_add, op_mix, op_fib};

__attribute__((noinline)) static void insertion_sort(unsigned long *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        unsigned long x = v[i];
        unsigned j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* Never called: coverage must show it as such. */
__attribute__((noinline)) unsigned long never_called(unsigned long x)
{
    return x * 3 + 1;
}

__attribute__((noinline)) static void dive(unsigned depth, unsigned long seed)
{
    if (depth == 0) {
        if (seed & 1)
            longjmp(escape, (int)(seed & 0xff) | 1); /* unwinds every dive frame */
        return;
    }
    dive(depth - 1, seed * 7 + depth);
}

__attribute__((noinline)) static unsigned long protected_dives(unsigned rounds)
{
    volatile unsigned long escaped = 0; /* lives across longjmp */
    for (unsigned r = 0; r < rounds; r++) {
        if (setjmp(escape)) {
            escaped++;
            continue;
        }
        dive(3 + r % 4, r);
    }
    return escaped;
}

/* U-mode: computation with system calls (ecall traps to M). */
static unsigned long u_work(unsigned long rounds)
{
    unsigned long acc = 0;
    for (unsigned long r = 0; r < rounds; r++)
        acc += rt_ecall(1, r) + fib((unsigned)(r % 6));
    return acc;
}

static void *lower_stack(void)
{
    return rt_lower_stacks[0][0] + sizeof rt_lower_stacks[0][0];
}

void main_hart(unsigned hart)
{
    if (hart != 0)
        return;
    csr_write(mtvec, (unsigned long)trap_entry_m);
    rt_pmp_allow_all();
    rt_set_mtimecmp(0, rt_mtime() + PERIOD);
    csr_write(mie, 1ul << IRQ_M_TIMER);
    csr_set(mstatus, MSTATUS_MIE);

    unsigned long acc = 0, v[24];
    for (unsigned i = 0; i < 24; i++)
        v[i] = (i * 2654435761u) % 1000;
    insertion_sort(v, 24);
    for (unsigned i = 0; i < 60; i++)
        acc += ops[i % 3](acc, v[i % 24]);
    acc += fib(12);
    unsigned long escaped = protected_dives(12);
    __asm__ volatile(".word 0xc0001073"); /* illegal: the handler skips it */
    acc += rt_m_call_lower(PRV_U, u_work, 8, lower_stack());
    csr_write(mie, 0);
    rt_printf("DONE acc=%lx escaped=%lu ticks=%lu illegal=%lu\n", acc, escaped, ticks, illegal);
    rt_exit(escaped > 0 && illegal == 1 && ticks > 0 ? 0 : 22);
}

/* A workload for measuring capture speed (tools/qemu/measure-sys.sh):
 * every hart sorts and checksums arrays in M-mode while its machine timer
 * interrupts it every 1000 ticks (~100k instructions); hart 0 ends the run
 * when all harts have done ROUNDS rounds. */
#include "rt.h"

#ifndef ROUNDS
#define ROUNDS 200
#endif
#define N 256

static volatile unsigned long started, done, ticks[RT_MAX_HARTS];
static unsigned long data[RT_MAX_HARTS][N];

void m_trap(struct frame *f)
{
    unsigned hart = rt_hart();
    if (f->cause == (MCAUSE_INT | IRQ_M_TIMER)) {
        ticks[hart]++;
        rt_set_mtimecmp(hart, rt_mtime() + 1000);
        return;
    }
    rt_exit(30);
}

void s_trap(struct frame *f)
{
    (void)f;
    rt_exit(31);
}

static unsigned long round_(unsigned long *a, unsigned long seed)
{
    for (unsigned i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        a[i] = seed >> 17;
    }
    for (unsigned i = 1; i < N; i++) { /* insertion sort */
        unsigned long v = a[i];
        unsigned j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
    unsigned long sum = 0;
    for (unsigned i = 0; i < N; i++)
        sum = (sum << 1 | sum >> 31) ^ a[i];
    return sum;
}

void main_hart(unsigned hart)
{
    __atomic_fetch_add(&started, 1, __ATOMIC_ACQ_REL);
    csr_write(mtvec, (unsigned long)trap_entry_m);
    rt_set_mtimecmp(hart, rt_mtime() + 1000);
    csr_write(mie, 1ul << IRQ_M_TIMER);
    csr_set(mstatus, MSTATUS_MIE);
    unsigned long sum = hart;
    for (unsigned r = 0; r < ROUNDS; r++)
        sum += round_(data[hart], sum + r);
    __atomic_fetch_add(&done, 1, __ATOMIC_ACQ_REL);
    if (hart != 0) {
        csr_write(mie, 0);
        return;
    }
    /* The others started long ago; wait for them with the timer running
     * (round-robin slices end at its deadlines). */
    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < __atomic_load_n(&started, __ATOMIC_ACQUIRE))
        __asm__ volatile("wfi");
    rt_printf("DONE bench sum=%lx ticks=%lu\n", sum, ticks[0]);
    rt_exit(0);
}

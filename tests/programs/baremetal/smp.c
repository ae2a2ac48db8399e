/* Several harts running different code and taking interrupts (RV32 or
 * RV64; QEMU -smp 2 or more).
 *
 *   hart 0: M-mode; its machine timer interrupts U-mode work; then it
 *           plays IPI ping-pong (CLINT msip) with every other hart: it
 *           interrupts the hart and sleeps in wfi until the hart's handler
 *           interrupts it back; when all are done it prints the trap log
 *           of every hart and ends the run.
 *   others: M-mode handlers for the IPIs and their own timer (each with a
 *           different period), the work itself in S-mode with illegal
 *           instructions delegated to S, calls into U-mode whose ecalls S
 *           passes on to M from inside its handler.
 *
 * Under `-icount` QEMU runs the harts round-robin, switching at timer
 * deadlines (or every 10^8 instructions): harts wait in wfi or with a timer
 * running, never by spinning with no deadline ahead.
 *
 * Every handler notes its trap (rt_report_trap); the capture test compares
 * the TRAP lines with the trace, hart by hart. */
#include "rt.h"

#define IPIS 4
#define SVC_HART 6 /* from S/U: a0 = the hart id (mhartid, M only) */

static volatile int go;
static volatile unsigned long done;
static volatile unsigned long ipis_seen[RT_MAX_HARTS], ticks[RT_MAX_HARTS], acks[RT_MAX_HARTS];
static unsigned nharts;

static unsigned long period(unsigned hart)
{
    return 40 + 23 * hart;
}

void m_trap(struct frame *f)
{
    unsigned hart = (unsigned)rt_hartid();
    rt_report_trap(hart, f, (f->status >> 11) & 3, PRV_M, csr_read(mtvec));
    if (f->cause & MCAUSE_INT) {
        unsigned long cause = f->cause & ~MCAUSE_INT;
        if (cause == IRQ_M_SOFT) {
            rt_set_msip(hart, 0);
            ipis_seen[hart]++;
            if (hart != 0) {
                acks[hart] = ipis_seen[hart];
                rt_set_msip(0, 1); /* wake hart 0 */
            }
        } else if (cause == IRQ_M_TIMER) {
            ticks[hart]++;
            rt_set_mtimecmp(hart, rt_mtime() + period(hart));
        } else {
            rt_exit(20);
        }
        return;
    }
    switch (f->cause) {
    case CAUSE_USER_ECALL:
    case CAUSE_SUPERVISOR_ECALL:
        if (f->x[17] == RT_ECALL_RETURN) {
            rt_lower_return(f, PRV_M);
            return;
        }
        if (f->x[17] != SVC_HART)
            rt_exit(21);
        f->x[10] = hart;
        f->epc += 4;
        return;
    default:
        rt_exit(22);
    }
}

void s_trap(struct frame *f)
{
    rt_report_trap(rt_hart(), f, (f->status & MSTATUS_SPP) ? PRV_S : PRV_U, PRV_S, csr_read(stvec));
    if (f->cause == CAUSE_ILLEGAL) {
        rt_skip_insn(f);
        return;
    }
    if (f->cause == CAUSE_USER_ECALL && f->x[17] == RT_ECALL_RETURN) {
        rt_lower_return(f, PRV_S);
        return;
    }
    if (f->cause == CAUSE_USER_ECALL && f->x[17] == SVC_HART) {
        f->x[10] = rt_ecall(SVC_HART, 0); /* only M knows: ask it from inside this handler */
        f->epc += 4;
        return;
    }
    rt_exit(23);
}

static unsigned long mix(unsigned long x)
{
    for (int i = 0; i < 16; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

static unsigned long u_work(unsigned long n)
{
    unsigned long acc = rt_ecall(SVC_HART, 0);
    for (unsigned long i = 0; i < n; i++)
        acc = mix(acc + i);
    return acc;
}

static void *lower_stack(unsigned which)
{
    return rt_lower_stacks[rt_hart()][which] + sizeof rt_lower_stacks[0][0];
}

/* The other harts' work: in S-mode until hart 0's IPIs have all arrived. */
static unsigned long s_worker(unsigned long hart)
{
    csr_write(stvec, (unsigned long)trap_entry_s);
    csr_write(sscratch, 0);
    unsigned long acc = hart, rounds = 0;
    while (ipis_seen[hart] < IPIS || rounds < 3) {
        acc = mix(acc);
        if (rounds % 4 == 0)
            __asm__ volatile("csrr t0, mscratch" ::: "t0"); /* illegal in S, delegated to S */
        if (rounds % 3 == 0)
            acc += rt_s_call_user(u_work, 20 + hart, lower_stack(1));
        rounds++;
    }
    return acc & 0xff;
}

void main_hart(unsigned hart)
{
    csr_write(mtvec, (unsigned long)trap_entry_m);
    csr_write(mideleg, 0);
    rt_pmp_allow_all();
    if (hart == 0) {
        /* Workers count themselves in `nharts` as they boot (real firmware
         * would read the device tree); hart 0 reads the count after its own
         * U-mode work, long after they have all started. */
        csr_write(medeleg, 0);
        rt_printf("smp: hart 0 starts the others\n");
        go = 1;
        rt_set_mtimecmp(0, rt_mtime() + period(0));
        csr_write(mie, (1ul << IRQ_M_TIMER) | (1ul << IRQ_M_SOFT));
        unsigned long acc = rt_m_call_lower(PRV_U, u_work, 300, lower_stack(0));
        unsigned n = __atomic_load_n(&nharts, __ATOMIC_ACQUIRE);
        csr_set(mstatus, MSTATUS_MIE);
        for (unsigned k = 0; k < IPIS; k++) {
            for (unsigned h = 1; h <= n && h < RT_MAX_HARTS; h++) {
                rt_set_msip(h, 1);
                while (acks[h] <= k)
                    __asm__ volatile("wfi");
            }
        }
        while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < n)
            __asm__ volatile("wfi");
        csr_clear(mstatus, MSTATUS_MIE);
        csr_write(mie, 0);
        rt_set_mtimecmp(0, ~0ull);
        rt_print_trap_log(n + 1);
        rt_printf("DONE harts=%u ticks0=%lu acc=%lx\n", n + 1, ticks[0], acc & 0xffff);
        rt_exit(0);
    }
    __atomic_fetch_add(&nharts, 1, __ATOMIC_ACQ_REL);
    while (!go)
        ;
    csr_write(medeleg, (1ul << CAUSE_ILLEGAL) | (1ul << CAUSE_USER_ECALL));
    rt_set_mtimecmp(hart, rt_mtime() + period(hart));
    csr_write(mie, (1ul << IRQ_M_SOFT) | (1ul << IRQ_M_TIMER));
    unsigned long r = rt_m_call_lower(PRV_S, s_worker, hart, lower_stack(0));
    csr_write(mie, 0);
    rt_set_mtimecmp(hart, ~0ull);
    rt_printf("smp: hart %u done (%lu IPIs, %lu ticks, %lx)\n", hart, ipis_seen[hart], ticks[hart], r);
    __atomic_fetch_add(&done, 1, __ATOMIC_ACQ_REL);
    rt_set_msip(0, 1); /* wake hart 0 */
}

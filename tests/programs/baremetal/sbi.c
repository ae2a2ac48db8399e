/* An S-mode payload for the OpenSBI that QEMU ships (-bios default, RV64):
 * OpenSBI starts it in S-mode at 0x80200000 with a0 = hart id.  It uses
 * SBI calls (ecall to M: base extension probes, the legacy console, the
 * timer, IPIs, system reset), takes S-mode timer and software interrupts
 * (delegated by OpenSBI), runs U-mode code with ecalls and breakpoints
 * (delegated) and an illegal instruction (not delegated: OpenSBI takes it
 * and redirects it to S-mode), and ends with an SBI system reset.
 *
 * The S handler notes every trap it sees (rt_report_trap); the capture
 * test finds them among the trace's traps (OpenSBI's own are extra). */
#include "rt.h"

#define SBI_BASE 0x10
#define SBI_TIME 0x54494D45
#define SBI_IPI 0x735049
#define SVC_ADD 1

static volatile unsigned long s_ticks, s_soft;

/* An SBI call: returns the value (a1); an error (a0) ends the run. */
static long sbi(long eid, long fid, long a0, long a1)
{
    register long r0 __asm__("a0") = a0;
    register long r1 __asm__("a1") = a1;
    register long r6 __asm__("a6") = fid;
    register long r7 __asm__("a7") = eid;
    __asm__ volatile("ecall" : "+r"(r0), "+r"(r1) : "r"(r6), "r"(r7) : "memory");
    if (r0 != 0)
        rt_exit(45);
    return r1;
}

static unsigned long now(void)
{
    return csr_read(time);
}

void m_trap(struct frame *f)
{
    (void)f;
    rt_exit(40); /* never: OpenSBI owns M-mode */
}

void s_trap(struct frame *f)
{
    rt_report_trap(rt_hart(), f, (f->status & MSTATUS_SPP) ? PRV_S : PRV_U, PRV_S, csr_read(stvec));
    if (f->cause & MCAUSE_INT) {
        unsigned long cause = f->cause & ~MCAUSE_INT;
        if (cause == IRQ_S_TIMER) {
            s_ticks++;
            sbi(SBI_TIME, 0, s_ticks < 4 ? (long)(now() + 100) : -1L, 0);
        } else if (cause == IRQ_S_SOFT) {
            s_soft++;
            csr_clear(sip, 1ul << IRQ_S_SOFT);
        } else {
            rt_exit(41);
        }
        return;
    }
    switch (f->cause) {
    case CAUSE_USER_ECALL:
        if (f->x[17] == RT_ECALL_RETURN) {
            rt_lower_return(f, PRV_S);
            return;
        }
        if (f->x[17] != SVC_ADD)
            rt_exit(42);
        f->x[10] += 100;
        f->epc += 4;
        return;
    case CAUSE_BREAKPOINT:
    case CAUSE_ILLEGAL:
        rt_skip_insn(f);
        return;
    default:
        rt_exit(43);
    }
}

static unsigned long u_main(unsigned long arg)
{
    unsigned long v = rt_ecall(SVC_ADD, arg);   /* to S (delegated) */
    __asm__ volatile("ebreak");                 /* to S (delegated) */
    __asm__ volatile("csrr t0, sstatus" ::: "t0"); /* to M, which hands it to S */
    return v;
}

static unsigned char u_stack[4096] __attribute__((aligned(16)));

void main_hart(unsigned hart)
{
    csr_write(stvec, (unsigned long)trap_entry_s);
    csr_write(sscratch, 0);
    long spec = sbi(SBI_BASE, 0, 0, 0);
    long has_time = sbi(SBI_BASE, 3, SBI_TIME, 0), has_ipi = sbi(SBI_BASE, 3, SBI_IPI, 0);
    rt_printf("sbi: hart %u, SBI %ld.%ld, TIME %ld, IPI %ld\n", hart, (spec >> 24) & 0x7f, spec & 0xffffff, has_time,
              has_ipi);

    csr_write(sie, (1ul << IRQ_S_TIMER) | (1ul << IRQ_S_SOFT));
    csr_set(sstatus, MSTATUS_SIE);
    sbi(SBI_TIME, 0, (long)(now() + 100), 0);
    unsigned long acc = 1;
    while (s_ticks < 4)
        acc = acc * 6364136223846793005ull + 1;
    sbi(SBI_IPI, 0, 1l << hart, 0);             /* an IPI to this hart: SSIP */
    while (!s_soft)
        ;
    unsigned long u = rt_s_call_user(u_main, 7, u_stack + sizeof u_stack);
    __asm__ volatile("csrr t0, mstatus" ::: "t0"); /* S reads an M CSR: to M, handed to S */
    csr_clear(sstatus, MSTATUS_SIE);
    rt_print_trap_log(hart + 1);
    rt_printf("DONE sbi ticks=%lu soft=%lu u=%lu\n", s_ticks, s_soft, u);
    rt_exit(u == 107 && s_ticks == 4 && s_soft == 1 ? 0 : 44);
}

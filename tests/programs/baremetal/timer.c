/* Interrupts on one hart (RV32 or RV64): the CLINT machine timer and
 * software interrupt, wfi, a supervisor timer made by M-mode (the classic
 * SBI way: M takes its timer interrupt and raises STIP, which mideleg
 * delivers to S), a supervisor software interrupt, interrupts taken in U
 * and S as well as M, and an exception nested in an interrupt handler.
 * mtvec is vectored, so each interrupt cause enters at its own address.
 *
 * Every handler notes its trap (rt_report_trap); the TRAP lines printed at
 * the end are compared with the trace by the capture test. */
#include "rt.h"

/* 10 MHz CLINT, one instruction per ns (icount shift 0): 1 tick ~ 100 insns. */
#define PERIOD 50

#define SVC_SET_TIMER 5 /* from S: clear STIP, interrupt in a0 ticks (0: stop) */

static volatile unsigned long m_ticks, m_soft, s_ticks, s_soft;
static volatile int forward_to_s;
static unsigned long nested_at = 3;

void m_trap(struct frame *f)
{
    unsigned hart = rt_hart();
    rt_report_trap(hart, f, (f->status >> 11) & 3, PRV_M, csr_read(mtvec));
    if (f->cause & MCAUSE_INT) {
        unsigned long cause = f->cause & ~MCAUSE_INT;
        if (cause == IRQ_M_TIMER) {
            m_ticks++;
            if (forward_to_s) {
                /* S-mode's tick: raise STIP and keep MTIP quiet until S asks again. */
                csr_set(mip, 1ul << IRQ_S_TIMER);
                csr_clear(mie, 1ul << IRQ_M_TIMER);
                return;
            }
            if (m_ticks == nested_at)
                __asm__ volatile(".word 0xc0001073"); /* an exception inside the interrupt handler */
            rt_set_mtimecmp(hart, rt_mtime() + PERIOD);
        } else if (cause == IRQ_M_SOFT) {
            m_soft++;
            rt_set_msip(hart, 0);
        } else {
            rt_exit(10);
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
        if (f->x[17] != SVC_SET_TIMER)
            rt_exit(11);
        csr_clear(mip, 1ul << IRQ_S_TIMER);
        if (f->x[10]) {
            rt_set_mtimecmp(hart, rt_mtime() + f->x[10]);
            csr_set(mie, 1ul << IRQ_M_TIMER);
        }
        f->epc += 4;
        return;
    case CAUSE_ILLEGAL:
        rt_skip_insn(f);
        return;
    default:
        rt_exit(12);
    }
}

void s_trap(struct frame *f)
{
    rt_report_trap(rt_hart(), f, (f->status & MSTATUS_SPP) ? PRV_S : PRV_U, PRV_S, csr_read(stvec));
    if (f->cause & MCAUSE_INT) {
        unsigned long cause = f->cause & ~MCAUSE_INT;
        if (cause == IRQ_S_TIMER) {
            s_ticks++;
            rt_ecall(SVC_SET_TIMER, s_ticks < 6 ? PERIOD : 0); /* a trap to M inside this handler */
        } else if (cause == IRQ_S_SOFT) {
            s_soft++;
            csr_clear(sip, 1ul << IRQ_S_SOFT);
        } else {
            rt_exit(13);
        }
        return;
    }
    if (f->cause == CAUSE_USER_ECALL && f->x[17] == RT_ECALL_RETURN) {
        rt_lower_return(f, PRV_S);
        return;
    }
    rt_exit(14);
}

/* Work to be interrupted: CRC-32 of a buffer. */
static unsigned long crc_round(unsigned long seed)
{
    static uint8_t buf[64];
    uint32_t crc = 0xffffffffu ^ (uint32_t)seed;
    for (unsigned i = 0; i < sizeof buf; i++) {
        buf[i] = (uint8_t)(buf[i] + i + seed);
        crc ^= buf[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
    }
    return crc;
}

static unsigned long u_work(unsigned long rounds)
{
    unsigned long acc = 0;
    for (unsigned long r = 0; r < rounds; r++)
        acc += crc_round(r);
    return acc & 0xffff;
}

static void *lower_stack(unsigned which)
{
    return rt_lower_stacks[rt_hart()][which] + sizeof rt_lower_stacks[0][0];
}

static unsigned long s_main(unsigned long rounds)
{
    csr_write(stvec, (unsigned long)trap_entry_s);
    csr_write(sscratch, 0);
    csr_write(sie, (1ul << IRQ_S_TIMER) | (1ul << IRQ_S_SOFT));
    csr_set(sstatus, MSTATUS_SIE);
    rt_ecall(SVC_SET_TIMER, PERIOD);
    unsigned long acc = 0;
    while (s_ticks < 3)
        acc += crc_round(acc);
    csr_set(sip, 1ul << IRQ_S_SOFT); /* taken at once */
    /* U-mode work while S and M timer interrupts keep coming. */
    acc += rt_s_call_user(u_work, rounds, lower_stack(1));
    while (s_ticks < 6)
        acc += crc_round(acc);
    csr_clear(sstatus, MSTATUS_SIE);
    return acc & 0xff;
}

void main_hart(unsigned hart)
{
    if (hart != 0)
        return;
    csr_write(mtvec, (unsigned long)trap_vector_m | 1); /* vectored */
    csr_write(medeleg, 0);
    csr_write(mideleg, 0);
    rt_pmp_allow_all();

    rt_printf("timer: M-mode timer interrupts while computing\n");
    rt_set_mtimecmp(hart, rt_mtime() + PERIOD);
    csr_write(mie, 1ul << IRQ_M_TIMER);
    csr_set(mstatus, MSTATUS_MIE);
    unsigned long acc = 0;
    while (m_ticks < 5)
        acc += crc_round(acc);

    rt_printf("timer: wfi\n");
    for (int i = 0; i < 3; i++) {
        unsigned long before = m_ticks;
        __asm__ volatile("wfi");
        while (m_ticks == before)
            ;
    }

    rt_printf("timer: software interrupt\n");
    csr_clear(mie, 1ul << IRQ_M_TIMER);
    csr_set(mie, 1ul << IRQ_M_SOFT);
    rt_set_msip(hart, 1);
    while (!m_soft)
        ;

    rt_printf("timer: S-mode timer through M, S software interrupt, U-mode\n");
    csr_clear(mstatus, MSTATUS_MIE);
    csr_write(mideleg, (1ul << IRQ_S_TIMER) | (1ul << IRQ_S_SOFT));
    forward_to_s = 1;
    acc += rt_m_call_lower(PRV_S, s_main, 40, lower_stack(0));
    forward_to_s = 0;
    csr_write(mideleg, 0);

    rt_printf("timer: U-mode under M\n");
    rt_set_mtimecmp(hart, rt_mtime() + PERIOD);
    csr_set(mie, 1ul << IRQ_M_TIMER);
    unsigned long before = m_ticks;
    acc += rt_m_call_lower(PRV_U, u_work, 30, lower_stack(1));
    csr_write(mie, 0);
    rt_print_trap_log(1);
    rt_printf("DONE m_ticks=%lu s_ticks=%lu m_soft=%lu s_soft=%lu acc=%lx\n", m_ticks, s_ticks, m_soft, s_soft, acc);
    rt_exit(m_ticks > before && s_ticks == 6 && m_soft == 1 && s_soft == 1 ? 0 : 15);
}

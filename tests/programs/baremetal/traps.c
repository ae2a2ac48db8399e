/* Synchronous exceptions at every privilege level, with delegation, nested
 * traps and U/S/M transitions (one hart, RV32 or RV64).
 *
 *   M-mode: illegal instructions (16- and 32-bit), ebreak and c.ebreak,
 *           load and store access faults, misaligned AMO and LR, ecall from
 *           M, and an ecall whose handler itself takes an illegal
 *           instruction trap (nested M trap).
 *   S-mode (entered with mret): illegal instruction, breakpoint and load
 *           access fault delegated to S (medeleg), ecalls to M, then U-mode
 *           (entered with sret) with ecalls, illegal instructions, wfi,
 *           ebreak and a store fault all delegated to S; one of the U
 *           ecalls makes the S handler call M (nested S -> M trap).
 *   U-mode entered from M directly with nothing delegated: ecall and
 *           illegal instruction trap to M.
 *
 * Every handler notes what the CSRs said (rt_report_trap); the TRAP lines
 * printed at the end are compared with the trace by the capture test. */
#include "rt.h"

/* Service calls (a7). */
#define SVC_DOUBLE 2    /* a0 * 2, by M */
#define SVC_NESTED_M 1  /* M handler takes an illegal instruction trap, returns a0 + 1 */
#define SVC_TRIPLE 3    /* a0 * 3, by S */
#define SVC_VIA_M 4     /* S handler asks M to double a0 */

static unsigned long traps;

static void *lower_stack(unsigned which)
{
    return rt_lower_stacks[rt_hart()][which] + sizeof rt_lower_stacks[0][0];
}

void m_trap(struct frame *f)
{
    unsigned from = (f->status >> 11) & 3;
    rt_report_trap(rt_hart(), f, from, PRV_M, csr_read(mtvec));
    traps++;
    if (f->cause & MCAUSE_INT) {
        rt_printf("unexpected interrupt\n");
        rt_exit(3);
    }
    switch (f->cause) {
    case CAUSE_USER_ECALL:
    case CAUSE_SUPERVISOR_ECALL:
    case CAUSE_MACHINE_ECALL:
        if (f->x[17] == RT_ECALL_RETURN) {
            rt_lower_return(f, PRV_M);
            return;
        }
        if (f->x[17] == SVC_DOUBLE) {
            f->x[10] *= 2;
        } else if (f->x[17] == SVC_NESTED_M) {
            __asm__ volatile(".word 0xc0001073"); /* csrw cycle, x0: illegal, trapped right here */
            f->x[10] += 1;
        } else {
            rt_printf("unknown M service %lu\n", f->x[17]);
            rt_exit(4);
        }
        f->epc += 4;
        return;
    case CAUSE_ILLEGAL:
    case CAUSE_BREAKPOINT:
    case CAUSE_LOAD_ACCESS:
    case CAUSE_STORE_ACCESS:
    case CAUSE_MISALIGNED_LOAD:
    case CAUSE_MISALIGNED_STORE:
        rt_skip_insn(f);
        return;
    default:
        rt_printf("unexpected exception %lu\n", f->cause);
        rt_exit(5);
    }
}

void s_trap(struct frame *f)
{
    unsigned from = (f->status & MSTATUS_SPP) ? PRV_S : PRV_U;
    rt_report_trap(rt_hart(), f, from, PRV_S, csr_read(stvec));
    traps++;
    if (f->cause & MCAUSE_INT) {
        rt_printf("unexpected interrupt in S\n");
        rt_exit(6);
    }
    switch (f->cause) {
    case CAUSE_USER_ECALL:
        if (f->x[17] == RT_ECALL_RETURN) {
            rt_lower_return(f, PRV_S);
            return;
        }
        if (f->x[17] == SVC_TRIPLE)
            f->x[10] *= 3;
        else if (f->x[17] == SVC_VIA_M)
            f->x[10] = rt_ecall(SVC_DOUBLE, f->x[10]); /* a trap to M from inside this handler */
        else
            rt_exit(7);
        f->epc += 4;
        return;
    case CAUSE_ILLEGAL:
    case CAUSE_BREAKPOINT:
    case CAUSE_LOAD_ACCESS:
    case CAUSE_STORE_ACCESS:
        rt_skip_insn(f);
        return;
    default:
        rt_printf("unexpected exception %lu in S\n", f->cause);
        rt_exit(8);
    }
}

static volatile uint32_t amo_word[4] __attribute__((aligned(16)));

/* One load / store at an address where nothing is mapped (an access fault:
 * the handler skips it, so the load leaves 0). */
static inline unsigned long load_at(uintptr_t a)
{
    unsigned long v;
    __asm__ volatile("li %0, 0\n\tlw %0, 0(%1)" : "=&r"(v) : "r"(a) : "memory");
    return v;
}
static inline void store_at(uintptr_t a, unsigned long v)
{
    __asm__ volatile("sw %0, 0(%1)" ::"r"(v), "r"(a) : "memory");
}

static unsigned long u_main(unsigned long arg)
{
    unsigned long v = rt_ecall(SVC_TRIPLE, arg);     /* 3 * arg, by S */
    v = rt_ecall(SVC_VIA_M, v);                      /* 6 * arg, S asks M */
    __asm__ volatile("csrr t0, sstatus" ::: "t0");   /* S CSR from U: illegal, to S */
    __asm__ volatile("wfi");                         /* illegal in U when S exists */
    __asm__ volatile("ebreak");
    store_at(0, 1);                                  /* store access fault, to S */
    return v + 1;
}

static unsigned long s_main(unsigned long arg)
{
    csr_write(stvec, (unsigned long)trap_entry_s);
    csr_write(sscratch, 0);
    __asm__ volatile("csrr t0, mstatus" ::: "t0");   /* M CSR from S: illegal, to S */
    __asm__ volatile(".half 0x9002");                /* c.ebreak, to S */
    unsigned long x = load_at(0);                    /* load access fault, to S */
    x += rt_ecall(SVC_DOUBLE, arg);                  /* ecall from S, to M */
    unsigned long u = rt_s_call_user(u_main, arg, lower_stack(1));
    return u + x;
}

static unsigned long u_direct(unsigned long arg)
{
    unsigned long v = rt_ecall(SVC_DOUBLE, arg);     /* ecall from U, to M */
    __asm__ volatile(".half 0x0000");                /* c.unimp, to M */
    return v;
}

void main_hart(unsigned hart)
{
    if (hart != 0)
        return;
    csr_write(mtvec, (unsigned long)trap_entry_m);
    csr_write(medeleg, 0);
    csr_write(mideleg, 0);
    csr_write(mie, 0);
    rt_pmp_allow_all();
    rt_printf("traps: M-mode exceptions\n");
    __asm__ volatile(".word 0xc0001073");            /* illegal (32-bit) */
    __asm__ volatile(".half 0x0000");                /* illegal (16-bit) */
    __asm__ volatile("ebreak");
    __asm__ volatile(".half 0x9002");                /* c.ebreak */
    unsigned long sum = load_at(0);                  /* load access fault */
    store_at(8, sum);                                /* store access fault */
    volatile uint32_t *odd = (volatile uint32_t *)((uintptr_t)amo_word + 2);
    __asm__ volatile("amoadd.w t0, %1, (%0)" ::"r"(odd), "r"(1) : "t0", "memory"); /* misaligned AMO */
    __asm__ volatile("lr.w t0, (%0)" ::"r"(odd) : "t0", "memory");                 /* misaligned LR */
    sum += rt_ecall(SVC_DOUBLE, 20);                 /* ecall from M: 40 */
    sum += rt_ecall(SVC_NESTED_M, 1);                /* nested: 2 */

    rt_printf("traps: S and U with delegation\n");
    csr_write(medeleg, (1ul << CAUSE_ILLEGAL) | (1ul << CAUSE_BREAKPOINT) | (1ul << CAUSE_LOAD_ACCESS) |
                           (1ul << CAUSE_STORE_ACCESS) | (1ul << CAUSE_USER_ECALL));
    sum += rt_m_call_lower(PRV_S, s_main, 5, lower_stack(0)); /* (31) + (10) */
    csr_write(medeleg, 0);

    rt_printf("traps: U under M\n");
    sum += rt_m_call_lower(PRV_U, u_direct, 7, lower_stack(1)); /* 14 */
    rt_print_trap_log(1);
    rt_printf("DONE traps=%lu sum=%lu\n", traps, sum);
    rt_exit(sum == 40 + 2 + 41 + 14 ? 0 : 9);
}

/* A small bare-metal runtime for the system-mode capture test programs on
 * QEMU's virt machine: CSR access, the trap frame crt.S builds, calls into
 * lower privilege levels, the UART, CLINT timer and software interrupts,
 * the test finisher, and a print lock shared by the harts. */
#ifndef RT_H
#define RT_H

#include <stdarg.h>
#include <stdint.h>

#define RT_MAX_HARTS 8

/* Privilege levels (mstatus.MPP encoding). */
#define PRV_U 0
#define PRV_S 1
#define PRV_M 3

#define MSTATUS_SIE (1ul << 1)
#define MSTATUS_MIE (1ul << 3)
#define MSTATUS_SPIE (1ul << 5)
#define MSTATUS_MPIE (1ul << 7)
#define MSTATUS_SPP (1ul << 8)
#define MSTATUS_MPP (3ul << 11)

#define IRQ_S_SOFT 1
#define IRQ_M_SOFT 3
#define IRQ_S_TIMER 5
#define IRQ_M_TIMER 7

#define CAUSE_MISALIGNED_FETCH 0
#define CAUSE_ILLEGAL 2
#define CAUSE_BREAKPOINT 3
#define CAUSE_MISALIGNED_LOAD 4
#define CAUSE_LOAD_ACCESS 5
#define CAUSE_MISALIGNED_STORE 6
#define CAUSE_STORE_ACCESS 7
#define CAUSE_USER_ECALL 8
#define CAUSE_SUPERVISOR_ECALL 9
#define CAUSE_MACHINE_ECALL 11

#define MCAUSE_INT (1ul << (__riscv_xlen - 1))

#define STR_(x) #x
#define STR(x) STR_(x)
#define csr_read(csr)                                                                              \
    ({                                                                                             \
        unsigned long v_;                                                                          \
        __asm__ volatile("csrr %0, " STR(csr) : "=r"(v_));                                         \
        v_;                                                                                        \
    })
#define csr_write(csr, val) __asm__ volatile("csrw " STR(csr) ", %0" ::"r"((unsigned long)(val)) : "memory")
#define csr_set(csr, val) __asm__ volatile("csrs " STR(csr) ", %0" ::"r"((unsigned long)(val)) : "memory")
#define csr_clear(csr, val) __asm__ volatile("csrc " STR(csr) ", %0" ::"r"((unsigned long)(val)) : "memory")

/* What crt.S saves on a trap: x[2] is the interrupted sp; x[0] is unused. */
struct frame {
    unsigned long x[32];
    unsigned long epc, status, cause, tval;
};

/* Trap entries (crt.S).  M-mode: mscratch is 0 while M-mode code runs and
 * the M stack pointer while lower levels run.  S-mode likewise with
 * sscratch.  Both support nested traps. */
void trap_entry_m(void);
void trap_entry_s(void);
void trap_vector_m(void); /* vectored mtvec table: 16 jumps to trap_entry_m */

/* Handlers the programs define (called by crt.S with the frame). */
void m_trap(struct frame *f);
void s_trap(struct frame *f);

/* Run fn(arg) at privilege `priv` (from M: PRV_S or PRV_U) on the given
 * stack, via mret; fn's return (through rt_lower_exit's ecall) comes back
 * here via rt_lower_return().  From S: rt_s_call_user via sret. */
typedef unsigned long (*lower_fn)(unsigned long);
unsigned long rt_m_call_lower(unsigned priv, lower_fn fn, unsigned long arg, void *stack_top);
unsigned long rt_s_call_user(lower_fn fn, unsigned long arg, void *stack_top);
/* The ecall number (a7) a lower-level function's return makes. */
#define RT_ECALL_RETURN 0x7e7
/* In the handler of that ecall: resume the caller of rt_*_call_* with the
 * value in a0.  `priv` is the level the caller runs at (PRV_M or PRV_S). */
void rt_lower_return(struct frame *f, unsigned priv);

/* Skip the instruction at f->epc (2 or 4 bytes). */
void rt_skip_insn(struct frame *f);

/* Platform: virt machine. */
#define UART0 0x10000000ul
#define CLINT 0x2000000ul
#define FINISHER 0x100000ul

unsigned long rt_hartid(void); /* M-mode only */
/* The hart id at any level (crt.S keeps it in tp). */
static inline unsigned rt_hart(void)
{
    unsigned long t;
    __asm__("mv %0, tp" : "=r"(t));
    return (unsigned)t;
}
/* ecall with a7 = n, a0 = arg; returns a0. */
static inline unsigned long rt_ecall(unsigned long n, unsigned long arg)
{
    register unsigned long a0 __asm__("a0") = arg;
    register unsigned long a7 __asm__("a7") = n;
    __asm__ volatile("ecall" : "+r"(a0) : "r"(a7) : "memory");
    return a0;
}
/* Give every level access to all memory (QEMU 7.2 refuses mret to a
 * lower level while no PMP entry is set). */
static inline void rt_pmp_allow_all(void)
{
    csr_write(pmpaddr0, ~0ul);
    csr_write(pmpcfg0, 0x1f); /* NAPOT, R W X */
}
uint64_t rt_mtime(void);
void rt_set_mtimecmp(unsigned hart, uint64_t when);
void rt_set_msip(unsigned hart, unsigned value);

/* Console (UART, polled; one hart at a time through a spinlock). */
void rt_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rt_vprintf(const char *fmt, va_list ap);
/* Note one trap (from the handler, at any level; safe when traps nest):
 * the level it came from and went to, and the trap vector CSR.  Kept in a
 * per-hart log and printed as TRAP lines by rt_print_trap_log, which the
 * capture test compares with the trace. */
void rt_report_trap(unsigned hart, const struct frame *f, unsigned from, unsigned to, unsigned long tvec);
void rt_print_trap_log(unsigned harts);

/* End the run through the test finisher: 0 = pass (QEMU exits 0). */
void rt_exit(unsigned code) __attribute__((noreturn));

/* Spinlock and per-hart stacks for lower-level code. */
void rt_lock(volatile int *l);
void rt_unlock(volatile int *l);
extern unsigned char rt_lower_stacks[RT_MAX_HARTS][2][4096];

/* Program entry (crt.S calls it on every hart, in M-mode). */
void main_hart(unsigned hart);

#endif

/* The bare-metal runtime (rt.h). */
#include "rt.h"

#include <stdio.h>
#include <string.h>

void rt_lower_resume(void);

unsigned char rt_lower_stacks[RT_MAX_HARTS][2][4096] __attribute__((aligned(16)));

static volatile int print_lock;

void rt_lock(volatile int *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (*l)
            ;
}

void rt_unlock(volatile int *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

#ifdef RT_SBI
/* Through OpenSBI: the legacy console extension (one ecall per byte). */
static long sbi_call(long eid, long fid, long a0, long a1, long a2)
{
    register long r_a0 __asm__("a0") = a0;
    register long r_a1 __asm__("a1") = a1;
    register long r_a2 __asm__("a2") = a2;
    register long r_a6 __asm__("a6") = fid;
    register long r_a7 __asm__("a7") = eid;
    __asm__ volatile("ecall" : "+r"(r_a0), "+r"(r_a1) : "r"(r_a2), "r"(r_a6), "r"(r_a7) : "memory");
    return r_a0;
}

static void putc_raw(char c)
{
    sbi_call(0x01, 0, c, 0, 0);
}

void rt_exit(unsigned code)
{
    /* System Reset extension: shutdown, reason 0 (none) or 1 (failure). */
    sbi_call(0x53525354, 0, 0, code ? 1 : 0, 0);
    for (;;)
        __asm__ volatile("wfi");
}
#else
static void putc_raw(char c)
{
    volatile uint8_t *uart = (volatile uint8_t *)UART0;
    while (!(uart[5] & 0x20)) /* LSR.THRE */
        ;
    uart[0] = (uint8_t)c;
}

void rt_exit(unsigned code)
{
    volatile uint32_t *fin = (volatile uint32_t *)FINISHER;
    *fin = code ? (code << 16) | 0x3333 : 0x5555;
    for (;;)
        __asm__ volatile("wfi");
}

unsigned long rt_hartid(void)
{
    return csr_read(mhartid);
}
#endif

void rt_vprintf(const char *fmt, va_list ap)
{
    char buf[160];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    rt_lock(&print_lock);
    for (int i = 0; i < n; i++)
        putc_raw(buf[i]);
    rt_unlock(&print_lock);
}

void rt_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rt_vprintf(fmt, ap);
    va_end(ap);
}

static char priv_letter(unsigned p)
{
    return p == PRV_U ? 'U' : p == PRV_S ? 'S' : p == PRV_M ? 'M' : '?';
}

#define TRAP_LOG 256

struct trap_note {
    unsigned long cause, epc, tval, handler;
    unsigned char interrupt, from, to;
};

/* Not cleared at start (crt.S clears .bss only): the counts are. */
static struct trap_note trap_log[RT_MAX_HARTS][TRAP_LOG] __attribute__((section(".stacks")));
static unsigned trap_count[RT_MAX_HARTS];

void rt_report_trap(unsigned hart, const struct frame *f, unsigned from, unsigned to, unsigned long tvec)
{
    /* One atomic step claims the slot, so a trap nesting into this one
     * (a higher level's interrupt) takes the next. */
    unsigned i = __atomic_fetch_add(&trap_count[hart], 1, __ATOMIC_RELAXED);
    if (i >= TRAP_LOG)
        return;
    struct trap_note *n = &trap_log[hart][i];
    n->interrupt = (f->cause & MCAUSE_INT) != 0;
    n->cause = f->cause & ~MCAUSE_INT;
    n->epc = f->epc;
    n->tval = n->interrupt ? 0 : f->tval;
    n->handler = tvec & ~3ul;
    if ((tvec & 3) == 1 && n->interrupt)
        n->handler += 4 * n->cause;
    n->from = (unsigned char)priv_letter(from);
    n->to = (unsigned char)priv_letter(to);
}

void rt_print_trap_log(unsigned harts)
{
    for (unsigned h = 0; h < harts && h < RT_MAX_HARTS; h++) {
        unsigned n = trap_count[h];
        if (n > TRAP_LOG)
            rt_printf("TRAPLOG h=%u overflow: %u traps, %u kept\n", h, n, TRAP_LOG);
        for (unsigned i = 0; i < n && i < TRAP_LOG; i++) {
            const struct trap_note *t = &trap_log[h][i];
            rt_printf("TRAP h=%u i=%u c=%lu epc=%lx tval=%lx from=%c to=%c handler=%lx\n", h, t->interrupt, t->cause,
                      t->epc, t->tval, t->from, t->to, t->handler);
        }
    }
}

void rt_skip_insn(struct frame *f)
{
    uint16_t low = *(const volatile uint16_t *)f->epc;
    f->epc += (low & 3) == 3 ? 4 : 2;
}

void rt_lower_return(struct frame *f, unsigned priv)
{
    /* The caller's saved registers sit right above the frame (crt.S). */
    f->x[2] = (unsigned long)(f + 1);
    f->epc = (unsigned long)rt_lower_resume;
    if (priv == PRV_M)
        f->status = (f->status & ~(MSTATUS_MPP | MSTATUS_MPIE)) | (3ul << 11);
    else
        f->status |= MSTATUS_SPP;
}

#ifndef RT_SBI
uint64_t rt_mtime(void)
{
#if __riscv_xlen == 64
    return *(volatile uint64_t *)(CLINT + 0xbff8);
#else
    volatile uint32_t *t = (volatile uint32_t *)(CLINT + 0xbff8);
    uint32_t hi, lo;
    do {
        hi = t[1];
        lo = t[0];
    } while (t[1] != hi);
    return (uint64_t)hi << 32 | lo;
#endif
}

void rt_set_mtimecmp(unsigned hart, uint64_t when)
{
#if __riscv_xlen == 64
    *(volatile uint64_t *)(CLINT + 0x4000 + 8ul * hart) = when;
#else
    volatile uint32_t *c = (volatile uint32_t *)(CLINT + 0x4000 + 8ul * hart);
    c[1] = 0xffffffffu; /* no spurious interrupt while the halves disagree */
    c[0] = (uint32_t)when;
    c[1] = (uint32_t)(when >> 32);
#endif
}

void rt_set_msip(unsigned hart, unsigned value)
{
    *(volatile uint32_t *)(CLINT + 4ul * hart) = value;
}
#endif

/* Start-up and trap entry for the bare-metal test programs (RV32 and RV64).
 *
 * M-mode programs (default): every hart starts at _start in M-mode (QEMU's
 * loader sets each hart's pc), takes its stack, hart 0 clears .bss and
 * releases the others, then each hart calls main_hart(hartid).
 * OpenSBI payload (-DRT_SBI): the boot hart enters in S-mode with a0 =
 * hartid.
 *
 * Trap entries save all registers in a struct frame (rt.h) and call the
 * program's m_trap / s_trap.  mscratch (sscratch) is 0 while code of that
 * level runs and that level's stack pointer while lower levels run, so a
 * trap from the same level keeps its stack and traps can nest. */
#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define R 8
#else
#define REG_S sw
#define REG_L lw
#define R 4
#endif
#define FRAME (36 * R)
#define CTX (16 * R)
#define STACK_SIZE 0x4000
#define MAX_HARTS 8
#define RT_ECALL_RETURN 0x7e7

    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
#ifdef RT_SBI
    mv      s0, a0              /* hart id from OpenSBI */
    csrw    sscratch, zero
#else
    csrr    s0, mhartid
    csrw    mscratch, zero
#endif
    li      t0, MAX_HARTS
    bgeu    s0, t0, park
    la      sp, rt_stacks_end
    li      t0, STACK_SIZE
    mul     t1, s0, t0
    sub     sp, sp, t1
#ifndef RT_SBI
    bnez    s0, wait_boot
#endif
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    REG_S   zero, 0(t0)
    addi    t0, t0, R
    j       1b
2:
#ifndef RT_SBI
    fence   rw, rw
    la      t0, boot_ready
    li      t1, 1
    sw      t1, 0(t0)
    j       run
wait_boot:
    la      t0, boot_ready
3:  lw      t1, 0(t0)
    beqz    t1, 3b
    fence   rw, rw
#endif
run:
    mv      tp, s0              /* rt_hart(): the hart id at any privilege level */
    mv      a0, s0
    call    main_hart
park:
    wfi
    j       park

/* ---- M-mode trap entry ---- */
    .text
    .balign 4
    .globl trap_entry_m
trap_entry_m:
    csrrw   sp, mscratch, sp
    bnez    sp, 1f
    csrr    sp, mscratch        /* from M-mode: keep its stack */
1:  addi    sp, sp, -FRAME
    REG_S   x1, 1*R(sp)
    REG_S   x3, 3*R(sp)
    REG_S   x4, 4*R(sp)
    REG_S   x5, 5*R(sp)
    REG_S   x6, 6*R(sp)
    REG_S   x7, 7*R(sp)
    REG_S   x8, 8*R(sp)
    REG_S   x9, 9*R(sp)
    REG_S   x10, 10*R(sp)
    REG_S   x11, 11*R(sp)
    REG_S   x12, 12*R(sp)
    REG_S   x13, 13*R(sp)
    REG_S   x14, 14*R(sp)
    REG_S   x15, 15*R(sp)
    REG_S   x16, 16*R(sp)
    REG_S   x17, 17*R(sp)
    REG_S   x18, 18*R(sp)
    REG_S   x19, 19*R(sp)
    REG_S   x20, 20*R(sp)
    REG_S   x21, 21*R(sp)
    REG_S   x22, 22*R(sp)
    REG_S   x23, 23*R(sp)
    REG_S   x24, 24*R(sp)
    REG_S   x25, 25*R(sp)
    REG_S   x26, 26*R(sp)
    REG_S   x27, 27*R(sp)
    REG_S   x28, 28*R(sp)
    REG_S   x29, 29*R(sp)
    REG_S   x30, 30*R(sp)
    REG_S   x31, 31*R(sp)
    csrr    t0, mscratch        /* the interrupted sp */
    REG_S   t0, 2*R(sp)
    csrw    mscratch, zero
    csrr    t0, mepc
    REG_S   t0, 32*R(sp)
    csrr    t0, mstatus
    REG_S   t0, 33*R(sp)
    csrr    t0, mcause
    REG_S   t0, 34*R(sp)
    csrr    t0, mtval
    REG_S   t0, 35*R(sp)
    mv      a0, sp
    call    m_trap
    REG_L   t0, 32*R(sp)
    csrw    mepc, t0
    REG_L   t0, 33*R(sp)
    csrw    mstatus, t0
    srli    t1, t0, 11          /* MPP */
    andi    t1, t1, 3
    li      t2, 3
    beq     t1, t2, 2f
    addi    t1, sp, FRAME       /* back to a lower level: its traps use this stack */
    csrw    mscratch, t1
2:  REG_L   x1, 1*R(sp)
    REG_L   x3, 3*R(sp)
    REG_L   x4, 4*R(sp)
    REG_L   x5, 5*R(sp)
    REG_L   x6, 6*R(sp)
    REG_L   x7, 7*R(sp)
    REG_L   x8, 8*R(sp)
    REG_L   x9, 9*R(sp)
    REG_L   x10, 10*R(sp)
    REG_L   x11, 11*R(sp)
    REG_L   x12, 12*R(sp)
    REG_L   x13, 13*R(sp)
    REG_L   x14, 14*R(sp)
    REG_L   x15, 15*R(sp)
    REG_L   x16, 16*R(sp)
    REG_L   x17, 17*R(sp)
    REG_L   x18, 18*R(sp)
    REG_L   x19, 19*R(sp)
    REG_L   x20, 20*R(sp)
    REG_L   x21, 21*R(sp)
    REG_L   x22, 22*R(sp)
    REG_L   x23, 23*R(sp)
    REG_L   x24, 24*R(sp)
    REG_L   x25, 25*R(sp)
    REG_L   x26, 26*R(sp)
    REG_L   x27, 27*R(sp)
    REG_L   x28, 28*R(sp)
    REG_L   x29, 29*R(sp)
    REG_L   x30, 30*R(sp)
    REG_L   x31, 31*R(sp)
    REG_L   sp, 2*R(sp)
    mret

/* Vectored mtvec table: interrupt cause c enters at base + 4*c. */
    .balign 256
    .globl trap_vector_m
trap_vector_m:
    .option push
    .option norvc
    .rept 16
    j       trap_entry_m
    .endr
    .option pop

/* ---- S-mode trap entry (same scheme with the S CSRs) ---- */
    .balign 4
    .globl trap_entry_s
trap_entry_s:
    csrrw   sp, sscratch, sp
    bnez    sp, 1f
    csrr    sp, sscratch
1:  addi    sp, sp, -FRAME
    REG_S   x1, 1*R(sp)
    REG_S   x3, 3*R(sp)
    REG_S   x4, 4*R(sp)
    REG_S   x5, 5*R(sp)
    REG_S   x6, 6*R(sp)
    REG_S   x7, 7*R(sp)
    REG_S   x8, 8*R(sp)
    REG_S   x9, 9*R(sp)
    REG_S   x10, 10*R(sp)
    REG_S   x11, 11*R(sp)
    REG_S   x12, 12*R(sp)
    REG_S   x13, 13*R(sp)
    REG_S   x14, 14*R(sp)
    REG_S   x15, 15*R(sp)
    REG_S   x16, 16*R(sp)
    REG_S   x17, 17*R(sp)
    REG_S   x18, 18*R(sp)
    REG_S   x19, 19*R(sp)
    REG_S   x20, 20*R(sp)
    REG_S   x21, 21*R(sp)
    REG_S   x22, 22*R(sp)
    REG_S   x23, 23*R(sp)
    REG_S   x24, 24*R(sp)
    REG_S   x25, 25*R(sp)
    REG_S   x26, 26*R(sp)
    REG_S   x27, 27*R(sp)
    REG_S   x28, 28*R(sp)
    REG_S   x29, 29*R(sp)
    REG_S   x30, 30*R(sp)
    REG_S   x31, 31*R(sp)
    csrr    t0, sscratch
    REG_S   t0, 2*R(sp)
    csrw    sscratch, zero
    csrr    t0, sepc
    REG_S   t0, 32*R(sp)
    csrr    t0, sstatus
    REG_S   t0, 33*R(sp)
    csrr    t0, scause
    REG_S   t0, 34*R(sp)
    csrr    t0, stval
    REG_S   t0, 35*R(sp)
    mv      a0, sp
    call    s_trap
    REG_L   t0, 32*R(sp)
    csrw    sepc, t0
    REG_L   t0, 33*R(sp)
    csrw    sstatus, t0
    andi    t1, t0, 0x100       /* SPP */
    bnez    t1, 2f
    addi    t1, sp, FRAME
    csrw    sscratch, t1
2:  REG_L   x1, 1*R(sp)
    REG_L   x3, 3*R(sp)
    REG_L   x4, 4*R(sp)
    REG_L   x5, 5*R(sp)
    REG_L   x6, 6*R(sp)
    REG_L   x7, 7*R(sp)
    REG_L   x8, 8*R(sp)
    REG_L   x9, 9*R(sp)
    REG_L   x10, 10*R(sp)
    REG_L   x11, 11*R(sp)
    REG_L   x12, 12*R(sp)
    REG_L   x13, 13*R(sp)
    REG_L   x14, 14*R(sp)
    REG_L   x15, 15*R(sp)
    REG_L   x16, 16*R(sp)
    REG_L   x17, 17*R(sp)
    REG_L   x18, 18*R(sp)
    REG_L   x19, 19*R(sp)
    REG_L   x20, 20*R(sp)
    REG_L   x21, 21*R(sp)
    REG_L   x22, 22*R(sp)
    REG_L   x23, 23*R(sp)
    REG_L   x24, 24*R(sp)
    REG_L   x25, 25*R(sp)
    REG_L   x26, 26*R(sp)
    REG_L   x27, 27*R(sp)
    REG_L   x28, 28*R(sp)
    REG_L   x29, 29*R(sp)
    REG_L   x30, 30*R(sp)
    REG_L   x31, 31*R(sp)
    REG_L   sp, 2*R(sp)
    sret

/* ---- calls into lower privilege levels ---- */

/* unsigned long rt_m_call_lower(unsigned priv, lower_fn fn, unsigned long arg, void *stack_top) */
    .globl rt_m_call_lower
rt_m_call_lower:
    addi    sp, sp, -CTX
    REG_S   ra, 0*R(sp)
    REG_S   s0, 1*R(sp)
    REG_S   s1, 2*R(sp)
    REG_S   s2, 3*R(sp)
    REG_S   s3, 4*R(sp)
    REG_S   s4, 5*R(sp)
    REG_S   s5, 6*R(sp)
    REG_S   s6, 7*R(sp)
    REG_S   s7, 8*R(sp)
    REG_S   s8, 9*R(sp)
    REG_S   s9, 10*R(sp)
    REG_S   s10, 11*R(sp)
    REG_S   s11, 12*R(sp)
    csrw    mscratch, sp        /* the lower level's traps put their frame below */
    li      t0, 0x1880          /* MPP, MPIE */
    csrc    mstatus, t0
    slli    t1, a0, 11
    csrs    mstatus, t1
    csrw    mepc, a1
    mv      a0, a2
    mv      sp, a3
    la      ra, rt_lower_exit
    mret

/* unsigned long rt_s_call_user(lower_fn fn, unsigned long arg, void *stack_top) */
    .globl rt_s_call_user
rt_s_call_user:
    addi    sp, sp, -CTX
    REG_S   ra, 0*R(sp)
    REG_S   s0, 1*R(sp)
    REG_S   s1, 2*R(sp)
    REG_S   s2, 3*R(sp)
    REG_S   s3, 4*R(sp)
    REG_S   s4, 5*R(sp)
    REG_S   s5, 6*R(sp)
    REG_S   s6, 7*R(sp)
    REG_S   s7, 8*R(sp)
    REG_S   s8, 9*R(sp)
    REG_S   s9, 10*R(sp)
    REG_S   s10, 11*R(sp)
    REG_S   s11, 12*R(sp)
    csrw    sscratch, sp
    li      t0, 0x100           /* SPP = U */
    csrc    sstatus, t0
    csrw    sepc, a0
    mv      a0, a1
    mv      sp, a2
    la      ra, rt_lower_exit
    sret

/* Where a lower-level call resumes (rt_lower_return sets epc here, sp = the saved context). */
    .globl rt_lower_resume
rt_lower_resume:
    REG_L   ra, 0*R(sp)
    REG_L   s0, 1*R(sp)
    REG_L   s1, 2*R(sp)
    REG_L   s2, 3*R(sp)
    REG_L   s3, 4*R(sp)
    REG_L   s4, 5*R(sp)
    REG_L   s5, 6*R(sp)
    REG_L   s6, 7*R(sp)
    REG_L   s7, 8*R(sp)
    REG_L   s8, 9*R(sp)
    REG_L   s9, 10*R(sp)
    REG_L   s10, 11*R(sp)
    REG_L   s11, 12*R(sp)
    addi    sp, sp, CTX
    ret

/* A lower-level function returns here (in its own mode): tell the caller. */
    .globl rt_lower_exit
rt_lower_exit:
    li      a7, RT_ECALL_RETURN
    ecall
1:  j       1b

    .data
    .balign 4
boot_ready:
    .word   0

    .section .stacks, "aw", @nobits
    .balign 16
rt_stacks:
    .space  MAX_HARTS * STACK_SIZE
rt_stacks_end:

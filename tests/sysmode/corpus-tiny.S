/* The seed logs of fuzz_qemu_log (corpus/, made by make-corpus.sh): a
 * tiny RV64 program on every hart: an ecall and an illegal instruction
 * trapped in M, a timer interrupt after wfi, mret to U-mode and an ecall
 * back, then hart 0 ends the run once every hart is done. */
    .option norvc
    .globl _start
_start:
    csrr    s0, mhartid
    la      t0, trap
    csrw    mtvec, t0
    li      t0, -1
    csrw    pmpaddr0, t0
    li      t0, 0x1f
    csrw    pmpcfg0, t0
    ecall                       /* cause 11 */
    .word   0                   /* illegal */
    li      t1, 0x200bff8       /* mtime */
    ld      t2, 0(t1)
    addi    t2, t2, 20
    li      t1, 0x2004000       /* mtimecmp[hart] */
    slli    t3, s0, 3
    add     t1, t1, t3
    sd      t2, 0(t1)
    li      t0, 0x80
    csrw    mie, t0             /* MTIE */
    csrsi   mstatus, 8          /* MIE */
1:  wfi
    beqz    s1, 1b              /* s1: set by the timer handler */
    csrci   mstatus, 8
    la      t0, user
    csrw    mepc, t0
    li      t0, 0x1800
    csrc    mstatus, t0         /* MPP = U */
    mret
user:
    addi    a0, a0, 1
    ecall                       /* cause 8: back to M at done */
done:
    la      t0, ndone
    li      t1, 1
    amoadd.w zero, t1, (t0)
    bnez    s0, 3f
2:  lw      t1, 0(t0)
    li      t2, NHARTS
    blt     t1, t2, 2b
    li      t0, 0x100000
    li      t1, 0x5555
    sw      t1, 0(t0)
3:  wfi
    j       3b

    .balign 4
trap:
    csrr    t4, mcause
    bltz    t4, irq
    li      t5, 8
    beq     t4, t5, from_user
    csrr    t5, mepc
    addi    t5, t5, 4
    csrw    mepc, t5
    mret
from_user:
    la      t5, done
    csrw    mepc, t5
    li      t5, 0x1800
    csrs    mstatus, t5         /* back to M */
    mret
irq:
    li      s1, 1
    li      t1, 0x2004000
    slli    t3, s0, 3
    add     t1, t1, t3
    li      t2, -1
    sd      t2, 0(t1)           /* no more timer */
    mret

    .data
    .balign 4
ndone: .word 0

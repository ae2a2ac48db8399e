/* A small RV32IMAC Linux program without libc, for capturing under
 * qemu-riscv32: loops, calls and returns, an indirect jump through a table,
 * compressed and 32-bit instructions, loads and stores, and Linux system
 * calls (write, exit).  Prints "rv32 ok\n" and exits with status 0 when its
 * own arithmetic checks out. */
    .option rvc
    .text
    .globl _start
_start:
    la      sp, stack_top
    li      s0, 0               /* checksum */
    li      s1, 40              /* iterations */
1:  mv      a0, s1
    call    collatz_steps       /* a0 = steps for n = a0 */
    add     s0, s0, a0
    andi    t0, s1, 3           /* dispatch through a jump table */
    slli    t0, t0, 2
    la      t1, table
    add     t1, t1, t0
    lw      t1, 0(t1)
    jr      t1
case0: addi s0, s0, 1
    j       next
case1: addi s0, s0, 2
    j       next
case2: xori s0, s0, 5
    j       next
case3: c.addi s0, 3
next:
    la      t2, results         /* store each partial sum */
    slli    t3, s1, 2
    add     t2, t2, t3
    sw      s0, 0(t2)
    addi    s1, s1, -1
    bnez    s1, 1b

    /* Memory round trip: the partial sum stored last (n = 1) is the total. */
    la      t2, results
    lw      t3, 4(t2)           /* the last partial sum written (n = 1) */
    bne     t3, s0, bad

    li      a0, 1               /* write(1, msg, 8) */
    la      a1, msg
    li      a2, 8
    li      a7, 64
    ecall
    li      a0, 0               /* exit(0) */
    li      a7, 93
    ecall
bad:
    li      a0, 1
    li      a7, 93
    ecall

/* a0 = number of Collatz steps from a0 to 1 (a leaf function). */
collatz_steps:
    li      a1, 0
2:  li      t0, 1
    beq     a0, t0, 4f
    andi    t0, a0, 1
    beqz    t0, 3f
    slli    t0, a0, 1           /* n = 3n + 1 */
    add     a0, a0, t0
    addi    a0, a0, 1
    addi    a1, a1, 1
    j       2b
3:  srli    a0, a0, 1
    c.addi  a1, 1
    j       2b
4:  mv      a0, a1
    ret

    .section .rodata
    .balign 4
table: .word case0, case1, case2, case3
msg:   .ascii "rv32 ok\n"

    .bss
    .balign 16
results: .space 4 * 44
stack:   .space 1024
stack_top:

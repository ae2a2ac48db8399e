# ecall and ebreak into an M-mode trap handler, as bare-metal benchmarks
# (coremark's exit) use them: two "system calls" that return past the
# instruction (mepc + 4 / + 2), a breakpoint, and an exit call whose handler
# writes QEMU virt's test finisher.  Built into ecall64.elf / ecall32.elf by
# build.sh.
    .section .text.start, "ax"
    .globl _start
_start:
    la t0, trap_entry
    csrw mtvec, t0
    li s0, 3
loop:
    li a7, 64                 # "write"
    mv a0, s0
    ecall                     # returns to the next instruction
    addi s0, s0, -1
    bnez s0, loop
    c.ebreak                  # a breakpoint the handler steps over
    call work
    li a7, 93                 # "exit"
    li a0, 0
    ecall                     # never returns
1:  j 1b

work:
    li t1, 5
2:  addi t1, t1, -1
    bnez t1, 2b
    ret

    .balign 4
trap_entry:
    csrr t0, mcause
    li t1, 11                 # environment call from M-mode
    bne t0, t1, not_ecall
    li t1, 93
    beq a7, t1, do_exit
    csrr t0, mepc
    addi t0, t0, 4
    csrw mepc, t0
    mret
not_ecall:                    # breakpoint: step over the 16-bit c.ebreak
    csrr t0, mepc
    addi t0, t0, 2
    csrw mepc, t0
    mret
do_exit:
    li t0, 0x100000           # virt test finisher
    li t1, 0x5555             # pass
    sw t1, 0(t0)
3:  j 3b

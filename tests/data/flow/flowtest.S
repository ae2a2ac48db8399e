# A small program exercising every kind of instruction the flow engine
# distinguishes.  Built into flowtest64.elf / flowtest32.elf by build.sh.
    .option norvc
    .text
    .globl _start
_start:
    li a0, 3
loop:
    addi a0, a0, -1
    bnez a0, loop           # taken twice, then not taken
    .option rvc
    c.nop
    .option norvc
call_site:
    jal ra, leaf            # inferable call
after_leaf:
    lui t1, %hi(si_target)
    jalr x0, %lo(si_target)(t1)   # sequentially inferable jump
si_target:
    la t2, indirect_target
    jr t2                   # uninferable jump (addi between auipc and jr)
indirect_target:
    auipc ra, 0
    jalr ra, 24(ra)         # sequentially inferable call -> sicall_target
after_sicall:
    ecall
after_ecall:
    jal x0, tail
    nop
    nop
sicall_target:
    ret                     # return to after_sicall
leaf:
    .option rvc
    c.addi a0, 1
    c.jr ra                 # return
    .option norvc
tail:
    mret
end:
    nop

/* One block per control-flow class, for the image tests: every label below
 * starts a block whose expected shape is written in tests/image/test_bcache.c.
 * Assembled for RV32 and RV64 (see README.md); never executed. */
    .option norelax
    .text
    .globl _start
    .type _start, @function
_start:
b_branch:               /* addi (4), c.addi (2), beq (4): branch to b_branch */
    .option norvc
    addi a0, a0, 1
    .option rvc
    c.addi a1, 1
    .option norvc
    beq a0, a1, b_branch
b_jal:                  /* nop, jal ra: inferable call to f1 */
    nop
    jal ra, f1
b_cj:                   /* c.j: inferable jump */
    .option rvc
    c.j b_branch
    .option norvc
b_jal_x0:               /* jal x0: inferable jump */
    jal x0, b_jal
b_jal_other:            /* jal a2: other inferable */
    jal a2, f1
b_call_uninf:           /* c.nop, jalr ra, 0(a5): uninferable call */
    .option rvc
    c.nop
    .option norvc
    jalr ra, 0(a5)
b_cjalr:                /* c.jalr a5: uninferable call */
    .option rvc
    c.jalr a5
    .option norvc
b_jr:                   /* jalr x0, 0(a5): uninferable jump */
    jalr x0, 0(a5)
b_cjr:                  /* c.jr a5: uninferable jump */
    .option rvc
    c.jr a5
    .option norvc
b_ret:                  /* jalr x0, 0(ra): return */
    jalr x0, 0(ra)
b_cret:                 /* c.jr ra: return */
    .option rvc
    c.jr ra
    .option norvc
b_coswap:               /* jalr ra, 0(t0): co-routine swap */
    jalr ra, 0(t0)
b_other_uninf:          /* jalr a2, 0(a3): other uninferable */
    jalr a2, 0(a3)
b_sij_auipc:            /* auipc t1 + jalr ra, lo(t1): sequentially inferable call to f1 */
    auipc t1, %pcrel_hi(f1)
    jalr ra, %pcrel_lo(b_sij_auipc)(t1)
b_sij_lui:              /* lui t1 + jalr x0, lo(t1): sequentially inferable jump to f1 */
    lui t1, %hi(f1)
    jalr x0, %lo(f1)(t1)
b_sij_clui:             /* c.lui t1, 1 + c.jr t1: sequentially inferable jump to 0x1000 */
    .option rvc
    c.lui t1, 1
    c.jr t1
    .option norvc
b_not_sij:              /* auipc t1, then a jump through t2: not inferable */
    auipc t1, 0
    jalr x0, 0(t2)
b_sij_split:            /* auipc t1; the jalr starts its own block at b_sij_second */
    auipc t1, 0
b_sij_second:
    jalr x0, 8(t1)
b_ecall:
    ecall
b_ebreak:
    .option rvc
    c.ebreak
    .option norvc
b_mret:
    mret
b_sret:
    sret
b_cap:                  /* 66 instructions without control flow, then a return */
    .rept 33
    nop
    .option rvc
    c.nop
    .option norvc
    .endr
    jalr x0, 0(ra)
b_badinsn:              /* nop, then c.unimp (0x0000, illegal) */
    nop
    .2byte 0
b_long48:               /* nop, then a 48-bit encoding */
    nop
    .2byte 0x001f
    .4byte 0
b_long_ret:             /* a return right after the 48-bit encoding */
    jalr x0, 0(ra)
#if __riscv_xlen == 32
b_cjal:                 /* c.jal (RV32 only): inferable call */
    .option rvc
    c.jal f1
    .option norvc
#endif
    .type f1, @function
f1:
    jalr x0, 0(ra)
    .size f1, . - f1
b_end:                  /* nop, c.nop: the code segment ends here */
    nop
    .option rvc
    c.nop
    .size _start, . - _start

/* E-Trace configuration and refcsv: the reference flow's .scf/.ucf files
 * (values, comments, sections, errors naming file:line), options by name,
 * the support packet's ioptions, and the encoder-port CSV reader/writer
 * (single and multiple retirement, optional columns, errors). */
#include "etrace/etrace.h"
#include "ingress/refcsv.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static void scf_ucf(void)
{
    struct et_params p;
    et_params_default(&p);
    struct rvt_diag d = {0};
    const char *scf = "# comment\n[Required Attributes]\niaddress_width_p=32\n  iaddress_lsb_p = 1 ; trailing\n"
                      "context_width_p=16\nnocontext_p=0\nreturn_stack_size_p=3\n[Other Recommended Attributes]\n"
                      "itype_width_p=4\n";
    CHECK(et_load_ini_mem(&p, scf, strlen(scf), "hw.scf", false, &d) == 0);
    CHECK_EQ(p.iaddress_width_p, 32);
    CHECK_EQ(p.iaddress_lsb_p, 1);
    CHECK_EQ(p.context_width_p, 16);
    CHECK_EQ(p.nocontext_p, 0);
    CHECK_EQ(p.return_stack_size_p, 3);
    /* ucf: only [codec] applies; [required] and [flags] are the harness's */
    const char *ucf = "[required]\nfile-stem=x\n[codec]\nresync-max = 3\nfull-address = true\n"
                      "implicit-return = true\nsi-jump=false\ncycle-accurate = false\n[flags]\nprint-set-pc = false\n";
    CHECK(et_load_ini_mem(&p, ucf, strlen(ucf), "encoder.ucf", true, &d) == 0);
    CHECK_EQ(p.resync_max, 3);
    CHECK(p.full_address);
    CHECK_EQ(p.implicit_return, ET_IR_20);
    /* errors name the file and line */
    const char *bad = "[Required Attributes]\niaddress_width_p=32\niaddress_lsb_p=9\n";
    CHECK(et_load_ini_mem(&p, bad, strlen(bad), "hw.scf", false, &d) < 0);
    CHECK_MSG(strstr(d.msg, "hw.scf:3") != NULL, "%s", d.msg);
    const char *unknown = "[codec]\nresync-max=1\nwarp-speed = 9\n";
    CHECK(et_load_ini_mem(&p, unknown, strlen(unknown), "u.ucf", true, &d) < 0);
    CHECK_MSG(strstr(d.msg, "u.ucf:3") && strstr(d.msg, "warp-speed"), "%s", d.msg);
    const char *noeq = "[a]\njust words\n";
    CHECK(et_load_ini_mem(&p, noeq, strlen(noeq), "x.scf", false, &d) < 0);
    CHECK_MSG(strstr(d.msg, "x.scf:2"), "%s", d.msg);
    /* options by name */
    CHECK(et_param_set(&p, "implicit-return", "fixed", &d) == 0);
    CHECK_EQ(p.implicit_return, ET_IR_FIXED);
    CHECK(et_param_set(&p, "resync-max", "off", &d) == 0);
    CHECK_EQ(p.resync_max, -1);
    /* Ranges as in --filter: LO..HI excludes HI, LO..=HI includes it. */
    CHECK(et_param_set(&p, "filter-range", "0x100..0x200", &d) == 0);
    CHECK_EQ(p.range[0].lo, 0x100);
    CHECK_EQ(p.range[0].hi, 0x1ff);
    CHECK(et_param_set(&p, "filter-range", "0x100..=0x200", &d) == 0);
    CHECK_EQ(p.range[1].hi, 0x200);
    CHECK(et_param_set(&p, "filter-range", "0x100-0x1ff", &d) < 0); /* the old, ambiguous form */
    CHECK_MSG(strstr(d.msg, "LO..HI (HI excluded)"), "%s", d.msg);
    CHECK(et_param_set(&p, "filter-range", "0x100..0x100", &d) < 0); /* empty */
    p.n_ranges = 0;
    CHECK(et_param_set(&p, "filter-range", "0x100..0x200", &d) == 0);
    CHECK(et_param_set(&p, "filter-priv", "u,m", &d) == 0);
    CHECK_EQ(p.priv_mask, (1u << RVT_PRIV_U) | (1u << RVT_PRIV_M));
    CHECK(et_param_set(&p, "filter-cause", "8,i7", &d) == 0);
    CHECK_EQ(p.n_causes, 2);
    CHECK(p.cause_interrupt[1]);
    CHECK(et_param_set(&p, "etrace-version", "1.7", &d) < 0);
    CHECK(et_param_set(&p, "no-such-thing", "1", &d) == -RVT_ERR_UNSUPPORTED);
}

static void ioptions(void)
{
    struct et_params p;
    et_params_default(&p);
    CHECK_EQ(et_ioptions(&p), 0);
    p.full_address = true; /* the reference flow's bit 2 (its fulladdr vector has ioptions 4) */
    CHECK_EQ(et_ioptions(&p), 4);
    p.implicit_return = ET_IR_FIXED;
    p.sijump = true;
    p.branch_prediction = true;
    CHECK_EQ(et_ioptions(&p), 1u | 4u | 16u | 32u | 64u);
    struct et_params q;
    et_params_default(&q);
    et_apply_ioptions(&q, et_ioptions(&p));
    CHECK_EQ(q.implicit_return, ET_IR_FIXED);
    CHECK(q.full_address && q.sijump && q.branch_prediction && !q.jump_target_cache);
}

struct got {
    struct rvt_ing_rec r[16];
    unsigned n;
};

static int collect(void *ctx, const struct rvt_ing_rec *r)
{
    struct got *g = ctx;
    if (g->n < 16)
        g->r[g->n++] = *r;
    return 0;
}

static void refcsv(void)
{
    struct rvt_diag d = {0};
    struct got g = {.n = 0};
    /* the reference columns in another order, a time column, two blocks per
     * cycle, an exception-only row, and hexadecimal with 0x */
    const char *csv = "iaddr_0,itype_0,cause,tval,priv,context,ctype,iretire_0,ilastsize_0,time,sijump_0,"
                      "itype_1,iaddr_1,iretire_1,ilastsize_1\n"
                      "20010522,0,0,0,3,0,0,1,0,100,0,0,0,0,0\n"        /* one 16-bit instruction */
                      "20010524,5,0,0,3,7,2,1,1,101,0,0,0,0,0\n"        /* one 32-bit taken branch */
                      "0x1000,4,0,0,3,7,0,6,1,102,0,8,0x2000,3,0\n"     /* 6 halfwords, then a block in the same cycle */
                      "3000,1,13,0xdead,3,7,0,0,0,103,0,0,0,0,0\n";   /* exception only */
    CHECK(rvt_refcsv_parse_mem(csv, strlen(csv), "t.csv", collect, &g, &d) == 5);
    REQUIRE(g.n == 5);
    CHECK_EQ(g.r[0].iaddr, 0x20010522);
    CHECK_EQ(g.r[0].iretire, 1);
    CHECK_EQ(g.r[0].ilastsize, 0);
    CHECK_EQ(g.r[1].iretire, 2); /* one 32-bit instruction: 2 halfwords */
    CHECK_EQ(g.r[1].itype, RVT_ITYPE_TAKEN);
    CHECK_EQ(g.r[1].context, 7);
    CHECK_EQ(g.r[1].ctype, RVT_CTYPE_PRECISE);
    CHECK_EQ(g.r[1].time, 101);
    CHECK(g.r[1].flags & RVT_ING_HAS_TIME);
    CHECK_EQ(g.r[2].iaddr, 0x1000);
    CHECK_EQ(g.r[2].iretire, 6);
    CHECK(!(g.r[2].flags & RVT_ING_SAME_CYCLE));
    CHECK_EQ(g.r[3].iaddr, 0x2000);
    CHECK_EQ(g.r[3].itype, RVT_ITYPE_CALL_UNINF);
    CHECK(g.r[3].flags & RVT_ING_SAME_CYCLE);
    CHECK_EQ(g.r[4].itype, RVT_ITYPE_EXCEPTION);
    CHECK_EQ(g.r[4].iretire, 0);
    CHECK_EQ(g.r[4].cause, 13);
    CHECK_EQ(g.r[4].tval, 0xdead);
    /* errors with file:line */
    const char *bad1 = "itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0\n0,0,0,3,zz,0,0,1,0\n";
    CHECK(rvt_refcsv_parse_mem(bad1, strlen(bad1), "b.csv", collect, &g, &d) < 0);
    CHECK_MSG(strstr(d.msg, "b.csv:2") && strstr(d.msg, "iaddr"), "%s", d.msg);
    const char *bad2 = "itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0\n";
    CHECK(rvt_refcsv_parse_mem(bad2, strlen(bad2), "c.csv", collect, &g, &d) < 0);
    CHECK_MSG(strstr(d.msg, "c.csv:1") && strstr(d.msg, "ilastsize"), "%s", d.msg);
    const char *bad3 = "itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0,colour\n";
    CHECK(rvt_refcsv_parse_mem(bad3, strlen(bad3), "d.csv", collect, &g, &d) < 0);
    CHECK_MSG(strstr(d.msg, "colour"), "%s", d.msg);
    const char *bad4 = "itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0\n0,0,0,3,10,0,0,1\n";
    CHECK(rvt_refcsv_parse_mem(bad4, strlen(bad4), "e.csv", collect, &g, &d) < 0);
    CHECK_MSG(strstr(d.msg, "e.csv:2"), "%s", d.msg);

    /* the writer: the reference format, one instruction as 1 */
    char path[512];
    snprintf(path, sizeof path, "%s/w.csv", rvt_test_tmpdir());
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    CHECK(rvt_refcsv_write_header(f) == 0);
    for (unsigned i = 0; i < 5; i++)
        CHECK(rvt_refcsv_write(f, &g.r[i]) == 0);
    fclose(f);
    size_t len;
    char *text = (char *)rvt_test_read(path, &len);
    REQUIRE(text != NULL);
    text = realloc(text, len + 1);
    text[len] = 0;
    CHECK_STR(text, "itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0\n"
                    "0,0,0,3,20010522,0,0,1,0\n"
                    "5,0,0,3,20010524,7,2,1,1\n"
                    "4,0,0,3,1000,7,0,6,1\n"
                    "8,0,0,3,2000,7,0,3,0\n"
                    "1,13,dead,3,3000,7,0,0,0\n");
    free(text);

    /* the trigger column: bit 2+N is trace-notify for block N */
    const char *trig = "itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0,trigger,"
                       "itype_1,iaddr_1,iretire_1,ilastsize_1\n"
                       "0,0,0,3,100,0,0,1,0,4,0,0,0,0\n"
                       "0,0,0,3,102,0,0,1,0,8,0,104,1,0\n";
    g.n = 0;
    CHECK(rvt_refcsv_parse_mem(trig, strlen(trig), "t.csv", collect, &g, &d) == 3);
    REQUIRE(g.n == 3);
    CHECK(g.r[0].flags & RVT_ING_NOTIFY);
    CHECK(!(g.r[1].flags & RVT_ING_NOTIFY));
    CHECK(g.r[2].flags & RVT_ING_NOTIFY);
    const char *trig_bad = "itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0,trigger\n"
                           "0,0,0,3,100,0,0,1,0,1\n";
    CHECK(rvt_refcsv_parse_mem(trig_bad, strlen(trig_bad), "u.csv", collect, &g, &d) < 0);
    CHECK_MSG(strstr(d.msg, "u.csv:2") && strstr(d.msg, "trigger"), "%s", d.msg);
    f = fopen(path, "w");
    REQUIRE(f != NULL);
    CHECK(rvt_refcsv_write_header_ex(f, RVT_REFCSV_TRIGGER) == 0);
    CHECK(rvt_refcsv_write_ex(f, &g.r[0], RVT_REFCSV_TRIGGER) == 0);
    fclose(f);
    text = (char *)rvt_test_read(path, &len);
    REQUIRE(text != NULL);
    text = realloc(text, len + 1);
    text[len] = 0;
    CHECK_STR(text, "itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0,trigger\n"
                    "0,0,0,3,100,0,0,1,0,4\n");
    free(text);
}

int main(void)
{
    scf_ucf();
    ioptions();
    refcsv();
    return rvt_test_summary("test_et_config");
}

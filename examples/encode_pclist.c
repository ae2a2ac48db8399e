/* Encode a program's execution, given as one PC per retired instruction,
 * into trace bytes: what a reference encoder does for an RTL comparison.
 *
 *   encode_pclist FAMILY PROGRAM PCLIST OUT [OPTION=VALUE ...]
 *
 * FAMILY is ntrace, etrace, cdl or dbg; PROGRAM the program's ELF (it tells
 * which instructions branch, jump or call); PCLIST has one hex PC per line;
 * OPTION=VALUE are the family's options as `rvtrace encode --help --format
 * FAMILY` lists them, without the dashes.  From the top of the rvtrace
 * sources, the N-Trace reference tool's settings give its bytes exactly:
 *
 *   cc encode_pclist.c $(pkg-config --cflags --libs rvtrace) -o encode_pclist
 *   ./encode_pclist ntrace tests/data/ntrace-t1/test.elf tests/data/ntrace-t1/test-PCONLY.txt t1.nex \
 *       ntrace-mode=htm callstack=8 repeat=2
 *   cmp t1.nex tests/data/ntrace-t1/test-NEX.bin
 */
#include <rvtrace/rvtrace.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s FAMILY PROGRAM PCLIST OUT [OPTION=VALUE ...]\n", argv[0]);
        return 2;
    }
    int status = 1;
    struct rvt_diag diag = {0};
    struct rvt_ing_reader *in = NULL;
    FILE *out = NULL;
    int out_made = 0;
    void *cfg = NULL;
    struct rvt_image *img = rvt_img_new();
    const struct rvt_codec *family = rvt_codec_find(argv[1]);
    if (!img) {
        fprintf(stderr, "out of memory\n");
        goto done;
    }
    if (!family) {
        fprintf(stderr, "%s: unknown trace family\n", argv[1]);
        goto done;
    }
    if (rvt_img_load_elf(img, argv[2]) < 0) {
        fprintf(stderr, "%s\n", rvt_img_error(img));
        goto done;
    }
    /* The PC list becomes ingress records: the E-Trace ingress port's view
     * of each retired block, classified with the program's code. */
    struct rvt_ing_reader_config rc = {.size = sizeof rc, .format = RVT_ING_FMT_PCLIST, .image = img};
    if (rvt_ing_open(&in, argv[3], &rc, &diag) < 0) {
        fprintf(stderr, "%s\n", diag.msg);
        goto done;
    }
    cfg = rvt_codec_cfg_new(family);
    if (!cfg) {
        fprintf(stderr, "out of memory\n");
        goto done;
    }
    for (int i = 5; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        char key[64];
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - argv[i]) : (int)strlen(argv[i]), argv[i]);
        if (family->cfg_set(cfg, key, eq ? eq + 1 : "1", &diag) < 0) {
            fprintf(stderr, "%s: %s\n", argv[i], diag.msg);
            goto done;
        }
    }
    if (family->cfg_finish && family->cfg_finish(cfg, rvt_ing_xlen(in), img, &diag) < 0) {
        fprintf(stderr, "%s options: %s\n", argv[1], diag.msg);
        goto done;
    }
    out = fopen(argv[4], "wb");
    if (!out) {
        fprintf(stderr, "%s: cannot create: %s\n", argv[4], strerror(errno));
        goto done;
    }
    out_made = 1;
    struct rvt_filesink file = {.f = out, .name = argv[4]};
    struct rvt_byte_sink sink = rvt_filesink_sink(&file);
    struct rvt_codec_stats st;
    if (rvt_encode_stream(family, cfg, in, img, &sink, &st, &diag) < 0) {
        fprintf(stderr, "%s: %s\n", argv[3], diag.msg);
        goto done;
    }
    if (fclose(out) != 0 || file.err) {
        out = NULL;
        fprintf(stderr, "%s: write failed: %s\n", argv[4], strerror(file.err ? file.err : errno));
        goto done;
    }
    out = NULL;
    printf("%s: %llu instructions -> %llu bytes in %llu packets\n", argv[4], (unsigned long long)st.insns,
           (unsigned long long)file.written, (unsigned long long)st.packets);
    status = 0;
done:
    if (out)
        fclose(out);
    if (status && out_made)
        remove(argv[4]); /* no half-written trace left behind */
    if (cfg)
        rvt_codec_cfg_free(cfg);
    rvt_ing_close(in);
    rvt_img_free(img);
    return status;
}

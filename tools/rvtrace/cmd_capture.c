/* rvtrace capture: run a RISC-V Linux program under qemu-riscv64 (or
 * qemu-riscv32) with the librvtrace-qemu plugin and write its execution as
 * a native ingress stream.
 *
 * The run is made reproducible: the program is started by its absolute
 * path with an empty environment (plus --env entries), stdin and stdout
 * come from/go to fixed files, address-space randomisation is off, the
 * stack limit is fixed and QEMU's random seed is fixed (AT_RANDOM,
 * getrandom), so the same command line gives the same instruction stream,
 * byte for byte. */
/* realpath() is an XSI interface. */
#define _XOPEN_SOURCE 700

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CMD "capture"
#define PLUGIN_NAME "librvtrace-qemu.so"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rvtrace capture [options] -- PROGRAM [ARGS...]\n"
            "\n"
            "Run a RISC-V Linux program under QEMU user-mode emulation and record every\n"
            "instruction it executes as an rvtrace ingress stream (native binary format).\n"
            "\n"
            "options:\n"
            "  -o, --output FILE   ingress file to write (default: capture.ing)\n"
            "  --qemu PATH         QEMU user-mode emulator (default: qemu-riscv64, or\n"
            "                      qemu-riscv32 for a 32-bit ELF, from PATH)\n"
            "  --plugin PATH       the capture plugin (default: $RVT_QEMU_PLUGIN, else the\n"
            "                      one beside this rvtrace (build tree), else ../lib/rvtrace/\n"
            "                      from it, else the configured install path)\n"
            "  --ecall MODE        how a user-mode ecall (a system call QEMU performs) is\n"
            "                      recorded: sequential (itype 0, default) or uninferable\n"
            "                      (itype 8, an uninferable call to the next instruction)\n"
            "  --mem               record each instruction's memory access (address, size,\n"
            "                      load/store); ends a block at every access\n"
            "  --per-insn          one record per instruction (default: merged blocks)\n"
            "  --stdin FILE        the program's standard input (default: /dev/null)\n"
            "  --stdout FILE       the program's standard output (default: /dev/null)\n"
            "  --stderr FILE       the program's (and QEMU's) standard error (default: this\n"
            "                      command's)\n"
            "  --env NAME=VALUE    add to the program's otherwise empty environment\n"
            "  --qemu-arg ARG      pass ARG to QEMU before the program (repeatable)\n"
            "  -q, --quiet         print nothing on success\n"
            "  -h, --help          this text\n"
            "\n"
            "For identical captures keep the same program path, arguments, --env, --stdin,\n"
            "--stdout and --stderr kinds; the environment is emptied, address randomisation\n"
            "is off, the stack limit is 8 MiB and QEMU's random seed is fixed.\n"
            "Each guest thread is one stream: the first writes FILE, later threads FILE.1,\n"
            "FILE.2 ... in creation order (multi-threaded runs are not reproducible). A forked\n"
            "child is not recorded. Programs that handle signals cannot be captured (user-mode\n"
            "QEMU enters and leaves handlers without a trap to record), and a program killed by\n"
            "a signal leaves no trace (QEMU 7.2 runs no plugin exit hook then). Use static\n"
            "executables: `rvtrace check` needs all executed code in the ELF.\n"
            "The exit status is 1 if the program exits non-zero (the trace is still\n"
            "written) or the capture fails, 2 on a usage error.\n");
}

struct capture_opts {
    const char *out;
    const char *qemu;
    const char *plugin;
    const char *ecall;
    const char *in_path;
    const char *out_path;
    const char *err_path; /* NULL: inherit */
    bool mem, per_insn, quiet;
    char **env;
    size_t nenv;
    char **qemu_args;
    size_t nqemu_args;
};

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* First executable `name` on PATH (or `name` itself if it has a slash). */
static char *find_in_path(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char buf[PATH_MAX];
        if (len > 0 && (size_t)snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, name) < sizeof buf &&
            is_file(buf) && access(buf, X_OK) == 0)
            return strdup(buf);
        path += len + (end ? 1 : 0);
    }
    return NULL;
}

/* The directory of the running rvtrace executable, or "" if unknown. */
static void self_dir(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0) {
        buf[0] = 0;
        return;
    }
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = 0;
}

static char *find_plugin(void)
{
    const char *env = getenv("RVT_QEMU_PLUGIN");
    if (env && *env)
        return strdup(env);
    char dir[PATH_MAX], cand[PATH_MAX + 64];
    self_dir(dir, sizeof dir);
    if (dir[0]) {
        /* The build tree puts it beside rvtrace; a relocated install under ../lib. */
        snprintf(cand, sizeof cand, "%s/%s", dir, PLUGIN_NAME);
        if (is_file(cand))
            return strdup(cand);
        snprintf(cand, sizeof cand, "%s/../lib/rvtrace/%s", dir, PLUGIN_NAME);
        if (is_file(cand))
            return strdup(cand);
    }
#ifdef RVT_PLUGIN_INSTALL_PATH
    if (is_file(RVT_PLUGIN_INSTALL_PATH))
        return strdup(RVT_PLUGIN_INSTALL_PATH);
#endif
#ifdef RVT_PLUGIN_BUILD_PATH
    if (is_file(RVT_PLUGIN_BUILD_PATH))
        return strdup(RVT_PLUGIN_BUILD_PATH);
#endif
    return NULL;
}

/* ELF class of a file: 32, 64, or 0 if it is not a RISC-V ELF. */
static unsigned elf_xlen(const char *path)
{
    unsigned char h[20];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n < sizeof h || memcmp(h, "\177ELF", 4) != 0 || h[5] != 1 /* little-endian */)
        return 0;
    unsigned machine = h[18] | (unsigned)h[19] << 8;
    if (machine != 243 /* EM_RISCV */)
        return 0;
    return h[4] == 1 ? 32 : h[4] == 2 ? 64 : 0;
}

/* Append src to dst (NUL-terminated, capacity size), doubling commas when
 * `escape` (QEMU's option syntax takes ",," for a literal comma in a
 * value).  False if it does not fit. */
static bool append(char *dst, size_t size, const char *src, bool escape)
{
    size_t n = strlen(dst);
    for (; *src; src++) {
        size_t need = escape && *src == ',' ? 2 : 1;
        if (n + need >= size)
            return false;
        dst[n++] = *src;
        if (need == 2)
            dst[n++] = ',';
    }
    dst[n] = 0;
    return true;
}

struct stats {
    bool ok;
    uint64_t insns, records, streams;
    long long bytes;
    char error[600];
};

static bool read_stats(const char *path, struct stats *st)
{
    memset(st, 0, sizeof *st);
    st->bytes = -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[sizeof st->error + 6]; /* "error " + the message */
    bool have_status = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "status ", 7) == 0) {
            have_status = true;
            st->ok = strcmp(line + 7, "ok") == 0;
        } else if (strncmp(line, "insns ", 6) == 0) {
            cli_parse_u64(line + 6, &st->insns);
        } else if (strncmp(line, "records ", 8) == 0) {
            cli_parse_u64(line + 8, &st->records);
        } else if (strncmp(line, "streams ", 8) == 0) {
            cli_parse_u64(line + 8, &st->streams);
        } else if (strncmp(line, "bytes ", 6) == 0) {
            st->bytes = atoll(line + 6);
        } else if (strncmp(line, "error ", 6) == 0) {
            snprintf(st->error, sizeof st->error, "%s", line + 6);
        }
    }
    fclose(f);
    return have_status;
}

static int redirect(int fd, const char *path, int flags)
{
    int f = open(path, flags, 0644);
    if (f < 0)
        return -1;
    if (f != fd) {
        if (dup2(f, fd) < 0)
            return -1;
        close(f);
    }
    return 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(const struct capture_opts *o, int pargc, char **pargv)
{
    int status = 1;
    char *program = NULL, *qemu = NULL, *plugin = NULL, *out_abs = NULL;
    char **args = NULL, **envp = NULL;
    char stats_path[PATH_MAX];
    int stats_fd = -1;
    char plugin_arg[6 * PATH_MAX + 256];
    stats_path[0] = 0;

    program = realpath(pargv[0], NULL);
    if (!program) {
        cli_fail(CMD, "%s: %s", pargv[0], strerror(errno));
        goto out;
    }
    unsigned xlen = elf_xlen(program);
    if (!xlen) {
        cli_fail(CMD, "%s: not a little-endian RISC-V ELF executable", program);
        goto out;
    }
    const char *qemu_name = o->qemu ? o->qemu : xlen == 32 ? "qemu-riscv32" : "qemu-riscv64";
    qemu = find_in_path(qemu_name);
    if (!qemu) {
        cli_fail(CMD, "%s: not found%s", qemu_name, o->qemu ? "" : " on PATH (apt-get install qemu-user)");
        goto out;
    }
    plugin = o->plugin ? strdup(o->plugin) : find_plugin();
    if (!plugin || !is_file(plugin)) {
        cli_fail(CMD, "capture plugin %s not found (build with -DRVT_BUILD_QEMU_PLUGIN=ON or give --plugin)",
                 plugin ? plugin : PLUGIN_NAME);
        goto out;
    }
    /* QEMU resolves relative paths itself; absolute ones survive any cwd. */
    char *plugin_abs = realpath(plugin, NULL);
    if (plugin_abs) {
        free(plugin);
        plugin = plugin_abs;
    }

    /* The output must be writable before spending time on the run. */
    int ofd = open(o->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (ofd < 0) {
        cli_fail(CMD, "%s: %s", o->out, strerror(errno));
        goto out;
    }
    close(ofd);
    out_abs = realpath(o->out, NULL);
    if (!out_abs) {
        cli_fail(CMD, "%s: %s", o->out, strerror(errno));
        goto out;
    }
    /* The plugin reports its counts through a private temporary file. */
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    if ((size_t)snprintf(stats_path, sizeof stats_path, "%s/rvtrace-capture-XXXXXX", tmpdir) >= sizeof stats_path) {
        cli_fail(CMD, "TMPDIR is too long");
        stats_path[0] = 0;
        goto out;
    }
    stats_fd = mkstemp(stats_path);
    if (stats_fd < 0) {
        cli_fail(CMD, "cannot create a temporary file in %s: %s", tmpdir, strerror(errno));
        stats_path[0] = 0;
        goto out;
    }
    close(stats_fd);

    char modes[96];
    snprintf(modes, sizeof modes, ",merge=%s,mem=%s,ecall=%s", o->per_insn ? "off" : "on", o->mem ? "on" : "off",
             o->ecall);
    plugin_arg[0] = 0;
    if (!append(plugin_arg, sizeof plugin_arg, plugin, true) || !append(plugin_arg, sizeof plugin_arg, ",out=", false) ||
        !append(plugin_arg, sizeof plugin_arg, out_abs, true) ||
        !append(plugin_arg, sizeof plugin_arg, ",stats=", false) ||
        !append(plugin_arg, sizeof plugin_arg, stats_path, true) ||
        !append(plugin_arg, sizeof plugin_arg, modes, false)) {
        cli_fail(CMD, "paths too long for the QEMU -plugin option");
        goto out;
    }

    /* qemu -seed 1 -plugin ... [qemu args] PROGRAM ARGS */
    size_t nargs = 5 + o->nqemu_args + (size_t)pargc + 1, k = 0;
    args = calloc(nargs, sizeof *args);
    envp = calloc(o->nenv + 1, sizeof *envp);
    if (!args || !envp) {
        cli_fail(CMD, "out of memory");
        goto out;
    }
    args[k++] = qemu;
    args[k++] = "-seed";
    args[k++] = "1";
    args[k++] = "-plugin";
    args[k++] = plugin_arg;
    for (size_t i = 0; i < o->nqemu_args; i++)
        args[k++] = o->qemu_args[i];
    args[k++] = program;
    for (int i = 1; i < pargc; i++)
        args[k++] = pargv[i];
    args[k] = NULL;
    for (size_t i = 0; i < o->nenv; i++)
        envp[i] = o->env[i];
    envp[o->nenv] = NULL;

    /* Like system(): a Ctrl-C ends the program (QEMU still writes the trace
     * of what ran), not this process, which then reports it. */
    struct sigaction ign, old_int, old_quit;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    fflush(NULL);
    double t0 = now_seconds();
    pid_t pid = fork();
    if (pid < 0) {
        cli_fail(CMD, "fork: %s", strerror(errno));
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        goto out;
    }
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        /* Guest stack and mmap addresses follow the host's layout. */
        personality(ADDR_NO_RANDOMIZE);
        /* QEMU sizes the guest stack from this limit and the guest's libc
         * reads it at start-up: fix it (to Linux's default) so the run
         * does not depend on the caller's `ulimit -s`. */
        struct rlimit rl;
        if (getrlimit(RLIMIT_STACK, &rl) == 0) {
            rlim_t want = 8u << 20;
            if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
                want = rl.rlim_max;
            rl.rlim_cur = want;
            setrlimit(RLIMIT_STACK, &rl);
        }
        if (redirect(0, o->in_path, O_RDONLY) < 0) {
            fprintf(stderr, "rvtrace capture: %s: %s\n", o->in_path, strerror(errno));
            _exit(127);
        }
        if (redirect(1, o->out_path, O_WRONLY | O_CREAT | O_TRUNC) < 0) {
            fprintf(stderr, "rvtrace capture: %s: %s\n", o->out_path, strerror(errno));
            _exit(127);
        }
        if (o->err_path && redirect(2, o->err_path, O_WRONLY | O_CREAT | O_TRUNC) < 0) {
            fprintf(stderr, "rvtrace capture: %s: %s\n", o->err_path, strerror(errno));
            _exit(127);
        }
        execve(qemu, args, envp);
        fprintf(stderr, "rvtrace capture: %s: %s\n", qemu, strerror(errno));
        _exit(127);
    }
    int wst, wrc;
    while ((wrc = (int)waitpid(pid, &wst, 0)) < 0 && errno == EINTR)
        ;
    double secs = now_seconds() - t0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (wrc < 0) {
        cli_fail(CMD, "waitpid: %s", strerror(errno));
        goto out;
    }

    struct stats st;
    if (!read_stats(stats_path, &st)) {
        if (WIFEXITED(wst))
            cli_fail(CMD, "%s exited with status %d before the plugin finished; no trace written", qemu,
                     WEXITSTATUS(wst));
        else
            cli_fail(CMD,
                     "%s died of signal %d; no trace written (QEMU 7.2 runs no plugin exit hook when the "
                     "program is killed by a signal it does not handle)",
                     program, WIFSIGNALED(wst) ? WTERMSIG(wst) : 0);
        remove(out_abs);
        goto out;
    }
    if (!st.ok) {
        cli_fail(CMD, "capture of %s failed: %s", program, st.error);
        goto out;
    }
    if (!o->quiet) {
        double bpi = st.insns ? (double)st.bytes / (double)st.insns : 0.0;
        printf("%s: %" PRIu64 " instructions, %" PRIu64 " records, %lld bytes (%.3f bytes/insn) in %.2f s "
               "(%.1f M insn/s) -> %s",
               program, st.insns, st.records, st.bytes, bpi, secs, secs > 0 ? (double)st.insns / secs / 1e6 : 0.0,
               o->out);
        if (st.streams == 2)
            printf(" and %s.1 (second thread)", o->out);
        else if (st.streams > 2)
            printf(" and %s.1 ... %s.%" PRIu64 " (one per further thread)", o->out, o->out, st.streams - 1);
        printf("\n");
    }
    if (WIFEXITED(wst) && WEXITSTATUS(wst) == 0) {
        status = 0;
    } else if (WIFEXITED(wst)) {
        cli_fail(CMD, "%s exited with status %d (trace written to %s)", program, WEXITSTATUS(wst), o->out);
    } else {
        cli_fail(CMD, "%s killed by signal %d (trace written to %s)", program,
                 WIFSIGNALED(wst) ? WTERMSIG(wst) : 0, o->out);
    }
out:
    if (stats_path[0])
        remove(stats_path);
    free(program);
    free(qemu);
    free(plugin);
    free(out_abs);
    free(args);
    free(envp);
    return status;
}

int cmd_capture(int argc, char **argv)
{
    struct capture_opts o;
    memset(&o, 0, sizeof o);
    o.out = "capture.ing";
    o.ecall = "sequential";
    o.in_path = "/dev/null";
    o.out_path = "/dev/null";
    /* Option lists can hold at most argc entries each. */
    o.env = calloc((size_t)argc + 1, sizeof *o.env);
    o.qemu_args = calloc((size_t)argc + 1, sizeof *o.qemu_args);
    if (!o.env || !o.qemu_args) {
        free(o.env);
        free(o.qemu_args);
        return cli_fail(CMD, "out of memory");
    }
    int status = 2, i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                                                     \
    do {                                                                                                 \
        if (!val) {                                                                                      \
            cli_fail(CMD, "%s needs a value (see --help)", a);                                           \
            goto done;                                                                                   \
        }                                                                                                \
        i++;                                                                                             \
    } while (0)
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            status = 0;
            goto done;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            NEED_VALUE();
            o.out = val;
        } else if (strcmp(a, "--qemu") == 0) {
            NEED_VALUE();
            o.qemu = val;
        } else if (strcmp(a, "--plugin") == 0) {
            NEED_VALUE();
            o.plugin = val;
        } else if (strcmp(a, "--ecall") == 0) {
            NEED_VALUE();
            if (strcmp(val, "sequential") != 0 && strcmp(val, "uninferable") != 0) {
                cli_fail(CMD, "--ecall %s: expected sequential or uninferable", val);
                goto done;
            }
            o.ecall = val;
        } else if (strcmp(a, "--mem") == 0) {
            o.mem = true;
        } else if (strcmp(a, "--per-insn") == 0) {
            o.per_insn = true;
        } else if (strcmp(a, "--stdin") == 0) {
            NEED_VALUE();
            o.in_path = val;
        } else if (strcmp(a, "--stdout") == 0) {
            NEED_VALUE();
            o.out_path = val;
        } else if (strcmp(a, "--stderr") == 0) {
            NEED_VALUE();
            o.err_path = val;
        } else if (strcmp(a, "--env") == 0) {
            NEED_VALUE();
            if (!strchr(val, '=') || val[0] == '=') {
                cli_fail(CMD, "--env %s: expected NAME=VALUE", val);
                goto done;
            }
            o.env[o.nenv++] = argv[i];
        } else if (strcmp(a, "--qemu-arg") == 0) {
            NEED_VALUE();
            o.qemu_args[o.nqemu_args++] = argv[i];
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            o.quiet = true;
        } else if (a[0] == '-') {
            cli_fail(CMD, "unknown option %s (see --help)", a);
            goto done;
        } else {
            break; /* the program, without a "--" */
        }
#undef NEED_VALUE
    }
    if (i >= argc) {
        cli_fail(CMD, "no program given (rvtrace capture [options] -- PROGRAM [ARGS...])");
        goto done;
    }
    if (strcmp(o.out, "-") == 0) {
        cli_fail(CMD, "-o -: the trace is written by QEMU beside the program's own output; give a file name");
        goto done;
    }
    status = run(&o, argc - i, argv + i);
done:
    free(o.env);
    free(o.qemu_args);
    return status;
}

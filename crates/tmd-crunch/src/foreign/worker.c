/* The evaluation worker: a process of its own that loads one foreign function and evaluates
 * batches of inputs under a rounding mode with the loops of eval_under.c and eval_wide.c, so
 * that a target that crashes, exits or never returns ends this process and not tmd. The
 * design and the parent's side are in tmd_crunch::foreign::worker (worker.rs).
 *
 *   tmd-eval-worker LIBRARY SYMBOL KIND MODE TIMEOUT_SECONDS
 *
 * Everything on the pipes is native-endian 64-bit words, then raw numbers. Before loading,
 * the results pipe (stdout) is moved to another descriptor and stdout is pointed at stderr,
 * so that what the target prints never mixes with results.
 *
 *   worker -> parent, once loaded:  OK | LOAD_ERROR what length text
 *   parent -> worker, per batch:    n, then n inputs (pairs: the n first arguments, then the
 *                                   n second ones)
 *   worker -> parent, per batch:    OK and the n results | DIED cause detail index
 *
 * DIED is written by the signal handlers (a fault, abort, the batch's alarm) and by an atexit
 * handler (the target called exit), with the index of the input being evaluated, which the
 * loops keep in tmd_eval_at. A death that leaves no record (_exit, SIGKILL) is seen by the
 * parent as the end of the pipe and the process's status.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern volatile size_t tmd_eval_at;

void tmd_eval_f32_under(int mode, float (*f)(float), const float *x, float *y, size_t n);
void tmd_eval_f64_under(int mode, double (*f)(double), const double *x, double *y, size_t n);
void tmd_eval2_f32_under(int mode, float (*f)(float, float), const float *a, const float *b,
                         float *out, size_t n);
void tmd_eval2_f64_under(int mode, double (*f)(double, double), const double *a,
                         const double *b, double *out, size_t n);
#if defined(__x86_64__)
void tmd_eval_f64x2_under(int mode, void *f, const double *x, double *y, size_t n);
void tmd_eval_f64x4_under(int mode, void *f, const double *x, double *y, size_t n);
void tmd_eval_f64x8_under(int mode, void *f, const double *x, double *y, size_t n);
void tmd_eval_f32x4_under(int mode, void *f, const float *x, float *y, size_t n);
void tmd_eval_f32x8_under(int mode, void *f, const float *x, float *y, size_t n);
void tmd_eval_f32x16_under(int mode, void *f, const float *x, float *y, size_t n);
void tmd_eval_f80_under(int mode, void *f, const unsigned char *x, unsigned char *y, size_t n);
#endif
#if defined(__x86_64__) || defined(__aarch64__)
void tmd_eval_f128_under(int mode, void *f, const unsigned char *x, unsigned char *y,
                         size_t n);
#endif

enum { TAG_OK = 0, TAG_LOAD_ERROR = 1, TAG_DIED = 2 };
enum { CAUSE_SIGNAL = 1, CAUSE_EXIT = 2, CAUSE_TIMEOUT = 3 };
enum { LOAD_LIBRARY = 1, LOAD_SYMBOL = 2, LOAD_KIND = 3 };
enum { IDLE = 0, LOADING = 1, EVALUATING = 2 };
/* The index of a death outside a batch (while loading). */
#define NO_INPUT UINT64_MAX

/* Kinds, as tmd_crunch::foreign::worker::Kind numbers them: bytes per input and per result. */
static const size_t IN_SIZE[] = {4, 8, 8, 16, 16, 16, 4, 4, 4, 8, 8, 8};
static const size_t OUT_SIZE[] = {4, 8, 4, 8, 16, 16, 4, 4, 4, 8, 8, 8};
#define KINDS (sizeof IN_SIZE / sizeof IN_SIZE[0])

static int results_fd = -1;
static volatile sig_atomic_t phase = IDLE;

static int write_all(int fd, const void *p, size_t n) {
    const char *c = p;
    while (n > 0) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n) {
    char *c = p;
    while (n > 0) {
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Async-signal-safe: one write of four words, once. */
static void report_death(uint64_t cause, uint64_t detail) {
    if (phase == IDLE)
        return;
    uint64_t record[4] = {TAG_DIED, cause, detail,
                          phase == EVALUATING ? (uint64_t)tmd_eval_at : NO_INPUT};
    phase = IDLE;
    write_all(results_fd, record, sizeof record);
}

static void on_signal(int sig) {
    if (sig == SIGALRM) {
        report_death(CAUSE_TIMEOUT, 0);
        _exit(124);
    }
    report_death(CAUSE_SIGNAL, (uint64_t)sig);
    /* SA_RESETHAND restored the default action: dying of the same signal lets the parent
     * see it in the exit status too. */
    raise(sig);
}

static void on_exit_call(void) { report_death(CAUSE_EXIT, 0); }

static void install_handlers(void) {
    /* Its own stack, so that a stack overflow in the target is reported too. */
    static char alt[1 << 16];
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    const int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGALRM};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        sigaction(signals[i], &sa, NULL);
    }
    atexit(on_exit_call);
}

static void load_error(uint64_t what, const char *text) {
    if (text == NULL)
        text = "";
    uint64_t head[3] = {TAG_LOAD_ERROR, what, strlen(text)};
    write_all(results_fd, head, sizeof head);
    write_all(results_fd, text, strlen(text));
    _exit(0);
}

static void evaluate(int kind, int mode, void *f, unsigned char *in, unsigned char *out,
                     size_t n) {
    switch (kind) {
    case 0: tmd_eval_f32_under(mode, (float (*)(float))f, (float *)in, (float *)out, n); break;
    case 1:
        tmd_eval_f64_under(mode, (double (*)(double))f, (double *)in, (double *)out, n);
        break;
    case 2:
        tmd_eval2_f32_under(mode, (float (*)(float, float))f, (float *)in,
                            (float *)(in + 4 * n), (float *)out, n);
        break;
    case 3:
        tmd_eval2_f64_under(mode, (double (*)(double, double))f, (double *)in,
                            (double *)(in + 8 * n), (double *)out, n);
        break;
#if defined(__x86_64__)
    case 4: tmd_eval_f80_under(mode, f, in, out, n); break;
    case 6: tmd_eval_f32x4_under(mode, f, (float *)in, (float *)out, n); break;
    case 7: tmd_eval_f32x8_under(mode, f, (float *)in, (float *)out, n); break;
    case 8: tmd_eval_f32x16_under(mode, f, (float *)in, (float *)out, n); break;
    case 9: tmd_eval_f64x2_under(mode, f, (double *)in, (double *)out, n); break;
    case 10: tmd_eval_f64x4_under(mode, f, (double *)in, (double *)out, n); break;
    case 11: tmd_eval_f64x8_under(mode, f, (double *)in, (double *)out, n); break;
#endif
#if defined(__x86_64__) || defined(__aarch64__)
    case 5: tmd_eval_f128_under(mode, f, in, out, n); break;
#endif
    default: break;
    }
}

/* The worker must not outlive tmd, however tmd ends (Ctrl-C, kill -9): a target that never
   returns would go on computing, orphaned. tmd's end closes the requests pipe, which an idle
   worker sees, but a worker inside the target reads nothing; so a thread of its own watches
   the parent's process id and ends the worker once it has been re-parented. The thread
   blocks every signal, so that alarms and the target's crashes are met by the main thread. */
static pid_t parent;

static void *watch_parent(void *unused) {
    (void)unused;
    for (;;) {
        if (getppid() != parent)
            _exit(0);
        usleep(100 * 1000);
    }
    return NULL;
}

static void start_watching_parent(void) {
    parent = getppid();
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pthread_t watcher;
    if (pthread_create(&watcher, NULL, watch_parent, NULL) == 0)
        pthread_detach(watcher);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

int main(int argc, char **argv) {
    if (argc != 6)
        return 2;
    start_watching_parent();
    results_fd = dup(1);
    if (results_fd < 0 || dup2(2, 1) < 0)
        return 2;
    int kind = atoi(argv[3]), mode = atoi(argv[4]);
    unsigned timeout = (unsigned)strtoul(argv[5], NULL, 10);
    if (kind < 0 || (size_t)kind >= KINDS)
        load_error(LOAD_KIND, argv[3]);
    install_handlers();
    phase = LOADING;
    void *library = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL)
        load_error(LOAD_LIBRARY, dlerror());
    dlerror();
    void *f = dlsym(library, argv[2]);
    const char *why = dlerror();
    if (f == NULL || why != NULL)
        load_error(LOAD_SYMBOL, why ? why : "the symbol is NULL");
    phase = IDLE;
    uint64_t ok = TAG_OK;
    if (write_all(results_fd, &ok, sizeof ok) != 0)
        _exit(0);
    size_t in_size = IN_SIZE[kind], out_size = OUT_SIZE[kind], capacity = 0;
    unsigned char *in = NULL, *out = NULL;
    for (;;) {
        uint64_t n;
        if (read_all(0, &n, sizeof n) != 0)
            _exit(0); /* the parent is done */
        if (n > capacity) {
            free(in);
            free(out);
            capacity = n;
            /* 16-byte slots for the wide formats; the results follow a one-word tag. */
            in = aligned_alloc(16, (n * in_size + 15) / 16 * 16);
            out = aligned_alloc(16, (16 + n * out_size + 15) / 16 * 16);
            if (in == NULL || out == NULL)
                _exit(3);
        }
        if (read_all(0, in, n * in_size) != 0)
            _exit(0);
        tmd_eval_at = 0;
        phase = EVALUATING;
        alarm(timeout);
        evaluate(kind, mode, f, in, out + 16, n);
        alarm(0);
        phase = IDLE;
        /* The tag sits in the word just before the results, so one write sends both. */
        memcpy(out + 8, &ok, sizeof ok);
        if (write_all(results_fd, out + 8, 8 + n * out_size) != 0)
            _exit(0);
    }
}

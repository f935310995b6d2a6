/* Calls a foreign function on a batch of inputs under one rounding mode.
 *
 * The mode is set with fesetround in the calling thread for the whole loop and restored after
 * it. The loop is C, compiled with -frounding-math, because Rust's code generator assumes the
 * default floating-point environment and may move or fold arithmetic across a mode change.
 *
 * Modes: 0 to nearest, 1 upward, 2 downward, 3 toward zero (tmd_crunch::Rounding's order).
 *
 * Vector functions follow the x86-64 vector function ABI (one vector argument in xmm0/ymm0/
 * zmm0, result in the same register), which both glibc's libmvec and SLEEF use. Each vector
 * loop is compiled for the instruction set its register width needs, so the caller must check
 * that the CPU has it. A batch whose length is not a multiple of the lane count has its last
 * vector padded by repeating the last input.
 */
#include <fenv.h>
#include <stddef.h>
#include <string.h>

/* Clang honours the pragma; GCC ignores it and relies on -frounding-math (build.rs). */
#if defined(__clang__)
#pragma STDC FENV_ACCESS ON
#endif

/* The index of the input being evaluated, read by the worker's signal handlers (worker.c) to
 * name the input at which a target crashed or hung. */
volatile size_t tmd_eval_at;

static int fe_mode(int mode) {
    switch (mode) {
    case 1: return FE_UPWARD;
    case 2: return FE_DOWNWARD;
    case 3: return FE_TOWARDZERO;
    default: return FE_TONEAREST;
    }
}

void tmd_eval_f32_under(int mode, float (*f)(float), const float *x, float *y, size_t n) {
    int saved = fegetround();
    fesetround(fe_mode(mode));
    for (size_t i = 0; i < n; i++) {
        tmd_eval_at = i;
        y[i] = f(x[i]);
    }
    fesetround(saved);
}

void tmd_eval_f64_under(int mode, double (*f)(double), const double *x, double *y, size_t n) {
    int saved = fegetround();
    fesetround(fe_mode(mode));
    for (size_t i = 0; i < n; i++) {
        tmd_eval_at = i;
        y[i] = f(x[i]);
    }
    fesetround(saved);
}

/* Two-argument functions (pow, atan2, hypot): out[i] = f(a[i], b[i]). */
void tmd_eval2_f32_under(int mode, float (*f)(float, float), const float *a, const float *b,
                         float *out, size_t n) {
    int saved = fegetround();
    fesetround(fe_mode(mode));
    for (size_t i = 0; i < n; i++) {
        tmd_eval_at = i;
        out[i] = f(a[i], b[i]);
    }
    fesetround(saved);
}

void tmd_eval2_f64_under(int mode, double (*f)(double, double), const double *a,
                         const double *b, double *out, size_t n) {
    int saved = fegetround();
    fesetround(fe_mode(mode));
    for (size_t i = 0; i < n; i++) {
        tmd_eval_at = i;
        out[i] = f(a[i], b[i]);
    }
    fesetround(saved);
}

/* The mode the calling thread is in (for tests that check the mode is restored). */
int tmd_current_rounding(void) {
    switch (fegetround()) {
    case FE_UPWARD: return 1;
    case FE_DOWNWARD: return 2;
    case FE_TOWARDZERO: return 3;
    default: return 0;
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

/* NAME(mode, f, x, y, n): VT is the vector type, ET its element, L the lanes. */
#define VECTOR_LOOP(NAME, ISA, VT, ET, L, LOADU, STOREU)                                      \
    __attribute__((target(ISA))) void NAME(int mode, VT (*f)(VT), const ET *x, ET *y,        \
                                           size_t n) {                                       \
        int saved = fegetround();                                                            \
        fesetround(fe_mode(mode));                                                           \
        size_t i = 0;                                                                        \
        for (; i + L <= n; i += L) {                                                         \
            tmd_eval_at = i;                                                                 \
            STOREU(y + i, f(LOADU(x + i)));                                                  \
        }                                                                                    \
        if (i < n) {                                                                         \
            tmd_eval_at = i;                                                                 \
            ET in[L], out[L];                                                                \
            size_t rest = n - i;                                                             \
            for (size_t k = 0; k < L; k++)                                                   \
                in[k] = x[i + (k < rest ? k : rest - 1)];                                    \
            STOREU(out, f(LOADU(in)));                                                       \
            memcpy(y + i, out, rest * sizeof(ET));                                           \
        }                                                                                    \
        fesetround(saved);                                                                   \
    }

VECTOR_LOOP(tmd_eval_f64x2_under, "sse2", __m128d, double, 2, _mm_loadu_pd, _mm_storeu_pd)
VECTOR_LOOP(tmd_eval_f32x4_under, "sse2", __m128, float, 4, _mm_loadu_ps, _mm_storeu_ps)
VECTOR_LOOP(tmd_eval_f64x4_under, "avx", __m256d, double, 4, _mm256_loadu_pd, _mm256_storeu_pd)
VECTOR_LOOP(tmd_eval_f32x8_under, "avx", __m256, float, 8, _mm256_loadu_ps, _mm256_storeu_ps)
VECTOR_LOOP(tmd_eval_f64x8_under, "avx512f", __m512d, double, 8, _mm512_loadu_pd,
            _mm512_storeu_pd)
VECTOR_LOOP(tmd_eval_f32x16_under, "avx512f", __m512, float, 16, _mm512_loadu_ps,
            _mm512_storeu_ps)
#endif

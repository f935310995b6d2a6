/* Calls a foreign binary80 (x87 long double) or binary128 (__float128, _Float128) function on
 * a batch of inputs under one rounding mode, as eval_under.c does for float and double.
 *
 * Rust has neither type, so numbers cross the boundary as their IEEE (or x87) encodings, one
 * 16-byte little-endian slot each: for binary80 the 64-bit significand (integer bit explicit)
 * then 16 bits of sign and exponent, the last 6 bytes zero; for binary128 the whole slot.
 * memcpy moves them in and out of the C types, so nothing is converted on the way.
 *
 * fesetround sets the x87 control word and the SSE MXCSR alike on x86, so x87 long double code
 * and the soft-float routines behind __float128 (which read MXCSR) both run in the mode.
 */
#include <fenv.h>
#include <float.h>
#include <stddef.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FENV_ACCESS ON
#endif

/* The index of the input being evaluated (eval_under.c). */
extern volatile size_t tmd_eval_at;

static int wide_fe_mode(int mode) {
    switch (mode) {
    case 1: return FE_UPWARD;
    case 2: return FE_DOWNWARD;
    case 3: return FE_TOWARDZERO;
    default: return FE_TONEAREST;
    }
}

/* LDBL_MANT_DIG of this platform: 64 where long double is the x87 format, 113 where it is
 * binary128 (AArch64 Linux), 53 where it is double. */
int tmd_long_double_digits(void) { return LDBL_MANT_DIG; }

#if LDBL_MANT_DIG == 64
void tmd_eval_f80_under(int mode, long double (*f)(long double), const unsigned char *x,
                        unsigned char *y, size_t n) {
    int saved = fegetround();
    fesetround(wide_fe_mode(mode));
    for (size_t i = 0; i < n; i++) {
        tmd_eval_at = i;
        long double a = 0, r;
        memcpy(&a, x + 16 * i, 10);
        r = f(a);
        memset(y + 16 * i, 0, 16);
        memcpy(y + 16 * i, &r, 10);
    }
    fesetround(saved);
}
#endif

#if defined(__SIZEOF_FLOAT128__)
void tmd_eval_f128_under(int mode, __float128 (*f)(__float128), const unsigned char *x,
                         unsigned char *y, size_t n) {
    int saved = fegetround();
    fesetround(wide_fe_mode(mode));
    for (size_t i = 0; i < n; i++) {
        tmd_eval_at = i;
        __float128 a, r;
        memcpy(&a, x + 16 * i, 16);
        r = f(a);
        memcpy(y + 16 * i, &r, 16);
    }
    fesetround(saved);
}
#elif LDBL_MANT_DIG == 113
/* Where long double is binary128, it is the type of the binary128 functions. */
void tmd_eval_f128_under(int mode, long double (*f)(long double), const unsigned char *x,
                         unsigned char *y, size_t n) {
    int saved = fegetround();
    fesetround(wide_fe_mode(mode));
    for (size_t i = 0; i < n; i++) {
        tmd_eval_at = i;
        long double a, r;
        memcpy(&a, x + 16 * i, 16);
        r = f(a);
        memcpy(y + 16 * i, &r, 16);
    }
    fesetround(saved);
}
#endif

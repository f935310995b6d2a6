/*
 * multi_word_base.cl: the base-format layer under multi_word.cl, the kernel twin of what
 * tmd-xfloat's generic math code (crates/tmd-xfloat/src/math/) takes from BaseFloat
 * (crates/tmd-xfloat/src/base.rs) and from eft.rs: the constant tables, scalbn, exponent,
 * rounding to an integer, the exact product, and the start value approx_ln_1p. Written once
 * over REAL; the host (tmd_kernels::source) instantiates it once per base format, before the
 * multi-word levels, with
 *   REAL, DW(name), QW(name), REAL_DIGITS, REAL_MAX_EXP, REAL_MIN_EXP  (as double_word.cl)
 *   MFB(name)   the base format's prefix: mfb_f32_name or mfb_f64_name
 * and these constants from tmd-xfloat's own tables (so the kernels use the CPU's very words):
 *   MFB(TABLE_WORDS)                          BaseFloat::TABLE_WORDS (5 or 6)
 *   MFB(CONST)[5][MFB(TABLE_WORDS)]           const_words of Ln2, Pi, Pi2, Pi4, Ln10
 *   MFB(INV_FACT)[64][MFB(TABLE_WORDS)]       const_words of InvFactorial(0..64)
 *   MFB(MAX)                                  BaseFloat::MAX
 *   MFB(LN1P_TERMS), MFB(LN1P_COEFFS)[..]     BaseFloat::LN_1P_COEFFS (approx_ln_1p)
 *   MFB(LN1P_DIRECT_LO), MFB(LN1P_DIRECT_HI)  base::LN_1P_DIRECT, rounded to REAL
 *   MFB(SQRT2)                                sqrt 2 rounded to REAL (via f64, as from_f64)
 *
 * Names (stable; the multi-word layer and the function files use them):
 *   MF_CONST_LN2 0, MF_CONST_PI 1, MF_CONST_PI2 2, MF_CONST_PI4 3, MF_CONST_LN10 4,
 *   MF_CONST_INV_FACT 8 (+ j: InvFactorial(j))          Rust's Constant
 *   REAL   MFB(const_word)(int c, int i)    const_words(c)[i] (0 beyond TABLE_WORDS)
 *   REAL   MFB(scalbn)(REAL x, i32 n)       BaseFloat::scalbn (libm's steps, DW(scalbn))
 *   i32    MFB(exponent)(REAL x)            BaseFloat::exponent
 *   REAL   MFB(round_ties_even)(REAL x)     BaseFloat::round_ties_even
 *   i32    MFB(to_i32)(REAL x)              `x.to_i64() as i32`
 *   REAL   MFB(from_i64)(i64 k)             BaseFloat::from_i64
 *   DW(t)  MFB(two_prod)(REAL a, REAL b)    eft::two_prod: (.hi, .lo) = (p, e)
 *   REAL   MFB(approx_ln_1p)(REAL x)        BaseFloat::approx_ln_1p (see below)
 */

#ifndef MF_CONST_LN2
#define MF_CONST_LN2 0
#define MF_CONST_PI 1
#define MF_CONST_PI2 2
#define MF_CONST_PI4 3
#define MF_CONST_LN10 4
#define MF_CONST_INV_FACT 8
#endif

DEVICE_FN REAL MFB(const_word)(int c, int i) {
    if (i >= MFB(TABLE_WORDS)) {
        return (REAL)0;
    }
    if (c >= MF_CONST_INV_FACT) {
        return MFB(INV_FACT)[c - MF_CONST_INV_FACT][i];
    }
    return MFB(CONST)[c][i];
}

DEVICE_FN REAL MFB(scalbn)(REAL x, i32 n) { return DW(scalbn)(x, n); }

DEVICE_FN i32 MFB(exponent)(REAL x) { return QW(exponent)(x); }

DEVICE_FN REAL MFB(round_ties_even)(REAL x) { return rint(x); }

DEVICE_FN i32 MFB(to_i32)(REAL x) { return (i32)(i64)x; }

DEVICE_FN REAL MFB(from_i64)(i64 k) { return (REAL)k; }

DEVICE_FN DW(t) MFB(two_prod)(REAL a, REAL b) { return DW(two_prod)(a, b); }

/* ln(1 + x) to about one ulp of REAL, the twin of base.rs's ln_1p_approx (read it for the
 * method): 1 + x = 2^k (1 + f) with 1 + f near [sqrt2/2, sqrt2] (f = x itself when x lies in
 * [LN1P_DIRECT_LO, LN1P_DIRECT_HI]), c the rounding error of 1 + x divided by it,
 * s = f / (2 + f), ln(1 + f) = f - (f^2/2 - s (f^2/2 + R)) with
 * R = z (2/3 + 2/5 z + ...), z = s^2; c/u + k ln2_1 is added to the smallest part
 * (s (f^2/2 + R) + tail) and k ln2_0 with one fused multiply-add. */
DEVICE_FN REAL MFB(ln_1p_core)(REAL f, REAL tail) {
    REAL s = f / ((REAL)2 + f);
    REAL z = s * s;
    REAL p = MFB(LN1P_COEFFS)[MFB(LN1P_TERMS) - 1];
    for (int j = MFB(LN1P_TERMS) - 2; j >= 0; j--) {
        p = p * z + MFB(LN1P_COEFFS)[j];
    }
    REAL r = z * p;
    REAL hfsq = (f * f) * (REAL)0.5;
    return f - (hfsq - (s * (hfsq + r) + tail));
}

DEVICE_FN REAL MFB(approx_ln_1p)(REAL x) {
    if (isnan(x)) {
        return x;
    }
    if (x <= (REAL)-1) {
        return x == (REAL)-1 ? -(REAL)INFINITY : (REAL)NAN;
    }
    if (!DW(is_finite)(x)) {
        return x;
    }
    if (x >= MFB(LN1P_DIRECT_LO) && x <= MFB(LN1P_DIRECT_HI)) {
        return MFB(ln_1p_core)(x, (REAL)0);
    }
    REAL u = (REAL)1 + x;
    i32 k = MFB(exponent)(u);
    REAL m = MFB(scalbn)(u, -k);
    if (m > MFB(SQRT2)) {
        m = MFB(scalbn)(m, -1);
        k += 1;
    }
    REAL f = m - (REAL)1;
    REAL c = x < (REAL)1 ? x - (u - (REAL)1) : (REAL)1 - (u - x);
    c = c / u;
    REAL kf = MFB(from_i64)((i64)k);
    REAL tail = c + kf * MFB(const_word)(MF_CONST_LN2, 1);
    return TMD_FMA(kf, MFB(const_word)(MF_CONST_LN2, 0), MFB(ln_1p_core)(f, tail));
}

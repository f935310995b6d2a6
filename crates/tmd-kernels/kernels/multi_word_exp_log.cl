/*
 * multi_word_exp_log.cl: exp, expm1, log and log1p for the four multi-word types, written
 * once over the generic layer multi_word.cl: the kernel twin of tmd-xfloat's
 * crates/tmd-xfloat/src/math/exp_log.rs (read it for the methods), function for function
 * (exp, expm1_reduced, expm1_small, expm1, expm1_wide, expm1_small_wide, log_newton,
 * log_special, log, log1p), with the same IEEE operations in the same order and the same loop
 * counts, so that the results are bit-identical (tested on OpenCL by
 * crates/tmd-gpu/tests/xfloat_opencl.rs and xfloat_quad_opencl.rs). The Newton start value
 * is the crate's own base-format log1p, MFB(approx_ln_1p) (base.rs, textbook_ln_1p), not
 * libm's, which a kernel could not reproduce bit for bit.
 *
 * Instantiated per level (MF, MFW, MF_WORDS, see multi_word.cl); the host defines from
 * tmd-xfloat (tmd_kernels' level_constants):
 *   MF(EXP_TERMS)       math::expm1_small_terms::<T>()
 *   MF(HALVINGS)        math::exp_halvings::<T>() (3 double words, 5 quad words)
 *   MF(EXP_OVER), MF(EXP_UNDER)    math::exp_limits::<T::Base>() (double)
 *   MF(EXPM1_MINUS_ONE) math::expm1_minus_one_below::<T>() (double)
 *   MF(LOG_STEPS)       math::log_newton_steps::<T>()
 *   MF(LN2_WORDS)       (T::WORDS + 2).min(TABLE_WORDS): words of ln 2 in the reductions
 *   MF(LN2_WORDS_WIDE)  (T::Wide::WORDS + 2).min(TABLE_WORDS)
 *   MF(LN2_WORDS_LOG)   (T::WORDS + 1).min(TABLE_WORDS): words of ln 2 in log's k ln 2
 * OpenCL has no recursion and no tuples: expm1_reduced returns k through a pointer, and
 * log_special says through its result whether it wrote one.
 * The larger functions are DEVICE_FN_NOINLINE (vendor.h): out of line under CUDA, where
 * inlining their call trees everywhere made NVRTC take minutes (the bits do not depend on it).
 */

/* expm1(r) for |r| <= 0.35: Taylor series of r 2^-m, then m doublings. */
DEVICE_FN_NOINLINE MF(t) MF(expm1_small)(MF(t) r) {
    i32 m = MF(HALVINGS);
    MF(t) t = MF(ldexp)(r, -m);
    int n = MF(EXP_TERMS);
    MF(t) acc = MF(inv_factorial)(n, 0);
    for (int j = n - 1; j >= 1; j--) {
        acc = MF(add)(MF(mul)(acc, t), MF(inv_factorial)(j, 0));
    }
    MF(t) e = MF(mul)(acc, t);
    for (int i = 0; i < m; i++) {
        e = MF(add)(MF(ldexp)(e, 1), MF(square)(e));
    }
    return e;
}

/* Cody-Waite reduction: *k and e = expm1(r) with x = k ln2 + r. */
DEVICE_FN MF(t) MF(expm1_reduced)(MF(t) x, i32 *k_out) {
    MF(t) ln2 = MF(constant)(MF_CONST_LN2);
    REAL k = MFB(round_ties_even)(MF(hi)(x) / MF(hi)(ln2));
    MF(t) r = x;
    if (k != (REAL)0) {
        r = MF(minus_multiple)(x, k, MF_CONST_LN2, MF(LN2_WORDS));
    }
    *k_out = MFB(to_i32)(k);
    return MF(expm1_small)(r);
}

/* e^x. */
DEVICE_FN_NOINLINE MF(t) MF(exp)(MF(t) x) {
    double xh = MF(hi_f64)(x);
    if (isnan(xh)) {
        return x;
    }
    if (xh > MF(EXP_OVER)) {
        return MF(from_base)((REAL)INFINITY);
    }
    if (xh < MF(EXP_UNDER)) {
        return MF(zero)();
    }
    i32 k;
    MF(t) e = MF(expm1_reduced)(x, &k);
    return MF(ldexp)(MF(add)(MF(one)(), e), k);
}

/* expm1_small for a wide argument: the series up to t^2/2 in T, the rest in the wide type. */
DEVICE_FN_NOINLINE MFW(t) MF(expm1_small_wide)(MFW(t) r) {
    i32 m = MF(HALVINGS);
    MFW(t) tw = MFW(ldexp)(r, -m);
    MF(t) t = MF(narrow)(tw);
    int n = MF(EXP_TERMS);
    MF(t) acc = MF(inv_factorial)(n, 0);
    for (int j = n - 1; j >= 2; j--) {
        acc = MF(add)(MF(mul)(acc, t), MF(inv_factorial)(j, 0));
    }
    MFW(t) e = MFW(mul)(MFW(add)(MFW(mul)(MF(widen)(acc), tw), MFW(one)()), tw);
    for (int i = 0; i < m; i++) {
        e = MFW(add)(MFW(ldexp)(e, 1), MFW(square)(e));
    }
    return e;
}

/* e^x - 1 in the wide type. */
DEVICE_FN_NOINLINE MFW(t) MF(expm1_wide)(MF(t) x) {
    double xh = MF(hi_f64)(x);
    if (isnan(xh) || xh == 0.0) {
        return MF(widen)(x);
    }
    if (xh > MF(EXP_OVER)) {
        return MFW(from_base)((REAL)INFINITY);
    }
    if (xh < MF(EXPM1_MINUS_ONE)) {
        return MFW(neg)(MFW(one)());
    }
    MF(t) ln2 = MF(constant)(MF_CONST_LN2);
    REAL kr = MFB(round_ties_even)(MF(hi)(x) / MF(hi)(ln2));
    MFW(t) xw = MF(widen)(x);
    MFW(t) r = xw;
    if (kr != (REAL)0) {
        r = MFW(minus_multiple)(xw, kr, MF_CONST_LN2, MF(LN2_WORDS_WIDE));
    }
    i32 k = MFB(to_i32)(kr);
    MFW(t) e = MF(expm1_small_wide)(r);
    if (k == 0) {
        return e;
    } else if (k < REAL_MAX_EXP - 1) {
        /* 2^k - 1 is exact as a sum of two base floats; 2^k e is exact. */
        return MFW(add)(MFW(ldexp)(e, k), MFW(from_two)(MFB(scalbn)((REAL)1, k), (REAL)-1));
    } else {
        return MFW(sub)(MFW(ldexp)(MFW(add)(MFW(one)(), e), k), MFW(one)());
    }
}

/* e^x - 1, rounded once from the wide type. */
DEVICE_FN_NOINLINE MF(t) MF(expm1)(MF(t) x) { return MF(narrow)(MF(expm1_wide)(x)); }

/* Newton iterations for log(m) given f = m - 1 (exact) and m, |f| <= 0.42. */
DEVICE_FN_NOINLINE MF(t) MF(log_newton)(MF(t) f, MF(t) m) {
    MF(t) y = MF(from_base)(MFB(approx_ln_1p)(MF(hi)(f)));
    for (int i = 0; i < MF(LOG_STEPS); i++) {
        /* m e^-y - 1 = m expm1(-y) + (m - 1) */
        MF(t) correction = MF(add)(MF(mul)(m, MF(expm1)(MF(neg)(y))), f);
        y = MF(add)(y, correction);
    }
    return y;
}

/* Special values of log: 1 and *out set, 0 for finite positive arguments. */
DEVICE_FN int MF(log_special)(MF(t) x, MF(t) *out) {
    REAL h = MF(hi)(x);
    if (isnan(h) || h < (REAL)0) {
        *out = MF(from_base)((REAL)NAN);
        return 1;
    } else if (h == (REAL)0) {
        *out = MF(from_base)(-(REAL)INFINITY);
        return 1;
    } else if (!DW(is_finite)(h)) {
        *out = x;
        return 1;
    }
    return 0;
}

/* Natural logarithm; log(0) = -inf, log(x < 0) = NaN. */
DEVICE_FN_NOINLINE MF(t) MF(log)(MF(t) x) {
    MF(t) s;
    if (MF(log_special)(x, &s)) {
        return s;
    }
    i32 k = MFB(exponent)(MF(hi)(x));
    MF(t) m = MF(ldexp)(x, -k);
    if (MF(hi_f64)(m) > 0x1.6a09e667f3bcdp+0) { /* f64 SQRT_2 */
        m = MF(ldexp)(m, -1);
        k += 1;
    }
    MF(t) y = MF(log_newton)(MF(sub)(m, MF(one)()), m);
    if (k == 0) {
        return y;
    }
    return MF(add)(y, MF(times_constant)(MFB(from_i64)((i64)k), MF_CONST_LN2, MF(LN2_WORDS_LOG)));
}

/* log(1 + x), accurate also for tiny |x|. */
DEVICE_FN_NOINLINE MF(t) MF(log1p)(MF(t) x) {
    double h = MF(hi_f64)(x);
    if (isnan(h) || h == 0.0) {
        return x;
    }
    MF(t) m = MF(add)(MF(one)(), x);
    if (h >= -0.29 && h <= 0.41) {
        return MF(log_newton)(x, m);
    }
    MF(t) s;
    if (MF(log_special)(m, &s)) {
        return s;
    }
    /* 1 + x was rounded to m; log(1 + x) = log(m) + log(1 + d/m) with the tiny exact rounding
     * error d = x - (m - 1). */
    MF(t) d = MF(sub)(x, MF(sub)(m, MF(one)()));
    return MF(add)(MF(log)(m), MF(div)(d, m));
}

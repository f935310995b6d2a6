/*
 * multi_word_hyperbolic.cl: sinh, cosh and tanh for the four multi-word types, written once
 * over the generic layer multi_word.cl and multi_word_exp_log.cl: the kernel twin of
 * tmd-xfloat's crates/tmd-xfloat/src/math/hyperbolic.rs (read it for the methods), function
 * for function (half_exp_large, square_half_at_the_top, with_sign_of, sinh, cosh, tanh), with
 * the same IEEE operations in the same order, so the results are bit-identical (tested on
 * OpenCL by crates/tmd-gpu/tests/xfloat_opencl.rs and xfloat_quad_opencl.rs).
 *
 * The host defines per level (tmd_kernels' level_constants), from tmd-xfloat:
 *   MF(HALF_OVERFLOW)   math::half_overflow::<T::Base>() (double)
 *   MF(TANH_ONE)        math::tanh_one_above::<T>() (double)
 *   MFB(MAX)            BaseFloat::MAX (multi_word_base.cl)
 * Rust's square_half_at_the_top is generic over the quad word W = T::Wide; here it takes and
 * returns MFW(t) at the level of T, so that the double-word levels need no quad-level
 * function files.
 * The larger functions are DEVICE_FN_NOINLINE (vendor.h): out of line under CUDA, where
 * inlining their call trees everywhere made NVRTC take minutes (the bits do not depend on it).
 */

/* h^2 / 2 (in the wide type) when the product overflowed: see hyperbolic.rs. */
DEVICE_FN_NOINLINE MFW(t) MF(square_half_at_the_top)(MFW(t) h) {
    MFW(t) q = MFW(ldexp)(h, -2);
    REAL max_8 = MFB(scalbn)(MFB(MAX), -3);
    MFW(t) d = MFW(sub)(MFW(mul)(q, q), MFW(from_base)(max_8));
    /* Compared as multi-word numbers. */
    if (MFW(ge)(d, MFW(from_base)(MFB(scalbn)((REAL)1, REAL_MAX_EXP - REAL_DIGITS - 4)))) {
        return MFW(from_base)((REAL)INFINITY);
    }
    if (MFW(gt)(d, MFW(zero)())) {
        return MFW(from_expansion)(MFB(MAX), MFB(scalbn)(MFW(word)(d, 0), 3),
                                   MFB(scalbn)(MFW(word)(d, 1), 3),
                                   MFB(scalbn)(MFW(word)(d, 2), 3));
    }
    return MFW(ldexp)(MFW(add)(MFW(from_base)(max_8), d), 3);
}

/* e^a / 2 for large a, without intermediate overflow: h^2 / 2 with h = e^(a/2). */
DEVICE_FN_NOINLINE MF(t) MF(half_exp_large)(MF(t) a) {
    MFW(t) h = MFW(add)(MFW(one)(), MF(expm1_wide)(MF(ldexp)(a, -1)));
    MFW(t) r = MFW(mul)(h, MFW(ldexp)(h, -1));
    if (MFW(is_finite)(r)) {
        return MF(narrow)(r);
    }
    return MF(narrow)(MF(square_half_at_the_top)(h));
}

DEVICE_FN MF(t) MF(with_sign_of)(MF(t) r, MF(t) x) {
    return MF(is_sign_negative)(x) ? MF(neg)(r) : r;
}

/* sinh x = (E + E/(E+1)) / 2 with E = expm1(|x|), in the wide type, rounded once. */
DEVICE_FN_NOINLINE MF(t) MF(sinh)(MF(t) x) {
    if (MF(is_nan)(x) || MF(is_zero)(x) || MF(is_infinite)(x)) {
        return x;
    }
    MF(t) a = MF(abs)(x);
    MF(t) r;
    if (MF(hi_f64)(a) > MF(HALF_OVERFLOW)) {
        r = MF(half_exp_large)(a);
    } else {
        MFW(t) e = MF(expm1_wide)(a);
        r = MF(narrow)(MFW(ldexp)(MFW(add)(e, MFW(div)(e, MFW(add)(e, MFW(one)()))), -1));
    }
    return MF(with_sign_of)(r, x);
}

/* cosh x = (e^|x| + e^-|x|) / 2. */
DEVICE_FN_NOINLINE MF(t) MF(cosh)(MF(t) x) {
    if (MF(is_nan)(x)) {
        return x;
    }
    MF(t) a = MF(abs)(x);
    if (MF(is_infinite)(a)) {
        return a;
    }
    if (MF(hi_f64)(a) > MF(HALF_OVERFLOW)) {
        return MF(half_exp_large)(a);
    }
    MF(t) e = MF(exp)(a);
    return MF(ldexp)(MF(add)(e, MF(recip)(e)), -1);
}

/* tanh x = E / (E + 2) with E = expm1(2|x|), in the wide type, rounded once; +-1 beyond
 * MF(TANH_ONE). */
DEVICE_FN_NOINLINE MF(t) MF(tanh)(MF(t) x) {
    if (MF(is_nan)(x) || MF(is_zero)(x)) {
        return x;
    }
    MF(t) a = MF(abs)(x);
    MF(t) r;
    if (MF(hi_f64)(a) > MF(TANH_ONE)) {
        r = MF(one)();
    } else {
        MFW(t) e = MF(expm1_wide)(MF(ldexp)(a, 1));
        r = MF(narrow)(MFW(div)(e, MFW(add)(e, MFW(from_base)((REAL)2))));
    }
    return MF(with_sign_of)(r, x);
}

/*
 * multi_word_trig.cl: sin, cos, tan and atan of the four multi-word types, the kernel twin of
 * crates/tmd-xfloat/src/math/trig.rs (read it for the methods and bounds): Payne-Hanek
 * reduction by pi/2 in 64-bit fixed point (reduce_half_pi_scaled, fraction_to_multi; the
 * integer half is multi_word_trig_base.cl), Taylor series on [-pi/4, pi/4] (sincos_reduced,
 * and sincos_reduced_wide in T::Wide for tan, including tan's scaled path near its poles),
 * and atan by Newton steps on sincos (atan_unit) from the base format's textbook_atan. Written
 * once against the generic layer multi_word.cl (MF, MFW, MFB; the Rust is written once over
 * MultiFloat), with the same IEEE operations in the same order and the same term counts as
 * the Rust, so the bits are the CPU's (checked by crates/tmd-gpu/tests/xfloat_opencl.rs and
 * xfloat_quad_opencl.rs).
 *
 * Instantiated per level after multi_word.cl (the quad level of a base format first, so that
 * the double level's tan finds MFW(reduce_half_pi_scaled)), with the host's constant
 *   MF(SINCOS_TERMS)   math::trig::sincos_terms::<T>(): the n of sincos_reduced
 * The large functions are DEVICE_FN_NOINLINE (vendor.h): NVRTC took many minutes with
 * everything inlined; the IEEE operations are the same either way.
 * Provided: MF(reduce_half_pi_scaled), MF(reduce_half_pi), MF(sincos_reduced), MF(sincos),
 * MF(sin), MF(cos), MF(sincos_reduced_wide), MF(tan), MF(atan_unit), MF(atan).
 */

/* trig.rs fraction_to_multi: the fraction f 2^k (limbs big-endian, magnitude <= 1/2) in T,
 * via exact 16-bit chunks, least significant first. */
DEVICE_FN_NOINLINE MF(t) MF(fraction_to_multi)(const u64 *limbs, int count, i32 k) {
    MF(t) sum = MF(zero)();
    for (int i = count - 1; i >= 0; i--) {
        u64 limb = limbs[i];
        for (int c = 0; c < 4; c++) {
            u64 chunk = (limb >> (16 * c)) & 0xffff;
            if (chunk != 0) {
                i32 e = 16 * c - 64 * (i + 1) + k;
                sum = MF(add_base)(sum, MFB(scalbn)(MFB(from_i64)((i64)chunk), e));
            }
        }
    }
    return sum;
}

/* trig.rs reduce_half_pi_scaled: r 2^k with r = x - q pi/2, |r| <= pi/4; *q = q mod 4; *k = 0
 * unless |r| is below 2^(REAL_MIN_EXP + MF_WORDS REAL_DIGITS). */
DEVICE_FN_NOINLINE MF(t) MF(reduce_half_pi_scaled)(MF(t) x, i32 *q, i32 *k) {
    REAL pi_4 = MFB(const_word)(MF_CONST_PI4, 0);
    if (MF(is_nan)(x) || fabs(MF(hi)(x)) <= pi_4) {
        *q = 0;
        *k = 0;
        return x;
    }
    const int limbs = MF_WORDS == 2 ? 5 : 10;
    u64 acc[TMD_MAX_FRACTION_LIMBS + 1];
    for (int i = 0; i <= limbs; i++) {
        acc[i] = 0;
    }
    for (int i = 0; i < MF_WORDS; i++) {
        int negative;
        u64 m;
        i32 e;
        MFB(decompose)(MF(word)(x, i), &negative, &m, &e);
        if (m != 0) {
            tmd_accumulate_word(acc, limbs, negative, m, e);
        }
    }
    u64 quadrant = acc[0];
    u64 fraction[TMD_MAX_FRACTION_LIMBS];
    for (int i = 0; i < limbs; i++) {
        fraction[i] = acc[i + 1];
    }
    int negative = (int)(fraction[0] >> 63);
    if (negative) {
        /* Round to the nearest integer: fraction - 1, magnitude 2^(64 limbs) - fraction. */
        quadrant += 1;
        u64 borrow = 1;
        for (int i = limbs - 1; i >= 0; i--) {
            u64 inverted = ~fraction[i];
            u64 v = inverted + borrow;
            borrow = (u64)(v < inverted);
            fraction[i] = v;
        }
    }
    /* Leading zero bits of the fraction: |f| < 2^-zeros, |r| < 2^(1 - zeros). */
    i32 zeros = 64 * limbs;
    for (int i = 0; i < limbs; i++) {
        if (fraction[i] != 0) {
            zeros = 64 * i + (i32)TMD_CLZ64(fraction[i]);
            break;
        }
    }
    i32 scale = 1 - zeros < REAL_MIN_EXP + MF_WORDS * REAL_DIGITS ? zeros : 0;
    MF(t) f = MF(fraction_to_multi)(fraction, limbs, scale);
    MF(t) r = MF(mul)(f, MF(constant)(MF_CONST_PI2));
    *q = (i32)(quadrant & 3);
    *k = scale;
    return negative ? MF(neg)(r) : r;
}

/* trig.rs reduce_half_pi: (r, q mod 4). */
DEVICE_FN MF(t) MF(reduce_half_pi)(MF(t) x, i32 *q) {
    i32 k;
    MF(t) r = MF(reduce_half_pi_scaled)(x, q, &k);
    return k == 0 ? r : MF(ldexp)(r, -k);
}

/* trig.rs sincos_reduced: (sin r, cos r) for |r| <= pi/4 (1 + 2^-20), Taylor series in Horner
 * form in r^2 up to the orders 2n + 1 and 2n, n = MF(SINCOS_TERMS). */
DEVICE_FN_NOINLINE void MF(sincos_reduced)(MF(t) r, MF(t) *sin_r, MF(t) *cos_r) {
    MF(t) z = MF(square)(r);
    const int n = MF(SINCOS_TERMS);
    MF(t) s = MF(inv_factorial)(2 * n + 1, n % 2 == 1);
    MF(t) c = MF(inv_factorial)(2 * n, n % 2 == 1);
    for (int k = n - 1; k >= 0; k--) {
        s = MF(add)(MF(mul)(s, z), MF(inv_factorial)(2 * k + 1, k % 2 == 1));
        c = MF(add)(MF(mul)(c, z), MF(inv_factorial)(2 * k, k % 2 == 1));
    }
    *sin_r = MF(mul)(r, s);
    *cos_r = c;
}

/* trig.rs sincos: NaN for NaN and infinities, (x, 1) for zeros, else reduction, series and
 * the quadrant's signs and swap. */
DEVICE_FN_NOINLINE void MF(sincos)(MF(t) x, MF(t) *sin_x, MF(t) *cos_x) {
    if (!MF(is_finite)(x)) {
        *sin_x = MF(from_base)((REAL)NAN);
        *cos_x = *sin_x;
        return;
    }
    if (MF(is_zero)(x)) {
        *sin_x = x;
        *cos_x = MF(one)();
        return;
    }
    i32 q;
    MF(t) r = MF(reduce_half_pi)(x, &q);
    MF(t) s;
    MF(t) c;
    MF(sincos_reduced)(r, &s, &c);
    switch (q) {
    case 0: *sin_x = s; *cos_x = c; break;
    case 1: *sin_x = c; *cos_x = MF(neg)(s); break;
    case 2: *sin_x = MF(neg)(s); *cos_x = MF(neg)(c); break;
    default: *sin_x = MF(neg)(c); *cos_x = s; break;
    }
}

DEVICE_FN MF(t) MF(sin)(MF(t) x) {
    MF(t) s;
    MF(t) c;
    MF(sincos)(x, &s, &c);
    return s;
}

DEVICE_FN MF(t) MF(cos)(MF(t) x) {
    MF(t) s;
    MF(t) c;
    MF(sincos)(x, &s, &c);
    return c;
}

/* trig.rs sincos_reduced_wide: (sin r, cos r) in T::Wide for a wide |r| <= pi/4 (1 + 2^-20);
 * the tail of the series beyond r^3/6 and r^4/24 in T, the leading terms in T::Wide. */
DEVICE_FN_NOINLINE void MF(sincos_reduced_wide)(MFW(t) r, MFW(t) *sin_r, MFW(t) *cos_r) {
    MFW(t) zw = MFW(square)(r);
    MF(t) z = MF(narrow)(zw);
    const int n = MF(SINCOS_TERMS);
    MF(t) s = MF(inv_factorial)(2 * n + 1, n % 2 == 1);
    MF(t) c = MF(inv_factorial)(2 * n, n % 2 == 1);
    for (int k = n - 1; k >= 2; k--) {
        s = MF(add)(MF(mul)(s, z), MF(inv_factorial)(2 * k + 1, k % 2 == 1));
        c = MF(add)(MF(mul)(c, z), MF(inv_factorial)(2 * k, k % 2 == 1));
    }
    /* s = -1/6 + z/120 - ..., c = 1/24 - z/720 + ... */
    s = MF(add)(MF(mul)(s, z), MF(inv_factorial)(3, 1));
    *sin_r = MFW(add)(r, MFW(mul)(MFW(mul)(r, zw), MF(widen)(s)));
    MFW(t) one_half = MFW(from_base)(MFB(scalbn)((REAL)1, -1));
    *cos_r = MFW(add)(MFW(one)(), MFW(mul)(zw, MFW(sub)(MFW(mul)(zw, MF(widen)(c)), one_half)));
}

/* trig.rs tan: reduction, series and division in T::Wide, rounded once to T; near a pole with
 * a scaled reduced argument, -1/tan r = -(1/r)(1 - r^2/3). */
DEVICE_FN_NOINLINE MF(t) MF(tan)(MF(t) x) {
    if (!MF(is_finite)(x)) {
        return MF(from_base)((REAL)NAN);
    }
    if (MF(is_zero)(x)) {
        return x;
    }
    i32 q;
    i32 k;
    MFW(t) r_scaled = MFW(reduce_half_pi_scaled)(MF(widen)(x), &q, &k);
    if (k != 0 && q % 2 == 1) {
        MFW(t) inv = MFW(div)(MFW(one)(), r_scaled);
        MFW(t) r2 = MFW(ldexp)(MFW(square)(r_scaled), -2 * k);
        MFW(t) third = MFW(div)(MFW(one)(), MFW(from_base)(MFB(from_i64)(3)));
        MFW(t) v = MFW(sub)(inv, MFW(mul)(MFW(mul)(inv, r2), third));
        return MF(narrow)(MFW(neg)(MFW(ldexp)(v, k)));
    }
    MFW(t) r = k == 0 ? r_scaled : MFW(ldexp)(r_scaled, -k);
    MFW(t) s;
    MFW(t) c;
    MF(sincos_reduced_wide)(r, &s, &c);
    if (q % 2 == 0) {
        return MF(narrow)(MFW(div)(s, c));
    }
    return MF(narrow)(MFW(neg)(MFW(div)(c, s)));
}

/* trig.rs atan_unit: atan x for |x| <= 1, Newton steps z += cos z (x cos z - sin z) from
 * approx_atan (one step for double words, two for quad words). */
DEVICE_FN_NOINLINE MF(t) MF(atan_unit)(MF(t) x) {
    MF(t) z = MF(from_base)(MFB(approx_atan)(MF(hi)(x)));
    const int steps = MF_WORDS == 2 ? 1 : 2;
    for (int i = 0; i < steps; i++) {
        MF(t) s;
        MF(t) c;
        MF(sincos_reduced)(z, &s, &c);
        z = MF(add)(z, MF(mul)(c, MF(sub)(MF(mul)(x, c), s)));
    }
    return z;
}

/* trig.rs atan: NaN and zeros unchanged, +-pi/2 for infinities, pi/2 - atan(1/x) above 1. */
DEVICE_FN MF(t) MF(atan)(MF(t) x) {
    if (MF(is_nan)(x) || MF(is_zero)(x)) {
        return x;
    }
    MF(t) half_pi = MF(constant)(MF_CONST_PI2);
    MF(t) signed_half_pi = MF(is_sign_negative)(x) ? MF(neg)(half_pi) : half_pi;
    if (MF(is_infinite)(x)) {
        return signed_half_pi;
    }
    if (fabs(MF(hi)(x)) > (REAL)1) {
        return MF(sub)(signed_half_pi, MF(atan_unit)(MF(recip)(x)));
    }
    return MF(atan_unit)(x);
}

/*
 * double_word.cl: double-word arithmetic (df64 = 2 x float, dd = 2 x double), the kernel twin
 * of crates/tmd-xfloat/src/double_word.rs and eft.rs. Every function performs the same IEEE
 * operations in the same order as the Rust code, so results are bit-identical (tested on
 * OpenCL by crates/tmd-gpu/tests/xfloat_opencl.rs).
 *
 * Written once over REAL; the host instantiates it for float and double (tmd_kernels::source)
 * with these macros defined:
 *   REAL            float or double
 *   DW(name)        the instance's prefix: df64_name or dd_name
 *   REAL_DIGITS     24 or 53            (significand bits p)
 *   REAL_MAX_EXP    128 or 1024         (Rust's MAX_EXP)
 *   REAL_MIN_EXP    -126 or -1022       (Rust's MIN_EXP)
 *
 * Algorithms and bounds (see the Rust documentation for the proofs' sources): JMP17 = Joldes,
 * Muller & Popescu, ACM TOMS 44(2), 2017; AccurateDWPlusDW (Alg. 6) 3u^2, DWTimesDW3 (Alg. 12)
 * 4u^2, DWDivDW3 (Alg. 17) 9.8u^2 for the reciprocal, a three-term long division with exact
 * residuals for the quotient (docs/error-analysis.md section 8); SQRTDWtoDW of Lefevre et al.,
 * ACM TOMS 49(1), 2023, 25/8 u^2.
 * OpenCL forbids recursion, so the Rust code's one-level recursions after a rescaling are
 * written as a rescaling followed by the core.
 */

typedef struct {
    REAL hi;
    REAL lo;
} DW(t);

DEVICE_FN DW(t) DW(make)(REAL hi, REAL lo) {
    DW(t) r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

DEVICE_FN int DW(is_finite)(REAL x) { return fabs(x) < INFINITY; }

/* Fast2Sum (Dekker): s + e = a + b exactly when |a| >= |b| or a = 0. */
DEVICE_FN DW(t) DW(fast_two_sum)(REAL a, REAL b) {
    REAL s = a + b;
    REAL z = s - a;
    return DW(make)(s, b - z);
}

/* 2Sum (Knuth, Moller): s + e = a + b exactly, any order. */
DEVICE_FN DW(t) DW(two_sum)(REAL a, REAL b) {
    REAL s = a + b;
    REAL a_rounded = s - b;
    REAL b_rounded = s - a_rounded;
    REAL a_err = a - a_rounded;
    REAL b_err = b - b_rounded;
    return DW(make)(s, a_err + b_err);
}

/* 2ProdFMA: p + e = a * b exactly (barring underflow). */
DEVICE_FN DW(t) DW(two_prod)(REAL a, REAL b) {
    REAL p = a * b;
    return DW(make)(p, TMD_FMA(a, b, -p));
}

/* The fast-path result when finite and nonzero, else the IEEE-like result of the same
 * operation on the leading words (`naive`), or an infinity when only the fast path overflowed. */
DEVICE_FN DW(t) DW(settle)(REAL hi, REAL lo, REAL naive) {
    if (DW(is_finite)(hi) && hi != (REAL)0) {
        return DW(make)(hi, lo);
    } else if (hi == (REAL)0 || !DW(is_finite)(naive) || naive == (REAL)0) {
        return DW(make)(naive, (REAL)0);
    } else {
        return DW(make)(copysign((REAL)INFINITY, naive), (REAL)0);
    }
}

/* AccurateDWPlusDW, JMP17 Algorithm 6. */
DEVICE_FN DW(t) DW(add)(DW(t) x, DW(t) y) {
    DW(t) s = DW(two_sum)(x.hi, y.hi);
    DW(t) t = DW(two_sum)(x.lo, y.lo);
    REAL c = s.lo + t.hi;
    DW(t) v = DW(fast_two_sum)(s.hi, c);
    REAL w = t.lo + v.lo;
    DW(t) z = DW(fast_two_sum)(v.hi, w);
    return DW(settle)(z.hi, z.lo, s.hi);
}

DEVICE_FN DW(t) DW(neg)(DW(t) x) { return DW(make)(-x.hi, -x.lo); }

DEVICE_FN DW(t) DW(sub)(DW(t) x, DW(t) y) { return DW(add)(x, DW(neg)(y)); }

/* DWPlusFP, JMP17 Algorithm 4. */
DEVICE_FN DW(t) DW(add_fp)(DW(t) x, REAL y) {
    DW(t) s = DW(two_sum)(x.hi, y);
    REAL v = x.lo + s.lo;
    DW(t) z = DW(fast_two_sum)(s.hi, v);
    return DW(settle)(z.hi, z.lo, s.hi);
}

/* DWTimesDW3, JMP17 Algorithm 12. */
DEVICE_FN DW(t) DW(mul)(DW(t) x, DW(t) y) {
    DW(t) c = DW(two_prod)(x.hi, y.hi);
    REAL tl0 = x.lo * y.lo;
    REAL tl1 = TMD_FMA(x.hi, y.lo, tl0);
    REAL cl2 = TMD_FMA(x.lo, y.hi, tl1);
    REAL cl3 = c.lo + cl2;
    DW(t) z = DW(fast_two_sum)(c.hi, cl3);
    return DW(settle)(z.hi, z.lo, c.hi);
}

/* DWTimesFP3, JMP17 Algorithm 9. */
DEVICE_FN DW(t) DW(mul_fp)(DW(t) x, REAL y) {
    DW(t) c = DW(two_prod)(x.hi, y);
    REAL cl3 = TMD_FMA(x.lo, y, c.lo);
    DW(t) z = DW(fast_two_sum)(c.hi, cl3);
    return DW(settle)(z.hi, z.lo, c.hi);
}

/* 2^n for REAL_MIN_EXP <= n < REAL_MAX_EXP, from its bits. */
DEVICE_FN REAL DW(pow2)(i32 n) {
#if REAL_DIGITS == 24
    return TMD_BITS_FLOAT((u32)(n + REAL_MAX_EXP - 1) << (REAL_DIGITS - 1));
#else
    return TMD_BITS_DOUBLE((u64)(n + REAL_MAX_EXP - 1) << (REAL_DIGITS - 1));
#endif
}

/* x 2^n as Rust's BaseFloat::scalbn computes it (libm 0.2's generic scalbn), multiplication
 * for multiplication: prescalings by 2^(emax) or 2^(emin + p) while n is out of the normal
 * range, then one multiplication by 2^n. Not the built-in ldexp: PoCL's float ldexp was seen
 * to round a subnormal result incorrectly (a tie broken against a sticky bit), and libm's
 * prescaling may itself round twice; repeating libm's steps gives its bits on every device. */
DEVICE_FN REAL DW(scalbn)(REAL x, i32 n) {
    if (n > REAL_MAX_EXP - 1) {
        x = x * DW(pow2)(REAL_MAX_EXP - 1);
        n -= REAL_MAX_EXP - 1;
        if (n > REAL_MAX_EXP - 1) {
            x = x * DW(pow2)(REAL_MAX_EXP - 1);
            n -= REAL_MAX_EXP - 1;
            if (n > REAL_MAX_EXP - 1) {
                n = REAL_MAX_EXP - 1;
            }
        }
    } else if (n < REAL_MIN_EXP) {
        /* 2^emin 2^p, an exact product of two powers of two. */
        REAL mul = DW(pow2)(REAL_MIN_EXP + REAL_DIGITS);
        i32 add = -REAL_MIN_EXP - REAL_DIGITS;
        x = x * mul;
        n += add;
        if (n < REAL_MIN_EXP) {
            x = x * mul;
            n += add;
            if (n < REAL_MIN_EXP) {
                n = REAL_MIN_EXP;
            }
        }
    }
    return x * DW(pow2)(n);
}

/* x * 2^n word by word, renormalised (exact unless a word leaves the exponent range). */
DEVICE_FN DW(t) DW(ldexp_words)(DW(t) x, i32 n) {
    REAL hi = DW(scalbn)(x.hi, n);
    if (!DW(is_finite)(hi) || hi == (REAL)0) {
        return DW(make)(hi, (REAL)0);
    }
    REAL lo = DW(scalbn)(x.lo, n);
    return DW(fast_two_sum)(hi, lo);
}

/* Lines 1-6 of JMP17 Algorithm 17: m ~ 1/y. */
DEVICE_FN DW(t) DW(recip_core)(DW(t) y) {
    REAL th = (REAL)1 / y.hi;
    REAL rh = TMD_FMA(-y.hi, th, (REAL)1);
    REAL rl = -(y.lo * th);
    DW(t) e = DW(fast_two_sum)(rh, rl);
    DW(t) delta = DW(mul_fp)(e, th);
    return DW(add_fp)(delta, th);
}

/* Whether 1/y would leave the normal range; then *scale = -ilogb(y), so y 2^scale is in [1, 2). */
DEVICE_FN int DW(division_scale)(REAL y, i32 *scale) {
    if (!DW(is_finite)(y) || y == (REAL)0) {
        return 0;
    }
    i32 e = ilogb(y);
    if (e >= REAL_MAX_EXP - 2 || e <= REAL_MIN_EXP + 2 * REAL_DIGITS) {
        *scale = -e;
        return 1;
    }
    return 0;
}

/* Long division with two correction terms (DoubleWord::div_dw; docs/error-analysis.md section
 * 8): q0 = x.hi / y.hi, an exact first residual by the FMA remainder and 2Prod, q1 and q2 the
 * residuals times 1 / y.hi, q0 + q1 + q2 rounded once. A divisor near the ends of the exponent range brings both
 * operands to [1, 2), each by its own power of two, and the quotient is scaled back. */
DEVICE_FN DW(t) DW(div)(DW(t) x, DW(t) y) {
    i32 s;
    i32 t = 0;
    int scaled = DW(division_scale)(y.hi, &s);
    if (scaled) {
        if (DW(is_finite)(x.hi) && x.hi != (REAL)0) {
            t = -ilogb(x.hi);
        }
        x = DW(ldexp_words)(x, t);
        y = DW(ldexp_words)(y, s);
    }
    REAL q0 = x.hi / y.hi;
    REAL inv = (REAL)1 / y.hi;
    REAL e0 = TMD_FMA(-q0, y.hi, x.hi);
    DW(t) g = DW(two_prod)(q0, y.lo);
    DW(t) a = DW(two_sum)(e0, x.lo);
    DW(t) b = DW(two_sum)(a.hi, -g.hi);
    REAL r_l = (a.lo + b.lo) - g.lo;
    REAL q1 = b.hi * inv;
    REAL e1 = TMD_FMA(-q1, y.hi, b.hi);
    REAL residual = TMD_FMA(-q1, y.lo, e1 + r_l);
    REAL q2 = residual * inv;
    DW(t) st = DW(fast_two_sum)(q0, q1);
    DW(t) z = DW(fast_two_sum)(st.hi, st.lo + q2);
    DW(t) q = DW(settle)(z.hi, z.lo, q0);
    return scaled ? DW(ldexp_words)(q, s - t) : q;
}

/* 1/y by lines 1-6 of DWDivDW3. */
DEVICE_FN DW(t) DW(recip)(DW(t) y) {
    i32 s;
    int scaled = DW(division_scale)(y.hi, &s);
    if (scaled) {
        y = DW(ldexp_words)(y, s);
    }
    DW(t) m = DW(recip_core)(y);
    DW(t) r = DW(settle)(m.hi, m.lo, (REAL)1 / y.hi);
    return scaled ? DW(ldexp_words)(r, s) : r;
}

/* SQRTDWtoDW, Lefevre, Louvet, Muller, Picot & Rideau 2023, Algorithm 8. */
DEVICE_FN DW(t) DW(sqrt)(DW(t) x) {
    if (isnan(x.hi) || x.hi <= (REAL)0 || !DW(is_finite)(x.hi)) {
        REAL r = (isnan(x.hi) || x.hi < (REAL)0) ? (REAL)NAN : x.hi;
        return DW(make)(r, (REAL)0);
    }
    i32 e = ilogb(x.hi);
    i32 half_exp = 0;
    if (e <= REAL_MIN_EXP + 2 * REAL_DIGITS || e >= REAL_MAX_EXP - 2) {
        half_exp = -(e / 2);
        x = DW(ldexp_words)(x, 2 * half_exp);
    }
    REAL sh = sqrt(x.hi);
    REAL rho1 = TMD_FMA(-sh, sh, x.hi);
    REAL rho2 = x.lo + rho1;
    REAL sl = rho2 / ((REAL)2 * sh);
    DW(t) z = DW(fast_two_sum)(sh, sl);
    return half_exp != 0 ? DW(ldexp_words)(z, -half_exp) : z;
}

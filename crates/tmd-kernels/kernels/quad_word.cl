/*
 * quad_word.cl: quad-word arithmetic (qf128 = 4 x float, qd = 4 x double), the kernel twin of
 * crates/tmd-xfloat/src/quad_word.rs. Every function performs the same IEEE operations in the
 * same order as the Rust code, so results are bit-identical (tested on OpenCL by
 * crates/tmd-gpu/tests/xfloat_quad_opencl.rs). It is also the "wide" type of the double words
 * (Rust's MultiFloat::Wide of DoubleWord<F> is QuadWord<F>): QW(from_dw) and QW(to_dw) are
 * Rust's widen and narrow.
 *
 * Written once over REAL and instantiated by the host (tmd_kernels::source) after
 * double_word.cl, whose error-free transformations (DW(two_sum), DW(fast_two_sum),
 * DW(two_prod), eft.rs in Rust) and DW(t) it uses, with these macros defined:
 *   REAL            float or double
 *   QW(name)        the instance's prefix: qf128_name or qd_name
 *   DW(name)        the double words over the same REAL: df64_name or dd_name
 *   REAL_DIGITS     24 or 53            (significand bits p)
 *   REAL_MAX_EXP    128 or 1024         (Rust's MAX_EXP)
 *   REAL_MIN_EXP    -126 or -1022       (Rust's MIN_EXP)
 *
 * Algorithms (see the Rust documentation for the error bounds): Hida, Li & Bailey,
 * "Quad-double arithmetic: algorithms, implementation, and application", LBNL-46996, 2000
 * ("HLB00") for the product by orders, the long division and the square root (Newton on
 * 1/sqrt(a), then Karp & Markstein's correction, ACM TOMS 23(4), 1997); the addition merges
 * by magnitude and renormalises as in Joldes, Marty, Muller & Popescu, IEEE TC 65(4), 2016
 * (Alg. 4 and 6, "JMMP16"). OpenCL forbids recursion and generics: Rust's const-generic
 * renormalize and cascade take a word count here, over private arrays.
 */

typedef struct {
    REAL w[4];
} QW(t);

DEVICE_FN QW(t) QW(make)(REAL w0, REAL w1, REAL w2, REAL w3) {
    QW(t) r;
    r.w[0] = w0;
    r.w[1] = w1;
    r.w[2] = w2;
    r.w[3] = w3;
    return r;
}

/* The exact value of one base float. */
DEVICE_FN QW(t) QW(from_base)(REAL x) { return QW(make)(x, (REAL)0, (REAL)0, (REAL)0); }

DEVICE_FN QW(t) QW(one)(void) { return QW(from_base)((REAL)1); }

/* Rust's BaseFloat::exponent: floor(log2|x|) for finite nonzero x (subnormals too), else 0. */
DEVICE_FN i32 QW(exponent)(REAL x) {
    if (!DW(is_finite)(x) || x == (REAL)0) {
        return 0;
    }
    return ilogb(x);
}

/* Scaling by powers of two: double_word.cl's DW(scalbn) (libm's steps, not the built-in
 * ldexp). */

/* Renormalisation of n <= 8 words t[0..n) into 4 non-overlapping words (JMMP16 Alg. 6): a
 * bottom-up 2Sum pass (VecSum, exact), then a top-down Fast2Sum pass that skips zero error
 * terms (VecSumErrBranch); words that do not fit in the four outputs are added to the last.
 * Overwrites t. */
DEVICE_FN QW(t) QW(renorm)(REAL *t, int n) {
    REAL s = t[n - 1];
    for (int i = n - 2; i >= 0; i--) {
        DW(t) e = DW(two_sum)(t[i], s);
        s = e.hi;
        t[i + 1] = e.lo;
    }
    t[0] = s;
    QW(t) out = QW(from_base)((REAL)0);
    int k = 0;
    REAL acc = t[0];
    for (int i = 1; i < n; i++) {
        DW(t) e = DW(fast_two_sum)(acc, t[i]);
        if (e.lo != (REAL)0) {
            out.w[k] = e.hi;
            k++;
            acc = e.lo;
            if (k == 3) {
                for (int j = i + 1; j < n; j++) {
                    acc = acc + t[j];
                }
                out.w[3] = acc;
                return out;
            }
        } else {
            acc = e.hi;
        }
    }
    out.w[k] = acc;
    return out;
}

/* Sums terms[0..n) with a chain of 2Sum; the n - 1 rounding errors go to errors (exact). */
DEVICE_FN REAL QW(cascade)(const REAL *terms, int n, REAL *errors) {
    REAL s = terms[0];
    for (int i = 1; i < n; i++) {
        DW(t) e = DW(two_sum)(s, terms[i]);
        s = e.hi;
        errors[i - 1] = e.lo;
    }
    return s;
}

/* The fast-path result when finite and nonzero, else NaN, infinities and signed zeros from
 * `naive`, the operation on the leading words only; a finite `naive` with a non-finite fast
 * path means overflow. */
DEVICE_FN QW(t) QW(settle)(QW(t) w, REAL naive) {
    int finite = DW(is_finite)(w.w[0]) && DW(is_finite)(w.w[1]) && DW(is_finite)(w.w[2]) &&
                 DW(is_finite)(w.w[3]);
    if (finite && w.w[0] != (REAL)0) {
        return w;
    } else if (!DW(is_finite)(naive)) {
        return QW(from_base)(naive);
    } else if (w.w[0] == (REAL)0) {
        /* An exact zero: keep the sign of `naive` only when it is a signed zero itself. */
        return QW(from_base)(naive == (REAL)0 ? naive : (REAL)0);
    } else {
        return QW(from_base)(copysign((REAL)INFINITY, naive));
    }
}

/* The exact sum a + b of two base floats. */
DEVICE_FN QW(t) QW(from_two)(REAL a, REAL b) {
    DW(t) s = DW(two_sum)(a, b);
    return QW(settle)(QW(make)(s.hi, s.lo, (REAL)0, (REAL)0), a + b);
}

/* A double word, exactly (Rust's DoubleWord::widen). */
DEVICE_FN QW(t) QW(from_dw)(DW(t) x) { return QW(make)(x.hi, x.lo, (REAL)0, (REAL)0); }

/* Rounded to a double word (Rust's DoubleWord::narrow): w1 + (w2 + w3), then one Fast2Sum. */
DEVICE_FN DW(t) QW(to_dw)(QW(t) x) {
    if (!DW(is_finite)(x.w[0]) || x.w[0] == (REAL)0) {
        return DW(make)(x.w[0], (REAL)0);
    }
    DW(t) z = DW(fast_two_sum)(x.w[0], x.w[1] + (x.w[2] + x.w[3]));
    return DW(settle)(z.hi, z.lo, x.w[0]);
}

DEVICE_FN QW(t) QW(neg)(QW(t) x) { return QW(make)(-x.w[0], -x.w[1], -x.w[2], -x.w[3]); }

/* Accurate addition: merge by decreasing magnitude, then renormalise (JMMP16 Alg. 4, HLB00
 * "IEEE add"). */
DEVICE_FN QW(t) QW(add)(QW(t) a, QW(t) b) {
    REAL merged[8];
    int i = 0;
    int j = 0;
    for (int s = 0; s < 8; s++) {
        int take_a = j >= 4 || (i < 4 && fabs(a.w[i]) >= fabs(b.w[j]));
        if (take_a) {
            merged[s] = a.w[i];
            i++;
        } else {
            merged[s] = b.w[j];
            j++;
        }
    }
    return QW(settle)(QW(renorm)(merged, 8), a.w[0] + b.w[0]);
}

DEVICE_FN QW(t) QW(sub)(QW(t) a, QW(t) b) { return QW(add)(a, QW(neg)(b)); }

DEVICE_FN QW(t) QW(add_base)(QW(t) a, REAL b) { return QW(add)(a, QW(from_base)(b)); }

/* Product by orders u^0 .. u^4 with exact 2Sum carries (HLB00 section 2.3, accurate variant):
 * the 10 partial products of order <= 3 exact by 2ProdFMA, the three of order 4 by FMAs. */
DEVICE_FN QW(t) QW(mul)(QW(t) a, QW(t) b) {
    DW(t) p00 = DW(two_prod)(a.w[0], b.w[0]);
    DW(t) p01 = DW(two_prod)(a.w[0], b.w[1]);
    DW(t) p10 = DW(two_prod)(a.w[1], b.w[0]);
    DW(t) p02 = DW(two_prod)(a.w[0], b.w[2]);
    DW(t) p11 = DW(two_prod)(a.w[1], b.w[1]);
    DW(t) p20 = DW(two_prod)(a.w[2], b.w[0]);
    DW(t) p03 = DW(two_prod)(a.w[0], b.w[3]);
    DW(t) p12 = DW(two_prod)(a.w[1], b.w[2]);
    DW(t) p21 = DW(two_prod)(a.w[2], b.w[1]);
    DW(t) p30 = DW(two_prod)(a.w[3], b.w[0]);
    REAL order4_products = TMD_FMA(a.w[1], b.w[3], TMD_FMA(a.w[2], b.w[2], a.w[3] * b.w[1]));

    REAL e1[2];
    REAL t1[3] = {p01.hi, p10.hi, p00.lo};
    REAL c1 = QW(cascade)(t1, 3, e1);
    REAL e2[6];
    REAL t2[7] = {p02.hi, p11.hi, p20.hi, p01.lo, p10.lo, e1[0], e1[1]};
    REAL c2 = QW(cascade)(t2, 7, e2);
    REAL e3[12];
    REAL t3[13] = {p03.hi, p12.hi, p21.hi, p30.hi, p02.lo, p11.lo, p20.lo,
                   e2[0],  e2[1],  e2[2],  e2[3],  e2[4],  e2[5]};
    REAL c3 = QW(cascade)(t3, 13, e3);
    REAL c4 = order4_products + ((p03.lo + p12.lo) + (p21.lo + p30.lo));
    for (int i = 0; i < 12; i++) {
        c4 = c4 + e3[i];
    }
    REAL r[5] = {p00.hi, c1, c2, c3, c4};
    return QW(settle)(QW(renorm)(r, 5), p00.hi);
}

DEVICE_FN QW(t) QW(square)(QW(t) a) { return QW(mul)(a, a); }

/* Product by one base float, by orders with exact carries. */
DEVICE_FN QW(t) QW(mul_fp)(QW(t) a, REAL b) {
    DW(t) p0 = DW(two_prod)(a.w[0], b);
    DW(t) p1 = DW(two_prod)(a.w[1], b);
    DW(t) p2 = DW(two_prod)(a.w[2], b);
    DW(t) p3 = DW(two_prod)(a.w[3], b);
    DW(t) c1 = DW(two_sum)(p1.hi, p0.lo);
    REAL e2[2];
    REAL t2[3] = {p2.hi, p1.lo, c1.lo};
    REAL c2 = QW(cascade)(t2, 3, e2);
    REAL e3[3];
    REAL t3[4] = {p3.hi, p2.lo, e2[0], e2[1]};
    REAL c3 = QW(cascade)(t3, 4, e3);
    REAL c4 = p3.lo + (e3[0] + e3[1] + e3[2]);
    REAL r[5] = {p0.hi, c1.hi, c2, c3, c4};
    return QW(settle)(QW(renorm)(r, 5), p0.hi);
}

/* Long division (HLB00 section 2.4, accurate variant with five quotient terms): each quotient
 * word is RN(r0 / b0) of the current remainder r = a - b (q0 + ...). */
DEVICE_FN QW(t) QW(div_core)(QW(t) a, QW(t) b) {
    REAL q[5];
    q[0] = a.w[0] / b.w[0];
    if (!DW(is_finite)(q[0]) || q[0] == (REAL)0 || !DW(is_finite)(b.w[0])) {
        return QW(settle)(QW(from_base)((REAL)0), q[0]);
    }
    QW(t) r = a;
    for (int i = 1; i < 5; i++) {
        r = QW(add)(r, QW(neg)(QW(mul_fp)(b, q[i - 1])));
        q[i] = r.w[0] / b.w[0];
    }
    REAL q0 = q[0];
    return QW(settle)(QW(renorm)(q, 5), q0);
}


/* x 2^n word by word (renormalised, as words may round when they become subnormal). */
DEVICE_FN QW(t) QW(ldexp_words)(QW(t) x, i32 n) {
    REAL w0 = DW(scalbn)(x.w[0], n);
    if (!DW(is_finite)(w0) || w0 == (REAL)0) {
        return QW(from_base)(w0);
    }
    REAL w[4] = {w0, DW(scalbn)(x.w[1], n), DW(scalbn)(x.w[2], n), DW(scalbn)(x.w[3], n)};
    if (w[3] != (REAL)0 && QW(exponent)(w[3]) > REAL_MIN_EXP) {
        return QW(make)(w[0], w[1], w[2], w[3]);
    }
    return QW(renorm)(w, 4);
}

/* QuadWord::div_qw: a divisor near the ends of the exponent range brings both operands to
 * [1, 2), each by its own power of two, and the quotient is scaled back; else the long division. */
DEVICE_FN QW(t) QW(div)(QW(t) a, QW(t) b) {
    REAL b0 = b.w[0];
    i32 e = QW(exponent)(b0);
    if (DW(is_finite)(b0) && b0 != (REAL)0 &&
        (e <= REAL_MIN_EXP + 4 * REAL_DIGITS || e >= REAL_MAX_EXP - 2)) {
        REAL a0 = a.w[0];
        i32 t = (DW(is_finite)(a0) && a0 != (REAL)0) ? -QW(exponent)(a0) : 0;
        QW(t) q = QW(div_core)(QW(ldexp_words)(a, t), QW(ldexp_words)(b, -e));
        return QW(ldexp_words)(q, -e - t);
    }
    return QW(div_core)(a, b);
}

DEVICE_FN QW(t) QW(recip)(QW(t) b) { return QW(div)(QW(one)(), b); }

/* Square root: after scaling by an even power of two, three Newton steps
 * y += y (1 - a y^2) / 2 for 1/sqrt(a) from the base-format start value, then Karp's step
 * s = a y + y (a - (a y)^2) / 2. */
DEVICE_FN QW(t) QW(sqrt)(QW(t) x) {
    REAL a0 = x.w[0];
    if (isnan(a0) || a0 <= (REAL)0 || !DW(is_finite)(a0)) {
        REAL r = (isnan(a0) || a0 < (REAL)0) ? (REAL)NAN : a0;
        return QW(from_base)(r);
    }
    i32 half_exp = -(QW(exponent)(a0) / 2);
    QW(t) a = QW(ldexp_words)(x, 2 * half_exp);
    QW(t) one = QW(one)();
    QW(t) y = QW(from_base)((REAL)1 / sqrt(a.w[0]));
    for (int i = 0; i < 3; i++) {
        QW(t) residual = QW(add)(one, QW(neg)(QW(mul)(a, QW(mul)(y, y))));
        y = QW(add)(y, QW(ldexp_words)(QW(mul)(y, residual), -1));
    }
    QW(t) s = QW(mul)(a, y);
    QW(t) correction =
        QW(ldexp_words)(QW(mul)(y, QW(add)(a, QW(neg)(QW(mul)(s, s)))), -1);
    return QW(ldexp_words)(QW(add)(s, correction), -half_exp);
}

/* Largest integer not greater than x: the first word with a fraction is floored and the words
 * below it dropped (they sum to less than its ulp < 1). */
DEVICE_FN QW(t) QW(floor)(QW(t) x) {
    REAL w[4] = {x.w[0], x.w[1], x.w[2], x.w[3]};
    for (int i = 0; i < 4; i++) {
        REAL f = floor(w[i]);
        if (f != w[i]) {
            w[i] = f;
            for (int j = i + 1; j < 4; j++) {
                w[j] = (REAL)0;
            }
            break;
        }
    }
    REAL naive = w[0];
    return QW(settle)(QW(renorm)(w, 4), naive);
}

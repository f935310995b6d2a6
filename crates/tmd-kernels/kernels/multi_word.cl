/*
 * multi_word.cl: the generic multi-word layer of the kernels, the twin of tmd-xfloat's trait
 * MultiFloat (crates/tmd-xfloat/src/multi.rs, implemented by double_word.rs and quad_word.rs)
 * and of the helpers of crates/tmd-xfloat/src/math/mod.rs. The elementary functions
 * (multi_word_exp_log.cl, multi_word_hyperbolic.cl, and the trigonometric ones) are written
 * once against these names, as the Rust is written once over MultiFloat, and instantiated for
 * the four types. Every adapter is a thin call of double_word.cl / quad_word.cl, so the IEEE
 * operations and their order are those of the Rust methods it names.
 *
 * Instantiation (tmd_kernels::source, per base format REAL, after double_word.cl,
 * quad_word.cl and multi_word_base.cl): one "level" per type, with
 *   MF(name)      the type T's prefix: mf_df64_, mf_dd_, mf_qf128_, mf_qd_
 *   MFW(name)     T::Wide's prefix: mf_qf128_ for df64 and qf128, mf_qd_ for dd and qd
 *   MF_WORDS      2 (double words, built on DW(...)) or 4 (quad words, built on QW(...))
 *   MF_PRECISION  MultiFloat::PRECISION: 48, 106, 96, 212
 *   MFB(name)     the base format's layer (multi_word_base.cl)
 * The quad level of a base format is instantiated first (it is the double level's wide type);
 * for quad words MF and MFW name the same functions. The host also defines per level the
 * counts and thresholds of the functions (see tmd_kernels' level_constants), named MF(NAME).
 *
 * Provided per level (T = MF(t), W = MFW(t), R = REAL; Rust name in brackets):
 *   types       MF(t)                                 [Self]
 *   build       T MF(from_base)(R)                    [from_base]
 *               T MF(from_two)(R a, R b)              [from_two: exact a + b]
 *               T MF(from_expansion)(R w0, R w1, R w2, R w3)  [from_expansion: first
 *                                                      MF_WORDS words, not renormalised]
 *               T MF(zero)(void), T MF(one)(void)     [zero, one]
 *               T MF(constant)(int c)                 [constant(c); c = MF_CONST_*]
 *               T MF(inv_factorial)(int j, int neg)   [math::inv_factorial: +-1/j!]
 *   access      R MF(hi)(T)                           [hi]
 *               R MF(word)(T, int i)                  [to_words()[i], 0 for i >= MF_WORDS]
 *               double MF(hi_f64)(T)                  [hi().to_f64()]
 *   arithmetic  T MF(add)(T, T), MF(sub), MF(mul), MF(div)   [+ - * /]
 *               T MF(neg)(T)                          [unary -]
 *               T MF(square)(T), MF(recip)(T), MF(sqrt)(T), MF(floor)(T), MF(abs)(T)
 *               T MF(ldexp)(T, i32 n)                 [ldexp: word by word]
 *               T MF(add_base)(T, R), T MF(mul_base)(T, R)   [add_base, mul_base]
 *   tests       int MF(is_nan)(T), MF(is_infinite), MF(is_finite), MF(is_zero),
 *               MF(is_sign_negative)                  [same names]
 *   compare     int MF(eq)(T, T), MF(lt), MF(le), MF(gt), MF(ge)   [PartialEq, PartialOrd:
 *                                                      0 when either is NaN]
 *               int MF(cmp)(T, T)                     [partial_cmp: -1, 0, 1; 2 for None]
 *   wide        W MF(widen)(T), T MF(narrow)(W)       [widen, narrow]
 *   math/mod.rs T MF(times_constant)(R k, int c, int words)        [times_constant]
 *               T MF(minus_multiple)(T x, R k, int c, int words)   [minus_multiple]
 * Base-format names (MFB(scalbn), MFB(exponent), MFB(two_prod), MFB(const_word), ...): see
 * multi_word_base.cl.
 */

#if MF_WORDS == 2

typedef DW(t) MF(t);

DEVICE_FN MF(t) MF(from_base)(REAL x) { return DW(make)(x, (REAL)0); }

/* DoubleWord::from_sum. */
DEVICE_FN MF(t) MF(from_two)(REAL a, REAL b) {
    DW(t) s = DW(two_sum)(a, b);
    return DW(settle)(s.hi, s.lo, a + b);
}

DEVICE_FN MF(t) MF(from_expansion)(REAL w0, REAL w1, REAL w2, REAL w3) {
    return DW(make)(w0, w1);
}

DEVICE_FN REAL MF(hi)(MF(t) x) { return x.hi; }

DEVICE_FN REAL MF(word)(MF(t) x, int i) { return i == 0 ? x.hi : (i == 1 ? x.lo : (REAL)0); }

DEVICE_FN MF(t) MF(add)(MF(t) a, MF(t) b) { return DW(add)(a, b); }
DEVICE_FN MF(t) MF(sub)(MF(t) a, MF(t) b) { return DW(sub)(a, b); }
DEVICE_FN MF(t) MF(mul)(MF(t) a, MF(t) b) { return DW(mul)(a, b); }
DEVICE_FN MF(t) MF(div)(MF(t) a, MF(t) b) { return DW(div)(a, b); }
DEVICE_FN MF(t) MF(neg)(MF(t) a) { return DW(neg)(a); }
DEVICE_FN MF(t) MF(square)(MF(t) a) { return DW(mul)(a, a); }
DEVICE_FN MF(t) MF(recip)(MF(t) a) { return DW(recip)(a); }
DEVICE_FN MF(t) MF(sqrt)(MF(t) a) { return DW(sqrt)(a); }
DEVICE_FN MF(t) MF(ldexp)(MF(t) a, i32 n) { return DW(ldexp_words)(a, n); }
DEVICE_FN MF(t) MF(add_base)(MF(t) a, REAL b) { return DW(add_fp)(a, b); }
DEVICE_FN MF(t) MF(mul_base)(MF(t) a, REAL b) { return DW(mul_fp)(a, b); }

/* DoubleWord::floor_dw. */
DEVICE_FN MF(t) MF(floor)(MF(t) x) {
    REAL fh = floor(x.hi);
    if (fh != x.hi) {
        return DW(make)(fh, (REAL)0);
    }
    REAL fl = floor(x.lo);
    DW(t) z = DW(fast_two_sum)(fh, fl);
    return DW(settle)(z.hi, z.lo, fh);
}

/* PartialOrd of DoubleWord: lexicographic on (hi, lo) (its PartialEq, word by word, agrees).
 * Returns -1, 0, 1, or 2 for "unordered" (NaN). */
DEVICE_FN int MF(cmp)(MF(t) a, MF(t) b) {
    REAL x = a.hi;
    REAL y = b.hi;
    if (x == y) {
        x = a.lo;
        y = b.lo;
    }
    if (isnan(x) || isnan(y)) {
        return 2;
    }
    return x < y ? -1 : (x > y ? 1 : 0);
}

DEVICE_FN MFW(t) MF(widen)(MF(t) x) { return QW(from_dw)(x); }
DEVICE_FN MF(t) MF(narrow)(MFW(t) w) { return QW(to_dw)(w); }

#else /* MF_WORDS == 4 */

typedef QW(t) MF(t);

DEVICE_FN MF(t) MF(from_base)(REAL x) { return QW(from_base)(x); }
DEVICE_FN MF(t) MF(from_two)(REAL a, REAL b) { return QW(from_two)(a, b); }

DEVICE_FN MF(t) MF(from_expansion)(REAL w0, REAL w1, REAL w2, REAL w3) {
    return QW(make)(w0, w1, w2, w3);
}

DEVICE_FN REAL MF(hi)(MF(t) x) { return x.w[0]; }

DEVICE_FN REAL MF(word)(MF(t) x, int i) { return i < 4 ? x.w[i] : (REAL)0; }

DEVICE_FN MF(t) MF(add)(MF(t) a, MF(t) b) { return QW(add)(a, b); }
DEVICE_FN MF(t) MF(sub)(MF(t) a, MF(t) b) { return QW(sub)(a, b); }
DEVICE_FN MF(t) MF(mul)(MF(t) a, MF(t) b) { return QW(mul)(a, b); }
DEVICE_FN MF(t) MF(div)(MF(t) a, MF(t) b) { return QW(div)(a, b); }
DEVICE_FN MF(t) MF(neg)(MF(t) a) { return QW(neg)(a); }
DEVICE_FN MF(t) MF(square)(MF(t) a) { return QW(square)(a); }
DEVICE_FN MF(t) MF(recip)(MF(t) a) { return QW(recip)(a); }
DEVICE_FN MF(t) MF(sqrt)(MF(t) a) { return QW(sqrt)(a); }
DEVICE_FN MF(t) MF(floor)(MF(t) a) { return QW(floor)(a); }
DEVICE_FN MF(t) MF(ldexp)(MF(t) a, i32 n) { return QW(ldexp_words)(a, n); }
DEVICE_FN MF(t) MF(add_base)(MF(t) a, REAL b) { return QW(add_base)(a, b); }
DEVICE_FN MF(t) MF(mul_base)(MF(t) a, REAL b) { return QW(mul_fp)(a, b); }

/* PartialOrd of QuadWord: equal words are equal; a non-finite leading word compares by the
 * leading words; otherwise the sign of the leading word of the accurate difference.
 * Returns -1, 0, 1, or 2 for "unordered" (NaN). */
DEVICE_FN int MF(cmp)(MF(t) a, MF(t) b) {
    if (a.w[0] == b.w[0] && a.w[1] == b.w[1] && a.w[2] == b.w[2] && a.w[3] == b.w[3]) {
        return 0;
    }
    REAL x = a.w[0];
    REAL y = b.w[0];
    if (DW(is_finite)(x) && DW(is_finite)(y)) {
        x = QW(sub)(a, b).w[0];
        y = (REAL)0;
    }
    if (isnan(x) || isnan(y)) {
        return 2;
    }
    return x < y ? -1 : (x > y ? 1 : 0);
}
DEVICE_FN MFW(t) MF(widen)(MF(t) x) { return x; }
DEVICE_FN MF(t) MF(narrow)(MFW(t) w) { return w; }

#endif /* MF_WORDS */

/* PartialEq and PartialOrd's lt, le, gt, ge (always in the order a, b, as Rust's). */
DEVICE_FN int MF(eq)(MF(t) a, MF(t) b) { return MF(cmp)(a, b) == 0; }
DEVICE_FN int MF(lt)(MF(t) a, MF(t) b) { return MF(cmp)(a, b) == -1; }
DEVICE_FN int MF(le)(MF(t) a, MF(t) b) {
    int c = MF(cmp)(a, b);
    return c == -1 || c == 0;
}
DEVICE_FN int MF(gt)(MF(t) a, MF(t) b) { return MF(cmp)(a, b) == 1; }
DEVICE_FN int MF(ge)(MF(t) a, MF(t) b) {
    int c = MF(cmp)(a, b);
    return c == 1 || c == 0;
}

DEVICE_FN double MF(hi_f64)(MF(t) x) { return (double)MF(hi)(x); }

DEVICE_FN MF(t) MF(zero)(void) { return MF(from_base)((REAL)0); }
DEVICE_FN MF(t) MF(one)(void) { return MF(from_base)((REAL)1); }

DEVICE_FN MF(t) MF(constant)(int c) {
    return MF(from_expansion)(MFB(const_word)(c, 0), MFB(const_word)(c, 1),
                              MFB(const_word)(c, 2), MFB(const_word)(c, 3));
}

DEVICE_FN MF(t) MF(inv_factorial)(int j, int negative) {
    MF(t) c = MF(constant)(MF_CONST_INV_FACT + j);
    return negative ? MF(neg)(c) : c;
}

DEVICE_FN int MF(is_nan)(MF(t) x) { return isnan(MF(hi)(x)); }
DEVICE_FN int MF(is_infinite)(MF(t) x) { return fabs(MF(hi)(x)) == (REAL)INFINITY; }
DEVICE_FN int MF(is_finite)(MF(t) x) { return fabs(MF(hi)(x)) < (REAL)INFINITY; }
DEVICE_FN int MF(is_zero)(MF(t) x) { return MF(hi)(x) == (REAL)0; }
DEVICE_FN int MF(is_sign_negative)(MF(t) x) { return signbit(MF(hi)(x)) != 0; }

DEVICE_FN MF(t) MF(abs)(MF(t) x) { return MF(is_sign_negative)(x) ? MF(neg)(x) : x; }

/* math::times_constant: k c with every partial product exact, least significant first. */
DEVICE_FN MF(t) MF(times_constant)(REAL k, int c, int words) {
    MF(t) acc = MF(zero)();
    for (int i = words - 1; i >= 0; i--) {
        DW(t) p = MFB(two_prod)(k, MFB(const_word)(c, i));
        acc = MF(add)(acc, MF(from_two)(p.hi, p.lo));
    }
    return acc;
}

/* math::minus_multiple: Cody-Waite x - k c, most significant product first. */
DEVICE_FN MF(t) MF(minus_multiple)(MF(t) x, REAL k, int c, int words) {
    MF(t) r = x;
    for (int i = 0; i < words; i++) {
        DW(t) p = MFB(two_prod)(k, MFB(const_word)(c, i));
        r = MF(sub)(r, MF(from_two)(p.hi, p.lo));
    }
    return r;
}

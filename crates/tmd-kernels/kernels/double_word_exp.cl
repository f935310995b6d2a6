/*
 * double_word_exp.cl: e^x for double words, the kernel twin of tmd-xfloat's math::exp (read
 * its documentation for the method): Cody-Waite reduction x = k ln2 + r with the exact
 * products k ln2_i of a 4-word ln 2, then r / 2^3, a Taylor series of expm1 in Horner form
 * with double-word coefficients 1/j!, three doublings e <- 2e + e^2, and 2^k (1 + e).
 * Same operations in the same order as the Rust code, so the bits are the same.
 *
 * The host defines, per instance, from tmd-xfloat's own tables (tmd_kernels::source):
 *   DW(LN2_WORDS)[4], DW(INV_FACT)[EXP_TERMS + 1][2], DW(EXP_TERMS), DW(EXP_OVER),
 *   DW(EXP_UNDER).
 */

DEVICE_FN DW(t) DW(from_sum)(REAL a, REAL b) {
    DW(t) s = DW(two_sum)(a, b);
    return DW(settle)(s.hi, s.lo, a + b);
}

DEVICE_FN DW(t) DW(inv_fact)(int j) {
    return DW(make)(DW(INV_FACT)[j][0], DW(INV_FACT)[j][1]);
}

DEVICE_FN DW(t) DW(exp)(DW(t) x) {
    double xh = (double)x.hi;
    if (isnan(xh)) {
        return x;
    }
    if (xh > DW(EXP_OVER)) {
        return DW(make)((REAL)INFINITY, (REAL)0);
    }
    if (xh < DW(EXP_UNDER)) {
        return DW(make)((REAL)0, (REAL)0);
    }
    REAL k = rint(x.hi / DW(LN2_WORDS)[0]);
    DW(t) r = x;
    if (k != (REAL)0) {
        for (int i = 0; i < 4; i++) {
            DW(t) p = DW(two_prod)(k, DW(LN2_WORDS)[i]);
            r = DW(sub)(r, DW(from_sum)(p.hi, p.lo));
        }
    }
    /* expm1 of r: r 2^-3, Horner, three doublings. */
    DW(t) t = DW(ldexp_words)(r, -3);
    DW(t) acc = DW(inv_fact)(DW(EXP_TERMS));
    for (int j = DW(EXP_TERMS) - 1; j >= 1; j--) {
        acc = DW(add)(DW(mul)(acc, t), DW(inv_fact)(j));
    }
    DW(t) e = DW(mul)(acc, t);
    for (int i = 0; i < 3; i++) {
        e = DW(add)(DW(ldexp_words)(e, 1), DW(mul)(e, e));
    }
    return DW(ldexp_words)(DW(add)(DW(make)((REAL)1, (REAL)0), e), (i32)(i64)k);
}

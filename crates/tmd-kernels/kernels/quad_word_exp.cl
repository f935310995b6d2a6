/*
 * quad_word_exp.cl: e^x for quad words, the kernel twin of tmd-xfloat's math::exp for
 * QuadWord (crates/tmd-xfloat/src/math/exp_log.rs, generic over MultiFloat; read its
 * documentation for the method): Cody-Waite reduction x = k ln2 + r with the exact products
 * k ln2_i of a 6-word (qd) or 5-word (qf128) ln 2, then r / 2^5, a Taylor series of expm1 in
 * Horner form with quad-word coefficients 1/j!, five doublings e <- 2e + e^2, and 2^k (1 + e).
 * Same operations in the same order as the Rust code, so the bits are the same.
 *
 * The host defines, per instance, from tmd-xfloat's own tables (tmd_kernels::source):
 *   QW(LN2_WORDS)[QW(LN2_COUNT)], QW(INV_FACT)[QW(EXP_TERMS) + 1][4], QW(EXP_TERMS),
 *   QW(EXP_OVER), QW(EXP_UNDER).
 */

DEVICE_FN QW(t) QW(inv_fact)(int j) {
    return QW(make)(QW(INV_FACT)[j][0], QW(INV_FACT)[j][1], QW(INV_FACT)[j][2],
                    QW(INV_FACT)[j][3]);
}

DEVICE_FN QW(t) QW(exp)(QW(t) x) {
    double xh = (double)x.w[0];
    if (isnan(xh)) {
        return x;
    }
    if (xh > QW(EXP_OVER)) {
        return QW(from_base)((REAL)INFINITY);
    }
    if (xh < QW(EXP_UNDER)) {
        return QW(from_base)((REAL)0);
    }
    REAL k = rint(x.w[0] / QW(LN2_WORDS)[0]);
    QW(t) r = x;
    if (k != (REAL)0) {
        for (int i = 0; i < QW(LN2_COUNT); i++) {
            DW(t) p = DW(two_prod)(k, QW(LN2_WORDS)[i]);
            r = QW(sub)(r, QW(from_two)(p.hi, p.lo));
        }
    }
    /* expm1 of r: r 2^-5 (Rust's halvings() for quad words), Horner, five doublings. */
    QW(t) t = QW(ldexp_words)(r, -5);
    QW(t) acc = QW(inv_fact)(QW(EXP_TERMS));
    for (int j = QW(EXP_TERMS) - 1; j >= 1; j--) {
        acc = QW(add)(QW(mul)(acc, t), QW(inv_fact)(j));
    }
    QW(t) e = QW(mul)(acc, t);
    for (int i = 0; i < 5; i++) {
        e = QW(add)(QW(ldexp_words)(e, 1), QW(square)(e));
    }
    return QW(ldexp_words)(QW(add)(QW(one)(), e), (i32)(i64)k);
}

/*
 * dd_exp.cl: e^x of a double-double, the kernel twin of tmd-xfloat's math::dd_exp (Dd::exp;
 * read its documentation and docs/error-analysis.md section 7 for the method and the bound):
 * x = k ln2/1024 + r with an exact Cody-Waite step, e^x = 2^K T_j (1 + expm1(r)) with the
 * triple-word table T_j = 2^(j/1024). The same operations in the same order as the Rust code,
 * so the bits are the same; only in the dd instance (after double_word.cl).
 *
 * The host defines, from tmd-xfloat's tables (tmd_kernels::dd_table_constants):
 *   DD_EXP_T[1024][3], DD_EXP_INV_STEP, DD_EXP_STEP1..3, DD_EXP_C3[2], DD_EXP_C4[2],
 *   DD_EXP_C5..C8; dd_EXP_OVER, dd_EXP_UNDER come from the generic exp's constants.
 */

/* x - k ln2/1024, normalised. */
DEVICE_FN dd_t dd_table_exp_reduce(dd_t x, double k) {
    double a = x.hi - k * DD_EXP_STEP1;
    dd_t b = dd_two_prod(k, DD_EXP_STEP2);
    dd_t s = dd_two_sum(a, -b.hi);
    dd_t t = dd_two_sum(s.hi, x.lo);
    double low = s.lo + t.lo - b.lo - k * DD_EXP_STEP3;
    return dd_two_sum(t.hi, low);
}

/* expm1(r.hi + r.lo) as an unnormalised pair. */
DEVICE_FN dd_t dd_table_exp_expm1(double r_h, double r_l) {
    double tail = DD_EXP_C5 + r_h * (DD_EXP_C6 + r_h * (DD_EXP_C7 + r_h * DD_EXP_C8));
    dd_t e4 = dd_fast_two_sum(DD_EXP_C4[0], r_h * tail);
    double e4_l = e4.lo + DD_EXP_C4[1];
    dd_t p = dd_two_prod(r_h, e4.hi);
    double p_l = TMD_FMA(r_h, e4_l, p.lo);
    dd_t e3 = dd_fast_two_sum(DD_EXP_C3[0], p.hi);
    double e3_l = e3.lo + (DD_EXP_C3[1] + p_l);
    dd_t s = dd_two_prod(r_h, r_h);
    dd_t c = dd_two_prod(r_h, s.hi);
    double c_l = TMD_FMA(r_h, s.lo, c.lo);
    dd_t m = dd_two_prod(c.hi, e3.hi);
    double m_l = TMD_FMA(c.hi, e3_l, TMD_FMA(c_l, e3.hi, m.lo));
    dd_t u = dd_two_sum(0.5 * s.hi, m.hi);
    dd_t q = dd_fast_two_sum(r_h, u.hi);
    double correction = r_l + r_l * q.hi;
    return dd_make(q.hi, q.lo + (u.lo + (0.5 * s.lo + m_l + correction)));
}

/* T_j (1 + q), normalised, the low word rounded once. */
DEVICE_FN dd_t dd_table_exp_scale(int j, dd_t q) {
    double t0 = DD_EXP_T[j][0], t1 = DD_EXP_T[j][1], t2 = DD_EXP_T[j][2];
    dd_t p = dd_two_prod(t0, q.hi);
    double p_l = p.lo + (t0 * q.lo + t1 * q.hi);
    dd_t u = dd_two_sum(t0, p.hi);
    dd_t v = dd_two_sum(u.lo, t1);
    dd_t z = dd_fast_two_sum(u.hi, v.hi);
    double z_l = z.lo + (v.lo + p_l + t2);
    return dd_fast_two_sum(z.hi, z_l);
}

DEVICE_FN dd_t dd_table_exp(dd_t x) {
    double xh = x.hi;
    if (isnan(xh)) {
        return x;
    }
    if (xh > dd_EXP_OVER) {
        return dd_make(INFINITY, 0.0);
    }
    if (xh < dd_EXP_UNDER) {
        return dd_make(0.0, 0.0);
    }
    double k = rint(xh * DD_EXP_INV_STEP);
    dd_t r = dd_table_exp_reduce(x, k);
    dd_t q = dd_table_exp_expm1(r.hi, r.lo);
    i64 ki = (i64)k;
    i64 j = ki & 1023;
    i64 big_k = (ki - j) / 1024;
    dd_t z = dd_table_exp_scale((int)j, q);
    if (big_k >= -1022 && big_k <= 1023) {
        double s = TMD_BITS_DOUBLE((u64)(big_k + 1023) << 52);
        return dd_make(z.hi * s, z.lo * s);
    }
    return dd_ldexp_words(z, (i32)big_k);
}

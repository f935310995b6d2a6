/*
 * dd_log.cl: log of a double-double, the kernel twin of tmd-xfloat's math::dd_log (Dd::ln;
 * read its documentation and docs/error-analysis.md section 9 for the method and the bound):
 * three table stages make t = x 2^-k c - 1 exact and tiny, log x = k ln2 + L1 + L2 + L3 +
 * log1p(t), the table words on grids that add exactly, the low word rounded once. The same
 * operations in the same order as the Rust code, so the bits are the same; only in the dd
 * instance (after double_word.cl).
 *
 * The host defines, from tmd-xfloat's tables (tmd_kernels::dd_table_functions):
 *   DD_LOG_C1[129], DD_LOG_L1[129][3], DD_LOG_L2[65][3], DD_LOG_L3[65][3], DD_LOG_LN2[3],
 *   DD_LOG_I_HALF, DD_LOG_THIRD, DD_LOG_FIFTH, DD_LOG_SIXTH.
 */

#define DD_LOG_ROUND 6755399441055744.0 /* 1.5 2^52: adding it rounds to an integer */

DEVICE_FN dd_t dd_table_log_special(double xh) {
    double r;
    if (isnan(xh) || xh < 0.0) {
        r = (double)NAN;
    } else if (xh == 0.0) {
        r = -(double)INFINITY;
    } else {
        r = xh;
    }
    return dd_make(r, 0.0);
}

/* x = 2^e (f + ml), f in [1, 2); returns f. */
DEVICE_FN double dd_table_log_decompose(double xh, double xl, i64 *e, double *ml) {
    i64 adjust = 0;
    u64 bits = TMD_DOUBLE_BITS(xh);
    if (bits < ((u64)1 << 52)) {
        xh *= 18446744073709551616.0;
        xl *= 18446744073709551616.0;
        adjust = -64;
    } else if (bits >= ((u64)2046 << 52)) {
        xh *= 0.5;
        xl *= 0.5;
        adjust = 1;
    }
    bits = TMD_DOUBLE_BITS(xh);
    i64 biased = (i64)(bits >> 52);
    double f = TMD_BITS_DOUBLE((bits & (((u64)1 << 52) - 1)) | ((u64)1023 << 52));
    double scale = TMD_BITS_DOUBLE((u64)(2046 - biased) << 52);
    *e = biased - 1023 + adjust;
    *ml = xl * scale;
    return f;
}

/* round(v), ties to even, |v| < 2^51: the integer, and the double in *as_double. */
DEVICE_FN i64 dd_table_log_round(double v, double *as_double) {
    double rounded = v + DD_LOG_ROUND;
    *as_double = rounded - DD_LOG_ROUND;
    return (i64)TMD_DOUBLE_BITS(rounded) - (i64)TMD_DOUBLE_BITS(DD_LOG_ROUND);
}

/* log1p(h + l) as v + ve + l + small (Rust: log1p_parts). */
DEVICE_FN double dd_table_log1p_parts(double h, double l, double *ve, double *small) {
    dd_t a = dd_two_prod(h, h);
    dd_t b = dd_two_prod(a.hi, h);
    dd_t a2 = dd_two_prod(a.hi, a.hi);
    double q = b.hi * DD_LOG_THIRD;
    double r = (b.hi - 2.0 * q) - q;
    dd_t q4 = dd_fast_two_sum(q, -0.25 * a2.hi);
    dd_t p1 = dd_fast_two_sum(-0.5 * a.hi, q4.hi);
    dd_t v = dd_fast_two_sum(h, p1.hi);
    double cube = (r + (b.lo + a.lo * h)) * DD_LOG_THIRD;
    double quartic = -0.25 * a2.lo - 0.5 * (a.hi * a.lo);
    double tail = (a2.hi * h) * (DD_LOG_FIFTH - h * DD_LOG_SIXTH);
    double lterm = l * ((a.hi - b.hi) - h);
    *small = ((p1.lo + q4.lo) - 0.5 * a.lo) + ((cube + quartic) + (tail + lterm));
    *ve = v.lo;
    return v.hi;
}

DEVICE_FN dd_t dd_table_log(dd_t x) {
    double xh = x.hi;
    if (!(xh > 0.0 && xh < (double)INFINITY)) {
        return dd_table_log_special(xh);
    }
    i64 e;
    double ml;
    double f = dd_table_log_decompose(xh, x.lo, &e, &ml);
    /* Stage indices and the exact factor c = C1[i] c2 c3 (Rust: reduction_factors). */
    int i = (int)((((TMD_DOUBLE_BITS(f) >> 44) & 0xff) + 1) >> 1);
    double c1 = DD_LOG_C1[i];
    double t1 = f * c1 - 1.0;
    double jf2, jf3;
    i64 j2 = dd_table_log_round(t1 * (1.0 - t1) * 8192.0, &jf2);
    double c2 = 1.0 - jf2 * (1.0 / 8192.0);
    double t2 = t1 - jf2 * ((1.0 + t1) * (1.0 / 8192.0));
    i64 j3 = dd_table_log_round(t2 * 524288.0, &jf3);
    double c3 = 1.0 - jf3 * (1.0 / 524288.0);
    double c = (c1 * c2) * c3;
    int i2 = (int)(j2 + 32), i3 = (int)(j3 + 32);
    double k = (double)(e + (i >= DD_LOG_I_HALF ? 1 : 0));
    /* t = (f + ml) c - 1 = th + tl + tll (Rust: reduced_argument). */
    dd_t p = dd_two_prod(f, c);
    dd_t qq = dd_two_prod(ml, c);
    double r = p.hi - 1.0;
    dd_t w0 = dd_two_sum(p.lo, qq.hi);
    dd_t t = dd_two_sum(r, w0.hi);
    double th = t.hi, tl = t.lo, tll = w0.lo + qq.lo;
    double big = k * DD_LOG_LN2[0] + DD_LOG_L1[i][0] + DD_LOG_L2[i2][0] + DD_LOG_L3[i3][0];
    double mid = k * DD_LOG_LN2[1] + DD_LOG_L1[i][1] + DD_LOG_L2[i2][1] + DD_LOG_L3[i3][1];
    double low = k * DD_LOG_LN2[2] + DD_LOG_L1[i][2] + DD_LOG_L2[i2][2] + DD_LOG_L3[i3][2];
    double ve, small;
    double v = dd_table_log1p_parts(th, tl, &ve, &small);
    dd_t w = dd_two_sum(mid, v);
    dd_t s = dd_fast_two_sum(big, w.hi);
    dd_t m1 = dd_two_sum(tl, ve);
    dd_t m2 = dd_two_sum(m1.hi, w.lo);
    dd_t m3 = dd_two_sum(m2.hi, s.lo);
    dd_t z = dd_fast_two_sum(s.hi, m3.hi);
    double rest = ((small + low) + (tll - tll * th)) + ((m1.lo + m2.lo) + m3.lo);
    return dd_fast_two_sum(z.hi, z.lo + rest);
}

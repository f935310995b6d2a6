/*
 * crunch_fast_exp.cl: the kernel twin of tmd_crunch::fast_exp::exp_fast, the cheap
 * first reference of binary64 exp in crunch_analyse: e^x as a double-double with relative
 * error below 2^-78 (docs/error-analysis.md §6), about eight times cheaper than dd_exp. Same
 * operations in the same order as the Rust code (contraction is off), hence the same bits.
 *
 * Appended after the dd instance of double_word.cl. The host defines, from tmd-xfloat's tables
 * (tmd_kernels::crunch_analyse_source): FAST_EXP_T[256][2] = 2^(j/256) as double-doubles,
 * FAST_EXP_L0..L2 = ln 2 / 256 as three words, FAST_EXP_C3..C7 = 1/j!, FAST_EXP_INV_LN2_256,
 * FAST_EXP_MIN, FAST_EXP_MAX.
 */

DEVICE_FN dd_t crunch_exp_fast(double x) {
    if (!(x >= FAST_EXP_MIN && x <= FAST_EXP_MAX)) {
        return dd_make(INFINITY, 0.0);
    }
    /* x = k ln2/256 + r_hi + r_lo, exact products and error-free sums */
    double k = rint(x * FAST_EXP_INV_LN2_256);
    dd_t p0 = dd_two_prod(k, FAST_EXP_L0);
    double s = x - p0.hi;
    dd_t p1 = dd_two_prod(k, FAST_EXP_L1);
    dd_t a = dd_two_sum(s, -p0.lo);
    dd_t b = dd_two_sum(a.hi, -p1.hi);
    double low = ((a.lo + b.lo) - p1.lo) - k * FAST_EXP_L2;
    dd_t r = dd_two_sum(b.hi, low);
    /* e^r - 1 = r + r^2/2 + r^3 P(r) */
    dd_t sq = dd_two_prod(r.hi, r.hi);
    double p = FAST_EXP_C3 +
               r.hi * (FAST_EXP_C4 + r.hi * (FAST_EXP_C5 + r.hi * (FAST_EXP_C6 + r.hi * FAST_EXP_C7)));
    double tail = (r.hi * sq.hi) * p;
    dd_t s2 = dd_fast_two_sum(r.hi, 0.5 * sq.hi);
    double lo = s2.lo + (0.5 * sq.lo + (tail + r.lo * (1.0 + r.hi)));
    dd_t e = dd_fast_two_sum(s2.hi, lo);
    /* 2^(k div 256) T[k mod 256] (1 + e) */
    i64 ki = (i64)k;
    i64 j = ki & 255;
    i64 ex = (ki - j) / 256;
    double t_h = FAST_EXP_T[j][0];
    double t_l = FAST_EXP_T[j][1];
    dd_t m = dd_two_prod(t_h, e.hi);
    dd_t a2 = dd_fast_two_sum(t_h, m.hi);
    double low2 = a2.lo + (t_l + (m.lo + (t_h * e.lo + t_l * e.hi)));
    dd_t y = dd_fast_two_sum(a2.hi, low2);
    double scale = TMD_BITS_DOUBLE(((u64)(ex + 1023)) << 52);
    return dd_make(y.hi * scale, y.lo * scale);
}

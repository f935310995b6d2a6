/*
 * dd_trig.cl: sin and cos of a double-double, the kernel twin of tmd-xfloat's math::dd_trig
 * (Dd::sin, Dd::cos, Dd::sin_cos; read its documentation and docs/error-analysis.md section 10
 * for the method and the bound): x = k pi/N + r (Cody-Waite below 2^21, Payne-Hanek with 320
 * bits of 2/pi beyond and next to multiples of pi/2, the quad-word reduction past 179 bits of
 * cancellation), then A cos r + B sin r with the triple-word table (sin, cos)(j pi/N) and
 * short series, the low word rounded once. The same operations in the same order as the Rust
 * code; only in the dd instance, after double_word.cl and the generic layer (for
 * tmd_accumulate_word, mfb_f64_decompose, mf_qd_reduce_half_pi).
 *
 * The host defines (tmd_kernels::dd_table_functions): DD_TRIG_SIN_COS[257][6],
 * DD_TRIG_PI_OVER_N[4], DD_TRIG_N_OVER_PI, DD_TRIG_LOG_N, DD_TRIG_N, DD_TRIG_TINY,
 * DD_TRIG_FAST_LIMIT, DD_TRIG_CANCEL, DD_TRIG_PH_MAX_ZEROS, DD_TRIG_SHIFTER, DD_TRIG_SIN_C3[2],
 * DD_TRIG_SIN_C5[2], DD_TRIG_SIN_C7, DD_TRIG_SIN_C9, DD_TRIG_COS_C4[2], DD_TRIG_COS_C6,
 * DD_TRIG_COS_C8, DD_TRIG_COS_C10.
 */

typedef struct {
    u32 m;        /* k mod 2N */
    double r[3];  /* the reduced argument, a triple word */
    double c[2];  /* cos r - 1 */
    double y[2];  /* (sin r - r) / r */
} dd_trig_reduced_t;

/* Cody-Waite by pi/N (Rust: reduce); returns k. */
DEVICE_FN double dd_trig_reduce(double x0, double x1, double x2, u32 *m, double *r) {
    double t = x0 * DD_TRIG_N_OVER_PI + DD_TRIG_SHIFTER;
    double k = t - DD_TRIG_SHIFTER;
    *m = ((u32)TMD_DOUBLE_BITS(t)) & (2 * DD_TRIG_N - 1);
    dd_t p0 = dd_two_prod(k, DD_TRIG_PI_OVER_N[0]);
    dd_t p1 = dd_two_prod(k, DD_TRIG_PI_OVER_N[1]);
    double d = (x0 - p0.hi) - p0.lo;
    dd_t s1 = dd_two_sum(d, -p1.hi);
    dd_t s2 = dd_two_sum(s1.hi, x1);
    double b = x2 - (p1.lo + (k * DD_TRIG_PI_OVER_N[2] + k * DD_TRIG_PI_OVER_N[3]));
    dd_t u1 = dd_two_sum(s1.lo, s2.lo);
    dd_t u2 = dd_two_sum(u1.hi, b);
    dd_t r01 = dd_two_sum(s2.hi, u2.hi);
    r[0] = r01.hi;
    r[1] = r01.lo;
    r[2] = u1.lo + u2.lo;
    return k;
}

/* cos r - 1 and (sin r - r)/r (Rust: series). */
DEVICE_FN void dd_trig_series(dd_trig_reduced_t *red) {
    double r0 = red->r[0], r1 = red->r[1];
    dd_t z = dd_two_prod(r0, r0);
    double zh = z.hi;
    double zl = z.lo + (2.0 * r0) * r1;
    double h_tail = DD_TRIG_COS_C6 + zh * (DD_TRIG_COS_C8 + zh * DD_TRIG_COS_C10);
    dd_t w = dd_two_prod(zh, DD_TRIG_COS_C4[0]);
    dd_t h = dd_fast_two_sum(-0.5, w.hi);
    double hl = h.lo + ((w.lo + (zh * DD_TRIG_COS_C4[1] + zl * DD_TRIG_COS_C4[0])) +
                        zh * (zh * h_tail));
    dd_t c = dd_two_prod(zh, h.hi);
    red->c[0] = c.hi;
    red->c[1] = c.lo + (zh * hl + zl * h.hi);
    double p_tail = DD_TRIG_SIN_C7 + zh * DD_TRIG_SIN_C9;
    dd_t v = dd_two_prod(zh, DD_TRIG_SIN_C5[0]);
    dd_t p = dd_fast_two_sum(DD_TRIG_SIN_C3[0], v.hi);
    double pl = p.lo + (DD_TRIG_SIN_C3[1] +
                        ((v.lo + (zh * DD_TRIG_SIN_C5[1] + zl * DD_TRIG_SIN_C5[0])) +
                         zh * (zh * p_tail)));
    dd_t y = dd_two_prod(zh, p.hi);
    red->y[0] = y.hi;
    red->y[1] = y.lo + (zh * pl + zl * p.hi);
}

/* A cos r + B sin r rounded once (Rust: eval). */
DEVICE_FN dd_t dd_trig_eval(const double *a, const double *b, const dd_trig_reduced_t *t) {
    const double *r = t->r;
    dd_t q = dd_two_prod(b[0], r[0]);
    dd_t t1 = dd_two_prod(b[0], r[1]);
    dd_t t2 = dd_two_prod(b[1], r[0]);
    dd_t a0 = dd_fast_two_sum(a[0], q.hi);
    dd_t m1 = dd_two_prod(a[0], t->c[0]);
    dd_t m2 = dd_two_prod(q.hi, t->y[0]);
    dd_t mh = dd_fast_two_sum(m1.hi, m2.hi);
    double ml = (mh.lo + (m1.lo + m2.lo)) +
                ((a[0] * t->c[1] + a[1] * t->c[0]) +
                 (q.hi * t->y[1] + ((q.lo + t1.hi) + t2.hi) * t->y[0]));
    dd_t h0 = dd_fast_two_sum(a0.hi, mh.hi);
    dd_t u1 = dd_two_sum(a[1], a0.lo);
    dd_t u2 = dd_two_sum(q.lo, t1.hi);
    dd_t u3 = dd_two_sum(u2.hi, t2.hi);
    dd_t u4 = dd_two_sum(u1.hi, u3.hi);
    dd_t u5 = dd_two_sum(u4.hi, h0.lo);
    double l2 = (((u1.lo + u2.lo) + (u3.lo + u4.lo)) + (u5.lo + (t1.lo + t2.lo))) +
                ((a[2] + ml) + ((b[0] * r[2] + b[1] * r[1]) + b[2] * r[0]));
    dd_t hl = dd_fast_two_sum(h0.hi, u5.hi);
    return dd_fast_two_sum(hl.hi, hl.lo + l2);
}

/* 2^-e for 0 <= e < 1022. */
DEVICE_FN double dd_trig_pow2_neg(u32 e) { return TMD_BITS_DOUBLE((u64)(1023 - e) << 52); }

/* Payne-Hanek by pi/N with 320 fraction bits (Rust: reduce_payne_hanek); 0 when the reduced
 * fraction has more than DD_TRIG_PH_MAX_ZEROS leading zero bits. */
DEVICE_FN_NOINLINE int dd_trig_reduce_payne_hanek(dd_t x, u32 *m_out, double *r) {
    u64 acc[6] = {0, 0, 0, 0, 0, 0};
    double words[2] = {x.hi, x.lo};
    for (int w = 0; w < 2; w++) {
        int negative;
        u64 m;
        i32 e;
        mfb_f64_decompose(words[w], &negative, &m, &e);
        if (m != 0) {
            tmd_accumulate_word(acc, 5, negative, m, e);
        }
    }
    const int shift = DD_TRIG_LOG_N - 1;
    u64 f[5];
    for (int i = 0; i < 5; i++) {
        u64 next = i + 1 < 5 ? acc[i + 2] >> (64 - shift) : 0;
        f[i] = (acc[i + 1] << shift) | next;
    }
    u32 m = (u32)(((acc[0] & 3) << shift) | (acc[1] >> (64 - shift)));
    int negative = (int)(f[0] >> 63);
    if (negative) {
        m += 1;
        u64 carry = 1;
        for (int i = 4; i >= 0; i--) {
            u64 v = ~f[i] + carry;
            carry = (carry != 0 && v == 0) ? 1 : 0;
            f[i] = v;
        }
    }
    int first = -1;
    for (int i = 0; i < 5; i++) {
        if (f[i] != 0) {
            first = i;
            break;
        }
    }
    if (first < 0) {
        return 0;
    }
    u32 zeros = 64 * (u32)first + (u32)TMD_CLZ64(f[first]);
    if (zeros > DD_TRIG_PH_MAX_ZEROS) {
        return 0;
    }
    u32 limb = zeros / 64, bit = zeros % 64;
    u64 g[3];
    for (u32 i = 0; i < 3; i++) {
        u64 hi = limb + i < 5 ? f[limb + i] : 0;
        u64 lo = limb + i + 1 < 5 ? f[limb + i + 1] : 0;
        g[i] = bit == 0 ? hi : ((hi << bit) | (lo >> (64 - bit)));
    }
    double d0 = (double)(g[0] >> 11) * dd_trig_pow2_neg(53 + zeros);
    double d1 = (double)(((g[0] & 0x7ff) << 42) | (g[1] >> 22)) * dd_trig_pow2_neg(106 + zeros);
    double d2 =
        (double)(((g[1] & 0x3fffff) << 31) | (g[2] >> 33)) * dd_trig_pow2_neg(159 + zeros);
    dd_t q0 = dd_two_prod(d0, DD_TRIG_PI_OVER_N[0]);
    dd_t q1 = dd_two_prod(d0, DD_TRIG_PI_OVER_N[1]);
    dd_t q2 = dd_two_prod(d1, DD_TRIG_PI_OVER_N[0]);
    dd_t s1 = dd_two_sum(q1.hi, q2.hi);
    dd_t s2 = dd_two_sum(q0.lo, s1.hi);
    dd_t r01 = dd_fast_two_sum(q0.hi, s2.hi);
    double r2 = (s1.lo + s2.lo) +
                ((q1.lo + q2.lo) + ((d0 * DD_TRIG_PI_OVER_N[2] + d1 * DD_TRIG_PI_OVER_N[1]) +
                                    d2 * DD_TRIG_PI_OVER_N[0]));
    r[0] = negative ? -r01.hi : r01.hi;
    r[1] = negative ? -r01.lo : r01.lo;
    r[2] = negative ? -r2 : r2;
    *m_out = m & (2 * DD_TRIG_N - 1);
    return 1;
}

/* The exact reductions (Rust: reduce_exactly, reduce_quad). */
DEVICE_FN_NOINLINE void dd_trig_reduce_exactly(dd_t x, dd_trig_reduced_t *red) {
    if (!dd_trig_reduce_payne_hanek(x, &red->m, red->r)) {
        i32 q;
        mf_qd_t w = mf_qd_reduce_half_pi(mf_dd_widen(x), &q);
        u32 m;
        dd_trig_reduce(mf_qd_word(w, 0), mf_qd_word(w, 1), mf_qd_word(w, 2), &m, red->r);
        red->m = (m + (u32)q * (DD_TRIG_N / 2)) & (2 * DD_TRIG_N - 1);
    }
    dd_trig_series(red);
}

/* 1 with (sin x, cos x) in *s, *c for NaN, infinities and tiny x; else 0 and the reduction. */
DEVICE_FN int dd_trig_prepare(dd_t x, dd_t *s, dd_t *c, dd_trig_reduced_t *red) {
    double x0 = x.hi;
    if (!dd_is_finite(x0)) {
        *s = dd_make((double)NAN, 0.0);
        *c = dd_make((double)NAN, 0.0);
        return 1;
    }
    double ax = fabs(x0);
    if (ax < DD_TRIG_TINY) {
        *s = x;
        *c = dd_make(1.0, 0.0);
        return 1;
    }
    if (ax > DD_TRIG_FAST_LIMIT) {
        dd_trig_reduce_exactly(x, red);
        return 0;
    }
    double k = dd_trig_reduce(x0, x.lo, 0.0, &red->m, red->r);
    if ((red->m & (DD_TRIG_N / 2 - 1)) == 0 && k != 0.0 && fabs(red->r[0]) < ax * DD_TRIG_CANCEL) {
        dd_trig_reduce_exactly(x, red);
        return 0;
    }
    dd_trig_series(red);
    return 0;
}

/* sin(x + (m - red.m) pi/N) (Rust: value). */
DEVICE_FN dd_t dd_trig_value(const dd_trig_reduced_t *red, u32 m) {
    m &= 2 * DD_TRIG_N - 1;
    u32 i = m & (DD_TRIG_N / 2 - 1);
    u32 quadrant = m >> (DD_TRIG_LOG_N - 1);
    int flip = i > DD_TRIG_N / 4;
    u32 j = flip ? DD_TRIG_N / 2 - i : i;
    int use_cos = ((quadrant & 1) == 1) != flip;
    double a[3], b[3];
    double sign_b = (flip == use_cos) ? 1.0 : -1.0;
    for (int w = 0; w < 3; w++) {
        double sw = DD_TRIG_SIN_COS[j][w], cw = DD_TRIG_SIN_COS[j][3 + w];
        a[w] = use_cos ? cw : sw;
        b[w] = sign_b * (use_cos ? sw : cw);
    }
    dd_t v = dd_trig_eval(a, b, red);
    return quadrant >= 2 ? dd_make(-v.hi, -v.lo) : v;
}

DEVICE_FN dd_t dd_table_sin(dd_t x) {
    dd_t s, c;
    dd_trig_reduced_t red;
    if (dd_trig_prepare(x, &s, &c, &red)) {
        return s;
    }
    return dd_trig_value(&red, red.m);
}

DEVICE_FN dd_t dd_table_cos(dd_t x) {
    dd_t s, c;
    dd_trig_reduced_t red;
    if (dd_trig_prepare(x, &s, &c, &red)) {
        return c;
    }
    return dd_trig_value(&red, red.m + DD_TRIG_N / 2);
}

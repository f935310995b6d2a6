/*
 * binary32_trig.cl: sin, cos and tan of a binary32 argument in binary64, the kernel twin of
 * tmd_xfloat::math::binary32_trig (same operations in the same order, contraction off, so the
 * same bits): x 2/pi reduced modulo 4 exactly by one 24 x 128-bit product with 128 bits of
 * 2/pi, then Taylor series of degree 17 and 16. Bounds 2^-51 (sin, cos) and 2^-50 (tan),
 * docs/error-analysis.md section 20.
 *
 * Needs tmd_two_over_pi_bits (multi_word_trig_base.cl), dd_two_prod and dd_make
 * (double_word.cl with the dd instance). The host defines the constants from xfloat's:
 *   B32_PI_2_HI, B32_PI_2_LO           pi/2 as a double-double
 *   B32_MIN_REDUCED                    reduced arguments below are refused (NaN)
 *   B32_QUARTER_PI_BITS                the bits of the largest binary32 below pi/4
 *   B32_SIN_TAIL_0..7, B32_COS_TAIL_0..6   the series' coefficients, highest first
 */

typedef struct {
    u32 quadrant;
    double hi;
    double lo;
    int refused;
} b32_reduced_t;

/* 2^k for a normal binary64 power of two. */
DEVICE_FN double b32_exp2i(i32 k) { return TMD_BITS_DOUBLE(((u64)(1023 + k)) << 52); }

/* binary32_trig::reduce */
DEVICE_FN b32_reduced_t b32_reduce(float x) {
    b32_reduced_t out;
    out.quadrant = 0;
    out.lo = 0.0;
    out.refused = 0;
    u32 bits = TMD_FLOAT_BITS(x) & 0x7fffffffu;
    if (bits >= 0x7f800000u) {
        out.refused = 1;
        out.hi = 0.0;
        return out;
    }
    if (bits <= B32_QUARTER_PI_BITS) {
        out.hi = (double)TMD_BITS_FLOAT(bits);
        return out;
    }
    u64 m = (u64)((bits & 0x7fffffu) | 0x800000u);
    i64 e = (i64)(bits >> 23) - 150;
    u64 w_hi = tmd_two_over_pi_bits(e - 1);
    u64 w_lo = tmd_two_over_pi_bits(e + 63);
    /* m W mod 2^128 as (p_hi, p_lo). */
    u64 p_lo = m * w_lo;
    u64 p_hi = TMD_MUL_HI64(m, w_lo) + m * w_hi;
    u32 quadrant = (u32)((p_hi + ((u64)1 << 61)) >> 62);
    u64 r_hi = p_hi - ((u64)quadrant << 62);
    u64 r_lo = p_lo;
    /* fixed_to_double_double of the signed 128-bit r = (r_hi, r_lo), units 2^-126. */
    int negative = (r_hi >> 63) != 0;
    if (negative) {
        r_lo = ~r_lo + 1;
        r_hi = ~r_hi + (r_lo == 0 ? 1 : 0);
    }
    double t_hi = 0.0, t_lo = 0.0;
    if ((r_hi | r_lo) != 0) {
        i32 lz = r_hi != 0 ? (i32)TMD_CLZ64(r_hi) : 64 + (i32)TMD_CLZ64(r_lo);
        u64 n_hi, n_lo;
        if (lz == 0) {
            n_hi = r_hi;
            n_lo = r_lo;
        } else if (lz < 64) {
            n_hi = (r_hi << lz) | (r_lo >> (64 - lz));
            n_lo = r_lo << lz;
        } else if (lz == 64) {
            n_hi = r_lo;
            n_lo = 0;
        } else {
            n_hi = r_lo << (lz - 64);
            n_lo = 0;
        }
        u64 top = n_hi >> 11;
        u64 rest = (n_hi << 53) | (n_lo >> 11);
        t_hi = (double)top * b32_exp2i(75 - lz - 126);
        t_lo = (double)rest * b32_exp2i(11 - lz - 126);
        if (negative) {
            t_hi = -t_hi;
            t_lo = -t_lo;
        }
    }
    if (fabs(t_hi) < B32_MIN_REDUCED) {
        out.refused = 1;
        out.hi = 0.0;
        return out;
    }
    dd_t p = dd_two_prod(t_hi, B32_PI_2_HI);
    out.quadrant = quadrant & 3u;
    out.hi = p.hi;
    out.lo = p.lo + (t_hi * B32_PI_2_LO + t_lo * B32_PI_2_HI);
    return out;
}

/* binary32_trig::sin_kernel, with its Horner scheme unrolled. */
DEVICE_FN double b32_sin_kernel(double hi, double lo) {
    double z = hi * hi;
    double p = B32_SIN_TAIL_0;
    p = p * z + B32_SIN_TAIL_1;
    p = p * z + B32_SIN_TAIL_2;
    p = p * z + B32_SIN_TAIL_3;
    p = p * z + B32_SIN_TAIL_4;
    p = p * z + B32_SIN_TAIL_5;
    p = p * z + B32_SIN_TAIL_6;
    p = p * z + B32_SIN_TAIL_7;
    double tail = (hi * z) * p;
    double lo_cos = lo - (0.5 * z) * lo;
    return hi + (tail + lo_cos);
}

/* binary32_trig::cos_kernel */
DEVICE_FN double b32_cos_kernel(double hi, double lo) {
    double z = hi * hi;
    double p = B32_COS_TAIL_0;
    p = p * z + B32_COS_TAIL_1;
    p = p * z + B32_COS_TAIL_2;
    p = p * z + B32_COS_TAIL_3;
    p = p * z + B32_COS_TAIL_4;
    p = p * z + B32_COS_TAIL_5;
    p = p * z + B32_COS_TAIL_6;
    double tail = (z * z) * p - hi * lo;
    return 1.0 + (tail - 0.5 * z);
}

/* Circular::eval for sin (which = 0), cos (1) and tan (2), as a double-double with a zero
 * low word; NaN where the reduction refuses x. */
DEVICE_FN dd_t b32_circular(double xd, int which) {
    float x = (float)xd;
    b32_reduced_t r = b32_reduce(x);
    if (r.refused) {
        return dd_make((double)NAN, 0.0);
    }
    double v;
    if (which == 2) {
        double s = b32_sin_kernel(r.hi, r.lo);
        double c = b32_cos_kernel(r.hi, r.lo);
        v = (r.quadrant & 1u) == 0 ? s / c : -c / s;
    } else {
        u32 q = which == 0 ? r.quadrant : (r.quadrant + 1u) & 3u;
        /* cos x = sin(x + pi/2): quadrant q + 1 of sin. */
        if (q == 0) {
            v = b32_sin_kernel(r.hi, r.lo);
        } else if (q == 1) {
            v = b32_cos_kernel(r.hi, r.lo);
        } else if (q == 2) {
            v = -b32_sin_kernel(r.hi, r.lo);
        } else {
            v = -b32_cos_kernel(r.hi, r.lo);
        }
    }
    int negate = (TMD_FLOAT_BITS(x) >> 31) != 0 && which != 1;
    return dd_make(negate ? -v : v, 0.0);
}

/*
 * multi_word_trig_base.cl: the base-format and integer parts of the kernels' circular
 * functions (multi_word_trig.cl), twins of crates/tmd-xfloat/src/base.rs (BaseFloat::decompose,
 * textbook_atan, the start value approx_atan of math::trig::atan_unit) and of the integer half
 * of the Payne-Hanek reduction in crates/tmd-xfloat/src/math/trig.rs (two_over_pi_bits,
 * accumulate_word). Same IEEE operations in the same order as the Rust, and exact 64-bit
 * integer arithmetic (TMD_MUL_HI64 for the high half of 64 x 64-bit products, where Rust uses
 * u128), so the bits are the CPU's on every device.
 *
 * Instantiated by the host (tmd_kernels::source) once per base format, after
 * multi_word_base.cl and before the multi-word levels, with its macros (REAL, DW, QW,
 * REAL_DIGITS, REAL_MAX_EXP, REAL_MIN_EXP, MFB) and these constants from tmd-xfloat:
 *   TMD_TWO_OVER_PI_BITS[32]        tmd_xfloat::consts::TWO_OVER_PI_BITS (u64, once per program)
 *   MFB(ATAN_EIGHTHS)[9][2]         base::ATAN_EIGHTHS_F32 / _F64:  atan(k/8), two words
 *   MFB(ATAN_COMPLEMENTS)[9][2]     base::ATAN_COMPLEMENTS_F32 / _F64: pi/2 - atan(k/8)
 *   MFB(ATAN_TERMS), MFB(ATAN_ODD)[] base::ATAN_ODD_F32 / _F64: (-1)^j / (2j + 1), j >= 1
 * Provided:
 *   void MFB(decompose)(REAL x, int *negative, u64 *m, i32 *e)   BaseFloat::decompose
 *   REAL MFB(approx_atan)(REAL x)                                BaseFloat::approx_atan
 *   void tmd_accumulate_word(u64 *acc, int limbs, int negative, u64 m, i32 e)
 *                                                     trig.rs accumulate_word (format-free,
 *                                                     defined once per program)
 */

/* ---- integer part: once per program ---- */
#ifndef TMD_TRIG_INTEGER_DEFINED
#define TMD_TRIG_INTEGER_DEFINED 1

/* The largest fraction-limb count (quad words) and the window of 2/pi bits per word. */
#define TMD_MAX_FRACTION_LIMBS 10
#define TMD_MAX_WINDOW_LIMBS (TMD_MAX_FRACTION_LIMBS + 3)

DEVICE_FN u64 tmd_two_over_pi_limb(i64 i) { return i < 32 ? TMD_TWO_OVER_PI_BITS[i] : 0; }

/* Bits start .. start + 63 of 2/pi (bit 1 is the first after the binary point; bits at
 * positions <= 0 are zero): trig.rs two_over_pi_bits. */
DEVICE_FN u64 tmd_two_over_pi_bits(i64 start) {
    if (start + 63 < 1) {
        return 0;
    }
    if (start < 1) {
        return tmd_two_over_pi_limb(0) >> (1 - start);
    }
    i64 index = (start - 1) / 64;
    i32 offset = (i32)((start - 1) % 64);
    if (offset == 0) {
        return tmd_two_over_pi_limb(index);
    }
    return (tmd_two_over_pi_limb(index) << offset) |
           (tmd_two_over_pi_limb(index + 1) >> (64 - offset));
}

/* Adds (or subtracts) m 2^e * 2/pi * 2^(64 limbs) modulo 2^(64 (limbs + 1)) to the big-endian
 * fixed-point accumulator acc[0 .. limbs] (trig.rs accumulate_word). */
DEVICE_FN_NOINLINE void tmd_accumulate_word(u64 *acc, int limbs, int negative, u64 m, i32 e) {
    i64 t = (i64)e + 64 * (i64)limbs;
    if (t < -128) {
        return; /* contributes less than 2^-(64 limbs) in total */
    }
    i64 j0 = t - 64 * ((i64)limbs + 1) + 1;
    int window_limbs = limbs + 3;
    /* product = m * window, window_limbs + 1 limbs, big-endian; only limbs 1 .. limbs + 1
     * are kept (the two guard limbs and the limb above 2^(64 (limbs + 1)) are dropped). */
    u64 product[TMD_MAX_WINDOW_LIMBS + 1];
    u64 carry = 0;
    for (int k = window_limbs - 1; k >= 0; k--) {
        u64 w = tmd_two_over_pi_bits(j0 + 64 * (i64)k);
        u64 lo = m * w;
        u64 hi = TMD_MUL_HI64(m, w);
        u64 v = lo + carry;
        hi += (u64)(v < lo);
        product[k + 1] = v;
        carry = hi;
    }
    product[0] = carry;
    u32 c = 0;
    for (int k = limbs; k >= 0; k--) {
        u64 term = product[k + 1];
        if (negative) {
            u64 d = acc[k] - term;
            u32 b1 = acc[k] < term;
            u64 d2 = d - (u64)c;
            u32 b2 = d < (u64)c;
            acc[k] = d2;
            c = b1 | b2;
        } else {
            acc[k] = tmd_add_carry(acc[k], term, c, &c);
        }
    }
}

#endif /* TMD_TRIG_INTEGER_DEFINED */

/* ---- base format part: once per base format ---- */

/* Exact decomposition |x| = m 2^e with an integer m < 2^p (BaseFloat::decompose). */
DEVICE_FN void MFB(decompose)(REAL x, int *negative, u64 *m, i32 *e) {
#if REAL_DIGITS == 24
    u64 bits = (u64)TMD_FLOAT_BITS(x);
    const int total = 32;
#else
    u64 bits = TMD_DOUBLE_BITS(x);
    const int total = 64;
#endif
    const int frac_bits = REAL_DIGITS - 1;
    const i32 bias = REAL_MAX_EXP - 1;
    *negative = (int)((bits >> (total - 1)) & 1);
    i32 biased = (i32)((bits >> frac_bits) & (((u64)1 << (total - 1 - frac_bits)) - 1));
    u64 frac = bits & (((u64)1 << frac_bits) - 1);
    if (biased == 0) {
        *m = frac;
        *e = 1 - bias - frac_bits;
    } else {
        *m = frac | ((u64)1 << frac_bits);
        *e = biased - bias - frac_bits;
    }
}

/* base.rs textbook_atan with the format's tables: atan within about one ulp from + - * /,
 * fma and rint only (read the Rust for the method). */
DEVICE_FN REAL MFB(approx_atan)(REAL x) {
    if (isnan(x)) {
        return x;
    }
    REAL a = fabs(x);
    int inverted = a > (REAL)1;
    REAL eight = (REAL)8;
    REAL y = inverted ? eight / a : a * eight;
    REAL k = y < (REAL)1 ? (REAL)0 : rint(y);
    REAL c = k * (REAL)0.125;
    REAL t;
    if (k == (REAL)0) {
        t = inverted ? (REAL)1 / a : a;
    } else if (inverted) {
        t = TMD_FMA(-a, c, (REAL)1) / (a + c);
    } else {
        t = (a - c) / TMD_FMA(a, c, (REAL)1);
    }
    REAL z = t * t;
    REAL p = MFB(ATAN_ODD)[MFB(ATAN_TERMS) - 1];
    for (int j = MFB(ATAN_TERMS) - 2; j >= 0; j--) {
        p = p * z + MFB(ATAN_ODD)[j];
    }
    REAL atan_t = t + t * (z * p);
    int index = (int)(i64)k;
    REAL r;
    if (inverted) {
        r = MFB(ATAN_COMPLEMENTS)[index][0] + (MFB(ATAN_COMPLEMENTS)[index][1] - atan_t);
    } else {
        r = MFB(ATAN_EIGHTHS)[index][0] + (atan_t + MFB(ATAN_EIGHTHS)[index][1]);
    }
    return signbit(x) ? -r : r;
}

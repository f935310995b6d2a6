/*
 * crunch: a target evaluated on every input of a batch, on the device. The host
 * defines CRUNCH_REAL (float or double) and appends the target, a function
 *     DEVICE_FN CRUNCH_REAL crunch_target(CRUNCH_REAL x)
 * that calls the device's own math library, an emulation below, or a user snippet. The error
 * analysis stays on the host, so a target gives the same report on every backend exactly when
 * its results are the same bits (tmd-crunch tests this for the emulations).
 */

/* ARM VRECPE.F32 (FPRecipEstimate, round to nearest, no flush to zero), as
 * tmd_crunch::emul::vrecpe_f32: the estimate r = ((2^19 div (2a + 1)) + 1) div 2 of the
 * leading 9 significand bits a, exponent 253 - exp(x). */
DEVICE_FN float tmd_vrecpe_f32(float x) {
    u32 bits = TMD_FLOAT_BITS(x);
    u32 sign = bits & 0x80000000u;
    if (x != x) {
        return x;
    }
    if ((bits & 0x7fffffffu) == 0x7f800000u) {
        return TMD_BITS_FLOAT(sign);
    }
    if ((bits & 0x7fffffffu) < 0x00200000u) {
        /* zero or |x| < 2^-128: the estimate overflows to infinity */
        return TMD_BITS_FLOAT(sign | 0x7f800000u);
    }
    i32 exp = (i32)((bits >> 23) & 0xffu);
    u64 fraction = ((u64)(bits & 0x7fffffu)) << 29;
    u64 mask52 = (((u64)1) << 52) - 1;
    if (exp == 0) {
        if ((fraction & (((u64)1) << 51)) == 0) {
            exp = -1;
            fraction = (fraction << 2) & mask52;
        } else {
            fraction = (fraction << 1) & mask52;
        }
    }
    u32 scaled = 256u | (u32)(fraction >> 44);
    i32 result_exp = 253 - exp;
    u32 a = scaled * 2u + 1u;
    u32 b = (1u << 19) / a;
    u32 estimate = (b + 1u) / 2u;
    u64 out_fraction = ((u64)(estimate & 0xffu)) << 44;
    if (result_exp == 0) {
        out_fraction = (((u64)1) << 51) | (out_fraction >> 1);
    } else if (result_exp == -1) {
        out_fraction = (((u64)1) << 50) | (out_fraction >> 2);
        result_exp = 0;
    }
    return TMD_BITS_FLOAT(sign | (((u32)result_exp) << 23) | (u32)(out_fraction >> 29));
}

DEVICE_FN CRUNCH_REAL crunch_target(CRUNCH_REAL x);

KERNEL_FQ void crunch_eval(GLOBAL_AS const CRUNCH_REAL *xs, GLOBAL_AS CRUNCH_REAL *ys, u64 n) {
    u64 i = GLOBAL_ID0;
    if (i < n) {
        ys[i] = crunch_target(xs[i]);
    }
}

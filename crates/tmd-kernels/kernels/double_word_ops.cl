/*
 * double_word_ops.cl: element-wise kernels over double-word arrays, used to check the kernel
 * arithmetic against the CPU crate bit for bit and to measure its throughput. Instantiated for
 * float and double like double_word.cl. Words are passed as separate arrays of leading and
 * trailing words (structure of arrays, so loads coalesce on GPUs).
 *
 * op: 0 add, 1 sub, 2 mul, 3 div, 4 sqrt (of a), 5 recip (of a), 6 exp (of a); of a, from the
 * generic function files (multi_word_exp_log.cl, multi_word_hyperbolic.cl, through
 * MF_DW(name), the double-word level's prefix): 7 expm1, 8 log, 9 log1p, 10 sinh, 11 cosh,
 * 12 tanh; from multi_word_trig.cl: 13 sin, 14 cos, 15 tan, 16 atan. exp, log, sin and cos go
 * through DW_EXP, DW_LOG, DW_SIN, DW_COS (tmd_kernels' Instance::defines): dd's table-driven
 * functions (kernels/dd_*.cl), as Dd's methods on the CPU, and the generic ones for df64.
 */

KERNEL_FQ void DW(elementwise)(const GLOBAL_AS REAL *a_hi, const GLOBAL_AS REAL *a_lo,
                               const GLOBAL_AS REAL *b_hi, const GLOBAL_AS REAL *b_lo,
                               GLOBAL_AS REAL *r_hi, GLOBAL_AS REAL *r_lo, const u64 n,
                               const i32 op) {
    u64 i = GLOBAL_ID0;
    if (i >= n) {
        return;
    }
    DW(t) a = DW(make)(a_hi[i], a_lo[i]);
    DW(t) b = DW(make)(b_hi[i], b_lo[i]);
    DW(t) r;
    switch (op) {
    case 0: r = DW(add)(a, b); break;
    case 1: r = DW(sub)(a, b); break;
    case 2: r = DW(mul)(a, b); break;
    case 3: r = DW(div)(a, b); break;
    case 4: r = DW(sqrt)(a); break;
    case 6: r = DW_EXP(a); break;
    case 7: r = MF_DW(expm1)(a); break;
    case 8: r = DW_LOG(a); break;
    case 9: r = MF_DW(log1p)(a); break;
    case 10: r = MF_DW(sinh)(a); break;
    case 11: r = MF_DW(cosh)(a); break;
    case 12: r = MF_DW(tanh)(a); break;
    case 13: r = DW_SIN(a); break;
    case 14: r = DW_COS(a); break;
    case 15: r = MF_DW(tan)(a); break;
    case 16: r = MF_DW(atan)(a); break;
    default: r = DW(recip)(a); break;
    }
    r_hi[i] = r.hi;
    r_lo[i] = r.lo;
}

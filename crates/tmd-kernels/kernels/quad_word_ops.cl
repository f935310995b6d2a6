/*
 * quad_word_ops.cl: element-wise kernels over quad-word arrays, used to check the kernel
 * arithmetic (quad_word.cl) and functions (multi_word*.cl) against the CPU crate bit for bit and to
 * measure its throughput; the quad-word twin of double_word_ops.cl. Instantiated for float
 * (qf128) and double (qd). Each operand is passed as four arrays, one per word, most
 * significant first (structure of arrays, so loads coalesce on GPUs).
 *
 * op: 0 add, 1 sub, 2 mul, 3 div, 4 sqrt (of a), 5 recip (of a), then of a, through
 * MF_QW(name), the quad-word level of multi_word.cl: 6 exp, 7 expm1, 8 log, 9 log1p, 10 sinh,
 * 11 cosh, 12 tanh, 13 sin, 14 cos, 15 tan, 16 atan (the codes of double_word_ops.cl).
 */

KERNEL_FQ void QW(elementwise)(const GLOBAL_AS REAL *a0, const GLOBAL_AS REAL *a1,
                               const GLOBAL_AS REAL *a2, const GLOBAL_AS REAL *a3,
                               const GLOBAL_AS REAL *b0, const GLOBAL_AS REAL *b1,
                               const GLOBAL_AS REAL *b2, const GLOBAL_AS REAL *b3,
                               GLOBAL_AS REAL *r0, GLOBAL_AS REAL *r1, GLOBAL_AS REAL *r2,
                               GLOBAL_AS REAL *r3, const u64 n, const i32 op) {
    u64 i = GLOBAL_ID0;
    if (i >= n) {
        return;
    }
    QW(t) a = QW(make)(a0[i], a1[i], a2[i], a3[i]);
    QW(t) b = QW(make)(b0[i], b1[i], b2[i], b3[i]);
    QW(t) r;
    switch (op) {
    case 0: r = QW(add)(a, b); break;
    case 1: r = QW(sub)(a, b); break;
    case 2: r = QW(mul)(a, b); break;
    case 3: r = QW(div)(a, b); break;
    case 4: r = QW(sqrt)(a); break;
    case 6: r = MF_QW(exp)(a); break;
    case 7: r = MF_QW(expm1)(a); break;
    case 8: r = MF_QW(log)(a); break;
    case 9: r = MF_QW(log1p)(a); break;
    case 10: r = MF_QW(sinh)(a); break;
    case 11: r = MF_QW(cosh)(a); break;
    case 12: r = MF_QW(tanh)(a); break;
    case 13: r = MF_QW(sin)(a); break;
    case 14: r = MF_QW(cos)(a); break;
    case 15: r = MF_QW(tan)(a); break;
    case 16: r = MF_QW(atan)(a); break;
    default: r = QW(recip)(a); break;
    }
    r0[i] = r.w[0];
    r1[i] = r.w[1];
    r2[i] = r.w[2];
    r3[i] = r.w[3];
}

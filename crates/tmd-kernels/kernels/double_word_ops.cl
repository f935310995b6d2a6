/*
 * double_word_ops.cl: element-wise kernels over double-word arrays, used to check the kernel
 * arithmetic against the CPU crate bit for bit and to measure its throughput. Instantiated for
 * float and double like double_word.cl. Words are passed as separate arrays of leading and
 * trailing words (structure of arrays, so loads coalesce on GPUs).
 *
 * op: 0 add, 1 sub, 2 mul, 3 div, 4 sqrt (of a), 5 recip (of a), 6 exp (of a).
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
    case 6: r = DW(exp)(a); break;
    default: r = DW(recip)(a); break;
    }
    r_hi[i] = r.hi;
    r_lo[i] = r.lo;
}

/*
 * fft.cl: one pass of the transposed Stockham FFT of Thall, "Extended-Precision
 * Floating-Point Numbers for GPU Computation", 2007 (section III-D, Algorithm 8), the kernel twin of tmd_xfloat::fft::stockham_pass: one work-item per
 * butterfly, the same operations in the same order, so the same bits as the CPU. The host runs
 * log2 n passes, alternating two buffers, with the twiddle table W_long of
 * tmd_xfloat::fft::fill_twiddles (computed on the host, as Thall did, so that no kernel needs
 * extended-precision sine and cosine).
 *
 * Instantiated once per scalar type; the host defines (tmd_kernels::source):
 *   FFT(name)            the instance prefix: f32_name, f64_name, df64_name, dd_name
 *   FFT_WORD             the storage word, float or double
 *   FFT_WORDS            words per real scalar: 1, or 2 for double words
 *   FFT_T                the scalar type
 *   FFT_ADD, FFT_SUB, FFT_MUL   its arithmetic (double words: DW(add), DW(sub), DW(mul))
 *   FFT_LOAD(p, i), FFT_STORE(p, i, v)   scalar i of a word array
 * A complex element i occupies words [2 i FFT_WORDS, 2 (i + 1) FFT_WORDS): the real part's words,
 * then the imaginary part's (Thall's [re_hi, re_lo, im_hi, im_lo] texel for df64).
 */

typedef struct {
    FFT_T re;
    FFT_T im;
} FFT(complex_t);

DEVICE_FN FFT(complex_t) FFT(complex_load)(const GLOBAL_AS FFT_WORD *p, u64 i) {
    FFT(complex_t) z;
    z.re = FFT_LOAD(p, 2 * i);
    z.im = FFT_LOAD(p, 2 * i + 1);
    return z;
}

DEVICE_FN void FFT(complex_store)(GLOBAL_AS FFT_WORD *p, u64 i, FFT(complex_t) z) {
    FFT_STORE(p, 2 * i, z.re);
    FFT_STORE(p, 2 * i + 1, z.im);
}

/* tau = w y as (w.re y.re - w.im y.im) + (w.re y.im + w.im y.re) i (`Complex * Complex`). */
DEVICE_FN FFT(complex_t) FFT(complex_mul)(FFT(complex_t) w, FFT(complex_t) y) {
    FFT(complex_t) r;
    r.re = FFT_SUB(FFT_MUL(w.re, y.re), FFT_MUL(w.im, y.im));
    r.im = FFT_ADD(FFT_MUL(w.re, y.im), FFT_MUL(w.im, y.re));
    return r;
}

/* Pass with L* = 2^log2_l_half over n complex elements: for t < n/2, k = t / L*, j = t mod L*,
 * tau = W[L* + j - 1] Y[t + n/2], X[k L + j] = Y[t] + tau, X[k L + L* + j] = Y[t] - tau. */
KERNEL_FQ void FFT(stockham_pass)(const GLOBAL_AS FFT_WORD *y, GLOBAL_AS FFT_WORD *x,
                                  const GLOBAL_AS FFT_WORD *w, const u64 n,
                                  const u32 log2_l_half) {
    u64 t = GLOBAL_ID0;
    u64 half_n = n / 2;
    if (t >= half_n) {
        return;
    }
    u64 l_half = ((u64)1) << log2_l_half;
    u64 k = t >> log2_l_half;
    u64 j = t & (l_half - 1);
    FFT(complex_t) tau = FFT(complex_mul)(FFT(complex_load)(w, l_half + j - 1), FFT(complex_load)(y, t + half_n));
    FFT(complex_t) a = FFT(complex_load)(y, t);
    FFT(complex_t) sum, difference;
    sum.re = FFT_ADD(a.re, tau.re);
    sum.im = FFT_ADD(a.im, tau.im);
    difference.re = FFT_SUB(a.re, tau.re);
    difference.im = FFT_SUB(a.im, tau.im);
    u64 base = (2 * k) << log2_l_half;
    FFT(complex_store)(x, base + j, sum);
    FFT(complex_store)(x, base + l_half + j, difference);
}

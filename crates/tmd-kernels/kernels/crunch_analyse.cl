/*
 * crunch_analyse.cl: the binary64 target AND its error analysis on the device, so
 * that only the inputs the fast path cannot decide cross the bus. The kernel twin of
 * tmd_crunch::analysis::classify_fast and of the saturation rules of tmd_crunch::saturation,
 * written with the same f64 operations in the same order (contraction is off), so every
 * decision and every error value is the CPU's bit for bit.
 *
 * Appended after crunch.cl and the target. The host defines:
 *   CRUNCH_REFERENCE(x)       the double-double reference of f at x (dd_t), the very function
 *                             tmd-crunch uses on the CPU (RefFunc::dd), with relative bound
 *                             CRUNCH_EPS (2^-96);
 *   CRUNCH_OUTSIDE_DOMAIN(x)  1 where f(x) is NaN (RefFunc::outside_domain);
 *   CRUNCH_OVERFLOW_SIGN(x)   the sign of f beyond the overflow threshold (sinh: sign of x);
 *   CRUNCH_FAST_REFERENCE(x), CRUNCH_FAST_EPS   optionally, a cheaper first reference (dd_t)
 *                             and its bound, tried before CRUNCH_REFERENCE (exp:
 *                             crunch_fast_exp.cl, RefFunc::fast_f64 on the CPU).
 *
 * Each work-item crunches inputs lo + i for i = id, id + stride, ... and keeps its counts in
 * registers; at the end it adds them to the global counters (64-bit atomics). An input goes to
 * the host list (ordinal and result) when the device cannot decide it: a NaN or infinite
 * result, a reference below 2^-960 or near overflow, or a result within the reference's bound
 * of a rounding boundary (those go to MPFR on the host, as on the CPU). Inputs whose error may
 * be within the near-max window of the largest error seen so far go to the candidate list;
 * since the running maximum never exceeds the final one, the list holds every input the CPU's
 * summary would keep (see tmd_crunch::device). An input with an error below cand_floor is not
 * listed: a relaunch after an overflowing list passes a lower bound of the error the CPU's
 * list ends at (tmd_crunch::device::candidate_floor).
 */

/* Counter words (tmd_crunch::device::COUNT_WORDS): CRUNCH_HISTOGRAM_OFFSET and
 * CRUNCH_HISTOGRAM_BINS come from the host (tmd_kernels::layout). */
#define CW_CORRECT 0
#define CW_FAITHFUL 1
#define CW_WORSE 2
#define CW_NAN_EXPECTED 3
#define CW_NAN_WRONG 4
#define CW_OVERFLOW 5
#define CW_OVERFLOW_WRONG 6
#define CW_SUBNORMAL 7
#define CW_SUBNORMAL_WRONG 8
#define CW_DECIDED 9
#define CW_HISTOGRAM CRUNCH_HISTOGRAM_OFFSET
#define HISTOGRAM_BINS CRUNCH_HISTOGRAM_BINS

#define B64_PRECISION 53
#define B64_EMIN (-1022)

/* format::pow2 */
DEVICE_FN double ca_pow2(i32 e) {
    if (e >= -1022) {
        return TMD_BITS_DOUBLE(((u64)(e + 1023)) << 52);
    }
    return TMD_BITS_DOUBLE(((u64)1) << (e + 1074));
}

/* format::exponent: floor(log2 |x|), the leading bit's position for subnormals. */
DEVICE_FN i32 ca_exponent(double x) {
    u64 bits = TMD_DOUBLE_BITS(x) & (u64)0x7fffffffffffffff;
    i32 biased = (i32)(bits >> 52);
    if (biased == 0) {
        return 63 - (i32)TMD_CLZ64(bits) - 1074;
    }
    return biased - 1023;
}

/* CrunchFormat::from_ordinal for binary64 */
DEVICE_FN double ca_from_ordinal(i64 ord) {
    u64 mag = ord < 0 ? (u64)(-ord) : (u64)ord;
    double v = TMD_BITS_DOUBLE(mag);
    return ord < 0 ? -v : v;
}

DEVICE_FN i64 ca_ordinal(double x) {
    i64 mag = (i64)(TMD_DOUBLE_BITS(x) & (u64)0x7fffffffffffffff);
    return x < 0.0 ? -mag : mag;
}

/* analysis::histogram_bin_of */
DEVICE_FN int ca_bin(double err) {
    if (err < 1.0) {
        return 1;
    }
    int b = ca_exponent(err) + 2;
    return b < HISTOGRAM_BINS - 1 ? b : HISTOGRAM_BINS - 1;
}

/* analysis::fast_error_tolerance and near_max_window */
DEVICE_FN double ca_near_window(double m) {
    return 2.0 * (1.0 / 0x1p23 + m / 0x1p50);
}

/* Verdict codes */
#define V_UNDECIDED 0
#define V_CORRECT 1
#define V_FAITHFUL 2
#define V_WORSE 3

/* analysis::classify_fast for binary64: the class, *err and *subnormal, or V_UNDECIDED. */
DEVICE_FN int ca_classify_fast(double a, double rh, double rl, double eps, double *err_out,
                               int *subnormal) {
    double mag = fabs(rh);
    double max_finite = TMD_BITS_DOUBLE((u64)0x7fefffffffffffff);
    if (!(fabs(a) < INFINITY && fabs(rh) < INFINITY && mag > ca_pow2(-960) &&
          mag < max_finite * 0.5)) {
        return V_UNDECIDED;
    }
    double slack = 2.0 * eps * mag + fabs(rl);
    double low = mag - slack, high = mag + slack;
    i32 e = ca_exponent(mag);
    *subnormal = 0;
    if (ca_exponent(low) != e || ca_exponent(high) != e) {
        i32 k = ca_exponent(high);
        i32 ke = (k - 1) > B64_EMIN ? (k - 1) : B64_EMIN;
        double ulp_below = ca_pow2(ke - B64_PRECISION + 1);
        double sign_a = a > 0.0 ? 1.0 : (a < 0.0 ? -1.0 : (TMD_DOUBLE_BITS(a) >> 63 ? -1.0 : 1.0));
        double sign_r = rh > 0.0 ? 1.0 : (rh < 0.0 ? -1.0 : (TMD_DOUBLE_BITS(rh) >> 63 ? -1.0 : 1.0));
        if (fabs(a) != ca_pow2(k) || sign_a != sign_r || slack > ulp_below / 0x1p24) {
            return V_UNDECIDED;
        }
        *err_out = fabs((rh - a) + rl) / ulp_below;
        return V_CORRECT;
    }
    i32 ue = e > B64_EMIN ? e : B64_EMIN;
    double ulp = ca_pow2(ue - B64_PRECISION + 1);
    double d = (rh - a) + rl;
    double tol_abs = 2.0 * eps * mag + fabs(d) * (2.0 * 0x1p-52);
    double err = fabs(d) / ulp;
    double tol = tol_abs / ulp;
    int cls;
    if (err < 0.5 - tol) {
        cls = V_CORRECT;
    } else if (err <= 0.5 + tol) {
        return V_UNDECIDED;
    } else {
        i64 n = ca_ordinal(a) + (d > 0.0 ? 1 : -1);
        i64 max_ord = (i64)0x7fefffffffffffff;
        if (n > max_ord || n < -max_ord) {
            return V_UNDECIDED;
        }
        double gap = fabs(ca_from_ordinal(n) - a);
        if (fabs(d) < gap - tol_abs) {
            cls = V_FAITHFUL;
        } else if (fabs(d) > gap + tol_abs) {
            cls = V_WORSE;
        } else {
            return V_UNDECIDED;
        }
    }
    if (err >= 0.5 && ca_bin(err - tol) != ca_bin(err + tol)) {
        return V_UNDECIDED;
    }
    *subnormal = e < B64_EMIN;
    *err_out = err;
    return cls;
}

/* The counters of one work-item, indexed by constants only (so they stay in registers; the
 * histogram, indexed by the error's bin, lives in work-group memory instead: as a private
 * array it took a 416-byte stack frame in local memory, ptxas -v, sm_90). */
typedef struct {
    u64 w[CW_HISTOGRAM];
} ca_counts_t;

KERNEL_FQ void crunch_analyse(const i64 lo, const u64 n, const double eps,
                              const i32 has_overflow, const double overflow_from,
                              const i32 overflow_symmetric, const i32 has_tiny,
                              const double tiny_until, GLOBAL_AS u64 *counts,
                              GLOBAL_AS u64 *max_bits, GLOBAL_AS i64 *cand_ord,
                              GLOBAL_AS double *cand_err, const u32 cand_cap,
                              const double cand_floor, GLOBAL_AS u32 *cand_found,
                              GLOBAL_AS u64 *cand_sample, GLOBAL_AS i64 *host_ord,
                              GLOBAL_AS double *host_a, const u32 host_cap,
                              GLOBAL_AS u32 *host_found) {
    ca_counts_t c;
    for (int k = 0; k < CW_HISTOGRAM; k++) {
        c.w[k] = 0;
    }
    /* The work-group's histogram: 32-bit counts suffice (a launch crunches fewer than 2^32
     * inputs), added to the 64-bit global ones at the end. */
    LOCAL_ARRAY(u32, hist, HISTOGRAM_BINS);
    for (u32 k = LOCAL_ID0; k < HISTOGRAM_BINS; k += LOCAL_SIZE0) {
        hist[k] = 0;
    }
    LOCAL_BARRIER();
    double seen_max = TMD_BITS_DOUBLE(*max_bits);
    int list_full = 0;
    u64 stride = GLOBAL_SIZE0;
    for (u64 i = GLOBAL_ID0; i < n; i += stride) {
        i64 ord = lo + (i64)i;
        double x = ca_from_ordinal(ord);
        double a = crunch_target(x);
        int cls = V_UNDECIDED;
        int subnormal = 0;
        int has_err = 1;
        double err = 0.0;
        /* saturation::Saturation::judge */
        if (has_overflow && (overflow_symmetric ? fabs(x) >= overflow_from : x >= overflow_from)) {
            double sign = CRUNCH_OVERFLOW_SIGN(x);
            double max_finite = TMD_BITS_DOUBLE((u64)0x7fefffffffffffff);
            cls = a == sign * INFINITY ? V_CORRECT : (a == sign * max_finite ? V_FAITHFUL : V_WORSE);
            c.w[CW_OVERFLOW] += 1;
            c.w[CW_OVERFLOW_WRONG] += cls != V_CORRECT;
            has_err = 0;
        } else if (has_tiny && x <= tiny_until && a == 0.0) {
            cls = V_CORRECT;
            subnormal = 1;
        } else if (CRUNCH_OUTSIDE_DOMAIN(x)) {
            cls = a != a ? V_CORRECT : V_WORSE;
            c.w[CW_NAN_EXPECTED] += 1;
            c.w[CW_NAN_WRONG] += cls != V_CORRECT;
            has_err = 0;
        } else if (a == a) {
#ifdef CRUNCH_FAST_REFERENCE
            /* the cheap first reference, then the double-double one where it does not decide
             * (tmd_crunch::driver::verdict_binary64) */
            dd_t r1 = CRUNCH_FAST_REFERENCE(x);
            cls = ca_classify_fast(a, r1.hi, r1.lo, CRUNCH_FAST_EPS, &err, &subnormal);
            if (cls == V_UNDECIDED) {
                dd_t r = CRUNCH_REFERENCE(x);
                cls = ca_classify_fast(a, r.hi, r.lo, eps, &err, &subnormal);
            }
#else
            dd_t r = CRUNCH_REFERENCE(x);
            cls = ca_classify_fast(a, r.hi, r.lo, eps, &err, &subnormal);
#endif
        }
        if (cls == V_UNDECIDED) {
            u32 slot = TMD_ATOMIC_INC(host_found);
            if (slot < host_cap) {
                host_ord[slot] = ord;
                host_a[slot] = a;
            }
            continue;
        }
        c.w[CW_DECIDED] += 1;
        c.w[CW_CORRECT] += cls == V_CORRECT;
        c.w[CW_FAITHFUL] += cls == V_FAITHFUL;
        c.w[CW_WORSE] += cls == V_WORSE;
        if (subnormal) {
            c.w[CW_SUBNORMAL] += 1;
            c.w[CW_SUBNORMAL_WRONG] += cls != V_CORRECT;
        }
        if (!has_err) {
            continue;
        }
        TMD_ATOMIC_INC(&hist[cls == V_CORRECT ? 0 : ca_bin(err)]);
        /* The floor first: below it nothing is listed, and the shared maximum is not touched
         * (a relaunch after an overflow lists a few inputs without contending for it). */
        if (err >= cand_floor && err >= seen_max - 2.0 * ca_near_window(seen_max)) {
            u64 old = TMD_ATOMIC_MAX64(max_bits, TMD_DOUBLE_BITS(err));
            double now = TMD_BITS_DOUBLE(old);
            seen_max = now > err ? now : err;
            if (err >= seen_max - 2.0 * ca_near_window(seen_max)) {
                if (!list_full) {
                    u32 slot = TMD_ATOMIC_INC(cand_found);
                    if (slot < cand_cap) {
                        cand_ord[slot] = ord;
                        cand_err[slot] = err;
                    } else {
                        list_full = 1;
                    }
                }
                if (list_full) {
                    /* No room (and no more counting: the host needs to know only that the
                     * list overflowed): the largest error per bucket of a hash of the
                     * ordinal, stored as its bits + 1 so that 0 means empty. Bucket maxima
                     * are errors of distinct inputs near the top of the launch's; the host
                     * takes a floor for a relaunch from them
                     * (tmd_crunch::device::candidate_floor). */
                    u64 j = (((u64)ord * 0x9e3779b97f4a7c15UL) >> 17) % (u64)cand_cap;
                    TMD_ATOMIC_MAX64(&cand_sample[j], TMD_DOUBLE_BITS(err) + 1);
                }
            }
        }
    }
    for (int k = 0; k < CW_HISTOGRAM; k++) {
        if (c.w[k] != 0) {
            TMD_ATOMIC_ADD64(&counts[k], c.w[k]);
        }
    }
    LOCAL_BARRIER();
    for (u32 k = LOCAL_ID0; k < HISTOGRAM_BINS; k += LOCAL_SIZE0) {
        if (hist[k] != 0) {
            TMD_ATOMIC_ADD64(&counts[CW_HISTOGRAM + k], (u64)hist[k]);
        }
    }
}

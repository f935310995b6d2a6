/*
 * crunch_analyse.cl: a binary64 or binary32 target AND its error analysis on the device, so
 * that only the inputs the fast path cannot decide cross the bus. The kernel twin of
 * tmd_crunch::analysis::classify_fast, of the saturation rules of tmd_crunch::saturation
 * (binary64) and of the binary32 rules of tmd_crunch::analysis::quick_special, written with
 * the same f64 operations in the same order (contraction is off).
 *
 * The format: CRUNCH_REAL is double (binary64) or float (binary32, with CRUNCH_BINARY32
 * defined); the analysis arithmetic is in double either way (a float result widened exactly).
 * For binary64 every decision and every error value is the CPU's bit for bit (the reference
 * is the CPU's). For binary32 the CPU's reference is a binary64 value (the libm crate's, or
 * for sin, cos and tan the binary32-argument functions of binary32_trig.cl, which the device
 * shares) and the device's a double-double one for the other functions, so the error values
 * may differ in their last bits; the decisions (class, special class, histogram bin) are exact
 * either way and so the same (docs/error-analysis.md section 11).
 *
 * Appended after crunch.cl and the target. The host defines:
 *   CRUNCH_REFERENCE(x)       the double-double reference of f at x (dd_t): for binary64 the
 *                             very function tmd-crunch uses on the CPU (RefFunc::dd), for
 *                             binary32 the table's Crunch::binary32_device (for sin, cos and
 *                             tan a binary64 value with a zero low word); its relative bound
 *                             is the kernel's argument eps;
 *   CRUNCH_OUTSIDE_DOMAIN(x)  1 where f(x) is NaN (RefFunc::outside_domain);
 *   CRUNCH_OVERFLOW_SIGN(x)   the sign of f beyond the overflow threshold (sinh: sign of x);
 *   CRUNCH_FAST_REFERENCE(x), CRUNCH_FAST_EPS   optionally, a cheaper first reference (dd_t)
 *                             and its bound, tried before CRUNCH_REFERENCE (exp:
 *                             crunch_fast_exp.cl, RefFunc::fast_f64 on the CPU).
 *
 * Each work-item crunches inputs lo + i for i = id, id + stride, ... and keeps its counts in
 * registers; at the end it adds them to the global counters (64-bit atomics). An input goes to
 * the host list (ordinal and result) when the device cannot decide it: a NaN result, an
 * infinite one the overflow rules do not decide, a reference below 2^-960 or near overflow
 * (outside the saturation rules), or a result within the reference's bound
 * of a rounding boundary (those go to MPFR on the host, as on the CPU). Inputs whose error may
 * be within the near-max window of the largest error seen so far go to the candidate list;
 * since the running maximum never exceeds the final one, the list holds every input the CPU's
 * summary would keep (see tmd_crunch::device). An input with an error below cand_floor, or
 * equal to it at an ordinal from cand_tie_end on, is not listed: a relaunch after an
 * overflowing list passes a lower bound of the error the CPU's list ends at, and a cut of the
 * inputs tied at it (tmd_crunch::device::next_listing).
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
#define CW_WORSE_BELOW_ONE 10
#define CW_HISTOGRAM CRUNCH_HISTOGRAM_OFFSET
#define HISTOGRAM_BINS CRUNCH_HISTOGRAM_BINS

/* The format's precision, smallest normal exponent, largest finite number and its ordinal
 * (tmd_crunch::format::CrunchFormat). */
#ifdef CRUNCH_BINARY32
#define CA_PRECISION 24
#define CA_EMIN (-126)
#define CA_MAX_FINITE 0x1.fffffep+127
#define CA_MAX_ORDINAL ((i64)0x7f7fffff)
#else
#define CA_PRECISION 53
#define CA_EMIN (-1022)
#define CA_MAX_FINITE 0x1.fffffffffffffp+1023
#define CA_MAX_ORDINAL ((i64)0x7fefffffffffffff)
#endif

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

/* CrunchFormat::from_ordinal: the magnitude is the bit pattern of the format's number. */
DEVICE_FN double ca_from_ordinal(i64 ord) {
    u64 mag = ord < 0 ? (u64)(-ord) : (u64)ord;
#ifdef CRUNCH_BINARY32
    double v = (double)TMD_BITS_FLOAT((u32)mag);
#else
    double v = TMD_BITS_DOUBLE(mag);
#endif
    return ord < 0 ? -v : v;
}

/* CrunchFormat::ordinal of a number of the format (-0 is 0). */
DEVICE_FN i64 ca_ordinal(double x) {
#ifdef CRUNCH_BINARY32
    i64 mag = (i64)TMD_FLOAT_BITS((float)fabs(x));
#else
    i64 mag = (i64)(TMD_DOUBLE_BITS(x) & (u64)0x7fffffffffffffff);
#endif
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

/* analysis::sign_beyond: 1 when t > 0, 0 when t < 0, -1 when the margin does not decide. */
DEVICE_FN int ca_sign_beyond(double t, double ref_err) {
    double margin = ref_err + fabs(t) * (2.0 * 0x1p-52);
    if (fabs(t) > margin) {
        return t > 0.0 ? 1 : 0;
    }
    return -1;
}

/* analysis::classify_fast in round-to-nearest for the format: the class, *err and
 * *subnormal, or V_UNDECIDED. */
DEVICE_FN int ca_classify_fast(double a, double rh, double rl, double eps, double *err_out,
                               int *subnormal) {
    double mag = fabs(rh);
    if (!(fabs(a) < INFINITY && fabs(rh) < INFINITY && mag > ca_pow2(-960) &&
          mag < CA_MAX_FINITE * 0.5)) {
        return V_UNDECIDED;
    }
    double slack = 2.0 * eps * mag + fabs(rl);
    /* analysis::binade: the sides of 2^e0 and 2^(e0+1), in analysis::binade's order */
    i32 e0 = ca_exponent(mag);
    double sign_rh = rh > 0.0 ? 1.0 : -1.0;
    int below = ca_sign_beyond((mag - ca_pow2(e0)) + sign_rh * rl, 2.0 * eps * mag);
    int above = ca_sign_beyond((mag - ca_pow2(e0 + 1)) + sign_rh * rl, 2.0 * eps * mag);
    i32 e = e0;
    i32 k = 0;
    int straddles = 0;
    if (below == 0) {
        e = e0 - 1;
    } else if (below == 1 && above == 0) {
        e = e0;
    } else if (above == 1) {
        e = e0 + 1;
    } else {
        straddles = 1;
        k = below == -1 ? e0 : e0 + 1;
    }
    *subnormal = 0;
    if (straddles) {
        i32 ke = (k - 1) > CA_EMIN ? (k - 1) : CA_EMIN;
        double ulp_below = ca_pow2(ke - CA_PRECISION + 1);
        double sign_a = a > 0.0 ? 1.0 : (a < 0.0 ? -1.0 : (TMD_DOUBLE_BITS(a) >> 63 ? -1.0 : 1.0));
        double sign_r = rh > 0.0 ? 1.0 : (rh < 0.0 ? -1.0 : (TMD_DOUBLE_BITS(rh) >> 63 ? -1.0 : 1.0));
        if (fabs(a) != ca_pow2(k) || sign_a != sign_r || slack > ulp_below / 0x1p24) {
            return V_UNDECIDED;
        }
        /* the subnormal tag: below the smallest normal number if 2^k is, undecided at it */
        if (k == CA_EMIN) {
            return V_UNDECIDED;
        }
        *subnormal = k < CA_EMIN;
        *err_out = fabs((rh - a) + rl) / ulp_below;
        return V_CORRECT;
    }
    i32 ue = e > CA_EMIN ? e : CA_EMIN;
    double ulp = ca_pow2(ue - CA_PRECISION + 1);
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
        if (n > CA_MAX_ORDINAL || n < -CA_MAX_ORDINAL) {
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
    *subnormal = e < CA_EMIN;
    *err_out = err;
    return cls;
}

/* The binary32 rules of analysis::quick_special that come after the domain and NaN tests,
 * from the reference's leading word hi (results of binary32 rules) */
#define Q_NONE 0
#define Q_HOST 1     /* an infinite result where f is far below overflow: InfSpurious */
#define Q_OVERFLOW 2 /* RN(f) = +-inf with the sign of hi: overflow_verdict */
#define Q_ZERO 3     /* a zero result for |f| < 2^-959: tiny_result_verdict */

/* The CPU applies these with the binary64 libm value as hi (within 2^-50 relative), the
 * device with the double-double one (within eps <= 2^-90); each verdict is a function of the
 * true f, not of hi, wherever the rule fires (docs/error-analysis.md):
 *   Q_OVERFLOW: |hi| (1 - 2^-50) > MAX + ulp/2 implies |f| > MAX + ulp/2 for either reference,
 *     so RN(f) = +-inf; the class of overflow_verdict is classify_exact's for the CPU inputs
 *     whose libm value misses the rule (their f lies below 2^128, so RD or RU is the largest
 *     finite number). classify_fast never decides such an input: it needs |hi| < MAX / 2.
 *   Q_ZERO: |hi| < 2^-960 implies |f| < 2^-959; where the CPU's libm value is at or above
 *     2^-960 classify_fast decides the same class (correctly rounded) and special class
 *     (subnormal), with an error below 2^-800 where this rule says 0 (the report's maximum
 *     is recomputed by MPFR, and both fall in the correctly rounded bin).
 * Pole candidates (x = 0, +-1) skip both, as on the CPU. */
DEVICE_FN int ca_binary32_rule(double x, double a, double hi) {
    double mag = fabs(hi);
    if (fabs(a) == INFINITY && mag < INFINITY && mag < CA_MAX_FINITE * 0.5) {
        return Q_HOST;
    }
    if (x == 0.0 || fabs(x) == 1.0) {
        return Q_NONE;
    }
    /* MAX + ulp/2 = MAX + 2^103, exactly in double */
    if (mag == INFINITY || mag * (1.0 - 4.0 * 0x1p-52) > CA_MAX_FINITE + 0x1p+103) {
        return Q_OVERFLOW;
    }
    if (mag < ca_pow2(-960) && a == 0.0) {
        return Q_ZERO;
    }
    return Q_NONE;
}

/* analysis::overflow_verdict */
DEVICE_FN int ca_overflow_class(double sign, double a) {
    return a == sign * INFINITY ? V_CORRECT : (a == sign * CA_MAX_FINITE ? V_FAITHFUL : V_WORSE);
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
                              const double cand_floor, const i64 cand_tie_end,
                              GLOBAL_AS u32 *cand_found,
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
        double a = (double)crunch_target((CRUNCH_REAL)x);
        int cls = V_UNDECIDED;
        int subnormal = 0;
        int has_err = 1;
        double err = 0.0;
        /* saturation::Saturation::judge */
        if (has_overflow && (overflow_symmetric ? fabs(x) >= overflow_from : x >= overflow_from)) {
            cls = ca_overflow_class(CRUNCH_OVERFLOW_SIGN(x), a);
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
#if defined(CRUNCH_BINARY32)
            /* analysis::classify for binary32: quick_special's rules, then classify_fast */
            dd_t r = CRUNCH_REFERENCE(x);
            int rule = ca_binary32_rule(x, a, r.hi);
            if (rule == Q_OVERFLOW) {
                cls = ca_overflow_class(r.hi > 0.0 ? 1.0 : -1.0, a);
                c.w[CW_OVERFLOW] += 1;
                c.w[CW_OVERFLOW_WRONG] += cls != V_CORRECT;
                has_err = 0;
            } else if (rule == Q_ZERO) {
                cls = V_CORRECT;
                subnormal = 1;
            } else if (rule == Q_NONE) {
                cls = ca_classify_fast(a, r.hi, r.lo, eps, &err, &subnormal);
            }
#elif defined(CRUNCH_FAST_REFERENCE)
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
        /* the bin below 1 ulp holds faithful results and these; the gate tells them from
         * worse results without a finite error (summary::Summary::worse_below_one_ulp) */
        c.w[CW_WORSE_BELOW_ONE] += cls == V_WORSE && err < 1.0;
        /* The floor first: below it nothing is listed, and the shared maximum is not touched
         * (a relaunch after an overflow lists a few inputs without contending for it). */
        int above_floor = err > cand_floor || (err == cand_floor && ord < cand_tie_end);
        if (above_floor && err >= seen_max - 2.0 * ca_near_window(seen_max)) {
            /* The shared maximum only where this error would raise the item's view of it:
             * where a block's errors tie (every one 0, say) every input is a candidate, and
             * one atomic per input on one word serialises the launch. A stale view lists
             * more inputs, never fewer. */
            if (err > seen_max) {
                u64 old = TMD_ATOMIC_MAX64(max_bits, TMD_DOUBLE_BITS(err));
                double now = TMD_BITS_DOUBLE(old);
                seen_max = now > err ? now : err;
            }
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
                    u64 word = TMD_DOUBLE_BITS(err) + 1;
                    /* Bucket words only grow: one already at least this large needs no
                     * atomic (a stale read is smaller, and then the atomic runs). */
                    if (cand_sample[j] < word) {
                        TMD_ATOMIC_MAX64(&cand_sample[j], word);
                    }
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

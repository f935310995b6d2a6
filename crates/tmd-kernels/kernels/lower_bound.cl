/*
 * lower_bound.cl: the degree-1 lower-bound tests on 64-bit fractions, the kernel twin of
 * crates/tmd-search/src/lower_bound.rs (read its module essay for the mathematics: Lefevre's
 * test, PDP12 Alg. 1 with hybrid division, its swap form, Alg. 2; the regular test, TOMS16
 * Alg. 2, and its unrolled form, Alg. 4; with the corrected starts documented there). Each
 * function returns whether {b - a x} >= threshold is proven for every 0 <= x < n and writes
 * the main-loop iteration count, exactly as the Rust `test_*` functions do: same verdicts,
 * same counts, so the phase statistics of a device run equal the CPU's.
 */

/* LB_LEFEVRE, LB_LEFEVRE_SWAP, LB_REGULAR, LB_REGULAR_UNROLLED: tmd_kernels::layout. */

#define U64_MAX_VALUE 0xffffffffffffffffUL

/* q, r of dividend / divisor by up to max_sub subtractions, then a division; 0 when divisor
 * is 0 (the Rust None). */
DEVICE_FN int lb_hybrid_div_rem(u64 dividend, u64 divisor, u32 max_sub, u64 *q, u64 *r) {
    if (divisor == 0) {
        return 0;
    }
    u64 quotient = 0;
    u64 remainder = dividend;
    u32 tries_left = max_sub;
    while (remainder >= divisor) {
        if (tries_left == 0) {
            *q = quotient + remainder / divisor;
            *r = remainder % divisor;
            return 1;
        }
        remainder -= divisor;
        quotient += 1;
        tries_left -= 1;
    }
    *q = quotient;
    *r = remainder;
    return 1;
}

DEVICE_FN u64 lb_hybrid_rem(u64 dividend, u64 divisor, u32 max_sub) {
    u64 q, r;
    return lb_hybrid_div_rem(dividend, divisor, max_sub, &q, &r) ? r : 0;
}

DEVICE_FN u64 lb_sat_add(u64 a, u64 b) {
    u64 s = a + b;
    return s < a ? U64_MAX_VALUE : s;
}

DEVICE_FN u64 lb_sat_mul(u64 a, u64 b) {
    return (a != 0 && TMD_MUL_HI64(a, b) != 0) ? U64_MAX_VALUE : a * b;
}

DEVICE_FN u64 lb_add_multiple(u64 count, u64 quotient, u64 other) {
    return lb_sat_add(count, lb_sat_mul(quotient, other));
}

/* The result of a test: a bound (passes when distance >= threshold) or a failure. */
#define LB_PASS(distance) ((distance) >= threshold)

DEVICE_FN int lb_lefevre(u64 a, u64 b, u64 n, u64 threshold, u32 max_sub, u64 *iters) {
    *iters = 0;
    if (n == 0) return 1;
    if (a == 0) return LB_PASS(b);
    u64 p = a, q = (u64)0 - a, u = 1, v = 1, dist = b;
    if (dist < threshold) return 0;
    u64 it = 0;
    for (;;) {
        it += 1;
        *iters = it;
        u64 quotient, remainder;
        if (dist < p) {
            if (!lb_hybrid_div_rem(q, p, max_sub, &quotient, &remainder)) return LB_PASS(0);
            q = remainder;
            u = lb_add_multiple(u, quotient, v);
            if (lb_sat_add(u, v) >= n) return LB_PASS(dist);
            if (q == 0) return LB_PASS(dist);
            p -= q;
            v += u;
        } else {
            dist -= p;
            if (dist < threshold) return 0;
            if (!lb_hybrid_div_rem(p, q, max_sub, &quotient, &remainder)) return LB_PASS(0);
            p = remainder;
            v = lb_add_multiple(v, quotient, u);
            if (lb_sat_add(u, v) >= n) return LB_PASS(dist);
            if (p == 0) return LB_PASS(dist);
            q -= p;
            u += v;
        }
    }
}

DEVICE_FN int lb_lefevre_swap(u64 a, u64 b, u64 n, u64 threshold, u32 max_sub, u64 *iters) {
    *iters = 0;
    if (n == 0) return 1;
    if (a == 0) return LB_PASS(b);
    u64 x = a, y = (u64)0 - a, cx = 1, cy = 1, dist = b, t;
    if (dist < threshold) return 0;
    int swapped = dist >= x;
    if (swapped) {
        t = x; x = y; y = t;
        t = cx; cx = cy; cy = t;
    }
    u64 it = 0;
    for (;;) {
        it += 1;
        *iters = it;
        if (swapped) {
            dist -= y;
            if (dist < threshold) return 0;
        }
        u64 quotient, remainder;
        if (!lb_hybrid_div_rem(y, x, max_sub, &quotient, &remainder)) return LB_PASS(0);
        y = remainder;
        cx = lb_add_multiple(cx, quotient, cy);
        if (lb_sat_add(cx, cy) >= n) return LB_PASS(dist);
        if (y == 0) return LB_PASS(dist);
        x -= y;
        cy += cx;
        u64 p = swapped ? y : x;
        if (swapped != (dist >= p)) {
            t = x; x = y; y = t;
            t = cx; cx = cy; cy = t;
            swapped = !swapped;
        }
    }
}

/* TOMS16 Alg. 2 lines 1-3 (the first partial quotient), shared by both regular forms. */
DEVICE_FN void lb_regular_first_step(u64 a, u64 b, u32 max_sub, u64 *q, u64 *u, u64 *dist) {
    u64 quotient, remainder;
    if (!lb_hybrid_div_rem((u64)0 - a, a, max_sub, &quotient, &remainder)) {
        quotient = 0;
        remainder = 0;
    }
    *q = remainder;
    *u = lb_sat_add(quotient, 1);
    *dist = lb_hybrid_rem(b, a, max_sub);
}

DEVICE_FN int lb_regular(u64 a, u64 b, u64 n, u64 threshold, u32 max_sub, u64 *iters) {
    *iters = 0;
    if (n == 0) return 1;
    if (a == 0) return LB_PASS(b);
    if (b < threshold) return 0;
    u64 p = a, v = 1, q, u, dist;
    lb_regular_first_step(a, b, max_sub, &q, &u, &dist);
    u64 it = 1;
    u64 points = lb_sat_add(u, v);
    while (points < n) {
        it += 1;
        u64 quotient, remainder;
        if (p < q) {
            if (!lb_hybrid_div_rem(q, p, max_sub, &quotient, &remainder)) {
                *iters = it;
                return LB_PASS(dist);
            }
            q = remainder;
            u = lb_add_multiple(u, quotient, v);
            dist = lb_hybrid_rem(dist, p, max_sub);
        } else {
            if (!lb_hybrid_div_rem(p, q, max_sub, &quotient, &remainder)) {
                *iters = it;
                return LB_PASS(dist);
            }
            p = remainder;
            v = lb_add_multiple(v, quotient, u);
            if (dist >= p) {
                dist = lb_hybrid_rem(dist - p, q, max_sub);
            }
        }
        points = lb_sat_add(u, v);
    }
    *iters = it;
    return LB_PASS(dist);
}

DEVICE_FN int lb_regular_unrolled(u64 a, u64 b, u64 n, u64 threshold, u32 max_sub, u64 *iters) {
    *iters = 0;
    if (n == 0) return 1;
    if (a == 0) return LB_PASS(b);
    u64 p = a, v = 1, q, u, dist;
    lb_regular_first_step(a, b, max_sub, &q, &u, &dist);
    u64 it = 1;
    for (;;) {
        u64 quotient, remainder;
        *iters = it;
        if (lb_sat_add(u, v) >= n) return LB_PASS(dist);
        it += 1;
        *iters = it;
        if (!lb_hybrid_div_rem(p, q, max_sub, &quotient, &remainder)) return LB_PASS(dist);
        p = remainder;
        v = lb_add_multiple(v, quotient, u);
        if (dist >= p) {
            dist = lb_hybrid_rem(dist - p, q, max_sub);
        }
        if (lb_sat_add(u, v) >= n) return LB_PASS(dist);
        it += 1;
        *iters = it;
        if (!lb_hybrid_div_rem(q, p, max_sub, &quotient, &remainder)) return LB_PASS(dist);
        q = remainder;
        u = lb_add_multiple(u, quotient, v);
        dist = lb_hybrid_rem(dist, p, max_sub);
    }
}

/* lower_bound::short_orbit_distance: d_N exactly when the n points {a x} do not go round the
 * circle (min(a, 1 - a) (n - 1) < 1); returns 0 when that does not hold. */
DEVICE_FN int lb_short_orbit(u64 a, u64 b, u64 n, u64 *distance) {
    if (n == 0 || a == 0) return 0;
    u64 steps = n - 1;
    /* One multiplication decides the usual case (neither side within a turn). */
    u64 small = a < (u64)0 - a ? a : (u64)0 - a;
    if (TMD_MUL_HI64(small, steps) != 0) return 0;
    if (TMD_MUL_HI64(a, steps) == 0) {
        u64 fall = a * steps;
        *distance = fall <= b ? b - fall : b % a;
        return 1;
    }
    u64 rise = (u64)0 - a;
    if (TMD_MUL_HI64(rise, steps) == 0) {
        u64 climb = rise * steps;
        if (climb <= U64_MAX_VALUE - b) {
            *distance = b;
            return 1;
        }
        /* (2^64 - b) mod rise, with 2^64 - b = (U64_MAX - b) + 1 (b > 0 here: b = 0 never
         * reaches 1). */
        u64 past = ((U64_MAX_VALUE - b) % rise + 1) % rise;
        *distance = past == 0 ? 0 : rise - past;
        return 1;
    }
    return 0; /* not reached: small is a or rise */
}

DEVICE_FN int lb_test(i32 algorithm, u64 a, u64 b, u64 n, u64 threshold, u32 max_sub,
                      u64 *iters) {
    u64 short_distance;
    if (lb_short_orbit(a, b, n, &short_distance)) {
        *iters = 1;
        return short_distance >= threshold;
    }
    switch (algorithm) {
    case LB_LEFEVRE: return lb_lefevre(a, b, n, threshold, max_sub, iters);
    case LB_LEFEVRE_SWAP: return lb_lefevre_swap(a, b, n, threshold, max_sub, iters);
    case LB_REGULAR: return lb_regular(a, b, n, threshold, max_sub, iters);
    default: return lb_regular_unrolled(a, b, n, threshold, max_sub, iters);
    }
}

/*
 * filter.cl: phases 1-3 of the filtered search over packets of domains, the kernel twin of
 * crates/tmd-search/src/filter/phases.rs (docs/error-analysis.md section 4 proves the bounds).
 * One work-item runs one sub-packet: ITEM_DOMAINS (a multiple of 32, host-defined; 32 by
 * default) consecutive domains of a packet.
 * It loads the packet's exact tables of r0, r1, r2 (128-bit fractions, computed on the host),
 * jumps them to its first domain (jump_table: the s-step tabulated-difference update in closed
 * form, bit-identical to s single steps), steps them by tabulated differences (additions
 * only), and for each domain runs the affine test (phase 1), on failure the kappa subdomains
 * (phase 2) and on their failure the exhaustive evaluation (phase 3). Splitting packets keeps
 * the host's exact table set-ups few (one per packet of up to 2^16 domains) while giving the
 * device one work-item per ITEM_DOMAINS domains instead of one per packet. Candidates go to
 * a global list through an atomic counter (the host sorts them); per-sub-packet statistics
 * (domains and arguments in and failed per phase, and the value of each NMDM group of 32
 * domains) are folded per packet in the CPU's order (fold_packet_stats below), so they equal
 * the CPU's.
 *
 * With algorithm < 0 every domain goes to phase 3 (the fast exhaustive search).
 */

/* MAX_DEGREE, STATS_WORDS, NMDM_GROUP, DEFER_WORDS, FOLD_GROUP, FOLD_MAX_GROUPS, SCAN_GROUP,
 * SCAN_PER_ITEM, WARP_WIDTH, WARP_NMDM_GROUP and WARP_NMDM_WORDS come from the host as -D
 * options (tmd_kernels::layout; vendor.h checks them). */
#define TABLE_LEN (MAX_DEGREE + 1)

/* The degrees of the r0, r1, r2 tables this program is built for (the host prepends
 * `#define TABLE_DEGREE d`, one program per d; tmd_kernels::Id::Filter). Constant degrees let
 * the compiler unroll every table loop and keep the tables in registers: with run-time
 * degrees they were arrays indexed at run time, which NVRTC put in a 1600-byte stack frame in
 * local memory (ptxas -v, sm_90). The host's tables are zero beyond their degrees, and a
 * degree-d table stepped or jumped as one of a higher degree with zero entries gives the same
 * bits (the extra terms add 0 mod 2^128), so the host picks any TABLE_DEGREE with
 * d0 <= TD0, d1 <= TD1, d2 <= TD2. */
#ifndef TABLE_DEGREE
#define TABLE_DEGREE MAX_DEGREE
#endif
/* SPLIT_PHASES 1 (host-defined, like TABLE_DEGREE): filter_packets marks the domains failing
 * phase 1 in fail_masks for the split pipeline (gather_phase1_failures, phase2_deferred, ...
 * below); 0: it runs phases 2 and 3 inline. A program of its own per choice, so that the
 * split phase-1 kernel carries none of the inline code's registers (157 instead of 166 at
 * degree 6, sm_90, ptxas -v, before the register cap below). */
#ifndef SPLIT_PHASES
#define SPLIT_PHASES 0
#endif
#define TD0 TABLE_DEGREE
#define TD1 (TABLE_DEGREE > 1 ? TABLE_DEGREE - 1 : 0)
#define TD2 (TABLE_DEGREE > 2 ? TABLE_DEGREE - 2 : 0)
/* Domains per work-item (`--domains-per-item`), a multiple of the NMDM group: ITEM_GROUPS
 * groups of 32, and as many 32-bit words of phase-1 failure mask. A work-item's statistics
 * record has the 15 count words of a packet's, then the NMDM value of each of its groups
 * (ITEM_RECORD_WORDS in all), so that the fold adds the groups one by one as the CPU does. */
#ifndef ITEM_DOMAINS
#define ITEM_DOMAINS 32
#endif
#define ITEM_GROUPS (ITEM_DOMAINS / NMDM_GROUP)
#define MASK_WORDS (ITEM_DOMAINS / 32)
#define ITEM_RECORD_WORDS (STATS_WORDS - 1 + ITEM_GROUPS)
/* A group without an NMDM value (no loop iteration): -1.0, below every value. */
#define NO_NMDM_VALUE 0xbff0000000000000UL

typedef struct {
    u64 lo;
    u64 hi;
} u128_t;

DEVICE_FN u128_t u128_make(u64 lo, u64 hi) {
    u128_t r;
    r.lo = lo;
    r.hi = hi;
    return r;
}

DEVICE_FN u128_t u128_add(u128_t a, u128_t b) {
    u128_t r;
    u32 carry;
    r.lo = tmd_add_carry(a.lo, b.lo, 0, &carry);
    r.hi = tmd_add_carry(a.hi, b.hi, carry, &carry);
    return r;
}

DEVICE_FN u128_t u128_sub(u128_t a, u128_t b) {
    u128_t r;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo ? 1 : 0);
    return r;
}

/* a * m modulo 2^128. */
DEVICE_FN u128_t u128_mul64(u128_t a, u64 m) {
    u128_t r;
    r.lo = a.lo * m;
    r.hi = TMD_MUL_HI64(a.lo, m) + a.hi * m;
    return r;
}

DEVICE_FN int u128_lt(u128_t a, u128_t b) {
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

/* What the host passes about the domains of a chunk (DomainPlan). */
/* What phases 2 and 3 need of the host's plan (phase 1 takes its arguments directly). */
typedef struct {
    u64 n;
    u64 kappa;
    i32 algorithm;
    u32 division_threshold;
    u64 base2;  /* affine_base64(plan, n / kappa) */
    u128_t threshold3;
} plan_t;

DEVICE_FN plan_t plan_make(u64 n, u64 kappa, i32 algorithm, u32 division_threshold, u64 base2,
                           u64 threshold3_lo, u64 threshold3_hi) {
    plan_t plan;
    plan.n = n;
    plan.kappa = kappa;
    plan.algorithm = algorithm;
    plan.division_threshold = division_threshold;
    plan.base2 = base2;
    plan.threshold3 = u128_make(threshold3_lo, threshold3_hi);
    return plan;
}

/* Counts of one work-item: 32-bit words suffice (at most ITEM_DOMAINS <= 128 domains of at most
 * 2^24 arguments, or one deferred domain) and take half the registers of 64-bit ones; they
 * are widened when written out. */
typedef struct {
    u32 w[STATS_WORDS];
    /* the open NMDM group */
    u32 group_len;
    u32 group_total;
    u32 group_max;
    /* where filter_packets records each closed group's value, and how many it has closed */
    GLOBAL_AS u64 *group_values;
    u32 groups_closed;
} stats_t;

DEVICE_FN void stats_zero(stats_t *s) {
    for (int k = 0; k < STATS_WORDS; k++) {
        s->w[k] = 0;
    }
    s->group_len = 0;
    s->group_total = 0;
    s->group_max = 0;
    s->group_values = 0;
    s->groups_closed = 0;
}

/* stats words: 0-3 phase 1, 4-7 phase 2, 8-11 phase 3 (domains in, args in, domains failed,
 * args failed); 12 NMDM groups, 13 iterations, 14 domains; 15 the NMDM sum's bits. */
DEVICE_FN void stats_enter(stats_t *s, int phase, u64 domains, u64 args) {
    s->w[4 * phase] += (u32)domains;
    s->w[4 * phase + 1] += (u32)args;
}

DEVICE_FN void stats_fail(stats_t *s, int phase, u64 domains, u64 args) {
    s->w[4 * phase + 2] += (u32)domains;
    s->w[4 * phase + 3] += (u32)args;
}

/* Nmdm::add_group of stats.rs. */
DEVICE_FN void stats_close_group(stats_t *s) {
    if (s->group_len == 0) {
        return;
    }
    s->w[13] += s->group_total;
    s->w[14] += s->group_len;
    u64 value = NO_NMDM_VALUE;
    if (s->group_max > 0) {
        double mean = (double)s->group_total / (double)s->group_len;
        value = TMD_DOUBLE_BITS(1.0 - mean / (double)s->group_max);
        s->w[12] += 1;
    }
    if (s->group_values) {
        s->group_values[s->groups_closed] = value;
    }
    s->groups_closed += 1;
    s->group_len = 0;
    s->group_total = 0;
    s->group_max = 0;
}

DEVICE_FN void stats_iterations(stats_t *s, u64 iterations64) {
    u32 iterations = (u32)iterations64;
    s->group_len += 1;
    s->group_total += iterations;
    s->group_max = iterations > s->group_max ? iterations : s->group_max;
    if (s->group_len == NMDM_GROUP) {
        stats_close_group(s);
    }
}

/* affine_eps64 of phases.rs: base + ceil(|r2| chord 2^64) where |r2| < 2^-64, else
 * base + (top64(|r2|) + 1) * chord; 0 (fail) from 2^62 on. */
DEVICE_FN u64 affine_eps64(u64 base, u128_t r2, u64 chord) {
    u128_t magnitude = r2;
    if (r2.hi >> 63) {
        magnitude = u128_sub(u128_make(0, 0), r2);
    }
    if (magnitude.hi == 0) {
        u64 low = magnitude.lo * chord;
        u64 term = TMD_MUL_HI64(magnitude.lo, chord) + (low != 0);
        u64 total = term + base;
        if (total < term || total >= ((u64)1 << 62)) {
            return 0;
        }
        return total;
    }
    u64 m = magnitude.hi + 1;
    u64 lo = m * chord;
    u64 hi = TMD_MUL_HI64(m, chord);
    u64 sum = lo + base;
    if (hi != 0 || sum < lo || sum >= ((u64)1 << 62)) {
        return 0;
    }
    return sum;
}

/* affine_test of phases.rs: (passed, iterations) for P(x) = r0 + r1 x + r2 binom(x, 2). */
DEVICE_FN int affine_test(u64 n, u64 base, i32 algorithm, u32 division_threshold, u128_t r0,
                          u128_t r1, u128_t r2, u64 len, u64 *iterations) {
    u64 slope = (n - 2) / 2;
    u64 n1 = n - 1;
    u64 offset = n1 * n1 / 16;
    u128_t a = u128_add(r1, u128_mul64(r2, slope));
    u128_t c = u128_sub(r0, u128_mul64(r2, offset));
    u64 chord = (n1 * n1 + 15) / 16 + 1;
    u64 eps64 = affine_eps64(base, r2, chord);
    *iterations = 0;
    if (eps64 == 0) {
        return 0;
    }
    u64 b = c.hi + eps64;
    return lb_test(algorithm, (u64)0 - a.hi, b, len, 2 * eps64, division_threshold, iterations);
}

/* Phase 3 over len points from offset start: v = P(y), d = P(y+1) - P(y). */
DEVICE_FN void phase3(const plan_t *plan, u128_t r0, u128_t r1, u128_t r2, u64 start, u64 len,
                      stats_t *stats, GLOBAL_AS u64 *candidates, u32 capacity,
                      GLOBAL_AS u32 *found) {
    u128_t threshold = plan->threshold3;
    /* saturating 2 * threshold */
    u128_t window = (threshold.hi >> 63) ? u128_make(~(u64)0, ~(u64)0)
                                         : u128_make(threshold.lo << 1,
                                                     (threshold.hi << 1) | (threshold.lo >> 63));
    int everything = threshold.hi >= ((u64)1 << 62);
    u128_t v = r0, d = r1;
    u64 hits = 0;
    for (u64 y = 0; y < len; y++) {
        if (everything || u128_lt(u128_add(v, threshold), window)) {
            u32 slot = TMD_ATOMIC_INC(found);
            if (slot < capacity) {
                candidates[slot] = start + y;
            }
            hits += 1;
        }
        v = u128_add(v, d);
        d = u128_add(d, r2);
    }
    stats_enter(stats, 2, 1, len);
    stats_fail(stats, 2, hits > 0 ? 1 : 0, hits);
}

/* Work deferred to a later kernel (the split pipeline): a subdomain as 8 words, start, len,
 * r0, r1, r2 (lo, hi), written to the next free slot of the deferring work-item's own region
 * (no atomics: the host compacts the regions by a prefix sum of the slots used). capacity 0:
 * no deferral, the next phase runs inline. DEFER_WORDS is the host's. */

typedef struct {
    GLOBAL_AS u64 *items;
    u32 capacity;
    u32 used;
} defer_t;

DEVICE_FN void defer_write(GLOBAL_AS u64 *w, u64 start, u64 len, u128_t r0, u128_t r1,
                           u128_t r2) {
    w[0] = start;
    w[1] = len;
    w[2] = r0.lo;
    w[3] = r0.hi;
    w[4] = r1.lo;
    w[5] = r1.hi;
    w[6] = r2.lo;
    w[7] = r2.hi;
}

DEVICE_FN void defer_push(defer_t *d, u64 start, u64 len, u128_t r0, u128_t r1, u128_t r2) {
    u32 slot = d->used++;
    if (slot < d->capacity) {
        defer_write(d->items + (u64)slot * DEFER_WORDS, start, len, r0, r1, r2);
    }
}

/* Phase 2: kappa subdomains, each re-centred exactly and tested with its own chord; failing
 * subdomains go to phase 3 inline, or to `later` for the phase-3 kernel. */
DEVICE_FN void phase2(const plan_t *plan, u128_t r0, u128_t r1, u128_t r2, u64 start, u64 len,
                      stats_t *stats, GLOBAL_AS u64 *candidates, u32 capacity,
                      GLOBAL_AS u32 *found, defer_t *later) {
    u64 m = plan->n / plan->kappa;
    if (m < 1) m = 1;
    for (u64 s = 0; s < len; s += m) {
        u64 sub_len = m < len - s ? m : len - s;
        u64 binom_s = s == 0 ? 0 : s * (s - 1) / 2;
        u128_t r0s = u128_add(u128_add(r0, u128_mul64(r1, s)), u128_mul64(r2, binom_s));
        u128_t r1s = u128_add(r1, u128_mul64(r2, s));
        stats_enter(stats, 1, 1, sub_len);
        u64 iterations;
        int passed = m >= 8 && affine_test(m, plan->base2, plan->algorithm,
                                           plan->division_threshold, r0s, r1s, r2, sub_len,
                                           &iterations);
        if (!passed) {
            stats_fail(stats, 1, 1, sub_len);
            if (later->capacity > 0) {
                defer_push(later, start + s, sub_len, r0s, r1s, r2);
            } else {
                phase3(plan, r0s, r1s, r2, start + s, sub_len, stats, candidates, capacity,
                       found);
            }
        }
    }
}

/* a * b modulo 2^128. */
DEVICE_FN u128_t u128_mul(u128_t a, u128_t b) {
    u128_t r;
    r.lo = a.lo * b.lo;
    r.hi = TMD_MUL_HI64(a.lo, b.lo) + a.lo * b.hi + a.hi * b.lo;
    return r;
}

/* binom[k] = C(s, k) modulo 2^128 for k = 0..kmax. The exact values (below 2^305 for
 * s < 2^16 = MAX_PACKET_DOMAINS of the host, k <= 24: C(s, k) < s^k / k!) are built in 384
 * bits (BINOM_LIMBS 32-bit limbs) by C(s, k) = C(s, k - 1) (s - k + 1) / k, each division
 * exact; every intermediate product C(s, k - 1) (s - k + 1) = k C(s, k) fits as well. */
#define BINOM_LIMBS 12
DEVICE_FN void binomials_mod128(u64 s, i32 kmax, u128_t *binom) {
    u32 limb[BINOM_LIMBS];
    limb[0] = 1;
    for (int i = 1; i < BINOM_LIMBS; i++) {
        limb[i] = 0;
    }
    binom[0] = u128_make(1, 0);
#pragma unroll
    for (i32 k = 1; k <= kmax; k++) {
        if ((u64)k > s) {
            binom[k] = u128_make(0, 0);
            continue;
        }
        u64 factor = s - (u64)k + 1;
        u64 carry = 0;
        for (int i = 0; i < BINOM_LIMBS; i++) {
            u64 t = (u64)limb[i] * factor + carry;
            limb[i] = (u32)t;
            carry = t >> 32;
        }
        u64 rem = 0;
        for (int i = BINOM_LIMBS - 1; i >= 0; i--) {
            u64 t = (rem << 32) | (u64)limb[i];
            limb[i] = (u32)(t / (u64)k);
            rem = t % (u64)k;
        }
        binom[k] = u128_make((u64)limb[0] | ((u64)limb[1] << 32),
                             (u64)limb[2] | ((u64)limb[3] << 32));
    }
}

/* s steps of `advance` at once: t_l <- sum_k C(s, k) t_(l+k) modulo 2^128, the closed form of
 * the difference recurrence t_l(i + 1) = t_l(i) + t_(l+1)(i); in place in increasing l (each
 * new t_l reads only t_l.. t_degree, not yet updated). Additions modulo 2^128 are what the
 * steps do, so the result is the same bits. */
DEVICE_FN void jump_table(u128_t *table, i32 degree, const u128_t *binom) {
#pragma unroll
    for (i32 l = 0; l < degree; l++) {
        u128_t acc = table[l];
#pragma unroll
        for (i32 k = 1; k <= degree - l; k++) {
            acc = u128_add(acc, u128_mul(binom[k], table[l + k]));
        }
        table[l] = acc;
    }
}

DEVICE_FN void advance(u128_t *table, i32 degree) {
#pragma unroll
    for (i32 l = 0; l < degree; l++) {
        table[l] = u128_add(table[l], table[l + 1]);
    }
}

/* The tables of sub-packet `skip / ITEM_DOMAINS` of packet p: the packet's, loaded and
 * jumped `skip` domains ahead; *first and *count: its first domain and how many it runs. */
DEVICE_FN void subpacket_tables(const GLOBAL_AS u64 *tables, const GLOBAL_AS u64 *firsts,
                                const GLOBAL_AS u64 *counts, u64 p, u64 skip, u128_t *t0,
                                u128_t *t1, u128_t *t2, u64 *first, u64 *count) {
    const GLOBAL_AS u64 *mine = tables + p * 3 * TABLE_LEN * 2;
#pragma unroll
    for (int l = 0; l <= TD0; l++) {
        t0[l] = u128_make(mine[2 * l], mine[2 * l + 1]);
    }
#pragma unroll
    for (int l = 0; l <= TD1; l++) {
        t1[l] = u128_make(mine[2 * (TABLE_LEN + l)], mine[2 * (TABLE_LEN + l) + 1]);
    }
#pragma unroll
    for (int l = 0; l <= TD2; l++) {
        t2[l] = u128_make(mine[2 * (2 * TABLE_LEN + l)], mine[2 * (2 * TABLE_LEN + l) + 1]);
    }
    *first = firsts[p] + skip;
    u64 c = counts[p] > skip ? counts[p] - skip : 0;
    *count = c < ITEM_DOMAINS ? c : ITEM_DOMAINS;
    if (skip > 0 && *count > 0) {
        u128_t binom[TD0 + 1];
        binomials_mod128(skip, TD0, binom);
        jump_table(t0, TD0, binom);
        jump_table(t1, TD1, binom);
        jump_table(t2, TD2, binom);
    }
}

/* At most 96 registers per work-item on CUDA: the kernel wants about 160 (tables of degree 6
 * and the jump's 384-bit binomials), which leaves 12 warps per multiprocessor to hide the
 * latency of the lower-bound loop's 64-bit divisions; capped, 20 warps fit, and the spills
 * (mostly the once-per-work-item jump) cost less than that gains (docs/BENCHMARKS.md). */
#define FILTER_MAX_REGISTERS 96
KERNEL_FQ void KERNEL_MAX_REGISTERS(FILTER_MAX_REGISTERS) filter_packets(const GLOBAL_AS u64 *tables, const GLOBAL_AS u64 *firsts,
                              const GLOBAL_AS u64 *counts, const u64 packets,
                              const u64 chunk_len, const u64 n, const u64 kappa,
                              const i32 algorithm, const u32 division_threshold,
                              const u64 base1, const u64 base2, const u64 threshold3_lo,
                              const u64 threshold3_hi, const u64 subpackets,
                              GLOBAL_AS u64 *candidates, const u32 capacity,
                              GLOBAL_AS u32 *found, GLOBAL_AS u64 *stats_out,
                              GLOBAL_AS u32 *fail_masks,
                              GLOBAL_AS u32 *lane_iterations) {
    u64 g = GLOBAL_ID0;
    if (g >= packets * subpackets) {
        return;
    }
    u64 p = g / subpackets;
    u64 skip = (g % subpackets) * ITEM_DOMAINS;
    plan_t plan = plan_make(n, kappa, algorithm, division_threshold, base2, threshold3_lo,
                            threshold3_hi);

    u128_t t0[TD0 + 1], t1[TD1 + 1], t2[TD2 + 1];
    u64 first, count;
    subpacket_tables(tables, firsts, counts, p, skip, t0, t1, t2, &first, &count);
    stats_t stats;
    stats_zero(&stats);
    GLOBAL_AS u64 *out = stats_out + g * ITEM_RECORD_WORDS;
    stats.group_values = out + STATS_WORDS - 1;

    /* Unsplit, phases 2 and 3 run inline (`inline3`: no deferral); split, the domains failing
     * phase 1 are marked in fail_masks for gather_phase1_failures. */
    defer_t inline3;
    inline3.items = candidates;
    inline3.capacity = 0;
    inline3.used = 0;
    u32 fail_mask = 0; /* the current 32 domains' word of the mask */
    /* Per step k of this work-item: 1 + the phase-1 loop iterations of its k-th domain, 0 when
     * it has none (read by warp_nmdm). Stored step-major, entry k * items + g, so that the
     * stores of a warp at one step are contiguous. */
    u64 items = packets * subpackets;
    for (u64 k = count; k < ITEM_DOMAINS; k++) {
        lane_iterations[k * items + g] = 0;
    }
    for (u64 i = first; i < first + count; i++) {
        u32 lane_value = 0;
        u64 start = i * n;
        u64 len = n < chunk_len - start ? n : chunk_len - start;
        u128_t r0 = t0[0], r1 = t1[0], r2 = t2[0];
        if (algorithm >= 0 && n >= 8) {
            stats_enter(&stats, 0, 1, len);
            u64 iterations;
            int passed = affine_test(n, base1, algorithm, division_threshold, r0, r1, r2, len,
                                     &iterations);
            stats_iterations(&stats, iterations);
            lane_value = (u32)(iterations + 1);
            if (!passed) {
                stats_fail(&stats, 0, 1, len);
#if SPLIT_PHASES
                /* split pipeline: phase 2 runs in its own kernel */
                fail_mask |= (u32)1 << ((i - first) % 32);
#else
                phase2(&plan, r0, r1, r2, start, len, &stats, candidates, capacity, found,
                       &inline3);
#endif
            }
        } else {
            phase3(&plan, r0, r1, r2, start, len, &stats, candidates, capacity, found);
        }
        lane_iterations[(i - first) * items + g] = lane_value;
#if SPLIT_PHASES
        if ((i - first) % 32 == 31 || i + 1 == first + count) {
            fail_masks[g * MASK_WORDS + (i - first) / 32] = fail_mask;
            fail_mask = 0;
        }
#endif
        advance(t0, TD0);
        advance(t1, TD1);
        advance(t2, TD2);
    }
    stats_close_group(&stats);
#if SPLIT_PHASES
    /* the mask words of domains past the packet's end */
    for (u64 word = (count + 31) / 32; word < MASK_WORDS; word++) {
        fail_masks[g * MASK_WORDS + word] = 0;
    }
#endif
    for (u32 q = stats.groups_closed; q < ITEM_GROUPS; q++) {
        out[STATS_WORDS - 1 + q] = NO_NMDM_VALUE;
    }
    for (int k = 0; k < STATS_WORDS - 1; k++) {
        out[k] = stats.w[k];
    }
}

/* The statistics of each packet from those of its sub-packets, in the CPU's order: one
 * work-group of FOLD_GROUP work-items per packet. The count words are integer sums (any order
 * gives the same bits): each work-item adds those of sub-packets t, t + FOLD_GROUP, ... (so a
 * group reads consecutive records, coalesced), then the group adds its partial sums by halves.
 * The NMDM sum is a double sum that must follow Nmdm::add_group's order along the packet: the
 * groups' values are staged in work-group memory and one work-item adds them in order. (One
 * work-item per packet reading every record in turn took milliseconds per chunk: a packet has
 * up to FOLD_MAX_GROUPS groups.) Keeps the transfer back to the host at one record per
 * packet. */
KERNEL_FQ void fold_packet_stats(const GLOBAL_AS u64 *sub_stats, const u64 packets,
                                 const u64 subpackets, GLOBAL_AS u64 *stats_out) {
    LOCAL_ARRAY(u64, partial, FOLD_GROUP);
    LOCAL_ARRAY(double, values, FOLD_MAX_GROUPS);
    u64 p = GROUP_ID0;
    u32 t = LOCAL_ID0;
    u64 w[STATS_WORDS - 1];
#pragma unroll
    for (int k = 0; k < STATS_WORDS - 1; k++) {
        w[k] = 0;
    }
    if (p < packets) {
        for (u64 j = t; j < subpackets; j += FOLD_GROUP) {
            const GLOBAL_AS u64 *in = sub_stats + (p * subpackets + j) * ITEM_RECORD_WORDS;
#pragma unroll
            for (int k = 0; k < STATS_WORDS - 1; k++) {
                w[k] += in[k];
            }
            /* NO_NMDM_VALUE (-1) for a group without a value, which adds nothing */
#pragma unroll
            for (int q = 0; q < ITEM_GROUPS; q++) {
                values[j * ITEM_GROUPS + q] = TMD_BITS_DOUBLE(in[STATS_WORDS - 1 + q]);
            }
        }
    }
    GLOBAL_AS u64 *out = stats_out + p * STATS_WORDS;
#pragma unroll
    for (int k = 0; k < STATS_WORDS - 1; k++) {
        partial[t] = w[k];
        LOCAL_BARRIER();
        for (u32 span = FOLD_GROUP / 2; span > 0; span >>= 1) {
            if (t < span) {
                partial[t] += partial[t + span];
            }
            LOCAL_BARRIER();
        }
        if (t == 0 && p < packets) {
            out[k] = partial[0];
        }
        LOCAL_BARRIER();
    }
    if (t == 0 && p < packets) {
        double nmdm_sum = 0.0;
        for (u64 j = 0; j < subpackets * ITEM_GROUPS; j++) {
            if (values[j] >= 0.0) {
                nmdm_sum += values[j];
            }
        }
        out[15] = TMD_DOUBLE_BITS(nmdm_sum);
    }
}

/* Adds a work-item's phase-2 and phase-3 counts (words 4-11) to the launch's counters. */
DEVICE_FN void counters_add(GLOBAL_AS u64 *counters, const stats_t *stats) {
    for (int k = 4; k < 12; k++) {
        if (stats->w[k] != 0) {
            TMD_ATOMIC_ADD64(&counters[k], stats->w[k]);
        }
    }
}

/* The split pipeline (Fortin, Gouicem, Graillat, "GPU-Accelerated Generation of Correctly
 * Rounded Elementary Functions", 2016, section 4.3.1), every list compacted by a prefix sum:
 *   filter_packets marks the domains failing phase 1 in one bit mask per sub-packet;
 *   scan_blocks / add_block_offsets turn the masks' popcounts into each sub-packet's offset;
 *   gather_phase1_failures rebuilds each marked domain's polynomial and writes it there;
 *   phase2_deferred runs one work-item per such domain, writing its failing subdomains to
 *   the domain's own region of kappa slots and their number to sub_counts;
 *   a prefix sum of sub_counts and compact_subdomains make the list of subdomains;
 *   phase3_deferred runs one work-item per subdomain.
 * The lists are thus in input order, whatever the scheduling; the work of phases 2 and 3 is
 * spread over work-items instead of stalling the warp of the sub-packet that met it.
 * Candidates and counts are the same as unsplit (the candidates, appended by an atomic
 * counter, are sorted by the host; counts are sums). */
KERNEL_FQ void gather_phase1_failures(const GLOBAL_AS u64 *tables, const GLOBAL_AS u64 *firsts,
                                      const GLOBAL_AS u64 *counts, const u64 packets,
                                      const u64 chunk_len, const u64 n, const u64 subpackets,
                                      const GLOBAL_AS u32 *fail_masks,
                                      const GLOBAL_AS u32 *offsets, GLOBAL_AS u64 *deferred) {
    u64 g = GLOBAL_ID0;
    if (g >= packets * subpackets) {
        return;
    }
    u32 any = 0;
    for (int word = 0; word < MASK_WORDS; word++) {
        any |= fail_masks[g * MASK_WORDS + word];
    }
    if (any == 0) {
        return;
    }
    u128_t t0[TD0 + 1], t1[TD1 + 1], t2[TD2 + 1];
    u64 first, count;
    subpacket_tables(tables, firsts, counts, g / subpackets, (g % subpackets) * ITEM_DOMAINS,
                     t0, t1, t2, &first, &count);
    /* the offsets of one work-item's mask words follow each other: its failures are listed
     * from its first word's offset on, in domain order */
    u64 slot = offsets[g * MASK_WORDS];
    for (u64 k = 0; k < count; k++) {
        if ((fail_masks[g * MASK_WORDS + k / 32] >> (k % 32)) & 1) {
            u64 start = (first + k) * n;
            u64 len = n < chunk_len - start ? n : chunk_len - start;
            defer_write(deferred + slot * DEFER_WORDS, start, len, t0[0], t1[0], t2[0]);
            slot += 1;
        }
        advance(t0, TD0);
        advance(t1, TD1);
        advance(t2, TD2);
    }
}

KERNEL_FQ void phase2_deferred(const GLOBAL_AS u64 *items, const u64 count, const u64 n,
                               const u64 kappa, const i32 algorithm,
                               const u32 division_threshold, const u64 base2,
                               const u64 threshold3_lo, const u64 threshold3_hi,
                               GLOBAL_AS u64 *candidates, const u32 capacity,
                               GLOBAL_AS u32 *found, GLOBAL_AS u64 *counters,
                               GLOBAL_AS u64 *regions, GLOBAL_AS u32 *sub_counts) {
    u64 i = GLOBAL_ID0;
    if (i >= count) {
        return;
    }
    plan_t plan = plan_make(n, kappa, algorithm, division_threshold, base2, threshold3_lo,
                            threshold3_hi);
    defer_t later;
    later.items = regions + i * kappa * DEFER_WORDS;
    later.capacity = (u32)kappa;
    later.used = 0;
    const GLOBAL_AS u64 *w = items + i * DEFER_WORDS;
    stats_t stats;
    stats_zero(&stats);
    phase2(&plan, u128_make(w[2], w[3]), u128_make(w[4], w[5]), u128_make(w[6], w[7]), w[0],
           w[1], &stats, candidates, capacity, found, &later);
    sub_counts[i] = later.used;
    counters_add(counters, &stats);
}

/* Copies each domain's failing subdomains from its region to its place in the list. */
KERNEL_FQ void compact_subdomains(const GLOBAL_AS u64 *regions, const GLOBAL_AS u32 *sub_counts,
                                  const GLOBAL_AS u32 *offsets, const u64 count,
                                  const u64 kappa, GLOBAL_AS u64 *out) {
    u64 i = GLOBAL_ID0;
    if (i >= count) {
        return;
    }
    for (u64 j = 0; j < sub_counts[i]; j++) {
        const GLOBAL_AS u64 *from = regions + (i * kappa + j) * DEFER_WORDS;
        GLOBAL_AS u64 *to = out + ((u64)offsets[i] + j) * DEFER_WORDS;
        for (int k = 0; k < DEFER_WORDS; k++) {
            to[k] = from[k];
        }
    }
}

/* Exclusive prefix sums, in two kernels (the host repeats them over the block sums until one
 * block is left): scan_blocks scans blocks of SCAN_BLOCK values, one work-group of SCAN_GROUP
 * work-items per block (each adds SCAN_BLOCK / SCAN_GROUP consecutive values, then the group
 * scans those sums in work-group memory), and writes each block's total; add_block_offsets adds
 * the scanned totals back. The values are in[i], or popcount(in[i]) for bit masks. */
#define SCAN_BLOCK (SCAN_GROUP * SCAN_PER_ITEM)
KERNEL_FQ void scan_blocks(const GLOBAL_AS u32 *in, const u64 len, const i32 popcount_in,
                           GLOBAL_AS u32 *out, GLOBAL_AS u32 *block_sums) {
    LOCAL_ARRAY(u32, sums, SCAN_GROUP);
    u32 t = LOCAL_ID0;
    u64 base = GROUP_ID0 * SCAN_BLOCK + (u64)t * SCAN_PER_ITEM;
    u32 v[SCAN_PER_ITEM];
    u32 mine = 0;
#pragma unroll
    for (int k = 0; k < SCAN_PER_ITEM; k++) {
        u32 x = base + k < len ? in[base + k] : 0;
        v[k] = popcount_in ? TMD_POPCOUNT32(x) : x;
        mine += v[k];
    }
    sums[t] = mine;
    LOCAL_BARRIER();
    /* Hillis-Steele inclusive scan of the work-items' sums */
    for (u32 d = 1; d < SCAN_GROUP; d <<= 1) {
        u32 add = t >= d ? sums[t - d] : 0;
        LOCAL_BARRIER();
        sums[t] += add;
        LOCAL_BARRIER();
    }
    u32 running = sums[t] - mine;
#pragma unroll
    for (int k = 0; k < SCAN_PER_ITEM; k++) {
        if (base + k < len) {
            out[base + k] = running;
        }
        running += v[k];
    }
    if (t == SCAN_GROUP - 1) {
        block_sums[GROUP_ID0] = sums[t];
    }
}

KERNEL_FQ void add_block_offsets(GLOBAL_AS u32 *out, const u64 len,
                                 const GLOBAL_AS u32 *block_offsets) {
    u64 i = GLOBAL_ID0;
    if (i < len) {
        out[i] += block_offsets[i / SCAN_BLOCK];
    }
}

KERNEL_FQ void phase3_deferred(const GLOBAL_AS u64 *items, const u64 count,
                               const u64 threshold3_lo, const u64 threshold3_hi,
                               GLOBAL_AS u64 *candidates, const u32 capacity,
                               GLOBAL_AS u32 *found, GLOBAL_AS u64 *counters) {
    u64 i = GLOBAL_ID0;
    if (i >= count) {
        return;
    }
    plan_t plan;
    plan.threshold3 = u128_make(threshold3_lo, threshold3_hi);
    const GLOBAL_AS u64 *w = items + i * DEFER_WORDS;
    stats_t stats;
    stats_zero(&stats);
    phase3(&plan, u128_make(w[2], w[3]), u128_make(w[4], w[5]), u128_make(w[6], w[7]), w[0],
           w[1], &stats, candidates, capacity, found);
    counters_add(counters, &stats);
}

/* The NMDM of real warps: the WARP_WIDTH work-items of warp w run side by side, and at step k each runs
 * the phase-1 test of its k-th domain, so a warp waits at step k for its slowest lane. One
 * work-item per warp computes, for each step with at least one lane at work, 1 - mean/max of
 * the lanes' loop iterations (the measure of Nmdm::add_group, over the lanes instead of over
 * consecutive domains): groups, the sum of the values (summed in step order), iterations and
 * lanes at work. A work-group of WARP_NMDM_GROUP work-items (the host launches it in groups of
 * exactly that size) adds its warps' records in warp order and writes one record; the host
 * adds the records in order (WARP_NMDM_WORDS words each). Folding here keeps the copy back
 * small: one record per warp would be 512 KB at chunk 2^39. */
KERNEL_FQ void warp_nmdm(const GLOBAL_AS u32 *lane_iterations, const u64 items,
                         GLOBAL_AS u64 *out) {
    LOCAL_ARRAY(u64, counts, 3 * WARP_NMDM_GROUP);
    LOCAL_ARRAY(double, sums, WARP_NMDM_GROUP);
    u64 w = GLOBAL_ID0;
    u32 t = LOCAL_ID0;
    u64 warps = (items + WARP_WIDTH - 1) / WARP_WIDTH;
    u64 groups = 0, total_iterations = 0, lanes_at_work = 0;
    double sum = 0.0;
    for (u64 k = 0; k < ITEM_DOMAINS && w < warps; k++) {
        u64 max = 0, total = 0, lanes = 0;
        for (u64 j = 0; j < WARP_WIDTH; j++) {
            u64 g = WARP_WIDTH * w + j;
            if (g >= items) {
                break;
            }
            u32 v = lane_iterations[k * items + g];
            if (v > 0) {
                u64 it = (u64)(v - 1);
                lanes += 1;
                total += it;
                max = it > max ? it : max;
            }
        }
        total_iterations += total;
        lanes_at_work += lanes;
        if (lanes > 0 && max > 0) {
            double mean = (double)total / (double)lanes;
            sum += 1.0 - mean / (double)max;
            groups += 1;
        }
    }
    counts[3 * t] = groups;
    counts[3 * t + 1] = total_iterations;
    counts[3 * t + 2] = lanes_at_work;
    sums[t] = sum;
    LOCAL_BARRIER();
    if (t == 0) {
        u64 g = 0, it = 0, lanes = 0;
        double s = 0.0;
        for (u32 j = 0; j < WARP_NMDM_GROUP; j++) {
            g += counts[3 * j];
            it += counts[3 * j + 1];
            lanes += counts[3 * j + 2];
            if (counts[3 * j] > 0) {
                s += sums[j];
            }
        }
        u64 r = GROUP_ID0;
        out[WARP_NMDM_WORDS * r] = g;
        out[WARP_NMDM_WORDS * r + 1] = TMD_DOUBLE_BITS(s);
        out[WARP_NMDM_WORDS * r + 2] = it;
        out[WARP_NMDM_WORDS * r + 3] = lanes;
    }
}


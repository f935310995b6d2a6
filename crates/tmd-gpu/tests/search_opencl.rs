//! The filtered search with phases 1-3 on the OpenCL device equals the CPU
//! backend: the same cases in the same order, the same counts, and the same phase statistics
//! (domains and arguments entering and failing each phase, candidates, and the NMDM sums bit
//! for bit), for the four lower-bound algorithms and the exhaustive method, default and
//! non-default parameters, binary64 and binary32, near 1 and far from it — and on I0, the
//! seeds' interval: 241 cases.
//!
//! Runs on the first OpenCL device: PoCL's CPU device in CI (scripts/setup.sh installs it).

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;
use tmd_core::number::parse_exact;
use tmd_core::{Breakpoints, Format};
use tmd_gpu::opencl::OpenClDevice;
use tmd_search::filter::stats::FilterStats;
use tmd_search::lower_bound::Algorithm;
use tmd_search::{
    filtered_search, Case, FilterParams, InputRange, Method, SearchParams, Summary, Target,
};

struct Window {
    func: &'static str,
    format: &'static str,
    from: &'static str,
    log2len: u32,
    bits: u32,
    mode: Breakpoints,
}

fn run(w: &Window, filter: &FilterParams) -> (Vec<Case>, Summary, FilterStats) {
    let format = Format::parse(w.format).unwrap();
    let start = format.ordinal(&parse_exact(w.from, &format).unwrap());
    let range = InputRange {
        format: format.clone(),
        start,
        end: start + (1i128 << w.log2len),
    };
    let params = SearchParams {
        bits: w.bits,
        breakpoints: w.mode,
        include_exact: true,
        max_precision: 8192,
    };
    let mut cases = Vec::new();
    let (summary, stats) = filtered_search(
        &Target::parse(w.func).unwrap(),
        &range,
        &params,
        filter,
        &AtomicU64::new(0),
        &mut |c: &Case| cases.push(c.clone()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (cases, summary, stats)
}

/// What must be equal between backends: every count, without the timings.
fn comparable(s: &FilterStats) -> String {
    let mut s = s.clone();
    for p in [&mut s.phase1, &mut s.phase2, &mut s.phase3] {
        p.nanos = 0;
    }
    s.generation_nanos = 0;
    s.verification_nanos = 0;
    s.device_nanos = 0;
    s.step_nanos = Default::default();
    // The NMDM of real warps exists on devices only (checked in the I0 test).
    s.nmdm_warp = Default::default();
    format!("{s:?} nmdm sum bits {:#x}", s.nmdm.sum.to_bits())
}

fn counts(s: &Summary) -> [u64; 7] {
    [
        s.inputs,
        s.hard,
        s.exact,
        s.unresolved,
        s.undefined,
        s.poles,
        s.overflow,
    ]
}

#[test]
fn opencl_search_equals_cpu_backend() {
    let device: Arc<OpenClDevice> =
        Arc::new(OpenClDevice::nth(0).unwrap_or_else(|e| panic!("{e}")));
    println!("OpenCL device: {}", device.name());
    let windows = [
        Window {
            func: "exp",
            format: "binary64",
            from: "0x1.0000000012345p+0",
            log2len: 26,
            bits: 24,
            mode: Breakpoints::Directed,
        },
        Window {
            func: "log",
            format: "binary64",
            from: "0x1.5p+1000",
            log2len: 24,
            bits: 22,
            mode: Breakpoints::All,
        },
        Window {
            func: "sin",
            format: "binary64",
            from: "0x1.0000123p+20",
            log2len: 22,
            bits: 20,
            mode: Breakpoints::Nearest,
        },
        Window {
            func: "exp",
            format: "binary64",
            from: "0x1.5d22b8bb9d501p+8",
            log2len: 22,
            bits: 20,
            mode: Breakpoints::All,
        },
        Window {
            func: "cbrt",
            format: "binary32",
            from: "0x1p+4",
            log2len: 23,
            bits: 18,
            mode: Breakpoints::All,
        },
        Window {
            func: "atan",
            format: "binary64",
            from: "-0x1.8p+3",
            log2len: 24,
            bits: 22,
            mode: Breakpoints::Directed,
        },
        // Nearly flat: domains above the cap, every lower-bound test one exact step
        // (lb_short_orbit); the second window's values cross two breakpoints, with a few
        // dozen inputs within 2^-24 ulp of each, so that phases 2 and 3 run there.
        Window {
            func: "exp",
            format: "binary64",
            from: "0x1.8p-40",
            log2len: 34,
            bits: 45,
            mode: Breakpoints::All,
        },
        Window {
            func: "exp",
            format: "binary64",
            from: "0x1.4000123p-30",
            log2len: 30,
            bits: 24,
            mode: Breakpoints::All,
        },
    ];
    let mut configs: Vec<(String, FilterParams)> = [
        Method::Filter(Algorithm::RegularUnrolled),
        Method::Filter(Algorithm::Regular),
        Method::Filter(Algorithm::Lefevre),
        Method::Filter(Algorithm::LefevreSwap),
        Method::Exhaustive,
    ]
    .into_iter()
    .map(|m| (format!("{m:?}"), FilterParams::new(m)))
    .collect();
    let mut custom = FilterParams::new(Method::Filter(Algorithm::Lefevre));
    custom.domain_size = 1 << 10;
    custom.kappa = 4;
    custom.division_threshold = 3;
    custom.chunk_len = 1 << 16;
    configs.push((
        "Lefevre N 2^10 kappa 4 threshold 3 chunks 2^16".into(),
        custom.clone(),
    ));
    // The split pipeline (phases 2 and 3 in kernels of their own) changes nothing visible.
    custom.split_phases = true;
    configs.push((
        "Lefevre N 2^10 kappa 4 threshold 3 chunks 2^16, split".into(),
        custom,
    ));
    let mut split = FilterParams::new(Method::Filter(Algorithm::RegularUnrolled));
    split.split_phases = true;
    configs.push(("RegularUnrolled, split".into(), split.clone()));
    // More domains per work-item (`--domains-per-item`): the same output, counts and NMDM bits.
    split.domains_per_item = 128;
    configs.push(("RegularUnrolled, split, 128 domains per item".into(), split));
    let mut wide = FilterParams::new(Method::Filter(Algorithm::Lefevre));
    wide.domains_per_item = 64;
    configs.push(("Lefevre, inline, 64 domains per item".into(), wide));
    // A small candidate cap: chunks with more candidates are searched again in pieces, on the
    // device as on the cores.
    let mut capped = FilterParams::new(Method::Filter(Algorithm::RegularUnrolled));
    capped.split_phases = true;
    capped.chunk_len = 1 << 16;
    capped.candidate_cap = 64;
    configs.push((
        "RegularUnrolled, split, chunks 2^16, candidate cap 64".into(),
        capped,
    ));
    let mut failures = Vec::new();
    let mut compared = 0;
    // The fast tier runs each window with the default configuration and, in turn, one of
    // three others that build other kernels (Lefevre's algorithm, the exhaustive kernel, the
    // split pipeline under a candidate cap): each configuration is a program that PoCL
    // compiles anew on a fresh machine, some 8 s apiece. The large tier runs every pair.
    let fast_others = [
        "Filter(Lefevre)",
        "Exhaustive",
        "RegularUnrolled, split, chunks 2^16, candidate cap 64",
    ];
    let others: Vec<usize> = (1..configs.len())
        .filter(|&ci| fast_others.contains(&configs[ci].0.as_str()))
        .collect();
    assert_eq!(
        others.len(),
        fast_others.len(),
        "a fast-tier configuration is missing"
    );
    for (wi, w) in windows.iter().enumerate() {
        for (ci, (name, cpu_params)) in configs.iter().enumerate() {
            if !tmd_test_tier::extensive() && ci != 0 && ci != others[wi % others.len()] {
                continue;
            }
            let mut device_params = cpu_params.clone();
            device_params.device = Some(device.clone());
            let t = Instant::now();
            let (cpu_cases, cpu_summary, cpu_stats) = run(w, cpu_params);
            let cpu_seconds = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let (dev_cases, dev_summary, dev_stats) = run(w, &device_params);
            let dev_seconds = t.elapsed().as_secs_f64();
            let what = format!(
                "{} {} from {} 2^{} K {} {}, {name}",
                w.func,
                w.format,
                w.from,
                w.log2len,
                w.bits,
                w.mode.name()
            );
            if cpu_cases != dev_cases {
                failures.push(format!(
                    "{what}: cases differ: CPU {} vs OpenCL {}",
                    cpu_cases.len(),
                    dev_cases.len()
                ));
            }
            if counts(&cpu_summary) != counts(&dev_summary) {
                failures.push(format!(
                    "{what}: counts {:?} vs {:?}",
                    counts(&cpu_summary),
                    counts(&dev_summary)
                ));
            }
            if comparable(&cpu_stats) != comparable(&dev_stats) {
                failures.push(format!(
                    "{what}: statistics differ:\n  CPU    {}\n  OpenCL {}",
                    comparable(&cpu_stats),
                    comparable(&dev_stats)
                ));
            }
            compared += cpu_cases.len();
            println!("{what}: {} cases, {} candidates, phase 1 failed {} domains; CPU {cpu_seconds:.2} s, OpenCL {dev_seconds:.2} s", cpu_cases.len(), cpu_stats.candidates, cpu_stats.phase1.domains_failed);
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(compared > 500, "too few cases compared: {compared}");
}

/// At K = 8 about one input in 2^8 is a candidate: chunks of 2^16 inputs hold hundreds, over a
/// cap of 64, so they are searched again in pieces (down to MPFR per input), on the device as
/// on the cores, with the cases and counts of an uncapped search.
#[test]
fn searches_over_the_candidate_cap_go_in_pieces_with_the_same_cases() {
    let device: Arc<OpenClDevice> =
        Arc::new(OpenClDevice::nth(0).unwrap_or_else(|e| panic!("{e}")));
    let w = Window {
        func: "exp",
        format: "binary64",
        from: "0x1.0000000012345p+0",
        log2len: 18,
        bits: 8,
        mode: Breakpoints::All,
    };
    let whole = FilterParams::new(Method::Filter(Algorithm::RegularUnrolled));
    let mut capped = whole.clone();
    capped.chunk_len = 1 << 16;
    capped.candidate_cap = 64;
    let mut capped_device = capped.clone();
    capped_device.device = Some(device);
    let (cases, summary, stats) = run(&w, &whole);
    assert!(
        stats.candidates > 4 * 64,
        "the window must overflow the cap: {}",
        stats.candidates
    );
    for (name, params) in [("cores", &capped), ("OpenCL", &capped_device)] {
        let (c, s, _) = run(&w, params);
        assert_eq!(c, cases, "{name}: cases differ");
        assert_eq!(counts(&s), counts(&summary), "{name}: counts differ");
    }
}

/// With a device, `regular-or-lattice` takes a nearly flat chunk, which the lattice covers in
/// one interval, on the cores (a device call costs about a millisecond whatever its work):
/// no device call, and the cases and counts of the same search without a device.
#[test]
fn nearly_flat_chunks_beside_a_device_go_to_the_lattice_with_the_cpu_cases() {
    let device: Arc<OpenClDevice> =
        Arc::new(OpenClDevice::nth(0).unwrap_or_else(|e| panic!("{e}")));
    // 2^36 inputs at K = 45 around a published worst case of exp (CORE-MATH's list).
    let w = Window {
        func: "exp",
        format: "binary64",
        from: "0x1.000fp-40",
        log2len: 36,
        bits: 45,
        mode: Breakpoints::All,
    };
    let mut cpu = FilterParams::new(Method::Cheaper(Algorithm::RegularUnrolled));
    cpu.flat_chunk_len = 1 << 36;
    let mut beside = cpu.clone();
    beside.device = Some(device);
    let (cases, summary, _) = run(&w, &cpu);
    let xs: Vec<String> = cases.iter().map(|c| c.x.to_hex()).collect();
    assert!(
        xs.iter().any(|x| x == "0x1.000fffffff7ffp-40"),
        "the published case is listed: {xs:?}"
    );
    let (c, s, stats) = run(&w, &beside);
    assert_eq!(c, cases, "cases differ");
    assert_eq!(counts(&s), counts(&summary), "counts differ");
    assert_eq!(stats.chunks, 1, "one chunk of 2^36 inputs");
    assert_eq!(stats.device_nanos, 0, "the chunk went to the device");
}

#[test]
fn opencl_i0_gives_the_cpu_cases_and_counts() {
    let device: Arc<OpenClDevice> =
        Arc::new(OpenClDevice::nth(0).unwrap_or_else(|e| panic!("{e}")));
    let i0 = Window {
        func: "exp",
        format: "binary64",
        from: "0x1p+0",
        log2len: 39,
        bits: 32,
        mode: Breakpoints::Directed,
    };
    let cpu = FilterParams::new(Method::Filter(Algorithm::RegularUnrolled));
    let mut dev = cpu.clone();
    dev.device = Some(device);
    dev.warp_nmdm = true;
    let t = Instant::now();
    let (cpu_cases, _, cpu_stats) = run(&i0, &cpu);
    let cpu_seconds = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (dev_cases, _, dev_stats) = run(&i0, &dev);
    println!(
        "I0: {} cases; CPU {cpu_seconds:.2} s, OpenCL {:.2} s",
        dev_cases.len(),
        t.elapsed().as_secs_f64()
    );
    assert_eq!(dev_cases.len(), 241);
    assert_eq!(cpu_cases, dev_cases);
    assert_eq!(comparable(&cpu_stats), comparable(&dev_stats));
    // The split pipeline (phases 2 and 3 as kernels of their own), and two NMDM groups and
    // two mask words per work-item: a program each, which PoCL compiles anew on a fresh
    // machine in some 25 s and 17 s, so in the large tier only (the fast tier runs the split
    // pipeline on the windows of `opencl_search_equals_cpu_backend`).
    if tmd_test_tier::extensive() {
        let mut split = dev.clone();
        split.split_phases = true;
        let (split_cases, _, split_stats) = run(&i0, &split);
        assert_eq!(cpu_cases, split_cases);
        assert_eq!(comparable(&cpu_stats), comparable(&split_stats));
        // The NMDM of real warps is the same whatever the pipeline: phase 1 is the same work.
        let (warp, split_warp) = (dev_stats.nmdm_warp, split_stats.nmdm_warp);
        assert_eq!(
            (warp.groups, warp.sum.to_bits()),
            (split_warp.groups, split_warp.sum.to_bits())
        );
        let mut wide = dev.clone();
        wide.domains_per_item = 64;
        let (wide_cases, _, wide_stats) = run(&i0, &wide);
        assert_eq!(cpu_cases, wide_cases);
        assert_eq!(comparable(&cpu_stats), comparable(&wide_stats));
    }
    // The NMDM of real warps: every (warp, step) with work, a mean in [0, 1), none on the CPU.
    let warp = dev_stats.nmdm_warp;
    println!(
        "I0 NMDM per warp: {:.5} over {} groups; per 32 consecutive domains: {:.5}",
        warp.mean(),
        warp.groups,
        dev_stats.nmdm.mean()
    );
    assert_eq!(cpu_stats.nmdm_warp.groups, 0);
    // Not asked for, it costs nothing and is not there.
    let mut unasked = dev.clone();
    unasked.warp_nmdm = false;
    let (unasked_cases, _, unasked_stats) = run(&i0, &unasked);
    assert_eq!(cpu_cases, unasked_cases);
    assert_eq!(comparable(&cpu_stats), comparable(&unasked_stats));
    assert_eq!(unasked_stats.nmdm_warp.groups, 0);
    assert!(warp.groups > 0 && (0.0..1.0).contains(&warp.mean()));
    assert_eq!(warp.domains, dev_stats.nmdm.domains);
    assert_eq!(warp.iterations, dev_stats.nmdm.iterations);
}

/// The split pipeline's lists are compacted by exclusive prefix sums: the scan
/// kernels against a sequential scan, at lengths of one, two and three levels of blocks, on
/// counts and on bit masks (popcounts).
#[test]
fn prefix_sums_equal_a_sequential_scan() {
    let device = OpenClDevice::nth(0).unwrap_or_else(|e| panic!("{e}"));
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for len in [1usize, 1023, 1024, 1025, 300_001, 1_100_000] {
        for popcount in [false, true] {
            let values: Vec<u32> = (0..len)
                .map(|_| {
                    let r = next();
                    // sparse, as the lists are: mostly zero
                    if r % 4 == 0 {
                        (r >> 32) as u32 & if popcount { u32::MAX } else { 63 }
                    } else {
                        0
                    }
                })
                .collect();
            let mut expected = Vec::with_capacity(len);
            let mut total = 0usize;
            for &v in &values {
                expected.push(total as u32);
                total += if popcount {
                    v.count_ones() as usize
                } else {
                    v as usize
                };
            }
            let (offsets, device_total) = device
                .prefix_sums(&values, popcount)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(device_total, total, "length {len}, popcount {popcount}");
            assert!(
                offsets == expected,
                "length {len}, popcount {popcount}: offsets differ"
            );
        }
    }
}

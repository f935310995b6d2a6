//! Runs a filtered search and (optionally) the reference search on the same window and
//! compares: `cargo run --release -p tmd-search --example filter_compare -- FUNC FORMAT FROM LOG2LEN K MODE METHOD [ref]`.
use std::sync::atomic::AtomicU64;
use tmd_core::number::parse_exact;
use tmd_core::{Breakpoints, Format};
use tmd_search::lower_bound::Algorithm;
use tmd_search::{
    filtered_search, reference_search, Case, FilterParams, InputRange, Method, SearchParams, Target,
};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let format = Format::parse(&a[2]).unwrap();
    let target = Target::parse(&a[1]).unwrap();
    let from = parse_exact(&a[3], &format).unwrap();
    let log2len: u32 = a[4].parse().unwrap();
    let start = format.ordinal(&from);
    let range = InputRange {
        format: format.clone(),
        start,
        end: start + (1i128 << log2len),
    };
    let params = SearchParams {
        bits: a[5].parse().unwrap(),
        breakpoints: Breakpoints::parse(&a[6]).unwrap(),
        include_exact: true,
        max_precision: 8192,
    };
    let method = match a[7].as_str() {
        "lefevre" => Method::Filter(Algorithm::Lefevre),
        "regular" => Method::Filter(Algorithm::RegularUnrolled),
        "lattice" => Method::Lattice(Default::default()),
        "regular-or-lattice" => Method::Cheaper(Algorithm::RegularUnrolled),
        _ => Method::Exhaustive,
    };
    let progress = AtomicU64::new(0);
    let mut filtered: Vec<Case> = Vec::new();
    let (summary, stats) = filtered_search(
        &target,
        &range,
        &params,
        &FilterParams::new(method),
        &progress,
        &mut |c: &Case| filtered.push(c.clone()),
    )
    .unwrap();
    println!("{summary:?}\n{stats:#?}\nnmdm {:.4}", stats.nmdm.mean());
    if let Ok(path) = std::env::var("CASES_TO") {
        let text: String = filtered.iter().map(|c| c.x.to_hex() + "\n").collect();
        std::fs::write(path, text).unwrap();
    }
    if a.get(8).map(|s| s.as_str()) == Some("ref") {
        let mut reference: Vec<Case> = Vec::new();
        let s = reference_search(&target, &range, &params, &progress, &mut |c| {
            reference.push(c.clone())
        });
        println!("reference {s:?}");
        let f: Vec<String> = filtered.iter().map(|c| c.x.to_hex()).collect();
        let r: Vec<String> = reference.iter().map(|c| c.x.to_hex()).collect();
        println!(
            "filtered {} reference {} equal {}",
            f.len(),
            r.len(),
            f == r
        );
        for x in r.iter().filter(|x| !f.contains(x)) {
            println!("MISSED {x}");
        }
    }
}

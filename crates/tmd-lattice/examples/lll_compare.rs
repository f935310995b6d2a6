//! fplll's LLL (the one tmd-lattice links) on the lattices the search builds, and the same
//! bases written out for FLINT's `fmpz_lll` (`examples/flint_lll.c`), so that the two libraries
//! are timed on identical inputs.
//!
//! ```text
//! cargo run --release -p tmd-lattice --example lll_compare -- DIR [COUNT]
//! cc -O2 crates/tmd-lattice/examples/flint_lll.c -o /tmp/flint_lll -lflint -lgmp -lmpfr
//! /tmp/flint_lll DIR/*.flint
//! ```
//!
//! Each problem is a random degree-d polynomial modulo N = 2^log2_n at the interval half-width
//! the search would use for its threshold (`log2_t_limit`), V = N·eps: binary64 at K = 45
//! (N = 2^100, eps = 2^-45) and binary128 at K = 133 (N = 2^260, eps = 2^-133).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::Integer;
use std::io::Write;
use std::time::Instant;
use tmd_lattice::lll::lll_reduce;
use tmd_lattice::slz::{coppersmith_basis, log2_t_limit, SmallValueProblem};

fn problem(
    rng: &mut ChaCha8Rng,
    d: usize,
    alpha: u32,
    log2_n: u32,
    log2_eps: i32,
) -> SmallValueProblem {
    let log2_t = log2_t_limit(d, alpha as usize, f64::from(log2_eps)).clamp(1.0, 40.0) as u32;
    let q = (0..=d)
        .map(|_| {
            let mut c = Integer::from(rng.gen::<u64>());
            for _ in 0..log2_n / 64 {
                c = (c << 64) + rng.gen::<u64>();
            }
            c.keep_bits(log2_n)
        })
        .collect();
    SmallValueProblem {
        q,
        log2_n,
        t_max: 1u64 << log2_t,
        v_max: Integer::from(1) << (log2_n as i32 + log2_eps) as u32,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(args.get(1).expect("usage: lll_compare DIR [COUNT]"));
    let count: usize = args.get(2).map_or(100, |c| c.parse().expect("a count"));
    std::fs::create_dir_all(&dir).expect("an output directory");
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    println!("format\tshape\tdimension\tbases\tfplll ms per basis");
    for (format, log2_n, log2_eps) in [("binary64", 100, -45), ("binary128", 260, -133)] {
        for (d, alpha) in [(1, 1), (2, 1), (2, 2), (2, 3), (3, 2), (3, 3)] {
            let bases: Vec<Vec<Vec<Integer>>> = (0..count)
                .map(|_| coppersmith_basis(&problem(&mut rng, d, alpha, log2_n, log2_eps), alpha))
                .collect::<Result<_, _>>()
                .expect("non-constant polynomials");
            let path = dir.join(format!("{format}-{d}-{alpha}.flint"));
            let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            writeln!(file, "{}", bases.len()).unwrap();
            for b in &bases {
                // FLINT's fmpz_mat_fread format: rows, columns, then the entries.
                write!(file, "{} {} ", b.len(), b[0].len()).unwrap();
                for e in b.iter().flatten() {
                    write!(file, " {e}").unwrap();
                }
                writeln!(file).unwrap();
            }
            let t = Instant::now();
            for b in &bases {
                lll_reduce(b).expect("fplll reduces");
            }
            let ms = t.elapsed().as_secs_f64() * 1e3 / bases.len() as f64;
            println!(
                "{format}\t({d},{alpha})\t{}\t{}\t{ms:.4}",
                bases[0].len(),
                bases.len()
            );
        }
    }
}

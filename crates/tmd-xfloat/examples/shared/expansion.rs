//! Shared by the table generators (`gen_consts`, `gen_dd_exp_table`, `gen_dd_trig_table`).
use rug::Float;

/// The first `n` words of `v`'s expansion by successive round-to-nearest: `w0 = RN(v)`,
/// `w1 = RN(v - w0)`, ... (the double- and quad-word constants are its first 2 and 4 words).
pub fn expansion_f64(v: &Float, n: usize) -> Vec<f64> {
    let mut rest = v.clone();
    (0..n)
        .map(|_| {
            let w = rest.to_f64();
            rest -= w;
            w
        })
        .collect()
}

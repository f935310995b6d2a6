//! LLL reduction by fplll (Stehlé's L2 algorithm behind fplll's wrapper), through a C++ shim
//! that takes and returns hexadecimal strings, and the exact check that a reduced vector belongs
//! to a lower-triangular lattice.
//!
//! Correctness never rests on fplll's output: a reduced vector is used only after
//! [`coordinates_in_triangular_basis`] has found its integer coordinates in the original basis
//! (so it is a lattice vector whatever the library did), and its norm is measured exactly by
//! the caller. fplll decides only how short the vectors are, that is how often the method
//! succeeds.

use crate::LatticeError;
use rug::Integer;
use std::ffi::{c_char, c_int, CStr, CString};

extern "C" {
    fn tmd_fplll_lll(
        rows: c_int,
        cols: c_int,
        entries: *const *const c_char,
        out: *mut *mut c_char,
        delta: f64,
        eta: f64,
    ) -> c_int;
    fn tmd_fplll_free(s: *mut c_char);
}

/// fplll's default LLL parameters (delta = 0.99, eta = 0.51).
const DELTA: f64 = 0.99;
const ETA: f64 = 0.51;

/// The rows of `basis` LLL-reduced by fplll (same lattice, shortest vectors first). `basis`
/// must be a non-empty rectangular matrix.
pub fn lll_reduce(basis: &[Vec<Integer>]) -> Result<Vec<Vec<Integer>>, LatticeError> {
    let rows = basis.len();
    let cols = basis.first().map_or(0, Vec::len);
    if rows == 0 || cols == 0 || basis.iter().any(|r| r.len() != cols) {
        return Err(LatticeError::Shape);
    }
    let text: Vec<CString> = basis
        .iter()
        .flatten()
        .map(|e| CString::new(e.to_string_radix(16)).expect("a hexadecimal integer has no NUL"))
        .collect();
    let pointers: Vec<*const c_char> = text.iter().map(|c| c.as_ptr()).collect();
    let mut out: Vec<*mut c_char> = vec![std::ptr::null_mut(); rows * cols];
    // SAFETY: `pointers` holds rows * cols NUL-terminated strings alive for the call, and `out`
    // has room for rows * cols pointers, which the shim fills only on success.
    let status = unsafe {
        tmd_fplll_lll(
            rows as c_int,
            cols as c_int,
            pointers.as_ptr(),
            out.as_mut_ptr(),
            DELTA,
            ETA,
        )
    };
    if status != 0 {
        return Err(LatticeError::Reduction(status));
    }
    let entries: Vec<Integer> = out.into_iter().map(take_hex).collect();
    Ok(entries.chunks(cols).map(<[Integer]>::to_vec).collect())
}

/// The integer a shim string holds; frees the string.
fn take_hex(s: *mut c_char) -> Integer {
    // SAFETY: `s` is a NUL-terminated string malloc'd by the shim on success, freed once here.
    let value = unsafe { CStr::from_ptr(s) }
        .to_str()
        .ok()
        .and_then(|t| Integer::from_str_radix(t, 16).ok())
        .expect("the shim writes hexadecimal integers");
    unsafe { tmd_fplll_free(s) };
    value
}

/// The integer coordinates of `w` in the lower-triangular `basis` (row r has zeros beyond
/// column r and a non-zero diagonal), or `None` when `w` is not in the lattice. Back
/// substitution from the last column; every division must be exact.
pub fn coordinates_in_triangular_basis(
    basis: &[Vec<Integer>],
    w: &[Integer],
) -> Option<Vec<Integer>> {
    let n = basis.len();
    let mut rest: Vec<Integer> = w.to_vec();
    let mut coords = vec![Integer::new(); n];
    for r in (0..n).rev() {
        let diagonal = &basis[r][r];
        if !rest[r].is_divisible(diagonal) {
            return None;
        }
        let c = Integer::from(rest[r].div_exact_ref(diagonal));
        for (col, e) in basis[r][..=r].iter().enumerate() {
            rest[col] -= Integer::from(&c * e);
        }
        coords[r] = c;
    }
    Some(coords)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i64) -> Integer {
        Integer::from(v)
    }

    /// A classic 3-dimensional example: the reduced basis spans the same lattice (every
    /// reduced row has integer coordinates in the original triangular basis, and the
    /// determinant keeps its absolute value), and its first row is no longer than the input's
    /// shortest row.
    #[test]
    fn reduction_keeps_the_lattice_and_shortens() {
        let basis = vec![
            vec![int(1 << 40), int(0), int(0)],
            vec![int(123_456_789_012), int(1), int(0)],
            vec![int(987_654_321), int(555), int(3)],
        ];
        let reduced = lll_reduce(&basis).unwrap();
        for row in &reduced {
            assert!(
                coordinates_in_triangular_basis(&basis, row).is_some(),
                "{row:?}"
            );
        }
        let norm2 = |r: &Vec<Integer>| r.iter().map(|e| Integer::from(e * e)).sum::<Integer>();
        let shortest_input = basis.iter().map(norm2).min().unwrap();
        assert!(norm2(&reduced[0]) <= shortest_input);
        assert!(norm2(&reduced[0]) < (1u64 << 40));
    }

    #[test]
    fn vectors_outside_the_lattice_have_no_coordinates() {
        let basis = vec![vec![int(4), int(0)], vec![int(1), int(6)]];
        assert_eq!(
            coordinates_in_triangular_basis(&basis, &[int(10), int(12)]),
            Some(vec![int(2), int(2)])
        );
        assert_eq!(
            coordinates_in_triangular_basis(&basis, &[int(9), int(12)]),
            None
        );
        assert_eq!(
            coordinates_in_triangular_basis(&basis, &[int(2), int(6)]),
            None
        );
    }

    #[test]
    fn a_ragged_matrix_is_refused() {
        let basis = vec![vec![int(1), int(0)], vec![int(1)]];
        assert!(matches!(lll_reduce(&basis), Err(LatticeError::Shape)));
    }

    /// Entries of several hundred bits pass through the strings unchanged.
    #[test]
    fn huge_entries_round_trip() {
        let big = Integer::from(1) << 700u32;
        let basis = vec![vec![big.clone(), int(0)], vec![int(0), int(7)]];
        let reduced = lll_reduce(&basis).unwrap();
        let mut rows: Vec<_> = reduced
            .iter()
            .map(|r| (r[0].clone().abs(), r[1].clone().abs()))
            .collect();
        rows.sort();
        assert_eq!(rows, vec![(int(0), int(7)), (big, int(0))]);
    }
}

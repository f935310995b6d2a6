//! The test tiers of tmd, decided in one place.
//!
//! The README's test command runs the fast tier: every kind of check (oracles, set equality,
//! every backend on PoCL, MPI, journals, kill -9 and resume, every target kind) on sizes that
//! keep the whole suite within minutes on two cores. `TMD_EXTENSIVE=1` selects the large tier:
//! the same checks on many more inputs, windows and binades. Any other value, or none, is the
//! fast tier, so `TMD_EXTENSIVE=0` turns the large tier off rather than on.
//!
//! Every test that scales with the tier asks [`extensive`] or [`pick`]; none reads the
//! variable itself.

use std::sync::OnceLock;

/// The environment variable that selects the large tier when it is `1`.
pub const SWITCH: &str = "TMD_EXTENSIVE";

/// Whether the large tier runs (`TMD_EXTENSIVE=1`).
pub fn extensive() -> bool {
    static EXTENSIVE: OnceLock<bool> = OnceLock::new();
    *EXTENSIVE.get_or_init(|| std::env::var(SWITCH).is_ok_and(|v| v.trim() == "1"))
}

/// `fast` in the fast tier, `large` in the large one.
pub fn pick<T>(fast: T, large: T) -> T {
    if extensive() {
        large
    } else {
        fast
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_follows_the_switch() {
        let expected = if extensive() { 2 } else { 1 };
        assert_eq!(pick(1, 2), expected);
    }
}

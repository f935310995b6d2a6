//! Table-driven natural logarithm of a double-double (placeholder: the generic algorithm).
use crate::math;
use crate::Dd;

/// Natural logarithm.
pub fn log(x: Dd) -> Dd {
    math::log(x)
}

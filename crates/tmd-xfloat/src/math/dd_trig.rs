//! Table-driven sine and cosine of a double-double (placeholder: the generic algorithm).
use crate::math;
use crate::Dd;

/// `(sin x, cos x)`.
pub fn sin_cos(x: Dd) -> (Dd, Dd) {
    math::sincos(x)
}

/// `sin x`.
pub fn sin(x: Dd) -> Dd {
    math::sin(x)
}

/// `cos x`.
pub fn cos(x: Dd) -> Dd {
    math::cos(x)
}

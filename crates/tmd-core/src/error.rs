//! Typed errors of the core library. Every variant is a user mistake (the CLI maps them to exit
//! code 2) and carries one line saying what was wrong and why.

use thiserror::Error;

/// Bad input: an unknown format or function, a malformed number or expression, a range that is
/// empty or outside a domain, a bit count out of bounds.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum InputError {
    #[error("format: {0}")]
    Format(String),
    #[error("number {0}")]
    Number(String),
    #[error("function: {0}")]
    Function(String),
    #[error("expression: {0}")]
    Expression(String),
    #[error("range: {0}")]
    Range(String),
    #[error("bits: {0}")]
    Bits(String),
    /// A flag with a value tmd does not accept (algorithm, backend, breakpoints).
    #[error("{0}")]
    Usage(String),
}

//! One module per subcommand.

pub mod functions;
pub mod hardness;
pub mod search;

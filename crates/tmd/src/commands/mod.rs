//! One module per subcommand.

pub mod crunch;
pub mod functions;
pub mod hardness;
pub mod search;
#[cfg(feature = "mpi")]
pub mod search_mpi;

//! One module per subcommand, and what the library jobs get from the terminal
//! ([`job_host`]).

pub mod crunch;
pub mod functions;
pub mod hardness;
pub mod job_host;
pub mod reference;
pub mod report;
pub mod search;

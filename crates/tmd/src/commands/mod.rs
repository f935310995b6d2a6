//! One module per subcommand.

pub mod crunch;
pub mod crunch_list;
pub mod functions;
pub mod hardness;
pub mod search;
#[cfg(feature = "mpi")]
pub mod search_mpi;

/// An I/O error in words, without the OS error number.
pub(crate) fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

//! One module per subcommand.

pub mod crunch;
pub mod crunch_list;
pub mod crunch_pairs;
pub mod functions;
pub mod hardness;
pub mod reference;
pub mod report;
pub mod report_doc;
pub mod report_html;
pub mod report_plot;
pub mod report_sections;
pub mod report_table;
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

/// Opens a file to read, a directory counted as an error (`IsADirectory`) like a missing file.
pub(crate) fn open_readable(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(std::io::Error::from(std::io::ErrorKind::IsADirectory));
    }
    Ok(file)
}

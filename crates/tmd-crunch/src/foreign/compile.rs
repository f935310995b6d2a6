//! C sources compiled into shared objects, cached.
//!
//! The compiler is `$CC` (default `cc`) with `$TMD_CFLAGS` (default `-O2 -frounding-math`:
//! without `-frounding-math` GCC may fold or move arithmetic across the rounding mode the
//! target runs under), plus `-fPIC -shared`, and `-lm` after the source. The object goes to `$XDG_CACHE_HOME/tmd/c-targets` (or
//! `~/.cache/tmd/c-targets`), named by a hash of the source text, the compiler, its
//! `--version` output, the flags and the extra link arguments: a changed source or compiler
//! compiles anew. Headers the source includes are not part of the key.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tmd_core::InputError;

/// The flags used when `TMD_CFLAGS` is not set.
pub const DEFAULT_CFLAGS: &str = "-O2 -frounding-math";

/// The C compiler and its flags, from the environment.
pub struct Compiler {
    pub program: String,
    pub flags: Vec<String>,
}

impl Compiler {
    pub fn from_env() -> Compiler {
        let program = std::env::var("CC")
            .ok()
            .filter(|c| !c.trim().is_empty())
            .unwrap_or_else(|| "cc".to_string());
        let flags = std::env::var("TMD_CFLAGS").unwrap_or_else(|_| DEFAULT_CFLAGS.to_string());
        Compiler {
            program,
            flags: flags.split_whitespace().map(str::to_string).collect(),
        }
    }

    /// `cc --version`'s first line, which is part of the cache key.
    fn version(&self, spec: &str) -> Result<String, InputError> {
        let out = Command::new(&self.program)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                InputError::Usage(format!(
                    "target `{spec}`: cannot run the C compiler `{}` ({e}): install gcc or set CC",
                    self.program
                ))
            })?;
        let text = String::from_utf8_lossy(&out.stdout);
        Ok(text.lines().next().unwrap_or_default().to_string())
    }
}

/// Where compiled targets are kept.
pub fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("tmd").join("c-targets")
}

/// The process id and a count of calls in it.
fn unique_suffix() -> String {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}-{n}", std::process::id())
}

fn cache_key(source: &[u8], compiler: &Compiler, version: &str, link: &[String]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (source, &compiler.program, version, &compiler.flags, link).hash(&mut h);
    h.finish()
}

fn io_error(spec: &str, what: &str, path: &Path, e: std::io::Error) -> InputError {
    InputError::Usage(format!("target `{spec}`: {what} {}: {e}", path.display()))
}

/// The shared object compiled from `source` (a file) with the link arguments `link` after it
/// (`-lm` for a C target); the compiler's messages go to stderr as it writes them.
pub fn shared_object(spec: &str, source: &Path, link: &[String]) -> Result<PathBuf, InputError> {
    let text = std::fs::read(source).map_err(|e| io_error(spec, "cannot read", source, e))?;
    let compiler = Compiler::from_env();
    let version = compiler.version(spec)?;
    let key = cache_key(&text, &compiler, &version, link);
    let dir = cache_dir();
    let stem = source.file_stem().and_then(|s| s.to_str()).unwrap_or("c");
    let object = dir.join(format!("{stem}-{key:016x}.so"));
    if object.is_file() {
        return Ok(object);
    }
    std::fs::create_dir_all(&dir).map_err(|e| io_error(spec, "cannot create", &dir, e))?;
    // Compiled under a name of its own (process and call), then renamed: runs in parallel,
    // in other processes or threads, never see half a file.
    let partial = dir.join(format!(".{stem}-{key:016x}.{}.so", unique_suffix()));
    let status = Command::new(&compiler.program)
        .args(&compiler.flags)
        .args(["-fPIC", "-shared", "-o"])
        .arg(&partial)
        .arg(source)
        .args(link)
        .stdin(Stdio::null())
        // Its messages are on stderr; stdout stays the report's.
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| io_error(spec, "cannot run the C compiler on", source, e))?;
    if !status.success() {
        let _ = std::fs::remove_file(&partial);
        return Err(InputError::Usage(format!(
            "target `{spec}`: `{} {}` failed on {} ({status}; its messages are above)",
            compiler.program,
            compiler.flags.join(" "),
            source.display()
        )));
    }
    std::fs::rename(&partial, &object).map_err(|e| io_error(spec, "cannot write", &object, e))?;
    Ok(object)
}

/// Writes generated C source into the cache (named by its hash) and returns its path.
pub fn generated_source(spec: &str, name: &str, text: &str) -> Result<PathBuf, InputError> {
    let dir = cache_dir();
    std::fs::create_dir_all(&dir).map_err(|e| io_error(spec, "cannot create", &dir, e))?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    let path = dir.join(format!("{name}-{:016x}.c", h.finish()));
    if !path.is_file() {
        let partial = dir.join(format!(".{name}.{}.c", unique_suffix()));
        std::fs::write(&partial, text).map_err(|e| io_error(spec, "cannot write", &partial, e))?;
        std::fs::rename(&partial, &path).map_err(|e| io_error(spec, "cannot write", &path, e))?;
    }
    Ok(path)
}

//! `tmd search FUNC --from A --to B ...`: list the hard-to-round cases of a range
//! ([`tmd_search::job`]; under mpirun, `on_cluster`).
//!
//! Output goes to stdout or, with `--out FILE`, to a temporary file renamed to FILE only when
//! the search has finished, so FILE is never incomplete; a FILE that is a device or a FIFO is
//! written in place (`tmd_core::out_file`).

use super::job_host::{search_error as job_error, Terminal};
use tmd_search::job::{Outputs, SearchJob};
use tmd_search::SearchRequest;

#[cfg(feature = "mpi")]
mod on_cluster;

#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// A registered function (see `tmd functions`) or an expression in x, e.g. 'x*exp(x)'.
    pub function: String,
    /// First input (included); decimals are rounded to the format; -inf: the most negative
    /// finite number.
    #[arg(long, allow_hyphen_values = true)]
    pub from: String,
    /// End of the range (excluded); inf: after the largest finite number.
    #[arg(long, allow_hyphen_values = true)]
    pub to: String,
    /// binary16, bfloat16, binary32, binary64, binary80, binary128 or pN (N <= 64).
    #[arg(long, default_value = "binary64")]
    pub format: String,
    /// K: list inputs whose result lies within 2^-K ulp of a breakpoint (default: p).
    #[arg(long)]
    pub bits: Option<u32>,
    /// Breakpoints: all (format numbers and midpoints), directed or nearest.
    #[arg(long, default_value = "all")]
    pub breakpoints: String,
    /// auto (exhaustive for p <= 24; above, regular-or-lattice; reference for an expression
    /// without a Taylor model), regular, lefevre,
    /// lefevre-swap, exhaustive (tabulated differences on every input), lattice (Stehlé,
    /// Lefèvre and Zimmermann's lattice method on intervals of each chunk, on the cores),
    /// regular-or-lattice (per chunk the cheaper of the two by a measured cost model: the
    /// regular test on the cores or on the device, the lattice on the cores) or
    /// reference (MPFR on every input).
    #[arg(long, default_value = "auto")]
    pub algorithm: String,
    /// With --algorithm lattice: one lattice shape D,A for every chunk (degree D of the
    /// polynomial, 1..=4, and Coppersmith's parameter A, 1..=4) instead of the shape each
    /// chunk's cost model chooses.
    #[arg(long, value_name = "D,A")]
    pub lattice_shape: Option<String>,
    /// Largest domain size N of the lower-bound tests (a power of two, 8..=2^24).
    #[arg(long, default_value_t = 1 << 15)]
    pub domain_size: u64,
    /// Phase-2 split: failing domains are cut into this many subdomains (a power of two).
    #[arg(long, default_value_t = 8)]
    pub kappa: u64,
    /// Subtractions tried before a division in the lower-bound tests (0: always divide);
    /// default 0 on the CPU, 3 on a device (where a 64-bit division is a long software
    /// sequence; docs/gpu.md). Same output and counts.
    #[arg(long)]
    pub division_threshold: Option<u32>,
    /// log2 of the inputs per chunk (one polynomial; one device launch): 12..=44; default 34
    /// on the CPU, 38 on a device (more work-items per launch; docs/gpu.md), and up to 40
    /// where the function is nearly flat (a polynomial of degree 2 holds over the chunk).
    /// Given, it holds everywhere. The phase counts depend on it; the cases do not.
    #[arg(long)]
    pub chunk_bits: Option<u32>,
    /// On a device (the default there): phases 2 and 3 in kernels of their own over the
    /// compacted failures of the phase before (Fortin, Gouicem, Graillat, TOMS 2016, §4.3.1),
    /// instead of inline in the phase-1 work-item (less divergence; docs/gpu.md). Same output
    /// and counts.
    #[arg(long, conflicts_with = "inline_phases")]
    pub split_phases: bool,
    /// On a device: phases 2 and 3 inline in the phase-1 work-item that meets a failure (the
    /// warp waits for it), instead of --split-phases.
    #[arg(long)]
    pub inline_phases: bool,
    /// On a device: domains per work-item of the phase-1 kernel, 32, 64 or 128 (default 32:
    /// more per work-item means fewer table jumps, less parallelism). Same output and counts.
    #[arg(long)]
    pub domains_per_item: Option<u64>,
    /// On a device: chunks of fewer domains run on the CPU cores instead (default 0: every
    /// chunk on the device). Nearly flat chunks have few, large domains, too few work-items to
    /// fill a GPU: 131072 made the flat binades of binary64 exp 3-5 times faster on an H200,
    /// but the pieces next to all-hard ranges slower. Same output and counts.
    #[arg(long)]
    pub device_min_domains: Option<u64>,
    /// On a device: work-items per work-group (CUDA block size) of the phase-1 kernel, a power
    /// of two from 32 to 1024; default: 128 on CUDA, the driver's choice on OpenCL.
    #[arg(long)]
    pub work_group: Option<u32>,
    /// On a device: also measure the NMDM over the 32 lanes of real warps (one more kernel and
    /// copy per device call), written to --stats as `nmdm_warp` (zero groups without it).
    #[arg(long, requires = "stats")]
    pub warp_nmdm: bool,
    /// Journal directory: a killed run restarted with the same command and DIR continues
    /// where it stopped, with the same final output.
    #[arg(long)]
    pub resume: Option<std::path::PathBuf>,
    /// cpu, opencl (phases 1-3 on an OpenCL device: a GPU, or PoCL on the CPU) or cuda (an
    /// NVIDIA GPU; kernels compiled by NVRTC). The polynomials and the MPFR verification stay
    /// on the CPU.
    #[arg(long, default_value = "cpu")]
    pub backend: String,
    /// The device number for --backend opencl (in the order of `clinfo -l`) or cuda; default
    /// 0, and under mpirun the rank's local rank (one device per rank on each node).
    #[arg(long)]
    pub device: Option<usize>,
    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(long, value_parser = crate::cli::parse_threads)]
    pub threads: Option<usize>,
    /// One JSON object per case (fields: docs/definitions.md).
    #[arg(long)]
    pub json: bool,
    /// Write the cases to FILE instead of stdout, as stdout would have them (the table, or
    /// JSON lines with --json); a FILE ending in .wc gets CORE-MATH's worst-case format.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Write counts and timings to FILE as JSON.
    #[arg(long)]
    pub stats: Option<std::path::PathBuf>,
    /// Print the plan instead of searching: per piece of the range (binades, and where a rule
    /// decides), the method and the time projected from short timed samples on the backend.
    #[arg(long, conflicts_with_all = ["out", "stats", "resume"])]
    pub plan: bool,
    /// Also list exact cases (f(x) is a breakpoint).
    #[arg(long)]
    pub exact: bool,
    /// List every input of a piece a proven rule makes all hard (f(x) next to a constant or to
    /// x), one line each, decided by MPFR, instead of one range record per piece.
    #[arg(long)]
    pub expand_ranges: bool,
    /// Cap of the Ziv loop, in bits.
    #[arg(long, default_value_t = tmd_core::hardness::DEFAULT_MAX_PRECISION)]
    pub max_precision: u32,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The request of `tmd search`'s flags.
fn request(args: &SearchArgs) -> SearchRequest {
    SearchRequest {
        function: args.function.clone(),
        format: args.format.clone(),
        from: args.from.clone(),
        to: args.to.clone(),
        bits: args.bits,
        breakpoints: args.breakpoints.clone(),
        exact: args.exact,
        expand_ranges: args.expand_ranges,
        max_precision: args.max_precision,
        algorithm: args.algorithm.clone(),
        lattice_shape: args.lattice_shape.clone(),
        backend: args.backend.clone(),
        domain_size: args.domain_size,
        kappa: args.kappa,
        division_threshold: args.division_threshold,
        chunk_bits: args.chunk_bits,
        split_phases: args.split_phases,
        inline_phases: args.inline_phases,
        work_group: args.work_group,
        domains_per_item: args.domains_per_item,
        device_min_domains: args.device_min_domains,
        warp_nmdm: args.warp_nmdm,
    }
}

/// Where the results of `tmd search`'s flags go.
fn outputs(args: &SearchArgs) -> Outputs {
    Outputs {
        out: args.out.clone(),
        stats: args.stats.clone(),
        resume: args.resume.clone(),
        json: args.json,
        version: env!("TMD_VERSION").to_string(),
        command_line: std::iter::once("tmd".to_string())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

pub fn run(args: &SearchArgs) -> anyhow::Result<()> {
    #[cfg(feature = "mpi")]
    if let Some(cluster) = crate::cluster::MpiCluster::from_env() {
        return on_cluster::run(args, &request(args), &outputs(args), &cluster);
    }
    let terminal = Terminal { quiet: args.quiet };
    let mut job = SearchJob::new(&request(args), outputs(args), args.threads).map_err(job_error)?;
    job.attach_device(args.device, tmd_gpu::filter::open_search_device)
        .map_err(job_error)?;
    if args.plan {
        let mut stdout = std::io::stdout().lock();
        return job.write_plan(&mut stdout, &terminal).map_err(job_error);
    }
    job.run(Box::new(std::io::stdout()), &terminal)
        .map_err(job_error)
}

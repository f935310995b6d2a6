//! `tmd hardness FUNC X... [--file F.wc]`: exact classification of f(x) for each input
//! ([`tmd_search::hardness`]).

use tmd_crunch::input_list::SkippedLines;
use tmd_search::hardness::{HardnessError, HardnessJob, Tally};

#[derive(clap::Args, Debug)]
pub struct HardnessArgs {
    /// A registered function (see `tmd functions`) or an expression in x, e.g. 'x*exp(x)'.
    pub function: String,
    /// Inputs, as hex floats (0x1.8p+0) or decimals; each must be a number of the format.
    #[arg(required_unless_present = "file", allow_hyphen_values = true)]
    pub inputs: Vec<String>,
    /// Also classify every input of a worst-case file (CORE-MATH's `.wc` format: one number
    /// per line, first token, `#` comments; nan and inf entries are skipped and counted, and
    /// so are lines without a number of the format, with a note on stderr).
    #[arg(long)]
    pub file: Option<std::path::PathBuf>,
    /// With --file: refuse the file (exit 2, before any output for a regular file) when a
    /// line holds no number of the format, instead of skipping it with a note.
    #[arg(long, requires = "file")]
    pub strict: bool,
    /// binary16, bfloat16, binary32, binary64, binary80, binary128 or pN (N <= 64).
    #[arg(long, default_value = "binary64")]
    pub format: String,
    /// One JSON object per input.
    #[arg(long)]
    pub json: bool,
    /// Cap of the Ziv loop, in bits; beyond it an input is reported `unresolved`.
    #[arg(long, default_value_t = tmd_core::hardness::DEFAULT_MAX_PRECISION)]
    pub max_precision: u32,
}

pub fn run(args: &HardnessArgs) -> anyhow::Result<()> {
    let job = HardnessJob::new(&args.function, &args.format, args.max_precision, args.json)?;
    let format = job.format();
    let inputs = job.parse_inputs(&args.inputs)?;
    let mut out = std::io::stdout().lock();
    let Some(path) = &args.file else {
        return Ok(job.write_batch(&inputs, &mut out, &mut Tally::default())?);
    };
    let name = path.display().to_string();
    let mut not_inputs = SkippedLines::default();
    let mut note = |line: usize, why: String| not_inputs.note(line, why);
    let keep_going = (!args.strict).then_some(&mut note as _);
    let (tally, skipped) = job
        .write_with_list(&inputs, path, keep_going, &mut out)
        .map_err(|e| match e {
            HardnessError::Input(e) => anyhow::Error::from(e),
            HardnessError::Io(e) => e.into(),
        })?;
    if skipped > 0 {
        eprintln!("tmd: note: {skipped} special entries (nan, inf) of {name} skipped");
    }
    let read = tally.inputs + skipped;
    tmd_crunch::input_list::note_skipped(&name, format.name(), &not_inputs, read)?;
    eprintln!("tmd: {}", tally.line());
    Ok(())
}

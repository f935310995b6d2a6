//! The double- and quad-word `*_elementwise` kernels (programs `XfloatDoubleWord` and
//! `XfloatQuadWord`) for any [`Backend`]: the word packing, and timed runs of one kernel, so
//! that the bit-for-bit checks against tmd-xfloat and the throughput measurements
//! (`examples/xfloat_throughput.rs`) run on every device.

use crate::backend::{Arg, Backend, Grid, Word};
use crate::{GpuError, Timed};
use std::time::Instant;
use tmd_kernels::Id;

/// A base format of the double- and quad-word kernels.
pub trait DwWord: Word {
    /// The double-word kernels' instance prefix.
    const PREFIX: &'static str;
    /// The quad-word kernels' instance prefix.
    const QUAD_PREFIX: &'static str;
}

impl DwWord for f32 {
    const PREFIX: &'static str = "df64";
    const QUAD_PREFIX: &'static str = "qf128";
}

impl DwWord for f64 {
    const PREFIX: &'static str = "dd";
    const QUAD_PREFIX: &'static str = "qd";
}

/// The operations of the `*_elementwise` kernels of double and quad words (their `op`
/// argument, the same codes in double_word_ops.cl and quad_word_ops.cl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DwOp {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
    Sqrt = 4,
    Recip = 5,
    Exp = 6,
    /// expm1 of `a` (kernels/multi_word_exp_log.cl).
    Expm1 = 7,
    /// log of `a`.
    Log = 8,
    /// log1p of `a`.
    Log1p = 9,
    /// sinh of `a` (kernels/multi_word_hyperbolic.cl).
    Sinh = 10,
    /// cosh of `a`.
    Cosh = 11,
    /// tanh of `a`.
    Tanh = 12,
    /// sin of `a` (kernels/multi_word_trig.cl).
    Sin = 13,
    /// cos of `a`.
    Cos = 14,
    /// tan of `a`.
    Tan = 15,
    /// atan of `a`.
    Atan = 16,
}

/// The word arrays the `*_elementwise` kernels take for double words: a_hi, a_lo, b_hi, b_lo.
fn double_word_arrays<W: Copy>(a: &[(W, W)], b: &[(W, W)]) -> Vec<Vec<W>> {
    assert_eq!(a.len(), b.len(), "operands of equal length");
    let split = |v: &[(W, W)]| -> (Vec<W>, Vec<W>) { v.iter().copied().unzip() };
    let ((a_hi, a_lo), (b_hi, b_lo)) = (split(a), split(b));
    vec![a_hi, a_lo, b_hi, b_lo]
}

/// Double words from the kernels' (leading, trailing) output arrays.
fn double_words_from<W: Copy>(words: &[Vec<W>]) -> Vec<(W, W)> {
    words[0]
        .iter()
        .copied()
        .zip(words[1].iter().copied())
        .collect()
}

/// The word arrays the `*_elementwise` kernels take for quad words: one per word, a0..a3
/// then b0..b3.
fn quad_word_arrays<W: Copy>(a: &[[W; 4]], b: &[[W; 4]]) -> Vec<Vec<W>> {
    assert_eq!(a.len(), b.len(), "operands of equal length");
    [a, b]
        .iter()
        .flat_map(|operand| (0..4).map(move |k| operand.iter().map(|w| w[k]).collect()))
        .collect()
}

/// Quad words (most significant first) from the kernels' four output arrays.
fn quad_words_from<W: Copy>(words: &[Vec<W>]) -> Vec<[W; 4]> {
    (0..words[0].len())
        .map(|i| [words[0][i], words[1][i], words[2][i], words[3][i]])
        .collect()
}

/// The double-word kernel `op` element-wise, timed: `r[i] = a[i] op b[i]` (or `op a[i]`),
/// words as (leading, trailing) pairs, and the seconds of each of `repeats` launches.
pub(crate) fn double_word<B: Backend, W: DwWord>(
    b: &B,
    op: DwOp,
    a: &[(W, W)],
    bw: &[(W, W)],
    repeats: usize,
) -> Result<Timed<(W, W)>, GpuError> {
    let name = format!("{}_elementwise", W::PREFIX);
    let inputs = double_word_arrays(a, bw);
    let (words, seconds) =
        elementwise_timed(b, Id::XfloatDoubleWord, &name, op, &inputs, 2, repeats)?;
    Ok((double_words_from(&words), seconds))
}

/// The quad-word kernel `op` element-wise, timed, words most significant first.
pub(crate) fn quad_word<B: Backend, W: DwWord>(
    b: &B,
    op: DwOp,
    a: &[[W; 4]],
    bw: &[[W; 4]],
    repeats: usize,
) -> Result<Timed<[W; 4]>, GpuError> {
    let name = format!("{}_elementwise", W::QUAD_PREFIX);
    let inputs = quad_word_arrays(a, bw);
    let (words, seconds) =
        elementwise_timed(b, Id::XfloatQuadWord, &name, op, &inputs, 4, repeats)?;
    Ok((quad_words_from(&words), seconds))
}

/// Runs kernel `name` of program `id` over the word arrays `inputs` (all of one length n),
/// writing `outputs` word arrays: once untimed (the program is built before it), then
/// `repeats` times timed, each launch to its completion on the host clock. The copies are
/// outside the timed region, so that the times are those of the kernel alone. Nothing runs
/// for n = 0.
fn elementwise_timed<B: Backend, W: DwWord>(
    b: &B,
    id: Id,
    name: &str,
    op: DwOp,
    inputs: &[Vec<W>],
    outputs: usize,
    repeats: usize,
) -> Result<Timed<Vec<W>>, GpuError> {
    let n = inputs[0].len();
    if n == 0 {
        return Ok((vec![Vec::new(); outputs], Vec::new()));
    }
    if u32::try_from(n).is_err() {
        return Err(GpuError::Runtime(format!(
            "{name}: {n} elements, at most 2^32 - 1"
        )));
    }
    let program = b.program(id)?;
    let group = B::ELEMENTWISE_GROUP.min(b.max_group(&program, name)?.max(1));
    b.with_queues(|q, _| {
        let ins = inputs
            .iter()
            .map(|v| b.upload(q, v))
            .collect::<Result<Vec<_>, _>>()?;
        let outs = (0..outputs)
            .map(|_| b.scratch::<W>(q, n))
            .collect::<Result<Vec<_>, _>>()?;
        b.sync(q)?;
        let mut args: Vec<_> = ins.iter().chain(&outs).map(|v| b.arg(q, v)).collect();
        args.extend([Arg::U64(n as u64), Arg::I32(op as i32)]);
        let mut seconds = Vec::with_capacity(repeats);
        for timed in std::iter::once(false).chain(std::iter::repeat_n(true, repeats)) {
            let started = Instant::now();
            b.launch(q, &program, name, Grid::groups_of(n, group), &args)?;
            b.sync(q)?;
            if timed {
                seconds.push(started.elapsed().as_secs_f64());
            }
        }
        let words = outs
            .iter()
            .map(|buffer| b.download(q, buffer, n))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((words, seconds))
    })
}

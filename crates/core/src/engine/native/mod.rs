//! The native engine: pure Rust kernels, generic over f32/f64, parallel over series.
//!
//! Each level is a polyphase correlation: the extended input is split into its even and
//! odd samples, after which every filter tap is one multiply-add of contiguous vectors.
//! The correlation is written over [`Vector`] and compiled for AVX-512, AVX2+FMA or plain
//! Rust, chosen at run time. Scratch buffers live per rayon task (a chunk of series), so
//! the hot loop allocates nothing per series.

mod dispatch;
mod kernel;
mod tasks;
mod windows;

pub use super::lanes::LANES;
pub use tasks::SlicesScratch;
pub use windows::{summarize_slices, summarize_windows, summarize_windows_on};

use super::plan::Plan;
use super::summary::SeriesSummary;
use super::StatsRequest;
use crate::numeric::memory;
use crate::numeric::real::Real;
use crate::numeric::simd::Isa;
use rayon::prelude::*;

/// Series per rayon task: big enough to amortise scheduling, small enough to balance.
const CHUNK: usize = 64;
/// `data` as f64 when the plan transforms this precision in f64 (`Plan::work_dtype`).
fn widened<T: Real>(data: &[T], plan: &Plan) -> Option<Vec<f64>> {
    (plan.work_dtype(T::DTYPE) != T::DTYPE).then(|| data.iter().map(|v| v.to_f64()).collect())
}

/// Decompose every series of `data` (row-major, `plan.len` samples each).
pub fn decompose<T: Real>(data: &[T], plan: &Plan) -> Vec<T> {
    decompose_on(Isa::active(), data, plan)
}

/// `decompose` with the kernels of `isa` (which this CPU must support). Every instruction
/// set gives the same bits.
pub fn decompose_on<T: Real>(isa: Isa, data: &[T], plan: &Plan) -> Vec<T> {
    if let Some(wide) = widened(data, plan) {
        return decompose_on(isa, &wide, plan)
            .into_iter()
            .map(T::from_f64)
            .collect();
    }
    let rows = data.len() / plan.len.max(1);
    let mut out = memory::zeroed::<T>(rows * plan.coeffs_per_series());
    fill(isa, data, plan, &mut out);
    out
}

/// `decompose` into a caller's buffer of `rows × plan.coeffs_per_series()` (plan once,
/// execute many: a buffer reused across batches costs no page faults). Inputs the plan
/// transforms in f64 (`Plan::work_dtype`) go through `decompose` instead.
pub fn decompose_into<T: Real>(data: &[T], plan: &Plan, out: &mut [T]) {
    fill(Isa::active(), data, plan, out)
}

fn fill<T: Real>(isa: Isa, data: &[T], plan: &Plan, out: &mut [T]) {
    assert!(isa.supported(), "the CPU lacks {}", isa.name());
    let (len, stride) = (plan.len, plan.coeffs_per_series());
    let rows = data.len() / len.max(1);
    assert_eq!(out.len(), rows * stride, "decompose_into: output size");
    assert_eq!(
        plan.work_dtype(T::DTYPE),
        T::DTYPE,
        "decompose_into: widened plan"
    );
    if rows == 0 || stride == 0 {
        return;
    }
    data.par_chunks(len * CHUNK)
        .zip(out.par_chunks_mut(stride * CHUNK))
        .for_each(|(xs, os)| dispatch::decompose_rows(isa, xs, os, plan));
}

/// Summaries of every series: band statistics taken while the coefficients are in cache,
/// plus the Time-LLM statistics of the series itself that `stats` asks for.
pub fn summarize<T: Real>(
    data: &[T],
    plan: &Plan,
    stats: Option<StatsRequest>,
) -> Vec<SeriesSummary> {
    summarize_on(Isa::active(), data, plan, stats)
}

/// `summarize` with the kernels of `isa` (which this CPU must support).
pub fn summarize_on<T: Real>(
    isa: Isa,
    data: &[T],
    plan: &Plan,
    stats: Option<StatsRequest>,
) -> Vec<SeriesSummary> {
    assert!(isa.supported(), "the CPU lacks {}", isa.name());
    if let Some(wide) = widened(data, plan) {
        return summarize_on(isa, &wide, plan, stats);
    }
    let len = plan.len;
    let rows = data.len() / len.max(1);
    let mut out = vec![SeriesSummary::default(); rows];
    if rows == 0 {
        return out;
    }
    data.par_chunks(len * CHUNK)
        .zip(out.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (xs, sums))| {
            dispatch::summarize_rows(isa, xs, sums, plan, c * CHUNK, stats)
        });
    out
}

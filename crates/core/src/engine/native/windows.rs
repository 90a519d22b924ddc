//! Summaries of whole window batches and of rows in memory through the eight-wide lane
//! kernels (`lanes`), with the sliding order statistics beside them.

use super::dispatch;
use super::tasks::SlicesScratch;
use crate::engine::batch::WindowBatch;
use crate::engine::lanes::LANES;
use crate::engine::plan::Plan;
use crate::engine::summary::SeriesSummary;
use crate::engine::StatsRequest;
use crate::numeric::parallel;
use crate::numeric::real::Real;
use crate::numeric::simd::Isa;
use crate::timing::StageClock;
use rayon::prelude::*;

/// Windows per rayon task of `summarize_windows`: each task restarts its sliding medians.
const TASK_WINDOWS: usize = 256;

/// Summaries of every series of a window batch, computed in `W` (the plan's working
/// precision), without ever materialising the batch: each task reads its windows block by
/// block, normalised, and takes min/max/median from sliding sorted windows of the raw
/// channel (normalisation is monotone, so those map straight across). Thread time per
/// stage goes to `clock`.
pub fn summarize_windows<W: Real>(
    batch: &WindowBatch<'_>,
    plan: &Plan,
    stats: Option<StatsRequest>,
    clock: &StageClock,
) -> Vec<SeriesSummary> {
    summarize_windows_on::<W>(Isa::active(), batch, plan, stats, clock)
}

/// `summarize_windows` with the kernels of `isa` (which this CPU must support).
pub fn summarize_windows_on<W: Real>(
    isa: Isa,
    batch: &WindowBatch<'_>,
    plan: &Plan,
    stats: Option<StatsRequest>,
    clock: &StageClock,
) -> Vec<SeriesSummary> {
    assert!(isa.supported(), "the CPU lacks {}", isa.name());
    debug_assert_eq!(batch.seq_len(), plan.len);
    let n = batch.channel_count();
    let mut out = vec![SeriesSummary::default(); batch.series()];
    if out.is_empty() {
        return out;
    }
    // A small batch (a training step's 32 windows) is still spread over every thread.
    let windows = batch.series() / n.max(1);
    let task = windows
        .div_ceil(rayon::current_num_threads())
        .clamp(1, TASK_WINDOWS);
    out.par_chunks_mut(task * n)
        .enumerate()
        .for_each(|(t, sums)| {
            dispatch::summarize_task::<W>(isa, batch, t * task, sums, plan, stats, clock)
        });
    out
}

/// Summaries of series held as rows in memory (a training step's batch), in their own
/// precision `W` (the plan's working one): the lane kernels of `summarize_windows` read
/// straight from the rows, so every bit is the window path's. The calling thread works
/// too, a lane group at a time (`parallel::for_each_piece_with`). Beside each lane group's
/// summaries, `then(summaries)`, computed by the thread that made them while they are in
/// its cache (what a caller would otherwise compute after the pass, alone): one `U` per
/// [`LANES`] rows. `Err(k)`: row k holds a sample that is not finite.
#[allow(clippy::type_complexity)]
pub fn summarize_slices<W: Real, U: Send + Default>(
    rows: &[&[W]],
    plan: &Plan,
    stats: Option<StatsRequest>,
    then: impl Fn(&[SeriesSummary]) -> U + Sync,
) -> Result<(Vec<SeriesSummary>, Vec<U>), usize> {
    let isa = Isa::active();
    debug_assert_eq!(plan.work_dtype(W::DTYPE), W::DTYPE);
    debug_assert!(rows.iter().all(|r| r.len() == plan.len));
    // Made in place, never `vec![x; n]`, which copies a whole default summary per item.
    let mut out: Vec<SeriesSummary> = (0..rows.len()).map(|_| Default::default()).collect();
    let mut per_group: Vec<U> = (0..rows.len().div_ceil(LANES))
        .map(|_| Default::default())
        .collect();
    parallel::for_each_piece_with(
        &mut out,
        LANES,
        &mut per_group,
        parallel::State {
            key: (plan.key(), stats),
            make: || SlicesScratch::new(plan, stats),
        },
        |scratch, first, sums, u| {
            let rows = &rows[first..first + sums.len()];
            dispatch::slices_task::<W>(isa, rows, first, plan, scratch, sums)?;
            *u = then(sums);
            Ok::<_, usize>(())
        },
    )?;
    Ok((out, per_group))
}

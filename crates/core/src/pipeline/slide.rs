//! The sliding path's place in the pipeline: whether a run may slide (`--path`), and a
//! chunk's features from the sliding summaries, the unsettled groups recomputed per window.

use super::{features_of, Groups, Shape};
use crate::engine::sliding::{self, SlidePlan};
use crate::engine::{self, DType, EngineKind, SeriesSummary, SeriesTol, StatsRequest, WindowBatch};
use crate::features::{self, margin, Features, Reads};
use crate::timing::{Stage, StageClock, Timer};
use crate::wavelet::Mode;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::time::Instant;

/// How band summaries are computed (`--path`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum PathChoice {
    /// Slide wherever every value written stays the same: the prompts of `bench` (and of
    /// `prompts --path sliding`); never the feature values of `features`. Tried on the
    /// first 4,096 windows and kept only where it settles most of their prompts
    #[default]
    Auto,
    /// Every window transformed on its own, the reference
    Window,
    /// Also for `prompts`: the prompts stay the same, the feature values written beside
    /// them may differ in their last digits (float32: about 1e-6 relative)
    Sliding,
}

/// Why a run goes window by window instead of sliding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoSlide {
    #[error("window by window, as asked")]
    WindowPath,
    #[error("feature values are written out")]
    FeaturesWritten,
    #[error("feature values are written beside the prompts (the sliding path slides anyway)")]
    FeaturesBeside,
    #[error("auto: sliding recomputed {redone} of the first {windows} windows, so the rest went window by window")]
    OnTrial { redone: usize, windows: usize },
    #[error("one window: nothing to slide over")]
    OneWindow,
    #[error("the {0} engine transforms each window")]
    Engine(EngineKind),
    #[error("the template prints wavelet features' numbers")]
    PrintsNumbers,
    #[error("stride {0} is over a quarter of the window")]
    WideStride(usize),
    #[error("mode {0} extrapolates: float32's bound there is too loose")]
    Extrapolates(Mode),
    #[error("the windows are too short for the filter to slide")]
    ShortWindows,
}

/// The sliding path (`engine::sliding`) for this run, or why the run goes window by
/// window. The one place that decides it.
pub(crate) fn sliding_path(
    engine: EngineKind,
    shape: &Shape<'_>,
) -> Result<(SlidePlan, Reads), NoSlide> {
    let reads = shape.method.slide.clone()?;
    if shape.windows.count < 2 {
        return Err(NoSlide::OneWindow);
    }
    if engine != EngineKind::Native {
        return Err(NoSlide::Engine(engine));
    }
    if reads.numbers {
        return Err(NoSlide::PrintsNumbers);
    }
    let w = shape.windows;
    // A task transforms stride x windows + seq_len samples once; past a quarter of the
    // window, that is no longer less than transforming each window.
    if w.stride * 4 > w.seq_len {
        return Err(NoSlide::WideStride(w.stride));
    }
    if shape.plan.mode.extrapolates() && shape.method.dtype == DType::F32 {
        return Err(NoSlide::Extrapolates(shape.plan.mode));
    }
    let sp = SlidePlan::new(shape.plan).ok_or(NoSlide::ShortWindows)?;
    Ok((sp, reads))
}

/// One chunk on the sliding path: every group's features from the sliding summaries, and
/// those of each group that is not settled (`features::margin`) again from the per-window
/// path's. Returns the features and how many windows were recomputed.
pub(super) fn slide_chunk(
    shape: &Shape<'_>,
    batch: &WindowBatch<'_>,
    sp: &SlidePlan,
    reads: &Reads,
    groups: &Groups,
    stats: Option<StatsRequest>,
    timer: &mut Timer,
) -> (Vec<Features>, usize) {
    let (sums, tols) = summarize(shape, batch, std::slice::from_ref(sp), stats, timer)
        .pop()
        .unwrap_or_default();
    settle(shape, batch, (&sums, &tols), reads, groups, stats, timer)
}

/// The sliding summaries and bounds of `batch` under each of `sps` (`shape`'s run at
/// increasing levels, see `sliding::summarize_levels`), in the plan's working precision,
/// their time charged to `timer`'s stages.
pub(super) fn summarize(
    shape: &Shape<'_>,
    batch: &WindowBatch<'_>,
    sps: &[SlidePlan],
    stats: Option<StatsRequest>,
    timer: &mut Timer,
) -> Vec<(Vec<SeriesSummary>, Vec<SeriesTol>)> {
    let clock = StageClock::default();
    let t = Instant::now();
    let out = match shape.plan.work_dtype(shape.method.dtype) {
        DType::F32 => sliding::summarize_levels::<f32>(batch, sps, stats, &clock),
        DType::F64 => sliding::summarize_levels::<f64>(batch, sps, stats, &clock),
    };
    clock.charge(t.elapsed(), timer);
    out
}

/// A chunk's features from its sliding summaries and their bounds under `shape`'s plan,
/// those of each group that is not settled (`features::margin`) again from the
/// per-window path's. Returns the features and how many windows were recomputed.
pub(super) fn settle(
    shape: &Shape<'_>,
    batch: &WindowBatch<'_>,
    (sums, tols): (&[SeriesSummary], &[SeriesTol]),
    reads: &Reads,
    groups: &Groups,
    stats: Option<StatsRequest>,
    timer: &mut Timer,
) -> (Vec<Features>, usize) {
    let work = shape.plan.work_dtype(shape.method.dtype);
    let mut feats = features_of(sums, groups, timer);
    let t = Instant::now();
    let n = shape.table.channels.len();
    // The windows of each unsettled group; series of one window share one recomputation.
    let mut redo: Vec<(Range<usize>, Vec<usize>)> = Vec::new();
    let unsettled: Vec<usize> = (0..groups.len())
        .into_par_iter()
        .filter(|&g| {
            let r = groups[g].0.clone();
            !margin::settled(&sums[r.clone()], &tols[r], &feats[g], reads)
        })
        .collect();
    for g in unsettled {
        let r = &groups[g].0;
        let wins = batch.range.start + r.start / n..batch.range.start + r.end.div_ceil(n);
        match redo.last_mut() {
            Some((last, gs)) if *last == wins => gs.push(g),
            _ => redo.push((wins, vec![g])),
        }
    }
    timer.add(Stage::Difficulty, t.elapsed());

    let clock = StageClock::default();
    let t = Instant::now();
    let exact: Vec<(usize, Features)> = redo
        .par_iter()
        .flat_map_iter(|(wins, gs)| {
            let b = WindowBatch {
                range: wins.clone(),
                ..batch.clone()
            };
            let sums = match work {
                DType::F32 => {
                    engine::native::summarize_windows::<f32>(&b, shape.plan, stats, &clock)
                }
                DType::F64 => {
                    engine::native::summarize_windows::<f64>(&b, shape.plan, stats, &clock)
                }
            };
            let first = (wins.start - batch.range.start) * n;
            gs.iter()
                .map(|&g| {
                    let r = &groups[g].0;
                    (g, features::compute(&sums[r.start - first..r.end - first]))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    clock.charge(t.elapsed(), timer);
    for (g, f) in exact {
        feats[g] = f;
    }
    (feats, redo.iter().map(|(w, _)| w.len()).sum())
}

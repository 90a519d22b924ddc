//! Runs that differ only in their level, over one table at once (a sweep's levels of one
//! wavelet and mode): where they slide, the levels they share are transformed once
//! (`sliding::summarize_levels`); each run's features, settled prompts, trial and units
//! are otherwise what [`features`] gives it alone, to the bit.

use super::slide::{settle, sliding_path, summarize};
use super::{features, features_of, groups, push_units, NoSlide, Shape};
use crate::engine::sliding::SlidePlan;
use crate::engine::{self, Engine, EngineError};
use crate::features::{Aggregate, Features, Reads, Unit};
use crate::timing::{PathUsed, Stage, Timer};
use std::time::Instant;

/// One run of the ones going through together.
struct Run<'s, 'a> {
    shape: &'s Shape<'a>,
    /// Its sliding plan, while it slides.
    slide: Result<(SlidePlan, Reads), NoSlide>,
    path: PathUsed,
    units: Vec<Unit>,
}

/// Each run's units, as [`features`] computes them one run at a time. `shapes` are one
/// run's windows, table and method at different levels of one wavelet and mode, by
/// increasing level (runs of one `RunSpec` but for the level); they are refused otherwise.
pub(crate) fn features_together(
    engine: &mut Box<dyn Engine>,
    notice: &mut Option<String>,
    shapes: &[Shape<'_>],
    timer: &mut Timer,
) -> Result<Vec<Vec<Unit>>, EngineError> {
    if let Some(why) = differ(shapes) {
        return Err(EngineError::Internal(format!(
            "runs computed together differ in more than their level: {why}"
        )));
    }
    let mut runs: Vec<Run<'_, '_>> = shapes
        .iter()
        .map(|shape| {
            let slide = sliding_path(engine.kind(), shape);
            Run {
                shape,
                path: PathUsed {
                    sliding: slide.is_ok(),
                    why_not: slide.as_ref().err().map(NoSlide::to_string),
                    windows: shape.windows.count,
                    recomputed: 0,
                },
                slide,
                units: Vec::new(),
            }
        })
        .collect();
    // Those that cannot slide share nothing: each goes on its own.
    let mut alone = Vec::new();
    for (k, run) in runs.iter_mut().enumerate() {
        if run.slide.is_err() {
            run.units = features(engine, notice, run.shape, timer, |_| true)?;
            alone.push(k);
        }
    }
    let sliding: Vec<usize> = (0..runs.len()).filter(|k| !alone.contains(k)).collect();
    if let Some(&first) = sliding.first() {
        let shape = runs[first].shape;
        slide_together(engine, notice, shape, &mut runs, &sliding, timer)?;
    }
    // `features` told the timer of the runs that went alone.
    Ok(runs
        .into_iter()
        .enumerate()
        .map(|(k, run)| {
            if !alone.contains(&k) {
                timer.add_path(run.path);
            }
            run.units
        })
        .collect())
}

/// Why `shapes` are not one run at different levels, if they are not.
fn differ(shapes: &[Shape<'_>]) -> Option<&'static str> {
    let first = shapes.first()?;
    let (p, m) = (first.plan, first.method);
    shapes.windows(2).find_map(|pair| {
        let (a, b) = (pair[0].plan, pair[1].plan);
        let method = pair[1].method;
        if !std::ptr::eq(pair[1].table, first.table) || pair[1].windows != first.windows {
            Some("table or windows")
        } else if b.wavelet.name != p.wavelet.name || b.mode != p.mode || b.len != p.len {
            Some("wavelet, mode or window length")
        } else if b.level <= a.level {
            Some("levels not increasing")
        } else if method.normalize != m.normalize
            || method.dtype != m.dtype
            || method.aggregate != m.aggregate
            || method.batch_size != m.batch_size
            || method.statistics != m.statistics
            || method.slide_on_trial != m.slide_on_trial
            || method.slide != m.slide
            || method.time_labels != m.time_labels
        {
            Some("method")
        } else {
            None
        }
    })
}

/// The units a run over `shape`'s windows makes.
fn unit_count(shape: &Shape<'_>) -> usize {
    let total = shape.windows.count;
    match shape.method.aggregate {
        Aggregate::Series => total * shape.table.channels.len(),
        Aggregate::Sample => total,
        Aggregate::Batch => total.div_ceil(shape.method.batch_size.max(1)),
    }
}

/// Those of the runs `sliding` still on the sliding path, and their plans.
fn still_sliding(runs: &[Run<'_, '_>], sliding: &[usize]) -> (Vec<usize>, Vec<SlidePlan>) {
    let live: Vec<usize> = sliding
        .iter()
        .copied()
        .filter(|&k| runs[k].slide.is_ok())
        .collect();
    let plans: Vec<SlidePlan> = live
        .iter()
        .filter_map(|&k| runs[k].slide.as_ref().ok().map(|(sp, _)| sp.clone()))
        .collect();
    (live, plans)
}

/// The runs `sliding` (each slides, by increasing level), chunk by chunk of `shape`'s
/// windows: one sliding pass for those still sliding, then each run's own settling, trial
/// and units; a run whose trial fails goes on window by window, as it would alone.
fn slide_together(
    engine: &mut Box<dyn Engine>,
    notice: &mut Option<String>,
    shape: &Shape<'_>,
    runs: &mut [Run<'_, '_>],
    sliding: &[usize],
    timer: &mut Timer,
) -> Result<(), EngineError> {
    let total = shape.windows.count;
    // Every run's features of a chunk are held at once.
    let chunk = shape.chunk_len(sliding.len());
    let stats = shape.stats();
    let units = unit_count(shape);
    for &k in sliding {
        runs[k].units.reserve_exact(units);
    }
    engine.discard_queued();
    let mut w0 = 0;
    while w0 < total {
        // Every run slides on the first chunk.
        let w = shape.next_chunk(w0, chunk, true);
        let rows = shape.rows(w.clone());
        let batch = rows.batch();
        let groups = groups(shape, w.clone());
        let constant = shape.constant_series(&rows);
        let (live, plans) = still_sliding(runs, sliding);
        let summaries = summarize(shape, &batch, &plans, stats, timer);
        if summaries.len() != live.len() {
            return Err(EngineError::Internal(format!(
                "{} levels summarised for {} runs",
                summaries.len(),
                live.len()
            )));
        }
        let mut feats: Vec<(usize, Vec<Features>)> = Vec::with_capacity(sliding.len());
        for (&k, (sums, tols)) in live.iter().zip(&summaries) {
            let run = &mut runs[k];
            let Ok((_, reads)) = &run.slide else {
                continue;
            };
            let (f, redone) = settle(
                run.shape,
                &batch,
                (sums, tols),
                reads,
                &groups,
                stats,
                timer,
            );
            run.path.recomputed += redone;
            if let Some(why) = run.shape.fails_trial(&w, redone) {
                (run.path.sliding, run.path.why_not) = (false, Some(why.to_string()));
                run.slide = Err(why);
            }
            feats.push((k, f));
        }
        drop(summaries);
        // Runs that left the sliding path on trial: window by window, on the native
        // engine (`sliding_path` allowed no other).
        for &k in sliding.iter().filter(|k| !live.contains(k)) {
            let plan = runs[k].shape.plan;
            let sums = engine::with_fallback(engine, notice, |e| {
                e.summarize_windows(&batch, plan, stats, timer)
            })?;
            feats.push((k, features_of(&sums, &groups, timer)));
        }
        let t = Instant::now();
        for (k, f) in feats {
            let run = &mut runs[k];
            push_units(run.shape, &groups, &constant, f, &mut run.units)?;
        }
        timer.add(Stage::Difficulty, t.elapsed());
        w0 = w.end;
    }
    Ok(())
}

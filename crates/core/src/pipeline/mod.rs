//! Table → windows → batches → engine summaries → features: the headless pipeline, in
//! chunks of windows so memory stays bounded, timed stage by stage (docs/timing.md).

mod inspect;
mod slide;
mod together;

pub use inspect::Inspection;
pub(crate) use inspect::{inspect, InspectRequest};
use slide::slide_chunk;
pub(crate) use slide::sliding_path;
pub use slide::{NoSlide, PathChoice};
pub(crate) use together::features_together;

use crate::data::{Normalize, Table, Windows};
use crate::engine::sliding;
use crate::engine::{
    self, DType, Engine, EngineError, EngineKind, Plan, Queued, SeriesSummary, StatsRequest,
    WindowBatch,
};
use crate::features::degenerate::{self, Describe};
use crate::features::{self, Aggregate, Features, Reads, Unit};
use crate::timing::{PathUsed, Stage, Timer};
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

/// Windows per chunk (times the channels): a few MB of samples at a time.
const CHUNK_WINDOWS: usize = 4096;

/// How a run computes its units beyond its windows and plan: what a prepared run
/// (`run_spec::Prepared`) holds and the pipeline reads through [`Shape`].
#[derive(Debug, Clone)]
pub struct Method {
    pub normalize: Normalize,
    pub dtype: DType,
    pub aggregate: Aggregate,
    pub batch_size: usize,
    /// Compute min/max/median/trend/lags (docs/features.md#time-llm-statistics). Off when
    /// only the wavelet features are wanted (the seed's dict): they are then 0 and empty.
    pub statistics: bool,
    /// What the prompts' text reads, when the run may take the sliding path, which gives
    /// exactly those prompts (see `sliding_path`); else why not (feature values are
    /// written out, `--path window`).
    pub slide: Result<Reads, NoSlide>,
    /// `--path auto`: the sliding path is tried on the first chunk and kept only when it
    /// settles most prompts there (a window it cannot settle is computed twice).
    pub slide_on_trial: bool,
    /// How degenerate units are flagged and described.
    pub describe: Describe,
    /// Give each unit its window's time as text (`Unit::start_time`). Off for a caller that
    /// never shows it (a sweep, the app's survey): formatting a date per window costs as
    /// much as a claim.
    pub time_labels: bool,
}

/// How the run is shaped: a prepared run's windows, plan and method, borrowed, over a
/// table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape<'a> {
    pub table: &'a Table,
    pub windows: Windows,
    pub plan: &'a Plan,
    pub method: &'a Method,
}

impl<'a> Shape<'a> {
    /// The table rows that windows `w` (all channels) read, as f64: borrowed from an f64
    /// table, widened (exactly) from an f32 one, a chunk at a time.
    pub fn rows(&self, w: Range<usize>) -> ChunkRows<'a> {
        self.rows_of(0..self.table.channels.len(), w)
    }

    /// Like `rows`, for the given channels only.
    fn rows_of(&self, channels: impl IntoIterator<Item = usize>, w: Range<usize>) -> ChunkRows<'a> {
        let part = self.windows.part(w);
        // The sliding path's first task starts at a fixed place in the run, up to
        // TASK_WINDOWS - 1 windows before the chunk's first: its rows come too, so a
        // window's summary is the same in every chunk and shard. A run that cannot slide
        // reads only its windows' rows.
        let lead = match self.method.slide {
            Ok(_) => (part.first % sliding::TASK_WINDOWS * part.stride).min(part.first_row),
            Err(_) => 0,
        };
        let span = match part.count {
            0 => part.first_row..part.first_row,
            n => part.first_row - lead..part.start(n - 1) + part.seq_len,
        };
        ChunkRows {
            channels: channels
                .into_iter()
                .map(|c| self.table.channels[c].values.rows_f64(span.clone()))
                .collect(),
            // Window 0 of the chunk starts `lead` rows into its rows.
            windows: Windows {
                first_row: if part.count == 0 { 0 } else { lead },
                ..part
            },
            normalize: self.method.normalize,
            dtype: self.method.dtype,
        }
    }
}

impl Shape<'_> {
    /// Windows per chunk when `runs` runs go through together (their features are held at
    /// once): whole batches, so a batch never straddles two chunks.
    fn chunk_len(&self, runs: usize) -> usize {
        let windows = (CHUNK_WINDOWS / runs.max(1)).max(1);
        match self.method.aggregate {
            Aggregate::Batch => (windows / self.method.batch_size).max(1) * self.method.batch_size,
            Aggregate::Series | Aggregate::Sample => windows,
        }
    }

    /// The statistics the run computes, if any: lags are read from each group's first
    /// series only.
    fn stats(&self) -> Option<StatsRequest> {
        let channels = self.table.channels.len();
        let lags = StatsRequest {
            lags_every: match self.method.aggregate {
                Aggregate::Series => 1,
                Aggregate::Sample => channels,
                Aggregate::Batch => channels * self.method.batch_size,
            },
            lags: self.method.describe.lags,
        };
        self.method.statistics.then_some(lags)
    }

    /// The windows of the chunk that starts at window `w0`: `chunk` of them, or on trial
    /// (a run that slides, `path = auto`) the first is the sample of [`Shape::trial_len`].
    fn next_chunk(&self, w0: usize, chunk: usize, sliding: bool) -> Range<usize> {
        let len = if w0 == 0 && sliding && self.method.slide_on_trial {
            self.trial_len(chunk)
        } else {
            chunk
        };
        w0..(w0 + len).min(self.windows.count)
    }

    /// Whether each series of a chunk is constant; empty for a run that keeps the seed's
    /// wording, the only one that does not word constant input.
    fn constant_series(&self, rows: &ChunkRows<'_>) -> Vec<bool> {
        if self.method.describe.seed_compatible {
            Vec::new()
        } else {
            rows.constant_series()
        }
    }

    /// On trial, the first chunk is the sample: a 64th of the windows (at least 32, whole
    /// batches), so a run of one chunk can still change course, and a sample that says no
    /// costs little: its windows are computed twice, and sliding a window the sample
    /// rejects costs several per-window transforms (BENCHMARKS.md, "Measurements behind
    /// the code").
    fn trial_len(&self, chunk: usize) -> usize {
        let whole = if self.method.aggregate == Aggregate::Batch {
            self.method.batch_size
        } else {
            1
        };
        ((self.windows.count / 64).max(32).div_ceil(whole) * whole).min(chunk)
    }

    /// Whether a sliding run on trial that recomputed `redone` of its first chunk's
    /// windows `w` goes window by window from now on: where most of them had to be
    /// computed again. The prompts are the same either way.
    fn fails_trial(&self, w: &Range<usize>, redone: usize) -> Option<NoSlide> {
        (self.method.slide_on_trial
            && w.start == 0
            && w.end < self.windows.count
            && 2 * redone > w.len())
        .then_some(NoSlide::OnTrial {
            redone,
            windows: w.len(),
        })
    }
}

/// The rows a chunk of windows reads (see [`Shape::rows`]); its windows are renumbered
/// from 0.
pub struct ChunkRows<'a> {
    channels: Vec<Cow<'a, [f64]>>,
    windows: Windows,
    normalize: Normalize,
    dtype: DType,
}

impl ChunkRows<'_> {
    /// Whether each series of the chunk (window-major, as a batch orders them) is constant.
    fn constant_series(&self) -> Vec<bool> {
        let per_channel: Vec<Vec<bool>> = self
            .channels
            .iter()
            .map(|c| degenerate::constant_windows(c, &self.windows))
            .collect();
        (0..self.windows.count)
            .flat_map(|w| per_channel.iter().map(move |c| c[w]))
            .collect()
    }

    /// All of the chunk's windows as a batch for an engine.
    pub fn batch(&self) -> WindowBatch<'_> {
        WindowBatch {
            channels: self.channels.iter().map(|c| &**c).collect(),
            windows: self.windows,
            range: 0..self.windows.count,
            normalize: self.normalize,
            dtype: self.dtype,
        }
    }
}

/// The groups of a chunk of windows `w`: (series range within the chunk, unit identity).
fn groups(shape: &Shape<'_>, w: Range<usize>) -> Groups {
    let n = shape.table.channels.len();
    match shape.method.aggregate {
        Aggregate::Series => {
            let names: Vec<Arc<str>> = shape
                .table
                .channels
                .iter()
                .map(|c| Arc::from(c.name.as_str()))
                .collect();
            w.clone()
                .flat_map(|i| (0..n).map(move |c| (i, c)))
                .enumerate()
                .map(|(k, (i, c))| (k..k + 1, i, Some(names[c].clone())))
                .collect()
        }
        Aggregate::Sample => w
            .clone()
            .enumerate()
            .map(|(k, i)| (k * n..(k + 1) * n, i, None))
            .collect(),
        Aggregate::Batch => w
            .clone()
            .step_by(shape.method.batch_size)
            .map(|i| {
                let end = (i + shape.method.batch_size).min(w.end);
                ((i - w.start) * n..(end - w.start) * n, i, None)
            })
            .collect(),
    }
}

/// Run the pipeline to features. `progress` is told how many windows are done after each
/// chunk and answers whether to go on (false cancels the run: `EngineError::Cancelled`).
pub(crate) fn features(
    engine: &mut Box<dyn Engine>,
    notice: &mut Option<String>,
    shape: &Shape<'_>,
    timer: &mut Timer,
    mut progress: impl FnMut(usize) -> bool,
) -> Result<Vec<Unit>, EngineError> {
    let total = shape.windows.count;
    let chunk = shape.chunk_len(1);
    let stats = shape.stats();
    let mut slide = sliding_path(engine.kind(), shape);
    let mut path = PathUsed {
        sliding: slide.is_ok(),
        why_not: slide.as_ref().err().map(NoSlide::to_string),
        windows: total,
        recomputed: 0,
    };
    // Each chunk's windows, groups and features; a device engine leaves its chunks'
    // summaries on the device (features None) until one download brings them all back.
    let mut chunks: Vec<Chunk> = Vec::new();
    // An engine kept between runs (the app's, bench's) may hold what a cancelled run left.
    engine.discard_queued();
    let mut queued_on: Option<EngineKind> = None;
    let mut queued_series = 0;
    let mut w0 = 0;
    while w0 < total {
        let w = shape.next_chunk(w0, chunk, slide.is_ok());
        let rows = shape.rows(w.clone());
        let batch = rows.batch();
        let groups = groups(shape, w.clone());
        let feats = match &slide {
            Ok((sp, reads)) => {
                let (f, redone) = slide_chunk(shape, &batch, sp, reads, &groups, stats, timer);
                path.recomputed += redone;
                if let Some(why) = shape.fails_trial(&w, redone) {
                    (path.sliding, path.why_not) = (false, Some(why.to_string()));
                    slide = Err(why);
                }
                Some(f)
            }
            Err(_) => match engine::with_fallback(engine, notice, |e| {
                e.queue_windows(&batch, shape.plan, stats, timer)
            })? {
                Queued::Ready(sums) => Some(features_of(&sums, &groups, timer)),
                Queued::OnDevice => {
                    queued_on = Some(engine.kind());
                    queued_series += batch.series();
                    None
                }
            },
        };
        chunks.push(Chunk {
            windows: w.clone(),
            constant: shape.constant_series(&rows),
            groups,
            features: feats,
        });
        // Bound what waits on the device (~1 GB of summaries); ETTh1 is one download.
        if queued_series >= COLLECT_SERIES || (w.end == total && queued_series > 0) {
            collect(engine, notice, shape, stats, timer, queued_on, &mut chunks)?;
            queued_series = 0;
        }
        if !progress(w.end) {
            return Err(EngineError::Cancelled);
        }
        w0 = w.end;
    }
    timer.add_path(path);
    units_of_chunks(shape, chunks, timer)
}

/// Every chunk's units, in order, once each chunk's features are in.
fn units_of_chunks(
    shape: &Shape<'_>,
    chunks: Vec<Chunk>,
    timer: &mut Timer,
) -> Result<Vec<Unit>, EngineError> {
    let t = Instant::now();
    let mut units = Vec::with_capacity(chunks.iter().map(|c| c.groups.len()).sum());
    for Chunk {
        groups,
        features,
        constant,
        ..
    } in chunks
    {
        let feats = features.ok_or_else(|| {
            EngineError::Internal("a chunk's summaries were never collected".into())
        })?;
        push_units(shape, &groups, &constant, feats, &mut units)?;
    }
    timer.add(Stage::Difficulty, t.elapsed());
    Ok(units)
}

/// A chunk's units, from its groups, which of its series are constant and its groups'
/// features, pushed onto `units`: in parallel, in order; each piece formats a window's
/// time once for its series.
fn push_units(
    shape: &Shape<'_>,
    groups: &Groups,
    constant: &[bool],
    feats: Vec<Features>,
    units: &mut Vec<Unit>,
) -> Result<(), EngineError> {
    if feats.len() != groups.len() {
        return Err(EngineError::Internal(format!(
            "{} feature sets for {} prompt units",
            feats.len(),
            groups.len()
        )));
    }
    // Each unit's features moved once, into its place; then described and labelled there
    // on every core (moving a unit's ~500 bytes through a parallel map copied it three
    // times, a tenth of a sweep's summaries-to-units time).
    let first = units.len();
    let unlabelled: Arc<str> = Arc::from("");
    units.extend(
        groups
            .iter()
            .zip(feats)
            .map(|((_, window, column), features)| Unit {
                file: None,
                window: shape.windows.first + window,
                start: shape.windows.start(*window),
                start_time: unlabelled.clone(),
                column: column.clone(),
                features,
            }),
    );
    units[first..]
        .par_iter_mut()
        .zip(groups.par_iter())
        .for_each_init(
            || None::<(usize, Arc<str>)>,
            |last_time, (unit, (series, ..))| {
                shape.method.describe.apply(
                    &mut unit.features,
                    series.clone().all(|k| constant.get(k) == Some(&true)),
                );
                if !shape.method.time_labels {
                    return;
                }
                unit.start_time = match last_time {
                    Some((s, t)) if *s == unit.start => t.clone(),
                    _ => {
                        let t: Arc<str> = shape.table.time_label(unit.start).into();
                        *last_time = Some((unit.start, t.clone()));
                        t
                    }
                };
            },
        );
    Ok(())
}

/// Series whose summaries may wait on a device before they are downloaded.
const COLLECT_SERIES: usize = 1 << 22;

/// Each group's features from its summaries (one pass; charged to the description stage).
fn features_of(sums: &[SeriesSummary], groups: &Groups, timer: &mut Timer) -> Vec<Features> {
    timer.time(Stage::Difficulty, || {
        groups
            .par_iter()
            .map(|(r, ..)| features::compute(&sums[r.clone()]))
            .collect()
    })
}

/// Download the summaries of every chunk left on the device, in one transfer, and
/// compute their features. If the engine that queued them is gone (CUDA failed later
/// and the run went on natively) or fails now, they are computed again on the engine now
/// in use, as `with_fallback` does for a single call.
fn collect(
    engine: &mut Box<dyn Engine>,
    notice: &mut Option<String>,
    shape: &Shape<'_>,
    stats: Option<StatsRequest>,
    timer: &mut Timer,
    queued_on: Option<EngineKind>,
    chunks: &mut [Chunk],
) -> Result<(), EngineError> {
    let series = |c: &Chunk| c.windows.len() * shape.table.channels.len();
    let expected: usize = chunks
        .iter()
        .filter(|c| c.features.is_none())
        .map(series)
        .sum();
    let collected = match (queued_on == Some(engine.kind()), engine.collect(timer)) {
        (true, Ok(sums)) if sums.len() == expected => Some(sums),
        (true, Ok(sums)) => {
            return Err(EngineError::Internal(format!(
                "the device returned {} summaries for {expected} series",
                sums.len()
            )))
        }
        (true, Err(EngineError::Torch { message, .. }))
            if engine.kind() == EngineKind::TorchCuda =>
        {
            *notice = Some(format!(
                "CUDA failed ({message}); continuing on the native CPU engine"
            ));
            *engine = Box::new(engine::Native);
            None
        }
        (true, Err(e)) => return Err(e),
        (false, _) => None,
    };
    let mut at = 0;
    for c in chunks.iter_mut().filter(|c| c.features.is_none()) {
        let n = series(c);
        let feats = match &collected {
            Some(all) => features_of(&all[at..at + n], &c.groups, timer),
            None => {
                let rows = shape.rows(c.windows.clone());
                let sums = engine::with_fallback(engine, notice, |e| {
                    e.summarize_windows(&rows.batch(), shape.plan, stats, timer)
                })?;
                features_of(&sums, &c.groups, timer)
            }
        };
        at += n;
        c.features = Some(feats);
    }
    Ok(())
}

/// One chunk of a run: its windows, what each of its prompts describes, and their
/// features (None while a device engine holds the chunk's summaries).
struct Chunk {
    windows: Range<usize>,
    /// Whether each series of the chunk is constant (empty when the run keeps the seed's
    /// wording).
    constant: Vec<bool>,
    groups: Groups,
    features: Option<Vec<Features>>,
}

/// What each prompt of a chunk describes: its series (a range of the chunk's summaries),
/// its window and, for `series` aggregation, its channel.
type Groups = Vec<(Range<usize>, usize, Option<Arc<str>>)>;

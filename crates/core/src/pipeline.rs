//! Table → windows → batches → engine summaries → features: the headless pipeline, in
//! chunks of windows so memory stays bounded, timed stage by stage (SPEC §7).

use crate::data::{Normalize, Table, Windows};
use crate::engine::{
    self, DType, Engine, EngineError, Plan, SeriesSummary, StatsRequest, WindowBatch,
};
use crate::features::{self, Aggregate, Features};
use crate::timing::{Stage, Timer};
use std::ops::Range;

/// Windows per chunk (times the channels): a few MB of samples at a time.
const CHUNK_WINDOWS: usize = 4096;

/// One prompt unit: what one prompt describes, and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// The data set's file (relative), when the input is a data set of several files.
    pub file: Option<std::sync::Arc<str>>,
    pub window: usize,
    pub start: usize,
    /// The time at `start` (ISO 8601 for dates), or the row number without a time axis.
    pub start_time: String,
    /// The channel, for `series` aggregation.
    pub column: Option<String>,
    pub features: Features,
}

/// How the run is shaped.
#[derive(Debug, Clone)]
pub struct Shape<'a> {
    pub table: &'a Table,
    pub windows: Windows,
    pub plan: &'a Plan,
    pub normalize: Normalize,
    pub dtype: DType,
    pub aggregate: Aggregate,
    pub batch_size: usize,
    /// Compute min/max/median/trend/lags (SPEC §6). Off when only the wavelet features
    /// are wanted (the seed generator's dict): they are then 0 and empty.
    pub statistics: bool,
}

/// Features need a level the windows can hold (SPEC §10).
pub fn check_level(plan: &Plan) -> Result<(), String> {
    let max = plan.wavelet.max_level(plan.len);
    if max < 1 || plan.level > max {
        return Err(format!(
            "level {} is above the maximum level {max} for length {} and wavelet '{}' (features need 1 <= level <= {max})",
            plan.level, plan.len, plan.wavelet.name
        ));
    }
    Ok(())
}

impl Shape<'_> {
    /// Windows `w` (all channels) as a batch for an engine.
    pub fn batch(&self, w: Range<usize>) -> WindowBatch<'_> {
        self.batch_of(
            self.table
                .channels
                .iter()
                .map(|c| c.values.as_slice())
                .collect(),
            w,
        )
    }

    /// Windows `w` of the given channels only.
    fn batch_of<'a>(&'a self, channels: Vec<&'a [f64]>, w: Range<usize>) -> WindowBatch<'a> {
        WindowBatch {
            channels,
            windows: self.windows,
            range: w,
            normalize: self.normalize,
            dtype: self.dtype,
        }
    }
}

/// The groups of a chunk of windows `w`: (series range within the chunk, unit identity).
fn groups(shape: &Shape<'_>, w: Range<usize>) -> Vec<(Range<usize>, usize, Option<String>)> {
    let n = shape.table.channels.len();
    match shape.aggregate {
        Aggregate::Series => w
            .clone()
            .flat_map(|i| (0..n).map(move |c| (i, c)))
            .enumerate()
            .map(|(k, (i, c))| (k..k + 1, i, Some(shape.table.channels[c].name.clone())))
            .collect(),
        Aggregate::Sample => w
            .clone()
            .enumerate()
            .map(|(k, i)| (k * n..(k + 1) * n, i, None))
            .collect(),
        Aggregate::Batch => w
            .clone()
            .step_by(shape.batch_size)
            .map(|i| {
                let end = (i + shape.batch_size).min(w.end);
                ((i - w.start) * n..(end - w.start) * n, i, None)
            })
            .collect(),
    }
}

/// Run the pipeline to features. `progress` is told how many windows are done after each
/// chunk and answers whether to go on (false cancels the run: `EngineError::Cancelled`).
pub fn features(
    engine: &mut Box<dyn Engine>,
    notice: &mut Option<String>,
    shape: &Shape<'_>,
    timer: &mut Timer,
    mut progress: impl FnMut(usize) -> bool,
) -> Result<Vec<Unit>, EngineError> {
    let total = shape.windows.count;
    // Chunks hold whole batches, so a batch never straddles two chunks.
    let chunk = if shape.aggregate == Aggregate::Batch {
        (CHUNK_WINDOWS / shape.batch_size).max(1) * shape.batch_size
    } else {
        CHUNK_WINDOWS
    };
    // Lags are read from each group's first series only.
    let channels = shape.table.channels.len();
    let lags = StatsRequest {
        lags_every: match shape.aggregate {
            Aggregate::Series => 1,
            Aggregate::Sample => channels,
            Aggregate::Batch => channels * shape.batch_size,
        },
    };
    let mut units = Vec::new();
    let mut w0 = 0;
    while w0 < total {
        let w = w0..(w0 + chunk).min(total);
        let batch = shape.batch(w.clone());
        let sums: Vec<SeriesSummary> = engine::with_fallback(engine, notice, |e| {
            e.summarize_windows(&batch, shape.plan, shape.statistics.then_some(lags), timer)
        })?;
        let groups = groups(shape, w.clone());
        let t = std::time::Instant::now();
        let mut last_time: Option<(usize, String)> = None;
        units.extend(groups.into_iter().map(|(r, window, column)| {
            let start = shape.windows.start(window);
            // Series of one window share its time: format it once.
            let start_time = match &last_time {
                Some((s, t)) if *s == start => t.clone(),
                _ => {
                    let t = shape.table.time_label(start);
                    last_time = Some((start, t.clone()));
                    t
                }
            };
            Unit {
                file: None,
                window: shape.windows.first + window,
                start,
                start_time,
                column,
                features: features::compute(&sums[r]),
            }
        }));
        // The feature functions are one pass; charge them to the description stage.
        timer.add(Stage::Difficulty, t.elapsed());
        if !progress(w.end) {
            return Err(EngineError::Cancelled);
        }
        w0 = w.end;
    }
    Ok(units)
}

/// Everything the app shows about one channel of one window.
#[derive(Debug, Clone)]
pub struct Inspection {
    pub window: usize,
    pub start: usize,
    /// The time at `start` (see `Unit::start_time`).
    pub start_time: String,
    /// The window as the engine saw it (normalised).
    pub x: Vec<f64>,
    /// `[cA_n, cD_n, …, cD_1]`.
    pub coeffs: Vec<Vec<f64>>,
    /// Per-band reconstruction (MRA), each as long as the window.
    pub mra: Vec<Vec<f64>>,
    /// Samples at each end of each band that the signal extension reaches.
    pub boundary: Vec<usize>,
    pub features: Features,
    pub prompt: Result<String, crate::prompt::TemplateError>,
    pub timer: Timer,
    pub engine: String,
    pub device: String,
}

/// What to inspect, and how to describe it.
pub struct InspectRequest<'a> {
    pub shape: Shape<'a>,
    pub channel: usize,
    pub window: usize,
    pub prompter: &'a crate::prompt::Prompter,
    pub description: &'a str,
    pub pred_len: usize,
    /// Synchronise the device at stage boundaries (see `Timer::precise`).
    pub precise: bool,
}

/// One channel of one window through the same path as the whole pipeline (so its
/// features and prompt equal that unit's in `features`/`prompts`), plus the arrays to plot.
pub fn inspect(
    engine: &mut Box<dyn Engine>,
    notice: &mut Option<String>,
    req: &InspectRequest<'_>,
) -> Result<Inspection, EngineError> {
    let shape = &req.shape;
    let mut timer = Timer::new(req.precise);
    let seq = shape.windows.seq_len;
    let start = shape.windows.start(req.window);
    // The same engine call as `features` makes, on a batch of this one series, so the
    // numbers (to the last bit) and the prompt are that unit's.
    let one = shape.batch_of(
        vec![shape.table.channels[req.channel].values.as_slice()],
        req.window..req.window + 1,
    );
    let sums = engine::with_fallback(engine, notice, |e| {
        e.summarize_windows(&one, shape.plan, Some(StatsRequest::ALL), &mut timer)
    })?;
    let batch = one.gather();
    let features = timer.time(Stage::Difficulty, || features::compute(&sums));
    let prompt = timer.time(Stage::Render, || {
        req.prompter.render(&crate::prompt::PromptVars {
            features: &features,
            description: req.description,
            seq_len: seq,
            pred_len: req.pred_len,
        })
    });
    // The arrays to plot come from the native kernels (microseconds for one window).
    let coeffs = engine::native::decompose(&batch.to_f64(), shape.plan);
    let offsets = &shape.plan.offsets;
    let bands = (0..shape.plan.bands())
        .map(|k| coeffs[offsets[k]..offsets[k] + shape.plan.band_lens[k]].to_vec())
        .collect();
    let mra = engine::inverse::mra(&coeffs, shape.plan);
    Ok(Inspection {
        window: req.window,
        start,
        start_time: shape.table.time_label(start),
        x: batch.to_f64(),
        coeffs: bands,
        mra,
        boundary: (0..shape.plan.bands())
            .map(|k| shape.plan.boundary_width(k))
            .collect(),
        features,
        prompt,
        timer,
        engine: engine.kind().name().to_string(),
        device: engine.device_name(),
    })
}

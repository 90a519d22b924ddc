//! One channel of one window through the pipeline's own path, plus what the app plots.

use super::Shape;
use crate::engine::{self, Engine, EngineError, StatsRequest};
use crate::features::{self, Features};
use crate::timing::{Stage, Timer};

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
pub(crate) struct InspectRequest<'a> {
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
pub(crate) fn inspect(
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
    let rows = shape.rows_of([req.channel], req.window..req.window + 1);
    let one = rows.batch();
    let sums = engine::with_fallback(engine, notice, |e| {
        let stats = StatsRequest {
            lags: shape.method.describe.lags,
            ..StatsRequest::ALL
        };
        e.summarize_windows(&one, shape.plan, Some(stats), &mut timer)
    })?;
    let batch = one.gather();
    let mut features = timer.time(Stage::Difficulty, || features::compute(&sums));
    shape
        .method
        .describe
        .apply(&mut features, rows.constant_series().first() == Some(&true));
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

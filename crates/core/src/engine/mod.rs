//! How a batch of series is transformed: one API, three back ends (docs/transform.md#engines).
//!
//! An [`Engine`] decomposes a contiguous batch of equal-length series under a [`Plan`], or
//! reduces it straight to per-series [`SeriesSummary`]s, the small result every feature is
//! computed from. `native` (here) is pure Rust; `torch-cpu`/`torch-cuda` (the application
//! crate's `engine::torch`, which links libtorch) run the same transform as padding +
//! `conv1d(stride 2)`, reductions included, and send back one small tensor per batch.

mod batch;
pub mod inverse;
mod lanes;
pub mod native;
pub mod plan;
pub mod sliding;
pub mod summary;

pub use batch::WindowBatch;
pub use plan::{Plan, PlanError};
// The numeric foundation, re-exported where engine users have always found it.
pub use crate::numeric::simd::Isa;
pub use crate::numeric::{memory, simd, DType, Real, SeriesRef, Values};
pub use summary::{BandSummary, BandTol, Bands, SeriesSummary, SeriesTol};

use crate::stats::LagRule;
use crate::timing::{Stage, StageClock, Timer};
use serde::{Deserialize, Serialize};

/// An engine ready to use, and why it is not the one asked for, if it is not (the notice
/// a caller shows once).
pub struct Selected {
    pub engine: Box<dyn Engine>,
    pub notice: Option<String>,
}

impl Selected {
    pub fn native() -> Self {
        Selected {
            engine: Box::new(Native),
            notice: None,
        }
    }
}

/// Which back end the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum EngineKind {
    /// CUDA when a GPU is usable, else native.
    #[default]
    Auto,
    Native,
    TorchCpu,
    TorchCuda,
}

crate::names::named! {
    EngineKind, "engine":
    Auto = "auto",
    Native = "native",
    TorchCpu = "torch-cpu",
    TorchCuda = "torch-cuda",
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("libtorch ({engine}): {message}")]
    Torch {
        engine: &'static str,
        message: String,
    },
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error("cancelled")]
    Cancelled,
    #[error("internal error: {0}")]
    Internal(String),
}

/// Where the summaries of a queued batch are (see [`Engine::queue_windows`]).
pub enum Queued {
    /// Computed: here they are.
    Ready(Vec<SeriesSummary>),
    /// Left on the device until [`Engine::collect`].
    OnDevice,
}

/// Which Time-LLM statistics `summarize` computes, besides the band summaries.
///
/// min, max, median and trend are cheap and needed for every series; lags cost two FFTs and
/// are only ever read from the first series of a prompt's group, so they are computed for
/// every `lags_every`-th series (1 for `series`, the group size for `sample`/`batch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatsRequest {
    pub lags_every: usize,
    /// Which lags beside the clean ones: Time-LLM's, or the peaks (`LagRule::Peaks`).
    pub lags: LagRule,
}

impl StatsRequest {
    pub const ALL: StatsRequest = StatsRequest {
        lags_every: 1,
        lags: LagRule::Timellm,
    };

    pub fn lags_for(&self, series: usize) -> bool {
        series.is_multiple_of(self.lags_every.max(1))
    }
}

/// The seam between the pipeline and a back end.
pub trait Engine: Send {
    /// The concrete back end (never `Auto`).
    fn kind(&self) -> EngineKind;
    /// Human name of the device, e.g. "CPU (rayon, 2 threads)" or a GPU's name.
    fn device_name(&self) -> String;
    /// Coefficients of every series: row-major, `plan.coeffs_per_series()` per series,
    /// bands concatenated in pywt order.
    fn decompose(&mut self, x: SeriesRef<'_>, plan: &Plan) -> Result<Values, EngineError>;
    /// Band summaries (and the Time-LLM statistics `stats` asks for) of every series.
    fn summarize(
        &mut self,
        x: SeriesRef<'_>,
        plan: &Plan,
        stats: Option<StatsRequest>,
        timer: &mut Timer,
    ) -> Result<Vec<SeriesSummary>, EngineError>;
    /// `summarize` over windows read from a table. By default the batch is gathered into
    /// one array (charged to `prepare`) and summarised.
    fn summarize_windows(
        &mut self,
        batch: &WindowBatch<'_>,
        plan: &Plan,
        stats: Option<StatsRequest>,
        timer: &mut Timer,
    ) -> Result<Vec<SeriesSummary>, EngineError> {
        let x = timer.time(Stage::Prepare, || batch.gather());
        self.summarize(x.as_ref(), plan, stats, timer)
    }
    /// `summarize_windows` without waiting for the result: a device engine queues the work
    /// and keeps the summaries on the device, and `collect` brings every queued batch back
    /// in one download, so a run synchronises with the device once (the seed's ~15
    /// synchronisations per call are what made it slow). By default they are computed now.
    fn queue_windows(
        &mut self,
        batch: &WindowBatch<'_>,
        plan: &Plan,
        stats: Option<StatsRequest>,
        timer: &mut Timer,
    ) -> Result<Queued, EngineError> {
        self.summarize_windows(batch, plan, stats, timer)
            .map(Queued::Ready)
    }
    /// The summaries of every batch queued `OnDevice` since the last call, in queue order,
    /// one after another.
    fn collect(&mut self, timer: &mut Timer) -> Result<Vec<SeriesSummary>, EngineError> {
        let _ = timer;
        Ok(Vec::new())
    }
    /// Drop whatever is queued and was never collected (a run cancelled or failed between
    /// `queue_windows` and `collect`), so the next run's `collect` returns only its own.
    fn discard_queued(&mut self) {}
}

/// Pure-Rust engine.
#[derive(Debug, Default, Clone, Copy)]
pub struct Native;

impl Engine for Native {
    fn kind(&self) -> EngineKind {
        EngineKind::Native
    }
    fn device_name(&self) -> String {
        format!(
            "CPU (native {}, {} threads)",
            Isa::active().name(),
            rayon::current_num_threads()
        )
    }
    fn decompose(&mut self, x: SeriesRef<'_>, plan: &Plan) -> Result<Values, EngineError> {
        Ok(match x {
            SeriesRef::F32(v) => Values::F32(native::decompose(v, plan)),
            SeriesRef::F64(v) => Values::F64(native::decompose(v, plan)),
        })
    }
    fn summarize(
        &mut self,
        x: SeriesRef<'_>,
        plan: &Plan,
        stats: Option<StatsRequest>,
        timer: &mut Timer,
    ) -> Result<Vec<SeriesSummary>, EngineError> {
        // Decomposition, band moments and statistics are fused into one pass per series.
        Ok(timer.time(Stage::Decompose, || match x {
            SeriesRef::F32(v) => native::summarize(v, plan, stats),
            SeriesRef::F64(v) => native::summarize(v, plan, stats),
        }))
    }
    fn summarize_windows(
        &mut self,
        batch: &WindowBatch<'_>,
        plan: &Plan,
        stats: Option<StatsRequest>,
        timer: &mut Timer,
    ) -> Result<Vec<SeriesSummary>, EngineError> {
        // Every stage runs fused per block on every thread; the wall time is split between
        // them by thread time (band moments count as `frequency`).
        let clock = StageClock::default();
        let t = std::time::Instant::now();
        let sums = match plan.work_dtype(batch.dtype) {
            DType::F32 => native::summarize_windows::<f32>(batch, plan, stats, &clock),
            DType::F64 => native::summarize_windows::<f64>(batch, plan, stats, &clock),
        };
        clock.charge(t.elapsed(), timer);
        Ok(sums)
    }
}

/// Run `f` on `engine`; if a torch-cuda engine fails (a CUDA error, out of memory), run it
/// again on the native engine, replacing `engine`, and say so in `notice`.
pub fn with_fallback<R>(
    engine: &mut Box<dyn Engine>,
    notice: &mut Option<String>,
    mut f: impl FnMut(&mut dyn Engine) -> Result<R, EngineError>,
) -> Result<R, EngineError> {
    match f(engine.as_mut()) {
        Err(EngineError::Torch { message, .. }) if engine.kind() == EngineKind::TorchCuda => {
            *notice = Some(format!(
                "CUDA failed ({message}); continuing on the native CPU engine"
            ));
            *engine = Box::new(Native);
            f(engine.as_mut())
        }
        other => other,
    }
}

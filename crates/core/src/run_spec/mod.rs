//! One run specification, the only way to build a run: a validated [`Config`] and what
//! it builds — the table (through a [`Backend`]'s loader and the missing-value policy),
//! the windows, the plan (level checked), the engine with its fallback notice, and the
//! features of every unit ([`Prepared::features`]) or of one ([`Prepared::inspect`]). The
//! CLI, the app, the sweep, the wheel and the tests all go through it, so they cannot
//! drift apart.

mod backend;
mod shard;

pub use backend::{load, Backend, LoadOptions, NativeOnly, NATIVE_ONLY};
pub use shard::Shard;

use crate::config::Config;
use crate::data::{self, DataError, Normalize, Opt, Table, Windows, OPTION};
use crate::engine::{DType, EngineError, Plan, Selected};
use crate::features::degenerate::{level_is_degenerate, Describe};
use crate::features::{Aggregate, Reads, Unit};
use crate::pipeline::{self, Inspection, Method, NoSlide, PathChoice, Shape};
use crate::prompt::Prompter;
use crate::timing::Timer;
use std::path::Path;

/// Past this, extra levels only repeat the edge extension (every band stays about one
/// filter long): a typo such as `--level 100000000` is refused before anything is allocated.
pub const MAX_LEVEL: usize = 64;

/// The largest |x| whose squares, summed over millions of samples, stay finite: 1e150² ×
/// 1e7 < f64::MAX; 1e15² × 1e7 < f32::MAX.
const LIMIT_F64: f64 = 1e150;
const LIMIT_F32: f64 = 1e15;

/// What the run is for: decomposition follows pywt (any level, normalisation off by
/// default); features need `1 <= level <= max_level` and normalise with RevIN by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Decompose,
    Features,
}

#[derive(Debug, Clone)]
pub struct RunSpec {
    pub cfg: Config,
    pub purpose: Purpose,
    backend: &'static dyn Backend,
    /// The run's template prints nothing the transform changes
    /// ([`Prompter::transform_free`]): a level the windows cannot hold is computed anyway,
    /// with a warning, instead of refused.
    transform_free: bool,
}

impl RunSpec {
    /// Whether a run that renders with `prompter` may slide (`Shape::slide`): `--path
    /// window` never; `auto` only where no feature value is written (`bench`); `sliding`
    /// wherever the prompts stay the same.
    pub fn slide(&self, prompter: &Prompter, writes_features: bool) -> Result<Reads, NoSlide> {
        match self.cfg.path {
            PathChoice::Window => Err(NoSlide::WindowPath),
            PathChoice::Auto if writes_features => Err(NoSlide::FeaturesBeside),
            _ => Ok(prompter.reads()),
        }
    }
}

/// The windows and plan of one table under a spec, and how its features are computed.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub windows: Windows,
    pub plan: Plan,
    /// pywt's warning for a decomposition level above the maximum, if it applies.
    pub warning: Option<String>,
    /// Synchronise the device at stage boundaries (`--precise-timing`).
    precise: bool,
    /// Everything else the pipeline reads (normalisation, precision, aggregation,
    /// statistics, whether it may slide, how degenerate units are described).
    method: Method,
}

impl RunSpec {
    /// Check every option that does not need the data; each error names its option.
    /// `backend` reads the files and builds the engines.
    pub fn new(
        cfg: Config,
        purpose: Purpose,
        backend: &'static dyn Backend,
    ) -> Result<Self, DataError> {
        let level = cfg.transform.level;
        if level == 0 || level > MAX_LEVEL {
            return data::refuse(
                &[Opt::Level],
                format!("{OPTION} {level}: expected 1 to {MAX_LEVEL}"),
            );
        }
        for (zero, option) in [
            (cfg.stride == 0, Opt::Stride),
            (cfg.seq_len == Some(0), Opt::SeqLen),
            (cfg.batch_size == 0, Opt::BatchSize),
        ] {
            if zero {
                return data::refuse(&[option], format!("{OPTION} must be at least 1"));
            }
        }
        Ok(RunSpec {
            cfg,
            purpose,
            backend,
            transform_free: false,
        })
    }

    /// The spec for prompts rendered by `prompter`: a template that prints no wavelet word
    /// is not refused over the wavelet's level (Time-LLM's ILI set-up, 36-row windows
    /// under the default db4 level 3).
    pub fn renders_with(&mut self, prompter: &Prompter) {
        self.transform_free = prompter.transform_free();
    }

    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            columns: self.cfg.columns.clone(),
            missing: self.cfg.missing,
            time_column: self.cfg.time_column.clone(),
            dtype: self.cfg.dtype,
        }
    }

    /// Load one file with the configured columns, time axis and missing-value policy.
    pub fn load(&self, path: &Path) -> Result<Table, DataError> {
        load(self.backend, path, &self.load_options())
    }

    pub fn normalize(&self) -> Normalize {
        self.cfg.normalize.unwrap_or(match self.purpose {
            Purpose::Decompose => Normalize::None,
            Purpose::Features => Normalize::Revin,
        })
    }

    /// The windows over `table` and the plan for their length, checked for the purpose.
    pub fn prepare(&self, table: &Table) -> Result<Prepared, DataError> {
        let p = table.path.display();
        let t = self.cfg.transform;
        let windows = Windows::new(
            table.rows(),
            self.cfg.rows,
            self.cfg.seq_len,
            self.cfg.stride,
        )
        .map_err(|e| e.within(&p.to_string()))?;
        let plan = Plan::new(t.wavelet, t.mode, t.level, windows.seq_len)
            .map_err(|e| DataError::new(format!("{p}: {e}")))?;
        if self.purpose == Purpose::Features {
            self.check_range(table, &windows)?;
        }
        let max = t.max_level(windows.seq_len);
        self.check_level(&plan)?;
        let level_warning = match self.purpose {
            Purpose::Features if self.transform_free && plan.check_level().is_err() => {
                Some(format!(
                    "warning: level {} is above the maximum {max} for windows of {} rows and '{}'; the template prints no wavelet word, so its prompts are made all the same (the records' wavelet features are computed as pywt would, past the maximum)",
                    t.level, windows.seq_len, t.wavelet.name
                ))
            }
            Purpose::Features => degenerate_level(&plan),
            Purpose::Decompose => None,
        };
        let describe = self.describe(&plan);
        let warning = match self.purpose {
            Purpose::Features => level_warning,
            Purpose::Decompose => (t.level > max).then(|| {
                format!(
                    "warning: level {} is above the maximum {max} for length {} and '{}'; computing anyway, as pywt does",
                    t.level, windows.seq_len, t.wavelet.name
                )
            }),
        };
        Ok(Prepared {
            windows,
            plan,
            warning,
            precise: self.cfg.precise_timing,
            method: Method {
                normalize: self.normalize(),
                dtype: self.cfg.dtype,
                aggregate: self.cfg.aggregate,
                batch_size: self.cfg.batch_size,
                statistics: true,
                slide: Err(NoSlide::FeaturesWritten),
                slide_on_trial: self.cfg.path == PathChoice::Auto,
                describe,
                time_labels: true,
            },
        })
    }

    /// The level rule for the purpose (docs/transform.md#levels): features need `1 <=
    /// level <= max_level` for the plan's length; a decomposition computes any level, as
    /// pywt does. Every front end checks a plan here, the wheel each batch's length.
    pub fn check_level(&self, plan: &Plan) -> Result<(), DataError> {
        match self.purpose {
            Purpose::Features if !self.transform_free => plan
                .check_level()
                .map_err(|e| DataError::about(&[Opt::Level], format!("{OPTION}: {e}"))),
            Purpose::Features | Purpose::Decompose => Ok(()),
        }
    }

    /// How the run describes each unit of windows planned by `plan` (degenerate input,
    /// which top lags).
    pub fn describe(&self, plan: &Plan) -> Describe {
        Describe::new(plan, self.cfg.seed_compatible).with_lags(self.cfg.lags)
    }

    /// Values whose squares (summed over a window) would overflow the run's precision are
    /// refused, naming where: otherwise energies become inf and features NaN or zeros.
    fn check_range(&self, table: &Table, windows: &Windows) -> Result<(), DataError> {
        let limit = match self.cfg.dtype {
            DType::F32 => LIMIT_F32,
            DType::F64 => LIMIT_F64,
        };
        let rows = windows.first_row..windows.start(windows.count - 1) + windows.seq_len;
        for c in &table.channels {
            let Some(row) = c
                .values
                .rows(rows.clone())
                .iter_f64()
                .position(|v| v.abs() > limit)
            else {
                continue;
            };
            let row = rows.start + row;
            let (hint, options): (String, &[Opt]) = match self.cfg.dtype {
                DType::F32 => (
                    format!("rescale the column, or use {OPTION} f64"),
                    &[Opt::Dtype],
                ),
                DType::F64 => ("rescale the column".into(), &[]),
            };
            return data::refuse(options, format!(
                "{}: column '{}', data row {row}: {:e} is too large for {} sums of squares (|x| at most {limit:e}); {hint}",
                table.path.display(),
                c.name,
                c.values.get(row),
                self.cfg.dtype.name()
            ));
        }
        Ok(())
    }

    fn plan_dtype(&self, plan: &Plan) -> DType {
        plan.work_dtype(self.cfg.dtype)
    }

    /// The configured engine (auto: CUDA when usable, else native), with the notice to
    /// show when it fell back.
    pub fn engine(&self) -> Selected {
        self.backend.engine(self.cfg.engine)
    }
}

/// Units a run that streams them (the sweep, `prompts`, `features`) computes at once:
/// with their prompts, about 200 MB.
pub const CHUNK_UNITS: usize = 32_768;

/// Bytes one prompt unit holds until the output is written (features, lists, the prompt's
/// text and its JSON line), measured on ETTh1: ≈ 0.7 GB for 118,363 units.
const BYTES_PER_UNIT: u64 = 6_000;

impl Prepared {
    /// The run's peak memory beyond the loaded table, estimated before anything is
    /// allocated: decomposition keeps the batch and every coefficient; features stream,
    /// holding one chunk of units (`chunk_windows`) until it is written.
    pub fn estimate_bytes(&self, spec: &RunSpec, channels: usize) -> u64 {
        let series = (self.windows.count as u64) * channels as u64;
        match spec.purpose {
            Purpose::Decompose => {
                let width = match spec.plan_dtype(&self.plan) {
                    DType::F32 => 4,
                    DType::F64 => 8,
                };
                series * (self.windows.seq_len + self.plan.coeffs_per_series()) as u64 * width
            }
            Purpose::Features => {
                let units = match spec.cfg.aggregate {
                    Aggregate::Series => series,
                    Aggregate::Sample => self.windows.count as u64,
                    Aggregate::Batch => {
                        (self.windows.count as u64).div_ceil(spec.cfg.batch_size as u64)
                    }
                };
                let chunk = self.chunk_windows(channels) as u64 * channels as u64;
                units.min(chunk) * BYTES_PER_UNIT
            }
        }
    }

    /// Refuse a run whose estimate exceeds the memory this machine has available, saying
    /// how much it needs and how to make it smaller.
    pub fn check_memory(&self, spec: &RunSpec, table: &Table) -> Result<(), DataError> {
        let need = self.estimate_bytes(spec, table.channels.len());
        let Some(have) = available_memory() else {
            return Ok(());
        };
        if need <= have {
            return Ok(());
        }
        let gb = |b: u64| b as f64 / 1e9;
        data::refuse(&[Opt::Rows, Opt::Stride, Opt::Columns, Opt::Shard], format!(
            "{}: this run needs about {:.1} GB ({} windows × {} channels) but {:.1} GB of memory is available; select fewer rows ({OPTION}), a larger {OPTION}, fewer {OPTION}, or use {OPTION}",
            table.path.display(),
            gb(need),
            self.windows.count,
            table.channels.len(),
            gb(have)
        ))
    }

    /// The same run over part of the windows (a shard, one window of the seed's
    /// per-sample calls).
    pub fn part(&self, range: std::ops::Range<usize>) -> Self {
        Prepared {
            windows: self.windows.part(range),
            ..self.clone()
        }
    }

    /// The same run over windows `windows[0]`, `windows[0] + k`, … (numbered as in
    /// this run, `k` apart), numbered 0, 1, … in the run it returns: a sweep's fit
    /// windows, every k-th train window.
    pub fn every(&self, first: usize, k: usize, count: usize) -> Self {
        Prepared {
            windows: Windows {
                first_row: self.windows.start(first - self.windows.first),
                first: 0,
                stride: self.windows.stride * k.max(1),
                count,
                ..self.windows
            },
            ..self.clone()
        }
    }

    /// The windows of one chunk of about [`CHUNK_UNITS`] units over `channels` channels, a
    /// whole number of batches under `--aggregate batch` (a prompt never spans two
    /// chunks).
    pub fn chunk_windows(&self, channels: usize) -> usize {
        let windows = (CHUNK_UNITS / channels.max(1)).max(1);
        match self.method.aggregate {
            Aggregate::Batch => windows.next_multiple_of(self.method.batch_size.max(1)),
            Aggregate::Series | Aggregate::Sample => windows,
        }
    }

    /// The same windows under another plan of the same length (the seed's adaptive
    /// level).
    pub fn with_plan(&self, plan: Plan) -> Self {
        Prepared {
            plan,
            ..self.clone()
        }
    }

    /// What one prompt describes.
    pub fn aggregate(&self) -> Aggregate {
        self.method.aggregate
    }

    /// Whether the run may take the sliding path: `Ok(what the prompts read)` where it
    /// gives exactly those prompts (`RunSpec::slide`), else why not.
    pub fn sliding(mut self, slide: Result<Reads, NoSlide>) -> Self {
        self.method.slide = slide;
        self
    }

    /// The same run without Time-LLM's statistics (min, max, median, trend and lags stay
    /// 0 and empty): for a caller that has them already, such as a sweep, whose every
    /// configuration has the same windows.
    pub fn without_statistics(mut self) -> Self {
        self.method.statistics = false;
        self
    }

    /// The same run with units that carry no time text (`Unit::start_time` empty): for a
    /// caller that never shows it, such as a sweep.
    pub fn without_time_labels(mut self) -> Self {
        self.method.time_labels = false;
        self
    }

    /// The features of every unit of `table` (the table this was prepared for, or one of
    /// the same shape) on `engine`; `progress(windows done)` answers whether to go on.
    pub fn features(
        &self,
        table: &Table,
        engine: &mut Selected,
        timer: &mut Timer,
        progress: impl FnMut(usize) -> bool,
    ) -> Result<Vec<Unit>, EngineError> {
        let shape = self.shape(table);
        pipeline::features(
            &mut engine.engine,
            &mut engine.notice,
            &shape,
            timer,
            progress,
        )
    }

    /// [`Prepared::features`] of several runs over one table at once: runs of one
    /// configuration at different levels (each made by its own `RunSpec`), by increasing
    /// level; any other difference is refused. Each run's units are what `features` gives
    /// it alone, to the bit; where they slide, the levels they share are transformed once.
    pub fn features_together(
        runs: &[&Prepared],
        table: &Table,
        engine: &mut Selected,
        timer: &mut Timer,
    ) -> Result<Vec<Vec<Unit>>, EngineError> {
        let shapes: Vec<Shape<'_>> = runs.iter().map(|r| r.shape(table)).collect();
        pipeline::features_together(&mut engine.engine, &mut engine.notice, &shapes, timer)
    }

    /// One channel of one window through the same path as [`Prepared::features`] (its
    /// features and prompt are that unit's), plus what the app plots.
    pub fn inspect(
        &self,
        table: &Table,
        engine: &mut Selected,
        unit: Inspect<'_>,
    ) -> Result<Inspection, EngineError> {
        let req = pipeline::InspectRequest {
            shape: self.shape(table),
            channel: unit.channel,
            window: unit.window,
            prompter: unit.prompter,
            description: unit.description,
            pred_len: unit.pred_len,
            precise: self.precise,
        };
        pipeline::inspect(&mut engine.engine, &mut engine.notice, &req)
    }

    /// The pipeline's shape over `table`.
    fn shape<'a>(&'a self, table: &'a Table) -> Shape<'a> {
        Shape {
            table,
            windows: self.windows,
            plan: &self.plan,
            method: &self.method,
        }
    }
}

/// A level that leaves fewer than 2 coefficients in the approximation band: its spread is
/// 0, so every feature built on it (SNR, the volatility ratio, signal quality, stability,
/// difficulty) describes the level, not the data (docs/features.md#snr). Allowed, since it
/// is within pywt's maximum, but said.
fn degenerate_level(plan: &Plan) -> Option<String> {
    let n = plan.band_lens.first().copied()?;
    level_is_degenerate(plan).then(|| {
        format!(
            "warning: level {} of '{}' leaves {n} coefficient in cA{} of a {}-row window: SNR, volatility ratio, signal quality, stability and difficulty describe the level, not the data; level {} or lower keeps 2 or more",
            plan.level,
            plan.wavelet.name,
            plan.level,
            plan.len,
            plan.level.saturating_sub(1).max(1)
        )
    })
}

/// Which unit [`Prepared::inspect`] computes, and what its prompt says.
#[derive(Clone, Copy)]
pub struct Inspect<'a> {
    pub channel: usize,
    pub window: usize,
    pub prompter: &'a Prompter,
    pub description: &'a str,
    pub pred_len: usize,
}

/// `MemAvailable` of /proc/meminfo, in bytes (None where there is no such file).
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

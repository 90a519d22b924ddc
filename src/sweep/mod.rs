//! Sweep: which wavelet, level, mode and template make prompts that tell a forecaster
//! something? Every configuration of a [`Grid`] over a data set, each scored by the
//! information its prompts' claims carry about what the horizon did
//! (`wavebench_core::score`, docs/score.md), ranked by the validation score with the
//! test score beside it; the mean of a few features comes along as a description.

mod claims;
pub mod grid;
mod point;
pub mod rank;
pub mod report;
pub mod survey;

pub use claims::defined_claims;
pub use grid::{Grid, Levels, Point};
pub use rank::{ranked, Metric, RankBy};

use point::Scoring;

use crate::error::{Error, Result};
use rayon::prelude::*;
use std::sync::Arc;
use wavebench_core::config::Config;
use wavebench_core::data::Table;
use wavebench_core::engine::{self, DType};
use wavebench_core::features::{Aggregate, Reads};
use wavebench_core::names::{Opt, OPTION};
use wavebench_core::pipeline::{NoSlide, PathChoice};
use wavebench_core::prompt::Prompter;
use wavebench_core::run_spec::{Purpose, RunSpec};
use wavebench_core::score::{
    Borders, Claim, DefinedClaim, Evaluation, Horizons, Protocol, Scorer, Split,
};
use wavebench_core::stats::SeriesStats;
use wavebench_core::transform::Transform;

/// One configuration and template over the data set.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepRow {
    pub transform: Transform,
    /// Other chosen wavelets with the same filter bank (same features, same row).
    pub aliases: Vec<String>,
    pub template: String,
    /// Coefficients in the approximation band: below 2 its std, and so the SNR, is degenerate.
    pub approx_len: usize,
    pub val: Evaluation,
    pub test: Evaluation,
    /// Each [`Metric`]'s mean over the val and test units.
    pub means: [f64; 6],
}

impl SweepRow {
    pub fn mean(&self, m: Metric) -> f64 {
        self.means[m as usize]
    }

    /// An approximation band of fewer than 2 coefficients has no spread: its std, SNR and
    /// volatility are artefacts of the level, not of the data.
    pub fn degenerate(&self) -> bool {
        self.approx_len < 2
    }

    /// "db4 level 3", with the mode and template where the sweep varies them.
    pub fn label(&self) -> String {
        let t = &self.transform;
        format!("{} level {}", t.name(), t.level)
    }

    /// The label with the mode where it is not reflect, and the template.
    pub fn label_full(&self) -> String {
        let mut s = self.label();
        if self.transform.mode != wavebench_core::wavelet::Mode::Reflect {
            s.push(' ');
            s.push_str(self.transform.mode.name());
        }
        format!("{s}, {}", self.template)
    }
}

/// A whole sweep: the split, its units and every configuration's row, in grid order.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// The data options it ran with (columns, rows, window, stride, horizon, lags,
    /// template, description): what a view compares with its knobs to tell a stale sweep.
    pub base: Config,
    pub split: Split,
    /// Each file's name and parts.
    pub files: Vec<(String, Borders)>,
    /// Scored units per part (train: those the terciles were cut from).
    pub units: [usize; 3],
    /// Units of the three parts left out (a constant or perfectly linear input).
    pub left_out: usize,
    /// The channels they belong to, with how many each, the most first.
    pub left_out_channels: Vec<(String, usize)>,
    pub naive_mase: wavebench_core::score::Terciles,
    pub vol_ratio: wavebench_core::score::Terciles,
    /// The null's draws and the bootstrap's replicates.
    pub protocol: Protocol,
    /// Val's and test's units as sequences.
    pub parts: [PartUnits; 2],
    /// What the grid left out for the window length (levels above a wavelet's maximum,
    /// wavelets with no valid level), one line per kind.
    pub skipped: Vec<String>,
    /// How the series-only forecaster's predictions become classes.
    pub forecast_classes: wavebench_core::score::ForecastClasses,
    /// Time-LLM's own prompt (its trend word; the same for every wavelet) scored on val
    /// and test: the baseline every row's gain is measured from.
    pub baseline: [Evaluation; 2],
    pub rows: Vec<SweepRow>,
}

impl Sweep {
    /// The run configuration that makes `row`'s prompts: the sweep's data options, the
    /// row's transform and template, in f64 (the sweep's precision), one prompt per series.
    /// Written as TOML (`--write-config`), `prompts --config` gives the row's prompts.
    pub fn config_of(&self, row: &SweepRow) -> Config {
        Config {
            transform: row.transform,
            template: row.template.clone(),
            dtype: DType::F64,
            aggregate: Aggregate::Series,
            ..self.base.clone()
        }
    }

    /// The row of transform `t` (its wavelet or one of the row's aliases) with `template`.
    pub fn row(&self, t: Transform, template: &str) -> Option<&SweepRow> {
        self.rows.iter().find(|r| {
            let same_bank = r.transform.wavelet.name == t.wavelet.name
                || r.aliases.iter().any(|a| *a == t.wavelet.name);
            same_bank
                && r.transform.level == t.level
                && r.transform.mode == t.mode
                && r.template == template
        })
    }
}

/// Two rows' val scores and their difference, with the 95% interval of the difference over
/// the paired bootstrap replicates (the same blocks for both).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    pub a: f64,
    pub b: f64,
    pub a_interval: [f64; 2],
    pub b_interval: [f64; 2],
    /// `a - b` and its interval.
    pub diff: f64,
    pub interval: [f64; 2],
}

impl Difference {
    pub fn of(a: &SweepRow, b: &SweepRow) -> Difference {
        Difference {
            a: a.val.score_bits,
            b: b.val.score_bits,
            a_interval: a.val.interval,
            b_interval: b.val.interval,
            diff: a.val.score_bits - b.val.score_bits,
            interval: wavebench_core::score::paired_interval(&a.val.boot, &b.val.boot),
        }
    }

    /// The data cannot tell the two apart: the difference's interval contains 0.
    pub fn tied(&self) -> bool {
        self.interval[0] <= 0.0 && 0.0 <= self.interval[1]
    }
}

/// How a scored part's units hang together: sequences (file × channel), the shortest,
/// T + P in units, and the direction outcome's effective sample size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartUnits {
    pub sequences: usize,
    pub shortest: usize,
    pub span: usize,
    pub n_eff: f64,
    /// Some sequence is shorter than 2(T + P): shifted pairs share rows.
    pub conservative: bool,
    /// Per outcome, what the series-only forecaster's predicted class tells about it.
    pub forecaster: [wavebench_core::score::Info; 3],
}

/// Fewer effective val units than this and the ranking is said to rest on too few.
pub const FEW_EFFECTIVE: f64 = 30.0;

impl Sweep {
    /// What a reader must know before trusting the ranking's numbers: too few effective
    /// val units, a null that leans towards the observed values.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = self.skipped.clone();
        let val = &self.parts[0];
        if val.n_eff < FEW_EFFECTIVE {
            w.push(format!(
                "val holds about {:.0} effective units (the direction outcome's autocorrelation over {} units): fewer than {FEW_EFFECTIVE:.0}, too few to tell configurations apart; lengthen the val part or the data",
                val.n_eff, self.units[1]
            ));
        }
        for (p, name) in self.parts.iter().zip(["val", "test"]) {
            if p.shortest <= p.span {
                w.push(format!(
                    "{name}: its shortest channel sequence holds {} units, no more than one bootstrap block (T + P = {} units): its replicates barely vary, so its intervals understate the uncertainty",
                    p.shortest, p.span
                ));
            }
            if p.conservative {
                w.push(format!(
                    "{name}: its shortest channel sequence holds {} units, under 2(T + P) = {} units: shifted pairs share rows, so the null is conservative",
                    p.shortest,
                    2 * p.span
                ));
            }
        }
        w
    }
}

/// What a sweep runs over: the data options of `base` (columns, rows, seq_len, stride,
/// pred_len, description, missing), the grid, the templates and the split.
#[derive(Clone)]
pub struct Request {
    pub base: Config,
    pub grid: Grid,
    /// Each template's name and compiled form; every template is scored on the same
    /// features (the claims), and differs in its prompts' diversity.
    pub templates: Vec<(String, Arc<Prompter>)>,
    pub split: Split,
    /// The null's draws and the bootstrap's replicates.
    pub protocol: Protocol,
}

/// Run the sweep over `tables` (name, table) on the native engine in f64, sliding over
/// overlapping windows where exact (see [`slide`]). `progress(done, total)` answers whether to go on;
/// errors say what went wrong.
pub fn run(
    tables: &[(&str, &Table)],
    req: &Request,
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Result<Sweep> {
    if tables.is_empty() {
        return Err(Error::internal("sweep: no data"));
    }
    if req.templates.is_empty() {
        return Err(Error::internal("sweep: no template"));
    }
    keep_freed_memory();
    let scorer = scorer(tables, req)?;
    let job = Scoring::new(tables, req, &scorer)?;
    let (points, skipped) = req.grid.points(job.seq_len)?;
    // The first configuration computes Time-LLM's statistics of every unit (they do not
    // depend on the wavelet); the others borrow them and run side by side, a pair per
    // core, so one's single-threaded scoring overlaps another's transform.
    let (mut rows, stats) = job.point(&points[0], None)?;
    let stats = stats.unwrap_or_default();
    if !progress(1, points.len()) {
        return Err(Error::Cancelled);
    }
    let side_by_side = 2 * rayon::current_num_threads();
    let mut done = 1;
    for chunk in points[1..].chunks(side_by_side) {
        let results: Vec<Result<(Vec<SweepRow>, _)>> = chunk
            .par_iter()
            .map(|p| job.point(p, Some(&stats)))
            .collect();
        for r in results {
            rows.extend(r?.0);
        }
        done += chunk.len();
        if !progress(done, points.len()) {
            return Err(Error::Cancelled);
        }
    }
    Ok(sweep_of(tables, req, &scorer, rows, skipped))
}

/// One configuration (`req.base`'s wavelet, level, mode; every template of `req`): a
/// sweep of one, on units `scorer` (made by [`scorer`] for the same tables, windows,
/// horizon and split: a caller that scores many configurations in turn keeps it).
pub fn one(tables: &[(&str, &Table)], req: &Request, kept: &mut ScoredUnits) -> Result<Sweep> {
    if tables.is_empty() || req.templates.is_empty() {
        return Err(Error::internal("sweep: no data or no template"));
    }
    let scorer = &kept.scorer;
    let job = Scoring::new(tables, req, scorer)?;
    let point = Point {
        transform: req.base.transform,
        aliases: Vec::new(),
    };
    // The statistics of the last configuration serve this one.
    let (rows, stats) = job.point(&point, kept.stats.as_deref())?;
    let sweep = sweep_of(tables, req, scorer, rows, Vec::new());
    if stats.is_some() {
        kept.stats = stats;
    }
    Ok(sweep)
}

/// The units every configuration of `req` over `tables` is scored on: they depend on the
/// data options, the horizon and the split, not on the wavelet, level, mode or template.
pub fn scorer(tables: &[(&str, &Table)], req: &Request) -> Result<Scorer> {
    let base = RunSpec::new(req.data_config(), Purpose::Features, &crate::backend::LOCAL)?;
    let mut horizons = Vec::with_capacity(tables.len());
    let mut windows = Vec::with_capacity(tables.len());
    let mut seq_len = None;
    for (name, table) in tables {
        let prepared = base
            .prepare(table)
            .map_err(|e| Error::from(e).within(&place(name, table)))?;
        let rows = table.rows();
        let range = base
            .rows
            .map_or(0..rows, |r| r.start..r.end.unwrap_or(rows));
        let h = Horizons::new(
            table,
            &prepared.windows,
            req.base.pred_len,
            &req.split,
            range,
        )
        .map_err(|e| Error::from(e).within(&place(name, table)))?;
        match seq_len {
            None => seq_len = Some(prepared.windows.seq_len),
            Some(s) if s != prepared.windows.seq_len => {
                return Err(Error::about(
                    &[Opt::SeqLen],
                    format!(
                        "{name}: its windows are {} rows, the others' {s}: give {OPTION}",
                        prepared.windows.seq_len
                    ),
                ))
            }
            _ => {}
        }
        horizons.push(h);
        windows.push(prepared.windows);
    }
    let data = horizons
        .into_iter()
        .zip(tables)
        .zip(&windows)
        .map(|((h, (_, t)), w)| (h, *t, w))
        .collect();
    Scorer::new(data, req.protocol).map_err(|e| match tables {
        // One file: the message is about it.
        [(name, table)] => Error::from(e).within(&place(name, table)),
        _ => Error::from(e),
    })
}

/// Per channel name (summed over files), its left-out units, the most first.
fn left_out_channels(tables: &[(&str, &Table)], scorer: &Scorer) -> Vec<(String, usize)> {
    let mut by: Vec<(String, usize)> = Vec::new();
    for ((_, table), h) in tables.iter().zip(&scorer.files) {
        for (c, &n) in table.channels.iter().zip(&h.left_out_by_channel) {
            if n == 0 {
                continue;
            }
            match by.iter_mut().find(|(name, _)| *name == c.name) {
                Some((_, total)) => *total += n,
                None => by.push((c.name.clone(), n)),
            }
        }
    }
    by.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    by
}

impl Sweep {
    /// "left out (…)" and, when any, the channels: "OT 2203, HUFL 4".
    pub fn left_out_text(&self) -> String {
        const SHOWN: usize = 5;
        let mut t = format!(
            "{} left out (constant or perfectly linear input",
            self.left_out
        );
        if !self.left_out_channels.is_empty() {
            let named: Vec<String> = self
                .left_out_channels
                .iter()
                .take(SHOWN)
                .map(|(c, n)| format!("{c} {n}"))
                .collect();
            t += &format!(": {}", named.join(", "));
            let more = self.left_out_channels.len().saturating_sub(SHOWN);
            if more > 0 {
                t += &format!(" and {more} more channels");
            }
        }
        t.push(')');
        t
    }
}

/// Where a message about `table` says it is: its name in the data set, or its path when it
/// is the only file (its name is then empty).
fn place(name: &str, table: &Table) -> String {
    if name.is_empty() {
        table.path.display().to_string()
    } else {
        name.to_string()
    }
}

fn sweep_of(
    tables: &[(&str, &Table)],
    req: &Request,
    scorer: &Scorer,
    rows: Vec<SweepRow>,
    skipped: Vec<String>,
) -> Sweep {
    Sweep {
        skipped,
        base: req.base.clone(),
        split: req.split,
        files: tables
            .iter()
            .zip(&scorer.files)
            .map(|((n, _), h)| (n.to_string(), h.borders.clone()))
            .collect(),
        units: scorer.units,
        left_out: scorer
            .files
            .iter()
            .map(|h| h.left_out.iter().sum::<usize>())
            .sum(),
        left_out_channels: left_out_channels(tables, scorer),
        naive_mase: scorer.mase,
        vol_ratio: scorer.vol,
        protocol: scorer.protocol,
        parts: [0, 1].map(|i| {
            let q = &scorer.sequences[i];
            PartUnits {
                sequences: q.ranges.len(),
                shortest: q.shortest(),
                span: q.span,
                n_eff: q.n_eff,
                conservative: q.conservative(),
                forecaster: scorer.forecaster_bits[i],
            }
        }),
        forecast_classes: scorer.forecast_classes,
        baseline: rows.first().map_or_else(Default::default, |r| {
            [r.val.clone(), r.test.clone()].map(Evaluation::baseline)
        }),
        rows,
    }
}

impl Request {
    /// The data options alone (windows, rows, horizon), for what does not depend on the
    /// transform: its transform is haar at level 1, which every window of 2 or more rows
    /// allows, so the base's wavelet and level (which a sweep does not run) refuse nothing.
    fn data_config(&self) -> Config {
        let mut cfg = self.config(None);
        cfg.transform = Transform {
            wavelet: wavebench_core::wavelet::lookup("haar").expect("haar is in the catalogue"),
            level: 1,
            mode: self.base.transform.mode,
        };
        cfg
    }

    /// The run of one grid point (or the base's wavelet for None): f64 on the native
    /// engine, one prompt per series.
    fn config(&self, p: Option<&Point>) -> Config {
        Config {
            transform: p.map_or(self.base.transform, |p| p.transform),
            dtype: DType::F64,
            aggregate: Aggregate::Series,
            engine: engine::EngineKind::Native,
            ..self.base.clone()
        }
    }
}

/// Whether a sweep's runs slide: unless `path = "window"`, and then only where every
/// claim and every prompt comes out as the per-window path's. Over every wavelet of
/// ETTh1 sliding took 58 s against 67.5 s per window (long filters gain, the shortest
/// lose a little to the claims' margins).
fn slide(req: &Request, defined: &[Arc<DefinedClaim>]) -> Result<Reads, NoSlide> {
    match req.base.path {
        PathChoice::Window => Err(NoSlide::WindowPath),
        _ => Ok(req
            .templates
            .iter()
            .map(|(_, p)| p.reads())
            .chain(defined.iter().map(|d| d.reads()))
            .fold(Claim::READS, Reads::union)),
    }
}

/// What a caller that scores one data set under many configurations (the app's Data set
/// pane) keeps between them: the scored units and, once computed, their Time-LLM
/// statistics. Neither depends on the wavelet, level, mode or template; the caller keys
/// it by everything else.
pub struct ScoredUnits {
    pub scorer: Scorer,
    stats: Option<Vec<SeriesStats>>,
    /// The survey timeline's channel, and its statistics over every window.
    pub(crate) timeline: Option<(usize, Vec<SeriesStats>)>,
}

impl ScoredUnits {
    pub fn new(scorer: Scorer) -> Self {
        ScoredUnits {
            scorer,
            stats: None,
            timeline: None,
        }
    }
}

/// Keep freed memory in the process for the next allocation. Each configuration allocates
/// and frees the same ~100 MB (summaries, features, prompts); by default glibc returns
/// large blocks to the kernel and the next configuration faults them back in, page by
/// page: 3 s of system time over a sweep of ETTh1 (0.3 s with this).
fn keep_freed_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets allocator parameters (the CLI's sweep and the app's sweep
    // job call it before the grid's configurations allocate).
    unsafe {
        // Blocks up to 32 MB (glibc's ceiling) from the heap, not mmap; the heap is never
        // trimmed, and grows 64 MB at a time.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}

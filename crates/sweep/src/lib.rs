//! wavebench's sweep: which wavelet, level, mode and template make prompts that tell a
//! forecaster something? Every configuration of a [`Grid`] over a data set, each scored by
//! the information its prompts' claims carry about what the horizon did
//! (`wavebench_core::score`, docs/score.md), ranked by the validation score with the test
//! score beside it; the mean of a few features comes along as a description. Shards write
//! parts ([`partial`]) that merge to the one-process report byte for byte, and what every
//! configuration shares can be prepared once ([`prepared`]).
//!
//! A crate of its own, with no polars, egui or libtorch, so that the command line, the app
//! and the Python wheel run the same sweep; the tables come in already loaded. It also
//! holds what all three share about a run: the error type every front end words
//! ([`error`]), the run configuration as TOML ([`config`]) and the build's [`VERSION`].

mod claims;
pub mod config;
pub mod deal;
pub mod error;
pub mod estimate;
pub mod grid;
pub mod partial;
mod point;
pub mod prepared;
pub mod rank;
mod rank_by;
pub mod report;
mod result;
pub mod survey;
mod texts;
pub mod withheld;

pub use claims::defined_claims;
pub use grid::{Grid, Levels, Point};
pub use point::Progress;
pub use rank::{ranked, Metric, RankBy};
pub use result::{Difference, GainSetting, PartUnits, Sweep, SweepRow, FEW_EFFECTIVE};

use point::Scoring;

/// This build's version with the commit it was built from ("0.1.0 (commit 1a2b3c4d5e6f)"),
/// as `--version` prints it and every part, report and prepared folder records it.
pub const VERSION: &str = env!("WAVEBENCH_VERSION");

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
use wavebench_core::run_spec::{Purpose, RunSpec, Shard, CHUNK_UNITS};
use wavebench_core::score::Layout;
use wavebench_core::score::{Claim, DefinedClaim, Evaluation, Horizons, Protocol, Scorer, Split};
use wavebench_core::stats::SeriesStats;
use wavebench_core::transform::Transform;

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
    progress: impl FnMut(usize, usize) -> bool,
) -> Result<Sweep> {
    Ok(run_share(tables, req, None, None, progress)?.sweep)
}

/// A shard's share of a sweep: its rows, each one's place in the grid, and how many
/// configurations the whole grid has.
pub struct Share {
    pub sweep: Sweep,
    pub at: Vec<usize>,
    pub configurations: usize,
}

/// [`run`] over shard `shard`'s share of the grid's configurations (all of them for
/// None, see [`deal::share`]), on the units `prepared` (read by [`prepared::read`] for
/// the same tables and request), or on units computed here for None.
pub fn run_share(
    tables: &[(&str, &Table)],
    req: &Request,
    shard: Option<Shard>,
    prepared: Option<Scorer>,
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Result<Share> {
    if tables.is_empty() {
        return Err(Error::internal("sweep: no data"));
    }
    if req.templates.is_empty() {
        return Err(Error::internal("sweep: no template"));
    }
    keep_freed_memory();
    let scorer = match prepared {
        Some(s) => s,
        None => scorer(tables, req)?,
    };
    // The scorer's transients (the table's train values, predictions) are freed: hand
    // their pages back before the configurations' chunks fill the heap again.
    release_freed_memory();
    let mut job = Scoring::new(tables, req, &scorer)?;
    let (all, skipped) = req.grid.points(job.seq_len)?;
    let chosen: Vec<usize> = match shard {
        Some(s) => deal::share(&all, s, together(tables)),
        None => (0..all.len()).collect(),
    };
    let configurations = all.len();
    // Each wavelet and mode's levels go through together (`Scoring::points`).
    let mut groups = deal::by_transform(&all, &chosen, together(tables));
    let mut rows: Vec<(usize, Vec<SweepRow>)> = Vec::with_capacity(chosen.len());
    if !groups.is_empty() {
        // The first group computes Time-LLM's statistics of every unit (they do not depend
        // on the wavelet) and, unless they are too many to hold, keeps them for the
        // others; those run side by side, a pair per core, so one's single-threaded
        // scoring overlaps another's transform.
        // The first group runs alone, its serial counting beside nothing: the cheapest.
        // The others a few at a time, the dearest first: a few of like cost end together.
        let cost = |g: &[usize]| g.iter().map(|&i| deal::cost(&all[i])).sum::<usize>();
        groups.sort_by_cached_key(|g| std::cmp::Reverse(cost(g)));
        let first = groups.pop().unwrap_or_default();
        let points: Vec<&Point> = first.iter().map(|&i| &all[i]).collect();
        let (r, lent) = job.points(&points, None, keeps_statistics(&scorer))?;
        // The prompts no configuration changes are measured once.
        job.fixed = req
            .templates
            .iter()
            .enumerate()
            .map(|(t, (_, prompter))| {
                let row = r.first()?.get(t)?;
                prompter
                    .same_for_every_transform()
                    .then_some([row.val.diversity, row.test.diversity])
            })
            .collect();
        rows.extend(first.iter().copied().zip(r));
        // What no wavelet changes in the prompts and claims is written once for the others.
        let stats = lent.map(|(stats, columns)| {
            job.texts =
                texts::for_templates(&req.templates, &stats, job.lengths(), &mut Vec::new());
            job.columns = Some(columns);
            stats
        });
        let mut done = first.len();
        if !progress(done, chosen.len()) {
            return Err(Error::Cancelled);
        }
        for chunk in groups.chunks(2 * rayon::current_num_threads()) {
            let results: Vec<Result<(Vec<Vec<SweepRow>>, _)>> = chunk
                .par_iter()
                .map(|group| {
                    let points: Vec<&Point> = group.iter().map(|&i| &all[i]).collect();
                    job.points(&points, stats.as_deref(), false)
                })
                .collect();
            for (group, r) in chunk.iter().zip(results) {
                rows.extend(group.iter().copied().zip(r?.0));
                done += group.len();
            }
            if !progress(done, chosen.len()) {
                return Err(Error::Cancelled);
            }
        }
    }
    // In grid order, as the configurations were chosen.
    rows.sort_by_key(|(i, _)| *i);
    let mut at = Vec::with_capacity(rows.len());
    let rows: Vec<SweepRow> = rows
        .into_iter()
        .flat_map(|(i, r)| {
            at.extend(std::iter::repeat_n(i, r.len()));
            r
        })
        .collect();
    Ok(Share {
        sweep: sweep_of(tables, req, (&scorer, &job), rows, skipped),
        at,
        configurations,
    })
}

/// One configuration (`req.base`'s wavelet, level, mode; every template of `req`): a
/// sweep of one, on units `scorer` (made by [`scorer`] for the same tables, windows,
/// horizon and split: a caller that scores many configurations in turn keeps it).
pub fn one(
    tables: &[(&str, &Table)],
    req: &Request,
    kept: &mut ScoredUnits,
    progress: Option<&Progress>,
) -> Result<Sweep> {
    if tables.is_empty() || req.templates.is_empty() {
        return Err(Error::internal("sweep: no data or no template"));
    }
    // The Data set pane surveys again on every knob change: its units' memory is kept
    // for the next (a tenth of a survey was page faults).
    keep_freed_memory();
    let scorer = &kept.scorer;
    let mut job = Scoring::new(tables, req, scorer)?;
    job.progress = progress.cloned();
    if let Some((stats, columns)) = &kept.lent {
        job.texts = texts::for_templates(&req.templates, stats, job.lengths(), &mut kept.texts);
        job.columns = Some(columns.clone());
    }
    let point = Point {
        transform: req.base.transform,
        aliases: Vec::new(),
    };
    // The statistics of the last configuration serve this one.
    let stats = kept.lent.as_ref().map(|(stats, _)| stats.as_slice());
    let (rows, lent) = job.points(&[&point], stats, keeps_statistics(scorer))?;
    let sweep = sweep_of(tables, req, (scorer, &job), rows.concat(), Vec::new());
    if lent.is_some() {
        kept.lent = lent;
    }
    Ok(sweep)
}

/// The units every configuration of `req` over `tables` is scored on: they depend on the
/// data options, the horizon and the split, not on the wavelet, level, mode or template.
pub fn scorer(tables: &[(&str, &Table)], req: &Request) -> Result<Scorer> {
    let base = RunSpec::new(
        req.data_config(),
        Purpose::Features,
        &wavebench_core::run_spec::NATIVE_ONLY,
    )?;
    let ranges: Vec<std::ops::Range<usize>> = tables
        .iter()
        .map(|(_, t)| {
            let rows = t.rows();
            base.rows
                .map_or(0..rows, |r| r.start..r.end.unwrap_or(rows).min(rows))
        })
        .collect();
    let layout = Layout {
        files: ranges.clone(),
        seq_len: base.cfg.seq_len.unwrap_or(0),
        pred_len: req.base.pred_len,
        stride: base.cfg.stride,
    };
    // A refusal about the units' count names a value that passes the same count.
    let fixed = |e: wavebench_core::score::ScoreError| e.with_fix(&layout, &req.split);
    // The forecasters are fit on every train unit, or on a subset where one was asked for
    // (docs/score.md#what-the-prompt-adds-beyond-the-series).
    let train_units: usize = tables
        .iter()
        .zip(&ranges)
        .map(|((_, t), rows)| {
            let units = req.split.borders(rows.start, rows.len()).map_or(0, |b| {
                layout.units_in(rows.start, b.part(wavebench_core::score::Part::Train))
            });
            units * t.channels.len()
        })
        .sum();
    let fit_every = wavebench_core::score::forecaster::fit_every(
        train_units,
        layout.seq_len,
        layout.stride,
        req.protocol.fit_subset_above,
    );
    let mut horizons = Vec::with_capacity(tables.len());
    let mut windows = Vec::with_capacity(tables.len());
    let mut seq_len = None;
    for ((name, table), range) in tables.iter().zip(&ranges) {
        // A plan's errors name the file already.
        let prepared = base.prepare(table)?;
        let h = Horizons::new(
            table,
            &prepared.windows,
            req.base.pred_len,
            &req.split,
            range.clone(),
            fit_every,
        )
        .map_err(|e| Error::from(fixed(e)).within(&place(name, table)))?;
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
        [(name, table)] => Error::from(fixed(e)).within(&place(name, table)),
        _ => Error::from(fixed(e)),
    })
}

/// How many levels of one wavelet and mode a sweep computes together (`Scoring::points`):
/// a chunk of units holds every level's, so each level's share of it is as many times
/// smaller, and the sliding path's tasks transform `seq_len` rows beyond their windows.
/// Each level keeps at least a task's worth of windows (`TASK_WINDOWS`): ETTh1's 7
/// channels take 8 levels together, a Traffic-shaped file's 862 one.
pub fn together(tables: &[(&str, &Table)]) -> usize {
    let channels = tables
        .iter()
        .map(|(_, t)| t.channels.len())
        .max()
        .unwrap_or(1);
    (CHUNK_UNITS / channels.max(1) / engine::sliding::TASK_WINDOWS).max(1)
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

/// The first `shown` of `items`, then how many more: "a, b, c and 4 more{noun}".
pub(crate) fn first_few<S: AsRef<str>>(items: &[S], shown: usize, noun: &str) -> String {
    let first: Vec<&str> = items.iter().take(shown).map(AsRef::as_ref).collect();
    match items.len().saturating_sub(shown) {
        0 => first.join(", "),
        more => format!("{} and {more} more{noun}", first.join(", ")),
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
    (scorer, job): (&Scorer, &Scoring<'_>),
    rows: Vec<SweepRow>,
    skipped: Vec<String>,
) -> Sweep {
    let mut baseline: [Evaluation; 2] = rows.first().map_or_else(Default::default, |r| {
        [r.val.clone(), r.test.clone()].map(Evaluation::baseline)
    });
    if let Some(Some(gains)) = job.baseline_gain.get() {
        for (b, g) in baseline.iter_mut().zip(gains) {
            b.forecast = Some(g.clone());
        }
    }
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
                longest: q.longest(),
                span: q.span,
                n_eff: q.n_eff,
                conservative: q.conservative(),
                forecaster: scorer.forecaster_bits[i],
            }
        }),
        forecast_classes: scorer.forecast_classes,
        fit: result::ForecasterFit {
            units: scorer.fitted_units,
            every: scorer.fit_every,
        },
        baseline,
        gain: GainSetting {
            fit_units: scorer.fit_units,
            fit_stride: scorer.files.first().map_or(1, |h| h.fit_stride),
            withheld: scorer.gain_withheld.clone(),
        },
        rows,
    }
}

impl Request {
    /// The data options alone (windows, rows, horizon), for what does not depend on the
    /// transform: its transform is haar at level 1, which every window of 2 or more rows
    /// allows, so the base's wavelet and level (which a sweep does not run) refuse nothing.
    pub(crate) fn data_config(&self) -> Config {
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

/// Scored units whose Time-LLM statistics a sweep keeps for its later configurations
/// (~130 bytes each: 260 MB); past this every configuration computes its own, so that
/// memory does not grow with the data set's features.
const KEPT_STATISTICS: usize = 2_000_000;

/// Whether the units' Time-LLM statistics are few enough to keep between configurations.
fn keeps_statistics(scorer: &Scorer) -> bool {
    scorer.scored_units() <= KEPT_STATISTICS
}

/// What a caller that scores one data set under many configurations (the app's Data set
/// pane) keeps between them: the scored units and, once computed, their Time-LLM
/// statistics. Neither depends on the wavelet, level, mode or template; the caller keys
/// it by everything else.
pub struct ScoredUnits {
    pub scorer: Scorer,
    /// The units' statistics and the columns of the claims that read only those, once
    /// a configuration has computed them.
    lent: Option<point::Lent>,
    /// The survey timeline's channel, and its statistics over every window.
    pub(crate) timeline: Option<(usize, Vec<SeriesStats>)>,
    /// The prompt pieces no wavelet changes, of the templates last surveyed.
    texts: Vec<Arc<texts::UnitTexts>>,
}

impl ScoredUnits {
    pub fn new(scorer: Scorer) -> Self {
        ScoredUnits {
            scorer,
            lent: None,
            timeline: None,
            texts: Vec::new(),
        }
    }
}

/// Keep freed memory in the process for the next allocation (once is enough; again is
/// harmless). Each configuration allocates and frees the same ~100 MB (summaries,
/// features, prompts); by default glibc returns large blocks to the kernel and the next
/// configuration faults them back in, page by page: 3 s of system time over a sweep of
/// ETTh1 (0.3 s with this).
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

/// Return the pages of freed memory to the kernel once (the heap is otherwise never
/// trimmed, see [`keep_freed_memory`]).
fn release_freed_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only returns free pages; no allocation is touched.
    unsafe {
        libc::malloc_trim(0);
    }
}

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
pub mod input;
mod memory;
pub mod merge;
pub mod options;
pub mod partial;
mod point;
pub mod prepared;
mod progress;
pub mod rank;
mod rank_by;
pub mod report;
mod request;
mod result;
pub mod survey;
mod texts;
mod units;
pub mod withheld;
mod words;

pub use claims::defined_claims;
pub use grid::{Grid, Levels, Point};
pub use progress::Progress;
pub use rank::{ranked, Metric, RankBy};
pub use request::Request;
pub use result::{Difference, GainSetting, PartUnits, Sweep, SweepRow, FEW_EFFECTIVE};
pub use units::{scorer, ScoredUnits};

use memory::{keep_freed_memory, release_freed_memory};
use point::Scoring;
use units::{keeps_statistics, left_out_channels};

/// This build's version with the commit it was built from ("0.1.0 (commit 1a2b3c4d5e6f)"),
/// as `--version` prints it and every part, report and prepared folder records it.
pub const VERSION: &str = env!("WAVEBENCH_VERSION");

use crate::error::{Error, Result};
use rayon::prelude::*;
use wavebench_core::data::Table;
use wavebench_core::engine;
use wavebench_core::run_spec::{Shard, CHUNK_UNITS};
use wavebench_core::score::{Evaluation, PerPart, Scorer};

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
    progress: impl FnMut(usize, usize) -> bool,
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
    let groups = deal::by_transform(&all, &chosen, together(tables));
    let mut rows = score_groups(&mut job, req, &scorer, &all, groups, chosen.len(), progress)?;
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

/// The rows of every group of configurations (each a wavelet and mode's levels), with
/// their places in the grid `all`; `progress(done, of)` as [`run_share`]'s, `chosen`
/// configurations in all.
fn score_groups(
    job: &mut Scoring<'_>,
    req: &Request,
    scorer: &Scorer,
    all: &[Point],
    mut groups: Vec<Vec<usize>>,
    chosen: usize,
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Result<Vec<(usize, Vec<SweepRow>)>> {
    let mut rows: Vec<(usize, Vec<SweepRow>)> = Vec::with_capacity(chosen);
    if groups.is_empty() {
        return Ok(rows);
    }
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
    let (r, lent) = job.points(&points, None, keeps_statistics(scorer))?;
    // The prompts no configuration changes are measured once.
    job.fixed = req
        .templates
        .iter()
        .enumerate()
        .map(|(t, (_, prompter))| {
            let row = r.first()?.get(t)?;
            prompter.same_for_every_transform().then_some(PerPart {
                val: row.val.diversity,
                test: row.test.diversity,
            })
        })
        .collect();
    rows.extend(first.iter().copied().zip(r));
    // What no wavelet changes in the prompts and claims is written once for the others.
    let stats = lent.map(|(stats, columns)| {
        job.texts = texts::for_templates(&req.templates, &stats, job.lengths(), &mut Vec::new());
        job.columns = Some(columns);
        stats
    });
    let mut done = first.len();
    if !progress(done, chosen) {
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
        if !progress(done, chosen) {
            return Err(Error::Cancelled);
        }
    }
    Ok(rows)
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

fn sweep_of(
    tables: &[(&str, &Table)],
    req: &Request,
    (scorer, job): (&Scorer, &Scoring<'_>),
    rows: Vec<SweepRow>,
    skipped: Vec<String>,
) -> Sweep {
    let mut baseline: PerPart<Evaluation> = rows.first().map_or_else(Default::default, |r| {
        PerPart {
            val: r.val.clone(),
            test: r.test.clone(),
        }
        .map(Evaluation::baseline)
    });
    if let Some(Some(gains)) = job.baseline_gain.get() {
        for (b, g) in baseline.iter_mut().zip(gains.iter()) {
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
        parts: scorer
            .sequences
            .each_ref()
            .zip(scorer.forecaster_bits)
            .map(|(q, forecaster)| PartUnits {
                sequences: q.ranges.len(),
                shortest: q.shortest(),
                longest: q.longest(),
                span: q.span,
                n_eff: q.n_eff,
                conservative: q.conservative(),
                forecaster,
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

//! `wavebench sweep`: every configuration of a grid over a data set, scored by what its
//! prompts' claims tell about the horizon (docs/score.md), ranked by the val score.

use super::run::progress_of;
use super::sweep_report::ReportOpts;
use crate::error::{Error, Result};
use crate::export;
use crate::sweep::options::{self, Plan};
pub use crate::sweep::options::{DataOpts, SweepOpts, UnitOpts};
use crate::sweep::partial::{self, Partial};
use crate::sweep::{self, Grid, Request};
use std::path::{Path, PathBuf};
use wavebench_core::config::Config;
use wavebench_core::data::Table;
use wavebench_core::names::ReportFormat;
use wavebench_core::run_spec::Shard;

/// What `sweep` does besides sweeping.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum SweepCommand {
    /// Compute what every configuration of a sweep over INPUT shares (the split, the scored
    /// units and their outcomes, the series-only forecasters and their predictions, the
    /// null's and bootstrap's draws) once, into folder DIR, for `sweep --prepared DIR`
    /// (each shard of a cluster's sweep) to read instead of computing it again
    Prepare {
        /// A data file, a folder of them, or a glob such as 'data/*.parquet'
        input: PathBuf,
        /// The folder to write (prepared.json and units.msgpack)
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        #[command(flatten)]
        data: DataOpts,
        #[command(flatten)]
        units: UnitOpts,
    },
    /// Combine the parts that `sweep --shard I/N -o FILE` wrote (every shard of one sweep,
    /// each once) into the report one process would have written, byte for byte.
    Merge {
        /// The part files, in any order, e.g. parts/*.json
        #[arg(required = true)]
        parts: Vec<PathBuf>,
        /// SWEEP.json, SWEEP.csv or SWEEP.md (Markdown on stdout when absent).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        report: ReportOpts,
    },
    /// Write a ranked row's configuration from a saved sweep, without computing anything:
    /// a JSON report (`sweep ... -o SWEEP.json`) or every part of a sharded sweep.
    Pick {
        /// SWEEP.json, or the part files of one sweep
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        #[command(flatten)]
        report: ReportOpts,
    },
}

/// `sweep` or one of its subcommands (`then`): merge, pick, prepare.
pub fn command(
    then: Option<SweepCommand>,
    input: Option<PathBuf>,
    output: Option<PathBuf>,
    data: &DataOpts,
    opts: &SweepOpts,
    report: &ReportOpts,
) -> Result<()> {
    match (then, input) {
        (
            Some(SweepCommand::Merge {
                parts,
                output,
                report,
            }),
            _,
        ) => super::sweep_report::merge(&parts, output.as_deref(), &report),
        (Some(SweepCommand::Pick { reports, report }), _) => {
            super::sweep_report::pick(&reports, &report)
        }
        (
            Some(SweepCommand::Prepare {
                input,
                output,
                data,
                units,
            }),
            _,
        ) => prepare(&input, &output, &data, &units),
        (None, Some(path)) => run(&path, output.as_deref(), data, opts, report),
        (None, None) => Err(Error::internal("sweep: clap requires the input")),
    }
}

pub fn run(
    path: &Path,
    output: Option<&Path>,
    data: &DataOpts,
    opts: &SweepOpts,
    report: &ReportOpts,
) -> Result<()> {
    // A shard writes its part; the whole sweep its report.
    let written = match opts.shard {
        Some(shard) => {
            partial::check_shard(shard)?;
            refuse_ranking_on_a_shard(report)?;
            part_name(output)?;
            Written::Part(shard)
        }
        None => Written::Report(super::run::report_format(output, "file")?),
    };
    let Plan { request: req, note } = opts.plan(data)?;
    if let Some(note) = note {
        eprintln!("wavebench: note: {note}");
    }
    if report.write_config.is_some() {
        // The rows a sweep can rank, known before it runs.
        let rows = req.grid.points(req.base.seq_len.unwrap_or(0))?.0.len() * req.templates.len();
        if report.pick > rows {
            return Err(Error::input(format!(
                "--pick {}: the grid has {rows} row{} to rank; pick 1 to {rows}",
                report.pick,
                if rows == 1 { "" } else { "s" }
            )));
        }
    }
    let tables = load(path, &req.base)?;
    let named: Vec<(&str, &Table)> = tables.iter().map(|(n, t)| (n.as_str(), t)).collect();
    // The shared work read back, checked against this data and these options.
    let prepared = match &opts.prepared {
        Some(dir) => Some(sweep::prepared::read(dir, &named, &req)?),
        None => None,
    };
    announce(
        &named,
        &req,
        opts.shard,
        prepared.is_some(),
        data.quiet,
        opts.force,
    )?;
    let bar = progress_of(0, data.quiet, "sweep", "configurations");
    let result = sweep::run_share(&named, &req, opts.shard, prepared, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        true
    });
    bar.finish_and_clear();
    let share = result?;
    let input = path.display().to_string();
    match written {
        Written::Report(format) => super::sweep_report::write_report(
            &share.sweep,
            &input,
            output,
            format,
            report,
            data.quiet,
        ),
        Written::Part(shard) => {
            let part = Partial::of(share, shard, input, &named, &req);
            write_part(&part, output, data.quiet)
        }
    }
}

/// What a sweep writes: a shard's part, or the whole sweep's report.
enum Written {
    Part(Shard),
    Report(ReportFormat),
}

/// A shard's part to `output`, as `sweep merge` reads it.
fn write_part(part: &Partial, output: Option<&Path>, quiet: bool) -> Result<()> {
    let out = output.ok_or_else(|| Error::input("--shard: give the part's file with -o"))?;
    let bytes = part.to_bytes()?;
    export::write_atomic(out, |w| w.write_all(&bytes))?;
    if !quiet {
        eprintln!(
            "wavebench: {}: shard {}/{}, {} of {} configurations; combine the parts with `wavebench sweep merge`",
            out.display(),
            part.shard.index,
            part.shard.count,
            part.at.iter().collect::<std::collections::BTreeSet<_>>().len(),
            part.configurations
        );
    }
    Ok(())
}

/// Every file of the data set at `path`, each with its name in the set, loaded as `base`
/// says; its warnings and the files it skipped (`--skip-bad-files`) printed.
fn load(path: &Path, base: &Config) -> Result<Vec<(String, Table)>> {
    let loaded = sweep::input::load(path, base, &crate::backend::LOCAL)?;
    for e in &loaded.skipped {
        eprintln!("wavebench: skipping a bad file: {}", super::message(e));
    }
    let tables = loaded.usable(path)?;
    for (_, t) in &tables {
        for w in &t.warnings {
            eprintln!("wavebench: {w}");
        }
    }
    Ok(tables)
}

/// `sweep prepare`: what every configuration of a sweep over `path` shares, into `dir`.
pub fn prepare(path: &Path, dir: &Path, data: &DataOpts, units: &UnitOpts) -> Result<()> {
    let base = options::base_config(data, units, None, None)?;
    let req = Request {
        base,
        grid: Grid::default(),
        templates: Vec::new(),
        split: units.split,
        protocol: units.protocol(),
    };
    let tables = load(path, &req.base)?;
    let named: Vec<(&str, &Table)> = tables.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let e = sweep::estimate::estimate(&named, &req, 0, rayon::current_num_threads());
    if !data.quiet && e.seconds >= LONG_SWEEP {
        eprintln!(
            "wavebench: the shared work of a sweep over {} units ({} scored): {} on this machine",
            e.units,
            e.scored,
            e.text()
        );
    }
    let scorer = sweep::scorer(&named, &req)?;
    let input = path.display().to_string();
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, "create the folder", e))?;
    for (name, bytes) in sweep::prepared::files(&named, &req, &scorer, &input)? {
        export::write_atomic(&dir.join(name), |w| w.write_all(&bytes))?;
    }
    if !data.quiet {
        eprintln!(
            "wavebench: {}: {} scored units ({} val, {} test) and the forecasters; give it to each sweep of this data and these options with --prepared {}",
            dir.display(),
            scorer.units.val + scorer.units.test,
            scorer.units.val,
            scorer.units.test,
            dir.display()
        );
    }
    Ok(())
}

/// A shard ranks nothing: what ranks and picks belongs to the merge, and is refused here
/// rather than dropped.
fn refuse_ranking_on_a_shard(report: &ReportOpts) -> Result<()> {
    let given = [
        (report.write_config.is_some(), "--write-config"),
        (report.by.is_some(), "--by"),
        (report.keep_degenerate, "--keep-degenerate"),
    ];
    match given.iter().find(|(on, _)| *on) {
        Some((_, flag)) => Err(Error::input(format!(
            "{flag}: a shard ranks nothing; give it to `sweep merge`"
        ))),
        None => Ok(()),
    }
}

/// A part is JSON whatever its name says; a name that says otherwise is refused.
fn part_name(output: Option<&Path>) -> Result<()> {
    let out = output.ok_or_else(|| Error::input("--shard: give the part's file with -o"))?;
    if out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        return Ok(());
    }
    Err(Error::input(format!(
        "-o {}: a shard writes a JSON part; name it FILE.json (`sweep merge` writes the report)",
        out.display()
    )))
}

/// Before a long sweep, one line with its estimated time and memory on this machine; a
/// refusal where the memory it needs is more than the machine has available, unless
/// `--force`.
fn announce(
    tables: &[(&str, &wavebench_core::data::Table)],
    req: &Request,
    shard: Option<Shard>,
    prepared: bool,
    quiet: bool,
    force: bool,
) -> Result<()> {
    let (points, _) = req.grid.points(req.base.seq_len.unwrap_or(0))?;
    let count = shard.map_or(points.len(), |s| {
        sweep::deal::share(&points, s, sweep::together(tables)).len()
    });
    let threads = rayon::current_num_threads();
    let mut e = sweep::estimate::estimate(tables, req, count, threads);
    if prepared {
        e = e.without_shared();
    }
    let of = match shard {
        Some(s) => format!(" (shard {}/{} of {})", s.index, s.count, points.len()),
        None => String::new(),
    };
    if !quiet && e.seconds >= LONG_SWEEP {
        eprintln!(
            "wavebench: sweep of {count} configuration{}{of} over {} units ({} scored): {} on this machine ({threads} threads)",
            if count == 1 { "" } else { "s" },
            e.units,
            e.scored,
            e.text()
        );
    }
    if let Some(have) = wavebench_core::run_spec::available_memory() {
        if e.bytes > have as f64 {
            let text = format!(
                "this sweep may need about {:.1} GB, and {:.1} GB is available: give fewer --columns or --rows, fewer --null-draws or --bootstrap, or shard it over machines (--shard)",
                e.bytes / 1e9,
                have as f64 / 1e9
            );
            if !force {
                return Err(Error::input(format!("{text}; --force runs it anyway")));
            }
            eprintln!("wavebench: warning: {text}");
        }
    }
    Ok(())
}

/// Estimated seconds from which a sweep says what it will take before it starts.
const LONG_SWEEP: f64 = 10.0;

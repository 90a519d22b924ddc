//! `wavebench sweep`: every configuration of a grid over a data set, scored by what its
//! prompts' claims tell about the horizon (docs/score.md), ranked by the val score.

use super::run::{progress_of, PromptOpts};
use super::sweep_report::ReportOpts;
use super::DataOpts;
use crate::data::DataSet;
use crate::error::{Error, Result};
use crate::export;
use crate::sweep::partial::{self, Partial};
use crate::sweep::{self, Grid, Levels, Request};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wavebench_core::data::Table;
use wavebench_core::names::ReportFormat;
use wavebench_core::run_spec::{Purpose, RunSpec, Shard};
use wavebench_core::score::{Protocol, Split};
use wavebench_core::wavelet::Mode;

/// The sweep's own options (the data options are `Common`'s).
#[derive(clap::Args, Debug, Clone)]
pub struct SweepOpts {
    /// Wavelets: names or patterns such as db1,db4,sym* (identical filter banks run once)
    #[arg(long, value_delimiter = ',', default_value = "*")]
    pub wavelets: Vec<String>,
    /// Levels: 1..6, a list such as 2,3, or valid (1 to each wavelet's maximum)
    #[arg(long, default_value = "valid")]
    pub levels: Levels,
    /// Extension modes, comma-separated
    #[arg(long, value_enum, value_delimiter = ',', default_value = "reflect")]
    pub modes: Vec<Mode>,
    /// Templates, comma-separated: built-in names (timellm, dwt-minimal, dwt-balanced, dwt-detailed) or files
    #[arg(long, value_delimiter = ',')]
    pub template: Vec<String>,
    /// Dataset description in the prompts, or @FILE
    #[arg(long)]
    pub description: Option<String>,
    /// Which top lags the prompts print, and so what the `lags` claim is: timellm (lag 0
    /// and the mirror lags included), clean (lags 1..=T/2) or peaks (the autocorrelation's
    /// local maxima, the periods the window repeats at)
    #[arg(long, value_enum)]
    pub lags: Option<wavebench_core::stats::LagRule>,
    #[command(flatten)]
    pub units: UnitOpts,
    /// A claim you define, scored beside the built-in ones against every outcome with its
    /// null and the bits beyond the series: NAME=TEMPLATE, or NAME:OUTCOME=TEMPLATE to add
    /// it to every row's score (repeatable; docs/score.md#claims-you-define), e.g.
    /// level={{ "above" if last > mean else "below" }} its window mean
    #[arg(long = "claim", value_name = "NAME[:OUTCOME]=TEMPLATE")]
    pub claims: Vec<String>,
    /// Compute only part I of N of the grid's configurations (1-based, balanced by their
    /// cost; N at most 100000) and write them to -o FILE.json as a part that `sweep merge`
    /// combines with the others into the whole sweep
    #[arg(long, value_name = "I/N", requires = "output")]
    pub shard: Option<Shard>,
    /// Read what every configuration shares (the scored units, their outcomes, the
    /// forecasters and their predictions, the null's and bootstrap's draws) from a folder
    /// that `sweep prepare` wrote for the same data and options, instead of computing it
    #[arg(long, value_name = "DIR")]
    pub prepared: Option<PathBuf>,
    /// Run even where the up-front estimate says the sweep needs more memory than the
    /// machine has available
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub report: ReportOpts,
}

/// The options the units every configuration is scored on depend on, beside the data
/// options: what `sweep prepare` computes once for many sweeps.
#[derive(clap::Args, Debug, Clone)]
pub struct UnitOpts {
    /// Forecast horizon: the rows after each window whose outcome is scored
    #[arg(long)]
    pub pred_len: Option<usize>,
    /// Chronological split: TRAIN,VAL,TEST shares, ett-hour (8640/2880/2880 rows) or ett-minute
    #[arg(long, default_value = "0.7,0.1,0.2")]
    pub split: Split,
    /// Circular shifts of each channel's outcomes against its claims: the null every
    /// figure is read against (docs/score.md#the-null)
    #[arg(long, default_value_t = Protocol::default().null_draws)]
    pub null_draws: usize,
    /// Circular block-bootstrap replicates for the scores' 95% intervals and the ties
    /// (docs/score.md#uncertainty-and-ties)
    #[arg(long, default_value_t = Protocol::default().bootstrap)]
    pub bootstrap: usize,
    /// Fit the series-only forecasters on the units of one train window in ceil(T/32)
    /// where the data set has more than UNITS train units: faster, not the same classes
    /// (docs/score.md#what-the-prompt-adds-beyond-the-series) [default: every train unit]
    #[arg(long, value_name = "UNITS")]
    pub fit_subset_above: Option<usize>,
}

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

pub fn run(path: &Path, output: Option<&Path>, data: &DataOpts, opts: &SweepOpts) -> Result<()> {
    // A shard writes its part; the whole sweep its report.
    let written = match opts.shard {
        Some(shard) => {
            if shard.count > partial::MAX_SHARDS {
                return Err(Error::input(format!(
                    "--shard {}/{}: a sweep has at most {} shards",
                    shard.index,
                    shard.count,
                    partial::MAX_SHARDS
                )));
            }
            refuse_ranking_on_a_shard(&opts.report)?;
            part_name(output)?;
            Written::Part(shard)
        }
        None => Written::Report(super::run::report_format(output, "file")?),
    };
    let mut base = base_config(
        data,
        &opts.units,
        PromptOpts {
            description: opts.description.clone(),
            lags: opts.lags,
            ..PromptOpts::default()
        },
    )?;
    for spec in &opts.claims {
        wavebench_core::score::DefinedClaim::parse(spec)
            .and_then(|c| c.insert_into(&mut base.claims))
            .map_err(|e| match e {
                wavebench_core::score::DefinedError::Twice(_) => Error::input(format!(
                    "--claim: {e} (on the command line or in the configuration's [claims])"
                )),
                e => Error::input(format!("--claim: {e}")),
            })?;
    }
    sweep::defined_claims(&base).map_err(|e| Error::input(format!("[claims]: {e}")))?;
    let given = if opts.template.is_empty() {
        vec![base.template.clone()]
    } else {
        opts.template.clone()
    };
    // Each template once, in the order first given.
    let names: Vec<String> = given
        .iter()
        .enumerate()
        .filter(|(i, n)| !given[..*i].contains(n))
        .map(|(_, n)| n.clone())
        .collect();
    let mut templates = Vec::with_capacity(names.len());
    for n in names {
        let p = super::run::template(&n)?;
        templates.push((n, Arc::new(p)));
    }
    let grid = Grid {
        wavelets: opts.wavelets.clone(),
        levels: opts.levels.clone(),
        modes: opts.modes.clone(),
    };
    if let Some(note) = grid.repeats(&[("--template", &given)]) {
        eprintln!("wavebench: note: {note}");
    }
    if opts.report.write_config.is_some() {
        // The rows a sweep can rank, known before it runs.
        let rows = grid.points(base.seq_len.unwrap_or(0))?.0.len() * templates.len();
        if opts.report.pick > rows {
            return Err(Error::input(format!(
                "--pick {}: the grid has {rows} row{} to rank; pick 1 to {rows}",
                opts.report.pick,
                if rows == 1 { "" } else { "s" }
            )));
        }
    }
    let req = Request {
        base: base.clone(),
        grid,
        templates,
        split: opts.units.split,
        protocol: opts.units.protocol(),
    };
    let tables = load(path, &req.base)?;
    let named: Vec<(&str, &wavebench_core::data::Table)> =
        tables.iter().map(|(n, t)| (n.as_str(), t)).collect();
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
    let sweep::Share {
        sweep: s,
        at,
        configurations,
    } = result?;
    let input = path.display().to_string();
    match written {
        Written::Report(format) => {
            super::sweep_report::write_report(&s, &input, output, format, &opts.report, data.quiet)
        }
        Written::Part(shard) => {
            let part = Partial {
                shard,
                version: partial::version(),
                input,
                data: partial::data_fingerprint(&named),
                settings: partial::settings(&req),
                configurations,
                at,
                sweep: s,
            };
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

/// The data options and the units' options as a run configuration (`extra`: what the
/// prompts say), with the window length a sweep needs.
fn base_config(
    data: &DataOpts,
    units: &UnitOpts,
    extra: PromptOpts,
) -> Result<wavebench_core::config::Config> {
    units.protocol().check()?;
    let mut base = data.config()?;
    PromptOpts {
        pred_len: units.pred_len,
        ..extra
    }
    .apply(&mut base)?;
    if base.seq_len.is_none() {
        return Err(Error::input(
            "--seq-len: a sweep scores windows of a given length (Time-LLM uses 512)",
        ));
    }
    Ok(base)
}

/// Every file of the data set at `path`, each with its name in the set, loaded as `base`
/// says (columns, missing values, time axis) in f64; its warnings printed.
fn load(path: &Path, base: &wavebench_core::config::Config) -> Result<Vec<(String, Table)>> {
    let loader = RunSpec::new(
        wavebench_core::config::Config {
            dtype: wavebench_core::engine::DType::F64,
            ..base.clone()
        },
        Purpose::Features,
        &crate::backend::LOCAL,
    )?;
    let set = DataSet::resolve(path)?;
    let mut tables = Vec::with_capacity(set.files.len());
    for f in &set.files {
        let t = loader.load(f)?;
        for w in &t.warnings {
            eprintln!("wavebench: {w}");
        }
        tables.push((set.file_name(path, f), t));
    }
    Ok(tables)
}

/// `sweep prepare`: what every configuration of a sweep over `path` shares, into `dir`.
pub fn prepare(path: &Path, dir: &Path, data: &DataOpts, units: &UnitOpts) -> Result<()> {
    let base = base_config(data, units, PromptOpts::default())?;
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

impl UnitOpts {
    /// The null's draws, the bootstrap's replicates and the forecasters' fit.
    fn protocol(&self) -> Protocol {
        Protocol {
            null_draws: self.null_draws,
            bootstrap: self.bootstrap,
            fit_subset_above: self.fit_subset_above,
        }
    }
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

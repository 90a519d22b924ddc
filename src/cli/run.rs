//! What `features`, `prompts` and `bench` share: options → config → table, windows and a
//! plan checked for features (docs/transform.md#levels), and the progress bar.

use super::Common;
use crate::data::DataSet;
use crate::error::{Error, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wavebench_core::config::Config;
use wavebench_core::data::Table;
use wavebench_core::features::Aggregate;
use wavebench_core::features::Unit;
use wavebench_core::names::ReportFormat;
use wavebench_core::pipeline::NoSlide;
use wavebench_core::pipeline::PathChoice;
use wavebench_core::prompt::{Prompter, TemplateSource};
use wavebench_core::run_spec::{Prepared, Purpose, RunSpec, Shard};
use wavebench_core::timing::Timer;

/// What a run under `--shard` knows before it starts: each file's windows in this shard,
/// and a single file's table and windows, kept from counting them.
struct ShardParts {
    windows: Option<Vec<Range<usize>>>,
    kept: Option<(Table, Prepared)>,
}

/// Options of the prompt-making commands; each overrides `--config`.
#[derive(Args, Debug, Default, Clone)]
pub struct PromptOpts {
    /// Built-in template (timellm, dwt-minimal, dwt-balanced, dwt-detailed) or a file
    #[arg(long)]
    pub template: Option<String>,
    /// Dataset description, or @FILE to read it from a file
    #[arg(long)]
    pub description: Option<String>,
    /// Forecast horizon the prompt announces
    #[arg(long)]
    pub pred_len: Option<usize>,
    /// What one prompt describes
    #[arg(long, value_enum)]
    pub aggregate: Option<Aggregate>,
    /// Windows per prompt with --aggregate batch
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Synchronise the device at stage boundaries (exact stage times on CUDA)
    #[arg(long)]
    pub precise_timing: bool,
    /// How band summaries are computed: auto slides overlapping windows where nothing
    /// written changes (bench), sliding also for `prompts` (same prompts; the feature
    /// values beside them may differ in their last digits)
    #[arg(long, value_enum)]
    pub path: Option<PathChoice>,
    /// Compute only part I of N of the run's windows (1-based); the N outputs concatenated
    /// in order equal the whole run's
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Which top lags prompts print: Time-LLM's (lag 0 and the mirror lags T-k
    /// included), clean (lags 1..=T/2, each period once) or peaks (the autocorrelation's
    /// local maxima among 1..T/2, the periods the window repeats at); records carry the
    /// printed ones and the clean ones
    #[arg(long, value_enum)]
    pub lags: Option<wavebench_core::stats::LagRule>,
    /// Describe constant windows as the seed did (band claims and lags) instead of
    /// "constant input", to reproduce old runs byte for byte
    #[arg(long)]
    pub seed_compatible: bool,
}

impl PromptOpts {
    pub fn apply(&self, c: &mut Config) -> Result<()> {
        if let Some(t) = &self.template {
            c.template = TemplateSource::from(t.as_str());
        }
        if let Some(d) = &self.description {
            c.description = wavebench_sweep::options::read_description(d)?;
        }
        if let Some(p) = self.pred_len {
            c.pred_len = p;
        }
        if let Some(a) = self.aggregate {
            c.aggregate = a;
        }
        if let Some(p) = self.path {
            c.path = p;
        }
        if let Some(b) = self.batch_size {
            c.batch_size = b;
        }
        c.precise_timing |= self.precise_timing;
        c.seed_compatible |= self.seed_compatible;
        if let Some(l) = self.lags {
            c.lags = l;
        }
        Ok(())
    }
}

/// A checked run over the input (one file or a data set), this shard's part of it.
pub struct Run {
    pub spec: RunSpec,
    pub input: PathBuf,
    pub set: DataSet,
    pub shard: Option<Shard>,
    pub quiet: bool,
    /// Warnings already printed, without their file: a data set of a thousand files
    /// with the same quirk says it once.
    said: std::cell::RefCell<std::collections::HashSet<String>>,
    /// Files skipped as bad (`--skip-bad-files`): when it is every file, the run has
    /// nothing to write and fails rather than write an empty output.
    skipped: std::cell::Cell<usize>,
}

/// One file's share of the run's units (prompts are rendered per file: its window length).
pub struct FileUnits {
    pub seq_len: usize,
    pub units: Vec<Unit>,
}

impl Run {
    pub fn prepare(path: &Path, common: &Common, opts: &PromptOpts) -> Result<Self> {
        let mut cfg = common.config()?;
        opts.apply(&mut cfg)?;
        let spec = RunSpec::new(cfg, Purpose::Features, &crate::backend::LOCAL)?;
        let set = DataSet::resolve(path)?;
        Ok(Run {
            spec,
            input: path.to_path_buf(),
            set,
            shard: opts.shard,
            quiet: common.data.quiet,
            said: Default::default(),
            skipped: Default::default(),
        })
    }

    pub fn cfg(&self) -> &Config {
        &self.spec.cfg
    }

    /// The one file of a single-file run; commands that take one file say so for a set.
    pub fn single_file(&self, command: &str) -> Result<&Path> {
        match self.set.files.as_slice() {
            [one] if !self.set.is_set => Ok(one),
            _ => Err(Error::input(format!(
                "{}: {command} takes one file, not a data set",
                self.input.display()
            ))),
        }
    }

    /// Load and prepare one file; a bad file stops the run, or with `--skip-bad-files`
    /// is reported and skipped (None).
    fn open(&self, file: &Path) -> Result<Option<(Table, Prepared)>> {
        let opened = self
            .spec
            .load(file)
            .and_then(|t| self.spec.prepare(&t).map(|p| (t, p)));
        match opened {
            Ok((t, p)) => {
                let prefix = format!("{}: ", file.display());
                for w in t.warnings.iter().chain(&p.warning) {
                    let what = w.strip_prefix(&prefix).unwrap_or(w).to_string();
                    if self.said.borrow_mut().insert(what) {
                        eprintln!("wavebench: {w}");
                    }
                }
                Ok(Some((t, p)))
            }
            Err(e) if self.spec.cfg.skip_bad_files && self.set.is_set => {
                // Every skip names its file, also where the error does not (an option's).
                let message = super::message(&e.into());
                let name = file.display().to_string();
                let named = if message.starts_with(&name) {
                    message
                } else {
                    format!("{name}: {message}")
                };
                eprintln!("wavebench: skipping a bad file: {named}");
                self.skipped.set(self.skipped.get() + 1);
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Each file's windows under `--shard` (None without one): a shard needs every
    /// file's window count first, to cut the whole run evenly. A single file's table and
    /// windows are kept from that pass rather than loaded twice.
    fn shard_parts(&self) -> Result<ShardParts> {
        let Some(shard) = self.shard else {
            return Ok(ShardParts {
                windows: None,
                kept: None,
            });
        };
        let files = &self.set.files;
        let mut kept: Option<(Table, Prepared)> = None;
        let mut counts = Vec::with_capacity(files.len());
        for f in files {
            let opened = self.open(f)?;
            counts.push(opened.as_ref().map_or(0, |(_, p)| p.windows.count));
            if files.len() == 1 {
                kept = opened;
            }
        }
        let group = match self.spec.cfg.aggregate {
            Aggregate::Batch => self.spec.cfg.batch_size,
            _ => 1,
        };
        Ok(ShardParts {
            windows: Some(shard.parts(&counts, group)),
            kept,
        })
    }

    /// The pipeline's units over every file (this shard's windows of each), handed to
    /// `each` a chunk of about `CHUNK_UNITS` at a time, in order, so a run over any file
    /// holds one chunk; with a progress bar and the engine's notice on stderr, each said
    /// once. `slide` says whether the run may take the sliding path (`Shape::slide`).
    pub fn each_chunk(
        &self,
        what: &str,
        slide: Result<wavebench_core::features::Reads, NoSlide>,
        mut each: impl FnMut(FileUnits, &mut Timer) -> Result<()>,
    ) -> Result<()> {
        let files = &self.set.files;
        let ShardParts {
            windows: parts,
            mut kept,
        } = self.shard_parts()?;
        let mut engine = self.spec.engine();
        notice(&engine.notice, self.quiet);
        let said = engine.notice.clone();
        let mut timer = Timer::new(self.spec.cfg.precise_timing);
        let mut constant = ConstantUnits::default();
        for (k, file) in files.iter().enumerate() {
            if parts.as_ref().is_some_and(|p| p[k].is_empty()) {
                continue;
            }
            let opened = match kept.take() {
                Some(t) => Some(t),
                None => self.open(file)?,
            };
            let Some((table, prepared)) = opened else {
                continue;
            };
            let prepared = match &parts {
                Some(p) => prepared.part(p[k].clone()),
                None => prepared,
            }
            .sliding(slide.clone());
            let label = if files.len() > 1 {
                format!("{what} (file {} of {})", k + 1, files.len())
            } else {
                what.to_string()
            };
            let name: Option<Arc<str>> = self
                .set
                .is_set
                .then(|| self.set.file_name(&self.input, file).into());
            let count = prepared.windows.count;
            let bar = progress(count, self.quiet, &label);
            let step = prepared.chunk_windows(table.channels.len());
            for first in (0..count).step_by(step) {
                let chunk = prepared.part(first..(first + step).min(count));
                let mut units = chunk.features(&table, &mut engine, &mut timer, |done| {
                    bar.set_position((first + done) as u64);
                    true
                })?;
                if let Some(name) = &name {
                    for u in &mut units {
                        u.file = Some(name.clone());
                    }
                }
                constant.count(&units);
                each(
                    FileUnits {
                        seq_len: prepared.windows.seq_len,
                        units,
                    },
                    &mut timer,
                )?;
            }
            bar.finish_and_clear();
        }
        if self.skipped.get() >= files.len() {
            return Err(Error::input(format!(
                "{}: every file was skipped as bad (--skip-bad-files), so there is nothing to write",
                self.input.display()
            )));
        }
        if engine.notice != said {
            notice(&engine.notice, self.quiet);
        }
        if let Some(w) = constant.warning() {
            eprintln!("wavebench: {w}");
        }
        Ok(())
    }

    pub fn prompter(&self) -> Result<Prompter> {
        template(&self.spec.cfg.template)
    }
}

pub use wavebench_sweep::options::template;

/// The run's constant units, counted chunk by chunk, for its one line about them.
#[derive(Default)]
struct ConstantUnits {
    total: usize,
    /// A count per column (a data set may have thousands).
    by_column: std::collections::HashMap<String, usize>,
}

impl ConstantUnits {
    fn count(&mut self, units: &[Unit]) {
        use wavebench_core::features::Degenerate;
        self.total += units.len();
        for u in units
            .iter()
            .filter(|u| u.features.degenerate == Some(Degenerate::Constant))
        {
            let column = u.column.as_deref().unwrap_or("all channels");
            match self.by_column.get_mut(column) {
                Some(n) => *n += 1,
                None => {
                    self.by_column.insert(column.to_string(), 1);
                }
            }
        }
    }

    /// How many, in which columns (the most first, then by name), and what their prompts
    /// say.
    fn warning(&self) -> Option<String> {
        let constant: usize = self.by_column.values().sum();
        if constant == 0 {
            return None;
        }
        let mut by_column: Vec<(&str, usize)> = self
            .by_column
            .iter()
            .map(|(c, &n)| (c.as_str(), n))
            .collect();
        by_column.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c));
        const SHOWN: usize = 5;
        let mut columns: Vec<String> = by_column
            .iter()
            .take(SHOWN)
            .map(|(c, n)| format!("'{c}' {n}"))
            .collect();
        if by_column.len() > SHOWN {
            columns.push(format!("{} more columns", by_column.len() - SHOWN));
        }
        Some(format!(
            "warning: {constant} of {} prompts describe a constant window ({}): they say \"constant input\" instead of band claims and lags, and their records are flagged degenerate: \"constant\" (--seed-compatible describes them as the seed did)",
            self.total,
            columns.join(", ")
        ))
    }
}

/// A report's format from `-o`: Markdown on stdout (no `-o`, `-`, or a stream), else the
/// file's extension, `json`, `csv` or `md`; `what` names the report in the error.
pub fn report_format(output: Option<&Path>, what: &str) -> Result<ReportFormat> {
    let stdout = output.is_none_or(|p| p == Path::new("-") || crate::export::is_stream(p));
    match output.and_then(|p| p.extension()).and_then(|e| e.to_str()) {
        _ if stdout => Ok(ReportFormat::Markdown),
        Some("json") => Ok(ReportFormat::Json),
        Some("csv") => Ok(ReportFormat::Csv),
        Some("md") => Ok(ReportFormat::Markdown),
        _ => Err(Error::input(format!(
            "-o {}: expected a .json, .csv or .md {what}",
            output.map_or(String::new(), |p| p.display().to_string())
        ))),
    }
}

/// A progress bar over windows on stderr, hidden with `--quiet` (and off a terminal).
pub fn progress(total: usize, quiet: bool, what: &str) -> ProgressBar {
    progress_of(total, quiet, what, "windows")
}

/// A progress bar counting `unit` (windows, runs, series).
pub fn progress_of(total: usize, quiet: bool, what: &str, unit: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit} ({{eta}})"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// A spinner on stderr for work of unknown length (writing a large file), hidden with
/// `--quiet` (and off a terminal).
pub fn spinner(quiet: bool, what: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_message(what.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// Print an engine notice (fallback to the CPU) unless quiet.
pub fn notice(n: &Option<String>, quiet: bool) {
    if let (Some(n), false) = (n, quiet) {
        eprintln!("wavebench: {n}");
    }
}

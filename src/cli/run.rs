//! What `features`, `prompts` and `bench` share: options → config → table, windows and a
//! plan checked for features (SPEC §10), and the progress bar.

use super::{Common, Failure};
use crate::config::Config;
use crate::data::{Normalize, Table, Windows};
use crate::engine;
use crate::engine::Plan;
use crate::pipeline::{self, Shape, Unit};
use crate::prompt::Prompter;
use crate::timing::Timer;
use crate::wavelet;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;

/// Options of the prompt-making commands; each overrides `--config`.
#[derive(Args, Debug, Default, Clone)]
pub struct PromptOpts {
    /// Built-in template (timellm, dwt-minimal, dwt-balanced, dwt-detailed) or a file.
    #[arg(long)]
    pub template: Option<String>,
    /// Dataset description, or @FILE to read it from a file.
    #[arg(long)]
    pub description: Option<String>,
    #[arg(long)]
    pub pred_len: Option<usize>,
    /// series | sample | batch
    #[arg(long)]
    pub aggregate: Option<String>,
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Synchronise the device at stage boundaries (exact stage times on CUDA).
    #[arg(long)]
    pub precise_timing: bool,
}

impl PromptOpts {
    pub fn apply(&self, c: &mut Config) -> Result<(), Failure> {
        if let Some(t) = &self.template {
            c.template = t.clone();
        }
        if let Some(d) = &self.description {
            c.description = match d.strip_prefix('@') {
                Some(file) => std::fs::read_to_string(file)
                    .map_err(|e| {
                        Failure::Input(format!("--description @{file}: cannot read: {e}"))
                    })?
                    .trim_end()
                    .to_string(),
                None => d.clone(),
            };
        }
        if let Some(p) = self.pred_len {
            c.pred_len = p;
        }
        if let Some(a) = &self.aggregate {
            c.aggregate = a
                .parse()
                .map_err(|e: String| Failure::Input(format!("--aggregate: {e}")))?;
        }
        if let Some(b) = self.batch_size {
            c.batch_size = b;
        }
        c.precise_timing |= self.precise_timing;
        if c.batch_size == 0 {
            return Err(Failure::Input("--batch-size must be at least 1".into()));
        }
        Ok(())
    }
}

/// A loaded, checked run.
pub struct Run {
    pub cfg: Config,
    pub table: Table,
    pub windows: Windows,
    pub plan: Plan,
}

impl Run {
    pub fn prepare(path: &Path, common: &Common, opts: &PromptOpts) -> Result<Self, Failure> {
        let mut cfg = common.config()?;
        opts.apply(&mut cfg)?;
        let table = cfg.load_table(path)?;
        let windows = cfg.windows(table.rows(), None)?;
        let w =
            wavelet::lookup(&cfg.wavelet).map_err(|e| Failure::Input(format!("--wavelet: {e}")))?;
        let plan = Plan::new(w, cfg.mode, cfg.level, windows.seq_len)
            .map_err(|e| Failure::Input(format!("{}: {e}", path.display())))?;
        pipeline::check_level(&plan).map_err(|e| Failure::Input(format!("--level: {e}")))?;
        Ok(Run {
            cfg,
            table,
            windows,
            plan,
        })
    }

    pub fn shape(&self) -> Shape<'_> {
        Shape {
            table: &self.table,
            windows: self.windows,
            plan: &self.plan,
            normalize: self.cfg.normalize.unwrap_or(Normalize::Revin),
            dtype: self.cfg.dtype,
            aggregate: self.cfg.aggregate,
            batch_size: self.cfg.batch_size,
        }
    }

    /// The pipeline's units on the configured engine, with a progress bar and any
    /// fallback notice on stderr.
    pub fn units(&self, quiet: bool, what: &str) -> Result<(Vec<Unit>, Timer), Failure> {
        let sel = engine::select(self.cfg.engine);
        let (mut eng, mut note) = (sel.engine, sel.notice);
        notice(&note, quiet);
        let bar = progress(self.windows.count, quiet, what);
        let mut timer = Timer::new(self.cfg.precise_timing);
        let units = pipeline::features(&mut eng, &mut note, &self.shape(), &mut timer, |done| {
            bar.set_position(done as u64);
            true
        })?;
        bar.finish_and_clear();
        notice(&note, quiet);
        Ok((units, timer))
    }

    pub fn prompter(&self) -> Result<Prompter, Failure> {
        Prompter::from_name_or_file(&self.cfg.template).map_err(Failure::Input)
    }
}

/// A progress bar over windows on stderr, hidden with `--quiet` (and off a terminal).
pub fn progress(total: usize, quiet: bool, what: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} windows ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Print an engine notice (fallback to the CPU) unless quiet.
pub fn notice(n: &Option<String>, quiet: bool) {
    if let (Some(n), false) = (n, quiet) {
        eprintln!("wavebench: {n}");
    }
}

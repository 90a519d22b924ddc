//! Data-set-wide work (sweep, the variants' timing, exports): one job at a time, on its
//! own thread, with progress and cancel; the shell polls its answer (`replies.rs`).

use super::error::in_template;
use super::messages::{JobKind, JobOutput, RunningJob, OTHER_WORK};
use super::state::Settings;
use super::Workbench;
use crate::backend::LOCAL;
use crate::error::{Error, Result};
use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use wavebench_core::config::Config;
use wavebench_core::data::Table;
use wavebench_core::engine::DType;
use wavebench_core::prompt::Prompter;
use wavebench_core::run_spec::{Purpose, RunSpec};

impl Workbench {
    /// Start a data-set-wide job (one at a time).
    pub(super) fn start(
        &mut self,
        what: &str,
        kind: impl FnOnce(Arc<Table>, Box<Settings>) -> JobKind,
    ) {
        let Some(table) = self.file.table.clone() else {
            self.status.say(format!("{what}: open a data file first"));
            return;
        };
        if self.job.is_some() {
            self.status
                .say(format!("{what}: wait for the running job to finish"));
            return;
        }
        self.status.say(format!("{what} ..."));
        self.job = Some(
            self.worker
                .start(what, kind(table, Box::new(self.settings.clone()))),
        );
    }

    /// Score every wavelet × level over the data set in the background.
    pub fn start_sweep(&mut self) {
        let split = self.settings.split;
        self.start("sweep", |table, settings| JobKind::Sweep {
            table,
            settings,
            split,
        });
    }

    /// Measure the switched-on variants beside the baseline in the background.
    pub fn measure_variants(&mut self) {
        if self.job.is_some() {
            return;
        }
        let chosen = self.views.timing.chosen();
        self.start("variant timing", |table, settings| JobKind::Variants {
            table,
            settings,
            chosen,
            report: None,
        });
    }

    pub fn cancel_job(&mut self) {
        if let Some(j) = &self.job {
            j.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    pub fn job_running(&self) -> bool {
        self.job.is_some()
    }
}

pub(super) fn run_job(kind: JobKind, job: &RunningJob, wake: &dyn Fn()) -> Result<JobOutput> {
    let tick = |done: usize, total: usize| {
        job.progress.set(done, total);
        wake();
        !job.cancel.load(Ordering::Relaxed)
    };
    match kind {
        JobKind::Write { path, bytes } => {
            crate::export::write_atomic(&path, |w| w.write_all(&bytes))?;
            Ok(JobOutput::Written { path })
        }
        JobKind::Sweep {
            table,
            settings,
            split,
        } => sweep(&table, &settings, split, tick),
        JobKind::ExportPrompts {
            table,
            settings,
            path,
        } => export_prompts(&table, &settings, path, job, tick),
        JobKind::ExportFeatures {
            table,
            settings,
            path,
        } => {
            let format = crate::export::FeatureFormat::for_path(&path)?;
            let units = all_units(&table, &settings, job, tick)?;
            crate::export::write_features(&path, format, &units, true)?;
            Ok(JobOutput::Exported {
                path,
                units: units.len(),
                warning: None,
            })
        }
        JobKind::Variants {
            table,
            settings,
            chosen,
            report,
        } => variants(&table, &settings, &chosen, report, job, tick),
    }
}

/// The sweep of the app's settings (its wavelet's and mode's grid, its template) over
/// the loaded table.
fn sweep(
    table: &Table,
    settings: &Settings,
    split: wavebench_core::score::Split,
    tick: impl FnMut(usize, usize) -> bool,
) -> Result<JobOutput> {
    let prompter = Prompter::new(&settings.template_text).map_err(in_template)?;
    let req = crate::sweep::Request {
        base: Config {
            seq_len: Some(settings.seq_len()),
            ..settings.run.clone()
        },
        grid: crate::sweep::Grid {
            modes: vec![settings.run.transform.mode],
            ..Default::default()
        },
        templates: vec![(settings.template_label(), Arc::new(prompter))],
        split,
        protocol: Default::default(),
    };
    let name = table.path.display().to_string();
    crate::sweep::run(&[(name.as_str(), table)], &req, tick).map(|s| JobOutput::Sweep(Box::new(s)))
}

/// Every window's prompts to `path`, with a warning where they describe no data set.
fn export_prompts(
    table: &Table,
    settings: &Settings,
    path: std::path::PathBuf,
    job: &RunningJob,
    tick: impl FnMut(usize, usize) -> bool,
) -> Result<JobOutput> {
    let prompter = Prompter::new(&settings.template_text).map_err(in_template)?;
    let units = all_units(table, settings, job, tick)?;
    let prompts = prompter
        .render_all(
            &units,
            &settings.run.description,
            settings.seq_len(),
            settings.run.pred_len,
        )
        .map_err(in_template)?;
    crate::export::write_prompts(&path, &units, &prompts)?;
    let undescribed = settings.run.description.is_empty()
        && prompter.variables().iter().any(|v| v == "description");
    Ok(JobOutput::Exported {
        path,
        units: units.len(),
        warning: undescribed.then(|| {
            "the dataset description is empty, so every prompt says \"Dataset description: \" and nothing after it (type one under Prompt)".to_string()
        }),
    })
}

/// The seed's proposals beside the baseline over the whole data set; with `report`, the
/// timing report of that measurement written there.
fn variants(
    table: &Table,
    settings: &Settings,
    chosen: &[crate::variants::Variant],
    report: Option<std::path::PathBuf>,
    job: &RunningJob,
    tick: impl FnMut(usize, usize) -> bool,
) -> Result<JobOutput> {
    let table = export_table(table, settings);
    let spec = RunSpec::new(export_config(settings), Purpose::Features, &LOCAL)?;
    let prompter = Prompter::new(&settings.template_text).map_err(in_template)?;
    let work = crate::variants::Workload {
        // Prompts are compared and dropped, as `bench` does: the run may slide.
        prepared: spec.prepare(&table)?.sliding(spec.slide(&prompter, false)),
        table: &table,
        prompter: &prompter,
        description: &settings.run.description,
        pred_len: settings.run.pred_len,
    };
    let mut engine = spec.engine();
    // A report is read as a measurement: five timed runs each, their median; the
    // Timing pane's live comparison times each once.
    let repeats = if report.is_some() { REPORT_REPEATS } else { 1 };
    let before = OTHER_WORK.load(Ordering::Relaxed);
    let rows = crate::variants::measure(
        &mut engine,
        &work,
        spec.cfg.transform.wavelet,
        spec.cfg.transform.mode,
        chosen,
        repeats,
        tick,
    )
    .map_err(|e| e.within(&job.what))?;
    let others = OTHER_WORK.load(Ordering::Relaxed) - before;
    if let Some(path) = &report {
        let series = work.prepared.windows.count * table.channels.len();
        let mut doc = crate::variants::report(
            &spec.cfg,
            &engine,
            series,
            work.prepared.windows.seq_len,
            &rows,
        );
        doc.meanwhile = (others > 0).then(|| {
            format!(
                "the app took up {others} other request{} (a window's inspection, a load, the Data set pane's survey) while it measured: these times may be slower than the run alone",
                if others == 1 { "" } else { "s" }
            )
        });
        let format: wavebench_core::names::ReportFormat = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("json")
            .parse()?;
        let text = doc.render(format)?;
        crate::export::write_atomic(path, |w| w.write_all(text.as_bytes()))?;
    }
    Ok(JobOutput::Variants {
        label: settings.whole_run_label(),
        rows,
        report,
    })
}

/// Timed runs per variant in an exported timing report.
const REPORT_REPEATS: usize = 5;

/// The table an export reads: the chosen columns only.
fn export_table<'a>(table: &'a Table, settings: &Settings) -> Cow<'a, Table> {
    match &settings.run.columns {
        None => Cow::Borrowed(table),
        Some(wanted) => Cow::Owned(Table {
            channels: table
                .channels
                .iter()
                .filter(|c| wanted.contains(&c.name))
                .cloned()
                .collect(),
            ..table.clone()
        }),
    }
}

/// The run an export makes: every window of the current length at the run's stride.
fn export_config(settings: &Settings) -> Config {
    settings.config()
}

/// Every prompt unit of the data set under `settings` (all windows at its stride, the
/// chosen columns).
fn all_units(
    table: &Table,
    settings: &Settings,
    job: &RunningJob,
    mut tick: impl FnMut(usize, usize) -> bool,
) -> Result<Vec<wavebench_core::features::Unit>> {
    let cfg = export_config(settings);
    let spec = RunSpec::new(cfg, Purpose::Features, &LOCAL)?;
    // The app's table holds f64 (the precision is a live knob), while the CLI parses an
    // f32 run's text straight to f32: a value narrowed from f64 can differ from it in its
    // last bit (a printed range then reads 1.65 against 1.64). An f32 export reads the
    // file as the CLI does, so the same settings give the CLI's bytes.
    let table = match spec.cfg.dtype {
        DType::F32 => Cow::Owned(spec.load(&table.path)?),
        DType::F64 => export_table(table, settings),
    };
    let prepared = spec.prepare(&table)?;
    let count = prepared.windows.count;
    prepared
        .features(
            &table,
            &mut spec.engine(),
            &mut wavebench_core::timing::Timer::default(),
            |done| tick(done, count),
        )
        .map_err(|e| job_error(job, e))
}

fn job_error(job: &RunningJob, e: wavebench_core::engine::EngineError) -> Error {
    match e {
        wavebench_core::engine::EngineError::Cancelled => Error::Cancelled,
        other => Error::from(other).within(&job.what),
    }
}

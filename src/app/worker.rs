//! The background worker: owns the data and the engines; the UI sends requests tagged with
//! a generation number and drops replies older than its latest request.

use super::state::Settings;
use crate::backend::LOCAL;
use crate::error::{Error, Result};
use crate::variants::Variant;
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use wavebench_core::config::Config;
use wavebench_core::data::Table;
use wavebench_core::engine::{DType, EngineKind, Selected};
use wavebench_core::pipeline::Inspection;
use wavebench_core::prompt::Prompter;
use wavebench_core::run_spec::{self, Backend, Inspect, LoadOptions, Purpose, RunSpec};

pub enum Request {
    Load {
        gen: u64,
        path: PathBuf,
        options: LoadOptions,
    },
    /// Inspect a window; `slot` 0 is the main view, 1 the compared configuration.
    Inspect {
        gen: u64,
        slot: usize,
        settings: Box<Settings>,
        table: Arc<Table>,
    },
}

/// Data-set-wide work, run on its own thread so the window stays interactive.
pub enum JobKind {
    /// Write a file (an export the UI already rendered).
    Write { path: PathBuf, bytes: Vec<u8> },
    Sweep {
        table: Arc<Table>,
        settings: Box<Settings>,
        split: wavebench_core::score::Split,
    },
    ExportPrompts {
        table: Arc<Table>,
        settings: Box<Settings>,
        path: PathBuf,
    },
    ExportFeatures {
        table: Arc<Table>,
        settings: Box<Settings>,
        path: PathBuf,
    },
    /// The seed's proposals beside the baseline, over the whole data set; with
    /// `report`, the timing report of that measurement is written there too (File ▸
    /// Export timing).
    Variants {
        table: Arc<Table>,
        settings: Box<Settings>,
        chosen: Vec<Variant>,
        report: Option<PathBuf>,
    },
}

pub enum JobOutput {
    Sweep(Box<crate::sweep::Sweep>),
    /// The proposals' rows, and the settings they were measured with, in words.
    Variants {
        label: String,
        rows: Vec<crate::variants::Measured>,
        /// Where the timing report was written, when one was asked for.
        report: Option<PathBuf>,
    },
    Exported {
        path: PathBuf,
        units: usize,
    },
    Written {
        path: PathBuf,
    },
}

/// A running job as the UI sees it: progress, and a flag that cancels it.
#[derive(Clone)]
pub struct Job {
    pub what: String,
    pub done: Arc<AtomicUsize>,
    pub total: Arc<AtomicUsize>,
    pub cancel: Arc<AtomicBool>,
}

impl Job {
    pub fn fraction(&self) -> f32 {
        let total = self.total.load(Ordering::Relaxed).max(1);
        self.done.load(Ordering::Relaxed) as f32 / total as f32
    }
}

pub enum Reply {
    JobDone {
        what: String,
        result: Result<JobOutput>,
    },
    Loaded {
        gen: u64,
        path: PathBuf,
        table: Arc<Table>,
    },
    Inspected {
        gen: u64,
        slot: usize,
        result: Result<Box<Inspection>>,
        notice: Option<String>,
    },
    Failed {
        gen: u64,
        error: Error,
    },
    /// The Data set pane's survey of the current configuration.
    Surveyed {
        gen: u64,
        result: Result<Box<crate::sweep::survey::Survey>>,
    },
}

pub struct Worker {
    tx: Sender<Request>,
    /// The survey thread's requests (its own thread: a survey of a large data set must
    /// not hold back the window the knobs show).
    surveys: Sender<super::survey::SurveyRequest>,
    rx: Receiver<Reply>,
    replies: Sender<Reply>,
    wake: Arc<dyn Fn() + Send + Sync>,
}

impl Worker {
    /// Start the worker; `wake` is called after every reply (the UI repaints).
    pub fn spawn(wake: impl Fn() + Send + Sync + 'static) -> Self {
        let (tx, requests) = channel::<Request>();
        let (replies, rx) = channel::<Reply>();
        let wake: Arc<dyn Fn() + Send + Sync> = Arc::new(wake);
        let (to_ui, w) = (replies.clone(), wake.clone());
        std::thread::Builder::new()
            .name("wavebench-worker".into())
            .spawn(move || serve(requests, to_ui, move || w()))
            .map(|_| ())
            .unwrap_or_else(|e| eprintln!("wavebench: cannot start the worker thread: {e}"));
        let (surveys, survey_rx) = channel::<super::survey::SurveyRequest>();
        let (to_ui, w) = (replies.clone(), wake.clone());
        std::thread::Builder::new()
            .name("wavebench-survey".into())
            .spawn(move || super::survey::serve(survey_rx, to_ui, move || w()))
            .map(|_| ())
            .unwrap_or_else(|e| eprintln!("wavebench: cannot start the survey thread: {e}"));
        Worker {
            tx,
            surveys,
            rx,
            replies,
            wake,
        }
    }

    /// Start a data-set-wide job on its own thread.
    pub fn start(&self, what: &str, kind: JobKind) -> Job {
        let job = Job {
            what: what.to_string(),
            done: Arc::default(),
            total: Arc::new(AtomicUsize::new(1)),
            cancel: Arc::default(),
        };
        let (j, replies, wake) = (job.clone(), self.replies.clone(), self.wake.clone());
        let spawned = std::thread::Builder::new()
            .name("wavebench-job".into())
            .spawn(move || {
                let result = run_job(kind, &j, &*wake);
                let _ = replies.send(Reply::JobDone {
                    what: j.what.clone(),
                    result,
                });
                wake();
            });
        if let Err(e) = spawned {
            let _ = self.replies.send(Reply::JobDone {
                what: what.to_string(),
                result: Err(Error::internal(format!("cannot start a thread: {e}"))),
            });
        }
        job
    }

    pub fn send(&self, r: Request) {
        let _ = self.tx.send(r);
    }

    pub fn survey(&self, r: super::survey::SurveyRequest) {
        let _ = self.surveys.send(r);
    }

    pub fn try_recv(&self) -> Option<Reply> {
        self.rx.try_recv().ok()
    }
}

fn serve(requests: Receiver<Request>, replies: Sender<Reply>, wake: impl Fn()) {
    let mut engines: Vec<(EngineKind, Selected)> = Vec::new();
    while let Ok(mut req) = requests.recv() {
        // Only the newest inspection matters: skip the ones a knob already replaced.
        while let Ok(next) = requests.try_recv() {
            let same_slot = matches!((&req, &next), (Request::Inspect { slot: a, .. }, Request::Inspect { slot: b, .. }) if a == b);
            if same_slot {
                req = next;
            } else {
                handle(req, &mut engines, &replies);
                req = next;
            }
        }
        handle(req, &mut engines, &replies);
        wake();
    }
}

/// Requests the app's workers have taken up (loads, inspections, surveys): a timing job
/// compares it before and after to say whether other work ran while it measured.
pub(super) static OTHER_WORK: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

fn handle(req: Request, engines: &mut Vec<(EngineKind, Selected)>, replies: &Sender<Reply>) {
    OTHER_WORK.fetch_add(1, Ordering::Relaxed);
    let reply = match req {
        Request::Load { gen, path, options } => match run_spec::load(&LOCAL, &path, &options) {
            Ok(t) => Reply::Loaded {
                gen,
                path,
                table: Arc::new(t),
            },
            Err(e) => Reply::Failed {
                gen,
                error: e.into(),
            },
        },
        Request::Inspect {
            gen,
            slot,
            settings,
            table,
        } => {
            let kind = settings.run.engine;
            let idx = match engines.iter().position(|e| e.0 == kind) {
                Some(i) => i,
                None => {
                    engines.push((kind, LOCAL.engine(kind)));
                    engines.len() - 1
                }
            };
            let engine = &mut engines[idx].1;
            let (result, warning) = match inspect(&settings, &table, engine) {
                Ok((r, w)) => (Ok(r), w),
                Err(e) => (Err(e), None),
            };
            Reply::Inspected {
                gen,
                slot,
                result,
                // A degenerate level is said in the status line, before the engine's fallback.
                notice: warning.or_else(|| engine.notice.clone()),
            }
        }
    };
    let _ = replies.send(reply);
}

/// The configuration of what the view shows: one channel of one window, as the
/// pipeline computes that unit.
fn view_config(s: &Settings, table: &Table) -> Config {
    Config {
        seq_len: Some(s.shown_len(table.rows())),
        stride: 1,
        aggregate: wavebench_core::features::Aggregate::Series,
        batch_size: 1,
        ..s.run.clone()
    }
}

/// The unit the view shows, and the run's warning (a degenerate level) if it has one.
fn inspect(
    s: &Settings,
    table: &Table,
    engine: &mut Selected,
) -> Result<(Box<Inspection>, Option<String>)> {
    let channel = s.channel.min(table.channels.len().saturating_sub(1));
    let spec = RunSpec::new(view_config(s, table), Purpose::Features, &LOCAL)?;
    let prepared = spec.prepare(table)?;
    // A template that does not compile still gets its features computed and shown; the
    // error goes where the prompt would be.
    let (prompter, template_error) = match Prompter::new(&s.template_text) {
        Ok(p) => (p, None),
        Err(e) => (
            Prompter::new("").map_err(|e| Error::internal(e.to_string()))?,
            Some(e),
        ),
    };
    let unit = Inspect {
        channel,
        window: s.window.min(prepared.windows.count - 1),
        prompter: &prompter,
        description: &s.run.description,
        pred_len: s.run.pred_len,
    };
    let mut result = prepared.inspect(table, engine, unit)?;
    if let Some(e) = template_error {
        result.prompt = Err(e);
    }
    Ok((Box::new(result), prepared.warning.clone()))
}

fn run_job(kind: JobKind, job: &Job, wake: &dyn Fn()) -> Result<JobOutput> {
    let tick = |done: usize, total: usize| {
        job.total.store(total, Ordering::Relaxed);
        job.done.store(done, Ordering::Relaxed);
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
        } => {
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
            crate::sweep::run(&[(name.as_str(), &table)], &req, tick)
                .map(|s| JobOutput::Sweep(Box::new(s)))
        }
        JobKind::ExportPrompts {
            table,
            settings,
            path,
        } => {
            let prompter = Prompter::new(&settings.template_text).map_err(in_template)?;
            let units = all_units(&table, &settings, job, tick)?;
            let prompts = prompter
                .render_all(
                    &units,
                    &settings.run.description,
                    settings.seq_len(),
                    settings.run.pred_len,
                )
                .map_err(in_template)?;
            crate::export::write_prompts(&path, &units, &prompts)?;
            Ok(JobOutput::Exported {
                path,
                units: units.len(),
            })
        }
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
            })
        }
        JobKind::Variants {
            table,
            settings,
            chosen,
            report,
        } => {
            let table = export_table(&table, &settings);
            let spec = RunSpec::new(export_config(&settings), Purpose::Features, &LOCAL)?;
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
                &chosen,
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
                let format = path
                    .extension()
                    .and_then(|e| e.to_str())
                    .unwrap_or("json")
                    .to_ascii_lowercase();
                let text = doc.render(&format)?;
                crate::export::write_atomic(path, |w| w.write_all(text.as_bytes()))?;
            }
            Ok(JobOutput::Variants {
                label: settings.whole_run_label(),
                rows,
                report,
            })
        }
    }
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
    job: &Job,
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

fn job_error(job: &Job, e: wavebench_core::engine::EngineError) -> Error {
    match e {
        wavebench_core::engine::EngineError::Cancelled => Error::Cancelled,
        other => Error::from(other).within(&job.what),
    }
}

/// The template pane's text did not compile or render.
pub(super) fn in_template(source: wavebench_core::prompt::TemplateError) -> Error {
    Error::Template {
        place: "template".into(),
        source,
    }
}

//! The background worker: owns the data and the engines; the UI sends requests tagged with
//! a generation number and drops replies older than its latest request.

use super::messages::{JobKind, Reply, RunningJob, WorkRequest, OTHER_WORK};
use super::state::Settings;
use crate::backend::LOCAL;
use crate::error::{Error, Result};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use wavebench_core::config::Config;
use wavebench_core::data::Table;
use wavebench_core::engine::{EngineKind, Selected};
use wavebench_core::pipeline::Inspection;
use wavebench_core::prompt::Prompter;
use wavebench_core::run_spec::{self, Backend, Inspect, Purpose, RunSpec};

pub struct Worker {
    tx: Sender<WorkRequest>,
    /// The survey thread's requests (its own thread: a survey of a large data set must
    /// not hold back the window the knobs show).
    surveys: Sender<super::messages::SurveyRequest>,
    rx: Receiver<Reply>,
    replies: Sender<Reply>,
    wake: Arc<dyn Fn() + Send + Sync>,
}

impl Worker {
    /// Start the worker; `wake` is called after every reply (the UI repaints).
    pub fn spawn(wake: impl Fn() + Send + Sync + 'static) -> Self {
        let (tx, requests) = channel::<WorkRequest>();
        let (replies, rx) = channel::<Reply>();
        let wake: Arc<dyn Fn() + Send + Sync> = Arc::new(wake);
        let (to_ui, w) = (replies.clone(), wake.clone());
        std::thread::Builder::new()
            .name("wavebench-worker".into())
            .spawn(move || serve(requests, to_ui, move || w()))
            .map(|_| ())
            .unwrap_or_else(|e| eprintln!("wavebench: cannot start the worker thread: {e}"));
        let (surveys, survey_rx) = channel::<super::messages::SurveyRequest>();
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
    pub fn start(&self, what: &str, kind: JobKind) -> RunningJob {
        let job = RunningJob {
            what: what.to_string(),
            progress: Default::default(),
            cancel: Arc::default(),
        };
        let (j, replies, wake) = (job.clone(), self.replies.clone(), self.wake.clone());
        let spawned = std::thread::Builder::new()
            .name("wavebench-job".into())
            .spawn(move || {
                let result = super::jobs::run_job(kind, &j, &*wake);
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

    pub fn send(&self, r: WorkRequest) {
        let _ = self.tx.send(r);
    }

    pub fn survey(&self, r: super::messages::SurveyRequest) {
        let _ = self.surveys.send(r);
    }

    pub fn try_recv(&self) -> Option<Reply> {
        self.rx.try_recv().ok()
    }
}

fn serve(requests: Receiver<WorkRequest>, replies: Sender<Reply>, wake: impl Fn()) {
    let mut engines: Vec<(EngineKind, Selected)> = Vec::new();
    while let Ok(mut req) = requests.recv() {
        // Only the newest inspection matters: skip the ones a knob already replaced.
        while let Ok(next) = requests.try_recv() {
            let same_slot = matches!((&req, &next), (WorkRequest::Inspect { slot: a, .. }, WorkRequest::Inspect { slot: b, .. }) if a == b);
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

fn handle(req: WorkRequest, engines: &mut Vec<(EngineKind, Selected)>, replies: &Sender<Reply>) {
    OTHER_WORK.fetch_add(1, Ordering::Relaxed);
    let reply = match req {
        WorkRequest::Load { gen, path, options } => match run_spec::load(&LOCAL, &path, &options) {
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
        WorkRequest::Inspect {
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

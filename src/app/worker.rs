//! The background worker: owns the data and the engines; the UI sends requests tagged with
//! a generation number and drops replies older than its latest request.

use super::state::Settings;
use crate::data::{self, LoadOptions, Table, Windows};
use crate::engine::{self, Engine, EngineKind, Plan};
use crate::pipeline::{self, InspectRequest, Inspection, Shape};
use crate::prompt::Prompter;
use crate::wavelet;
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

pub enum Request {
    Load {
        gen: u64,
        path: PathBuf,
        missing: crate::data::Missing,
    },
    Inspect {
        gen: u64,
        settings: Box<Settings>,
        table: Arc<Table>,
    },
}

pub enum Reply {
    Loaded {
        gen: u64,
        path: PathBuf,
        table: Arc<Table>,
    },
    Inspected {
        gen: u64,
        result: Result<Box<Inspection>, String>,
        notice: Option<String>,
    },
    Failed {
        gen: u64,
        message: String,
    },
}

pub struct Worker {
    tx: Sender<Request>,
    rx: Receiver<Reply>,
}

impl Worker {
    /// Start the worker; `wake` is called after every reply (the UI repaints).
    pub fn spawn(wake: impl Fn() + Send + 'static) -> Self {
        let (tx, requests) = channel::<Request>();
        let (replies, rx) = channel::<Reply>();
        std::thread::Builder::new()
            .name("wavebench-worker".into())
            .spawn(move || serve(requests, replies, wake))
            .map(|_| ())
            .unwrap_or_else(|e| eprintln!("wavebench: cannot start the worker thread: {e}"));
        Worker { tx, rx }
    }

    pub fn send(&self, r: Request) {
        let _ = self.tx.send(r);
    }

    pub fn try_recv(&self) -> Option<Reply> {
        self.rx.try_recv().ok()
    }
}

fn serve(requests: Receiver<Request>, replies: Sender<Reply>, wake: impl Fn()) {
    let mut engines: Vec<(EngineKind, Box<dyn Engine>, Option<String>)> = Vec::new();
    while let Ok(mut req) = requests.recv() {
        // Only the newest inspection matters: skip the ones a knob already replaced.
        while let Ok(next) = requests.try_recv() {
            if matches!(
                (&req, &next),
                (Request::Inspect { .. }, Request::Inspect { .. })
            ) {
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

fn handle(
    req: Request,
    engines: &mut Vec<(EngineKind, Box<dyn Engine>, Option<String>)>,
    replies: &Sender<Reply>,
) {
    let reply = match req {
        Request::Load { gen, path, missing } => match data::load(&path, &LoadOptions::default())
            .and_then(|mut t| missing.apply(&mut t).map(|_| t))
        {
            Ok(t) => Reply::Loaded {
                gen,
                path,
                table: Arc::new(t),
            },
            Err(e) => Reply::Failed { gen, message: e.0 },
        },
        Request::Inspect {
            gen,
            settings,
            table,
        } => {
            let idx = match engines.iter().position(|e| e.0 == settings.engine) {
                Some(i) => i,
                None => {
                    let sel = engine::select(settings.engine);
                    engines.push((settings.engine, sel.engine, sel.notice));
                    engines.len() - 1
                }
            };
            let (_, engine, notice) = &mut engines[idx];
            let result = inspect(&settings, &table, engine, notice);
            Reply::Inspected {
                gen,
                result,
                notice: notice.clone(),
            }
        }
    };
    let _ = replies.send(reply);
}

fn inspect(
    s: &Settings,
    table: &Table,
    engine: &mut Box<dyn Engine>,
    notice: &mut Option<String>,
) -> Result<Box<Inspection>, String> {
    let channel = s.channel.min(table.channels.len().saturating_sub(1));
    let windows = Windows::new(
        table.rows(),
        None,
        Some(s.seq_len.min(table.rows()).max(1)),
        1,
    )
    .map_err(|e| e.0)?;
    let w = wavelet::lookup(&s.wavelet).map_err(|e| e.to_string())?;
    let plan = Plan::new(w, s.mode, s.level, windows.seq_len).map_err(|e| e.to_string())?;
    pipeline::check_level(&plan)?;
    // A template that does not compile still gets its features computed and shown; the
    // error goes where the prompt would be.
    let (prompter, template_error) = match Prompter::new(&s.template_text) {
        Ok(p) => (p, None),
        Err(e) => (Prompter::new("").map_err(|e| e.to_string())?, Some(e)),
    };
    let shape = Shape {
        table,
        windows,
        plan: &plan,
        normalize: s.normalize,
        dtype: s.dtype,
        aggregate: crate::features::Aggregate::Series,
        batch_size: 1,
    };
    let req = InspectRequest {
        shape,
        channel,
        window: s.window.min(windows.count - 1),
        prompter: &prompter,
        description: &s.description,
        pred_len: s.pred_len,
    };
    let mut result = pipeline::inspect(engine, notice, &req).map_err(|e| e.to_string())?;
    if let Some(e) = template_error {
        result.prompt = Err(e);
    }
    Ok(Box::new(result))
}

//! How far a piece of work has got ([`Progress`]), shared with the thread that draws it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// How far a piece of work has got, read from another thread: the app's running job and
/// its Data set pane's survey (a grid point's units) draw it while the work runs.
#[derive(Debug, Clone, Default)]
pub struct Progress(Arc<UnitsDone>);

/// The units done, and in all (0 until the work is counted).
#[derive(Debug, Default)]
struct UnitsDone {
    done: AtomicUsize,
    all: AtomicUsize,
}

impl Progress {
    /// The share done, once the work has been counted.
    pub fn fraction(&self) -> Option<f32> {
        let done = self.0.done.load(Ordering::Relaxed);
        let all = self.0.all.load(Ordering::Relaxed);
        (all > 0).then(|| (done.min(all) as f64 / all as f64) as f32)
    }

    /// `done` of `all`, as the work reports it.
    pub fn set(&self, done: usize, all: usize) {
        self.0.all.store(all, Ordering::Relaxed);
        self.0.done.store(done, Ordering::Relaxed);
    }

    /// A new count of `all` units, none done.
    pub(crate) fn start(&self, all: usize) {
        self.0.done.store(0, Ordering::Relaxed);
        self.0.all.store(all, Ordering::Relaxed);
    }

    /// `done` more units done.
    pub(crate) fn add(&self, done: usize) {
        self.0.done.fetch_add(done, Ordering::Relaxed);
    }
}

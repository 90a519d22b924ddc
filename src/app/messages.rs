//! The messages between the app and its workers: what the UI asks (a load, a window's
//! inspection, the Data set pane's survey, a data-set-wide job) and what comes back. The
//! worker, the survey thread and the jobs import them from here, so no two of them import
//! each other.

use super::state::Settings;
use crate::error::{Error, Result};
use crate::variants::Variant;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use wavebench_core::data::Table;
use wavebench_core::pipeline::Inspection;
use wavebench_core::run_spec::LoadOptions;

/// Which configuration an inspection is of: the knobs' (the main view) or the one pinned
/// beside it for comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Main,
    Compare,
}

pub enum WorkRequest {
    Load {
        gen: u64,
        path: PathBuf,
        options: LoadOptions,
    },
    /// Inspect a window of the main view or of the compared configuration.
    Inspect {
        gen: u64,
        slot: Slot,
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
    /// The variants' rows, and the settings they were measured with, in words.
    Variants {
        label: String,
        rows: Vec<crate::variants::Measured>,
        /// Where the timing report was written, when one was asked for.
        report: Option<PathBuf>,
    },
    Exported {
        path: PathBuf,
        units: usize,
        /// What the user must know about what was written (an empty description).
        warning: Option<String>,
    },
    Written {
        path: PathBuf,
    },
}

/// A running job as the UI sees it: progress, and a flag that cancels it.
#[derive(Clone)]
pub struct RunningJob {
    pub what: String,
    pub progress: crate::sweep::Progress,
    pub cancel: Arc<AtomicBool>,
}

impl RunningJob {
    /// The share done (0 until the job has counted its work).
    pub fn fraction(&self) -> f32 {
        self.progress.fraction().unwrap_or(0.0)
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
        slot: Slot,
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

/// What the Data set pane asks for: the current configuration over every window.
pub struct SurveyRequest {
    pub gen: u64,
    pub table: Arc<Table>,
    pub settings: Box<Settings>,
    pub split: wavebench_core::score::Split,
    /// Where the survey says how far it has got.
    pub progress: crate::sweep::Progress,
}

/// Requests the app's workers have taken up (loads, inspections, surveys): a timing job
/// compares it before and after to say whether other work ran while it measured.
pub static OTHER_WORK: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

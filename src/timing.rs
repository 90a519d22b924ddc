//! Per-stage timing of the pipeline (SPEC §7): the stages, the timer threaded through a run,
//! and the report written as JSON, CSV or Markdown.

use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The pipeline's stages, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    Load,
    Prepare,
    Upload,
    Decompose,
    Frequency,
    Trend,
    Quality,
    Statistics,
    Difficulty,
    Download,
    Render,
}

impl Stage {
    pub const ALL: [Stage; 11] = [
        Stage::Load,
        Stage::Prepare,
        Stage::Upload,
        Stage::Decompose,
        Stage::Frequency,
        Stage::Trend,
        Stage::Quality,
        Stage::Statistics,
        Stage::Difficulty,
        Stage::Download,
        Stage::Render,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Load => "load",
            Stage::Prepare => "prepare",
            Stage::Upload => "upload",
            Stage::Decompose => "decompose",
            Stage::Frequency => "frequency",
            Stage::Trend => "trend",
            Stage::Quality => "quality",
            Stage::Statistics => "statistics",
            Stage::Difficulty => "difficulty",
            Stage::Download => "download",
            Stage::Render => "render",
        }
    }
}

/// Accumulates wall time per stage over one run, and counts device→host synchronisations.
///
/// In precise mode an engine on an asynchronous device synchronises at each stage
/// boundary, so that device work is charged to the stage that queued it.
#[derive(Debug, Clone, Default)]
pub struct Timer {
    totals: [Duration; 11],
    pub precise: bool,
    pub host_syncs: usize,
}

impl Timer {
    pub fn new(precise: bool) -> Self {
        Timer {
            precise,
            ..Default::default()
        }
    }

    /// Run `f`, charging its wall time to `stage`.
    pub fn time<R>(&mut self, stage: Stage, f: impl FnOnce() -> R) -> R {
        let t = Instant::now();
        let r = f();
        self.add(stage, t.elapsed());
        r
    }

    pub fn add(&mut self, stage: Stage, d: Duration) {
        self.totals[stage as usize] += d;
    }

    pub fn get(&self, stage: Stage) -> Duration {
        self.totals[stage as usize]
    }

    pub fn total(&self) -> Duration {
        self.totals.iter().sum()
    }

    /// Add another timer's stages (e.g. one chunk of a run) to this one.
    pub fn merge(&mut self, other: &Timer) {
        for s in Stage::ALL {
            self.totals[s as usize] += other.totals[s as usize];
        }
        self.host_syncs += other.host_syncs;
    }

    pub fn stages_ms(&self) -> Vec<(Stage, f64)> {
        Stage::ALL
            .iter()
            .map(|&s| (s, self.get(s).as_secs_f64() * 1e3))
            .collect()
    }
}

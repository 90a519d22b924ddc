//! Per-stage timing of the pipeline (docs/timing.md): the stages, the timer threaded through a run,
//! and each run's report (`RunReport`; the application writes it out as a file).

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// Which path computed the band summaries (set by `pipeline::features`).
    pub path: Option<PathUsed>,
}

/// The path a run's band summaries took (see `pipeline::sliding_path`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathUsed {
    pub sliding: bool,
    /// Why not, when not.
    pub why_not: Option<String>,
    pub windows: usize,
    /// Windows computed again on the per-window path because a prompt was not settled.
    pub recomputed: usize,
}

impl std::fmt::Display for PathUsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.sliding {
            write!(
                f,
                "sliding ({} of {} windows recomputed per window)",
                self.recomputed, self.windows
            )
        } else {
            write!(f, "per window")?;
            match &self.why_not {
                Some(w) => write!(f, " ({w})"),
                None => Ok(()),
            }
        }
    }
}

impl Timer {
    /// Record the path one `features` call took; several calls on one timer (a workload
    /// of one call per window) add up their windows.
    pub fn add_path(&mut self, p: PathUsed) {
        self.path = Some(match self.path.take() {
            None => p,
            Some(before) => PathUsed {
                sliding: before.sliding && p.sliding,
                why_not: before.why_not.or(p.why_not),
                windows: before.windows + p.windows,
                recomputed: before.recomputed + p.recomputed,
            },
        });
    }

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

/// Per-stage time of a pass whose stages run interleaved on many threads (the native
/// engine's fused blocks): each thread adds the time it spends in each stage, and the
/// pass's wall time is then split between the stages in those proportions.
#[derive(Debug, Default)]
pub struct StageClock {
    nanos: [AtomicU64; 11],
}

impl StageClock {
    /// Charge the time since `since` to `stage`; returns now, the start of the next lap.
    pub fn lap(&self, stage: Stage, since: Instant) -> Instant {
        let now = Instant::now();
        let ns = now.duration_since(since).as_nanos() as u64;
        self.nanos[stage as usize].fetch_add(ns, Ordering::Relaxed);
        now
    }

    /// Add `wall` to `timer`, split between the stages by their share of thread time.
    pub fn charge(&self, wall: Duration, timer: &mut Timer) {
        let ns: Vec<u64> = self
            .nanos
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .collect();
        let total: u64 = ns.iter().sum();
        if total == 0 {
            return;
        }
        for s in Stage::ALL {
            timer.add(s, wall.mul_f64(ns[s as usize] as f64 / total as f64));
        }
    }
}

/// One engine's timings over the repeats of a benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub engine: String,
    pub device: String,
    pub series: usize,
    pub length: usize,
    pub host_syncs: usize,
    pub stages: std::collections::BTreeMap<String, StageStats>,
    pub total_ms: f64,
    /// The timed runs the medians are taken over.
    pub repeats: usize,
    pub series_per_s: f64,
    /// How the band summaries were computed: `sliding (…)` or `per window (why)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `bench --variants`: which workload ran (absent for the plain pipeline).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// What the variant runs, in words (e.g. that `batching` is one call per sample).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant_means: Option<String>,
    /// Prompts that differ from the baseline's, of `prompts` compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts_changed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<usize>,
    /// Share of lookups a cache answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_hit_rate: Option<f64>,
    /// Windows the seed's statistics key would have answered with another window's prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed_key_collisions: Option<usize>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct StageStats {
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub share: f64,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        0.0
    } else {
        v[v.len() / 2]
    }
}

impl RunReport {
    /// Summarise the timers of `repeats` runs of one engine.
    pub fn from_runs(
        engine: &str,
        device: &str,
        series: usize,
        length: usize,
        runs: &[Timer],
    ) -> Self {
        let mut totals: Vec<f64> = runs.iter().map(|t| t.total().as_secs_f64() * 1e3).collect();
        let total_ms = median(&mut totals);
        let mut stages = std::collections::BTreeMap::new();
        let medians: Vec<(Stage, f64, f64, f64)> = Stage::ALL
            .iter()
            .map(|&s| {
                let mut v: Vec<f64> = runs.iter().map(|t| t.get(s).as_secs_f64() * 1e3).collect();
                let m = median(&mut v);
                (
                    s,
                    m,
                    v.first().copied().unwrap_or(0.0),
                    v.last().copied().unwrap_or(0.0),
                )
            })
            .collect();
        let sum: f64 = medians.iter().map(|m| m.1).sum();
        for (s, m, lo, hi) in medians {
            stages.insert(
                s.name().to_string(),
                StageStats {
                    median_ms: m,
                    min_ms: lo,
                    max_ms: hi,
                    share: if sum > 0.0 { m / sum } else { 0.0 },
                },
            );
        }
        RunReport {
            engine: engine.into(),
            device: device.into(),
            series,
            length,
            host_syncs: runs.first().map_or(0, |t| t.host_syncs),
            stages,
            total_ms,
            repeats: runs.len(),
            series_per_s: if total_ms > 0.0 {
                series as f64 / (total_ms / 1e3)
            } else {
                0.0
            },
            path: runs
                .iter()
                .find_map(|t| t.path.as_ref())
                .map(|p| p.to_string()),
            variant: None,
            variant_means: None,
            prompts_changed: None,
            prompts: None,
            cache_hit_rate: None,
            seed_key_collisions: None,
        }
    }
}

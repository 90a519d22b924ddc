//! The Data set pane's survey thread: the current configuration over every window, the
//! newest request only, on its own thread (a survey of a large data set must not hold back
//! the window the knobs show); the scored units and their statistics are kept while only
//! the wavelet, level, mode or template change.

use super::latest::Latest;
use super::messages::{Reply, SurveyRequest};
use super::state::Settings;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use wavebench_core::config::{Config, UnitsKey};
use wavebench_core::prompt::Prompter;
use wavebench_core::score::Split;

/// The survey as the app asks for it: the newest request, the configuration it refines and
/// how far, and whether the Data set pane was drawn this frame.
#[derive(Default)]
pub(super) struct Surveying {
    /// The newest survey of the data set, for the settings and split it was asked for.
    pub latest: Latest<(Settings, Split)>,
    /// The configuration the survey refines, and how far (a big file is surveyed over a
    /// thinned stride first, 4× finer each time while the pane is shown).
    refining: Option<(Settings, Split)>,
    step: u32,
    /// Whether the Data set pane was drawn this frame: its survey of every window runs
    /// only for a pane someone can see, so that the app rests while that tab is hidden
    /// (BENCHMARKS.md: the app on a 10,000,000-row file).
    pub shown: bool,
}

impl Surveying {
    /// The stride to survey `base` at over a table of `rows` × `channels` and windows
    /// of `seq_len` every `stride` rows: another configuration starts thin again, the
    /// same one refines.
    pub fn stride(
        &mut self,
        base: (Settings, Split),
        rows: usize,
        seq_len: usize,
        channels: usize,
        stride: usize,
    ) -> usize {
        if self.refining.as_ref() != Some(&base) {
            self.refining = Some(base);
            self.step = 0;
        }
        thinned_stride(rows, seq_len, channels, stride, self.step)
    }

    /// A survey came back: the next is finer, where the file allows one.
    pub fn answered(&mut self, rows: usize, seq_len: usize, channels: usize, stride: usize) {
        if can_refine(rows, seq_len, channels, stride, self.step) {
            self.step += 1;
        }
    }
}

/// The scored units of the last survey, and what they were made for: a wavelet, level,
/// mode or template change scores on the same units.
type ScorerKey = (usize, UnitsKey, wavebench_core::score::Split);

/// Survey the newest request, skipping those a newer knob change replaced.
pub(super) fn serve(requests: Receiver<SurveyRequest>, replies: Sender<Reply>, wake: impl Fn()) {
    let mut kept: Option<(ScorerKey, crate::sweep::ScoredUnits)> = None;
    while let Ok(mut req) = requests.recv() {
        while let Ok(next) = requests.try_recv() {
            req = next;
        }
        super::messages::OTHER_WORK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let result = survey(&req, &mut kept).map(Box::new);
        let _ = replies.send(Reply::Surveyed {
            gen: req.gen,
            result,
        });
        wake();
    }
}

fn survey(
    req: &SurveyRequest,
    kept: &mut Option<(ScorerKey, crate::sweep::ScoredUnits)>,
) -> crate::error::Result<crate::sweep::survey::Survey> {
    let s = &req.settings;
    let prompter = Prompter::new(&s.template_text).map_err(super::error::in_template)?;
    let sweep_req = crate::sweep::Request {
        base: Config {
            seq_len: Some(s.seq_len()),
            ..s.run.clone()
        },
        grid: Default::default(),
        templates: vec![(s.template_label(), Arc::new(prompter))],
        split: req.split,
        protocol: Default::default(),
    };
    let name = req.table.path.display().to_string();
    let tables = [(name.as_str(), &*req.table)];
    // Only the data options, the horizon and the split shape the scored units.
    let key: ScorerKey = (
        Arc::as_ptr(&req.table) as usize,
        sweep_req.base.units_key(),
        req.split,
    );
    // The scored units and the statistics, kept while only the wavelet, level, mode or
    // template change (the statistics do not depend on them).
    let mut scored = match kept.take() {
        Some((k, scored)) if k == key => scored,
        _ => crate::sweep::ScoredUnits::new(crate::sweep::scorer(&tables, &sweep_req)?),
    };
    let result = crate::sweep::survey::Survey::of(
        &name,
        &req.table,
        &sweep_req,
        &mut scored,
        s.channel,
        Some(&req.progress),
    );
    *kept = Some((key, scored));
    result
}

/// Units (window × channel) the first survey of a configuration covers at most: about a
/// quarter of a second on a 2-core machine (ETTh1's 118,363 units at stride 1 take about
/// 0.1 s), so a knob change on a 10M-row file answers at once.
pub const FIRST_UNITS: usize = 250_000;
/// Units a survey refines to while the pane stays shown (each step 4× finer): about a
/// second, and memory in the hundreds of MB (a survey keeps every unit's features).
pub const MOST_UNITS: usize = 1_000_000;

/// The stride a survey of `rows` × `channels` at windows of `seq_len` takes at refinement
/// `step` (0 the first): a multiple of the run's `stride` that keeps it under
/// [`FIRST_UNITS`] · 4^step units, the run's own stride once that holds all.
pub fn thinned_stride(
    rows: usize,
    seq_len: usize,
    channels: usize,
    stride: usize,
    step: u32,
) -> usize {
    let stride = stride.max(1);
    let units = (rows.saturating_sub(seq_len) / stride + 1) * channels.max(1);
    let cap = FIRST_UNITS
        .saturating_mul(4usize.saturating_pow(step))
        .min(MOST_UNITS);
    stride * units.div_ceil(cap).max(1)
}

/// Whether a survey at refinement `step` is thinner than the run and a finer one is worth
/// asking for (under [`MOST_UNITS`]).
pub fn can_refine(rows: usize, seq_len: usize, channels: usize, stride: usize, step: u32) -> bool {
    let now = thinned_stride(rows, seq_len, channels, stride, step);
    now > stride.max(1) && thinned_stride(rows, seq_len, channels, stride, step + 1) < now
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_big_file_is_surveyed_thin_first_then_finer() {
        // ETTh1: all of it at once.
        assert_eq!(thinned_stride(17_420, 512, 7, 1, 0), 1);
        assert!(!can_refine(17_420, 512, 7, 1, 0));
        // 10M rows × 3 channels: about 30M units, first every 120th window.
        let first = thinned_stride(10_000_000, 512, 3, 1, 0);
        assert_eq!(first, 120);
        assert!(can_refine(10_000_000, 512, 3, 1, 0));
        assert_eq!(thinned_stride(10_000_000, 512, 3, 1, 1), 30);
        // Never finer than MOST_UNITS: 30M / 1M → one window in 30.
        assert_eq!(thinned_stride(10_000_000, 512, 3, 1, 9), 30);
        assert!(!can_refine(10_000_000, 512, 3, 1, 1));
        // A multiple of the run's own stride.
        assert_eq!(thinned_stride(10_000_000, 512, 3, 7, 0) % 7, 0);
    }
}

//! The units every configuration of a sweep is scored on ([`scorer`]): made once per data
//! set, and kept with their Time-LLM statistics by a caller that scores many
//! configurations of one data set ([`ScoredUnits`]).

use crate::error::{Error, Result};
use crate::words::place;
use crate::{point, texts, Request};
use std::sync::Arc;
use wavebench_core::data::Table;
use wavebench_core::names::{Opt, OPTION};
use wavebench_core::run_spec::{Purpose, RunSpec};
use wavebench_core::score::{Horizons, Layout, Scorer};
use wavebench_core::stats::SeriesStats;

/// The units every configuration of `req` over `tables` is scored on: they depend on the
/// data options, the horizon and the split, not on the wavelet, level, mode or template.
pub fn scorer(tables: &[(&str, &Table)], req: &Request) -> Result<Scorer> {
    let base = RunSpec::new(
        req.data_config(),
        Purpose::Features,
        &wavebench_core::run_spec::NATIVE_ONLY,
    )?;
    let ranges: Vec<std::ops::Range<usize>> = tables
        .iter()
        .map(|(_, t)| {
            let rows = t.rows();
            base.cfg
                .rows
                .map_or(0..rows, |r| r.start..r.end.unwrap_or(rows).min(rows))
        })
        .collect();
    let layout = Layout {
        files: ranges.clone(),
        seq_len: base.cfg.seq_len.unwrap_or(0),
        pred_len: req.base.pred_len,
        stride: base.cfg.stride,
    };
    // A refusal about the units' count names a value that passes the same count.
    let fixed = |e: wavebench_core::score::ScoreError| e.with_fix(&layout, &req.split);
    // The forecasters are fit on every train unit, or on a subset where one was asked for
    // (docs/score.md#what-the-prompt-adds-beyond-the-series).
    let fit_every = wavebench_core::score::forecaster::fit_every(
        train_units(tables, &ranges, &layout, req),
        layout.seq_len,
        layout.stride,
        req.protocol.fit_subset_above,
    );
    let mut horizons = Vec::with_capacity(tables.len());
    let mut windows = Vec::with_capacity(tables.len());
    let mut seq_len = None;
    for ((name, table), range) in tables.iter().zip(&ranges) {
        // A plan's errors name the file already.
        let prepared = base.prepare(table)?;
        let h = Horizons::new(
            table,
            &prepared.windows,
            req.base.pred_len,
            &req.split,
            range.clone(),
            fit_every,
        )
        .map_err(|e| Error::from(fixed(e)).within(&place(name, table)))?;
        match seq_len {
            None => seq_len = Some(prepared.windows.seq_len),
            Some(s) if s != prepared.windows.seq_len => {
                return Err(Error::about(
                    &[Opt::SeqLen],
                    format!(
                        "{name}: its windows are {} rows, the others' {s}: give {OPTION}",
                        prepared.windows.seq_len
                    ),
                ))
            }
            _ => {}
        }
        horizons.push(h);
        windows.push(prepared.windows);
    }
    let data = horizons
        .into_iter()
        .zip(tables)
        .zip(&windows)
        .map(|((h, (_, t)), w)| (h, *t, w))
        .collect();
    Scorer::new(data, req.protocol).map_err(|e| match tables {
        // One file: the message is about it.
        [(name, table)] => Error::from(fixed(e)).within(&place(name, table)),
        _ => Error::from(fixed(e)),
    })
}

/// The train units of `tables` (their rows `ranges`) under `layout` and `req`'s split:
/// windows whose horizon lies in train, × channels.
fn train_units(
    tables: &[(&str, &Table)],
    ranges: &[std::ops::Range<usize>],
    layout: &Layout,
    req: &Request,
) -> usize {
    tables
        .iter()
        .zip(ranges)
        .map(|((_, t), rows)| {
            let units = req.split.borders(rows.start, rows.len()).map_or(0, |b| {
                layout.units_in(rows.start, b.part(wavebench_core::score::Part::Train))
            });
            units * t.channels.len()
        })
        .sum()
}

/// Per channel name (summed over files), its left-out units, the most first.
pub(crate) fn left_out_channels(
    tables: &[(&str, &Table)],
    scorer: &Scorer,
) -> Vec<(String, usize)> {
    let mut by: Vec<(String, usize)> = Vec::new();
    for ((_, table), h) in tables.iter().zip(&scorer.files) {
        for (c, &n) in table.channels.iter().zip(&h.left_out_by_channel) {
            if n == 0 {
                continue;
            }
            match by.iter_mut().find(|(name, _)| *name == c.name) {
                Some((_, total)) => *total += n,
                None => by.push((c.name.clone(), n)),
            }
        }
    }
    by.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    by
}

/// Scored units whose Time-LLM statistics a sweep keeps for its later configurations
/// (~130 bytes each: 260 MB); past this every configuration computes its own, so that
/// memory does not grow with the data set's features.
pub(crate) const KEPT_STATISTICS: usize = 2_000_000;

/// Whether the units' Time-LLM statistics are few enough to keep between configurations.
pub(crate) fn keeps_statistics(scorer: &Scorer) -> bool {
    scorer.scored_units() <= KEPT_STATISTICS
}

/// What a caller that scores one data set under many configurations (the app's Data set
/// pane) keeps between them: the scored units and, once computed, their Time-LLM
/// statistics. Neither depends on the wavelet, level, mode or template; the caller keys
/// it by everything else.
pub struct ScoredUnits {
    pub scorer: Scorer,
    /// The units' statistics and the columns of the claims that read only those, once
    /// a configuration has computed them.
    pub(crate) lent: Option<point::Lent>,
    /// The survey timeline's channel, and its statistics over every window.
    pub(crate) timeline: Option<(usize, Vec<SeriesStats>)>,
    /// The prompt pieces no wavelet changes, of the templates last surveyed.
    pub(crate) texts: Vec<Arc<texts::UnitTexts>>,
}

impl ScoredUnits {
    pub fn new(scorer: Scorer) -> Self {
        ScoredUnits {
            scorer,
            lent: None,
            timeline: None,
            texts: Vec::new(),
        }
    }
}

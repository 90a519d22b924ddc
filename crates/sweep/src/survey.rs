//! One configuration over a whole data set, for the app's Data set pane: its score (a
//! sweep of one, over the scored units of every channel) and, for one channel, every
//! window's features and claims in time order (a run of that channel alone).

use super::{Metric, Request, ScoredUnits, Sweep};
use crate::error::{Error, Result};
use rayon::prelude::*;
use wavebench_core::data::{Channel, Table};
use wavebench_core::engine::Selected;
use wavebench_core::features::Unit;
use wavebench_core::run_spec::{Purpose, RunSpec};
use wavebench_core::score::Claim;
use wavebench_core::stats::SeriesStats;
use wavebench_core::timing::Timer;

/// One claim's category per window, and the categories' names (ids index them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Categories {
    pub ids: Vec<u32>,
    pub names: Vec<String>,
}

/// A configuration over every window of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Survey {
    /// "db4 level 3 reflect, dwt-balanced".
    pub label: String,
    /// The configuration's score (one row).
    pub sweep: Sweep,
    pub channel: String,
    /// Each window's first row.
    pub starts: Vec<usize>,
    /// Each [`Metric`]'s value per window (the channel's unit).
    pub features: Vec<Vec<f64>>,
    /// Each claim of `Claim::ALL` per window.
    pub claims: Vec<Categories>,
}

impl Survey {
    /// `req`'s base configuration over every window of `table`, its timelines read on
    /// channel number `channel`.
    /// `kept` holds [`super::scorer`]'s units for this table and request, and what earlier
    /// surveys of them computed that does not depend on the wavelet (kept by a caller that
    /// surveys one data set under many configurations).
    /// `progress` says how far the score's units have got.
    pub fn of(
        name: &str,
        table: &Table,
        req: &Request,
        kept: &mut ScoredUnits,
        channel: usize,
        progress: Option<&super::Progress>,
    ) -> Result<Survey> {
        // The score and the timeline side by side: each has serial stretches (the tally,
        // the claims per window) that leave the other core idle when run one after the
        // other. The timeline's kept statistics travel with it and come back.
        let mut timeline = kept.timeline.take();
        let (sweep, mine) = rayon::join(
            || super::one(&[(name, table)], req, kept, progress),
            || timeline_units(table, req, channel, &mut timeline),
        );
        kept.timeline = timeline;
        let (sweep, (chan, mine)) = (sweep?, mine?);
        let bands = wavebench_core::engine::plan::band_names(req.base.transform.level);
        // Claim by claim on every core: this is the survey's serial tail.
        let claims = Claim::ALL
            .par_iter()
            .map(|&c| {
                let mut buf = String::new();
                let mut cats = Categories::default();
                for u in &mine {
                    let name = c.category(&u.features, &bands, &mut buf);
                    let id = match cats.names.iter().position(|n| n == name) {
                        Some(i) => i,
                        None => {
                            cats.names.push(name.to_string());
                            cats.names.len() - 1
                        }
                    };
                    cats.ids.push(id as u32);
                }
                cats
            })
            .collect();
        let row = sweep
            .rows
            .first()
            .ok_or_else(|| Error::internal("survey: no configuration"))?;
        Ok(Survey {
            label: format!("{}, {}", row.transform, row.template),
            channel: chan.name.clone(),
            starts: mine.iter().map(|u| u.start).collect(),
            features: Metric::ALL
                .iter()
                .map(|m| mine.iter().map(|u| m.of(&u.features)).collect())
                .collect(),
            claims,
            sweep,
        })
    }
}

/// Every window of the timeline's channel `channel`, alone, as the sweep computes a unit;
/// `timeline` holds its statistics from the last survey of it (else they are computed and
/// kept there).
fn timeline_units<'t>(
    table: &'t Table,
    req: &Request,
    channel: usize,
    timeline: &mut Option<(usize, Vec<SeriesStats>)>,
) -> Result<(&'t Channel, Vec<Unit>)> {
    let chan = table.channels.get(channel).ok_or_else(|| {
        Error::internal(format!(
            "channel {channel}: the data has {}",
            table.channels.len()
        ))
    })?;
    // The timeline's channel alone, every window, as the sweep computes a unit.
    let alone = Table {
        path: table.path.clone(),
        time: table.time.clone(),
        channels: vec![chan.clone()],
        ..Table::default()
    };
    let spec = RunSpec::new(
        req.config(None),
        Purpose::Features,
        &wavebench_core::run_spec::NATIVE_ONLY,
    )?;
    let slide = crate::request::slide(req, &super::defined_claims(&req.base)?);
    // The timeline reads a window's place (`start`), never its time as text.
    let prepared = spec.prepare(&alone)?.sliding(slide).without_time_labels();
    // The channel's statistics from the last survey of it, else computed and kept.
    let known = timeline.as_ref().filter(|(c, _)| *c == channel);
    let prepared = match known {
        Some(_) => prepared.without_statistics(),
        None => prepared,
    };
    let mut mine = prepared.features(
        &alone,
        &mut Selected::native(),
        &mut Timer::default(),
        |_| true,
    )?;
    match known {
        Some((_, stats)) if stats.len() == mine.len() => {
            for (u, s) in mine.iter_mut().zip(stats) {
                u.features.set_statistics(s);
            }
        }
        Some((_, stats)) => {
            return Err(Error::internal(format!(
                "internal: {} kept statistics for {} windows",
                stats.len(),
                mine.len()
            )))
        }
        None => {
            let stats = mine.iter().map(|u| u.features.statistics()).collect();
            *timeline = Some((channel, stats));
        }
    }
    Ok((chan, mine))
}

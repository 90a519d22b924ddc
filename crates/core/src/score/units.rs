//! The units a data set's configurations are scored on: per file, which part each
//! window's horizon lies in and each unit's outcome ([`Horizons`]); over the data set, the
//! train terciles and each part's noise-floor permutation ([`Scorer`]). Made once: they
//! depend on the windows, the horizon and the split, not on the wavelet.

use super::information;
use super::{Borders, Outcome, Part, ScoreError, Split, Tally, Terciles};
use crate::data::{Table, Windows};
use std::ops::Range;

/// Where one file's scored units are: which part each window's horizon lies in, and each
/// unit's outcome. Made once per data set; every configuration is scored on the same units.
#[derive(Debug, Clone)]
pub struct Horizons {
    pub borders: Borders,
    /// The windows' length.
    pub seq_len: usize,
    /// The windows (numbered as in the run) whose horizon lies in val or test.
    pub scored: Range<usize>,
    pub(super) channels: usize,
    /// Per window of `scored`, its part (None: its horizon straddles two parts).
    pub(super) parts: Vec<Option<Part>>,
    /// Per unit of `scored` (window-major, channel-minor), its outcome (None: left out).
    pub(super) outcomes: Vec<Option<Outcome>>,
    /// The train units' naive_mase and vol_ratio, for the terciles.
    pub(super) train: [Vec<f64>; 2],
    /// Units left out per part (a denominator of 0).
    pub left_out: [usize; 3],
}

impl Horizons {
    /// The outcomes of every unit of `table`'s `windows` whose next `pred_len` rows exist
    /// and lie in one part of `split` (over the windows' rows).
    pub fn new(
        table: &Table,
        windows: &Windows,
        pred_len: usize,
        split: &Split,
        rows: Range<usize>,
    ) -> Result<Horizons, ScoreError> {
        if pred_len < 2 {
            return Err(ScoreError::ShortHorizon(pred_len));
        }
        let borders = split.borders(rows.start, rows.len())?;
        let t = windows.seq_len;
        let part_of = |w: usize| {
            let s = windows.start(w - windows.first);
            borders.holding(&(s + t..s + t + pred_len))
        };
        let values: Vec<Vec<f64>> = table.channels.iter().map(|c| c.values.to_f64()).collect();
        let outcome = |w: usize, c: usize| {
            let s = windows.start(w - windows.first);
            let x = &values[c][s..s + t];
            Outcome::of(x, &values[c][s + t..s + t + pred_len])
        };
        let all = windows.first..windows.first + windows.count;
        let channels = table.channels.len();
        let mut train = [Vec::new(), Vec::new()];
        let mut left_out = [0; 3];
        // The first and last window whose horizon lies in val or test.
        let mut first_last: Option<(usize, usize)> = None;
        for w in all.clone() {
            let Some(p) = part_of(w) else { continue };
            if p == Part::Train {
                for c in 0..channels {
                    match outcome(w, c) {
                        Some(o) => {
                            train[0].push(o.naive_mase);
                            train[1].push(o.vol_ratio);
                        }
                        None => left_out[0] += 1,
                    }
                }
            } else {
                first_last = Some((first_last.map_or(w, |(a, _)| a), w));
            }
        }
        let scored = first_last.map_or(all.end..all.end, |(a, b)| a..b + 1);
        let parts: Vec<Option<Part>> = scored.clone().map(part_of).collect();
        let mut outcomes = Vec::with_capacity(scored.len() * channels);
        for (k, w) in scored.clone().enumerate() {
            for c in 0..channels {
                let o = parts[k].and_then(|_| outcome(w, c));
                if let (Some(p), None) = (parts[k], o) {
                    left_out[p as usize] += 1;
                }
                outcomes.push(o);
            }
        }
        Ok(Horizons {
            borders,
            seq_len: windows.seq_len,
            scored,
            channels,
            parts,
            outcomes,
            train,
            left_out,
        })
    }
}

/// The units a data set's configurations are scored on: its files' horizons, the train
/// terciles, and each part's noise-floor permutation.
#[derive(Debug, Clone)]
pub struct Scorer {
    pub files: Vec<Horizons>,
    pub mase: Terciles,
    pub vol: Terciles,
    /// Scored units per part (train counted for the terciles).
    pub units: [usize; 3],
    pub(super) perms: [Vec<usize>; 3],
}

impl Scorer {
    /// Errors name the part left without units (a horizon too long for it, say).
    pub fn new(files: Vec<Horizons>) -> Result<Scorer, ScoreError> {
        let mut train = [Vec::new(), Vec::new()];
        let mut units = [0; 3];
        for h in &files {
            train[0].extend_from_slice(&h.train[0]);
            train[1].extend_from_slice(&h.train[1]);
            units[0] += h.train[0].len();
            for (k, p) in h.parts.iter().enumerate() {
                if let Some(p) = p {
                    units[*p as usize] += (0..h.channels)
                        .filter(|c| h.outcomes[k * h.channels + c].is_some())
                        .count();
                }
            }
        }
        for p in Part::ALL {
            if units[p as usize] == 0 {
                return Err(ScoreError::NoUnits(p.name()));
            }
        }
        let [mut mase, mut vol] = train;
        Ok(Scorer {
            files,
            mase: Terciles::of(&mut mase),
            vol: Terciles::of(&mut vol),
            units,
            perms: Part::ALL.map(|p| {
                information::permutation(units[p as usize], information::PERMUTATION_SEED)
            }),
        })
    }

    /// A tally for one configuration's units.
    pub fn tally(&self, bands: &[String]) -> Tally {
        Tally::new(bands)
    }
}

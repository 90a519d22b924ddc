//! One file's units: which part each window's horizon lies in, each unit's outcome, the
//! train units' values for the terciles and the forecaster's sums over them
//! ([`Horizons`]). The data set's [`super::Scorer`] is made from every file's.

use super::forecaster::{self, ForecastClasses, Forecaster, Gram};
use super::{Borders, Outcome, Part, ScoreError, Split};
use crate::data::{Table, Windows};
use rayon::prelude::*;
use std::ops::Range;

/// Where one file's scored units are: which part each window's horizon lies in, and each
/// unit's outcome. Made once per data set; every configuration is scored on the same units.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Horizons {
    pub borders: Borders,
    /// The windows' length, their stride and the horizon.
    pub seq_len: usize,
    /// The run's number of the file's first window, and the row it starts at.
    pub first_window: usize,
    pub first_row: usize,
    pub stride: usize,
    pub pred_len: usize,
    /// The windows (numbered as in the run) whose horizon lies in val or test.
    pub scored: Range<usize>,
    pub(super) channels: usize,
    /// Per window of `scored`, its part (None: its horizon straddles two parts).
    pub(super) parts: Vec<Option<Part>>,
    /// Per unit of `scored` (window-major, channel-minor), its outcome (None: left out);
    /// emptied once the [`Scorer`] has them in its sequences.
    pub(super) outcomes: Vec<Option<Outcome>>,
    /// Per unit of `scored`, its place among its part's units (sequence order; u32::MAX:
    /// not scored). Set by [`Scorer::new`].
    pub(super) slots: Vec<u32>,
    /// The train units' naive_mase and vol_ratio, for the terciles.
    pub(super) train: TrainValues,
    /// The train units the forecasters are fit on (window, channel), with an outcome.
    pub(super) train_units: Vec<(u32, u32)>,
    /// One train window in how many the forecasters are fit on (1: all,
    /// [`forecaster::fit_every`]).
    pub fit_every: usize,
    /// The forecaster's normal equations over this file's train units (taken when the
    /// data set's forecaster is fit).
    #[serde(skip)]
    pub(super) gram: Option<Gram>,
    /// The fit windows (every k-th train window, [`super::gain::fit_stride`]), numbered
    /// as in the run, and per fit window × channel its place among the fit units
    /// (u32::MAX: no outcome). Set by [`Scorer::new`] with the places of every file.
    pub fit_windows: Vec<usize>,
    /// One train window in how many is a fit window.
    pub fit_stride: usize,
    pub(super) fit_slots: Vec<u32>,
    /// Each channel's std over the train part's rows (1 where 0): what an error is
    /// standardised by.
    pub(super) sigma: Vec<f64>,
    /// Units left out per part (a denominator of 0).
    pub left_out: [usize; 3],
    /// Units left out per channel, all parts together.
    pub left_out_by_channel: Vec<usize>,
}

impl Horizons {
    /// The outcomes of every unit of `table`'s `windows` whose next `pred_len` rows exist
    /// and lie in one part of `split` (over the windows' rows); the forecasters' sums over
    /// the train units of every `fit_every`-th window (counted from the first).
    pub fn new(
        table: &Table,
        windows: &Windows,
        pred_len: usize,
        split: &Split,
        rows: Range<usize>,
        fit_every: usize,
    ) -> Result<Horizons, ScoreError> {
        check_lengths(windows.seq_len, pred_len, rows.len())?;
        let t = windows.seq_len;
        let borders = split.borders(rows.start, rows.len())?;
        let part_of = |w: usize| {
            let s = windows.start(w - windows.first);
            borders.holding(&(s + t..s + t + pred_len))
        };
        let values: Vec<_> = table.channels.iter().map(|c| c.values.as_f64()).collect();
        let read = Reader {
            values: &values,
            windows,
            t,
            pred_len,
        };
        let all = windows.first..windows.first + windows.count;
        let channels = table.channels.len();
        let train_windows: Vec<usize> = all
            .clone()
            .filter(|&w| part_of(w) == Some(Part::Train))
            .collect();
        let train = read.train_pass(&train_windows, fit_every);
        let scored = scored_windows(all.clone(), part_of);
        let parts: Vec<Option<Part>> = scored.clone().map(part_of).collect();
        let outcomes = read.outcomes(scored.clone(), &parts);
        let (left_out, by_channel) = left_out_counts(&train.left_out, &outcomes, &parts, channels);
        // Every k-th train window, counted from the file's first window; its units with
        // an outcome are fit units.
        let k = super::gain::fit_stride(t, windows.stride);
        let fit_windows: Vec<usize> = train_windows
            .iter()
            .copied()
            .filter(|w| (w - all.start) % k == 0)
            .collect();
        let fit_slots = read.fit_slots(&fit_windows);
        let train_rows = borders.part(Part::Train);
        let sigma = values
            .iter()
            .map(|v| super::gain::train_sigma(&v[train_rows.clone()]))
            .collect();
        let TrainGroup {
            train,
            units: train_units,
            gram,
            ..
        } = train;
        Ok(Horizons {
            borders,
            seq_len: windows.seq_len,
            first_window: windows.first,
            first_row: windows.first_row,
            stride: windows.stride,
            pred_len,
            scored,
            channels,
            parts,
            slots: vec![u32::MAX; outcomes.len()],
            outcomes,
            train,
            train_units,
            fit_every: fit_every.max(1),
            gram: Some(gram),
            fit_windows,
            fit_stride: k,
            fit_slots,
            sigma,
            left_out,
            left_out_by_channel: by_channel,
        })
    }
}

/// A file's windows as the horizons read them: each channel's values, the windows, and
/// the window and horizon lengths.
struct Reader<'v> {
    values: &'v [std::borrow::Cow<'v, [f64]>],
    windows: &'v Windows,
    t: usize,
    pred_len: usize,
}

impl Reader<'_> {
    /// What window `w`'s horizon did on channel `c` (None for a constant or perfectly
    /// linear input: no outcome).
    fn outcome(&self, w: usize, c: usize) -> Option<Outcome> {
        let (t, s) = (self.t, self.windows.start(w - self.windows.first));
        let x = &self.values[c][s..s + t];
        Outcome::of(x, &self.values[c][s + t..s + t + self.pred_len])
    }

    /// The train units of `train_windows`: their outcomes, and every `fit_every`-th
    /// window's units summed into the forecaster's Gram matrix. A fixed group of channels
    /// per task, each group's sums merged in group order: the forecaster's bits do not
    /// depend on the thread count.
    fn train_pass(&self, train_windows: &[usize], fit_every: usize) -> TrainGroup {
        let channels = self.values.len();
        let groups: Vec<Range<usize>> = (0..channels)
            .step_by(TRAIN_GROUP)
            .map(|c| c..(c + TRAIN_GROUP).min(channels))
            .collect();
        let mut train = TrainGroup::new(self.t, self.pred_len);
        // A few groups at a time: each holds (T+1)² sums.
        for wave in groups.chunks(2 * rayon::current_num_threads()) {
            let done: Vec<TrainGroup> = wave
                .par_iter()
                .map(|cs| self.train_group(cs, train_windows, fit_every))
                .collect();
            for g in done {
                train.absorb(g);
            }
        }
        train
    }

    /// One group of channels' train units (see [`Reader::train_pass`]).
    fn train_group(
        &self,
        cs: &Range<usize>,
        train_windows: &[usize],
        fit_every: usize,
    ) -> TrainGroup {
        let (t, pred_len) = (self.t, self.pred_len);
        let first = self.windows.first;
        let mut g = TrainGroup::new(t, pred_len);
        let mut a = Vec::with_capacity(t + 1);
        let mut horizon = Vec::with_capacity(pred_len);
        for &w in train_windows {
            let s = self.windows.start(w - first);
            let fitted = (w - first).is_multiple_of(fit_every.max(1));
            for c in cs.clone() {
                let v = &self.values[c];
                match self.outcome(w, c) {
                    Some(o) => {
                        g.train.naive_mase.push(o.naive_mase);
                        g.train.vol_ratio.push(o.vol_ratio);
                        if !fitted {
                            continue;
                        }
                        g.units.push((w as u32, c as u32));
                        let x = &v[s..s + t];
                        let h = &v[s + t..s + t + pred_len];
                        if let Some(scale) = forecaster::inputs(x, &mut a) {
                            if let Some(y) = forecaster::targets(x, h, scale, &o) {
                                forecaster::horizon_targets(x, h, scale, &mut horizon);
                                g.gram.add(&a, y, &horizon);
                            }
                        }
                    }
                    None => g.left_out.push(c),
                }
            }
        }
        g
    }

    /// Each unit's outcome over the `scored` windows (window by window, channel by
    /// channel), None outside val and test (`parts`, a window each) or without one.
    fn outcomes(&self, scored: Range<usize>, parts: &[Option<Part>]) -> Vec<Option<Outcome>> {
        let channels = self.values.len();
        scored
            .into_par_iter()
            .enumerate()
            .flat_map_iter(|(k, w)| {
                let part = parts[k];
                (0..channels).map(move |c| part.and_then(|_| self.outcome(w, c)))
            })
            .collect()
    }

    /// Per fit window and channel, 0 where the unit has an outcome (a fit unit), else
    /// `u32::MAX`.
    fn fit_slots(&self, fit_windows: &[usize]) -> Vec<u32> {
        let channels = self.values.len();
        fit_windows
            .par_iter()
            .flat_map_iter(|&w| {
                (0..channels).map(move |c| {
                    if self.outcome(w, c).is_some() {
                        0
                    } else {
                        u32::MAX
                    }
                })
            })
            .collect()
    }
}

/// A horizon of at least 2 rows (vol_ratio reads its differences), and a window of `t`
/// rows with its horizon inside the file's `rows` (checked: a huge horizon would wrap).
fn check_lengths(t: usize, pred_len: usize, rows: usize) -> Result<(), ScoreError> {
    if pred_len < 2 {
        return Err(ScoreError::ShortHorizon(pred_len));
    }
    if t.checked_add(pred_len).is_none_or(|need| need > rows) {
        return Err(ScoreError::LongerThanData {
            seq_len: t,
            pred_len,
            rows,
            fix: None,
        });
    }
    Ok(())
}

/// The units left out (no outcome) per part (train, val, test), and per channel: the
/// train pass's (`train`, a channel each) and the scored windows' (`outcomes`, window by
/// window, channel by channel, in the windows' `parts`).
fn left_out_counts(
    train: &[usize],
    outcomes: &[Option<Outcome>],
    parts: &[Option<Part>],
    channels: usize,
) -> ([usize; 3], Vec<usize>) {
    let mut left_out = [train.len(), 0, 0];
    let mut by_channel = vec![0; channels];
    for &c in train {
        by_channel[c] += 1;
    }
    for (u, o) in outcomes.iter().enumerate() {
        let (k, c) = (u / channels, u % channels);
        if let (Some(p), None) = (parts[k], o) {
            left_out[p as usize] += 1;
            by_channel[c] += 1;
        }
    }
    (left_out, by_channel)
}

/// The windows from the first to the last whose horizon lies in val or test (none past
/// `all` where no window's does).
fn scored_windows(all: Range<usize>, part_of: impl Fn(usize) -> Option<Part>) -> Range<usize> {
    let scored = |w: &usize| matches!(part_of(*w), Some(p) if p != Part::Train);
    let first = all.clone().find(scored);
    let last = all.clone().rev().find(scored);
    match (first, last) {
        (Some(a), Some(b)) => a..b + 1,
        _ => all.end..all.end,
    }
}

/// Train units one task predicts at a time.
const PREDICT_PIECE: usize = 4096;

/// Per train unit, the values of the two outcomes the terciles are cut from (or the
/// forecaster's predictions of them), in train-unit order.
#[derive(Debug, Clone, Default)]
pub(super) struct TrainValues {
    pub(super) naive_mase: Vec<f64>,
    pub(super) vol_ratio: Vec<f64>,
}

// Written as the pair it was (a prepared folder's bytes stay the same).
impl serde::Serialize for TrainValues {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (&self.naive_mase, &self.vol_ratio).serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for TrainValues {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (naive_mase, vol_ratio) = <(Vec<f64>, Vec<f64>)>::deserialize(d)?;
        Ok(TrainValues {
            naive_mase,
            vol_ratio,
        })
    }
}

impl TrainValues {
    /// `other`'s values after these.
    pub(super) fn extend(&mut self, other: &TrainValues) {
        self.naive_mase.extend_from_slice(&other.naive_mase);
        self.vol_ratio.extend_from_slice(&other.vol_ratio);
    }
}

/// Channels whose train units one task sums (see [`Horizons::new`]): 4, so that a file of
/// 7 (the ETT sets) fits the forecaster on two cores, not one.
const TRAIN_GROUP: usize = 4;

/// One group of channels' train units: their outcomes' values, which they are, the
/// forecaster's sums over them, and the channel of each unit left out.
struct TrainGroup {
    train: TrainValues,
    units: Vec<(u32, u32)>,
    gram: Gram,
    left_out: Vec<usize>,
}

impl TrainGroup {
    fn new(t: usize, pred_len: usize) -> Self {
        TrainGroup {
            train: TrainValues::default(),
            units: Vec::new(),
            gram: Gram::new(t, pred_len),
            left_out: Vec::new(),
        }
    }

    /// The next group's units after these.
    fn absorb(&mut self, g: TrainGroup) {
        if self.units.is_empty() && self.left_out.is_empty() {
            // The first group: its sums as they are (so one group is summed as before).
            *self = g;
            return;
        }
        self.train.extend(&g.train);
        self.units.extend_from_slice(&g.units);
        self.gram.merge(g.gram);
        self.left_out.extend_from_slice(&g.left_out);
    }
}

impl Horizons {
    /// The forecaster's predictions of this file's train units (in `train` order) for
    /// the two tercile outcomes, appended to `naive_mase` and `vol_ratio`; the train units
    /// are not needed again, so they go.
    pub(super) fn predict_train(
        &mut self,
        f: &Forecaster,
        table: &Table,
        windows: &Windows,
        out: &mut TrainValues,
    ) {
        let t = self.seq_len;
        let values: Vec<_> = table.channels.iter().map(|c| c.values.as_f64()).collect();
        let units = std::mem::take(&mut self.train_units);
        // On every core, each piece written in place (10 million train units' predictions
        // collected first and copied after held 160 MB twice).
        let TrainValues {
            naive_mase: mase,
            vol_ratio: vol,
        } = out;
        let start = mase.len();
        mase.resize(start + units.len(), 0.0);
        vol.resize(start + units.len(), 0.0);
        mase[start..]
            .par_chunks_mut(PREDICT_PIECE)
            .zip(vol[start..].par_chunks_mut(PREDICT_PIECE))
            .zip(units.par_chunks(PREDICT_PIECE))
            .for_each(|((mase, vol), piece)| {
                let mut a = Vec::with_capacity(t + 1);
                for ((m, v), &(w, c)) in mase.iter_mut().zip(vol.iter_mut()).zip(piece) {
                    let (w, c) = (w as usize, c as usize);
                    let s = windows.start(w - windows.first);
                    // A unit with an outcome has a mean step > 0: its inputs exist.
                    let p = forecaster::inputs(&values[c][s..s + t], &mut a)
                        .map_or([0.0; 3], |_| f.predict(&a));
                    (*m, *v) = (p[1], p[2]);
                }
            });
    }

    /// The forecaster's predicted classes of this file's units of `scored` (None: not
    /// scored).
    pub(super) fn predict_scored(
        &self,
        f: &Forecaster,
        classes: &ForecastClasses,
        table: &Table,
        windows: &Windows,
    ) -> Vec<Option<[u8; 3]>> {
        let t = self.seq_len;
        let values: Vec<_> = table.channels.iter().map(|c| c.values.as_f64()).collect();
        // On every core, a window's channels at a time, in the units' order.
        self.scored
            .clone()
            .into_par_iter()
            .enumerate()
            .flat_map_iter(|(k, w)| {
                let mut a = Vec::with_capacity(t + 1);
                let values = &values;
                (0..self.channels).map(move |c| {
                    let u = k * self.channels + c;
                    if self.parts[k].is_none() || self.outcomes[u].is_none() {
                        return None;
                    }
                    let s = windows.start(w - windows.first);
                    forecaster::inputs(&values[c][s..s + t], &mut a)
                        .map(|_| classes.of(f.predict(&a)))
                })
            })
            .collect()
    }
}

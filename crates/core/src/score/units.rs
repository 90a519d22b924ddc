//! The units a data set's configurations are scored on: per file, which part each
//! window's horizon lies in and each unit's outcome ([`Horizons`]); over the data set, the
//! train terciles and each scored part's units as sequences with the null's shifts and the
//! bootstrap's blocks ([`Scorer`]). Made once: they depend on the windows, the horizon and
//! the split, not on the wavelet.

use super::column::{column_stats, ColumnStats, Info};
use super::forecaster::{self, ForecastClasses, Forecaster, Gram};
use super::information::XLnX;
use super::sequences::{cells, OFFSET};
use super::sequences::{Protocol, Sequences};
use super::{Borders, Outcome, Part, ScoreError, Split, Tally, Terciles};
use crate::data::{Table, Windows};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// Where one file's scored units are: which part each window's horizon lies in, and each
/// unit's outcome. Made once per data set; every configuration is scored on the same units.
#[derive(Debug, Clone)]
pub struct Horizons {
    pub borders: Borders,
    /// The windows' length, their stride and the horizon.
    pub seq_len: usize,
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
    pub(super) train: [Vec<f64>; 2],
    /// The train units with an outcome (window, channel), in the order of `train`.
    train_units: Vec<(u32, u32)>,
    /// The forecaster's normal equations over this file's train units (taken when the
    /// data set's forecaster is fit).
    gram: Option<Gram>,
    /// Units left out per part (a denominator of 0).
    pub left_out: [usize; 3],
    /// Units left out per channel, all parts together.
    pub left_out_by_channel: Vec<usize>,
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
        let values: Vec<_> = table.channels.iter().map(|c| c.values.as_f64()).collect();
        let outcome = |w: usize, c: usize| {
            let s = windows.start(w - windows.first);
            let x = &values[c][s..s + t];
            Outcome::of(x, &values[c][s + t..s + t + pred_len])
        };
        let all = windows.first..windows.first + windows.count;
        let channels = table.channels.len();
        let train_windows: Vec<usize> = all
            .clone()
            .filter(|&w| part_of(w) == Some(Part::Train))
            .collect();
        // The train units, a fixed group of channels per task, each group's sums merged
        // in group order: the forecaster's bits do not depend on the thread count.
        let groups: Vec<Range<usize>> = (0..channels)
            .step_by(TRAIN_GROUP)
            .map(|c| c..(c + TRAIN_GROUP).min(channels))
            .collect();
        let one_group = |cs: &Range<usize>| {
            let mut g = TrainGroup::new(t);
            let mut a = Vec::with_capacity(t + 1);
            for &w in &train_windows {
                let s = windows.start(w - windows.first);
                for c in cs.clone() {
                    let v = &values[c];
                    match outcome(w, c) {
                        Some(o) => {
                            g.train[0].push(o.naive_mase);
                            g.train[1].push(o.vol_ratio);
                            g.units.push((w as u32, c as u32));
                            let x = &v[s..s + t];
                            let h = &v[s + t..s + t + pred_len];
                            if let Some(scale) = forecaster::inputs(x, &mut a) {
                                if let Some(y) = forecaster::targets(x, h, scale, &o) {
                                    g.gram.add(&a, y);
                                }
                            }
                        }
                        None => g.left_out.push(c),
                    }
                }
            }
            g
        };
        let mut train = TrainGroup::new(t);
        // A few groups at a time: each holds (T+1)² sums.
        for wave in groups.chunks(2 * rayon::current_num_threads()) {
            let done: Vec<TrainGroup> = wave.par_iter().map(one_group).collect();
            for g in done {
                train.absorb(g);
            }
        }
        let mut left_out = [train.left_out.len(), 0, 0];
        let mut by_channel = vec![0; channels];
        for &c in &train.left_out {
            by_channel[c] += 1;
        }
        // The first and last window whose horizon lies in val or test.
        let first = all
            .clone()
            .find(|&w| matches!(part_of(w), Some(p) if p != Part::Train));
        let last = all
            .clone()
            .rev()
            .find(|&w| matches!(part_of(w), Some(p) if p != Part::Train));
        let scored = match (first, last) {
            (Some(a), Some(b)) => a..b + 1,
            _ => all.end..all.end,
        };
        let parts: Vec<Option<Part>> = scored.clone().map(part_of).collect();
        let outcomes: Vec<Option<Outcome>> = scored
            .clone()
            .into_par_iter()
            .enumerate()
            .flat_map_iter(|(k, w)| {
                let (outcome, part) = (&outcome, parts[k]);
                (0..channels).map(move |c| part.and_then(|_| outcome(w, c)))
            })
            .collect();
        for (u, o) in outcomes.iter().enumerate() {
            let (k, c) = (u / channels, u % channels);
            if let (Some(p), None) = (parts[k], o) {
                left_out[p as usize] += 1;
                by_channel[c] += 1;
            }
        }
        let TrainGroup {
            train,
            units: train_units,
            gram,
            ..
        } = train;
        Ok(Horizons {
            borders,
            seq_len: windows.seq_len,
            stride: windows.stride,
            pred_len,
            scored,
            channels,
            parts,
            slots: vec![u32::MAX; outcomes.len()],
            outcomes,
            train,
            train_units,
            gram: Some(gram),
            left_out,
            left_out_by_channel: by_channel,
        })
    }
}

/// Channels whose train units one task sums (see [`Horizons::new`]).
const TRAIN_GROUP: usize = 8;

/// One group of channels' train units: their outcomes' values, which they are, the
/// forecaster's sums over them, and the channel of each unit left out.
struct TrainGroup {
    train: [Vec<f64>; 2],
    units: Vec<(u32, u32)>,
    gram: Gram,
    left_out: Vec<usize>,
}

impl TrainGroup {
    fn new(t: usize) -> Self {
        TrainGroup {
            train: [Vec::new(), Vec::new()],
            units: Vec::new(),
            gram: Gram::new(t),
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
        self.train[0].extend_from_slice(&g.train[0]);
        self.train[1].extend_from_slice(&g.train[1]);
        self.units.extend_from_slice(&g.units);
        self.gram.merge(g.gram);
        self.left_out.extend_from_slice(&g.left_out);
    }
}

impl Horizons {
    /// The forecaster's predictions of this file's train units (in `train` order) for
    /// the two tercile outcomes, appended to `naive_mase` and `vol_ratio`; the train units
    /// are not needed again, so they go.
    fn predict_train(
        &mut self,
        f: &Forecaster,
        table: &Table,
        windows: &Windows,
        out: &mut [Vec<f64>; 2],
    ) {
        let t = self.seq_len;
        let values: Vec<_> = table.channels.iter().map(|c| c.values.as_f64()).collect();
        let mut a = Vec::with_capacity(t + 1);
        for (w, c) in std::mem::take(&mut self.train_units) {
            let (w, c) = (w as usize, c as usize);
            let s = windows.start(w - windows.first);
            // A unit with an outcome has a mean step > 0: its inputs exist.
            let p = forecaster::inputs(&values[c][s..s + t], &mut a)
                .map_or([0.0; 3], |_| f.predict(&a));
            out[0].push(p[1]);
            out[1].push(p[2]);
        }
    }

    /// The forecaster's predicted classes of this file's units of `scored` (None: not
    /// scored).
    fn predict_scored(
        &self,
        f: &Forecaster,
        classes: &ForecastClasses,
        table: &Table,
        windows: &Windows,
    ) -> Vec<Option<[u8; 3]>> {
        let t = self.seq_len;
        let values: Vec<_> = table.channels.iter().map(|c| c.values.as_f64()).collect();
        let mut a = Vec::with_capacity(t + 1);
        self.scored
            .clone()
            .enumerate()
            .flat_map(|(k, w)| (0..self.channels).map(move |c| (k, w, c)))
            .map(|(k, w, c)| {
                let u = k * self.channels + c;
                if self.parts[k].is_none() || self.outcomes[u].is_none() {
                    return None;
                }
                let s = windows.start(w - windows.first);
                forecaster::inputs(&values[c][s..s + t], &mut a).map(|_| classes.of(f.predict(&a)))
            })
            .collect()
    }
}

/// The units a data set's configurations are scored on: its files' horizons, the train
/// terciles, and each scored part's units as sequences (one per file × channel, in window
/// order) with the null's shifts and the bootstrap's blocks.
#[derive(Debug)]
pub struct Scorer {
    pub files: Vec<Horizons>,
    pub mase: Terciles,
    pub vol: Terciles,
    /// Scored units per part (train counted for the terciles).
    pub units: [usize; 3],
    pub protocol: Protocol,
    /// Val's and test's sequences.
    pub sequences: [Sequences; 2],
    /// How the series-only forecaster's predictions become classes.
    pub forecast_classes: ForecastClasses,
    /// Per scored part (val, test) and outcome, what the forecaster's predicted class
    /// tells about the outcome, against its null.
    pub forecaster_bits: [[Info; 3]; 2],
    xlnx: XLnX,
    /// Columns already counted, by part and content: a claim that does not depend on the
    /// wavelet (Time-LLM's trend word, the lags) is counted once per sweep.
    memo: Mutex<FxHashMap<(usize, usize, u128), Arc<ColumnStats>>>,
}

/// No unit's horizon lies in part `p`, said of the file whose part is longest.
fn no_units(files: &[Horizons], p: Part) -> ScoreError {
    match files.iter().max_by_key(|h| h.borders.part(p).len()) {
        Some(h) => ScoreError::NoUnits {
            part: p.name(),
            rows: h.borders.part(p).len(),
            seq_len: h.seq_len,
            stride: h.stride,
            pred_len: h.pred_len,
        },
        None => ScoreError::NoForecaster,
    }
}

/// Columns kept in the memo before it starts afresh (each holds a few kB).
const MEMO: usize = 4096;

impl Scorer {
    /// Units of the scored windows (val's and test's, and those straddling them), every
    /// file and channel: what each configuration computes features for.
    pub fn scored_units(&self) -> usize {
        self.files.iter().map(|h| h.scored.len() * h.channels).sum()
    }

    /// The units of `files`, each with the table and windows it was made from (the
    /// forecaster reads their values). Errors name the part left without units (a horizon
    /// too long for it, say) or too short to shift.
    pub fn new(
        data: Vec<(Horizons, &Table, &Windows)>,
        protocol: Protocol,
    ) -> Result<Scorer, ScoreError> {
        if protocol.null_draws == 0 {
            return Err(ScoreError::NoDraws);
        }
        // The forecaster, fit on every file's train units pooled.
        let mut pooled: Option<Gram> = None;
        let mut files = Vec::with_capacity(data.len());
        let mut sources = Vec::with_capacity(data.len());
        for (mut h, table, windows) in data {
            if let Some(g) = h.gram.take() {
                match &mut pooled {
                    Some(p) => p.merge(g),
                    None => pooled = Some(g),
                }
            }
            files.push(h);
            sources.push((table, windows));
        }
        if files
            .iter()
            .all(|h| h.train_units.is_empty() && h.left_out[0] == 0)
        {
            return Err(no_units(&files, Part::Train));
        }
        let forecaster = pooled
            .and_then(Forecaster::fit)
            .ok_or(ScoreError::NoForecaster)?;
        // The train units' outcomes, taken from the files (needed for the terciles only).
        let mut train = [Vec::new(), Vec::new()];
        for h in &mut files {
            let [m, v] = std::mem::take(&mut h.train);
            if train[0].is_empty() {
                train = [m, v];
            } else {
                train[0].extend_from_slice(&m);
                train[1].extend_from_slice(&v);
            }
        }
        let [mut mase_values, mut vol_values] = train;
        let mut units = [mase_values.len(), 0, 0];
        let (mase, vol) = (
            Terciles::of(&mut mase_values),
            Terciles::of(&mut vol_values),
        );
        drop((mase_values, vol_values));
        let mut train_predictions = [Vec::new(), Vec::new()];
        for (h, (table, windows)) in files.iter_mut().zip(&sources) {
            h.predict_train(&forecaster, table, windows, &mut train_predictions);
        }
        let [mut pm, mut pv] = train_predictions;
        let forecast_classes = ForecastClasses {
            naive_mase: Terciles::of(&mut pm),
            vol_ratio: Terciles::of(&mut pv),
        };
        drop((pm, pv));
        let predictions: Vec<Vec<Option<[u8; 3]>>> = files
            .iter()
            .zip(&sources)
            .map(|(h, (table, windows))| {
                h.predict_scored(&forecaster, &forecast_classes, table, windows)
            })
            .collect();
        // Each scored part's units in sequence order: file, channel, window.
        let mut sequences: [Sequences; 2] = Default::default();
        for (slot, part) in [Part::Val, Part::Test].into_iter().enumerate() {
            let mut ranges = Vec::new();
            let mut unit_cells = Vec::new();
            let mut span = 1;
            for (h, predicted) in files.iter_mut().zip(&predictions) {
                span = (h.seq_len + h.pred_len).div_ceil(h.stride.max(1));
                for c in 0..h.channels {
                    let start = unit_cells.len();
                    for (k, p) in h.parts.iter().enumerate() {
                        let u = k * h.channels + c;
                        if let (Some(p), Some(o)) = (p, h.outcomes[u]) {
                            if *p == part {
                                h.slots[u] = unit_cells.len() as u32;
                                let observed = [
                                    o.up as u8,
                                    mase.class(o.naive_mase) as u8,
                                    vol.class(o.vol_ratio) as u8,
                                ];
                                let guess = predicted[u].unwrap_or([0; 3]);
                                unit_cells.push(cells(observed, guess));
                            }
                        }
                    }
                    if unit_cells.len() > start {
                        ranges.push(start..unit_cells.len());
                    }
                }
            }
            units[part as usize] = unit_cells.len();
            sequences[slot] = Sequences::new(ranges, unit_cells, span, protocol);
        }
        for p in Part::ALL {
            if units[p as usize] == 0 {
                return Err(no_units(&files, p));
            }
        }
        for (slot, part) in [Part::Val, Part::Test].into_iter().enumerate() {
            let s = &sequences[slot];
            if !s.shiftable() {
                return Err(ScoreError::TooShortToShift {
                    part: part.name(),
                    longest: s.ranges.iter().map(|r| r.len()).max().unwrap_or(0),
                });
            }
        }
        let xlnx = XLnX::new(units[1].max(units[2]));
        // The forecaster's own bits: its predicted class as a claim about its outcome.
        let forecaster_bits = sequences.each_ref().map(|seqs| {
            std::array::from_fn(|t| {
                let kt = if t == 0 { 2 } else { 3 };
                let ids: Vec<u32> = seqs
                    .cells
                    .iter()
                    .map(|c| (c[t] as usize - OFFSET[t]) as u32 % kt)
                    .collect();
                column_stats(&ids, kt as usize, None, seqs, &xlnx).info[t]
            })
        });
        // Each unit's outcome is in its sequence's cells now.
        for h in &mut files {
            h.outcomes = Vec::new();
        }
        Ok(Scorer {
            files,
            mase,
            vol,
            xlnx,
            units,
            protocol,
            sequences,
            forecast_classes,
            forecaster_bits,
            memo: Mutex::new(FxHashMap::default()),
        })
    }

    /// A tally for one configuration's units, with the claims a researcher defined (they
    /// also see the prompts' `description`).
    pub fn tally(
        &self,
        bands: &[String],
        defined: &[Arc<super::DefinedClaim>],
        description: &str,
    ) -> Tally {
        let lengths = self
            .files
            .first()
            .map_or([0, 0], |h| [h.seq_len, h.pred_len]);
        Tally::new(
            bands,
            [self.units[1], self.units[2]],
            defined,
            description,
            lengths,
        )
    }

    /// The sequences of scored part `p` (val or test).
    pub fn part(&self, p: Part) -> Option<&Sequences> {
        match p {
            Part::Train => None,
            Part::Val => Some(&self.sequences[0]),
            Part::Test => Some(&self.sequences[1]),
        }
    }

    /// What claim column `ids` (categories `0..k`, designated outcome `target`) tells over
    /// part `p`, counted once per distinct column.
    pub(super) fn column_stats(
        &self,
        p: Part,
        ids: &[u32],
        k: usize,
        target: Option<super::Target>,
    ) -> Arc<ColumnStats> {
        let seqs = self.part(p).expect("a scored part");
        let bytes: Vec<u8> = ids.iter().flat_map(|i| i.to_le_bytes()).collect();
        let key = (
            p as usize,
            target.map_or(3, |t| t as usize),
            xxhash_rust::xxh3::xxh3_128(&bytes),
        );
        if let Some(s) = self.memo.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return s;
        }
        let stats = Arc::new(column_stats(ids, k, target, seqs, &self.xlnx));
        if let Ok(mut m) = self.memo.lock() {
            if m.len() >= MEMO {
                m.clear();
            }
            m.insert(key, stats.clone());
        }
        stats
    }
}

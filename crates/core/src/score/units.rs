//! The units a data set's configurations are scored on ([`Scorer`]): from every file's
//! [`Horizons`], the train terciles, the series-only forecaster and each scored part's
//! units as sequences with the null's shifts and the bootstrap's blocks. Made once: they
//! depend on the windows, the horizon and the split, not on the wavelet.

use super::cells::{cells, CLASSES};
use super::column::{column_stats, ColumnStats, Info};
use super::forecaster::{ForecastClasses, Forecaster, Gram};
use super::gain::{self, FileValues, GainUnits, UnitAt};
use super::horizons::TrainValues;
use super::information::XLnX;
use super::sequences::{Protocol, Sequences};
use super::{Horizons, Part, PartCounts, PerPart, ScoreError, ScoredPart, Tally, Terciles};
use crate::data::{Table, Windows};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex};

/// The units a data set's configurations are scored on: its files' horizons, the train
/// terciles, and each scored part's units as sequences (one per file × channel, in window
/// order) with the null's shifts and the bootstrap's blocks.
#[derive(Debug)]
pub struct Scorer {
    pub files: Vec<Horizons>,
    pub mase: Terciles,
    pub vol: Terciles,
    /// Scored units per part (train counted for the terciles).
    pub units: PartCounts,
    pub protocol: Protocol,
    /// Val's and test's sequences.
    pub sequences: PerPart<Sequences>,
    /// How the series-only forecaster's predictions become classes.
    pub forecast_classes: ForecastClasses,
    /// Per scored part (val, test) and outcome, what the forecaster's predicted class
    /// tells about the outcome, against its null.
    pub forecaster_bits: PerPart<[Info; 3]>,
    /// The train units the series-only forecasters were fit on, and one train window in
    /// how many they read (1: every train unit, [`super::forecaster::fit_every`]).
    pub fitted_units: usize,
    pub fit_every: usize,
    /// The series-only forecasters' coefficients.
    pub forecaster: Forecaster,
    /// The fit units (every k-th train window's units with an outcome).
    pub fit_units: usize,
    /// The horizon forecaster's residuals of the fit and scored units, for each row's
    /// forecast gain; None where they would take more than `gain::RESIDUALS_BUDGET`
    /// (`gain_withheld` says why).
    pub gain: Option<GainUnits>,
    pub gain_withheld: Option<String>,
    pub(super) xlnx: XLnX,
    /// Columns already counted, by part and content: a claim that does not depend on the
    /// wavelet (Time-LLM's trend word, the lags) is counted once per sweep.
    pub(super) memo: Mutex<FxHashMap<(usize, usize, u128), Arc<ColumnStats>>>,
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
            fix: None,
        },
        None => ScoreError::NoForecaster,
    }
}

/// What each file lends the residuals: its channels' values, where its windows start, and
/// its channels' σ.
fn file_values<'a>(files: &'a [Horizons], tables: &[&'a Table]) -> Vec<FileValues<'a>> {
    files
        .iter()
        .zip(tables)
        .map(|(h, table)| FileValues {
            values: table.channels.iter().map(|c| c.values.as_f64()).collect(),
            first_row: h.first_row,
            stride: h.stride,
            sigma: &h.sigma,
        })
        .collect()
}

/// Where each of a scored part's `n` units is, in sequence order (from the files' slots).
fn scored_at(files: &[Horizons], part: Part, n: usize) -> Vec<UnitAt> {
    let mut at = vec![
        UnitAt {
            file: 0,
            window: 0,
            channel: 0
        };
        n
    ];
    for (f, h) in files.iter().enumerate() {
        for (u, &slot) in h.slots.iter().enumerate() {
            let (k, c) = (u / h.channels, u % h.channels);
            if h.parts[k] != Some(part) || slot == u32::MAX {
                continue;
            }
            if let Some(a) = at.get_mut(slot as usize) {
                *a = UnitAt {
                    file: f as u32,
                    window: (h.scored.start + k - h.first_window) as u32,
                    channel: c as u32,
                };
            }
        }
    }
    at
}

/// The fit units' places (set in each file's `fit_slots`), and the residuals of the fit
/// and scored units where they fit the budget (else why not).
fn gain_units(
    files: &mut [Horizons],
    sources: &[(&Table, &Windows)],
    forecaster: &Forecaster,
    sequences: &PerPart<Sequences>,
    units: PartCounts,
) -> (usize, Option<GainUnits>, Option<String>) {
    let mut fit_at = Vec::new();
    for (f, (h, (_, windows))) in files.iter_mut().zip(sources).enumerate() {
        let channels = h.channels;
        for (i, &w) in h.fit_windows.iter().enumerate() {
            for c in 0..channels {
                let slot = &mut h.fit_slots[i * channels + c];
                if *slot != u32::MAX {
                    *slot = fit_at.len() as u32;
                    fit_at.push(UnitAt {
                        file: f as u32,
                        window: (w - windows.first) as u32,
                        channel: c as u32,
                    });
                }
            }
        }
    }
    let p = forecaster.horizon.pred_len;
    let all = fit_at.len() + units.val + units.test;
    let bytes = GainUnits::bytes(all, p);
    if bytes > gain::RESIDUALS_BUDGET {
        let why = format!(
            "the residuals of {all} units × {p} steps would take {} MB, over {} MB",
            bytes >> 20,
            gain::RESIDUALS_BUDGET >> 20
        );
        return (fit_at.len(), None, Some(why));
    }
    let scored_at = PerPart::from_fn(|p| scored_at(files, p.part(), units.of(p.part())));
    let tables: Vec<&Table> = sources.iter().map(|(t, _)| *t).collect();
    let values = file_values(files, &tables);
    let seq_len = files.first().map_or(0, |h| h.seq_len);
    let of = |at: &[UnitAt]| gain::residuals(&forecaster.horizon, &values, seq_len, at);
    let fit = of(&fit_at);
    let scored = scored_at.each_ref().map(|at| of(at));
    let k = files.first().map_or(1, |h| h.fit_stride);
    let units = GainUnits::new(fit, scored, k, sequences);
    (fit_at.len(), Some(units), None)
}

/// Columns kept in the memo before it starts afresh (each holds a few kB).
const MEMO: usize = 4096;

impl Scorer {
    /// Where each unit of a scored part is, in sequence order.
    pub fn scored_at(&self, part: Part) -> Vec<UnitAt> {
        scored_at(&self.files, part, self.units.of(part))
    }

    /// The forecaster's predicted classes (direction, naive_mase and vol_ratio terciles)
    /// of a scored part's units, in sequence order.
    pub fn predicted_classes(&self, part: Part) -> Vec<[u8; 3]> {
        let scored = ScoredPart::of(part).unwrap_or(ScoredPart::Val);
        self.sequences
            .of(scored)
            .cells
            .iter()
            .map(super::cells::predicted)
            .collect()
    }

    /// The horizon forecaster's MSE over a scored part's units, standardised per channel
    /// as the forecast gain's (docs/score.md#forecast-gain-beyond-the-series), computed a
    /// piece at a time from the coefficients: `tables` are the files the scorer was made
    /// from, in order.
    pub fn series_mse(&self, tables: &[&Table], part: Part) -> f64 {
        let values = file_values(&self.files, tables);
        let seq_len = self.files.first().map_or(0, |h| h.seq_len);
        gain::mse(
            &self.forecaster.horizon,
            &values,
            seq_len,
            &self.scored_at(part),
        )
    }

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
        protocol.check()?;
        // The forecaster, fit on every file's train units pooled.
        let Pooled {
            mut files,
            sources,
            gram: pooled,
        } = pool(data);
        if files
            .iter()
            .all(|h| h.train.naive_mase.is_empty() && h.left_out[0] == 0)
        {
            return Err(no_units(&files, Part::Train));
        }
        let forecaster = pooled
            .and_then(Forecaster::fit)
            .ok_or(ScoreError::NoForecaster)?;
        let mut train = take_train_outcomes(&mut files);
        let mut units = PartCounts {
            train: train.naive_mase.len(),
            ..PartCounts::default()
        };
        let mase = Terciles::of(&mut train.naive_mase);
        let vol = Terciles::of(&mut train.vol_ratio);
        drop(train);
        let fitted_units = files.iter().map(|h| h.train_units.len()).sum();
        let fit_every = files.first().map_or(1, |h| h.fit_every);
        let forecast_classes = forecast_classes(&mut files, &sources, &forecaster);
        let predictions: Vec<Vec<Option<[u8; 3]>>> = files
            .iter()
            .zip(&sources)
            .map(|(h, (table, windows))| {
                h.predict_scored(&forecaster, &forecast_classes, table, windows)
            })
            .collect();
        // Each scored part's units in sequence order: file, channel, window.
        let mut sequences: PerPart<Sequences> = Default::default();
        for (seqs, part) in sequences.iter_mut().zip([Part::Val, Part::Test]) {
            *seqs = part_sequences(&mut files, &predictions, part, &mase, &vol, protocol);
            *units.of_mut(part) = seqs.cells.len();
        }
        for p in Part::ALL {
            if units.of(p) == 0 {
                return Err(no_units(&files, p));
            }
        }
        check_shiftable(&sequences)?;
        let xlnx = XLnX::new(units.val.max(units.test));
        let forecaster_bits = sequences
            .each_ref()
            .map(|seqs| forecaster_bits(seqs, &xlnx));
        let (fit_units, gain, gain_withheld) =
            gain_units(&mut files, &sources, &forecaster, &sequences, units);
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
            fitted_units,
            fit_every,
            forecaster,
            fit_units,
            gain,
            gain_withheld,
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
        // The fit units are counted only where the gain is measured.
        let fit = if self.gain.is_some() {
            self.fit_units
        } else {
            0
        };
        Tally::new(
            bands,
            PerPart {
                val: self.units.val,
                test: self.units.test,
            },
            fit,
            defined,
            description,
            lengths,
        )
    }

    /// The sequences of scored part `p` (val or test).
    pub fn part(&self, p: Part) -> Option<&Sequences> {
        match p {
            Part::Train => None,
            Part::Val => Some(&self.sequences.val),
            Part::Test => Some(&self.sequences.test),
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

/// The files' horizons, their tables and windows, and their train units' Gram matrices
/// pooled.
struct Pooled<'t> {
    files: Vec<Horizons>,
    sources: Vec<(&'t Table, &'t Windows)>,
    /// None where no file has train units.
    gram: Option<Gram>,
}

/// The files of `data` apart from their Gram matrices, and those pooled.
fn pool<'t>(data: Vec<(Horizons, &'t Table, &'t Windows)>) -> Pooled<'t> {
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
    Pooled {
        files,
        sources,
        gram: pooled,
    }
}

/// The terciles of the forecaster's predicted naive_mase and vol_ratio over the train
/// units: the classes its predictions are read in.
fn forecast_classes(
    files: &mut [Horizons],
    sources: &[(&Table, &Windows)],
    forecaster: &Forecaster,
) -> ForecastClasses {
    let mut train_predictions = TrainValues::default();
    for (h, (table, windows)) in files.iter_mut().zip(sources) {
        h.predict_train(forecaster, table, windows, &mut train_predictions);
    }
    let TrainValues {
        naive_mase: mut pm,
        vol_ratio: mut pv,
    } = train_predictions;
    ForecastClasses {
        naive_mase: Terciles::of(&mut pm),
        vol_ratio: Terciles::of(&mut pv),
    }
}

/// The train units' outcomes (naive_mase, vol_ratio), taken from the files: needed for the
/// terciles only.
fn take_train_outcomes(files: &mut [Horizons]) -> TrainValues {
    let mut train = TrainValues::default();
    for h in files {
        let values = std::mem::take(&mut h.train);
        if train.naive_mase.is_empty() {
            train = values;
        } else {
            train.extend(&values);
        }
    }
    train
}

/// `part`'s units in sequence order (file, channel, window), each its observed classes
/// (against the train terciles `mase` of naive_mase and `vol` of vol_ratio) beside the
/// forecaster's `predictions`; each unit's slot in its file is set.
fn part_sequences(
    files: &mut [Horizons],
    predictions: &[Vec<Option<[u8; 3]>>],
    part: Part,
    mase: &Terciles,
    vol: &Terciles,
    protocol: Protocol,
) -> Sequences {
    let mut ranges = Vec::new();
    let mut unit_cells = Vec::new();
    let mut span = 1;
    for (h, predicted) in files.iter_mut().zip(predictions) {
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
    Sequences::new(ranges, unit_cells, span, protocol)
}

/// Each scored part's sequences can be shifted against each other (the null's draws).
fn check_shiftable(sequences: &PerPart<Sequences>) -> Result<(), ScoreError> {
    for (s, part) in sequences.iter().zip([Part::Val, Part::Test]) {
        if !s.shiftable() {
            return Err(ScoreError::TooShortToShift {
                part: part.name(),
                fix: None,
                longest: s.ranges.iter().map(|r| r.len()).max().unwrap_or(0),
            });
        }
    }
    Ok(())
}

/// The forecaster's own bits over `seqs`: its predicted class as a claim about each
/// outcome.
fn forecaster_bits(seqs: &Sequences, xlnx: &XLnX) -> [Info; 3] {
    std::array::from_fn(|t| {
        let ids: Vec<u32> = seqs
            .cells
            .iter()
            .map(|c| u32::from(super::cells::predicted(c)[t]))
            .collect();
        column_stats(&ids, usize::from(CLASSES[t]), None, seqs, xlnx)
            .info
            .0[t]
    })
}

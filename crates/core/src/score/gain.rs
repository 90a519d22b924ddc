//! Forecast gain beyond the series (docs/score.md#forecast-gain-beyond-the-series): how
//! much a configuration's claims lower the error of a forecaster that reads only the
//! series, in the units of Time-LLM's tables.
//!
//! The horizon forecaster (`forecaster::HorizonForecaster`) predicts each unit's P steps
//! from its window; its residuals `r = y - ŷ0` are made once per data set ([`GainUnits`]).
//! Per configuration the claims a row scores become one indicator column per category seen
//! on the fit units (every k-th train window), a small ridge regression fits the residuals
//! on them, and its correction is scored on val and test: per unit a few products over P,
//! never a refit. The bootstrap resamples the scored units with the score's blocks, so a
//! row's replicates are paired with every other row's and with the baseline's.

use super::forecaster::{self, cholesky, solve, HorizonForecaster};
use super::information::interval;
use super::sequences::Sequences;
use super::split::{PerPart, ScoredPart};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

pub use super::forecaster::{fit_stride, FIT_SPACING};

/// A claim with more categories on the fit units than this is left out of the fit: its
/// columns would be as many as its units (`{{ last }}`), a lookup table, not a reading.
pub const MAX_CATEGORIES: usize = 64;

/// The most memory the residuals may take (val's, test's and the fit units', P values
/// each); past it the gain is not computed and the sweep says so.
pub const RESIDUALS_BUDGET: usize = 512 << 20;

/// The horizon forecaster's residuals of one group of units (the fit units, or a scored
/// part's in sequence order): P values per unit, and each unit's `s / σ_c`, the factor
/// that maps a target's error back to the data standardised as Time-LLM's loaders do.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Residuals {
    pub pred_len: usize,
    pub r: Vec<f64>,
    pub scale: Vec<f64>,
}

impl Residuals {
    pub fn units(&self) -> usize {
        self.scale.len()
    }

    fn of(&self, u: usize) -> &[f64] {
        &self.r[u * self.pred_len..(u + 1) * self.pred_len]
    }

    /// Unit `u`'s squared error over its steps, standardised: `(s/σ_c)² Σ r²`.
    fn squared(&self, u: usize) -> f64 {
        let w = self.scale[u];
        w * w * self.of(u).iter().map(|v| v * v).sum::<f64>()
    }
}

/// Where a unit's values are: its file, its window (counted from the file's window 0)
/// and its channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitAt {
    pub file: u32,
    pub window: u32,
    pub channel: u32,
}

/// What one file lends the residuals: its channels' values, where window 0 starts and
/// the stride, and each channel's `σ_c`.
pub struct FileValues<'a> {
    pub values: Vec<std::borrow::Cow<'a, [f64]>>,
    pub first_row: usize,
    pub stride: usize,
    pub sigma: &'a [f64],
}

/// The residuals of `at` (in that order) under `f`, windows of `seq_len`, computed in
/// blocks on every core, each written in place (the residuals are the sweep's largest
/// per-unit store: never held twice).
pub fn residuals(
    f: &HorizonForecaster,
    files: &[FileValues<'_>],
    seq_len: usize,
    at: &[UnitAt],
) -> Residuals {
    let p = f.pred_len;
    const PIECE: usize = 256;
    let mut out = Residuals {
        pred_len: p,
        r: vec![0.0; at.len() * p],
        scale: vec![0.0; at.len()],
    };
    let dim = seq_len + 1;
    out.r
        .par_chunks_mut((PIECE * p).max(1))
        .zip(out.scale.par_chunks_mut(PIECE))
        .zip(at.par_chunks(PIECE))
        .for_each(|((r, scale), piece)| {
            let mut a = Vec::with_capacity(dim);
            let mut inputs = Vec::with_capacity(piece.len() * dim);
            let mut y = Vec::with_capacity(p);
            for (u, (r, scale)) in piece.iter().zip(r.chunks_exact_mut(p.max(1)).zip(scale)) {
                let file = &files[u.file as usize];
                let v = &file.values[u.channel as usize];
                let s = file.first_row + u.window as usize * file.stride;
                let x = &v[s..s + seq_len];
                let h = &v[s + seq_len..s + seq_len + p];
                // A scored or fit unit has an outcome, so a mean step > 0 and inputs.
                let step = forecaster::inputs(x, &mut a).unwrap_or(f64::NAN);
                if a.len() != dim {
                    a.clear();
                    a.resize(dim, f64::NAN);
                }
                inputs.extend_from_slice(&a);
                forecaster::horizon_targets(x, h, step, &mut y);
                r.copy_from_slice(&y);
                *scale = step / file.sigma[u.channel as usize];
            }
            let mut predicted = vec![0.0; r.len()];
            f.predict_into(&inputs, &mut predicted);
            for (t, yhat) in r.iter_mut().zip(&predicted) {
                *t -= yhat;
            }
        });
    out
}

/// The MSE of `f` over the units `at` (P steps each, standardised per channel), a piece
/// at a time: what the residuals would give, without holding them.
pub fn mse(f: &HorizonForecaster, files: &[FileValues<'_>], seq_len: usize, at: &[UnitAt]) -> f64 {
    const PIECE: usize = 1 << 14;
    let squared: f64 = at
        .chunks(PIECE)
        .map(|piece| {
            let r = residuals(f, files, seq_len, piece);
            (0..r.units()).map(|u| r.squared(u)).sum::<f64>()
        })
        .sum();
    squared / (at.len() * f.pred_len).max(1) as f64
}

/// The std (numpy's, ddof 0) of a channel's rows in the train part, the scale Time-LLM's
/// loaders divide by; 1 where it is 0, as scikit-learn's `StandardScaler` does.
pub fn train_sigma(rows: &[f64]) -> f64 {
    let n = rows.len() as f64;
    if rows.is_empty() {
        return 1.0;
    }
    let mean = rows.iter().sum::<f64>() / n;
    let var = rows.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    let sd = var.sqrt();
    if sd > 0.0 && sd.is_finite() {
        sd
    } else {
        1.0
    }
}

/// The series-only forecaster's errors over one scored part, the same for every row.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct SeriesErrors {
    mse: f64,
    mae: f64,
    /// Σ squared over each bootstrap replicate's units.
    boot: Vec<f64>,
}

/// The units a configuration's forecast gain is measured on: the fit units' residuals
/// (every k-th train window's, file by file, window by window, channel by channel) and
/// each scored part's (in sequence order), made once per data set.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GainUnits {
    pub fit: Residuals,
    pub scored: PerPart<Residuals>,
    pub fit_stride: usize,
    series: PerPart<SeriesErrors>,
}

impl GainUnits {
    /// From the residuals, with each scored part's sequences (for the bootstrap).
    pub fn new(
        fit: Residuals,
        scored: PerPart<Residuals>,
        fit_stride: usize,
        sequences: &PerPart<Sequences>,
    ) -> GainUnits {
        let series = scored
            .each_ref()
            .zip(sequences.each_ref())
            .map(|(part, seqs)| {
                let squared: Vec<f64> = (0..part.units()).map(|u| part.squared(u)).collect();
                let absolute: f64 = (0..part.units())
                    .map(|u| part.scale[u] * part.of(u).iter().map(|v| v.abs()).sum::<f64>())
                    .sum();
                let cells = (part.units() * part.pred_len).max(1) as f64;
                SeriesErrors {
                    mse: squared.iter().sum::<f64>() / cells,
                    mae: absolute / cells,
                    boot: replicate_sums(seqs, &squared),
                }
            });
        GainUnits {
            fit,
            scored,
            fit_stride,
            series,
        }
    }

    /// The bytes `units` residuals of `pred_len` steps take.
    pub fn bytes(units: usize, pred_len: usize) -> usize {
        units
            .saturating_mul(pred_len.saturating_add(1))
            .saturating_mul(8)
    }
}

/// One claim's categories on the fit units and on each scored part: per unit a category
/// id, and the names the ids stand for.
#[derive(Debug, Clone, Copy)]
pub struct ClaimColumns<'a> {
    pub name: &'a str,
    pub fit: (&'a [u32], &'a [String]),
    pub parts: PerPart<(&'a [u32], &'a [String])>,
}

/// The forecast gain over one scored part (docs/score.md#forecast-gain-beyond-the-series).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ForecastGain {
    /// The series-only forecaster's error (standardised as Time-LLM's tables).
    pub mse_series: f64,
    /// With the claims' correction.
    pub mse_with_claims: f64,
    pub mae_series: f64,
    pub mae_with_claims: f64,
    /// `1 - mse_with_claims / mse_series`, a fraction.
    pub gain: f64,
    /// Its 95% bootstrap interval.
    pub interval: [f64; 2],
    /// The gain in each bootstrap replicate (the score's blocks: paired with every row's).
    pub boot: Vec<f64>,
    /// The fit's columns (categories of the claims kept).
    pub columns: usize,
    /// Claims left out of the fit, each with why.
    pub left_out: Vec<String>,
}

/// The gain of the claims `claims` over val and test.
pub fn gain(
    units: &GainUnits,
    sequences: &PerPart<Sequences>,
    claims: &[ClaimColumns<'_>],
) -> PerPart<ForecastGain> {
    let p = units.fit.pred_len;
    let (kept, k, left_out) = kept_claims(claims);
    let (mut dtd, dtr) = normal_equations(units, &kept, k);
    let beta = ridge(&mut dtd, &dtr, k, p);
    PerPart::from_fn(|scored| {
        let (part, series, seqs) = (
            units.scored.of(scored),
            units.series.of(scored),
            sequences.of(scored),
        );
        let cols = scored_columns(&kept, scored);
        let groups = Groups::of(&cols, part.units());
        // Each group's correction: the sum of its columns' coefficients.
        let corrections: Vec<f64> = groups
            .columns
            .iter()
            .flat_map(|cols| {
                let mut g = vec![0.0; p];
                for &c in cols.iter().flatten() {
                    for (o, b) in g.iter_mut().zip(&beta[c as usize * p..][..p]) {
                        *o += b;
                    }
                }
                g
            })
            .collect();
        let per_unit: Vec<(f64, f64)> = (0..part.units())
            .into_par_iter()
            .with_min_len(1024)
            .map(|u| {
                let g = &corrections[groups.of_unit[u] as usize * p..][..p];
                let (sq, abs) = errors(g, part.of(u));
                let w = part.scale[u];
                (w * w * sq, w * abs)
            })
            .collect();
        let squared: Vec<f64> = per_unit.iter().map(|e| e.0).collect();
        let cells = (part.units() * p).max(1) as f64;
        let mse = squared.iter().sum::<f64>() / cells;
        let boot: Vec<f64> = replicate_sums(seqs, &squared)
            .iter()
            .zip(&series.boot)
            .map(|(with, without)| 1.0 - with / without)
            .collect();
        ForecastGain {
            mse_series: series.mse,
            mse_with_claims: mse,
            mae_series: series.mae,
            mae_with_claims: per_unit.iter().map(|e| e.1).sum::<f64>() / cells,
            gain: 1.0 - mse / series.mse,
            interval: interval(&boot),
            boot,
            columns: k,
            left_out: left_out.clone(),
        }
    })
}

/// The claims kept in the fit, each with its first column, the columns in all, and the
/// claims left out (over [`MAX_CATEGORIES`] categories on the fit units), each with why.
#[allow(clippy::type_complexity)]
fn kept_claims<'c, 'a>(
    claims: &'c [ClaimColumns<'a>],
) -> (Vec<(&'c ClaimColumns<'a>, usize)>, usize, Vec<String>) {
    // The columns: each kept claim's categories seen on the fit units.
    let mut left_out = Vec::new();
    let mut kept: Vec<(&ClaimColumns<'_>, usize)> = Vec::new();
    let mut k = 0;
    for c in claims {
        let categories = c.fit.1.len();
        if categories > MAX_CATEGORIES {
            left_out.push(format!(
                "{}: {categories} categories on the fit units, over {MAX_CATEGORIES}",
                c.name
            ));
            continue;
        }
        kept.push((c, k));
        k += categories;
    }
    (kept, k, left_out)
}

/// DᵀD and Dᵀr of the fit units' claim columns `kept` (`k` columns) against their
/// residuals, summed group by group of units that share their categories.
fn normal_equations(
    units: &GainUnits,
    kept: &[(&ClaimColumns<'_>, usize)],
    k: usize,
) -> (Vec<f64>, Vec<f64>) {
    let p = units.fit.pred_len;
    // The fit units grouped by their categories, each group's count and residual sum.
    let fit_cols: Vec<Vec<Option<u32>>> = kept
        .iter()
        .map(|(c, offset)| {
            c.fit
                .0
                .iter()
                .map(|&id| Some(*offset as u32 + id))
                .collect()
        })
        .collect();
    let fit_groups = Groups::of(&fit_cols, units.fit.units());
    let mut sums = vec![0.0; fit_groups.columns.len() * p];
    let mut counts = vec![0usize; fit_groups.columns.len()];
    for (u, &g) in fit_groups.of_unit.iter().enumerate() {
        counts[g as usize] += 1;
        for (s, v) in sums[g as usize * p..][..p].iter_mut().zip(units.fit.of(u)) {
            *s += v;
        }
    }
    // DᵀD and Dᵀr from the groups.
    let mut dtd = vec![0.0; k * k];
    let mut dtr = vec![0.0; k * p];
    for (g, cols) in fit_groups.columns.iter().enumerate() {
        let n = counts[g] as f64;
        for &a in cols.iter().flatten() {
            for &b in cols.iter().flatten() {
                dtd[a as usize * k + b as usize] += n;
            }
            for (o, v) in dtr[a as usize * p..][..p]
                .iter_mut()
                .zip(&sums[g * p..][..p])
            {
                *o += v;
            }
        }
    }
    (dtd, dtr)
}

/// Each scored unit's category, per kept claim, as its fit column (None: unseen on the
/// fit units, adds 0).
fn scored_columns(
    kept: &[(&ClaimColumns<'_>, usize)],
    scored: ScoredPart,
) -> Vec<Vec<Option<u32>>> {
    kept.iter()
        .map(|(c, offset)| {
            let index: FxHashMap<&str, u32> = c
                .fit
                .1
                .iter()
                .enumerate()
                .map(|(j, n)| (n.as_str(), (*offset + j) as u32))
                .collect();
            let (ids, names) = *c.parts.of(scored);
            let to_fit: Vec<Option<u32>> = names
                .iter()
                .map(|n| index.get(n.as_str()).copied())
                .collect();
            ids.iter().map(|&id| to_fit[id as usize]).collect()
        })
        .collect()
}

/// `Σ (g - r)²` and `Σ |g - r|` over a unit's steps, in four lanes the compiler keeps in
/// vector registers (a single running sum is a chain of dependent adds: this is each
/// row's per-unit work, over every scored unit).
fn errors(g: &[f64], r: &[f64]) -> (f64, f64) {
    let (mut sq, mut abs) = ([0.0f64; 4], [0.0f64; 4]);
    let (g4, r4) = (g.chunks_exact(4), r.chunks_exact(4));
    let tail = g4.remainder().iter().zip(r4.remainder());
    for (g, r) in g4.zip(r4) {
        for l in 0..4 {
            let e = g[l] - r[l];
            sq[l] += e * e;
            abs[l] += e.abs();
        }
    }
    for (l, (g, r)) in tail.enumerate() {
        let e = g - r;
        sq[l] += e * e;
        abs[l] += e.abs();
    }
    (
        (sq[0] + sq[1]) + (sq[2] + sq[3]),
        (abs[0] + abs[1]) + (abs[2] + abs[3]),
    )
}

/// `β` (k × P, row-major) with `(DᵀD + μ I) β = Dᵀr`, `μ = 1e-3 · trace(DᵀD) / k`.
fn ridge(dtd: &mut [f64], dtr: &[f64], k: usize, p: usize) -> Vec<f64> {
    if k == 0 {
        return Vec::new();
    }
    let trace: f64 = (0..k).map(|i| dtd[i * k + i]).sum();
    let mu = 1e-3 * trace / k as f64;
    for i in 0..k {
        dtd[i * k + i] += mu;
    }
    let Some(l) = cholesky(dtd, k) else {
        // No fit unit at all (every diagonal 0): no correction.
        return vec![0.0; k * p];
    };
    let mut beta = vec![0.0; k * p];
    for step in 0..p {
        let column: Vec<f64> = (0..k).map(|i| dtr[i * p + step]).collect();
        for (i, v) in solve(&l, k, &column).into_iter().enumerate() {
            beta[i * p + step] = v;
        }
    }
    beta
}

/// Units grouped by their columns (one per claim, None where a category has no column):
/// each group's columns, and each unit's group.
struct Groups {
    columns: Vec<Vec<Option<u32>>>,
    of_unit: Vec<u32>,
}

impl Groups {
    /// Claim by claim, each unit's group and the claim's column as a slot in a table of
    /// (group, column): no hashing per unit (a hash of the whole key per unit was half a
    /// row's time).
    fn of(cols: &[Vec<Option<u32>>], units: usize) -> Groups {
        let mut of_unit = vec![0u32; units];
        let mut columns: Vec<Vec<Option<u32>>> = vec![Vec::new()];
        for col in cols {
            let code = |c: &Option<u32>| c.map_or(0, |v| v as usize + 1);
            let radix = col.iter().map(code).max().unwrap_or(0) + 1;
            let mut table = vec![u32::MAX; columns.len() * radix];
            let mut next: Vec<Vec<Option<u32>>> = Vec::new();
            for (g, c) in of_unit.iter_mut().zip(col) {
                let slot = *g as usize * radix + code(c);
                if table[slot] == u32::MAX {
                    table[slot] = next.len() as u32;
                    let mut key = columns[*g as usize].clone();
                    key.push(*c);
                    next.push(key);
                }
                *g = table[slot];
            }
            columns = next;
        }
        Groups { columns, of_unit }
    }
}

/// Each bootstrap replicate's sum of `values` (one per unit, sequence order) over its
/// blocks' units, from each sequence's running sums.
fn replicate_sums(seqs: &Sequences, values: &[f64]) -> Vec<f64> {
    let mut running = Vec::with_capacity(values.len() + seqs.ranges.len());
    let mut base = Vec::with_capacity(seqs.ranges.len());
    for r in &seqs.ranges {
        base.push(running.len());
        let mut acc = 0.0;
        running.push(acc);
        for v in &values[r.clone()] {
            acc += v;
            running.push(acc);
        }
    }
    seqs.blocks
        .iter()
        .map(|pieces| {
            pieces
                .iter()
                .map(|piece| {
                    let b = base[piece.seq as usize];
                    running[b + piece.end as usize] - running[b + piece.start as usize]
                })
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Protocol;

    /// Two sequences of units whose residuals are shifted by their category: the fit
    /// finds the shift, and the gain is what removing it removes.
    #[test]
    fn a_claim_that_names_a_shift_removes_it() {
        let p = 3;
        let n = 400;
        let mut x = 11u64;
        let mut noise = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.2
        };
        let category = |u: usize| (u / 7 % 2) as u32;
        let residual = |u: usize, noise: &mut dyn FnMut() -> f64| -> Vec<f64> {
            (0..p)
                .map(|_| if category(u) == 1 { 1.0 } else { -1.0 } + noise())
                .collect()
        };
        let make = |noise: &mut dyn FnMut() -> f64| Residuals {
            pred_len: p,
            r: (0..n).flat_map(|u| residual(u, noise)).collect(),
            scale: vec![1.0; n],
        };
        let fit = make(&mut noise);
        let scored = PerPart {
            val: make(&mut noise),
            test: make(&mut noise),
        };
        let ranges = vec![0..n / 2, n / 2..n];
        let seqs = PerPart::from_fn(|_| {
            Sequences::new(ranges.clone(), vec![[0, 0, 0]; n], 10, Protocol::default())
        });
        let units = GainUnits::new(fit, scored, 1, &seqs);
        let ids: Vec<u32> = (0..n).map(category).collect();
        let names = vec!["down".to_string(), "up".to_string()];
        let claim = ClaimColumns {
            name: "shift",
            fit: (&ids, &names),
            parts: PerPart::from_fn(|_| (&ids[..], &names[..])),
        };
        let PerPart { val, test } = gain(&units, &seqs, &[claim]);
        // Residuals of ±1 + noise of variance 0.04/12: the claim removes nearly all.
        assert!(val.gain > 0.99 && test.gain > 0.99, "{val:?}");
        assert!(val.interval[0] > 0.99, "{:?}", val.interval);
        assert!(val.mse_with_claims < val.mse_series / 100.0);
        assert_eq!(val.boot.len(), Protocol::default().bootstrap);
        assert_eq!(val.columns, 2);
        // No claim: no correction, no gain.
        let none = gain(&units, &seqs, &[]).val;
        assert_eq!(none.gain, 0.0);
        assert_eq!(none.mse_with_claims, none.mse_series);
        // A claim of too many categories is left out, with why.
        let many: Vec<String> = (0..n).map(|u| u.to_string()).collect();
        let each: Vec<u32> = (0..n as u32).collect();
        let lookup = ClaimColumns {
            name: "last",
            fit: (&each, &many),
            parts: PerPart::from_fn(|_| (&each[..], &many[..])),
        };
        let out = gain(&units, &seqs, &[lookup]).val;
        assert_eq!(out.gain, 0.0);
        assert_eq!(out.left_out.len(), 1);
        assert!(
            out.left_out[0].starts_with("last: 400 categories"),
            "{:?}",
            out.left_out
        );
    }

    #[test]
    fn the_fit_stride_follows_the_window() {
        assert_eq!(fit_stride(24, 1), 1);
        assert_eq!(fit_stride(32, 1), 1);
        assert_eq!(fit_stride(36, 1), 2);
        assert_eq!(fit_stride(96, 1), 3);
        assert_eq!(fit_stride(336, 1), 11);
        assert_eq!(fit_stride(512, 1), 16);
        // At a stride, fit windows at most T/32 rows apart: windows that far apart all.
        assert_eq!(fit_stride(512, 4), 4);
        assert_eq!(fit_stride(512, 16), 1);
        assert_eq!(fit_stride(64, 80), 1);
    }

    #[test]
    fn sigma_is_numpys_std_and_one_for_a_constant() {
        let s = train_sigma(&[1.0, 2.0, 3.0, 4.0]);
        assert!((s - 1.118033988749895).abs() < 1e-15);
        assert_eq!(train_sigma(&[5.0; 4]), 1.0);
    }
}

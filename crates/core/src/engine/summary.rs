//! Band summaries: the small per-series result every engine returns, from which every
//! feature is a pure function (see `features`). This is the only thing that crosses from
//! a device back to the host in the prompt pipeline.

use crate::numeric::real::Real;
use crate::numeric::sums;
use crate::stats::SeriesStats;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// Per-band values of one series, inline up to level 4 (five bands): a series' summary
/// then costs no allocation of its own (the sliding path makes a summary and a bound for
/// every series). Deeper plans spill to the heap.
pub type Bands<T> = SmallVec<[T; 5]>;

/// Moments of one band's coefficients.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct BandSummary {
    /// Σ c².
    pub energy: f64,
    /// Mean of the coefficients.
    pub mean: f64,
    /// Σ (c - mean)², from the sums about the first coefficient (`from_sums`).
    pub m2: f64,
    pub first: f64,
    pub last: f64,
    pub len: usize,
}

impl BandSummary {
    #[inline(always)]
    pub fn of<T: Real>(c: &[T]) -> Self {
        let len = c.len();
        if len == 0 {
            return BandSummary::default();
        }
        let (first, last) = (c[0].to_f64(), c[len - 1].to_f64());
        let (dev, dev2) = sums::sum_and_squares_by(c, |v| v.to_f64() - first);
        BandSummary::from_sums(first, dev, dev2, last, len)
    }

    /// The summary of `len` coefficients from their first and last and their sums about
    /// the first: `dev = Σ (c - first)`, `dev2 = Σ (c - first)²`.
    ///
    /// One pass, so that the moments are summed as the coefficients are made (a second
    /// pass over them was a sixth of the transform). About one of the values, not about
    /// zero: the rounding error of `m2 = dev2 - dev²/len` is then that of the sums times
    /// `1 + z²`, `z` the first's distance from the mean in stds, where about zero it grows
    /// with `mean²/variance` (an unnormalised series' offset); and equal values give
    /// exactly 0. The energy `Σ c² = m2 + len · mean²` adds two terms that are never
    /// negative.
    #[inline(always)]
    pub fn from_sums(first: f64, dev: f64, dev2: f64, last: f64, len: usize) -> Self {
        if len == 0 {
            return BandSummary::default();
        }
        let n = len as f64;
        let d = dev / n;
        let (mean, m2) = (first + d, (dev2 - dev * d).max(0.0));
        BandSummary {
            energy: m2 + n * mean * mean,
            mean,
            m2,
            first,
            last,
            len,
        }
    }

    /// Bessel-corrected standard deviation; 0 for a single coefficient.
    pub fn std(&self) -> f64 {
        if self.len < 2 {
            0.0
        } else {
            (self.m2 / (self.len - 1) as f64).sqrt()
        }
    }

    /// Mean of the first differences, `(last - first) / (len - 1)`; 0 for one coefficient.
    pub fn trend(&self) -> f64 {
        if self.len < 2 {
            0.0
        } else {
            (self.last - self.first) / (self.len - 1) as f64
        }
    }

    /// Pool two groups of coefficients (Chan et al.'s parallel variance), as if their
    /// coefficients had been concatenated.
    pub fn pooled(&self, other: &BandSummary) -> BandSummary {
        if self.len == 0 {
            return *other;
        }
        if other.len == 0 {
            return *self;
        }
        let (na, nb) = (self.len as f64, other.len as f64);
        let n = na + nb;
        let delta = other.mean - self.mean;
        BandSummary {
            energy: self.energy + other.energy,
            mean: self.mean + delta * nb / n,
            m2: self.m2 + other.m2 + delta * delta * na * nb / n,
            first: self.first,
            last: other.last,
            len: self.len + other.len,
        }
    }
}

/// How far a band's moments may be from the per-window path's (see `engine::sliding`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BandTol {
    /// Bound on |Δ Σ c²|.
    pub energy: f64,
    /// Bound on |Δ Σ c|.
    pub sum: f64,
}

/// A series' [`BandTol`]s, and the bound on any one coefficient (first and last).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeriesTol {
    pub delta: f64,
    pub bands: Bands<BandTol>,
}

/// Everything the features need about one series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesSummary {
    /// `[cA_n, cD_n, …, cD_1]`.
    pub bands: Bands<BandSummary>,
    /// Time-LLM statistics of the (normalised) series, when asked for.
    pub stats: Option<SeriesStats>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal values have no spread at all, whatever their size: sums about one of them
    /// are exactly zero (about zero, `Σc² - (Σc)²/n` leaves rounding noise, which would
    /// turn a flat band's std of 0 into a tiny one, and SNR 0 into anything in ±60).
    #[test]
    fn equal_values_have_exactly_no_spread() {
        for v in [0.0, 0.1, -3.7e5, 1.0e-30, 6.02e23] {
            for n in [1, 2, 7, 259] {
                let b = BandSummary::of(&vec![v; n]);
                assert_eq!((b.m2, b.mean, b.std()), (0.0, v, 0.0), "{v} × {n}");
                let e = n as f64 * v * v;
                assert!((b.energy - e).abs() <= 1e-15 * e, "{v} × {n}: {b:?}");
            }
        }
    }

    /// Values far from zero: the moments are those of their small deviations, to f64's
    /// rounding. The values are multiples of 1/8 near 1e8, so every sum below is exact
    /// in i128 and the reference is rounded once; about zero, Σc² ≈ n·1e16 alone rounds
    /// by more than the whole m2.
    #[test]
    fn offset_values_keep_the_moments_of_their_deviations() {
        let eighths: Vec<i128> = (0..259)
            .map(|i| (i * 7 % 13) - 6 + 8 * 100_000_000)
            .collect();
        let c: Vec<f64> = eighths.iter().map(|&k| k as f64 / 8.0).collect();
        let n = c.len() as i128;
        let (s, q) = (
            eighths.iter().sum::<i128>(),
            eighths.iter().map(|k| k * k).sum::<i128>(),
        );
        // m2 = (n q - s²) / (64 n), energy = q / 64, mean = s / (8 n).
        let m2 = (n * q - s * s) as f64 / (64 * n) as f64;
        let b = BandSummary::of(&c);
        assert!((b.m2 - m2).abs() <= 1e-12 * m2, "m2 {} want {m2}", b.m2);
        assert!((b.mean - s as f64 / (8 * n) as f64).abs() <= 1e-15 * b.mean);
        assert!((b.energy - q as f64 / 64.0).abs() <= 1e-15 * b.energy);
    }
}

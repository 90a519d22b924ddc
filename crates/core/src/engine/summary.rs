//! Band summaries: the small per-series result every engine returns, from which every
//! feature is a pure function (see `features`). This is the only thing that crosses from
//! a device back to the host in the prompt pipeline.

use crate::numeric::real::Real;
use crate::numeric::sums;
use crate::stats::SeriesStats;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// Per-band values of one series, inline up to level 4 (five bands): a series' summary
/// then costs no allocation of its own, which on the sliding path was a tenth of the run
/// (118,363 series, each with a summary and a bound). Deeper plans spill to the heap.
pub type Bands<T> = SmallVec<[T; 5]>;

/// Moments of one band's coefficients.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct BandSummary {
    /// Σ c².
    pub energy: f64,
    /// Mean of the coefficients.
    pub mean: f64,
    /// Σ (c - mean)², two-pass like numpy, so stds stay exact for offset data.
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
        let (sum, energy) = sums::sum_and_squares_by(c, |v| v.to_f64());
        let mean = sum / len as f64;
        let m2 = sums::sum_by(c, |v| (v.to_f64() - mean) * (v.to_f64() - mean));
        BandSummary {
            energy,
            mean,
            m2,
            first: c[0].to_f64(),
            last: c[len - 1].to_f64(),
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

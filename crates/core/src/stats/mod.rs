//! Time-LLM input statistics of one series: min, max, median, trend and top lags.
//!
//! Lags follow Time-LLM's `calcute_lags`: the circular autocorrelation
//! `r = irfft(|rfft(x)|²)` (length T for even T, T-1 for odd T, torch's default), ranked by
//! `r_k / r_0` rounded to 9 decimals, larger first, the smaller lag first on ties. `r` is
//! symmetrised (`r_k = r_(n-k)` in exact arithmetic) before ranking so that rounding noise
//! can never put a mirror lag `n-k` before `k`, on any engine or precision.
//!
//! Time-LLM's ranking includes lag 0 (always first: `r_0` is the maximum) and the mirror
//! lags `n-k`, so most windows' "top lags" read `[0, 1, n-1, 2, n-2]`. The clean lags
//! (`LagRule::Clean`) rank only the lags `1..=n/2` by the same rule: periods the window
//! can show, each once. On a smooth series they still read `[1, 2, 3, 4, 5]`: the
//! autocorrelation decays from lag 1, whatever repeats. The peaks (`LagRule::Peaks`) rank
//! only its local maxima among `1..n/2`, the lags where the window repeats itself (24 and
//! its multiples for hourly data with a daily cycle); they are computed in place of
//! Time-LLM's when a run asks for them.

mod autocorrelation;
mod lags;
mod order;

pub use lags::{LagRule, Lags, TOP_LAGS};
pub use order::{SlidingOrder, SlidingRange};

use crate::numeric::select::{key64, value64, Select32};
use crate::numeric::Real;
use autocorrelation::{Autocorrelation, HalfLength, RealLength};
use lags::rank_lags;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesStats {
    pub min: f64,
    pub max: f64,
    /// The lower middle value for even lengths (torch.median).
    pub median: f64,
    /// `x[T-1] - x[0]`, the sum of first differences.
    pub trend: f64,
    /// Time-LLM's top lags, or the peaks when the run asked for them (`LagRule::Peaks`).
    pub lags: Lags,
    /// The top lags among `1..=n/2` (see the module's notes).
    #[serde(default)]
    pub lags_clean: Lags,
}

/// Planned FFTs and buffers for series of one length.
pub struct StatsScratch {
    len: usize,
    transform: Autocorrelation,
    /// The symmetrised lags 0..=n/2 of the autocorrelation, for the ranking.
    sym: Vec<f64>,
    /// f64 samples' order keys; f32 samples select in `select`.
    keys: Vec<i64>,
    select: Select32,
    /// Rank the peaks in place of Time-LLM's lags.
    peaks: bool,
}

impl StatsScratch {
    pub fn new(len: usize) -> Self {
        // irfft length: 2 * (bins - 1), i.e. T for even T and T - 1 for odd T.
        let n = 2 * (len / 2);
        StatsScratch {
            len,
            transform: if len.is_multiple_of(2) && len >= 4 {
                Autocorrelation::Half(HalfLength::new(len))
            } else {
                Autocorrelation::Real(RealLength::new(len))
            },
            sym: Vec::with_capacity(n / 2 + 1),
            keys: Vec::new(),
            select: Select32::new(len),
            peaks: false,
        }
    }

    /// The same, ranking the lags of `rule` (the peaks in place of Time-LLM's for
    /// `LagRule::Peaks`; the clean ones are always ranked beside them).
    pub fn ranking(mut self, rule: LagRule) -> Self {
        self.peaks = rule == LagRule::Peaks;
        self
    }

    /// The statistics of `x`; lags only when `lags` (they cost two FFTs).
    pub fn compute<T: Real>(&mut self, x: &[T], lags: bool) -> SeriesStats {
        debug_assert_eq!(x.len(), self.len);
        let len = x.len();
        if len == 0 {
            return SeriesStats::default();
        }
        let trend = x[len - 1].to_f64() - x[0].to_f64();
        let mid = (len - 1) / 2;
        let (lags, lags_clean) = if lags {
            self.lags_of(x)
        } else {
            Default::default()
        };
        // Min, max and median in total order (as `SlidingOrder` takes them, so -0 < +0 on
        // every path). f32 samples (a training batch) go through the vectorised
        // selection; f32's total order is f64's on the widened values, so both give the
        // same numbers. f64 samples select over integer keys of that order: a plain
        // integer compare instead of `total_cmp`'s conversions at every step.
        let (min, max, median) = match T::as_f32s(x).and_then(|x| self.select.min_max_kth(x, mid)) {
            Some((min, max, median)) => (min as f64, max as f64, median as f64),
            None => {
                self.keys.clear();
                self.keys.extend(x.iter().map(|v| key64(v.to_f64())));
                let (lo, hi) = self
                    .keys
                    .iter()
                    .fold((i64::MAX, i64::MIN), |(lo, hi), &k| (lo.min(k), hi.max(k)));
                let median = *self.keys.select_nth_unstable(mid).1;
                (value64(lo), value64(hi), value64(median))
            }
        };
        SeriesStats {
            min,
            max,
            median,
            trend,
            lags,
            lags_clean,
        }
    }

    /// The top lags of `x` alone (two FFTs): Time-LLM's (or the peaks) and the clean ones.
    pub fn lags_of<T: Real>(&mut self, x: &[T]) -> (Lags, Lags) {
        debug_assert_eq!(x.len(), self.len);
        if x.is_empty() {
            return Default::default();
        }
        let corr = match &mut self.transform {
            Autocorrelation::Half(h) => h.autocorrelation(x),
            Autocorrelation::Real(r) => match r.autocorrelation(x) {
                Some(corr) => corr,
                None if self.peaks => return Default::default(),
                None => return (smallvec::smallvec![0], Lags::new()),
            },
        };
        rank_lags(corr, &mut self.sym, self.peaks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_is_lower_middle_and_trend_is_end_minus_start() {
        let mut s = StatsScratch::new(4);
        let st = s.compute(&[3.0f64, 1.0, 4.0, 2.0], true);
        assert_eq!((st.min, st.max, st.median, st.trend), (1.0, 4.0, 2.0, -1.0));
    }

    #[test]
    fn minus_zero_is_below_plus_zero() {
        // As SlidingOrder picks them.
        let st = StatsScratch::new(3).compute(&[0.0f64, -0.0, 1.0], false);
        assert_eq!(st.min.to_bits(), (-0.0f64).to_bits());
        assert_eq!(st.median.to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn f32_samples_give_the_statistics_of_their_f64_values() {
        // Spread values, repeats, both zeros: the f32 selection against the f64 one.
        let series: Vec<f32> = (0..600)
            .map(|i| match i % 9 {
                0 => -0.0,
                1 => 0.0,
                _ => ((i * 7919) % 613) as f32 * 0.37 - 100.0 + (i % 3) as f32,
            })
            .collect();
        for len in [1, 2, 3, 8, 33, 64, 511, 512, 600] {
            let x = &series[series.len() - len..];
            let wide: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            let (a, b) = (
                StatsScratch::new(len).compute(x, true),
                StatsScratch::new(len).compute(&wide, true),
            );
            let bits = |s: &SeriesStats| [s.min, s.max, s.median, s.trend].map(f64::to_bits);
            assert_eq!(bits(&a), bits(&b), "len {len}");
            assert_eq!(a.lags, b.lags, "len {len}");
        }
    }
}

//! Top lags of a series' autocorrelation: Time-LLM's ranking (lag 0 and the mirror lags
//! included), the clean one (lags 1..=n/2) and the peaks (its local maxima among
//! 1..n/2); see the statistics module's notes.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// How many lags Time-LLM reports.
pub const TOP_LAGS: usize = 5;

/// The top lags of one series, inline (no allocation per series).
pub type Lags = SmallVec<[usize; TOP_LAGS]>;

/// Which top lags a prompt prints as `lags` (`--lags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum LagRule {
    /// Time-LLM's: lag 0 and the mirror lags n-k included
    #[default]
    Timellm,
    /// Only lags 1..=n/2, each period once
    Clean,
    /// The autocorrelation's local maxima among lags 1..n/2: the periods the window repeats at
    Peaks,
}

crate::names::named! {
    LagRule, "lag rule":
    Timellm = "timellm",
    Clean = "clean",
    Peaks = "peaks",
}

/// Indices of the `TOP_LAGS` largest autocorrelations, by the rule in the module docs:
/// Time-LLM's (or, with `peaks`, the peaks) and the clean ones. `sym` is working memory
/// (the symmetrised half of `corr`).
pub(super) fn rank_lags(corr: &[f64], sym: &mut Vec<f64>, peaks: bool) -> (Lags, Lags) {
    #[cfg(target_arch = "x86_64")]
    if crate::numeric::simd::Isa::active() >= crate::numeric::simd::Isa::Avx2 {
        // SAFETY: the CPU has AVX2 and FMA (`Isa::active` checks them).
        return unsafe { x86::rank_lags(corr, sym, peaks) };
    }
    rank_lags_in(corr, sym, peaks)
}

#[inline(always)]
fn rank_lags_in(corr: &[f64], sym: &mut Vec<f64>, peaks: bool) -> (Lags, Lags) {
    let n = corr.len();
    let Some(&r0) = corr.first() else {
        return Default::default();
    };
    if r0 == 0.0 {
        // r_0 = Σx² = 0 only for a zero series: every lag ties at 0, the smallest first
        // (and none is a peak: nothing rises).
        let first = if peaks {
            Lags::new()
        } else {
            (0..n.min(TOP_LAGS)).collect()
        };
        return (first, (1..=(n / 2).min(TOP_LAGS)).collect());
    }
    let scale = 1.0 / r0;
    symmetrise(corr, sym);
    if peaks {
        return (peak_lags(sym, scale), clean_lags(sym, scale));
    }
    let round9 = |v: f64| (v * 1e9).round() / 1e9;
    let floor = candidate_floor(sym, n, scale);
    let mut candidates: SmallVec<[(f64, usize); 16]> = SmallVec::new();
    // Eight lags at a time, looked at one by one only when one of them passes.
    const STEP: usize = 8;
    for (at, row) in sym.chunks(STEP).enumerate() {
        if !row.iter().fold(false, |hit, &c| hit | (c * scale >= floor)) {
            continue;
        }
        for (k, &c) in (at * STEP..).zip(row) {
            if c * scale >= floor {
                let ratio = round9(c * scale);
                candidates.push((ratio, k));
                if k > 0 && 2 * k != n {
                    candidates.push((ratio, n - k));
                }
            }
        }
    }
    // Larger rounded ratio first, the smaller lag first on ties (compared as numbers, so
    // -0 ties with 0).
    candidates.sort_unstable_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    let timellm = candidates.iter().take(TOP_LAGS).map(|&(_, k)| k).collect();
    (timellm, clean_lags(sym, scale))
}

/// Lags 0..=n/2 of `corr` (n lags), symmetrised into `sym`; a lag k of the other half has
/// its mirror n-k's value, so it is ranked from there (half the values to scan, and no
/// writes into `corr`). Indexed loops, not iterator adapters: those were compiled outside
/// the AVX2 frame.
#[inline(always)]
fn symmetrise(corr: &[f64], sym: &mut Vec<f64>) {
    let n = corr.len();
    sym.clear();
    sym.resize(n / 2 + 1, 0.0);
    sym[0] = corr[0];
    for k in 1..n.div_ceil(2) {
        sym[k] = 0.5 * (corr[k] + corr[n - k]);
    }
    if n.is_multiple_of(2) {
        sym[n / 2] = corr[n / 2];
    }
}

/// The least ratio (`scale` times a value of the symmetrised `sym`, of a series of `n`
/// lags) that can be among the best TOP_LAGS, less the rounding's reach.
#[inline(always)]
fn candidate_floor(sym: &[f64], n: usize, scale: f64) -> f64 {
    // Only lags whose raw ratio is near the top can be among the best TOP_LAGS, so the
    // rounding and the ordering run on those few: with V at most the TOP_LAGS-th largest
    // value over all lags, each of the best TOP_LAGS rounds to at least V's rounded ratio,
    // so its ratio is at most 1e-8 below V's (`scale` > 0: ratios order as the values).
    // V: the lags 1..n/2 that have a mirror go into GROUPS groups by residue (their maxima
    // a lane-wise max over rows). r_0 and the TOP_LAGS / 2 largest group maxima, each
    // counted with its mirror, are at least TOP_LAGS lags, so V = min(r_0, the smallest
    // of those maxima) is at most the TOP_LAGS-th largest of all.
    const GROUPS: usize = 32;
    const KEPT: usize = TOP_LAGS / 2;
    let max = |a: f64, b: f64| if a > b { a } else { b };
    let min = |a: f64, b: f64| if a < b { a } else { b };
    let doubled = &sym[1..n.div_ceil(2).max(1)];
    // Whole rows make new maxima (updated in place, they became masked stores, which are
    // slow on AMD; `array::from_fn` was not inlined); the partial last row pads with -∞.
    let mut maxima = [f64::NEG_INFINITY; GROUPS];
    for row in doubled.chunks(GROUPS) {
        let mut next = maxima;
        for i in 0..GROUPS {
            next[i] = max(maxima[i], row.get(i).copied().unwrap_or(f64::NEG_INFINITY));
        }
        maxima = next;
    }
    // The KEPT largest maxima, largest first, without branches: each value moves down
    // the ones it passes.
    let mut top = [f64::NEG_INFINITY; KEPT];
    for m in maxima {
        for i in (1..KEPT).rev() {
            top[i] = max(top[i], min(top[i - 1], m));
        }
        top[0] = max(top[0], m);
    }
    let v = min(sym[0], top[KEPT - 1]);
    if scale > 0.0 {
        v * scale - 1e-8
    } else {
        // Not for a real series (r_0 = Σx² > 0): rank every lag.
        f64::NEG_INFINITY
    }
}

/// The top lags among `1..=n/2` of the symmetrised `sym` (lags `0..=n/2`), by the same
/// rule as Time-LLM's: rounded ratio descending, the smaller lag first on ties. Only
/// values near the TOP_LAGS-th largest can be among them, so those few are rounded and
/// sorted (the ranking's own prefilter, without mirrors).
fn clean_lags(sym: &[f64], scale: f64) -> Lags {
    let lags = sym.get(1..).unwrap_or(&[]);
    // The TOP_LAGS largest values, largest first (a pass that rarely inserts).
    let mut top = [f64::NEG_INFINITY; TOP_LAGS];
    for &v in lags {
        if v > top[TOP_LAGS - 1] {
            let mut i = TOP_LAGS - 1;
            while i > 0 && top[i - 1] < v {
                top[i] = top[i - 1];
                i -= 1;
            }
            top[i] = v;
        }
    }
    let v = top[TOP_LAGS.min(lags.len()).max(1) - 1];
    let floor = if scale > 0.0 {
        v * scale - 1e-8
    } else {
        // Not for a real series (r_0 = Σx² > 0): rank every lag.
        f64::NEG_INFINITY
    };
    let round9 = |v: f64| (v * 1e9).round() / 1e9;
    let mut candidates: SmallVec<[(f64, usize); 16]> = lags
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c * scale >= floor)
        .map(|(i, &c)| (round9(c * scale), i + 1))
        .collect();
    candidates.sort_unstable_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    candidates.iter().take(TOP_LAGS).map(|&(_, k)| k).collect()
}

/// The local maxima of the symmetrised `sym` among lags `1..n/2`: each lag whose rounded
/// ratio is above the lag before it and at least the lag after it (a plateau counts once,
/// at its first lag), ranked as the other rules rank: rounded ratio descending, the
/// smaller lag first on ties. A series without a repeating pattern (a trend, noise that
/// only decays) may have fewer than `TOP_LAGS`, or none.
fn peak_lags(sym: &[f64], scale: f64) -> Lags {
    let round9 = |v: f64| (v * 1e9).round() / 1e9;
    let mut peaks: SmallVec<[(f64, usize); 32]> = SmallVec::new();
    if sym.len() >= 3 {
        let (mut before, mut at) = (round9(sym[0] * scale), round9(sym[1] * scale));
        for k in 1..sym.len() - 1 {
            let after = round9(sym[k + 1] * scale);
            if at > before && at >= after {
                peaks.push((at, k));
            }
            (before, at) = (at, after);
        }
    }
    peaks.sort_unstable_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    peaks.iter().take(TOP_LAGS).map(|&(_, k)| k).collect()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    /// `super::rank_lags_in` compiled for AVX2 (the same operations, so the same bits).
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn rank_lags(corr: &[f64], sym: &mut Vec<f64>, peaks: bool) -> (Lags, Lags) {
        super::rank_lags_in(corr, sym, peaks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::StatsScratch;

    #[test]
    fn lags_of_a_period_4_signal() {
        let x: Vec<f64> = (0..16).map(|i| [1.0, 0.0, -1.0, 0.0][i % 4]).collect();
        let mut s = StatsScratch::new(16);
        let st = s.compute(&x, true);
        // r peaks at multiples of 4; mirror lags come out smaller first.
        assert_eq!(&st.lags[..4], &[0, 4, 8, 12]);
        // Clean: 4 and 8 (= n/2) are the only periods; then the rest in lag order.
        assert_eq!(&st.lags_clean[..2], &[4, 8]);
        assert!(st.lags_clean.iter().all(|&k| (1..=8).contains(&k)));
    }

    /// The prefiltered ranking (only lags near the top rounded and sorted) against a full
    /// sort by (rounded ratio descending, lag ascending), on series with many exact ties.
    #[test]
    fn ranking_matches_a_full_sort() {
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        for case in 0..400 {
            let n: usize = [2, 6, 8, 9, 16, 64, 100, 512][case % 8];
            // Few distinct values (ties), or continuous ones, or all zero.
            let corr: Vec<f64> = (0..n)
                .map(|_| match case % 3 {
                    0 => (next() % 4) as f64 - 1.0,
                    1 => (next() % 1_000_000) as f64 / 7.0 - 5e4,
                    _ => 0.0,
                })
                .collect();
            let got = rank_lags(&corr, &mut Vec::new(), false);
            // The dispatched build (AVX2 here) and the plain one agree.
            assert_eq!(
                got,
                rank_lags_in(&corr, &mut Vec::new(), false),
                "case {case}"
            );
            let peaks = rank_lags(&corr, &mut Vec::new(), true);
            assert_eq!(
                peaks,
                rank_lags_in(&corr, &mut Vec::new(), true),
                "case {case}"
            );
            assert_eq!(peaks.1, got.1, "the clean lags either way");
            // The module's rule: r_k and r_(n-k) both become their mean.
            let mut sym = corr.clone();
            for k in 1..n.div_ceil(2) {
                let m = 0.5 * (corr[k] + corr[n - k]);
                sym[k] = m;
                sym[n - k] = m;
            }
            let scale = if sym[0] != 0.0 { 1.0 / sym[0] } else { 0.0 };
            let mut all: Vec<(f64, usize)> = sym
                .iter()
                .enumerate()
                .map(|(k, &c)| (((c * scale) * 1e9).round() / 1e9, k))
                .collect();
            // Compared as numbers (-0 ties with 0), as the ranking compares them.
            all.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap().then(a.1.cmp(&b.1)));
            let want: Vec<usize> = all.iter().take(TOP_LAGS).map(|p| p.1).collect();
            assert_eq!(got.0[..], want[..], "case {case}, n {n}: {corr:?}");
            // Clean: the same order over the lags 1..=n/2 alone.
            let clean: Vec<usize> = all
                .iter()
                .filter(|p| (1..=n / 2).contains(&p.1))
                .take(TOP_LAGS)
                .map(|p| p.1)
                .collect();
            assert_eq!(got.1[..], clean[..], "clean, case {case}, n {n}: {corr:?}");
            // Peaks: lags 1..n/2 above the lag before and at least the lag after (rounded),
            // in the same order.
            let rounded: Vec<f64> = (0..=n / 2)
                .map(|k| ((sym[k] * scale) * 1e9).round() / 1e9)
                .collect();
            let is_peak = |k: usize| {
                (1..n / 2).contains(&k)
                    && rounded[k] > rounded[k - 1]
                    && rounded[k] >= rounded[k + 1]
            };
            let want_peaks: Vec<usize> = all
                .iter()
                .filter(|p| is_peak(p.1))
                .take(TOP_LAGS)
                .map(|p| p.1)
                .collect();
            assert_eq!(
                peaks.0[..],
                want_peaks[..],
                "peaks, case {case}, n {n}: {corr:?}"
            );
        }
    }

    /// Hourly data with a daily cycle and a slow wave: Time-LLM's lags read lag 0 and the
    /// mirrors, the clean lags 1 and 2 (the autocorrelation decays from lag 1), the peaks
    /// the days (numpy gives the same: 24, 48, 72, 96, 121).
    #[test]
    fn peaks_find_the_daily_cycle() {
        let x: Vec<f64> = (0..512)
            .map(|t| {
                let t = t as f64;
                let wave = |period: f64| (2.0 * std::f64::consts::PI * t / period).sin();
                wave(24.0) + 1.5 * wave(512.0)
            })
            .collect();
        let st = StatsScratch::new(512)
            .ranking(LagRule::Peaks)
            .compute(&x, true);
        assert_eq!(&st.lags[..], &[24, 48, 72, 96, 121]);
        assert_eq!(&st.lags_clean[..2], &[1, 2]);
        let timellm = StatsScratch::new(512).compute(&x, true);
        assert_eq!(
            &timellm.lags[..3],
            &[0, 1, 511],
            "Time-LLM's unless peaks are asked for"
        );
        assert_eq!(timellm.lags_clean, st.lags_clean);
        // A trend alone has no peak.
        let trend: Vec<f64> = (0..64).map(|t| t as f64).collect();
        let st = StatsScratch::new(64)
            .ranking(LagRule::Peaks)
            .compute(&trend, true);
        assert!(st.lags.is_empty(), "{:?}", st.lags);
    }
}

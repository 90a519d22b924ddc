//! Features (SPEC §5): pure functions of band summaries and series statistics, shared by
//! every engine. A [`Group`] is what one prompt describes: one series, the channels of a
//! window (`sample`) or a batch of windows (`batch`).

pub mod describe;
pub mod margin;

pub use margin::Reads;

use crate::engine::{BandSummary, Bands, SeriesSummary};
use crate::stats::Lags;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// What one prompt describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Aggregate {
    /// Each channel of each window.
    #[default]
    Series,
    /// The channels of one window together.
    Sample,
    /// A batch of windows, as the seed generator does.
    Batch,
}

impl Aggregate {
    pub const ALL: [Aggregate; 3] = [Aggregate::Series, Aggregate::Sample, Aggregate::Batch];
    pub fn name(self) -> &'static str {
        match self {
            Aggregate::Series => "series",
            Aggregate::Sample => "sample",
            Aggregate::Batch => "batch",
        }
    }
}

impl fmt::Display for Aggregate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Aggregate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim().to_ascii_lowercase();
        Aggregate::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| format!("unknown aggregation '{s}' (expected series, sample or batch)"))
    }
}

/// Every feature of SPEC §5, named as in §8.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
///
/// Per-band values are inline up to five bands and the descriptions are static text but
/// for the few worded with numbers: a prompt's features cost about one allocation, not
/// eleven (per-series runs make 118,363 of them).
pub struct Features {
    pub energy_ratio: Bands<f64>,
    pub energy_entropy: f64,
    pub dominant_band: usize,
    pub dominant_energy: f64,
    pub freq_pattern: Text,
    pub trends: Bands<f64>,
    pub trends_sign: Bands<i8>,
    pub trend_consistency: f64,
    pub trend_desc: Text,
    pub band_stds: Bands<f64>,
    pub snr_db: f64,
    pub volatility_ratio: f64,
    pub stability_desc: Text,
    pub signal_quality: Text,
    pub difficulty_score: f64,
    pub difficulty: Text,
    pub min: f64,
    pub max: f64,
    pub median: f64,
    pub trend: f64,
    pub lags: Lags,
}

impl Features {
    /// Time-LLM's statistics alone, for a template that reads nothing else (`timellm`,
    /// `Reads::NOTHING`): no transform is run for it, so the wavelet features are empty.
    pub fn of_statistics(s: crate::stats::SeriesStats) -> Features {
        Features {
            energy_ratio: Bands::new(),
            energy_entropy: 0.0,
            dominant_band: 0,
            dominant_energy: 0.0,
            freq_pattern: Text::Borrowed(""),
            trends: Bands::new(),
            trends_sign: Bands::new(),
            trend_consistency: 0.0,
            trend_desc: Text::Borrowed(""),
            band_stds: Bands::new(),
            snr_db: 0.0,
            volatility_ratio: 0.0,
            stability_desc: Text::Borrowed(""),
            signal_quality: Text::Borrowed(""),
            difficulty_score: 0.0,
            difficulty: Text::Borrowed(""),
            min: s.min,
            max: s.max,
            median: s.median,
            trend: s.trend,
            lags: s.lags,
        }
    }
}

/// A description: static wording, or text made for the case.
pub type Text = Cow<'static, str>;

/// Energy ratios of one series: `E_k / max(ΣE, 1e-10)`, or uniform when ΣE = 0.
pub fn energy_ratios(bands: &[BandSummary]) -> Bands<f64> {
    let total: f64 = bands.iter().map(|b| b.energy).sum();
    if total == 0.0 {
        return smallvec::smallvec![1.0 / bands.len() as f64; bands.len()];
    }
    bands.iter().map(|b| b.energy / total.max(1e-10)).collect()
}

/// `-Σ p ln p` with `p = max(r, 1e-10)`.
pub fn entropy(ratios: &[f64]) -> f64 {
    -ratios
        .iter()
        .map(|&r| r.max(1e-10))
        .map(|p| p * p.ln())
        .sum::<f64>()
}

/// How one series' energy divides among its bands: its energy ratios, their entropy and
/// the band with the largest share. This is the part of [`compute`] that is independent
/// for every series (and the costly part: a division and a `ln` per band), so a caller
/// that holds many series computes it where their summaries are made, in parallel, and
/// [`compute_with`] only adds the shares up in series order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shares {
    pub ratios: Bands<f64>,
    pub entropy: f64,
    pub dominant: usize,
}

impl Shares {
    pub fn of(bands: &[BandSummary]) -> Shares {
        let ratios = energy_ratios(bands);
        Shares {
            entropy: entropy(&ratios),
            dominant: argmax(&ratios),
            ratios,
        }
    }
}

/// First index of the maximum.
fn argmax(v: &[f64]) -> usize {
    v.iter()
        .enumerate()
        .fold(0, |best, (i, &x)| if x > v[best] { i } else { best })
}

fn sign(x: f64) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// `10 log10(max(σ0²/σn², 1e-10))` clipped to ±60; 60 when σn = 0 < σ0; 0 when both are 0.
pub fn snr_db(std_first: f64, std_last: f64) -> f64 {
    if std_last == 0.0 {
        return if std_first > 0.0 { 60.0 } else { 0.0 };
    }
    (10.0
        * ((std_first * std_first) / (std_last * std_last))
            .max(1e-10)
            .log10())
    .clamp(-60.0, 60.0)
}

/// Compute the features of a group of series (one series for `series` aggregation).
///
/// Ratios, entropy and dominant energy are group means; the dominant band is the most
/// frequent per-series argmax (lowest on ties) and its energy the mean ratio there; band
/// trends pool all first differences; band stds pool all coefficients; min/max/median are
/// means; the Time-LLM trend and lags are the first series'.
pub fn compute(group: &[SeriesSummary]) -> Features {
    compute_with(group, group.iter().map(|s| Shares::of(&s.bands)))
}

/// [`compute`] with each series' [`Shares`] given, in the group's order (the same bits).
pub fn compute_with<S: std::borrow::Borrow<Shares>>(
    group: &[SeriesSummary],
    shares: impl IntoIterator<Item = S, IntoIter: ExactSizeIterator>,
) -> Features {
    let shares = shares.into_iter();
    assert_eq!(
        shares.len(),
        group.len(),
        "compute_with: one Shares per series"
    );
    let m = group.len().max(1) as f64;
    let bands = group.first().map_or(0, |s| s.bands.len());
    let n = bands.saturating_sub(1);

    let mut mean_ratio: Bands<f64> = smallvec::smallvec![0.0; bands];
    let mut mean_entropy = 0.0;
    let mut votes: Bands<usize> = smallvec::smallvec![0; bands];
    let mut pooled: Bands<BandSummary> = smallvec::smallvec![BandSummary::default(); bands];
    let (mut rises, mut steps): (Bands<f64>, Bands<usize>) = (
        smallvec::smallvec![0.0; bands],
        smallvec::smallvec![0; bands],
    );
    {
        // Slices taken once: indexing a SmallVec checks where it lives at every access
        // (this loop is a whole batch's serial tail; twice as fast so).
        let (mean_ratio, pooled, rises, steps) = (
            &mut mean_ratio[..],
            &mut pooled[..],
            &mut rises[..],
            &mut steps[..],
        );
        for (s, shares) in group.iter().zip(shares) {
            let Shares {
                ratios,
                entropy,
                dominant,
            } = shares.borrow();
            mean_entropy += entropy / m;
            votes[*dominant] += 1;
            let (r, b) = (&ratios[..bands], &s.bands[..bands]);
            for k in 0..bands {
                mean_ratio[k] += r[k] / m;
                pooled[k] = pooled[k].pooled(&b[k]);
                rises[k] += b[k].last - b[k].first;
                steps[k] += b[k].len.saturating_sub(1);
            }
        }
    }
    let dominant_band = votes
        .iter()
        .enumerate()
        .fold(0, |best, (i, &v)| if v > votes[best] { i } else { best });
    let dominant_energy = mean_ratio.get(dominant_band).copied().unwrap_or(0.0);
    let trends: Bands<f64> = rises
        .iter()
        .zip(&steps)
        .map(|(&r, &s)| if s == 0 { 0.0 } else { r / s as f64 })
        .collect();
    let trends_sign: Bands<i8> = trends.iter().map(|&t| sign(t)).collect();
    let s0 = trends_sign.first().copied().unwrap_or(0);
    let trend_consistency = if s0 == 0 {
        0.5
    } else {
        trends_sign.iter().filter(|&&s| s == s0).count() as f64 / bands.max(1) as f64
    };
    let band_stds: Bands<f64> = pooled.iter().map(BandSummary::std).collect();
    let (std_first, std_last) = (
        band_stds.first().copied().unwrap_or(0.0),
        band_stds.last().copied().unwrap_or(0.0),
    );
    let snr = snr_db(std_first, std_last);
    let volatility_ratio = std_last / (std_first + 1e-10);
    let middle = if n >= 2 { &band_stds[1..n] } else { &[][..] };
    let strong_mid = !middle.is_empty() && {
        let mid = middle.iter().sum::<f64>() / middle.len() as f64;
        mid > std_first && mid > std_last
    };
    let norm_entropy = if n == 0 {
        0.0
    } else {
        mean_entropy / ((n + 1) as f64).ln()
    };
    let difficulty_score = (40.0 * (1.0 - trend_consistency)).clamp(0.0, 40.0)
        + 35.0 * norm_entropy.clamp(0.0, 1.0)
        + 25.0 / (1.0 + ((snr - 10.0) / 5.0).exp());

    let stats = || group.iter().filter_map(|s| s.stats.as_ref());
    let with_stats = stats().count();
    let mean_of = |f: fn(&crate::stats::SeriesStats) -> f64| {
        if with_stats == 0 {
            0.0
        } else {
            stats().map(f).sum::<f64>() / with_stats as f64
        }
    };
    Features {
        freq_pattern: describe::frequency_pattern(mean_entropy, dominant_band, dominant_energy),
        trend_desc: describe::trend(&trends_sign, trend_consistency),
        stability_desc: describe::stability(volatility_ratio, strong_mid),
        signal_quality: describe::quality(snr).into(),
        difficulty: describe::difficulty(difficulty_score).into(),
        energy_ratio: mean_ratio,
        energy_entropy: mean_entropy,
        dominant_band,
        dominant_energy,
        trends,
        trends_sign,
        trend_consistency,
        band_stds,
        snr_db: snr,
        volatility_ratio,
        difficulty_score,
        min: mean_of(|s| s.min),
        max: mean_of(|s| s.max),
        median: mean_of(|s| s.median),
        trend: stats().next().map_or(0.0, |s| s.trend),
        lags: stats().next().map_or_else(Lags::new, |s| s.lags.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(energy: f64, first: f64, last: f64, len: usize) -> BandSummary {
        BandSummary {
            energy,
            mean: 0.0,
            m2: 0.0,
            first,
            last,
            len,
        }
    }

    #[test]
    fn constant_series_has_uniform_ratios_and_zero_snr() {
        let s = SeriesSummary {
            bands: smallvec::smallvec![band(0.0, 0.0, 0.0, 10); 4],
            stats: None,
        };
        let f = compute(&[s]);
        assert_eq!(f.energy_ratio[..], [0.25; 4]);
        assert_eq!(f.snr_db, 0.0);
        assert_eq!(f.trend_consistency, 0.5);
        assert_eq!(f.trend_desc, "mixed (0/4 scales upward)");
        assert_eq!(f.dominant_band, 0);
    }

    #[test]
    fn descriptions_follow_the_thresholds() {
        assert_eq!(
            describe::frequency_pattern(0.3, 0, 0.9),
            "single-scale dominant (trend)"
        );
        assert_eq!(
            describe::frequency_pattern(0.7, 5, 0.2),
            "dual-scale pattern"
        );
        assert_eq!(
            describe::trend(&[1, 1, -1, 1], 0.75),
            "mostly upward, except medium-term"
        );
        assert_eq!(describe::trend(&[-1, -1, -1], 1.0), "consistent downward");
        assert_eq!(describe::quality(20.0), "moderate SNR");
        assert_eq!(
            describe::stability(0.5, true),
            "trend-dominated with low noise (strong mid-frequency components)"
        );
        assert_eq!(describe::difficulty(15.0), "moderate");
        assert_eq!(snr_db(1.0, 0.0), 60.0);
        assert_eq!(snr_db(1.0, 1e-9), 60.0);
    }
}

//! Features (docs/features.md): pure functions of band summaries and series statistics, shared by
//! every engine. A [`Group`] is what one prompt describes: one series, the channels of a
//! window (`sample`) or a batch of windows (`batch`).

pub mod degenerate;
pub mod describe;
pub mod margin;

pub use degenerate::Degenerate;
pub use margin::Reads;

use crate::engine::{BandSummary, Bands, SeriesSummary};
use crate::stats::Lags;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::sync::Arc;

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
    /// A batch of windows, as the seed does.
    Batch,
}

crate::names::named! {
    Aggregate, "aggregation":
    Series = "series",
    Sample = "sample",
    Batch = "batch",
}

/// Every feature of docs/features.md, under its name there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
///
/// Per-band values are inline up to five bands and the descriptions are static text but
/// for the few worded with numbers: a prompt's features cost about one allocation, not
/// eleven (per-series runs make 118,363 of them).
pub struct Features {
    /// Why these features describe nothing, if they don't (constant input, a level too
    /// deep for the window): see [`degenerate`].
    #[serde(default)]
    pub degenerate: Option<Degenerate>,
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
    /// The top lags the prompt prints: Time-LLM's, or the clean ones (`--lags`).
    pub lags: Lags,
    /// The top lags among 1..=T/2 (`stats::LagRule::Clean`), whichever `lags` holds.
    #[serde(default)]
    pub lags_clean: Lags,
}

impl Features {
    /// Time-LLM's statistics these features hold (the group's, as `compute` made them).
    pub fn statistics(&self) -> crate::stats::SeriesStats {
        crate::stats::SeriesStats {
            min: self.min,
            max: self.max,
            median: self.median,
            trend: self.trend,
            lags: self.lags.clone(),
            lags_clean: self.lags_clean.clone(),
        }
    }

    /// Put Time-LLM's statistics into features computed without them (a sweep computes
    /// them once: they do not depend on the wavelet).
    pub fn set_statistics(&mut self, s: &crate::stats::SeriesStats) {
        (self.min, self.max, self.median, self.trend) = (s.min, s.max, s.median, s.trend);
        // Copied into the lists in place (a sweep sets them on every unit it scores).
        self.lags.clear();
        self.lags.extend_from_slice(&s.lags);
        self.lags_clean.clear();
        self.lags_clean.extend_from_slice(&s.lags_clean);
    }

    /// Time-LLM's statistics alone, for a template that reads nothing else (`timellm`,
    /// `Reads::NOTHING`): no transform is run for it, so the wavelet features are empty.
    pub fn of_statistics(s: crate::stats::SeriesStats) -> Features {
        Features {
            degenerate: None,
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
            lags_clean: s.lags_clean,
        }
    }
}

/// One prompt unit: what one prompt describes, and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// The data set's file (relative), when the input is a data set of several files.
    pub file: Option<Arc<str>>,
    pub window: usize,
    pub start: usize,
    /// The time at `start` (ISO 8601 for dates), or the row number without a time axis;
    /// shared by the series of one window. Empty where the run was asked for none
    /// (`Prepared::without_time_labels`).
    pub start_time: Arc<str>,
    /// The channel, for `series` aggregation (one name shared by all its units).
    pub column: Option<Arc<str>>,
    pub features: Features,
}

/// A description: static wording, or text made for the case.
pub type Text = Cow<'static, str>;

/// Energy ratios of one series: `E_k / max(ΣE, 1e-10)`, or uniform when ΣE = 0.
pub fn energy_ratios(bands: &[BandSummary]) -> Bands<f64> {
    let mut r = smallvec::smallvec![0.0; bands.len()];
    energy_ratios_into(bands, &mut r);
    r
}

/// [`energy_ratios`] into `out` (one per band): made in place, where a returned `Bands`
/// was written a value at a time and read back in 16-byte moves that waited on those
/// stores (a third of a batch's per-series sums).
fn energy_ratios_into(bands: &[BandSummary], out: &mut [f64]) {
    assert_eq!(
        bands.len(),
        out.len(),
        "energy_ratios_into: one ratio per band"
    );
    let total: f64 = bands.iter().map(|b| b.energy).sum();
    for (r, b) in out.iter_mut().zip(bands) {
        *r = if total == 0.0 {
            1.0 / bands.len() as f64
        } else {
            b.energy / total.max(1e-10)
        };
    }
}

/// `-Σ p ln p` with `p = max(r, 1e-10)`.
pub fn entropy(ratios: &[f64]) -> f64 {
    -ratios
        .iter()
        .map(|&r| r.max(1e-10))
        .map(|p| p * p.ln())
        .sum::<f64>()
}

/// Series per run of a group's sums (see [`Sums`]).
pub const RUN: usize = 8;

/// The running sums of a group's features: group means of the energy ratios and their
/// entropy, votes for the dominant band, pooled band moments, trend rises and steps.
///
/// [`compute`] adds a group's series in runs of [`RUN`] consecutive series, each run from
/// zero, then the runs' sums in order. Every path (CLI, app, wheel) thus gets the same
/// bits, and a caller holding a whole batch (the wheel) sums each run in parallel where
/// its summaries are made: the group's serial pass then adds up a few runs instead of
/// pooling every series (which was a training step's whole serial tail). A group of up
/// to [`RUN`] series is summed as one run, exactly as series by series.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sums {
    mean_ratio: Bands<f64>,
    mean_entropy: f64,
    votes: Bands<usize>,
    pooled: Bands<BandSummary>,
    rises: Bands<f64>,
    steps: Bands<usize>,
    /// Series with Time-LLM statistics: with none, the group's summaries are not scanned
    /// for them (224 summaries of a batch, half of them in the other core's cache).
    with_stats: usize,
}

impl Sums {
    fn new(bands: usize) -> Sums {
        Sums {
            mean_ratio: smallvec::smallvec![0.0; bands],
            mean_entropy: 0.0,
            votes: smallvec::smallvec![0; bands],
            pooled: smallvec::smallvec![BandSummary::default(); bands],
            rises: smallvec::smallvec![0.0; bands],
            steps: smallvec::smallvec![0; bands],
            with_stats: 0,
        }
    }

    /// The sums of one run of at most [`RUN`] series of a group of `group_len`.
    pub fn of_run(run: &[SeriesSummary], group_len: usize) -> Sums {
        debug_assert!(run.len() <= RUN);
        let bands = run.first().map_or(0, |s| s.bands.len());
        let m = group_len.max(1) as f64;
        let mut sums = Sums::new(bands);
        // Slices taken once: indexing a SmallVec checks where it lives at every access.
        let mut ratios: Bands<f64> = smallvec::smallvec![0.0; bands];
        let (r, mean_ratio, votes, pooled, rises, steps) = (
            &mut ratios[..],
            &mut sums.mean_ratio[..],
            &mut sums.votes[..],
            &mut sums.pooled[..],
            &mut sums.rises[..],
            &mut sums.steps[..],
        );
        for s in run {
            sums.with_stats += usize::from(s.stats.is_some());
            let b = &s.bands[..bands];
            energy_ratios_into(b, r);
            sums.mean_entropy += entropy(r) / m;
            votes[argmax(r)] += 1;
            for k in 0..bands {
                mean_ratio[k] += r[k] / m;
                pooled[k] = pooled[k].pooled(&b[k]);
                rises[k] += b[k].last - b[k].first;
                steps[k] += b[k].len.saturating_sub(1);
            }
        }
        sums
    }

    /// Add the next run's sums.
    fn add(&mut self, run: &Sums) {
        self.mean_entropy += run.mean_entropy;
        self.with_stats += run.with_stats;
        let k = self.mean_ratio.len();
        assert_eq!(run.mean_ratio.len(), k, "Sums::add: band counts");
        for k in 0..k {
            self.mean_ratio[k] += run.mean_ratio[k];
            self.votes[k] += run.votes[k];
            self.pooled[k] = self.pooled[k].pooled(&run.pooled[k]);
            self.rises[k] += run.rises[k];
            self.steps[k] += run.steps[k];
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
    if let [one] = group {
        return of_series(one);
    }
    // Each run's sums made as they are added (a series' features allocate nothing).
    from_runs(
        group,
        group.chunks(RUN).map(|run| Sums::of_run(run, group.len())),
    )
}

/// [`compute`] of a group of one series (every unit of a `series` run, a sweep's
/// hundreds of millions), straight from its bands: the same bits as its run's sums, where
/// the mean of one is `0.0 + x / 1.0 = 0.0 + x` (a `-0.0` becomes `0.0`), its pooled
/// moments are its own, and its one vote goes to its largest ratio.
fn of_series(s: &SeriesSummary) -> Features {
    let b = &s.bands[..];
    let mut energy_ratio: Bands<f64> = smallvec::smallvec![0.0; b.len()];
    energy_ratios_into(b, &mut energy_ratio);
    let totals = Totals {
        energy_entropy: 0.0 + entropy(&energy_ratio),
        dominant_band: argmax(&energy_ratio),
        energy_ratio: energy_ratio.iter().map(|&r| 0.0 + r).collect(),
        trends: b
            .iter()
            .map(|b| trend_of(0.0 + (b.last - b.first), b.len.saturating_sub(1)))
            .collect(),
        band_stds: b.iter().map(BandSummary::std).collect(),
        with_stats: usize::from(s.stats.is_some()),
    };
    finish(std::slice::from_ref(s), totals)
}

/// A band's trend from its coefficients' rise over `steps` first differences.
fn trend_of(rise: f64, steps: usize) -> f64 {
    if steps == 0 {
        0.0
    } else {
        rise / steps as f64
    }
}

/// What a group's features are made from: its sums' totals, read.
struct Totals {
    energy_ratio: Bands<f64>,
    energy_entropy: f64,
    dominant_band: usize,
    trends: Bands<f64>,
    band_stds: Bands<f64>,
    with_stats: usize,
}

/// [`compute`] with the sums of each run of [`RUN`] series given (`Sums::of_run` of
/// `group.chunks(RUN)`, in order): the same bits.
pub fn compute_from_runs(group: &[SeriesSummary], runs: Vec<Sums>) -> Features {
    assert_eq!(
        runs.len(),
        group.len().div_ceil(RUN),
        "compute_from_runs: one Sums per run"
    );
    from_runs(group, runs.into_iter())
}

/// The features of `group` from its runs' sums, in order.
fn from_runs(group: &[SeriesSummary], mut runs: impl Iterator<Item = Sums>) -> Features {
    let bands = group.first().map_or(0, |s| s.bands.len());
    // The first run is the total so far: adding it to zero would give its own bits (it
    // holds no -0.0: every sum in it starts from +0.0).
    let mut total = runs.next().unwrap_or_else(|| Sums::new(bands));
    for run in runs {
        total.add(&run);
    }
    let Sums {
        mean_ratio,
        mean_entropy,
        votes,
        pooled,
        rises,
        steps,
        with_stats,
    } = total;
    let dominant_band = votes
        .iter()
        .enumerate()
        .fold(0, |best, (i, &v)| if v > votes[best] { i } else { best });
    let totals = Totals {
        energy_ratio: mean_ratio,
        energy_entropy: mean_entropy,
        dominant_band,
        trends: rises
            .iter()
            .zip(&steps)
            .map(|(&r, &s)| trend_of(r, s))
            .collect(),
        band_stds: pooled.iter().map(BandSummary::std).collect(),
        with_stats,
    };
    finish(group, totals)
}

/// The features of `group` from its totals: the descriptions and the statistics.
fn finish(group: &[SeriesSummary], totals: Totals) -> Features {
    let Totals {
        energy_ratio: mean_ratio,
        energy_entropy: mean_entropy,
        dominant_band,
        trends,
        band_stds,
        with_stats,
    } = totals;
    let bands = mean_ratio.len();
    let n = bands.saturating_sub(1);
    let dominant_energy = mean_ratio.get(dominant_band).copied().unwrap_or(0.0);
    let trends_sign: Bands<i8> = trends.iter().map(|&t| sign(t)).collect();
    let s0 = trends_sign.first().copied().unwrap_or(0);
    let trend_consistency = if s0 == 0 {
        0.5
    } else {
        trends_sign.iter().filter(|&&s| s == s0).count() as f64 / bands.max(1) as f64
    };
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

    let stats = || {
        let group = if with_stats == 0 { &[][..] } else { group };
        group.iter().filter_map(|s| s.stats.as_ref())
    };
    let mean_of = |f: fn(&crate::stats::SeriesStats) -> f64| {
        if with_stats == 0 {
            0.0
        } else {
            stats().map(f).sum::<f64>() / with_stats as f64
        }
    };
    Features {
        degenerate: None,
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
        lags_clean: stats()
            .next()
            .map_or_else(Lags::new, |s| s.lags_clean.clone()),
    }
}

#[cfg(test)]
mod tests;

//! What a sweep ranks by: the val score, a feature's mean (a description, with no claim
//! that more is better), or one claim's bits about one outcome.

use super::SweepRow;
use crate::error::Result;
use serde::Serialize;
use wavebench_core::features::Features;
use wavebench_core::score::{Claim, Target};

/// A feature whose mean over the scored units a sweep also reports: a description of how
/// the features move with the configuration, with no claim that more is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, Default)]
pub enum Metric {
    #[default]
    SnrDb,
    EnergyEntropy,
    DifficultyScore,
    DominantEnergy,
    TrendConsistency,
    VolatilityRatio,
}

impl Metric {
    pub const ALL: [Metric; 6] = [
        Metric::SnrDb,
        Metric::EnergyEntropy,
        Metric::DifficultyScore,
        Metric::DominantEnergy,
        Metric::TrendConsistency,
        Metric::VolatilityRatio,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Metric::SnrDb => "snr_db",
            Metric::EnergyEntropy => "energy_entropy",
            Metric::DifficultyScore => "difficulty_score",
            Metric::DominantEnergy => "dominant_energy",
            Metric::TrendConsistency => "trend_consistency",
            Metric::VolatilityRatio => "volatility_ratio",
        }
    }

    pub fn of(self, f: &Features) -> f64 {
        match self {
            Metric::SnrDb => f.snr_db,
            Metric::EnergyEntropy => f.energy_entropy,
            Metric::DifficultyScore => f.difficulty_score,
            Metric::DominantEnergy => f.dominant_energy,
            Metric::TrendConsistency => f.trend_consistency,
            Metric::VolatilityRatio => f.volatility_ratio,
        }
    }
}

/// What a sweep is ranked by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, Default)]
pub enum RankBy {
    /// The validation score (the designated pairs' bits above their null), highest first.
    #[default]
    Score,
    /// The val complementary score: the designated pairs' bits beyond the series-only
    /// forecaster, above their null, highest first.
    Complementary,
    /// A feature's mean, highest first (a description, not a judgement).
    Mean(Metric),
    /// One claim's val bits about one outcome above their null (`lags:direction`),
    /// highest first.
    Pair(Claim, Target),
}

impl RankBy {
    pub const ALL: [RankBy; 8] = [
        RankBy::Score,
        RankBy::Complementary,
        RankBy::Mean(Metric::SnrDb),
        RankBy::Mean(Metric::EnergyEntropy),
        RankBy::Mean(Metric::DifficultyScore),
        RankBy::Mean(Metric::DominantEnergy),
        RankBy::Mean(Metric::TrendConsistency),
        RankBy::Mean(Metric::VolatilityRatio),
    ];

    pub fn name(self) -> String {
        match self {
            RankBy::Score => "score".into(),
            RankBy::Complementary => "complementary".into(),
            RankBy::Mean(m) => m.name().into(),
            RankBy::Pair(c, t) => format!("{}:{}", c.name(), t.name()),
        }
    }

    pub fn of(self, row: &SweepRow) -> f64 {
        match self {
            RankBy::Score => row.val.score_bits,
            RankBy::Complementary => row.val.complementary_bits,
            RankBy::Mean(m) => row.mean(m),
            RankBy::Pair(c, t) => row
                .val
                .info(c, t)
                .map_or(f64::NEG_INFINITY, |i| i.excess_bits),
        }
    }
}

impl std::str::FromStr for RankBy {
    type Err = crate::error::Error;
    /// `score`, a feature's name, or `CLAIM:OUTCOME`.
    fn from_str(s: &str) -> Result<Self> {
        if let Some((c, t)) = s.trim().split_once(':') {
            let claim = c.parse::<Claim>()?;
            let outcome = t.parse::<Target>()?;
            return Ok(RankBy::Pair(claim, outcome));
        }
        RankBy::ALL
            .into_iter()
            .find(|r| r.name() == s.trim())
            .ok_or_else(|| {
                let names: Vec<String> = RankBy::ALL.iter().map(|r| r.name()).collect();
                crate::error::Error::input(format!(
                    "'{s}': expected one of {}, or CLAIM:OUTCOME such as lags:direction",
                    names.join(", ")
                ))
            })
    }
}

/// The rows best first by `by` (ties in grid order), degenerate ones left out unless
/// `keep_degenerate`.
pub fn ranked(rows: &[SweepRow], by: RankBy, keep_degenerate: bool) -> Vec<&SweepRow> {
    let mut order: Vec<&SweepRow> = rows
        .iter()
        .filter(|r| keep_degenerate || !r.degenerate())
        .collect();
    order.sort_by(|a, b| by.of(b).total_cmp(&by.of(a)));
    order
}

/// One row's place in a ranking, and how far its score stands from the best's.
#[derive(Debug, Clone, Copy)]
pub struct Standing<'a> {
    pub row: &'a SweepRow,
    /// Its place by the ranking (None: degenerate, left unranked).
    pub rank: Option<usize>,
    /// Its place among the ranked rows by the test score.
    pub test_rank: Option<usize>,
    /// The 95% bootstrap interval of (the best val score − its val score), the best
    /// being the ranked row with the highest val score.
    pub behind: [f64; 2],
    /// `behind` contains 0: the data cannot tell it from the best.
    pub tied: bool,
    /// Its val score minus the Time-LLM baseline's, and that difference's 95% interval.
    pub gain: f64,
    pub gain_interval: [f64; 2],
    /// Likewise beyond the series-only forecaster: its val complementary score minus the
    /// baseline's, and that difference's 95% interval.
    pub complementary_gain: f64,
    pub complementary_gain_interval: [f64; 2],
}

/// A sweep's rows in report order (ranked first, then the degenerate ones), with test
/// ranks, ties and Spearman's ρ of the val and test scores.
#[derive(Debug, Clone)]
pub struct Standings<'a> {
    pub rows: Vec<Standing<'a>>,
    /// Spearman's rank correlation of val and test scores over the ranked rows (None
    /// under 3 rows or when either score is constant).
    pub spearman: Option<f64>,
    /// Where in `rows` the ranked row with the best val score is.
    top: Option<usize>,
}

impl<'a> Standings<'a> {
    pub fn of(sweep: &'a super::Sweep, by: RankBy, keep_degenerate: bool) -> Standings<'a> {
        let rows = &sweep.rows;
        let base = &sweep.baseline[0];
        let best = ranked(rows, by, keep_degenerate);
        let mut by_test = best.clone();
        by_test.sort_by(|a, b| b.test.score_bits.total_cmp(&a.test.score_bits));
        let top = ranked(rows, RankBy::Score, keep_degenerate)
            .first()
            .copied();
        let standing = |rank: Option<usize>, row: &'a SweepRow| {
            let test_rank = by_test
                .iter()
                .position(|r| std::ptr::eq(*r, row))
                .map(|i| i + 1);
            let behind = top.map_or([f64::NAN; 2], |t| {
                wavebench_core::score::paired_interval(&t.val.boot, &row.val.boot)
            });
            Standing {
                row,
                rank,
                test_rank,
                behind,
                tied: rank.is_some() && behind[0] <= 0.0 && 0.0 <= behind[1],
                gain: row.val.score_bits - base.score_bits,
                gain_interval: wavebench_core::score::paired_interval(&row.val.boot, &base.boot),
                complementary_gain: row.val.complementary_bits - base.complementary_bits,
                complementary_gain_interval: wavebench_core::score::paired_interval(
                    &row.val.boot_complementary,
                    &base.boot_complementary,
                ),
            }
        };
        let mut out: Vec<Standing> = best
            .iter()
            .enumerate()
            .map(|(i, r)| standing(Some(i + 1), r))
            .collect();
        out.extend(
            rows.iter()
                .filter(|r| !keep_degenerate && r.degenerate())
                .map(|r| standing(None, r)),
        );
        let val: Vec<f64> = best.iter().map(|r| r.val.score_bits).collect();
        let test: Vec<f64> = best.iter().map(|r| r.test.score_bits).collect();
        Standings {
            spearman: spearman(&val, &test),
            top: top.and_then(|t| out.iter().position(|s| std::ptr::eq(s.row, t))),
            rows: out,
        }
    }

    /// The ranked rows tied with the best val score (the best among them).
    pub fn tied(&self) -> impl Iterator<Item = &Standing<'a>> {
        self.rows.iter().filter(|s| s.tied)
    }

    /// Whether the best val score's configuration is outside the test top 10%, and so
    /// does not generalise: its test rank and the ranked rows.
    pub fn val_best_falls(&self) -> Option<(&Standing<'a>, usize, usize)> {
        let ranked = self.rows.iter().filter(|s| s.rank.is_some()).count();
        let top = &self.rows[self.top?];
        let k = top.test_rank?;
        (k > ranked.div_ceil(10)).then_some((top, k, ranked))
    }

    /// The sweep's warnings and this ranking's: too few effective units, a conservative
    /// null, a val best that falls on test.
    pub fn warnings(&self, sweep: &super::Sweep) -> Vec<String> {
        let mut w = sweep.warnings();
        if let Some((s, k, n)) = self.val_best_falls() {
            w.push(format!(
                "val's best ({}) ranks {k} of {n} on test, outside the test top 10%: the choice does not carry over",
                s.row.label()
            ));
        }
        if self.none_beats_the_baseline() {
            // Beyond the series-only forecaster, rows may still tell more than its word.
            let beyond = self
                .rows
                .iter()
                .filter(|s| s.rank.is_some() && s.complementary_gain_interval[0] > 0.0)
                .count();
            w.push(format!(
                "no configuration's gain over the Time-LLM baseline (its trend word alone: {:.4} bits on val) has an interval above 0: on this data the wavelet's words add nothing the data can tell from it{}",
                sweep.baseline[0].score_bits,
                match beyond {
                    0 => String::new(),
                    n => format!(
                        ", though beyond the series-only forecaster {n} row{} do (\"gain beyond the series\" above 0)",
                        if n == 1 { "" } else { "s" }
                    ),
                }
            ));
        }
        if self.beats_only_before_the_series() {
            w.push(format!(
                "rows beat the Time-LLM baseline's score, but beyond the series-only forecaster none tells more than its trend word ({:.4} bits on val; no paired interval above 0): what their words add, the series already says",
                sweep.baseline[0].complementary_bits
            ));
        }
        w
    }

    /// Rows with wavelet words are ranked, and none's gain over Time-LLM's own prompt has
    /// an interval wholly above 0.
    pub fn none_beats_the_baseline(&self) -> bool {
        let ranked = || self.rows.iter().filter(|s| s.rank.is_some());
        ranked().any(|s| s.row.template != "timellm") && !ranked().any(|s| s.gain_interval[0] > 0.0)
    }

    /// Some ranked row's gain over the baseline has an interval above 0, but no row's gain
    /// beyond the series-only forecaster does: the words beat Time-LLM's only on what the
    /// series already tells. (Where no row beats it at all, `none_beats_the_baseline`
    /// warns instead.)
    pub fn beats_only_before_the_series(&self) -> bool {
        let ranked = || self.rows.iter().filter(|s| s.rank.is_some());
        ranked().any(|s| s.gain_interval[0] > 0.0)
            && !ranked().any(|s| s.complementary_gain_interval[0] > 0.0)
    }
}

/// Spearman's ρ: Pearson's correlation of the ranks (average ranks for ties).
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 3 {
        return None;
    }
    let (ra, rb) = (average_ranks(a), average_ranks(b));
    let n = a.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / (saa * sbb).sqrt())
}

/// Ranks 1..=n of `v` ascending, ties given their average rank (scipy's `rankdata`).
fn average_ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
    let mut ranks = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && v[order[j]] == v[order[i]] {
            j += 1;
        }
        let r = (i + j + 1) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = r;
        }
        i = j;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_as_scipy() {
        // scipy.stats.spearmanr([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]).statistic = 0.8207826816681233
        let r = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]).unwrap();
        assert!((r - 0.8207826816681233).abs() < 1e-12, "{r}");
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
    }
}

//! What a sweep ranks by: the val score, the complementary score, a feature's mean (a
//! description, with no claim that more is better), or one claim's bits about one
//! outcome; each with its val and test values and its val replicates.

use super::SweepRow;
use crate::error::Result;
use serde::Serialize;
use wavebench_core::features::Features;
use wavebench_core::score::{AnyClaim, Claim, Evaluation, Target};

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
    /// The val forecast gain: how much the claims lower the series-only forecaster's
    /// MSE, highest first.
    Forecast,
    /// A feature's mean, highest first (a description, not a judgement).
    Mean(Metric),
    /// One claim's val bits about one outcome above their null (`lags:direction`),
    /// highest first.
    Pair(Claim, Target),
}

impl RankBy {
    pub const ALL: [RankBy; 9] = [
        RankBy::Score,
        RankBy::Complementary,
        RankBy::Forecast,
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
            RankBy::Forecast => "forecast".into(),
            RankBy::Mean(m) => m.name().into(),
            RankBy::Pair(c, t) => format!("{}:{}", c.name(), t.name()),
        }
    }

    /// The row's val value of what this ranks by.
    pub fn of(self, row: &SweepRow) -> f64 {
        self.value(row, &row.val)
    }

    /// The row's test value of what this ranks by.
    pub fn on_test(self, row: &SweepRow) -> f64 {
        self.value(row, &row.test)
    }

    /// The value of what this ranks by in `e`, one of `row`'s parts.
    fn value(self, row: &SweepRow, e: &Evaluation) -> f64 {
        match self {
            RankBy::Score => e.score_bits,
            RankBy::Complementary => e.complementary_bits,
            RankBy::Forecast => e.forecast.as_ref().map_or(f64::NEG_INFINITY, |g| g.gain),
            RankBy::Mean(m) => row.mean(m),
            RankBy::Pair(c, t) => e.info(c, t).map_or(f64::NEG_INFINITY, |i| i.excess_bits),
        }
    }

    /// The row's val value in each bootstrap replicate (the same blocks for every row), or
    /// None where it has none: a feature's mean, and a claim's bits about an outcome it is
    /// not designated for, rank without ties, gaps or verdicts.
    pub fn replicates(self, row: &SweepRow) -> Option<Vec<f64>> {
        let e = &row.val;
        let v = match self {
            RankBy::Score => e.boot.clone(),
            RankBy::Complementary => e.boot_complementary.clone(),
            RankBy::Forecast => e.forecast.as_ref()?.boot.clone(),
            RankBy::Mean(_) => return None,
            RankBy::Pair(c, t) => {
                let claim = e.claims.iter().find(|x| x.claim == AnyClaim::Builtin(c))?;
                let null = claim.info(t).null_median;
                claim.stats.boot[t].iter().map(|b| b - null).collect()
            }
        };
        (!v.is_empty()).then_some(v)
    }

    /// Whether this ranking has a test value to check the val ranking against (a
    /// feature's mean is over val and test together).
    pub fn has_test(self) -> bool {
        !matches!(self, RankBy::Mean(_))
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

//! What a sweep ranks by: the val score, a feature's mean (a description, with no claim
//! that more is better), or one claim's bits about one outcome.

use super::SweepRow;
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
    /// The validation score, highest first.
    #[default]
    Score,
    /// A feature's mean, highest first (a description, not a judgement).
    Mean(Metric),
    /// One claim's val bits about one outcome (`lags:direction`), highest first.
    Pair(Claim, Target),
}

impl RankBy {
    pub const ALL: [RankBy; 7] = [
        RankBy::Score,
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
            RankBy::Mean(m) => m.name().into(),
            RankBy::Pair(c, t) => format!("{}:{}", c.name(), t.name()),
        }
    }

    pub fn of(self, row: &SweepRow) -> f64 {
        match self {
            RankBy::Score => row.val.score_bits,
            RankBy::Mean(m) => row.mean(m),
            RankBy::Pair(c, t) => row.val.info(c, t).map_or(f64::NEG_INFINITY, |i| i.mi_bits),
        }
    }
}

impl std::str::FromStr for RankBy {
    type Err = String;
    /// `score`, a feature's name, or `CLAIM:OUTCOME`.
    fn from_str(s: &str) -> Result<Self, String> {
        if let Some((c, t)) = s.trim().split_once(':') {
            let claim = c.parse::<Claim>().map_err(|e| e.to_string())?;
            let outcome = t.parse::<Target>().map_err(|e| e.to_string())?;
            return Ok(RankBy::Pair(claim, outcome));
        }
        RankBy::ALL
            .into_iter()
            .find(|r| r.name() == s.trim())
            .ok_or_else(|| {
                let names: Vec<String> = RankBy::ALL.iter().map(|r| r.name()).collect();
                format!(
                    "'{s}': expected one of {}, or CLAIM:OUTCOME such as lags:direction",
                    names.join(", ")
                )
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

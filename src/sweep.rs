//! Sweep: every wavelet × level over a data set, each configuration summarised by the mean
//! of a few features over all its prompt units, to rank configurations.

use serde::{Deserialize, Serialize};
use wavebench_core::config::Config;
use wavebench_core::data::Table;
use wavebench_core::engine::{self, DType, Selected};
use wavebench_core::features::{Aggregate, Features};
use wavebench_core::run_spec::{Purpose, RunSpec};
use wavebench_core::timing::Timer;
use wavebench_core::wavelet;

/// What a sweep ranks by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
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

    /// Whether a larger mean is better for a prompt: a cleaner signal (SNR), one dominant
    /// band, consistent trends — rather than high entropy, difficulty or volatility.
    pub fn higher_is_better(self) -> bool {
        matches!(
            self,
            Metric::SnrDb | Metric::DominantEnergy | Metric::TrendConsistency
        )
    }

    /// What "better" means for this metric, in words.
    pub fn direction(self) -> &'static str {
        if self.higher_is_better() {
            "higher is better"
        } else {
            "lower is better"
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

/// One configuration's mean of every metric over the data set's units.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepRow {
    pub wavelet: String,
    pub level: usize,
    /// Coefficients in the approximation band: below 2 its std, and so the SNR, is degenerate.
    pub approx_len: usize,
    pub means: [f64; 6],
}

impl SweepRow {
    pub fn get(&self, m: Metric) -> f64 {
        self.means[Metric::ALL.iter().position(|&x| x == m).unwrap_or(0)]
    }

    /// An approximation band of fewer than 2 coefficients has no spread: its std, SNR and
    /// volatility are artefacts of the level, not of the data.
    pub fn degenerate(&self) -> bool {
        self.approx_len < 2
    }
}

/// The rows best first by `m` (ties in catalogue order), degenerate ones left out unless
/// `keep_degenerate`.
pub fn ranked(rows: &[SweepRow], m: Metric, keep_degenerate: bool) -> Vec<&SweepRow> {
    let mut order: Vec<&SweepRow> = rows
        .iter()
        .filter(|r| keep_degenerate || !r.degenerate())
        .collect();
    order.sort_by(|a, b| {
        let o = a.get(m).total_cmp(&b.get(m));
        if m.higher_is_better() {
            o.reverse()
        } else {
            o
        }
    });
    order
}

/// Every (wavelet, level) a window of `seq_len` allows.
pub fn configurations(seq_len: usize) -> Vec<(&'static str, usize)> {
    wavelet::all()
        .iter()
        .flat_map(|w| (1..=w.max_level(seq_len)).map(move |l| (w.name.as_str(), l)))
        .collect()
}

/// Run the sweep over non-overlapping windows of the base configuration's length (the
/// whole data set, once), every wavelet × level, on the native engine in f64.
/// `progress(done, total)` answers whether to go on; errors say what went wrong.
pub fn run(
    table: &Table,
    base: &Config,
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Result<Vec<SweepRow>, String> {
    let seq_len = base.seq_len.unwrap_or(table.rows()).min(table.rows());
    let configs = configurations(seq_len);
    if configs.is_empty() {
        return Err(format!(
            "sweep: windows of {seq_len} rows are too short for any wavelet at level 1"
        ));
    }
    let mut engine = Selected::native();
    let mut rows = Vec::with_capacity(configs.len());
    for (i, (name, level)) in configs.iter().enumerate() {
        let cfg = Config {
            wavelet: name.to_string(),
            level: *level,
            seq_len: Some(seq_len),
            stride: seq_len,
            dtype: DType::F64,
            aggregate: Aggregate::Series,
            engine: engine::EngineKind::Native,
            ..base.clone()
        };
        let spec = RunSpec::new(cfg, Purpose::Features, &crate::backend::LOCAL)
            .map_err(|e| format!("sweep: {e}"))?;
        let prepared = spec.prepare(table).map_err(|e| format!("sweep: {e}"))?;
        let units = prepared
            .features(table, &mut engine, &mut Timer::default(), |_| true)
            .map_err(|e| format!("sweep at {name} level {level}: {e}"))?;
        let n = units.len().max(1) as f64;
        let means = Metric::ALL.map(|m| units.iter().map(|u| m.of(&u.features)).sum::<f64>() / n);
        rows.push(SweepRow {
            wavelet: name.to_string(),
            level: *level,
            approx_len: prepared.plan.band_lens[0],
            means,
        });
        if !progress(i + 1, configs.len()) {
            return Err("sweep cancelled".into());
        }
    }
    Ok(rows)
}

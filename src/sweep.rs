//! Sweep: every wavelet × level over a data set, each configuration summarised by the mean
//! of a few features over all its prompt units, to rank configurations.

use crate::data::{Normalize, Table, Windows};
use crate::engine::{self, DType, EngineError, Plan};
use crate::features::{Aggregate, Features};
use crate::pipeline::{self, Shape};
use crate::timing::Timer;
use crate::wavelet::{self, Mode};
use serde::{Deserialize, Serialize};

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
    pub means: [f64; 6],
}

impl SweepRow {
    pub fn get(&self, m: Metric) -> f64 {
        self.means[Metric::ALL.iter().position(|&x| x == m).unwrap_or(0)]
    }
}

/// Every (wavelet, level) a window of `seq_len` allows.
pub fn configurations(seq_len: usize) -> Vec<(&'static str, usize)> {
    wavelet::all()
        .iter()
        .flat_map(|w| (1..=w.max_level(seq_len)).map(move |l| (w.name.as_str(), l)))
        .collect()
}

/// Run the sweep over non-overlapping windows of `seq_len` (the whole data set, once).
/// `progress(done, total)` answers whether to go on.
pub fn run(
    table: &Table,
    rows: Option<crate::data::RowRange>,
    seq_len: usize,
    mode: Mode,
    normalize: Normalize,
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Result<Vec<SweepRow>, EngineError> {
    let windows = Windows::new(table.rows(), rows, Some(seq_len), seq_len)
        .map_err(|_| EngineError::Cancelled)?;
    let configs = configurations(seq_len);
    let mut engine = engine::select(engine::EngineKind::Native);
    let mut rows = Vec::with_capacity(configs.len());
    for (i, (name, level)) in configs.iter().enumerate() {
        let w = wavelet::lookup(name).map_err(|_| EngineError::Cancelled)?;
        let plan = Plan::new(w, mode, *level, seq_len)?;
        let shape = Shape {
            table,
            windows,
            plan: &plan,
            normalize,
            dtype: DType::F64,
            aggregate: Aggregate::Series,
            batch_size: 1,
        };
        let units = pipeline::features(
            &mut engine.engine,
            &mut engine.notice,
            &shape,
            &mut Timer::default(),
            |_| true,
        )?;
        let n = units.len().max(1) as f64;
        let means = Metric::ALL.map(|m| units.iter().map(|u| m.of(&u.features)).sum::<f64>() / n);
        rows.push(SweepRow {
            wavelet: name.to_string(),
            level: *level,
            means,
        });
        if !progress(i + 1, configs.len()) {
            return Err(EngineError::Cancelled);
        }
    }
    Ok(rows)
}

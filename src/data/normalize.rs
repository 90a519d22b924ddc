//! Per-window, per-channel normalisation before features.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Normalize {
    #[default]
    None,
    /// `(x - mean) / std` (population std; a constant series becomes zeros).
    Zscore,
    /// Time-LLM's RevIN: `(x - mean) / sqrt(var_biased + 1e-5)`.
    Revin,
}

impl Normalize {
    pub const ALL: [Normalize; 3] = [Normalize::None, Normalize::Zscore, Normalize::Revin];
    pub fn name(self) -> &'static str {
        match self {
            Normalize::None => "none",
            Normalize::Zscore => "zscore",
            Normalize::Revin => "revin",
        }
    }

    /// Normalise one series in place.
    pub fn apply(self, x: &mut [f64]) {
        if self == Normalize::None || x.is_empty() {
            return;
        }
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        let denom = match self {
            Normalize::Revin => (var + 1e-5).sqrt(),
            _ if var > 0.0 => var.sqrt(),
            _ => 1.0,
        };
        x.iter_mut().for_each(|v| *v = (*v - mean) / denom);
    }
}

impl fmt::Display for Normalize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Normalize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim().to_ascii_lowercase();
        Normalize::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown normalisation '{s}' (expected none, zscore or revin)"))
    }
}

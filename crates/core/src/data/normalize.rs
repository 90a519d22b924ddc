//! Per-window, per-channel normalisation before features.

use crate::numeric::sums;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
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

    /// The map this normalisation applies to the series `x`.
    #[inline(always)]
    pub fn affine(self, x: &[f64]) -> Affine {
        if self == Normalize::None || x.is_empty() {
            return Affine::IDENTITY;
        }
        let n = x.len() as f64;
        let mean = sums::sum_by(x, |v| v) / n;
        let var = sums::sum_by(x, |v| (v - mean) * (v - mean)) / n;
        let denom = match self {
            Normalize::Revin => (var + 1e-5).sqrt(),
            _ if var > 0.0 => var.sqrt(),
            _ => 1.0,
        };
        Affine {
            mean,
            scale: 1.0 / denom,
        }
    }

    /// Normalise one series in place.
    pub fn apply(self, x: &mut [f64]) {
        let a = self.affine(x);
        x.iter_mut().for_each(|v| *v = a.map(*v));
    }
}

/// `v ↦ (v - mean) · scale` with `scale = 1 / std > 0` (a multiply: division would be most
/// of a window's cost). Monotone, also after rounding, so order statistics of a normalised
/// window are the normalised order statistics of the raw one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Affine {
    pub mean: f64,
    pub scale: f64,
}

impl Affine {
    pub const IDENTITY: Affine = Affine {
        mean: 0.0,
        scale: 1.0,
    };

    #[inline(always)]
    pub fn map(&self, v: f64) -> f64 {
        (v - self.mean) * self.scale
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

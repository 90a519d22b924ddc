//! Input whose wavelet features describe nothing (docs/features.md#degenerate-input): a
//! constant window (every band's energy is zero, so the ratios, SNR, difficulty and lags
//! are artefacts of the formulas), or a level that leaves under two coefficients in the
//! approximation band (its spread is zero: SNR and everything built on it describe the
//! level). Such units are flagged in every record; a constant one is described as
//! "constant input" instead of band claims, unless the run keeps the seed's wording.

use super::Features;
use crate::data::Windows;
use crate::engine::Plan;
use crate::stats::LagRule;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a unit's wavelet features describe nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Degenerate {
    /// Every value of the input is the same.
    Constant,
    /// The level leaves fewer than 2 coefficients in the approximation band.
    Level,
}

impl Degenerate {
    pub fn name(self) -> &'static str {
        match self {
            Degenerate::Constant => "constant",
            Degenerate::Level => "level",
        }
    }
}

impl fmt::Display for Degenerate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether `plan`'s level leaves fewer than 2 coefficients in the approximation band.
pub fn level_is_degenerate(plan: &Plan) -> bool {
    plan.band_lens.first().is_some_and(|&n| n < 2)
}

/// How a run describes each unit beyond its features' formulas: which top lags its
/// prompt prints, and how degenerate units are flagged and worded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Describe {
    /// The level leaves under two approximation coefficients: every unit is flagged.
    pub degenerate_level: bool,
    /// Constant input is described as the seed did (no flag, band claims, top lags).
    pub seed_compatible: bool,
    /// Which top lags `lags` holds (`--lags`).
    pub lags: LagRule,
}

impl Describe {
    pub fn new(plan: &Plan, seed_compatible: bool) -> Self {
        Describe {
            degenerate_level: level_is_degenerate(plan),
            seed_compatible,
            lags: LagRule::Timellm,
        }
    }

    /// The same, with `lags` as the prompt's top lags.
    pub fn with_lags(self, lags: LagRule) -> Self {
        Describe { lags, ..self }
    }

    /// Finish one unit's features: its top lags by the rule, then the flag (and for
    /// constant input, the wording); `constant`: whether every series of the unit is
    /// constant.
    pub fn apply(self, f: &mut Features, constant: bool) {
        if self.lags == LagRule::Clean {
            f.lags = f.lags_clean.clone();
        }
        if constant && !self.seed_compatible {
            mark_constant(f);
        } else if self.degenerate_level {
            f.degenerate = Some(Degenerate::Level);
        }
    }
}

/// What a constant unit's descriptions say.
pub const CONSTANT_INPUT: &str = "constant input";

/// Whether every value of `x` is the same (NaN is never equal, so a window with one is not).
pub fn is_constant<T: PartialEq + Copy>(x: &[T]) -> bool {
    x.first().is_some_and(|&a| x.iter().all(|&v| v == a))
}

/// For each of `windows` over one channel's `values` (window `i` starts at
/// `windows.start(i)` within `values`), whether it is constant: one pass over the rows
/// (each row's run of equal values), however much the windows overlap.
pub fn constant_windows(values: &[f64], windows: &Windows) -> Vec<bool> {
    if windows.count == 0 {
        return Vec::new();
    }
    let end = windows.start(windows.count - 1) + windows.seq_len;
    let values = &values[..end.min(values.len())];
    // run_start[r]: the first row of the run of equal values that holds row r.
    let mut run_start = Vec::with_capacity(values.len());
    for (r, v) in values.iter().enumerate() {
        let start = match r {
            0 => 0,
            _ if values[r - 1] == *v => run_start[r - 1],
            _ => r,
        };
        run_start.push(start);
    }
    (0..windows.count)
        .map(|i| {
            let s = windows.start(i);
            let last = s + windows.seq_len - 1;
            last < run_start.len() && run_start[last] <= s
        })
        .collect()
}

/// Describe a constant unit as such: the flag, "constant input" for every description,
/// and no lags (the autocorrelation of a constant is zero at every lag, so Time-LLM's
/// ranking returns its first indices). The numbers stay what the formulas give
/// (docs/features.md#degenerate-input); the flag says they describe nothing.
pub fn mark_constant(f: &mut Features) {
    f.degenerate = Some(Degenerate::Constant);
    for d in [
        &mut f.freq_pattern,
        &mut f.trend_desc,
        &mut f.stability_desc,
        &mut f.signal_quality,
        &mut f.difficulty,
    ] {
        *d = CONSTANT_INPUT.into();
    }
    f.lags.clear();
    f.lags_clean.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_windows_follow_runs_of_equal_values() {
        //           0    1    2    3    4    5    6    7    8
        let x = [1.0, 2.0, 2.0, 2.0, 2.0, 3.0, f64::NAN, f64::NAN, 3.0];
        let w = Windows {
            first_row: 0,
            first: 0,
            seq_len: 3,
            stride: 1,
            count: 7,
        };
        let want: Vec<bool> = (0..7).map(|i| is_constant(&x[i..i + 3])).collect();
        assert_eq!(
            want,
            [false, true, true, false, false, false, false],
            "the reference"
        );
        assert_eq!(constant_windows(&x, &w), want);
        // Windows that start further in, with a stride.
        let w = Windows {
            first_row: 1,
            stride: 2,
            count: 3,
            ..w
        };
        assert_eq!(constant_windows(&x, &w), [true, false, false]);
        assert!(!is_constant::<f64>(&[]));
    }
}

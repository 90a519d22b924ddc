//! Do a prompt's claims tell a forecaster anything about what comes next? Each unit's
//! categorical claims (its trend word, pattern, difficulty, …) against what its horizon
//! did (direction, the naive forecast's error, the volatility), as mutual information in
//! bits over the units of a chronological split, against a null of circular shifts that
//! keeps overlapping windows' dependence, with block-bootstrap intervals (docs/score.md).
//!
//! The score is a proxy for a forecaster's use of the prompt, not a forecast.

mod cells;
mod claim_spec;
mod column;
pub mod defined;
pub mod forecaster;
pub mod gain;
mod horizons;
pub mod information;
mod layout;
mod masks;
pub mod outcomes;
mod saved;
pub mod sequences;
pub mod split;
mod tally;
mod tiles;
mod units;

pub use claim_spec::{ClaimSpec, ClaimSpecs};
pub use column::{ColumnStats, Info};
pub use defined::{ClaimVars, DefinedClaim, DefinedError, WindowFacts};
pub use forecaster::{ForecastClasses, Forecaster};
pub use gain::{ForecastGain, GainUnits};
pub use horizons::Horizons;
pub use information::{interval, paired_interval};
pub use information::{Diversity, TextKey};
pub use layout::{Fix, Layout};
pub use outcomes::{Outcome, Terciles};
pub use sequences::{Protocol, Sequences};
pub use split::{Borders, Part, PartCounts, PerPart, ScoredPart, Split, SplitError};
pub use tally::{ClaimInfo, Evaluation, StatisticsColumns, Tally};
pub use units::Scorer;

use crate::features::{Features, Reads};

/// Why a data set cannot be scored under a horizon and split. The values are named; the
/// command line (`sweep::scorer`) adds its options' names.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScoreError {
    #[error("a horizon of {0} rows: scoring needs at least 2 (vol_ratio reads its differences)")]
    ShortHorizon(usize),
    #[error("split {split}: needs {need} rows (ETT's 20 months), the data has {rows}")]
    TooFewRows {
        split: Split,
        need: usize,
        rows: usize,
    },
    #[error("split {split}: the {part} part of {rows} rows is empty")]
    EmptyPart {
        split: Split,
        part: &'static str,
        rows: usize,
    },
    #[error("no unit's horizon lies wholly in the {part} part ({rows} rows)")]
    NoUnits {
        part: &'static str,
        /// The part's rows (of the largest file).
        rows: usize,
        seq_len: usize,
        stride: usize,
        pred_len: usize,
        /// A value that passes the check, where the caller searched one ([`Layout`]).
        fix: Option<Fix>,
    },
    #[error("a window of {seq_len} rows and a horizon of {pred_len} rows need more than the data's {rows} rows")]
    LongerThanData {
        seq_len: usize,
        pred_len: usize,
        rows: usize,
        fix: Option<Fix>,
    },
    #[error("the null needs at least 1 draw (99 by default)")]
    NoDraws,
    #[error("{draws} draws: at most {max} (the null's p-values then resolve 1e-4)")]
    TooManyDraws { draws: usize, max: usize },
    #[error("the intervals and ties need at least 1 replicate (199 by default)")]
    NoReplicates,
    #[error("{replicates} replicates: at most {max}")]
    TooManyReplicates { replicates: usize, max: usize },
    #[error("the series-only forecaster cannot be fit: no train unit has a finite outcome")]
    NoForecaster,
    #[error("the {part} part's longest channel sequence holds {longest} units: a circular shift needs at least 3")]
    TooShortToShift {
        part: &'static str,
        longest: usize,
        fix: Option<Fix>,
    },
}

impl ScoreError {
    /// The same refusal with a value that passes the check, searched over `layout` under
    /// `split` ([`Layout`]: the same count the check makes), where the refusal is about
    /// the units' count and one exists.
    pub fn with_fix(mut self, layout: &Layout, split: &Split) -> Self {
        let found = match &self {
            ScoreError::LongerThanData { .. } => layout
                .longest_pred_len(split)
                .map(Fix::PredLen)
                .or_else(|| layout.longest_seq_len(split).map(Fix::SeqLen)),
            &ScoreError::NoUnits {
                part,
                rows,
                seq_len,
                pred_len,
                ..
            } => if part == "train" && seq_len >= rows {
                layout.longest_seq_len(split).map(Fix::SeqLen)
            } else if pred_len > rows.saturating_sub(if part == "train" { seq_len } else { 0 }) {
                layout.longest_pred_len(split).map(Fix::PredLen)
            } else {
                layout.largest_stride(split).map(Fix::Stride)
            }
            .or_else(|| layout.fix(split)),
            ScoreError::TooShortToShift { .. } => layout.fix(split),
            _ => None,
        };
        if let ScoreError::LongerThanData { fix, .. }
        | ScoreError::NoUnits { fix, .. }
        | ScoreError::TooShortToShift { fix, .. } = &mut self
        {
            *fix = found;
        }
        self
    }
}

/// "give --pred-len 95 or less", the fix's option named.
fn advice(fix: Option<Fix>) -> Option<(Opt, String)> {
    Some(match fix? {
        Fix::PredLen(n) => (Opt::PredLen, format!("give {OPTION} {n} or less")),
        Fix::SeqLen(n) => (Opt::SeqLen, format!("give {OPTION} {n} or less")),
        Fix::Stride(n) => (Opt::Stride, format!("give {OPTION} {n} or less")),
    })
}
use crate::names::{Opt, Phrase, OPTION};

impl ScoreError {
    /// The message with the options a user can change to fix it.
    pub fn phrase(&self) -> Phrase {
        use Opt::*;
        match self {
            ScoreError::ShortHorizon(n) => Phrase::about(
                &[PredLen],
                format!("{OPTION} {n}: scoring needs a horizon of at least 2 rows (vol_ratio reads its differences)"),
            ),
            ScoreError::TooFewRows { split, need, rows } => Phrase::about(
                &[Split],
                format!("{OPTION} {split}: needs {need} rows (ETT's 20 months), the data has {rows}"),
            ),
            ScoreError::EmptyPart { split, part, rows } => Phrase::about(
                &[Split],
                format!("{OPTION} {split}: the {part} part of {rows} rows is empty"),
            ),
            &ScoreError::NoUnits {
                part,
                rows,
                seq_len,
                stride,
                pred_len,
                fix,
            } => self.no_units(part, rows, seq_len, stride, pred_len, fix),
            &ScoreError::TooShortToShift { fix, .. } => match advice(fix) {
                Some((o, a)) => Phrase::about(&[o, Split], format!("{self}: {a}, or change {OPTION}")),
                None => Phrase::about(
                    &[Stride, PredLen, SeqLen, Split],
                    format!("{self}: lower {OPTION}, {OPTION} or {OPTION}, or change {OPTION}"),
                ),
            },
            &ScoreError::LongerThanData {
                seq_len,
                pred_len,
                rows,
                fix,
            } => {
                let head = format!(
                    "{OPTION} {pred_len}: a window of {OPTION} {seq_len} rows and a horizon that long need more than the data's {rows} rows"
                );
                match advice(fix) {
                    Some((o, a)) => Phrase::about(&[PredLen, SeqLen, o], format!("{head}: {a}")),
                    None => Phrase::about(&[PredLen, SeqLen], head),
                }
            }
            ScoreError::NoDraws => Phrase::about(&[NullDraws], format!("{OPTION} 0: {self}")),
            ScoreError::TooManyDraws { draws, max } => Phrase::about(
                &[NullDraws],
                format!("{OPTION} {draws}: at most {max} (the null's p-values then resolve 1e-4)"),
            ),
            ScoreError::NoReplicates => {
                Phrase::about(&[Bootstrap], format!("{OPTION} 0: {self}"))
            }
            ScoreError::TooManyReplicates { replicates, max } => Phrase::about(
                &[Bootstrap],
                format!("{OPTION} {replicates}: at most {max} replicates"),
            ),
            ScoreError::NoForecaster => Phrase::about(
                &[Split, PredLen],
                format!("{self}: change {OPTION} or {OPTION}"),
            ),
        }
    }

    /// [`ScoreError::NoUnits`]' phrase: which of the window, the horizon or the stride
    /// leaves `part` (of `rows` rows) without a unit, and the fix.
    fn no_units(
        &self,
        part: &str,
        rows: usize,
        seq_len: usize,
        stride: usize,
        pred_len: usize,
        fix: Option<Fix>,
    ) -> Phrase {
        use Opt::*;
        // A horizon in train follows a whole window inside it; in val or test the
        // window may reach back into the part before.
        let room = if part == "train" {
            rows.saturating_sub(seq_len)
        } else {
            rows
        };
        let t = if part == "train" {
            format!(" after a window of {seq_len}")
        } else {
            String::new()
        };
        let (mut options, head) = if part == "train" && seq_len >= rows {
            (
                vec![SeqLen],
                format!(
                    "{OPTION} {seq_len}: the train part holds {rows} rows, no more than a window"
                ),
            )
        } else if pred_len > room {
            (
                vec![PredLen],
                format!("{OPTION} {pred_len}: the {part} part holds {rows} rows, so a horizon{t} fits only up to {room} rows"),
            )
        } else {
            (
                vec![Stride],
                format!("{self}: at {OPTION} {stride} no window's horizon lands in it"),
            )
        };
        let text = match advice(fix) {
            Some((o, a)) => {
                options.extend([o, Split]);
                format!("{head}: {a}, or change {OPTION}")
            }
            None => {
                options.push(Split);
                format!("{head}; change {OPTION}")
            }
        };
        Phrase::about(&options, text)
    }
}

use serde::Serialize;

/// A categorical claim a prompt makes, under its name in docs/score.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Claim {
    /// Time-LLM's word: "upward" if the input's sum of differences is > 0, else "downward".
    Trend,
    TrendDesc,
    Difficulty,
    /// Whether the difficulty is high: all `dwt-minimal` says of it.
    DifficultyHigh,
    SignalQuality,
    StabilityDesc,
    FreqPattern,
    DominantBand,
    /// The top-5 lags, the whole list as one category.
    Lags,
}

crate::names::named! {
    Claim, "claim":
    Trend = "trend",
    TrendDesc = "trend_desc",
    Difficulty = "difficulty",
    DifficultyHigh = "difficulty_high",
    SignalQuality = "signal_quality",
    StabilityDesc = "stability_desc",
    FreqPattern = "freq_pattern",
    DominantBand = "dominant_band",
    Lags = "lags",
}

impl Claim {
    /// What the claims read of the wavelet features: every description and the dominant
    /// band (a run may slide where these come out as the per-window path's).
    pub const READS: Reads = Reads {
        stability: true,
        dominant: true,
        ..Reads::DESCRIPTIONS
    };

    /// Whether this claim reads only Time-LLM's statistics (the trend word, the lags), so
    /// that no wavelet changes it.
    pub fn of_statistics(self) -> bool {
        matches!(self, Claim::Trend | Claim::Lags)
    }

    /// The outcome this claim is scored against, if it is part of the score.
    pub fn scored_against(self) -> Option<Target> {
        match self {
            Claim::Trend | Claim::TrendDesc => Some(Target::Direction),
            Claim::Difficulty | Claim::DifficultyHigh | Claim::SignalQuality => {
                Some(Target::NaiveMase)
            }
            Claim::StabilityDesc | Claim::FreqPattern | Claim::DominantBand => {
                Some(Target::VolRatio)
            }
            Claim::Lags => None,
        }
    }

    /// This claim's category for a unit's features, written into `buf`; `bands` names the
    /// bands (cA3, cD3, …).
    pub fn category<'a>(
        self,
        f: &'a Features,
        bands: &'a [String],
        buf: &'a mut String,
    ) -> &'a str {
        match self {
            Claim::Trend => {
                if f.trend > 0.0 {
                    "upward"
                } else {
                    "downward"
                }
            }
            Claim::TrendDesc => &f.trend_desc,
            Claim::Difficulty => &f.difficulty,
            Claim::DifficultyHigh => {
                if f.difficulty == "high" {
                    "high"
                } else {
                    "not high"
                }
            }
            Claim::SignalQuality => &f.signal_quality,
            Claim::StabilityDesc => &f.stability_desc,
            Claim::FreqPattern => &f.freq_pattern,
            Claim::DominantBand => bands.get(f.dominant_band).map_or("?", String::as_str),
            Claim::Lags => {
                buf.clear();
                buf.push('[');
                for (i, l) in f.lags.iter().enumerate() {
                    if i > 0 {
                        buf.push_str(", ");
                    }
                    buf.push_str(itoa::Buffer::new().format(*l));
                }
                buf.push(']');
                buf
            }
        }
    }
}

impl Claim {
    /// The claims a template's prompts print, and so the ones its score sums: the
    /// built-ins by their text (`dwt-minimal` names the difficulty only when it is high;
    /// `dwt-balanced` omits a moderate one, which still tells it apart), other templates by
    /// the variables they read. The lags are printed but never scored (docs/score.md).
    pub fn printed(p: &crate::prompt::Prompter) -> Vec<Claim> {
        let dwt = |difficulty| {
            vec![
                Claim::TrendDesc,
                difficulty,
                Claim::SignalQuality,
                Claim::FreqPattern,
            ]
        };
        match p.builtin_name() {
            Some("timellm") => vec![Claim::Trend],
            Some("dwt-minimal") => dwt(Claim::DifficultyHigh),
            Some(_) => dwt(Claim::Difficulty),
            None => {
                let vars = p.variables();
                Claim::ALL
                    .into_iter()
                    .filter(|c| c.scored_against().is_some() && *c != Claim::DifficultyHigh)
                    .filter(|c| {
                        let var = match c {
                            Claim::Trend => "trend",
                            other => other.name(),
                        };
                        vars.iter().any(|v| v == var)
                    })
                    .collect()
            }
        }
    }

    /// Time-LLM's own prompt: what every other template's gain is measured from.
    pub const BASELINE: [Claim; 1] = [Claim::Trend];
}

/// A built-in claim or one a researcher defined.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyClaim {
    Builtin(Claim),
    Defined(std::sync::Arc<DefinedClaim>),
}

/// A built-in claim by its name, a defined one by its `NAME[:OUTCOME]=TEMPLATE` (compiled
/// again when read).
#[derive(Serialize, serde::Deserialize)]
enum AnyClaimForm {
    Builtin(Claim),
    Defined(String),
}

impl Serialize for AnyClaim {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AnyClaim::Builtin(c) => AnyClaimForm::Builtin(*c),
            AnyClaim::Defined(d) => AnyClaimForm::Defined(d.spec.to_string()),
        }
        .serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for AnyClaim {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<AnyClaim, D::Error> {
        Ok(match AnyClaimForm::deserialize(d)? {
            AnyClaimForm::Builtin(c) => AnyClaim::Builtin(c),
            AnyClaimForm::Defined(spec) => AnyClaim::Defined(std::sync::Arc::new(
                DefinedClaim::parse(&spec).map_err(serde::de::Error::custom)?,
            )),
        })
    }
}

impl AnyClaim {
    pub fn name(&self) -> &str {
        match self {
            AnyClaim::Builtin(c) => c.name(),
            AnyClaim::Defined(d) => d.name(),
        }
    }

    /// The outcome it is scored against, if it is part of the score.
    pub fn scored_against(&self) -> Option<Target> {
        match self {
            AnyClaim::Builtin(c) => c.scored_against(),
            AnyClaim::Defined(d) => d.target(),
        }
    }
}

/// What a horizon did, as classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Direction,
    NaiveMase,
    VolRatio,
}

/// One value per outcome, indexed by [`Target`] (stored in `Target::ALL`'s order, and
/// written as that list).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct PerTarget<T>(pub [T; 3]);

impl<T> std::ops::Index<Target> for PerTarget<T> {
    type Output = T;
    fn index(&self, t: Target) -> &T {
        &self.0[t as usize]
    }
}

impl<T> std::ops::IndexMut<Target> for PerTarget<T> {
    fn index_mut(&mut self, t: Target) -> &mut T {
        &mut self.0[t as usize]
    }
}

impl<T> PerTarget<T> {
    /// Each outcome's value from `f`.
    pub fn from_fn(mut f: impl FnMut(Target) -> T) -> Self {
        PerTarget(Target::ALL.map(&mut f))
    }
}

crate::names::named! {
    Target, "outcome":
    Direction = "direction",
    NaiveMase = "naive_mase",
    VolRatio = "vol_ratio",
}

impl Target {
    pub fn classes(self) -> &'static [&'static str] {
        match self {
            Target::Direction => &["down", "up"],
            Target::NaiveMase | Target::VolRatio => &outcomes::TERCILE_NAMES,
        }
    }
}

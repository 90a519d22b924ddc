//! The claims a prompt makes: the built-in ones ([`Claim`], under their names in
//! docs/score.md) and, beside them, those a researcher defines ([`AnyClaim`]).

use super::{DefinedClaim, Target};
use crate::features::{Features, Reads};
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

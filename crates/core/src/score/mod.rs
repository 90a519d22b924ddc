//! Do a prompt's claims tell a forecaster anything about what comes next? Each unit's
//! categorical claims (its trend word, pattern, difficulty, …) against what its horizon
//! did (direction, the naive forecast's error, the volatility), as mutual information in
//! bits over the units of a chronological split, against a null of circular shifts that
//! keeps overlapping windows' dependence, with block-bootstrap intervals (docs/score.md).
//!
//! The score is a proxy for a forecaster's use of the prompt, not a forecast.

mod cells;
mod claim;
mod claim_spec;
mod column;
pub mod defined;
mod error;
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
mod target;
mod tiles;
mod units;

pub use claim::{AnyClaim, Claim};
pub use claim_spec::{ClaimSpec, ClaimSpecs};
pub use column::{ColumnStats, Info};
pub use defined::{ClaimVars, DefinedClaim, DefinedError, WindowFacts};
pub use error::ScoreError;
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
pub use target::{PerTarget, Target};
pub use units::Scorer;

//! Why a data set cannot be scored under a horizon and split, and how each front end
//! words it ([`ScoreError::phrase`]).

use super::{Fix, Layout, Split};
use crate::names::{Opt, Phrase, OPTION};

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

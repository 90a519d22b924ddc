//! The chronological split of a series into train, validation and test rows, as
//! Time-LLM's data loaders cut it (docs/score.md#split).

use super::ScoreError;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// How a file's rows are split.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Split {
    /// Shares of the rows: `n_train = int(train·n)`, `n_test = int(test·n)`, validation the
    /// rest (Time-LLM's `Dataset_Custom`).
    Ratios { train: f64, val: f64, test: f64 },
    /// ETT's fixed months at one row an hour: 12 months of train, 4 of val, 4 of test (30-day
    /// months), so 8,640 / 2,880 / 2,880 rows (`Dataset_ETT_hour`).
    EttHour,
    /// The same months at one row per 15 minutes: ×4 (`Dataset_ETT_minute`).
    EttMinute,
}

impl Default for Split {
    fn default() -> Self {
        Split::Ratios {
            train: 0.7,
            val: 0.1,
            test: 0.2,
        }
    }
}

/// The rows of each part of one file (in the run's row numbers).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Borders {
    pub train: Range<usize>,
    pub val: Range<usize>,
    pub test: Range<usize>,
}

impl Borders {
    pub fn part(&self, p: Part) -> &Range<usize> {
        match p {
            Part::Train => &self.train,
            Part::Val => &self.val,
            Part::Test => &self.test,
        }
    }

    /// The part whose rows hold every row of `horizon`, if one does.
    pub fn holding(&self, horizon: &Range<usize>) -> Option<Part> {
        Part::ALL.into_iter().find(|&p| {
            let r = self.part(p);
            r.start <= horizon.start && horizon.end <= r.end
        })
    }
}

/// One part of the split.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Part {
    Train,
    Val,
    Test,
}

/// A part the scores are read on: val or test (train fits, and is not scored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScoredPart {
    Val,
    Test,
}

impl ScoredPart {
    /// The part of the split it is.
    pub fn part(self) -> Part {
        match self {
            ScoredPart::Val => Part::Val,
            ScoredPart::Test => Part::Test,
        }
    }

    /// Val or test as a scored part; None for train.
    pub fn of(p: Part) -> Option<ScoredPart> {
        match p {
            Part::Train => None,
            Part::Val => Some(ScoredPart::Val),
            Part::Test => Some(ScoredPart::Test),
        }
    }
}

/// One thing for each scored part: val's and test's.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PerPart<T> {
    pub val: T,
    pub test: T,
}

impl<T> PerPart<T> {
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> PerPart<U> {
        PerPart {
            val: f(self.val),
            test: f(self.test),
        }
    }

    pub fn each_ref(&self) -> PerPart<&T> {
        PerPart {
            val: &self.val,
            test: &self.test,
        }
    }

    /// Val's, then test's.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        [&self.val, &self.test].into_iter()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        [&mut self.val, &mut self.test].into_iter()
    }

    /// `[val, test]`.
    pub fn into_array(self) -> [T; 2] {
        [self.val, self.test]
    }

    /// `f` of each scored part.
    pub fn from_fn(mut f: impl FnMut(ScoredPart) -> T) -> PerPart<T> {
        PerPart {
            val: f(ScoredPart::Val),
            test: f(ScoredPart::Test),
        }
    }

    /// Val's or test's.
    pub fn of(&self, p: ScoredPart) -> &T {
        match p {
            ScoredPart::Val => &self.val,
            ScoredPart::Test => &self.test,
        }
    }

    /// Val's or test's; None for train, which is not scored.
    pub fn get(&self, p: Part) -> Option<&T> {
        ScoredPart::of(p).map(|s| self.of(s))
    }

    /// Each part's pair of this one's and `other`'s.
    pub fn zip<U>(self, other: PerPart<U>) -> PerPart<(T, U)> {
        PerPart {
            val: (self.val, other.val),
            test: (self.test, other.test),
        }
    }
}

// Written as `[val, test]`, the form saved sweeps have always held, so that their bytes
// do not change.
impl<T: serde::Serialize> serde::Serialize for PerPart<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (&self.val, &self.test).serialize(s)
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for PerPart<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (val, test) = <(T, T)>::deserialize(d)?;
        Ok(PerPart { val, test })
    }
}

/// A count for each part of the split (units, most often).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PartCounts {
    pub train: usize,
    pub val: usize,
    pub test: usize,
}

impl PartCounts {
    pub fn of(&self, p: Part) -> usize {
        match p {
            Part::Train => self.train,
            Part::Val => self.val,
            Part::Test => self.test,
        }
    }

    pub fn of_mut(&mut self, p: Part) -> &mut usize {
        match p {
            Part::Train => &mut self.train,
            Part::Val => &mut self.val,
            Part::Test => &mut self.test,
        }
    }
}

// Written as `[train, val, test]`, the form the saved sweeps and prepared folders have
// always held, so that their bytes do not change.
impl serde::Serialize for PartCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        [self.train, self.val, self.test].serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for PartCounts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let [train, val, test] = <[usize; 3]>::deserialize(d)?;
        Ok(PartCounts { train, val, test })
    }
}

impl Part {
    pub const ALL: [Part; 3] = [Part::Train, Part::Val, Part::Test];
    pub fn name(self) -> &'static str {
        match self {
            Part::Train => "train",
            Part::Val => "val",
            Part::Test => "test",
        }
    }
}

/// ETT's months in hours: 12·30·24 train rows, 4·30·24 each for val and test.
const ETT_TRAIN: usize = 12 * 30 * 24;
const ETT_PART: usize = 4 * 30 * 24;

impl Split {
    /// The parts of `rows` rows starting at row `first`; an error says why the rows do not
    /// split (too few for the ETT months, an empty part).
    pub fn borders(&self, first: usize, rows: usize) -> Result<Borders, ScoreError> {
        let (n_train, n_val, n_test) = match *self {
            Split::Ratios { train, test, .. } => {
                // Python's int() of a float: truncation toward zero.
                let n_train = (train * rows as f64) as usize;
                let n_test = (test * rows as f64) as usize;
                (n_train, rows - n_train - n_test, n_test)
            }
            Split::EttHour | Split::EttMinute => {
                let k = if *self == Split::EttMinute { 4 } else { 1 };
                let need = (ETT_TRAIN + 2 * ETT_PART) * k;
                if rows < need {
                    return Err(ScoreError::TooFewRows {
                        split: *self,
                        need,
                        rows,
                    });
                }
                (ETT_TRAIN * k, ETT_PART * k, ETT_PART * k)
            }
        };
        for (n, part) in [
            (n_train, Part::Train),
            (n_val, Part::Val),
            (n_test, Part::Test),
        ] {
            if n == 0 {
                return Err(ScoreError::EmptyPart {
                    split: *self,
                    part: part.name(),
                    rows,
                });
            }
        }
        let a = first + n_train;
        let b = a + n_val;
        Ok(Borders {
            train: first..a,
            val: a..b,
            test: b..b + n_test,
        })
    }
}

impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Split::Ratios { train, val, test } => write!(f, "{train},{val},{test}"),
            Split::EttHour => f.write_str("ett-hour"),
            Split::EttMinute => f.write_str("ett-minute"),
        }
    }
}

/// A split that is none of the forms `--split` takes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SplitError {
    #[error(
        "'{0}': expected TRAIN,VAL,TEST shares such as 0.7,0.1,0.2, or ett-hour, or ett-minute"
    )]
    Form(String),
    #[error("'{given}': the {part} share '{share}' is not a number from 0 to 1")]
    Share {
        given: String,
        part: &'static str,
        share: String,
    },
    #[error("'{given}': the shares sum to {sum}, not 1")]
    Sum { given: String, sum: f64 },
}

impl FromStr for Split {
    type Err = SplitError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "ett-hour" => return Ok(Split::EttHour),
            "ett-minute" => return Ok(Split::EttMinute),
            _ => {}
        }
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let [train, val, test] = parts.as_slice() else {
            return Err(SplitError::Form(s.to_string()));
        };
        let share = |t: &str, part: &'static str| match t.parse::<f64>() {
            Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
            _ => Err(SplitError::Share {
                given: s.to_string(),
                part,
                share: t.to_string(),
            }),
        };
        let (train, val, test) = (
            share(train, "train")?,
            share(val, "val")?,
            share(test, "test")?,
        );
        let sum = train + val + test;
        if (sum - 1.0).abs() > 1e-9 {
            return Err(SplitError::Sum {
                given: s.to_string(),
                sum: (sum * 1e9).round() / 1e9,
            });
        }
        Ok(Split::Ratios { train, val, test })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_cut_as_time_llm() {
        let b = Split::default().borders(0, 17420).unwrap();
        // int(0.7·17420) = 12194, int(0.2·17420) = 3484, val the rest.
        assert_eq!(b.train, 0..12194);
        assert_eq!(b.val, 12194..13936);
        assert_eq!(b.test, 13936..17420);
        let b = Split::default().borders(100, 10).unwrap();
        assert_eq!((b.train, b.val, b.test), (100..107, 107..108, 108..110));
    }

    #[test]
    fn ett_months() {
        let b = Split::EttHour.borders(0, 17420).unwrap();
        assert_eq!(
            (b.train, b.val, b.test),
            (0..8640, 8640..11520, 11520..14400)
        );
        let b = Split::EttMinute.borders(0, 69680).unwrap();
        assert_eq!(b.test, 46080..57600);
        let e = Split::EttHour.borders(0, 14399).unwrap_err();
        assert_eq!(
            e,
            ScoreError::TooFewRows {
                split: Split::EttHour,
                need: 14400,
                rows: 14399
            }
        );
        assert!(e.to_string().contains("needs 14400 rows"), "{e}");
    }

    #[test]
    fn parse_and_refuse() {
        assert_eq!("0.7,0.1,0.2".parse::<Split>().unwrap(), Split::default());
        assert_eq!(" ett-hour ".parse::<Split>().unwrap(), Split::EttHour);
        let e = "0.7,0.2,0.2".parse::<Split>().unwrap_err();
        assert!(e.to_string().contains("sum to 1.1"), "{e}");
        let e = "0.7,0.3".parse::<Split>().unwrap_err();
        assert_eq!(e, SplitError::Form("0.7,0.3".into()));
        assert!(e.to_string().contains("TRAIN,VAL,TEST"));
        let e = "0.7,x,0.3".parse::<Split>().unwrap_err();
        assert!(e.to_string().contains("val share 'x'"), "{e}");
        let e = Split::default().borders(0, 3).unwrap_err();
        assert!(
            e.to_string().contains("test part of 3 rows is empty"),
            "{e}"
        );
    }

    #[test]
    fn holding_needs_every_horizon_row() {
        let b = Split::default().borders(0, 100).unwrap(); // 0..70, 70..80, 80..100
        assert_eq!(b.holding(&(60..70)), Some(Part::Train));
        assert_eq!(b.holding(&(65..75)), None);
        assert_eq!(b.holding(&(70..80)), Some(Part::Val));
        assert_eq!(b.holding(&(95..101)), None);
    }
}

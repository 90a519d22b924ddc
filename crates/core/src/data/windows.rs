//! Windows over a table: window `i` covers rows `[start + i*stride, … + seq_len)`. Windows
//! are start rows, not copies; a batch is gathered only when an engine needs one.

use super::{refuse, DataError, Opt, OPTION};
use crate::names::BadValue;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// `START..END`: 0-based data rows, END exclusive (either side may be left out). Written
/// and read as that text (a configuration file's `rows = "0..8640"`), checked where it is
/// read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RowRange {
    pub start: usize,
    pub end: Option<usize>,
}

impl FromStr for RowRange {
    type Err = BadValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad_as = |expected| BadValue {
            what: "row range",
            given: s.to_string(),
            expected,
        };
        let bad = || bad_as("START..END, e.g. 0..8640");
        let (a, b) = s.split_once("..").ok_or_else(bad)?;
        let start = if a.trim().is_empty() {
            0
        } else {
            a.trim().parse().map_err(|_| bad())?
        };
        let end = if b.trim().is_empty() {
            None
        } else {
            Some(b.trim().parse().map_err(|_| bad())?)
        };
        if end.is_some_and(|e| e <= start) {
            return Err(bad_as("END greater than START"));
        }
        Ok(RowRange { start, end })
    }
}

impl TryFrom<String> for RowRange {
    type Error = BadValue;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<RowRange> for String {
    fn from(r: RowRange) -> String {
        r.to_string()
    }
}

impl fmt::Display for RowRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.end {
            Some(e) => write!(f, "{}..{e}", self.start),
            None => write!(f, "{}..", self.start),
        }
    }
}

/// The windows of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Windows {
    /// The table row where window 0 of these windows starts.
    pub first_row: usize,
    /// The run's number of window 0 (non-zero for a part of a run, e.g. a shard).
    pub first: usize,
    pub seq_len: usize,
    pub stride: usize,
    pub count: usize,
}

impl Windows {
    /// Windows over `rows` table rows; `seq_len` None = the whole (selected) series.
    pub fn new(
        rows: usize,
        range: Option<RowRange>,
        seq_len: Option<usize>,
        stride: usize,
    ) -> Result<Self, DataError> {
        let (start, end) = match range {
            Some(r) => (r.start, r.end.unwrap_or(rows)),
            None => (0, rows),
        };
        if start >= rows || end > rows {
            return refuse(
                &[Opt::Rows],
                format!(
                    "{OPTION} {}: the data has only {rows} rows",
                    range.map_or(String::new(), |r| r.to_string())
                ),
            );
        }
        let avail = end - start;
        let seq_len = seq_len.unwrap_or(avail);
        if seq_len == 0 {
            return refuse(&[Opt::SeqLen], format!("{OPTION} must be at least 1"));
        }
        if stride == 0 {
            return refuse(&[Opt::Stride], format!("{OPTION} must be at least 1"));
        }
        if seq_len > avail {
            return refuse(
                &[Opt::SeqLen],
                format!("{OPTION} {seq_len} is longer than the {avail} selected rows"),
            );
        }
        Ok(Windows {
            first_row: start,
            first: 0,
            seq_len,
            stride,
            count: (avail - seq_len) / stride + 1,
        })
    }

    /// First table row of window `i` (counted from 0 within these windows).
    pub fn start(&self, i: usize) -> usize {
        self.first_row + i * self.stride
    }

    /// Windows `part` of these (numbered as in the whole), e.g. one shard's share.
    pub fn part(&self, part: std::ops::Range<usize>) -> Windows {
        let part = part.start.min(self.count)..part.end.min(self.count);
        Windows {
            first_row: self.start(part.start),
            first: self.first + part.start,
            count: part.len(),
            ..*self
        }
    }
}

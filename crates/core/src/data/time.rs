//! The time axis: which column gives each row its time, how it is stored (a regular grid is
//! start + step, not a label per row) and how a time reads as text (ISO 8601 for dates).

pub use super::dates::{parse_datetime, parse_year_last, year_last_order, DateOrder, YearLast};
use crate::names::BadValue;
use chrono::{DateTime, Datelike, Timelike};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which column is the time axis: detected (the default), none, or a named one.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum TimeColumn {
    #[default]
    Auto,
    None,
    Named(String),
}

impl FromStr for TimeColumn {
    type Err = BadValue;
    fn from_str(s: &str) -> Result<Self, BadValue> {
        Ok(match s.trim() {
            "" => {
                return Err(BadValue {
                    what: "time column",
                    given: s.to_string(),
                    expected: "a column name, 'none' or 'auto'",
                })
            }
            "auto" => TimeColumn::Auto,
            "none" => TimeColumn::None,
            name => TimeColumn::Named(name.to_string()),
        })
    }
}

impl TryFrom<String> for TimeColumn {
    type Error = BadValue;
    fn try_from(s: String) -> Result<Self, BadValue> {
        s.parse()
    }
}

impl From<TimeColumn> for String {
    fn from(t: TimeColumn) -> String {
        t.to_string()
    }
}

impl fmt::Display for TimeColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeColumn::Auto => f.write_str("auto"),
            TimeColumn::None => f.write_str("none"),
            TimeColumn::Named(n) => f.write_str(n),
        }
    }
}

/// The units durations are said in, largest first: their size in milliseconds and name.
pub const DURATION_UNITS: [(f64, &str); 6] = [
    (7.0 * 86_400_000.0, "w"),
    (86_400_000.0, "d"),
    (3_600_000.0, "h"),
    (60_000.0, "min"),
    (1000.0, "s"),
    (1.0, "ms"),
];

/// A duration in milliseconds as a researcher says it: "20 min", "16 h", "2 d": the
/// largest unit that holds it a whole number of times (or 10 times or more, to one
/// decimal), so 80 minutes read "80 min", not "1.3 h".
pub fn duration_text(ms: f64) -> String {
    let whole = |n: f64| (n - n.round()).abs() < 1e-6 * n.max(1.0);
    let (size, unit) = DURATION_UNITS
        .into_iter()
        .find(|&(size, _)| {
            let n = ms / size;
            n >= 1.0 && (whole(n) || n >= 10.0)
        })
        .unwrap_or((1.0, "ms"));
    let n = ms / size;
    if whole(n) {
        format!("{} {unit}", n.round())
    } else {
        format!("{n:.1} {unit}")
    }
}

/// What the axis counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeKind {
    /// An integer index (t, step, …).
    Index,
    /// Calendar dates without a time of day (milliseconds since 1970, at midnight).
    Date,
    /// Dates with a time of day (milliseconds since 1970, no time zone).
    DateTime,
    /// Labels that are neither numbers nor dates we can read: shown as written.
    Text,
}

#[derive(Debug, Clone)]
enum Points {
    Grid { start: i64, step: i64, len: usize },
    Values(Vec<i64>),
    Labels(Vec<Option<String>>),
}

/// The time of every row.
#[derive(Debug, Clone)]
pub struct TimeAxis {
    pub name: String,
    pub kind: TimeKind,
    points: Points,
    /// The time zone the column carried (Parquet and Arrow keep one): the points are wall
    /// clock times in it, and each row's label ends with its UTC offset.
    pub zone: Option<Zone>,
}

/// A column's time zone, and every row's UTC offset in it (one for all rows unless the
/// zone changes offset within the data, as daylight saving time does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    pub name: String,
    offsets: Offsets,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Offsets {
    Same(i32),
    PerRow(Vec<i32>),
}

impl Zone {
    /// Seconds east of UTC at `row`.
    pub fn offset(&self, row: usize) -> Option<i32> {
        match &self.offsets {
            Offsets::Same(s) => Some(*s),
            Offsets::PerRow(v) => v.get(row).copied(),
        }
    }
}

/// An offset as ISO 8601 writes it: `+09:00`, `-03:30`, `+00:00`.
pub fn iso_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let m = seconds.unsigned_abs() / 60;
    format!("{sign}{:02}:{:02}", m / 60, m % 60)
}

impl TimeAxis {
    /// Integer times (an index column); a regular grid is kept as start + step.
    pub fn index(name: String, values: Vec<i64>) -> Self {
        TimeAxis {
            name,
            kind: TimeKind::Index,
            points: Points::compact(values),
            zone: None,
        }
    }

    /// Date-times in a time zone: each row's wall clock time there (milliseconds since
    /// 1970 as if it were UTC) and its offset from UTC in seconds.
    pub fn zoned(name: String, zone: String, wall_ms: Vec<i64>, offsets: Vec<i32>) -> Self {
        let offsets = match offsets.as_slice() {
            [first, rest @ ..] if rest.iter().all(|o| o == first) => Offsets::Same(*first),
            [] => Offsets::Same(0),
            _ => Offsets::PerRow(offsets),
        };
        TimeAxis {
            name,
            kind: TimeKind::DateTime,
            points: Points::compact(wall_ms),
            zone: Some(Zone {
                name: zone,
                offsets,
            }),
        }
    }

    /// A date/time column as text, one cell per row (None for an empty cell): parsed to
    /// milliseconds when every cell is a date we can read, else kept as labels. `cells`
    /// walks the column (twice for labels), so no text is copied for dates.
    pub fn from_text<'s, I>(name: String, cells: impl Fn() -> I) -> Self
    where
        I: Iterator<Item = Option<&'s str>>,
    {
        let parsed =
            parse_all(cells(), parse_datetime).or_else(|| match year_last_order(cells()) {
                YearLast::Order(order) => parse_all(cells(), |s| parse_year_last(s, order)),
                _ => None,
            });
        if let Some((values, with_time)) = parsed {
            return TimeAxis {
                name,
                kind: if with_time {
                    TimeKind::DateTime
                } else {
                    TimeKind::Date
                },
                points: Points::compact(values),
                zone: None,
            };
        }
        TimeAxis {
            name,
            kind: TimeKind::Text,
            points: Points::Labels(cells().map(|c| c.map(str::to_string)).collect()),
            zone: None,
        }
    }

    pub fn len(&self) -> usize {
        match &self.points {
            Points::Grid { len, .. } => *len,
            Points::Values(v) => v.len(),
            Points::Labels(c) => c.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The milliseconds between rows of a regular grid of dates (None for an index, text
    /// or irregular times): what band periods are said in.
    pub fn step_ms(&self) -> Option<f64> {
        match self.kind {
            TimeKind::Date | TimeKind::DateTime => self.step().map(|s| s as f64),
            _ => None,
        }
    }

    /// The step of a regular grid (milliseconds for dates, units for an index).
    pub fn step(&self) -> Option<i64> {
        match self.points {
            Points::Grid { step, .. } => Some(step),
            _ => None,
        }
    }

    fn raw(&self, row: usize) -> Option<i64> {
        match &self.points {
            Points::Grid { start, step, len } => (row < *len).then(|| start + step * row as i64),
            Points::Values(v) => v.get(row).copied(),
            Points::Labels(_) => None,
        }
    }

    /// The time of `row` as a number (milliseconds since 1970 for dates, the index value),
    /// for plotting; None for text labels.
    pub fn value(&self, row: usize) -> Option<f64> {
        self.raw(row).map(|v| v as f64)
    }

    /// The time of `row` as text: ISO 8601 for dates (with the row's UTC offset when the
    /// column had a time zone), the integer for an index, the label as written otherwise.
    pub fn label(&self, row: usize) -> Option<String> {
        match &self.points {
            Points::Labels(c) => c.get(row).cloned().flatten(),
            _ => {
                let text = self.format(self.raw(row)?);
                match self.zone.as_ref().and_then(|z| z.offset(row)) {
                    Some(offset) => Some(text + &iso_offset(offset)),
                    None => Some(text),
                }
            }
        }
    }

    /// A time value (as `value` gives it) as text in this axis's kind.
    pub fn format(&self, v: i64) -> String {
        match self.kind {
            TimeKind::Index | TimeKind::Text => v.to_string(),
            TimeKind::Date => iso(v, false),
            TimeKind::DateTime => iso(v, true),
        }
    }

    /// Keep the rows where `keep` is true.
    pub fn retain(&mut self, keep: &[bool]) {
        let kept = |r: &usize| keep.get(*r).copied().unwrap_or(false);
        if let Some(Zone {
            offsets: Offsets::PerRow(v),
            ..
        }) = &mut self.zone
        {
            *v = (0..v.len()).filter(kept).map(|r| v[r]).collect();
        }
        self.points = match &self.points {
            Points::Labels(c) => Points::Labels(
                c.iter()
                    .enumerate()
                    .filter(|&(r, _)| keep.get(r).copied().unwrap_or(false))
                    .map(|(_, v)| v.clone())
                    .collect(),
            ),
            _ => Points::compact(
                (0..self.len())
                    .filter(|&r| keep.get(r).copied().unwrap_or(false))
                    .filter_map(|r| self.raw(r))
                    .collect(),
            ),
        };
    }
}

impl Points {
    fn compact(values: Vec<i64>) -> Self {
        match values.as_slice() {
            [a, b, ..] if values.windows(2).all(|w| w[1] - w[0] == b - a) => Points::Grid {
                start: *a,
                step: b - a,
                len: values.len(),
            },
            _ => Points::Values(values),
        }
    }
}

/// Milliseconds since 1970 as ISO 8601: `2016-07-01T13:00:00` (fractions only when set),
/// or `2016-07-01` for dates.
pub fn iso(ms: i64, with_time: bool) -> String {
    let Some(t) = DateTime::from_timestamp_millis(ms).map(|t| t.naive_utc()) else {
        return ms.to_string();
    };
    if !with_time {
        return format!("{:04}-{:02}-{:02}", t.year(), t.month(), t.day());
    }
    let frac = t.nanosecond() / 1_000_000;
    let base = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    if frac == 0 {
        base
    } else {
        format!("{base}.{frac:03}")
    }
}

/// Every cell as milliseconds since 1970, and whether any has a time of day; None when a
/// cell is empty or not a date.
fn parse_all<'s>(
    cells: impl Iterator<Item = Option<&'s str>>,
    parse: impl Fn(&str) -> Option<(i64, bool)>,
) -> Option<(Vec<i64>, bool)> {
    let mut out = Vec::with_capacity(cells.size_hint().0);
    let mut with_time = false;
    for cell in cells {
        let (ms, t) = parse(cell?)?;
        with_time |= t;
        out.push(ms);
    }
    Some((out, with_time))
}

/// Names a text column of dates or times may have (any case): `ds`, or a name with
/// `date` or `time` in it.
pub fn is_time_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "ds" || n.contains("date") || n.contains("time")
}

/// `YYYY-MM-DD…`, `YYYY/MM/DD…` or `HH:MM…`: a text cell that holds a date or a time.
pub fn looks_like_time(v: &str) -> bool {
    let b = v.trim().as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.len() >= r.end && b[r].iter().all(u8::is_ascii_digit);
    (digits(0..4) && b.len() > 6 && matches!(b[4], b'-' | b'/') && b[5].is_ascii_digit())
        || (digits(0..2) && b.len() > 4 && b[2] == b':' && digits(3..5))
}

/// Names an integer column may have to be read as the time axis (whole name, any case).
pub fn is_index_name(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    matches!(
        n.as_str(),
        "" | "t"
            | "time"
            | "timestamp"
            | "index"
            | "idx"
            | "step"
            | "ds"
            | "date"
            | "unnamed: 0"
            | "__index_level_0__"
    ) || n.contains("date")
        || n.contains("time")
}

/// Strictly increasing: every row has its own time, in order.
pub fn strictly_increasing(v: &[i64]) -> bool {
    v.windows(2).all(|w| w[0] < w[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dates_and_times() {
        assert_eq!(parse_datetime("1970-01-02"), Some((86_400_000, false)));
        assert_eq!(
            parse_datetime("2016-07-01 01:00:00").map(|(v, t)| (iso(v, t), t)),
            Some(("2016-07-01T01:00:00".into(), true))
        );
        assert_eq!(
            parse_datetime("2016/07/01T01:02:03.5Z").map(|(v, _)| iso(v, true)),
            Some("2016-07-01T01:02:03.500".into())
        );
        // Fields that are not zero-padded (exchange_rate.csv's `1990/1/1 0:00`).
        let shown = |s: &str| parse_datetime(s).map(|(v, t)| iso(v, t));
        assert_eq!(
            shown("1990/1/1 0:00").as_deref(),
            Some("1990-01-01T00:00:00")
        );
        assert_eq!(
            shown("2016-07-01 1:00").as_deref(),
            Some("2016-07-01T01:00:00")
        );
        assert_eq!(shown("2016-7-1").as_deref(), Some("2016-07-01"));
        assert_eq!(
            shown("1990/12/31 23:59:30.25").as_deref(),
            Some("1990-12-31T23:59:30.250")
        );
        for bad in [
            "1990/1/1 24:00",
            "1990/1/32",
            "90/1/1",
            "1990/1/1 0:0",
            "1990/1",
            "1990-1/1 0:00",
        ] {
            assert_eq!(parse_datetime(bad), None, "{bad}");
        }
        assert_eq!(parse_datetime("2016-13-01"), None);
        assert_eq!(parse_datetime("12:30"), None);
        assert_eq!(
            parse_datetime("1958-03-29").map(|(v, _)| iso(v, false)),
            Some("1958-03-29".into())
        );
    }

    #[test]
    fn a_regular_grid_is_start_and_step() {
        let t = TimeAxis::index("t".into(), vec![10, 12, 14, 16]);
        assert_eq!(t.step(), Some(2));
        assert_eq!(t.label(3).as_deref(), Some("16"));
        let mut t = t;
        t.retain(&[true, false, true, true]);
        assert_eq!(t.step(), None);
        assert_eq!(
            (0..3).map(|r| t.label(r).unwrap()).collect::<Vec<_>>(),
            ["10", "14", "16"]
        );
    }
}

//! Which column of a file is its time axis, and how its cells become the core's
//! [`TimeAxis`]: dates as text, an integer index, or a zone-aware datetime (Parquet, Arrow)
//! whose rows keep their UTC offsets.

use chrono::{Offset as _, TimeZone as _};
use polars::prelude::*;
use wavebench_core::data::time::{self, TimeAxis, TimeKind, YearLast};

fn is_time_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "ds" || n.contains("date") || n.contains("time")
}

/// `YYYY-MM-DD…`, `YYYY/MM/DD…` or `HH:MM…`: a text column that holds dates or times.
fn looks_like_time(v: &str) -> bool {
    let b = v.trim().as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.len() >= r.end && b[r].iter().all(u8::is_ascii_digit);
    (digits(0..4) && b.len() > 6 && matches!(b[4], b'-' | b'/') && b[5].is_ascii_digit())
        || (digits(0..2) && b.len() > 4 && b[2] == b':' && digits(3..5))
}

/// Whether `col` can be a time axis: Some(true) for dates, Some(false) for an index.
pub(super) fn looks_like_time_axis(col: &Column) -> Option<bool> {
    let name = col.name().as_str();
    let dtype = col.dtype();
    if dtype.is_temporal() {
        return Some(true);
    }
    if dtype == &DataType::String {
        let first = col.str().ok().and_then(|s| s.iter().flatten().next());
        return (is_time_name(name) || first.is_some_and(looks_like_time)).then_some(true);
    }
    if dtype.is_integer() && time::is_index_name(name) {
        return integers(col)
            .is_some_and(|v| time::strictly_increasing(&v))
            .then_some(false);
    }
    None
}

/// The column's values as i64, None when one is missing.
fn integers(col: &Column) -> Option<Vec<i64>> {
    let c = col.cast(&DataType::Int64).ok()?;
    c.i64().ok()?.iter().collect()
}

/// The time axis from its column: integers as an index, anything else as dates or labels.
/// Beside it a warning when a cell is not a date we read (the axis then shows the cells as
/// written); an error when the cells are dates written year last whose day and month no
/// value tells apart.
pub(super) fn time_axis(col: &Column) -> Result<(TimeAxis, Option<String>), String> {
    let name = col.name().to_string();
    if let DataType::Datetime(unit, Some(zone)) = col.dtype() {
        if let Some(axis) = zoned_axis(col, *unit, zone) {
            return Ok((axis, None));
        }
    }
    if let Some(ints) = integers(col).filter(|_| col.dtype().is_integer()) {
        return Ok((TimeAxis::index(name, ints), None));
    }
    let text = match col.dtype() {
        DataType::String => Ok(col.clone()),
        _ => col.cast(&DataType::String),
    };
    match text.as_ref().map(|t| t.str()) {
        Ok(Ok(s)) => from_cells(name, || s.iter()),
        _ => {
            let cells: Vec<Option<String>> = (0..col.len())
                .map(|i| col.get(i).ok().map(|v| v.to_string()))
                .collect();
            from_cells(name, || cells.iter().map(Option::as_deref))
        }
    }
}

/// `time_axis` for text cells; `cells` walks the column (again for labels and messages),
/// so no text is copied for dates.
fn from_cells<'s, I>(
    name: String,
    cells: impl Fn() -> I,
) -> Result<(TimeAxis, Option<String>), String>
where
    I: Iterator<Item = Option<&'s str>>,
{
    let axis = TimeAxis::from_text(name, &cells);
    if axis.kind != TimeKind::Text {
        return Ok((axis, None));
    }
    if let YearLast::Ambiguous(example) = time::year_last_order(cells()) {
        return Err(format!(
            "dates such as '{example}' could be day/month/year or month/day/year, and no value past 12 tells which; write them year first (YYYY-MM-DD)"
        ));
    }
    let unread = cells()
        .enumerate()
        .find(|(_, c)| c.is_none_or(|c| time::parse_datetime(c).is_none()));
    let warning = unread.map(|(row, cell)| match cell {
        Some(c) => format!(
            "data row {row}: '{c}' is not a date wavebench reads; the time axis shows the cells as written"
        ),
        None => format!("data row {row} is empty; the time axis shows the cells as written"),
    });
    Ok((axis, warning))
}

/// A zone-aware datetime column (what pandas writes for UTC or local data): each row's
/// wall clock time in its zone, and its UTC offset there, so `start_time` reads e.g.
/// `2021-01-01T09:00:00+09:00`. None when a cell is missing or the zone is not one chrono
/// knows (the column is then read as text).
fn zoned_axis(col: &Column, unit: TimeUnit, zone: &str) -> Option<TimeAxis> {
    let tz: ZoneRule = match zone.parse::<chrono::FixedOffset>() {
        Ok(fixed) => ZoneRule::Fixed(fixed),
        Err(_) => ZoneRule::Named(zone.parse::<chrono_tz::Tz>().ok()?),
    };
    let per_ms = match unit {
        TimeUnit::Nanoseconds => 1_000_000,
        TimeUnit::Microseconds => 1_000,
        TimeUnit::Milliseconds => 1,
    };
    let instants = integers(&col.cast(&DataType::Int64).ok()?)?;
    let mut wall = Vec::with_capacity(instants.len());
    let mut offsets = Vec::with_capacity(instants.len());
    for t in instants {
        let utc = chrono::DateTime::from_timestamp_millis(t.div_euclid(per_ms))?.naive_utc();
        let offset = match &tz {
            ZoneRule::Fixed(f) => f.local_minus_utc(),
            ZoneRule::Named(z) => z.offset_from_utc_datetime(&utc).fix().local_minus_utc(),
        };
        wall.push(t.div_euclid(per_ms) + i64::from(offset) * 1000);
        offsets.push(offset);
    }
    Some(TimeAxis::zoned(
        col.name().to_string(),
        zone.to_string(),
        wall,
        offsets,
    ))
}

enum ZoneRule {
    Fixed(chrono::FixedOffset),
    Named(chrono_tz::Tz),
}

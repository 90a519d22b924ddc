//! Which column of a file is its time axis, and how its cells become the core's
//! [`TimeAxis`]: dates as text, an integer index, or a zone-aware datetime (Parquet, Arrow)
//! whose rows keep their UTC offsets.

use chrono::{Offset as _, TimeZone as _};
use polars::prelude::*;
use wavebench_core::data::time::{self, TimeAxis};
use wavebench_files::axis::text_axis;

/// Whether `col` can be a time axis: Some(true) for dates, Some(false) for an index.
pub(super) fn looks_like_time_axis(col: &Column) -> Option<bool> {
    let name = col.name().as_str();
    let dtype = col.dtype();
    if dtype.is_temporal() {
        return Some(true);
    }
    if dtype == &DataType::String {
        let first = col.str().ok().and_then(|s| s.iter().flatten().next());
        return (time::is_time_name(name) || first.is_some_and(time::looks_like_time))
            .then_some(true);
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
        Ok(Ok(s)) => text_axis(name, || s.iter()),
        _ => {
            let cells: Vec<Option<String>> = (0..col.len())
                .map(|i| col.get(i).ok().map(|v| v.to_string()))
                .collect();
            text_axis(name, || cells.iter().map(Option::as_deref))
        }
    }
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

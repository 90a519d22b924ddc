//! Dates as files write them, to milliseconds since 1970: ISO 8601 and its unpadded forms
//! (year first), and dates written year last, day- or month-first as a column's values
//! tell. The time axis (`time.rs`) calls these on every cell.

use chrono::NaiveDate;

/// `YYYY-MM-DD` or `YYYY/MM/DD`, then optionally `[ T]HH:MM[:SS[.fff]]` and `Z`:
/// milliseconds since 1970 and whether a time of day was written. Hand-written because
/// it runs on every row of 10-million-row files, where a general parser is the load's
/// cost (BENCHMARKS.md, "Measurements behind the code").
pub fn parse_datetime(s: &str) -> Option<(i64, bool)> {
    parse_padded(s).or_else(|| parse_unpadded(s))
}

/// ISO 8601 with zero-padded fields (`2016-07-01 01:00:00`): the fast path, byte by byte,
/// for files of millions of rows.
fn parse_padded(s: &str) -> Option<(i64, bool)> {
    let b = s.trim().as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let d = b.get(r)?;
        d.iter().try_fold(0u32, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + (c - b'0') as u32)
        })
    };
    let sep = *b.get(4)?;
    if !matches!(sep, b'-' | b'/') || b.get(7) != Some(&sep) {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
    let days = (date - NaiveDate::from_ymd_opt(1970, 1, 1)?).num_days();
    let mut ms = days * 86_400_000;
    let rest = &b[10..];
    if rest.is_empty() {
        return Some((ms, false));
    }
    if !matches!(rest[0], b' ' | b'T') || rest.len() < 6 || rest[3] != b':' {
        return None;
    }
    let (h, m) = (num(11..13)?, num(14..16)?);
    let mut sec = 0u32;
    let mut frac_ms = 0u32;
    let mut i = 16;
    if b.get(i) == Some(&b':') {
        sec = num(17..19)?;
        i = 19;
        if b.get(i) == Some(&b'.') {
            let digits: Vec<u8> = b[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .copied()
                .collect();
            if digits.is_empty() {
                return None;
            }
            i += 1 + digits.len();
            frac_ms = digits
                .iter()
                .chain(std::iter::repeat(&b'0'))
                .take(3)
                .fold(0, |acc, &c| acc * 10 + (c - b'0') as u32);
        }
    }
    if !(b.len() == i || (b.len() == i + 1 && b[i] == b'Z')) || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    ms += (h as i64 * 3600 + m as i64 * 60 + sec as i64) * 1000 + frac_ms as i64;
    Some((ms, true))
}

/// The same forms with fields that are not zero-padded, as spreadsheets and some data sets
/// write them (`1990/1/1 0:00`, `2016-7-1`): year first, month and day of one or two
/// digits, hour of one or two.
fn parse_unpadded(s: &str) -> Option<(i64, bool)> {
    let s = s.trim();
    let (date, time) = match s.find([' ', 'T']) {
        Some(i) => (&s[..i], Some(s[i + 1..].trim_start())),
        None => (s, None),
    };
    let field = |t: &str, widths: std::ops::RangeInclusive<usize>| -> Option<u32> {
        let ok = widths.contains(&t.len()) && t.bytes().all(|c| c.is_ascii_digit());
        ok.then(|| t.parse().ok()).flatten()
    };
    let sep = if date.contains('-') { '-' } else { '/' };
    let mut ymd = date.split(sep);
    let (y, m, d) = (ymd.next()?, ymd.next()?, ymd.next()?);
    if ymd.next().is_some() {
        return None;
    }
    let day = NaiveDate::from_ymd_opt(field(y, 4..=4)? as i32, field(m, 1..=2)?, field(d, 1..=2)?)?;
    with_time_of_day(day, time)
}

/// Milliseconds since 1970 of `day` at `time` (`H:MM[:SS[.fff]]`, an optional `Z`), and
/// whether a time was written.
fn with_time_of_day(day: NaiveDate, time: Option<&str>) -> Option<(i64, bool)> {
    let field = |t: &str, widths: std::ops::RangeInclusive<usize>| -> Option<u32> {
        let ok = widths.contains(&t.len()) && t.bytes().all(|c| c.is_ascii_digit());
        ok.then(|| t.parse().ok()).flatten()
    };
    let mut ms = (day - NaiveDate::from_ymd_opt(1970, 1, 1)?).num_days() * 86_400_000;
    let Some(time) = time else {
        return Some((ms, false));
    };
    let time = time.strip_suffix('Z').unwrap_or(time);
    let mut hms = time.split(':');
    let (h, mi, sec) = (hms.next()?, hms.next()?, hms.next());
    if hms.next().is_some() {
        return None;
    }
    let (h, mi) = (field(h, 1..=2)?, field(mi, 2..=2)?);
    let (sec, frac_ms) = match sec.map(|s| s.split_once('.').unwrap_or((s, ""))) {
        None => (0, 0),
        Some((whole, frac)) => {
            let digits = frac.bytes().take(3).chain(std::iter::repeat(b'0')).take(3);
            if !frac.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let frac_ms = digits.fold(0, |acc, c| acc * 10 + (c - b'0') as u32);
            (field(whole, 2..=2)?, frac_ms)
        }
    };
    if h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    ms += (h as i64 * 3600 + mi as i64 * 60 + sec as i64) * 1000 + frac_ms as i64;
    Some((ms, true))
}

/// Which field comes first in dates written year last (`31/1/1990`, `1/31/1990`,
/// `31.1.1990`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateOrder {
    DayFirst,
    MonthFirst,
}

/// What a column's cells say about dates written year last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum YearLast {
    /// Not such dates (or both fields go past 12 somewhere).
    No,
    /// A first field past 12 somewhere makes it the day, or a second one the month.
    Order(DateOrder),
    /// Every field is 12 or less, so the order cannot be told: the first such cell.
    Ambiguous(String),
}

/// The day/month order of a column of year-last dates, told by its values.
pub fn year_last_order<'s>(cells: impl Iterator<Item = Option<&'s str>>) -> YearLast {
    let (mut first_over, mut second_over, mut example) = (false, false, None);
    for cell in cells {
        let Some((a, b, _)) = cell.and_then(|c| year_last_fields(c).map(|(f, _)| f)) else {
            return YearLast::No;
        };
        first_over |= a > 12;
        second_over |= b > 12;
        example.get_or_insert(cell.unwrap_or_default());
    }
    match (first_over, second_over, example) {
        (true, false, _) => YearLast::Order(DateOrder::DayFirst),
        (false, true, _) => YearLast::Order(DateOrder::MonthFirst),
        (false, false, Some(e)) => YearLast::Ambiguous(e.trim().to_string()),
        _ => YearLast::No,
    }
}

/// A year-last date's first, second and year fields, and its time of day as written.
type YearLastFields<'s> = ((u32, u32, i32), Option<&'s str>);

/// `A<sep>B<sep>YYYY[ time]` with `/`, `.` or `-` and fields of one or two digits: the
/// three numbers and the time text.
fn year_last_fields(s: &str) -> Option<YearLastFields<'_>> {
    let s = s.trim();
    let (date, time) = match s.find(' ') {
        Some(i) => (&s[..i], Some(s[i + 1..].trim_start())),
        None => (s, None),
    };
    let sep = date.chars().find(|c| !c.is_ascii_digit())?;
    if !matches!(sep, '/' | '.' | '-') {
        return None;
    }
    let mut f = date.split(sep);
    let (a, b, y) = (f.next()?, f.next()?, f.next()?);
    let short = |t: &str| (1..=2).contains(&t.len()) && t.bytes().all(|c| c.is_ascii_digit());
    if f.next().is_some() || !short(a) || !short(b) || y.len() != 4 {
        return None;
    }
    Some(((a.parse().ok()?, b.parse().ok()?, y.parse().ok()?), time))
}

/// A year-last date (and time) in the given order.
pub fn parse_year_last(s: &str, order: DateOrder) -> Option<(i64, bool)> {
    let ((a, b, y), time) = year_last_fields(s)?;
    let (d, m) = match order {
        DateOrder::DayFirst => (a, b),
        DateOrder::MonthFirst => (b, a),
    };
    with_time_of_day(NaiveDate::from_ymd_opt(y, m, d)?, time)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::time::iso;

    #[test]
    fn year_last_dates_take_their_order_from_the_values() {
        let order = |cells: &[&str]| year_last_order(cells.iter().map(|c| Some(*c)));
        assert_eq!(
            order(&["1/2/2020", "13/2/2020"]),
            YearLast::Order(DateOrder::DayFirst)
        );
        assert_eq!(
            order(&["1.2.2020", "1.31.2020"]),
            YearLast::Order(DateOrder::MonthFirst)
        );
        assert_eq!(
            order(&["1-2-2020", "3-4-2020"]),
            YearLast::Ambiguous("1-2-2020".into())
        );
        assert_eq!(order(&["13/13/2020"]), YearLast::No);
        assert_eq!(order(&["2020-01-02"]), YearLast::No);
        assert_eq!(order(&["week 1"]), YearLast::No);
        let ms = |s, o| parse_year_last(s, o).map(|(v, t)| (iso(v, t), t));
        assert_eq!(
            ms("31.1.1990", DateOrder::DayFirst),
            Some(("1990-01-31".into(), false))
        );
        assert_eq!(
            ms("1/31/1990 13:05:09", DateOrder::MonthFirst),
            Some(("1990-01-31T13:05:09".into(), true))
        );
        assert_eq!(ms("31/1/1990", DateOrder::MonthFirst), None);
    }
}

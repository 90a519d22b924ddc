//! A time axis from a column's cells written as text: dates (ISO 8601, or year last in the
//! order the values tell), or labels shown as written, with a warning naming the first
//! cell that is not a date.

use wavebench_core::data::time::{self, TimeAxis, TimeKind, YearLast};

/// The time axis named `name` from its text cells; `cells` walks the column (again for
/// labels and messages), so no text is copied for dates. Beside it a warning when a cell
/// is not a date wavebench reads; an error when the cells are dates written year last
/// whose day and month no value tells apart.
pub fn text_axis<'s, I>(
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

//! A column's cells as text: each a number, empty (missing) or text. The one rule for text
//! cells, whichever reader met them: refused under `--missing error`, else read as missing
//! with one warning; a column without any number refused under `error`, else skipped.

use crate::format::Format;
use wavebench_core::data::{refuse, DataError, Missing, Opt, OPTION};
use wavebench_core::numeric::Real;

/// Where a row is, for messages: the data row, and for CSV the file's line too.
pub fn row_place(format: Format, row: usize) -> String {
    match format {
        Format::Csv(_) => format!("data row {row} (line {} of the file)", row + 2),
        _ => format!("data row {row}"),
    }
}

/// What a column's text cells held, counted as they are read.
#[derive(Debug, Default)]
pub struct TextTally {
    numbers: usize,
    texts: usize,
    /// The first text cell: its data row and its text.
    first_text: Option<(usize, String)>,
}

impl TextTally {
    /// The value of the cell at `row`: a number, or NaN (missing) for an empty or text
    /// cell, which is counted.
    pub fn read<T: Real + std::str::FromStr>(&mut self, row: usize, cell: Option<&str>) -> T {
        match cell.map(str::trim) {
            None | Some("") => T::from_f64(f64::NAN),
            Some(t) => match t.parse::<T>() {
                Ok(v) => {
                    self.numbers += 1;
                    v
                }
                Err(_) => {
                    self.texts += 1;
                    self.first_text.get_or_insert((row, t.to_string()));
                    T::from_f64(f64::NAN)
                }
            },
        }
    }

    /// Whether the column is kept as a channel (false: skipped, said in `warnings`), or
    /// its refusal. `file` names the file in messages.
    pub fn verdict(
        self,
        file: &str,
        name: &str,
        format: Format,
        missing: Missing,
        warnings: &mut Vec<String>,
    ) -> Result<bool, DataError> {
        if self.numbers == 0 {
            let what = self
                .first_text
                .map_or("every cell is empty".to_string(), |(_, t)| {
                    format!("text such as '{t}'")
                });
            if missing == Missing::Error {
                return refuse(
                    &[Opt::Columns, Opt::Missing],
                    format!(
                        "{file}: column '{name}' has no numbers ({what}); pick the channels with {OPTION}, or choose {OPTION} interpolate|drop|zero to skip it with a warning"
                    ),
                );
            }
            warnings.push(format!(
                "{file}: column '{name}' has no numbers ({what}); skipped"
            ));
            return Ok(false);
        }
        if let Some((row, text)) = self.first_text {
            if missing == Missing::Error {
                return refuse(
                    &[Opt::Missing],
                    format!(
                        "{file}: column '{name}', {}: not a number: '{text}' (choose {OPTION} interpolate|drop|zero to treat such cells as missing)",
                        row_place(format, row)
                    ),
                );
            }
            let texts = self.texts;
            warnings.push(format!(
                "{file}: column '{name}': {texts} non-numeric cell{} treated as missing (first at {}: '{text}')",
                if texts == 1 { "" } else { "s" },
                row_place(format, row)
            ));
        }
        Ok(true)
    }
}

/// A column of text cells as numbers in the run's precision, None when it is skipped
/// (said in `warnings`).
pub fn text_numbers<'s, T: Real + std::str::FromStr>(
    cells: impl Iterator<Item = Option<&'s str>>,
    file: &str,
    name: &str,
    format: Format,
    missing: Missing,
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<T>>, DataError> {
    let mut tally = TextTally::default();
    let values: Vec<T> = cells
        .enumerate()
        .map(|(row, cell)| tally.read(row, cell))
        .collect();
    Ok(tally
        .verdict(file, name, format, missing, warnings)?
        .then_some(values))
}

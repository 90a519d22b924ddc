//! Reading a file through polars: CSV/TSV (delimiter sniffed, UTF-8 BOM skipped), Parquet,
//! Arrow IPC, NDJSON. A date/time or index column becomes the time axis; numeric columns
//! are channels; nothing is dropped without a word (`Table::warnings`).

use super::axis::{looks_like_time_axis, time_axis};
use super::format::legacy_header;
pub use super::format::{detect_format, Format};
use polars::prelude::*;
use std::fs::File;
use std::path::Path;
use wavebench_core::data::time::TimeColumn;
use wavebench_core::data::{err, refuse, Channel, DataError, Missing, Table};
use wavebench_core::names::{Opt, OPTION};
use wavebench_core::numeric::{DType, Real, Values};
use wavebench_core::run_spec::LoadOptions;

/// Rows polars reads to infer a CSV's column types (and so do we, to pick f32 columns).
const INFER_ROWS: usize = 10_000;

fn read_frame(path: &Path, format: Format, dtype: DType) -> PolarsResult<DataFrame> {
    match format {
        Format::Csv(sep) => read_csv(path, sep, dtype),
        Format::Parquet => ParquetReader::new(File::open(path)?).finish(),
        Format::Ipc => IpcReader::new(File::open(path)?).finish(),
        // The schema from every line, not the first 100: a column of whole numbers that
        // turns decimal (or grows past 64 bits) further down is then f64, not an error.
        Format::NdJson => JsonReader::new(File::open(path)?)
            .with_json_format(JsonFormat::JsonLines)
            .infer_schema_len(None)
            .finish(),
    }
}

/// A CSV through polars. For f32 runs the float columns are parsed straight to f32 (their
/// types inferred from the first rows, as polars does). A column that polars inferred as
/// numbers but that has a text cell further down is read again as text, so that
/// `text_column` names the cell (or, under interpolate|drop|zero, makes it missing).
fn read_csv(path: &Path, sep: u8, dtype: DType) -> PolarsResult<DataFrame> {
    let read = |overwrite: &Schema, rows: Option<usize>| {
        CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(INFER_ROWS))
            .with_n_rows(rows)
            .with_schema_overwrite((!overwrite.is_empty()).then(|| Arc::new(overwrite.clone())))
            .map_parse_options(|p| p.with_separator(sep))
            .try_into_reader_with_file_path(Some(path.into()))?
            .finish()
    };
    let mut overwrite = Schema::default();
    // f64 runs take polars' types as they are; f32 runs first read the inference rows to
    // learn which columns are floats.
    let mut typed = dtype == DType::F64;
    for _ in 0..=MAX_TEXT_RETRIES {
        match read(&overwrite, (!typed).then_some(INFER_ROWS)) {
            Ok(df) if typed => return Ok(df),
            Ok(head) => {
                for (name, t) in head.schema().iter() {
                    if t == &DataType::Float64 {
                        overwrite.insert(name.clone(), DataType::Float32);
                    }
                }
                typed = true;
            }
            Err(e) => match unparsable_column(&e.to_string()) {
                Some(col) if overwrite.get(col.as_str()) != Some(&DataType::String) => {
                    overwrite.insert(col.into(), DataType::String);
                }
                _ => return Err(e),
            },
        }
    }
    read(&overwrite, None)
}

/// Columns read again as text (one per retry) before polars' own message is given up on.
const MAX_TEXT_RETRIES: usize = 64;

/// The column polars names in "could not parse `x` as dtype `f64` at column 'c' (…)".
fn unparsable_column(msg: &str) -> Option<String> {
    let rest = msg.split_once("could not parse")?.1;
    let rest = rest.split_once("at column '")?.1;
    let end = rest.rfind("' (column number").or_else(|| rest.find('\''))?;
    Some(rest[..end].to_string())
}

/// Where a row is, for messages: the data row, and for CSV the file's line too.
fn row_place(format: Format, row: usize) -> String {
    match format {
        Format::Csv(_) => format!("data row {row} (line {} of the file)", row + 2),
        _ => format!("data row {row}"),
    }
}

/// A column polars read as text: each cell a number, empty (missing), or text. Text cells
/// are refused under `--missing error`, else become missing values with one warning; a
/// column without any number is refused under `error`, else skipped with a warning.
fn text_column(
    col: &Column,
    p: &str,
    format: Format,
    missing: Missing,
    dtype: DType,
    warnings: &mut Vec<String>,
) -> Result<Option<Values>, DataError> {
    Ok(match dtype {
        DType::F32 => text_column_as::<f32>(col, p, format, missing, warnings)?.map(Values::from),
        DType::F64 => text_column_as::<f64>(col, p, format, missing, warnings)?.map(Values::from),
    })
}

fn text_column_as<T: Real + std::str::FromStr>(
    col: &Column,
    p: &str,
    format: Format,
    missing: Missing,
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<T>>, DataError> {
    let name = col.name().to_string();
    let cells = col.str().ok();
    let nan = T::from_f64(f64::NAN);
    let mut values = Vec::with_capacity(col.len());
    let (mut numbers, mut texts) = (0usize, 0usize);
    let mut first_text: Option<(usize, String)> = None;
    for row in 0..col.len() {
        let cell = cells.and_then(|s| s.get(row)).map(str::trim);
        let v = match cell {
            None | Some("") => nan,
            Some(t) => match t.parse::<T>() {
                Ok(v) => {
                    numbers += 1;
                    v
                }
                Err(_) => {
                    texts += 1;
                    first_text.get_or_insert((row, t.to_string()));
                    nan
                }
            },
        };
        values.push(v);
    }
    if numbers == 0 {
        let what = first_text.map_or("every cell is empty".to_string(), |(_, t)| {
            format!("text such as '{t}'")
        });
        if missing == Missing::Error {
            return refuse(
                &[Opt::Columns, Opt::Missing],
                format!(
                    "{p}: column '{name}' has no numbers ({what}); pick the channels with {OPTION}, or choose {OPTION} interpolate|drop|zero to skip it with a warning"
                ),
            );
        }
        warnings.push(format!(
            "{p}: column '{name}' has no numbers ({what}); skipped"
        ));
        return Ok(None);
    }
    if let Some((row, text)) = first_text {
        if missing == Missing::Error {
            return refuse(
                &[Opt::Missing],
                format!(
                    "{p}: column '{name}', {}: not a number: '{text}' (choose {OPTION} interpolate|drop|zero to treat such cells as missing)",
                    row_place(format, row)
                ),
            );
        }
        warnings.push(format!(
            "{p}: column '{name}': {texts} non-numeric cell{} treated as missing (first at {}: '{text}')",
            if texts == 1 { "" } else { "s" },
            row_place(format, row)
        ));
    }
    Ok(Some(values))
}

/// Load a file into a [`Table`]; every message names the file (and column, row).
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Table, DataError> {
    let p = path.display().to_string();
    if path.is_dir() {
        return err(format!(
            "{p}: is a folder (give it as a data set: every file in it is read)"
        ));
    }
    if !path.exists() {
        return err(format!("{p}: no such file"));
    }
    if std::fs::metadata(path)
        .map(|m| m.len() == 0)
        .unwrap_or(false)
    {
        return err(format!("{p}: the file is empty"));
    }
    let format = detect_format(path)?;
    let mut df = read_frame(path, format, opts.dtype).map_err(|e| {
        DataError::new(format!(
            "{p}: cannot parse as {}: {}",
            format.describe(),
            first_line(&e.to_string())
        ))
    })?;
    // polars reads a header that is not UTF-8 with U+FFFD in place of each byte it
    // cannot read ("T (�C)"): such a header is read again as Windows-1252, the encoding
    // spreadsheets on Windows write, and said.
    let mut header_warning = None;
    if let Format::Csv(sep) = format {
        if let Some(names) = legacy_header(path, sep).filter(|n| n.len() == df.width()) {
            header_warning = Some(format!(
                "{p}: the header is not UTF-8; its names were read as Windows-1252: {}",
                names.join(", ")
            ));
            df.set_column_names(&names)
                .map_err(|e| DataError::new(format!("{p}: header: {e}")))?;
        }
    }
    if df.width() == 0 {
        return err(format!("{p}: no columns"));
    }
    if df.height() == 0 {
        return err(format!("{p}: has a header but no data rows"));
    }
    let names: Vec<String> = df
        .get_column_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    if let TimeColumn::Named(t) = &opts.time_column {
        if !names.contains(t) {
            return refuse(
                &[Opt::TimeColumn],
                format!(
                    "{p}: {OPTION}: no column '{t}' (columns: {})",
                    names.join(", ")
                ),
            );
        }
    }
    if let Some(wanted) = &opts.columns {
        if let Some(w) = wanted.iter().find(|w| !names.contains(w)) {
            let near = wavebench_core::suggest::nearest(w, names.iter().map(String::as_str), 3);
            return err(format!(
                "{p}: no column '{w}'{} (columns: {})",
                if near.is_empty() {
                    String::new()
                } else {
                    format!("; did you mean {}?", near.join(", "))
                },
                names.join(", ")
            ));
        }
    }
    let mut table = Table {
        path: path.to_path_buf(),
        warnings: header_warning.into_iter().collect(),
        ..Default::default()
    };
    // The time axis: the named column, else the first date/time column, else the first
    // index-like integer column. Other columns that look like a time axis are not
    // channels either (said in a warning), unless asked for with --columns.
    let candidates: Vec<(usize, bool)> = match &opts.time_column {
        TimeColumn::None => Vec::new(),
        _ => df
            .columns()
            .iter()
            .enumerate()
            .filter_map(|(i, c)| looks_like_time_axis(c).map(|dates| (i, dates)))
            .collect(),
    };
    let axis_at = match &opts.time_column {
        TimeColumn::Named(t) => names.iter().position(|n| n == t),
        TimeColumn::None => None,
        TimeColumn::Auto => candidates
            .iter()
            .find(|c| c.1)
            .or(candidates.first())
            .map(|c| c.0),
    };
    // Columns are taken out of the frame one by one and dropped once copied, so the peak
    // holds the file's numbers about twice, not three times.
    for (i, col) in df.into_columns().into_iter().enumerate() {
        let name = col.name().to_string();
        if Some(i) == axis_at {
            let (axis, warning) = time_axis(&col)
                .map_err(|e| DataError::new(format!("{p}: column '{name}': {e}")))?;
            if let Some(w) = warning {
                table.warnings.push(format!("{p}: column '{name}': {w}"));
            }
            table.time = Some(axis);
            continue;
        }
        let asked = opts.columns.as_ref().is_some_and(|w| w.contains(&name));
        if !asked && candidates.iter().any(|c| c.0 == i) {
            if opts.columns.is_none() {
                let axis = axis_at.map_or("none", |a| names[a].as_str());
                table.warnings.push(format!(
                    "{p}: column '{name}' looks like a second time axis (the time axis is '{axis}'); not used as a channel (name it among the columns to use it)"
                ));
                table.skipped.push(name);
            }
            continue;
        }
        if opts.columns.as_ref().is_some_and(|w| !w.contains(&name)) {
            continue; // the user chose other channels
        }
        let dtype = col.dtype().clone();
        let values = if dtype.is_primitive_numeric() || dtype == DataType::Boolean {
            numbers(&col, opts.dtype)
                .map_err(|e| DataError::new(format!("{p}: column '{name}': {e}")))?
        } else if let DataType::Decimal(_, scale) = dtype {
            let v = numbers(&col, opts.dtype)
                .map_err(|e| DataError::new(format!("{p}: column '{name}': {e}")))?;
            if let Some(w) = decimal_rounding(&col, &v, scale) {
                table
                    .warnings
                    .push(format!("{p}: column '{name}' ({dtype}): {w}"));
            }
            v
        } else if matches!(dtype, DataType::String | DataType::Null) || dtype.is_temporal() {
            let text = col
                .cast(&DataType::String)
                .map_err(|e| DataError::new(format!("{p}: column '{name}': {e}")))?;
            match text_column(
                &text,
                &p,
                format,
                opts.missing,
                opts.dtype,
                &mut table.warnings,
            )? {
                Some(v) => v,
                None => {
                    table.skipped.push(name);
                    continue;
                }
            }
        } else {
            if opts.missing == Missing::Error && opts.columns.is_none() {
                return refuse(
                    &[Opt::Columns],
                    format!("{p}: column '{name}' holds {dtype}, not numbers; pick the channels with {OPTION}"),
                );
            }
            table.warnings.push(format!(
                "{p}: column '{name}' holds {dtype}, not numbers; skipped"
            ));
            table.skipped.push(name);
            continue;
        };
        if let Some(row) = values.iter_f64().position(|v| v.is_infinite()) {
            let place = format!("{p}: column '{name}', {}", row_place(format, row));
            return match opts.dtype {
                // Parsed straight to f32: a finite number past f32's range is inf too.
                DType::F32 => refuse(
                    &[Opt::Dtype],
                    format!("{place}: infinite, or beyond the f32 range (|x| > 3.4e38; use {OPTION} f64)"),
                ),
                DType::F64 => err(format!("{place}: infinite value")),
            };
        }
        table.channels.push(Channel { name, values });
    }
    if let Some(wanted) = &opts.columns {
        // In the order asked for.
        let mut picked = Vec::with_capacity(wanted.len());
        for w in wanted {
            match table.channels.iter().position(|c| &c.name == w) {
                Some(i) => picked.push(table.channels[i].clone()),
                None if table.time.as_ref().is_some_and(|t| &t.name == w) => {
                    return refuse(
                        &[Opt::TimeColumn],
                        format!("{p}: column '{w}' is the time axis, not a channel ({OPTION} none makes it one)"),
                    )
                }
                None => return err(format!("{p}: column '{w}' is not numeric")),
            }
        }
        table.channels = picked;
    }
    if table.channels.is_empty() {
        return err(format!(
            "{p}: no numeric columns (found: {})",
            names.join(", ")
        ));
    }
    Ok(table)
}

/// A numeric column's values in the run's precision (None becomes NaN, a missing value).
fn numbers(col: &Column, dtype: DType) -> PolarsResult<Values> {
    Ok(match dtype {
        DType::F32 => Values::F32(
            col.cast(&DataType::Float32)?
                .f32()?
                .iter()
                .map(|v| v.unwrap_or(f32::NAN))
                .collect(),
        ),
        DType::F64 => Values::F64(
            col.cast(&DataType::Float64)?
                .f64()?
                .iter()
                .map(|v| v.unwrap_or(f64::NAN))
                .collect(),
        ),
    })
}

/// Whether reading a decimal column as floats changed values: how many, and the first
/// (its exact text beside the float it became). None when every value is kept.
fn decimal_rounding(col: &Column, values: &Values, scale: usize) -> Option<String> {
    let text = col.cast(&DataType::String).ok()?;
    let text = text.str().ok()?;
    let (mut changed, mut first) = (0usize, None);
    for (row, (exact, v)) in text.iter().zip(values.iter_f64()).enumerate() {
        let Some(exact) = exact else { continue };
        // The float printed at the decimal's scale reads back as the decimal itself
        // unless it was rounded away.
        if format!("{v:.scale$}") != exact {
            changed += 1;
            first.get_or_insert((row, exact.to_string(), v));
        }
    }
    first.map(|(row, exact, v)| {
        format!(
            "{changed} value(s) cannot be held exactly in the run's precision, e.g. data row {row}: {exact} became {v}"
        )
    })
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

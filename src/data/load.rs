//! Reading a file through polars: CSV/TSV (delimiter sniffed, UTF-8 BOM skipped), Parquet,
//! Arrow IPC, NDJSON. A date/time or index column becomes the time axis; numeric columns
//! are channels; nothing is dropped without a word (`Table::warnings`).

use super::axis::{looks_like_time_axis, time_axis};
use polars::prelude::*;
use std::fs::File;
use std::path::Path;
use wavebench_core::data::time::TimeAxis;
use wavebench_core::data::{refuse, DataError, Missing, Table};
use wavebench_core::names::{Opt, OPTION};
use wavebench_core::numeric::{DType, Values};
use wavebench_core::run_spec::LoadOptions;
use wavebench_files::cells::text_numbers;
use wavebench_files::format::legacy_header;
pub use wavebench_files::format::{detect_format, Format};
use wavebench_files::table::{assemble, check_file, ColumnRead, SourceColumn};

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

/// Load a file into a [`Table`]; every message names the file (and column, row).
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Table, DataError> {
    let p = check_file(path)?;
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
    let mut warnings = Vec::new();
    if let Format::Csv(sep) = format {
        if let Some(names) = legacy_header(path, sep).filter(|n| n.len() == df.width()) {
            warnings.push(format!(
                "{p}: the header is not UTF-8; its names were read as Windows-1252: {}",
                names.join(", ")
            ));
            df.set_column_names(&names)
                .map_err(|e| DataError::new(format!("{p}: header: {e}")))?;
        }
    }
    let rows = df.height();
    let columns = df.into_columns().into_iter().map(PolarsColumn).collect();
    assemble(path, format, columns, rows, opts, warnings)
}

/// A column polars read, as [`assemble`] takes it.
struct PolarsColumn(Column);

impl SourceColumn for PolarsColumn {
    fn name(&self) -> &str {
        self.0.name().as_str()
    }

    fn looks_like_time_axis(&self) -> Option<bool> {
        looks_like_time_axis(&self.0)
    }

    fn time_axis(&self) -> Result<(TimeAxis, Option<String>), String> {
        time_axis(&self.0)
    }

    /// Numbers and booleans as they are; decimals with a warning where the run's precision
    /// changes them; text by the text rule; anything else refused or skipped.
    fn values(
        self,
        read: &ColumnRead,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Values>, DataError> {
        let (col, opts, p) = (self.0, read.options, read.file);
        let name = col.name().to_string();
        let dtype = col.dtype().clone();
        let failed = |e: PolarsError| DataError::new(format!("{p}: column '{name}': {e}"));
        if dtype.is_primitive_numeric() || dtype == DataType::Boolean {
            return numbers(&col, opts.dtype).map(Some).map_err(failed);
        }
        if let DataType::Decimal(_, scale) = dtype {
            let v = numbers(&col, opts.dtype).map_err(failed)?;
            if let Some(w) = decimal_rounding(&col, &v, scale) {
                warnings.push(format!("{p}: column '{name}' ({dtype}): {w}"));
            }
            return Ok(Some(v));
        }
        if matches!(dtype, DataType::String | DataType::Null) || dtype.is_temporal() {
            let text = col.cast(&DataType::String).map_err(failed)?;
            let cells = text.str().map_err(failed)?;
            let (missing, format) = (opts.missing, read.format);
            return Ok(match opts.dtype {
                DType::F32 => {
                    text_numbers::<f32>(cells.iter(), p, &name, format, missing, warnings)?
                        .map(Values::from)
                }
                DType::F64 => {
                    text_numbers::<f64>(cells.iter(), p, &name, format, missing, warnings)?
                        .map(Values::from)
                }
            });
        }
        if opts.missing == Missing::Error && opts.columns.is_none() {
            return refuse(
                &[Opt::Columns],
                format!("{p}: column '{name}' holds {dtype}, not numbers; pick the channels with {OPTION}"),
            );
        }
        warnings.push(format!(
            "{p}: column '{name}' holds {dtype}, not numbers; skipped"
        ));
        Ok(None)
    }
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

//! Reading a file through polars: CSV/TSV (delimiter sniffed, UTF-8 BOM skipped), Parquet,
//! Arrow IPC, NDJSON. A date/time column becomes the x axis; numeric columns are channels.

use super::{err, Channel, DataError, Table, TimeAxis};
use polars::prelude::*;
use std::fs::File;
use std::io::Read;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv(u8),
    Parquet,
    Ipc,
    NdJson,
}

#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Only these columns (in this order); all numeric columns when None.
    pub columns: Option<Vec<String>>,
}

/// Guess the format from the extension, then the content (delimiter by counting).
pub fn detect_format(path: &Path) -> Result<Format, DataError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "parquet" | "pq" => return Ok(Format::Parquet),
        "arrow" | "ipc" | "feather" => return Ok(Format::Ipc),
        "ndjson" | "jsonl" | "json" => return Ok(Format::NdJson),
        _ => {}
    }
    let mut head = vec![0u8; 64 * 1024];
    let n = File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| DataError(format!("{}: cannot read: {e}", path.display())))?;
    head.truncate(n);
    if head.starts_with(b"PAR1") {
        return Ok(Format::Parquet);
    }
    if head.starts_with(b"ARROW1") {
        return Ok(Format::Ipc);
    }
    Ok(Format::Csv(sniff_delimiter(&head)))
}

/// The candidate that splits the first lines into the same, largest number of fields.
fn sniff_delimiter(head: &[u8]) -> u8 {
    let text = String::from_utf8_lossy(head);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(20)
        .collect();
    let mut best = (b',', 0usize);
    for d in [b',', b'\t', b';', b'|'] {
        let counts: Vec<usize> = lines
            .iter()
            .map(|l| l.bytes().filter(|&b| b == d).count())
            .collect();
        let consistent = counts
            .first()
            .is_some_and(|&c| c > 0 && counts.iter().all(|&x| x == c));
        if consistent && counts[0] > best.1 {
            best = (d, counts[0]);
        }
    }
    best.0
}

fn read_frame(path: &Path, format: Format) -> PolarsResult<DataFrame> {
    match format {
        Format::Csv(sep) => CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(10_000))
            .map_parse_options(|p| p.with_separator(sep))
            .try_into_reader_with_file_path(Some(path.into()))?
            .finish(),
        Format::Parquet => ParquetReader::new(File::open(path)?).finish(),
        Format::Ipc => IpcReader::new(File::open(path)?).finish(),
        Format::NdJson => JsonReader::new(File::open(path)?)
            .with_json_format(JsonFormat::JsonLines)
            .finish(),
    }
}

fn is_time_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "ds" || n.contains("date") || n.contains("time")
}

/// `YYYY-MM-DD…`, `YYYY/MM/DD…` or `HH:MM…`: a text column that holds dates or times.
/// (Dates stay text: parsing them is most of a CSV's load time, and only labels are needed.)
fn looks_like_time(v: &str) -> bool {
    let b = v.trim().as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.len() >= r.end && b[r].iter().all(u8::is_ascii_digit);
    (digits(0..4) && b.len() > 6 && matches!(b[4], b'-' | b'/') && b[5].is_ascii_digit())
        || (digits(0..2) && b.len() > 4 && b[2] == b':' && digits(3..5))
}

/// Load a file into a [`Table`]; every message names the file (and column, row).
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Table, DataError> {
    let p = path.display();
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
    let df = read_frame(path, format).map_err(|e| {
        DataError(format!(
            "{p}: cannot parse as {format:?}: {}",
            first_line(&e.to_string())
        ))
    })?;
    if df.width() == 0 {
        return err(format!("{p}: no columns"));
    }
    if df.height() == 0 {
        return err(format!("{p}: has a header but no data rows"));
    }
    let mut table = Table {
        path: path.to_path_buf(),
        ..Default::default()
    };
    // Columns are taken out of the frame one by one and dropped once copied, so the peak
    // holds the file's numbers about twice, not three times.
    for col in df.into_columns() {
        let name = col.name().to_string();
        let dtype = col.dtype();
        let text_time = dtype == &DataType::String
            && (is_time_name(&name)
                || col
                    .str()
                    .ok()
                    .and_then(|s| s.iter().flatten().next())
                    .is_some_and(looks_like_time));
        if table.time.is_none() && (dtype.is_temporal() || text_time) {
            table.time = Some(TimeAxis::new(name, col.clone()));
            continue;
        }
        if dtype.is_primitive_numeric() || dtype == &DataType::Boolean {
            let f = col
                .cast(&DataType::Float64)
                .map_err(|e| DataError(format!("{p}: column '{name}': {e}")))?;
            let f = f
                .f64()
                .map_err(|e| DataError(format!("{p}: column '{name}': {e}")))?;
            let values: Vec<f64> = f.iter().map(|v| v.unwrap_or(f64::NAN)).collect();
            if let Some(row) = values.iter().position(|v| v.is_infinite()) {
                return err(format!("{p}: column '{name}', row {row}: infinite value"));
            }
            table.channels.push(Channel { name, values });
        } else {
            table.skipped.push(name);
        }
    }
    if let Some(wanted) = &opts.columns {
        let mut picked = Vec::with_capacity(wanted.len());
        for w in wanted {
            match table.channels.iter().find(|c| &c.name == w) {
                Some(c) => picked.push(c.clone()),
                None if table.skipped.contains(w) => {
                    return err(format!("{p}: column '{w}' is not numeric"))
                }
                None => {
                    let known: Vec<&str> = table.channels.iter().map(|c| c.name.as_str()).collect();
                    return err(format!(
                        "{p}: no column '{w}' (numeric columns: {})",
                        known.join(", ")
                    ));
                }
            }
        }
        table.channels = picked;
    }
    if table.channels.is_empty() {
        return err(format!(
            "{p}: no numeric columns (found: {})",
            table.skipped.join(", ")
        ));
    }
    Ok(table)
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

//! CSV and TSV files read without polars: the Python wheel's reader. Each column is typed
//! as polars types it (booleans, integers, floats, text: `polars-io`'s inference rules,
//! over the whole column), so that [`table::assemble`] makes the same decisions and the
//! table equals the application's loader's (tests/plain_csv.rs compares the two; a sweep's
//! parts carry the data's fingerprint, so parts of tables that differ never merge).
//! Other formats are refused in one line.

use crate::axis::text_axis;
use crate::cells::{row_place, TextTally};
use crate::format::{detect_format, legacy_header, Format};
use crate::table::{self, check_file, ColumnRead, SourceColumn};
use std::path::Path;
use wavebench_core::data::time::{self, TimeAxis, TimeColumn};
use wavebench_core::data::{err, DataError, Table};
use wavebench_core::engine::{EngineKind, Selected};
use wavebench_core::numeric::{DType, Real, Values};
use wavebench_core::run_spec::{Backend, LoadOptions, NATIVE_ONLY};

/// The wheel's backend: CSV and TSV files through [`load`], the native engine.
#[derive(Debug)]
pub struct PlainFiles;

pub static PLAIN_FILES: PlainFiles = PlainFiles;

impl Backend for PlainFiles {
    fn load(&self, path: &Path, options: &LoadOptions) -> Result<Table, DataError> {
        load(path, options)
    }
    fn engine(&self, kind: EngineKind) -> Selected {
        NATIVE_ONLY.engine(kind)
    }
}

/// A CSV or TSV file as a [`Table`]; every message names the file (and column, row).
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Table, DataError> {
    let p = check_file(path)?;
    let format = detect_format(path)?;
    let Format::Csv(sep) = format else {
        return err(format!(
            "{p}: {} is read by the wavebench command line and app; this reader takes CSV and TSV (convert the file, or run `wavebench sweep` on it)",
            format.describe()
        ));
    };
    match opts.dtype {
        DType::F32 => read::<f32>(path, &p, sep, opts),
        DType::F64 => read::<f64>(path, &p, sep, opts),
    }
}

fn read<T>(path: &Path, p: &str, sep: u8, opts: &LoadOptions) -> Result<Table, DataError>
where
    T: Real + std::str::FromStr + zmij::Float,
    Values: From<Vec<T>>,
{
    // The whole file in memory (as polars holds it too): the empty lines between records,
    // which polars reads as rows of missing cells and the csv crate skips, are counted
    // from its bytes.
    let bytes =
        std::fs::read(path).map_err(|e| DataError::new(format!("{p}: cannot read: {e}")))?;
    // polars skips a UTF-8 byte-order mark; the csv crate would make it part of the first
    // name.
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(sep)
        .has_headers(true)
        .flexible(true)
        .from_reader(body);
    let parse_error = |e: csv::Error| DataError::new(format!("{p}: cannot parse as CSV: {e}"));
    let header = reader.byte_headers().map_err(parse_error)?.clone();
    let (names, warnings) = header_names(path, p, sep, &header)?;
    let mut columns: Vec<CsvColumn<T>> = names
        .into_iter()
        .map(|name| CsvColumn::new(name, &opts.time_column))
        .collect();
    let mut record = csv::ByteRecord::new();
    let mut rows = 0usize;
    loop {
        for _ in 0..empty_lines_at(body, reader.position().byte() as usize) {
            for column in columns.iter_mut() {
                column.push(rows, None);
            }
            rows += 1;
        }
        if !reader.read_byte_record(&mut record).map_err(parse_error)? {
            break;
        }
        if record.len() > columns.len() {
            return err(format!(
                "{p}: {}: {} fields, and the header names {}",
                row_place(Format::Csv(sep), rows),
                record.len(),
                columns.len()
            ));
        }
        for (i, column) in columns.iter_mut().enumerate() {
            // A short row's missing fields are empty cells, as polars reads them.
            let cell = record.get(i).filter(|c| !c.is_empty());
            column.push(rows, cell.map(String::from_utf8_lossy).as_deref());
        }
        rows += 1;
    }
    table::assemble(path, Format::Csv(sep), columns, rows, opts, warnings)
}

/// How many empty lines start at byte `at`, where the csv crate's reader stands after a
/// record (before the `\n` of a `\r\n` that ended it).
fn empty_lines_at(body: &[u8], at: usize) -> usize {
    let mut i = at;
    if i > 0 && body.get(i - 1) == Some(&b'\r') && body.get(i) == Some(&b'\n') {
        i += 1;
    }
    let mut lines = 0;
    loop {
        match body.get(i..) {
            Some([b'\r', b'\n', ..]) => i += 2,
            Some([b'\n' | b'\r', ..]) => i += 1,
            _ => return lines,
        }
        lines += 1;
    }
}

/// The header's names, de-duplicated as polars does (`x`, `x_duplicated_0`), and read as
/// Windows-1252 (with a warning) when they are not UTF-8.
fn header_names(
    path: &Path,
    p: &str,
    sep: u8,
    header: &csv::ByteRecord,
) -> Result<(Vec<String>, Vec<String>), DataError> {
    let lossy: Vec<String> = header
        .iter()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect();
    if header.iter().any(|n| std::str::from_utf8(n).is_err()) {
        if let Some(names) = legacy_header(path, sep).filter(|n| n.len() == lossy.len()) {
            let warning = format!(
                "{p}: the header is not UTF-8; its names were read as Windows-1252: {}",
                names.join(", ")
            );
            return Ok((names, vec![warning]));
        }
    }
    let mut seen: std::collections::HashMap<&str, usize> = Default::default();
    let mut names = Vec::with_capacity(lossy.len());
    for name in &lossy {
        let count = seen.entry(name.as_str()).or_insert(0);
        let named = match *count {
            0 => name.clone(),
            n => format!("{name}_duplicated_{}", n - 1),
        };
        *count += 1;
        if names.contains(&named) {
            return err(format!(
                "{p}: the header names '{name}' more than once, and the name it would be read under, '{named}', is in the file too"
            ));
        }
        names.push(named);
    }
    Ok((names, Vec::new()))
}

/// The type polars gives a column of cells (empty cells aside): all `true`/`false`
/// (any case), all integers, all numbers, else text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Boolean,
    Integer,
    Float,
    Text,
}

/// Which of polars' types every cell so far fits.
#[derive(Debug)]
struct KindTally {
    any: bool,
    all_boolean: bool,
    all_integer: bool,
    all_number: bool,
}

impl KindTally {
    fn new() -> Self {
        KindTally {
            any: false,
            all_boolean: true,
            all_integer: true,
            all_number: true,
        }
    }

    fn add(&mut self, cell: &str) {
        self.any = true;
        self.all_boolean &= cell.eq_ignore_ascii_case("true") || cell.eq_ignore_ascii_case("false");
        let integer = is_integer(cell);
        self.all_integer &= integer;
        self.all_number &= integer || is_float(cell);
    }

    fn kind(&self) -> Kind {
        match self {
            KindTally { any: false, .. } => Kind::Text,
            KindTally {
                all_boolean: true, ..
            } => Kind::Boolean,
            KindTally {
                all_integer: true, ..
            } => Kind::Integer,
            KindTally {
                all_number: true, ..
            } => Kind::Float,
            _ => Kind::Text,
        }
    }
}

/// polars' integer: `-?\d+` that fits in 64 bits.
fn is_integer(cell: &str) -> bool {
    let digits = cell.strip_prefix('-').unwrap_or(cell);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && cell.parse::<i64>().is_ok()
}

/// polars' float: `[-+]?(\d*\.\d+([eE][-+]?\d+)?|inf|NaN|\d+[eE][-+]?\d+|\d+\.)`.
fn is_float(cell: &str) -> bool {
    let s = cell.strip_prefix(['-', '+']).unwrap_or(cell);
    if s == "inf" || s == "NaN" {
        return true;
    }
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let exponent = |t: &str| digits(t.strip_prefix(['-', '+']).unwrap_or(t));
    let (mantissa, exp) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (s, None),
    };
    if exp.is_some_and(|e| !exponent(e)) {
        return false;
    }
    match mantissa.split_once('.') {
        // \d*\.\d+ (with an exponent or not), or \d+\. (without one)
        Some((whole, frac)) => {
            (whole.is_empty() || digits(whole)) && digits(frac)
                || exp.is_none() && digits(whole) && frac.is_empty()
        }
        // \d+[eE][-+]?\d+
        None => exp.is_some() && digits(mantissa),
    }
}

/// A cell of a boolean, integer or float column as polars writes it when it casts the
/// column to text: `true`, `7`, `100000.0` (the shortest text that reads back as the
/// same value, in the run's precision).
fn polars_text<T: Real + std::str::FromStr + zmij::Float>(kind: Kind, cell: &str) -> String {
    match kind {
        Kind::Boolean => cell.to_ascii_lowercase(),
        Kind::Integer => cell.parse::<i64>().map_or(cell.to_string(), |v| {
            itoa::Buffer::new().format(v).to_string()
        }),
        Kind::Float => cell.parse::<T>().map_or(cell.to_string(), |v| {
            zmij::Buffer::new().format(v).to_string()
        }),
        Kind::Text => cell.to_string(),
    }
}

/// One column as it is read, cell by cell: its values by the text rule, what polars would
/// type it, and what a time axis from it needs (kept only where it may become one).
struct CsvColumn<T> {
    name: String,
    values: Vec<T>,
    tally: TextTally,
    kind: KindTally,
    /// 1, 0 or NaN per cell while every cell is a boolean.
    booleans: Option<Vec<T>>,
    /// Every cell as an integer, while each is one (for an index-like name).
    integers: Option<Vec<i64>>,
    /// Every cell as written, where the column may be the time axis.
    texts: Option<Vec<Option<String>>>,
    /// The first cell that is not empty, as written.
    first: Option<String>,
}

impl<T: Real + std::str::FromStr + zmij::Float> CsvColumn<T> {
    fn new(name: String, time_column: &TimeColumn) -> Self {
        let named = matches!(time_column, TimeColumn::Named(t) if *t == name);
        CsvColumn {
            integers: (named || time::is_index_name(&name)).then(Vec::new),
            texts: (named || time::is_time_name(&name)).then(Vec::new),
            name,
            values: Vec::new(),
            tally: TextTally::default(),
            kind: KindTally::new(),
            booleans: Some(Vec::new()),
            first: None,
        }
    }

    fn push(&mut self, row: usize, cell: Option<&str>) {
        self.values.push(self.tally.read(row, cell));
        if let Some(c) = cell {
            self.kind.add(c);
            if self.first.is_none() {
                self.first = Some(c.to_string());
                // A column whose first cell is a date may be the time axis.
                if time::looks_like_time(c) && self.texts.is_none() {
                    self.texts = Some(vec![None; row]);
                }
            }
        }
        if let Some(b) = &mut self.booleans {
            match cell {
                None => b.push(T::from_f64(f64::NAN)),
                Some(c) if c.eq_ignore_ascii_case("true") => b.push(T::from_f64(1.0)),
                Some(c) if c.eq_ignore_ascii_case("false") => b.push(T::from_f64(0.0)),
                Some(_) => self.booleans = None,
            }
        }
        if let Some(ints) = &mut self.integers {
            match cell.filter(|c| is_integer(c)).and_then(|c| c.parse().ok()) {
                Some(v) => ints.push(v),
                None => self.integers = None,
            }
        }
        if let Some(texts) = &mut self.texts {
            texts.push(cell.map(str::to_string));
        }
    }
}

impl<T> SourceColumn for CsvColumn<T>
where
    T: Real + std::str::FromStr + zmij::Float,
    Values: From<Vec<T>>,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn looks_like_time_axis(&self) -> Option<bool> {
        match self.kind.kind() {
            Kind::Text => (time::is_time_name(&self.name)
                || self.first.as_deref().is_some_and(time::looks_like_time))
            .then_some(true),
            Kind::Integer if time::is_index_name(&self.name) => self
                .integers
                .as_deref()
                .is_some_and(time::strictly_increasing)
                .then_some(false),
            _ => None,
        }
    }

    fn time_axis(&self) -> Result<(TimeAxis, Option<String>), String> {
        if let (Kind::Integer, Some(ints)) = (self.kind.kind(), &self.integers) {
            return Ok((TimeAxis::index(self.name.clone(), ints.clone()), None));
        }
        let texts = self.texts.as_ref().ok_or_else(|| {
            "its cells were not kept for a time axis (a bug in the reader)".to_string()
        })?;
        let kind = self.kind.kind();
        if kind == Kind::Text {
            return text_axis(self.name.clone(), || texts.iter().map(Option::as_deref));
        }
        // Labels of numbers as polars prints them when it casts the column to text.
        let labels: Vec<Option<String>> = texts
            .iter()
            .map(|cell| cell.as_deref().map(|c| polars_text::<T>(kind, c)))
            .collect();
        text_axis(self.name.clone(), || labels.iter().map(Option::as_deref))
    }

    fn values(
        self,
        read: &ColumnRead,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Values>, DataError> {
        if let (Kind::Boolean, Some(b)) = (self.kind.kind(), self.booleans) {
            return Ok(Some(Values::from(b)));
        }
        let kept = self.tally.verdict(
            read.file,
            &self.name,
            read.format,
            read.options.missing,
            warnings,
        )?;
        Ok(kept.then(|| Values::from(self.values)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_typed_as_polars_types_them() {
        for f in [
            "1.5", "-1.5", "+.5", "5.", "1e5", "1.5E-3", "inf", "-NaN", "0.0",
        ] {
            assert!(is_float(f), "{f}");
        }
        for f in [
            "1", "e5", "1.e5", ".", "1.5e", "nan", "Inf", "1,5", " 1.5", "1e+", "--1.5",
        ] {
            assert!(!is_float(f), "{f}");
        }
        for i in ["0", "-12", "9223372036854775807"] {
            assert!(is_integer(i), "{i}");
        }
        for i in ["+1", "1.0", "9223372036854775808", "-", " 1"] {
            assert!(!is_integer(i), "{i}");
        }
    }
}

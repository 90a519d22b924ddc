//! What a data file is, before polars reads it: its format (from the extension, then the
//! content: a sniffed delimiter), and the checks and fixes a text file needs (binary
//! content, CR-only lines, a Windows-1252 header).

use std::fs::File;
use std::io::Read;
use std::path::Path;
use wavebench_core::data::{err, DataError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv(u8),
    Parquet,
    Ipc,
    NdJson,
}

impl Format {
    pub fn describe(self) -> String {
        match self {
            Format::Csv(b',') => "CSV".into(),
            Format::Csv(b'\t') => "TSV".into(),
            Format::Csv(sep) => format!("CSV ('{}'-separated)", sep as char),
            Format::Parquet => "Parquet".into(),
            Format::Ipc => "Arrow IPC".into(),
            Format::NdJson => "NDJSON".into(),
        }
    }
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
        _ => {}
    }
    let head = read_head(path, TEXT_CHECK_BYTES)?;
    if head.starts_with(b"PAR1") {
        return Ok(Format::Parquet);
    }
    if head.starts_with(b"ARROW1") {
        return Ok(Format::Ipc);
    }
    check_text(path, &head)?;
    if matches!(ext.as_str(), "ndjson" | "jsonl" | "json") {
        return Ok(Format::NdJson);
    }
    Ok(Format::Csv(sniff_delimiter(
        &head[..head.len().min(64 * 1024)],
    )))
}

/// How much of a text file is checked for binary content before polars parses it.
const TEXT_CHECK_BYTES: usize = 1 << 20;

/// Up to `limit` bytes from the start of `path` (fewer for a short file; a FIFO is read
/// until it ends or the limit is reached).
fn read_head(path: &Path, limit: usize) -> Result<Vec<u8>, DataError> {
    let mut head = Vec::with_capacity(limit.min(1 << 16));
    File::open(path)
        .and_then(|f| f.take(limit as u64).read_to_end(&mut head))
        .map_err(|e| DataError::new(format!("{}: cannot read: {e}", path.display())))?;
    Ok(head)
}

/// A text format's first megabyte holds no NUL byte (a binary file, or a text file
/// padded with NULs, sent polars parsing one endless field for minutes) and ends its
/// lines with `\n` (a CR-only file looked like one header line and no data).
fn check_text(path: &Path, head: &[u8]) -> Result<(), DataError> {
    if let Some(at) = head.iter().position(|&b| b == 0) {
        let line = head[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        return err(format!(
            "{}: a NUL byte at byte {at} (line {line}): this is binary data, not CSV, TSV or NDJSON text; a Parquet or Arrow file needs its extension (.parquet, .arrow)",
            path.display()
        ));
    }
    if !head.contains(&b'\n') && head.iter().filter(|&&b| b == b'\r').count() > 1 {
        return err(format!(
            "{}: lines end with a carriage return alone (old Mac text); convert it, e.g. tr '\\r' '\\n' < {} > fixed.csv",
            path.display(),
            path.display()
        ));
    }
    Ok(())
}

/// The header's names decoded as Windows-1252, when the header line is not UTF-8 (None
/// when it is). Fields are split at `sep` and lose their surrounding quotes.
pub fn legacy_header(path: &Path, sep: u8) -> Option<Vec<String>> {
    use std::io::BufRead;
    let mut line = Vec::new();
    std::io::BufReader::new(File::open(path).ok()?)
        .take(1 << 20)
        .read_until(b'\n', &mut line)
        .ok()?;
    while matches!(line.last(), Some(b'\n' | b'\r')) {
        line.pop();
    }
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
    if std::str::from_utf8(line).is_ok() {
        return None;
    }
    Some(
        line.split(|&b| b == sep)
            .map(|field| {
                let field = field
                    .strip_prefix(b"\"")
                    .and_then(|f| f.strip_suffix(b"\""))
                    .unwrap_or(field);
                field.iter().map(|&b| windows_1252(b)).collect()
            })
            .collect(),
    )
}

/// A Windows-1252 byte as its character: Latin-1 but for 0x80-0x9F (€, quotes, dashes…).
fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9f => HIGH[(b - 0x80) as usize],
        _ => b as char,
    }
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

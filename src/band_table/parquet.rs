//! Parquet: one row per series, a list column per band, the settings as the file's
//! `wavebench` key-value metadata; written and read back.

use super::{check_kind, check_level, series_major, BandTable, Coeffs, Meta};
use crate::error::{Error, Result};
use crate::export;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::Path;
use wavebench_core::engine::plan::band_names;
use wavebench_core::engine::{DType, Values};

/// The Parquet key holding the settings (and the kind of bands) as JSON.
const META_KEY: &str = "wavebench";

#[derive(Serialize, Deserialize)]
struct FileMeta {
    #[serde(flatten)]
    meta: Meta,
    kind: String,
    /// Each band's frequency range and periods (written, not read back).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    bands: Vec<super::BandRange>,
}

/// `table` as a Parquet file at `path`.
pub(super) fn write(path: &Path, table: &BandTable) -> Result<()> {
    let (mut df, meta) =
        frame(table).map_err(|e| Error::input(format!("{}: {e}", path.display())))?;
    export::write_atomic(path, |w| {
        use polars::prelude::*;
        ParquetWriter::new(w)
            .with_key_value_metadata(Some(KeyValueMetadata::from_static(vec![(
                META_KEY.into(),
                meta,
            )])))
            .finish(&mut df)
            .map(|_| ())
            .map_err(io::Error::other)
    })
}

/// Band `(per, off, len)` (its offset and length within each series' `per` values) of
/// every one of the `n` series as a list column.
fn band_list<T: polars::prelude::PolarsNumericType>(
    name: &str,
    values: &[T::Native],
    (per, off, len): (usize, usize, usize),
    n: usize,
) -> polars::prelude::Series {
    use polars::prelude::*;
    let mut b =
        ListPrimitiveChunkedBuilder::<T>::new(name.into(), n, n * len, T::get_static_dtype());
    for s in values.chunks_exact(per.max(1)) {
        b.append_slice(&s[off..off + len]);
    }
    b.finish().into_series()
}

/// The Parquet frame and its settings as JSON.
fn frame(t: &BandTable) -> polars::prelude::PolarsResult<(polars::prelude::DataFrame, String)> {
    use polars::prelude::*;
    let n = t.series();
    let mut cols: Vec<Column> = Vec::new();
    if t.has_files() {
        let f: Vec<Option<String>> = t.labels.iter().map(|l| l.file.clone()).collect();
        cols.push(Series::new("file".into(), f).into());
    }
    let c: Vec<String> = t.labels.iter().map(|l| l.column.clone()).collect();
    cols.push(Series::new("column".into(), c).into());
    if t.has_windows() {
        let w: Vec<Option<u64>> = t
            .labels
            .iter()
            .map(|l| l.window.map(|v| v as u64))
            .collect();
        let s: Vec<Option<u64>> = t.labels.iter().map(|l| l.start.map(|v| v as u64)).collect();
        let tm: Vec<Option<String>> = t.labels.iter().map(|l| l.start_time.clone()).collect();
        cols.push(Series::new("window".into(), w).into());
        cols.push(Series::new("start".into(), s).into());
        cols.push(Series::new("start_time".into(), tm).into());
    }
    let per = t.per_series();
    for (name, (&off, &len)) in t.names.iter().zip(t.offsets().iter().zip(&t.lens)) {
        let list = match &t.values {
            Values::F32(v) => band_list::<Float32Type>(name, v, (per, off, len), n),
            Values::F64(v) => band_list::<Float64Type>(name, v, (per, off, len), n),
        };
        cols.push(list.into());
    }
    let meta = serde_json::to_string(&FileMeta {
        meta: t.meta.clone(),
        kind: t.kind.key().into(),
        bands: super::band_ranges(t),
    })
    .map_err(|e| PolarsError::ComputeError(e.to_string().into()))?;
    Ok((DataFrame::new(n, cols)?, meta))
}

pub(super) fn read(path: &Path) -> Result<Coeffs> {
    use polars::prelude::*;
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, "read", e))?;
    let mut reader = ParquetReader::new(f);
    let kv = reader
        .get_metadata()
        .map_err(|e| Error::input(e.to_string()))?
        .key_value_metadata()
        .clone()
        .unwrap_or_default();
    let file_meta: Option<FileMeta> = kv
        .iter()
        .find(|k| k.key == META_KEY)
        .and_then(|k| k.value.as_deref())
        .map(serde_json::from_str::<FileMeta>)
        .transpose()
        .map_err(|e| Error::input(format!("the '{META_KEY}' metadata is not readable: {e}")))?;
    if let Some(m) = &file_meta {
        check_kind(&m.kind)?;
    }
    let meta = file_meta.map(|m| m.meta);
    let df = reader.finish().map_err(|e| Error::input(e.to_string()))?;
    let names: Vec<String> = df
        .get_column_names()
        .into_iter()
        .filter(|n| {
            let n = n.as_str();
            (n.starts_with("cA") || n.starts_with("cD")) && n[2..].parse::<usize>().is_ok()
        })
        .map(|n| n.to_string())
        .collect();
    if let (Some(m), false) = (&meta, names.is_empty()) {
        check_level(m.level, names.len())?;
    }
    let level = names.len().saturating_sub(1);
    let want = band_names(level);
    if names.is_empty() || names.len() != want.len() || want.iter().any(|w| !names.contains(w)) {
        return Err(Error::input(format!(
            "expected list columns {} (as decompose writes), found {}",
            band_names(meta.as_ref().map_or(3, |m| m.level)).join(", "),
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }
        )));
    }
    let series = df.height();
    let mut lens = Vec::new();
    let mut per_band: Vec<Vec<f64>> = Vec::new();
    for name in &want {
        let (flat, len) = band_column(&df, name)?;
        lens.push(len);
        per_band.push(flat);
    }
    let labels = labels_of(&df, series);
    let dtype = meta.as_ref().map_or(DType::F64, |m| m.dtype);
    Ok(Coeffs {
        meta,
        labels,
        names: want,
        values: series_major(&per_band, &lens, series, dtype),
        lens,
    })
}

/// Band `name`'s coefficients, series by series, and how many each series has (all the
/// same, or the error says which row differs).
fn band_column(df: &polars::prelude::DataFrame, name: &str) -> Result<(Vec<f64>, usize)> {
    use polars::prelude::*;
    let col = df.column(name).map_err(|e| Error::input(e.to_string()))?;
    let list = col.list().map_err(|_| {
        Error::input(format!(
            "column {name} is {}, not a list of numbers",
            col.dtype()
        ))
    })?;
    let mut flat = Vec::new();
    let mut len = None;
    for row in 0..list.len() {
        let s = list
            .get_as_series(row)
            .ok_or_else(|| Error::input(format!("column {name}, row {row}: empty")))?;
        let s = s
            .cast(&DataType::Float64)
            .map_err(|e| Error::input(e.to_string()))?;
        let v = s.f64().map_err(|e| Error::input(e.to_string()))?;
        if *len.get_or_insert(v.len()) != v.len() {
            return Err(Error::input(format!(
                "column {name}, row {row}: {} coefficients, row 0 has {}",
                v.len(),
                len.unwrap_or(0)
            )));
        }
        flat.extend(v.iter().map(|x| x.unwrap_or(f64::NAN)));
    }
    Ok((flat, len.unwrap_or(0)))
}

/// Each of `series` series' label from the table's `file`, `column`, `window`, `start` and
/// `start_time` columns, where it has them.
fn labels_of(df: &polars::prelude::DataFrame, series: usize) -> Vec<super::Label> {
    use polars::prelude::*;
    let text = |name: &str| -> Option<Vec<Option<String>>> {
        let c = df.column(name).ok()?.str().ok()?.clone();
        Some((0..c.len()).map(|i| c.get(i).map(str::to_string)).collect())
    };
    let ints = |name: &str| -> Option<Vec<Option<usize>>> {
        let c = df.column(name).ok()?.cast(&DataType::UInt64).ok()?;
        let c = c.u64().ok()?.clone();
        Some((0..c.len()).map(|i| c.get(i).map(|x| x as usize)).collect())
    };
    let (files, columns, times) = (text("file"), text("column"), text("start_time"));
    let (windows, starts) = (ints("window"), ints("start"));
    (0..series)
        .map(|s| super::Label {
            file: files.as_ref().and_then(|v| v[s].clone()),
            column: columns
                .as_ref()
                .and_then(|v| v[s].clone())
                .unwrap_or_else(|| format!("series_{s}")),
            window: windows.as_ref().and_then(|v| v[s]),
            start: starts.as_ref().and_then(|v| v[s]),
            start_time: times.as_ref().and_then(|v| v[s].clone()),
        })
        .collect()
}

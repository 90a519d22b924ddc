//! Coefficients read back for `waverec`: what `decompose` wrote (JSON, `.npz`, Parquet) or
//! `np.savez(f, *pywt.wavedec(x, …))`, each file checked for what it holds (its kind, its
//! bands against its level, gaps) before anything is inverted.

use super::{extension, series_major, FileMeta, Label, Meta, META_KEY};
use crate::npy;
use serde::Deserialize;
use std::io;
use std::path::Path;
use wavebench_core::engine::plan::band_names;
use wavebench_core::engine::{DType, Values};
use wavebench_core::names::UnknownName;
use wavebench_core::wavelet::Mode;

/// Coefficients read back for `waverec`: the bands of every series, and the settings the
/// file records (none for arrays saved by hand, e.g. `np.savez(f, *pywt.wavedec(x, …))`).
#[derive(Debug, Clone)]
pub struct Coeffs {
    pub meta: Option<Meta>,
    pub labels: Vec<Label>,
    pub names: Vec<String>,
    pub lens: Vec<usize>,
    /// Series-major, bands concatenated, as `BandTable::values`.
    pub values: Values,
}

/// A file of another kind (mra's components, waverec's signals) is not coefficients:
/// inverting it would give a signal of the wrong length and meaning, without a word.
fn check_kind(kind: &str) -> Result<(), String> {
    match kind {
        "coeffs" => Ok(()),
        "components" => Err(
            "holds per-band components (what `wavebench mra` writes), not coefficients; waverec inverts what `wavebench decompose` writes (the components already sum to the signal)".into(),
        ),
        "signal" => Err(
            "holds signals (what `wavebench waverec` writes), not coefficients; waverec inverts what `wavebench decompose` writes".into(),
        ),
        other => Err(format!(
            "holds bands of kind '{other}', not coefficients (what `wavebench decompose` writes)"
        )),
    }
}

/// The bands must be the recorded level's n+1: a band deleted from the file would
/// otherwise be inverted silently into a signal of the wrong length.
fn check_level(recorded: usize, bands: usize) -> Result<(), String> {
    if bands == recorded + 1 {
        return Ok(());
    }
    Err(format!(
        "records level {recorded}, which has {} bands ({}), but holds {bands}; was a band removed or added?",
        recorded + 1,
        band_names(recorded).join(", ")
    ))
}

/// Read `[cA_n, cD_n, …, cD_1]` coefficients of one or more series from a file `decompose`
/// wrote (`.json`, `.npz`, `.parquet`) or from an `.npz` of arrays `arr_0, arr_1, …` (1-D:
/// one series; 2-D: series × coefficients). Errors name the file and what is wrong.
pub fn read_coeffs(path: &Path) -> Result<Coeffs, String> {
    let p = path.display();
    let fail = |e: String| format!("{p}: {e}");
    match extension(path).as_deref() {
        Some("json") => read_json(path).map_err(fail),
        Some("npz") => {
            let f = std::fs::File::open(path).map_err(|e| fail(format!("cannot read: {e}")))?;
            from_npz(npy::read_npz(f).map_err(fail)?).map_err(fail)
        }
        Some("parquet") => read_parquet(path).map_err(fail),
        _ => Err(format!(
            "{p}: expected coefficients as .json, .npz or .parquet (what decompose writes)"
        )),
    }
}

fn read_json(path: &Path) -> Result<Coeffs, String> {
    #[derive(Deserialize)]
    struct Doc {
        wavelet: String,
        mode: Mode,
        level: usize,
        dtype: DType,
        #[serde(default)]
        engine: String,
        series: Vec<One>,
    }
    #[derive(Deserialize)]
    struct One {
        file: Option<String>,
        #[serde(default)]
        column: String,
        window: Option<usize>,
        start: Option<usize>,
        start_time: Option<String>,
        coeffs: Option<Vec<Vec<f64>>>,
        components: Option<serde::de::IgnoredAny>,
        signal: Option<serde::de::IgnoredAny>,
    }
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let doc: Doc = serde_json::from_reader(io::BufReader::new(f))
        .map_err(|e| format!("not a decompose document: {e}"))?;
    let mut series = Vec::with_capacity(doc.series.len());
    for (i, s) in doc.series.into_iter().enumerate() {
        match (&s.coeffs, &s.components, &s.signal) {
            (Some(_), _, _) => {}
            (None, Some(_), _) => check_kind("components")?,
            (None, None, Some(_)) => check_kind("signal")?,
            (None, None, None) => {
                return Err(format!(
                    "series {i} has no \"coeffs\" (bands of coefficients)"
                ))
            }
        }
        series.push(s);
    }
    let doc_series = series;
    let lens: Vec<usize> = doc_series
        .first()
        .and_then(|s| s.coeffs.as_ref())
        .map(|c| c.iter().map(Vec::len).collect())
        .unwrap_or_default();
    if !doc_series.is_empty() {
        check_level(doc.level, lens.len())?;
    }
    let mut values = Vec::new();
    let mut labels = Vec::with_capacity(doc_series.len());
    for (i, s) in doc_series.into_iter().enumerate() {
        let coeffs = s.coeffs.unwrap_or_default();
        let got: Vec<usize> = coeffs.iter().map(Vec::len).collect();
        if got != lens {
            return Err(format!(
                "series {i} ('{}') has bands of lengths {got:?}, series 0 {lens:?}; every series must share one decomposition",
                s.column
            ));
        }
        values.extend(coeffs.into_iter().flatten());
        labels.push(Label {
            file: s.file,
            column: s.column,
            window: s.window,
            start: s.start,
            start_time: s.start_time,
        });
    }
    Ok(Coeffs {
        names: band_names(lens.len().saturating_sub(1)),
        meta: Some(Meta {
            wavelet: doc.wavelet,
            mode: doc.mode,
            level: doc.level,
            dtype: doc.dtype,
            engine: doc.engine,
        }),
        labels,
        lens,
        values: Values::from_f64(&values, doc.dtype),
    })
}

/// The band arrays of an `.npz`: `cA{n}`, `cD{n}` … `cD1` as decompose names them, else
/// `arr_0 … arr_k` in order (`np.savez(f, *coeffs)`).
fn from_npz(arrays: Vec<(String, npy::Array)>) -> Result<Coeffs, String> {
    let get = |name: &str| arrays.iter().find(|(n, _)| n == name).map(|(_, a)| a);
    let text0 = |name: &str| match get(name).map(|a| &a.data) {
        Some(npy::Owned::Text(v)) => v.first().cloned(),
        _ => None,
    };
    if let Some(kind) = text0("kind") {
        check_kind(&kind)?;
    }
    let level = match get("level").map(|a| &a.data) {
        Some(npy::Owned::I64(v)) => v.first().map(|&l| l as usize),
        _ => None,
    };
    let named: Vec<String> = match level {
        Some(l) if get(&format!("cA{l}")).is_some() => {
            let names = band_names(l);
            let found = arrays
                .iter()
                .filter(|(n, _)| {
                    (n.starts_with("cA") || n.starts_with("cD")) && n[2..].parse::<usize>().is_ok()
                })
                .count();
            check_level(l, found)?;
            if let Some(missing) = names.iter().find(|n| get(n).is_none()) {
                return Err(format!("records level {l} but has no band {missing}"));
            }
            names
        }
        _ => {
            let mut k = 0;
            while get(&format!("arr_{k}")).is_some() {
                k += 1;
            }
            // np.savez numbers its arrays without gaps: a gap means a band was removed.
            let beyond = arrays
                .iter()
                .filter_map(|(n, _)| n.strip_prefix("arr_")?.parse::<usize>().ok())
                .filter(|&i| i > k)
                .min();
            if let Some(i) = beyond {
                return Err(format!(
                    "has arr_0 … arr_{} and arr_{i} but no arr_{k}: a band is missing (np.savez(f, *pywt.wavedec(...)) numbers them without gaps)",
                    k.saturating_sub(1)
                ));
            }
            if k == 0 {
                let names: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
                return Err(format!(
                    "no coefficient arrays: expected cA<n>, cD<n> … cD1 (as decompose writes) or arr_0, arr_1, … (np.savez(f, *pywt.wavedec(...))); the archive has {}",
                    names.join(", ")
                ));
            }
            (0..k).map(|i| format!("arr_{i}")).collect()
        }
    };
    let bands: Vec<&npy::Array> = named.iter().filter_map(|n| get(n)).collect();
    let rows = |a: &npy::Array| match a.shape.len() {
        1 => Some(1),
        2 => Some(a.shape[0]),
        _ => None,
    };
    let series = rows(bands[0]).ok_or_else(|| {
        format!(
            "{} has shape {:?}; expected 1-D (one series) or 2-D (series x coefficients)",
            named[0], bands[0].shape
        )
    })?;
    let mut lens = Vec::with_capacity(bands.len());
    for (name, a) in named.iter().zip(&bands) {
        if rows(a) != Some(series) {
            return Err(format!(
                "{name} has shape {:?}; every band needs {series} rows, as {} has",
                a.shape, named[0]
            ));
        }
        lens.push(*a.shape.last().unwrap_or(&0));
    }
    let any_f64 = bands.iter().any(|a| !matches!(a.data, npy::Owned::F32(_)));
    let dtype = if any_f64 { DType::F64 } else { DType::F32 };
    let per_band = named
        .iter()
        .zip(&bands)
        .map(|(name, a)| match &a.data {
            npy::Owned::F32(v) => Ok(v.iter().map(|&x| x as f64).collect()),
            npy::Owned::F64(v) => Ok(v.clone()),
            npy::Owned::I64(v) => Ok(v.iter().map(|&x| x as f64).collect()),
            npy::Owned::Text(_) => Err(format!("{name} holds text, not numbers")),
        })
        .collect::<Result<Vec<Vec<f64>>, String>>()?;
    let texts = |name: &str| match get(name).map(|a| &a.data) {
        Some(npy::Owned::Text(v)) if v.len() == series => Some(v.clone()),
        _ => None,
    };
    let ints = |name: &str| match get(name).map(|a| &a.data) {
        Some(npy::Owned::I64(v)) if v.len() == series => Some(v.clone()),
        _ => None,
    };
    let (files, columns, times) = (texts("file"), texts("column"), texts("start_time"));
    let (windows, starts) = (ints("window"), ints("start"));
    let labels = (0..series)
        .map(|s| Label {
            file: files
                .as_ref()
                .map(|v| v[s].clone())
                .filter(|f| !f.is_empty()),
            column: columns
                .as_ref()
                .map_or_else(|| format!("series_{s}"), |v| v[s].clone()),
            window: windows.as_ref().and_then(|v| usize::try_from(v[s]).ok()),
            start: starts.as_ref().and_then(|v| usize::try_from(v[s]).ok()),
            start_time: times.as_ref().map(|v| v[s].clone()),
        })
        .collect();
    let meta = match (text0("wavelet"), text0("mode"), level) {
        (Some(wavelet), Some(mode), Some(level)) => Some(Meta {
            wavelet,
            mode: mode
                .parse()
                .map_err(|e: UnknownName| format!("mode: {e}"))?,
            level,
            dtype,
            engine: text0("engine").unwrap_or_default(),
        }),
        _ => None,
    };
    Ok(Coeffs {
        meta,
        labels,
        names: band_names(lens.len() - 1),
        values: series_major(&per_band, &lens, series, dtype),
        lens,
    })
}

fn read_parquet(path: &Path) -> Result<Coeffs, String> {
    use polars::prelude::*;
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut reader = ParquetReader::new(f);
    let kv = reader
        .get_metadata()
        .map_err(|e| e.to_string())?
        .key_value_metadata()
        .clone()
        .unwrap_or_default();
    let file_meta: Option<FileMeta> = kv
        .iter()
        .find(|k| k.key == META_KEY)
        .and_then(|k| k.value.as_deref())
        .map(serde_json::from_str::<FileMeta>)
        .transpose()
        .map_err(|e| format!("the '{META_KEY}' metadata is not readable: {e}"))?;
    if let Some(m) = &file_meta {
        check_kind(&m.kind)?;
    }
    let meta = file_meta.map(|m| m.meta);
    let df = reader.finish().map_err(|e| e.to_string())?;
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
        return Err(format!(
            "expected list columns {} (as decompose writes), found {}",
            band_names(meta.as_ref().map_or(3, |m| m.level)).join(", "),
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }
        ));
    }
    let series = df.height();
    let mut lens = Vec::new();
    let mut per_band: Vec<Vec<f64>> = Vec::new();
    for name in &want {
        let col = df.column(name).map_err(|e| e.to_string())?;
        let list = col
            .list()
            .map_err(|_| format!("column {name} is {}, not a list of numbers", col.dtype()))?;
        let mut flat = Vec::new();
        let mut len = None;
        for row in 0..list.len() {
            let s = list
                .get_as_series(row)
                .ok_or_else(|| format!("column {name}, row {row}: empty"))?;
            let s = s.cast(&DataType::Float64).map_err(|e| e.to_string())?;
            let v = s.f64().map_err(|e| e.to_string())?;
            if *len.get_or_insert(v.len()) != v.len() {
                return Err(format!(
                    "column {name}, row {row}: {} coefficients, row 0 has {}",
                    v.len(),
                    len.unwrap_or(0)
                ));
            }
            flat.extend(v.iter().map(|x| x.unwrap_or(f64::NAN)));
        }
        lens.push(len.unwrap_or(0));
        per_band.push(flat);
    }
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
    let labels = (0..series)
        .map(|s| self::Label {
            file: files.as_ref().and_then(|v| v[s].clone()),
            column: columns
                .as_ref()
                .and_then(|v| v[s].clone())
                .unwrap_or_else(|| format!("series_{s}")),
            window: windows.as_ref().and_then(|v| v[s]),
            start: starts.as_ref().and_then(|v| v[s]),
            start_time: times.as_ref().and_then(|v| v[s].clone()),
        })
        .collect();
    let dtype = meta.as_ref().map_or(DType::F64, |m| m.dtype);
    Ok(Coeffs {
        meta,
        labels,
        names: want,
        values: series_major(&per_band, &lens, series, dtype),
        lens,
    })
}

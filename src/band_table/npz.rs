//! `.npz`: one 2-D array per band with the series' labels and the settings as arrays,
//! written and read back (also `np.savez(f, *pywt.wavedec(x, …))`'s `arr_0 …`).

use super::{check_kind, check_level, series_major, BandTable, Coeffs, Label, Meta};
use crate::error::{Error, Result};
use crate::npy;
use std::io;
use wavebench_core::engine::plan::band_names;
use wavebench_core::engine::{DType, Values};
use wavebench_core::names::UnknownName;

/// Band `k` of every series, gathered into one series × len block.
fn gather<T: Copy>(v: &[T], per: usize, offset: usize, len: usize) -> Vec<T> {
    v.chunks_exact(per.max(1))
        .flat_map(|s| s[offset..offset + len].iter().copied())
        .collect()
}

pub(super) fn write(w: &mut dyn io::Write, t: &BandTable) -> io::Result<()> {
    let n = t.series();
    let per = t.per_series();
    let offsets = t.offsets();
    let bands: Vec<Values> = (0..t.lens.len())
        .map(|k| match &t.values {
            Values::F32(v) => Values::F32(gather(v, per, offsets[k], t.lens[k])),
            Values::F64(v) => Values::F64(gather(v, per, offsets[k], t.lens[k])),
        })
        .collect();
    let text = |f: fn(&Label) -> String| t.labels.iter().map(f).collect::<Vec<String>>();
    let files = text(|l| l.file.clone().unwrap_or_default());
    let columns = text(|l| l.column.clone());
    let times = text(|l| l.start_time.clone().unwrap_or_default());
    let ints = |f: fn(&Label) -> Option<usize>| {
        t.labels
            .iter()
            .map(|l| f(l).map_or(-1, |v| v as i64))
            .collect::<Vec<i64>>()
    };
    let (windows, starts) = (ints(|l| l.window), ints(|l| l.start));
    let meta = [
        ("wavelet", t.meta.wavelet.clone()),
        ("mode", t.meta.mode.name().to_string()),
        ("dtype", t.meta.dtype.name().to_string()),
        ("engine", t.meta.engine.clone()),
        ("kind", t.kind.key().to_string()),
    ];
    let level = [t.meta.level as i64];
    let mut arrays: Vec<(&str, Vec<usize>, npy::Data)> = Vec::new();
    for (k, b) in bands.iter().enumerate() {
        let shape = vec![n, t.lens[k]];
        arrays.push((
            &t.names[k],
            shape,
            match b {
                Values::F32(v) => npy::Data::F32(v),
                Values::F64(v) => npy::Data::F64(v),
            },
        ));
    }
    if t.has_files() {
        arrays.push(("file", vec![n], npy::Data::Text(&files)));
    }
    arrays.push(("column", vec![n], npy::Data::Text(&columns)));
    if t.has_windows() {
        arrays.push(("window", vec![n], npy::Data::I64(&windows)));
        arrays.push(("start", vec![n], npy::Data::I64(&starts)));
        arrays.push(("start_time", vec![n], npy::Data::Text(&times)));
    }
    let meta_text: Vec<[String; 1]> = meta.iter().map(|(_, v)| [v.clone()]).collect();
    for ((name, _), v) in meta.iter().zip(&meta_text) {
        arrays.push((name, vec![], npy::Data::Text(v)));
    }
    arrays.push(("level", vec![], npy::Data::I64(&level)));
    npy::write_npz(w, &arrays)
}

/// The band arrays of an `.npz`: `cA{n}`, `cD{n}` … `cD1` as decompose names them, else
/// `arr_0 … arr_k` in order (`np.savez(f, *coeffs)`).
pub(super) fn read(arrays: Vec<(String, npy::Array)>) -> Result<Coeffs> {
    // By name, so an archive of many members reads in linear time (the first of a name
    // given twice, as a scan in order would find).
    let mut by_name: Members = std::collections::HashMap::with_capacity(arrays.len());
    for (n, a) in &arrays {
        by_name.entry(n.as_str()).or_insert(a);
    }
    let get = |name: &str| by_name.get(name).copied();
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
    let named = band_members(&arrays, &by_name, level)?;
    let bands: Vec<&npy::Array> = named.iter().filter_map(|n| get(n)).collect();
    let rows = |a: &npy::Array| match a.shape.len() {
        1 => Some(1),
        2 => Some(a.shape[0]),
        _ => None,
    };
    let series = rows(bands[0]).ok_or_else(|| {
        Error::input(format!(
            "{} has shape {:?}; expected 1-D (one series) or 2-D (series x coefficients)",
            named[0], bands[0].shape
        ))
    })?;
    let mut lens = Vec::with_capacity(bands.len());
    for (name, a) in named.iter().zip(&bands) {
        if rows(a) != Some(series) {
            return Err(Error::input(format!(
                "{name} has shape {:?}; every band needs {series} rows, as {} has",
                a.shape, named[0]
            )));
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
            npy::Owned::Text(_) => Err(Error::input(format!("{name} holds text, not numbers"))),
        })
        .collect::<Result<Vec<Vec<f64>>>>()?;
    let labels = labels_of(&by_name, series);
    let meta = match (text0("wavelet"), text0("mode"), level) {
        (Some(wavelet), Some(mode), Some(level)) => Some(Meta {
            wavelet,
            mode: mode
                .parse()
                .map_err(|e: UnknownName| Error::input(format!("mode: {e}")))?,
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

/// An archive's members by name (the first of a name given twice, as a scan in order
/// would find).
type Members<'a> = std::collections::HashMap<&'a str, &'a npy::Array>;

/// The members that hold the bands, in order: `cA<n>`, `cD<n>` … `cD1` where the archive
/// records its level (as decompose writes), else `arr_0`, `arr_1`, … (as
/// `np.savez(f, *pywt.wavedec(...))` numbers them, without gaps).
fn band_members(
    arrays: &[(String, npy::Array)],
    by_name: &Members,
    level: Option<usize>,
) -> Result<Vec<String>> {
    Ok(match level {
        Some(l) if by_name.contains_key(format!("cA{l}").as_str()) => {
            let names = band_names(l);
            let found = arrays
                .iter()
                .filter(|(n, _)| {
                    (n.starts_with("cA") || n.starts_with("cD")) && n[2..].parse::<usize>().is_ok()
                })
                .count();
            check_level(l, found)?;
            if let Some(missing) = names.iter().find(|n| !by_name.contains_key(n.as_str())) {
                return Err(Error::input(format!(
                    "records level {l} but has no band {missing}"
                )));
            }
            names
        }
        _ => {
            let mut k = 0;
            while by_name.contains_key(format!("arr_{k}").as_str()) {
                k += 1;
            }
            // np.savez numbers its arrays without gaps: a gap means a band was removed.
            let beyond = arrays
                .iter()
                .filter_map(|(n, _)| n.strip_prefix("arr_")?.parse::<usize>().ok())
                .filter(|&i| i > k)
                .min();
            if let Some(i) = beyond {
                return Err(Error::input(format!(
                    "has arr_0 … arr_{} and arr_{i} but no arr_{k}: a band is missing (np.savez(f, *pywt.wavedec(...)) numbers them without gaps)",
                    k.saturating_sub(1)
                )));
            }
            if k == 0 {
                let names: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
                return Err(Error::input(format!(
                    "no coefficient arrays: expected cA<n>, cD<n> … cD1 (as decompose writes) or arr_0, arr_1, … (np.savez(f, *pywt.wavedec(...))); the archive has {}",
                    names.join(", ")
                )));
            }
            (0..k).map(|i| format!("arr_{i}")).collect()
        }
    })
}

/// Each of `series` series' label from the archive's `file`, `column`, `window`, `start`
/// and `start_time` members, where they hold one value a series.
fn labels_of(by_name: &Members, series: usize) -> Vec<Label> {
    let texts = |name: &str| match by_name.get(name).copied().map(|a| &a.data) {
        Some(npy::Owned::Text(v)) if v.len() == series => Some(v.clone()),
        _ => None,
    };
    let ints = |name: &str| match by_name.get(name).copied().map(|a| &a.data) {
        Some(npy::Owned::I64(v)) if v.len() == series => Some(v.clone()),
        _ => None,
    };
    let (files, columns, times) = (texts("file"), texts("column"), texts("start_time"));
    let (windows, starts) = (ints("window"), ints("start"));
    (0..series)
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
        .collect()
}

//! JSON: the document of docs/cli.md#decompose-mra-waverec, written and read back.

use super::{check_kind, check_level, BandTable, Coeffs, Kind, Label, Meta};
use crate::error::{Error, Result};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use std::io;
use std::path::Path;
use wavebench_core::engine::plan::band_names;
use wavebench_core::engine::{DType, Values};
use wavebench_core::wavelet::Mode;

pub(super) struct Doc<'a>(pub(super) &'a BandTable);

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("wavelet", &t.meta.wavelet)?;
        m.serialize_entry("mode", t.meta.mode.name())?;
        m.serialize_entry("level", &t.meta.level)?;
        m.serialize_entry("dtype", t.meta.dtype.name())?;
        m.serialize_entry("engine", &t.meta.engine)?;
        if !t.periods.is_empty() {
            m.serialize_entry("bands", &super::band_ranges(t))?;
        }
        m.serialize_entry("series", &JsonSeries(t))?;
        m.end()
    }
}

struct JsonSeries<'a>(&'a BandTable);

impl Serialize for JsonSeries<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let offsets = t.offsets();
        let mut seq = s.serialize_seq(Some(t.series()))?;
        for i in 0..t.series() {
            seq.serialize_element(&JsonOne(t, i, &offsets))?;
        }
        seq.end()
    }
}

/// Series `.1` of the table, with the band offsets within a series.
struct JsonOne<'a>(&'a BandTable, usize, &'a [usize]);

impl Serialize for JsonOne<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (t, i, offsets) = (self.0, self.1, self.2);
        let l = &t.labels[i];
        let mut m = s.serialize_map(None)?;
        if let Some(f) = &l.file {
            m.serialize_entry("file", f)?;
        }
        m.serialize_entry("column", &l.column)?;
        if let (Some(w), Some(st)) = (l.window, l.start) {
            m.serialize_entry("window", &w)?;
            m.serialize_entry("start", &st)?;
            if let Some(time) = &l.start_time {
                m.serialize_entry("start_time", time)?;
            }
        }
        let per = t.per_series();
        let range = |k: usize| {
            let at = i * per + offsets[k];
            at..at + t.lens[k]
        };
        // f32 values print as f32 (shortest round-trip), not widened.
        match (&t.values, t.kind) {
            (Values::F32(v), Kind::Signal) => m.serialize_entry("signal", &v[range(0)])?,
            (Values::F64(v), Kind::Signal) => m.serialize_entry("signal", &v[range(0)])?,
            (Values::F32(v), k) => {
                let bands: Vec<&[f32]> = (0..t.lens.len()).map(|b| &v[range(b)]).collect();
                m.serialize_entry(k.key(), &bands)?
            }
            (Values::F64(v), k) => {
                let bands: Vec<&[f64]> = (0..t.lens.len()).map(|b| &v[range(b)]).collect();
                m.serialize_entry(k.key(), &bands)?
            }
        }
        m.end()
    }
}

/// A decompose document as `read` takes it.
#[derive(Deserialize)]
struct File {
    wavelet: String,
    mode: Mode,
    level: usize,
    dtype: DType,
    #[serde(default)]
    engine: String,
    series: Vec<One>,
}

/// One series of a decompose document: its place, and its coefficients (or what another
/// kind of table holds instead).
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

/// Each series holds coefficients, or the error names the kind of table it is from (a
/// reconstruction's components or signal) or the series without them.
fn check_series_hold_coeffs(series: &[One]) -> Result<()> {
    for (i, s) in series.iter().enumerate() {
        match (&s.coeffs, &s.components, &s.signal) {
            (Some(_), _, _) => {}
            (None, Some(_), _) => check_kind("components")?,
            (None, None, Some(_)) => check_kind("signal")?,
            (None, None, None) => {
                return Err(Error::input(format!(
                    "series {i} has no \"coeffs\" (bands of coefficients)"
                )))
            }
        }
    }
    Ok(())
}

/// The coefficients of a decompose document (`decompose -o FILE.json`).
pub(super) fn read(path: &Path) -> Result<Coeffs> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, "read", e))?;
    let doc: File = serde_json::from_reader(io::BufReader::new(f))
        .map_err(|e| Error::input(format!("not a decompose document: {e}")))?;
    check_series_hold_coeffs(&doc.series)?;
    let doc_series = doc.series;
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
            return Err(Error::input(format!(
                "series {i} ('{}') has bands of lengths {got:?}, series 0 {lens:?}; every series must share one decomposition",
                s.column
            )));
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

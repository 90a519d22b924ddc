//! Series × bands of numbers as files: what `decompose` (coefficients), `mra` (per-band
//! components) and `waverec` (signals) write, and what `waverec` reads back.
//!
//! Formats, by the output's extension:
//! - `.json` (and `-`, pipes, devices): the document of docs/cli.md#decompose-mra-waverec, `{"wavelet","mode","level",
//!   "dtype","engine","series":[{"column","window","start","start_time","coeffs":[[…],…]}]}`
//!   (`components` for mra, a flat `signal` for waverec);
//! - `.parquet`: one row per series, a list column per band (`cA3`, `cD3`, …), and the
//!   run's settings as the file's `wavebench` key-value metadata;
//! - `.npz`: one 2-D array per band (series × coefficients), `column`, `window`, `start`,
//!   `start_time` and the settings as 0-d arrays: `np.load(f)["cD1"]`;
//! - `.npy`: one 2-D array, each row the series' bands concatenated as
//!   `pywt.coeffs_to_array` does; the band slices are reported on stderr.

mod read;

pub use read::{read_coeffs, Coeffs};

use crate::export;
use crate::npy;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use std::io;
use std::path::Path;
use wavebench_core::engine::{DType, Values};
use wavebench_core::wavelet::Mode;

/// What the table's bands are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `[cA_n, cD_n, …, cD_1]` wavelet coefficients.
    Coeffs,
    /// Per-band reconstructions (MRA), each as long as the series.
    Components,
    /// One reconstructed signal per series.
    Signal,
}

impl Kind {
    fn key(self) -> &'static str {
        match self {
            Kind::Coeffs => "coeffs",
            Kind::Components => "components",
            Kind::Signal => "signal",
        }
    }
}

/// The settings a table was made with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub wavelet: String,
    pub mode: Mode,
    pub level: usize,
    pub dtype: DType,
    pub engine: String,
}

/// Where a series comes from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Label {
    pub file: Option<String>,
    pub column: String,
    /// Window number, row and time of its first sample (absent for whole columns).
    pub window: Option<usize>,
    pub start: Option<usize>,
    pub start_time: Option<String>,
}

/// Series × bands: every series has the same bands, `lens[k]` numbers in band `k`.
#[derive(Debug, Clone)]
pub struct BandTable {
    pub kind: Kind,
    pub meta: Meta,
    pub labels: Vec<Label>,
    pub names: Vec<String>,
    pub lens: Vec<usize>,
    /// Series-major: series `s`'s bands, concatenated, then series `s + 1`'s.
    pub values: Values,
}

impl BandTable {
    pub fn per_series(&self) -> usize {
        self.lens.iter().sum()
    }
    pub fn series(&self) -> usize {
        self.labels.len()
    }
    fn offsets(&self) -> Vec<usize> {
        self.lens
            .iter()
            .scan(0, |o, &l| {
                let at = *o;
                *o += l;
                Some(at)
            })
            .collect()
    }
    fn has_windows(&self) -> bool {
        self.labels.iter().any(|l| l.window.is_some())
    }
    fn has_files(&self) -> bool {
        self.labels.iter().any(|l| l.file.is_some())
    }
}

/// The formats, chosen by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Parquet,
    Npy,
    Npz,
}

impl Format {
    pub fn for_path(path: &Path) -> Result<Self, String> {
        if path.as_os_str() == "-" || export::is_stream(path) {
            return Ok(Format::Json);
        }
        match extension(path).as_deref() {
            Some("json") => Ok(Format::Json),
            Some("parquet") => Ok(Format::Parquet),
            Some("npy") => Ok(Format::Npy),
            Some("npz") => Ok(Format::Npz),
            _ => Err(format!(
                "-o {}: expected a .json, .parquet, .npz or .npy file (or - for JSON on stdout)",
                path.display()
            )),
        }
    }
}

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// Write `table` to `path` in `format`. Returns a line for the user when the format loses
/// something they need to know (the band slices of a `.npy`).
pub fn write(path: &Path, format: Format, table: &BandTable) -> Result<Option<String>, String> {
    match format {
        Format::Json => export::write_atomic(path, |w| {
            serde_json::to_writer(&mut *w, &JsonDoc(table)).map_err(io::Error::from)?;
            writeln!(w)
        })
        .map(|_| None),
        Format::Npz => export::write_atomic(path, |w| write_npz(w, table)).map(|_| None),
        Format::Npy => {
            let shape = [table.series(), table.per_series()];
            export::write_atomic(path, |w| match &table.values {
                Values::F32(v) => npy::write(w, &shape, &npy::Data::F32(v)),
                Values::F64(v) => npy::write(w, &shape, &npy::Data::F64(v)),
            })?;
            if table.names.len() < 2 {
                return Ok(None);
            }
            let slices: Vec<String> = table
                .names
                .iter()
                .zip(table.offsets().iter().zip(&table.lens))
                .map(|(n, (o, l))| format!("{n} [:, {o}:{}]", o + l))
                .collect();
            Ok(Some(format!(
                "{}: {} series x {} values, bands {}; .npz keeps the bands and series labels apart",
                path.display(),
                shape[0],
                shape[1],
                slices.join(", ")
            )))
        }
        Format::Parquet => {
            let (mut df, meta) = frame(table).map_err(|e| format!("{}: {e}", path.display()))?;
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
            .map(|_| None)
        }
    }
}

/// The Parquet key holding the settings (and the kind of bands) as JSON.
const META_KEY: &str = "wavebench";

#[derive(Serialize, Deserialize)]
struct FileMeta {
    #[serde(flatten)]
    meta: Meta,
    kind: String,
}

struct JsonDoc<'a>(&'a BandTable);

impl Serialize for JsonDoc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("wavelet", &t.meta.wavelet)?;
        m.serialize_entry("mode", t.meta.mode.name())?;
        m.serialize_entry("level", &t.meta.level)?;
        m.serialize_entry("dtype", t.meta.dtype.name())?;
        m.serialize_entry("engine", &t.meta.engine)?;
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

/// Per-band blocks (each series × its length, series-major) as one table's values: series
/// `s`'s bands concatenated, then series `s + 1`'s, in `dtype`.
fn series_major(bands: &[Vec<f64>], lens: &[usize], series: usize, dtype: DType) -> Values {
    let per: usize = lens.iter().sum();
    let mut values = vec![0f64; series * per];
    let mut off = 0;
    for (band, &len) in bands.iter().zip(lens) {
        for s in 0..series {
            values[s * per + off..s * per + off + len]
                .copy_from_slice(&band[s * len..(s + 1) * len]);
        }
        off += len;
    }
    Values::from_f64(&values, dtype)
}

/// Band `k` of every series, gathered into one series × len block.
fn gather<T: Copy>(v: &[T], per: usize, offset: usize, len: usize) -> Vec<T> {
    v.chunks_exact(per.max(1))
        .flat_map(|s| s[offset..offset + len].iter().copied())
        .collect()
}

fn write_npz(w: &mut dyn io::Write, t: &BandTable) -> io::Result<()> {
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
            Values::F32(v) => {
                let mut b = ListPrimitiveChunkedBuilder::<Float32Type>::new(
                    name.as_str().into(),
                    n,
                    n * len,
                    DataType::Float32,
                );
                for s in v.chunks_exact(per.max(1)) {
                    b.append_slice(&s[off..off + len]);
                }
                b.finish().into_series()
            }
            Values::F64(v) => {
                let mut b = ListPrimitiveChunkedBuilder::<Float64Type>::new(
                    name.as_str().into(),
                    n,
                    n * len,
                    DataType::Float64,
                );
                for s in v.chunks_exact(per.max(1)) {
                    b.append_slice(&s[off..off + len]);
                }
                b.finish().into_series()
            }
        };
        cols.push(list.into());
    }
    let meta = serde_json::to_string(&FileMeta {
        meta: t.meta.clone(),
        kind: t.kind.key().into(),
    })
    .map_err(|e| PolarsError::ComputeError(e.to_string().into()))?;
    Ok((DataFrame::new(n, cols)?, meta))
}

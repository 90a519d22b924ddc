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

mod json;
mod npz;
mod parquet;

use crate::error::{Error, Result};
use crate::export;
use crate::npy;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::Path;
use wavebench_core::engine::plan::band_names;
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
    pub(super) fn key(self) -> &'static str {
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
    /// Each band's periods as text ("8–16 h", in samples without a time step), in the
    /// order of `names`; empty for a table that is not a decomposition's bands.
    pub periods: Vec<String>,
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
    pub(super) fn offsets(&self) -> Vec<usize> {
        self.lens
            .iter()
            .scan(0, |o, &l| {
                let at = *o;
                *o += l;
                Some(at)
            })
            .collect()
    }
    pub(super) fn has_windows(&self) -> bool {
        self.labels.iter().any(|l| l.window.is_some())
    }
    pub(super) fn has_files(&self) -> bool {
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
    pub fn for_path(path: &Path) -> Result<Self> {
        if path.as_os_str() == "-" || export::is_stream(path) {
            return Ok(Format::Json);
        }
        match extension(path).as_deref() {
            Some("json") => Ok(Format::Json),
            Some("parquet") => Ok(Format::Parquet),
            Some("npy") => Ok(Format::Npy),
            Some("npz") => Ok(Format::Npz),
            _ => Err(Error::input(format!(
                "-o {}: expected a .json, .parquet, .npz or .npy file (or - for JSON on stdout)",
                path.display()
            ))),
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
pub fn write(path: &Path, format: Format, table: &BandTable) -> Result<Option<String>> {
    match format {
        Format::Json => export::write_atomic(path, |w| {
            serde_json::to_writer(&mut *w, &json::Doc(table)).map_err(io::Error::from)?;
            writeln!(w)
        })
        .map(|_| None),
        Format::Npz => export::write_atomic(path, |w| npz::write(w, table)).map(|_| None),
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
        Format::Parquet => parquet::write(path, table).map(|_| None),
    }
}

/// Per-band blocks (each series × its length, series-major) as one table's values: series
/// `s`'s bands concatenated, then series `s + 1`'s, in `dtype`.
pub(super) fn series_major(
    bands: &[Vec<f64>],
    lens: &[usize],
    series: usize,
    dtype: DType,
) -> Values {
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
pub(super) fn check_kind(kind: &str) -> Result<()> {
    match kind {
        "coeffs" => Ok(()),
        "components" => Err(Error::input(
            "holds per-band components (what `wavebench mra` writes), not coefficients; waverec inverts what `wavebench decompose` writes (the components already sum to the signal)",
        )),
        "signal" => Err(Error::input(
            "holds signals (what `wavebench waverec` writes), not coefficients; waverec inverts what `wavebench decompose` writes",
        )),
        other => Err(Error::input(format!(
            "holds bands of kind '{other}', not coefficients (what `wavebench decompose` writes)"
        ))),
    }
}

/// The bands must be the recorded level's n+1: a band deleted from the file would
/// otherwise be inverted silently into a signal of the wrong length.
pub(super) fn check_level(recorded: usize, bands: usize) -> Result<()> {
    if bands == recorded + 1 {
        return Ok(());
    }
    Err(Error::input(format!(
        "records level {recorded}, which has {} bands ({}), but holds {bands}; was a band removed or added?",
        recorded + 1,
        band_names(recorded).join(", ")
    )))
}

/// Each band's name, frequency range (cycles per sample) and periods, for the files'
/// metadata (docs/cli.md); none for a table that is not a decomposition's bands.
pub(super) fn band_ranges(t: &BandTable) -> Vec<BandRange> {
    if t.periods.len() != t.names.len() {
        return Vec::new();
    }
    let freq = wavebench_core::engine::plan::band_frequencies(t.names.len().saturating_sub(1));
    t.names
        .iter()
        .zip(&t.periods)
        .zip(freq)
        .map(|((name, periods), f)| BandRange {
            name: name.clone(),
            cycles_per_sample: f,
            periods: periods.clone(),
        })
        .collect()
}

/// One band's frequency range, as the files' metadata writes it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct BandRange {
    name: String,
    cycles_per_sample: [f64; 2],
    periods: String,
}

/// Read `[cA_n, cD_n, …, cD_1]` coefficients of one or more series from a file `decompose`
/// wrote (`.json`, `.npz`, `.parquet`) or from an `.npz` of arrays `arr_0, arr_1, …` (1-D:
/// one series; 2-D: series × coefficients). Errors name the file and what is wrong.
pub fn read_coeffs(path: &Path) -> Result<Coeffs> {
    let p = path.display();
    let place = p.to_string();
    let fail = |e: Error| e.within(&place);
    match extension(path).as_deref() {
        Some("json") => json::read(path).map_err(fail),
        Some("npz") => {
            let f = std::fs::File::open(path).map_err(|e| Error::io(path, "read", e))?;
            npz::read(npy::read_npz(f).map_err(fail)?).map_err(fail)
        }
        Some("parquet") => parquet::read(path).map_err(fail),
        _ => Err(Error::input(format!(
            "{p}: expected coefficients as .json, .npz or .parquet (what decompose writes)"
        ))),
    }
}

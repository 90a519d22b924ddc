//! The feature and prompt records, as files: JSON lines, CSV and Parquet for features
//! (chosen by the output's extension), JSON lines for prompts; each written through
//! [`write_atomic`].

use super::{is_stream, write_atomic};
use crate::error::{Error, Result};
use serde::Serialize;
use std::io::{self, Write};
use std::path::Path;
use wavebench_core::features::Features;
use wavebench_core::features::Unit;

/// The feature table formats, chosen by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureFormat {
    Parquet,
    Csv,
    JsonLines,
}

impl FeatureFormat {
    pub fn for_path(path: &Path) -> Result<Self> {
        if path.as_os_str() == "-" || is_stream(path) {
            return Ok(FeatureFormat::JsonLines);
        }
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("parquet") => Ok(FeatureFormat::Parquet),
            Some("csv") => Ok(FeatureFormat::Csv),
            Some("jsonl") | Some("ndjson") => Ok(FeatureFormat::JsonLines),
            _ => Err(Error::input(format!(
                "-o {}: expected a .parquet, .csv or .jsonl file (or - for JSON lines on stdout)",
                path.display()
            ))),
        }
    }
}

/// Where a unit comes from, as every record carries it.
#[derive(Serialize)]
struct Place<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    window: usize,
    start: usize,
    start_time: &'a str,
    column: Option<&'a str>,
}

impl<'a> Place<'a> {
    fn of(u: &'a Unit) -> Self {
        Place {
            file: u.file.as_deref(),
            window: u.window,
            start: u.start,
            start_time: &u.start_time,
            column: u.column.as_deref(),
        }
    }
}

/// One feature row: the unit's place, then every feature.
#[derive(Serialize)]
struct FeatureRow<'a> {
    #[serde(flatten)]
    place: Place<'a>,
    #[serde(flatten)]
    features: &'a Features,
}

fn row(u: &Unit) -> FeatureRow<'_> {
    FeatureRow {
        place: Place::of(u),
        features: &u.features,
    }
}

/// `header`: whether a CSV starts with its header line (not for shards after the first,
/// so that the shards concatenate to the whole run's file).
pub fn write_features(
    path: &Path,
    format: FeatureFormat,
    units: &[Unit],
    header: bool,
) -> Result<()> {
    match format {
        FeatureFormat::JsonLines => write_atomic(path, |w| {
            for u in units {
                serde_json::to_writer(&mut *w, &row(u)).map_err(io::Error::from)?;
                w.write_all(b"\n")?;
            }
            Ok(())
        }),
        FeatureFormat::Csv => write_atomic(path, |w| write_csv(w, units, header)),
        FeatureFormat::Parquet => {
            let mut df = feature_frame(units)
                .map_err(|e| Error::input(format!("{}: {e}", path.display())))?;
            write_atomic(path, |w| {
                polars::prelude::ParquetWriter::new(w)
                    .finish(&mut df)
                    .map(|_| ())
                    .map_err(io::Error::other)
            })
        }
    }
}

/// Feature columns in the order of docs/cli.md#features (`file` first, for data sets).
const FEATURE_KEYS: [&str; 28] = [
    "file",
    "window",
    "start",
    "start_time",
    "column",
    "degenerate",
    "energy_ratio",
    "energy_entropy",
    "dominant_band",
    "dominant_energy",
    "freq_pattern",
    "trends",
    "trends_sign",
    "trend_consistency",
    "trend_desc",
    "band_stds",
    "snr_db",
    "volatility_ratio",
    "stability_desc",
    "signal_quality",
    "difficulty_score",
    "difficulty",
    "min",
    "max",
    "median",
    "trend",
    "lags",
    "lags_clean",
];

/// CSV: lists spread over `name_0, name_1, …`; text quoted by the csv crate's rules.
fn write_csv(w: &mut dyn Write, units: &[Unit], with_header: bool) -> io::Result<()> {
    let values: Vec<serde_json::Value> = units
        .iter()
        .map(|u| serde_json::to_value(row(u)))
        .collect::<Result<_, _>>()?;
    let Some(first) = values.first() else {
        return Ok(());
    };
    let keys: Vec<&str> = FEATURE_KEYS
        .into_iter()
        .filter(|k| first.get(k).is_some())
        .collect();
    // A list's columns: as many as its longest, and always the top lags' count, so that
    // shards agree on the header; shorter lists leave their last cells empty (a constant
    // unit has no lags).
    let widths: Vec<Option<usize>> = keys
        .iter()
        .map(|&k| {
            first[k].as_array().map(|_| {
                let longest = values
                    .iter()
                    .map(|v| v[k].as_array().map_or(0, Vec::len))
                    .max()
                    .unwrap_or(0);
                match k {
                    "lags" | "lags_clean" => longest.max(wavebench_core::stats::TOP_LAGS),
                    _ => longest,
                }
            })
        })
        .collect();
    let mut out = csv::Writer::from_writer(w);
    let mut header = Vec::new();
    for (&k, width) in keys.iter().zip(&widths) {
        match width {
            Some(n) => header.extend((0..*n).map(|i| format!("{k}_{i}"))),
            None => header.push(k.to_string()),
        }
    }
    if with_header {
        out.write_record(&header)?;
    }
    for v in &values {
        let mut cells = Vec::with_capacity(header.len());
        for (&k, width) in keys.iter().zip(&widths) {
            match (&v[k], width) {
                (serde_json::Value::Array(items), Some(n)) => {
                    cells.extend(items.iter().map(cell));
                    cells.resize(cells.len() + n - items.len(), String::new());
                }
                (other, _) => cells.push(cell(other)),
            }
        }
        out.write_record(&cells)?;
    }
    out.flush()
}

fn cell(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The feature table as a polars frame (lists stay lists, for Parquet).
fn feature_frame(units: &[Unit]) -> polars::prelude::PolarsResult<polars::prelude::DataFrame> {
    use polars::prelude::*;
    let f =
        |get: fn(&Features) -> f64| units.iter().map(|u| get(&u.features)).collect::<Vec<f64>>();
    let s = |get: fn(&Features) -> &str| {
        units
            .iter()
            .map(|u| get(&u.features).to_string())
            .collect::<Vec<String>>()
    };
    let list_i = |get: fn(&Features) -> Vec<i64>| {
        units
            .iter()
            .map(|u| Series::new("".into(), get(&u.features)))
            .collect::<Vec<_>>()
    };
    let list_f = |get: fn(&Features) -> &[f64]| {
        units
            .iter()
            .map(|u| Series::new("".into(), get(&u.features)))
            .collect::<Vec<_>>()
    };
    let mut cols: Vec<Column> = Vec::new();
    if units.iter().any(|u| u.file.is_some()) {
        cols.push(
            Series::new(
                "file".into(),
                units
                    .iter()
                    .map(|u| u.file.as_deref().map(str::to_string))
                    .collect::<Vec<Option<String>>>(),
            )
            .into(),
        );
    }
    cols.extend([
        Series::new(
            "window".into(),
            units.iter().map(|u| u.window as u64).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "start".into(),
            units.iter().map(|u| u.start as u64).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "start_time".into(),
            units.iter().map(|u| &*u.start_time).collect::<Vec<&str>>(),
        )
        .into(),
        Series::new(
            "column".into(),
            units
                .iter()
                .map(|u| u.column.as_deref())
                .collect::<Vec<Option<&str>>>(),
        )
        .into(),
        Series::new(
            "degenerate".into(),
            units
                .iter()
                .map(|u| u.features.degenerate.map(|d| d.name()))
                .collect::<Vec<Option<&str>>>(),
        )
        .into(),
        Series::new("energy_ratio".into(), list_f(|x| &x.energy_ratio)).into(),
        Series::new("energy_entropy".into(), f(|x| x.energy_entropy)).into(),
        Series::new(
            "dominant_band".into(),
            units
                .iter()
                .map(|u| u.features.dominant_band as u64)
                .collect::<Vec<_>>(),
        )
        .into(),
        Series::new("dominant_energy".into(), f(|x| x.dominant_energy)).into(),
        Series::new("freq_pattern".into(), s(|x| &x.freq_pattern)).into(),
        Series::new("trends".into(), list_f(|x| &x.trends)).into(),
        Series::new(
            "trends_sign".into(),
            list_i(|x| x.trends_sign.iter().map(|&v| v as i64).collect()),
        )
        .into(),
        Series::new("trend_consistency".into(), f(|x| x.trend_consistency)).into(),
        Series::new("trend_desc".into(), s(|x| &x.trend_desc)).into(),
        Series::new("band_stds".into(), list_f(|x| &x.band_stds)).into(),
        Series::new("snr_db".into(), f(|x| x.snr_db)).into(),
        Series::new("volatility_ratio".into(), f(|x| x.volatility_ratio)).into(),
        Series::new("stability_desc".into(), s(|x| &x.stability_desc)).into(),
        Series::new("signal_quality".into(), s(|x| &x.signal_quality)).into(),
        Series::new("difficulty_score".into(), f(|x| x.difficulty_score)).into(),
        Series::new("difficulty".into(), s(|x| &x.difficulty)).into(),
        Series::new("min".into(), f(|x| x.min)).into(),
        Series::new("max".into(), f(|x| x.max)).into(),
        Series::new("median".into(), f(|x| x.median)).into(),
        Series::new("trend".into(), f(|x| x.trend)).into(),
        Series::new(
            "lags".into(),
            list_i(|x| x.lags.iter().map(|&v| v as i64).collect()),
        )
        .into(),
        Series::new(
            "lags_clean".into(),
            list_i(|x| x.lags_clean.iter().map(|&v| v as i64).collect()),
        )
        .into(),
    ]);
    DataFrame::new(units.len(), cols)
}

/// `{["file",]"window","start","start_time","column","prompt","features":{…}}` a line.
pub fn write_prompts(path: &Path, units: &[Unit], prompts: &[String]) -> Result<()> {
    #[derive(Serialize)]
    struct Line<'a> {
        #[serde(flatten)]
        place: Place<'a>,
        prompt: &'a str,
        features: &'a Features,
    }
    use rayon::prelude::*;
    if units.len() != prompts.len() {
        return Err(Error::input(format!(
            "internal: {} prompts for {} units",
            prompts.len(),
            units.len()
        )));
    }
    // Serialised in parallel, a block of lines at a time into a few large buffers, on a
    // second thread, while this one writes the block before: the write (a copy into the
    // page cache) overlaps the next block's formatting.
    const BLOCK: usize = 8192;
    const PIECE: usize = 256;
    write_atomic(path, |w| {
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<Vec<u8>>>>(1);
            scope.spawn(move || {
                for (us, ps) in units.chunks(BLOCK).zip(prompts.chunks(BLOCK)) {
                    let block = us
                        .par_chunks(PIECE)
                        .zip(ps.par_chunks(PIECE))
                        .map(|(us, ps)| {
                            // A line with its features is ~1.1-1.5 KB.
                            let mut buf = Vec::with_capacity(us.len() * 1536);
                            for (u, p) in us.iter().zip(ps) {
                                let line = Line {
                                    place: Place::of(u),
                                    prompt: p,
                                    features: &u.features,
                                };
                                serde_json::to_writer(&mut buf, &line).map_err(io::Error::from)?;
                                buf.push(b'\n');
                            }
                            Ok(buf)
                        })
                        .collect::<io::Result<Vec<Vec<u8>>>>();
                    let failed = block.is_err();
                    // The writer has stopped (a write failed): nothing more to do.
                    if tx.send(block).is_err() || failed {
                        return;
                    }
                }
            });
            for block in rx {
                for buf in block? {
                    w.write_all(&buf)?;
                }
            }
            Ok(())
        })
    })
}

//! A record's place, the feature table's row, and the table's formats written a chunk of
//! units at a time: CSV (lists spread over numbered columns) and Parquet (lists stay
//! lists, rows gathered into row groups).

use serde::Serialize;
use std::io::{self, Write};
use wavebench_core::features::{Features, Unit};

/// Where a unit comes from, as every record carries it.
#[derive(Serialize)]
pub(super) struct Place<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    window: usize,
    start: usize,
    start_time: &'a str,
    column: Option<&'a str>,
}

impl<'a> Place<'a> {
    pub(super) fn of(u: &'a Unit) -> Self {
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
pub(super) struct FeatureRow<'a> {
    #[serde(flatten)]
    place: Place<'a>,
    #[serde(flatten)]
    features: &'a Features,
}

pub(super) fn row(u: &Unit) -> FeatureRow<'_> {
    FeatureRow {
        place: Place::of(u),
        features: &u.features,
    }
}

/// Rows of a Parquet file go out in row groups of this many (the last one fewer): small
/// enough to hold while streaming, large enough for readers.
const ROW_GROUP: usize = 512 * 512;

/// A Parquet feature table being written: frames are gathered into whole row groups.
pub(super) struct Parquet<'w> {
    to: Option<&'w mut dyn Write>,
    writer: Option<polars::io::parquet::write::BatchedWriter<&'w mut dyn Write>>,
    pending: Option<polars::prelude::DataFrame>,
}

impl<'w> Parquet<'w> {
    pub(super) fn new(to: &'w mut dyn Write) -> Self {
        Parquet {
            to: Some(to),
            writer: None,
            pending: None,
        }
    }

    pub(super) fn write(&mut self, units: &[Unit]) -> polars::prelude::PolarsResult<()> {
        let mut rest = units;
        while !rest.is_empty() {
            let room = ROW_GROUP - self.pending.as_ref().map_or(0, |p| p.height());
            let (now, later) = rest.split_at(room.min(rest.len()));
            rest = later;
            let frame = feature_frame(now)?;
            match &mut self.pending {
                Some(p) => {
                    p.vstack_mut_owned(frame)?;
                }
                None => self.pending = Some(frame),
            }
            if self
                .pending
                .as_ref()
                .is_some_and(|p| p.height() == ROW_GROUP)
            {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Write the gathered rows as one row group.
    fn flush(&mut self) -> polars::prelude::PolarsResult<()> {
        let Some(mut frame) = self.pending.take() else {
            return Ok(());
        };
        frame.rechunk_mut_par();
        if self.writer.is_none() {
            if let Some(to) = self.to.take() {
                self.writer =
                    Some(polars::prelude::ParquetWriter::new(to).batched(frame.schema())?);
            }
        }
        match &mut self.writer {
            Some(w) => w.write_batch(&frame),
            None => Ok(()),
        }
    }

    /// The last row group and the footer; a run without units writes a file of no rows.
    pub(super) fn finish(mut self) -> polars::prelude::PolarsResult<()> {
        if self.writer.is_none() && self.pending.is_none() {
            self.pending = Some(feature_frame(&[])?);
        }
        self.flush()?;
        match &mut self.writer {
            Some(w) => w.finish().map(|_| ()),
            None => Ok(()),
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

/// CSV: lists spread over `name_0, name_1, …`; text quoted by the csv crate's rules. The
/// columns are fixed by the first chunk written: every later row has the same keys, and
/// lists no longer (the bands' count is the level's; lags at most `TOP_LAGS`).
pub(super) struct Csv {
    header: bool,
    /// Each column's key and, for a list, its count of cells.
    columns: Option<Vec<(&'static str, Option<usize>)>>,
}

impl Csv {
    pub(super) fn new(header: bool) -> Self {
        Csv {
            header,
            columns: None,
        }
    }

    pub(super) fn write(&mut self, w: &mut dyn Write, units: &[Unit]) -> io::Result<()> {
        let values: Vec<serde_json::Value> = units
            .iter()
            .map(|u| serde_json::to_value(row(u)))
            .collect::<Result<_, _>>()?;
        let Some(first) = values.first() else {
            return Ok(());
        };
        let mut out = csv::WriterBuilder::new().from_writer(w);
        let columns = match &self.columns {
            Some(c) => c,
            None => {
                let columns = Self::columns(first, &values);
                if self.header {
                    let mut header = Vec::new();
                    for &(k, width) in &columns {
                        match width {
                            Some(n) => header.extend((0..n).map(|i| format!("{k}_{i}"))),
                            None => header.push(k.to_string()),
                        }
                    }
                    out.write_record(&header)?;
                }
                self.columns.insert(columns)
            }
        };
        for v in &values {
            let mut cells = Vec::new();
            for &(k, width) in columns {
                match (&v[k], width) {
                    (serde_json::Value::Array(items), Some(n)) if items.len() <= n => {
                        cells.extend(items.iter().map(cell));
                        cells.resize(cells.len() + n - items.len(), String::new());
                    }
                    (serde_json::Value::Array(items), Some(n)) => {
                        return Err(io::Error::other(format!(
                            "internal: '{k}' holds {} values where the header has {n} columns",
                            items.len()
                        )));
                    }
                    (other, _) => cells.push(cell(other)),
                }
            }
            out.write_record(&cells)?;
        }
        out.flush()
    }

    /// The columns of the first chunk: a list's as many as its longest, and always the
    /// top lags' count, so that shards agree on the header; shorter lists leave their
    /// last cells empty (a constant unit has no lags).
    fn columns(
        first: &serde_json::Value,
        values: &[serde_json::Value],
    ) -> Vec<(&'static str, Option<usize>)> {
        FEATURE_KEYS
            .into_iter()
            .filter(|k| first.get(k).is_some())
            .map(|k| {
                let width = first[k].as_array().map(|_| {
                    let longest = values
                        .iter()
                        .map(|v| v[k].as_array().map_or(0, Vec::len))
                        .max()
                        .unwrap_or(0);
                    match k {
                        "lags" | "lags_clean" => longest.max(wavebench_core::stats::TOP_LAGS),
                        _ => longest,
                    }
                });
                (k, width)
            })
            .collect()
    }
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
    let mut cols = place_columns(units);
    cols.extend([
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

/// Where each unit comes from: its file (in a data set), window, start row, start time
/// and column.
fn place_columns(units: &[Unit]) -> Vec<polars::prelude::Column> {
    use polars::prelude::*;
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
    ]);
    cols
}

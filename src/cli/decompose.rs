//! `wavebench decompose INPUT [-o OUT]`: coefficients as JSON.

use super::{Common, Failure};
use crate::data::DataSet;
use crate::engine::{self, Plan, Values};
use crate::export;
use crate::run_spec::{Purpose, RunSpec};
use serde::ser::{Serialize, SerializeSeq, Serializer};

use std::path::Path;

pub fn run(path: &Path, output: &Path, common: &Common) -> Result<(), Failure> {
    let spec = RunSpec::new(common.config()?, Purpose::Decompose)?;
    let set = DataSet::resolve(path)?;
    if set.is_set {
        return Err(Failure::Input(format!(
            "{}: decompose takes one file, not a data set",
            path.display()
        )));
    }
    let table = spec.load(path)?;
    for w in &table.warnings {
        eprintln!("wavebench: {w}");
    }
    let prepared = spec.prepare(&table)?;
    prepared.check_memory(&spec, &table)?;
    if let Some(w) = &prepared.warning {
        eprintln!("wavebench: {w}");
    }
    let (cfg, w, windows, plan) = (&spec.cfg, spec.wavelet, prepared.windows, &prepared.plan);
    let normalize = spec.normalize();

    // Series in order: window-major, channel-minor.
    let mut batch = Vec::with_capacity(windows.count * table.channels.len() * windows.seq_len);
    let mut labels = Vec::new();
    for i in 0..windows.count {
        let s = windows.start(i);
        for c in &table.channels {
            let mut x = c.values[s..s + windows.seq_len].to_vec();
            normalize.apply(&mut x);
            batch.extend_from_slice(&x);
            labels.push((c.name.clone(), i, s));
        }
    }
    let selected = spec.engine();
    if let (Some(n), false) = (&selected.notice, common.quiet) {
        eprintln!("wavebench: {n}");
    }
    let (mut eng, mut notice) = (selected.engine, None);
    let values = Values::from_f64(&batch, cfg.dtype);
    let coeffs = engine::with_fallback(&mut eng, &mut notice, |e| {
        e.decompose(values.as_ref(), plan)
    })?;
    if let (Some(n), false) = (&notice, common.quiet) {
        eprintln!("wavebench: {n}");
    }
    // Coefficients past the precision's range (huge inputs, deep levels in f32) are an
    // error naming the series, not inf in the output.
    let per = plan.coeffs_per_series();
    let bad = match &coeffs {
        Values::F32(v) => v.iter().position(|x| !x.is_finite()),
        Values::F64(v) => v.iter().position(|x| !x.is_finite()),
    };
    if let Some(i) = bad {
        let (column, window, start) = &labels[i / per];
        return Err(Failure::Input(format!(
            "{}: column '{column}', window {window} (row {start}): coefficients overflow {}; rescale the column{}",
            path.display(),
            cfg.dtype.name(),
            if cfg.dtype == crate::engine::DType::F32 { " or use --dtype f64" } else { "" }
        )));
    }
    let doc = Doc {
        wavelet: &w.name,
        mode: cfg.mode.name(),
        level: cfg.level,
        dtype: cfg.dtype.name(),
        engine: eng.kind().name(),
        series: labels
            .iter()
            .enumerate()
            .map(|(i, (column, window, start))| SeriesOut {
                column,
                window: cfg.seq_len.map(|_| *window),
                start: cfg.seq_len.map(|_| *start),
                coeffs: Bands {
                    values: &coeffs,
                    plan,
                    series: i,
                },
            })
            .collect(),
    };
    export::write_atomic(output, |out| {
        serde_json::to_writer(&mut *out, &doc).map_err(std::io::Error::other)?;
        writeln!(out)
    })
    .map_err(Failure::Input)
}

/// The document of SPEC §8, keys in its order; f32 values print as f32.
#[derive(serde::Serialize)]
struct Doc<'a> {
    wavelet: &'a str,
    mode: &'a str,
    level: usize,
    dtype: &'a str,
    engine: &'a str,
    series: Vec<SeriesOut<'a>>,
}

#[derive(serde::Serialize)]
struct SeriesOut<'a> {
    column: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<usize>,
    coeffs: Bands<'a>,
}

/// One series' bands, borrowed from the batch's coefficients.
struct Bands<'a> {
    values: &'a Values,
    plan: &'a Plan,
    series: usize,
}

impl Serialize for Bands<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let base = self.series * self.plan.coeffs_per_series();
        let mut seq = s.serialize_seq(Some(self.plan.bands()))?;
        for (&off, len) in self.plan.offsets.iter().zip(&self.plan.band_lens) {
            let r = base + off..base + off + len;
            match self.values {
                Values::F32(v) => seq.serialize_element(&v[r])?,
                Values::F64(v) => seq.serialize_element(&v[r])?,
            }
        }
        seq.end()
    }
}

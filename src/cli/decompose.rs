//! `wavebench decompose INPUT [-o OUT]`: the coefficients of every series, and
//! `wavebench mra INPUT [-o OUT]`: their per-band reconstructions. Written as JSON,
//! Parquet, .npz or .npy (`band_table`).

use super::{Common, Failure};
use crate::band_table::{self, BandTable, Format, Kind, Label, Meta};
use crate::data::DataSet;
use wavebench_core::engine::{self, inverse, Values};
use wavebench_core::run_spec::{Purpose, RunSpec};

use std::path::Path;

/// What the command writes: the coefficients, or the components (MRA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Coeffs,
    Components,
}

pub fn run(path: &Path, output: &Path, common: &Common, what: Output) -> Result<(), Failure> {
    // A bad extension fails before any work.
    let format = Format::for_path(output).map_err(Failure::Input)?;
    let spec = RunSpec::new(common.config()?, Purpose::Decompose, &crate::backend::LOCAL)?;
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
        // The window's time, formatted once for all its channels.
        let start_time = cfg.seq_len.map(|_| table.time_label(s));
        for c in &table.channels {
            let mut x = c.values.rows_f64(s..s + windows.seq_len).into_owned();
            normalize.apply(&mut x);
            batch.extend_from_slice(&x);
            labels.push(Label {
                file: None,
                column: c.name.clone(),
                window: cfg.seq_len.map(|_| i),
                start: cfg.seq_len.map(|_| s),
                start_time: start_time.clone(),
            });
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
        let l = &labels[i / per];
        let place = match (l.window, l.start) {
            (Some(w), Some(s)) => format!(", window {w} (row {s})"),
            _ => String::new(),
        };
        return Err(Failure::Input(format!(
            "{}: column '{}'{place}: coefficients overflow {}; rescale the column{}",
            path.display(),
            l.column,
            cfg.dtype.name(),
            if cfg.dtype == wavebench_core::engine::DType::F32 {
                " or use --dtype f64"
            } else {
                ""
            }
        )));
    }
    let meta = Meta {
        wavelet: w.name.clone(),
        mode: cfg.mode,
        level: cfg.level,
        dtype: cfg.dtype,
        engine: eng.kind().name().to_string(),
    };
    let table = match what {
        Output::Coeffs => BandTable {
            kind: Kind::Coeffs,
            meta,
            labels,
            names: wavebench_core::engine::plan::band_names(plan.bands() - 1),
            lens: plan.band_lens.clone(),
            values: coeffs,
        },
        Output::Components => BandTable {
            kind: Kind::Components,
            meta,
            labels,
            names: wavebench_core::engine::plan::band_names(plan.bands() - 1),
            lens: vec![plan.len; plan.bands()],
            values: match &coeffs {
                Values::F32(v) => Values::F32(inverse::mra_batch(v, plan)),
                Values::F64(v) => Values::F64(inverse::mra_batch(v, plan)),
            },
        },
    };
    let notice = band_table::write(output, format, &table).map_err(Failure::Input)?;
    if let (Some(n), false) = (notice, common.quiet) {
        eprintln!("wavebench: {n}");
    }
    Ok(())
}

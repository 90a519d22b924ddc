//! `wavebench decompose INPUT [-o OUT]`: the coefficients of every series, and
//! `wavebench mra INPUT [-o OUT]`: their per-band reconstructions. Written as JSON,
//! Parquet, .npz or .npy (`band_table`).

use super::Common;
use crate::band_table::{self, BandTable, Format, Kind, Label, Meta};
use crate::data::DataSet;
use crate::error::{Error, Result};
use wavebench_core::engine::{self, inverse, DType, Values};
use wavebench_core::run_spec::{Purpose, RunSpec};

use std::path::Path;

/// What the command writes: the coefficients, or the components (MRA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Coeffs,
    Components,
}

pub fn run(path: &Path, output: &Path, common: &Common, what: Output) -> Result<()> {
    // A bad extension fails before any work.
    let format = Format::for_path(output)?;
    let spec = RunSpec::new(common.config()?, Purpose::Decompose, &crate::backend::LOCAL)?;
    let set = DataSet::resolve(path)?;
    if set.is_set {
        return Err(Error::input(format!(
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
    let (cfg, plan) = (&spec.cfg, &prepared.plan);
    let (batch, labels) = series(&spec, &table, prepared.windows);
    let selected = spec.engine();
    if let (Some(n), false) = (&selected.notice, common.data.quiet) {
        eprintln!("wavebench: {n}");
    }
    let (mut eng, mut notice) = (selected.engine, None);
    let coeffs = transform(
        &mut eng,
        &mut notice,
        batch,
        prepared.windows.seq_len,
        plan,
        cfg.dtype,
        common.data.quiet,
    )?;
    if let (Some(n), false) = (&notice, common.data.quiet) {
        eprintln!("wavebench: {n}");
    }
    check_finite(path, &coeffs, &labels, plan.coeffs_per_series(), cfg.dtype)?;
    let meta = Meta {
        wavelet: cfg.transform.wavelet.name.clone(),
        mode: cfg.transform.mode,
        level: cfg.transform.level,
        dtype: cfg.dtype,
        engine: eng.kind().name().to_string(),
    };
    let periods = wavebench_core::engine::plan::band_periods(
        plan.bands() - 1,
        table.time.as_ref().and_then(|t| t.step_ms()),
    );
    let names = wavebench_core::engine::plan::band_names(plan.bands() - 1);
    let table = match what {
        Output::Coeffs => BandTable {
            kind: Kind::Coeffs,
            meta,
            labels,
            names,
            periods,
            lens: plan.band_lens.clone(),
            values: coeffs,
        },
        Output::Components => BandTable {
            kind: Kind::Components,
            meta,
            labels,
            names,
            periods,
            lens: vec![plan.len; plan.bands()],
            values: components(&coeffs, plan, common.data.quiet),
        },
    };
    write(output, format, &table, common.data.quiet)
}

/// The band table to `output`, a spinner while it is written (JSON above all takes a
/// while) and the writer's notice said.
fn write(output: &Path, format: Format, table: &BandTable, quiet: bool) -> Result<()> {
    let writing = super::run::spinner(quiet, &format!("writing {}", output.display()));
    let notice = band_table::write(output, format, table)?;
    writing.finish_and_clear();
    if let (Some(n), false) = (notice, quiet) {
        eprintln!("wavebench: {n}");
    }
    Ok(())
}

/// Every series the run transforms, normalised, window-major and channel-minor, and each
/// one's label (its column, window and start).
fn series(
    spec: &RunSpec,
    table: &wavebench_core::data::Table,
    windows: wavebench_core::data::Windows,
) -> (Vec<f64>, Vec<Label>) {
    let (cfg, normalize) = (&spec.cfg, spec.normalize());
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
    (batch, labels)
}

/// The coefficients of every series of `seq_len` samples in `batch`, in the run's
/// precision: in pieces of CHUNK series, so the bar moves (each series is transformed on
/// its own: the same coefficients as one call).
fn transform(
    eng: &mut Box<dyn wavebench_core::engine::Engine>,
    notice: &mut Option<String>,
    batch: Vec<f64>,
    seq_len: usize,
    plan: &wavebench_core::engine::Plan,
    dtype: DType,
    quiet: bool,
) -> Result<Values> {
    let series = batch.len() / seq_len.max(1);
    let bar = super::run::progress_of(series, quiet, "decompose", "series");
    let mut coeffs = match dtype {
        DType::F32 => Values::F32(Vec::with_capacity(series * plan.coeffs_per_series())),
        DType::F64 => Values::F64(Vec::with_capacity(series * plan.coeffs_per_series())),
    };
    for piece in batch.chunks((CHUNK * seq_len).max(1)) {
        let values = Values::from_f64(piece, dtype);
        let part = engine::with_fallback(eng, notice, |e| e.decompose(values.as_ref(), plan))?;
        match (&mut coeffs, part) {
            (Values::F32(all), Values::F32(p)) => all.extend_from_slice(&p),
            (Values::F64(all), Values::F64(p)) => all.extend_from_slice(&p),
            _ => {
                return Err(Error::internal(
                    "the engine returned another precision than asked",
                ))
            }
        }
        bar.inc((piece.len() / seq_len.max(1)) as u64);
    }
    bar.finish_and_clear();
    Ok(coeffs)
}

/// Coefficients past the precision's range (huge inputs, deep levels in f32) are an error
/// naming the series, not inf in the output.
fn check_finite(
    path: &Path,
    coeffs: &Values,
    labels: &[Label],
    per: usize,
    dtype: DType,
) -> Result<()> {
    let bad = match coeffs {
        Values::F32(v) => v.iter().position(|x| !x.is_finite()),
        Values::F64(v) => v.iter().position(|x| !x.is_finite()),
    };
    let Some(i) = bad else { return Ok(()) };
    let l = &labels[i / per];
    let place = match (l.window, l.start) {
        (Some(w), Some(s)) => format!(", window {w} (row {s})"),
        _ => String::new(),
    };
    Err(Error::input(format!(
        "{}: column '{}'{place}: coefficients overflow {}; rescale the column{}",
        path.display(),
        l.column,
        dtype.name(),
        if dtype == DType::F32 {
            " or use --dtype f64"
        } else {
            ""
        }
    )))
}

/// Series per engine call and per reconstruction step (a progress bar step).
const CHUNK: usize = 16_384;

/// The per-band reconstructions of every series, a piece of CHUNK series at a time
/// with a progress bar (the same values as one `mra_batch`).
fn components(coeffs: &Values, plan: &wavebench_core::engine::Plan, quiet: bool) -> Values {
    fn each<T: wavebench_core::engine::Real>(
        c: &[T],
        plan: &wavebench_core::engine::Plan,
        bar: &indicatif::ProgressBar,
    ) -> Vec<T> {
        let per = plan.coeffs_per_series().max(1);
        let mut out = Vec::with_capacity(c.len() / per * plan.bands() * plan.len);
        for piece in c.chunks(CHUNK * per) {
            out.extend(inverse::mra_batch(piece, plan));
            bar.inc((piece.len() / per) as u64);
        }
        out
    }
    let per = plan.coeffs_per_series().max(1);
    let series = match coeffs {
        Values::F32(v) => v.len() / per,
        Values::F64(v) => v.len() / per,
    };
    let bar = super::run::progress_of(series, quiet, "reconstruct", "series");
    let out = match coeffs {
        Values::F32(v) => Values::F32(each(v, plan, &bar)),
        Values::F64(v) => Values::F64(each(v, plan, &bar)),
    };
    bar.finish_and_clear();
    out
}

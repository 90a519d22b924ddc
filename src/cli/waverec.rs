//! `wavebench waverec COEFFS [-o OUT]`: signals back from `[cA_n, cD_n, …, cD_1]`
//! coefficients, as pywt's `waverec` reconstructs them (its length rule included: an odd
//! signal comes back one sample longer).

use super::Common;
use crate::band_table::{self, BandTable, Format, Kind, Meta};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::path::Path;
use wavebench_core::engine::{inverse, Real, Values};
use wavebench_core::names::{Opt, OPTION};
use wavebench_core::wavelet::{self, Mode, Wavelet};

pub fn run(path: &Path, output: &Path, common: &Common) -> Result<()> {
    let format = Format::for_path(output)?;
    let cfg = common.config()?;
    let coeffs = band_table::read_coeffs(path)?;
    let p = path.display();
    let (wavelet_name, mode) = settings(&coeffs, common, &cfg, path)?;
    let w = wavelet::lookup(&wavelet_name)
        .map_err(|e| Error::about(&[Opt::Wavelet], format!("{OPTION}: {e}")))?;
    inverse::check_band_lens(&coeffs.lens, w, mode).map_err(|e| {
        let hint = match coeffs.meta {
            None => "; were they made with another --wavelet or --mode?",
            Some(_) => "",
        };
        Error::input(format!("{p}: {e}{hint}"))
    })?;
    let assumed = coeffs.meta.is_none() && (common.wavelet.is_none() || common.mode.is_none());
    if assumed && !common.data.quiet {
        eprintln!(
            "wavebench: {p} does not record its wavelet and mode; reconstructing with {} and {} (--wavelet, --mode)",
            w.name,
            mode.name()
        );
    }
    let level = coeffs.lens.len() - 1;
    if let Some(l) = common.level.filter(|&l| l != level) {
        return Err(Error::input(format!(
            "{p}: the file holds {} bands, a level-{level} decomposition; --level {l} contradicts it",
            coeffs.lens.len()
        )));
    }
    check_finite(&coeffs, path)?;
    // Precision: --dtype when given, else the file's.
    let dtype = common.dtype.unwrap_or(coeffs.values.as_ref().dtype());
    let input = if coeffs.values.as_ref().dtype() == dtype {
        coeffs.values
    } else {
        Values::from_f64(&coeffs.values.to_f64(), dtype)
    };
    let values = match &input {
        Values::F32(v) => Values::F32(reconstruct(v, &coeffs.lens, w, mode, common.data.quiet)),
        Values::F64(v) => Values::F64(reconstruct(v, &coeffs.lens, w, mode, common.data.quiet)),
    };
    let series = coeffs.labels.len();
    let len = values.len().checked_div(series).unwrap_or(0);
    let table = BandTable {
        kind: Kind::Signal,
        meta: Meta {
            wavelet: w.name.clone(),
            mode,
            level,
            dtype,
            engine: "native".into(),
        },
        labels: coeffs.labels,
        names: vec!["signal".into()],
        periods: Vec::new(),
        lens: vec![len],
        values,
    };
    let notice = band_table::write(output, format, &table)?;
    if let (Some(n), false) = (notice, common.data.quiet) {
        eprintln!("wavebench: {n}");
    }
    Ok(())
}

/// The wavelet's name and the mode to reconstruct with: the file's settings win; an
/// option that contradicts them is a mistake worth a word, because it would silently
/// reconstruct a different signal. A file that records neither takes the options'.
fn settings(
    coeffs: &band_table::Coeffs,
    common: &Common,
    cfg: &wavebench_core::config::Config,
    path: &Path,
) -> Result<(String, Mode)> {
    let p = path.display();
    Ok(match &coeffs.meta {
        Some(m) => {
            if let Some(w) = common.wavelet.as_deref().filter(|w| *w != m.wavelet) {
                return Err(Error::input(format!(
                    "{p}: the coefficients were made with --wavelet {}; --wavelet {w} contradicts it (drop the option)",
                    m.wavelet
                )));
            }
            if let Some(md) = common.mode.filter(|md| *md != m.mode) {
                return Err(Error::input(format!(
                    "{p}: the coefficients were made with --mode {}; --mode {} contradicts it (drop the option)",
                    m.mode.name(),
                    md.name()
                )));
            }
            (m.wavelet.clone(), m.mode)
        }
        None => (cfg.transform.name().to_string(), cfg.transform.mode),
    })
}

/// Every coefficient is finite, or the error says where the first that is not lies:
/// inverted, one NaN spreads over a filter's reach of every level.
fn check_finite(coeffs: &band_table::Coeffs, path: &Path) -> Result<()> {
    let Some((at, v)) = first_non_finite(&coeffs.values) else {
        return Ok(());
    };
    let per: usize = coeffs.lens.iter().sum();
    let (series, mut offset) = (at / per.max(1), at % per.max(1));
    let band = coeffs
        .lens
        .iter()
        .position(|&l| {
            let inside = offset < l;
            if !inside {
                offset -= l;
            }
            inside
        })
        .unwrap_or(0);
    Err(Error::input(format!(
        "{}: series {series} ('{}'), band {}, coefficient {offset} is {v}; waverec needs finite coefficients",
        path.display(),
        coeffs.labels.get(series).map_or("", |l| l.column.as_str()),
        coeffs.names.get(band).map_or("?", String::as_str),
    )))
}

/// Every series' signal (series-major), reconstructed in parallel, a piece of 16,384
/// series at a time with a progress bar.
fn reconstruct<T: Real>(
    values: &[T],
    lens: &[usize],
    w: &Wavelet,
    mode: Mode,
    quiet: bool,
) -> Vec<T> {
    let per: usize = lens.iter().sum::<usize>().max(1);
    let bar = super::run::progress_of(values.len() / per, quiet, "waverec", "series");
    let mut out = Vec::new();
    for piece in values.chunks(16_384 * per) {
        out.extend(reconstruct_piece(piece, lens, w, mode));
        bar.inc((piece.len() / per) as u64);
    }
    bar.finish_and_clear();
    out
}

fn reconstruct_piece<T: Real>(values: &[T], lens: &[usize], w: &Wavelet, mode: Mode) -> Vec<T> {
    let per: usize = lens.iter().sum();
    let signals: Vec<Vec<T>> = values
        .par_chunks(per.max(1))
        .map(|c| {
            let mut at = 0;
            let bands: Vec<&[T]> = lens
                .iter()
                .map(|&l| {
                    let b = &c[at..at + l];
                    at += l;
                    b
                })
                .collect();
            inverse::waverec(&bands, w, mode)
        })
        .collect();
    signals.concat()
}

/// The first value that is NaN or infinite, and where (series-major, bands concatenated).
fn first_non_finite(values: &Values) -> Option<(usize, f64)> {
    match values {
        Values::F32(v) => v
            .iter()
            .position(|x| !x.is_finite())
            .map(|i| (i, f64::from(v[i]))),
        Values::F64(v) => v.iter().position(|x| !x.is_finite()).map(|i| (i, v[i])),
    }
}

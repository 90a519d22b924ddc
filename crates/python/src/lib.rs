//! `wavebench._wavebench`: the Python extension. Arrays in (numpy, read in place: each
//! contiguous row is handed to the core as it lies), the core's `rows` path with the GIL
//! released, numpy arrays and strings out. The Python package around it
//! (`python/wavebench/__init__.py`) only adapts types: torch tensors to numpy, the seed's
//! key names to those of docs/cli.md#features.

#[macro_use]
mod arrays;
mod generator;
mod sweep;

use arrays::{read, rows_error, value_error, with_rows, Batch, Data};
use generator::{generator_dict, generator_prompt};
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use std::sync::{Arc, Mutex, PoisonError};
use wavebench_core::config::Config;
use wavebench_core::data::{DataError, Normalize};
use wavebench_core::engine::Plan;
use wavebench_core::features::degenerate::Describe;
use wavebench_core::features::{Aggregate, Features};
use wavebench_core::names::UnknownName;
use wavebench_core::prompt::{self};
use wavebench_core::run_spec::{Purpose, RunSpec, NATIVE_ONLY};
use wavebench_core::stats::{LagRule, TOP_LAGS};
use wavebench_core::transform;
use wavebench_core::wavelet::{self, Mode};

/// The transform the keyword arguments name; its level is checked where every run's is,
/// by [`RunSpec::new`] (through [`spec`]).
fn settings(wavelet: &str, level: usize, mode: &str) -> PyResult<transform::Transform> {
    let w = wavelet::lookup(wavelet).map_err(|e| value_error(format!("wavelet: {e}")))?;
    let mode: Mode = parse("mode", mode)?;
    Ok(transform::Transform {
        wavelet: w,
        mode,
        level,
    })
}

/// The run the keyword arguments describe, through the core's one door to a run
/// ([`RunSpec`]): its checks, its normalisation default and its description of units
/// are the CLI's. Options are worded as the keyword arguments (`level`, `seq_len`).
fn spec(transform: transform::Transform, how: How) -> PyResult<RunSpec> {
    let cfg = Config {
        transform,
        normalize: Some(how.normalize),
        aggregate: how.aggregate,
        seed_compatible: how.seed_compatible,
        lags: how.lags,
        ..Config::default()
    };
    RunSpec::new(cfg, Purpose::Features, &NATIVE_ONLY).map_err(data_error)
}

/// What the keyword arguments say beyond the transform.
#[derive(Clone, Copy)]
struct How {
    normalize: Normalize,
    aggregate: Aggregate,
    seed_compatible: bool,
    lags: LagRule,
}

impl How {
    /// The DWTPromptGenerator's (the seed's): all B·N series together, unnormalised,
    /// described as it did.
    const GENERATOR: How = How {
        normalize: Normalize::None,
        aggregate: Aggregate::Batch,
        seed_compatible: true,
        lags: LagRule::Timellm,
    };
}

/// A core error as Python's ValueError, its options named as the keyword arguments.
fn data_error(e: DataError) -> PyErr {
    value_error(e.worded(|o| o.name().to_string()))
}

/// The plan for series of `t` samples and how their units are described, checked as the
/// seed and the CLI check them.
fn plan_for(spec: &RunSpec, t: usize) -> PyResult<(Plan, Describe)> {
    let s = spec.cfg.transform;
    // The seed's own check first, with its wording, then the level rule of docs/transform.md#levels.
    if s.level >= usize::BITS as usize || t < (1usize << s.level) {
        return Err(PyRuntimeError::new_err(format!(
            "sequence length {} is too short for a level-{} decomposition (needs at least 2^{} = {})",
            t,
            s.level,
            s.level,
            1u128 << s.level.min(127)
        )));
    }
    let plan = Plan::new(s.wavelet, s.mode, s.level, t).map_err(|e| value_error(e.to_string()))?;
    spec.check_level(&plan).map_err(data_error)?;
    let describe = spec.describe(&plan);
    Ok((plan, describe))
}

/// The features of each group of the batch (series, sample or batch aggregation),
/// computed without the GIL.
fn group_features(
    py: Python<'_>,
    x: &Batch<'_>,
    plan: &Plan,
    aggregate: Aggregate,
    normalize: Normalize,
    statistics: bool,
    describe: Describe,
) -> PyResult<Vec<Features>> {
    let features = with_batch_rows!(&x.data, |rows| {
        py.detach(|| rows.features(plan, aggregate, normalize, statistics, describe))
    });
    features.map_err(|e| rows_error(x, e))
}

/// Every unit's features of `x` with its statistics, described as the CLI describes them
/// (`lags`' rule, the seed's wording when `seed_compatible`), and the batch they were read
/// from: what `features` and `prompts` share.
fn described_features<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    spec: &RunSpec,
) -> PyResult<(Batch<'py>, Vec<Features>)> {
    let batch = read(x)?;
    let (plan, describe) = plan_for(spec, batch.t)?;
    let feats = group_features(
        py,
        &batch,
        &plan,
        spec.cfg.aggregate,
        spec.normalize(),
        true,
        describe,
    )?;
    Ok((batch, feats))
}

/// The keyword arguments that features and prompts share, parsed.
fn how(normalize: &str, aggregate: Aggregate, seed_compatible: bool, lags: &str) -> PyResult<How> {
    Ok(How {
        normalize: parse("normalize", normalize)?,
        aggregate,
        seed_compatible,
        lags: parse("lags", lags)?,
    })
}

fn parse<T: std::str::FromStr<Err = UnknownName>>(what: &str, v: &str) -> PyResult<T> {
    v.parse()
        .map_err(|e: UnknownName| value_error(format!("{what}: {e}")))
}

/// Features of every prompt unit of `x` as a dict of numpy arrays (lists of str for the
/// descriptions): `aggregate` = series (B·N units), sample (B) or batch (1).
/// `degenerate` names each unit's flag ("constant", "level" or None), as the CLI's records.
#[pyfunction]
#[pyo3(signature = (x, wavelet="db4", level=3, mode="reflect", aggregate="series", normalize="none", seed_compatible=false, lags="timellm"))]
#[allow(clippy::too_many_arguments)]
fn features<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    wavelet: &str,
    level: usize,
    mode: &str,
    aggregate: &str,
    normalize: &str,
    seed_compatible: bool,
    lags: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let aggregate: Aggregate = parse("aggregate", aggregate)?;
    let spec = spec(
        settings(wavelet, level, mode)?,
        how(normalize, aggregate, seed_compatible, lags)?,
    )?;
    let (batch, feats) = described_features(py, x, &spec)?;
    let d = PyDict::new(py);
    let f: Vec<&Features> = feats.iter().collect();
    let (sample, channel) = unit_places(aggregate, batch.b, batch.n);
    d.set_item("sample", PyArray1::from_vec(py, sample))?;
    d.set_item("channel", PyArray1::from_vec(py, channel))?;
    let scalar =
        |get: fn(&Features) -> f64| PyArray1::from_vec(py, f.iter().map(|x| get(x)).collect());
    let matrix = |get: fn(&Features) -> Vec<f64>| -> PyResult<Bound<'py, PyArray2<f64>>> {
        let rows: Vec<Vec<f64>> = f.iter().map(|x| get(x)).collect();
        PyArray2::from_vec2(py, &rows).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    };
    let text = |get: fn(&Features) -> &str| PyList::new(py, f.iter().map(|x| get(x).to_string()));
    d.set_item(
        "degenerate",
        PyList::new(py, f.iter().map(|x| x.degenerate.map(|d| d.name())))?,
    )?;
    d.set_item("energy_ratio", matrix(|x| x.energy_ratio.to_vec())?)?;
    d.set_item("energy_entropy", scalar(|x| x.energy_entropy))?;
    d.set_item(
        "dominant_band",
        PyArray1::from_vec(py, f.iter().map(|x| x.dominant_band as i64).collect()),
    )?;
    d.set_item("dominant_energy", scalar(|x| x.dominant_energy))?;
    d.set_item("freq_pattern", text(|x| &x.freq_pattern)?)?;
    d.set_item("trends", matrix(|x| x.trends.to_vec())?)?;
    d.set_item(
        "trends_sign",
        matrix(|x| x.trends_sign.iter().map(|&v| v as f64).collect())?
            .call_method1("astype", ("int32",))?,
    )?;
    d.set_item("trend_consistency", scalar(|x| x.trend_consistency))?;
    d.set_item("trend_desc", text(|x| &x.trend_desc)?)?;
    d.set_item("band_stds", matrix(|x| x.band_stds.to_vec())?)?;
    d.set_item("snr_db", scalar(|x| x.snr_db))?;
    d.set_item("volatility_ratio", scalar(|x| x.volatility_ratio))?;
    d.set_item("stability_desc", text(|x| &x.stability_desc)?)?;
    d.set_item("signal_quality", text(|x| &x.signal_quality)?)?;
    d.set_item("difficulty_score", scalar(|x| x.difficulty_score))?;
    d.set_item("difficulty", text(|x| &x.difficulty)?)?;
    d.set_item("min", scalar(|x| x.min))?;
    d.set_item("max", scalar(|x| x.max))?;
    d.set_item("median", scalar(|x| x.median))?;
    d.set_item("trend", scalar(|x| x.trend))?;
    d.set_item("lags", lag_rows(py, &f, |x| &x.lags)?)?;
    d.set_item("lags_clean", lag_rows(py, &f, |x| &x.lags_clean)?)?;
    Ok(d)
}

/// Each unit's sample, and channel (-1 for a unit of several channels), for `b` samples
/// of `n` channels under `aggregate`.
fn unit_places(aggregate: Aggregate, b: usize, n: usize) -> (Vec<i64>, Vec<i64>) {
    match aggregate {
        Aggregate::Series => (0..b * n).map(|k| ((k / n) as i64, (k % n) as i64)).unzip(),
        Aggregate::Sample => (0..b).map(|b| (b as i64, -1)).unzip(),
        Aggregate::Batch => (vec![0], vec![-1]),
    }
}

/// The lags `get` reads, one row per unit, -1 past a unit's own lags (a constant series
/// has none).
fn lag_rows<'py>(
    py: Python<'py>,
    f: &[&Features],
    get: fn(&Features) -> &[usize],
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let width = f.iter().map(|x| get(x).len()).max().unwrap_or(0);
    let rows: Vec<Vec<i64>> = f
        .iter()
        .map(|x| {
            let mut row: Vec<i64> = get(x).iter().map(|&v| v as i64).collect();
            row.resize(width, -1);
            row
        })
        .collect();
    PyArray2::from_vec2(py, &rows).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// A wavelet, level and mode, checked once, with the plan for the last series length it
/// ran: the seed's transform, planned once and run every training step, never planned
/// per call.
#[pyclass(frozen, module = "wavebench._wavebench")]
struct Transform {
    /// The seed's run: batch aggregation, unnormalised, described as the seed did.
    spec: RunSpec,
    plan: Mutex<Option<Arc<(Plan, Describe)>>>,
}

impl Transform {
    fn plan(&self, t: usize) -> PyResult<Arc<(Plan, Describe)>> {
        let mut kept = self.plan.lock().unwrap_or_else(PoisonError::into_inner);
        match kept.as_ref() {
            Some(plan) if plan.0.len == t => Ok(plan.clone()),
            _ => {
                let plan = Arc::new(plan_for(&self.spec, t)?);
                *kept = Some(plan.clone());
                Ok(plan)
            }
        }
    }
}

#[pymethods]
impl Transform {
    /// ValueError naming the wavelet, level or mode that is wrong, as the CLI words it.
    #[new]
    #[pyo3(signature = (wavelet="db4", level=3, mode="reflect"))]
    fn new(wavelet: &str, level: usize, mode: &str) -> PyResult<Self> {
        Ok(Transform {
            spec: spec(settings(wavelet, level, mode)?, How::GENERATOR)?,
            plan: Mutex::new(None),
        })
    }

    /// The seed's feature dict: the features (docs/features.md) of all B·N series together
    /// (batch aggregation), under the seed's names and types.
    fn batch_features<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let batch = read(x)?;
        let planned = self.plan(batch.t)?;
        let (plan, describe) = &*planned;
        // The seed's dict has no statistics (they are not computed) and no flags: its
        // features are the seed's, constant input included.
        let feats = group_features(
            py,
            &batch,
            plan,
            self.spec.cfg.aggregate,
            self.spec.normalize(),
            false,
            *describe,
        )?;
        let [f] = feats.as_slice() else {
            return Err(PyRuntimeError::new_err(format!(
                "internal: {} groups for one batch",
                feats.len()
            )));
        };
        generator_dict(py, f)
    }

    /// Pickled (and deep-copied with a model) as its settings.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, pyo3::types::PyType>, (String, usize, String))> {
        let s = slf.get().spec.cfg.transform;
        Ok((
            slf.get_type(),
            (s.wavelet.name.clone(), s.level, s.mode.to_string()),
        ))
    }

    fn __repr__(&self) -> String {
        let s = self.spec.cfg.transform;
        format!(
            "Transform(wavelet={:?}, level={}, mode={:?})",
            s.wavelet.name,
            s.level,
            s.mode.to_string()
        )
    }
}

/// Time-LLM's per-series prompt loop in one call: the B·N prompts (sample-major), as the
/// CLI's `prompts --template timellm` renders them.
#[pyfunction]
#[pyo3(signature = (x, description, pred_len, top_k=5, normalize="none", seed_compatible=false))]
fn timellm_prompts(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    description: &str,
    pred_len: usize,
    top_k: usize,
    normalize: &str,
    seed_compatible: bool,
) -> PyResult<Py<PyList>> {
    if top_k != TOP_LAGS {
        return Err(value_error(format!(
            "top_k={top_k}: the timellm template lists Time-LLM's top {TOP_LAGS} lags; only top_k={TOP_LAGS} is supported"
        )));
    }
    let batch = read(x)?;
    let normalize: Normalize = parse("normalize", normalize)?;
    let p = prompt::builtin_prompter("timellm")
        .ok_or_else(|| PyRuntimeError::new_err("no timellm template"))?;
    // Time-LLM's statistics alone: no transform runs for them.
    let prompts = with_batch_rows!(&batch.data, |rows| {
        // No transform: the level cannot be degenerate.
        let describe = Describe {
            degenerate_level: false,
            seed_compatible,
            ..Describe::default()
        };
        py.detach(|| rows.statistics_prompts(p, normalize, description, pred_len, describe))
    });
    let prompts = prompts.map_err(|e| rows_error(&batch, e))?;
    let texts: Vec<&str> = prompts.iter().collect();
    Ok(PyList::new(py, texts)?.unbind())
}

/// Any built-in template's per-series prompts (the B·N of them, sample-major), as the CLI's
/// `prompts --template T --normalize none` renders each window: what a sweep row's
/// configuration (`--write-config`) gives inside a training loop.
#[pyfunction]
#[pyo3(signature = (x, template="dwt-balanced", wavelet="db4", level=3, mode="reflect", description="", pred_len=96, normalize="none", lags="timellm", seed_compatible=false))]
#[allow(clippy::too_many_arguments)]
fn prompts(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    template: &str,
    wavelet: &str,
    level: usize,
    mode: &str,
    description: &str,
    pred_len: usize,
    normalize: &str,
    lags: &str,
    seed_compatible: bool,
) -> PyResult<Py<PyList>> {
    let prompter = prompt::builtin_prompter(template).ok_or_else(|| {
        let names: Vec<&str> = prompt::BUILTINS.iter().map(|(n, _)| *n).collect();
        value_error(format!(
            "template: unknown built-in '{template}' (expected {})",
            names.join(", ")
        ))
    })?;
    let spec = spec(
        settings(wavelet, level, mode)?,
        how(normalize, Aggregate::Series, seed_compatible, lags)?,
    )?;
    let (batch, feats) = described_features(py, x, &spec)?;
    let texts = py.detach(|| {
        feats
            .iter()
            .map(|f| {
                prompter.render(&prompt::PromptVars {
                    features: f,
                    description,
                    seq_len: batch.t,
                    pred_len,
                })
            })
            .collect::<Result<Vec<String>, _>>()
    });
    let texts =
        texts.map_err(|e| PyRuntimeError::new_err(format!("template '{template}': {e}")))?;
    Ok(PyList::new(py, texts)?.unbind())
}

#[pymodule]
fn _wavebench(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Transform>()?;
    m.add_function(wrap_pyfunction!(features, m)?)?;
    m.add_function(wrap_pyfunction!(generator_prompt, m)?)?;
    m.add_function(wrap_pyfunction!(timellm_prompts, m)?)?;
    m.add_function(wrap_pyfunction!(prompts, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_part, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_merge, m)?)?;
    m.add("TOP_LAGS", TOP_LAGS)?;
    Ok(())
}

//! `wavebench._wavebench`: the Python extension. Arrays in (numpy, read in place: each
//! contiguous row is handed to the core as it lies), the core's `rows` path with the GIL
//! released, numpy arrays and strings out. The Python package around it
//! (`python/wavebench/__init__.py`) only adapts types: torch tensors to numpy, the seed's
//! key names to those of docs/cli.md#features.

use numpy::ndarray::{s, ArrayView3, Axis, Ix3};
use numpy::{PyArray1, PyArray2, PyReadonlyArrayDyn};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::sync::{Arc, Mutex, PoisonError};
use wavebench_core::data::Normalize;
use wavebench_core::engine::{Plan, Real};
use wavebench_core::features::degenerate::Describe;
use wavebench_core::features::{Aggregate, Features};
use wavebench_core::pipeline;
use wavebench_core::prompt::{self, PromptVars};
use wavebench_core::rows::{Rows, RowsError};
use wavebench_core::stats::TOP_LAGS;
use wavebench_core::wavelet::{self, Mode};

/// `x` as read: a float32 or float64 array of shape (B, N, T), borrowed from numpy (a CPU
/// tensor's memory too) for the length of the call.
enum Data<'py> {
    F32(PyReadonlyArrayDyn<'py, f32>),
    F64(PyReadonlyArrayDyn<'py, f64>),
}

struct Batch<'py> {
    data: Data<'py>,
    b: usize,
    n: usize,
    t: usize,
}

fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// A float32 or float64 numpy array (any strides) as a batch; (T,) and (S, T) are
/// (1, 1, T) and (S, 1, T).
fn read<'py>(x: &Bound<'py, PyAny>) -> PyResult<Batch<'py>> {
    let data = if let Ok(a) = x.extract::<PyReadonlyArrayDyn<'py, f32>>() {
        Data::F32(a)
    } else if let Ok(a) = x.extract::<PyReadonlyArrayDyn<'py, f64>>() {
        Data::F64(a)
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected a float32 or float64 numpy array or torch tensor, got {}",
            x.get_type().name()?
        )));
    };
    let shape = match &data {
        Data::F32(a) => a.as_array().shape().to_vec(),
        Data::F64(a) => a.as_array().shape().to_vec(),
    };
    let (b, n, t) = match shape.as_slice() {
        [t] => (1, 1, *t),
        [s, t] => (*s, 1, *t),
        [b, n, t] => (*b, *n, *t),
        _ => {
            return Err(value_error(format!(
                "expected x of shape (B, N, T) (or (S, T), or (T,)), got {} dimensions {shape:?}",
                shape.len()
            )))
        }
    };
    if b == 0 || n == 0 || t == 0 {
        return Err(value_error(format!("x is empty: shape {shape:?}")));
    }
    Ok(Batch { data, b, n, t })
}

/// The array as (B, N, T): (T,) and (S, T) get new axes, no copy.
fn view3<'a, T: numpy::Element>(a: &'a PyReadonlyArrayDyn<'_, T>) -> ArrayView3<'a, T> {
    let v = a.as_array();
    let v = match v.ndim() {
        1 => v.insert_axis(Axis(0)).insert_axis(Axis(0)),
        2 => v.insert_axis(Axis(1)),
        _ => v,
    };
    v.into_dimensionality::<Ix3>()
        .expect("read() accepted only 1, 2 or 3 dimensions")
}

/// The batch's B·N rows (sample-major), borrowed where each row is contiguous (the usual
/// case, a row of a C-ordered array or tensor), else copied once, handed to `f`.
fn with_rows<T: Real + numpy::Element, R>(
    a: &PyReadonlyArrayDyn<'_, T>,
    f: impl FnOnce(Rows<'_, T>) -> R,
) -> R {
    let v = view3(a);
    let (b, n, t) = v.dim();
    let copy: Vec<T>;
    let rows: Vec<&[T]> = match v.as_slice() {
        Some(all) => all.chunks_exact(t).collect(),
        None if v.strides()[2] == 1 || t == 1 => {
            let mut rows = Vec::with_capacity(b * n);
            for bi in 0..b {
                for ni in 0..n {
                    let row = v.slice_move(s![bi, ni, ..]);
                    rows.push(
                        row.to_slice()
                            .expect("a row with unit stride is contiguous"),
                    );
                }
            }
            rows
        }
        None => {
            copy = v.iter().copied().collect();
            copy.chunks_exact(t).collect()
        }
    };
    f(Rows {
        rows: &rows,
        channels: n,
    })
}

/// `$body` with `$rows` the batch's rows (`with_rows`), in whichever precision `$data`
/// holds: the body is generic code written once for both.
macro_rules! with_batch_rows {
    ($data:expr, |$rows:ident| $body:expr) => {
        match $data {
            Data::F32(a) => with_rows(a, |$rows| $body),
            Data::F64(a) => with_rows(a, |$rows| $body),
        }
    };
}

/// The error of a core call on `x`: a non-finite sample named by its index, as the CLI names
/// a row and column.
fn rows_error(x: &Batch<'_>, e: RowsError) -> PyErr {
    let RowsError::NotFinite { row, sample, value } = e else {
        return PyRuntimeError::new_err(e.to_string());
    };
    value_error(format!(
        "x[{}, {}, {sample}] is {value}: the input must be finite (fill or drop missing values first)",
        row / x.n,
        row % x.n
    ))
}

/// The transform's settings, checked as the CLI checks them.
#[derive(Clone, Copy)]
struct Settings {
    wavelet: &'static wavelet::Wavelet,
    mode: Mode,
    level: usize,
}

fn settings(wavelet: &str, level: usize, mode: &str) -> PyResult<Settings> {
    let w = wavelet::lookup(wavelet).map_err(|e| value_error(format!("wavelet: {e}")))?;
    let mode: Mode = mode
        .parse()
        .map_err(|e: String| value_error(format!("mode: {e}")))?;
    if level == 0 {
        return Err(value_error("level must be at least 1"));
    }
    Ok(Settings {
        wavelet: w,
        mode,
        level,
    })
}

/// The plan for series of `t` samples, checked as the seed and the CLI check them.
fn plan_for(s: &Settings, t: usize) -> PyResult<Plan> {
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
    pipeline::check_level(&plan).map_err(value_error)?;
    Ok(plan)
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
    seed_compatible: bool,
) -> PyResult<Vec<Features>> {
    let describe = Describe::new(plan, seed_compatible);
    let features = with_batch_rows!(&x.data, |rows| {
        py.detach(|| rows.features(plan, aggregate, normalize, statistics, describe))
    });
    features.map_err(|e| rows_error(x, e))
}

fn parse<T: std::str::FromStr<Err = String>>(what: &str, v: &str) -> PyResult<T> {
    v.parse()
        .map_err(|e: String| value_error(format!("{what}: {e}")))
}

/// Features of every prompt unit of `x` as a dict of numpy arrays (lists of str for the
/// descriptions): `aggregate` = series (B·N units), sample (B) or batch (1).
/// `degenerate` names each unit's flag ("constant", "level" or None), as the CLI's records.
#[pyfunction]
#[pyo3(signature = (x, wavelet="db4", level=3, mode="reflect", aggregate="series", normalize="none", seed_compatible=false))]
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
) -> PyResult<Bound<'py, PyDict>> {
    let s = settings(wavelet, level, mode)?;
    let batch = read(x)?;
    let aggregate: Aggregate = parse("aggregate", aggregate)?;
    let feats = group_features(
        py,
        &batch,
        &plan_for(&s, batch.t)?,
        aggregate,
        parse("normalize", normalize)?,
        true,
        seed_compatible,
    )?;
    let d = PyDict::new(py);
    let f: Vec<&Features> = feats.iter().collect();
    // Each unit's sample, and channel (-1 for a unit of several channels).
    let (sample, channel): (Vec<i64>, Vec<i64>) = match aggregate {
        Aggregate::Series => (0..batch.b * batch.n)
            .map(|k| ((k / batch.n) as i64, (k % batch.n) as i64))
            .unzip(),
        Aggregate::Sample => (0..batch.b).map(|b| (b as i64, -1)).unzip(),
        Aggregate::Batch => (vec![0], vec![-1]),
    };
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
    // One row per unit, -1 past a unit's own lags (a constant series has none).
    let lags = |get: fn(&Features) -> &[usize]| -> PyResult<Bound<'py, PyArray2<i64>>> {
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
    };
    d.set_item("lags", lags(|x| &x.lags)?)?;
    d.set_item("lags_clean", lags(|x| &x.lags_clean)?)?;
    Ok(d)
}

/// A wavelet, level and mode, checked once, with the plan for the last series length it
/// ran: the seed's transform, planned once and run every training step (the
/// plan was ~2 % of a step's call when it was made per call).
#[pyclass(frozen, module = "wavebench._wavebench")]
struct Transform {
    settings: Settings,
    plan: Mutex<Option<Arc<Plan>>>,
}

impl Transform {
    fn plan(&self, t: usize) -> PyResult<Arc<Plan>> {
        let mut kept = self.plan.lock().unwrap_or_else(PoisonError::into_inner);
        match kept.as_ref() {
            Some(plan) if plan.len == t => Ok(plan.clone()),
            _ => {
                let plan = Arc::new(plan_for(&self.settings, t)?);
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
            settings: settings(wavelet, level, mode)?,
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
        let plan = self.plan(batch.t)?;
        // The seed's dict has no statistics (they are not computed) and no flags: its
        // features are the seed's, constant input included.
        let feats = group_features(
            py,
            &batch,
            &plan,
            Aggregate::Batch,
            Normalize::None,
            false,
            true,
        )?;
        let [f] = feats.as_slice() else {
            return Err(PyRuntimeError::new_err(format!(
                "internal: {} groups for one batch",
                feats.len()
            )));
        };
        seed_dict(py, f)
    }

    /// Pickled (and deep-copied with a model) as its settings.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, pyo3::types::PyType>, (String, usize, String))> {
        let s = slf.get().settings;
        Ok((
            slf.get_type(),
            (s.wavelet.name.clone(), s.level, s.mode.to_string()),
        ))
    }

    fn __repr__(&self) -> String {
        let s = self.settings;
        format!(
            "Transform(wavelet={:?}, level={}, mode={:?})",
            s.wavelet.name,
            s.level,
            s.mode.to_string()
        )
    }
}

/// The seed's feature dict of one group's features.
fn seed_dict<'py>(py: Python<'py>, f: &Features) -> PyResult<Bound<'py, PyDict>> {
    let f32s = |v: &[f64]| PyArray1::from_vec(py, v.iter().map(|&x| x as f32).collect());
    let d = PyDict::new(py);
    d.set_item(intern!(py, "energy_ratio"), f32s(&f.energy_ratio))?;
    d.set_item(intern!(py, "energy_entropy"), f.energy_entropy)?;
    d.set_item(intern!(py, "dominant_band"), f.dominant_band)?;
    d.set_item(intern!(py, "dominant_energy"), f.dominant_energy)?;
    d.set_item(intern!(py, "freq_pattern"), &f.freq_pattern)?;
    d.set_item(intern!(py, "trends"), f32s(&f.trends))?;
    d.set_item(
        intern!(py, "trends_sign"),
        PyArray1::from_vec(py, f.trends_sign.iter().map(|&v| v as i32).collect()),
    )?;
    d.set_item(intern!(py, "trend_consistency"), f.trend_consistency)?;
    d.set_item(intern!(py, "trend_desc"), &f.trend_desc)?;
    d.set_item(intern!(py, "frequency_stds"), f32s(&f.band_stds))?;
    d.set_item(
        intern!(py, "signal_std"),
        f.band_stds.first().copied().unwrap_or(0.0),
    )?;
    d.set_item(
        intern!(py, "noise_std"),
        f.band_stds.last().copied().unwrap_or(0.0),
    )?;
    d.set_item(intern!(py, "snr_db"), f.snr_db)?;
    d.set_item(intern!(py, "volatility_ratio"), f.volatility_ratio)?;
    d.set_item(intern!(py, "stability_desc"), &f.stability_desc)?;
    d.set_item(intern!(py, "signal_quality"), &f.signal_quality)?;
    d.set_item(intern!(py, "difficulty"), &f.difficulty)?;
    // Not in the seed's dict, but what its prompt needs when base_info is built from it.
    d.set_item(intern!(py, "difficulty_score"), f.difficulty_score)?;
    Ok(d)
}

/// A value of the seed's feature dict or base_info, converted as `build_prompt_text` did
/// in Python (`float(v)`, `int(v)`, `str(v)`, lists from arrays, tensors or sequences);
/// errors name the dict and key.
struct Entries<'a, 'py> {
    name: &'static str,
    map: &'a Bound<'py, PyAny>,
    /// The keys a missing one is reported with: every one of them that is missing.
    required: &'static [&'static str],
}

/// A key of the dict, made once per process (`intern!`): a `&str` key was a new Python
/// string per lookup.
type Key<'a, 'py> = &'a Bound<'py, PyString>;

impl<'py> Entries<'_, 'py> {
    fn get(&self, key: Key<'_, 'py>) -> PyResult<Bound<'py, PyAny>> {
        self.map.get_item(key).map_err(|_| {
            let missing: Vec<&str> = self
                .required
                .iter()
                .copied()
                .filter(|k| self.map.get_item(k).is_err())
                .collect();
            match missing.as_slice() {
                [] => value_error(format!("{} lacks '{key}'", self.name)),
                _ => value_error(format!("{} lacks {}", self.name, missing.join(", "))),
            }
        })
    }

    fn bad(&self, key: Key<'_, 'py>, e: PyErr) -> PyErr {
        value_error(format!("{}['{key}']: {e}", self.name))
    }

    fn float(&self, key: Key<'_, 'py>) -> PyResult<f64> {
        let v = self.get(key)?;
        v.extract::<f64>().map_err(|e| self.bad(key, e))
    }

    /// `float(v)` when the key is there, else `default`.
    fn float_or(&self, key: Key<'_, 'py>, default: f64) -> PyResult<f64> {
        match self.map.get_item(key) {
            Ok(v) => v.extract::<f64>().map_err(|e| self.bad(key, e)),
            Err(_) => Ok(default),
        }
    }

    fn int<T: TryFrom<i64>>(&self, key: Key<'_, 'py>) -> PyResult<T> {
        let v = self.get(key)?;
        int_of(&v).map_err(|e| self.bad(key, e))
    }

    /// `str(v)`; a str as it is.
    fn text(&self, key: Key<'_, 'py>) -> PyResult<String> {
        let v = self.get(key)?;
        match v.cast::<PyString>() {
            Ok(t) => Ok(t.to_cow()?.into_owned()),
            Err(_) => Ok(v.str()?.to_cow()?.into_owned()),
        }
    }

    fn floats(&self, key: Key<'_, 'py>) -> PyResult<Vec<f64>> {
        let v = self.get(key)?;
        let items = || -> PyResult<Vec<f64>> {
            // A list item by item, tried first (see `ints`).
            if let Ok(list) = v.cast::<PyList>() {
                return list.iter().map(|x| x.extract()).collect();
            }
            if let Ok(a) = v.extract::<numpy::PyReadonlyArray1<'py, f32>>() {
                return Ok(a.as_array().iter().map(|&x| x as f64).collect());
            }
            if let Ok(a) = v.extract::<numpy::PyReadonlyArray1<'py, f64>>() {
                return Ok(a.as_array().to_vec());
            }
            v.try_iter()?.map(|x| x?.extract()).collect()
        };
        items().map_err(|e| self.bad(key, e))
    }

    fn ints<T: TryFrom<i64>>(&self, key: Key<'_, 'py>) -> PyResult<Vec<T>> {
        let v = self.get(key)?;
        let whole =
            |i: i64| T::try_from(i).map_err(|_| value_error(format!("{i} is out of range")));
        let items = || -> PyResult<Vec<T>> {
            // A list (base_info's lags) item by item, tried first: a failed array
            // extraction makes an error, and a general iterator asks Python for a length
            // hint, a call of its own (together a quarter of a prompt).
            if let Ok(list) = v.cast::<PyList>() {
                return list.iter().map(|x| int_of(&x)).collect();
            }
            // The seed's trends_sign (int32) and lags (int64) arrays without an item each.
            if let Ok(a) = v.extract::<numpy::PyReadonlyArray1<'py, i32>>() {
                return a.as_array().iter().map(|&i| whole(i.into())).collect();
            }
            if let Ok(a) = v.extract::<numpy::PyReadonlyArray1<'py, i64>>() {
                return a.as_array().iter().map(|&i| whole(i)).collect();
            }
            v.try_iter()?.map(|x| int_of(&x?)).collect()
        };
        items().map_err(|e| self.bad(key, e))
    }
}

/// `int(v)` (numpy and torch scalars, floats) as a `T`.
fn int_of<T: TryFrom<i64>>(v: &Bound<'_, PyAny>) -> PyResult<T> {
    let i = match v.extract::<i64>() {
        Ok(i) => i,
        Err(_) => v
            .py()
            .get_type::<pyo3::types::PyInt>()
            .call1((v,))?
            .extract()?,
    };
    T::try_from(i).map_err(|_| value_error(format!("{i} is out of range")))
}

/// The seed's `build_prompt_text(features, base_info)` with a built-in `dwt-*` template:
/// the feature dict `gen(x)` returns (its keys) and base_info's min, max, median, lags,
/// description, seq_len, pred_len, read here rather than rebuilt as a dict in Python.
#[pyfunction]
fn seed_prompt(
    py: Python<'_>,
    template: &str,
    features: &Bound<'_, PyAny>,
    base_info: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let p = prompt::builtin_prompter(template)
        .ok_or_else(|| value_error(format!("no built-in template '{template}'")))?;
    let base = Entries {
        name: "base_info",
        map: base_info,
        required: &[
            "min",
            "max",
            "median",
            "lags",
            "description",
            "seq_len",
            "pred_len",
        ],
    };
    let f = Entries {
        name: "features",
        map: features,
        required: &[],
    };
    let feats = Features {
        degenerate: None,
        energy_ratio: f.floats(intern!(py, "energy_ratio"))?.into(),
        energy_entropy: f.float(intern!(py, "energy_entropy"))?,
        dominant_band: f.int(intern!(py, "dominant_band"))?,
        dominant_energy: f.float(intern!(py, "dominant_energy"))?,
        freq_pattern: f.text(intern!(py, "freq_pattern"))?.into(),
        trends: f.floats(intern!(py, "trends"))?.into(),
        trends_sign: f.ints::<i8>(intern!(py, "trends_sign"))?.into(),
        trend_consistency: f.float(intern!(py, "trend_consistency"))?,
        trend_desc: f.text(intern!(py, "trend_desc"))?.into(),
        band_stds: f.floats(intern!(py, "frequency_stds"))?.into(),
        snr_db: f.float(intern!(py, "snr_db"))?,
        volatility_ratio: f.float(intern!(py, "volatility_ratio"))?,
        stability_desc: f.text(intern!(py, "stability_desc"))?.into(),
        signal_quality: f.text(intern!(py, "signal_quality"))?.into(),
        // Not printed by the dwt-* templates; the seed's dict has no such key.
        difficulty_score: f.float_or(intern!(py, "difficulty_score"), 0.0)?,
        difficulty: f.text(intern!(py, "difficulty"))?.into(),
        min: base.float(intern!(py, "min"))?,
        max: base.float(intern!(py, "max"))?,
        median: base.float(intern!(py, "median"))?,
        trend: base.float_or(intern!(py, "trend"), 0.0)?,
        lags: base.ints::<usize>(intern!(py, "lags"))?.into(),
        lags_clean: Default::default(),
    };
    let description = base.text(intern!(py, "description"))?;
    p.render(&PromptVars {
        features: &feats,
        description: &description,
        seq_len: base.int(intern!(py, "seq_len"))?,
        pred_len: base.int(intern!(py, "pred_len"))?,
    })
    .map_err(|e| value_error(e.to_string()))
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

#[pymodule]
fn _wavebench(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Transform>()?;
    m.add_function(wrap_pyfunction!(features, m)?)?;
    m.add_function(wrap_pyfunction!(seed_prompt, m)?)?;
    m.add_function(wrap_pyfunction!(timellm_prompts, m)?)?;
    m.add("TOP_LAGS", TOP_LAGS)?;
    Ok(())
}

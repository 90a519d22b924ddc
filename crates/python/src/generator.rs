//! The DWTPromptGenerator drop-in (the seed, docs/seed.md): its feature dict, and its prompt
//! from such a dict.

use crate::arrays::value_error;
use numpy::PyArray1;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use wavebench_core::features::Features;
use wavebench_core::prompt::{self, PromptVars};

/// The seed's feature dict of one group's features.
pub(crate) fn generator_dict<'py>(py: Python<'py>, f: &Features) -> PyResult<Bound<'py, PyDict>> {
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
pub(crate) struct Entries<'a, 'py> {
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
pub(crate) fn int_of<T: TryFrom<i64>>(v: &Bound<'_, PyAny>) -> PyResult<T> {
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
pub(crate) fn generator_prompt(
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

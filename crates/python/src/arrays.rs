//! Arrays in: a numpy array of shape (B, N, T), float32 or float64, read in place, and
//! handed to the core's `rows` path as rows with the GIL released.

use numpy::ndarray::{s, ArrayView3, Axis, Ix3};
use numpy::PyReadonlyArrayDyn;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use wavebench_core::engine::Real;
use wavebench_core::rows::{Rows, RowsError};

/// `x` as read: a float32 or float64 array of shape (B, N, T), borrowed from numpy (a CPU
/// tensor's memory too) for the length of the call.
pub(crate) enum Data<'py> {
    F32(PyReadonlyArrayDyn<'py, f32>),
    F64(PyReadonlyArrayDyn<'py, f64>),
}

pub(crate) struct Batch<'py> {
    pub(crate) data: Data<'py>,
    pub(crate) b: usize,
    pub(crate) n: usize,
    pub(crate) t: usize,
}

pub(crate) fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// A float32 or float64 numpy array (any strides) as a batch; (T,) and (S, T) are
/// (1, 1, T) and (S, 1, T).
pub(crate) fn read<'py>(x: &Bound<'py, PyAny>) -> PyResult<Batch<'py>> {
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
pub(crate) fn view3<'a, T: numpy::Element>(a: &'a PyReadonlyArrayDyn<'_, T>) -> ArrayView3<'a, T> {
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
pub(crate) fn with_rows<T: Real + numpy::Element, R>(
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
pub(crate) fn rows_error(x: &Batch<'_>, e: RowsError) -> PyErr {
    let RowsError::NotFinite { row, sample, value } = e else {
        return PyRuntimeError::new_err(e.to_string());
    };
    value_error(format!(
        "x[{}, {}, {sample}] is {value}: the input must be finite (fill or drop missing values first)",
        row / x.n,
        row % x.n
    ))
}

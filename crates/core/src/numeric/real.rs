//! The two sample types the engines compute in.

use super::memory;
use super::simd::{self, Lane, Vector};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum DType {
    #[default]
    F32,
    F64,
}

crate::names::named! {
    DType, "dtype":
    F32 = "f32" | "float32" | "float",
    F64 = "f64" | "float64" | "double",
}

impl DType {
    /// `v` rounded to this precision (and back).
    #[inline(always)]
    pub fn round(self, v: f64) -> f64 {
        match self {
            DType::F32 => v as f32 as f64,
            DType::F64 => v,
        }
    }
}

/// f32 or f64: what the kernels are generic over, with the SIMD vectors of each width the
/// native kernel runs on.
pub trait Real:
    Lane
    + Send
    + Sync
    + 'static
    + Default
    + PartialOrd
    + fmt::Debug
    + fmt::Display
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + Serialize
{
    const DTYPE: DType;
    const ZERO: Self;
    #[cfg(target_arch = "x86_64")]
    type Avx2: Vector<T = Self>;
    #[cfg(target_arch = "x86_64")]
    type Avx512: Vector<T = Self>;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    /// `x` as f32 samples when `Self` is f32 (for kernels that only have an f32 form).
    fn as_f32s(x: &[Self]) -> Option<&[f32]>;
}

impl Real for f32 {
    const DTYPE: DType = DType::F32;
    const ZERO: Self = 0.0;
    #[cfg(target_arch = "x86_64")]
    type Avx2 = simd::F32x8;
    #[cfg(target_arch = "x86_64")]
    type Avx512 = simd::F32x16;
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn as_f32s(x: &[Self]) -> Option<&[f32]> {
        Some(x)
    }
}

impl Real for f64 {
    const DTYPE: DType = DType::F64;
    const ZERO: Self = 0.0;
    #[cfg(target_arch = "x86_64")]
    type Avx2 = simd::F64x4;
    #[cfg(target_arch = "x86_64")]
    type Avx512 = simd::F64x8;
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn as_f32s(_: &[Self]) -> Option<&[f32]> {
        None
    }
}

/// A batch of equal-length series, row-major, in either precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SeriesRef<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
}

impl<'a> SeriesRef<'a> {
    /// Every value, as f64 (widened exactly, nothing allocated).
    pub fn iter_f64(self) -> impl Iterator<Item = f64> + 'a {
        let (f32s, f64s): (&[f32], &[f64]) = match self {
            SeriesRef::F32(v) => (v, &[]),
            SeriesRef::F64(v) => (&[], v),
        };
        f32s.iter().map(|&x| x as f64).chain(f64s.iter().copied())
    }
    pub fn dtype(&self) -> DType {
        match self {
            SeriesRef::F32(_) => DType::F32,
            SeriesRef::F64(_) => DType::F64,
        }
    }
    pub fn values(&self) -> usize {
        match self {
            SeriesRef::F32(v) => v.len(),
            SeriesRef::F64(v) => v.len(),
        }
    }
    /// Where the samples are, to tell one array from another (e.g. as a cache key).
    pub fn addr(&self) -> usize {
        match self {
            SeriesRef::F32(v) => v.as_ptr() as usize,
            SeriesRef::F64(v) => v.as_ptr() as usize,
        }
    }
}

/// Owned counterpart of [`SeriesRef`].
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Values {
    pub fn as_ref(&self) -> SeriesRef<'_> {
        match self {
            Values::F32(v) => SeriesRef::F32(v),
            Values::F64(v) => SeriesRef::F64(v),
        }
    }
    pub fn len(&self) -> usize {
        self.as_ref().values()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Values::F32(v) => v[i] as f64,
            Values::F64(v) => v[i],
        }
    }
    /// The samples as f64, borrowed where they are f64 already.
    pub fn as_f64(&self) -> std::borrow::Cow<'_, [f64]> {
        match self {
            Values::F32(v) => std::borrow::Cow::Owned(v.iter().map(|&x| x as f64).collect()),
            Values::F64(v) => std::borrow::Cow::Borrowed(v),
        }
    }

    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            Values::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Values::F64(v) => v.clone(),
        }
    }
    pub fn from_f64(values: &[f64], dtype: DType) -> Self {
        match dtype {
            DType::F32 => Values::F32(memory::collect(values, |x| x as f32)),
            DType::F64 => Values::F64(memory::collect(values, |x| x)),
        }
    }
    pub fn dtype(&self) -> DType {
        self.as_ref().dtype()
    }
    /// Rows `r` as f64: borrowed when stored so, else widened (exactly).
    pub fn rows_f64(&self, r: std::ops::Range<usize>) -> std::borrow::Cow<'_, [f64]> {
        match self {
            Values::F64(v) => std::borrow::Cow::Borrowed(&v[r]),
            Values::F32(v) => std::borrow::Cow::Owned(v[r].iter().map(|&x| x as f64).collect()),
        }
    }
    /// Rows `r` in the stored precision.
    pub fn rows(&self, r: std::ops::Range<usize>) -> SeriesRef<'_> {
        match self {
            Values::F32(v) => SeriesRef::F32(&v[r]),
            Values::F64(v) => SeriesRef::F64(&v[r]),
        }
    }
    /// Every value, as f64.
    pub fn iter_f64(&self) -> impl Iterator<Item = f64> + '_ {
        self.as_ref().iter_f64()
    }
    /// Replace every value by `f(value)` in the stored precision.
    pub fn map_in_place(&mut self, f: impl Fn(f64) -> f64) {
        match self {
            Values::F32(v) => v.iter_mut().for_each(|x| *x = f(*x as f64) as f32),
            Values::F64(v) => v.iter_mut().for_each(|x| *x = f(*x)),
        }
    }
    /// Keep the rows where `keep` is true.
    pub fn retain_rows(&mut self, keep: &[bool]) {
        fn pick<T: Copy>(v: &[T], keep: &[bool]) -> Vec<T> {
            v.iter()
                .zip(keep)
                .filter(|(_, &k)| k)
                .map(|(&x, _)| x)
                .collect()
        }
        *self = match self {
            Values::F32(v) => Values::F32(pick(v, keep)),
            Values::F64(v) => Values::F64(pick(v, keep)),
        };
    }
}

impl From<Vec<f64>> for Values {
    fn from(v: Vec<f64>) -> Self {
        Values::F64(v)
    }
}

impl From<Vec<f32>> for Values {
    fn from(v: Vec<f32>) -> Self {
        Values::F32(v)
    }
}

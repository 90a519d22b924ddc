//! The numeric foundation everything else stands on: the precision (`DType`, the `Real`
//! trait over f32/f64 and their SIMD vectors), instruction-set dispatch (`simd`), big
//! buffers (`memory`), order statistics (`select`), lane-wise sums (`sums`) and small
//! jobs split over threads (`parallel`). It imports nothing from the rest of the crate;
//! `engine`, `stats`, `features` and `data` import it.

pub mod memory;
pub mod parallel;
pub mod real;
pub mod select;
pub mod simd;
pub mod sums;

pub use real::{DType, Real, SeriesRef, Values};

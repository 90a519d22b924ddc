//! wavebench-core: the numeric heart of wavebench, with no UI, no file formats and no
//! libtorch. The 106 pywt wavelets, the native engine (forward and inverse transforms,
//! fused band moments and statistics), features (docs/features.md), prompts, the pipeline over
//! windows, a batch held as rows (the wheel's path), and the timing of its stages. The
//! app/CLI crate (polars, egui, tch) and the Python wheel both build on it.
//!
//! "The seed", throughout, is the Python prompt generator this project reproduces: SWT-Time's
//! `DWTPromptGenerator` (docs/seed.md).

pub mod config;
pub mod data;
pub mod engine;
pub mod features;
pub mod names;
pub mod numeric;
pub mod pipeline;
pub mod prompt;
pub mod rows;
pub mod run_spec;
pub mod score;
pub mod stats;
pub mod suggest;
pub mod timing;
pub mod transform;
pub mod wavelet;

pub use numeric::sums;

#[cfg(test)]
pub(crate) mod testing;

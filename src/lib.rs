//! wavebench: multilevel wavelet features and LLM prompts from time series, on the GPU
//! (libtorch) or the CPU. See ARCHITECTURE.md for the map of the rooms below.

pub mod app;
pub mod band_table;
pub mod cli;
pub mod config;
pub mod data;
pub mod diff;
pub mod engine;
pub mod export;
pub mod features;
pub mod npy;
pub mod pipeline;
pub mod prompt;
pub mod run_spec;
pub mod stats;
pub mod suggest;
pub mod sums;
pub mod sweep;
pub mod timing;
pub mod wavelet;

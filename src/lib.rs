//! wavebench: multilevel wavelet features and LLM prompts from time series, on the GPU
//! (libtorch) or the CPU. See ARCHITECTURE.md for the map of the rooms below.
//!
//! The numeric core (wavelets, native engine, features, prompts, pipeline) is the
//! `wavebench-core` crate, re-exported here under the same paths; this crate adds what
//! needs polars, egui or libtorch: file I/O, the torch engines, the CLI and the app.

pub mod app;
pub mod backend;
pub mod band_table;
pub mod cli;
pub mod config;
pub mod data;
pub mod diff;
pub mod engine;
pub mod export;
pub mod npy;
pub mod sweep;
pub mod variants;

pub use wavebench_core::{features, pipeline, prompt, stats, suggest, sums, timing, wavelet};

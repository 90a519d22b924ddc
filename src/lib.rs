//! wavebench: multilevel wavelet features and LLM prompts from time series, on the GPU
//! (libtorch) or the CPU. See ARCHITECTURE.md for the map of the rooms below.
//!
//! The numeric core (wavelets, native engine, features, prompts, the run specification and
//! pipeline) is the `wavebench-core` crate, imported as `wavebench_core::…` wherever it is
//! meant; this crate adds what needs polars, egui or libtorch: file I/O, the torch
//! engines, the CLI and the app. The sweep is the `wavebench-sweep` crate (no polars, UI
//! or libtorch either), re-exported here as `sweep`.

pub mod app;
pub mod backend;
pub mod band_table;
pub mod cli;
pub mod data;
pub mod engine;
pub mod export;
pub mod npy;
pub mod timing_report;
pub mod variants;

// The sweep, the error type and the run configuration's TOML are shared with the Python
// wheel from their own crate; here under their old names.
pub use wavebench_sweep as sweep;
pub use wavebench_sweep::{config, error};

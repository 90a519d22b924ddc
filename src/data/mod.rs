//! Data in: files (polars) → the core's [`Table`]. Everything about a table once it is in
//! memory (time axis, windows, missing values, normalisation) lives in `wavebench_core::data`.

mod axis;
mod dataset;
mod format;
mod load;

pub use dataset::DataSet;
pub use load::{load, Format};

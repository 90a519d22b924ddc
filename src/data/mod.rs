//! Data in: files (polars) → the core's [`Table`]. Everything about a table once it is in
//! memory (time axis, windows, missing values, normalisation) lives in `wavebench_core::data`.

mod axis;
mod load;

pub use load::{load, Format};
pub use wavebench_files::DataSet;

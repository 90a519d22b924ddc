//! Data files without polars: what a file is ([`format`]: its format, its text checks),
//! what an input names ([`DataSet`]: one file, a folder, a glob), the rules that make a
//! file's columns a [`Table`](wavebench_core::data::Table) whichever reader holds them
//! ([`table`], [`cells`], [`axis`]), and [`plain_csv`], the reader of the Python wheel,
//! which must not carry polars (it would add minutes to every build of the wheel).

pub mod axis;
pub mod cells;
mod dataset;
pub mod format;
pub mod plain_csv;
pub mod table;

pub use dataset::DataSet;
pub use format::{detect_format, Format};
pub use plain_csv::PLAIN_FILES;

//! The data a sweep reads: every file of the input (one file, a folder, a glob), each under
//! its name in the set, loaded by a front end's backend (polars in the CLI and the app, the
//! plain CSV reader in the wheel) in f64 with the run's columns, missing values and time
//! axis.

use crate::error::Result;
use std::path::Path;
use wavebench_core::config::Config;
use wavebench_core::data::Table;
use wavebench_core::engine::DType;
use wavebench_core::run_spec::{Backend, Purpose, RunSpec};
use wavebench_files::DataSet;

/// Every file of the data set at `path` with its name in the set, loaded as `base` says;
/// each table carries its warnings for the front end to show.
pub fn load(
    path: &Path,
    base: &Config,
    backend: &'static dyn Backend,
) -> Result<Vec<(String, Table)>> {
    let loader = RunSpec::new(
        Config {
            dtype: DType::F64,
            ..base.clone()
        },
        Purpose::Features,
        backend,
    )?;
    let set = DataSet::resolve(path)?;
    let mut tables = Vec::with_capacity(set.files.len());
    for f in &set.files {
        tables.push((set.file_name(path, f), loader.load(f)?));
    }
    Ok(tables)
}

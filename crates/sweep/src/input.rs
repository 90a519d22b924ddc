//! The data a sweep reads: every file of the input (one file, a folder, a glob), each under
//! its name in the set, loaded by a front end's backend (polars in the CLI and the app, the
//! plain CSV reader in the wheel) in f64 with the run's columns, missing values and time
//! axis.

use crate::error::{Error, Result};
use std::path::Path;
use wavebench_core::config::Config;
use wavebench_core::data::{DataError, Table, Windows};
use wavebench_core::engine::DType;
use wavebench_core::run_spec::{Backend, Purpose, RunSpec};
use wavebench_files::DataSet;

/// A data set's tables, each under its name in the set, and the files skipped as bad.
pub struct Loaded {
    pub tables: Vec<(String, Table)>,
    /// With `--skip-bad-files` in a data set: each file that could not be read or holds
    /// no window, and why (naming it), for the front end to say.
    pub skipped: Vec<Error>,
}

/// Every file of the data set at `path` with its name in the set, loaded as `base` says;
/// each table carries its warnings for the front end to show. With `--skip-bad-files`, a
/// file of a data set that cannot be read or holds no window is skipped, for the front
/// end to say before it takes the tables ([`Loaded::usable`]).
pub fn load(path: &Path, base: &Config, backend: &'static dyn Backend) -> Result<Loaded> {
    let loader = RunSpec::new(
        Config {
            dtype: DType::F64,
            ..base.clone()
        },
        Purpose::Features,
        backend,
    )?;
    let set = DataSet::resolve(path)?;
    let skip = base.skip_bad_files && set.is_set;
    let mut loaded = Loaded {
        tables: Vec::with_capacity(set.files.len()),
        skipped: Vec::new(),
    };
    for f in &set.files {
        let name = set.file_name(path, f);
        if !skip {
            loaded.tables.push((name, loader.load(f)?));
            continue;
        }
        match loader
            .load(f)
            .and_then(|t| holds_a_window(&t, base).map(|()| t))
        {
            Ok(t) => loaded.tables.push((name, t)),
            Err(e) => {
                // Every skip names its file, also where the error names only an option.
                let shown = f.display().to_string();
                let e = Error::from(e);
                let named = if e.to_string().starts_with(&shown) {
                    e
                } else {
                    e.within(&shown)
                };
                loaded.skipped.push(named);
            }
        }
    }
    Ok(loaded)
}

impl Loaded {
    /// The tables, once the front end has said what was skipped: a data set whose every
    /// file was skipped is refused (`path` names it).
    pub fn usable(self, path: &Path) -> Result<Vec<(String, Table)>> {
        if self.tables.is_empty() && !self.skipped.is_empty() {
            return Err(Error::input(format!(
                "{}: every file was skipped as bad (--skip-bad-files), so there is nothing to sweep",
                path.display()
            )));
        }
        Ok(self.tables)
    }
}

/// Whether `table` holds a window of the run's rows, length and stride (the sweep's
/// transform varies, so no level is checked here).
fn holds_a_window(table: &Table, base: &Config) -> std::result::Result<(), DataError> {
    Windows::new(table.rows(), base.rows, base.seq_len, base.stride)
        .map(|_| ())
        .map_err(|e| e.within(&table.path.display().to_string()))
}

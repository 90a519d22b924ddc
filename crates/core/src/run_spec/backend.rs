//! What a run is read through: the [`Backend`] (files and engines the core cannot make
//! itself), the core's own native-only one, and [`load`], the one way a table is made.

use crate::data::{self, DataError, Missing, Table, TimeColumn};
use crate::engine::{DType, EngineKind, Selected};
use std::path::Path;

/// What the core cannot do itself: read a file (the application crate does it with
/// polars) and build engines other than the native one (libtorch).
pub trait Backend: Send + Sync + std::fmt::Debug {
    /// One file as a table, with these columns, time axis and precision.
    fn load(&self, path: &Path, options: &LoadOptions) -> Result<Table, DataError>;
    /// The engine for `kind`, and why it is not the one asked for, if it is not.
    fn engine(&self, kind: EngineKind) -> Selected;
}

/// The core's own backend, the Python wheel's: arrays come in memory (no files), and
/// every engine is the native one.
#[derive(Debug)]
pub struct NativeOnly;

pub static NATIVE_ONLY: NativeOnly = NativeOnly;

impl Backend for NativeOnly {
    fn load(&self, path: &Path, _: &LoadOptions) -> Result<Table, DataError> {
        data::err(format!(
            "{}: this build reads arrays, not files",
            path.display()
        ))
    }
    fn engine(&self, kind: EngineKind) -> Selected {
        let notice = matches!(kind, EngineKind::TorchCpu | EngineKind::TorchCuda).then(|| {
            format!(
                "{}: not in this build; using the native CPU engine",
                kind.name()
            )
        });
        Selected {
            notice,
            ..Selected::native()
        }
    }
}

/// One file through `backend`, then the missing-value policy: how every table of a run
/// (and the app's, which loads before it has a run) is made.
pub fn load(backend: &dyn Backend, path: &Path, options: &LoadOptions) -> Result<Table, DataError> {
    let mut table = backend.load(path, options)?;
    options.missing.apply(&mut table)?;
    Ok(table)
}

/// What a file is read with: the run's columns, time axis, missing-value policy and
/// precision.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadOptions {
    /// Only these columns (in this order); all numeric columns when None.
    pub columns: Option<Vec<String>>,
    /// Refuse text cells (`error`) or read them as missing values.
    pub missing: Missing,
    pub time_column: TimeColumn,
    /// The precision numbers are parsed to and kept in: f32 for f32 runs (half the
    /// memory, and each decimal rounded once, straight to f32), f64 otherwise.
    pub dtype: DType,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            columns: None,
            missing: Missing::default(),
            time_column: TimeColumn::default(),
            dtype: DType::F64,
        }
    }
}

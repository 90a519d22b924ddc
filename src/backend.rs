//! The application's [`Backend`] for runs: files read through polars, and the libtorch
//! engines beside the native one. Every run the CLI, the app and the tests build is
//! `RunSpec::new(cfg, purpose, &LOCAL)`.

use crate::data;
use std::path::Path;
use wavebench_core::data::{DataError, Table};
use wavebench_core::engine::{EngineKind, Selected};
use wavebench_core::run_spec::{Backend, LoadOptions};

/// Polars for files, libtorch for the torch engines.
#[derive(Debug)]
pub struct Local;

pub static LOCAL: Local = Local;

impl Backend for Local {
    fn load(&self, path: &Path, options: &LoadOptions) -> Result<Table, DataError> {
        data::load(path, options)
    }
    fn engine(&self, kind: EngineKind) -> Selected {
        crate::engine::select(kind)
    }
}

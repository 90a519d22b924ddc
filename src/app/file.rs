//! The data file the app reads: the newest load asked for and where it stands, the table
//! it gave, the choices it was read with, and the settings that came back for it.

use super::latest::Latest;
use super::state::DataSettings;
use std::path::PathBuf;
use std::sync::Arc;
use wavebench_core::data::Table;
use wavebench_core::run_spec::LoadOptions;

#[derive(Default)]
pub(super) struct OpenFile {
    /// The newest load (a load in flight holds back inspections), of the path opened.
    pub latest: Latest<PathBuf>,
    pub state: LoadState,
    /// The table the last load gave (kept while a reload with other choices runs).
    pub table: Option<Arc<Table>>,
    /// How the table was loaded (missing values, time axis): a change reloads it.
    pub options: LoadOptions,
    /// The settings that came back for the file being opened, checked against its
    /// header once loaded (`Settings::loaded`).
    pub recalled: Option<DataSettings>,
}

/// Where the newest load stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) enum LoadState {
    /// Nothing asked for yet.
    #[default]
    Idle,
    Loading,
    Loaded,
    /// The load failed: why, as the status line says it.
    Failed(String),
}

impl OpenFile {
    /// A load is in flight: the table is about to be replaced.
    pub fn loading(&self) -> bool {
        self.state == LoadState::Loading
    }
}

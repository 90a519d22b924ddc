//! Data-set-wide work (sweep, the proposals' timing, exports): one job at a time, on its
//! own thread, with progress and cancel; the shell polls its answer (`replies.rs`).

use super::state::Settings;
use super::worker::JobKind;
use super::Workbench;
use std::sync::Arc;
use wavebench_core::data::Table;

impl Workbench {
    /// Start a data-set-wide job (one at a time).
    pub(super) fn start(
        &mut self,
        what: &str,
        kind: impl FnOnce(Arc<Table>, Box<Settings>) -> JobKind,
    ) {
        let Some(table) = self.table.clone() else {
            self.status = format!("{what}: open a data file first");
            return;
        };
        if self.job.is_some() {
            self.status = format!("{what}: wait for the running job to finish");
            return;
        }
        self.status = format!("{what} ...");
        self.job = Some(
            self.worker
                .start(what, kind(table, Box::new(self.settings.clone()))),
        );
    }

    /// Score every wavelet × level over the data set in the background.
    pub fn start_sweep(&mut self) {
        let split = self.sweep_view.split;
        self.start("sweep", |table, settings| JobKind::Sweep {
            table,
            settings,
            split,
        });
    }

    /// Measure the switched-on proposals beside the baseline in the background.
    pub fn start_proposals(&mut self) {
        if self.job.is_some() {
            return;
        }
        let chosen = self.timing_view.chosen();
        self.start("proposal timing", |table, settings| JobKind::Variants {
            table,
            settings,
            chosen,
            report: None,
        });
    }

    pub fn cancel_job(&mut self) {
        if let Some(j) = &self.job {
            j.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    pub fn job_running(&self) -> bool {
        self.job.is_some()
    }
}

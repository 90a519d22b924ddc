//! The conversation with the worker: requests when a knob moved, and each reply routed to
//! what it answers (stale generations dropped).

use super::error::said;
use super::file::LoadState;
use super::messages::{Reply, Slot, WorkRequest};
use super::Workbench;
use std::path::PathBuf;

impl Workbench {
    /// Take every reply the worker has sent and put it where it belongs.
    pub(super) fn poll(&mut self) {
        while let Some(reply) = self.worker.try_recv() {
            match reply {
                Reply::Loaded { gen, path, table } if self.file.latest.is_current(gen) => {
                    self.loaded(path, table)
                }
                Reply::Inspected {
                    gen,
                    slot: Slot::Compare,
                    result,
                    ..
                } => {
                    if let Some(c) = self
                        .compare
                        .as_mut()
                        .filter(|c| c.inspection.is_current(gen))
                    {
                        c.result = result.ok();
                    }
                }
                Reply::Inspected {
                    gen,
                    slot: Slot::Main,
                    result,
                    notice,
                } if self.window.latest.is_current(gen) => self.inspected(result, notice),
                Reply::JobDone { what, result } => {
                    self.job = None;
                    let line = self.views.job_done(&what, result);
                    self.status.say(line);
                }
                Reply::Failed { gen, error } if self.file.latest.is_current(gen) => {
                    let why = said(&error);
                    self.file.state = LoadState::Failed(why.clone());
                    self.window.busy = false;
                    self.status.say(why);
                }
                Reply::Surveyed { gen, result } if self.survey.latest.is_current(gen) => {
                    self.views.dataset.computing = false;
                    // Thinned for a big file: a finer survey next, while the pane is shown.
                    if let Some(table) = &self.file.table {
                        let s = &self.settings;
                        self.survey.answered(
                            table.rows(),
                            s.seq_len(),
                            table.channels.len(),
                            s.run.stride,
                        );
                    }
                    self.views.dataset.survey = Some(result.map(|s| *s).map_err(|e| said(&e)));
                }
                _ => {} // an answer to a request that a newer one replaced
            }
        }
    }

    /// The file at `path` loaded: its line said, the settings recalled for it checked
    /// against its columns, and every question asked of the new table again.
    fn loaded(&mut self, path: PathBuf, table: std::sync::Arc<wavebench_core::data::Table>) {
        self.file.state = LoadState::Loaded;
        let mut line = format!(
            "{}: {} rows × {} channels",
            path.display(),
            table.rows(),
            table.channels.len()
        );
        if let Some(w) = table.warnings.first() {
            line = format!(
                "{line} ({} warning{}: {w})",
                table.warnings.len(),
                if table.warnings.len() == 1 { "" } else { "s" }
            );
        }
        self.status.loaded(line);
        self.settings.file = Some(path);
        if let Some(back) = self.file.recalled.take() {
            let names: Vec<String> = table.channels.iter().map(|c| c.name.clone()).collect();
            self.settings.loaded(&back, &names);
        }
        self.settings.channel = self.settings.channel.min(table.channels.len() - 1);
        self.file.table = Some(table);
        // A new table: every question is asked of it again.
        self.window.latest.forget();
        if let Some(c) = self.compare.as_mut() {
            c.inspection.forget();
        }
        self.window.busy = false;
    }

    /// The current window's inspection came back: shown, or why not said in its place.
    fn inspected(
        &mut self,
        result: crate::error::Result<Box<wavebench_core::pipeline::Inspection>>,
        notice: Option<String>,
    ) {
        self.window.busy = false;
        match result {
            Ok(r) => {
                self.views.timing.record(&r);
                self.window.result = Some(r);
                // A valid change clears the error it fixed.
                self.status.answered();
                if let Some(n) = notice {
                    self.status.say(n);
                }
            }
            Err(e) => {
                // The panes say why instead of showing another setting's result.
                self.status.failed(said(&e));
                self.window.result = None;
            }
        }
    }

    /// Ask for the current window again when any knob moved since the last request.
    pub(super) fn request_if_changed(&mut self) {
        let Some(table) = &self.file.table else {
            return;
        };
        if self.file.loading() {
            return; // the table is about to be replaced
        }
        let Some(gen) = self.window.latest.ask(self.settings.clone()) else {
            return;
        };
        self.window.busy = true;
        self.worker.send(WorkRequest::Inspect {
            gen,
            slot: Slot::Main,
            settings: Box::new(self.settings.clone()),
            table: table.clone(),
        });
    }

    /// Survey the data set again (the Data set pane, when it is shown) when a knob that
    /// shapes it moved: anything but the window shown and the view's switches.
    pub(super) fn request_survey_if_changed(&mut self) {
        let Some(table) = &self.file.table else {
            return;
        };
        if self.file.loading() || !self.survey.shown {
            return;
        }
        let mut key = super::state::Settings {
            window: 0,
            raw_coefficients: false,
            dark_theme: false,
            ..self.settings.clone()
        };
        let base = (key.clone(), self.settings.split);
        let (rows, channels) = (table.rows(), table.channels.len());
        let seq_len = key.seq_len();
        let stride = key.run.stride;
        key.run.stride = self.survey.stride(base, rows, seq_len, channels, stride);
        let (settings, split) = (key, self.settings.split);
        let Some(gen) = self.survey.latest.ask((settings.clone(), split)) else {
            return;
        };
        self.views.dataset.thinned =
            (settings.run.stride > stride.max(1)).then_some(settings.run.stride);
        self.views.dataset.computing = true;
        // A new count for each survey: one replaced mid-way cannot move the bar.
        let progress = crate::sweep::Progress::default();
        self.views.dataset.progress = progress.clone();
        self.worker.survey(super::messages::SurveyRequest {
            gen,
            table: table.clone(),
            settings: Box::new(settings),
            split,
            progress,
        });
    }

    /// The same for the compared configuration, which follows the main window and channel.
    pub(super) fn request_compare_if_changed(&mut self) {
        let (Some(table), Some(c)) = (&self.file.table, self.compare.as_mut()) else {
            return;
        };
        let wanted = c.settings_for(&self.settings);
        let Some(gen) = c.inspection.ask(wanted.clone()) else {
            return;
        };
        self.worker.send(WorkRequest::Inspect {
            gen,
            slot: Slot::Compare,
            settings: Box::new(wanted),
            table: table.clone(),
        });
    }
}

impl Workbench {
    /// Load `path` (its remembered settings first, since they say how to load it).
    pub fn open(&mut self, path: PathBuf) {
        // Another file: the current one's settings are kept, and the new one's come back
        // (or its defaults) before it loads, since they say how to load it. The first
        // file of a session takes the settings the app started with.
        if self.settings.file.as_ref().is_some_and(|f| *f != path) {
            let header = self
                .file
                .table
                .as_ref()
                .map(|t| t.channels.iter().map(|c| c.name.clone()).collect());
            let channel = self
                .file
                .table
                .as_ref()
                .and_then(|t| t.channels.get(self.settings.channel))
                .map(|c| c.name.clone());
            self.file.recalled = Some(self.settings.switch_to(&path, header, channel));
            self.file.table = None;
            self.window.result = None;
        }
        let gen = self.file.latest.renew(path.clone());
        self.file.state = LoadState::Loading;
        self.window.busy = true;
        self.status.say(format!("loading {} ...", path.display()));
        self.file.options = self.load_options();
        // Remembered even if the load fails: changing the load choices then retries it.
        self.settings.file = Some(path.clone());
        self.worker.send(WorkRequest::Load {
            gen,
            path,
            options: self.file.options.clone(),
        });
    }

    /// The app loads every column (the channel picker shows them all; exports select).
    pub(super) fn load_options(&self) -> wavebench_core::run_spec::LoadOptions {
        wavebench_core::run_spec::LoadOptions {
            columns: None,
            missing: self.settings.run.missing,
            time_column: self.settings.run.time_column.clone(),
            // f64 whatever the run's dtype: the dtype is a live knob here, and an f64 run
            // must not see samples rounded to f32.
            dtype: wavebench_core::engine::DType::F64,
        }
    }
}

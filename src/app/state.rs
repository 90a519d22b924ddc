//! What the app remembers between sessions (serde, through eframe's storage): the run's
//! configuration — the very type the CLI reads, with its defaults — plus what only the
//! view needs.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use wavebench_core::config::Config;

/// Window length the app starts with when the configuration leaves it to "the whole
/// series" (the app inspects one window at a time; whole 10M-row series would not be
/// interactive).
pub const DEFAULT_APP_WINDOW: usize = 512;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub file: Option<PathBuf>,
    /// The run: what `wavebench` reads from `--config` and "Export configuration" writes.
    /// Its columns and stride shape data-set-wide work (exports, sweep); the view shows
    /// one channel and one window of it.
    pub run: Config,
    pub channel: usize,
    pub window: usize,
    /// The template editor's text (starts as the chosen built-in; "custom" once edited).
    pub template_text: String,
    /// Plot raw coefficients instead of the per-band reconstruction.
    pub raw_coefficients: bool,
    pub dark_theme: bool,
}

impl Default for Settings {
    fn default() -> Self {
        let run = Config {
            seq_len: Some(DEFAULT_APP_WINDOW),
            ..Config::default()
        };
        Settings {
            file: None,
            template_text: wavebench_core::prompt::builtin(&run.template)
                .unwrap_or_default()
                .to_string(),
            run,
            channel: 0,
            window: 0,
            raw_coefficients: false,
            dark_theme: true,
        }
    }
}

impl Settings {
    /// The window length shown (the configuration's, or the app's default).
    pub fn seq_len(&self) -> usize {
        self.run.seq_len.unwrap_or(DEFAULT_APP_WINDOW)
    }

    /// The template's name: the built-in's when the editor holds its text unchanged, else
    /// "edited <name>".
    pub fn template_label(&self) -> String {
        match wavebench_core::prompt::builtin(&self.run.template) {
            Some(src) if src == self.template_text => self.run.template.clone(),
            _ => format!("edited {}", self.run.template),
        }
    }

    /// The selected rows as numbers (`0..0` = all).
    pub fn row_bounds(&self) -> (usize, usize) {
        match self.run.row_range() {
            Ok(Some(r)) => (r.start, r.end.unwrap_or(0)),
            _ => (0, 0),
        }
    }

    /// Set the selected rows; `end` 0 = to the end of the file.
    pub fn set_row_bounds(&mut self, start: usize, end: usize) {
        let end = (end > start).then_some(end);
        self.run.rows = (start > 0 || end.is_some())
            .then(|| wavebench_core::data::RowRange { start, end }.to_string());
    }

    /// What a run over the whole data set (an export, the proposals' measurement) runs
    /// with, in words.
    pub fn whole_run_label(&self) -> String {
        let r = &self.run;
        format!(
            "{} level {} {}, windows of {} samples, {} aggregation, {} engine",
            r.wavelet,
            r.level,
            r.mode,
            self.seq_len(),
            r.aggregate,
            r.engine
        )
    }

    /// The configuration the CLI would run (what "export configuration" writes).
    pub fn config(&self) -> Config {
        self.run.clone()
    }
}

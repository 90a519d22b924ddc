//! Compare: a second configuration (B) pinned beside the knobs' (A), on A's data, window
//! and channel. Drawn by `views::compare`.

use super::state::Settings;
use super::Workbench;
use wavebench_core::pipeline::Inspection;

/// Configuration B of the compare view: its own wavelet, level, mode, precision,
/// normalisation and template, on A's data, window and channel.
pub struct Compare {
    pinned: Settings,
    pub result: Option<Box<Inspection>>,
    /// The newest inspection of B's window, for the settings it was asked for.
    pub(super) inspection: super::latest::Latest<Settings>,
}

impl Compare {
    pub fn settings_for(&self, a: &Settings) -> Settings {
        let p = &self.pinned.run;
        Settings {
            run: wavebench_core::config::Config {
                transform: p.transform,
                dtype: p.dtype,
                normalize: p.normalize,
                engine: p.engine,
                template: p.template.clone(),
                ..a.run.clone()
            },
            template_text: self.pinned.template_text.clone(),
            ..a.clone()
        }
    }

    pub fn label(&self) -> String {
        self.pinned.run.transform.to_string()
    }
}

impl Workbench {
    /// Pin the current configuration as B, to compare with whatever A becomes.
    pub fn pin_for_compare(&mut self) {
        self.compare = Some(Compare {
            pinned: self.settings.clone(),
            result: None,
            inspection: Default::default(),
        });
    }

    pub fn compare(&self) -> Option<&Compare> {
        self.compare.as_ref()
    }
}

//! What the app remembers between sessions (serde, through eframe's storage): the run's
//! configuration — the very type the CLI reads, with its defaults — plus what only the
//! view needs; and, per data file, what belongs to that data set (`DataSettings`), so
//! one file's description, channel or window never follows the user into another.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use wavebench_core::config::Config;
use wavebench_core::prompt::TemplateSource;

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
    /// Other files' settings, most recently left first (at most [`REMEMBERED_FILES`]).
    pub remembered: Vec<(PathBuf, DataSettings)>,
    /// The chronological split the sweep and the Data set pane score on (kept as its text:
    /// "0.7,0.1,0.2", "ett-hour").
    #[serde(with = "split_text")]
    pub split: wavebench_core::score::Split,
}

/// A split as the text it is typed and read as.
mod split_text {
    use serde::{Deserialize, Deserializer, Serializer};
    use wavebench_core::score::Split;

    pub fn serialize<S: Serializer>(split: &Split, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(split)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Split, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Files whose settings are remembered.
pub const REMEMBERED_FILES: usize = 32;

/// What belongs to one data file: its run (description, knobs, window length…), the
/// channel by name, the window and the template text. Kept with the file's channel
/// names: a file whose header has changed is another data set and opens on defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DataSettings {
    /// The file's channel names when these settings were left (empty: not known).
    pub header: Vec<String>,
    pub run: Config,
    pub channel: Option<String>,
    pub window: usize,
    pub template_text: String,
}

impl Default for DataSettings {
    /// A file never opened before: the defaults.
    fn default() -> Self {
        let s = Settings::default();
        DataSettings {
            header: Vec::new(),
            run: s.run,
            channel: None,
            window: s.window,
            template_text: s.template_text,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        let run = Config {
            seq_len: Some(DEFAULT_APP_WINDOW),
            ..Config::default()
        };
        Settings {
            file: None,
            template_text: run.template.builtin_text().unwrap_or_default().to_string(),
            run,
            channel: 0,
            window: 0,
            raw_coefficients: false,
            dark_theme: true,
            remembered: Vec::new(),
            split: Default::default(),
        }
    }
}

impl Settings {
    /// Switch to `path`'s settings: the current file's are kept (`header`: its channel
    /// names when loaded, `channel`: the shown channel's name), and `path`'s come back as
    /// it was left, or the defaults for a file never opened. Returns what came back, for
    /// [`Settings::loaded`] to check against the file's header.
    pub fn switch_to(
        &mut self,
        path: &std::path::Path,
        header: Option<Vec<String>>,
        channel: Option<String>,
    ) -> DataSettings {
        if let Some(old) = self.file.take() {
            let header = header
                .or_else(|| self.remembered_for(&old).map(|d| d.header.clone()))
                .unwrap_or_default();
            let left = DataSettings {
                header,
                run: self.run.clone(),
                channel,
                window: self.window,
                template_text: self.template_text.clone(),
            };
            self.remembered.retain(|(p, _)| *p != old);
            self.remembered.insert(0, (old, left));
            self.remembered.truncate(REMEMBERED_FILES);
        }
        let back = self.remembered_for(path).cloned().unwrap_or_default();
        self.apply(&back);
        self.file = Some(path.to_path_buf());
        back
    }

    /// The loaded file's channel names: settings kept under another header belong to
    /// another data set (the defaults replace them); else the channel comes back by name.
    pub fn loaded(&mut self, back: &DataSettings, names: &[String]) {
        if !back.header.is_empty() && back.header != names {
            self.apply(&DataSettings::default());
            return;
        }
        if let Some(name) = &back.channel {
            self.channel = names.iter().position(|n| n == name).unwrap_or(0);
        }
    }

    fn remembered_for(&self, path: &std::path::Path) -> Option<&DataSettings> {
        self.remembered
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, d)| d)
    }

    fn apply(&mut self, d: &DataSettings) {
        self.run = d.run.clone();
        self.window = d.window;
        self.channel = 0;
        self.template_text = d.template_text.clone();
    }

    /// The window length shown (the configuration's, or the app's default).
    pub fn seq_len(&self) -> usize {
        self.run.seq_len.unwrap_or(DEFAULT_APP_WINDOW)
    }

    /// The window length the view computes over a table of `rows` rows: the shown one,
    /// as far as the table holds it (what the level's maximum is checked against).
    pub fn shown_len(&self, rows: usize) -> usize {
        self.seq_len().min(rows).max(1)
    }

    /// The app's start on a run configuration (`gui --config FILE.toml`): its knobs, the
    /// template's text (a built-in's, or the file it names), the first channel and window.
    pub fn of_run(run: Config, file: Option<PathBuf>) -> crate::error::Result<Settings> {
        let template_text = match run.template.builtin_text() {
            Some(text) => text.to_string(),
            None => {
                let path = PathBuf::from(run.template.to_string());
                std::fs::read_to_string(&path)
                    .map_err(|e| crate::error::Error::io(&path, "read", e))?
            }
        };
        Ok(Settings {
            file,
            template_text,
            run,
            ..Settings::default()
        })
    }

    /// The template's name: the built-in's while the editor holds its text unchanged, a
    /// file's path (the text read from it: editing makes the text the editor's), else
    /// "edited <name>".
    pub fn template_label(&self) -> String {
        let source = &self.run.template;
        match source {
            TemplateSource::Builtin(name) if source.builtin_text() == Some(&self.template_text) => {
                name.to_string()
            }
            TemplateSource::File(_) => source.to_string(),
            _ => format!("edited {source}"),
        }
    }

    /// The selected rows as numbers (`0..0` = all).
    pub fn row_bounds(&self) -> (usize, usize) {
        match self.run.rows {
            Some(r) => (r.start, r.end.unwrap_or(0)),
            None => (0, 0),
        }
    }

    /// Set the selected rows; `end` 0 = to the end of the file.
    pub fn set_row_bounds(&mut self, start: usize, end: usize) {
        let end = (end > start).then_some(end);
        self.run.rows =
            (start > 0 || end.is_some()).then_some(wavebench_core::data::RowRange { start, end });
    }

    /// What a run over the whole data set (an export, the proposals' measurement) runs
    /// with, in words.
    pub fn whole_run_label(&self) -> String {
        let r = &self.run;
        format!(
            "{}, windows of {} samples, {} aggregation, {} engine",
            r.transform,
            self.seq_len(),
            r.aggregate,
            r.engine
        )
    }

    /// The configuration the CLI would run (what "export configuration" writes, and what
    /// the app's exports run): every window of the length shown, at the run's stride.
    pub fn config(&self) -> Config {
        Config {
            seq_len: Some(self.seq_len()),
            ..self.run.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavebench_core::transform::Transform;
    use wavebench_core::wavelet::Mode;

    #[test]
    fn settings_survive_a_restart() {
        // eframe keeps them as RON: the transform's keys flattened into each run.
        let mut s = Settings::default();
        s.run.transform = Transform::new("coif3", 4, Mode::Symmetric).unwrap();
        s.run.claims.define("level={{ 1 }}").unwrap();
        s.remembered.push((
            "other.csv".into(),
            DataSettings {
                run: Config {
                    transform: Transform::new("haar", 1, Mode::Zero).unwrap(),
                    ..Config::default()
                },
                ..DataSettings::default()
            },
        ));
        s.split = "ett-hour".parse().unwrap();
        let text = ron::to_string(&s).expect("settings serialise");
        assert!(text.contains("split:\"ett-hour\""), "{text}");
        let back: Settings = ron::from_str(&text).expect("settings deserialise");
        assert_eq!(back, s, "{text}");
        // Settings saved before the split was one of them read with the default.
        let older = text.replace(",split:\"ett-hour\"", "");
        let back: Settings = ron::from_str(&older).expect("older settings deserialise");
        assert_eq!(back.split, Default::default());
    }

    /// A template read from a file (`gui --config` naming one) is labelled by its path in
    /// the sweep's rows and the survey: it said "edited my.jinja" though nothing was
    /// edited (editing makes the text the editor's, "custom").
    #[test]
    fn a_template_file_is_labelled_by_its_path_until_edited() {
        let mut s = Settings::default();
        assert_eq!(s.template_label(), "dwt-balanced");
        s.run.template = wavebench_core::prompt::TemplateSource::from("my.jinja");
        s.template_text = "{{ min }}".into();
        assert_eq!(s.template_label(), "my.jinja");
        s.run.template = wavebench_core::prompt::TemplateSource::Editor;
        assert_eq!(s.template_label(), "edited custom");
        s.run.template = wavebench_core::prompt::TemplateSource::from("timellm");
        assert_eq!(s.template_label(), "edited timellm");
    }
}

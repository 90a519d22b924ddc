//! What can stop the app from running, and errors in the app's words.

use crate::error::Error;
use wavebench_core::names::Opt;

/// Why the app could not run.
#[derive(Debug)]
pub enum AppError {
    /// No window could be opened (no display, no GPU or software renderer).
    Window(String),
    /// The screenshot tour could not take or write a picture.
    Tour(String),
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppError::Window(e) => write!(f, "cannot open the window: {e}"),
            AppError::Tour(e) => write!(f, "the screenshot tour stopped: {e}"),
        }
    }
}

/// An option as the app names it: the label of its control, or where the app takes it
/// from when it has none (the sweep's grid and the protocol's counts are fixed in the app).
pub fn control(option: Opt) -> &'static str {
    match option {
        Opt::Wavelet => "wavelet",
        Opt::Level => "level",
        Opt::Mode => "mode",
        Opt::Rows => "rows",
        Opt::SeqLen => "window length",
        Opt::Stride => "stride",
        Opt::BatchSize => "batch size",
        Opt::Missing => "missing values",
        Opt::Dtype => "precision",
        Opt::Columns => "columns",
        Opt::TimeColumn => "time column",
        Opt::Shard => "shards (on the command line)",
        Opt::Template => "template",
        Opt::PredLen => "prediction length",
        Opt::Split => "split",
        Opt::Wavelets => "the sweep's wavelets",
        Opt::Levels => "the sweep's levels",
        Opt::Modes => "the sweep's modes",
        Opt::NullDraws => "the null's draws",
        Opt::Bootstrap => "the bootstrap's replicates",
        Opt::Claim => "claims you define",
        Opt::Output => "the file chosen",
        Opt::Normalize => "normalization",
        Opt::FitSubsetAbove => "the forecasters' fit subset (on the command line)",
        Opt::Prepared => "a prepared sweep (on the command line)",
    }
}

/// An error in the app's words: its options named as its controls.
pub fn said(e: &Error) -> String {
    e.worded(|o| control(o).to_string())
}

/// The template pane's text did not compile or render.
pub fn in_template(source: wavebench_core::prompt::TemplateError) -> Error {
    Error::Template {
        place: "template".into(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavebench_core::names::OPTION;

    #[test]
    fn every_option_has_a_control_word_of_its_own() {
        let words: Vec<&str> = Opt::ALL.iter().map(|&o| control(o)).collect();
        assert!(words.iter().all(|w| !w.is_empty() && !w.starts_with('-')));
        let mut unique = words.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(
            unique.len(),
            words.len(),
            "two options share a word: {words:?}"
        );
    }

    #[test]
    fn options_become_the_controls_names() {
        let e = Error::about(
            &[Opt::Level, Opt::SeqLen],
            format!("{OPTION}: level 3 is above the maximum level 1 ({OPTION} 20)"),
        );
        assert_eq!(
            said(&e),
            "level: level 3 is above the maximum level 1 (window length 20)"
        );
        let s = Error::from(wavebench_core::score::ScoreError::NoUnits {
            part: "val",
            rows: 97,
            seq_len: 36,
            stride: 1,
            pred_len: 120,
            fix: Some(wavebench_core::score::Fix::PredLen(95)),
        });
        assert_eq!(
            said(&s),
            "prediction length 120: the val part holds 97 rows, so a horizon fits only up to 97 rows: give prediction length 95 or less, or change split"
        );
    }
}

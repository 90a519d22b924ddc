//! What can stop the app from running.

/// Why the app could not run.
#[derive(Debug)]
pub enum AppError {
    /// No window could be opened (no display, no GPU or software renderer).
    Window(String),
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppError::Window(e) => write!(f, "cannot open the window: {e}"),
        }
    }
}

/// The core's and the CLI's messages name options as flags (`--level`); the app names
/// its controls. Every message the app shows from a run goes through here.
/// An option's name in the app: its control's.
pub fn in_app_word(option: wavebench_core::names::Opt) -> String {
    in_app_words(&option.flag())
}

pub fn in_app_words(message: &str) -> String {
    const WORDS: [(&str, &str); 12] = [
        ("--seq-len", "window length"),
        ("--level", "level"),
        ("--wavelet", "wavelet"),
        ("--mode", "mode"),
        ("--rows", "rows"),
        ("--stride", "stride"),
        ("--columns", "columns"),
        ("--batch-size", "batch size"),
        ("--time-column", "time column"),
        ("--missing", "missing values"),
        ("--dtype", "precision"),
        ("--template", "template"),
    ];
    let mut out = message.to_string();
    for (flag, word) in WORDS {
        out = out.replace(flag, word);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn flags_become_the_controls_names() {
        assert_eq!(
            super::in_app_words("--level: level 3 is above the maximum level 1 (--seq-len 20)"),
            "level: level 3 is above the maximum level 1 (window length 20)"
        );
    }
}

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

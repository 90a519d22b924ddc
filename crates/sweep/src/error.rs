//! What can stop a run, for every front end: one type. Its messages name options through
//! [`Opt`], and only the edges word them: the command line as flags (`--seq-len`), the app
//! as its controls ("window length"), each through [`Error::worded`].

use std::path::{Path, PathBuf};
use wavebench_core::data::DataError;
use wavebench_core::engine::EngineError;
use wavebench_core::names::{Opt, Phrase};
use wavebench_core::prompt::TemplateError;
use wavebench_core::score::{DefinedError, ScoreError};

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user's data, files or option values, naming the file, column, row or option.
    #[error("{0}")]
    Data(#[from] DataError),
    /// The data cannot be scored under the horizon and split asked for.
    #[error("{}", .0.phrase())]
    Score(#[from] ScoreError),
    /// A prompt template that does not compile or render; `place` names it.
    #[error("{place}: {source}")]
    Template {
        place: String,
        source: TemplateError,
    },
    /// A claim you define that does not compile or render; said of its place (`[claims]`,
    /// a unit) through [`Error::within`].
    #[error(transparent)]
    Claim(#[from] DefinedError),
    /// The engine's (its plan's errors are the input's, the others ours).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A file that could not be read or written.
    #[error("{}: cannot {doing}: {source}", path.display())]
    Io {
        path: PathBuf,
        doing: &'static str,
        source: std::io::Error,
    },
    /// Stopped on request (a newer request in the app, Ctrl-C on the command line).
    #[error("cancelled")]
    Cancelled,
    /// Ours, not the input's.
    #[error("{0}")]
    Internal(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A problem with what the user gave that names no option.
    pub fn input(message: impl Into<String>) -> Self {
        Error::Data(DataError::new(message))
    }

    /// A problem naming `options`, one per [`wavebench_core::names::OPTION`] in `text`.
    pub fn about(options: &[Opt], text: impl Into<String>) -> Self {
        Error::Data(DataError::about(options, text))
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Error::Internal(message.into())
    }

    /// A file that could not be read (`doing` = "read") or written.
    pub fn io(path: &Path, doing: &'static str, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            doing,
            source,
        }
    }

    /// The same error, said of `place` (a file or a part of one): `place: message`. Errors
    /// that name their own place (files, templates) and ours are left as they are.
    pub fn within(self, place: &str) -> Self {
        match self {
            Error::Data(e) => Error::Data(e.within(place)),
            Error::Score(e) => Error::Data(DataError::from(e.phrase().within(place))),
            Error::Claim(e) => Error::Data(DataError::new(e.to_string()).within(place)),
            Error::Engine(EngineError::Plan(p)) => {
                Error::Data(DataError::from(Phrase::new(p.to_string()).within(place)))
            }
            other => other,
        }
    }

    /// The message, each option in `word`'s words.
    pub fn worded(&self, word: impl Fn(Opt) -> String) -> String {
        match self {
            Error::Data(e) => e.worded(word),
            Error::Score(e) => e.phrase().worded(word),
            Error::Claim(e) => Phrase::new(e.to_string()).worded(word),
            other => other.to_string(),
        }
    }

    /// The process's exit status: 2 for the user's input, 130 when stopped, 1 for ours.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Data(_)
            | Error::Score(_)
            | Error::Claim(_)
            | Error::Template { .. }
            | Error::Io { .. } => 2,
            Error::Engine(EngineError::Plan(_)) => 2,
            Error::Cancelled | Error::Engine(EngineError::Cancelled) => 130,
            Error::Engine(_) | Error::Internal(_) => 1,
        }
    }

    /// Whether the run was stopped on request rather than failing.
    pub fn is_cancelled(&self) -> bool {
        matches!(
            self,
            Error::Cancelled | Error::Engine(EngineError::Cancelled)
        )
    }
}

impl From<wavebench_core::names::UnknownName> for Error {
    fn from(e: wavebench_core::names::UnknownName) -> Self {
        Error::input(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wavebench_core::names::OPTION;

    #[test]
    fn options_are_worded_by_the_front_end_and_places_prefix_the_message() {
        let e = Error::about(&[Opt::PredLen], format!("{OPTION} 120 is too long")).within("a.csv");
        assert_eq!(e.to_string(), "a.csv: pred_len 120 is too long");
        assert_eq!(
            e.worded(|o| format!("<{}>", o.name())),
            "a.csv: <pred_len> 120 is too long"
        );
        assert_eq!(e.exit_code(), 2);
        let s = Error::from(ScoreError::NoDraws).within("b.csv");
        assert_eq!(
            s.worded(|o| format!("<{}>", o.name())),
            "b.csv: <null_draws> 0: the null needs at least 1 draw (99 by default)"
        );
        assert_eq!(Error::internal("x").exit_code(), 1);
        assert_eq!(Error::Cancelled.exit_code(), 130);
        // Ours keeps its own words, with no place put in front.
        assert_eq!(Error::internal("bug").within("c.csv").to_string(), "bug");
    }
}

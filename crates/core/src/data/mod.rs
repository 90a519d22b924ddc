//! Data in memory: [`Table`] (time axis + numeric channels) → windows → normalised batches.
//! Reading files into a table is the application's (polars); this crate never does I/O.

mod dates;
mod missing;
mod normalize;
pub mod time;
mod windows;

pub use missing::Missing;
pub use normalize::{Affine, Normalize};
pub use time::{TimeAxis, TimeColumn, TimeKind};
pub use windows::{RowRange, Windows};

pub use crate::names::{Opt, Phrase, OPTION};
use crate::numeric::real::Values;
use std::path::PathBuf;

/// One loaded data set: every numeric column as a channel (NaN marks a missing cell).
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub path: PathBuf,
    /// The time axis (dates, or an index column), if the file has one.
    pub time: Option<TimeAxis>,
    pub channels: Vec<Channel>,
    /// Columns that were skipped because they are neither numeric nor the time axis.
    pub skipped: Vec<String>,
    /// What the user must be told about the load (text cells read as missing, skipped
    /// columns): one line each, naming the file and column.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Channel {
    pub name: String,
    /// The samples as read: f32 for f32 runs (half the memory; an f32 run rounds every
    /// sample to f32 anyway), else f64. Engines read them as f64, widened exactly.
    pub values: Values,
}

impl Table {
    pub fn rows(&self) -> usize {
        self.channels.first().map_or(0, |c| c.values.len())
    }

    pub fn channel(&self, name: &str) -> Option<&Channel> {
        self.channels.iter().find(|c| c.name == name)
    }

    /// The time of `row` as records carry it (`start_time`): the time axis's text (ISO 8601
    /// for dates), or the row number when the data has no time axis.
    pub fn time_label(&self, row: usize) -> String {
        self.time
            .as_ref()
            .and_then(|t| t.label(row))
            .unwrap_or_else(|| row.to_string())
    }
}

/// A problem with the user's data, naming the file, column, row or option at fault. An
/// option is named by each front end in its own words ([`DataError::worded`]: `--seq-len`
/// on the command line, "window length" in the app); `Display` uses the option's
/// configuration key (`seq_len`).
#[derive(Debug, Clone, PartialEq)]
pub struct DataError(Phrase);

impl DataError {
    /// A message that names no option.
    pub fn new(message: impl Into<String>) -> Self {
        DataError(Phrase::new(message))
    }

    /// A message naming `options`, one per [`OPTION`] in `text`, in order.
    pub fn about(options: &[Opt], text: impl Into<String>) -> Self {
        DataError(Phrase::about(options, text))
    }

    /// The same problem, said of `place` (a file): `place: message`.
    pub fn within(self, place: &str) -> Self {
        DataError(self.0.within(place))
    }

    /// The options the message names.
    pub fn options(&self) -> &[Opt] {
        self.0.options()
    }

    /// The message with each option in `word`'s words.
    pub fn worded(&self, word: impl Fn(Opt) -> String) -> String {
        self.0.worded(word)
    }

    /// The message, its options still to be worded.
    pub fn phrase(&self) -> &Phrase {
        &self.0
    }
}

impl From<Phrase> for DataError {
    fn from(p: Phrase) -> Self {
        DataError(p)
    }
}

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for DataError {}

pub fn err<T>(msg: impl Into<String>) -> Result<T, DataError> {
    Err(DataError::new(msg))
}

/// `err` for a message naming `options` (see [`DataError::about`]).
pub fn refuse<T>(options: &[Opt], text: impl Into<String>) -> Result<T, DataError> {
    Err(DataError::about(options, text))
}

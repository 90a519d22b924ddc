//! Data in: files → [`Table`] (time axis + numeric channels) → windows → normalised batches.

mod load;
mod missing;
mod normalize;
mod windows;

pub use load::{load, Format, LoadOptions};
pub use missing::Missing;
pub use normalize::Normalize;
pub use windows::{RowRange, Windows};

use std::path::PathBuf;

/// One loaded data set: every numeric column as a channel (NaN marks a missing cell).
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub path: PathBuf,
    /// The date/time column, if one was detected: its name and one label per row.
    pub time: Option<(String, Vec<String>)>,
    pub channels: Vec<Channel>,
    /// Columns that were skipped because they are neither numeric nor the time axis.
    pub skipped: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Channel {
    pub name: String,
    pub values: Vec<f64>,
}

impl Table {
    pub fn rows(&self) -> usize {
        self.channels.first().map_or(0, |c| c.values.len())
    }

    pub fn channel(&self, name: &str) -> Option<&Channel> {
        self.channels.iter().find(|c| c.name == name)
    }
}

/// A problem with the user's data, naming the file, column, row or option at fault.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[error("{0}")]
pub struct DataError(pub String);

pub fn err<T>(msg: impl Into<String>) -> Result<T, DataError> {
    Err(DataError(msg.into()))
}

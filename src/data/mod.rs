//! Data in: files → [`Table`] (time axis + numeric channels) → windows → normalised batches.

mod load;
mod missing;
mod normalize;
mod windows;

pub use load::{load, Format, LoadOptions};
pub use missing::Missing;
pub use normalize::{Affine, Normalize};
pub use windows::{RowRange, Windows};

use std::path::PathBuf;

/// One loaded data set: every numeric column as a channel (NaN marks a missing cell).
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub path: PathBuf,
    /// The date/time column, if one was detected: the x axis.
    pub time: Option<TimeAxis>,
    pub channels: Vec<Channel>,
    /// Columns that were skipped because they are neither numeric nor the time axis.
    pub skipped: Vec<String>,
}

/// The date/time column as read: one label per row, kept in the loader's columnar form
/// (no string per row) and formatted only when a label is asked for.
#[derive(Debug, Clone)]
pub struct TimeAxis {
    pub name: String,
    labels: polars::prelude::Column,
}

impl TimeAxis {
    pub fn new(name: String, labels: polars::prelude::Column) -> Self {
        TimeAxis { name, labels }
    }

    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.len() == 0
    }

    /// The label of `row` as the file wrote it (dates from typed formats are formatted).
    pub fn label(&self, row: usize) -> Option<String> {
        use polars::prelude::AnyValue;
        match self.labels.get(row).ok()? {
            AnyValue::Null => None,
            AnyValue::String(s) => Some(s.to_string()),
            v => Some(v.to_string()),
        }
    }

    /// Keep the rows where `keep` is true.
    pub fn retain(&mut self, keep: &[bool]) -> Result<(), String> {
        let mask: polars::prelude::BooleanChunked = keep.iter().copied().map(Some).collect();
        self.labels = self.labels.filter(&mask).map_err(|e| e.to_string())?;
        Ok(())
    }
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

//! What the input names: one file, or a data set of many — a folder (every data file in it)
//! or a glob (`data/*.parquet`) — read in name order, each file its own table.

use std::path::{Path, PathBuf};
use wavebench_core::data::{err, DataError};

/// Extensions a folder's data files may have (others, and hidden files, are left out).
const DATA_EXTENSIONS: [&str; 11] = [
    "csv", "tsv", "txt", "parquet", "pq", "arrow", "ipc", "feather", "ndjson", "jsonl", "json",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataSet {
    /// The files, in name order.
    pub files: Vec<PathBuf>,
    /// A folder or a glob (records then carry their `file`), not a single file.
    pub is_set: bool,
}

impl DataSet {
    /// Resolve the input: an existing file, a folder, or a glob pattern.
    pub fn resolve(input: &Path) -> Result<Self, DataError> {
        let shown = input.display();
        if let Ok(m) = std::fs::metadata(input) {
            if !m.is_file() && !m.is_dir() {
                // The format is sniffed before polars reads the file from its start, so a
                // stream that can be read once would arrive empty.
                return err(format!(
                    "{shown}: is a pipe or a device, not a file; wavebench reads a data file twice (its format, then its rows): save the stream to a file first"
                ));
            }
        }
        if input.is_file() {
            return Ok(DataSet {
                files: vec![input.to_path_buf()],
                is_set: false,
            });
        }
        let mut files: Vec<PathBuf> = if input.is_dir() {
            std::fs::read_dir(input)
                .map_err(|e| DataError::new(format!("{shown}: cannot read the folder: {e}")))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && is_data_file(p))
                .collect()
        } else if input.to_string_lossy().contains(['*', '?', '[']) {
            let pattern = input.to_string_lossy();
            // As a shell does: `*` does not match hidden files.
            let opts = glob::MatchOptions {
                require_literal_leading_dot: true,
                ..Default::default()
            };
            glob::glob_with(&pattern, opts)
                .map_err(|e| DataError::new(format!("{shown}: not a valid pattern: {e}")))?
                .filter_map(Result::ok)
                .filter(|p| p.is_file())
                .collect()
        } else {
            return err(format!("{shown}: no such file"));
        };
        if files.is_empty() {
            return err(format!(
                "{shown}: no data files (csv, tsv, parquet, arrow, ndjson) found"
            ));
        }
        files.sort();
        // A link loop under a `**` glob reaches the same file by many paths: read it once,
        // under the first (shortest in name order) of them.
        let mut seen = std::collections::HashSet::new();
        files.retain(|f| seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())));
        Ok(DataSet {
            files,
            is_set: true,
        })
    }

    /// How a record names its file: relative to the folder or the pattern's fixed part,
    /// so outputs do not depend on where the data set sits.
    pub fn file_name(&self, input: &Path, file: &Path) -> String {
        let base = if input.is_dir() {
            input.to_path_buf()
        } else {
            // The pattern's leading components without wildcards.
            input
                .components()
                .take_while(|c| !c.as_os_str().to_string_lossy().contains(['*', '?', '[']))
                .collect()
        };
        file.strip_prefix(&base)
            .unwrap_or(file)
            .to_string_lossy()
            .into_owned()
    }
}

fn is_data_file(p: &Path) -> bool {
    let hidden = p
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.'));
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    !hidden && DATA_EXTENSIONS.contains(&ext.as_str())
}

//! The options every data subcommand shares (`Common`: the transform and where it runs,
//! then `DataOpts`: the data), merged over `--config`; and how the command line names an
//! option in its messages (`flag`, `message`).

use crate::error::{Error, Result};
use clap::Args;
use std::path::PathBuf;
use wavebench_core::config::Config;
use wavebench_core::data::{Missing, Normalize};
use wavebench_core::engine::{DType, EngineKind};
use wavebench_core::names::Opt;
use wavebench_core::wavelet::{self, Mode};

/// Options every data subcommand shares; each overrides `--config`: the transform and
/// where it runs, then the data options (a sweep takes only those).
#[derive(Args, Debug, Default, Clone)]
pub struct Common {
    /// Wavelet name, as pywt spells it (db4, sym5, coif2, bior2.2, haar, ...)
    #[arg(long)]
    pub wavelet: Option<String>,
    /// Decomposition level
    #[arg(long)]
    pub level: Option<usize>,
    /// Signal extension mode at the window edges
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Where to compute (auto: CUDA when usable, else native)
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// Precision of the computation
    #[arg(long, value_enum)]
    pub dtype: Option<DType>,
    #[command(flatten)]
    pub data: DataOpts,
}

/// What data a run reads and how it cuts it into windows.
#[derive(Args, Debug, Default, Clone)]
pub struct DataOpts {
    /// Comma-separated channel names [default: every numeric column]
    #[arg(long, value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// START..END data rows (0-based, header excluded, END exclusive) [default: all]
    #[arg(long)]
    pub rows: Option<String>,
    /// Window length in rows [default: the whole series]
    #[arg(long)]
    pub seq_len: Option<usize>,
    /// Rows between the starts of consecutive windows
    #[arg(long)]
    pub stride: Option<usize>,
    /// Per-window normalisation [default: none for decompose, revin otherwise]
    #[arg(long, value_enum)]
    pub normalize: Option<Normalize>,
    /// What to do with empty, NaN or text cells
    #[arg(long, value_enum)]
    pub missing: Option<Missing>,
    /// The time-axis column: a name, or none [default: detected (dates, or an index such as t)]
    #[arg(long, value_name = "NAME|none")]
    pub time_column: Option<String>,
    /// In a data set (folder or glob), skip a file that cannot be used, with a warning
    #[arg(long)]
    pub skip_bad_files: bool,
    /// A TOML file with any of these options (snake_case keys)
    #[arg(long, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,
    /// No progress bar
    #[arg(long, short)]
    pub quiet: bool,
}

/// `--engines`: the engines to time, comma-separated, read once where the command line is
/// parsed (blanks around a name and empty names are ignored).
#[derive(Debug, Clone, PartialEq)]
pub struct Engines(pub Vec<EngineKind>);

impl std::str::FromStr for Engines {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let names: Vec<&str> = s
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .collect();
        if names.is_empty() {
            return Err(format!(
                "no engine named (expected a list of {})",
                EngineKind::NAMES.join(", ")
            ));
        }
        names
            .iter()
            .map(|n| {
                n.parse()
                    .map_err(|e: wavebench_core::names::UnknownName| e.to_string())
            })
            .collect::<std::result::Result<_, _>>()
            .map(Engines)
    }
}

/// An option as the command line names it: its flag (`--seq-len`; `-o` for the output).
pub fn flag(option: Opt) -> String {
    match option {
        Opt::Output => "-o".to_string(),
        o => format!("--{}", o.name().replace('_', "-")),
    }
}

/// The error in the command line's words.
pub fn message(e: &Error) -> String {
    e.worded(flag)
}

impl Common {
    /// Defaults ← `--config` file ← command-line options (validated by `RunSpec`).
    pub fn config(&self) -> Result<Config> {
        let mut c = self.data.config()?;
        if let Some(w) = &self.wavelet {
            c.transform.wavelet =
                wavelet::lookup(w).map_err(|e| Error::input(format!("--wavelet: {e}")))?;
        }
        if let Some(l) = self.level {
            c.transform.level = l;
        }
        if let Some(m) = self.mode {
            c.transform.mode = m;
        }
        if let Some(e) = self.engine {
            c.engine = e;
        }
        if let Some(d) = self.dtype {
            c.dtype = d;
        }
        Ok(c)
    }
}

impl DataOpts {
    /// Defaults ← `--config` file ← the data options given.
    pub fn config(&self) -> Result<Config> {
        let mut c = match &self.config {
            Some(p) => crate::config::read(p)?,
            None => Config::default(),
        };
        if self.columns.is_some() {
            c.columns = self.columns.clone();
        }
        if self.rows.is_some() {
            c.rows = self.rows.clone();
        }
        if self.seq_len.is_some() {
            c.seq_len = self.seq_len;
        }
        if let Some(s) = self.stride {
            c.stride = s;
        }
        if let Some(n) = self.normalize {
            c.normalize = Some(n);
        }
        if let Some(m) = self.missing {
            c.missing = m;
        }
        if let Some(t) = &self.time_column {
            c.time_column = t.parse().map_err(|e: wavebench_core::names::BadValue| {
                Error::input(format!("--time-column: {e}"))
            })?;
        }
        c.skip_bad_files |= self.skip_bad_files;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_are_read_once_trimmed_in_order_and_refused_by_name() {
        let e: Engines = " native, torch-cpu ,".parse().unwrap();
        assert_eq!(e.0, vec![EngineKind::Native, EngineKind::TorchCpu]);
        let empty = " , ".parse::<Engines>().unwrap_err();
        assert!(empty.starts_with("no engine named"), "{empty}");
        let bad = "native,cuda".parse::<Engines>().unwrap_err();
        assert!(bad.contains("unknown engine 'cuda'"), "{bad}");
    }
}

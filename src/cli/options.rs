//! The options every data subcommand shares (`Common`: the transform and where it runs,
//! then `DataOpts`: the data), merged over `--config`; and how the command line names an
//! option in its messages (`flag`, `message`).

use crate::error::{Error, Result};
use clap::Args;
use wavebench_core::config::Config;
use wavebench_core::engine::{DType, EngineKind};
use wavebench_core::names::{Opt, OPTION};
use wavebench_core::wavelet::{self, Mode};
pub use wavebench_sweep::options::DataOpts;

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
            c.transform.wavelet = wavelet::lookup(w)
                .map_err(|e| Error::about(&[Opt::Wavelet], format!("{OPTION}: {e}")))?;
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
